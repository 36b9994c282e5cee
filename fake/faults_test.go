package fake_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// mustFault installs a fault rule.
func mustFault(t testing.TB, srv *fake.Server, op string, f fake.Fault) *fake.FaultRule {
	t.Helper()
	r, err := srv.InjectFault(op, f)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// statusesOf returns the logged statuses of op, in order.
func statusesOf(srv *fake.Server, op string) []int {
	var out []int
	for _, r := range srv.Requests() {
		if r.Operation == op {
			out = append(out, r.Status)
		}
	}
	return out
}

func TestInjectFaultRefusesBadRules(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	for _, tc := range []struct {
		name string
		op   string
		f    fake.Fault
	}{
		{"unknown operation", "get_everything", fake.Fault{Status: 500}},
		{"empty operation", "", fake.Fault{Status: 500}},
		{"success status", "get_database", fake.Fault{Status: 200}},
		{"status below 400", "get_database", fake.Fault{Status: 399}},
		{"status above 599", "get_database", fake.Fault{Status: 600}},
		{"negative times", "get_database", fake.Fault{Status: 500, Times: -1}},
		{"negative probability", "get_database", fake.Fault{Status: 500, Probability: -0.1}},
		{"probability above 1", "get_database", fake.Fault{Status: 500, Probability: 1.5}},
		{"negative latency", "get_database", fake.Fault{Latency: -time.Second}},
		{"negative retry after", "get_database", fake.Fault{Status: 429, RetryAfter: -time.Second}},
		{"neither status nor latency", "get_database", fake.Fault{Times: 1}},
	} {
		if r, err := srv.InjectFault(tc.op, tc.f); err == nil || r != nil {
			t.Errorf("%s: InjectFault = %v, %v; want an error", tc.name, r, err)
		}
	}
	// No rule was installed.
	mustDB(t, srv, "app")
	if _, err := srv.Client().Databases.Get(t.Context(), &platform.GetDatabaseParams{Organization: "acme", Database: "app"}); err != nil {
		t.Errorf("after refused rules: %v", err)
	}
}

// TestInjectFaultCap checks that a server holds at most
// fake.MaxFaultRules rules, through the Go API and the control surface
// alike, refusing more with an error that says why, and takes one again
// once a rule is removed.
func TestInjectFaultCap(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	var first *fake.FaultRule
	for i := range fake.MaxFaultRules {
		r := mustFault(t, srv, "get_database", fake.Fault{Status: 503, Times: 1})
		if i == 0 {
			first = r
		}
	}
	if r, err := srv.InjectFault("get_database", fake.Fault{Status: 503}); err == nil || r != nil || !strings.Contains(err.Error(), "1000 fault rules are installed") {
		t.Errorf("InjectFault past the cap = %v, %v; want a refusal naming the cap", r, err)
	}
	e := wantError(t, send(t, srv, "POST", "/_fake/faults", admin(srv), `{"operation": "get_database", "status": 503}`), http.StatusUnprocessableEntity, "unprocessable")
	if !strings.Contains(e.Message, "1000 fault rules are installed") {
		t.Errorf("POST /_fake/faults past the cap: %q, want the cap named", e.Message)
	}
	first.Remove()
	mustFault(t, srv, "get_database", fake.Fault{Status: 503})
}

// TestFaultRetriedThroughClient is the case: the admin client
// retries a GET through two 503s and succeeds.
func TestFaultRetriedThroughClient(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	mustDB(t, srv, "app")
	rule := mustFault(t, srv, "get_database", fake.Fault{Status: http.StatusServiceUnavailable, Times: 2})
	srv.ClearRequests()

	db, err := srv.Client().Databases.Get(t.Context(), &platform.GetDatabaseParams{Organization: "acme", Database: "app"})
	if err != nil {
		t.Fatalf("Get through two 503s: %v", err)
	}
	if db.Name != "app" {
		t.Errorf("got %s", db.Name)
	}
	if rule.Fired() != 2 {
		t.Errorf("Fired() = %d, want 2", rule.Fired())
	}
	if diff := cmp.Diff([]int{503, 503, 200}, statusesOf(srv, "get_database")); diff != "" {
		t.Errorf("logged get_database statuses (-want +got):\n%s", diff)
	}
	// Spent: the next request is served.
	if _, err := srv.Client().Databases.Get(t.Context(), &platform.GetDatabaseParams{Organization: "acme", Database: "app"}); err != nil || rule.Fired() != 2 {
		t.Errorf("after the rule is spent: %v, fired %d", err, rule.Fired())
	}
}

// TestRetryJitterRepeats checks that the jitter of a fake's client's retry
// backoff comes from the server's seed: two fresh servers with the same
// seed, each retrying through the same faults and then creating a
// database, end with the same clock and the same body, and a server with
// another seed waits otherwise.
func TestRetryJitterRepeats(t *testing.T) {
	t.Parallel()
	run := func(seed uint64) (time.Time, *platform.Database) {
		srv := fake.NewServer(t, fake.WithSeed(seed))
		mustDB(t, srv, "app")
		mustFault(t, srv, "get_database", fake.Fault{Status: http.StatusInternalServerError, Times: 4})
		c := srv.Client()
		if _, err := c.Databases.Get(t.Context(), &platform.GetDatabaseParams{Organization: "acme", Database: "app"}); err != nil {
			t.Fatalf("Get through four 500s: %v", err)
		}
		db, err := c.Databases.Create(t.Context(), &platform.CreateDatabaseParams{Organization: "acme", Name: "later", ClusterSize: "PS_10"})
		if err != nil {
			t.Fatal(err)
		}
		return srv.Now(), db
	}
	now1, db1 := run(7)
	now2, db2 := run(7)
	if !now1.Equal(now2) {
		t.Errorf("the clocks after the retries differ: %s and %s", now1.Format(time.RFC3339Nano), now2.Format(time.RFC3339Nano))
	}
	// The addresses in a body hold each server's port: the rest is alike.
	if diff := cmp.Diff(db1, db2, cmpopts.IgnoreFields(platform.Database{}, "URL", "BranchesURL", "HTMLURL")); diff != "" {
		t.Errorf("the bodies after the retries differ (-first +second):\n%s", diff)
	}
	if now3, _ := run(8); now3.Equal(now1) {
		t.Errorf("another seed waited the same (%s): the jitter does not come from the seed", now3.Format(time.RFC3339Nano))
	}
}

func TestFaultRetryAfter(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	rule := mustFault(t, srv, "get_organization", fake.Fault{Status: http.StatusTooManyRequests, RetryAfter: 3 * time.Second, Times: 1})

	w := send(t, srv, "GET", "/v1/organizations/acme", admin(srv), "")
	e := wantError(t, w, http.StatusTooManyRequests, "rate_limited")
	if got := w.header.Get("Retry-After"); got != "3" {
		t.Errorf("Retry-After = %q, want 3", got)
	}
	if e.Message != "Too Many Requests" {
		t.Errorf("message %q, want the status text", e.Message)
	}
	wantStatus(t, send(t, srv, "GET", "/v1/organizations/acme", admin(srv), ""), http.StatusOK)
	if rule.Fired() != 1 {
		t.Errorf("Fired() = %d, want 1", rule.Fired())
	}

	// The client honours Retry-After on the virtual clock.
	mustFault(t, srv, "get_organization", fake.Fault{Status: http.StatusTooManyRequests, RetryAfter: 3 * time.Second, Times: 1})
	t0 := srv.Now()
	if _, err := srv.Client().Organizations.Get(t.Context(), &platform.GetOrganizationParams{Organization: "acme"}); err != nil {
		t.Fatal(err)
	}
	if waited := srv.Now().Sub(t0); waited != 3*time.Second {
		t.Errorf("the client waited %v on the virtual clock, want 3s", waited)
	}
}

func TestFaultWithoutLimit(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	rule := mustFault(t, srv, "list_public_regions", fake.Fault{Status: http.StatusServiceUnavailable})
	_, err := srv.Client().Regions.List(t.Context(), nil)
	e := apiError(t, err, http.StatusServiceUnavailable)
	if !errors.Is(e, platform.ErrInternal) || e.Code != "service_unavailable" || e.RequestID == "" {
		t.Errorf("error = %v", e)
	}
	// One attempt and the default policy's four retries.
	if rule.Fired() != 5 {
		t.Errorf("Fired() = %d, want 5", rule.Fired())
	}
	rule.Remove()
	rule.Remove() // removing twice is harmless
	if _, err := srv.Client().Regions.List(t.Context(), nil); err != nil {
		t.Errorf("after Remove: %v", err)
	}
	if rule.Fired() != 5 {
		t.Errorf("Fired() = %d after Remove, want 5", rule.Fired())
	}
}

func TestFaultOnCreate(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	ctx, c := t.Context(), srv.Client()
	create := func(name string) error {
		_, err := c.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: "acme", Name: name, ClusterSize: "PS_10"})
		return err
	}

	// A 500 on a POST is not retried, and nothing was created.
	r500 := mustFault(t, srv, "create_database", fake.Fault{Status: http.StatusInternalServerError, Times: 1})
	before := observe(t, srv)
	if err := create("app"); !errors.Is(err, platform.ErrInternal) {
		t.Fatalf("create under a 500: %v", err)
	}
	if r500.Fired() != 1 {
		t.Errorf("Fired() = %d, want 1 (a POST is not retried after a 500)", r500.Fired())
	}
	unchanged(t, srv, before)

	// A 503 says the server did not act: the client retries and creates once.
	r503 := mustFault(t, srv, "create_database", fake.Fault{Status: http.StatusServiceUnavailable, Times: 1})
	if err := create("app"); err != nil {
		t.Fatalf("create through a 503: %v", err)
	}
	if r503.Fired() != 1 {
		t.Errorf("Fired() = %d, want 1", r503.Fired())
	}
	if got := dbNames(observe(t, srv).Databases); !cmp.Equal(got, []string{"app"}) {
		t.Errorf("databases = %v, want [app]", got)
	}

	// Faults on changes leave the state as it was.
	mustFault(t, srv, "delete_database", fake.Fault{Status: http.StatusServiceUnavailable, Times: 1})
	mustFault(t, srv, "update_database_settings", fake.Fault{Status: http.StatusBadGateway, Times: 1})
	mustFault(t, srv, "remove_organization_member", fake.Fault{Status: http.StatusConflict, Times: 1})
	bob := mustMember(t, srv, "acme", "Bob Builder", platform.RoleMember)
	before = observe(t, srv)
	wantError(t, send(t, srv, "DELETE", "/v1/organizations/acme/databases/app", admin(srv), ""), http.StatusServiceUnavailable, "service_unavailable")
	wantError(t, send(t, srv, "PATCH", "/v1/organizations/acme/databases/app", admin(srv), `{"deletion_protected":true}`), http.StatusBadGateway, "bad_gateway")
	wantError(t, send(t, srv, "DELETE", "/v1/organizations/acme/members/"+bob, admin(srv), ""), http.StatusConflict, "conflict")
	unchanged(t, srv, before)
}

