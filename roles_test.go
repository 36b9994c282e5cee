package platform_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/google/go-cmp/cmp"
)

// roleWireJSON is a role as the API sends it, written from the reference
// independently of the SDK's types.
const roleWireJSON = `{
	"id": "r1", "type": "Role", "name": "app", "access_host_url": "us-east.pg.example",
	"private_access_host_url": "private.us-east.pg.example", "private_connection_service_name": "svc",
	"username": "role_abc.b1", "base_username": "role_abc", "password": "pw_secret",
	"database_name": "app-db", "created_at": "2026-01-14T10:19:23.000Z", "updated_at": "2026-01-14T10:19:24.000Z",
	"deleted_at": null, "expires_at": "2026-01-14T11:19:23.000Z", "dropped_at": null, "disabled_at": null,
	"drop_failed": "", "ready": true, "expired": false, "default": false, "ttl": 3600,
	"inherited_roles": ["svc_managed", "pg_read_all_data"], "with_replication": true,
	"branch": {"id": "b1", "name": "main", "created_at": "2026-01-14T10:00:00.000Z", "updated_at": "2026-01-14T10:00:00.000Z", "deleted_at": null},
	"actor": {"id": "u1", "type": "User", "display_name": "Ada", "avatar_url": "https://avatars.example.com/u1"},
	"query_safety_settings": {"require_where_on_delete": "on", "require_where_on_update": "warn"}
}`

// wantWireRole is roleWireJSON decoded by hand.
func wantWireRole(t *testing.T) *platform.Role {
	t.Helper()
	ts := func(s string) platform.Timestamp {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return platform.Timestamp{Time: v}
	}
	branchAt := ts("2026-01-14T10:00:00Z")
	expires := ts("2026-01-14T11:19:23Z")
	return &platform.Role{
		ID: "r1", Type: "Role", Name: "app", AccessHostURL: "us-east.pg.example",
		PrivateAccessHostURL: "private.us-east.pg.example", PrivateConnectionServiceName: "svc",
		Username: "role_abc.b1", BaseUsername: "role_abc", Password: "pw_secret", DatabaseName: "app-db",
		CreatedAt: ts("2026-01-14T10:19:23Z"), UpdatedAt: ts("2026-01-14T10:19:24Z"), ExpiresAt: &expires,
		Ready: true, TTL: 3600,
		InheritedRoles:  []platform.InheritedRole{platform.InheritedManaged, platform.InheritedReadAllData},
		WithReplication: true,
		Branch:          platform.BranchRef{ID: "b1", Name: "main", CreatedAt: branchAt, UpdatedAt: branchAt},
		Actor:           &platform.Actor{ID: "u1", Type: "User", DisplayName: "Ada", AvatarURL: "https://avatars.example.com/u1"},
		QuerySafetySettings: platform.QuerySafetySettings{
			RequireWhereOnDelete: platform.QuerySafetyOn,
			RequireWhereOnUpdate: platform.QuerySafetyWarn,
		},
	}
}

