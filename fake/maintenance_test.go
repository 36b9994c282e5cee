package fake_test

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// schedule returns the one maintenance schedule of a database of e.
func (e *switchoverEnv) schedule(db string) *platform.MaintenanceSchedule {
	e.t.Helper()
	page, err := e.c.Maintenance.ListSchedules(e.t.Context(), &platform.ListMaintenanceSchedulesParams{Organization: e.srv.Org(), Database: db})
	if err != nil {
		e.t.Fatal(err)
	}
	if len(page.Items) != 1 {
		e.t.Fatalf("%d schedules, want 1", len(page.Items))
	}
	return page.Items[0]
}

// windows returns the maintenance windows of pg.
func (e *switchoverEnv) windows() []*platform.MaintenanceWindow {
	e.t.Helper()
	return opCollect(e.t, e.c.Maintenance.AllWindows(e.t.Context(), &platform.ListMaintenanceWindowsParams{Organization: e.srv.Org(), Database: "pg", ID: e.schedule("pg").ID}))
}

// run runs maintenance of a branch of pg.
func (e *switchoverEnv) run(branch string) error {
	return e.c.Maintenance.Run(e.t.Context(), &platform.RunBranchMaintenanceParams{Organization: e.srv.Org(), Database: "pg", Branch: branch})
}

func TestMaintenanceScheduleDerivedFromTheDatabase(t *testing.T) {
	t.Parallel()
	e := newSwitchoverEnv(t)
	mustDB(t, e.srv, "my")
	sc := e.schedule("pg")
	now := e.srv.Now()
	next, last := sc.NextWindowDatetime.Time, sc.LastWindowDatetime.Time
	switch {
	case sc.FrequencyUnit != platform.MaintenanceWeekly || sc.FrequencyValue != 1 || !sc.Enabled || sc.Required:
		t.Errorf("schedule %+v, want an enabled weekly one, not required", sc)
	case sc.Day < 0 || sc.Day > 6 || sc.Hour < 0 || sc.Hour > 23 || sc.Duration != 2:
		t.Errorf("day %d, hour %d, duration %d: want a weekday, an hour of the day and 2 hours", sc.Day, sc.Hour, sc.Duration)
	case !next.After(now) || next.Sub(now) > 7*24*time.Hour || !last.Equal(sc.CreatedAt.Time):
		t.Errorf("last %v, next %v at %v: want the next slot within a week, and no window before the first run (the schedule's creation, %v)", last, next, now, sc.CreatedAt)
	case int(next.Weekday()) != sc.Day || next.Hour() != sc.Hour || next.Minute() != 0:
		t.Errorf("next %v is not on day %d at %02d:00", next, sc.Day, sc.Hour)
	}
	got, err := e.c.Maintenance.GetSchedule(t.Context(), &platform.GetMaintenanceScheduleParams{Organization: e.srv.Org(), Database: "pg", ID: sc.ID})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(sc, got); diff != "" {
		t.Errorf("get (-list +get):\n%s", diff)
	}
	if other := e.schedule("my"); other.ID == sc.ID {
		t.Errorf("two databases share schedule %s", sc.ID)
	}
	// Another database's schedule is not found under pg.
	_, err = e.c.Maintenance.GetSchedule(t.Context(), &platform.GetMaintenanceScheduleParams{Organization: e.srv.Org(), Database: "pg", ID: e.schedule("my").ID})
	apiError(t, err, 404)
	_, err = e.c.Maintenance.ListWindows(t.Context(), &platform.ListMaintenanceWindowsParams{Organization: e.srv.Org(), Database: "pg", ID: "nope"})
	apiError(t, err, 404)
	// The next slot moves on a week once it has passed; the fake runs no
	// window in it, so the last window stays as the windows list has it.
	e.srv.Advance(next.Sub(now))
	if moved := e.schedule("pg"); !moved.LastWindowDatetime.Equal(last) || !moved.NextWindowDatetime.Equal(next.AddDate(0, 0, 7)) || len(e.windows()) != 0 {
		t.Errorf("at the slot: last %v, next %v, %d windows; want %v, a week later, none", moved.LastWindowDatetime, moved.NextWindowDatetime, len(e.windows()), last)
	}
}

