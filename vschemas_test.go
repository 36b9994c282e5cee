package platform_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

func TestVSchemasWire(t *testing.T) {
	t.Parallel()
	const branch = "/v1/organizations/acme/databases/app-db/branches/dev"
	const doc = `{"raw": "{\"tables\": {}}", "html": "<pre>{&#34;tables&#34;: {}}</pre>"}`
	want := func() any { return &platform.VSchema{Raw: `{"tables": {}}`, HTML: "<pre>{&#34;tables&#34;: {}}</pre>"} }
	wantRules := func() any {
		return &platform.RoutingRules{Raw: `{"tables": {}}`, HTML: "<pre>{&#34;tables&#34;: {}}</pre>"}
	}
	runMethodCases(t, []methodCase{
		{
			name: "get VSchema",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Keyspaces.GetVSchema(ctx, &platform.GetVSchemaParams{Organization: "acme", Database: "app-db", Branch: "dev", Keyspace: "orders"})
			},
			status: 200, response: doc, method: "GET", path: branch + "/keyspaces/orders/vschema", want: want(),
		},
		{
			name: "update VSchema",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Keyspaces.UpdateVSchema(ctx, &platform.UpdateVSchemaParams{Organization: "acme", Database: "app-db", Branch: "dev", Keyspace: "orders", VSchema: `{"tables": {}}`})
			},
			status: 200, response: doc, method: "PATCH", path: branch + "/keyspaces/orders/vschema",
			body: `{"vschema": "{\"tables\": {}}"}`, want: want(),
		},
		{
			name: "update VSchema escapes path values",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Keyspaces.UpdateVSchema(ctx, &platform.UpdateVSchemaParams{Organization: "acme", Database: "app-db", Branch: "a/b", Keyspace: "k s", VSchema: `{}`})
			},
			status: 200, response: doc, method: "PATCH", path: "/v1/organizations/acme/databases/app-db/branches/a%2Fb/keyspaces/k%20s/vschema",
			body: `{"vschema": "{}"}`, want: want(),
		},
		{
			name: "get routing rules",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Branches.GetRoutingRules(ctx, &platform.GetRoutingRulesParams{Organization: "acme", Database: "app-db", Branch: "dev"})
			},
			status: 200, response: doc, method: "GET", path: branch + "/routing-rules", want: wantRules(),
		},
		{
			name: "update routing rules",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Branches.UpdateRoutingRules(ctx, &platform.UpdateRoutingRulesParams{Organization: "acme", Database: "app-db", Branch: "dev", RoutingRules: `{"rules": []}`})
			},
			status: 200, response: doc, method: "PATCH", path: branch + "/routing-rules",
			body: `{"routing_rules": "{\"rules\": []}"}`, want: wantRules(),
		},
	})
}

func TestVSchemasArgErrors(t *testing.T) {
	t.Parallel()
	runArgCases(t, []argCase{
		{"get VSchema without keyspace", "keyspace", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Keyspaces.GetVSchema(ctx, &platform.GetVSchemaParams{Organization: "acme", Database: "app-db", Branch: "dev"})
			return err
		}},
		{"update VSchema with nil params", "params", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Keyspaces.UpdateVSchema(ctx, nil)
			return err
		}},
		{"update VSchema without branch", "branch", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Keyspaces.UpdateVSchema(ctx, &platform.UpdateVSchemaParams{Organization: "acme", Database: "app-db", Keyspace: "orders", VSchema: "{}"})
			return err
		}},
		{"get routing rules without database", "database", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Branches.GetRoutingRules(ctx, &platform.GetRoutingRulesParams{Organization: "acme", Branch: "dev"})
			return err
		}},
		{"update routing rules without branch", "branch", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Branches.UpdateRoutingRules(ctx, &platform.UpdateRoutingRulesParams{Organization: "acme", Database: "app-db", RoutingRules: "{}"})
			return err
		}},
	})
}

// TestVSchemasFake sets a keyspace's VSchema and a branch's routing rules
// on the fake, reads them back, and has an invalid update refused.
func TestVSchemasFake(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	c, ctx := srv.Client(), t.Context()
	if _, err := c.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: "acme", Name: "shop", ClusterSize: "PS_10"}); err != nil {
		t.Fatal(err)
	}
	srv.Advance(time.Minute)
	ks := &platform.GetVSchemaParams{Organization: "acme", Database: "shop", Branch: "main", Keyspace: "shop"}
	set, err := c.Keyspaces.UpdateVSchema(ctx, &platform.UpdateVSchemaParams{Organization: "acme", Database: "shop", Branch: "main", Keyspace: "shop", VSchema: `{"tables":{"users":{}}}`})
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.Keyspaces.GetVSchema(ctx, ks)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(set, got); diff != "" {
		t.Errorf("VSchema read back (-set +read):\n%s", diff)
	}
	if want := "{\n  \"tables\": {\n    \"users\": {}\n  }\n}"; got.Raw != want {
		t.Errorf("raw %q, want %q", got.Raw, want)
	}

	br := &platform.GetRoutingRulesParams{Organization: "acme", Database: "shop", Branch: "main"}
	rules, err := c.Branches.GetRoutingRules(ctx, br)
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"rules\": []\n}"; rules.Raw != want {
		t.Errorf("default routing rules %q, want %q", rules.Raw, want)
	}
	_, err = c.Branches.UpdateRoutingRules(ctx, &platform.UpdateRoutingRulesParams{Organization: "acme", Database: "shop", Branch: "main", RoutingRules: `{"rules":[{"from_table":"users"}]}`})
	var apiErr *platform.Error
	if !errors.Is(err, platform.ErrUnprocessable) || !errors.As(err, &apiErr) || apiErr.Message != "routing_rules: rules[0] needs to_tables, a non-empty array of table names" {
		t.Errorf("invalid rules: %v, want ErrUnprocessable naming to_tables", err)
	}
	again, err := c.Branches.GetRoutingRules(ctx, br)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(rules, again); diff != "" {
		t.Errorf("refused update changed the rules (-before +after):\n%s", diff)
	}
}

func ExampleKeyspacesService_UpdateVSchema() {
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

	// A sharded keyspace's tables each need a vindex.
	if err := srv.AddKeyspace("acme", "shop", "main", "orders", 2); err != nil {
		log.Fatal(err)
	}
	p := &platform.UpdateVSchemaParams{
		Organization: "acme", Database: "shop", Branch: "main", Keyspace: "orders",
		VSchema: `{"sharded": true, "tables": {"orders": {}}}`,
	}
	if _, err := client.Keyspaces.UpdateVSchema(ctx, p); errors.Is(err, platform.ErrUnprocessable) {
		fmt.Println("refused:", err.(*platform.Error).Message)
	}
	p.VSchema = `{"sharded": true, "vindexes": {"hash": {"type": "hash"}},
		"tables": {"orders": {"column_vindexes": [{"column": "customer_id", "name": "hash"}]}}}`
	vs, err := client.Keyspaces.UpdateVSchema(ctx, p)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(vs.Raw)
	// Output:
	// refused: vschema: table "orders" of sharded keyspace orders needs a vindex: give it column_vindexes
	// {
	//   "sharded": true,
	//   "vindexes": {
	//     "hash": {
	//       "type": "hash"
	//     }
	//   },
	//   "tables": {
	//     "orders": {
	//       "column_vindexes": [
	//         {
	//           "column": "customer_id",
	//           "name": "hash"
	//         }
	//       ]
	//     }
	//   }
	// }
}
