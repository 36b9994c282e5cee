package platform_test

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// wireExportJSON is an export as the API sends it, with the fields the
// official client reads.
const wireExportJSON = `{"id": "export1", "state": "ready", "expired": false,
	"start_at": "2026-07-29T00:00:00Z", "end_at": "2026-07-29T01:00:00Z",
	"filters": {"source_ips": ["203.0.113.0/24"], "outcomes": ["deny"], "startup_databases": [""]},
	"format": "jsonl", "resolved_branch_public_ids": ["br1"], "created_at": "2026-07-29T02:00:00Z",
	"started_at": "2026-07-29T02:00:02Z", "generated_at": "2026-07-29T02:00:22Z", "finished_at": "2026-07-29T02:00:22Z",
	"expires_at": "2026-07-30T02:00:22Z", "failure_reason": "", "failure_detail": "", "recovery_hint": ""}`

func wireExport() *platform.AuthAttemptExport {
	return &platform.AuthAttemptExport{
		ID: "export1", State: platform.AuthAttemptExportReady,
		StartAt: backupTS("2026-07-29T00:00:00Z"), EndAt: backupTS("2026-07-29T01:00:00Z"),
		Filters: platform.AuthAttemptFilters{
			SourceIPs: []string{"203.0.113.0/24"}, Outcomes: []platform.AuthAttemptOutcome{platform.AuthAttemptDeny}, StartupDatabases: []string{""},
		},
		Format: platform.AuthAttemptExportJSONL, ResolvedBranchIDs: []string{"br1"}, CreatedAt: backupTS("2026-07-29T02:00:00Z"),
		StartedAt: backupTSP("2026-07-29T02:00:02Z"), GeneratedAt: backupTSP("2026-07-29T02:00:22Z"),
		FinishedAt: backupTSP("2026-07-29T02:00:22Z"), ExpiresAt: backupTSP("2026-07-30T02:00:22Z"),
	}
}

func TestAuthAttemptExportsWire(t *testing.T) {
	t.Parallel()
	const base = "/v1/organizations/my%20org/auth-attempt-exports"
	start, end := time.Date(2026, 7, 29, 0, 0, 0, 0, time.UTC), time.Date(2026, 7, 29, 1, 0, 0, 0, time.UTC)
	runMethodCases(t, []methodCase{
		{
			// The body the command-line tool sends for the same flags.
			name: "Create", status: 200, response: wireExportJSON,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.AuthAttemptExports.Create(ctx, &platform.CreateAuthAttemptExportParams{
					Organization: "my org", StartAt: start, EndAt: end, Format: platform.AuthAttemptExportJSONL,
					Filters: &platform.AuthAttemptFilters{
						SourceIPs: []string{"203.0.113.0/24", "2001:db8::/112"}, Branches: []string{"db/production"},
						Outcomes: []platform.AuthAttemptOutcome{platform.AuthAttemptDeny}, Usernames: []string{"incident-user"},
						StartupDatabases: []string{""}, FailureReasons: []platform.AuthAttemptFailureReason{platform.AuthFailedBadPassword},
						BackendRoutes: []platform.AuthAttemptBackendRoute{platform.AuthRoutePostgres},
					},
				})
			},
			method: "POST", path: base, query: url.Values{},
			body: `{"start_at":"2026-07-29T00:00:00Z","end_at":"2026-07-29T01:00:00Z","format":"jsonl","filters":{` +
				`"source_ips":["203.0.113.0/24","2001:db8::/112"],"branches":["db/production"],"outcomes":["deny"],"usernames":["incident-user"],` +
				`"startup_databases":[""],"failure_reasons":["bad_password"],"backend_routes":["postgres"]}}`,
			want: wireExport(),
		},
		{
			name: "Create without filters", status: 200, response: `{"id":"export1","state":"pending","format":"csv"}`,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.AuthAttemptExports.Create(ctx, &platform.CreateAuthAttemptExportParams{Organization: "my org", StartAt: start, EndAt: end, Format: "csv"})
			},
			method: "POST", path: base, query: url.Values{},
			body: `{"start_at":"2026-07-29T00:00:00Z","end_at":"2026-07-29T01:00:00Z","format":"csv"}`,
			want: &platform.AuthAttemptExport{ID: "export1", State: platform.AuthAttemptExportPending, Format: platform.AuthAttemptExportCSV},
		},
		{
			name: "Get", status: 200, response: wireExportJSON,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.AuthAttemptExports.Get(ctx, &platform.GetAuthAttemptExportParams{Organization: "my org", ID: "export/1"})
			},
			method: "GET", path: base + "/export%2F1", query: url.Values{}, want: wireExport(),
		},
	})
}

