package fake_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"testing"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// scaleDatabases is how many databases the scale benchmarks create.
const scaleDatabases = 100_000

// scaleHeapProfile names a file to which BenchmarkScale100k writes a heap
// profile while the world is alive (-memprofile writes one only after the
// benchmark's server is closed): see BENCHMARKS.md.
var scaleHeapProfile = flag.String("scale.heapprofile", "", "write a heap profile of BenchmarkScale100k's world to this file")

// scaleServe sends one request straight to the server's handler (the real
// API, without the network) and fails unless it answers want.
func scaleServe(tb testing.TB, srv *fake.Server, auth, method, target, body string, want int) []byte {
	tb.Helper()
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	req.Header.Set("Authorization", auth)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, req)
	if rec.Code != want {
		tb.Fatalf("%s %s: status %d, want %d: %s", method, target, rec.Code, want, rec.Body)
	}
	return rec.Body.Bytes()
}

// scaleDatabaseName is the name of the i-th database of a scale world.
func scaleDatabaseName(i int) string { return fmt.Sprintf("db-%06d", i) }

// scaleWorld starts a fake and creates n databases in it through the API
// (create_database with the admin token, as a user's test does), then moves
// the clock until every database and its production branch is ready. The
// caller closes it, and drops it before the next world: a server of
// NewServer would stay reachable from the benchmark's cleanups until every
// run of -count is over.
func scaleWorld(tb testing.TB, n int) *fake.Server {
	tb.Helper()
	srv, err := fake.New()
	if err != nil {
		tb.Fatal(err)
	}
	built := false
	defer func() {
		if !built { // a request failed
			srv.Close()
		}
	}()
	auth := srv.AdminToken().Authorization()
	target := "/v1/organizations/" + srv.Org() + "/databases"
	for i := range n {
		scaleServe(tb, srv, auth, http.MethodPost, target, `{"name":"`+scaleDatabaseName(i)+`","cluster_size":"PS_10"}`, http.StatusCreated)
	}
	srv.Advance(fake.DefaultTimings().DatabaseReady)
	built = true
	return srv
}

// liveHeap returns the bytes of live heap after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkScale100k creates 100,000 databases, each with its production
// branch, through the API, and reports the live heap after a collection
// with the world still held: MB-heap (the whole process's live heap) and
// B-heap/db (what each database adds, over the heap before the first was
// created). ns/op is the time to create the 100,000 databases and move the
// clock until they are ready.
func BenchmarkScale100k(b *testing.B) {
	var srv *fake.Server
	var before uint64
	for b.Loop() {
		b.StopTimer()
		if srv != nil {
			srv.Close()
			srv = nil
		}
		before = liveHeap()
		b.StartTimer()
		srv = scaleWorld(b, scaleDatabases)
	}
	defer srv.Close()
	after := liveHeap()
	if *scaleHeapProfile != "" {
		writeHeapProfile(b, *scaleHeapProfile)
	}
	// The world must still be whole: every database is listed.
	body := scaleServe(b, srv, srv.AdminToken().Authorization(), http.MethodGet,
		"/v1/organizations/"+srv.Org()+"/databases?per_page=1", "", http.StatusOK)
	var page platform.Page[platform.Database]
	if err := json.Unmarshal(body, &page); err != nil || len(page.Items) != 1 || page.TotalCount == nil || *page.TotalCount != scaleDatabases {
		b.Fatalf("first page of the databases: %s (%v)", body, err)
	}
	b.ReportMetric(float64(after)/(1<<20), "MB-heap")
	b.ReportMetric(float64(after-before)/scaleDatabases, "B-heap/db")
	runtime.KeepAlive(srv)
}

// writeHeapProfile writes a heap profile to path.
func writeHeapProfile(tb testing.TB, path string) {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkListScoped lists databases in an organization of 100,000: the
// admin's first page (the baseline: a page cut from the ordered index),
// a token granted read_database on 10 of them listing them (cut from the
// token's own grants), and, for the record, the admin's ?q= search, a scan
// of every database. The requests go straight to the server's handler, so
// that the figures are the fake's own work.
func BenchmarkListScoped(b *testing.B) {
	const granted = 10
	srv := scaleWorld(b, scaleDatabases)
	defer srv.Close()
	admin := srv.AdminToken().Authorization()
	tokens := "/v1/organizations/" + srv.Org() + "/service-tokens"
	var tok struct {
		ID    string `json:"id"`
		Token string `json:"token"`
	}
	if err := json.Unmarshal(scaleServe(b, srv, admin, http.MethodPost, tokens, `{"name":"scoped"}`, http.StatusOK), &tok); err != nil {
		b.Fatal(err)
	}
	var want []string
	for i := range granted { // spread over the list: the first, the last, and between
		name := scaleDatabaseName(i * (scaleDatabases - 1) / (granted - 1))
		want = append(want, name)
		scaleServe(b, srv, admin, http.MethodPost, tokens+"/"+tok.ID+"/access", `{"database":"`+name+`","access":["read_database"]}`, http.StatusOK)
	}
	list := "/v1/organizations/" + srv.Org() + "/databases"
	for _, bc := range []struct {
		name, auth, query string
		items, total      int
	}{
		{"baseline_admin_first_page", admin, "", 25, scaleDatabases},
		{"scoped_10_grants", tok.ID + ":" + tok.Token, "", granted, granted},
		{"admin_q_full_scan", admin, "?q=db-09999", 10, 10},
	} {
		b.Run(bc.name, func(b *testing.B) {
			body := scaleServe(b, srv, bc.auth, http.MethodGet, list+bc.query, "", http.StatusOK)
			var page platform.Page[platform.Database]
			if err := json.Unmarshal(body, &page); err != nil || len(page.Items) != bc.items || page.TotalCount == nil || *page.TotalCount != bc.total {
				b.Fatalf("%s: %s (%v)", bc.name, body, err)
			}
			if bc.name == "scoped_10_grants" {
				if got := slices.Sorted(slices.Values(dbNames(page.Items))); !slices.Equal(got, want) { // created at one time: in ID order
					b.Fatalf("the token lists %v, want %v", got, want)
				}
			}
			b.ReportAllocs()
			for b.Loop() {
				scaleServe(b, srv, bc.auth, http.MethodGet, list+bc.query, "", http.StatusOK)
			}
		})
	}
}
