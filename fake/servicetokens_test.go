package fake_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// newServiceTokenServer starts a fake with two ready databases, app and other.
func newServiceTokenServer(t *testing.T) *fake.Server {
	t.Helper()
	srv := fake.NewServer(t)
	mustDB(t, srv, "app")
	mustDB(t, srv, "other")
	srv.Advance(5 * time.Second)
	return srv
}

// serviceTokenCreate creates a service token through the API with c, then moves
// the clock by a millisecond so that tokens list in creation order.
func serviceTokenCreate(t *testing.T, srv *fake.Server, c *platform.Client, p platform.CreateServiceTokenParams) (*platform.ServiceToken, fake.Token) {
	t.Helper()
	p.Organization = srv.Org()
	tok, err := c.ServiceTokens.Create(t.Context(), &p)
	if err != nil {
		t.Fatalf("create service token: %v", err)
	}
	if tok.Token == nil {
		t.Fatal("create response has no token secret")
	}
	srv.Advance(time.Millisecond)
	return tok, fake.Token{ID: tok.ID, Secret: *tok.Token}
}

// serviceTokenGrant grants perms to the token id with c, on database db or, when
// db is empty, on the organization.
func serviceTokenGrant(t *testing.T, srv *fake.Server, c *platform.Client, id, db string, perms ...platform.Permission) *platform.ServiceTokenAccesses {
	t.Helper()
	got, err := c.ServiceTokens.AddAccesses(t.Context(), serviceTokenAccessParams(srv, id, db, perms...))
	if err != nil {
		t.Fatalf("grant %v on %q: %v", perms, db, err)
	}
	return got
}

// serviceTokenAccessParams is the body of an add or remove of perms on db (the
// organization when empty).
func serviceTokenAccessParams(srv *fake.Server, id, db string, perms ...platform.Permission) *platform.AddServiceTokenAccessesParams {
	p := &platform.AddServiceTokenAccessesParams{Organization: srv.Org(), ID: id, Access: perms}
	if db != "" {
		p.Database = platform.Ptr(db)
	}
	return p
}

// serviceTokenAccessNames lists the token's accesses as "resource:permission",
// in list order.
func serviceTokenAccessNames(t *testing.T, srv *fake.Server, id string) []string {
	t.Helper()
	var out []string
	for a, err := range srv.Client().ServiceTokens.AllAccesses(t.Context(), &platform.ListServiceTokenAccessesParams{Organization: srv.Org(), ID: id}) {
		if err != nil {
			t.Fatalf("list accesses: %v", err)
		}
		out = append(out, a.ResourceName+":"+string(a.Access))
	}
	return out
}

// serviceTokenState is what the admin client sees of the organization's service
// tokens, with their accesses and grants: the state a refused request must
// leave unchanged. Last use is left out, as every request moves it.
type serviceTokenState struct {
	Tokens []*platform.ServiceToken
	Grants map[string][]*platform.ServiceTokenGrant
}

func serviceTokenObserve(t *testing.T, srv *fake.Server) serviceTokenState {
	t.Helper()
	ctx, c := t.Context(), srv.Client()
	st := serviceTokenState{Grants: map[string][]*platform.ServiceTokenGrant{}}
	for tok, err := range c.ServiceTokens.All(ctx, &platform.ListServiceTokensParams{Organization: srv.Org()}) {
		if err != nil {
			t.Fatal(err)
		}
		tok.LastUsedAt = nil
		st.Tokens = append(st.Tokens, tok)
		for g, err := range c.ServiceTokens.AllGrants(ctx, &platform.ListServiceTokenGrantsParams{Organization: srv.Org(), ID: tok.ID}) {
			if err != nil {
				t.Fatal(err)
			}
			st.Grants[tok.ID] = append(st.Grants[tok.ID], g)
		}
	}
	return st
}

func serviceTokensUnchanged(t *testing.T, srv *fake.Server, before serviceTokenState) {
	t.Helper()
	if diff := cmp.Diff(before, serviceTokenObserve(t, srv)); diff != "" {
		t.Errorf("service tokens changed (-before +after):\n%s", diff)
	}
}

func TestServiceTokenCreateShowsTheSecretOnce(t *testing.T) {
	t.Parallel()
	srv := newServiceTokenServer(t)
	c := srv.Client()
	created := srv.Now()
	tok, cred := serviceTokenCreate(t, srv, c, platform.CreateServiceTokenParams{Name: platform.Ptr("ci deploys"), TTL: platform.Ptr(3600)})

	want := &platform.ServiceToken{
		ID:                   tok.ID,
		Type:                 "ServiceToken",
		Name:                 platform.Ptr("ci deploys"),
		DisplayName:          "ci deploys",
		Token:                tok.Token,
		AvatarURL:            tok.AvatarURL,
		CreatedAt:            platform.NewTimestamp(created),
		UpdatedAt:            platform.NewTimestamp(created),
		ExpiresAt:            platform.Ptr(platform.NewTimestamp(created.Add(time.Hour))),
		ActorID:              platform.Ptr(srv.AdminUserID()),
		ActorDisplayName:     platform.Ptr("Ada Admin"),
		ActorType:            platform.Ptr("User"),
		ServiceTokenAccesses: []*platform.ServiceTokenAccess{},
	}
	if diff := cmp.Diff(want, tok); diff != "" {
		t.Errorf("create response (-want +got):\n%s", diff)
	}
	if len(tok.ID) != 12 || !strings.HasPrefix(*tok.Token, "sk_") || tok.AvatarURL == "" {
		t.Errorf("id %q, token %q, avatar %q", tok.ID, *tok.Token, tok.AvatarURL)
	}

	// The secret works at once, and the token records its use.
	if _, err := srv.ClientFor(cred).Users.GetCurrent(t.Context()); err != nil {
		t.Fatalf("the new token: %v", err)
	}
	used := srv.Now()
	got, err := c.ServiceTokens.Get(t.Context(), &platform.GetServiceTokenParams{Organization: srv.Org(), ID: tok.ID})
	if err != nil {
		t.Fatal(err)
	}
	want.Token = nil
	want.LastUsedAt = platform.Ptr(platform.NewTimestamp(used))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("get (-want +got):\n%s", diff)
	}

	// No later response carries the secret, and the field is null.
	for _, path := range []string{
		"/v1/organizations/acme/service-tokens/" + tok.ID,
		"/v1/organizations/acme/service-tokens",
	} {
		w := send(t, srv, "GET", path, admin(srv), "")
		wantStatus(t, w, http.StatusOK)
		if strings.Contains(string(w.body), *tok.Token) {
			t.Errorf("GET %s shows the secret: %s", path, w.body)
		}
		if !strings.Contains(string(w.body), `"token":null`) {
			t.Errorf("GET %s: no null token field: %s", path, w.body)
		}
	}
}

