package fake_test

import (
	"maps"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// tsvOperation is a row of operations.tsv.
type tsvOperation struct {
	group, method, path string
	status              int
	perms               []string            // nil: no permission needed ("-")
	scopes              map[string][]string // resource -> scopes; nil: none listed ("-")
}

// loadOperations reads the package's copy of operations.tsv.
func loadOperations(t testing.TB) map[string]tsvOperation {
	t.Helper()
	data, err := os.ReadFile("operations.tsv")
	if err != nil {
		t.Fatal(err)
	}
	ops := map[string]tsvOperation{}
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Split(line, "\t")
		if i == 0 {
			continue
		}
		if len(f) != 7 {
			t.Fatalf("operations.tsv line %d has %d columns", i+1, len(f))
		}
		status, err := strconv.Atoi(f[4])
		if err != nil {
			t.Fatalf("operations.tsv line %d: status %q", i+1, f[4])
		}
		op := tsvOperation{group: f[0], method: f[1], path: f[2], status: status}
		if f[5] != "-" {
			op.perms = strings.Fields(f[5])
		}
		if f[6] != "-" {
			op.scopes = map[string][]string{}
			for rs := range strings.FieldsSeq(f[6]) {
				res, list, _ := strings.Cut(rs, ":")
				op.scopes[res] = strings.Split(list, ",")
			}
		}
		ops[f[3]] = op
	}
	return ops
}

// TestOperationsTablePermissions checks the permission names of
// operations.tsv against the fake's: every one a token can hold.
func TestOperationsTablePermissions(t *testing.T) {
	t.Parallel()
	all := permissionNames()
	for name, op := range loadOperations(t) {
		for _, p := range op.perms {
			if !slices.Contains(all, p) {
				t.Errorf("%s needs %s, which AllPermissions lacks", name, p)
			}
		}
	}
	if !slices.IsSorted(all) {
		t.Error("AllPermissions is not sorted")
	}
}

// badCredentials are Authorization headers that must get 401, built for a
// server: missing, malformed, unknown, wrong secret; a service token
// deleted through the seeding API, one deleted through the API's
// delete_service_token, one expired; an OAuth access token expired, one
// revoked through delete_oauth_token. Before breaking them, it checks that
// the tokens it breaks worked. It moves srv's clock past the longer of a
// second and the OAuth access tokens' lifetime.
func badCredentials(t *testing.T, srv *fake.Server) map[string]string {
	t.Helper()
	ctx, c := t.Context(), srv.Client()
	admin := srv.AdminToken()
	everything := fake.TokenSpec{Permissions: fake.AllPermissions()}
	seeded := func(name string, ttl time.Duration) fake.Token {
		spec := everything
		spec.Name, spec.TTL = name, ttl
		return mustToken(t, srv, spec)
	}
	expired, revoked, deleted := seeded("expired", time.Second), seeded("revoked", 0), seeded("deleted", 0)
	consent := fake.Consent{Organizations: []string{srv.Org()}}
	expiredApp := oauthApp(t, srv, "https://app.example.com/callback", platform.Scopes()...)
	expiredOAuth := oauthIssue(t, srv, expiredApp, consent)
	revokedApp := oauthApp(t, srv, "https://app.example.com/callback", platform.Scopes()...)
	revokedOAuth := oauthIssue(t, srv, revokedApp, consent)
	breaking := map[string]string{
		"expired": expired.Authorization(), "revoked": revoked.Authorization(), "deleted": deleted.Authorization(),
		"expired oauth": bearer(expiredOAuth.AccessToken), "revoked oauth": bearer(revokedOAuth.AccessToken),
	}
	for label, auth := range breaking {
		if r := send(t, srv, http.MethodGet, "/v1/user", auth, ""); r.status != http.StatusOK {
			t.Fatalf("the %s credential does not work before it is broken: status %d; body %s", label, r.status, r.body)
		}
	}

	if err := srv.DeleteServiceToken(revoked.ID); err != nil {
		t.Fatal(err)
	}
	if err := c.ServiceTokens.Delete(ctx, &platform.DeleteServiceTokenParams{Organization: srv.Org(), ID: deleted.ID}); err != nil {
		t.Fatal(err)
	}
	if err := c.OAuthApplications.DeleteToken(ctx, &platform.DeleteOAuthTokenParams{
		Organization: srv.Org(), ApplicationID: revokedApp.ID, TokenID: oauthOnlyTokenID(t, srv, revokedApp),
	}); err != nil {
		t.Fatal(err)
	}
	srv.Advance(max(time.Second, time.Duration(expiredOAuth.ExpiresIn)*time.Second))

	creds := map[string]string{
		"missing":            "",
		"no colon":           admin.ID + admin.Secret,
		"bearer":             "Bearer " + admin.Secret,
		"empty bearer":       "Bearer ",
		"empty id":           ":" + admin.Secret,
		"empty secret":       admin.ID + ":",
		"space in id":        "Token " + admin.ID + ":" + admin.Secret,
		"unknown id":         "nosuchtoken1:" + admin.Secret,
		"wrong secret":       admin.ID + ":" + admin.Secret + "x",
		"secret of another":  expired.ID + ":" + admin.Secret,
		"secret with prefix": admin.ID + ":" + admin.Secret[:len(admin.Secret)-1],
		"refresh as access":  bearer(expiredOAuth.RefreshToken),
	}
	maps.Copy(creds, breaking)
	return creds
}

