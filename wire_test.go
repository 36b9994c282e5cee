package platform_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/oauth2"

	"github.com/dbplatform/platform-go"
)

// Response fixtures and the values they decode to.

const orgJSON = `{
	"id": "org0000000001", "type": "Organization", "name": "acme",
	"billing_email": "billing@acme.example.com",
	"created_at": "2026-01-14T10:19:23.000Z", "updated_at": "2026-01-14T10:19:24.500Z",
	"plan": "scaler_pro", "valid_billing_info": true, "sso": false, "sso_directory": false,
	"single_tenancy": false, "managed_tenancy": true, "has_past_due_invoices": null,
	"database_count": 2, "sso_portal_url": null, "features": {"insights": true},
	"idp_managed_roles": true, "invoice_budget_amount": "150", "keyspace_shard_limit": 32,
	"has_card": true, "payment_info_required": false
}`

func wantOrg(t *testing.T) *platform.Organization {
	return &platform.Organization{
		ID: "org0000000001", Type: "Organization", Name: "acme",
		BillingEmail:        "billing@acme.example.com",
		CreatedAt:           mustTimestamp(t, "2026-01-14T10:19:23Z"),
		UpdatedAt:           mustTimestamp(t, "2026-01-14T10:19:24.5Z"),
		Plan:                "scaler_pro",
		ValidBillingInfo:    true,
		ManagedTenancy:      true,
		DatabaseCount:       2,
		Features:            map[string]any{"insights": true},
		IDPManagedRoles:     true,
		InvoiceBudgetAmount: "150",
		KeyspaceShardLimit:  32,
		HasCard:             true,
	}
}

const userJSON = `{
	"id": "usr0000000001", "type": "User", "display_name": "Ada", "name": "Ada Admin",
	"email": "ada@example.com", "avatar_url": "https://avatars.example.com/ada",
	"created_at": "2026-01-02T03:04:05.006Z", "updated_at": "2026-01-02T03:04:05.006Z",
	"two_factor_auth_configured": true,
	"default_organization": {"id": "org0000000001", "name": "acme",
		"created_at": "2026-01-14T10:19:23.000Z", "updated_at": "2026-01-14T10:19:24.500Z", "deleted_at": null},
	"sso": false, "managed": false, "directory_managed": false, "email_verified": true
}`

func wantUser(t *testing.T) *platform.User {
	return &platform.User{
		ID: "usr0000000001", Type: "User", DisplayName: "Ada", Name: "Ada Admin",
		Email: "ada@example.com", AvatarURL: "https://avatars.example.com/ada",
		CreatedAt:               mustTimestamp(t, "2026-01-02T03:04:05.006Z"),
		UpdatedAt:               mustTimestamp(t, "2026-01-02T03:04:05.006Z"),
		TwoFactorAuthConfigured: true,
		DefaultOrganization: &platform.OrganizationRef{
			ID: "org0000000001", Name: "acme",
			CreatedAt: mustTimestamp(t, "2026-01-14T10:19:23Z"),
			UpdatedAt: mustTimestamp(t, "2026-01-14T10:19:24.5Z"),
		},
		EmailVerified: true,
	}
}

const memberJSON = `{
	"id": "mem0000000001", "type": "OrganizationMembership", "user": ` + userJSON + `,
	"role": "admin", "created_at": "2026-01-03T00:00:00.000Z", "updated_at": "2026-01-04T00:00:00.000Z"
}`

func wantMember(t *testing.T) *platform.Member {
	return &platform.Member{
		ID: "mem0000000001", Type: "OrganizationMembership", User: *wantUser(t),
		Role:      platform.RoleAdmin,
		CreatedAt: mustTimestamp(t, "2026-01-03T00:00:00Z"),
		UpdatedAt: mustTimestamp(t, "2026-01-04T00:00:00Z"),
	}
}

const regionJSON = `{
	"id": "reg000000001", "type": "Region", "provider": "cloud-a", "enabled": true,
	"public_ip_addresses": ["192.0.2.1", "192.0.2.2"], "display_name": "East 1",
	"location": "Ashburn", "slug": "us-east", "current_default": true,
	"mysql_supported": true, "postgresql_supported": false
}`

func wantRegion() *platform.Region {
	return &platform.Region{
		ID: "reg000000001", Type: "Region", Provider: "cloud-a", Enabled: true,
		PublicIPAddresses: []string{"192.0.2.1", "192.0.2.2"}, DisplayName: "East 1",
		Location: "Ashburn", Slug: "us-east",
		CurrentDefault:      platform.Ptr(true),
		MySQLSupported:      platform.Ptr(true),
		PostgreSQLSupported: platform.Ptr(false),
	}
}

const publicRegionJSON = `{
	"id": "reg000000001", "type": "Region", "provider": "cloud-a", "enabled": true,
	"public_ip_addresses": ["192.0.2.1"], "display_name": "East 1",
	"location": "Ashburn", "slug": "us-east"
}`

func wantPublicRegion() *platform.Region {
	return &platform.Region{
		ID: "reg000000001", Type: "Region", Provider: "cloud-a", Enabled: true,
		PublicIPAddresses: []string{"192.0.2.1"}, DisplayName: "East 1",
		Location: "Ashburn", Slug: "us-east",
	}
}

const databaseJSON = `{
	"id": "db0000000001", "type": "Database", "name": "app-db",
	"url": "https://api.example.com/v1/organizations/acme/databases/app-db",
	"branches_url": "https://api.example.com/v1/organizations/acme/databases/app-db/branches",
	"html_url": "https://app.example.com/acme/app-db",
	"state": "ready", "ready": true, "kind": "mysql", "plan": "scaler_pro",
	"region": ` + regionJSON + `,
	"branches_count": 2, "development_branches_count": 1, "production_branches_count": 1,
	"open_schema_recommendations_count": 0, "issues_count": 3,
	"multiple_admins_required_for_deletion": false, "at_backup_restore_branches_limit": false,
	"at_development_branch_usage_limit": false, "sharded": false, "default_branch": "main",
	"default_branch_shard_count": 1, "default_branch_read_only_regions_count": 0,
	"default_branch_table_count": 4, "require_approval_for_deploy": true,
	"deletion_protected": false, "resizing": false, "resize_queued": false,
	"config_changing": false, "config_change_queued": false, "allow_data_branching": false,
	"foreign_keys_enabled": true, "automatic_migrations": null, "restrict_branch_region": false,
	"prefer_instant": false, "insights_raw_queries": false, "insights_enabled": true,
	"production_branch_web_console": false, "migration_table_name": "schema_migrations",
	"migration_framework": null,
	"data_import": {"state": "ready", "import_check_errors": "", "started_at": "2026-01-05T00:00:00.000Z",
		"finished_at": null, "data_source": {"hostname": "db.example.com", "port": 3306, "database": "legacy"}},
	"created_at": "2026-01-14T10:19:23.000Z", "updated_at": "2026-01-14T10:19:28.000Z",
	"schema_last_updated_at": null,
	"a_field_from_the_future": {"ignored": true}
}`