func TestServiceTokenWithoutNameOrTTL(t *testing.T) {
	t.Parallel()
	srv := newServiceTokenServer(t)
	w := send(t, srv, "POST", "/v1/organizations/acme/service-tokens", admin(srv), "")
	wantStatus(t, w, http.StatusOK)
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(w.body, &raw); err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{"name", "expires_at", "last_used_at", "plain_text_refresh_token"} {
		if string(raw[field]) != "null" {
			t.Errorf("%s = %s, want null", field, raw[field])
		}
	}
	tok := decode[platform.ServiceToken](t, w)
	if tok.DisplayName != tok.ID {
		t.Errorf("display_name %q of a token without a name, want its ID %q", tok.DisplayName, tok.ID)
	}
	// Without a ttl it never expires.
	srv.Advance(10 * 365 * 24 * time.Hour)
	if _, err := srv.ClientFor(fake.Token{ID: tok.ID, Secret: *tok.Token}).Users.GetCurrent(t.Context()); err != nil {
		t.Errorf("a token without ttl after ten years: %v", err)
	}
}

func TestServiceTokenCreateRefusals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, body string
		status     int
		field      string
	}{
		{"blank name", `{"name":"  "}`, 422, "name"},
		{"long name", `{"name":"` + strings.Repeat("n", 256) + `"}`, 422, "name"},
		{"zero ttl", `{"ttl":0}`, 422, "ttl"},
		{"negative ttl", `{"ttl":-5}`, 422, "ttl"},
		{"ttl past a century", `{"ttl":` + strconv.Itoa(101*365*24*3600) + `}`, 422, "ttl"},
		{"ttl not a number", `{"ttl":"1h"}`, 400, "ttl"},
		{"name not a string", `{"name":7}`, 400, "name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := newServiceTokenServer(t)
			before := serviceTokenObserve(t, srv)
			w := send(t, srv, "POST", "/v1/organizations/acme/service-tokens", admin(srv), tc.body)
			code := map[int]string{400: "bad_request", 422: "unprocessable"}[tc.status]
			if e := wantError(t, w, tc.status, code); !strings.Contains(e.Message, tc.field) {
				t.Errorf("message %q does not name %s", e.Message, tc.field)
			}
			serviceTokensUnchanged(t, srv, before)
		})
	}
}

func TestServiceTokenList(t *testing.T) {
	t.Parallel()
	srv := newServiceTokenServer(t)
	c := srv.Client()
	want := []string{srv.AdminToken().ID}
	for _, name := range []string{"one", "two", "three"} {
		tok, _ := serviceTokenCreate(t, srv, c, platform.CreateServiceTokenParams{Name: platform.Ptr(name)})
		want = append(want, tok.ID)
	}
	// Another organization's tokens are not listed.
	otherOrg(t, srv, "globex")

	page, err := c.ServiceTokens.List(t.Context(), &platform.ListServiceTokensParams{Organization: srv.Org(), ListParams: platform.ListParams{PerPage: 3}})
	if err != nil {
		t.Fatal(err)
	}
	if page.TotalCount == nil || *page.TotalCount != 4 || page.TotalPages == nil || *page.TotalPages != 2 || !page.HasNext() {
		t.Errorf("page 1 of 3: total %v, pages %v, next %v", page.TotalCount, page.TotalPages, page.NextPage)
	}
	var got []string
	for tok, err := range c.ServiceTokens.All(t.Context(), &platform.ListServiceTokensParams{Organization: srv.Org(), ListParams: platform.ListParams{PerPage: 3}}) {
		if err != nil {
			t.Fatal(err)
		}
		if tok.Token != nil {
			t.Errorf("token %s listed with its secret", tok.ID)
		}
		got = append(got, tok.ID)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("listed IDs, oldest first (-want +got):\n%s", diff)
	}
	desc := decode[platform.Page[platform.ServiceToken]](t, send(t, srv, "GET", "/v1/organizations/acme/service-tokens?order=desc&per_page=1", admin(srv), ""))
	if len(desc.Items) != 1 || desc.Items[0].ID != want[len(want)-1] {
		t.Errorf("order=desc starts with %v, want the newest %s", desc.Items, want[len(want)-1])
	}
}

func TestServiceTokenTTLExpiry(t *testing.T) {
	t.Parallel()
	srv := newServiceTokenServer(t)
	c := srv.Client()
	tok, cred := serviceTokenCreate(t, srv, c, platform.CreateServiceTokenParams{Name: platform.Ptr("short"), TTL: platform.Ptr(60)})
	serviceTokenGrant(t, srv, c, tok.ID, "app", platform.PermissionReadDatabase)
	read := func() error {
		_, err := srv.ClientFor(cred).Databases.Get(t.Context(), &platform.GetDatabaseParams{Organization: srv.Org(), Database: "app"})
		return err
	}
	if err := read(); err != nil {
		t.Fatalf("fresh token: %v", err)
	}
	srv.Advance(60*time.Second - 2*time.Millisecond) // created a millisecond before serviceTokenCreate returned
	if err := read(); err != nil {
		t.Fatalf("a millisecond before expiry: %v", err)
	}
	srv.Advance(time.Millisecond)
	err := read()
	if e := apiError(t, err, http.StatusUnauthorized); e.Code != "unauthorized" || !errors.Is(err, platform.ErrUnauthorized) {
		t.Errorf("expired token: %v", err)
	}
	// It is still listed, with its expiry, until deleted.
	got, err := c.ServiceTokens.Get(t.Context(), &platform.GetServiceTokenParams{Organization: srv.Org(), ID: tok.ID})
	if err != nil {
		t.Fatal(err)
	}
	if got.ExpiresAt == nil || got.ExpiresAt.After(srv.Now()) {
		t.Errorf("expires_at %v, want a time not after now %v", got.ExpiresAt, srv.Now())
	}
}

