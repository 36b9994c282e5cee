package fake_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// roEnv is a fake with the ready MySQL database ksDB in us-east, whose
// production branch main has the keyspaces ksDB and orders.
type roEnv struct {
	t   *testing.T
	srv *fake.Server
	c   *platform.Client
}

func newROEnv(t *testing.T) *roEnv {
	t.Helper()
	srv, c := newKeyspaceServer(t)
	ksCreate(t, srv, c, "main", platform.CreateKeyspaceParams{Name: "orders", ClusterSize: "PS_40"})
	srv.Advance(5 * time.Second)
	return &roEnv{t: t, srv: srv, c: c}
}

// set sets a keyspace's read-only regions on branch.
func (e *roEnv) set(branch, ks string, regions ...platform.ReadOnlyRegionConfig) ([]*platform.KeyspaceReadOnlyRegion, error) {
	return e.c.Keyspaces.UpdateReadOnlyRegions(e.t.Context(), &platform.UpdateReadOnlyRegionsParams{
		Organization: e.srv.Org(), Database: ksDB, Branch: branch, Keyspace: ks, ReadOnlyRegions: regions,
	})
}

func (e *roEnv) mustSet(ks string, regions ...platform.ReadOnlyRegionConfig) []*platform.KeyspaceReadOnlyRegion {
	e.t.Helper()
	out, err := e.set("main", ks, regions...)
	if err != nil {
		e.t.Fatalf("setting the read-only regions of %s: %v", ks, err)
	}
	return out
}

// list is the database's read-only regions.
func (e *roEnv) list() []*platform.ReadOnlyRegion {
	e.t.Helper()
	return opCollect(e.t, e.c.Databases.AllReadOnlyRegions(e.t.Context(), &platform.ListReadOnlyRegionsParams{Organization: e.srv.Org(), Database: ksDB}))
}

// slugs are the region slugs of the database's read-only regions, with
// whether each is ready.
func (e *roEnv) slugs() map[string]bool {
	out := map[string]bool{}
	for _, r := range e.list() {
		out[r.Region.Slug] = r.Ready
	}
	return out
}

func roAt(region string) platform.ReadOnlyRegionConfig {
	return platform.ReadOnlyRegionConfig{Region: region}
}

