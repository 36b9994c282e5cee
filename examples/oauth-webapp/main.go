// Command oauth-webapp is a small web application that signs users in
// through the platform's consent page (OAuth 2.0, authorization code) and
// lists the databases of their organizations with the SDK.
//
// To try it without an account, run it against an in-process fake of the
// platform:
//
//	go run ./examples/oauth-webapp -demo
//
// then open http://localhost:8080 and sign in: the fake's consent page acts
// for a demo user with two organizations and a few databases, and the
// clock runs in real time. Nothing outlives the process.
//
// Against the platform:
//
//	go run ./examples/oauth-webapp -client-id ID -client-secret SECRET
//
// then open http://localhost:8080. The OAuth application's redirect URI
// must be the app's /callback (by default http://<addr>/callback; set
// -redirect-url when the app is reached at another address). The client
// secret may come from the PLATFORM_CLIENT_SECRET environment variable
// instead of the command line.
//
// Each signed-in browser's token is kept in memory, or with -sessions in a
// JSON file (mode 0600) that survives restarts. The token is refreshed when
// it expires, and every refreshed token is saved at once: the platform
// rotates refresh tokens, so an old one no longer works.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
	"github.com/dbplatform/platform-go/oauth"
)

func main() {
	opts, err := parseOptions(os.Args[1:], os.Getenv, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		log.Fatal(err)
	}
	if opts.demo {
		if err := runDemo(opts.addr); err != nil {
			log.Fatal(err)
		}
		return
	}
	store, err := openSessions(opts.sessionsFile)
	if err != nil {
		log.Fatal(err)
	}
	h, err := newApp(opts.oauth, opts.apiURL, store)
	if err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{Addr: opts.addr, Handler: h, ReadHeaderTimeout: 10 * time.Second}
	log.Printf("serving on http://%s (redirect URI %s)", opts.addr, opts.oauth.RedirectURL)
	log.Fatal(srv.ListenAndServe())
}

// runDemo serves the app against an in-process fake on addr, in real time,
// until it is interrupted.
func runDemo(addr string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	d, err := startDemo(ctx, addr, "", fake.WithRealTime())
	if err != nil {
		return err
	}
	defer d.Close()
	fmt.Printf("oauth-webapp demo: open %s and sign in as %s\n", d.url, demoUserName)
	fmt.Printf("the platform's fake (API and consent page) is at %s\n", d.fake.URL())
	fmt.Println("press Ctrl-C to stop")
	return d.wait(ctx)
}

// options are the command line's settings.
type options struct {
	demo         bool
	addr         string
	apiURL       string
	sessionsFile string
	oauth        oauth.Config
}

// secretEnv is the environment variable that may hold the client secret.
const secretEnv = "PLATFORM_CLIENT_SECRET"

// parseOptions reads the flags in args; usage goes to out.
func parseOptions(args []string, getenv func(string) string, out io.Writer) (*options, error) {
	var o options
	fs := flag.NewFlagSet("oauth-webapp", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.BoolVar(&o.demo, "demo", false, "run against an in-process fake of the platform, with a demo user and databases")
	fs.StringVar(&o.addr, "addr", "localhost:8080", "address to serve on")
	fs.StringVar(&o.oauth.ClientID, "client-id", "", "the OAuth application's client ID (required unless -demo)")
	fs.StringVar(&o.oauth.ClientSecret, "client-secret", "", "the OAuth application's client secret (default $"+secretEnv+")")
	fs.StringVar(&o.oauth.AuthURL, "auth-url", oauth.DefaultAuthURL, "the authorization server's address")
	fs.StringVar(&o.apiURL, "api-url", platform.DefaultBaseURL, "the API's base URL")
	fs.StringVar(&o.oauth.RedirectURL, "redirect-url", "", "the app's redirect URI (default http://<addr>"+callbackPath+")")
	fs.StringVar(&o.sessionsFile, "sessions", "", "JSON file keeping the sessions across restarts (default: in memory)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if o.demo {
		var other []string
		fs.Visit(func(f *flag.Flag) {
			if f.Name != "demo" && f.Name != "addr" {
				other = append(other, "-"+f.Name)
			}
		})
		if len(other) > 0 {
			return nil, fmt.Errorf("-demo makes its own platform and OAuth application and keeps nothing, so these flags do not apply: %s", strings.Join(other, " "))
		}
		return &options{demo: true, addr: o.addr}, nil
	}
	if o.oauth.ClientSecret == "" {
		o.oauth.ClientSecret = getenv(secretEnv)
	}
	if o.oauth.ClientID == "" || o.oauth.ClientSecret == "" {
		return nil, fmt.Errorf("-client-id and -client-secret (or $%s) are required", secretEnv)
	}
	if o.oauth.RedirectURL == "" {
		o.oauth.RedirectURL = "http://" + o.addr + callbackPath
	}
	return &o, nil
}
