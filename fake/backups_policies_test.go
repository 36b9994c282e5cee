package fake_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
	"github.com/google/go-cmp/cmp"
)

// hourlyPolicy is a valid policy: development branches, every hour on the
// hour, kept a day.
func hourlyPolicy(srv *fake.Server) *platform.CreateBackupPolicyParams {
	return &platform.CreateBackupPolicyParams{
		Organization: srv.Org(), Database: backupDB, Name: "hourly",
		Target:         platform.BackupTargetDevelopment,
		RetentionValue: 1, RetentionUnit: platform.RetentionDay,
		FrequencyValue: 1, FrequencyUnit: platform.FrequencyHour,
		ScheduleTime: platform.Ptr("00:00"),
	}
}

func createBackupPolicy(t *testing.T, c *platform.Client, p *platform.CreateBackupPolicyParams) *platform.BackupPolicy {
	t.Helper()
	pol, err := c.BackupPolicies.Create(t.Context(), p)
	if err != nil {
		t.Fatalf("create policy: %v", err)
	}
	return pol
}

func backupPolicyOf(srv *fake.Server, id string) *platform.GetBackupPolicyParams {
	return &platform.GetBackupPolicyParams{Organization: srv.Org(), Database: backupDB, ID: id}
}

func getBackupPolicy(t *testing.T, srv *fake.Server, c *platform.Client, id string) *platform.BackupPolicy {
	t.Helper()
	pol, err := c.BackupPolicies.Get(t.Context(), backupPolicyOf(srv, id))
	if err != nil {
		t.Fatalf("get policy %s: %v", id, err)
	}
	return pol
}

// listBackupPolicies returns every policy of backupDB.
func listBackupPolicies(t *testing.T, srv *fake.Server, c *platform.Client) []*platform.BackupPolicy {
	t.Helper()
	var out []*platform.BackupPolicy
	for p, err := range c.BackupPolicies.All(t.Context(), &platform.ListBackupPoliciesParams{Organization: srv.Org(), Database: backupDB, ListParams: platform.ListParams{PerPage: 1}}) {
		if err != nil {
			t.Fatalf("list policies: %v", err)
		}
		out = append(out, p)
	}
	return out
}

// policyBackups lists the backups of a branch of backupDB that a policy made.
func policyBackups(t *testing.T, srv *fake.Server, c *platform.Client, branch, policy string) []*platform.Backup {
	t.Helper()
	var out []*platform.Backup
	for bk, err := range c.Backups.All(t.Context(), &platform.ListBackupsParams{Organization: srv.Org(), Database: backupDB, Branch: branch, Policy: policy}) {
		if err != nil {
			t.Fatalf("list backups: %v", err)
		}
		out = append(out, bk)
	}
	return out
}

func TestRequiredBackupPolicy(t *testing.T) {
	t.Parallel()
	srv, c := newBackupWorld(t)
	pols := listBackupPolicies(t, srv, c)
	if len(pols) != 1 {
		t.Fatalf("a new database has %d policies, want 1", len(pols))
	}
	req := pols[0]
	midnight := fake.DefaultStart.AddDate(0, 0, 1)
	if !req.Required || req.Target != platform.BackupTargetProduction || req.Type != "BackupPolicy" ||
		!backupTimeIs(req.NextRunAt, midnight) || req.LastRanAt != nil || req.ScheduleDay != nil || req.ScheduleWeek != nil {
		t.Errorf("required policy = %+v, want required, production, next run %v", req, midnight)
	}

	apiError(t, c.BackupPolicies.Delete(t.Context(), backupPolicyOf(srv, req.ID)), 422, "required")
	_, err := c.BackupPolicies.Update(t.Context(), &platform.UpdateBackupPolicyParams{Organization: srv.Org(), Database: backupDB, ID: req.ID, Target: platform.Ptr(platform.BackupTargetDevelopment)})
	apiError(t, err, 422, "production")
	if got := getBackupPolicy(t, srv, c, req.ID); got.Target != platform.BackupTargetProduction {
		t.Errorf("refused update changed the target to %s", got.Target)
	}

	// Its schedule may change.
	got, err := c.BackupPolicies.Update(t.Context(), &platform.UpdateBackupPolicyParams{Organization: srv.Org(), Database: backupDB, ID: req.ID, ScheduleTime: platform.Ptr("06:00")})
	if err != nil {
		t.Fatal(err)
	}
	if !backupTimeIs(got.NextRunAt, fake.DefaultStart.Add(6*time.Hour)) || !got.Required {
		t.Errorf("after update: %+v, want next run at 06:00", got)
	}
	srv.Advance(6 * time.Hour)
	backups := policyBackups(t, srv, c, "main", req.ID)
	if len(backups) != 1 || !backups[0].Required || backups[0].Actor != nil {
		t.Errorf("required policy backups = %+v, want one required backup without actor", backups)
	}
}

