package fake_test

import (
	"bytes"
	"fmt"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
)

// allDeploymentStates are the twenty states of a deployment.
var allDeploymentStates = []platform.DeploymentState{
	"pending", "ready", "no_changes", "queued", "submitting", "in_progress",
	"pending_cutover", "in_progress_vschema", "in_progress_cancel", "in_progress_cutover",
	"complete", "complete_cancel", "complete_error", "complete_pending_revert",
	"in_progress_revert", "in_progress_revert_vschema", "complete_revert",
	"complete_revert_error", "cancelled", "error",
}

// drStep is one step of a walk: an action of drActions, "fail" (FailNext
// on the deployment), or moving the clock.
type drStep struct {
	action  string
	advance time.Duration
}

func act(action string) drStep                 { return drStep{action: action} }
func adv(d time.Duration) drStep               { return drStep{advance: d} }
func then(s []drStep, more ...drStep) []drStep { return append(slices.Clone(s), more...) }

var failNext = drStep{action: "fail"}

// The walks to each state of a change (drChange), with auto_cutover off,
// from the creation of the deploy request. Sharded walks change a table of
// a sharded keyspace (drShardedChange).
var (
	toReady          = []drStep{adv(time.Second)}
	toQueued         = then(toReady, act("deploy"))
	toSubmitting     = then(toQueued, adv(time.Second))
	toInProgress     = then(toSubmitting, adv(time.Second))
	toPendingCutover = then(toInProgress, adv(10*time.Second))
	toCutover        = then(toPendingCutover, act("apply-deploy"))
	toPendingRevert  = then(toCutover, adv(time.Second))
	toRevert         = then(toPendingRevert, act("revert"))
	// sharded
	toVSchema       = then(toInProgress, adv(10*time.Second))
	toRevertVSchema = then(toVSchema, adv(time.Second), act("apply-deploy"), adv(time.Second), act("revert"), adv(5*time.Second))
)

// walkRow is one edge of the state machine: a walk from creation and what
// it must leave. stamps, actors and events are space-separated lists.
type walkRow struct {
	name    string
	schema  []string // the change pushed to the head branch
	sharded bool
	create  platform.CreateDeployRequestParams
	steps   []drStep
	want    platform.DeploymentState
	closed  bool
	// stamps are the timestamps that are set, among queued, submitted,
	// started, ready_to_cutover, force_cutover, cutover, finished, closed
	// and deployed.
	stamps string
	// actors are the actors that are set, among actor, cutover_actor,
	// cancelled_actor and closed_by.
	actors string
	// events are the deploy_request.* events emitted, without the prefix.
	events string
}

const (
	evQueued  = "opened queued"
	evStarted = evQueued + " in_progress"
	evGate    = evStarted + " pending_cutover"
	evApplied = evGate + " schema_applied"
	stQueued  = "queued submitted"
	stStarted = stQueued + " started"
	stGate    = stStarted + " ready_to_cutover"
	stApplied = stGate + " cutover finished deployed"
)

