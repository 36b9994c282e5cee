package platform_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
	"github.com/google/go-cmp/cmp"
)

// keyspaceJSON is a keyspace as the API sends it, written from the
// reference's schema rather than from the SDK's types.
const keyspaceJSON = `{
	"id": "ks0123456789",
	"type": "Keyspace",
	"name": "orders",
	"shards": 4,
	"sharded": true,
	"replicas": 3,
	"extra_replicas": 1,
	"created_at": "2026-01-14T10:19:23.000Z",
	"updated_at": "2026-01-14T10:20:00.500Z",
	"cluster_name": "PS_20",
	"cluster_display_name": "PS-20",
	"resizing": false,
	"resize_in_progress": false,
	"resize_pending": true,
	"config_change_in_progress": true,
	"ready": true,
	"metal": false,
	"default": false,
	"imported": false,
	"vector_pool_allocation": 12.5,
	"node_ttl_strategy": "node_ttl_always",
	"replication_durability_constraints": {"strategy": "lag"},
	"vreplication_flags": {"optimize_inserts": true, "allow_no_blob_binlog_row_image": false, "vplayer_batching": true},
	"mysqld_options": {"max_connections": "500"},
	"vttablet_options": {},
	"read_only_regions": [{"region": "eu-west", "cluster_name": "PS_20", "cluster_display_name": "PS-20", "replicas": 2}]
}`

// wantKeyspace is keyspaceJSON decoded.
func wantKeyspace() *platform.Keyspace {
	return &platform.Keyspace{
		ID:                               "ks0123456789",
		Type:                             "Keyspace",
		Name:                             "orders",
		Shards:                           4,
		Sharded:                          true,
		Replicas:                         3,
		ExtraReplicas:                    1,
		CreatedAt:                        platform.NewTimestamp(time.Date(2026, 1, 14, 10, 19, 23, 0, time.UTC)),
		UpdatedAt:                        platform.NewTimestamp(time.Date(2026, 1, 14, 10, 20, 0, 500e6, time.UTC)),
		ClusterName:                      "PS_20",
		ClusterDisplayName:               "PS-20",
		ResizePending:                    true,
		ConfigChangeInProgress:           true,
		Ready:                            true,
		VectorPoolAllocation:             platform.Ptr(12.5),
		NodeTTLStrategy:                  platform.NodeTTLAlways,
		ReplicationDurabilityConstraints: platform.ReplicationDurabilityConstraints{Strategy: platform.Ptr(platform.DurabilityLag)},
		VReplicationFlags:                platform.VReplicationFlags{OptimizeInserts: true, VPlayerBatching: true},
		MysqldOptions:                    map[string]string{"max_connections": "500"},
		VTTabletOptions:                  map[string]string{},
		ReadOnlyRegions:                  []platform.KeyspaceReadOnlyRegion{{Region: "eu-west", ClusterName: "PS_20", ClusterDisplayName: "PS-20", Replicas: 2}},
	}
}

