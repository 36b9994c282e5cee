package fake_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/google/go-cmp/cmp"
)

// TestSchemaCopiedFromParent checks that a new branch starts with its
// parent's schema and that the two change independently afterwards.
func TestSchemaCopiedFromParent(t *testing.T) {
	t.Parallel()
	e := newBranchEnv(t, "shop")
	e.push("main", "CREATE TABLE users (id int PRIMARY KEY)", "CREATE TABLE logs (msg text)")
	mainSchema := e.schema("main")

	e.create("dev", false)
	if diff := cmp.Diff(mainSchema, e.schema("dev")); diff != "" {
		t.Fatalf("pending branch's schema differs from its parent's (-parent +branch):\n%s", diff)
	}
	e.srv.Advance(5 * time.Second)

	e.push("dev", "DROP TABLE users", "CREATE TABLE extra (id int PRIMARY KEY)")
	if diff := cmp.Diff(mainSchema, e.schema("main")); diff != "" {
		t.Errorf("pushing to the branch changed the parent (-before +after):\n%s", diff)
	}
	devSchema := e.schema("dev")
	e.push("main", "CREATE TABLE later (id int PRIMARY KEY)", "DROP TABLE logs")
	if diff := cmp.Diff(devSchema, e.schema("dev")); diff != "" {
		t.Errorf("pushing to the parent changed the branch (-before +after):\n%s", diff)
	}

	e.createFrom("grandchild", "dev", false)
	if diff := cmp.Diff(devSchema, e.schema("grandchild")); diff != "" {
		t.Errorf("grandchild's schema differs from dev's (-dev +grandchild):\n%s", diff)
	}
}

