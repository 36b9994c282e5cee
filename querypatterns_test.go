package platform_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// wireReportJSON is a query-patterns report as the API sends it, written
// from the reference's schema rather than from the SDK's types.
const wireReportJSON = `{"id": "qp1", "type": "QueryPatternsDownload", "state": "completed",
	"created_at": "2026-01-01T00:00:00Z", "finished_at": "2026-01-01T00:00:30Z",
	"url": "https://api.example.com/v1/organizations/acme/databases/app/branches/main/query-patterns/qp1",
	"download_url": "https://api.example.com/v1/organizations/acme/databases/app/branches/main/query-patterns/qp1/download",
	"actor": {"id": "usr1", "type": "User", "display_name": "Ada", "avatar_url": "https://avatars.example.com/a"}}`

func wireReport() *platform.QueryPatternsReport {
	return &platform.QueryPatternsReport{
		ID: "qp1", Type: "QueryPatternsDownload", State: platform.QueryPatternsReportCompleted,
		CreatedAt: backupTS("2026-01-01T00:00:00Z"), FinishedAt: backupTSP("2026-01-01T00:00:30Z"),
		URL:         "https://api.example.com/v1/organizations/acme/databases/app/branches/main/query-patterns/qp1",
		DownloadURL: "https://api.example.com/v1/organizations/acme/databases/app/branches/main/query-patterns/qp1/download",
		Actor:       &platform.Actor{ID: "usr1", Type: "User", DisplayName: "Ada", AvatarURL: "https://avatars.example.com/a"},
	}
}

// wireReportFileJSON is a downloaded report's file.
const wireReportFileJSON = `{"generated_at": "2026-01-01T00:00:30Z", "patterns": [{
	"fingerprint": "fp1", "normalized_sql": "select * from users where id = ?", "keyspace": "app", "tables": ["users"],
	"count": 3, "error_count": 1, "rows_read": 30, "rows_returned": 3, "rows_affected": 0,
	"total_duration_millis": 6, "latency_p50_millis": 2, "latency_p99_millis": 3, "latency_max_millis": 3,
	"first_seen_at": "2026-01-01T00:00:01Z", "last_seen_at": "2026-01-01T00:00:03Z"}]}`

func wireReportDownload() *platform.QueryPatternsDownload {
	return &platform.QueryPatternsDownload{
		QueryPatternsReport: *wireReport(),
		QueryPatternsFile: platform.QueryPatternsFile{GeneratedAt: backupTS("2026-01-01T00:00:30Z"), Patterns: []*platform.QueryPattern{{
			Fingerprint: "fp1", SQL: "select * from users where id = ?", Keyspace: "app", Tables: []string{"users"},
			Count: 3, ErrorCount: 1, RowsRead: 30, RowsReturned: 3, TotalDurationMillis: 6,
			LatencyP50Millis: 2, LatencyP99Millis: 3, LatencyMaxMillis: 3,
			FirstSeenAt: backupTS("2026-01-01T00:00:01Z"), LastSeenAt: backupTS("2026-01-01T00:00:03Z"),
		}}},
	}
}

func wireCursorListJSON(item string) string {
	return `{"type": "list", "has_next": true, "has_prev": false, "cursor_start": "qp1", "cursor_end": "qp1", "data": [` + item + `]}`
}

func TestQueryPatternReportsWire(t *testing.T) {
	t.Parallel()
	const base = "/v1/organizations/acme/databases/app%20db/branches/main/query-patterns"
	org, db, br := "acme", "app db", "main"
	runMethodCases(t, []methodCase{
		{
			name: "List", status: 200, response: wireCursorListJSON(wireReportJSON),
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.QueryPatternReports.List(ctx, &platform.ListQueryPatternsReportsParams{Organization: org, Database: db, Branch: br,
					CursorParams: platform.CursorParams{StartingAfter: "qp0", Limit: 1}})
			},
			method: "GET", path: base, query: url.Values{"starting_after": {"qp0"}, "limit": {"1"}},
			want: &platform.CursorPage[platform.QueryPatternsReport]{
				Type: "list", HasNext: true, CursorStart: platform.Ptr("qp1"), CursorEnd: platform.Ptr("qp1"),
				Items: []*platform.QueryPatternsReport{wireReport()},
			},
		},
		{
			name: "Create", status: 201, response: wireReportJSON,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.QueryPatternReports.Create(ctx, &platform.CreateQueryPatternsReportParams{Organization: org, Database: db, Branch: br})
			},
			method: "POST", path: base, query: url.Values{}, want: wireReport(),
		},
		{
			name: "Get", status: 200, response: wireReportJSON,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.QueryPatternReports.Get(ctx, &platform.GetQueryPatternsReportParams{Organization: org, Database: db, Branch: br, ID: "qp/1"})
			},
			method: "GET", path: base + "/qp%2F1", query: url.Values{}, want: wireReport(),
		},
		{
			name: "Delete", status: 204,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return nil, c.QueryPatternReports.Delete(ctx, &platform.DeleteQueryPatternsReportParams{Organization: org, Database: db, Branch: br, ID: "qp1"})
			},
			method: "DELETE", path: base + "/qp1", query: url.Values{},
		},
	})
}