func TestFaultBodies(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	for status, code := range map[int]string{
		400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found",
		409: "conflict", 413: "payload_too_large", 422: "unprocessable", 429: "rate_limited",
		500: "internal", 502: "bad_gateway", 503: "service_unavailable", 504: "gateway_timeout",
	} {
		mustFault(t, srv, "list_public_regions", fake.Fault{Status: status, Times: 1})
		w := send(t, srv, "GET", "/v1/regions", "", "")
		if e := wantError(t, w, status, code); e.Message != http.StatusText(status) {
			t.Errorf("%d: message %q, want %q", status, e.Message, http.StatusText(status))
		}
		if w.header.Get("Retry-After") != "" {
			t.Errorf("%d: Retry-After %q without RetryAfter", status, w.header.Get("Retry-After"))
		}
	}
	mustFault(t, srv, "list_public_regions", fake.Fault{Status: 503, Code: "maintenance", Message: "down for maintenance", Times: 1})
	if e := wantError(t, send(t, srv, "GET", "/v1/regions", "", ""), 503, "maintenance"); e.Message != "down for maintenance" {
		t.Errorf("message %q", e.Message)
	}
}

func TestFaultOnlyItsOperation(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	mustDB(t, srv, "app")
	rule := mustFault(t, srv, "get_database", fake.Fault{Status: http.StatusInternalServerError})
	for _, path := range []string{"/v1/organizations/acme", "/v1/organizations/acme/databases", "/v1/organizations/acme/databases/app/regions"} {
		wantStatus(t, send(t, srv, "GET", path, admin(srv), ""), http.StatusOK)
	}
	if rule.Fired() != 0 {
		t.Errorf("Fired() = %d for other operations", rule.Fired())
	}
	wantError(t, send(t, srv, "GET", "/v1/organizations/acme/databases/app", admin(srv), ""), 500, "internal")
	if rule.Fired() != 1 {
		t.Errorf("Fired() = %d, want 1", rule.Fired())
	}
}

