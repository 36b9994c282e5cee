package platform_test

import (
	"bytes"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/dbplatform/platform-go"
)

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
