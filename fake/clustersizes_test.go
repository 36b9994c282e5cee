package fake_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// csNames are the names of a list of cluster sizes, in order.
func csNames(skus []*platform.ClusterSizeSKU) []string {
	out := make([]string, len(skus))
	for i, s := range skus {
		out[i] = s.Name
	}
	return out
}

// csDB creates a ready database of kind in region, with a ready
// development branch dev.
func csDB(t *testing.T, srv *fake.Server, name string, kind platform.DatabaseKind, region string) {
	t.Helper()
	c := srv.Client()
	if _, err := c.Databases.Create(t.Context(), &platform.CreateDatabaseParams{Organization: srv.Org(), Name: name, Kind: kind, Region: region}); err != nil {
		t.Fatal(err)
	}
	srv.Advance(5 * time.Second)
	if _, err := c.Branches.Create(t.Context(), &platform.CreateBranchParams{Organization: srv.Org(), Database: name, Name: "dev"}); err != nil {
		t.Fatal(err)
	}
	srv.Advance(5 * time.Second)
}

// csPlain are the sizes of every provider, under MySQL's names.
var csPlain = []string{"PS_5", "PS_10", "PS_20", "PS_40", "PS_80", "PS_160", "PS_320", "PS_640", "PS_1280"}

var (
	csMySQL      = slices.Concat([]string{"PS_DEV"}, csPlain, []string{"M_160", "M_320"})
	csPostgreSQL = append([]string{"PS_DEV"}, csQualified(csPlain, []string{"AWS", "GCP"}, []string{"X86", "ARM"})...)
)

// csQualified are PostgreSQL's fully-qualified names of the plain sizes on
// the providers and architectures, in the catalogue's order.
func csQualified(plain, providers, archs []string) []string {
	var out []string
	for _, p := range plain {
		for _, provider := range providers {
			for _, arch := range archs {
				out = append(out, p+"_"+provider+"_"+arch)
			}
		}
	}
	return out
}

