package fake_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// brEnv is a fake with a MySQL database my and a PostgreSQL database pg,
// each with its production branch main and a ready development branch dev.
type brEnv struct {
	t   *testing.T
	srv *fake.Server
	c   *platform.Client
	tm  fake.Timings
}

func newBREnv(t *testing.T, opts ...fake.Option) *brEnv {
	t.Helper()
	srv := fake.NewServer(t, opts...)
	csDB(t, srv, "my", platform.KindMySQL, "")
	csDB(t, srv, "pg", platform.KindPostgreSQL, "")
	return &brEnv{t: t, srv: srv, c: srv.Client(), tm: fake.DefaultTimings()}
}

func (e *brEnv) branchParams(db, branch string) *platform.BranchParams {
	return &platform.BranchParams{Organization: e.srv.Org(), Database: db, Branch: branch}
}

func (e *brEnv) change(db, branch string, p platform.UpdateBranchChangeRequestParams) (*platform.BranchChangeRequest, error) {
	p.Organization, p.Database, p.Branch = e.srv.Org(), db, branch
	return e.c.BranchChanges.UpdateChange(e.t.Context(), &p)
}

func (e *brEnv) resize(db, branch string, p platform.UpdateBranchResizeRequestParams) (*platform.BranchResizeRequest, error) {
	p.Organization, p.Database, p.Branch = e.srv.Org(), db, branch
	return e.c.BranchChanges.UpdateResize(e.t.Context(), &p)
}

func (e *brEnv) getChange(db, branch, id string) *platform.BranchChangeRequest {
	e.t.Helper()
	r, err := e.c.BranchChanges.GetChange(e.t.Context(), &platform.GetBranchChangeRequestParams{Organization: e.srv.Org(), Database: db, Branch: branch, ID: id})
	if err != nil {
		e.t.Fatal(err)
	}
	return r
}

func (e *brEnv) getBranch(db, branch string) *platform.Branch {
	e.t.Helper()
	b, err := e.c.Branches.Get(e.t.Context(), &platform.GetBranchParams{Organization: e.srv.Org(), Database: db, Branch: branch})
	if err != nil {
		e.t.Fatal(err)
	}
	return b
}

// flags are what a database, its branch and its default keyspace show of
// a change request.
type brFlags struct {
	ClusterName                             string
	Replicas                                int
	ResizeQueued, Resizing                  bool
	ConfigChangeQueued, ConfigChanging      bool
	KeyspaceResizePending, KeyspaceResizing bool
	KeyspaceResizeInProgress                bool
	MaxConnections                          string
	ClusterIOPS                             *int // a PostgreSQL branch's storage IOPS
}

func (e *brEnv) flags(db, branch string) brFlags {
	e.t.Helper()
	ctx, org := e.t.Context(), e.srv.Org()
	d, err := e.c.Databases.Get(ctx, &platform.GetDatabaseParams{Organization: org, Database: db})
	if err != nil {
		e.t.Fatal(err)
	}
	ks, err := e.c.Keyspaces.Get(ctx, &platform.GetKeyspaceParams{Organization: org, Database: db, Branch: branch, Keyspace: db})
	if err != nil {
		e.t.Fatal(err)
	}
	params, err := e.c.BranchChanges.ListParameters(ctx, paramsOf(e.branchParams(db, branch)))
	if err != nil {
		e.t.Fatal(err)
	}
	b := e.getBranch(db, branch)
	f := brFlags{
		ClusterName: b.ClusterName, Replicas: ks.Replicas, ClusterIOPS: b.ClusterIOPS,
		ResizeQueued: d.ResizeQueued, Resizing: d.Resizing, ConfigChangeQueued: d.ConfigChangeQueued, ConfigChanging: d.ConfigChanging,
		KeyspaceResizePending: ks.ResizePending, KeyspaceResizing: ks.Resizing, KeyspaceResizeInProgress: ks.ResizeInProgress,
	}
	for _, p := range params {
		if p.Name == "max_connections" {
			f.MaxConnections = p.Value
		}
	}
	return f
}

