package platform_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// auditEntryJSON is an entry of the audit log with every field set.
const auditEntryJSON = `{
	"id": "00000000002a", "actor_id": "tok1", "actor_type": "ServiceToken", "actor_display_name": "ci",
	"auditable_id": "db1", "auditable_type": "Database", "auditable_display_name": "app",
	"target_id": "br1", "target_type": "DatabaseBranch", "target_display_name": "dev",
	"audit_action": "branch.created", "action": "created", "location": null, "remote_ip": "203.0.113.7",
	"created_at": "2026-01-14T10:19:23.000Z", "updated_at": "2026-01-14T10:19:23.000Z",
	"metadata": {"database": "app"}}`

func TestAuditLogsWire(t *testing.T) {
	t.Parallel()
	at := mustTimestamp(t, "2026-01-14T10:19:23.000Z")
	entry := &platform.AuditLog{
		ID: "00000000002a", ActorID: platform.Ptr("tok1"), ActorType: platform.Ptr("ServiceToken"), ActorDisplayName: "ci",
		AuditableID: platform.Ptr("db1"), AuditableType: platform.Ptr("Database"), AuditableDisplayName: "app",
		TargetID: platform.Ptr("br1"), TargetType: platform.Ptr("DatabaseBranch"), TargetDisplayName: platform.Ptr("dev"),
		AuditAction: "branch.created", Action: "created", RemoteIP: platform.Ptr("203.0.113.7"),
		CreatedAt: at, UpdatedAt: at, Metadata: map[string]any{"database": "app"},
	}
	page := `{"type": "list", "has_next": true, "has_prev": true, "cursor_start": "00000000002a",
		"cursor_end": "00000000002a", "data": [` + auditEntryJSON + `]}`
	runMethodCases(t, []methodCase{
		{
			name: "List/filters and cursor",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.AuditLogs.List(ctx, &platform.ListAuditLogsParams{
					Organization: "acme", Actions: platform.AuditActions{"branch.created", "branch.deleted"},
					CursorParams: platform.CursorParams{StartingAfter: "00000000002b", Limit: 10},
				})
			},
			status: http.StatusOK, response: page,
			method: http.MethodGet, path: "/v1/organizations/acme/audit-log",
			query: url.Values{
				"filters[]":      {"audit_action:branch.created", "audit_action:branch.deleted"},
				"starting_after": {"00000000002b"}, "limit": {"10"},
			},
			want: &platform.CursorPage[platform.AuditLog]{
				Type: "list", HasNext: true, HasPrev: true,
				CursorStart: platform.Ptr("00000000002a"), CursorEnd: platform.Ptr("00000000002a"),
				Items: []*platform.AuditLog{entry},
			},
		},
		{
			name: "List/before a cursor",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.AuditLogs.List(ctx, &platform.ListAuditLogsParams{Organization: "acme", CursorParams: platform.CursorParams{EndingBefore: "000000000001"}})
			},
			status: http.StatusOK, response: `{"type": "list", "has_next": false, "has_prev": false, "cursor_start": null, "cursor_end": null, "data": []}`,
			method: http.MethodGet, path: "/v1/organizations/acme/audit-log",
			query: url.Values{"ending_before": {"000000000001"}},
			want:  &platform.CursorPage[platform.AuditLog]{Type: "list", Items: []*platform.AuditLog{}},
		},
	})
}

func TestAuditLogsArgErrors(t *testing.T) {
	t.Parallel()
	list := func(p *platform.ListAuditLogsParams) func(context.Context, *platform.Client) error {
		return func(ctx context.Context, c *platform.Client) error {
			_, err := c.AuditLogs.List(ctx, p)
			return err
		}
	}
	runArgCases(t, []argCase{
		{name: "nil params", arg: "params", call: list(nil)},
		{name: "limit over the maximum", arg: "limit", call: list(&platform.ListAuditLogsParams{Organization: "acme", CursorParams: platform.CursorParams{Limit: platform.MaxPerPage + 1}})},
		{name: "negative limit", arg: "limit", call: list(&platform.ListAuditLogsParams{Organization: "acme", CursorParams: platform.CursorParams{Limit: -1}})},
		{name: "both cursors", arg: "ending_before", call: list(&platform.ListAuditLogsParams{Organization: "acme", CursorParams: platform.CursorParams{StartingAfter: "a", EndingBefore: "b"}})},
		{name: "All with both cursors", arg: "ending_before", call: func(ctx context.Context, c *platform.Client) error {
			for _, err := range c.AuditLogs.All(ctx, &platform.ListAuditLogsParams{Organization: "acme", CursorParams: platform.CursorParams{StartingAfter: "a", EndingBefore: "b"}}) {
				return err
			}
			return nil
		}},
	})
}

