package fake_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
	"github.com/google/go-cmp/cmp"
)

// TestBranchLifecycle checks that a branch is created pending and becomes
// ready once the clock passes the branch delay, default or configured,
// emitting branch.ready with the branch as the API renders it.
func TestBranchLifecycle(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		opts  []fake.Option
		delay time.Duration
	}{
		{"default delay", nil, 5 * time.Second},
		{"custom delay", []fake.Option{fake.WithTimings(fake.Timings{BranchReady: 90 * time.Second})}, 90 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newBranchEnv(t, "app-db", tt.opts...)
			before := len(e.srv.Events())
			created := e.create("dev", false)
			if created.Ready || created.State != platform.BranchPending || created.SchemaReady {
				t.Fatalf("created ready=%v state=%s schema_ready=%v, want pending", created.Ready, created.State, created.SchemaReady)
			}
			if created.ParentBranch == nil || *created.ParentBranch != "main" || created.Production || created.Type != "Branch" {
				t.Errorf("created parent=%v production=%v type=%q, want a development branch of main", created.ParentBranch, created.Production, created.Type)
			}
			if created.Actor == nil || created.Actor.ID != e.srv.AdminUserID() {
				t.Errorf("actor %+v, want the admin user %s", created.Actor, e.srv.AdminUserID())
			}
			e.srv.Advance(tt.delay - time.Millisecond)
			if b := e.get("dev"); b.Ready || b.State != platform.BranchPending {
				t.Fatalf("ready=%v state=%s a millisecond before the delay, want pending", b.Ready, b.State)
			}
			if got := len(e.srv.Events()); got != before {
				t.Fatalf("%d events before the branch is ready, want %d", got, before)
			}
			e.srv.Advance(time.Millisecond)
			ready := e.get("dev")
			if !ready.Ready || ready.State != platform.BranchReady || !ready.SchemaReady {
				t.Fatalf("ready=%v state=%s after the delay, want ready", ready.Ready, ready.State)
			}
			events := e.srv.Events()[before:]
			if len(events) != 1 || events[0].Name != "branch.ready" {
				t.Fatalf("events %+v, want one branch.ready", events)
			}
			ev := events[0]
			if ev.Organization != e.org || ev.Database != e.db || !ev.At.Equal(e.srv.Now()) {
				t.Errorf("event at %s/%s %v, want %s/%s %v", ev.Organization, ev.Database, ev.At, e.org, e.db, e.srv.Now())
			}
			if diff := cmp.Diff(ready, ev.Resource); diff != "" {
				t.Errorf("event resource (-get +event):\n%s", diff)
			}
			if names := e.srv.EventNames(); names[len(names)-1] != "branch.ready" {
				t.Errorf("EventNames %v do not end with branch.ready", names)
			}
		})
	}
}

// TestBranchDeletedWhilePending checks that a branch deleted before it is
// ready never becomes ready nor emits branch.ready.
func TestBranchDeletedWhilePending(t *testing.T) {
	t.Parallel()
	e := newBranchEnv(t, "app-db")
	before := len(e.srv.Events())
	e.create("dev", false)
	if err := e.c.Branches.Delete(t.Context(), &platform.DeleteBranchParams{Organization: e.org, Database: e.db, Branch: "dev"}); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	e.srv.Advance(time.Minute)
	if got := e.srv.Events()[before:]; len(got) != 0 {
		t.Errorf("events %+v after deleting a pending branch, want none", got)
	}
	if e.exists("dev") {
		t.Error("deleted branch still found")
	}
}

// TestCreateBranchOptions checks the optional fields of a new branch.
func TestCreateBranchOptions(t *testing.T) {
	t.Parallel()
	e := newBranchEnv(t, "app-db")
	e.create("feature", true)
	b, err := e.tryCreate(platform.CreateBranchParams{Name: "child", ParentBranch: "feature", Region: "eu-west", DeletionProtected: platform.Ptr(true)})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	if b.ParentBranch == nil || *b.ParentBranch != "feature" || b.Region.Slug != "eu-west" || !b.DeletionProtected {
		t.Errorf("parent=%v region=%s deletion_protected=%v, want feature, eu-west, true", b.ParentBranch, b.Region.Slug, b.DeletionProtected)
	}
	if b.Region.CurrentDefault == nil || *b.Region.CurrentDefault {
		t.Errorf("region current_default %v, want false for a region other than the database's", b.Region.CurrentDefault)
	}
	if b.Kind != platform.KindMySQL || b.ClusterName != "PS_10" || b.KeyspaceCount != 1 {
		t.Errorf("kind=%s cluster=%s keyspaces=%d", b.Kind, b.ClusterName, b.KeyspaceCount)
	}
}

