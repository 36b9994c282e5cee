package platform_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
	"github.com/google/go-cmp/cmp"
)

// branchJSON is a branch as the API sends it, written from the reference's
// DatabaseBranch schema and the spec's branch fields, independently of the
// SDK's types.
const branchJSON = `{
	"id": "br0000000001",
	"type": "Branch",
	"name": "dev",
	"kind": "mysql",
	"state": "ready",
	"ready": true,
	"schema_ready": true,
	"production": false,
	"safe_migrations": false,
	"deletion_protected": true,
	"sharded": false,
	"shard_count": 1,
	"keyspace_count": 1,
	"stale_schema": false,
	"metal": false,
	"parent_branch": "main",
	"restored_from_branch": {
		"id": "br0000000000",
		"name": "old",
		"created_at": "2026-01-01T00:00:00.000Z",
		"updated_at": "2026-01-01T00:00:01.000Z",
		"deleted_at": null
	},
	"initial_restore_id": "bk0000000001",
	"actor": {"id": "us0000000001", "type": "User", "display_name": "Ada", "avatar_url": "https://avatars.example.com/a"},
	"region": {
		"id": "reg1", "type": "Region", "provider": "AWS", "enabled": true,
		"public_ip_addresses": ["192.0.2.1"], "display_name": "East", "location": "Virginia",
		"slug": "us-east", "current_default": true, "mysql_supported": true, "postgresql_supported": false
	},
	"cluster_name": "PS_10",
	"cluster_iops": null,
	"access_host_url": "h.example.com",
	"mysql_address": "m.example.com",
	"mysql_edge_address": "e.example.com",
	"mysql_provider_address": "p.example.com",
	"private_edge_connectivity": true,
	"has_replicas": true,
	"has_read_only_replicas": false,
	"direct_vtgate": true,
	"vtgate_size": "VTG_5",
	"vtgate_name": null,
	"vtgate_count": 2,
	"vtgate_autoscaling": true,
	"vtgate_max_count": 4,
	"vtgate_target_cpu_utilization": 70,
	"vtgate_options": {"k": "v"},
	"multiple_admins_required_for_demotion": true,
	"html_url": "https://app.example.com/acme/app-db/dev",
	"url": "https://api.example.com/v1/organizations/acme/databases/app-db/branches/dev",
	"created_at": "2026-01-02T03:04:05.000Z",
	"updated_at": "2026-01-02T03:04:06.000Z",
	"deleted_at": null,
	"schema_last_updated_at": "2026-01-02T03:04:07.000Z",
	"restore_checklist_completed_at": null
}`

// ts is a Timestamp for a time given in the tests' fixtures.
func ts(year int, month time.Month, day, hour, minute, sec int) platform.Timestamp {
	return platform.NewTimestamp(time.Date(year, month, day, hour, minute, sec, 0, time.UTC))
}

// wantBranch is branchJSON decoded.
func wantBranch() *platform.Branch {
	schemaAt := ts(2026, 1, 2, 3, 4, 7)
	return &platform.Branch{
		ID:                "br0000000001",
		Type:              "Branch",
		Name:              "dev",
		Kind:              platform.KindMySQL,
		State:             platform.BranchReady,
		Ready:             true,
		SchemaReady:       true,
		DeletionProtected: true,
		ShardCount:        1,
		KeyspaceCount:     1,
		ParentBranch:      platform.Ptr("main"),
		RestoredFromBranch: &platform.BranchRef{
			ID: "br0000000000", Name: "old",
			CreatedAt: ts(2026, 1, 1, 0, 0, 0), UpdatedAt: ts(2026, 1, 1, 0, 0, 1),
		},
		InitialRestoreID: platform.Ptr("bk0000000001"),
		Actor:            &platform.Actor{ID: "us0000000001", Type: "User", DisplayName: "Ada", AvatarURL: "https://avatars.example.com/a"},
		Region: platform.Region{
			ID: "reg1", Type: "Region", Provider: "AWS", Enabled: true,
			PublicIPAddresses: []string{"192.0.2.1"}, DisplayName: "East", Location: "Virginia",
			Slug: "us-east", CurrentDefault: platform.Ptr(true), MySQLSupported: platform.Ptr(true), PostgreSQLSupported: platform.Ptr(false),
		},
		ClusterName:                       "PS_10",
		AccessHostURL:                     "h.example.com",
		MySQLAddress:                      "m.example.com",
		MySQLEdgeAddress:                  "e.example.com",
		MySQLProviderAddress:              "p.example.com",
		PrivateEdgeConnectivity:           true,
		HasReplicas:                       true,
		DirectVTGate:                      true,
		VTGateSize:                        "VTG_5",
		VTGateCount:                       2,
		VTGateAutoscaling:                 true,
		VTGateMaxCount:                    platform.Ptr(4),
		VTGateTargetCPUUtilization:        platform.Ptr(70),
		VTGateOptions:                     map[string]any{"k": "v"},
		MultipleAdminsRequiredForDemotion: true,
		HTMLURL:                           "https://app.example.com/acme/app-db/dev",
		URL:                               "https://api.example.com/v1/organizations/acme/databases/app-db/branches/dev",
		CreatedAt:                         ts(2026, 1, 2, 3, 4, 5),
		UpdatedAt:                         ts(2026, 1, 2, 3, 4, 6),
		SchemaLastUpdatedAt:               &schemaAt,
	}
}

