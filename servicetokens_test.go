package platform_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/url"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// serviceTokenJSON is a service token as the API sends it at creation,
// written from the reference independently of the SDK's types.
const serviceTokenJSON = `{
	"id": "tok123456789", "type": "ServiceToken", "name": "ci", "display_name": "ci",
	"token": "sk_secret", "plain_text_refresh_token": null,
	"avatar_url": "https://avatars.example.com/tok123456789",
	"created_at": "2026-01-14T10:19:23.000Z", "updated_at": "2026-01-14T10:19:24.000Z",
	"expires_at": "2026-01-14T11:19:23.000Z", "last_used_at": null,
	"actor_id": "u1", "actor_display_name": "Ada", "actor_type": "User",
	"service_token_accesses": [` + serviceTokenAccessJSON + `]
}`

// serviceTokenAccessJSON is one access, as the reference shapes it.
const serviceTokenAccessJSON = `{
	"id": "acc123456789", "type": "ServiceTokenAccess", "access": "read_database",
	"description": "get information about a database",
	"resource_name": "app-db", "resource_id": "db1", "resource_type": "Database",
	"resource": {"id": "db1", "type": "Database", "name": "app-db", "created_at": "2026-01-14T10:00:00.000Z",
		"updated_at": "2026-01-14T10:00:00.000Z", "deleted_at": null}
}`

// serviceTokenGrantJSON is one grant.
const serviceTokenGrantJSON = `{
	"id": "grt123456789", "type": "ServiceTokenGrant", "resource_name": "acme",
	"resource_id": "org1", "resource_type": "Organization",
	"accesses": [{"access": "create_databases", "description": "create organization databases"}]
}`

// serviceTokenListJSON wraps items in a list envelope of one page.
func serviceTokenListJSON(items string) string {
	return `{"type": "list", "current_page": 1, "per_page": 25, "next_page": null, "next_page_url": null,
		"prev_page": null, "prev_page_url": null, "total_count": 1, "total_pages": 1, "data": [` + items + `]}`
}

func wantServiceTokenAccess(t *testing.T) *platform.ServiceTokenAccess {
	dbAt := mustTimestamp(t, "2026-01-14T10:00:00Z")
	return &platform.ServiceTokenAccess{
		ID: "acc123456789", Type: "ServiceTokenAccess", Access: platform.PermissionReadDatabase,
		Description:  "get information about a database",
		ResourceName: "app-db", ResourceID: "db1", ResourceType: platform.AccessResourceDatabase,
		Resource: platform.ServiceTokenResource{ID: "db1", Type: platform.AccessResourceDatabase, Name: "app-db", CreatedAt: dbAt, UpdatedAt: dbAt},
	}
}

func wantServiceToken(t *testing.T) *platform.ServiceToken {
	return &platform.ServiceToken{
		ID: "tok123456789", Type: "ServiceToken", Name: platform.Ptr("ci"), DisplayName: "ci",
		Token:     platform.Ptr("sk_secret"),
		AvatarURL: "https://avatars.example.com/tok123456789",
		CreatedAt: mustTimestamp(t, "2026-01-14T10:19:23Z"), UpdatedAt: mustTimestamp(t, "2026-01-14T10:19:24Z"),
		ExpiresAt:            platform.Ptr(mustTimestamp(t, "2026-01-14T11:19:23Z")),
		ActorID:              platform.Ptr("u1"),
		ActorDisplayName:     platform.Ptr("Ada"),
		ActorType:            platform.Ptr("User"),
		ServiceTokenAccesses: []*platform.ServiceTokenAccess{wantServiceTokenAccess(t)},
	}
}

func wantServiceTokenGrant() *platform.ServiceTokenGrant {
	return &platform.ServiceTokenGrant{
		ID: "grt123456789", Type: "ServiceTokenGrant", ResourceName: "acme", ResourceID: "org1",
		ResourceType: platform.AccessResourceOrganization,
		Accesses: []*platform.ServiceTokenGrantAccess{
			{Access: platform.PermissionCreateDatabases, Description: "create organization databases"},
		},
	}
}