func TestKeyspacesWire(t *testing.T) {
	t.Parallel()
	const base = "/v1/organizations/acme/databases/app-db/branches/dev/keyspaces"
	listJSON := `{"type": "list", "current_page": 2, "per_page": 1, "next_page": 3,
		"next_page_url": "https://api.example.com/next", "prev_page": 1,
		"prev_page_url": "https://api.example.com/prev", "data": [` + keyspaceJSON + `]}`
	tests := []struct {
		name   string
		call   func(ctx context.Context, c *platform.Client) (any, error)
		status int
		resp   string
		want   any
		sent   wantRequest
		body   string // the JSON body that must be sent; "" for none
	}{
		{
			name: "list",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Keyspaces.List(ctx, &platform.ListKeyspacesParams{
					Organization: "acme", Database: "app-db", Branch: "dev",
					ListParams: platform.ListParams{Page: 2, PerPage: 1},
				})
			},
			status: 200, resp: listJSON,
			want: &platform.Page[platform.Keyspace]{
				Type: "list", CurrentPage: 2, PerPage: 1,
				NextPage: platform.Ptr(3), NextPageURL: platform.Ptr("https://api.example.com/next"),
				PrevPage: platform.Ptr(1), PrevPageURL: platform.Ptr("https://api.example.com/prev"),
				Items: []*platform.Keyspace{wantKeyspace()},
			},
			sent: wantRequest{Method: "GET", Path: base, RawQuery: "page=2&per_page=1"},
		},
		{
			name: "list escapes path values",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Keyspaces.List(ctx, &platform.ListKeyspacesParams{Organization: "acme", Database: "app db", Branch: "a/b"})
			},
			status: 200, resp: `{"type": "list", "current_page": 1, "per_page": 25, "next_page": null, "next_page_url": null, "prev_page": null, "prev_page_url": null, "data": []}`,
			want: &platform.Page[platform.Keyspace]{Type: "list", CurrentPage: 1, PerPage: 25, Items: []*platform.Keyspace{}},
			sent: wantRequest{Method: "GET", Path: "/v1/organizations/acme/databases/app%20db/branches/a%2Fb/keyspaces"},
		},
		{
			name: "create with every field",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Keyspaces.Create(ctx, &platform.CreateKeyspaceParams{
					Organization: "acme", Database: "app-db", Branch: "dev",
					Name: "orders", ClusterSize: "PS_20", Shards: platform.Ptr(4), ExtraReplicas: platform.Ptr(0),
				})
			},
			status: 200, resp: keyspaceJSON, want: wantKeyspace(),
			sent: wantRequest{Method: "POST", Path: base},
			body: `{"name": "orders", "cluster_size": "PS_20", "shards": 4, "extra_replicas": 0}`,
		},
		{
			name: "create with required fields only",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Keyspaces.Create(ctx, &platform.CreateKeyspaceParams{
					Organization: "acme", Database: "app-db", Branch: "dev", Name: "orders", ClusterSize: "PS_20",
				})
			},
			status: 200, resp: keyspaceJSON, want: wantKeyspace(),
			sent: wantRequest{Method: "POST", Path: base},
			body: `{"name": "orders", "cluster_size": "PS_20"}`,
		},
		{
			name: "get",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Keyspaces.Get(ctx, &platform.GetKeyspaceParams{Organization: "acme", Database: "app-db", Branch: "dev", Keyspace: "orders"})
			},
			status: 200, resp: keyspaceJSON, want: wantKeyspace(),
			sent: wantRequest{Method: "GET", Path: base + "/orders"},
		},
		{
			name: "update every setting",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Keyspaces.Update(ctx, &platform.UpdateKeyspaceParams{
					Organization: "acme", Database: "app-db", Branch: "dev", Keyspace: "orders",
					ReplicationDurabilityConstraints: &platform.ReplicationDurabilityConstraints{Strategy: platform.Ptr(platform.DurabilityLag)},
					VReplicationFlags:                &platform.VReplicationFlagsParams{OptimizeInserts: platform.Ptr(true), VPlayerBatching: platform.Ptr(false)},
					MysqldOptions:                    platform.Ptr(map[string]string{"max_connections": "500"}),
					VTTabletOptions:                  platform.Ptr(map[string]string{}),
					NodeTTLStrategy:                  platform.Ptr(platform.NodeTTLAlways),
					VectorPoolAllocation:             platform.Ptr(12.5),
				})
			},
			status: 200, resp: keyspaceJSON, want: wantKeyspace(),
			sent: wantRequest{Method: "PATCH", Path: base + "/orders"},
			body: `{"replication_durability_constraints": {"strategy": "lag"},
				"vreplication_flags": {"optimize_inserts": true, "vplayer_batching": false},
				"mysqld_options": {"max_connections": "500"}, "vttablet_options": {},
				"node_ttl_strategy": "node_ttl_always", "vector_pool_allocation": 12.5}`,
		},
		{
			name: "update clears the vector pool allocation",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Keyspaces.Update(ctx, &platform.UpdateKeyspaceParams{
					Organization: "acme", Database: "app-db", Branch: "dev", Keyspace: "orders",
					NodeTTLStrategy: platform.Ptr(platform.NodeTTLOff), ClearVectorPoolAllocation: true,
				})
			},
			status: 200, resp: keyspaceJSON, want: wantKeyspace(),
			sent: wantRequest{Method: "PATCH", Path: base + "/orders"},
			body: `{"node_ttl_strategy": "node_ttl_off", "vector_pool_allocation": null}`,
		},
		{
			name: "update with nothing to change",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Keyspaces.Update(ctx, &platform.UpdateKeyspaceParams{Organization: "acme", Database: "app-db", Branch: "dev", Keyspace: "orders"})
			},
			status: 200, resp: keyspaceJSON, want: wantKeyspace(),
			sent: wantRequest{Method: "PATCH", Path: base + "/orders"},
			body: `{}`,
		},
		{
			name: "delete",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return nil, c.Keyspaces.Delete(ctx, &platform.DeleteKeyspaceParams{Organization: "acme", Database: "app-db", Branch: "dev", Keyspace: "orders"})
			},
			status: 204,
			sent:   wantRequest{Method: "DELETE", Path: base + "/orders"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWire(t, tt.status, tt.resp)
			got, err := tt.call(t.Context(), w.client)
			if err != nil {
				t.Fatalf("call: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("decoded response (-want +got):\n%s", diff)
			}
			want := tt.sent
			want.Body = tt.body
			checkRequest(t, w.only(), want)
		})
	}
}