// TestCreateBranchRefused checks every 422 of create_branch, and that a
// refused request creates nothing.
func TestCreateBranchRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		setup    func(e *branchEnv)
		params   platform.CreateBranchParams
		mentions []string
	}{
		{name: "name missing", params: platform.CreateBranchParams{}, mentions: []string{"name", "required"}},
		{name: "name in capitals", params: platform.CreateBranchParams{Name: "Dev"}, mentions: []string{"name", "lowercase"}},
		{name: "name with an underscore", params: platform.CreateBranchParams{Name: "my_branch"}, mentions: []string{"name"}},
		{name: "name ending in a dash", params: platform.CreateBranchParams{Name: "dev-"}, mentions: []string{"name"}},
		{name: "name too long", params: platform.CreateBranchParams{Name: strings.Repeat("a", 64)}, mentions: []string{"name", "63"}},
		{name: "name taken", params: platform.CreateBranchParams{Name: "main"}, mentions: []string{"main", "taken"}},
		{name: "unknown parent", params: platform.CreateBranchParams{Name: "dev", ParentBranch: "nope"}, mentions: []string{"parent_branch", "nope"}},
		{
			name:     "parent not ready",
			setup:    func(e *branchEnv) { e.create("young", false) },
			params:   platform.CreateBranchParams{Name: "dev", ParentBranch: "young"},
			mentions: []string{"parent_branch", "young", "not ready"},
		},
		{name: "unknown region", params: platform.CreateBranchParams{Name: "dev", Region: "mars-north"}, mentions: []string{"region", "mars-north"}},
		{name: "unknown region with a size", params: platform.CreateBranchParams{Name: "dev", Region: "mars-north", ClusterSize: "PS_20"}, mentions: []string{"region", "mars-north"}},
		{name: "unknown cluster size", params: platform.CreateBranchParams{Name: "dev", ClusterSize: "PS_BOGUS"}, mentions: []string{`cluster_size "PS_BOGUS"`}},
		{
			name: "region other than the database's when restricted",
			setup: func(e *branchEnv) {
				if _, err := e.c.Databases.Update(e.t.Context(), &platform.UpdateDatabaseParams{Organization: e.org, Database: e.db, RestrictBranchRegion: platform.Ptr(true)}); err != nil {
					e.t.Fatalf("restricting regions: %v", err)
				}
			},
			params:   platform.CreateBranchParams{Name: "dev", Region: "eu-west"},
			mentions: []string{"region", "eu-west", "restricts"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newBranchEnv(t, "app-db")
			if tt.setup != nil {
				tt.setup(e)
			}
			before := e.list(platform.ListBranchesParams{}).TotalCount
			_, err := e.tryCreate(tt.params)
			apiError(t, err, http.StatusUnprocessableEntity, tt.mentions...)
			if after := e.list(platform.ListBranchesParams{}).TotalCount; *after != *before {
				t.Errorf("%d branches after a refused create, want %d", *after, *before)
			}
		})
	}
}

// TestCreateBranchRestrictedRegionAllowsOwn checks that a database that
// restricts branch regions still takes its own.
func TestCreateBranchRestrictedRegionAllowsOwn(t *testing.T) {
	t.Parallel()
	e := newBranchEnv(t, "app-db")
	db, err := e.c.Databases.Update(t.Context(), &platform.UpdateDatabaseParams{Organization: e.org, Database: e.db, RestrictBranchRegion: platform.Ptr(true)})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	b, err := e.tryCreate(platform.CreateBranchParams{Name: "dev", Region: db.Region.Slug})
	if err != nil {
		t.Fatalf("Create in the database's region: %v", err)
	}
	if b.Region.Slug != db.Region.Slug {
		t.Errorf("region %s, want %s", b.Region.Slug, db.Region.Slug)
	}
}

// TestGetBranch checks that get returns what create returned, and 404 for
// unknown names.
func TestGetBranch(t *testing.T) {
	t.Parallel()
	e := newBranchEnv(t, "app-db")
	created := e.create("dev", false)
	if diff := cmp.Diff(created, e.get("dev")); diff != "" {
		t.Errorf("get differs from create (-create +get):\n%s", diff)
	}
	for _, p := range []*platform.BranchParams{
		e.ref("nope"),
		{Organization: e.org, Database: "nope", Branch: "dev"},
		{Organization: "nope", Database: e.db, Branch: "dev"},
	} {
		_, err := e.c.Branches.Get(t.Context(), p)
		apiError(t, err, http.StatusNotFound)
	}
}

// TestBranchJSONFields checks the branch JSON carries every field the
// reference requires, with the nullable ones present as null.
func TestBranchJSONFields(t *testing.T) {
	t.Parallel()
	e := newBranchEnv(t, "app-db")
	status, body := e.raw("GET", e.branchesPath()+"/main", "")
	if status != http.StatusOK {
		t.Fatalf("status %d: %s", status, body)
	}
	var got map[string]json.RawMessage
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	required := strings.FieldsSeq(`id type name created_at updated_at deleted_at restore_checklist_completed_at
		schema_last_updated_at kind mysql_address mysql_edge_address state direct_vtgate vtgate_size
		vtgate_name vtgate_count vtgate_autoscaling vtgate_max_count vtgate_target_cpu_utilization
		cluster_name cluster_iops ready schema_ready metal production safe_migrations deletion_protected
		sharded shard_count keyspace_count stale_schema actor restored_from_branch private_edge_connectivity
		has_replicas has_read_only_replicas html_url url region parent_branch vtgate_options
		access_host_url mysql_provider_address initial_restore_id multiple_admins_required_for_demotion`)
	for k := range required {
		if _, ok := got[k]; !ok {
			t.Errorf("field %s missing", k)
		}
	}
	for _, k := range []string{"deleted_at", "restore_checklist_completed_at", "restored_from_branch", "parent_branch", "initial_restore_id", "cluster_iops", "vtgate_name"} {
		if string(got[k]) != "null" {
			t.Errorf("field %s = %s, want null", k, got[k])
		}
	}
	if string(got["type"]) != `"Branch"` || string(got["production"]) != "true" {
		t.Errorf("type %s production %s, want \"Branch\" and true for main", got["type"], got["production"])
	}
}

