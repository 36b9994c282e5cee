package fake_test

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
	"github.com/google/go-cmp/cmp"
)

// roleDB is the database the role tests work in.
const roleDB = "app-db"

// newRoleServer starts a fake with a ready PostgreSQL database roleDB and
// its main branch.
func newRoleServer(t *testing.T) (*fake.Server, *platform.Client) {
	t.Helper()
	return newKindServer(t, platform.KindPostgreSQL)
}

// newKindServer starts a fake with a ready database roleDB of kind and its
// main branch.
func newKindServer(t *testing.T, kind platform.DatabaseKind) (*fake.Server, *platform.Client) {
	t.Helper()
	srv := fake.NewServer(t)
	c := srv.Client()
	if _, err := c.Databases.Create(t.Context(), &platform.CreateDatabaseParams{
		Organization: srv.Org(), Name: roleDB, ClusterSize: "PS_10", Kind: kind,
	}); err != nil {
		t.Fatal(err)
	}
	srv.Advance(5 * time.Second)
	return srv, c
}

// newRoleBranch creates a ready development branch of roleDB.
func newRoleBranch(t *testing.T, srv *fake.Server, c *platform.Client, name string) *platform.Branch {
	t.Helper()
	b, err := c.Branches.Create(t.Context(), &platform.CreateBranchParams{Organization: srv.Org(), Database: roleDB, Name: name})
	if err != nil {
		t.Fatal(err)
	}
	srv.Advance(5 * time.Second)
	return b
}

// createRole creates a role on branch with p's body fields, then moves the
// clock by a millisecond, so that roles list in the order they were created
// (lists order by creation time, then by ID).
func createRole(t *testing.T, srv *fake.Server, c *platform.Client, branch string, p platform.CreateRoleParams) *platform.Role {
	t.Helper()
	p.Organization, p.Database, p.Branch = srv.Org(), roleDB, branch
	r, err := c.Roles.Create(t.Context(), &p)
	if err != nil {
		t.Fatalf("create role: %v", err)
	}
	srv.Advance(time.Millisecond)
	return r
}

// roleRef names a role on a branch of roleDB.
func roleRef(srv *fake.Server, branch, id string) *platform.RoleParams {
	return &platform.RoleParams{Organization: srv.Org(), Database: roleDB, Branch: branch, ID: id}
}

// listRoleIDs returns the IDs of a branch's listed roles that match p's
// filters, in list order.
func listRoleIDs(t *testing.T, srv *fake.Server, c *platform.Client, branch string, p platform.ListRolesParams) []string {
	t.Helper()
	p.Organization, p.Database, p.Branch = srv.Org(), roleDB, branch
	var ids []string
	for r, err := range c.Roles.All(t.Context(), &p) {
		if err != nil {
			t.Fatalf("list roles: %v", err)
		}
		ids = append(ids, r.ID)
	}
	return ids
}

// rawRoleJSON sends a request and decodes the JSON response generically,
// so that the test sees fields the SDK's types would hide.
func rawRoleJSON(t *testing.T, c *platform.Client, method, path string, body any) any {
	t.Helper()
	req, err := c.NewRequest(t.Context(), method, path, body)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if _, err := c.Do(req, &out); err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	return out
}

// passwords collects the values of every "password" field in a JSON value.
func passwords(v any) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		for k, field := range v {
			if k == "password" {
				s, _ := field.(string)
				out = append(out, s)
			}
			out = append(out, passwords(field)...)
		}
	case []any:
		for _, item := range v {
			out = append(out, passwords(item)...)
		}
	}
	return out
}

func TestRolePasswordShownOnlyWhenIssued(t *testing.T) {
	t.Parallel()
	srv, c := newRoleServer(t)
	r := createRole(t, srv, c, "main", platform.CreateRoleParams{Name: platform.Ptr("app"), TTL: platform.Ptr(3600)})
	if r.Password == "" {
		t.Fatal("create returned no password")
	}
	base := "v1/organizations/" + srv.Org() + "/databases/" + roleDB + "/branches/main/roles"
	tests := []struct {
		method, path string
		body         any
		issues       bool
	}{
		{"POST", base, map[string]any{"name": "other"}, true},
		{"GET", base, nil, false},
		{"GET", base + "?status=renewable&q=app", nil, false},
		{"GET", base + "/" + r.ID, nil, false},
		{"GET", base + "/default", nil, false},
		{"PATCH", base + "/" + r.ID, map[string]any{"name": "renamed"}, false},
		{"POST", base + "/" + r.ID + "/renew", nil, false},
		{"POST", base + "/" + r.ID + "/reset", nil, true},
		{"POST", base + "/reset-default", nil, true},
		{"GET", base + "/" + r.ID, nil, false},
	}
	seen := map[string]bool{r.Password: true}
	for _, tt := range tests {
		got := passwords(rawRoleJSON(t, c, tt.method, tt.path, tt.body))
		if !tt.issues {
			if len(got) != 0 {
				t.Errorf("%s %s shows password fields %q; only create and reset may", tt.method, tt.path, got)
			}
			continue
		}
		if len(got) != 1 || got[0] == "" {
			t.Errorf("%s %s: password fields %q, want one new password", tt.method, tt.path, got)
			continue
		}
		if seen[got[0]] {
			t.Errorf("%s %s repeated a password already issued", tt.method, tt.path)
		}
		seen[got[0]] = true
	}
}

