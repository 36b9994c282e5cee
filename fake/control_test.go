package fake_test

import (
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// controlResponse is what a raw control request got back.
type controlResponse struct {
	status int
	header http.Header
	body   []byte
}

// controlDo sends a request with net/http alone, as a client in another
// language would, to path under srv; auth is the Authorization header,
// none when empty.
func controlDo(t *testing.T, srv *fake.Server, method, path, auth string) controlResponse {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, srv.URL()+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := clientOf(srv).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return controlResponse{status: resp.StatusCode, header: resp.Header, body: body}
}

// controlDecode decodes a JSON response body into a new T.
func controlDecode[T any](t *testing.T, r controlResponse) T {
	t.Helper()
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q, want application/json", ct)
	}
	var v T
	if err := json.Unmarshal(r.body, &v); err != nil {
		t.Fatalf("decoding %s: %v", r.body, err)
	}
	return v
}

type controlClock struct {
	Now     string `json:"now"`
	Virtual bool   `json:"virtual"`
}

type controlError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func controlStamp(t time.Time) string { return t.UTC().Format(platform.TimeLayout) }

func TestControlAdvanceRunsTransitions(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	client := srv.Client()
	ctx := t.Context()
	if _, err := client.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: srv.Org(), Name: "app-db", ClusterSize: "PS_10"}); err != nil {
		t.Fatal(err)
	}
	auth := srv.AdminToken().Authorization()

	r := controlDo(t, srv, http.MethodPost, "_fake/advance?d=5s", auth)
	if r.status != http.StatusOK {
		t.Fatalf("POST /_fake/advance: status %d, body %s", r.status, r.body)
	}
	want := controlClock{Now: controlStamp(fake.DefaultStart.Add(5 * time.Second)), Virtual: true}
	if diff := cmp.Diff(want, controlDecode[controlClock](t, r)); diff != "" {
		t.Errorf("POST /_fake/advance (-want +got):\n%s", diff)
	}
	if got, want := srv.Now(), fake.DefaultStart.Add(5*time.Second); !got.Equal(want) {
		t.Errorf("srv.Now() = %v, want %v", got, want)
	}
	db, err := client.Databases.Get(ctx, &platform.GetDatabaseParams{Organization: srv.Org(), Database: "app-db"})
	if err != nil {
		t.Fatal(err)
	}
	if !db.Ready || db.State != platform.DatabaseReady {
		t.Errorf("after advancing 5s: ready = %v, state = %q; want true, ready", db.Ready, db.State)
	}

	r = controlDo(t, srv, http.MethodGet, "_fake/now", auth)
	if r.status != http.StatusOK {
		t.Fatalf("GET /_fake/now: status %d, body %s", r.status, r.body)
	}
	if diff := cmp.Diff(want, controlDecode[controlClock](t, r)); diff != "" {
		t.Errorf("GET /_fake/now after advance (-want +got):\n%s", diff)
	}
}

func TestControlAdvanceAddsUp(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	auth := srv.AdminToken().Authorization()
	for _, d := range []string{"1s", "1m30s", "0s", "250ms"} {
		if r := controlDo(t, srv, http.MethodPost, "_fake/advance?d="+d, auth); r.status != http.StatusOK {
			t.Fatalf("advance %s: status %d, body %s", d, r.status, r.body)
		}
	}
	got := controlDecode[controlClock](t, controlDo(t, srv, http.MethodGet, "_fake/now", auth))
	want := controlClock{Now: controlStamp(fake.DefaultStart.Add(91*time.Second + 250*time.Millisecond)), Virtual: true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("GET /_fake/now (-want +got):\n%s", diff)
	}
}

func TestControlRealTime(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t, fake.WithRealTime())
	auth := srv.AdminToken().Authorization()

	got := controlDecode[controlClock](t, controlDo(t, srv, http.MethodGet, "_fake/now", auth))
	if got.Virtual {
		t.Errorf("GET /_fake/now: virtual = true with WithRealTime")
	}
	if _, err := time.Parse(time.RFC3339, got.Now); err != nil {
		t.Errorf("GET /_fake/now: now = %q: %v", got.Now, err)
	}

	r := controlDo(t, srv, http.MethodPost, "_fake/advance?d=5s", auth)
	if r.status != http.StatusUnprocessableEntity {
		t.Fatalf("advance with a real clock: status %d, want 422; body %s", r.status, r.body)
	}
	if e := controlDecode[controlError](t, r); e.Code != "unprocessable" || !strings.Contains(e.Message, "wall clock") {
		t.Errorf("advance with a real clock: body %+v; want code unprocessable and a message naming the wall clock", e)
	}
}

