package platform

import (
	"context"
	"iter"
	"net/url"
	"time"
)

// BackupState is the state of a backup.
type BackupState string

// The backup states. A backup starts pending, runs, and ends in success,
// failed or canceled (its branch was deleted before it finished). A policy
// run that finds a backup of the same branch still in progress records an
// ignored backup instead of starting another.
const (
	BackupPending  BackupState = "pending"
	BackupRunning  BackupState = "running"
	BackupSuccess  BackupState = "success"
	BackupFailed   BackupState = "failed"
	BackupCanceled BackupState = "canceled"
	BackupIgnored  BackupState = "ignored"
)

// Done reports whether the backup has reached a state it will not leave.
func (s BackupState) Done() bool {
	switch s {
	case BackupSuccess, BackupFailed, BackupCanceled, BackupIgnored:
		return true
	}
	return false
}

// BackupPolicyTarget is the kind of branch a backup policy backs up.
type BackupPolicyTarget string

// The backup policy targets.
const (
	BackupTargetProduction  BackupPolicyTarget = "production"
	BackupTargetDevelopment BackupPolicyTarget = "development"
)

// RetentionUnit is the unit of a retention period.
type RetentionUnit string

// The retention units.
const (
	RetentionHour  RetentionUnit = "hour"
	RetentionDay   RetentionUnit = "day"
	RetentionWeek  RetentionUnit = "week"
	RetentionMonth RetentionUnit = "month"
	RetentionYear  RetentionUnit = "year"
)

// FrequencyUnit is the unit of a backup policy's frequency.
type FrequencyUnit string

// The frequency units.
const (
	FrequencyHour  FrequencyUnit = "hour"
	FrequencyDay   FrequencyUnit = "day"
	FrequencyWeek  FrequencyUnit = "week"
	FrequencyMonth FrequencyUnit = "month"
)

// Backup is a backup of a branch: its schema and data at a point in time,
// kept until it expires. A successful backup can be restored into a new
// branch ([CreateBranchParams.BackupID]).
type Backup struct {
	ID    string      `json:"id"`
	Type  string      `json:"type"`
	Name  string      `json:"name"`
	State BackupState `json:"state"`
	// Size is the backup's size in bytes, known once it succeeded.
	Size                 int64   `json:"size"`
	UncompressedSize     int64   `json:"uncompressed_size"`
	EstimatedStorageCost float64 `json:"estimated_storage_cost"`
	// PVCSize is the size of the volume used for the backup, in bytes.
	PVCSize int64 `json:"pvc_size"`
	// Protected backups cannot be deleted.
	Protected bool `json:"protected"`
	// Required is true for backups of a database's required policy, which
	// cannot be deleted.
	Required bool `json:"required"`
	// RestoredBranches are the branches restored from this backup.
	RestoredBranches []*BranchRef `json:"restored_branches"`
	// Actor is who asked for the backup; nil for a policy's backups.
	Actor *Actor `json:"actor"`
	// BackupPolicy is the policy that made the backup; nil for one asked
	// for directly.
	BackupPolicy *BackupPolicy `json:"backup_policy"`
	// SchemaSnapshot is the schema the backup holds.
	SchemaSnapshot *SchemaSnapshot `json:"schema_snapshot"`
	// DatabaseBranch is the branch the backup is of.
	DatabaseBranch *BranchRef `json:"database_branch"`
	CreatedAt      Timestamp  `json:"created_at"`
	UpdatedAt      Timestamp  `json:"updated_at"`
	StartedAt      *Timestamp `json:"started_at"`
	CompletedAt    *Timestamp `json:"completed_at"`
	ExpiresAt      *Timestamp `json:"expires_at"`
	DeletedAt      *Timestamp `json:"deleted_at"`
}

// SchemaSnapshot is the record of a schema kept with a backup.
type SchemaSnapshot struct {
	ID        string     `json:"id"`
	Name      string     `json:"name"`
	URL       string     `json:"url"`
	CreatedAt Timestamp  `json:"created_at"`
	UpdatedAt Timestamp  `json:"updated_at"`
	LintedAt  *Timestamp `json:"linted_at"`
}

