package platform_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// wireDataImportJSON is an import as the service sends it (the official
// client's fixtures: data_source names its database "database").
const wireDataImportJSON = `{"id": "PUBLIC_ID", "state": "cleanup_workflow_pending", "import_check_errors": "",
	"started_at": "2026-01-01T00:00:00Z", "finished_at": null,
	"data_source": {"hostname": "aws.rds.something.com", "port": 25060, "database": "employees"}}`

func wireDataImport() *platform.DataImport {
	return &platform.DataImport{
		ID: "PUBLIC_ID", State: platform.DataImportSwitchTrafficCompleted, StartedAt: backupTSP("2026-01-01T00:00:00Z"),
		DataSource: platform.DataSource{Hostname: "aws.rds.something.com", Port: 25060, Database: "employees"},
	}
}

// TestDataImportsWire checks each method's request (the field names the
// official client sends: database_name, connection.schema_name, ssl_mode,
// ...) and what it decodes.
func TestDataImportsWire(t *testing.T) {
	t.Parallel()
	const org, db = "acme", "my db"
	const base = "/v1/organizations/acme/databases/my%20db/data-imports"
	conn := platform.DataImportConnection{Hostname: "h.example.com", Database: "employees", Port: 3306, Username: "u", Password: "p", SSLMode: platform.SSLModePreferred}
	const connJSON = `{"hostname": "h.example.com", "schema_name": "employees", "port": 3306, "username": "u", "password": "p", "ssl_mode": "preferred"}`
	ref := &platform.DataImportParams{Organization: org, Database: db}
	runMethodCases(t, []methodCase{
		{
			name: "TestSource", status: 200,
			response: `{"can_connect": true, "error": "", "lint_errors": [{"lint_error": "NO_PRIMARY_KEY", "table_name": "employees",
				"error_description": "Table 'employees' has no primary key"}], "table_statuses": [], "suggested_plan": "scaler_pro", "max_pool_size": 20}`,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.DataImports.TestSource(ctx, &platform.TestDataImportSourceParams{Organization: org, DatabaseName: "employees", Connection: conn})
			},
			method: "POST", path: "/v1/organizations/acme/data-imports/test-connection", query: url.Values{},
			body: `{"database_name": "employees", "connection": ` + connJSON + `}`,
			want: &platform.DataImportSourceCheck{
				CanConnect: true, SuggestedPlan: "scaler_pro", MaxPoolSize: 20,
				LintErrors: []platform.DataImportLintError{{LintError: "NO_PRIMARY_KEY", Table: "employees", ErrorDescription: "Table 'employees' has no primary key"}},
			},
		},
		{
			name: "Start", status: 200, response: wireDataImportJSON,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.DataImports.Start(ctx, &platform.StartDataImportParams{Organization: org, DatabaseName: "my-db", Connection: conn,
					Region: platform.Ptr("us-west-2"), Plan: platform.Ptr("developer"), MaxPoolSize: platform.Ptr(20)})
			},
			method: "POST", path: "/v1/organizations/acme/data-imports/new", query: url.Values{},
			body: `{"database_name": "my-db", "connection": ` + connJSON + `, "region": "us-west-2", "plan": "developer", "max_pool_size": 20}`,
			want: wireDataImport(),
		},
		{
			name: "Get", status: 200, response: wireDataImportJSON,
			call:   func(ctx context.Context, c *platform.Client) (any, error) { return c.DataImports.Get(ctx, ref) },
			method: "GET", path: base, query: url.Values{}, want: wireDataImport(),
		},
		{
			name: "MakePrimary", status: 200, response: wireDataImportJSON,
			call:   func(ctx context.Context, c *platform.Client) (any, error) { return c.DataImports.MakePrimary(ctx, ref) },
			method: "POST", path: base + "/begin-switch-traffic", query: url.Values{}, want: wireDataImport(),
		},
		{
			name: "MakeReplica", status: 200, response: wireDataImportJSON,
			call:   func(ctx context.Context, c *platform.Client) (any, error) { return c.DataImports.MakeReplica(ctx, ref) },
			method: "POST", path: base + "/begin-reverse-traffic", query: url.Values{}, want: wireDataImport(),
		},
		{
			name: "Detach", status: 200, response: wireDataImportJSON,
			call:   func(ctx context.Context, c *platform.Client) (any, error) { return c.DataImports.Detach(ctx, ref) },
			method: "POST", path: base + "/detach-external-database", query: url.Values{}, want: wireDataImport(),
		},
		{
			name: "Cancel", status: 204,
			call:   func(ctx context.Context, c *platform.Client) (any, error) { return nil, c.DataImports.Cancel(ctx, ref) },
			method: "POST", path: base + "/cancel", query: url.Values{},
		},
		{
			name: "CreateNotification", status: 204,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return nil, c.DataImports.CreateNotification(ctx, &platform.CreateImportNotificationParams{
					Organization: org, Database: db, MigrationID: "abc123", Event: "imported", BranchName: platform.Ptr("main"),
					Method: platform.Ptr("pgloader"), ExportBytes: platform.Ptr(int64(1024)), TableCount: platform.Ptr(3),
				})
			},
			method: "POST", path: "/internal/organizations/acme/databases/my%20db/d1-import-notifications", query: url.Values{},
			body: `{"migration_id": "abc123", "event": "imported", "branch_name": "main", "method": "pgloader", "export_bytes": 1024, "table_count": 3}`,
		},
	})
}

