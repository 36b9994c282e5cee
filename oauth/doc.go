// Package oauth signs users in to the Database Platform with OAuth 2.0 (the
// authorization-code grant) and keeps their tokens fresh. It is a thin layer
// over golang.org/x/oauth2 that knows the platform's endpoints and fixes two
// pitfalls of using x/oauth2 directly: refreshes run on a context that is
// never cancelled, and every refreshed token is handed to the application to
// save, because the platform rotates refresh tokens on every refresh. Its
// requests to the authorization server follow no redirect (a 307 or 308
// would send the client secret, a code or a refresh token on to another
// host): a redirect is an error. Its error texts never repeat a secret the
// request sent; [Redacted] stands in its place.
//
// Quick start, in a web application whose redirect URI is
// https://app.example/callback:
//
//	cfg := &oauth.Config{
//		ClientID:     os.Getenv("CLIENT_ID"),
//		ClientSecret: os.Getenv("CLIENT_SECRET"),
//		RedirectURL:  "https://app.example/callback",
//	}
//	mux := http.NewServeMux()
//	// /login sends the browser to the consent page, with a fresh state kept
//	// in a short-lived cookie.
//	mux.Handle("GET /login", cfg.LoginHandler())
//	// /callback checks the state, exchanges the code and hands over the
//	// token; a nil error handler answers failures with 400, 403 or 502.
//	mux.Handle("GET /callback", cfg.CallbackHandler(
//		func(w http.ResponseWriter, r *http.Request, tok *oauth2.Token) {
//			startSession(w, tok) // the application's own: keep tok, set a cookie
//			http.Redirect(w, r, "/", http.StatusFound)
//		}, nil))
//
// Then, to call the API on the user's behalf, build one token source per
// signed-in user and keep it with the session:
//
//	ts := cfg.TokenSource(ctx, tok, func(t *oauth2.Token) error {
//		return saveToken(session, t) // called with every refreshed token
//	})
//	client, err := platform.NewClient(platform.WithTokenSource(ts))
//
// Applications that keep the state elsewhere (a server-side session) use
// [NewState], [Config.AuthCodeURL] and [Config.Exchange] directly.
//
// A command-line tool, which has no redirect URI, signs its user in with the
// device flow (RFC 8628) instead, as a public client with a client ID only:
//
//	cfg := &oauth.Config{ClientID: cliClientID, Scopes: []string{"user:read_user"}}
//	da, err := cfg.DeviceAuth(ctx)
//	if err != nil {
//		return err
//	}
//	fmt.Printf("Open %s and enter the code %s\n", da.VerificationURI, da.UserCode)
//	tok, err := cfg.DeviceAccessToken(ctx, da, nil) // polls until the user decides
//
// The platform refreshes a token only for a client that sends its secret,
// so such a token lasts until it expires (expires_in seconds after the
// sign-in); then [Config.TokenSource] fails with [ErrNoClientSecret],
// without a request, and the tool signs its user in again. A tool that
// has a ClientSecret sets it, and its TokenSource refreshes as above.
//
// Signing out revokes the token at the platform ([Config.Revoke], RFC
// 7009): the access token and the refresh token of that sign-in both stop
// working.
//
// Tests run these flows against the fake server of package fake, on its
// clock: AuthURL is the server's AuthURL, Now its Now (tokens are dated
// and judged expired on that clock, so advancing it past a token's
// lifetime makes a TokenSource refresh), and DeviceAccessToken's sleep its
// Sleep (the polls move the clock instead of waiting). The example of
// [Config.TokenSource] does all three.
package oauth
