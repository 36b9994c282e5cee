package fake

import (
	"context"
	cryptorand "crypto/rand"
	"fmt"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dbplatform/platform-go"
	vclock "github.com/dbplatform/platform-go/fake/internal/clock"
	"github.com/dbplatform/platform-go/internal/pollhook"
)

// Server is a running fake. Its methods are safe for concurrent use.
type Server struct {
	mu     sync.RWMutex
	world  *world
	mux    *http.ServeMux // shared by every server; see sharedMux
	strict bool
	cfg    config // the options it started with, for Reset

	onChange func() // see WithOnChange; nil for none

	httpSrv   *http.Server    // serves s on listener; see serve
	listener  net.Listener    // closed by Close, or by Serve as it fails
	url       string          // "http://" and the listener's address, then "/"
	conns     conns           // httpSrv's connections; see conns.go
	transport *http.Transport // of the fake's clients; Close closes its idle connections
	client    *http.Client    // of the fake's clients: transport, with pollAhead
	reqSeq    atomic.Uint64
	ran       atomic.Uint64 // the clock's transitions run so far; see sleep
	clients   atomic.Uint64 // clients made, each with its own jitter source
	reqID     string        // per-server prefix of request IDs

	faults   faultRules
	limiter  rateLimiter // see ratelimit.go
	requests requestLog
	events   ring[*eventRec] // the event log; see events.go
	hooks    deliveries      // webhook deliveries; see deliveries.go
	session  oauthSession    // the OAuth server's signed-in user; see oauth.go
	page     statePage       // the state page's sign-ins; see statepage.go
	// codeTries are the wrong user codes per client address at the device
	// flow's verification page, like the rate limit not in snapshots; see
	// oauthdevice.go.
	codeTries map[string]*codeTries

	ctlFaults controlFaultSet // fault rules installed over HTTP; see control_faults.go
	fileKey   [32]byte        // signs download addresses; see signedfiles.go

	// The organization, admin user and token every server starts with.
	org        *orgRec
	admin      *userRec
	adminToken Token
}

// NewServer starts a fake for tb and closes it when tb's test ends. A
// configuration error fails the test. When the test has failed by then,
// the server logs its last requests (up to 20, with status and reason:
// see [Request.Reason]) through tb.Log, unless [WithoutFailureLog].
func NewServer(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	s, err := New(opts...)
	if err != nil {
		tb.Fatalf("fake.NewServer: %v", err)
	}
	tb.Cleanup(func() {
		if tb.Failed() && !s.cfg.noFailureLog {
			tb.Log(s.failureLog(failureLogLength))
		}
		s.Close()
		if err := s.conns.stopped(); err != nil {
			tb.Errorf("fake: stopped serving on %s before Close: %v", s.url, err)
		}
	})
	return s
}

// New starts a fake on a loopback port; the caller must Close it. Use it
// outside tests; in tests, [NewServer] closes it for you.
func New(opts ...Option) (*Server, error) {
	cfg := defaultConfig()
	for _, opt := range opts {
		if opt == nil {
			continue
		}
		if err := opt(&cfg); err != nil {
			return nil, err
		}
	}
	s := &Server{strict: cfg.strict, cfg: cfg}
	s.adopt(newWorld(cfg.seed), vclock.New(cfg.realTime, cfg.start, s.runJob, s.wake))
	s.onChange = cfg.onChange
	s.hooks.init(cfg.webhookTimeout)
	s.requests.list.limit = cfg.requestLogLimit
	s.events.limit = cfg.eventLogLimit
	s.world.audit.limit = cfg.auditLogLimit
	s.hooks.log.limit = cfg.deliveryLogLimit
	s.limiter.limit = cfg.rateLimit
	s.faults.rng = newFaultRand(cfg.seed)
	s.reqID = s.world.newID()[:6]
	_, _ = cryptorand.Read(s.fileKey[:]) // never fails (crypto/rand)
	mux, err := sharedMux()
	if err != nil {
		return nil, err
	}
	s.mux = mux
	if err := s.seedDefaults(cfg); err != nil {
		return nil, err
	}
	l, err := listen(cfg.addr)
	if err != nil {
		return nil, err
	}
	s.listener = l
	s.url = "http://" + l.Addr().String() + "/"
	s.httpSrv = &http.Server{Handler: s, ConnState: s.conns.track}
	cfg.timeouts.set(s.httpSrv)
	s.world.base = s.url
	// A transport of its own, as an httptest.Server's client has: the
	// fake's Close closes its idle connections, and those of no other.
	s.transport = &http.Transport{Protocols: http1Only}
	s.client = &http.Client{Transport: pollAhead{s: s, base: s.transport}}
	s.conns.live.Add(1) // the accepting goroutine; see conns
	go s.serve()
	return s, nil
}

