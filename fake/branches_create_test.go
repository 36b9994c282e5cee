package fake_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
	"github.com/google/go-cmp/cmp"
)

// The fields of create_branch beyond a name and a parent: a PostgreSQL
// branch's size under cluster_name, its major version and storage, seeding
// from the parent's last successful backup, and per-keyspace sizes of a
// backup restore.

const (
	createPG    = "pg"
	createMySQL = "app"
)

// newCreateWorld starts a server with a ready MySQL database createMySQL
// and a ready PostgreSQL database createPG.
func newCreateWorld(t *testing.T) (*fake.Server, *platform.Client) {
	t.Helper()
	srv := fake.NewServer(t)
	c := srv.Client()
	for _, p := range []platform.CreateDatabaseParams{
		{Organization: srv.Org(), Name: createMySQL, ClusterSize: "PS_10"},
		{Organization: srv.Org(), Name: createPG, ClusterSize: "PS_10", Kind: platform.KindPostgreSQL},
	} {
		if _, err := c.Databases.Create(t.Context(), &p); err != nil {
			t.Fatalf("create database %s: %v", p.Name, err)
		}
	}
	srv.Advance(5 * time.Second)
	return srv, c
}

// refusedChangesNothing makes the request fn, expects its refusal, and
// checks that the world a snapshot holds is unchanged. It lists the databases
// first with c, fn's client, so that the credential's last use is already
// now.
func refusedChangesNothing(t *testing.T, srv *fake.Server, c *platform.Client, fn func() error, status int, says ...string) {
	t.Helper()
	if _, err := c.Databases.List(t.Context(), &platform.ListDatabasesParams{Organization: srv.Org()}); err != nil {
		t.Fatal(err)
	}
	before, err := srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	apiError(t, fn(), status, says...)
	after, err := srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Errorf("a refused request changed the world")
	}
}

// pgVersionOf is the full PostgreSQL version a branch runs, as a change
// request shows it (one more replica: 3 on the production branch main, 1
// on a development branch).
func pgVersionOf(t *testing.T, srv *fake.Server, c *platform.Client, branch string) string {
	t.Helper()
	replicas := 1
	if branch == "main" {
		replicas = 3
	}
	r, err := c.BranchChanges.UpdateChange(t.Context(), &platform.UpdateBranchChangeRequestParams{
		Organization: srv.Org(), Database: createPG, Branch: branch, Replicas: &replicas,
	})
	if err != nil {
		t.Fatalf("change request on %s: %v", branch, err)
	}
	return r.Version
}

func TestCreatePostgresBranchClusterName(t *testing.T) {
	t.Parallel()
	srv, c := newCreateWorld(t)
	for i, tc := range []struct {
		name, size, clusterName, want string
	}{
		{"cluster_name", "", "PS_20", "PS_20_AWS_X86"},
		{"cluster_name with a dash", "", "PS-40", "PS_40_AWS_X86"},
		{"cluster_name fully qualified", "", "PS_20_AWS_ARM", "PS_20_AWS_ARM"},
		{"both, agreeing", "PS_20", "PS-20-AWS-X86", "PS_20_AWS_X86"},
		{"the command-line tool's default", "", "PS_DEV", "PS_DEV"},
		{"cluster_size alone", "PS_20", "", "PS_20_AWS_X86"},
		{"neither: the parent's", "", "", "PS_10_AWS_X86"},
	} {
		b, err := c.Branches.Create(t.Context(), &platform.CreateBranchParams{
			Organization: srv.Org(), Database: createPG, Name: fmt.Sprintf("b%d", i), ClusterSize: tc.size, ClusterName: tc.clusterName,
		})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if b.ClusterName != tc.want {
			t.Errorf("%s: cluster_name = %s, want %s", tc.name, b.ClusterName, tc.want)
		}
	}
}