// branchListJSON is a page of branchJSON with totals.
const branchListJSON = `{
	"type": "list", "current_page": 2, "per_page": 1,
	"next_page": 3, "next_page_url": "https://api.example.com/next",
	"prev_page": 1, "prev_page_url": "https://api.example.com/prev",
	"total_count": 3, "total_pages": 3,
	"data": [` + branchJSON + `]
}`

const lintListJSON = `{
	"type": "list", "current_page": 1, "per_page": 25,
	"next_page": null, "next_page_url": null, "prev_page": null, "prev_page_url": null,
	"data": [{
		"type": "SchemaLintError", "lint_error": "NO_UNIQUE_KEY", "subject_type": "table", "keyspace_name": "app-db",
		"table_name": "logs", "error_description": "no key", "docs_url": "https://docs.example.com/x",
		"column_name": "", "foreign_key_column_names": [], "auto_increment_column_names": [],
		"charset_name": "", "engine_name": "", "vindex_name": "", "json_path": "",
		"check_constraint_name": "", "enum_value": "", "partitioning_type": "", "partition_name": "",
		"url_hash": "a1b2c3d4e5f6"
	}]
}`

const schemaJSON = `{"data": [
	{"name": "logs", "raw": "CREATE TABLE logs (msg text)", "html": "<pre>CREATE TABLE logs (msg text)</pre>"},
	{"name": "users", "raw": "CREATE TABLE users (id int PRIMARY KEY)", "html": "<pre>u</pre>"}
]}`

const branchPath = "/v1/organizations/acme/databases/app-db/branches"

