package fake_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
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

// paramsOf lists all of a branch's parameters.
func paramsOf(p *platform.BranchParams) *platform.ListParametersParams {
	return &platform.ListParametersParams{Organization: p.Organization, Database: p.Database, Branch: p.Branch}
}

func TestListParameters(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	c := srv.Client()
	csDB(t, srv, "pg", platform.KindPostgreSQL, "")
	params, err := c.BranchChanges.ListParameters(t.Context(), paramsOf(bcParams(srv, "pg", "dev")))
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
	main, err := c.BranchChanges.ListParameters(t.Context(), paramsOf(bcParams(srv, "pg", "main")))
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
	params, err := c.BranchChanges.ListParameters(t.Context(), paramsOf(bcParams(srv, "my", "main")))
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
	_, err := c.BranchChanges.ListParameters(ctx, paramsOf(p))
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

// TestBranchInfrastructurePostgreSQL checks the PostgreSQL variant, built
// from the branch's model: its instances (primary and replicas) in its
// region's zones, pending until the branch is ready, their volumes from
// the tables' storage and the storage settings, and the bouncers whose
// servers run.
func TestBranchInfrastructurePostgreSQL(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	c := srv.Client()
	if _, err := c.Databases.Create(t.Context(), &platform.CreateDatabaseParams{Organization: srv.Org(), Name: "pg", Kind: platform.KindPostgreSQL, ClusterSize: "PS_40_AWS_ARM"}); err != nil {
		t.Fatal(err)
	}
	get := func() *platform.PostgresInfrastructure {
		t.Helper()
		infra, err := c.BranchChanges.GetInfrastructure(t.Context(), bcParams(srv, "pg", "main"))
		if err != nil {
			t.Fatal(err)
		}
		if infra.Type != platform.InfrastructurePostgres || infra.Postgres == nil || infra.Pods != nil || infra.Ready {
			t.Fatalf("infrastructure = %+v, want the PostgreSQL variant alone", infra)
		}
		return infra.Postgres
	}
	br, err := c.Branches.Get(t.Context(), &platform.GetBranchParams{Organization: srv.Org(), Database: "pg", Branch: "main"})
	if err != nil {
		t.Fatal(err)
	}
	const gib = int64(1) << 30
	node := func(i int, role string, used, capacity int64) *platform.PostgresNode {
		return &platform.PostgresNode{
			Name: fmt.Sprintf("%s-postgres-%d", br.ID, i), NormalizedName: fmt.Sprintf("postgres-%d", i), Role: role,
			AvailabilityZone: fmt.Sprintf("us-east-az%d", i+1), ClusterName: "PS_40_AWS_ARM", ClusterDisplayName: "PS-40",
			PeersCount: 2, VolumeUsageBytes: platform.Ptr(used), VolumeCapacityBytes: platform.Ptr(capacity),
		}
	}
	infra := func(state string, used, capacity int64, bouncers ...*platform.InfrastructureBouncer) *platform.PostgresInfrastructure {
		if bouncers == nil {
			bouncers = []*platform.InfrastructureBouncer{}
		}
		return &platform.PostgresInfrastructure{
			State: state, PrimaryName: br.ID + "-postgres-0",
			Nodes:    []*platform.PostgresNode{node(0, "primary", used, capacity), node(1, "replica", used, capacity), node(2, "replica", used, capacity)},
			Bouncers: bouncers,
		}
	}
	// Regions are compared by slug and ID.
	ignoreRegion := cmp.Comparer(func(a, b platform.Region) bool { return a.Slug == b.Slug && a.ID == b.ID })
	check := func(what string, want *platform.PostgresInfrastructure) {
		t.Helper()
		got := get()
		for _, n := range append([]*platform.PostgresNode(nil), got.Nodes...) {
			if n.Region.Slug != "us-east" || n.Region.DisplayName == "" {
				t.Errorf("%s: node %s in region %+v, want us-east", what, n.Name, n.Region)
			}
		}
		for _, n := range want.Nodes {
			n.Region = platform.Region{Slug: "us-east", ID: got.Nodes[0].Region.ID}
		}
		for _, bn := range want.Bouncers {
			bn.Region = platform.Region{Slug: "us-east", ID: got.Nodes[0].Region.ID}
		}
		if diff := cmp.Diff(want, got, ignoreRegion); diff != "" {
			t.Errorf("%s (-want +got):\n%s", what, diff)
		}
	}
	check("a pending database", infra("pending", 0, 10*gib))
	srv.Advance(5 * time.Second)
	check("a ready database", infra("ready", 0, 10*gib))

	// 100 million rows of 120 bytes outgrow the 10 GiB minimum: the volume
	// grows to the next GiB.
	if err := srv.PushSchema(srv.Org(), "pg", "main", "create table users (id bigint primary key)"); err != nil {
		t.Fatal(err)
	}
	if err := srv.RecordQueries(srv.Org(), "pg", "main", fake.QuerySample{SQL: "insert into users (id) values (1)", RowsAffected: 100_000_000}); err != nil {
		t.Fatal(err)
	}
	check("tables of 12e9 bytes", infra("ready", 12_000_000_000, 12*gib))

	// A bouncer is listed once its servers run.
	if _, err := c.Bouncers.Create(t.Context(), &platform.CreateBouncerParams{Organization: srv.Org(), Database: "pg", Branch: "main", Name: "pool", ReplicasPerCell: platform.Ptr(2)}); err != nil {
		t.Fatal(err)
	}
	check("a pending bouncer", infra("ready", 12_000_000_000, 12*gib))
	srv.Advance(fake.DefaultTimings().BouncerReady)
	bn, err := c.Bouncers.Get(t.Context(), &platform.GetBouncerParams{Organization: srv.Org(), Database: "pg", Branch: "main", Bouncer: "pool"})
	if err != nil {
		t.Fatal(err)
	}
	check("a running bouncer", infra("ready", 12_000_000_000, 12*gib, &platform.InfrastructureBouncer{
		ID: bn.ID, Name: "pool", Target: bn.Target, ReplicasPerCell: 2, SKU: &bn.SKU,
	}))
}

// TestBranchInfrastructureShapes checks each database kind's variant on
// the wire: a MySQL branch's pods with no PostgreSQL fields, a PostgreSQL
// branch's instances and bouncers with no pods.
func TestBranchInfrastructureShapes(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	csDB(t, srv, "my", platform.KindMySQL, "")
	csDB(t, srv, "pg", platform.KindPostgreSQL, "")
	tests := []struct {
		db   string
		want []string
	}{
		{"my", []string{"pods", "ready", "type"}},
		{"pg", []string{"bouncers", "nodes", "primary_name", "primary_promoted_at", "state", "type", "volume_modifications_blocked_until"}},
	}
	for _, tt := range tests {
		t.Run(tt.db, func(t *testing.T) {
			t.Parallel()
			req, err := http.NewRequestWithContext(t.Context(), "GET", srv.URL()+"v1/organizations/"+srv.Org()+"/databases/"+tt.db+"/branches/main/infrastructure", nil)
			if err != nil {
				t.Fatal(err)
			}
			var body map[string]json.RawMessage
			if _, err := srv.Client().Do(req, &body); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, slices.Sorted(maps.Keys(body))); diff != "" {
				t.Errorf("keys (-want +got):\n%s", diff)
			}
		})
	}
}

