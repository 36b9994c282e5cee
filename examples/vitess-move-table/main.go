// Command vitess-move-table moves a table into a new sharded keyspace
// with the Vitess control plane, against the in-memory fake: it creates a
// keyspace of two shards, starts a MoveTables workflow for one table,
// waits for the copy, compares source and target with a VDiff, switches
// traffic to the target, completes the workflow, and prints the schema of
// each keyspace before and after. The fake's clock is virtual, so the
// waits take no real time and the output is the same on every run.
//
//	go run ./examples/vitess-move-table
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
		fmt.Fprintln(os.Stderr, "vitess-move-table:", err)
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
	db, target, workflow := "shop", "customers", "move-customers"
	o, d, b := srv.Org(), db, "main" // organization, database, branch

	// A database whose unsharded keyspace, shop, holds customers and
	// orders, and a new keyspace of two shards for the customers.
	if _, err := client.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: o, Name: d, ClusterSize: "PS_10"}); err != nil {
		return fmt.Errorf("creating %s: %w", d, err)
	}
	if _, err := client.Databases.Wait(ctx, &platform.GetDatabaseParams{Organization: o, Database: d}); err != nil {
		return fmt.Errorf("waiting for %s: %w", d, err)
	}
	// The fake stands for the SQL connection that would create the tables.
	if err := srv.PushSchema(o, d, b,
		"CREATE TABLE customers (id bigint NOT NULL, email varchar(255), PRIMARY KEY (id))",
		"CREATE TABLE orders (id bigint NOT NULL, customer_id bigint, PRIMARY KEY (id))",
	); err != nil {
		return err
	}
	if _, err := client.Keyspaces.Create(ctx, &platform.CreateKeyspaceParams{Organization: o, Database: d, Branch: b, Name: target, ClusterSize: "PS_10", Shards: platform.Ptr(2)}); err != nil {
		return fmt.Errorf("creating the keyspace: %w", err)
	}
	ks, err := client.Keyspaces.Wait(ctx, &platform.GetKeyspaceParams{Organization: o, Database: d, Branch: b, Keyspace: target})
	if err != nil {
		return fmt.Errorf("waiting for the keyspace: %w", err)
	}
	fmt.Fprintf(w, "1. keyspace %s is ready with %d shards\n", ks.Name, ks.Shards)
	if err := printTables(ctx, w, client, o, d, []string{db, target}); err != nil {
		return err
	}

	// MoveTables: create the workflow, which copies the table.
	op, err := client.Vitess.CreateMoveTables(ctx, &platform.CreateMoveTablesParams{
		Organization: o, Database: d, Branch: b, Workflow: workflow, SourceKeyspace: db, TargetKeyspace: target, Tables: []string{"customers"},
	})
	if err != nil {
		return fmt.Errorf("creating the workflow: %w", err)
	}
	if err := waitOperation(ctx, client, o, d, b, op.ID); err != nil {
		return err
	}
	// Every MoveTables workflow is a workflow of the database too, whose
	// waiter follows its copy.
	wf, err := documented(ctx, client, o, d, workflow)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "2. workflow %s moves %s.customers to %s: %s\n", workflow, db, target, wf.State)
	if wf, err = client.Workflows.Wait(ctx, &platform.WorkflowParams{Organization: o, Database: d, Number: wf.Number}, platform.WorkflowRunning); err != nil {
		return fmt.Errorf("waiting for the copy: %w", err)
	}
	fmt.Fprintf(w, "3. the copy is done: %s\n", wf.State)

	// VDiff: compare source and target on each target shard.
	created, err := client.Vitess.CreateVDiff(ctx, &platform.CreateVDiffParams{Organization: o, Database: d, Branch: b, Workflow: workflow, TargetKeyspace: target})
	if err != nil {
		return fmt.Errorf("creating the VDiff: %w", err)
	}
	v, err := client.Vitess.WaitVDiff(ctx, &platform.GetVDiffParams{Organization: o, Database: d, Branch: b, Workflow: workflow, TargetKeyspace: target, UUID: created.UUID})
	if err != nil {
		return fmt.Errorf("waiting for the VDiff: %w", err)
	}
	fmt.Fprintf(w, "4. VDiff %s on shards %s: %d rows compared, mismatch: %v\n", v.State, strings.Join(v.Shards, " "), v.RowsCompared, v.HasMismatch)
	if v.HasMismatch {
		return fmt.Errorf("the VDiff found differences; not switching traffic")
	}

	// Switch reads and writes to the target, then complete.
	op, err = client.Vitess.SwitchTraffic(ctx, &platform.SwitchTrafficParams{Organization: o, Database: d, Branch: b, Workflow: workflow, TargetKeyspace: target})
	if err != nil {
		return fmt.Errorf("switching traffic: %w", err)
	}
	if err := waitOperation(ctx, client, o, d, b, op.ID); err != nil {
		return err
	}
	rules, err := client.Vitess.GetRoutingRules(ctx, &platform.GetVitessRoutingRulesParams{Organization: o, Database: d, Branch: b})
	if err != nil {
		return err
	}
	for _, r := range rules.Rules {
		if r.FromTable == "customers" {
			fmt.Fprintf(w, "5. traffic switched: customers routes to %s\n", strings.Join(r.ToTables, " "))
		}
	}
	op, err = client.Vitess.CompleteMoveTables(ctx, &platform.CompleteMoveTablesParams{Organization: o, Database: d, Branch: b, Workflow: workflow, TargetKeyspace: target})
	if err != nil {
		return fmt.Errorf("completing: %w", err)
	}
	if err := waitOperation(ctx, client, o, d, b, op.ID); err != nil {
		return err
	}
	if wf, err = documented(ctx, client, o, d, workflow); err != nil {
		return err
	}
	fmt.Fprintf(w, "6. workflow %s is %s\n", workflow, wf.State)
	if err := printTables(ctx, w, client, o, d, []string{db, target}); err != nil {
		return err
	}
	schema, err := client.Branches.GetSchema(ctx, &platform.GetBranchSchemaParams{Organization: o, Database: d, Branch: b, Keyspace: target})
	if err != nil {
		return err
	}
	for _, t := range schema.Tables {
		fmt.Fprintf(w, "7. %s.%s: %s\n", target, t.Name, strings.Join(strings.Fields(t.Raw), " "))
	}
	return nil
}

// waitOperation waits for an operation of main's control plane to
// complete.
func waitOperation(ctx context.Context, client *platform.Client, org, db, branch, id string) error {
	op, err := client.Vitess.WaitOperation(ctx, &platform.GetVitessOperationParams{Organization: org, Database: db, Branch: branch, ID: id})
	if err != nil {
		return fmt.Errorf("operation %s: %w", id, err)
	}
	if op.State != platform.VitessOperationCompleted {
		return fmt.Errorf("operation %s (%s) is %s", id, op.Action, op.State)
	}
	return nil
}

// documented finds the database's workflow named name.
func documented(ctx context.Context, client *platform.Client, org, db, name string) (*platform.Workflow, error) {
	for wf, err := range client.Workflows.All(ctx, &platform.ListWorkflowsParams{Organization: org, Database: db}) {
		if err != nil {
			return nil, err
		}
		if wf.Name == name {
			return wf, nil
		}
	}
	return nil, fmt.Errorf("no workflow %s", name)
}

// printTables writes the tables of each keyspace of main, as its schema
// shows them.
func printTables(ctx context.Context, w io.Writer, client *platform.Client, org, db string, keyspaces []string) error {
	for _, ks := range keyspaces {
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
		fmt.Fprintf(w, "   %-10s %s\n", ks, strings.Join(names, " "))
	}
	return nil
}