func TestBackupPolicyCRUD(t *testing.T) {
	t.Parallel()
	srv, c := newBackupWorld(t)
	t0 := srv.Now()
	created, err := c.BackupPolicies.Create(t.Context(), &platform.CreateBackupPolicyParams{
		Organization: srv.Org(), Database: backupDB, Name: "weekly", Target: platform.BackupTargetProduction,
		RetentionValue: 4, RetentionUnit: platform.RetentionWeek, FrequencyValue: 1, FrequencyUnit: platform.FrequencyWeek,
		ScheduleTime: platform.Ptr("03:15"), ScheduleDay: platform.Ptr(1),
	})
	if err != nil {
		t.Fatal(err)
	}
	want := &platform.BackupPolicy{
		ID: created.ID, Type: "BackupPolicy", Name: "weekly", DisplayName: "weekly",
		Target: platform.BackupTargetProduction, RetentionValue: 4, RetentionUnit: platform.RetentionWeek,
		FrequencyValue: 1, FrequencyUnit: platform.FrequencyWeek, ScheduleTime: "03:15", ScheduleDay: platform.Ptr(1),
		NextRunAt: backupTSPtr(time.Date(2026, 1, 5, 3, 15, 0, 0, time.UTC)), CreatedAt: platform.NewTimestamp(t0), UpdatedAt: platform.NewTimestamp(t0),
	}
	if diff := cmp.Diff(want, created, backupCmpTimes); diff != "" {
		t.Errorf("created (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(created, getBackupPolicy(t, srv, c, created.ID), backupCmpTimes); diff != "" {
		t.Errorf("get (-created +got):\n%s", diff)
	}
	pols := listBackupPolicies(t, srv, c)
	if len(pols) != 2 || !pols[0].Required || pols[1].ID != created.ID {
		t.Errorf("list = %+v, want the required policy then the new one", pols)
	}

	srv.Advance(time.Minute)
	updated, err := c.BackupPolicies.Update(t.Context(), &platform.UpdateBackupPolicyParams{
		Organization: srv.Org(), Database: backupDB, ID: created.ID,
		Name: platform.Ptr("monthly"), FrequencyUnit: platform.Ptr(platform.FrequencyMonth), ScheduleWeek: platform.Ptr(2),
		Target: platform.Ptr(platform.BackupTargetDevelopment), RetentionValue: platform.Ptr(2), RetentionUnit: platform.Ptr(platform.RetentionYear),
	})
	if err != nil {
		t.Fatal(err)
	}
	want.Name, want.DisplayName, want.FrequencyUnit, want.ScheduleWeek = "monthly", "monthly", platform.FrequencyMonth, platform.Ptr(2)
	want.Target, want.RetentionValue, want.RetentionUnit = platform.BackupTargetDevelopment, 2, platform.RetentionYear
	want.UpdatedAt = platform.NewTimestamp(srv.Now())
	// The third Monday of January 2026.
	want.NextRunAt = backupTSPtr(time.Date(2026, 1, 19, 3, 15, 0, 0, time.UTC))
	if diff := cmp.Diff(want, updated, backupCmpTimes); diff != "" {
		t.Errorf("updated (-want +got):\n%s", diff)
	}

	// Back to a daily policy: the day and week fall away.
	daily, err := c.BackupPolicies.Update(t.Context(), &platform.UpdateBackupPolicyParams{
		Organization: srv.Org(), Database: backupDB, ID: created.ID, FrequencyUnit: platform.Ptr(platform.FrequencyDay),
	})
	if err != nil {
		t.Fatal(err)
	}
	if daily.ScheduleDay != nil || daily.ScheduleWeek != nil || !backupTimeIs(daily.NextRunAt, time.Date(2026, 1, 1, 3, 15, 0, 0, time.UTC)) {
		t.Errorf("daily = %+v, want no day or week, next run today 03:15", daily)
	}

	if err := c.BackupPolicies.Delete(t.Context(), backupPolicyOf(srv, created.ID)); err != nil {
		t.Fatal(err)
	}
	_, err = c.BackupPolicies.Get(t.Context(), backupPolicyOf(srv, created.ID))
	apiError(t, err, 404)
	apiError(t, c.BackupPolicies.Delete(t.Context(), backupPolicyOf(srv, created.ID)), 404)
	_, err = c.BackupPolicies.Update(t.Context(), &platform.UpdateBackupPolicyParams{Organization: srv.Org(), Database: backupDB, ID: created.ID, Name: platform.Ptr("x")})
	apiError(t, err, 404)
	if pols := listBackupPolicies(t, srv, c); len(pols) != 1 {
		t.Errorf("after delete %d policies, want the required one", len(pols))
	}
}

// backupCmpTimes compares timestamps by instant.
var backupCmpTimes = cmp.Comparer(func(a, b platform.Timestamp) bool { return a.Equal(b.Time) })

func backupTSPtr(t time.Time) *platform.Timestamp {
	v := platform.NewTimestamp(t)
	return &v
}

func TestBackupPolicyValidation(t *testing.T) {
	t.Parallel()
	srv, c := newBackupWorld(t)
	existing := createBackupPolicy(t, c, hourlyPolicy(srv))
	t.Cleanup(func() {
		// After the subtests: no refused create added a policy, no refused
		// update changed the existing one.
		page, err := c.BackupPolicies.List(context.Background(), &platform.ListBackupPoliciesParams{Organization: srv.Org(), Database: backupDB})
		if err != nil || len(page.Items) != 2 {
			t.Fatalf("policies = %v, %v; want the required one and the existing one", page, err)
		}
		if diff := cmp.Diff(existing, page.Items[1], backupCmpTimes); diff != "" {
			t.Errorf("refused updates changed the policy (-before +after):\n%s", diff)
		}
	})
	for _, tc := range []struct {
		name   string
		create func(p *platform.CreateBackupPolicyParams)
		update platform.UpdateBackupPolicyParams
		says   string
	}{
		{"no name", func(p *platform.CreateBackupPolicyParams) { p.Name = "" }, platform.UpdateBackupPolicyParams{Name: platform.Ptr("")}, "name"},
		{"long name", func(p *platform.CreateBackupPolicyParams) { p.Name = strings.Repeat("n", 256) }, platform.UpdateBackupPolicyParams{Name: platform.Ptr(strings.Repeat("n", 256))}, "longer than 255"},
		{"no target", func(p *platform.CreateBackupPolicyParams) { p.Target = "" }, platform.UpdateBackupPolicyParams{Target: platform.Ptr(platform.BackupPolicyTarget(""))}, "target"},
		{"bad target", func(p *platform.CreateBackupPolicyParams) { p.Target = "staging" }, platform.UpdateBackupPolicyParams{Target: platform.Ptr(platform.BackupPolicyTarget("staging"))}, "staging"},
		{"no retention unit", func(p *platform.CreateBackupPolicyParams) { p.RetentionUnit = "" }, platform.UpdateBackupPolicyParams{RetentionUnit: platform.Ptr(platform.RetentionUnit(""))}, "retention_unit"},
		{"bad retention unit", func(p *platform.CreateBackupPolicyParams) { p.RetentionUnit = "decade" }, platform.UpdateBackupPolicyParams{RetentionUnit: platform.Ptr(platform.RetentionUnit("decade"))}, "decade"},
		{"retention 0", func(p *platform.CreateBackupPolicyParams) { p.RetentionValue = 0 }, platform.UpdateBackupPolicyParams{RetentionValue: platform.Ptr(0)}, "retention_value"},
		{"retention 1001", func(p *platform.CreateBackupPolicyParams) { p.RetentionValue = 1001 }, platform.UpdateBackupPolicyParams{RetentionValue: platform.Ptr(1001)}, "retention_value"},
		{"no frequency unit", func(p *platform.CreateBackupPolicyParams) { p.FrequencyUnit = "" }, platform.UpdateBackupPolicyParams{FrequencyUnit: platform.Ptr(platform.FrequencyUnit(""))}, "frequency_unit"},
		{"bad frequency unit", func(p *platform.CreateBackupPolicyParams) { p.FrequencyUnit = "year" }, platform.UpdateBackupPolicyParams{FrequencyUnit: platform.Ptr(platform.FrequencyUnit("year"))}, "year"},
		{"frequency 0", func(p *platform.CreateBackupPolicyParams) { p.FrequencyValue = 0 }, platform.UpdateBackupPolicyParams{FrequencyValue: platform.Ptr(0)}, "frequency_value"},
		{"25 hours", func(p *platform.CreateBackupPolicyParams) { p.FrequencyValue = 25 }, platform.UpdateBackupPolicyParams{FrequencyValue: platform.Ptr(25)}, "frequency_value"},
		{"32 days", func(p *platform.CreateBackupPolicyParams) {
			p.FrequencyValue, p.FrequencyUnit = 32, platform.FrequencyDay
		}, platform.UpdateBackupPolicyParams{FrequencyValue: platform.Ptr(32), FrequencyUnit: platform.Ptr(platform.FrequencyDay)}, "frequency_value"},
		{"5 weeks", func(p *platform.CreateBackupPolicyParams) {
			p.FrequencyValue, p.FrequencyUnit = 5, platform.FrequencyWeek
		}, platform.UpdateBackupPolicyParams{FrequencyValue: platform.Ptr(5), FrequencyUnit: platform.Ptr(platform.FrequencyWeek)}, "frequency_value"},
		{"13 months", func(p *platform.CreateBackupPolicyParams) {
			p.FrequencyValue, p.FrequencyUnit = 13, platform.FrequencyMonth
		}, platform.UpdateBackupPolicyParams{FrequencyValue: platform.Ptr(13), FrequencyUnit: platform.Ptr(platform.FrequencyMonth)}, "frequency_value"},
		{"time 24:00", func(p *platform.CreateBackupPolicyParams) { p.ScheduleTime = platform.Ptr("24:00") }, platform.UpdateBackupPolicyParams{ScheduleTime: platform.Ptr("24:00")}, "schedule_time"},
		{"time 7:00", func(p *platform.CreateBackupPolicyParams) { p.ScheduleTime = platform.Ptr("7:00") }, platform.UpdateBackupPolicyParams{ScheduleTime: platform.Ptr("7:00")}, "schedule_time"},
		{"time 12:60", func(p *platform.CreateBackupPolicyParams) { p.ScheduleTime = platform.Ptr("12:60") }, platform.UpdateBackupPolicyParams{ScheduleTime: platform.Ptr("12:60")}, "schedule_time"},
		{"time noon", func(p *platform.CreateBackupPolicyParams) { p.ScheduleTime = platform.Ptr("noon") }, platform.UpdateBackupPolicyParams{ScheduleTime: platform.Ptr("noon")}, "schedule_time"},
		{"day -1", func(p *platform.CreateBackupPolicyParams) { p.ScheduleDay = platform.Ptr(-1) }, platform.UpdateBackupPolicyParams{ScheduleDay: platform.Ptr(-1)}, "schedule_day"},
		{"day 7", func(p *platform.CreateBackupPolicyParams) { p.ScheduleDay = platform.Ptr(7) }, platform.UpdateBackupPolicyParams{ScheduleDay: platform.Ptr(7)}, "schedule_day"},
		{"week -1", func(p *platform.CreateBackupPolicyParams) { p.ScheduleWeek = platform.Ptr(-1) }, platform.UpdateBackupPolicyParams{ScheduleWeek: platform.Ptr(-1)}, "schedule_week"},
		{"week 4", func(p *platform.CreateBackupPolicyParams) { p.ScheduleWeek = platform.Ptr(4) }, platform.UpdateBackupPolicyParams{ScheduleWeek: platform.Ptr(4)}, "schedule_week"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := hourlyPolicy(srv)
			tc.create(p)
			_, err := c.BackupPolicies.Create(t.Context(), p)
			apiError(t, err, 422, tc.says)
			u := tc.update
			u.Organization, u.Database, u.ID = srv.Org(), backupDB, existing.ID
			_, err = c.BackupPolicies.Update(t.Context(), &u)
			apiError(t, err, 422, tc.says)
		})
	}
}

