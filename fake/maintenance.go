package fake

import (
	"hash/fnv"
	"time"

	"github.com/dbplatform/platform-go"
)

// maintenanceStore is what a database keeps of its maintenance: the
// windows that ran in its schedule, and the one running.
type maintenanceStore struct {
	windows index[*windowRec]
	running *windowRec // nil when none runs
}

// windowRec is a maintenance window: one maintenance of a branch.
type windowRec struct {
	stamps
	branch            *branchRec
	started, finished time.Time
}

// The maintenance schedule every database has; see scheduleOf.
const (
	scheduleName     = "Weekly maintenance"
	scheduleDuration = 2 // hours
	scheduleIDPrefix = "mnt"
)

func maintenanceRoutes() []route {
	return []route{
		{pattern: "POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/maintenance", op: "run_branch_maintenance", handler: withBody(runBranchMaintenance)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/maintenance-schedules", op: "list_maintenance_schedules", handler: read(listMaintenanceSchedules)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/maintenance-schedules/{id}", op: "get_maintenance_schedule", handler: read(getMaintenanceSchedule)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/maintenance-schedules/{id}/windows", op: "list_maintenance_windows", handler: read(listMaintenanceWindows)},
	}
}

// runBranchMaintenance takes update_postgres_minor_version and does
// nothing more with it: the fake's branches have no minor version.
func runBranchMaintenance(c *call, _ *platform.RunBranchMaintenanceParams) (any, error) {
	b, err := c.postgresBranch("maintenance runs")
	if err != nil {
		return nil, err
	}
	if err := b.busy(); err != nil {
		return nil, err
	}
	if w := b.db.x().maintenance.running; w != nil {
		return nil, unprocessable("database %s is in maintenance window %s (branch %s); wait until it finishes", b.db.name, w.id, w.branch.name)
	}
	c.w.startMaintenance(b)
	return nil, nil
}

// startMaintenance opens a window of b's database for b and finishes it
// after Timings.Maintenance. It emits no event: branch.start_maintenance
// is one a test emits (Server.Emit), as decisions.md has it.
func (w *world) startMaintenance(b *branchRec) {
	now := w.clock.Now()
	win := &windowRec{
		stamps:  stamps{id: w.newID(), created: now, updated: now},
		branch:  b,
		started: now,
	}
	b.db.x().maintenance.windows.Add(win)
	b.db.x().maintenance.running = win
	w.clock.After(w.timing.Maintenance, maintenanceEndJob{win})
}

// finishMaintenance closes the running window win.
func (w *world) finishMaintenance(win *windowRec) {
	now := w.clock.Now()
	win.finished, win.updated = now, now
	win.branch.db.x().maintenance.running = nil
}

// endMaintenance finishes the maintenance of b, if one runs, as deleting b
// does.
func (w *world) endMaintenance(b *branchRec) {
	if m := b.db.more.peek(); m != nil && m.maintenance.running != nil && m.maintenance.running.branch == b {
		w.finishMaintenance(m.maintenance.running)
	}
}

// maintenanceSchedule is a database's maintenance schedule, derived from
// it: see scheduleOf.
type maintenanceSchedule struct {
	db   *dbRec
	id   string
	slot schedule // weekly, on the hour
}

// scheduleOf derives db's one maintenance schedule: weekly, two hours
// long, on a day of the week and at an hour (UTC) that a hash of the
// database's ID picks, so that a database keeps its slot and databases
// spread over the week.
func scheduleOf(db *dbRec) *maintenanceSchedule {
	h := fnv.New64a()
	h.Write([]byte(db.id))
	sum := h.Sum64()
	return &maintenanceSchedule{
		db:   db,
		id:   catalogueID(scheduleIDPrefix, db.id),
		slot: schedule{unit: platform.FrequencyWeek, every: 1, day: int(sum % 7), hour: int(sum / 7 % 24)},
	}
}

func (c *call) maintenanceSchedule() (*maintenanceSchedule, error) {
	sc := scheduleOf(c.db)
	if c.r.PathValue("id") != sc.id {
		return nil, notFound()
	}
	return sc, nil
}

func listMaintenanceSchedules(c *call) (any, error) {
	return slicePageOf(c, []*maintenanceSchedule{scheduleOf(c.db)}, false, c.w.renderSchedule), nil
}

func getMaintenanceSchedule(c *call) (any, error) {
	sc, err := c.maintenanceSchedule()
	if err != nil {
		return nil, err
	}
	return c.w.renderSchedule(sc), nil
}

func listMaintenanceWindows(c *call) (any, error) {
	if _, err := c.maintenanceSchedule(); err != nil {
		return nil, err
	}
	return pageOf(c, &c.db.x().maintenance.windows, false, renderWindow), nil
}

// renderSchedule renders a schedule as the API shows it at the server's
// time: its last window is the latest that ran, as the windows list shows
// it (the fake runs none by itself, so a slot passed is none); before the
// first, the field (which the API always sends) holds the schedule's
// creation, the database's, never a time before the database existed.
func (w *world) renderSchedule(sc *maintenanceSchedule) *platform.MaintenanceSchedule {
	next := sc.slot.next(w.clock.Now())
	last, updated := sc.db.created, sc.db.created
	if m := sc.db.more.peek(); m != nil && m.maintenance.windows.Len() > 0 {
		ws := m.maintenance.windows.All()
		win := ws[len(ws)-1]
		last, updated = win.started, win.updated
	}
	return &platform.MaintenanceSchedule{
		ID:                 sc.id,
		Name:               scheduleName,
		CreatedAt:          platform.NewTimestamp(sc.db.created),
		UpdatedAt:          platform.NewTimestamp(updated),
		LastWindowDatetime: platform.NewTimestamp(last),
		NextWindowDatetime: platform.NewTimestamp(next),
		Duration:           scheduleDuration,
		Day:                sc.slot.day,
		Hour:               sc.slot.hour,
		FrequencyValue:     1,
		FrequencyUnit:      platform.MaintenanceWeekly,
		Enabled:            true,
	}
}

// renderWindow renders a maintenance window as the API shows it.
func renderWindow(w *windowRec) *platform.MaintenanceWindow {
	return &platform.MaintenanceWindow{
		ID:         w.id,
		CreatedAt:  platform.NewTimestamp(w.created),
		UpdatedAt:  platform.NewTimestamp(w.updated),
		StartedAt:  ptrTime(w.started),
		FinishedAt: ptrTime(w.finished),
	}
}