// TestBranchesWire checks every branch method's request (method, path,
// query, JSON body) and the decoding of its response.
func TestBranchesWire(t *testing.T) {
	t.Parallel()
	ref := func(p platform.BranchParams) *platform.BranchParams { return &p }
	dev := platform.BranchParams{Organization: "acme", Database: "app-db", Branch: "dev"}
	page := func(n int) *int { return &n }
	tests := []methodCase{{
		name: "list with every filter",
		call: func(ctx context.Context, c *platform.Client) (any, error) {
			return c.Branches.List(ctx, &platform.ListBranchesParams{
				Organization: "acme", Database: "app-db", Query: "feat",
				Production: platform.Ptr(true), SafeMigrations: platform.Ptr(false),
				Order: platform.OrderDesc, ListParams: platform.ListParams{Page: 2, PerPage: 1},
			})
		},
		status: 200, response: branchListJSON,
		method: "GET", path: branchPath,
		query: url.Values{"q": {"feat"}, "production": {"true"}, "safe_migrations": {"false"}, "order": {"desc"}, "page": {"2"}, "per_page": {"1"}},
		want: &platform.Page[platform.Branch]{
			Type: "list", CurrentPage: 2, PerPage: 1,
			NextPage: page(3), NextPageURL: platform.Ptr("https://api.example.com/next"),
			PrevPage: page(1), PrevPageURL: platform.Ptr("https://api.example.com/prev"),
			TotalCount: page(3), TotalPages: page(3),
			Items: []*platform.Branch{wantBranch()},
		},
	}, {
		name: "list sends a false filter",
		call: func(ctx context.Context, c *platform.Client) (any, error) {
			p, err := c.Branches.List(ctx, &platform.ListBranchesParams{Organization: "acme", Database: "app-db", Production: platform.Ptr(false)})
			if err != nil {
				return nil, err
			}
			return p.TotalCount, nil
		},
		status: 200, response: branchListJSON,
		method: "GET", path: branchPath, query: url.Values{"production": {"false"}},
		want: page(3),
	}, {
		name: "create with every field",
		call: func(ctx context.Context, c *platform.Client) (any, error) {
			return c.Branches.Create(ctx, &platform.CreateBranchParams{
				Organization: "acme", Database: "app-db", Name: "dev", ParentBranch: "main",
				BackupID: "bk1", Region: "us-east", ClusterSize: "PS_10", DeletionProtected: platform.Ptr(false),
			})
		},
		status: 201, response: branchJSON,
		method: "POST", path: branchPath, query: url.Values{},
		body: `{"name":"dev","parent_branch":"main","backup_id":"bk1","region":"us-east","cluster_size":"PS_10","deletion_protected":false}`,
		want: wantBranch(),
	}, {
		name: "create a PostgreSQL branch with every field of its own",
		call: func(ctx context.Context, c *platform.Client) (any, error) {
			return c.Branches.Create(ctx, &platform.CreateBranchParams{
				Organization: "acme", Database: "app-db", Name: "dev", ClusterName: "PS_20", MajorVersion: "17",
				Storage: &platform.StorageParams{MinimumStorageBytes: platform.Ptr[int64](20 << 30), MaximumStorageBytes: platform.Ptr[int64](100 << 30)},
			})
		},
		status: 201, response: branchJSON,
		method: "POST", path: branchPath, query: url.Values{},
		body: `{"name":"dev","cluster_name":"PS_20","major_version":"17","storage":{"minimum_storage_bytes":21474836480,"maximum_storage_bytes":107374182400}}`,
		want: wantBranch(),
	}, {
		name: "create seeded, with keyspace sizes",
		call: func(ctx context.Context, c *platform.Client) (any, error) {
			return c.Branches.Create(ctx, &platform.CreateBranchParams{
				Organization: "acme", Database: "app-db", Name: "dev", SeedData: platform.SeedLastSuccessfulBackup,
				KeyspaceClusterSizes: []platform.KeyspaceClusterSize{{KeyspaceName: "app-db", ClusterSize: "PS_40"}},
			})
		},
		status: 201, response: branchJSON,
		method: "POST", path: branchPath, query: url.Values{},
		body: `{"name":"dev","seed_data":"last_successful_backup","keyspace_cluster_sizes":[{"keyspace_name":"app-db","cluster_size":"PS_40"}]}`,
		want: wantBranch(),
	}, {
		name: "create with the name only",
		call: func(ctx context.Context, c *platform.Client) (any, error) {
			return c.Branches.Create(ctx, &platform.CreateBranchParams{Organization: "acme", Database: "app-db", Name: "dev"})
		},
		status: 201, response: branchJSON,
		method: "POST", path: branchPath, query: url.Values{}, body: `{"name":"dev"}`,
		want: wantBranch(),
	}, {
		name: "get",
		call: func(ctx context.Context, c *platform.Client) (any, error) {
			return c.Branches.Get(ctx, ref(dev))
		},
		status: 200, response: branchJSON,
		method: "GET", path: branchPath + "/dev", query: url.Values{},
		want: wantBranch(),
	}, {
		name: "get escapes the branch name",
		call: func(ctx context.Context, c *platform.Client) (any, error) {
			return c.Branches.Get(ctx, &platform.GetBranchParams{Organization: "acme", Database: "app-db", Branch: "a/b?c"})
		},
		status: 200, response: branchJSON,
		method: "GET", path: branchPath + "/a%2Fb%3Fc", query: url.Values{},
		want: wantBranch(),
	}, {
		name: "update both fields",
		call: func(ctx context.Context, c *platform.Client) (any, error) {
			return c.Branches.Update(ctx, &platform.UpdateBranchParams{
				Organization: "acme", Database: "app-db", Branch: "dev",
				NewName: platform.Ptr("dev2"), DeletionProtected: platform.Ptr(false),
			})
		},
		status: 200, response: branchJSON,
		method: "PATCH", path: branchPath + "/dev", query: url.Values{},
		body: `{"new_name":"dev2","deletion_protected":false}`,
		want: wantBranch(),
	}, {
		name: "update nothing sends an empty object",
		call: func(ctx context.Context, c *platform.Client) (any, error) {
			return c.Branches.Update(ctx, &platform.UpdateBranchParams{Organization: "acme", Database: "app-db", Branch: "dev"})
		},
		status: 200, response: branchJSON,
		method: "PATCH", path: branchPath + "/dev", query: url.Values{}, body: `{}`,
		want: wantBranch(),
	}, {
		name: "delete",
		call: func(ctx context.Context, c *platform.Client) (any, error) {
			return nil, c.Branches.Delete(ctx, &platform.DeleteBranchParams{Organization: "acme", Database: "app-db", Branch: "dev"})
		},
		status: 204,
		method: "DELETE", path: branchPath + "/dev", query: url.Values{},
	}, {
		name: "delete with descendants",
		call: func(ctx context.Context, c *platform.Client) (any, error) {
			return nil, c.Branches.Delete(ctx, &platform.DeleteBranchParams{Organization: "acme", Database: "app-db", Branch: "dev", DeleteDescendants: true})
		},
		status: 204,
		method: "DELETE", path: branchPath + "/dev", query: url.Values{"delete_descendants": {"true"}},
	}, {
		name: "promote",
		call: func(ctx context.Context, c *platform.Client) (any, error) {
			return c.Branches.Promote(ctx, ref(dev))
		},
		status: 200, response: branchJSON,
		method: "POST", path: branchPath + "/dev/promote", query: url.Values{},
		want: wantBranch(),
	}, {
		name: "demote",
		call: func(ctx context.Context, c *platform.Client) (any, error) {
			return c.Branches.Demote(ctx, ref(dev))
		},
		status: 200, response: branchJSON,
		method: "POST", path: branchPath + "/dev/demote", query: url.Values{},
		want: wantBranch(),
	}, {
		name: "enable safe migrations",
		call: func(ctx context.Context, c *platform.Client) (any, error) {
			return c.Branches.EnableSafeMigrations(ctx, ref(dev))
		},
		status: 200, response: branchJSON,
		method: "POST", path: branchPath + "/dev/safe-migrations", query: url.Values{},
		want: wantBranch(),
	}, {
		name: "update safe migrations sends false",
		call: func(ctx context.Context, c *platform.Client) (any, error) {
			return c.Branches.UpdateSafeMigrations(ctx, &platform.UpdateSafeMigrationsParams{Organization: "acme", Database: "app-db", Branch: "dev"})
		},
		status: 200, response: branchJSON,
		method: "PUT", path: branchPath + "/dev/safe-migrations", query: url.Values{},
		body: `{"safe_migrations":false}`,
		want: wantBranch(),
	}, {
		name: "update safe migrations sends true",
		call: func(ctx context.Context, c *platform.Client) (any, error) {
			return c.Branches.UpdateSafeMigrations(ctx, &platform.UpdateSafeMigrationsParams{Organization: "acme", Database: "app-db", Branch: "dev", SafeMigrations: true})
		},
		status: 200, response: branchJSON,
		method: "PUT", path: branchPath + "/dev/safe-migrations", query: url.Values{},
		body: `{"safe_migrations":true}`,
		want: wantBranch(),
	}, {
		name: "disable safe migrations",
		call: func(ctx context.Context, c *platform.Client) (any, error) {
			return c.Branches.DisableSafeMigrations(ctx, ref(dev))
		},
		status: 200, response: branchJSON,
		method: "DELETE", path: branchPath + "/dev/safe-migrations", query: url.Values{},
		want: wantBranch(),
	}, {
		name: "get schema of a keyspace",
		call: func(ctx context.Context, c *platform.Client) (any, error) {
			return c.Branches.GetSchema(ctx, &platform.GetBranchSchemaParams{Organization: "acme", Database: "app-db", Branch: "dev", Keyspace: "app-db"})
		},
		status: 200, response: schemaJSON,
		method: "GET", path: branchPath + "/dev/schema", query: url.Values{"keyspace": {"app-db"}},
		want: &platform.BranchSchema{Tables: []*platform.TableSchema{
			{Name: "logs", Raw: "CREATE TABLE logs (msg text)", HTML: "<pre>CREATE TABLE logs (msg text)</pre>"},
			{Name: "users", Raw: "CREATE TABLE users (id int PRIMARY KEY)", HTML: "<pre>u</pre>"},
		}},
	}, {
		name: "get schema of a namespace",
		call: func(ctx context.Context, c *platform.Client) (any, error) {
			s, err := c.Branches.GetSchema(ctx, &platform.GetBranchSchemaParams{Organization: "acme", Database: "app-db", Branch: "dev", Namespace: "app.public"})
			if err != nil {
				return nil, err
			}
			return len(s.Tables), nil
		},
		status: 200, response: schemaJSON,
		method: "GET", path: branchPath + "/dev/schema", query: url.Values{"namespace": {"app.public"}},
		want: 2,
	}, {
		name: "lint schema",
		call: func(ctx context.Context, c *platform.Client) (any, error) {
			return c.Branches.LintSchema(ctx, &platform.LintBranchSchemaParams{Organization: "acme", Database: "app-db", Branch: "dev", ListParams: platform.ListParams{Page: 1, PerPage: 25}})
		},
		status: 200, response: lintListJSON,
		method: "GET", path: branchPath + "/dev/schema/lint", query: url.Values{"page": {"1"}, "per_page": {"25"}},
		want: &platform.Page[platform.LintError]{
			Type: "list", CurrentPage: 1, PerPage: 25,
			Items: []*platform.LintError{{
				Type: "SchemaLintError", URLHash: "a1b2c3d4e5f6",
				LintError: platform.LintNoUniqueKey, SubjectType: platform.LintSubjectTable, KeyspaceName: "app-db",
				TableName: "logs", ErrorDescription: "no key", DocsURL: "https://docs.example.com/x",
				ForeignKeyColumnNames: []string{}, AutoIncrementColumnNames: []string{},
			}},
		},
	}}
	runMethodCases(t, tests)
}