// BackupPolicy is a schedule on which a database's branches are backed up.
type BackupPolicy struct {
	ID          string             `json:"id"`
	Type        string             `json:"type"`
	Name        string             `json:"name"`
	DisplayName string             `json:"display_name"`
	Target      BackupPolicyTarget `json:"target"`
	// RetentionValue and RetentionUnit say how long its backups are kept.
	RetentionValue int           `json:"retention_value"`
	RetentionUnit  RetentionUnit `json:"retention_unit"`
	// FrequencyValue and FrequencyUnit say how often it runs.
	FrequencyValue int           `json:"frequency_value"`
	FrequencyUnit  FrequencyUnit `json:"frequency_unit"`
	// ScheduleTime is the time of day it runs, "HH:MM" in UTC.
	ScheduleTime string `json:"schedule_time"`
	// ScheduleDay is the day of the week it runs (0 is Sunday, 6 is
	// Saturday), for weekly and monthly policies.
	ScheduleDay *int `json:"schedule_day"`
	// ScheduleWeek is the week of the month it runs (0 is the first week,
	// 3 the fourth), for monthly policies.
	ScheduleWeek *int `json:"schedule_week"`
	// Required is true for the database's required policy, which cannot be
	// deleted.
	Required  bool       `json:"required"`
	LastRanAt *Timestamp `json:"last_ran_at"`
	NextRunAt *Timestamp `json:"next_run_at"`
	CreatedAt Timestamp  `json:"created_at"`
	UpdatedAt Timestamp  `json:"updated_at"`
}

// BackupsService manages the backups of branches.
type BackupsService service

// backupsPath is the collection path of a branch's backups.
func backupsPath(org, db, branch string) string {
	return pathf("v1/organizations/%s/databases/%s/branches/%s/backups", org, db, branch)
}

// TimeRange is an interval of time, for filters over periods.
type TimeRange struct {
	// Start is the range's first instant.
	Start time.Time
	// End is the range's last instant; the range includes it.
	End time.Time
}

// EncodeValues writes the range as the API's "START..END" query value.
func (r TimeRange) EncodeValues(key string, v *url.Values) error {
	v.Set(key, r.Start.Format(time.RFC3339Nano)+".."+r.End.Format(time.RFC3339Nano))
	return nil
}

// ListBackupsParams selects a page of a branch's backups.
type ListBackupsParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	// IncludeDeleted adds deleted backups to the list.
	IncludeDeleted bool `json:"-" url:"all,omitempty"`
	// State keeps the backups in that state.
	State BackupState `json:"-" url:"state,omitempty"`
	// Policy keeps the backups made by the backup policy with that ID.
	Policy string `json:"-" url:"policy,omitempty"`
	// From keeps the backups started at or after that time.
	From time.Time `json:"-" url:"from,omitempty" layout:"2006-01-02T15:04:05.999999999Z07:00"`
	// To keeps the backups started at or before that time.
	To time.Time `json:"-" url:"to,omitempty" layout:"2006-01-02T15:04:05.999999999Z07:00"`
	// RunningAt keeps the backups that were running at some time in the range.
	RunningAt *TimeRange `json:"-" url:"running_at,omitempty"`
	// Production, when set, keeps the backups taken while the branch was a
	// production branch (true) or a development branch (false).
	Production *bool `json:"-" url:"production,omitempty"`
	// Order is by creation time; ascending when empty.
	Order Order `json:"-" url:"order,omitempty"`
	ListParams
}

// List returns a page of a branch's backups.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/backups
func (s *BackupsService) List(ctx context.Context, p *ListBackupsParams) (*Page[Backup], error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch); err != nil {
		return nil, err
	}
	if err := p.Order.check(); err != nil {
		return nil, err
	}
	return listPage[Backup](ctx, s.client, backupsPath(p.Organization, p.Database, p.Branch), p)
}

// All ranges over every backup of a branch that matches p.
func (s *BackupsService) All(ctx context.Context, p *ListBackupsParams) iter.Seq2[*Backup, error] {
	return allOf(ctx, p, s.List)
}

// CreateBackupParams describes a backup to take now.
type CreateBackupParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	// Name is the backup's name; one is made from the branch and the time
	// when nil.
	Name *string `json:"name,omitempty"`
	// RetentionValue (1 to 1000) and RetentionUnit, given together, say how
	// long the backup is kept; 7 days when both are nil.
	RetentionValue *int           `json:"retention_value,omitempty"`
	RetentionUnit  *RetentionUnit `json:"retention_unit,omitempty"`
	// Emergency asks for an immediate backup that may affect the
	// database's performance; PostgreSQL databases only.
	Emergency *bool `json:"emergency,omitempty"`
}

