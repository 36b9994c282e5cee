package platform_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

const diffJSON = `{"data": [{"name": "orders", "raw": "+CREATE TABLE orders (id int)\n", "html": "<pre>+CREATE TABLE orders (id int)\n</pre>"}]}`

func wantDiff() *platform.SchemaDiff {
	return &platform.SchemaDiff{Tables: []*platform.TableDiff{
		{Name: "orders", Raw: "+CREATE TABLE orders (id int)\n", HTML: "<pre>+CREATE TABLE orders (id int)\n</pre>"},
	}}
}

func TestSchemaDiffsWire(t *testing.T) {
	t.Parallel()
	const branch = "/v1/organizations/acme/databases/app-db/branches/dev"
	runMethodCases(t, []methodCase{
		{
			name: "branch diff",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Branches.Diff(ctx, &platform.DiffBranchParams{Organization: "acme", Database: "app-db", Branch: "dev"})
			},
			status: 200, response: diffJSON, method: "GET", path: branch + "/diff", want: wantDiff(),
		},
		{
			name: "branch diff escapes path values",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Branches.Diff(ctx, &platform.DiffBranchParams{Organization: "acme", Database: "app db", Branch: "a/b"})
			},
			status: 200, response: `{"data": []}`, method: "GET",
			path: "/v1/organizations/acme/databases/app%20db/branches/a%2Fb/diff",
			want: &platform.SchemaDiff{Tables: []*platform.TableDiff{}},
		},
		{
			name: "refresh schema",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return nil, c.Branches.RefreshSchema(ctx, &platform.RefreshBranchSchemaParams{Organization: "acme", Database: "app-db", Branch: "dev"})
			},
			status: 204, method: "POST", path: branch + "/refresh-schema",
		},
		{
			name: "deploy request diff",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.DeployRequests.Diff(ctx, &platform.GetDeployRequestDiffParams{Organization: "acme", Database: "app-db", Number: 7})
			},
			status: 200, response: diffJSON, method: "GET", path: "/v1/organizations/acme/databases/app-db/deploy-requests/7/diff", want: wantDiff(),
		},
	})
}

func TestSchemaDiffsArgErrors(t *testing.T) {
	t.Parallel()
	runArgCases(t, []argCase{
		{"branch diff without branch", "branch", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Branches.Diff(ctx, &platform.DiffBranchParams{Organization: "acme", Database: "app-db"})
			return err
		}},
		{"branch diff with nil params", "params", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Branches.Diff(ctx, nil)
			return err
		}},
		{"refresh without database", "database", func(ctx context.Context, c *platform.Client) error {
			return c.Branches.RefreshSchema(ctx, &platform.RefreshBranchSchemaParams{Organization: "acme", Branch: "dev"})
		}},
		{"deploy request diff without number", "number", func(ctx context.Context, c *platform.Client) error {
			_, err := c.DeployRequests.Diff(ctx, &platform.GetDeployRequestDiffParams{Organization: "acme", Database: "app-db"})
			return err
		}},
	})
}

// TestSchemaDiffsFake compares a branch with its parent against the fake,
// refreshes its schema, and reads the refusal of a branch without parent.
func TestSchemaDiffsFake(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	c, ctx := srv.Client(), t.Context()
	if _, err := c.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: "acme", Name: "shop", ClusterSize: "PS_10"}); err != nil {
		t.Fatal(err)
	}
	srv.Advance(time.Minute)
	if err := srv.PushSchema("acme", "shop", "main", "CREATE TABLE `users` (id bigint, PRIMARY KEY (id))"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Branches.Create(ctx, &platform.CreateBranchParams{Organization: "acme", Database: "shop", Name: "dev", ParentBranch: "main"}); err != nil {
		t.Fatal(err)
	}
	srv.Advance(time.Minute)
	if err := srv.PushSchema("acme", "shop", "dev", "DROP TABLE users", "CREATE TABLE `orders` (id bigint, PRIMARY KEY (id))"); err != nil {
		t.Fatal(err)
	}
	dev := &platform.DiffBranchParams{Organization: "acme", Database: "shop", Branch: "dev"}
	got, err := c.Branches.Diff(ctx, dev)
	if err != nil {
		t.Fatal(err)
	}
	want := &platform.SchemaDiff{Tables: []*platform.TableDiff{
		{Name: "orders", Raw: "+CREATE TABLE `orders` (id bigint, PRIMARY KEY (id))\n", HTML: "<pre>+CREATE TABLE `orders` (id bigint, PRIMARY KEY (id))\n</pre>"},
		{Name: "users", Raw: "-CREATE TABLE `users` (id bigint, PRIMARY KEY (id))\n", HTML: "<pre>-CREATE TABLE `users` (id bigint, PRIMARY KEY (id))\n</pre>"},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("diff of dev (-want +got):\n%s", diff)
	}

	srv.Advance(time.Hour)
	if err := c.Branches.RefreshSchema(ctx, dev); err != nil {
		t.Fatal(err)
	}
	b, err := c.Branches.Get(ctx, dev)
	if err != nil {
		t.Fatal(err)
	}
	if !b.SchemaLastUpdatedAt.Equal(srv.Now()) {
		t.Errorf("schema_last_updated_at %v after the refresh, want %v", b.SchemaLastUpdatedAt, srv.Now())
	}

	_, err = c.Branches.Diff(ctx, &platform.DiffBranchParams{Organization: "acme", Database: "shop", Branch: "main"})
	if !errors.Is(err, platform.ErrUnprocessable) {
		t.Errorf("diff of main: %v, want ErrUnprocessable (no parent)", err)
	}
}
