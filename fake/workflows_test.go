package fake_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// wfTarget is the keyspace the workflow tests move tables into, which
// wfSetup adds to main of app, beside app's default keyspace app.
const wfTarget = "archive"

// wfSetup adds the keyspace archive to a branch of app.
func wfSetup(t testing.TB, srv *fake.Server, branch string) {
	t.Helper()
	if err := srv.AddKeyspace(srv.Org(), drDB, branch, wfTarget, 1); err != nil {
		t.Fatal(err)
	}
}

// wfCreate is the workflow the tests start: audit from app to archive on
// main.
func wfCreate(srv *fake.Server) *platform.CreateWorkflowParams {
	return &platform.CreateWorkflowParams{
		Organization: srv.Org(), Database: drDB, Name: "move-audit",
		SourceKeyspace: drDB, TargetKeyspace: wfTarget, Tables: []string{"audit"},
	}
}

// wfRef names workflow number of app.
func wfRef(srv *fake.Server, number int) *platform.WorkflowParams {
	return &platform.WorkflowParams{Organization: srv.Org(), Database: drDB, Number: number}
}

// wfActions are the workflow actions, by the last part of their path
// ("cancel" for the DELETE).
var wfActions = map[string]func(c *platform.Client, t testing.TB, p *platform.WorkflowParams) (*platform.Workflow, error){
	"cancel": func(c *platform.Client, t testing.TB, p *platform.WorkflowParams) (*platform.Workflow, error) {
		return c.Workflows.Cancel(t.Context(), p)
	},
	"complete": func(c *platform.Client, t testing.TB, p *platform.WorkflowParams) (*platform.Workflow, error) {
		return c.Workflows.Complete(t.Context(), p)
	},
	"cutover": func(c *platform.Client, t testing.TB, p *platform.WorkflowParams) (*platform.Workflow, error) {
		return c.Workflows.Cutover(t.Context(), p)
	},
	"retry": func(c *platform.Client, t testing.TB, p *platform.WorkflowParams) (*platform.Workflow, error) {
		return c.Workflows.Retry(t.Context(), p)
	},
	"reverse-cutover": func(c *platform.Client, t testing.TB, p *platform.WorkflowParams) (*platform.Workflow, error) {
		return c.Workflows.ReverseCutover(t.Context(), p)
	},
	"reverse-traffic": func(c *platform.Client, t testing.TB, p *platform.WorkflowParams) (*platform.Workflow, error) {
		return c.Workflows.ReverseTraffic(t.Context(), p)
	},
	"switch-primaries": func(c *platform.Client, t testing.TB, p *platform.WorkflowParams) (*platform.Workflow, error) {
		return c.Workflows.SwitchPrimaries(t.Context(), p)
	},
	"switch-replicas": func(c *platform.Client, t testing.TB, p *platform.WorkflowParams) (*platform.Workflow, error) {
		return c.Workflows.SwitchReplicas(t.Context(), p)
	},
	"verify-data": func(c *platform.Client, t testing.TB, p *platform.WorkflowParams) (*platform.Workflow, error) {
		return c.Workflows.VerifyData(t.Context(), p)
	},
}

// wfRecipes say how to reach each state a workflow can be in: from
// another state, by an action, by waiting on the clock ("wait"), or by an
// injected failure of the next step ("fail"). A new workflow is pending.
var wfRecipes = map[platform.WorkflowState]struct {
	from platform.WorkflowState
	step string
}{
	platform.WorkflowCopying:                   {platform.WorkflowPending, "wait"},
	platform.WorkflowRunning:                   {platform.WorkflowCopying, "wait"},
	platform.WorkflowVerifyingData:             {platform.WorkflowRunning, "verify-data"},
	platform.WorkflowVerifiedData:              {platform.WorkflowVerifyingData, "wait"},
	platform.WorkflowSwitchingReplicas:         {platform.WorkflowRunning, "switch-replicas"},
	platform.WorkflowSwitchedReplicas:          {platform.WorkflowSwitchingReplicas, "wait"},
	platform.WorkflowSwitchingPrimaries:        {platform.WorkflowSwitchedReplicas, "switch-primaries"},
	platform.WorkflowSwitchedPrimaries:         {platform.WorkflowSwitchingPrimaries, "wait"},
	platform.WorkflowReversingTraffic:          {platform.WorkflowSwitchedPrimaries, "reverse-traffic"},
	platform.WorkflowCuttingOver:               {platform.WorkflowSwitchedPrimaries, "cutover"},
	platform.WorkflowCutover:                   {platform.WorkflowCuttingOver, "wait"},
	platform.WorkflowReversedCutover:           {platform.WorkflowCutover, "reverse-cutover"},
	platform.WorkflowCompleted:                 {platform.WorkflowCutover, "complete"},
	platform.WorkflowReversingTrafficForCancel: {platform.WorkflowSwitchedReplicas, "cancel"},
	platform.WorkflowCancelling:                {platform.WorkflowRunning, "cancel"},
	platform.WorkflowCancelled:                 {platform.WorkflowCancelling, "wait"},
	platform.WorkflowError:                     {platform.WorkflowPending, "fail"},
}

// wfDrive creates workflow 1 with p and takes it to state, on the virtual
// clock, through c (the admin's client unless given).
func wfDrive(t testing.TB, srv *fake.Server, c *platform.Client, p *platform.CreateWorkflowParams, state platform.WorkflowState) *platform.Workflow {
	t.Helper()
	if c == nil {
		c = srv.Client()
	}
	if state == platform.WorkflowPending {
		wf, err := c.Workflows.Create(t.Context(), p)
		if err != nil {
			t.Fatal(err)
		}
		return wf
	}
	r, ok := wfRecipes[state]
	if !ok {
		t.Fatalf("no recipe for workflow state %s", state)
	}
	wf := wfDrive(t, srv, c, p, r.from)
	ref := &platform.WorkflowParams{Organization: p.Organization, Database: p.Database, Number: wf.Number}
	var err error
	switch r.step {
	case "fail":
		if err := srv.FailNext(wf.ID); err != nil {
			t.Fatal(err)
		}
		wf, err = c.Workflows.Wait(t.Context(), ref, state)
	case "wait":
		wf, err = c.Workflows.Wait(t.Context(), ref, state)
	default:
		wf, err = wfActions[r.step](c, t, ref)
	}
	if err != nil {
		t.Fatalf("driving workflow to %s: %v", state, err)
	}
	if wf.State != state {
		t.Fatalf("driving workflow: state %s, want %s", wf.State, state)
	}
	return wf
}

// wfSteps takes workflow p through steps: actions, and "wait:<state>"
// for the waiter.
func wfSteps(t testing.TB, c *platform.Client, p *platform.WorkflowParams, steps ...string) {
	t.Helper()
	for _, step := range steps {
		var err error
		if state, ok := strings.CutPrefix(step, "wait:"); ok {
			_, err = c.Workflows.Wait(t.Context(), p, platform.WorkflowState(state))
		} else {
			_, err = wfActions[step](c, t, p)
		}
		if err != nil {
			t.Fatalf("workflow #%d, %s: %v", p.Number, step, err)
		}
	}
}

// wfEdge is where an action takes a workflow: the state its response
// shows, and the state the clock then takes it to (after wfSettle).
type wfEdge struct{ now, then platform.WorkflowState }

// wfSettle is how long a state table test waits after an action: every
// step but the copy (a minute) is 10 s under wfTimings, and reversing
// traffic to cancel takes two.
const wfSettle = 25 * time.Second

// wfTimings make each step of the state table 10 s, and the copy a minute.
var wfTimings = fake.Timings{WorkflowStart: 10 * time.Second, WorkflowCopy: time.Minute, WorkflowVerify: 10 * time.Second, WorkflowSwitch: 10 * time.Second}