var walkRows = []walkRow{
	{name: "create", want: "pending", events: "opened"},
	{name: "pending to ready", steps: toReady, want: "ready", events: "opened"},
	{name: "pending to no_changes", schema: []string{}, steps: toReady, want: "no_changes", events: "opened"},
	{name: "pending to error by lint errors", schema: drLintError, steps: toReady, want: "error", events: "opened errored"},
	{name: "pending to error by failure", steps: []drStep{failNext, adv(time.Second)}, want: "error", events: "opened errored"},
	{name: "ready to queued by deploy", steps: toQueued, want: "queued", stamps: stQueued, actors: "actor", events: evQueued},
	{name: "queued to submitting", steps: toSubmitting, want: "submitting", stamps: stQueued, actors: "actor", events: evQueued},
	{name: "submitting to in_progress", steps: toInProgress, want: "in_progress", stamps: stStarted, actors: "actor", events: evStarted},
	{name: "in_progress to pending_cutover", steps: toPendingCutover, want: "pending_cutover", stamps: stGate, actors: "actor", events: evGate},
	{name: "in_progress to in_progress_vschema", sharded: true, steps: toVSchema, want: "in_progress_vschema", stamps: stStarted, actors: "actor", events: evStarted},
	{name: "in_progress_vschema to pending_cutover", sharded: true, steps: then(toVSchema, adv(time.Second)), want: "pending_cutover", stamps: stGate, actors: "actor", events: evGate},
	{name: "in_progress to in_progress_cutover by auto_cutover", create: platform.CreateDeployRequestParams{AutoCutover: platform.Ptr(true)}, steps: toPendingCutover, want: "in_progress_cutover", stamps: stGate, actors: "actor cutover_actor", events: evStarted},
	{name: "in_progress_vschema to in_progress_cutover by auto_cutover", sharded: true, create: platform.CreateDeployRequestParams{AutoCutover: platform.Ptr(true)}, steps: then(toVSchema, adv(time.Second)), want: "in_progress_cutover", stamps: stGate, actors: "actor cutover_actor", events: evStarted},
	{name: "in_progress to in_progress_cutover by auto-apply", steps: then(toInProgress, act("auto-apply"), adv(10*time.Second)), want: "in_progress_cutover", stamps: stGate, actors: "actor cutover_actor", events: evStarted},
	{name: "in_progress to in_progress_cutover by force-cutover", steps: then(toInProgress, act("force-cutover"), adv(10*time.Second)), want: "in_progress_cutover", stamps: stGate + " force_cutover", actors: "actor cutover_actor", events: evStarted},
	{name: "pending_cutover to in_progress_cutover by apply-deploy", steps: toCutover, want: "in_progress_cutover", stamps: stGate, actors: "actor cutover_actor", events: evGate},
	{name: "pending_cutover to in_progress_cutover by force-cutover", steps: then(toPendingCutover, act("force-cutover")), want: "in_progress_cutover", stamps: stGate + " force_cutover", actors: "actor cutover_actor", events: evGate},
	{name: "pending_cutover to in_progress_cutover by auto-apply", steps: then(toPendingCutover, act("auto-apply")), want: "in_progress_cutover", stamps: stGate, actors: "actor cutover_actor", events: evGate},
	{name: "in_progress_cutover to complete_pending_revert", steps: toPendingRevert, want: "complete_pending_revert", stamps: stApplied, actors: "actor cutover_actor", events: evApplied},
	{name: "complete_pending_revert to complete by skip-revert", steps: then(toPendingRevert, act("skip-revert")), want: "complete", closed: true, stamps: stApplied + " closed", actors: "actor cutover_actor closed_by", events: evApplied + " closed"},
	{name: "complete_pending_revert to complete at the end of the window", steps: then(toPendingRevert, adv(30*time.Minute)), want: "complete", closed: true, stamps: stApplied + " closed", actors: "actor cutover_actor closed_by", events: evApplied + " closed"},
	{name: "complete_pending_revert to in_progress_revert", steps: toRevert, want: "in_progress_revert", stamps: stApplied, actors: "actor cutover_actor", events: evApplied},
	{name: "in_progress_revert to complete_revert", steps: then(toRevert, adv(5*time.Second)), want: "complete_revert", closed: true, stamps: stApplied + " closed", actors: "actor cutover_actor closed_by", events: evApplied + " reverted closed"},
	{name: "in_progress_revert to in_progress_revert_vschema", sharded: true, steps: toRevertVSchema, want: "in_progress_revert_vschema", stamps: stApplied, actors: "actor cutover_actor", events: evApplied},
	{name: "in_progress_revert_vschema to complete_revert", sharded: true, steps: then(toRevertVSchema, adv(time.Second)), want: "complete_revert", closed: true, stamps: stApplied + " closed", actors: "actor cutover_actor closed_by", events: evApplied + " reverted closed"},
	{name: "queued to in_progress_cancel", steps: then(toQueued, act("cancel")), want: "in_progress_cancel", stamps: stQueued, actors: "actor cancelled_actor", events: evQueued},
	{name: "submitting to in_progress_cancel", steps: then(toSubmitting, act("cancel")), want: "in_progress_cancel", stamps: stQueued, actors: "actor cancelled_actor", events: evQueued},
	{name: "in_progress to in_progress_cancel", steps: then(toInProgress, act("cancel")), want: "in_progress_cancel", stamps: stStarted, actors: "actor cancelled_actor", events: evStarted},
	{name: "pending_cutover to in_progress_cancel", steps: then(toPendingCutover, act("cancel")), want: "in_progress_cancel", stamps: stGate, actors: "actor cancelled_actor", events: evGate},
	{name: "in_progress_cancel to complete_cancel", steps: then(toInProgress, act("cancel"), adv(time.Second)), want: "complete_cancel", closed: true, stamps: stStarted + " finished closed", actors: "actor cancelled_actor closed_by", events: evStarted + " closed"},
	{name: "pending to cancelled by close", steps: []drStep{act("close"), adv(time.Minute)}, want: "cancelled", closed: true, stamps: "closed", actors: "closed_by", events: "opened closed"},
	{name: "ready to cancelled by close", steps: then(toReady, act("close")), want: "cancelled", closed: true, stamps: "closed", actors: "closed_by", events: "opened closed"},
	{name: "no_changes to cancelled by close", schema: []string{}, steps: then(toReady, act("close")), want: "cancelled", closed: true, stamps: "closed", actors: "closed_by", events: "opened closed"},
	{name: "error to cancelled by close", schema: drLintError, steps: then(toReady, act("close")), want: "cancelled", closed: true, stamps: "closed", actors: "closed_by", events: "opened errored closed"},
	{name: "queued to complete_error", steps: then(toQueued, failNext, adv(time.Second)), want: "complete_error", stamps: stQueued + " finished", actors: "actor", events: evQueued + " errored"},
	{name: "submitting to complete_error", steps: then(toSubmitting, failNext, adv(time.Second)), want: "complete_error", stamps: stQueued + " finished", actors: "actor", events: evQueued + " errored"},
	{name: "in_progress to complete_error", steps: then(toInProgress, failNext, adv(10*time.Second)), want: "complete_error", stamps: stStarted + " finished", actors: "actor", events: evStarted + " errored"},
	{name: "in_progress_vschema to complete_error", sharded: true, steps: then(toVSchema, failNext, adv(time.Second)), want: "complete_error", stamps: stStarted + " finished", actors: "actor", events: evStarted + " errored"},
	{name: "in_progress_cutover to complete_error", steps: then(toCutover, failNext, adv(time.Second)), want: "complete_error", stamps: stGate + " finished", actors: "actor cutover_actor", events: evGate + " errored"},
	{name: "in_progress_cancel to complete_error", steps: then(toInProgress, act("cancel"), failNext, adv(time.Second)), want: "complete_error", stamps: stStarted + " finished", actors: "actor cancelled_actor", events: evStarted + " errored"},
	{name: "in_progress_revert to complete_revert_error", steps: then(toRevert, failNext, adv(5*time.Second)), want: "complete_revert_error", stamps: stApplied, actors: "actor cutover_actor", events: evApplied + " errored"},
	{name: "in_progress_revert_vschema to complete_revert_error", sharded: true, steps: then(toRevertVSchema, failNext, adv(time.Second)), want: "complete_revert_error", stamps: stApplied, actors: "actor cutover_actor", events: evApplied + " errored"},
	{name: "complete_error to complete by complete-deploy", steps: then(toInProgress, failNext, adv(10*time.Second), act("complete-deploy")), want: "complete", closed: true, stamps: stStarted + " finished closed", actors: "actor closed_by", events: evStarted + " errored closed"},
	{name: "complete_revert_error to complete by complete-deploy", steps: then(toRevert, failNext, adv(5*time.Second), act("complete-deploy")), want: "complete", closed: true, stamps: stApplied + " closed", actors: "actor cutover_actor closed_by", events: evApplied + " errored closed"},
	{name: "instant DDL: ready to complete without gate or window", steps: then(toReady, act("deploy-instant"), adv(12*time.Second)), want: "complete", closed: true, stamps: stStarted + " cutover finished deployed closed", actors: "actor closed_by", events: evStarted + " schema_applied closed"},
}

// walk sets up a deploy request for row in a fresh fake and takes its steps.
func (row walkRow) walk(t *testing.T) *drEnv {
	t.Helper()
	e := newDREnv(t, row.sharded)
	switch {
	case row.schema != nil:
		e.branch("dev", row.schema...)
	case row.sharded:
		e.branch("dev", drShardedChange...)
	default:
		e.branch("dev", drChange...)
	}
	p := row.create
	p.Branch = "dev"
	e.takeSteps(e.open(p), row.steps)
	return e
}

