package fake

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dbplatform/platform-go"
)

// The OAuth 2.0 server: the authorization-code flow of the spec, on the
// API's own listener ([Server.AuthURL] is [Server.URL]).
//
//	GET  /oauth/authorize  client_id, redirect_uri, state: the consent page
//	                       of the signed-in user, or, with auto-approval, a
//	                       redirect with a code at once
//	POST /oauth/authorize  the consent form: Authorize or Deny
//	POST /oauth/token      client_id, client_secret, grant_type and code +
//	                       redirect_uri or refresh_token (and optionally
//	                       scope), in the query string or a form body; the
//	                       client may authenticate with HTTP Basic instead
//	POST /oauth/revoke     client_id (client_secret checked when sent) and
//	                       token: revokes an access or refresh token of the
//	                       client (RFC 7009)
//
// At the token, device-authorization and revocation endpoints a parameter
// is sent once (RFC 6749 3.2), in the query string or the form body: one
// sent twice, in either or once in each, is invalid_request naming it
// (readOAuthForm). GET /oauth/authorize refuses a repeated parameter
// likewise: a repeated client_id or redirect_uri with an error page, as
// the client or where to send it back is in doubt (RFC 6749 4.1.2.1), any
// other with a redirect carrying error=invalid_request (and no state, when
// the state is what is repeated).
//
// The token endpoint's errors are RFC 6749 bodies (section 5.2):
// invalid_request (400), invalid_client (401), invalid_grant (400),
// unsupported_grant_type (400), invalid_scope (400: a refresh whose scope
// names a scope the grant does not hold; RFC 6749 6), and the device flow's
// (oauthdevice.go).
//
// Codes are single-use and expire after Timings.OAuthCode (10 minutes); a
// code used twice is refused and the token issued from it revoked (RFC 6749
// 4.1.2). Access tokens expire after Timings.OAuthAccessToken (expires_in,
// 30 days); a refresh replaces both the access token and the refresh token.
// A redirect URI must be on the application's domain (same scheme and
// host); the token exchange must repeat the redirect URI of the
// authorization. A scope parameter must name scopes of the application
// (else the redirect carries error=invalid_scope), resource-qualified or
// bare as the service's command-line tool writes them (read_databases is
// organization:read_databases, read_user user:read_user); users are asked
// for the application's configured scopes all the same. The device flow,
// for command-line tools, is in oauthdevice.go.
//
// Revocation (RFC 7009) answers 200 with no body for a token it revoked
// and for one it does not know (section 2.2); a token of another client is
// refused (400 unauthorized_client) and kept. An access token and its
// refresh token are one authorization: revoking either ends both, as
// delete_oauth_token does (section 2.1 lets a server revoke the refresh
// token with its access token, and asks it to revoke the access tokens of
// a revoked refresh token).

// oauthSession is who the OAuth server's pages act for.
type oauthSession struct {
	// user is the signed-in user; before any SignIn, the admin user.
	user      *userRec
	signedOut bool
	// autoApprove, when set, approves every authorization at once with
	// this choice.
	autoApprove *Consent
}

// Consent is what a user chooses on the consent page: the resources the
// application's scopes are granted on. User scopes apply to the user;
// organization scopes to each of Organizations, database scopes to each of
// Databases, branch scopes to each of Branches. A kind of resource the
// application asks no scope for is ignored.
type Consent struct {
	// Organizations are organization names; empty means the user's default
	// organization (the first they joined).
	Organizations []string
	// Databases are "organization/database" names; empty grants the
	// database scopes on nothing.
	Databases []string
	// Branches are "organization/database/branch" names; empty grants the
	// branch scopes on nothing.
	Branches []string
}

// AuthURL returns the base URL of the OAuth endpoints ({auth_url}):
// /oauth/authorize and /oauth/token are below it. The fake serves them on
// the API's listener, so it is [Server.URL].
func (s *Server) AuthURL() string { return s.URL() }