func TestQueryPatternReportsArgErrors(t *testing.T) {
	t.Parallel()
	runArgCases(t, []argCase{
		{"List with nil params", "params", func(ctx context.Context, c *platform.Client) error {
			_, err := c.QueryPatternReports.List(ctx, nil)
			return err
		}},
		{"List with both cursors", "ending_before", func(ctx context.Context, c *platform.Client) error {
			_, err := c.QueryPatternReports.List(ctx, &platform.ListQueryPatternsReportsParams{Organization: "acme", Database: "db", Branch: "main",
				CursorParams: platform.CursorParams{StartingAfter: "a", EndingBefore: "b"}})
			return err
		}},
		{"List with a limit over 100", "limit", func(ctx context.Context, c *platform.Client) error {
			_, err := c.QueryPatternReports.List(ctx, &platform.ListQueryPatternsReportsParams{Organization: "acme", Database: "db", Branch: "main",
				CursorParams: platform.CursorParams{Limit: 101}})
			return err
		}},
		{"Create without branch", "branch", func(ctx context.Context, c *platform.Client) error {
			_, err := c.QueryPatternReports.Create(ctx, &platform.CreateQueryPatternsReportParams{Organization: "acme", Database: "db"})
			return err
		}},
		{"Get without id", "id", func(ctx context.Context, c *platform.Client) error {
			_, err := c.QueryPatternReports.Get(ctx, &platform.GetQueryPatternsReportParams{Organization: "acme", Database: "db", Branch: "main"})
			return err
		}},
		{"Delete with nil params", "params", func(ctx context.Context, c *platform.Client) error {
			return c.QueryPatternReports.Delete(ctx, nil)
		}},
		{"Download without id", "id", func(ctx context.Context, c *platform.Client) error {
			_, err := c.QueryPatternReports.Download(ctx, &platform.DownloadQueryPatternsReportParams{Organization: "acme", Database: "db", Branch: "main"})
			return err
		}},
		{"Wait without id", "id", func(ctx context.Context, c *platform.Client) error {
			_, err := c.QueryPatternReports.Wait(ctx, &platform.GetQueryPatternsReportParams{Organization: "acme", Database: "db", Branch: "main"})
			return err
		}},
	})
}

// TestQueryPatternReportsAllFollowsCursors checks that All asks for each
// page after the last one's cursor_end, and stops when has_next is false.
func TestQueryPatternReportsAllFollowsCursors(t *testing.T) {
	t.Parallel()
	item := func(id string) string { return strings.Replace(wireReportJSON, `"qp1"`, `"`+id+`"`, 1) }
	w := newWireFunc(t, sequence(
		respond(200, `{"type": "list", "has_next": true, "has_prev": false, "cursor_start": "a", "cursor_end": "b", "data": [`+item("a")+`,`+item("b")+`]}`),
		respond(200, `{"type": "list", "has_next": false, "has_prev": true, "cursor_start": "c", "cursor_end": "c", "data": [`+item("c")+`]}`),
	))
	p := &platform.ListQueryPatternsReportsParams{Organization: "acme", Database: "app", Branch: "main", CursorParams: platform.CursorParams{Limit: 2}}
	var ids []string
	for r, err := range w.client.QueryPatternReports.All(t.Context(), p) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, r.ID)
	}
	if diff := cmp.Diff([]string{"a", "b", "c"}, ids); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
	var queries []string
	for _, r := range w.requests() {
		queries = append(queries, r.RawQuery)
	}
	if diff := cmp.Diff([]string{"limit=2", "limit=2&starting_after=b"}, queries); diff != "" {
		t.Errorf("queries (-want +got):\n%s", diff)
	}
	if p.StartingAfter != "" {
		t.Errorf("All changed the caller's params: starting_after %q", p.StartingAfter)
	}
}

