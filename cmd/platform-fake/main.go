// Command platform-fake runs the in-memory fake of the Database Platform API
// as a standalone HTTP server, so that clients in other languages can test
// against the same fake as Go code.
//
// Usage:
//
//	platform-fake [-addr 127.0.0.1:8080] [-seed 1] [-org acme] [-virtual-time] [-rate-limit 0] [-strict-bodies] [-state FILE] [-read-header-timeout 10s] [-write-timeout 1m] [-idle-timeout 1m]
//
// On startup it prints a line saying it serves, then, one "key: value" per
// line, the base URL, the organization, the admin token (its ID, its secret
// and the Authorization header value), the clock, the state file, the state
// page and a curl command to try, and last how to stop it; then it serves
// until SIGINT or SIGTERM. The admin token holds every
// permission on the organization and also opens the control endpoints under
// /_fake/: the fake's Go API over HTTP (seed users, members, tokens and
// OAuth applications, push schemas, inject faults, emit events, advance the
// virtual clock, read the request log, events and webhook deliveries; see
// fake.ControlPrefix and the README). The "state page" line is a link to
// a web page of the server's state that signs a browser in once, without
// the token (a browser that opens /_fake/ signs in with the Authorization
// value).
//
// A server shared by many clients keeps no connection forever for a client
// that is slow, gone or never reads: a client has -read-header-timeout to
// send a request's headers (or, on a new connection, its first request's),
// the server -write-timeout from the end of the headers to write the whole
// response (a slower reader is cut off; a wait longer than that, a fault
// rule's latency or POST /_fake/deliveries/flush?timeout=, is not cut
// short, but its answer is dropped: the client waits the whole delay and
// gets none), and a kept-alive connection waits -idle-timeout for its next
// request. 0 turns
// a timeout off. No response is written while the server's state is
// locked, so a client that does not read holds up only itself.
//
// With -state FILE, the server's whole state (resources, clock, pending
// transitions, IDs, credentials; see fake.Server.Snapshot) survives a
// restart: it is loaded from FILE at start when FILE exists (its
// organization, IDs and admin token then replace what -org and -seed would
// give, and its clock runs as -virtual-time says, so restart with the same
// setting), and saved to
// it at most a second after the first change not yet saved (however
// busy the server is: a steady stream of requests is saved once a second)
// and on shutdown, atomically (a temporary file in FILE's folder, synced,
// renamed over FILE, the folder synced), so that a crash, even SIGKILL,
// loses at most the last second and never leaves a broken file. A save
// that fails while the server runs (an unwritable folder, a full disk) is
// reported on stderr at once and retried every second; the first save
// that works again is reported too. On SIGINT or SIGTERM the server saves
// once more, and exits with status 1 and the reason if that save fails. A
// FILE that is not a snapshot this fake reads stops the start with the
// reason, and is left untouched.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

func main() { os.Exit(runMain(defaultSaveDelay)) }

// runMain is main with the longest delay between a change and the save of
// the -state file: it serves until SIGINT or SIGTERM and returns the exit
// status, 2 for a bad command line and 1 for any other error.
func runMain(saveDelay time.Duration) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := runWith(ctx, os.Args[1:], os.Stdout, saveDelay); err != nil {
		fmt.Fprintln(os.Stderr, "platform-fake:", err)
		var uerr usageError
		if errors.As(err, &uerr) {
			return 2
		}
		return 1
	}
	return 0
}

// usageError is a problem with the command line.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() + " (see platform-fake -h)" }
func (e usageError) Unwrap() error { return e.err }

// run parses args, starts the fake, prints how to reach it to stdout and
// serves until ctx ends; a failed save of the -state file is reported to
// stderr when it happens. -h prints the usage to stdout and returns nil.
func run(ctx context.Context, args []string, stdout io.Writer) error {
	return runWith(ctx, args, stdout, defaultSaveDelay)
}

