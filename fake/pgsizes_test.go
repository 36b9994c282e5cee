package fake_test

import (
	"fmt"
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// pgSizesWorld makes a world of PostgreSQL databases, ready: pg in us-east
// (AWS), gpg in eu-central (GCP), arm in us-east on an ARM size, and my, a
// MySQL database; pg has a development branch dev (its parent's size) and
// devsize (on PS_DEV).
func pgSizesWorld(t *testing.T) (*fake.Server, *platform.Client) {
	t.Helper()
	srv := fake.NewServer(t)
	c, org, ctx := srv.Client(), srv.Org(), t.Context()
	for _, p := range []platform.CreateDatabaseParams{
		{Name: "pg", Kind: platform.KindPostgreSQL},
		{Name: "gpg", Kind: platform.KindPostgreSQL, Region: "eu-central"},
		{Name: "arm", Kind: platform.KindPostgreSQL, ClusterSize: "PS_20_AWS_ARM"},
		{Name: "my"},
	} {
		p.Organization = org
		if _, err := c.Databases.Create(ctx, &p); err != nil {
			t.Fatal(err)
		}
	}
	srv.Advance(5 * time.Second)
	for _, p := range []platform.CreateBranchParams{{Name: "dev"}, {Name: "devsize", ClusterName: "PS_DEV"}} {
		p.Organization, p.Database = org, "pg"
		if _, err := c.Branches.Create(ctx, &p); err != nil {
			t.Fatal(err)
		}
	}
	srv.Advance(5 * time.Second)
	return srv, c
}

// TestPostgresSizesAreQualified checks every field that takes a
// PostgreSQL size: a plain name (PS_20), dashed or not, is the size on the
// cluster's provider and architecture (X86 for a new cluster), a
// fully-qualified one (PS_20_AWS_ARM) names itself, and what is stored and
// shown is the fully-qualified name (displayed PS-20); a size of another
// provider, an unknown one, one of the other engine, and for a change an
// architecture the branch does not run are 422s naming the field, which
// change nothing.
func TestPostgresSizesAreQualified(t *testing.T) {
	t.Parallel()
	srv, c := pgSizesWorld(t)
	org, ctx := srv.Org(), t.Context()
	bk, err := c.Backups.Create(ctx, &platform.CreateBackupParams{Organization: org, Database: "pg", Branch: "main"})
	if err != nil {
		t.Fatal(err)
	}
	srv.Advance(time.Hour)
	n := 0
	newDB := func(kind platform.DatabaseKind, region, size string) func() (string, error) {
		return func() (string, error) {
			n++
			db, err := c.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: org, Name: fmt.Sprintf("new-%d", n), Kind: kind, Region: region, ClusterSize: size})
			if err != nil {
				return "", err
			}
			b, err := c.Branches.Get(ctx, &platform.GetBranchParams{Organization: org, Database: db.Name, Branch: "main"})
			if err != nil {
				return "", err
			}
			return b.ClusterName + " " + b.ClusterDisplayName + " " + deref(b.ClusterArchitecture), nil
		}
	}
	newBranch := func(db, region, size, name string) func() (string, error) {
		return func() (string, error) {
			n++
			b, err := c.Branches.Create(ctx, &platform.CreateBranchParams{Organization: org, Database: db, Name: fmt.Sprintf("b-%d", n), Region: region, ClusterSize: size, ClusterName: name})
			if err != nil {
				return "", err
			}
			return b.ClusterName + " " + b.ClusterDisplayName + " " + deref(b.ClusterArchitecture), nil
		}
	}
	restore := func(region, name string) func() (string, error) {
		return func() (string, error) {
			n++
			b, err := c.Branches.Create(ctx, &platform.CreateBranchParams{Organization: org, Database: "pg", Name: fmt.Sprintf("r-%d", n), Region: region, BackupID: bk.ID, ClusterName: name})
			if err != nil {
				return "", err
			}
			return b.ClusterName + " " + b.ClusterDisplayName + " " + deref(b.ClusterArchitecture), nil
		}
	}
	change := func(db, branch, size string) func() (string, error) {
		return func() (string, error) {
			r, err := c.BranchChanges.UpdateChange(ctx, &platform.UpdateBranchChangeRequestParams{Organization: org, Database: db, Branch: branch, ClusterSize: platform.Ptr(size)})
			if err != nil {
				return "", err
			}
			// Each case starts from the branch's own size.
			if err := c.BranchChanges.CancelChanges(ctx, &platform.CancelBranchChangesParams{Organization: org, Database: db, Branch: branch}); err != nil {
				return "", err
			}
			return r.ClusterName + " " + r.ClusterDisplayName + " " + r.PreviousClusterName + " " + r.PreviousClusterDisplayName, nil
		}
	}
	clusterConfig := func(db, branch, size string) func() (string, error) {
		return func() (string, error) {
			if err := c.BranchChanges.UpdateClusterConfig(ctx, &platform.UpdateClusterConfigParams{Organization: org, Database: db, Branch: branch, ClusterSize: size}); err != nil {
				return "", err
			}
			page, err := c.BranchChanges.ListChanges(ctx, &platform.ListBranchChangeRequestsParams{Organization: org, Database: db, Branch: branch})
			if err != nil {
				return "", err
			}
			var r *platform.BranchChangeRequest
			for _, x := range page.Items {
				if x.State == platform.ChangeQueued {
					r = x
				}
			}
			if r == nil {
				return "", nil
			}
			if err := c.BranchChanges.CancelChanges(ctx, &platform.CancelBranchChangesParams{Organization: org, Database: db, Branch: branch}); err != nil {
				return "", err
			}
			return r.ClusterName, nil
		}
	}
	for _, tc := range []struct {
		name string
		do   func() (string, error)
		want string   // the size shown, on success
		says []string // the words of the 422, on a refusal
	}{
		{name: "create_database: the default", do: newDB(platform.KindPostgreSQL, "", ""), want: "PS_10_AWS_X86 PS-10 x86_64"},
		{name: "create_database: plain", do: newDB(platform.KindPostgreSQL, "", "PS_20"), want: "PS_20_AWS_X86 PS-20 x86_64"},
		{name: "create_database: dashed", do: newDB(platform.KindPostgreSQL, "", "PS-20"), want: "PS_20_AWS_X86 PS-20 x86_64"},
		{name: "create_database: plain in a GCP region", do: newDB(platform.KindPostgreSQL, "eu-central", "PS_20"), want: "PS_20_GCP_X86 PS-20 x86_64"},
		{name: "create_database: full", do: newDB(platform.KindPostgreSQL, "", "PS_20_AWS_ARM"), want: "PS_20_AWS_ARM PS-20 arm64"},
		{name: "create_database: full, dashed", do: newDB(platform.KindPostgreSQL, "eu-central", "PS-20-GCP-ARM"), want: "PS_20_GCP_ARM PS-20 arm64"},
		{name: "create_database: another provider", do: newDB(platform.KindPostgreSQL, "", "PS_20_GCP_X86"), says: []string{"cluster_size", `"PS_20_GCP_X86"`, "GCP", "AWS"}},
		{name: "create_database: unknown provider", do: newDB(platform.KindPostgreSQL, "", "PS_20_AZURE_X86"), says: []string{"cluster_size", `"PS_20_AZURE_X86"`, "not a cluster size"}},
		{name: "create_database: unknown", do: newDB(platform.KindPostgreSQL, "", "PS_7"), says: []string{"cluster_size", `"PS_7"`, "not a cluster size"}},
		{name: "create_database: the old ARM name", do: newDB(platform.KindPostgreSQL, "", "PS_40_ARM"), says: []string{"cluster_size", `"PS_40_ARM"`, "not a cluster size"}},
		{name: "create_database: MySQL's Metal", do: newDB(platform.KindPostgreSQL, "", "M_160"), says: []string{"cluster_size", `"M_160"`, "postgresql"}},
		{name: "create_database: PostgreSQL's on MySQL", do: newDB(platform.KindMySQL, "", "PS_20_AWS_X86"), says: []string{"cluster_size", `"PS_20_AWS_X86"`, "not offered for mysql"}},
		{name: "create_database: plain on MySQL", do: newDB(platform.KindMySQL, "", "PS_20"), want: "PS_20 PS-20 "},

		{name: "create_branch: cluster_name plain", do: newBranch("pg", "", "", "PS_20"), want: "PS_20_AWS_X86 PS-20 x86_64"},
		{name: "create_branch: cluster_size full, another architecture", do: newBranch("pg", "", "PS_5_AWS_ARM", ""), want: "PS_5_AWS_ARM PS-5 arm64"},
		{name: "create_branch: PS_DEV", do: newBranch("pg", "", "", "PS_DEV"), want: "PS_DEV PS-DEV "},
		{name: "create_branch: its parent's, in a region of another provider", do: newBranch("pg", "eu-central", "", ""), want: "PS_10_GCP_X86 PS-10 x86_64"},
		{name: "create_branch: an ARM parent's, in a region of another provider", do: newBranch("arm", "eu-central", "", ""), want: "PS_20_GCP_ARM PS-20 arm64"},
		{name: "create_branch: plain, in a region of another provider", do: newBranch("pg", "eu-central", "PS_20", ""), want: "PS_20_GCP_X86 PS-20 x86_64"},
		{name: "create_branch: the database's provider, in a region of another", do: newBranch("pg", "eu-central", "", "PS_20_AWS_X86"), says: []string{"cluster_name", `"PS_20_AWS_X86"`, "AWS", "GCP"}},
		{name: "create_branch: cluster_size of another provider", do: newBranch("pg", "", "PS_20_GCP_X86", ""), says: []string{"cluster_size", "GCP", "AWS"}},
		{name: "create_branch: a production size", do: newBranch("pg", "", "", "PS_80_AWS_X86"), want: "PS_80_AWS_X86 PS-80 x86_64"},
		{name: "create_branch: Metal", do: newBranch("pg", "", "", "M_160"), says: []string{"cluster_name", `"M_160"`, "postgresql"}},
		{name: "create_branch: PostgreSQL's on MySQL", do: newBranch("my", "", "PS_20_AWS_X86", ""), says: []string{"cluster_size", "mysql"}},

		{name: "restore: plain, dashed, as the command-line tool sends it", do: restore("", "PS-10"), want: "PS_10_AWS_X86 PS-10 x86_64"},
		{name: "restore: full", do: restore("", "PS_20_AWS_ARM"), want: "PS_20_AWS_ARM PS-20 arm64"},
		{name: "restore: plain, in a region of another provider", do: restore("eu-central", "PS-10"), want: "PS_10_GCP_X86 PS-10 x86_64"},
		{name: "restore: another provider", do: restore("", "PS_10_GCP_X86"), says: []string{"cluster_name", "GCP", "AWS"}},

		{name: "change: plain", do: change("pg", "main", "PS_40"), want: "PS_40_AWS_X86 PS-40 PS_10_AWS_X86 PS-10"},
		{name: "change: dashed", do: change("pg", "main", "PS-40"), want: "PS_40_AWS_X86 PS-40 PS_10_AWS_X86 PS-10"},
		{name: "change: full", do: change("pg", "main", "PS_40_AWS_X86"), want: "PS_40_AWS_X86 PS-40 PS_10_AWS_X86 PS-10"},
		{name: "change: plain on an ARM branch", do: change("arm", "main", "PS_40"), want: "PS_40_AWS_ARM PS-40 PS_20_AWS_ARM PS-20"},
		{name: "change: plain on GCP", do: change("gpg", "main", "PS_40"), want: "PS_40_GCP_X86 PS-40 PS_10_GCP_X86 PS-10"},
		{name: "change: PS_DEV to ARM", do: change("pg", "devsize", "PS_10_AWS_ARM"), want: "PS_10_AWS_ARM PS-10 PS_DEV PS-DEV"},
		{name: "change: PS_DEV, plain", do: change("pg", "devsize", "PS_10"), want: "PS_10_AWS_X86 PS-10 PS_DEV PS-DEV"},
		{name: "change: another architecture", do: change("pg", "main", "PS_40_AWS_ARM"), says: []string{"cluster_size", `"PS_40_AWS_ARM"`, "ARM", "X86", "architecture"}},
		{name: "change: to X86 from ARM", do: change("arm", "main", "PS-40-AWS-X86"), says: []string{"cluster_size", `"PS-40-AWS-X86"`, "X86", "ARM"}},
		{name: "change: another provider", do: change("pg", "main", "PS_40_GCP_X86"), says: []string{"cluster_size", "GCP", "AWS"}},
		{name: "change: unknown", do: change("pg", "main", "PS_40_AWS_RISCV"), says: []string{"cluster_size", "not a cluster size"}},
		{name: "change: Metal", do: change("pg", "main", "M_320"), says: []string{"cluster_size", "postgresql"}},
		{name: "change: a production size on a development branch", do: change("pg", "dev", "PS_80"), says: []string{"cluster_size", `"PS_80"`, "development branches"}},
		{name: "change: PostgreSQL's on MySQL", do: change("my", "main", "PS_40_AWS_X86"), says: []string{"cluster_size", "mysql"}},
		{name: "cluster config: plain", do: clusterConfig("pg", "main", "PS_20"), want: "PS_20_AWS_X86"},
		{name: "cluster config: another architecture", do: clusterConfig("pg", "main", "PS_20_AWS_ARM"), says: []string{"cluster_size", "ARM", "X86"}},
	} {
		before := opWorldState(t, srv)
		got, err := tc.do()
		if tc.says == nil {
			if err != nil || got != tc.want {
				t.Errorf("%s: %q, %v; want %q", tc.name, got, err, tc.want)
			}
			srv.Advance(5 * time.Second)
			continue
		}
		if err == nil {
			t.Errorf("%s: accepted (%s), want a 422", tc.name, got)
			continue
		}
		apiError(t, err, http.StatusUnprocessableEntity, tc.says...)
		if diff := worldStateDiff(t, before, opWorldState(t, srv)); diff != "" {
			t.Errorf("%s: the refusal changed the world (-before +after):\n%s", tc.name, diff)
		}
	}
}