func TestRoleCreate(t *testing.T) {
	t.Parallel()
	srv, c := newRoleServer(t)
	ctx := t.Context()
	main, err := c.Branches.Get(ctx, &platform.BranchParams{Organization: srv.Org(), Database: roleDB, Branch: "main"})
	if err != nil {
		t.Fatal(err)
	}
	created := srv.Now()
	r := createRole(t, srv, c, "main", platform.CreateRoleParams{
		Name:                 platform.Ptr("reporting"),
		TTL:                  platform.Ptr(3600),
		InheritedRoles:       []platform.InheritedRole{platform.InheritedReadAllData, platform.InheritedMonitor, platform.InheritedReadAllData},
		WithReplication:      platform.Ptr(true),
		RequireWhereOnDelete: platform.Ptr(platform.QuerySafetyOn),
	})
	expires := platform.NewTimestamp(created.Add(time.Hour))
	want := &platform.Role{
		ID:                           r.ID,
		Type:                         "Role",
		Name:                         "reporting",
		AccessHostURL:                r.AccessHostURL,
		PrivateAccessHostURL:         r.PrivateAccessHostURL,
		PrivateConnectionServiceName: r.PrivateConnectionServiceName,
		Username:                     r.BaseUsername + "." + main.ID,
		BaseUsername:                 r.BaseUsername,
		DatabaseName:                 roleDB,
		CreatedAt:                    platform.NewTimestamp(created),
		UpdatedAt:                    platform.NewTimestamp(created),
		ExpiresAt:                    &expires,
		Ready:                        true,
		TTL:                          3600,
		InheritedRoles:               []platform.InheritedRole{platform.InheritedReadAllData, platform.InheritedMonitor},
		WithReplication:              true,
		Branch:                       platform.BranchRef{ID: main.ID, Name: "main", CreatedAt: main.CreatedAt, UpdatedAt: main.UpdatedAt},
		Actor:                        &platform.Actor{ID: srv.AdminUserID(), Type: "User", DisplayName: main.Actor.DisplayName, AvatarURL: main.Actor.AvatarURL},
		QuerySafetySettings:          platform.QuerySafetySettings{RequireWhereOnDelete: platform.QuerySafetyOn, RequireWhereOnUpdate: platform.QuerySafetyOff},
	}
	got, err := c.Roles.Get(ctx, &platform.GetRoleParams{Organization: srv.Org(), Database: roleDB, Branch: "main", ID: r.ID})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("role (-want +got):\n%s", diff)
	}
	if r.BaseUsername == "" || r.AccessHostURL == "" || r.PrivateAccessHostURL == "" || r.PrivateConnectionServiceName == "" {
		t.Errorf("connection details missing: %+v", r)
	}
	want.Password = r.Password
	if diff := cmp.Diff(want, r); diff != "" {
		t.Errorf("create response (-want +got):\n%s", diff)
	}

	t.Run("defaults", func(t *testing.T) {
		t.Parallel()
		srv, c := newRoleServer(t)
		r := createRole(t, srv, c, "main", platform.CreateRoleParams{})
		switch {
		case r.Name == "" || r.Name != r.BaseUsername:
			t.Errorf("name %q, want the generated base username %q", r.Name, r.BaseUsername)
		case r.TTL != 0 || r.ExpiresAt != nil || r.Expired:
			t.Errorf("ttl %d, expires_at %v, expired %v: want a role that never expires", r.TTL, r.ExpiresAt, r.Expired)
		case r.InheritedRoles == nil || len(r.InheritedRoles) != 0:
			t.Errorf("inherited_roles %#v, want []", r.InheritedRoles)
		case r.Default || r.WithReplication:
			t.Errorf("default %v, with_replication %v, want false", r.Default, r.WithReplication)
		case r.QuerySafetySettings != platform.QuerySafetySettings{RequireWhereOnDelete: "off", RequireWhereOnUpdate: "off"}:
			t.Errorf("query safety %+v, want off", r.QuerySafetySettings)
		}
		other := createRole(t, srv, c, "main", platform.CreateRoleParams{})
		if other.BaseUsername == r.BaseUsername || other.ID == r.ID {
			t.Errorf("two roles share base username %q or ID %q", r.BaseUsername, r.ID)
		}
	})
}

func TestRoleCreateValidation(t *testing.T) {
	t.Parallel()
	srv, c := newRoleServer(t)
	createRole(t, srv, c, "main", platform.CreateRoleParams{Name: platform.Ptr("taken")})
	before := listRoleIDs(t, srv, c, "main", platform.ListRolesParams{})
	tests := []struct {
		name  string
		p     platform.CreateRoleParams
		words []string
	}{
		{"unknown inherited role", platform.CreateRoleParams{InheritedRoles: []platform.InheritedRole{platform.InheritedMonitor, "pg_superuser"}}, []string{"inherited_roles", `"pg_superuser"`}},
		{"brand prefixed inherited role", platform.CreateRoleParams{InheritedRoles: []platform.InheritedRole{"managed"}}, []string{"inherited_roles", `"managed"`}},
		{"negative ttl", platform.CreateRoleParams{TTL: platform.Ptr(-1)}, []string{"ttl", "-1"}},
		{"taken name", platform.CreateRoleParams{Name: platform.Ptr("taken")}, []string{"name", `"taken"`}},
		{"default role's name", platform.CreateRoleParams{Name: platform.Ptr("postgres")}, []string{"name", `"postgres"`}},
		{"empty name", platform.CreateRoleParams{Name: platform.Ptr("")}, []string{"name"}},
		{"long name", platform.CreateRoleParams{Name: platform.Ptr(strings.Repeat("n", 64))}, []string{"name", "63"}},
		{"bad query safety", platform.CreateRoleParams{RequireWhereOnUpdate: platform.Ptr(platform.QuerySafety("always"))}, []string{"require_where_on_update", `"always"`}},
		{"bad delete safety", platform.CreateRoleParams{RequireWhereOnDelete: platform.Ptr(platform.QuerySafety("always"))}, []string{"require_where_on_delete", `"always"`}},
	}
	for _, tt := range tests {
		p := tt.p
		p.Organization, p.Database, p.Branch = srv.Org(), roleDB, "main"
		_, err := c.Roles.Create(t.Context(), &p)
		apiError(t, err, http.StatusUnprocessableEntity, tt.words...)
	}
	if diff := cmp.Diff(before, listRoleIDs(t, srv, c, "main", platform.ListRolesParams{})); diff != "" {
		t.Errorf("refused creates changed the roles (-want +got):\n%s", diff)
	}

	t.Run("every inherited role is accepted", func(t *testing.T) {
		t.Parallel()
		srv, c := newRoleServer(t)
		r := createRole(t, srv, c, "main", platform.CreateRoleParams{InheritedRoles: platform.InheritedRoles()})
		if diff := cmp.Diff(platform.InheritedRoles(), r.InheritedRoles); diff != "" {
			t.Errorf("inherited_roles (-want +got):\n%s", diff)
		}
	})
	t.Run("unknown branch", func(t *testing.T) {
		t.Parallel()
		srv, c := newRoleServer(t)
		_, err := c.Roles.Create(t.Context(), &platform.CreateRoleParams{Organization: srv.Org(), Database: roleDB, Branch: "nope"})
		apiError(t, err, http.StatusNotFound)
	})
}

