package fake_test

import (
	"maps"
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
		{"operation without a shard", ops(setField("shard", "")), ": keyspace, shard and alias are required"},
		{"operation to a negative target", ops(setField("target", -1)), "vitess.operations[0]: target: must not be negative, got -1"},
		{"operation on a shard its keyspace has not", ops(setField("shard", "-80")), `shard "-80" is not a shard of keyspace app`},
		{"two operations running on a shard", ops(twiceWithID("id")), "both in progress"},
		{"operation step of a settled state", stepFrom(t, good, "vitess_operation.step", "completed"), `does not leave state "completed"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			wantRestoreRefused(t, tt.data, tt.want)
		})
	}
}

// vitessControlWorld returns the snapshot of newVDiffEnv's world (main of
// app with the keyspace archive of two shards and the MoveTables workflow
// mv into it) where differences of archive's audit are arranged, a VDiff
// of audit on replicas is running on both shards, archive is routed to
// app, app's throttler has a threshold, a rule for online-ddl with the
// metrics it checks, a replica of app lags 3 s, and the PostgreSQL
// database pg is ready. Its first branch is app's main.
func vitessControlWorld(t *testing.T) []byte {
	t.Helper()
	e := newVDiffEnv(t)
	ctx, org := t.Context(), e.org
	if _, err := e.c.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: org, Name: "pg", ClusterSize: "PS_10", Kind: platform.KindPostgreSQL}); err != nil {
		t.Fatal(err)
	}
	if err := e.srv.SetVDiffDifferences(org, drDB, "main", "archive", "audit", fake.VDiffDifferences{Mismatched: []string{"5"}}); err != nil {
		t.Fatal(err)
	}
	e.create(platform.CreateVDiffParams{Tables: []string{"audit"}, TabletTypes: []string{"replica"}})
	e.srv.Advance(4 * time.Second)
	if _, err := e.c.Vitess.ApplyKeyspaceRoutingRules(ctx, &platform.ApplyKeyspaceRoutingRulesParams{
		Organization: org, Database: drDB, Branch: "main", Rules: []platform.KeyspaceRoutingRule{{FromKeyspace: "archive", ToKeyspace: drDB}},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.Vitess.UpdateThrottlerConfig(ctx, &platform.UpdateThrottlerConfigParams{
		Organization: org, Database: drDB, Branch: "main", Keyspace: drDB, Threshold: platform.Ptr(2.0),
		Apps:              []platform.ThrottledAppConfig{{Name: "online-ddl", Ratio: platform.Ptr(0.5), ExpireAt: e.srv.Now().Add(time.Hour).Format(time.RFC3339)}},
		AppCheckedMetrics: map[string][]string{"online-ddl": {"lag"}},
	}); err != nil {
		t.Fatal(err)
	}
	gs, err := e.c.Vitess.ListTablets(ctx, &platform.ListTabletsParams{Organization: org, Database: drDB, Branch: "main", Keyspace: drDB, TabletType: platform.TabletReplica})
	if err != nil || len(gs) == 0 {
		t.Fatalf("the replicas of app: %v, %v", gs, err)
	}
	if err := e.srv.SetThrottlerMetric(org, drDB, "main", gs[0].Tablets[0].Alias, "lag", 3); err != nil {
		t.Fatal(err)
	}
	data, err := e.srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestRestoreRefusesBadVitessControl checks that a snapshot whose routing
// rules, throttlers, tablet metrics, VDiffs or arranged differences of a
// branch the API could not have made is refused at the path of the field,
// and changes nothing.
func TestRestoreRefusesBadVitessControl(t *testing.T) {
	t.Parallel()
	good := vitessControlWorld(t)
	if err := fake.NewServer(t).Restore(good); err != nil {
		t.Fatalf("the world does not restore: %v", err)
	}
	// A refusal made where the branch is loaded names the path below the
	// branch after the branch's ID.
	var mainID, pgMainID string
	snapshotEdit(t, good, func(m map[string]any) {
		mainID, pgMainID = snapshotRecord(m, "branches", 0)["id"].(string), refusalDoc{m}.branch("pg", "main")["id"].(string)
	})
	v, vb := "branches[0].vitess.", "branches[0]: branch "+mainID+": vitess."
	vitess := func(m map[string]any) map[string]any { return snapshotRecord(m, "branches", 0, "vitess") }
	first := func(m map[string]any, key string) map[string]any { return vitess(m)[key].([]any)[0].(map[string]any) }
	again := func(m map[string]any, key string, set map[string]any) map[string]any {
		c := maps.Clone(first(m, key))
		maps.Copy(c, set)
		vitess(m)[key] = append(vitess(m)[key].([]any), c)
		return c
	}
	throttler := func(m map[string]any) map[string]any { return first(m, "throttlers") }
	app := func(m map[string]any) map[string]any { return throttler(m)["apps"].([]any)[0].(map[string]any) }
	vdiff := func(m map[string]any) map[string]any { return first(m, "vdiffs") }
	shard := func(m map[string]any, i int) map[string]any { return vdiff(m)["shards"].([]any)[i].(map[string]any) }
	table := func(m map[string]any) map[string]any { return shard(m, 0)["tables"].([]any)[0].(map[string]any) }
	options := func(m map[string]any) map[string]any { return vdiff(m)["options"].(map[string]any) }
	step := func(m map[string]any) map[string]any {
		for _, js := range m["transitions"].([]any) {
			if js := js.(map[string]any); js["kind"] == "vdiff.step" {
				return js
			}
		}
		t.Fatal("no vdiff.step transition")
		return nil
	}
	for _, tt := range []struct {
		name string
		edit func(m map[string]any)
		want string
	}{
		{"topology on a PostgreSQL branch", func(m map[string]any) {
			d := refusalDoc{m}
			d.branch("pg", "main")["vitess"] = map[string]any{"shards": []any{}, "operations": []any{}}
		}, ": vitess: branch " + pgMainID + " is of a postgresql database"},
		{"a null workflow", func(m map[string]any) { vitess(m)["workflows"] = []any{nil} }, vb + "workflows[0] is null"},
		{"a rule from no keyspace name", func(m map[string]any) { first(m, "keyspace_routing_rules")["from_keyspace"] = "" },
			v + "keyspace_routing_rules[0].from_keyspace: must not be empty"},
		{"a rule to no keyspace name", func(m map[string]any) { first(m, "keyspace_routing_rules")["to_keyspace"] = "a/b" },
			v + `keyspace_routing_rules[0].to_keyspace: must not contain "/"`},
		{"a keyspace routed twice", func(m map[string]any) { again(m, "keyspace_routing_rules", map[string]any{"to_keyspace": "other"}) },
			vb + "keyspace_routing_rules[1]: keyspace archive is routed twice"},
		{"a throttler of no keyspace", func(m map[string]any) { throttler(m)["keyspace"] = "nokeyspace" },
			v + `throttlers[0]: keyspace "nokeyspace" is not a keyspace of branch`},
		{"a keyspace's throttler twice", func(m map[string]any) { again(m, "throttlers", nil) }, v + "throttlers[1]: keyspace "},
		{"a negative threshold", func(m map[string]any) { throttler(m)["threshold"] = -1 }, v + "throttlers[0]: threshold -1 must be at least 0"},
		{"an app with no name", func(m map[string]any) { app(m)["name"] = "" }, v + "throttlers[0]: apps[0]: name must not be empty"},
		{"an app twice", func(m map[string]any) {
			throttler(m)["apps"] = append(throttler(m)["apps"].([]any), app(m))
		}, v + "throttlers[0]: apps[1]: app online-ddl appears twice"},
		{"a ratio above 1", func(m map[string]any) { app(m)["ratio"] = 2 }, v + "throttlers[0]: apps[0]: ratio 2 must be from 0 to 1"},
		{"checked metrics of no app", func(m map[string]any) { throttler(m)["app_checked_metrics"] = map[string]any{"": []any{"lag"}} },
			v + `throttlers[0]: app_checked_metrics: app "" needs a name and metrics`},
		{"an app checking no metric", func(m map[string]any) { throttler(m)["app_checked_metrics"] = map[string]any{"online-ddl": []any{}} },
			v + `throttlers[0]: app_checked_metrics: app "online-ddl" needs a name and metrics`},
		{"an app checking a metric the throttler has not", func(m map[string]any) {
			throttler(m)["app_checked_metrics"] = map[string]any{"online-ddl": []any{"lag", "joy"}}
		}, v + `throttlers[0]: app_checked_metrics.online-ddl[1]: "joy" is not a metric`},
		{"a metric of no keyspace", func(m map[string]any) { first(m, "tablet_metrics")["keyspace"] = "nokeyspace" },
			vb + `tablet_metrics[0]: keyspace "nokeyspace" is not a keyspace of branch`},
		{"a metric of no shard", func(m map[string]any) { first(m, "tablet_metrics")["shard"] = "-80" },
			vb + `tablet_metrics[0]: shard "-80" is not a shard of keyspace app`},
		{"a metric of a negative tablet", func(m map[string]any) { first(m, "tablet_metrics")["tablet"] = -1 },
			vb + "tablet_metrics[0]: tablet -1 is negative"},
		{"a metric the throttler has not", func(m map[string]any) { first(m, "tablet_metrics")["metric"] = "joy" },
			vb + `tablet_metrics[0]: metric "joy" is not `},
		{"a metric of 0, which is left out", func(m map[string]any) { first(m, "tablet_metrics")["value"] = 0 },
			vb + "tablet_metrics[0]: value 0 must be above 0"},
		{"a negative metric", func(m map[string]any) { first(m, "tablet_metrics")["value"] = -2 },
			vb + "tablet_metrics[0]: value -2 must be above 0"},
		{"a metric twice", func(m map[string]any) { again(m, "tablet_metrics", map[string]any{"value": 4}) },
			vb + "tablet_metrics[1]: metric lag of tablet 1 of app/- appears twice"},
		{"a negative VDiff sequence", func(m map[string]any) { vitess(m)["vdiff_seq"] = -1 }, v + "vdiff_seq: "},
		{"two VDiffs with one ID", func(m map[string]any) {
			vitess(m)["vdiff_seq"] = 2
			again(m, "vdiffs", map[string]any{"seq": 2})
		}, v + "vdiffs[1].id: ID "},
		{"a VDiff numbered 0", func(m map[string]any) { vdiff(m)["seq"] = 0 }, v + "vdiffs[0]: seq 0 is not from 1 to vdiff_seq 1"},
		{"a VDiff numbered past the sequence", func(m map[string]any) { vdiff(m)["seq"] = 2 }, v + "vdiffs[0]: seq 2 is not from 1 to vdiff_seq 1"},
		{"two VDiffs numbered alike", func(m map[string]any) {
			vitess(m)["vdiff_seq"] = 2
			again(m, "vdiffs", map[string]any{"id": "2c9c3b1e-6a4f-4b8e-9d1a-0f6e1c2b3a4d"})
		}, v + "vdiffs[1]: seq 1 appears twice"},
		{"a negative limit", func(m map[string]any) { options(m)["limit"] = -1 }, v + "vdiffs[0]: options: a negative count"},
		{"a tablet selection the API has not", func(m map[string]any) { options(m)["tablet_selection_preference"] = "best" },
			v + `vdiffs[0]: options: tablet_selection_preference "best" is not any or inorder`},
		{"a tablet type the API has not", func(m map[string]any) { options(m)["tablet_types"] = []any{"replica", "spare"} },
			v + `vdiffs[0]: options: tablet_types[1] "spare" is not a tablet type`},
		{"a table of the options not of the workflow", func(m map[string]any) { options(m)["tables"] = []any{"audit", "orders"} },
			v + "vdiffs[0]: options.tables[1]: orders is not a table of workflow mv"},
		{"a VDiff of no shard", func(m map[string]any) { vdiff(m)["shards"] = []any{} }, v + "vdiffs[0]: no shards"},
		{"a shard state the API has not", func(m map[string]any) { shard(m, 0)["state"] = "exploded" }, v + `vdiffs[0].shards[0]: "exploded" is not state`},
		{"a shard twice", func(m map[string]any) { shard(m, 1)["name"] = shard(m, 0)["name"] },
			v + "vdiffs[0]: shards[1]: shard -80 appears twice"},
		{"a table with no name", func(m map[string]any) { table(m)["name"] = "" }, v + "vdiffs[0].shards[0].tables[0].name: must not be empty"},
		{"a table of negative rows", func(m map[string]any) { table(m)["rows"] = -1 }, v + "vdiffs[0].shards[0].tables[0].rows: "},
		{"a table's difference of no row", func(m map[string]any) {
			table(m)["differences"] = map[string]any{"extra_source": []any{" "}}
		}, v + "vdiffs[0].shards[0]: tables[0]: extra_source[0] is empty"},
		{"a table twice", func(m map[string]any) {
			shard(m, 0)["tables"] = append(shard(m, 0)["tables"].([]any), table(m))
		}, v + "vdiffs[0].shards[0]: tables[1]: audit is out of name order"},
		{"tables of a shard not begun", func(m map[string]any) { shard(m, 0)["begun"], shard(m, 0)["state"] = false, "pending" },
			v + "vdiffs[0].shards[0]: tables of a shard that has not begun"},
		{"a started shard not begun", func(m map[string]any) { shard(m, 0)["begun"], shard(m, 0)["tables"] = false, nil },
			v + "vdiffs[0].shards[0]: a started shard that has not begun"},
		{"more rows compared than the shard has", func(m map[string]any) { shard(m, 0)["compared"] = 1001 },
			v + "vdiffs[0].shards[0]: compared 1001 is not from 0 to its 1000 rows"},
		{"a negative count of rows compared", func(m map[string]any) { shard(m, 0)["compared"] = -1 },
			v + "vdiffs[0].shards[0]: compared -1 is not from 0 to its 1000 rows"},
		{"an error without its message", func(m map[string]any) { shard(m, 0)["state"] = "error" },
			v + `vdiffs[0].shards[0]: state error with last_error ""`},
		{"a message without an error", func(m map[string]any) { shard(m, 0)["last_error"] = "boom" },
			v + `vdiffs[0].shards[0]: state started with last_error "boom"`},
		{"a completed shard never done", func(m map[string]any) { shard(m, 0)["state"] = "completed" },
			v + "vdiffs[0].shards[0]: state completed with done "},
		{"a completed shard with rows left", func(m map[string]any) {
			shard(m, 0)["state"], shard(m, 0)["done"] = "completed", "2026-01-01T00:01:16Z"
		}, v + "vdiffs[0].shards[0]: completed with 0 of 1000 rows compared"},
		{"a VDiff of no keyspace", func(m map[string]any) { vdiff(m)["target_keyspace"] = "nokeyspace" },
			v + `vdiffs[0]: target_keyspace "nokeyspace" is not a keyspace of branch`},
		{"a VDiff of no workflow", func(m map[string]any) { vdiff(m)["workflow"] = "nowf" },
			v + `vdiffs[0]: keyspace archive has no workflow "nowf"`},
		{"a VDiff of fewer shards than its workflow", func(m map[string]any) {
			vdiff(m)["shards"] = vdiff(m)["shards"].([]any)[:1]
		}, v + "vdiffs[0]: 1 shards; workflow mv has 2 target shards"},
		{"a VDiff of a shard its workflow has not", func(m map[string]any) { shard(m, 1)["name"] = "-40" },
			v + `vdiffs[0]: shards[1]: "-40" is not a target shard of workflow mv`},
		{"a VDiff of a table its workflow has not", func(m map[string]any) { table(m)["name"] = "orders" },
			v + "vdiffs[0]: shards[0]: table orders is not a table of workflow mv"},
		{"differences of no keyspace", func(m map[string]any) { first(m, "vdiff_differences")["keyspace"] = "nokeyspace" },
			vb + `vdiff_differences[0]: keyspace "nokeyspace" is not a keyspace of branch`},
		{"differences of a table twice", func(m map[string]any) { again(m, "vdiff_differences", nil) },
			vb + "vdiff_differences[1]: table audit appears twice"},
		{"differences of no row", func(m map[string]any) { first(m, "vdiff_differences")["mismatched"] = nil },
			vb + "vdiff_differences[0]: no rows (none are left out)"},
		{"a difference named twice", func(m map[string]any) { first(m, "vdiff_differences")["mismatched"] = []any{"5", "5"} },
			vb + `vdiff_differences[0]: mismatched[1] "5" is named twice`},
		{"a VDiff step of no VDiff", func(m map[string]any) { step(m)["id"] = "novdiff" }, `"novdiff"`},
		{"a VDiff step of no shard", func(m map[string]any) { step(m)["step"] = "-40" }, `has no shard "-40"`},
		{"a VDiff step of another generation", func(m map[string]any) { step(m)["gen"] = 7 }, "is at generation 1, not 7"},
		{"a VDiff step of a stopped shard", func(m map[string]any) {
			for i := range 2 {
				shard(m, i)["state"] = "stopped"
			}
		}, "is stopped: no transition leaves it on the clock"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			wantRestoreRefused(t, snapshotEdit(t, good, tt.edit), tt.want)
		})
	}
}