func TestAuthAttemptExportsArgErrors(t *testing.T) {
	t.Parallel()
	runArgCases(t, []argCase{
		{"Create with nil params", "params", func(ctx context.Context, c *platform.Client) error {
			_, err := c.AuthAttemptExports.Create(ctx, nil)
			return err
		}},
		{"Get without id", "id", func(ctx context.Context, c *platform.Client) error {
			_, err := c.AuthAttemptExports.Get(ctx, &platform.GetAuthAttemptExportParams{Organization: "acme"})
			return err
		}},
		{"Download without organization", "organization", func(ctx context.Context, c *platform.Client) error {
			_, err := c.AuthAttemptExports.Download(ctx, &platform.DownloadAuthAttemptExportParams{ID: "x"})
			return err
		}},
		{"Wait with nil params", "params", func(ctx context.Context, c *platform.Client) error {
			_, err := c.AuthAttemptExports.Wait(ctx, nil)
			return err
		}},
	})
}

// TestAuthAttemptExportExpired checks the 410 an expired export answers
// with its record (as the command-line tool's fixture has it): Get and
// Download return an *AuthAttemptExportExpiredError with the record, which
// matches ErrGone; a 410 without a record stays an *Error.
func TestAuthAttemptExportExpired(t *testing.T) {
	t.Parallel()
	const gone = `{"id":"export1","state":"ready","expired":true,"recovery_hint":"Create a new export with the original time range."}`
	p := &platform.GetAuthAttemptExportParams{Organization: "my-org", ID: "export1"}
	calls := map[string]func(c *platform.Client) error{
		"Get":      func(c *platform.Client) error { _, err := c.AuthAttemptExports.Get(t.Context(), p); return err },
		"Download": func(c *platform.Client) error { _, err := c.AuthAttemptExports.Download(t.Context(), p); return err },
	}
	for name, call := range calls {
		w := newWire(t, http.StatusGone, gone)
		err := call(w.client)
		var ee *platform.AuthAttemptExportExpiredError
		if !errors.As(err, &ee) || !errors.Is(err, platform.ErrGone) || ee.Export.ID != "export1" || !ee.Export.Expired ||
			err.Error() != "platform: auth attempt export export1 expired: Create a new export with the original time range." {
			t.Errorf("%s: %v, want an *AuthAttemptExportExpiredError", name, err)
		}
		w = newWire(t, http.StatusGone, `{"code":"gone","message":"this download address expired"}`)
		err = call(w.client)
		var e *platform.Error
		if errors.As(err, &ee) || !errors.As(err, &e) || !errors.Is(err, platform.ErrGone) {
			t.Errorf("%s: a plain 410 gave %v, want an *Error", name, err)
		}
	}
}

// TestAuthAttemptExportDownloadOtherHost checks that the archive at a
// signed address on another host is fetched without credentials and kept
// byte for byte, with the redirect's record.
func TestAuthAttemptExportDownloadOtherHost(t *testing.T) {
	t.Parallel()
	archive := authZip(t, "auth-attempts-export1.jsonl",
		`{"attempted_at":"2026-07-29T00:10:00.000Z","username":"incident-user","source_ip":"203.0.113.5","database":"db","branch":"production",`+
			`"branch_public_id":"br1","startup_database":"","backend_route":"postgres","outcome":"deny","failure_reason":"bad_password","failure_detail":"wrong"}`+"\n")
	store := newSignedStore(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/zip")
		_, _ = w.Write(archive)
	})
	w := newWireFunc(t, func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Location", store.srv.URL+"/file?sig=1")
		writeBody(rw, http.StatusFound, wireExportJSON)
	})
	got, err := w.client.AuthAttemptExports.Download(t.Context(), &platform.DownloadAuthAttemptExportParams{Organization: "my-org", ID: "export1"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&platform.AuthAttemptExportDownload{AuthAttemptExport: *wireExport(), Archive: archive}, got); diff != "" {
		t.Errorf("download (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{""}, store.auth); diff != "" {
		t.Errorf("Authorization sent to the store (-want +got):\n%s", diff)
	}
	rows, err := got.Attempts()
	if err != nil {
		t.Fatal(err)
	}
	want := []*platform.AuthAttempt{{
		At: backupTS("2026-07-29T00:10:00Z"), Username: "incident-user", SourceIP: "203.0.113.5", Database: "db", Branch: "production",
		BranchID: "br1", BackendRoute: platform.AuthRoutePostgres, Outcome: platform.AuthAttemptDeny,
		FailureReason: platform.AuthFailedBadPassword, FailureDetail: "wrong",
	}}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("attempts (-want +got):\n%s", diff)
	}
}

