package platform_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
	"github.com/google/go-cmp/cmp"
)

// backupTimes compares timestamps by instant.
var backupTimes = cmp.Comparer(func(a, b platform.Timestamp) bool { return a.Equal(b.Time) })

func backupTS(s string) platform.Timestamp {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return platform.NewTimestamp(t)
}

func backupTSP(s string) *platform.Timestamp {
	t := backupTS(s)
	return &t
}

// The wire forms of a backup policy and a backup, written from the API's
// schemas, and the values they decode to.
const wirePolicyJSON = `{
	"id": "pol1", "type": "BackupPolicy", "name": "nightly", "display_name": "Nightly",
	"target": "production", "retention_value": 2, "retention_unit": "week",
	"frequency_value": 1, "frequency_unit": "month", "schedule_time": "03:30",
	"schedule_day": 0, "schedule_week": 3, "required": false,
	"last_ran_at": null, "next_run_at": "2026-01-25T03:30:00.000Z",
	"created_at": "2026-01-01T00:00:00.000Z", "updated_at": "2026-01-01T00:00:00.000Z"
}`

func wirePolicy() *platform.BackupPolicy {
	return &platform.BackupPolicy{
		ID: "pol1", Type: "BackupPolicy", Name: "nightly", DisplayName: "Nightly",
		Target: platform.BackupTargetProduction, RetentionValue: 2, RetentionUnit: platform.RetentionWeek,
		FrequencyValue: 1, FrequencyUnit: platform.FrequencyMonth, ScheduleTime: "03:30",
		ScheduleDay: platform.Ptr(0), ScheduleWeek: platform.Ptr(3),
		NextRunAt: backupTSP("2026-01-25T03:30:00Z"),
		CreatedAt: backupTS("2026-01-01T00:00:00Z"), UpdatedAt: backupTS("2026-01-01T00:00:00Z"),
	}
}

const wireBackupJSON = `{
	"id": "bk1", "type": "Backup", "name": "main-nightly", "state": "success",
	"size": 1048576, "uncompressed_size": 3145728, "estimated_storage_cost": 0.25, "pvc_size": 1073741824,
	"protected": true, "required": false,
	"restored_branches": [{"id": "br2", "name": "restored", "created_at": "2026-01-02T00:00:00.000Z", "updated_at": "2026-01-02T00:00:00.000Z", "deleted_at": null}],
	"actor": {"id": "u1", "type": "User", "display_name": "Ada", "avatar_url": "https://avatars.example.com/u1"},
	"backup_policy": ` + wirePolicyJSON + `,
	"schema_snapshot": {"id": "ss1", "name": "main-nightly", "url": "https://app.example.com/ss1", "created_at": "2026-01-01T00:00:00.000Z", "updated_at": "2026-01-01T00:00:00.000Z", "linted_at": null},
	"database_branch": {"id": "br1", "name": "main", "created_at": "2025-12-01T00:00:00.000Z", "updated_at": "2025-12-01T00:00:00.000Z", "deleted_at": "2026-01-03T00:00:00.000Z"},
	"created_at": "2026-01-01T00:00:00.000Z", "updated_at": "2026-01-01T00:00:31.000Z",
	"started_at": "2026-01-01T00:00:01.000Z", "completed_at": "2026-01-01T00:00:31.000Z",
	"expires_at": "2026-01-15T00:00:31.000Z", "deleted_at": null
}`