func TestKeyspacesWireErrors(t *testing.T) {
	t.Parallel()
	w := newWire(t, 422, `{"code": "unprocessable", "message": "keyspace app-db is the default keyspace of branch dev and cannot be deleted"}`)
	err := w.client.Keyspaces.Delete(t.Context(), &platform.DeleteKeyspaceParams{Organization: "acme", Database: "app-db", Branch: "dev", Keyspace: "app-db"})
	if !errors.Is(err, platform.ErrUnprocessable) {
		t.Fatalf("Delete: got %v, want ErrUnprocessable", err)
	}
	var apiErr *platform.Error
	if !errors.As(err, &apiErr) || apiErr.Message != "keyspace app-db is the default keyspace of branch dev and cannot be deleted" {
		t.Errorf("Delete: error %#v does not carry the message", err)
	}
}

func TestKeyspacesArgErrors(t *testing.T) {
	t.Parallel()
	full := platform.KeyspaceParams{Organization: "acme", Database: "app-db", Branch: "dev", Keyspace: "orders"}
	noKeyspace := full
	noKeyspace.Keyspace = ""
	tests := []struct {
		name string
		arg  string
		call func(ctx context.Context, c *platform.Client) error
	}{
		{"list without branch", "branch", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Keyspaces.List(ctx, &platform.ListKeyspacesParams{Organization: "acme", Database: "app-db"})
			return err
		}},
		{"list with nil params", "params", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Keyspaces.List(ctx, nil)
			return err
		}},
		{"list with per_page over the maximum", "per_page", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Keyspaces.List(ctx, &platform.ListKeyspacesParams{Organization: "acme", Database: "app-db", Branch: "dev",
				ListParams: platform.ListParams{PerPage: platform.MaxPerPage + 1}})
			return err
		}},
		{"create without database", "database", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Keyspaces.Create(ctx, &platform.CreateKeyspaceParams{Organization: "acme", Branch: "dev", Name: "orders", ClusterSize: "PS_10"})
			return err
		}},
		{"get without keyspace", "keyspace", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Keyspaces.Get(ctx, &noKeyspace)
			return err
		}},
		{"update without keyspace", "keyspace", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Keyspaces.Update(ctx, &platform.UpdateKeyspaceParams{Organization: "acme", Database: "app-db", Branch: "dev"})
			return err
		}},
		{"update setting and clearing the vector pool", "vector_pool_allocation", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Keyspaces.Update(ctx, &platform.UpdateKeyspaceParams{
				Organization: full.Organization, Database: full.Database, Branch: full.Branch, Keyspace: full.Keyspace,
				VectorPoolAllocation: platform.Ptr(10.0), ClearVectorPoolAllocation: true,
			})
			return err
		}},
		{"delete without keyspace", "keyspace", func(ctx context.Context, c *platform.Client) error {
			return c.Keyspaces.Delete(ctx, &noKeyspace)
		}},
		{"wait without keyspace", "keyspace", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Keyspaces.Wait(ctx, &noKeyspace)
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWire(t, 200, keyspaceJSON)
			err := tt.call(t.Context(), w.client)
			var argErr *platform.ArgError
			if !errors.As(err, &argErr) || argErr.Arg != tt.arg {
				t.Fatalf("got %v, want an *ArgError for %s", err, tt.arg)
			}
			if n := len(w.requests()); n != 0 {
				t.Errorf("%d requests sent, want none", n)
			}
		})
	}
}

