package fake_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// retrySnapshot returns the snapshot of a server with a database "app"
// (ready, with its main branch and keyspace) whose webhook's receiver
// failed, so that a webhook.retry transition is due.
func retrySnapshot(t *testing.T) []byte {
	t.Helper()
	srv := fake.NewServer(t)
	mustDB(t, srv, "app")
	srv.Advance(time.Minute)
	recv := newWebhookReceiver(t, webhookAnswer(http.StatusInternalServerError))
	hooks := "/v1/organizations/" + srv.Org() + "/databases/app/webhooks"
	r := send(t, srv, http.MethodPost, hooks, admin(srv), `{"url":"`+recv.url()+`","events":["branch.ready"]}`)
	wantStatus(t, r, http.StatusCreated)
	var hook struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(r.body, &hook); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, send(t, srv, http.MethodPatch, hooks+"/"+hook.ID, admin(srv), `{"enabled":true}`), http.StatusOK)
	if err := srv.Emit(srv.Org(), "app", platform.WebhookEvent("branch.ready"), nil); err != nil {
		t.Fatal(err)
	}
	if err := srv.FlushDeliveries(t.Context()); err != nil {
		t.Fatal(err)
	}
	data, err := srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// snapshotEdit returns data with fn applied to it as a JSON document, its
