package fake_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// resizeTimings are the default durations of a keyspace resize.
var resizeTimings = fake.DefaultTimings()

// resizeEnv is a fake with the ready database ksDB, whose production
// branch main has its default keyspace ksDB.
type resizeEnv struct {
	t   *testing.T
	srv *fake.Server
	c   *platform.Client
}

func newResizeEnv(t *testing.T) *resizeEnv {
	t.Helper()
	srv, c := newKeyspaceServer(t)
	return &resizeEnv{t: t, srv: srv, c: c}
}

// resize asks for a resize of keyspace ks of main.
func (e *resizeEnv) resize(ks string, p platform.ResizeKeyspaceParams) (*platform.KeyspaceResizeRequest, error) {
	p.Organization, p.Database, p.Branch, p.Keyspace = e.srv.Org(), ksDB, "main", ks
	return e.c.Keyspaces.Resize(e.t.Context(), &p)
}

func (e *resizeEnv) mustResize(ks string, p platform.ResizeKeyspaceParams) *platform.KeyspaceResizeRequest {
	e.t.Helper()
	r, err := e.resize(ks, p)
	if err != nil {
		e.t.Fatalf("resizing keyspace %s: %v", ks, err)
	}
	return r
}

// get reads a resize request of keyspace ks of main.
func (e *resizeEnv) get(ks, id string) *platform.KeyspaceResizeRequest {
	e.t.Helper()
	r, err := e.c.Keyspaces.GetResize(e.t.Context(), &platform.GetKeyspaceResizeParams{Organization: e.srv.Org(), Database: ksDB, Branch: "main", Keyspace: ks, ID: id})
	if err != nil {
		e.t.Fatalf("getting resize request %s: %v", id, err)
	}
	return r
}

// list is every resize request of keyspace ks of main.
func (e *resizeEnv) list(ks string) []*platform.KeyspaceResizeRequest {
	e.t.Helper()
	return opCollect(e.t, e.c.Keyspaces.AllResizes(e.t.Context(), &platform.ListKeyspaceResizesParams{Organization: e.srv.Org(), Database: ksDB, Branch: "main", Keyspace: ks}))
}

// rollout reads the rollout status of keyspace ks of main.
func (e *resizeEnv) rollout(ks string) *platform.KeyspaceRollout {
	e.t.Helper()
	r, err := e.c.Keyspaces.GetRolloutStatus(e.t.Context(), ksRef(e.srv, "main", ks))
	if err != nil {
		e.t.Fatalf("getting the rollout status of %s: %v", ks, err)
	}
	return r
}

// cancel cancels the resize of keyspace ks of main.
func (e *resizeEnv) cancel(ks string) error {
	return e.c.Keyspaces.CancelResize(e.t.Context(), ksRef(e.srv, "main", ks))
}

// resizeTS is a time as the API renders it.
func resizeTS(t time.Time) platform.Timestamp { return platform.NewTimestamp(t) }