// TestBranchInfrastructureToolRows holds the fake to what the service's
// command-line tool prints for a PostgreSQL branch's infrastructure (its
// hidden "branch infra" command, run against the standalone fake on
// 2026-11-27): it reads the body as the PostgreSQL variant by its type,
// and prints a row per node (component postgres, its role, its cluster's
// display name, its zone, "used / capacity") and per bouncer (pgbouncer,
// its target, its size's display name, "-", "-"), named: for a new PS_10
// database, "postgres primary PS-10 us-east-az1 0 B / 10 GiB
// <id>-postgres-0" and two replicas in az2 and az3. The rows are built
// here from the wire body by the tool's rules.
func TestBranchInfrastructureToolRows(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	c := srv.Client()
	if _, err := c.Databases.Create(t.Context(), &platform.CreateDatabaseParams{Organization: srv.Org(), Name: "pgdb", Kind: platform.KindPostgreSQL, ClusterSize: "PS_10"}); err != nil {
		t.Fatal(err)
	}
	srv.Advance(time.Minute)
	if _, err := c.Bouncers.Create(t.Context(), &platform.CreateBouncerParams{Organization: srv.Org(), Database: "pgdb", Branch: "main", Name: "pool", Target: platform.Ptr(platform.BouncerTargetReplica), BouncerSize: platform.Ptr("PGB_20")}); err != nil {
		t.Fatal(err)
	}
	srv.Advance(fake.DefaultTimings().BouncerReady)
	req, err := http.NewRequestWithContext(t.Context(), "GET", srv.URL()+"v1/organizations/"+srv.Org()+"/databases/pgdb/branches/main/infrastructure", nil)
	if err != nil {
		t.Fatal(err)
	}
	// What the tool decodes.
	var body struct {
		Type  string `json:"type"`
		Nodes []struct {
			Name                string `json:"name"`
			Role                string `json:"role"`
			AvailabilityZone    string `json:"availability_zone"`
			ClusterDisplayName  string `json:"cluster_display_name"`
			VolumeUsageBytes    *int64 `json:"volume_usage_bytes"`
			VolumeCapacityBytes *int64 `json:"volume_capacity_bytes"`
		} `json:"nodes"`
		Bouncers []struct {
			Name   string `json:"name"`
			Target string `json:"target"`
			SKU    *struct {
				DisplayName string `json:"display_name"`
			} `json:"sku"`
		} `json:"bouncers"`
	}
	if _, err := c.Do(req, &body); err != nil {
		t.Fatal(err)
	}
	if body.Type != "PostgresInfrastructure" {
		t.Fatalf("type %q: the tool would print pods", body.Type)
	}
	// A row is "component | role | size | zone | storage | name", the
	// names without the branch's ID; the tool prints bytes in binary
	// units, which these volumes are whole multiples of.
	var rows []string
	for _, n := range body.Nodes {
		storage := "-"
		if n.VolumeUsageBytes != nil && n.VolumeCapacityBytes != nil {
			storage = fmt.Sprintf("%d B / %d GiB", *n.VolumeUsageBytes, *n.VolumeCapacityBytes>>30)
		}
		name := n.Name[strings.Index(n.Name, "-")+1:]
		rows = append(rows, strings.Join([]string{"postgres", n.Role, n.ClusterDisplayName, n.AvailabilityZone, storage, name}, " | "))
	}
	for _, bn := range body.Bouncers {
		size := "-"
		if bn.SKU != nil {
			size = bn.SKU.DisplayName
		}
		rows = append(rows, strings.Join([]string{"pgbouncer", bn.Target, size, "-", "-", bn.Name}, " | "))
	}
	want := []string{
		"postgres | primary | PS-10 | us-east-az1 | 0 B / 10 GiB | postgres-0",
		"postgres | replica | PS-10 | us-east-az2 | 0 B / 10 GiB | postgres-1",
		"postgres | replica | PS-10 | us-east-az3 | 0 B / 10 GiB | postgres-2",
		"pgbouncer | replica | PGB-20 | - | - | pool",
	}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}

