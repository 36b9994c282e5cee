package fake_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// bcParams names a branch for the branch-changes reads.
func bcParams(srv *fake.Server, db, branch string) *platform.BranchParams {
	return &platform.BranchParams{Organization: srv.Org(), Database: db, Branch: branch}
}

func TestListParameters(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	c := srv.Client()
	csDB(t, srv, "pg", platform.KindPostgreSQL, "")
	params, err := c.BranchChanges.ListParameters(t.Context(), bcParams(srv, "pg", "dev"))
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*platform.ClusterParameter{}
	for _, p := range params {
		if p.Value != p.DefaultValue {
			t.Errorf("%s = %q on a new branch, want its default %q", p.Name, p.Value, p.DefaultValue)
		}
		byName[p.Name] = p
	}
	if len(params) != 22 || len(byName) != len(params) {
		t.Fatalf("%d parameters (%d names), want 22 distinct", len(params), len(byName))
	}
	dev, err := c.Branches.Get(t.Context(), &platform.GetBranchParams{Organization: srv.Org(), Database: "pg", Branch: "dev"})
	if err != nil {
		t.Fatal(err)
	}
	got := byName["work_mem"]
	want := &platform.ClusterParameter{
		ID: got.ID, Name: "work_mem", DisplayName: "Work memory", Namespace: platform.NamespacePgconf, Category: "Memory",
		Description:   "Memory a sort or hash operation may use before spilling to disk.",
		ParameterType: platform.ParameterBytes, DefaultValue: "4MB", Value: "4MB",
		Created: dev.CreatedAt, Updated: dev.CreatedAt, Min: 64 << 10, Max: 2 << 30,
		URL: "https://docs.dbplatform.dev/postgresql/parameters#work_mem", Options: []string{},
		Actor: dev.Actor,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("work_mem (-want +got):\n%s", diff)
	}
	for name, check := range map[string]func(p *platform.ClusterParameter) bool{
		"pool_mode":              func(p *platform.ClusterParameter) bool { return p.Namespace == platform.NamespacePgbouncer },
		"synchronous_mode":       func(p *platform.ClusterParameter) bool { return p.Namespace == platform.NamespacePatroni },
		"wal_level":              func(p *platform.ClusterParameter) bool { return p.Immutable },
		"pg_stat_statements.max": func(p *platform.ClusterParameter) bool { return p.Extension && p.Restart },
		"default_transaction_isolation": func(p *platform.ClusterParameter) bool {
			return cmp.Equal(p.Options, []string{"serializable", "repeatable read", "read committed", "read uncommitted"})
		},
	} {
		if p := byName[name]; p == nil || !check(p) {
			t.Errorf("%s = %+v", name, p)
		}
	}

	// The same catalogue, with the same IDs, on every branch.
	main, err := c.BranchChanges.ListParameters(t.Context(), bcParams(srv, "pg", "main"))
	if err != nil {
		t.Fatal(err)
	}
	if len(main) != len(params) || main[0].ID != params[0].ID || main[0].Name != params[0].Name {
		t.Errorf("main's parameters differ from dev's: %s (%s) vs %s (%s)", main[0].Name, main[0].ID, params[0].Name, params[0].ID)
	}
}