func TestKeyspaceResizeLifecycle(t *testing.T) {
	t.Parallel()
	e := newResizeEnv(t)
	me, err := e.c.Users.GetCurrent(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	created := ksGet(t, e.srv, e.c, "main", ksDB).CreatedAt
	asked := e.srv.Now()
	got := e.mustResize(ksDB, platform.ResizeKeyspaceParams{ClusterSize: platform.Ptr("PS_20"), ExtraReplicas: platform.Ptr(1), VectorPoolAllocation: platform.Ptr(30)})
	want := &platform.KeyspaceResizeRequest{
		ID: got.ID, Type: "KeyspaceResizeRequest", State: platform.KeyspaceResizeQueued,
		ExtraReplicas: 1, VectorPoolAllocation: 30, PreviousVectorPoolAllocation: 0,
		ClusterName: "PS_20", ClusterDisplayName: "PS-20", PreviousClusterName: "PS_10", PreviousClusterDisplayName: "PS-10",
		Replicas: 3, PreviousReplicas: 2,
		Actor:     &platform.Actor{ID: me.ID, Type: "User", DisplayName: me.DisplayName, AvatarURL: "https://avatars.example.com/" + me.ID},
		CreatedAt: resizeTS(asked), UpdatedAt: resizeTS(asked),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("queued request (-want +got):\n%s", diff)
	}
	type flags struct{ Pending, Resizing, InProgress bool }
	keyspace := func() (*platform.Keyspace, flags) {
		ks := ksGet(t, e.srv, e.c, "main", ksDB)
		return ks, flags{ks.ResizePending, ks.Resizing, ks.ResizeInProgress}
	}
	if _, f := keyspace(); f != (flags{Pending: true, InProgress: true}) {
		t.Errorf("queued: keyspace flags = %+v", f)
	}
	shard := func(state string, started, finished platform.Timestamp) []*platform.ShardRollout {
		return []*platform.ShardRollout{{Name: "-", State: state, LastRolloutStartedAt: started, LastRolloutFinishedAt: finished}}
	}
	if diff := cmp.Diff(&platform.KeyspaceRollout{Name: ksDB, State: platform.RolloutPending, Shards: shard(platform.RolloutPending, created, created)}, e.rollout(ksDB)); diff != "" {
		t.Errorf("queued rollout (-want +got):\n%s", diff)
	}

	e.srv.Advance(resizeTimings.KeyspaceResizeQueued)
	started := e.srv.Now()
	want.State, want.StartedAt, want.UpdatedAt = platform.KeyspaceResizeResizing, platform.Ptr(resizeTS(started)), resizeTS(started)
	if diff := cmp.Diff(want, e.get(ksDB, got.ID)); diff != "" {
		t.Errorf("resizing request (-want +got):\n%s", diff)
	}
	ks, f := keyspace()
	if f != (flags{Resizing: true, InProgress: true}) || ks.ClusterName != "PS_10" || ks.Replicas != 2 {
		t.Errorf("resizing: keyspace flags = %+v, cluster %s, %d replicas; want the old size until it completes", f, ks.ClusterName, ks.Replicas)
	}
	if diff := cmp.Diff(&platform.KeyspaceRollout{Name: ksDB, State: platform.RolloutInProgress, Shards: shard(platform.RolloutInProgress, resizeTS(started), created)}, e.rollout(ksDB)); diff != "" {
		t.Errorf("rollout in progress (-want +got):\n%s", diff)
	}

	e.srv.Advance(resizeTimings.KeyspaceResizeShard)
	done := e.srv.Now()
	want.State, want.CompletedAt, want.UpdatedAt = platform.KeyspaceResizeCompleted, platform.Ptr(resizeTS(done)), resizeTS(done)
	if diff := cmp.Diff(want, e.get(ksDB, got.ID)); diff != "" {
		t.Errorf("completed request (-want +got):\n%s", diff)
	}
	ks, f = keyspace()
	if f != (flags{}) {
		t.Errorf("completed: keyspace flags = %+v, want none", f)
	}
	gotSize := []any{ks.ClusterName, ks.ClusterDisplayName, ks.ExtraReplicas, ks.Replicas, ks.VectorPoolAllocation}
	if diff := cmp.Diff([]any{"PS_20", "PS-20", 1, 3, platform.Ptr(30.0)}, gotSize); diff != "" {
		t.Errorf("completed: keyspace size (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(&platform.KeyspaceRollout{Name: ksDB, State: platform.RolloutIdle, Shards: shard(platform.RolloutCompleted, resizeTS(started), resizeTS(done))}, e.rollout(ksDB)); diff != "" {
		t.Errorf("idle rollout (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]*platform.KeyspaceResizeRequest{want}, e.list(ksDB)); diff != "" {
		t.Errorf("list (-want +got):\n%s", diff)
	}
}

// TestKeyspaceResizeShardedRollout follows a sharded keyspace's shards
// from pending through in progress to completed, one after another.
func TestKeyspaceResizeShardedRollout(t *testing.T) {
	t.Parallel()
	e := newResizeEnv(t)
	if err := e.srv.AddKeyspace(e.srv.Org(), ksDB, "main", "sharded", 4); err != nil {
		t.Fatal(err)
	}
	r := e.mustResize("sharded", platform.ResizeKeyspaceParams{ClusterSize: platform.Ptr("PS_40")})
	e.srv.Advance(resizeTimings.KeyspaceResizeQueued)
	names := []string{"-40", "40-80", "80-c0", "c0-"}
	for step := range len(names) + 1 {
		rollout := e.rollout("sharded")
		states := map[string]string{}
		for _, s := range rollout.Shards {
			states[s.Name] = s.State
		}
		want := map[string]string{}
		for i, name := range names {
			switch {
			case i < step:
				want[name] = platform.RolloutCompleted
			case i == step:
				want[name] = platform.RolloutInProgress
			default:
				want[name] = platform.RolloutPending
			}
		}
		wantState := platform.RolloutInProgress
		if step == len(names) {
			wantState = platform.RolloutIdle
		}
		if rollout.State != wantState {
			t.Errorf("after %d shards: rollout state %q, want %q", step, rollout.State, wantState)
		}
		if diff := cmp.Diff(want, states); diff != "" {
			t.Errorf("after %d shards: shard states (-want +got):\n%s", step, diff)
		}
		if got := e.get("sharded", r.ID).State; (step == len(names)) != (got == platform.KeyspaceResizeCompleted) {
			t.Errorf("after %d shards: request state %q", step, got)
		}
		e.srv.Advance(resizeTimings.KeyspaceResizeShard)
	}
	if got := ksGet(t, e.srv, e.c, "main", "sharded").ClusterName; got != "PS_40" {
		t.Errorf("cluster_name = %q after the rollout, want PS_40", got)
	}
}

func TestKeyspaceResizeCancel(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		advance time.Duration
	}{
		{"queued", 0},
		{"resizing", resizeTimings.KeyspaceResizeQueued},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newResizeEnv(t)
			before := ksGet(t, e.srv, e.c, "main", ksDB)
			r := e.mustResize(ksDB, platform.ResizeKeyspaceParams{ClusterSize: platform.Ptr("PS_20")})
			e.srv.Advance(tc.advance)
			if err := e.cancel(ksDB); err != nil {
				t.Fatalf("cancel: %v", err)
			}
			canceledAt := e.srv.Now()
			e.srv.Advance(time.Hour)
			got := e.get(ksDB, r.ID)
			if got.State != platform.KeyspaceResizeCanceled || got.CompletedAt != nil || got.UpdatedAt != resizeTS(canceledAt) {
				t.Errorf("canceled request: state %q, completed_at %v, updated_at %v", got.State, got.CompletedAt, got.UpdatedAt)
			}
			ks := ksGet(t, e.srv, e.c, "main", ksDB)
			if ks.ClusterName != before.ClusterName || ks.Resizing || ks.ResizePending || ks.ResizeInProgress {
				t.Errorf("keyspace after the cancel: %+v; want its old size and no resize", ks)
			}
			if got := e.rollout(ksDB); got.State != platform.RolloutIdle || got.Shards[0].LastRolloutStartedAt != before.CreatedAt {
				t.Errorf("rollout after the cancel: %+v", got)
			}
			err := e.cancel(ksDB)
			apiError(t, err, http.StatusUnprocessableEntity, ksDB, r.ID, "canceled")
			// A new request may follow.
			e.mustResize(ksDB, platform.ResizeKeyspaceParams{ClusterSize: platform.Ptr("PS_20")})
		})
	}
}