// TestListParametersFilters checks the extension and internal filters,
// as the service's official client and tool send them: each keeps the
// parameters whose extension (immutable) flag is its value, together they
// keep those that pass both, and a value that is not a boolean is a 400
// naming the filter.
func TestListParametersFilters(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	c := srv.Client()
	csDB(t, srv, "pg", platform.KindPostgreSQL, "")
	all, err := c.BranchChanges.ListParameters(t.Context(), paramsOf(bcParams(srv, "pg", "main")))
	if err != nil {
		t.Fatal(err)
	}
	keep := func(pass func(p *platform.ClusterParameter) bool) []string {
		out := []string{}
		for _, p := range all {
			if pass(p) {
				out = append(out, p.Name)
			}
		}
		return out
	}
	tests := []struct {
		name                string
		extension, internal *bool
		want                []string
	}{
		{"none", nil, nil, keep(func(*platform.ClusterParameter) bool { return true })},
		{"extension", platform.Ptr(true), nil, keep(func(p *platform.ClusterParameter) bool { return p.Extension })},
		{"not extension", platform.Ptr(false), nil, keep(func(p *platform.ClusterParameter) bool { return !p.Extension })},
		{"internal", nil, platform.Ptr(true), keep(func(p *platform.ClusterParameter) bool { return p.Immutable })},
		{"not internal", nil, platform.Ptr(false), keep(func(p *platform.ClusterParameter) bool { return !p.Immutable })},
		{"extension and not internal", platform.Ptr(true), platform.Ptr(false), keep(func(p *platform.ClusterParameter) bool { return p.Extension && !p.Immutable })},
		{"extension and internal", platform.Ptr(true), platform.Ptr(true), keep(func(p *platform.ClusterParameter) bool { return p.Extension && p.Immutable })},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := paramsOf(bcParams(srv, "pg", "main"))
			p.Extension, p.Internal = tt.extension, tt.internal
			got, err := c.BranchChanges.ListParameters(t.Context(), p)
			if err != nil {
				t.Fatal(err)
			}
			names := []string{}
			for _, p := range got {
				names = append(names, p.Name)
			}
			if diff := cmp.Diff(tt.want, names); diff != "" {
				t.Errorf("parameters (-want +got):\n%s", diff)
			}
		})
	}
	// The catalogue has parameters of each kind, so that each filter
	// keeps and drops some.
	if n, m := len(keep(func(p *platform.ClusterParameter) bool { return p.Extension })), len(keep(func(p *platform.ClusterParameter) bool { return p.Immutable })); n == 0 || m == 0 || n == len(all) || m == len(all) {
		t.Errorf("%d extension and %d internal parameters of %d: the filters test nothing", n, m, len(all))
	}
	for _, q := range []string{"extension=yes", "internal=2"} {
		w := send(t, srv, "GET", "/v1/organizations/"+srv.Org()+"/databases/pg/branches/main/parameters?"+q, admin(srv), "")
		name := q[:strings.Index(q, "=")]
		if e := wantError(t, w, http.StatusBadRequest, "bad_request"); !strings.Contains(e.Message, name+" must be true or false") {
			t.Errorf("%s: message %q does not name %s", q, e.Message, name)
		}
	}
}