// authPublic are the operations that need no credentials.
var authPublic = []string{"list_public_regions"}

// authForeignTokens seeds the organization globex in w, with a ready
// database named app like acme's, and two tokens holding every permission:
// its admin Olga's, and one that Bob, a member of acme too, created there.
// It returns their Authorization headers.
func authForeignTokens(t *testing.T, w *opWorld) map[string]string {
	t.Helper()
	olgas := otherOrg(t, w.srv, "globex")
	if _, err := w.srv.ClientFor(olgas).Databases.Create(t.Context(), &platform.CreateDatabaseParams{Organization: "globex", Name: drDB, ClusterSize: "PS_10"}); err != nil {
		t.Fatal(err)
	}
	w.srv.Advance(5 * time.Second)
	if err := w.srv.AddMember("globex", w.bob, platform.RoleAdmin); err != nil {
		t.Fatal(err)
	}
	bobs, err := w.srv.CreateServiceToken("globex", fake.TokenSpec{Name: "bob", CreatedBy: w.bob, Permissions: fake.AllPermissions()})
	if err != nil {
		t.Fatal(err)
	}
	return map[string]string{"globex admin's": olgas.Authorization(), "globex token of an acme member": bobs.Authorization()}
}

// TestUnauthorized sends every operation that needs credentials with bad
// ones (badCredentials): each gets 401 unauthorized. An operation of an
// organization also gets the tokens of another organization, which hold
// every permission there: each gets 404, as the organization does not
// exist for them. Nothing changes; the same request with the admin token
// then succeeds, so that it is the credentials that were refused.
func TestUnauthorized(t *testing.T) {
	t.Parallel()
	ops := loadOperations(t)
	// OAuth access tokens live a second, so that badCredentials' expiring
	// one leaves the world as it was.
	tm := fake.DefaultTimings()
	tm.OAuthAccessToken = time.Second
	// The credentials are made once, in a world each operation's is
	// restored from.
	w := newOpWorld(t, fake.WithTimings(tm))
	creds := badCredentials(t, w.srv)
	foreign := authForeignTokens(t, w)
	base := opTemplateOf(t, w, fake.WithTimings(tm))
	for _, name := range opOperations(t, func(tsvOperation) bool { return true }) {
		if slices.Contains(authPublic, name) {
			continue
		}
		op := ops[name]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := base.restore(t, fake.NewServer(t, base.opts...))
			call := opFixtures[name](w, "")
			path := call.path(t, w, op)
			before := opWorldState(t, w.srv)
			for label, auth := range creds {
				r := opSend(t, w.srv, op.method, path, auth, call.body)
				if r.status != http.StatusUnauthorized {
					t.Errorf("%s: status %d, want 401; body %s", label, r.status, r.body)
					continue
				}
				wantError(t, r, http.StatusUnauthorized, "unauthorized")
			}
			if strings.Contains(op.path, "{organization}") {
				for label, auth := range foreign {
					r := opSend(t, w.srv, op.method, path, auth, call.body)
					if r.status != http.StatusNotFound {
						t.Errorf("%s token: status %d, want 404; body %s", label, r.status, r.body)
						continue
					}
					if e := wantError(t, r, http.StatusNotFound, "not_found"); e.Message != "Not Found" {
						t.Errorf("%s token: message %q, want the plain Not Found of a missing resource", label, e.Message)
					}
				}
			}
			if diff := worldStateDiff(t, before, opWorldState(t, w.srv)); diff != "" {
				t.Errorf("refused requests changed the world (-before +after):\n%s", diff)
			}
			wantStatus(t, opSend(t, w.srv, op.method, path, admin(w.srv), call.body), op.status)
		})
	}
}