// http1Only are the protocols of the fake's clients' transport: plain
// HTTP/1, as an httptest.Server's client speaks, without the HTTP/2 set-up
// (for TLS, which the fake never serves) a transport otherwise makes on
// first use. Transports only read it.
var http1Only = func() *http.Protocols {
	var p http.Protocols
	p.SetHTTP1(true)
	return &p
}()

// listen opens the server's listener: on addr when given, else on a free
// loopback port (IPv4, or IPv6 on a host without it).
func listen(addr string) (net.Listener, error) {
	if addr != "" {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			return nil, fmt.Errorf("fake: listening on %s: %w", addr, err)
		}
		return l, nil
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		l6, err6 := net.Listen("tcp6", "[::1]:0")
		if err6 != nil {
			return nil, fmt.Errorf("fake: listening on a loopback port: %w", err)
		}
		l = l6
	}
	return l, nil
}

// serve accepts and serves connections until Close closes the listener.
//
// The server is a plain http.Server rather than an httptest.Server, whose
// Close also closes http.DefaultTransport's idle connections: a courtesy
// to test code that fails the requests of every other user of that
// transport (another SDK's client, in a parallel test) about to reuse one
// ("http: CloseIdleConnections called"), whenever any fake closes.
//
// Serve returns early only if Accept fails with an error it does not
// retry (it retries the temporary ones, such as too many open files,
// logging them through the server's ErrorLog): on a loopback listener
// only the process's own meddling with the socket can cause it. The
// server then refuses connections while it looks alive, so the error is
// not dropped: it is logged at once, as net/http logs the errors it
// retries, and kept for [NewServer], which fails the test with it when
// the test ends.
func (s *Server) serve() {
	defer s.conns.live.Done()
	if err := s.conns.served(s.httpSrv.Serve(s.listener)); err != nil {
		log.Printf("fake: stopped serving on %s: %v", s.url, err)
	}
}

// adopt makes w the server's world, running on clk: it gets the server's
// timings and base URL, and the server as its host.
func (s *Server) adopt(w *world, clk *clock) {
	w.clock, w.timing, w.host = clk, s.cfg.timing, s
	if s.url != "" {
		w.base = s.url
	}
	s.world = w
}

// Close stops the server, its timers and its webhook deliveries: nothing
// runs on the clock afterwards, and Advance does nothing. It stops
// listening, closes the connections waiting for a request, lets the
// requests in flight finish, and returns when they have and their
// connections are closed: no handler runs afterwards. It closes the idle
// connections of the fake's own clients' transport, and of no other
// transport (http.DefaultTransport's are left alone). It may be called
// more than once, from several goroutines; each call returns when the
// server is closed.
//
// A transport of another client that several fakes share may still hold
// an idle connection this Close has closed: should another fake then
// listen at the same address (WithAddr, or a port the system hands out
// again), a request that transport sends it may go down the dead
// connection and fail, as net/http retries only idempotent requests. Give
// each fake's clients a transport of their own (as Client and
// ClientOptions do), or close the shared one's idle connections after
// Close.
func (s *Server) Close() {
	if s.conns.close(s.listener) {
		// Answers from now on say "Connection: close", and their
		// connections close after them.
		s.httpSrv.SetKeepAlivesEnabled(false)
	}
	// After the reset of the server's end, which leaves no TIME_WAIT
	// (the first end to close keeps one), and without waiting for the
	// client to read it, as an httptest.Server does.
	s.transport.CloseIdleConnections()
	s.conns.live.Wait()
	s.stopClock()
	s.stopDeliveries()
}

