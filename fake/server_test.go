package fake_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// This file holds the tests of the fake's core (options, seeding, the clock,
// determinism, the request log, request IDs, unknown routes, page
// parameters) and the helpers the other test files of the package share.

// wire is a response as net/http received it, for the tests that need the
// exact status, headers and body.
type wire struct {
	status int
	header http.Header
	body   []byte
}

// send makes a raw request to srv. path is absolute ("/v1/..."); auth is the
// Authorization header, none when empty; body is sent as is, none when empty.
func send(t testing.TB, srv *fake.Server, method, path, auth, body string) wire {
	t.Helper()
	hc := clientOf(srv)
	hc.CheckRedirect = noFollow
	return sendThrough(t, hc, srv, method, path, auth, body)
}

// sendThrough is send with the client hc.
func sendThrough(t testing.TB, hc *http.Client, srv *fake.Server, method, path, auth, body string) wire {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, strings.TrimSuffix(srv.URL(), "/")+path, r)
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading body: %v", method, path, err)
	}
	return wire{status: resp.StatusCode, header: resp.Header, body: b}
}

// clientOf is a client of the tests' own requests to srv, over srv's own
// transport, which no other server shares. A transport shared by several
// fakes can keep an idle connection to one that has closed while a new
// fake gets its port: a request to the new fake could then go down the
// dead connection before the transport notices the reset (FuzzRestore
// found it: "write: connection reset by peer", the new fake having logged
// nothing). Nor is it http.DefaultTransport, whose idle connections an
// httptest server's Close closes under a request about to reuse one.
func clientOf(srv *fake.Server) *http.Client {
	return srv.HTTPClientOver(func(own http.RoundTripper) http.RoundTripper { return own })
}

// noFollow is the CheckRedirect of send: a redirect is the operation's
// answer, not followed.
func noFollow(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// admin is the Authorization header of srv's admin token.
func admin(srv *fake.Server) string { return srv.AdminToken().Authorization() }

// errorBody is the API's error body.
type errorBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// wantError checks that w is an error response in the API's format with
// status and code, a message and a request ID, and returns its body.
func wantError(t testing.TB, w wire, status int, code string) errorBody {
	t.Helper()
	if w.status != status {
		t.Fatalf("status = %d, want %d; body %s", w.status, status, w.body)
	}
	if ct := w.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q, want application/json", ct)
	}
	if w.header.Get("X-Request-Id") == "" {
		t.Error("no X-Request-Id header on an error response")
	}
	var e errorBody
	if err := json.Unmarshal(w.body, &e); err != nil {
		t.Fatalf("error body %q is not JSON: %v", w.body, err)
	}
	if e.Code != code {
		t.Errorf("code = %q, want %q (message %q)", e.Code, code, e.Message)
	}
	if e.Message == "" {
		t.Error("error body has no message")
	}
	return e
}

// wantStatus checks a success status.
func wantStatus(t testing.TB, w wire, status int) {
	t.Helper()
	if w.status != status {
		t.Fatalf("status = %d, want %d; body %s", w.status, status, w.body)
	}
}

// decode decodes a response body.
func decode[T any](t testing.TB, w wire) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(w.body, &v); err != nil {
		t.Fatalf("decoding %s: %v", w.body, err)
	}
	return v
}

// apiError checks that err is an *platform.Error with status whose message
// mentions every one of words, and returns it.
func apiError(t testing.TB, err error, status int, words ...string) *platform.Error {
	t.Helper()
	var e *platform.Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v, want a *platform.Error with status %d", err, status)
	}
	if e.StatusCode != status {
		t.Fatalf("status = %d, want %d (%v)", e.StatusCode, status, err)
	}
	for _, w := range words {
		if !strings.Contains(e.Message, w) {
			t.Errorf("message %q does not mention %q", e.Message, w)
		}
	}
	return e
}

// mustToken seeds a service token of srv's organization.
// permissions types permission names, as operations.tsv spells them.
func permissions(names ...string) []platform.Permission {
	out := make([]platform.Permission, len(names))
	for i, n := range names {
		out[i] = platform.Permission(n)
	}
	return out
}

// permissionNames returns every permission a token can hold, by name.
func permissionNames() []string {
	var out []string
	for _, p := range fake.AllPermissions() {
		out = append(out, string(p))
	}
	return out
}

