package fake_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
	"github.com/google/go-cmp/cmp"
)

// bodyOp is an operation that takes a JSON body, with a body it accepts.
type bodyOp struct {
	name, method, path string
	status             int
	// valid is an accepted body as a JSON object without its closing brace,
	// so that a test can add fields.
	valid string
}

// bodyOps are the operations that take a body, on a server prepared by
// bodyFixture.
func bodyOps(bob string) []bodyOp {
	return []bodyOp{
		{"update_organization", "PATCH", "/v1/organizations/acme", 200, `{"billing_email":"accounts@acme.example.com"`},
		{"update_organization_membership", "PATCH", "/v1/organizations/acme/members/" + bob, 200, `{"role":"admin"`},
		{"create_database", "POST", "/v1/organizations/acme/databases", 201, `{"name":"fresh","cluster_size":"PS_10"`},
		{"update_database_settings", "PATCH", "/v1/organizations/acme/databases/app", 200, `{"deletion_protected":true`},
	}
}

// bodyFixture is a server with the database app and the member Bob.
func bodyFixture(t *testing.T, opts ...fake.Option) (*fake.Server, string) {
	t.Helper()
	srv := fake.NewServer(t, opts...)
	mustDB(t, srv, "app")
	return srv, mustMember(t, srv, "acme", "Bob Builder", platform.RoleMember)
}

// padded returns the valid body with a padding field, n bytes in all.
func padded(valid string, n int) string {
	head := valid + `,"padding":"`
	return head + strings.Repeat("x", n-len(head)-2) + `"}`
}

func TestBodySizeLimit(t *testing.T) {
	t.Parallel()
	const limit = 1 << 20
	for i, op := range bodyOps("") {
		t.Run(op.name, func(t *testing.T) {
			t.Parallel()
			srv, bob := bodyFixture(t)
			op := bodyOps(bob)[i]
			before := observe(t, srv)
			for _, n := range []int{limit + 1, 2 * limit, 4 * limit} {
				w := send(t, srv, op.method, op.path, admin(srv), padded(op.valid, n))
				e := wantError(t, w, http.StatusRequestEntityTooLarge, "payload_too_large")
				if !strings.Contains(e.Message, "1048576") {
					t.Errorf("%d bytes: message %q does not give the limit", n, e.Message)
				}
			}
			unchanged(t, srv, before)

			// Exactly the limit is accepted.
			body := padded(op.valid, limit)
			if len(body) != limit {
				t.Fatalf("padded body is %d bytes", len(body))
			}
			wantStatus(t, send(t, srv, op.method, op.path, admin(srv), body), op.status)
		})
	}
}

func TestMalformedJSON(t *testing.T) {
	t.Parallel()
	srv, bob := bodyFixture(t)
	before := observe(t, srv)
	for _, op := range bodyOps(bob) {
		for _, tc := range []struct {
			name, body string
		}{
			{"unclosed", op.valid},
			{"open brace", `{`},
			{"missing value", `{"name":}`},
			{"not JSON", `not json`},
			{"trailing comma", op.valid + `,}`},
			{"single quotes", `{'role':'admin'}`},
			{"unquoted key", `{role:"admin"}`},
			{"byte order mark", "\xef\xbb\xbf" + op.valid + "}"},
			{"second object", op.valid + `} {"role":"member"}`},
			{"extra closing brace", op.valid + `}}`},
			{"extra closing bracket", op.valid + `}]`},
			{"trailing garbage", op.valid + `} x`},
			{"lone quote", `"`},
			{"nul byte", op.valid + "}\x00"},
		} {
			w := send(t, srv, op.method, op.path, admin(srv), tc.body)
			if w.status != http.StatusBadRequest {
				t.Errorf("%s, %s: status %d, want 400; body %s", op.name, tc.name, w.status, w.body)
				continue
			}
			wantError(t, w, http.StatusBadRequest, "bad_request")
		}
		for _, body := range []string{`[]`, `[{"role":"admin"}]`, `"admin"`, `42`, `true`} {
			w := send(t, srv, op.method, op.path, admin(srv), body)
			if e := wantError(t, w, http.StatusBadRequest, "bad_request"); !strings.Contains(e.Message, "JSON object") {
				t.Errorf("%s, body %s: message %q does not ask for a JSON object", op.name, body, e.Message)
			}
		}
	}
	// An operation that takes no body refuses one that is not a JSON
	// object too, without strict bodies, and acts on nothing; an object's
	// fields it ignores.
	for _, req := range []struct{ method, path string }{
		{http.MethodPost, "/v1/organizations/acme/databases/app/branches/main/demote"},
		{http.MethodDelete, "/v1/organizations/acme/members/" + bob},
		{http.MethodGet, "/v1/organizations/acme/databases/app"},
	} {
		for _, body := range []string{`{"name":`, `[1,2]`, `42`} {
			if e := wantError(t, send(t, srv, req.method, req.path, admin(srv), body), http.StatusBadRequest, "bad_request"); !strings.Contains(e.Message, "JSON") {
				t.Errorf("%s %s, body %s: message %q does not name the JSON", req.method, req.path, body, e.Message)
			}
		}
	}
	unchanged(t, srv, before)
	wantStatus(t, send(t, srv, http.MethodGet, "/v1/organizations/acme/databases/app", admin(srv), `{"colour":"blue"}`), http.StatusOK)
}