func TestListExtensions(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	c := srv.Client()
	csDB(t, srv, "pg", platform.KindPostgreSQL, "")
	exts, err := c.BranchChanges.ListExtensions(t.Context(), bcParams(srv, "pg", "main"))
	if err != nil {
		t.Fatal(err)
	}
	type summary struct {
		Name, Unavailable string
		Loader            platform.ExtensionLoader
		Available         bool
		Params            []string
	}
	var got []summary
	for _, e := range exts {
		s := summary{Name: e.Name, Unavailable: e.UnavailableReason, Loader: e.Loader, Available: e.Available, Params: []string{}}
		for _, p := range e.Parameters {
			if !p.Extension {
				t.Errorf("%s: parameter %s is not marked as an extension's", e.Name, p.Name)
			}
			s.Params = append(s.Params, p.Name)
		}
		got = append(got, s)
	}
	want := []summary{
		{Name: "pg_stat_statements", Loader: platform.LoaderSharedPreload, Available: true, Params: []string{"pg_stat_statements.max", "pg_stat_statements.track"}},
		{Name: "auto_explain", Loader: platform.LoaderSessionPreload, Available: true, Params: []string{"auto_explain.log_min_duration"}},
		{Name: "vector", Loader: platform.LoaderCreate, Available: true, Params: []string{"hnsw.ef_search"}},
		{Name: "pg_trgm", Loader: platform.LoaderCreate, Available: true, Params: []string{}},
		{Name: "postgis", Loader: platform.LoaderCreate, Available: true, Params: []string{}},
		{Name: "pg_cron", Loader: platform.LoaderSharedPreload, Unavailable: "container_upgrade_required", Params: []string{}},
		{Name: "pg_repack", Loader: platform.LoaderCreate, Available: true, Params: []string{}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("extensions (-want +got):\n%s", diff)
	}
}

// TestBranchConfigurationMySQL checks that a MySQL branch has no cluster
// parameters or extensions: its server options are its keyspaces'.
func TestBranchConfigurationMySQL(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	c := srv.Client()
	csDB(t, srv, "my", platform.KindMySQL, "")
	params, err := c.BranchChanges.ListParameters(t.Context(), bcParams(srv, "my", "main"))
	if err != nil || len(params) != 0 {
		t.Errorf("parameters = %v, %v; want none", params, err)
	}
	exts, err := c.BranchChanges.ListExtensions(t.Context(), bcParams(srv, "my", "main"))
	if err != nil || len(exts) != 0 {
		t.Errorf("extensions = %v, %v; want none", exts, err)
	}
	w := send(t, srv, "GET", "/v1/organizations/acme/databases/my/branches/main/parameters", admin(srv), "")
	if w.status != http.StatusOK || string(w.body) != "[]" {
		t.Errorf("raw parameters: %d %s, want 200 []", w.status, w.body)
	}
}

func TestBranchConfigurationNotFound(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	c := srv.Client()
	csDB(t, srv, "pg", platform.KindPostgreSQL, "")
	ctx, p := t.Context(), bcParams(srv, "pg", "nope")
	_, err := c.BranchChanges.ListParameters(ctx, p)
	apiError(t, err, http.StatusNotFound)
	_, err = c.BranchChanges.ListExtensions(ctx, p)
	apiError(t, err, http.StatusNotFound)
	_, err = c.BranchChanges.GetInfrastructure(ctx, p)
	apiError(t, err, http.StatusNotFound)
}

// podSummary is a pod without its name and creation time.
type podSummary struct {
	Component, Status, Ready, Cell, Size, Keyspace, Shard, TabletType string
}

func summarizePods(pods []*platform.InfrastructurePod) []podSummary {
	deref := func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	}
	out := make([]podSummary, len(pods))
	for i, p := range pods {
		out[i] = podSummary{p.Component, p.Status, p.Ready, p.Cell, p.Size, deref(p.Keyspace), deref(p.Shard), deref(p.TabletType)}
	}
	return out
}

