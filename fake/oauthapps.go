package fake

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake/internal/ordered"
)

// oauthStore holds the OAuth applications, the tokens issued to them, the
// authorization codes not yet exchanged and the device authorizations. Secrets are kept as hashes
// only. Its maps are made on the first write; reads of the zero store find
// nothing.
type oauthStore struct {
	apps     map[string]*oauthAppRec // by ID
	byClient map[string]*oauthAppRec // by client ID
	byOrg    map[*orgRec]*index[*oauthAppRec]
	access   map[[32]byte]*oauthTokenRec // by hash of the access token
	refresh  map[[32]byte]*oauthTokenRec // by hash of the refresh token
	codes    map[[32]byte]*oauthCodeRec  // by hash of the code
	// The device authorizations (oauthdevice.go), by hash of the device
	// code and by user code.
	devices   map[[32]byte]*oauthDeviceRec
	userCodes map[string]*oauthDeviceRec
}

// oauthAppRec is an OAuth application; its organization owns it.
type oauthAppRec struct {
	stamps
	org         *orgRec
	name        string
	domain      *url.URL
	redirectURI string
	avatar      string
	scopes      []platform.Scope
	clientID    string
	secretHash  [32]byte

	tokens ordered.Store[*oauthTokenRec] // the live tokens
}

// oauthTokenRec is one authorization of an application by a user: its
// grant, and the current access and refresh tokens, which a refresh
// replaces.
type oauthTokenRec struct {
	stamps
	app         *oauthAppRec
	grant       *oauthGrant
	accessHash  [32]byte
	refreshHash [32]byte
	expires     time.Time
	// lastUsed is when the access token last authenticated a request, in
	// Unix milliseconds (0: never). Requests that only read the world hold
	// the read lock, hence the atomic.
	lastUsed atomic.Int64
}

// appsOf returns the applications of org, in list order.
func (st *oauthStore) appsOf(org *orgRec) *index[*oauthAppRec] {
	if x := st.byOrg[org]; x != nil {
		return x
	}
	return &index[*oauthAppRec]{}
}

// addApp records a new application.
func (st *oauthStore) addApp(a *oauthAppRec) {
	if st.apps == nil {
		st.apps = map[string]*oauthAppRec{}
		st.byClient = map[string]*oauthAppRec{}
		st.byOrg = map[*orgRec]*index[*oauthAppRec]{}
	}
	st.apps[a.id] = a
	st.byClient[a.clientID] = a
	if st.byOrg[a.org] == nil {
		st.byOrg[a.org] = &index[*oauthAppRec]{}
	}
	st.byOrg[a.org].Add(a)
}

// setSecrets gives t a new access token and refresh token, forgetting the
// old ones, and returns them.
func (st *oauthStore) setSecrets(w *world, t *oauthTokenRec) (access, refresh string) {
	if st.access == nil {
		st.access = map[[32]byte]*oauthTokenRec{}
		st.refresh = map[[32]byte]*oauthTokenRec{}
	}
	delete(st.access, t.accessHash)
	delete(st.refresh, t.refreshHash)
	access, refresh = w.newSecret("oat_", 40), w.newSecret("ort_", 40)
	t.accessHash, t.refreshHash = sha256.Sum256([]byte(access)), sha256.Sum256([]byte(refresh))
	st.access[t.accessHash] = t
	st.refresh[t.refreshHash] = t
	return access, refresh
}

// revoke deletes a token: its access and refresh tokens stop working.
func (st *oauthStore) revoke(t *oauthTokenRec) {
	delete(st.access, t.accessHash)
	delete(st.refresh, t.refreshHash)
	t.app.tokens.Remove(t)
}