func TestRoleExpiry(t *testing.T) {
	t.Parallel()
	srv, c := newRoleServer(t)
	ctx := t.Context()
	short := createRole(t, srv, c, "main", platform.CreateRoleParams{Name: platform.Ptr("short"), TTL: platform.Ptr(60)})
	long := createRole(t, srv, c, "main", platform.CreateRoleParams{Name: platform.Ptr("long"), TTL: platform.Ptr(3600)})
	forever := createRole(t, srv, c, "main", platform.CreateRoleParams{Name: platform.Ptr("forever")})
	def, err := c.Roles.GetDefault(ctx, &platform.BranchParams{Organization: srv.Org(), Database: roleDB, Branch: "main"})
	if err != nil {
		t.Fatal(err)
	}
	wantExpires := platform.NewTimestamp(short.CreatedAt.Add(time.Minute))
	if short.ExpiresAt == nil || !short.ExpiresAt.Equal(wantExpires.Time) {
		t.Fatalf("expires_at %v, want created + ttl = %v", short.ExpiresAt, wantExpires)
	}
	statuses := func() map[platform.RoleStatus][]string {
		out := map[platform.RoleStatus][]string{}
		for _, s := range []platform.RoleStatus{"", platform.RoleActive, platform.RoleRenewable, platform.RoleExpired, platform.RoleDisabled} {
			out[s] = listRoleIDs(t, srv, c, "main", platform.ListRolesParams{Status: s})
		}
		return out
	}
	all := []string{def.ID, short.ID, long.ID, forever.ID}

	srv.Advance(59 * time.Second)
	want := map[platform.RoleStatus][]string{
		"":                     all,
		platform.RoleActive:    all,
		platform.RoleRenewable: {short.ID, long.ID},
		platform.RoleExpired:   nil,
		platform.RoleDisabled:  nil,
	}
	if diff := cmp.Diff(want, statuses()); diff != "" {
		t.Errorf("before the ttl (-want +got):\n%s", diff)
	}

	srv.Advance(time.Second)
	want = map[platform.RoleStatus][]string{
		"":                     all,
		platform.RoleActive:    {def.ID, long.ID, forever.ID},
		platform.RoleRenewable: {long.ID},
		platform.RoleExpired:   {short.ID},
		// The service's command-line tool offers disabled; no operation the
		// fake serves disables a role (an expired one is expired).
		platform.RoleDisabled: nil,
	}
	if diff := cmp.Diff(want, statuses()); diff != "" {
		t.Errorf("at the ttl (-want +got):\n%s", diff)
	}
	got, err := c.Roles.Get(ctx, &platform.GetRoleParams{Organization: srv.Org(), Database: roleDB, Branch: "main", ID: short.ID})
	if err != nil {
		t.Fatal(err)
	}
	if !got.Expired || got.Ready {
		t.Errorf("expired %v, ready %v after the ttl; want expired and not ready", got.Expired, got.Ready)
	}

	t.Run("bad status", func(t *testing.T) {
		t.Parallel()
		_, err := c.Roles.List(ctx, &platform.ListRolesParams{Organization: srv.Org(), Database: roleDB, Branch: "main", Status: "dropped"})
		apiError(t, err, http.StatusBadRequest, "status", `"dropped"`)
	})
}

func TestRoleRenew(t *testing.T) {
	t.Parallel()
	srv, c := newRoleServer(t)
	ctx := t.Context()
	r := createRole(t, srv, c, "main", platform.CreateRoleParams{TTL: platform.Ptr(60)})
	srv.Advance(45 * time.Second)
	renewed, err := c.Roles.Renew(ctx, roleRef(srv, "main", r.ID))
	if err != nil {
		t.Fatal(err)
	}
	wantExpires := platform.NewTimestamp(srv.Now().Add(time.Minute))
	if renewed.ExpiresAt == nil || !renewed.ExpiresAt.Equal(wantExpires.Time) {
		t.Errorf("renewed expires_at %v, want now + ttl = %v", renewed.ExpiresAt, wantExpires)
	}
	if !renewed.UpdatedAt.Equal(srv.Now()) {
		t.Errorf("updated_at %v, want the renewal time %v", renewed.UpdatedAt, srv.Now())
	}
	srv.Advance(45 * time.Second) // past the first expiry, before the renewed one
	got, err := c.Roles.Get(ctx, &platform.GetRoleParams{Organization: srv.Org(), Database: roleDB, Branch: "main", ID: r.ID})
	if err != nil {
		t.Fatal(err)
	}
	if got.Expired {
		t.Error("a renewed role expired at its first expiry")
	}

	t.Run("refused", func(t *testing.T) {
		t.Parallel()
		srv, c := newRoleServer(t)
		forever := createRole(t, srv, c, "main", platform.CreateRoleParams{Name: platform.Ptr("forever")})
		_, err := c.Roles.Renew(t.Context(), roleRef(srv, "main", forever.ID))
		apiError(t, err, http.StatusUnprocessableEntity, "forever", "ttl")

		gone := createRole(t, srv, c, "main", platform.CreateRoleParams{Name: platform.Ptr("gone"), TTL: platform.Ptr(10)})
		srv.Advance(10 * time.Second)
		_, err = c.Roles.Renew(t.Context(), roleRef(srv, "main", gone.ID))
		apiError(t, err, http.StatusUnprocessableEntity, "gone", "expired")
	})
}

func TestRoleReset(t *testing.T) {
	t.Parallel()
	srv, c := newRoleServer(t)
	ctx := t.Context()
	r := createRole(t, srv, c, "main", platform.CreateRoleParams{})
	srv.Advance(time.Minute)
	reset, err := c.Roles.Reset(ctx, roleRef(srv, "main", r.ID))
	if err != nil {
		t.Fatal(err)
	}
	if reset.Password == "" || reset.Password == r.Password {
		t.Errorf("reset password %q; want a new one (was %q)", reset.Password, r.Password)
	}
	if reset.ID != r.ID || reset.Username != r.Username {
		t.Errorf("reset changed the role: %s/%s, was %s/%s", reset.ID, reset.Username, r.ID, r.Username)
	}
	if !reset.UpdatedAt.Equal(srv.Now()) {
		t.Errorf("updated_at %v, want the reset time %v", reset.UpdatedAt, srv.Now())
	}
}

