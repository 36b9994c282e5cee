package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
	"github.com/dbplatform/platform-go/oauth"
)

// The demo serves the app against an in-process fake of the platform, so
// that it runs without an account: the fake holds a user who belongs to two
// organizations with a few databases, an OAuth application whose redirect
// URI is the app's /callback, and that user signed in on its consent page.

// The demo's user, who signs in on the fake's consent page.
const (
	demoUserName  = "Grace Hopper"
	demoUserEmail = "grace@example.com"
)

// demoAppName is the OAuth application's name, shown on the consent page.
const demoAppName = "Database Lister"

// demoScopes are what the app asks for: to list the user's organizations
// and the databases of those the user chooses on the consent page.
var demoScopes = []platform.Scope{platform.ScopeUserReadOrganizations, platform.ScopeOrganizationReadDatabases}

// demoOrgs are the demo user's organizations, with their databases. The
// first is the user's default organization, which the consent page offers
// selected; the user is a member of it and an admin of the others.
var demoOrgs = []struct {
	name      string
	databases []string
}{
	{"acme", []string{"app-db", "analytics"}},
	{"side-project", []string{"hobby-db"}},
}

// demo is the app served against an in-process fake.
type demo struct {
	fake   *fake.Server
	app    fake.OAuthApp // the OAuth application, with its client secret
	config oauth.Config  // the app's OAuth settings
	url    string        // the app's address: http://host:port
	server *http.Server
	served chan error // the result of serving, when it ends
}

// startDemo starts a fake with opts (its own organization is demoOrgs[0]),
// seeds it, and serves the app on addr (port 0 picks a free port) with the
// sessions kept in sessionsFile ("" keeps them in memory). ctx bounds the
// seeding. The caller must Close the demo.
func startDemo(ctx context.Context, addr, sessionsFile string, opts ...fake.Option) (d *demo, err error) {
	srv, err := fake.New(append([]fake.Option{fake.WithOrganization(demoOrgs[0].name)}, opts...)...)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			srv.Close()
		}
	}()
	user, err := seedDemo(ctx, srv)
	if err != nil {
		return nil, fmt.Errorf("seeding the fake: %w", err)
	}
	store, err := openSessions(sessionsFile)
	if err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			l.Close()
		}
	}()
	base := demoBaseURL(addr, l.Addr())
	app, err := srv.CreateOAuthApplication(srv.Org(), fake.OAuthAppSpec{
		Name: demoAppName, Domain: base, RedirectURI: base + callbackPath, Scopes: demoScopes,
	})
	if err != nil {
		return nil, err
	}
	if err := srv.SignIn(user); err != nil {
		return nil, err
	}
	cfg := oauth.Config{ClientID: app.ClientID, ClientSecret: app.ClientSecret, RedirectURL: app.RedirectURI, AuthURL: srv.AuthURL()}
	h, err := newApp(cfg, srv.URL(), store)
	if err != nil {
		return nil, err
	}
	d = &demo{
		fake: srv, app: app, config: cfg, url: base,
		server: &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second},
		served: make(chan error, 1),
	}
	go func() { d.served <- d.server.Serve(l) }()
	return d, nil
}

// seedDemo adds the demo user to the organizations of demoOrgs, creating
// all but the fake's own, and creates their databases, which become ready
// on the fake's clock. It returns the user's ID.
func seedDemo(ctx context.Context, srv *fake.Server) (string, error) {
	user := srv.CreateUser(demoUserName, demoUserEmail)
	for i, o := range demoOrgs {
		role := platform.RoleAdmin
		if i == 0 {
			role = platform.RoleMember
		} else if err := srv.CreateOrganization(o.name); err != nil {
			return "", err
		}
		if err := srv.AddMember(o.name, user, role); err != nil {
			return "", err
		}
		tok, err := srv.CreateServiceToken(o.name, fake.TokenSpec{Name: "demo seed", Permissions: fake.AllPermissions()})
		if err != nil {
			return "", err
		}
		client := srv.ClientFor(tok)
		for _, name := range o.databases {
			p := &platform.CreateDatabaseParams{Organization: o.name, Name: name, ClusterSize: "PS_10"}
			if _, err := client.Databases.Create(ctx, p); err != nil {
				return "", err
			}
		}
	}
	return user, nil
}

// demoBaseURL is the app's address: the host the user gave in addr
// (localhost when none, or an unspecified one), with the port it listens
// on.
func demoBaseURL(addr string, listening net.Addr) string {
	host, _, _ := net.SplitHostPort(addr)
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "localhost"
	}
	_, port, _ := net.SplitHostPort(listening.String())
	return "http://" + net.JoinHostPort(host, port)
}

// Close stops the app and the fake.
func (d *demo) Close() {
	d.server.Close()
	d.fake.Close()
}

// wait returns when serving fails, or when ctx is done.
func (d *demo) wait(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return nil
	case err := <-d.served:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return err
	}
}
