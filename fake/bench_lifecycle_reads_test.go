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

// BenchmarkSwitchoverAndMaintenanceReads serves the reads of a PostgreSQL
// branch with 100 finished switchovers and a database with 100 finished
// maintenance windows, with get_branch as the baseline: a page of 25
// switchovers or windows, one switchover, and the schedule, which is
// derived on each request. The requests go straight to the server's
// handler, as in BenchmarkListBranches10k.
func BenchmarkSwitchoverAndMaintenanceReads(b *testing.B) {
	srv := fake.NewServer(b)
	c, ctx, org := srv.Client(), context.Background(), srv.Org()
	if _, err := c.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: org, Name: "pg", Kind: platform.KindPostgreSQL}); err != nil {
		b.Fatal(err)
	}
	srv.Advance(5 * time.Second)
	tm := fake.DefaultTimings()
	var last string
	for range 100 {
		sw, err := c.Switchovers.Create(ctx, &platform.CreateSwitchoverParams{Organization: org, Database: "pg", Branch: "main"})
		if err != nil {
			b.Fatal(err)
		}
		srv.Advance(tm.SwitchoverStart + tm.SwitchoverRun)
		if err := c.Maintenance.Run(ctx, &platform.RunBranchMaintenanceParams{Organization: org, Database: "pg", Branch: "main"}); err != nil {
			b.Fatal(err)
		}
		srv.Advance(tm.Maintenance)
		last = sw.ID
	}
	page, err := c.Maintenance.ListSchedules(ctx, &platform.ListMaintenanceSchedulesParams{Organization: org, Database: "pg"})
	if err != nil {
		b.Fatal(err)
	}
	schedule := "/v1/organizations/acme/databases/pg/maintenance-schedules/" + page.Items[0].ID
	const main = "/v1/organizations/acme/databases/pg/branches/main"
	benchGets(b, srv, []handlerGet{
		{"baseline_get_branch", main},
		{"list_switchovers", main + "/switchovers?page=2"},
		{"get_switchover", main + "/switchovers/" + last},
		{"get_maintenance_schedule", schedule},
		{"list_maintenance_windows", schedule + "/windows?page=2"},
	})
}

// handlerGet is a sub-benchmark of benchGets: a GET of target.
type handlerGet struct{ name, target string }

// benchGets runs each GET as a sub-benchmark with the admin token, sent
// straight to the server's handler; it fails unless the GET answers 200.
func benchGets(b *testing.B, srv *fake.Server, gets []handlerGet) {
	auth := srv.AdminToken().Authorization()
	for _, bc := range gets {
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