func TestFaultRulesInOrder(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	first := mustFault(t, srv, "get_organization", fake.Fault{Status: 500, Times: 1})
	second := mustFault(t, srv, "get_organization", fake.Fault{Status: 502, Times: 2})
	var got []int
	for range 4 {
		got = append(got, send(t, srv, "GET", "/v1/organizations/acme", admin(srv), "").status)
	}
	if diff := cmp.Diff([]int{500, 502, 502, 200}, got); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	if first.Fired() != 1 || second.Fired() != 2 {
		t.Errorf("fired %d and %d, want 1 and 2", first.Fired(), second.Fired())
	}
}

func TestFaultProbabilityFollowsSeed(t *testing.T) {
	t.Parallel()
	run := func() ([]int, int) {
		srv := fake.NewServer(t, fake.WithSeed(99))
		rule := mustFault(t, srv, "list_public_regions", fake.Fault{Status: 503, Probability: 0.3})
		var statuses []int
		for range 100 {
			statuses = append(statuses, send(t, srv, "GET", "/v1/regions", "", "").status)
		}
		return statuses, rule.Fired()
	}
	a, firedA := run()
	b, firedB := run()
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("two servers with the same seed failed different requests (-first +second):\n%s", diff)
	}
	failed := 0
	for _, s := range a {
		if s == 503 {
			failed++
		}
	}
	if failed != firedA || firedA != firedB {
		t.Errorf("%d requests failed, Fired() = %d and %d", failed, firedA, firedB)
	}
	if firedA < 10 || firedA > 60 {
		t.Errorf("a 0.3 probability failed %d of 100 requests", firedA)
	}

	// Probability and Times together: at most Times.
	srv := fake.NewServer(t)
	rule := mustFault(t, srv, "list_public_regions", fake.Fault{Status: 503, Probability: 0.5, Times: 3})
	for range 50 {
		send(t, srv, "GET", "/v1/regions", "", "")
	}
	if rule.Fired() != 3 {
		t.Errorf("Fired() = %d, want 3", rule.Fired())
	}
}

