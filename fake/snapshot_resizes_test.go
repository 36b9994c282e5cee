package fake_test

import (
	"testing"
	"time"

	"github.com/dbplatform/platform-go/fake"
)

// TestRestoreRefusesBadBouncersAndResizes checks that a snapshot whose
// bouncers, bouncer resizes, keyspace resizes or branch requests cannot be
// is refused, saying why, and changes nothing.
func TestRestoreRefusesBadBouncersAndResizes(t *testing.T) {
	t.Parallel()
	src := fake.NewServer(t)
	dbs := "/v1/organizations/" + src.Org() + "/databases"
	do := func(method, path, body string) {
		t.Helper()
		if r := send(t, src, method, path, admin(src), body); r.status >= 300 {
			t.Fatalf("%s %s: %d %s", method, path, r.status, r.body)
		}
	}
	do("POST", dbs, `{"name":"pg","cluster_size":"PS_10","kind":"postgresql"}`)
	do("POST", dbs, `{"name":"my","cluster_size":"PS_10"}`)
	src.Advance(time.Minute)
	do("POST", dbs+"/pg/branches/main/bouncers", `{"name":"pool"}`)
	src.Advance(time.Minute)
	do("PATCH", dbs+"/pg/branches/main/bouncers/pool/resizes", `{"bouncer_size":"PGB_20"}`)
	do("PUT", dbs+"/my/branches/main/keyspaces/my/resizes", `{"cluster_size":"PS_20"}`)
	do("PATCH", dbs+"/pg/branches/main/changes", `{"parameters":{"pgconf":{"max_connections":"200"}}}`)
	good, err := src.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	edit := func(fn func(map[string]any, []any) []any, path ...string) []byte {
		return editSnapshot(t, good, fn, path...)
	}
	badSize := map[string]any{"size": "PGB_7", "replicas_per_cell": 1, "target": "primary"}
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"unknown bouncer size", edit(setField("config", badSize), "branches", "bouncers"), `unknown bouncer size "PGB_7"`},
		{"two bouncers of a name", edit(twiceWithID("id"), "branches", "bouncers"), `name "pool" appears twice`},
		{"resize of no bouncer", edit(setField("bouncer", "nobouncer"), "branches", "bouncer_resizes"), `bouncer "nobouncer" is not in the snapshot`},
		{"resize to an unknown size", edit(setField("next", badSize), "branches", "bouncer_resizes"), `next: unknown bouncer size "PGB_7"`},
		{"unknown bouncer resize state", edit(setField("state", "melted"), "branches", "bouncer_resizes"), `unknown state "melted"`},
		{"two bouncer resizes in progress", edit(twiceWithID("id"), "branches", "bouncer_resizes"), "both in progress"},
		{"bouncer resize step of a settled state", stepFrom(t, good, "bouncer_resize.step", "completed"), `does not leave state "completed"`},
		{"unknown keyspace resize state", edit(setField("state", "melted"), "branches", "keyspaces", "resizes"), `unknown state "melted"`},
		{"two keyspace resizes in progress", edit(twiceWithID("id"), "branches", "keyspaces", "resizes"), "both in progress"},
		{"latest resize of another keyspace", edit(setField("last_resize", "noresize"), "branches", "keyspaces"), `latest resize "noresize"`},
		{"keyspace resize step of a settled state", stepFrom(t, good, "keyspace_resize.step", "canceled"), `does not leave state "canceled"`},
		{"unknown branch request state", edit(setField("state", "melted"), "branches", "cluster", "changes"), `unknown state "melted"`},
		{"two branch requests in progress", edit(twiceWithID("id"), "branches", "cluster", "changes"), "both in progress"},
		{"branch request of an unknown parameter", edit(setField("after", map[string]any{"parameters": map[string]any{"no_such": "1"}}), "branches", "cluster", "changes"),
			`after: unknown parameter "no_such"`},
		{"branch request step of a settled state", stepFrom(t, good, "branch_change.step", "completed"), `does not leave state "completed"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			wantRestoreRefused(t, tt.data, tt.want)
		})
	}
}
