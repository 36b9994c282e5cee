package fake_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go/fake"
)

// TestRestoreTemplate checks the operation tables' way of restoring a
// prepared world again and again (opTemplate): a template decoded once
// gives, each time, the state Restore of its snapshot gives, and the worlds
// restored from it share nothing with it, so that what one world changes
// reaches neither the template nor the next world. It also checks that
// the compact snapshot sameSnapshots compares is the snapshot, and that the
// state opWorldState keeps shares nothing with the world it was taken of.
func TestRestoreTemplate(t *testing.T) {
	t.Parallel()
	worlds := map[string]func(t *testing.T) *opWorld{
		"operation table's": func(t *testing.T) *opWorld { return newOpWorld(t) },
		"rich":              richWorld,
	}
	for name, build := range worlds {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := build(t)
			data, err := w.srv.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			compact, err := fake.SnapshotCompact(w.srv)
			if err != nil {
				t.Fatal(err)
			}
			if got := indentJSON(t, compact) + "\n"; got != string(data) {
				t.Errorf("SnapshotCompact, indented, is not the snapshot (-Snapshot +compact):\n%s", cmp.Diff(string(data), got))
			}
			tp, err := fake.NewTemplate(data)
			if err != nil {
				t.Fatal(err)
			}
			if p := fake.TemplateCopyShares(tp); p != "" {
				t.Fatalf("a copy of the template shares %s with it", p)
			}
			st, err := fake.StateOf(w.srv)
			if err != nil {
				t.Fatal(err)
			}
			if p := fake.StateShares(st, w.srv); p != "" {
				t.Errorf("the state a test keeps (fake.StateOf) shares %s with the world", p)
			}
			want := fake.NewServer(t)
			if err := want.Restore(data); err != nil {
				t.Fatal(err)
			}
			first := fake.NewServer(t)
			if err := first.RestoreTemplate(tp); err != nil {
				t.Fatal(err)
			}
			if diff := fake.SnapshotStateDiff(want, first); diff != "" {
				t.Errorf("the template restores a state Restore does not (-Restore +template):\n%s", diff)
			}
			// The first world changes: its transitions run, a database and
			// a branch come and go.
			app := "/v1/organizations/" + first.Org() + "/databases/" + drDB
			for _, r := range []struct{ method, path, body string }{
				{"POST", app + "/branches", `{"name":"later","parent_branch":"main"}`},
				{"DELETE", "/v1/organizations/" + first.Org() + "/databases/other", ""},
			} {
				if got := send(t, first, r.method, r.path, admin(first), r.body); got.status >= 300 {
					t.Fatalf("%s %s: %d %s", r.method, r.path, got.status, got.body)
				}
			}
			first.Advance(48 * time.Hour)
			second := fake.NewServer(t)
			if err := second.RestoreTemplate(tp); err != nil {
				t.Fatal(err)
			}
			if diff := fake.SnapshotStateDiff(want, second); diff != "" {
				t.Errorf("after a world restored from the template changed, the template restores another state (-Restore +template):\n%s", diff)
			}
			again, err := second.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(data, again) {
				t.Errorf("a snapshot of the world restored from the template differs from the one it was made from (-original +restored):\n%s", cmp.Diff(string(data), string(again)))
			}
		})
	}
}

// TestSameSnapshots checks the comparisons sameSnapshots and opWorldState
// make: two servers of the same world give the same snapshot, and one that
// differs from the other in a record, or only in its clock, does not; a
// server's state is the same until a record changes.
func TestSameSnapshots(t *testing.T) {
	t.Parallel()
	a, b := fake.NewServer(t), fake.NewServer(t)
	same := func() bool {
		t.Helper()
		same, _, _, err := fake.SameSnapshots(a, b)
		if err != nil {
			t.Fatal(err)
		}
		return same
	}
	if !same() {
		t.Fatal("two fresh servers of the same options give different snapshots")
	}
	mustDB(t, a, "app")
	if same() {
		t.Error("a server with a database and one without give the same snapshot")
	}
	mustDB(t, b, "app")
	if !same() {
		t.Error("the same database made on both: different snapshots")
	}
	b.Advance(time.Second)
	if same() {
		t.Error("servers whose clocks differ give the same snapshot")
	}
	// opWorldState's states compare as sameSnapshots does.
	before, err := fake.StateOf(a)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := fake.StateOf(a); err != nil || !before.Equal(again) {
		t.Errorf("two states of an unchanged server differ (%v)", err)
	}
	mustDB(t, a, "other")
	if after, err := fake.StateOf(a); err != nil || before.Equal(after) {
		t.Errorf("the states before and after a database was made are equal (%v)", err)
	}
}
