package platform_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dbplatform/platform-go"
)

// The service token every test client sends. The secret must never show up
// in an error text or a log line.
const (
	testTokenID     = "tok1d"
	testTokenSecret = "sk_s3cr3t-never-print-me"
	testAuthHeader  = testTokenID + ":" + testTokenSecret
)

// apiPrefix is where the test API is mounted below the server's root, so
// that a request built from an absolute path ("/v1/...") instead of one
// relative to the base URL misses it.
const apiPrefix = "/api/"

// captured is a request as the test API received it.
type captured struct {
	Method string
	// RequestURI is the request target as sent: the escaped path and the
	// raw query.
	RequestURI string
	Path       string // escaped path, without the query
	RawQuery   string
	Header     http.Header
	Body       []byte
}

// testAPI is an httptest server whose API lives under apiPrefix. It records
// every request that reaches the prefix (and every one that misses it) and
// answers through handler.
type testAPI struct {
	srv *httptest.Server

	mu      sync.Mutex
	reqs    []captured
	misses  []string // request targets outside apiPrefix
	handler http.HandlerFunc
}

// newTestAPI starts a test API that answers with h (which may be nil and
// set later with handle). The server closes when the test ends.
func newTestAPI(t *testing.T, h http.HandlerFunc) *testAPI {
	t.Helper()
	a := &testAPI{handler: h}
	mux := http.NewServeMux()
	mux.HandleFunc(apiPrefix, func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			t.Errorf("reading request body: %v", err)
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		target, query, _ := strings.Cut(r.RequestURI, "?")
		a.mu.Lock()
		a.reqs = append(a.reqs, captured{
			Method:     r.Method,
			RequestURI: r.RequestURI,
			Path:       target,
			RawQuery:   query,
			Header:     r.Header.Clone(),
			Body:       body,
		})
		h := a.handler
		a.mu.Unlock()
		if h == nil {
			http.Error(w, `{"code":"not_found","message":"no handler"}`, http.StatusNotFound)
			return
		}
		h(w, r)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		a.misses = append(a.misses, r.Method+" "+r.RequestURI)
		a.mu.Unlock()
		http.Error(w, `{"code":"not_found","message":"outside the API prefix"}`, http.StatusNotFound)
	})
	a.srv = httptest.NewServer(mux)
	t.Cleanup(func() {
		a.srv.Close()
		a.mu.Lock()
		defer a.mu.Unlock()
		for _, m := range a.misses {
			t.Errorf("request outside %s: %s", apiPrefix, m)
		}
	})
	return a
}

// handle replaces the handler.
func (a *testAPI) handle(h http.HandlerFunc) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.handler = h
}

// baseURL is the API's base URL, with the path prefix.
func (a *testAPI) baseURL() string { return a.srv.URL + apiPrefix }

// requests returns the requests received so far.
func (a *testAPI) requests() []captured {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]captured(nil), a.reqs...)
}

// count is the number of requests received so far.
func (a *testAPI) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.reqs)
}

// options are the options that point a client at the test API with the
// test token, through the server's own HTTP client.
func (a *testAPI) options() []platform.Option {
	return []platform.Option{
		platform.WithBaseURL(a.baseURL()),
		platform.WithServiceToken(testTokenID, testTokenSecret),
		platform.WithHTTPClient(a.srv.Client()),
	}
}

// client returns a client of the test API with the test token and opts;
// without a retry option of its own it sends every request once.
func (a *testAPI) client(t *testing.T, opts ...platform.Option) *platform.Client {
	t.Helper()
	if len(opts) == 0 {
		opts = []platform.Option{platform.WithoutRetries()}
	}
	c, err := platform.NewClient(append(a.options(), opts...)...)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	return c
}

// fastRetries is a retry policy whose waits take no noticeable time.
func fastRetries(maxRetries int) platform.Option {
	return platform.WithRetryPolicy(platform.RetryPolicy{
		MaxRetries:    maxRetries,
		MinWait:       time.Millisecond,
		MaxWait:       2 * time.Millisecond,
		MaxRetryAfter: time.Minute,
	})
}

// respond answers every request with status and body (JSON when body is
// not empty).
func respond(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		writeBody(w, status, body)
	}
}

func writeBody(w http.ResponseWriter, status int, body string) {
	if body != "" {
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

// sequence answers the n-th request with the n-th handler, and every
// request after the last with the last.
func sequence(hs ...http.HandlerFunc) http.HandlerFunc {
	var mu sync.Mutex
	n := 0
	return func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		h := hs[min(n, len(hs)-1)]
		n++
		mu.Unlock()
		h(w, r)
	}
}

// hangUp closes the connection without answering: a network error.
func hangUp(t *testing.T) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		conn, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Errorf("hijack: %v", err)
			return
		}
		_ = conn.Close()
	}
}

// mustTimestamp parses an RFC 3339 time into a Timestamp, for expected values.
func mustTimestamp(t *testing.T, s string) platform.Timestamp {
	t.Helper()
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatalf("mustTimestamp(%q): %v", s, err)
	}
	return platform.Timestamp{Time: v}
}

// jsonValue decodes JSON text into generic values, for comparing bodies
// independently of key order and spacing.
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

// lockedBuffer is a bytes.Buffer safe for concurrent writes.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