// Create starts a backup of a branch. It starts pending;
// [BackupsService.Wait] waits until it has finished.
//
// API: POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/backups
func (s *BackupsService) Create(ctx context.Context, p *CreateBackupParams) (*Backup, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch); err != nil {
		return nil, err
	}
	b := new(Backup)
	return orNil(b, s.client.post(ctx, backupsPath(p.Organization, p.Database, p.Branch), p, b))
}

// GetBackupParams names a backup.
type GetBackupParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	ID           string `json:"-" url:"-"`
}

func (p *GetBackupParams) check() error {
	return required("organization", p.Organization, "database", p.Database, "branch", p.Branch, "id", p.ID)
}

func (p *GetBackupParams) path(suffix string) string {
	return backupsPath(p.Organization, p.Database, p.Branch) + pathf("/%s", p.ID) + suffix
}

// Get returns a backup.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/backups/{id}
func (s *BackupsService) Get(ctx context.Context, p *GetBackupParams) (*Backup, error) {
	return callOn[Backup](ctx, s.client, "GET", p, "", nil, nil)
}

// UpdateBackupParams changes a backup's protection.
type UpdateBackupParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	ID           string `json:"-" url:"-"`
	// Protected protects the backup from deletion (true) or lifts the
	// protection (false).
	Protected *bool `json:"protected,omitempty"`
}

// Update changes a backup's protection from deletion.
//
// API: PATCH /v1/organizations/{organization}/databases/{database}/branches/{branch}/backups/{id}
func (s *BackupsService) Update(ctx context.Context, p *UpdateBackupParams) (*Backup, error) {
	p = orZero(p)
	return callOn[Backup](ctx, s.client, "PATCH", &GetBackupParams{p.Organization, p.Database, p.Branch, p.ID}, "", nil, p)
}

// DeleteBackupParams names the backup to delete.
type DeleteBackupParams = GetBackupParams

// Delete deletes a backup; one still in progress is canceled. A protected
// backup and a backup of the required policy are refused with
// [ErrUnprocessable].
//
// API: DELETE /v1/organizations/{organization}/databases/{database}/branches/{branch}/backups/{id}
func (s *BackupsService) Delete(ctx context.Context, p *DeleteBackupParams) error {
	return doOn(ctx, s.client, "DELETE", p, "", nil, nil)
}

// Wait polls a backup until it has finished, and returns it. A backup
// that ends in a state other than success (failed, canceled or ignored)
// gives a [*StateError] naming that state, with the backup.
func (s *BackupsService) Wait(ctx context.Context, p *GetBackupParams) (*Backup, error) {
	return waitForGet(ctx, s.client, func(ctx context.Context) (*Backup, error) {
		return s.Get(ctx, p)
	}, func(b *Backup) (bool, error) {
		if !b.State.Done() {
			return false, nil
		}
		if b.State != BackupSuccess {
			return true, &StateError{Resource: "backup " + b.ID, State: string(b.State), Want: []string{string(BackupSuccess)}}
		}
		return true, nil
	})
}

// BackupPoliciesService manages the backup schedules of databases.
type BackupPoliciesService service

// backupPoliciesPath is the collection path of a database's backup policies.
func backupPoliciesPath(org, db string) string {
	return pathf("v1/organizations/%s/databases/%s/backup-policies", org, db)
}

// ListBackupPoliciesParams selects a page of a database's backup policies.
type ListBackupPoliciesParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	// Order is by creation time; ascending when empty.
	Order Order `json:"-" url:"order,omitempty"`
	ListParams
}

// List returns a page of a database's backup policies.
//
// API: GET /v1/organizations/{organization}/databases/{database}/backup-policies
func (s *BackupPoliciesService) List(ctx context.Context, p *ListBackupPoliciesParams) (*Page[BackupPolicy], error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database); err != nil {
		return nil, err
	}
	if err := p.Order.check(); err != nil {
		return nil, err
	}
	return listPage[BackupPolicy](ctx, s.client, backupPoliciesPath(p.Organization, p.Database), p)
}

// All ranges over every backup policy of a database.
func (s *BackupPoliciesService) All(ctx context.Context, p *ListBackupPoliciesParams) iter.Seq2[*BackupPolicy, error] {
	return allOf(ctx, p, s.List)
}