// TestDataImportsArgs: missing values are refused before any I/O, naming
// them.
func TestDataImportsArgs(t *testing.T) {
	t.Parallel()
	c, err := platform.NewClient(platform.WithServiceToken("id", "secret"), platform.WithBaseURL("http://127.0.0.1:1/"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	tests := []struct {
		name string
		call func() error
		arg  string
	}{
		{"start without a name", func() error {
			_, err := c.DataImports.Start(ctx, &platform.StartDataImportParams{Organization: "acme"})
			return err
		}, "database_name"},
		{"get without a database", func() error {
			_, err := c.DataImports.Get(ctx, &platform.GetDataImportParams{Organization: "acme"})
			return err
		}, "database"},
		{"notification without an event", func() error {
			return c.DataImports.CreateNotification(ctx, &platform.CreateImportNotificationParams{Organization: "acme", Database: "db", MigrationID: "m"})
		}, "event"},
		{"wait for nothing", func() error {
			_, err := c.DataImports.Wait(ctx, &platform.GetDataImportParams{Organization: "acme", Database: "db"})
			return err
		}, "states"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var ae *platform.ArgError
			if err := tt.call(); !errors.As(err, &ae) || ae.Arg != tt.arg {
				t.Errorf("err = %v, want an *ArgError for %s", err, tt.arg)
			}
		})
	}
}

// TestDataImportsOnTheFake runs an import through the SDK against the
// fake: start, wait until it runs as a replica, make it primary, detach,
// wait until ready.
func TestDataImportsOnTheFake(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	if err := srv.SetImportSource(srv.Org(), "legacy.example.com", fake.ImportSource{Reachable: true}); err != nil {
		t.Fatal(err)
	}
	c, ctx, org := srv.Client(), t.Context(), srv.Org()
	conn := platform.DataImportConnection{Hostname: "legacy.example.com", Database: "shop", Username: "importer", Password: "pw"}
	check, err := c.DataImports.TestSource(ctx, &platform.TestDataImportSourceParams{Organization: org, DatabaseName: "shop", Connection: conn})
	if err != nil || !check.Compatible() {
		t.Fatalf("TestSource = %+v, %v", check, err)
	}
	if _, err := c.DataImports.Start(ctx, &platform.StartDataImportParams{Organization: org, DatabaseName: "shop", Connection: conn}); err != nil {
		t.Fatal(err)
	}
	p := &platform.DataImportParams{Organization: org, Database: "shop"}
	var seen []platform.DataImportState
	for _, step := range []struct {
		act  func() error
		want platform.DataImportState
	}{
		{nil, platform.DataImportSwitchTrafficPending},
		{func() error { _, err := c.DataImports.MakePrimary(ctx, p); return err }, platform.DataImportSwitchTrafficCompleted},
		{func() error { _, err := c.DataImports.Detach(ctx, p); return err }, platform.DataImportReady},
	} {
		if step.act != nil {
			if err := step.act(); err != nil {
				t.Fatal(err)
			}
		}
		imp, err := c.DataImports.Wait(ctx, p, step.want)
		if err != nil {
			t.Fatal(err)
		}
		seen = append(seen, imp.State)
	}
	want := []platform.DataImportState{platform.DataImportSwitchTrafficPending, platform.DataImportSwitchTrafficCompleted, platform.DataImportReady}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Errorf("states (-want +got):\n%s", diff)
	}
	db, err := c.Databases.Get(ctx, &platform.GetDatabaseParams{Organization: org, Database: "shop"})
	if err != nil || db.State != platform.DatabaseReady || db.DataImport == nil || db.DataImport.State != platform.DataImportReady {
		t.Errorf("database after the import = %+v, %v", db, err)
	}
}

// ExampleDataImportsService runs an import against the fake, whose
// external database is one the test sets up (the fake never connects to
// it); the waits move the fake's virtual clock.
func ExampleDataImportsService() {
	srv, err := fake.New()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	if err := srv.SetImportSource(srv.Org(), "legacy.example.com", fake.ImportSource{Reachable: true}); err != nil {
		log.Fatal(err)
	}
	c, ctx := srv.Client(), context.Background()
	imp, err := c.DataImports.Start(ctx, &platform.StartDataImportParams{
		Organization: srv.Org(), DatabaseName: "shop",
		Connection: platform.DataImportConnection{Hostname: "legacy.example.com", Database: "shop", Username: "importer", Password: "pw"},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(imp.State)
	p := &platform.DataImportParams{Organization: srv.Org(), Database: "shop"}
	if imp, err = c.DataImports.Wait(ctx, p, platform.DataImportSwitchTrafficPending); err != nil {
		log.Fatal(err)
	}
	fmt.Println(imp.State)
	if _, err := c.DataImports.MakePrimary(ctx, p); err != nil {
		log.Fatal(err)
	}
	if _, err := c.DataImports.Wait(ctx, p, platform.DataImportSwitchTrafficCompleted); err != nil {
		log.Fatal(err)
	}
	if _, err := c.DataImports.Detach(ctx, p); err != nil {
		log.Fatal(err)
	}
	if imp, err = c.DataImports.Wait(ctx, p, platform.DataImportReady); err != nil {
		log.Fatal(err)
	}
	fmt.Println(imp.State)
	// Output:
	// prepare_data_copy_pending
	// switch_traffic_workflow_pending
	// ready
}