// TestAuditLogsAllFollowsCursors ranges over three pages of a wire server:
// each page after the first is asked after the previous page's last
// entry, and the walk ends where has_next is false.
func TestAuditLogsAllFollowsCursors(t *testing.T) {
	t.Parallel()
	pageOf := func(next bool, ids ...string) string {
		var items []string
		for _, id := range ids {
			items = append(items, strings.Replace(auditEntryJSON, `"00000000002a"`, `"`+id+`"`, 1))
		}
		return `{"type": "list", "has_next": ` + map[bool]string{true: "true", false: "false"}[next] + `, "has_prev": false,
			"cursor_start": "` + ids[0] + `", "cursor_end": "` + ids[len(ids)-1] + `", "data": [` + strings.Join(items, ",") + `]}`
	}
	w := newWireFunc(t, sequence(
		respond(http.StatusOK, pageOf(true, "e5", "e4")),
		respond(http.StatusOK, pageOf(true, "e3", "e2")),
		respond(http.StatusOK, pageOf(false, "e1")),
	))
	p := &platform.ListAuditLogsParams{Organization: "acme", CursorParams: platform.CursorParams{EndingBefore: "e6", Limit: 2}}
	var ids []string
	for e, err := range w.client.AuditLogs.All(t.Context(), p) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, e.ID)
	}
	if diff := cmp.Diff([]string{"e5", "e4", "e3", "e2", "e1"}, ids); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
	var queries []string
	for _, r := range w.requests() {
		queries = append(queries, r.RawQuery)
	}
	want := []string{"ending_before=e6&limit=2", "limit=2&starting_after=e4", "limit=2&starting_after=e2"}
	if diff := cmp.Diff(want, queries); diff != "" {
		t.Errorf("queries (-want +got):\n%s", diff)
	}
	if p.StartingAfter != "" || p.EndingBefore != "e6" {
		t.Errorf("All changed the caller's params: %+v", p.CursorParams)
	}
}

// TestAuditLogsAllStopsEarly: All stops when the caller breaks out of the
// range, without fetching the next page, and ends with one error at a null
// item, without yielding the items after it.
func TestAuditLogsAllStopsEarly(t *testing.T) {
	t.Parallel()
	entry := func(id string) string { return strings.Replace(auditEntryJSON, `"00000000002a"`, `"`+id+`"`, 1) }
	w := newWireFunc(t, func(rw http.ResponseWriter, r *http.Request) {
		writeBody(rw, http.StatusOK, `{"type": "list", "has_next": true, "has_prev": false,
			"cursor_start": "e3", "cursor_end": "e1", "data": [`+entry("e3")+`,`+entry("e2")+`,`+entry("e1")+`]}`)
	})
	p := &platform.ListAuditLogsParams{Organization: "acme"}
	var ids []string
	for e, err := range w.client.AuditLogs.All(t.Context(), p) {
		if err != nil {
			t.Fatal(err)
		}
		if ids = append(ids, e.ID); len(ids) == 2 {
			break
		}
	}
	if diff := cmp.Diff([]string{"e3", "e2"}, ids); diff != "" || len(w.requests()) != 1 {
		t.Errorf("entries (-want +got):\n%s; %d requests, want 1", diff, len(w.requests()))
	}

	nulls := newWireFunc(t, func(rw http.ResponseWriter, r *http.Request) {
		writeBody(rw, http.StatusOK, `{"type": "list", "has_next": true, "has_prev": false,
			"cursor_start": "e3", "cursor_end": "e1", "data": [`+entry("e3")+`,null,`+entry("e1")+`]}`)
	})
	ids = nil
	var errs []error
	for e, err := range nulls.client.AuditLogs.All(t.Context(), p) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		ids = append(ids, e.ID)
	}
	if diff := cmp.Diff([]string{"e3"}, ids); diff != "" {
		t.Errorf("entries before the null (-want +got):\n%s", diff)
	}
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "null item") || len(nulls.requests()) != 1 {
		t.Errorf("errors %v after %d requests, want one naming the null item after 1", errs, len(nulls.requests()))
	}
}