// takeSteps takes the steps of a walk on deploy request dr.
func (e *drEnv) takeSteps(dr *platform.DeployRequest, steps []drStep) {
	e.t.Helper()
	for _, st := range steps {
		switch st.action {
		case "":
		case "fail":
			if err := e.srv.FailNext(dr.Deployment.ID); err != nil {
				e.t.Fatal(err)
			}
		default:
			e.mustDo(st.action, dr.Number)
		}
		e.srv.Advance(st.advance)
	}
}

// fieldsSet lists which of the named optional fields are set.
func fieldsSet(fields map[string]bool) string {
	var out []string
	for name, set := range fields {
		if set {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return strings.Join(out, " ")
}

// sortedWords sorts a space-separated list.
func sortedWords(s string) string {
	w := strings.Fields(s)
	slices.Sort(w)
	return strings.Join(w, " ")
}

func TestDeploymentStateMachine(t *testing.T) {
	t.Parallel()
	reached := map[platform.DeploymentState]bool{}
	for _, row := range walkRows {
		reached[row.want] = true
	}
	for _, st := range allDeploymentStates {
		if !reached[st] {
			t.Errorf("no walk reaches %s", st)
		}
	}
	for _, row := range walkRows {
		t.Run(row.name, func(t *testing.T) {
			t.Parallel()
			e := row.walk(t)
			dr := e.get(1)
			d := dr.Deployment
			if d.State != row.want || dr.DeploymentState != row.want {
				t.Fatalf("state %s, deployment_state %s; want %s", d.State, dr.DeploymentState, row.want)
			}
			wantDR := platform.DeployRequestOpen
			if row.closed {
				wantDR = platform.DeployRequestClosed
			}
			if dr.State != wantDR {
				t.Errorf("deploy request is %s, want %s", dr.State, wantDR)
			}
			stamps := fieldsSet(map[string]bool{
				"queued": d.QueuedAt != nil, "submitted": d.SubmittedAt != nil, "started": d.StartedAt != nil,
				"ready_to_cutover": d.ReadyToCutoverAt != nil, "force_cutover": d.ForceCutoverRequestedAt != nil,
				"cutover": d.CutoverAt != nil, "finished": d.FinishedAt != nil,
				"closed": dr.ClosedAt != nil, "deployed": dr.DeployedAt != nil,
			})
			if want := sortedWords(row.stamps); stamps != want {
				t.Errorf("timestamps set: %q, want %q", stamps, want)
			}
			actors := fieldsSet(map[string]bool{
				"actor": d.Actor != nil, "cutover_actor": d.CutoverActor != nil,
				"cancelled_actor": d.CancelledActor != nil, "closed_by": dr.ClosedBy != nil,
			})
			if want := sortedWords(row.actors); actors != want {
				t.Errorf("actors set: %q, want %q", actors, want)
			}
			if got := strings.Join(e.drEvents(), " "); got != row.events {
				t.Errorf("events %q, want %q", got, row.events)
			}
			// The timeline runs forward.
			var last time.Time
			for _, ts := range []*platform.Timestamp{d.QueuedAt, d.SubmittedAt, d.StartedAt, d.ReadyToCutoverAt, d.CutoverAt, d.FinishedAt} {
				if ts == nil {
					continue
				}
				if ts.Time.Before(last) {
					t.Errorf("timeline goes back: queued %v submitted %v started %v ready %v cutover %v finished %v",
						d.QueuedAt, d.SubmittedAt, d.StartedAt, d.ReadyToCutoverAt, d.CutoverAt, d.FinishedAt)
				}
				last = ts.Time
			}
			if d.Deployable != (row.want == platform.DeploymentReady) {
				t.Errorf("deployable = %t in %s", d.Deployable, row.want)
			}
		})
	}
}

// allowedIn are the states each action is allowed in; every other state
// refuses it.
var allowedIn = map[string][]platform.DeploymentState{
	"close":              {"pending", "ready", "no_changes", "error"},
	"deploy":             {"ready"},
	"deploy-instant":     {"ready"},
	"apply-deploy":       {"pending_cutover"},
	"force-cutover":      {"queued", "submitting", "in_progress", "in_progress_vschema", "pending_cutover"},
	"auto-apply":         {"pending", "ready", "queued", "submitting", "in_progress", "in_progress_vschema", "pending_cutover"},
	"auto-delete-branch": {"pending", "ready", "queued", "submitting", "in_progress", "in_progress_vschema", "pending_cutover", "in_progress_cutover", "in_progress_cancel", "complete_pending_revert", "in_progress_revert", "in_progress_revert_vschema"},
	"cancel":             {"queued", "submitting", "in_progress", "pending_cutover"},
	"complete-deploy":    {"complete_error", "complete_revert_error"},
	"revert":             {"complete_pending_revert"},
	"skip-revert":        {"complete_pending_revert"},
}

func TestDeploymentActionsRefused(t *testing.T) {
	t.Parallel()
	for _, st := range allDeploymentStates {
		i := slices.IndexFunc(walkRows, func(r walkRow) bool { return r.want == st })
		if i < 0 {
			t.Errorf("no walk reaches %s", st)
			continue
		}
		row := walkRows[i]
		t.Run(string(st), func(t *testing.T) {
			t.Parallel()
			e := row.walk(t)
			names := regexp.MustCompile(`(^|[^a-z_])` + string(st) + `([^a-z_]|$)`)
			before, events := e.get(1), e.srv.EventNames()
			refused := 0
			for _, a := range drActions {
				if slices.Contains(allowedIn[a.name], st) {
					continue
				}
				refused++
				err := e.do(a.name, 1)
				if err == nil {
					t.Errorf("%s in %s: accepted", a.name, st)
					continue
				}
				if apiErr := apiError(t, err, http.StatusUnprocessableEntity); !names.MatchString(apiErr.Message) {
					t.Errorf("%s in %s: message %q does not name the state", a.name, st, apiErr.Message)
				}
			}
			if refused == 0 {
				t.Fatalf("no action is refused in %s", st)
			}
			if diff := cmp.Diff(before, e.get(1)); diff != "" {
				t.Errorf("refused actions changed the deploy request (-before +after):\n%s", diff)
			}
			if got := e.srv.EventNames(); !slices.Equal(got, events) {
				t.Errorf("refused actions emitted events: %v, had %v", got, events)
			}
		})
	}
}

func TestDeploymentTimeline(t *testing.T) {
	t.Parallel()
	e := newDREnv(t, false)
	e.branch("dev", drChange...)
	t0 := e.srv.Now()
	e.open(platform.CreateDeployRequestParams{Branch: "dev"})
	for _, st := range then(toPendingCutover, adv(time.Minute), act("apply-deploy"), adv(time.Second), act("skip-revert")) {
		if st.action != "" {
			e.mustDo(st.action, 1)
		}
		e.srv.Advance(st.advance)
	}
	dr := e.get(1)
	d := dr.Deployment
	at := func(ts *platform.Timestamp) time.Duration {
		if ts == nil {
			return -1
		}
		return ts.Time.Sub(t0)
	}
	got := map[string]time.Duration{
		"queued": at(d.QueuedAt), "submitted": at(d.SubmittedAt), "started": at(d.StartedAt),
		"ready_to_cutover": at(d.ReadyToCutoverAt), "cutover": at(d.CutoverAt), "finished": at(d.FinishedAt),
		"deployed": at(dr.DeployedAt), "closed": at(dr.ClosedAt),
	}
	// Deployed at 1s; submitting 1s later, in_progress 1s after that for
	// 10s; the gate waits a minute; the cutover takes 1s.
	s := time.Second
	want := map[string]time.Duration{
		"queued": 1 * s, "submitted": 1 * s, "started": 3 * s, "ready_to_cutover": 13 * s,
		"cutover": 74 * s, "finished": 74 * s, "deployed": 74 * s, "closed": 74 * s,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("timeline after creation (-want +got):\n%s", diff)
	}
}

func TestDeploymentAppliesAndRevertsSchema(t *testing.T) {
	t.Parallel()
	e := newDREnv(t, false)
	e.branch("dev", append([]string{"DROP TABLE audit"}, drChange...)...)
	before := e.schema("main")
	e.open(platform.CreateDeployRequestParams{Branch: "dev"})
	for _, st := range toPendingCutover {
		if st.action != "" {
			e.mustDo(st.action, 1)
		}
		e.srv.Advance(st.advance)
	}
	if diff := cmp.Diff(before, e.schema("main")); diff != "" {
		t.Fatalf("main changed before the cutover (-before +now):\n%s", diff)
	}
	e.mustDo("apply-deploy", 1)
	e.srv.Advance(time.Second)
	if diff := cmp.Diff(e.schema("dev"), e.schema("main")); diff != "" {
		t.Errorf("main after the cutover differs from dev (-dev +main):\n%s", diff)
	}
	e.mustDo("revert", 1)
	e.srv.Advance(5 * time.Second)
	if st := e.state(1); st != platform.DeploymentCompleteRevert {
		t.Fatalf("state %s, want complete_revert", st)
	}
	if diff := cmp.Diff(before, e.schema("main")); diff != "" {
		t.Errorf("main after the revert (-before +now):\n%s", diff)
	}
}

func TestInstantDDL(t *testing.T) {
	t.Parallel()
	t.Run("eligible", func(t *testing.T) {
		t.Parallel()
		e := newDREnv(t, false)
		e.branch("dev", drChange...)
		e.open(platform.CreateDeployRequestParams{Branch: "dev"})
		e.srv.Advance(time.Second)
		if d := e.get(1).Deployment; !d.InstantDDLEligible {
			t.Fatal("a change without drops or sharded tables is not instant_ddl_eligible")
		}
		e.mustDo("deploy-instant", 1)
		var seen []platform.DeploymentState
		for range 13 {
			if st := e.state(1); len(seen) == 0 || seen[len(seen)-1] != st {
				seen = append(seen, st)
			}
			e.srv.Advance(time.Second)
		}
		want := []platform.DeploymentState{"queued", "submitting", "in_progress", "complete"}
		if !slices.Equal(seen, want) {
			t.Errorf("states %v, want %v: no cutover gate, no revert window", seen, want)
		}
		if d := e.get(1).Deployment; !d.InstantDDL {
			t.Error("instant_ddl = false")
		}
		if diff := cmp.Diff(e.schema("dev"), e.schema("main")); diff != "" {
			t.Errorf("main after instant deploy differs from dev (-dev +main):\n%s", diff)
		}
	})
	for _, tc := range []struct {
		name    string
		sharded bool
		schema  []string
	}{
		{"not eligible with a drop", false, []string{"DROP TABLE audit"}},
		{"not eligible with a sharded change", true, drShardedChange},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newDREnv(t, tc.sharded)
			e.branch("dev", tc.schema...)
			e.open(platform.CreateDeployRequestParams{Branch: "dev"})
			e.srv.Advance(time.Second)
			if e.get(1).Deployment.InstantDDLEligible {
				t.Fatal("instant_ddl_eligible = true")
			}
			if apiErr := apiError(t, e.do("deploy-instant", 1), http.StatusUnprocessableEntity); !strings.Contains(apiErr.Message, "instant_ddl") {
				t.Errorf("message %q does not name instant_ddl", apiErr.Message)
			}
			if st := e.state(1); st != platform.DeploymentReady {
				t.Errorf("state after refused instant deploy = %s, want ready", st)
			}
		})
	}
}