// SignIn makes userID the user the consent page acts for. Until a first
// SignIn, the admin user ([Server.AdminUserID]) is signed in.
func (s *Server) SignIn(userID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	u := s.world.users[userID]
	if u == nil {
		return fmt.Errorf("fake: SignIn: no user %q", userID)
	}
	s.session.user, s.session.signedOut = u, false
	return nil
}

// SignOut leaves no user signed in: the consent page answers 401 until the
// next SignIn.
func (s *Server) SignOut() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.session.user, s.session.signedOut = nil, true
}

// SetAutoApprove makes GET /oauth/authorize approve at once, as if the
// signed-in user had chosen c on the consent page and pressed Authorize; it
// redirects with a code without showing the page. A device sign-in is
// approved likewise as POST /oauth/authorize_device creates it, so the
// tool's first poll gets its token. nil shows the page again. The choice is checked at each authorization (a name the user
// cannot access is a 400 page).
func (s *Server) SetAutoApprove(c *Consent) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c == nil {
		s.session.autoApprove = nil
		return
	}
	s.session.autoApprove = &Consent{
		Organizations: slices.Clone(c.Organizations),
		Databases:     slices.Clone(c.Databases),
		Branches:      slices.Clone(c.Branches),
	}
}

// signedIn is the user the consent page acts for; nil when signed out.
func (s *Server) signedIn() *userRec {
	switch {
	case s.session.signedOut:
		return nil
	case s.session.user != nil:
		return s.session.user
	}
	return s.admin
}

// oauthCodeRec is an authorization code waiting for its exchange.
type oauthCodeRec struct {
	app         *oauthAppRec
	grant       *oauthGrant
	redirectURI string
	expires     time.Time
	used        bool
	// issued is the token the code was exchanged for, revoked if the code
	// comes back.
	issued *oauthTokenRec
}

// newCode issues a code for a grant, forgotten once it has expired.
func (w *world) newCode(app *oauthAppRec, g *oauthGrant, redirectURI string) string {
	st := &w.oauth
	if st.codes == nil {
		st.codes = map[[32]byte]*oauthCodeRec{}
	}
	code := w.newSecret("code_", 32)
	h := sha256.Sum256([]byte(code))
	st.codes[h] = &oauthCodeRec{app: app, grant: g, redirectURI: redirectURI, expires: w.clock.Now().Add(w.timing.OAuthCode)}
	w.clock.After(w.timing.OAuthCode, codeExpiryJob{h})
	return code
}

// devicePageOp is the request log's operation name of the device flow's
// verification page.
const devicePageOp = "oauth_device"

// mountOAuthServer registers the OAuth endpoints, checking them against
// their rows of operations.tsv.
func mountOAuthServer(mux *http.ServeMux) error {
	for _, ep := range []struct {
		pattern, op string
		serve       func(s *Server, w http.ResponseWriter, r *http.Request)
	}{
		{"GET /oauth/authorize", "oauth_authorize", (*Server).authorizePage},
		{"POST /oauth/authorize", "oauth_authorize", (*Server).authorizeDecision},
		{"POST /oauth/token", "oauth_token", (*Server).tokenEndpoint},
		{"POST /oauth/authorize_device", "oauth_authorize_device", (*Server).authorizeDevice},
		{"POST /oauth/revoke", "oauth_revoke", (*Server).revokeEndpoint},
		// The verification page of the device flow is the user's, like the
		// consent page, but no client calls it: it is no row of the table.
		{"GET " + devicePath, devicePageOp, (*Server).devicePage},
		{"POST " + devicePath, devicePageOp, (*Server).deviceDecision},
	} {
		spec, ok := operations[ep.op]
		if ep.op != devicePageOp && (!ok || !strings.HasSuffix(ep.pattern, " "+spec.path)) {
			return fmt.Errorf("fake: OAuth endpoint %q does not match operations.tsv's %s", ep.pattern, ep.op)
		}
		op, serve := ep.op, ep.serve
		mux.Handle(ep.pattern, serving(func(s *Server, w http.ResponseWriter, r *http.Request) {
			w.(*recorder).op = op
			if s.applyFault(w, r, op) {
				return
			}
			serve(s, w, r)
		}))
	}
	return nil
}

