package fake_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

func TestOAuthApplicationsListAndGet(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	ctx, c := t.Context(), srv.Client()
	var apps []fake.OAuthApp
	for range 3 {
		apps = append(apps, oauthApp(t, srv, "https://app.example.com/cb", platform.ScopeUserReadUser, platform.ScopeOrganizationWriteOrganization, platform.ScopeBranchReadBranch))
		srv.Advance(time.Second)
	}
	otherOrg(t, srv, "globex")
	if _, err := srv.CreateOAuthApplication("globex", fake.OAuthAppSpec{Name: "Theirs", Domain: "https://g.example.com", RedirectURI: "https://g.example.com/", Scopes: []platform.Scope{platform.ScopeUserReadUser}}); err != nil {
		t.Fatal(err)
	}
	oauthIssue(t, srv, apps[1], fake.Consent{})

	page, err := c.OAuthApplications.List(ctx, &platform.ListOAuthApplicationsParams{Organization: srv.Org(), ListParams: platform.ListParams{PerPage: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 2 || page.TotalCount == nil || *page.TotalCount != 3 || !page.HasNext() {
		t.Fatalf("first page: %d items, total %v, next %v", len(page.Items), page.TotalCount, page.NextPage)
	}
	var ids []string
	for a, err := range c.OAuthApplications.All(ctx, &platform.ListOAuthApplicationsParams{Organization: srv.Org(), ListParams: platform.ListParams{PerPage: 2}}) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, a.ID)
	}
	if diff := cmp.Diff([]string{apps[0].ID, apps[1].ID, apps[2].ID}, ids); diff != "" {
		t.Errorf("applications in creation order (-want +got):\n%s", diff)
	}

	got, err := c.OAuthApplications.Get(ctx, &platform.GetOAuthApplicationParams{Organization: srv.Org(), ApplicationID: apps[1].ID})
	if err != nil {
		t.Fatal(err)
	}
	yes, no := platform.Ptr(true), platform.Ptr(false)
	if got.ClientID != apps[1].ClientID || got.Name != "Dashboard" || got.Domain != "https://app.example.com" ||
		got.RedirectURI != "https://app.example.com/cb" || got.Type != "OauthApplication" || got.Tokens != 1 || !got.RequiresOrgScope {
		t.Errorf("application %+v", got)
	}
	if diff := cmp.Diff(platform.ScopeList{platform.ScopeUserReadUser, platform.ScopeOrganizationWriteOrganization, platform.ScopeBranchReadBranch}, got.Scopes); diff != "" {
		t.Errorf("scopes (-want +got):\n%s", diff)
	}
	wantByResource := map[string][]platform.OAuthScopeInfo{
		"user":         {{Scope: "read_user", Description: platform.ScopeUserReadUser.Description()}},
		"organization": {{Scope: "write_organization", Description: platform.ScopeOrganizationWriteOrganization.Description(), Admin: true}},
		"branch":       {{Scope: "read_branch", Description: platform.ScopeBranchReadBranch.Description()}},
	}
	if diff := cmp.Diff(wantByResource, got.ScopesByResource); diff != "" {
		t.Errorf("scopes_by_resource (-want +got):\n%s", diff)
	}
	// all_scopes_by_resource offers every scope the SDK knows, with the
	// application's selected.
	var all []platform.Scope
	for res, infos := range got.AllScopesByResource {
		for _, info := range infos {
			sc := platform.Scope(res + ":" + info.Scope)
			all = append(all, sc)
			want := no
			if slices.Contains(got.Scopes, sc) {
				want = yes
			}
			if info.Selected == nil || *info.Selected != *want || info.Description != sc.Description() {
				t.Errorf("all_scopes_by_resource %s: %+v", sc, info)
			}
		}
	}
	slices.Sort(all)
	if diff := cmp.Diff(platform.Scopes(), all); diff != "" {
		t.Errorf("all_scopes_by_resource against platform.Scopes (-want +got):\n%s", diff)
	}
	// No secret is shown, in any form.
	raw := send(t, srv, http.MethodGet, "/v1/organizations/acme/oauth-applications/"+apps[1].ID, admin(srv), "")
	if strings.Contains(string(raw.body), apps[1].ClientSecret) || strings.Contains(string(raw.body), "secret") {
		t.Errorf("the application shows its secret: %s", raw.body)
	}

	// Another organization's application is not found through acme.
	theirs, err := srv.ClientFor(otherOrgToken(t, srv)).OAuthApplications.List(ctx, &platform.ListOAuthApplicationsParams{Organization: "globex"})
	if err != nil {
		t.Fatal(err)
	}
	if len(theirs.Items) != 1 {
		t.Fatalf("globex lists %d applications", len(theirs.Items))
	}
	for _, tc := range []struct{ org, id string }{{srv.Org(), theirs.Items[0].ID}, {srv.Org(), "nosuchapp123"}} {
		_, err := c.OAuthApplications.Get(ctx, &platform.GetOAuthApplicationParams{Organization: tc.org, ApplicationID: tc.id})
		apiError(t, err, http.StatusNotFound)
		_, err = c.OAuthApplications.ListTokens(ctx, &platform.ListOAuthTokensParams{Organization: tc.org, ApplicationID: tc.id})
		apiError(t, err, http.StatusNotFound)
	}
}

// otherOrgToken returns a token of globex, seeded by otherOrg.
func otherOrgToken(t *testing.T, srv *fake.Server) fake.Token {
	t.Helper()
	tok, err := srv.CreateServiceToken("globex", fake.TokenSpec{Name: "reader", Permissions: []platform.Permission{"read_oauth_applications"}})
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestOAuthTokensListGetDelete(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	mustDB(t, srv, "app")
	srv.Advance(5 * time.Second)
	ctx, c := t.Context(), srv.Client()
	app := oauthApp(t, srv, "https://app.example.com/cb", platform.ScopeUserReadUser, platform.ScopeOrganizationReadOrganization,
		platform.ScopeDatabaseReadDatabase, platform.ScopeBranchReadBranch)
	first := oauthIssue(t, srv, app, fake.Consent{Databases: []string{"acme/app"}, Branches: []string{"acme/app/main"}})
	created := srv.Now()
	srv.Advance(time.Minute)
	second := oauthIssue(t, srv, app, fake.Consent{})
	srv.Advance(time.Minute)
	used := srv.Now()
	if _, err := oauthClient(t, srv, first.AccessToken).Users.GetCurrent(ctx); err != nil {
		t.Fatal(err)
	}

	p := &platform.ListOAuthTokensParams{Organization: srv.Org(), ApplicationID: app.ID}
	page, err := c.OAuthApplications.ListTokens(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 2 || page.TotalCount == nil || *page.TotalCount != 2 {
		t.Fatalf("tokens page: %d items, total %v", len(page.Items), page.TotalCount)
	}
	var ids []string
	for tok, err := range c.OAuthApplications.AllTokens(ctx, p) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, tok.ID)
	}
	if len(ids) != 2 || ids[0] != page.Items[0].ID {
		t.Fatalf("AllTokens: %v", ids)
	}

	got, err := c.OAuthApplications.GetToken(ctx, &platform.GetOAuthTokenParams{Organization: srv.Org(), ApplicationID: app.ID, TokenID: ids[0]})
	if err != nil {
		t.Fatal(err)
	}
	adminID, name := srv.AdminUserID(), "Ada Admin"
	base := srv.URL()
	want := &platform.OAuthToken{
		ID: ids[0], Type: "OauthToken", DisplayName: "Dashboard (Ada Admin)",
		CreatedAt: platform.NewTimestamp(created), UpdatedAt: platform.NewTimestamp(created),
		ExpiresAt:  platform.Ptr(platform.NewTimestamp(created.Add(2592000 * time.Second))),
		LastUsedAt: platform.Ptr(platform.NewTimestamp(used)),
		ActorID:    &adminID, ActorDisplayName: &name, ActorType: platform.Ptr("User"),
		OAuthAccessesByResource: &platform.OAuthAccesses{
			User: platform.OAuthUserAccesses{
				Users:    []platform.OAuthUserResource{{Name: name, ID: adminID}},
				Accesses: []platform.OAuthAccess{{Name: "read_user", Description: platform.ScopeUserReadUser.Description()}},
			},
			Organization: platform.OAuthOrganizationAccesses{
				Organizations: []platform.OAuthOrganizationResource{{Name: "acme", ID: mustOrgID(t, srv), URL: base + "acme"}},
				Accesses:      []platform.OAuthAccess{{Name: "read_organization", Description: platform.ScopeOrganizationReadOrganization.Description()}},
			},
			Database: platform.OAuthDatabaseAccesses{
				Databases: []platform.OAuthDatabaseResource{{Name: "app", ID: mustDBID(t, srv, "app"), Organization: "acme", URL: base + "acme/app"}},
				Accesses:  []platform.OAuthAccess{{Name: "read_database", Description: platform.ScopeDatabaseReadDatabase.Description()}},
			},
			Branch: platform.OAuthBranchAccesses{
				Branches: []platform.OAuthBranchResource{{Name: "main", ID: mustBranchID(t, srv, "app", "main"), Database: "app", Organization: "acme", URL: base + "acme/app/main"}},
				Accesses: []platform.OAuthAccess{{Name: "read_branch", Description: platform.ScopeBranchReadBranch.Description()}},
			},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("token (-want +got):\n%s", diff)
	}
	// The list shows the same, and never a secret.
	raw := send(t, srv, http.MethodGet, "/v1/organizations/acme/oauth-applications/"+app.ID+"/tokens", admin(srv), "")
	for _, secret := range []string{first.AccessToken, first.RefreshToken, second.AccessToken, second.RefreshToken} {
		if strings.Contains(string(raw.body), secret) {
			t.Errorf("the token list shows a secret: %s", raw.body)
		}
	}
	var envelope struct {
		Data []map[string]any `json:"data"`
	}
	if err := json.Unmarshal(raw.body, &envelope); err != nil {
		t.Fatal(err)
	}
	for _, tok := range envelope.Data {
		if v, ok := tok["token"]; !ok || v != nil {
			t.Errorf("token field %v present %t, want present and null", v, ok)
		}
	}

	// A token is not found through an application that does not exist.
	_, err = c.OAuthApplications.GetToken(ctx, &platform.GetOAuthTokenParams{Organization: srv.Org(), ApplicationID: "nope", TokenID: ids[0]})
	apiError(t, err, http.StatusNotFound)
	apiError(t, c.OAuthApplications.DeleteToken(ctx, &platform.DeleteOAuthTokenParams{Organization: srv.Org(), ApplicationID: "nope", TokenID: ids[0]}), http.StatusNotFound)

	// Deleting the first revokes it; the second lives on.
	del := &platform.DeleteOAuthTokenParams{Organization: srv.Org(), ApplicationID: app.ID, TokenID: ids[0]}
	if err := c.OAuthApplications.DeleteToken(ctx, del); err != nil {
		t.Fatal(err)
	}
	apiError(t, c.OAuthApplications.DeleteToken(ctx, del), http.StatusNotFound)
	_, err = c.OAuthApplications.GetToken(ctx, del)
	apiError(t, err, http.StatusNotFound)
	_, err = oauthClient(t, srv, first.AccessToken).Users.GetCurrent(ctx)
	apiError(t, err, http.StatusUnauthorized)
	if _, err := oauthClient(t, srv, second.AccessToken).Users.GetCurrent(ctx); err != nil {
		t.Errorf("the other token: %v", err)
	}
	appNow, err := c.OAuthApplications.Get(ctx, &platform.GetOAuthApplicationParams{Organization: srv.Org(), ApplicationID: app.ID})
	if err != nil {
		t.Fatal(err)
	}
	if appNow.Tokens != 1 {
		t.Errorf("tokens = %d after a delete, want 1", appNow.Tokens)
	}
}

// mustOrgID is the ID of srv's organization.
func mustOrgID(t *testing.T, srv *fake.Server) string {
	t.Helper()
	o, err := srv.Client().Organizations.Get(t.Context(), &platform.GetOrganizationParams{Organization: srv.Org()})
	if err != nil {
		t.Fatal(err)
	}
	return o.ID
}

// mustDBID is the ID of a database of srv's organization.
func mustDBID(t *testing.T, srv *fake.Server, db string) string {
	t.Helper()
	d, err := srv.Client().Databases.Get(t.Context(), &platform.GetDatabaseParams{Organization: srv.Org(), Database: db})
	if err != nil {
		t.Fatal(err)
	}
	return d.ID
}

// mustBranchID is the ID of a branch of srv's organization.
func mustBranchID(t *testing.T, srv *fake.Server, db, branch string) string {
	t.Helper()
	b, err := srv.Client().Branches.Get(t.Context(), &platform.GetBranchParams{Organization: srv.Org(), Database: db, Branch: branch})
	if err != nil {
		t.Fatal(err)
	}
	return b.ID
}

func TestOAuthCreateToken(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	ctx, c := t.Context(), srv.Client()
	app := oauthApp(t, srv, "https://app.example.com/cb", platform.ScopeUserReadUser)
	code := oauthCode(t, srv, app, fake.Consent{})
	p := &platform.CreateOAuthTokenParams{
		Organization: srv.Org(), ApplicationID: app.ID, ClientID: app.ClientID, ClientSecret: app.ClientSecret,
		GrantType: platform.OAuthGrantAuthorizationCode, Code: &code, RedirectURI: &app.RedirectURI,
	}
	tok, err := c.OAuthApplications.CreateToken(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if tok.Token == nil || tok.PlainTextRefreshToken == nil || tok.ExpiresAt == nil || *tok.ActorID != srv.AdminUserID() {
		t.Fatalf("created token %+v: want its secrets, expiry and actor", tok)
	}
	if _, err := oauthClient(t, srv, *tok.Token).Users.GetCurrent(ctx); err != nil {
		t.Fatalf("the created access token: %v", err)
	}
	// The code is used up, here as at the token endpoint.
	_, err = c.OAuthApplications.CreateToken(ctx, p)
	apiError(t, err, http.StatusUnprocessableEntity, "code")

	// Refresh: the same token, new secrets; the old refresh token is gone.
	code2 := oauthCode(t, srv, app, fake.Consent{})
	issued, err := c.OAuthApplications.CreateToken(ctx, &platform.CreateOAuthTokenParams{
		Organization: srv.Org(), ApplicationID: app.ID, ClientID: app.ClientID, ClientSecret: app.ClientSecret,
		GrantType: platform.OAuthGrantAuthorizationCode, Code: &code2, RedirectURI: &app.RedirectURI,
	})
	if err != nil {
		t.Fatal(err)
	}
	srv.Advance(time.Minute)
	refresh := &platform.CreateOAuthTokenParams{
		Organization: srv.Org(), ApplicationID: app.ID, ClientID: app.ClientID, ClientSecret: app.ClientSecret,
		GrantType: platform.OAuthGrantRefreshToken, RefreshToken: issued.PlainTextRefreshToken,
	}
	renewed, err := c.OAuthApplications.CreateToken(ctx, refresh)
	if err != nil {
		t.Fatal(err)
	}
	if renewed.ID != issued.ID || *renewed.Token == *issued.Token || *renewed.PlainTextRefreshToken == *issued.PlainTextRefreshToken {
		t.Errorf("refresh: id %s -> %s, token or refresh token unchanged", issued.ID, renewed.ID)
	}
	if renewed.ExpiresAt.Time.Sub(issued.ExpiresAt.Time) != time.Minute {
		t.Errorf("expires_at %s -> %s, want a minute later", issued.ExpiresAt, renewed.ExpiresAt)
	}
	_, err = c.OAuthApplications.CreateToken(ctx, refresh)
	apiError(t, err, http.StatusUnprocessableEntity, "refresh_token")
}

func TestOAuthCreateTokenRefused(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	ctx, c := t.Context(), srv.Client()
	app := oauthApp(t, srv, "https://app.example.com/cb", platform.ScopeUserReadUser)
	other := oauthApp(t, srv, "https://app.example.com/cb", platform.ScopeUserReadUser)
	code := oauthCode(t, srv, app, fake.Consent{})
	good := func() *platform.CreateOAuthTokenParams {
		return &platform.CreateOAuthTokenParams{
			Organization: srv.Org(), ApplicationID: app.ID, ClientID: app.ClientID, ClientSecret: app.ClientSecret,
			GrantType: platform.OAuthGrantAuthorizationCode, Code: platform.Ptr(code), RedirectURI: platform.Ptr(app.RedirectURI),
		}
	}
	tests := []struct {
		name   string
		change func(*platform.CreateOAuthTokenParams)
		status int
		word   string
	}{
		{"no client_id", func(p *platform.CreateOAuthTokenParams) { p.ClientID = "" }, 422, "client_id"},
		{"no client_secret", func(p *platform.CreateOAuthTokenParams) { p.ClientSecret = "" }, 422, "client_secret"},
		{"no grant_type", func(p *platform.CreateOAuthTokenParams) { p.GrantType = "" }, 422, "grant_type"},
		{"wrong secret", func(p *platform.CreateOAuthTokenParams) { p.ClientSecret += "x" }, 422, "client_secret"},
		{"another application's client", func(p *platform.CreateOAuthTokenParams) {
			p.ClientID, p.ClientSecret = other.ClientID, other.ClientSecret
		}, 422, "client_id"},
		{"the other application's path", func(p *platform.CreateOAuthTokenParams) { p.ApplicationID = other.ID }, 422, "client_id"},
		{"unknown grant_type", func(p *platform.CreateOAuthTokenParams) { p.GrantType = "password" }, 422, "grant_type"},
		{"no code", func(p *platform.CreateOAuthTokenParams) { p.Code = nil }, 422, "code"},
		{"no redirect_uri", func(p *platform.CreateOAuthTokenParams) { p.RedirectURI = nil }, 422, "redirect_uri"},
		{"other redirect_uri", func(p *platform.CreateOAuthTokenParams) { p.RedirectURI = platform.Ptr("https://app.example.com/x") }, 422, "redirect_uri"},
		{"unknown code", func(p *platform.CreateOAuthTokenParams) { p.Code = platform.Ptr("code_nope") }, 422, "code"},
		{"unknown application", func(p *platform.CreateOAuthTokenParams) { p.ApplicationID = "nosuchapp123" }, 404, ""},
	}
	for _, tc := range tests {
		p := good()
		tc.change(p)
		_, err := c.OAuthApplications.CreateToken(ctx, p)
		if tc.word == "" {
			apiError(t, err, tc.status)
			continue
		}
		apiError(t, err, tc.status, tc.word)
	}
	// None used the code, and the permission is checked first.
	reader := mustToken(t, srv, fake.TokenSpec{Name: "reader", Permissions: []platform.Permission{"read_oauth_tokens", "read_oauth_applications"}})
	_, err := srv.ClientFor(reader).OAuthApplications.CreateToken(ctx, good())
	apiError(t, err, http.StatusNotFound)
	if _, err := c.OAuthApplications.CreateToken(ctx, good()); err != nil {
		t.Fatalf("the code after refused requests: %v", err)
	}
}

// TestOAuthApplicationChosenCredentials creates an application with the
// client ID and secret a tool has built in, and signs the tool in with
// them unchanged, through the Go API and the control surface.
func TestOAuthApplicationChosenCredentials(t *testing.T) {
	t.Parallel()
	const builtInID, builtInSecret = "cli-Built_in.ID-0123456789", "cli-secret~9876543210"
	spec := fake.OAuthAppSpec{
		Name: "Platform CLI", Domain: "https://cli.example.com", RedirectURI: "https://cli.example.com/cb",
		Scopes: cliScopes, ClientID: builtInID, ClientSecret: builtInSecret,
	}
	for _, via := range []string{"Go", "control"} {
		t.Run(via, func(t *testing.T) {
			t.Parallel()
			srv := fake.NewServer(t)
			var app fake.OAuthApp
			if via == "Go" {
				var err error
				if app, err = srv.CreateOAuthApplication(srv.Org(), spec); err != nil {
					t.Fatal(err)
				}
			} else {
				app = fake.OAuthApp(decode[struct {
					ID           string `json:"id"`
					ClientID     string `json:"client_id"`
					ClientSecret string `json:"client_secret"`
					RedirectURI  string `json:"redirect_uri"`
				}](t, controlCall(t, srv, "POST", "organizations/"+srv.Org()+"/oauth-applications", controlJSON(t, map[string]any{
					"name": spec.Name, "domain": spec.Domain, "redirect_uri": spec.RedirectURI, "scopes": spec.Scopes,
					"client_id": builtInID, "client_secret": builtInSecret,
				}), http.StatusCreated)))
			}
			if app.ClientID != builtInID || app.ClientSecret != builtInSecret {
				t.Fatalf("credentials %q / %q, want the chosen ones", app.ClientID, app.ClientSecret)
			}
			// The tool's sign-in, as it sends it: its scopes, its client ID,
			// auto-approval set by the test.
			srv.SetAutoApprove(&fake.Consent{})
			status, da := deviceStart(t, srv, builtInID, url.Values{"scope": {cliScope}, "client_secret": {builtInSecret}})
			if status != http.StatusOK {
				t.Fatalf("authorize_device: %d %+v", status, da)
			}
			tok := wantPoll(t, srv, builtInID, da.DeviceCode, "")
			status, refreshed := oauthToken(t, srv, "form", refreshParams(app, tok.RefreshToken))
			if status != http.StatusOK {
				t.Fatalf("refresh with the chosen secret: %d %+v", status, refreshed)
			}
			// A second application with the same client ID is refused,
			// and nothing is created.
			again := spec
			again.Name = "Copy"
			_, err := srv.CreateOAuthApplication(srv.Org(), again)
			if err == nil || !strings.Contains(err.Error(), builtInID) || !strings.Contains(err.Error(), "already") {
				t.Errorf("a duplicate client ID: %v, want it refused naming the ID", err)
			}
			w := controlCall(t, srv, "POST", "organizations/"+srv.Org()+"/oauth-applications", controlJSON(t, map[string]any{
				"name": "Copy", "domain": spec.Domain, "redirect_uri": spec.RedirectURI, "scopes": spec.Scopes, "client_id": builtInID,
			}), http.StatusUnprocessableEntity)
			if !strings.Contains(string(w.body), builtInID) {
				t.Errorf("the control surface's refusal %s does not name the client ID", w.body)
			}
			apps, err := srv.Client().OAuthApplications.List(t.Context(), &platform.ListOAuthApplicationsParams{Organization: srv.Org()})
			if err != nil {
				t.Fatal(err)
			}
			if len(apps.Items) != 1 || apps.Items[0].ClientID != builtInID {
				t.Errorf("applications %+v, want the one with the chosen client ID", apps.Items)
			}
		})
	}
}

func TestOAuthApplicationChosenCredentialsRefused(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	for _, bad := range []string{"with space", "tab\tinside", "é", strings.Repeat("x", 201)} {
		for _, field := range []string{"ClientID", "ClientSecret"} {
			spec := fake.OAuthAppSpec{Name: "x", Domain: "https://a.example.com", RedirectURI: "https://a.example.com/", Scopes: []platform.Scope{platform.ScopeUserReadUser}}
			if field == "ClientID" {
				spec.ClientID = bad
			} else {
				spec.ClientSecret = bad
			}
			if _, err := srv.CreateOAuthApplication(srv.Org(), spec); err == nil || !strings.Contains(err.Error(), field) {
				t.Errorf("%s %q: %v, want it refused naming %s", field, bad, err, field)
			}
		}
	}
}

// TestOAuthTokenAccessesDropDeletedResources: a token's accesses stop
// listing a database deleted (with its branches) or a branch deleted; a
// database re-created under the name is not covered.
func TestOAuthTokenAccessesDropDeletedResources(t *testing.T) {
	t.Parallel()
	type listed struct{ Databases, Branches []string }
	tests := []struct {
		name   string
		delete func(t *testing.T, srv *fake.Server)
		want   listed
	}{
		{"nothing deleted", func(*testing.T, *fake.Server) {}, listed{[]string{"app", "other"}, []string{"app/dev", "app/main", "other/main"}}},
		{"a branch deleted", func(t *testing.T, srv *fake.Server) {
			if err := srv.Client().Branches.Delete(t.Context(), &platform.DeleteBranchParams{Organization: srv.Org(), Database: "app", Branch: "dev"}); err != nil {
				t.Fatal(err)
			}
		}, listed{[]string{"app", "other"}, []string{"app/main", "other/main"}}},
		{"a database deleted and re-created", func(t *testing.T, srv *fake.Server) {
			if err := srv.Client().Databases.Delete(t.Context(), &platform.DeleteDatabaseParams{Organization: srv.Org(), Database: "app"}); err != nil {
				t.Fatal(err)
			}
			mustDB(t, srv, "app")
		}, listed{[]string{"other"}, []string{"other/main"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := fake.NewServer(t)
			mustDB(t, srv, "app")
			mustDB(t, srv, "other")
			srv.Advance(5 * time.Second)
			if _, err := srv.Client().Branches.Create(t.Context(), &platform.CreateBranchParams{Organization: srv.Org(), Database: "app", Name: "dev", ParentBranch: "main"}); err != nil {
				t.Fatal(err)
			}
			srv.Advance(5 * time.Second)
			app := oauthApp(t, srv, "https://app.example.com/cb", platform.ScopeDatabaseReadDatabase, platform.ScopeBranchReadBranch)
			oauthIssue(t, srv, app, fake.Consent{Databases: []string{"acme/app", "acme/other"}, Branches: []string{"acme/app/main", "acme/app/dev", "acme/other/main"}})
			tt.delete(t, srv)
			page, err := srv.Client().OAuthApplications.ListTokens(t.Context(), &platform.ListOAuthTokensParams{Organization: srv.Org(), ApplicationID: app.ID})
			if err != nil || len(page.Items) != 1 {
				t.Fatalf("tokens: %v %v", page, err)
			}
			var got listed
			acc := page.Items[0].OAuthAccessesByResource
			for _, d := range acc.Database.Databases {
				got.Databases = append(got.Databases, d.Name)
			}
			for _, b := range acc.Branch.Branches {
				got.Branches = append(got.Branches, b.Database+"/"+b.Name)
			}
			slices.Sort(got.Databases)
			slices.Sort(got.Branches)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("accesses (-want +got):\n%s", diff)
			}
		})
	}
}
