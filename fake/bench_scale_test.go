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
// the clock until every database and its production branch is ready.
func scaleWorld(tb testing.TB, n int) *fake.Server {
	tb.Helper()
	srv := fake.NewServer(tb)
	auth := srv.AdminToken().Authorization()
	target := "/v1/organizations/" + srv.Org() + "/databases"
	for i := range n {
		scaleServe(tb, srv, auth, http.MethodPost, target, `{"name":"`+scaleDatabaseName(i)+`","cluster_size":"PS_10"}`, http.StatusCreated)
	}
	srv.Advance(fake.DefaultTimings().DatabaseReady)
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