func TestServiceTokenDeleteRevokesAtOnce(t *testing.T) {
	t.Parallel()
	srv := newServiceTokenServer(t)
	c := srv.Client()
	tok, cred := serviceTokenCreate(t, srv, c, platform.CreateServiceTokenParams{Name: platform.Ptr("doomed")})
	serviceTokenGrant(t, srv, c, tok.ID, "", platform.PermissionReadOrganization)
	user := srv.ClientFor(cred)
	if _, err := user.Organizations.Get(t.Context(), &platform.GetOrganizationParams{Organization: srv.Org()}); err != nil {
		t.Fatal(err)
	}
	ref := &platform.DeleteServiceTokenParams{Organization: srv.Org(), ID: tok.ID}
	if err := c.ServiceTokens.Delete(t.Context(), ref); err != nil {
		t.Fatal(err)
	}
	_, err := user.Organizations.Get(t.Context(), &platform.GetOrganizationParams{Organization: srv.Org()})
	apiError(t, err, http.StatusUnauthorized)
	_, err = c.ServiceTokens.Get(t.Context(), ref)
	apiError(t, err, http.StatusNotFound)
	apiError(t, c.ServiceTokens.Delete(t.Context(), ref), http.StatusNotFound)
	for _, tok := range serviceTokenObserve(t, srv).Tokens {
		if tok.ID == ref.ID {
			t.Error("a deleted token is still listed")
		}
	}
}

func TestServiceTokenDeletesItself(t *testing.T) {
	t.Parallel()
	srv := newServiceTokenServer(t)
	tok, cred := serviceTokenCreate(t, srv, srv.Client(), platform.CreateServiceTokenParams{})
	serviceTokenGrant(t, srv, srv.Client(), tok.ID, "", platform.PermissionDeleteServiceTokens)
	self := srv.ClientFor(cred)
	if err := self.ServiceTokens.Delete(t.Context(), &platform.DeleteServiceTokenParams{Organization: srv.Org(), ID: tok.ID}); err != nil {
		t.Fatal(err)
	}
	_, err := self.Users.GetCurrent(t.Context())
	apiError(t, err, http.StatusUnauthorized)
}

func TestServiceTokenGrantOnOneDatabase(t *testing.T) {
	t.Parallel()
	srv := newServiceTokenServer(t)
	c := srv.Client()
	tok, cred := serviceTokenCreate(t, srv, c, platform.CreateServiceTokenParams{Name: platform.Ptr("reader")})
	user := srv.ClientFor(cred)
	get := func(db string) error {
		_, err := user.Databases.Get(t.Context(), &platform.GetDatabaseParams{Organization: srv.Org(), Database: db})
		return err
	}
	// Nothing granted yet.
	apiError(t, get("app"), http.StatusNotFound)

	app, err := c.Databases.Get(t.Context(), &platform.GetDatabaseParams{Organization: srv.Org(), Database: "app"})
	if err != nil {
		t.Fatal(err)
	}
	granted := srv.Now()
	added := serviceTokenGrant(t, srv, c, tok.ID, "app", platform.PermissionReadDatabase, platform.PermissionReadDatabase)
	if len(added.Accesses) != 1 {
		t.Fatalf("add named one permission twice and returned %d accesses", len(added.Accesses))
	}
	access := added.Accesses[0]
	want := &platform.ServiceTokenAccess{
		ID:           access.ID,
		Type:         "ServiceTokenAccess",
		Access:       platform.PermissionReadDatabase,
		Description:  "get information about a database",
		ResourceName: "app",
		ResourceID:   app.ID,
		ResourceType: platform.AccessResourceDatabase,
		Resource:     platform.ServiceTokenResource{ID: app.ID, Type: platform.AccessResourceDatabase, Name: "app", CreatedAt: app.CreatedAt, UpdatedAt: app.UpdatedAt},
	}
	if diff := cmp.Diff(want, access); diff != "" {
		t.Errorf("added access (-want +got):\n%s", diff)
	}
	if len(access.ID) != 12 || access.ID == app.ID || access.ID == tok.ID {
		t.Errorf("access ID %q", access.ID)
	}

	// Effective on the next request: app reads, other does not.
	if err := get("app"); err != nil {
		t.Errorf("read app after the grant: %v", err)
	}
	apiError(t, get("other"), http.StatusNotFound)

	// The same access, with the same ID, in the list and the grants; the
	// token itself shows only its organization accesses.
	page, err := c.ServiceTokens.ListAccesses(t.Context(), &platform.ListServiceTokenAccessesParams{Organization: srv.Org(), ID: tok.ID})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]*platform.ServiceTokenAccess{want}, page.Items); diff != "" {
		t.Errorf("listed accesses (-want +got):\n%s", diff)
	}
	got, err := c.ServiceTokens.Get(t.Context(), &platform.GetServiceTokenParams{Organization: srv.Org(), ID: tok.ID})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]*platform.ServiceTokenAccess{}, got.ServiceTokenAccesses); diff != "" {
		t.Errorf("the token's accesses, with none on the organization (-want +got):\n%s", diff)
	}
	if !got.UpdatedAt.Equal(platform.NewTimestamp(granted).Time) {
		t.Errorf("updated_at %v, want the grant's time %v", got.UpdatedAt, granted)
	}
	grants, err := c.ServiceTokens.ListGrants(t.Context(), &platform.ListServiceTokenGrantsParams{Organization: srv.Org(), ID: tok.ID})
	if err != nil {
		t.Fatal(err)
	}
	wantGrant := &platform.ServiceTokenGrant{
		ID: "", Type: "ServiceTokenGrant", ResourceName: "app", ResourceID: app.ID, ResourceType: platform.AccessResourceDatabase,
		Accesses: []*platform.ServiceTokenGrantAccess{{Access: platform.PermissionReadDatabase, Description: "get information about a database"}},
	}
	if len(grants.Items) == 1 {
		wantGrant.ID = grants.Items[0].ID
	}
	if diff := cmp.Diff([]*platform.ServiceTokenGrant{wantGrant}, grants.Items); diff != "" {
		t.Errorf("grants (-want +got):\n%s", diff)
	}

	// Removing it is effective on the next request too.
	if err := c.ServiceTokens.RemoveAccesses(t.Context(), serviceTokenAccessParams(srv, tok.ID, "app", platform.PermissionReadDatabase)); err != nil {
		t.Fatal(err)
	}
	apiError(t, get("app"), http.StatusNotFound)
	if names := serviceTokenAccessNames(t, srv, tok.ID); len(names) != 0 {
		t.Errorf("accesses after removing the only one: %v", names)
	}
}