// signedStore is a storage host of the download tests: it serves one file
// at /file and records the Authorization header it was sent.
type signedStore struct {
	srv  *httptest.Server
	mu   sync.Mutex
	auth []string
	hits int
}

func newSignedStore(t *testing.T, h http.HandlerFunc) *signedStore {
	t.Helper()
	s := &signedStore{}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits++
		s.auth = append(s.auth, r.Header.Get("Authorization"))
		s.mu.Unlock()
		h(w, r)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

// redirectTo answers as the download operation does: 302 to loc, with the
// report's record as the body.
func redirectTo(loc string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", loc)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusFound)
		_, _ = w.Write([]byte(wireReportJSON))
	}
}

var downloadParams = &platform.DownloadQueryPatternsReportParams{Organization: "acme", Database: "app", Branch: "main", ID: "qp1"}

// TestQueryPatternReportsDownloadSameHost checks the download when the
// signed address is on the API's own host (as the fake serves it): the
// operation is asked with the credentials, the signed address without.
func TestQueryPatternReportsDownloadSameHost(t *testing.T) {
	t.Parallel()
	w := newWireFunc(t, nil)
	w.handler = func(rw http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/download") {
			redirectTo(w.srv.URL+apiPrefix+"_files/qp1?expires=9&signature=ab")(rw, r)
			return
		}
		writeBody(rw, 200, wireReportFileJSON)
	}
	got, err := w.client.QueryPatternReports.Download(t.Context(), downloadParams)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wireReportDownload(), got); diff != "" {
		t.Errorf("download (-want +got):\n%s", diff)
	}
	reqs := w.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	checkRequest(t, reqs[0], wantRequest{Method: "GET", Path: "/v1/organizations/acme/databases/app/branches/main/query-patterns/qp1/download"})
	checkRequest(t, reqs[1], wantRequest{Method: "GET", Path: "/_files/qp1", RawQuery: "expires=9&signature=ab"})
	if a := reqs[0].Header.Get("Authorization"); a != testAuthHeader {
		t.Errorf("the operation was sent Authorization %q, want the token", a)
	}
	if a, ok := reqs[1].Header["Authorization"]; ok {
		t.Errorf("the signed address was sent Authorization %q, want none", a)
	}
}

// TestQueryPatternReportsDownloadMediaType checks that the redirect's
// body is read as the report when its Content-Type names JSON in any
// spelling the media type allows (case, parameters), and only then.
func TestQueryPatternReportsDownloadMediaType(t *testing.T) {
	t.Parallel()
	tests := []struct {
		contentType string
		wantReport  bool
	}{
		{"application/json", true},
		{"Application/JSON", true},
		{"application/json; charset=UTF-8", true},
		{"APPLICATION/JSON;charset=utf-8", true},
		{"application/jsonp", false},
		{"text/html", false},
		{"", false},
	}
	for _, tc := range tests {
		t.Run(tc.contentType, func(t *testing.T) {
			t.Parallel()
			store := newSignedStore(t, respond(200, wireReportFileJSON))
			w := newWireFunc(t, func(rw http.ResponseWriter, r *http.Request) {
				rw.Header().Set("Location", store.srv.URL+"/file?sig=1")
				rw.Header()["Content-Type"] = []string{tc.contentType}
				rw.WriteHeader(http.StatusFound)
				_, _ = rw.Write([]byte(wireReportJSON))
			})
			got, err := w.client.QueryPatternReports.Download(t.Context(), downloadParams)
			if err != nil {
				t.Fatal(err)
			}
			want := wireReportDownload()
			if !tc.wantReport {
				want.QueryPatternsReport = platform.QueryPatternsReport{}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("download (-want +got):\n%s", diff)
			}
		})
	}
}

// TestQueryPatternReportsDownloadOtherHost checks a signed address on
// another host (a storage service): followed, without credentials.
func TestQueryPatternReportsDownloadOtherHost(t *testing.T) {
	t.Parallel()
	store := newSignedStore(t, respond(200, wireReportFileJSON))
	w := newWireFunc(t, redirectTo(store.srv.URL+"/file?sig=1"))
	got, err := w.client.QueryPatternReports.Download(t.Context(), downloadParams)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wireReportDownload(), got); diff != "" {
		t.Errorf("download (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{""}, store.auth); diff != "" {
		t.Errorf("Authorization sent to the store (-want +got):\n%s", diff)
	}
}