func mustToken(t testing.TB, srv *fake.Server, spec fake.TokenSpec) fake.Token {
	t.Helper()
	tok, err := srv.CreateServiceToken(srv.Org(), spec)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// mustMember seeds a user who is a member of org with role, and returns the
// user's ID.
func mustMember(t testing.TB, srv *fake.Server, org, name string, role platform.MemberRole) string {
	t.Helper()
	id := srv.CreateUser(name, strings.ToLower(strings.Fields(name)[0])+"@example.com")
	if err := srv.AddMember(org, id, role); err != nil {
		t.Fatal(err)
	}
	return id
}

// mustDB creates a database in srv's organization with the admin client.
func mustDB(t testing.TB, srv *fake.Server, name string) *platform.Database {
	t.Helper()
	db, err := srv.Client().Databases.Create(t.Context(), &platform.CreateDatabaseParams{
		Organization: srv.Org(), Name: name, ClusterSize: "PS_10",
	})
	if err != nil {
		t.Fatalf("creating database %s: %v", name, err)
	}
	return db
}

// otherOrg seeds a second organization with its own admin user and a token
// holding every permission, and returns the token.
func otherOrg(t testing.TB, srv *fake.Server, name string) fake.Token {
	t.Helper()
	if err := srv.CreateOrganization(name); err != nil {
		t.Fatal(err)
	}
	mustMember(t, srv, name, "Olga Other", platform.RoleAdmin)
	tok, err := srv.CreateServiceToken(name, fake.TokenSpec{Name: "other", Permissions: fake.AllPermissions()})
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// observed is what the admin client sees of srv's organization: the state a
// refused request must leave unchanged.
type observed struct {
	Org       *platform.Organization
	Members   []*platform.Member
	Databases []*platform.Database
}

// observe reads the starting organization's state with the admin client.
func observe(t testing.TB, srv *fake.Server) observed {
	t.Helper()
	ctx, c := t.Context(), srv.Client()
	var o observed
	var err error
	if o.Org, err = c.Organizations.Get(ctx, &platform.GetOrganizationParams{Organization: srv.Org()}); err != nil {
		t.Fatal(err)
	}
	for m, err := range c.Organizations.AllMembers(ctx, &platform.ListMembersParams{Organization: srv.Org(), ListParams: platform.ListParams{PerPage: 100}}) {
		if err != nil {
			t.Fatal(err)
		}
		o.Members = append(o.Members, m)
	}
	for db, err := range c.Databases.All(ctx, &platform.ListDatabasesParams{Organization: srv.Org(), ListParams: platform.ListParams{PerPage: 100}}) {
		if err != nil {
			t.Fatal(err)
		}
		o.Databases = append(o.Databases, db)
	}
	return o
}

// unchanged checks that srv's state is still before.
func unchanged(t testing.TB, srv *fake.Server, before observed) {
	t.Helper()
	if diff := cmp.Diff(before, observe(t, srv)); diff != "" {
		t.Errorf("state changed (-before +after):\n%s", diff)
	}
}

func TestNewServerDefaults(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	ctx, c := t.Context(), srv.Client()

	if srv.Org() != "acme" {
		t.Errorf("Org() = %q, want acme", srv.Org())
	}
	if !strings.HasPrefix(srv.URL(), "http://") || !strings.HasSuffix(srv.URL(), "/") {
		t.Errorf("URL() = %q, want http://HOST:PORT/", srv.URL())
	}
	if tok := srv.AdminToken(); tok.ID == "" || tok.Secret == "" || tok.Authorization() != tok.ID+":"+tok.Secret {
		t.Errorf("AdminToken() = %+v", tok)
	}
	if !srv.Now().Equal(fake.DefaultStart) {
		t.Errorf("Now() = %v, want %v", srv.Now(), fake.DefaultStart)
	}
	if got := fake.DefaultTimings(); got.DatabaseReady != 5*time.Second {
		t.Errorf("DefaultTimings().DatabaseReady = %v, want 5s", got.DatabaseReady)
	}

	me, err := c.Users.GetCurrent(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if me.ID != srv.AdminUserID() || me.Name != "Ada Admin" || me.DefaultOrganization == nil || me.DefaultOrganization.Name != "acme" {
		t.Errorf("current user = %+v, want the admin, Ada Admin, of acme", me)
	}

	orgs, err := c.Organizations.List(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(orgs.Items) != 1 || orgs.Items[0].Name != "acme" {
		t.Errorf("organizations = %+v, want only acme", orgs.Items)
	}

	o := observe(t, srv)
	if len(o.Members) != 1 || o.Members[0].User.ID != srv.AdminUserID() || o.Members[0].Role != platform.RoleAdmin {
		t.Errorf("members = %+v, want the admin alone", o.Members)
	}
	if len(o.Databases) != 0 || o.Org.DatabaseCount != 0 {
		t.Errorf("a new server has databases: %+v", o.Databases)
	}
	// Seeding goes through the Go API, not HTTP: the log holds only this
	// test's requests.
	for _, r := range srv.Requests() {
		if r.Method != http.MethodGet {
			t.Errorf("request log holds %s %s, which this test did not send", r.Method, r.Path)
		}
	}
}

func TestOptions(t *testing.T) {
	t.Parallel()
	start := time.Date(2030, 6, 1, 12, 0, 0, 123456789, time.FixedZone("X", 3600))
	srv := fake.NewServer(t, fake.WithOrganization("initech"), fake.WithStartTime(start), nil)
	if srv.Org() != "initech" {
		t.Errorf("Org() = %q, want initech", srv.Org())
	}
	if want := start.UTC().Truncate(time.Millisecond); !srv.Now().Equal(want) || srv.Now().Location() != time.UTC {
		t.Errorf("Now() = %v, want %v in UTC", srv.Now(), want)
	}
	org, err := srv.Client().Organizations.Get(t.Context(), &platform.GetOrganizationParams{Organization: "initech"})
	if err != nil {
		t.Fatal(err)
	}
	if org.Name != "initech" || !org.CreatedAt.Equal(start.Truncate(time.Millisecond)) {
		t.Errorf("organization = %s created %v", org.Name, org.CreatedAt)
	}

	for _, tc := range []struct {
		name string
		opt  fake.Option
	}{
		{"bad organization name", fake.WithOrganization("Not A Slug")},
		{"empty organization name", fake.WithOrganization("")},
		{"zero start time", fake.WithStartTime(time.Time{})},
		{"negative timing", fake.WithTimings(fake.Timings{DatabaseReady: -time.Second})},
		{"empty address", fake.WithAddr("")},
		{"bad address", fake.WithAddr("not an address")},
		{"zero request log limit", fake.WithRequestLogLimit(0)},
		{"zero event log limit", fake.WithEventLogLimit(0)},
		{"negative delivery log limit", fake.WithDeliveryLogLimit(-1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, err := fake.New(tc.opt)
			if err == nil {
				s.Close()
				t.Fatal("New succeeded, want an error")
			}
			if !strings.HasPrefix(err.Error(), "fake: ") {
				t.Errorf("error %q does not start with \"fake: \"", err)
			}
		})
	}
}

func TestNewOutsideTests(t *testing.T) {
	t.Parallel()
	srv, err := fake.New(fake.WithAddr("127.0.0.1:0"))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	w := send(t, srv, "GET", "/v1/organizations/acme", admin(srv), "")
	wantStatus(t, w, http.StatusOK)
}

func TestSeedOrganizationsAndMembers(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)

	if err := srv.CreateOrganization("globex"); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"globex", "acme", "", "Upper", "under_score", "-dash", strings.Repeat("a", 64)} {
		if err := srv.CreateOrganization(name); err == nil {
			t.Errorf("CreateOrganization(%q) succeeded", name)
		}
	}

	bob := srv.CreateUser("Bob Builder", "bob@example.com")
	if bob == "" || bob == srv.AdminUserID() {
		t.Fatalf("CreateUser returned %q", bob)
	}
	if err := srv.AddMember("globex", bob, platform.RoleAdmin); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, org, user string
		role            platform.MemberRole
	}{
		{"unknown organization", "nope", bob, platform.RoleMember},
		{"unknown user", "acme", "nobody", platform.RoleMember},
		{"bad role", "acme", bob, "owner"},
		{"empty role", "acme", bob, ""},
		{"already a member", "globex", bob, platform.RoleMember},
	} {
		if err := srv.AddMember(tc.org, tc.user, tc.role); err == nil {
			t.Errorf("AddMember, %s: succeeded", tc.name)
		}
	}

	// Bob, admin of globex, is not a member of acme; a token of globex
	// created by him acts as him.
	tok, err := srv.CreateServiceToken("globex", fake.TokenSpec{Name: "ci", CreatedBy: bob})
	if err != nil {
		t.Fatal(err)
	}
	me, err := srv.ClientFor(tok).Users.GetCurrent(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if me.ID != bob || me.Name != "Bob Builder" || me.Email != "bob@example.com" || me.DefaultOrganization == nil || me.DefaultOrganization.Name != "globex" {
		t.Errorf("current user = %+v, want Bob of globex", me)
	}
	o := observe(t, srv)
	if len(o.Members) != 1 {
		t.Errorf("acme has %d members after seeding globex, want 1", len(o.Members))
	}
}

func TestSeedServiceTokenErrors(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	mustDB(t, srv, "app")
	if err := srv.CreateOrganization("empty"); err != nil {
		t.Fatal(err)
	}
	stranger := srv.CreateUser("Sam Stranger", "sam@example.com")

	for _, tc := range []struct {
		name string
		org  string
		spec fake.TokenSpec
	}{
		{"unknown organization", "nope", fake.TokenSpec{}},
		{"organization without an admin", "empty", fake.TokenSpec{}},
		{"creator not a member", "acme", fake.TokenSpec{CreatedBy: stranger}},
		{"creator unknown", "acme", fake.TokenSpec{CreatedBy: "nobody"}},
		{"unknown permission", "acme", fake.TokenSpec{Permissions: []platform.Permission{"read_everything"}}},
		{"unknown database", "acme", fake.TokenSpec{DatabasePermissions: map[string][]platform.Permission{"nope": {"read_database"}}}},
		{"unknown database permission", "acme", fake.TokenSpec{DatabasePermissions: map[string][]platform.Permission{"app": {"read_everything"}}}},
		{"negative TTL", "acme", fake.TokenSpec{TTL: -time.Second}},
	} {
		if _, err := srv.CreateServiceToken(tc.org, tc.spec); err == nil {
			t.Errorf("CreateServiceToken, %s: succeeded", tc.name)
		}
	}
}

// TestSeedServiceTokenNamesFirstMissingDatabase checks that of several
// missing databases, the error names the first in name order, every time.
func TestSeedServiceTokenNamesFirstMissingDatabase(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	spec := fake.TokenSpec{DatabasePermissions: map[string][]platform.Permission{}}
	for _, name := range []string{"db-c", "db-a", "db-d", "db-b"} {
		spec.DatabasePermissions[name] = []platform.Permission{"read_database"}
	}
	for range 20 {
		_, err := srv.CreateServiceToken(srv.Org(), spec)
		if err == nil || !strings.Contains(err.Error(), `"db-a"`) {
			t.Fatalf("CreateServiceToken = %v, want an error naming db-a", err)
		}
	}
}

func TestServiceTokenTTL(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	tok := mustToken(t, srv, fake.TokenSpec{Name: "short", Permissions: []platform.Permission{"read_organization"}, TTL: time.Hour})
	get := func() error {
		_, err := srv.ClientFor(tok).Organizations.Get(t.Context(), &platform.GetOrganizationParams{Organization: srv.Org()})
		return err
	}
	if err := get(); err != nil {
		t.Fatalf("fresh token: %v", err)
	}
	srv.Advance(time.Hour - time.Millisecond)
	if err := get(); err != nil {
		t.Fatalf("token a millisecond before expiry: %v", err)
	}
	srv.Advance(time.Millisecond)
	e := apiError(t, get(), http.StatusUnauthorized)
	if e.Code != "unauthorized" || !errors.Is(e, platform.ErrUnauthorized) {
		t.Errorf("expired token: %v", e)
	}
	// The admin token has no TTL.
	srv.Advance(24 * 365 * time.Hour)
	if _, err := srv.Client().Users.GetCurrent(t.Context()); err != nil {
		t.Errorf("admin token after a year: %v", err)
	}
}

func TestDeleteServiceToken(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	tok := mustToken(t, srv, fake.TokenSpec{Name: "doomed"})
	c := srv.ClientFor(tok)
	if _, err := c.Users.GetCurrent(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := srv.DeleteServiceToken(tok.ID); err != nil {
		t.Fatal(err)
	}
	_, err := c.Users.GetCurrent(t.Context())
	apiError(t, err, http.StatusUnauthorized)
	if err := srv.DeleteServiceToken(tok.ID); err == nil {
		t.Error("deleting a deleted token succeeded")
	}
	if _, err := srv.Client().Users.GetCurrent(t.Context()); err != nil {
		t.Errorf("admin token after deleting another: %v", err)
	}
}

// deterministicRun makes the same calls on a new server and returns, for
// each, its status, request ID and body, with the server's own address
// replaced by BASE.
func deterministicRun(t *testing.T, seed uint64) []string {
	srv := fake.NewServer(t, fake.WithSeed(seed))
	base := strings.TrimSuffix(srv.URL(), "/")
	var out []string
	note := func(label string, w wire) {
		out = append(out, fmt.Sprintf("%s %d %s %s", label, w.status, w.header.Get("X-Request-Id"), strings.ReplaceAll(string(w.body), base, "BASE")))
	}
	bob := mustMember(t, srv, "acme", "Bob Builder", platform.RoleMember)
	tok := mustToken(t, srv, fake.TokenSpec{Name: "ci", Permissions: []platform.Permission{"read_organization", "create_databases"}})
	out = append(out, "ids "+srv.AdminUserID()+" "+srv.AdminToken().ID+" "+srv.AdminToken().Secret+" "+bob+" "+tok.ID+" "+tok.Secret)
	a := admin(srv)
	note("create a", send(t, srv, "POST", "/v1/organizations/acme/databases", a, `{"name":"a","cluster_size":"PS_10"}`))
	srv.Advance(2 * time.Second)
	note("create b", send(t, srv, "POST", "/v1/organizations/acme/databases", tok.Authorization(), `{"name":"b","cluster_size":"PS_20","region":"eu-west"}`))
	srv.Advance(5 * time.Second)
	note("list", send(t, srv, "GET", "/v1/organizations/acme/databases?per_page=1", a, ""))
	note("update", send(t, srv, "PATCH", "/v1/organizations/acme/databases/a", a, `{"new_name":"a2","deletion_protected":true}`))
	note("members", send(t, srv, "GET", "/v1/organizations/acme/members", a, ""))
	note("promote", send(t, srv, "PATCH", "/v1/organizations/acme/members/"+bob, a, `{"role":"admin"}`))
	note("org", send(t, srv, "GET", "/v1/organizations/acme", tok.Authorization(), ""))
	note("user", send(t, srv, "GET", "/v1/user", tok.Authorization(), ""))
	note("regions", send(t, srv, "GET", "/v1/organizations/acme/databases/b/regions", a, ""))
	note("taken", send(t, srv, "POST", "/v1/organizations/acme/databases", a, `{"name":"b","cluster_size":"PS_10"}`))
	note("unknown", send(t, srv, "GET", "/v1/nothing", "", ""))
	return out
}

func TestDeterministicWithSeed(t *testing.T) {
	t.Parallel()
	first := deterministicRun(t, 42)
	second := deterministicRun(t, 42)
	if diff := cmp.Diff(first, second); diff != "" {
		t.Errorf("two servers with seed 42 answered differently (-first +second):\n%s", diff)
	}
	other := deterministicRun(t, 43)
	if first[0] == other[0] {
		t.Errorf("seeds 42 and 43 gave the same IDs: %s", first[0])
	}
	if first[1] == other[1] {
		t.Errorf("seeds 42 and 43 gave the same database: %s", first[1])
	}
	idRE := regexp.MustCompile(`^[a-z0-9]{12}$`)
	for _, id := range strings.Fields(first[0])[1:] {
		if !idRE.MatchString(id) && !strings.HasPrefix(id, "sk_") {
			t.Errorf("ID %q is not 12 lowercase alphanumerics", id)
		}
	}
}

func TestClockDatabaseReady(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	ctx, c := t.Context(), srv.Client()
	t0 := srv.Now()
	get := func(name string) *platform.Database {
		t.Helper()
		db, err := c.Databases.Get(ctx, &platform.GetDatabaseParams{Organization: srv.Org(), Database: name})
		if err != nil {
			t.Fatal(err)
		}
		return db
	}

	a := mustDB(t, srv, "a")
	if a.State != platform.DatabasePending || a.Ready {
		t.Fatalf("new database: state %s ready %v, want pending", a.State, a.Ready)
	}
	srv.Advance(2 * time.Second)
	mustDB(t, srv, "b")
	srv.Advance(3*time.Second - time.Millisecond)
	if db := get("a"); db.State != platform.DatabasePending {
		t.Fatalf("a after 4.999s: %s, want pending", db.State)
	}
	// One Advance past both transitions runs each at its own time.
	srv.Advance(time.Hour)
	for name, at := range map[string]time.Time{"a": t0.Add(5 * time.Second), "b": t0.Add(7 * time.Second)} {
		db := get(name)
		if db.State != platform.DatabaseReady || !db.Ready {
			t.Errorf("%s after an hour: state %s ready %v, want ready", name, db.State, db.Ready)
		}
		if !db.UpdatedAt.Equal(at) {
			t.Errorf("%s became ready at %v, want %v", name, db.UpdatedAt, at)
		}
	}
	if want := t0.Add(time.Hour + 5*time.Second - time.Millisecond); !srv.Now().Equal(want) {
		t.Errorf("Now() = %v, want %v", srv.Now(), want)
	}
	now := srv.Now()
	srv.Advance(-time.Minute)
	if !srv.Now().Equal(now) {
		t.Errorf("a negative Advance moved the clock to %v", srv.Now())
	}
}

func TestClockWithTimings(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		timings fake.Timings
		ready   time.Duration
	}{
		{"zero keeps the default", fake.Timings{}, 5 * time.Second},
		{"slower", fake.Timings{DatabaseReady: 30 * time.Second}, 30 * time.Second},
		{"faster", fake.Timings{DatabaseReady: time.Millisecond}, time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := fake.NewServer(t, fake.WithTimings(tc.timings))
			mustDB(t, srv, "app")
			get := func() platform.DatabaseState {
				db, err := srv.Client().Databases.Get(t.Context(), &platform.GetDatabaseParams{Organization: srv.Org(), Database: "app"})
				if err != nil {
					t.Fatal(err)
				}
				return db.State
			}
			srv.Advance(tc.ready - time.Millisecond)
			if s := get(); s != platform.DatabasePending {
				t.Errorf("state just before %v: %s, want pending", tc.ready, s)
			}
			srv.Advance(time.Millisecond)
			if s := get(); s != platform.DatabaseReady {
				t.Errorf("state at %v: %s, want ready", tc.ready, s)
			}
		})
	}
}

func TestClockClientWaitsAdvanceIt(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	mustDB(t, srv, "app")
	t0, wall := srv.Now(), time.Now()
	db, err := srv.Client().Databases.Wait(t.Context(), &platform.GetDatabaseParams{Organization: srv.Org(), Database: "app"})
	if err != nil {
		t.Fatal(err)
	}
	if !db.Ready {
		t.Fatalf("Wait returned a database that is not ready: %s", db.State)
	}
	// The clock moves to the transition that makes the database ready,
	// 5s on, not by the waiter's 1s, 2s and 4s steps (7s); the waiter's
	// one poll finds it ready there.
	if waited := srv.Now().Sub(t0); waited != 5*time.Second {
		t.Errorf("the virtual clock moved %v, want 5s", waited)
	}
	polls := 0
	for _, r := range srv.Requests() {
		if r.Operation == "get_database" {
			polls++
		}
	}
	if polls != 1 {
		t.Errorf("Wait polled %d times, want 1 (ready, the clock moved to it first)", polls)
	}
	if elapsed := time.Since(wall); elapsed > 5*time.Second {
		t.Errorf("Wait took %v of wall time; the fake's client must not sleep", elapsed)
	}
}

func TestClockRealTime(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t, fake.WithRealTime(), fake.WithTimings(fake.Timings{DatabaseReady: 20 * time.Millisecond}))
	before := time.Now()
	if now := srv.Now(); now.Before(before.Add(-time.Second)) || now.After(before.Add(time.Minute)) {
		t.Errorf("Now() = %v, want about %v", now, before)
	}
	srv.Advance(time.Hour) // does not move a real clock
	if now := srv.Now(); now.After(time.Now().Add(time.Minute)) {
		t.Errorf("Advance moved a real-time clock to %v", now)
	}
	db := mustDB(t, srv, "app")
	if db.State != platform.DatabasePending {
		t.Fatalf("new database: %s, want pending", db.State)
	}
	wall := time.Now()
	ready, err := srv.Client().Databases.Wait(t.Context(), &platform.GetDatabaseParams{Organization: srv.Org(), Database: "app"})
	if err != nil {
		t.Fatal(err)
	}
	if !ready.Ready || ready.UpdatedAt.Sub(db.CreatedAt.Time) < 20*time.Millisecond {
		t.Errorf("database ready %v at %v, created %v", ready.Ready, ready.UpdatedAt, db.CreatedAt)
	}
	// The waiter's first wait ends when the database's transition has run
	// (20ms), not after the 1s a waiter waits against a real server.
	if elapsed := time.Since(wall); elapsed >= time.Second {
		t.Errorf("Wait took %s of wall time, want the transition's 20ms (well under the waiter's 1s step)", elapsed)
	}
}