// stopClock stops the clock for good (see Close).
func (s *Server) stopClock() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.world.clock.Stop()
}

// URL returns the base URL of the API ("http://127.0.0.1:PORT/"); operation
// paths (/v1/...) are below it.
func (s *Server) URL() string { return s.url }

// Org returns the name of the organization every server starts with.
func (s *Server) Org() string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.org.name
}

// AdminUserID returns the ID of the user who is the starting organization's
// admin and the creator of the admin token.
func (s *Server) AdminUserID() string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.admin.id
}

// AdminToken returns the service token, holding every permission on the
// starting organization, that [Server.Client] uses: its ID and secret, for
// curl or a client in another language.
func (s *Server) AdminToken() Token {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.adminToken
}

// Client returns a client of this server authenticated with the admin token.
// Its waits (waiters and retry backoff) advance the virtual clock instead of
// sleeping. Before a waiter's poll it moves the virtual clock through the
// scheduled transitions until the poll would see what the waiter waits
// for, so the waiter polls once; otherwise waiters poll right after each
// scheduled transition (with [WithRealTime], as soon as it has run on the
// wall clock). On a virtual clock, once nothing scheduled on the server can
// move what the waiter polls (only recurring jobs and expiries remain: a
// deployment waits to be applied), the waiter returns a
// [*platform.UnreachableError], naming what would move it; transitions
// still pending for other resources run first.
func (s *Server) Client() *platform.Client { return s.ClientFor(s.AdminToken()) }

// ClientFor returns a client of this server authenticated with tok, with the
// same clock behaviour as [Server.Client].
func (s *Server) ClientFor(tok Token) *platform.Client {
	c, err := platform.NewClient(s.ClientOptions(tok)...)
	if err != nil {
		// The options are the fake's own and valid for any token it issued;
		// a zero Token gets a client whose requests are unauthorized.
		c, _ = platform.NewClient(platform.WithBaseURL(s.URL()), platform.WithHTTPClient(&http.Client{Transport: s.transport}))
	}
	return c
}

// ClientOptions returns the options that point a client at this server with
// tok, for callers that add options of their own. The jitter of each
// client's retry backoff is drawn from the server's seed ([WithSeed]), so
// that retried faults move the virtual clock the same on every run (given
// the same clients made in the same order):
//
//	client, err := platform.NewClient(append(srv.ClientOptions(tok), platform.WithLogger(l))...)
func (s *Server) ClientOptions(tok Token) []platform.Option {
	return []platform.Option{
		platform.WithBaseURL(s.URL()),
		platform.WithServiceToken(tok.ID, tok.Secret),
		platform.WithHTTPClient(s.client),
		platform.WithSleep(s.sleep),
		// Retry backoff's jitter from the server's seed: a run with
		// retried faults moves the virtual clock the same every time.
		platform.WithJitterSource(rand.NewPCG(s.cfg.seed, s.clients.Add(1))),
	}
}

// Now returns the server's current time.
func (s *Server) Now() time.Time {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.world.clock.Now()
}

// Advance moves the virtual clock forward by d, running every transition
// that falls due on the way, in time order. With [WithRealTime] it runs
// what is due now and does not move time.
//
// One Advance runs at most [MaxAdvanceTransitions] transitions. When more
// fall due within d, it stops after that many, with the clock at the time
// of the last one run, short of d: [Server.Now] says how far it got, and
// another Advance goes on from there. Only a very long d on a busy server
// gets there (one database's backups and invoices make about 1,500
// transitions a year).
func (s *Server) Advance(d time.Duration) {
	s.advance(d)
}