func TestBranchInfrastructureMySQL(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	c := srv.Client()
	csDB(t, srv, "my", platform.KindMySQL, "")
	ctx := t.Context()
	if _, err := c.Keyspaces.Create(ctx, &platform.CreateKeyspaceParams{Organization: srv.Org(), Database: "my", Branch: "main", Name: "big", ClusterSize: "PS_80", Shards: platform.Ptr(2)}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Keyspaces.UpdateReadOnlyRegions(ctx, &platform.UpdateReadOnlyRegionsParams{
		Organization: srv.Org(), Database: "my", Branch: "main", Keyspace: "my",
		ReadOnlyRegions: []platform.ReadOnlyRegionConfig{{Region: "eu-west", ClusterSize: platform.Ptr("PS_20"), Replicas: platform.Ptr(1)}},
	}); err != nil {
		t.Fatal(err)
	}
	run := func(component, cell, size, ks, shard, typ string) podSummary {
		return podSummary{component, "Running", "1/1", cell, size, ks, shard, typ}
	}
	pending := func(p podSummary) podSummary { p.Status, p.Ready = "Pending", "0/1"; return p }
	vtgate := run("vtgate", "us-east", "VTG_5", "", "", "")
	myPrimary, myReplica := run("vttablet", "us-east", "PS_10", "my", "-", "primary"), run("vttablet", "us-east", "PS_10", "my", "-", "replica")
	roReplica := run("vttablet", "eu-west", "PS_20", "my", "-", "replica")
	big := func(shard, typ string) podSummary {
		return pending(run("vttablet", "us-east", "PS_80", "big", shard, typ))
	}
	want := []podSummary{
		vtgate, vtgate,
		myPrimary, myReplica, myReplica, pending(roReplica),
		big("-80", "primary"), big("-80", "replica"), big("-80", "replica"),
		big("80-", "primary"), big("80-", "replica"), big("80-", "replica"),
	}
	infra, err := c.BranchChanges.GetInfrastructure(ctx, bcParams(srv, "my", "main"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, summarizePods(infra.Pods)); diff != "" {
		t.Errorf("pods while big and eu-west are provisioned (-want +got):\n%s", diff)
	}
	if infra.Ready || infra.Type != "BranchInfrastructure" {
		t.Errorf("ready = %v, type %q; want not ready, BranchInfrastructure", infra.Ready, infra.Type)
	}
	names := map[string]bool{}
	for _, p := range infra.Pods {
		names[p.Name] = true
	}
	if len(names) != len(infra.Pods) {
		t.Errorf("pod names are not unique: %d names for %d pods", len(names), len(infra.Pods))
	}

	srv.Advance(30 * time.Second)
	for i := range want {
		want[i].Status, want[i].Ready = "Running", "1/1"
	}
	infra, err = c.BranchChanges.GetInfrastructure(ctx, bcParams(srv, "my", "main"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, summarizePods(infra.Pods)); diff != "" {
		t.Errorf("pods once ready (-want +got):\n%s", diff)
	}
	if !infra.Ready {
		t.Error("not ready once every pod runs")
	}

	// A development branch: one router, primaries only.
	infra, err = c.BranchChanges.GetInfrastructure(ctx, bcParams(srv, "my", "dev"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]podSummary{vtgate, myPrimary}, summarizePods(infra.Pods)); diff != "" {
		t.Errorf("dev's pods (-want +got):\n%s", diff)
	}
}

func TestBranchInfrastructurePostgreSQL(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	c := srv.Client()
	if _, err := c.Databases.Create(t.Context(), &platform.CreateDatabaseParams{Organization: srv.Org(), Name: "pg", Kind: platform.KindPostgreSQL, ClusterSize: "PS_40_ARM"}); err != nil {
		t.Fatal(err)
	}
	get := func() *platform.BranchInfrastructure {
		t.Helper()
		infra, err := c.BranchChanges.GetInfrastructure(t.Context(), bcParams(srv, "pg", "main"))
		if err != nil {
			t.Fatal(err)
		}
		return infra
	}
	pod := func(status, ready, typ string) podSummary {
		return podSummary{"postgres", status, ready, "us-east", "PS_40_ARM", "", "", typ}
	}
	if diff := cmp.Diff([]podSummary{pod("Pending", "0/1", "primary"), pod("Pending", "0/1", "replica"), pod("Pending", "0/1", "replica")}, summarizePods(get().Pods)); diff != "" {
		t.Errorf("pods of a pending database (-want +got):\n%s", diff)
	}
	srv.Advance(5 * time.Second)
	infra := get()
	if diff := cmp.Diff([]podSummary{pod("Running", "1/1", "primary"), pod("Running", "1/1", "replica"), pod("Running", "1/1", "replica")}, summarizePods(infra.Pods)); diff != "" || !infra.Ready {
		t.Errorf("pods of a ready database, ready %v (-want +got):\n%s", infra.Ready, diff)
	}
}
