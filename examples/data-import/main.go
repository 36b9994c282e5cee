// Command data-import shows an import of an external MySQL database from
// start to finish against the in-memory fake: it tests the source, starts
// the import (which creates the database), waits while the data is copied,
// switches traffic to the new database, detaches the external one, and
// prints each state on the way with the virtual time it took. The fake
// never connects to the source: what a test of it finds is set up through
// its Go API. The clock is virtual, so the output is the same on every run.
//
//	go run ./examples/data-import
package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "data-import:", err)
		os.Exit(1)
	}
}

// run does the walkthrough and writes what it did to w.
func run(w io.Writer) error {
	ctx := context.Background()
	srv, err := fake.New()
	if err != nil {
		return err
	}
	defer srv.Close()
	start := srv.Now()
	org := srv.Org()
	client := srv.Client()

	// The external database, as the fake will find it.
	const host = "legacy.example.com"
	if err := srv.SetImportSource(org, host, fake.ImportSource{Reachable: true, Password: "s3cret"}); err != nil {
		return err
	}
	conn := platform.DataImportConnection{
		Hostname: host, Database: "shop", Username: "importer", Password: "s3cret", SSLMode: platform.SSLModeRequired,
	}

	// A wrong password is found by the test, before anything starts.
	bad := conn
	bad.Password = "guess"
	check, err := client.DataImports.TestSource(ctx, &platform.TestDataImportSourceParams{Organization: org, DatabaseName: "shop", Connection: bad})
	if err != nil {
		return fmt.Errorf("testing the source: %w", err)
	}
	fmt.Fprintf(w, "test with a wrong password: can connect %t (%s)\n", check.CanConnect, check.Error)
	check, err = client.DataImports.TestSource(ctx, &platform.TestDataImportSourceParams{Organization: org, DatabaseName: "shop", Connection: conn})
	if err != nil {
		return fmt.Errorf("testing the source: %w", err)
	}
	fmt.Fprintf(w, "test: compatible %t, suggested plan %s\n", check.Compatible(), check.SuggestedPlan)

	imp, err := client.DataImports.Start(ctx, &platform.StartDataImportParams{
		Organization: org, DatabaseName: "shop", Connection: conn,
		Plan: platform.Ptr(check.SuggestedPlan), MaxPoolSize: platform.Ptr(check.MaxPoolSize),
	})
	if err != nil {
		return fmt.Errorf("starting the import: %w", err)
	}
	fmt.Fprintf(w, "started importing %s from %s:%d: %s\n", imp.DataSource.Database, imp.DataSource.Hostname, imp.DataSource.Port, imp.State)

	p := &platform.DataImportParams{Organization: org, Database: "shop"}
	show := func(imp *platform.DataImport) error {
		db, err := client.Databases.Get(ctx, &platform.GetDatabaseParams{Organization: org, Database: "shop"})
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "after %s: import %s, database %s\n", srv.Now().Sub(start), imp.State, db.State)
		return nil
	}
	steps := []struct {
		act  func() (*platform.DataImport, error)
		wait platform.DataImportState
	}{
		{nil, platform.DataImportCopyingData},
		{nil, platform.DataImportSwitchTrafficPending},
		{func() (*platform.DataImport, error) { return client.DataImports.MakePrimary(ctx, p) }, platform.DataImportSwitchTrafficCompleted},
		{func() (*platform.DataImport, error) { return client.DataImports.Detach(ctx, p) }, platform.DataImportReady},
	}
	for _, st := range steps {
		if st.act != nil {
			imp, err := st.act()
			if err != nil {
				return err
			}
			if err := show(imp); err != nil {
				return err
			}
		}
		imp, err := client.DataImports.Wait(ctx, p, st.wait)
		if err != nil {
			return fmt.Errorf("waiting for %s: %w", st.wait, err)
		}
		if err := show(imp); err != nil {
			return err
		}
	}
	return nil
}
