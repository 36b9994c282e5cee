package fake

import (
	"crypto/sha256"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/dbplatform/platform-go"
)

// The device authorization grant (RFC 8628), with which a command-line tool
// signs a user in without a browser of its own:
//
//	POST /oauth/authorize_device  client_id, scope: a device code for the
//	                              tool, a user code for the user, and where
//	                              to enter it (verification_uri)
//	GET  /oauth/device            the verification page: a form for the
//	                              user code, or with ?user_code= the consent
//	                              page of that authorization
//	POST /oauth/device            the consent form: Authorize or Deny
//	POST /oauth/token             grant_type=urn:ietf:params:oauth:grant-type:device_code
//	                              with device_code and client_id: polled
//	                              until the user decides
//
// The tool is a public client: client_id is enough, and a client_secret,
// when sent, must be the application's. A scope parameter must name only
// scopes of the application; as on the authorization-code flow, the user
// is asked for the application's configured scopes. Device codes expire
// after Timings.OAuthDeviceCode (expires_in, 15 minutes); the tool must
// wait Timings.OAuthDevicePoll (interval, 5 s) between polls, and a poll
// sooner is answered slow_down and adds 5 s to the interval (RFC 8628
// 3.5). Until the user decides, a poll is answered authorization_pending;
// after a Deny, access_denied; after expiry, expired_token; after the token
// was issued, invalid_grant. All of it runs on the fake's clock.

// DeviceCodeGrantType is the grant_type of a device-flow poll of the token
// endpoint.
const DeviceCodeGrantType = "urn:ietf:params:oauth:grant-type:device_code"

// devicePath is the verification page.
const devicePath = "/oauth/device"

// slowDownStep is how much a slow_down adds to the polling interval.
const slowDownStep = 5 * time.Second

// userCodeAlphabet are the characters of user codes: consonants only, so
// that no word forms and none is mistaken for another (RFC 8628 6.1).
const userCodeAlphabet = "BCDFGHJKLMNPQRSTVWXZ"

// oauthDeviceRec is a device authorization waiting for the user's decision
// and the tool's poll.
type oauthDeviceRec struct {
	app      *oauthAppRec
	userCode string // normalized: 8 letters, no dash
	expires  time.Time
	interval time.Duration // grows by slowDownStep with each slow_down
	lastPoll time.Time     // zero: not polled yet
	grant    *oauthGrant   // set when the user authorized
	user     *userRec      // who decided
	denied   bool
	used     bool // the token was issued
}

// normalizeUserCode turns what a user typed into a stored user code:
// upper case, without dashes and spaces.
func normalizeUserCode(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '-' || r == ' ':
			return -1
		case r >= 'a' && r <= 'z':
			return r - 'a' + 'A'
		}
		return r
	}, s)
}

// displayUserCode is a user code as shown: XXXX-XXXX.
func displayUserCode(code string) string {
	if len(code) != 8 {
		return code
	}
	return code[:4] + "-" + code[4:]
}

// newDevice records a device authorization for app and returns its device
// code. The record is forgotten a lifetime after it expires, so that polls
// in between are answered expired_token.
func (s *Server) newDevice(app *oauthAppRec) (string, *oauthDeviceRec) {
	st := &s.world.oauth
	if st.devices == nil {
		st.devices = map[[32]byte]*oauthDeviceRec{}
		st.userCodes = map[string]*oauthDeviceRec{}
	}
	var userCode string
	for userCode == "" || st.userCodes[userCode] != nil {
		b := make([]byte, 8)
		for i := range b {
			b[i] = userCodeAlphabet[s.world.rng.IntN(len(userCodeAlphabet))]
		}
		userCode = string(b)
	}
	code := s.world.newSecret("device_", 40)
	h := sha256.Sum256([]byte(code))
	d := &oauthDeviceRec{app: app, userCode: userCode, expires: s.clock.Now().Add(s.timing.OAuthDeviceCode), interval: s.timing.OAuthDevicePoll}
	st.devices[h] = d
	st.userCodes[userCode] = d
	s.clock.after(2*s.timing.OAuthDeviceCode, deviceExpiryJob{h, userCode})
	return code, d
}

// deviceExpiryJob forgets a device authorization long after it expired, by
// the hash of its device code and its user code.
type deviceExpiryJob struct {
	hash     [32]byte
	userCode string
}

func (j deviceExpiryJob) run(s *Server) {
	delete(s.world.oauth.devices, j.hash)
	delete(s.world.oauth.userCodes, j.userCode)
}