func wantDatabase(t *testing.T) *platform.Database {
	return &platform.Database{
		ID: "db0000000001", Type: "Database", Name: "app-db",
		URL:                            "https://api.example.com/v1/organizations/acme/databases/app-db",
		BranchesURL:                    "https://api.example.com/v1/organizations/acme/databases/app-db/branches",
		HTMLURL:                        "https://app.example.com/acme/app-db",
		State:                          platform.DatabaseReady,
		Ready:                          true,
		Kind:                           platform.KindMySQL,
		Plan:                           "scaler_pro",
		Region:                         *wantRegion(),
		BranchesCount:                  2,
		DevelopmentBranchesCount:       1,
		ProductionBranchesCount:        1,
		IssuesCount:                    platform.Ptr(3),
		DefaultBranch:                  "main",
		DefaultBranchShardCount:        1,
		DefaultBranchTableCount:        4,
		RequireApprovalForDeploy:       true,
		ForeignKeysEnabled:             true,
		InsightsEnabled:                true,
		MigrationTableName:             platform.Ptr("schema_migrations"),
		OpenSchemaRecommendationsCount: 0,
		DataImport: &platform.DataImport{
			State:      "ready",
			StartedAt:  platform.Ptr(mustTimestamp(t, "2026-01-05T00:00:00Z")),
			DataSource: platform.DataSource{Hostname: "db.example.com", Port: 3306, Database: "legacy"},
		},
		CreatedAt: mustTimestamp(t, "2026-01-14T10:19:23Z"),
		UpdatedAt: mustTimestamp(t, "2026-01-14T10:19:28Z"),
	}
}

// listJSON wraps items in the list envelope of a single, last page.
func listJSON(items ...string) string {
	return `{"type": "list", "current_page": 1, "per_page": 25, "next_page": null, "next_page_url": null,
		"prev_page": null, "prev_page_url": null, "data": [` + strings.Join(items, ",") + `]}`
}

func onePage[T any](items ...*T) *platform.Page[T] {
	return &platform.Page[T]{Type: "list", CurrentPage: 1, PerPage: 25, Items: append([]*T{}, items...)}
}

// wireCase is one operation: the call, the request it must send and the
// value the response must decode to.
type wireCase struct {
	name   string
	call   func(context.Context, *platform.Client) (any, error)
	method string
	path   string     // escaped, below the base URL
	query  url.Values // nil: no query at all
	body   string     // "" for no body; else the exact JSON object
	status int
	resp   string
	want   any
}

func wireCases(t *testing.T) []wireCase {
	return []wireCase{
		{
			name: "Organizations.List",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Organizations.List(ctx, &platform.ListOrganizationsParams{ListParams: platform.ListParams{Page: 2, PerPage: 10}})
			},
			method: "GET", path: "v1/organizations",
			query:  url.Values{"page": {"2"}, "per_page": {"10"}},
			status: 200, resp: listJSON(orgJSON),
			want: onePage(wantOrg(t)),
		},
		{
			name: "Organizations.List/nil params",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Organizations.List(ctx, nil)
			},
			method: "GET", path: "v1/organizations",
			status: 200, resp: listJSON(),
			want: onePage[platform.Organization](),
		},
		{
			name: "Organizations.Get",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Organizations.Get(ctx, &platform.GetOrganizationParams{Organization: "acme"})
			},
			method: "GET", path: "v1/organizations/acme",
			status: 200, resp: orgJSON,
			want: wantOrg(t),
		},
		{
			name: "Organizations.Update",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Organizations.Update(ctx, &platform.UpdateOrganizationParams{
					Organization:        "acme",
					BillingEmail:        platform.Ptr("billing@acme.example.com"),
					IDPManagedRoles:     platform.Ptr(false),
					InvoiceBudgetAmount: platform.Ptr(150),
				})
			},
			method: "PATCH", path: "v1/organizations/acme",
			body:   `{"billing_email": "billing@acme.example.com", "idp_managed_roles": false, "invoice_budget_amount": 150}`,
			status: 200, resp: orgJSON,
			want: wantOrg(t),
		},
		{
			name: "Organizations.Update/omitted fields",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Organizations.Update(ctx, &platform.UpdateOrganizationParams{
					Organization:    "acme",
					IDPManagedRoles: platform.Ptr(true),
				})
			},
			method: "PATCH", path: "v1/organizations/acme",
			body:   `{"idp_managed_roles": true}`,
			status: 200, resp: orgJSON,
			want: wantOrg(t),
		},
		{
			name: "Organizations.ListRegions",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Organizations.ListRegions(ctx, &platform.ListOrganizationRegionsParams{Organization: "acme", ListParams: platform.ListParams{PerPage: 100}})
			},
			method: "GET", path: "v1/organizations/acme/regions",
			query:  url.Values{"per_page": {"100"}},
			status: 200, resp: listJSON(regionJSON),
			want: onePage(wantRegion()),
		},
		{
			name: "Organizations.ListMembers",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Organizations.ListMembers(ctx, &platform.ListMembersParams{
					Organization: "acme", Query: "ada lovelace", ListParams: platform.ListParams{Page: 3, PerPage: 5},
				})
			},
			method: "GET", path: "v1/organizations/acme/members",
			query:  url.Values{"q": {"ada lovelace"}, "page": {"3"}, "per_page": {"5"}},
			status: 200, resp: listJSON(memberJSON),
			want: onePage(wantMember(t)),
		},
		{
			name: "Organizations.GetMember",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Organizations.GetMember(ctx, &platform.GetMemberParams{Organization: "acme", UserID: "usr0000000001"})
			},
			method: "GET", path: "v1/organizations/acme/members/usr0000000001",
			status: 200, resp: memberJSON,
			want: wantMember(t),
		},
		{
			name: "Organizations.UpdateMember",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Organizations.UpdateMember(ctx, &platform.UpdateMemberParams{Organization: "acme", UserID: "usr0000000001", Role: platform.RoleAdmin})
			},
			method: "PATCH", path: "v1/organizations/acme/members/usr0000000001",
			body:   `{"role": "admin"}`,
			status: 200, resp: memberJSON,
			want: wantMember(t),
		},
		{
			name: "Organizations.RemoveMember",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return nil, c.Organizations.RemoveMember(ctx, &platform.RemoveMemberParams{
					Organization: "acme", UserID: "usr0000000001", DeletePasswords: true, DeleteServiceTokens: true,
				})
			},
			method: "DELETE", path: "v1/organizations/acme/members/usr0000000001",
			query:  url.Values{"delete_passwords": {"true"}, "delete_service_tokens": {"true"}},
			status: 204,
		},
		{
			name: "Organizations.RemoveMember/no flags",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return nil, c.Organizations.RemoveMember(ctx, &platform.RemoveMemberParams{Organization: "acme", UserID: "usr0000000001"})
			},
			method: "DELETE", path: "v1/organizations/acme/members/usr0000000001",
			status: 204,
		},
		{
			name: "Users.GetCurrent",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Users.GetCurrent(ctx)
			},
			method: "GET", path: "v1/user",
			status: 200, resp: userJSON,
			want: wantUser(t),
		},
		{
			name: "Regions.List",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Regions.List(ctx, &platform.ListRegionsParams{ListParams: platform.ListParams{Page: 1}})
			},
			method: "GET", path: "v1/regions",
			query:  url.Values{"page": {"1"}},
			status: 200, resp: listJSON(publicRegionJSON),
			want: onePage(wantPublicRegion()),
		},
		{
			name: "Databases.List",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Databases.List(ctx, &platform.ListDatabasesParams{Organization: "acme", Query: "app&db=1", ListParams: platform.ListParams{PerPage: 2}})
			},
			method: "GET", path: "v1/organizations/acme/databases",
			query:  url.Values{"q": {"app&db=1"}, "per_page": {"2"}},
			status: 200, resp: listJSON(databaseJSON),
			want: onePage(wantDatabase(t)),
		},
		{
			name: "Databases.Create",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: "acme", Name: "app-db", ClusterSize: "PS_10"})
			},
			method: "POST", path: "v1/organizations/acme/databases",
			body:   `{"name": "app-db", "cluster_size": "PS_10"}`,
			status: 201, resp: databaseJSON,
			want: wantDatabase(t),
		},
		{
			name: "Databases.Create/every field",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Databases.Create(ctx, &platform.CreateDatabaseParams{
					Organization: "acme", Name: "pg-db", ClusterSize: "PS_10", Region: "us-east",
					Replicas: platform.Ptr(0), Kind: platform.KindPostgreSQL, MajorVersion: "17",
					Storage: &platform.StorageParams{MaximumStorageBytes: platform.Ptr[int64](1 << 30)},
				})
			},
			method: "POST", path: "v1/organizations/acme/databases",
			body: `{"name": "pg-db", "cluster_size": "PS_10", "region": "us-east", "replicas": 0,
				"kind": "postgresql", "major_version": "17", "storage": {"maximum_storage_bytes": 1073741824}}`,
			status: 201, resp: databaseJSON,
			want: wantDatabase(t),
		},
		{
			name: "Databases.Get",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Databases.Get(ctx, &platform.GetDatabaseParams{Organization: "acme", Database: "app-db"})
			},
			method: "GET", path: "v1/organizations/acme/databases/app-db",
			status: 200, resp: databaseJSON,
			want: wantDatabase(t),
		},
		{
			name: "Databases.Update",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Databases.Update(ctx, &platform.UpdateDatabaseParams{
					Organization: "acme", Database: "app-db",
					NewName:                    platform.Ptr("new-db"),
					AutomaticMigrations:        platform.Ptr(true),
					MigrationFramework:         platform.Ptr("rails"),
					MigrationTableName:         platform.Ptr("schema_migrations"),
					RequireApprovalForDeploy:   platform.Ptr(false),
					RestrictBranchRegion:       platform.Ptr(true),
					AllowDataBranching:         platform.Ptr(true),
					AllowForeignKeyConstraints: platform.Ptr(false),
					InsightsRawQueries:         platform.Ptr(true),
					DeletionProtected:          platform.Ptr(true),
					ProductionBranchWebConsole: platform.Ptr(false),
					DefaultBranch:              platform.Ptr("main"),
				})
			},
			method: "PATCH", path: "v1/organizations/acme/databases/app-db",
			body: `{"new_name": "new-db", "automatic_migrations": true, "migration_framework": "rails",
				"migration_table_name": "schema_migrations", "require_approval_for_deploy": false,
				"restrict_branch_region": true, "allow_data_branching": true,
				"allow_foreign_key_constraints": false, "insights_raw_queries": true,
				"deletion_protected": true, "production_branch_web_console": false, "default_branch": "main"}`,
			status: 200, resp: databaseJSON,
			want: wantDatabase(t),
		},
		{
			name: "Databases.Update/omitted fields",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Databases.Update(ctx, &platform.UpdateDatabaseParams{
					Organization: "acme", Database: "app-db", DeletionProtected: platform.Ptr(false),
				})
			},
			method: "PATCH", path: "v1/organizations/acme/databases/app-db",
			body:   `{"deletion_protected": false}`,
			status: 200, resp: databaseJSON,
			want: wantDatabase(t),
		},
		{
			name: "Databases.Delete",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return nil, c.Databases.Delete(ctx, &platform.DeleteDatabaseParams{Organization: "acme", Database: "app-db"})
			},
			method: "DELETE", path: "v1/organizations/acme/databases/app-db",
			status: 204,
		},
		{
			name: "Databases.ListRegions",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Databases.ListRegions(ctx, &platform.ListDatabaseRegionsParams{Organization: "acme", Database: "app-db"})
			},
			method: "GET", path: "v1/organizations/acme/databases/app-db/regions",
			status: 200, resp: listJSON(regionJSON),
			want: onePage(wantRegion()),
		},
		{
			name: "Databases.Get/escaped path values",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Databases.Get(ctx, &platform.GetDatabaseParams{Organization: "a b", Database: "a/b?c#d"})
			},
			method: "GET", path: "v1/organizations/a%20b/databases/a%2Fb%3Fc%23d",
			status: 200, resp: databaseJSON,
			want: wantDatabase(t),
		},
		{
			name: "Organizations.GetMember/escaped path values",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Organizations.GetMember(ctx, &platform.GetMemberParams{Organization: "acme", UserID: "../user"})
			},
			method: "GET", path: "v1/organizations/acme/members/..%2Fuser",
			status: 200, resp: memberJSON,
			want: wantMember(t),
		},
	}
}