func TestBackupPolicyValidationLeavesNoTrace(t *testing.T) {
	t.Parallel()
	srv, c := newBackupWorld(t)
	existing := createBackupPolicy(t, c, hourlyPolicy(srv))
	p := hourlyPolicy(srv)
	p.RetentionUnit = "decade"
	_, err := c.BackupPolicies.Create(t.Context(), p)
	apiError(t, err, 422, "retention_unit")
	// A valid field beside an invalid one changes nothing either.
	_, err = c.BackupPolicies.Update(t.Context(), &platform.UpdateBackupPolicyParams{
		Organization: srv.Org(), Database: backupDB, ID: existing.ID,
		Name: platform.Ptr("renamed"), ScheduleTime: platform.Ptr("7:00"),
	})
	apiError(t, err, 422, "schedule_time")
	pols := listBackupPolicies(t, srv, c)
	if len(pols) != 2 {
		t.Fatalf("%d policies, want the required one and the existing one", len(pols))
	}
	if diff := cmp.Diff(existing, pols[1], backupCmpTimes); diff != "" {
		t.Errorf("existing policy changed (-before +after):\n%s", diff)
	}
}

func TestBackupPolicyNextRun(t *testing.T) {
	t.Parallel()
	day := func(d, h, m int) time.Time { return time.Date(2026, 1, d, h, m, 0, 0, time.UTC) }
	for _, tc := range []struct {
		name      string
		now       time.Time
		unit      platform.FrequencyUnit
		every     int
		at        string
		day, week *int
		want      []time.Time // the next runs, one after the other
	}{
		{"every hour at :45", day(1, 10, 0), platform.FrequencyHour, 1, "00:45", nil, nil,
			[]time.Time{day(1, 10, 45), day(1, 11, 45)}},
		{"every 6 hours from 02:30", day(1, 10, 0), platform.FrequencyHour, 6, "02:30", nil, nil,
			[]time.Time{day(1, 14, 30), day(1, 20, 30), day(2, 2, 30)}},
		{"every 5 hours from 10:00 wraps past midnight", day(1, 21, 0), platform.FrequencyHour, 5, "10:00", nil, nil,
			[]time.Time{day(2, 1, 0), day(2, 6, 0), day(2, 10, 0)}},
		{"on a slot runs at the next", day(1, 12, 0), platform.FrequencyHour, 12, "00:00", nil, nil,
			[]time.Time{day(2, 0, 0), day(2, 12, 0)}},
		{"daily at 03:00", day(1, 10, 0), platform.FrequencyDay, 1, "03:00", nil, nil,
			[]time.Time{day(2, 3, 0), day(3, 3, 0)}},
		{"daily later today", day(1, 1, 0), platform.FrequencyDay, 1, "03:00", nil, nil,
			[]time.Time{day(1, 3, 0)}},
		{"every 10 days", day(1, 10, 0), platform.FrequencyDay, 10, "00:00", nil, nil,
			[]time.Time{day(11, 0, 0), day(21, 0, 0), day(31, 0, 0), time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)}},
		{"weekly on Monday", day(1, 10, 0), platform.FrequencyWeek, 1, "09:00", platform.Ptr(1), nil,
			[]time.Time{day(5, 9, 0), day(12, 9, 0)}},
		{"weekly defaults to Sunday", day(1, 10, 0), platform.FrequencyWeek, 1, "00:00", nil, nil,
			[]time.Time{day(4, 0, 0), day(11, 0, 0)}},
		{"every 2 weeks on Sunday", day(1, 10, 0), platform.FrequencyWeek, 2, "00:00", platform.Ptr(0), nil,
			[]time.Time{day(4, 0, 0), day(18, 0, 0), time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)}},
		{"monthly, first Sunday", day(1, 10, 0), platform.FrequencyMonth, 1, "00:00", platform.Ptr(0), platform.Ptr(0),
			[]time.Time{day(4, 0, 0), time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)}},
		{"quarterly, fourth Saturday", day(1, 10, 0), platform.FrequencyMonth, 3, "23:59", platform.Ptr(6), platform.Ptr(3),
			[]time.Time{day(24, 23, 59), time.Date(2026, 4, 25, 23, 59, 0, 0, time.UTC)}},
		{"yearly in January", day(25, 0, 0), platform.FrequencyMonth, 12, "12:00", platform.Ptr(4), platform.Ptr(1),
			[]time.Time{time.Date(2027, 1, 14, 12, 0, 0, 0, time.UTC)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, c := newBackupWorld(t, fake.WithStartTime(tc.now.Add(-10*time.Second)))
			srv.Advance(tc.now.Sub(srv.Now()))
			p := hourlyPolicy(srv)
			p.FrequencyUnit, p.FrequencyValue, p.ScheduleTime, p.ScheduleDay, p.ScheduleWeek = tc.unit, tc.every, &tc.at, tc.day, tc.week
			pol := createBackupPolicy(t, c, p)
			var got []time.Time
			for range tc.want {
				cur := getBackupPolicy(t, srv, c, pol.ID)
				if cur.NextRunAt == nil {
					t.Fatal("next_run_at is null")
				}
				got = append(got, cur.NextRunAt.Time)
				srv.Advance(cur.NextRunAt.Sub(srv.Now()))
				if ran := getBackupPolicy(t, srv, c, pol.ID); !backupTimeIs(ran.LastRanAt, cur.NextRunAt.Time) {
					t.Fatalf("last_ran_at = %v, want %v", ran.LastRanAt, cur.NextRunAt)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("runs (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBackupPolicyRuns(t *testing.T) {
	t.Parallel()
	// Backups that run an hour and a half outlast the hourly policy's period.
	srv, c := newBackupWorld(t, fake.WithTimings(fake.Timings{BackupRun: 90 * time.Minute}))
	newBackupBranch(t, srv, c, "dev")
	newBackupBranch(t, srv, c, "dev2")
	pol := createBackupPolicy(t, c, hourlyPolicy(srv))
	one := fake.DefaultStart.Add(time.Hour)
	srv.Advance(one.Sub(srv.Now()) - time.Second)
	if _, err := c.Branches.Create(t.Context(), &platform.CreateBranchParams{Organization: srv.Org(), Database: backupDB, Name: "unready"}); err != nil {
		t.Fatal(err)
	}
	srv.Advance(time.Second)

	for _, branch := range []string{"dev", "dev2"} {
		got := policyBackups(t, srv, c, branch, pol.ID)
		if len(got) != 1 || got[0].State != platform.BackupPending || got[0].Actor != nil || got[0].Required ||
			got[0].BackupPolicy == nil || got[0].BackupPolicy.ID != pol.ID || !got[0].CreatedAt.Equal(one) {
			t.Errorf("%s after the first run: %+v, want one pending backup of the policy at %v", branch, got, one)
		}
	}
	for _, branch := range []string{"main", "unready"} {
		if got := policyBackups(t, srv, c, branch, pol.ID); len(got) != 0 {
			t.Errorf("%s has backups of a development policy: %+v", branch, got)
		}
	}
	ran := getBackupPolicy(t, srv, c, pol.ID)
	if !backupTimeIs(ran.LastRanAt, one) || !backupTimeIs(ran.NextRunAt, one.Add(time.Hour)) || !ran.UpdatedAt.Equal(pol.UpdatedAt.Time) {
		t.Errorf("after the run: %+v, want last run %v, next an hour later, updated_at unchanged", ran, one)
	}

	// At 02:00 the first backups are still running: the run records
	// ignored backups.
	srv.Advance(time.Hour)
	for _, branch := range []string{"dev", "dev2"} {
		got := policyBackups(t, srv, c, branch, pol.ID)
		if len(got) != 2 || got[0].State != platform.BackupRunning || got[1].State != platform.BackupIgnored ||
			got[1].StartedAt != nil || got[1].SchemaSnapshot != nil {
			t.Fatalf("%s after the second run: %+v, want the running backup and an ignored one", branch, got)
		}
		if err := srv.FailNext(got[1].ID); err == nil {
			t.Error("FailNext on an ignored backup: no error")
		}
	}
	// At 03:00 the first have succeeded and new ones start.
	srv.Advance(time.Hour + time.Second)
	for _, branch := range []string{"dev", "dev2"} {
		var states []platform.BackupState
		for _, bk := range policyBackups(t, srv, c, branch, pol.ID) {
			states = append(states, bk.State)
		}
		want := []platform.BackupState{platform.BackupSuccess, platform.BackupIgnored, platform.BackupRunning}
		if diff := cmp.Diff(want, states); diff != "" {
			t.Errorf("%s states (-want +got):\n%s", branch, diff)
		}
	}
}

func TestBackupPolicyUpdateRearms(t *testing.T) {
	t.Parallel()
	srv, c := newBackupWorld(t)
	newBackupBranch(t, srv, c, "dev")
	pol := createBackupPolicy(t, c, hourlyPolicy(srv))
	updated, err := c.BackupPolicies.Update(t.Context(), &platform.UpdateBackupPolicyParams{
		Organization: srv.Org(), Database: backupDB, ID: pol.ID,
		FrequencyUnit: platform.Ptr(platform.FrequencyDay), ScheduleTime: platform.Ptr("03:00"),
	})
	if err != nil {
		t.Fatal(err)
	}
	three := fake.DefaultStart.Add(3 * time.Hour)
	if !backupTimeIs(updated.NextRunAt, three) {
		t.Fatalf("next_run_at = %v, want %v", updated.NextRunAt, three)
	}
	// The old hourly timer at 01:00 does nothing.
	srv.Advance(three.Sub(srv.Now()) - time.Second)
	if got := policyBackups(t, srv, c, "dev", pol.ID); len(got) != 0 {
		t.Fatalf("before 03:00: %d backups, want none", len(got))
	}
	if got := getBackupPolicy(t, srv, c, pol.ID); got.LastRanAt != nil {
		t.Fatalf("before 03:00: last_ran_at %v", got.LastRanAt)
	}
	srv.Advance(time.Second)
	if got := policyBackups(t, srv, c, "dev", pol.ID); len(got) != 1 {
		t.Fatalf("at 03:00: %d backups, want 1", len(got))
	}
	// Updating the same schedule again re-arms once: one run per slot.
	for range 3 {
		if _, err := c.BackupPolicies.Update(t.Context(), &platform.UpdateBackupPolicyParams{Organization: srv.Org(), Database: backupDB, ID: pol.ID, Name: platform.Ptr("daily")}); err != nil {
			t.Fatal(err)
		}
	}
	srv.Advance(24 * time.Hour)
	if got := policyBackups(t, srv, c, "dev", pol.ID); len(got) != 2 {
		t.Errorf("a day later: %d backups, want 2", len(got))
	}
}

func TestBackupPolicyDeleteStops(t *testing.T) {
	t.Parallel()
	srv, c := newBackupWorld(t)
	newBackupBranch(t, srv, c, "dev")
	pol := createBackupPolicy(t, c, hourlyPolicy(srv))
	srv.Advance(time.Hour)
	if got := policyBackups(t, srv, c, "dev", pol.ID); len(got) != 1 {
		t.Fatalf("after an hour: %d backups, want 1", len(got))
	}
	if err := c.BackupPolicies.Delete(t.Context(), backupPolicyOf(srv, pol.ID)); err != nil {
		t.Fatal(err)
	}
	srv.Advance(5 * time.Hour)
	got := policyBackups(t, srv, c, "dev", pol.ID)
	if len(got) != 1 {
		t.Fatalf("after deleting: %d backups, want still 1", len(got))
	}
	if got[0].BackupPolicy == nil || got[0].BackupPolicy.NextRunAt != nil {
		t.Errorf("the deleted policy in its backup: %+v, want no next run", got[0].BackupPolicy)
	}
}

func TestBackupPolicyStopsWithDatabase(t *testing.T) {
	t.Parallel()
	srv, c := newBackupWorld(t)
	if err := c.Databases.Delete(t.Context(), &platform.DeleteDatabaseParams{Organization: srv.Org(), Database: backupDB}); err != nil {
		t.Fatal(err)
	}
	// The required policy's first run would be at midnight; nothing happens
	// and nothing fails.
	srv.Advance(48 * time.Hour)
	_, err := c.BackupPolicies.List(t.Context(), &platform.ListBackupPoliciesParams{Organization: srv.Org(), Database: backupDB})
	if !errors.Is(err, platform.ErrNotFound) {
		t.Errorf("list policies of a deleted database: %v, want not found", err)
	}
}

func TestBackupPolicyPermissions(t *testing.T) {
	t.Parallel()
	srv, c := newBackupWorld(t)
	pol := createBackupPolicy(t, c, hourlyPolicy(srv))
	mk := func(perms ...string) *platform.Client {
		tok, err := srv.CreateServiceToken(srv.Org(), fake.TokenSpec{Name: "t", DatabasePermissions: map[string][]platform.Permission{backupDB: permissions(perms...)}})
		if err != nil {
			t.Fatal(err)
		}
		return srv.ClientFor(tok)
	}
	reader, none := mk("read_backups"), mk("read_branch")

	_, err := none.BackupPolicies.List(t.Context(), &platform.ListBackupPoliciesParams{Organization: srv.Org(), Database: backupDB})
	apiError(t, err, 404)
	_, err = none.BackupPolicies.Get(t.Context(), backupPolicyOf(srv, pol.ID))
	apiError(t, err, 404)
	if _, err := reader.BackupPolicies.Get(t.Context(), backupPolicyOf(srv, pol.ID)); err != nil {
		t.Errorf("reader get: %v", err)
	}
	_, err = reader.BackupPolicies.Create(t.Context(), hourlyPolicy(srv))
	apiError(t, err, 404)
	_, err = reader.BackupPolicies.Update(t.Context(), &platform.UpdateBackupPolicyParams{Organization: srv.Org(), Database: backupDB, ID: pol.ID, Name: platform.Ptr("mine")})
	apiError(t, err, 404)
	apiError(t, reader.BackupPolicies.Delete(t.Context(), backupPolicyOf(srv, pol.ID)), 404)

	pols := listBackupPolicies(t, srv, c)
	if len(pols) != 2 {
		t.Fatalf("%d policies, want 2", len(pols))
	}
	if diff := cmp.Diff(pol, pols[1], backupCmpTimes); diff != "" {
		t.Errorf("policy changed by refused calls (-before +after):\n%s", diff)
	}
}
