package fake_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
	"github.com/google/go-cmp/cmp"
)

const backupDB = "app-db"

// newBackupWorld starts a server with a ready database backupDB whose main
// branch has two tables.
func newBackupWorld(t *testing.T, opts ...fake.Option) (*fake.Server, *platform.Client) {
	t.Helper()
	srv := fake.NewServer(t, opts...)
	c := srv.Client()
	_, err := c.Databases.Create(t.Context(), &platform.CreateDatabaseParams{Organization: srv.Org(), Name: backupDB, ClusterSize: "PS_10"})
	if err != nil {
		t.Fatalf("create database: %v", err)
	}
	srv.Advance(5 * time.Second)
	err = srv.PushSchema(srv.Org(), backupDB, "main",
		"CREATE TABLE users (id bigint NOT NULL, PRIMARY KEY (id))",
		"CREATE TABLE orders (id bigint NOT NULL, user_id bigint, PRIMARY KEY (id))")
	if err != nil {
		t.Fatalf("PushSchema: %v", err)
	}
	return srv, c
}

// newBackupBranch creates a ready development branch of backupDB.
func newBackupBranch(t *testing.T, srv *fake.Server, c *platform.Client, name string) {
	t.Helper()
	if _, err := c.Branches.Create(t.Context(), &platform.CreateBranchParams{Organization: srv.Org(), Database: backupDB, Name: name}); err != nil {
		t.Fatalf("create branch %s: %v", name, err)
	}
	srv.Advance(fake.DefaultTimings().BranchReady)
}

// createBackup starts a backup of a branch of backupDB.
func createBackup(t *testing.T, srv *fake.Server, c *platform.Client, branch string) *platform.Backup {
	t.Helper()
	bk, err := c.Backups.Create(t.Context(), &platform.CreateBackupParams{Organization: srv.Org(), Database: backupDB, Branch: branch})
	if err != nil {
		t.Fatalf("create backup of %s: %v", branch, err)
	}
	return bk
}

// backupOf names a backup of a branch of backupDB.
func backupOf(srv *fake.Server, branch, id string) *platform.GetBackupParams {
	return &platform.GetBackupParams{Organization: srv.Org(), Database: backupDB, Branch: branch, ID: id}
}

func getBackupOf(t *testing.T, srv *fake.Server, c *platform.Client, branch, id string) *platform.Backup {
	t.Helper()
	bk, err := c.Backups.Get(t.Context(), backupOf(srv, branch, id))
	if err != nil {
		t.Fatalf("get backup %s: %v", id, err)
	}
	return bk
}

// listBackupIDs lists the IDs of the backups p selects, every page.
func listBackupIDs(t *testing.T, c *platform.Client, p *platform.ListBackupsParams) []string {
	t.Helper()
	ids := []string{}
	for bk, err := range c.Backups.All(t.Context(), p) {
		if err != nil {
			t.Fatalf("list backups: %v", err)
		}
		ids = append(ids, bk.ID)
	}
	return ids
}

// backupTimeIs reports whether a nullable timestamp is the time want.
func backupTimeIs(got *platform.Timestamp, want time.Time) bool {
	return got != nil && got.Equal(want)
}

func TestBackupLifecycle(t *testing.T) {
	t.Parallel()
	srv, c := newBackupWorld(t)
	tm := fake.DefaultTimings()
	t0 := srv.Now()

	created := createBackup(t, srv, c, "main")
	if created.State != platform.BackupPending || created.StartedAt != nil || created.CompletedAt != nil ||
		created.ExpiresAt != nil || created.Size != 0 {
		t.Fatalf("new backup = %+v, want pending with no start, end, expiry or size", created)
	}
	if created.Type != "Backup" || created.Actor == nil || created.Actor.ID != srv.AdminUserID() ||
		created.BackupPolicy != nil || created.Required || created.Protected ||
		created.DatabaseBranch == nil || created.DatabaseBranch.Name != "main" ||
		created.RestoredBranches == nil || len(created.RestoredBranches) != 0 || created.SchemaSnapshot == nil {
		t.Errorf("new backup = %+v", created)
	}
	if !created.CreatedAt.Equal(t0) || !strings.HasPrefix(created.Name, "main-") {
		t.Errorf("created_at = %v, name = %q; want %v and a name after the branch", created.CreatedAt, created.Name, t0)
	}

	srv.Advance(tm.BackupStart - time.Millisecond)
	if got := getBackupOf(t, srv, c, "main", created.ID); got.State != platform.BackupPending {
		t.Fatalf("before BackupStart: state %s, want pending", got.State)
	}
	srv.Advance(time.Millisecond)
	running := getBackupOf(t, srv, c, "main", created.ID)
	if running.State != platform.BackupRunning || running.StartedAt == nil || !running.StartedAt.Equal(t0.Add(tm.BackupStart)) {
		t.Fatalf("after BackupStart: %s started %v, want running started %v", running.State, running.StartedAt, t0.Add(tm.BackupStart))
	}

	srv.Advance(tm.BackupRun - time.Millisecond)
	if got := getBackupOf(t, srv, c, "main", created.ID); got.State != platform.BackupRunning {
		t.Fatalf("before BackupRun: state %s, want running", got.State)
	}
	srv.Advance(time.Millisecond)
	done := getBackupOf(t, srv, c, "main", created.ID)
	end := t0.Add(tm.BackupStart + tm.BackupRun)
	if done.State != platform.BackupSuccess || !backupTimeIs(done.CompletedAt, end) || !backupTimeIs(done.ExpiresAt, end.AddDate(0, 0, 7)) ||
		!done.UpdatedAt.Equal(end) || !backupTimeIs(done.StartedAt, t0.Add(tm.BackupStart)) {
		t.Errorf("done = %+v, want success completed and updated %v, expiring 7 days later", done, end)
	}
	if done.Size <= 0 || done.UncompressedSize < done.Size || done.PVCSize < done.UncompressedSize {
		t.Errorf("sizes = %d, %d, %d; want positive, uncompressed >= size, volume >= uncompressed", done.Size, done.UncompressedSize, done.PVCSize)
	}
}