// TestGetBranchSchema checks the schema's form and order, and the keyspace
// and namespace selectors.
func TestGetBranchSchema(t *testing.T) {
	t.Parallel()
	e := newBranchEnv(t, "shop")
	status, body := e.raw("GET", e.branchesPath()+"/main/schema", "")
	if status != http.StatusOK || strings.TrimSpace(body) != `{"data":[]}` {
		t.Errorf("empty schema: %d %s, want 200 {\"data\":[]}", status, body)
	}

	e.push("main", "CREATE TABLE zeta (id int PRIMARY KEY, note varchar(9) DEFAULT '<b>')", "create table `alpha` (id int primary key)")
	get := func(q platform.GetBranchSchemaParams) (*platform.BranchSchema, error) {
		q.Organization, q.Database, q.Branch = e.org, e.db, "main"
		return e.c.Branches.GetSchema(t.Context(), &q)
	}
	want := &platform.BranchSchema{Tables: []*platform.TableSchema{
		{Name: "alpha", Raw: "CREATE TABLE `alpha` (id int primary key)", HTML: "<pre>CREATE TABLE `alpha` (id int primary key)</pre>"},
		{Name: "zeta", Raw: "CREATE TABLE `zeta` (id int PRIMARY KEY, note varchar(9) DEFAULT '<b>')", HTML: "<pre>CREATE TABLE `zeta` (id int PRIMARY KEY, note varchar(9) DEFAULT &#39;&lt;b&gt;&#39;)</pre>"},
	}}
	for _, q := range []platform.GetBranchSchemaParams{{}, {Keyspace: "shop"}} {
		got, err := get(q)
		if err != nil {
			t.Fatalf("GetSchema %+v: %v", q, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("GetSchema %+v (-want +got):\n%s", q, diff)
		}
	}
	_, err := get(platform.GetBranchSchemaParams{Keyspace: "nope"})
	apiError(t, err, http.StatusNotFound)
	_, err = get(platform.GetBranchSchemaParams{Namespace: "shop"})
	apiError(t, err, http.StatusBadRequest, "namespace", "postgresql")
	_, err = get(platform.GetBranchSchemaParams{Keyspace: "shop", Namespace: "shop"})
	apiError(t, err, http.StatusBadRequest, "keyspace", "namespace")
	_, err = e.c.Branches.GetSchema(t.Context(), &platform.GetBranchSchemaParams{Organization: e.org, Database: e.db, Branch: "nope"})
	apiError(t, err, http.StatusNotFound)
}

// TestGetBranchSchemaPostgreSQL checks the namespace selector on a
// PostgreSQL database, whose schemas the fake keeps like keyspaces.
func TestGetBranchSchemaPostgreSQL(t *testing.T) {
	t.Parallel()
	e := newBranchEnv(t, "shop")
	e.createDatabase("pg", platform.KindPostgreSQL)
	if err := e.srv.PushSchema(e.org, "pg", "main", "CREATE TABLE t (id int PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	for _, ns := range []string{"pg", "public"} {
		s, err := e.c.Branches.GetSchema(t.Context(), &platform.GetBranchSchemaParams{Organization: e.org, Database: "pg", Branch: "main", Namespace: ns})
		if err != nil || len(s.Tables) != 1 || s.Tables[0].Name != "t" {
			t.Fatalf("GetSchema by namespace %s: %+v, %v", ns, s, err)
		}
	}
	_, err := e.c.Branches.GetSchema(t.Context(), &platform.GetBranchSchemaParams{Organization: e.org, Database: "pg", Branch: "main", Namespace: "sales"})
	apiError(t, err, http.StatusNotFound)
	_, err = e.c.Branches.GetSchema(t.Context(), &platform.GetBranchSchemaParams{Organization: e.org, Database: "pg", Branch: "main", Keyspace: "pg"})
	apiError(t, err, http.StatusBadRequest, "keyspace", "mysql")
	_, err = e.c.Branches.GetSchema(t.Context(), &platform.GetBranchSchemaParams{Organization: e.org, Database: "shop", Branch: "main", Namespace: "public"})
	apiError(t, err, http.StatusBadRequest, "namespace", "postgresql")
}

// TestPushSchema checks each kind of statement, and that a failing push
// changes nothing at all.
func TestPushSchema(t *testing.T) {
	t.Parallel()
	const users = "CREATE TABLE `users` (id int PRIMARY KEY)"
	tests := []struct {
		name    string
		ddl     []string
		want    map[string]string // the schema after; nil: unchanged
		wantErr string            // a word the error names; "": no error
	}{
		{
			name: "create",
			ddl:  []string{"CREATE TABLE orders (id int PRIMARY KEY)"},
			want: map[string]string{"users": users, "orders": "CREATE TABLE `orders` (id int PRIMARY KEY)"},
		},
		{
			name: "create with any head",
			ddl:  []string{"create   table if not exists `orders`(\n  id int\n);"},
			want: map[string]string{"users": users, "orders": "CREATE TABLE `orders` (\n  id int\n)"},
		},
		{
			name: "replace",
			ddl:  []string{"CREATE TABLE users (id bigint PRIMARY KEY)"},
			want: map[string]string{"users": "CREATE TABLE `users` (id bigint PRIMARY KEY)"},
		},
		{
			name: "if not exists keeps the table",
			ddl:  []string{"CREATE TABLE IF NOT EXISTS users (other int)"},
			want: map[string]string{"users": users},
		},
		{
			name: "drop",
			ddl:  []string{"DROP TABLE users"},
			want: map[string]string{},
		},
		{
			name: "drop if exists a missing table",
			ddl:  []string{"DROP TABLE IF EXISTS nope"},
			want: map[string]string{"users": users},
		},
		{
			name: "create then drop",
			ddl:  []string{"CREATE TABLE tmp (id int)", "DROP TABLE tmp"},
			want: map[string]string{"users": users},
		},
		{
			name: "keyspace-qualified",
			ddl:  []string{"CREATE TABLE shop.orders (id int PRIMARY KEY)", "CREATE TABLE `shop`.`items` (id int PRIMARY KEY)", "DROP TABLE shop.users"},
			want: map[string]string{"orders": "CREATE TABLE `orders` (id int PRIMARY KEY)", "items": "CREATE TABLE `items` (id int PRIMARY KEY)"},
		},
		{
			name: "several statements in one text",
			ddl:  []string{"CREATE TABLE a (id int PRIMARY KEY, s varchar(3) DEFAULT ';');\nCREATE TABLE b (id int PRIMARY KEY, s varchar(3) DEFAULT 'x\\';');"},
			want: map[string]string{
				"users": users,
				"a":     "CREATE TABLE `a` (id int PRIMARY KEY, s varchar(3) DEFAULT ';')",
				"b":     "CREATE TABLE `b` (id int PRIMARY KEY, s varchar(3) DEFAULT 'x\\';')",
			},
		},
		{name: "drop a missing table", ddl: []string{"CREATE TABLE orders (id int PRIMARY KEY)", "DROP TABLE nope"}, wantErr: "nope"},
		{name: "unknown keyspace", ddl: []string{"CREATE TABLE orders (id int PRIMARY KEY)", "CREATE TABLE other.t (id int)"}, wantErr: "other"},
		{name: "not a CREATE or DROP", ddl: []string{"DROP TABLE users", "ALTER TABLE users ADD x int"}, wantErr: "ALTER"},
		{name: "no statements", ddl: []string{" ; "}, wantErr: "no statements"},
		{name: "nothing", ddl: nil, wantErr: "no statements"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newBranchEnv(t, "shop")
			e.push("main", "CREATE TABLE users (id int PRIMARY KEY)")
			before := e.get("main")
			e.srv.Advance(time.Minute)
			err := e.srv.PushSchema(e.org, e.db, "main", tt.ddl...)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one naming %q", err, tt.wantErr)
				}
				if diff := cmp.Diff(map[string]string{"users": users}, e.schema("main")); diff != "" {
					t.Errorf("failed push changed the schema (-before +after):\n%s", diff)
				}
				if diff := cmp.Diff(before, e.get("main")); diff != "" {
					t.Errorf("failed push changed the branch (-before +after):\n%s", diff)
				}
				return
			}
			if err != nil {
				t.Fatalf("PushSchema: %v", err)
			}
			if diff := cmp.Diff(tt.want, e.schema("main")); diff != "" {
				t.Errorf("schema (-want +got):\n%s", diff)
			}
			after := e.get("main")
			if after.SchemaLastUpdatedAt == nil || !after.SchemaLastUpdatedAt.Equal(e.srv.Now()) || !after.UpdatedAt.Equal(e.srv.Now()) {
				t.Errorf("schema_last_updated_at %v updated_at %v, want now %v", after.SchemaLastUpdatedAt, after.UpdatedAt, e.srv.Now())
			}
		})
	}
}