// OAuthAppSpec describes an OAuth application to create with
// [Server.CreateOAuthApplication].
type OAuthAppSpec struct {
	// Name is the name users see on the consent page.
	Name string
	// Domain is the full URL of the application's domain
	// ("https://app.example.com"); redirect URIs must be on it: the same
	// scheme and host (with port).
	Domain string
	// RedirectURI is the application's callback, on Domain.
	RedirectURI string
	// Scopes are what the application asks users for; each must be one of
	// the scopes the API knows (platform.Scopes()).
	Scopes []platform.Scope
	// Avatar is the address of the application's image; optional.
	Avatar string
	// ClientID, when set, is the application's client ID instead of a
	// generated one, so that a tool with a built-in client ID signs in
	// unchanged: 1 to 200 printable ASCII characters without spaces. The
	// client ID of another application is refused.
	ClientID string
	// ClientSecret, when set, is the client secret instead of a generated
	// one, with the rules of ClientID.
	ClientSecret string
}

// OAuthApp is a new OAuth application's credentials, as its owner sees them
// once: the client secret is not shown again (the fake keeps only its
// hash).
type OAuthApp struct {
	// ID is the application's ID in the API's paths.
	ID string
	// ClientID identifies the application to the OAuth server: the
	// client_id of its authorization and token requests.
	ClientID string
	// ClientSecret authenticates the application's token requests
	// (client_secret). It is shown only here.
	ClientSecret string
	// RedirectURI is the application's callback, where the authorization
	// server sends the browser back with a code.
	RedirectURI string
}

// CreateOAuthApplication adds an OAuth application owned by org and returns
// its credentials, the client secret included. The API has no operation
// that creates applications; an organization's owner creates them in its
// settings.
func (s *Server) CreateOAuthApplication(org string, spec OAuthAppSpec) (OAuthApp, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.world.orgs[org]
	if o == nil {
		return OAuthApp{}, fmt.Errorf("fake: CreateOAuthApplication: no organization %q", org)
	}
	domain, err := checkOAuthAppSpec(spec)
	if err == nil && spec.ClientID != "" && s.world.oauth.byClient[spec.ClientID] != nil {
		err = fmt.Errorf("client ID %q is already the client ID of application %s: choose another", spec.ClientID, s.world.oauth.byClient[spec.ClientID].id)
	}
	if err != nil {
		return OAuthApp{}, methodErr("CreateOAuthApplication", err)
	}
	clientID, secret := spec.ClientID, spec.ClientSecret
	if clientID == "" {
		clientID = s.world.newSecret("app_", 20)
	}
	if secret == "" {
		secret = s.world.newSecret("secret_", 40)
	}
	now := s.world.clock.Now()
	a := &oauthAppRec{
		stamps:      stamps{id: s.world.newID(), created: now, updated: now},
		org:         o,
		name:        spec.Name,
		domain:      domain,
		redirectURI: spec.RedirectURI,
		avatar:      spec.Avatar,
		scopes:      slices.Clone(spec.Scopes),
		clientID:    clientID,
	}
	a.secretHash = sha256.Sum256([]byte(secret))
	s.world.oauth.addApp(a)
	return OAuthApp{ID: a.id, ClientID: a.clientID, ClientSecret: secret, RedirectURI: a.redirectURI}, nil
}