// TestListBranches checks the filters, the order and the pages of
// list_branches.
func TestListBranches(t *testing.T) {
	t.Parallel()
	e := newBranchEnv(t, "app-db")
	// main (production, safe migrations), feat-a, feat-b (production),
	// fix-c, created a second apart.
	for _, name := range []string{"feat-a", "feat-b", "fix-c"} {
		e.srv.Advance(time.Second)
		e.create(name, false)
	}
	e.srv.Advance(5 * time.Second)
	if _, err := e.c.Branches.Promote(t.Context(), e.ref("feat-b")); err != nil {
		t.Fatalf("Promote: %v", err)
	}
	if _, err := e.c.Branches.EnableSafeMigrations(t.Context(), e.ref("main")); err != nil {
		t.Fatalf("EnableSafeMigrations: %v", err)
	}
	yes, no := platform.Ptr(true), platform.Ptr(false)
	tests := []struct {
		name   string
		params platform.ListBranchesParams
		want   []string
		total  int
	}{
		{"all, oldest first", platform.ListBranchesParams{}, []string{"main", "feat-a", "feat-b", "fix-c"}, 4},
		{"explicit asc", platform.ListBranchesParams{Order: platform.OrderAsc}, []string{"main", "feat-a", "feat-b", "fix-c"}, 4},
		{"desc", platform.ListBranchesParams{Order: platform.OrderDesc}, []string{"fix-c", "feat-b", "feat-a", "main"}, 4},
		{"q", platform.ListBranchesParams{Query: "feat"}, []string{"feat-a", "feat-b"}, 2},
		{"q ignores case", platform.ListBranchesParams{Query: "FEAT-"}, []string{"feat-a", "feat-b"}, 2},
		{"q matching nothing", platform.ListBranchesParams{Query: "zzz"}, []string{}, 0},
		{"production", platform.ListBranchesParams{Production: yes}, []string{"main", "feat-b"}, 2},
		{"development", platform.ListBranchesParams{Production: no}, []string{"feat-a", "fix-c"}, 2},
		{"safe migrations", platform.ListBranchesParams{SafeMigrations: yes}, []string{"main"}, 1},
		{"no safe migrations", platform.ListBranchesParams{SafeMigrations: no}, []string{"feat-a", "feat-b", "fix-c"}, 3},
		{"q and production, desc", platform.ListBranchesParams{Query: "f", Production: no, Order: platform.OrderDesc}, []string{"fix-c", "feat-a"}, 2},
		{"first page", platform.ListBranchesParams{ListParams: platform.ListParams{PerPage: 3}}, []string{"main", "feat-a", "feat-b"}, 4},
		{"last page", platform.ListBranchesParams{ListParams: platform.ListParams{Page: 2, PerPage: 3}}, []string{"fix-c"}, 4},
		{"last page desc", platform.ListBranchesParams{Order: platform.OrderDesc, ListParams: platform.ListParams{Page: 2, PerPage: 3}}, []string{"main"}, 4},
		{"filtered page", platform.ListBranchesParams{SafeMigrations: no, ListParams: platform.ListParams{Page: 2, PerPage: 2}}, []string{"fix-c"}, 3},
		{"past the end", platform.ListBranchesParams{ListParams: platform.ListParams{Page: 9, PerPage: 3}}, []string{}, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := e.with(t).list(tt.params)
			if diff := cmp.Diff(tt.want, names(p)); diff != "" {
				t.Errorf("names (-want +got):\n%s", diff)
			}
			per := max(tt.params.PerPage, 1)
			if tt.params.PerPage == 0 {
				per = 25
			}
			page := max(tt.params.Page, 1)
			if p.TotalCount == nil || *p.TotalCount != tt.total || p.TotalPages == nil || *p.TotalPages != (tt.total+per-1)/per {
				t.Errorf("total_count %v total_pages %v, want %d and %d", p.TotalCount, p.TotalPages, tt.total, (tt.total+per-1)/per)
			}
			if p.CurrentPage != page || p.PerPage != per {
				t.Errorf("current_page %d per_page %d, want %d and %d", p.CurrentPage, p.PerPage, page, per)
			}
			if hasNext := page*per < tt.total; p.HasNext() != hasNext || (p.NextPageURL != nil) != hasNext {
				t.Errorf("next_page %v next_page_url %v, want present=%v", p.NextPage, p.NextPageURL, hasNext)
			}
			if hasPrev := page > 1; (p.PrevPage != nil) != hasPrev || (p.PrevPageURL != nil) != hasPrev {
				t.Errorf("prev_page %v, want present=%v", p.PrevPage, hasPrev)
			}
		})
	}
}

// TestListBranchesNextPageURL checks that next_page_url keeps the filters.
func TestListBranchesNextPageURL(t *testing.T) {
	t.Parallel()
	e := newBranchEnv(t, "app-db")
	e.create("dev-1", false)
	e.create("dev-2", false)
	p := e.list(platform.ListBranchesParams{Query: "dev", Production: platform.Ptr(false), ListParams: platform.ListParams{PerPage: 1}})
	if p.NextPageURL == nil {
		t.Fatal("no next_page_url")
	}
	for _, part := range []string{"q=dev", "production=false", "per_page=1", "page=2"} {
		if !strings.Contains(*p.NextPageURL, part) {
			t.Errorf("next_page_url %s lacks %s", *p.NextPageURL, part)
		}
	}
}

// TestListBranchesBadQuery checks that bad query values are 400.
func TestListBranchesBadQuery(t *testing.T) {
	t.Parallel()
	e := newBranchEnv(t, "app-db")
	for _, q := range []string{"production=maybe", "safe_migrations=yes", "order=sideways", "page=0", "per_page=101", "per_page=x"} {
		status, body := e.raw("GET", e.branchesPath()+"?"+q, "")
		if status != http.StatusBadRequest || !strings.Contains(body, strings.Split(q, "=")[0]) {
			t.Errorf("%s: status %d body %s, want 400 naming the parameter", q, status, body)
		}
	}
}

