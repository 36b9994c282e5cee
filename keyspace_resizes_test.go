package platform_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
)

// keyspaceResizeJSON is a keyspace resize request as the API sends it,
// written from the reference's schema rather than from the SDK's types.
const keyspaceResizeJSON = `{"id": "krr012345678", "type": "KeyspaceResizeRequest", "state": "resizing",
	"started_at": "2026-01-14T10:19:28.000Z", "completed_at": null,
	"created_at": "2026-01-14T10:19:23.000Z", "updated_at": "2026-01-14T10:19:28.000Z",
	"extra_replicas": 1, "vector_pool_allocation": 30, "previous_vector_pool_allocation": 0,
	"cluster_name": "PS_20", "cluster_display_name": "PS-20", "previous_cluster_name": "PS_10", "previous_cluster_display_name": "PS-10",
	"replicas": 3, "previous_replicas": 2,
	"actor": {"id": "usr012345678", "type": "User", "display_name": "Ada", "avatar_url": "https://avatars.example.com/a"}}`

func wantKeyspaceResize(t *testing.T) *platform.KeyspaceResizeRequest {
	return &platform.KeyspaceResizeRequest{
		ID: "krr012345678", Type: "KeyspaceResizeRequest", State: platform.KeyspaceResizeResizing,
		StartedAt: platform.Ptr(mustTimestamp(t, "2026-01-14T10:19:28.000Z")),
		CreatedAt: mustTimestamp(t, "2026-01-14T10:19:23.000Z"), UpdatedAt: mustTimestamp(t, "2026-01-14T10:19:28.000Z"),
		ExtraReplicas: 1, VectorPoolAllocation: 30,
		ClusterName: "PS_20", ClusterDisplayName: "PS-20", PreviousClusterName: "PS_10", PreviousClusterDisplayName: "PS-10",
		Replicas: 3, PreviousReplicas: 2,
		Actor: &platform.Actor{ID: "usr012345678", Type: "User", DisplayName: "Ada", AvatarURL: "https://avatars.example.com/a"},
	}
}