// roundTripFunc is an http.RoundTripper of a function.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestClockRealTimeWaitAfterTransition checks that a waiter on a
// real-time clock polls again at once when a transition ran on the clock's
// own timer after its poll had read the state, rather than wait for the
// next transition (none here) or its step of 1 s. The client's transport
// holds the poll's answer until the transition has run, which a loaded
// machine otherwise does by chance.
func TestClockRealTimeWaitAfterTransition(t *testing.T) {
	t.Parallel()
	const ready = 200 * time.Millisecond // far more than a request takes, so that the first poll reads pending
	// The transition runs ready after the database's creation, which comes
	// after created: a change reported sooner is the creating request's
	// own, whose report may come after its answer. The clock keeps
	// milliseconds, so the transition's time is ready after the creation's
	// time truncated: created is truncated too, or a creation in the same
	// millisecond as created would report its transition "too soon" and
	// the first poll would wait for ever.
	created := time.Now().Truncate(time.Millisecond)
	ran := make(chan struct{}, 1)
	srv := fake.NewServer(t, fake.WithRealTime(), fake.WithTimings(fake.Timings{DatabaseReady: ready}),
		fake.WithOnChange(func() {
			if time.Since(created) >= ready {
				select {
				case ran <- struct{}{}:
				default:
				}
			}
		}))
	mustDB(t, srv, "app")
	var polls atomic.Int32
	hc := srv.HTTPClientOver(func(base http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			resp, err := base.RoundTrip(r)
			if err == nil && polls.Add(1) == 1 {
				select { // the transition runs after the poll has read the state
				case <-ran:
				case <-r.Context().Done():
				}
			}
			return resp, err
		})
	})
	client, err := platform.NewClient(append(srv.ClientOptions(srv.AdminToken()), platform.WithHTTPClient(hc))...)
	if err != nil {
		t.Fatal(err)
	}
	wall := time.Now()
	db, err := client.Databases.Wait(t.Context(), &platform.GetDatabaseParams{Organization: srv.Org(), Database: "app"})
	if err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(wall)
	if !db.Ready || polls.Load() != 2 {
		t.Errorf("Wait: ready %v after %d polls, want ready after 2 (the first read it pending)", db.Ready, polls.Load())
	}
	if elapsed >= time.Second {
		t.Errorf("Wait took %s of wall time, want the transition's %s (the waiter's step is 1s)", elapsed, ready)
	}
}

