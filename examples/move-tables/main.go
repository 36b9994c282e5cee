// Command move-tables moves a table from one keyspace of a branch to
// another with a workflow, against the in-memory fake: it creates a
// database with two tables and a second keyspace, starts a workflow that
// moves one table, waits for it to copy and catch up, verifies the data,
// switches replica then primary traffic, cuts over and completes, printing
// each state, and shows each keyspace's tables before and after. The
// fake's clock is virtual, so the waits take no real time and the output
// is the same on every run.
//
//	go run ./examples/move-tables
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
		fmt.Fprintln(os.Stderr, "move-tables:", err)
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

	// A database whose main branch holds orders and events in the default
	// keyspace, shop, and a second keyspace, history, for the events.
	if _, err := client.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: org, Name: db, ClusterSize: "PS_10"}); err != nil {
		return fmt.Errorf("creating %s: %w", db, err)
	}
	if _, err := client.Databases.Wait(ctx, &platform.GetDatabaseParams{Organization: org, Database: db}); err != nil {
		return fmt.Errorf("waiting for %s: %w", db, err)
	}
	// The fake stands for the SQL connection that would create the tables.
	if err := srv.PushSchema(org, db, "main",
		"CREATE TABLE orders (id bigint NOT NULL, PRIMARY KEY (id))",
		"CREATE TABLE events (id bigint NOT NULL, kind varchar(32), PRIMARY KEY (id))",
	); err != nil {
		return err
	}
	if _, err := client.Keyspaces.Create(ctx, &platform.CreateKeyspaceParams{Organization: org, Database: db, Branch: "main", Name: "history", ClusterSize: "PS_10"}); err != nil {
		return fmt.Errorf("creating the keyspace: %w", err)
	}
	if _, err := client.Keyspaces.Wait(ctx, &platform.GetKeyspaceParams{Organization: org, Database: db, Branch: "main", Keyspace: "history"}); err != nil {
		return fmt.Errorf("waiting for the keyspace: %w", err)
	}
	if err := printTables(ctx, w, client, org, db, "before"); err != nil {
		return err
	}

	// The workflow, from creation to completion.
	wf, err := client.Workflows.Create(ctx, &platform.CreateWorkflowParams{
		Organization: org, Database: db, Name: "move-events",
		SourceKeyspace: db, TargetKeyspace: "history", Tables: []string{"events"},
	})
	if err != nil {
		return fmt.Errorf("creating the workflow: %w", err)
	}
	start := wf.CreatedAt.Time
	ref := &platform.WorkflowParams{Organization: org, Database: db, Number: wf.Number}
	show := func(wf *platform.Workflow) {
		fmt.Fprintf(w, "  +%-6s %s\n", wf.UpdatedAt.Time.Sub(start), wf.State)
	}
	fmt.Fprintf(w, "workflow #%d %s moves %s.events to history:\n", wf.Number, wf.Name, db)
	show(wf)
	steps := []struct {
		action    func(context.Context, *platform.WorkflowParams) (*platform.Workflow, error)
		waitState platform.WorkflowState
	}{
		{nil, platform.WorkflowCopying},
		{nil, platform.WorkflowRunning},
		{client.Workflows.VerifyData, platform.WorkflowVerifiedData},
		{client.Workflows.SwitchReplicas, platform.WorkflowSwitchedReplicas},
		{client.Workflows.SwitchPrimaries, platform.WorkflowSwitchedPrimaries},
		{client.Workflows.Cutover, platform.WorkflowCutover},
		{client.Workflows.Complete, platform.WorkflowCompleted},
	}
	for _, st := range steps {
		if st.action != nil {
			if wf, err = st.action(ctx, ref); err != nil {
				return err
			}
			if wf.State != st.waitState {
				show(wf) // the action's own state, before the clock ends it
			}
		}
		if wf, err = client.Workflows.Wait(ctx, ref, st.waitState); err != nil {
			return fmt.Errorf("waiting for %s: %w", st.waitState, err)
		}
		show(wf)
	}
	return printTables(ctx, w, client, org, db, "after")
}

// printTables writes the tables of each keyspace of main.
func printTables(ctx context.Context, w io.Writer, client *platform.Client, org, db, when string) error {
	fmt.Fprintf(w, "%s:\n", when)
	for _, ks := range []string{db, "history"} {
		schema, err := client.Branches.GetSchema(ctx, &platform.GetBranchSchemaParams{Organization: org, Database: db, Branch: "main", Keyspace: ks})
		if err != nil {
			return fmt.Errorf("reading the schema of %s: %w", ks, err)
		}
		var names []string
		for _, t := range schema.Tables {
			names = append(names, t.Name)
		}
		if len(names) == 0 {
			names = []string{"(no tables)"}
		}
		fmt.Fprintf(w, "  %-8s %s\n", ks, strings.Join(names, " "))
	}
	return nil
}
