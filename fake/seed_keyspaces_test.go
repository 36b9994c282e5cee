package fake_test

import (
	"strings"
	"testing"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

func TestAddKeyspace(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	c, org := srv.Client(), srv.Org()
	if _, err := c.Databases.Create(t.Context(), &platform.CreateDatabaseParams{Organization: org, Name: drDB, ClusterSize: "PS_10"}); err != nil {
		t.Fatal(err)
	}
	srv.Advance(5 * time.Second)
	if err := srv.AddKeyspace(org, drDB, "main", "sharded", 4); err != nil {
		t.Fatal(err)
	}
	if err := srv.PushSchema(org, drDB, "main", "CREATE TABLE sharded.events (id bigint PRIMARY KEY)"); err != nil {
		t.Fatalf("pushing a table to the new keyspace: %v", err)
	}
	main, err := c.Branches.Get(t.Context(), &platform.GetBranchParams{Organization: org, Database: drDB, Branch: "main"})
	if err != nil {
		t.Fatal(err)
	}
	if !main.Sharded || main.ShardCount != 5 || main.KeyspaceCount != 2 {
		t.Errorf("main: sharded %t, %d shards, %d keyspaces; want true, 5, 2", main.Sharded, main.ShardCount, main.KeyspaceCount)
	}
	// A branch created afterwards copies the keyspace and its tables.
	if _, err := c.Branches.Create(t.Context(), &platform.CreateBranchParams{Organization: org, Database: drDB, Name: "dev"}); err != nil {
		t.Fatal(err)
	}
	srv.Advance(5 * time.Second)
	tables, err := c.Branches.GetSchema(t.Context(), &platform.GetBranchSchemaParams{Organization: org, Database: drDB, Branch: "dev", Keyspace: "sharded"})
	if err != nil {
		t.Fatal(err)
	}
	if len(tables.Tables) != 1 || tables.Tables[0].Name != "events" {
		t.Errorf("dev's sharded keyspace holds %v, want events", tables.Tables)
	}

	for _, tc := range []struct {
		name                   string
		db, branch, ks, reason string
		shards                 int
	}{
		{"unknown database", "nope", "main", "other", "no database", 1},
		{"unknown branch", drDB, "nope", "other", "no branch", 1},
		{"taken name", drDB, "main", "sharded", "already has", 2},
		{"bad name", drDB, "main", "Bad Name", "keyspace name", 1},
		{"no shards", drDB, "main", "other", "shards", 0},
		{"more shards than key ranges", drDB, "main", "other", "at most 256", 257},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := srv.AddKeyspace(org, tc.db, tc.branch, tc.ks, tc.shards)
			if err == nil || !strings.Contains(err.Error(), tc.reason) {
				t.Errorf("AddKeyspace = %v, want an error about %q", err, tc.reason)
			}
		})
	}
}