// authorizeRequest is a checked request of the authorization endpoint.
type authorizeRequest struct {
	app         *oauthAppRec
	user        *userRec
	redirectURI string
	state       string
}

// checkAuthorize validates the parameters every authorization needs, under
// the lock. A bad client or redirect URI is answered with a page, never a
// redirect (RFC 6749 4.1.2.1).
func (s *Server) checkAuthorize(form url.Values) (authorizeRequest, *pageError) {
	clientID, redirectURI := form.Get("client_id"), form.Get("redirect_uri")
	switch {
	case clientID == "":
		return authorizeRequest{}, pageErr(http.StatusBadRequest, "client_id is required")
	case redirectURI == "":
		return authorizeRequest{}, pageErr(http.StatusBadRequest, "redirect_uri is required")
	}
	app := s.world.oauth.byClient[clientID]
	if app == nil {
		return authorizeRequest{}, pageErr(http.StatusBadRequest, "client_id %q is not an OAuth application", clientID)
	}
	if !onDomain(app.domain, redirectURI) {
		return authorizeRequest{}, pageErr(http.StatusBadRequest, "redirect_uri %q is not on the domain of %s (%s)", redirectURI, app.name, app.domain)
	}
	u := s.signedIn()
	if u == nil {
		return authorizeRequest{}, pageErr(http.StatusUnauthorized, "no user is signed in (the fake's SignIn names one)")
	}
	return authorizeRequest{app: app, user: u, redirectURI: redirectURI, state: form.Get("state")}, nil
}

// authorizeParams are the parameters of GET /oauth/authorize, each sent
// at most once (RFC 6749 3.1); others are ignored.
var authorizeParams = []string{"client_id", "redirect_uri", "response_type", "scope", "state"}

// repeatedParam returns the first of params that q holds more than once,
// or "".
func repeatedParam(q url.Values, params []string) string {
	for _, name := range params {
		if len(q[name]) > 1 {
			return name
		}
	}
	return ""
}

// repeatedMessage says that q holds the parameter name more than once.
func repeatedMessage(q url.Values, name string) string {
	return fmt.Sprintf("%s is sent %d times; send each parameter once", name, len(q[name]))
}

// authorizePage serves GET /oauth/authorize: the consent page, or the
// redirect of an auto-approval.
func (s *Server) authorizePage(w http.ResponseWriter, r *http.Request) {
	s.underLock(w, func(w http.ResponseWriter) {
		q := r.URL.Query()
		repeated := repeatedParam(q, authorizeParams)
		if repeated == "client_id" || repeated == "redirect_uri" {
			// Which client, or where to send it back, is in doubt: a
			// page, never a redirect (RFC 6749 4.1.2.1).
			pageErr(http.StatusBadRequest, "invalid_request: %s", repeatedMessage(q, repeated)).write(w)
			return
		}
		req, perr := s.checkAuthorize(q)
		if perr != nil {
			perr.write(w)
			return
		}
		if repeated != "" {
			if repeated == "state" {
				req.state = "" // which one to send back is in doubt
			}
			req.redirect(w, r, url.Values{"error": {"invalid_request"}, "error_description": {repeatedMessage(q, repeated)}})
			return
		}
		if rt := q.Get("response_type"); rt != "" && rt != "code" {
			req.redirect(w, r, url.Values{"error": {"unsupported_response_type"}, "error_description": {"only response_type=code is supported"}})
			return
		}
		if oerr := checkRequestedScopes(req.app, q.Get("scope")); oerr != nil {
			req.redirect(w, r, url.Values{"error": {oerr.code}, "error_description": {oerr.description}})
			return
		}
		if c := s.session.autoApprove; c != nil {
			s.approve(w, r, req, *c)
			return
		}
		hidden := [][2]string{{"client_id", req.app.clientID}, {"redirect_uri", req.redirectURI}}
		if req.state != "" {
			hidden = append(hidden, [2]string{"state", req.state})
		}
		s.writeConsentPage(w, r, req.app, req.user, "/oauth/authorize", hidden)
	})
}