func TestRoleDefault(t *testing.T) {
	t.Parallel()
	srv, c := newRoleServer(t)
	ctx := t.Context()
	dev := newRoleBranch(t, srv, c, "dev")
	defaults := map[string]*platform.Role{}
	for _, branch := range []string{"main", "dev"} {
		bp := &platform.BranchParams{Organization: srv.Org(), Database: roleDB, Branch: branch}
		def, err := c.Roles.GetDefault(ctx, bp)
		if err != nil {
			t.Fatalf("%s: %v", branch, err)
		}
		if !def.Default || def.Name != "postgres" || def.BaseUsername != "postgres" || def.Branch.Name != branch ||
			def.Username != "postgres."+def.Branch.ID || def.Password != "" {
			t.Errorf("%s: default role %+v", branch, def)
		}
		if diff := cmp.Diff([]platform.InheritedRole{platform.InheritedManaged}, def.InheritedRoles); diff != "" {
			t.Errorf("%s: default inherited_roles (-want +got):\n%s", branch, diff)
		}
		if ids := listRoleIDs(t, srv, c, branch, platform.ListRolesParams{}); !slices.Equal(ids, []string{def.ID}) {
			t.Errorf("%s: listed roles %v, want just the default %s", branch, ids, def.ID)
		}
		defaults[branch] = def
	}
	if defaults["main"].ID == defaults["dev"].ID || defaults["dev"].Branch.ID != dev.ID {
		t.Errorf("dev's default role %+v is not its own", defaults["dev"])
	}

	t.Run("reset default", func(t *testing.T) {
		t.Parallel()
		bp := &platform.BranchParams{Organization: srv.Org(), Database: roleDB, Branch: "dev"}
		first, err := c.Roles.ResetDefault(ctx, bp)
		if err != nil {
			t.Fatal(err)
		}
		second, err := c.Roles.ResetDefault(ctx, bp)
		if err != nil {
			t.Fatal(err)
		}
		if first.Password == "" || first.Password == second.Password {
			t.Errorf("reset-default passwords %q then %q; want two different ones", first.Password, second.Password)
		}
		if first.ID != defaults["dev"].ID || first.Username != defaults["dev"].Username || first.AccessHostURL == "" {
			t.Errorf("reset-default answered %+v, want the default role", first)
		}
	})

	t.Run("cannot be deleted or renamed", func(t *testing.T) {
		t.Parallel()
		def := defaults["main"]
		err := c.Roles.Delete(ctx, &platform.DeleteRoleParams{Organization: srv.Org(), Database: roleDB, Branch: "main", ID: def.ID})
		apiError(t, err, http.StatusUnprocessableEntity, "default")
		_, err = c.Roles.Update(ctx, &platform.UpdateRoleParams{Organization: srv.Org(), Database: roleDB, Branch: "main", ID: def.ID, Name: platform.Ptr("root")})
		apiError(t, err, http.StatusUnprocessableEntity, "default")
		got, err := c.Roles.GetDefault(ctx, &platform.BranchParams{Organization: srv.Org(), Database: roleDB, Branch: "main"})
		if err != nil || got.Name != "postgres" {
			t.Errorf("default role after refusals: %+v, %v", got, err)
		}
	})
}

func TestRoleUpdate(t *testing.T) {
	t.Parallel()
	srv, c := newRoleServer(t)
	ctx := t.Context()
	r := createRole(t, srv, c, "main", platform.CreateRoleParams{Name: platform.Ptr("app")})
	createRole(t, srv, c, "main", platform.CreateRoleParams{Name: platform.Ptr("other")})
	update := func(p platform.UpdateRoleParams) (*platform.Role, error) {
		p.Organization, p.Database, p.Branch, p.ID = srv.Org(), roleDB, "main", r.ID
		return c.Roles.Update(ctx, &p)
	}
	_, err := update(platform.UpdateRoleParams{Name: platform.Ptr("other")})
	apiError(t, err, http.StatusUnprocessableEntity, "name", `"other"`)
	_, err = update(platform.UpdateRoleParams{Name: platform.Ptr("")})
	apiError(t, err, http.StatusUnprocessableEntity, "name")
	_, err = update(platform.UpdateRoleParams{Name: platform.Ptr("renamed"), RequireWhereOnDelete: platform.Ptr(platform.QuerySafety("yes"))})
	apiError(t, err, http.StatusUnprocessableEntity, "require_where_on_delete", `"yes"`)
	_, err = update(platform.UpdateRoleParams{Name: platform.Ptr("renamed"), RequireWhereOnUpdate: platform.Ptr(platform.QuerySafety("yes"))})
	apiError(t, err, http.StatusUnprocessableEntity, "require_where_on_update", `"yes"`)

	unchanged, err := c.Roles.Get(ctx, &platform.GetRoleParams{Organization: srv.Org(), Database: roleDB, Branch: "main", ID: r.ID})
	if err != nil {
		t.Fatal(err)
	}
	r.Password = ""
	if diff := cmp.Diff(r, unchanged); diff != "" {
		t.Errorf("refused updates changed the role (-want +got):\n%s", diff)
	}

	srv.Advance(time.Second)
	got, err := update(platform.UpdateRoleParams{Name: platform.Ptr("renamed"), RequireWhereOnUpdate: platform.Ptr(platform.QuerySafetyWarn)})
	if err != nil {
		t.Fatal(err)
	}
	want := platform.QuerySafetySettings{RequireWhereOnDelete: platform.QuerySafetyOff, RequireWhereOnUpdate: platform.QuerySafetyWarn}
	if got.Name != "renamed" || got.QuerySafetySettings != want || !got.UpdatedAt.Equal(srv.Now()) || got.Username != r.Username {
		t.Errorf("updated role %+v", got)
	}
	// The old name is free again.
	createRole(t, srv, c, "main", platform.CreateRoleParams{Name: platform.Ptr("app")})
}

