package platform_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/dbplatform/platform-go"
	"github.com/google/go-cmp/cmp"
)

// The service token every wire client sends. The secret must never show up
// in an error text or a log line.
const (
	testTokenID     = "tok1d"
	testTokenSecret = "sk_s3cr3t-never-print-me"
	testAuthHeader  = testTokenID + ":" + testTokenSecret
)

// apiPrefix is where the wire server mounts the API below its root, so
// that a request built from an absolute path ("/v1/...") instead of one
// relative to the base URL misses it (and fails the test).
const apiPrefix = "/api/"

// wireRequest is a request as the wire server received it.
type wireRequest struct {
	Method string
	// RequestURI is the request target as sent: the escaped path, with
	// apiPrefix, and the raw query.
	RequestURI string
	// Path is the escaped path below apiPrefix, with its leading slash
	// ("/v1/organizations/acme").
	Path        string
	RawQuery    string
	Query       url.Values
	Header      http.Header
	ContentType string
	// Body is the raw body; "" when none was sent.
	Body string
}

// wire is an httptest server whose API lives under apiPrefix. It records
// every request that reaches the prefix (and fails the test for every one
// that misses it) and answers through its handler. client is a client of
// it that sends every request once.
type wire struct {
	t      *testing.T
	srv    *httptest.Server
	client *platform.Client

	mu      sync.Mutex
	reqs    []wireRequest
	misses  []string // request targets outside apiPrefix
	handler http.HandlerFunc
}

// newWire starts a wire server answering every request with status and body
// (a JSON text; "" for no body).
func newWire(t *testing.T, status int, body string) *wire {
	t.Helper()
	return newWireFunc(t, respond(status, body))
}

// newWireFunc starts a wire server that answers with h (which may be nil
// and set later with handle). The server closes when the test ends.
func newWireFunc(t *testing.T, h http.HandlerFunc) *wire {
	t.Helper()
	w := &wire{t: t, handler: h}
	mux := http.NewServeMux()
	mux.HandleFunc(apiPrefix, func(rw http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			t.Errorf("reading request body: %v", err)
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		target, query, _ := strings.Cut(r.RequestURI, "?")
		w.mu.Lock()
		w.reqs = append(w.reqs, wireRequest{
			Method:      r.Method,
			RequestURI:  r.RequestURI,
			Path:        "/" + strings.TrimPrefix(target, apiPrefix),
			RawQuery:    query,
			Query:       r.URL.Query(),
			Header:      r.Header.Clone(),
			ContentType: r.Header.Get("Content-Type"),
			Body:        string(body),
		})
		h := w.handler
		w.mu.Unlock()
		if h == nil {
			http.Error(rw, `{"code":"not_found","message":"no handler"}`, http.StatusNotFound)
			return
		}
		h(rw, r)
	})
	mux.HandleFunc("/", func(rw http.ResponseWriter, r *http.Request) {
		w.mu.Lock()
		w.misses = append(w.misses, r.Method+" "+r.RequestURI)
		w.mu.Unlock()
		http.Error(rw, `{"code":"not_found","message":"outside the API prefix"}`, http.StatusNotFound)
	})
	w.srv = httptest.NewServer(mux)
	t.Cleanup(func() {
		w.srv.Close()
		w.mu.Lock()
		defer w.mu.Unlock()
		for _, m := range w.misses {
			t.Errorf("request outside %s: %s", apiPrefix, m)
		}
	})
	w.client = w.newClient(t)
	return w
}

// baseURL is the API's base URL, with the path prefix.
func (w *wire) baseURL() string { return w.srv.URL + apiPrefix }

// options are the options that point a client at the wire server with the
// test token, through the server's own HTTP client (not
// http.DefaultTransport, whose idle connections every httptest.Server.Close
// closes).
func (w *wire) options() []platform.Option {
	return []platform.Option{
		platform.WithBaseURL(w.baseURL()),
		platform.WithServiceToken(testTokenID, testTokenSecret),
		platform.WithHTTPClient(w.srv.Client()),
	}
}

// newClient returns a client of the wire server with the test token and
// opts; without options of its own it sends every request once.
func (w *wire) newClient(t *testing.T, opts ...platform.Option) *platform.Client {
	t.Helper()
	if len(opts) == 0 {
		opts = []platform.Option{platform.WithoutRetries()}
	}
	c, err := platform.NewClient(append(w.options(), opts...)...)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	return c
}

