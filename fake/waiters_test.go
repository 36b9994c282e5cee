package fake_test

import (
	"context"
	"errors"
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

// TestWaitForDeploymentUnreachable is the case: a deploy request
// with auto-cutover off stops in pending_cutover until it is applied, so a
// wait for complete on a fake's client fails at once, naming the
// deployment, its state and the call that would move it, even on a
// context without a deadline; after ApplyDeploy the same wait reaches its
// state.
func TestWaitForDeploymentUnreachable(t *testing.T) {
	t.Parallel()
	e := newDREnv(t, false)
	e.branch("dev", "CREATE TABLE users (id bigint NOT NULL, email varchar(255), PRIMARY KEY (id))")
	dr := e.open(platform.CreateDeployRequestParams{Branch: "dev", AutoCutover: platform.Ptr(false)})
	p := &platform.GetDeploymentParams{Organization: e.org, Database: drDB, Number: dr.Number}
	if _, err := e.c.DeployRequests.WaitForDeployment(t.Context(), p, platform.DeploymentReady); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.DeployRequests.Deploy(t.Context(), &platform.DeployParams{Organization: e.org, Database: drDB, Number: dr.Number}); err != nil {
		t.Fatal(err)
	}
	t0 := e.srv.Now()
	d, err := e.c.DeployRequests.WaitForDeployment(context.Background(), p, platform.DeploymentComplete)
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
	if _, err := e.c.DeployRequests.WaitForDeployment(t.Context(), p, platform.DeploymentCompletePendingRevert); err != nil {
		t.Errorf("after ApplyDeploy: %v", err)
	}
}

// TestWorkflowWaitForUnreachable checks the waiter of a workflow, whose
// polls carry no condition: a running workflow waits for its next step, so
// a wait for completed fails at once, and a wait for a state the clock
// reaches still works.
func TestWorkflowWaitForUnreachable(t *testing.T) {
	t.Parallel()
	e := newWFEnv(t)
	wf := wfDrive(t, e.srv, nil, wfCreate(e.srv), platform.WorkflowRunning)
	ref := wfRef(e.srv, wf.Number)
	t0 := e.srv.Now()
	_, err := e.c.Workflows.WaitFor(context.Background(), ref, platform.WorkflowCompleted)
	wantUnreachable(t, e.srv, t0, err, platform.UnreachableError{
		Resource: "workflow 1",
		State:    "running",
		Reason:   "it waits for its next step (Workflows.VerifyData, Workflows.SwitchReplicas, Workflows.SwitchPrimaries)",
	})
	if _, err := e.c.Workflows.VerifyData(t.Context(), ref); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.Workflows.WaitFor(t.Context(), ref, platform.WorkflowVerifiedData); err != nil {
		t.Errorf("after VerifyData: %v", err)
	}
}