func wireBackup() *platform.Backup {
	return &platform.Backup{
		ID: "bk1", Type: "Backup", Name: "main-nightly", State: platform.BackupSuccess,
		Size: 1048576, UncompressedSize: 3145728, EstimatedStorageCost: 0.25, PVCSize: 1073741824,
		Protected: true,
		RestoredBranches: []*platform.BranchRef{{
			ID: "br2", Name: "restored", CreatedAt: backupTS("2026-01-02T00:00:00Z"), UpdatedAt: backupTS("2026-01-02T00:00:00Z"),
		}},
		Actor:        &platform.Actor{ID: "u1", Type: "User", DisplayName: "Ada", AvatarURL: "https://avatars.example.com/u1"},
		BackupPolicy: wirePolicy(),
		SchemaSnapshot: &platform.SchemaSnapshot{
			ID: "ss1", Name: "main-nightly", URL: "https://app.example.com/ss1",
			CreatedAt: backupTS("2026-01-01T00:00:00Z"), UpdatedAt: backupTS("2026-01-01T00:00:00Z"),
		},
		DatabaseBranch: &platform.BranchRef{
			ID: "br1", Name: "main", CreatedAt: backupTS("2025-12-01T00:00:00Z"), UpdatedAt: backupTS("2025-12-01T00:00:00Z"),
			DeletedAt: backupTSP("2026-01-03T00:00:00Z"),
		},
		CreatedAt: backupTS("2026-01-01T00:00:00Z"), UpdatedAt: backupTS("2026-01-01T00:00:31Z"),
		StartedAt: backupTSP("2026-01-01T00:00:01Z"), CompletedAt: backupTSP("2026-01-01T00:00:31Z"),
		ExpiresAt: backupTSP("2026-01-15T00:00:31Z"),
	}
}

func backupListJSON(item string) string {
	return `{"type": "list", "current_page": 2, "per_page": 1, "next_page": 3,
		"next_page_url": "https://api.example.com/next", "prev_page": 1, "prev_page_url": "https://api.example.com/prev",
		"data": [` + item + `]}`
}

// TestBackupTypesEncodeAsTheAPI pins the JSON names and nulls of the types:
// encoding the expected values gives the API's wire form back.
func TestBackupTypesEncodeAsTheAPI(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		v    any
		wire string
	}{
		{"backup", wireBackup(), wireBackupJSON},
		{"policy", wirePolicy(), wirePolicyJSON},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := json.Marshal(tc.v)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(jsonValue(t, []byte(tc.wire)), jsonValue(t, got)); diff != "" {
				t.Errorf("JSON (-api +encoded):\n%s", diff)
			}
		})
	}
}