// TestMaintenanceScheduleLastWindow: last_window_datetime is the latest
// window the windows list shows, never a slot that ran nothing nor a time
// before the database existed.
func TestMaintenanceScheduleLastWindow(t *testing.T) {
	t.Parallel()
	e := newSwitchoverEnv(t)
	created := e.schedule("pg").CreatedAt.Time
	var runs []time.Time
	steps := []struct {
		name string
		act  func()
		want func() time.Time
	}{
		{"new", func() {}, func() time.Time { return created }},
		{"two slots passed", func() { e.srv.Advance(15 * 24 * time.Hour) }, func() time.Time { return created }},
		{"a run", func() {
			if err := e.run("main"); err != nil {
				t.Fatal(err)
			}
			runs = append(runs, e.srv.Now())
		}, func() time.Time { return runs[0] }},
		{"a slot after the run", func() { e.srv.Advance(8 * 24 * time.Hour) }, func() time.Time { return runs[0] }},
		{"another run", func() {
			if err := e.run("dev"); err != nil {
				t.Fatal(err)
			}
			runs = append(runs, e.srv.Now())
		}, func() time.Time { return runs[1] }},
	}
	for _, s := range steps {
		s.act()
		sc := e.schedule("pg")
		ws := e.windows()
		if want := s.want(); !sc.LastWindowDatetime.Equal(want) {
			t.Errorf("%s: last_window_datetime %v, want %v", s.name, sc.LastWindowDatetime, want)
		}
		if len(ws) != len(runs) || len(ws) > 0 && !ws[len(ws)-1].StartedAt.Equal(sc.LastWindowDatetime.Time) {
			t.Errorf("%s: %d windows listed for %d runs, the last not at %v", s.name, len(ws), len(runs), sc.LastWindowDatetime)
		}
	}
}

func TestMaintenanceScheduleIsDeterministic(t *testing.T) {
	t.Parallel()
	a, b := newSwitchoverEnv(t), newSwitchoverEnv(t)
	if diff := cmp.Diff(a.schedule("pg"), b.schedule("pg")); diff != "" {
		t.Errorf("same seed, same calls, different schedules (-a +b):\n%s", diff)
	}
}

func TestMaintenanceRun(t *testing.T) {
	t.Parallel()
	e := newSwitchoverEnv(t)
	if err := e.run("main"); err != nil {
		t.Fatal(err)
	}
	started := e.srv.Now()
	ws := e.windows()
	if len(ws) != 1 || !ws[0].Running() || !ws[0].StartedAt.Equal(started) {
		t.Fatalf("windows %+v, want one running since %v", ws, started)
	}
	if sc := e.schedule("pg"); !sc.LastWindowDatetime.Equal(started) || !sc.UpdatedAt.Equal(started) {
		t.Errorf("schedule last window %v, updated %v; want the run's start %v", sc.LastWindowDatetime, sc.UpdatedAt, started)
	}
	if slices.Contains(e.srv.EventNames(), "branch.start_maintenance") {
		t.Error("branch.start_maintenance emitted; only a test emits it (Emit)")
	}
	sc, err := e.c.Maintenance.WaitSchedule(t.Context(), &platform.GetMaintenanceScheduleParams{Organization: e.srv.Org(), Database: "pg", ID: e.schedule("pg").ID})
	if err != nil {
		t.Fatal(err)
	}
	ws = e.windows()
	if len(ws) != 1 || ws[0].Running() || ws[0].FinishedAt.Sub(ws[0].StartedAt.Time) != fake.DefaultTimings().Maintenance {
		t.Errorf("windows %+v, want one finished after Timings.Maintenance", ws)
	}
	if !sc.UpdatedAt.Equal(ws[0].FinishedAt.Time) {
		t.Errorf("schedule updated %v, want the window's end %v", sc.UpdatedAt, ws[0].FinishedAt)
	}
	// Once it has finished, another can run.
	if err := e.run("dev"); err != nil {
		t.Errorf("second maintenance after the first finished: %v", err)
	}
}