// TestBranchesErrorResponse checks that an API error reaches the caller
// classified, with its message.
func TestBranchesErrorResponse(t *testing.T) {
	t.Parallel()
	w := newWire(t, http.StatusUnprocessableEntity, `{"code":"unprocessable","message":"branch main is the default branch"}`)
	err := w.client.Branches.Delete(t.Context(), &platform.DeleteBranchParams{Organization: "acme", Database: "app-db", Branch: "main"})
	var apiErr *platform.Error
	if !errors.As(err, &apiErr) || !errors.Is(err, platform.ErrUnprocessable) {
		t.Fatalf("Delete error %v, want an unprocessable *platform.Error", err)
	}
	if apiErr.Code != "unprocessable" || apiErr.Message != "branch main is the default branch" {
		t.Errorf("error code %q message %q", apiErr.Code, apiErr.Message)
	}
}

// TestBranchesArgErrors checks that every method refuses missing path
// values and bad list parameters with an *ArgError, before any request.
func TestBranchesArgErrors(t *testing.T) {
	t.Parallel()
	type call func(ctx context.Context, c *platform.Client, org, db, branch string) error
	branchMethod := func(m func(*platform.BranchesService) func(context.Context, *platform.BranchParams) (*platform.Branch, error)) call {
		return func(ctx context.Context, c *platform.Client, org, db, branch string) error {
			_, err := m(c.Branches)(ctx, &platform.BranchParams{Organization: org, Database: db, Branch: branch})
			return err
		}
	}
	methods := map[string]struct {
		call       call
		takeBranch bool
	}{
		"List": {call: func(ctx context.Context, c *platform.Client, org, db, _ string) error {
			_, err := c.Branches.List(ctx, &platform.ListBranchesParams{Organization: org, Database: db})
			return err
		}},
		"Create": {call: func(ctx context.Context, c *platform.Client, org, db, _ string) error {
			_, err := c.Branches.Create(ctx, &platform.CreateBranchParams{Organization: org, Database: db, Name: "dev"})
			return err
		}},
		"Get": {takeBranch: true, call: branchMethod(func(s *platform.BranchesService) func(context.Context, *platform.BranchParams) (*platform.Branch, error) {
			return s.Get
		})},
		"Promote": {takeBranch: true, call: branchMethod(func(s *platform.BranchesService) func(context.Context, *platform.BranchParams) (*platform.Branch, error) {
			return s.Promote
		})},
		"Demote": {takeBranch: true, call: branchMethod(func(s *platform.BranchesService) func(context.Context, *platform.BranchParams) (*platform.Branch, error) {
			return s.Demote
		})},
		"EnableSafeMigrations": {takeBranch: true, call: branchMethod(func(s *platform.BranchesService) func(context.Context, *platform.BranchParams) (*platform.Branch, error) {
			return s.EnableSafeMigrations
		})},
		"DisableSafeMigrations": {takeBranch: true, call: branchMethod(func(s *platform.BranchesService) func(context.Context, *platform.BranchParams) (*platform.Branch, error) {
			return s.DisableSafeMigrations
		})},
		"Wait": {takeBranch: true, call: branchMethod(func(s *platform.BranchesService) func(context.Context, *platform.BranchParams) (*platform.Branch, error) {
			return s.Wait
		})},
		"Update": {takeBranch: true, call: func(ctx context.Context, c *platform.Client, org, db, branch string) error {
			_, err := c.Branches.Update(ctx, &platform.UpdateBranchParams{Organization: org, Database: db, Branch: branch, NewName: platform.Ptr("x")})
			return err
		}},
		"Delete": {takeBranch: true, call: func(ctx context.Context, c *platform.Client, org, db, branch string) error {
			return c.Branches.Delete(ctx, &platform.DeleteBranchParams{Organization: org, Database: db, Branch: branch})
		}},
		"UpdateSafeMigrations": {takeBranch: true, call: func(ctx context.Context, c *platform.Client, org, db, branch string) error {
			_, err := c.Branches.UpdateSafeMigrations(ctx, &platform.UpdateSafeMigrationsParams{Organization: org, Database: db, Branch: branch, SafeMigrations: true})
			return err
		}},
		"GetSchema": {takeBranch: true, call: func(ctx context.Context, c *platform.Client, org, db, branch string) error {
			_, err := c.Branches.GetSchema(ctx, &platform.GetBranchSchemaParams{Organization: org, Database: db, Branch: branch})
			return err
		}},
		"LintSchema": {takeBranch: true, call: func(ctx context.Context, c *platform.Client, org, db, branch string) error {
			_, err := c.Branches.LintSchema(ctx, &platform.LintBranchSchemaParams{Organization: org, Database: db, Branch: branch})
			return err
		}},
		"AllLintErrors": {takeBranch: true, call: func(ctx context.Context, c *platform.Client, org, db, branch string) error {
			for _, err := range c.Branches.AllLintErrors(ctx, &platform.LintBranchSchemaParams{Organization: org, Database: db, Branch: branch}) {
				return err
			}
			return nil
		}},
		"All": {call: func(ctx context.Context, c *platform.Client, org, db, _ string) error {
			for _, err := range c.Branches.All(ctx, &platform.ListBranchesParams{Organization: org, Database: db}) {
				return err
			}
			return nil
		}},
	}
	for name, m := range methods {
		missing := []string{"organization", "database"}
		if m.takeBranch {
			missing = append(missing, "branch")
		}
		for _, arg := range missing {
			t.Run(name+"/"+arg, func(t *testing.T) {
				t.Parallel()
				w := newWire(t, 200, "{}")
				vals := map[string]string{"organization": "acme", "database": "app-db", "branch": "dev"}
				vals[arg] = ""
				err := m.call(t.Context(), w.client, vals["organization"], vals["database"], vals["branch"])
				var argErr *platform.ArgError
				if !errors.As(err, &argErr) || argErr.Arg != arg {
					t.Fatalf("error %v, want an *ArgError for %s", err, arg)
				}
				if n := len(w.requests()); n != 0 {
					t.Errorf("%d requests sent, want none", n)
				}
			})
		}
	}
}

