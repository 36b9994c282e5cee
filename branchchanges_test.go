package platform_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// clusterParameterJSON is a parameter as the API sends it, written from the
// reference's schema rather than from the SDK's types.
const clusterParameterJSON = `{"id": "prm012345678", "name": "work_mem", "display_name": "Work memory",
	"namespace": "pgconf", "category": "Memory", "description": "Sort memory.", "extension": false,
	"immutable": false, "parameter_type": "bytes", "default_value": "4MB", "value": "8MB", "required": false,
	"created_at": "2026-01-14T10:19:23.000Z", "updated_at": "2026-01-15T10:19:23.000Z", "restart": false,
	"max": 2147483648, "min": 65536, "url": "https://docs.example.com/work_mem", "options": [],
	"actor": {"id": "usr012345678", "display_name": "Ada", "avatar_url": "https://avatars.example.com/a"}}`

func wantClusterParameter(t *testing.T) *platform.ClusterParameter {
	return &platform.ClusterParameter{
		ID: "prm012345678", Name: "work_mem", DisplayName: "Work memory", Namespace: platform.NamespacePgconf,
		Category: "Memory", Description: "Sort memory.", ParameterType: platform.ParameterBytes,
		DefaultValue: "4MB", Value: "8MB", Created: mustTimestamp(t, "2026-01-14T10:19:23.000Z"),
		Updated: mustTimestamp(t, "2026-01-15T10:19:23.000Z"), Max: 2 << 30, Min: 64 << 10,
		URL: "https://docs.example.com/work_mem", Options: []string{},
		Actor: &platform.Actor{ID: "usr012345678", DisplayName: "Ada", AvatarURL: "https://avatars.example.com/a"},
	}
}

func TestBranchChangesWire(t *testing.T) {
	t.Parallel()
	const base = "/v1/organizations/acme/databases/app-db/branches/dev"
	branch := &platform.BranchParams{Organization: "acme", Database: "app-db", Branch: "dev"}
	runMethodCases(t, []methodCase{
		{
			name: "ListParameters",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.BranchChanges.ListParameters(ctx, &platform.ListParametersParams{Organization: "acme", Database: "app-db", Branch: "dev"})
			},
			method: "GET", path: base + "/parameters", query: url.Values{},
			status: 200, response: `[` + clusterParameterJSON + `]`,
			want: []*platform.ClusterParameter{wantClusterParameter(t)},
		},
		{
			name: "ListParameters filtered",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.BranchChanges.ListParameters(ctx, &platform.ListParametersParams{Organization: "acme", Database: "app-db", Branch: "dev", Extension: platform.Ptr(false), Internal: platform.Ptr(true)})
			},
			method: "GET", path: base + "/parameters", query: url.Values{"extension": {"false"}, "internal": {"true"}},
			status: 200, response: `[` + clusterParameterJSON + `]`,
			want: []*platform.ClusterParameter{wantClusterParameter(t)},
		},
		{
			name: "ListExtensions",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.BranchChanges.ListExtensions(ctx, branch)
			},
			method: "GET", path: base + "/extensions", query: url.Values{},
			status: 200, response: `[{"id": "ext012345678", "name": "vector", "description": "Vectors.", "internal": false,
				"loader": "create_extension", "url": "https://docs.example.com/vector", "available": false,
				"unavailable_reason": "container_upgrade_required", "parameters": [` + clusterParameterJSON + `]}]`,
			want: []*platform.ClusterExtension{{
				ID: "ext012345678", Name: "vector", Description: "Vectors.", Loader: platform.LoaderCreate,
				URL: "https://docs.example.com/vector", UnavailableReason: "container_upgrade_required",
				Parameters: []*platform.ClusterParameter{wantClusterParameter(t)},
			}},
		},
		{
			name: "GetInfrastructure",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.BranchChanges.GetInfrastructure(ctx, &platform.BranchParams{Organization: "acme", Database: "app db", Branch: "dev"})
			},
			method: "GET", path: "/v1/organizations/acme/databases/app%20db/branches/dev/infrastructure", query: url.Values{},
			status: 200, response: `{"type": "BranchInfrastructure", "ready": true, "pods": [{"name": "p0", "status": "Running",
				"component": "vttablet", "ready": "1/1", "restart_count": 1, "created_at": "2026-01-14T10:19:23.000Z",
				"cell": "us-east", "size": "PS_10", "keyspace": "app", "shard": "-", "tablet_type": "primary"}]}`,
			want: &platform.BranchInfrastructure{Type: "BranchInfrastructure", Ready: true, Pods: []*platform.InfrastructurePod{{
				Name: "p0", Status: "Running", Component: "vttablet", Ready: "1/1", RestartCount: 1,
				CreatedAt: platform.Ptr(mustTimestamp(t, "2026-01-14T10:19:23.000Z")), Cell: "us-east", Size: "PS_10",
				Keyspace: platform.Ptr("app"), Shard: platform.Ptr("-"), TabletType: platform.Ptr("primary"),
			}}},
		},
	})
}