// TestPushSchemaRefused checks the branches PushSchema refuses, leaving
// their schema as it was.
func TestPushSchemaRefused(t *testing.T) {
	t.Parallel()
	e := newBranchEnv(t, "shop")
	e.push("main", "CREATE TABLE users (id int PRIMARY KEY)")
	e.create("young", false)
	if _, err := e.c.Branches.EnableSafeMigrations(t.Context(), e.ref("main")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, org, db, branch, word string
	}{
		{"safe migrations on", e.org, e.db, "main", "safe migrations"},
		{"pending branch", e.org, e.db, "young", "not ready"},
		{"unknown branch", e.org, e.db, "nope", "nope"},
		{"unknown database", e.org, "nope", "main", "nope"},
		{"unknown organization", "nope", e.db, "main", "nope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := e.srv.PushSchema(tt.org, tt.db, tt.branch, "CREATE TABLE extra (id int PRIMARY KEY)")
			if err == nil || !strings.Contains(err.Error(), tt.word) {
				t.Fatalf("error %v, want one naming %q", err, tt.word)
			}
		})
	}
	t.Run("schemas unchanged", func(t *testing.T) {
		t.Parallel()
		want := map[string]string{"users": "CREATE TABLE `users` (id int PRIMARY KEY)"}
		for _, b := range []string{"main", "young"} {
			if diff := cmp.Diff(want, e.with(t).schema(b)); diff != "" {
				t.Errorf("%s (-want +got):\n%s", b, diff)
			}
		}
	})
}