// deviceAuthResponse is the answer of POST /oauth/authorize_device (RFC
// 8628 3.2).
type deviceAuthResponse struct {
	DeviceCode              string `json:"device_code"`
	UserCode                string `json:"user_code"`
	VerificationURI         string `json:"verification_uri"`
	VerificationURIComplete string `json:"verification_uri_complete"`
	ExpiresIn               int64  `json:"expires_in"`
	Interval                int64  `json:"interval"`
}

// authorizeDevice serves POST /oauth/authorize_device.
func (s *Server) authorizeDevice(w http.ResponseWriter, r *http.Request) {
	form, client, oerr := readOAuthForm(w, r)
	if oerr != nil {
		oerr.write(w)
		return
	}
	s.mu.Lock()
	app, oerr := s.publicClient(client)
	if oerr == nil {
		oerr = checkRequestedScopes(app, form.Get("scope"))
	}
	var resp deviceAuthResponse
	if oerr == nil {
		code, d := s.newDevice(app)
		verify := strings.TrimSuffix(s.AuthURL(), "/") + devicePath
		resp = deviceAuthResponse{
			DeviceCode:              code,
			UserCode:                displayUserCode(d.userCode),
			VerificationURI:         verify,
			VerificationURIComplete: verify + "?" + url.Values{"user_code": {displayUserCode(d.userCode)}}.Encode(),
			ExpiresIn:               int64(s.timing.OAuthDeviceCode / time.Second),
			Interval:                int64((d.interval + time.Second - 1) / time.Second),
		}
	}
	s.mu.Unlock()
	if oerr != nil {
		oerr.write(w)
		return
	}
	writeTokenJSON(w, http.StatusOK, resp)
}

// clientCredentials are the client_id and client_secret of a request of the
// OAuth server, from its parameters or an HTTP Basic header.
type clientCredentials struct{ id, secret string }

// readOAuthForm parses the parameters of a request of the OAuth server (the
// query string and a form body) and its client credentials.
func readOAuthForm(w http.ResponseWriter, r *http.Request) (url.Values, clientCredentials, *oauthError) {
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	if err := r.ParseForm(); err != nil {
		return nil, clientCredentials{}, oauthErr(http.StatusBadRequest, "invalid_request", "reading the parameters: %v", err)
	}
	c := clientCredentials{id: r.Form.Get("client_id"), secret: r.Form.Get("client_secret")}
	if id, secret, ok := r.BasicAuth(); ok {
		id, _ = url.QueryUnescape(id)
		secret, _ = url.QueryUnescape(secret)
		if (c.id != "" && c.id != id) || (c.secret != "" && c.secret != secret) {
			return nil, clientCredentials{}, oauthErr(http.StatusBadRequest, "invalid_request", "the client credentials of the Authorization header and the parameters differ")
		}
		c = clientCredentials{id: id, secret: secret}
	}
	return r.Form, c, nil
}

// publicClient finds the application of a client that may be public: the
// client ID is required, the secret only checked when sent.
func (s *Server) publicClient(c clientCredentials) (*oauthAppRec, *oauthError) {
	app := s.world.oauth.byClient[c.id]
	switch {
	case c.id == "":
		return nil, oauthErr(http.StatusUnauthorized, "invalid_client", "client_id is required")
	case app == nil:
		return nil, oauthErr(http.StatusUnauthorized, "invalid_client", "client_id %q is not an OAuth application", c.id)
	case c.secret != "" && !app.clientSecretMatches(c.secret):
		return nil, oauthErr(http.StatusUnauthorized, "invalid_client", "client_secret is not the secret of client_id %q", c.id)
	}
	return app, nil
}

// checkRequestedScopes refuses a scope parameter that names a scope the
// application was not configured with.
func checkRequestedScopes(app *oauthAppRec, scope string) *oauthError {
	for _, sc := range strings.Fields(scope) {
		if !slices.Contains(app.scopes, platform.Scope(sc)) {
			return oauthErr(http.StatusBadRequest, "invalid_scope", "scope %q is not a scope of %s (its scopes: %s)", sc, app.name, platform.ScopeList(app.scopes))
		}
	}
	return nil
}

