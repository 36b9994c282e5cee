package fake_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// wantUnreachable checks that a waiter's err is an *UnreachableError
// equal to want, and that the wait moved the virtual clock by less than a
// minute from t0: it failed at once rather than running the clock on.
func wantUnreachable(t *testing.T, srv *fake.Server, t0 time.Time, err error, want platform.UnreachableError) {
	t.Helper()
	var ue *platform.UnreachableError
	if !errors.As(err, &ue) {
		t.Fatalf("the waiter returned %v, want an *UnreachableError", err)
	}
	if diff := cmp.Diff(want, *ue); diff != "" {
		t.Errorf("the UnreachableError (-want +got):\n%s", diff)
	}
	if moved := srv.Now().Sub(t0); moved > time.Minute {
		t.Errorf("the clock moved %s before the waiter gave up, want at once", moved)
	}
}

// TestWaitDeploymentUnreachable is the case: a deploy request
// with auto-cutover off stops in pending_cutover until it is applied, so a
// wait for complete on a fake's client fails at once, naming the
// deployment, its state and the call that would move it, even on a
// context without a deadline; after ApplyDeploy the same wait reaches its
// state.
func TestWaitDeploymentUnreachable(t *testing.T) {
	t.Parallel()
	e := newDREnv(t, false)
	e.branch("dev", "CREATE TABLE users (id bigint NOT NULL, email varchar(255), PRIMARY KEY (id))")
	dr := e.open(platform.CreateDeployRequestParams{Branch: "dev", AutoCutover: platform.Ptr(false)})
	p := &platform.GetDeploymentParams{Organization: e.org, Database: drDB, Number: dr.Number}
	if _, err := e.c.DeployRequests.WaitDeployment(t.Context(), p, platform.DeploymentReady); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.DeployRequests.Deploy(t.Context(), &platform.DeployParams{Organization: e.org, Database: drDB, Number: dr.Number}); err != nil {
		t.Fatal(err)
	}
	t0 := e.srv.Now()
	d, err := e.c.DeployRequests.WaitDeployment(context.Background(), p, platform.DeploymentComplete)
	wantUnreachable(t, e.srv, t0, err, platform.UnreachableError{
		Resource: "deployment of deploy request #1",
		State:    "pending_cutover",
		Reason:   "it waits to be applied (DeployRequests.ApplyDeploy)",
	})
	if d == nil || d.State != platform.DeploymentPendingCutover {
		t.Errorf("the waiter returned %v, want the deployment it last saw", d)
	}
	if _, err := e.c.DeployRequests.ApplyDeploy(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.DeployRequests.WaitDeployment(t.Context(), p, platform.DeploymentCompletePendingRevert); err != nil {
		t.Errorf("after ApplyDeploy: %v", err)
	}
}

// TestDataImportWaitUnreachable: an import running as a replica waits for
// MakePrimary, so a wait for ready ends at once, saying so; after the call,
// a wait for a state the clock reaches works.
func TestDataImportWaitUnreachable(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, fake.ImportSource{Reachable: true})
	e.start(t, "imported")
	p := e.ref("imported")
	if _, err := e.c.DataImports.Wait(t.Context(), p, platform.DataImportSwitchTrafficPending); err != nil {
		t.Fatal(err)
	}
	t0 := e.srv.Now()
	_, err := e.c.DataImports.Wait(context.Background(), p, platform.DataImportReady)
	wantUnreachable(t, e.srv, t0, err, platform.UnreachableError{
		Resource: "data import of database imported",
		State:    "switch_traffic_workflow_pending",
		Reason:   "it runs as a replica until it is made primary or cancelled (DataImports.MakePrimary, DataImports.Cancel)",
	})
	if _, err := e.c.DataImports.MakePrimary(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.DataImports.Wait(t.Context(), p, platform.DataImportSwitchTrafficCompleted); err != nil {
		t.Errorf("after MakePrimary: %v", err)
	}
}

// TestWorkflowWaitUnreachable checks the waiter of a workflow, whose
// polls carry no condition: a running workflow waits for its next step, so
// a wait for completed fails at once, and a wait for a state the clock
// reaches still works.
func TestWorkflowWaitUnreachable(t *testing.T) {
	t.Parallel()
	e := newWFEnv(t)
	wf := wfDrive(t, e.srv, nil, wfCreate(e.srv), platform.WorkflowRunning)
	ref := wfRef(e.srv, wf.Number)
	t0 := e.srv.Now()
	_, err := e.c.Workflows.Wait(context.Background(), ref, platform.WorkflowCompleted)
	wantUnreachable(t, e.srv, t0, err, platform.UnreachableError{
		Resource: "workflow 1",
		State:    "running",
		Reason:   "it waits for its next step (Workflows.VerifyData, Workflows.SwitchReplicas, Workflows.SwitchPrimaries)",
	})
	if _, err := e.c.Workflows.VerifyData(t.Context(), ref); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.Workflows.Wait(t.Context(), ref, platform.WorkflowVerifiedData); err != nil {
		t.Errorf("after VerifyData: %v", err)
	}
}

// dropTransitions restores srv from its own snapshot without the pending
// transitions: what was on its way stays where it is for good, as if only
// a call of the API could move it.
func dropTransitions(t *testing.T, srv *fake.Server) {
	t.Helper()
	fake.DropTransitions(srv)
}

// TestWaitersOnTheFake checks waiters whose resource the clock always
// brings to their state: on the fake they reach it, and with the pending
// transitions dropped (a state only an API call could leave) they fail at
// once with an *UnreachableError naming the resource and its state.
func TestWaitersOnTheFake(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		resource string
		state    string
		// start makes the resource on its way and returns the wait.
		start func(t *testing.T, srv *fake.Server, c *platform.Client) func(context.Context) error
	}{
		{"DataImports.Wait", "data import of database imported", "prepare_data_copy_pending", func(t *testing.T, srv *fake.Server, c *platform.Client) func(context.Context) error {
			if err := srv.SetImportSource(srv.Org(), opImportHost, fake.ImportSource{Reachable: true}); err != nil {
				t.Fatal(err)
			}
			if _, err := c.DataImports.Start(t.Context(), &platform.StartDataImportParams{Organization: srv.Org(), DatabaseName: "imported",
				Connection: platform.DataImportConnection{Hostname: opImportHost, Database: "legacy", Username: "u"}}); err != nil {
				t.Fatal(err)
			}
			return func(ctx context.Context) error {
				_, err := c.DataImports.Wait(ctx, &platform.GetDataImportParams{Organization: srv.Org(), Database: "imported"}, platform.DataImportSwitchTrafficPending)
				return err
			}
		}},
		{"Databases.Wait", "database app", "pending", func(t *testing.T, srv *fake.Server, c *platform.Client) func(context.Context) error {
			mustDB(t, srv, "app")
			return func(ctx context.Context) error {
				_, err := c.Databases.Wait(ctx, &platform.GetDatabaseParams{Organization: srv.Org(), Database: "app"})
				return err
			}
		}},
		{"Branches.Wait", "branch dev", "pending", func(t *testing.T, srv *fake.Server, c *platform.Client) func(context.Context) error {
			mustDB(t, srv, "app")
			srv.Advance(time.Minute)
			if _, err := c.Branches.Create(t.Context(), &platform.CreateBranchParams{Organization: srv.Org(), Database: "app", Name: "dev"}); err != nil {
				t.Fatal(err)
			}
			return func(ctx context.Context) error {
				_, err := c.Branches.Wait(ctx, &platform.GetBranchParams{Organization: srv.Org(), Database: "app", Branch: "dev"})
				return err
			}
		}},
		{"Keyspaces.Wait", "keyspace extra", "not ready", func(t *testing.T, srv *fake.Server, c *platform.Client) func(context.Context) error {
			mustDB(t, srv, "app")
			srv.Advance(time.Minute)
			if _, err := c.Keyspaces.Create(t.Context(), &platform.CreateKeyspaceParams{Organization: srv.Org(), Database: "app", Branch: "main", Name: "extra", ClusterSize: "PS_10"}); err != nil {
				t.Fatal(err)
			}
			return func(ctx context.Context) error {
				_, err := c.Keyspaces.Wait(ctx, &platform.GetKeyspaceParams{Organization: srv.Org(), Database: "app", Branch: "main", Keyspace: "extra"})
				return err
			}
		}},
		{"Backups.Wait", "backup ", "pending", func(t *testing.T, srv *fake.Server, c *platform.Client) func(context.Context) error {
			mustDB(t, srv, "app")
			srv.Advance(time.Minute)
			bk, err := c.Backups.Create(t.Context(), &platform.CreateBackupParams{Organization: srv.Org(), Database: "app", Branch: "main"})
			if err != nil {
				t.Fatal(err)
			}
			return func(ctx context.Context) error {
				_, err := c.Backups.Wait(ctx, &platform.GetBackupParams{Organization: srv.Org(), Database: "app", Branch: "main", ID: bk.ID})
				return err
			}
		}},
		{"Switchovers.Wait", "switchover ", "", func(t *testing.T, srv *fake.Server, c *platform.Client) func(context.Context) error {
			pgDB(t, srv, c)
			sw, err := c.Switchovers.Create(t.Context(), &platform.CreateSwitchoverParams{Organization: srv.Org(), Database: "pg", Branch: "main"})
			if err != nil {
				t.Fatal(err)
			}
			return func(ctx context.Context) error {
				_, err := c.Switchovers.Wait(ctx, &platform.GetSwitchoverParams{Organization: srv.Org(), Database: "pg", Branch: "main", ID: sw.ID})
				return err
			}
		}},
		{"Bouncers.Wait", "bouncer pool", "unchanged", func(t *testing.T, srv *fake.Server, c *platform.Client) func(context.Context) error {
			pgDB(t, srv, c)
			if _, err := c.Bouncers.Create(t.Context(), &platform.CreateBouncerParams{Organization: srv.Org(), Database: "pg", Branch: "main", Name: "pool"}); err != nil {
				t.Fatal(err)
			}
			return func(ctx context.Context) error {
				_, err := c.Bouncers.Wait(ctx, &platform.GetBouncerParams{Organization: srv.Org(), Database: "pg", Branch: "main", Bouncer: "pool"})
				return err
			}
		}},
		{"QueryPatternReports.Wait", "query patterns report ", "", func(t *testing.T, srv *fake.Server, c *platform.Client) func(context.Context) error {
			mustDB(t, srv, "app")
			srv.Advance(time.Minute)
			r, err := c.QueryPatternReports.Create(t.Context(), &platform.CreateQueryPatternsReportParams{Organization: srv.Org(), Database: "app", Branch: "main"})
			if err != nil {
				t.Fatal(err)
			}
			return func(ctx context.Context) error {
				_, err := c.QueryPatternReports.Wait(ctx, &platform.GetQueryPatternsReportParams{Organization: srv.Org(), Database: "app", Branch: "main", ID: r.ID})
				return err
			}
		}},
		{"AuthAttemptExports.Wait", "auth attempt export ", "pending", func(t *testing.T, srv *fake.Server, c *platform.Client) func(context.Context) error {
			x, err := c.AuthAttemptExports.Create(t.Context(), &platform.CreateAuthAttemptExportParams{
				Organization: srv.Org(), StartAt: srv.Now().Add(-time.Hour), EndAt: srv.Now(), Format: platform.AuthAttemptExportJSONL,
			})
			if err != nil {
				t.Fatal(err)
			}
			return func(ctx context.Context) error {
				_, err := c.AuthAttemptExports.Wait(ctx, &platform.GetAuthAttemptExportParams{Organization: srv.Org(), ID: x.ID})
				return err
			}
		}},
		{"BranchChanges.WaitResize", "branch resize request ", "", func(t *testing.T, srv *fake.Server, c *platform.Client) func(context.Context) error {
			mustDB(t, srv, "app")
			srv.Advance(time.Minute)
			r, err := c.BranchChanges.UpdateResize(t.Context(), &platform.UpdateBranchResizeRequestParams{Organization: srv.Org(), Database: "app", Branch: "main", VTGateSize: platform.Ptr("VTG_20")})
			if err != nil {
				t.Fatal(err)
			}
			return func(ctx context.Context) error {
				_, err := c.BranchChanges.WaitResize(ctx, &platform.GetBranchResizeRequestParams{Organization: srv.Org(), Database: "app", Branch: "main", Resize: r.ID})
				return err
			}
		}},
		{"BranchChanges.WaitChange", "branch change request ", "", func(t *testing.T, srv *fake.Server, c *platform.Client) func(context.Context) error {
			pgDB(t, srv, c)
			r, err := c.BranchChanges.UpdateChange(t.Context(), &platform.UpdateBranchChangeRequestParams{Organization: srv.Org(), Database: "pg", Branch: "main", ClusterSize: platform.Ptr("PS_20")})
			if err != nil {
				t.Fatal(err)
			}
			return func(ctx context.Context) error {
				_, err := c.BranchChanges.WaitChange(ctx, &platform.GetBranchChangeRequestParams{Organization: srv.Org(), Database: "pg", Branch: "main", ID: r.ID})
				return err
			}
		}},
		{"Maintenance.WaitSchedule", "maintenance schedule ", "", func(t *testing.T, srv *fake.Server, c *platform.Client) func(context.Context) error {
			pgDB(t, srv, c)
			if err := c.Maintenance.Run(t.Context(), &platform.RunBranchMaintenanceParams{Organization: srv.Org(), Database: "pg", Branch: "main"}); err != nil {
				t.Fatal(err)
			}
			sc, err := c.Maintenance.ListSchedules(t.Context(), &platform.ListMaintenanceSchedulesParams{Organization: srv.Org(), Database: "pg"})
			if err != nil || len(sc.Items) == 0 {
				t.Fatalf("schedules: %v, %v", sc, err)
			}
			return func(ctx context.Context) error {
				_, err := c.Maintenance.WaitSchedule(ctx, &platform.GetMaintenanceScheduleParams{Organization: srv.Org(), Database: "pg", ID: sc.Items[0].ID})
				return err
			}
		}},
		{"Keyspaces.WaitResize", "keyspace resize request ", "", func(t *testing.T, srv *fake.Server, c *platform.Client) func(context.Context) error {
			mustDB(t, srv, "app")
			srv.Advance(time.Minute)
			r, err := c.Keyspaces.Resize(t.Context(), &platform.ResizeKeyspaceParams{Organization: srv.Org(), Database: "app", Branch: "main", Keyspace: "app", ExtraReplicas: platform.Ptr(1)})
			if err != nil {
				t.Fatal(err)
			}
			return func(ctx context.Context) error {
				_, err := c.Keyspaces.WaitResize(ctx, &platform.GetKeyspaceResizeParams{Organization: srv.Org(), Database: "app", Branch: "main", Keyspace: "app", ID: r.ID})
				return err
			}
		}},
		{"Bouncers.WaitResize", "bouncer resize requests", "", func(t *testing.T, srv *fake.Server, c *platform.Client) func(context.Context) error {
			pgDB(t, srv, c)
			if _, err := c.Bouncers.Create(t.Context(), &platform.CreateBouncerParams{Organization: srv.Org(), Database: "pg", Branch: "main", Name: "pool"}); err != nil {
				t.Fatal(err)
			}
			srv.Advance(time.Minute)
			r, err := c.Bouncers.Resize(t.Context(), &platform.ResizeBouncerParams{Organization: srv.Org(), Database: "pg", Branch: "main", Bouncer: "pool", ReplicasPerCell: platform.Ptr(2)})
			if err != nil {
				t.Fatal(err)
			}
			return func(ctx context.Context) error {
				_, err := c.Bouncers.WaitResize(ctx, &platform.WaitBouncerResizeParams{Organization: srv.Org(), Database: "pg", Branch: "main", Bouncer: "pool", ID: r.ID})
				return err
			}
		}},
	}
	for _, tt := range tests {
		for _, stuck := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s stuck %v", tt.name, stuck), func(t *testing.T) {
				t.Parallel()
				srv := fake.NewServer(t)
				c := srv.Client()
				wait := tt.start(t, srv, c)
				if !stuck {
					if err := wait(t.Context()); err != nil {
						t.Errorf("the waiter on its way: %v", err)
					}
					return
				}
				dropTransitions(t, srv)
				t0 := srv.Now()
				err := wait(context.Background())
				var ue *platform.UnreachableError
				if !errors.As(err, &ue) {
					t.Fatalf("the waiter returned %v, want an *UnreachableError", err)
				}
				if !strings.HasPrefix(ue.Resource, tt.resource) || (tt.state != "" && ue.State != tt.state) || ue.Reason == "" {
					t.Errorf("the error is %+v, want resource %q..., state %q and a reason", *ue, tt.resource, tt.state)
				}
				if !srv.Now().Equal(t0) {
					t.Errorf("the clock moved from %s to %s", t0, srv.Now())
				}
			})
		}
	}
}

// pgDB creates the ready PostgreSQL database pg.
func pgDB(t *testing.T, srv *fake.Server, c *platform.Client) {
	t.Helper()
	if _, err := c.Databases.Create(t.Context(), &platform.CreateDatabaseParams{Organization: srv.Org(), Name: "pg", Kind: platform.KindPostgreSQL}); err != nil {
		t.Fatal(err)
	}
	srv.Advance(time.Minute)
}