func TestKeyspaceResizeCancelRefused(t *testing.T) {
	t.Parallel()
	e := newResizeEnv(t)
	apiError(t, e.cancel(ksDB), http.StatusUnprocessableEntity, ksDB, "no resize requests")
	r := e.mustResize(ksDB, platform.ResizeKeyspaceParams{ExtraReplicas: platform.Ptr(2)})
	e.srv.Advance(resizeTimings.KeyspaceResizeQueued + resizeTimings.KeyspaceResizeShard)
	before := e.list(ksDB)
	apiError(t, e.cancel(ksDB), http.StatusUnprocessableEntity, r.ID, "completed")
	if diff := cmp.Diff(before, e.list(ksDB)); diff != "" {
		t.Errorf("a refused cancel changed the requests (-before +after):\n%s", diff)
	}
	if got := ksGet(t, e.srv, e.c, "main", ksDB).ExtraReplicas; got != 2 {
		t.Errorf("extra_replicas = %d after a refused cancel, want 2", got)
	}
}

// TestKeyspaceResizeUpsert: asked again while queued, the request is
// updated; while resizing, a second request is refused.
func TestKeyspaceResizeUpsert(t *testing.T) {
	t.Parallel()
	e := newResizeEnv(t)
	first := e.mustResize(ksDB, platform.ResizeKeyspaceParams{ClusterSize: platform.Ptr("PS_20")})
	e.srv.Advance(time.Second)
	second := e.mustResize(ksDB, platform.ResizeKeyspaceParams{ExtraReplicas: platform.Ptr(3)})
	if second.ID != first.ID || second.ClusterName != "PS_20" || second.ExtraReplicas != 3 || second.Replicas != 5 || second.UpdatedAt != resizeTS(e.srv.Now()) {
		t.Errorf("upsert while queued = %+v; want request %s updated, keeping PS_20, with 3 extra replicas", second, first.ID)
	}
	if n := len(e.list(ksDB)); n != 1 {
		t.Errorf("%d requests after an upsert, want 1", n)
	}
	// The queue time counts from the first request.
	e.srv.Advance(resizeTimings.KeyspaceResizeQueued - time.Second)
	if got := e.get(ksDB, first.ID).State; got != platform.KeyspaceResizeResizing {
		t.Fatalf("state = %q, want resizing", got)
	}
	before := e.list(ksDB)
	_, err := e.resize(ksDB, platform.ResizeKeyspaceParams{ClusterSize: platform.Ptr("PS_40")})
	apiError(t, err, http.StatusUnprocessableEntity, ksDB, "already resizing", first.ID)
	if diff := cmp.Diff(before, e.list(ksDB)); diff != "" {
		t.Errorf("a refused request changed the requests (-before +after):\n%s", diff)
	}
}