// queueNumbers returns the deploy request numbers of the deploy queue.
func (e *drEnv) queueNumbers() []int {
	e.t.Helper()
	page, err := e.c.DeployRequests.GetDeployQueue(e.t.Context(), &platform.GetDeployQueueParams{Organization: e.org, Database: drDB})
	if err != nil {
		e.t.Fatal(err)
	}
	var out []int
	for _, d := range page.Items {
		out = append(out, d.DeployRequestNumber)
	}
	return out
}

// precedingNumbers returns the numbers of the deployments ahead of
// deploy request n.
func (e *drEnv) precedingNumbers(n int) []int {
	e.t.Helper()
	var out []int
	for _, d := range e.get(n).Deployment.PrecedingDeployments {
		out = append(out, d.DeployRequestNumber)
	}
	return out
}

func TestDeployQueue(t *testing.T) {
	t.Parallel()
	e := newDREnv(t, false)
	e.branch("one", drChange...)
	e.branch("two", "CREATE TABLE invoices (id bigint NOT NULL, PRIMARY KEY (id))")
	e.open(platform.CreateDeployRequestParams{Branch: "one"})
	e.open(platform.CreateDeployRequestParams{Branch: "two", AutoCutover: platform.Ptr(true)})
	e.srv.Advance(time.Second)
	e.mustDo("deploy", 1)
	e.mustDo("deploy", 2)

	if got := e.queueNumbers(); !slices.Equal(got, []int{1, 2}) {
		t.Errorf("deploy queue %v, want [1 2]", got)
	}
	if got := e.precedingNumbers(2); !slices.Equal(got, []int{1}) {
		t.Errorf("preceding #2: %v, want [1]", got)
	}
	if got := e.precedingNumbers(1); len(got) != 0 {
		t.Errorf("preceding #1: %v, want none", got)
	}

	// #1 runs to its gate and waits there; #2 waits behind it.
	e.srv.Advance(time.Hour)
	if st1, st2 := e.state(1), e.state(2); st1 != platform.DeploymentPendingCutover || st2 != platform.DeploymentQueued {
		t.Fatalf("after an hour: #1 %s, #2 %s; want pending_cutover, queued", st1, st2)
	}
	e.mustDo("apply-deploy", 1)
	e.srv.Advance(time.Second)
	// The revert window still holds the queue.
	e.srv.Advance(10 * time.Minute)
	if st := e.state(2); st != platform.DeploymentQueued {
		t.Fatalf("#2 during #1's revert window: %s, want queued", st)
	}
	e.mustDo("skip-revert", 1)
	released := e.srv.Now()
	if got := e.queueNumbers(); !slices.Equal(got, []int{2}) {
		t.Errorf("deploy queue after #1 completed: %v, want [2]", got)
	}
	if got := e.precedingNumbers(2); len(got) != 0 {
		t.Errorf("preceding #2 after #1 completed: %v, want none", got)
	}
	e.srv.Advance(13 * time.Second)
	d := e.get(2).Deployment
	if d.State != platform.DeploymentCompletePendingRevert {
		t.Fatalf("#2: %s, want complete_pending_revert", d.State)
	}
	if started := d.StartedAt.Time; !started.Equal(released.Add(2 * time.Second)) {
		t.Errorf("#2 started at %v, want 2s after #1 completed (%v)", started, released)
	}
	tables := strings.Join(e.schema("main"), "\n")
	for _, table := range []string{"orders:", "invoices:"} {
		if !strings.Contains(tables, table) {
			t.Errorf("main lacks %s after both deployments:\n%s", table, tables)
		}
	}
}

