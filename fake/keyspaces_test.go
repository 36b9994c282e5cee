package fake_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
	"github.com/google/go-cmp/cmp"
)

// ksDB is the database of the keyspace tests; its default keyspace has its
// name.
const ksDB = "app-db"

// newKeyspaceServer returns a fake with the ready database ksDB, and its
// client.
func newKeyspaceServer(t *testing.T, opts ...fake.Option) (*fake.Server, *platform.Client) {
	t.Helper()
	srv := fake.NewServer(t, opts...)
	c := srv.Client()
	if _, err := c.Databases.Create(t.Context(), &platform.CreateDatabaseParams{Organization: srv.Org(), Name: ksDB, ClusterSize: "PS_10"}); err != nil {
		t.Fatal(err)
	}
	srv.Advance(5 * time.Second)
	return srv, c
}

// ksRef names keyspace ks of branch in ksDB.
func ksRef(srv *fake.Server, branch, ks string) *platform.KeyspaceParams {
	return &platform.KeyspaceParams{Organization: srv.Org(), Database: ksDB, Branch: branch, Keyspace: ks}
}

// createKeyspace creates a keyspace on branch and fails the test if it cannot.
func ksCreate(t *testing.T, srv *fake.Server, c *platform.Client, branch string, p platform.CreateKeyspaceParams) *platform.Keyspace {
	t.Helper()
	p.Organization, p.Database, p.Branch = srv.Org(), ksDB, branch
	ks, err := c.Keyspaces.Create(t.Context(), &p)
	if err != nil {
		t.Fatalf("creating keyspace %s: %v", p.Name, err)
	}
	return ks
}

// getKeyspace reads a keyspace and fails the test if it cannot.
func ksGet(t *testing.T, srv *fake.Server, c *platform.Client, branch, name string) *platform.Keyspace {
	t.Helper()
	ks, err := c.Keyspaces.Get(t.Context(), ksRef(srv, branch, name))
	if err != nil {
		t.Fatalf("getting keyspace %s: %v", name, err)
	}
	return ks
}

// allKeyspaces lists every keyspace of a branch, for before/after
// comparisons.
func ksAll(t *testing.T, srv *fake.Server, c *platform.Client, branch string) []*platform.Keyspace {
	t.Helper()
	var out []*platform.Keyspace
	for ks, err := range c.Keyspaces.All(t.Context(), &platform.ListKeyspacesParams{Organization: srv.Org(), Database: ksDB, Branch: branch}) {
		if err != nil {
			t.Fatalf("listing keyspaces of %s: %v", branch, err)
		}
		out = append(out, ks)
	}
	return out
}

// keyspaceNames returns the names of keyspaces.
func ksNames(list []*platform.Keyspace) []string {
	names := make([]string, len(list))
	for i, ks := range list {
		names[i] = ks.Name
	}
	return names
}

// createBranch creates a branch of main and waits until it is ready.
func ksCreateBranch(t *testing.T, srv *fake.Server, c *platform.Client, name string) {
	t.Helper()
	if _, err := c.Branches.Create(t.Context(), &platform.CreateBranchParams{Organization: srv.Org(), Database: ksDB, Name: name}); err != nil {
		t.Fatalf("creating branch %s: %v", name, err)
	}
	srv.Advance(5 * time.Second)
}

