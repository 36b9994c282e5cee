package fake_test

import (
	"context"
	"testing"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// BenchmarkKeyspaceResizeReads serves the rollout status of a keyspace of
// one shard and of 256 shards halfway through a resize, and a page of 25
// of a keyspace's 100 resize requests, with get_keyspace as the baseline.
// The rollout is derived from the clock on each request, so its cost is
// O(shards); the list is cut from the keyspace's index.
func BenchmarkKeyspaceResizeReads(b *testing.B) {
	srv := fake.NewServer(b)
	c, ctx, org := srv.Client(), context.Background(), srv.Org()
	if _, err := c.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: org, Name: "app", ClusterSize: "PS_10"}); err != nil {
		b.Fatal(err)
	}
	tm := fake.DefaultTimings()
	srv.Advance(tm.DatabaseReady)
	if err := srv.AddKeyspace(org, "app", "main", "big", 256); err != nil {
		b.Fatal(err)
	}
	resize := func(ks string, extra int) {
		p := &platform.ResizeKeyspaceParams{Organization: org, Database: "app", Branch: "main", Keyspace: ks, ExtraReplicas: platform.Ptr(extra)}
		if _, err := c.Keyspaces.Resize(ctx, p); err != nil {
			b.Fatal(err)
		}
	}
	for i := range 100 {
		resize("app", 1+i%2)
		srv.Advance(tm.KeyspaceResizeQueued + tm.KeyspaceResizeShard)
	}
	resize("big", 1)
	srv.Advance(tm.KeyspaceResizeQueued + 128*tm.KeyspaceResizeShard)
	auth := srv.AdminToken().Authorization()
	const ks = "/v1/organizations/acme/databases/app/branches/main/keyspaces/"
	for _, bc := range []struct{ name, target string }{
		{"baseline_get_keyspace", ks + "app"},
		{"rollout_1_shard", ks + "app/rollout-status"},
		{"rollout_256_shards", ks + "big/rollout-status"},
		{"list_resizes_25_of_100", ks + "app/resizes?page=2"},
	} {
		b.Run(bc.name, func(b *testing.B) { benchServe(b, srv, auth, bc.target) })
	}
}