// TestUpdateBranch checks renames and deletion protection.
func TestUpdateBranch(t *testing.T) {
	t.Parallel()
	e := newBranchEnv(t, "app-db")
	e.create("dev", true)
	e.createFrom("child", "dev", false)
	b, err := e.c.Branches.Update(t.Context(), &platform.UpdateBranchParams{Organization: e.org, Database: e.db, Branch: "dev", NewName: platform.Ptr("renamed"), DeletionProtected: platform.Ptr(true)})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	if b.Name != "renamed" || !b.DeletionProtected {
		t.Errorf("name=%s deletion_protected=%v, want renamed and true", b.Name, b.DeletionProtected)
	}
	if e.exists("dev") {
		t.Error("old name still found")
	}
	if got := e.get("renamed"); got.ID != b.ID {
		t.Errorf("renamed branch has ID %s, want %s", got.ID, b.ID)
	}
	if p := e.get("child").ParentBranch; p == nil || *p != "renamed" {
		t.Errorf("child's parent_branch %v, want renamed", p)
	}
	// Renaming the default branch moves the database's default_branch.
	if _, err := e.c.Branches.Update(t.Context(), &platform.UpdateBranchParams{Organization: e.org, Database: e.db, Branch: "main", NewName: platform.Ptr("trunk")}); err != nil {
		t.Fatalf("renaming main: %v", err)
	}
	db, err := e.c.Databases.Get(t.Context(), &platform.GetDatabaseParams{Organization: e.org, Database: e.db})
	if err != nil {
		t.Fatal(err)
	}
	if db.DefaultBranch != "trunk" {
		t.Errorf("default_branch %s, want trunk", db.DefaultBranch)
	}
	// Turning protection off, and an empty update, change nothing else.
	b, err = e.c.Branches.Update(t.Context(), &platform.UpdateBranchParams{Organization: e.org, Database: e.db, Branch: "renamed", DeletionProtected: platform.Ptr(false)})
	if err != nil || b.DeletionProtected || b.Name != "renamed" {
		t.Errorf("unprotect: %+v, %v", b, err)
	}
}

// TestUpdateBranchRefused checks the 422s of update_branch and that they
// change nothing.
func TestUpdateBranchRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		newName  string
		mentions []string
	}{
		{"name taken", "main", []string{"new_name", "main", "taken"}},
		{"bad name", "Bad_Name", []string{"new_name", "Bad_Name"}},
		{"empty name", "", []string{"new_name"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newBranchEnv(t, "app-db")
			before := e.create("dev", true)
			_, err := e.c.Branches.Update(t.Context(), &platform.UpdateBranchParams{Organization: e.org, Database: e.db, Branch: "dev", NewName: platform.Ptr(tt.newName), DeletionProtected: platform.Ptr(true)})
			apiError(t, err, http.StatusUnprocessableEntity, tt.mentions...)
			if diff := cmp.Diff(before, e.get("dev")); diff != "" {
				t.Errorf("refused update changed the branch (-before +after):\n%s", diff)
			}
		})
	}
}