// TestPushSchemaAfterDisablingSafeMigrations checks that direct DDL comes
// back when safe migrations go off.
func TestPushSchemaAfterDisablingSafeMigrations(t *testing.T) {
	t.Parallel()
	e := newBranchEnv(t, "shop")
	if _, err := e.c.Branches.EnableSafeMigrations(t.Context(), e.ref("main")); err != nil {
		t.Fatal(err)
	}
	if err := e.srv.PushSchema(e.org, e.db, "main", "CREATE TABLE t (id int PRIMARY KEY)"); err == nil {
		t.Fatal("push accepted with safe migrations on")
	}
	if _, err := e.c.Branches.DisableSafeMigrations(t.Context(), e.ref("main")); err != nil {
		t.Fatal(err)
	}
	e.push("main", "CREATE TABLE t (id int PRIMARY KEY)")
	if _, ok := e.schema("main")["t"]; !ok {
		t.Error("table missing after the push")
	}
}

// TestLintBranchSchema checks the NO_UNIQUE_KEY rule and the pages of
// lint_branch_schema.
func TestLintBranchSchema(t *testing.T) {
	t.Parallel()
	e := newBranchEnv(t, "shop")
	lint := func(page, per int) *platform.Page[platform.LintError] {
		t.Helper()
		p, err := e.c.Branches.LintSchema(t.Context(), &platform.LintBranchSchemaParams{Organization: e.org, Database: e.db, Branch: "main", ListParams: platform.ListParams{Page: page, PerPage: per}})
		if err != nil {
			t.Fatalf("LintSchema: %v", err)
		}
		return p
	}
	if p := lint(0, 0); len(p.Items) != 0 || p.HasNext() {
		t.Errorf("empty schema has lint errors: %+v", p.Items)
	}
	e.push("main",
		"CREATE TABLE a (id int PRIMARY KEY)",
		"CREATE TABLE b (id int, UNIQUE KEY u (id))",
		"CREATE TABLE c (id int UNIQUE)",
		"CREATE TABLE d (unique_id int, KEY k (unique_id))",
		"CREATE TABLE e (msg text)",
		"CREATE TABLE f (id int, primary key (id))",
	)
	var tables []string
	for _, le := range lint(1, 25).Items {
		tables = append(tables, le.TableName)
		if le.LintError != platform.LintNoUniqueKey || le.SubjectType != platform.LintSubjectTable || le.KeyspaceName != "shop" {
			t.Errorf("lint error %+v, want NO_UNIQUE_KEY on a table of keyspace shop", le)
		}
		if !strings.Contains(le.ErrorDescription, le.TableName) || le.DocsURL == "" {
			t.Errorf("lint error description %q docs %q", le.ErrorDescription, le.DocsURL)
		}
		if le.ForeignKeyColumnNames == nil || le.AutoIncrementColumnNames == nil {
			t.Errorf("lint error arrays are null: %+v", le)
		}
	}
	if diff := cmp.Diff([]string{"d", "e"}, tables); diff != "" {
		t.Errorf("tables with lint errors (-want +got):\n%s", diff)
	}

	first, second, third := lint(1, 1), lint(2, 1), lint(3, 1)
	if len(first.Items) != 1 || first.Items[0].TableName != "d" || first.NextPage == nil || *first.NextPage != 2 || first.PrevPage != nil {
		t.Errorf("page 1: %+v", first)
	}
	if len(second.Items) != 1 || second.Items[0].TableName != "e" || second.HasNext() || second.PrevPage == nil || *second.PrevPage != 1 {
		t.Errorf("page 2: %+v", second)
	}
	if len(third.Items) != 0 || third.HasNext() {
		t.Errorf("page past the end: %+v", third)
	}
	if first.TotalCount != nil {
		t.Errorf("lint pages report total_count %d; the reference's lint list has no totals", *first.TotalCount)
	}

	e.push("main", "DROP TABLE d", "CREATE TABLE e (msg text, id int PRIMARY KEY)")
	if p := lint(1, 25); len(p.Items) != 0 {
		t.Errorf("lint errors after fixing every table: %+v", p.Items)
	}
	_, err := e.c.Branches.LintSchema(t.Context(), &platform.LintBranchSchemaParams{Organization: e.org, Database: e.db, Branch: "nope"})
	apiError(t, err, http.StatusNotFound)
}