// TestWire checks, for every operation, the request the client sends and
// the decoding of the response.
func TestWire(t *testing.T) {
	t.Parallel()
	for _, tc := range wireCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			api := newWireFunc(t, respond(tc.status, tc.resp))
			got, err := tc.call(t.Context(), api.newClient(t))
			if err != nil {
				t.Fatalf("call: %v", err)
			}
			reqs := api.requests()
			if len(reqs) != 1 {
				t.Fatalf("server saw %d requests, want 1", len(reqs))
			}
			r := reqs[0]
			if r.Method != tc.method {
				t.Errorf("method = %s, want %s", r.Method, tc.method)
			}
			if want := "/" + tc.path; r.Path != want {
				t.Errorf("path = %s, want %s", r.Path, want)
			}
			if tc.query == nil {
				if r.RawQuery != "" {
					t.Errorf("query = %q, want none", r.RawQuery)
				}
			} else {
				q, err := url.ParseQuery(r.RawQuery)
				if err != nil {
					t.Fatalf("query %q: %v", r.RawQuery, err)
				}
				if diff := cmp.Diff(tc.query, q); diff != "" {
					t.Errorf("query mismatch (-want +got):\n%s", diff)
				}
			}
			if tc.body == "" {
				if len(r.Body) != 0 {
					t.Errorf("body = %s, want none", r.Body)
				}
			} else if diff := cmp.Diff(jsonValue(t, []byte(tc.body)), jsonValue(t, []byte(r.Body))); diff != "" {
				t.Errorf("body mismatch (-want +got):\n%s", diff)
			}
			checkHeaders(t, r, tc.body != "")
			if tc.want == nil {
				return
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("decoded response mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// checkHeaders checks the headers every request carries.
func checkHeaders(t *testing.T, r wireRequest, hasBody bool) {
	t.Helper()
	if got := r.Header.Get("Authorization"); got != testAuthHeader {
		t.Errorf("Authorization = %q, want %q", got, testAuthHeader)
	}
	if got := r.Header.Get("User-Agent"); !strings.HasPrefix(got, "platform-go/") {
		t.Errorf("User-Agent = %q, want the prefix platform-go/", got)
	}
	if got := r.Header.Get("Accept"); got != "application/json" {
		t.Errorf("Accept = %q, want application/json", got)
	}
	wantCT := ""
	if hasBody {
		wantCT = "application/json"
	}
	if got := r.Header.Get("Content-Type"); got != wantCT {
		t.Errorf("Content-Type = %q, want %q", got, wantCT)
	}
}

// TestPathValuesKeepTheRoute routes requests through real ServeMux patterns:
// a path value with a slash or a dot segment fills its own segment and
// reaches the operation it names.
func TestPathValuesKeepTheRoute(t *testing.T) {
	t.Parallel()
	tests := []struct {
		org, db string
	}{
		{"acme", "a/b"},
		{"acme", "a?b=c"},
		{"a/b", "app-db"},
		{"acme", "%2F"},
	}
	for _, tc := range tests {
		t.Run(tc.org+" "+tc.db, func(t *testing.T) {
			t.Parallel()
			var gotOrg, gotDB string
			var hits atomic.Int32
			mux := http.NewServeMux()
			mux.HandleFunc("GET /api/v1/organizations/{organization}/databases/{database}", func(w http.ResponseWriter, r *http.Request) {
				hits.Add(1)
				gotOrg, gotDB = r.PathValue("organization"), r.PathValue("database")
				writeBody(w, 200, `{"id": "db1", "name": "x"}`)
			})
			srv := httptest.NewServer(mux)
			t.Cleanup(srv.Close)
			c, err := platform.NewClient(platform.WithBaseURL(srv.URL+"/api"), platform.WithoutRetries(), platform.WithHTTPClient(srv.Client()))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Databases.Get(t.Context(), &platform.GetDatabaseParams{Organization: tc.org, Database: tc.db}); err != nil {
				t.Fatalf("Get: %v", err)
			}
			if hits.Load() != 1 || gotOrg != tc.org || gotDB != tc.db {
				t.Errorf("route got organization %q, database %q (%d hits); want %q, %q", gotOrg, gotDB, hits.Load(), tc.org, tc.db)
			}
		})
	}
}

// TestBaseURLEndingInVersion checks that a base URL that ends in /v1, with
// or without a slash, reaches the same operation path as its parent rather
// than /v1/v1/...
func TestBaseURLEndingInVersion(t *testing.T) {
	t.Parallel()
	for _, suffix := range []string{"", "/", "/v1", "/v1/", "/api/v1", "/api/v1/"} {
		t.Run(suffix, func(t *testing.T) {
			t.Parallel()
			var got atomic.Value
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				got.Store(r.URL.Path)
				writeBody(w, 200, `{"id": "db1", "name": "app-db"}`)
			}))
			t.Cleanup(srv.Close)
			c, err := platform.NewClient(platform.WithBaseURL(srv.URL+suffix), platform.WithoutRetries(), platform.WithHTTPClient(srv.Client()))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Databases.Get(t.Context(), &platform.GetDatabaseParams{Organization: "acme", Database: "app-db"}); err != nil {
				t.Fatalf("Get: %v", err)
			}
			want := "/v1/organizations/acme/databases/app-db"
			if strings.HasPrefix(suffix, "/api") {
				want = "/api" + want
			}
			gotPath, _ := got.Load().(string)
			if diff := cmp.Diff(want, gotPath); diff != "" {
				t.Errorf("request path (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDotSegmentPathValues checks that "." and ".." as path values do not
// resolve to another operation's path.
func TestDotSegmentPathValues(t *testing.T) {
	t.Parallel()
	for _, v := range []string{".", ".."} {
		t.Run(v, func(t *testing.T) {
			t.Parallel()
			api := newWireFunc(t, respond(200, `{}`))
			c := api.newClient(t)
			_, err := c.Databases.Get(t.Context(), &platform.GetDatabaseParams{Organization: "acme", Database: v})
			var argErr *platform.ArgError
			if !errors.As(err, &argErr) || argErr.Arg != "database" {
				t.Errorf("Get(database %q) = %v, want an *ArgError for database", v, err)
			}
			err = c.Organizations.RemoveMember(t.Context(), &platform.RemoveMemberParams{Organization: v, UserID: "u1"})
			if !errors.As(err, &argErr) || argErr.Arg != "organization" {
				t.Errorf("RemoveMember(organization %q) = %v, want an *ArgError for organization", v, err)
			}
			if n := api.count(); n != 0 {
				t.Errorf("server saw %d requests, want 0: %+v", n, api.requests())
			}
		})
	}
}

func TestServiceTokenTransportDoesNotMutateRequest(t *testing.T) {
	t.Parallel()
	var seen http.Header
	tr := &platform.ServiceTokenTransport{
		ID: "id1", Token: "secret1",
		Base: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			seen = r.Header.Clone()
			return &http.Response{StatusCode: 204, Body: http.NoBody, Request: r}, nil
		}),
	}
	req, err := http.NewRequestWithContext(t.Context(), "GET", "http://example.com/v1/user", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Caller", "yes")
	before := req.Header.Clone()
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if diff := cmp.Diff(before, req.Header); diff != "" {
		t.Errorf("caller's request headers changed (-before +after):\n%s", diff)
	}
	want := http.Header{"Authorization": {"id1:secret1"}, "X-Caller": {"yes"}}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Errorf("headers sent (-want +got):\n%s", diff)
	}
}

// TestServiceTokenTransportDefaultBase: without a Base, the transport
// sends through http.DefaultTransport, with the token's header.
func TestServiceTokenTransportDefaultBase(t *testing.T) {
	t.Parallel()
	got := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Get("Authorization")
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	hc := &http.Client{Transport: &platform.ServiceTokenTransport{ID: "id1", Token: "secret1"}}
	req, err := http.NewRequestWithContext(t.Context(), "GET", srv.URL+"/v1/user", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if h := <-got; h != "id1:secret1" || req.Header.Get("Authorization") != "" {
		t.Errorf("the server saw Authorization %q, the caller's request has %q; want id1:secret1 and none", h, req.Header.Get("Authorization"))
	}
}

// TestServiceTokenTransportHeaderAlreadySet checks the other side of the
// transport: a request that already carries exactly its header is sent as
// it is (the client's own requests do), and any other Authorization value
// is replaced on a clone.
func TestServiceTokenTransportHeaderAlreadySet(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		have     []string
		wantSame bool
	}{
		{"this token", []string{"id1:secret1"}, true},
		{"another token", []string{"id1:secret2"}, false},
		{"another ID", []string{"id2:secret1"}, false},
		{"same length, other split", []string{"id1s:ecret1"}, false},
		{"twice", []string{"id1:secret1", "id1:secret1"}, false},
		{"none", nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var sent *http.Request
			tr := &platform.ServiceTokenTransport{
				ID: "id1", Token: "secret1",
				Base: roundTripFunc(func(r *http.Request) (*http.Response, error) {
					sent = r
					return &http.Response{StatusCode: 204, Body: http.NoBody, Request: r}, nil
				}),
			}
			req, err := http.NewRequestWithContext(t.Context(), "GET", "http://example.com/v1/user", nil)
			if err != nil {
				t.Fatal(err)
			}
			if tc.have != nil {
				req.Header["Authorization"] = tc.have
			}
			if _, err := tr.RoundTrip(req); err != nil {
				t.Fatal(err)
			}
			if (sent == req) != tc.wantSame {
				t.Errorf("sent the caller's request itself: %t, want %t", sent == req, tc.wantSame)
			}
			if diff := cmp.Diff([]string{"id1:secret1"}, sent.Header["Authorization"]); diff != "" {
				t.Errorf("Authorization sent (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.have, req.Header["Authorization"]); diff != "" {
				t.Errorf("caller's Authorization changed (-before +after):\n%s", diff)
			}
		})
	}
}

// TestDoDoesNotModifyRequest pins Client.Do's promise that the caller's
// request is not modified, whatever the client does on the way: retries
// (which set a request's body), logging (which puts the attempt count in the
// context) and the credential (which the client adds to its own requests).
func TestDoDoesNotModifyRequest(t *testing.T) {
	t.Parallel()
	type snapshot struct {
		Method, URL   string
		Header        http.Header
		Body          io.ReadCloser
		ContentLength int64
		Context       context.Context
		Host          string
	}
	snap := func(r *http.Request) snapshot {
		return snapshot{r.Method, r.URL.String(), r.Header.Clone(), r.Body, r.ContentLength, r.Context(), r.Host}
	}
	tests := []struct {
		name string
		opts []platform.Option
		// build makes the caller's request.
		build func(t *testing.T, c *platform.Client, base string) *http.Request
	}{
		{"NewRequest, PUT with a body, retried and logged", []platform.Option{fastRetries(2), platform.WithLogger(debugLogger(&lockedBuffer{}))},
			func(t *testing.T, c *platform.Client, _ string) *http.Request {
				req, err := c.NewRequest(t.Context(), "PUT", "v1/organizations/acme/settings", map[string]bool{"on": true})
				if err != nil {
					t.Fatal(err)
				}
				return req
			}},
		{"NewRequest, GET, retried", []platform.Option{fastRetries(2)},
			func(t *testing.T, c *platform.Client, _ string) *http.Request {
				req, err := c.NewRequest(t.Context(), "GET", "v1/user", nil)
				if err != nil {
					t.Fatal(err)
				}
				return req
			}},
		{"net/http request with its own header, without retries", []platform.Option{platform.WithoutRetries()},
			func(t *testing.T, _ *platform.Client, base string) *http.Request {
				req, err := http.NewRequestWithContext(t.Context(), "POST", base+"v1/organizations/acme/things", strings.NewReader(`{"a":1}`))
				if err != nil {
					t.Fatal(err)
				}
				req.Header.Set("X-Caller", "yes")
				return req
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// The first attempt is refused with a 503 (retried by every
			// method where retries are on), the next one succeeds.
			api := newWireFunc(t, sequence(respond(503, ""), respond(200, `{"id":"x"}`)))
			c := api.newClient(t, tc.opts...)
			req := tc.build(t, c, api.baseURL())
			before := snap(req)
			_, err := c.Do(req, nil)
			if err != nil && !errors.Is(err, platform.ErrInternal) {
				t.Fatalf("Do: %v", err)
			}
			if diff := cmp.Diff(before, snap(req), cmp.Comparer(func(a, b io.ReadCloser) bool { return a == b }),
				cmp.Comparer(func(a, b context.Context) bool { return a == b })); diff != "" {
				t.Errorf("the caller's request changed (-before +after):\n%s", diff)
			}
			for i, r := range api.requests() {
				if got := r.Header.Get("Authorization"); got != testAuthHeader {
					t.Errorf("attempt %d carried Authorization %q, want the token", i+1, got)
				}
			}
		})
	}
}

// TestNewRequestHeadersAreTheCallers checks that the header values of a
// request from NewRequest belong to it: writing into them changes no other
// request of the client.
func TestNewRequestHeadersAreTheCallers(t *testing.T) {
	t.Parallel()
	api := newWire(t, 200, userJSON)
	req, err := api.client.NewRequest(t.Context(), "GET", "v1/user", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header["Accept"][0] = "text/plain"
	req.Header["User-Agent"][0] = "someone-else"
	if _, err := api.client.Users.GetCurrent(t.Context()); err != nil {
		t.Fatal(err)
	}
	got := api.only().Header
	if got.Get("Accept") != "application/json" || !strings.HasPrefix(got.Get("User-Agent"), "platform-go/") {
		t.Errorf("the client's next request sent Accept %q, User-Agent %q", got.Get("Accept"), got.Get("User-Agent"))
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// otherHost is a server on another host:port that records the
// Authorization headers it receives.
type otherHost struct {
	srv   *httptest.Server
	hits  atomic.Int32
	auths chan string
}

func newOtherHost(t *testing.T) *otherHost {
	o := &otherHost{auths: make(chan string, 16)}
	o.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o.hits.Add(1)
		o.auths <- r.Header.Get("Authorization")
		writeBody(w, 200, `{}`)
	}))
	t.Cleanup(o.srv.Close)
	return o
}

func (o *otherHost) checkNoCredentials(t *testing.T) {
	t.Helper()
	for {
		select {
		case a := <-o.auths:
			if a != "" {
				t.Errorf("another host received Authorization %q", a)
			}
		default:
			return
		}
	}
}

func TestCredentialsStayOnTheAPIHost(t *testing.T) {
	t.Parallel()
	retryModes := []struct {
		name string
		opt  platform.Option
	}{
		{"without retries", platform.WithoutRetries()},
		{"with retries", fastRetries(2)},
	}
	for _, mode := range retryModes {
		t.Run("Do with an absolute URL/"+mode.name, func(t *testing.T) {
			t.Parallel()
			api := newWireFunc(t, respond(200, `{}`))
			other := newOtherHost(t)
			c := api.newClient(t, mode.opt)
			req, err := http.NewRequestWithContext(t.Context(), "GET", other.srv.URL+"/v1/user", nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Do(req, nil); err != nil {
				t.Fatalf("Do: %v", err)
			}
			if other.hits.Load() != 1 {
				t.Errorf("other host saw %d requests, want 1", other.hits.Load())
			}
			other.checkNoCredentials(t)

			// The same client still authenticates to its own host.
			req, err = c.NewRequest(t.Context(), "GET", "v1/user", nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Do(req, nil); err != nil {
				t.Fatalf("Do: %v", err)
			}
			if reqs := api.requests(); len(reqs) != 1 || reqs[0].Header.Get("Authorization") != testAuthHeader {
				t.Errorf("API host requests = %+v, want one with the token", reqs)
			}
		})
		t.Run("redirect to another host/"+mode.name, func(t *testing.T) {
			t.Parallel()
			other := newOtherHost(t)
			api := newWireFunc(t, func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, other.srv.URL+"/steal", http.StatusFound)
			})
			c := api.newClient(t, mode.opt)
			req, err := c.NewRequest(t.Context(), "GET", "v1/user", nil)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := c.Do(req, nil)
			var apiErr *platform.Error
			if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusFound {
				t.Fatalf("Do: %v, want an *Error with the unfollowed redirect's status 302", err)
			}
			if resp == nil || resp.StatusCode != http.StatusFound {
				t.Errorf("response = %v, want the redirect (302) returned unfollowed", resp)
			}
			if n := other.hits.Load(); n != 0 {
				t.Errorf("the redirect to another host was followed (%d requests)", n)
			}
			other.checkNoCredentials(t)
		})
		t.Run("redirect on the same host/"+mode.name, func(t *testing.T) {
			t.Parallel()
			api := newWireFunc(t, func(w http.ResponseWriter, r *http.Request) {
				if strings.HasSuffix(r.URL.Path, "/old") {
					http.Redirect(w, r, apiPrefix+"v1/new", http.StatusTemporaryRedirect)
					return
				}
				writeBody(w, 200, `{"id": "usr1"}`)
			})
			c := api.newClient(t, mode.opt)
			req, err := c.NewRequest(t.Context(), "GET", "v1/old", nil)
			if err != nil {
				t.Fatal(err)
			}
			var u platform.User
			if _, err := c.Do(req, &u); err != nil {
				t.Fatalf("Do: %v", err)
			}
			if u.ID != "usr1" {
				t.Errorf("decoded ID %q, want usr1", u.ID)
			}
			reqs := api.requests()
			if len(reqs) != 2 {
				t.Fatalf("API saw %d requests, want 2", len(reqs))
			}
			if got := reqs[1].Header.Get("Authorization"); got != testAuthHeader {
				t.Errorf("redirected request's Authorization = %q, want the token", got)
			}
		})
	}
}

func TestWithTokenSource(t *testing.T) {
	t.Parallel()
	api := newWireFunc(t, respond(200, userJSON))
	c, err := platform.NewClient(
		platform.WithBaseURL(api.baseURL()),
		platform.WithHTTPClient(api.srv.Client()),
		platform.WithTokenSource(oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "access-123", TokenType: "Bearer"})),
		platform.WithoutRetries(),
	)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Users.GetCurrent(t.Context()); err != nil {
		t.Fatal(err)
	}
	reqs := api.requests()
	if len(reqs) != 1 {
		t.Fatalf("server saw %d requests, want 1", len(reqs))
	}
	if got := reqs[0].Header.Get("Authorization"); got != "Bearer access-123" {
		t.Errorf("Authorization = %q, want %q", got, "Bearer access-123")
	}
}

func TestWithUserAgent(t *testing.T) {
	t.Parallel()
	api := newWireFunc(t, respond(200, userJSON))
	c := api.newClient(t, platform.WithoutRetries(), platform.WithUserAgent("my-tool/1.2"))
	if _, err := c.Users.GetCurrent(t.Context()); err != nil {
		t.Fatal(err)
	}
	got := api.requests()[0].Header.Get("User-Agent")
	if !strings.HasPrefix(got, "my-tool/1.2 platform-go/") {
		t.Errorf("User-Agent = %q, want it to start with %q", got, "my-tool/1.2 platform-go/")
	}
}

func TestNoCredentials(t *testing.T) {
	t.Parallel()
	api := newWireFunc(t, respond(200, listJSON(publicRegionJSON)))
	c, err := platform.NewClient(platform.WithBaseURL(api.baseURL()), platform.WithHTTPClient(api.srv.Client()))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Regions.List(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	if got := api.requests()[0].Header.Get("Authorization"); got != "" {
		t.Errorf("Authorization = %q, want none", got)
	}
}

// TestArgErrors checks that bad arguments are reported before any request.
func TestArgErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		call    func(context.Context, *platform.Client) error
		wantArg string
	}{
		{"Organizations.Get/nil params", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Organizations.Get(ctx, nil)
			return err
		}, "params"},
		{"Vitess.ListTablets/shard without keyspace", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Vitess.ListTablets(ctx, &platform.ListTabletsParams{Organization: "acme", Database: "shop", Branch: "main", Shard: "-"})
			return err
		}, "shard"},
		{"Vitess.ReverseTraffic/initialize_target_sequences", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Vitess.ReverseTraffic(ctx, &platform.ReverseTrafficParams{Organization: "acme", Database: "shop", Branch: "main", Workflow: "w1", InitializeTargetSequences: platform.Ptr(true)})
			return err
		}, "initialize_target_sequences"},
		{"Organizations.Get/blank", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Organizations.Get(ctx, &platform.GetOrganizationParams{Organization: "  "})
			return err
		}, "organization"},
		{"Organizations.Update", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Organizations.Update(ctx, &platform.UpdateOrganizationParams{BillingEmail: platform.Ptr("a@b.c")})
			return err
		}, "organization"},
		{"Organizations.ListRegions", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Organizations.ListRegions(ctx, &platform.ListOrganizationRegionsParams{})
			return err
		}, "organization"},
		{"Organizations.ListMembers", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Organizations.ListMembers(ctx, &platform.ListMembersParams{Query: "ada"})
			return err
		}, "organization"},
		{"Organizations.GetMember", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Organizations.GetMember(ctx, &platform.GetMemberParams{Organization: "acme"})
			return err
		}, "id"},
		{"Organizations.UpdateMember/id", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Organizations.UpdateMember(ctx, &platform.UpdateMemberParams{Organization: "acme", Role: platform.RoleAdmin})
			return err
		}, "id"},
		{"Organizations.UpdateMember/role", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Organizations.UpdateMember(ctx, &platform.UpdateMemberParams{Organization: "acme", UserID: "u1"})
			return err
		}, "role"},
		{"Organizations.RemoveMember", func(ctx context.Context, c *platform.Client) error {
			return c.Organizations.RemoveMember(ctx, &platform.RemoveMemberParams{UserID: "u1"})
		}, "organization"},
		{"Databases.List", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Databases.List(ctx, nil)
			return err
		}, "params"},
		{"Databases.Create", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Databases.Create(ctx, &platform.CreateDatabaseParams{Name: "x", ClusterSize: "PS_10"})
			return err
		}, "organization"},
		{"Databases.Get", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Databases.Get(ctx, &platform.GetDatabaseParams{Organization: "acme"})
			return err
		}, "database"},
		{"Databases.Update", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Databases.Update(ctx, &platform.UpdateDatabaseParams{Organization: "acme", NewName: platform.Ptr("x")})
			return err
		}, "database"},
		{"Databases.Delete", func(ctx context.Context, c *platform.Client) error {
			return c.Databases.Delete(ctx, &platform.DeleteDatabaseParams{Database: "app-db"})
		}, "organization"},
		{"Databases.ListRegions", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Databases.ListRegions(ctx, &platform.ListDatabaseRegionsParams{Organization: "acme"})
			return err
		}, "database"},
		{"Databases.Wait", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Databases.Wait(ctx, &platform.GetDatabaseParams{Database: "app-db"})
			return err
		}, "organization"},
		{"Databases.All", func(ctx context.Context, c *platform.Client) error {
			for _, err := range c.Databases.All(ctx, &platform.ListDatabasesParams{}) {
				return err
			}
			return nil
		}, "organization"},
		{"Organizations.List/page", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Organizations.List(ctx, &platform.ListOrganizationsParams{ListParams: platform.ListParams{Page: -1}})
			return err
		}, "page"},
		{"Organizations.List/per_page over 100", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Organizations.List(ctx, &platform.ListOrganizationsParams{ListParams: platform.ListParams{PerPage: platform.MaxPerPage + 1}})
			return err
		}, "per_page"},
		{"Organizations.List/negative per_page", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Organizations.List(ctx, &platform.ListOrganizationsParams{ListParams: platform.ListParams{PerPage: -1}})
			return err
		}, "per_page"},
		{"Databases.List/page", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Databases.List(ctx, &platform.ListDatabasesParams{Organization: "acme", ListParams: platform.ListParams{Page: -3}})
			return err
		}, "page"},
		{"Regions.All/per_page", func(ctx context.Context, c *platform.Client) error {
			for _, err := range c.Regions.All(ctx, &platform.ListRegionsParams{ListParams: platform.ListParams{PerPage: 101}}) {
				return err
			}
			return nil
		}, "per_page"},
		{"Organizations.AllMembers/page", func(ctx context.Context, c *platform.Client) error {
			for _, err := range c.Organizations.AllMembers(ctx, &platform.ListMembersParams{Organization: "acme", ListParams: platform.ListParams{Page: -1}}) {
				return err
			}
			return nil
		}, "page"},
		{"NewRequest/absolute path", func(ctx context.Context, c *platform.Client) error {
			_, err := c.NewRequest(ctx, "GET", "/v1/user", nil)
			return err
		}, "path"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			api := newWireFunc(t, respond(200, `{}`))
			err := tc.call(t.Context(), api.newClient(t))
			var argErr *platform.ArgError
			if !errors.As(err, &argErr) {
				t.Fatalf("error = %v (%T), want *platform.ArgError", err, err)
			}
			if argErr.Arg != tc.wantArg {
				t.Errorf("Arg = %q, want %q", argErr.Arg, tc.wantArg)
			}
			if !strings.Contains(argErr.Error(), tc.wantArg) {
				t.Errorf("Error() = %q does not name %q", argErr.Error(), tc.wantArg)
			}
			if n := api.count(); n != 0 {
				t.Errorf("server saw %d requests, want 0", n)
			}
		})
	}
}