func TestWrongJSONType(t *testing.T) {
	t.Parallel()
	srv, bob := bodyFixture(t)
	before := observe(t, srv)
	for _, tc := range []struct {
		method, path, body, field string
	}{
		{"POST", "/v1/organizations/acme/databases", `{"name":5,"cluster_size":"PS_10"}`, "name"},
		{"POST", "/v1/organizations/acme/databases", `{"name":"x","cluster_size":true}`, "cluster_size"},
		{"POST", "/v1/organizations/acme/databases", `{"name":"x","cluster_size":"PS_10","replicas":"2"}`, "replicas"},
		{"POST", "/v1/organizations/acme/databases", `{"name":"x","cluster_size":"PS_10","replicas":1.5}`, "replicas"},
		{"POST", "/v1/organizations/acme/databases", `{"name":"x","cluster_size":"PS_10","kind":["mysql"]}`, "kind"},
		{"POST", "/v1/organizations/acme/databases", `{"name":"x","cluster_size":"PS_10","storage":"big"}`, "storage"},
		{"POST", "/v1/organizations/acme/databases", `{"name":"x","cluster_size":"PS_10","storage":{"minimum_storage_bytes":"1"}}`, "storage.minimum_storage_bytes"},
		{"PATCH", "/v1/organizations/acme", `{"billing_email":1}`, "billing_email"},
		{"PATCH", "/v1/organizations/acme", `{"idp_managed_roles":"yes"}`, "idp_managed_roles"},
		{"PATCH", "/v1/organizations/acme", `{"invoice_budget_amount":"10"}`, "invoice_budget_amount"},
		{"PATCH", "/v1/organizations/acme/members/" + bob, `{"role":["admin"]}`, "role"},
		{"PATCH", "/v1/organizations/acme/databases/app", `{"new_name":5}`, "new_name"},
		{"PATCH", "/v1/organizations/acme/databases/app", `{"deletion_protected":"true"}`, "deletion_protected"},
		{"PATCH", "/v1/organizations/acme/databases/app", `{"default_branch":{}}`, "default_branch"},
	} {
		w := send(t, srv, tc.method, tc.path, admin(srv), tc.body)
		e := wantError(t, w, http.StatusBadRequest, "bad_request")
		if !strings.Contains(e.Message, tc.field) {
			t.Errorf("%s: message %q does not name %s", tc.body, e.Message, tc.field)
		}
	}
	unchanged(t, srv, before)
}

