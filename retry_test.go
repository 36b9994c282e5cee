package platform_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/oauth2"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/internal/pollhook"
)

// sleepRecorder is a SleepFunc that records the waits asked for, and
// which of them were a waiter's (pollhook.IsWait), and returns at once.
type sleepRecorder struct {
	mu    sync.Mutex
	waits []time.Duration
	polls []bool
}

func (s *sleepRecorder) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.waits = append(s.waits, d)
	s.polls = append(s.polls, pollhook.IsWait(ctx))
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleepRecorder) recorded() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.waits...)
}

// retryCall returns a call that sends one request with method: an SDK
// method for GET, POST, PATCH and DELETE, Client.Do for PUT.
func retryCall(method string) func(context.Context, *platform.Client) error {
	switch method {
	case "GET":
		return func(ctx context.Context, c *platform.Client) error {
			_, err := c.Databases.Get(ctx, &platform.GetDatabaseParams{Organization: "acme", Database: "app-db"})
			return err
		}
	case "POST":
		return func(ctx context.Context, c *platform.Client) error {
			_, err := c.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: "acme", Name: "app-db", ClusterSize: "PS_10"})
			return err
		}
	case "PATCH":
		return func(ctx context.Context, c *platform.Client) error {
			_, err := c.Databases.Update(ctx, &platform.UpdateDatabaseParams{Organization: "acme", Database: "app-db", DeletionProtected: platform.Ptr(true)})
			return err
		}
	case "DELETE":
		return func(ctx context.Context, c *platform.Client) error {
			return c.Databases.Delete(ctx, &platform.DeleteDatabaseParams{Organization: "acme", Database: "app-db"})
		}
	case "PUT":
		return func(ctx context.Context, c *platform.Client) error {
			req, err := c.NewRequest(ctx, "PUT", "v1/organizations/acme/databases/app-db/settings", map[string]bool{"on": true})
			if err != nil {
				return err
			}
			_, err = c.Do(req, nil)
			return err
		}
	}
	panic("no call for " + method)
}

// TestRetryPolicy is the retry table: what is retried for which method.
func TestRetryPolicy(t *testing.T) {
	t.Parallel()
	const ok = 0 // a success answer
	const netErr = -1
	tests := []struct {
		method       string
		first        int // the first answer: a status, or netErr
		wantAttempts int
	}{
		{"GET", 429, 2},
		{"POST", 429, 2},
		{"PATCH", 429, 2},
		{"GET", 503, 2},
		{"POST", 503, 2},
		{"PATCH", 503, 2},
		{"DELETE", 503, 2},
		{"GET", 500, 2},
		{"GET", 502, 2},
		{"GET", 504, 2},
		{"PUT", 502, 2},
		{"DELETE", 500, 2},
		{"POST", 500, 1},
		{"POST", 502, 1},
		{"POST", 504, 1},
		{"PATCH", 500, 1},
		{"PATCH", 502, 1},
		{"GET", 400, 1},
		{"GET", 401, 1},
		{"GET", 404, 1},
		{"POST", 422, 1},
		{"GET", 501, 1},
		{"GET", netErr, 2},
		{"PUT", netErr, 2},
		{"DELETE", netErr, 2},
		{"POST", netErr, 1},
		{"PATCH", netErr, 1},
		{"GET", ok, 1},
	}
	for _, tc := range tests {
		name := tc.method + " " + http.StatusText(tc.first)
		switch tc.first {
		case netErr:
			name = tc.method + " network error"
		case ok:
			name = tc.method + " success"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			success := respond(200, `{"id": "db1", "name": "app-db"}`)
			if tc.method == "DELETE" {
				success = respond(204, "")
			}
			first := success
			switch tc.first {
			case netErr:
				first = hangUp(t)
			case ok:
			default:
				first = respond(tc.first, `{"code": "x", "message": "first attempt fails"}`)
			}
			api := newWireFunc(t, sequence(first, success))
			sleeps := &sleepRecorder{}
			c := api.newClient(t, fastRetries(3), platform.WithSleep(sleeps.sleep))
			err := retryCall(tc.method)(t.Context(), c)

			reqs := api.requests()
			if len(reqs) != tc.wantAttempts {
				t.Fatalf("server saw %d attempts, want %d", len(reqs), tc.wantAttempts)
			}
			if got := len(sleeps.recorded()); got != tc.wantAttempts-1 {
				t.Errorf("%d backoff waits, want %d", got, tc.wantAttempts-1)
			}
			if tc.wantAttempts == 2 || tc.first == ok {
				if err != nil {
					t.Errorf("error after the retry: %v", err)
				}
				// A retried request is the same request, body included.
				if tc.wantAttempts == 2 {
					if diff := cmp.Diff(reqs[0].Body, reqs[1].Body); diff != "" {
						t.Errorf("retried body differs (-first +second):\n%s", diff)
					}
				}
				return
			}
			if err == nil {
				t.Fatal("no error, want the first attempt's")
			}
			var apiErr *platform.Error
			if tc.first == netErr {
				if errors.As(err, &apiErr) {
					t.Errorf("network error became an *Error: %v", err)
				}
				return
			}
			if !errors.As(err, &apiErr) || apiErr.StatusCode != tc.first {
				t.Errorf("error = %v, want an *Error with status %d", err, tc.first)
			}
		})
	}
}