func TestBranchChangeLifecycle(t *testing.T) {
	t.Parallel()
	e := newBREnv(t)
	start := e.srv.Now()
	r, err := e.change("pg", "main", platform.UpdateBranchChangeRequestParams{
		ClusterSize: platform.Ptr("PS_40"), Replicas: platform.Ptr(3),
		Parameters: map[platform.ParameterNamespace]map[string]string{platform.NamespacePgconf: {"max_connections": "200"}},
		Storage:    &platform.BranchStorage{StorageIOPS: platform.Ptr(6000), MaximumStorageBytes: platform.Ptr(int64(2 << 40))},
	})
	if err != nil {
		t.Fatal(err)
	}
	admin := e.getBranch("pg", "main").Actor
	want := &platform.BranchChangeRequest{
		ID: r.ID, Type: "BranchChangeRequest", State: platform.ChangeQueued,
		CreatedAt: platform.NewTimestamp(start), UpdatedAt: platform.NewTimestamp(start), Actor: admin,
		ClusterName: "PS_40_AWS_X86", PreviousClusterName: "PS_10_AWS_X86", ClusterDisplayName: "PS-40", PreviousClusterDisplayName: "PS-10",
		Replicas: 3, PreviousReplicas: 2, Version: "17.5", PreviousVersion: "17.5",
		Parameters:          map[platform.ParameterNamespace]map[string]string{platform.NamespacePgconf: {"max_connections": "200"}},
		PreviousParameters:  map[platform.ParameterNamespace]map[string]string{platform.NamespacePgconf: {"max_connections": "100"}},
		MinimumStorageBytes: 10 << 30, PreviousMinimumStorageBytes: 10 << 30,
		MaximumStorageBytes: 2 << 40, PreviousMaximumStorageBytes: 1 << 40,
		StorageAutoscaling: true, PreviousStorageAutoscaling: true, StorageType: "gp3", PreviousStorageType: "gp3",
		StorageIOPS: 6000, PreviousStorageIOPS: 3000, StorageThroughputMiBs: 125, PreviousStorageThroughputMiBs: 125,
	}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Fatalf("queued request (-want +got):\n%s", diff)
	}
	queued := brFlags{ClusterName: "PS_10_AWS_X86", Replicas: 2, ResizeQueued: true, ConfigChangeQueued: true, KeyspaceResizePending: true, KeyspaceResizeInProgress: true, MaxConnections: "100", ClusterIOPS: platform.Ptr(3000)}
	if diff := cmp.Diff(queued, e.flags("pg", "main")); diff != "" {
		t.Errorf("while queued (-want +got):\n%s", diff)
	}

	e.srv.Advance(e.tm.BranchChangeStart)
	started := platform.NewTimestamp(start.Add(e.tm.BranchChangeStart))
	want.State, want.StartedAt, want.UpdatedAt = platform.ChangeResizing, &started, started
	if diff := cmp.Diff(want, e.getChange("pg", "main", r.ID)); diff != "" {
		t.Errorf("resizing request (-want +got):\n%s", diff)
	}
	resizing := brFlags{ClusterName: "PS_10_AWS_X86", Replicas: 2, Resizing: true, ConfigChanging: true, KeyspaceResizing: true, KeyspaceResizeInProgress: true, MaxConnections: "100", ClusterIOPS: platform.Ptr(3000)}
	if diff := cmp.Diff(resizing, e.flags("pg", "main")); diff != "" {
		t.Errorf("while resizing (-want +got):\n%s", diff)
	}

	e.srv.Advance(e.tm.BranchChangeRun - time.Second)
	if got := e.getChange("pg", "main", r.ID).State; got != platform.ChangeResizing {
		t.Fatalf("state %s a second before the change completes", got)
	}
	e.srv.Advance(time.Second)
	done := platform.NewTimestamp(start.Add(e.tm.BranchChangeStart + e.tm.BranchChangeRun))
	want.State, want.CompletedAt, want.UpdatedAt = platform.ChangeCompleted, &done, done
	if diff := cmp.Diff(want, e.getChange("pg", "main", r.ID)); diff != "" {
		t.Errorf("completed request (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(brFlags{ClusterName: "PS_40_AWS_X86", Replicas: 3, MaxConnections: "200", ClusterIOPS: platform.Ptr(6000)}, e.flags("pg", "main")); diff != "" {
		t.Errorf("after completion (-want +got):\n%s", diff)
	}
	// The parameter shows who set it when; the other branch keeps its own.
	params, err := e.c.BranchChanges.ListParameters(t.Context(), paramsOf(e.branchParams("pg", "main")))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range params {
		if p.Name == "max_connections" && (p.Updated != done || p.Actor == nil || p.Actor.ID != admin.ID) {
			t.Errorf("max_connections updated %v by %+v, want %v by the admin", p.Updated, p.Actor, done)
		}
	}
	if got := e.flags("pg", "dev").MaxConnections; got != "100" {
		t.Errorf("dev's max_connections = %s, want its default", got)
	}
	infra, err := e.c.BranchChanges.GetInfrastructure(t.Context(), e.branchParams("pg", "main"))
	if err != nil {
		t.Fatal(err)
	}
	if infra.Postgres == nil || len(infra.Postgres.Nodes) != 4 || infra.Postgres.Nodes[0].ClusterName != "PS_40_AWS_X86" {
		t.Fatalf("infrastructure after the change: %+v, want 4 nodes of PS_40", infra)
	}

	page, err := e.c.BranchChanges.ListChanges(t.Context(), &platform.ListBranchChangeRequestsParams{Organization: e.srv.Org(), Database: "pg", Branch: "main"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]*platform.BranchChangeRequest{want}, page.Items); diff != "" {
		t.Errorf("list (-want +got):\n%s", diff)
	}
}

