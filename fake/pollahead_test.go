package fake_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
	"github.com/dbplatform/platform-go/internal/pollhook"
)

// TestPollAheadLeavesNoTrace checks the reads the fake's client makes the
// server serve for itself while it moves the clock ahead of a waiter's poll
// (after creating the database, then after its readiness): none is in the
// request log or takes a request ID, the rate limit does not count them (a
// limit of two a minute lets the create and the one poll through), and a
// fault rule answers the poll only.
func TestPollAheadLeavesNoTrace(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t, fake.WithRateLimit(2))
	c := srv.Client()
	if _, err := c.Databases.Create(t.Context(), &platform.CreateDatabaseParams{Organization: srv.Org(), Name: "app", ClusterSize: "PS_10"}); err != nil {
		t.Fatal(err)
	}
	rule, err := srv.InjectFault("get_database", fake.Fault{Status: http.StatusServiceUnavailable, Times: 1})
	if err != nil {
		t.Fatal(err)
	}
	t0 := srv.Now()
	db, err := c.Databases.Wait(t.Context(), &platform.GetDatabaseParams{Organization: srv.Org(), Database: "app"})
	if err != nil {
		t.Fatal(err)
	}
	if !db.Ready {
		t.Fatalf("Wait returned a database in state %s", db.State)
	}
	if rule.Fired() != 1 {
		t.Errorf("the fault rule fired %d times, want once, on the poll", rule.Fired())
	}
	type logged struct {
		Op     string
		Status int
		ID     string
	}
	var got []logged
	for _, r := range srv.Requests() {
		got = append(got, logged{r.Operation, r.Status, r.RequestID[len(r.RequestID)-6:]})
	}
	// The create, the poll the fault answered (before the rate limit
	// counts it), and the poll's retry: the two requests the limit counts.
	want := []logged{
		{"create_database", http.StatusCreated, "000001"},
		{"get_database", http.StatusServiceUnavailable, "000002"},
		{"get_database", http.StatusOK, "000003"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the request log (-want +got):\n%s", diff)
	}
	if waited := srv.Now().Sub(t0); waited < 5*time.Second {
		t.Errorf("the clock moved %s, want the database's 5s at least", waited)
	}
}

// TestPollAheadStrictBodies checks a waiter on a server that refuses
// unknown body fields: the reads the server makes for itself ahead of a
// poll have no body, and are read as an empty one.
func TestPollAheadStrictBodies(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t, fake.WithStrictBodies())
	c := srv.Client()
	if _, err := c.Databases.Create(t.Context(), &platform.CreateDatabaseParams{Organization: srv.Org(), Name: "app", ClusterSize: "PS_10"}); err != nil {
		t.Fatal(err)
	}
	db, err := c.Databases.Wait(t.Context(), &platform.GetDatabaseParams{Organization: srv.Org(), Database: "app"})
	if err != nil || !db.Ready {
		t.Fatalf("Wait: %v, %v; want a ready database", db, err)
	}
}

// TestServeHTTPWithoutBody checks requests handed to ServeHTTP as a client
// builds them, with no body at all: a read answers, and a create that needs
// a body is refused for the field it lacks.
func TestServeHTTPWithoutBody(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	tests := []struct {
		method, path string
		want         int
	}{
		{http.MethodGet, "v1/organizations/" + srv.Org(), http.StatusOK},
		{http.MethodPost, "v1/organizations/" + srv.Org() + "/databases", http.StatusUnprocessableEntity},
	}
	for _, tt := range tests {
		r, err := http.NewRequestWithContext(t.Context(), tt.method, srv.URL()+tt.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		r.Header.Set("Authorization", srv.AdminToken().Authorization())
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, r)
		if w.Code != tt.want {
			t.Errorf("%s %s: status %d (%s), want %d", tt.method, tt.path, w.Code, w.Body, tt.want)
		}
	}
}

// TestWaitAfterAnotherClientMovedTheClock checks a waiter's wait on a
// clock another client moved after the waiter's poll read its resource
// (parallel waiters on one server do): the transition that ran may be the
// one the waiter waits for, so the wait ends at once for the waiter to poll
// again, rather than jumping to the next thing scheduled, a day ahead.
func TestWaitAfterAnotherClientMovedTheClock(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	c := srv.Client()
	params := &platform.GetDatabaseParams{Organization: srv.Org(), Database: "app"}
	if _, err := c.Databases.Create(t.Context(), &platform.CreateDatabaseParams{Organization: srv.Org(), Name: "app", ClusterSize: "PS_10"}); err != nil {
		t.Fatal(err)
	}
	// A poll as the waiter makes it: the database is not ready yet.
	ctx, probe := pollhook.WithProbe(t.Context())
	if db, err := c.Databases.Get(ctx, params); err != nil || db.Ready {
		t.Fatalf("the poll: %v, %v; want a database not ready", db, err)
	}
	srv.Advance(fake.DefaultTimings().DatabaseReady) // another client's wait
	moved := srv.Now()
	if err := srv.Sleep(pollhook.MarkWait(t.Context(), probe), 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if got := srv.Now(); !got.Equal(moved) {
		t.Errorf("the wait moved the clock by %v, want it left where the other client moved it", got.Sub(moved))
	}
	if db, err := c.Databases.Get(t.Context(), params); err != nil || !db.Ready {
		t.Errorf("the next poll: %v, %v; want the database ready", db, err)
	}
}

// TestPollAheadAfterAnotherClientMovedTheClock checks the clock run ahead
// of a waiter's poll when another client moves it between the read the
// transport makes for the poll and the move after it (here the condition
// itself moves it, at its first read, to when the database is ready): the
// transport reads again, and the poll sees the database ready where the
// other client left the clock, rather than at the next thing scheduled
// (another database's readiness, later).
func TestPollAheadAfterAnotherClientMovedTheClock(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	c := srv.Client()
	params := &platform.GetDatabaseParams{Organization: srv.Org(), Database: "app"}
	ready := fake.DefaultTimings().DatabaseReady
	want := srv.Now().Add(ready)
	for i, name := range []string{"app", "other"} {
		if i > 0 {
			srv.Advance(ready / 2)
		}
		if _, err := c.Databases.Create(t.Context(), &platform.CreateDatabaseParams{Organization: srv.Org(), Name: name, ClusterSize: "PS_10"}); err != nil {
			t.Fatal(err)
		}
	}
	reads := 0
	isReady := func(v any) (ok, done bool, err error) {
		db, ok := v.(*platform.Database)
		if !ok {
			return false, false, nil
		}
		if reads++; reads == 1 {
			srv.Advance(want.Sub(srv.Now())) // another client's wait
		}
		return true, db.Ready, nil
	}
	ctx, _ := pollhook.WithProbe(t.Context())
	ctx = pollhook.WithCondition(ctx, pollhook.Cond{Value: isReady, Body: func([]byte) (bool, error) {
		return false, errors.New("the condition on the body, not expected")
	}})
	if db, err := c.Databases.Get(ctx, params); err != nil || !db.Ready {
		t.Fatalf("the poll: %v, %v; want the database ready", db, err)
	}
	if got := srv.Now(); !got.Equal(want) {
		t.Errorf("the clock is %v past where the other client moved it", got.Sub(want))
	}
}