// authZip is a ZIP archive of one file.
func authZip(t *testing.T, name, content string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	f, err := zw.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.Write([]byte(content))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestAuthAttemptExportAttemptsRefusals checks what Attempts refuses: not
// a ZIP file, several files, a format it does not read, a bad row.
func TestAuthAttemptExportAttemptsRefusals(t *testing.T) {
	t.Parallel()
	two := func() []byte {
		var b bytes.Buffer
		zw := zip.NewWriter(&b)
		_, _ = zw.Create("a.csv")
		_, _ = zw.Create("b.csv")
		_ = zw.Close()
		return b.Bytes()
	}()
	tests := []struct {
		name    string
		archive []byte
		want    string
	}{
		{"not a zip", []byte("PK\x03\x04zip"), "export archive"},
		{"two files", two, "holds 2 files"},
		{"parquet", authZip(t, "x.parquet", "PAR1"), `of format "parquet"`},
		{"csv without header", authZip(t, "x.csv", "a,b\n"), "is not the header"},
		{"csv short row", authZip(t, "x.csv", strings.Join(platform.AuthAttemptCSVHeader, ",")+"\nx\n"), "line 2"},
		{"csv bad time", authZip(t, "x.csv", strings.Join(platform.AuthAttemptCSVHeader, ",")+"\nyesterday,u,192.0.2.1,db,main,b1,db,mysql,allow,,\n"), "x.csv row 2: attempted_at"},
		{"bad jsonl", authZip(t, "x.jsonl", "{\n"), "line 1"},
		{"jsonl line over 1 MiB", authZip(t, "x.jsonl", `{"username":"`+strings.Repeat("u", 1<<20)+`"}`+"\n"), "x.jsonl: bufio.Scanner: token too long"},
	}
	for _, tt := range tests {
		d := &platform.AuthAttemptExportDownload{Archive: tt.archive}
		if _, err := d.Attempts(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an error with %q", tt.name, err, tt.want)
		}
	}
}

// TestAuthAttemptExportsOnTheFake records attempts, exports them in both
// formats, and reads back the same rows the fake decided.
func TestAuthAttemptExportsOnTheFake(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	c := srv.Client()
	if _, err := c.Databases.Create(t.Context(), &platform.CreateDatabaseParams{Organization: srv.Org(), Name: "pg", Kind: platform.KindPostgreSQL}); err != nil {
		t.Fatal(err)
	}
	srv.Advance(time.Minute)
	recorded, err := srv.RecordAuthAttempts(srv.Org(),
		fake.AuthAttempt{Username: "postgres", SourceAddress: "192.0.2.1", Database: "pg", Branch: "main", StartupDatabase: "postgres", At: srv.Now().Add(-time.Second)},
		fake.AuthAttempt{Username: "intruder", SourceAddress: "2001:db8::9", Database: "pg", Branch: "main", BackendRoute: platform.AuthRoutePgBouncer},
	)
	if err != nil {
		t.Fatal(err)
	}
	want := []*platform.AuthAttempt{&recorded[0], &recorded[1]}
	from, to := srv.Now().Add(-time.Hour), srv.Now().Add(time.Millisecond)
	for _, format := range []platform.AuthAttemptExportFormat{platform.AuthAttemptExportJSONL, platform.AuthAttemptExportCSV} {
		x, err := c.AuthAttemptExports.Create(t.Context(), &platform.CreateAuthAttemptExportParams{
			Organization: srv.Org(), StartAt: from, EndAt: to, Format: format,
		})
		if err != nil {
			t.Fatal(err)
		}
		if x.State != platform.AuthAttemptExportPending {
			t.Errorf("%s: created %s", format, x.State)
		}
		p := &platform.GetAuthAttemptExportParams{Organization: srv.Org(), ID: x.ID}
		if _, err := c.AuthAttemptExports.Download(t.Context(), p); !errors.Is(err, platform.ErrUnprocessable) {
			t.Errorf("%s: a download before it is ready: %v", format, err)
		}
		ready, err := c.AuthAttemptExports.Wait(t.Context(), p)
		if err != nil || ready.State != platform.AuthAttemptExportReady {
			t.Fatalf("%s: Wait: %+v, %v", format, ready, err)
		}
		d, err := c.AuthAttemptExports.Download(t.Context(), p)
		if err != nil {
			t.Fatal(err)
		}
		if d.ID != x.ID || d.Format != format {
			t.Errorf("%s: the download's record: %+v", format, d.AuthAttemptExport)
		}
		rows, err := d.Attempts()
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, rows); diff != "" {
			t.Errorf("%s: attempts (-want +got):\n%s", format, diff)
		}
		srv.Advance(fake.DefaultTimings().AuthAttemptExportTTL)
		var ee *platform.AuthAttemptExportExpiredError
		if _, err := c.AuthAttemptExports.Get(t.Context(), p); !errors.As(err, &ee) || ee.Export.RecoveryHint == "" {
			t.Errorf("%s: Get after expiry: %v", format, err)
		}
		if _, err := c.AuthAttemptExports.Download(t.Context(), p); !errors.As(err, &ee) {
			t.Errorf("%s: Download after expiry: %v", format, err)
		}
	}
}