// pollDevice answers a device-flow poll of the token endpoint.
func (s *Server) pollDevice(app *oauthAppRec, req tokenRequest) (issuedToken, *oauthError) {
	if req.deviceCode == "" {
		return issuedToken{}, oauthErr(http.StatusBadRequest, "invalid_request", "device_code is required with grant_type %s", DeviceCodeGrantType)
	}
	d := s.world.oauth.devices[sha256.Sum256([]byte(req.deviceCode))]
	now := s.clock.Now()
	switch {
	case d == nil || d.app != app:
		return issuedToken{}, oauthErr(http.StatusBadRequest, "invalid_grant", "device_code is not a device code of this application")
	case d.used:
		return issuedToken{}, oauthErr(http.StatusBadRequest, "invalid_grant", "device_code was already exchanged for a token")
	case !now.Before(d.expires):
		return issuedToken{}, oauthErr(http.StatusBadRequest, "expired_token", "device_code has expired (device codes live %s): start again at /oauth/authorize_device", s.timing.OAuthDeviceCode)
	case d.denied:
		return issuedToken{}, oauthErr(http.StatusBadRequest, "access_denied", "%s denied access", d.user.name)
	case d.grant == nil:
		early := !d.lastPoll.IsZero() && now.Sub(d.lastPoll) < d.interval
		d.lastPoll = now
		if early {
			d.interval += slowDownStep
			return issuedToken{}, oauthErr(http.StatusBadRequest, "slow_down", "polled again too soon: wait %s between polls", d.interval)
		}
		return issuedToken{}, oauthErr(http.StatusBadRequest, "authorization_pending", "the user has not yet entered user code %s at %s", displayUserCode(d.userCode), devicePath)
	}
	d.used = true
	return s.issueToken(app, d.grant), nil
}

// deviceRequest is a checked request of the verification page.
type deviceRequest struct {
	device *oauthDeviceRec
	user   *userRec
}

// checkDevice finds the pending authorization of a user code for the
// signed-in user, under the lock.
func (s *Server) checkDevice(userCode string) (deviceRequest, *pageError) {
	u := s.signedIn()
	if u == nil {
		return deviceRequest{}, pageErr(http.StatusUnauthorized, "no user is signed in (the fake's SignIn names one)")
	}
	d := s.world.oauth.userCodes[normalizeUserCode(userCode)]
	switch {
	case d == nil || !s.clock.Now().Before(d.expires):
		return deviceRequest{}, pageErr(http.StatusBadRequest, "user code %q is not a pending device sign-in: check the code, or start again in the tool", userCode)
	case d.denied || d.grant != nil:
		return deviceRequest{}, pageErr(http.StatusBadRequest, "user code %q was already used", userCode)
	}
	return deviceRequest{device: d, user: u}, nil
}

// devicePage serves GET /oauth/device: the form for a user code, or the
// consent page of the code given (approved at once with auto-approval).
func (s *Server) devicePage(w http.ResponseWriter, r *http.Request) {
	code := r.URL.Query().Get("user_code")
	if code == "" {
		writePage(w, http.StatusOK, renderPage(userCodeTemplate, devicePath))
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	req, perr := s.checkDevice(code)
	if perr != nil {
		perr.write(w)
		return
	}
	if c := s.session.autoApprove; c != nil {
		s.decideDevice(w, req, *c, true)
		return
	}
	s.writeConsentPage(w, req.device.app, req.user, devicePath, [][2]string{{"user_code", displayUserCode(req.device.userCode)}})
}

// deviceDecision serves the device consent form's POST.
func (s *Server) deviceDecision(w http.ResponseWriter, r *http.Request) {
	if !readPostForm(w, r) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	req, perr := s.checkDevice(r.PostForm.Get("user_code"))
	if perr != nil {
		perr.write(w)
		return
	}
	switch d := r.PostForm.Get("decision"); d {
	case "authorize", "deny":
		s.decideDevice(w, req, consentOf(r.PostForm), d == "authorize")
	default:
		pageErr(http.StatusBadRequest, "decision must be authorize or deny, got %q", d).write(w)
	}
}

// decideDevice records the user's decision and says so on a page; the
// tool's next poll gets the token or access_denied.
func (s *Server) decideDevice(w http.ResponseWriter, req deviceRequest, c Consent, authorize bool) {
	d := req.device
	if !authorize {
		d.denied, d.user = true, req.user
		writePage(w, http.StatusOK, renderPage(deviceDoneTemplate, deviceDone{App: d.app.name, Denied: true}))
		return
	}
	g, err := s.world.grantOf(req.user, d.app, c)
	if err != nil {
		pageErr(http.StatusBadRequest, "%v", err).write(w)
		return
	}
	d.grant, d.user = g, req.user
	writePage(w, http.StatusOK, renderPage(deviceDoneTemplate, deviceDone{App: d.app.name}))
}