// TestBranchesListParamErrors checks the list parameters the SDK refuses
// before sending.
func TestBranchesListParamErrors(t *testing.T) {
	t.Parallel()
	base := platform.ListBranchesParams{Organization: "acme", Database: "app-db"}
	tests := []struct {
		name string
		edit func(p *platform.ListBranchesParams)
		arg  string
	}{
		{"unknown order", func(p *platform.ListBranchesParams) { p.Order = "newest" }, "order"},
		{"negative page", func(p *platform.ListBranchesParams) { p.Page = -1 }, "page"},
		{"per_page over the maximum", func(p *platform.ListBranchesParams) { p.PerPage = platform.MaxPerPage + 1 }, "per_page"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWire(t, 200, branchListJSON)
			p := base
			tt.edit(&p)
			_, err := w.client.Branches.List(t.Context(), &p)
			var argErr *platform.ArgError
			if !errors.As(err, &argErr) || argErr.Arg != tt.arg {
				t.Fatalf("error %v, want an *ArgError for %s", err, tt.arg)
			}
			if n := len(w.requests()); n != 0 {
				t.Errorf("%d requests sent, want none", n)
			}
		})
	}
}

// TestBranchesNilParams checks that nil params are refused like empty ones.
func TestBranchesNilParams(t *testing.T) {
	t.Parallel()
	w := newWire(t, 200, "{}")
	ctx := t.Context()
	c := w.client.Branches
	errs := map[string]error{}
	_, errs["List"] = c.List(ctx, nil)
	_, errs["Create"] = c.Create(ctx, nil)
	_, errs["Get"] = c.Get(ctx, nil)
	_, errs["Update"] = c.Update(ctx, nil)
	errs["Delete"] = c.Delete(ctx, nil)
	_, errs["UpdateSafeMigrations"] = c.UpdateSafeMigrations(ctx, nil)
	_, errs["GetSchema"] = c.GetSchema(ctx, nil)
	_, errs["LintSchema"] = c.LintSchema(ctx, nil)
	for name, err := range errs {
		var argErr *platform.ArgError
		if !errors.As(err, &argErr) || argErr.Arg != "params" {
			t.Errorf("%s(nil) error %v, want an *ArgError for the nil params", name, err)
		}
	}
	if n := len(w.requests()); n != 0 {
		t.Errorf("%d requests sent, want none", n)
	}
}