// TestPostgresSizeLists checks the lists of PostgreSQL's sizes: the
// organization's lists every provider and architecture, in the shape the
// service's official client decodes (PS_10_AWS_ARM, PS-10-AWS-ARM, aws,
// arm64; ARM a tenth cheaper), and a branch's only its provider's and
// architecture's (both on PS_DEV), priced in its region.
func TestPostgresSizeLists(t *testing.T) {
	t.Parallel()
	srv, c := pgSizesWorld(t)
	org, ctx := srv.Org(), t.Context()
	all, err := c.ClusterSizes.List(ctx, &platform.ListClusterSizesParams{Organization: org, PostgreSQL: platform.Ptr(true), Rates: platform.Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(csPostgreSQL, csNames(all)); diff != "" {
		t.Errorf("the organization's PostgreSQL sizes (-want +got):\n%s", diff)
	}
	var arm *platform.ClusterSizeSKU
	for _, s := range all {
		if s.Name == "PS_10_AWS_ARM" {
			arm = s
		}
	}
	want := &platform.ClusterSizeSKU{
		Name: "PS_10_AWS_ARM", DisplayName: "PS-10-AWS-ARM", CPU: "1/8", RAM: 1 << 30, Enabled: true,
		Provider: platform.Ptr("aws"), Architecture: platform.Ptr("arm64"), DefaultVTGate: "VTG_5",
		Rate: platform.Ptr(35.0), ReplicaRate: platform.Ptr(11.0), DefaultVTGateRate: platform.Ptr(0.0),
		SortOrder: arm.SortOrder, Development: true, Production: true,
	}
	if diff := cmp.Diff(want, arm); diff != "" {
		t.Errorf("PS_10_AWS_ARM (-want +got):\n%s", diff)
	}
	mysql, err := c.ClusterSizes.List(ctx, &platform.ListClusterSizesParams{Organization: org, Rates: platform.Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(csMySQL, csNames(mysql)); diff != "" {
		t.Errorf("the organization's MySQL sizes (-want +got):\n%s", diff)
	}

	for _, tc := range []struct {
		db, branch string
		want       []string
		rate       float64 // the second size's, in the branch's region
	}{
		{"pg", "main", csQualified(csPlain[1:], []string{"AWS"}, []string{"X86"}), 59},
		{"pg", "dev", append([]string{"PS_DEV"}, csQualified(csPlain[:3], []string{"AWS"}, []string{"X86"})...), 5},
		{"pg", "devsize", append([]string{"PS_DEV"}, csQualified(csPlain[:3], []string{"AWS"}, []string{"X86", "ARM"})...), 5},
		{"arm", "main", csQualified(csPlain[1:], []string{"AWS"}, []string{"ARM"}), 53},
		{"gpg", "main", csQualified(csPlain[1:], []string{"GCP"}, []string{"X86"}), 65}, // 59 × 1.1
		{"my", "main", csMySQL[2:], 59},
	} {
		skus, err := c.ClusterSizes.ListForBranch(ctx, &platform.ListBranchClusterSizesParams{Organization: org, Database: tc.db, Branch: tc.branch, Rates: platform.Ptr(true)})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, csNames(skus)); diff != "" {
			t.Errorf("%s/%s (-want +got):\n%s", tc.db, tc.branch, diff)
			continue
		}
		if got := skus[1].Rate; got == nil || *got != tc.rate {
			t.Errorf("%s/%s: %s rate = %v, want %v", tc.db, tc.branch, skus[1].Name, got, tc.rate)
		}
	}
}

// TestRestorePlainPostgresSizes checks a snapshot from before PostgreSQL's
// sizes were fully qualified: its plain names (PS_10, and PS_40_ARM, the
// one ARM size then) restore as the sizes on the provider of the
// cluster's region, X86 (ARM for PS_40_ARM), in databases, keyspaces,
// their meters, change requests and billed usage; a fully-qualified name
// of another provider than the region's is refused.
func TestRestorePlainPostgresSizes(t *testing.T) {
	t.Parallel()
	srv, c := pgSizesWorld(t)
	org, ctx := srv.Org(), t.Context()
	// A completed change (its sizes; the usage it ends) and a branch on
	// PS_40 ARM in each provider.
	if _, err := c.BranchChanges.UpdateChange(ctx, &platform.UpdateBranchChangeRequestParams{Organization: org, Database: "gpg", Branch: "main", ClusterSize: platform.Ptr("PS_20")}); err != nil {
		t.Fatal(err)
	}
	for _, db := range []string{"pg", "gpg"} {
		if _, err := c.Branches.Create(ctx, &platform.CreateBranchParams{Organization: org, Database: db, Name: "arm40", ClusterName: "PS_40_" + map[string]string{"pg": "AWS", "gpg": "GCP"}[db] + "_ARM"}); err != nil {
			t.Fatal(err)
		}
	}
	srv.Advance(time.Hour)
	now, err := srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	// What the fake saved before: the plain names.
	old := regexp.MustCompile(`"PS_([0-9]+)_(AWS|GCP)_X86"`).ReplaceAll(now, []byte(`"PS_$1"`))
	old = regexp.MustCompile(`"PS_40_(AWS|GCP)_ARM"`).ReplaceAll(old, []byte(`"PS_40_ARM"`))
	if cmp.Equal(old, now) || !regexp.MustCompile(`"cluster_size": "PS_20"`).Match(old) || !regexp.MustCompile(`"size": "PS_40_ARM"`).Match(old) {
		t.Fatal("the old snapshot names no plain PostgreSQL size")
	}
	restored := fake.NewServer(t)
	if err := restored.Restore(old); err != nil {
		t.Fatal(err)
	}
	again, err := restored.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(now), string(again)); diff != "" {
		t.Errorf("the old snapshot restores otherwise than the new one (-new +restored old):\n%s", diff)
	}

	// A size of another provider than the region's is refused.
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"a database's", editSnapshot(t, now, setField("cluster_size", "PS_10_GCP_X86"), "databases")},
		{"a keyspace's", editSnapshot(t, now, func(rec map[string]any, recs []any) []any {
			if rec["cluster_size"] == "PS_10_AWS_X86" {
				rec["cluster_size"] = "PS_10_GCP_X86"
			}
			return recs
		}, "branches", "keyspaces")},
		{"a change request's", editSnapshot(t, now, func(rec map[string]any, recs []any) []any {
			rec["after"].(map[string]any)["cluster_size"] = "PS_20_AWS_X86"
			return recs
		}, "branches", "cluster", "changes")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			wantRestoreRefused(t, tc.data, "runs on")
		})
	}
}