func TestRoleListSearchAndPages(t *testing.T) {
	t.Parallel()
	srv, c := newRoleServer(t)
	ctx := t.Context()
	var ids []string
	for _, name := range []string{"api-reader", "api-writer", "batch"} {
		ids = append(ids, createRole(t, srv, c, "main", platform.CreateRoleParams{Name: platform.Ptr(name)}).ID)
	}
	batch, err := c.Roles.Get(ctx, &platform.GetRoleParams{Organization: srv.Org(), Database: roleDB, Branch: "main", ID: ids[2]})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		q    string
		want []string
	}{
		{"API", ids[:2]},
		{"writer", ids[1:2]},
		{batch.BaseUsername, ids[2:]},
		{"nobody", nil},
	}
	for _, tt := range tests {
		if got := listRoleIDs(t, srv, c, "main", platform.ListRolesParams{Query: tt.q}); !slices.Equal(got, tt.want) {
			t.Errorf("q=%q: %v, want %v", tt.q, got, tt.want)
		}
	}
	page, err := c.Roles.List(ctx, &platform.ListRolesParams{Organization: srv.Org(), Database: roleDB, Branch: "main", ListParams: platform.ListParams{Page: 2, PerPage: 3}})
	if err != nil {
		t.Fatal(err)
	}
	if page.TotalCount == nil || *page.TotalCount != 4 || page.TotalPages == nil || *page.TotalPages != 2 ||
		len(page.Items) != 1 || page.Items[0].ID != ids[2] || page.HasNext() {
		t.Errorf("page 2 of 3: %+v", page)
	}
}

func TestRoleGetConnectionDetails(t *testing.T) {
	t.Parallel()
	srv, c := newRoleServer(t)
	ctx := t.Context()
	r := createRole(t, srv, c, "main", platform.CreateRoleParams{})
	get := func(p platform.GetRoleParams) (*platform.Role, error) {
		p.Organization, p.Database, p.Branch, p.ID = srv.Org(), roleDB, "main", r.ID
		return c.Roles.Get(ctx, &p)
	}
	replica, err := get(platform.GetRoleParams{Replica: platform.Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	if replica.AccessHostURL == r.AccessHostURL || !strings.HasSuffix(replica.AccessHostURL, r.AccessHostURL) {
		t.Errorf("replica host %q, want a replica of %q", replica.AccessHostURL, r.AccessHostURL)
	}
	ro, err := get(platform.GetRoleParams{ReadOnlyReplica: "eu-west"})
	if err != nil || ro.AccessHostURL != "replica.eu-west.pg.dbplatform.dev" {
		t.Errorf("read-only replica in eu-west: %+v, %v; want the region's replica host", ro, err)
	}
	w := send(t, srv, "GET", "/v1/organizations/"+srv.Org()+"/databases/"+roleDB+"/branches/main/roles/"+r.ID+"?replica=maybe", admin(srv), "")
	wantError(t, w, http.StatusBadRequest, "bad_request")
	if !strings.Contains(string(w.body), "replica") {
		t.Errorf("replica=maybe: %s, want the parameter named", w.body)
	}
	_, err = get(platform.GetRoleParams{ReadOnlyReplica: "atlantis"})
	apiError(t, err, http.StatusUnprocessableEntity, "read_only_replica", `"atlantis"`)
	_, err = get(platform.GetRoleParams{Bouncer: "pool"})
	apiError(t, err, http.StatusUnprocessableEntity, "bouncer", `"pool"`)
}

func TestRoleDelete(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		successor func(to *platform.Role) string
	}{
		{"successor by id", func(to *platform.Role) string { return to.ID }},
		{"successor by username", func(to *platform.Role) string { return to.Username }},
		{"successor by base username", func(to *platform.Role) string { return to.BaseUsername }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, c := newRoleServer(t)
			ctx := t.Context()
			from := createRole(t, srv, c, "main", platform.CreateRoleParams{Name: platform.Ptr("from")})
			to := createRole(t, srv, c, "main", platform.CreateRoleParams{Name: platform.Ptr("to")})
			if err := srv.AddRoleObjects(srv.Org(), roleDB, "main", from.ID, "orders", "users"); err != nil {
				t.Fatal(err)
			}
			del := func(successor string) error {
				return c.Roles.Delete(ctx, &platform.DeleteRoleParams{Organization: srv.Org(), Database: roleDB, Branch: "main", ID: from.ID, Successor: successor})
			}
			apiError(t, del(""), http.StatusUnprocessableEntity, "from", "orders", "users", "successor")
			apiError(t, del(from.Username), http.StatusUnprocessableEntity, "successor", "itself")
			apiError(t, del("nobody"), http.StatusUnprocessableEntity, "successor", `"nobody"`)
			if objs, _ := srv.RoleObjects(srv.Org(), roleDB, "main", from.ID); len(objs) != 2 {
				t.Fatalf("refused deletes moved objects: from owns %v", objs)
			}

			srv.Advance(time.Minute)
			if err := del(tt.successor(to)); err != nil {
				t.Fatal(err)
			}
			objs, err := srv.RoleObjects(srv.Org(), roleDB, "main", to.ID)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]string{"orders", "users"}, objs); diff != "" {
				t.Errorf("successor's objects (-want +got):\n%s", diff)
			}
			dropped, err := srv.Role(srv.Org(), roleDB, "main", from.ID)
			if err != nil {
				t.Fatal(err)
			}
			if dropped.DroppedAt == nil || !dropped.DroppedAt.Equal(srv.Now()) || dropped.DeletedAt == nil || dropped.Ready {
				t.Errorf("dropped role: dropped_at %v, deleted_at %v, ready %v; want both at %v", dropped.DroppedAt, dropped.DeletedAt, dropped.Ready, srv.Now())
			}
			if ids := listRoleIDs(t, srv, c, "main", platform.ListRolesParams{}); slices.Contains(ids, from.ID) || !slices.Contains(ids, to.ID) {
				t.Errorf("listed roles %v after dropping %s", ids, from.ID)
			}
			_, err = c.Roles.Get(ctx, &platform.GetRoleParams{Organization: srv.Org(), Database: roleDB, Branch: "main", ID: from.ID})
			apiError(t, err, http.StatusNotFound)
			apiError(t, del(""), http.StatusNotFound)
			_, err = c.Roles.Reset(ctx, roleRef(srv, "main", from.ID))
			apiError(t, err, http.StatusNotFound)
			err = c.Roles.Reassign(ctx, &platform.ReassignRoleParams{Organization: srv.Org(), Database: roleDB, Branch: "main", ID: to.ID, Successor: from.ID})
			apiError(t, err, http.StatusUnprocessableEntity, "successor")
		})
	}

	t.Run("without objects needs no successor", func(t *testing.T) {
		t.Parallel()
		srv, c := newRoleServer(t)
		r := createRole(t, srv, c, "main", platform.CreateRoleParams{})
		if err := c.Roles.Delete(t.Context(), &platform.DeleteRoleParams{Organization: srv.Org(), Database: roleDB, Branch: "main", ID: r.ID}); err != nil {
			t.Fatal(err)
		}
		if ids := listRoleIDs(t, srv, c, "main", platform.ListRolesParams{}); slices.Contains(ids, r.ID) {
			t.Errorf("deleted role still listed: %v", ids)
		}
	})
}