// TestRetryAfter checks that the backoff waits what Retry-After asks for,
// through the client's sleep function.
func TestRetryAfter(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		status     int
		retryAfter func() string
		min, max   time.Duration
	}{
		{"429 seconds", 429, func() string { return "2" }, 2 * time.Second, 2 * time.Second},
		{"503 seconds", 503, func() string { return "1" }, time.Second, time.Second},
		{"429 zero", 429, func() string { return "0" }, 0, 0},
		{"429 HTTP date", 429, func() string { return time.Now().Add(30 * time.Second).UTC().Format(http.TimeFormat) }, 28 * time.Second, 30 * time.Second},
		{"429 HTTP date in the past", 429, func() string { return "Mon, 02 Jan 2006 15:04:05 GMT" }, 0, 0},
		{"429 unparsable: backoff", 429, func() string { return "soon" }, time.Millisecond, 2 * time.Millisecond},
		{"503 none: backoff", 503, func() string { return "" }, time.Millisecond, 2 * time.Millisecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			api := newWireFunc(t, sequence(
				func(w http.ResponseWriter, r *http.Request) {
					if v := tc.retryAfter(); v != "" {
						w.Header().Set("Retry-After", v)
					}
					writeBody(w, tc.status, `{"code": "rate_limited", "message": "slow down"}`)
				},
				respond(201, `{"id": "db1"}`),
			))
			sleeps := &sleepRecorder{}
			c := api.newClient(t, fastRetries(2), platform.WithSleep(sleeps.sleep))
			if err := retryCall("POST")(t.Context(), c); err != nil {
				t.Fatalf("error after the retry: %v", err)
			}
			if n := api.count(); n != 2 {
				t.Errorf("server saw %d attempts, want 2", n)
			}
			waits := sleeps.recorded()
			if len(waits) != 1 {
				t.Fatalf("waits = %v, want one", waits)
			}
			if waits[0] < tc.min || waits[0] > tc.max {
				t.Errorf("wait = %s, want %s..%s", waits[0], tc.min, tc.max)
			}
		})
	}
}

// TestRetryAfterOverTheCap checks that a Retry-After longer than
// MaxRetryAfter is not waited for: the error comes back at once with the
// wait asked for.
func TestRetryAfterOverTheCap(t *testing.T) {
	t.Parallel()
	for _, status := range []int{429, 503} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			t.Parallel()
			api := newWireFunc(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Retry-After", "120")
				writeBody(w, status, `{"code": "rate_limited", "message": "slow down"}`)
			})
			sleeps := &sleepRecorder{}
			c := api.newClient(t, platform.WithRetryPolicy(platform.RetryPolicy{
				MaxRetries: 3, MinWait: time.Millisecond, MaxWait: time.Millisecond, MaxRetryAfter: 10 * time.Second,
			}), platform.WithSleep(sleeps.sleep))
			_, err := c.Organizations.Get(t.Context(), &platform.GetOrganizationParams{Organization: "acme"})
			var apiErr *platform.Error
			if !errors.As(err, &apiErr) {
				t.Fatalf("error = %v, want an *Error", err)
			}
			if apiErr.StatusCode != status || apiErr.RetryAfter != 120*time.Second {
				t.Errorf("error status %d, RetryAfter %s; want %d, 2m0s", apiErr.StatusCode, apiErr.RetryAfter, status)
			}
			if n := api.count(); n != 1 {
				t.Errorf("server saw %d attempts, want 1", n)
			}
			if w := sleeps.recorded(); len(w) != 0 {
				t.Errorf("waited %v, want no wait", w)
			}
		})
	}
}