func TestUnknownFields(t *testing.T) {
	t.Parallel()
	t.Run("ignored by default", func(t *testing.T) {
		t.Parallel()
		srv, bob := bodyFixture(t)
		for _, op := range bodyOps(bob) {
			w := send(t, srv, op.method, op.path, admin(srv), op.valid+`,"colour":"blue","nested":{"a":[1,2]}}`)
			wantStatus(t, w, op.status)
		}
	})
	t.Run("refused under WithStrictBodies", func(t *testing.T) {
		t.Parallel()
		srv, bob := bodyFixture(t, fake.WithStrictBodies())
		before := observe(t, srv)
		for _, op := range bodyOps(bob) {
			w := send(t, srv, op.method, op.path, admin(srv), op.valid+`,"colour":"blue"}`)
			if e := wantError(t, w, http.StatusBadRequest, "bad_request"); !strings.Contains(e.Message, "colour") {
				t.Errorf("%s: message %q does not name colour", op.name, e.Message)
			}
		}
		w := send(t, srv, "POST", "/v1/organizations/acme/databases", admin(srv), `{"name":"x","cluster_size":"PS_10","storage":{"maximum_storage_bytes":1,"bogus":2}}`)
		if e := wantError(t, w, http.StatusBadRequest, "bad_request"); !strings.Contains(e.Message, "bogus") {
			t.Errorf("nested unknown field: message %q does not name bogus", e.Message)
		}
		unchanged(t, srv, before)
		// A DELETE's body is checked like any other; an operation that
		// takes no body knows no field, whatever its method.
		if _, err := srv.Client().Databases.Create(t.Context(), &platform.CreateDatabaseParams{Organization: "acme", Name: "pg", ClusterSize: "PS_10", Kind: platform.KindPostgreSQL}); err != nil {
			t.Fatal(err)
		}
		srv.Advance(fake.DefaultTimings().DatabaseReady)
		role, err := srv.Client().Roles.Create(t.Context(), &platform.CreateRoleParams{Organization: "acme", Database: "pg", Branch: "main"})
		if err != nil {
			t.Fatal(err)
		}
		before = observe(t, srv)
		for _, req := range []struct{ method, path, body string }{
			{http.MethodDelete, "/v1/organizations/acme/databases/pg/branches/main/roles/" + role.ID, `{"successor":"` + role.ID + `","colour":"blue"}`},
			{http.MethodDelete, "/v1/organizations/acme/databases/app", `{"colour":"blue"}`},
			{http.MethodDelete, "/v1/organizations/acme/members/" + bob, `{"colour":"blue"}`},
			{http.MethodPost, "/v1/organizations/acme/databases/app/branches/main/demote", `{"colour":"blue"}`},
		} {
			w := send(t, srv, req.method, req.path, admin(srv), req.body)
			if e := wantError(t, w, http.StatusBadRequest, "bad_request"); !strings.Contains(e.Message, "colour") {
				t.Errorf("%s %s: message %q does not name colour", req.method, req.path, e.Message)
			}
		}
		unchanged(t, srv, before)
		// Known fields only still pass.
		for _, op := range bodyOps(bob) {
			wantStatus(t, send(t, srv, op.method, op.path, admin(srv), op.valid+"}"), op.status)
		}
	})
}

func TestEmptyBodies(t *testing.T) {
	t.Parallel()
	srv, bob := bodyFixture(t)
	before := observe(t, srv)
	for _, body := range []string{"", " ", "\n\t ", "{}", "null"} {
		wantStatus(t, send(t, srv, "PATCH", "/v1/organizations/acme", admin(srv), body), http.StatusOK)
		wantStatus(t, send(t, srv, "PATCH", "/v1/organizations/acme/databases/app", admin(srv), body), http.StatusOK)
		wantError(t, send(t, srv, "PATCH", "/v1/organizations/acme/members/"+bob, admin(srv), body), http.StatusUnprocessableEntity, "unprocessable")
		wantError(t, send(t, srv, "POST", "/v1/organizations/acme/databases", admin(srv), body), http.StatusUnprocessableEntity, "unprocessable")
	}
	// Nulls leave fields as they are.
	wantStatus(t, send(t, srv, "PATCH", "/v1/organizations/acme", admin(srv), `{"billing_email":null,"idp_managed_roles":null}`), http.StatusOK)
	unchanged(t, srv, before)
}

// TestBodyErrorsAfterAccessChecks checks that a body is judged only for a
// caller who may make the request: others learn nothing from it.
func TestBodyErrorsAfterAccessChecks(t *testing.T) {
	t.Parallel()
	srv, bob := bodyFixture(t)
	none := mustToken(t, srv, fake.TokenSpec{Name: "read only", Permissions: []platform.Permission{"read_organization", "read_database"}})
	before := observe(t, srv)
	for _, op := range bodyOps(bob) {
		for _, body := range []string{`{`, padded(op.valid, 2<<20)} {
			wantError(t, send(t, srv, op.method, op.path, "", body), http.StatusUnauthorized, "unauthorized")
			wantError(t, send(t, srv, op.method, op.path, none.Authorization(), body), http.StatusNotFound, "not_found")
		}
	}
	wantError(t, send(t, srv, "PATCH", "/v1/organizations/acme/databases/nope", admin(srv), `{`), http.StatusNotFound, "not_found")
	unchanged(t, srv, before)
}