// TestRoleDeleteSuccessorInBody deletes a role that owns objects the way
// the service's own clients do, with the successor in the JSON body rather
// than the query; the query and the body may both name it, but not two
// different roles.
func TestRoleDeleteSuccessorInBody(t *testing.T) {
	t.Parallel()
	srv, c := newRoleServer(t)
	from := createRole(t, srv, c, "main", platform.CreateRoleParams{Name: platform.Ptr("from")})
	to := createRole(t, srv, c, "main", platform.CreateRoleParams{Name: platform.Ptr("to")})
	other := createRole(t, srv, c, "main", platform.CreateRoleParams{Name: platform.Ptr("other")})
	if err := srv.AddRoleObjects(srv.Org(), roleDB, "main", from.ID, "orders"); err != nil {
		t.Fatal(err)
	}
	path := "/v1/organizations/" + srv.Org() + "/databases/" + roleDB + "/branches/main/roles/" + from.ID
	w := send(t, srv, http.MethodDelete, path+"?successor="+other.ID, admin(srv), `{"successor":"`+to.ID+`"}`)
	if e := wantError(t, w, http.StatusUnprocessableEntity, "unprocessable"); !strings.Contains(e.Message, "successor") {
		t.Errorf("two different successors: message %q does not name successor", e.Message)
	}
	wantStatus(t, send(t, srv, http.MethodDelete, path, admin(srv), `{"successor":"`+to.ID+`"}`), http.StatusNoContent)
	objs, err := srv.RoleObjects(srv.Org(), roleDB, "main", to.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"orders"}, objs); diff != "" {
		t.Errorf("successor's objects (-want +got):\n%s", diff)
	}
}

func TestRoleReassign(t *testing.T) {
	t.Parallel()
	srv, c := newRoleServer(t)
	ctx := t.Context()
	from := createRole(t, srv, c, "main", platform.CreateRoleParams{Name: platform.Ptr("from")})
	to := createRole(t, srv, c, "main", platform.CreateRoleParams{Name: platform.Ptr("to")})
	if err := srv.AddRoleObjects(srv.Org(), roleDB, "main", from.Username, "orders"); err != nil {
		t.Fatal(err)
	}
	if err := srv.AddRoleObjects(srv.Org(), roleDB, "main", to.ID, "carts"); err != nil {
		t.Fatal(err)
	}
	if err := srv.AddRoleObjects(srv.Org(), roleDB, "main", to.ID, "orders"); err == nil {
		t.Error("AddRoleObjects gave a second owner to orders")
	}
	reassign := func(successor string) error {
		return c.Roles.Reassign(ctx, &platform.ReassignRoleParams{Organization: srv.Org(), Database: roleDB, Branch: "main", ID: from.ID, Successor: successor})
	}
	apiError(t, reassign(""), http.StatusUnprocessableEntity, "successor")
	apiError(t, reassign("nobody"), http.StatusUnprocessableEntity, "successor", `"nobody"`)
	if err := reassign(to.BaseUsername); err != nil {
		t.Fatal(err)
	}
	objects := func(role string) []string {
		objs, err := srv.RoleObjects(srv.Org(), roleDB, "main", role)
		if err != nil {
			t.Fatal(err)
		}
		return objs
	}
	if got := objects(from.ID); len(got) != 0 {
		t.Errorf("from still owns %v", got)
	}
	if diff := cmp.Diff([]string{"carts", "orders"}, objects(to.ID)); diff != "" {
		t.Errorf("to's objects (-want +got):\n%s", diff)
	}
	if ids := listRoleIDs(t, srv, c, "main", platform.ListRolesParams{}); !slices.Contains(ids, from.ID) {
		t.Errorf("reassign dropped the role: %v", ids)
	}

	t.Run("across branches is refused", func(t *testing.T) {
		t.Parallel()
		newRoleBranch(t, srv, c, "dev")
		other := createRole(t, srv, c, "dev", platform.CreateRoleParams{})
		apiError(t, reassign(other.ID), http.StatusUnprocessableEntity, "successor", "main")
	})
}

func TestRolesOfDeletedBranch(t *testing.T) {
	t.Parallel()
	srv, c := newRoleServer(t)
	ctx := t.Context()
	newRoleBranch(t, srv, c, "dev")
	r := createRole(t, srv, c, "dev", platform.CreateRoleParams{Name: platform.Ptr("app")})
	if err := c.Branches.Delete(ctx, &platform.DeleteBranchParams{Organization: srv.Org(), Database: roleDB, Branch: "dev"}); err != nil {
		t.Fatal(err)
	}
	newRoleBranch(t, srv, c, "dev")
	_, err := c.Roles.Get(ctx, &platform.GetRoleParams{Organization: srv.Org(), Database: roleDB, Branch: "dev", ID: r.ID})
	apiError(t, err, http.StatusNotFound)
	def, err := c.Roles.GetDefault(ctx, &platform.BranchParams{Organization: srv.Org(), Database: roleDB, Branch: "dev"})
	if err != nil {
		t.Fatal(err)
	}
	if ids := listRoleIDs(t, srv, c, "dev", platform.ListRolesParams{}); !slices.Equal(ids, []string{def.ID}) {
		t.Errorf("new dev branch lists %v, want only its default role %s", ids, def.ID)
	}
	// The name of the old branch's role is free again on the new branch.
	createRole(t, srv, c, "dev", platform.CreateRoleParams{Name: platform.Ptr("app")})
}