// readPostForm parses a form POSTed to a page, answering with an error page
// when it cannot; it reports whether it could.
func readPostForm(w http.ResponseWriter, r *http.Request) bool {
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	if err := r.ParseForm(); err != nil {
		pageErr(http.StatusBadRequest, "reading the form: %v", err).write(w)
		return false
	}
	return true
}

// authorizeDecision serves the consent form's POST: Authorize with the
// chosen resources, or Deny.
func (s *Server) authorizeDecision(w http.ResponseWriter, r *http.Request) {
	if !readPostForm(w, r) {
		return
	}
	s.underLock(w, func(w http.ResponseWriter) {
		if perr := s.checkSignedInForm(r); perr != nil {
			perr.write(w)
			return
		}
		req, perr := s.checkAuthorize(r.PostForm)
		if perr != nil {
			perr.write(w)
			return
		}
		switch d := r.PostForm.Get("decision"); d {
		case "authorize":
			s.approve(w, r, req, consentOf(r.PostForm))
		case "deny":
			req.redirect(w, r, url.Values{"error": {"access_denied"}, "error_description": {req.user.name + " denied access"}})
		default:
			pageErr(http.StatusBadRequest, "decision must be authorize or deny, got %q", d).write(w)
		}
	})
}

// checkSignedInForm refuses a consent form's POST when nobody is signed in
// or when the form is not the signed-in user's (checkForm).
func (s *Server) checkSignedInForm(r *http.Request) *pageError {
	if perr := checkSameOrigin(r); perr != nil {
		return perr
	}
	u := s.signedIn()
	if u == nil {
		return pageErr(http.StatusUnauthorized, "no user is signed in (the fake's SignIn names one)")
	}
	return s.checkForm(r, u)
}

// consentOf is the choice of a submitted consent form.
func consentOf(form url.Values) Consent {
	return Consent{Organizations: form["organization"], Databases: form["database"], Branches: form["branch"]}
}

// approve grants what c chooses and redirects with a code.
func (s *Server) approve(w http.ResponseWriter, r *http.Request, req authorizeRequest, c Consent) {
	g, err := s.world.grantOf(req.user, req.app, c)
	if err != nil {
		pageErr(http.StatusBadRequest, "%v", err).write(w)
		return
	}
	req.redirect(w, r, url.Values{"code": {s.world.newCode(req.app, g, req.redirectURI)}})
}

// redirect sends the user agent back to the application with params, and
// the state when the application sent one.
func (req authorizeRequest) redirect(w http.ResponseWriter, r *http.Request, params url.Values) {
	u, _ := url.Parse(req.redirectURI) // checked by onDomain
	q := u.Query()
	maps.Copy(q, params)
	if req.state != "" {
		q.Set("state", req.state)
	}
	u.RawQuery = q.Encode()
	http.Redirect(w, r, u.String(), http.StatusFound)
}