// numbers kept exact.
func snapshotEdit(t *testing.T, data []byte, fn func(m map[string]any)) []byte {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	fn(m)
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// snapshotRecord returns the i-th record of a list of m, or of a list
// within such a record (path "branches", 0, "keyspaces", 0).
func snapshotRecord(m map[string]any, path ...any) map[string]any {
	var v any = m
	for _, p := range path {
		switch p := p.(type) {
		case string:
			v = v.(map[string]any)[p]
		case int:
			v = v.([]any)[p]
		}
	}
	return v.(map[string]any)
}

// retryTransition returns the webhook.retry transition of m.
func retryTransition(t *testing.T, m map[string]any) map[string]any {
	for _, js := range m["transitions"].([]any) {
		if js := js.(map[string]any); js["kind"] == "webhook.retry" {
			return js
		}
	}
	t.Fatal("no webhook.retry transition in the snapshot")
	return nil
}

// TestRestoreValidates checks that a snapshot holding what the API refuses,
// or what the server could not save or advance again, is refused with an
// error naming the path in the document, and changes nothing; through PUT
// /_fake/snapshot, it is a 422.
func TestRestoreValidates(t *testing.T) {
	t.Parallel()
	good := retrySnapshot(t)
	set := func(value any, path ...any) func(m map[string]any) {
		return func(m map[string]any) {
			rec := snapshotRecord(m, path[:len(path)-1]...)
			rec[path[len(path)-1].(string)] = value
		}
	}
	retry := func(field string, value any) func(m map[string]any) {
		return func(m map[string]any) { retryTransition(t, m)["delivery"].(map[string]any)[field] = value }
	}
	tests := []struct {
		name string
		edit func(m map[string]any)
		want string
	}{
		{"retry of attempt 0", retry("attempt", 0), ".delivery.attempt: must be from 2 to 4, got 0"},
		{"retry after the last", retry("attempt", 5), ".delivery.attempt: must be from 2 to 4, got 5"},
		{"retry never retried", retry("retry", false), ".delivery.retry: "},
		{"50 million shards", set(50_000_000, "branches", 0, "keyspaces", 0, "shards"), "branches[0].keyspaces[0].shards: must be from 1 to 256, got 50000000"},
		{"no shard", set(0, "branches", 0, "keyspaces", 0, "shards"), "branches[0].keyspaces[0].shards: must be from 1 to 256, got 0"},
		{"negative extra replicas", set(-1, "branches", 0, "keyspaces", 0, "extra_replicas"), "branches[0].keyspaces[0].extra_replicas: must be from 0 to 18, got -1"},
		{"clock at the end of time", set("9999-12-31T00:00:00Z", "clock", "now"), "clock.now: 9999-12-31T00:00:00Z is not a time the clock can reach"},
		{"clock sequence about to wrap", set(json.Number("18446744073709551615"), "clock", "seq"), "clock.seq: must be from 0 to 9007199254740992, got 18446744073709551615"},
		{"transition at the end of time", func(m map[string]any) { retryTransition(t, m)["at"] = "9999-12-31T23:59:59Z" }, ".at: 9999-12-31T23:59:59Z is not a time the clock can reach"},
		{"last deploy request about to overflow", set(json.Number("9223372036854775807"), "databases", 0, "last_deploy_request"), "databases[0].last_deploy_request: must be from 0 to 9007199254740992"},
		{"empty database name", set("", "databases", 0, "name"), "databases[0].name: must not be empty"},
		{"database name with a slash", set("a/b", "databases", 0, "name"), `databases[0].name: must not contain "/"`},
		{"empty branch name", set("", "branches", 0, "name"), "branches[0].name: must not be empty"},
		{"routing rules not JSON", set("{rules", "branches", 0, "routing_rules"), "routing_rules"},
		{"routing rule without a target", set(`{"rules":[{"from_table":"t"}]}`, "branches", 0, "routing_rules"), "routing_rules: rules[0] needs to_tables"},
		{"branch name with a slash", set("main/x", "branches", 0, "name"), `branches[0].name: must not contain "/"`},
		{"keyspace name with a slash", set("a/b", "branches", 0, "keyspaces", 0, "name"), `branches[0].keyspaces[0].name: must not contain "/"`},
		{"organization name with a slash", set("a/b", "organizations", 0, "name"), `organizations[0].name: must not contain "/"`},
		{"kind oracle", set("oracle", "databases", 0, "kind"), `databases[0].kind: "oracle" is not mysql or postgresql`},
		{"unknown database state", set("melted", "databases", 0, "state"), `databases[0].state: "melted" is not a database state`},
		{"negative replicas", set(-1, "databases", 0, "replicas"), "databases[0].replicas: must not be negative, got -1"},
		{"unknown cluster size", set("PS_7", "databases", 0, "cluster_size"), `databases[0].cluster_size: cluster size "PS_7" is not a cluster size`},
		{"unknown member role", set("owner", "organizations", 0, "members", 0, "role"), `organizations[0].members[0].role: "owner" is not a member role`},
		{"branch of no database", set("nosuchdb", "branches", 0, "database"), `branches[0].database: database "nosuchdb" is not in the snapshot`},
		{"backup schedule every 0", set(0, "databases", 0, "backup_policies", 0, "schedule", "every"), "databases[0].backup_policies[0]: frequency_value must be from 1 to 31 for frequency_unit day, got 0"},
		{"backup schedule at hour 99", set(99, "databases", 0, "backup_policies", 0, "schedule", "hour"), `databases[0].backup_policies[0]: schedule_time "99:00" is not a time of day`},
		{"wrong kind of value", set([]any{1, 1, 1}, "users"), "users[0]: want an object, got a number"},
		{"branch deleted by no user", set("nobody", "branches", 0, "deleted_by"), `branches[0].deleted_by: user "nobody" is not in the snapshot`},
		{"base keyspace with a slash", set(map[string]any{"a/b": map[string]any{}}, "branches", 0, "base"), `branches[0].base.a/b: must not contain "/"`},
		{"base table without a definition", set(map[string]any{"app": map[string]any{"t": " "}}, "branches", 0, "base"), `branches[0].base.app.t: " " is not a CREATE TABLE statement`},
		{"live branch deleted by a user", func(m map[string]any) {
			snapshotRecord(m, "branches", 0)["deleted_by"] = snapshotRecord(m, "users", 0)["id"]
		}, "branches[0].deleted_by: set on a branch not deleted"},
		{"keyspace tables null", set(nil, "branches", 0, "keyspaces", 0, "tables"), "branches[0].keyspaces[0].tables: must be an object, not null"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			data := snapshotEdit(t, good, tt.edit)
			srv := fake.NewServer(t, fake.WithSeed(5))
			mustDB(t, srv, "mine")
			err := srv.Restore(data)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Restore: %v, want an error saying %q", err, tt.want)
			}
			r := send(t, srv, http.MethodPut, "/_fake/snapshot", admin(srv), string(data))
			if e := wantError(t, r, http.StatusUnprocessableEntity, "unprocessable"); !strings.Contains(e.Message, tt.want) {
				t.Errorf("PUT /_fake/snapshot: %q, want a message saying %q", e.Message, tt.want)
			}
			srv.Advance(time.Hour) // no transition of the refused snapshot runs
			after, err := srv.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			twin := fake.NewServer(t, fake.WithSeed(5))
			mustDB(t, twin, "mine")
			twin.Advance(time.Hour)
			if want, _ := twin.Snapshot(); !bytes.Equal(want, after) {
				t.Error("a refused Restore changed the server")
			}
		})
	}
}

