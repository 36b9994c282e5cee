package fake_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// recEnv is a fake with database app, whose production branch main has
// safe migrations off, so that tests push its schema directly.
type recEnv struct {
	t   *testing.T
	srv *fake.Server
	c   *platform.Client
	org string
}

func newRecEnv(t *testing.T) *recEnv {
	t.Helper()
	srv := fake.NewServer(t)
	mustDB(t, srv, drDB)
	srv.Advance(5 * time.Second)
	return &recEnv{t: t, srv: srv, c: srv.Client(), org: srv.Org()}
}

// push changes a branch's schema.
func (e *recEnv) push(branch string, stmts ...string) {
	e.t.Helper()
	if err := e.srv.PushSchema(e.org, drDB, branch, stmts...); err != nil {
		e.t.Fatal(err)
	}
}

// recBrief is what the tests compare of a recommendation.
type recBrief struct {
	Number int
	State  platform.SchemaRecommendationState
	Type   platform.SchemaRecommendationType
	Table  string
	DDL    string
}

// briefs lists app's recommendations with state (any when empty).
func (e *recEnv) briefs(state platform.SchemaRecommendationState) []recBrief {
	e.t.Helper()
	out := []recBrief{}
	for r, err := range e.c.SchemaRecommendations.All(e.t.Context(), &platform.ListSchemaRecommendationsParams{Organization: e.org, Database: drDB, State: state}) {
		if err != nil {
			e.t.Fatal(err)
		}
		out = append(out, recBrief{r.Number, r.State, r.RecommendationType, r.TableName, r.DDLStatement})
	}
	return out
}

// get returns recommendation n.
func (e *recEnv) get(n int) *platform.SchemaRecommendation {
	e.t.Helper()
	r, err := e.c.SchemaRecommendations.Get(e.t.Context(), &platform.GetSchemaRecommendationParams{Organization: e.org, Database: drDB, Number: n})
	if err != nil {
		e.t.Fatal(err)
	}
	return r
}

// openCount is app's open_schema_recommendations_count.
func (e *recEnv) openCount() int {
	e.t.Helper()
	db, err := e.c.Databases.Get(e.t.Context(), &platform.GetDatabaseParams{Organization: e.org, Database: drDB})
	if err != nil {
		e.t.Fatal(err)
	}
	return db.OpenSchemaRecommendationsCount
}