// runWith is run with the longest delay between a change and the save of
// the -state file.
func runWith(ctx context.Context, args []string, stdout io.Writer, saveDelay time.Duration) error {
	fs := flag.NewFlagSet("platform-fake", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are returned; -h prints below
	addr := fs.String("addr", "127.0.0.1:8080", "`host:port` to listen on (port 0 picks a free port)")
	seed := fs.Uint64("seed", 1, "seed of IDs and secrets: the same seed gives the same admin token and IDs")
	org := fs.String("org", "acme", "`name` of the organization the server starts with")
	virtual := fs.Bool("virtual-time", false, "run on a virtual clock that only POST /_fake/advance moves, instead of the wall clock")
	statePath := fs.String("state", "", "keep the state in `file`: loaded at start when it exists (its organization and tokens then replace -org's and -seed's), saved after changes and on shutdown")
	rateLimit := fs.Int("rate-limit", 0, "answer 429 to a credential's requests beyond this many a minute (the live service allows 600); 0 for no limit")
	strict := fs.Bool("strict-bodies", false, "answer 400 to a request body with a field the API does not define, instead of ignoring the field")
	readHeaderTimeout := fs.Duration("read-header-timeout", 10*time.Second, "disconnect a client that has not sent a request's headers after `duration`; 0 for never")
	writeTimeout := fs.Duration("write-timeout", time.Minute, "drop a response not written `duration` after its request's headers (a longer fault latency or flush wait runs to its end, then answers nothing); 0 for never")
	idleTimeout := fs.Duration("idle-timeout", time.Minute, "close a kept-alive connection that has waited `duration` for its next request; 0 for never")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stdout, "Usage: platform-fake [flags]")
			fmt.Fprintln(stdout, "Serves the in-memory fake of the Database Platform API until SIGINT or SIGTERM.")
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return nil
		}
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("unexpected argument %q: platform-fake takes flags only", fs.Arg(0))}
	}

	opts := []fake.Option{fake.WithAddr(*addr), fake.WithSeed(*seed), fake.WithOrganization(*org),
		fake.WithServerTimeouts(fake.ServerTimeouts{ReadHeader: *readHeaderTimeout, Write: *writeTimeout, Idle: *idleTimeout})}
	if !*virtual {
		opts = append(opts, fake.WithRealTime())
	}
	if *rateLimit != 0 {
		opts = append(opts, fake.WithRateLimit(*rateLimit))
	}
	if *strict {
		opts = append(opts, fake.WithStrictBodies())
	}
	var state *stateFile
	if *statePath != "" {
		state = newStateFile(*statePath, saveDelay, os.Stderr)
		opts = append(opts, fake.WithOnChange(state.changed))
	}
	srv, err := fake.New(opts...)
	if err != nil {
		return err
	}
	defer srv.Close()
	stateLine := "in memory only (-state FILE keeps it)"
	saved := make(chan error, 1)
	if state != nil {
		loaded, err := state.load(srv)
		if err != nil {
			return err
		}
		stateLine = "new, saved to " + *statePath
		if loaded {
			stateLine = "loaded from " + *statePath
		}
		go func() { saved <- state.run(ctx) }()
	}

	tok := srv.AdminToken()
	clock := "real time"
	if *virtual {
		clock = "virtual, at " + platform.NewTimestamp(srv.Now()).String() + "; move it with POST " + fake.ControlPrefix + "advance?d=5s"
	}
	fmt.Fprintf(stdout, "platform-fake: serving the Database Platform API\n")
	fmt.Fprintf(stdout, "base URL: %s\n", srv.URL())
	fmt.Fprintf(stdout, "organization: %s\n", srv.Org())
	fmt.Fprintf(stdout, "admin token ID: %s\n", tok.ID)
	fmt.Fprintf(stdout, "admin token secret: %s\n", tok.Secret)
	fmt.Fprintf(stdout, "Authorization: %s\n", tok.Authorization())
	fmt.Fprintf(stdout, "clock: %s\n", clock)
	fmt.Fprintf(stdout, "state: %s\n", stateLine)
	fmt.Fprintf(stdout, "state page: %s\n", srv.StatePageLink())
	fmt.Fprintf(stdout, "try: curl -H 'Authorization: %s' %sv1/organizations/%s/databases\n", tok.Authorization(), srv.URL(), srv.Org())
	fmt.Fprintf(stdout, "stop with Ctrl-C (SIGINT) or SIGTERM\n")

	<-ctx.Done()
	fmt.Fprintln(stdout, "platform-fake: stopping")
	if state != nil {
		return <-saved
	}
	return nil
}
