package fake_test

import (
	"bytes"
	"encoding/json"
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

// auditSince returns the entries of acme's audit log newer than the entry
// after, newest first (every entry when after is ""), read with the admin
// token.
func auditSince(t *testing.T, srv *fake.Server, after string) []*platform.AuditLog {
	t.Helper()
	p := &platform.ListAuditLogsParams{Organization: srv.Org(), CursorParams: platform.CursorParams{EndingBefore: after, Limit: platform.MaxPerPage}}
	page, err := opAdminInProcess(t, srv).AuditLogs.List(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	if page.HasPrev {
		t.Fatalf("more than %d entries since %q", platform.MaxPerPage, after)
	}
	return page.Items
}

// auditNewest returns the ID of acme's newest entry, "" for none.
func auditNewest(t *testing.T, srv *fake.Server) string {
	t.Helper()
	page, err := opAdminInProcess(t, srv).AuditLogs.List(t.Context(), &platform.ListAuditLogsParams{Organization: srv.Org(), CursorParams: platform.CursorParams{Limit: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) == 0 {
		return ""
	}
	return page.Items[0].ID
}

// auditActionForm is the form of audit_action: "<resource>.<action>".
var auditActionForm = regexp.MustCompile(`^[a-z]+(_[a-z]+)*\.[a-z]+(_[a-z]+)*$`)

// TestAuditLogRecordsEveryChange runs every operation of operations.tsv
// that changes the world, from its fixture: refused (by a token without
// permissions, where the operation needs one, and by a credential the
// server does not know) it leaves no entry; done by the admin token, it
// leaves exactly one, naming the admin token, the place and the target of
// the change (by its ID too), the request's path values, and the time.
func TestAuditLogRecordsEveryChange(t *testing.T) {
	t.Parallel()
	ops := loadOperations(t)
	names := opOperations(t, func(op tsvOperation) bool { return op.method != http.MethodGet })
	names = slices.DeleteFunc(names, func(name string) bool { return opReads[name] }) // they change nothing
	if len(names) < 80 {
		t.Fatalf("only %d operations change the world", len(names))
	}
	for _, name := range names {
		op := ops[name]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := newOpWorld(t)
			call := opFixtures[name](w, "")
			path := call.path(t, w, op)
			before := auditNewest(t, w.srv)
			refusals := map[string]string{"unknown token": "nope:nope"}
			if op.perms != nil {
				refusals["no permission"] = mustToken(t, w.srv, fake.TokenSpec{Name: "none"}).Authorization()
			}
			for why, auth := range refusals {
				if r := send(t, w.srv, op.method, path, auth, call.body); r.status < 400 {
					t.Fatalf("%s: status %d, want a refusal", why, r.status)
				}
			}
			if got := auditSince(t, w.srv, before); len(got) != 0 {
				t.Fatalf("refused requests left %d entries, the first %s", len(got), got[0].AuditAction)
			}
			wantStatus(t, send(t, w.srv, op.method, path, admin(w.srv), call.body), op.status)
			got := auditSince(t, w.srv, before)
			if len(got) != 1 {
				t.Fatalf("%d entries, want 1", len(got))
			}
			e := got[0]
			if e.Type != "AuditLogEvent" {
				t.Errorf("type %q, want AuditLogEvent", e.Type)
			}
			tok := w.srv.AdminToken().ID
			if e.ActorID == nil || *e.ActorID != tok || e.ActorType == nil || *e.ActorType != "ServiceToken" || e.ActorDisplayName == "" {
				t.Errorf("actor %v %v %q, want the admin token %s", e.ActorType, e.ActorID, e.ActorDisplayName, tok)
			}
			if !auditActionForm.MatchString(e.AuditAction) || !strings.HasSuffix(e.AuditAction, "."+e.Action) {
				t.Errorf("audit_action %q, action %q: want <resource>.<action>", e.AuditAction, e.Action)
			}
			where, whereName := "Organization", w.org
			if strings.Contains(op.path, "{database}") {
				where, whereName = "Database", drDB
				if v := call.vals["database"]; v != "" {
					whereName = v
				}
			}
			if e.AuditableType == nil || *e.AuditableType != where || e.AuditableDisplayName != whereName || e.AuditableID == nil {
				t.Errorf("auditable %v %q, want %s %s", e.AuditableType, e.AuditableDisplayName, where, whereName)
			}
			if e.TargetType == nil || *e.TargetType == "" || e.TargetDisplayName == nil {
				t.Errorf("target %v %v, want its type and name", e.TargetType, e.TargetDisplayName)
			}
			if e.TargetID == nil {
				t.Errorf("no target_id: resolve the record the path names in auditTarget (fake/auditlogs.go)")
			}
			if !e.CreatedAt.Equal(w.srv.Now()) || e.UpdatedAt != e.CreatedAt {
				t.Errorf("created_at %v, updated_at %v, want the clock's %v", e.CreatedAt, e.UpdatedAt, w.srv.Now())
			}
			if e.RemoteIP == nil || *e.RemoteIP != "127.0.0.1" {
				t.Errorf("remote_ip %v, want 127.0.0.1", e.RemoteIP)
			}
			for seg := range strings.SplitSeq(op.path, "/") {
				param, ok := strings.CutPrefix(seg, "{")
				param = strings.TrimSuffix(param, "}")
				if !ok || param == "organization" {
					continue
				}
				if _, ok := e.Metadata[param]; !ok {
					t.Errorf("metadata %v lacks the path's %s", e.Metadata, param)
				}
			}
		})
	}
}

// auditChanges makes changes through the API: it creates the databases
// names, then deletes the first.
func auditChanges(t *testing.T, srv *fake.Server, names ...string) {
	t.Helper()
	c := srv.Client()
	for _, name := range names {
		mustDB(t, srv, name)
		srv.Advance(time.Second)
	}
	if err := c.Databases.Delete(t.Context(), &platform.DeleteDatabaseParams{Organization: srv.Org(), Database: names[0]}); err != nil {
		t.Fatal(err)
	}
}

// auditPage is a page of acme's audit log, compactly: the entries'
// targets, and the page's flags.
type auditPage struct {
	Targets          []string
	HasNext, HasPrev bool
}

// auditList lists acme's audit log with the query, and returns the page
// and its cursors.
func auditList(t *testing.T, srv *fake.Server, query string) (p auditPage, start, end string) {
	t.Helper()
	r := send(t, srv, http.MethodGet, "/v1/organizations/"+srv.Org()+"/audit-log?"+query, admin(srv), "")
	wantStatus(t, r, http.StatusOK)
	var page platform.CursorPage[platform.AuditLog]
	if err := json.Unmarshal(r.body, &page); err != nil {
		t.Fatal(err)
	}
	p = auditPage{Targets: []string{}, HasNext: page.HasNext, HasPrev: page.HasPrev}
	for _, e := range page.Items {
		p.Targets = append(p.Targets, strings.TrimPrefix(e.AuditAction, "database.")+" "+*e.TargetDisplayName)
	}
	if (page.CursorStart == nil) != (len(page.Items) == 0) || (page.CursorEnd == nil) != (len(page.Items) == 0) {
		t.Fatalf("cursors %v %v for %d entries", page.CursorStart, page.CursorEnd, len(page.Items))
	}
	if len(page.Items) > 0 {
		start, end = *page.CursorStart, *page.CursorEnd
		if start != page.Items[0].ID || end != page.Items[len(page.Items)-1].ID {
			t.Errorf("cursors %s..%s, want the page's first and last IDs", start, end)
		}
	}
	return p, start, end
}

// TestAuditLogPages walks the log by cursor both ways, with and without a
// filter.
func TestAuditLogPages(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	if p, _, _ := auditList(t, srv, ""); len(p.Targets) != 0 || p.HasNext || p.HasPrev {
		t.Fatalf("a new server's log: %+v, want it empty", p)
	}
	auditChanges(t, srv, "d1", "d2", "d3", "d4", "d5")
	first, _, end := auditList(t, srv, "limit=2")
	second, start2, end2 := auditList(t, srv, "limit=2&starting_after="+end)
	third, start3, _ := auditList(t, srv, "limit=2&starting_after="+end2)
	back, _, _ := auditList(t, srv, "limit=2&ending_before="+start3)
	back2, _, _ := auditList(t, srv, "limit=2&ending_before="+start2)
	whole, _, _ := auditList(t, srv, "")
	created, _, cend := auditList(t, srv, "limit=3&filters[]=audit_action:database.created")
	created2, _, _ := auditList(t, srv, "limit=3&filters[]=audit_action:database.created&starting_after="+cend)
	either, _, _ := auditList(t, srv, "filters[]=audit_action:database.deleted&filters[]=audit_action:organization.updated")
	got := []auditPage{first, second, third, back, back2, whole, created, created2, either}
	want := []auditPage{
		{Targets: []string{"deleted d1", "created d5"}, HasNext: true},
		{Targets: []string{"created d4", "created d3"}, HasNext: true, HasPrev: true},
		{Targets: []string{"created d2", "created d1"}, HasPrev: true},
		{Targets: []string{"created d4", "created d3"}, HasNext: true, HasPrev: true},
		{Targets: []string{"deleted d1", "created d5"}, HasNext: true},
		{Targets: []string{"deleted d1", "created d5", "created d4", "created d3", "created d2", "created d1"}},
		{Targets: []string{"created d5", "created d4", "created d3"}, HasNext: true},
		{Targets: []string{"created d2", "created d1"}, HasPrev: true},
		{Targets: []string{"deleted d1"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pages (-want +got):\n%s", diff)
	}
}

// TestAuditLogRefusals checks the list's bad queries, and that a request
// refused by its handler, a read and a control call leave no entry.
func TestAuditLogRefusals(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	auditChanges(t, srv, "d1")
	before := auditNewest(t, srv)
	for _, tc := range []struct{ query, words string }{
		{"limit=0", "limit must be an integer from 1 to 100"},
		{"limit=101", "limit must be an integer from 1 to 100"},
		{"limit=x", "limit"},
		{"starting_after=nope", `starting_after "nope"`},
		{"ending_before=nope", `ending_before "nope"`},
		{"starting_after=" + before + "&ending_before=" + before, "starting_after and ending_before"},
		{"filters[]=actor_id:x", `filters[] "actor_id:x"`},
		{"filters[]=audit_action:", "audit_action:ACTION"},
	} {
		r := send(t, srv, http.MethodGet, "/v1/organizations/"+srv.Org()+"/audit-log?"+tc.query, admin(srv), "")
		if e := wantError(t, r, http.StatusBadRequest, "bad_request"); !strings.Contains(e.Message, tc.words) {
			t.Errorf("%s: message %q, want it to name %q", tc.query, e.Message, tc.words)
		}
	}
	// The parameters of numbered pages are not the log's: ignored.
	wantStatus(t, send(t, srv, http.MethodGet, "/v1/organizations/"+srv.Org()+"/audit-log?per_page=x&page=0&order=sideways", admin(srv), ""), http.StatusOK)
	taken := send(t, srv, http.MethodPost, "/v1/organizations/"+srv.Org()+"/databases", admin(srv), `{"name": "d2", "cluster_size": "PS_10"}`)
	wantStatus(t, taken, http.StatusCreated)
	before = auditNewest(t, srv)
	wantError(t, send(t, srv, http.MethodPost, "/v1/organizations/"+srv.Org()+"/databases", admin(srv), `{"name": "d2", "cluster_size": "PS_10"}`), http.StatusUnprocessableEntity, "unprocessable")
	wantStatus(t, send(t, srv, http.MethodGet, "/v1/organizations/"+srv.Org()+"/databases/d2", admin(srv), ""), http.StatusOK)
	if err := srv.CreateOrganization("globex"); err != nil {
		t.Fatal(err)
	}
	ctl := send(t, srv, http.MethodPost, "/_fake/organizations/"+srv.Org()+"/service-tokens", admin(srv), `{"name": "seeded", "permissions": ["read_audit_logs"]}`)
	if ctl.status >= 300 {
		t.Fatalf("control call: %d %s", ctl.status, ctl.body)
	}
	if got := auditSince(t, srv, before); len(got) != 0 {
		t.Errorf("a refusal, a read and control calls left entries: %s", got[0].AuditAction)
	}
}

// TestAuditLogActors names who made each change: a service token by its
// name (its ID without one), a user through an OAuth token.
func TestAuditLogActors(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	named := mustToken(t, srv, fake.TokenSpec{Name: "deployer", Permissions: []platform.Permission{"create_databases"}})
	unnamed := mustToken(t, srv, fake.TokenSpec{Permissions: []platform.Permission{"create_databases"}})
	access := oauthGrant(t, srv, fake.Consent{Organizations: []string{srv.Org()}}, platform.ScopeOrganizationWriteOrganization)
	for i, auth := range []string{named.Authorization(), unnamed.Authorization()} {
		body := `{"name": "d` + string(rune('1'+i)) + `", "cluster_size": "PS_10"}`
		wantStatus(t, send(t, srv, http.MethodPost, "/v1/organizations/"+srv.Org()+"/databases", auth, body), http.StatusCreated)
	}
	wantStatus(t, send(t, srv, http.MethodPatch, "/v1/organizations/"+srv.Org(), bearer(access), `{"billing_email": "ap@example.com"}`), http.StatusOK)
	type actor struct{ Type, ID, Name, Action string }
	var got []actor
	for _, e := range auditSince(t, srv, "") {
		got = append(got, actor{*e.ActorType, *e.ActorID, e.ActorDisplayName, e.AuditAction})
	}
	admin := srv.AdminUserID()
	want := []actor{
		{"User", admin, "Ada Admin", "organization.updated"},
		{"ServiceToken", unnamed.ID, unnamed.ID, "database.created"},
		{"ServiceToken", named.ID, "deployer", "database.created"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("actors (-want +got):\n%s", diff)
	}
}

// TestAuditLogBounded keeps the newest entries up to the limit; a cursor
// naming an entry dropped since still places its page.
func TestAuditLogBounded(t *testing.T) {
	t.Parallel()
	if _, err := fake.New(fake.WithAuditLogLimit(0)); err == nil || !strings.Contains(err.Error(), "WithAuditLogLimit") {
		t.Errorf("WithAuditLogLimit(0): %v, want an error naming the option", err)
	}
	srv := fake.NewServer(t, fake.WithAuditLogLimit(3))
	auditChanges(t, srv, "d1")
	_, dropped, _ := auditList(t, srv, "limit=1&filters[]=audit_action:database.created")
	auditChanges(t, srv, "d2", "d3")
	kept, _, _ := auditList(t, srv, "")
	before, _, _ := auditList(t, srv, "ending_before="+dropped)
	after, _, _ := auditList(t, srv, "starting_after="+dropped)
	want := []auditPage{
		{Targets: []string{"deleted d2", "created d3", "created d2"}},
		{Targets: []string{"deleted d2", "created d3", "created d2"}},
		{Targets: []string{}, HasPrev: true},
	}
	if diff := cmp.Diff(want, []auditPage{kept, before, after}); diff != "" {
		t.Errorf("pages (-want +got):\n%s", diff)
	}
}

// TestAuditLogSnapshotBounded restores a log that wrapped around its
// limit: the same entries, and the next change numbered after them, as
// in the server snapshotted.
func TestAuditLogSnapshotBounded(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t, fake.WithAuditLogLimit(3))
	auditChanges(t, srv, "d1", "d2", "d3")
	snap, err := srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	restored := fake.NewServer(t, fake.WithAuditLogLimit(3))
	if err := restored.Restore(snap); err != nil {
		t.Fatal(err)
	}
	smaller := fake.NewServer(t, fake.WithAuditLogLimit(2))
	if err := smaller.Restore(snap); err != nil {
		t.Fatal(err)
	}
	for _, s := range []*fake.Server{srv, restored} {
		auditChanges(t, s, "d4")
	}
	want := auditSince(t, srv, "")
	if diff := cmp.Diff(want, auditSince(t, restored, "")); diff != "" {
		t.Errorf("the restored log (-original +restored):\n%s", diff)
	}
	if got, _, _ := auditList(t, smaller, ""); !cmp.Equal(got.Targets, []string{"deleted d1", "created d3"}) {
		t.Errorf("a restore into a server of limit 2 kept %v, want the newest two", got.Targets)
	}
	srv.Reset()
	if got := auditSince(t, srv, ""); len(got) != 0 {
		t.Errorf("Reset left %d entries", len(got))
	}
}

// TestAuditLogSnapshotTwoOrganizations restores the snapshot of a server
// whose organizations' logs interleave (an entry of acme, one of another
// organization, another of acme): the server's own snapshot loads, into
// another server and into itself, and saves again byte for byte.
func TestAuditLogSnapshotTwoOrganizations(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	data := interleavedAuditSnapshot(t, srv)
	for _, into := range []*fake.Server{fake.NewServer(t, fake.WithSeed(5)), srv} {
		if err := into.Restore(data); err != nil {
			t.Fatalf("Restore of the server's own snapshot: %v", err)
		}
		again, err := into.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(data, again) {
			t.Error("the restored server's snapshot differs from the one it restored")
		}
	}
}

// interleavedAuditSnapshot makes three audit entries on srv, of its
// organization, of another, and of its organization again, and returns
// its snapshot.
func interleavedAuditSnapshot(t *testing.T, srv *fake.Server) []byte {
	t.Helper()
	other := srv.ClientFor(otherOrg(t, srv, "other"))
	mustDB(t, srv, "a1")
	if _, err := other.Databases.Create(t.Context(), &platform.CreateDatabaseParams{Organization: "other", Name: "b1"}); err != nil {
		t.Fatal(err)
	}
	mustDB(t, srv, "a2")
	data, err := srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	return data
}
