package fake

import (
	"testing"
	"time"

	"github.com/dbplatform/platform-go"
)

// TestRarePartsStayUnmade checks that a database, its branch and its
// keyspace that use none of the rare records (webhooks, passwords,
// bouncers, keyspace resizes, ...) never get their parts made, through
// events, reads of every group (the keyspace's rendering, listing, resizes,
// rollout and VSchema, and the branch's routing rules among them), a
// snapshot and its restoring, which is what keeps a large world small
// (BenchmarkScale100k); and that the first webhook makes the database's
// part, and the first keyspace resize the keyspace's.
func TestRarePartsStayUnmade(t *testing.T) {
	t.Parallel()
	srv := newTrafficServer(t) // app, ready, with its events emitted
	db := srv.world.orgs["acme"].dbByName["app"]
	b := db.branch("main")
	ks := b.keyspace("app")
	c := srv.Client()
	kp := platform.KeyspaceParams{Organization: "acme", Database: "app", Branch: "main", Keyspace: "app"}
	for name, read := range map[string]func() error{
		"list_keyspaces": func() error {
			_, err := c.Keyspaces.List(t.Context(), &platform.ListKeyspacesParams{Organization: "acme", Database: "app", Branch: "main"})
			return err
		},
		"get_keyspace": func() error { _, err := c.Keyspaces.Get(t.Context(), &kp); return err },
		"list_keyspace_resize_requests": func() error {
			_, err := c.Keyspaces.ListResizes(t.Context(), &platform.ListKeyspaceResizesParams{Organization: "acme", Database: "app", Branch: "main", Keyspace: "app"})
			return err
		},
		"get_keyspace_rollout_status": func() error { _, err := c.Keyspaces.GetRolloutStatus(t.Context(), &kp); return err },
		"get_keyspace_vschema":        func() error { _, err := c.Keyspaces.GetVSchema(t.Context(), &kp); return err },
		"get_routing_rules": func() error {
			_, err := c.Branches.GetRoutingRules(t.Context(), &platform.GetRoutingRulesParams{Organization: "acme", Database: "app", Branch: "main"})
			return err
		},
	} {
		if err := read(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	// A resize refused (it changes nothing) makes nothing either.
	if _, err := c.Keyspaces.Resize(t.Context(), &platform.ResizeKeyspaceParams{
		Organization: "acme", Database: "app", Branch: "main", Keyspace: "app", ClusterSize: platform.Ptr(ks.clusterSize),
	}); err == nil {
		t.Fatal("a resize to the keyspace's own size was accepted")
	}
	snap, err := srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	restored := NewServer(t)
	if err := restored.Restore(snap); err != nil {
		t.Fatal(err)
	}
	db2 := restored.world.orgs["acme"].dbByName["app"]
	b2 := db2.branch("main")
	srv.Advance(24 * time.Hour) // daily backups, their events
	for _, part := range []struct {
		of   string
		made bool
	}{
		{"database", db.more.peek() != nil},
		{"database's extra records", db.extra.peek() != nil},
		{"database's workflows", db.workflows.peek() != nil},
		{"branch", b.more.peek() != nil},
		{"keyspace", ks.more.peek() != nil},
		{"restored database", db2.more.peek() != nil},
		{"restored database's extra records", db2.extra.peek() != nil},
		{"restored database's workflows", db2.workflows.peek() != nil},
		{"restored branch", b2.more.peek() != nil},
		{"restored keyspace", b2.keyspace("app").more.peek() != nil},
	} {
		if part.made {
			t.Errorf("a part made for the %s, which has no rare records", part.of)
		}
	}
	if _, err := c.Webhooks.Create(t.Context(), &platform.CreateWebhookParams{
		Organization: "acme", Database: "app", URL: "https://hooks.example.com/x", Events: []platform.WebhookEvent{"branch.ready"},
	}); err != nil {
		t.Fatal(err)
	}
	if m := db.more.peek(); m == nil || m.webhooks.Len() != 1 {
		t.Fatal("the first webhook is not in the database's part")
	}
	r, err := c.Keyspaces.Resize(t.Context(), &platform.ResizeKeyspaceParams{
		Organization: "acme", Database: "app", Branch: "main", Keyspace: "app", ClusterSize: platform.Ptr("PS_20"),
	})
	if err != nil {
		t.Fatal(err)
	}
	if m := ks.more.peek(); m == nil || m.resize == nil || m.resize.id != r.ID || m.resizes.Len() != 1 {
		t.Fatal("the first keyspace resize is not in the keyspace's part")
	}
}
