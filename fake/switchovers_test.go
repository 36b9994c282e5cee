package fake_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// switchoverEnv is a server with the ready PostgreSQL database pg, whose
// production branch main has replicas, and its ready development branch
// dev, which has none.
type switchoverEnv struct {
	t   *testing.T
	srv *fake.Server
	c   *platform.Client
}

func newSwitchoverEnv(t *testing.T) *switchoverEnv {
	t.Helper()
	srv := fake.NewServer(t)
	e := &switchoverEnv{t: t, srv: srv, c: srv.Client()}
	ctx := t.Context()
	if _, err := e.c.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: srv.Org(), Name: "pg", ClusterSize: "PS_10", Kind: platform.KindPostgreSQL}); err != nil {
		t.Fatal(err)
	}
	srv.Advance(5 * time.Second)
	if _, err := e.c.Branches.Create(ctx, &platform.CreateBranchParams{Organization: srv.Org(), Database: "pg", Name: "dev", ParentBranch: "main"}); err != nil {
		t.Fatal(err)
	}
	srv.Advance(5 * time.Second)
	return e
}

// create asks for a switchover of a branch of pg.
func (e *switchoverEnv) create(branch string, candidate *string) (*platform.Switchover, error) {
	return e.c.Switchovers.Create(e.t.Context(), &platform.CreateSwitchoverParams{Organization: e.srv.Org(), Database: "pg", Branch: branch, Candidate: candidate})
}

// get reads a switchover of a branch of pg.
func (e *switchoverEnv) get(branch, id string) *platform.Switchover {
	e.t.Helper()
	sw, err := e.c.Switchovers.Get(e.t.Context(), &platform.GetSwitchoverParams{Organization: e.srv.Org(), Database: "pg", Branch: branch, ID: id})
	if err != nil {
		e.t.Fatal(err)
	}
	return sw
}

// infra returns a branch's PostgreSQL infrastructure.
func (e *switchoverEnv) infra(branch string) *platform.PostgresInfrastructure {
	e.t.Helper()
	inf, err := e.c.BranchChanges.GetInfrastructure(e.t.Context(), &platform.GetInfrastructureParams{Organization: e.srv.Org(), Database: "pg", Branch: branch})
	if err != nil {
		e.t.Fatal(err)
	}
	if inf.Type != platform.InfrastructurePostgres || inf.Postgres == nil || inf.Pods != nil {
		e.t.Fatalf("infrastructure of %s = %+v, want the PostgreSQL variant alone", branch, inf)
	}
	return inf.Postgres
}

// pods returns the names of a branch's instances, and its primary's: the
// node of role primary, which primary_name names too.
func (e *switchoverEnv) pods(branch string) (names []string, primary string) {
	e.t.Helper()
	inf := e.infra(branch)
	for _, n := range inf.Nodes {
		names = append(names, n.Name)
		if n.Role == "primary" {
			if primary != "" {
				e.t.Errorf("%s has two primaries, %s and %s", branch, primary, n.Name)
			}
			primary = n.Name
		}
	}
	if inf.PrimaryName != primary {
		e.t.Errorf("primary_name = %q, want the primary node %q", inf.PrimaryName, primary)
	}
	return names, primary
}