// TestRestoreRetryRuns checks that the webhook retry of a snapshot, once
// restored, runs when due: the check of its attempt refuses nothing a
// server saves.
func TestRestoreRetryRuns(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	if err := srv.Restore(retrySnapshot(t)); err != nil {
		t.Fatal(err)
	}
	for range 4 { // each retry is scheduled once the attempt before failed
		srv.Advance(10 * time.Minute)
		if err := srv.FlushDeliveries(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	attempts := map[int]bool{}
	for _, d := range srv.Deliveries() {
		attempts[d.Attempt] = true
	}
	for n := 2; n <= 4; n++ {
		if !attempts[n] {
			t.Errorf("attempt %d was not sent after the restore; sent: %v", n, attempts)
		}
	}
}

// hostileSnapshot returns a snapshot of n bytes whose list field holds
// elements elem, as many as fit.
func hostileSnapshot(field, elem string, n int) []byte {
	head := `{"format":"platform-fake-snapshot","version":1,"` + field + `":[`
	var b bytes.Buffer
	b.Grow(n)
	b.WriteString(head + elem)
	for b.Len()+len(elem)+3 < n {
		b.WriteString("," + elem)
	}
	b.WriteString("]}")
	return b.Bytes()
}

// TestRestoreMemoryBounded checks that refusing a crafted snapshot costs
// memory of the order of its size, not a hundred times it: 8 MiB of
// numbers where users belong took 1.3 GB before its 422, and of empty
// records, more. Not parallel: it measures the allocations of the whole
// process.
func TestRestoreMemoryBounded(t *testing.T) {
	tests := []struct{ name, field, elem string }{
		{"numbers for users", "users", "1"},
		{"empty users", "users", "{}"},
		{"empty branches", "branches", "{}"},
		{"empty transitions", "transitions", "{}"},
	}
	srv := fake.NewServer(t)
	for _, tt := range tests {
		data := hostileSnapshot(tt.field, tt.elem, 1<<20)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		err := srv.Restore(data)
		runtime.ReadMemStats(&after)
		if err == nil {
			t.Errorf("%s: restored", tt.name)
		}
		if got, limit := after.TotalAlloc-before.TotalAlloc, uint64(len(data))*6; got > limit {
			t.Errorf("%s: restoring %d bytes allocated %d bytes, want at most %d", tt.name, len(data), got, limit)
		}
	}
}

// TestRestoreSettlesDueEvents restores a snapshot, edited by hand, whose
// clock stands at the moment a branch becomes ready: Restore runs that
// transition before the server holds the world, and the event it emits is
// logged and delivered by the restored server, once.
func TestRestoreSettlesDueEvents(t *testing.T) {
	t.Parallel()
	srv, c := newWebhookServer(t)
	recv := newWebhookReceiver(t, webhookAnswer(http.StatusOK))
	h := webhookCreate(t, srv, recv.url(), true, platform.EventBranchReady)
	if _, err := c.Branches.Create(t.Context(), &platform.CreateBranchParams{Organization: srv.Org(), Database: webhookDB, Name: "dev"}); err != nil {
		t.Fatal(err)
	}
	data, err := srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	var readyAt string
	data = snapshotEdit(t, data, func(m map[string]any) {
		for _, js := range m["transitions"].([]any) {
			if js := js.(map[string]any); js["kind"] == "branch.ready" {
				readyAt = js["at"].(string)
			}
		}
		m["clock"].(map[string]any)["now"] = readyAt
	})
	if readyAt == "" {
		t.Fatal("no branch.ready transition in the snapshot")
	}
	twin := fake.NewServer(t, fake.WithSeed(5))
	if err := twin.Restore(data); err != nil {
		t.Fatalf("Restore: %v", err)
	}
	webhookFlush(t, twin)
	b, err := twin.Client().Branches.Get(t.Context(), &platform.GetBranchParams{Organization: twin.Org(), Database: webhookDB, Branch: "dev"})
	if err != nil || !b.Ready {
		t.Fatalf("the restored dev: %+v, %v; want it ready", b, err)
	}
	var names []string
	for _, e := range twin.Events() {
		names = append(names, e.Name)
	}
	if !slices.Contains(names, string(platform.EventBranchReady)) {
		t.Errorf("the restored server's events are %v, want a branch.ready", names)
	}
	hits := recv.got()
	if len(hits) != 1 || hits[0].header.Get(platform.WebhookEventHeader) != string(platform.EventBranchReady) {
		t.Fatalf("the receiver got %d deliveries (%v), want the one branch.ready", len(hits), hits)
	}
	if _, err := hits[0].parse(h.Secret); err != nil {
		t.Errorf("the delivery does not parse with the webhook's secret: %v", err)
	}
}
