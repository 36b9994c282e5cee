package fake_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// qpEnv is a world with queries recorded on app's main (opWorld.traffic)
// and the params of its reports.
type qpEnv struct {
	*opWorld
	on platform.CreateQueryPatternsReportParams
}

func newQPEnv(t *testing.T) *qpEnv {
	t.Helper()
	w := newOpWorld(t)
	w.traffic()
	return &qpEnv{opWorld: w, on: platform.CreateQueryPatternsReportParams{Organization: w.org, Database: drDB, Branch: "main"}}
}

// create asks for a report of main.
func (e *qpEnv) create() *platform.QueryPatternsReport {
	e.t.Helper()
	r, err := e.c.QueryPatternReports.Create(e.t.Context(), &e.on)
	if err != nil {
		e.t.Fatal(err)
	}
	return r
}

// params names report id of main.
func (e *qpEnv) params(id string) *platform.GetQueryPatternsReportParams {
	return &platform.GetQueryPatternsReportParams{Organization: e.org, Database: drDB, Branch: "main", ID: id}
}

// TestQueryPatternReportLifecycle follows a report from its creation to
// its download: pending, generated on the clock from the queries recorded
// until then, and downloaded through the signed address.
func TestQueryPatternReportLifecycle(t *testing.T) {
	t.Parallel()
	e := newQPEnv(t)
	ctx, start := t.Context(), e.srv.Now()
	created := e.create()
	base := strings.TrimSuffix(e.srv.URL(), "/") + "/v1/organizations/acme/databases/app/branches/main/query-patterns/" + created.ID
	want := &platform.QueryPatternsReport{
		ID: created.ID, Type: "QueryPatternsDownload", State: platform.QueryPatternsReportPending,
		CreatedAt: platform.NewTimestamp(start), URL: base, DownloadURL: base + "/download", Actor: created.Actor,
	}
	if diff := cmp.Diff(want, created); diff != "" {
		t.Errorf("created (-want +got):\n%s", diff)
	}
	if created.Actor == nil || created.Actor.ID != e.srv.AdminUserID() {
		t.Errorf("actor %+v, want the admin token's creator", created.Actor)
	}
	_, err := e.c.QueryPatternReports.Download(ctx, e.params(created.ID))
	apiError(t, err, http.StatusUnprocessableEntity, created.ID, "pending")

	done, err := e.c.QueryPatternReports.Wait(ctx, e.params(created.ID))
	if err != nil {
		t.Fatal(err)
	}
	want.State, want.FinishedAt = platform.QueryPatternsReportCompleted, ptrTS(start.Add(fake.DefaultTimings().QueryPatternsReport))
	if diff := cmp.Diff(want, done); diff != "" {
		t.Errorf("completed (-want +got):\n%s", diff)
	}
	// Queries recorded after the report was generated are not in it.
	e.traffic()
	got, err := e.c.QueryPatternReports.Download(ctx, e.params(created.ID))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(*want, got.QueryPatternsReport); diff != "" {
		t.Errorf("downloaded record (-want +got):\n%s", diff)
	}
	if !got.GeneratedAt.Equal(want.FinishedAt.Time) {
		t.Errorf("generated at %v, want %v", got.GeneratedAt, want.FinishedAt)
	}
	type row struct {
		SQL                                     string
		Tables                                  []string
		Count, Errors, Read, Returned, Affected int64
		Total, P50, P99, Max                    float64
	}
	var rows []row
	for _, p := range got.Patterns {
		if p.Fingerprint == "" || p.Keyspace != drDB || p.FirstSeenAt.After(p.LastSeenAt.Time) {
			t.Errorf("pattern %+v: want a fingerprint, keyspace %s, first seen before last", p, drDB)
		}
		rows = append(rows, row{p.SQL, p.Tables, p.Count, p.ErrorCount, p.RowsRead, p.RowsReturned, p.RowsAffected,
			p.TotalDurationMillis, p.LatencyP50Millis, p.LatencyP99Millis, p.LatencyMaxMillis})
	}
	wantRows := []row{
		{"SELECT * FROM users WHERE id = ?", []string{"users"}, 2, 0, 2, 2, 0, 6, 2, 4, 4},
		{"INSERT INTO orders (id) VALUES (?)", []string{"orders"}, 1, 0, 0, 0, 1, 3, 3, 3, 3},
		{"SELECT * FROM orders WHERE id = ?", []string{"orders"}, 1, 1, 0, 0, 0, 1, 1, 1, 1},
	}
	// Ties (one run each) are in fingerprint order: compare them as a set.
	if len(rows) == 3 && rows[1].SQL != wantRows[1].SQL {
		rows[1], rows[2] = rows[2], rows[1]
	}
	if diff := cmp.Diff(wantRows, rows); diff != "" {
		t.Errorf("patterns (-want +got):\n%s", diff)
	}
}

