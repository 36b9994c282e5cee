package fake_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
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
