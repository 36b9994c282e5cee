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

// BenchmarkInsights serves the query insights of a branch holding the
// default limit of samples (100,000: 100 queries with 5 route tags over
// the last 24 hours), with get_branch as the baseline. Every view scans
// the samples of its window, so their cost is O(samples). record_1000
// records 1,000 more samples at the limit, dropping as many.
func BenchmarkInsights(b *testing.B) {
	srv := fake.NewServer(b)
	c, ctx, org := srv.Client(), context.Background(), srv.Org()
	if _, err := c.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: org, Name: "app", ClusterSize: "PS_10"}); err != nil {
		b.Fatal(err)
	}
	srv.Advance(24 * time.Hour)
	now := srv.Now()
	const n = 100_000
	samples := make([]fake.QuerySample, n)
	for i := range samples {
		samples[i] = fake.QuerySample{
			SQL:      fmt.Sprintf("SELECT * FROM t%d WHERE id = %d", i%100, i),
			Tags:     map[string]string{"route": fmt.Sprintf("r%d", i%5)},
			Duration: time.Duration(1+i%50) * time.Millisecond, RowsRead: int64(i % 10), RowsReturned: 1,
			Time: now.Add(-time.Duration(n-i) * 864 * time.Millisecond),
		}
	}
	if err := srv.RecordQueries(org, "app", "main", samples...); err != nil {
		b.Fatal(err)
	}
	fp, _ := fake.QueryFingerprint("SELECT * FROM t7 WHERE id = 1")
	auth := srv.AdminToken().Authorization()
	const main = "/v1/organizations/acme/databases/app/branches/main"
	for _, bc := range []struct{ name, target string }{
		{"baseline_get_branch", main},
		{"list_branch_queries", main + "/insights"},
		{"get_query_summary", main + "/insights/" + fp + "/summary?keyspace=app"},
		{"list_branch_query_tags", main + "/insights/tags"},
		{"list_branch_anomalies", main + "/insights/anomalies"},
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
	b.Run("record_1000", func(b *testing.B) {
		batch := samples[:1000]
		for i := range batch {
			batch[i].Time = time.Time{}
		}
		b.ReportAllocs()
		for b.Loop() {
			if err := srv.RecordQueries(org, "app", "main", batch...); err != nil {
				b.Fatal(err)
			}
		}
	})
}