// TestCloseStopsTheClock checks that nothing runs on the clock once the
// server is closed, even when Advance is called.
func TestCloseStopsTheClock(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	mustDB(t, srv, "app") // main becomes ready after 5 s
	srv.Close()
	srv.Advance(time.Minute)
	if got := srv.EventNames(); slices.Contains(got, "branch.ready") {
		t.Errorf("events after Close and Advance: %v, want no branch.ready", got)
	}
}

func TestRequestLog(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	a := admin(srv)
	var ids []string
	for _, r := range []struct{ method, path, auth, body string }{
		{"GET", "/v1/organizations/acme", a, ""},
		{"POST", "/v1/organizations/acme/databases", a, `{"name":"app","cluster_size":"PS_10"}`},
		{"GET", "/v1/organizations/acme/databases?q=ap&per_page=5", a, ""},
		{"GET", "/v1/organizations/acme/databases/nope", a, ""},
		{"GET", "/v1/organizations/acme", "", ""},
		{"DELETE", "/v1/no/such/route", a, ""},
		{"GET", "/v1/regions", "", ""},
	} {
		w := send(t, srv, r.method, r.path, r.auth, r.body)
		ids = append(ids, w.header.Get("X-Request-Id"))
	}
	want := []fake.Request{
		{Method: "GET", Path: "/v1/organizations/acme", Status: 200, Operation: "get_organization"},
		{Method: "POST", Path: "/v1/organizations/acme/databases", Status: 201, Operation: "create_database"},
		{Method: "GET", Path: "/v1/organizations/acme/databases", Query: "q=ap&per_page=5", Status: 200, Operation: "list_databases"},
		{Method: "GET", Path: "/v1/organizations/acme/databases/nope", Status: 404, Operation: "get_database", Reason: `database "nope" names nothing in organization acme`},
		{Method: "GET", Path: "/v1/organizations/acme", Status: 401, Operation: "get_organization", Reason: "missing Authorization header"},
		{Method: "DELETE", Path: "/v1/no/such/route", Status: 404, Operation: "", Reason: "no operation at DELETE /v1/no/such/route"},
		{Method: "GET", Path: "/v1/regions", Status: 200, Operation: "list_public_regions"},
	}
	got := srv.Requests()
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(fake.Request{}, "RequestID")); diff != "" {
		t.Errorf("request log (-want +got):\n%s", diff)
	}
	var gotIDs []string
	for _, r := range got {
		gotIDs = append(gotIDs, r.RequestID)
	}
	if diff := cmp.Diff(ids, gotIDs); diff != "" {
		t.Errorf("logged request IDs differ from the X-Request-Id headers (-headers +log):\n%s", diff)
	}

	// The SDK's requests are logged too, by the time the call returns.
	if _, err := srv.Client().Databases.List(t.Context(), &platform.ListDatabasesParams{Organization: "acme"}); err != nil {
		t.Fatal(err)
	}
	got = srv.Requests()
	if last := got[len(got)-1]; last.Operation != "list_databases" || last.Status != 200 {
		t.Errorf("last request = %+v, want list_databases 200", last)
	}

	srv.ClearRequests()
	if got := srv.Requests(); len(got) != 0 {
		t.Errorf("after ClearRequests: %d requests", len(got))
	}
}