// CreateBackupPolicyParams describes a new backup policy.
type CreateBackupPolicyParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	// Name names the policy.
	Name string `json:"name"`
	// Target is the kind of branch the policy backs up.
	Target BackupPolicyTarget `json:"target"`
	// RetentionValue (1 to 1000) and RetentionUnit say how long the
	// policy's backups are kept.
	RetentionValue int           `json:"retention_value"`
	RetentionUnit  RetentionUnit `json:"retention_unit"`
	// FrequencyValue and FrequencyUnit say how often the policy runs: every
	// 1-24 hours, 1-31 days, 1-4 weeks or 1-12 months.
	FrequencyValue int           `json:"frequency_value"`
	FrequencyUnit  FrequencyUnit `json:"frequency_unit"`
	// ScheduleTime is the time of day, "HH:MM" in UTC; "00:00" when nil.
	ScheduleTime *string `json:"schedule_time,omitempty"`
	// ScheduleDay is the day of the week (0 is Sunday, 6 Saturday) of
	// weekly and monthly policies; Sunday when nil.
	ScheduleDay *int `json:"schedule_day,omitempty"`
	// ScheduleWeek is the week of the month (0 is the first, 3 the fourth)
	// of monthly policies; the first when nil.
	ScheduleWeek *int `json:"schedule_week,omitempty"`
}

// Create creates a backup policy. Its first run is at its NextRunAt.
//
// API: POST /v1/organizations/{organization}/databases/{database}/backup-policies
func (s *BackupPoliciesService) Create(ctx context.Context, p *CreateBackupPolicyParams) (*BackupPolicy, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database); err != nil {
		return nil, err
	}
	bp := new(BackupPolicy)
	return orNil(bp, s.client.post(ctx, backupPoliciesPath(p.Organization, p.Database), p, bp))
}

// GetBackupPolicyParams names a backup policy.
type GetBackupPolicyParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	ID           string `json:"-" url:"-"`
}

func (p *GetBackupPolicyParams) check() error {
	return required("organization", p.Organization, "database", p.Database, "id", p.ID)
}

func (p *GetBackupPolicyParams) path(suffix string) string {
	return backupPoliciesPath(p.Organization, p.Database) + pathf("/%s", p.ID) + suffix
}

// Get returns a backup policy.
//
// API: GET /v1/organizations/{organization}/databases/{database}/backup-policies/{id}
func (s *BackupPoliciesService) Get(ctx context.Context, p *GetBackupPolicyParams) (*BackupPolicy, error) {
	return callOn[BackupPolicy](ctx, s.client, "GET", p, "", nil, nil)
}

// UpdateBackupPolicyParams changes a backup policy; nil fields are left as
// they are.
type UpdateBackupPolicyParams struct {
	Organization   string              `json:"-" url:"-"`
	Database       string              `json:"-" url:"-"`
	ID             string              `json:"-" url:"-"`
	Name           *string             `json:"name,omitempty"`
	Target         *BackupPolicyTarget `json:"target,omitempty"`
	RetentionValue *int                `json:"retention_value,omitempty"`
	RetentionUnit  *RetentionUnit      `json:"retention_unit,omitempty"`
	FrequencyValue *int                `json:"frequency_value,omitempty"`
	FrequencyUnit  *FrequencyUnit      `json:"frequency_unit,omitempty"`
	ScheduleTime   *string             `json:"schedule_time,omitempty"`
	ScheduleDay    *int                `json:"schedule_day,omitempty"`
	ScheduleWeek   *int                `json:"schedule_week,omitempty"`
}

// Update changes a backup policy; its next run moves to follow the new
// schedule. The required policy's target cannot change.
//
// API: PATCH /v1/organizations/{organization}/databases/{database}/backup-policies/{id}
func (s *BackupPoliciesService) Update(ctx context.Context, p *UpdateBackupPolicyParams) (*BackupPolicy, error) {
	p = orZero(p)
	return callOn[BackupPolicy](ctx, s.client, "PATCH", &GetBackupPolicyParams{p.Organization, p.Database, p.ID}, "", nil, p)
}

// DeleteBackupPolicyParams names the backup policy to delete.
type DeleteBackupPolicyParams = GetBackupPolicyParams

// Delete deletes a backup policy; it runs no more. The database's required
// policy is refused with [ErrUnprocessable].
//
// API: DELETE /v1/organizations/{organization}/databases/{database}/backup-policies/{id}
func (s *BackupPoliciesService) Delete(ctx context.Context, p *DeleteBackupPolicyParams) error {
	return doOn(ctx, s.client, "DELETE", p, "", nil, nil)
}