// serviceTokenPage is a one-page list of items as the SDK decodes it.
func serviceTokenPage[T any](items ...*T) *platform.Page[T] {
	return &platform.Page[T]{
		Type: "list", CurrentPage: 1, PerPage: 25,
		TotalCount: platform.Ptr(1), TotalPages: platform.Ptr(1), Items: items,
	}
}

func TestServiceTokensWire(t *testing.T) {
	t.Parallel()
	const base = "/v1/organizations/ac%20me/service-tokens"
	const org, id = "ac me", "t/1"
	tests := []methodCase{
		{
			name: "list", status: 200, response: serviceTokenListJSON(serviceTokenJSON),
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.ServiceTokens.List(ctx, &platform.ListServiceTokensParams{Organization: org, ListParams: platform.ListParams{Page: 2, PerPage: 10}})
			},
			method: "GET", path: base, query: url.Values{"page": {"2"}, "per_page": {"10"}},
			want: serviceTokenPage(wantServiceToken(t)),
		},
		{
			name: "create", status: 200, response: serviceTokenJSON,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.ServiceTokens.Create(ctx, &platform.CreateServiceTokenParams{Organization: org, Name: platform.Ptr("ci"), TTL: platform.Ptr(3600)})
			},
			method: "POST", path: base, query: url.Values{}, body: `{"name":"ci","ttl":3600}`,
			want: wantServiceToken(t),
		},
		{
			name: "create with defaults sends an empty object", status: 200, response: serviceTokenJSON,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.ServiceTokens.Create(ctx, &platform.CreateServiceTokenParams{Organization: org})
			},
			method: "POST", path: base, query: url.Values{}, body: `{}`,
			want: wantServiceToken(t),
		},
		{
			name: "get", status: 200, response: serviceTokenJSON,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.ServiceTokens.Get(ctx, &platform.GetServiceTokenParams{Organization: org, ID: id})
			},
			method: "GET", path: base + "/t%2F1", query: url.Values{},
			want: wantServiceToken(t),
		},
		{
			name: "delete", status: 204,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return nil, c.ServiceTokens.Delete(ctx, &platform.DeleteServiceTokenParams{Organization: org, ID: id})
			},
			method: "DELETE", path: base + "/t%2F1", query: url.Values{},
		},
		{
			name: "list accesses", status: 200, response: serviceTokenListJSON(serviceTokenAccessJSON),
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.ServiceTokens.ListAccesses(ctx, &platform.ListServiceTokenAccessesParams{Organization: org, ID: id, ListParams: platform.ListParams{PerPage: 5}})
			},
			method: "GET", path: base + "/t%2F1/access", query: url.Values{"per_page": {"5"}},
			want: serviceTokenPage(wantServiceTokenAccess(t)),
		},
		{
			name: "add accesses on a database", status: 200, response: `{"data": [` + serviceTokenAccessJSON + `]}`,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.ServiceTokens.AddAccesses(ctx, &platform.AddServiceTokenAccessesParams{
					Organization: org, ID: id, Database: platform.Ptr("app-db"),
					Access: []platform.Permission{platform.PermissionReadDatabase, platform.PermissionReadBranch},
				})
			},
			method: "POST", path: base + "/t%2F1/access", query: url.Values{},
			body: `{"database":"app-db","access":["read_database","read_branch"]}`,
			want: &platform.ServiceTokenAccesses{Accesses: []*platform.ServiceTokenAccess{wantServiceTokenAccess(t)}},
		},
		{
			name: "add accesses on the organization leaves database out", status: 200, response: `{"data": []}`,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.ServiceTokens.AddAccesses(ctx, &platform.AddServiceTokenAccessesParams{
					Organization: org, ID: id, Access: []platform.Permission{platform.PermissionCreateDatabases},
				})
			},
			method: "POST", path: base + "/t%2F1/access", query: url.Values{},
			body: `{"access":["create_databases"]}`,
			want: &platform.ServiceTokenAccesses{Accesses: []*platform.ServiceTokenAccess{}},
		},
		{
			name: "remove accesses sends a body with DELETE", status: 204,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return nil, c.ServiceTokens.RemoveAccesses(ctx, &platform.RemoveServiceTokenAccessesParams{
					Organization: org, ID: id, Database: platform.Ptr("app-db"),
					Access: []platform.Permission{platform.PermissionReadDatabase},
				})
			},
			method: "DELETE", path: base + "/t%2F1/access", query: url.Values{},
			body: `{"database":"app-db","access":["read_database"]}`,
		},
		{
			name: "list grants", status: 200, response: serviceTokenListJSON(serviceTokenGrantJSON),
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.ServiceTokens.ListGrants(ctx, &platform.ListServiceTokenGrantsParams{Organization: org, ID: id})
			},
			method: "GET", path: base + "/t%2F1/grants", query: url.Values{},
			want: serviceTokenPage(wantServiceTokenGrant()),
		},
	}
	runMethodCases(t, tests)
}

