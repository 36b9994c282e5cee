package fake_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// BenchmarkConfigurationReads serves the catalogue reads of a PostgreSQL
// branch (its parameters and extensions, the cluster sizes) and a MySQL
// branch's infrastructure (one shard, and 64 shards of three tablets), with
// get_branch as the baseline. They are rendered from the catalogues on
// each request, so their cost is rendering and JSON for the catalogue's
// size (22 parameters, 7 extensions, 11 sizes, the pods). The requests go
// straight to the server's handler, as in BenchmarkListBranches10k.
func BenchmarkConfigurationReads(b *testing.B) {
	srv := fake.NewServer(b)
	c, ctx := srv.Client(), context.Background()
	for _, kind := range []platform.DatabaseKind{platform.KindPostgreSQL, platform.KindMySQL} {
		if _, err := c.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: srv.Org(), Name: string(kind), Kind: kind}); err != nil {
			b.Fatal(err)
		}
	}
	srv.Advance(5 * time.Second)
	if _, err := c.Branches.Create(ctx, &platform.CreateBranchParams{Organization: srv.Org(), Database: "mysql", Name: "sharded"}); err != nil {
		b.Fatal(err)
	}
	srv.Advance(5 * time.Second)
	if err := srv.AddKeyspace(srv.Org(), "mysql", "sharded", "big", 64); err != nil {
		b.Fatal(err)
	}
	auth := srv.AdminToken().Authorization()
	const pg, my = "/v1/organizations/acme/databases/postgresql/branches/main", "/v1/organizations/acme/databases/mysql/branches/"
	for _, bc := range []struct{ name, target string }{
		{"baseline_get_branch", pg},
		{"list_parameters", pg + "/parameters"},
		{"list_extensions", pg + "/extensions"},
		{"list_cluster_size_skus", "/v1/organizations/acme/cluster-size-skus?rates=true"},
		{"infrastructure_1_shard", my + "main/infrastructure"},
		{"infrastructure_64_shards", my + "sharded/infrastructure"},
	} {
		b.Run(bc.name, func(b *testing.B) { benchServe(b, srv, auth, bc.target) })
	}
}

// benchServe serves GET target with the Authorization header auth straight
// to srv's handler, once to check it answers 200, then in the benchmark's
// loop.
func benchServe(b *testing.B, srv *fake.Server, auth, target string) {
	b.Helper()
	if rec := benchRecord(srv, auth, target); rec.Code != http.StatusOK {
		b.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	b.ReportAllocs()
	for b.Loop() {
		benchRecord(srv, auth, target)
	}
}

// benchRecord serves GET target with the Authorization header auth
// straight to srv's handler, and returns the response.
func benchRecord(srv *fake.Server, auth, target string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, target, nil)
	req.Header.Set("Authorization", auth)
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, req)
	return rec
}
