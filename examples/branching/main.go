// Command branching walks through branches, backups and passwords against
// the in-memory fake: it creates a database and a development branch,
// changes the branch's schema, backs the branch up, restores the backup
// into a new branch, and creates a short-lived password for it.
// The fake's clock is virtual, so the waits take no real time and the output
// is the same on every run.
//
//	go run ./examples/branching
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "branching:", err)
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
	org, db := srv.Org(), "inventory"
	branch := func(name string) *platform.GetBranchParams {
		return &platform.GetBranchParams{Organization: org, Database: db, Branch: name}
	}

	// A database, ready with its production branch main.
	if _, err := client.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: org, Name: db, ClusterSize: "PS_10"}); err != nil {
		return fmt.Errorf("creating %s: %w", db, err)
	}
	if _, err := client.Databases.Wait(ctx, &platform.GetDatabaseParams{Organization: org, Database: db}); err != nil {
		return fmt.Errorf("waiting for %s: %w", db, err)
	}
	fmt.Fprintf(w, "1. database %s is ready\n", db)

	// A development branch of main; it copies main's schema.
	if _, err := client.Branches.Create(ctx, &platform.CreateBranchParams{Organization: org, Database: db, Name: "feature", ParentBranch: "main"}); err != nil {
		return fmt.Errorf("creating the branch: %w", err)
	}
	b, err := client.Branches.Wait(ctx, branch("feature"))
	if err != nil {
		return fmt.Errorf("waiting for the branch: %w", err)
	}
	fmt.Fprintf(w, "2. branch %s of %s is %s\n", b.Name, *b.ParentBranch, b.State)

	// The schema change. The fake stands for the SQL connection that
	// would carry it.
	if err := srv.PushSchema(org, db, "feature",
		"CREATE TABLE items (id bigint NOT NULL, sku varchar(64), PRIMARY KEY (id))",
		"CREATE TABLE stock (item_id bigint NOT NULL, quantity int, PRIMARY KEY (item_id))",
	); err != nil {
		return err
	}
	fmt.Fprintf(w, "3. feature's tables: %s\n", tableNames(ctx, client, branch("feature")))

	// A backup of the branch, waited for until it is done.
	backup, err := client.Backups.Create(ctx, &platform.CreateBackupParams{Organization: org, Database: db, Branch: "feature", Name: platform.Ptr("before-launch")})
	if err != nil {
		return fmt.Errorf("backing up: %w", err)
	}
	fmt.Fprintf(w, "4. backup %s is %s\n", backup.Name, backup.State)
	backup, err = client.Backups.Wait(ctx, &platform.GetBackupParams{Organization: org, Database: db, Branch: "feature", ID: backup.ID})
	if err != nil {
		return fmt.Errorf("waiting for the backup: %w", err)
	}
	fmt.Fprintf(w, "   backup %s is %s, %d bytes, kept until %s\n", backup.Name, backup.State, backup.Size, backup.ExpiresAt.Format("2006-01-02"))

	// The backup restored into a new branch, which gets its schema.
	if _, err := client.Branches.Create(ctx, &platform.CreateBranchParams{
		Organization: org, Database: db, Name: "restored", BackupID: backup.ID, ClusterSize: "PS_10",
	}); err != nil {
		return fmt.Errorf("restoring the backup: %w", err)
	}
	restored, err := client.Branches.Wait(ctx, branch("restored"))
	if err != nil {
		return fmt.Errorf("waiting for the restored branch: %w", err)
	}
	fmt.Fprintf(w, "5. branch %s restored from %s: %s\n", restored.Name, restored.RestoredFromBranch.Name, tableNames(ctx, client, branch("restored")))

	// A password for the restored branch that expires in an hour.
	pw, err := client.Passwords.Create(ctx, &platform.CreatePasswordParams{
		Organization: org, Database: db, Branch: "restored",
		Name: platform.Ptr("reporting"), Role: platform.Ptr(platform.PasswordReader), TTL: platform.Ptr(3600),
	})
	if err != nil {
		return fmt.Errorf("creating a password: %w", err)
	}
	fmt.Fprintf(w, "6. password %s (shown once: %t) expires at %s\n", pw.Name, pw.PlainText != nil, pw.ExpiresAt.Format("15:04"))
	srv.Advance(pw.ExpiresAt.Sub(srv.Now()))
	pw, err = client.Passwords.Get(ctx, &platform.GetPasswordParams{Organization: org, Database: db, Branch: "restored", ID: pw.ID})
	if err != nil {
		return fmt.Errorf("reading the password: %w", err)
	}
	fmt.Fprintf(w, "   an hour later: expired %t, shown in the response: %t\n", pw.Expired, pw.PlainText != nil)
	return nil
}

// tableNames lists a branch's tables.
func tableNames(ctx context.Context, client *platform.Client, b *platform.GetBranchParams) string {
	schema, err := client.Branches.GetSchema(ctx, &platform.GetBranchSchemaParams{Organization: b.Organization, Database: b.Database, Branch: b.Branch})
	if err != nil {
		return "(" + err.Error() + ")"
	}
	names := make([]string, len(schema.Tables))
	for i, t := range schema.Tables {
		names[i] = t.Name
	}
	return strings.Join(names, ", ")
}
