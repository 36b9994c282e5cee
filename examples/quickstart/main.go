// Command quickstart shows the SDK against the in-memory fake: it creates a
// database and waits until it is ready, creates thirty more and lists them
// page by page through the iterator, and handles a not-found error. The
// fake's clock is virtual, so the wait takes no real time and the output is
// the same on every run.
//
//	go run ./examples/quickstart
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

// run does the walkthrough and writes what it did to w.
func run(w io.Writer) error {
	ctx := context.Background()

	// An in-process fake of the API, with one organization and an admin
	// token. In a test, fake.NewServer(t) closes it for you.
	srv, err := fake.New()
	if err != nil {
		return err
	}
	defer srv.Close()
	start := srv.Now()
	org := srv.Org()

	// A client authenticated with the admin token. Its waits advance the
	// fake's virtual clock instead of sleeping.
	client := srv.Client()

	// Create a database; it starts pending.
	db, err := client.Databases.Create(ctx, &platform.CreateDatabaseParams{
		Organization: org,
		Name:         "app-db",
		ClusterSize:  "PS_10",
	})
	if err != nil {
		return fmt.Errorf("creating app-db: %w", err)
	}
	fmt.Fprintf(w, "created database %s in %s: state %s, ready %t\n", db.Name, org, db.State, db.Ready)

	// Wait until it is ready.
	db, err = client.Databases.Wait(ctx, &platform.GetDatabaseParams{Organization: org, Database: db.Name})
	if err != nil {
		return fmt.Errorf("waiting for app-db: %w", err)
	}
	fmt.Fprintf(w, "database %s is %s after %s of virtual time\n", db.Name, db.State, srv.Now().Sub(start))

	// Thirty more.
	for i := 1; i <= 30; i++ {
		_, err := client.Databases.Create(ctx, &platform.CreateDatabaseParams{
			Organization: org,
			Name:         fmt.Sprintf("shard-%02d", i),
			ClusterSize:  "PS_10",
		})
		if err != nil {
			return fmt.Errorf("creating shard-%02d: %w", i, err)
		}
	}
	fmt.Fprintln(w, "created 30 more databases")

	// List them all. All fetches pages lazily, PerPage at a time.
	const perPage = 8
	srv.ClearRequests()
	var names []string
	for d, err := range client.Databases.All(ctx, &platform.ListDatabasesParams{
		Organization: org,
		ListParams:   platform.ListParams{PerPage: perPage},
	}) {
		if err != nil {
			return fmt.Errorf("listing databases: %w", err)
		}
		names = append(names, d.Name)
	}
	if len(names) == 0 {
		return errors.New("listing databases: none listed")
	}
	pages := 0
	for _, r := range srv.Requests() {
		if r.Operation == "list_databases" {
			pages++
		}
	}
	fmt.Fprintf(w, "listed %d databases in %d pages of up to %d, oldest first: %s, ...\n",
		len(names), pages, perPage, names[0])

	// A database that does not exist: the error classifies with errors.Is.
	_, err = client.Databases.Get(ctx, &platform.GetDatabaseParams{Organization: org, Database: "no-such-db"})
	var apiErr *platform.Error
	switch {
	case errors.Is(err, platform.ErrNotFound) && errors.As(err, &apiErr):
		fmt.Fprintf(w, "database no-such-db: not found (status %d, code %s)\n", apiErr.StatusCode, apiErr.Code)
	case err == nil:
		return errors.New("getting no-such-db: no error")
	default:
		return fmt.Errorf("getting no-such-db: %w", err)
	}
	return nil
}
