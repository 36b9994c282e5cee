package fake_test

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// dbNames lists the names of databases.
func dbNames(dbs []*platform.Database) []string {
	var out []string
	for _, db := range dbs {
		out = append(out, db.Name)
	}
	return out
}

func TestCreateDatabase(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	ctx, c := t.Context(), srv.Client()
	srv.Advance(time.Minute)
	now := platform.NewTimestamp(srv.Now())
	base := srv.URL()

	db, err := c.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: "acme", Name: "app-db", ClusterSize: "PS_10"})
	if err != nil {
		t.Fatal(err)
	}
	regions, err := c.Organizations.ListRegions(ctx, &platform.ListOrganizationRegionsParams{Organization: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	want := &platform.Database{
		ID:                       db.ID,
		Type:                     "Database",
		Name:                     "app-db",
		URL:                      base + "v1/organizations/acme/databases/app-db",
		BranchesURL:              base + "v1/organizations/acme/databases/app-db/branches",
		HTMLURL:                  base + "acme/app-db",
		State:                    platform.DatabasePending,
		Kind:                     platform.KindMySQL,
		Plan:                     "scaler_pro",
		Region:                   *regions.Items[0], // the organization's default, us-east
		BranchesCount:            1,
		ProductionBranchesCount:  1,
		IssuesCount:              platform.Ptr(0),
		DefaultBranch:            "main",
		DefaultBranchShardCount:  1,
		ForeignKeysEnabled:       true,
		InsightsEnabled:          true,
		CreatedAt:                now,
		UpdatedAt:                now,
		SchemaLastUpdatedAt:      &now,
		DevelopmentBranchesCount: 0,
	}
	if diff := cmp.Diff(want, db); diff != "" {
		t.Errorf("created database (-want +got):\n%s", diff)
	}
	if len(db.ID) != 12 || db.Region.Slug != "us-east" {
		t.Errorf("ID %q, region %s", db.ID, db.Region.Slug)
	}
	got, err := c.Databases.Get(ctx, &platform.GetDatabaseParams{Organization: "acme", Database: "app-db"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(db, got); diff != "" {
		t.Errorf("get after create (-create +get):\n%s", diff)
	}

	pg, err := c.Databases.Create(ctx, &platform.CreateDatabaseParams{
		Organization: "acme", Name: "pg", ClusterSize: "PS_20", Region: "eu-west", Kind: platform.KindPostgreSQL, Replicas: platform.Ptr(2), MajorVersion: "17",
	})
	if err != nil {
		t.Fatal(err)
	}
	if pg.Kind != platform.KindPostgreSQL || pg.Region.Slug != "eu-west" || pg.Region.CurrentDefault == nil || !*pg.Region.CurrentDefault {
		t.Errorf("postgres database: kind %s region %s default %v", pg.Kind, pg.Region.Slug, pg.Region.CurrentDefault)
	}
	for _, name := range []string{"a", "123", "a-b-c", "x1-y2", strings.Repeat("z", 63)} {
		mustDB(t, srv, name)
	}
}

func TestCreateDatabaseRefused(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	mustDB(t, srv, "taken")
	before := observe(t, srv)
	for _, tc := range []struct {
		name, body, field string
	}{
		{"no body", ``, "name"},
		{"empty object", `{}`, "name"},
		{"null", `null`, "name"},
		{"no name", `{"cluster_size":"PS_10"}`, "name"},
		{"empty name", `{"name":"","cluster_size":"PS_10"}`, "name"},
		{"uppercase", `{"name":"AppDB","cluster_size":"PS_10"}`, "AppDB"},
		{"underscore", `{"name":"app_db","cluster_size":"PS_10"}`, "app_db"},
		{"space", `{"name":"app db","cluster_size":"PS_10"}`, "app db"},
		{"dot", `{"name":"app.db","cluster_size":"PS_10"}`, "app.db"},
		{"slash", `{"name":"app/db","cluster_size":"PS_10"}`, "app/db"},
		{"leading dash", `{"name":"-app","cluster_size":"PS_10"}`, "-app"},
		{"trailing dash", `{"name":"app-","cluster_size":"PS_10"}`, "app-"},
		{"double dash", `{"name":"app--db","cluster_size":"PS_10"}`, "app--db"},
		{"not ascii", `{"name":"café","cluster_size":"PS_10"}`, "caf"},
		{"too long", `{"name":"` + strings.Repeat("a", 64) + `","cluster_size":"PS_10"}`, "name"},
		{"name taken", `{"name":"taken","cluster_size":"PS_10"}`, "taken"},
		{"unknown cluster size", `{"name":"fresh","cluster_size":"PS_BOGUS"}`, `cluster_size "PS_BOGUS"`},
		{"cluster size of another engine", `{"name":"fresh","cluster_size":"PS_40_AWS_ARM"}`, `cluster_size "PS_40_AWS_ARM" is not offered for mysql`},
		{"metal size for postgresql", `{"name":"fresh","cluster_size":"M_160","kind":"postgresql"}`, `cluster_size "M_160"`},
		{"unknown region", `{"name":"fresh","cluster_size":"PS_10","region":"mars-1"}`, "mars-1"},
		{"unknown kind", `{"name":"fresh","cluster_size":"PS_10","kind":"oracle"}`, "oracle"},
		{"negative replicas", `{"name":"fresh","cluster_size":"PS_10","replicas":-1}`, "replicas"},
		{"one replica", `{"name":"fresh","cluster_size":"PS_10","replicas":1}`, "replicas must be 0 (no high availability) or from 2 to 20"},
		{"mysql replicas over 20", `{"name":"fresh","cluster_size":"PS_10","replicas":21}`, "got 21"},
		{"postgresql replicas over 10", `{"name":"fresh","cluster_size":"PS_10","kind":"postgresql","replicas":11}`, "from 2 to 10 for a postgresql database, got 11"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := send(t, srv, "POST", "/v1/organizations/acme/databases", admin(srv), tc.body)
			e := wantError(t, w, http.StatusUnprocessableEntity, "unprocessable")
			if !strings.Contains(e.Message, tc.field) {
				t.Errorf("message %q does not name %q", e.Message, tc.field)
			}
		})
	}
	unchanged(t, srv, before)

	_, err := srv.Client().Databases.Create(t.Context(), &platform.CreateDatabaseParams{Organization: "acme", Name: "taken", ClusterSize: "PS_10"})
	if !errors.Is(err, platform.ErrUnprocessable) {
		t.Errorf("a taken name through the SDK: %v, want ErrUnprocessable", err)
	}
}

func TestDatabaseNamesAreUniquePerOrganization(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	globex := otherOrg(t, srv, "globex")
	a := mustDB(t, srv, "app")
	b, err := srv.ClientFor(globex).Databases.Create(t.Context(), &platform.CreateDatabaseParams{Organization: "globex", Name: "app", ClusterSize: "PS_10"})
	if err != nil {
		t.Fatalf("the same name in another organization: %v", err)
	}
	if a.ID == b.ID || !strings.Contains(b.URL, "/globex/") {
		t.Errorf("acme's app %s and globex's app %s (%s)", a.ID, b.ID, b.URL)
	}
	// Each organization sees its own.
	got, err := srv.Client().Databases.Get(t.Context(), &platform.GetDatabaseParams{Organization: "acme", Database: "app"})
	if err != nil || got.ID != a.ID {
		t.Errorf("acme's app = %v, %v", got, err)
	}
}

func TestGetDatabase(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	mustDB(t, srv, "app")
	c := srv.Client()
	for _, name := range []string{"nope", "APP", "app-", "app/branches", "app?x=1", "app%2F"} {
		_, err := c.Databases.Get(t.Context(), &platform.GetDatabaseParams{Organization: "acme", Database: name})
		if e := apiError(t, err, http.StatusNotFound); e.Code != "not_found" || e.Message != "Not Found" {
			t.Errorf("%q: %v", name, e)
		}
	}
	_, err := c.Databases.Get(t.Context(), &platform.GetDatabaseParams{Organization: "nope", Database: "app"})
	apiError(t, err, http.StatusNotFound)
}

func TestUpdateDatabaseSettings(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	ctx, c := t.Context(), srv.Client()
	created := mustDB(t, srv, "app")
	mustDB(t, srv, "other")
	srv.Advance(time.Minute)

	db, err := c.Databases.Update(ctx, &platform.UpdateDatabaseParams{
		Organization:               "acme",
		Database:                   "app",
		AutomaticMigrations:        platform.Ptr(true),
		MigrationFramework:         platform.Ptr("rails"),
		MigrationTableName:         platform.Ptr("schema_migrations"),
		RequireApprovalForDeploy:   platform.Ptr(true),
		RestrictBranchRegion:       platform.Ptr(true),
		AllowDataBranching:         platform.Ptr(true),
		AllowForeignKeyConstraints: platform.Ptr(false),
		InsightsRawQueries:         platform.Ptr(true),
		DeletionProtected:          platform.Ptr(true),
		ProductionBranchWebConsole: platform.Ptr(true),
		DefaultBranch:              platform.Ptr("main"),
	})
	if err != nil {
		t.Fatal(err)
	}
	want := *created
	want.State, want.Ready = platform.DatabaseReady, true
	want.AutomaticMigrations = platform.Ptr(true)
	want.MigrationFramework = platform.Ptr("rails")
	want.MigrationTableName = platform.Ptr("schema_migrations")
	want.RequireApprovalForDeploy = true
	want.RestrictBranchRegion = true
	want.AllowDataBranching = true
	want.ForeignKeysEnabled = false
	want.InsightsRawQueries = true
	want.DeletionProtected = true
	want.ProductionBranchWebConsole = true
	want.UpdatedAt = platform.NewTimestamp(srv.Now())
	if diff := cmp.Diff(&want, db); diff != "" {
		t.Errorf("updated database (-want +got):\n%s", diff)
	}

	// An empty update changes nothing but updated_at.
	srv.Advance(time.Second)
	same, err := c.Databases.Update(ctx, &platform.UpdateDatabaseParams{Organization: "acme", Database: "app"})
	if err != nil {
		t.Fatal(err)
	}
	want.UpdatedAt = platform.NewTimestamp(srv.Now())
	if diff := cmp.Diff(&want, same); diff != "" {
		t.Errorf("after an empty update (-want +got):\n%s", diff)
	}

	// Rename.
	renamed, err := c.Databases.Update(ctx, &platform.UpdateDatabaseParams{Organization: "acme", Database: "app", NewName: platform.Ptr("app-v2")})
	if err != nil {
		t.Fatal(err)
	}
	if renamed.Name != "app-v2" || renamed.ID != created.ID || !strings.HasSuffix(renamed.URL, "/databases/app-v2") {
		t.Errorf("renamed: %s %s %s", renamed.Name, renamed.ID, renamed.URL)
	}
	_, err = c.Databases.Get(ctx, &platform.GetDatabaseParams{Organization: "acme", Database: "app"})
	apiError(t, err, http.StatusNotFound)
	// Both were created in the same millisecond, so they list in ID order;
	// compare them as a set.
	if got := dbNames(observe(t, srv).Databases); !cmp.Equal(got, []string{"app-v2", "other"}, cmpopts.SortSlices(func(a, b string) bool { return a < b })) {
		t.Errorf("databases after rename: %v", got)
	}
	if _, err := c.Databases.Update(ctx, &platform.UpdateDatabaseParams{Organization: "acme", Database: "app-v2", NewName: platform.Ptr("app-v2")}); err != nil {
		t.Errorf("renaming to its own name: %v", err)
	}
	// The old name is free again.
	mustDB(t, srv, "app")

	before := observe(t, srv)
	for _, tc := range []struct {
		name, body, field string
	}{
		{"new name taken", `{"new_name":"other"}`, "other"},
		{"new name invalid", `{"new_name":"Other DB"}`, "new_name"},
		{"new name empty", `{"new_name":""}`, "new_name"},
		{"new name too long", `{"new_name":"` + strings.Repeat("a", 64) + `"}`, "new_name"},
		{"unknown default branch", `{"default_branch":"dev"}`, "dev"},
		{"valid setting with an invalid one", `{"deletion_protected":false,"new_name":"other"}`, "other"},
	} {
		w := send(t, srv, "PATCH", "/v1/organizations/acme/databases/app-v2", admin(srv), tc.body)
		e := wantError(t, w, http.StatusUnprocessableEntity, "unprocessable")
		if !strings.Contains(e.Message, tc.field) {
			t.Errorf("%s: message %q does not name %q", tc.name, e.Message, tc.field)
		}
	}
	wantError(t, send(t, srv, "PATCH", "/v1/organizations/acme/databases/nope", admin(srv), `{"deletion_protected":true}`), http.StatusNotFound, "not_found")
	unchanged(t, srv, before)
}

func TestDeleteDatabase(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	ctx, c := t.Context(), srv.Client()
	mustDB(t, srv, "keep")
	mustDB(t, srv, "guarded")
	if _, err := c.Databases.Update(ctx, &platform.UpdateDatabaseParams{Organization: "acme", Database: "guarded", DeletionProtected: platform.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	del := func(name string) error {
		return c.Databases.Delete(ctx, &platform.DeleteDatabaseParams{Organization: "acme", Database: name})
	}

	before := observe(t, srv)
	e := apiError(t, del("guarded"), http.StatusUnprocessableEntity)
	if e.Code != "unprocessable" || !strings.Contains(e.Message, "deletion protected") || !strings.Contains(e.Message, "guarded") {
		t.Errorf("deleting a protected database: %v", e)
	}
	unchanged(t, srv, before)

	if _, err := c.Databases.Update(ctx, &platform.UpdateDatabaseParams{Organization: "acme", Database: "guarded", DeletionProtected: platform.Ptr(false)}); err != nil {
		t.Fatal(err)
	}
	if err := del("guarded"); err != nil {
		t.Fatalf("deleting after lifting protection: %v", err)
	}
	_, err := c.Databases.Get(ctx, &platform.GetDatabaseParams{Organization: "acme", Database: "guarded"})
	apiError(t, err, http.StatusNotFound)
	apiError(t, del("guarded"), http.StatusNotFound)
	apiError(t, del("nope"), http.StatusNotFound)
	if got := dbNames(observe(t, srv).Databases); !cmp.Equal(got, []string{"keep"}) {
		t.Errorf("databases left: %v", got)
	}
}

func TestDeletePendingDatabase(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	ctx, c := t.Context(), srv.Client()
	old := mustDB(t, srv, "app")
	if err := c.Databases.Delete(ctx, &platform.DeleteDatabaseParams{Organization: "acme", Database: "app"}); err != nil {
		t.Fatal(err)
	}
	srv.Advance(3 * time.Second)
	fresh := mustDB(t, srv, "app")
	if fresh.ID == old.ID || fresh.State != platform.DatabasePending {
		t.Fatalf("re-created database: %s %s (old %s)", fresh.ID, fresh.State, old.ID)
	}
	// The deleted database's transition falls due now; it must not touch
	// the new one.
	srv.Advance(2 * time.Second)
	db, err := c.Databases.Get(ctx, &platform.GetDatabaseParams{Organization: "acme", Database: "app"})
	if err != nil {
		t.Fatal(err)
	}
	if db.ID != fresh.ID || db.State != platform.DatabasePending {
		t.Errorf("after the old transition: %s %s, want %s pending", db.ID, db.State, fresh.ID)
	}
	srv.Advance(3 * time.Second)
	if db, err = c.Databases.Get(ctx, &platform.GetDatabaseParams{Organization: "acme", Database: "app"}); err != nil || db.State != platform.DatabaseReady {
		t.Errorf("after its own transition: %v, %v", db, err)
	}
	if n := len(observe(t, srv).Databases); n != 1 {
		t.Errorf("%d databases, want 1", n)
	}
}

func TestListDatabaseRegions(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	c := srv.Client()
	if _, err := c.Databases.Create(t.Context(), &platform.CreateDatabaseParams{Organization: "acme", Name: "eu", ClusterSize: "PS_10", Region: "eu-west"}); err != nil {
		t.Fatal(err)
	}
	var defaults []string
	n := 0
	for r, err := range c.Databases.AllRegions(t.Context(), &platform.ListDatabaseRegionsParams{Organization: "acme", Database: "eu", ListParams: platform.ListParams{PerPage: 2}}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		if r.CurrentDefault == nil {
			t.Fatalf("region %s has no current_default", r.Slug)
		}
		if *r.CurrentDefault {
			defaults = append(defaults, r.Slug)
		}
	}
	if n != 5 || !cmp.Equal(defaults, []string{"eu-west"}) {
		t.Errorf("%d regions, defaults %v; want 5 with eu-west", n, defaults)
	}
	_, err := c.Databases.ListRegions(t.Context(), &platform.ListDatabaseRegionsParams{Organization: "acme", Database: "nope"})
	apiError(t, err, http.StatusNotFound)
}

func TestListDatabases(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	ctx, c := t.Context(), srv.Client()
	names := []string{"app-a", "billing", "app-b", "myapp", "search", "app-c", "logs"}
	for _, n := range names {
		mustDB(t, srv, n)
		srv.Advance(time.Second)
	}
	list := func(p platform.ListDatabasesParams) *platform.Page[platform.Database] {
		t.Helper()
		p.Organization = "acme"
		page, err := c.Databases.List(ctx, &p)
		if err != nil {
			t.Fatal(err)
		}
		return page
	}

	all := list(platform.ListDatabasesParams{})
	if diff := cmp.Diff(names, dbNames(all.Items)); diff != "" {
		t.Errorf("databases, oldest first (-want +got):\n%s", diff)
	}
	if *all.TotalCount != 7 || *all.TotalPages != 1 || all.HasNext() {
		t.Errorf("totals %d/%d next %v", *all.TotalCount, *all.TotalPages, all.NextPage)
	}

	for _, tc := range []struct {
		name  string
		query string
		want  []string
		total int
		pages int
		next  string // "null" or a number
	}{
		{"page 2 of 3", "per_page=3&page=2", []string{"myapp", "search", "app-c"}, 7, 3, "3"},
		{"last page", "per_page=3&page=3", []string{"logs"}, 7, 3, "null"},
		{"past the end", "per_page=3&page=4", nil, 7, 3, "null"},
		{"desc", "order=desc&per_page=3", []string{"logs", "app-c", "search"}, 7, 3, "2"},
		{"desc page 3", "order=desc&per_page=3&page=3", []string{"app-a"}, 7, 3, "null"},
		{"q", "q=app", []string{"app-a", "app-b", "myapp", "app-c"}, 4, 1, "null"},
		{"q paged", "q=app&per_page=2&page=2", []string{"myapp", "app-c"}, 4, 2, "null"},
		{"q desc paged", "q=app&order=desc&per_page=3", []string{"app-c", "myapp", "app-b"}, 4, 2, "2"},
		{"q exact", "q=logs", []string{"logs"}, 1, 1, "null"},
		{"q no match", "q=nothing", nil, 0, 0, "null"},
		{"q past the end", "q=app&per_page=2&page=5", nil, 4, 2, "null"},
	} {
		w := send(t, srv, "GET", "/v1/organizations/acme/databases?"+tc.query, admin(srv), "")
		wantStatus(t, w, http.StatusOK)
		env := decode[envelope](t, w)
		page := decode[platform.Page[platform.Database]](t, w)
		if diff := cmp.Diff(tc.want, dbNames(page.Items)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
		if env.TotalCount == nil || *env.TotalCount != tc.total || env.TotalPages == nil || *env.TotalPages != tc.pages {
			t.Errorf("%s: total_count %v total_pages %v, want %d, %d", tc.name, env.TotalCount, env.TotalPages, tc.total, tc.pages)
		}
		if string(env.NextPage) != tc.next {
			t.Errorf("%s: next_page %s, want %s", tc.name, env.NextPage, tc.next)
		}
		if tc.next != "null" && !strings.Contains(string(env.NextPageURL), "page="+tc.next) {
			t.Errorf("%s: next_page_url %s", tc.name, env.NextPageURL)
		}
	}

	var iterated []string
	for db, err := range c.Databases.All(ctx, &platform.ListDatabasesParams{Organization: "acme", Query: "app", ListParams: platform.ListParams{PerPage: 1}}) {
		if err != nil {
			t.Fatal(err)
		}
		iterated = append(iterated, db.Name)
	}
	if diff := cmp.Diff([]string{"app-a", "app-b", "myapp", "app-c"}, iterated); diff != "" {
		t.Errorf("All with q=app (-want +got):\n%s", diff)
	}
}

func TestListDatabasesWithPerDatabaseGrants(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	ctx := t.Context()
	for _, n := range []string{"a", "b", "c", "ab"} {
		mustDB(t, srv, n)
		srv.Advance(time.Second)
	}
	list := func(tok fake.Token, q string) ([]string, int) {
		t.Helper()
		page, err := srv.ClientFor(tok).Databases.List(ctx, &platform.ListDatabasesParams{Organization: "acme", Query: q})
		if err != nil {
			t.Fatal(err)
		}
		return dbNames(page.Items), *page.TotalCount
	}

	onlyB := mustToken(t, srv, fake.TokenSpec{Name: "b", DatabasePermissions: map[string][]platform.Permission{"b": {"read_database"}}})
	if got, total := list(onlyB, ""); !cmp.Equal(got, []string{"b"}) || total != 1 {
		t.Errorf("a token with read_database on b lists %v (total %d), want [b]", got, total)
	}
	if got, _ := list(onlyB, "a"); got != nil {
		t.Errorf("a token with read_database on b finds %v for q=a", got)
	}
	_, err := srv.ClientFor(onlyB).Databases.Get(ctx, &platform.GetDatabaseParams{Organization: "acme", Database: "a"})
	apiError(t, err, http.StatusNotFound)

	two := mustToken(t, srv, fake.TokenSpec{Name: "two", DatabasePermissions: map[string][]platform.Permission{"c": {"connect_branch"}, "ab": {"read_backups"}}})
	if got, total := list(two, ""); !cmp.Equal(got, []string{"c", "ab"}) || total != 2 {
		t.Errorf("grants on c and ab list %v (total %d)", got, total)
	}
	if got, _ := list(two, "a"); !cmp.Equal(got, []string{"ab"}) {
		t.Errorf("grants on c and ab, q=a: %v", got)
	}

	// An organization grant of a database permission covers every database.
	orgWide := mustToken(t, srv, fake.TokenSpec{Name: "org", Permissions: []platform.Permission{"read_branch"}})
	if got, total := list(orgWide, ""); len(got) != 4 || total != 4 {
		t.Errorf("an organization grant lists %v", got)
	}

	// A token that creates a database holds every database permission on it,
	// and only on it.
	creator := mustToken(t, srv, fake.TokenSpec{Name: "creator", Permissions: []platform.Permission{"create_databases"}})
	cc := srv.ClientFor(creator)
	if _, err := cc.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: "acme", Name: "mine", ClusterSize: "PS_10"}); err != nil {
		t.Fatal(err)
	}
	if got, _ := list(creator, ""); !cmp.Equal(got, []string{"mine"}) {
		t.Errorf("the creator lists %v, want [mine]", got)
	}
	if _, err := cc.Databases.Update(ctx, &platform.UpdateDatabaseParams{Organization: "acme", Database: "mine", RequireApprovalForDeploy: platform.Ptr(true)}); err != nil {
		t.Errorf("the creator updating its database: %v", err)
	}
	if _, err := cc.Databases.ListRegions(ctx, &platform.ListDatabaseRegionsParams{Organization: "acme", Database: "mine"}); err != nil {
		t.Errorf("the creator listing its database's regions: %v", err)
	}
	if err := cc.Databases.Delete(ctx, &platform.DeleteDatabaseParams{Organization: "acme", Database: "mine"}); err != nil {
		t.Errorf("the creator deleting its database: %v", err)
	}
	_, err = cc.Databases.Get(ctx, &platform.GetDatabaseParams{Organization: "acme", Database: "a"})
	apiError(t, err, http.StatusNotFound)
	// The grant went with the database: a new "mine" made by someone else
	// is not the creator's.
	mustDB(t, srv, "mine")
	_, err = cc.Databases.Get(ctx, &platform.GetDatabaseParams{Organization: "acme", Database: "mine"})
	apiError(t, err, http.StatusNotFound)
}

// TestListDatabasesScopedPages pages through the databases a token with
// grants on some of them lists, with every page size and in both orders:
// the pages, cut from the token's grants, are the windows of the list the
// admin sees filtered to those grants, the same at every page boundary.
func TestListDatabasesScopedPages(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	grants := map[string][]platform.Permission{"db-05": {"create_branch_password"}} // not enough to list db-05
	var want []string
	for i := range 30 {
		name := fmt.Sprintf("db-%02d", i)
		mustDB(t, srv, name)
		srv.Advance(time.Second)
		if slices.Contains([]int{0, 3, 4, 11, 17, 28, 29}, i) {
			grants[name] = []platform.Permission{"read_database"}
			want = append(want, name)
		}
	}
	tok := mustToken(t, srv, fake.TokenSpec{Name: "scoped", DatabasePermissions: grants})
	list := func(query string) ([]string, int) {
		t.Helper()
		page := decode[platform.Page[platform.Database]](t, send(t, srv, "GET", "/v1/organizations/acme/databases?"+query, tok.Authorization(), ""))
		return dbNames(page.Items), *page.TotalCount
	}
	for _, order := range []string{"asc", "desc"} {
		wantOrdered := slices.Clone(want)
		if order == "desc" {
			slices.Reverse(wantOrdered)
		}
		for per := 1; per <= len(want)+1; per++ {
			var got []string
			for page := 1; page <= len(want)+1; page++ {
				items, total := list(fmt.Sprintf("order=%s&per_page=%d&page=%d", order, per, page))
				if total != len(want) || len(items) != min(per, max(len(want)-(page-1)*per, 0)) {
					t.Errorf("%s, page %d of %d: %v of total %d", order, page, per, items, total)
				}
				got = append(got, items...)
			}
			if diff := cmp.Diff(wantOrdered, got); diff != "" {
				t.Errorf("%s, %d per page (-want +got):\n%s", order, per, diff)
			}
		}
	}
	if got, total := list("q=-2"); !cmp.Equal(got, []string{"db-28", "db-29"}) || total != 2 {
		t.Errorf("q=-2 lists %v (total %d)", got, total)
	}

	// A deleted database, and one whose grant is revoked, leave the list.
	c := srv.Client()
	if err := c.Databases.Delete(t.Context(), &platform.DeleteDatabaseParams{Organization: "acme", Database: "db-03"}); err != nil {
		t.Fatal(err)
	}
	if err := c.ServiceTokens.RemoveAccesses(t.Context(), &platform.RemoveServiceTokenAccessesParams{
		Organization: "acme", ID: tok.ID, Database: platform.Ptr("db-28"), Access: []platform.Permission{platform.PermissionReadDatabase},
	}); err != nil {
		t.Fatal(err)
	}
	if got, total := list("per_page=100"); !cmp.Equal(got, []string{"db-00", "db-04", "db-11", "db-17", "db-29"}) || total != 5 {
		t.Errorf("after deleting db-03 and revoking db-28: %v (total %d)", got, total)
	}
}

func TestCreateDatabaseConcurrently(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	c := srv.Client()
	const n = 16
	var wg sync.WaitGroup
	errs := make([]error, 2*n)
	for i := range 2 * n {
		name := "contested"
		if i >= n {
			name = fmt.Sprintf("db-%02d", i-n)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = c.Databases.Create(t.Context(), &platform.CreateDatabaseParams{Organization: "acme", Name: name, ClusterSize: "PS_10"})
		}()
	}
	wg.Wait()
	won := 0
	for i, err := range errs[:n] {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, platform.ErrUnprocessable):
			t.Errorf("create %d of the contested name: %v", i, err)
		}
	}
	if won != 1 {
		t.Errorf("%d creates of the same name succeeded, want 1", won)
	}
	for i, err := range errs[n:] {
		if err != nil {
			t.Errorf("create db-%02d: %v", i, err)
		}
	}
	o := observe(t, srv)
	if len(o.Databases) != n+1 || o.Org.DatabaseCount != n+1 {
		t.Errorf("%d databases (count %d), want %d", len(o.Databases), o.Org.DatabaseCount, n+1)
	}
}

// TestCreateDatabaseDefaultsAndNotes creates a database the way the
// service's own command-line tool does, without cluster_size and with
// notes: it gets the default size, and its notes are kept and returned.
func TestCreateDatabaseDefaultsAndNotes(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	w := send(t, srv, http.MethodPost, "/v1/organizations/acme/databases", admin(srv), `{"name":"fresh","notes":"for the demo"}`)
	wantStatus(t, w, http.StatusCreated)
	if db := decode[platform.Database](t, w); db.Notes != "for the demo" {
		t.Errorf("created database's notes %q, want %q", db.Notes, "for the demo")
	}
	c := srv.Client()
	db, err := c.Databases.Get(t.Context(), &platform.GetDatabaseParams{Organization: "acme", Database: "fresh"})
	if err != nil {
		t.Fatal(err)
	}
	if db.Notes != "for the demo" {
		t.Errorf("notes %q after get, want %q", db.Notes, "for the demo")
	}
	main, err := c.Branches.Get(t.Context(), &platform.GetBranchParams{Organization: "acme", Database: "fresh", Branch: "main"})
	if err != nil {
		t.Fatal(err)
	}
	if main.ClusterName != "PS_10" {
		t.Errorf("cluster size %q, want the default PS_10", main.ClusterName)
	}
	other := mustDB(t, srv, "other")
	if other.Notes != "" {
		t.Errorf("a database created without notes has notes %q", other.Notes)
	}
}

// TestRestoreEarlierReplicas restores a database as earlier fakes saved
// it, with the replicas create_database was given, which they modelled
// nothing with: the database keeps the replicas a production branch
// includes, and the snapshot saved again no longer has the key.
func TestRestoreEarlierReplicas(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	mustDB(t, srv, "app")
	srv.Advance(time.Hour)
	data, err := srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	old := strings.Replace(string(data), `"cluster_size": "PS_10",`, `"cluster_size": "PS_10", "replicas": 0,`, 1)
	if old == string(data) {
		t.Fatalf("no database's cluster size in the snapshot:\n%s", data)
	}
	twin := fake.NewServer(t)
	if err := twin.Restore([]byte(old)); err != nil {
		t.Fatalf("restoring an earlier fake's snapshot: %v", err)
	}
	again, err := twin.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if string(again) != string(data) {
		t.Errorf("the restored world saves differently:\n%s", cmp.Diff(string(data), string(again)))
	}
	b, err := twin.Client().Branches.Get(t.Context(), &platform.BranchParams{Organization: "acme", Database: "app", Branch: "main"})
	if err != nil {
		t.Fatal(err)
	}
	if b.Replicas != 2 || !b.HasReplicas {
		t.Errorf("main after the restore: replicas %d, has_replicas %t; want 2, true", b.Replicas, b.HasReplicas)
	}
	bad := strings.Replace(string(data), `"cluster_size": "PS_10",`, `"cluster_size": "PS_10", "replicas": -1,`, 1)
	if err := fake.NewServer(t).Restore([]byte(bad)); err == nil || !strings.Contains(err.Error(), "replicas") {
		t.Errorf("a negative replicas restored: %v, want an error naming replicas", err)
	}
}

// TestDatabaseFollowsItsDefaultBranch checks the fields of a database that
// its default branch decides: sharded, the shard and table counts and
// schema_last_updated_at follow its keyspaces and schema, and
// resize_queued, resizing and config_changing its keyspaces' own resizes
// and settings changes, as they follow the branch's change requests.
func TestDatabaseFollowsItsDefaultBranch(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	c := srv.Client()
	mustDB(t, srv, "app")
	srv.Advance(time.Hour)
	get := func() *platform.Database {
		t.Helper()
		db, err := c.Databases.Get(t.Context(), &platform.GetDatabaseParams{Organization: "acme", Database: "app"})
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	type follows struct {
		Sharded                bool
		Shards, Tables         int
		SchemaUpdated          string
		ResizeQueued, Resizing bool
		ConfigChanging         bool
	}
	read := func() follows {
		db := get()
		f := follows{Sharded: db.Sharded, Shards: db.DefaultBranchShardCount, Tables: db.DefaultBranchTableCount,
			ResizeQueued: db.ResizeQueued, Resizing: db.Resizing, ConfigChanging: db.ConfigChanging}
		if db.SchemaLastUpdatedAt != nil {
			f.SchemaUpdated = db.SchemaLastUpdatedAt.String()
		}
		return f
	}
	// The keyspace became ready with its branch, and says when.
	br, err := c.Branches.Get(t.Context(), &platform.BranchParams{Organization: "acme", Database: "app", Branch: "main"})
	if err != nil {
		t.Fatal(err)
	}
	k, err := c.Keyspaces.Get(t.Context(), &platform.KeyspaceParams{Organization: "acme", Database: "app", Branch: "main", Keyspace: "app"})
	if err != nil {
		t.Fatal(err)
	}
	if !k.Ready || k.UpdatedAt != br.UpdatedAt || k.UpdatedAt == k.CreatedAt {
		t.Errorf("the keyspace: ready %t, updated %v, created %v; want ready, updated when its branch became ready (%v)", k.Ready, k.UpdatedAt, k.CreatedAt, br.UpdatedAt)
	}
	created := read()
	if created.Shards != 1 || created.Sharded || created.Tables != 0 || created.SchemaUpdated == "" {
		t.Errorf("a new database: %+v, want one shard, no tables, a schema time", created)
	}

	if err := srv.PushSchema("acme", "app", "main", "CREATE TABLE t1 (id int PRIMARY KEY)", "CREATE TABLE t2 (id int PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	if err := srv.AddKeyspace("acme", "app", "main", "sk", 4); err != nil {
		t.Fatal(err)
	}
	want := follows{Sharded: true, Shards: 5, Tables: 2, SchemaUpdated: srv.Now().Format(platform.TimeLayout)}
	if diff := cmp.Diff(want, read()); diff != "" {
		t.Errorf("after a push and a sharded keyspace (-want +got):\n%s", diff)
	}

	ks := &platform.KeyspaceParams{Organization: "acme", Database: "app", Branch: "main", Keyspace: "app"}
	if _, err := c.Keyspaces.Resize(t.Context(), &platform.ResizeKeyspaceParams{Organization: ks.Organization, Database: ks.Database, Branch: ks.Branch, Keyspace: ks.Keyspace, ClusterSize: platform.Ptr("PS_20")}); err != nil {
		t.Fatal(err)
	}
	if got := read(); !got.ResizeQueued || got.Resizing {
		t.Errorf("a keyspace resize queued: resize_queued %t, resizing %t; want true, false", got.ResizeQueued, got.Resizing)
	}
	for range 100 {
		if got := read(); got.Resizing {
			break
		}
		srv.Advance(time.Second)
	}
	if got := read(); got.ResizeQueued || !got.Resizing {
		t.Errorf("a keyspace resizing: resize_queued %t, resizing %t; want false, true", got.ResizeQueued, got.Resizing)
	}

	// A settings change of a keyspace is a configuration change.
	if _, err := c.Keyspaces.Update(t.Context(), &platform.UpdateKeyspaceParams{Organization: ks.Organization, Database: ks.Database, Branch: ks.Branch, Keyspace: "sk", NodeTTLStrategy: platform.Ptr(platform.NodeTTLOff)}); err != nil {
		t.Fatal(err)
	}
	if got := read(); !got.ConfigChanging {
		t.Errorf("a keyspace's settings changing: config_changing %t, want true", got.ConfigChanging)
	}
}
