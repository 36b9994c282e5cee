package fake_test

import (
	"bufio"
	"errors"
	"fmt"
	"go/build"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// connsGet gets srv's organization through tr and reports whether the
// request went over a connection tr had kept from an earlier one.
func connsGet(t *testing.T, tr http.RoundTripper, srv *fake.Server) (reused bool) {
	t.Helper()
	trace := &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) { reused = i.Reused }}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(t.Context(), trace), "GET", srv.URL()+"v1/organizations/"+srv.Org(), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", admin(srv))
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatalf("GET %s: %v", req.URL, err)
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil { // read to the end: the connection goes back to tr
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: status %d", req.URL, resp.StatusCode)
	}
	return reused
}

// connsOtherCloseKeepsIdle checks, with the transport tr, that closing
// one fake leaves tr's idle connection to another alone: tr keeps a
// connection to each of fakes a and b, b closes, and the next request to
// a reuses tr's connection to it.
func connsOtherCloseKeepsIdle(t *testing.T, tr *http.Transport) {
	t.Helper()
	a, b := fake.NewServer(t), fake.NewServer(t)
	connsGet(t, tr, a)
	connsGet(t, tr, b)
	b.Close()
	if !connsGet(t, tr, a) {
		t.Error("after another fake closed, a request made a new connection, want the idle one reused")
	}
}

// TestCloseLeavesOtherTransportsAlone checks that a fake's Close closes
// the idle connections of no transport but its clients' own: a user's
// transport, reaching fakes of parallel tests, keeps its connections when
// one of them closes. It guards against Close reaching out to transports
// it did not make; an httptest.Server's Close, which the fake once used,
// reached only http.DefaultTransport (see
// TestCloseLeavesDefaultTransportAlone).
func TestCloseLeavesOtherTransportsAlone(t *testing.T) {
	t.Parallel()
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	connsOtherCloseKeepsIdle(t, tr)
}

// connsChildEnv, set to 1, makes TestCloseLeavesDefaultTransportAlone run
// its check: it is set in the test binary it starts, to run that test
// alone.
const connsChildEnv = "FAKE_TEST_DEFAULT_TRANSPORT"

// TestCloseLeavesDefaultTransportAlone checks that a fake's Close leaves
// http.DefaultTransport's idle connections alone, which an httptest.Server's
// Close closes: the requests of the users of that transport (another SDK's
// client, talking to fakes from parallel tests) about to reuse one failed
// whenever another test's fake closed ("http: CloseIdleConnections
// called"). Every httptest server of the package's other tests closes them
// too, so the check runs in a test binary of its own, this test alone.
func TestCloseLeavesDefaultTransportAlone(t *testing.T) {
	t.Parallel()
	if os.Getenv(connsChildEnv) == "1" {
		connsOtherCloseKeepsIdle(t, http.DefaultTransport.(*http.Transport))
		return
	}
	const name = "TestCloseLeavesDefaultTransportAlone"
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^"+name+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), connsChildEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: "+name) {
		t.Fatalf("the test alone in a binary of its own: %v\n%s", err, out)
	}
}