func TestBackupRetention(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		value  int
		unit   platform.RetentionUnit
		expiry func(time.Time) time.Time
	}{
		{6, platform.RetentionHour, func(t time.Time) time.Time { return t.Add(6 * time.Hour) }},
		{2, platform.RetentionDay, func(t time.Time) time.Time { return t.AddDate(0, 0, 2) }},
		{3, platform.RetentionWeek, func(t time.Time) time.Time { return t.AddDate(0, 0, 21) }},
		{1, platform.RetentionMonth, func(t time.Time) time.Time { return t.AddDate(0, 1, 0) }},
		{1000, platform.RetentionYear, func(t time.Time) time.Time { return t.AddDate(1000, 0, 0) }},
	} {
		t.Run(string(tc.unit), func(t *testing.T) {
			t.Parallel()
			srv, c := newBackupWorld(t)
			bk, err := c.Backups.Create(t.Context(), &platform.CreateBackupParams{
				Organization: srv.Org(), Database: backupDB, Branch: "main",
				Name: platform.Ptr("nightly"), RetentionValue: platform.Ptr(tc.value), RetentionUnit: platform.Ptr(tc.unit),
			})
			if err != nil {
				t.Fatal(err)
			}
			done, err := c.Backups.Wait(t.Context(), backupOf(srv, "main", bk.ID))
			if err != nil {
				t.Fatal(err)
			}
			if done.Name != "nightly" {
				t.Errorf("name = %q, want nightly", done.Name)
			}
			if want := tc.expiry(done.CompletedAt.Time); !backupTimeIs(done.ExpiresAt, want) {
				t.Errorf("expires_at = %v, want %v", done.ExpiresAt, want)
			}
		})
	}
}

func TestBackupCreateRefused(t *testing.T) {
	t.Parallel()
	srv, c := newBackupWorld(t)
	if _, err := c.Branches.Create(t.Context(), &platform.CreateBranchParams{Organization: srv.Org(), Database: backupDB, Name: "fresh"}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// After the subtests: none left a backup.
		for _, b := range []string{"main", "fresh"} {
			page, err := c.Backups.List(context.Background(), &platform.ListBackupsParams{Organization: srv.Org(), Database: backupDB, Branch: b, IncludeDeleted: true})
			if err != nil || len(page.Items) != 0 {
				t.Errorf("refused creates left backups on %s: %v %v", b, page, err)
			}
		}
	})
	for _, tc := range []struct {
		name   string
		p      platform.CreateBackupParams
		status int
		says   string
	}{
		{"empty name", platform.CreateBackupParams{Name: platform.Ptr("")}, 422, "name"},
		{"value without unit", platform.CreateBackupParams{RetentionValue: platform.Ptr(3)}, 422, "retention_unit"},
		{"unit without value", platform.CreateBackupParams{RetentionUnit: platform.Ptr(platform.RetentionDay)}, 422, "retention_value"},
		{"value 0", platform.CreateBackupParams{RetentionValue: platform.Ptr(0), RetentionUnit: platform.Ptr(platform.RetentionDay)}, 422, "retention_value"},
		{"value 1001", platform.CreateBackupParams{RetentionValue: platform.Ptr(1001), RetentionUnit: platform.Ptr(platform.RetentionDay)}, 422, "retention_value"},
		{"unknown unit", platform.CreateBackupParams{RetentionValue: platform.Ptr(1), RetentionUnit: platform.Ptr(platform.RetentionUnit("decade"))}, 422, "decade"},
		{"emergency on mysql", platform.CreateBackupParams{Emergency: platform.Ptr(true)}, 422, "postgresql"},
		{"branch not ready", platform.CreateBackupParams{Branch: "fresh"}, 422, "not ready"},
		{"no such branch", platform.CreateBackupParams{Branch: "nope"}, 404, "Not Found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := tc.p
			p.Organization, p.Database = srv.Org(), backupDB
			if p.Branch == "" {
				p.Branch = "main"
			}
			_, err := c.Backups.Create(t.Context(), &p)
			apiError(t, err, tc.status, tc.says)
		})
	}
}

func TestBackupFailNext(t *testing.T) {
	t.Parallel()
	tm := fake.DefaultTimings()
	for _, tc := range []struct {
		name        string
		before      time.Duration // advance before FailNext
		failedAfter time.Duration // from creation
		started     bool
	}{
		{"while pending", 0, tm.BackupStart, false},
		{"while running", tm.BackupStart, tm.BackupStart + tm.BackupRun, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, c := newBackupWorld(t)
			t0 := srv.Now()
			bk := createBackup(t, srv, c, "main")
			srv.Advance(tc.before)
			if err := srv.FailNext(bk.ID); err != nil {
				t.Fatal(err)
			}
			srv.Advance(tc.failedAfter - tc.before)
			got := getBackupOf(t, srv, c, "main", bk.ID)
			if got.State != platform.BackupFailed || !got.UpdatedAt.Equal(t0.Add(tc.failedAfter)) ||
				(got.StartedAt != nil) != tc.started || got.CompletedAt != nil || got.ExpiresAt != nil || got.Size != 0 {
				t.Errorf("got %+v, want failed at %v with no completion", got, t0.Add(tc.failedAfter))
			}
			if err := srv.FailNext(bk.ID); err == nil {
				t.Error("FailNext on a failed backup: no error")
			}
		})
	}
}

func TestBackupFailNextOnlyInFlight(t *testing.T) {
	t.Parallel()
	srv, c := newBackupWorld(t)
	bk := createBackup(t, srv, c, "main")
	if _, err := c.Backups.Wait(t.Context(), backupOf(srv, "main", bk.ID)); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{bk.ID, "nosuchbackup"} {
		if err := srv.FailNext(id); err == nil {
			t.Errorf("FailNext(%s): no error", id)
		}
	}
}

func TestBackupCanceledWhenBranchDeleted(t *testing.T) {
	t.Parallel()
	for _, advance := range []time.Duration{0, fake.DefaultTimings().BackupStart} {
		t.Run(advance.String(), func(t *testing.T) {
			t.Parallel()
			srv, c := newBackupWorld(t)
			newBackupBranch(t, srv, c, "dev")
			bk := createBackup(t, srv, c, "dev")
			done := createBackup(t, srv, c, "dev")
			srv.Advance(advance)
			if err := c.Branches.Delete(t.Context(), &platform.DeleteBranchParams{Organization: srv.Org(), Database: backupDB, Branch: "dev"}); err != nil {
				t.Fatal(err)
			}
			deletedAt := srv.Now()
			srv.Advance(time.Hour)
			got := getBackupOf(t, srv, c, "dev", bk.ID)
			if got.State != platform.BackupCanceled || !got.UpdatedAt.Equal(deletedAt) || got.CompletedAt != nil {
				t.Errorf("got %s updated %v, want canceled at %v", got.State, got.UpdatedAt, deletedAt)
			}
			if got.DatabaseBranch == nil || got.DatabaseBranch.DeletedAt == nil {
				t.Errorf("database_branch = %+v, want the deleted branch", got.DatabaseBranch)
			}
			if err := srv.FailNext(bk.ID); err == nil {
				t.Error("FailNext on a canceled backup: no error")
			}
			if other := getBackupOf(t, srv, c, "dev", done.ID); other.State != platform.BackupCanceled {
				t.Errorf("second backup %s, want canceled", other.State)
			}
		})
	}
}