func TestKeyspacesWaitWire(t *testing.T) {
	t.Parallel()
	// The keyspace is provisioning, then changing its settings, then settled.
	states := []string{
		`{"id": "ks1", "type": "Keyspace", "name": "orders", "ready": false, "config_change_in_progress": false}`,
		`{"id": "ks1", "type": "Keyspace", "name": "orders", "ready": true, "config_change_in_progress": true}`,
		`{"id": "ks1", "type": "Keyspace", "name": "orders", "ready": true, "config_change_in_progress": false}`,
	}
	var mu sync.Mutex
	polls := 0
	w := newWireFunc(t, func(rw http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if r.Method != "GET" || r.URL.Path != apiPrefix+"v1/organizations/acme/databases/app-db/branches/dev/keyspaces/orders" {
			t.Errorf("unexpected request %s %s", r.Method, r.URL.Path)
		}
		_, _ = io.WriteString(rw, states[min(polls, len(states)-1)])
		polls++
	})
	var waits []time.Duration
	c := w.newClient(t, platform.WithSleep(func(ctx context.Context, d time.Duration) error {
		waits = append(waits, d)
		return ctx.Err()
	}))
	ks, err := c.Keyspaces.Wait(t.Context(), &platform.GetKeyspaceParams{Organization: "acme", Database: "app-db", Branch: "dev", Keyspace: "orders"})
	if err != nil {
		t.Fatalf("Wait: %v", err)
	}
	if !ks.Ready || ks.ConfigChangeInProgress {
		t.Errorf("Wait returned %+v, want ready with no change in progress", ks)
	}
	mu.Lock()
	defer mu.Unlock()
	if polls != len(states) {
		t.Errorf("polled %d times, want %d", polls, len(states))
	}
	if diff := cmp.Diff([]time.Duration{time.Second, 2 * time.Second}, waits); diff != "" {
		t.Errorf("waits between polls (-want +got):\n%s", diff)
	}
}

// newKeyspaceFake returns a fake with a ready database app-db, and its
// client.
func newKeyspaceFake(t *testing.T) (*fake.Server, *platform.Client) {
	t.Helper()
	srv := fake.NewServer(t)
	c := srv.Client()
	if _, err := c.Databases.Create(t.Context(), &platform.CreateDatabaseParams{Organization: srv.Org(), Name: "app-db", ClusterSize: "PS_10"}); err != nil {
		t.Fatal(err)
	}
	srv.Advance(5 * time.Second)
	return srv, c
}