// realTime reports whether the server's clock follows the wall clock
// (WithRealTime). It is fixed when the server is made, so it is read
// without the lock, unlike the world, which Reset and Restore replace.
func (s *Server) realTime() bool { return s.cfg.realTime }

// advance is Advance, reporting how many transitions ran and whether the
// clock reached its end.
func (s *Server) advance(d time.Duration) (ran int, complete bool) {
	return s.runClock(func() time.Time {
		if s.world.clock.Real() {
			return s.world.clock.Now()
		}
		return s.world.clock.Now().Add(max(d, 0))
	})
}

// runClock runs the work due by until, which it calls under the server's
// lock, and then, if the work ran or a virtual clock moved, the
// WithOnChange function. It returns how much work ran, and whether all
// that was due by until ran (false when it stopped at
// MaxAdvanceTransitions).
func (s *Server) runClock(until func() time.Time) (ran int, complete bool) {
	ran, complete, moved := s.runDueLocked(until)
	if ran > 0 || moved {
		s.changed()
	}
	return ran, complete
}

// runDueLocked is runClock's work under the server's lock. The unlock is
// deferred: a transition that panics leaves the server unlocked, so that
// it still answers (the panic goes on to the caller).
func (s *Server) runDueLocked(until func() time.Time) (ran int, complete, moved bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	from := s.world.clock.Now()
	to := until()
	ran = s.world.clock.RunDue(to, MaxAdvanceTransitions)
	complete = !s.world.clock.Due(to)
	moved = !s.world.clock.Real() && s.world.clock.Now().After(from)
	return ran, complete, moved
}

// Sleep waits for d by advancing the virtual clock, without waiting on the
// wall clock; it returns ctx.Err() at once if ctx has ended. It is the
// platform.SleepFunc of the fake's clients, and what to give other waiting
// code under test, such as the device flow's oauth.Config.DeviceAccessToken.
// A waiter's wait between polls (the SDK marks it) ends instead at the
// next scheduled transition, however near or far, so the waiter polls right
// after each change rather than stepping through time where nothing
// happens (or past a change); with nothing scheduled, it is d. If another
// client ran a transition since the waiter's poll (parallel waiters on one
// server do), it ends at once, without moving the clock: the waiter polls
// again. On a real-time clock ([WithRealTime]) Sleep runs what is due and
// returns.
func (s *Server) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.runClock(func() time.Time {
		if s.world.clock.Real() {
			return s.world.clock.Now()
		}
		if pollhook.IsWait(ctx) {
			if s.ranSincePoll(ctx) {
				// Another client moved the clock: the transition that ran
				// may be the one the waiter waits for, and the next one may
				// be far off. Poll again.
				return s.world.clock.Now()
			}
			if next, ok := s.world.clock.Next(); ok {
				return next // RunDue runs work already due, and never moves the clock back
			}
		}
		return s.world.clock.Now().Add(max(d, 0))
	})
	return nil
}