func TestKeyspaceResizesWire(t *testing.T) {
	t.Parallel()
	const base = "/v1/organizations/acme/databases/app-db/branches/main/keyspaces/orders"
	runMethodCases(t, []methodCase{
		{
			name: "ListResizes",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Keyspaces.ListResizes(ctx, &platform.ListKeyspaceResizesParams{
					Organization: "acme", Database: "app-db", Branch: "main", Keyspace: "orders",
					CompletedAt: "2026-01-01T00:00:00Z..2026-01-31T23:59:59Z", ListParams: platform.ListParams{Page: 2, PerPage: 1},
				})
			},
			method: "GET", path: base + "/resizes",
			query:  url.Values{"completed_at": {"2026-01-01T00:00:00Z..2026-01-31T23:59:59Z"}, "page": {"2"}, "per_page": {"1"}},
			status: 200, response: `{"type": "list", "current_page": 2, "per_page": 1, "next_page": null, "next_page_url": null,
				"prev_page": 1, "prev_page_url": "https://api.example.com/prev", "data": [` + keyspaceResizeJSON + `]}`,
			want: &platform.Page[platform.KeyspaceResizeRequest]{
				Type: "list", CurrentPage: 2, PerPage: 1, PrevPage: platform.Ptr(1), PrevPageURL: platform.Ptr("https://api.example.com/prev"),
				Items: []*platform.KeyspaceResizeRequest{wantKeyspaceResize(t)},
			},
		},
		{
			name: "Resize",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Keyspaces.Resize(ctx, &platform.ResizeKeyspaceParams{
					Organization: "acme", Database: "app-db", Branch: "main", Keyspace: "orders",
					ClusterSize: platform.Ptr("PS_20"), ExtraReplicas: platform.Ptr(1), VectorPoolAllocation: platform.Ptr(30),
				})
			},
			method: "PUT", path: base + "/resizes", query: url.Values{},
			body:   `{"cluster_size": "PS_20", "extra_replicas": 1, "vector_pool_allocation": 30}`,
			status: 200, response: keyspaceResizeJSON, want: wantKeyspaceResize(t),
		},
		{
			name: "Resize/only what is given",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Keyspaces.Resize(ctx, &platform.ResizeKeyspaceParams{
					Organization: "acme", Database: "app-db", Branch: "main", Keyspace: "a b", ExtraReplicas: platform.Ptr(0),
				})
			},
			method: "PUT", path: "/v1/organizations/acme/databases/app-db/branches/main/keyspaces/a%20b/resizes", query: url.Values{},
			body:   `{"extra_replicas": 0}`,
			status: 200, response: keyspaceResizeJSON, want: wantKeyspaceResize(t),
		},
		{
			name: "GetResize",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Keyspaces.GetResize(ctx, &platform.GetKeyspaceResizeParams{Organization: "acme", Database: "app-db", Branch: "main", Keyspace: "orders", ID: "krr012345678"})
			},
			method: "GET", path: base + "/resizes/krr012345678", query: url.Values{},
			status: 200, response: keyspaceResizeJSON, want: wantKeyspaceResize(t),
		},
		{
			name: "CancelResize",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return nil, c.Keyspaces.CancelResize(ctx, &platform.CancelKeyspaceResizeParams{Organization: "acme", Database: "app-db", Branch: "main", Keyspace: "orders"})
			},
			method: "DELETE", path: base + "/resizes", query: url.Values{},
			status: 204,
		},
		{
			name: "GetRolloutStatus",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Keyspaces.GetRolloutStatus(ctx, &platform.GetKeyspaceRolloutStatusParams{Organization: "acme", Database: "app-db", Branch: "main", Keyspace: "orders"})
			},
			method: "GET", path: base + "/rollout-status", query: url.Values{},
			status: 200, response: `{"name": "orders", "state": "in_progress", "shards": [
				{"name": "-80", "state": "completed", "last_rollout_started_at": "2026-01-14T10:19:28.000Z", "last_rollout_finished_at": "2026-01-14T10:19:58.000Z"},
				{"name": "80-", "state": "in_progress", "last_rollout_started_at": "2026-01-14T10:19:58.000Z", "last_rollout_finished_at": "2026-01-14T09:00:00.000Z"}]}`,
			want: &platform.KeyspaceRollout{Name: "orders", State: platform.RolloutInProgress, Shards: []*platform.ShardRollout{
				{Name: "-80", State: platform.RolloutCompleted, LastRolloutStartedAt: mustTimestamp(t, "2026-01-14T10:19:28.000Z"), LastRolloutFinishedAt: mustTimestamp(t, "2026-01-14T10:19:58.000Z")},
				{Name: "80-", State: platform.RolloutInProgress, LastRolloutStartedAt: mustTimestamp(t, "2026-01-14T10:19:58.000Z"), LastRolloutFinishedAt: mustTimestamp(t, "2026-01-14T09:00:00.000Z")},
			}},
		},
	})
}

func TestKeyspaceResizesArgErrors(t *testing.T) {
	t.Parallel()
	runArgCases(t, []argCase{
		{"ListResizes without keyspace", "keyspace", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Keyspaces.ListResizes(ctx, &platform.ListKeyspaceResizesParams{Organization: "acme", Database: "app-db", Branch: "main"})
			return err
		}},
		{"ListResizes with a negative page", "page", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Keyspaces.ListResizes(ctx, &platform.ListKeyspaceResizesParams{Organization: "acme", Database: "app-db", Branch: "main", Keyspace: "orders", ListParams: platform.ListParams{Page: -1}})
			return err
		}},
		{"Resize without branch", "branch", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Keyspaces.Resize(ctx, &platform.ResizeKeyspaceParams{Organization: "acme", Database: "app-db", Keyspace: "orders"})
			return err
		}},
		{"GetResize without id", "id", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Keyspaces.GetResize(ctx, &platform.GetKeyspaceResizeParams{Organization: "acme", Database: "app-db", Branch: "main", Keyspace: "orders"})
			return err
		}},
		{"CancelResize with nil params", "params", func(ctx context.Context, c *platform.Client) error {
			return c.Keyspaces.CancelResize(ctx, nil)
		}},
		{"GetRolloutStatus without database", "database", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Keyspaces.GetRolloutStatus(ctx, &platform.GetKeyspaceRolloutStatusParams{Organization: "acme", Branch: "main", Keyspace: "orders"})
			return err
		}},
		{"WaitResize without id", "id", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Keyspaces.WaitResize(ctx, &platform.GetKeyspaceResizeParams{Organization: "acme", Database: "app-db", Branch: "main", Keyspace: "orders"})
			return err
		}},
	})
}

