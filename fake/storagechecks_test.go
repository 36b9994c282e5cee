package fake_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

const gib = int64(1) << 30

// storageOf checks the storage of deploy request n of app.
func (e *drEnv) storageOf(n int) *platform.StorageCheck {
	e.t.Helper()
	p := e.params(n)
	sc, err := e.c.DeployRequests.CheckStorage(e.t.Context(), &p)
	if err != nil {
		e.t.Fatal(err)
	}
	return sc
}

// TestStorageCheck checks deploy requests that alter users (16 KiB by
// default, then sized) on a size whose storage grows, and on a Metal size
// whose storage is fixed.
func TestStorageCheck(t *testing.T) {
	t.Parallel()
	e := newDREnv(t, false)
	e.branch("dev", drChange...) // alters users, creates orders
	dr := e.open(platform.CreateDeployRequestParams{Branch: "dev"})

	// Before the check: the branches' difference; users and audit at
	// 16 KiB each, users needing a copy.
	shard := func(used, capacity, needed int64) map[string]*platform.ShardStorage {
		return map[string]*platform.ShardStorage{"-": {
			Used: used, Capacity: capacity, Remaining: capacity - used,
			PercentageUsed: float64(int64(float64(used)*10000/float64(capacity)+0.5)) / 100,
			StorageNeeded:  needed, HasEnough: capacity-used >= needed,
		}}
	}
	want := &platform.StorageCheck{
		EnoughStorage: true, Upgradeable: true, StorageBytesNeeded: 16 << 10,
		StorageReport: map[string]map[string]*platform.ShardStorage{drDB: shard(32<<10, 10*gib, 16<<10)},
	}
	if diff := cmp.Diff(want, e.storageOf(dr.Number)); diff != "" {
		t.Errorf("pending (-want +got):\n%s", diff)
	}

	// Sized tables: the volume grows in 10 GiB steps to hold them.
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(e.srv.SetTableSize(e.org, drDB, "main", "", "users", 15*gib))
	must(e.srv.SetTableSize(e.org, drDB, "main", drDB, "audit", 2*gib))
	e.takeSteps(dr, toReady)
	want = &platform.StorageCheck{
		EnoughStorage: true, Upgradeable: true, StorageBytesNeeded: 15 * gib,
		StorageReport: map[string]map[string]*platform.ShardStorage{drDB: shard(17*gib, 40*gib, 15*gib)},
	}
	if diff := cmp.Diff(want, e.storageOf(dr.Number)); diff != "" {
		t.Errorf("ready, sized (-want +got):\n%s", diff)
	}

	// On M_160 (118 GiB), a 100 GiB users table has no room for its copy;
	// M_320 has more.
	if err := e.c.BranchChanges.UpdateClusterConfig(t.Context(), &platform.UpdateClusterConfigParams{Organization: e.org, Database: drDB, Branch: "main", ClusterSize: "M_160"}); err != nil {
		t.Fatal(err)
	}
	tm := fake.DefaultTimings()
	e.srv.Advance(tm.BranchChangeStart + tm.BranchChangeRun)
	must(e.srv.SetTableSize(e.org, drDB, "main", "", "users", 100*gib))
	want = &platform.StorageCheck{
		EnoughStorage: false, Upgradeable: true, StorageBytesNeeded: 100 * gib,
		StorageReport: map[string]map[string]*platform.ShardStorage{drDB: shard(102*gib, 118*gib, 100*gib)},
	}
	if diff := cmp.Diff(want, e.storageOf(dr.Number)); diff != "" {
		t.Errorf("M_160 (-want +got):\n%s", diff)
	}
	// M_320 is the largest: nothing to upgrade to.
	if err := e.c.BranchChanges.UpdateClusterConfig(t.Context(), &platform.UpdateClusterConfigParams{Organization: e.org, Database: drDB, Branch: "main", ClusterSize: "M_320"}); err != nil {
		t.Fatal(err)
	}
	e.srv.Advance(tm.BranchChangeStart + tm.BranchChangeRun)
	must(e.srv.SetTableSize(e.org, drDB, "main", "", "users", 200*gib))
	want = &platform.StorageCheck{
		EnoughStorage: false, Upgradeable: false, StorageBytesNeeded: 200 * gib,
		StorageReport: map[string]map[string]*platform.ShardStorage{drDB: shard(202*gib, 237*gib, 200*gib)},
	}
	if diff := cmp.Diff(want, e.storageOf(dr.Number)); diff != "" {
		t.Errorf("M_320 (-want +got):\n%s", diff)
	}

	_, err := e.c.DeployRequests.CheckStorage(t.Context(), &platform.CheckDeployRequestStorageParams{Organization: e.org, Database: drDB, Number: 7})
	apiError(t, err, 404)
}