func TestSwitchoverLifecycle(t *testing.T) {
	t.Parallel()
	e := newSwitchoverEnv(t)
	tm := fake.DefaultTimings()
	names, primary := e.pods("main")
	if len(names) != 3 || primary != names[0] {
		t.Fatalf("main runs %v with primary %q, want 3 instances, the first the primary", names, primary)
	}
	sw, err := e.create("main", nil)
	if err != nil {
		t.Fatal(err)
	}
	if sw.State != platform.SwitchoverPending || sw.Method != nil || sw.CompletedAt != nil || sw.StartedAt == nil || sw.Actor == nil {
		t.Fatalf("new switchover = %+v, want pending, no method, started, with its actor", sw)
	}
	e.srv.Advance(tm.SwitchoverStart)
	got := e.get("main", sw.ID)
	if got.State != platform.SwitchoverRunning || got.Method == nil || *got.Method != platform.SwitchoverPromote {
		t.Fatalf("after SwitchoverStart: %+v, want running by switchover", got)
	}
	if _, p := e.pods("main"); p != names[0] {
		t.Errorf("primary moved to %s while the switchover runs", p)
	}
	if at := e.infra("main").PrimaryPromotedAt; at != nil {
		t.Errorf("primary_promoted_at = %v before any switchover completed, want null", at)
	}
	if slices.Contains(e.srv.EventNames(), "branch.primary_promoted") {
		t.Error("branch.primary_promoted while the switchover runs")
	}
	e.srv.Advance(tm.SwitchoverRun)
	got = e.get("main", sw.ID)
	if got.State != platform.SwitchoverSucceeded || got.CompletedAt == nil || got.Error != nil {
		t.Fatalf("after SwitchoverRun: %+v, want succeeded and completed", got)
	}
	if _, p := e.pods("main"); p != names[1] {
		t.Errorf("primary = %s, want the next instance %s", p, names[1])
	}
	if at := e.infra("main").PrimaryPromotedAt; at == nil || !at.Equal(got.CompletedAt.Time) {
		t.Errorf("primary_promoted_at = %v, want the switchover's completion %v", at, got.CompletedAt)
	}
	if slices.Contains(e.srv.EventNames(), "branch.primary_promoted") {
		t.Error("branch.primary_promoted emitted; only a test emits it (Emit)")
	}
	page, err := e.c.Switchovers.List(t.Context(), &platform.ListSwitchoversParams{Organization: e.srv.Org(), Database: "pg", Branch: "main"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]*platform.Switchover{got}, page.Items); diff != "" {
		t.Errorf("list (-want +got):\n%s", diff)
	}
}

func TestSwitchoverCandidateAndWait(t *testing.T) {
	t.Parallel()
	e := newSwitchoverEnv(t)
	names, _ := e.pods("main")
	sw, err := e.create("main", &names[2])
	if err != nil {
		t.Fatal(err)
	}
	done, err := e.c.Switchovers.Wait(t.Context(), &platform.GetSwitchoverParams{Organization: e.srv.Org(), Database: "pg", Branch: "main", ID: sw.ID})
	if err != nil || done.State != platform.SwitchoverSucceeded {
		t.Fatalf("Wait = %+v, %v; want succeeded", done, err)
	}
	if _, p := e.pods("main"); p != names[2] {
		t.Errorf("primary = %s, want the candidate %s", p, names[2])
	}
	// The former primary is a replica now, and can be promoted back.
	sw, err = e.create("main", &names[0])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.Switchovers.Wait(t.Context(), &platform.GetSwitchoverParams{Organization: e.srv.Org(), Database: "pg", Branch: "main", ID: sw.ID}); err != nil {
		t.Fatal(err)
	}
	if _, p := e.pods("main"); p != names[0] {
		t.Errorf("primary = %s, want %s back", p, names[0])
	}
}

func TestSwitchoverRestartsABranchWithoutReplicas(t *testing.T) {
	t.Parallel()
	e := newSwitchoverEnv(t)
	names, _ := e.pods("dev")
	sw, err := e.create("dev", nil)
	if err != nil {
		t.Fatal(err)
	}
	done, err := e.c.Switchovers.Wait(t.Context(), &platform.GetSwitchoverParams{Organization: e.srv.Org(), Database: "pg", Branch: "dev", ID: sw.ID})
	if err != nil {
		t.Fatal(err)
	}
	if done.Method == nil || *done.Method != platform.SwitchoverRestart {
		t.Errorf("method = %v, want restart", done.Method)
	}
	if _, p := e.pods("dev"); len(names) != 1 || p != names[0] {
		t.Errorf("dev runs %v with primary %s, want its one instance", names, p)
	}
}