func TestBackupProtectedAndDeleted(t *testing.T) {
	t.Parallel()
	srv, c := newBackupWorld(t)
	bk := createBackup(t, srv, c, "main")
	if _, err := c.Backups.Wait(t.Context(), backupOf(srv, "main", bk.ID)); err != nil {
		t.Fatal(err)
	}
	ref := backupOf(srv, "main", bk.ID)
	update := func(protected *bool) *platform.Backup {
		t.Helper()
		got, err := c.Backups.Update(t.Context(), &platform.UpdateBackupParams{Organization: ref.Organization, Database: ref.Database, Branch: ref.Branch, ID: ref.ID, Protected: protected})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := update(platform.Ptr(true)); !got.Protected || !got.UpdatedAt.Equal(srv.Now()) {
		t.Fatalf("after protecting: %+v", got)
	}
	if got := update(nil); !got.Protected {
		t.Fatal("an empty update lifted the protection")
	}
	apiError(t, c.Backups.Delete(t.Context(), ref), 422, "protected")
	if got := getBackupOf(t, srv, c, "main", bk.ID); got.DeletedAt != nil {
		t.Fatal("refused delete marked the backup deleted")
	}

	update(platform.Ptr(false))
	srv.Advance(time.Minute)
	if err := c.Backups.Delete(t.Context(), ref); err != nil {
		t.Fatal(err)
	}
	_, err := c.Backups.Get(t.Context(), ref)
	apiError(t, err, 404)
	apiError(t, c.Backups.Delete(t.Context(), ref), 404)
	list := &platform.ListBackupsParams{Organization: srv.Org(), Database: backupDB, Branch: "main"}
	if ids := listBackupIDs(t, c, list); len(ids) != 0 {
		t.Errorf("list after delete = %v, want none", ids)
	}
	list.IncludeDeleted = true
	page, err := c.Backups.List(t.Context(), list)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 1 || page.Items[0].ID != bk.ID || !backupTimeIs(page.Items[0].DeletedAt, srv.Now()) ||
		page.Items[0].State != platform.BackupSuccess {
		t.Errorf("list all = %+v, want the deleted backup with deleted_at %v", page.Items, srv.Now())
	}
}

func TestBackupDeleteInProgressCancels(t *testing.T) {
	t.Parallel()
	srv, c := newBackupWorld(t)
	bk := createBackup(t, srv, c, "main")
	srv.Advance(fake.DefaultTimings().BackupStart)
	if err := c.Backups.Delete(t.Context(), backupOf(srv, "main", bk.ID)); err != nil {
		t.Fatal(err)
	}
	srv.Advance(time.Hour)
	page, err := c.Backups.List(t.Context(), &platform.ListBackupsParams{Organization: srv.Org(), Database: backupDB, Branch: "main", IncludeDeleted: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 1 || page.Items[0].State != platform.BackupCanceled || page.Items[0].CompletedAt != nil {
		t.Errorf("list all = %+v, want one canceled backup", page.Items)
	}
}

func TestBackupRequiredRefusesDeletion(t *testing.T) {
	t.Parallel()
	srv, c := newBackupWorld(t)
	// The required policy runs daily at midnight; the clock starts at one.
	srv.Advance(24 * time.Hour)
	page, err := c.Backups.List(t.Context(), &platform.ListBackupsParams{Organization: srv.Org(), Database: backupDB, Branch: "main"})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 1 || !page.Items[0].Required || page.Items[0].BackupPolicy == nil || !page.Items[0].BackupPolicy.Required {
		t.Fatalf("backups after a day = %+v, want one required backup", page.Items)
	}
	ref := backupOf(srv, "main", page.Items[0].ID)
	apiError(t, c.Backups.Delete(t.Context(), ref), 422, "required")
	if _, err := c.Backups.Get(t.Context(), ref); err != nil {
		t.Errorf("refused delete: get: %v", err)
	}
}

func TestBackupListFilters(t *testing.T) {
	t.Parallel()
	tm := fake.WithTimings(fake.Timings{BackupStart: time.Minute, BackupRun: time.Hour})
	srv, c := newBackupWorld(t, tm)
	org := srv.Org()
	bc := func(name string) string {
		bk, err := c.Backups.Create(t.Context(), &platform.CreateBackupParams{Organization: org, Database: backupDB, Branch: "main", Name: platform.Ptr(name)})
		if err != nil {
			t.Fatal(err)
		}
		return bk.ID
	}
	t0 := srv.Now()
	okID := bc("ok") // runs from t0+1m to t0+61m
	srv.Advance(2 * time.Hour)
	failID := bc("failing") // runs from t0+2h1m, fails at t0+3h1m
	srv.Advance(time.Minute)
	if err := srv.FailNext(failID); err != nil {
		t.Fatal(err)
	}
	srv.Advance(2*time.Hour - time.Minute)
	runID := bc("running") // runs from t0+4h1m on
	srv.Advance(2 * time.Minute)
	pendID := bc("pending") // created at t0+4h2m
	now := srv.Now()
	// The required policy runs at midnight; it has not run yet.

	for _, tc := range []struct {
		name string
		p    platform.ListBackupsParams
		want []string
	}{
		{"all", platform.ListBackupsParams{}, []string{okID, failID, runID, pendID}},
		{"desc", platform.ListBackupsParams{Order: platform.OrderDesc}, []string{pendID, runID, failID, okID}},
		{"state success", platform.ListBackupsParams{State: platform.BackupSuccess}, []string{okID}},
		{"state failed", platform.ListBackupsParams{State: platform.BackupFailed}, []string{failID}},
		{"state running", platform.ListBackupsParams{State: platform.BackupRunning}, []string{runID}},
		{"state pending", platform.ListBackupsParams{State: platform.BackupPending}, []string{pendID}},
		{"production", platform.ListBackupsParams{Production: platform.Ptr(true)}, []string{okID, failID, runID, pendID}},
		{"development", platform.ListBackupsParams{Production: platform.Ptr(false)}, []string{}},
		{"policy", platform.ListBackupsParams{Policy: "nosuchpolicy"}, []string{}},
		{"from", platform.ListBackupsParams{From: t0.Add(2 * time.Hour)}, []string{failID, runID}},
		{"to", platform.ListBackupsParams{To: t0.Add(2*time.Hour + time.Minute)}, []string{okID, failID}},
		{"from to", platform.ListBackupsParams{From: t0.Add(time.Hour), To: t0.Add(3 * time.Hour)}, []string{failID}},
		{"running at start", platform.ListBackupsParams{RunningAt: &platform.TimeRange{Start: t0, End: t0.Add(time.Minute)}}, []string{okID}},
		{"running at middle", platform.ListBackupsParams{RunningAt: &platform.TimeRange{Start: t0.Add(30 * time.Minute), End: t0.Add(30 * time.Minute)}}, []string{okID}},
		{"running at gap", platform.ListBackupsParams{RunningAt: &platform.TimeRange{Start: t0.Add(62 * time.Minute), End: t0.Add(2 * time.Hour)}}, []string{}},
		{"running at now", platform.ListBackupsParams{RunningAt: &platform.TimeRange{Start: now, End: now.Add(time.Hour)}}, []string{runID}},
		{"combined", platform.ListBackupsParams{State: platform.BackupRunning, From: t0.Add(5 * time.Hour)}, []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := tc.p
			p.Organization, p.Database, p.Branch = org, backupDB, "main"
			p.PerPage = 1
			if diff := cmp.Diff(tc.want, listBackupIDs(t, c, &p)); diff != "" {
				t.Errorf("ids (-want +got):\n%s", diff)
			}
		})
	}

	t.Run("totals", func(t *testing.T) {
		t.Parallel()
		page, err := c.Backups.List(t.Context(), &platform.ListBackupsParams{Organization: org, Database: backupDB, Branch: "main", State: platform.BackupFailed, ListParams: platform.ListParams{PerPage: 1}})
		if err != nil {
			t.Fatal(err)
		}
		if page.TotalCount == nil || *page.TotalCount != 1 || page.NextPage != nil {
			t.Errorf("page = %+v, want total_count 1 and no next page", page)
		}
	})
}

func TestBackupListPolicyAndProductionFilters(t *testing.T) {
	t.Parallel()
	srv, c := newBackupWorld(t)
	org := srv.Org()
	newBackupBranch(t, srv, c, "dev")
	// The clock is past midnight by the setup's seconds; a development
	// policy every hour runs at 01:00.
	pol, err := c.BackupPolicies.Create(t.Context(), &platform.CreateBackupPolicyParams{
		Organization: org, Database: backupDB, Name: "dev-hourly", Target: platform.BackupTargetDevelopment,
		RetentionValue: 1, RetentionUnit: platform.RetentionDay, FrequencyValue: 1, FrequencyUnit: platform.FrequencyHour,
	})
	if err != nil {
		t.Fatal(err)
	}
	manual := createBackup(t, srv, c, "dev")
	srv.Advance(time.Hour)
	dev := func(p platform.ListBackupsParams) []string {
		p.Organization, p.Database, p.Branch = org, backupDB, "dev"
		return listBackupIDs(t, c, &p)
	}
	all := dev(platform.ListBackupsParams{})
	if len(all) != 2 || all[0] != manual.ID {
		t.Fatalf("dev backups = %v, want the manual one and the policy's", all)
	}
	if diff := cmp.Diff([]string{all[1]}, dev(platform.ListBackupsParams{Policy: pol.ID})); diff != "" {
		t.Errorf("policy filter (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(all, dev(platform.ListBackupsParams{Production: platform.Ptr(false)})); diff != "" {
		t.Errorf("production=false (-want +got):\n%s", diff)
	}
	if got := dev(platform.ListBackupsParams{Production: platform.Ptr(true)}); len(got) != 0 {
		t.Errorf("production=true = %v, want none", got)
	}
}

func TestBackupListBadQuery(t *testing.T) {
	t.Parallel()
	srv, c := newBackupWorld(t)
	path := "v1/organizations/" + srv.Org() + "/databases/" + backupDB + "/branches/main/backups?"
	for _, q := range []string{
		"state=done", "from=yesterday", "to=2026-13-01T00:00:00Z", "running_at=2026-01-01T00:00:00Z",
		"running_at=2026-01-02T00:00:00Z..2026-01-01T00:00:00Z", "running_at=..2026-01-01T00:00:00Z",
		"production=maybe", "all=yes",
	} {
		t.Run(q, func(t *testing.T) {
			t.Parallel()
			req, err := c.NewRequest(t.Context(), "GET", path+q, nil)
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Do(req, nil)
			name, _, _ := strings.Cut(q, "=")
			apiError(t, err, 400, name)
		})
	}
	_, err := c.Backups.List(t.Context(), &platform.ListBackupsParams{Organization: srv.Org(), Database: backupDB, Branch: "nope"})
	apiError(t, err, 404)
}

func TestBackupPermissions(t *testing.T) {
	t.Parallel()
	srv, c := newBackupWorld(t)
	org := srv.Org()
	newBackupBranch(t, srv, c, "dev")
	prod := createBackup(t, srv, c, "main")
	dev := createBackup(t, srv, c, "dev")
	srv.Advance(time.Minute)
	token := func(perms ...string) *platform.Client {
		tok, err := srv.CreateServiceToken(org, fake.TokenSpec{Name: strings.Join(perms, "+"), DatabasePermissions: map[string][]platform.Permission{backupDB: permissions(perms...)}})
		if err != nil {
			t.Fatal(err)
		}
		return srv.ClientFor(tok)
	}
	reader := token("read_backups")
	none := token("read_branch")
	devDeleter := token("read_backups", "delete_backups")
	prodDeleter := token("read_backups", "delete_production_branch_backups")

	_, err := none.Backups.List(t.Context(), &platform.ListBackupsParams{Organization: org, Database: backupDB, Branch: "main"})
	apiError(t, err, 404)
	_, err = none.Backups.Get(t.Context(), backupOf(srv, "main", prod.ID))
	apiError(t, err, 404)
	if _, err := reader.Backups.Get(t.Context(), backupOf(srv, "main", prod.ID)); err != nil {
		t.Errorf("reader get: %v", err)
	}
	_, err = reader.Backups.Create(t.Context(), &platform.CreateBackupParams{Organization: org, Database: backupDB, Branch: "main"})
	apiError(t, err, 404)
	_, err = reader.Backups.Update(t.Context(), &platform.UpdateBackupParams{Organization: org, Database: backupDB, Branch: "main", ID: prod.ID, Protected: platform.Ptr(true)})
	apiError(t, err, 404)
	apiError(t, reader.Backups.Delete(t.Context(), backupOf(srv, "main", prod.ID)), 404)
	apiError(t, devDeleter.Backups.Delete(t.Context(), backupOf(srv, "main", prod.ID)), 404)
	apiError(t, prodDeleter.Backups.Delete(t.Context(), backupOf(srv, "dev", dev.ID)), 404)

	// Nothing changed.
	for _, b := range []struct{ branch, id string }{{"main", prod.ID}, {"dev", dev.ID}} {
		got := getBackupOf(t, srv, c, b.branch, b.id)
		if got.Protected || got.DeletedAt != nil || got.State != platform.BackupSuccess {
			t.Errorf("backup of %s after refused calls: %+v", b.branch, got)
		}
	}
	if ids := listBackupIDs(t, c, &platform.ListBackupsParams{Organization: org, Database: backupDB, Branch: "main"}); len(ids) != 1 {
		t.Errorf("main backups = %v, want only the first", ids)
	}

	if err := prodDeleter.Backups.Delete(t.Context(), backupOf(srv, "main", prod.ID)); err != nil {
		t.Errorf("delete production backup with delete_production_branch_backups: %v", err)
	}
	if err := devDeleter.Backups.Delete(t.Context(), backupOf(srv, "dev", dev.ID)); err != nil {
		t.Errorf("delete development backup with delete_backups: %v", err)
	}
}

func TestBackupGetWrongBranch(t *testing.T) {
	t.Parallel()
	srv, c := newBackupWorld(t)
	newBackupBranch(t, srv, c, "dev")
	bk := createBackup(t, srv, c, "main")
	_, err := c.Backups.Get(t.Context(), backupOf(srv, "dev", bk.ID))
	apiError(t, err, 404)
	_, err = c.Backups.Get(t.Context(), backupOf(srv, "main", "nosuchbackup"))
	apiError(t, err, 404)
}

// backupSchemaTables returns the "name: statement" lines of a branch's schema.
func backupSchemaTables(t *testing.T, srv *fake.Server, c *platform.Client, branch string) []string {
	t.Helper()
	tables, err := c.Branches.GetSchema(t.Context(), &platform.GetBranchSchemaParams{Organization: srv.Org(), Database: backupDB, Branch: branch})
	if err != nil {
		t.Fatal(err)
	}
	out := []string{}
	for _, tb := range tables.Tables {
		out = append(out, tb.Name+": "+tb.Raw)
	}
	return out
}

func TestBackupRestore(t *testing.T) {
	t.Parallel()
	srv, c := newBackupWorld(t)
	org := srv.Org()
	before := backupSchemaTables(t, srv, c, "main")
	bk := createBackup(t, srv, c, "main")
	// The backup holds the schema as it was when it was asked for.
	if err := srv.PushSchema(org, backupDB, "main", "CREATE TABLE later (id bigint PRIMARY KEY)", "DROP TABLE orders"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Backups.Wait(t.Context(), backupOf(srv, "main", bk.ID)); err != nil {
		t.Fatal(err)
	}

	restored, err := c.Branches.Create(t.Context(), &platform.CreateBranchParams{
		Organization: org, Database: backupDB, Name: "restored", BackupID: bk.ID, ClusterSize: "PS_20",
	})
	if err != nil {
		t.Fatal(err)
	}
	if restored.RestoredFromBranch == nil || restored.RestoredFromBranch.Name != "main" ||
		restored.InitialRestoreID == nil || *restored.InitialRestoreID != bk.ID {
		t.Errorf("restored branch: restored_from_branch %+v, initial_restore_id %v; want main and %s",
			restored.RestoredFromBranch, restored.InitialRestoreID, bk.ID)
	}
	srv.Advance(fake.DefaultTimings().BranchReady)
	if diff := cmp.Diff(before, backupSchemaTables(t, srv, c, "restored")); diff != "" {
		t.Errorf("restored schema (-backup +got):\n%s", diff)
	}
	got := getBackupOf(t, srv, c, "main", bk.ID)
	if len(got.RestoredBranches) != 1 || got.RestoredBranches[0].ID != restored.ID || got.RestoredBranches[0].Name != "restored" {
		t.Errorf("restored_branches = %+v, want the restored branch", got.RestoredBranches)
	}
}

// backupKeyspaceNames lists the names of a branch's keyspaces in list
// order.
func backupKeyspaceNames(t *testing.T, srv *fake.Server, c *platform.Client, branch string) []string {
	t.Helper()
	var names []string
	for ks, err := range c.Keyspaces.All(t.Context(), &platform.ListKeyspacesParams{Organization: srv.Org(), Database: backupDB, Branch: branch}) {
		if err != nil {
			t.Fatalf("listing keyspaces of %s: %v", branch, err)
		}
		names = append(names, ks.Name)
	}
	return names
}

// TestBackupRestoreKeepsKeyspaceOrder checks that a restored branch lists
// its keyspaces in the order of the branch backed up, as a branch made
// from a parent does.
func TestBackupRestoreKeepsKeyspaceOrder(t *testing.T) {
	t.Parallel()
	srv, c := newBackupWorld(t)
	org := srv.Org()
	for _, name := range []string{"ks-e", "ks-d", "ks-c", "ks-b", "ks-a", "ks-f"} {
		if err := srv.AddKeyspace(org, backupDB, "main", name, 1); err != nil {
			t.Fatal(err)
		}
		srv.Advance(time.Millisecond) // one creation time each
	}
	want := backupKeyspaceNames(t, srv, c, "main")
	bk := createBackup(t, srv, c, "main")
	if _, err := c.Backups.Wait(t.Context(), backupOf(srv, "main", bk.ID)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Branches.Create(t.Context(), &platform.CreateBranchParams{
		Organization: org, Database: backupDB, Name: "restored", BackupID: bk.ID, ClusterSize: "PS_20",
	}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, backupKeyspaceNames(t, srv, c, "restored")); diff != "" {
		t.Errorf("restored branch's keyspaces (-main +restored):\n%s", diff)
	}
}

func TestBackupRestoreRefused(t *testing.T) {
	t.Parallel()
	srv, c := newBackupWorld(t, fake.WithTimings(fake.Timings{BackupStart: time.Minute, BackupRun: time.Hour}))
	org := srv.Org()
	if _, err := c.Databases.Create(t.Context(), &platform.CreateDatabaseParams{Organization: org, Name: "other-db", ClusterSize: "PS_10"}); err != nil {
		t.Fatal(err)
	}
	newBackupBranch(t, srv, c, "dev")
	newBackupBranch(t, srv, c, "doomed")
	other, err := c.Backups.Create(t.Context(), &platform.CreateBackupParams{Organization: org, Database: "other-db", Branch: "main"})
	if err != nil {
		t.Fatal(err)
	}
	prodOK := createBackup(t, srv, c, "main")
	devOK := createBackup(t, srv, c, "dev")
	gone := createBackup(t, srv, c, "dev")
	srv.Advance(61 * time.Minute)
	if err := c.Backups.Delete(t.Context(), backupOf(srv, "dev", gone.ID)); err != nil {
		t.Fatal(err)
	}
	failed := createBackup(t, srv, c, "main")
	if err := srv.FailNext(failed.ID); err != nil {
		t.Fatal(err)
	}
	running := createBackup(t, srv, c, "main")
	srv.Advance(time.Minute)
	pending := createBackup(t, srv, c, "main")
	canceled := createBackup(t, srv, c, "doomed")
	if err := c.Branches.Delete(t.Context(), &platform.DeleteBranchParams{Organization: org, Database: backupDB, Branch: "doomed"}); err != nil {
		t.Fatal(err)
	}
	token := func(perms ...string) *platform.Client {
		tok, err := srv.CreateServiceToken(org, fake.TokenSpec{Name: strings.Join(perms, "+"), Permissions: permissions(perms...)})
		if err != nil {
			t.Fatal(err)
		}
		return srv.ClientFor(tok)
	}
	brancher := token("create_branch")
	devRestorer := token("restore_backup")
	prodRestorer := token("restore_production_branch_backup")

	t.Cleanup(func() {
		// After the subtests: no refused restore made the branch.
		_, err := c.Branches.Get(context.Background(), &platform.GetBranchParams{Organization: org, Database: backupDB, Branch: "restored"})
		if !errors.Is(err, platform.ErrNotFound) {
			t.Errorf("after refused restores, get branch: %v, want not found", err)
		}
	})
	for _, tc := range []struct {
		name        string
		client      *platform.Client
		backup      string
		clusterSize string
		status      int
		says        string
	}{
		{"pending", c, pending.ID, "PS_10", 422, "pending"},
		{"running", c, running.ID, "PS_10", 422, "running"},
		{"failed", c, failed.ID, "PS_10", 422, "failed"},
		{"canceled", c, canceled.ID, "PS_10", 422, "canceled"},
		{"deleted", c, gone.ID, "PS_10", 422, "backup_id"},
		{"unknown", c, "nosuchbackup", "PS_10", 422, "backup_id"},
		{"other database", c, other.ID, "PS_10", 422, "backup_id"},
		{"no cluster size", c, prodOK.ID, "", 422, "cluster_size"},
		{"unknown cluster size", c, prodOK.ID, "PS_BOGUS", 422, `cluster_size "PS_BOGUS"`},
		{"create_branch only", brancher, prodOK.ID, "PS_10", 404, "Not Found"},
		{"production backup, restore_backup", devRestorer, prodOK.ID, "PS_10", 404, "Not Found"},
		{"development backup, restore_production_branch_backup", prodRestorer, devOK.ID, "PS_10", 404, "Not Found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := tc.client.Branches.Create(t.Context(), &platform.CreateBranchParams{
				Organization: org, Database: backupDB, Name: "restored", BackupID: tc.backup, ClusterSize: tc.clusterSize,
			})
			apiError(t, err, tc.status, tc.says)
		})
	}
	for _, ok := range []struct {
		client *platform.Client
		branch string
		backup *platform.Backup
	}{{prodRestorer, "main", prodOK}, {devRestorer, "dev", devOK}} {
		b, err := ok.client.Branches.Create(t.Context(), &platform.CreateBranchParams{
			Organization: org, Database: backupDB, Name: "from-" + ok.branch, BackupID: ok.backup.ID, ClusterSize: "PS_10",
		})
		if err != nil {
			t.Errorf("restore %s backup: %v", ok.branch, err)
			continue
		}
		if b.RestoredFromBranch == nil || b.RestoredFromBranch.Name != ok.branch {
			t.Errorf("restored_from_branch = %+v, want %s", b.RestoredFromBranch, ok.branch)
		}
	}
}

func TestBackupRestoreFromDeletedBranch(t *testing.T) {
	t.Parallel()
	srv, c := newBackupWorld(t)
	org := srv.Org()
	newBackupBranch(t, srv, c, "dev")
	if err := srv.PushSchema(org, backupDB, "dev", "CREATE TABLE only_on_dev (id bigint PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	want := backupSchemaTables(t, srv, c, "dev")
	bk := createBackup(t, srv, c, "dev")
	if _, err := c.Backups.Wait(t.Context(), backupOf(srv, "dev", bk.ID)); err != nil {
		t.Fatal(err)
	}
	if err := c.Branches.Delete(t.Context(), &platform.DeleteBranchParams{Organization: org, Database: backupDB, Branch: "dev"}); err != nil {
		t.Fatal(err)
	}
	if got := getBackupOf(t, srv, c, "dev", bk.ID); got.State != platform.BackupSuccess {
		t.Fatalf("backup of deleted branch: %s, want success kept", got.State)
	}
	b, err := c.Branches.Create(t.Context(), &platform.CreateBranchParams{Organization: org, Database: backupDB, Name: "revived", BackupID: bk.ID, ClusterSize: "PS_10"})
	if err != nil {
		t.Fatal(err)
	}
	if b.RestoredFromBranch == nil || b.RestoredFromBranch.Name != "dev" || b.RestoredFromBranch.DeletedAt == nil {
		t.Errorf("restored_from_branch = %+v, want the deleted dev", b.RestoredFromBranch)
	}
	srv.Advance(fake.DefaultTimings().BranchReady)
	if diff := cmp.Diff(want, backupSchemaTables(t, srv, c, "revived")); diff != "" {
		t.Errorf("revived schema (-want +got):\n%s", diff)
	}
	if !slices.ContainsFunc(want, func(s string) bool { return strings.HasPrefix(s, "only_on_dev:") }) {
		t.Errorf("dev schema %v lacks its own table", want)
	}
}

// expiringBackup makes a successful backup of the development branch dev
// (made here) kept one hour, and answers it with its expires_at.
func expiringBackup(t *testing.T, srv *fake.Server, c *platform.Client) (*platform.Backup, time.Time) {
	t.Helper()
	newBackupBranch(t, srv, c, "dev")
	bk, err := c.Backups.Create(t.Context(), &platform.CreateBackupParams{
		Organization: srv.Org(), Database: backupDB, Branch: "dev",
		RetentionValue: platform.Ptr(1), RetentionUnit: platform.Ptr(platform.RetentionHour),
	})
	if err != nil {
		t.Fatal(err)
	}
	if bk, err = c.Backups.Wait(t.Context(), backupOf(srv, "dev", bk.ID)); err != nil {
		t.Fatal(err)
	}
	if bk.ExpiresAt == nil || bk.CompletedAt == nil || !bk.ExpiresAt.Equal(bk.CompletedAt.Add(time.Hour)) {
		t.Fatalf("completed_at %v, expires_at %v; want expires_at an hour after completed_at", bk.CompletedAt, bk.ExpiresAt)
	}
	return bk, bk.ExpiresAt.Time
}

// backupAdvanceTo moves the clock of srv to at.
func backupAdvanceTo(t *testing.T, srv *fake.Server, at time.Time) {
	t.Helper()
	if d := at.Sub(srv.Now()); d > 0 {
		srv.Advance(d)
	}
	if !srv.Now().Equal(at) {
		t.Fatalf("clock at %v, want %v", srv.Now(), at)
	}
}

// backupRestoreFrom creates branch name of backupDB from a backup.
func backupRestoreFrom(t *testing.T, c *platform.Client, org, name, id string) error {
	_, err := c.Branches.Create(t.Context(), &platform.CreateBranchParams{Organization: org, Database: backupDB, Name: name, BackupID: id, ClusterSize: "PS_10"})
	return err
}

// backupExpiredAs checks that the backup is gone as an expired one is:
// a 404 to get, update and delete, left out of its branch's list, listed
// with all=true in state success with deleted_at at deletedAt, and its
// restore a 422 naming the expiry that changes nothing.
func backupExpiredAs(t *testing.T, srv *fake.Server, c *platform.Client, id string, deletedAt time.Time) {
	t.Helper()
	ctx, ref := t.Context(), backupOf(srv, "dev", id)
	_, err := c.Backups.Get(ctx, ref)
	apiError(t, err, 404)
	_, err = c.Backups.Update(ctx, &platform.UpdateBackupParams{Organization: ref.Organization, Database: ref.Database, Branch: ref.Branch, ID: id, Protected: platform.Ptr(true)})
	apiError(t, err, 404)
	apiError(t, c.Backups.Delete(ctx, ref), 404)
	list := &platform.ListBackupsParams{Organization: srv.Org(), Database: backupDB, Branch: "dev"}
	if ids := listBackupIDs(t, c, list); slices.Contains(ids, id) {
		t.Errorf("list = %v, still with the expired backup %s", ids, id)
	}
	list.IncludeDeleted = true
	var got *platform.Backup
	for bk, err := range c.Backups.All(ctx, list) {
		if err != nil {
			t.Fatal(err)
		}
		if bk.ID == id {
			got = bk
		}
	}
	if got == nil || got.State != platform.BackupSuccess || !backupTimeIs(got.DeletedAt, deletedAt) {
		t.Errorf("list all=true: %+v; want the backup in state success with deleted_at %v", got, deletedAt)
	}
	before := opWorldState(t, srv)
	apiError(t, backupRestoreFrom(t, c, srv.Org(), "restored", id), 422, "backup "+id, "expired", "retention", "1 hour")
	if diff := worldStateDiff(t, before, opWorldState(t, srv)); diff != "" {
		t.Errorf("a refused restore changed the world (-before +after):\n%s", diff)
	}
}

// TestBackupExpiry: a backup is the platform's to delete once the clock
// passes its expires_at (completed + retention): live up to the instant
// before, gone from then on.
func TestBackupExpiry(t *testing.T) {
	t.Parallel()
	srv, c := newBackupWorld(t)
	bk, expires := expiringBackup(t, srv, c)

	backupAdvanceTo(t, srv, expires.Add(-time.Nanosecond))
	got := getBackupOf(t, srv, c, "dev", bk.ID)
	if got.State != platform.BackupSuccess || got.DeletedAt != nil {
		t.Errorf("just before its expiry: state %s, deleted_at %v; want success, not deleted", got.State, got.DeletedAt)
	}
	if ids := listBackupIDs(t, c, &platform.ListBackupsParams{Organization: srv.Org(), Database: backupDB, Branch: "dev"}); !slices.Equal(ids, []string{bk.ID}) {
		t.Errorf("list just before its expiry = %v, want [%s]", ids, bk.ID)
	}

	srv.Advance(time.Nanosecond)
	backupExpiredAs(t, srv, c, bk.ID, expires)
}

// TestBackupExpiryProtected: a protected backup is kept past its
// expires_at, and expires once its protection is removed: at its
// expiry if that is still ahead, at once if it has passed.
func TestBackupExpiryProtected(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		// unprotect is when the protection is removed, from the expiry;
		// 0 for never.
		unprotect time.Duration
	}{
		{"unprotected before its expiry", -30 * time.Minute},
		{"unprotected after its expiry", 2 * time.Hour},
		{"never unprotected", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, c := newBackupWorld(t)
			bk, expires := expiringBackup(t, srv, c)
			ref := backupOf(srv, "dev", bk.ID)
			protect := func(on bool) *platform.Backup {
				t.Helper()
				got, err := c.Backups.Update(t.Context(), &platform.UpdateBackupParams{Organization: ref.Organization, Database: ref.Database, Branch: ref.Branch, ID: ref.ID, Protected: platform.Ptr(on)})
				if err != nil {
					t.Fatal(err)
				}
				return got
			}
			protect(true)
			if tc.unprotect == 0 {
				srv.Advance(24 * time.Hour)
				if got := getBackupOf(t, srv, c, "dev", bk.ID); got.DeletedAt != nil || !backupTimeIs(got.ExpiresAt, expires) {
					t.Errorf("a day past its expiry, protected: deleted_at %v, expires_at %v; want kept, expires_at %v", got.DeletedAt, got.ExpiresAt, expires)
				}
				if err := backupRestoreFrom(t, c, srv.Org(), "restored", bk.ID); err != nil {
					t.Errorf("restoring a protected backup past its expiry: %v", err)
				}
				return
			}
			backupAdvanceTo(t, srv, expires.Add(tc.unprotect))
			if got := getBackupOf(t, srv, c, "dev", bk.ID); got.DeletedAt != nil {
				t.Fatalf("protected, %v from its expiry: deleted_at %v", tc.unprotect, got.DeletedAt)
			}
			got := protect(false)
			if tc.unprotect > 0 {
				// Past its expiry: the update's answer is the backup deleted.
				if !backupTimeIs(got.DeletedAt, srv.Now()) {
					t.Errorf("unprotected past its expiry: deleted_at %v, want %v", got.DeletedAt, srv.Now())
				}
				backupExpiredAs(t, srv, c, bk.ID, srv.Now())
				return
			}
			if got.DeletedAt != nil {
				t.Errorf("unprotected before its expiry: deleted_at %v", got.DeletedAt)
			}
			backupAdvanceTo(t, srv, expires.Add(-time.Nanosecond))
			getBackupOf(t, srv, c, "dev", bk.ID)
			srv.Advance(time.Nanosecond)
			backupExpiredAs(t, srv, c, bk.ID, expires)
		})
	}
}

// TestBackupExpiryRequired: a backup of the required policy, which no
// request may delete, expires at the end of the policy's retention (a
// week) like any other.
func TestBackupExpiryRequired(t *testing.T) {
	t.Parallel()
	srv, c := newBackupWorld(t)
	srv.Advance(24*time.Hour + time.Minute) // the policy runs at midnight
	page, err := c.Backups.List(t.Context(), &platform.ListBackupsParams{Organization: srv.Org(), Database: backupDB, Branch: "main"})
	if err != nil || len(page.Items) == 0 {
		t.Fatalf("list: %v, %v; want the required policy's backup", page, err)
	}
	bk := page.Items[len(page.Items)-1] // the oldest
	if !bk.Required || bk.ExpiresAt == nil || !bk.ExpiresAt.Equal(bk.CompletedAt.AddDate(0, 0, 7)) {
		t.Fatalf("the policy's backup: required %v, completed_at %v, expires_at %v; want required, kept a week", bk.Required, bk.CompletedAt, bk.ExpiresAt)
	}
	backupAdvanceTo(t, srv, bk.ExpiresAt.Add(-time.Nanosecond))
	getBackupOf(t, srv, c, "main", bk.ID)
	srv.Advance(time.Nanosecond)
	_, err = c.Backups.Get(t.Context(), backupOf(srv, "main", bk.ID))
	apiError(t, err, 404)
}

// TestBackupExpirySnapshot: a backup's expiry survives a snapshot; a
// snapshot without it (written before backups expired, or by hand) has
// it put back on the clock, at once when it has passed; and a snapshot
// whose expiry contradicts its backup is refused.
func TestBackupExpirySnapshot(t *testing.T) {
	t.Parallel()
	srv, c := newBackupWorld(t)
	bk, expires := expiringBackup(t, srv, c)
	data, err := srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	// edits of the snapshot: the backup's record and its expiry.
	backupRec := func(t *testing.T, m map[string]any) map[string]any {
		for _, b := range snapshotRecord(m, "databases", 0)["backups"].([]any) {
			if b := b.(map[string]any); b["id"] == bk.ID {
				return b
			}
		}
		t.Fatalf("no backup %s in the snapshot", bk.ID)
		return nil
	}
	expiries := func(t *testing.T, m map[string]any) (kept []any, expiry map[string]any) {
		for _, js := range m["transitions"].([]any) {
			if js.(map[string]any)["kind"] == "backup.expire" && js.(map[string]any)["id"] == bk.ID {
				expiry = js.(map[string]any)
				continue
			}
			kept = append(kept, js)
		}
		if expiry == nil {
			t.Fatalf("no backup.expire transition of %s in the snapshot", bk.ID)
		}
		return kept, expiry
	}
	withoutExpiry := func(t *testing.T, m map[string]any) { m["transitions"], _ = expiries(t, m) }
	for _, tc := range []struct {
		name string
		edit func(t *testing.T, m map[string]any)
		// restoredAt is where the restored clock stands; deletedAt when the
		// backup is deleted.
		restoredAt, deletedAt time.Time
	}{
		{"round trip", nil, srv.Now(), expires},
		{"without its expiry", withoutExpiry, srv.Now(), expires},
		{"without its expiry, restored past it", func(t *testing.T, m map[string]any) {
			withoutExpiry(t, m)
			m["clock"].(map[string]any)["now"] = expires.Add(time.Minute).Format(time.RFC3339Nano)
		}, expires.Add(time.Minute), expires.Add(time.Minute)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			snap := data
			if tc.edit != nil {
				snap = snapshotEdit(t, data, func(m map[string]any) { tc.edit(t, m) })
			}
			restored := fake.NewServer(t)
			if err := restored.Restore(snap); err != nil {
				t.Fatal(err)
			}
			rc := restored.Client()
			if !restored.Now().Equal(tc.restoredAt) {
				t.Fatalf("restored clock at %v, want %v", restored.Now(), tc.restoredAt)
			}
			if tc.deletedAt.After(restored.Now()) {
				backupAdvanceTo(t, restored, tc.deletedAt.Add(-time.Nanosecond))
				getBackupOf(t, restored, rc, "dev", bk.ID)
				restored.Advance(time.Nanosecond)
			}
			backupExpiredAs(t, restored, rc, bk.ID, tc.deletedAt)
		})
	}
	for _, tc := range []struct {
		name string
		edit func(t *testing.T, m map[string]any)
		want string
	}{
		{"expired but not deleted", func(t *testing.T, m map[string]any) { backupRec(t, m)["expired"] = true }, ".expired: an expired backup is a deleted one"},
		{"expired before its retention ended", func(t *testing.T, m map[string]any) {
			b := backupRec(t, m)
			b["expired"], b["deleted"], b["deleted_at"] = true, true, expires.Add(-time.Minute).Format(time.RFC3339Nano)
			m["transitions"], _ = expiries(t, m)
		}, ".deleted_at: an expired backup is deleted at the end of its retention or later"},
		{"expiry of a deleted backup", func(t *testing.T, m map[string]any) {
			b := backupRec(t, m)
			b["deleted"], b["deleted_at"] = true, srv.Now().Format(time.RFC3339Nano)
		}, "has no expiry ahead"},
		{"expiry at another time", func(t *testing.T, m map[string]any) {
			_, js := expiries(t, m)
			js["at"] = expires.Add(time.Minute).Format(time.RFC3339Nano)
		}, "expires at the end of its retention, " + expires.Format(time.RFC3339Nano) + ", not later"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			restored := fake.NewServer(t)
			before, err := restored.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			err = restored.Restore(snapshotEdit(t, data, func(m map[string]any) { tc.edit(t, m) }))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Restore: %v; want an error saying %q", err, tc.want)
			}
			after, err := restored.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			if string(before) != string(after) {
				t.Error("a refused Restore changed the server")
			}
		})
	}
}

