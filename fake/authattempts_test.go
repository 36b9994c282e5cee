package fake_test

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// authEnv is a fake with the MySQL database app and the PostgreSQL
// database pg, both ready, for the tests of authentication attempts.
type authEnv struct {
	srv *fake.Server
	c   *platform.Client
	org string
}

func newAuthEnv(t *testing.T) *authEnv {
	t.Helper()
	srv := fake.NewServer(t)
	c := srv.Client()
	mustDB(t, srv, "app")
	if _, err := c.Databases.Create(t.Context(), &platform.CreateDatabaseParams{Organization: srv.Org(), Name: "pg", Kind: platform.KindPostgreSQL}); err != nil {
		t.Fatal(err)
	}
	srv.Advance(time.Minute)
	return &authEnv{srv: srv, c: c, org: srv.Org()}
}

// record records one attempt and returns it as decided.
func (e *authEnv) record(t *testing.T, a fake.AuthAttempt) platform.AuthAttempt {
	t.Helper()
	rows, err := e.srv.RecordAuthAttempts(e.org, a)
	if err != nil {
		t.Fatal(err)
	}
	return rows[0]
}

// TestAuthAttemptOutcomes checks that the fake decides each attempt from
// its own credentials: live ones let it in, expired, deleted, unknown ones
// and addresses outside the allowed ranges keep it out, saying why.
func TestAuthAttemptOutcomes(t *testing.T) {
	t.Parallel()
	type verdict struct {
		Outcome platform.AuthAttemptOutcome
		Reason  platform.AuthAttemptFailureReason
		Detail  string // a part of the detail
	}
	tests := []struct {
		name string
		// setup makes the credential and returns the attempt.
		setup func(t *testing.T, e *authEnv) fake.AuthAttempt
		want  verdict
	}{
		{"live password", func(t *testing.T, e *authEnv) fake.AuthAttempt {
			pw := authPassword(t, e, &platform.CreatePasswordParams{})
			return fake.AuthAttempt{Username: pw.Username, SourceAddress: "203.0.113.9", Database: "app", Branch: "main"}
		}, verdict{platform.AuthAttemptAllow, "", ""}},
		{"expired password", func(t *testing.T, e *authEnv) fake.AuthAttempt {
			pw := authPassword(t, e, &platform.CreatePasswordParams{Name: platform.Ptr("short"), TTL: platform.Ptr(60)})
			e.srv.Advance(time.Minute)
			return fake.AuthAttempt{Username: pw.Username, SourceAddress: "203.0.113.9", Database: "app", Branch: "main"}
		}, verdict{platform.AuthAttemptDeny, platform.AuthFailedAuthorization, "password short expired at"}},
		{"password from outside its ranges", func(t *testing.T, e *authEnv) fake.AuthAttempt {
			pw := authPassword(t, e, &platform.CreatePasswordParams{Name: platform.Ptr("office"), CIDRs: []string{"192.0.2.0/24"}})
			return fake.AuthAttempt{Username: pw.Username, SourceAddress: "203.0.113.9", Database: "app", Branch: "main"}
		}, verdict{platform.AuthAttemptDeny, platform.AuthFailedIPNotAllowed, "password office admits only 192.0.2.0/24"}},
		{"password from inside its ranges", func(t *testing.T, e *authEnv) fake.AuthAttempt {
			pw := authPassword(t, e, &platform.CreatePasswordParams{CIDRs: []string{"192.0.2.0/24"}})
			return fake.AuthAttempt{Username: pw.Username, SourceAddress: "192.0.2.77", Database: "app", Branch: "main"}
		}, verdict{platform.AuthAttemptAllow, "", ""}},
		{"deleted password", func(t *testing.T, e *authEnv) fake.AuthAttempt {
			pw := authPassword(t, e, &platform.CreatePasswordParams{Name: platform.Ptr("old")})
			if err := e.c.Passwords.Delete(t.Context(), &platform.DeletePasswordParams{Organization: e.org, Database: "app", Branch: "main", ID: pw.ID}); err != nil {
				t.Fatal(err)
			}
			return fake.AuthAttempt{Username: pw.Username, SourceAddress: "203.0.113.9", Database: "app", Branch: "main"}
		}, verdict{platform.AuthAttemptDeny, platform.AuthFailedUnknownUser, "password old was deleted at"}},
		{"unknown username on mysql", func(*testing.T, *authEnv) fake.AuthAttempt {
			return fake.AuthAttempt{Username: "mallory", SourceAddress: "203.0.113.9", Database: "app", Branch: "main"}
		}, verdict{platform.AuthAttemptDeny, platform.AuthFailedUnknownUser, `no password of branch main has username "mallory"`}},
		{"default role", func(*testing.T, *authEnv) fake.AuthAttempt {
			return fake.AuthAttempt{Username: "postgres", SourceAddress: "2001:db8::5", Database: "pg", Branch: "main"}
		}, verdict{platform.AuthAttemptAllow, "", ""}},
		{"role by its full username", func(t *testing.T, e *authEnv) fake.AuthAttempt {
			r := authRole(t, e, "app", nil)
			return fake.AuthAttempt{Username: r.Username, SourceAddress: "203.0.113.9", Database: "pg", Branch: "main"}
		}, verdict{platform.AuthAttemptAllow, "", ""}},
		{"expired role", func(t *testing.T, e *authEnv) fake.AuthAttempt {
			r := authRole(t, e, "temp", platform.Ptr(30))
			e.srv.Advance(time.Minute)
			return fake.AuthAttempt{Username: r.Username, SourceAddress: "203.0.113.9", Database: "pg", Branch: "main"}
		}, verdict{platform.AuthAttemptDeny, platform.AuthFailedAuthorization, "role temp expired at"}},
		{"deleted role", func(t *testing.T, e *authEnv) fake.AuthAttempt {
			r := authRole(t, e, "gone", nil)
			if err := e.c.Roles.Delete(t.Context(), &platform.DeleteRoleParams{Organization: e.org, Database: "pg", Branch: "main", ID: r.ID}); err != nil {
				t.Fatal(err)
			}
			return fake.AuthAttempt{Username: r.Username, SourceAddress: "203.0.113.9", Database: "pg", Branch: "main"}
		}, verdict{platform.AuthAttemptDeny, platform.AuthFailedUnknownUser, "role gone was deleted at"}},
		{"role outside the IP restrictions", func(t *testing.T, e *authEnv) fake.AuthAttempt {
			authRestrict(t, e, "192.0.2.0/24")
			return fake.AuthAttempt{Username: "postgres", SourceAddress: "203.0.113.9", Database: "pg", Branch: "main"}
		}, verdict{platform.AuthAttemptDeny, platform.AuthFailedIPNotAllowed, "IP restrictions of database pg do not admit 203.0.113.9 for role postgres"}},
		{"role inside the IP restrictions", func(t *testing.T, e *authEnv) fake.AuthAttempt {
			authRestrict(t, e, "192.0.2.0/24")
			return fake.AuthAttempt{Username: "postgres", SourceAddress: "192.0.2.1", Database: "pg", Branch: "main"}
		}, verdict{platform.AuthAttemptAllow, "", ""}},
		{"role inside its PostgreSQL role's restriction", func(t *testing.T, e *authEnv) fake.AuthAttempt {
			r := authRole(t, e, "app", nil)
			authRestrictRole(t, e, r.BaseUsername, "10.0.0.0/8")
			return fake.AuthAttempt{Username: r.Username, SourceAddress: "10.1.2.3", Database: "pg", Branch: "main"}
		}, verdict{platform.AuthAttemptAllow, "", ""}},
		{"role outside its PostgreSQL role's restriction", func(t *testing.T, e *authEnv) fake.AuthAttempt {
			r := authRole(t, e, "app", nil)
			authRestrictRole(t, e, r.BaseUsername, "10.0.0.0/8")
			return fake.AuthAttempt{Username: r.Username, SourceAddress: "192.0.2.1", Database: "pg", Branch: "main"}
		}, verdict{platform.AuthAttemptDeny, platform.AuthFailedIPNotAllowed, "do not admit 192.0.2.1 for role role_"}},
		{"a restriction naming a role's label is another role's", func(t *testing.T, e *authEnv) fake.AuthAttempt {
			r := authRole(t, e, "app", nil)
			authRestrictRole(t, e, "app", "10.0.0.0/8")
			return fake.AuthAttempt{Username: r.Username, SourceAddress: "10.1.2.3", Database: "pg", Branch: "main"}
		}, verdict{platform.AuthAttemptDeny, platform.AuthFailedIPNotAllowed, "do not admit 10.1.2.3 for role role_"}},
		{"unknown role", func(*testing.T, *authEnv) fake.AuthAttempt {
			return fake.AuthAttempt{Username: "mallory", SourceAddress: "203.0.113.9", Database: "pg", Branch: "main"}
		}, verdict{platform.AuthAttemptDeny, platform.AuthFailedUnknownUser, `no role of branch main has username "mallory"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newAuthEnv(t)
			got := e.record(t, tt.setup(t, e))
			v := verdict{got.Outcome, got.FailureReason, got.FailureDetail}
			if tt.want.Detail != "" && strings.Contains(v.Detail, tt.want.Detail) {
				v.Detail = tt.want.Detail
			}
			if diff := cmp.Diff(tt.want, v); diff != "" {
				t.Errorf("verdict (-want +got):\n%s", diff)
			}
		})
	}
}

func authPassword(t *testing.T, e *authEnv, p *platform.CreatePasswordParams) *platform.Password {
	t.Helper()
	p.Organization, p.Database, p.Branch = e.org, "app", "main"
	pw, err := e.c.Passwords.Create(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	return pw
}

func authRole(t *testing.T, e *authEnv, name string, ttl *int) *platform.Role {
	t.Helper()
	r, err := e.c.Roles.Create(t.Context(), &platform.CreateRoleParams{Organization: e.org, Database: "pg", Branch: "main", Name: &name, TTL: ttl})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func authRestrict(t *testing.T, e *authEnv, cidr string) {
	t.Helper()
	authRestrictRole(t, e, "", cidr)
}

// authRestrictRole adds an IP restriction of pg for a PostgreSQL role
// ("" for every role).
func authRestrictRole(t *testing.T, e *authEnv, role, cidr string) {
	t.Helper()
	p := &platform.CreateIPRestrictionParams{Organization: e.org, Database: "pg", CIDRs: []string{cidr}}
	if role != "" {
		p.Role = &role
	}
	if _, err := e.c.IPRestrictions.Create(t.Context(), p); err != nil {
		t.Fatal(err)
	}
}

// TestRecordAuthAttemptsRefusals checks that a bad attempt is refused,
// naming it and its field, and that none of the others is recorded.
func TestRecordAuthAttemptsRefusals(t *testing.T) {
	t.Parallel()
	good := fake.AuthAttempt{Username: "postgres", SourceAddress: "192.0.2.1", Database: "pg", Branch: "main"}
	tests := []struct {
		name string
		bad  func(a *fake.AuthAttempt, now time.Time)
		want string
	}{
		{"no username", func(a *fake.AuthAttempt, _ time.Time) { a.Username = "" }, "attempts[1]: username is required"},
		{"bad address", func(a *fake.AuthAttempt, _ time.Time) { a.SourceAddress = "10.0.0.0/8" }, `attempts[1]: source address "10.0.0.0/8" is not an IP address`},
		{"no branch", func(a *fake.AuthAttempt, _ time.Time) { a.Branch = "" }, "attempts[1]: database and branch are required"},
		{"unknown branch", func(a *fake.AuthAttempt, _ time.Time) { a.Branch = "nope" }, `attempts[1]: no branch "nope"`},
		{"future", func(a *fake.AuthAttempt, now time.Time) { a.At = now.Add(time.Second) }, "attempts[1]: time"},
		{"bad route", func(a *fake.AuthAttempt, _ time.Time) { a.BackendRoute = "vtgate" }, `attempts[1]: backend route "vtgate"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newAuthEnv(t)
			bad := good
			tt.bad(&bad, e.srv.Now())
			before, _ := e.srv.Snapshot()
			_, err := e.srv.RecordAuthAttempts(e.org, good, bad)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one with %q", err, tt.want)
			}
			if after, _ := e.srv.Snapshot(); !bytes.Equal(before, after) {
				t.Error("a refused call changed the world")
			}
		})
	}
	if _, err := fake.NewServer(t).RecordAuthAttempts("nowhere", good); err == nil || !strings.Contains(err.Error(), `no organization "nowhere"`) {
		t.Errorf("unknown organization: %v", err)
	}
}

