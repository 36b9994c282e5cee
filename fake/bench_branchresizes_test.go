package fake_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// BenchmarkBranchChangeRequests serves a PostgreSQL branch's change
// requests: a page of 25 completed ones, one of them, and the upsert of the
// queued one (a PATCH that validates a cluster size and a parameter), with
// get_branch as the baseline. The requests go straight to the server's
// handler, as in BenchmarkConfigurationReads.
func BenchmarkBranchChangeRequests(b *testing.B) {
	srv := fake.NewServer(b)
	c, ctx := srv.Client(), context.Background()
	if _, err := c.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: srv.Org(), Name: "pg", Kind: platform.KindPostgreSQL}); err != nil {
		b.Fatal(err)
	}
	tm := fake.DefaultTimings()
	srv.Advance(tm.DatabaseReady)
	var last string
	for i := range 26 {
		size := []string{"PS_20", "PS_40"}[i%2]
		r, err := c.BranchChanges.UpdateChange(ctx, &platform.UpdateBranchChangeRequestParams{Organization: srv.Org(), Database: "pg", Branch: "main", ClusterSize: &size})
		if err != nil {
			b.Fatal(err)
		}
		last = r.ID
		if i < 25 {
			srv.Advance(tm.BranchChangeStart + tm.BranchChangeRun)
		}
	}
	auth := srv.AdminToken().Authorization()
	const branch = "/v1/organizations/acme/databases/pg/branches/main"
	upsert := []string{
		`{"cluster_size":"PS_80","parameters":{"pgconf":{"max_connections":"300"}}}`,
		`{"cluster_size":"PS_40","parameters":{"pgconf":{"max_connections":"400"}}}`,
	}
	for _, bc := range []struct{ name, method, target string }{
		{"baseline_get_branch", http.MethodGet, branch},
		{"list_branch_change_requests_25", http.MethodGet, branch + "/changes"},
		{"get_branch_change_request", http.MethodGet, branch + "/changes/" + last},
		{"update_branch_change_request", http.MethodPatch, branch + "/changes"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			n := 0
			do := func() *httptest.ResponseRecorder {
				var body *strings.Reader
				if bc.method == http.MethodPatch {
					body, n = strings.NewReader(upsert[n%2]), n+1
				} else {
					body = strings.NewReader("")
				}
				req := httptest.NewRequest(bc.method, bc.target, body)
				req.Header.Set("Authorization", auth)
				rec := httptest.NewRecorder()
				srv.ServeHTTP(rec, req)
				return rec
			}
			if rec := do(); rec.Code != http.StatusOK {
				b.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
			b.ReportAllocs()
			for b.Loop() {
				do()
			}
		})
	}
}
