package oauth_test

import (
	"fmt"
	"log"
	"net/http"

	"golang.org/x/oauth2"

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