// grantOf resolves a consent of user for app into a grant: every chosen
// resource must exist and be the user's (a member of its organization), an
// admin scope needs an organization the user administers, and an
// application with organization scopes needs at least one organization.
func (w *world) grantOf(u *userRec, app *oauthAppRec, c Consent) (*oauthGrant, error) {
	g := &oauthGrant{user: u, scopes: scopesOf(app.scopes)}
	member := func(orgName string) (*orgRec, error) {
		o := w.orgs[orgName]
		if o == nil || o.memberByUser[u.id] == nil {
			return nil, fmt.Errorf("%s is not a member of an organization %q", u.name, orgName)
		}
		return o, nil
	}
	if len(g.scopes[platform.ScopeResourceOrganization]) > 0 {
		names := c.Organizations
		if len(names) == 0 && u.defaultOrg != nil {
			names = []string{u.defaultOrg.name}
		}
		for _, name := range names {
			o, err := member(name)
			if err != nil {
				return nil, err
			}
			for _, sc := range adminScopes {
				if slices.Contains(app.scopes, sc) && o.memberByUser[u.id].role != platform.RoleAdmin {
					return nil, fmt.Errorf("%s is not an admin of %s, which %s needs", u.name, o.name, sc)
				}
			}
			if !slices.Contains(g.orgs, o) {
				g.orgs = append(g.orgs, o)
			}
		}
		if len(g.orgs) == 0 {
			return nil, fmt.Errorf("%s asks for organization scopes: choose at least one organization", app.name)
		}
	}
	if len(g.scopes[platform.ScopeResourceDatabase]) > 0 {
		for _, name := range c.Databases {
			orgName, dbName, _ := strings.Cut(name, "/")
			o, err := member(orgName)
			if err != nil {
				return nil, err
			}
			db := o.dbByName[dbName]
			if db == nil {
				return nil, fmt.Errorf("database %q is not a database of %s", name, o.name)
			}
			if !slices.Contains(g.dbs, db) {
				g.dbs = append(g.dbs, db)
			}
		}
	}
	if len(g.scopes[platform.ScopeResourceBranch]) > 0 {
		for _, name := range c.Branches {
			parts := strings.SplitN(name, "/", 3)
			if len(parts) != 3 {
				return nil, fmt.Errorf("branch %q is not organization/database/branch", name)
			}
			o, err := member(parts[0])
			if err != nil {
				return nil, err
			}
			var b *branchRec
			if db := o.dbByName[parts[1]]; db != nil {
				b = db.branch(parts[2])
			}
			if b == nil {
				return nil, fmt.Errorf("branch %q is not a branch of %s", name, o.name)
			}
			if !slices.Contains(g.branches, b) {
				g.branches = append(g.branches, b)
			}
		}
	}
	return g, nil
}

// tokenRequest is a request for a token, from the token endpoint or from
// create_oauth_token.
type tokenRequest struct {
	clientID, clientSecret                     string
	grantType, code, redirectURI, refreshToken string
	deviceCode                                 string
	// scope is a refresh's scope parameter (RFC 6749 6).
	scope string
}

// oauthError is a refusal of the token endpoint, in RFC 6749's terms
// (section 5.2).
type oauthError struct {
	status      int
	code        string
	description string
}

func oauthErr(status int, code, format string, args ...any) *oauthError {
	return &oauthError{status: status, code: code, description: fmt.Sprintf(format, args...)}
}

