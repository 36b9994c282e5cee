package fake_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

func TestRateLimit(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t, fake.WithRateLimit(3))
	ctx := t.Context()
	// A client that does not retry, to see the 429 itself.
	c, err := platform.NewClient(append(srv.ClientOptions(srv.AdminToken()), platform.WithoutRetries())...)
	if err != nil {
		t.Fatal(err)
	}
	get := func(c *platform.Client) error {
		_, err := c.Organizations.Get(ctx, &platform.GetOrganizationParams{Organization: srv.Org()})
		return err
	}
	for i := range 3 {
		if err := get(c); err != nil {
			t.Fatalf("request %d of 3: %v", i+1, err)
		}
	}
	srv.Advance(20 * time.Second)
	e := apiError(t, get(c), http.StatusTooManyRequests, "3 request(s) a minute")
	if e.Code != "rate_limited" || e.RetryAfter != 40*time.Second {
		t.Errorf("code %q, Retry-After %s; want rate_limited and 40s (the first request leaves the window then)", e.Code, e.RetryAfter)
	}

	// The limit is per credential: another token has its own minute.
	other := mustToken(t, srv, fake.TokenSpec{Name: "other", Permissions: []platform.Permission{"read_organization"}})
	if err := get(srv.ClientFor(other)); err != nil {
		t.Errorf("another token: %v", err)
	}

	// A refused request does not count: once the first three leave the
	// window, three more go through.
	srv.Advance(40 * time.Second)
	for i := range 3 {
		if err := get(c); err != nil {
			t.Fatalf("after the window, request %d of 3: %v", i+1, err)
		}
	}
	apiError(t, get(c), http.StatusTooManyRequests)
}

func TestRateLimitClientWaitsOnTheClock(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t, fake.WithRateLimit(2))
	c := srv.Client() // retries 429s, waiting by advancing the virtual clock
	start := srv.Now()
	for i := range 5 {
		if _, err := c.Organizations.Get(t.Context(), &platform.GetOrganizationParams{Organization: srv.Org()}); err != nil {
			t.Fatalf("request %d: %v", i+1, err)
		}
	}
	// Requests 3 and 5 each waited out a full minute; 4 went through with 3.
	if waited := srv.Now().Sub(start); waited != 2*time.Minute {
		t.Errorf("the clock moved %s, want 2m (two waits of 60s)", waited)
	}
	var limited int
	for _, r := range srv.Requests() {
		if r.Status == http.StatusTooManyRequests {
			limited++
		}
	}
	if limited != 2 {
		t.Errorf("%d requests were refused, want 2", limited)
	}
}

func TestRateLimitOption(t *testing.T) {
	t.Parallel()
	if _, err := fake.New(fake.WithRateLimit(0)); err == nil {
		t.Error("WithRateLimit(0) was accepted")
	}
	srv := fake.NewServer(t) // no limit by default
	c := srv.Client()
	for i := range fake.LiveRateLimit + 1 {
		if _, err := c.Organizations.Get(t.Context(), &platform.GetOrganizationParams{Organization: srv.Org()}); err != nil {
			t.Fatalf("request %d without a limit: %v", i+1, err)
		}
	}
}

// TestRateLimitAfterResetAndRestore checks that Reset and Restore forget
// the counts made on the clock they replace: the admin token keeps its ID
// across both, and counts of a later time would refuse it for an hour.
func TestRateLimitAfterResetAndRestore(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		replace func(t *testing.T, srv *fake.Server, snapshot []byte)
	}{
		{"Reset", func(_ *testing.T, srv *fake.Server, _ []byte) { srv.Reset() }},
		{"Restore", func(t *testing.T, srv *fake.Server, snapshot []byte) {
			if err := srv.Restore(snapshot); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := fake.NewServer(t, fake.WithRateLimit(2))
			c, err := platform.NewClient(append(srv.ClientOptions(srv.AdminToken()), platform.WithoutRetries())...)
			if err != nil {
				t.Fatal(err)
			}
			get := func() error {
				_, err := c.Organizations.Get(t.Context(), &platform.GetOrganizationParams{Organization: srv.Org()})
				return err
			}
			snapshot, err := srv.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			srv.Advance(time.Hour)
			for range 2 {
				if err := get(); err != nil {
					t.Fatal(err)
				}
			}
			apiError(t, get(), http.StatusTooManyRequests, "rate limit")
			tc.replace(t, srv, snapshot)
			if err := get(); err != nil {
				t.Errorf("the first request after %s: %v, want it served", tc.name, err)
			}
		})
	}
}

// TestRateLimitOAuthTokens: an OAuth access token has a minute of its own,
// apart from the service tokens' and from another access token's, even of
// the same user.
func TestRateLimitOAuthTokens(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t, fake.WithRateLimit(2))
	ctx := t.Context()
	get := func(c *platform.Client) error {
		_, err := c.Users.GetCurrent(ctx)
		return err
	}
	first := oauthClient(t, srv, oauthGrant(t, srv, fake.Consent{}, platform.ScopeUserReadUser))
	second := oauthClient(t, srv, oauthGrant(t, srv, fake.Consent{}, platform.ScopeUserReadUser))
	for i := range 2 {
		if err := get(first); err != nil {
			t.Fatalf("request %d of 2: %v", i+1, err)
		}
	}
	e := apiError(t, get(first), http.StatusTooManyRequests, "2 request(s) a minute")
	if e.Code != "rate_limited" || e.RetryAfter != time.Minute {
		t.Errorf("code %q, Retry-After %s; want rate_limited and 1m", e.Code, e.RetryAfter)
	}
	if err := get(second); err != nil {
		t.Errorf("another access token of the same user: %v", err)
	}
	admin, err := platform.NewClient(append(srv.ClientOptions(srv.AdminToken()), platform.WithoutRetries())...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Organizations.Get(ctx, &platform.GetOrganizationParams{Organization: srv.Org()}); err != nil {
		t.Errorf("the admin service token: %v", err)
	}
	srv.Advance(time.Minute)
	if err := get(first); err != nil {
		t.Errorf("after the minute: %v", err)
	}
}