func TestNewClientValidation(t *testing.T) {
	t.Parallel()
	src := oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "a"})
	tests := []struct {
		name     string
		opts     []platform.Option
		wantText string // a part of the error text
	}{
		{"relative base URL", []platform.Option{platform.WithBaseURL("/api/")}, "WithBaseURL"},
		{"base URL without scheme", []platform.Option{platform.WithBaseURL("api.example.com/")}, "WithBaseURL"},
		{"ftp base URL", []platform.Option{platform.WithBaseURL("ftp://api.example.com/")}, "WithBaseURL"},
		{"base URL without host", []platform.Option{platform.WithBaseURL("http:///api/")}, "WithBaseURL"},
		{"unparsable base URL", []platform.Option{platform.WithBaseURL("http://api.example.com:port/")}, "WithBaseURL"},
		{"base URL with query", []platform.Option{platform.WithBaseURL("https://api.example.com/?x=1")}, "WithBaseURL"},
		{"base URL with fragment", []platform.Option{platform.WithBaseURL("https://api.example.com/#x")}, "WithBaseURL"},
		{"empty token", []platform.Option{platform.WithServiceToken("id", "")}, "WithServiceToken"},
		{"empty token ID", []platform.Option{platform.WithServiceToken("", "secret")}, "WithServiceToken"},
		{"colon in token ID", []platform.Option{platform.WithServiceToken("a:b", "secret")}, "WithServiceToken"},
		{"line break in token", []platform.Option{platform.WithServiceToken("id", "sec\r\nret")}, "WithServiceToken"},
		{"service token and token source", []platform.Option{platform.WithServiceToken("id", "secret"), platform.WithTokenSource(src)}, "WithTokenSource"},
		{"token source and service token", []platform.Option{platform.WithTokenSource(src), platform.WithServiceToken("id", "secret")}, "WithServiceToken"},
		{"nil token source", []platform.Option{platform.WithTokenSource(nil)}, "WithTokenSource"},
		{"retry policy and no retries", []platform.Option{platform.WithRetryPolicy(platform.DefaultRetryPolicy()), platform.WithoutRetries()}, "WithoutRetries"},
		{"no retries and retry policy", []platform.Option{platform.WithoutRetries(), platform.WithRetryPolicy(platform.DefaultRetryPolicy())}, "WithRetryPolicy"},
		{"too many retries", []platform.Option{platform.WithRetryPolicy(platform.RetryPolicy{MaxRetries: 11})}, "MaxRetries"},
		{"negative retries", []platform.Option{platform.WithRetryPolicy(platform.RetryPolicy{MaxRetries: -1})}, "MaxRetries"},
		{"negative wait", []platform.Option{platform.WithRetryPolicy(platform.RetryPolicy{MinWait: -1})}, "negative"},
		{"max wait below min wait", []platform.Option{platform.WithRetryPolicy(platform.RetryPolicy{MinWait: 2, MaxWait: 1})}, "MaxWait"},
		{"nil logger", []platform.Option{platform.WithLogger(nil)}, "WithLogger"},
		{"nil HTTP client", []platform.Option{platform.WithHTTPClient(nil)}, "WithHTTPClient"},
		{"nil sleep", []platform.Option{platform.WithSleep(nil)}, "WithSleep"},
		{"nil jitter source", []platform.Option{platform.WithJitterSource(nil)}, "WithJitterSource"},
		{"blank user agent", []platform.Option{platform.WithUserAgent(" ")}, "WithUserAgent"},
		{"user agent with a line break", []platform.Option{platform.WithUserAgent("a\nb")}, "WithUserAgent"},
		{"bad option among good ones", []platform.Option{platform.WithServiceToken("id", "secret"), platform.WithLogger(nil), platform.WithoutRetries()}, "WithLogger"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := platform.NewClient(tc.opts...)
			if err == nil {
				t.Fatalf("NewClient succeeded, want an error")
			}
			if c != nil {
				t.Errorf("NewClient returned a client with its error")
			}
			if !strings.Contains(err.Error(), tc.wantText) {
				t.Errorf("error %q does not mention %q", err, tc.wantText)
			}
		})
	}
}

func TestNewClientDefaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opts []platform.Option
		want string
	}{
		{"no options", nil, platform.DefaultBaseURL},
		{"nil option", []platform.Option{nil}, platform.DefaultBaseURL},
		{"base URL gets a trailing slash", []platform.Option{platform.WithBaseURL("http://127.0.0.1:9/api")}, "http://127.0.0.1:9/api/"},
		{"base URL keeps its slash", []platform.Option{platform.WithBaseURL("https://example.com/api/")}, "https://example.com/api/"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := platform.NewClient(tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.BaseURL().String(); got != tc.want {
				t.Errorf("BaseURL = %s, want %s", got, tc.want)
			}
			// BaseURL returns a copy.
			c.BaseURL().Path = "/changed/"
			if got := c.BaseURL().String(); got != tc.want {
				t.Errorf("BaseURL after changing a copy = %s, want %s", got, tc.want)
			}
		})
	}
}

// TestNewClientOptionOrder builds the same client from its options in
// every rotation and checks that each sends the same request.
func TestNewClientOptionOrder(t *testing.T) {
	t.Parallel()
	api := newWireFunc(t, respond(200, userJSON))
	opts := append(api.options(), platform.WithUserAgent("order/1"), fastRetries(1))
	for i := range opts {
		rotated := append(append([]platform.Option(nil), opts[i:]...), opts[:i]...)
		c, err := platform.NewClient(rotated...)
		if err != nil {
			t.Fatalf("rotation %d: %v", i, err)
		}
		if got := c.BaseURL().String(); got != api.baseURL() {
			t.Errorf("rotation %d: BaseURL = %s, want %s", i, got, api.baseURL())
		}
		if _, err := c.Users.GetCurrent(t.Context()); err != nil {
			t.Fatalf("rotation %d: %v", i, err)
		}
	}
	reqs := api.requests()
	if len(reqs) != len(opts) {
		t.Fatalf("server saw %d requests, want %d", len(reqs), len(opts))
	}
	for i, r := range reqs {
		if r.Path != "/v1/user" || r.Header.Get("Authorization") != testAuthHeader ||
			!strings.HasPrefix(r.Header.Get("User-Agent"), "order/1 platform-go/") {
			t.Errorf("rotation %d sent %s with Authorization %q, User-Agent %q", i, r.Path, r.Header.Get("Authorization"), r.Header.Get("User-Agent"))
		}
	}
}

