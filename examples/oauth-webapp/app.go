package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"html/template"
	"log"
	"net/http"
	"net/url"

	"golang.org/x/oauth2"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/oauth"
)

// callbackPath is where the app serves its redirect URI.
const callbackPath = "/callback"

// sessionCookieName is the cookie holding a signed-in browser's session ID.
const sessionCookieName = "session"

// app is the web application.
type app struct {
	oauth    *oauth.Config
	apiURL   string
	sessions *sessions
	secure   bool // cookies only over https: the app is served over https
}

// newApp returns the application's handler:
//
//	GET  /          the sign-in link, or the signed-in user's databases
//	GET  /login     starts signing in (redirects to the consent page)
//	GET  /callback  the redirect URI: checks the state, exchanges the code
//	POST /logout    ends the session and revokes its token
//
// cfg.RedirectURL must name /callback on the address the app is served at.
// The API is at apiBaseURL; sessions live in store.
func newApp(cfg oauth.Config, apiBaseURL string, store *sessions) (http.Handler, error) {
	u, err := url.Parse(cfg.RedirectURL)
	if err != nil || !u.IsAbs() || u.Path != callbackPath {
		return nil, fmt.Errorf("the redirect URL %q must be an absolute URL whose path is %s, where the app serves its callback", cfg.RedirectURL, callbackPath)
	}
	if _, err := platform.NewClient(platform.WithBaseURL(apiBaseURL)); err != nil {
		return nil, err
	}
	a := &app{oauth: &cfg, apiURL: apiBaseURL, sessions: store, secure: u.Scheme == "https"}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", a.home)
	mux.Handle("GET /login", a.oauth.LoginHandler())
	mux.Handle("GET "+callbackPath, a.oauth.CallbackHandler(a.signedIn, a.signInFailed))
	mux.HandleFunc("POST /logout", a.logout)
	return mux, nil
}

// signedIn starts a session for the token the callback obtained.
func (a *app) signedIn(w http.ResponseWriter, r *http.Request, tok *oauth2.Token) {
	id, err := a.sessions.create(tok)
	if err != nil {
		log.Printf("starting a session: %v", err)
		http.Error(w, "signed in, but the session could not be kept", http.StatusInternalServerError)
		return
	}
	http.SetCookie(w, a.sessionCookie(id))
	http.Redirect(w, r, "/", http.StatusFound)
}

// signInFailed answers a callback that yielded no token with the home
// page, its sign-in link, and why: the user chose Deny, the sign-in did not
// start in this browser, or the platform refused it.
func (a *app) signInFailed(w http.ResponseWriter, _ *http.Request, err error) {
	status, notice := http.StatusBadRequest, "Signing in failed. Please try again."
	var ce *oauth.CallbackError
	if errors.As(err, &ce) {
		status = ce.StatusCode
	}
	switch {
	case errors.Is(err, oauth.ErrAccessDenied):
		notice = accessDeniedNotice
	case errors.Is(err, oauth.ErrState):
		notice = stateNotice
	default:
		log.Printf("signing in: %v", err)
	}
	a.render(w, status, homePage{Notice: notice})
}

// The notices of the signed-out home page.
const (
	// accessDeniedNotice: the user chose Deny on the consent page.
	accessDeniedNotice = "You denied access, so your databases cannot be listed."
	// stateNotice: the callback's state is not this browser's.
	stateNotice = "This sign-in did not start in this browser, or it took too long. Please sign in again."
	// signInEndedNotice: the platform no longer accepts the user's token.
	signInEndedNotice = "Your sign-in has ended."
)

// home shows the sign-in link, or the databases of every organization the
// signed-in user's token can see.
func (a *app) home(w http.ResponseWriter, r *http.Request) {
	id := sessionID(r)
	orgs, ok, err := a.databasesOf(r, id)
	switch {
	case !ok:
		a.render(w, http.StatusOK, homePage{})
	case err == nil:
		a.render(w, http.StatusOK, homePage{SignedIn: true, Orgs: orgs})
	case signInEnded(err):
		a.endSession(w, id)
		a.render(w, http.StatusOK, homePage{Notice: signInEndedNotice})
	default:
		log.Printf("listing databases: %v", err)
		a.render(w, http.StatusBadGateway, homePage{SignedIn: true, Error: "Listing your databases failed: " + err.Error()})
	}
}

// databasesOf lists the databases of session id's user; ok is false when
// there is no such session. When the API refuses the access token, the
// token is refreshed and the listing tried once more: the platform's clock,
// not the expiry the app computed when the token came, says when a token
// has expired. A second refusal is final.
func (a *app) databasesOf(r *http.Request, id string) ([]orgDatabases, bool, error) {
	for refreshed := false; ; refreshed = true {
		client, ok, err := a.client(r, id)
		if !ok || err != nil {
			return nil, ok, err
		}
		orgs, err := listDatabases(r.Context(), client)
		if refreshed || !errors.Is(err, platform.ErrUnauthorized) || !a.sessions.expire(id, client) {
			return orgs, true, err
		}
	}
}