// TestRequestLogCompleteOnResponse checks that a request is in the log by
// the time its response arrives, also when the response is too large to be
// buffered by the server until the handler returns.
func TestRequestLogCompleteOnResponse(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	for i := range 16 {
		mustDB(t, srv, fmt.Sprintf("database-with-a-long-name-%02d", i))
	}
	c := srv.Client()
	for i := range 200 {
		n := len(srv.Requests())
		// The whole response is read; decoding it would add nothing here.
		req, err := c.NewRequest(t.Context(), "GET", "v1/organizations/"+srv.Org()+"/databases?per_page=100", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := c.Do(req, nil)
		if err != nil {
			t.Fatal(err)
		}
		// Larger than net/http's 4 KB write buffer: the response's start
		// leaves before the handler returns.
		if resp.ContentLength < 16<<10 {
			t.Fatalf("call %d: a response of %d bytes, want one far larger than the server's 4 KB buffer", i, resp.ContentLength)
		}
		if got := len(srv.Requests()); got != n+1 {
			t.Fatalf("call %d: the log holds %d requests after the response, want %d", i, got, n+1)
		}
	}
}

func TestRequestLogLimit(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t, fake.WithRequestLogLimit(3))
	for i := range 7 {
		send(t, srv, "GET", fmt.Sprintf("/v1/regions?page=%d", i+1), "", "")
	}
	var got []string
	for _, r := range srv.Requests() {
		got = append(got, r.Query)
	}
	if diff := cmp.Diff([]string{"page=5", "page=6", "page=7"}, got); diff != "" {
		t.Errorf("request log keeps (-want +got):\n%s", diff)
	}
}

