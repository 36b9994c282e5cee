// Command deploy shows a schema change going to production through a deploy
// request, against the in-memory fake: it creates a database and a
// development branch, changes the branch's schema, opens a deploy request
// with auto-cutover off, deploys it, waits at the cutover gate, applies the
// cutover, skips the revert window and prints the deployment's timeline.
// The fake's clock is virtual, so the waits take no real time and the
// output is the same on every run.
//
//	go run ./examples/deploy
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "deploy:", err)
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

	// A database; its production branch main is ready with it.
	if _, err := client.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: org, Name: db, ClusterSize: "PS_10"}); err != nil {
		return fmt.Errorf("creating %s: %w", db, err)
	}
	if _, err := client.Databases.Wait(ctx, &platform.GetDatabaseParams{Organization: org, Database: db}); err != nil {
		return fmt.Errorf("waiting for %s: %w", db, err)
	}
	// The fake stands for the SQL connection that would create the first
	// table; then safe migrations make deploy requests the only way in.
	if err := srv.PushSchema(org, db, "main", "CREATE TABLE products (id bigint NOT NULL, name varchar(255), PRIMARY KEY (id))"); err != nil {
		return err
	}
	if _, err := client.Branches.EnableSafeMigrations(ctx, &platform.EnableSafeMigrationsParams{Organization: org, Database: db, Branch: "main"}); err != nil {
		return fmt.Errorf("enabling safe migrations: %w", err)
	}
	fmt.Fprintf(w, "database %s is ready; main has safe migrations on\n", db)

	// A development branch, and the schema change on it.
	if _, err := client.Branches.Create(ctx, &platform.CreateBranchParams{Organization: org, Database: db, Name: "add-prices", ParentBranch: "main"}); err != nil {
		return fmt.Errorf("creating the branch: %w", err)
	}
	if _, err := client.Branches.Wait(ctx, &platform.GetBranchParams{Organization: org, Database: db, Branch: "add-prices"}); err != nil {
		return fmt.Errorf("waiting for the branch: %w", err)
	}
	if err := srv.PushSchema(org, db, "add-prices",
		"CREATE TABLE products (id bigint NOT NULL, name varchar(255), price_cents int, PRIMARY KEY (id))",
		"CREATE TABLE prices (id bigint NOT NULL, product_id bigint, PRIMARY KEY (id))",
	); err != nil {
		return err
	}
	fmt.Fprintln(w, "branch add-prices changes products and adds prices")

	// The deploy request, with the cutover gated.
	dr, err := client.DeployRequests.Create(ctx, &platform.CreateDeployRequestParams{
		Organization: org, Database: db, Branch: "add-prices", IntoBranch: "main",
		Notes: "Prices per product", AutoCutover: platform.Ptr(false),
	})
	if err != nil {
		return fmt.Errorf("opening the deploy request: %w", err)
	}
	params := &platform.GetDeploymentParams{Organization: org, Database: db, Number: dr.Number}
	d, err := client.DeployRequests.WaitDeployment(ctx, params, platform.DeploymentReady)
	if err != nil {
		return fmt.Errorf("waiting for the deploy request to be checked: %w", err)
	}
	fmt.Fprintf(w, "deploy request #%d is %s with %d operations:\n", dr.Number, d.State, len(d.DeployOperations))
	for _, op := range d.DeployOperations {
		fmt.Fprintf(w, "  %s %s.%s\n", op.OperationName, op.KeyspaceName, op.TableName)
	}

	// Deploy, and wait at the gate.
	if _, err := client.DeployRequests.Deploy(ctx, &platform.DeployParams{Organization: org, Database: db, Number: dr.Number}); err != nil {
		return fmt.Errorf("deploying: %w", err)
	}
	if d, err = client.DeployRequests.WaitDeployment(ctx, params, platform.DeploymentPendingCutover); err != nil {
		return fmt.Errorf("waiting for the cutover gate: %w", err)
	}
	fmt.Fprintf(w, "deployment is %s\n", d.State)

	// Cut over, then end the revert window at once.
	if _, err := client.DeployRequests.ApplyDeploy(ctx, params); err != nil {
		return fmt.Errorf("applying the cutover: %w", err)
	}
	if d, err = client.DeployRequests.WaitDeployment(ctx, params, platform.DeploymentCompletePendingRevert); err != nil {
		return fmt.Errorf("waiting for the cutover: %w", err)
	}
	fmt.Fprintf(w, "deployment is %s: the schema is live and can be reverted\n", d.State)
	final, err := client.DeployRequests.SkipRevert(ctx, params)
	if err != nil {
		return fmt.Errorf("skipping the revert window: %w", err)
	}
	fmt.Fprintf(w, "deployment is %s; deploy request #%d is %s\n", final.DeploymentState, final.Number, final.State)

	printTimeline(w, final)
	return nil
}

// printTimeline writes each time of the deployment, and its offset from the
// deploy request's creation.
func printTimeline(w io.Writer, dr *platform.DeployRequest) {
	d := dr.Deployment
	start := dr.CreatedAt.Time
	fmt.Fprintln(w, "timeline:")
	for _, ev := range []struct {
		name string
		at   *platform.Timestamp
	}{
		{"created", &dr.CreatedAt},
		{"queued", d.QueuedAt},
		{"submitted", d.SubmittedAt},
		{"started", d.StartedAt},
		{"ready to cut over", d.ReadyToCutoverAt},
		{"cut over", d.CutoverAt},
		{"finished", d.FinishedAt},
		{"deployed", dr.DeployedAt},
		{"closed", dr.ClosedAt},
	} {
		if ev.at == nil {
			fmt.Fprintf(w, "  %-17s -\n", ev.name)
			continue
		}
		fmt.Fprintf(w, "  %-17s %s  +%s\n", ev.name, ev.at.Time.Format(time.RFC3339), ev.at.Time.Sub(start))
	}
}