// TestBranchResizeRouterSizes checks that a resize request takes each
// query router size the service's command-line tool offers, in either
// spelling, and stores the underscore one.
func TestBranchResizeRouterSizes(t *testing.T) {
	t.Parallel()
	e := newBREnv(t)
	for _, size := range []string{"VTG_DEV", "VTG_5", "VTG_10", "VTG_20", "VTG_40", "VTG_80", "VTG_320", "VTG_640", "VTG_1280", "VTG-2560"} {
		r, err := e.resize("my", "dev", platform.UpdateBranchResizeRequestParams{VTGateSize: platform.Ptr(size)})
		if err != nil {
			t.Errorf("%s: %v", size, err)
			continue
		}
		if want := strings.ReplaceAll(size, "-", "_"); r.VTGateSize != want {
			t.Errorf("%s: the request's vtgate_size is %s, want %s", size, r.VTGateSize, want)
		}
	}
}

func TestBranchResizeLifecycle(t *testing.T) {
	t.Parallel()
	e := newBREnv(t)
	r, err := e.resize("my", "main", platform.UpdateBranchResizeRequestParams{VTGateSize: platform.Ptr("VTG_20"), VTGateCount: platform.Ptr(2)})
	if err != nil {
		t.Fatal(err)
	}
	// While queued, another resize changes the same request.
	again, err := e.resize("my", "main", platform.UpdateBranchResizeRequestParams{VTGateAutoscaling: platform.Ptr(true), VTGateMaxCount: platform.Ptr(4), VTGateTargetCPUUtilization: platform.Ptr(60)})
	if err != nil {
		t.Fatal(err)
	}
	if again.ID != r.ID {
		t.Errorf("a resize while one is queued made %s, want it to change %s", again.ID, r.ID)
	}
	want := &platform.BranchResizeRequest{
		ID: r.ID, Type: "BranchResizeRequest", State: platform.ChangeQueued,
		CreatedAt: r.CreatedAt, UpdatedAt: again.UpdatedAt, Actor: r.Actor,
		VTGateSize: "VTG_20", PreviousVTGateSize: "VTG_5", VTGateName: "VTG_20", PreviousVTGateName: "VTG_5",
		VTGateDisplayName: "VTG-20", PreviousVTGateDisplayName: "VTG-5",
		VTGateCount: 2, PreviousVTGateCount: 1, VTGateMaxCount: 4, VTGateAutoscaling: true, VTGateTargetCPUUtilization: 60,
	}
	if diff := cmp.Diff(want, again); diff != "" {
		t.Errorf("upserted request (-want +got):\n%s", diff)
	}
	if d, _ := e.c.Databases.Get(t.Context(), &platform.GetDatabaseParams{Organization: e.srv.Org(), Database: "my"}); !d.ResizeQueued || d.Resizing || d.ConfigChangeQueued {
		t.Errorf("database while queued: resize_queued %v resizing %v config_change_queued %v", d.ResizeQueued, d.Resizing, d.ConfigChangeQueued)
	}
	if b := e.getBranch("my", "main"); b.VTGateSize != "VTG_5" || b.VTGateCount != 1 {
		t.Errorf("branch before completion: %s x%d, want VTG_5 x1", b.VTGateSize, b.VTGateCount)
	}

	got, err := e.c.BranchChanges.WaitResize(t.Context(), &platform.GetBranchResizeRequestParams{Organization: e.srv.Org(), Database: "my", Branch: "main", Resize: r.ID})
	if err != nil {
		t.Fatal(err)
	}
	if got.State != platform.ChangeCompleted || got.CompletedAt == nil || got.StartedAt == nil {
		t.Errorf("waited for resize: %s started %v completed %v", got.State, got.StartedAt, got.CompletedAt)
	}
	b := e.getBranch("my", "main")
	wantB := []any{"VTG_20", "VTG_20", 2, true, 4, 60}
	gotB := []any{b.VTGateSize, *b.VTGateName, b.VTGateCount, b.VTGateAutoscaling, *b.VTGateMaxCount, *b.VTGateTargetCPUUtilization}
	if diff := cmp.Diff(wantB, gotB); diff != "" {
		t.Errorf("branch's query routers after the resize (-want +got):\n%s", diff)
	}
	// The infrastructure runs them: two per zone of a production branch's two.
	infra, err := e.c.BranchChanges.GetInfrastructure(t.Context(), e.branchParams("my", "main"))
	if err != nil {
		t.Fatal(err)
	}
	var routers []string
	for _, p := range infra.Pods {
		if p.Component == "vtgate" {
			routers = append(routers, p.Size)
		}
	}
	if diff := cmp.Diff([]string{"VTG_20", "VTG_20", "VTG_20", "VTG_20"}, routers); diff != "" {
		t.Errorf("query router pods after the resize (-want +got):\n%s", diff)
	}
	// The same values again change nothing: 204, no request.
	if r, err := e.resize("my", "main", platform.UpdateBranchResizeRequestParams{VTGateSize: platform.Ptr("VTG_20")}); err != nil || r != nil {
		t.Errorf("resize to the current size = %+v, %v; want nil, nil", r, err)
	}
	page, err := e.c.BranchChanges.ListResizes(t.Context(), &platform.ListBranchResizeRequestsParams{Organization: e.srv.Org(), Database: "my", Branch: "main"})
	if err != nil || len(page.Items) != 1 {
		t.Fatalf("resizes = %v, %v; want the one", page, err)
	}
	// A change request's ID is not a resize request's.
	_, err = e.c.BranchChanges.GetChange(t.Context(), &platform.GetBranchChangeRequestParams{Organization: e.srv.Org(), Database: "my", Branch: "main", ID: r.ID})
	apiError(t, err, http.StatusNotFound)
}