// TestAuthExportLifecycle follows an export over the API: pending and
// running with a Retry-After, ready with its archive behind a signed
// address, then expired (410 with its record, as the official client
// reads it).
func TestAuthExportLifecycle(t *testing.T) {
	t.Parallel()
	e := newAuthEnv(t)
	tm := fake.DefaultTimings()
	start := e.srv.Now()
	e.srv.Advance(time.Hour)
	e.record(t, fake.AuthAttempt{Username: "postgres", SourceAddress: "192.0.2.1", Database: "pg", Branch: "main", At: start.Add(time.Minute)})
	e.record(t, fake.AuthAttempt{Username: "mallory", SourceAddress: "192.0.2.2", Database: "pg", Branch: "main", At: start.Add(2 * time.Minute)})
	e.record(t, fake.AuthAttempt{Username: "mallory", SourceAddress: "192.0.2.3", Database: "pg", Branch: "main"}) // after the window
	base := "/v1/organizations/" + e.org + "/auth-attempt-exports"
	body := `{"start_at":"` + start.Format(time.RFC3339) + `","end_at":"` + start.Add(30*time.Minute).Format(time.RFC3339) + `","format":"csv"}`
	r := send(t, e.srv, "POST", base, admin(e.srv), body)
	var x platform.AuthAttemptExport
	if r.status != 200 || json.Unmarshal(r.body, &x) != nil {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	if x.State != platform.AuthAttemptExportPending || r.header.Get("Retry-After") != "2" || x.StartedAt != nil || x.RecoveryHint != "" {
		t.Errorf("create: state %s, Retry-After %q, started %v", x.State, r.header.Get("Retry-After"), x.StartedAt)
	}
	e.srv.Advance(tm.AuthAttemptExportStart)
	r = send(t, e.srv, "GET", base+"/"+x.ID, admin(e.srv), "")
	_ = json.Unmarshal(r.body, &x)
	if x.State != platform.AuthAttemptExportRunning || r.header.Get("Retry-After") != "20" || x.StartedAt == nil {
		t.Errorf("running: state %s, Retry-After %q, started %v", x.State, r.header.Get("Retry-After"), x.StartedAt)
	}
	if r := send(t, e.srv, "GET", base+"/"+x.ID+"/download", admin(e.srv), ""); r.status != 422 || !strings.Contains(string(r.body), "is running; it can be downloaded once ready") {
		t.Errorf("download while running: %d %s", r.status, r.body)
	}
	e.srv.Advance(tm.AuthAttemptExport)
	r = send(t, e.srv, "GET", base+"/"+x.ID, admin(e.srv), "")
	_ = json.Unmarshal(r.body, &x)
	if x.State != platform.AuthAttemptExportReady || r.header.Get("Retry-After") != "" || x.GeneratedAt == nil || x.ExpiresAt == nil || x.Expired {
		t.Errorf("ready: %+v, Retry-After %q", x, r.header.Get("Retry-After"))
	}

	// The download redirects to a signed address on the fake's host, which
	// needs no credentials.
	r = send(t, e.srv, "GET", base+"/"+x.ID+"/download", admin(e.srv), "")
	loc := r.header.Get("Location")
	if r.status != http.StatusFound || !strings.Contains(loc, "/_files/auth-attempt-exports/"+e.org+"/"+x.ID+"?expires=") {
		t.Fatalf("download: %d, Location %q", r.status, loc)
	}
	file := authFetch(t, e.srv, loc)
	if file.status != 200 || file.header.Get("Content-Type") != "application/zip" {
		t.Fatalf("file: %d %s", file.status, file.header.Get("Content-Type"))
	}
	want := "attempted_at,username,source_ip,database,branch,branch_public_id,startup_database,backend_route,outcome,failure_reason,failure_detail\n"
	lines := strings.Split(authUnzip(t, file.body, "auth-attempts-"+x.ID+".csv"), "\n")
	if lines[0]+"\n" != want || len(lines) != 4 || !strings.Contains(lines[1], ",postgres,192.0.2.1,pg,main,") ||
		!strings.Contains(lines[2], `,mallory,192.0.2.2,pg,main,`) || !strings.Contains(lines[2], `,deny,unknown_user,"no role of branch main has username ""mallory"""`) {
		t.Errorf("the file:\n%s", strings.Join(lines, "\n"))
	}
	if r := authFetch(t, e.srv, strings.Replace(loc, "signature=", "signature=00", 1)); r.status != http.StatusForbidden {
		t.Errorf("a changed address: %d %s", r.status, r.body)
	}
	e.srv.Advance(tm.AuthAttemptExportURL + time.Second)
	if r := authFetch(t, e.srv, loc); r.status != http.StatusGone {
		t.Errorf("an expired address: %d %s", r.status, r.body)
	}

	// An address asked for within AuthAttemptExportURL of the export's
	// expiry expires with the export; the file is gone from that instant.
	e.srv.Advance(x.ExpiresAt.Time.Sub(e.srv.Now()) - time.Minute)
	r = send(t, e.srv, "GET", base+"/"+x.ID+"/download", admin(e.srv), "")
	late := r.header.Get("Location")
	if want := fmt.Sprintf("?expires=%d&", x.ExpiresAt.Time.Unix()); r.status != http.StatusFound || !strings.Contains(late, want) {
		t.Fatalf("download a minute before the export expires: %d, Location %q; want %s", r.status, late, want)
	}
	if r := authFetch(t, e.srv, late); r.status != http.StatusOK {
		t.Errorf("the file a minute before the export expires: %d %s", r.status, r.body)
	}
	e.srv.Advance(time.Minute)
	if r := authFetch(t, e.srv, late); r.status != http.StatusGone || !strings.Contains(string(r.body), "expired") {
		t.Errorf("the file as the export expires: %d %s, want 410", r.status, r.body)
	}

	// Expired: 410 with the export's record, for get and download alike.
	e.srv.Advance(tm.AuthAttemptExportTTL)
	for _, path := range []string{base + "/" + x.ID, base + "/" + x.ID + "/download"} {
		r := send(t, e.srv, "GET", path, admin(e.srv), "")
		var gone map[string]any
		_ = json.Unmarshal(r.body, &gone)
		if r.status != http.StatusGone || gone["id"] != x.ID || gone["expired"] != true || gone["recovery_hint"] == "" || gone["code"] != nil {
			t.Errorf("GET %s after expiry: %d %s", path, r.status, r.body)
		}
	}
	if r := authFetch(t, e.srv, loc); r.status != http.StatusGone {
		t.Errorf("the file after expiry: %d", r.status)
	}
}

// authFetch gets an absolute address of srv without credentials.
func authFetch(t *testing.T, srv *fake.Server, addr string) wire {
	t.Helper()
	resp, err := clientOf(srv).Get(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return wire{status: resp.StatusCode, body: b, header: resp.Header}
}

// authUnzip returns the one file of a ZIP archive, which must be name.
func authUnzip(t *testing.T, data []byte, name string) string {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if len(zr.File) != 1 || zr.File[0].Name != name {
		t.Fatalf("archive files: %v, want %s", zr.File, name)
	}
	f, err := zr.File[0].Open()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, _ := io.ReadAll(f)
	return string(b)
}

// TestAuthExportFilters checks that each filter of the create body keeps
// exactly the attempts it names.
func TestAuthExportFilters(t *testing.T) {
	t.Parallel()
	e := newAuthEnv(t)
	pw := authPassword(t, e, &platform.CreatePasswordParams{})
	attempts := []fake.AuthAttempt{
		{Username: "postgres", SourceAddress: "192.0.2.1", Database: "pg", Branch: "main", StartupDatabase: "postgres"},                                      // 0 allow
		{Username: "mallory", SourceAddress: "2001:db8::1", Database: "pg", Branch: "main", BackendRoute: platform.AuthRoutePgBouncer},                       // 1 unknown_user
		{Username: pw.Username, SourceAddress: "198.51.100.7", Database: "app", Branch: "main"},                                                              // 2 allow
		{Username: "eve", SourceAddress: "198.51.100.8", Database: "app", Branch: "main", StartupDatabase: "app"},                                            // 3 unknown_user
		{Username: "postgres", SourceAddress: "203.0.113.1", Database: "pg", Branch: "main", BackendRoute: platform.AuthRoutePgBouncer, StartupDatabase: ""}, // 4 allow
	}
	if _, err := e.srv.RecordAuthAttempts(e.org, attempts...); err != nil {
		t.Fatal(err)
	}
	main, err := e.c.Branches.Get(t.Context(), &platform.GetBranchParams{Organization: e.org, Database: "app", Branch: "main"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		filters platform.AuthAttemptFilters
		want    []string // usernames, in order
	}{
		{"none", platform.AuthAttemptFilters{}, []string{"postgres", "mallory", pw.Username, "eve", "postgres"}},
		{"source ranges", platform.AuthAttemptFilters{SourceIPs: []string{"198.51.100.0/24", "2001:db8::/32"}}, []string{"mallory", pw.Username, "eve"}},
		{"one address", platform.AuthAttemptFilters{SourceIPs: []string{"203.0.113.1"}}, []string{"postgres"}},
		{"branch by name", platform.AuthAttemptFilters{Branches: []string{"app/main"}}, []string{pw.Username, "eve"}},
		{"branch by ID", platform.AuthAttemptFilters{Branches: []string{main.ID}}, []string{pw.Username, "eve"}},
		{"denied", platform.AuthAttemptFilters{Outcomes: []platform.AuthAttemptOutcome{platform.AuthAttemptDeny}}, []string{"mallory", "eve"}},
		{"usernames", platform.AuthAttemptFilters{Usernames: []string{"eve", "postgres"}}, []string{"postgres", "eve", "postgres"}},
		{"no startup database", platform.AuthAttemptFilters{StartupDatabases: []string{""}}, []string{"mallory", pw.Username, "postgres"}},
		{"failure reason", platform.AuthAttemptFilters{FailureReasons: []platform.AuthAttemptFailureReason{platform.AuthFailedUnknownUser}}, []string{"mallory", "eve"}},
		{"other failure reason", platform.AuthAttemptFilters{FailureReasons: []platform.AuthAttemptFailureReason{platform.AuthFailedBadPassword}}, []string{}},
		{"route", platform.AuthAttemptFilters{BackendRoutes: []platform.AuthAttemptBackendRoute{platform.AuthRoutePgBouncer}}, []string{"mallory", "postgres"}},
		{"mysql route", platform.AuthAttemptFilters{BackendRoutes: []platform.AuthAttemptBackendRoute{platform.AuthRouteUnknown}}, []string{pw.Username, "eve"}},
		{"together", platform.AuthAttemptFilters{Branches: []string{"pg/main"}, Outcomes: []platform.AuthAttemptOutcome{platform.AuthAttemptAllow}, BackendRoutes: []platform.AuthAttemptBackendRoute{platform.AuthRoutePgBouncer}}, []string{"postgres"}},
	}
	now := e.srv.Now()
	for _, tt := range tests {
		x, err := e.c.AuthAttemptExports.Create(t.Context(), &platform.CreateAuthAttemptExportParams{
			Organization: e.org, StartAt: now.Add(-time.Hour), EndAt: now.Add(time.Second), Format: platform.AuthAttemptExportJSONL, Filters: &tt.filters,
		})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if _, err := e.c.AuthAttemptExports.Wait(t.Context(), &platform.GetAuthAttemptExportParams{Organization: e.org, ID: x.ID}); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		d, err := e.c.AuthAttemptExports.Download(t.Context(), &platform.DownloadAuthAttemptExportParams{Organization: e.org, ID: x.ID})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		rows, err := d.Attempts()
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		got := []string{}
		for _, r := range rows {
			got = append(got, r.Username)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: usernames (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestAuthExportRefusals checks that a bad create body is refused with a
// 422 naming the field, and that nothing is created.
func TestAuthExportRefusals(t *testing.T) {
	t.Parallel()
	window := `"start_at":"2026-01-01T00:00:00Z","end_at":"2026-01-02T00:00:00Z"`
	tests := []struct{ name, body, want string }{
		{"no start", `{"end_at":"2026-01-02T00:00:00Z","format":"csv"}`, "start_at is required"},
		{"no end", `{"start_at":"2026-01-02T00:00:00Z","format":"csv"}`, "end_at is required"},
		{"backwards", `{"start_at":"2026-01-02T00:00:00Z","end_at":"2026-01-01T00:00:00Z","format":"csv"}`, "must be before end_at"},
		{"empty window", `{"start_at":"2026-01-02T00:00:00Z","end_at":"2026-01-02T00:00:00Z","format":"csv"}`, "must be before end_at"},
		{"no format", `{` + window + `}`, "format is required"},
		{"bad format", `{` + window + `,"format":"xml"}`, `format "xml" is not one of jsonl, csv, parquet`},
		{"bad address", `{` + window + `,"format":"csv","filters":{"source_ips":["10.0.0.300"]}}`, `filters.source_ips: "10.0.0.300" is not an IP address`},
		{"host bits", `{` + window + `,"format":"csv","filters":{"source_ips":["10.0.0.1/8"]}}`, "did you mean 10.0.0.0/8"},
		{"unknown branch", `{` + window + `,"format":"csv","filters":{"branches":["app/nope"]}}`, `filters.branches[0]: "app/nope" names no branch`},
		{"branch of no database", `{` + window + `,"format":"csv","filters":{"branches":["nope/main"]}}`, `filters.branches[0]: "nope/main" names no branch`},
		{"unknown branch ID", `{` + window + `,"format":"csv","filters":{"branches":["main","zzz"]}}`, `filters.branches[0]: "main" names no branch`},
		{"bad outcome", `{` + window + `,"format":"csv","filters":{"outcomes":["allow","maybe"]}}`, `filters.outcomes[1] "maybe" is not one of allow, deny`},
		{"bad reason", `{` + window + `,"format":"csv","filters":{"failure_reasons":["bad"]}}`, `filters.failure_reasons[0] "bad"`},
		{"bad route", `{` + window + `,"format":"csv","filters":{"backend_routes":["vtgate"]}}`, `filters.backend_routes[0] "vtgate"`},
		{"too many", `{` + window + `,"format":"csv","filters":{"usernames":[` + strings.Repeat(`"u",`, 100) + `"u"]}}`, "filters.usernames has 101 values"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := fake.NewServer(t)
			mustDB(t, srv, "app")
			srv.Advance(time.Minute)
			before := fake.AuthExportStates(srv, srv.Org())
			r := send(t, srv, "POST", "/v1/organizations/"+srv.Org()+"/auth-attempt-exports", admin(srv), tt.body)
			var e errorBody
			_ = json.Unmarshal(r.body, &e)
			if r.status != http.StatusUnprocessableEntity || !strings.Contains(e.Message, tt.want) {
				t.Errorf("%d %s, want 422 with %q", r.status, r.body, tt.want)
			}
			if diff := cmp.Diff(before, fake.AuthExportStates(srv, srv.Org())); diff != "" {
				t.Errorf("a refused create changed the exports:\n%s", diff)
			}
		})
	}
}

// TestAuthExportUnknownAndFailed checks 404s for exports that do not exist
// and an export that failed (FailNext): its failure, and no download.
func TestAuthExportUnknownAndFailed(t *testing.T) {
	t.Parallel()
	e := newAuthEnv(t)
	for _, p := range []string{"/nope", "/nope/download"} {
		if r := send(t, e.srv, "GET", "/v1/organizations/"+e.org+"/auth-attempt-exports"+p, admin(e.srv), ""); r.status != 404 {
			t.Errorf("GET %s: %d %s", p, r.status, r.body)
		}
	}
	if _, err := e.c.AuthAttemptExports.Get(t.Context(), &platform.GetAuthAttemptExportParams{Organization: "other", ID: "x"}); !errors.Is(err, platform.ErrNotFound) {
		t.Errorf("another organization: %v", err)
	}
	now := e.srv.Now()
	x, err := e.c.AuthAttemptExports.Create(t.Context(), &platform.CreateAuthAttemptExportParams{Organization: e.org, StartAt: now.Add(-time.Hour), EndAt: now, Format: platform.AuthAttemptExportCSV})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.srv.FailNext(x.ID); err != nil {
		t.Fatal(err)
	}
	got, err := e.c.AuthAttemptExports.Wait(t.Context(), &platform.GetAuthAttemptExportParams{Organization: e.org, ID: x.ID})
	var se *platform.StateError
	if !errors.As(err, &se) || se.State != "failed" || got.FailureReason != "generation_failed" || got.FailureDetail == "" || got.RecoveryHint == "" || got.FinishedAt == nil {
		t.Fatalf("Wait on a failing export: %+v, %v", got, err)
	}
	_, err = e.c.AuthAttemptExports.Download(t.Context(), &platform.DownloadAuthAttemptExportParams{Organization: e.org, ID: x.ID})
	apiError(t, err, 422, "is failed")
}

// TestControlRecordAuthAttempts records attempts over the control surface.
func TestControlRecordAuthAttempts(t *testing.T) {
	t.Parallel()
	e := newAuthEnv(t)
	r := send(t, e.srv, "POST", "/_fake/organizations/"+e.org+"/auth-attempts", admin(e.srv),
		`{"attempts":[{"username":"postgres","source_address":"192.0.2.1","database":"pg","branch":"main","backend_route":"pgbouncer"},`+
			`{"username":"nobody","source_address":"192.0.2.2","database":"pg","branch":"main","startup_database":"app"}]}`)
	var got struct {
		Data []platform.AuthAttempt `json:"data"`
	}
	if r.status != 200 || json.Unmarshal(r.body, &got) != nil || len(got.Data) != 2 {
		t.Fatalf("%d %s", r.status, r.body)
	}
	if got.Data[0].Outcome != platform.AuthAttemptAllow || got.Data[0].BackendRoute != platform.AuthRoutePgBouncer ||
		got.Data[1].FailureReason != platform.AuthFailedUnknownUser || got.Data[1].StartupDatabase != "app" {
		t.Errorf("recorded: %+v", got.Data)
	}
	for _, body := range []string{`{"attempts":[]}`, `{"attempts":[{"username":"x","source_address":"nope","database":"pg","branch":"main"}]}`} {
		if r := send(t, e.srv, "POST", "/_fake/organizations/"+e.org+"/auth-attempts", admin(e.srv), body); r.status != 422 {
			t.Errorf("%s: %d %s", body, r.status, r.body)
		}
	}
	if r := send(t, e.srv, "POST", "/_fake/organizations/"+e.org+"/auth-attempts", admin(e.srv), `{"attempts":[{"user":"x"}]}`); r.status != 400 {
		t.Errorf("an unknown field: %d %s", r.status, r.body)
	}
}

// TestAuthExportParquet checks that a parquet export's archive holds a
// Parquet file of the attempts (its frame and values; fake/internal/parquet
// tests the format).
func TestAuthExportParquet(t *testing.T) {
	t.Parallel()
	e := newAuthEnv(t)
	e.record(t, fake.AuthAttempt{Username: "postgres", SourceAddress: "192.0.2.1", Database: "pg", Branch: "main", At: e.srv.Now().Add(-time.Second)})
	x, err := e.c.AuthAttemptExports.Create(t.Context(), &platform.CreateAuthAttemptExportParams{
		Organization: e.org, StartAt: e.srv.Now().Add(-time.Hour), EndAt: e.srv.Now(), Format: platform.AuthAttemptExportParquet,
	})
	if err != nil {
		t.Fatal(err)
	}
	p := &platform.GetAuthAttemptExportParams{Organization: e.org, ID: x.ID}
	if _, err := e.c.AuthAttemptExports.Wait(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	d, err := e.c.AuthAttemptExports.Download(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	file := authUnzip(t, d.Archive, "auth-attempts-"+x.ID+".parquet")
	if !strings.HasPrefix(file, "PAR1") || !strings.HasSuffix(file, "PAR1") || !strings.Contains(file, "\x08\x00\x00\x00postgres") ||
		!strings.Contains(file, "failure_detail") {
		t.Errorf("not the Parquet file of the attempts: %q", file)
	}
	if _, err := d.Attempts(); err == nil || !strings.Contains(err.Error(), `of format "parquet"`) {
		t.Errorf("Attempts of a parquet archive: %v", err)
	}
}