func TestRequestID(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	if _, err := srv.InjectFault("get_database", fake.Fault{Status: http.StatusServiceUnavailable, Times: 1}); err != nil {
		t.Fatal(err)
	}
	a := admin(srv)
	idRE := regexp.MustCompile(`^[a-z0-9]{6}[0-9]{6}$`)
	seen := map[string]bool{}
	for _, r := range []struct {
		name, method, path, auth, body string
		status                         int
		code                           string
	}{
		{"success", "GET", "/v1/organizations/acme", a, "", 200, ""},
		{"created", "POST", "/v1/organizations/acme/databases", a, `{"name":"app","cluster_size":"PS_10"}`, 201, ""},
		{"public", "GET", "/v1/regions", "", "", 200, ""},
		{"unauthorized", "GET", "/v1/organizations/acme", "", "", 401, "unauthorized"},
		{"not found", "GET", "/v1/organizations/nope", a, "", 404, "not_found"},
		{"unknown route", "GET", "/nothing/here", "", "", 404, "not_found"},
		{"root", "GET", "/", "", "", 404, "not_found"},
		{"bad request", "GET", "/v1/organizations/acme/members?page=0", a, "", 400, "bad_request"},
		{"malformed body", "POST", "/v1/organizations/acme/databases", a, `{`, 400, "bad_request"},
		{"too large", "POST", "/v1/organizations/acme/databases", a, strings.Repeat(" ", 1<<20+1), 413, "payload_too_large"},
		{"unprocessable", "POST", "/v1/organizations/acme/databases", a, `{}`, 422, "unprocessable"},
		{"injected fault", "GET", "/v1/organizations/acme/databases/app", a, "", 503, "service_unavailable"},
		{"no content", "DELETE", "/v1/organizations/acme/databases/app", a, "", 204, ""},
	} {
		w := send(t, srv, r.method, r.path, r.auth, r.body)
		if r.code != "" {
			wantError(t, w, r.status, r.code)
		} else {
			wantStatus(t, w, r.status)
		}
		id := w.header.Get("X-Request-Id")
		if !idRE.MatchString(id) {
			t.Errorf("%s: X-Request-Id %q", r.name, id)
		}
		if seen[id] {
			t.Errorf("%s: X-Request-Id %q repeats an earlier one", r.name, id)
		}
		seen[id] = true
	}

	// The SDK reports the request ID of a failure.
	_, err := srv.Client().Databases.Get(t.Context(), &platform.GetDatabaseParams{Organization: "acme", Database: "nope"})
	e := apiError(t, err, http.StatusNotFound)
	log := srv.Requests()
	if last := log[len(log)-1]; e.RequestID == "" || e.RequestID != last.RequestID {
		t.Errorf("Error.RequestID = %q, want the logged %q", e.RequestID, last.RequestID)
	}
}

