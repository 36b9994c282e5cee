package oauth_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/oauth2"

	"github.com/dbplatform/platform-go/oauth"
)

func TestLoginHandler(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		redirectURL string
		wantPath    string
		wantSecure  bool
	}{
		{"https redirect URI", "https://app.example/auth/callback", "/auth/callback", true},
		{"http redirect URI", "http://localhost:8080/callback", "/callback", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := &oauth.Config{ClientID: testClientID, ClientSecret: testClientSecret, RedirectURL: tt.redirectURL, AuthURL: "https://auth.test"}
			rec := httptest.NewRecorder()
			cfg.LoginHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/login", nil))

			res := rec.Result()
			if res.StatusCode != http.StatusFound {
				t.Fatalf("status %d, want 302", res.StatusCode)
			}
			cookies := res.Cookies()
			if len(cookies) != 1 {
				t.Fatalf("cookies %v, want one state cookie", cookies)
			}
			c := cookies[0]
			type attrs struct {
				Name, Path       string
				MaxAge           int
				HTTPOnly, Secure bool
				SameSite         http.SameSite
				ValueLen         int
			}
			wantAttrs := attrs{oauth.StateCookieName, tt.wantPath, 600, true, tt.wantSecure, http.SameSiteLaxMode, 43}
			if diff := cmp.Diff(wantAttrs, attrs{c.Name, c.Path, c.MaxAge, c.HttpOnly, c.Secure, c.SameSite, len(c.Value)}); diff != "" {
				t.Errorf("state cookie (-want +got):\n%s", diff)
			}
			if got, want := res.Header.Get("Location"), cfg.AuthCodeURL(c.Value); got != want {
				t.Errorf("Location = %s, want the authorization URL with the cookie's state %s", got, want)
			}
		})
	}

	t.Run("a new state every time", func(t *testing.T) {
		t.Parallel()
		cfg := &oauth.Config{ClientID: testClientID, RedirectURL: testRedirectURL}
		states := map[string]bool{}
		for range 3 {
			rec := httptest.NewRecorder()
			cfg.LoginHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/login", nil))
			u, err := url.Parse(rec.Header().Get("Location"))
			if err != nil {
				t.Fatal(err)
			}
			states[u.Query().Get("state")] = true
		}
		if len(states) != 3 {
			t.Errorf("3 sign-ins used %d different states, want 3", len(states))
		}
	})
}

// callbackResult is what a request to the callback handler led to.
type callbackResult struct {
	Status      int
	Token       string // the access token onToken got, "" if not called
	Reason      string // what onError got: "state", "denied", "other"; "" if not called
	Exchanges   int    // requests to the token endpoint
	ClearsState bool   // the response deletes the state cookie
}

// callbackReason classifies an error of the callback handler.
func callbackReason(err error) string {
	switch {
	case errors.Is(err, oauth.ErrState):
		return "state"
	case errors.Is(err, oauth.ErrAccessDenied):
		return "denied"
	}
	return "other"
}

