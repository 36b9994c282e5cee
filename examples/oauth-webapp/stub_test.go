package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/dbplatform/platform-go"
)

// The OAuth application the stub knows.
const (
	stubClientID     = "webapp-id"
	stubClientSecret = "webapp-secret"
)

// stubOrgs are the organizations the stub's API lists, with their databases.
var stubOrgs = []struct {
	name      string
	databases []string
}{
	{"acme", []string{"app-db", "analytics"}},
	{"side-project", []string{"hobby-db"}},
}

// platformStub plays the platform for the app's tests on one listener: the
// authorization server under /auth/ (authorize approves at once, or denies;
// the token endpoint issues numbered tokens and rotates the refresh token on
// every refresh, so an old one stops working) and the API under /api/
// (organizations and their databases, for a valid access token).
type platformStub struct {
	srv       *httptest.Server
	expiresIn int

	mu        sync.Mutex
	deny      bool              // authorize answers error=access_denied
	issued    int               // tokens issued
	codes     map[string]string // unused codes, with the redirect URI each was issued for
	refresh   string            // the refresh token that works now
	access    map[string]bool   // access tokens the API accepts
	tokenReqs []url.Values      // parameters of each token request
}

// newPlatformStub starts a stub whose access tokens live expiresIn seconds.
// Under x/oauth2's 10 s expiry margin, a token counts as expired at once, so
// each API request refreshes first.
func newPlatformStub(t *testing.T, expiresIn int) *platformStub {
	t.Helper()
	s := &platformStub{expiresIn: expiresIn, codes: map[string]string{}, access: map[string]bool{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /auth/oauth/authorize", s.authorize)
	mux.HandleFunc("POST /auth/oauth/token", s.token)
	mux.HandleFunc("GET /api/v1/organizations", s.authed(s.listOrganizations))
	mux.HandleFunc("GET /api/v1/organizations/{organization}/databases", s.authed(s.listDatabases))
	s.srv = httptest.NewServer(mux)
	t.Cleanup(s.srv.Close)
	return s
}

func (s *platformStub) authURL() string { return s.srv.URL + "/auth" }
func (s *platformStub) apiURL() string  { return s.srv.URL + "/api/" }

// setDeny makes the user deny (true) or approve (false) the application.
func (s *platformStub) setDeny(deny bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.deny = deny
}

// revoke makes every token issued so far stop working, access and refresh.
func (s *platformStub) revoke() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.access = map[string]bool{}
	s.refresh = ""
}

// tokenRequests returns the grant type and the code or refresh token of
// each token request, as "grant_type:value".
func (s *platformStub) tokenRequests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, p := range s.tokenReqs {
		out = append(out, p.Get("grant_type")+":"+p.Get("code")+p.Get("refresh_token"))
	}
	return out
}

// lastRefreshToken is the refresh token that works now.
func (s *platformStub) lastRefreshToken() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refresh
}

func (s *platformStub) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	redirect, err := url.Parse(q.Get("redirect_uri"))
	if q.Get("client_id") != stubClientID || err != nil || !redirect.IsAbs() {
		http.Error(w, "unknown application or bad redirect_uri", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	back := url.Values{}
	if s.deny {
		back.Set("error", "access_denied")
	} else {
		s.issued++
		code := fmt.Sprintf("code-%d", s.issued)
		s.codes[code] = redirect.String()
		back.Set("code", code)
	}
	s.mu.Unlock()
	if state := q.Get("state"); state != "" {
		back.Set("state", state)
	}
	redirect.RawQuery = back.Encode()
	http.Redirect(w, r, redirect.String(), http.StatusFound)
}

func (s *platformStub) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		stubOAuthError(w, http.StatusBadRequest, "invalid_request")
		return
	}
	p := r.Form
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tokenReqs = append(s.tokenReqs, p)
	if p.Get("client_id") != stubClientID || p.Get("client_secret") != stubClientSecret {
		stubOAuthError(w, http.StatusUnauthorized, "invalid_client")
		return
	}
	switch p.Get("grant_type") {
	case "authorization_code":
		redirect, ok := s.codes[p.Get("code")]
		if !ok || redirect != p.Get("redirect_uri") {
			stubOAuthError(w, http.StatusBadRequest, "invalid_grant")
			return
		}
		delete(s.codes, p.Get("code"))
	case "refresh_token":
		if s.refresh == "" || p.Get("refresh_token") != s.refresh {
			stubOAuthError(w, http.StatusBadRequest, "invalid_grant")
			return
		}
	default:
		stubOAuthError(w, http.StatusBadRequest, "unsupported_grant_type")
		return
	}
	s.issued++
	access := fmt.Sprintf("access-%d", s.issued)
	s.access[access] = true
	s.refresh = fmt.Sprintf("refresh-%d", s.issued)
	stubJSON(w, http.StatusOK, map[string]any{
		"access_token":  access,
		"token_type":    "Bearer",
		"expires_in":    s.expiresIn,
		"refresh_token": s.refresh,
		"scope":         "read_organization read_databases",
	})
}

// authed answers 401 unless the request carries a valid access token.
func (s *platformStub) authed(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		s.mu.Lock()
		ok = ok && s.access[tok]
		s.mu.Unlock()
		if !ok {
			stubJSON(w, http.StatusUnauthorized, platform.Error{Code: "unauthorized", Message: "invalid access token"})
			return
		}
		h(w, r)
	}
}

func (s *platformStub) listOrganizations(w http.ResponseWriter, r *http.Request) {
	var orgs []*platform.Organization
	for _, o := range stubOrgs {
		orgs = append(orgs, &platform.Organization{ID: "org-" + o.name, Type: "organization", Name: o.name})
	}
	stubJSON(w, http.StatusOK, platform.Page[platform.Organization]{Type: "list", CurrentPage: 1, PerPage: 25, Items: orgs})
}

func (s *platformStub) listDatabases(w http.ResponseWriter, r *http.Request) {
	for _, o := range stubOrgs {
		if o.name != r.PathValue("organization") {
			continue
		}
		var dbs []*platform.Database
		for _, name := range o.databases {
			dbs = append(dbs, &platform.Database{ID: "db-" + name, Type: "database", Name: name, State: platform.DatabaseReady, Ready: true})
		}
		stubJSON(w, http.StatusOK, platform.Page[platform.Database]{Type: "list", CurrentPage: 1, PerPage: 25, Items: dbs})
		return
	}
	stubJSON(w, http.StatusNotFound, platform.Error{Code: "not_found", Message: "no such organization"})
}

func stubOAuthError(w http.ResponseWriter, status int, code string) {
	stubJSON(w, status, map[string]string{"error": code, "error_description": code + " (stub)"})
}

func stubJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