// newReadyDatabase creates a database on srv and moves the clock until it
// and its main branch are ready.
func newReadyDatabase(t *testing.T, srv *fake.Server, name string) {
	t.Helper()
	_, err := srv.Client().Databases.Create(t.Context(), &platform.CreateDatabaseParams{Organization: srv.Org(), Name: name, ClusterSize: "PS_10"})
	if err != nil {
		t.Fatalf("creating database: %v", err)
	}
	srv.Advance(5 * time.Second)
}

// TestBranchesWait waits for a new branch against the fake, whose
// clock the waiter moves, with the default and a longer branch delay.
func TestBranchesWait(t *testing.T) {
	t.Parallel()
	for _, delay := range []time.Duration{5 * time.Second, 2 * time.Minute} {
		t.Run(delay.String(), func(t *testing.T) {
			t.Parallel()
			srv := fake.NewServer(t, fake.WithTimings(fake.Timings{BranchReady: delay}))
			newReadyDatabase(t, srv, "app-db")
			c := srv.Client()
			created, err := c.Branches.Create(t.Context(), &platform.CreateBranchParams{Organization: srv.Org(), Database: "app-db", Name: "dev"})
			if err != nil {
				t.Fatalf("Create: %v", err)
			}
			if created.Ready || created.State != platform.BranchPending {
				t.Fatalf("new branch ready=%v state=%s, want not ready and pending", created.Ready, created.State)
			}
			start := srv.Now()
			b, err := c.Branches.Wait(t.Context(), &platform.GetBranchParams{Organization: srv.Org(), Database: "app-db", Branch: "dev"})
			if err != nil {
				t.Fatalf("Wait: %v", err)
			}
			if !b.Ready || b.State != platform.BranchReady {
				t.Errorf("Wait returned ready=%v state=%s", b.Ready, b.State)
			}
			if waited := srv.Now().Sub(start); waited < delay {
				t.Errorf("clock moved %v, less than the branch delay %v", waited, delay)
			}
		})
	}
}