func TestKeyspaceResizeRefused(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		p     platform.ResizeKeyspaceParams
		ks    string
		words []string
	}{
		{"unknown cluster size", platform.ResizeKeyspaceParams{ClusterSize: platform.Ptr("PS_BOGUS")}, ksDB, []string{"cluster_size", "PS_BOGUS"}},
		{"empty cluster size", platform.ResizeKeyspaceParams{ClusterSize: platform.Ptr("")}, ksDB, []string{"cluster_size"}},
		{"PostgreSQL-only size", platform.ResizeKeyspaceParams{ClusterSize: platform.Ptr("PS_40_AWS_ARM")}, ksDB, []string{"cluster_size", "PS_40_AWS_ARM", "mysql"}},
		{"negative replicas", platform.ResizeKeyspaceParams{ExtraReplicas: platform.Ptr(-1)}, ksDB, []string{"extra_replicas", "0 to 18", "-1"}},
		{"too many replicas", platform.ResizeKeyspaceParams{ExtraReplicas: platform.Ptr(19)}, ksDB, []string{"extra_replicas", "0 to 18", "19"}},
		{"vector pool above 100", platform.ResizeKeyspaceParams{VectorPoolAllocation: platform.Ptr(101)}, ksDB, []string{"vector_pool_allocation", "101"}},
		{"vector pool negative", platform.ResizeKeyspaceParams{VectorPoolAllocation: platform.Ptr(-5)}, ksDB, []string{"vector_pool_allocation", "-5"}},
		{"no change", platform.ResizeKeyspaceParams{ClusterSize: platform.Ptr("PS_10"), ExtraReplicas: platform.Ptr(0)}, ksDB, []string{"changes nothing", "PS_10"}},
		{"empty request", platform.ResizeKeyspaceParams{}, ksDB, []string{"changes nothing"}},
		{"keyspace not ready", platform.ResizeKeyspaceParams{ClusterSize: platform.Ptr("PS_20")}, "fresh", []string{"fresh", "not ready"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newResizeEnv(t)
			ksCreate(t, e.srv, e.c, "main", platform.CreateKeyspaceParams{Name: "fresh", ClusterSize: "PS_10"})
			before := opWorldState(t, e.srv)
			_, err := e.resize(tc.ks, tc.p)
			apiError(t, err, http.StatusUnprocessableEntity, tc.words...)
			if diff := worldStateDiff(t, before, opWorldState(t, e.srv)); diff != "" {
				t.Errorf("a refused resize changed the world (-before +after):\n%s", diff)
			}
		})
	}
}

func TestKeyspaceResizePostgreSQLRefused(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	c := srv.Client()
	if _, err := c.Databases.Create(t.Context(), &platform.CreateDatabaseParams{Organization: srv.Org(), Name: "pg", Kind: platform.KindPostgreSQL}); err != nil {
		t.Fatal(err)
	}
	srv.Advance(resizeTimings.DatabaseReady)
	_, err := c.Keyspaces.Resize(t.Context(), &platform.ResizeKeyspaceParams{Organization: srv.Org(), Database: "pg", Branch: "main", Keyspace: "pg", ClusterSize: platform.Ptr("PS_20")})
	apiError(t, err, http.StatusUnprocessableEntity, "mysql", "pg", "postgresql")
}

func TestKeyspaceResizeNotFound(t *testing.T) {
	t.Parallel()
	e := newResizeEnv(t)
	org := e.srv.Org()
	_, err := e.c.Keyspaces.GetResize(t.Context(), &platform.GetKeyspaceResizeParams{Organization: org, Database: ksDB, Branch: "main", Keyspace: ksDB, ID: "nope"})
	apiError(t, err, http.StatusNotFound)
	_, err = e.resize("nope", platform.ResizeKeyspaceParams{ClusterSize: platform.Ptr("PS_20")})
	apiError(t, err, http.StatusNotFound)
	_, err = e.c.Keyspaces.GetRolloutStatus(t.Context(), ksRef(e.srv, "main", "nope"))
	apiError(t, err, http.StatusNotFound)
	apiError(t, e.cancel("nope"), http.StatusNotFound)
	_, err = e.c.Keyspaces.GetResize(t.Context(), &platform.GetKeyspaceResizeParams{Organization: org, Database: ksDB, Branch: "main", Keyspace: "nope", ID: "x"})
	apiError(t, err, http.StatusNotFound)
	_, err = e.c.Keyspaces.ListResizes(t.Context(), &platform.ListKeyspaceResizesParams{Organization: org, Database: ksDB, Branch: "main", Keyspace: "nope"})
	apiError(t, err, http.StatusNotFound)
	// A request of one keyspace is not found through another.
	r := e.mustResize(ksDB, platform.ResizeKeyspaceParams{ClusterSize: platform.Ptr("PS_20")})
	ksCreate(t, e.srv, e.c, "main", platform.CreateKeyspaceParams{Name: "other", ClusterSize: "PS_10"})
	_, err = e.c.Keyspaces.GetResize(t.Context(), &platform.GetKeyspaceResizeParams{Organization: org, Database: ksDB, Branch: "main", Keyspace: "other", ID: r.ID})
	apiError(t, err, http.StatusNotFound)
}