func TestClusterSizesList(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	c := srv.Client()
	csDB(t, srv, "eu-db", platform.KindMySQL, "eu-west")
	list := func(p platform.ListClusterSizesParams) []*platform.ClusterSizeSKU {
		t.Helper()
		p.Organization = srv.Org()
		skus, err := c.ClusterSizes.List(t.Context(), &p)
		if err != nil {
			t.Fatal(err)
		}
		return skus
	}
	rateOf := func(skus []*platform.ClusterSizeSKU, name string) *float64 {
		for _, s := range skus {
			if s.Name == name {
				return s.Rate
			}
		}
		t.Fatalf("no %s in %v", name, csNames(skus))
		return nil
	}

	plain := list(platform.ListClusterSizesParams{})
	if diff := cmp.Diff(csMySQL, csNames(plain)); diff != "" {
		t.Errorf("mysql sizes (-want +got):\n%s", diff)
	}
	wantPS10 := &platform.ClusterSizeSKU{
		Name: "PS_10", DisplayName: "PS-10", CPU: "1/8", RAM: 1 << 30, Enabled: true,
		DefaultVTGate: "VTG_5", SortOrder: 30, Development: true, Production: true,
	}
	if diff := cmp.Diff(wantPS10, plain[2]); diff != "" {
		t.Errorf("PS_10 without rates (-want +got):\n%s", diff)
	}
	metal := plain[slices.Index(csNames(plain), "M_160")]
	if metal.Storage == nil || *metal.Storage != 118<<30 || !metal.Metal || metal.Provider == nil || *metal.Provider != "AWS" || metal.Architecture == nil || metal.Development {
		t.Errorf("M_160 = %+v: want Metal, 118 GiB of storage, on AWS, x86_64, production only", metal)
	}
	// The provider's instance type: the Metal sizes' machines, none for
	// the sizes that run anywhere.
	types := map[string]string{}
	for _, s := range plain {
		if s.ProviderInstanceType != nil {
			types[s.Name] = *s.ProviderInstanceType
		}
	}
	if diff := cmp.Diff(map[string]string{"M_160": "r6id.large", "M_320": "r6id.xlarge"}, types); diff != "" {
		t.Errorf("provider instance types (-want +got):\n%s", diff)
	}

	// The engine, as engine or as the official client's postgresql flag.
	for _, tc := range []struct {
		name string
		p    platform.ListClusterSizesParams
		want []string
	}{
		{"engine postgresql", platform.ListClusterSizesParams{Engine: platform.Ptr(platform.KindPostgreSQL)}, csPostgreSQL},
		{"postgresql=true", platform.ListClusterSizesParams{PostgreSQL: platform.Ptr(true)}, csPostgreSQL},
		{"postgresql=true with engine postgresql", platform.ListClusterSizesParams{PostgreSQL: platform.Ptr(true), Engine: platform.Ptr(platform.KindPostgreSQL)}, csPostgreSQL},
		{"postgresql=false", platform.ListClusterSizesParams{PostgreSQL: platform.Ptr(false)}, csMySQL},
		{"postgresql=false with engine mysql", platform.ListClusterSizesParams{PostgreSQL: platform.Ptr(false), Engine: platform.Ptr(platform.KindMySQL)}, csMySQL},
		{"engine mysql", platform.ListClusterSizesParams{Engine: platform.Ptr(platform.KindMySQL)}, csMySQL},
	} {
		if diff := cmp.Diff(tc.want, csNames(list(tc.p))); diff != "" {
			t.Errorf("%s: sizes (-want +got):\n%s", tc.name, diff)
		}
	}

	rated := list(platform.ListClusterSizesParams{Rates: platform.Ptr(true)})
	wantPS10.Rate, wantPS10.ReplicaRate, wantPS10.DefaultVTGateRate = platform.Ptr(39.0), platform.Ptr(13.0), platform.Ptr(0.0)
	if diff := cmp.Diff(wantPS10, rated[2]); diff != "" {
		t.Errorf("PS_10 with rates in the default region (-want +got):\n%s", diff)
	}
	for _, tc := range []struct {
		name string
		p    platform.ListClusterSizesParams
		want float64
	}{
		{"given region", platform.ListClusterSizesParams{Region: platform.Ptr("ap-southeast")}, 49},
		{"the database's region", platform.ListClusterSizesParams{Database: platform.Ptr("eu-db")}, 43},
		{"given region over the database's", platform.ListClusterSizesParams{Database: platform.Ptr("eu-db"), Region: platform.Ptr("us-west")}, 39},
	} {
		tc.p.Rates = platform.Ptr(true)
		if got := rateOf(list(tc.p), "PS_10"); got == nil || *got != tc.want {
			t.Errorf("%s: PS_10 rate = %v, want %v", tc.name, got, tc.want)
		}
	}
	if got := rateOf(list(platform.ListClusterSizesParams{Region: platform.Ptr("ap-southeast")}), "PS_10"); got != nil {
		t.Errorf("a region without rates: rate = %v, want none", *got)
	}
	// An OAuth token that may list the sizes names a database of the
	// organization as a service token does: its region's rates.
	oc := oauthClient(t, srv, oauthGrant(t, srv, fake.Consent{}, platform.ScopeUserReadOrganizations))
	skus, err := oc.ClusterSizes.List(t.Context(), &platform.ListClusterSizesParams{Organization: srv.Org(), Database: platform.Ptr("eu-db"), Rates: platform.Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	if got := rateOf(skus, "PS_10"); got == nil || *got != 43 {
		t.Errorf("PS_10 rate in eu-db's region for an OAuth token = %v, want 43", got)
	}
}

func TestClusterSizesListRefused(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	csDB(t, srv, "app", platform.KindMySQL, "")
	for _, tc := range []struct {
		name, query string
		status      int
		says        string
	}{
		{"unknown engine", "engine=oracle", http.StatusBadRequest, `engine "oracle"`},
		{"rates not a boolean", "rates=sure", http.StatusBadRequest, "rates"},
		{"unknown region", "rates=true&region=mars", http.StatusUnprocessableEntity, `region "mars"`},
		{"unknown database", "database=nope", http.StatusUnprocessableEntity, `database "nope"`},
		{"postgresql not a boolean", "postgresql=yes", http.StatusBadRequest, `postgresql must be true or false, got "yes"`},
		{"postgresql=true with engine mysql", "engine=mysql&postgresql=true", http.StatusUnprocessableEntity, `engine "mysql" and postgresql=true`},
		{"postgresql=false with engine postgresql", "engine=postgresql&postgresql=false", http.StatusUnprocessableEntity, `engine "postgresql" and postgresql=false`},
		{"postgresql=1 with engine MySQL", "engine=MySQL&postgresql=1", http.StatusUnprocessableEntity, `engine "MySQL" and postgresql=1`},
		{"unknown engine with postgresql=true", "engine=oracle&postgresql=true", http.StatusBadRequest, `engine "oracle"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := send(t, srv, "GET", "/v1/organizations/acme/cluster-size-skus?"+tc.query, admin(srv), "")
			code := map[int]string{http.StatusBadRequest: "bad_request", http.StatusUnprocessableEntity: "unprocessable"}[tc.status]
			if e := wantError(t, w, tc.status, code); !strings.Contains(e.Message, tc.says) {
				t.Errorf("message %q does not name %q", e.Message, tc.says)
			}
		})
	}
	w := send(t, srv, "GET", "/v1/organizations/acme/databases/app/branches/dev/cluster-size-skus?region=mars", admin(srv), "")
	if e := wantError(t, w, http.StatusUnprocessableEntity, "unprocessable"); !strings.Contains(e.Message, `"mars"`) {
		t.Errorf("branch list: message %q does not name the region", e.Message)
	}
}

func TestClusterSizesForBranch(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	c := srv.Client()
	csDB(t, srv, "my", platform.KindMySQL, "eu-central")
	csDB(t, srv, "pg", platform.KindPostgreSQL, "")
	for _, tc := range []struct {
		db, branch string
		want       []string
	}{
		{"my", "main", csMySQL[2:]},
		{"my", "dev", []string{"PS_DEV", "PS_5", "PS_10", "PS_20"}},
		{"pg", "main", csQualified(csPlain[1:], []string{"AWS"}, []string{"X86"})},
		{"pg", "dev", append([]string{"PS_DEV"}, csQualified(csPlain[:3], []string{"AWS"}, []string{"X86"})...)},
	} {
		skus, err := c.ClusterSizes.ListForBranch(t.Context(), &platform.ListBranchClusterSizesParams{Organization: srv.Org(), Database: tc.db, Branch: tc.branch, Rates: platform.Ptr(true)})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, csNames(skus)); diff != "" {
			t.Errorf("%s/%s (-want +got):\n%s", tc.db, tc.branch, diff)
		}
		if tc.db == "my" && tc.branch == "dev" && (skus[2].Rate == nil || *skus[2].Rate != 43) {
			t.Errorf("my/dev PS_10 rate = %v, want 43 (the branch's region, eu-central: 39 × 1.1, rounded)", skus[2].Rate)
		}
	}
	_, err := c.ClusterSizes.ListForBranch(t.Context(), &platform.ListBranchClusterSizesParams{Organization: srv.Org(), Database: "my", Branch: "nope"})
	apiError(t, err, http.StatusNotFound)
}

// TestClusterSizesAgreeWithChecks checks that every size the lists offer
// for an engine is accepted where a cluster_size is taken, and that a size
// of the other engine only is refused.
func TestClusterSizesAgreeWithChecks(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	c := srv.Client()
	for i, kind := range []platform.DatabaseKind{platform.KindMySQL, platform.KindPostgreSQL} {
		skus, err := c.ClusterSizes.List(t.Context(), &platform.ListClusterSizesParams{Organization: srv.Org(), Engine: platform.Ptr(kind)})
		if err != nil {
			t.Fatal(err)
		}
		for j, s := range skus {
			if s.Name == "PS_DEV" { // development branches only: TestDevClusterSize
				continue
			}
			// A PostgreSQL size runs on its provider: a region of it.
			region := ""
			if s.Provider != nil && *s.Provider == "gcp" {
				region = "eu-central"
			}
			db, err := c.Databases.Create(t.Context(), &platform.CreateDatabaseParams{Organization: srv.Org(), Name: fmt.Sprintf("db-%d-%d", i, j), Kind: kind, ClusterSize: s.Name, Region: region})
			if err != nil {
				t.Errorf("%s database of size %s: %v", kind, s.Name, err)
				continue
			}
			srv.Advance(5 * time.Second)
			ks, err := c.Keyspaces.Create(t.Context(), &platform.CreateKeyspaceParams{Organization: srv.Org(), Database: db.Name, Branch: "main", Name: "extra", ClusterSize: s.Name})
			if err != nil {
				t.Errorf("%s keyspace of size %s: %v", kind, s.Name, err)
				continue
			}
			// A cluster shows a PostgreSQL size's display name without its
			// provider and architecture (PS-10 for PS-10-AWS-X86).
			display := s.DisplayName
			if kind == platform.KindPostgreSQL {
				display = strings.Join(strings.Split(display, "-")[:2], "-")
			}
			if ks.ClusterName != s.Name || ks.ClusterDisplayName != display {
				t.Errorf("keyspace of size %s shows %s (%s), want %s (%s)", s.Name, ks.ClusterName, ks.ClusterDisplayName, s.Name, display)
			}
		}
	}
	_, err := c.Databases.Create(t.Context(), &platform.CreateDatabaseParams{Organization: srv.Org(), Name: "pg-metal", Kind: platform.KindPostgreSQL, ClusterSize: "M_160"})
	apiError(t, err, http.StatusUnprocessableEntity, "cluster_size", `"M_160"`, "postgresql")
}

// TestCreateDatabaseDefaultClusterSize checks that a database created
// without a cluster size gets the default, PS_10.
func TestCreateDatabaseDefaultClusterSize(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	c := srv.Client()
	if _, err := c.Databases.Create(t.Context(), &platform.CreateDatabaseParams{Organization: srv.Org(), Name: "plain"}); err != nil {
		t.Fatal(err)
	}
	srv.Advance(5 * time.Second)
	b, err := c.Branches.Get(t.Context(), &platform.GetBranchParams{Organization: srv.Org(), Database: "plain", Branch: "main"})
	if err != nil {
		t.Fatal(err)
	}
	ks, err := c.Keyspaces.Get(t.Context(), &platform.GetKeyspaceParams{Organization: srv.Org(), Database: "plain", Branch: "main", Keyspace: "plain"})
	if err != nil {
		t.Fatal(err)
	}
	if b.ClusterName != "PS_10" || ks.ClusterName != "PS_10" || ks.ClusterDisplayName != "PS-10" {
		t.Errorf("branch %s, keyspace %s (%s): want PS_10 (PS-10)", b.ClusterName, ks.ClusterName, ks.ClusterDisplayName)
	}
}

// TestDevClusterSize checks the development size: a new development
// branch takes it, as the service's own command-line tool asks for it by
// default, at no price; whatever would run a production branch on it is
// refused, naming cluster_size, and changes nothing.
func TestDevClusterSize(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	c, org, ctx := srv.Client(), srv.Org(), t.Context()
	csDB(t, srv, "app", platform.KindMySQL, "ap-southeast")
	b, err := c.Branches.Create(ctx, &platform.CreateBranchParams{Organization: org, Database: "app", Name: "feature", ClusterSize: "PS_DEV"})
	if err != nil {
		t.Fatalf("a development branch of size PS_DEV: %v", err)
	}
	srv.Advance(5 * time.Second)
	ks, err := c.Keyspaces.Get(ctx, &platform.GetKeyspaceParams{Organization: org, Database: "app", Branch: "feature", Keyspace: "app"})
	if err != nil {
		t.Fatal(err)
	}
	if b.ClusterName != "PS_DEV" || ks.ClusterName != "PS_DEV" || ks.ClusterDisplayName != "PS-DEV" {
		t.Errorf("branch %s, keyspace %s (%s): want PS_DEV (PS-DEV)", b.ClusterName, ks.ClusterName, ks.ClusterDisplayName)
	}
	skus, err := c.ClusterSizes.ListForBranch(ctx, &platform.ListBranchClusterSizesParams{Organization: org, Database: "app", Branch: "feature", Rates: platform.Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	if dev := skus[0]; dev.Name != "PS_DEV" || dev.Production || *dev.Rate != 0 || *dev.ReplicaRate != 0 {
		t.Errorf("first size %+v: want PS_DEV, development only, free", dev)
	}

	before := opWorldState(t, srv)
	for _, tc := range []struct {
		name string
		do   func() error
	}{
		{"a database (its default branch is production)", func() error {
			_, err := c.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: org, Name: "devdb", ClusterSize: "PS_DEV"})
			return err
		}},
		{"a keyspace of a production branch", func() error {
			_, err := c.Keyspaces.Create(ctx, &platform.CreateKeyspaceParams{Organization: org, Database: "app", Branch: "main", Name: "extra", ClusterSize: "PS-DEV"})
			return err
		}},
		{"a resize of a production branch's keyspace", func() error {
			_, err := c.Keyspaces.Resize(ctx, &platform.ResizeKeyspaceParams{Organization: org, Database: "app", Branch: "main", Keyspace: "app", ClusterSize: platform.Ptr("PS_DEV")})
			return err
		}},
		{"a change of a production branch", func() error {
			_, err := c.BranchChanges.UpdateChange(ctx, &platform.UpdateBranchChangeRequestParams{Organization: org, Database: "app", Branch: "main", ClusterSize: platform.Ptr("PS_DEV")})
			return err
		}},
		{"a read-only region", func() error {
			_, err := c.Keyspaces.UpdateReadOnlyRegions(ctx, &platform.UpdateReadOnlyRegionsParams{Organization: org, Database: "app", Branch: "main", Keyspace: "app",
				ReadOnlyRegions: []platform.ReadOnlyRegionConfig{{Region: "us-east", ClusterSize: platform.Ptr("PS_DEV")}}})
			return err
		}},
		{"promoting a branch that runs on it", func() error {
			_, err := c.Branches.Promote(ctx, &platform.PromoteBranchParams{Organization: org, Database: "app", Branch: "feature"})
			return err
		}},
	} {
		err := tc.do()
		if err == nil {
			t.Errorf("%s of size PS_DEV: accepted", tc.name)
			continue
		}
		apiError(t, err, http.StatusUnprocessableEntity, "PS")
		if e := err.(*platform.Error); !strings.Contains(e.Message, "cluster_size") || !strings.Contains(e.Message, "development-only") {
			t.Errorf("%s: message %q does not name cluster_size and the development-only size", tc.name, e.Message)
		}
	}
	if diff := worldStateDiff(t, before, opWorldState(t, srv)); diff != "" {
		t.Errorf("refusals changed the world (-before +after):\n%s", diff)
	}
}

// TestDashedClusterSizes checks that a size written with a dash, as the
// service's own command-line tool writes it, names the size everywhere one
// is taken, and that what is stored and shown is the canonical name.
func TestDashedClusterSizes(t *testing.T) {
	t.Parallel()
	srv, c := newBackupWorld(t)
	org, ctx := srv.Org(), t.Context()
	bk := createBackup(t, srv, c, "main")
	if _, err := c.Backups.Wait(ctx, backupOf(srv, "main", bk.ID)); err != nil {
		t.Fatal(err)
	}
	newBackupBranch(t, srv, c, "dev")
	csDB(t, srv, "pg", platform.KindPostgreSQL, "")
	for _, tc := range []struct {
		name, want string
		do         func() (string, error)
	}{
		{"create_database", "PS_20", func() (string, error) {
			if _, err := c.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: org, Name: "dashed", ClusterSize: "PS-20"}); err != nil {
				return "", err
			}
			ks, err := c.Keyspaces.Get(ctx, &platform.GetKeyspaceParams{Organization: org, Database: "dashed", Branch: "main", Keyspace: "dashed"})
			if err != nil {
				return "", err
			}
			return ks.ClusterName, nil
		}},
		{"create_branch", "PS_10", func() (string, error) {
			b, err := c.Branches.Create(ctx, &platform.CreateBranchParams{Organization: org, Database: backupDB, Name: "sized", ClusterSize: "PS-10"})
			if err != nil {
				return "", err
			}
			return b.ClusterName, nil
		}},
		{"create_branch from a backup", "PS_10", func() (string, error) {
			b, err := c.Branches.Create(ctx, &platform.CreateBranchParams{Organization: org, Database: backupDB, Name: "restored", BackupID: bk.ID, ClusterSize: "PS-10"})
			if err != nil {
				return "", err
			}
			return b.ClusterName, nil
		}},
		{"create_keyspace", "PS_40", func() (string, error) {
			ks, err := c.Keyspaces.Create(ctx, &platform.CreateKeyspaceParams{Organization: org, Database: backupDB, Branch: "main", Name: "extra", ClusterSize: "PS-40"})
			if err != nil {
				return "", err
			}
			return ks.ClusterName, nil
		}},
		{"update_keyspace_resize_request", "PS_80", func() (string, error) {
			r, err := c.Keyspaces.Resize(ctx, &platform.ResizeKeyspaceParams{Organization: org, Database: backupDB, Branch: "main", Keyspace: backupDB, ClusterSize: platform.Ptr("PS-80")})
			if err != nil {
				return "", err
			}
			return r.ClusterName, nil
		}},
		{"update_keyspace_read_only_regions", "PS_20", func() (string, error) {
			rs, err := c.Keyspaces.UpdateReadOnlyRegions(ctx, &platform.UpdateReadOnlyRegionsParams{Organization: org, Database: backupDB, Branch: "main", Keyspace: backupDB,
				ReadOnlyRegions: []platform.ReadOnlyRegionConfig{{Region: "eu-west", ClusterSize: platform.Ptr("PS-20")}}})
			if err != nil || len(rs) != 1 {
				return "", err
			}
			return rs[0].ClusterName, nil
		}},
		{"update_branch_change_request", "PS_20", func() (string, error) {
			r, err := c.BranchChanges.UpdateChange(ctx, &platform.UpdateBranchChangeRequestParams{Organization: org, Database: backupDB, Branch: "dev", ClusterSize: platform.Ptr("PS-20")})
			if err != nil {
				return "", err
			}
			return r.ClusterName, nil
		}},
		{"update_branch_resize_request", "VTG_10", func() (string, error) {
			r, err := c.BranchChanges.UpdateResize(ctx, &platform.UpdateBranchResizeRequestParams{Organization: org, Database: "dashed", Branch: "main", VTGateSize: platform.Ptr("VTG-10")})
			if err != nil {
				return "", err
			}
			return r.VTGateSize, nil
		}},
		{"create_bouncer", "PGB_10", func() (string, error) {
			bn, err := c.Bouncers.Create(ctx, &platform.CreateBouncerParams{Organization: org, Database: "pg", Branch: "main", Name: "pool", BouncerSize: platform.Ptr("PGB-10")})
			if err != nil {
				return "", err
			}
			return bn.SKU.Name, nil
		}},
	} {
		got, err := tc.do()
		if err != nil || got != tc.want {
			t.Errorf("%s: %q, %v; want %s", tc.name, got, err, tc.want)
		}
		srv.Advance(5 * time.Second)
	}
}

// TestCataloguePricesAreWhole checks that every price of the catalogue is
// a whole number on the wire in every region, organization-wide and for a
// branch: the service's own clients read them as integers.
func TestCataloguePricesAreWhole(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	csDB(t, srv, "app", platform.KindPostgreSQL, "")
	for _, path := range []string{"/v1/organizations/acme/cluster-size-skus?rates=true&engine=postgresql&region=", "/v1/organizations/acme/databases/app/branches/main/cluster-size-skus?rates=true&region="} {
		for _, region := range []string{"us-east", "eu-west", "eu-central", "ap-southeast"} {
			w := send(t, srv, "GET", path+region, admin(srv), "")
			var skus []map[string]json.RawMessage
			if err := json.Unmarshal(w.body, &skus); err != nil || len(skus) == 0 {
				t.Fatalf("%s%s: %v, %s", path, region, err, w.body)
			}
			for _, s := range skus {
				for _, f := range []string{"rate", "replica_rate", "default_vtgate_rate"} {
					var n int64
					if err := json.Unmarshal(s[f], &n); err != nil {
						t.Errorf("%s in %s: %s %s is not a whole number", s["name"], region, f, s[f])
					}
				}
			}
		}
	}
}