func TestServiceTokenGrantOnTheOrganization(t *testing.T) {
	t.Parallel()
	srv := newServiceTokenServer(t)
	c := srv.Client()
	tok, cred := serviceTokenCreate(t, srv, c, platform.CreateServiceTokenParams{})
	user := srv.ClientFor(cred)
	serviceTokenGrant(t, srv, c, tok.ID, "", platform.PermissionReadDatabase, platform.PermissionReadOrganization)
	serviceTokenGrant(t, srv, c, tok.ID, "other", platform.PermissionReadBranch)
	serviceTokenGrant(t, srv, c, tok.ID, "app", platform.PermissionReadBackups, platform.PermissionReadBranch)

	// A database permission granted on the organization covers every
	// database, also one created after the grant.
	mustDB(t, srv, "later")
	for _, db := range []string{"app", "other", "later"} {
		if _, err := user.Databases.Get(t.Context(), &platform.GetDatabaseParams{Organization: srv.Org(), Database: db}); err != nil {
			t.Errorf("read %s with an organization grant: %v", db, err)
		}
	}
	if _, err := user.Organizations.Get(t.Context(), &platform.GetOrganizationParams{Organization: srv.Org()}); err != nil {
		t.Errorf("read the organization: %v", err)
	}

	// The organization's accesses first, then each database's in creation
	// order, each resource's by name.
	want := []string{
		"acme:read_database", "acme:read_organization",
		"app:read_backups", "app:read_branch",
		"other:read_branch",
	}
	if diff := cmp.Diff(want, serviceTokenAccessNames(t, srv, tok.ID)); diff != "" {
		t.Errorf("accesses (-want +got):\n%s", diff)
	}
	desc := decode[platform.Page[platform.ServiceTokenAccess]](t, send(t, srv, "GET", "/v1/organizations/acme/service-tokens/"+tok.ID+"/access?order=desc&per_page=2&page=2", admin(srv), ""))
	var descNames []string
	for _, a := range desc.Items {
		descNames = append(descNames, a.ResourceName+":"+string(a.Access))
	}
	if diff := cmp.Diff([]string{"app:read_backups", "acme:read_organization"}, descNames); diff != "" || desc.TotalCount == nil || *desc.TotalCount != 5 {
		t.Errorf("page 2 of accesses in descending order, total %v (-want +got):\n%s", desc.TotalCount, diff)
	}
	var grants []string
	for g, err := range c.ServiceTokens.AllGrants(t.Context(), &platform.ListServiceTokenGrantsParams{Organization: srv.Org(), ID: tok.ID, ListParams: platform.ListParams{PerPage: 1}}) {
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, a := range g.Accesses {
			names = append(names, string(a.Access))
		}
		grants = append(grants, string(g.ResourceType)+" "+g.ResourceName+": "+strings.Join(names, ","))
	}
	wantGrants := []string{
		"Organization acme: read_database,read_organization",
		"Database app: read_backups,read_branch",
		"Database other: read_branch",
	}
	if diff := cmp.Diff(wantGrants, grants); diff != "" {
		t.Errorf("grants (-want +got):\n%s", diff)
	}

	// Taking the organization's read_database away leaves the databases
	// whose own grants still allow reading.
	if err := c.ServiceTokens.RemoveAccesses(t.Context(), serviceTokenAccessParams(srv, tok.ID, "", platform.PermissionReadDatabase, platform.PermissionCreateDatabases)); err != nil {
		t.Fatal(err)
	}
	for db, ok := range map[string]bool{"app": true, "other": true, "later": false} {
		_, err := user.Databases.Get(t.Context(), &platform.GetDatabaseParams{Organization: srv.Org(), Database: db})
		if ok && err != nil {
			t.Errorf("read %s with its own read_branch: %v", db, err)
		}
		if !ok {
			apiError(t, err, http.StatusNotFound)
		}
	}
}

func TestServiceTokenGrantsOfADeletedDatabase(t *testing.T) {
	t.Parallel()
	srv := newServiceTokenServer(t)
	c := srv.Client()
	tok, _ := serviceTokenCreate(t, srv, c, platform.CreateServiceTokenParams{})
	serviceTokenGrant(t, srv, c, tok.ID, "app", platform.PermissionReadDatabase)
	serviceTokenGrant(t, srv, c, tok.ID, "other", platform.PermissionReadDatabase)
	if err := c.Databases.Delete(t.Context(), &platform.DeleteDatabaseParams{Organization: srv.Org(), Database: "app"}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"other:read_database"}, serviceTokenAccessNames(t, srv, tok.ID)); diff != "" {
		t.Errorf("accesses after deleting app (-want +got):\n%s", diff)
	}
}