// TestPostgresSizesBilled checks that an invoice names a PostgreSQL size
// fully qualified, its metric the name and its description the
// catalogue's display name, at the catalogue's price in the branch's
// region (an ARM size a tenth below the X86 one).
func TestPostgresSizesBilled(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	c, org, ctx := srv.Client(), srv.Org(), t.Context()
	billingAdvanceTo(t, srv, billingDay(1, 0))
	for _, p := range []platform.CreateDatabaseParams{
		{Name: "arm", Kind: platform.KindPostgreSQL, ClusterSize: "PS-20-AWS-ARM"},
		{Name: "gpg", Kind: platform.KindPostgreSQL, ClusterSize: "PS_20", Region: "eu-central"},
	} {
		p.Organization = org
		if _, err := c.Databases.Create(ctx, &p); err != nil {
			t.Fatal(err)
		}
	}
	billingAdvanceTo(t, srv, billingDay(32, 0))
	page, err := c.Billing.ListInvoices(ctx, &platform.ListInvoicesParams{Organization: org})
	if err != nil || len(page.Items) != 1 {
		t.Fatalf("invoices: %v, %v; want one", page, err)
	}
	want := []billingLine{
		{"arm", "main", "PS_20_AWS_ARM", "PS-20-AWS-ARM cluster, 744 hours at 53.00 a month", 5402, nil}, // 5300 × 744 / 730
		{"gpg", "main", "PS_20_GCP_X86", "PS-20-GCP-X86 cluster, 744 hours at 65.00 a month", 6625, nil}, // 59 × 1.1, rounded
	}
	if diff := cmp.Diff(want, billingLines(t, c, org, page.Items[0].ID)); diff != "" {
		t.Errorf("line items (-want +got):\n%s", diff)
	}
}
