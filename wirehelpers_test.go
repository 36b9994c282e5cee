package platform_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/dbplatform/platform-go"
)

// wirePrefix is the path the wire server mounts the API under, so that a
// method building an absolute path instead of one relative to the base URL
// misses it.
const wirePrefix = "/api/"

// wireRequest is a request as the wire server received it.
type wireRequest struct {
	Method string
	// Path is the escaped path below wirePrefix, with its leading slash
	// ("/v1/organizations/acme").
	Path  string
	Query url.Values
	// Body is the raw body; "" when none was sent.
	Body        string
	ContentType string
}

// wire is an httptest server that answers every request with one canned
// response and records what it received.
type wire struct {
	t      *testing.T
	client *platform.Client
	mu     sync.Mutex
	got    []wireRequest
}

// newWire starts a wire server answering status and body (a JSON text; ""
// for no body), and a client of it.
func newWire(t *testing.T, status int, body string) *wire {
	t.Helper()
	w := &wire{t: t}
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		w.mu.Lock()
		w.got = append(w.got, wireRequest{
			Method:      r.Method,
			Path:        "/" + strings.TrimPrefix(r.URL.EscapedPath(), wirePrefix),
			Query:       r.URL.Query(),
			Body:        string(raw),
			ContentType: r.Header.Get("Content-Type"),
		})
		w.mu.Unlock()
		if !strings.HasPrefix(r.URL.Path, wirePrefix) {
			http.NotFound(rw, r)
			return
		}
		if body != "" {
			rw.Header().Set("Content-Type", "application/json")
		}
		rw.WriteHeader(status)
		_, _ = io.WriteString(rw, body)
	}))
	t.Cleanup(srv.Close)
	c, err := platform.NewClient(
		platform.WithBaseURL(srv.URL+wirePrefix),
		platform.WithHTTPClient(srv.Client()), // not http.DefaultTransport, whose idle connections every httptest.Server.Close closes
		platform.WithServiceToken("tokid", "toksecret"),
		platform.WithoutRetries(),
	)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	w.client = c
	return w
}

// requests returns what the server received so far.
func (w *wire) requests() []wireRequest {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]wireRequest(nil), w.got...)
}

// only returns the one request the server received, failing the test when
// there was not exactly one.
func (w *wire) only() wireRequest {
	w.t.Helper()
	got := w.requests()
	if len(got) != 1 {
		w.t.Fatalf("server received %d requests, want 1: %+v", len(got), got)
	}
	return got[0]
}

// jsonEqual reports whether two JSON texts hold the same value; "" stands
// for no body and equals only "".
func jsonEqual(t *testing.T, a, b string) bool {
	t.Helper()
	if a == "" || b == "" {
		return a == b
	}
	var va, vb any
	if err := json.Unmarshal([]byte(a), &va); err != nil {
		t.Fatalf("not JSON: %s: %v", a, err)
	}
	if err := json.Unmarshal([]byte(b), &vb); err != nil {
		t.Fatalf("not JSON: %s: %v", b, err)
	}
	ja, _ := json.Marshal(va)
	jb, _ := json.Marshal(vb)
	return string(ja) == string(jb)
}
