package fake_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// BenchmarkMetrics100k serves the metrics of a branch that has recorded
// 100,000 queries of 50 patterns over a day, with get_branch as the
// baseline: a day's series of the whole branch, per query pattern, per
// tag and per tablet, in 60 buckets, and the tables' storage. Each scans
// the samples once. The requests go straight to the server's handler, as
// in BenchmarkListBranches10k.
func BenchmarkMetrics100k(b *testing.B) {
	srv := fake.NewServer(b)
	c, ctx, org := srv.Client(), context.Background(), srv.Org()
	if _, err := c.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: org, Name: "app"}); err != nil {
		b.Fatal(err)
	}
	if err := srv.AddKeyspace(org, "app", "main", "sharded", 4); err != nil {
		b.Fatal(err)
	}
	start := srv.Now()
	srv.Advance(24 * time.Hour)
	samples := make([]fake.QuerySample, 100_000)
	for i := range samples {
		samples[i] = fake.QuerySample{
			SQL:      fmt.Sprintf("select * from t%d where id = %d", i%50, i),
			Keyspace: "sharded", Tags: map[string]string{"route": fmt.Sprintf("r%d", i%7)},
			RowsRead: 3, RowsReturned: 1, Duration: time.Duration(i%100) * time.Millisecond,
			Time: start.Add(time.Duration(i) * 864 * time.Millisecond),
		}
	}
	if err := srv.RecordQueries(org, "app", "main", samples...); err != nil {
		b.Fatal(err)
	}
	auth := srv.AdminToken().Authorization()
	const main = "/v1/organizations/acme/databases/app/branches/main"
	const day = "period=1d&steps=60"
	for _, bc := range []struct{ name, target string }{
		{"baseline_get_branch", main},
		{"branch", main + "/metrics?metrics=queries&metrics=latency_p99&" + day},
		{"query", main + "/metrics/query?metrics=queries&metrics=latency_p99&" + day},
		{"tag", main + "/metrics/tag?metrics=queries&" + day},
		{"tablets", main + "/metrics/tablets?metrics=pod_queries&" + day},
		{"tables", main + "/metrics/keyspace-tables"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			get := func() *httptest.ResponseRecorder {
				req := httptest.NewRequest(http.MethodGet, bc.target, nil)
				req.Header.Set("Authorization", auth)
				rec := httptest.NewRecorder()
				srv.ServeHTTP(rec, req)
				return rec
			}
			if rec := get(); rec.Code != http.StatusOK {
				b.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
			b.ReportAllocs()
			for b.Loop() {
				get()
			}
		})
	}
}