func TestSwitchoverFailure(t *testing.T) {
	t.Parallel()
	e := newSwitchoverEnv(t)
	_, primary := e.pods("main")
	sw, err := e.create("main", nil)
	if err != nil {
		t.Fatal(err)
	}
	e.srv.Advance(fake.DefaultTimings().SwitchoverStart)
	if err := e.srv.FailNext(sw.ID); err != nil {
		t.Fatal(err)
	}
	_, err = e.c.Switchovers.Wait(t.Context(), &platform.GetSwitchoverParams{Organization: e.srv.Org(), Database: "pg", Branch: "main", ID: sw.ID})
	var se *platform.StateError
	if !errors.As(err, &se) || se.State != string(platform.SwitchoverFailed) {
		t.Fatalf("Wait error = %v, want a StateError naming failed", err)
	}
	if got := e.get("main", sw.ID); got.Error == nil || got.CompletedAt == nil {
		t.Errorf("failed switchover = %+v, want its error and completed_at", got)
	}
	if _, p := e.pods("main"); p != primary {
		t.Errorf("primary = %s after a failed switchover, want %s", p, primary)
	}
	// A failed switchover no longer holds the branch.
	if _, err := e.create("main", nil); err != nil {
		t.Errorf("switchover after a failed one: %v", err)
	}
}

func TestSwitchoverRefusals(t *testing.T) {
	t.Parallel()
	e := newSwitchoverEnv(t)
	mustDB(t, e.srv, "my")
	if _, err := e.c.Branches.Create(t.Context(), &platform.CreateBranchParams{Organization: e.srv.Org(), Database: "pg", Name: "young", ParentBranch: "main"}); err != nil {
		t.Fatal(err)
	}
	names, primary := e.pods("main")
	running, err := e.create("main", nil)
	if err != nil {
		t.Fatal(err)
	}
	list := func(branch string) []*platform.Switchover {
		return opCollect(t, e.c.Switchovers.All(t.Context(), &platform.ListSwitchoversParams{Organization: e.srv.Org(), Database: "pg", Branch: branch}))
	}
	before := map[string][]*platform.Switchover{"main": list("main"), "dev": list("dev")}
	tests := []struct {
		name      string
		db        string
		branch    string
		candidate *string
		status    int
		words     []string
	}{
		{"second while one is pending", "pg", "main", nil, 422, []string{"main", running.ID, "pending"}},
		{"unknown candidate", "pg", "dev", platform.Ptr("pg-9"), 422, []string{"candidate", "pg-9", "no replicas"}},
		{"candidate on a branch without replicas", "pg", "dev", &names[1], 422, []string{"candidate", "no replicas"}},
		{"branch not ready", "pg", "young", nil, 422, []string{"young", "not ready"}},
		{"mysql database", "my", "main", nil, 422, []string{"postgresql", "my", "mysql"}},
		{"unknown branch", "pg", "nope", nil, 404, nil},
	}
	for _, tt := range tests {
		_, err := e.c.Switchovers.Create(t.Context(), &platform.CreateSwitchoverParams{Organization: e.srv.Org(), Database: tt.db, Branch: tt.branch, Candidate: tt.candidate})
		apiError(t, err, tt.status, tt.words...)
	}
	e.srv.Advance(fake.DefaultTimings().SwitchoverStart)
	_, err = e.create("main", nil)
	apiError(t, err, 422, running.ID, "running")
	after := map[string][]*platform.Switchover{"main": list("main"), "dev": list("dev")}
	before["main"][0] = e.get("main", running.ID) // only the clock moved it
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("refusals changed the switchovers (-before +after):\n%s", diff)
	}
	if _, p := e.pods("main"); p != primary {
		t.Errorf("primary = %s, want %s", p, primary)
	}
}

func TestSwitchoverCandidateRefusals(t *testing.T) {
	t.Parallel()
	e := newSwitchoverEnv(t)
	names, primary := e.pods("main")
	for _, tt := range []struct {
		candidate string
		words     []string
	}{
		{primary, []string{"candidate", primary, "primary"}},
		{"pg-9", []string{"candidate", "pg-9", "not a replica"}},
		{"", []string{"candidate", "not a replica"}},
	} {
		_, err := e.create("main", &tt.candidate)
		apiError(t, err, 422, tt.words...)
	}
	if got := opCollect(t, e.c.Switchovers.All(t.Context(), &platform.ListSwitchoversParams{Organization: e.srv.Org(), Database: "pg", Branch: "main"})); len(got) != 0 {
		t.Errorf("refused candidates left %d switchovers", len(got))
	}
	if _, p := e.pods("main"); p != names[0] {
		t.Errorf("primary = %s, want %s", p, names[0])
	}
}