// TestRetryAfterHuge checks that a Retry-After too long for a
// time.Duration is taken as over the cap, not wrapped around into a short
// or negative wait that would retry at once.
func TestRetryAfterHuge(t *testing.T) {
	t.Parallel()
	// 10000000000 s wraps to a negative Duration, 18446744074 s to 290ms.
	for _, v := range []string{"10000000000", "18446744074", "99999999999999999999"} {
		t.Run(v, func(t *testing.T) {
			t.Parallel()
			api := newWireFunc(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Retry-After", v)
				writeBody(w, http.StatusServiceUnavailable, `{"code": "unavailable", "message": "down for a while"}`)
			})
			sleeps := &sleepRecorder{}
			c := api.newClient(t, fastRetries(3), platform.WithSleep(sleeps.sleep))
			_, err := c.Organizations.Get(t.Context(), &platform.GetOrganizationParams{Organization: "acme"})
			var apiErr *platform.Error
			if !errors.As(err, &apiErr) {
				t.Fatalf("error = %v, want an *Error", err)
			}
			if apiErr.RetryAfter < time.Minute {
				t.Errorf("RetryAfter = %s, want more than the 1m cap", apiErr.RetryAfter)
			}
			if n := api.count(); n != 1 {
				t.Errorf("server saw %d attempts, want 1", n)
			}
			if w := sleeps.recorded(); len(w) != 0 {
				t.Errorf("waited %v, want no wait", w)
			}
		})
	}
}

// TestRetriesExhausted checks that the last response, after the last
// retry, decodes into the error.
func TestRetriesExhausted(t *testing.T) {
	t.Parallel()
	api := newWireFunc(t, func(w http.ResponseWriter, r *http.Request) {
		writeBody(w, 503, `{"code": "unavailable", "message": "down for maintenance"}`)
	})
	sleeps := &sleepRecorder{}
	c := api.newClient(t, fastRetries(2), platform.WithSleep(sleeps.sleep))
	_, err := c.Databases.Get(t.Context(), &platform.GetDatabaseParams{Organization: "acme", Database: "app-db"})
	var apiErr *platform.Error
	if !errors.As(err, &apiErr) {
		t.Fatalf("error = %v (%T), want an *Error", err, err)
	}
	if apiErr.StatusCode != 503 || apiErr.Code != "unavailable" || apiErr.Message != "down for maintenance" {
		t.Errorf("error = %+v, want the 503's body", apiErr)
	}
	if !errors.Is(err, platform.ErrInternal) {
		t.Errorf("errors.Is(err, ErrInternal) = false")
	}
	if n := api.count(); n != 3 {
		t.Errorf("server saw %d attempts, want 3 (1 + MaxRetries 2)", n)
	}
	if w := sleeps.recorded(); len(w) != 2 {
		t.Errorf("waits = %v, want 2", w)
	}
}

func TestWithoutRetries(t *testing.T) {
	t.Parallel()
	for _, status := range []int{429, 503, 502} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			t.Parallel()
			api := newWireFunc(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Retry-After", "1")
				writeBody(w, status, `{"code": "x", "message": "y"}`)
			})
			sleeps := &sleepRecorder{}
			c := api.newClient(t, platform.WithoutRetries(), platform.WithSleep(sleeps.sleep))
			_, err := c.Users.GetCurrent(t.Context())
			var apiErr *platform.Error
			if !errors.As(err, &apiErr) || apiErr.StatusCode != status {
				t.Errorf("error = %v, want an *Error with status %d", err, status)
			}
			if n := api.count(); n != 1 {
				t.Errorf("server saw %d attempts, want 1", n)
			}
			if w := sleeps.recorded(); len(w) != 0 {
				t.Errorf("waited %v without retries", w)
			}
		})
	}
}