func TestRolesWire(t *testing.T) {
	t.Parallel()
	const (
		org, db, br = "acme", "app db", "main"
		base        = "/v1/organizations/acme/databases/app%20db/branches/main/roles"
	)
	role := &platform.RoleParams{Organization: org, Database: db, Branch: br, ID: "r/1"}
	branch := &platform.BranchParams{Organization: org, Database: db, Branch: br}
	tests := []struct {
		name   string
		status int
		resp   string
		call   func(ctx context.Context, c *platform.Client) (*platform.Role, error)
		want   wantRequest
	}{
		{
			name: "create", status: 200, resp: roleWireJSON,
			call: func(ctx context.Context, c *platform.Client) (*platform.Role, error) {
				return c.Roles.Create(ctx, &platform.CreateRoleParams{
					Organization: org, Database: db, Branch: br,
					Name:                 platform.Ptr("app"),
					TTL:                  platform.Ptr(3600),
					InheritedRoles:       []platform.InheritedRole{platform.InheritedManaged, platform.InheritedReadAllData},
					WithReplication:      platform.Ptr(true),
					RequireWhereOnDelete: platform.Ptr(platform.QuerySafetyOn),
					RequireWhereOnUpdate: platform.Ptr(platform.QuerySafetyWarn),
				})
			},
			want: wantRequest{Method: "POST", Path: base, Body: `{
				"name": "app", "ttl": 3600, "inherited_roles": ["svc_managed", "pg_read_all_data"],
				"with_replication": true, "require_where_on_delete": "on", "require_where_on_update": "warn"
			}`},
		},
		{
			name: "create with defaults sends an empty object", status: 200, resp: roleWireJSON,
			call: func(ctx context.Context, c *platform.Client) (*platform.Role, error) {
				return c.Roles.Create(ctx, &platform.CreateRoleParams{Organization: org, Database: db, Branch: br})
			},
			want: wantRequest{Method: "POST", Path: base, Body: `{}`},
		},
		{
			name: "get default", status: 200, resp: roleWireJSON,
			call: func(ctx context.Context, c *platform.Client) (*platform.Role, error) {
				return c.Roles.GetDefault(ctx, branch)
			},
			want: wantRequest{Method: "GET", Path: base + "/default"},
		},
		{
			name: "reset default", status: 200, resp: roleWireJSON,
			call: func(ctx context.Context, c *platform.Client) (*platform.Role, error) {
				return c.Roles.ResetDefault(ctx, branch)
			},
			want: wantRequest{Method: "POST", Path: base + "/reset-default"},
		},
		{
			name: "get", status: 200, resp: roleWireJSON,
			call: func(ctx context.Context, c *platform.Client) (*platform.Role, error) {
				return c.Roles.Get(ctx, &platform.GetRoleParams{Organization: org, Database: db, Branch: br, ID: "r/1"})
			},
			want: wantRequest{Method: "GET", Path: base + "/r%2F1"},
		},
		{
			name: "get a replica", status: 200, resp: roleWireJSON,
			call: func(ctx context.Context, c *platform.Client) (*platform.Role, error) {
				return c.Roles.Get(ctx, &platform.GetRoleParams{
					Organization: org, Database: db, Branch: br, ID: "r/1",
					Replica: platform.Ptr(true), ReadOnlyReplica: "eu-west", Bouncer: "b1",
				})
			},
			want: wantRequest{Method: "GET", Path: base + "/r%2F1", RawQuery: "bouncer=b1&read_only_replica=eu-west&replica=true"},
		},
		{
			name: "update", status: 200, resp: roleWireJSON,
			call: func(ctx context.Context, c *platform.Client) (*platform.Role, error) {
				return c.Roles.Update(ctx, &platform.UpdateRoleParams{
					Organization: org, Database: db, Branch: br, ID: "r/1",
					Name: platform.Ptr("renamed"), RequireWhereOnUpdate: platform.Ptr(platform.QuerySafetyOff),
				})
			},
			want: wantRequest{Method: "PATCH", Path: base + "/r%2F1", Body: `{"name": "renamed", "require_where_on_update": "off"}`},
		},
		{
			name: "renew", status: 200, resp: roleWireJSON,
			call: func(ctx context.Context, c *platform.Client) (*platform.Role, error) {
				return c.Roles.Renew(ctx, role)
			},
			want: wantRequest{Method: "POST", Path: base + "/r%2F1/renew"},
		},
		{
			name: "reset", status: 200, resp: roleWireJSON,
			call: func(ctx context.Context, c *platform.Client) (*platform.Role, error) {
				return c.Roles.Reset(ctx, role)
			},
			want: wantRequest{Method: "POST", Path: base + "/r%2F1/reset"},
		},
		{
			name: "delete with a successor", status: 204,
			call: func(ctx context.Context, c *platform.Client) (*platform.Role, error) {
				return nil, c.Roles.Delete(ctx, &platform.DeleteRoleParams{Organization: org, Database: db, Branch: br, ID: "r/1", Successor: "role_x.b1"})
			},
			want: wantRequest{Method: "DELETE", Path: base + "/r%2F1", RawQuery: "successor=role_x.b1"},
		},
		{
			name: "delete", status: 204,
			call: func(ctx context.Context, c *platform.Client) (*platform.Role, error) {
				return nil, c.Roles.Delete(ctx, &platform.DeleteRoleParams{Organization: org, Database: db, Branch: br, ID: "r/1"})
			},
			want: wantRequest{Method: "DELETE", Path: base + "/r%2F1"},
		},
		{
			name: "reassign", status: 204,
			call: func(ctx context.Context, c *platform.Client) (*platform.Role, error) {
				return nil, c.Roles.Reassign(ctx, &platform.ReassignRoleParams{Organization: org, Database: db, Branch: br, ID: "r/1", Successor: "r2"})
			},
			want: wantRequest{Method: "POST", Path: base + "/r%2F1/reassign", Body: `{"successor": "r2"}`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ws := newWire(t, tt.status, tt.resp)
			got, err := tt.call(t.Context(), ws.client)
			if err != nil {
				t.Fatal(err)
			}
			checkRequest(t, ws.only(), tt.want)
			if tt.resp == "" {
				return
			}
			if diff := cmp.Diff(wantWireRole(t), got); diff != "" {
				t.Errorf("decoded role (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRolesWireList(t *testing.T) {
	t.Parallel()
	ws := newWire(t, 200, `{"type": "list", "current_page": 2, "per_page": 1, "next_page": null,
		"next_page_url": null, "prev_page": 1, "prev_page_url": "http://x/?page=1", "total_count": 2,
		"total_pages": 2, "data": [`+roleWireJSON+`]}`)
	page, err := ws.client.Roles.List(t.Context(), &platform.ListRolesParams{
		Organization: "acme", Database: "app-db", Branch: "dev",
		Status: platform.RoleExpired, Query: "app",
		ListParams: platform.ListParams{Page: 2, PerPage: 1},
	})
	if err != nil {
		t.Fatal(err)
	}
	checkRequest(t, ws.only(), wantRequest{
		Method:   "GET",
		Path:     "/v1/organizations/acme/databases/app-db/branches/dev/roles",
		RawQuery: "page=2&per_page=1&q=app&status=expired",
	})
	if page.CurrentPage != 2 || page.HasNext() || page.TotalCount == nil || *page.TotalCount != 2 {
		t.Errorf("page numbers: current %d, next %v, total %v", page.CurrentPage, page.NextPage, page.TotalCount)
	}
	if diff := cmp.Diff([]*platform.Role{wantWireRole(t)}, page.Items); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}

	var n int
	for r, err := range ws.client.Roles.All(t.Context(), &platform.ListRolesParams{Organization: "acme", Database: "app-db", Branch: "dev"}) {
		if err != nil {
			t.Fatal(err)
		}
		if r.ID != "r1" {
			t.Errorf("All yielded role %q", r.ID)
		}
		n++
	}
	if n != 1 {
		t.Errorf("All yielded %d roles, want 1 (the server's one page)", n)
	}
}

// TestRolesWireOmitsEmptyPassword checks that a role without a password
// encodes with no password field, as the API shows roles outside create
// and reset.
func TestRolesWireOmitsEmptyPassword(t *testing.T) {
	t.Parallel()
	buf, err := json.Marshal(platform.Role{ID: "r1"})
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(buf, &m); err != nil {
		t.Fatal(err)
	}
	if _, ok := m["password"]; ok {
		t.Errorf("encoded role has a password field: %s", buf)
	}
	for _, field := range []string{"expires_at", "dropped_at", "deleted_at", "disabled_at", "actor"} {
		if v, ok := m[field]; !ok || v != nil {
			t.Errorf("field %s = %v (present %v), want present and null", field, v, ok)
		}
	}
}

func TestRolesWireMissingPathValues(t *testing.T) {
	t.Parallel()
	ws := newWire(t, 200, roleWireJSON)
	c := ws.client
	ctx := t.Context()
	full := platform.RoleParams{Organization: "acme", Database: "app-db", Branch: "main", ID: "r1"}
	tests := []struct {
		name    string
		wantArg string
		call    func() error
	}{
		{"list without branch", "branch", func() error {
			_, err := c.Roles.List(ctx, &platform.ListRolesParams{Organization: "acme", Database: "app-db"})
			return err
		}},
		{"list with nil params", "params", func() error {
			_, err := c.Roles.List(ctx, nil)
			return err
		}},
		{"create without database", "database", func() error {
			_, err := c.Roles.Create(ctx, &platform.CreateRoleParams{Organization: "acme", Branch: "main"})
			return err
		}},
		{"get default without branch", "branch", func() error {
			_, err := c.Roles.GetDefault(ctx, &platform.BranchParams{Organization: "acme", Database: "app-db"})
			return err
		}},
		{"reset default without organization", "organization", func() error {
			_, err := c.Roles.ResetDefault(ctx, &platform.BranchParams{Database: "app-db", Branch: "main"})
			return err
		}},
		{"get without id", "id", func() error {
			_, err := c.Roles.Get(ctx, &platform.GetRoleParams{Organization: "acme", Database: "app-db", Branch: "main"})
			return err
		}},
		{"update without id", "id", func() error {
			_, err := c.Roles.Update(ctx, &platform.UpdateRoleParams{Organization: "acme", Database: "app-db", Branch: "main"})
			return err
		}},
		{"delete without branch", "branch", func() error {
			return c.Roles.Delete(ctx, &platform.DeleteRoleParams{Organization: "acme", Database: "app-db", ID: "r1"})
		}},
		{"reassign without id", "id", func() error {
			return c.Roles.Reassign(ctx, &platform.ReassignRoleParams{Organization: "acme", Database: "app-db", Branch: "main", Successor: "r2"})
		}},
		{"renew without id", "id", func() error {
			p := full
			p.ID = ""
			_, err := c.Roles.Renew(ctx, &p)
			return err
		}},
		{"reset with blank id", "id", func() error {
			p := full
			p.ID = "  "
			_, err := c.Roles.Reset(ctx, &p)
			return err
		}},
		{"list with a bad page", "per_page", func() error {
			_, err := c.Roles.List(ctx, &platform.ListRolesParams{Organization: "acme", Database: "app-db", Branch: "main", ListParams: platform.ListParams{PerPage: 101}})
			return err
		}},
	}
	for _, tt := range tests {
		var argErr *platform.ArgError
		if err := tt.call(); !errors.As(err, &argErr) || argErr.Arg != tt.wantArg {
			t.Errorf("%s: error %v, want *ArgError for %s", tt.name, err, tt.wantArg)
		}
	}
	if got := ws.requests(); len(got) != 0 {
		t.Errorf("argument errors sent %d requests, want none", len(got))
	}
}

func TestRolesWireErrors(t *testing.T) {
	t.Parallel()
	ws := newWire(t, 422, `{"code": "unprocessable", "message": "inherited_roles: \"pg_superuser\" is not an inherited role"}`)
	_, err := ws.client.Roles.Create(t.Context(), &platform.CreateRoleParams{
		Organization: "acme", Database: "app-db", Branch: "main",
		InheritedRoles: []platform.InheritedRole{"pg_superuser"},
	})
	var apiErr *platform.Error
	if !errors.Is(err, platform.ErrUnprocessable) || !errors.As(err, &apiErr) || apiErr.Code != "unprocessable" {
		t.Fatalf("error %v, want an unprocessable *Error", err)
	}
}

func TestInheritedRolesListsEveryValue(t *testing.T) {
	t.Parallel()
	want := []platform.InheritedRole{
		"svc_managed", "pg_checkpoint", "pg_create_subscription", "pg_maintain", "pg_monitor",
		"pg_read_all_data", "pg_read_all_settings", "pg_read_all_stats", "pg_signal_backend",
		"pg_stat_scan_tables", "pg_use_reserved_connections", "pg_write_all_data", "postgres",
	}
	if diff := cmp.Diff(want, platform.InheritedRoles()); diff != "" {
		t.Errorf("InheritedRoles (-want +got):\n%s", diff)
	}
}
