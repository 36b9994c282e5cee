package oauth

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"golang.org/x/oauth2"
)

// StateCookieName is the cookie in which [Config.LoginHandler] keeps the
// state until [Config.CallbackHandler] checks it.
const StateCookieName = "oauth_state"

// stateMaxAge is how long, in seconds, a sign-in may take: the state cookie
// lives as long as an authorization code, 10 minutes.
const stateMaxAge = 10 * 60

// ErrState means the callback's state is missing or is not the one this
// browser was given when it started signing in: the request did not come
// from a sign-in this application started, and no code is exchanged.
var ErrState = errors.New("oauth: the state is missing or does not match this browser's sign-in")

// ErrAccessDenied means the user denied the application access on the
// consent page.
var ErrAccessDenied = errors.New("oauth: the user denied access")

// CallbackError is why a request to [Config.CallbackHandler] yielded no
// token. It wraps [ErrState], [ErrAccessDenied], another error the
// authorization server reported, the failed exchange, or the handler's own
// misuse (no code in the request, no onToken function).
type CallbackError struct {
	// StatusCode is the status the default error page answers with:
	// 400 for a missing or wrong state, a missing code or an authorization
	// error, 403 when the user denied access, 502 when the exchange failed,
	// 500 when CallbackHandler was given no onToken.
	StatusCode int
	// Err is the reason.
	Err error
}

// Error implements error.
func (e *CallbackError) Error() string { return e.Err.Error() }

// Unwrap returns the reason, for errors.Is and errors.As.
func (e *CallbackError) Unwrap() error { return e.Err }

// LoginHandler returns the handler that starts a sign-in: it makes a state
// with [NewState], keeps it in a short-lived (10 minutes), HttpOnly,
// SameSite=Lax cookie named [StateCookieName], scoped to the redirect URI's
// path (and Secure when that URI is https), and redirects the browser (302)
// to [Config.AuthCodeURL]. A second sign-in started in the same browser
// replaces the first one's state.
func (c *Config) LoginHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		state, err := NewState()
		if err != nil {
			http.Error(w, "cannot start signing in", http.StatusInternalServerError)
			return
		}
		http.SetCookie(w, c.stateCookie(state, stateMaxAge))
		w.Header().Set("Cache-Control", "no-store")
		http.Redirect(w, r, c.AuthCodeURL(state), http.StatusFound)
	})
}

// CallbackHandler returns the handler for the redirect URI. It compares the
// state in the query with the one [Config.LoginHandler] left in the cookie
// (in constant time) and stops on a missing or different one before
// anything else; the cookie is then cleared, so a state serves once. It then
// stops when the platform reported an error (error=access_denied when the
// user denied access), and otherwise exchanges the code with
// [Config.Exchange] on the request's context and calls onToken with the
// token; onToken answers the request, typically by storing the token and
// redirecting.
//
// When no token comes out, onError is called with a [*CallbackError]; a nil
// onError answers with the error's StatusCode and a short plain-text page.
// A nil onToken makes every callback fail with 500: there is nothing to hand
// the token to.
func (c *Config) CallbackHandler(
	onToken func(w http.ResponseWriter, r *http.Request, tok *oauth2.Token),
	onError func(w http.ResponseWriter, r *http.Request, err error),
) http.Handler {
	if onError == nil {
		onError = writeCallbackError
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		if onToken == nil {
			onError(w, r, &CallbackError{StatusCode: http.StatusInternalServerError, Err: errors.New("oauth: CallbackHandler has no onToken function")})
			return
		}
		tok, err := c.callback(w, r)
		if err != nil {
			onError(w, r, err)
			return
		}
		onToken(w, r, tok)
	})
}

// callback checks a request to the redirect URI and exchanges its code.
func (c *Config) callback(w http.ResponseWriter, r *http.Request) (*oauth2.Token, error) {
	q := r.URL.Query()
	state := q.Get("state")
	cookie, err := r.Cookie(StateCookieName)
	if err != nil || cookie.Value == "" || state == "" ||
		subtle.ConstantTimeCompare([]byte(cookie.Value), []byte(state)) != 1 {
		return nil, &CallbackError{StatusCode: http.StatusBadRequest, Err: ErrState}
	}
	http.SetCookie(w, c.stateCookie("", -1))

	switch code := q.Get("error"); code {
	case "":
	case "access_denied":
		return nil, &CallbackError{StatusCode: http.StatusForbidden, Err: ErrAccessDenied}
	default:
		err := fmt.Errorf("oauth: the authorization server refused the sign-in: %s", code)
		if d := q.Get("error_description"); d != "" {
			err = fmt.Errorf("%w (%s)", err, d)
		}
		return nil, &CallbackError{StatusCode: http.StatusBadRequest, Err: err}
	}

	code := q.Get("code")
	if code == "" {
		return nil, &CallbackError{StatusCode: http.StatusBadRequest, Err: errors.New("oauth: the callback has no code")}
	}
	tok, err := c.Exchange(r.Context(), code)
	if err != nil {
		return nil, &CallbackError{StatusCode: http.StatusBadGateway, Err: fmt.Errorf("oauth: exchanging the code: %w", err)}
	}
	return tok, nil
}

// writeCallbackError is the default error page of CallbackHandler. It shows
// the reason, except for a failed exchange, whose details (the token
// endpoint's answer) are for the application's logs, not the browser.
func writeCallbackError(w http.ResponseWriter, _ *http.Request, err error) {
	status := http.StatusBadRequest
	var ce *CallbackError
	if errors.As(err, &ce) {
		status = ce.StatusCode
	}
	msg := err.Error()
	if status == http.StatusBadGateway {
		msg = "signing in failed: the authorization server issued no token"
	}
	http.Error(w, msg, status)
}

// stateCookie returns the state cookie with value v; maxAge -1 deletes it.
func (c *Config) stateCookie(v string, maxAge int) *http.Cookie {
	path, secure := "/", false
	if u, err := url.Parse(c.RedirectURL); err == nil {
		if u.Path != "" {
			path = u.Path
		}
		secure = u.Scheme == "https"
	}
	return &http.Cookie{
		Name:     StateCookieName,
		Value:    v,
		Path:     path,
		MaxAge:   maxAge,
		HttpOnly: true,
		Secure:   secure,
		SameSite: http.SameSiteLaxMode,
	}
}