// wfStateTable is the state table of docs/fake-behaviour.md: for each state a
// workflow can be in, the actions it allows and where they lead. Every
// other action is a 422 naming the state.
var wfStateTable = map[platform.WorkflowState]map[string]wfEdge{
	platform.WorkflowPending: {"cancel": {platform.WorkflowCancelling, platform.WorkflowCancelled}},
	platform.WorkflowCopying: {"cancel": {platform.WorkflowCancelling, platform.WorkflowCancelled}},
	platform.WorkflowRunning: {
		"verify-data":     {platform.WorkflowVerifyingData, platform.WorkflowVerifiedData},
		"switch-replicas": {platform.WorkflowSwitchingReplicas, platform.WorkflowSwitchedReplicas},
		"cancel":          {platform.WorkflowCancelling, platform.WorkflowCancelled},
	},
	platform.WorkflowVerifyingData: {},
	platform.WorkflowVerifiedData: {
		"verify-data":     {platform.WorkflowVerifyingData, platform.WorkflowVerifiedData},
		"switch-replicas": {platform.WorkflowSwitchingReplicas, platform.WorkflowSwitchedReplicas},
		"cancel":          {platform.WorkflowCancelling, platform.WorkflowCancelled},
	},
	platform.WorkflowSwitchingReplicas: {},
	platform.WorkflowSwitchedReplicas: {
		"switch-primaries": {platform.WorkflowSwitchingPrimaries, platform.WorkflowSwitchedPrimaries},
		"reverse-traffic":  {platform.WorkflowReversingTraffic, platform.WorkflowRunning},
		"cancel":           {platform.WorkflowReversingTrafficForCancel, platform.WorkflowCancelled},
	},
	platform.WorkflowSwitchingPrimaries: {},
	platform.WorkflowSwitchedPrimaries: {
		"cutover":         {platform.WorkflowCuttingOver, platform.WorkflowCutover},
		"reverse-traffic": {platform.WorkflowReversingTraffic, platform.WorkflowSwitchedReplicas},
		"cancel":          {platform.WorkflowReversingTrafficForCancel, platform.WorkflowCancelled},
	},
	platform.WorkflowReversingTraffic: {},
	platform.WorkflowCuttingOver:      {},
	platform.WorkflowCutover: {
		"complete":        {platform.WorkflowCompleted, platform.WorkflowCompleted},
		"reverse-cutover": {platform.WorkflowReversedCutover, platform.WorkflowReversedCutover},
	},
	platform.WorkflowReversedCutover: {
		"verify-data":     {platform.WorkflowVerifyingData, platform.WorkflowVerifiedData},
		"switch-replicas": {platform.WorkflowSwitchingReplicas, platform.WorkflowSwitchedReplicas},
		"cancel":          {platform.WorkflowCancelling, platform.WorkflowCancelled},
	},
	platform.WorkflowCompleted:                 {},
	platform.WorkflowReversingTrafficForCancel: {},
	platform.WorkflowCancelling:                {},
	platform.WorkflowCancelled:                 {},
	platform.WorkflowError: {
		"retry":  {platform.WorkflowPending, platform.WorkflowCopying},
		"cancel": {platform.WorkflowCancelling, platform.WorkflowCancelled},
	},
}

// newWFEnv is a deploy request world (app with main and dev) whose main
// has the keyspace archive, under wfTimings.
func newWFEnv(t *testing.T) *drEnv {
	t.Helper()
	e := newDREnv(t, false, fake.WithTimings(wfTimings))
	wfSetup(t, e.srv, "main")
	return e
}

// TestWorkflowStateTable takes every action in every state: the allowed
// ones lead where the table says, on the response and then on the clock;
// the others are a 422 naming the state that changes nothing.
func TestWorkflowStateTable(t *testing.T) {
	t.Parallel()
	for state, allowed := range wfStateTable {
		t.Run(string(state), func(t *testing.T) {
			t.Parallel()
			e := newWFEnv(t)
			wf := wfDrive(t, e.srv, nil, wfCreate(e.srv), state)
			for action, call := range wfActions {
				if _, ok := allowed[action]; ok {
					continue
				}
				_, err := call(e.c, t, wfRef(e.srv, wf.Number))
				apiError(t, err, 422, "workflow #1 is "+string(state), action)
				after, err := e.c.Workflows.Get(t.Context(), wfRef(e.srv, wf.Number))
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(wf, after); diff != "" {
					t.Errorf("%s refused in %s changed the workflow (-before +after):\n%s", action, state, diff)
				}
			}
		})
		for action, edge := range allowed {
			t.Run(string(state)+"/"+action, func(t *testing.T) {
				t.Parallel()
				e := newWFEnv(t)
				wf := wfDrive(t, e.srv, nil, wfCreate(e.srv), state)
				got, err := wfActions[action](e.c, t, wfRef(e.srv, wf.Number))
				if err != nil {
					t.Fatal(err)
				}
				if got.State != edge.now {
					t.Errorf("%s in %s: state %s, want %s", action, state, got.State, edge.now)
				}
				e.srv.Advance(wfSettle)
				if got, err = e.c.Workflows.Get(t.Context(), wfRef(e.srv, wf.Number)); err != nil {
					t.Fatal(err)
				}
				if got.State != edge.then {
					t.Errorf("%s in %s: state %s after %v, want %s", action, state, got.State, wfSettle, edge.then)
				}
			})
		}
	}
}

// TestWorkflowStateTableCoversEveryState checks that the state table and
// the recipes name every state but stopped, which the fake never enters.
func TestWorkflowStateTableCoversEveryState(t *testing.T) {
	t.Parallel()
	for _, st := range []platform.WorkflowState{
		platform.WorkflowPending, platform.WorkflowCopying, platform.WorkflowRunning, platform.WorkflowVerifyingData,
		platform.WorkflowVerifiedData, platform.WorkflowSwitchingReplicas, platform.WorkflowSwitchedReplicas,
		platform.WorkflowSwitchingPrimaries, platform.WorkflowSwitchedPrimaries, platform.WorkflowReversingTraffic,
		platform.WorkflowReversingTrafficForCancel, platform.WorkflowCuttingOver, platform.WorkflowCutover,
		platform.WorkflowReversedCutover, platform.WorkflowCompleted, platform.WorkflowCancelling,
		platform.WorkflowCancelled, platform.WorkflowError,
	} {
		if _, ok := wfStateTable[st]; !ok {
			t.Errorf("the state table has no row for %s", st)
		}
		if _, ok := wfRecipes[st]; !ok && st != platform.WorkflowPending {
			t.Errorf("no recipe reaches %s", st)
		}
	}
}