func TestKeyspacesWaitFake(t *testing.T) {
	t.Parallel()
	t.Run("new keyspace", func(t *testing.T) {
		t.Parallel()
		srv, c := newKeyspaceFake(t)
		ctx := t.Context()
		created, err := c.Keyspaces.Create(ctx, &platform.CreateKeyspaceParams{
			Organization: srv.Org(), Database: "app-db", Branch: "main", Name: "orders", ClusterSize: "PS_10", Shards: platform.Ptr(2),
		})
		if err != nil {
			t.Fatal(err)
		}
		if created.Ready {
			t.Fatal("a new keyspace is ready at once, want pending")
		}
		start := srv.Now()
		ks, err := c.Keyspaces.Wait(ctx, &platform.GetKeyspaceParams{Organization: srv.Org(), Database: "app-db", Branch: "main", Keyspace: "orders"})
		if err != nil {
			t.Fatalf("Wait: %v", err)
		}
		if !ks.Ready || !ks.Sharded || ks.ID != created.ID {
			t.Errorf("Wait returned %+v, want the sharded keyspace %s ready", ks, created.ID)
		}
		if waited := srv.Now().Sub(start); waited < 5*time.Second {
			t.Errorf("the clock moved %v, want at least the 5s provisioning time", waited)
		}
	})
	t.Run("settings change", func(t *testing.T) {
		t.Parallel()
		srv, c := newKeyspaceFake(t)
		ctx := t.Context()
		p := &platform.GetKeyspaceParams{Organization: srv.Org(), Database: "app-db", Branch: "main", Keyspace: "app-db"}
		updated, err := c.Keyspaces.Update(ctx, &platform.UpdateKeyspaceParams{
			Organization: p.Organization, Database: p.Database, Branch: p.Branch, Keyspace: p.Keyspace,
			NodeTTLStrategy: platform.Ptr(platform.NodeTTLOff),
		})
		if err != nil {
			t.Fatal(err)
		}
		if !updated.ConfigChangeInProgress {
			t.Fatal("a settings change is not in progress after Update")
		}
		ks, err := c.Keyspaces.Wait(ctx, p)
		if err != nil {
			t.Fatalf("Wait: %v", err)
		}
		if ks.ConfigChangeInProgress || ks.NodeTTLStrategy != platform.NodeTTLOff {
			t.Errorf("Wait returned change in progress %v, strategy %s; want the change applied", ks.ConfigChangeInProgress, ks.NodeTTLStrategy)
		}
	})
	t.Run("failed provisioning", func(t *testing.T) {
		t.Parallel()
		srv, c := newKeyspaceFake(t)
		ctx := t.Context()
		created, err := c.Keyspaces.Create(ctx, &platform.CreateKeyspaceParams{
			Organization: srv.Org(), Database: "app-db", Branch: "main", Name: "orders", ClusterSize: "PS_10",
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := srv.FailNext(created.ID); err != nil {
			t.Fatal(err)
		}
		_, err = c.Keyspaces.Wait(ctx, &platform.GetKeyspaceParams{Organization: srv.Org(), Database: "app-db", Branch: "main", Keyspace: "orders"})
		if !errors.Is(err, platform.ErrNotFound) {
			t.Errorf("Wait: got %v, want ErrNotFound for a keyspace that failed to provision", err)
		}
	})
	t.Run("context ends", func(t *testing.T) {
		t.Parallel()
		srv, c := newKeyspaceFake(t)
		ctx, cancel := context.WithCancel(t.Context())
		if _, err := c.Keyspaces.Create(ctx, &platform.CreateKeyspaceParams{
			Organization: srv.Org(), Database: "app-db", Branch: "main", Name: "orders", ClusterSize: "PS_10",
		}); err != nil {
			t.Fatal(err)
		}
		cancel()
		_, err := c.Keyspaces.Wait(ctx, &platform.GetKeyspaceParams{Organization: srv.Org(), Database: "app-db", Branch: "main", Keyspace: "orders"})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Wait: got %v, want context.Canceled", err)
		}
	})
}

func TestReadOnlyRegionsWire(t *testing.T) {
	t.Parallel()
	const roList = `[{"region": "eu-west", "cluster_name": "PS_20", "cluster_display_name": "PS-20", "replicas": 3}]`
	wantRO := []*platform.KeyspaceReadOnlyRegion{{Region: "eu-west", ClusterName: "PS_20", ClusterDisplayName: "PS-20", Replicas: 3}}
	const regionJSON = `{"id": "r2b6f0j4n8ra", "type": "Region", "provider": "cloud-a", "enabled": true,
		"public_ip_addresses": ["198.51.100.10"], "display_name": "Dublin", "location": "Dublin, Ireland", "slug": "eu-west",
		"current_default": false, "mysql_supported": true, "postgresql_supported": true}`
	runMethodCases(t, []methodCase{
		{
			name: "UpdateReadOnlyRegions",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Keyspaces.UpdateReadOnlyRegions(ctx, &platform.UpdateReadOnlyRegionsParams{
					Organization: "acme", Database: "app-db", Branch: "main", Keyspace: "orders",
					ReadOnlyRegions: []platform.ReadOnlyRegionConfig{
						{Region: "eu-west", ClusterSize: platform.Ptr("PS_20"), Replicas: platform.Ptr(3)},
						{Region: "us-west"},
					},
				})
			},
			method: "PUT", path: "/v1/organizations/acme/databases/app-db/branches/main/keyspaces/orders/read-only-regions", query: url.Values{},
			body:   `{"read_only_regions": [{"region": "eu-west", "cluster_size": "PS_20", "replicas": 3}, {"region": "us-west"}]}`,
			status: 200, response: roList, want: wantRO,
		},
		{
			name: "UpdateReadOnlyRegions/nil removes them all",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Keyspaces.UpdateReadOnlyRegions(ctx, &platform.UpdateReadOnlyRegionsParams{Organization: "acme", Database: "app-db", Branch: "main", Keyspace: "a b"})
			},
			method: "PUT", path: "/v1/organizations/acme/databases/app-db/branches/main/keyspaces/a%20b/read-only-regions", query: url.Values{},
			body:   `{"read_only_regions": []}`,
			status: 200, response: `[]`, want: []*platform.KeyspaceReadOnlyRegion{},
		},
		{
			name: "ListReadOnlyRegions",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Databases.ListReadOnlyRegions(ctx, &platform.ListReadOnlyRegionsParams{Organization: "acme", Database: "app-db", ListParams: platform.ListParams{Page: 2, PerPage: 1}})
			},
			method: "GET", path: "/v1/organizations/acme/databases/app-db/read-only-regions", query: url.Values{"page": {"2"}, "per_page": {"1"}},
			status: 200, response: `{"type": "list", "current_page": 2, "per_page": 1, "next_page": null, "next_page_url": null,
				"prev_page": 1, "prev_page_url": "https://api.example.com/prev", "data": [{"id": "ror012345678", "display_name": "Dublin",
				"created_at": "2026-01-14T10:19:23.000Z", "updated_at": "2026-01-14T10:19:23.000Z", "ready_at": null, "ready": false,
				"actor": {"id": "usr012345678", "display_name": "Ada", "avatar_url": "https://avatars.example.com/a"}, "region": ` + regionJSON + `}]}`,
			want: &platform.Page[platform.ReadOnlyRegion]{
				Type: "list", CurrentPage: 2, PerPage: 1, PrevPage: platform.Ptr(1), PrevPageURL: platform.Ptr("https://api.example.com/prev"),
				Items: []*platform.ReadOnlyRegion{{
					ID: "ror012345678", DisplayName: "Dublin",
					CreatedAt: mustTimestamp(t, "2026-01-14T10:19:23.000Z"), UpdatedAt: mustTimestamp(t, "2026-01-14T10:19:23.000Z"),
					Actor: &platform.Actor{ID: "usr012345678", DisplayName: "Ada", AvatarURL: "https://avatars.example.com/a"},
					Region: platform.Region{
						ID: "r2b6f0j4n8ra", Type: "Region", Provider: "cloud-a", Enabled: true, PublicIPAddresses: []string{"198.51.100.10"},
						DisplayName: "Dublin", Location: "Dublin, Ireland", Slug: "eu-west",
						CurrentDefault: platform.Ptr(false), MySQLSupported: platform.Ptr(true), PostgreSQLSupported: platform.Ptr(true),
					},
				}},
			},
		},
	})
}