func TestControlRequests(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	client := srv.Client()
	ctx := t.Context()
	if _, err := client.Organizations.Get(ctx, &platform.GetOrganizationParams{Organization: srv.Org()}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Databases.Get(ctx, &platform.GetDatabaseParams{Organization: srv.Org(), Database: "nope"}); err == nil {
		t.Fatal("getting a missing database: no error")
	}
	auth := srv.AdminToken().Authorization()
	if r := controlDo(t, srv, http.MethodPost, "_fake/advance?d=1s", auth); r.status != http.StatusOK {
		t.Fatalf("advance: status %d, body %s", r.status, r.body)
	}

	r := controlDo(t, srv, http.MethodGet, "_fake/requests", auth)
	if r.status != http.StatusOK {
		t.Fatalf("GET /_fake/requests: status %d, body %s", r.status, r.body)
	}
	type entry struct {
		Method    string `json:"method"`
		Path      string `json:"path"`
		Query     string `json:"query"`
		Status    int    `json:"status"`
		Operation string `json:"operation"`
		RequestID string `json:"request_id"`
	}
	got := controlDecode[struct {
		Data []entry `json:"data"`
	}](t, r).Data

	// The log as JSON is the Go log, field for field.
	var want []entry
	for _, q := range srv.Requests() {
		if q.Path == "/_fake/requests" {
			continue // logged after it answered
		}
		want = append(want, entry{q.Method, q.Path, q.Query, q.Status, q.Operation, q.RequestID})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("GET /_fake/requests (-want +got):\n%s", diff)
	}

	// And it says what happened, in order.
	type seen struct {
		Method, Path string
		Status       int
		Operation    string
	}
	var gotSeen []seen
	for _, e := range got {
		if e.RequestID == "" {
			t.Errorf("request %s %s has no request ID", e.Method, e.Path)
		}
		gotSeen = append(gotSeen, seen{e.Method, e.Path, e.Status, e.Operation})
	}
	wantSeen := []seen{
		{"GET", "/v1/organizations/" + srv.Org(), 200, "get_organization"},
		{"GET", "/v1/organizations/" + srv.Org() + "/databases/nope", 404, "get_database"},
		{"POST", "/_fake/advance", 200, "_fake/advance"},
	}
	if diff := cmp.Diff(wantSeen, gotSeen); diff != "" {
		t.Errorf("request log (-want +got):\n%s", diff)
	}
}

func TestControlErrors(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	admin := srv.AdminToken().Authorization()
	limited, err := srv.CreateServiceToken(srv.Org(), fake.TokenSpec{Name: "reader", Permissions: []platform.Permission{"read_organization"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, method, path, auth string
		wantStatus               int
		wantCode                 string
		wantInMessage            string
	}{
		{"no credentials", "GET", "_fake/now", "", 401, "unauthorized", "admin token"},
		{"wrong secret", "GET", "_fake/now", srv.AdminToken().ID + ":sk_wrong", 401, "unauthorized", "admin token"},
		{"another token", "GET", "_fake/requests", limited.Authorization(), 401, "unauthorized", "admin token"},
		{"no credentials, unknown endpoint", "GET", "_fake/restart", "", 401, "unauthorized", "admin token"},
		{"unknown endpoint", "GET", "_fake/restart", admin, 404, "not_found", "/_fake/restart"},
		{"advance by GET", "GET", "_fake/advance?d=1s", admin, 405, "method_not_allowed", "POST"},
		{"now by POST", "POST", "_fake/now", admin, 405, "method_not_allowed", "GET"},
		{"advance without d", "POST", "_fake/advance", admin, 400, "bad_request", "d is required"},
		{"advance by a number", "POST", "_fake/advance?d=5", admin, 400, "bad_request", `"5"`},
		{"advance backwards", "POST", "_fake/advance?d=-1s", admin, 400, "bad_request", "non-negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := controlDo(t, srv, tc.method, tc.path, tc.auth)
			if r.status != tc.wantStatus {
				t.Fatalf("status %d, want %d; body %s", r.status, tc.wantStatus, r.body)
			}
			e := controlDecode[controlError](t, r)
			if e.Code != tc.wantCode || !strings.Contains(e.Message, tc.wantInMessage) {
				t.Errorf("body %+v; want code %q and a message containing %q", e, tc.wantCode, tc.wantInMessage)
			}
			if r.header.Get("X-Request-Id") == "" {
				t.Error("no X-Request-Id header")
			}
			if tc.wantStatus == http.StatusMethodNotAllowed && r.header.Get("Allow") != tc.wantInMessage {
				t.Errorf("Allow = %q, want %q", r.header.Get("Allow"), tc.wantInMessage)
			}
		})
	}
	// None of the refused requests moved the clock.
	if got := srv.Now(); !got.Equal(fake.DefaultStart) {
		t.Errorf("srv.Now() = %v after refused requests, want %v", got, fake.DefaultStart)
	}
}

// controlCall sends a control request with the admin token and checks its
// status; path is below /_fake/, body is JSON text (none when empty).
func controlCall(t testing.TB, srv *fake.Server, method, path, body string, status int) wire {
	t.Helper()
	w := send(t, srv, method, "/_fake/"+path, admin(srv), body)
	wantStatus(t, w, status)
	return w
}

// controlJSON encodes a request body.
func controlJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// controlToken is the answer of POST .../service-tokens.
type controlToken struct {
	ID            string `json:"id"`
	Secret        string `json:"secret"`
	Authorization string `json:"authorization"`
}

// controlNewToken creates a service token of org over HTTP.
func controlNewToken(t testing.TB, srv *fake.Server, org string, spec map[string]any) fake.Token {
	t.Helper()
	got := decode[controlToken](t, controlCall(t, srv, "POST", "organizations/"+org+"/service-tokens", controlJSON(t, spec), http.StatusCreated))
	if got.ID == "" || got.Secret == "" || got.Authorization != got.ID+":"+got.Secret {
		t.Fatalf("new token %+v: want an ID, a secret and ID:secret", got)
	}
	return fake.Token{ID: got.ID, Secret: got.Secret}
}

// controlNewUser creates a user over HTTP and returns its ID.
func controlNewUser(t testing.TB, srv *fake.Server, name, email string) string {
	t.Helper()
	type user struct{ ID, Name, Email string }
	got := decode[user](t, controlCall(t, srv, "POST", "users", controlJSON(t, map[string]string{"name": name, "email": email}), http.StatusCreated))
	if got.ID == "" || got.Name != name || got.Email != email {
		t.Fatalf("new user %+v: want an ID, name %q and email %q", got, name, email)
	}
	return got.ID
}

func TestControlSeedOrganizationUserMemberToken(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	ctx := t.Context()
	controlCall(t, srv, "POST", "organizations", `{"name": "globex"}`, http.StatusNoContent)
	grace := controlNewUser(t, srv, "Grace Hopper", "grace@example.com")
	controlCall(t, srv, "POST", "organizations/globex/members", controlJSON(t, map[string]string{"user_id": grace, "role": "admin"}), http.StatusNoContent)
	tok := controlNewToken(t, srv, "globex", map[string]any{
		"name": "ci", "created_by": grace, "permissions": []string{"read_organization"}, "ttl": "1h",
	})

	c := srv.ClientFor(tok)
	page, err := c.Organizations.ListMembers(ctx, &platform.ListMembersParams{Organization: "globex"})
	if err != nil {
		t.Fatal(err)
	}
	type member struct {
		User, Name, Email string
		Role              platform.MemberRole
	}
	var got []member
	for _, m := range page.Items {
		got = append(got, member{m.User.ID, m.User.Name, m.User.Email, m.Role})
	}
	if diff := cmp.Diff([]member{{grace, "Grace Hopper", "grace@example.com", platform.RoleAdmin}}, got); diff != "" {
		t.Errorf("members of globex (-want +got):\n%s", diff)
	}
	// The token is globex's only, and holds only what was granted.
	_, err = c.Organizations.Get(ctx, &platform.GetOrganizationParams{Organization: srv.Org()})
	apiError(t, err, http.StatusNotFound)
	_, err = c.Databases.List(ctx, &platform.ListDatabasesParams{Organization: "globex"})
	apiError(t, err, http.StatusNotFound)
	// Its TTL runs on the server's clock.
	controlCall(t, srv, "POST", "advance?d=1h", "", http.StatusOK)
	_, err = c.Organizations.Get(ctx, &platform.GetOrganizationParams{Organization: "globex"})
	apiError(t, err, http.StatusUnauthorized)
}

func TestControlServiceTokenOnDatabasesAndDelete(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	ctx := t.Context()
	mustDB(t, srv, "app")
	mustDB(t, srv, "other")
	tok := controlNewToken(t, srv, srv.Org(), map[string]any{"database_permissions": map[string][]string{"app": {"read_database"}}})
	c := srv.ClientFor(tok)
	if _, err := c.Databases.Get(ctx, &platform.GetDatabaseParams{Organization: srv.Org(), Database: "app"}); err != nil {
		t.Errorf("reading app with a token granted read_database on it: %v", err)
	}
	_, err := c.Databases.Get(ctx, &platform.GetDatabaseParams{Organization: srv.Org(), Database: "other"})
	apiError(t, err, http.StatusNotFound)

	controlCall(t, srv, "DELETE", "service-tokens/"+tok.ID, "", http.StatusNoContent)
	_, err = c.Databases.Get(ctx, &platform.GetDatabaseParams{Organization: srv.Org(), Database: "app"})
	apiError(t, err, http.StatusUnauthorized)
	e := wantError(t, send(t, srv, "DELETE", "/_fake/service-tokens/"+tok.ID, admin(srv), ""), http.StatusNotFound, "not_found")
	if !strings.Contains(e.Message, tok.ID) {
		t.Errorf("deleting a deleted token: message %q does not name it", e.Message)
	}
}

func TestControlTeams(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	mustDB(t, srv, "app")
	mustDB(t, srv, "warehouse")
	team := teamCreate(t, srv, "Core DBAs")
	base := "organizations/" + srv.Org() + "/teams/" + team.Slug
	controlCall(t, srv, "POST", base+"/databases", `{"database": "app"}`, http.StatusNoContent)
	controlCall(t, srv, "POST", base+"/analyst-databases", `{"database": "warehouse"}`, http.StatusNoContent)
	controlCall(t, srv, "PUT", base+"/managed", `{"managed": true}`, http.StatusNoContent)

	names := func(refs []platform.DatabaseRef) []string {
		var out []string
		for _, r := range refs {
			out = append(out, r.Name)
		}
		return out
	}
	got := teamGet(t, srv, team.Slug)
	if diff := cmp.Diff([]string{"app"}, names(got.Databases)); diff != "" {
		t.Errorf("databases (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"warehouse"}, names(got.AnalystDatabases)); diff != "" {
		t.Errorf("analyst databases (-want +got):\n%s", diff)
	}
	if !got.Managed {
		t.Error("managed = false after PUT managed true")
	}
	controlCall(t, srv, "PUT", base+"/managed", `{"managed": false}`, http.StatusNoContent)
	if teamGet(t, srv, team.Slug).Managed {
		t.Error("managed = true after PUT managed false")
	}
}

func TestControlOAuth(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	cb := "https://app.example.com/cb"
	got := decode[struct {
		ID           string `json:"id"`
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
		RedirectURI  string `json:"redirect_uri"`
	}](t, controlCall(t, srv, "POST", "organizations/"+srv.Org()+"/oauth-applications", controlJSON(t, map[string]any{
		"name": "Dashboard", "domain": "https://app.example.com", "redirect_uri": cb, "scopes": []string{"organization:read_databases"},
	}), http.StatusCreated))
	if got.ID == "" || got.ClientID == "" || got.ClientSecret == "" || got.RedirectURI != cb {
		t.Fatalf("new application %+v: want an ID, client ID and secret, and the redirect URI", got)
	}
	app := fake.OAuthApp{ID: got.ID, ClientID: got.ClientID, ClientSecret: got.ClientSecret, RedirectURI: got.RedirectURI}
	seen, err := srv.Client().OAuthApplications.Get(t.Context(), &platform.GetOAuthApplicationParams{Organization: srv.Org(), ApplicationID: app.ID})
	if err != nil {
		t.Fatal(err)
	}
	if seen.Name != "Dashboard" || seen.Domain != "https://app.example.com" {
		t.Errorf("the API shows the application as %+v", seen)
	}

	// A user of globex only, signed in; auto-approval with the default
	// consent grants on the user's default organization, globex.
	controlCall(t, srv, "POST", "organizations", `{"name": "globex"}`, http.StatusNoContent)
	grace := controlNewUser(t, srv, "Grace Hopper", "grace@example.com")
	controlCall(t, srv, "POST", "organizations/globex/members", controlJSON(t, map[string]string{"user_id": grace, "role": "admin"}), http.StatusNoContent)
	controlCall(t, srv, "POST", "oauth/sign-in", controlJSON(t, map[string]string{"user_id": grace}), http.StatusNoContent)
	controlCall(t, srv, "PUT", "oauth/auto-approve", `{}`, http.StatusNoContent)
	authorize := oauthAuthorizeURL(srv, app.ClientID, app.RedirectURI, "")
	q := oauthRedirect(t, oauthDo(t, http.MethodGet, authorize, nil, nil), app.RedirectURI)
	status, tok := oauthToken(t, srv, "form", codeParams(app, q.Get("code")))
	if status != http.StatusOK {
		t.Fatalf("exchanging the code with the client secret: %d %+v", status, tok)
	}
	c := oauthClient(t, srv, tok.AccessToken)
	var reached []string
	for _, org := range []string{srv.Org(), "globex"} {
		if _, err := c.Databases.List(t.Context(), &platform.ListDatabasesParams{Organization: org}); err == nil {
			reached = append(reached, org)
		}
	}
	if diff := cmp.Diff([]string{"globex"}, reached); diff != "" {
		t.Errorf("organizations the signed-in user's token reaches (-want +got):\n%s", diff)
	}

	// A chosen consent.
	controlCall(t, srv, "PUT", "oauth/auto-approve", `{"organizations": ["globex"], "databases": [], "branches": []}`, http.StatusNoContent)
	oauthRedirect(t, oauthDo(t, http.MethodGet, authorize, nil, nil), app.RedirectURI)
	// Signed out, the consent page refuses; signed in without
	// auto-approval, it shows.
	controlCall(t, srv, "POST", "oauth/sign-out", "", http.StatusNoContent)
	oauthPage(t, oauthDo(t, http.MethodGet, authorize, nil, nil), http.StatusUnauthorized)
	controlCall(t, srv, "POST", "oauth/sign-in", controlJSON(t, map[string]string{"user_id": grace}), http.StatusNoContent)
	controlCall(t, srv, "DELETE", "oauth/auto-approve", "", http.StatusNoContent)
	oauthPage(t, oauthDo(t, http.MethodGet, authorize, nil, nil), http.StatusOK, "Authorize")
	controlCall(t, srv, "POST", "oauth/sign-out", `{}`, http.StatusNoContent)
}

func TestControlBranchSchemaAndKeyspaces(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	ctx := t.Context()
	c := srv.Client()
	mustDB(t, srv, "app")
	srv.Advance(5 * time.Second)
	base := "organizations/" + srv.Org() + "/databases/app/branches/main"
	controlCall(t, srv, "POST", base+"/keyspaces", `{"name": "events", "shards": 4}`, http.StatusNoContent)
	controlCall(t, srv, "POST", base+"/schema", controlJSON(t, map[string]any{"statements": []string{
		"CREATE TABLE users (id bigint NOT NULL, PRIMARY KEY (id)); CREATE TABLE tmp (id int)",
		"DROP TABLE tmp",
		"CREATE TABLE events.clicks (id bigint NOT NULL, PRIMARY KEY (id))",
	}}), http.StatusNoContent)

	page, err := c.Keyspaces.List(ctx, &platform.ListKeyspacesParams{Organization: srv.Org(), Database: "app", Branch: "main"})
	if err != nil {
		t.Fatal(err)
	}
	shards := map[string]int{}
	for _, ks := range page.Items {
		shards[ks.Name] = ks.Shards
	}
	if shards["events"] != 4 {
		t.Errorf("keyspaces %v: want events with 4 shards", shards)
	}
	schema, err := c.Branches.GetSchema(ctx, &platform.GetBranchSchemaParams{Organization: srv.Org(), Database: "app", Branch: "main"})
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for _, tb := range schema.Tables {
		tables = append(tables, tb.Name)
	}
	slices.Sort(tables)
	if diff := cmp.Diff([]string{"clicks", "users"}, tables); diff != "" {
		t.Errorf("tables after pushing the schema (-want +got):\n%s", diff)
	}
}

func TestControlRoles(t *testing.T) {
	t.Parallel()
	srv, c := newRoleServer(t)
	r := createRole(t, srv, c, "main", platform.CreateRoleParams{Name: platform.Ptr("app")})
	base := "organizations/" + srv.Org() + "/databases/" + roleDB + "/branches/main/roles/" + r.ID

	got := decode[platform.Role](t, controlCall(t, srv, "GET", base, "", http.StatusOK))
	if got.ID != r.ID || got.Name != "app" || got.DroppedAt != nil {
		t.Errorf("GET role: %+v, want role %s named app, not dropped", got, r.ID)
	}
	objects := func() []string {
		return decode[struct {
			Data []string `json:"data"`
		}](t, controlCall(t, srv, "GET", base+"/objects", "", http.StatusOK)).Data
	}
	if got := objects(); got == nil || len(got) != 0 {
		t.Errorf("objects of a new role: %#v, want []", got)
	}
	controlCall(t, srv, "POST", base+"/objects", `{"objects": ["users", "orders"]}`, http.StatusNoContent)
	if diff := cmp.Diff([]string{"orders", "users"}, objects()); diff != "" {
		t.Errorf("objects (-want +got):\n%s", diff)
	}
	// A role that owns objects needs a successor to be deleted: the
	// objects are the fake's, not the control surface's.
	err := c.Roles.Delete(t.Context(), &platform.DeleteRoleParams{Organization: srv.Org(), Database: roleDB, Branch: "main", ID: r.ID})
	apiError(t, err, http.StatusUnprocessableEntity)
}

func TestControlFailNext(t *testing.T) {
	t.Parallel()
	srv, c := newBackupWorld(t)
	tm := fake.DefaultTimings()
	bk := createBackup(t, srv, c, "main")
	controlCall(t, srv, "POST", "fail-next", controlJSON(t, map[string]string{"id": bk.ID}), http.StatusNoContent)
	srv.Advance(tm.BackupStart)
	if got := getBackupOf(t, srv, c, "main", bk.ID); got.State != platform.BackupFailed {
		t.Errorf("backup state %q after its failed start, want failed", got.State)
	}
	// Settled, it has no transition left to fail.
	e := wantError(t, send(t, srv, "POST", "/_fake/fail-next", admin(srv), controlJSON(t, map[string]string{"id": bk.ID})), http.StatusUnprocessableEntity, "unprocessable")
	if !strings.Contains(e.Message, bk.ID) {
		t.Errorf("message %q does not name the backup", e.Message)
	}
}

// controlFault is a fault rule as the control surface shows it.
type controlFault struct {
	ID          string  `json:"id"`
	Operation   string  `json:"operation"`
	Status      int     `json:"status"`
	Code        string  `json:"code"`
	Message     string  `json:"message"`
	RetryAfter  string  `json:"retry_after"`
	Times       int     `json:"times"`
	Probability float64 `json:"probability"`
	Latency     string  `json:"latency"`
	Fired       int     `json:"fired"`
}

func TestControlFaults(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	org := "/v1/organizations/" + srv.Org()
	installed := decode[controlFault](t, controlCall(t, srv, "POST", "faults",
		`{"operation": "get_organization", "status": 503, "times": 2, "retry_after": "3s"}`, http.StatusCreated))
	want := controlFault{
		ID: installed.ID, Operation: "get_organization", Status: 503, Code: "service_unavailable", Message: "Service Unavailable",
		RetryAfter: "3s", Times: 2, Latency: "0s",
	}
	if installed.ID == "" {
		t.Error("the rule has no ID")
	}
	if diff := cmp.Diff(want, installed); diff != "" {
		t.Errorf("POST /_fake/faults (-want +got):\n%s", diff)
	}
	fired := func(id string) int {
		return decode[controlFault](t, controlCall(t, srv, "GET", "faults/"+id, "", http.StatusOK)).Fired
	}

	w := send(t, srv, "GET", org, admin(srv), "")
	wantError(t, w, http.StatusServiceUnavailable, "service_unavailable")
	if got := w.header.Get("Retry-After"); got != "3" {
		t.Errorf("Retry-After = %q, want 3", got)
	}
	if got := fired(installed.ID); got != 1 {
		t.Errorf("fired = %d after one answer, want 1", got)
	}
	wantStatus(t, send(t, srv, "GET", org+"/databases", admin(srv), ""), http.StatusOK) // another operation
	wantError(t, send(t, srv, "GET", org, admin(srv), ""), http.StatusServiceUnavailable, "service_unavailable")
	wantStatus(t, send(t, srv, "GET", org, admin(srv), ""), http.StatusOK) // times: 2
	if got := fired(installed.ID); got != 2 {
		t.Errorf("fired = %d after its two answers, want 2", got)
	}

	// An unlimited rule answers until it is removed.
	forever := decode[controlFault](t, controlCall(t, srv, "POST", "faults",
		`{"operation": "list_databases", "status": 429, "code": "slow_down", "message": "too fast", "probability": 1}`, http.StatusCreated))
	if forever.ID == installed.ID {
		t.Fatalf("two rules share the ID %q", forever.ID)
	}
	list := decode[struct {
		Data []controlFault `json:"data"`
	}](t, controlCall(t, srv, "GET", "faults", "", http.StatusOK)).Data
	var ids []string
	for _, f := range list {
		ids = append(ids, f.ID)
	}
	if diff := cmp.Diff([]string{installed.ID, forever.ID}, ids); diff != "" {
		t.Errorf("GET /_fake/faults (-want +got):\n%s", diff)
	}
	for range 3 {
		e := wantError(t, send(t, srv, "GET", org+"/databases", admin(srv), ""), http.StatusTooManyRequests, "slow_down")
		if e.Message != "too fast" {
			t.Errorf("message %q, want the rule's", e.Message)
		}
	}
	if got := fired(forever.ID); got != 3 {
		t.Errorf("fired = %d, want 3", got)
	}
	controlCall(t, srv, "DELETE", "faults/"+forever.ID, "", http.StatusNoContent)
	wantStatus(t, send(t, srv, "GET", org+"/databases", admin(srv), ""), http.StatusOK)
	for _, method := range []string{"GET", "DELETE"} {
		e := wantError(t, send(t, srv, method, "/_fake/faults/"+forever.ID, admin(srv), ""), http.StatusNotFound, "not_found")
		if !strings.Contains(e.Message, forever.ID) {
			t.Errorf("%s a removed rule: message %q does not name it", method, e.Message)
		}
	}
	list = decode[struct {
		Data []controlFault `json:"data"`
	}](t, controlCall(t, srv, "GET", "faults", "", http.StatusOK)).Data
	if len(list) != 1 || list[0].ID != installed.ID {
		t.Errorf("GET /_fake/faults after removing one: %+v, want only %s", list, installed.ID)
	}
}

func TestControlFaultLatencyOnly(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	f := decode[controlFault](t, controlCall(t, srv, "POST", "faults", `{"operation": "get_organization", "latency": "1ms", "times": 1}`, http.StatusCreated))
	if f.Status != 0 || f.Code != "" || f.Latency != "1ms" {
		t.Errorf("latency-only rule %+v: want no status or code, latency 1ms", f)
	}
	wantStatus(t, send(t, srv, "GET", "/v1/organizations/"+srv.Org(), admin(srv), ""), http.StatusOK)
	if got := decode[controlFault](t, controlCall(t, srv, "GET", "faults/"+f.ID, "", http.StatusOK)).Fired; got != 1 {
		t.Errorf("fired = %d after delaying one request, want 1", got)
	}
}

// controlEvent is an event as GET /_fake/events shows it.
type controlEvent struct {
	Name         string          `json:"name"`
	Organization string          `json:"organization"`
	Database     string          `json:"database"`
	Resource     json.RawMessage `json:"resource"`
	At           string          `json:"at"`
}

// controlDelivery is a delivery attempt as GET /_fake/deliveries shows it.
type controlDelivery struct {
	WebhookID  string `json:"webhook_id"`
	DeliveryID string `json:"delivery_id"`
	Event      string `json:"event"`
	URL        string `json:"url"`
	Attempt    int    `json:"attempt"`
	StatusCode int    `json:"status_code"`
	Error      string `json:"error"`
	Success    bool   `json:"success"`
	Result     string `json:"result"`
	At         string `json:"at"`
	Body       string `json:"body"`
}

func TestControlEmitEventsDeliveries(t *testing.T) {
	t.Parallel()
	srv, _ := newWebhookServer(t)
	recv := newWebhookReceiver(t, webhookAnswer(http.StatusOK))
	hook := webhookCreate(t, srv, recv.url(), true, platform.WebhookEvent("branch.sleeping"))
	emit := "organizations/" + srv.Org() + "/databases/" + webhookDB + "/events"
	controlCall(t, srv, "POST", emit, `{"event": "branch.sleeping", "resource": {"id": "b1", "name": "dev"}}`, http.StatusNoContent)
	controlCall(t, srv, "POST", emit, `{"event": "cluster.storage"}`, http.StatusNoContent) // not subscribed
	controlCall(t, srv, "POST", "deliveries/flush?timeout=5s", "", http.StatusNoContent)

	events := decode[struct {
		Data []controlEvent `json:"data"`
	}](t, controlCall(t, srv, "GET", "events", "", http.StatusOK)).Data
	var names []string
	for _, e := range events {
		names = append(names, e.Name)
	}
	if diff := cmp.Diff(srv.EventNames(), names); diff != "" {
		t.Errorf("GET /_fake/events names (-Go API +HTTP):\n%s", diff)
	}
	if len(events) < 2 {
		t.Fatalf("events %v: want the two emitted last", names)
	}
	sleeping, storage := events[len(events)-2], events[len(events)-1]
	at := controlStamp(srv.Now())
	if sleeping.Name != "branch.sleeping" || sleeping.Organization != srv.Org() || sleeping.Database != webhookDB || sleeping.At != at ||
		string(sleeping.Resource) != `{"id":"b1","name":"dev"}` {
		t.Errorf("emitted event %+v (resource %s): want branch.sleeping about app at %s with the resource sent", sleeping, sleeping.Resource, at)
	}
	var db platform.Database
	if err := json.Unmarshal(storage.Resource, &db); err != nil || db.Name != webhookDB {
		t.Errorf("an event emitted without a resource is about %s (%v), want the database %s", storage.Resource, err, webhookDB)
	}

	deliveries := decode[struct {
		Data []controlDelivery `json:"data"`
	}](t, controlCall(t, srv, "GET", "deliveries", "", http.StatusOK)).Data
	hits := recv.got()
	if len(deliveries) != 1 || len(hits) != 1 {
		t.Fatalf("%d deliveries recorded, %d received; want 1 and 1", len(deliveries), len(hits))
	}
	d := deliveries[0]
	want := controlDelivery{
		WebhookID: hook.ID, DeliveryID: d.DeliveryID, Event: "branch.sleeping", URL: recv.url(), Attempt: 1,
		StatusCode: 200, Success: true, Result: "200 OK", At: at, Body: string(hits[0].body),
	}
	if diff := cmp.Diff(want, d); diff != "" {
		t.Errorf("GET /_fake/deliveries (-want +got):\n%s", diff)
	}
	if !uuidV4.MatchString(d.DeliveryID) || d.DeliveryID != hits[0].header.Get(platform.WebhookDeliveryHeader) {
		t.Errorf("delivery ID %q: want the UUID the receiver got", d.DeliveryID)
	}
}

func TestControlFlushTimesOut(t *testing.T) {
	t.Parallel()
	srv, _ := newWebhookServer(t)
	release := make(chan struct{})
	recv := newWebhookReceiver(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	webhookCreate(t, srv, recv.url(), true, platform.WebhookEvent("branch.sleeping"))
	controlCall(t, srv, "POST", "organizations/"+srv.Org()+"/databases/"+webhookDB+"/events", `{"event": "branch.sleeping"}`, http.StatusNoContent)

	// A timeout of 0s does not wait: it says whether any attempt is in
	// flight, and this one is until the receiver answers.
	e := wantError(t, send(t, srv, "POST", "/_fake/deliveries/flush?timeout=0s", admin(srv), ""), http.StatusUnprocessableEntity, "unprocessable")
	if !strings.Contains(e.Message, "in flight") || !strings.Contains(e.Message, "0s") {
		t.Errorf("message %q: want it to say deliveries are in flight after 0s", e.Message)
	}
	if got := decode[struct {
		Data []controlDelivery `json:"data"`
	}](t, controlCall(t, srv, "GET", "deliveries", "", http.StatusOK)).Data; len(got) != 0 {
		t.Errorf("deliveries while the attempt is in flight: %+v, want none", got)
	}
	close(release)
	controlCall(t, srv, "POST", "deliveries/flush", "", http.StatusNoContent)
	if got := decode[struct {
		Data []controlDelivery `json:"data"`
	}](t, controlCall(t, srv, "GET", "deliveries", "", http.StatusOK)).Data; len(got) != 1 || !got[0].Success {
		t.Errorf("deliveries after the flush: %+v, want one success", got)
	}
}

func TestControlClearRequests(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	wantStatus(t, send(t, srv, "GET", "/v1/organizations/"+srv.Org(), admin(srv), ""), http.StatusOK)
	controlCall(t, srv, "DELETE", "requests", "", http.StatusNoContent)
	// The log holds the DELETE itself, logged as it answered.
	type entry struct {
		Method, Path, Operation string
		Status                  int
	}
	var got []entry
	for _, q := range srv.Requests() {
		got = append(got, entry{q.Method, q.Path, q.Operation, q.Status})
	}
	if diff := cmp.Diff([]entry{{"DELETE", "/_fake/requests", "_fake/requests", 204}}, got); diff != "" {
		t.Errorf("request log after DELETE /_fake/requests (-want +got):\n%s", diff)
	}
}

// controlEndpoints are the control surface's endpoints, with a path of
// each pattern and its pattern.
func controlEndpoints() []struct{ method, path, pattern string } {
	return []struct{ method, path, pattern string }{
		{"POST", "advance?d=1s", "advance"},
		{"GET", "now", "now"},
		{"GET", "requests", "requests"},
		{"DELETE", "requests", "requests"},
		{"POST", "organizations", "organizations"},
		{"POST", "users", "users"},
		{"POST", "organizations/acme/members", "organizations/{organization}/members"},
		{"POST", "organizations/acme/service-tokens", "organizations/{organization}/service-tokens"},
		{"DELETE", "service-tokens/x1", "service-tokens/{id}"},
		{"POST", "organizations/acme/teams/t/databases", "organizations/{organization}/teams/{team}/databases"},
		{"POST", "organizations/acme/teams/t/analyst-databases", "organizations/{organization}/teams/{team}/analyst-databases"},
		{"PUT", "organizations/acme/teams/t/managed", "organizations/{organization}/teams/{team}/managed"},
		{"POST", "organizations/acme/oauth-applications", "organizations/{organization}/oauth-applications"},
		{"POST", "oauth/sign-in", "oauth/sign-in"},
		{"POST", "oauth/sign-out", "oauth/sign-out"},
		{"PUT", "oauth/auto-approve", "oauth/auto-approve"},
		{"DELETE", "oauth/auto-approve", "oauth/auto-approve"},
		{"POST", "oauth/device/approve", "oauth/device/approve"},
		{"POST", "oauth/device/deny", "oauth/device/deny"},
		{"POST", "organizations/acme/databases/app/branches/main/schema", "organizations/{organization}/databases/{database}/branches/{branch}/schema"},
		{"POST", "organizations/acme/databases/app/branches/main/keyspaces", "organizations/{organization}/databases/{database}/branches/{branch}/keyspaces"},
		{"GET", "organizations/acme/databases/app/branches/main/roles/r1", "organizations/{organization}/databases/{database}/branches/{branch}/roles/{role}"},
		{"GET", "organizations/acme/databases/app/branches/main/roles/r1/objects", "organizations/{organization}/databases/{database}/branches/{branch}/roles/{role}/objects"},
		{"POST", "organizations/acme/databases/app/branches/main/roles/r1/objects", "organizations/{organization}/databases/{database}/branches/{branch}/roles/{role}/objects"},
		{"PUT", "organizations/acme/databases/app/branches/main/table-sizes", "organizations/{organization}/databases/{database}/branches/{branch}/table-sizes"},
		{"PUT", "organizations/acme/databases/app/branches/main/throttler-metrics", "organizations/{organization}/databases/{database}/branches/{branch}/throttler-metrics"},
		{"PUT", "organizations/acme/databases/app/branches/main/vdiff-differences", "organizations/{organization}/databases/{database}/branches/{branch}/vdiff-differences"},
		{"POST", "fail-next", "fail-next"},
		{"POST", "faults", "faults"},
		{"GET", "faults", "faults"},
		{"GET", "faults/fault-1", "faults/{id}"},
		{"DELETE", "faults/fault-1", "faults/{id}"},
		{"POST", "organizations/acme/databases/app/events", "organizations/{organization}/databases/{database}/events"},
		{"GET", "events", "events"},
		{"GET", "deliveries", "deliveries"},
		{"POST", "deliveries/flush", "deliveries/flush"},
		{"GET", "snapshot", "snapshot"},
		{"PUT", "snapshot", "snapshot"},
		{"POST", "reset", "reset"},
		{"POST", "organizations/acme/databases/app/branches/main/queries", "organizations/{organization}/databases/{database}/branches/{branch}/queries"},
		{"POST", "organizations/acme/databases/app/branches/main/sessions", "organizations/{organization}/databases/{database}/branches/{branch}/sessions"},
		{"PUT", "organizations/acme/billing/payment-method", "organizations/{organization}/billing/payment-method"},
		{"POST", "organizations/acme/auth-attempts", "organizations/{organization}/auth-attempts"},
		{"PUT", "organizations/acme/import-sources/db.example.com", "organizations/{organization}/import-sources/{host}"},
		{"GET", "organizations/acme/databases/app/import-notifications", "organizations/{organization}/databases/{database}/import-notifications"},
	}
}

func TestControlEndpointsNeedTheAdminToken(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	other := mustToken(t, srv, fake.TokenSpec{Name: "all but admin", Permissions: fake.AllPermissions()})
	for _, ep := range controlEndpoints() {
		for _, auth := range []string{"", other.Authorization(), srv.AdminToken().ID + ":sk_wrong"} {
			e := wantError(t, send(t, srv, ep.method, "/_fake/"+ep.path, auth, `{}`), http.StatusUnauthorized, "unauthorized")
			if !strings.Contains(e.Message, "admin token") {
				t.Errorf("%s %s: message %q does not name the admin token", ep.method, ep.path, e.Message)
			}
		}
	}
	// Each was logged under its pattern: the endpoint exists.
	var got, want []string
	for _, q := range srv.Requests() {
		got = append(got, q.Method+" "+q.Operation)
	}
	for _, ep := range controlEndpoints() {
		for range 3 {
			want = append(want, ep.method+" _fake/"+ep.pattern)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("operations logged (-want +got):\n%s", diff)
	}
	if got := srv.Now(); !got.Equal(fake.DefaultStart) {
		t.Errorf("refused requests moved the clock to %v", got)
	}
}

func TestControlMethodsAndPaths(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	for _, tc := range []struct {
		method, path string
		allow        string // 405 with this Allow; "" for 404
	}{
		{"GET", "users", "POST"},
		{"DELETE", "faults", "GET, POST"},
		{"PUT", "faults/fault-1", "DELETE, GET"},
		{"POST", "requests", "DELETE, GET"},
		{"GET", "oauth/auto-approve", "DELETE, PUT"},
		{"POST", "organizations/acme/databases/app/branches/main/roles/r1", "GET"},
		{"DELETE", "organizations/acme/databases/app/branches/main/roles/r1/objects", "GET, POST"},
		{"GET", "deliveries/flush", "POST"},
		{"PATCH", "organizations/acme/teams/t/managed", "PUT"},
		{"GET", "", ""},
		{"GET", "users/u1", ""},
		{"POST", "organizations/acme", ""},
		{"GET", "faults/", ""},
		{"POST", "organizations/acme/members/u1", ""},
		{"GET", "Now", ""},
		{"POST", "snapshot", "GET, PUT"},
		{"GET", "reset", "POST"},
		{"GET", "snapshots", ""},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			t.Parallel()
			w := send(t, srv, tc.method, "/_fake/"+tc.path, admin(srv), "")
			if tc.allow == "" {
				e := wantError(t, w, http.StatusNotFound, "not_found")
				if !strings.Contains(e.Message, "/_fake/"+tc.path) {
					t.Errorf("message %q does not name the path", e.Message)
				}
				return
			}
			e := wantError(t, w, http.StatusMethodNotAllowed, "method_not_allowed")
			if got := w.header.Get("Allow"); got != tc.allow {
				t.Errorf("Allow = %q, want %q", got, tc.allow)
			}
			if !strings.Contains(e.Message, tc.allow) || !strings.Contains(e.Message, tc.method) {
				t.Errorf("message %q: want it to name %s and %s", e.Message, tc.allow, tc.method)
			}
		})
	}
}

func TestControlRefusals(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	mustDB(t, srv, "app")
	srv.Advance(5 * time.Second)
	teamCreate(t, srv, "Core")
	stranger := srv.CreateUser("Stan Stranger", "stan@example.com")
	big := `{"name": "` + strings.Repeat("x", 1<<20) + `"}`
	before := observe(t, srv)
	t.Run("refused", func(t *testing.T) { controlRefusals(t, srv, stranger, big) })
	// Nothing refused changed the organization, its members or databases.
	unchanged(t, srv, before)
}

// controlStatusInMessage finds a status written into a message, as an
// API refusal's error text has it ("422 unprocessable: ...").
var controlStatusInMessage = regexp.MustCompile(`\b[45][0-9][0-9] [a-z_]+: `)

// controlRefusals sends requests the control surface refuses, in parallel.
func controlRefusals(t *testing.T, srv *fake.Server, stranger, big string) {
	org := "organizations/" + srv.Org()
	main := org + "/databases/app/branches/main"
	for _, tc := range []struct {
		name, method, path, body string
		status                   int
		code                     string
		words                    []string // in the message
	}{
		// Bodies: strict JSON objects, errors naming the field.
		{"unknown field", "POST", "users", `{"name": "a", "email": "a@example.com", "admin": true}`, 400, "bad_request", []string{"unknown field", "admin"}},
		{"unknown nested field", "POST", "faults", `{"operation": "get_database", "status": 503, "extra": {}}`, 400, "bad_request", []string{"extra"}},
		{"wrong type", "POST", "users", `{"name": 5, "email": "a@example.com"}`, 400, "bad_request", []string{"name", "string"}},
		{"wrong type in a list", "POST", main + "/schema", `{"statements": "CREATE TABLE t (id int)"}`, 400, "bad_request", []string{"statements", "array"}},
		{"malformed", "POST", "users", `{"name": `, 400, "bad_request", []string{"malformed JSON"}},
		{"not an object", "POST", "users", `["a"]`, 400, "bad_request", []string{"JSON object"}},
		{"data after the object", "POST", "users", `{"name": "a"} {}`, 400, "bad_request", []string{"after the JSON object"}},
		{"too large", "POST", "users", big, 413, "payload_too_large", []string{"limit"}},
		{"sign-out with a field", "POST", "oauth/sign-out", `{"user_id": "u1"}`, 400, "bad_request", []string{"user_id"}},
		// Required fields the Go methods would take empty.
		{"user without name", "POST", "users", `{"email": "a@example.com"}`, 422, "unprocessable", []string{"field name is required"}},
		{"user without email", "POST", "users", `{"name": "a"}`, 422, "unprocessable", []string{"field email is required"}},
		{"managed left out", "PUT", org + "/teams/core/managed", `{}`, 422, "unprocessable", []string{"field managed is required"}},
		{"managed not a boolean", "PUT", org + "/teams/core/managed", `{"managed": "yes"}`, 400, "bad_request", []string{"managed", "boolean"}},
		{"no role objects", "POST", main + "/roles/r1/objects", `{}`, 422, "unprocessable", []string{"field objects is required"}},
		{"table size without bytes", "PUT", main + "/table-sizes", `{"table": "users"}`, 422, "unprocessable", []string{"field bytes is required"}},
		{"size of a missing table", "PUT", main + "/table-sizes", `{"table": "nope", "bytes": 1}`, 422, "unprocessable", []string{`table "nope"`}},
		{"throttler metric without value", "PUT", main + "/throttler-metrics", `{"tablet_alias": "us-east-0000000001", "metric": "lag"}`, 422, "unprocessable", []string{"field value is required"}},
		{"throttler metric of no tablet", "PUT", main + "/throttler-metrics", `{"tablet_alias": "us-east-0000000001", "metric": "lag", "value": 1}`, 422, "unprocessable", []string{"is not a tablet"}},
		{"VDiff differences of no keyspace", "PUT", main + "/vdiff-differences", `{"keyspace": "nope", "table": "users", "mismatched": ["1"]}`, 422, "unprocessable", []string{`keyspace "nope"`}},
		{"VDiff differences named twice", "PUT", main + "/vdiff-differences", `{"keyspace": "app", "table": "users", "extra_source": ["1", "1"]}`, 422, "unprocessable", []string{`extra_source[1] "1" is named twice`}},
		{"VDiff differences not a list", "PUT", main + "/vdiff-differences", `{"keyspace": "app", "table": "users", "mismatched": "1"}`, 400, "bad_request", []string{"mismatched", "array"}},
		// Durations.
		{"ttl not a duration", "POST", org + "/service-tokens", `{"ttl": "soon"}`, 400, "bad_request", []string{"ttl", `"soon"`}},
		{"ttl negative", "POST", org + "/service-tokens", `{"ttl": "-1h"}`, 400, "bad_request", []string{"ttl", "non-negative"}},
		{"latency a number", "POST", "faults", `{"operation": "get_database", "latency": 5}`, 400, "bad_request", []string{"latency", "string"}},
		{"latency without unit", "POST", "faults", `{"operation": "get_database", "latency": "5"}`, 400, "bad_request", []string{"latency", `"5"`}},
		{"retry_after not a duration", "POST", "faults", `{"operation": "get_database", "status": 429, "retry_after": "later"}`, 400, "bad_request", []string{"retry_after"}},
		{"flush timeout", "POST", "deliveries/flush?timeout=1", "", 400, "bad_request", []string{"timeout", `"1"`}},
		// The Go methods' refusals.
		{"organization without name", "POST", "organizations", `{}`, 422, "unprocessable", []string{"organization name is required"}},
		{"organization taken", "POST", "organizations", `{"name": "acme"}`, 422, "unprocessable", []string{`"acme" exists`}},
		{"organization name not a slug", "POST", "organizations", `{"name": "Bad_Name"}`, 422, "unprocessable", []string{"Bad_Name", "lowercase"}},
		{"organization name with a space", "POST", "organizations", `{"name": "Bad Org"}`, 422, "unprocessable", []string{`organization name "Bad Org" must be lowercase`}},
		{"member of no organization", "POST", "organizations/nope/members", `{"user_id": "` + stranger + `", "role": "member"}`, 422, "unprocessable", []string{`no organization "nope"`}},
		{"member not a user", "POST", org + "/members", `{"user_id": "nobody", "role": "member"}`, 422, "unprocessable", []string{`no user "nobody"`}},
		{"member already", "POST", org + "/members", `{"user_id": "` + srv.AdminUserID() + `", "role": "member"}`, 422, "unprocessable", []string{"already a member"}},
		{"member role unknown", "POST", org + "/members", `{"user_id": "` + stranger + `", "role": "owner"}`, 422, "unprocessable", []string{`role "owner"`}},
		{"token of no organization", "POST", "organizations/nope/service-tokens", `{}`, 422, "unprocessable", []string{`no organization "nope"`}},
		{"token permission unknown", "POST", org + "/service-tokens", `{"permissions": ["fly"]}`, 422, "unprocessable", []string{`unknown permission "fly"`}},
		{"token on no database", "POST", org + "/service-tokens", `{"database_permissions": {"nope": ["read_database"]}}`, 422, "unprocessable", []string{`no database "nope"`}},
		{"token by a stranger", "POST", org + "/service-tokens", `{"created_by": "` + stranger + `"}`, 422, "unprocessable", []string{"not a member"}},
		{"delete no token", "DELETE", "service-tokens/nope", "", 404, "not_found", []string{`no token "nope"`}},
		{"team database of no team", "POST", org + "/teams/nope/databases", `{"database": "app"}`, 422, "unprocessable", []string{`no team "nope"`}},
		{"team database not a database", "POST", org + "/teams/core/analyst-databases", `{"database": "nope"}`, 422, "unprocessable", []string{`no database "nope"`}},
		{"managed of no team", "PUT", org + "/teams/nope/managed", `{"managed": true}`, 422, "unprocessable", []string{`no team "nope"`}},
		{"application without name", "POST", org + "/oauth-applications", `{"domain": "https://a.example.com", "redirect_uri": "https://a.example.com/cb", "scopes": ["organization:read_databases"]}`, 422, "unprocessable", []string{"Name is required"}},
		{"application scope unknown", "POST", org + "/oauth-applications", `{"name": "A", "domain": "https://a.example.com", "redirect_uri": "https://a.example.com/cb", "scopes": ["fly"]}`, 422, "unprocessable", []string{`scope "fly"`}},
		{"application redirect off domain", "POST", org + "/oauth-applications", `{"name": "A", "domain": "https://a.example.com", "redirect_uri": "https://b.example.com/cb", "scopes": ["organization:read_databases"]}`, 422, "unprocessable", []string{"RedirectURI"}},
		{"sign in nobody", "POST", "oauth/sign-in", `{"user_id": "nobody"}`, 422, "unprocessable", []string{`no user "nobody"`}},
		{"sign in without user", "POST", "oauth/sign-in", `{}`, 422, "unprocessable", []string{`no user ""`}},
		{"auto-approve not a list", "PUT", "oauth/auto-approve", `{"organizations": "acme"}`, 400, "bad_request", []string{"organizations", "array"}},
		{"schema on no branch", "POST", org + "/databases/app/branches/nope/schema", `{"statements": ["CREATE TABLE t (id int)"]}`, 422, "unprocessable", []string{`no branch "nope"`}},
		{"schema without statements", "POST", main + "/schema", `{"statements": []}`, 422, "unprocessable", []string{"no statements"}},
		{"schema not DDL", "POST", main + "/schema", `{"statements": ["SELECT 1"]}`, 422, "unprocessable", []string{"SELECT 1", "not CREATE TABLE"}},
		{"keyspace without shards", "POST", main + "/keyspaces", `{"name": "ks"}`, 422, "unprocessable", []string{"0 shards"}},
		{"keyspace without name", "POST", main + "/keyspaces", `{"shards": 1}`, 422, "unprocessable", []string{"keyspace name is required"}},
		{"keyspace shards not an integer", "POST", main + "/keyspaces", `{"name": "ks", "shards": "2"}`, 400, "bad_request", []string{"shards", "an integer"}},
		{"no role", "GET", main + "/roles/nope", "", 404, "not_found", []string{`no role "nope"`}},
		{"objects of no role", "GET", main + "/roles/nope/objects", "", 404, "not_found", []string{`no role "nope"`}},
		{"objects for no role", "POST", main + "/roles/nope/objects", `{"objects": ["t"]}`, 422, "unprocessable", []string{`no role "nope"`}},
		{"fail-next of nothing", "POST", "fail-next", `{"id": "nope"}`, 422, "unprocessable", []string{`no resource "nope"`}},
		{"fail-next without id", "POST", "fail-next", `{}`, 422, "unprocessable", []string{"field id is required"}},
		{"fault of no operation", "POST", "faults", `{"operation": "fly", "status": 503}`, 422, "unprocessable", []string{`unknown operation "fly"`}},
		{"fault not an error", "POST", "faults", `{"operation": "get_database", "status": 200}`, 422, "unprocessable", []string{"status 200"}},
		{"fault of nothing", "POST", "faults", `{"operation": "get_database"}`, 422, "unprocessable", []string{"Status or a Latency"}},
		{"fault probability", "POST", "faults", `{"operation": "get_database", "status": 503, "probability": 2}`, 422, "unprocessable", []string{"Probability must be between 0 and 1", "not 2"}},
		{"no fault", "GET", "faults/fault-9", "", 404, "not_found", []string{`"fault-9"`}},
		{"remove no fault", "DELETE", "faults/fault-9", "", 404, "not_found", []string{`"fault-9"`}},
		{"event of no database", "POST", org + "/databases/nope/events", `{"event": "branch.sleeping"}`, 422, "unprocessable", []string{`no database "nope"`}},
		{"event unknown", "POST", org + "/databases/app/events", `{"event": "branch.exploded"}`, 422, "unprocessable", []string{`"branch.exploded" is not a webhook event`}},
		{"event without name", "POST", org + "/databases/app/events", `{}`, 422, "unprocessable", []string{"not a webhook event"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := wantError(t, send(t, srv, tc.method, "/_fake/"+tc.path, admin(srv), tc.body), tc.status, tc.code)
			// The message is the reason alone: the response has the status,
			// the endpoint names the method.
			if strings.HasPrefix(e.Message, "fake: ") || controlStatusInMessage.MatchString(e.Message) {
				t.Errorf("message %q: want the reason alone, without the Go method's name or a status", e.Message)
			}
			for _, w := range tc.words {
				if !strings.Contains(e.Message, w) {
					t.Errorf("message %q does not contain %q", e.Message, w)
				}
			}
		})
	}
}

// TestControlAdvanceStopsAtTheLimit checks that an advance that would run
// more than fake.MaxAdvanceTransitions transitions (centuries of one
// database's backups and invoices) stops after that many and says how far
// it got, and that the next advance goes on from there.
func TestControlAdvanceStopsAtTheLimit(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	if _, err := srv.Client().Databases.Create(t.Context(), &platform.CreateDatabaseParams{Organization: srv.Org(), Name: "app-db", ClusterSize: "PS_10"}); err != nil {
		t.Fatal(err)
	}
	auth := srv.AdminToken().Authorization()
	type answer struct {
		Now         string `json:"now"`
		Virtual     bool   `json:"virtual"`
		Transitions int    `json:"transitions"`
		Complete    bool   `json:"complete"`
	}
	const far = 2562047 * time.Hour // the longest duration
	r := controlDo(t, srv, http.MethodPost, "_fake/advance?d="+far.String(), auth)
	if r.status != http.StatusOK {
		t.Fatalf("POST /_fake/advance: status %d, body %s", r.status, r.body)
	}
	got := controlDecode[answer](t, r)
	want := answer{Now: controlStamp(srv.Now()), Virtual: true, Transitions: fake.MaxAdvanceTransitions, Complete: false}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("POST /_fake/advance?d=%v (-want +got):\n%s", far, diff)
	}
	if now := srv.Now(); !now.After(fake.DefaultStart.AddDate(10, 0, 0)) || !now.Before(fake.DefaultStart.Add(far)) {
		t.Errorf("the clock stopped at %v, want decades in and short of the end", now)
	}
	stopped := srv.Now()
	got = controlDecode[answer](t, controlDo(t, srv, http.MethodPost, "_fake/advance?d=1h", auth))
	if want := controlStamp(stopped.Add(time.Hour)); got.Now != want || !got.Complete {
		t.Errorf("the next advance of 1h: now %s, complete %v; want %s, complete", got.Now, got.Complete, want)
	}
}

// TestControlMessagesAreReasons checks a Go method's refusal as the Go API
// and the control surface give it: in Go, "fake: Method: " and the reason,
// without a status; over HTTP, the reason alone, with the response's
// status.
func TestControlMessagesAreReasons(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	tests := []struct {
		name, method, path, body string
		goCall                   func() error
		goMethod, reason         string
	}{
		{
			"organization name", "POST", "organizations", `{"name": "Bad Org"}`,
			func() error { return srv.CreateOrganization("Bad Org") },
			"CreateOrganization", `organization name "Bad Org" must be lowercase letters, digits and dashes, and start and end with a letter or digit`,
		},
		{
			"fault probability", "POST", "faults", `{"operation": "get_database", "status": 503, "probability": 2}`,
			func() error {
				_, err := srv.InjectFault("get_database", fake.Fault{Status: 503, Probability: 2})
				return err
			},
			"InjectFault", "Probability must be between 0 and 1 (0: always), not 2",
		},
		{
			"fail-next of nothing", "POST", "fail-next", `{"id": "nope"}`,
			func() error { return srv.FailNext("nope") },
			"FailNext", `no resource "nope" with a transition ahead`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := wantError(t, send(t, srv, tt.method, "/_fake/"+tt.path, admin(srv), tt.body), http.StatusUnprocessableEntity, "unprocessable")
			if diff := cmp.Diff(tt.reason, e.Message); diff != "" {
				t.Errorf("control message (-want +got):\n%s", diff)
			}
			err := tt.goCall()
			if err == nil {
				t.Fatal("the Go method accepted it")
			}
			if diff := cmp.Diff("fake: "+tt.goMethod+": "+tt.reason, err.Error()); diff != "" {
				t.Errorf("Go error (-want +got):\n%s", diff)
			}
		})
	}
}
