package fake_test

import (
	"testing"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// TestRestoreRefusesBadTopology checks that a snapshot whose topology
// state of a branch cannot be is refused, saying why, and changes nothing.
func TestRestoreRefusesBadTopology(t *testing.T) {
	t.Parallel()
	e := newVitessEnv(t)
	ctx := t.Context()
	if _, err := e.c.Vitess.SetShardTabletControl(ctx, &platform.SetShardTabletControlParams{
		Organization: e.srv.Org(), Database: "app", Branch: "main", Keyspace: "app", Shard: "-", TabletType: platform.TabletRDOnly, DeniedTables: []string{"t"},
	}); err != nil {
		t.Fatal(err)
	}
	replica := e.tablets(&platform.ListTabletsParams{Keyspace: "app", TabletType: platform.TabletReplica})[0].Tablets[0].Alias
	if _, err := e.c.Vitess.CreatePlannedReparent(ctx, &platform.CreatePlannedReparentParams{Organization: e.srv.Org(), Database: "app", Branch: "main", Keyspace: "app", Shard: "-", NewPrimary: replica}); err != nil {
		t.Fatal(err)
	}
	good, err := e.srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	// The good snapshot restores, the reparent still running on the clock.
	again := fake.NewServer(t)
	if err := again.Restore(good); err != nil {
		t.Fatal(err)
	}
	again.Advance(time.Minute)
	if s, err := again.Client().Vitess.GetShard(ctx, &platform.GetShardParams{Organization: again.Org(), Database: "app", Branch: "main", Keyspace: "app", Shard: "-"}); err != nil || s.Primary.String() != replica || len(s.TabletControls) != 1 {
		t.Fatalf("restored shard after the reparent: %+v, %v", s, err)
	}
	shards := func(fn func(map[string]any, []any) []any) []byte {
		return editSnapshot(t, good, fn, "branches", "vitess", "shards")
	}
	ops := func(fn func(map[string]any, []any) []any) []byte {
		return editSnapshot(t, good, fn, "branches", "vitess", "operations")
	}
	controls := func(fn func(map[string]any, []any) []any) []byte {
		return editSnapshot(t, good, fn, "branches", "vitess", "shards", "tablet_controls")
	}
	dup := func(rec map[string]any, recs []any) []any { return append(recs, rec) }
	for _, tt := range []struct {
		name string
		data []byte
		want string
	}{
		{"shard of no keyspace", shards(setField("keyspace", "nokeyspace")), `keyspace "nokeyspace" is not a keyspace`},
		{"shard not of its keyspace", shards(setField("shard", "-80")), `shard "-80" is not a shard`},
		{"primary past the replicas", shards(setField("primary", 9)), "primary 9"},
		{"negative primary", shards(setField("primary", -1)), "primary -1"},
		{"a shard twice", shards(dup), "appears twice"},
		{"control of an unknown type", controls(setField("tablet_type", "spare")), "tablet_type"},
		{"control of an unknown cell", controls(setField("cells", []any{"mars"})), `"mars" is not a cell`},
		{"control doing nothing", controls(setField("denied_tables", []any{})), "nothing to do"},
		{"two controls of a type", controls(dup), "a second control"},
		{"operation of an unknown action", ops(setField("action", "explode")), "action"},
		{"operation of an unknown state", ops(setField("state", "exploded")), "state"},
		{"operation without a keyspace name", ops(setField("keyspace_name", "")), "keyspace_name"},
		{"operation to the primary's place", ops(setField("target", 0)), "target 0 is not a replica"},
		{"two operations running on a shard", ops(twiceWithID("id")), "both in progress"},
		{"operation step of a settled state", stepFrom(t, good, "vitess_operation.step", "completed"), `does not leave state "completed"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			wantRestoreRefused(t, tt.data, tt.want)
		})
	}
}
