package fake_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// BenchmarkRecommendationAndThrottlerReads serves the reads of schema
// recommendations, throttlers and storage checks on app, whose main holds
// 100 tables with a duplicate index each (100 open recommendations), with
// get_database as the baseline: a page of 25 recommendations, one
// recommendation, the database's and a deploy request's throttler
// ratios, the deploy request itself (its deployment renders its ratios)
// and its storage check. The requests go straight to the server's
// handler, as in BenchmarkSwitchoverAndMaintenanceReads.
func BenchmarkRecommendationAndThrottlerReads(b *testing.B) {
	srv := fake.NewServer(b)
	c, ctx, org := srv.Client(), context.Background(), srv.Org()
	must := func(err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	_, err := c.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: org, Name: "app"})
	must(err)
	srv.Advance(5 * time.Second)
	for i := range 100 {
		must(srv.PushSchema(org, "app", "main", fmt.Sprintf("CREATE TABLE t%03d (id bigint NOT NULL, b int, PRIMARY KEY (id), KEY b (b), KEY b2 (b))", i)))
	}
	_, err = c.Branches.EnableSafeMigrations(ctx, &platform.EnableSafeMigrationsParams{Organization: org, Database: "app", Branch: "main"})
	must(err)
	_, err = c.Branches.Create(ctx, &platform.CreateBranchParams{Organization: org, Database: "app", Name: "dev", ParentBranch: "main"})
	must(err)
	srv.Advance(5 * time.Second)
	must(srv.PushSchema(org, "app", "dev", "CREATE TABLE t050 (id bigint NOT NULL, b int, PRIMARY KEY (id), KEY b (b))"))
	_, err = c.DeployRequests.Create(ctx, &platform.CreateDeployRequestParams{Organization: org, Database: "app", Branch: "dev", IntoBranch: "main"})
	must(err)
	srv.Advance(time.Second)
	const app = "/v1/organizations/acme/databases/app"
	benchGets(b, srv, []handlerGet{
		{"baseline_get_database", app},
		{"list_schema_recommendations", app + "/schema-recommendations?page=2"},
		{"get_schema_recommendation", app + "/schema-recommendations/50"},
		{"get_database_throttler", app + "/throttler"},
		{"get_deploy_request", app + "/deploy-requests/1"},
		{"get_deploy_request_throttler", app + "/deploy-requests/1/throttler"},
		{"check_deploy_request_storage", app + "/deploy-requests/1/storage-check"},
	})
}
