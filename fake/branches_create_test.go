package fake_test

import (
	"bytes"
	"fmt"
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
// checks that the world a snapshot holds is unchanged. It reads a database
// first with c, fn's client, so that the credential's last use is already
// now.
func refusedChangesNothing(t *testing.T, srv *fake.Server, c *platform.Client, fn func() error, status int, says ...string) {
	t.Helper()
	if _, err := c.Organizations.Get(t.Context(), &platform.GetOrganizationParams{Organization: srv.Org()}); err != nil {
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
		{"cluster_name", "", "PS_20", "PS_20"},
		{"cluster_name with a dash", "", "PS-40", "PS_40"},
		{"both, agreeing", "PS_20", "PS-20", "PS_20"},
		{"the command-line tool's default", "", "PS_DEV", "PS_DEV"},
		{"cluster_size alone", "PS_20", "", "PS_20"},
		{"neither: the parent's", "", "", "PS_10"},
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