func TestBackupsWire(t *testing.T) {
	t.Parallel()
	const (
		org, db, br = "acme", "app db", "main/x"
		branchPath  = "/v1/organizations/acme/databases/app%20db/branches/main%2Fx/backups"
		policyPath  = "/v1/organizations/acme/databases/app%20db/backup-policies"
	)
	from := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	to := time.Date(2026, 1, 2, 12, 30, 0, 500_000_000, time.UTC)
	listedBackups := &platform.Page[platform.Backup]{
		Type: "list", CurrentPage: 2, PerPage: 1, NextPage: platform.Ptr(3), PrevPage: platform.Ptr(1),
		NextPageURL: platform.Ptr("https://api.example.com/next"), PrevPageURL: platform.Ptr("https://api.example.com/prev"),
		Items: []*platform.Backup{wireBackup()},
	}
	listedPolicies := &platform.Page[platform.BackupPolicy]{
		Type: "list", CurrentPage: 2, PerPage: 1, NextPage: platform.Ptr(3), PrevPage: platform.Ptr(1),
		NextPageURL: platform.Ptr("https://api.example.com/next"), PrevPageURL: platform.Ptr("https://api.example.com/prev"),
		Items: []*platform.BackupPolicy{wirePolicy()},
	}
	for _, tc := range []struct {
		name     string
		status   int
		response string
		call     func(ctx context.Context, c *platform.Client) (any, error)
		method   string
		path     string
		query    url.Values
		body     string
		want     any
	}{
		{
			name: "list backups", status: 200, response: backupListJSON(wireBackupJSON),
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Backups.List(ctx, &platform.ListBackupsParams{
					Organization: org, Database: db, Branch: br, IncludeDeleted: true, State: platform.BackupRunning,
					Policy: "pol1", From: from, To: to, RunningAt: &platform.TimeRange{Start: from, End: to},
					Production: platform.Ptr(false), Order: platform.OrderDesc, ListParams: platform.ListParams{Page: 2, PerPage: 1},
				})
			},
			method: "GET", path: branchPath,
			query: url.Values{
				"all": {"true"}, "state": {"running"}, "policy": {"pol1"},
				"from": {"2026-01-01T00:00:00Z"}, "to": {"2026-01-02T12:30:00.5Z"},
				"running_at": {"2026-01-01T00:00:00Z..2026-01-02T12:30:00.5Z"},
				"production": {"false"}, "order": {"desc"}, "page": {"2"}, "per_page": {"1"},
			},
			want: listedBackups,
		},
		{
			name: "list backups, no filters", status: 200, response: backupListJSON(wireBackupJSON),
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Backups.List(ctx, &platform.ListBackupsParams{Organization: org, Database: db, Branch: br})
			},
			method: "GET", path: branchPath, query: url.Values{}, want: listedBackups,
		},
		{
			name: "create backup", status: 201, response: wireBackupJSON,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Backups.Create(ctx, &platform.CreateBackupParams{
					Organization: org, Database: db, Branch: br, Name: platform.Ptr("main-nightly"),
					RetentionValue: platform.Ptr(6), RetentionUnit: platform.Ptr(platform.RetentionHour), Emergency: platform.Ptr(false),
				})
			},
			method: "POST", path: branchPath, query: url.Values{},
			body: `{"name": "main-nightly", "retention_value": 6, "retention_unit": "hour", "emergency": false}`,
			want: wireBackup(),
		},
		{
			name: "create backup, defaults", status: 201, response: wireBackupJSON,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Backups.Create(ctx, &platform.CreateBackupParams{Organization: org, Database: db, Branch: br})
			},
			method: "POST", path: branchPath, query: url.Values{}, body: `{}`, want: wireBackup(),
		},
		{
			name: "get backup", status: 200, response: wireBackupJSON,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Backups.Get(ctx, &platform.GetBackupParams{Organization: org, Database: db, Branch: br, ID: "bk1"})
			},
			method: "GET", path: branchPath + "/bk1", query: url.Values{}, want: wireBackup(),
		},
		{
			name: "update backup", status: 200, response: wireBackupJSON,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Backups.Update(ctx, &platform.UpdateBackupParams{Organization: org, Database: db, Branch: br, ID: "bk1", Protected: platform.Ptr(true)})
			},
			method: "PATCH", path: branchPath + "/bk1", query: url.Values{}, body: `{"protected": true}`, want: wireBackup(),
		},
		{
			name: "delete backup", status: 204,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return nil, c.Backups.Delete(ctx, &platform.DeleteBackupParams{Organization: org, Database: db, Branch: br, ID: "bk1"})
			},
			method: "DELETE", path: branchPath + "/bk1", query: url.Values{},
		},
		{
			name: "list backup policies", status: 200, response: backupListJSON(wirePolicyJSON),
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.BackupPolicies.List(ctx, &platform.ListBackupPoliciesParams{Organization: org, Database: db, ListParams: platform.ListParams{Page: 2, PerPage: 1}})
			},
			method: "GET", path: policyPath, query: url.Values{"page": {"2"}, "per_page": {"1"}}, want: listedPolicies,
		},
		{
			name: "create backup policy", status: 201, response: wirePolicyJSON,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.BackupPolicies.Create(ctx, &platform.CreateBackupPolicyParams{
					Organization: org, Database: db, Name: "nightly", Target: platform.BackupTargetProduction,
					RetentionValue: 2, RetentionUnit: platform.RetentionWeek, FrequencyValue: 1, FrequencyUnit: platform.FrequencyMonth,
					ScheduleTime: platform.Ptr("03:30"), ScheduleDay: platform.Ptr(0), ScheduleWeek: platform.Ptr(3),
				})
			},
			method: "POST", path: policyPath, query: url.Values{},
			body: `{"name": "nightly", "target": "production", "retention_value": 2, "retention_unit": "week",
				"frequency_value": 1, "frequency_unit": "month", "schedule_time": "03:30", "schedule_day": 0, "schedule_week": 3}`,
			want: wirePolicy(),
		},
		{
			name: "create backup policy, required fields only", status: 201, response: wirePolicyJSON,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.BackupPolicies.Create(ctx, &platform.CreateBackupPolicyParams{Organization: org, Database: db})
			},
			method: "POST", path: policyPath, query: url.Values{},
			body: `{"name": "", "target": "", "retention_value": 0, "retention_unit": "", "frequency_value": 0, "frequency_unit": ""}`,
			want: wirePolicy(),
		},
		{
			name: "get backup policy", status: 200, response: wirePolicyJSON,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.BackupPolicies.Get(ctx, &platform.GetBackupPolicyParams{Organization: org, Database: db, ID: "pol1"})
			},
			method: "GET", path: policyPath + "/pol1", query: url.Values{}, want: wirePolicy(),
		},
		{
			name: "update backup policy", status: 200, response: wirePolicyJSON,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.BackupPolicies.Update(ctx, &platform.UpdateBackupPolicyParams{
					Organization: org, Database: db, ID: "pol1", Target: platform.Ptr(platform.BackupTargetDevelopment),
					FrequencyValue: platform.Ptr(12), FrequencyUnit: platform.Ptr(platform.FrequencyHour), ScheduleDay: platform.Ptr(0),
				})
			},
			method: "PATCH", path: policyPath + "/pol1", query: url.Values{},
			body: `{"target": "development", "frequency_value": 12, "frequency_unit": "hour", "schedule_day": 0}`,
			want: wirePolicy(),
		},
		{
			name: "delete backup policy", status: 204,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return nil, c.BackupPolicies.Delete(ctx, &platform.DeleteBackupPolicyParams{Organization: org, Database: db, ID: "pol1"})
			},
			method: "DELETE", path: policyPath + "/pol1", query: url.Values{},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWire(t, tc.status, tc.response)
			got, err := tc.call(t.Context(), w.client)
			if err != nil {
				t.Fatal(err)
			}
			checkRequest(t, w.only(), wantRequest{Method: tc.method, Path: tc.path, RawQuery: tc.query.Encode(), Body: tc.body})
			if tc.want != nil {
				if diff := cmp.Diff(tc.want, got, backupTimes); diff != "" {
					t.Errorf("decoded (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestBackupsWireError(t *testing.T) {
	t.Parallel()
	w := newWire(t, 422, `{"code": "unprocessable", "message": "backup bk1 is protected"}`)
	err := w.client.Backups.Delete(t.Context(), &platform.DeleteBackupParams{Organization: "acme", Database: "db", Branch: "main", ID: "bk1"})
	var apiErr *platform.Error
	if !errors.Is(err, platform.ErrUnprocessable) || !errors.As(err, &apiErr) || apiErr.Message != "backup bk1 is protected" {
		t.Errorf("error = %v, want the 422 with its message", err)
	}
}

func TestBackupsArgErrors(t *testing.T) {
	t.Parallel()
	w := newWire(t, 200, `{}`)
	c := w.client
	ctx := t.Context()
	t.Cleanup(func() {
		if n := len(w.requests()); n != 0 {
			t.Errorf("%d requests sent, want none", n)
		}
	})
	for _, tc := range []struct {
		name, arg string
		call      func() error
	}{
		{"list backups", "branch", func() error {
			_, err := c.Backups.List(ctx, &platform.ListBackupsParams{Organization: "o", Database: "d"})
			return err
		}},
		{"list backups nil", "params", func() error { _, err := c.Backups.List(ctx, nil); return err }},
		{"list backups page", "per_page", func() error {
			_, err := c.Backups.List(ctx, &platform.ListBackupsParams{Organization: "o", Database: "d", Branch: "b", ListParams: platform.ListParams{PerPage: 101}})
			return err
		}},
		{"list backups order", "order", func() error {
			_, err := c.Backups.List(ctx, &platform.ListBackupsParams{Organization: "o", Database: "d", Branch: "b", Order: "newest"})
			return err
		}},
		{"all backups order", "order", func() error {
			for _, err := range c.Backups.All(ctx, &platform.ListBackupsParams{Organization: "o", Database: "d", Branch: "b", Order: "DESC"}) {
				return err
			}
			return nil
		}},
		{"create backup", "database", func() error {
			_, err := c.Backups.Create(ctx, &platform.CreateBackupParams{Organization: "o", Branch: "b"})
			return err
		}},
		{"get backup", "id", func() error {
			_, err := c.Backups.Get(ctx, &platform.GetBackupParams{Organization: "o", Database: "d", Branch: "b"})
			return err
		}},
		{"update backup", "branch", func() error {
			_, err := c.Backups.Update(ctx, &platform.UpdateBackupParams{Organization: "o", Database: "d", ID: "i"})
			return err
		}},
		{"delete backup", "params", func() error { return c.Backups.Delete(ctx, nil) }},
		{"wait backup", "id", func() error {
			_, err := c.Backups.Wait(ctx, &platform.GetBackupParams{Organization: "o", Database: "d", Branch: "b"})
			return err
		}},
		{"list policies", "database", func() error {
			_, err := c.BackupPolicies.List(ctx, &platform.ListBackupPoliciesParams{Organization: "o"})
			return err
		}},
		{"list policies order", "order", func() error {
			_, err := c.BackupPolicies.List(ctx, &platform.ListBackupPoliciesParams{Organization: "o", Database: "d", Order: "newest"})
			return err
		}},
		{"create policy", "organization", func() error {
			_, err := c.BackupPolicies.Create(ctx, &platform.CreateBackupPolicyParams{Database: "d"})
			return err
		}},
		{"get policy", "id", func() error {
			_, err := c.BackupPolicies.Get(ctx, &platform.GetBackupPolicyParams{Organization: "o", Database: "d"})
			return err
		}},
		{"update policy", "id", func() error {
			_, err := c.BackupPolicies.Update(ctx, &platform.UpdateBackupPolicyParams{Organization: "o", Database: "d", ID: " "})
			return err
		}},
		{"delete policy", "database", func() error {
			return c.BackupPolicies.Delete(ctx, &platform.DeleteBackupPolicyParams{Organization: "o", ID: "i"})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var argErr *platform.ArgError
			if err := tc.call(); !errors.As(err, &argErr) || argErr.Arg != tc.arg {
				t.Errorf("error = %v, want an *ArgError for %s", err, tc.arg)
			}
		})
	}
}

func TestBackupStateDone(t *testing.T) {
	t.Parallel()
	for s, done := range map[platform.BackupState]bool{
		platform.BackupPending: false, platform.BackupRunning: false, platform.BackupSuccess: true,
		platform.BackupFailed: true, platform.BackupCanceled: true, platform.BackupIgnored: true,
	} {
		if s.Done() != done {
			t.Errorf("%s.Done() = %v, want %v", s, s.Done(), done)
		}
	}
}

// newBackupFake starts a fake with a ready database "app-db" and a ready
// development branch "dev".
func newBackupFake(t *testing.T, opts ...fake.Option) (*fake.Server, *platform.Client) {
	t.Helper()
	srv := fake.NewServer(t, opts...)
	c := srv.Client()
	if _, err := c.Databases.Create(t.Context(), &platform.CreateDatabaseParams{Organization: srv.Org(), Name: "app-db", ClusterSize: "PS_10"}); err != nil {
		t.Fatal(err)
	}
	srv.Advance(5 * time.Second)
	if _, err := c.Branches.Create(t.Context(), &platform.CreateBranchParams{Organization: srv.Org(), Database: "app-db", Name: "dev"}); err != nil {
		t.Fatal(err)
	}
	srv.Advance(5 * time.Second)
	return srv, c
}

func TestBackupsWait(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		branch string
		// meddle acts on the new backup before waiting.
		meddle func(t *testing.T, srv *fake.Server, c *platform.Client, id string)
		state  platform.BackupState
	}{
		{"success", "main", func(*testing.T, *fake.Server, *platform.Client, string) {}, platform.BackupSuccess},
		{"failed", "main", func(t *testing.T, srv *fake.Server, _ *platform.Client, id string) {
			if err := srv.FailNext(id); err != nil {
				t.Fatal(err)
			}
		}, platform.BackupFailed},
		{"canceled", "dev", func(t *testing.T, srv *fake.Server, c *platform.Client, _ string) {
			srv.Advance(fake.DefaultTimings().BackupStart)
			if err := c.Branches.Delete(t.Context(), &platform.DeleteBranchParams{Organization: srv.Org(), Database: "app-db", Branch: "dev"}); err != nil {
				t.Fatal(err)
			}
		}, platform.BackupCanceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, c := newBackupFake(t)
			ref := &platform.GetBackupParams{Organization: srv.Org(), Database: "app-db", Branch: tc.branch}
			bk, err := c.Backups.Create(t.Context(), &platform.CreateBackupParams{Organization: ref.Organization, Database: ref.Database, Branch: ref.Branch})
			if err != nil {
				t.Fatal(err)
			}
			ref.ID = bk.ID
			tc.meddle(t, srv, c, bk.ID)
			got, err := c.Backups.Wait(t.Context(), ref)
			if got == nil || got.State != tc.state {
				t.Fatalf("Wait = %+v, %v; want the backup in state %s", got, err, tc.state)
			}
			if tc.state == platform.BackupSuccess {
				if err != nil {
					t.Errorf("Wait error: %v", err)
				}
				return
			}
			var stateErr *platform.StateError
			if !errors.As(err, &stateErr) || stateErr.State != string(tc.state) || !strings.Contains(err.Error(), bk.ID) {
				t.Errorf("error = %v, want a *StateError naming %s and the backup", err, tc.state)
			}
		})
	}
}

