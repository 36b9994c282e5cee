package platform_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// deployFlow drives a schema change to production through the SDK, as a
// consumer's test would against the fake: a database, safe migrations on
// main, a development branch with a change, a deploy request with the
// cutover gated, deploy, the gate, apply, and the revert window skipped.
// It returns the finished deploy request.
func deployFlow(ctx context.Context, srv *fake.Server) (*platform.DeployRequest, error) {
	c, org, db := srv.Client(), srv.Org(), "flow"
	if _, err := c.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: org, Name: db, ClusterSize: "PS_10"}); err != nil {
		return nil, err
	}
	if _, err := c.Databases.Wait(ctx, &platform.GetDatabaseParams{Organization: org, Database: db}); err != nil {
		return nil, err
	}
	if err := srv.PushSchema(org, db, "main", "CREATE TABLE users (id bigint NOT NULL, PRIMARY KEY (id))"); err != nil {
		return nil, err
	}
	if _, err := c.Branches.EnableSafeMigrations(ctx, &platform.EnableSafeMigrationsParams{Organization: org, Database: db, Branch: "main"}); err != nil {
		return nil, err
	}
	if _, err := c.Branches.Create(ctx, &platform.CreateBranchParams{Organization: org, Database: db, Name: "dev", ParentBranch: "main"}); err != nil {
		return nil, err
	}
	if _, err := c.Branches.Wait(ctx, &platform.GetBranchParams{Organization: org, Database: db, Branch: "dev"}); err != nil {
		return nil, err
	}
	if err := srv.PushSchema(org, db, "dev", "CREATE TABLE users (id bigint NOT NULL, email varchar(255), PRIMARY KEY (id))"); err != nil {
		return nil, err
	}
	dr, err := c.DeployRequests.Create(ctx, &platform.CreateDeployRequestParams{Organization: org, Database: db, Branch: "dev", IntoBranch: "main", AutoCutover: platform.Ptr(false)})
	if err != nil {
		return nil, err
	}
	p := &platform.GetDeploymentParams{Organization: org, Database: db, Number: dr.Number}
	steps := []struct {
		act  func() error
		wait platform.DeploymentState
	}{
		{nil, platform.DeploymentReady},
		{func() error {
			_, err := c.DeployRequests.Deploy(ctx, &platform.DeployParams{Organization: org, Database: db, Number: dr.Number})
			return err
		}, platform.DeploymentPendingCutover},
		{func() error { _, err := c.DeployRequests.ApplyDeploy(ctx, p); return err }, platform.DeploymentCompletePendingRevert},
	}
	for _, st := range steps {
		if st.act != nil {
			if err := st.act(); err != nil {
				return nil, err
			}
		}
		if _, err := c.DeployRequests.WaitDeployment(ctx, p, st.wait); err != nil {
			return nil, err
		}
	}
	dr, err = c.DeployRequests.SkipRevert(ctx, p)
	if err != nil {
		return nil, err
	}
	if dr.DeploymentState != platform.DeploymentComplete || dr.State != platform.DeployRequestClosed {
		return nil, fmt.Errorf("deploy request #%d ended %s (%s), want complete (closed)", dr.Number, dr.DeploymentState, dr.State)
	}
	tables, err := c.Branches.GetSchema(ctx, &platform.GetBranchSchemaParams{Organization: org, Database: db, Branch: "main"})
	if err != nil {
		return nil, err
	}
	if len(tables.Tables) != 1 || !strings.Contains(tables.Tables[0].Raw, "email") {
		return nil, fmt.Errorf("main's schema after the deployment: %v", tables.Tables)
	}
	return dr, nil
}

func TestDeployFlow(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	start := srv.Now()
	dr, err := deployFlow(t.Context(), srv)
	if err != nil {
		t.Fatal(err)
	}
	if dr.DeployedAt == nil || dr.Deployment.CutoverAt == nil {
		t.Errorf("deployed_at %v, cutover_at %v; want both set", dr.DeployedAt, dr.Deployment.CutoverAt)
	}
	// Each waiter polls once: before the poll, the fake's clock moves
	// through the transitions until the poll would show what the waiter
	// waits for, and no further: the database (5s) and the branch (5s) get
	// ready, the deployment checks (1s), is submitted (1s), starts (1s),
	// copies (10s) and cuts over (1s).
	polls := map[string]int{}
	for _, r := range srv.Requests() {
		polls[r.Operation]++
	}
	want := map[string]int{"get_database": 1, "get_branch": 1, "get_deployment": 3}
	for op, n := range want {
		if polls[op] != n {
			t.Errorf("%s polled %d times, want %d", op, polls[op], n)
		}
	}
	if got, want := srv.Now().Sub(start), 24*time.Second; got != want {
		t.Errorf("the clock moved %s, want %s: to each transition and no further", got, want)
	}
}

// BenchmarkDeployFlow measures the whole deploy flow of deployFlow through
// the SDK, each iteration on a fresh fake (started and closed inside the
// timed loop): twenty requests over loopback (reported as round-trips/op)
// and the virtual clock's transitions. Its baseline, in the same run, is the
// smallest consumer test there is: start a fake, make one call, close it.
func BenchmarkDeployFlow(b *testing.B) {
	ctx := b.Context()
	b.Run("flow", func(b *testing.B) {
		b.ReportAllocs()
		trips := 0
		for b.Loop() {
			srv, err := fake.New()
			if err != nil {
				b.Fatal(err)
			}
			if _, err := deployFlow(ctx, srv); err != nil {
				b.Fatal(err)
			}
			trips += len(srv.Requests())
			srv.Close()
		}
		b.ReportMetric(float64(trips)/float64(b.N), "round-trips/op")
	})
	b.Run("baseline_start_one_call", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			srv, err := fake.New()
			if err != nil {
				b.Fatal(err)
			}
			if _, err := srv.Client().Organizations.Get(ctx, &platform.GetOrganizationParams{Organization: srv.Org()}); err != nil {
				b.Fatal(err)
			}
			srv.Close()
		}
	})
}