func TestReadOnlyRegionsLifecycle(t *testing.T) {
	t.Parallel()
	e := newROEnv(t)
	ctx := t.Context()
	got := e.mustSet(ksDB, roAt("eu-west"), platform.ReadOnlyRegionConfig{Region: "ap-southeast", ClusterSize: platform.Ptr("PS_20"), Replicas: platform.Ptr(3)})
	want := []*platform.KeyspaceReadOnlyRegion{
		{Region: "eu-west", ClusterName: "PS_10", ClusterDisplayName: "PS-10", Replicas: 2},
		{Region: "ap-southeast", ClusterName: "PS_20", ClusterDisplayName: "PS-20", Replicas: 3},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("response (-want +got):\n%s", diff)
	}
	ks := ksGet(t, e.srv, e.c, "main", ksDB)
	if diff := cmp.Diff([]platform.KeyspaceReadOnlyRegion{*want[0], *want[1]}, ks.ReadOnlyRegions); diff != "" {
		t.Errorf("keyspace's read_only_regions (-want +got):\n%s", diff)
	}

	list := e.list()
	admin, err := e.c.Users.GetCurrent(ctx)
	if err != nil {
		t.Fatal(err)
	}
	now := platform.NewTimestamp(e.srv.Now())
	wantFirst := &platform.ReadOnlyRegion{
		ID: list[0].ID, DisplayName: "AWS eu-west-1 (Dublin)", CreatedAt: now, UpdatedAt: now,
		Actor: &platform.Actor{ID: admin.ID, Type: "User", DisplayName: admin.Name, AvatarURL: list[0].Actor.AvatarURL},
		Region: platform.Region{
			ID: "reg0euwest01", Type: "Region", Provider: "AWS", Enabled: true, PublicIPAddresses: []string{"198.51.100.10", "198.51.100.11"},
			DisplayName: "AWS eu-west-1 (Dublin)", Location: "Dublin, Ireland", Slug: "eu-west",
			CurrentDefault: platform.Ptr(false), MySQLSupported: platform.Ptr(true), PostgreSQLSupported: platform.Ptr(true),
		},
	}
	if len(list) != 2 {
		t.Fatalf("%d read-only regions, want 2", len(list))
	}
	if diff := cmp.Diff(wantFirst, list[0]); diff != "" {
		t.Errorf("first read-only region (-want +got):\n%s", diff)
	}
	db, err := e.c.Databases.Get(ctx, &platform.GetDatabaseParams{Organization: e.srv.Org(), Database: ksDB})
	if err != nil {
		t.Fatal(err)
	}
	if db.DefaultBranchReadOnlyRegionsCount != 2 {
		t.Errorf("default_branch_read_only_regions_count = %d, want 2", db.DefaultBranchReadOnlyRegionsCount)
	}

	e.srv.Advance(29 * time.Second)
	if diff := cmp.Diff(map[string]bool{"eu-west": false, "ap-southeast": false}, e.slugs()); diff != "" {
		t.Errorf("before Timings.ReadOnlyRegionReady (-want +got):\n%s", diff)
	}
	e.srv.Advance(time.Second)
	list = e.list()
	if !list[0].Ready || list[0].ReadyAt == nil || *list[0].ReadyAt != platform.NewTimestamp(e.srv.Now()) || list[0].UpdatedAt != *list[0].ReadyAt {
		t.Errorf("after Timings.ReadOnlyRegionReady: ready %v at %v (updated %v), want ready now", list[0].Ready, list[0].ReadyAt, list[0].UpdatedAt)
	}

	// Another keyspace replicating to eu-west shares the branch's region.
	e.mustSet("orders", roAt("eu-west"), roAt("us-west"))
	after := e.list()
	if len(after) != 3 || after[0].ID != list[0].ID || !after[0].Ready || after[2].Region.Slug != "us-west" || after[2].Ready {
		t.Errorf("after orders adds eu-west and us-west: %v", e.slugs())
	}
	// The region stays while a keyspace still replicates there.
	e.mustSet(ksDB, roAt("ap-southeast"))
	if diff := cmp.Diff(map[string]bool{"eu-west": true, "ap-southeast": true, "us-west": false}, e.slugs()); diff != "" {
		t.Errorf("after the default keyspace drops eu-west (-want +got):\n%s", diff)
	}
	// Deleting a keyspace removes the regions only it used.
	if err := e.c.Keyspaces.Delete(ctx, ksRef(e.srv, "main", "orders")); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]bool{"ap-southeast": true}, e.slugs()); diff != "" {
		t.Errorf("after deleting orders (-want +got):\n%s", diff)
	}
	// An empty list removes them all.
	if got := e.mustSet(ksDB); len(got) != 0 {
		t.Errorf("response to an empty list: %v", got)
	}
	if got := e.list(); len(got) != 0 {
		t.Errorf("%d read-only regions after removing them all", len(got))
	}
	if ks := ksGet(t, e.srv, e.c, "main", ksDB); ks.ReadOnlyRegions == nil || len(ks.ReadOnlyRegions) != 0 {
		t.Errorf("keyspace's read_only_regions = %#v, want an empty list", ks.ReadOnlyRegions)
	}
}