// TestNewRequestAndDo covers the escape hatch for operations the SDK does
// not model: a relative path with a query, a body, and decoding.
func TestNewRequestAndDo(t *testing.T) {
	t.Parallel()
	api := newWireFunc(t, respond(200, `{"id": "inv1", "total": 12}`))
	c := api.newClient(t)
	req, err := c.NewRequest(t.Context(), "PUT", "v1/organizations/acme/invoices?year=2026", map[string]any{"note": "x"})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		ID    string `json:"id"`
		Total int    `json:"total"`
	}
	resp, err := c.Do(req, &got)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || got.ID != "inv1" || got.Total != 12 {
		t.Errorf("Do = %d, %+v", resp.StatusCode, got)
	}
	r := api.requests()[0]
	if r.Method != "PUT" || r.RequestURI != apiPrefix+"v1/organizations/acme/invoices?year=2026" {
		t.Errorf("request = %s %s", r.Method, r.RequestURI)
	}
	if diff := cmp.Diff(map[string]any{"note": "x"}, jsonValue(t, []byte(r.Body))); diff != "" {
		t.Errorf("body (-want +got):\n%s", diff)
	}
	checkHeaders(t, r, true)
}

// resultCalls are calls of each shape of method that returns a result: a
// written-out Get and Create, one through the call helper, a bare list and
// a page.
var resultCalls = []struct {
	name, method, path string
	call               func(context.Context, *platform.Client) (any, error)
}{
	{"Databases.Get", "GET", "/v1/organizations/acme/databases/app-db", func(ctx context.Context, c *platform.Client) (any, error) {
		return c.Databases.Get(ctx, &platform.GetDatabaseParams{Organization: "acme", Database: "app-db"})
	}},
	{"Databases.Create", "POST", "/v1/organizations/acme/databases", func(ctx context.Context, c *platform.Client) (any, error) {
		return c.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: "acme", Name: "app-db", ClusterSize: "PS_10"})
	}},
	{"Branches.Get", "GET", "/v1/organizations/acme/databases/app-db/branches/main", func(ctx context.Context, c *platform.Client) (any, error) {
		return c.Branches.Get(ctx, &platform.GetBranchParams{Organization: "acme", Database: "app-db", Branch: "main"})
	}},
	{"BranchChanges.ListParameters", "GET", "/v1/organizations/acme/databases/app-db/branches/main/parameters", func(ctx context.Context, c *platform.Client) (any, error) {
		return c.BranchChanges.ListParameters(ctx, &platform.ListParametersParams{Organization: "acme", Database: "app-db", Branch: "main"})
	}},
	{"Databases.List", "GET", "/v1/organizations/acme/databases", func(ctx context.Context, c *platform.Client) (any, error) {
		return c.Databases.List(ctx, &platform.ListDatabasesParams{Organization: "acme"})
	}},
}