// write answers with the error; a 401 names the scheme the client may
// authenticate with.
func (e *oauthError) write(w http.ResponseWriter) {
	if e.status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Basic realm="oauth"`)
	}
	writeTokenJSON(w, e.status, tokenError{Error: e.code, Description: e.description})
}

// issuedToken is a token with its secrets, shown once.
type issuedToken struct {
	tok             *oauthTokenRec
	access, refresh string
}

// grantToken authenticates the client of req and runs its grant, under the
// lock. want, when not nil, is the application the client must be (the
// path's, for create_oauth_token).
func (w *world) grantToken(req tokenRequest, want *oauthAppRec) (issuedToken, *oauthError) {
	if req.grantType == "" {
		return issuedToken{}, oauthErr(http.StatusBadRequest, "invalid_request", "grant_type is required: authorization_code, refresh_token or %s", DeviceCodeGrantType)
	}
	if req.grantType == DeviceCodeGrantType && want == nil {
		// The device flow's clients are public: no secret needed.
		app, oerr := w.publicClient(clientCredentials{id: req.clientID, secret: req.clientSecret})
		if oerr != nil {
			return issuedToken{}, oerr
		}
		return w.pollDevice(app, req)
	}
	app := w.oauth.byClient[req.clientID]
	switch {
	case req.clientID == "":
		return issuedToken{}, oauthErr(http.StatusUnauthorized, "invalid_client", "client_id is required")
	case app == nil || !app.clientSecretMatches(req.clientSecret):
		return issuedToken{}, oauthErr(http.StatusUnauthorized, "invalid_client", "client_id and client_secret are not the credentials of an OAuth application")
	case want != nil && app != want:
		return issuedToken{}, oauthErr(http.StatusUnauthorized, "invalid_client", "client_id is not the client ID of application %s", want.id)
	}
	switch platform.OAuthGrantType(req.grantType) {
	case platform.OAuthGrantAuthorizationCode:
		return w.exchangeCode(app, req)
	case platform.OAuthGrantRefreshToken:
		return w.refreshToken(app, req)
	}
	return issuedToken{}, oauthErr(http.StatusBadRequest, "unsupported_grant_type", "grant_type %q is not authorization_code, refresh_token or %s", req.grantType, DeviceCodeGrantType)
}

// exchangeCode issues a token for a code.
func (w *world) exchangeCode(app *oauthAppRec, req tokenRequest) (issuedToken, *oauthError) {
	switch {
	case req.code == "":
		return issuedToken{}, oauthErr(http.StatusBadRequest, "invalid_request", "code is required with grant_type authorization_code")
	case req.redirectURI == "":
		return issuedToken{}, oauthErr(http.StatusBadRequest, "invalid_request", "redirect_uri is required with grant_type authorization_code")
	}
	now := w.clock.Now()
	st := &w.oauth
	code := st.codes[sha256.Sum256([]byte(req.code))]
	switch {
	case code == nil || code.app != app:
		return issuedToken{}, oauthErr(http.StatusBadRequest, "invalid_grant", "code is not a code of this application, or it has expired")
	case code.used:
		if code.issued != nil && code.issued.app.tokens.Get(code.issued.id) == code.issued {
			st.revoke(code.issued)
		}
		return issuedToken{}, oauthErr(http.StatusBadRequest, "invalid_grant", "code was already used; the token issued from it is revoked")
	case !now.Before(code.expires):
		return issuedToken{}, oauthErr(http.StatusBadRequest, "invalid_grant", "code has expired (codes live %s)", w.timing.OAuthCode)
	case req.redirectURI != code.redirectURI:
		return issuedToken{}, oauthErr(http.StatusBadRequest, "invalid_grant", "redirect_uri is not the one the code was issued for")
	}
	code.used = true
	out := w.issueToken(app, code.grant)
	code.issued = out.tok
	return out, nil
}

// issueToken issues a new token of app for a grant.
func (w *world) issueToken(app *oauthAppRec, g *oauthGrant) issuedToken {
	now := w.clock.Now()
	t := &oauthTokenRec{stamps: stamps{id: w.newID(), created: now, updated: now}, app: app, grant: g, expires: now.Add(w.timing.OAuthAccessToken)}
	access, refresh := w.oauth.setSecrets(w, t)
	app.tokens.Add(t)
	return issuedToken{tok: t, access: access, refresh: refresh}
}

// refreshToken renews a token: a new access token and a new refresh token;
// the old ones stop working. A scope parameter may name only scopes of the
// grant (RFC 6749 6), else invalid_scope; the new token keeps the grant's
// scopes all the same, as the response's scope says: a narrower scope is
// not applied.
func (w *world) refreshToken(app *oauthAppRec, req tokenRequest) (issuedToken, *oauthError) {
	if req.refreshToken == "" {
		return issuedToken{}, oauthErr(http.StatusBadRequest, "invalid_request", "refresh_token is required with grant_type refresh_token")
	}
	st := &w.oauth
	t := st.refresh[sha256.Sum256([]byte(req.refreshToken))]
	if t == nil || t.app != app {
		return issuedToken{}, oauthErr(http.StatusBadRequest, "invalid_grant", "refresh_token is not a live refresh token of this application (refresh tokens are replaced by each refresh)")
	}
	granted := t.grant.scopeList()
	for sc := range strings.FieldsSeq(req.scope) {
		if q := qualifyScope(sc); !slices.Contains(granted, q) {
			return issuedToken{}, oauthErr(http.StatusBadRequest, "invalid_scope", "scope %q (%s) was not granted to this token (its scopes: %s); a refresh cannot add scopes", sc, q, granted)
		}
	}
	now := w.clock.Now()
	access, refresh := st.setSecrets(w, t)
	t.expires = now.Add(w.timing.OAuthAccessToken)
	t.updated = now
	return issuedToken{tok: t, access: access, refresh: refresh}, nil
}

// tokenResponse is the token endpoint's answer.
type tokenResponse struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int64  `json:"expires_in"`
	RefreshToken string `json:"refresh_token"`
	Scope        string `json:"scope"`
}

// tokenError is the token endpoint's error body (RFC 6749 5.2).
type tokenError struct {
	Error       string `json:"error"`
	Description string `json:"error_description"`
}

// tokenParams are the parameters of POST /oauth/token, of every grant.
var tokenParams = []string{"client_id", "client_secret", "grant_type", "code", "redirect_uri", "refresh_token", "device_code", "scope"}

// tokenEndpoint serves POST /oauth/token.
func (s *Server) tokenEndpoint(w http.ResponseWriter, r *http.Request) {
	form, client, oerr := readOAuthForm(w, r, tokenParams)
	if oerr != nil {
		oerr.write(w)
		return
	}
	req := tokenRequest{
		clientID:     client.id,
		clientSecret: client.secret,
		grantType:    form.Get("grant_type"),
		code:         form.Get("code"),
		redirectURI:  form.Get("redirect_uri"),
		refreshToken: form.Get("refresh_token"),
		deviceCode:   form.Get("device_code"),
		scope:        form.Get("scope"),
	}
	s.mu.Lock()
	out, oerr := s.world.grantToken(req, nil)
	var resp tokenResponse
	if oerr == nil {
		resp = tokenResponse{
			AccessToken:  out.access,
			TokenType:    "Bearer",
			ExpiresIn:    int64(s.world.timing.OAuthAccessToken / time.Second),
			RefreshToken: out.refresh,
			Scope:        out.tok.grant.scopeList().String(),
		}
	}
	s.mu.Unlock()
	if oerr != nil {
		oerr.write(w)
		return
	}
	writeTokenJSON(w, http.StatusOK, resp)
}

// writeTokenJSON writes an answer of the token endpoint, which must not be
// cached (RFC 6749 5.1).
func writeTokenJSON(w http.ResponseWriter, status int, v any) {
	buf, _ := json.Marshal(v)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Set("Pragma", "no-cache")
	h.Set("Content-Length", strconv.Itoa(len(buf)))
	w.WriteHeader(status)
	_, _ = w.Write(buf)
}

// revokeParams are the parameters of POST /oauth/revoke (RFC 7009 2.1;
// the fake does not use token_type_hint, but it is one of them).
var revokeParams = []string{"client_id", "client_secret", "token", "token_type_hint"}

// revokeEndpoint serves POST /oauth/revoke.
func (s *Server) revokeEndpoint(w http.ResponseWriter, r *http.Request) {
	form, client, oerr := readOAuthForm(w, r, revokeParams)
	if oerr == nil {
		s.mu.Lock()
		oerr = s.world.revokeToken(client, form.Get("token"))
		s.mu.Unlock()
	}
	if oerr != nil {
		oerr.write(w)
		return
	}
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Length", "0")
	w.WriteHeader(http.StatusOK)
}

// revokeToken revokes the authorization whose access or refresh token is
// token, when client is the application it was issued to; under the lock.
// An unknown token is no error (RFC 7009 2.2).
func (w *world) revokeToken(client clientCredentials, token string) *oauthError {
	app, oerr := w.publicClient(client)
	if oerr != nil {
		return oerr
	}
	if token == "" {
		return oauthErr(http.StatusBadRequest, "invalid_request", "token is required: the access or refresh token to revoke")
	}
	st := &w.oauth
	h := sha256.Sum256([]byte(token))
	t := st.access[h]
	if t == nil {
		t = st.refresh[h]
	}
	switch {
	case t == nil:
		return nil
	case t.app != app:
		return oauthErr(http.StatusBadRequest, "unauthorized_client", "the token was not issued to client_id %q: only its own client may revoke it", app.clientID)
	}
	st.revoke(t)
	return nil
}
