package platform

import (
	"context"
	"iter"
)

// MaintenanceFrequency is the unit of a maintenance schedule's frequency.
type MaintenanceFrequency string

// The maintenance frequency units.
const (
	MaintenanceDaily   MaintenanceFrequency = "day"
	MaintenanceWeekly  MaintenanceFrequency = "week"
	MaintenanceMonthly MaintenanceFrequency = "month"
	MaintenanceOnce    MaintenanceFrequency = "once"
)

// MaintenanceSchedule says when a database's branches are maintained.
type MaintenanceSchedule struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	CreatedAt Timestamp `json:"created_at"`
	UpdatedAt Timestamp `json:"updated_at"`
	// LastWindowDatetime is when the latest maintenance window started.
	LastWindowDatetime Timestamp `json:"last_window_datetime"`
	// NextWindowDatetime is when the next one is due.
	NextWindowDatetime Timestamp `json:"next_window_datetime"`
	// Duration is the length of a window, in hours.
	Duration int `json:"duration"`
	// Day is the day of the week (0 is Sunday, 7 every day), Hour the hour
	// in UTC, Week the week of the month of a monthly schedule (0 to 3).
	Day  int `json:"day"`
	Hour int `json:"hour"`
	Week int `json:"week"`
	// FrequencyValue and FrequencyUnit say how often the windows come.
	FrequencyValue int                  `json:"frequency_value"`
	FrequencyUnit  MaintenanceFrequency `json:"frequency_unit"`
	Enabled        bool                 `json:"enabled"`
	// ExpiresAt ends a one-time schedule; DeadlineAt is when a required
	// one must have run.
	ExpiresAt                  *Timestamp `json:"expires_at"`
	DeadlineAt                 *Timestamp `json:"deadline_at"`
	Required                   bool       `json:"required"`
	PendingVitessVersionUpdate bool       `json:"pending_vitess_version_update"`
	PendingVitessVersion       *string    `json:"pending_vitess_version"`
	PendingMySQLVersionUpdate  bool       `json:"pending_mysql_version_update"`
	PendingMySQLVersion        *string    `json:"pending_mysql_version"`
}

// MaintenanceWindow is one run of maintenance.
type MaintenanceWindow struct {
	ID        string    `json:"id"`
	CreatedAt Timestamp `json:"created_at"`
	UpdatedAt Timestamp `json:"updated_at"`
	// StartedAt is nil until the window starts, FinishedAt until it ends.
	StartedAt  *Timestamp `json:"started_at"`
	FinishedAt *Timestamp `json:"finished_at"`
}

// Running reports whether the window has started and not finished.
func (w *MaintenanceWindow) Running() bool {
	return w.StartedAt != nil && w.FinishedAt == nil
}

// MaintenanceService runs maintenance on PostgreSQL branches and reads the
// maintenance schedules of databases.
type MaintenanceService service

func maintenanceSchedulesPath(org, db string) string {
	return pathf("v1/organizations/%s/databases/%s/maintenance-schedules", org, db)
}

// RunBranchMaintenanceParams asks for maintenance of a branch now.
type RunBranchMaintenanceParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	// UpdatePostgresMinorVersion upgrades the branch to the latest
	// PostgreSQL minor version during the maintenance.
	UpdatePostgresMinorVersion *bool `json:"update_postgres_minor_version,omitempty"`
}

// Run starts maintenance of a PostgreSQL branch. It runs in a window of the
// database's schedule; [MaintenanceService.WaitSchedule] waits until it has
// finished.
//
// API: POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/maintenance
func (s *MaintenanceService) Run(ctx context.Context, p *RunBranchMaintenanceParams) error {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch); err != nil {
		return err
	}
	return s.client.post(ctx, pathf("v1/organizations/%s/databases/%s/branches/%s/maintenance", p.Organization, p.Database, p.Branch), p, nil)
}

// ListMaintenanceSchedulesParams selects a page of a database's
// maintenance schedules.
type ListMaintenanceSchedulesParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	ListParams
}

// ListSchedules returns a page of a database's maintenance schedules.
//
// API: GET /v1/organizations/{organization}/databases/{database}/maintenance-schedules
func (s *MaintenanceService) ListSchedules(ctx context.Context, p *ListMaintenanceSchedulesParams) (*Page[MaintenanceSchedule], error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database); err != nil {
		return nil, err
	}
	return listPage[MaintenanceSchedule](ctx, s.client, maintenanceSchedulesPath(p.Organization, p.Database), p)
}

// AllSchedules ranges over every maintenance schedule of a database.
func (s *MaintenanceService) AllSchedules(ctx context.Context, p *ListMaintenanceSchedulesParams) iter.Seq2[*MaintenanceSchedule, error] {
	return allOf(ctx, p, s.ListSchedules)
}

// GetMaintenanceScheduleParams names a maintenance schedule.
type GetMaintenanceScheduleParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	ID           string `json:"-" url:"-"`
}

func (p *GetMaintenanceScheduleParams) check() error {
	return required("organization", p.Organization, "database", p.Database, "id", p.ID)
}

func (p *GetMaintenanceScheduleParams) path(suffix string) string {
	return maintenanceSchedulesPath(p.Organization, p.Database) + pathf("/%s", p.ID) + suffix
}

// GetSchedule returns a maintenance schedule.
//
// API: GET /v1/organizations/{organization}/databases/{database}/maintenance-schedules/{id}
func (s *MaintenanceService) GetSchedule(ctx context.Context, p *GetMaintenanceScheduleParams) (*MaintenanceSchedule, error) {
	return callOn[MaintenanceSchedule](ctx, s.client, "GET", p, "", nil, nil)
}

// ListMaintenanceWindowsParams selects a page of a maintenance schedule's
// windows.
type ListMaintenanceWindowsParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	// ID is the maintenance schedule's.
	ID string `json:"-" url:"-"`
	ListParams
}

// ListWindows returns a page of a maintenance schedule's windows.
//
// API: GET /v1/organizations/{organization}/databases/{database}/maintenance-schedules/{id}/windows
func (s *MaintenanceService) ListWindows(ctx context.Context, p *ListMaintenanceWindowsParams) (*Page[MaintenanceWindow], error) {
	p = orZero(p)
	return listOn[MaintenanceWindow](ctx, s.client, &GetMaintenanceScheduleParams{Organization: p.Organization, Database: p.Database, ID: p.ID}, "/windows", p)
}

// AllWindows ranges over every window of a maintenance schedule.
func (s *MaintenanceService) AllWindows(ctx context.Context, p *ListMaintenanceWindowsParams) iter.Seq2[*MaintenanceWindow, error] {
	return allOf(ctx, p, s.ListWindows)
}

// WaitSchedule polls a maintenance schedule's windows until none is running,
// and returns the schedule: after [MaintenanceService.Run], it waits for
// the maintenance to finish.
func (s *MaintenanceService) WaitSchedule(ctx context.Context, p *GetMaintenanceScheduleParams) (*MaintenanceSchedule, error) {
	p = orZero(p)
	lp := &ListMaintenanceWindowsParams{Organization: p.Organization, Database: p.Database, ID: p.ID}
	return waitFor(ctx, s.client, func(ctx context.Context) (*MaintenanceSchedule, error) {
		return s.GetSchedule(ctx, p)
	}, func(*MaintenanceSchedule) (bool, error) {
		for w, err := range s.AllWindows(ctx, lp) {
			if err != nil {
				return false, err
			}
			if w.Running() {
				return false, nil
			}
		}
		return true, nil
	})
}
