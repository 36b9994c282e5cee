package fake

import (
	"testing"
	"time"

	"github.com/dbplatform/platform-go"
)

// TestRarePartsStayUnmade checks that a database and its branch that use
// none of the rare records (webhooks, passwords, bouncers, ...) never get
// their parts made, through events, reads of every group and a snapshot,
// which is what keeps a large world small (BenchmarkScale100k); and that
// the first webhook makes the database's part.
func TestRarePartsStayUnmade(t *testing.T) {
	t.Parallel()
	srv := newTrafficServer(t) // app, ready, with its events emitted
	db := srv.world.orgs["acme"].dbByName["app"]
	b := db.branch("main")
	if _, err := srv.Snapshot(); err != nil {
		t.Fatal(err)
	}
	srv.Advance(24 * time.Hour) // daily backups, their events
	if db.more.Load() != nil || b.more.Load() != nil {
		t.Fatalf("parts made for a database (%v) or branch (%v) that has no rare records", db.more.Load() != nil, b.more.Load() != nil)
	}
	if _, err := srv.Client().Webhooks.Create(t.Context(), &platform.CreateWebhookParams{
		Organization: "acme", Database: "app", URL: "https://hooks.example.com/x", Events: []platform.WebhookEvent{"branch.ready"},
	}); err != nil {
		t.Fatal(err)
	}
	if m := db.more.Load(); m == nil || m.webhooks.hooks.len() != 1 {
		t.Fatal("the first webhook is not in the database's part")
	}
}