func TestKeyspaceResizeListCompletedAt(t *testing.T) {
	t.Parallel()
	e := newResizeEnv(t)
	run := resizeTimings.KeyspaceResizeQueued + resizeTimings.KeyspaceResizeShard
	first := e.mustResize(ksDB, platform.ResizeKeyspaceParams{ExtraReplicas: platform.Ptr(1)})
	e.srv.Advance(run)
	firstDone := e.srv.Now()
	e.srv.Advance(time.Hour)
	second := e.mustResize(ksDB, platform.ResizeKeyspaceParams{ExtraReplicas: platform.Ptr(2)})
	e.srv.Advance(run)
	third := e.mustResize(ksDB, platform.ResizeKeyspaceParams{ExtraReplicas: platform.Ptr(3)})
	rfc := func(t time.Time) string { return t.Format(time.RFC3339) }
	for _, tc := range []struct {
		filter string
		want   []string
	}{
		{"", []string{first.ID, second.ID, third.ID}},
		{rfc(firstDone) + ".." + rfc(firstDone.Add(time.Minute)), []string{first.ID}},
		{rfc(firstDone.Add(time.Second)) + "..", []string{second.ID}},
		{".." + rfc(e.srv.Now()), []string{first.ID, second.ID}},
	} {
		var got []string
		for r, err := range e.c.Keyspaces.AllResizes(t.Context(), &platform.ListKeyspaceResizesParams{Organization: e.srv.Org(), Database: ksDB, Branch: "main", Keyspace: ksDB, CompletedAt: tc.filter}) {
			if err != nil {
				t.Fatalf("completed_at=%q: %v", tc.filter, err)
			}
			got = append(got, r.ID)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("completed_at=%q (-want +got):\n%s", tc.filter, diff)
		}
	}
	for _, bad := range []string{"yesterday", "2026-01-01..soon"} {
		_, err := e.c.Keyspaces.ListResizes(t.Context(), &platform.ListKeyspaceResizesParams{Organization: e.srv.Org(), Database: ksDB, Branch: "main", Keyspace: ksDB, CompletedAt: bad})
		apiError(t, err, http.StatusBadRequest, "completed_at")
	}
}

// TestKeyspaceResizeDeletedKeyspace: the transitions of a deleted
// keyspace's resize do nothing.
func TestKeyspaceResizeDeletedKeyspace(t *testing.T) {
	t.Parallel()
	e := newResizeEnv(t)
	ksCreate(t, e.srv, e.c, "main", platform.CreateKeyspaceParams{Name: "extra", ClusterSize: "PS_10"})
	e.srv.Advance(resizeTimings.KeyspaceReady)
	e.mustResize("extra", platform.ResizeKeyspaceParams{ClusterSize: platform.Ptr("PS_20")})
	if err := e.c.Keyspaces.Delete(t.Context(), ksRef(e.srv, "main", "extra")); err != nil {
		t.Fatal(err)
	}
	e.srv.Advance(time.Hour)
	ksCreate(t, e.srv, e.c, "main", platform.CreateKeyspaceParams{Name: "extra", ClusterSize: "PS_10"})
	if n := len(e.list("extra")); n != 0 {
		t.Errorf("a new keyspace of the same name has %d resize requests, want 0", n)
	}
}

// resizeStep is a request of a keyspace conflict test; it answers the ID
// of the request it made, "" for one without an ID (a settings change).
type resizeStep func(e *resizeEnv) (string, error)

// resizeOf asks for a resize of ksDB's default keyspace.
func resizeOf(p platform.ResizeKeyspaceParams) resizeStep {
	return func(e *resizeEnv) (string, error) {
		r, err := e.resize(ksDB, p)
		if err != nil {
			return "", err
		}
		return r.ID, nil
	}
}