func TestCreateBranchEngineFieldsRefused(t *testing.T) {
	t.Parallel()
	srv, c := newCreateWorld(t)
	i64 := func(n int64) *int64 { return &n }
	for _, tc := range []struct {
		name string
		p    platform.CreateBranchParams
		says []string
	}{
		{"unknown cluster_name", platform.CreateBranchParams{Database: createPG, ClusterName: "PS_BOGUS"}, []string{`cluster_name "PS_BOGUS"`}},
		{"a MySQL-only size as cluster_name", platform.CreateBranchParams{Database: createPG, ClusterName: "M_160"}, []string{`cluster_name "M_160"`, "postgresql"}},
		{"cluster_size and cluster_name differ", platform.CreateBranchParams{Database: createPG, ClusterSize: "PS_10", ClusterName: "PS_20"}, []string{"cluster_size", "cluster_name", "different"}},
		{"cluster_name on MySQL", platform.CreateBranchParams{Database: createMySQL, ClusterName: "PS_20"}, []string{"cluster_name", "mysql"}},
		{"unknown major_version", platform.CreateBranchParams{Database: createPG, MajorVersion: "15"}, []string{`major_version "15"`, "16, 17"}},
		{"major_version on MySQL", platform.CreateBranchParams{Database: createMySQL, MajorVersion: "17"}, []string{"major_version", "mysql"}},
		{"storage on MySQL", platform.CreateBranchParams{Database: createMySQL, Storage: &platform.StorageParams{MaximumStorageBytes: i64(20 << 30)}}, []string{"storage", "mysql"}},
		{"storage minimum above maximum", platform.CreateBranchParams{Database: createPG, Storage: &platform.StorageParams{MinimumStorageBytes: i64(40 << 30), MaximumStorageBytes: i64(20 << 30)}}, []string{"storage.maximum_storage_bytes"}},
		{"storage minimum not positive", platform.CreateBranchParams{Database: createPG, Storage: &platform.StorageParams{MinimumStorageBytes: i64(-1)}}, []string{"storage.minimum_storage_bytes -1"}},
		{"storage maximum below the default minimum", platform.CreateBranchParams{Database: createPG, Storage: &platform.StorageParams{MaximumStorageBytes: i64(1 << 30)}}, []string{"storage.maximum_storage_bytes"}},
		{"keyspace_cluster_sizes without a restore", platform.CreateBranchParams{Database: createMySQL, KeyspaceClusterSizes: []platform.KeyspaceClusterSize{{KeyspaceName: createMySQL, ClusterSize: "PS_20"}}}, []string{"keyspace_cluster_sizes", "backup"}},
	} {
		p := tc.p
		p.Organization, p.Name = srv.Org(), "refused"
		refusedChangesNothing(t, srv, c, func() error { _, err := c.Branches.Create(t.Context(), &p); return err }, 422, tc.says...)
	}
}

func TestCreatePostgresBranchMajorVersionAndStorage(t *testing.T) {
	t.Parallel()
	srv, c := newCreateWorld(t)
	org := srv.Org()
	create := func(p platform.CreateBranchParams) {
		t.Helper()
		p.Organization, p.Database = org, createPG
		if _, err := c.Branches.Create(t.Context(), &p); err != nil {
			t.Fatalf("create %s: %v", p.Name, err)
		}
		srv.Advance(fake.DefaultTimings().BranchReady)
	}
	min, max := int64(20<<30), int64(100<<30)
	create(platform.CreateBranchParams{Name: "old", MajorVersion: "16", Storage: &platform.StorageParams{MinimumStorageBytes: &min, MaximumStorageBytes: &max}})
	create(platform.CreateBranchParams{Name: "old-child", ParentBranch: "old"})
	create(platform.CreateBranchParams{Name: "new-child", ParentBranch: "old", MajorVersion: "17"})
	create(platform.CreateBranchParams{Name: "plain"})
	for branch, want := range map[string]string{"main": "17.5", "old": "16.9", "old-child": "16.9", "new-child": "17.5", "plain": "17.5"} {
		if got := pgVersionOf(t, srv, c, branch); got != want {
			t.Errorf("%s runs %s, want %s", branch, got, want)
		}
	}
	// The storage bounds are the branch's: a change request starts from them.
	list, err := c.BranchChanges.ListChanges(t.Context(), &platform.ListBranchChangeRequestsParams{Organization: org, Database: createPG, Branch: "old"})
	if err != nil || len(list.Items) != 1 {
		t.Fatalf("change requests of old: %v, %v", list, err)
	}
	got := list.Items[0]
	want := [4]int64{min, max, min, max}
	if diff := cmp.Diff(want, [4]int64{got.PreviousMinimumStorageBytes, got.PreviousMaximumStorageBytes, got.MinimumStorageBytes, got.MaximumStorageBytes}); diff != "" {
		t.Errorf("old's storage (previous min, max; min, max) (-want +got):\n%s", diff)
	}
	// A snapshot keeps both.
	data, err := srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	other := fake.NewServer(t)
	if err := other.Restore(data); err != nil {
		t.Fatal(err)
	}
	if got := pgVersionOf(t, other, other.Client(), "old-child"); got != "16.9" {
		t.Errorf("after a restore, old-child runs %s, want 16.9", got)
	}
}