// TestReadOnlyRegionReAdded checks that a region removed while it was
// provisioned and added again starts over: the first one's readiness does
// not carry over.
func TestReadOnlyRegionReAdded(t *testing.T) {
	t.Parallel()
	e := newROEnv(t)
	e.mustSet(ksDB, roAt("eu-west"))
	first := e.list()[0].ID
	e.srv.Advance(20 * time.Second)
	e.mustSet(ksDB)
	e.mustSet(ksDB, roAt("eu-west"))
	e.srv.Advance(10 * time.Second)
	got := e.list()
	if len(got) != 1 || got[0].ID == first || got[0].Ready {
		t.Fatalf("re-added region: %+v, want a new, not yet ready region", got)
	}
	e.srv.Advance(20 * time.Second)
	if got := e.list(); !got[0].Ready {
		t.Error("re-added region not ready after its own Timings.ReadOnlyRegionReady")
	}
}

func TestReadOnlyRegionsRefused(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		setup  func(e *roEnv)
		branch string
		ks     string
		body   string
		status int
		says   []string
	}{
		{name: "unknown region", body: `{"read_only_regions":[{"region":"eu-west"},{"region":"mars"}]}`, status: 422, says: []string{`read_only_regions[1].region "mars"`}},
		{name: "the branch's own region", body: `{"read_only_regions":[{"region":"us-east"}]}`, status: 422, says: []string{`read_only_regions[0].region "us-east"`, "own region"}},
		{name: "a region twice", body: `{"read_only_regions":[{"region":"eu-west"},{"region":"eu-west"}]}`, status: 422, says: []string{`read_only_regions[1].region "eu-west"`, "twice"}},
		{name: "no region", body: `{"read_only_regions":[{"replicas":2}]}`, status: 422, says: []string{"read_only_regions[0].region is required"}},
		{name: "unknown cluster size", body: `{"read_only_regions":[{"region":"eu-west","cluster_size":"PS_BOGUS"}]}`, status: 422, says: []string{`read_only_regions[0].cluster_size "PS_BOGUS"`}},
		{name: "postgresql cluster size", body: `{"read_only_regions":[{"region":"eu-west","cluster_size":"PS_40_GCP_ARM"}]}`, status: 422, says: []string{`"PS_40_GCP_ARM"`, "mysql"}},
		{name: "no replicas", body: `{"read_only_regions":[{"region":"eu-west","replicas":0}]}`, status: 422, says: []string{"read_only_regions[0].replicas", "from 1 to 20"}},
		{name: "too many replicas", body: `{"read_only_regions":[{"region":"eu-west","replicas":21}]}`, status: 422, says: []string{"read_only_regions[0].replicas", "got 21"}},
		{name: "no list", body: `{}`, status: 422, says: []string{"read_only_regions is required"}},
		{name: "not a list", body: `{"read_only_regions":"eu-west"}`, status: 400, says: []string{"read_only_regions"}},
		{
			name:   "development branch",
			setup:  func(e *roEnv) { ksCreateBranch(e.t, e.srv, e.c, "dev") },
			branch: "dev", body: `{"read_only_regions":[{"region":"eu-west"}]}`, status: 422, says: []string{"production branches", "dev"},
		},
		{
			name: "keyspace not ready",
			setup: func(e *roEnv) {
				ksCreate(e.t, e.srv, e.c, "main", platform.CreateKeyspaceParams{Name: "young", ClusterSize: "PS_10"})
			},
			ks: "young", body: `{"read_only_regions":[{"region":"eu-west"}]}`, status: 422, says: []string{"keyspace young is not ready"},
		},
		{name: "unknown keyspace", ks: "nope", body: `{"read_only_regions":[]}`, status: 404, says: []string{"Not Found"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newROEnv(t)
			e.mustSet(ksDB, roAt("ap-southeast"))
			if tc.setup != nil {
				tc.setup(e)
			}
			branch, ks := tc.branch, tc.ks
			if branch == "" {
				branch = "main"
			}
			if ks == "" {
				ks = ksDB
			}
			before, keyspaces := e.list(), ksAll(t, e.srv, e.c, branch)
			w := send(t, e.srv, "PUT", "/v1/organizations/acme/databases/"+ksDB+"/branches/"+branch+"/keyspaces/"+ks+"/read-only-regions", admin(e.srv), tc.body)
			code := map[int]string{400: "bad_request", 404: "not_found", 422: "unprocessable"}[tc.status]
			body := wantError(t, w, tc.status, code)
			for _, s := range tc.says {
				if !strings.Contains(body.Message, s) {
					t.Errorf("message %q does not say %q", body.Message, s)
				}
			}
			if diff := cmp.Diff(before, e.list()); diff != "" {
				t.Errorf("read-only regions changed (-before +after):\n%s", diff)
			}
			if diff := cmp.Diff(keyspaces, ksAll(t, e.srv, e.c, branch)); diff != "" {
				t.Errorf("keyspaces changed (-before +after):\n%s", diff)
			}
		})
	}
}