// TestFakeImportsNoHTTPTest checks that the fake and its command serve
// without net/http/httptest, whose Close closes http.DefaultTransport's
// idle connections and whose import registers the -httptest.serve flag in
// every binary that imports the fake.
func TestFakeImportsNoHTTPTest(t *testing.T) {
	t.Parallel()
	for _, dir := range []string{".", "../cmd/platform-fake"} {
		pkg, err := build.ImportDir(dir, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range pkg.Imports {
			if imp == "net/http/httptest" {
				t.Errorf("%s (%s) imports %s outside its tests", pkg.Name, dir, imp)
			}
		}
	}
}

// connsDial opens a connection to srv and sends it what, perhaps nothing;
// the connection is closed when the test ends.
func connsDial(t *testing.T, srv *fake.Server, what string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimSuffix(strings.TrimPrefix(srv.URL(), "http://"), "/"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := io.WriteString(conn, what); err != nil {
		t.Fatal(err)
	}
	return conn
}

// connsWantClosed checks that the server has closed conn: reading it ends
// (with EOF, or a reset) without a byte.
func connsWantClosed(t *testing.T, conn net.Conn, what string) {
	t.Helper()
	if n, err := conn.Read(make([]byte, 1)); err == nil {
		t.Errorf("%s: read %d bytes, want the connection closed", what, n)
	}
}

// TestCloseWaitsForRequestInFlight checks that Close lets a request being
// served finish, with its whole response, and returns once it has and its
// connection is closed: no handler runs after Close. The request's
// handler reads a body the test sends only once Close has begun: the test
// knows the handler is waiting for it when the server asks for it (100
// Continue), and that Close has begun when the server closes a connection
// that carries no request. That connection, opened before the request's,
// is also the connection accepted with no request yet, which Close must
// close at once rather than wait for.
func TestCloseWaitsForRequestInFlight(t *testing.T) {
	t.Parallel()
	srv, err := fake.New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	fresh := connsDial(t, srv, "") // accepted first: connections are accepted in order
	body := `{"name":"in-flight","cluster_size":"PS_10"}`
	busy := connsDial(t, srv, fmt.Sprintf("POST /v1/organizations/%s/databases HTTP/1.1\r\nHost: fake\r\nAuthorization: %s\r\n"+
		"Content-Type: application/json\r\nContent-Length: %d\r\nExpect: 100-continue\r\n\r\n", srv.Org(), admin(srv), len(body)))
	r := bufio.NewReader(busy)
	line, err := r.ReadString('\n')
	if err != nil || !strings.Contains(line, " 100 ") {
		t.Fatalf("first line %q, %v; want 100 Continue", line, err)
	}
	if _, err := r.ReadString('\n'); err != nil { // the blank line ending it
		t.Fatal(err)
	}

	closed := make(chan struct{})
	go func() {
		srv.Close()
		close(closed)
	}()
	connsWantClosed(t, fresh, "the connection with no request")
	select {
	case <-closed:
		t.Fatal("Close returned with a request in flight")
	default:
	}
	if _, err := io.WriteString(busy, body); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatalf("the response to the request in flight: %v", err)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusCreated || !strings.Contains(string(b), `"name":"in-flight"`) {
		t.Fatalf("the response to the request in flight: %d %s, %v; want 201 and the database", resp.StatusCode, b, err)
	}
	if !resp.Close {
		t.Error(`the response to the request in flight does not say "Connection: close"`)
	}
	<-closed
	connsWantClosed(t, busy, "the connection of the request in flight, after Close")
	if n := fake.OpenConns(srv); n != 0 {
		t.Errorf("%d connections open after Close, want none", n)
	}
	if got := srv.Requests(); len(got) != 1 || got[0].Operation != "create_database" || got[0].Status != http.StatusCreated {
		t.Errorf("request log after Close: %+v, want the request in flight, answered", got)
	}
}

// TestCloseClosesNewConnections checks that connections accepted with
// nothing read of a request yet (none of it, or part of its headers) do not
// delay Close: it closes them at once.
func TestCloseClosesNewConnections(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, sent string }{
		{"nothing sent", ""},
		{"part of the headers", "GET /v1/organizations HTTP/1.1\r\nHost: fa"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, err := fake.New()
			if err != nil {
				t.Fatal(err)
			}
			conn := connsDial(t, srv, tt.sent)
			// A request on a connection of its own, accepted after conn:
			// conn is accepted once it has been answered.
			tr := &http.Transport{}
			connsGet(t, tr, srv)
			tr.CloseIdleConnections()
			srv.Close()
			connsWantClosed(t, conn, "the connection with no whole request")
			if n := fake.OpenConns(srv); n != 0 {
				t.Errorf("%d connections open after Close, want none", n)
			}
		})
	}
}

// TestCloseTwiceAndAfter checks that Close may be called from several
// goroutines at once and again afterwards, each call returning once the
// server is closed, and that requests afterwards fail to connect rather
// than hang: through the fake's own client, whose idle connections Close
// has closed, and through another transport, whose idle connection the
// server has reset.
func TestCloseTwiceAndAfter(t *testing.T) {
	t.Parallel()
	srv, err := fake.New()
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	connsGet(t, tr, srv)
	client := srv.Client()
	p := &platform.GetOrganizationParams{Organization: srv.Org()}
	if _, err := client.Organizations.Get(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			srv.Close()
		}()
	}
	wg.Wait()
	srv.Close()
	if n := fake.OpenConns(srv); n != 0 {
		t.Errorf("%d connections open after Close, want none", n)
	}
	// No retries: the first failure is the answer. The request dials: Close
	// closed the idle connections of the fake's client. (It may still be
	// handed, as it dials, the connection of the Get above, which the
	// transport returns to its pool on its own goroutine, sometimes only
	// now; the server has closed that one, and the request fails with a
	// reset instead of a refusal.)
	noRetries, err := platform.NewClient(append(srv.ClientOptions(srv.AdminToken()), platform.WithoutRetries())...)
	if err != nil {
		t.Fatal(err)
	}
	var dialed atomic.Bool
	ctx := httptrace.WithClientTrace(t.Context(), &httptrace.ClientTrace{ConnectStart: func(string, string) { dialed.Store(true) }})
	_, err = noRetries.Organizations.Get(ctx, p)
	if !dialed.Load() {
		t.Errorf("the fake's client after Close: %v, without dialing: an idle connection was left", err)
	}
	if !connsRefused(err) && !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("the fake's client after Close: %v, want the connection refused", err)
	}
	req, err := http.NewRequestWithContext(t.Context(), "GET", srv.URL()+"v1/organizations/"+srv.Org(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp, err := tr.RoundTrip(req); err == nil {
		resp.Body.Close()
		t.Errorf("another transport after Close: status %d, want an error", resp.StatusCode)
	}
}

// connsRefused reports whether err is a refused connection's.
func connsRefused(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}
