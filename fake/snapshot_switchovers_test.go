package fake_test

import (
	"bytes"
	"encoding/json"
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
	// edit changes, in a copy of the snapshot, the first record of list in
	// each record of owner (branches, databases) that has one.
	edit := func(owner, list string, fn func(rec map[string]any, recs []any) []any) []byte {
		var m map[string]any
		if err := json.Unmarshal(good, &m); err != nil {
			t.Fatal(err)
		}
		for _, o := range m[owner].([]any) {
			o := o.(map[string]any)
			if recs, ok := o[list].([]any); ok && len(recs) > 0 {
				o[list] = fn(recs[0].(map[string]any), recs)
			}
		}
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	set := func(key string, v any) func(map[string]any, []any) []any {
		return func(rec map[string]any, recs []any) []any { rec[key] = v; return recs }
	}
	twice := func(key string) func(map[string]any, []any) []any {
		return func(rec map[string]any, recs []any) []any {
			other := map[string]any{}
			for k, v := range rec {
				other[k] = v
			}
			other[key] = "other-id"
			return append(recs, other)
		}
	}
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
			srv := fake.NewServer(t, fake.WithSeed(5))
			before, err := srv.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			err = srv.Restore(tt.data)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Restore: %v, want an error saying %q", err, tt.want)
			}
			if after, _ := srv.Snapshot(); !bytes.Equal(before, after) {
				t.Error("a refused Restore changed the server")
			}
		})
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