func TestDeployQueueHeldByError(t *testing.T) {
	t.Parallel()
	e := newDREnv(t, false)
	e.branch("one", drChange...)
	e.branch("two", "CREATE TABLE invoices (id bigint NOT NULL, PRIMARY KEY (id))")
	first := e.open(platform.CreateDeployRequestParams{Branch: "one"})
	e.open(platform.CreateDeployRequestParams{Branch: "two"})
	e.srv.Advance(time.Second)
	e.mustDo("deploy", 1)
	e.mustDo("deploy", 2)
	if err := e.srv.FailNext(first.Deployment.ID); err != nil {
		t.Fatal(err)
	}
	e.srv.Advance(time.Hour)
	if st1, st2 := e.state(1), e.state(2); st1 != platform.DeploymentCompleteError || st2 != platform.DeploymentQueued {
		t.Fatalf("#1 %s, #2 %s; want complete_error, queued", st1, st2)
	}
	if got := e.queueNumbers(); !slices.Equal(got, []int{1, 2}) {
		t.Errorf("deploy queue %v, want [1 2]: the error holds it", got)
	}
	e.mustDo("complete-deploy", 1)
	e.srv.Advance(12 * time.Second)
	if st := e.state(2); st != platform.DeploymentPendingCutover {
		t.Errorf("#2 after complete-deploy of #1: %s, want pending_cutover", st)
	}
}

func TestCancelLeavesTheQueue(t *testing.T) {
	t.Parallel()
	e := newDREnv(t, false)
	e.branch("one", drChange...)
	e.branch("two", "CREATE TABLE invoices (id bigint NOT NULL, PRIMARY KEY (id))")
	e.open(platform.CreateDeployRequestParams{Branch: "one"})
	e.open(platform.CreateDeployRequestParams{Branch: "two"})
	e.srv.Advance(time.Second)
	e.mustDo("deploy", 1)
	e.mustDo("deploy", 2)
	e.mustDo("cancel", 2) // cancelled while waiting behind #1
	e.srv.Advance(time.Second)
	if st := e.state(2); st != platform.DeploymentCompleteCancel {
		t.Errorf("#2: %s, want complete_cancel", st)
	}
	e.mustDo("cancel", 1)
	e.srv.Advance(time.Second)
	if got := e.queueNumbers(); len(got) != 0 {
		t.Errorf("deploy queue %v after both were cancelled, want empty", got)
	}
}

// TestDeployNeedsSafeMigrationsStill checks that a world in which an open
// deploy request goes into a branch with safe migrations off, which the
// API does not reach (they cannot be turned off while the request is
// open, and deploying needs them), is refused by Restore, naming the
// request's base, and leaves the server as it was.
func TestDeployNeedsSafeMigrationsStill(t *testing.T) {
	t.Parallel()
	e := newDREnv(t, false)
	e.branch("dev", drChange...)
	e.open(platform.CreateDeployRequestParams{Branch: "dev"})
	e.srv.Advance(time.Second)
	before, err := e.srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	data := snapshotEdit(t, before, func(m map[string]any) {
		for i := range m["branches"].([]any) {
			if b := snapshotRecord(m, "branches", i); b["name"] == "main" {
				b["safe_migrations"] = false
			}
		}
	})
	err = e.srv.Restore(data)
	if err == nil || !strings.Contains(err.Error(), "deploy_requests[0].into: ") || !strings.Contains(err.Error(), "has safe migrations off") {
		t.Fatalf("Restore: %v, want a refusal of deploy_requests[0].into for safe migrations off", err)
	}
	after, err := e.srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Error("a refused Restore changed the server")
	}
	e.mustDo("deploy", 1)
}

func TestFailNextOnSettledDeployment(t *testing.T) {
	t.Parallel()
	e := newDREnv(t, false)
	e.branch("dev")
	dr := e.open(platform.CreateDeployRequestParams{Branch: "dev"})
	e.srv.Advance(time.Second) // no_changes: nothing ahead
	if err := e.srv.FailNext(dr.Deployment.ID); err == nil {
		t.Error("FailNext accepted a deployment with no transition ahead")
	}
}