// TestRetryTokenSourceErrors checks that a token source that could not
// reach the token endpoint is retried, like any network error, while a
// refresh the token endpoint refused, a source's own error, or a source
// that returned no token, is not; no request goes out without a token.
func TestRetryTokenSourceErrors(t *testing.T) {
	t.Parallel()
	unreachable := &url.Error{Op: "Post", URL: "https://auth.example/oauth/token", Err: &net.OpError{
		Op: "dial", Net: "tcp", Err: errors.New("connection refused"),
	}}
	tests := []struct {
		name      string
		err       error
		wantWaits int
	}{
		{"refresh refused", &oauth2.RetrieveError{ErrorCode: "invalid_grant"}, 0},
		{"the source's own error", errors.New("the access token has expired and refreshing it needs a client secret"), 0},
		{"token endpoint unreachable", unreachable, 3},
		// Neither a token nor an error: an error naming the source.
		{"no token", nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			api := newWireFunc(t, respond(200, userJSON))
			sleeps := &sleepRecorder{}
			c, err := platform.NewClient(
				platform.WithBaseURL(api.baseURL()),
				platform.WithHTTPClient(api.srv.Client()),
				platform.WithTokenSource(failingTokenSource{tt.err}),
				fastRetries(3),
				platform.WithSleep(sleeps.sleep),
			)
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Users.GetCurrent(t.Context())
			switch {
			case tt.err == nil && (err == nil || !strings.Contains(err.Error(), "the token source returned no token")):
				t.Errorf("error = %v, want one saying the token source returned no token", err)
			case tt.err != nil && !errors.Is(err, tt.err):
				t.Errorf("error = %v, want the token source's %v", err, tt.err)
			}
			if w := sleeps.recorded(); len(w) != tt.wantWaits {
				t.Errorf("waits = %v, want %d", w, tt.wantWaits)
			}
			if n := api.count(); n != 0 {
				t.Errorf("server saw %d requests without a token, want 0", n)
			}
		})
	}
}

// failingTokenSource is an oauth2.TokenSource that always fails with err.
type failingTokenSource struct{ err error }

func (s failingTokenSource) Token() (*oauth2.Token, error) { return nil, s.err }

// TestRetryZeroMaxRetries checks that MaxRetries 0 sends once.
func TestRetryZeroMaxRetries(t *testing.T) {
	t.Parallel()
	api := newWireFunc(t, respond(503, `{"code": "x", "message": "y"}`))
	c := api.newClient(t, fastRetries(0))
	if _, err := c.Users.GetCurrent(t.Context()); !errors.Is(err, platform.ErrInternal) {
		t.Errorf("error = %v, want ErrInternal", err)
	}
	if n := api.count(); n != 1 {
		t.Errorf("server saw %d attempts, want 1", n)
	}
}

