package platform_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"strings"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// ExampleNewClient builds a client for a service token. Here the API is the
// in-memory fake; against the live API, leave out WithBaseURL.
func ExampleNewClient() {
	srv, err := fake.New()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	tok := srv.AdminToken()

	client, err := platform.NewClient(
		platform.WithBaseURL(srv.URL()),
		platform.WithServiceToken(tok.ID, tok.Secret),
		platform.WithUserAgent("example/1.0"),
	)
	if err != nil {
		log.Fatal(err)
	}
	org, err := client.Organizations.Get(context.Background(), &platform.GetOrganizationParams{Organization: "acme"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(org.Name, org.Type)
	// Output:
	// acme Organization
}

func ExampleDatabasesService_List() {
	srv, err := fake.New()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()

	// Lists are oldest first; the fake's clock moves a second between
	// creations so that the order is the order of creation.
	for _, name := range []string{"orders", "users", "events"} {
		_, err := client.Databases.Create(ctx, &platform.CreateDatabaseParams{
			Organization: "acme", Name: name, ClusterSize: "PS_10",
		})
		if err != nil {
			log.Fatal(err)
		}
		srv.Advance(time.Second)
	}

	page, err := client.Databases.List(ctx, &platform.ListDatabasesParams{
		Organization: "acme",
		ListParams:   platform.ListParams{PerPage: 2},
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, db := range page.Items {
		fmt.Println(db.Name, db.State)
	}
	fmt.Println("total:", *page.TotalCount, "next page:", *page.NextPage)
	// Output:
	// orders pending
	// users pending
	// total: 3 next page: 2
}

func ExampleDatabasesService_All() {
	srv, err := fake.New()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()

	// Lists are oldest first; the fake's clock moves a second between
	// creations so that the order is the order of creation.
	for _, name := range []string{"app-1", "app-2", "app-3", "app-4", "app-5"} {
		_, err := client.Databases.Create(ctx, &platform.CreateDatabaseParams{
			Organization: "acme", Name: name, ClusterSize: "PS_10",
		})
		if err != nil {
			log.Fatal(err)
		}
		srv.Advance(time.Second)
	}

	// All fetches the pages (here of 2 databases) as the loop needs them.
	n := 0
	for db, err := range client.Databases.All(ctx, &platform.ListDatabasesParams{
		Organization: "acme",
		ListParams:   platform.ListParams{PerPage: 2},
	}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(db.Name)
		n++
	}
	fmt.Println(n, "databases")
	// Output:
	// app-1
	// app-2
	// app-3
	// app-4
	// app-5
	// 5 databases
}

func Example_errorHandling() {
	srv, err := fake.New()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	client := srv.Client()

	_, err = client.Databases.Get(context.Background(), &platform.GetDatabaseParams{
		Organization: "acme", Database: "no-such-db",
	})
	if errors.Is(err, platform.ErrNotFound) {
		fmt.Println("not found (or not visible to this token)")
	}
	var apiErr *platform.Error
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, apiErr.Code)
	}

	_, err = client.Databases.Create(context.Background(), &platform.CreateDatabaseParams{
		Organization: "acme", Name: "Not A Slug", // names are lowercase slugs
	})
	if errors.Is(err, platform.ErrUnprocessable) && errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, apiErr.Code)
	}

	// A missing path value is caught before any request.
	_, err = client.Databases.Get(context.Background(), &platform.GetDatabaseParams{Organization: "acme"})
	var argErr *platform.ArgError
	if errors.As(err, &argErr) {
		fmt.Println("missing", argErr.Arg)
	}
	// Output:
	// not found (or not visible to this token)
	// 404 not_found
	// 422 unprocessable
	// missing database
}

