package fake_test

import (
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// bouncerEnv is a fake with the ready PostgreSQL database pg, whose
// production branch main has replicas and whose development branch dev
// has none, and the ready MySQL database app.
type bouncerEnv struct {
	t   *testing.T
	srv *fake.Server
	c   *platform.Client
	org string
	tm  fake.Timings
}

func newBouncerEnv(t *testing.T, opts ...fake.Option) *bouncerEnv {
	t.Helper()
	srv := fake.NewServer(t, opts...)
	e := &bouncerEnv{t: t, srv: srv, c: srv.Client(), org: srv.Org(), tm: fake.DefaultTimings()}
	ctx := t.Context()
	for _, p := range []*platform.CreateDatabaseParams{
		{Organization: e.org, Name: "pg", ClusterSize: "PS_10", Kind: platform.KindPostgreSQL},
		{Organization: e.org, Name: "app", ClusterSize: "PS_10"},
	} {
		if _, err := e.c.Databases.Create(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	srv.Advance(time.Minute)
	if _, err := e.c.Branches.Create(ctx, &platform.CreateBranchParams{Organization: e.org, Database: "pg", Name: "dev", ParentBranch: "main"}); err != nil {
		t.Fatal(err)
	}
	srv.Advance(time.Minute)
	return e
}

// ref names a bouncer of pg's branch.
func (e *bouncerEnv) ref(branch, name string) *platform.BouncerParams {
	return &platform.BouncerParams{Organization: e.org, Database: "pg", Branch: branch, Bouncer: name}
}

// create creates a bouncer on pg's branch from p (its path filled in).
func (e *bouncerEnv) create(branch string, p platform.CreateBouncerParams) (*platform.Bouncer, error) {
	p.Organization, p.Database, p.Branch = e.org, "pg", branch
	return e.c.Bouncers.Create(e.t.Context(), &p)
}

// ready creates a bouncer named name on main and lets it become ready.
func (e *bouncerEnv) ready(name string) *platform.Bouncer {
	e.t.Helper()
	if _, err := e.create("main", platform.CreateBouncerParams{Name: name}); err != nil {
		e.t.Fatal(err)
	}
	e.srv.Advance(e.tm.BouncerReady)
	return e.get("main", name)
}

func (e *bouncerEnv) get(branch, name string) *platform.Bouncer {
	e.t.Helper()
	b, err := e.c.Bouncers.Get(e.t.Context(), e.ref(branch, name))
	if err != nil {
		e.t.Fatal(err)
	}
	return b
}

// resize asks for a resize of bouncer name of main from p.
func (e *bouncerEnv) resize(name string, p platform.ResizeBouncerParams) (*platform.BouncerResizeRequest, error) {
	p.Organization, p.Database, p.Branch, p.Bouncer = e.org, "pg", "main", name
	return e.c.Bouncers.Resize(e.t.Context(), &p)
}

// resizes lists bouncer name's resize requests.
func (e *bouncerEnv) resizes(name string) []*platform.BouncerResizeRequest {
	e.t.Helper()
	return opCollect(e.t, e.c.Bouncers.AllResizes(e.t.Context(), &platform.ListBouncerResizesParams{Organization: e.org, Database: "pg", Branch: "main", Bouncer: name}))
}

// state is what the bouncer requests change on pg: its branches' bouncers
// and resize requests, and main's pods.
func (e *bouncerEnv) state() any {
	e.t.Helper()
	ctx := e.t.Context()
	type branchState struct {
		Bouncers []*platform.Bouncer
		Resizes  []*platform.BouncerResizeRequest
	}
	out := map[string]branchState{}
	for _, b := range []string{"main", "dev"} {
		p := &platform.ListBouncersParams{Organization: e.org, Database: "pg", Branch: b}
		out[b] = branchState{opCollect(e.t, e.c.Bouncers.All(ctx, p)), opCollect(e.t, e.c.Bouncers.AllBranchResizes(ctx, p))}
	}
	return out
}

// pods returns the bouncers main's infrastructure lists (those whose
// servers run) as "name target servers-per-cell size", checking that each
// is the bouncer of its ID in the branch's region.
func (e *bouncerEnv) pods() []string {
	e.t.Helper()
	infra, err := e.c.BranchChanges.GetInfrastructure(e.t.Context(), &platform.GetInfrastructureParams{Organization: e.org, Database: "pg", Branch: "main"})
	if err != nil {
		e.t.Fatal(err)
	}
	if infra.Postgres == nil {
		e.t.Fatalf("infrastructure of pg/main = %+v, want the PostgreSQL variant", infra)
	}
	out := []string{}
	for _, bn := range infra.Postgres.Bouncers {
		if got := e.get("main", bn.Name); got.ID != bn.ID {
			e.t.Errorf("bouncer %s listed with ID %s, want %s", bn.Name, bn.ID, got.ID)
		}
		if bn.Region.Slug != "us-east" || bn.SKU == nil {
			e.t.Errorf("bouncer %s in region %q with size %v, want us-east and its size", bn.Name, bn.Region.Slug, bn.SKU)
		}
		out = append(out, fmt.Sprintf("%s %s %d %s", bn.Name, bn.Target, bn.ReplicasPerCell, bn.SKU.Name))
	}
	return out
}

func TestBouncerCreateBecomesReady(t *testing.T) {
	t.Parallel()
	e := newBouncerEnv(t)
	got, err := e.create("main", platform.CreateBouncerParams{Name: "pool", ReplicasPerCell: platform.Ptr(2), Target: platform.Ptr(platform.BouncerTargetReplica), BouncerSize: platform.Ptr("PGB_20")})
	if err != nil {
		t.Fatal(err)
	}
	want := platform.BouncerSKU{Name: "PGB_20", DisplayName: "PGB-20", CPU: "1/4", RAM: 2 << 30, SortOrder: 30}
	if diff := cmp.Diff(want, got.SKU); diff != "" {
		t.Errorf("sku (-want +got):\n%s", diff)
	}
	if got.Name != "pool" || got.ReplicasPerCell != 2 || got.Target != platform.BouncerTargetReplica || got.Branch.Name != "main" || got.Actor == nil || got.DeletedAt != nil {
		t.Errorf("bouncer = %+v", got)
	}
	var names []string
	for _, p := range got.Parameters {
		names = append(names, p.Name+"="+p.Value)
		if p.Namespace != platform.NamespacePgbouncer {
			t.Errorf("parameter %s in namespace %s", p.Name, p.Namespace)
		}
	}
	if diff := cmp.Diff([]string{"pool_mode=transaction", "default_pool_size=20", "max_client_conn=1000"}, names); diff != "" {
		t.Errorf("parameters (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{}, e.pods()); diff != "" {
		t.Errorf("bouncers listed while pending (-want +got):\n%s", diff)
	}
	e.srv.Advance(e.tm.BouncerReady - time.Millisecond)
	if diff := cmp.Diff([]string{}, e.pods()); diff != "" {
		t.Errorf("bouncers listed before BouncerReady (-want +got):\n%s", diff)
	}
	e.srv.Advance(time.Millisecond)
	if diff := cmp.Diff([]string{"pool replica 2 PGB_20"}, e.pods()); diff != "" {
		t.Errorf("pods once ready (-want +got):\n%s", diff)
	}
	got.UpdatedAt = platform.NewTimestamp(got.CreatedAt.Add(e.tm.BouncerReady))
	if diff := cmp.Diff(got, e.get("main", "pool")); diff != "" {
		t.Errorf("get once ready (-want +got):\n%s", diff)
	}
	defaults, err := e.create("main", platform.CreateBouncerParams{Name: "plain"})
	if err != nil {
		t.Fatal(err)
	}
	if defaults.SKU.Name != "PGB_5" || defaults.ReplicasPerCell != 1 || defaults.Target != platform.BouncerTargetPrimary {
		t.Errorf("defaults: sku %s, %d per cell, target %s; want PGB_5, 1, primary", defaults.SKU.Name, defaults.ReplicasPerCell, defaults.Target)
	}
	page, err := e.c.Bouncers.List(t.Context(), &platform.ListBouncersParams{Organization: e.org, Database: "pg", Branch: "main", ListParams: platform.ListParams{PerPage: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 1 || page.Items[0].Name != "pool" || page.NextPage == nil {
		t.Errorf("first page of one: %d items, next %v", len(page.Items), page.NextPage)
	}
}

func TestBouncerCreateRefusals(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, branch string
		p            platform.CreateBouncerParams
		status       int
		words        []string
	}{
		{"missing name", "main", platform.CreateBouncerParams{}, 422, []string{"name", "required"}},
		{"bad name", "main", platform.CreateBouncerParams{Name: "Pool!"}, 422, []string{"name", `"Pool!"`}},
		{"taken name", "main", platform.CreateBouncerParams{Name: "taken"}, 422, []string{`"taken"`, "already taken", "main"}},
		{"unknown size", "main", platform.CreateBouncerParams{Name: "x", BouncerSize: platform.Ptr("PS_10")}, 422, []string{"bouncer_size", `"PS_10"`, "PGB_5"}},
		{"no servers", "main", platform.CreateBouncerParams{Name: "x", ReplicasPerCell: platform.Ptr(0)}, 422, []string{"replicas_per_cell", "got 0"}},
		{"too many servers", "main", platform.CreateBouncerParams{Name: "x", ReplicasPerCell: platform.Ptr(11)}, 422, []string{"replicas_per_cell", "10", "got 11"}},
		{"unknown target", "main", platform.CreateBouncerParams{Name: "x", Target: platform.Ptr(platform.BouncerTarget("leader"))}, 422, []string{"target", `"leader"`}},
		{"replicas the branch lacks", "dev", platform.CreateBouncerParams{Name: "x", Target: platform.Ptr(platform.BouncerTargetReplicaAZAffinity)}, 422, []string{"target replica_az_affinity", "dev", "none"}},
		{"missing branch", "nope", platform.CreateBouncerParams{Name: "x"}, 404, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newBouncerEnv(t)
			if _, err := e.create("main", platform.CreateBouncerParams{Name: "taken"}); err != nil {
				t.Fatal(err)
			}
			before := e.state()
			_, err := e.create(tc.branch, tc.p)
			apiError(t, err, tc.status, tc.words...)
			if diff := cmp.Diff(before, e.state()); diff != "" {
				t.Errorf("a refused create changed the bouncers (-before +after):\n%s", diff)
			}
		})
	}
}

func TestBouncerBranchMustBePostgresAndReady(t *testing.T) {
	t.Parallel()
	e := newBouncerEnv(t)
	ctx := t.Context()
	_, err := e.c.Bouncers.Create(ctx, &platform.CreateBouncerParams{Organization: e.org, Database: "app", Branch: "main", Name: "pool"})
	apiError(t, err, http.StatusUnprocessableEntity, "bouncers", "postgresql", "app is mysql")
	_, err = e.c.Bouncers.List(ctx, &platform.ListBouncersParams{Organization: e.org, Database: "app", Branch: "main"})
	apiError(t, err, http.StatusUnprocessableEntity, "bouncers", "postgresql", "mysql")
	_, err = e.c.Bouncers.ListBranchResizes(ctx, &platform.ListBranchBouncerResizesParams{Organization: e.org, Database: "app", Branch: "main"})
	apiError(t, err, http.StatusUnprocessableEntity, "bouncers", "postgresql", "mysql")
	_, err = e.c.Bouncers.Get(ctx, &platform.GetBouncerParams{Organization: e.org, Database: "app", Branch: "main", Bouncer: "pool"})
	apiError(t, err, http.StatusUnprocessableEntity, "bouncers", "postgresql", "mysql")

	if _, err := e.c.Branches.Create(ctx, &platform.CreateBranchParams{Organization: e.org, Database: "pg", Name: "fresh", ParentBranch: "main"}); err != nil {
		t.Fatal(err)
	}
	_, err = e.create("fresh", platform.CreateBouncerParams{Name: "pool"})
	apiError(t, err, http.StatusUnprocessableEntity, "branch fresh is not ready")
}

func TestBouncerResizeLifecycle(t *testing.T) {
	t.Parallel()
	e := newBouncerEnv(t, fake.WithTimings(fake.Timings{BouncerResizeStart: 2 * time.Second, BouncerResize: 7 * time.Second}))
	e.tm.BouncerResizeStart, e.tm.BouncerResize = 2*time.Second, 7*time.Second
	before := e.ready("pool")
	r, err := e.resize("pool", platform.ResizeBouncerParams{
		BouncerSize: platform.Ptr("PGB_40"), ReplicasPerCell: platform.Ptr(3), Target: platform.Ptr(platform.BouncerTargetReplica),
		Parameters: platform.BouncerParameters{"pgbouncer": {"default_pool_size": "100", "pool_mode": "session"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := &platform.BouncerResizeRequest{
		ID: r.ID, State: platform.BouncerResizePending,
		ReplicasPerCell: 3, Target: platform.BouncerTargetReplica,
		Parameters:              platform.BouncerParameters{"pgbouncer": {"default_pool_size": "100", "pool_mode": "session"}},
		PreviousReplicasPerCell: 1, PreviousTarget: platform.BouncerTargetPrimary,
		PreviousParameters: platform.BouncerParameters{"pgbouncer": {}},
		CreatedAt:          r.CreatedAt, UpdatedAt: r.CreatedAt, Actor: before.Actor,
		Bouncer:     platform.BouncerRef{ID: before.ID, Name: "pool", CreatedAt: before.CreatedAt, UpdatedAt: before.UpdatedAt},
		SKU:         platform.BouncerSKU{Name: "PGB_40", DisplayName: "PGB-40", CPU: "1/2", RAM: 4 << 30, SortOrder: 40},
		PreviousSKU: before.SKU,
	}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Errorf("resize request (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(before, e.get("main", "pool")); diff != "" {
		t.Errorf("a pending resize changed the bouncer (-want +got):\n%s", diff)
	}
	e.srv.Advance(e.tm.BouncerResizeStart)
	got := e.resizes("pool")[0]
	if got.State != platform.BouncerResizeResizing || got.StartedAt == nil || got.CompletedAt != nil {
		t.Errorf("after BouncerResizeStart: state %s, started %v, completed %v; want resizing, started", got.State, got.StartedAt, got.CompletedAt)
	}
	e.srv.Advance(e.tm.BouncerResize - time.Millisecond)
	if s := e.resizes("pool")[0].State; s != platform.BouncerResizeResizing {
		t.Errorf("before BouncerResize has passed: %s, want resizing", s)
	}
	e.srv.Advance(time.Millisecond)
	got = e.resizes("pool")[0]
	if got.State != platform.BouncerResizeCompleted || got.CompletedAt == nil {
		t.Errorf("after BouncerResize: state %s, completed %v; want completed", got.State, got.CompletedAt)
	}
	after := e.get("main", "pool")
	if after.SKU.Name != "PGB_40" || after.ReplicasPerCell != 3 || after.Target != platform.BouncerTargetReplica || !after.UpdatedAt.After(before.UpdatedAt.Time) {
		t.Errorf("bouncer after the resize: %s, %d per cell, %s, updated %v", after.SKU.Name, after.ReplicasPerCell, after.Target, after.UpdatedAt)
	}
	values := map[string]string{}
	for _, p := range after.Parameters {
		values[p.Name] = p.Value
	}
	if diff := cmp.Diff(map[string]string{"pool_mode": "session", "default_pool_size": "100", "max_client_conn": "1000"}, values); diff != "" {
		t.Errorf("parameters after the resize (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"pool replica 3 PGB_40"}, e.pods()); diff != "" {
		t.Errorf("pods after the resize (-want +got):\n%s", diff)
	}
	// The next request starts from the values the first one set.
	next, err := e.resize("pool", platform.ResizeBouncerParams{Parameters: platform.BouncerParameters{"pgbouncer": {"max_client_conn": "500"}}})
	if err != nil {
		t.Fatal(err)
	}
	if next.PreviousSKU.Name != "PGB_40" || next.SKU.Name != "PGB_40" || next.Parameters["pgbouncer"]["default_pool_size"] != "100" || next.Parameters["pgbouncer"]["max_client_conn"] != "500" {
		t.Errorf("second request: %+v", next)
	}
}

// TestBouncerResizeUpsert: while a resize request is pending, another
// PATCH changes it (the API's upsert) rather than being refused: the
// values given apply on top of the pending request's, its ID and creation
// stay, and the bouncer takes the combined values when it completes. An
// upsert back to the bouncer's own values keeps the request pending.
func TestBouncerResizeUpsert(t *testing.T) {
	t.Parallel()
	e := newBouncerEnv(t)
	e.ready("pool")
	first, err := e.resize("pool", platform.ResizeBouncerParams{BouncerSize: platform.Ptr("PGB_10")})
	if err != nil {
		t.Fatal(err)
	}
	e.srv.Advance(e.tm.BouncerResizeStart / 2)
	second, err := e.resize("pool", platform.ResizeBouncerParams{
		ReplicasPerCell: platform.Ptr(2),
		Parameters:      platform.BouncerParameters{"pgbouncer": {"default_pool_size": "100"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := *first
	want.ReplicasPerCell = 2
	want.Parameters = platform.BouncerParameters{"pgbouncer": {"default_pool_size": "100"}}
	want.UpdatedAt = second.UpdatedAt
	if diff := cmp.Diff(&want, second); diff != "" {
		t.Errorf("the upserted request (-want +got):\n%s", diff)
	}
	if !second.UpdatedAt.After(first.UpdatedAt.Time) {
		t.Errorf("updated_at %v did not move past %v", second.UpdatedAt, first.UpdatedAt)
	}
	if diff := cmp.Diff([]*platform.BouncerResizeRequest{second}, e.resizes("pool")); diff != "" {
		t.Errorf("the bouncer's requests (-want +got):\n%s", diff)
	}
	// The upsert keeps the request's schedule: it starts when the first
	// PATCH's request was due to.
	e.srv.Advance(e.tm.BouncerResizeStart - e.tm.BouncerResizeStart/2)
	if s := e.resizes("pool")[0].State; s != platform.BouncerResizeResizing {
		t.Errorf("after BouncerResizeStart from the first PATCH: %s, want resizing", s)
	}
	// Once resizing, the request is no longer changed.
	_, err = e.resize("pool", platform.ResizeBouncerParams{BouncerSize: platform.Ptr("PGB_20")})
	apiError(t, err, http.StatusUnprocessableEntity, "already has a resize request", first.ID, "resizing")
	e.srv.Advance(e.tm.BouncerResize)
	after := e.get("main", "pool")
	if after.SKU.Name != "PGB_10" || after.ReplicasPerCell != 2 || len(after.Parameters) == 0 {
		t.Errorf("bouncer after the upserted resize: %s, %d per cell", after.SKU.Name, after.ReplicasPerCell)
	}
	values := map[string]string{}
	for _, p := range after.Parameters {
		values[p.Name] = p.Value
	}
	if values["default_pool_size"] != "100" {
		t.Errorf("default_pool_size after the upserted resize: %q, want 100", values["default_pool_size"])
	}

	// Back to the bouncer's own values: still pending, and it completes
	// changing nothing.
	third, err := e.resize("pool", platform.ResizeBouncerParams{BouncerSize: platform.Ptr("PGB_40")})
	if err != nil {
		t.Fatal(err)
	}
	back, err := e.resize("pool", platform.ResizeBouncerParams{BouncerSize: platform.Ptr("PGB_10")})
	if err != nil {
		t.Fatal(err)
	}
	if back.ID != third.ID || back.State != platform.BouncerResizePending || back.SKU.Name != "PGB_10" || back.PreviousSKU.Name != "PGB_10" {
		t.Errorf("an upsert back to the bouncer's values: %s %s, %s from %s; want %s pending, PGB_10 from PGB_10", back.ID, back.State, back.SKU.Name, back.PreviousSKU.Name, third.ID)
	}
	e.srv.Advance(e.tm.BouncerResizeStart + e.tm.BouncerResize)
	if diff := cmp.Diff(after.SKU, e.get("main", "pool").SKU); diff != "" {
		t.Errorf("the bouncer's size after a request back to its values (-want +got):\n%s", diff)
	}
}

func TestBouncerResizeRefusals(t *testing.T) {
	t.Parallel()
	pgb := func(name, value string) platform.BouncerParameters {
		return platform.BouncerParameters{"pgbouncer": {name: value}}
	}
	cases := []struct {
		name    string
		bouncer string
		setup   func(e *bouncerEnv)
		p       platform.ResizeBouncerParams
		status  int
		words   []string
	}{
		{name: "unknown size", p: platform.ResizeBouncerParams{BouncerSize: platform.Ptr("PGB_7")}, status: 422, words: []string{"bouncer_size", `"PGB_7"`}},
		{name: "servers out of range", p: platform.ResizeBouncerParams{ReplicasPerCell: platform.Ptr(-1)}, status: 422, words: []string{"replicas_per_cell", "got -1"}},
		{name: "unknown target", p: platform.ResizeBouncerParams{Target: platform.Ptr(platform.BouncerTarget("all"))}, status: 422, words: []string{"target", `"all"`}},
		{name: "other namespace", p: platform.ResizeBouncerParams{Parameters: platform.BouncerParameters{"pgconf": {"work_mem": "8MB"}}}, status: 422, words: []string{"namespace", `"pgconf"`, "pgbouncer"}},
		{name: "not a bouncer parameter", p: platform.ResizeBouncerParams{Parameters: pgb("work_mem", "8MB")}, status: 422, words: []string{`"work_mem"`, "pgbouncer"}},
		{name: "unknown parameter", p: platform.ResizeBouncerParams{Parameters: pgb("pool_size", "8")}, status: 422, words: []string{`"pool_size"`}},
		{name: "value out of range", p: platform.ResizeBouncerParams{Parameters: pgb("default_pool_size", "0")}, status: 422, words: []string{"default_pool_size", `"0"`, "range"}},
		{name: "value not an option", p: platform.ResizeBouncerParams{Parameters: pgb("pool_mode", "lazy")}, status: 422, words: []string{"pool_mode", `"lazy"`}},
		{name: "no change", p: platform.ResizeBouncerParams{BouncerSize: platform.Ptr("PGB_5"), Parameters: pgb("pool_mode", "transaction")}, status: 422, words: []string{"changes nothing", "pool"}},
		{name: "bouncer not ready", bouncer: "young", setup: func(e *bouncerEnv) {
			if _, err := e.create("main", platform.CreateBouncerParams{Name: "young"}); err != nil {
				e.t.Fatal(err)
			}
		}, p: platform.ResizeBouncerParams{BouncerSize: platform.Ptr("PGB_10")}, status: 422, words: []string{"bouncer young is not ready"}},
		{name: "bad value for a pending request", setup: func(e *bouncerEnv) {
			if _, err := e.resize("pool", platform.ResizeBouncerParams{BouncerSize: platform.Ptr("PGB_10")}); err != nil {
				e.t.Fatal(err)
			}
		}, p: platform.ResizeBouncerParams{BouncerSize: platform.Ptr("PGB_20"), ReplicasPerCell: platform.Ptr(11)}, status: 422, words: []string{"replicas_per_cell", "got 11"}},
		{name: "second while resizing", setup: func(e *bouncerEnv) {
			if _, err := e.resize("pool", platform.ResizeBouncerParams{BouncerSize: platform.Ptr("PGB_10")}); err != nil {
				e.t.Fatal(err)
			}
			e.srv.Advance(e.tm.BouncerResizeStart)
		}, p: platform.ResizeBouncerParams{BouncerSize: platform.Ptr("PGB_20")}, status: 422, words: []string{"already has a resize request", "resizing"}},
		{name: "missing bouncer", bouncer: "nope", p: platform.ResizeBouncerParams{BouncerSize: platform.Ptr("PGB_10")}, status: 404},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newBouncerEnv(t)
			e.ready("pool")
			if tc.setup != nil {
				tc.setup(e)
			}
			before := e.state()
			name := tc.bouncer
			if name == "" {
				name = "pool"
			}
			_, err := e.resize(name, tc.p)
			apiError(t, err, tc.status, tc.words...)
			if diff := cmp.Diff(before, e.state()); diff != "" {
				t.Errorf("a refused resize changed the bouncers (-before +after):\n%s", diff)
			}
		})
	}
}

func TestBouncerCancelResize(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		advance func(tm fake.Timings) time.Duration
	}{
		{"pending", func(fake.Timings) time.Duration { return 0 }},
		{"resizing", func(tm fake.Timings) time.Duration { return tm.BouncerResizeStart }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newBouncerEnv(t)
			before := e.ready("pool")
			if _, err := e.resize("pool", platform.ResizeBouncerParams{BouncerSize: platform.Ptr("PGB_80")}); err != nil {
				t.Fatal(err)
			}
			e.srv.Advance(tc.advance(e.tm))
			if err := e.c.Bouncers.CancelResize(t.Context(), e.ref("main", "pool")); err != nil {
				t.Fatal(err)
			}
			e.srv.Advance(e.tm.BouncerResizeStart + e.tm.BouncerResize)
			r := e.resizes("pool")[0]
			if r.State != platform.BouncerResizeCanceled || r.CompletedAt != nil {
				t.Errorf("canceled request: state %s, completed %v", r.State, r.CompletedAt)
			}
			if diff := cmp.Diff(before, e.get("main", "pool")); diff != "" {
				t.Errorf("a canceled resize changed the bouncer (-want +got):\n%s", diff)
			}
			err := e.c.Bouncers.CancelResize(t.Context(), e.ref("main", "pool"))
			apiError(t, err, http.StatusUnprocessableEntity, "no resize request to cancel", r.ID, "canceled")
			// A new request may follow a canceled one.
			if _, err := e.resize("pool", platform.ResizeBouncerParams{BouncerSize: platform.Ptr("PGB_80")}); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestBouncerCancelRefusedAfterCompletion(t *testing.T) {
	t.Parallel()
	e := newBouncerEnv(t)
	e.ready("pool")
	err := e.c.Bouncers.CancelResize(t.Context(), e.ref("main", "pool"))
	apiError(t, err, http.StatusUnprocessableEntity, "bouncer pool has no resize request to cancel")
	r, err := e.resize("pool", platform.ResizeBouncerParams{ReplicasPerCell: platform.Ptr(2)})
	if err != nil {
		t.Fatal(err)
	}
	e.srv.Advance(e.tm.BouncerResizeStart + e.tm.BouncerResize)
	before := e.state()
	err = e.c.Bouncers.CancelResize(t.Context(), e.ref("main", "pool"))
	apiError(t, err, http.StatusUnprocessableEntity, r.ID, "completed")
	if diff := cmp.Diff(before, e.state()); diff != "" {
		t.Errorf("a refused cancel changed the bouncers (-before +after):\n%s", diff)
	}
}

func TestBouncerDelete(t *testing.T) {
	t.Parallel()
	e := newBouncerEnv(t)
	ctx := t.Context()
	e.ready("pool")
	e.ready("pool-2") // a name that extends pool's
	if _, err := e.resize("pool", platform.ResizeBouncerParams{BouncerSize: platform.Ptr("PGB_10")}); err != nil {
		t.Fatal(err)
	}
	if err := e.c.Bouncers.Delete(ctx, e.ref("main", "pool")); err != nil {
		t.Fatal(err)
	}
	_, err := e.c.Bouncers.Get(ctx, e.ref("main", "pool"))
	apiError(t, err, http.StatusNotFound)
	apiError(t, e.c.Bouncers.Delete(ctx, e.ref("main", "pool")), http.StatusNotFound)
	_, err = e.c.Bouncers.ListResizes(ctx, &platform.ListBouncerResizesParams{Organization: e.org, Database: "pg", Branch: "main", Bouncer: "pool"})
	apiError(t, err, http.StatusNotFound)
	apiError(t, e.c.Bouncers.CancelResize(ctx, e.ref("main", "pool")), http.StatusNotFound)
	rs := opCollect(t, e.c.Bouncers.AllBranchResizes(ctx, &platform.ListBranchBouncerResizesParams{Organization: e.org, Database: "pg", Branch: "main"}))
	if len(rs) != 1 || rs[0].State != platform.BouncerResizeCanceled || rs[0].Bouncer.DeletedAt == nil {
		t.Fatalf("branch's resizes after the delete: %+v; want the request canceled, of a deleted bouncer", rs)
	}
	if diff := cmp.Diff([]string{"pool-2 primary 1 PGB_5"}, e.pods()); diff != "" {
		t.Errorf("pods after the delete (-want +got):\n%s", diff)
	}
	// The name is free again.
	if _, err := e.create("main", platform.CreateBouncerParams{Name: "pool"}); err != nil {
		t.Fatal(err)
	}
}

func TestBouncersGoWithTheirBranch(t *testing.T) {
	t.Parallel()
	e := newBouncerEnv(t)
	ctx := t.Context()
	if _, err := e.create("dev", platform.CreateBouncerParams{Name: "pool"}); err != nil {
		t.Fatal(err)
	}
	if err := e.c.Branches.Delete(ctx, &platform.DeleteBranchParams{Organization: e.org, Database: "pg", Branch: "dev"}); err != nil {
		t.Fatal(err)
	}
	e.srv.Advance(e.tm.BouncerReady) // the pending transition finds the bouncer gone
	if _, err := e.c.Branches.Create(ctx, &platform.CreateBranchParams{Organization: e.org, Database: "pg", Name: "dev", ParentBranch: "main"}); err != nil {
		t.Fatal(err)
	}
	e.srv.Advance(e.tm.BranchReady)
	got := opCollect(t, e.c.Bouncers.All(ctx, &platform.ListBouncersParams{Organization: e.org, Database: "pg", Branch: "dev"}))
	if len(got) != 0 {
		t.Errorf("a new branch of the same name has bouncers: %v", got)
	}
}

func TestBouncerFailNext(t *testing.T) {
	t.Parallel()
	e := newBouncerEnv(t)
	b, err := e.create("main", platform.CreateBouncerParams{Name: "doomed"})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.srv.FailNext(b.ID); err != nil {
		t.Fatal(err)
	}
	e.srv.Advance(e.tm.BouncerReady)
	_, err = e.c.Bouncers.Get(t.Context(), e.ref("main", "doomed"))
	apiError(t, err, http.StatusNotFound)

	before := e.ready("pool")
	r, err := e.resize("pool", platform.ResizeBouncerParams{BouncerSize: platform.Ptr("PGB_10")})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.srv.FailNext(r.ID); err != nil {
		t.Fatal(err)
	}
	e.srv.Advance(e.tm.BouncerResizeStart + e.tm.BouncerResize)
	if s := e.resizes("pool")[0].State; s != platform.BouncerResizeCanceled {
		t.Errorf("failed resize ended %s, want canceled", s)
	}
	if diff := cmp.Diff(before, e.get("main", "pool")); diff != "" {
		t.Errorf("a failed resize changed the bouncer (-want +got):\n%s", diff)
	}
}

func TestBouncerRoleConnection(t *testing.T) {
	t.Parallel()
	e := newBouncerEnv(t)
	ctx := t.Context()
	e.ready("pool")
	r, err := e.c.Roles.Create(ctx, &platform.CreateRoleParams{Organization: e.org, Database: "pg", Branch: "main"})
	if err != nil {
		t.Fatal(err)
	}
	get := &platform.GetRoleParams{Organization: e.org, Database: "pg", Branch: "main", ID: r.ID, Bouncer: "pool"}
	via, err := e.c.Roles.Get(ctx, get)
	if err != nil {
		t.Fatal(err)
	}
	if want := "pool.pgbouncer." + r.AccessHostURL; via.AccessHostURL != want {
		t.Errorf("host through the bouncer %q, want %q", via.AccessHostURL, want)
	}
	if err := e.c.Bouncers.Delete(ctx, e.ref("main", "pool")); err != nil {
		t.Fatal(err)
	}
	_, err = e.c.Roles.Get(ctx, get)
	apiError(t, err, http.StatusUnprocessableEntity, "bouncer", `"pool"`, "main")
}

// TestBouncerReplicaTargetNeedsReplicas: the rule of a bouncer's creation
// (a replica target needs replicas) holds afterwards too. A change that
// removes every replica of a branch with such a bouncer is refused naming
// the bouncer, and such a bouncer is refused while a change that removes
// them all is in flight; the refusals change nothing.
func TestBouncerReplicaTargetNeedsReplicas(t *testing.T) {
	t.Parallel()
	replicas := func(e *bouncerEnv, branch string, n int) error {
		_, err := e.c.BranchChanges.UpdateChange(e.t.Context(), &platform.UpdateBranchChangeRequestParams{Organization: e.org, Database: "pg", Branch: branch, Replicas: platform.Ptr(n)})
		return err
	}
	tests := []struct {
		name  string
		setup func(e *bouncerEnv) error
		try   func(e *bouncerEnv) error
		words []string
	}{
		{
			name: "removing the last replica under a replica bouncer",
			setup: func(e *bouncerEnv) error {
				_, err := e.create("dev", platform.CreateBouncerParams{Name: "rb", Target: platform.Ptr(platform.BouncerTargetReplica)})
				return err
			},
			try:   func(e *bouncerEnv) error { return replicas(e, "dev", 0) },
			words: []string{"every replica", "dev", "bouncer rb"},
		},
		{
			name: "removing the last replica under a replica_az_affinity bouncer",
			setup: func(e *bouncerEnv) error {
				_, err := e.create("dev", platform.CreateBouncerParams{Name: "az", Target: platform.Ptr(platform.BouncerTargetReplicaAZAffinity)})
				return err
			},
			try:   func(e *bouncerEnv) error { return replicas(e, "dev", 0) },
			words: []string{"every replica", "dev", "bouncer az"},
		},
		{
			name:  "a replica bouncer while a change removes every replica",
			setup: func(e *bouncerEnv) error { return replicas(e, "dev", 0) },
			try: func(e *bouncerEnv) error {
				_, err := e.create("dev", platform.CreateBouncerParams{Name: "rb", Target: platform.Ptr(platform.BouncerTargetReplica)})
				return err
			},
			words: []string{"target replica", "dev", "change request", "queued"},
		},
		{
			name: "demoting a branch whose replica bouncer needs the replicas it includes",
			setup: func(e *bouncerEnv) error {
				if _, err := e.c.Branches.Promote(e.t.Context(), &platform.PromoteBranchParams{Organization: e.org, Database: "pg", Branch: "dev"}); err != nil {
					return err
				}
				if err := replicas(e, "dev", 2); err != nil { // only those production includes
					return err
				}
				e.srv.Advance(e.tm.BranchChangeStart + e.tm.BranchChangeRun)
				_, err := e.create("dev", platform.CreateBouncerParams{Name: "rb", Target: platform.Ptr(platform.BouncerTargetReplica)})
				return err
			},
			try: func(e *bouncerEnv) error {
				_, err := e.c.Branches.Demote(e.t.Context(), &platform.DemoteBranchParams{Organization: e.org, Database: "pg", Branch: "dev"})
				return err
			},
			words: []string{"demoting", "every replica", "bouncer rb"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newBouncerEnv(t)
			if err := replicas(e, "dev", 1); err != nil {
				t.Fatal(err)
			}
			e.srv.Advance(e.tm.BranchChangeStart + e.tm.BranchChangeRun)
			if err := tt.setup(e); err != nil {
				t.Fatal(err)
			}
			if _, err := e.c.Organizations.Get(t.Context(), &platform.GetOrganizationParams{Organization: e.org}); err != nil {
				t.Fatal(err) // the admin token's last use, at now
			}
			before, err := e.srv.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			apiError(t, tt.try(e), http.StatusUnprocessableEntity, tt.words...)
			after, err := e.srv.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			if string(before) != string(after) {
				t.Error("the refusal changed the state")
			}
		})
	}
}

// TestBouncerCreateTargetForms: a bouncer created without a target, or
// with the "" the service's own client sends for none, targets the
// primary, on a branch with replicas or without.
func TestBouncerCreateTargetForms(t *testing.T) {
	t.Parallel()
	e := newBouncerEnv(t)
	tests := []struct {
		name, branch string
		target       *platform.BouncerTarget
		want         platform.BouncerTarget
	}{
		{"omitted", "main", nil, platform.BouncerTargetPrimary},
		{"empty", "main", platform.Ptr(platform.BouncerTarget("")), platform.BouncerTargetPrimary},
		{"empty without replicas", "dev", platform.Ptr(platform.BouncerTarget("")), platform.BouncerTargetPrimary},
		{"replica", "main", platform.Ptr(platform.BouncerTargetReplica), platform.BouncerTargetReplica},
	}
	for i, tt := range tests {
		bn, err := e.create(tt.branch, platform.CreateBouncerParams{Name: "b" + strconv.Itoa(i), Target: tt.target})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if bn.Target != tt.want {
			t.Errorf("%s: target %q, want %q", tt.name, bn.Target, tt.want)
		}
	}
}