// TestFailNextByDeployRequestID checks that FailNext takes a deploy
// request's ID for its deployment's: the deployment's next transition
// fails, as FailNext of the deployment's own ID makes it; and a deploy
// request whose deployment has settled is refused, saying so.
func TestFailNextByDeployRequestID(t *testing.T) {
	t.Parallel()
	e := newDREnv(t, false)
	e.branch("dev", drChange...)
	dr := e.open(platform.CreateDeployRequestParams{Branch: "dev"})
	e.srv.Advance(time.Second)
	e.mustDo("deploy", dr.Number)
	if err := e.srv.FailNext(dr.ID); err != nil {
		t.Fatalf("FailNext(the deploy request's ID) during its deployment: %v", err)
	}
	e.srv.Advance(time.Hour)
	if diff := cmp.Diff(platform.DeploymentCompleteError, e.state(dr.Number)); diff != "" {
		t.Errorf("deployment state (-want +got):\n%s", diff)
	}
	err := e.srv.FailNext(dr.ID)
	want := `fake: FailNext: deploy request "` + dr.ID + `" has no transition ahead: its deployment has settled`
	if err == nil || err.Error() != want {
		t.Errorf("FailNext of a settled deploy request: %v, want %s", err, want)
	}
}

// TestFailNextInRevertWindowRefused checks that FailNext refuses a
// deployment in complete_pending_revert, by its ID or its deploy
// request's, saying that nothing in that state can fail, and changes
// nothing: the window still ends in complete. Once a revert runs, FailNext
// fails it.
func TestFailNextInRevertWindowRefused(t *testing.T) {
	t.Parallel()
	e := newDREnv(t, false)
	e.branch("dev", drChange...)
	dr := e.open(platform.CreateDeployRequestParams{Branch: "dev"})
	e.takeSteps(dr, toPendingRevert)
	before := opWorldState(t, e.srv)
	for _, id := range []struct{ name, id string }{{"deployment", dr.Deployment.ID}, {"deploy request", dr.ID}} {
		err := e.srv.FailNext(id.id)
		want := `fake: FailNext: the deployment "` + dr.Deployment.ID + `" of deploy request #1 is complete_pending_revert: it has no transition that can fail in that state`
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("FailNext(the %s's ID) in the revert window: %v, want an error starting %s", id.name, err, want)
		}
	}
	if diff := worldStateDiff(t, before, opWorldState(t, e.srv)); diff != "" {
		t.Errorf("a refused FailNext changed the world:\n%s", diff)
	}
	e.takeSteps(dr, []drStep{act("revert"), failNext, adv(5 * time.Second)})
	if st := e.state(1); st != platform.DeploymentCompleteRevertError {
		t.Errorf("FailNext during the revert: state %s, want complete_revert_error", st)
	}
}

// The tables of TestThreeWayDeployRequests: users altered two ways, and
// tables a branch creates.
var (
	twUsersEmail = drChange[0]
	twUsersPhone = "CREATE TABLE `users` (id bigint NOT NULL, phone varchar(32), PRIMARY KEY (id))"
	twA          = "CREATE TABLE `a_t` (id bigint NOT NULL, PRIMARY KEY (id))"
	twB          = "CREATE TABLE `b_t` (id bigint NOT NULL, PRIMARY KEY (id))"
	twLater      = "CREATE TABLE `later` (id bigint NOT NULL, PRIMARY KEY (id))"
)

// twStep is one step of TestThreeWayDeployRequests: open a deploy request
// (with auto_cutover) from a branch into main, an action on deploy request
// n, a push to a branch, a check of deploy request n's state, or moving
// the clock.
type twStep struct {
	open   string
	action string
	n      int
	push   string
	stmts  []string
	state  platform.DeploymentState
	adv    time.Duration
}

func twOpen(branch string) twStep                       { return twStep{open: branch} }
func twDo(action string, n int) twStep                  { return twStep{action: action, n: n} }
func twPush(branch string, stmts ...string) twStep      { return twStep{push: branch, stmts: stmts} }
func twState(n int, st platform.DeploymentState) twStep { return twStep{n: n, state: st} }
func twAdv(d time.Duration) twStep                      { return twStep{adv: d} }

// twShip deploys deploy request n (ready, with auto_cutover, first in the
// queue) and skips its revert window.
func twShip(n int) []twStep {
	return []twStep{twDo("deploy", n), twAdv(13 * time.Second), twState(n, platform.DeploymentCompletePendingRevert), twDo("skip-revert", n)}
}

// twTable is a line of a branch's schema as drEnv.schema shows it.
func twTable(create string) string {
	name := create[strings.Index(create, "`")+1:]
	return name[:strings.Index(name, "`")] + ": " + create
}