func TestServiceTokenAccessRefusals(t *testing.T) {
	t.Parallel()
	for _, op := range []string{"POST", "DELETE"} {
		for _, tc := range []struct {
			name, body string
			status     int
			words      []string
		}{
			{"no body", ``, 422, []string{"access"}},
			{"empty access", `{"access":[]}`, 422, []string{"access"}},
			{"unknown permission", `{"access":["read_database","read_everything"]}`, 422, []string{"read_everything"}},
			{"unknown permission on a database", `{"database":"app","access":["read_everything"]}`, 422, []string{"read_everything"}},
			{"unknown database", `{"database":"nope","access":["read_database"]}`, 422, []string{"database", "nope"}},
			{"organization permission on a database", `{"database":"app","access":["read_database","create_databases"]}`, 422, []string{"create_databases", "organization permission"}},
			{"access not a list", `{"access":"read_database"}`, 400, []string{"access"}},
			{"database not a string", `{"database":1,"access":["read_database"]}`, 400, []string{"database"}},
		} {
			t.Run(op+" "+tc.name, func(t *testing.T) {
				t.Parallel()
				srv := newServiceTokenServer(t)
				tok, _ := serviceTokenCreate(t, srv, srv.Client(), platform.CreateServiceTokenParams{})
				serviceTokenGrant(t, srv, srv.Client(), tok.ID, "app", platform.PermissionReadDatabase)
				before := serviceTokenObserve(t, srv)
				w := send(t, srv, op, "/v1/organizations/acme/service-tokens/"+tok.ID+"/access", admin(srv), tc.body)
				code := map[int]string{400: "bad_request", 422: "unprocessable"}[tc.status]
				e := wantError(t, w, tc.status, code)
				for _, word := range tc.words {
					if !strings.Contains(e.Message, word) {
						t.Errorf("message %q does not mention %q", e.Message, word)
					}
				}
				serviceTokensUnchanged(t, srv, before)
			})
		}
	}
}

// TestServiceTokenNotFound checks every operation on a token ID that is not
// one of the organization's tokens: unknown, or another organization's.
func TestServiceTokenNotFound(t *testing.T) {
	t.Parallel()
	srv := newServiceTokenServer(t)
	foreign := otherOrg(t, srv, "globex")
	before := serviceTokenObserve(t, srv)
	for _, id := range []string{"nosuchtoken1", foreign.ID} {
		for _, rq := range []struct{ method, suffix, body string }{
			{"GET", "", ""},
			{"DELETE", "", ""},
			{"GET", "/access", ""},
			{"POST", "/access", `{"access":["read_database"]}`},
			{"DELETE", "/access", `{"access":["read_database"]}`},
			{"GET", "/grants", ""},
		} {
			w := send(t, srv, rq.method, "/v1/organizations/acme/service-tokens/"+id+rq.suffix, admin(srv), rq.body)
			wantError(t, w, http.StatusNotFound, "not_found")
		}
	}
	serviceTokensUnchanged(t, srv, before)
	// And globex's token sees nothing of acme's tokens.
	_, err := srv.ClientFor(foreign).ServiceTokens.List(t.Context(), &platform.ListServiceTokensParams{Organization: srv.Org()})
	apiError(t, err, http.StatusNotFound)
}

// TestServiceTokenMemberGrants checks the spec's rule that a member grants
// only permissions the member holds: a member's token (one the member
// created) may grant database permissions, on a database or on the
// organization, but no organization permission (403 forbidden, nothing
// granted); an admin's may grant all.
func TestServiceTokenMemberGrants(t *testing.T) {
	t.Parallel()
	srv := newServiceTokenServer(t)
	bob := mustMember(t, srv, srv.Org(), "Bob Builder", platform.RoleMember)
	bobs := srv.ClientFor(mustToken(t, srv, fake.TokenSpec{
		Name: "bob", CreatedBy: bob,
		Permissions: []platform.Permission{"read_service_tokens", "write_service_tokens"},
	}))
	tok, _ := serviceTokenCreate(t, srv, bobs, platform.CreateServiceTokenParams{Name: platform.Ptr("bob's ci")})
	if tok.ActorID == nil || *tok.ActorID != bob || *tok.ActorDisplayName != "Bob Builder" {
		t.Errorf("a token created by Bob's token has actor %v, want Bob %s", tok.ActorID, bob)
	}

	for _, perms := range [][]platform.Permission{
		{platform.PermissionCreateDatabases},
		{platform.PermissionReadDatabase, platform.PermissionWriteOrganization},
		{platform.PermissionWriteServiceTokens},
		{platform.PermissionReadOrganization},
	} {
		before := serviceTokenObserve(t, srv)
		_, err := bobs.ServiceTokens.AddAccesses(t.Context(), serviceTokenAccessParams(srv, tok.ID, "", perms...))
		e := apiError(t, err, http.StatusForbidden, string(perms[len(perms)-1]))
		if e.Code != "forbidden" || !errors.Is(err, platform.ErrForbidden) {
			t.Errorf("granting %v: %v", perms, err)
		}
		serviceTokensUnchanged(t, srv, before)
	}

	// Database permissions are Bob's to grant, on a database or on the
	// whole organization.
	serviceTokenGrant(t, srv, bobs, tok.ID, "app", platform.PermissionReadDatabase, platform.PermissionCreateBranch)
	serviceTokenGrant(t, srv, bobs, tok.ID, "", platform.PermissionReadBranch)
	// An admin's token may grant what Bob may not.
	serviceTokenGrant(t, srv, srv.Client(), tok.ID, "", platform.PermissionCreateDatabases)
	want := []string{"acme:create_databases", "acme:read_branch", "app:create_branch", "app:read_database"}
	if diff := cmp.Diff(want, serviceTokenAccessNames(t, srv, tok.ID)); diff != "" {
		t.Errorf("accesses (-want +got):\n%s", diff)
	}

	// Bob may take away what he could not give.
	if err := bobs.ServiceTokens.RemoveAccesses(t.Context(), serviceTokenAccessParams(srv, tok.ID, "", platform.PermissionCreateDatabases)); err != nil {
		t.Errorf("Bob removes create_databases: %v", err)
	}

	// Once Bob has left the organization, his token grants nothing.
	if err := srv.Client().Organizations.RemoveMember(t.Context(), &platform.RemoveMemberParams{Organization: srv.Org(), UserID: bob}); err != nil {
		t.Fatal(err)
	}
	_, err := bobs.ServiceTokens.AddAccesses(t.Context(), serviceTokenAccessParams(srv, tok.ID, "app", platform.PermissionReadBackups))
	apiError(t, err, http.StatusForbidden, "not a member")
}