// resizeBranchChange asks for a change of main's cluster size.
func resizeBranchChange(size string) resizeStep {
	return func(e *resizeEnv) (string, error) {
		r, err := e.c.BranchChanges.UpdateChange(e.t.Context(), &platform.UpdateBranchChangeRequestParams{
			Organization: e.srv.Org(), Database: ksDB, Branch: "main", ClusterSize: platform.Ptr(size),
		})
		if err != nil {
			return "", err
		}
		return r.ID, nil
	}
}

// resizeClusterConfig sets main's cluster size with update_branch_cluster_config,
// and answers the change request it makes.
func resizeClusterConfig(size string) resizeStep {
	return func(e *resizeEnv) (string, error) {
		err := e.c.BranchChanges.UpdateClusterConfig(e.t.Context(), &platform.UpdateClusterConfigParams{
			Organization: e.srv.Org(), Database: ksDB, Branch: "main", ClusterSize: size,
		})
		if err != nil {
			return "", err
		}
		page, err := e.c.BranchChanges.ListChanges(e.t.Context(), &platform.ListBranchChangeRequestsParams{Organization: e.srv.Org(), Database: ksDB, Branch: "main"})
		if err != nil {
			return "", err
		}
		return page.Items[0].ID, nil
	}
}

// resizeSettings changes the default keyspace's settings.
func resizeSettings(p platform.UpdateKeyspaceParams) resizeStep {
	return func(e *resizeEnv) (string, error) {
		p.Organization, p.Database, p.Branch, p.Keyspace = e.srv.Org(), ksDB, "main", ksDB
		_, err := e.c.Keyspaces.Update(e.t.Context(), &p)
		return "", err
	}
}

// resizeView is what the conflict tests compare: the default keyspace,
// its resize requests and main's change requests.
type resizeView struct {
	Keyspace       *platform.Keyspace
	Resizes        []*platform.KeyspaceResizeRequest
	BranchRequests []*platform.BranchChangeRequest
}

func (e *resizeEnv) view() resizeView {
	e.t.Helper()
	changes := opCollect(e.t, e.c.BranchChanges.AllChanges(e.t.Context(), &platform.ListBranchChangeRequestsParams{Organization: e.srv.Org(), Database: ksDB, Branch: "main"}))
	return resizeView{ksGet(e.t, e.srv, e.c, "main", ksDB), e.list(ksDB), changes}
}

