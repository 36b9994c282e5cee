package browsertest

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// This test opens the fake's state page (/_fake/) in headless Chromium:
// it signs in with the admin token's form, reads the tables, advances the
// clock with the page's form, signs out, and signs in again with a
// one-time link. The page has no scripts; the test reads it with scripts
// of its own.
//
// It saves screenshots of the page in $SCREENSHOT_DIR when that is set
// (.ci/run sets it); with -update-docs it also writes the README's
// screenshot, docs/state-page.png.

var updateDocs = flag.Bool("update-docs", false, "write the README's screenshot of the state page, docs/state-page.png")

// docsScreenshot is the README's screenshot, from this module's directory.
const docsScreenshot = "../../../docs/state-page.png"

// seedStateDemo fills srv with a small world for the page to show: three
// databases (one still being created), a branch with a deploy request, a
// workflow, backups, a webhook with a delivery, and a refused request.
func seedStateDemo(ctx context.Context, t *testing.T, srv *fake.Server) {
	t.Helper()
	c, org := srv.Client(), srv.Org()
	check := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("seeding the demo: %s: %v", what, err)
		}
	}
	for _, db := range []struct {
		name string
		kind platform.DatabaseKind
	}{{"app-db", platform.KindMySQL}, {"analytics", platform.KindPostgreSQL}} {
		_, err := c.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: org, Name: db.name, ClusterSize: "PS_10", Kind: db.kind})
		check("creating "+db.name, err)
	}
	srv.Advance(10 * time.Second)
	check("pushing a schema", srv.PushSchema(org, "app-db", "main",
		"CREATE TABLE `users` (id bigint NOT NULL, PRIMARY KEY (id))",
		"CREATE TABLE `audit` (id bigint NOT NULL, PRIMARY KEY (id))"))
	_, err := c.Branches.EnableSafeMigrations(ctx, &platform.EnableSafeMigrationsParams{Organization: org, Database: "app-db", Branch: "main"})
	check("enabling safe migrations", err)
	_, err = c.Branches.Create(ctx, &platform.CreateBranchParams{Organization: org, Database: "app-db", Name: "add-orders", ParentBranch: "main"})
	check("creating a branch", err)
	srv.Advance(10 * time.Second)
	check("pushing the branch's schema", srv.PushSchema(org, "app-db", "add-orders",
		"CREATE TABLE `orders` (id bigint NOT NULL, PRIMARY KEY (id))"))
	_, err = c.DeployRequests.Create(ctx, &platform.CreateDeployRequestParams{Organization: org, Database: "app-db", Branch: "add-orders", IntoBranch: "main"})
	check("opening a deploy request", err)
	check("adding a keyspace", srv.AddKeyspace(org, "app-db", "main", "archive", 1))
	_, err = c.Workflows.Create(ctx, &platform.CreateWorkflowParams{Organization: org, Database: "app-db", Name: "move-audit", SourceKeyspace: "app-db", TargetKeyspace: "archive", Tables: []string{"audit"}})
	check("starting a workflow", err)
	_, err = c.Backups.Create(ctx, &platform.CreateBackupParams{Organization: org, Database: "app-db", Branch: "main", Name: platform.Ptr("before-orders")})
	check("backing up", err)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	t.Cleanup(receiver.Close)
	hook, err := c.Webhooks.Create(ctx, &platform.CreateWebhookParams{Organization: org, Database: "app-db", URL: receiver.URL + "/hooks"})
	check("creating a webhook", err)
	srv.Advance(30 * time.Second)
	check("testing the webhook", c.Webhooks.Test(ctx, &platform.TestWebhookParams{Organization: org, Database: "app-db", ID: hook.ID}))
	check("flushing deliveries", srv.FlushDeliveries(ctx))
	_, err = c.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: org, Name: "orders", ClusterSize: "PS_10"})
	check("creating orders", err)
	_, err = c.Databases.Get(ctx, &platform.GetDatabaseParams{Organization: org, Database: "no-such-db"})
	if err == nil {
		t.Fatal("seeding the demo: getting a database that does not exist succeeded")
	}
}

// readTableJS reads the rows of a table of the state page, by its
// section's id, as the text of their cells.
const readTableJS = `Array.from(document.querySelectorAll("section#%s tbody tr")).map(tr => Array.from(tr.cells).map(td => td.textContent))`