// client returns session id's API client; ok is false when there is no
// such session.
func (a *app) client(r *http.Request, id string) (c *platform.Client, ok bool, err error) {
	return a.sessions.client(id, func(tok *oauth2.Token) (*platform.Client, error) {
		// The token source outlives this request: it refreshes on a context
		// detached from r's, and saves each refreshed token in the session.
		ts := a.oauth.TokenSource(r.Context(), tok, func(t *oauth2.Token) error { return a.sessions.save(id, t) })
		return platform.NewClient(platform.WithBaseURL(a.apiURL), platform.WithTokenSource(ts))
	})
}

// logout ends the session and revokes its token at the platform, so that a
// copy of it (a backup of the sessions file, a log) stops working too:
// revoking the refresh token ends its access tokens with it. A failed
// revocation is logged; the session ends anyway.
func (a *app) logout(w http.ResponseWriter, r *http.Request) {
	id := sessionID(r)
	if tok := a.sessions.token(id); tok != nil {
		t := cmp.Or(tok.RefreshToken, tok.AccessToken)
		if err := a.oauth.Revoke(r.Context(), t); err != nil {
			log.Printf("revoking a session's token: %v", err)
		}
	}
	a.endSession(w, id)
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// endSession forgets session id and clears the browser's cookie.
func (a *app) endSession(w http.ResponseWriter, id string) {
	if err := a.sessions.remove(id); err != nil {
		log.Printf("ending a session: %v", err)
	}
	c := a.sessionCookie("")
	c.MaxAge = -1
	http.SetCookie(w, c)
}

// signInEnded reports whether err means the user must sign in again: the
// token endpoint refused the refresh token (invalid_grant: the user revoked
// the application's access, say), or the API refused the access token even
// after a refresh. Other failures of the token endpoint, an outage or the
// app's own credentials, end no session: the next visit tries again.
func signInEnded(err error) bool {
	var refused *oauth2.RetrieveError
	if errors.As(err, &refused) {
		return refused.ErrorCode == "invalid_grant"
	}
	return errors.Is(err, platform.ErrUnauthorized)
}

// sessionCookie returns the session cookie holding id. SameSite=Lax, not
// Strict: the browser arrives at the callback from the consent page, another
// site, and must bring the cookie on the redirect that follows.
func (a *app) sessionCookie(id string) *http.Cookie {
	return &http.Cookie{Name: sessionCookieName, Value: id, Path: "/", HttpOnly: true, Secure: a.secure, SameSite: http.SameSiteLaxMode}
}

// sessionID is the request's session ID, "" when it has none.
func sessionID(r *http.Request) string {
	c, err := r.Cookie(sessionCookieName)
	if err != nil {
		return ""
	}
	return c.Value
}

// orgDatabases is an organization and its databases, as the page shows them.
type orgDatabases struct {
	Name      string
	Databases []*platform.Database
	// NotShared is set when the token may not list the organization's
	// databases: the user did not choose it on the consent page.
	NotShared bool
}

// listDatabases lists the databases of every organization the client sees.
func listDatabases(ctx context.Context, client *platform.Client) ([]orgDatabases, error) {
	var out []orgDatabases
	for org, err := range client.Organizations.All(ctx, nil) {
		if err != nil {
			return nil, err
		}
		od := orgDatabases{Name: org.Name}
		for db, err := range client.Databases.All(ctx, &platform.ListDatabasesParams{Organization: org.Name}) {
			if errors.Is(err, platform.ErrNotFound) {
				// The API hides what a token may not read: the user
				// signed in without granting this organization.
				od = orgDatabases{Name: org.Name, NotShared: true}
				break
			}
			if err != nil {
				return nil, err
			}
			od.Databases = append(od.Databases, db)
		}
		out = append(out, od)
	}
	return out, nil
}

// homePage is what the home page shows.
type homePage struct {
	SignedIn bool
	Orgs     []orgDatabases
	Notice   string // for a signed-out visitor
	Error    string // for a signed-in one
}

var homeTemplate = template.Must(template.New("home").Parse(`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Your databases</title></head>
<body>
{{- if .SignedIn}}
<h1>Your databases</h1>
{{- range $org := .Orgs}}
<h2 class="organization">{{$org.Name}}</h2>
{{- if $org.NotShared}}
<p class="not-shared" data-organization="{{$org.Name}}">Not shared with this app. To list its databases, sign out, sign in again and choose {{$org.Name}} on the consent page.</p>
{{- else if $org.Databases}}
<ul>
{{- range $org.Databases}}
<li class="database" data-organization="{{$org.Name}}" data-name="{{.Name}}">{{.Name}} ({{.State}})</li>
{{- end}}
</ul>
{{- else}}
<p>No databases.</p>
{{- end}}
{{- else}}
<p>No organizations.</p>
{{- end}}
{{- with .Error}}
<p class="error">{{.}}</p>
{{- end}}
<form method="post" action="/logout"><button type="submit">Sign out</button></form>
{{- else}}
{{- with .Notice}}
<p class="notice">{{.}}</p>
{{- end}}
<p><a id="sign-in" href="/login">Sign in</a> to list your databases.</p>
{{- end}}
</body>
</html>
`))

// render writes the home page.
func (a *app) render(w http.ResponseWriter, status int, p homePage) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	if err := homeTemplate.Execute(w, p); err != nil {
		log.Printf("rendering the home page: %v", err)
	}
}
