package oauth_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"

	"github.com/dbplatform/platform-go/oauth"
)

// The application the test token endpoint knows.
const (
	testClientID     = "app-id"
	testClientSecret = "app-secret"
	testRedirectURL  = "https://app.example/auth/callback"
	testCode         = "code-1"
)

// tokenRequest is a request the test token endpoint received.
type tokenRequest struct {
	// Form is the form body; the endpoint also accepts the parameters in
	// the query string, like the platform.
	Form url.Values
	// Query is the query string.
	Query url.Values
	// Authorization is the Authorization header, "" when absent.
	Authorization string
	// Marker is the X-Test-Client header, set by a custom HTTP client.
	Marker string
}

// tokenEndpoint is a token endpoint written for these tests. It accepts the
// code testCode once, and exactly one refresh token at a time: each refresh
// rotates it, like the platform does. Tokens are numbered in issue order
// (access-1/refresh-1, access-2/refresh-2, ...).
type tokenEndpoint struct {
	srv       *httptest.Server
	expiresIn int

	mu       sync.Mutex
	requests []tokenRequest
	issued   int
	codeUsed bool
	refresh  string // the refresh token that works now
}

// newTokenEndpoint starts a token endpoint whose tokens live expiresIn
// seconds. A lifetime under x/oauth2's 10 s expiry margin makes every token
// count as expired at once, so each Token call refreshes.
func newTokenEndpoint(t *testing.T, expiresIn int) *tokenEndpoint {
	t.Helper()
	e := &tokenEndpoint{expiresIn: expiresIn, refresh: "refresh-0"}
	e.srv = httptest.NewServer(http.HandlerFunc(e.serve))
	t.Cleanup(e.srv.Close)
	return e
}

// config returns the test application's configuration for this endpoint.
func (e *tokenEndpoint) config() *oauth.Config {
	return &oauth.Config{
		ClientID:     testClientID,
		ClientSecret: testClientSecret,
		RedirectURL:  testRedirectURL,
		AuthURL:      e.srv.URL,
	}
}

// received returns the requests so far.
func (e *tokenEndpoint) received() []tokenRequest {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]tokenRequest(nil), e.requests...)
}

func (e *tokenEndpoint) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/oauth/token" {
		http.NotFound(w, r)
		return
	}
	if err := r.ParseForm(); err != nil {
		tokenEndpointError(w, http.StatusBadRequest, "invalid_request")
		return
	}
	p := r.Form
	e.mu.Lock()
	defer e.mu.Unlock()
	e.requests = append(e.requests, tokenRequest{Form: r.PostForm, Query: r.URL.Query(), Authorization: r.Header.Get("Authorization"), Marker: r.Header.Get("X-Test-Client")})
	if p.Get("client_id") != testClientID || p.Get("client_secret") != testClientSecret {
		tokenEndpointError(w, http.StatusUnauthorized, "invalid_client")
		return
	}
	switch p.Get("grant_type") {
	case "authorization_code":
		if p.Get("code") != testCode || e.codeUsed || p.Get("redirect_uri") != testRedirectURL {
			tokenEndpointError(w, http.StatusBadRequest, "invalid_grant")
			return
		}
		e.codeUsed = true
	case "refresh_token":
		if p.Get("refresh_token") != e.refresh {
			tokenEndpointError(w, http.StatusBadRequest, "invalid_grant")
			return
		}
	default:
		tokenEndpointError(w, http.StatusBadRequest, "unsupported_grant_type")
		return
	}
	e.issued++
	e.refresh = fmt.Sprintf("refresh-%d", e.issued)
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"access_token":  fmt.Sprintf("access-%d", e.issued),
		"token_type":    "Bearer",
		"expires_in":    e.expiresIn,
		"refresh_token": e.refresh,
		"scope":         "read_user read_databases",
	})
}

// tokenEndpointError answers with an RFC 6749 error body.
func tokenEndpointError(w http.ResponseWriter, status int, code string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": code, "error_description": code + " (test endpoint)"})
}