// TestThreeWayDeployRequests checks that a deploy request deploys its head
// branch's own changes (against the schema the branch was created from)
// onto main as main is: what other deployments shipped meanwhile stays,
// the same change made twice is no conflict, and a table both changed
// differently is refused at the check, or fails the deployment that meets
// it when it leaves the queue; a push to the head after the check checks
// again, one after the deploy changes nothing the deployment took; and a
// revert restores only what its deployment changed.
func TestThreeWayDeployRequests(t *testing.T) {
	t.Parallel()
	base := []string{twTable(drBase[1]), twTable(drBase[0])} // audit, users
	tests := []struct {
		name     string
		branches map[string][]string // created off main before the steps
		steps    []twStep
		// ops are each deploy request's operations at the end, as
		// "operation table state".
		ops map[int][]string
		// checkErrors and deployErrors are words of deploy_check_errors,
		// and of the deploy_errors of an operation ("n table").
		checkErrors  map[int]string
		deployErrors map[string]string
		main         []string
	}{
		{
			name:     "changes to different tables both ship",
			branches: map[string][]string{"a": {twA}, "b": {twB}},
			steps:    []twStep{twOpen("a"), twOpen("b"), twAdv(time.Second), twDo("deploy", 2), twDo("deploy", 1), twAdv(13 * time.Second), twDo("skip-revert", 2), twAdv(13 * time.Second), twDo("skip-revert", 1)},
			ops:      map[int][]string{1: {"create a_t complete"}, 2: {"create b_t complete"}},
			main:     []string{twTable(twA), base[0], twTable(twB), base[1]},
		},
		{
			name:     "the same change in both, both queued: no conflict",
			branches: map[string][]string{"a": {twUsersEmail}, "b": {twUsersEmail}},
			steps:    []twStep{twOpen("a"), twOpen("b"), twAdv(time.Second), twDo("deploy", 1), twDo("deploy", 2), twAdv(13 * time.Second), twDo("skip-revert", 1), twAdv(13 * time.Second), twDo("skip-revert", 2)},
			ops:      map[int][]string{1: {"alter users complete"}, 2: {"alter users complete"}},
			main:     []string{base[0], twTable(twUsersEmail)},
		},
		{
			name:     "the same change, checked after the other shipped: no changes",
			branches: map[string][]string{"a": {twUsersEmail}, "b": {twUsersEmail}},
			steps:    slices.Concat([]twStep{twOpen("a"), twAdv(time.Second)}, twShip(1), []twStep{twOpen("b"), twAdv(time.Second), twState(2, platform.DeploymentNoChanges)}),
			ops:      map[int][]string{1: {"alter users complete"}, 2: nil},
			main:     []string{base[0], twTable(twUsersEmail)},
		},
		{
			name:        "a conflict at the check",
			branches:    map[string][]string{"a": {twUsersEmail}, "b": {twUsersPhone, twB}},
			steps:       slices.Concat([]twStep{twOpen("a"), twAdv(time.Second)}, twShip(1), []twStep{twOpen("b"), twAdv(time.Second), twState(2, platform.DeploymentError)}),
			ops:         map[int][]string{1: {"alter users complete"}, 2: {"create b_t pending"}},
			checkErrors: map[int]string{2: "conflicting changes: b and main both changed app.users"},
			main:        []string{base[0], twTable(twUsersEmail)},
		},
		{
			name:     "a conflict when leaving the queue, after another shipped",
			branches: map[string][]string{"a": {twUsersEmail}, "b": {twUsersPhone, twB}},
			steps: slices.Concat([]twStep{twOpen("a"), twOpen("b"), twAdv(time.Second), twDo("deploy", 1), twDo("deploy", 2), twAdv(13 * time.Second), twDo("skip-revert", 1),
				twAdv(time.Second), twState(2, platform.DeploymentCompleteError)}),
			ops:          map[int][]string{1: {"alter users complete"}, 2: {"create b_t cancelled", "alter users error"}},
			deployErrors: map[string]string{"2 users": "conflicting change: app.users changed in main after this deployment's check"},
			main:         []string{base[0], twTable(twUsersEmail)},
		},
		{
			name:     "a branch older than a shipped table does not drop it",
			branches: map[string][]string{"a": {twA}, "b": {twB}},
			steps:    slices.Concat([]twStep{twOpen("a"), twAdv(time.Second)}, twShip(1), []twStep{twOpen("b"), twAdv(time.Second)}, twShip(2)),
			ops:      map[int][]string{1: {"create a_t complete"}, 2: {"create b_t complete"}},
			main:     []string{twTable(twA), base[0], twTable(twB), base[1]},
		},
		{
			name:     "a push after the check checks again",
			branches: map[string][]string{"a": {twA}},
			steps: slices.Concat([]twStep{twOpen("a"), twAdv(time.Second), twState(1, platform.DeploymentReady), twPush("a", twLater), twState(1, platform.DeploymentPending),
				twAdv(time.Second), twState(1, platform.DeploymentReady)}, twShip(1)),
			ops:  map[int][]string{1: {"create a_t complete", "create later complete"}},
			main: []string{twTable(twA), base[0], twTable(twLater), base[1]},
		},
		{
			name:     "a push after the deploy leaves the deployment's operations",
			branches: map[string][]string{"a": {twA}},
			steps:    []twStep{twOpen("a"), twAdv(time.Second), twDo("deploy", 1), twPush("a", twLater), twAdv(13 * time.Second), twDo("skip-revert", 1)},
			ops:      map[int][]string{1: {"create a_t complete"}},
			main:     []string{twTable(twA), base[0], base[1]},
		},
		{
			name:     "a revert restores only what its deployment changed",
			branches: map[string][]string{"a": {twA}, "b": {twUsersPhone, twB}},
			steps: slices.Concat([]twStep{twOpen("a"), twAdv(time.Second)}, twShip(1), []twStep{twOpen("b"), twAdv(time.Second), twDo("deploy", 2), twAdv(13 * time.Second),
				twDo("revert", 2), twAdv(5 * time.Second), twState(2, platform.DeploymentCompleteRevert)}),
			ops:  map[int][]string{1: {"create a_t complete"}, 2: {"create b_t complete", "alter users complete"}},
			main: []string{twTable(twA), base[0], base[1]},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newDREnv(t, false)
			for _, name := range slices.Sorted(maps.Keys(tt.branches)) {
				e.branch(name, tt.branches[name]...)
			}
			for i, st := range tt.steps {
				switch {
				case st.open != "":
					e.open(platform.CreateDeployRequestParams{Branch: st.open, AutoCutover: platform.Ptr(true)})
				case st.action != "":
					e.mustDo(st.action, st.n)
				case st.push != "":
					if err := e.srv.PushSchema(e.org, drDB, st.push, st.stmts...); err != nil {
						t.Fatal(err)
					}
				case st.state != "":
					if got := e.state(st.n); got != st.state {
						t.Fatalf("step %d: #%d is %s, want %s", i, st.n, got, st.state)
					}
				}
				e.srv.Advance(st.adv)
			}
			ops, checkErrors, deployErrors := map[int][]string{}, map[int]string{}, map[string]string{}
			for n := range tt.ops {
				d := e.get(n).Deployment
				var list []string
				for _, op := range d.DeployOperations {
					list = append(list, fmt.Sprintf("%s %s %s", op.OperationName, op.TableName, op.State))
					if op.DeployErrors != nil {
						deployErrors[fmt.Sprintf("%d %s", n, op.TableName)] = *op.DeployErrors
					}
				}
				ops[n] = list
				if d.DeployCheckErrors != nil {
					checkErrors[n] = *d.DeployCheckErrors
				}
			}
			if diff := cmp.Diff(tt.ops, ops); diff != "" {
				t.Errorf("operations (-want +got):\n%s", diff)
			}
			words := func(want, got map[int]string) {
				t.Helper()
				if len(want) != len(got) {
					t.Errorf("deploy_check_errors %q, want of %d deploy request(s) only", got, len(want))
				}
				for n, w := range want {
					if !strings.Contains(got[n], w) {
						t.Errorf("deploy_check_errors of #%d %q, want words %q", n, got[n], w)
					}
				}
			}
			words(tt.checkErrors, checkErrors)
			if len(tt.deployErrors) != len(deployErrors) {
				t.Errorf("deploy_errors %q, want of %d operation(s) only", deployErrors, len(tt.deployErrors))
			}
			for op, w := range tt.deployErrors {
				if !strings.Contains(deployErrors[op], w) {
					t.Errorf("deploy_errors of %s %q, want words %q", op, deployErrors[op], w)
				}
			}
			if diff := cmp.Diff(tt.main, e.schema("main")); diff != "" {
				t.Errorf("main at the end (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFailedDeploymentSaysWhy checks that a deployment that FailNext
// fails says why: a failed check in deploy_check_errors, a failed
// deployment or revert in each operation's deploy_errors, both saying the
// failure was injected.
func TestFailedDeploymentSaysWhy(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		steps []drStep
		want  platform.DeploymentState
		// check is deploy_check_errors; ops each operation's
		// "state: deploy_errors".
		check string
		ops   []string
	}{
		{"check", []drStep{failNext, adv(time.Second)}, "error", "the deployment check failed: a failure injected by the fake's FailNext", nil},
		{"queued", then(toQueued, failNext, adv(time.Second)), "complete_error", "", []string{
			"error: the operation failed while its deployment was queued: a failure injected by the fake's FailNext",
			"error: the operation failed while its deployment was queued: a failure injected by the fake's FailNext",
		}},
		{"in_progress", then(toInProgress, failNext, adv(10*time.Second)), "complete_error", "", []string{
			"error: the operation failed while its deployment was in_progress: a failure injected by the fake's FailNext",
			"error: the operation failed while its deployment was in_progress: a failure injected by the fake's FailNext",
		}},
		{"in_progress_cutover", then(toCutover, failNext, adv(time.Second)), "complete_error", "", []string{
			"error: the operation failed while its deployment was in_progress_cutover: a failure injected by the fake's FailNext",
			"error: the operation failed while its deployment was in_progress_cutover: a failure injected by the fake's FailNext",
		}},
		{"in_progress_revert", then(toRevert, failNext, adv(5*time.Second)), "complete_revert_error", "", []string{
			"complete: the revert of this operation failed: a failure injected by the fake's FailNext",
			"complete: the revert of this operation failed: a failure injected by the fake's FailNext",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newDREnv(t, false)
			e.branch("dev", drChange...)
			e.takeSteps(e.open(platform.CreateDeployRequestParams{Branch: "dev"}), tc.steps)
			d := e.get(1).Deployment
			var check string
			if d.DeployCheckErrors != nil {
				check = *d.DeployCheckErrors
			}
			var ops []string
			for i, op := range d.DeployOperations {
				why := ""
				if op.DeployErrors != nil {
					why = *op.DeployErrors
				}
				ops = append(ops, fmt.Sprintf("%s: %s", op.State, why))
				if s := d.DeployOperationSummaries[i]; s.DeployErrors != why {
					t.Errorf("summary of %s: deploy_errors %q, want the operation's %q", s.TableName, s.DeployErrors, why)
				}
			}
			type view struct {
				State platform.DeploymentState
				Check string
				Ops   []string
			}
			if diff := cmp.Diff(view{tc.want, tc.check, tc.ops}, view{d.State, check, ops}); diff != "" {
				t.Errorf("failed deployment (-want +got):\n%s", diff)
			}
		})
	}
}

// TestOperationProgress checks the state and progress_percentage of a
// deployment's operations, their summaries and the summaries' shards
// through the deployment: 0 while the copy runs, 100 once it has finished
// (the operations still in_progress, following the tables' writes, until
// the cutover completes them), 100 and complete after the cutover.
func TestOperationProgress(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		sharded  bool
		steps    []drStep
		state    platform.DeployOperationState
		progress float64
	}{
		{"ready", false, toReady, platform.OperationPending, 0},
		{"in_progress", false, toInProgress, platform.OperationInProgress, 0},
		{"in_progress_vschema", true, toVSchema, platform.OperationInProgress, 100},
		{"pending_cutover", false, toPendingCutover, platform.OperationInProgress, 100},
		{"in_progress_cutover", false, toCutover, platform.OperationInProgress, 100},
		{"in_progress_cancel from pending_cutover", false, then(toPendingCutover, act("cancel")), platform.OperationInProgress, 100},
		{"complete_pending_revert", false, toPendingRevert, platform.OperationComplete, 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newDREnv(t, tc.sharded)
			if tc.sharded {
				e.branch("dev", drShardedChange...)
			} else {
				e.branch("dev", drChange...)
			}
			e.takeSteps(e.open(platform.CreateDeployRequestParams{Branch: "dev"}), tc.steps)
			d := e.get(1).Deployment
			var got []string
			for _, op := range d.DeployOperations {
				got = append(got, fmt.Sprintf("operation %s: %s %v", op.TableName, op.State, *op.ProgressPercentage))
			}
			for _, s := range d.DeployOperationSummaries {
				got = append(got, fmt.Sprintf("summary %s: %v", s.TableName, s.ProgressPercentage))
				for _, sh := range s.Operations {
					got = append(got, fmt.Sprintf("shard %s %s: %s %v", s.TableName, sh.Shard, sh.State, sh.ProgressPercentage))
				}
			}
			p := e.params(1)
			page, err := e.c.DeployRequests.ListOperations(t.Context(), &platform.ListDeployOperationsParams{Organization: p.Organization, Database: p.Database, Number: 1})
			if err != nil {
				t.Fatal(err)
			}
			for _, op := range page.Items {
				got = append(got, fmt.Sprintf("listed %s: %s %v", op.TableName, op.State, *op.ProgressPercentage))
			}
			var want []string
			for _, op := range d.DeployOperations {
				want = append(want, fmt.Sprintf("operation %s: %s %v", op.TableName, tc.state, tc.progress))
			}
			for _, s := range d.DeployOperationSummaries {
				want = append(want, fmt.Sprintf("summary %s: %v", s.TableName, tc.progress))
				for _, sh := range s.Operations {
					want = append(want, fmt.Sprintf("shard %s %s: %s %v", s.TableName, sh.Shard, tc.state, tc.progress))
				}
			}
			for _, op := range d.DeployOperations {
				want = append(want, fmt.Sprintf("listed %s: %s %v", op.TableName, tc.state, tc.progress))
			}
			if len(d.DeployOperations) == 0 {
				t.Fatal("no operations")
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("operations in %s (-want +got):\n%s", d.State, diff)
			}
		})
	}
}