func TestSwitchoverReadsRefused(t *testing.T) {
	t.Parallel()
	e := newSwitchoverEnv(t)
	mustDB(t, e.srv, "my")
	e.srv.Advance(5 * time.Second)
	sw, err := e.create("main", nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, org := t.Context(), e.srv.Org()
	_, err = e.c.Switchovers.Get(ctx, &platform.GetSwitchoverParams{Organization: org, Database: "pg", Branch: "dev", ID: sw.ID})
	apiError(t, err, 404)
	_, err = e.c.Switchovers.Get(ctx, &platform.GetSwitchoverParams{Organization: org, Database: "pg", Branch: "main", ID: "nope"})
	apiError(t, err, 404)
	_, err = e.c.Switchovers.List(ctx, &platform.ListSwitchoversParams{Organization: org, Database: "my", Branch: "main"})
	apiError(t, err, 422, "postgresql", "mysql")
	_, err = e.c.Switchovers.Get(ctx, &platform.GetSwitchoverParams{Organization: org, Database: "my", Branch: "main", ID: sw.ID})
	apiError(t, err, 422, "postgresql", "mysql")
}

func TestSwitchoverOfDeletedBranchNeverPromotes(t *testing.T) {
	t.Parallel()
	e := newSwitchoverEnv(t)
	if _, err := e.create("dev", nil); err != nil {
		t.Fatal(err)
	}
	if err := e.c.Branches.Delete(t.Context(), &platform.DeleteBranchParams{Organization: e.srv.Org(), Database: "pg", Branch: "dev"}); err != nil {
		t.Fatal(err)
	}
	tm := fake.DefaultTimings()
	e.srv.Advance(tm.SwitchoverStart + tm.SwitchoverRun)
	if slices.Contains(e.srv.EventNames(), "branch.primary_promoted") {
		t.Error("a deleted branch's switchover promoted a primary")
	}
}

// replicas asks for n replicas on a branch of pg.
func (e *switchoverEnv) replicas(branch string, n int) error {
	_, err := e.c.BranchChanges.UpdateChange(e.t.Context(), &platform.UpdateBranchChangeRequestParams{Organization: e.srv.Org(), Database: "pg", Branch: branch, Replicas: platform.Ptr(n)})
	return err
}

// snapshot is the server's whole state, once the admin token's last use
// is at the clock's now (so that a request that changes nothing leaves it
// byte for byte).
func (e *switchoverEnv) snapshot() string {
	e.t.Helper()
	e.pods("main")
	b, err := e.srv.Snapshot()
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}

// TestSwitchoverPrimaryStaysThroughReplicaChanges: only a switchover moves
// the primary. A change of the replicas keeps it where it is, unless it
// removes the primary's instance, whose role then passes to the first.
func TestSwitchoverPrimaryStaysThroughReplicaChanges(t *testing.T) {
	t.Parallel()
	tm := fake.DefaultTimings()
	type step struct {
		replicas   int  // the replicas asked for, unless switchover
		switchover bool // a switchover to the next instance
		primary    int  // the primary's instance afterwards
		instances  int
	}
	tests := []struct {
		name   string
		branch string
		steps  []step
	}{
		{"back to the first after the primary's instance went", "dev", []step{
			{replicas: 1, primary: 0, instances: 2},
			{switchover: true, primary: 1, instances: 2},
			{replicas: 0, primary: 0, instances: 1},
			{replicas: 1, primary: 0, instances: 2},
			{replicas: 2, primary: 0, instances: 3},
		}},
		{"a replica added keeps the primary", "main", []step{
			{switchover: true, primary: 1, instances: 3},
			{replicas: 3, primary: 1, instances: 4},
			{switchover: true, primary: 2, instances: 4},
			{replicas: 2, primary: 2, instances: 3},
			{replicas: 4, primary: 2, instances: 5},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newSwitchoverEnv(t)
			for i, s := range tt.steps {
				if s.switchover {
					if _, err := e.create(tt.branch, nil); err != nil {
						t.Fatal(err)
					}
					e.srv.Advance(tm.SwitchoverStart + tm.SwitchoverRun)
				} else {
					if err := e.replicas(tt.branch, s.replicas); err != nil {
						t.Fatal(err)
					}
					e.srv.Advance(tm.BranchChangeStart + tm.BranchChangeRun)
				}
				names, primary := e.pods(tt.branch)
				if len(names) != s.instances || primary != names[s.primary] {
					t.Fatalf("step %d: %v with primary %s, want %d instances, primary the %dth", i, names, primary, s.instances, s.primary)
				}
			}
			snap, err := e.srv.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			restored := &switchoverEnv{t: t, srv: fake.NewServer(t)}
			if err := restored.srv.Restore(snap); err != nil {
				t.Fatal(err)
			}
			restored.c = restored.srv.Client()
			names, primary := e.pods(tt.branch)
			rnames, rprimary := restored.pods(tt.branch)
			if diff := cmp.Diff([]any{names, primary}, []any{rnames, rprimary}); diff != "" {
				t.Errorf("restored instances (-before +after):\n%s", diff)
			}
		})
	}
}

// TestSwitchoverAndReplicaRemovalConflict: a switchover and a change that
// removes replicas (whose candidate it may remove) refuse each other, in
// either order, naming what is in flight, and change nothing.
func TestSwitchoverAndReplicaRemovalConflict(t *testing.T) {
	t.Parallel()
	tm := fake.DefaultTimings()
	tests := []struct {
		name   string
		first  func(e *switchoverEnv) string // starts what is in flight; its ID
		then   func(e *switchoverEnv) error  // is refused
		before time.Duration                 // how long after first
		words  []string
	}{
		{
			name:  "switchover while a change removes replicas (queued)",
			first: func(e *switchoverEnv) string { return e.changeID(2) },
			then:  func(e *switchoverEnv) error { _, err := e.create("main", nil); return err },
			words: []string{"change request", "queued", "removes replicas"},
		},
		{
			name:   "switchover while a change removes replicas (resizing)",
			first:  func(e *switchoverEnv) string { return e.changeID(2) },
			then:   func(e *switchoverEnv) error { _, err := e.create("main", platform.Ptr(e.name("main", 3))); return err },
			before: tm.BranchChangeStart + tm.BranchChangeRun/2,
			words:  []string{"change request", "resizing", "removes replicas"},
		},
		{
			name:  "change removing replicas while a switchover is pending",
			first: func(e *switchoverEnv) string { return e.switchoverID("main") },
			then:  func(e *switchoverEnv) error { return e.replicas("main", 2) },
			words: []string{"change request", "switchover", "pending"},
		},
		{
			name:   "change removing replicas while a switchover runs",
			first:  func(e *switchoverEnv) string { return e.switchoverID("main") },
			then:   func(e *switchoverEnv) error { return e.replicas("main", 2) },
			before: tm.SwitchoverStart,
			words:  []string{"change request", "switchover", "running"},
		},
		{
			name:  "demotion while a switchover is pending",
			first: func(e *switchoverEnv) string { return e.switchoverID("stage") },
			then: func(e *switchoverEnv) error {
				_, err := e.c.Branches.Demote(e.t.Context(), &platform.DemoteBranchParams{Organization: e.srv.Org(), Database: "pg", Branch: "stage"})
				return err
			},
			words: []string{"demoting", "stage", "switchover", "pending"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newSwitchoverEnv(t)
			e.stage()
			id := tt.first(e)
			e.srv.Advance(tt.before)
			before := e.snapshot()
			apiError(t, tt.then(e), 422, append(tt.words, id)...)
			if after := e.snapshot(); after != before {
				t.Error("the refusal changed the state")
			}
		})
	}
	// What adds replicas, or leaves them, is no conflict.
	e := newSwitchoverEnv(t)
	if _, err := e.create("main", nil); err != nil {
		t.Fatal(err)
	}
	if err := e.replicas("main", 4); err != nil {
		t.Errorf("adding replicas during a switchover: %v", err)
	}
	if _, err := e.create("dev", nil); err != nil {
		t.Errorf("a switchover of another branch: %v", err)
	}
}

// stage makes main of pg run three replicas (one more than it includes),
// and makes pg's production branch stage, whose switchover the demotion
// conflicts with.
func (e *switchoverEnv) stage() {
	e.t.Helper()
	tm := fake.DefaultTimings()
	if err := e.replicas("main", 3); err != nil {
		e.t.Fatal(err)
	}
	if _, err := e.c.Branches.Create(e.t.Context(), &platform.CreateBranchParams{Organization: e.srv.Org(), Database: "pg", Name: "stage", ParentBranch: "main"}); err != nil {
		e.t.Fatal(err)
	}
	e.srv.Advance(tm.BranchChangeStart + tm.BranchChangeRun)
	if _, err := e.c.Branches.Promote(e.t.Context(), &platform.PromoteBranchParams{Organization: e.srv.Org(), Database: "pg", Branch: "stage"}); err != nil {
		e.t.Fatal(err)
	}
	if _, err := e.create("stage", nil); err != nil {
		e.t.Fatal(err)
	}
	e.srv.Advance(tm.SwitchoverStart + tm.SwitchoverRun)
}

// changeID asks main of pg for n replicas and returns the change request.
func (e *switchoverEnv) changeID(n int) string {
	e.t.Helper()
	r, err := e.c.BranchChanges.UpdateChange(e.t.Context(), &platform.UpdateBranchChangeRequestParams{Organization: e.srv.Org(), Database: "pg", Branch: "main", Replicas: platform.Ptr(n)})
	if err != nil {
		e.t.Fatal(err)
	}
	return r.ID
}

// switchoverID starts a switchover of branch of pg and returns it.
func (e *switchoverEnv) switchoverID(branch string) string {
	e.t.Helper()
	sw, err := e.create(branch, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	return sw.ID
}

// name is the name of instance i of a branch of pg.
func (e *switchoverEnv) name(branch string, i int) string {
	e.t.Helper()
	names, _ := e.pods(branch)
	return names[i]
}

// TestSwitchoverRestoreChecksInstances: a snapshot whose branch's primary,
// or whose running switchover's candidate, is not an instance the branch
// runs, or whose bouncer targets replicas the branch lacks, is refused.
func TestSwitchoverRestoreChecksInstances(t *testing.T) {
	t.Parallel()
	e := newSwitchoverEnv(t)
	if _, err := e.create("dev", nil); err != nil { // a restart, pending
		t.Fatal(err)
	}
	if _, err := e.c.Bouncers.Create(t.Context(), &platform.CreateBouncerParams{Organization: e.srv.Org(), Database: "pg", Branch: "dev", Name: "rb"}); err != nil {
		t.Fatal(err)
	}
	data, err := e.srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	// branch finds a branch of the snapshot by name.
	branch := func(m map[string]any, name string) map[string]any {
		for i := range m["branches"].([]any) {
			if b := snapshotRecord(m, "branches", i); b["name"] == name {
				return b
			}
		}
		t.Fatalf("no branch %s in the snapshot", name)
		return nil
	}
	tests := []struct {
		name  string
		edit  func(m map[string]any)
		words []string
	}{
		{"candidate beyond the instances", func(m map[string]any) {
			branch(m, "dev")["switchovers"].([]any)[0].(map[string]any)["candidate"] = 1
		}, []string{"candidate", "dev"}},
		{"replica bouncer without replicas", func(m map[string]any) {
			bn := branch(m, "dev")["bouncers"].([]any)[0].(map[string]any)
			bn["config"].(map[string]any)["target"] = "replica"
		}, []string{"bouncer rb", "replicas"}},
	}
	// A fake older than this one kept a primary past the instances a
	// replica change left, read modulo their number: it still restores.
	if err := fake.NewServer(t).Restore(snapshotEdit(t, data, func(m map[string]any) { branch(m, "dev")["primary"] = 1 })); err != nil {
		t.Errorf("a primary past the instances, as older fakes kept it: %v", err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := fake.NewServer(t).Restore(snapshotEdit(t, data, tt.edit))
			if err == nil {
				t.Fatal("Restore took it")
			}
			for _, w := range tt.words {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
	if err := fake.NewServer(t).Restore(data); err != nil {
		t.Errorf("the unedited snapshot: %v", err)
	}
}

// TestSwitchoverRestartLeavesATrace: a switchover by restart takes the one
// instance down while it runs (pending, not ready, the infrastructure not
// ready), then counts the restart in its restart_count, which a snapshot
// keeps; it promotes nothing, so emits no branch.primary_promoted.
func TestSwitchoverRestartLeavesATrace(t *testing.T) {
	t.Parallel()
	tm := fake.DefaultTimings()
	e := newSwitchoverEnv(t)
	type infra struct {
		State, Primary string
	}
	look := func(srv *fake.Server) infra {
		t.Helper()
		inf, err := srv.Client().BranchChanges.GetInfrastructure(t.Context(), &platform.GetInfrastructureParams{Organization: srv.Org(), Database: "pg", Branch: "dev"})
		if err != nil {
			t.Fatal(err)
		}
		if inf.Postgres == nil {
			t.Fatalf("infrastructure of type %s, want PostgreSQL's", inf.Type)
		}
		return infra{inf.Postgres.State, inf.Postgres.PrimaryName}
	}
	before := look(e.srv)
	steps := []struct {
		name    string
		advance time.Duration
		want    infra
	}{
		{"pending", 0, infra{"ready", before.Primary}},
		{"restarting", tm.SwitchoverStart, infra{"pending", before.Primary}},
		{"restarted", tm.SwitchoverRun, infra{"ready", before.Primary}},
	}
	if _, err := e.create("dev", nil); err != nil {
		t.Fatal(err)
	}
	for _, s := range steps {
		e.srv.Advance(s.advance)
		if diff := cmp.Diff(s.want, look(e.srv)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", s.name, diff)
		}
	}
	if slices.Contains(e.srv.EventNames(), "branch.primary_promoted") {
		t.Error("a restart emitted branch.primary_promoted")
	}
	snap, err := e.srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	restored := fake.NewServer(t)
	if err := restored.Restore(snap); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(look(e.srv), look(restored)); diff != "" {
		t.Errorf("restored (-before +after):\n%s", diff)
	}
}

// TestSwitchoverMovesTheReplicaTablets: a PostgreSQL branch's instances
// are its tablets to the metrics, the replicas those the primary is not:
// the instant tablet metrics list the replicas' lag, and after a
// switchover, the former primary's instead of the new one's.
func TestSwitchoverMovesTheReplicaTablets(t *testing.T) {
	t.Parallel()
	e := newSwitchoverEnv(t)
	replicas := func() []string {
		t.Helper()
		w := send(t, e.srv, "GET", "/v1/organizations/"+e.srv.Org()+"/databases/pg/branches/main/metrics/tablets-instant?metrics=replication_lag", admin(e.srv), "")
		var got struct {
			Metrics []struct {
				Labels map[string]string `json:"labels"`
			} `json:"metrics"`
		}
		if w.status != http.StatusOK || json.Unmarshal(w.body, &got) != nil {
			t.Fatalf("instant tablet metrics: %d %s", w.status, w.body)
		}
		var pods []string
		for _, m := range got.Metrics {
			if m.Labels["tablet_type"] != "replica" || m.Labels["keyspace"] != "pg" || m.Labels["shard"] != "-" {
				t.Errorf("labels %v, want a replica of pg's shard -", m.Labels)
			}
			pods = append(pods, m.Labels["pod"])
		}
		slices.Sort(pods)
		return pods
	}
	names, _ := e.pods("main")
	if diff := cmp.Diff([]string{names[1], names[2]}, replicas()); diff != "" {
		t.Errorf("replicas before the switchover (-want +got):\n%s", diff)
	}
	sw, err := e.create("main", &names[2])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.Switchovers.Wait(t.Context(), &platform.GetSwitchoverParams{Organization: e.srv.Org(), Database: "pg", Branch: "main", ID: sw.ID}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{names[0], names[1]}, replicas()); diff != "" {
		t.Errorf("replicas after the switchover to %s (-want +got):\n%s", names[2], diff)
	}
}