// TestAuditLogsAllStopsAtASeenCursor serves pages whose cursor_end leads
// back to a cursor the walk already used, with has_next still true: All
// yields each page once and stops, silently, as it does at a numbered
// page's repeated or backward next_page, rather than ranging for ever.
func TestAuditLogsAllStopsAtASeenCursor(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// next maps a request's starting_after to its page's cursor_end.
		next      map[string]string
		start     string
		wantAfter []string // the starting_after of each request
	}{
		{"the same cursor", map[string]string{"": "c1", "c1": "c1"}, "", []string{"", "c1"}},
		{"two cursors in turn", map[string]string{"": "c1", "c1": "c2", "c2": "c1"}, "", []string{"", "c1", "c2"}},
		{"back to an earlier cursor", map[string]string{"": "c1", "c1": "c2", "c2": "c3", "c3": "c1"}, "", []string{"", "c1", "c2", "c3"}},
		{"back to the caller's cursor", map[string]string{"c0": "c1", "c1": "c0"}, "c0", []string{"c0", "c1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWireFunc(t, func(rw http.ResponseWriter, r *http.Request) {
				after := r.URL.Query().Get("starting_after")
				item := strings.Replace(auditEntryJSON, `"00000000002a"`, `"after-`+after+`"`, 1)
				writeBody(rw, http.StatusOK, `{"type": "list", "has_next": true, "has_prev": false,
					"cursor_start": "x", "cursor_end": "`+tc.next[after]+`", "data": [`+item+`]}`)
			})
			p := &platform.ListAuditLogsParams{Organization: "acme", CursorParams: platform.CursorParams{StartingAfter: tc.start}}
			var ids []string
			for e, err := range w.client.AuditLogs.All(t.Context(), p) {
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, e.ID)
				if len(ids) > 20 {
					t.Fatal("All is still ranging after 20 items")
				}
			}
			var wantIDs, after []string
			for _, a := range tc.wantAfter {
				wantIDs = append(wantIDs, "after-"+a)
			}
			for _, r := range w.requests() {
				after = append(after, r.Query.Get("starting_after"))
			}
			if diff := cmp.Diff(wantIDs, ids); diff != "" {
				t.Errorf("entries (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantAfter, after); diff != "" {
				t.Errorf("starting_after of the requests (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAuditLogsAgainstTheFake reads the entries of changes made through
// the SDK: newest first, across pages, filtered by action.
func TestAuditLogsAgainstTheFake(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	ctx, c, org := t.Context(), srv.Client(), srv.Org()
	for _, name := range []string{"alpha", "beta", "gamma"} {
		if _, err := c.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: org, Name: name, ClusterSize: "PS_10"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Databases.Delete(ctx, &platform.DeleteDatabaseParams{Organization: org, Database: "beta"}); err != nil {
		t.Fatal(err)
	}
	type row struct{ Action, Target string }
	collect := func(p *platform.ListAuditLogsParams) []row {
		var rows []row
		for e, err := range c.AuditLogs.All(ctx, p) {
			if err != nil {
				t.Fatal(err)
			}
			rows = append(rows, row{e.AuditAction, *e.TargetDisplayName})
		}
		return rows
	}
	all := collect(&platform.ListAuditLogsParams{Organization: org, CursorParams: platform.CursorParams{Limit: 1}})
	want := []row{{"database.deleted", "beta"}, {"database.created", "gamma"}, {"database.created", "beta"}, {"database.created", "alpha"}}
	if diff := cmp.Diff(want, all); diff != "" {
		t.Errorf("the audit log (-want +got):\n%s", diff)
	}
	created := collect(&platform.ListAuditLogsParams{Organization: org, Actions: platform.AuditActions{"database.created"}})
	if diff := cmp.Diff(want[1:], created); diff != "" {
		t.Errorf("the creations (-want +got):\n%s", diff)
	}
}