func TestBranchChangeConcurrency(t *testing.T) {
	t.Parallel()
	e := newBREnv(t)
	r, err := e.change("pg", "dev", platform.UpdateBranchChangeRequestParams{ClusterSize: platform.Ptr("PS_20")})
	if err != nil {
		t.Fatal(err)
	}
	// While queued: a change of the same kind upserts, a cluster config too.
	if err := e.c.BranchChanges.UpdateClusterConfig(t.Context(), &platform.UpdateClusterConfigParams{Organization: e.srv.Org(), Database: "pg", Branch: "dev", ClusterSize: "PS_5"}); err != nil {
		t.Fatal(err)
	}
	if got := e.getChange("pg", "dev", r.ID).ClusterName; got != "PS_5_AWS_X86" {
		t.Errorf("queued request's cluster after the cluster config = %s, want PS_5_AWS_X86", got)
	}
	// A resize of MySQL's routers while a change is queued is 422 as well.
	if _, err := e.change("my", "dev", platform.UpdateBranchChangeRequestParams{ClusterSize: platform.Ptr("PS_20")}); err != nil {
		t.Fatal(err)
	}
	_, err = e.resize("my", "dev", platform.UpdateBranchResizeRequestParams{VTGateCount: platform.Ptr(2)})
	apiError(t, err, http.StatusUnprocessableEntity, "change request", "queued")

	e.srv.Advance(e.tm.BranchChangeStart)
	before := opWorldState(t, e.srv)
	_, err = e.change("pg", "dev", platform.UpdateBranchChangeRequestParams{ClusterSize: platform.Ptr("PS_10")})
	apiError(t, err, http.StatusUnprocessableEntity, "change request "+r.ID, "resizing")
	err = e.c.BranchChanges.UpdateClusterConfig(t.Context(), &platform.UpdateClusterConfigParams{Organization: e.srv.Org(), Database: "pg", Branch: "dev", ClusterSize: "PS_10"})
	apiError(t, err, http.StatusUnprocessableEntity, "resizing")
	if diff := worldStateDiff(t, before, opWorldState(t, e.srv)); diff != "" {
		t.Errorf("refused requests changed the world (-before +after):\n%s", diff)
	}
}