// TestQueryPatternReportsDownloadLogged: a client that logs writes one
// line per request of a download, the signed address's as the call's
// second attempt (a redirect followed counts as another, as WithLogger
// says), with the path only: neither the signed address's signature nor
// the token.
func TestQueryPatternReportsDownloadLogged(t *testing.T) {
	t.Parallel()
	store := newSignedStore(t, respond(200, wireReportFileJSON))
	w := newWireFunc(t, redirectTo(store.srv.URL+"/file?signature=s1gn4ture"))
	buf := &lockedBuffer{}
	c := w.newClient(t, platform.WithLogger(debugLogger(buf)))
	if _, err := c.QueryPatternReports.Download(t.Context(), downloadParams); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	type line struct {
		Path            string
		Status, Attempt float64
	}
	var got []line
	for _, m := range loggerLines(t, out) {
		var l line
		l.Path, _ = m["path"].(string)
		l.Status, _ = m["status"].(float64)
		l.Attempt, _ = m["attempt"].(float64)
		got = append(got, l)
	}
	want := []line{
		{apiPrefix + "v1/organizations/acme/databases/app/branches/main/query-patterns/qp1/download", 302, 1},
		{"/file", 200, 2},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("log lines (-want +got):\n%s\nlog:\n%s", diff, out)
	}
	if strings.Contains(out, "s1gn4ture") {
		t.Errorf("the log holds the signed address's signature:\n%s", out)
	}
	checkNoSecret(t, "log", out)
}

// TestQueryPatternReportsDownloadRefusals checks what Download refuses:
// the API's errors, an answer that is not a redirect, a redirect without a
// usable Location or to a scheme other than http(s), and a signed address
// that redirects again or has expired. The redirect guard of every other
// call is unchanged: a redirect to another host is not followed.
func TestQueryPatternReportsDownloadRefusals(t *testing.T) {
	t.Parallel()
	t.Run("report not completed", func(t *testing.T) {
		t.Parallel()
		w := newWire(t, 422, `{"code": "unprocessable", "message": "report qp1 is pending"}`)
		_, err := w.client.QueryPatternReports.Download(t.Context(), downloadParams)
		if !errors.Is(err, platform.ErrUnprocessable) {
			t.Errorf("got %v, want ErrUnprocessable", err)
		}
	})
	t.Run("not a redirect", func(t *testing.T) {
		t.Parallel()
		w := newWire(t, 200, wireReportJSON)
		_, err := w.client.QueryPatternReports.Download(t.Context(), downloadParams)
		if err == nil || !strings.Contains(err.Error(), "want a redirect") {
			t.Errorf("got %v, want an error saying a redirect was expected", err)
		}
	})
	t.Run("no Location", func(t *testing.T) {
		t.Parallel()
		w := newWireFunc(t, func(rw http.ResponseWriter, r *http.Request) { rw.WriteHeader(http.StatusFound) })
		_, err := w.client.QueryPatternReports.Download(t.Context(), downloadParams)
		if err == nil || !strings.Contains(err.Error(), "Location") {
			t.Errorf("got %v, want an error about the Location", err)
		}
	})
	t.Run("another scheme", func(t *testing.T) {
		t.Parallel()
		w := newWireFunc(t, redirectTo("ftp://files.example.com/qp1"))
		_, err := w.client.QueryPatternReports.Download(t.Context(), downloadParams)
		if err == nil || !strings.Contains(err.Error(), "ftp") {
			t.Errorf("got %v, want a refusal naming the scheme", err)
		}
		if n := w.count(); n != 1 {
			t.Errorf("%d requests, want 1", n)
		}
	})
	t.Run("signed address redirects again", func(t *testing.T) {
		t.Parallel()
		elsewhere := newSignedStore(t, respond(200, wireReportFileJSON))
		store := newSignedStore(t, func(rw http.ResponseWriter, r *http.Request) {
			http.Redirect(rw, r, elsewhere.srv.URL+"/file", http.StatusFound)
		})
		w := newWireFunc(t, redirectTo(store.srv.URL+"/file"))
		_, err := w.client.QueryPatternReports.Download(t.Context(), downloadParams)
		var apiErr *platform.Error
		if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusFound {
			t.Errorf("got %v, want the unfollowed 302 as an *Error", err)
		}
		if elsewhere.hits != 0 {
			t.Errorf("the second redirect was followed")
		}
	})
	t.Run("signed address expired", func(t *testing.T) {
		t.Parallel()
		store := newSignedStore(t, respond(410, `{"code": "gone", "message": "the signed address expired"}`))
		w := newWireFunc(t, redirectTo(store.srv.URL+"/file"))
		_, err := w.client.QueryPatternReports.Download(t.Context(), downloadParams)
		var apiErr *platform.Error
		if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusGone {
			t.Errorf("got %v, want an *Error with status 410", err)
		}
	})
	t.Run("the operation hangs up", func(t *testing.T) {
		t.Parallel()
		w := newWireFunc(t, hangUp(t))
		c := w.newClient(t, platform.WithoutRetries())
		_, err := c.QueryPatternReports.Download(t.Context(), downloadParams)
		if err == nil || !strings.Contains(err.Error(), "GET "+apiPrefix+"v1/organizations/acme/databases/app/branches/main/query-patterns/qp1/download") {
			t.Errorf("got %v, want a transport error naming the request", err)
		}
		if err != nil {
			checkNoSecret(t, "transport error text", err.Error())
		}
	})
	t.Run("a redirect whose record does not decode", func(t *testing.T) {
		t.Parallel()
		store := newSignedStore(t, respond(200, wireReportFileJSON))
		w := newWireFunc(t, func(rw http.ResponseWriter, r *http.Request) {
			rw.Header().Set("Location", store.srv.URL+"/file?sig=1")
			writeBody(rw, http.StatusFound, `{"id": 7}`)
		})
		_, err := w.client.QueryPatternReports.Download(t.Context(), downloadParams)
		if err == nil || !strings.Contains(err.Error(), "decoding response") {
			t.Errorf("got %v, want an error decoding the redirect's record", err)
		}
		if store.hits != 0 {
			t.Errorf("the signed address was fetched after a record that did not decode")
		}
	})
	t.Run("other calls still refuse redirects to another host", func(t *testing.T) {
		t.Parallel()
		store := newSignedStore(t, respond(200, wireReportJSON))
		w := newWireFunc(t, redirectTo(store.srv.URL+"/file"))
		_, err := w.client.QueryPatternReports.Get(t.Context(), downloadParams)
		var apiErr *platform.Error
		if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusFound {
			t.Errorf("got %v, want the unfollowed 302 as an *Error", err)
		}
		if store.hits != 0 {
			t.Errorf("Get followed a redirect to another host")
		}
	})
}

