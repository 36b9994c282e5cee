package fake_test

import (
	"errors"
	"slices"
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
		t.Error("branch.primary_promoted before the switchover completed")
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
	var promoted []string
	for _, ev := range e.srv.Events() {
		if ev.Name == "branch.primary_promoted" {
			promoted = append(promoted, ev.Resource.(*platform.Branch).Name)
		}
	}
	if diff := cmp.Diff([]string{"main"}, promoted); diff != "" {
		t.Errorf("branch.primary_promoted events (-want +got):\n%s", diff)
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