func TestReadOnlyRegionsPostgreSQL(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	c := srv.Client()
	csDB(t, srv, "pg", platform.KindPostgreSQL, "")
	_, err := c.Keyspaces.UpdateReadOnlyRegions(t.Context(), &platform.UpdateReadOnlyRegionsParams{
		Organization: srv.Org(), Database: "pg", Branch: "main", Keyspace: "pg", ReadOnlyRegions: []platform.ReadOnlyRegionConfig{roAt("eu-west")},
	})
	apiError(t, err, http.StatusUnprocessableEntity, "mysql databases", "pg is postgresql")
	if got := opCollect(t, c.Databases.AllReadOnlyRegions(t.Context(), &platform.ListReadOnlyRegionsParams{Organization: srv.Org(), Database: "pg"})); len(got) != 0 {
		t.Errorf("%d read-only regions, want none", len(got))
	}
}

// TestReadOnlyRegionsOfDefaultBranch checks that the database's list is the
// default branch's: another production branch's regions are not in it.
func TestReadOnlyRegionsOfDefaultBranch(t *testing.T) {
	t.Parallel()
	e := newROEnv(t)
	ksCreateBranch(t, e.srv, e.c, "second")
	if _, err := e.c.Branches.Promote(t.Context(), &platform.PromoteBranchParams{Organization: e.srv.Org(), Database: ksDB, Branch: "second"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.set("second", ksDB, roAt("eu-west")); err != nil {
		t.Fatal(err)
	}
	if got := e.list(); len(got) != 0 {
		t.Errorf("the database lists %d read-only regions of a branch other than its default", len(got))
	}
	e.mustSet(ksDB, roAt("us-west"))
	if diff := cmp.Diff(map[string]bool{"us-west": false}, e.slugs()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	// A branch with read-only regions stays a production branch.
	demote := func() error {
		_, err := e.c.Branches.Demote(t.Context(), &platform.DemoteBranchParams{Organization: e.srv.Org(), Database: ksDB, Branch: "second"})
		return err
	}
	apiError(t, demote(), http.StatusUnprocessableEntity, "branch second has read-only regions (eu-west)", "remove them first")
	if _, err := e.set("second", ksDB); err != nil {
		t.Fatal(err)
	}
	if err := demote(); err != nil {
		t.Errorf("demoting once the regions are removed: %v", err)
	}
}

// TestReadOnlyRegionTiming checks that Timings.ReadOnlyRegionReady sets how
// long a new region takes.
func TestReadOnlyRegionTiming(t *testing.T) {
	t.Parallel()
	srv, c := newKeyspaceServer(t, fake.WithTimings(fake.Timings{ReadOnlyRegionReady: time.Minute}))
	e := &roEnv{t: t, srv: srv, c: c}
	e.mustSet(ksDB, roAt("eu-west"))
	srv.Advance(59 * time.Second)
	if e.slugs()["eu-west"] {
		t.Error("ready before Timings.ReadOnlyRegionReady")
	}
	srv.Advance(time.Second)
	if !e.slugs()["eu-west"] {
		t.Error("not ready after Timings.ReadOnlyRegionReady")
	}
}