// sleep is the platform.SleepFunc of the fake's clients: [Server.Sleep] on
// a virtual clock. On a real-time clock it waits on the wall clock: d for
// retry backoff, and for a waiter's poll until the next scheduled transition
// is due (at most d), then runs what is due, so the waiter polls right
// after it. A wait after a poll during which a transition ran (on the
// clock's own timer, between the poll's request and this call) does not
// wait at all: the transition may have given the waiter what it waits for,
// and the next one may be far off or none.
func (s *Server) sleep(ctx context.Context, d time.Duration) error {
	if !s.realTime() {
		return s.Sleep(ctx, d)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if pollhook.IsWait(ctx) {
		if s.ranSincePoll(ctx) {
			return nil
		}
		if next, ok := s.nextDue(); ok {
			d = min(d, time.Until(next))
		}
	}
	if d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
	s.wake() // what fell due has run before the next poll
	return nil
}

// nextDue is the time of the clock's earliest transition, if any.
func (s *Server) nextDue() (time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.world.clock.Next()
}

// ranSincePoll reports whether a transition ran since the poll before the
// waiter's wait ctx left (see [pollhook.NoteSent]): the poll's answer may
// be out of date.
func (s *Server) ranSincePoll(ctx context.Context) bool {
	sent, ok := pollhook.LastPoll(ctx).Sent()
	return ok && sent != s.ran.Load()
}

// runJob runs one of the clock's transitions, counting it.
func (s *Server) runJob(j job) {
	s.ran.Add(1)
	j.run(s.world)
}

// wake runs due work in real-time mode.
func (s *Server) wake() { s.runClock(s.world.clock.Now) }

// ServeHTTP serves the API: it stamps a request ID, routes the request and
// records it in the request log.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Body == nil {
		// A request made for a client (http.NewRequest with no body) may
		// have none; the handlers read it as a server's request, which
		// always has one.
		r2 := *r
		r2.Body = http.NoBody
		r = &r2
	}
	rec := &recorder{ResponseWriter: w, srv: s, status: http.StatusOK, req: r}
	if !peeking(r) {
		rec.rid = requestID(s.reqID, s.reqSeq.Add(1))
		rec.log = &s.requests
		rec.ridHeader[0] = rec.rid
		w.Header()["X-Request-Id"] = rec.ridHeader[:] // the canonical key; the value is the recorder's, allocated with it
	}
	switch {
	case r.RequestURI == "*":
		// ServeMux answers the target "*" with a bare 400, not the API's
		// JSON error.
		writeError(rec, badRequest("request target * is not a path"))
	case !cleanPath(r.URL.Path):
		// ServeMux would redirect an unclean path ("//", "..") to its clean
		// form with an HTML body; no API path is unclean.
		writeError(rec, notFound())
	default:
		s.mux.ServeHTTP(rec, r)
	}
	rec.record()
	if mayChange(r.Method) {
		s.changed()
	}
}

// requestID is a request's X-Request-Id: the server's prefix, then n in at
// least six digits.
func requestID(prefix string, n uint64) string {
	var a [32]byte
	b := append(a[:0], prefix...)
	for pow := uint64(100000); pow > 1 && n < pow; pow /= 10 {
		b = append(b, '0')
	}
	return string(strconv.AppendUint(b, n, 10))
}

// cleanPath reports whether p is already in its clean form.
func cleanPath(p string) bool {
	if p == "" || p[0] != '/' {
		return false
	}
	if !strings.Contains(p, "//") && !strings.Contains(p, "/.") {
		return true // no empty, "." or ".." segment: Clean would change at most a final "/"
	}
	c := path.Clean(p)
	return c == p || c+"/" == p
}

// recorder notes the status written and the operation served, and logs the
// request as its response starts: a client that has the response finds the
// request in the log, even when the response is too large for the server to
// hold back until the handler returns.
type recorder struct {
	http.ResponseWriter
	srv    *Server // the server the request is to; see serving
	status int
	op     string

	log    *requestLog
	req    *http.Request
	rid    string
	reason string // of a refusal; see writeError

	ridHeader [1]string // the value of X-Request-Id, rid
	logged    bool
}

func (r *recorder) WriteHeader(status int) {
	r.status = status
	r.record()
	r.ResponseWriter.WriteHeader(status)
}

func (r *recorder) Write(b []byte) (int, error) {
	r.record()
	return r.ResponseWriter.Write(b)
}

// record adds the request to the log, once, as its answer begins; a peek
// has no log.
func (r *recorder) record() {
	if r.logged || r.log == nil {
		return
	}
	r.logged = true
	if r.srv.conns.closing.Load() {
		// Close has begun: the connection closes after this answer, which
		// says so, as net/http's answers do once keep-alives are off.
		r.ResponseWriter.Header().Set("Connection", "close")
	}
	r.log.add(Request{
		Method:    r.req.Method,
		Path:      r.req.URL.Path,
		Query:     r.req.URL.RawQuery,
		Status:    r.status,
		Operation: r.op,
		RequestID: r.rid,
		Reason:    r.reason,
	})
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