// TestBranchClusterConfigUnchanged checks that a cluster config to the
// size a branch runs at changes nothing: a 204, no change request, no
// entry in the audit log.
func TestBranchClusterConfigUnchanged(t *testing.T) {
	t.Parallel()
	e := newBREnv(t)
	size := e.getBranch("pg", "dev").ClusterName
	before := opWorldState(t, e.srv)
	if err := e.c.BranchChanges.UpdateClusterConfig(t.Context(), &platform.UpdateClusterConfigParams{Organization: e.srv.Org(), Database: "pg", Branch: "dev", ClusterSize: size}); err != nil {
		t.Fatal(err)
	}
	if diff := worldStateDiff(t, before, opWorldState(t, e.srv)); diff != "" {
		t.Errorf("a cluster config to the current size %s changed the world (-before +after):\n%s", size, diff)
	}
}

func TestBranchChangeCancel(t *testing.T) {
	t.Parallel()
	e := newBREnv(t)
	cancel := func(db string) error {
		return e.c.BranchChanges.CancelChange(t.Context(), e.branchParams(db, "dev"))
	}
	apiError(t, cancel("pg"), http.StatusUnprocessableEntity, "branch dev has no queued or resizing request")

	for _, after := range []time.Duration{0, e.tm.BranchChangeStart} { // queued, resizing
		r, err := e.change("pg", "dev", platform.UpdateBranchChangeRequestParams{ClusterSize: platform.Ptr("PS_20")})
		if err != nil {
			t.Fatal(err)
		}
		e.srv.Advance(after)
		if err := cancel("pg"); err != nil {
			t.Fatal(err)
		}
		e.srv.Advance(e.tm.BranchChangeStart + e.tm.BranchChangeRun)
		got := e.getChange("pg", "dev", r.ID)
		if got.State != platform.ChangeCanceled || got.CompletedAt != nil {
			t.Errorf("canceled after %v: %s, completed at %v", after, got.State, got.CompletedAt)
		}
		if diff := cmp.Diff(brFlags{ClusterName: "PS_10_AWS_X86", MaxConnections: "100", ClusterIOPS: platform.Ptr(3000)}, e.flags("pg", "dev")); diff != "" {
			t.Errorf("a canceled change applied or left flags (-want +got):\n%s", diff)
		}
		_, err = e.c.BranchChanges.WaitChange(t.Context(), &platform.GetBranchChangeRequestParams{Organization: e.srv.Org(), Database: "pg", Branch: "dev", ID: r.ID})
		var se *platform.StateError
		if !errors.As(err, &se) || se.State != "canceled" {
			t.Errorf("waiting for a canceled change: %v, want a StateError in canceled", err)
		}
		apiError(t, cancel("pg"), http.StatusUnprocessableEntity, "change request "+r.ID+", is canceled")
	}

	// Too late once it has completed; the cancel cancels a resize too.
	r, err := e.change("pg", "dev", platform.UpdateBranchChangeRequestParams{ClusterSize: platform.Ptr("PS_20")})
	if err != nil {
		t.Fatal(err)
	}
	e.srv.Advance(e.tm.BranchChangeStart + e.tm.BranchChangeRun)
	apiError(t, cancel("pg"), http.StatusUnprocessableEntity, "change request "+r.ID+", is completed")
	rs, err := e.resize("my", "dev", platform.UpdateBranchResizeRequestParams{VTGateCount: platform.Ptr(3)})
	if err != nil {
		t.Fatal(err)
	}
	if err := cancel("my"); err != nil {
		t.Fatal(err)
	}
	got, err := e.c.BranchChanges.GetResize(t.Context(), &platform.GetBranchResizeRequestParams{Organization: e.srv.Org(), Database: "my", Branch: "dev", Resize: rs.ID})
	if err != nil || got.State != platform.ChangeCanceled {
		t.Errorf("resize after the cancel: %+v, %v", got, err)
	}
}