// waitBackup waits until a backup of a branch of backupDB succeeds.
func waitBackup(t *testing.T, srv *fake.Server, c *platform.Client, branch, id string) {
	t.Helper()
	if _, err := c.Backups.Wait(t.Context(), backupOf(srv, branch, id)); err != nil {
		t.Fatalf("wait for backup %s: %v", id, err)
	}
}

// keyspaceSizes lists a branch of backupDB's keyspaces as name=size.
func keyspaceSizes(t *testing.T, srv *fake.Server, c *platform.Client, branch string) []string {
	t.Helper()
	var out []string
	for ks, err := range c.Keyspaces.All(t.Context(), &platform.ListKeyspacesParams{Organization: srv.Org(), Database: backupDB, Branch: branch}) {
		if err != nil {
			t.Fatalf("keyspaces of %s: %v", branch, err)
		}
		out = append(out, ks.Name+"="+ks.ClusterName)
	}
	return out
}

func TestCreateBranchSeedData(t *testing.T) {
	t.Parallel()
	srv, c := newBackupWorld(t)
	org := srv.Org()
	seed := func(cl *platform.Client, name, parent, size string) (*platform.Branch, error) {
		return cl.Branches.Create(t.Context(), &platform.CreateBranchParams{
			Organization: org, Database: backupDB, Name: name, ParentBranch: parent, ClusterSize: size, SeedData: platform.SeedLastSuccessfulBackup,
		})
	}
	refused := func(cl *platform.Client, p platform.CreateBranchParams, status int, says ...string) {
		t.Helper()
		p.Organization, p.Database = org, backupDB
		refusedChangesNothing(t, srv, cl, func() error { _, err := cl.Branches.Create(t.Context(), &p); return err }, status, says...)
	}
	last := platform.CreateBranchParams{Name: "seeded", SeedData: platform.SeedLastSuccessfulBackup}
	refused(c, last, 422, "allow_data_branching")
	if _, err := c.Databases.Update(t.Context(), &platform.UpdateDatabaseParams{Organization: org, Database: backupDB, AllowDataBranching: platform.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	refused(c, last, 422, `seed_data "last_successful_backup"`, "main has no successful backup")
	first := createBackup(t, srv, c, "main")
	refused(c, last, 422, "no successful backup") // still running
	waitBackup(t, srv, c, "main", first.ID)
	if err := srv.PushSchema(org, backupDB, "main", "CREATE TABLE later (id bigint PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	want := backupSchemaTables(t, srv, c, "main")
	second := createBackup(t, srv, c, "main")
	waitBackup(t, srv, c, "main", second.ID)
	failed := createBackup(t, srv, c, "main") // the last backup, but not a successful one
	if err := srv.FailNext(failed.ID); err != nil {
		t.Fatal(err)
	}
	srv.Advance(time.Hour)
	if err := srv.PushSchema(org, backupDB, "main", "DROP TABLE orders"); err != nil {
		t.Fatal(err)
	}

	token := func(perms ...string) *platform.Client {
		tok, err := srv.CreateServiceToken(org, fake.TokenSpec{Name: perms[0], Permissions: permissions(perms...)})
		if err != nil {
			t.Fatal(err)
		}
		return srv.ClientFor(tok)
	}
	refused(c, platform.CreateBranchParams{Name: "seeded", SeedData: "first_backup"}, 422, `seed_data "first_backup"`)
	refused(c, platform.CreateBranchParams{Name: "seeded", SeedData: platform.SeedLastSuccessfulBackup, BackupID: first.ID, ClusterSize: "PS_10"}, 422, "backup_id", "seed_data")
	refused(c, platform.CreateBranchParams{Name: "seeded", SeedData: platform.SeedLastSuccessfulBackup, ParentBranch: "nope"}, 422, `parent_branch "nope"`)
	refused(c, platform.CreateBranchParams{Name: "seeded", SeedData: platform.SeedLastSuccessfulBackup, ClusterSize: "PS_BOGUS"}, 422, `cluster_size "PS_BOGUS"`)
	refused(token("create_branch"), last, 404)
	refused(token("restore_backup"), last, 404) // main's backups are a production branch's

	b, err := seed(token("restore_production_branch_backup"), "seeded", "", "")
	if err != nil {
		t.Fatal(err)
	}
	if b.RestoredFromBranch == nil || b.RestoredFromBranch.Name != "main" || b.InitialRestoreID == nil || *b.InitialRestoreID != second.ID ||
		b.ParentBranch == nil || *b.ParentBranch != "main" {
		t.Errorf("seeded branch: restored_from_branch %+v, initial_restore_id %v, parent %v; want main, %s (the last successful backup), main",
			b.RestoredFromBranch, b.InitialRestoreID, b.ParentBranch, second.ID)
	}
	srv.Advance(fake.DefaultTimings().BranchReady)
	if diff := cmp.Diff(want, backupSchemaTables(t, srv, c, "seeded")); diff != "" {
		t.Errorf("seeded schema (-last successful backup +got):\n%s", diff)
	}
	// Without a size the seeded branch has its parent's; the size the
	// command-line tool sends (PS-10) is taken.
	if diff := cmp.Diff([]string{backupDB + "=PS_10"}, keyspaceSizes(t, srv, c, "seeded")); diff != "" {
		t.Errorf("seeded sizes (-want +got):\n%s", diff)
	}
	if _, err := seed(c, "sized", "", "PS-20"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{backupDB + "=PS_20"}, keyspaceSizes(t, srv, c, "sized")); diff != "" {
		t.Errorf("sized (-want +got):\n%s", diff)
	}
	got := getBackupOf(t, srv, c, "main", second.ID)
	if len(got.RestoredBranches) != 2 {
		t.Errorf("backup %s restored_branches = %+v, want seeded and sized", second.ID, got.RestoredBranches)
	}
	// A development parent's backup takes restore_backup.
	newBackupBranch(t, srv, c, "dev")
	dev := createBackup(t, srv, c, "dev")
	waitBackup(t, srv, c, "dev", dev.ID)
	if b, err := seed(token("restore_backup"), "from-dev", "dev", ""); err != nil || *b.InitialRestoreID != dev.ID {
		t.Errorf("seed from dev: %+v, %v; want a branch restored from %s", b, err, dev.ID)
	}
}

func TestBackupRestoreKeyspaceClusterSizes(t *testing.T) {
	t.Parallel()
	srv, c := newBackupWorld(t)
	org := srv.Org()
	if err := srv.AddKeyspace(org, backupDB, "main", "extra", 1); err != nil {
		t.Fatal(err)
	}
	srv.Advance(time.Minute)
	bk := createBackup(t, srv, c, "main")
	waitBackup(t, srv, c, "main", bk.ID)
	sizes := func(kv ...string) []platform.KeyspaceClusterSize {
		var out []platform.KeyspaceClusterSize
		for i := 0; i < len(kv); i += 2 {
			out = append(out, platform.KeyspaceClusterSize{KeyspaceName: kv[i], ClusterSize: kv[i+1]})
		}
		return out
	}
	restore := func(name, size string, ks []platform.KeyspaceClusterSize) (*platform.Branch, error) {
		return c.Branches.Create(t.Context(), &platform.CreateBranchParams{
			Organization: org, Database: backupDB, Name: name, BackupID: bk.ID, ClusterSize: size, KeyspaceClusterSizes: ks,
		})
	}
	for _, tc := range []struct {
		name string
		size string
		ks   []platform.KeyspaceClusterSize
		says []string
	}{
		{"a keyspace without a size", "", sizes("extra", "PS_40"), []string{"cluster_size is required", "keyspace " + backupDB}},
		{"unknown keyspace", "PS_10", sizes("extra", "PS_40", "nope", "PS_20"), []string{`keyspace_cluster_sizes[1].keyspace_name "nope"`}},
		{"unknown size", "PS_10", sizes("extra", "PS_BOGUS"), []string{`keyspace_cluster_sizes[0].cluster_size "PS_BOGUS"`}},
		{"no size", "PS_10", sizes("extra", ""), []string{"keyspace_cluster_sizes[0].cluster_size is required"}},
		{"no keyspace", "PS_10", sizes("", "PS_20"), []string{"keyspace_cluster_sizes[0].keyspace_name is required"}},
		{"a keyspace twice", "PS_10", sizes("extra", "PS_20", "extra", "PS_40"), []string{`keyspace_cluster_sizes[1].keyspace_name "extra"`, "twice"}},
	} {
		refusedChangesNothing(t, srv, c, func() error { _, err := restore("restored", tc.size, tc.ks); return err }, 422, tc.says...)
	}
	if _, err := restore("every", "", sizes(backupDB, "PS_20", "extra", "PS-40")); err != nil {
		t.Fatal(err)
	}
	if _, err := restore("some", "PS_10", sizes("extra", "PS_40")); err != nil {
		t.Fatal(err)
	}
	for branch, want := range map[string][]string{
		"every": {backupDB + "=PS_20", "extra=PS_40"},
		"some":  {backupDB + "=PS_10", "extra=PS_40"},
	} {
		if diff := cmp.Diff(want, keyspaceSizes(t, srv, c, branch)); diff != "" {
			t.Errorf("%s's sizes (-want +got):\n%s", branch, diff)
		}
	}
}

func TestPostgresBackupRestore(t *testing.T) {
	t.Parallel()
	srv, c := newCreateWorld(t)
	org := srv.Org()
	if _, err := c.Branches.Create(t.Context(), &platform.CreateBranchParams{Organization: org, Database: createPG, Name: "old", MajorVersion: "16"}); err != nil {
		t.Fatal(err)
	}
	srv.Advance(fake.DefaultTimings().BranchReady)
	bk, err := c.Backups.Create(t.Context(), &platform.CreateBackupParams{Organization: org, Database: createPG, Branch: "old"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Backups.Wait(t.Context(), &platform.GetBackupParams{Organization: org, Database: createPG, Branch: "old", ID: bk.ID}); err != nil {
		t.Fatal(err)
	}
	restore := func(p platform.CreateBranchParams) (*platform.Branch, error) {
		p.Organization, p.Database, p.Name, p.BackupID = org, createPG, "restored", bk.ID
		return c.Branches.Create(t.Context(), &p)
	}
	for _, tc := range []struct {
		name string
		p    platform.CreateBranchParams
		says []string
	}{
		{"no size", platform.CreateBranchParams{}, []string{"cluster_size is required"}},
		{"unknown cluster_name", platform.CreateBranchParams{ClusterName: "PS_BOGUS"}, []string{`cluster_name "PS_BOGUS"`}},
		{"keyspace_cluster_sizes", platform.CreateBranchParams{ClusterName: "PS_10", KeyspaceClusterSizes: []platform.KeyspaceClusterSize{{KeyspaceName: createPG, ClusterSize: "PS_10"}}}, []string{"keyspace_cluster_sizes", "postgresql"}},
	} {
		refusedChangesNothing(t, srv, c, func() error { _, err := restore(tc.p); return err }, 422, tc.says...)
	}
	// The command-line tool's restore: the size under cluster_name, with a
	// dash. A major version is ignored: the branch runs the backed-up
	// branch's.
	b, err := restore(platform.CreateBranchParams{ClusterName: "PS-20", MajorVersion: "17"})
	if err != nil {
		t.Fatal(err)
	}
	if b.ClusterName != "PS_20_AWS_X86" || b.RestoredFromBranch == nil || b.RestoredFromBranch.Name != "old" {
		t.Errorf("restored: cluster_name %s, restored_from_branch %+v; want PS_20_AWS_X86 and old", b.ClusterName, b.RestoredFromBranch)
	}
	srv.Advance(fake.DefaultTimings().BranchReady)
	if got := pgVersionOf(t, srv, c, "restored"); got != "16.9" {
		t.Errorf("restored runs %s, want old's 16.9", got)
	}
}

// TestCreateBranchCommandLineBodies sends the bodies the service's
// command-line tool sends (its branch create --seed-data, a PostgreSQL
// branch create with --cluster-size, --major-version and --min-storage /
// --max-storage, and a PostgreSQL backup restore), as observed when it was
// run against the standalone fake, and checks what it then saw.
func TestCreateBranchCommandLineBodies(t *testing.T) {
	t.Parallel()
	srv, c := newCreateWorld(t)
	org := srv.Org()
	if err := srv.PushSchema(org, createMySQL, "main", "CREATE TABLE `widgets` (id bigint NOT NULL, PRIMARY KEY (id))"); err != nil {
		t.Fatal(err)
	}
	post := func(db, body string) (int, map[string]any) {
		t.Helper()
		r := send(t, srv, "POST", "/v1/organizations/"+org+"/databases/"+db+"/branches", admin(srv), body)
		var v map[string]any
		if err := json.Unmarshal(r.body, &v); err != nil {
			t.Fatalf("%s: %v", r.body, err)
		}
		return r.status, v
	}
	seed := `{"name":"seeded","parent_branch":"","seed_data":"last_successful_backup","cluster_size":"PS-10"}`
	// The tool shows these refusals as they come.
	for _, want := range []string{"allow_data_branching", "branch main has no successful backup"} {
		status, v := post(createMySQL, seed)
		if msg, _ := v["message"].(string); status != 422 || !strings.Contains(msg, want) {
			t.Errorf("seed: %d %v, want 422 naming %s", status, v, want)
		}
		if _, err := c.Databases.Update(t.Context(), &platform.UpdateDatabaseParams{Organization: org, Database: createMySQL, AllowDataBranching: platform.Ptr(true)}); err != nil {
			t.Fatal(err)
		}
	}
	bk, err := c.Backups.Create(t.Context(), &platform.CreateBackupParams{Organization: org, Database: createMySQL, Branch: "main", Name: platform.Ptr("bk1")})
	if err != nil {
		t.Fatal(err)
	}
	srv.Advance(time.Hour)
	status, v := post(createMySQL, seed)
	restoredFrom, _ := v["restored_from_branch"].(map[string]any)
	if status != 201 || v["cluster_name"] != "PS_10" || v["parent_branch"] != "main" || v["initial_restore_id"] != bk.ID || restoredFrom["name"] != "main" {
		t.Errorf("seed: %d %v; want 201, PS_10, parent main, restored from main's backup %s", status, v, bk.ID)
	}

	for _, tc := range []struct{ body, size string }{
		{`{"name":"dflt","parent_branch":"","cluster_name":"PS_DEV"}`, "PS_DEV"},
		{`{"name":"big","parent_branch":"","cluster_name":"PS_20"}`, "PS_20_AWS_X86"},
		{`{"name":"old","parent_branch":"","cluster_name":"PS_DEV","major_version":"16"}`, "PS_DEV"},
		{`{"name":"st","parent_branch":"","cluster_name":"PS_DEV","storage":{"minimum_storage_bytes":21474836480,"maximum_storage_bytes":107374182400}}`, "PS_DEV"},
	} {
		if status, v := post(createPG, tc.body); status != 201 || v["cluster_name"] != tc.size {
			t.Errorf("%s: %d %v, want 201 and cluster_name %s", tc.body, status, v, tc.size)
		}
	}
	for body, want := range map[string]string{
		`{"name":"bad","parent_branch":"","cluster_name":"PS_DEV","major_version":"15"}`:                                                                     `major_version "15" is not a supported PostgreSQL major version (16, 17)`,
		`{"name":"st-bad","parent_branch":"","cluster_name":"PS_DEV","storage":{"minimum_storage_bytes":214748364800,"maximum_storage_bytes":107374182400}}`: "storage.maximum_storage_bytes 107374182400 is below minimum_storage_bytes 214748364800",
	} {
		if status, v := post(createPG, body); status != 422 || v["message"] != want {
			t.Errorf("%s: %d %v, want 422 %q", body, status, v, want)
		}
	}
	srv.Advance(time.Hour)
	pbk, err := c.Backups.Create(t.Context(), &platform.CreateBackupParams{Organization: org, Database: createPG, Branch: "old"})
	if err != nil {
		t.Fatal(err)
	}
	srv.Advance(time.Hour)
	status, v = post(createPG, `{"name":"restored","parent_branch":"","backup_id":"`+pbk.ID+`","cluster_name":"PS-20"}`)
	if status != 201 || v["cluster_name"] != "PS_20_AWS_X86" || v["initial_restore_id"] != pbk.ID {
		t.Errorf("PostgreSQL restore: %d %v, want 201, PS_20_AWS_X86, restored from %s", status, v, pbk.ID)
	}
	srv.Advance(time.Hour)
	for branch, want := range map[string]string{"old": "16.9", "st": "17.5", "restored": "16.9"} {
		if got := pgVersionOf(t, srv, c, branch); got != want {
			t.Errorf("%s runs %s, want %s", branch, got, want)
		}
	}
}

// TestCreateDatabaseMajorVersionAndStorage: create_database's
// major_version and storage set its first branch's, checked as
// create_branch checks them; a refusal creates no database.
func TestCreateDatabaseMajorVersionAndStorage(t *testing.T) {
	t.Parallel()
	srv, c := newCreateWorld(t)
	i64 := func(n int64) *int64 { return &n }
	for _, tc := range []struct {
		name string
		p    platform.CreateDatabaseParams
		says []string
	}{
		{"unknown major_version", platform.CreateDatabaseParams{Kind: platform.KindPostgreSQL, MajorVersion: "15"}, []string{`major_version "15"`, "16, 17"}},
		{"a long major_version", platform.CreateDatabaseParams{Kind: platform.KindPostgreSQL, MajorVersion: strings.Repeat("a", 5000)}, []string{"major_version"}},
		{"major_version on MySQL", platform.CreateDatabaseParams{MajorVersion: "17"}, []string{"major_version", "mysql"}},
		{"storage on MySQL", platform.CreateDatabaseParams{Storage: &platform.StorageParams{MaximumStorageBytes: i64(20 << 30)}}, []string{"storage", "mysql"}},
		{"storage minimum above maximum", platform.CreateDatabaseParams{Kind: platform.KindPostgreSQL, Storage: &platform.StorageParams{MinimumStorageBytes: i64(40 << 30), MaximumStorageBytes: i64(20 << 30)}}, []string{"storage.maximum_storage_bytes"}},
	} {
		p := tc.p
		p.Organization, p.Name, p.ClusterSize = srv.Org(), "refused", "PS_10"
		refusedChangesNothing(t, srv, c, func() error { _, err := c.Databases.Create(t.Context(), &p); return err }, 422, tc.says...)
	}
	min, max := int64(20<<30), int64(100<<30)
	if _, err := c.Databases.Create(t.Context(), &platform.CreateDatabaseParams{
		Organization: srv.Org(), Name: "pg16", ClusterSize: "PS_10", Kind: platform.KindPostgreSQL, MajorVersion: "16",
		Storage: &platform.StorageParams{MinimumStorageBytes: &min, MaximumStorageBytes: &max},
	}); err != nil {
		t.Fatal(err)
	}
	srv.Advance(fake.DefaultTimings().DatabaseReady)
	replicas := 3
	r, err := c.BranchChanges.UpdateChange(t.Context(), &platform.UpdateBranchChangeRequestParams{
		Organization: srv.Org(), Database: "pg16", Branch: "main", Replicas: &replicas,
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([3]any{"16.9", min, max}, [3]any{r.Version, r.PreviousMinimumStorageBytes, r.PreviousMaximumStorageBytes}); diff != "" {
		t.Errorf("pg16's main (version, minimum, maximum storage) (-want +got):\n%s", diff)
	}
}
