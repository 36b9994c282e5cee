// Command credentials walks through a MySQL branch's credentials and its
// resize against the in-memory fake: it creates a database, a password for
// its production branch, shows the connection string (the only time the
// password can be read), then resizes the branch's cluster and waits for
// the change to complete. The fake's clock is virtual, so the waits take no
// real time and the output is the same on every run.
//
//	go run ./examples/credentials
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
		fmt.Fprintln(os.Stderr, "credentials:", err)
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
	client := srv.Client()
	org, db := srv.Org(), "shop"

	// A MySQL database, ready with its production branch main.
	if _, err := client.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: org, Name: db, ClusterSize: "PS_10"}); err != nil {
		return fmt.Errorf("creating %s: %w", db, err)
	}
	if _, err := client.Databases.Wait(ctx, &platform.GetDatabaseParams{Organization: org, Database: db}); err != nil {
		return fmt.Errorf("waiting for %s: %w", db, err)
	}
	fmt.Fprintf(w, "1. database %s is ready\n", db)

	// A password for the application. Its plain text is in this response
	// only: keep it now (in a secret store), it cannot be read again.
	pw, err := client.Passwords.Create(ctx, &platform.CreatePasswordParams{
		Organization: org, Database: db, Branch: "main",
		Name: platform.Ptr("app"), Role: platform.Ptr(platform.PasswordReadWriter),
	})
	if err != nil {
		return fmt.Errorf("creating the password: %w", err)
	}
	fmt.Fprintf(w, "2. password %s (%s): mysql://%s:%s@%s/%s?tls=true\n", pw.Name, pw.Role, pw.Username, *pw.PlainText, pw.AccessHostURL, db)
	again, err := client.Passwords.Get(ctx, &platform.GetPasswordParams{Organization: org, Database: db, Branch: "main", ID: pw.ID})
	if err != nil {
		return fmt.Errorf("reading the password: %w", err)
	}
	fmt.Fprintf(w, "   read again, the password is shown: %v\n", again.PlainText != nil)

	// The branch outgrows its cluster: a change request resizes it. It is
	// queued, resizes, then completes; the branch keeps serving meanwhile.
	change, err := client.BranchChanges.UpdateChange(ctx, &platform.UpdateBranchChangeRequestParams{
		Organization: org, Database: db, Branch: "main", ClusterSize: platform.Ptr("PS_40"),
	})
	if err != nil {
		return fmt.Errorf("resizing: %w", err)
	}
	fmt.Fprintf(w, "3. resize %s -> %s is %s\n", change.PreviousClusterName, change.ClusterName, change.State)
	change, err = client.BranchChanges.WaitChange(ctx, &platform.GetBranchChangeRequestParams{Organization: org, Database: db, Branch: "main", ID: change.ID})
	if err != nil {
		return fmt.Errorf("waiting for the resize: %w", err)
	}
	branch, err := client.Branches.Get(ctx, &platform.GetBranchParams{Organization: org, Database: db, Branch: "main"})
	if err != nil {
		return fmt.Errorf("reading the branch: %w", err)
	}
	fmt.Fprintf(w, "   resize is %s after %s: main runs %s\n", change.State, change.CompletedAt.Sub(change.CreatedAt.Time), branch.ClusterName)

	// The password still connects: a resize changes the servers, not the
	// credentials.
	after, err := client.Passwords.Get(ctx, &platform.GetPasswordParams{Organization: org, Database: db, Branch: "main", ID: pw.ID})
	if err != nil {
		return fmt.Errorf("reading the password: %w", err)
	}
	fmt.Fprintf(w, "4. password %s still connects to %s: %v\n", after.Name, after.AccessHostURL, !after.Expired && after.DeletedAt == nil)
	return nil
}