// TestTimeFieldErrors checks that a time field's bad value, of the wrong
// JSON type or text that is not a time, is a 400 naming the field, at any
// depth of any body (an API operation's and a control endpoint's), and
// changes nothing.
func TestTimeFieldErrors(t *testing.T) {
	t.Parallel()
	srv, _ := bodyFixture(t)
	const want = ` must be a time in RFC 3339 format, such as "2026-01-14T10:19:23Z", not `
	exports := "/v1/organizations/acme/auth-attempt-exports"
	queries := "/_fake/organizations/acme/databases/app/branches/main/queries"
	tests := []struct{ name, path, body, want string }{
		{"number", exports, `{"start_at":123,"end_at":"2026-01-02T00:00:00Z","format":"csv"}`, "field start_at" + want + "123"},
		{"not a time", exports, `{"start_at":"a/b","end_at":"2026-01-02T00:00:00Z","format":"csv"}`, "field start_at" + want + `"a/b"`},
		{"object", exports, `{"start_at":"2026-01-01T00:00:00Z","end_at":{},"format":"csv"}`, "field end_at" + want + "{}"},
		{"long", exports, `{"start_at":"` + strings.Repeat("9", 100) + `","end_at":"2026-01-02T00:00:00Z","format":"csv"}`, "field start_at" + want + `"` + strings.Repeat("9", 63) + "..."},
		{"no zone", exports, `{"start_at":"2026-01-01T00:00:00","end_at":"2026-01-02T00:00:00Z","format":"csv"}`, "field start_at" + want + `"2026-01-01T00:00:00"`},
		{"in a list", queries, `{"samples":[{"sql":"SELECT 1","duration":"1ms"},{"sql":"SELECT 1","duration":"1ms","time":false}]}`, "field samples[1].time" + want + "false"},
	}
	before := opWorldState(t, srv)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := send(t, srv, "POST", tt.path, admin(srv), tt.body)
			e := wantError(t, w, http.StatusBadRequest, "bad_request")
			if diff := cmp.Diff(tt.want, e.Message); diff != "" {
				t.Errorf("message (-want +got):\n%s", diff)
			}
		})
	}
	t.Cleanup(func() {
		if diff := worldStateDiff(t, before, opWorldState(t, srv)); diff != "" {
			t.Errorf("a refused body changed the world:\n%s", diff)
		}
	})
}

// TestWrongJSONTypeMessages checks what a 400 for a value of the wrong
// JSON type says: the field's type (an integer field is an integer, not a
// number; one too small for a whole number gives its bounds) and the value
// refused.
func TestWrongJSONTypeMessages(t *testing.T) {
	t.Parallel()
	srv, _ := bodyFixture(t)
	before := observe(t, srv)
	const dbs = "/v1/organizations/acme/databases"
	for _, tc := range []struct{ body, want string }{
		{`{"name":"x","cluster_size":"PS_10","replicas":1.5}`, "field replicas must be an integer, not 1.5"},
		{`{"name":"x","cluster_size":"PS_10","replicas":1e3}`, "field replicas must be an integer, not 1e3"},
		{`{"name":"x","cluster_size":"PS_10","replicas":100000000000000000000}`,
			"field replicas must be an integer from -9223372036854775808 to 9223372036854775807, not 100000000000000000000"},
		{`{"name":"x","cluster_size":"PS_10","replicas":` + strings.Repeat("1", 80) + `}`,
			"field replicas must be an integer from -9223372036854775808 to 9223372036854775807, not " + strings.Repeat("1", 64) + "..."},
		{`{"name":5,"cluster_size":"PS_10"}`, "field name must be a string, not 5"},
		{`{"name":"x","cluster_size":true}`, "field cluster_size must be a string, not a boolean"},
		{`{"name":"x","cluster_size":"PS_10","replicas":"2"}`, "field replicas must be an integer, not a string"},
	} {
		e := wantError(t, send(t, srv, http.MethodPost, dbs, admin(srv), tc.body), http.StatusBadRequest, "bad_request")
		if e.Message != tc.want {
			t.Errorf("%s: %q, want %q", tc.body, e.Message, tc.want)
		}
	}
	unchanged(t, srv, before)
}