func TestRolePermissions(t *testing.T) {
	t.Parallel()
	srv, c := newRoleServer(t)
	ctx := t.Context()
	r := createRole(t, srv, c, "main", platform.CreateRoleParams{Name: platform.Ptr("app"), TTL: platform.Ptr(60)})
	if err := srv.AddRoleObjects(srv.Org(), roleDB, "main", r.ID, "orders"); err != nil {
		t.Fatal(err)
	}
	reader, err := srv.CreateServiceToken(srv.Org(), fake.TokenSpec{Name: "reader", DatabasePermissions: map[string][]platform.Permission{roleDB: {"read_branch"}}})
	if err != nil {
		t.Fatal(err)
	}
	rc := srv.ClientFor(reader)
	before := listRoleIDs(t, srv, rc, "main", platform.ListRolesParams{}) // reading is allowed
	bp := &platform.BranchParams{Organization: srv.Org(), Database: roleDB, Branch: "main"}
	defBefore, err := rc.Roles.GetDefault(ctx, bp)
	if err != nil {
		t.Fatal(err)
	}
	srv.Advance(time.Second)

	refused := map[string]func() error{
		"create": func() error {
			_, err := rc.Roles.Create(ctx, &platform.CreateRoleParams{Organization: srv.Org(), Database: roleDB, Branch: "main"})
			return err
		},
		"update": func() error {
			_, err := rc.Roles.Update(ctx, &platform.UpdateRoleParams{Organization: srv.Org(), Database: roleDB, Branch: "main", ID: r.ID, Name: platform.Ptr("x")})
			return err
		},
		"delete": func() error {
			return rc.Roles.Delete(ctx, &platform.DeleteRoleParams{Organization: srv.Org(), Database: roleDB, Branch: "main", ID: r.ID, Successor: "postgres"})
		},
		"reassign": func() error {
			return rc.Roles.Reassign(ctx, &platform.ReassignRoleParams{Organization: srv.Org(), Database: roleDB, Branch: "main", ID: r.ID, Successor: "postgres"})
		},
		"renew": func() error {
			_, err := rc.Roles.Renew(ctx, roleRef(srv, "main", r.ID))
			return err
		},
		"reset": func() error {
			_, err := rc.Roles.Reset(ctx, roleRef(srv, "main", r.ID))
			return err
		},
		"reset default": func() error {
			_, err := rc.Roles.ResetDefault(ctx, bp)
			return err
		},
	}
	for name, call := range refused {
		if err := call(); !errors.Is(err, platform.ErrNotFound) {
			t.Errorf("%s without permission: %v, want not found", name, err)
		}
	}
	if diff := cmp.Diff(before, listRoleIDs(t, srv, c, "main", platform.ListRolesParams{})); diff != "" {
		t.Errorf("roles changed (-want +got):\n%s", diff)
	}
	got, err := c.Roles.Get(ctx, &platform.GetRoleParams{Organization: srv.Org(), Database: roleDB, Branch: "main", ID: r.ID})
	if err != nil {
		t.Fatal(err)
	}
	r.Password = ""
	if diff := cmp.Diff(r, got); diff != "" {
		t.Errorf("role changed (-want +got):\n%s", diff)
	}
	if objs, _ := srv.RoleObjects(srv.Org(), roleDB, "main", r.ID); !slices.Equal(objs, []string{"orders"}) {
		t.Errorf("objects moved: %v", objs)
	}
	defAfter, err := c.Roles.GetDefault(ctx, bp)
	if err != nil {
		t.Fatal(err)
	}
	if !defAfter.UpdatedAt.Equal(defBefore.UpdatedAt.Time) {
		t.Errorf("default role updated at %v, was %v", defAfter.UpdatedAt, defBefore.UpdatedAt)
	}

	t.Run("no permission at all", func(t *testing.T) {
		t.Parallel()
		none, err := srv.CreateServiceToken(srv.Org(), fake.TokenSpec{Name: "none"})
		if err != nil {
			t.Fatal(err)
		}
		_, err = srv.ClientFor(none).Roles.List(ctx, &platform.ListRolesParams{Organization: srv.Org(), Database: roleDB, Branch: "main"})
		apiError(t, err, http.StatusNotFound)
	})
}

func TestRemoveMemberDeletePasswords(t *testing.T) {
	t.Parallel()
	for _, deletePasswords := range []bool{true, false} {
		t.Run(map[bool]string{true: "delete_passwords", false: "keep passwords"}[deletePasswords], func(t *testing.T) {
			t.Parallel()
			srv, c := newRoleServer(t)
			ctx := t.Context()
			leaver := srv.CreateUser("Lee Leaver", "lee@example.com")
			if err := srv.AddMember(srv.Org(), leaver, platform.RoleMember); err != nil {
				t.Fatal(err)
			}
			tok, err := srv.CreateServiceToken(srv.Org(), fake.TokenSpec{Name: "lee", CreatedBy: leaver, Permissions: fake.AllPermissions()})
			if err != nil {
				t.Fatal(err)
			}
			lc := srv.ClientFor(tok)
			theirs := createRole(t, srv, lc, "main", platform.CreateRoleParams{Name: platform.Ptr("theirs")})
			if theirs.Actor == nil || theirs.Actor.ID != leaver {
				t.Fatalf("actor %+v, want the token's creator %s", theirs.Actor, leaver)
			}
			if err := srv.AddRoleObjects(srv.Org(), roleDB, "main", theirs.ID, "reports"); err != nil {
				t.Fatal(err)
			}
			mine := createRole(t, srv, c, "main", platform.CreateRoleParams{Name: platform.Ptr("mine")})
			def, err := c.Roles.GetDefault(ctx, &platform.BranchParams{Organization: srv.Org(), Database: roleDB, Branch: "main"})
			if err != nil {
				t.Fatal(err)
			}

			if err := c.Organizations.RemoveMember(ctx, &platform.RemoveMemberParams{Organization: srv.Org(), UserID: leaver, DeletePasswords: deletePasswords}); err != nil {
				t.Fatal(err)
			}
			want := []string{def.ID, theirs.ID, mine.ID}
			wantDefaultObjects := []string(nil)
			if deletePasswords {
				want = []string{def.ID, mine.ID}
				wantDefaultObjects = []string{"reports"}
			}
			if diff := cmp.Diff(want, listRoleIDs(t, srv, c, "main", platform.ListRolesParams{})); diff != "" {
				t.Errorf("roles after removal (-want +got):\n%s", diff)
			}
			objs, err := srv.RoleObjects(srv.Org(), roleDB, "main", def.ID)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(wantDefaultObjects, objs); diff != "" {
				t.Errorf("default role's objects (-want +got):\n%s", diff)
			}
			dropped, err := srv.Role(srv.Org(), roleDB, "main", theirs.ID)
			if err != nil {
				t.Fatal(err)
			}
			if (dropped.DroppedAt != nil) != deletePasswords {
				t.Errorf("dropped_at %v with delete_passwords=%v", dropped.DroppedAt, deletePasswords)
			}
		})
	}
}