// checkOAuthAppSpec validates a new application and returns its domain.
func checkOAuthAppSpec(spec OAuthAppSpec) (*url.URL, error) {
	if strings.TrimSpace(spec.Name) == "" {
		return nil, fmt.Errorf("a Name is required")
	}
	domain, err := url.Parse(spec.Domain)
	if err != nil || (domain.Scheme != "http" && domain.Scheme != "https") || domain.Host == "" ||
		strings.Trim(domain.Path, "/") != "" || domain.RawQuery != "" || domain.User != nil {
		return nil, fmt.Errorf("the Domain %q is not the URL of a domain, such as https://app.example.com", spec.Domain)
	}
	if !onDomain(domain, spec.RedirectURI) {
		return nil, fmt.Errorf("the RedirectURI %q is not an http(s) URL on the domain %s", spec.RedirectURI, spec.Domain)
	}
	if len(spec.Scopes) == 0 {
		return nil, fmt.Errorf("no Scopes: an application asks for at least one scope")
	}
	for _, f := range []struct{ name, value string }{{"ClientID", spec.ClientID}, {"ClientSecret", spec.ClientSecret}} {
		if f.value != "" && !clientCredential(f.value) {
			return nil, fmt.Errorf("the %s %q is not 1 to 200 printable ASCII characters without spaces", f.name, f.value)
		}
	}
	for i, sc := range spec.Scopes {
		if !slices.Contains(knownScopes, sc) {
			return nil, fmt.Errorf("scope %q is not one the API knows (see platform.Scopes)", sc)
		}
		if slices.Contains(spec.Scopes[:i], sc) {
			return nil, fmt.Errorf("scope %q is listed twice", sc)
		}
	}
	return domain, nil
}

// clientCredential reports whether v can be a chosen client ID or secret:
// 1 to 200 printable ASCII characters, no space (RFC 6749's VSCHAR less
// the space, so that it survives a form and a Basic header).
func clientCredential(v string) bool {
	if len(v) == 0 || len(v) > 200 {
		return false
	}
	for i := 0; i < len(v); i++ {
		if v[i] <= ' ' || v[i] > '~' {
			return false
		}
	}
	return true
}

// onDomain reports whether raw is an absolute http(s) URL with domain's
// scheme and host.
func onDomain(domain *url.URL, raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && u.User == nil && u.Fragment == "" &&
		strings.EqualFold(u.Scheme, domain.Scheme) && strings.EqualFold(u.Host, domain.Host)
}

func oauthAppRoutes() []route {
	return []route{
		{pattern: "GET /v1/organizations/{organization}/oauth-applications", op: "list_oauth_applications", handler: read(listOAuthApps)},
		{pattern: "GET /v1/organizations/{organization}/oauth-applications/{application_id}", op: "get_oauth_application", handler: read(getOAuthApp)},
		{pattern: "GET /v1/organizations/{organization}/oauth-applications/{application_id}/tokens", op: "list_oauth_tokens", handler: read(listOAuthTokens)},
		{pattern: "GET /v1/organizations/{organization}/oauth-applications/{application_id}/tokens/{token_id}", op: "get_oauth_token", handler: read(getOAuthToken)},
		{pattern: "DELETE /v1/organizations/{organization}/oauth-applications/{application_id}/tokens/{token_id}", op: "delete_oauth_token", handler: act(deleteOAuthToken)},
		{pattern: "POST /v1/organizations/{organization}/oauth-applications/{id}/token", op: "create_oauth_token", handler: withBody(createOAuthToken)},
	}
}

// oauthApp finds the application the path's value named param names, in
// the path's organization.
func (c *call) oauthApp(param string) (*oauthAppRec, error) {
	a := c.w.oauth.apps[c.r.PathValue(param)]
	if a == nil || a.org != c.org {
		return nil, notFound()
	}
	return a, nil
}

// oauthToken finds the path's {token_id} of the path's application.
func (c *call) oauthToken() (*oauthTokenRec, error) {
	a, err := c.oauthApp("application_id")
	if err != nil {
		return nil, err
	}
	t := a.tokens.Get(c.r.PathValue("token_id"))
	if t == nil {
		return nil, notFound()
	}
	return t, nil
}

func listOAuthApps(c *call) (any, error) {
	return pageOf(c, c.w.oauth.appsOf(c.org), true, renderOAuthApp), nil
}

func getOAuthApp(c *call) (any, error) {
	a, err := c.oauthApp("application_id")
	if err != nil {
		return nil, err
	}
	return renderOAuthApp(a), nil
}