func TestBackupsWaitIgnored(t *testing.T) {
	t.Parallel()
	srv, c := newBackupFake(t, fake.WithTimings(fake.Timings{BackupRun: 90 * time.Minute}))
	org := srv.Org()
	if _, err := c.BackupPolicies.Create(t.Context(), &platform.CreateBackupPolicyParams{
		Organization: org, Database: "app-db", Name: "hourly", Target: platform.BackupTargetDevelopment,
		RetentionValue: 1, RetentionUnit: platform.RetentionDay, FrequencyValue: 1, FrequencyUnit: platform.FrequencyHour,
	}); err != nil {
		t.Fatal(err)
	}
	srv.Advance(2 * time.Hour)
	page, err := c.Backups.List(t.Context(), &platform.ListBackupsParams{Organization: org, Database: "app-db", Branch: "dev", State: platform.BackupIgnored})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 1 {
		t.Fatalf("%d ignored backups, want 1", len(page.Items))
	}
	_, err = c.Backups.Wait(t.Context(), &platform.GetBackupParams{Organization: org, Database: "app-db", Branch: "dev", ID: page.Items[0].ID})
	var stateErr *platform.StateError
	if !errors.As(err, &stateErr) || stateErr.State != string(platform.BackupIgnored) {
		t.Errorf("error = %v, want a *StateError naming ignored", err)
	}
}