// TestRoleGoAPIErrors checks the fake's Go API names what it cannot find.
func TestRoleGoAPIErrors(t *testing.T) {
	t.Parallel()
	srv, _ := newRoleServer(t)
	checks := map[string]error{
		"Role":           func() error { _, err := srv.Role(srv.Org(), roleDB, "main", "nobody"); return err }(),
		"RoleObjects":    func() error { _, err := srv.RoleObjects(srv.Org(), roleDB, "nope", "postgres"); return err }(),
		"AddRoleObjects": srv.AddRoleObjects(srv.Org(), roleDB, "main", "postgres", ""),
	}
	for name, err := range checks {
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: error %v, want one naming %s", name, err, name)
		}
	}
	if _, err := srv.Role(srv.Org(), roleDB, "main", "postgres"); err != nil {
		t.Errorf("Role by the default's base username: %v", err)
	}
	c := srv.Client()
	dropped := createRole(t, srv, c, "main", platform.CreateRoleParams{Name: platform.Ptr("gone")})
	if err := c.Roles.Delete(t.Context(), &platform.DeleteRoleParams{Organization: srv.Org(), Database: roleDB, Branch: "main", ID: dropped.ID}); err != nil {
		t.Fatal(err)
	}
	if err := srv.AddRoleObjects(srv.Org(), roleDB, "main", dropped.ID, "t"); err == nil || !strings.Contains(err.Error(), "AddRoleObjects") || !strings.Contains(err.Error(), "was dropped") {
		t.Errorf("AddRoleObjects of a dropped role: %v, want an error saying it was dropped", err)
	}
}

// TestRoleNotFound: every operation on one role answers 404 for an ID
// that names no role of the branch, and changes nothing.
func TestRoleNotFound(t *testing.T) {
	t.Parallel()
	srv, c := newRoleServer(t)
	ctx := t.Context()
	org := srv.Org()
	createRole(t, srv, c, "main", platform.CreateRoleParams{Name: platform.Ptr("successor")})
	before := opWorldState(t, srv)
	for name, call := range map[string]func() error{
		"get": func() error {
			_, err := c.Roles.Get(ctx, &platform.GetRoleParams{Organization: org, Database: roleDB, Branch: "main", ID: "nope"})
			return err
		},
		"update": func() error {
			_, err := c.Roles.Update(ctx, &platform.UpdateRoleParams{Organization: org, Database: roleDB, Branch: "main", ID: "nope", Name: platform.Ptr("x")})
			return err
		},
		"delete": func() error {
			return c.Roles.Delete(ctx, &platform.DeleteRoleParams{Organization: org, Database: roleDB, Branch: "main", ID: "nope"})
		},
		"reassign": func() error {
			return c.Roles.Reassign(ctx, &platform.ReassignRoleParams{Organization: org, Database: roleDB, Branch: "main", ID: "nope", Successor: "successor"})
		},
		"renew": func() error {
			_, err := c.Roles.Renew(ctx, &platform.RenewRoleParams{Organization: org, Database: roleDB, Branch: "main", ID: "nope"})
			return err
		},
		"reset": func() error {
			_, err := c.Roles.Reset(ctx, &platform.ResetRoleParams{Organization: org, Database: roleDB, Branch: "main", ID: "nope"})
			return err
		},
	} {
		apiError(t, call(), http.StatusNotFound)
		if diff := worldStateDiff(t, before, opWorldState(t, srv)); diff != "" {
			t.Errorf("%s of no role changed the world (-before +after):\n%s", name, diff)
		}
	}
}

// TestRoleKindMismatch checks every role operation on a MySQL database,
// whose branches have passwords instead: each answers 422 naming the
// database's kind, before any role is looked up, and changes nothing.
func TestRoleKindMismatch(t *testing.T) {
	t.Parallel()
	srv, _ := newKindServer(t, platform.KindMySQL)
	roles := "/v1/organizations/" + srv.Org() + "/databases/" + roleDB + "/branches/main/roles"
	before := observe(t, srv)
	for _, req := range []struct{ method, path, body string }{
		{http.MethodGet, roles, ""},
		{http.MethodPost, roles, "{}"},
		{http.MethodGet, roles + "/default", ""},
		{http.MethodPost, roles + "/reset-default", ""},
		{http.MethodGet, roles + "/nosuchrole", ""},
		{http.MethodPatch, roles + "/nosuchrole", `{"name":"renamed"}`},
		{http.MethodDelete, roles + "/nosuchrole", ""},
		{http.MethodPost, roles + "/nosuchrole/reassign", `{"successor":"other"}`},
		{http.MethodPost, roles + "/nosuchrole/renew", ""},
		{http.MethodPost, roles + "/nosuchrole/reset", ""},
	} {
		e := wantError(t, send(t, srv, req.method, req.path, admin(srv), req.body), http.StatusUnprocessableEntity, "unprocessable")
		if want := roleDB + " is mysql"; !strings.Contains(e.Message, want) || !strings.Contains(e.Message, "passwords") {
			t.Errorf("%s %s: message %q, want it to say %q and name passwords", req.method, req.path, e.Message, want)
		}
	}
	unchanged(t, srv, before)
}