func TestMaintenanceRefusals(t *testing.T) {
	t.Parallel()
	e := newSwitchoverEnv(t)
	mustDB(t, e.srv, "my")
	e.srv.Advance(5 * time.Second)
	if err := e.run("main"); err != nil {
		t.Fatal(err)
	}
	window := e.windows()[0].ID
	before, events := e.windows(), e.srv.EventNames()
	for _, tt := range []struct {
		name, db, branch string
		status           int
		words            []string
	}{
		{"same branch again", "pg", "main", 422, []string{"main", "maintenance", window}},
		{"another branch while one runs", "pg", "dev", 422, []string{"pg", window, "main"}},
		{"mysql database", "my", "main", 422, []string{"postgresql", "my", "mysql"}},
		{"unknown branch", "pg", "nope", 404, nil},
	} {
		err := e.c.Maintenance.Run(t.Context(), &platform.RunBranchMaintenanceParams{Organization: e.srv.Org(), Database: tt.db, Branch: tt.branch})
		apiError(t, err, tt.status, tt.words...)
	}
	// A switchover waits for the branch's maintenance, and maintenance for
	// a switchover.
	_, err := e.create("main", nil)
	apiError(t, err, 422, "main", "maintenance", window)
	if diff := cmp.Diff(before, e.windows()); diff != "" {
		t.Errorf("refusals changed the windows (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(events, e.srv.EventNames()); diff != "" {
		t.Errorf("refusals emitted events (-before +after):\n%s", diff)
	}
	e.srv.Advance(fake.DefaultTimings().Maintenance)
	sw, err := e.create("dev", nil)
	if err != nil {
		t.Fatal(err)
	}
	apiError(t, e.run("dev"), 422, "dev", sw.ID, "pending")
	if n := len(e.windows()); n != 1 {
		t.Errorf("%d windows, want 1", n)
	}
}

func TestMaintenanceOfDeletedBranchEnds(t *testing.T) {
	t.Parallel()
	e := newSwitchoverEnv(t)
	if err := e.run("dev"); err != nil {
		t.Fatal(err)
	}
	if err := e.c.Branches.Delete(t.Context(), &platform.DeleteBranchParams{Organization: e.srv.Org(), Database: "pg", Branch: "dev"}); err != nil {
		t.Fatal(err)
	}
	if ws := e.windows(); len(ws) != 1 || ws[0].Running() {
		t.Fatalf("windows %+v, want the deleted branch's finished", ws)
	}
	if err := e.run("main"); err != nil {
		t.Errorf("maintenance after the deleted branch's: %v", err)
	}
	if slices.Contains(e.srv.EventNames(), "branch.start_maintenance") {
		t.Error("branch.start_maintenance emitted; only a test emits it (Emit)")
	}
}

// TestSwitchoverAndMaintenanceTimings holds the lifecycles to the durations
// WithTimings gives.
func TestSwitchoverAndMaintenanceTimings(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t, fake.WithTimings(fake.Timings{SwitchoverStart: 3 * time.Second, SwitchoverRun: time.Minute, Maintenance: time.Hour}))
	c, ctx, org := srv.Client(), t.Context(), srv.Org()
	if _, err := c.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: org, Name: "pg", Kind: platform.KindPostgreSQL}); err != nil {
		t.Fatal(err)
	}
	srv.Advance(5 * time.Second)
	sw, err := c.Switchovers.Create(ctx, &platform.CreateSwitchoverParams{Organization: org, Database: "pg", Branch: "main"})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Maintenance.Run(ctx, &platform.RunBranchMaintenanceParams{Organization: org, Database: "pg", Branch: "main"}); err == nil {
		t.Fatal("maintenance ran while a switchover was pending")
	}
	get := &platform.GetSwitchoverParams{Organization: org, Database: "pg", Branch: "main", ID: sw.ID}
	var states []platform.SwitchoverState
	for _, d := range []time.Duration{3*time.Second - 1, 1, time.Minute - 1, 1} {
		srv.Advance(d)
		got, err := c.Switchovers.Get(ctx, get)
		if err != nil {
			t.Fatal(err)
		}
		states = append(states, got.State)
	}
	want := []platform.SwitchoverState{platform.SwitchoverPending, platform.SwitchoverRunning, platform.SwitchoverRunning, platform.SwitchoverSucceeded}
	if diff := cmp.Diff(want, states); diff != "" {
		t.Errorf("states at the timings' edges (-want +got):\n%s", diff)
	}
	if err := c.Maintenance.Run(ctx, &platform.RunBranchMaintenanceParams{Organization: org, Database: "pg", Branch: "main"}); err != nil {
		t.Fatal(err)
	}
	start := srv.Now()
	sc, err := c.Maintenance.ListSchedules(ctx, &platform.ListMaintenanceSchedulesParams{Organization: org, Database: "pg"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Maintenance.WaitSchedule(ctx, &platform.GetMaintenanceScheduleParams{Organization: org, Database: "pg", ID: sc.Items[0].ID}); err != nil {
		t.Fatal(err)
	}
	ws := opCollect(t, c.Maintenance.AllWindows(ctx, &platform.ListMaintenanceWindowsParams{Organization: org, Database: "pg", ID: sc.Items[0].ID}))
	if len(ws) != 1 || ws[0].FinishedAt.Sub(start) != time.Hour {
		t.Errorf("windows %+v, want one finished an hour after %v", ws, start)
	}
}