// requests returns what the server received so far.
func (w *wire) requests() []wireRequest {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]wireRequest(nil), w.reqs...)
}

// count is the number of requests received so far.
func (w *wire) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.reqs)
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

// wantRequest is what a test expects the wire server to have received.
type wantRequest struct {
	Method string
	// Path is the escaped path below apiPrefix, with its leading slash.
	Path string
	// RawQuery is the exact query ("" for none); for url.Values, pass
	// Encode(), which sorts the keys as the SDK does.
	RawQuery string
	// Body is a JSON text, compared as a value; "" for no body. A body
	// must come as application/json.
	Body string
}

// checkRequest reports every way got differs from want.
func checkRequest(t *testing.T, got wireRequest, want wantRequest) {
	t.Helper()
	if got.Method != want.Method || got.Path != want.Path {
		t.Errorf("request %s %s, want %s %s", got.Method, got.Path, want.Method, want.Path)
	}
	if got.RawQuery != want.RawQuery {
		t.Errorf("query %q, want %q", got.RawQuery, want.RawQuery)
	}
	if !jsonEqual(t, want.Body, got.Body) {
		t.Errorf("body %s, want %s", got.Body, want.Body)
	}
	if want.Body != "" && got.ContentType != "application/json" {
		t.Errorf("Content-Type %q, want application/json", got.ContentType)
	}
}

// jsonEqual reports whether two JSON texts hold the same value; "" stands
// for no body and equals only "".
func jsonEqual(t *testing.T, a, b string) bool {
	t.Helper()
	if a == "" || b == "" {
		return a == b
	}
	return cmp.Equal(jsonValue(t, []byte(a)), jsonValue(t, []byte(b)))
}

// jsonValue decodes JSON text into generic values, for comparing bodies
// independently of key order and spacing; no text is nil.
func jsonValue(t *testing.T, b []byte) any {
	t.Helper()
	if len(b) == 0 {
		return nil
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("invalid JSON %q: %v", b, err)
	}
	return v
}

// checkSameJSON reports every key one JSON text has and the other lacks
// (by its path), and every value that differs.
func checkSameJSON(t *testing.T, want, got []byte) {
	t.Helper()
	wantV, gotV := jsonValue(t, want), jsonValue(t, got)
	for _, d := range goldenKeyDiff("$", wantV, gotV) {
		t.Error(d)
	}
	if diff := cmp.Diff(wantV, gotV); diff != "" {
		t.Errorf("JSON values (-want +got):\n%s", diff)
	}
}

// methodCase is one row of an SDK service's wire table: a call, the answer
// the wire server gives it, the request the call must send, and what it
// must return.
type methodCase struct {
	name     string
	call     func(ctx context.Context, c *platform.Client) (any, error)
	status   int    // the wire server's status
	response string // the wire server's JSON body; "" for none
	method   string
	path     string // escaped, below the prefix
	query    url.Values
	body     string // the JSON body the call must send; "" for none
	want     any    // what the call must return; nil: nothing
}

// runMethodCases runs each case in parallel against its own wire server.
func runMethodCases(t *testing.T, cases []methodCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWire(t, tt.status, tt.response)
			got, err := tt.call(t.Context(), w.client)
			if err != nil {
				t.Fatalf("call: %v", err)
			}
			checkRequest(t, w.only(), wantRequest{Method: tt.method, Path: tt.path, RawQuery: tt.query.Encode(), Body: tt.body})
			if tt.want == nil {
				if got != nil {
					t.Errorf("result %v, want none", got)
				}
				return
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("decoded (-want +got):\n%s", diff)
			}
		})
	}
}

// argCase is one row of an SDK service's argument table: a call that must
// fail with an *ArgError for arg before sending anything.
type argCase struct {
	name, arg string
	call      func(ctx context.Context, c *platform.Client) error
}

// runArgCases runs each case in parallel against its own wire server,
// which must receive no request.
func runArgCases(t *testing.T, cases []argCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWire(t, 200, `{}`)
			var argErr *platform.ArgError
			if err := tc.call(t.Context(), w.client); !errors.As(err, &argErr) || argErr.Arg != tc.arg {
				t.Fatalf("got %v, want an *ArgError for %s", err, tc.arg)
			}
			if n := w.count(); n != 0 {
				t.Errorf("%d requests sent, want none", n)
			}
		})
	}
}