// TestBranchChangesCancel checks cancel_branch_changes, the route the
// service's own command-line tool cancels a PostgreSQL resize with: it
// cancels a queued change request and nothing else, and each refusal is a
// 422 naming the state that changes nothing.
func TestBranchChangesCancel(t *testing.T) {
	t.Parallel()
	e := newBREnv(t)
	cancel := func(db string) error {
		return e.c.BranchChanges.CancelChanges(t.Context(), e.branchParams(db, "dev"))
	}
	refused := func(db string, words ...string) {
		t.Helper()
		before := opWorldState(t, e.srv)
		apiError(t, cancel(db), http.StatusUnprocessableEntity, words...)
		if diff := worldStateDiff(t, before, opWorldState(t, e.srv)); diff != "" {
			t.Errorf("a refused cancel changed the world (-before +after):\n%s", diff)
		}
	}
	refused("pg", "branch dev has no queued change request")

	r, err := e.change("pg", "dev", platform.UpdateBranchChangeRequestParams{ClusterSize: platform.Ptr("PS_20"), Replicas: platform.Ptr(1)})
	if err != nil {
		t.Fatal(err)
	}
	if err := cancel("pg"); err != nil {
		t.Fatalf("canceling a queued change request: %v", err)
	}
	e.srv.Advance(e.tm.BranchChangeStart + e.tm.BranchChangeRun)
	if got := e.getChange("pg", "dev", r.ID); got.State != platform.ChangeCanceled || got.CompletedAt != nil {
		t.Errorf("after the cancel: %s, completed at %v; want canceled, never completed", got.State, got.CompletedAt)
	}
	if f := e.flags("pg", "dev"); f.ClusterName != "PS_10_AWS_X86" {
		t.Errorf("a canceled change applied: %+v", f)
	}
	refused("pg", "change request "+r.ID+", is canceled")

	// Too late once it resizes; a resize request is not a change request.
	r, err = e.change("pg", "dev", platform.UpdateBranchChangeRequestParams{ClusterSize: platform.Ptr("PS_20")})
	if err != nil {
		t.Fatal(err)
	}
	e.srv.Advance(e.tm.BranchChangeStart)
	refused("pg", "change request "+r.ID+" resizing", "only a queued change request")
	if _, err := e.resize("my", "dev", platform.UpdateBranchResizeRequestParams{VTGateCount: platform.Ptr(3)}); err != nil {
		t.Fatal(err)
	}
	refused("my", "resize request", "queued", "cancel_branch_change_request")
	err = e.c.BranchChanges.CancelChanges(t.Context(), e.branchParams("pg", "nope"))
	apiError(t, err, http.StatusNotFound)
}