// TestWorkflowLifecycle moves a table from creation to completion and
// checks what each step shows, and the branch's schema at the end.
func TestWorkflowLifecycle(t *testing.T) {
	t.Parallel()
	e := newWFEnv(t)
	ctx := t.Context()
	start := e.srv.Now()
	wf, err := e.c.Workflows.Create(ctx, wfCreate(e.srv))
	if err != nil {
		t.Fatal(err)
	}
	if wf.Number != 1 || wf.State != platform.WorkflowPending || wf.WorkflowType != platform.WorkflowTypeMoveTables ||
		wf.OnDDL != platform.OnDDLIgnore || wf.StartedAt != nil || wf.Actor == nil || wf.Actor.ID != e.srv.AdminUserID() {
		t.Errorf("new workflow: %+v", wf)
	}
	if wf.Branch.Name != "main" || wf.SourceKeyspace.Name != drDB || wf.TargetKeyspace.Name != wfTarget || wf.GlobalKeyspace != nil {
		t.Errorf("new workflow: branch %v, keyspaces %v -> %v (global %v)", wf.Branch, wf.SourceKeyspace, wf.TargetKeyspace, wf.GlobalKeyspace)
	}
	ref := wfRef(e.srv, 1)
	step := func(state platform.WorkflowState) *platform.Workflow {
		t.Helper()
		wf, err := e.c.Workflows.Wait(ctx, ref, state)
		if err != nil {
			t.Fatal(err)
		}
		return wf
	}
	act := func(action string) {
		t.Helper()
		if _, err := wfActions[action](e.c, t, ref); err != nil {
			t.Fatal(err)
		}
	}
	wf = step(platform.WorkflowCopying)
	if !wf.StartedAt.Time.Equal(start.Add(wfTimings.WorkflowStart)) {
		t.Errorf("started_at %v, want %v", wf.StartedAt, start.Add(wfTimings.WorkflowStart))
	}
	wf = step(platform.WorkflowRunning)
	if wf.DataCopyCompletedAt == nil || wf.SequenceTablesApplied {
		t.Errorf("running: data_copy_completed_at %v, sequence_tables_applied %t", wf.DataCopyCompletedAt, wf.SequenceTablesApplied)
	}
	act("verify-data")
	wf = step(platform.WorkflowVerifiedData)
	if wf.VerifyDataAt == nil || wf.VerifyDataBy == nil || wf.VerifiedDataStale {
		t.Errorf("verified: verify_data_at %v, by %v, stale %t", wf.VerifyDataAt, wf.VerifyDataBy, wf.VerifiedDataStale)
	}
	act("switch-replicas")
	wf = step(platform.WorkflowSwitchedReplicas)
	if !wf.ReplicasSwitched || wf.PrimariesSwitched || wf.SwitchReplicasAt == nil || wf.SwitchReplicasBy == nil {
		t.Errorf("replicas switched: %+v", wf)
	}
	act("switch-primaries")
	wf = step(platform.WorkflowSwitchedPrimaries)
	if !wf.ReplicasSwitched || !wf.PrimariesSwitched || wf.SwitchPrimariesAt == nil || wf.SwitchPrimariesBy == nil {
		t.Errorf("primaries switched: %+v", wf)
	}
	if diff := cmp.Diff([]string{"audit"}, wfTables(t, e, "main", wfTarget)); diff != "" {
		t.Errorf("before completion, the target keyspace's tables (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"audit", "users"}, wfTables(t, e, "main", drDB)); diff != "" {
		t.Errorf("before completion, the source keyspace's tables (-want +got):\n%s", diff)
	}
	act("cutover")
	wf = step(platform.WorkflowCutover)
	if wf.CutoverAt == nil || wf.CutoverBy == nil {
		t.Errorf("cutover: cutover_at %v, by %v", wf.CutoverAt, wf.CutoverBy)
	}
	act("complete")
	wf = step(platform.WorkflowCompleted)
	if wf.CompletedAt == nil || wf.CompletedBy == nil || wf.CancelledAt != nil {
		t.Errorf("completed: completed_at %v, by %v, cancelled_at %v", wf.CompletedAt, wf.CompletedBy, wf.CancelledAt)
	}
	if diff := cmp.Diff([]string{"audit"}, wfTables(t, e, "main", wfTarget)); diff != "" {
		t.Errorf("target keyspace's tables (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"users"}, wfTables(t, e, "main", drDB)); diff != "" {
		t.Errorf("source keyspace's tables (-want +got):\n%s", diff)
	}
	// Moving audit back is a new workflow, numbered 2.
	back := wfCreate(e.srv)
	back.SourceKeyspace, back.TargetKeyspace = wfTarget, drDB
	wf, err = e.c.Workflows.Create(ctx, back)
	if err != nil {
		t.Fatal(err)
	}
	if wf.Number != 2 {
		t.Errorf("second workflow: number %d, want 2", wf.Number)
	}
}

// onlyListedWorkflow is the one workflow list_workflows shows of e's
// database, as the list renders it (to compare with the get's).
func onlyListedWorkflow(t *testing.T, e *drEnv) *platform.Workflow {
	t.Helper()
	page, err := e.c.Workflows.List(t.Context(), &platform.ListWorkflowsParams{Organization: e.org, Database: drDB})
	if err != nil || len(page.Items) != 1 {
		t.Fatalf("list: %v, %v; want one workflow", page, err)
	}
	return page.Items[0]
}

// wfTables lists the tables of a keyspace of a branch of app.
func wfTables(t *testing.T, e *drEnv, branch, keyspace string) []string {
	t.Helper()
	s, err := e.c.Branches.GetSchema(t.Context(), &platform.GetBranchSchemaParams{Organization: e.org, Database: drDB, Branch: branch, Keyspace: keyspace})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tb := range s.Tables {
		names = append(names, tb.Name)
	}
	return names
}

// TestWorkflowReverseTraffic undoes each switch in turn, then the
// cutover, and checks the flags and who did it.
func TestWorkflowReverseTraffic(t *testing.T) {
	t.Parallel()
	e := newWFEnv(t)
	ref := wfRef(e.srv, 1)
	wfDrive(t, e.srv, nil, wfCreate(e.srv), platform.WorkflowSwitchedPrimaries)
	for _, want := range []platform.WorkflowState{platform.WorkflowSwitchedReplicas, platform.WorkflowRunning} {
		if _, err := e.c.Workflows.ReverseTraffic(t.Context(), ref); err != nil {
			t.Fatal(err)
		}
		wf, err := e.c.Workflows.Wait(t.Context(), ref, want)
		if err != nil {
			t.Fatal(err)
		}
		if wf.ReversedAt == nil || wf.ReversedBy == nil || wf.PrimariesSwitched || wf.ReplicasSwitched != (want == platform.WorkflowSwitchedReplicas) {
			t.Errorf("reversed to %s: %+v", want, wf)
		}
	}
	e2 := newWFEnv(t)
	wf := wfDrive(t, e2.srv, nil, wfCreate(e2.srv), platform.WorkflowReversedCutover)
	if wf.ReversedCutoverBy == nil || wf.ReplicasSwitched || wf.PrimariesSwitched || wf.ReversedAt == nil {
		t.Errorf("reversed cutover: %+v", wf)
	}
	if diff := cmp.Diff([]string{"audit"}, wfTables(t, e2, "main", wfTarget)); diff != "" {
		t.Errorf("after a reversed cutover, the target keyspace's tables (-want +got):\n%s", diff)
	}
}

// TestWorkflowFailureAndRetry fails each kind of clock step with FailNext:
// the workflow is in error, says why and may retry; retry resumes the
// step that failed, and a verification from before the failure is stale.
func TestWorkflowFailureAndRetry(t *testing.T) {
	t.Parallel()
	for _, from := range []platform.WorkflowState{platform.WorkflowPending, platform.WorkflowCopying, platform.WorkflowSwitchingReplicas, platform.WorkflowCancelling} {
		t.Run(string(from), func(t *testing.T) {
			t.Parallel()
			e := newWFEnv(t)
			ref := wfRef(e.srv, 1)
			wf := wfDrive(t, e.srv, nil, wfCreate(e.srv), from)
			if err := e.srv.FailNext(wf.ID); err != nil {
				t.Fatal(err)
			}
			_, err := e.c.Workflows.Wait(t.Context(), ref, platform.WorkflowCompleted)
			var se *platform.StateError
			if !errors.As(err, &se) || se.State != string(platform.WorkflowError) {
				t.Fatalf("waiting through a failure: %v, want a StateError in error", err)
			}
			wf, err = e.c.Workflows.Get(t.Context(), ref)
			if err != nil {
				t.Fatal(err)
			}
			if !wf.MayRetry || wf.WorkflowErrors == "" {
				t.Errorf("in error: may_retry %t, workflow_errors %q", wf.MayRetry, wf.WorkflowErrors)
			}
			if wf, err = e.c.Workflows.Retry(t.Context(), ref); err != nil {
				t.Fatal(err)
			}
			if wf.State != from || wf.MayRetry || wf.WorkflowErrors != "" || wf.RetriedAt == nil || wf.RetriedBy == nil {
				t.Errorf("retried: state %s (want %s), may_retry %t, errors %q, retried_at %v", wf.State, from, wf.MayRetry, wf.WorkflowErrors, wf.RetriedAt)
			}
			next := map[platform.WorkflowState]platform.WorkflowState{
				platform.WorkflowPending: platform.WorkflowCopying, platform.WorkflowCopying: platform.WorkflowRunning,
				platform.WorkflowSwitchingReplicas: platform.WorkflowSwitchedReplicas, platform.WorkflowCancelling: platform.WorkflowCancelled,
			}[from]
			if _, err := e.c.Workflows.Wait(t.Context(), ref, next); err != nil {
				t.Fatalf("after retry: %v", err)
			}
		})
	}
	t.Run("stale verification", func(t *testing.T) {
		t.Parallel()
		e := newWFEnv(t)
		ref := wfRef(e.srv, 1)
		wf := wfDrive(t, e.srv, nil, wfCreate(e.srv), platform.WorkflowVerifiedData)
		if _, err := e.c.Workflows.SwitchReplicas(t.Context(), ref); err != nil {
			t.Fatal(err)
		}
		if err := e.srv.FailNext(wf.ID); err != nil {
			t.Fatal(err)
		}
		e.srv.Advance(wfSettle)
		if wf, err := e.c.Workflows.Retry(t.Context(), ref); err != nil || !wf.VerifiedDataStale {
			t.Errorf("retried after a verification: %v, stale %t; want stale", err, wf != nil && wf.VerifiedDataStale)
		}
	})
}

// TestWorkflowFailNextAfterEnd checks that FailNext refuses a workflow
// that has ended.
func TestWorkflowFailNextAfterEnd(t *testing.T) {
	t.Parallel()
	for _, st := range []platform.WorkflowState{platform.WorkflowCompleted, platform.WorkflowCancelled} {
		e := newWFEnv(t)
		wf := wfDrive(t, e.srv, nil, wfCreate(e.srv), st)
		if err := e.srv.FailNext(wf.ID); err == nil {
			t.Errorf("FailNext on a %s workflow: no error", st)
		}
	}
}

// TestCreateWorkflowRefusals sends bad creations: each is a 422 naming
// the problem, and no workflow appears.
func TestCreateWorkflowRefusals(t *testing.T) {
	t.Parallel()
	e := newWFEnv(t)
	e.branch("dev", drChange...) // with main's keyspaces, archive too
	if err := e.srv.AddKeyspace(e.org, drDB, "main", "spare", 1); err != nil {
		t.Fatal(err)
	}
	if err := e.srv.PushSchema(e.org, drDB, "dev", "CREATE TABLE t (id bigint, PRIMARY KEY (id))", "CREATE TABLE archive.t (id bigint, PRIMARY KEY (id))"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.Workflows.Create(t.Context(), wfCreate(e.srv)); err != nil {
		t.Fatal(err)
	}
	pg := "pg"
	if _, err := e.c.Databases.Create(t.Context(), &platform.CreateDatabaseParams{Organization: e.org, Name: pg, ClusterSize: "PS_10", Kind: platform.KindPostgreSQL}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		edit  func(p *platform.CreateWorkflowParams)
		words []string
	}{
		{"missing source keyspace", func(p *platform.CreateWorkflowParams) { p.SourceKeyspace = "nope" }, []string{"source_keyspace", `"nope"`}},
		{"missing target keyspace", func(p *platform.CreateWorkflowParams) { p.TargetKeyspace = "nope" }, []string{"target_keyspace", `"nope"`}},
		{"missing global keyspace", func(p *platform.CreateWorkflowParams) { p.GlobalKeyspace = platform.Ptr("nope") }, []string{"global_keyspace", `"nope"`}},
		{"same keyspaces", func(p *platform.CreateWorkflowParams) { p.TargetKeyspace = drDB }, []string{"source_keyspace and target_keyspace"}},
		{"missing table", func(p *platform.CreateWorkflowParams) { p.Tables = []string{"users", "ghost"} }, []string{`"ghost"`, drDB}},
		{"table twice", func(p *platform.CreateWorkflowParams) { p.Tables = []string{"users", "users"} }, []string{`"users"`, "twice"}},
		{"table already moving", func(p *platform.CreateWorkflowParams) { p.Name, p.TargetKeyspace = "again", "spare" }, []string{`"audit"`, "workflow #1"}},
		{"name taken", func(p *platform.CreateWorkflowParams) { p.Tables = []string{"users"} }, []string{`"move-audit"`, "workflow #1"}},
		{"missing branch", func(p *platform.CreateWorkflowParams) { p.Branch = platform.Ptr("nope") }, []string{"branch", `"nope"`}},
		{"table in the target already", func(p *platform.CreateWorkflowParams) {
			p.Name, p.Branch, p.Tables = "x", platform.Ptr("dev"), []string{"t"}
		}, []string{`"t"`, wfTarget}},
		{"bad on_ddl", func(p *platform.CreateWorkflowParams) {
			p.Name, p.OnDDL = "x", platform.Ptr(platform.WorkflowOnDDL("LOUD"))
		}, []string{"on_ddl", "LOUD"}},
		{"name too long", func(p *platform.CreateWorkflowParams) { p.Name = strings.Repeat("x", 64) }, []string{"name"}},
		{"postgresql database", func(p *platform.CreateWorkflowParams) { p.Database = pg }, []string{"mysql", pg}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := wfCreate(e.srv)
			tt.edit(p)
			_, err := e.c.Workflows.Create(t.Context(), p)
			apiError(t, err, 422, tt.words...)
		})
	}
	page, err := e.c.Workflows.List(t.Context(), &platform.ListWorkflowsParams{Organization: e.org, Database: drDB})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 1 {
		t.Errorf("%d workflows after the refusals, want 1", len(page.Items))
	}
}

// TestWorkflowCreateEmptyGlobalKeyspace checks that a global keyspace of
// "", as the service's command-line tool sends without --global-keyspace,
// is none.
func TestWorkflowCreateEmptyGlobalKeyspace(t *testing.T) {
	t.Parallel()
	e := newWFEnv(t)
	p := wfCreate(e.srv)
	p.GlobalKeyspace = platform.Ptr("")
	wf, err := e.c.Workflows.Create(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	if wf.GlobalKeyspace != nil {
		t.Errorf("global keyspace %v, want none", wf.GlobalKeyspace)
	}
}

// TestWorkflowsOnAnotherBranch moves a table on dev, which takes direct
// DDL: a table dropped from the source before completion is a 422 naming
// it, and the workflow stays in cutover.
func TestWorkflowsOnAnotherBranch(t *testing.T) {
	t.Parallel()
	e := newWFEnv(t)
	e.branch("dev", drChange...) // with main's keyspaces, archive too
	p := wfCreate(e.srv)
	p.Branch, p.Tables, p.GlobalKeyspace = platform.Ptr("dev"), []string{"orders"}, platform.Ptr(wfTarget)
	wf := wfDrive(t, e.srv, nil, p, platform.WorkflowCutover)
	if wf.Branch.Name != "dev" || !wf.SequenceTablesApplied || wf.GlobalKeyspace == nil || wf.GlobalKeyspace.Name != wfTarget {
		t.Errorf("workflow on dev: branch %v, sequence tables %t, global %v", wf.Branch, wf.SequenceTablesApplied, wf.GlobalKeyspace)
	}
	if err := e.srv.PushSchema(e.org, drDB, "dev", "DROP TABLE orders"); err != nil {
		t.Fatal(err)
	}
	_, err := e.c.Workflows.Complete(t.Context(), wfRef(e.srv, 1))
	apiError(t, err, 422, `"orders"`)
	if got, err := e.c.Workflows.Get(t.Context(), wfRef(e.srv, 1)); err != nil || got.State != platform.WorkflowCutover {
		t.Errorf("after a refused completion: %v, %v", got, err)
	}
}

// TestWorkflowNumbersPerDatabase checks that each database numbers its
// own workflows, and that a number of another database is a 404.
func TestWorkflowNumbersPerDatabase(t *testing.T) {
	t.Parallel()
	e := newWFEnv(t)
	mustDB(t, e.srv, "second")
	e.srv.Advance(5 * time.Second)
	if err := e.srv.PushSchema(e.org, "second", "main", "CREATE TABLE t (id bigint, PRIMARY KEY (id))"); err != nil {
		t.Fatal(err)
	}
	if err := e.srv.AddKeyspace(e.org, "second", "main", "other", 1); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		p := wfCreate(e.srv)
		p.Name = fmt.Sprintf("move-%d", i)
		p.Tables = []string{[]string{"audit", "users"}[i]}
		if wf, err := e.c.Workflows.Create(t.Context(), p); err != nil || wf.Number != i+1 {
			t.Fatalf("workflow %d of app: %v, %v", i+1, wf, err)
		}
		e.srv.Advance(time.Second)
	}
	wf, err := e.c.Workflows.Create(t.Context(), &platform.CreateWorkflowParams{Organization: e.org, Database: "second", Name: "m", SourceKeyspace: "second", TargetKeyspace: "other", Tables: []string{"t"}})
	if err != nil || wf.Number != 1 {
		t.Fatalf("workflow of second: %v, %v", wf, err)
	}
	_, err = e.c.Workflows.Get(t.Context(), &platform.WorkflowParams{Organization: e.org, Database: "second", Number: 2})
	apiError(t, err, 404)
	var names []string
	for wf, err := range e.c.Workflows.All(t.Context(), &platform.ListWorkflowsParams{Organization: e.org, Database: drDB, ListParams: platform.ListParams{PerPage: 1}}) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, wf.Name)
	}
	if diff := cmp.Diff([]string{"move-0", "move-1"}, names); diff != "" {
		t.Errorf("workflows of app (-want +got):\n%s", diff)
	}
}

