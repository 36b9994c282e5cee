package fake_test

import (
	"bytes"
	stdcmp "cmp"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
	"github.com/google/go-cmp/cmp"
)

// create_branch's restore_point (a PostgreSQL branch's point-in-time
// recovery) and create_database_if_missing with kind.

// pitrWorld is newCreateWorld with a table in pg's main, and a
// development branch dev of it made an hour on; its clock is an hour
// after dev's creation, two after main's.
func pitrWorld(t *testing.T) (*fake.Server, *platform.Client) {
	t.Helper()
	srv, c := newCreateWorld(t)
	if err := srv.PushSchema(srv.Org(), createPG, "main", "CREATE TABLE early (id bigint PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	srv.Advance(time.Hour)
	if _, err := c.Branches.Create(t.Context(), &platform.CreateBranchParams{Organization: srv.Org(), Database: createPG, Name: "dev"}); err != nil {
		t.Fatal(err)
	}
	srv.Advance(time.Hour)
	return srv, c
}

// pitrAgo is the restore point d before the fake's now.
func pitrAgo(srv *fake.Server, d time.Duration) *platform.Timestamp {
	return platform.Ptr(platform.NewTimestamp(srv.Now().Add(-d)))
}

// pitrToken is a client of a service token holding perms on srv's
// organization.
func pitrToken(t *testing.T, srv *fake.Server, perms ...string) *platform.Client {
	t.Helper()
	tok, err := srv.CreateServiceToken(srv.Org(), fake.TokenSpec{Name: fmt.Sprint(perms), Permissions: permissions(perms...)})
	if err != nil {
		t.Fatal(err)
	}
	return srv.ClientFor(tok)
}

// pitrSchema is a branch of createPG's schema.
func pitrSchema(t *testing.T, srv *fake.Server, c *platform.Client, branch string) []*platform.TableSchema {
	t.Helper()
	s, err := c.Branches.GetSchema(t.Context(), &platform.GetBranchSchemaParams{Organization: srv.Org(), Database: createPG, Branch: branch})
	if err != nil {
		t.Fatal(err)
	}
	return s.Tables
}

func TestCreateBranchRestorePoint(t *testing.T) {
	t.Parallel()
	srv, c := pitrWorld(t)
	org := srv.Org()
	if err := srv.PushSchema(org, createPG, "main", "CREATE TABLE later (id bigint PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	main, err := c.Branches.Get(t.Context(), &platform.GetBranchParams{Organization: org, Database: createPG, Branch: "main"})
	if err != nil {
		t.Fatal(err)
	}
	mainCreated := main.CreatedAt.Time
	for _, tc := range []struct {
		name, parent string
		c            *platform.Client
		point        *platform.Timestamp
	}{
		{"an-hour-ago", "main", pitrToken(t, srv, "restore_production_branch_backup"), pitrAgo(srv, time.Hour)},
		{"now", "", c, pitrAgo(srv, 0)},
		{"at-mains-creation", "main", c, platform.Ptr(platform.NewTimestamp(mainCreated))},
		{"of-dev", "dev", pitrToken(t, srv, "restore_backup"), pitrAgo(srv, time.Minute)},
		// OAuth: the restore scope on the parent branch.
		{"of-dev-oauth", "dev", oauthClient(t, srv, oauthGrant(t, srv, fake.Consent{Branches: []string{org + "/" + createPG + "/dev"}}, platform.ScopeBranchRestoreBackups)),
			pitrAgo(srv, time.Minute)},
	} {
		b, err := tc.c.Branches.Create(t.Context(), &platform.CreateBranchParams{
			Organization: org, Database: createPG, Name: tc.name, ParentBranch: tc.parent, RestorePoint: tc.point,
			MajorVersion: "16", // ignored: a restore runs its parent's version
		})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		parent := stdcmp.Or(tc.parent, "main")
		type origin struct {
			RestoredFrom, Parent string
			InitialRestoreID     *string
			Ready                bool
		}
		got := origin{InitialRestoreID: b.InitialRestoreID, Ready: b.Ready}
		if b.ParentBranch != nil {
			got.Parent = *b.ParentBranch
		}
		if b.RestoredFromBranch != nil {
			got.RestoredFrom = b.RestoredFromBranch.Name
		}
		if diff := cmp.Diff(origin{RestoredFrom: parent, Parent: parent}, got); diff != "" {
			t.Errorf("%s: where it came from (-want +got):\n%s", tc.name, diff)
		}
		if _, err := c.Branches.Wait(t.Context(), &platform.GetBranchParams{Organization: org, Database: createPG, Branch: tc.name}); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		// The fake keeps no schema history: the parent's schema as it is.
		want := pitrSchema(t, srv, c, parent)
		if len(want) == 0 {
			t.Fatalf("%s: parent %s has no tables", tc.name, parent)
		}
		if diff := cmp.Diff(want, pitrSchema(t, srv, c, tc.name)); diff != "" {
			t.Errorf("%s: schema (-parent's +got):\n%s", tc.name, diff)
		}
		if v := pgVersionOf(t, srv, c, tc.name); v != "17.5" {
			t.Errorf("%s runs %s, want its parent's 17.5", tc.name, v)
		}
	}
	// A snapshot keeps where each came from, and restores to the same.
	twin := restoredTwin(t, srv)
	data, err := srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	b, err := twin.Client().Branches.Get(t.Context(), &platform.GetBranchParams{Organization: org, Database: createPG, Branch: "of-dev"})
	if err != nil || b.RestoredFromBranch == nil || b.RestoredFromBranch.Name != "dev" {
		t.Errorf("of-dev after a restore: %+v, %v; want restored from dev", b, err)
	}
	// A snapshot of a fake older than restore points has none: its
	// branches restore none, and still show where they came from.
	points := 0
	old := snapshotEdit(t, data, func(m map[string]any) {
		for _, b := range m["branches"].([]any) {
			if _, ok := b.(map[string]any)["restore_point"]; ok {
				points++
				delete(b.(map[string]any), "restore_point")
			}
		}
	})
	if points != 5 {
		t.Errorf("the snapshot holds %d restore points, want 5", points)
	}
	older := fake.NewServer(t)
	if err := older.Restore(old); err != nil {
		t.Fatalf("a snapshot without restore points: %v", err)
	}
	b, err = older.Client().Branches.Get(t.Context(), &platform.GetBranchParams{Organization: org, Database: createPG, Branch: "of-dev"})
	if err != nil || b.RestoredFromBranch == nil || b.RestoredFromBranch.Name != "dev" {
		t.Errorf("of-dev from an older snapshot: %+v, %v; want restored from dev", b, err)
	}
}

func TestCreateBranchRestorePointRefused(t *testing.T) {
	t.Parallel()
	srv, c := pitrWorld(t)
	if _, err := c.Databases.Update(t.Context(), &platform.UpdateDatabaseParams{Organization: srv.Org(), Database: createPG, AllowDataBranching: platform.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	now := srv.Now()
	created := func(branch string) time.Time {
		b, err := c.Branches.Get(t.Context(), &platform.GetBranchParams{Organization: srv.Org(), Database: createPG, Branch: branch})
		if err != nil {
			t.Fatal(err)
		}
		return b.CreatedAt.Time
	}
	mainCreated, devCreated := created("main"), created("dev")
	stamp := func(t time.Time) *platform.Timestamp { return platform.Ptr(platform.NewTimestamp(t)) }
	hourAgo := pitrAgo(srv, time.Hour)
	for _, tc := range []struct {
		name   string
		c      *platform.Client
		p      platform.CreateBranchParams
		status int
		says   []string
	}{
		{"on MySQL", c, platform.CreateBranchParams{Database: createMySQL, RestorePoint: hourAgo}, 422, []string{"restore_point", "postgresql", "mysql database"}},
		{"in the future", c, platform.CreateBranchParams{RestorePoint: stamp(now.Add(time.Second))}, 422, []string{"restore_point", "in the future"}},
		{"before the parent's creation", c, platform.CreateBranchParams{RestorePoint: stamp(mainCreated.Add(-time.Millisecond))}, 422,
			[]string{"restore_point", "point-in-time window of branch main", mainCreated.Format(time.RFC3339Nano), now.Format(time.RFC3339Nano)}},
		{"before a development parent's creation", c, platform.CreateBranchParams{ParentBranch: "dev", RestorePoint: stamp(devCreated.Add(-time.Minute))}, 422,
			[]string{"restore_point", "window of branch dev", devCreated.Format(time.RFC3339Nano)}},
		{"with backup_id", c, platform.CreateBranchParams{RestorePoint: hourAgo, BackupID: "bk", ClusterSize: "PS_10"}, 422, []string{"restore_point", "backup_id"}},
		{"with seed_data", c, platform.CreateBranchParams{RestorePoint: hourAgo, SeedData: platform.SeedLastSuccessfulBackup}, 422, []string{"restore_point", "seed_data"}},
		{"with keyspace_cluster_sizes", c, platform.CreateBranchParams{RestorePoint: hourAgo, KeyspaceClusterSizes: []platform.KeyspaceClusterSize{{KeyspaceName: createPG, ClusterSize: "PS_10"}}}, 422, []string{"keyspace_cluster_sizes"}},
		{"of no parent", c, platform.CreateBranchParams{ParentBranch: "nope", RestorePoint: hourAgo}, 422, []string{`parent_branch "nope"`}},
		{"a bad size", c, platform.CreateBranchParams{RestorePoint: hourAgo, ClusterSize: "PS_BOGUS"}, 422, []string{`cluster_size "PS_BOGUS"`}},
		{"a name taken", c, platform.CreateBranchParams{Name: "dev", RestorePoint: hourAgo}, 422, []string{`name "dev"`}},
		{"create_branch only", pitrToken(t, srv, "create_branch"), platform.CreateBranchParams{RestorePoint: hourAgo}, 404, nil},
		{"OAuth: the restore scope on another branch", oauthClient(t, srv, oauthGrant(t, srv, fake.Consent{Databases: []string{srv.Org() + "/" + createPG}, Branches: []string{srv.Org() + "/" + createPG + "/dev"}},
			platform.ScopeDatabaseReadDatabase, platform.ScopeOrganizationReadDatabases, platform.ScopeBranchRestoreBackups)), platform.CreateBranchParams{ParentBranch: "main", RestorePoint: hourAgo}, 404, nil},
		{"a production parent with restore_backup", pitrToken(t, srv, "restore_backup"), platform.CreateBranchParams{RestorePoint: hourAgo}, 404, nil},
		{"a development parent with restore_production_branch_backup", pitrToken(t, srv, "restore_production_branch_backup"),
			platform.CreateBranchParams{ParentBranch: "dev", RestorePoint: hourAgo}, 404, nil},
	} {
		p := tc.p
		p.Organization, p.Database, p.Name = srv.Org(), stdcmp.Or(p.Database, createPG), stdcmp.Or(p.Name, "refused")
		t.Run(tc.name, func(t *testing.T) {
			refusedChangesNothing(t, srv, tc.c, func() error { _, err := tc.c.Branches.Create(t.Context(), &p); return err }, tc.status, tc.says...)
		})
	}
	// Older than the retention: a week on, the window starts a week back,
	// at what was now.
	srv.Advance(7 * 24 * time.Hour)
	refusedChangesNothing(t, srv, c, func() error {
		_, err := c.Branches.Create(t.Context(), &platform.CreateBranchParams{Organization: srv.Org(), Database: createPG, Name: "old", RestorePoint: stamp(now.Add(-time.Millisecond))})
		return err
	}, 422, "restore_point", "window of branch main, "+now.Format(time.RFC3339Nano), "7 days")
	if _, err := c.Branches.Create(t.Context(), &platform.CreateBranchParams{Organization: srv.Org(), Database: createPG, Name: "old", RestorePoint: stamp(now)}); err != nil {
		t.Errorf("the window's first moment: %v", err)
	}
	// A restore point that is no time is a 400 naming it.
	before, err := srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	r := send(t, srv, "POST", "/v1/organizations/"+srv.Org()+"/databases/"+createPG+"/branches", admin(srv), `{"name":"bad","restore_point":"yesterday"}`)
	if r.status != http.StatusBadRequest || !bytes.Contains(r.body, []byte("restore_point")) {
		t.Errorf("restore_point yesterday: %d %s, want 400 naming restore_point", r.status, r.body)
	}
	if after, err := srv.Snapshot(); err != nil || !bytes.Equal(before, after) {
		t.Errorf("a refused restore point changed the world (%v)", err)
	}
}

// missingDB creates a branch with create_database_if_missing in a
// database of srv's organization named db.
func missingDB(t *testing.T, srv *fake.Server, c *platform.Client, db string, p platform.CreateBranchParams) (*platform.Branch, error) {
	t.Helper()
	p.Organization, p.Database, p.CreateDatabaseIfMissing = srv.Org(), db, platform.Ptr(true)
	p.Name = stdcmp.Or(p.Name, "feature")
	return c.Branches.Create(t.Context(), &p)
}

func TestCreateBranchCreateDatabaseIfMissing(t *testing.T) {
	t.Parallel()
	srv, c := newCreateWorld(t)
	org := srv.Org()
	tm := fake.DefaultTimings()
	b, err := missingDB(t, srv, c, "fresh", platform.CreateBranchParams{Kind: platform.KindPostgreSQL, ClusterName: "PS_20", Region: "eu-west", DeletionProtected: platform.Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	db, err := c.Databases.Get(t.Context(), &platform.GetDatabaseParams{Organization: org, Database: "fresh"})
	if err != nil {
		t.Fatal(err)
	}
	type made struct {
		Kind                          platform.DatabaseKind
		State                         platform.DatabaseState
		DefaultBranch, Region         string
		Branch, Parent, Size, Region2 string
		Ready, Protected              bool
	}
	got := made{Kind: db.Kind, State: db.State, DefaultBranch: db.DefaultBranch, Region: db.Region.Slug,
		Branch: b.Name, Size: b.ClusterName, Region2: b.Region.Slug, Ready: b.Ready, Protected: b.DeletionProtected}
	if b.ParentBranch != nil {
		got.Parent = *b.ParentBranch
	}
	want := made{Kind: platform.KindPostgreSQL, State: platform.DatabasePending, DefaultBranch: "main", Region: "eu-west",
		Branch: "feature", Parent: "main", Size: "PS_20_AWS_X86", Region2: "eu-west", Protected: true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the database and branch made (-want +got):\n%s", diff)
	}
	// The branch is ready once its parent is, and a branch's time after.
	get := &platform.GetBranchParams{Organization: org, Database: "fresh", Branch: "feature"}
	srv.Advance(tm.DatabaseReady)
	if b, err := c.Branches.Get(t.Context(), get); err != nil || b.Ready {
		t.Errorf("feature when its database is ready: %+v, %v; want not ready yet", b, err)
	}
	if b, err := c.Branches.Wait(t.Context(), get); err != nil || !b.Ready {
		t.Fatalf("wait for feature: %+v, %v", b, err)
	}
	if got := srv.Now().Sub(b.CreatedAt.Time); got != tm.DatabaseReady+tm.BranchReady {
		t.Errorf("feature was ready %s after its creation, want %s", got, tm.DatabaseReady+tm.BranchReady)
	}
	// When the database exists, the flag changes nothing; its kind must
	// agree.
	before := branchCount(t, srv, c)
	if _, err := missingDB(t, srv, c, createMySQL, platform.CreateBranchParams{Kind: platform.KindMySQL}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Branches.Create(t.Context(), &platform.CreateBranchParams{Organization: org, Database: createPG, Name: "kinded", Kind: platform.KindPostgreSQL}); err != nil {
		t.Fatal(err)
	}
	if got := branchCount(t, srv, c); got != before+2 {
		t.Errorf("%d branches, want %d: the two made in databases that exist", got, before+2)
	}
	// A service token that may create databases creates one, and may then
	// act in it (the grant create_database gives).
	maker := pitrToken(t, srv, "create_databases")
	if _, err := missingDB(t, srv, maker, "made", platform.CreateBranchParams{Kind: platform.KindMySQL}); err != nil {
		t.Fatalf("with create_databases: %v", err)
	}
	if _, err := maker.Branches.Get(t.Context(), &platform.GetBranchParams{Organization: org, Database: "made", Branch: "feature"}); err != nil {
		t.Errorf("the maker reads its branch: %v", err)
	}
	// And an OAuth token with organization:create_databases and
	// organization:write_branches.
	oc := oauthClient(t, srv, oauthGrant(t, srv, fake.Consent{}, platform.ScopeOrganizationCreateDatabases, platform.ScopeOrganizationWriteBranches))
	if _, err := missingDB(t, srv, oc, "oauthed", platform.CreateBranchParams{Kind: platform.KindMySQL}); err != nil {
		t.Fatalf("with OAuth: %v", err)
	}
	// A snapshot restores the lot.
	if _, err := restoredTwin(t, srv).Client().Branches.Get(t.Context(), &platform.GetBranchParams{Organization: org, Database: "oauthed", Branch: "feature"}); err != nil {
		t.Errorf("after a restore: %v", err)
	}
}

// branchCount counts the branches of newCreateWorld's two databases.
func branchCount(t *testing.T, srv *fake.Server, c *platform.Client) int {
	t.Helper()
	n := 0
	for _, db := range []string{createMySQL, createPG} {
		page, err := c.Branches.List(t.Context(), &platform.ListBranchesParams{Organization: srv.Org(), Database: db})
		if err != nil {
			t.Fatal(err)
		}
		n += len(page.Items)
	}
	return n
}

func TestCreateBranchCreateDatabaseIfMissingRefused(t *testing.T) {
	t.Parallel()
	srv, c := newCreateWorld(t)
	i64 := func(n int64) *int64 { return &n }
	point := pitrAgo(srv, 0)
	for _, tc := range []struct {
		name   string
		c      *platform.Client
		db     string
		p      platform.CreateBranchParams
		status int
		says   []string
	}{
		{"no kind", c, "fresh", platform.CreateBranchParams{}, 422, []string{"kind is required", "create_database_if_missing"}},
		{"no kind, the database there", c, createMySQL, platform.CreateBranchParams{}, 422, []string{"kind is required"}},
		{"a kind of no engine", c, "fresh", platform.CreateBranchParams{Kind: "oracle"}, 422, []string{`kind "oracle"`}},
		{"a kind the database has not", c, createMySQL, platform.CreateBranchParams{Kind: platform.KindPostgreSQL}, 422, []string{`kind "postgresql"`, "mysql database"}},
		{"a database name of capitals", c, "Fresh", platform.CreateBranchParams{Kind: platform.KindMySQL}, 422, []string{`database "Fresh"`}},
		{"backup_id", c, "fresh", platform.CreateBranchParams{Kind: platform.KindMySQL, BackupID: "bk", ClusterSize: "PS_10"}, 422, []string{"backup_id", "fresh"}},
		{"seed_data", c, "fresh", platform.CreateBranchParams{Kind: platform.KindMySQL, SeedData: platform.SeedLastSuccessfulBackup}, 422, []string{"seed_data", "fresh"}},
		{"restore_point", c, "fresh", platform.CreateBranchParams{Kind: platform.KindPostgreSQL, RestorePoint: point}, 422, []string{"restore_point", "fresh"}},
		{"keyspace_cluster_sizes", c, "fresh", platform.CreateBranchParams{Kind: platform.KindMySQL, KeyspaceClusterSizes: []platform.KeyspaceClusterSize{{KeyspaceName: "fresh", ClusterSize: "PS_10"}}}, 422, []string{"keyspace_cluster_sizes"}},
		{"no name", c, "fresh", platform.CreateBranchParams{Kind: platform.KindMySQL, Name: "Bad Name"}, 422, []string{`name "Bad Name"`}},
		{"the default branch's name", c, "fresh", platform.CreateBranchParams{Kind: platform.KindMySQL, Name: "main"}, 422, []string{`name "main"`, "default branch"}},
		{"another parent", c, "fresh", platform.CreateBranchParams{Kind: platform.KindMySQL, ParentBranch: "dev"}, 422, []string{`parent_branch "dev"`}},
		{"an unknown region", c, "fresh", platform.CreateBranchParams{Kind: platform.KindMySQL, Region: "mars-1"}, 422, []string{`region "mars-1"`}},
		{"an unknown size", c, "fresh", platform.CreateBranchParams{Kind: platform.KindMySQL, ClusterSize: "PS_BOGUS"}, 422, []string{`cluster_size "PS_BOGUS"`}},
		{"cluster_name on MySQL", c, "fresh", platform.CreateBranchParams{Kind: platform.KindMySQL, ClusterName: "PS_20"}, 422, []string{"cluster_name", "mysql"}},
		{"major_version on MySQL", c, "fresh", platform.CreateBranchParams{Kind: platform.KindMySQL, MajorVersion: "17"}, 422, []string{"major_version", "mysql"}},
		{"an unknown major_version", c, "fresh", platform.CreateBranchParams{Kind: platform.KindPostgreSQL, MajorVersion: "15"}, 422, []string{`major_version "15"`}},
		{"storage on MySQL", c, "fresh", platform.CreateBranchParams{Kind: platform.KindMySQL, Storage: &platform.StorageParams{MaximumStorageBytes: i64(20 << 30)}}, 422, []string{"storage", "mysql"}},
		{"without create_databases", pitrToken(t, srv, "create_branch"), "fresh", platform.CreateBranchParams{Kind: platform.KindMySQL}, 404, nil},
		{"OAuth without write_branches", oauthClient(t, srv, oauthGrant(t, srv, fake.Consent{}, platform.ScopeOrganizationReadDatabases, platform.ScopeOrganizationCreateDatabases)), "fresh",
			platform.CreateBranchParams{Kind: platform.KindMySQL}, 404, nil},
		{"OAuth without create_databases", oauthClient(t, srv, oauthGrant(t, srv, fake.Consent{}, platform.ScopeOrganizationReadDatabases, platform.ScopeOrganizationWriteBranches)), "fresh",
			platform.CreateBranchParams{Kind: platform.KindMySQL}, 404, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			refusedChangesNothing(t, srv, tc.c, func() error { _, err := missingDB(t, srv, tc.c, tc.db, tc.p); return err }, tc.status, tc.says...)
		})
	}
	// A field of the wrong type is a 400 naming it, as where the database
	// exists, once the caller may create the database; one that may not
	// gets the 404 still, as does a request whose flag is not a boolean.
	tok, err := srv.CreateServiceToken(srv.Org(), fake.TokenSpec{Name: "branches only", Permissions: permissions("create_branch")})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, auth, body string
		status           int
		says             string
	}{
		{"a wrong type", admin(srv), `{"create_database_if_missing":true,"kind":"postgresql","name":"feat","deletion_protected":"yes"}`, 400, "deletion_protected"},
		{"a kind of the wrong type", admin(srv), `{"create_database_if_missing":true,"kind":1,"name":"feat"}`, 400, "kind"},
		{"a wrong type, without create_databases", tok.Authorization(), `{"create_database_if_missing":true,"kind":"postgresql","name":"feat","deletion_protected":"yes"}`, 404, "not_found"},
		{"the flag of the wrong type", admin(srv), `{"create_database_if_missing":"yes","kind":"postgresql","name":"feat"}`, 404, "not_found"},
	} {
		// A credential's last_used_at moves on a refused request too: use it
		// first.
		send(t, srv, http.MethodGet, "/v1/organizations/"+srv.Org()+"/databases", tc.auth, "")
		before, err := srv.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		r := send(t, srv, http.MethodPost, "/v1/organizations/"+srv.Org()+"/databases/fresh/branches", tc.auth, tc.body)
		if r.status != tc.status || !strings.Contains(string(r.body), tc.says) {
			t.Errorf("%s: %d %s, want %d naming %q", tc.name, r.status, r.body, tc.status, tc.says)
		}
		if after, err := srv.Snapshot(); err != nil || !bytes.Equal(before, after) {
			t.Errorf("%s: the refusal changed the world (%v)", tc.name, err)
		}
	}
	// Without the flag, a missing database is not found, kind or not.
	for _, p := range []platform.CreateBranchParams{{}, {Kind: platform.KindMySQL}, {Kind: platform.KindMySQL, CreateDatabaseIfMissing: platform.Ptr(false)}} {
		p.Organization, p.Database, p.Name = srv.Org(), "fresh", "feature"
		refusedChangesNothing(t, srv, c, func() error { _, err := c.Branches.Create(t.Context(), &p); return err }, 404)
	}
}

// TestCreateBranchNewFieldsUnderStrictBodies: the fields are the API's,
// so a fake that refuses unknown fields takes them.
func TestCreateBranchNewFieldsUnderStrictBodies(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t, fake.WithStrictBodies())
	c := srv.Client()
	if _, err := c.Databases.Create(t.Context(), &platform.CreateDatabaseParams{Organization: srv.Org(), Name: createPG, Kind: platform.KindPostgreSQL}); err != nil {
		t.Fatal(err)
	}
	srv.Advance(time.Hour)
	if _, err := c.Branches.Create(t.Context(), &platform.CreateBranchParams{
		Organization: srv.Org(), Database: createPG, Name: "pitr", RestorePoint: pitrAgo(srv, time.Minute),
		CreateDatabaseIfMissing: platform.Ptr(true), Kind: platform.KindPostgreSQL,
	}); err != nil {
		t.Errorf("restore_point, create_database_if_missing and kind under WithStrictBodies: %v", err)
	}
	if _, err := missingDB(t, srv, c, "fresh", platform.CreateBranchParams{Kind: platform.KindMySQL}); err != nil {
		t.Errorf("creating a database under WithStrictBodies: %v", err)
	}
}

// TestRestoreRefusesRestorePoints checks a branch's restore point in a
// snapshot as create_branch takes one: on a PostgreSQL branch restored
// from a branch of its database, not from a backup, within the window
// its parent had when it was made.
func TestRestoreRefusesRestorePoints(t *testing.T) {
	t.Parallel()
	p := refusalWorldPaths(t)
	// set makes pg's main restore the branch of ID from (itself when
	// "") at created+d.
	set := func(d refusalDoc, from string, offset time.Duration) map[string]any {
		b := d.branch("pg", "main")
		created, err := time.Parse(time.RFC3339Nano, b["created"].(string))
		if err != nil {
			panic(err)
		}
		b["restored_from"] = stdcmp.Or(from, b["id"].(string))
		b["restore_point"] = created.Add(offset).Format(time.RFC3339Nano)
		return b
	}
	runRefusals(t, []refusalCase{
		{"a zero time", func(d refusalDoc) { set(d, "", 0)["restore_point"] = "0001-01-01T00:00:00Z" },
			p.pgMain + ".restore_point: a zero time"},
		{"on a MySQL branch", func(d refusalDoc) {
			b := d.branch("app", "main")
			b["restore_point"], b["restored_from"] = b["created"], b["id"]
		}, p.appMain + ".restore_point: a restore point on a branch of mysql database"},
		{"without restored_from", func(d refusalDoc) { set(d, "", 0)["restored_from"] = "" },
			p.pgMain + ".restore_point: set on a branch with no restored_from branch"},
		{"with a backup restored too", func(d refusalDoc) { set(d, "", 0)["initial_restore_id"] = "bk" },
			p.pgMain + ".restore_point: set on a branch restored from backup bk"},
		{"after the branch's creation", func(d refusalDoc) { set(d, "", time.Second) },
			"is after the branch's creation"},
		{"before the window", func(d refusalDoc) { set(d, "", -8*24*time.Hour) },
			"is before the recovery window of its creation"},
		{"before the restored branch was made", func(d refusalDoc) { set(d, "", -time.Second) },
			"which it restores, was created"},
		{"a branch of another database", func(d refusalDoc) { set(d, p.appMainID, 0) },
			"restores branch " + p.appMainID + " of another database"},
		{"itself", func(d refusalDoc) { set(d, "", 0) },
			"not its parent"},
		{"itself, without a restore point", func(d refusalDoc) { delete(set(d, "", 0), "restore_point") },
			"restored_from is the branch itself"},
	})
}