// ExamplePasswordsService_Create creates a short-lived password for a MySQL
// branch. Its plain text is in the creation's response only: keep it then.
func ExamplePasswordsService_Create() {
	srv, err := fake.New()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()
	if _, err := client.Databases.Create(ctx, &platform.CreateDatabaseParams{
		Organization: "acme", Name: "shop", ClusterSize: "PS_10",
	}); err != nil {
		log.Fatal(err)
	}
	srv.Advance(5 * time.Second)

	pw, err := client.Passwords.Create(ctx, &platform.CreatePasswordParams{
		Organization: "acme", Database: "shop", Branch: "main",
		Name:  platform.Ptr("ci"),
		Role:  platform.Ptr(platform.PasswordReader),
		TTL:   platform.Ptr(3600),
		CIDRs: []string{"192.0.2.0/24"},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(pw.Name, pw.Role, pw.AccessHostURL, pw.PlainText != nil, pw.Renewable)

	again, err := client.Passwords.Get(ctx, &platform.GetPasswordParams{
		Organization: "acme", Database: "shop", Branch: "main", ID: pw.ID,
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("plain text shown again:", again.PlainText != nil)

	srv.Advance(time.Hour)
	if _, err := client.Passwords.Renew(ctx, &platform.RenewPasswordParams{
		Organization: "acme", Database: "shop", Branch: "main", ID: pw.ID,
	}); errors.Is(err, platform.ErrUnprocessable) {
		fmt.Println("expired; create a new one")
	}
	// Output:
	// ci reader aws.connect.dbplatform.dev true true
	// plain text shown again: false
	// expired; create a new one
}

// ExampleKeyspacesService_Resize resizes a keyspace and waits for the
// rollout to complete; the fake's clock moves while the waiter polls.
func ExampleKeyspacesService_Resize() {
	srv, err := fake.New()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()
	if _, err := client.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: "acme", Name: "shop", ClusterSize: "PS_10"}); err != nil {
		log.Fatal(err)
	}
	srv.Advance(time.Minute) // the database is ready

	req, err := client.Keyspaces.Resize(ctx, &platform.ResizeKeyspaceParams{
		Organization: "acme", Database: "shop", Branch: "main", Keyspace: "shop",
		ClusterSize: platform.Ptr("PS_40"), ExtraReplicas: platform.Ptr(1),
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(req.State, req.PreviousClusterName, "->", req.ClusterName)

	done, err := client.Keyspaces.WaitResize(ctx, &platform.GetKeyspaceResizeParams{
		Organization: "acme", Database: "shop", Branch: "main", Keyspace: "shop", ID: req.ID,
	})
	if err != nil {
		log.Fatal(err)
	}
	ks, err := client.Keyspaces.Get(ctx, &platform.GetKeyspaceParams{Organization: "acme", Database: "shop", Branch: "main", Keyspace: "shop"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(done.State, ks.ClusterName, ks.Replicas, "replicas")
	// Output:
	// queued PS_10 -> PS_40
	// completed PS_40 3 replicas
}

// ExampleAuditLogsService_All reads the audit log newest first.
func ExampleAuditLogsService_All() {
	srv, err := fake.New()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()

	// Every change made through the API is an entry of the audit log.
	if _, err := client.Databases.Create(ctx, &platform.CreateDatabaseParams{
		Organization: "acme", Name: "orders", ClusterSize: "PS_10",
	}); err != nil {
		log.Fatal(err)
	}
	srv.Advance(fake.DefaultTimings().DatabaseReady)
	if _, err := client.Branches.Create(ctx, &platform.CreateBranchParams{
		Organization: "acme", Database: "orders", Name: "feature", ParentBranch: "main",
	}); err != nil {
		log.Fatal(err)
	}

	// Newest first, one page of one entry at a time.
	for entry, err := range client.AuditLogs.All(ctx, &platform.ListAuditLogsParams{
		Organization: "acme",
		CursorParams: platform.CursorParams{Limit: 1},
	}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(entry.AuditAction, *entry.TargetType, *entry.TargetDisplayName, "in", entry.AuditableDisplayName)
	}
	// Output:
	// branch.created DatabaseBranch feature in orders
	// database.created Database orders in acme
}

// ExampleWorkflowTable follows the copy of a workflow's tables on the
// fake's clock: they copy one after another, each to 100%.
func ExampleWorkflowTable() {
	srv, err := fake.New()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()
	if _, err := client.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: "acme", Name: "shop", ClusterSize: "PS_10"}); err != nil {
		log.Fatal(err)
	}
	srv.Advance(time.Minute) // the database is ready
	if err := srv.PushSchema("acme", "shop", "main",
		"CREATE TABLE events (id bigint NOT NULL, PRIMARY KEY (id))", "CREATE TABLE visits (id bigint NOT NULL, PRIMARY KEY (id))"); err != nil {
		log.Fatal(err)
	}
	if err := srv.AddKeyspace("acme", "shop", "main", "history", 1); err != nil {
		log.Fatal(err)
	}
	wf, err := client.Workflows.Create(ctx, &platform.CreateWorkflowParams{
		Organization: "acme", Database: "shop", Name: "move-history", Branch: platform.Ptr("main"),
		SourceKeyspace: "shop", TargetKeyspace: "history", Tables: []string{"events", "visits"},
	})
	if err != nil {
		log.Fatal(err)
	}
	ref := &platform.WorkflowParams{Organization: "acme", Database: "shop", Number: wf.Number}
	for range 3 {
		srv.Advance(25 * time.Second) // the default timings: start 5 s, copy a minute
		if wf, err = client.Workflows.Get(ctx, ref); err != nil {
			log.Fatal(err)
		}
		fmt.Print(wf.State)
		for _, t := range wf.Tables {
			fmt.Printf(", %s %d/%d (%d%%)", t.Name, t.RowsCopied, t.RowsTotal, t.RowsPercentage)
		}
		fmt.Println()
	}
	// Output:
	// copying, events 666/1000 (66%), visits 0/1000 (0%)
	// copying, events 1000/1000 (100%), visits 500/1000 (50%)
	// running, events 1000/1000 (100%), visits 1000/1000 (100%)
}

// ExampleWorkflowsService_Wait moves a table to another keyspace with
// a workflow, waiting on the fake's clock for each state an action leads
// to.
func ExampleWorkflowsService_Wait() {
	srv, err := fake.New()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()
	if _, err := client.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: "acme", Name: "shop", ClusterSize: "PS_10"}); err != nil {
		log.Fatal(err)
	}
	srv.Advance(time.Minute) // the database is ready
	if err := srv.PushSchema("acme", "shop", "main", "CREATE TABLE events (id bigint NOT NULL, PRIMARY KEY (id))"); err != nil {
		log.Fatal(err)
	}
	if err := srv.AddKeyspace("acme", "shop", "main", "history", 1); err != nil {
		log.Fatal(err)
	}

	wf, err := client.Workflows.Create(ctx, &platform.CreateWorkflowParams{
		Organization: "acme", Database: "shop", Name: "move-events",
		SourceKeyspace: "shop", TargetKeyspace: "history", Tables: []string{"events"},
	})
	if err != nil {
		log.Fatal(err)
	}
	ref := &platform.WorkflowParams{Organization: "acme", Database: "shop", Number: wf.Number}
	for _, step := range []struct {
		action func(context.Context, *platform.WorkflowParams) (*platform.Workflow, error)
		state  platform.WorkflowState
	}{
		{nil, platform.WorkflowRunning},
		{client.Workflows.SwitchReplicas, platform.WorkflowSwitchedReplicas},
		{client.Workflows.SwitchPrimaries, platform.WorkflowSwitchedPrimaries},
		{client.Workflows.Cutover, platform.WorkflowCutover},
		{client.Workflows.Complete, platform.WorkflowCompleted},
	} {
		if step.action != nil {
			if _, err := step.action(ctx, ref); err != nil {
				log.Fatal(err)
			}
		}
		if wf, err = client.Workflows.Wait(ctx, ref, step.state); err != nil {
			log.Fatal(err)
		}
		fmt.Println(wf.State)
	}
	schema, err := client.Branches.GetSchema(ctx, &platform.GetBranchSchemaParams{Organization: "acme", Database: "shop", Branch: "main", Keyspace: "history"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("history holds", schema.Tables[0].Name)
	// Output:
	// running
	// switched_replicas
	// switched_primaries
	// cutover
	// completed
	// history holds events
}

func ExampleBillingService_AllInvoiceLineItems() {
	srv, err := fake.New()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()
	if _, err := client.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: "acme", Name: "shop", ClusterSize: "PS_10"}); err != nil {
		log.Fatal(err)
	}
	srv.Advance(10 * 24 * time.Hour) // to January 11: a development branch runs for five days
	if _, err := client.Branches.Create(ctx, &platform.CreateBranchParams{Organization: "acme", Database: "shop", Name: "dev", ParentBranch: "main"}); err != nil {
		log.Fatal(err)
	}
	srv.Advance(5 * 24 * time.Hour)
	if err := client.Branches.Delete(ctx, &platform.DeleteBranchParams{Organization: "acme", Database: "shop", Branch: "dev"}); err != nil {
		log.Fatal(err)
	}
	srv.Advance(16 * 24 * time.Hour) // February 1: January's invoice is issued

	for inv, err := range client.Billing.AllInvoices(ctx, &platform.ListInvoicesParams{Organization: "acme"}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(inv.BillingPeriodStart.Format("January 2006"), "total", inv.Total, "paid", inv.Paid)
		items := client.Billing.AllInvoiceLineItems(ctx, &platform.ListInvoiceLineItemsParams{Organization: "acme", ID: inv.ID})
		for li, err := range items {
			if err != nil {
				log.Fatal(err)
			}
			fmt.Printf("%s/%s: %s = %.2f\n", li.DatabaseName, li.Resource.Name, li.Description, li.Subtotal)
		}
	}
	// Output:
	// January 2026 total 46.16 paid false
	// shop/dev: PS-10 cluster, 120 hours at 39.00 a month = 6.41
	// shop/main: PS-10 cluster, 744 hours at 39.00 a month = 39.75
}

// ExampleVitessService_CreatePlannedReparent moves a shard's primary to
// one of its replicas and reads the shard afterwards.
func ExampleVitessService_CreatePlannedReparent() {
	srv, err := fake.New()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()
	if _, err := client.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: "acme", Name: "shop", ClusterSize: "PS_10"}); err != nil {
		log.Fatal(err)
	}
	srv.Advance(time.Minute) // the database is ready

	replicas, err := client.Vitess.ListTablets(ctx, &platform.ListTabletsParams{
		Organization: "acme", Database: "shop", Branch: "main", Keyspace: "shop", TabletType: platform.TabletReplica,
	})
	if err != nil {
		log.Fatal(err)
	}
	target := replicas[0].Tablets[0].Alias
	op, err := client.Vitess.CreatePlannedReparent(ctx, &platform.CreatePlannedReparentParams{
		Organization: "acme", Database: "shop", Branch: "main", Keyspace: "shop", Shard: "-", NewPrimary: target,
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(op.Action, op.State)

	done, err := client.Vitess.WaitPlannedReparent(ctx, &platform.GetPlannedReparentParams{Organization: "acme", Database: "shop", Branch: "main", ID: op.ID})
	if err != nil {
		log.Fatal(err)
	}
	shard, err := client.Vitess.GetShard(ctx, &platform.GetShardParams{Organization: "acme", Database: "shop", Branch: "main", Keyspace: "shop", Shard: "-"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(done.State, shard.Primary.String() == target)
	// Output:
	// planned_reparent_shard pending
	// completed true
}

// ExampleVitessService_CreateMoveTables moves a table to a new sharded
// keyspace: create the workflow, wait for its copy, switch all traffic,
// complete. Each action is an operation; WaitOperation waits for its
// result.
func ExampleVitessService_CreateMoveTables() {
	srv, err := fake.New()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()
	if _, err := client.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: "acme", Name: "shop", ClusterSize: "PS_10"}); err != nil {
		log.Fatal(err)
	}
	srv.Advance(time.Minute)
	if err := srv.PushSchema("acme", "shop", "main", "CREATE TABLE `orders` (id bigint NOT NULL, PRIMARY KEY (id))"); err != nil {
		log.Fatal(err)
	}
	if err := srv.AddKeyspace("acme", "shop", "main", "sales", 2); err != nil {
		log.Fatal(err)
	}
	srv.Advance(time.Minute)

	wait := func(ref *platform.VitessOperationRef, err error) *platform.MoveTablesResult {
		if err != nil {
			log.Fatal(err)
		}
		op, err := client.Vitess.WaitOperation(ctx, &platform.GetVitessOperationParams{Organization: "acme", Database: "shop", Branch: "main", ID: ref.ID})
		if err != nil {
			log.Fatal(err)
		}
		r, err := op.MoveTables()
		if err != nil {
			log.Fatal(err)
		}
		return r
	}
	r := wait(client.Vitess.CreateMoveTables(ctx, &platform.CreateMoveTablesParams{
		Organization: "acme", Database: "shop", Branch: "main",
		Workflow: "move-orders", SourceKeyspace: "shop", TargetKeyspace: "sales", Tables: []string{"orders"},
	}))
	fmt.Println(r.Summary)

	w, err := client.Vitess.WaitMoveTables(ctx, &platform.GetMoveTablesParams{Organization: "acme", Database: "shop", Branch: "main", Workflow: "move-orders", TargetKeyspace: "sales"})
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range w.Workflow.Streams {
		fmt.Println(s.Shard, s.State, s.RowsCopied)
	}
	r = wait(client.Vitess.SwitchTraffic(ctx, &platform.SwitchTrafficParams{Organization: "acme", Database: "shop", Branch: "main", Workflow: "move-orders", TargetKeyspace: "sales"}))
	fmt.Println(r.CurrentState)
	r = wait(client.Vitess.CompleteMoveTables(ctx, &platform.CompleteMoveTablesParams{Organization: "acme", Database: "shop", Branch: "main", Workflow: "move-orders", TargetKeyspace: "sales"}))
	fmt.Println(r.Summary)
	schema, err := client.Branches.GetSchema(ctx, &platform.GetBranchSchemaParams{Organization: "acme", Database: "shop", Branch: "main", Keyspace: "sales"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(schema.Tables[0].Name)
	// Output:
	// Successfully created the move-orders MoveTables workflow on (2) target primary tablets in the sales keyspace
	// -80 Running 1000
	// 80- Running 1000
	// All Reads Switched. Writes Switched
	// Successfully completed the move-orders workflow in the sales keyspace
	// orders
}

// A keyspace's tablet throttler: a tablet whose replication lag is over
// the threshold makes a check answer no, until the threshold is raised.
func ExampleVitessService_CheckThrottler() {
	srv, err := fake.New()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()
	if _, err := client.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: "acme", Name: "shop", ClusterSize: "PS_10"}); err != nil {
		log.Fatal(err)
	}
	srv.Advance(time.Minute) // the database is ready
	replicas, err := client.Vitess.ListTablets(ctx, &platform.ListTabletsParams{
		Organization: "acme", Database: "shop", Branch: "main", Keyspace: "shop", TabletType: platform.TabletReplica,
	})
	if err != nil {
		log.Fatal(err)
	}
	replica := replicas[0].Tablets[0].Alias
	if err := srv.SetThrottlerMetric("acme", "shop", "main", replica, "lag", 8); err != nil {
		log.Fatal(err)
	}
	check := func() {
		c, err := client.Vitess.CheckThrottler(ctx, &platform.CheckThrottlerParams{
			Organization: "acme", Database: "shop", Branch: "main", TabletAlias: replica, AppName: platform.Ptr("online-ddl"),
		})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(c.OK, c.ResponseCode, c.Value, c.Threshold)
	}
	check()
	if _, err := client.Vitess.UpdateThrottlerConfig(ctx, &platform.UpdateThrottlerConfigParams{
		Organization: "acme", Database: "shop", Branch: "main", Keyspace: "shop", Threshold: platform.Ptr(10.0),
	}); err != nil {
		log.Fatal(err)
	}
	check()
	// Output:
	// false THRESHOLD_EXCEEDED 8 5
	// true OK 8 10
}

// A lookup vindex: created write-only with the workflow that fills its
// table, externalized once the copy is done (WaitLookupVindex; its
// workflow frozen), then completed (the workflow deleted).
func ExampleVitessService_CreateLookupVindex() {
	srv, err := fake.New()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()
	if _, err := client.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: "acme", Name: "shop", ClusterSize: "PS_10"}); err != nil {
		log.Fatal(err)
	}
	srv.Advance(time.Minute) // the database is ready
	if err := srv.AddKeyspace("acme", "shop", "main", "orders", 2); err != nil {
		log.Fatal(err)
	}
	if err := srv.PushSchema("acme", "shop", "main", "CREATE TABLE orders.corder (id bigint NOT NULL, customer_id bigint NOT NULL, PRIMARY KEY (id))"); err != nil {
		log.Fatal(err)
	}
	if _, err := client.Vitess.CreateLookupVindex(ctx, &platform.CreateLookupVindexParams{
		Organization: "acme", Database: "shop", Branch: "main", Name: "corder_by_customer", TableKeyspace: "orders",
		Type: "consistent_lookup", TableOwner: "corder", TableOwnerColumns: []string{"customer_id"},
	}); err != nil {
		log.Fatal(err)
	}
	lv := &platform.ExternalizeLookupVindexParams{Organization: "acme", Database: "shop", Branch: "main", Name: "corder_by_customer", TableKeyspace: "orders"}
	if _, err := client.Vitess.ExternalizeLookupVindex(ctx, lv); err != nil {
		fmt.Println("externalize refused while copying")
	}
	// The waiter's polls move the fake's clock to the copy's end.
	if _, err := client.Vitess.WaitLookupVindex(ctx, &platform.GetLookupVindexParams{Organization: "acme", Database: "shop", Branch: "main", Name: "corder_by_customer", TableKeyspace: "orders"}); err != nil {
		log.Fatal(err)
	}
	changed, err := client.Vitess.ExternalizeLookupVindex(ctx, lv)
	if err != nil {
		log.Fatal(err)
	}
	show, err := client.Vitess.GetLookupVindex(ctx, &platform.GetLookupVindexParams{Organization: "acme", Database: "shop", Branch: "main", Name: "corder_by_customer", TableKeyspace: "orders"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(changed.WorkflowStopped, show.Workflow.Streams[0].State, show.Workflow.Streams[0].Message)
	if _, err := client.Vitess.CompleteLookupVindex(ctx, &platform.CompleteLookupVindexParams{Organization: "acme", Database: "shop", Branch: "main", Name: "corder_by_customer", TableKeyspace: "orders"}); err != nil {
		log.Fatal(err)
	}
	vs, err := client.Keyspaces.GetVSchema(ctx, &platform.GetVSchemaParams{Organization: "acme", Database: "shop", Branch: "main", Keyspace: "orders"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(strings.Contains(vs.Raw, `"corder_by_customer"`), strings.Contains(vs.Raw, "write_only"))
	// Output:
	// externalize refused while copying
	// true Stopped FROZEN
	// true false
}

// ExampleVitessService_WaitVDiff compares the tables a workflow moved:
// a VDiff runs on each target shard on the fake's clock and reports the
// rows a test marked as differing.
func ExampleVitessService_WaitVDiff() {
	srv, err := fake.New()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()
	if _, err := client.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: "acme", Name: "shop", ClusterSize: "PS_10"}); err != nil {
		log.Fatal(err)
	}
	srv.Advance(time.Minute) // the database is ready
	if err := srv.PushSchema("acme", "shop", "main", "CREATE TABLE customers (id bigint NOT NULL, PRIMARY KEY (id))"); err != nil {
		log.Fatal(err)
	}
	if err := srv.AddKeyspace("acme", "shop", "main", "customers", 2); err != nil {
		log.Fatal(err)
	}
	if _, err := client.Workflows.Create(ctx, &platform.CreateWorkflowParams{
		Organization: "acme", Database: "shop", Name: "move-customers", SourceKeyspace: "shop", TargetKeyspace: "customers", Tables: []string{"customers"},
	}); err != nil {
		log.Fatal(err)
	}
	srv.Advance(time.Hour) // the copy is done
	if err := srv.SetVDiffDifferences("acme", "shop", "main", "customers", "customers", fake.VDiffDifferences{Mismatched: []string{"42"}}); err != nil {
		log.Fatal(err)
	}

	created, err := client.Vitess.CreateVDiff(ctx, &platform.CreateVDiffParams{
		Organization: "acme", Database: "shop", Branch: "main", Workflow: "move-customers", TargetKeyspace: "customers",
	})
	if err != nil {
		log.Fatal(err)
	}
	v, err := client.Vitess.WaitVDiff(ctx, &platform.GetVDiffParams{
		Organization: "acme", Database: "shop", Branch: "main", Workflow: "move-customers", TargetKeyspace: "customers", UUID: created.UUID,
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(v.State, v.Shards, v.RowsCompared, v.HasMismatch)
	for _, t := range v.Tables {
		fmt.Println(t.Name, t.MismatchedRows, t.Reports["-80"].MismatchedRowsSample[0].Source.Row["id"])
	}
	// Output:
	// completed [-80 80-] 2000 true
	// customers 1 42
}