// TestKeyspaceWaitResizeWire polls a queued, then resizing, then
// completed request, waiting longer each time.
func TestKeyspaceWaitResizeWire(t *testing.T) {
	t.Parallel()
	states := []string{"queued", "resizing", "completed"}
	var mu sync.Mutex
	polls := 0
	w := newWireFunc(t, func(rw http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if r.Method != "GET" || r.URL.Path != apiPrefix+"v1/organizations/acme/databases/app-db/branches/main/keyspaces/orders/resizes/krr1" {
			t.Errorf("unexpected request %s %s", r.Method, r.URL.Path)
		}
		_, _ = io.WriteString(rw, `{"id": "krr1", "state": "`+states[min(polls, len(states)-1)]+`"}`)
		polls++
	})
	var waits []time.Duration
	c := w.newClient(t, platform.WithSleep(func(ctx context.Context, d time.Duration) error {
		waits = append(waits, d)
		return ctx.Err()
	}))
	r, err := c.Keyspaces.WaitResize(t.Context(), &platform.GetKeyspaceResizeParams{Organization: "acme", Database: "app-db", Branch: "main", Keyspace: "orders", ID: "krr1"})
	if err != nil || r.State != platform.KeyspaceResizeCompleted {
		t.Fatalf("WaitResize = %+v, %v; want the completed request", r, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if diff := cmp.Diff([]time.Duration{time.Second, 2 * time.Second}, waits); diff != "" {
		t.Errorf("waits between polls (-want +got):\n%s", diff)
	}
}

// TestKeyspaceWaitResizeFake resizes a keyspace of the fake and waits
// for each state; a canceled request ends a wait for completion with a
// *StateError.
func TestKeyspaceWaitResizeFake(t *testing.T) {
	t.Parallel()
	srv, c := newKeyspaceFake(t)
	ctx, org := t.Context(), srv.Org()
	ks := &platform.KeyspaceParams{Organization: org, Database: "app-db", Branch: "main", Keyspace: "app-db"}
	r, err := c.Keyspaces.Resize(ctx, &platform.ResizeKeyspaceParams{Organization: org, Database: "app-db", Branch: "main", Keyspace: "app-db", ClusterSize: platform.Ptr("PS_40")})
	if err != nil {
		t.Fatal(err)
	}
	get := &platform.GetKeyspaceResizeParams{Organization: org, Database: "app-db", Branch: "main", Keyspace: "app-db", ID: r.ID}
	got, err := c.Keyspaces.WaitResize(ctx, get, platform.KeyspaceResizeResizing)
	if err != nil || got.State != platform.KeyspaceResizeResizing {
		t.Fatalf("waiting for resizing: %+v, %v", got, err)
	}
	if rollout, err := c.Keyspaces.GetRolloutStatus(ctx, ks); err != nil || rollout.State != platform.RolloutInProgress {
		t.Errorf("rollout while resizing: %+v, %v", rollout, err)
	}
	if got, err = c.Keyspaces.WaitResize(ctx, get); err != nil || got.State != platform.KeyspaceResizeCompleted {
		t.Fatalf("waiting for completion: %+v, %v", got, err)
	}
	if k, err := c.Keyspaces.Get(ctx, ks); err != nil || k.ClusterName != "PS_40" || k.Resizing {
		t.Errorf("keyspace after the resize: %+v, %v", k, err)
	}

	r, err = c.Keyspaces.Resize(ctx, &platform.ResizeKeyspaceParams{Organization: org, Database: "app-db", Branch: "main", Keyspace: "app-db", ClusterSize: platform.Ptr("PS_80")})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Keyspaces.CancelResize(ctx, ks); err != nil {
		t.Fatal(err)
	}
	get.ID = r.ID
	_, err = c.Keyspaces.WaitResize(ctx, get)
	var stateErr *platform.StateError
	if !errors.As(err, &stateErr) || stateErr.State != "canceled" {
		t.Errorf("waiting for a canceled request to complete: %v, want a *StateError naming canceled", err)
	}
}