func TestBranchChangeRefusals(t *testing.T) {
	t.Parallel()
	e := newBREnv(t)
	pgconf := func(name, value string) map[platform.ParameterNamespace]map[string]string {
		return map[platform.ParameterNamespace]map[string]string{platform.NamespacePgconf: {name: value}}
	}
	ctx, org := t.Context(), e.srv.Org()
	cases := []struct {
		name  string
		do    func() error
		words []string
	}{
		{"unknown cluster size", func() error {
			_, err := e.change("pg", "dev", platform.UpdateBranchChangeRequestParams{ClusterSize: platform.Ptr("PS_BOGUS")})
			return err
		}, []string{"cluster_size", `"PS_BOGUS"`}},
		{"size of the other engine", func() error {
			_, err := e.change("pg", "main", platform.UpdateBranchChangeRequestParams{ClusterSize: platform.Ptr("M_160")})
			return err
		}, []string{"cluster_size", `"M_160"`, "postgresql"}},
		{"production size on a development branch", func() error {
			_, err := e.change("pg", "dev", platform.UpdateBranchChangeRequestParams{ClusterSize: platform.Ptr("PS_80")})
			return err
		}, []string{"cluster_size", `"PS_80"`, "development branches"}},
		{"cluster config with an unknown size", func() error {
			return e.c.BranchChanges.UpdateClusterConfig(ctx, &platform.UpdateClusterConfigParams{Organization: org, Database: "my", Branch: "dev", ClusterSize: "PS_7"})
		}, []string{"cluster_size", `"PS_7"`}},
		{"too few replicas for production", func() error {
			_, err := e.change("pg", "main", platform.UpdateBranchChangeRequestParams{Replicas: platform.Ptr(1)})
			return err
		}, []string{"replicas 1", "from 2 to 10"}},
		{"replicas of a MySQL branch", func() error {
			_, err := e.change("my", "dev", platform.UpdateBranchChangeRequestParams{Replicas: platform.Ptr(1)})
			return err
		}, []string{"replicas", "update_keyspace"}},
		{"storage of a MySQL branch", func() error {
			_, err := e.change("my", "dev", platform.UpdateBranchChangeRequestParams{Storage: &platform.BranchStorage{StorageIOPS: platform.Ptr(4000)}})
			return err
		}, []string{"storage", "mysql"}},
		{"unknown parameter", func() error {
			_, err := e.change("pg", "dev", platform.UpdateBranchChangeRequestParams{Parameters: pgconf("max_bogus", "1")})
			return err
		}, []string{`"max_bogus"`}},
		{"two bad parameters: the first by name", func() error {
			_, err := e.change("pg", "dev", platform.UpdateBranchChangeRequestParams{Parameters: map[platform.ParameterNamespace]map[string]string{
				platform.NamespacePgconf: {"max_connections": "0", "jit": "maybe"},
			}})
			return err
		}, []string{"jit"}},
		{"parameter out of range", func() error {
			_, err := e.change("pg", "dev", platform.UpdateBranchChangeRequestParams{Parameters: pgconf("max_connections", "100000")})
			return err
		}, []string{"max_connections", "out of range"}},
		{"immutable parameter", func() error {
			_, err := e.change("pg", "dev", platform.UpdateBranchChangeRequestParams{Parameters: pgconf("wal_level", "minimal")})
			return err
		}, []string{"wal_level", "cannot be changed"}},
		{"parameter in the wrong namespace", func() error {
			_, err := e.change("pg", "dev", platform.UpdateBranchChangeRequestParams{Parameters: pgconf("pool_mode", "session")})
			return err
		}, []string{"pool_mode", "pgbouncer", "not pgconf"}},
		{"parameter of a MySQL branch", func() error {
			_, err := e.change("my", "dev", platform.UpdateBranchChangeRequestParams{Parameters: pgconf("max_connections", "200")})
			return err
		}, []string{"max_connections", "mysql"}},
		{"maximum storage below the minimum", func() error {
			_, err := e.change("pg", "dev", platform.UpdateBranchChangeRequestParams{Storage: &platform.BranchStorage{MaximumStorageBytes: platform.Ptr(int64(1 << 30))}})
			return err
		}, []string{"storage.maximum_storage_bytes", "below"}},
		{"IOPS out of range", func() error {
			_, err := e.change("pg", "dev", platform.UpdateBranchChangeRequestParams{Storage: &platform.BranchStorage{StorageIOPS: platform.Ptr(100)}})
			return err
		}, []string{"storage.storage_iops 100"}},
		{"throughput out of range", func() error {
			_, err := e.change("pg", "dev", platform.UpdateBranchChangeRequestParams{Storage: &platform.BranchStorage{StorageThroughputMiBs: platform.Ptr(1)}})
			return err
		}, []string{"storage.storage_throughput_mibs 1"}},
		{"resize of a PostgreSQL branch", func() error {
			_, err := e.resize("pg", "dev", platform.UpdateBranchResizeRequestParams{VTGateCount: platform.Ptr(2)})
			return err
		}, []string{"postgresql", "update_branch_change_request"}},
		{"unknown router size", func() error {
			_, err := e.resize("my", "dev", platform.UpdateBranchResizeRequestParams{VTGateSize: platform.Ptr("VTG_7")})
			return err
		}, []string{"vtgate_size", `"VTG_7"`}},
		{"a router size the service does not offer", func() error {
			_, err := e.resize("my", "dev", platform.UpdateBranchResizeRequestParams{VTGateSize: platform.Ptr("VTG_160")})
			return err
		}, []string{"vtgate_size", `"VTG_160"`, "VTG_80, VTG_320"}},
		{"no routers", func() error {
			_, err := e.resize("my", "dev", platform.UpdateBranchResizeRequestParams{VTGateCount: platform.Ptr(0)})
			return err
		}, []string{"vtgate_count 0"}},
		{"at most no routers", func() error {
			_, err := e.resize("my", "dev", platform.UpdateBranchResizeRequestParams{VTGateMaxCount: platform.Ptr(0)})
			return err
		}, []string{"vtgate_max_count 0", "from 1 to"}},
		{"autoscaling without room", func() error {
			_, err := e.resize("my", "dev", platform.UpdateBranchResizeRequestParams{VTGateAutoscaling: platform.Ptr(true), VTGateCount: platform.Ptr(3), VTGateMaxCount: platform.Ptr(2)})
			return err
		}, []string{"vtgate_max_count 2", "vtgate_count 3"}},
		{"CPU target above 100", func() error {
			_, err := e.resize("my", "dev", platform.UpdateBranchResizeRequestParams{VTGateTargetCPUUtilization: platform.Ptr(101)})
			return err
		}, []string{"vtgate_target_cpu_utilization 101"}},
	}
	before := opWorldState(t, e.srv)
	for _, tc := range cases {
		apiError(t, tc.do(), http.StatusUnprocessableEntity, tc.words...)
	}
	if diff := worldStateDiff(t, before, opWorldState(t, e.srv)); diff != "" {
		t.Errorf("refused requests changed the world (-before +after):\n%s", diff)
	}

	// A branch that is not ready yet takes no request.
	if _, err := e.c.Branches.Create(ctx, &platform.CreateBranchParams{Organization: org, Database: "pg", Name: "fresh"}); err != nil {
		t.Fatal(err)
	}
	_, err := e.change("pg", "fresh", platform.UpdateBranchChangeRequestParams{ClusterSize: platform.Ptr("PS_20")})
	apiError(t, err, http.StatusUnprocessableEntity, "branch fresh is not ready")
	// A missing request, or a missing branch, is 404.
	_, err = e.c.BranchChanges.GetChange(ctx, &platform.GetBranchChangeRequestParams{Organization: org, Database: "pg", Branch: "dev", ID: "nosuchchange"})
	apiError(t, err, http.StatusNotFound)
	_, err = e.c.BranchChanges.GetResize(ctx, &platform.GetBranchResizeRequestParams{Organization: org, Database: "my", Branch: "dev", Resize: "nosuchresize"})
	apiError(t, err, http.StatusNotFound)
	_, err = e.c.BranchChanges.ListChanges(ctx, &platform.ListBranchChangeRequestsParams{Organization: org, Database: "pg", Branch: "nope"})
	apiError(t, err, http.StatusNotFound)
}

