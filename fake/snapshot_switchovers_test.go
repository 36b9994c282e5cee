package fake_test

import (
	"bytes"
	"encoding/json"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/dbplatform/platform-go/fake"
)

// TestRestoreRefusesBadSwitchoversAndLeases checks that a snapshot whose
// switchovers, maintenance windows or leases cannot be is refused, saying
// why, and changes nothing.
func TestRestoreRefusesBadSwitchoversAndLeases(t *testing.T) {
	t.Parallel()
	src := fake.NewServer(t)
	pg := "/v1/organizations/" + src.Org() + "/databases/pg"
	do := func(method, path, body string) {
		t.Helper()
		if r := send(t, src, method, path, admin(src), body); r.status >= 300 {
			t.Fatalf("%s %s: %d %s", method, path, r.status, r.body)
		}
	}
	do("POST", "/v1/organizations/"+src.Org()+"/databases", `{"name":"pg","cluster_size":"PS_10","kind":"postgresql"}`)
	src.Advance(time.Minute)
	do("POST", pg+"/branches", `{"name":"dev","parent_branch":"main"}`)
	src.Advance(time.Minute)
	do("POST", pg+"/branches/main/switchovers", "")
	do("POST", pg+"/branches/dev/maintenance", "{}")
	good, err := src.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	edit := func(owner, list string, fn func(map[string]any, []any) []any) []byte {
		return editSnapshot(t, good, fn, owner, list)
	}
	set, twice := setField, twiceWithID
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"unknown switchover state", edit("branches", "switchovers", set("state", "exploded")), `unknown state "exploded"`},
		{"two switchovers in progress", edit("branches", "switchovers", twice("id")), "both in progress"},
		{"switchover step of a settled state", stepFrom(t, good, "switchover.step", "succeeded"), `does not leave state "succeeded"`},
		{"window of no branch", edit("databases", "maintenance_windows", set("branch", "nobranch")), `"nobranch" is not in the snapshot`},
		{"two windows running", edit("databases", "maintenance_windows", twice("id")), "both running"},
		{"expiry without a ttl", edit("branches", "roles", set("expires_at", "2030-01-01T00:00:00Z")), "ttl 0 with expiry"},
		{"negative ttl", edit("branches", "roles", set("ttl", -1)), "ttl -1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			wantRestoreRefused(t, tt.data, tt.want)
		})
	}
}

// editSnapshot changes, in a copy of the snapshot data, the first record
// of the list at the end of path in each record of the lists before it
// (branches, then keyspaces, then resizes) that has one; an object on the
// path is stepped into.
func editSnapshot(t *testing.T, data []byte, fn func(rec map[string]any, recs []any) []any, path ...string) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	var walk func(o map[string]any, path []string)
	walk = func(o map[string]any, path []string) {
		if next, ok := o[path[0]].(map[string]any); ok && len(path) > 1 {
			walk(next, path[1:]) // an object, as a branch's cluster
			return
		}
		recs, ok := o[path[0]].([]any)
		switch {
		case !ok || len(recs) == 0:
		case len(path) == 1:
			o[path[0]] = fn(recs[0].(map[string]any), recs)
		default:
			for _, r := range recs {
				walk(r.(map[string]any), path[1:])
			}
		}
	}
	walk(m, path)
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// setField sets a field of the record edited.
func setField(key string, v any) func(map[string]any, []any) []any {
	return func(rec map[string]any, recs []any) []any { rec[key] = v; return recs }
}

// twiceWithID appends a copy of the record edited under another ID.
func twiceWithID(key string) func(map[string]any, []any) []any {
	return func(rec map[string]any, recs []any) []any {
		other := map[string]any{}
		maps.Copy(other, rec)
		other[key] = "other-id"
		return append(recs, other)
	}
}

// wantRestoreRefused checks that restoring data into a new server fails
// saying want, and changes nothing.
func wantRestoreRefused(t *testing.T, data []byte, want string) {
	t.Helper()
	srv := fake.NewServer(t, fake.WithSeed(5))
	before, err := srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	err = srv.Restore(data)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("Restore: %v, want an error saying %q", err, want)
	}
	if after, _ := srv.Snapshot(); !bytes.Equal(before, after) {
		t.Error("a refused Restore changed the server")
	}
}

// stepFrom sets the step of the snapshot's transitions of a kind.
func stepFrom(t *testing.T, data []byte, kind, step string) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, j := range m["transitions"].([]any) {
		if j := j.(map[string]any); j["kind"] == kind {
			j["step"], found = step, true
		}
	}
	if !found {
		t.Fatalf("no transition %s in the snapshot", kind)
	}
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
