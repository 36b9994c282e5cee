package oauth_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strings"
	"time"

	"golang.org/x/oauth2"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
	"github.com/dbplatform/platform-go/oauth"
)

func ExampleConfig_AuthCodeURL() {
	cfg := &oauth.Config{
		ClientID:    "app-123",
		RedirectURL: "https://app.example/callback",
	}
	// In a real sign-in the state comes from oauth.NewState and is checked
	// on the way back; LoginHandler and CallbackHandler do both.
	fmt.Println(cfg.AuthCodeURL("a-random-state"))
	// Output:
	// https://auth.dbplatform.dev/oauth/authorize?client_id=app-123&redirect_uri=https%3A%2F%2Fapp.example%2Fcallback&response_type=code&state=a-random-state
}

// ExampleConfig_CallbackHandler serves a web application's sign-in
// (LoginHandler and CallbackHandler) and signs a user in through it,
// against a fake server: a client with a cookie jar plays the browser, and
// the fake approves the consent page for the user (SetAutoApprove).
func ExampleConfig_CallbackHandler() {
	srv, err := fake.New()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()

	// The web application. Its address is its OAuth application's domain,
	// so it is started before the application is created.
	mux := http.NewServeMux()
	web := httptest.NewServer(mux)
	defer web.Close()
	app, err := srv.CreateOAuthApplication(srv.Org(), fake.OAuthAppSpec{
		Name: "Dashboard", Domain: web.URL, RedirectURI: web.URL + "/callback",
		Scopes: []platform.Scope{platform.ScopeUserReadUser},
	})
	if err != nil {
		log.Fatal(err)
	}
	cfg := &oauth.Config{
		ClientID:     app.ClientID,
		ClientSecret: app.ClientSecret,
		RedirectURL:  app.RedirectURI,
		AuthURL:      srv.AuthURL(),
	}
	mux.Handle("GET /login", cfg.LoginHandler())
	mux.Handle("GET /callback", cfg.CallbackHandler(
		func(w http.ResponseWriter, r *http.Request, tok *oauth2.Token) {
			// A real application stores tok for the user, then redirects.
			fmt.Println("scope:", tok.Extra("scope"))
			fmt.Println("refresh token:", tok.RefreshToken != "")
			client, err := platform.NewClient(platform.WithBaseURL(srv.URL()), platform.WithTokenSource(cfg.TokenSource(r.Context(), tok, nil)))
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			me, err := client.Users.GetCurrent(r.Context())
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadGateway)
				return
			}
			fmt.Fprintln(w, "signed in as", me.Name)
		},
		nil, // the default error page
	))

	// The user approves on the consent page; in a test, the fake approves
	// for them.
	srv.SetAutoApprove(&fake.Consent{})

	// The browser keeps the state cookie between /login and /callback.
	jar, err := cookiejar.New(nil)
	if err != nil {
		log.Fatal(err)
	}
	browser := &http.Client{Jar: jar}
	resp, err := browser.Get(web.URL + "/login")
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	page, err := io.ReadAll(resp.Body)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d %s", resp.StatusCode, page)
	// Output:
	// scope: user:read_user
	// refresh token: true
	// 200 signed in as Ada Admin
}

// ExampleConfig_DeviceAccessToken signs a command-line tool's user in with
// the device flow, against a fake server: the user's approval in a browser
// is played by the fake's ApproveDevice, and the polls wait on
// the fake's clock (srv.Sleep) instead of the wall clock.
func ExampleConfig_DeviceAccessToken() {
	srv, err := fake.New()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	app, err := srv.CreateOAuthApplication(srv.Org(), fake.OAuthAppSpec{
		Name: "Platform CLI", Domain: "https://cli.example.com", RedirectURI: "https://cli.example.com/cb",
		Scopes: []platform.Scope{platform.ScopeUserReadUser},
	})
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()

	// A public client: a client ID, no secret.
	cfg := &oauth.Config{ClientID: app.ClientID, AuthURL: srv.AuthURL()}
	da, err := cfg.DeviceAuth(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("open %s and enter the %d-character code\n", strings.TrimPrefix(da.VerificationURI, srv.AuthURL()), len(da.UserCode))

	// The user approves on the verification page; in a test, the fake
	// approves for them.
	if err := srv.ApproveDevice(da.UserCode); err != nil {
		log.Fatal(err)
	}

	tok, err := cfg.DeviceAccessToken(ctx, da, srv.Sleep)
	if err != nil {
		log.Fatal(err)
	}
	client, err := platform.NewClient(platform.WithBaseURL(srv.URL()), platform.WithTokenSource(oauth2.StaticTokenSource(tok)))
	if err != nil {
		log.Fatal(err)
	}
	me, err := client.Users.GetCurrent(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("signed in as", me.Name)
	// Output:
	// open oauth/device and enter the 9-character code
	// signed in as Ada Admin
}

// ExampleConfig_TokenSource keeps a signed-in user's access token fresh.
// The application has a client secret, so its tokens can be refreshed; the
// user signs in with the device flow (see ExampleConfig_DeviceAccessToken).
// Config.Now is the fake's clock, which dates the tokens and by which the
// source judges them expired, so moving that clock past the token's
// lifetime makes the source refresh it.
func ExampleConfig_TokenSource() {
	srv, err := fake.New()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	app, err := srv.CreateOAuthApplication(srv.Org(), fake.OAuthAppSpec{
		Name: "Reports", Domain: "https://reports.example.com", RedirectURI: "https://reports.example.com/cb",
		Scopes: []platform.Scope{platform.ScopeUserReadUser},
	})
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	cfg := &oauth.Config{ClientID: app.ClientID, ClientSecret: app.ClientSecret, AuthURL: srv.AuthURL(), Now: srv.Now}
	da, err := cfg.DeviceAuth(ctx)
	if err != nil {
		log.Fatal(err)
	}
	if err := srv.ApproveDevice(da.UserCode); err != nil {
		log.Fatal(err)
	}
	tok, err := cfg.DeviceAccessToken(ctx, da, srv.Sleep)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("token valid for", tok.Expiry.Sub(srv.Now()))

	// Each refresh replaces the refresh token too, and the old one stops
	// working: save stores the new token where the next run will find it.
	save := func(t *oauth2.Token) error {
		fmt.Println("refreshed; saving the new token, valid for", t.Expiry.Sub(srv.Now()))
		return nil
	}
	client, err := platform.NewClient(platform.WithBaseURL(srv.URL()), platform.WithTokenSource(cfg.TokenSource(ctx, tok, save)))
	if err != nil {
		log.Fatal(err)
	}
	whoami := func() {
		me, err := client.Users.GetCurrent(ctx)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("signed in as", me.Name)
	}
	whoami()

	// A second past the token's lifetime, the next request refreshes it.
	srv.Advance(tok.Expiry.Sub(srv.Now()) + time.Second)
	whoami()
	// Output:
	// token valid for 720h0m0s
	// signed in as Ada Admin
	// refreshed; saving the new token, valid for 720h0m0s
	// signed in as Ada Admin
}