func TestBranchClusterConfig(t *testing.T) {
	t.Parallel()
	e := newBREnv(t, fake.WithTimings(fake.Timings{BranchChangeStart: time.Minute, BranchChangeRun: time.Hour}))
	err := e.c.BranchChanges.UpdateClusterConfig(t.Context(), &platform.UpdateClusterConfigParams{Organization: e.srv.Org(), Database: "my", Branch: "main", ClusterSize: "PS_40"})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.srv.AddKeyspace(e.srv.Org(), "my", "main", "extra", 2); err != nil {
		t.Fatal(err)
	}
	page, err := e.c.BranchChanges.ListChanges(t.Context(), &platform.ListBranchChangeRequestsParams{Organization: e.srv.Org(), Database: "my", Branch: "main"})
	if err != nil || len(page.Items) != 1 {
		t.Fatalf("changes = %v, %v; want the cluster config's", page, err)
	}
	r := page.Items[0]
	if r.ClusterName != "PS_40" || r.PreviousClusterName != "PS_10" || r.Version != "" {
		t.Errorf("cluster config's request: %s from %s, version %q", r.ClusterName, r.PreviousClusterName, r.Version)
	}
	e.srv.Advance(time.Minute + time.Hour - time.Second)
	if got := e.getBranch("my", "main").ClusterName; got != "PS_10" {
		t.Errorf("cluster before the configured timings passed = %s", got)
	}
	e.srv.Advance(time.Second)
	ks, err := e.c.Keyspaces.Get(t.Context(), &platform.GetKeyspaceParams{Organization: e.srv.Org(), Database: "my", Branch: "main", Keyspace: "extra"})
	if err != nil {
		t.Fatal(err)
	}
	if got := e.getBranch("my", "main").ClusterName; got != "PS_40" || ks.ClusterName != "PS_40" {
		t.Errorf("after the change: branch %s, keyspace extra %s; want PS_40 on every keyspace of a MySQL branch", got, ks.ClusterName)
	}
}

// TestBranchChangeWaitsForKeyspaceResize: a change that would resize a
// keyspace with a keyspace resize in flight is refused, changing nothing.
func TestBranchChangeWaitsForKeyspaceResize(t *testing.T) {
	t.Parallel()
	w := newOpWorld(t)
	w.keyspaceResize("dev")
	before := opWorldState(t, w.srv)
	_, err := w.c.BranchChanges.UpdateChange(t.Context(), &platform.UpdateBranchChangeRequestParams{Organization: w.org, Database: drDB, Branch: "dev", ClusterSize: platform.Ptr("PS_5")})
	apiError(t, err, http.StatusUnprocessableEntity, "keyspace "+drDB, "resize request in flight")
	err = w.c.BranchChanges.UpdateClusterConfig(t.Context(), &platform.UpdateClusterConfigParams{Organization: w.org, Database: drDB, Branch: "dev", ClusterSize: "PS_5"})
	apiError(t, err, http.StatusUnprocessableEntity, "resize request in flight")
	if diff := worldStateDiff(t, before, opWorldState(t, w.srv)); diff != "" {
		t.Errorf("refused changes changed the world (-before +after):\n%s", diff)
	}
}
