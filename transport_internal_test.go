package platform

// Internal tests of the credential guards: a redirect from https to http on
// the same host cannot be staged with httptest servers (one port serves one
// scheme), so the guards are tested directly. Also the wall-clock sleep of
// retries and waiters, which every other test replaces.

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"
)

// TestRealSleep: the default sleep ends with the context's error when the
// context has ended, however long the wait asked (a cancelled caller is
// not kept waiting out a Retry-After), and without one otherwise.
func TestRealSleep(t *testing.T) {
	t.Parallel()
	ended, cancel := context.WithCancel(t.Context())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		d    time.Duration
		want error
	}{
		{"ended, a long wait", ended, time.Hour, context.Canceled},
		{"ended, no wait", ended, 0, context.Canceled},
		{"ended, a negative wait", ended, -time.Second, context.Canceled},
		{"live, no wait", t.Context(), 0, nil},
		{"live, a nanosecond", t.Context(), time.Nanosecond, nil},
	}
	for _, tc := range tests {
		if err := realSleep(tc.ctx, tc.d); !errors.Is(err, tc.want) || (tc.want == nil && err != nil) {
			t.Errorf("%s: realSleep = %v, want %v", tc.name, err, tc.want)
		}
	}
}

func TestHostGuard(t *testing.T) {
	t.Parallel()
	tests := []struct {
		url        string
		wantAuthed bool
	}{
		{"https://api.example.com/v1/user", true},
		{"https://api.example.com:443/v1/user", false}, // another spelling: fail closed
		{"http://api.example.com/v1/user", false},      // downgrade
		{"https://other.example.com/v1/user", false},
		{"https://api.example.com.evil.example/v1/user", false},
	}
	for _, tc := range tests {
		t.Run(tc.url, func(t *testing.T) {
			t.Parallel()
			var authed, plain int
			g := &hostGuard{
				host:   "api.example.com",
				scheme: "https",
				authed: countingTransport(&authed),
				plain:  countingTransport(&plain),
			}
			req, err := http.NewRequestWithContext(t.Context(), "GET", tc.url, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := g.RoundTrip(req); err != nil {
				t.Fatal(err)
			}
			if got := authed == 1; got != tc.wantAuthed || authed+plain != 1 {
				t.Errorf("authed %d, plain %d; want authed %v", authed, plain, tc.wantAuthed)
			}
		})
	}
}

// TestHostGuardPlainAPI checks that an http base URL keeps its credentials
// on http and on an upgrade to https.
func TestHostGuardPlainAPI(t *testing.T) {
	t.Parallel()
	for _, u := range []string{"http://127.0.0.1:8080/v1/user", "https://127.0.0.1:8080/v1/user"} {
		var authed, plain int
		g := &hostGuard{host: "127.0.0.1:8080", scheme: "http", authed: countingTransport(&authed), plain: countingTransport(&plain)}
		req, err := http.NewRequestWithContext(t.Context(), "GET", u, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := g.RoundTrip(req); err != nil {
			t.Fatal(err)
		}
		if authed != 1 {
			t.Errorf("%s: sent without credentials", u)
		}
	}
}

func TestSameHostRedirect(t *testing.T) {
	t.Parallel()
	tests := []struct {
		from, to   string
		wantFollow bool
	}{
		{"https://api.example.com/v1/a", "https://api.example.com/v1/b", true},
		{"http://api.example.com/v1/a", "https://api.example.com/v1/b", true},
		{"https://api.example.com/v1/a", "http://api.example.com/v1/b", false},
		{"https://api.example.com/v1/a", "https://other.example.com/v1/b", false},
	}
	for _, tc := range tests {
		t.Run(tc.from+" to "+tc.to, func(t *testing.T) {
			t.Parallel()
			from, _ := http.NewRequestWithContext(t.Context(), "GET", tc.from, nil)
			to, _ := http.NewRequestWithContext(t.Context(), "GET", tc.to, nil)
			err := sameHostRedirect(to, []*http.Request{from})
			if follow := err == nil; follow != tc.wantFollow {
				t.Errorf("sameHostRedirect = %v, want follow %v", err, tc.wantFollow)
			}
		})
	}
	t.Run("too many", func(t *testing.T) {
		t.Parallel()
		req, _ := http.NewRequestWithContext(t.Context(), "GET", "https://api.example.com/", nil)
		via := make([]*http.Request, 10)
		for i := range via {
			via[i] = req
		}
		if err := sameHostRedirect(req, via); err == nil || err == http.ErrUseLastResponse {
			t.Errorf("sameHostRedirect after 10 = %v, want an error", err)
		}
	})
}

type countingRT struct{ n *int }

func (c countingRT) RoundTrip(r *http.Request) (*http.Response, error) {
	*c.n++
	return &http.Response{StatusCode: 204, Body: http.NoBody, Request: r}, nil
}

func countingTransport(n *int) http.RoundTripper { return countingRT{n} }