func TestBranchChangesArgErrors(t *testing.T) {
	t.Parallel()
	noBranch := &platform.BranchParams{Organization: "acme", Database: "app-db"}
	runArgCases(t, []argCase{
		{"ListParameters without branch", "branch", func(ctx context.Context, c *platform.Client) error {
			_, err := c.BranchChanges.ListParameters(ctx, &platform.ListParametersParams{Organization: "acme", Database: "app-db"})
			return err
		}},
		{"ListExtensions with nil params", "params", func(ctx context.Context, c *platform.Client) error {
			_, err := c.BranchChanges.ListExtensions(ctx, nil)
			return err
		}},
		{"GetInfrastructure without branch", "branch", func(ctx context.Context, c *platform.Client) error {
			_, err := c.BranchChanges.GetInfrastructure(ctx, noBranch)
			return err
		}},
	})
}

// ExampleBranchChangesService_ListParameters reads a PostgreSQL branch's
// configuration: what each parameter accepts and its current value.
func ExampleBranchChangesService_ListParameters() {
	srv, err := fake.New()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	client, ctx := srv.Client(), context.Background()
	if _, err := client.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: "acme", Name: "pg", Kind: platform.KindPostgreSQL}); err != nil {
		log.Fatal(err)
	}

	params, err := client.BranchChanges.ListParameters(ctx, &platform.ListParametersParams{Organization: "acme", Database: "pg", Branch: "main"})
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range params {
		switch p.Name {
		case "max_connections", "work_mem", "default_transaction_isolation":
			fmt.Printf("%s = %s (%s", p.Name, p.Value, p.ParameterType)
			if p.ParameterType == platform.ParameterSelect {
				fmt.Printf(": %q", p.Options)
			}
			fmt.Printf(", restart: %v)\n", p.Restart)
		}
	}
	// Output:
	// max_connections = 100 (integer, restart: true)
	// work_mem = 4MB (bytes, restart: false)
	// default_transaction_isolation = read committed (select: ["serializable" "repeatable read" "read committed" "read uncommitted"], restart: false)
}

// TestBranchInfrastructureVariants checks that the type picks the shape a
// body decodes into, and that each shape encodes back alone.
func TestBranchInfrastructureVariants(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body string
		want       *platform.BranchInfrastructure
		encoded    string
	}{
		{
			name:    "pods",
			body:    `{"type":"BranchInfrastructure","ready":true,"pods":[{"name":"p","component":"vtgate"}]}`,
			want:    &platform.BranchInfrastructure{Type: platform.InfrastructureVitess, Ready: true, Pods: []*platform.InfrastructurePod{{Name: "p", Component: "vtgate"}}},
			encoded: `{"type":"BranchInfrastructure","ready":true,"pods":[{"name":"p","status":"","component":"vtgate","ready":"","restart_count":0,"created_at":null,"cell":"","size":"","keyspace":null,"shard":null,"tablet_type":null}]}`,
		},
		{
			name: "postgres",
			body: `{"type":"PostgresInfrastructure","state":"ready","primary_name":"n0","nodes":[{"name":"n0","role":"primary"}],"bouncers":[],"ready":true,"pods":[{}]}`,
			want: &platform.BranchInfrastructure{Type: platform.InfrastructurePostgres, Postgres: &platform.PostgresInfrastructure{
				State: "ready", PrimaryName: "n0", Nodes: []*platform.PostgresNode{{Name: "n0", Role: "primary"}}, Bouncers: []*platform.InfrastructureBouncer{},
			}},
			encoded: `{"type":"PostgresInfrastructure","state":"ready","primary_name":"n0","primary_promoted_at":null,"volume_modifications_blocked_until":null,"nodes":[{"name":"n0","normalized_name":"","role":"primary","availability_zone":"","cluster_name":"","cluster_display_name":"","peers_count":0,"volume_usage_bytes":null,"volume_capacity_bytes":null,"volume_shrink_threshold_percent":null,"region":{"id":"","type":"","provider":"","enabled":false,"public_ip_addresses":null,"display_name":"","location":"","slug":""},"disk_replacement":null}],"bouncers":[]}`,
		},
		{
			name:    "an unknown type reads as pods",
			body:    `{"type":"Other","ready":false,"pods":[]}`,
			want:    &platform.BranchInfrastructure{Type: "Other", Pods: []*platform.InfrastructurePod{}},
			encoded: `{"type":"Other","ready":false,"pods":[]}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := new(platform.BranchInfrastructure)
			if err := json.Unmarshal([]byte(tt.body), got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("decoded (-want +got):\n%s", diff)
			}
			out, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tt.encoded {
				t.Errorf("encoded\n%s\nwant\n%s", out, tt.encoded)
			}
		})
	}
	for _, bad := range []string{`[]`, `{"type":"PostgresInfrastructure","nodes":{}}`, `{"type":"BranchInfrastructure","pods":1}`} {
		if err := json.Unmarshal([]byte(bad), new(platform.BranchInfrastructure)); err == nil {
			t.Errorf("%s decoded without an error", bad)
		}
	}
}
