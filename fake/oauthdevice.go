package fake

import (
	"crypto/sha256"
	"fmt"
	"net"
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
func (w *world) newDevice(app *oauthAppRec) (string, *oauthDeviceRec) {
	st := &w.oauth
	if st.devices == nil {
		st.devices = map[[32]byte]*oauthDeviceRec{}
		st.userCodes = map[string]*oauthDeviceRec{}
	}
	var userCode string
	for userCode == "" || st.userCodes[userCode] != nil {
		b := make([]byte, 8)
		for i := range b {
			b[i] = userCodeAlphabet[w.rng.IntN(len(userCodeAlphabet))]
		}
		userCode = string(b)
	}
	code := w.newSecret("device_", 40)
	h := sha256.Sum256([]byte(code))
	d := &oauthDeviceRec{app: app, userCode: userCode, expires: w.clock.Now().Add(w.timing.OAuthDeviceCode), interval: w.timing.OAuthDevicePoll}
	st.devices[h] = d
	st.userCodes[userCode] = d
	w.clock.After(2*w.timing.OAuthDeviceCode, deviceExpiryJob{h, userCode})
	return code, d
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

// deviceAuthParams are the parameters of POST /oauth/authorize_device.
var deviceAuthParams = []string{"client_id", "client_secret", "scope"}

// authorizeDevice serves POST /oauth/authorize_device.
func (s *Server) authorizeDevice(w http.ResponseWriter, r *http.Request) {
	form, client, oerr := readOAuthForm(w, r, deviceAuthParams)
	if oerr != nil {
		oerr.write(w)
		return
	}
	s.mu.Lock()
	app, oerr := s.world.publicClient(client)
	if oerr == nil {
		oerr = checkRequestedScopes(app, form.Get("scope"))
	}
	var resp deviceAuthResponse
	if oerr == nil {
		code, d := s.world.newDevice(app)
		s.autoApproveDevice(d)
		verify := strings.TrimSuffix(s.AuthURL(), "/") + devicePath
		resp = deviceAuthResponse{
			DeviceCode:              code,
			UserCode:                displayUserCode(d.userCode),
			VerificationURI:         verify,
			VerificationURIComplete: verify + "?" + url.Values{"user_code": {displayUserCode(d.userCode)}}.Encode(),
			ExpiresIn:               int64(s.world.timing.OAuthDeviceCode / time.Second),
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

// autoApproveDevice approves a new device authorization at once when
// auto-approval is set, as the signed-in user with its consent. When that
// consent cannot be granted (or nobody is signed in), the authorization
// waits, and the verification page says why.
func (s *Server) autoApproveDevice(d *oauthDeviceRec) {
	c, u := s.session.autoApprove, s.signedIn()
	if c != nil && u != nil {
		_ = s.world.decideDevice(d, u, *c, true)
	}
}

// clientCredentials are the client_id and client_secret of a request of the
// OAuth server, from its parameters or an HTTP Basic header.
type clientCredentials struct{ id, secret string }

// readOAuthForm parses the parameters of a request of the OAuth server (the
// query string and a form body) and its client credentials. params are the
// parameters the endpoint defines: each may be sent once (RFC 6749 3.2),
// in the query string or the form body; one sent twice, in either or once
// in each, is invalid_request. Other parameters are ignored, as RFC 6749
// 3.1 asks, repeated or not.
func readOAuthForm(w http.ResponseWriter, r *http.Request, params []string) (url.Values, clientCredentials, *oauthError) {
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	if err := r.ParseForm(); err != nil {
		return nil, clientCredentials{}, oauthErr(http.StatusBadRequest, "invalid_request", "reading the parameters: %v", err)
	}
	// r.Form holds the query string's values and the form body's together.
	if name := repeatedParam(r.Form, params); name != "" {
		return nil, clientCredentials{}, oauthErr(http.StatusBadRequest, "invalid_request", "%s, in the query string or the form body", repeatedMessage(r.Form, name))
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
func (w *world) publicClient(c clientCredentials) (*oauthAppRec, *oauthError) {
	app := w.oauth.byClient[c.id]
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
// application was not configured with. A name without a resource is the
// scope on the organization, or on the user for the user scopes
// (qualifyScope).
func checkRequestedScopes(app *oauthAppRec, scope string) *oauthError {
	for sc := range strings.FieldsSeq(scope) {
		if q := qualifyScope(sc); !slices.Contains(app.scopes, q) {
			return oauthErr(http.StatusBadRequest, "invalid_scope", "scope %q (%s) is not a scope of %s (its scopes: %s)", sc, q, app.name, platform.ScopeList(app.scopes))
		}
	}
	return nil
}

// qualifyScope resolves a scope name of a request: resource:name as it is;
// a bare name, as the service's command-line tool asks for at sign-in
// (read_databases), is the scope of that name on the organization, or on
// the user when only the user has it (read_user). A name neither has stays
// as written, and no application has it.
func qualifyScope(name string) platform.Scope {
	if strings.Contains(name, ":") {
		return platform.Scope(name)
	}
	for _, res := range []string{platform.ScopeResourceOrganization, platform.ScopeResourceUser} {
		if sc := platform.Scope(res + ":" + name); slices.Contains(knownScopes, sc) {
			return sc
		}
	}
	return platform.Scope(name)
}

// pollDevice answers a device-flow poll of the token endpoint.
func (w *world) pollDevice(app *oauthAppRec, req tokenRequest) (issuedToken, *oauthError) {
	if req.deviceCode == "" {
		return issuedToken{}, oauthErr(http.StatusBadRequest, "invalid_request", "device_code is required with grant_type %s", DeviceCodeGrantType)
	}
	d := w.oauth.devices[sha256.Sum256([]byte(req.deviceCode))]
	now := w.clock.Now()
	switch {
	case d == nil || d.app != app:
		return issuedToken{}, oauthErr(http.StatusBadRequest, "invalid_grant", "device_code is not a device code of this application")
	case d.used:
		return issuedToken{}, oauthErr(http.StatusBadRequest, "invalid_grant", "device_code was already exchanged for a token")
	case !now.Before(d.expires) && d.grant != nil:
		return issuedToken{}, oauthErr(http.StatusBadRequest, "expired_token", "device_code has expired (device codes live %s): user code %s was approved, but no poll came before the code expired; start again at /oauth/authorize_device", w.timing.OAuthDeviceCode, displayUserCode(d.userCode))
	case !now.Before(d.expires):
		return issuedToken{}, oauthErr(http.StatusBadRequest, "expired_token", "device_code has expired (device codes live %s) and nobody approved user code %s in time (at %s, or in a test with the fake's ApproveDevice or auto-approval): start again at /oauth/authorize_device", w.timing.OAuthDeviceCode, displayUserCode(d.userCode), devicePath)
	case d.denied:
		who := "the user"
		if d.user != nil {
			who = d.user.name
		}
		return issuedToken{}, oauthErr(http.StatusBadRequest, "access_denied", "%s denied the sign-in of user code %s (the verification page's Deny, or the fake's DenyDevice): start again at /oauth/authorize_device to ask again", who, displayUserCode(d.userCode))
	case d.grant == nil:
		early := !d.lastPoll.IsZero() && now.Sub(d.lastPoll) < d.interval
		d.lastPoll = now
		if early {
			d.interval += slowDownStep
			return issuedToken{}, oauthErr(http.StatusBadRequest, "slow_down", "polled again too soon: wait %s between polls", d.interval)
		}
		return issuedToken{}, oauthErr(http.StatusBadRequest, "authorization_pending", "nobody has approved user code %s yet: the user enters it at %s (in a test, the fake's ApproveDevice or auto-approval approves it)", displayUserCode(d.userCode), devicePath)
	}
	d.used = true
	return w.issueToken(app, d.grant), nil
}

// deviceRequest is a checked request of the verification page.
type deviceRequest struct {
	device *oauthDeviceRec
	user   *userRec
}

// deviceCodeError is why a user code names no device sign-in waiting for a
// decision; unknown when it names none at all.
type deviceCodeError struct {
	msg     string
	unknown bool
}

func (e *deviceCodeError) Error() string { return e.msg }

// pendingDevice finds the device authorization of a user code that waits
// for the user's decision, under the lock.
func (w *world) pendingDevice(userCode string) (*oauthDeviceRec, *deviceCodeError) {
	d := w.oauth.userCodes[normalizeUserCode(userCode)]
	switch {
	case d == nil:
		return nil, &deviceCodeError{msg: fmt.Sprintf("user code %q is not a pending device sign-in: check the code, or start again in the tool", userCode), unknown: true}
	case !w.clock.Now().Before(d.expires):
		return nil, &deviceCodeError{msg: fmt.Sprintf("user code %q is not a pending device sign-in: it expired at %s (device codes live %s); start again in the tool", userCode, d.expires.Format(time.RFC3339), w.timing.OAuthDeviceCode)}
	case d.denied:
		return nil, &deviceCodeError{msg: fmt.Sprintf("user code %q was already used: the sign-in was denied", userCode)}
	case d.grant != nil:
		return nil, &deviceCodeError{msg: fmt.Sprintf("user code %q was already used: the sign-in was approved", userCode)}
	}
	return d, nil
}

// Wrong user codes at the verification page are throttled per client
// address, on the fake's clock: the userCodeTries-th wrong code within
// userCodeWindow of the first is answered 429 slow_down, and every code
// from that address, right or wrong, is refused (429) until the window
// ends. An 8-letter code of 20 letters cannot be guessed at that pace.
const (
	userCodeTries  = 5
	userCodeWindow = time.Minute
	// userCodeAddrs bounds the addresses remembered: past it, addresses
	// whose window ended are forgotten.
	userCodeAddrs = 1024
)

// codeTries counts the wrong user codes of an address in a window.
type codeTries struct {
	start time.Time
	wrong int
}

// clientAddr is the address throttling counts a request against: its
// remote IP.
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// codeThrottle refuses a user code from addr while its wrong codes are
// over the limit; nil lets it be checked.
func (s *Server) codeThrottle(addr string) *pageError {
	t, now := s.codeTries[addr], s.world.clock.Now()
	if t == nil || t.wrong < userCodeTries || !now.Before(t.start.Add(userCodeWindow)) {
		return nil
	}
	wait := t.start.Add(userCodeWindow).Sub(now)
	return &pageError{status: http.StatusTooManyRequests, retryAfter: wait,
		message: fmt.Sprintf("refused: too many wrong user codes from this address; try again in %s", wait)}
}

// wrongCode counts a wrong user code from addr and answers slow_down when
// it reaches the limit; nil below it.
func (s *Server) wrongCode(addr string) *pageError {
	now := s.world.clock.Now()
	if s.codeTries == nil {
		s.codeTries = map[string]*codeTries{}
	}
	t := s.codeTries[addr]
	if t == nil || !now.Before(t.start.Add(userCodeWindow)) {
		if len(s.codeTries) >= userCodeAddrs {
			for a, old := range s.codeTries {
				if !now.Before(old.start.Add(userCodeWindow)) {
					delete(s.codeTries, a)
				}
			}
		}
		t = &codeTries{start: now}
		s.codeTries[addr] = t
	}
	if t.wrong++; t.wrong < userCodeTries {
		return nil
	}
	wait := t.start.Add(userCodeWindow).Sub(now)
	return &pageError{status: http.StatusTooManyRequests, retryAfter: wait,
		message: fmt.Sprintf("slow_down: %d wrong user codes from this address within %s; wait %s before the next", t.wrong, userCodeWindow, wait)}
}

// checkDevice finds the pending authorization of a user code for the
// signed-in user, under the lock, counting a wrong code against the
// client's address.
func (s *Server) checkDevice(r *http.Request, userCode string) (deviceRequest, *pageError) {
	u := s.signedIn()
	if u == nil {
		return deviceRequest{}, pageErr(http.StatusUnauthorized, "no user is signed in (the fake's SignIn names one)")
	}
	addr := clientAddr(r)
	if perr := s.codeThrottle(addr); perr != nil {
		return deviceRequest{}, perr
	}
	d, derr := s.world.pendingDevice(userCode)
	if derr != nil {
		if derr.unknown {
			if perr := s.wrongCode(addr); perr != nil {
				return deviceRequest{}, perr
			}
		}
		return deviceRequest{}, pageErr(http.StatusBadRequest, "%s", derr.msg)
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
	s.underLock(w, func(w http.ResponseWriter) {
		req, perr := s.checkDevice(r, code)
		if perr != nil {
			perr.write(w)
			return
		}
		if c := s.session.autoApprove; c != nil {
			s.decideDevice(w, req, *c, true)
			return
		}
		s.writeConsentPage(w, r, req.device.app, req.user, devicePath, [][2]string{{"user_code", displayUserCode(req.device.userCode)}})
	})
}

// deviceDecision serves the device consent form's POST.
func (s *Server) deviceDecision(w http.ResponseWriter, r *http.Request) {
	if !readPostForm(w, r) {
		return
	}
	s.underLock(w, func(w http.ResponseWriter) {
		if perr := s.checkSignedInForm(r); perr != nil {
			perr.write(w)
			return
		}
		req, perr := s.checkDevice(r, r.PostForm.Get("user_code"))
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
	})
}

// decideDevice records the user's decision and says so on a page; the
// tool's next poll gets the token or access_denied.
func (s *Server) decideDevice(w http.ResponseWriter, req deviceRequest, c Consent, authorize bool) {
	if err := s.world.decideDevice(req.device, req.user, c, authorize); err != nil {
		pageErr(http.StatusBadRequest, "%v", err).write(w)
		return
	}
	writePage(w, http.StatusOK, renderPage(deviceDoneTemplate, deviceDone{App: req.device.app.name, Denied: !authorize}))
}

// decideDevice records user's decision on d: a grant of what c chooses, or
// a denial.
func (w *world) decideDevice(d *oauthDeviceRec, user *userRec, c Consent, authorize bool) error {
	if !authorize {
		d.denied, d.user = true, user
		return nil
	}
	g, err := w.grantOf(user, d.app, c)
	if err != nil {
		return err
	}
	d.grant, d.user = g, user
	return nil
}

// ApproveDevice approves the device sign-in of userCode (as shown to the
// user, XXXX-XXXX, in any case, with or without the dash) as the signed-in
// user (the admin user unless [Server.SignIn] named another), granting the
// application's scopes on the user's default organization: what the
// verification page would do if the user pressed Authorize. (While
// [Server.SetAutoApprove] holds a consent, a sign-in is approved as it is
// created, so there is nothing left to approve; one created before it, or
// whose auto-approval failed, is approved with that consent.) The tool's
// next poll gets its token. An unknown, expired or already decided code,
// nobody signed in, or a consent the user cannot give is an error, and
// changes nothing.
func (s *Server) ApproveDevice(userCode string) error {
	return s.decideDeviceCode("ApproveDevice", userCode, true)
}

// DenyDevice denies the device sign-in of userCode as the signed-in user,
// as the verification page's Deny does: the tool's next poll is answered
// access_denied. Its errors are those of [Server.ApproveDevice].
func (s *Server) DenyDevice(userCode string) error {
	return s.decideDeviceCode("DenyDevice", userCode, false)
}

// decideDeviceCode is ApproveDevice (authorize) and DenyDevice; method
// names the one in errors, which wrap a *deviceCodeError for a code that
// names no pending sign-in.
func (s *Server) decideDeviceCode(method, userCode string, authorize bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	u := s.signedIn()
	if u == nil {
		return fmt.Errorf("fake: %s: no user is signed in to decide (SignIn names one)", method)
	}
	d, derr := s.world.pendingDevice(userCode)
	if derr != nil {
		return methodErr(method, derr)
	}
	var c Consent
	if s.session.autoApprove != nil {
		c = *s.session.autoApprove
	}
	if err := s.world.decideDevice(d, u, c, authorize); err != nil {
		return methodErr(method, err)
	}
	return nil
}