// TestKeyspaceResizeConflicts: of two requests in flight that would write
// the same setting of a keyspace (its size: a keyspace resize and a
// branch change request; its vector pool allocation: a keyspace resize
// and a settings change), whichever comes second is a 422 naming the one
// in flight, in either order, and changes nothing.
func TestKeyspaceResizeConflicts(t *testing.T) {
	t.Parallel()
	tm := fake.DefaultTimings()
	vector := func(v int) platform.ResizeKeyspaceParams {
		return platform.ResizeKeyspaceParams{VectorPoolAllocation: platform.Ptr(v)}
	}
	size := func(s string) platform.ResizeKeyspaceParams {
		return platform.ResizeKeyspaceParams{ClusterSize: platform.Ptr(s)}
	}
	settings := func(v float64) resizeStep {
		return resizeSettings(platform.UpdateKeyspaceParams{VectorPoolAllocation: platform.Ptr(v)})
	}
	for _, tc := range []struct {
		name    string
		first   []resizeStep // the last one is in flight: its ID is in the refusal
		advance time.Duration
		second  resizeStep
		words   []string
	}{
		{"keyspace resize queued, then branch change", []resizeStep{resizeOf(size("PS_20"))}, 0,
			resizeBranchChange("PS_40"), []string{"keyspace " + ksDB, "in flight", "queued"}},
		{"keyspace resize resizing, then branch change", []resizeStep{resizeOf(size("PS_20"))}, tm.KeyspaceResizeQueued,
			resizeBranchChange("PS_40"), []string{"keyspace " + ksDB, "in flight", "resizing"}},
		{"keyspace resize queued, then cluster config", []resizeStep{resizeOf(vector(30))}, 0,
			resizeClusterConfig("PS_40"), []string{"keyspace " + ksDB, "in flight", "queued"}},
		{"branch change queued, then keyspace resize", []resizeStep{resizeBranchChange("PS_20")}, 0,
			resizeOf(size("PS_40")), []string{"change request", "queued", "resizes keyspace " + ksDB, "PS_20"}},
		{"branch change resizing, then keyspace resize", []resizeStep{resizeBranchChange("PS_20")}, tm.BranchChangeStart,
			resizeOf(size("PS_40")), []string{"change request", "resizing", "resizes keyspace " + ksDB}},
		{"cluster config queued, then keyspace resize of the vector pool", []resizeStep{resizeClusterConfig("PS_20")}, 0,
			resizeOf(vector(30)), []string{"change request", "queued", "resizes keyspace " + ksDB}},
		{"keyspace resize of the vector pool queued, then settings change of it", []resizeStep{resizeOf(vector(30))}, 0,
			settings(50), []string{"keyspace " + ksDB, "queued", "vector_pool_allocation to 30"}},
		{"keyspace resize of the vector pool resizing, then settings change of it", []resizeStep{resizeOf(vector(30))}, tm.KeyspaceResizeQueued,
			settings(50), []string{"keyspace " + ksDB, "resizing", "vector_pool_allocation to 30"}},
		{"keyspace resize of the vector pool queued, then settings change setting it to 0", []resizeStep{resizeOf(vector(30))}, 0,
			resizeStep(func(e *resizeEnv) (string, error) {
				_, err := e.c.Keyspaces.Update(e.t.Context(), &platform.UpdateKeyspaceParams{
					Organization: e.srv.Org(), Database: ksDB, Branch: "main", Keyspace: ksDB, VectorPoolAllocation: platform.Ptr(0.0),
				})
				return "", err
			}), []string{"keyspace " + ksDB, "vector_pool_allocation to 30"}},
		{"settings change of the vector pool, then keyspace resize of it", []resizeStep{settings(50)}, 0,
			resizeOf(vector(30)), []string{"keyspace " + ksDB, "config_change_in_progress", "vector_pool_allocation to 50"}},
		{"settings change clearing the vector pool, then keyspace resize of it", []resizeStep{resizeStep(func(e *resizeEnv) (string, error) {
			if _, err := settings(50)(e); err != nil {
				return "", err
			}
			e.srv.Advance(time.Hour)
			_, err := e.c.Keyspaces.Update(e.t.Context(), &platform.UpdateKeyspaceParams{
				Organization: e.srv.Org(), Database: ksDB, Branch: "main", Keyspace: ksDB, ClearVectorPoolAllocation: true,
			})
			return "", err
		})}, 0,
			resizeOf(vector(30)), []string{"keyspace " + ksDB, "config_change_in_progress", "vector_pool_allocation to null"}},
		{"settings change of the vector pool, then an upsert adding it to a resize",
			[]resizeStep{resizeOf(size("PS_20")), settings(50)}, 0,
			resizeOf(vector(30)), []string{"keyspace " + ksDB, "config_change_in_progress", "vector_pool_allocation to 50"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newResizeEnv(t)
			var id string
			for i, step := range tc.first {
				var err error
				if id, err = step(e); err != nil {
					t.Fatalf("request %d in flight: %v", i, err)
				}
			}
			e.srv.Advance(tc.advance)
			before, state := e.view(), opWorldState(t, e.srv)
			_, err := tc.second(e)
			apiError(t, err, http.StatusUnprocessableEntity, append(tc.words, id)...)
			if diff := cmp.Diff(before, e.view()); diff != "" {
				t.Errorf("the refusal changed the keyspace or the request in flight (-before +after):\n%s", diff)
			}
			if diff := worldStateDiff(t, state, opWorldState(t, e.srv)); diff != "" {
				t.Errorf("the refusal changed the world (-before +after):\n%s", diff)
			}
		})
	}
}