func TestUnknownRoutes(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	mustDB(t, srv, "app")
	before := observe(t, srv)
	srv.ClearRequests()
	for _, auth := range []string{admin(srv), ""} {
		for _, r := range []struct{ method, path string }{
			{"GET", "/"},
			{"GET", "/v1"},
			{"GET", "/v2/organizations"},
			{"GET", "/v1/organization"},
			{"PUT", "/v1/organizations"},
			{"POST", "/v1/organizations"},
			{"DELETE", "/v1/organizations/acme"},
			{"POST", "/v1/regions"},
			{"PUT", "/v1/organizations/acme/databases/app"},
			{"GET", "/v1/organizations/acme/nothing"},
			{"GET", "/v1/organizations/acme/databases/app/nothing"},
			{"GET", "/v1/organizations/acme/members/x/y"},
		} {
			w := send(t, srv, r.method, r.path, auth, "")
			e := wantError(t, w, http.StatusNotFound, "not_found")
			if e.Message != "Not Found" {
				t.Errorf("%s %s: message %q, want Not Found", r.method, r.path, e.Message)
			}
		}
	}
	for _, r := range srv.Requests() {
		if r.Operation != "" || r.Status != http.StatusNotFound {
			t.Errorf("unknown route %s %s logged as %q, status %d", r.Method, r.Path, r.Operation, r.Status)
		}
	}
	unchanged(t, srv, before)
}

// listPaths are the list operations, by name, with a path that lists
// something.
var listPaths = map[string]string{
	"list_organizations":            "/v1/organizations",
	"list_regions_for_organization": "/v1/organizations/acme/regions",
	"list_organization_members":     "/v1/organizations/acme/members",
	"list_public_regions":           "/v1/regions",
	"list_databases":                "/v1/organizations/acme/databases",
	"list_database_regions":         "/v1/organizations/acme/databases/app/regions",
}

func TestPageParameters(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	mustDB(t, srv, "app")
	for op, path := range listPaths {
		t.Run(op, func(t *testing.T) {
			t.Parallel()
			for _, tc := range []struct {
				query, names string
			}{
				{"per_page=0", "per_page"},
				{"per_page=101", "per_page"},
				{"per_page=-1", "per_page"},
				{"per_page=ten", "per_page"},
				{"per_page=1.5", "per_page"},
				{"page=0", "page"},
				{"page=-3", "page"},
				{"page=two", "page"},
				{"page=1e3", "page"},
				{"page=99999999999999999999", "page"},
				{"page=1&per_page=", ""}, // empty values take the defaults
				{"order=sideways", "order"},
			} {
				w := send(t, srv, "GET", path+"?"+tc.query, admin(srv), "")
				if tc.names == "" {
					wantStatus(t, w, http.StatusOK)
					continue
				}
				e := wantError(t, w, http.StatusBadRequest, "bad_request")
				if !strings.Contains(e.Message, tc.names) {
					t.Errorf("%s: message %q does not name %s", tc.query, e.Message, tc.names)
				}
			}
			for _, q := range []string{"per_page=1", "per_page=100", "page=1", "page=1000", "order=asc", "order=desc"} {
				wantStatus(t, send(t, srv, "GET", path+"?"+q, admin(srv), ""), http.StatusOK)
			}
		})
	}
}

// envelope is a list response with its nullable fields kept as raw JSON.
type envelope struct {
	Type        string            `json:"type"`
	CurrentPage int               `json:"current_page"`
	PerPage     int               `json:"per_page"`
	NextPage    json.RawMessage   `json:"next_page"`
	NextPageURL json.RawMessage   `json:"next_page_url"`
	PrevPage    json.RawMessage   `json:"prev_page"`
	PrevPageURL json.RawMessage   `json:"prev_page_url"`
	TotalCount  *int              `json:"total_count"`
	TotalPages  *int              `json:"total_pages"`
	Data        []json.RawMessage `json:"data"`
}