func TestCallbackHandler(t *testing.T) {
	t.Parallel()
	const state = "the-state"
	tests := []struct {
		name   string
		cookie string // state cookie value; "" sends none
		query  string
		want   callbackResult
	}{
		{
			name: "success", cookie: state, query: "code=" + testCode + "&state=" + state,
			want: callbackResult{Status: http.StatusOK, Token: "access-1", Exchanges: 1, ClearsState: true},
		},
		{
			name: "state mismatch", cookie: state, query: "code=" + testCode + "&state=the-statf",
			want: callbackResult{Status: http.StatusBadRequest, Reason: "state"},
		},
		{
			name: "state missing from the query", cookie: state, query: "code=" + testCode,
			want: callbackResult{Status: http.StatusBadRequest, Reason: "state"},
		},
		{
			name: "no state cookie", query: "code=" + testCode + "&state=" + state,
			want: callbackResult{Status: http.StatusBadRequest, Reason: "state"},
		},
		{
			name: "access denied", cookie: state, query: "error=access_denied&state=" + state,
			want: callbackResult{Status: http.StatusForbidden, Reason: "denied", ClearsState: true},
		},
		{
			name: "denial with a wrong state", cookie: state, query: "error=access_denied&state=other",
			want: callbackResult{Status: http.StatusBadRequest, Reason: "state"},
		},
		{
			name: "no code", cookie: state, query: "state=" + state,
			want: callbackResult{Status: http.StatusBadRequest, Reason: "other", ClearsState: true},
		},
		{
			name: "code refused", cookie: state, query: "code=stolen&state=" + state,
			want: callbackResult{Status: http.StatusBadGateway, Reason: "other", Exchanges: 1, ClearsState: true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newTokenEndpoint(t, 3600)
			var got callbackResult
			h := e.config().CallbackHandler(
				func(w http.ResponseWriter, r *http.Request, tok *oauth2.Token) {
					got.Token = tok.AccessToken
					w.WriteHeader(http.StatusOK)
				},
				func(w http.ResponseWriter, r *http.Request, err error) {
					got.Reason = callbackReason(err)
					var ce *oauth.CallbackError
					if !errors.As(err, &ce) {
						t.Errorf("onError got %T %v, want a *oauth.CallbackError", err, err)
						return
					}
					w.WriteHeader(ce.StatusCode)
				})
			req := httptest.NewRequestWithContext(t.Context(), http.MethodGet, "/auth/callback?"+tt.query, nil)
			if tt.cookie != "" {
				req.AddCookie(&http.Cookie{Name: oauth.StateCookieName, Value: tt.cookie})
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)

			got.Status = rec.Code
			got.Exchanges = len(e.received())
			for _, c := range rec.Result().Cookies() {
				if c.Name == oauth.StateCookieName && c.MaxAge < 0 {
					got.ClearsState = true
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("callback (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCallbackHandlerDefaultErrorPage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		query      string
		wantStatus int
		wantBody   string
	}{
		{"state mismatch", "code=" + testCode + "&state=wrong", http.StatusBadRequest, oauth.ErrState.Error()},
		{"access denied", "error=access_denied&state=s", http.StatusForbidden, oauth.ErrAccessDenied.Error()},
		{"other authorization error", "error=invalid_request&error_description=bad+redirect&state=s", http.StatusBadRequest, "invalid_request (bad redirect)"},
		{"exchange refused", "code=stolen&state=s", http.StatusBadGateway, "the authorization server issued no token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newTokenEndpoint(t, 3600)
			h := e.config().CallbackHandler(func(w http.ResponseWriter, r *http.Request, tok *oauth2.Token) {
				t.Error("onToken called")
			}, nil)
			req := httptest.NewRequestWithContext(t.Context(), http.MethodGet, "/auth/callback?"+tt.query, nil)
			req.AddCookie(&http.Cookie{Name: oauth.StateCookieName, Value: "s"})
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tt.wantStatus || !strings.Contains(rec.Body.String(), tt.wantBody) {
				t.Errorf("got %d %q, want %d with %q", rec.Code, rec.Body.String(), tt.wantStatus, tt.wantBody)
			}
			if strings.Contains(rec.Body.String(), testClientSecret) {
				t.Errorf("the error page shows the client secret: %q", rec.Body.String())
			}
		})
	}
}

// TestLoginThenCallback runs a whole sign-in through a browser-like client:
// the cookie LoginHandler sets is what CallbackHandler checks.
func TestLoginThenCallback(t *testing.T) {
	t.Parallel()
	e := newTokenEndpoint(t, 3600)
	cfg := e.config()
	var got *oauth2.Token
	mux := http.NewServeMux()
	mux.Handle("GET /login", cfg.LoginHandler())
	mux.Handle("GET /auth/callback", cfg.CallbackHandler(func(w http.ResponseWriter, r *http.Request, tok *oauth2.Token) {
		got = tok
	}, nil))

	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "https://app.example/login", nil))
	consent, err := url.Parse(rec.Header().Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	// The user approves; the platform sends the browser back with the code
	// and the state it was given.
	req := httptest.NewRequestWithContext(t.Context(), http.MethodGet,
		"https://app.example/auth/callback?code="+testCode+"&state="+url.QueryEscape(consent.Query().Get("state")), nil)
	for _, c := range rec.Result().Cookies() {
		req.AddCookie(c)
	}
	rec = httptest.NewRecorder()
	mux.ServeHTTP(rec, req)
	if got == nil {
		t.Fatalf("onToken not called; status %d %q", rec.Code, rec.Body.String())
	}
	if got.AccessToken != "access-1" {
		t.Errorf("token %q, want access-1", got.AccessToken)
	}
}

func TestCallbackHandlerWithoutOnToken(t *testing.T) {
	t.Parallel()
	cfg := &oauth.Config{ClientID: testClientID, ClientSecret: testClientSecret, RedirectURL: "https://app.example/callback", AuthURL: "https://auth.test"}
	var got error
	h := cfg.CallbackHandler(nil, func(w http.ResponseWriter, r *http.Request, err error) {
		got = err
		w.WriteHeader(http.StatusInternalServerError)
	})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/callback?code=c&state=s", nil))
	var cbErr *oauth.CallbackError
	if rec.Code != http.StatusInternalServerError || !errors.As(got, &cbErr) || cbErr.StatusCode != http.StatusInternalServerError {
		t.Errorf("status %d, error %v; want 500 and a *CallbackError with status 500", rec.Code, got)
	}
}
