package fake_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// A snapshot saves a fixture once; each test restores it into its own
// server, with the clock, the pending transitions and the admin token as
// they were.
func ExampleServer_Snapshot() {
	ctx := context.Background()
	srv, err := fake.New()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	if _, err := srv.Client().Databases.Create(ctx, &platform.CreateDatabaseParams{
		Organization: srv.Org(), Name: "app-db", ClusterSize: "PS_10",
	}); err != nil {
		log.Fatal(err)
	}
	fixture, err := srv.Snapshot()
	if err != nil {
		log.Fatal(err)
	}

	other, err := fake.New(fake.WithSeed(2))
	if err != nil {
		log.Fatal(err)
	}
	defer other.Close()
	if err := other.Restore(fixture); err != nil {
		log.Fatal(err)
	}
	state := func() platform.DatabaseState {
		db, err := other.Client().Databases.Get(ctx, &platform.GetDatabaseParams{Organization: other.Org(), Database: "app-db"})
		if err != nil {
			log.Fatal(err)
		}
		return db.State
	}
	fmt.Println("restored:", state(), "at", other.Now().Format(time.TimeOnly))
	other.Advance(5 * time.Second)
	fmt.Println("5s later:", state())
	fmt.Println("same admin token:", other.AdminToken() == srv.AdminToken())

	other.Reset()
	page, err := other.Client().Databases.List(ctx, &platform.ListDatabasesParams{Organization: other.Org()})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("after Reset:", len(page.Items), "databases")
	// Output:
	// restored: pending at 00:00:00
	// 5s later: ready
	// same admin token: true
	// after Reset: 0 databases
}