// TestStorageCheckShardsAndScope: a sharded keyspace's data and needs are
// spread over its shards; only keyspaces the deployment changes are
// reported, and a deployment without alters needs nothing.
func TestStorageCheckShardsAndScope(t *testing.T) {
	t.Parallel()
	e := newDREnv(t, true)
	e.branch("shardy", drShardedChange...)
	e.branch("fresh", "CREATE TABLE `orders` (id bigint NOT NULL, PRIMARY KEY (id))")
	if err := e.srv.SetTableSize(e.org, drDB, "main", "sharded", "events", 3*gib); err != nil {
		t.Fatal(err)
	}
	sharded := e.open(platform.CreateDeployRequestParams{Branch: "shardy"})
	got := e.storageOf(sharded.Number)
	half := 3 * gib / 2
	sh := &platform.ShardStorage{Used: half, Capacity: 10 * gib, Remaining: 10*gib - half, PercentageUsed: 15, StorageNeeded: half, HasEnough: true}
	want := &platform.StorageCheck{
		EnoughStorage: true, Upgradeable: true, StorageBytesNeeded: 3 * gib,
		StorageReport: map[string]map[string]*platform.ShardStorage{"sharded": {"-80": sh, "80-": sh}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sharded (-want +got):\n%s", diff)
	}
	create := e.open(platform.CreateDeployRequestParams{Branch: "fresh"})
	got = e.storageOf(create.Number)
	if got.StorageBytesNeeded != 0 || !got.EnoughStorage || got.StorageReport[drDB]["-"].StorageNeeded != 0 || len(got.StorageReport) != 1 {
		t.Errorf("a create only: %+v", got)
	}
}

func TestSetTableSize(t *testing.T) {
	t.Parallel()
	e := newDREnv(t, false)
	for _, tc := range []struct {
		name                        string
		db, branch, keyspace, table string
		bytes                       int64
		words                       string
	}{
		{"no database", "nope", "main", "", "users", 1, `no database "nope"`},
		{"no branch", drDB, "nope", "", "users", 1, `no branch "nope"`},
		{"no keyspace", drDB, "main", "nope", "users", 1, `keyspace "nope"`},
		{"no table", drDB, "main", "", "nope", 1, `table "nope"`},
		{"a negative size", drDB, "main", "", "users", -1, "negative"},
	} {
		err := e.srv.SetTableSize(e.org, tc.db, tc.branch, tc.keyspace, tc.table, tc.bytes)
		if err == nil || !strings.Contains(err.Error(), tc.words) || !strings.HasPrefix(err.Error(), "fake: SetTableSize: ") {
			t.Errorf("%s: %v, want an error about %s", tc.name, err, tc.words)
		}
	}
	// Over the control surface.
	base := "organizations/" + e.org + "/databases/" + drDB + "/branches/main"
	controlCall(t, e.srv, "PUT", base+"/table-sizes", `{"keyspace": "app", "table": "audit", "bytes": 1024}`, http.StatusNoContent)
	e.branch("audited", "CREATE TABLE `audit` (id bigint NOT NULL, at bigint, PRIMARY KEY (id))")
	audited := e.open(platform.CreateDeployRequestParams{Branch: "audited"})
	if got := e.storageOf(audited.Number).StorageBytesNeeded; got != 1024 {
		t.Errorf("needed %d to alter audit sized 1024 over the control surface", got)
	}

	// A dropped table's size goes with it, even when it is created again
	// by the same push (to main, whose safe migrations are turned off
	// once the deploy request into it has closed).
	e.mustDo("close", audited.Number)
	if err := e.srv.SetTableSize(e.org, drDB, "main", "", "users", 5*gib); err != nil {
		t.Fatal(err)
	}
	main := &platform.DisableSafeMigrationsParams{Organization: e.org, Database: drDB, Branch: "main"}
	if _, err := e.c.Branches.DisableSafeMigrations(t.Context(), main); err != nil {
		t.Fatal(err)
	}
	if err := e.srv.PushSchema(e.org, drDB, "main", "DROP TABLE users", drBase[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.Branches.EnableSafeMigrations(t.Context(), main); err != nil {
		t.Fatal(err)
	}
	e.branch("dev", drChange...)
	dr := e.open(platform.CreateDeployRequestParams{Branch: "dev"})
	if got := e.storageOf(dr.Number).StorageBytesNeeded; got != 16<<10 {
		t.Errorf("needed %d after users was dropped and created again, want the default 16 KiB", got)
	}
}