// TestBranchesWaitContext checks that a waiter ends with its
// context.
func TestBranchesWaitContext(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	newReadyDatabase(t, srv, "app-db")
	c := srv.Client()
	if _, err := c.Branches.Create(t.Context(), &platform.CreateBranchParams{Organization: srv.Org(), Database: "app-db", Name: "dev"}); err != nil {
		t.Fatalf("Create: %v", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := c.Branches.Wait(ctx, &platform.GetBranchParams{Organization: srv.Org(), Database: "app-db", Branch: "dev"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait error %v, want context.Canceled", err)
	}
}

// TestBranchesAllAgainstFake ranges over every branch and every lint error
// across pages.
func TestBranchesAllAgainstFake(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	newReadyDatabase(t, srv, "app-db")
	c := srv.Client()
	want := []string{"main"}
	for _, name := range []string{"b1", "b2", "b3", "b4", "b5"} {
		if _, err := c.Branches.Create(t.Context(), &platform.CreateBranchParams{Organization: srv.Org(), Database: "app-db", Name: name}); err != nil {
			t.Fatalf("Create %s: %v", name, err)
		}
		srv.Advance(time.Second) // distinct creation times keep the order by name
		want = append(want, name)
	}
	var got []string
	for b, err := range c.Branches.All(t.Context(), &platform.ListBranchesParams{Organization: srv.Org(), Database: "app-db", ListParams: platform.ListParams{PerPage: 2}}) {
		if err != nil {
			t.Fatalf("All: %v", err)
		}
		got = append(got, b.Name)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("All names (-want +got):\n%s", diff)
	}

	if err := srv.PushSchema(srv.Org(), "app-db", "main", "CREATE TABLE a (x int)", "CREATE TABLE b (x int)", "CREATE TABLE c (x int)"); err != nil {
		t.Fatalf("PushSchema: %v", err)
	}
	var tables []string
	for e, err := range c.Branches.AllLintErrors(t.Context(), &platform.LintBranchSchemaParams{Organization: srv.Org(), Database: "app-db", Branch: "main", ListParams: platform.ListParams{PerPage: 2}}) {
		if err != nil {
			t.Fatalf("AllLintErrors: %v", err)
		}
		tables = append(tables, e.TableName)
	}
	if diff := cmp.Diff([]string{"a", "b", "c"}, tables); diff != "" {
		t.Errorf("lint error tables (-want +got):\n%s", diff)
	}
}

// ExampleBranchesService_Create creates a development branch of a
// database's production branch and waits until it is ready: a new branch
// starts pending, and schema changes on it, deploy requests from it and
// branches of it need it ready.
func ExampleBranchesService_Create() {
	srv, err := fake.New()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	client, ctx := srv.Client(), context.Background()
	if _, err := client.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: "acme", Name: "shop", ClusterSize: "PS_10"}); err != nil {
		log.Fatal(err)
	}
	if _, err := client.Databases.Wait(ctx, &platform.GetDatabaseParams{Organization: "acme", Database: "shop"}); err != nil {
		log.Fatal(err)
	}
	// The fake's PushSchema stands for DDL sent over a SQL connection.
	if err := srv.PushSchema("acme", "shop", "main", "CREATE TABLE users (id bigint NOT NULL, PRIMARY KEY (id))"); err != nil {
		log.Fatal(err)
	}

	b, err := client.Branches.Create(ctx, &platform.CreateBranchParams{
		Organization: "acme", Database: "shop", Name: "add-email", ParentBranch: "main",
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(b.Name, b.State)
	b, err = client.Branches.Wait(ctx, &platform.GetBranchParams{Organization: "acme", Database: "shop", Branch: "add-email"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s %s, production %t, from %s\n", b.Name, b.State, b.Production, *b.ParentBranch)

	// The branch starts with its parent's schema.
	schema, err := client.Branches.GetSchema(ctx, &platform.GetBranchSchemaParams{Organization: "acme", Database: "shop", Branch: "add-email"})
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range schema.Tables {
		fmt.Println("table", t.Name)
	}
	// Output:
	// add-email pending
	// add-email ready, production false, from main
	// table users
}