func TestFaultLatency(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	const delay = 30 * time.Millisecond
	slow := mustFault(t, srv, "get_organization", fake.Fault{Latency: delay, Times: 1})
	start := time.Now()
	w := send(t, srv, "GET", "/v1/organizations/acme", admin(srv), "")
	if elapsed := time.Since(start); elapsed < delay {
		t.Errorf("a %v latency answered in %v", delay, elapsed)
	}
	wantStatus(t, w, http.StatusOK)
	if slow.Fired() != 1 {
		t.Errorf("Fired() = %d, want 1", slow.Fired())
	}

	failing := mustFault(t, srv, "get_organization", fake.Fault{Status: 504, Latency: delay, Times: 1})
	start = time.Now()
	w = send(t, srv, "GET", "/v1/organizations/acme", admin(srv), "")
	if elapsed := time.Since(start); elapsed < delay {
		t.Errorf("a %v latency answered in %v", delay, elapsed)
	}
	wantError(t, w, 504, "gateway_timeout")
	if failing.Fired() != 1 {
		t.Errorf("Fired() = %d, want 1", failing.Fired())
	}
	// The virtual clock does not see wall-clock latency.
	if !srv.Now().Equal(fake.DefaultStart) {
		t.Errorf("latency moved the virtual clock to %v", srv.Now())
	}
}

func TestFaultBeforeAuthentication(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	rule := mustFault(t, srv, "get_organization", fake.Fault{Status: 503, Times: 1})
	// A fault answers in place of the whole operation, credentials and all,
	// as an overloaded front end would.
	w := send(t, srv, "GET", "/v1/organizations/acme", "", "")
	wantError(t, w, 503, "service_unavailable")
	if rule.Fired() != 1 || !strings.HasPrefix(srv.Requests()[0].Operation, "get_organization") {
		t.Errorf("fired %d, log %+v", rule.Fired(), srv.Requests())
	}
}

// TestFailNextRefusals checks FailNext's errors: a resource whose
// transitions it does not fail (a database or a branch, even pending) is
// told apart from an unknown ID and from none; none installs anything.
func TestFailNextRefusals(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	db := mustDB(t, srv, "app") // pending, its branch too
	br, err := srv.Client().Branches.Get(t.Context(), &platform.GetBranchParams{Organization: srv.Org(), Database: "app", Branch: "main"})
	if err != nil {
		t.Fatal(err)
	}
	if db.State != platform.DatabasePending || br.Ready {
		t.Fatalf("database %s, branch ready %v: want both pending", db.State, br.Ready)
	}
	tests := []struct{ name, id, want string }{
		{"pending database", db.ID, `fake: FailNext: "` + db.ID + `" is a database, and FailNext does not fail a database's transitions; it fails those of backups, switchovers, deployments`},
		{"pending branch", br.ID, `fake: FailNext: "` + br.ID + `" is a branch, and FailNext does not fail a branch's transitions; it fails those of backups,`},
		{"unknown", "nope", `fake: FailNext: no resource "nope" with a transition ahead`},
		{"none", "", "fake: FailNext: an ID is required"},
	}
	before := opWorldState(t, srv)
	for _, tt := range tests {
		err := srv.FailNext(tt.id)
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%s: FailNext = %v, want an error starting %s", tt.name, err, tt.want)
		}
	}
	if diff := worldStateDiff(t, before, opWorldState(t, srv)); diff != "" {
		t.Errorf("a refused FailNext changed the world:\n%s", diff)
	}
	srv.Advance(time.Minute)
	if got, err := srv.Client().Databases.Get(t.Context(), &platform.GetDatabaseParams{Organization: srv.Org(), Database: "app"}); err != nil || got.State != platform.DatabaseReady {
		t.Errorf("after the refusals: %v, %v; want the database ready", got, err)
	}
}