// TestServiceTokenCreateDatabasesGrantsEveryDatabasePermission pins the
// grant a token gets on a database it creates: every database permission,
// as one grant on the database, of those it does not already hold on the
// whole organization. A token holding them all there gets none.
func TestServiceTokenCreateDatabasesGrantsEveryDatabasePermission(t *testing.T) {
	t.Parallel()
	var every []platform.Permission
	for _, p := range fake.AllPermissions() {
		every = append(every, platform.Permission(p))
	}
	for _, tc := range []struct {
		name string
		org  []platform.Permission // held on the organization
	}{
		{"create_databases alone", []platform.Permission{platform.PermissionCreateDatabases}},
		{"some database permissions too", []platform.Permission{platform.PermissionCreateDatabases, platform.PermissionReadDatabase, platform.PermissionConnectBranch}},
		{"every permission", every},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := newServiceTokenServer(t)
			c := srv.Client()
			tok, cred := serviceTokenCreate(t, srv, c, platform.CreateServiceTokenParams{Name: platform.Ptr("provisioner")})
			serviceTokenGrant(t, srv, c, tok.ID, "", tc.org...)
			user := srv.ClientFor(cred)
			if _, err := user.Databases.Create(t.Context(), &platform.CreateDatabaseParams{Organization: srv.Org(), Name: "fresh", ClusterSize: "PS_10"}); err != nil {
				t.Fatal(err)
			}
			var wantOrg, wantFresh []string
			for _, p := range tc.org {
				wantOrg = append(wantOrg, "acme:"+string(p))
			}
			for _, p := range platform.DatabasePermissions() {
				if !slices.Contains(tc.org, p) {
					wantFresh = append(wantFresh, "fresh:"+string(p))
				}
			}
			slices.Sort(wantOrg)
			slices.Sort(wantFresh)
			if diff := cmp.Diff(append(wantOrg, wantFresh...), serviceTokenAccessNames(t, srv, tok.ID)); diff != "" {
				t.Errorf("accesses after creating fresh (-want +got):\n%s", diff)
			}
			grants, err := c.ServiceTokens.ListGrants(t.Context(), &platform.ListServiceTokenGrantsParams{Organization: srv.Org(), ID: tok.ID})
			if err != nil {
				t.Fatal(err)
			}
			if want := 1 + min(len(wantFresh), 1); len(grants.Items) != want {
				t.Errorf("%d grants, want %d: the organization's and at most one on fresh", len(grants.Items), want)
			}
			// The token itself lists its organization accesses only.
			got, err := c.ServiceTokens.Get(t.Context(), &platform.GetServiceTokenParams{Organization: srv.Org(), ID: tok.ID})
			if err != nil {
				t.Fatal(err)
			}
			var shown []string
			for _, a := range got.ServiceTokenAccesses {
				shown = append(shown, a.ResourceName+":"+string(a.Access))
			}
			if diff := cmp.Diff(wantOrg, shown); diff != "" {
				t.Errorf("the token's service_token_accesses (-want +got):\n%s", diff)
			}
			// Every database permission on fresh, whichever way it is held.
			if _, err := user.Databases.Update(t.Context(), &platform.UpdateDatabaseParams{Organization: srv.Org(), Database: "fresh", DeletionProtected: platform.Ptr(false)}); err != nil {
				t.Errorf("update the database it created: %v", err)
			}
			if _, err := user.Branches.List(t.Context(), &platform.ListBranchesParams{Organization: srv.Org(), Database: "fresh"}); err != nil {
				t.Errorf("list the branches of the database it created: %v", err)
			}
			_, err = user.Databases.Get(t.Context(), &platform.GetDatabaseParams{Organization: srv.Org(), Database: "app"})
			if slices.Contains(tc.org, platform.PermissionReadDatabase) {
				if err != nil {
					t.Errorf("read another database with read_database on the organization: %v", err)
				}
			} else {
				apiError(t, err, http.StatusNotFound)
			}
		})
	}
}

// TestServiceTokenStaysSmall creates many databases with a token and checks
// that the token's JSON does not grow with them: its accesses on databases
// are listed, a page at a time, by the access and grant lists.
func TestServiceTokenStaysSmall(t *testing.T) {
	t.Parallel()
	const dbs = 40
	srv := fake.NewServer(t)
	c := srv.Client()
	tok, cred := serviceTokenCreate(t, srv, c, platform.CreateServiceTokenParams{Name: platform.Ptr("provisioner")})
	serviceTokenGrant(t, srv, c, tok.ID, "", platform.PermissionCreateDatabases, platform.PermissionReadDatabase)
	user := srv.ClientFor(cred)
	size := func() int {
		w := send(t, srv, "GET", "/v1/organizations/acme/service-tokens/"+tok.ID, admin(srv), "")
		wantStatus(t, w, http.StatusOK)
		return len(w.body)
	}
	var before int
	for i := range dbs {
		if _, err := user.Databases.Create(t.Context(), &platform.CreateDatabaseParams{Organization: srv.Org(), Name: fmt.Sprintf("db-%02d", i), ClusterSize: "PS_10"}); err != nil {
			t.Fatal(err)
		}
		if i == 0 { // the token has been used: its last_used_at is set
			before = size()
		}
	}
	if after := size(); after != before {
		t.Errorf("the token's JSON went from %d to %d bytes from its first database to its %dth", before, after, dbs)
	}
	perDB := len(platform.DatabasePermissions()) - 1 // read_database is held on the organization
	accesses, err := c.ServiceTokens.ListAccesses(t.Context(), &platform.ListServiceTokenAccessesParams{Organization: srv.Org(), ID: tok.ID})
	if err != nil {
		t.Fatal(err)
	}
	if want := 2 + dbs*perDB; accesses.TotalCount == nil || *accesses.TotalCount != want || len(accesses.Items) != 25 {
		t.Errorf("accesses: %d on the first page of %v, want 25 of %d", len(accesses.Items), accesses.TotalCount, want)
	}
	grants, err := c.ServiceTokens.ListGrants(t.Context(), &platform.ListServiceTokenGrantsParams{Organization: srv.Org(), ID: tok.ID})
	if err != nil {
		t.Fatal(err)
	}
	if want := 1 + dbs; grants.TotalCount == nil || *grants.TotalCount != want {
		t.Errorf("grants: total %v, want %d", grants.TotalCount, want)
	}
}