// rawKeyspaceCall sends body as is to a keyspace path (relative to
// .../branches/) with the admin token, and returns the status and the
// error message.
func ksRaw(t *testing.T, srv *fake.Server, method, path, body string) (int, string) {
	t.Helper()
	url := srv.URL() + "v1/organizations/" + srv.Org() + "/databases/" + ksDB + "/branches/" + path
	req, err := http.NewRequestWithContext(t.Context(), method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", srv.AdminToken().Authorization())
	req.Header.Set("Content-Type", "application/json")
	resp, err := clientOf(srv).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var e struct {
		Message string `json:"message"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&e)
	return resp.StatusCode, e.Message
}

func TestKeyspaceDefaultOnEveryBranch(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	c := srv.Client()
	ctx := t.Context()
	if _, err := c.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: srv.Org(), Name: ksDB, ClusterSize: "PS_20"}); err != nil {
		t.Fatal(err)
	}
	// Before the database is ready, its main branch's default keyspace is
	// pending with it.
	pending := ksGet(t, srv, c, "main", ksDB)
	if pending.Ready || !pending.Default {
		t.Errorf("new database's keyspace: ready %v, default %v; want pending and default", pending.Ready, pending.Default)
	}
	srv.Advance(5 * time.Second)
	main := ksGet(t, srv, c, "main", ksDB)
	want := &platform.Keyspace{
		ID: pending.ID, Type: "Keyspace", Name: ksDB, Shards: 1, Replicas: 2,
		ClusterName: "PS_20", ClusterDisplayName: "PS-20", Ready: true, Default: true,
		NodeTTLStrategy: platform.NodeTTLFollowMaintenance,
		MysqldOptions:   map[string]string{}, VTTabletOptions: map[string]string{},
		ReadOnlyRegions: []platform.KeyspaceReadOnlyRegion{},
		CreatedAt:       pending.CreatedAt, UpdatedAt: main.UpdatedAt,
	}
	if diff := cmp.Diff(want, main); diff != "" {
		t.Errorf("main's default keyspace (-want +got):\n%s", diff)
	}

	// A keyspace with settings and a table, which later branches copy.
	ksCreate(t, srv, c, "main", platform.CreateKeyspaceParams{Name: "orders", ClusterSize: "PS_40", Shards: platform.Ptr(4), ExtraReplicas: platform.Ptr(1)})
	srv.Advance(5 * time.Second)
	if _, err := c.Keyspaces.Update(ctx, &platform.UpdateKeyspaceParams{
		Organization: srv.Org(), Database: ksDB, Branch: "main", Keyspace: "orders",
		NodeTTLStrategy: platform.Ptr(platform.NodeTTLOff), MysqldOptions: platform.Ptr(map[string]string{"max_connections": "500"}),
	}); err != nil {
		t.Fatal(err)
	}
	srv.Advance(10 * time.Second)
	if err := srv.PushSchema(srv.Org(), ksDB, "main", "CREATE TABLE orders.items (id bigint PRIMARY KEY)", "CREATE TABLE users (id bigint PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}

	if _, err := c.Branches.Create(ctx, &platform.CreateBranchParams{Organization: srv.Org(), Database: ksDB, Name: "dev"}); err != nil {
		t.Fatal(err)
	}
	copies := ksAll(t, srv, c, "dev")
	if diff := cmp.Diff([]string{ksDB, "orders"}, ksNames(copies)); diff != "" {
		t.Fatalf("keyspaces of a new branch (-want +got):\n%s", diff)
	}
	for _, ks := range copies {
		if ks.Ready {
			t.Errorf("keyspace %s of a pending branch is ready", ks.Name)
		}
	}
	srv.Advance(5 * time.Second)
	dev := ksAll(t, srv, c, "dev")
	mainAll := ksAll(t, srv, c, "main")
	for i, ks := range dev {
		orig := mainAll[i]
		if ks.ID == orig.ID {
			t.Errorf("keyspace %s of dev shares its ID with main's", ks.Name)
		}
		if !ks.Ready {
			t.Errorf("keyspace %s of a ready branch is not ready", ks.Name)
		}
		// A development branch includes no replicas: only the extra ones.
		if ks.Replicas != orig.Replicas-2 {
			t.Errorf("keyspace %s of dev has %d replicas, want %d", ks.Name, ks.Replicas, orig.Replicas-2)
		}
		copied := *ks
		copied.ID, copied.Replicas, copied.CreatedAt, copied.UpdatedAt = orig.ID, orig.Replicas, orig.CreatedAt, orig.UpdatedAt
		if diff := cmp.Diff(orig, &copied); diff != "" {
			t.Errorf("keyspace %s copied to dev (-main +dev):\n%s", ks.Name, diff)
		}
	}
	schema, err := c.Branches.GetSchema(ctx, &platform.GetBranchSchemaParams{Organization: srv.Org(), Database: ksDB, Branch: "dev", Keyspace: "orders"})
	if err != nil {
		t.Fatal(err)
	}
	if len(schema.Tables) != 1 || schema.Tables[0].Name != "items" {
		t.Errorf("dev's orders keyspace has tables %+v, want items copied from main", schema.Tables)
	}
}

func TestKeyspaceCreate(t *testing.T) {
	t.Parallel()
	srv, c := newKeyspaceServer(t, fake.WithTimings(fake.Timings{KeyspaceReady: 7 * time.Second}))
	created := ksCreate(t, srv, c, "main", platform.CreateKeyspaceParams{Name: "orders", ClusterSize: "PS_40"})
	want := &platform.Keyspace{
		ID: created.ID, Type: "Keyspace", Name: "orders", Shards: 1, Replicas: 2,
		ClusterName: "PS_40", ClusterDisplayName: "PS-40",
		NodeTTLStrategy: platform.NodeTTLFollowMaintenance,
		MysqldOptions:   map[string]string{}, VTTabletOptions: map[string]string{},
		ReadOnlyRegions: []platform.KeyspaceReadOnlyRegion{},
		CreatedAt:       platform.NewTimestamp(srv.Now()), UpdatedAt: platform.NewTimestamp(srv.Now()),
	}
	if diff := cmp.Diff(want, created); diff != "" {
		t.Errorf("created keyspace (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(created, ksGet(t, srv, c, "main", "orders")); diff != "" {
		t.Errorf("read back (-created +read):\n%s", diff)
	}
	srv.Advance(7*time.Second - time.Millisecond)
	if ksGet(t, srv, c, "main", "orders").Ready {
		t.Fatal("keyspace ready before Timings.KeyspaceReady")
	}
	srv.Advance(time.Millisecond)
	ready := ksGet(t, srv, c, "main", "orders")
	if !ready.Ready || !ready.UpdatedAt.Equal(srv.Now()) {
		t.Errorf("after Timings.KeyspaceReady: ready %v, updated_at %v; want ready, updated at %v", ready.Ready, ready.UpdatedAt, srv.Now())
	}
	if diff := cmp.Diff([]string{ksDB, "orders"}, ksNames(ksAll(t, srv, c, "main"))); diff != "" {
		t.Errorf("keyspaces of main (-want +got):\n%s", diff)
	}
}

func TestKeyspaceSharded(t *testing.T) {
	t.Parallel()
	srv, c := newKeyspaceServer(t)
	ksCreateBranch(t, srv, c, "dev")
	tests := []struct {
		branch        string
		shards, extra *int
		wantShards    int
		wantSharded   bool
		wantReplicas  int
	}{
		{"main", nil, nil, 1, false, 2},
		{"main", platform.Ptr(1), platform.Ptr(0), 1, false, 2},
		{"main", platform.Ptr(2), platform.Ptr(3), 2, true, 5},
		{"dev", platform.Ptr(8), platform.Ptr(1), 8, true, 1},
	}
	wantBranchShards := map[string]int{"main": 1, "dev": 1}
	for i, tt := range tests {
		name := "ks" + string(rune('a'+i))
		ks := ksCreate(t, srv, c, tt.branch, platform.CreateKeyspaceParams{Name: name, ClusterSize: "PS_10", Shards: tt.shards, ExtraReplicas: tt.extra})
		if ks.Shards != tt.wantShards || ks.Sharded != tt.wantSharded || ks.Replicas != tt.wantReplicas {
			t.Errorf("%s on %s: shards %d, sharded %v, replicas %d; want %d, %v, %d",
				name, tt.branch, ks.Shards, ks.Sharded, ks.Replicas, tt.wantShards, tt.wantSharded, tt.wantReplicas)
		}
		wantBranchShards[tt.branch] += tt.wantShards
	}
	for branch, want := range wantBranchShards {
		b, err := c.Branches.Get(t.Context(), &platform.GetBranchParams{Organization: srv.Org(), Database: ksDB, Branch: branch})
		if err != nil {
			t.Fatal(err)
		}
		if b.ShardCount != want || !b.Sharded {
			t.Errorf("branch %s: shard_count %d, sharded %v; want %d, true", branch, b.ShardCount, b.Sharded, want)
		}
	}
}

func TestKeyspaceCreateRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		branch string
		p      platform.CreateKeyspaceParams
		want   string // in the message
	}{
		{"missing name", "main", platform.CreateKeyspaceParams{ClusterSize: "PS_10"}, "name is required"},
		{"upper-case name", "main", platform.CreateKeyspaceParams{Name: "Orders", ClusterSize: "PS_10"}, "lowercase"},
		{"underscore in name", "main", platform.CreateKeyspaceParams{Name: "my_orders", ClusterSize: "PS_10"}, "lowercase"},
		{"name too long", "main", platform.CreateKeyspaceParams{Name: strings.Repeat("k", 64), ClusterSize: "PS_10"}, "longer than 63"},
		{"name of the default keyspace", "main", platform.CreateKeyspaceParams{Name: ksDB, ClusterSize: "PS_10"}, "already taken"},
		{"name taken", "main", platform.CreateKeyspaceParams{Name: "orders", ClusterSize: "PS_10"}, "already taken"},
		{"missing cluster size", "main", platform.CreateKeyspaceParams{Name: "users"}, "cluster_size is required"},
		{"unknown cluster size", "main", platform.CreateKeyspaceParams{Name: "users", ClusterSize: "PS_BOGUS"}, `cluster_size "PS_BOGUS" is not a cluster size`},
		{"cluster size of postgresql only", "main", platform.CreateKeyspaceParams{Name: "users", ClusterSize: "PS_40_AWS_ARM"}, `cluster_size "PS_40_AWS_ARM" is not offered for mysql`},
		{"zero shards", "main", platform.CreateKeyspaceParams{Name: "users", ClusterSize: "PS_10", Shards: platform.Ptr(0)}, "shards must be from 1 to 256"},
		{"negative shards", "main", platform.CreateKeyspaceParams{Name: "users", ClusterSize: "PS_10", Shards: platform.Ptr(-2)}, "shards must be from 1 to 256"},
		{"too many shards", "main", platform.CreateKeyspaceParams{Name: "users", ClusterSize: "PS_10", Shards: platform.Ptr(257)}, "shards must be from 1 to 256"},
		// A count no key range can split into would crash the deploy check.
		{"huge shards", "main", platform.CreateKeyspaceParams{Name: "users", ClusterSize: "PS_10", Shards: platform.Ptr(1 << 62)}, "shards must be from 1 to 256"},
		{"negative extra replicas", "main", platform.CreateKeyspaceParams{Name: "users", ClusterSize: "PS_10", ExtraReplicas: platform.Ptr(-1)}, "extra_replicas must be from 0 to 18 on branch main"},
		{"too many extra replicas", "main", platform.CreateKeyspaceParams{Name: "users", ClusterSize: "PS_10", ExtraReplicas: platform.Ptr(19)}, "extra_replicas must be from 0 to 18 on branch main (2 replicas included, 20 at most), got 19"},
		{"pending branch", "fresh", platform.CreateKeyspaceParams{Name: "users", ClusterSize: "PS_10"}, "branch fresh is not ready"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, c := newKeyspaceServer(t)
			ksCreate(t, srv, c, "main", platform.CreateKeyspaceParams{Name: "orders", ClusterSize: "PS_10"})
			if _, err := c.Branches.Create(t.Context(), &platform.CreateBranchParams{Organization: srv.Org(), Database: ksDB, Name: "fresh"}); err != nil {
				t.Fatal(err)
			}
			before := ksAll(t, srv, c, tt.branch)
			p := tt.p
			p.Organization, p.Database, p.Branch = srv.Org(), ksDB, tt.branch
			_, err := c.Keyspaces.Create(t.Context(), &p)
			var apiErr *platform.Error
			if !errors.Is(err, platform.ErrUnprocessable) || !errors.As(err, &apiErr) || !strings.Contains(apiErr.Message, tt.want) {
				t.Fatalf("got %v, want 422 saying %q", err, tt.want)
			}
			if diff := cmp.Diff(before, ksAll(t, srv, c, tt.branch)); diff != "" {
				t.Errorf("keyspaces changed (-before +after):\n%s", diff)
			}
		})
	}
}

func TestKeyspaceBadBodies(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, method, path, body string
		want                     string // in the message
	}{
		{"create: malformed JSON", "POST", "main/keyspaces", `{"name": "users",`, "malformed JSON"},
		{"create: shards not a number", "POST", "main/keyspaces", `{"name": "users", "cluster_size": "PS_10", "shards": "two"}`, "shards must be an integer"},
		{"update: not an object", "PATCH", "main/keyspaces/" + ksDB, `[]`, "must be a JSON object"},
		{"update: malformed JSON", "PATCH", "main/keyspaces/" + ksDB, `{"node_ttl_strategy": `, "malformed JSON"},
		{"update: unknown field", "PATCH", "main/keyspaces/" + ksDB, `{"shards": 2}`, "unknown field shards"},
		{"update: unknown nested field", "PATCH", "main/keyspaces/" + ksDB, `{"vreplication_flags": {"optimize_insert": true}}`, "unknown field optimize_insert"},
		{"update: unknown field in durability", "PATCH", "main/keyspaces/" + ksDB, `{"replication_durability_constraints": {"strategy": "lag", "level": 1}}`, "unknown field level"},
		{"update: strategy not a string", "PATCH", "main/keyspaces/" + ksDB, `{"replication_durability_constraints": {"strategy": 1}}`, "replication_durability_constraints.strategy must be a string"},
		{"update: flag not a boolean", "PATCH", "main/keyspaces/" + ksDB, `{"vreplication_flags": {"optimize_inserts": "yes"}}`, "vreplication_flags.optimize_inserts must be a boolean"},
		{"update: option not a string", "PATCH", "main/keyspaces/" + ksDB, `{"mysqld_options": {"max_connections": 500}}`, "mysqld_options.max_connections must be a string"},
		{"update: options not an object", "PATCH", "main/keyspaces/" + ksDB, `{"vttablet_options": ["a"]}`, "vttablet_options must be an object"},
		{"update: node TTL not a string", "PATCH", "main/keyspaces/" + ksDB, `{"node_ttl_strategy": 5}`, "node_ttl_strategy must be a string"},
		{"update: vector pool not a number", "PATCH", "main/keyspaces/" + ksDB, `{"vector_pool_allocation": "half"}`, "vector_pool_allocation must be a number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, c := newKeyspaceServer(t)
			before := ksAll(t, srv, c, "main")
			status, msg := ksRaw(t, srv, tt.method, tt.path, tt.body)
			if status != http.StatusBadRequest || !strings.Contains(msg, tt.want) {
				t.Errorf("got %d %q, want 400 saying %q", status, msg, tt.want)
			}
			srv.Advance(time.Minute)
			after := ksAll(t, srv, c, "main")
			if diff := cmp.Diff(before, after); diff != "" {
				t.Errorf("keyspaces changed (-before +after):\n%s", diff)
			}
		})
	}
}

// ksSettings is the settings part of a keyspace, for comparisons.
type ksSettings struct {
	Durability   *platform.DurabilityStrategy
	VReplication platform.VReplicationFlags
	Mysqld       map[string]string
	VTTablet     map[string]string
	NodeTTL      platform.NodeTTLStrategy
	VectorPool   *float64
}

func ksSettingsOf(ks *platform.Keyspace) ksSettings {
	return ksSettings{
		ks.ReplicationDurabilityConstraints.Strategy, ks.VReplicationFlags, ks.MysqldOptions,
		ks.VTTabletOptions, ks.NodeTTLStrategy, ks.VectorPoolAllocation,
	}
}

func TestKeyspaceUpdate(t *testing.T) {
	t.Parallel()
	srv, c := newKeyspaceServer(t)
	ctx := t.Context()
	update := func(p platform.UpdateKeyspaceParams) *platform.Keyspace {
		t.Helper()
		p.Organization, p.Database, p.Branch, p.Keyspace = srv.Org(), ksDB, "main", ksDB
		ks, err := c.Keyspaces.Update(ctx, &p)
		if err != nil {
			t.Fatalf("Update: %v", err)
		}
		return ks
	}
	// Each step changes some settings; the others stay. Each change is in
	// progress for 10 s.
	steps := []struct {
		name string
		p    platform.UpdateKeyspaceParams
		want ksSettings
	}{
		{
			name: "every setting",
			p: platform.UpdateKeyspaceParams{
				ReplicationDurabilityConstraints: &platform.ReplicationDurabilityConstraints{Strategy: platform.Ptr(platform.DurabilityLag)},
				VReplicationFlags:                &platform.VReplicationFlagsParams{OptimizeInserts: platform.Ptr(true), VPlayerBatching: platform.Ptr(true)},
				MysqldOptions:                    platform.Ptr(map[string]string{"max_connections": "500", "innodb.io": "x"}),
				VTTabletOptions:                  platform.Ptr(map[string]string{"queryserver-config-pool-size": "8"}),
				NodeTTLStrategy:                  platform.Ptr(platform.NodeTTLAlways),
				VectorPoolAllocation:             platform.Ptr(12.5),
			},
			want: ksSettings{
				Durability:   platform.Ptr(platform.DurabilityLag),
				VReplication: platform.VReplicationFlags{OptimizeInserts: true, VPlayerBatching: true},
				Mysqld:       map[string]string{"max_connections": "500", "innodb.io": "x"},
				VTTablet:     map[string]string{"queryserver-config-pool-size": "8"},
				NodeTTL:      platform.NodeTTLAlways,
				VectorPool:   platform.Ptr(12.5),
			},
		},
		{
			name: "one flag, options replaced and cleared, vector pool cleared",
			p: platform.UpdateKeyspaceParams{
				VReplicationFlags:         &platform.VReplicationFlagsParams{OptimizeInserts: platform.Ptr(false), AllowNoBlobBinlogRowImage: platform.Ptr(true)},
				MysqldOptions:             platform.Ptr(map[string]string{"sort_buffer_size": "1M"}),
				VTTabletOptions:           platform.Ptr(map[string]string{}),
				ClearVectorPoolAllocation: true,
			},
			want: ksSettings{
				Durability:   platform.Ptr(platform.DurabilityLag),
				VReplication: platform.VReplicationFlags{AllowNoBlobBinlogRowImage: true, VPlayerBatching: true},
				Mysqld:       map[string]string{"sort_buffer_size": "1M"},
				VTTablet:     map[string]string{},
				NodeTTL:      platform.NodeTTLAlways,
			},
		},
		{
			name: "bounds of the vector pool and the last strategies",
			p: platform.UpdateKeyspaceParams{
				ReplicationDurabilityConstraints: &platform.ReplicationDurabilityConstraints{Strategy: platform.Ptr(platform.DurabilityAlways)},
				NodeTTLStrategy:                  platform.Ptr(platform.NodeTTLOff),
				VectorPoolAllocation:             platform.Ptr(100.0),
			},
			want: ksSettings{
				Durability:   platform.Ptr(platform.DurabilityAlways),
				VReplication: platform.VReplicationFlags{AllowNoBlobBinlogRowImage: true, VPlayerBatching: true},
				Mysqld:       map[string]string{"sort_buffer_size": "1M"},
				VTTablet:     map[string]string{},
				NodeTTL:      platform.NodeTTLOff,
				VectorPool:   platform.Ptr(100.0),
			},
		},
		{
			name: "lower bound",
			p: platform.UpdateKeyspaceParams{
				ReplicationDurabilityConstraints: &platform.ReplicationDurabilityConstraints{Strategy: platform.Ptr(platform.DurabilityAvailable)},
				NodeTTLStrategy:                  platform.Ptr(platform.NodeTTLFollowMaintenance),
				VectorPoolAllocation:             platform.Ptr(0.0),
			},
			want: ksSettings{
				Durability:   platform.Ptr(platform.DurabilityAvailable),
				VReplication: platform.VReplicationFlags{AllowNoBlobBinlogRowImage: true, VPlayerBatching: true},
				Mysqld:       map[string]string{"sort_buffer_size": "1M"},
				VTTablet:     map[string]string{},
				NodeTTL:      platform.NodeTTLFollowMaintenance,
				VectorPool:   platform.Ptr(0.0),
			},
		},
	}
	for _, step := range steps {
		changedAt := srv.Now()
		got := update(step.p)
		if diff := cmp.Diff(step.want, ksSettingsOf(got)); diff != "" {
			t.Errorf("%s: settings in the response (-want +got):\n%s", step.name, diff)
		}
		if !got.ConfigChangeInProgress || !got.UpdatedAt.Equal(changedAt) {
			t.Errorf("%s: config_change_in_progress %v, updated_at %v; want true, %v", step.name, got.ConfigChangeInProgress, got.UpdatedAt, changedAt)
		}
		srv.Advance(10*time.Second - time.Millisecond)
		if !ksGet(t, srv, c, "main", ksDB).ConfigChangeInProgress {
			t.Errorf("%s: change no longer in progress before 10 s", step.name)
		}
		srv.Advance(time.Millisecond)
		done := ksGet(t, srv, c, "main", ksDB)
		if done.ConfigChangeInProgress {
			t.Errorf("%s: change still in progress after 10 s", step.name)
		}
		if diff := cmp.Diff(step.want, ksSettingsOf(done)); diff != "" {
			t.Errorf("%s: settings once applied (-want +got):\n%s", step.name, diff)
		}
	}
}

func TestKeyspaceUpdateWithoutChange(t *testing.T) {
	t.Parallel()
	srv, c := newKeyspaceServer(t)
	before := ksGet(t, srv, c, "main", ksDB)
	srv.Advance(time.Second)
	for _, p := range []platform.UpdateKeyspaceParams{
		{},
		{NodeTTLStrategy: platform.Ptr(before.NodeTTLStrategy), VTTabletOptions: platform.Ptr(map[string]string{})},
		{VReplicationFlags: &platform.VReplicationFlagsParams{OptimizeInserts: platform.Ptr(false)}, ClearVectorPoolAllocation: true},
		// The service's official client sends back a strategy it read as
		// null as "".
		{ReplicationDurabilityConstraints: &platform.ReplicationDurabilityConstraints{Strategy: platform.Ptr(platform.DurabilityStrategy(""))}},
	} {
		p.Organization, p.Database, p.Branch, p.Keyspace = srv.Org(), ksDB, "main", ksDB
		got, err := c.Keyspaces.Update(t.Context(), &p)
		if err != nil {
			t.Fatalf("Update: %v", err)
		}
		if diff := cmp.Diff(before, got); diff != "" {
			t.Errorf("an update that changes nothing changed the keyspace (-before +after):\n%s", diff)
		}
	}
	if status, _ := ksRaw(t, srv, "PATCH", "main/keyspaces/"+ksDB, ""); status != http.StatusOK {
		t.Errorf("PATCH with no body: status %d, want 200", status)
	}
	if diff := cmp.Diff(before, ksGet(t, srv, c, "main", ksDB)); diff != "" {
		t.Errorf("keyspace changed (-before +after):\n%s", diff)
	}
}

func TestKeyspaceUpdateDuringChange(t *testing.T) {
	t.Parallel()
	srv, c := newKeyspaceServer(t)
	set := func(s platform.NodeTTLStrategy) {
		t.Helper()
		if _, err := c.Keyspaces.Update(t.Context(), &platform.UpdateKeyspaceParams{
			Organization: srv.Org(), Database: ksDB, Branch: "main", Keyspace: ksDB, NodeTTLStrategy: &s,
		}); err != nil {
			t.Fatal(err)
		}
	}
	set(platform.NodeTTLOff)
	srv.Advance(6 * time.Second)
	set(platform.NodeTTLAlways)
	// The first change's 10 s end here; the second has 6 s to go.
	srv.Advance(4 * time.Second)
	if ks := ksGet(t, srv, c, "main", ksDB); !ks.ConfigChangeInProgress || ks.NodeTTLStrategy != platform.NodeTTLAlways {
		t.Errorf("10 s after the first change: in progress %v, strategy %s; want the second change in progress", ks.ConfigChangeInProgress, ks.NodeTTLStrategy)
	}
	srv.Advance(6 * time.Second)
	if ks := ksGet(t, srv, c, "main", ksDB); ks.ConfigChangeInProgress || ks.NodeTTLStrategy != platform.NodeTTLAlways {
		t.Errorf("10 s after the second change: in progress %v, strategy %s; want it applied", ks.ConfigChangeInProgress, ks.NodeTTLStrategy)
	}
}

func TestKeyspaceUpdateRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		keyspace string
		p        platform.UpdateKeyspaceParams
		want     string // in the message
	}{
		{"strategy missing", ksDB, platform.UpdateKeyspaceParams{ReplicationDurabilityConstraints: &platform.ReplicationDurabilityConstraints{}}, "replication_durability_constraints.strategy is required"},
		{"unknown strategy", ksDB, platform.UpdateKeyspaceParams{ReplicationDurabilityConstraints: &platform.ReplicationDurabilityConstraints{Strategy: platform.Ptr(platform.DurabilityStrategy("sometimes"))}}, `strategy "sometimes"`},
		{"unknown node TTL strategy", ksDB, platform.UpdateKeyspaceParams{NodeTTLStrategy: platform.Ptr(platform.NodeTTLStrategy("node_ttl_never"))}, `node_ttl_strategy "node_ttl_never"`},
		{"vector pool over 100", ksDB, platform.UpdateKeyspaceParams{VectorPoolAllocation: platform.Ptr(100.5)}, "vector_pool_allocation must be from 0 to 100"},
		{"negative vector pool", ksDB, platform.UpdateKeyspaceParams{VectorPoolAllocation: platform.Ptr(-1.0)}, "vector_pool_allocation must be from 0 to 100"},
		{"bad mysqld option name", ksDB, platform.UpdateKeyspaceParams{MysqldOptions: platform.Ptr(map[string]string{"max connections": "5"})}, `mysqld_options: "max connections"`},
		{"empty vttablet option name", ksDB, platform.UpdateKeyspaceParams{VTTabletOptions: platform.Ptr(map[string]string{"": "5"})}, `vttablet_options: ""`},
		{"one bad value spoils the rest", ksDB, platform.UpdateKeyspaceParams{NodeTTLStrategy: platform.Ptr(platform.NodeTTLOff), VectorPoolAllocation: platform.Ptr(101.0)}, "vector_pool_allocation"},
		{"keyspace not ready", "orders", platform.UpdateKeyspaceParams{NodeTTLStrategy: platform.Ptr(platform.NodeTTLOff)}, "keyspace orders is not ready yet"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, c := newKeyspaceServer(t)
			ksCreate(t, srv, c, "main", platform.CreateKeyspaceParams{Name: "orders", ClusterSize: "PS_10"})
			before := ksAll(t, srv, c, "main")
			p := tt.p
			p.Organization, p.Database, p.Branch, p.Keyspace = srv.Org(), ksDB, "main", tt.keyspace
			_, err := c.Keyspaces.Update(t.Context(), &p)
			var apiErr *platform.Error
			if !errors.Is(err, platform.ErrUnprocessable) || !errors.As(err, &apiErr) || !strings.Contains(apiErr.Message, tt.want) {
				t.Fatalf("got %v, want 422 saying %q", err, tt.want)
			}
			if diff := cmp.Diff(before, ksAll(t, srv, c, "main")); diff != "" {
				t.Errorf("keyspaces changed (-before +after):\n%s", diff)
			}
		})
	}
}

// TestKeyspaceUpdateNamesFirstBadOption checks that of several bad option
// names, the 422 names the first in name order, every time.
func TestKeyspaceUpdateNamesFirstBadOption(t *testing.T) {
	t.Parallel()
	srv, c := newKeyspaceServer(t)
	bad := map[string]string{"c c": "1", "a a": "1", "d d": "1", "b b": "1", "ok_name": "1"}
	p := platform.UpdateKeyspaceParams{MysqldOptions: &bad}
	p.Organization, p.Database, p.Branch, p.Keyspace = srv.Org(), ksDB, "main", ksDB
	for range 20 {
		_, err := c.Keyspaces.Update(t.Context(), &p)
		apiError(t, err, http.StatusUnprocessableEntity, `mysqld_options: "a a"`)
	}
}

func TestKeyspaceNotFound(t *testing.T) {
	t.Parallel()
	srv, c := newKeyspaceServer(t)
	ctx := t.Context()
	tests := []struct {
		name string
		call func(branch, keyspace string) error
	}{
		{"list", func(branch, _ string) error {
			_, err := c.Keyspaces.List(ctx, &platform.ListKeyspacesParams{Organization: srv.Org(), Database: ksDB, Branch: branch})
			return err
		}},
		{"create", func(branch, _ string) error {
			_, err := c.Keyspaces.Create(ctx, &platform.CreateKeyspaceParams{Organization: srv.Org(), Database: ksDB, Branch: branch, Name: "users", ClusterSize: "PS_10"})
			return err
		}},
		{"get", func(branch, keyspace string) error {
			_, err := c.Keyspaces.Get(ctx, ksRef(srv, branch, keyspace))
			return err
		}},
		{"update", func(branch, keyspace string) error {
			_, err := c.Keyspaces.Update(ctx, &platform.UpdateKeyspaceParams{Organization: srv.Org(), Database: ksDB, Branch: branch, Keyspace: keyspace, NodeTTLStrategy: platform.Ptr(platform.NodeTTLOff)})
			return err
		}},
		{"delete", func(branch, keyspace string) error {
			return c.Keyspaces.Delete(ctx, ksRef(srv, branch, keyspace))
		}},
	}
	for _, tt := range tests {
		if err := tt.call("nope", ksDB); !errors.Is(err, platform.ErrNotFound) {
			t.Errorf("%s on an unknown branch: got %v, want ErrNotFound", tt.name, err)
		}
		if tt.name == "list" || tt.name == "create" {
			continue
		}
		if err := tt.call("main", "nope"); !errors.Is(err, platform.ErrNotFound) {
			t.Errorf("%s of an unknown keyspace: got %v, want ErrNotFound", tt.name, err)
		}
	}
	if diff := cmp.Diff([]string{ksDB}, ksNames(ksAll(t, srv, c, "main"))); diff != "" {
		t.Errorf("keyspaces of main (-want +got):\n%s", diff)
	}
}

func TestKeyspaceDelete(t *testing.T) {
	t.Parallel()
	srv, c := newKeyspaceServer(t)
	ctx := t.Context()
	ksCreateBranch(t, srv, c, "dev")
	for _, branch := range []string{"main", "dev"} {
		before := ksAll(t, srv, c, branch)
		err := c.Keyspaces.Delete(ctx, ksRef(srv, branch, ksDB))
		var apiErr *platform.Error
		if !errors.Is(err, platform.ErrUnprocessable) || !errors.As(err, &apiErr) || !strings.Contains(apiErr.Message, "default keyspace") {
			t.Errorf("deleting the default keyspace of %s: got %v, want 422 naming the default keyspace", branch, err)
		}
		if diff := cmp.Diff(before, ksAll(t, srv, c, branch)); diff != "" {
			t.Errorf("keyspaces of %s changed (-before +after):\n%s", branch, diff)
		}
	}

	ksCreate(t, srv, c, "main", platform.CreateKeyspaceParams{Name: "orders", ClusterSize: "PS_10"})
	ksCreate(t, srv, c, "main", platform.CreateKeyspaceParams{Name: "users", ClusterSize: "PS_10"})
	srv.Advance(5 * time.Second)
	if err := srv.PushSchema(srv.Org(), ksDB, "main",
		"CREATE TABLE orders.items (id bigint PRIMARY KEY)", "CREATE TABLE users.accounts (id bigint PRIMARY KEY)", "CREATE TABLE t (id bigint PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	srv.Advance(time.Minute)
	deletedAt := srv.Now()
	if err := c.Keyspaces.Delete(ctx, ksRef(srv, "main", "orders")); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if _, err := c.Keyspaces.Get(ctx, ksRef(srv, "main", "orders")); !errors.Is(err, platform.ErrNotFound) {
		t.Errorf("Get after Delete: got %v, want ErrNotFound", err)
	}
	if diff := cmp.Diff([]string{ksDB, "users"}, ksNames(ksAll(t, srv, c, "main"))); diff != "" {
		t.Errorf("keyspaces after Delete (-want +got):\n%s", diff)
	}
	schema, err := c.Branches.GetSchema(ctx, &platform.GetBranchSchemaParams{Organization: srv.Org(), Database: ksDB, Branch: "main"})
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for _, tbl := range schema.Tables {
		tables = append(tables, tbl.Name)
	}
	if diff := cmp.Diff([]string{"t", "accounts"}, tables); diff != "" {
		t.Errorf("schema tables after deleting orders (-want +got):\n%s", diff)
	}
	if _, err := c.Branches.GetSchema(ctx, &platform.GetBranchSchemaParams{Organization: srv.Org(), Database: ksDB, Branch: "main", Keyspace: "orders"}); !errors.Is(err, platform.ErrNotFound) {
		t.Errorf("schema of the deleted keyspace: got %v, want ErrNotFound", err)
	}
	b, err := c.Branches.Get(ctx, &platform.GetBranchParams{Organization: srv.Org(), Database: ksDB, Branch: "main"})
	if err != nil {
		t.Fatal(err)
	}
	if b.SchemaLastUpdatedAt == nil || !b.SchemaLastUpdatedAt.Equal(deletedAt) || b.KeyspaceCount != 2 {
		t.Errorf("branch after Delete: schema_last_updated_at %v, keyspace_count %d; want %v, 2", b.SchemaLastUpdatedAt, b.KeyspaceCount, deletedAt)
	}
	// The name is free again.
	ksCreate(t, srv, c, "main", platform.CreateKeyspaceParams{Name: "orders", ClusterSize: "PS_10"})
}

func TestKeyspaceDeletePending(t *testing.T) {
	t.Parallel()
	srv, c := newKeyspaceServer(t)
	ksCreate(t, srv, c, "main", platform.CreateKeyspaceParams{Name: "orders", ClusterSize: "PS_10"})
	if err := c.Keyspaces.Delete(t.Context(), ksRef(srv, "main", "orders")); err != nil {
		t.Fatalf("deleting a pending keyspace: %v", err)
	}
	// A new keyspace of the same name is not made ready by the old one's
	// timer.
	srv.Advance(3 * time.Second)
	ksCreate(t, srv, c, "main", platform.CreateKeyspaceParams{Name: "orders", ClusterSize: "PS_10"})
	srv.Advance(2 * time.Second)
	if ksGet(t, srv, c, "main", "orders").Ready {
		t.Error("the deleted keyspace's provisioning made its successor ready early")
	}
	srv.Advance(3 * time.Second)
	if !ksGet(t, srv, c, "main", "orders").Ready {
		t.Error("the new keyspace is not ready after 5 s")
	}
}

func TestKeyspaceList(t *testing.T) {
	t.Parallel()
	srv, c := newKeyspaceServer(t)
	for _, name := range []string{"a", "b", "c", "d"} {
		ksCreate(t, srv, c, "main", platform.CreateKeyspaceParams{Name: name, ClusterSize: "PS_10"})
		srv.Advance(time.Second)
	}
	var pages [][]string
	for n := 1; n <= 3; n++ {
		page, err := c.Keyspaces.List(t.Context(), &platform.ListKeyspacesParams{
			Organization: srv.Org(), Database: ksDB, Branch: "main", ListParams: platform.ListParams{Page: n, PerPage: 2},
		})
		if err != nil {
			t.Fatal(err)
		}
		if page.TotalCount != nil {
			t.Errorf("page %d has total_count; the keyspace list reports none", n)
		}
		if page.HasNext() != (n < 3) {
			t.Errorf("page %d: next_page %v", n, page.NextPage)
		}
		pages = append(pages, ksNames(page.Items))
	}
	if diff := cmp.Diff([][]string{{ksDB, "a"}, {"b", "c"}, {"d"}}, pages); diff != "" {
		t.Errorf("pages (-want +got):\n%s", diff)
	}
}

func TestKeyspacePermissions(t *testing.T) {
	t.Parallel()
	srv, c := newKeyspaceServer(t)
	ctx := t.Context()
	ksCreate(t, srv, c, "main", platform.CreateKeyspaceParams{Name: "orders", ClusterSize: "PS_10"})
	srv.Advance(5 * time.Second)
	reader, err := srv.CreateServiceToken(srv.Org(), fake.TokenSpec{Name: "reader", DatabasePermissions: map[string][]platform.Permission{ksDB: {"read_branch"}}})
	if err != nil {
		t.Fatal(err)
	}
	outsider, err := srv.CreateServiceToken(srv.Org(), fake.TokenSpec{Name: "outsider", DatabasePermissions: map[string][]platform.Permission{ksDB: {"read_database"}}})
	if err != nil {
		t.Fatal(err)
	}
	before := ksAll(t, srv, c, "main")
	calls := []struct {
		name string
		call func(c *platform.Client) error
	}{
		{"list", func(c *platform.Client) error {
			_, err := c.Keyspaces.List(ctx, &platform.ListKeyspacesParams{Organization: srv.Org(), Database: ksDB, Branch: "main"})
			return err
		}},
		{"get", func(c *platform.Client) error {
			_, err := c.Keyspaces.Get(ctx, ksRef(srv, "main", "orders"))
			return err
		}},
		{"create", func(c *platform.Client) error {
			_, err := c.Keyspaces.Create(ctx, &platform.CreateKeyspaceParams{Organization: srv.Org(), Database: ksDB, Branch: "main", Name: "users", ClusterSize: "PS_10"})
			return err
		}},
		{"update", func(c *platform.Client) error {
			_, err := c.Keyspaces.Update(ctx, &platform.UpdateKeyspaceParams{Organization: srv.Org(), Database: ksDB, Branch: "main", Keyspace: "orders", NodeTTLStrategy: platform.Ptr(platform.NodeTTLOff)})
			return err
		}},
		{"update with an unknown field", func(c *platform.Client) error {
			req, err := c.NewRequest(ctx, "PATCH", "v1/organizations/"+srv.Org()+"/databases/"+ksDB+"/branches/main/keyspaces/orders", map[string]any{"shards": 2})
			if err != nil {
				return err
			}
			_, err = c.Do(req, nil)
			return err
		}},
		{"delete", func(c *platform.Client) error { return c.Keyspaces.Delete(ctx, ksRef(srv, "main", "orders")) }},
	}
	allowed := map[string]map[string]bool{
		"reader":   {"list": true, "get": true},
		"outsider": {},
	}
	for _, tok := range []struct {
		name string
		tok  fake.Token
	}{{"reader", reader}, {"outsider", outsider}} {
		client := srv.ClientFor(tok.tok)
		for _, call := range calls {
			err := call.call(client)
			if allowed[tok.name][call.name] {
				if err != nil {
					t.Errorf("%s may %s: got %v", tok.name, call.name, err)
				}
				continue
			}
			if !errors.Is(err, platform.ErrNotFound) {
				t.Errorf("%s may not %s: got %v, want ErrNotFound", tok.name, call.name, err)
			}
		}
	}
	srv.Advance(time.Minute)
	if diff := cmp.Diff(before, ksAll(t, srv, c, "main")); diff != "" {
		t.Errorf("keyspaces changed (-before +after):\n%s", diff)
	}
}

func TestKeyspaceFailNext(t *testing.T) {
	t.Parallel()
	t.Run("provisioning fails", func(t *testing.T) {
		t.Parallel()
		srv, c := newKeyspaceServer(t)
		ks := ksCreate(t, srv, c, "main", platform.CreateKeyspaceParams{Name: "orders", ClusterSize: "PS_10"})
		if err := srv.FailNext(ks.ID); err != nil {
			t.Fatal(err)
		}
		srv.Advance(5 * time.Second)
		if _, err := c.Keyspaces.Get(t.Context(), ksRef(srv, "main", "orders")); !errors.Is(err, platform.ErrNotFound) {
			t.Errorf("Get of a keyspace that failed to provision: got %v, want ErrNotFound", err)
		}
		if err := srv.FailNext(ks.ID); err == nil {
			t.Error("FailNext accepted a keyspace that is gone")
		}
	})
	t.Run("settings change fails", func(t *testing.T) {
		t.Parallel()
		srv, c := newKeyspaceServer(t)
		before := ksGet(t, srv, c, "main", ksDB)
		if err := srv.FailNext(before.ID); err == nil {
			t.Error("FailNext accepted a settled keyspace")
		}
		for _, s := range []platform.NodeTTLStrategy{platform.NodeTTLOff, platform.NodeTTLAlways} {
			if _, err := c.Keyspaces.Update(t.Context(), &platform.UpdateKeyspaceParams{
				Organization: srv.Org(), Database: ksDB, Branch: "main", Keyspace: ksDB, NodeTTLStrategy: platform.Ptr(s),
			}); err != nil {
				t.Fatal(err)
			}
		}
		if err := srv.FailNext(before.ID); err != nil {
			t.Fatal(err)
		}
		srv.Advance(10 * time.Second)
		after := ksGet(t, srv, c, "main", ksDB)
		if after.ConfigChangeInProgress || after.NodeTTLStrategy != before.NodeTTLStrategy {
			t.Errorf("after a failed change: in progress %v, strategy %s; want the settings from before both changes (%s)",
				after.ConfigChangeInProgress, after.NodeTTLStrategy, before.NodeTTLStrategy)
		}
	})
}

func TestKeyspaceStrictBodies(t *testing.T) {
	t.Parallel()
	// update_keyspace refuses unknown fields either way; strict mode does
	// not change what it accepts.
	srv, _ := newKeyspaceServer(t, fake.WithStrictBodies())
	if status, msg := ksRaw(t, srv, "PATCH", "main/keyspaces/"+ksDB, `{"node_ttl_strategy": "node_ttl_off", "vector_pool_allocation": null}`); status != http.StatusOK {
		t.Errorf("valid settings under WithStrictBodies: %d %s", status, msg)
	}
	if status, msg := ksRaw(t, srv, "PATCH", "main/keyspaces/"+ksDB, `{"name": "x"}`); status != http.StatusBadRequest {
		t.Errorf("unknown field under WithStrictBodies: %d %s, want 400", status, msg)
	}
}