// TestQueryPatternReportFailed checks a report whose generation fails: the
// waiter says so, and it cannot be downloaded.
func TestQueryPatternReportFailed(t *testing.T) {
	t.Parallel()
	e := newQPEnv(t)
	r := e.create()
	if err := e.srv.FailNext(r.ID); err != nil {
		t.Fatal(err)
	}
	got, err := e.c.QueryPatternReports.Wait(t.Context(), e.params(r.ID))
	var se *platform.StateError
	if !errors.As(err, &se) || se.State != "failed" || got == nil || got.FinishedAt == nil {
		t.Fatalf("Wait = %+v, %v; want the failed report and a StateError", got, err)
	}
	_, err = e.c.QueryPatternReports.Download(t.Context(), e.params(r.ID))
	apiError(t, err, http.StatusUnprocessableEntity, r.ID, "failed")
	if err := e.srv.FailNext(r.ID); err == nil {
		t.Error("FailNext of a settled report succeeded")
	}
}

// TestQueryPatternReportDelete checks deletes: a pending report is never
// generated, a deleted one is gone (404 from every operation and from its
// signed address), and deleting twice is a 404.
func TestQueryPatternReportDelete(t *testing.T) {
	t.Parallel()
	e := newQPEnv(t)
	ctx := t.Context()
	pending, completed := e.create(), e.create()
	e.srv.Advance(fake.DefaultTimings().QueryPatternsReport)
	loc := qpSignedLocation(t, e, completed.ID)
	pending2 := e.create()
	for _, id := range []string{pending2.ID, completed.ID} {
		if err := e.c.QueryPatternReports.Delete(ctx, e.params(id)); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.srv.FailNext(pending2.ID); err == nil {
		t.Error("FailNext of a deleted report succeeded")
	}
	e.srv.Advance(fake.DefaultTimings().QueryPatternsReport)
	list, err := e.c.QueryPatternReports.List(ctx, &platform.ListQueryPatternsReportsParams{Organization: e.org, Database: drDB, Branch: "main"})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 || list.Items[0].ID != pending.ID {
		t.Errorf("list %+v, want only %s", list.Items, pending.ID)
	}
	for _, id := range []string{pending2.ID, completed.ID} {
		_, err := e.c.QueryPatternReports.Get(ctx, e.params(id))
		apiError(t, err, http.StatusNotFound)
		_, err = e.c.QueryPatternReports.Download(ctx, e.params(id))
		apiError(t, err, http.StatusNotFound)
		apiError(t, e.c.QueryPatternReports.Delete(ctx, e.params(id)), http.StatusNotFound)
	}
	wantStatus(t, send(t, e.srv, http.MethodGet, loc, "", ""), http.StatusNotFound)
}

// qpSignedLocation asks for the download of report id and returns the
// path and query of the signed address it redirects to.
func qpSignedLocation(t *testing.T, e *qpEnv, id string) string {
	t.Helper()
	r := send(t, e.srv, http.MethodGet, "/v1/organizations/acme/databases/app/branches/main/query-patterns/"+id+"/download", admin(e.srv), "")
	wantStatus(t, r, http.StatusFound)
	loc, err := url.Parse(r.header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := loc.Scheme+"://"+loc.Host+"/", e.srv.URL(); got != want {
		t.Errorf("signed address on %s, want the fake's own %s", got, want)
	}
	if rec := decode[platform.QueryPatternsReport](t, r); rec.ID != id {
		t.Errorf("redirect body %+v, want report %s", rec, id)
	}
	return loc.RequestURI()
}

// TestQueryPatternReportSignedAddress checks the signed address: it needs
// no credentials; a changed path, expiry or signature is refused with 403,
// an expired one with 410, and each refusal changes nothing.
// TestQueryPatternReportAddressSurvivesRestore: a Restore keeps the
// server's signing key, so an address signed before it still serves the
// report the restored world holds.
func TestQueryPatternReportAddressSurvivesRestore(t *testing.T) {
	t.Parallel()
	e := newQPEnv(t)
	r := e.create()
	e.srv.Advance(fake.DefaultTimings().QueryPatternsReport)
	loc := qpSignedLocation(t, e, r.ID)
	data, err := e.srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if err := e.srv.Restore(data); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, send(t, e.srv, http.MethodGet, loc, "", ""), http.StatusOK)
}

func TestQueryPatternReportSignedAddress(t *testing.T) {
	t.Parallel()
	e := newQPEnv(t)
	r := e.create()
	other := e.create()
	e.srv.Advance(fake.DefaultTimings().QueryPatternsReport)
	loc := qpSignedLocation(t, e, r.ID)
	ok := send(t, e.srv, http.MethodGet, loc, "", "")
	wantStatus(t, ok, http.StatusOK)
	file := decode[platform.QueryPatternsFile](t, ok)
	if len(file.Patterns) != 3 {
		t.Errorf("file has %d patterns, want 3: %s", len(file.Patterns), ok.body)
	}
	path, query, _ := strings.Cut(loc, "?")
	q, err := url.ParseQuery(query)
	if err != nil {
		t.Fatal(err)
	}
	expires, err := strconv.ParseInt(q.Get("expires"), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	if want := e.srv.Now().Add(fake.DefaultTimings().QueryPatternsURL).Unix(); expires != want {
		t.Errorf("expires %d, want %d (now + QueryPatternsURL)", expires, want)
	}
	with := func(k, v string) string {
		q := url.Values{"expires": {q.Get("expires")}, "signature": {q.Get("signature")}}
		q.Set(k, v)
		return path + "?" + q.Encode()
	}
	sig := q.Get("signature")
	flipped := string(rune(sig[0]^1)) + sig[1:]
	before := opSnapshot(t, e.srv)
	for _, tc := range []struct{ name, target string }{
		{"another report's path", strings.Replace(loc, r.ID, other.ID, 1)},
		{"a later expiry", with("expires", strconv.FormatInt(expires+3600, 10))},
		{"a changed signature", with("signature", flipped)},
		{"no signature", path + "?expires=" + q.Get("expires")},
		{"no expiry", path + "?signature=" + sig},
		{"a signature that is not hex", with("signature", "zz")},
	} {
		r := send(t, e.srv, http.MethodGet, tc.target, "", "")
		wantStatus(t, r, http.StatusForbidden)
		if !strings.Contains(string(r.body), "signature") {
			t.Errorf("%s: body %s, want it to name the signature", tc.name, r.body)
		}
	}
	e.srv.Advance(fake.DefaultTimings().QueryPatternsURL)
	wantStatus(t, send(t, e.srv, http.MethodGet, loc, "", ""), http.StatusOK) // valid through its last second
	e.srv.Advance(time.Second)
	gone := send(t, e.srv, http.MethodGet, loc, "", "")
	wantStatus(t, gone, http.StatusGone)
	if !strings.Contains(string(gone.body), "expired") {
		t.Errorf("body %s, want it to say the address expired", gone.body)
	}
	if diff := cmp.Diff(before, opSnapshot(t, e.srv)); diff != "" {
		t.Errorf("refused downloads changed the world (-before +after):\n%s", diff)
	}
	// The SDK gets a fresh address each time.
	if _, err := e.c.QueryPatternReports.Download(t.Context(), e.params(r.ID)); err != nil {
		t.Errorf("download after the old address expired: %v", err)
	}
}

// TestQueryPatternReportsCursorPages checks the list's cursor paging,
// newest first, and its refusals.
func TestQueryPatternReportsCursorPages(t *testing.T) {
	t.Parallel()
	e := newQPEnv(t)
	ctx := t.Context()
	var ids []string // newest first
	for range 5 {
		ids = append([]string{e.create().ID}, ids...)
		e.srv.Advance(time.Second)
	}
	list := func(cp platform.CursorParams) *platform.CursorPage[platform.QueryPatternsReport] {
		t.Helper()
		p, err := e.c.QueryPatternReports.List(ctx, &platform.ListQueryPatternsReportsParams{Organization: e.org, Database: drDB, Branch: "main", CursorParams: cp})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	type page struct {
		IDs              []string
		HasNext, HasPrev bool
		Start, End       *string
	}
	of := func(p *platform.CursorPage[platform.QueryPatternsReport]) page {
		out := page{HasNext: p.HasNext, HasPrev: p.HasPrev, Start: p.CursorStart, End: p.CursorEnd}
		for _, r := range p.Items {
			out.IDs = append(out.IDs, r.ID)
		}
		return out
	}
	for _, tc := range []struct {
		name string
		cp   platform.CursorParams
		want page
	}{
		{"first page", platform.CursorParams{Limit: 2}, page{ids[:2], true, false, &ids[0], &ids[1]}},
		{"after", platform.CursorParams{Limit: 2, StartingAfter: ids[1]}, page{ids[2:4], true, true, &ids[2], &ids[3]}},
		{"last page", platform.CursorParams{Limit: 2, StartingAfter: ids[3]}, page{ids[4:], false, true, &ids[4], &ids[4]}},
		{"after the last", platform.CursorParams{StartingAfter: ids[4]}, page{nil, false, true, nil, nil}},
		{"before", platform.CursorParams{Limit: 2, EndingBefore: ids[3]}, page{ids[1:3], true, true, &ids[1], &ids[2]}},
		{"before, at the start", platform.CursorParams{Limit: 2, EndingBefore: ids[1]}, page{ids[:1], true, false, &ids[0], &ids[0]}},
		{"default limit", platform.CursorParams{}, page{ids, false, false, &ids[0], &ids[4]}},
	} {
		if diff := cmp.Diff(tc.want, of(list(tc.cp))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
	var all []string
	for r, err := range e.c.QueryPatternReports.All(ctx, &platform.ListQueryPatternsReportsParams{Organization: e.org, Database: drDB, Branch: "main", CursorParams: platform.CursorParams{Limit: 2}}) {
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, r.ID)
	}
	if diff := cmp.Diff(ids, all); diff != "" {
		t.Errorf("All (-want +got):\n%s", diff)
	}
	base := "/v1/organizations/acme/databases/app/branches/main/query-patterns?"
	for query, param := range map[string]string{
		"limit=0": "limit", "limit=101": "limit", "limit=x": "limit",
		"starting_after=nope": "starting_after", "ending_before=nope": "ending_before",
		"starting_after=" + ids[0] + "&ending_before=" + ids[1]: "starting_after and ending_before",
	} {
		r := send(t, e.srv, http.MethodGet, base+query, admin(e.srv), "")
		wantStatus(t, r, http.StatusBadRequest)
		if !strings.Contains(string(r.body), param) {
			t.Errorf("%s: body %s, want it to name %s", query, r.body, param)
		}
	}
}

// TestQueryPatternReportsCursorOfDeleted: a client that deletes a page's
// reports and then asks for the page after its cursor_end (or before its
// cursor_start) gets the pages beyond them, before and after a snapshot,
// as a cursor does not depend on its report still being there.
func TestQueryPatternReportsCursorOfDeleted(t *testing.T) {
	t.Parallel()
	e := newQPEnv(t)
	ctx := t.Context()
	var ids []string // newest first
	for range 6 {
		ids = append([]string{e.create().ID}, ids...)
		e.srv.Advance(time.Second)
	}
	list := func(c *platform.Client, cp platform.CursorParams) []string {
		t.Helper()
		p, err := c.QueryPatternReports.List(ctx, &platform.ListQueryPatternsReportsParams{Organization: e.org, Database: drDB, Branch: "main", CursorParams: cp})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range p.Items {
			out = append(out, r.ID)
		}
		return out
	}
	// Delete the second page's reports: ids[2] and ids[3].
	for _, id := range ids[2:4] {
		if err := e.c.QueryPatternReports.Delete(ctx, e.params(id)); err != nil {
			t.Fatal(err)
		}
	}
	restored := restoredTwin(t, e.srv)
	for name, c := range map[string]*platform.Client{"live": e.c, "restored": restored.Client()} {
		for _, tc := range []struct {
			cp   platform.CursorParams
			want []string
		}{
			{platform.CursorParams{Limit: 2, StartingAfter: ids[3]}, ids[4:6]},
			{platform.CursorParams{Limit: 2, StartingAfter: ids[2]}, ids[4:6]},
			{platform.CursorParams{Limit: 2, EndingBefore: ids[2]}, ids[0:2]},
			{platform.CursorParams{Limit: 2, EndingBefore: ids[3]}, ids[0:2]},
		} {
			if diff := cmp.Diff(tc.want, list(c, tc.cp)); diff != "" {
				t.Errorf("%s: %+v (-want +got):\n%s", name, tc.cp, diff)
			}
		}
	}
	// A report asked for after the restore is the newest, after every
	// place taken.
	r, err := restored.Client().QueryPatternReports.Create(ctx, &e.on)
	if err != nil {
		t.Fatal(err)
	}
	if got := list(restored.Client(), platform.CursorParams{Limit: 1}); len(got) != 1 || got[0] != r.ID {
		t.Errorf("the newest report after the restore: %v, want %s", got, r.ID)
	}
}

// TestQueryPatternReportsDeletedPlacesBounded: a branch keeps the places
// of the latest 1,000 reports deleted; a cursor naming an older one is a
// 400, as one naming a report the branch never had.
func TestQueryPatternReportsDeletedPlacesBounded(t *testing.T) {
	t.Parallel()
	e := newQPEnv(t)
	ctx := t.Context()
	var ids []string // oldest first
	for range 1001 {
		id := e.create().ID
		ids = append(ids, id)
		if err := e.c.QueryPatternReports.Delete(ctx, e.params(id)); err != nil {
			t.Fatal(err)
		}
	}
	list := func(after string) error {
		_, err := e.c.QueryPatternReports.List(ctx, &platform.ListQueryPatternsReportsParams{Organization: e.org, Database: drDB, Branch: "main", CursorParams: platform.CursorParams{StartingAfter: after}})
		return err
	}
	apiError(t, list(ids[0]), http.StatusBadRequest, "starting_after", ids[0])
	for _, id := range []string{ids[1], ids[1000]} {
		if err := list(id); err != nil {
			t.Errorf("a cursor of deleted report %s: %v", id, err)
		}
	}
}

// TestQueryPatternReportsNotFound checks the 404s of a missing branch and
// report.
func TestQueryPatternReportsNotFound(t *testing.T) {
	t.Parallel()
	e := newQPEnv(t)
	ctx := t.Context()
	_, err := e.c.QueryPatternReports.Create(ctx, &platform.CreateQueryPatternsReportParams{Organization: e.org, Database: drDB, Branch: "nope"})
	apiError(t, err, http.StatusNotFound)
	_, err = e.c.QueryPatternReports.Get(ctx, e.params("nope"))
	apiError(t, err, http.StatusNotFound)
	apiError(t, e.c.QueryPatternReports.Delete(ctx, e.params("nope")), http.StatusNotFound)
}

// TestQueryPatternReportSnapshot checks that a pending report's generation
// survives a snapshot, and a completed report's patterns too.
func TestQueryPatternReportSnapshot(t *testing.T) {
	t.Parallel()
	e := newQPEnv(t)
	done := e.create()
	e.srv.Advance(fake.DefaultTimings().QueryPatternsReport)
	pending := e.create()
	snap, err := e.srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	srv := fake.NewServer(t)
	if err := srv.Restore(snap); err != nil {
		t.Fatal(err)
	}
	c := srv.Client()
	want, err := e.c.QueryPatternReports.Download(t.Context(), e.params(done.ID))
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.QueryPatternReports.Download(t.Context(), e.params(done.ID))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want.Patterns, got.Patterns); diff != "" {
		t.Errorf("restored patterns (-want +got):\n%s", diff)
	}
	r, err := c.QueryPatternReports.Wait(t.Context(), e.params(pending.ID))
	if err != nil || r.State != platform.QueryPatternsReportCompleted {
		t.Fatalf("restored pending report: %+v, %v; want it generated", r, err)
	}
}

func ptrTS(t time.Time) *platform.Timestamp {
	ts := platform.NewTimestamp(t)
	return &ts
}

// TestRestoreRefusesBadQPReports checks that a snapshot whose
// query-patterns reports cannot be is refused, saying why, and changes
// nothing.
func TestRestoreRefusesBadQPReports(t *testing.T) {
	t.Parallel()
	e := newQPEnv(t)
	e.create()
	e.srv.Advance(fake.DefaultTimings().QueryPatternsReport)
	e.create()
	good, err := e.srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	edit := func(fn func(map[string]any, []any) []any) []byte {
		return editSnapshot(t, good, fn, "branches", "query_patterns_reports")
	}
	// deleted edits the places of deleted reports of the branch that has
	// reports.
	deleted := func(fn func(gone map[string]any, reports []any)) []byte {
		return editSnapshot(t, good, func(_ map[string]any, branches []any) []any {
			for _, b := range branches {
				b := b.(map[string]any)
				if reports, ok := b["query_patterns_reports"].([]any); ok && len(reports) > 0 {
					gone := map[string]any{}
					fn(gone, reports)
					b["deleted_query_patterns_reports"] = gone
				}
			}
			return branches
		}, "branches")
	}
	for _, tt := range []struct {
		name string
		data []byte
		want string
	}{
		{"unknown state", edit(setField("state", "exploded")), `unknown state "exploded"`},
		{"a completed report without a finish", edit(setField("finished", "0001-01-01T00:00:00Z")), "a completed report with finished time"},
		{"a repeated seq", edit(twiceWithID("id")), "is not after the previous report's"},
		{"an actor not in the snapshot", edit(setField("actor", "nobody")), `"nobody" is not in the snapshot`},
		{"a deleted report that is also a report", deleted(func(gone map[string]any, reports []any) {
			gone[reports[0].(map[string]any)["id"].(string)] = 99
		}), "is also a report of branch main"},
		{"a deleted report at place 0", deleted(func(gone map[string]any, _ []any) { gone["gone-id"] = 0 }), "seq 0"},
		{"a deleted report beyond the places", deleted(func(gone map[string]any, _ []any) { gone["gone-id"] = uint64(1<<64 - 1) }), "is beyond"},
		{"a report beyond the places", edit(setField("seq", uint64(1<<63))), "is beyond"},
		{"a deleted report with a record's ID", deleted(func(gone map[string]any, reports []any) {
			gone[reports[0].(map[string]any)["actor"].(string)] = 99
		}), "the ID of a record"},
		{"more deleted reports than a branch keeps", deleted(func(gone map[string]any, _ []any) {
			for i := range 1001 {
				gone[fmt.Sprintf("gone%d", i)] = 100 + i
			}
		}), "beyond the 1000 a branch keeps"},
		{"a deleted report at a report's place", deleted(func(gone map[string]any, reports []any) {
			gone["gone-id"] = reports[0].(map[string]any)["seq"]
		}), "is also"},
		{"generation of a completed report", edit(func(rec map[string]any, recs []any) []any {
			pending := recs[len(recs)-1].(map[string]any)
			pending["state"], pending["finished"] = "completed", rec["finished"]
			return recs
		}), "only a pending report is generated"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			wantRestoreRefused(t, tt.data, tt.want)
		})
	}
}