// TestServiceTokenAccessPages pages through a token's accesses and grants
// with every page size, in both orders, across the boundaries between the
// organization's grant and the databases': every page is the matching
// window of the whole list.
func TestServiceTokenAccessPages(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	for _, db := range []string{"app", "other", "third"} { // in this list order
		mustDB(t, srv, db)
		srv.Advance(time.Second)
	}
	c := srv.Client()
	tok, _ := serviceTokenCreate(t, srv, c, platform.CreateServiceTokenParams{Name: platform.Ptr("paged")})
	serviceTokenGrant(t, srv, c, tok.ID, "", platform.PermissionReadOrganization, platform.PermissionReadBranch)
	serviceTokenGrant(t, srv, c, tok.ID, "third", platform.PermissionReadBackups)
	serviceTokenGrant(t, srv, c, tok.ID, "app", platform.PermissionReadDatabase, platform.PermissionCreateBranch, platform.PermissionConnectBranch)
	serviceTokenGrant(t, srv, c, tok.ID, "other", platform.PermissionWriteBackups, platform.PermissionReadComment)
	wantAll := []string{
		"acme:read_branch", "acme:read_organization",
		"app:connect_branch", "app:create_branch", "app:read_database",
		"other:read_comment", "other:write_backups",
		"third:read_backups",
	}
	if diff := cmp.Diff(wantAll, serviceTokenAccessNames(t, srv, tok.ID)); diff != "" {
		t.Fatalf("accesses in list order (-want +got):\n%s", diff)
	}
	wantGrants := []string{"acme", "app", "other", "third"}
	for _, order := range []string{"asc", "desc"} {
		wantA, wantG := slices.Clone(wantAll), slices.Clone(wantGrants)
		if order == "desc" {
			slices.Reverse(wantA)
			slices.Reverse(wantG)
		}
		for per := 1; per <= len(wantAll)+1; per++ {
			var gotA, gotG []string
			for page := 1; page <= len(wantAll)+1; page++ {
				q := fmt.Sprintf("?order=%s&per_page=%d&page=%d", order, per, page)
				a := decode[platform.Page[platform.ServiceTokenAccess]](t, send(t, srv, "GET", "/v1/organizations/acme/service-tokens/"+tok.ID+"/access"+q, admin(srv), ""))
				for _, it := range a.Items {
					gotA = append(gotA, it.ResourceName+":"+string(it.Access))
				}
				if *a.TotalCount != len(wantAll) || len(a.Items) > per || a.HasNext() != (page*per < len(wantAll)) {
					t.Errorf("%s accesses page %d of %d: %d items, total %d, next %v", order, page, per, len(a.Items), *a.TotalCount, a.NextPage)
				}
				g := decode[platform.Page[platform.ServiceTokenGrant]](t, send(t, srv, "GET", "/v1/organizations/acme/service-tokens/"+tok.ID+"/grants"+q, admin(srv), ""))
				for _, it := range g.Items {
					gotG = append(gotG, it.ResourceName)
				}
			}
			if diff := cmp.Diff(wantA, gotA); diff != "" {
				t.Errorf("accesses, %s, %d per page (-want +got):\n%s", order, per, diff)
			}
			if diff := cmp.Diff(wantG, gotG); diff != "" {
				t.Errorf("grants, %s, %d per page (-want +got):\n%s", order, per, diff)
			}
		}
	}
}

// TestServiceTokenEveryPermissionDescribed grants every permission on the
// organization and every database permission on a database, and checks
// the accesses name them all, each with a description.
func TestServiceTokenEveryPermissionDescribed(t *testing.T) {
	t.Parallel()
	srv := newServiceTokenServer(t)
	c := srv.Client()
	tok, _ := serviceTokenCreate(t, srv, c, platform.CreateServiceTokenParams{})
	var all []platform.Permission
	for _, p := range fake.AllPermissions() {
		all = append(all, platform.Permission(p))
	}
	serviceTokenGrant(t, srv, c, tok.ID, "", all...)
	serviceTokenGrant(t, srv, c, tok.ID, "app", platform.DatabasePermissions()...)
	count := map[platform.AccessResourceType]int{}
	for a, err := range c.ServiceTokens.AllAccesses(t.Context(), &platform.ListServiceTokenAccessesParams{Organization: srv.Org(), ID: tok.ID}) {
		if err != nil {
			t.Fatal(err)
		}
		count[a.ResourceType]++
		if a.Description == "" {
			t.Errorf("%s has no description", a.Access)
		}
	}
	wantCount := map[platform.AccessResourceType]int{
		platform.AccessResourceOrganization: len(fake.AllPermissions()),
		platform.AccessResourceDatabase:     len(platform.DatabasePermissions()),
	}
	if diff := cmp.Diff(wantCount, count); diff != "" {
		t.Errorf("accesses by resource (-want +got):\n%s", diff)
	}
}

// serviceTokenOps are the service token operations, with a path under
// /v1/organizations/acme whose {id} is the target token's, and a body that
// succeeds.
var serviceTokenOps = map[string]struct{ method, path, body string }{
	"list_service_tokens":           {"GET", "/service-tokens", ""},
	"create_service_token":          {"POST", "/service-tokens", `{"name":"new"}`},
	"get_service_token":             {"GET", "/service-tokens/{id}", ""},
	"delete_service_token":          {"DELETE", "/service-tokens/{id}", ""},
	"list_service_token_accesses":   {"GET", "/service-tokens/{id}/access", ""},
	"add_service_token_accesses":    {"POST", "/service-tokens/{id}/access", `{"database":"other","access":["read_branch"]}`},
	"remove_service_token_accesses": {"DELETE", "/service-tokens/{id}/access", `{"database":"app","access":["read_database"]}`},
	"list_service_token_grants":     {"GET", "/service-tokens/{id}/grants", ""},
}