func TestPagePastTheEnd(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	mustDB(t, srv, "app")
	for op, path := range listPaths {
		t.Run(op, func(t *testing.T) {
			t.Parallel()
			w := send(t, srv, "GET", path+"?page=50&per_page=10", admin(srv), "")
			wantStatus(t, w, http.StatusOK)
			if !strings.Contains(string(w.body), `"data":[]`) {
				t.Errorf("body %s has no empty data array", w.body)
			}
			env := decode[envelope](t, w)
			if env.Type != "list" || env.CurrentPage != 50 || env.PerPage != 10 || len(env.Data) != 0 {
				t.Errorf("envelope = %+v", env)
			}
			if string(env.NextPage) != "null" || string(env.NextPageURL) != "null" {
				t.Errorf("next_page = %s, next_page_url = %s, want null", env.NextPage, env.NextPageURL)
			}
			if string(env.PrevPage) != "49" || !strings.Contains(string(env.PrevPageURL), "page=49") {
				t.Errorf("prev_page = %s, prev_page_url = %s, want page 49", env.PrevPage, env.PrevPageURL)
			}
			first := decode[envelope](t, send(t, srv, "GET", path, admin(srv), ""))
			if first.CurrentPage != 1 || first.PerPage != 25 || string(first.PrevPage) != "null" || string(first.PrevPageURL) != "null" || string(first.NextPage) != "null" || len(first.Data) == 0 {
				t.Errorf("default page = %+v", first)
			}
			withTotals := slices.Contains([]string{"list_databases", "list_organization_members"}, op)
			if withTotals != (first.TotalCount != nil && first.TotalPages != nil) {
				t.Errorf("totals = %v, %v; want them present: %v", first.TotalCount, first.TotalPages, withTotals)
			}
		})
	}
}

func TestResponsesAreJSON(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	mustDB(t, srv, "app")
	for op, path := range listPaths {
		w := send(t, srv, "GET", path, admin(srv), "")
		wantStatus(t, w, http.StatusOK)
		if ct := w.header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("%s: Content-Type %q", op, ct)
		}
		if !json.Valid(w.body) {
			t.Errorf("%s: body is not JSON: %s", op, w.body)
		}
	}
	w := send(t, srv, "DELETE", "/v1/organizations/acme/databases/app", admin(srv), "")
	wantStatus(t, w, http.StatusNoContent)
	if len(w.body) != 0 {
		t.Errorf("204 with a body: %q", w.body)
	}
}

// TestServersShareOnlyTheirRoutes runs servers side by side: they share one
// route table and one ServeMux, and each request is still served by the
// server it was sent to, against that server's world, credentials and
// request log, for the API, the OAuth server and the control surface alike.
func TestServersShareOnlyTheirRoutes(t *testing.T) {
	t.Parallel()
	servers := make([]*fake.Server, 3)
	for i := range servers {
		servers[i] = fake.NewServer(t, fake.WithSeed(uint64(i+1))) // tokens of their own
	}
	done := make(chan error, len(servers))
	for i, srv := range servers {
		go func() {
			_, err := srv.Client().Databases.Create(t.Context(), &platform.CreateDatabaseParams{
				Organization: srv.Org(), Name: fmt.Sprintf("only-on-%d", i),
			})
			done <- err
		}()
	}
	for range servers {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	for i, srv := range servers {
		page, err := srv.Client().Databases.List(t.Context(), &platform.ListDatabasesParams{Organization: srv.Org()})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, db := range page.Items {
			names = append(names, db.Name)
		}
		if want := []string{fmt.Sprintf("only-on-%d", i)}; !slices.Equal(names, want) {
			t.Errorf("server %d lists %q, want %q", i, names, want)
		}
		if n := len(srv.Requests()); n != 2 {
			t.Errorf("server %d logged %d requests, want its own 2", i, n)
		}
		other := servers[(i+1)%len(servers)]
		// The control surface and the token endpoint know this server's
		// admin token and OAuth clients, not another's.
		if got := send(t, srv, "GET", fake.ControlPrefix+"requests", other.AdminToken().Authorization(), "").status; got != http.StatusUnauthorized {
			t.Errorf("server %d's control surface with another server's admin token: %d, want 401", i, got)
		}
		if got := send(t, srv, "GET", fake.ControlPrefix+"requests", srv.AdminToken().Authorization(), "").status; got != http.StatusOK {
			t.Errorf("server %d's control surface with its own admin token: %d, want 200", i, got)
		}
	}
}

// TestWithServerTimeoutsRefusesNegative checks that a negative timeout is a
// configuration error, not a server that times out at once.
func TestWithServerTimeoutsRefusesNegative(t *testing.T) {
	t.Parallel()
	for _, to := range []fake.ServerTimeouts{{ReadHeader: -1}, {Write: -time.Second}, {Idle: -time.Minute}} {
		if srv, err := fake.New(fake.WithServerTimeouts(to)); err == nil {
			srv.Close()
			t.Errorf("WithServerTimeouts(%+v) was accepted", to)
		}
	}
}

// TestPathNumbersHaveOneForm checks every operation with a {number} in its
// path (deploy requests, workflows, schema recommendations): the number's
// canonical decimal form reaches the resource (the fixture's request
// succeeds, TestOpFixturesSucceed), and any other form of it (a leading
// zero, a sign) is the 404 of an unknown resource and changes nothing.
func TestPathNumbersHaveOneForm(t *testing.T) {
	t.Parallel()
	ops := loadOperations(t)
	names := opOperations(t, func(op tsvOperation) bool { return strings.Contains(op.path, "{number}") })
	if len(names) < 30 {
		t.Fatalf("only %d operations with a {number}", len(names))
	}
	base := opTemplateOf(t, newOpWorld(t))
	for _, name := range names {
		op := ops[name]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := base.restore(t, fake.NewServer(t))
			call := opFixtures[name](w, "")
			n := call.vals["number"]
			before := opWorldState(t, w.srv)
			for _, other := range []string{"0" + n, "+" + n, "00" + n} {
				bad := call
				bad.vals = maps.Clone(call.vals)
				bad.vals["number"] = other
				r := opSend(t, w.srv, op.method, bad.path(t, w, op), admin(w.srv), call.body)
				if e := wantError(t, r, http.StatusNotFound, "not_found"); e.Message != "Not Found" {
					t.Errorf("%s: message %q, want the plain Not Found of a missing resource", other, e.Message)
				}
			}
			if diff := worldStateDiff(t, before, opWorldState(t, w.srv)); diff != "" {
				t.Errorf("a request at another form of the number changed the world:\n%s", diff)
			}
		})
	}
}
