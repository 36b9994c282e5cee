package fake_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// TestRestoredEmptyMapsTakeWrites restores records whose map a snapshot
// leaves out when it is empty (omitempty), then makes the request that
// adds to that map, on the server snapshotted and on its restored twin:
// both answer alike, never a 5xx, and their worlds stay the same, also
// once the clock has run what the request scheduled.
func TestRestoredEmptyMapsTakeWrites(t *testing.T) {
	t.Parallel()
	const db = "/v1/organizations/acme/databases/"
	pg := func(t *testing.T, srv *fake.Server) {
		t.Helper()
		if _, err := srv.Client().Databases.Create(t.Context(), &platform.CreateDatabaseParams{
			Organization: srv.Org(), Name: "pg", ClusterSize: "PS_10", Kind: platform.KindPostgreSQL,
		}); err != nil {
			t.Fatal(err)
		}
		srv.Advance(time.Hour)
	}
	tests := []struct {
		name  string
		setup func(t *testing.T, srv *fake.Server)
		// method, path and body of the write
		method, path, body string
	}{
		{
			// A queued change's parameters (before and after), and the
			// branch's, which its completion sets.
			name: "queued change without parameters",
			setup: func(t *testing.T, srv *fake.Server) {
				pg(t, srv)
				wantStatus(t, send(t, srv, http.MethodPatch, db+"pg/branches/main/changes", admin(srv), `{"cluster_size":"PS_20"}`), http.StatusOK)
			},
			method: http.MethodPatch, path: db + "pg/branches/main/changes",
			body: `{"parameters":{"pgconf":{"max_connections":"200"}}}`,
		},
		{
			name: "bouncer without parameters",
			setup: func(t *testing.T, srv *fake.Server) {
				pg(t, srv)
				wantStatus(t, send(t, srv, http.MethodPost, db+"pg/branches/main/bouncers", admin(srv), `{"name":"pool","bouncer_size":"PGB_10","replicas_per_cell":2}`), http.StatusOK)
				srv.Advance(time.Hour)
			},
			method: http.MethodPatch, path: db + "pg/branches/main/bouncers/pool/resizes",
			body: `{"bouncer_size":"PGB_20","parameters":{"pgbouncer":{"default_pool_size":"50"}}}`,
		},
		{
			name: "throttler without app metrics",
			setup: func(t *testing.T, srv *fake.Server) {
				mustDB(t, srv, "app")
				srv.Advance(time.Hour)
				wantStatus(t, send(t, srv, http.MethodPut, db+"app/branches/main/vtctld/throttler/config", admin(srv), `{"keyspace":"app","enabled":true,"threshold":2.5}`), http.StatusOK)
			},
			method: http.MethodPut, path: db + "app/branches/main/vtctld/throttler/config",
			body: `{"keyspace":"app","app_checked_metrics":{"vreplication":["lag"]}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := fake.NewServer(t)
			tt.setup(t, srv)
			twin := restoredTwin(t, srv)
			orig, got := send(t, srv, tt.method, tt.path, admin(srv), tt.body), send(t, twin, tt.method, tt.path, admin(twin), tt.body)
			if orig.status >= 500 || got.status != orig.status {
				t.Fatalf("%s %s: %d on the server snapshotted, %d on its twin: %s", tt.method, tt.path, orig.status, got.status, got.body)
			}
			sameSnapshots(t, srv, twin, "after the write")
			srv.Advance(time.Hour)
			twin.Advance(time.Hour)
			sameSnapshots(t, srv, twin, "once the clock ran")
		})
	}
}

// TestRestoreRewoundGeneratorSkipsIDsInUse restores a snapshot whose ID
// generator was set back to a fresh server's state, which issued the IDs
// of the snapshot's first records: the records made afterwards get IDs of
// their own, and the next snapshot restores.
func TestRestoreRewoundGeneratorSkipsIDsInUse(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	alice := srv.CreateUser("Alice", "alice@example.com")
	mustDB(t, srv, "app")
	srv.Advance(time.Hour)
	data, err := srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := fake.NewServer(t).Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	var rng map[string]any
	if err := json.Unmarshal(fresh, &rng); err != nil {
		t.Fatal(err)
	}
	rewound := snapshotEdit(t, data, func(m map[string]any) { m["rng"] = rng["rng"] })
	held := map[string]bool{}
	for _, id := range regexp.MustCompile(`"([a-z0-9]{12})"`).FindAllSubmatch(data, -1) {
		held[string(id[1])] = true
	}
	if !held[alice] {
		t.Fatalf("Alice's ID %s is not among the snapshot's", alice)
	}
	twin := fake.NewServer(t)
	if err := twin.Restore(rewound); err != nil {
		t.Fatal(err)
	}
	var made []string
	for i := range 5 {
		made = append(made, twin.CreateUser("Mallory", "m@example.com"), mustDB(t, twin, fmt.Sprintf("new-%d", i)).ID)
	}
	for _, id := range made {
		if held[id] {
			t.Errorf("a new record took ID %s, which the snapshot's records hold", id)
		}
	}
	again, err := twin.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if err := fake.NewServer(t).Restore(again); err != nil {
		t.Errorf("the next snapshot is refused: %v", err)
	}
}
