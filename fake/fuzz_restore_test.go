package fake_test

import (
	"bytes"
	"flag"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/dbplatform/platform-go/fake"
	"github.com/google/go-cmp/cmp"
)

var updateRestoreSeeds = flag.Bool("update-restore-seeds", false, "write the snapshots of testdata/restore that FuzzRestore starts from")

// restoreSeedDir holds snapshots of seeded worlds, FuzzRestore's seeds.
const restoreSeedDir = "testdata/restore"

// TestRestoreSeedSnapshots checks that the snapshots FuzzRestore starts
// from (rich.json: richWorld's, most record kinds in it; small.json:
// retrySnapshot's, a database with a webhook retry due, quick to mutate)
// restore and save again to the same bytes: a change of the snapshot's
// format writes them again with -update-restore-seeds.
func TestRestoreSeedSnapshots(t *testing.T) {
	t.Parallel()
	worlds := map[string]func(t *testing.T) []byte{
		"rich.json": func(t *testing.T) []byte {
			data, err := richWorld(t).srv.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			return data
		},
		"small.json": retrySnapshot,
	}
	for name, world := range worlds {
		path := filepath.Join(restoreSeedDir, name)
		if *updateRestoreSeeds {
			// The receiver of its webhook is gone: a port nothing listens on.
			data := regexp.MustCompile(`http://127\.0\.0\.1:[0-9]+`).ReplaceAll(world(t), []byte("http://127.0.0.1:9"))
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		seed, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		srv := fake.NewServer(t)
		if err := srv.Restore(seed); err != nil {
			t.Fatalf("Restore of %s: %v; after a change of the format, run go test -run TestRestoreSeedSnapshots ./fake -update-restore-seeds", path, err)
		}
		if again, err := srv.Snapshot(); err != nil || !bytes.Equal(again, seed) {
			t.Errorf("%s restored saves differently (%v); after a change of the format, run go test -run TestRestoreSeedSnapshots ./fake -update-restore-seeds:\n%s",
				path, err, cmp.Diff(string(seed), string(again)))
		}
	}
}

// FuzzRestore restores any document through PUT /_fake/snapshot, starting
// from real snapshots and crafted ones. A refusal is a 4xx and changes
// nothing; what is accepted saves and restores to the same bytes, and the
// server it gives answers reads, advances and saves without a 5xx or a
// panic.
func FuzzRestore(f *testing.F) {
	seeds, err := filepath.Glob(filepath.Join(restoreSeedDir, "*.json"))
	if err != nil || len(seeds) == 0 {
		f.Fatalf("no seed snapshots in %s (%v)", restoreSeedDir, err)
	}
	for _, path := range seeds {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add(hostileSnapshot("users", "1", 4<<10))
	f.Add(hostileSnapshot("branches", "{}", 4<<10))
	f.Add(hostileSnapshot("transitions", `{"kind":"webhook.retry","seq":1,"delivery":{"attempt":0}}`, 4<<10))
	f.Fuzz(func(t *testing.T, data []byte) {
		t.Parallel() // the seed corpus runs in parallel; fuzzing ignores it
		srv := fake.NewServer(t)
		before, err := srv.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		r := send(t, srv, http.MethodPut, "/_fake/snapshot", admin(srv), string(data))
		if r.status != http.StatusNoContent {
			fuzzCheckAnswer(t, "PUT /_fake/snapshot", 0, r)
			if after, err := srv.Snapshot(); err != nil || !bytes.Equal(before, after) {
				t.Fatalf("a refused snapshot (%d %s) changed the server (%v)", r.status, r.body, err)
			}
			return
		}
		saved, err := srv.Snapshot()
		if err != nil {
			t.Fatalf("the snapshot of an accepted snapshot: %v", err)
		}
		twin := fake.NewServer(t)
		if err := twin.Restore(saved); err != nil {
			t.Fatalf("the snapshot of an accepted snapshot is refused: %v", err)
		}
		if again, err := twin.Snapshot(); err != nil || !bytes.Equal(saved, again) {
			t.Fatalf("save, restore, save gives other bytes (%v):\n%s", err, cmp.Diff(string(saved), string(again)))
		}
		base := "/v1/organizations/" + srv.Org()
		for _, path := range []string{base, base + "/databases", base + "/members", base + "/audit-log"} {
			if r := send(t, srv, http.MethodGet, path, admin(srv), ""); r.status >= 500 {
				t.Fatalf("GET %s: %d %s", path, r.status, r.body)
			}
		}
		for _, d := range []time.Duration{time.Second, time.Hour, 40 * 24 * time.Hour} {
			srv.Advance(d)
			if err := srv.FlushDeliveries(t.Context()); err != nil {
				t.Fatal(err)
			}
			if _, err := srv.Snapshot(); err != nil {
				t.Fatalf("the snapshot after advancing %s: %v", d, err)
			}
		}
	})
}
