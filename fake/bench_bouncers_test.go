package fake_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// BenchmarkBouncerReads serves the bouncer reads of a PostgreSQL branch
// with 1,000 bouncers, each with a completed resize, against get_branch as
// the baseline: one bouncer, a page of 25 bouncers (first and last), and a
// page of 25 of the branch's 1,000 resize requests. A page costs its 25
// items, whatever the page's number. The requests go straight to the
// server's handler, as in BenchmarkConfigurationReads.
func BenchmarkBouncerReads(b *testing.B) {
	srv := fake.NewServer(b)
	c, ctx, org := srv.Client(), b.Context(), srv.Org()
	if _, err := c.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: org, Name: "pg", Kind: platform.KindPostgreSQL}); err != nil {
		b.Fatal(err)
	}
	srv.Advance(time.Minute)
	const n = 1000
	for i := range n {
		if _, err := c.Bouncers.Create(ctx, &platform.CreateBouncerParams{Organization: org, Database: "pg", Branch: "main", Name: fmt.Sprintf("pool-%d", i)}); err != nil {
			b.Fatal(err)
		}
	}
	tm := fake.DefaultTimings()
	srv.Advance(tm.BouncerReady)
	for i := range n {
		if _, err := c.Bouncers.Resize(ctx, &platform.ResizeBouncerParams{Organization: org, Database: "pg", Branch: "main", Bouncer: fmt.Sprintf("pool-%d", i), ReplicasPerCell: platform.Ptr(2)}); err != nil {
			b.Fatal(err)
		}
	}
	srv.Advance(tm.BouncerResizeStart + tm.BouncerResize)
	auth := srv.AdminToken().Authorization()
	const branch = "/v1/organizations/acme/databases/pg/branches/main"
	for _, bc := range []struct{ name, target string }{
		{"baseline_get_branch", branch},
		{"get_bouncer", branch + "/bouncers/pool-500"},
		{"list_bouncers_first_page", branch + "/bouncers"},
		{"list_bouncers_last_page", branch + "/bouncers?page=40"},
		{"list_branch_bouncer_resizes_last_page", branch + "/bouncer-resizes?page=40"},
	} {
		b.Run(bc.name, func(b *testing.B) { benchServe(b, srv, auth, bc.target) })
	}
}