func TestBrowserStatePage(t *testing.T) {
	t.Parallel()
	ctx, path, output := startBrowserTest(t, "the fake")
	srv := fake.NewServer(t)
	seedStateDemo(ctx, t, srv)
	browserCtx := newBrowser(ctx, t, path, output)

	run := func(name string, actions ...chromedp.Action) {
		t.Helper()
		if err := chromedp.Run(browserCtx, actions...); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	screenshot := func(name string, also ...string) {
		t.Helper()
		var png []byte
		run("screenshot "+name, chromedp.FullScreenshot(&png, 100))
		var paths []string
		if dir := os.Getenv("SCREENSHOT_DIR"); dir != "" {
			paths = append(paths, filepath.Join(dir, name))
		}
		for _, p := range append(paths, also...) {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, png, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("screenshot: %s", p)
		}
	}

	var title string
	run("opening the page", chromedp.EmulateViewport(1100, 800),
		chromedp.Navigate(srv.URL()+"_fake/"), chromedp.WaitVisible("#token", chromedp.ByQuery), chromedp.Title(&title))
	if title != "Sign in: the fake's state" {
		t.Errorf("without a session the page is %q, want the sign-in form", title)
	}
	screenshot("state-page-sign-in.png")
	run("signing in", chromedp.SendKeys("#token", srv.AdminToken().Authorization(), chromedp.ByQuery),
		chromedp.Click("#sign-in button", chromedp.ByQuery), chromedp.WaitVisible("#clock", chromedp.ByQuery))

	var databases [][]string
	run("reading the databases", chromedp.Evaluate(fmt.Sprintf(readTableJS, "databases"), &databases))
	var names []string
	for _, row := range databases {
		names = append(names, row[1]+" "+row[3])
	}
	if diff := cmp.Diff([]string{"app-db ready", "analytics ready", "orders pending"}, names); diff != "" {
		t.Errorf("the databases and their states (-want +got):\n%s", diff)
	}
	var requests [][]string
	run("reading the request log", chromedp.Evaluate(fmt.Sprintf(readTableJS, "requests"), &requests))
	if !slices.ContainsFunc(requests, func(r []string) bool { return r[3] == "404" && r[4] == "get_database" }) {
		t.Errorf("the request log does not show the refused get_database: %q", requests)
	}
	docs := []string{}
	if *updateDocs {
		docs = append(docs, docsScreenshot)
	}
	screenshot("state-page.png", docs...)

	var before string
	run("reading the clock", chromedp.Text("#now", &before, chromedp.ByQuery))
	at, err := time.Parse(platform.TimeLayout, before)
	if err != nil {
		t.Fatalf("the page's clock %q: %v", before, err)
	}
	want := platform.NewTimestamp(at.Add(time.Hour)).String()
	run("advancing an hour", chromedp.SetValue("#d", "1h", chromedp.ByQuery),
		chromedp.Click("#advance button", chromedp.ByQuery),
		chromedp.WaitVisible(`time#now[datetime="`+want+`"]`, chromedp.ByQuery))
	if got := platform.NewTimestamp(srv.Now()).String(); got != want {
		t.Errorf("after advancing an hour on the page the clock is %s, want %s", got, want)
	}
	databases = nil
	run("reading the databases again", chromedp.Evaluate(fmt.Sprintf(readTableJS, "databases"), &databases))
	if len(databases) != 3 || databases[2][3] != "ready" {
		t.Errorf("an hour later the databases are %q, want orders ready too", databases)
	}
	screenshot("state-page-advanced.png")

	// Signed out, the browser signs in again with a one-time link, as the
	// standalone server prints at start.
	run("signing out", chromedp.Click("#sign-out", chromedp.ByQuery), chromedp.WaitVisible("#token", chromedp.ByQuery))
	var location string
	run("following a sign-in link", chromedp.Navigate(srv.StatePageLink()), chromedp.WaitVisible("#clock", chromedp.ByQuery), chromedp.Location(&location))
	if location != srv.URL()+"_fake/" {
		t.Errorf("the sign-in link led to %s, want %s_fake/", location, srv.URL())
	}
}
