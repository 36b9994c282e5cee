package fake_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// lastReason returns the status and reason of the last request srv logged.
func lastReason(t *testing.T, srv *fake.Server) (int, string) {
	t.Helper()
	log := srv.Requests()
	if len(log) == 0 {
		t.Fatal("the request log is empty")
	}
	r := log[len(log)-1]
	return r.Status, r.Reason
}

// TestRefusalReasons checks the reason the request log gives for each kind
// of refusal, while the body on the wire stays the API's.
func TestRefusalReasons(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	mustDB(t, srv, "app")
	mustDB(t, srv, "other")
	tok := mustToken(t, srv, fake.TokenSpec{
		Name:                "reader",
		Permissions:         []platform.Permission{platform.PermissionReadOrganization},
		DatabasePermissions: map[string][]platform.Permission{"other": {platform.PermissionReadBranch, platform.PermissionReadDatabase}},
	})
	tests := []struct {
		name               string
		method, path, auth string
		body               string
		status             int
		wire               string // the body's message
		reason             string
	}{
		{"a permission the token lacks", "GET", "/v1/organizations/acme/databases/app/deploy-requests", tok.Authorization(), "", 404, "Not Found",
			"service token " + tok.ID + " lacks the permission for list_deploy_requests (one of read_deploy_request) on database app; " +
				"it holds on the organization: read_organization; on database other: read_branch, read_database"},
		{"an unknown database", "GET", "/v1/organizations/acme/databases/nope", admin(srv), "", 404, "Not Found",
			`database "nope" names nothing in organization acme`},
		{"an unknown branch", "GET", "/v1/organizations/acme/databases/app/branches/nope", admin(srv), "", 404, "Not Found",
			`branch "nope" names nothing in database app`},
		{"an unknown organization", "GET", "/v1/organizations/nope", admin(srv), "", 404, "Not Found",
			`organization "nope" names nothing`},
		{"a bad field", "POST", "/v1/organizations/acme/databases", admin(srv), `{"name": 7}`, 400,
			"field name must be a string, not 7", "field name must be a string, not 7"},
	}
	for _, tt := range tests {
		w := send(t, srv, tt.method, tt.path, tt.auth, tt.body)
		var body errorBody
		if err := json.Unmarshal(w.body, &body); err != nil {
			t.Fatalf("%s: body %s: %v", tt.name, w.body, err)
		}
		if body.Message != tt.wire {
			t.Errorf("%s: the wire message is %q, want %q", tt.name, body.Message, tt.wire)
		}
		status, reason := lastReason(t, srv)
		if status != tt.status {
			t.Errorf("%s: status %d, want %d", tt.name, status, tt.status)
		}
		if diff := cmp.Diff(tt.reason, reason); diff != "" {
			t.Errorf("%s: the logged reason (-want +got):\n%s", tt.name, diff)
		}
	}
	// The control surface's log shows the reasons too.
	w := send(t, srv, "GET", "/_fake/requests", admin(srv), "")
	var ctl struct {
		Data []struct {
			Status int    `json:"status"`
			Reason string `json:"reason"`
		} `json:"data"`
	}
	if err := json.Unmarshal(w.body, &ctl); err != nil {
		t.Fatal(err)
	}
	var reasons []string
	for _, r := range ctl.Data {
		if r.Status >= 400 {
			reasons = append(reasons, r.Reason)
		}
	}
	var want []string
	for _, tt := range tests {
		want = append(want, tt.reason)
	}
	if diff := cmp.Diff(want, reasons); diff != "" {
		t.Errorf("/_fake/requests reasons (-want +got):\n%s", diff)
	}
}

// TestOAuthRefusalReason checks the reason of a refusal for lack of an
// OAuth scope: the scopes the operation needs and those the token holds.
func TestOAuthRefusalReason(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	mustDB(t, srv, "app")
	access := oauthGrant(t, srv, fake.Consent{Organizations: []string{srv.Org()}}, platform.ScopeOrganizationReadOrganization)
	c := oauthClient(t, srv, access)
	if _, err := c.Databases.Get(t.Context(), &platform.GetDatabaseParams{Organization: "acme", Database: "app"}); err == nil {
		t.Fatal("Get without the scope succeeded")
	}
	_, reason := lastReason(t, srv)
	for _, want := range []string{"get_database needs one of the OAuth scopes", "database:read_database", "the token holds organization:read_organization"} {
		if !strings.Contains(reason, want) {
			t.Errorf("reason %q lacks %q", reason, want)
		}
	}
}

// recordingTB is a testing.TB whose failure the test decides, and whose
// logs and cleanups it keeps, so that a test can watch what a server from
// NewServer does when its test fails without failing itself.
type recordingTB struct {
	testing.TB // the real test, for what recordingTB does not override
	mu         sync.Mutex
	failed     bool
	logs       []string
	cleanups   []func()
}

func (r *recordingTB) Failed() bool     { r.mu.Lock(); defer r.mu.Unlock(); return r.failed }
func (r *recordingTB) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }
func (r *recordingTB) Log(args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.logs = append(r.logs, fmt.Sprintln(args...))
}

// finish runs the cleanups, last first, as a test's end does.
func (r *recordingTB) finish() {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
}

// TestFailureLog checks that a server from NewServer logs its last 20
// requests, with status and reason, when its test has failed; and nothing
// when the test passed or with WithoutFailureLog.
func TestFailureLog(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		failed bool
		opts   []fake.Option
		want   bool
	}{
		{"failed", true, nil, true},
		{"passed", false, nil, false},
		{"failed without the log", true, []fake.Option{fake.WithoutFailureLog()}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tb := &recordingTB{TB: t}
			srv := fake.NewServer(tb, tt.opts...)
			for i := range 25 {
				send(t, srv, "GET", fmt.Sprintf("/v1/organizations/acme/databases/db-%02d", i), admin(srv), "")
			}
			tb.failed = tt.failed
			tb.finish()
			if !tt.want {
				if len(tb.logs) != 0 {
					t.Errorf("logged %q, want nothing", tb.logs)
				}
				return
			}
			if len(tb.logs) != 1 {
				t.Fatalf("logged %d times, want once: %q", len(tb.logs), tb.logs)
			}
			lines := strings.Split(strings.TrimSpace(tb.logs[0]), "\n")
			if len(lines) != 21 || !strings.Contains(lines[0], "the last 20 of 25 requests") {
				t.Fatalf("the log has %d lines, want a heading and 20 requests:\n%s", len(lines), tb.logs[0])
			}
			want := `  404 GET /v1/organizations/acme/databases/db-05 (get_database): database "db-05" names nothing in organization acme`
			if diff := cmp.Diff(want, lines[1]); diff != "" {
				t.Errorf("the first request logged (-want +got):\n%s", diff)
			}
		})
	}
}