func TestUnauthorizedBeforeNotFound(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	for _, path := range []string{
		"/v1/organizations/nope",
		"/v1/organizations/acme/databases/nope",
		"/v1/organizations/acme/members/nobody",
	} {
		wantError(t, send(t, srv, "GET", path, "", ""), http.StatusUnauthorized, "unauthorized")
	}
	// A malformed body of an unauthenticated request is not looked at.
	wantError(t, send(t, srv, "POST", "/v1/organizations/acme/databases", "", "{"), http.StatusUnauthorized, "unauthorized")
}

func TestUnauthorizedThroughTheSDK(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	for label, tok := range map[string]fake.Token{
		"zero token":    {},
		"unknown token": {ID: "nosuchtoken1", Secret: "sk_nope"},
		"wrong secret":  {ID: srv.AdminToken().ID, Secret: "sk_nope"},
	} {
		_, err := srv.ClientFor(tok).Organizations.Get(t.Context(), &platform.GetOrganizationParams{Organization: srv.Org()})
		e := apiError(t, err, http.StatusUnauthorized)
		if e.Code != "unauthorized" || e.Message == "" {
			t.Errorf("%s: %v", label, e)
		}
	}
}

func TestPublicRegionsNeedNoCredentials(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	for label, auth := range badCredentials(t, srv) {
		w := send(t, srv, "GET", "/v1/regions", auth, "")
		if w.status != http.StatusOK {
			t.Errorf("%s: status %d, want 200", label, w.status)
		}
	}
	anon, err := platform.NewClient(platform.WithBaseURL(srv.URL()))
	if err != nil {
		t.Fatal(err)
	}
	page, err := anon.Regions.List(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) == 0 {
		t.Error("no public regions")
	}
}

// TestOtherOrganization checks what tokens of another organization, even
// ones holding every permission and created by a member of both, see of
// the organizations: only their own (TestUnauthorized checks that every
// operation of acme is refused to them); and that acme's admin sees nothing
// of globex.
func TestOtherOrganization(t *testing.T) {
	t.Parallel()
	w := newOpWorld(t)
	srv := w.srv
	for label, auth := range authForeignTokens(t, w) {
		r := send(t, srv, http.MethodGet, "/v1/organizations", auth, "")
		wantStatus(t, r, http.StatusOK)
		var names []string
		for _, o := range decode[platform.Page[platform.Organization]](t, r).Items {
			names = append(names, o.Name)
		}
		if diff := cmp.Diff([]string{"globex"}, names); diff != "" {
			t.Errorf("organizations the %s token lists (-want +got):\n%s", label, diff)
		}
	}

	c := srv.Client()
	_, err := c.Organizations.Get(t.Context(), &platform.GetOrganizationParams{Organization: "globex"})
	apiError(t, err, http.StatusNotFound)
	orgs, err := c.Organizations.List(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(orgs.Items) != 1 || orgs.Items[0].Name != "acme" {
		t.Errorf("acme's admin lists %d organizations, want only acme", len(orgs.Items))
	}
}