func listOAuthTokens(c *call) (any, error) {
	a, err := c.oauthApp("application_id")
	if err != nil {
		return nil, err
	}
	return pageOf(c, a.tokens.Index(), true, func(t *oauthTokenRec) *platform.OAuthToken {
		return c.w.renderOAuthToken(t, nil, nil)
	}), nil
}

func getOAuthToken(c *call) (any, error) {
	t, err := c.oauthToken()
	if err != nil {
		return nil, err
	}
	return c.w.renderOAuthToken(t, nil, nil), nil
}

func deleteOAuthToken(c *call) (any, error) {
	t, err := c.oauthToken()
	if err != nil {
		return nil, err
	}
	c.w.oauth.revoke(t)
	return nil, nil
}

// createOAuthToken is the token endpoint's exchange as an API operation:
// the same grants and rules, with the API's errors (422 naming what is
// wrong) instead of RFC 6749's.
func createOAuthToken(c *call, p *platform.CreateOAuthTokenParams) (any, error) {
	a, err := c.oauthApp("id")
	if err != nil {
		return nil, err
	}
	req := tokenRequest{
		clientID:     p.ClientID,
		clientSecret: p.ClientSecret,
		grantType:    string(p.GrantType),
		code:         deref(p.Code),
		redirectURI:  deref(p.RedirectURI),
		refreshToken: deref(p.RefreshToken),
	}
	for _, f := range []struct{ name, value string }{{"client_id", p.ClientID}, {"client_secret", p.ClientSecret}, {"grant_type", string(p.GrantType)}} {
		if f.value == "" {
			return nil, unprocessable("%s is required", f.name)
		}
	}
	out, oerr := c.w.grantToken(req, a)
	if oerr != nil {
		return nil, unprocessable("%s", oerr.description)
	}
	return c.w.renderOAuthToken(out.tok, &out.access, &out.refresh), nil
}

// deref is the value of an optional string; "" when absent.
func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// authenticateBearer finds the OAuth token of an access token.
func (w *world) authenticateBearer(secret string, now time.Time) (principal, error) {
	if secret == "" {
		return principal{}, unauthorized("malformed Authorization header: want Bearer ACCESS_TOKEN")
	}
	t := w.oauth.access[sha256.Sum256([]byte(secret))]
	if t == nil {
		return principal{}, unauthorized("unknown or revoked OAuth access token")
	}
	if !now.Before(t.expires) {
		return principal{}, unauthorized("OAuth access token expired; refresh it")
	}
	t.lastUsed.Store(now.UnixMilli())
	return principal{oauth: t, user: t.grant.user}, nil
}

// clientSecretMatches compares a client secret with the application's, in
// constant time.
func (a *oauthAppRec) clientSecretMatches(secret string) bool {
	sum := sha256.Sum256([]byte(secret))
	return subtle.ConstantTimeCompare(sum[:], a.secretHash[:]) == 1
}

// scopesOf groups scopes by the kind of resource they are granted on.
func scopesOf(scopes []platform.Scope) map[string][]string {
	out := map[string][]string{}
	for _, sc := range scopes {
		out[sc.Resource()] = append(out[sc.Resource()], sc.Name())
	}
	return out
}

func renderOAuthApp(a *oauthAppRec) *platform.OAuthApplication {
	mine := map[string][]platform.OAuthScopeInfo{}
	all := map[string][]platform.OAuthScopeInfo{}
	for _, sc := range knownScopes {
		info := platform.OAuthScopeInfo{Scope: sc.Name(), Description: sc.Description(), Admin: slices.Contains(adminScopes, sc)}
		selected := slices.Contains(a.scopes, sc)
		if selected {
			mine[sc.Resource()] = append(mine[sc.Resource()], info)
		}
		info.Selected = platform.Ptr(selected)
		all[sc.Resource()] = append(all[sc.Resource()], info)
	}
	return &platform.OAuthApplication{
		ID:                  a.id,
		Type:                "OauthApplication",
		Name:                a.name,
		RedirectURI:         a.redirectURI,
		Domain:              a.domain.String(),
		CreatedAt:           platform.NewTimestamp(a.created),
		UpdatedAt:           platform.NewTimestamp(a.updated),
		Scopes:              platform.ScopeList(slices.Clone(a.scopes)),
		Avatar:              a.avatar,
		ClientID:            a.clientID,
		Tokens:              a.tokens.Len(),
		RequiresOrgScope:    len(mine[platform.ScopeResourceOrganization]) > 0,
		ScopesByResource:    mine,
		AllScopesByResource: all,
	}
}