// TestDeleteBranch checks deletion and its refusals.
func TestDeleteBranch(t *testing.T) {
	t.Parallel()
	e := newBranchEnv(t, "app-db")
	del := func(name string, descendants bool) error {
		return e.c.Branches.Delete(t.Context(), &platform.DeleteBranchParams{Organization: e.org, Database: e.db, Branch: name, DeleteDescendants: descendants})
	}
	e.create("dev", true)
	if err := del("dev", false); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if e.exists("dev") {
		t.Error("deleted branch still found")
	}
	if got := names(e.list(platform.ListBranchesParams{})); !cmp.Equal(got, []string{"main"}) {
		t.Errorf("list after delete: %v", got)
	}
	apiError(t, del("dev", false), http.StatusNotFound)

	apiError(t, del("main", false), http.StatusUnprocessableEntity, "main", "default branch")
	if !e.exists("main") {
		t.Fatal("default branch deleted")
	}

	e.create("kept", true)
	if _, err := e.c.Branches.Update(t.Context(), &platform.UpdateBranchParams{Organization: e.org, Database: e.db, Branch: "kept", DeletionProtected: platform.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	apiError(t, del("kept", false), http.StatusUnprocessableEntity, "kept", "deletion protected")
	if !e.exists("kept") {
		t.Fatal("deletion-protected branch deleted")
	}
	if _, err := e.c.Branches.Update(t.Context(), &platform.UpdateBranchParams{Organization: e.org, Database: e.db, Branch: "kept", DeletionProtected: platform.Ptr(false)}); err != nil {
		t.Fatal(err)
	}
	if err := del("kept", false); err != nil {
		t.Errorf("deleting after unprotecting: %v", err)
	}

	// A name can be reused after a delete; the new branch is a new record.
	e.create("dev", true)
	if got := e.get("dev"); got.Ready != true {
		t.Errorf("recreated branch not ready: %+v", got)
	}
}

// TestDeleteBranchDescendants checks delete_descendants: all or none.
func TestDeleteBranchDescendants(t *testing.T) {
	t.Parallel()
	tree := func(t *testing.T) *branchEnv {
		e := newBranchEnv(t, "app-db")
		// main -> a -> b -> c, a -> d; main -> other
		e.create("a", true)
		e.createFrom("b", "a", true)
		e.createFrom("c", "b", false)
		e.createFrom("d", "a", false)
		e.create("other", false)
		return e
	}
	del := func(e *branchEnv, name string, descendants bool) error {
		return e.c.Branches.Delete(e.t.Context(), &platform.DeleteBranchParams{Organization: e.org, Database: e.db, Branch: name, DeleteDescendants: descendants})
	}
	// Branches created at one instant list in ID order: compare sorted.
	all := func(e *branchEnv) []string {
		got := names(e.list(platform.ListBranchesParams{}))
		slices.Sort(got)
		return got
	}

	t.Run("with descendants", func(t *testing.T) {
		t.Parallel()
		e := tree(t)
		if err := del(e, "a", true); err != nil {
			t.Fatalf("Delete: %v", err)
		}
		if diff := cmp.Diff([]string{"main", "other"}, all(e)); diff != "" {
			t.Errorf("branches left (-want +got):\n%s", diff)
		}
	})
	t.Run("without descendants", func(t *testing.T) {
		t.Parallel()
		e := tree(t)
		if err := del(e, "a", false); err != nil {
			t.Fatalf("Delete: %v", err)
		}
		if diff := cmp.Diff([]string{"b", "c", "d", "main", "other"}, all(e)); diff != "" {
			t.Errorf("branches left (-want +got):\n%s", diff)
		}
	})
	t.Run("protected descendant refuses all", func(t *testing.T) {
		t.Parallel()
		e := tree(t)
		if _, err := e.c.Branches.Update(t.Context(), &platform.UpdateBranchParams{Organization: e.org, Database: e.db, Branch: "c", DeletionProtected: platform.Ptr(true)}); err != nil {
			t.Fatal(err)
		}
		apiError(t, del(e, "a", true), http.StatusUnprocessableEntity, "c", "deletion protected")
		if diff := cmp.Diff([]string{"a", "b", "c", "d", "main", "other"}, all(e)); diff != "" {
			t.Errorf("branches left (-want +got):\n%s", diff)
		}
	})
	t.Run("bad flag", func(t *testing.T) {
		t.Parallel()
		e := tree(t)
		status, body := e.raw("DELETE", e.branchesPath()+"/a?delete_descendants=perhaps", "")
		if status != http.StatusBadRequest || !strings.Contains(body, "delete_descendants") {
			t.Errorf("status %d body %s, want 400 naming delete_descendants", status, body)
		}
		if !e.exists("a") {
			t.Error("branch deleted by a bad request")
		}
	})
}

// TestPromoteDemote checks promote and demote and their refusals.
func TestPromoteDemote(t *testing.T) {
	t.Parallel()
	e := newBranchEnv(t, "app-db")
	ctx := t.Context()
	e.create("young", false)
	_, err := e.c.Branches.Promote(ctx, e.ref("young"))
	apiError(t, err, http.StatusUnprocessableEntity, "young", "not ready")
	if e.get("young").Production {
		t.Fatal("refused promote changed the branch")
	}

	e.create("dev", true)
	b, err := e.c.Branches.Promote(ctx, e.ref("dev"))
	if err != nil || !b.Production {
		t.Fatalf("Promote: %+v, %v", b, err)
	}
	_, err = e.c.Branches.Promote(ctx, e.ref("dev"))
	apiError(t, err, http.StatusUnprocessableEntity, "dev", "already a production branch")

	if _, err := e.c.Branches.EnableSafeMigrations(ctx, e.ref("dev")); err != nil {
		t.Fatalf("EnableSafeMigrations: %v", err)
	}
	b, err = e.c.Branches.Demote(ctx, e.ref("dev"))
	if err != nil || b.Production || b.SafeMigrations {
		t.Fatalf("Demote: production=%v safe_migrations=%v, %v; want both off", b.Production, b.SafeMigrations, err)
	}
	_, err = e.c.Branches.Demote(ctx, e.ref("dev"))
	apiError(t, err, http.StatusUnprocessableEntity, "dev", "not a production branch")

	_, err = e.c.Branches.Demote(ctx, e.ref("main"))
	apiError(t, err, http.StatusUnprocessableEntity, "main", "default branch")
	if !e.get("main").Production {
		t.Fatal("refused demote changed the default branch")
	}
	for _, op := range []func() error{
		func() error { _, err := e.c.Branches.Promote(ctx, e.ref("nope")); return err },
		func() error { _, err := e.c.Branches.Demote(ctx, e.ref("nope")); return err },
	} {
		apiError(t, op(), http.StatusNotFound)
	}
}

// TestSafeMigrations checks enable, update and disable, and their rules.
func TestSafeMigrations(t *testing.T) {
	t.Parallel()
	e := newBranchEnv(t, "app-db")
	ctx := t.Context()
	update := func(name string, on bool) (*platform.Branch, error) {
		return e.c.Branches.UpdateSafeMigrations(ctx, &platform.UpdateSafeMigrationsParams{Organization: e.org, Database: e.db, Branch: name, SafeMigrations: on})
	}

	e.create("dev", true)
	_, err := e.c.Branches.EnableSafeMigrations(ctx, e.ref("dev"))
	apiError(t, err, http.StatusUnprocessableEntity, "dev", "not a production branch")
	_, err = update("dev", true)
	apiError(t, err, http.StatusUnprocessableEntity, "dev", "not a production branch")

	e.push("main", "CREATE TABLE logs (msg text)", "CREATE TABLE users (id int PRIMARY KEY)")
	_, err = e.c.Branches.EnableSafeMigrations(ctx, e.ref("main"))
	apiError(t, err, http.StatusUnprocessableEntity, "lint", "logs", "NO_UNIQUE_KEY")
	_, err = update("main", true)
	apiError(t, err, http.StatusUnprocessableEntity, "logs")
	if e.get("main").SafeMigrations {
		t.Fatal("refused enable turned safe migrations on")
	}

	e.push("main", "CREATE TABLE logs (id int, msg text, UNIQUE KEY (id))")
	b, err := e.c.Branches.EnableSafeMigrations(ctx, e.ref("main"))
	if err != nil || !b.SafeMigrations {
		t.Fatalf("EnableSafeMigrations: %+v, %v", b, err)
	}
	if b, err = e.c.Branches.EnableSafeMigrations(ctx, e.ref("main")); err != nil || !b.SafeMigrations {
		t.Errorf("enabling again: %+v, %v; want no change", b, err)
	}
	if b, err = update("main", false); err != nil || b.SafeMigrations {
		t.Errorf("update to false: %+v, %v", b, err)
	}
	if b, err = update("main", true); err != nil || !b.SafeMigrations {
		t.Errorf("update to true: %+v, %v", b, err)
	}
	if b, err = e.c.Branches.DisableSafeMigrations(ctx, e.ref("main")); err != nil || b.SafeMigrations {
		t.Errorf("Disable: %+v, %v", b, err)
	}
	if b, err = e.c.Branches.DisableSafeMigrations(ctx, e.ref("main")); err != nil || b.SafeMigrations {
		t.Errorf("disabling again: %+v, %v; want no change", b, err)
	}
}

// TestSafeMigrationsPendingBranch checks that a production branch that is
// not ready yet cannot have safe migrations.
func TestSafeMigrationsPendingBranch(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	c := srv.Client()
	if _, err := c.Databases.Create(t.Context(), &platform.CreateDatabaseParams{Organization: srv.Org(), Name: "app-db", ClusterSize: "PS_10"}); err != nil {
		t.Fatal(err)
	}
	_, err := c.Branches.EnableSafeMigrations(t.Context(), &platform.BranchParams{Organization: srv.Org(), Database: "app-db", Branch: "main"})
	apiError(t, err, http.StatusUnprocessableEntity, "main", "not ready")
}

// TestUpdateSafeMigrationsBody checks the body of update_safe_migrations:
// the field is required, and must be a boolean.
func TestUpdateSafeMigrationsBody(t *testing.T) {
	t.Parallel()
	e := newBranchEnv(t, "app-db")
	path := e.branchesPath() + "/main/safe-migrations"
	for _, tt := range []struct {
		body   string
		status int
	}{
		{`{}`, http.StatusUnprocessableEntity},
		{``, http.StatusUnprocessableEntity},
		{`{"safe_migrations": null}`, http.StatusUnprocessableEntity},
		{`{"safe_migrations": "yes"}`, http.StatusBadRequest},
		{`{"safe_migrations": true`, http.StatusBadRequest},
	} {
		status, body := e.raw("PUT", path, tt.body)
		if status != tt.status || !strings.Contains(body, "safe_migrations") && status == http.StatusUnprocessableEntity {
			t.Errorf("body %s: status %d %s, want %d naming safe_migrations", tt.body, status, body, tt.status)
		}
	}
	if e.get("main").SafeMigrations {
		t.Error("a refused request turned safe migrations on")
	}
}

// TestBranchPermissions checks that a token lacking an operation's
// permission gets 404 and changes nothing, and that one holding it, at the
// organization or on the database, succeeds.
func TestBranchPermissions(t *testing.T) {
	t.Parallel()
	readOnly := []string{"read_branch"}
	everythingBut := func(perm ...string) []string {
		var out []string
		for _, p := range permissionNames() {
			drop := false
			for _, q := range perm {
				drop = drop || p == q
			}
			if !drop {
				out = append(out, p)
			}
		}
		return out
	}
	type op struct {
		name    string
		perms   []string // a set lacking the operation's permission
		granted []string // a set holding it
		call    func(e *branchEnv, c *platform.Client) error
		check   func(e *branchEnv) // asserts the world did not change
	}
	ops := []op{{
		name: "create", perms: readOnly, granted: []string{"create_branch"},
		call: func(e *branchEnv, c *platform.Client) error {
			_, err := c.Branches.Create(e.t.Context(), &platform.CreateBranchParams{Organization: e.org, Database: e.db, Name: "new"})
			return err
		},
		check: func(e *branchEnv) {
			if e.exists("new") {
				e.t.Error("branch created")
			}
		},
	}, {
		name: "update", perms: everythingBut("write_database"), granted: []string{"write_database"},
		call: func(e *branchEnv, c *platform.Client) error {
			_, err := c.Branches.Update(e.t.Context(), &platform.UpdateBranchParams{Organization: e.org, Database: e.db, Branch: "dev", DeletionProtected: platform.Ptr(true)})
			return err
		},
		check: func(e *branchEnv) {
			if e.get("dev").DeletionProtected {
				e.t.Error("branch updated")
			}
		},
	}, {
		name: "delete", perms: everythingBut("delete_branch"), granted: []string{"delete_branch"},
		call: func(e *branchEnv, c *platform.Client) error {
			return c.Branches.Delete(e.t.Context(), &platform.DeleteBranchParams{Organization: e.org, Database: e.db, Branch: "dev"})
		},
		check: func(e *branchEnv) {
			if !e.exists("dev") {
				e.t.Error("branch deleted")
			}
		},
	}, {
		name: "promote", perms: everythingBut("promote_branches", "connect_production_branch"), granted: []string{"promote_branches"},
		call: func(e *branchEnv, c *platform.Client) error {
			_, err := c.Branches.Promote(e.t.Context(), e.ref("dev"))
			return err
		},
		check: func(e *branchEnv) {
			if e.get("dev").Production {
				e.t.Error("branch promoted")
			}
		},
	}, {
		name: "demote", perms: everythingBut("demote_branches", "connect_production_branch"), granted: []string{"connect_production_branch"},
		call: func(e *branchEnv, c *platform.Client) error {
			_, err := c.Branches.Demote(e.t.Context(), e.ref("prod"))
			return err
		},
		check: func(e *branchEnv) {
			if !e.get("prod").Production {
				e.t.Error("branch demoted")
			}
		},
	}}
	readers := []string{"read_branch", "delete_branch", "create_branch", "connect_production_branch", "connect_branch"}
	for _, read := range []struct {
		name string
		call func(e *branchEnv, c *platform.Client) error
	}{
		{"list", func(e *branchEnv, c *platform.Client) error {
			_, err := c.Branches.List(e.t.Context(), &platform.ListBranchesParams{Organization: e.org, Database: e.db})
			return err
		}},
		{"get", func(e *branchEnv, c *platform.Client) error {
			_, err := c.Branches.Get(e.t.Context(), e.ref("dev"))
			return err
		}},
		{"schema", func(e *branchEnv, c *platform.Client) error {
			_, err := c.Branches.GetSchema(e.t.Context(), &platform.GetBranchSchemaParams{Organization: e.org, Database: e.db, Branch: "dev"})
			return err
		}},
		{"lint", func(e *branchEnv, c *platform.Client) error {
			_, err := c.Branches.LintSchema(e.t.Context(), &platform.LintBranchSchemaParams{Organization: e.org, Database: e.db, Branch: "dev"})
			return err
		}},
	} {
		ops = append(ops, op{name: read.name, perms: everythingBut(readers...), granted: []string{"connect_branch"}, call: read.call, check: func(*branchEnv) {}})
	}
	for _, o := range ops {
		t.Run(o.name, func(t *testing.T) {
			t.Parallel()
			e := newBranchEnv(t, "app-db")
			e.createDatabase("other", platform.KindMySQL)
			e.create("dev", true)
			e.create("prod", true)
			if _, err := e.c.Branches.Promote(t.Context(), e.ref("prod")); err != nil {
				t.Fatal(err)
			}
			lacking, err := e.srv.CreateServiceToken(e.org, fake.TokenSpec{Name: "lacking", Permissions: permissions(o.perms...)})
			if err != nil {
				t.Fatal(err)
			}
			apiError(t, o.call(e, e.srv.ClientFor(lacking)), http.StatusNotFound)
			o.check(e)

			// Granted on another database only: still not found.
			elsewhere, err := e.srv.CreateServiceToken(e.org, fake.TokenSpec{Name: "elsewhere", DatabasePermissions: map[string][]platform.Permission{"other": permissions(o.granted...)}})
			if err != nil {
				t.Fatal(err)
			}
			apiError(t, o.call(e, e.srv.ClientFor(elsewhere)), http.StatusNotFound)
			o.check(e)

			// Granted on this database: allowed.
			here, err := e.srv.CreateServiceToken(e.org, fake.TokenSpec{Name: "here", DatabasePermissions: map[string][]platform.Permission{e.db: permissions(o.granted...)}})
			if err != nil {
				t.Fatal(err)
			}
			if err := o.call(e, e.srv.ClientFor(here)); err != nil {
				t.Errorf("with %v on the database: %v", o.granted, err)
			}
		})
	}
}

// TestSafeMigrationsNeedWriteDatabase pins operations.tsv, which gives
// the safe-migrations operations write_database: a token without it gets
// the 404 of a missing resource and changes nothing, one holding it on the
// database may, and a token of another organization may not.
func TestSafeMigrationsNeedWriteDatabase(t *testing.T) {
	t.Parallel()
	e := newBranchEnv(t, "app-db")
	bare, err := e.srv.CreateServiceToken(e.org, fake.TokenSpec{Name: "bare", DatabasePermissions: map[string][]platform.Permission{e.db: {"read_branch"}}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.srv.ClientFor(bare).Branches.EnableSafeMigrations(t.Context(), e.ref("main"))
	apiError(t, err, http.StatusNotFound)
	if e.get("main").SafeMigrations {
		t.Fatal("a token without write_database turned safe migrations on")
	}
	writer, err := e.srv.CreateServiceToken(e.org, fake.TokenSpec{Name: "writer", DatabasePermissions: map[string][]platform.Permission{e.db: {"write_database"}}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := e.srv.ClientFor(writer).Branches.EnableSafeMigrations(t.Context(), e.ref("main"))
	if err != nil || !b.SafeMigrations {
		t.Fatalf("EnableSafeMigrations with write_database: %+v, %v", b, err)
	}
	if err := e.srv.CreateOrganization("rival"); err != nil {
		t.Fatal(err)
	}
	if err := e.srv.AddMember("rival", e.srv.AdminUserID(), platform.RoleAdmin); err != nil {
		t.Fatal(err)
	}
	outsider, err := e.srv.CreateServiceToken("rival", fake.TokenSpec{Name: "outsider", Permissions: fake.AllPermissions()})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.srv.ClientFor(outsider).Branches.DisableSafeMigrations(t.Context(), e.ref("main"))
	apiError(t, err, http.StatusNotFound)
	if !e.get("main").SafeMigrations {
		t.Error("a token of another organization turned safe migrations off")
	}
}

// TestBranchErrorsAreAPIErrors checks that a refusal reaches the SDK as a
// classified error.
func TestBranchErrorsAreAPIErrors(t *testing.T) {
	t.Parallel()
	e := newBranchEnv(t, "app-db")
	err := e.c.Branches.Delete(t.Context(), &platform.DeleteBranchParams{Organization: e.org, Database: e.db, Branch: "main"})
	if !errors.Is(err, platform.ErrUnprocessable) {
		t.Errorf("error %v, want ErrUnprocessable", err)
	}
}

// TestBranchClusterFields checks what the service's official client reads
// of a branch besides the reference's fields: its cluster size's display
// name and architecture (its replicas: TestBranchReplicas).
func TestBranchClusterFields(t *testing.T) {
	t.Parallel()
	e := newBranchEnv(t, "app-db")
	main := e.get("main")
	dev := e.create("dev", true)
	if main.ClusterDisplayName != "PS-10" || main.ClusterArchitecture != nil {
		t.Errorf("main: display name %q, architecture %v; want PS-10, none", main.ClusterDisplayName, main.ClusterArchitecture)
	}
	if dev.ClusterDisplayName == "" {
		t.Errorf("dev: display name %q, want its size's", dev.ClusterDisplayName)
	}
	// A Metal size: the branch and its keyspace say so.
	if _, err := e.c.Databases.Create(t.Context(), &platform.CreateDatabaseParams{Organization: e.org, Name: "metal-db", ClusterSize: "M_160"}); err != nil {
		t.Fatal(err)
	}
	e.srv.Advance(time.Hour)
	b, err := e.c.Branches.Get(t.Context(), &platform.BranchParams{Organization: e.org, Database: "metal-db", Branch: "main"})
	if err != nil {
		t.Fatal(err)
	}
	ks, err := e.c.Keyspaces.Get(t.Context(), &platform.KeyspaceParams{Organization: e.org, Database: "metal-db", Branch: "main", Keyspace: "metal-db"})
	if err != nil {
		t.Fatal(err)
	}
	if !b.Metal || !ks.Metal || main.Metal {
		t.Errorf("metal: an M_160 branch %t and keyspace %t, a PS_10 branch %t; want true, true, false", b.Metal, ks.Metal, main.Metal)
	}
}

// TestBranchReplicas checks a branch's replicas and has_replicas, which
// the service's official client reads: a branch shows its default
// keyspace's replicas, which on a production branch create_database's
// replicas sets (0 for no high availability), and a change request or a
// keyspace resize moves; a development branch includes none.
func TestBranchReplicas(t *testing.T) {
	t.Parallel()
	e := newBranchEnv(t, "app-db")
	for _, db := range []struct {
		name     string
		kind     platform.DatabaseKind
		replicas *int
	}{
		{"default-my", platform.KindMySQL, nil},
		{"three-my", platform.KindMySQL, platform.Ptr(3)},
		{"single-my", platform.KindMySQL, platform.Ptr(0)},
		{"default-pg", platform.KindPostgreSQL, nil},
		{"single-pg", platform.KindPostgreSQL, platform.Ptr(0)},
	} {
		if _, err := e.c.Databases.Create(t.Context(), &platform.CreateDatabaseParams{Organization: e.org, Name: db.name, ClusterSize: "PS_10", Kind: db.kind, Replicas: db.replicas}); err != nil {
			t.Fatalf("%s: %v", db.name, err)
		}
	}
	e.srv.Advance(time.Hour)
	type replicas struct {
		Replicas    int
		HasReplicas bool
	}
	read := func(db, branch string) replicas {
		t.Helper()
		b, err := e.c.Branches.Get(t.Context(), &platform.BranchParams{Organization: e.org, Database: db, Branch: branch})
		if err != nil {
			t.Fatalf("%s/%s: %v", db, branch, err)
		}
		return replicas{b.Replicas, b.HasReplicas}
	}
	ks := func(db string) int {
		t.Helper()
		k, err := e.c.Keyspaces.Get(t.Context(), &platform.KeyspaceParams{Organization: e.org, Database: db, Branch: "main", Keyspace: db})
		if err != nil {
			t.Fatalf("%s's keyspace: %v", db, err)
		}
		return k.Replicas
	}
	want := map[string]replicas{
		"default-my": {2, true}, "three-my": {3, true}, "single-my": {0, false},
		"default-pg": {2, true}, "single-pg": {0, false},
	}
	for db, w := range want {
		if diff := cmp.Diff(w, read(db, "main")); diff != "" {
			t.Errorf("%s's main (-want +got):\n%s", db, diff)
		}
		if w.Replicas != ks(db) {
			t.Errorf("%s's main shows %d replicas, its default keyspace %d", db, w.Replicas, ks(db))
		}
	}
	if got := e.create("dev", true); got.Replicas != 0 || got.HasReplicas {
		t.Errorf("a development branch: replicas %d, has_replicas %t; want none", got.Replicas, got.HasReplicas)
	}

	// A database without high availability takes replicas from 0, one
	// with it from the two its production branches include.
	for db, n := range map[string]int{"default-pg": 4, "single-pg": 1} {
		if _, err := e.c.BranchChanges.UpdateChange(t.Context(), &platform.UpdateBranchChangeRequestParams{Organization: e.org, Database: db, Branch: "main", Replicas: platform.Ptr(n)}); err != nil {
			t.Fatalf("%s: a change to %d replicas: %v", db, n, err)
		}
	}
	e.srv.Advance(24 * time.Hour)
	_, err := e.c.BranchChanges.UpdateChange(t.Context(), &platform.UpdateBranchChangeRequestParams{Organization: e.org, Database: "default-pg", Branch: "main", Replicas: platform.Ptr(1)})
	if !errors.Is(err, platform.ErrUnprocessable) {
		t.Errorf("one replica on a highly available branch: %v, want a 422", err)
	}
	if _, err := e.c.Keyspaces.Resize(t.Context(), &platform.ResizeKeyspaceParams{Organization: e.org, Database: "three-my", Branch: "main", Keyspace: "three-my", ExtraReplicas: platform.Ptr(3)}); err != nil {
		t.Fatalf("a keyspace resize: %v", err)
	}
	pgDev := &platform.CreateBranchParams{Organization: e.org, Database: "default-pg", Name: "dev", ParentBranch: "main"}
	if _, err := e.c.Branches.Create(t.Context(), pgDev); err != nil {
		t.Fatal(err)
	}
	e.srv.Advance(time.Hour)
	if _, err := e.c.BranchChanges.UpdateChange(t.Context(), &platform.UpdateBranchChangeRequestParams{Organization: e.org, Database: "default-pg", Branch: "dev", Replicas: platform.Ptr(1)}); err != nil {
		t.Fatalf("a change to 1 replica on a development branch: %v", err)
	}
	e.srv.Advance(24 * time.Hour)
	for db, w := range map[string]replicas{"default-pg": {4, true}, "single-pg": {1, true}, "three-my": {5, true}} {
		if diff := cmp.Diff(w, read(db, "main")); diff != "" {
			t.Errorf("%s's main after the change (-want +got):\n%s", db, diff)
		}
	}
	if diff := cmp.Diff(replicas{1, true}, read("default-pg", "dev")); diff != "" {
		t.Errorf("a development branch after a change to 1 replica (-want +got):\n%s", diff)
	}
}