// TestRetryRealBackoff retries on the wall clock (no WithSleep), with
// waits of a millisecond.
func TestRetryRealBackoff(t *testing.T) {
	t.Parallel()
	api := newWireFunc(t, sequence(
		respond(503, `{"code": "x", "message": "y"}`),
		respond(502, `{"code": "x", "message": "y"}`),
		respond(200, userJSON),
	))
	c := api.newClient(t, fastRetries(3))
	u, err := c.Users.GetCurrent(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if u.ID != "usr0000000001" {
		t.Errorf("user ID %q", u.ID)
	}
	if n := api.count(); n != 3 {
		t.Errorf("server saw %d attempts, want 3", n)
	}
}

// TestRetryCancelledDuringBackoff cancels the context while the client
// waits to retry: the call returns at once with context.Canceled.
func TestRetryCancelledDuringBackoff(t *testing.T) {
	t.Parallel()
	t.Run("wall clock", func(t *testing.T) {
		t.Parallel()
		served := make(chan struct{}, 1)
		api := newWireFunc(t, func(w http.ResponseWriter, r *http.Request) {
			writeBody(w, 503, `{"code": "x", "message": "y"}`)
			http.NewResponseController(w).Flush()
			select {
			case served <- struct{}{}:
			default:
			}
		})
		// The backoff is a minute: only the cancellation can end it.
		c := api.newClient(t, platform.WithRetryPolicy(platform.RetryPolicy{
			MaxRetries: 3, MinWait: time.Minute, MaxWait: time.Minute, MaxRetryAfter: time.Minute,
		}))
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		go func() {
			select {
			case <-served:
			case <-ctx.Done():
			}
			cancel()
		}()
		start := time.Now()
		_, err := c.Databases.Get(ctx, &platform.GetDatabaseParams{Organization: "acme", Database: "app-db"})
		// Not a timing measurement: a bound far below the minute of backoff,
		// so that a client that ignores the cancellation fails here.
		if elapsed := time.Since(start); elapsed > 5*time.Second {
			t.Errorf("returned after %s, want at once", elapsed)
		}
		if !errors.Is(err, context.Canceled) {
			t.Errorf("error = %v, want context.Canceled", err)
		}
		if n := api.count(); n != 1 {
			t.Errorf("server saw %d attempts, want 1", n)
		}
	})
	t.Run("sleep function", func(t *testing.T) {
		t.Parallel()
		api := newWireFunc(t, respond(503, `{"code": "x", "message": "y"}`))
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		var waits int
		sleep := func(ctx context.Context, d time.Duration) error {
			waits++
			cancel() // the caller gives up while the client waits
			<-ctx.Done()
			return ctx.Err()
		}
		c := api.newClient(t, fastRetries(3), platform.WithSleep(sleep))
		_, err := c.Databases.Get(ctx, &platform.GetDatabaseParams{Organization: "acme", Database: "app-db"})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("error = %v, want context.Canceled", err)
		}
		if n := api.count(); n != 1 {
			t.Errorf("server saw %d attempts, want 1", n)
		}
		if waits != 1 {
			t.Errorf("%d waits, want 1", waits)
		}
	})
	t.Run("already cancelled", func(t *testing.T) {
		t.Parallel()
		api := newWireFunc(t, respond(200, userJSON))
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		_, err := api.newClient(t, fastRetries(3)).Users.GetCurrent(ctx)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("error = %v, want context.Canceled", err)
		}
		if n := api.count(); n != 0 {
			t.Errorf("server saw %d attempts, want 0", n)
		}
	})
}

// closeTracker records whether a response body was closed.
type closeTracker struct {
	io.ReadCloser
	closed atomic.Bool
}

func (c *closeTracker) Close() error {
	c.closed.Store(true)
	return c.ReadCloser.Close()
}

// TestRetryCancelledWithAResponse cancels the context just as a retryable
// response arrives: the call returns context.Canceled, and the response
// that is dropped has its body closed (a RoundTripper must not return a
// response with an error; net/http would drop it unclosed and log to the
// standard logger).
func TestRetryCancelledWithAResponse(t *testing.T) {
	t.Parallel()
	api := newWireFunc(t, respond(503, `{"code": "x", "message": "y"}`))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	base := api.srv.Client().Transport
	var bodies []*closeTracker
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		resp, err := base.RoundTrip(r)
		if err == nil {
			tr := &closeTracker{ReadCloser: resp.Body}
			resp.Body = tr
			bodies = append(bodies, tr)
		}
		cancel() // the caller gives up as the response arrives
		return resp, err
	})}
	c, err := platform.NewClient(
		platform.WithBaseURL(api.baseURL()),
		platform.WithServiceToken(testTokenID, testTokenSecret),
		platform.WithHTTPClient(hc),
		fastRetries(2),
	)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Users.GetCurrent(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error = %v, want context.Canceled", err)
	}
	if len(bodies) != 1 {
		t.Fatalf("%d responses, want 1", len(bodies))
	}
	if !bodies[0].closed.Load() {
		t.Error("the dropped response's body was not closed")
	}
}