// isNil reports whether v, a method's result, is a nil pointer or slice.
func isNil(v any) bool {
	rv := reflect.ValueOf(v)
	return v == nil || ((rv.Kind() == reflect.Pointer || rv.Kind() == reflect.Slice) && rv.IsNil())
}

// TestFailedCallsReturnNoResult checks that a method that fails returns a
// nil result with its error, whether the API refused, the answer decoded
// only in part, or it had no body at all: a 204 or an empty 200, which are
// errors naming the request for a method that reads a resource.
func TestFailedCallsReturnNoResult(t *testing.T) {
	t.Parallel()
	answers := []struct {
		name     string
		status   int
		body     string
		wantText string // in the error text, besides the method and path
	}{
		{"refused", 422, `{"code": "unprocessable", "message": "no"}`, "422"},
		{"decoded in part", 200, `{"id": "x", "created_at": "yesterday", "data": [{"id": "x"}], "current_page": "one"}`, "decoding"},
		{"204", 204, "", "204"},
		{"empty 200", 200, "", "200"},
		{"blank 200", 200, " \n", "200"},
	}
	for _, call := range resultCalls {
		for _, a := range answers {
			t.Run(call.name+"/"+a.name, func(t *testing.T) {
				t.Parallel()
				w := newWire(t, a.status, a.body)
				got, err := call.call(t.Context(), w.client)
				if !isNil(got) {
					t.Errorf("result = %#v with error %v, want nil", got, err)
				}
				if err == nil {
					t.Fatal("no error")
				}
				for _, part := range []string{call.method, apiPrefix + call.path[1:], a.wantText} {
					if !strings.Contains(err.Error(), part) {
						t.Errorf("error %q does not name %q", err, part)
					}
				}
			})
		}
	}
}

