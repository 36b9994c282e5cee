package platform_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
)

// oauthGolden reads a golden file, which doubles as a wire response.
func oauthGolden(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "golden", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// oauthListJSON wraps items in a list envelope.
func oauthListJSON(items string) string {
	return `{"type":"list","current_page":1,"per_page":25,"next_page":null,"next_page_url":null,
		"prev_page":null,"prev_page_url":null,"total_count":1,"total_pages":1,"data":[` + items + `]}`
}

func TestOAuthApplicationsWire(t *testing.T) {
	t.Parallel()
	app, tok := oauthGolden(t, "oauth_application.json"), oauthGolden(t, "oauth_token.json")
	const base = "/v1/organizations/ac%20me/oauth-applications"
	tests := []struct {
		name      string
		response  string
		status    int
		call      func(context.Context, *platform.Client) (any, error)
		method    string
		path      string
		query     url.Values
		body      string
		wantValue func(any) string // a fact of the decoded value, "" when fine
	}{
		{
			name: "List", response: oauthListJSON(app), status: 200,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.OAuthApplications.List(ctx, &platform.ListOAuthApplicationsParams{Organization: "ac me", ListParams: platform.ListParams{Page: 2, PerPage: 10}})
			},
			method: "GET", path: base, query: url.Values{"page": {"2"}, "per_page": {"10"}},
			wantValue: func(v any) string {
				p := v.(*platform.Page[platform.OAuthApplication])
				if len(p.Items) != 1 || p.Items[0].ClientID != "app_k3j4h5g6f7d8s9a0q1w2" || *p.TotalCount != 1 {
					return "page not decoded"
				}
				return ""
			},
		},
		{
			name: "Get", response: app, status: 200,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.OAuthApplications.Get(ctx, &platform.GetOAuthApplicationParams{Organization: "ac me", ApplicationID: "oa/1"})
			},
			method: "GET", path: base + "/oa%2F1",
			wantValue: func(v any) string {
				a := v.(*platform.OAuthApplication)
				want := platform.ScopeList{platform.ScopeUserReadUser, platform.ScopeOrganizationReadDatabases, platform.ScopeBranchWriteBranch}
				switch {
				case !slices.Equal(a.Scopes, want):
					return "scopes " + a.Scopes.String()
				case !a.RequiresOrgScope || a.Tokens != 2 || a.Domain != "https://dash.example.com":
					return "fields not decoded"
				case len(a.AllScopesByResource["organization"]) != 2 || !a.AllScopesByResource["organization"][1].Admin || *a.AllScopesByResource["organization"][1].Selected:
					return "all_scopes_by_resource not decoded"
				}
				return ""
			},
		},
		{
			name: "ListTokens", response: oauthListJSON(tok), status: 200,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.OAuthApplications.ListTokens(ctx, &platform.ListOAuthTokensParams{Organization: "ac me", ApplicationID: "oa1", ListParams: platform.ListParams{PerPage: 5}})
			},
			method: "GET", path: base + "/oa1/tokens", query: url.Values{"per_page": {"5"}},
			wantValue: func(v any) string {
				if p := v.(*platform.Page[platform.OAuthToken]); len(p.Items) != 1 || p.Items[0].ID != "ot9z8y7x6w5v" {
					return "page not decoded"
				}
				return ""
			},
		},
		{
			name: "GetToken", response: tok, status: 200,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.OAuthApplications.GetToken(ctx, &platform.GetOAuthTokenParams{Organization: "ac me", ApplicationID: "oa1", TokenID: "ot 9"})
			},
			method: "GET", path: base + "/oa1/tokens/ot%209",
			wantValue: func(v any) string {
				tk := v.(*platform.OAuthToken)
				acc := tk.OAuthAccessesByResource
				switch {
				case *tk.ActorID != "usr000000001" || tk.LastUsedAt != nil || tk.Name != nil:
					return "actor or nulls not decoded"
				case acc == nil || acc.Branch.Branches[0].Database != "app" || acc.Organization.Accesses[0].Name != "read_databases" || acc.User.Users[0].Name != "Ada Admin":
					return "accesses not decoded"
				}
				return ""
			},
		},
		{
			name: "DeleteToken", status: 204,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return nil, c.OAuthApplications.DeleteToken(ctx, &platform.DeleteOAuthTokenParams{Organization: "ac me", ApplicationID: "oa1", TokenID: "ot9"})
			},
			method: "DELETE", path: base + "/oa1/tokens/ot9",
		},
		{
			name: "CreateToken with a code", response: tok, status: 200,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.OAuthApplications.CreateToken(ctx, &platform.CreateOAuthTokenParams{
					Organization: "ac me", ApplicationID: "oa1", ClientID: "app_1", ClientSecret: "secret_1",
					GrantType: platform.OAuthGrantAuthorizationCode, Code: platform.Ptr("code_1"), RedirectURI: platform.Ptr("https://dash.example.com/cb"),
				})
			},
			method: "POST", path: base + "/oa1/token",
			body: `{"client_id":"app_1","client_secret":"secret_1","grant_type":"authorization_code","code":"code_1","redirect_uri":"https://dash.example.com/cb"}`,
			wantValue: func(v any) string {
				if tk := v.(*platform.OAuthToken); tk.Token == nil || *tk.PlainTextRefreshToken != "ort_0123456789abcdefghijklmnopqrstuvwxyz0123" {
					return "secrets not decoded"
				}
				return ""
			},
		},
		{
			name: "CreateToken with a refresh token", response: tok, status: 200,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.OAuthApplications.CreateToken(ctx, &platform.CreateOAuthTokenParams{
					Organization: "ac me", ApplicationID: "oa1", ClientID: "app_1", ClientSecret: "secret_1",
					GrantType: platform.OAuthGrantRefreshToken, RefreshToken: platform.Ptr("ort_1"),
				})
			},
			method: "POST", path: base + "/oa1/token",
			body: `{"client_id":"app_1","client_secret":"secret_1","grant_type":"refresh_token","refresh_token":"ort_1"}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWire(t, tc.status, tc.response)
			v, err := tc.call(t.Context(), w.client)
			if err != nil {
				t.Fatal(err)
			}
			checkRequest(t, w.only(), wantRequest{Method: tc.method, Path: tc.path, RawQuery: tc.query.Encode(), Body: tc.body})
			if tc.wantValue != nil {
				if msg := tc.wantValue(v); msg != "" {
					t.Error(msg)
				}
			}
		})
	}
}

func TestOAuthApplicationsWireMissingPathValues(t *testing.T) {
	t.Parallel()
	w := newWire(t, 200, "{}")
	ctx, s := t.Context(), w.client.OAuthApplications
	calls := map[string]func() error{
		"List": func() error { _, err := s.List(ctx, nil); return err },
		"All":  func() error { return firstErr(s.All(ctx, &platform.ListOAuthApplicationsParams{})) },
		"Get": func() error {
			_, err := s.Get(ctx, &platform.GetOAuthApplicationParams{Organization: "acme"})
			return err
		},
		"ListTokens": func() error {
			_, err := s.ListTokens(ctx, &platform.ListOAuthTokensParams{Organization: "acme"})
			return err
		},
		"AllTokens": func() error { return firstErr(s.AllTokens(ctx, &platform.ListOAuthTokensParams{ApplicationID: "a"})) },
		"GetToken": func() error {
			_, err := s.GetToken(ctx, &platform.GetOAuthTokenParams{Organization: "acme", ApplicationID: "a"})
			return err
		},
		"DeleteToken": func() error {
			return s.DeleteToken(ctx, &platform.DeleteOAuthTokenParams{Organization: "acme", TokenID: "t"})
		},
		"CreateToken": func() error {
			_, err := s.CreateToken(ctx, &platform.CreateOAuthTokenParams{ApplicationID: "a"})
			return err
		},
		"per_page": func() error {
			_, err := s.List(ctx, &platform.ListOAuthApplicationsParams{Organization: "acme", ListParams: platform.ListParams{PerPage: 101}})
			return err
		},
	}
	for name, call := range calls {
		var argErr *platform.ArgError
		if err := call(); !errors.As(err, &argErr) {
			t.Errorf("%s: err = %v, want an *ArgError", name, err)
		}
	}
	if n := len(w.requests()); n != 0 {
		t.Errorf("%d requests sent, want none", n)
	}
}

// firstErr is the first error an iterator yields.
func firstErr[T any](seq func(func(*T, error) bool)) error {
	for _, err := range seq {
		if err != nil {
			return err
		}
	}
	return nil
}

func TestOAuthApplicationsWireErrors(t *testing.T) {
	t.Parallel()
	w := newWire(t, http.StatusUnprocessableEntity, `{"code":"unprocessable","message":"code was already used"}`)
	_, err := w.client.OAuthApplications.CreateToken(t.Context(), &platform.CreateOAuthTokenParams{Organization: "acme", ApplicationID: "a", GrantType: platform.OAuthGrantAuthorizationCode})
	if !errors.Is(err, platform.ErrUnprocessable) || !strings.Contains(err.Error(), "already used") {
		t.Errorf("err = %v, want ErrUnprocessable with the message", err)
	}
}

func TestScopes(t *testing.T) {
	t.Parallel()
	all := platform.Scopes()
	if !slices.IsSorted(all) || len(all) == 0 {
		t.Fatalf("Scopes() = %v: want a sorted, non-empty list", all)
	}
	resources := []string{platform.ScopeResourceUser, platform.ScopeResourceOrganization, platform.ScopeResourceDatabase, platform.ScopeResourceBranch}
	for _, sc := range all {
		if !slices.Contains(resources, sc.Resource()) || sc.Name() == "" || string(sc) != sc.Resource()+":"+sc.Name() {
			t.Errorf("%q: resource %q, name %q", sc, sc.Resource(), sc.Name())
		}
		if sc.Description() == "" {
			t.Errorf("%s has no description", sc)
		}
	}
	if s := platform.Scope("read_user"); s.Resource() != "" || s.Name() != "read_user" || s.Description() != "" {
		t.Errorf("an unqualified name: resource %q, name %q, description %q", s.Resource(), s.Name(), s.Description())
	}
	// The spec's examples.
	for _, name := range []string{"read_user", "read_databases", "write_branches"} {
		if !slices.ContainsFunc(all, func(s platform.Scope) bool { return s.Name() == name }) {
			t.Errorf("no scope named %s", name)
		}
	}
}

// TestScopesCoverOperations checks that platform.Scopes is exactly the
// scope column of operations.tsv, but for ScopeOrganizationAdmin, which no
// application asks for.
func TestScopesCoverOperations(t *testing.T) {
	t.Parallel()
	var want []platform.Scope
	for _, row := range operationRows(t) {
		if row[6] == "-" {
			continue
		}
		for rs := range strings.FieldsSeq(row[6]) {
			res, names, _ := strings.Cut(rs, ":")
			for n := range strings.SplitSeq(names, ",") {
				if s := platform.Scope(res + ":" + n); s != platform.ScopeOrganizationAdmin && !slices.Contains(want, s) {
					want = append(want, s)
				}
			}
		}
	}
	slices.Sort(want)
	if diff := cmp.Diff(want, platform.Scopes()); diff != "" {
		t.Errorf("Scopes() against operations.tsv (-tsv +sdk):\n%s", diff)
	}
}

func TestScopeListJSON(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		json string
		list platform.ScopeList
	}{
		{`"user:read_user organization:read_databases"`, platform.ScopeList{platform.ScopeUserReadUser, platform.ScopeOrganizationReadDatabases}},
		{`""`, platform.ScopeList{}},
	} {
		var got platform.ScopeList
		if err := json.Unmarshal([]byte(tc.json), &got); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.list, got); diff != "" {
			t.Errorf("decoding %s (-want +got):\n%s", tc.json, diff)
		}
		again, err := json.Marshal(got)
		if err != nil {
			t.Fatal(err)
		}
		if string(again) != tc.json {
			t.Errorf("encoding: %s, want %s", again, tc.json)
		}
	}
	if got := platform.ParseScopes("  user:read_user \t branch:read_branch "); !slices.Equal(got, platform.ScopeList{platform.ScopeUserReadUser, platform.ScopeBranchReadBranch}) {
		t.Errorf("ParseScopes with extra spaces: %v", got)
	}
	var l platform.ScopeList
	if err := json.Unmarshal([]byte(`["user:read_user"]`), &l); err == nil {
		t.Error("an array decoded into a ScopeList")
	}
}