func TestReadOnlyRegionsArgErrors(t *testing.T) {
	t.Parallel()
	runArgCases(t, []argCase{
		{"UpdateReadOnlyRegions without keyspace", "keyspace", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Keyspaces.UpdateReadOnlyRegions(ctx, &platform.UpdateReadOnlyRegionsParams{Organization: "acme", Database: "app-db", Branch: "main"})
			return err
		}},
		{"ListReadOnlyRegions without database", "database", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Databases.ListReadOnlyRegions(ctx, &platform.ListReadOnlyRegionsParams{Organization: "acme"})
			return err
		}},
		{"ListReadOnlyRegions with a negative page", "page", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Databases.ListReadOnlyRegions(ctx, &platform.ListReadOnlyRegionsParams{Organization: "acme", Database: "app-db", ListParams: platform.ListParams{Page: -1}})
			return err
		}},
	})
}

// TestReadOnlyRegionsFake checks against the fake that the database's list
// follows its default branch's keyspaces, page by page through
// AllReadOnlyRegions, and that an unknown region is refused naming it.
func TestReadOnlyRegionsFake(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	c, ctx, org := srv.Client(), t.Context(), srv.Org()
	if _, err := c.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: org, Name: "app"}); err != nil {
		t.Fatal(err)
	}
	srv.Advance(5 * time.Second)
	set := func(regions ...string) error {
		p := &platform.UpdateReadOnlyRegionsParams{Organization: org, Database: "app", Branch: "main", Keyspace: "app"}
		for _, r := range regions {
			p.ReadOnlyRegions = append(p.ReadOnlyRegions, platform.ReadOnlyRegionConfig{Region: r})
		}
		_, err := c.Keyspaces.UpdateReadOnlyRegions(ctx, p)
		return err
	}
	if err := set("eu-west", "ap-southeast", "us-west"); err != nil {
		t.Fatal(err)
	}
	var slugs []string
	for r, err := range c.Databases.AllReadOnlyRegions(ctx, &platform.ListReadOnlyRegionsParams{Organization: org, Database: "app", ListParams: platform.ListParams{PerPage: 2}}) {
		if err != nil {
			t.Fatal(err)
		}
		slugs = append(slugs, r.Region.Slug)
	}
	if diff := cmp.Diff([]string{"eu-west", "ap-southeast", "us-west"}, slugs); diff != "" {
		t.Errorf("read-only regions (-want +got):\n%s", diff)
	}
	err := set("eu-west", "atlantis")
	var apiErr *platform.Error
	if !errors.Is(err, platform.ErrUnprocessable) || !errors.As(err, &apiErr) || !strings.Contains(apiErr.Message, `read_only_regions[1].region "atlantis"`) {
		t.Errorf("unknown region: %v", err)
	}
}
