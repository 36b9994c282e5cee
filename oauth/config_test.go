package oauth_test

import (
	"errors"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"golang.org/x/oauth2"

	"github.com/dbplatform/platform-go/oauth"
)

func TestAuthCodeURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		cfg       oauth.Config
		wantURL   string // scheme, host and path
		wantQuery url.Values
	}{
		{
			name:    "default auth URL, no scopes",
			cfg:     oauth.Config{ClientID: "app-id", ClientSecret: "never-sent", RedirectURL: "https://app.example/cb?x=1"},
			wantURL: oauth.DefaultAuthURL + "/oauth/authorize",
			wantQuery: url.Values{
				"client_id":     {"app-id"},
				"redirect_uri":  {"https://app.example/cb?x=1"},
				"response_type": {"code"},
				"state":         {"st/ate+1"},
			},
		},
		{
			name:    "own auth URL with a trailing slash, scopes",
			cfg:     oauth.Config{ClientID: "app-id", RedirectURL: "http://127.0.0.1:8080/callback", AuthURL: "http://127.0.0.1:9000/", Scopes: []string{"read_user", "read_databases"}},
			wantURL: "http://127.0.0.1:9000/oauth/authorize",
			wantQuery: url.Values{
				"client_id":     {"app-id"},
				"redirect_uri":  {"http://127.0.0.1:8080/callback"},
				"response_type": {"code"},
				"scope":         {"read_user read_databases"},
				"state":         {"st/ate+1"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			u, err := url.Parse(tt.cfg.AuthCodeURL("st/ate+1"))
			if err != nil {
				t.Fatal(err)
			}
			if got := u.Scheme + "://" + u.Host + u.Path; got != tt.wantURL {
				t.Errorf("authorization endpoint = %s, want %s", got, tt.wantURL)
			}
			if diff := cmp.Diff(tt.wantQuery, u.Query()); diff != "" {
				t.Errorf("query (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOAuth2Endpoints(t *testing.T) {
	t.Parallel()
	cfg := &oauth.Config{ClientID: "a", ClientSecret: "s", RedirectURL: "https://app.example/cb", AuthURL: "https://auth.test/", Scopes: []string{"read_user"}}
	want := &oauth2.Config{
		ClientID:     "a",
		ClientSecret: "s",
		RedirectURL:  "https://app.example/cb",
		Scopes:       []string{"read_user"},
		Endpoint: oauth2.Endpoint{
			AuthURL:       "https://auth.test/oauth/authorize",
			TokenURL:      "https://auth.test/oauth/token",
			DeviceAuthURL: "https://auth.test/oauth/authorize_device",
			AuthStyle:     oauth2.AuthStyleInParams,
		},
	}
	if diff := cmp.Diff(want, cfg.OAuth2(), cmpopts.IgnoreUnexported(oauth2.Config{})); diff != "" {
		t.Errorf("OAuth2() (-want +got):\n%s", diff)
	}
}

func TestExchange(t *testing.T) {
	t.Parallel()
	e := newTokenEndpoint(t, 3600)
	tok, err := e.config().Exchange(t.Context(), testCode)
	if err != nil {
		t.Fatalf("Exchange: %v", err)
	}

	got := struct {
		Access, Refresh, Type, Scope string
		ExpiresIn                    int64
		HasExpiry                    bool
	}{tok.AccessToken, tok.RefreshToken, tok.TokenType, tok.Extra("scope").(string), tok.ExpiresIn, !tok.Expiry.IsZero()}
	want := got
	want.Access, want.Refresh, want.Type, want.Scope, want.ExpiresIn, want.HasExpiry = "access-1", "refresh-1", "Bearer", "read_user read_databases", 3600, true
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("token (-want +got):\n%s", diff)
	}

	// The parameters travel in the form body: client credentials included,
	// nothing in the URL, no Basic header.
	wantReq := []tokenRequest{{
		Form: url.Values{
			"grant_type":    {"authorization_code"},
			"client_id":     {testClientID},
			"client_secret": {testClientSecret},
			"code":          {testCode},
			"redirect_uri":  {testRedirectURL},
		},
		Query: url.Values{},
	}}
	if diff := cmp.Diff(wantReq, e.received()); diff != "" {
		t.Errorf("token requests (-want +got):\n%s", diff)
	}
}

func TestExchangeRefused(t *testing.T) {
	t.Parallel()
	e := newTokenEndpoint(t, 3600)
	cfg := e.config()
	if _, err := cfg.Exchange(t.Context(), testCode); err != nil {
		t.Fatalf("first Exchange: %v", err)
	}
	// A code works once.
	_, err := cfg.Exchange(t.Context(), testCode)
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) || re.ErrorCode != "invalid_grant" {
		t.Errorf("second Exchange: err = %v, want an *oauth2.RetrieveError with code invalid_grant", err)
	}
}

func TestNewState(t *testing.T) {
	t.Parallel()
	const n = 200
	seen := make(map[string]bool, n)
	for range n {
		s, err := oauth.NewState()
		if err != nil {
			t.Fatal(err)
		}
		if len(s) != 43 {
			t.Errorf("NewState() = %q: %d characters, want 43 (32 bytes, base64 without padding)", s, len(s))
		}
		if url.QueryEscape(s) != s {
			t.Errorf("NewState() = %q is not URL-safe", s)
		}
		if seen[s] {
			t.Fatalf("NewState() returned %q twice", s)
		}
		seen[s] = true
	}
}