// backupExpiryAt is when the snapshot data holds the expiry of backup id;
// false when it holds none.
func backupExpiryAt(t *testing.T, data []byte, id string) (time.Time, bool) {
	t.Helper()
	var snap struct {
		Transitions []struct {
			Kind string    `json:"kind"`
			ID   string    `json:"id"`
			At   time.Time `json:"at"`
		} `json:"transitions"`
	}
	if err := json.Unmarshal(data, &snap); err != nil {
		t.Fatal(err)
	}
	for _, js := range snap.Transitions {
		if js.Kind == "backup.expire" && js.ID == id {
			return js.At, true
		}
	}
	return time.Time{}, false
}

// TestBackupExpiryLongRetention: a retention longer than a
// time.Duration holds (1000 years) still has its expiry on the clock,
// ahead and before the end of the retention, and a step of it that comes
// first puts it back on the clock, keeping the backup.
func TestBackupExpiryLongRetention(t *testing.T) {
	t.Parallel()
	srv, c := newBackupWorld(t)
	newBackupBranch(t, srv, c, "dev")
	bk, err := c.Backups.Create(t.Context(), &platform.CreateBackupParams{
		Organization: srv.Org(), Database: backupDB, Branch: "dev",
		RetentionValue: platform.Ptr(1000), RetentionUnit: platform.Ptr(platform.RetentionYear),
	})
	if err != nil {
		t.Fatal(err)
	}
	if bk, err = c.Backups.Wait(t.Context(), backupOf(srv, "dev", bk.ID)); err != nil {
		t.Fatal(err)
	}
	data, err := srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	at, ok := backupExpiryAt(t, data, bk.ID)
	if !ok || !at.After(srv.Now().AddDate(50, 0, 0)) || at.After(bk.ExpiresAt.Time) {
		t.Fatalf("the expiry of a backup kept 1000 years is at %v (%v); want it decades ahead, by %v", at, ok, bk.ExpiresAt)
	}
	// Its step an hour ahead, as if that were the furthest the clock held.
	soon := srv.Now().Add(time.Hour)
	data = snapshotEdit(t, data, func(m map[string]any) {
		for _, js := range m["transitions"].([]any) {
			if js := js.(map[string]any); js["kind"] == "backup.expire" && js["id"] == bk.ID {
				js["at"] = soon.Format(time.RFC3339Nano)
			}
		}
	})
	restored := fake.NewServer(t)
	if err := restored.Restore(data); err != nil {
		t.Fatal(err)
	}
	restored.Advance(2 * time.Hour)
	if got := getBackupOf(t, restored, restored.Client(), "dev", bk.ID); got.DeletedAt != nil {
		t.Fatalf("deleted at %v, long before its expiry %v", got.DeletedAt, got.ExpiresAt)
	}
	again, err := restored.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if at, ok := backupExpiryAt(t, again, bk.ID); !ok || !at.After(soon) || at.After(bk.ExpiresAt.Time) {
		t.Errorf("after its first step, the expiry is at %v (%v); want it back on the clock, by %v", at, ok, bk.ExpiresAt)
	}
}