// TestServiceTokenPermissions checks each operation against its row of
// operations.tsv: a token holding every permission but the operation's
// gets 404 and changes nothing; one holding only one of them succeeds,
// with the row's status.
func TestServiceTokenPermissions(t *testing.T) {
	t.Parallel()
	ops := loadOperations(t)
	for name, rq := range serviceTokenOps {
		op := ops[name]
		if op.method != rq.method || "/v1/organizations/{organization}"+rq.path != op.path {
			t.Errorf("%s: table has %s %s, operations.tsv %s %s", name, rq.method, rq.path, op.method, op.path)
			continue
		}
		if len(op.perms) == 0 {
			t.Errorf("%s needs no permission in operations.tsv", name)
			continue
		}
		setup := func(t *testing.T) (*fake.Server, string) {
			srv := newServiceTokenServer(t)
			target, _ := serviceTokenCreate(t, srv, srv.Client(), platform.CreateServiceTokenParams{Name: platform.Ptr("target")})
			serviceTokenGrant(t, srv, srv.Client(), target.ID, "app", platform.PermissionReadDatabase)
			return srv, "/v1/organizations/acme" + strings.ReplaceAll(rq.path, "{id}", target.ID)
		}
		t.Run(name+" lacking", func(t *testing.T) {
			t.Parallel()
			srv, path := setup(t)
			var rest []string
			for _, p := range permissionNames() {
				if !slices.Contains(op.perms, p) {
					rest = append(rest, p)
				}
			}
			tok := mustToken(t, srv, fake.TokenSpec{Name: "all but", Permissions: permissions(rest...)})
			before := serviceTokenObserve(t, srv)
			if e := wantError(t, send(t, srv, rq.method, path, tok.Authorization(), rq.body), http.StatusNotFound, "not_found"); e.Message != "Not Found" {
				t.Errorf("message %q, want the plain Not Found of a missing resource", e.Message)
			}
			serviceTokensUnchanged(t, srv, before)
		})
		for _, perm := range op.perms {
			t.Run(name+" only "+perm, func(t *testing.T) {
				t.Parallel()
				srv, path := setup(t)
				tok := mustToken(t, srv, fake.TokenSpec{Name: "one", Permissions: permissions(perm)})
				before := serviceTokenObserve(t, srv)
				wantStatus(t, send(t, srv, rq.method, path, tok.Authorization(), rq.body), op.status)
				if changed := !cmp.Equal(before, serviceTokenObserve(t, srv)); changed != (rq.method != http.MethodGet) {
					t.Errorf("state changed: %v, want %v", changed, rq.method != http.MethodGet)
				}
			})
			t.Run(name+" seeding "+perm+" on a database", func(t *testing.T) {
				t.Parallel()
				// An organization permission: not grantable on a database.
				srv, _ := setup(t)
				if _, err := srv.CreateServiceToken(srv.Org(), fake.TokenSpec{DatabasePermissions: map[string][]platform.Permission{"app": permissions(perm)}}); err == nil {
					t.Errorf("seeding %s, an organization permission, on a database succeeded", perm)
				}
			})
		}
	}
}

func TestServiceTokensUnauthorized(t *testing.T) {
	t.Parallel()
	srv := newServiceTokenServer(t)
	target, _ := serviceTokenCreate(t, srv, srv.Client(), platform.CreateServiceTokenParams{})
	creds := badCredentials(t, srv)
	before := serviceTokenObserve(t, srv)
	for name, rq := range serviceTokenOps {
		path := "/v1/organizations/acme" + strings.ReplaceAll(rq.path, "{id}", target.ID)
		for label, auth := range creds {
			w := send(t, srv, rq.method, path, auth, rq.body)
			if w.status != http.StatusUnauthorized {
				t.Errorf("%s, %s: status %d, want 401", name, label, w.status)
				continue
			}
			wantError(t, w, http.StatusUnauthorized, "unauthorized")
		}
	}
	serviceTokensUnchanged(t, srv, before)
}

func TestServiceTokenRemovedWithItsMember(t *testing.T) {
	t.Parallel()
	srv := newServiceTokenServer(t)
	bob := mustMember(t, srv, srv.Org(), "Bob Builder", platform.RoleMember)
	bobTok := mustToken(t, srv, fake.TokenSpec{Name: "bob", CreatedBy: bob, Permissions: []platform.Permission{"write_service_tokens"}})
	made, madeCred := serviceTokenCreate(t, srv, srv.ClientFor(bobTok), platform.CreateServiceTokenParams{})
	if err := srv.Client().Organizations.RemoveMember(t.Context(), &platform.RemoveMemberParams{
		Organization: srv.Org(), UserID: bob, DeleteServiceTokens: true,
	}); err != nil {
		t.Fatal(err)
	}
	for _, tok := range serviceTokenObserve(t, srv).Tokens {
		if tok.ID == bobTok.ID || tok.ID == made.ID {
			t.Errorf("token %s of a removed member is still listed", tok.ID)
		}
	}
	_, err := srv.ClientFor(madeCred).Users.GetCurrent(t.Context())
	apiError(t, err, http.StatusUnauthorized)
}

// TestServiceTokenAccessOrganizationForms: the service's own client sends
// "database": "" for an organization-wide grant or revocation (its field
// has no omitempty); "", null and an omitted database all mean the
// organization.
func TestServiceTokenAccessOrganizationForms(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, database string }{
		{"omitted", ``},
		{"null", `"database":null,`},
		{"empty", `"database":"",`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := newServiceTokenServer(t)
			tok, _ := serviceTokenCreate(t, srv, srv.Client(), platform.CreateServiceTokenParams{})
			path := "/v1/organizations/acme/service-tokens/" + tok.ID + "/access"
			body := `{` + tc.database + `"access":["read_database","create_databases"]}`
			wantStatus(t, send(t, srv, "POST", path, admin(srv), body), http.StatusOK)
			if diff := cmp.Diff([]string{"acme:create_databases", "acme:read_database"}, serviceTokenAccessNames(t, srv, tok.ID)); diff != "" {
				t.Errorf("accesses after the grant (-want +got):\n%s", diff)
			}
			body = `{` + tc.database + `"access":["read_database"]}`
			wantStatus(t, send(t, srv, "DELETE", path, admin(srv), body), http.StatusNoContent)
			if diff := cmp.Diff([]string{"acme:create_databases"}, serviceTokenAccessNames(t, srv, tok.ID)); diff != "" {
				t.Errorf("accesses after the revocation (-want +got):\n%s", diff)
			}
		})
	}
}