// TestKeyspaceResizeWritesWhatItChanges: requests in flight that write
// different settings of a keyspace are both accepted, and each keeps what
// the other wrote: a keyspace resize writes only what it changes, a
// branch's request of its query routers no keyspace's size.
func TestKeyspaceResizeWritesWhatItChanges(t *testing.T) {
	t.Parallel()
	type size struct {
		ClusterName   string
		ExtraReplicas int
		Vector        *float64
		NodeTTL       platform.NodeTTLStrategy
	}
	vtgates := resizeStep(func(e *resizeEnv) (string, error) {
		r, err := e.c.BranchChanges.UpdateResize(e.t.Context(), &platform.UpdateBranchResizeRequestParams{
			Organization: e.srv.Org(), Database: ksDB, Branch: "main", VTGateCount: platform.Ptr(2),
		})
		if err != nil {
			return "", err
		}
		return r.ID, nil
	})
	for _, tc := range []struct {
		name  string
		steps []resizeStep
		want  size
	}{
		{"a settings change of the vector pool while a resize of the size is queued",
			[]resizeStep{resizeOf(platform.ResizeKeyspaceParams{ClusterSize: platform.Ptr("PS_20")}), resizeSettings(platform.UpdateKeyspaceParams{VectorPoolAllocation: platform.Ptr(50.0)})},
			size{"PS_20", 0, platform.Ptr(50.0), platform.NodeTTLFollowMaintenance}},
		{"an upsert of the resize after a settings change of the vector pool",
			[]resizeStep{
				resizeOf(platform.ResizeKeyspaceParams{ClusterSize: platform.Ptr("PS_20")}),
				resizeSettings(platform.UpdateKeyspaceParams{VectorPoolAllocation: platform.Ptr(50.0)}),
				resizeOf(platform.ResizeKeyspaceParams{ExtraReplicas: platform.Ptr(1)}),
			},
			size{"PS_20", 1, platform.Ptr(50.0), platform.NodeTTLFollowMaintenance}},
		{"a resize of the vector pool while a change of other settings is in progress",
			[]resizeStep{resizeSettings(platform.UpdateKeyspaceParams{NodeTTLStrategy: platform.Ptr(platform.NodeTTLOff)}), resizeOf(platform.ResizeKeyspaceParams{VectorPoolAllocation: platform.Ptr(30)})},
			size{"PS_10", 0, platform.Ptr(30.0), platform.NodeTTLOff}},
		{"a resize of the query routers while a keyspace resize is queued",
			[]resizeStep{resizeOf(platform.ResizeKeyspaceParams{ClusterSize: platform.Ptr("PS_20")}), vtgates},
			size{"PS_20", 0, nil, platform.NodeTTLFollowMaintenance}},
		{"a keyspace resize while a resize of the query routers is queued",
			[]resizeStep{vtgates, resizeOf(platform.ResizeKeyspaceParams{ClusterSize: platform.Ptr("PS_20")})},
			size{"PS_20", 0, nil, platform.NodeTTLFollowMaintenance}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newResizeEnv(t)
			for i, step := range tc.steps {
				if _, err := step(e); err != nil {
					t.Fatalf("request %d: %v", i, err)
				}
			}
			e.srv.Advance(time.Hour)
			ks := ksGet(t, e.srv, e.c, "main", ksDB)
			got := size{ks.ClusterName, ks.ExtraReplicas, ks.VectorPoolAllocation, ks.NodeTTLStrategy}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("keyspace once every request completed (-want +got):\n%s", diff)
			}
			for _, r := range e.list(ksDB) {
				if r.State != platform.KeyspaceResizeCompleted {
					t.Errorf("resize request %s is %s, want completed", r.ID, r.State)
				}
			}
		})
	}
}

// TestKeyspaceResizeOutlivesAFailedSettingsChange: a resize of the vector
// pool that completes while a change of other settings is in progress
// keeps its size when that change then fails: the failure restores the
// settings from before the change, with the resized vector pool.
func TestKeyspaceResizeOutlivesAFailedSettingsChange(t *testing.T) {
	t.Parallel()
	e := newResizeEnv(t)
	tm := fake.DefaultTimings()
	if _, err := resizeOf(platform.ResizeKeyspaceParams{VectorPoolAllocation: platform.Ptr(30)})(e); err != nil {
		t.Fatal(err)
	}
	// The settings change starts before the resize completes and ends
	// after it.
	e.srv.Advance(tm.KeyspaceResizeQueued + tm.KeyspaceResizeShard - tm.KeyspaceConfigChange/2)
	if _, err := resizeSettings(platform.UpdateKeyspaceParams{NodeTTLStrategy: platform.Ptr(platform.NodeTTLOff)})(e); err != nil {
		t.Fatal(err)
	}
	ks := ksGet(t, e.srv, e.c, "main", ksDB)
	if err := e.srv.FailNext(ks.ID); err != nil {
		t.Fatal(err)
	}
	e.srv.Advance(tm.KeyspaceConfigChange / 2)
	if ks := ksGet(t, e.srv, e.c, "main", ksDB); !ks.ConfigChangeInProgress || ks.VectorPoolAllocation == nil || *ks.VectorPoolAllocation != 30 {
		t.Fatalf("as the resize completes: config change in progress %t, vector pool %v; want true and 30", ks.ConfigChangeInProgress, ks.VectorPoolAllocation)
	}
	e.srv.Advance(tm.KeyspaceConfigChange)
	ks = ksGet(t, e.srv, e.c, "main", ksDB)
	if ks.ConfigChangeInProgress || ks.NodeTTLStrategy != platform.NodeTTLFollowMaintenance || ks.VectorPoolAllocation == nil || *ks.VectorPoolAllocation != 30 {
		t.Errorf("after the failed settings change: in progress %t, node TTL %s, vector pool %v; want false, the strategy from before, and the resized 30",
			ks.ConfigChangeInProgress, ks.NodeTTLStrategy, ks.VectorPoolAllocation)
	}
}