// tokenSourceFunc is an oauth2.TokenSource that calls itself.
type tokenSourceFunc func() (*oauth2.Token, error)

func (f tokenSourceFunc) Token() (*oauth2.Token, error) { return f() }

// TestTokenSourceWaitEndsWithTheContext checks that a call's context bounds
// its wait for a token: a token source that stalls (a refresh the token
// endpoint does not answer) ends the call with the context's error as soon
// as the context ends, and the stalled Token call is left to finish.
func TestTokenSourceWaitEndsWithTheContext(t *testing.T) {
	t.Parallel()
	api := newWireFunc(t, respond(200, userJSON))
	ctx, cancel := context.WithCancel(t.Context())
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	c, err := platform.NewClient(
		platform.WithBaseURL(api.baseURL()),
		platform.WithHTTPClient(api.srv.Client()),
		platform.WithTokenSource(tokenSourceFunc(func() (*oauth2.Token, error) {
			cancel() // the call's context ends while the token is awaited
			<-release
			return &oauth2.Token{AccessToken: "access-123"}, nil
		})),
		fastRetries(3),
	)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Users.GetCurrent(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error = %v, want context.Canceled", err)
	}
	if n := api.count(); n != 0 {
		t.Errorf("server saw %d requests, want 0", n)
	}
}

// nilEmbedded holds, for every type of the package with an UnmarshalJSON
// method, a pointer to a struct that embeds a nil pointer to it, for
// TestUnmarshalIntoNilEmbedded; TestUnmarshalersRefuseNil checks that it
// lists them all.
var nilEmbedded = []any{
	new(struct{ *platform.Timestamp }),
	new(struct{ *platform.BranchInfrastructure }),
	new(struct{ *platform.ScopeList }),
	new(struct{ *platform.LookupVindexChange }),
	new(struct{ *platform.VReplicationSummary }),
	new(struct{ *platform.WorkflowDelete }),
	new(struct{ *platform.WorkflowShow }),
	new(struct{ *platform.MoveTablesWorkflow }),
	new(struct{ *platform.MoveTablesStatus }),
	new(struct{ *platform.VitessRoutingRules }),
	new(struct{ *platform.KeyspaceRoutingRules }),
	new(struct{ *platform.ThrottlerStatus }),
	new(struct{ *platform.ThrottlerCheck }),
	new(struct{ *platform.VDiff }),
	new(struct{ *platform.VReplicationWorkflow }),
	new(struct {
		*platform.VReplicationWorkflows
	}),
	new(struct{ *platform.WorkflowUpdate }),
}

// TestUnmarshalIntoNilEmbedded decodes into a caller's struct that embeds a
// nil pointer to each type of the package with an UnmarshalJSON method:
// never a panic. Go 1.26's encoding/json refuses the field or skips it; from
// Go 1.27 it calls the method with a nil receiver, which must refuse it (CI
// runs this package's tests on Go 1.27 too).
func TestUnmarshalIntoNilEmbedded(t *testing.T) {
	t.Parallel()
	for _, v := range nilEmbedded {
		name := reflect.TypeOf(v).Elem().Field(0).Type.Elem().Name()
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// A string is refused. An object is decoded as the embedded
			// type's fields on Go 1.26 and refused from Go 1.27; it must
			// not panic either way.
			for _, doc := range []string{`"2026-01-14T10:19:23.000Z"`, `{"data": {}}`} {
				v := reflect.New(reflect.TypeOf(v).Elem()).Interface()
				if err := json.Unmarshal([]byte(doc), v); err == nil && doc[0] == '"' {
					t.Errorf("decoding %s into a nil embedded *%s: no error", doc, name)
				}
			}
		})
	}
}