// renderOAuthToken renders a token; access and refresh are its secrets,
// shown only when it is issued.
func (w *world) renderOAuthToken(t *oauthTokenRec, access, refresh *string) *platform.OAuthToken {
	u := t.grant.user
	out := &platform.OAuthToken{
		ID:                      t.id,
		Type:                    "OauthToken",
		DisplayName:             t.app.name + " (" + u.name + ")",
		Token:                   access,
		PlainTextRefreshToken:   refresh,
		AvatarURL:               t.app.avatar,
		CreatedAt:               platform.NewTimestamp(t.created),
		UpdatedAt:               platform.NewTimestamp(t.updated),
		ExpiresAt:               ptrTime(t.expires),
		ActorID:                 platform.Ptr(u.id),
		ActorDisplayName:        platform.Ptr(u.name),
		ActorType:               platform.Ptr("User"),
		OAuthAccessesByResource: w.renderGrant(t.grant),
	}
	if ms := t.lastUsed.Load(); ms != 0 {
		out.LastUsedAt = ptrTime(time.UnixMilli(ms).UTC())
	}
	return out
}

// renderGrant renders what a grant covers, per kind of resource.
func (w *world) renderGrant(g *oauthGrant) *platform.OAuthAccesses {
	base := w.base
	accesses := func(res string) []platform.OAuthAccess {
		out := []platform.OAuthAccess{}
		for _, n := range g.scopes[res] {
			out = append(out, platform.OAuthAccess{Name: n, Description: platform.Scope(res + ":" + n).Description()})
		}
		return out
	}
	out := &platform.OAuthAccesses{
		User: platform.OAuthUserAccesses{
			Users:    []platform.OAuthUserResource{{Name: g.user.name, ID: g.user.id}},
			Accesses: accesses(platform.ScopeResourceUser),
		},
		Organization: platform.OAuthOrganizationAccesses{Organizations: []platform.OAuthOrganizationResource{}, Accesses: accesses(platform.ScopeResourceOrganization)},
		Database:     platform.OAuthDatabaseAccesses{Databases: []platform.OAuthDatabaseResource{}, Accesses: accesses(platform.ScopeResourceDatabase)},
		Branch:       platform.OAuthBranchAccesses{Branches: []platform.OAuthBranchResource{}, Accesses: accesses(platform.ScopeResourceBranch)},
	}
	for _, o := range g.orgs {
		out.Organization.Organizations = append(out.Organization.Organizations, platform.OAuthOrganizationResource{Name: o.name, ID: o.id, URL: base + o.name})
	}
	// A deleted database or branch is no longer a resource the token
	// reaches (a database re-created under the name is another).
	for _, db := range g.dbs {
		if db.deleted {
			continue
		}
		out.Database.Databases = append(out.Database.Databases, platform.OAuthDatabaseResource{Name: db.name, ID: db.id, Organization: db.org.name, URL: base + db.org.name + "/" + db.name})
	}
	for _, b := range g.branches {
		if b.deleted {
			continue
		}
		out.Branch.Branches = append(out.Branch.Branches, platform.OAuthBranchResource{
			Name: b.name, ID: b.id, Database: b.db.name, Organization: b.db.org.name,
			URL: base + b.db.org.name + "/" + b.db.name + "/" + b.name,
		})
	}
	return out
}