// TestRetryBackoffCeiling checks the waits between attempts against the
// policy's promise: the first retry waits MinWait, and each later wait lies
// between MinWait and a ceiling that doubles from MinWait up to MaxWait, so
// a MinWait of zero retries at once every time.
func TestRetryBackoffCeiling(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		min, max time.Duration
	}{
		{"MinWait zero", 0, 8 * time.Second},
		{"MinWait equals MaxWait", time.Second, time.Second},
		{"default", 250 * time.Millisecond, 8 * time.Second},
		{"a ceiling past the largest duration", time.Hour, 1 << 62},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			api := newWireFunc(t, respond(503, `{"code": "x", "message": "y"}`))
			sleeps := &sleepRecorder{}
			c := api.newClient(t, platform.WithRetryPolicy(platform.RetryPolicy{
				MaxRetries: 10, MinWait: tc.min, MaxWait: tc.max, MaxRetryAfter: time.Minute,
			}), platform.WithSleep(sleeps.sleep), platform.WithJitterSource(rand.NewPCG(1, 2)))
			if err := retryCall("GET")(t.Context(), c); !errors.Is(err, platform.ErrInternal) {
				t.Fatalf("error = %v, want the last 503", err)
			}
			var outside []string
			for n, d := range sleeps.recorded() {
				ceil := tc.max
				if n < 62 && tc.min <= tc.max>>n {
					ceil = tc.min << n
				}
				if d < tc.min || d > ceil {
					outside = append(outside, fmt.Sprintf("wait %d: %s outside [%s, %s]", n+1, d, tc.min, ceil))
				}
			}
			if diff := cmp.Diff([]string(nil), outside); diff != "" {
				t.Errorf("waits outside their bounds (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRetryNotForPermanentErrors checks the errors that sending again
// cannot mend, as go-retryablehttp's DefaultRetryPolicy classifies them:
// they end the call after one attempt, with no backoff, even on a GET.
func TestRetryNotForPermanentErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// handler answers every request that reaches the API.
		handler http.HandlerFunc
		// header, when set, is a header value the request carries.
		header       string
		tls          bool
		wantRequests int
		wantText     string
	}{
		{
			name: "redirect limit",
			handler: func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, r.URL.Path, http.StatusFound)
			},
			wantRequests: 10, wantText: "redirects",
		},
		{
			name: "redirect to an unsupported scheme",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Location", "ftp://"+r.Host+"/x") // the same host: followed
				w.WriteHeader(http.StatusFound)
			},
			wantRequests: 1, wantText: "unsupported protocol scheme",
		},
		{
			name: "redirect to an invalid address",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Location", "http://[::1%zz/x")
				w.WriteHeader(http.StatusFound)
			},
			wantRequests: 1, wantText: "Location",
		},
		{
			name:         "invalid header value",
			handler:      respond(200, `{}`),
			header:       "a\x00b",
			wantRequests: 0, wantText: "invalid header",
		},
		{
			name:         "untrusted certificate",
			handler:      respond(200, `{}`),
			tls:          true,
			wantRequests: 0, wantText: "certificate",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var requests atomic.Int32
			srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				requests.Add(1)
				tc.handler(w, r)
			}))
			srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused TLS handshakes
			if tc.tls {
				srv.StartTLS()
			} else {
				srv.Start()
			}
			t.Cleanup(srv.Close)
			sleeps := &sleepRecorder{}
			// A transport of its own: it trusts no test certificate.
			hc := &http.Client{Transport: &http.Transport{}}
			t.Cleanup(hc.CloseIdleConnections)
			c, err := platform.NewClient(platform.WithBaseURL(srv.URL), platform.WithServiceToken(testTokenID, testTokenSecret),
				platform.WithHTTPClient(hc), fastRetries(3), platform.WithSleep(sleeps.sleep))
			if err != nil {
				t.Fatal(err)
			}
			req, err := c.NewRequest(t.Context(), http.MethodGet, "v1/organizations/acme", nil)
			if err != nil {
				t.Fatal(err)
			}
			if tc.header != "" {
				req.Header["X-Note"] = []string{tc.header}
			}
			_, err = c.Do(req, nil)
			if err == nil || !strings.Contains(err.Error(), tc.wantText) {
				t.Errorf("error = %v, want one about %q", err, tc.wantText)
			}
			got := struct{ Requests, Waits int }{int(requests.Load()), len(sleeps.recorded())}
			if diff := cmp.Diff(struct{ Requests, Waits int }{tc.wantRequests, 0}, got); diff != "" {
				t.Errorf("attempts (-want +got):\n%s", diff)
			}
		})
	}
}