func TestBackupsWaitContext(t *testing.T) {
	t.Parallel()
	srv, c := newBackupFake(t)
	bk, err := c.Backups.Create(t.Context(), &platform.CreateBackupParams{Organization: srv.Org(), Database: "app-db", Branch: "main"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err = c.Backups.Wait(ctx, &platform.GetBackupParams{Organization: srv.Org(), Database: "app-db", Branch: "main", ID: bk.ID})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error = %v, want context.Canceled", err)
	}
}

// ExampleBackupsService_Create backs up a production branch, say before a
// risky change, waits until the backup has succeeded, then lists the
// branch's backups.
func ExampleBackupsService_Create() {
	srv, err := fake.New()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	client, ctx := srv.Client(), context.Background()
	if _, err := client.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: "acme", Name: "shop", ClusterSize: "PS_10"}); err != nil {
		log.Fatal(err)
	}
	if _, err := client.Databases.Wait(ctx, &platform.GetDatabaseParams{Organization: "acme", Database: "shop"}); err != nil {
		log.Fatal(err)
	}

	// Without a name the backup is named after the branch and the time;
	// without a retention it is kept 7 days.
	bk, err := client.Backups.Create(ctx, &platform.CreateBackupParams{
		Organization: "acme", Database: "shop", Branch: "main",
		Name:           platform.Ptr("before-migration"),
		RetentionValue: platform.Ptr(30), RetentionUnit: platform.Ptr(platform.RetentionDay),
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(bk.Name, bk.State)
	// Wait returns once the backup has finished; one that did not succeed
	// (failed, say, or canceled by its branch's deletion) gives a
	// *platform.StateError.
	bk, err = client.Backups.Wait(ctx, &platform.GetBackupParams{Organization: "acme", Database: "shop", Branch: "main", ID: bk.ID})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s %s, kept %.0f days\n", bk.Name, bk.State, bk.ExpiresAt.Sub(bk.CompletedAt.Time).Hours()/24)

	for b, err := range client.Backups.All(ctx, &platform.ListBackupsParams{Organization: "acme", Database: "shop", Branch: "main"}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("listed:", b.Name, b.State)
	}
	// Output:
	// before-migration pending
	// before-migration success, kept 30 days
	// listed: before-migration success
}
