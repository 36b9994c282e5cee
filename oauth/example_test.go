package oauth_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"strings"

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

func ExampleConfig_CallbackHandler() {
	cfg := &oauth.Config{
		ClientID:     "app-123",
		ClientSecret: "secret",
		RedirectURL:  "https://app.example/callback",
	}
	mux := http.NewServeMux()
	mux.Handle("GET /login", cfg.LoginHandler())
	mux.Handle("GET /callback", cfg.CallbackHandler(
		func(w http.ResponseWriter, r *http.Request, tok *oauth2.Token) {
			// Store tok for the user, then go back to the application.
			http.Redirect(w, r, "/", http.StatusFound)
		},
		nil, // the default error page
	))
	log.Fatal(http.ListenAndServe("localhost:8080", mux))
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