// TestListWorkflowsBetween filters by the time a workflow was active.
func TestListWorkflowsBetween(t *testing.T) {
	t.Parallel()
	e := newWFEnv(t)
	t0 := e.srv.Now()
	done := wfDrive(t, e.srv, nil, wfCreate(e.srv), platform.WorkflowCompleted) // active from t0 until it completed
	if done.CompletedAt == nil || done.CompletedAt.Sub(t0) > 10*time.Minute {
		t.Fatalf("completed at %v, want within 10 minutes of %v", done.CompletedAt, t0)
	}
	end := done.CompletedAt.Time
	e.srv.Advance(time.Hour)
	t1 := e.srv.Now()
	gone := wfCreate(e.srv)
	gone.Name, gone.Tables = "gone", []string{"users"}
	wfDrive(t, e.srv, nil, gone, platform.WorkflowCancelled) // active from t1 for 20 s
	e.srv.Advance(time.Hour)
	p := wfCreate(e.srv)
	p.Name, p.Tables = "later", []string{"users"} // audit has moved
	if _, err := e.c.Workflows.Create(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	rfc := func(at time.Time) string { return at.UTC().Format(time.RFC3339) }
	tests := []struct {
		between string
		want    []string
	}{
		{rfc(t0) + ".." + rfc(t0.Add(time.Minute)), []string{"move-audit"}},
		{rfc(t1) + ".." + rfc(t1.Add(time.Minute)), []string{"gone"}},
		{rfc(t1.Add(30*time.Minute)) + ".." + rfc(e.srv.Now()), []string{"later"}},
		{rfc(t0) + ".." + rfc(e.srv.Now()), []string{"move-audit", "gone", "later"}},
		{rfc(end) + ".." + rfc(e.srv.Now()), []string{"move-audit", "gone", "later"}}, // it ended as the range starts
		{rfc(end.Add(time.Second)) + ".." + rfc(e.srv.Now()), []string{"gone", "later"}},
	}
	for _, tt := range tests {
		page, err := e.c.Workflows.List(t.Context(), &platform.ListWorkflowsParams{Organization: e.org, Database: drDB, Between: tt.between})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, wf := range page.Items {
			got = append(got, wf.Name)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("between %s (-want +got):\n%s", tt.between, diff)
		}
	}
	_, err := e.c.Workflows.List(t.Context(), &platform.ListWorkflowsParams{Organization: e.org, Database: drDB, Between: "yesterday"})
	apiError(t, err, 400, "between")
}

// TestWorkflowSnapshotMidFlight restores a workflow in each state that
// waits on the clock and checks that it goes on to the same state.
func TestWorkflowSnapshotMidFlight(t *testing.T) {
	t.Parallel()
	for _, st := range []platform.WorkflowState{platform.WorkflowCopying, platform.WorkflowVerifyingData, platform.WorkflowReversingTrafficForCancel, platform.WorkflowError} {
		t.Run(string(st), func(t *testing.T) {
			t.Parallel()
			e := newWFEnv(t)
			wf := wfDrive(t, e.srv, nil, wfCreate(e.srv), st)
			snap, err := e.srv.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			other := fake.NewServer(t, fake.WithTimings(wfTimings))
			if err := other.Restore(snap); err != nil {
				t.Fatal(err)
			}
			for _, srv := range []*fake.Server{e.srv, other} {
				srv.Advance(2 * wfTimings.WorkflowCopy)
			}
			a, errA := e.srv.Client().Workflows.Get(t.Context(), wfRef(e.srv, wf.Number))
			b, errB := other.Client().Workflows.Get(t.Context(), wfRef(other, wf.Number))
			if errA != nil || errB != nil {
				t.Fatal(errA, errB)
			}
			if diff := cmp.Diff(a, b); diff != "" {
				t.Errorf("restored workflow differs (-original +restored):\n%s", diff)
			}
			if st != platform.WorkflowError && !slices.Contains([]platform.WorkflowState{platform.WorkflowRunning, platform.WorkflowVerifiedData, platform.WorkflowCancelled}, b.State) {
				t.Errorf("restored %s workflow went to %s", st, b.State)
			}
		})
	}
}

// TestWorkflowKeyspaceAndBranchDeletion refuses to delete a keyspace an
// active workflow uses (but not once it has ended), and checks that
// deleting the branch cancels its workflows.
func TestWorkflowKeyspaceAndBranchDeletion(t *testing.T) {
	t.Parallel()
	e := newWFEnv(t)
	e.branch("dev", drChange...)
	ks := &platform.KeyspaceParams{Organization: e.org, Database: drDB, Branch: "main", Keyspace: wfTarget}
	wfDrive(t, e.srv, nil, wfCreate(e.srv), platform.WorkflowRunning)
	err := e.c.Keyspaces.Delete(t.Context(), ks)
	apiError(t, err, 422, "keyspace "+wfTarget, "workflow #1", "running")
	wfSteps(t, e.c, wfRef(e.srv, 1), "cancel", "wait:cancelled")
	if err := e.c.Keyspaces.Delete(t.Context(), ks); err != nil {
		t.Fatalf("deleting the keyspace of a cancelled workflow: %v", err)
	}
	wf, err := e.c.Workflows.Get(t.Context(), wfRef(e.srv, 1))
	if err != nil {
		t.Fatal(err)
	}
	if wf.TargetKeyspace.DeletedAt == nil {
		t.Errorf("target keyspace of a workflow after its deletion: %+v", wf.TargetKeyspace)
	}

	p := wfCreate(e.srv)
	p.Branch, p.Tables = platform.Ptr("dev"), []string{"orders"}
	wfDrive(t, e.srv, nil, p, platform.WorkflowCopying) // workflow 2
	if err := e.c.Branches.Delete(t.Context(), &platform.DeleteBranchParams{Organization: e.org, Database: drDB, Branch: "dev"}); err != nil {
		t.Fatal(err)
	}
	if wf, err = e.c.Workflows.Get(t.Context(), wfRef(e.srv, 2)); err != nil || wf.State != platform.WorkflowCancelled || wf.CancelledAt == nil {
		t.Errorf("workflow of a deleted branch: %+v, %v; want cancelled", wf, err)
	}
	snap, err := e.srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	other := fake.NewServer(t)
	if err := other.Restore(snap); err != nil {
		t.Fatalf("restoring workflows of a dropped keyspace and a deleted branch: %v", err)
	}
	again, err := other.Client().Workflows.Get(t.Context(), wfRef(other, 1))
	if err != nil {
		t.Fatal(err)
	}
	first, _ := e.c.Workflows.Get(t.Context(), wfRef(e.srv, 1))
	if diff := cmp.Diff(first, again); diff != "" {
		t.Errorf("restored workflow (-original +restored):\n%s", diff)
	}
}

// wfTableRow is a workflow table's copy as a test checks it: rows copied,
// percentage, and when it last changed, as an offset from the workflow's
// creation.
type wfTableRow struct {
	Name    string
	Copied  int64
	Total   int64
	Percent int
	Updated time.Duration
}

// wfTableRows reads wf's tables as wfTableRows.
func wfTableRows(t *testing.T, wf *platform.Workflow) []wfTableRow {
	t.Helper()
	out := []wfTableRow{}
	for _, tb := range wf.Tables {
		if tb.ID == "" || !tb.CreatedAt.Equal(wf.CreatedAt.Time) {
			t.Errorf("table %s: id %q, created %v; want an ID, created with the workflow (%v)", tb.Name, tb.ID, tb.CreatedAt, wf.CreatedAt)
		}
		out = append(out, wfTableRow{tb.Name, tb.RowsCopied, tb.RowsTotal, tb.RowsPercentage, tb.UpdatedAt.Sub(wf.CreatedAt.Time)})
	}
	return out
}

// TestWorkflowTablesFollowTheCopy reads a workflow's tables along its
// copy (start 10 s, copy a minute; audit then users, 1000 rows each from
// the one source shard into the one target shard): none copied while
// pending, audit in the first half of the copy, users in the second, every
// row once running, and the same after the workflow completes, in get and
// list alike.
func TestWorkflowTablesFollowTheCopy(t *testing.T) {
	t.Parallel()
	e := newWFEnv(t)
	p := wfCreate(e.srv)
	p.Tables = []string{"audit", "users"}
	created, err := e.c.Workflows.Create(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	row := func(name string, copied int64, updated time.Duration) wfTableRow {
		return wfTableRow{name, copied, 1000, int(copied / 10), updated}
	}
	none := []wfTableRow{row("audit", 0, 0), row("users", 0, 0)}
	if diff := cmp.Diff(none, wfTableRows(t, created)); diff != "" {
		t.Errorf("created (-want +got):\n%s", diff)
	}
	steps := []struct {
		at    time.Duration // since creation
		state platform.WorkflowState
		want  []wfTableRow
	}{
		{10 * time.Second, platform.WorkflowCopying, none},
		{25 * time.Second, platform.WorkflowCopying, []wfTableRow{row("audit", 500, 25*time.Second), row("users", 0, 0)}},
		{45 * time.Second, platform.WorkflowCopying, []wfTableRow{row("audit", 1000, 40*time.Second), row("users", 166, 45*time.Second)}},
		{70 * time.Second, platform.WorkflowRunning, []wfTableRow{row("audit", 1000, 40*time.Second), row("users", 1000, 70*time.Second)}},
		{200 * time.Second, platform.WorkflowRunning, []wfTableRow{row("audit", 1000, 40*time.Second), row("users", 1000, 70*time.Second)}},
	}
	at := time.Duration(0)
	for _, st := range steps {
		e.srv.Advance(st.at - at)
		at = st.at
		wf, err := e.c.Workflows.Get(t.Context(), wfRef(e.srv, 1))
		if err != nil {
			t.Fatal(err)
		}
		if wf.State != st.state {
			t.Errorf("at %v: %s, want %s", st.at, wf.State, st.state)
		}
		if diff := cmp.Diff(st.want, wfTableRows(t, wf)); diff != "" {
			t.Errorf("at %v (-want +got):\n%s", st.at, diff)
		}
		if diff := cmp.Diff(wf.Tables, onlyListedWorkflow(t, e).Tables); diff != "" {
			t.Errorf("at %v, listed (-get +list):\n%s", st.at, diff)
		}
	}
	wfSteps(t, e.c, wfRef(e.srv, 1), "switch-replicas", "wait:switched_replicas", "switch-primaries", "wait:switched_primaries",
		"cutover", "wait:cutover", "complete")
	done, err := e.c.Workflows.Get(t.Context(), wfRef(e.srv, 1))
	if err != nil || done.State != platform.WorkflowCompleted {
		t.Fatalf("completed: %v, %v", done, err)
	}
	if diff := cmp.Diff(steps[len(steps)-1].want, wfTableRows(t, done)); diff != "" {
		t.Errorf("completed (-want +got):\n%s", diff)
	}
}

// TestWorkflowTablesLeavingTheCopy leaves the copy of audit and users
// halfway through audit (25 s after creation): a stop and a cancel keep
// the rows copied (and a start goes on from them); a failed copy shows
// none, and its retry copies every table again.
func TestWorkflowTablesLeavingTheCopy(t *testing.T) {
	t.Parallel()
	half := []wfTableRow{{"audit", 500, 1000, 50, 25 * time.Second}, {"users", 0, 1000, 0, 0}}
	vr := func(e *drEnv) *platform.StartVReplicationWorkflowParams {
		return &platform.StartVReplicationWorkflowParams{Organization: e.org, Database: drDB, Branch: "main", Workflow: "move-audit", Keyspace: wfTarget}
	}
	cases := []struct {
		name  string
		leave func(t *testing.T, e *drEnv, wf *platform.Workflow)
		state platform.WorkflowState
		want  []wfTableRow // a minute later
	}{
		{"stop", func(t *testing.T, e *drEnv, _ *platform.Workflow) {
			if _, err := e.c.Vitess.StopWorkflow(t.Context(), vr(e)); err != nil {
				t.Fatal(err)
			}
		}, platform.WorkflowStopped, half},
		{"stop and start", func(t *testing.T, e *drEnv, _ *platform.Workflow) {
			if _, err := e.c.Vitess.StopWorkflow(t.Context(), vr(e)); err != nil {
				t.Fatal(err)
			}
			e.srv.Advance(time.Hour)
			if _, err := e.c.Vitess.StartWorkflow(t.Context(), vr(e)); err != nil {
				t.Fatal(err)
			}
			// 45 s of the copy left: audit done 15 s in, users at a
			// third a minute in.
		}, platform.WorkflowRunning, []wfTableRow{{"audit", 1000, 1000, 100, time.Hour + 40*time.Second}, {"users", 1000, 1000, 100, time.Hour + 70*time.Second}}},
		{"cancel", func(t *testing.T, e *drEnv, _ *platform.Workflow) {
			if _, err := e.c.Workflows.Cancel(t.Context(), wfRef(e.srv, 1)); err != nil {
				t.Fatal(err)
			}
		}, platform.WorkflowCancelled, half},
		{"failure", func(t *testing.T, e *drEnv, wf *platform.Workflow) {
			if err := e.srv.FailNext(wf.ID); err != nil {
				t.Fatal(err)
			}
			// The copy step fails at its end (70 s), when every row was
			// copied: they are dropped.
		}, platform.WorkflowError, []wfTableRow{{"audit", 0, 1000, 0, 70 * time.Second}, {"users", 0, 1000, 0, 70 * time.Second}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newWFEnv(t)
			p := wfCreate(e.srv)
			p.Tables = []string{"audit", "users"}
			wf, err := e.c.Workflows.Create(t.Context(), p)
			if err != nil {
				t.Fatal(err)
			}
			e.srv.Advance(25 * time.Second)
			tc.leave(t, e, wf)
			e.srv.Advance(time.Minute)
			got, err := e.c.Workflows.Get(t.Context(), wfRef(e.srv, 1))
			if err != nil {
				t.Fatal(err)
			}
			if got.State != tc.state {
				t.Errorf("state %s, want %s", got.State, tc.state)
			}
			if diff := cmp.Diff(tc.want, wfTableRows(t, got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if tc.state != platform.WorkflowError {
				return
			}
			if _, err := e.c.Workflows.Retry(t.Context(), wfRef(e.srv, 1)); err != nil {
				t.Fatal(err)
			}
			e.srv.Advance(45 * time.Second) // three quarters of the copy again
			got, err = e.c.Workflows.Get(t.Context(), wfRef(e.srv, 1))
			if err != nil {
				t.Fatal(err)
			}
			want := []wfTableRow{{"audit", 1000, 1000, 100, 115 * time.Second}, {"users", 500, 1000, 50, 130 * time.Second}}
			if diff := cmp.Diff(want, wfTableRows(t, got)); diff != "" {
				t.Errorf("retried (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCreateWorkflowBranchName sends create_workflow's raw body: the
// branch as branch_name (the service's own clients' name), as branch
// (earlier versions of the SDK's), or both, which must agree; the
// workflow is built on dev, not on the default branch.
func TestCreateWorkflowBranchName(t *testing.T) {
	t.Parallel()
	const fields = `"source_keyspace":"app","target_keyspace":"archive","tables":["orders"]`
	tests := []struct {
		name, body string
		words      []string // of a 422; none for a workflow on dev
	}{
		{"branch_name", `{"name":"a",` + fields + `,"branch_name":"dev"}`, nil},
		{"branch", `{"name":"b",` + fields + `,"branch":"dev"}`, nil},
		{"both alike", `{"name":"c",` + fields + `,"branch_name":"dev","branch":"dev"}`, nil},
		{"both different", `{"name":"d",` + fields + `,"branch_name":"dev","branch":"main"}`, []string{`branch_name "dev"`, `branch "main"`}},
		{"branch_name unknown", `{"name":"e",` + fields + `,"branch_name":"nope"}`, []string{"branch", `"nope"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newWFEnv(t)
			e.branch("dev", drChange...) // orders only on dev; archive too
			req, err := e.c.NewRequest(t.Context(), "POST", "v1/organizations/"+e.org+"/databases/"+drDB+"/workflows", json.RawMessage(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			before := opWorldState(t, e.srv)
			var wf platform.Workflow
			_, err = e.c.Do(req, &wf)
			if tt.words != nil {
				apiError(t, err, 422, tt.words...)
				if diff := worldStateDiff(t, before, opWorldState(t, e.srv)); diff != "" {
					t.Errorf("a refused create changed the world:\n%s", diff)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if wf.Branch == nil || wf.Branch.Name != "dev" || len(wf.Tables) != 1 || wf.Tables[0].Name != "orders" || wf.Tables[0].RowsTotal != 1000 {
				t.Errorf("workflow: branch %v, tables %+v; want on dev, moving orders", wf.Branch, wf.Tables)
			}
		})
	}
}

// wfToolView is what the service's command-line tool reads of a
// workflow body for workflow create and workflow show (its table lists
// the tables' names; its JSON output the whole body, the tables' rows
// too), with the JSON names and kinds its client decodes.
type wfToolView struct {
	Number uint64 `json:"number"`
	Name   string `json:"name"`
	State  string `json:"state"`
	Branch struct {
		Name string `json:"name"`
	} `json:"branch"`
	SourceKeyspace struct {
		Name string `json:"name"`
	} `json:"source_keyspace"`
	TargetKeyspace struct {
		Name string `json:"name"`
	} `json:"target_keyspace"`
	Tables []struct {
		ID             string    `json:"id"`
		Name           string    `json:"name"`
		CreatedAt      time.Time `json:"created_at"`
		UpdatedAt      time.Time `json:"updated_at"`
		RowsCopied     uint64    `json:"rows_copied"`
		RowsTotal      uint64    `json:"rows_total"`
		RowsPercentage uint      `json:"rows_percentage"`
	} `json:"tables"`
}

// TestWorkflowAsTheToolShowsIt holds the fake to what the service's
// command-line tool did against it (workflow create on dev, a branch that
// is not the default, then workflow show): create's body as the tool
// sends it, with branch_name, builds the workflow on dev, and create and
// show list its tables with their rows, which show follows along the
// copy.
func TestWorkflowAsTheToolShowsIt(t *testing.T) {
	t.Parallel()
	e := newWFEnv(t)
	e.branch("dev", drChange...) // orders on dev; archive too
	path := "v1/organizations/" + e.org + "/databases/" + drDB + "/workflows"
	send := func(method, path string, body any) wfToolView {
		t.Helper()
		req, err := e.c.NewRequest(t.Context(), method, path, body)
		if err != nil {
			t.Fatal(err)
		}
		var raw []byte
		if _, err := e.c.Do(req, &raw); err != nil {
			t.Fatal(err)
		}
		var v wfToolView
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatalf("the tool's client cannot read %s: %v", raw, err)
		}
		return v
	}
	type table struct {
		Name                   string
		Copied, Total, Percent uint64
	}
	tables := func(v wfToolView) []table {
		out := []table{}
		for _, tb := range v.Tables {
			if tb.ID == "" || tb.CreatedAt.IsZero() || tb.UpdatedAt.Before(tb.CreatedAt) {
				t.Errorf("table %s: id %q, created %v, updated %v", tb.Name, tb.ID, tb.CreatedAt, tb.UpdatedAt)
			}
			out = append(out, table{tb.Name, tb.RowsCopied, tb.RowsTotal, uint64(tb.RowsPercentage)})
		}
		return out
	}
	// The tool's body: every flag's value, the global keyspace "" when
	// not given.
	created := send("POST", path, json.RawMessage(`{"branch_name":"dev","name":"move","source_keyspace":"app","target_keyspace":"archive",
		"tables":["users","orders"],"global_keyspace":"","defer_secondary_keys":true,"on_ddl":"STOP"}`))
	if created.Branch.Name != "dev" || created.SourceKeyspace.Name != "app" || created.TargetKeyspace.Name != wfTarget || created.State != "pending" {
		t.Errorf("created: %+v", created)
	}
	if diff := cmp.Diff([]table{{"users", 0, 1000, 0}, {"orders", 0, 1000, 0}}, tables(created)); diff != "" {
		t.Errorf("workflow create (-want +got):\n%s", diff)
	}
	show := fmt.Sprintf("%s/%d", path, created.Number)
	steps := []struct {
		advance time.Duration
		want    []table
	}{
		{25 * time.Second, []table{{"users", 500, 1000, 50}, {"orders", 0, 1000, 0}}}, // 15 s of the minute's copy
		{time.Minute, []table{{"users", 1000, 1000, 100}, {"orders", 1000, 1000, 100}}},
	}
	for _, st := range steps {
		e.srv.Advance(st.advance)
		if diff := cmp.Diff(st.want, tables(send("GET", show, nil))); diff != "" {
			t.Errorf("workflow show after %v more (-want +got):\n%s", st.advance, diff)
		}
	}
}

// TestWorkflowSnapshotRefusesTableCopies restores a running workflow's
// snapshot with its tables' copies edited to what the API cannot reach:
// each is refused, naming the copy.
func TestWorkflowSnapshotRefusesTableCopies(t *testing.T) {
	t.Parallel()
	_, _, snap := wfSnapshotIn(t, platform.WorkflowRunning)
	copyOf := func(m map[string]any) map[string]any {
		wf, _ := wfInDoc(t, m)
		return wf["table_copies"].([]any)[0].(map[string]any)
	}
	tests := []struct {
		name  string
		edit  func(m map[string]any)
		words []string
	}{
		{"no copies", func(m map[string]any) {
			wf, _ := wfInDoc(t, m)
			wf["table_copies"] = []any{}
		}, []string{"0 table_copies for 1 tables"}},
		{"more copied than there are rows", func(m map[string]any) { copyOf(m)["copied"] = 2000 }, []string{"table_copies[0]", "copied 2000 is not between 0 and total 1000"}},
		{"no rows", func(m map[string]any) { copyOf(m)["total"], copyOf(m)["copied"] = 0, 0 }, []string{"table_copies[0]", "total 0"}},
		{"rows left after the copy", func(m map[string]any) { copyOf(m)["copied"] = 500 }, []string{"table_copies[0]", "copied 500 of 1000 after the copy was done"}},
		{"made before its workflow", func(m map[string]any) { copyOf(m)["created"] = "2000-01-01T00:00:00Z" }, []string{"table_copies[0]", "not with its workflow"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			wfRestoreRefused(t, snapshotEdit(t, snap, tt.edit), tt.words...)
		})
	}
}

// TestWorkflowSnapshotRefuses restores a running workflow's snapshot with
// its fields edited to what the API cannot reach: each is refused, naming
// the workflow's path and the field.
func TestWorkflowSnapshotRefuses(t *testing.T) {
	t.Parallel()
	_, _, snap := wfSnapshotIn(t, platform.WorkflowRunning)
	wf := func(m map[string]any) map[string]any {
		wf, _ := wfInDoc(t, m)
		return wf
	}
	var path string // of the workflow in the document
	snapshotEdit(t, snap, func(m map[string]any) { _, path = wfInDoc(t, m) })
	tests := []struct {
		name  string
		edit  func(m map[string]any)
		words []string
	}{
		{"a branch of no database", func(m map[string]any) { wf(m)["branch"] = "nobranch" }, []string{`"nobranch" is not in the snapshot`}},
		{"number 0", func(m map[string]any) { wf(m)["number"] = 0 }, []string{"number 0 is not a new workflow number"}},
		{"a state the API has not", func(m map[string]any) { wf(m)["state"] = "dreaming" }, []string{`unknown state "dreaming"`}},
		{"an error without the state it failed in", func(m map[string]any) { wf(m)["state"] = "error" }, []string{`state error with failed_from ""`}},
		{"failed from a state not on the clock", func(m map[string]any) { wf(m)["state"], wf(m)["failed_from"] = "error", "completed" },
			[]string{`failed_from "completed" is not a state left on the clock`}},
		{"a negative step left", func(m map[string]any) { wf(m)["step_left"] = -1 }, []string{"step_left -1ns is negative"}},
		{"actors missing", func(m map[string]any) { wf(m)["actors"] = []any{} }, []string{"0 actors, want 10"}},
		{"an actor not in the snapshot", func(m map[string]any) { wf(m)["actors"].([]any)[0] = "ghost" }, []string{`"ghost" is not in the snapshot`}},
		{"a source keyspace not of its branch", func(m map[string]any) { wf(m)["source_keyspace"].(map[string]any)["id"] = "noks" },
			[]string{"keyspace noks is not a keyspace of branch"}},
		{"a target keyspace not of its branch", func(m map[string]any) { wf(m)["target_keyspace"].(map[string]any)["id"] = "noks" },
			[]string{"keyspace noks is not a keyspace of branch"}},
		{"a global keyspace not of its branch", func(m map[string]any) {
			g := maps.Clone(wf(m)["source_keyspace"].(map[string]any))
			g["id"] = "noks"
			wf(m)["global_keyspace"] = g
		}, []string{"keyspace noks is not a keyspace of branch"}},
		{"a table copy without an ID", func(m map[string]any) { wf(m)["table_copies"].([]any)[0].(map[string]any)["id"] = "" },
			[]string{"table_copies[0]: without an ID"}},
		{"a table copy updated before it was made", func(m map[string]any) {
			wf(m)["table_copies"].([]any)[0].(map[string]any)["updated"] = "2000-01-01T00:00:00Z"
		}, []string{"table_copies[0].updated: 2000-01-01T00:00:00Z is not from its creation"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			wfRestoreRefused(t, snapshotEdit(t, snap, tt.edit), append(tt.words, path)...)
		})
	}
	// A workflow that verified its data holds its verification, ended.
	_, _, verified := wfSnapshotIn(t, platform.WorkflowVerifiedData)
	vdiff := func(m map[string]any) map[string]any { return wf(m)["vdiff"].(map[string]any) }
	for _, tt := range []struct {
		name  string
		edit  func(m map[string]any)
		words []string
	}{
		{"a verification ended as none ends", func(m map[string]any) { vdiff(m)["state"] = "started" },
			[]string{`vdiff: state "started" is not how a verification ends (completed, error or stopped)`}},
		{"a verification ended without its end", func(m map[string]any) { delete(vdiff(m), "ended") }, []string{`vdiff: state "completed" with ended 0001-01-01`}},
		{"a verification ended after the snapshot", func(m map[string]any) { vdiff(m)["ended"] = "2100-01-01T00:00:00Z" },
			[]string{"vdiff: ended 2100-01-01 00:00:00 +0000 UTC, not between its beginning"}},
		{"a verification completed for a workflow never verified", func(m map[string]any) { wf(m)["verified"] = "0001-01-01T00:00:00Z" },
			[]string{"vdiff: completed, and its workflow never verified its data"}},
		{"a verification running while its workflow does not verify", func(m map[string]any) { delete(vdiff(m), "state"); delete(vdiff(m), "ended") },
			[]string{`vdiff: state "" while its workflow is verified_data`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			wfRestoreRefused(t, snapshotEdit(t, verified, tt.edit), append(tt.words, path)...)
		})
	}
}

// wfSnapshotIn drives the workflow wfCreate makes in newWFEnv's world to
// state, and returns the world, the workflow and the world's snapshot.
func wfSnapshotIn(t *testing.T, state platform.WorkflowState) (*drEnv, *platform.Workflow, []byte) {
	t.Helper()
	e := newWFEnv(t)
	wf := wfDrive(t, e.srv, nil, wfCreate(e.srv), state)
	snap, err := e.srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	return e, wf, snap
}

// wfWithout returns snap with field removed from each of its workflows,
// as a fake older than the field saved them; the test fails unless one
// held it.
func wfWithout(t *testing.T, snap []byte, field string) []byte {
	t.Helper()
	removed := 0
	old := snapshotEdit(t, snap, func(m map[string]any) {
		for _, db := range m["databases"].([]any) {
			for _, wf := range db.(map[string]any)["workflows"].([]any) {
				if _, ok := wf.(map[string]any)[field]; ok {
					delete(wf.(map[string]any), field)
					removed++
				}
			}
		}
	})
	if removed == 0 {
		t.Fatalf("no workflow of the snapshot holds %s", field)
	}
	return old
}

// wfInDoc returns the first workflow of a snapshot document, and its path.
func wfInDoc(t *testing.T, m map[string]any) (map[string]any, string) {
	t.Helper()
	for i, db := range m["databases"].([]any) {
		if wfs, ok := db.(map[string]any)["workflows"].([]any); ok && len(wfs) > 0 {
			return wfs[0].(map[string]any), fmt.Sprintf("databases[%d].workflows[0]", i)
		}
	}
	t.Fatal("no workflow in the snapshot")
	return nil, ""
}

// wfRestoreRefused restores snap into a new server and checks that it is
// refused, the error saying each of words.
func wfRestoreRefused(t *testing.T, snap []byte, words ...string) {
	t.Helper()
	err := fake.NewServer(t, fake.WithTimings(wfTimings)).Restore(snap)
	if err == nil {
		t.Fatal("restored")
	}
	for _, w := range words {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
}

// TestWorkflowSnapshotWithoutVReplication restores a snapshot of a fake
// older than a documented workflow's VReplication workflow: the running
// workflow gets the one its creation makes, which Vitess lists with its
// streams, and it goes on to the same state as the original's.
func TestWorkflowSnapshotWithoutVReplication(t *testing.T) {
	t.Parallel()
	e, want, snap := wfSnapshotIn(t, platform.WorkflowRunning)
	old := wfWithout(t, snap, "vreplication")
	other := fake.NewServer(t, fake.WithTimings(wfTimings))
	if err := other.Restore(old); err != nil {
		t.Fatal(err)
	}
	list, err := other.Client().Vitess.ListWorkflows(t.Context(), &platform.ListVReplicationWorkflowsParams{
		Organization: other.Org(), Database: drDB, Branch: "main", Keyspace: wfTarget,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Workflows) != 1 || list.Workflows[0].Name != want.Name || list.Workflows[0].Type != "MoveTables" || len(list.Workflows[0].Streams) == 0 {
		t.Fatalf("the restored VReplication workflows: %s, want %s's MoveTables with its streams", list.Raw, want.Name)
	}
	var states []platform.WorkflowState
	for _, srv := range []*fake.Server{e.srv, other} {
		srv.Advance(time.Hour)
		got, err := srv.Client().Workflows.Get(t.Context(), wfRef(srv, want.Number))
		if err != nil {
			t.Fatal(err)
		}
		states = append(states, got.State)
	}
	if states[0] != states[1] {
		t.Errorf("an hour later the original is %s, the restored workflow %s", states[0], states[1])
	}
}

// TestWorkflowSnapshotWithoutTableCopies restores a snapshot of a fake
// older than table copies: its workflows' tables are derived (every row
// once the copy is done), with IDs that two restores agree on.
func TestWorkflowSnapshotWithoutTableCopies(t *testing.T) {
	t.Parallel()
	_, want, snap := wfSnapshotIn(t, platform.WorkflowRunning)
	old := wfWithout(t, snap, "table_copies")
	var ids []string
	for range 2 {
		other := fake.NewServer(t, fake.WithTimings(wfTimings))
		if err := other.Restore(old); err != nil {
			t.Fatal(err)
		}
		got, err := other.Client().Workflows.Get(t.Context(), wfRef(other, want.Number))
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Tables) != 1 {
			t.Fatalf("tables = %+v, want one", got.Tables)
		}
		tbl := got.Tables[0]
		if tbl.Name != "audit" || tbl.RowsCopied != tbl.RowsTotal || tbl.RowsTotal == 0 || tbl.RowsPercentage != 100 {
			t.Errorf("derived table = %+v, want audit with every row copied", tbl)
		}
		ids = append(ids, tbl.ID)
	}
	if ids[0] != ids[1] || ids[0] == "" {
		t.Errorf("two restores derived table IDs %q", ids)
	}
}