func ExampleQueryPatternReportsService_Download() {
	srv, err := fake.New()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	client, ctx := srv.Client(), context.Background()
	if _, err := client.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: "acme", Name: "shop"}); err != nil {
		log.Fatal(err)
	}
	if _, err := client.Databases.Wait(ctx, &platform.GetDatabaseParams{Organization: "acme", Database: "shop"}); err != nil {
		log.Fatal(err)
	}
	// The fake runs no SQL: a test records what its code ran.
	if err := srv.RecordQueries("acme", "shop", "main",
		fake.QuerySample{SQL: "select * from carts where id = 1", Duration: 2 * time.Millisecond},
		fake.QuerySample{SQL: "select * from carts where id = 2", Duration: 6 * time.Millisecond},
		fake.QuerySample{SQL: "update carts set total = 10 where id = 1", RowsAffected: 1, Duration: 3 * time.Millisecond},
	); err != nil {
		log.Fatal(err)
	}

	p := &platform.GetQueryPatternsReportParams{Organization: "acme", Database: "shop", Branch: "main"}
	r, err := client.QueryPatternReports.Create(ctx, &platform.CreateQueryPatternsReportParams{Organization: "acme", Database: "shop", Branch: "main"})
	if err != nil {
		log.Fatal(err)
	}
	p.ID = r.ID
	if _, err := client.QueryPatternReports.Wait(ctx, p); err != nil {
		log.Fatal(err)
	}
	report, err := client.QueryPatternReports.Download(ctx, p)
	if err != nil {
		log.Fatal(err)
	}
	for _, q := range report.Patterns {
		fmt.Printf("%d× %s (max %.0f ms)\n", q.Count, q.SQL, q.LatencyMaxMillis)
	}
	// Output:
	// 2× SELECT * FROM carts WHERE id = ? (max 6 ms)
	// 1× UPDATE carts SET total = ? WHERE id = ? (max 3 ms)
}