func TestSchemaRecommendationRules(t *testing.T) {
	t.Parallel()
	open := platform.RecommendationOpen
	dup := platform.RecommendationDuplicateIndex
	for _, tc := range []struct {
		name string
		ddl  string
		want []recBrief
	}{
		{"a primary key and no other index", "CREATE TABLE t (id bigint NOT NULL, PRIMARY KEY (id))", nil},
		{"a primary key on its column", "CREATE TABLE t (id bigint NOT NULL PRIMARY KEY, name text)", nil},
		{"a named primary key constraint", "CREATE TABLE t (id bigint NOT NULL, CONSTRAINT pk PRIMARY KEY (id))", nil},
		{"no primary key, no id column", "CREATE TABLE t (email varchar(64) NOT NULL, UNIQUE KEY email (email))", []recBrief{
			{1, open, platform.RecommendationNewIndex, "t", "ALTER TABLE `t` ADD COLUMN `id` bigint unsigned NOT NULL AUTO_INCREMENT PRIMARY KEY FIRST"},
		}},
		{"no primary key, an id column", "CREATE TABLE t (`ID` bigint NOT NULL, body text)", []recBrief{
			{1, open, platform.RecommendationNewIndex, "t", "ALTER TABLE `t` ADD PRIMARY KEY (`id`)"},
		}},
		{"two indexes on the same column", "CREATE TABLE t (id bigint, a int, PRIMARY KEY (id), KEY a1 (a), INDEX a2 (a))", []recBrief{
			{1, open, dup, "t", "ALTER TABLE `t` DROP INDEX `a2`"},
		}},
		{"an index duplicating a unique one keeps the unique", "CREATE TABLE t (id bigint, a int, PRIMARY KEY (id), KEY a1 (a), UNIQUE KEY a2 (a))", []recBrief{
			{1, open, dup, "t", "ALTER TABLE `t` DROP INDEX `a1`"},
		}},
		{"an index duplicating the primary key", "CREATE TABLE t (id bigint, KEY by_id (id), PRIMARY KEY (id))", []recBrief{
			{1, open, dup, "t", "ALTER TABLE `t` DROP INDEX `by_id`"},
		}},
		{"order and direction aside, the same columns", "CREATE TABLE t (id bigint, a int, PRIMARY KEY (id), KEY a1 (`A` DESC), KEY a2 (a ASC))", []recBrief{
			{1, open, dup, "t", "ALTER TABLE `t` DROP INDEX `a2`"},
		}},
		{"an index that begins another", "CREATE TABLE t (id bigint, a int, b int, PRIMARY KEY (id), KEY a (a), KEY ab (a, b))", []recBrief{
			{1, open, dup, "t", "ALTER TABLE `t` DROP INDEX `a`"},
		}},
		{"an index that begins the primary key", "CREATE TABLE t (a int, b int, PRIMARY KEY (a, b), KEY a (a))", []recBrief{
			{1, open, dup, "t", "ALTER TABLE `t` DROP INDEX `a`"},
		}},
		{"an unnamed index is named by its column", "CREATE TABLE t (id bigint, a int, b int, PRIMARY KEY (id), KEY (a), KEY ab (a, b))", []recBrief{
			{1, open, dup, "t", "ALTER TABLE `t` DROP INDEX `a`"},
		}},
		{"a unique index that begins another stays", "CREATE TABLE t (id bigint, a int, b int, PRIMARY KEY (id), UNIQUE KEY a (a), KEY ab (a, b))", nil},
		{"an index that ends another stays", "CREATE TABLE t (id bigint, a int, b int, PRIMARY KEY (id), KEY b (b), KEY ab (a, b))", nil},
		{"other prefix lengths are other indexes", "CREATE TABLE t (id bigint, s text, PRIMARY KEY (id), KEY s1 (s(10)), KEY s2 (s(20)))", nil},
		{"full-text indexes are not compared", "CREATE TABLE t (id bigint, s text, PRIMARY KEY (id), FULLTEXT KEY f (s), KEY s (s(10)))", nil},
		{"a foreign key is not an index of its own", "CREATE TABLE t (id bigint, p bigint, PRIMARY KEY (id), KEY p (p), CONSTRAINT fk FOREIGN KEY (p) REFERENCES parent (id))", nil},
		{"every finding of a table, the primary key first", "CREATE TABLE t (a int, b int, KEY a (a), KEY ab (a, b), KEY ab2 (a, b))", []recBrief{
			{1, open, platform.RecommendationNewIndex, "t", "ALTER TABLE `t` ADD COLUMN `id` bigint unsigned NOT NULL AUTO_INCREMENT PRIMARY KEY FIRST"},
			{2, open, dup, "t", "ALTER TABLE `t` DROP INDEX `ab2`"},
			{3, open, dup, "t", "ALTER TABLE `t` DROP INDEX `a`"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newRecEnv(t)
			e.push("main", tc.ddl)
			want := tc.want
			if want == nil {
				want = []recBrief{}
			}
			if diff := cmp.Diff(want, e.briefs("")); diff != "" {
				t.Errorf("recommendations (-want +got):\n%s", diff)
			}
			if got := e.openCount(); got != len(want) {
				t.Errorf("open_schema_recommendations_count = %d, want %d", got, len(want))
			}
		})
	}
}

// TestSchemaRecommendationsFollowTheSchema walks recommendations through
// schema changes of the default branch: a fix applies one, a dropped table
// makes one stale, advice that comes back is a new recommendation, a
// dismissed one is not given again, and other branches do not count.
func TestSchemaRecommendationsFollowTheSchema(t *testing.T) {
	t.Parallel()
	e := newRecEnv(t)
	const (
		bad   = "CREATE TABLE tags (id bigint, name text, PRIMARY KEY (id), KEY n (name(8)), KEY n2 (name(8)))"
		fixed = "CREATE TABLE tags (id bigint, name text, PRIMARY KEY (id), KEY n (name(8)))"
		noPK  = "CREATE TABLE log (body text)"
	)
	e.push("main", bad, noPK)
	logAdvice := recBrief{1, platform.RecommendationOpen, platform.RecommendationNewIndex, "log", "ALTER TABLE `log` ADD COLUMN `id` bigint unsigned NOT NULL AUTO_INCREMENT PRIMARY KEY FIRST"}
	tagAdvice := recBrief{2, platform.RecommendationOpen, platform.RecommendationDuplicateIndex, "tags", "ALTER TABLE `tags` DROP INDEX `n2`"}
	if diff := cmp.Diff([]recBrief{logAdvice, tagAdvice}, e.briefs("")); diff != "" {
		t.Fatalf("after the first push (-want +got):\n%s", diff)
	}
	if slices.Contains(e.srv.EventNames(), "branch.schema_recommendation") {
		t.Error("branch.schema_recommendation emitted; only a test emits it (Emit)")
	}

	// A development branch's schema is not advised on.
	if _, err := e.c.Branches.Create(t.Context(), &platform.CreateBranchParams{Organization: e.org, Database: drDB, Name: "dev", ParentBranch: "main"}); err != nil {
		t.Fatal(err)
	}
	e.srv.Advance(5 * time.Second)
	e.push("dev", "CREATE TABLE scratch (body text)")
	if got := len(e.briefs("")); got != 2 {
		t.Errorf("%d recommendations after a push to dev, want 2", got)
	}

	// The fix applies #2; an unchanged push changes nothing.
	e.srv.Advance(time.Minute)
	e.push("main", fixed)
	e.push("main", fixed)
	applied := e.get(2)
	if applied.State != platform.RecommendationApplied || applied.AppliedAt == nil || applied.AppliedAt.Time != e.srv.Now().Add(0) ||
		applied.ClosedByDeployRequest != nil || applied.UpdatedAt != *applied.AppliedAt {
		t.Errorf("after the fix: %+v, want applied now by no deploy request", applied)
	}
	// Dropping log makes #1 stale.
	e.push("main", "DROP TABLE log")
	if st := e.get(1); st.State != platform.RecommendationStale || st.AppliedAt != nil {
		t.Errorf("after the drop: state %s applied_at %v, want stale and never applied", st.State, st.AppliedAt)
	}
	if got := e.openCount(); got != 0 {
		t.Errorf("open count %d, want 0", got)
	}
	// The same advice again is a new recommendation; dismissed, it is not
	// given again after further changes.
	e.push("main", bad, noPK)
	want := []recBrief{
		{1, platform.RecommendationStale, logAdvice.Type, "log", logAdvice.DDL},
		{2, platform.RecommendationApplied, tagAdvice.Type, "tags", tagAdvice.DDL},
		{3, platform.RecommendationOpen, logAdvice.Type, "log", logAdvice.DDL},
		{4, platform.RecommendationOpen, tagAdvice.Type, "tags", tagAdvice.DDL},
	}
	if diff := cmp.Diff(want, e.briefs("")); diff != "" {
		t.Fatalf("after the advice came back (-want +got):\n%s", diff)
	}
	if _, err := e.c.SchemaRecommendations.Dismiss(t.Context(), &platform.DismissSchemaRecommendationParams{Organization: e.org, Database: drDB, Number: 3}); err != nil {
		t.Fatal(err)
	}
	e.push("main", "CREATE TABLE other (id bigint, PRIMARY KEY (id))")
	want[2].State = platform.RecommendationDismissed
	if diff := cmp.Diff(want, e.briefs("")); diff != "" {
		t.Errorf("after a dismissal and a push (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want[2:3], e.briefs(platform.RecommendationClosed)[2:]); diff != "" {
		t.Errorf("closed list (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want[3:], e.briefs(platform.RecommendationOpen)); diff != "" {
		t.Errorf("open list (-want +got):\n%s", diff)
	}
	if got := e.openCount(); got != 1 {
		t.Errorf("open count %d, want 1", got)
	}
}

// TestSchemaRecommendationsFollowDeployments: a deployment that takes the
// advice applies the recommendation, naming its deploy request; its revert
// brings the advice back as a new recommendation.
func TestSchemaRecommendationsFollowDeployments(t *testing.T) {
	t.Parallel()
	e := newDREnv(t, false)
	// main, lint-clean for safe migrations, gets an index that begins
	// another before safe migrations go on again.
	main := &platform.DisableSafeMigrationsParams{Organization: e.org, Database: drDB, Branch: "main"}
	if _, err := e.c.Branches.DisableSafeMigrations(t.Context(), main); err != nil {
		t.Fatal(err)
	}
	if err := e.srv.PushSchema(e.org, drDB, "main", "CREATE TABLE `users` (id bigint NOT NULL, email varchar(255), PRIMARY KEY (id), KEY e (email), KEY e_id (email, id))"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.Branches.EnableSafeMigrations(t.Context(), main); err != nil {
		t.Fatal(err)
	}
	e.branch("dev", "CREATE TABLE `users` (id bigint NOT NULL, email varchar(255), PRIMARY KEY (id), KEY e_id (email, id))")
	dr := e.open(platform.CreateDeployRequestParams{Branch: "dev"})
	e.takeSteps(dr, toPendingRevert)
	got, err := e.c.SchemaRecommendations.Get(t.Context(), &platform.GetSchemaRecommendationParams{Organization: e.org, Database: drDB, Number: 1})
	if err != nil {
		t.Fatal(err)
	}
	wantBy := &platform.DeployRequestRef{ID: dr.ID, BranchID: dr.BranchID, Number: dr.Number}
	if got.State != platform.RecommendationApplied || got.AppliedAt == nil || !cmp.Equal(wantBy, got.ClosedByDeployRequest) {
		t.Errorf("after the deployment: state %s, applied_at %v, closed_by %+v; want applied by %+v", got.State, got.AppliedAt, got.ClosedByDeployRequest, wantBy)
	}
	e.takeSteps(dr, []drStep{act("revert"), adv(10 * time.Second)})
	list, err := e.c.SchemaRecommendations.List(t.Context(), &platform.ListSchemaRecommendationsParams{Organization: e.org, Database: drDB})
	if err != nil {
		t.Fatal(err)
	}
	var states []string
	for _, r := range list.Items {
		states = append(states, string(r.State))
	}
	if diff := cmp.Diff([]string{"applied", "open"}, states); diff != "" {
		t.Errorf("after the revert (-want +got):\n%s", diff)
	}
}

func TestDismissSchemaRecommendation(t *testing.T) {
	t.Parallel()
	e := newRecEnv(t)
	bob := mustMember(t, e.srv, e.org, "Bob Builder", platform.RoleAdmin)
	e.push("main", "CREATE TABLE a (body text)", "CREATE TABLE b (body text)")
	e.srv.Advance(time.Minute)
	p := &platform.DismissSchemaRecommendationParams{Organization: e.org, Database: drDB, Number: 1, Reason: platform.Ptr(strings.Repeat("é", 500))}
	tok := mustToken(t, e.srv, fake.TokenSpec{Name: "bob's", CreatedBy: bob, Permissions: []platform.Permission{"write_database"}})
	got, err := e.srv.ClientFor(tok).SchemaRecommendations.Dismiss(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	now := platform.NewTimestamp(e.srv.Now())
	if got.State != platform.RecommendationDismissed || got.DismissedAt == nil || *got.DismissedAt != now || got.UpdatedAt != now ||
		got.DismissedBy == nil || got.DismissedBy.ID != bob || got.AppliedAt != nil {
		t.Errorf("dismissed: %+v", got)
	}
	if diff := cmp.Diff(got, e.get(1)); diff != "" {
		t.Errorf("get after dismiss (-dismiss +get):\n%s", diff)
	}
	if n := e.openCount(); n != 1 {
		t.Errorf("open count %d, want 1", n)
	}

	for _, tc := range []struct {
		name   string
		p      platform.DismissSchemaRecommendationParams
		status int
		words  []string
	}{
		{"already dismissed", platform.DismissSchemaRecommendationParams{Number: 1}, 422, []string{"#1", "dismissed", "open"}},
		{"a reason too long", platform.DismissSchemaRecommendationParams{Number: 2, Reason: platform.Ptr(strings.Repeat("x", 501))}, 422, []string{"reason", "501", "500"}},
		{"no such number", platform.DismissSchemaRecommendationParams{Number: 3}, 404, nil},
		{"another database", platform.DismissSchemaRecommendationParams{Database: "nope", Number: 2}, 404, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := opWorldState(t, e.srv)
			p := tc.p
			p.Organization = e.org
			if p.Database == "" {
				p.Database = drDB
			}
			_, err := e.c.SchemaRecommendations.Dismiss(t.Context(), &p)
			apiError(t, err, tc.status, tc.words...)
			if diff := worldStateDiff(t, before, opWorldState(t, e.srv)); diff != "" {
				t.Errorf("a refused dismissal changed the world (-before +after):\n%s", diff)
			}
		})
	}
}

func TestSchemaRecommendationReads(t *testing.T) {
	t.Parallel()
	e := newRecEnv(t)
	for i := range 5 {
		e.push("main", "CREATE TABLE t"+string(rune('a'+i))+" (body text)")
	}
	// Pages, in number order.
	page, err := e.c.SchemaRecommendations.List(t.Context(), &platform.ListSchemaRecommendationsParams{
		Organization: e.org, Database: drDB, ListParams: platform.ListParams{Page: 2, PerPage: 2},
	})
	if err != nil {
		t.Fatal(err)
	}
	var numbers []int
	for _, r := range page.Items {
		numbers = append(numbers, r.Number)
	}
	if diff := cmp.Diff([]int{3, 4}, numbers); diff != "" || page.NextPage == nil || *page.NextPage != 3 {
		t.Errorf("page 2 of 2: numbers (-want +got):\n%s next %v", diff, page.NextPage)
	}
	if got := len(e.briefs("")); got != 5 {
		t.Errorf("All yields %d, want 5", got)
	}
	// A database without recommendations lists none.
	mustDB(t, e.srv, "empty")
	empty, err := e.c.SchemaRecommendations.List(t.Context(), &platform.ListSchemaRecommendationsParams{Organization: e.org, Database: "empty"})
	if err != nil || len(empty.Items) != 0 {
		t.Errorf("empty database: %v, %v", empty, err)
	}

	_, err = e.c.SchemaRecommendations.List(t.Context(), &platform.ListSchemaRecommendationsParams{Organization: e.org, Database: drDB, State: "dismissed"})
	apiError(t, err, 400, "state", "open or closed", "dismissed")
	_, err = e.c.SchemaRecommendations.Get(t.Context(), &platform.GetSchemaRecommendationParams{Organization: e.org, Database: drDB, Number: 6})
	apiError(t, err, 404)
	_, err = e.c.SchemaRecommendations.Get(t.Context(), &platform.GetSchemaRecommendationParams{Organization: e.org, Database: "empty", Number: 1})
	apiError(t, err, 404)
	r := send(t, e.srv, "GET", "/v1/organizations/"+e.org+"/databases/"+drDB+"/schema-recommendations/one", admin(e.srv), "")
	if r.status != 404 {
		t.Errorf("a number that is not one: %d, want 404", r.status)
	}
}