// TestServiceTokensAll checks that the All twins walk every page.
func TestServiceTokensAll(t *testing.T) {
	t.Parallel()
	w := newWire(t, 200, serviceTokenListJSON(serviceTokenGrantJSON))
	ctx, c := t.Context(), w.client.ServiceTokens
	n := 0
	for g, err := range c.AllGrants(ctx, &platform.ListServiceTokenGrantsParams{Organization: "acme", ID: "t1"}) {
		if err != nil {
			t.Fatal(err)
		}
		if g.ID != "grt123456789" {
			t.Errorf("grant %q", g.ID)
		}
		n++
	}
	for _, err := range c.AllAccesses(ctx, &platform.ListServiceTokenAccessesParams{Organization: "acme", ID: "t1"}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	for _, err := range c.All(ctx, &platform.ListServiceTokensParams{Organization: "acme"}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	var paths []string
	for _, r := range w.requests() {
		paths = append(paths, r.Path)
	}
	want := []string{
		"/v1/organizations/acme/service-tokens/t1/grants",
		"/v1/organizations/acme/service-tokens/t1/access",
		"/v1/organizations/acme/service-tokens",
	}
	if diff := cmp.Diff(want, paths); diff != "" || n != 3 {
		t.Errorf("%d items; requests (-want +got):\n%s", n, diff)
	}
}

// TestServiceTokensArgErrors checks that every method refuses a missing
// path value with an *ArgError, before any request.
func TestServiceTokensArgErrors(t *testing.T) {
	t.Parallel()
	type call func(ctx context.Context, c *platform.ServiceTokensService, org, id string) error
	methods := map[string]struct {
		call   call
		withID bool
	}{
		"List": {call: func(ctx context.Context, c *platform.ServiceTokensService, org, _ string) error {
			_, err := c.List(ctx, &platform.ListServiceTokensParams{Organization: org})
			return err
		}},
		"Create": {call: func(ctx context.Context, c *platform.ServiceTokensService, org, _ string) error {
			_, err := c.Create(ctx, &platform.CreateServiceTokenParams{Organization: org})
			return err
		}},
		"Get": {withID: true, call: func(ctx context.Context, c *platform.ServiceTokensService, org, id string) error {
			_, err := c.Get(ctx, &platform.GetServiceTokenParams{Organization: org, ID: id})
			return err
		}},
		"Delete": {withID: true, call: func(ctx context.Context, c *platform.ServiceTokensService, org, id string) error {
			return c.Delete(ctx, &platform.DeleteServiceTokenParams{Organization: org, ID: id})
		}},
		"ListAccesses": {withID: true, call: func(ctx context.Context, c *platform.ServiceTokensService, org, id string) error {
			_, err := c.ListAccesses(ctx, &platform.ListServiceTokenAccessesParams{Organization: org, ID: id})
			return err
		}},
		"AddAccesses": {withID: true, call: func(ctx context.Context, c *platform.ServiceTokensService, org, id string) error {
			_, err := c.AddAccesses(ctx, &platform.AddServiceTokenAccessesParams{Organization: org, ID: id, Access: []platform.Permission{platform.PermissionReadDatabase}})
			return err
		}},
		"RemoveAccesses": {withID: true, call: func(ctx context.Context, c *platform.ServiceTokensService, org, id string) error {
			return c.RemoveAccesses(ctx, &platform.RemoveServiceTokenAccessesParams{Organization: org, ID: id, Access: []platform.Permission{platform.PermissionReadDatabase}})
		}},
		"ListGrants": {withID: true, call: func(ctx context.Context, c *platform.ServiceTokensService, org, id string) error {
			_, err := c.ListGrants(ctx, &platform.ListServiceTokenGrantsParams{Organization: org, ID: id})
			return err
		}},
	}
	for name, m := range methods {
		args := []string{"organization"}
		if m.withID {
			args = append(args, "id")
		}
		for _, arg := range args {
			t.Run(name+" without "+arg, func(t *testing.T) {
				t.Parallel()
				w := newWire(t, 200, "{}")
				vals := map[string]string{"organization": "acme", "id": "t1"}
				vals[arg] = ""
				err := m.call(t.Context(), w.client.ServiceTokens, vals["organization"], vals["id"])
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
	// Nil params are empty params: refused the same way.
	w := newWire(t, 200, "{}")
	ctx, c := t.Context(), w.client.ServiceTokens
	_, errList := c.List(ctx, nil)
	_, errGet := c.Get(ctx, nil)
	errRemove := c.RemoveAccesses(ctx, nil)
	for i, err := range []error{errList, errGet, errRemove} {
		var argErr *platform.ArgError
		if !errors.As(err, &argErr) {
			t.Errorf("call %d with nil params: %v, want an *ArgError", i, err)
		}
	}
	if n := len(w.requests()); n != 0 {
		t.Errorf("%d requests sent with nil params, want none", n)
	}
	// Bad page numbers are refused before sending too.
	_, err := c.ListGrants(ctx, &platform.ListServiceTokenGrantsParams{Organization: "acme", ID: "t1", ListParams: platform.ListParams{PerPage: platform.MaxPerPage + 1}})
	var argErr *platform.ArgError
	if !errors.As(err, &argErr) || argErr.Arg != "per_page" {
		t.Errorf("per_page over the maximum: %v", err)
	}
}

// TestServiceTokensErrorResponse checks that an API error reaches the
// caller classified, with its message.
func TestServiceTokensErrorResponse(t *testing.T) {
	t.Parallel()
	w := newWire(t, http.StatusForbidden, `{"code":"forbidden","message":"user u1 does not hold create_databases"}`)
	_, err := w.client.ServiceTokens.AddAccesses(t.Context(), &platform.AddServiceTokenAccessesParams{
		Organization: "acme", ID: "t1", Access: []platform.Permission{platform.PermissionCreateDatabases},
	})
	var apiErr *platform.Error
	if !errors.As(err, &apiErr) || !errors.Is(err, platform.ErrForbidden) || apiErr.Message != "user u1 does not hold create_databases" {
		t.Fatalf("error %v, want a forbidden *platform.Error with the server's message", err)
	}
}

// TestPermissionsMatchTheFake keeps the SDK's Permission constants and the
// fake's permission table from drifting apart: the same names, each once,
// and the same split between organization and database permissions.
func TestPermissionsMatchTheFake(t *testing.T) {
	t.Parallel()
	sorted := slices.Sorted(slices.Values(platform.Permissions()))
	if len(slices.Compact(slices.Clone(sorted))) != len(sorted) {
		t.Errorf("Permissions lists a name twice: %v", sorted)
	}
	if diff := cmp.Diff(fake.AllPermissions(), sorted); diff != "" {
		t.Errorf("platform.Permissions() against fake.AllPermissions() (-fake +sdk):\n%s", diff)
	}

	// The split: a database permission can be granted on a database
	// through the fake, an organization permission cannot.
	srv := fake.NewServer(t)
	c := srv.Client()
	if _, err := c.Databases.Create(t.Context(), &platform.CreateDatabaseParams{Organization: srv.Org(), Name: "app", ClusterSize: "PS_10"}); err != nil {
		t.Fatal(err)
	}
	tok, err := c.ServiceTokens.Create(t.Context(), &platform.CreateServiceTokenParams{Organization: srv.Org()})
	if err != nil {
		t.Fatal(err)
	}
	grant := func(p platform.Permission) error {
		_, err := c.ServiceTokens.AddAccesses(t.Context(), &platform.AddServiceTokenAccessesParams{
			Organization: srv.Org(), ID: tok.ID, Database: platform.Ptr("app"), Access: []platform.Permission{p},
		})
		return err
	}
	for _, p := range platform.DatabasePermissions() {
		if err := grant(p); err != nil {
			t.Errorf("granting the database permission %s on a database: %v", p, err)
		}
	}
	for _, p := range platform.OrganizationPermissions() {
		if err := grant(p); !errors.Is(err, platform.ErrUnprocessable) {
			t.Errorf("granting the organization permission %s on a database: %v, want unprocessable", p, err)
		}
	}
}

// ExampleServiceTokensService_Create provisions a service token for one
// application: it creates the token, grants it read access to the
// application's database only, and hands its ID and secret to the
// application, whose client then reads that database and no other.
func ExampleServiceTokensService_Create() {
	srv, err := fake.New()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	admin, ctx := srv.Client(), context.Background()
	for _, name := range []string{"orders", "billing"} {
		if _, err := admin.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: "acme", Name: name, ClusterSize: "PS_10"}); err != nil {
			log.Fatal(err)
		}
	}

	// A new token holds no permission; the secret is in the response of
	// Create only, so the provisioning tool stores it now.
	tok, err := admin.ServiceTokens.Create(ctx, &platform.CreateServiceTokenParams{Organization: "acme", Name: platform.Ptr("orders-app")})
	if err != nil {
		log.Fatal(err)
	}
	granted, err := admin.ServiceTokens.AddAccesses(ctx, &platform.AddServiceTokenAccessesParams{
		Organization: "acme", ID: tok.ID,
		Database: platform.Ptr("orders"),
		Access:   []platform.Permission{platform.PermissionReadDatabase, platform.PermissionReadBranch},
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, a := range granted.Accesses {
		fmt.Printf("%s: %s on %s\n", tok.DisplayName, a.Access, a.ResourceName)
	}

	// The application's client, with the token's ID and secret (against
	// the live API, without WithBaseURL).
	app, err := platform.NewClient(platform.WithBaseURL(srv.URL()), platform.WithServiceToken(tok.ID, *tok.Token))
	if err != nil {
		log.Fatal(err)
	}
	db, err := app.Databases.Get(ctx, &platform.GetDatabaseParams{Organization: "acme", Database: "orders"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("orders:", db.State)
	// A database the token holds nothing on is not found, as if it did not
	// exist.
	_, err = app.Databases.Get(ctx, &platform.GetDatabaseParams{Organization: "acme", Database: "billing"})
	if !errors.Is(err, platform.ErrNotFound) {
		log.Fatalf("billing: %v, want ErrNotFound", err)
	}
	fmt.Println("billing: not found")
	// Lists show it only what it holds permissions on.
	page, err := app.Databases.List(ctx, &platform.ListDatabasesParams{Organization: "acme"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("databases listed:", *page.TotalCount)
	// Output:
	// orders-app: read_branch on orders
	// orders-app: read_database on orders
	// orders: pending
	// billing: not found
	// databases listed: 1
}
