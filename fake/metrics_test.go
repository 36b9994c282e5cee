package fake_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// metricsEnv is app (its main with a sharded keyspace of two shards) an
// hour after t0, with queries recorded on main at known times.
type metricsEnv struct {
	*drEnv
	t0 time.Time
}

func newMetricsEnv(t *testing.T) *metricsEnv {
	t.Helper()
	e := &metricsEnv{drEnv: newDREnv(t, true)}
	e.t0 = e.srv.Now()
	e.srv.Advance(time.Hour)
	return e
}

// record records samples on main at t0 plus their Time's offset (Time
// holds an offset from the zero time).
func (e *metricsEnv) record(samples ...fake.QuerySample) {
	e.t.Helper()
	samples = slices.Clone(samples)
	for i := range samples {
		samples[i].Time = e.t0.Add(samples[i].Time.Sub(time.Time{}))
	}
	if err := e.srv.RecordQueries(e.org, drDB, "main", samples...); err != nil {
		e.t.Fatal(err)
	}
}

// at is an offset from t0 for record.
func at(d time.Duration) time.Time { return time.Time{}.Add(d) }

// window is the first hour after t0 in n buckets.
func (e *metricsEnv) window(n int) platform.MetricsWindow {
	return platform.MetricsWindow{From: e.t0, To: e.t0.Add(time.Hour), Steps: n}
}

// points reads a series' values, nil as -1.
func points(s *platform.MetricSeries) []float64 {
	var out []float64
	for _, p := range s.Points {
		v := -1.0
		if p.Value != nil {
			v = *p.Value
		}
		out = append(out, v)
	}
	return out
}

// seriesValues maps "metric labels" to a series' values.
func seriesValues(ts *platform.TimeSeries) map[string][]float64 {
	out := map[string][]float64{}
	for _, s := range ts.Series {
		var labels []string
		for _, k := range []string{"keyspace", "fingerprint", "tag_set", "shard", "tablet_type"} {
			if v, ok := s.Labels[k]; ok {
				labels = append(labels, v)
			}
		}
		out[strings.TrimSpace(string(s.Metric)+" "+strings.Join(labels, " "))] = points(s)
	}
	return out
}

var metricsMix = []fake.QuerySample{
	{SQL: "select * from users where id = 1", Tags: map[string]string{"route": "login"}, RowsRead: 1, RowsReturned: 1, Duration: 2 * time.Millisecond, Time: at(time.Minute)},
	{SQL: "select * from users where id = 2", Tags: map[string]string{"route": "login"}, RowsRead: 3, RowsReturned: 1, Duration: 4 * time.Millisecond, Time: at(2 * time.Minute)},
	{SQL: "insert into users (id) values (3)", RowsAffected: 1, Duration: 3 * time.Millisecond, Time: at(2 * time.Minute)},
	{SQL: "select * from users where id = 'x'", Tags: map[string]string{"route": "home"}, Error: "bad id", Duration: 10 * time.Millisecond, Time: at(40 * time.Minute)},
}

// TestBranchMetricsSeries checks a branch's series: the window, the
// buckets' counts, latencies and ratios, nulls where a bucket has nothing
// to measure, and no-source metrics as nulls.
func TestBranchMetricsSeries(t *testing.T) {
	t.Parallel()
	e := newMetricsEnv(t)
	e.record(metricsMix...)
	ts, err := e.c.Metrics.Get(t.Context(), &platform.GetBranchMetricsParams{Organization: e.org, Database: drDB, Branch: "main",
		Metrics: []platform.MetricName{"queries", "query_errors", "rows_read", "rows_written", "latency_min", "latency_p50", "latency_p99",
			"total_duration_millis", "rows_read_per_returned", "cpu_duration_millis"},
		MetricsWindow: e.window(3)})
	if err != nil {
		t.Fatal(err)
	}
	if !ts.StartDate.Equal(e.t0) || !ts.EndDate.Equal(e.t0.Add(time.Hour)) || ts.Interval != 1200 || ts.Type != "metric_series" {
		t.Errorf("window %v..%v interval %d type %q, want t0..t0+1h, 1200 s, metric_series", ts.StartDate, ts.EndDate, ts.Interval, ts.Type)
	}
	want := map[string][]float64{
		"queries":                {3, 0, 1},
		"query_errors":           {0, 0, 1},
		"rows_read":              {4, 0, 0},
		"rows_written":           {1, 0, 0},
		"latency_min":            {2, -1, 10},
		"latency_p50":            {3, -1, 10},
		"latency_p99":            {4, -1, 10},
		"total_duration_millis":  {9, 0, 10},
		"rows_read_per_returned": {2, -1, -1},
		"cpu_duration_millis":    {-1, -1, -1},
	}
	if diff := cmp.Diff(want, seriesValues(ts)); diff != "" {
		t.Errorf("series (-want +got):\n%s", diff)
	}
	if got := ts.Series[0].Points[1].Time; !got.Equal(e.t0.Add(20 * time.Minute)) {
		t.Errorf("second bucket at %v, want t0+20m", got)
	}
	// Filters: a tag (role is the username tag), search terms, a period.
	ts, err = e.c.Metrics.Get(t.Context(), &platform.GetBranchMetricsParams{Organization: e.org, Database: drDB, Branch: "main",
		Metrics: []platform.MetricName{"queries"}, Q: "INSERT users", MetricsWindow: e.window(1)})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string][]float64{"queries": {1}}, seriesValues(ts)); diff != "" {
		t.Errorf("q=INSERT users (-want +got):\n%s", diff)
	}
}

// TestBranchMetricsFilters checks each filter of a branch's series
// the official client sends: tablet_type, role (the username tag), shard,
// pod, budget_id and rule_id (the samples a budget's rules or one rule
// match), and a period in days.
func TestBranchMetricsFilters(t *testing.T) {
	t.Parallel()
	e := newMetricsEnv(t)
	ctx := t.Context()
	e.record(
		fake.QuerySample{SQL: "select * from users where id = 1", Tags: map[string]string{"username": "alice", "route": "login"}, Time: at(time.Minute)},
		fake.QuerySample{SQL: "select count(*) from events", Keyspace: "sharded", ShardQueries: 2, Tags: map[string]string{"username": "bob"}, Time: at(time.Minute)},
		fake.QuerySample{SQL: "select * from users where id = 2", TabletType: platform.TabletReplica, Tags: map[string]string{"username": "alice"}, Time: at(time.Minute)},
	)
	login, err := e.c.TrafficBudgets.Create(ctx, &platform.CreateTrafficBudgetParams{Organization: e.org, Database: drDB, Branch: "main", Name: "login", Rules: []string{"route=login"}})
	if err != nil {
		t.Fatal(err)
	}
	events, err := e.c.TrafficBudgets.Create(ctx, &platform.CreateTrafficBudgetParams{Organization: e.org, Database: drDB, Branch: "main", Name: "events"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.TrafficBudgets.CreateRule(ctx, &platform.CreateTrafficRuleParams{Organization: e.org, Database: drDB, Branch: "main", BudgetID: events.ID, Keyspace: platform.Ptr("sharded"), Tags: []string{"username=bob"}}); err != nil {
		t.Fatal(err)
	}
	// alice's queries ran in app: the keyspace leaves them out.
	none, err := e.c.TrafficBudgets.Create(ctx, &platform.CreateTrafficBudgetParams{Organization: e.org, Database: drDB, Branch: "main", Name: "none"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.TrafficBudgets.CreateRule(ctx, &platform.CreateTrafficRuleParams{Organization: e.org, Database: drDB, Branch: "main", BudgetID: none.ID, Keyspace: platform.Ptr("sharded"), Tags: []string{"username=alice"}}); err != nil {
		t.Fatal(err)
	}
	inf, err := e.c.BranchChanges.GetInfrastructure(ctx, &platform.GetInfrastructureParams{Organization: e.org, Database: drDB, Branch: "main"})
	if err != nil {
		t.Fatal(err)
	}
	var appPrimary string
	for _, p := range inf.Pods {
		if p.Keyspace != nil && *p.Keyspace == drDB && p.TabletType != nil && *p.TabletType == "primary" {
			appPrimary = p.Name
		}
	}
	if appPrimary == "" {
		t.Fatalf("no primary pod of keyspace %s in %+v", drDB, inf.Pods)
	}
	for _, tc := range []struct {
		name string
		p    platform.GetBranchMetricsParams
		want float64
	}{
		{"none", platform.GetBranchMetricsParams{}, 3},
		{"primary", platform.GetBranchMetricsParams{TabletType: platform.TabletPrimary}, 2},
		{"replica", platform.GetBranchMetricsParams{TabletType: platform.TabletReplica}, 1},
		{"rdonly", platform.GetBranchMetricsParams{TabletType: platform.TabletRDOnly}, 0},
		{"role alice", platform.GetBranchMetricsParams{Role: "alice"}, 2},
		{"role bob", platform.GetBranchMetricsParams{Role: "bob"}, 1},
		{"shard -80", platform.GetBranchMetricsParams{Shard: "-80"}, 1},
		{"shard -", platform.GetBranchMetricsParams{Shard: "-"}, 2},
		{"the app primary's pod", platform.GetBranchMetricsParams{Pod: appPrimary}, 1},
		{"pods", platform.GetBranchMetricsParams{Pods: []string{appPrimary, "nope"}}, 1},
		{"shard and pod apart", platform.GetBranchMetricsParams{Shard: "-80", Pod: appPrimary}, 0},
		{"budget by tag", platform.GetBranchMetricsParams{BudgetID: login.ID}, 1},
		{"budget by keyspace and tag", platform.GetBranchMetricsParams{BudgetID: events.ID}, 1},
		{"budget of another keyspace", platform.GetBranchMetricsParams{BudgetID: none.ID}, 0},
		{"rule by tag", platform.GetBranchMetricsParams{RuleID: login.Rules[0].ID}, 1},
		{"role and tablet type", platform.GetBranchMetricsParams{Role: "alice", TabletType: platform.TabletPrimary}, 1},
	} {
		p := tc.p
		p.Organization, p.Database, p.Branch = e.org, drDB, "main"
		p.Metrics, p.MetricsWindow = []platform.MetricName{"queries"}, e.window(1)
		ts, err := e.c.Metrics.Get(ctx, &p)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if diff := cmp.Diff(map[string][]float64{"queries": {tc.want}}, seriesValues(ts)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
	// A period in days ends now and reaches back that many days.
	ts, err := e.c.Metrics.Get(ctx, &platform.GetBranchMetricsParams{Organization: e.org, Database: drDB, Branch: "main",
		Metrics: []platform.MetricName{"queries"}, MetricsWindow: platform.MetricsWindow{Period: "1d", Steps: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if !ts.EndDate.Equal(e.srv.Now()) || !ts.StartDate.Equal(e.srv.Now().Add(-24*time.Hour)) || points(ts.Series[0])[0] != 3 {
		t.Errorf("period 1d: %v..%v, %v; want the day to now and 3 queries", ts.StartDate, ts.EndDate, points(ts.Series[0]))
	}
}

// TestMetricsWithoutQueries checks that a branch that ran nothing answers
// every metrics operation with empty series, never an error.
func TestMetricsWithoutQueries(t *testing.T) {
	t.Parallel()
	e := newMetricsEnv(t)
	ctx, on := t.Context(), func() (string, string, string) { return e.org, drDB, "main" }
	org, db, br := on()
	ts, err := e.c.Metrics.Get(ctx, &platform.GetBranchMetricsParams{Organization: org, Database: db, Branch: br,
		Metrics: []platform.MetricName{"queries", "latency_p50"}, MetricsWindow: platform.MetricsWindow{Period: platform.TrafficPeriod1h, Steps: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string][]float64{"queries": {0, 0}, "latency_p50": {-1, -1}}, seriesValues(ts)); diff != "" {
		t.Errorf("branch (-want +got):\n%s", diff)
	}
	q, err := e.c.Metrics.GetQuery(ctx, &platform.GetQueryMetricsParams{Organization: org, Database: db, Branch: br})
	if err != nil || len(q.Series) != 0 {
		t.Errorf("query metrics %+v, %v; want no series", q, err)
	}
	tag, err := e.c.Metrics.GetTag(ctx, &platform.GetTagMetricsParams{Organization: org, Database: db, Branch: br})
	if err != nil || len(tag.Series) != 0 {
		t.Errorf("tag metrics %+v, %v; want no series", tag, err)
	}
	tab, err := e.c.Metrics.GetTablets(ctx, &platform.GetTabletMetricsParams{Organization: org, Database: db, Branch: br,
		Metrics: []platform.MetricName{platform.MetricPodQueries}, MetricsWindow: platform.MetricsWindow{Steps: 1}})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range tab.Series {
		if diff := cmp.Diff([]float64{0}, points(s)); diff != "" {
			t.Errorf("tablet %v (-want +got):\n%s", s.Labels, diff)
		}
	}
	inst, err := e.c.Metrics.GetInstant(ctx, &platform.GetInstantMetricsParams{Organization: org, Database: db, Branch: br})
	if err != nil || len(inst.Metrics) != 0 || inst.Branch == nil || inst.Branch.Name != "main" {
		t.Errorf("instant metrics %+v, %v; want none, of main", inst, err)
	}
}

// TestQueryAndTagMetrics checks the series per query pattern and per tag
// set: every group with samples when none is named, each named one (even
// without samples) otherwise.
func TestQueryAndTagMetrics(t *testing.T) {
	t.Parallel()
	e := newMetricsEnv(t)
	e.record(metricsMix...)
	ctx := t.Context()
	q, err := e.c.Metrics.GetQuery(ctx, &platform.GetQueryMetricsParams{Organization: e.org, Database: drDB, Branch: "main",
		Metrics: []platform.MetricName{"queries", "query_errors"}, MetricsWindow: e.window(1)})
	if err != nil {
		t.Fatal(err)
	}
	if len(q.Series) != 4 {
		t.Fatalf("%d series, want 2 metrics of 2 patterns: %+v", len(q.Series), q.Series)
	}
	byFingerprint := map[string]float64{}
	var users string
	for _, s := range q.Series {
		if s.Metric == "queries" {
			byFingerprint[s.Labels["fingerprint"]] = points(s)[0]
			if points(s)[0] == 3 {
				users = s.Labels["fingerprint"]
			}
		}
	}
	if users == "" || len(byFingerprint) != 2 {
		t.Fatalf("queries by fingerprint %v: want the users lookup (3: only its literals differ, the failed one's too) and the insert", byFingerprint)
	}
	q, err = e.c.Metrics.GetQuery(ctx, &platform.GetQueryMetricsParams{Organization: e.org, Database: drDB, Branch: "main",
		Metrics: []platform.MetricName{"queries"}, QueryIDs: []string{users, "nope"}, MetricsWindow: e.window(1)})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]float64{"queries " + drDB + " " + users: {3}, "queries " + drDB + " nope": {0}}
	if diff := cmp.Diff(want, seriesValues(q)); diff != "" {
		t.Errorf("query_ids (-want +got):\n%s", diff)
	}

	tag, err := e.c.Metrics.GetTag(ctx, &platform.GetTagMetricsParams{Organization: e.org, Database: drDB, Branch: "main",
		Metrics: []platform.MetricName{"queries"}, MetricsWindow: e.window(1)})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string][]float64{"queries route:home": {1}, "queries route:login": {2}}, seriesValues(tag)); diff != "" {
		t.Errorf("every tag (-want +got):\n%s", diff)
	}
	tag, err = e.c.Metrics.GetTag(ctx, &platform.GetTagMetricsParams{Organization: e.org, Database: drDB, Branch: "main",
		Metrics: []platform.MetricName{"queries"}, TagSets: []string{"route:login", "route:login,tier:web"}, MetricsWindow: e.window(1)})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string][]float64{"queries route:login": {2}, "queries route:login,tier:web": {0}}, seriesValues(tag)); diff != "" {
		t.Errorf("tag_sets (-want +got):\n%s", diff)
	}
}

// TestTabletMetrics checks the tablets' series: every query counted on the
// tablets of the shards it ran on, primary metrics on primaries only,
// replication lag on replicas only.
func TestTabletMetrics(t *testing.T) {
	t.Parallel()
	e := newMetricsEnv(t)
	var samples []fake.QuerySample
	for range 10 {
		samples = append(samples, fake.QuerySample{SQL: "select * from events where id = 1", Keyspace: "sharded", RowsRead: 2, Time: at(time.Minute)})
	}
	samples = append(samples,
		fake.QuerySample{SQL: "select count(*) from events", Keyspace: "sharded", ShardQueries: 2, RowsRead: 5, Time: at(time.Minute)},
		fake.QuerySample{SQL: "select * from events where id = 2", Keyspace: "sharded", TabletType: platform.TabletReplica, Time: at(time.Minute)})
	e.record(samples...)
	ts, err := e.c.Metrics.GetTablets(t.Context(), &platform.GetTabletMetricsParams{Organization: e.org, Database: drDB, Branch: "main",
		Metrics: []platform.MetricName{"pod_queries", "pod_rows_read", "primary_queries", "replication_lag"}, Keyspace: "sharded", MetricsWindow: e.window(1)})
	if err != nil {
		t.Fatal(err)
	}
	sums := map[string]float64{}
	shards := map[string]bool{}
	for _, s := range ts.Series {
		if s.Labels["keyspace"] != "sharded" {
			t.Errorf("series of keyspace %q, want only sharded", s.Labels["keyspace"])
		}
		shards[s.Labels["shard"]] = true
		switch {
		case strings.HasPrefix(string(s.Metric), "primary_") && s.Labels["tablet_type"] != "primary",
			s.Metric == "replication_lag" && s.Labels["tablet_type"] == "primary":
			t.Errorf("%s on a %s tablet", s.Metric, s.Labels["tablet_type"])
		}
		sums[string(s.Metric)+" "+s.Labels["tablet_type"]] += points(s)[0]
	}
	want := map[string]float64{
		"pod_queries primary": 12, "pod_queries replica": 1, // the scatter query counts on both shards
		"pod_rows_read primary": 30, "pod_rows_read replica": 0,
		"primary_queries primary": 12, "replication_lag replica": 0,
	}
	if diff := cmp.Diff(want, sums); diff != "" {
		t.Errorf("sums by tablet type (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]bool{"-80": true, "80-": true}, shards); diff != "" {
		t.Errorf("shards (-want +got):\n%s", diff)
	}
	inst, err := e.c.Metrics.GetInstantTablets(t.Context(), &platform.GetInstantTabletMetricsParams{Organization: e.org, Database: drDB, Branch: "main", Keyspace: "sharded", Shard: "-80"})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range inst.Metrics {
		if m.Metric != platform.MetricReplicationLag || m.Value != 0 || m.Labels["shard"] != "-80" || m.Labels["tablet_type"] != "replica" {
			t.Errorf("instant %+v, want replication_lag 0 of a replica of -80", m)
		}
	}
	if len(inst.Metrics) == 0 {
		t.Error("no instant replication lag of the replicas of -80")
	}
}

// TestTableMetrics checks the tables' storage: rows inserted less rows
// deleted, every table of the schema listed.
func TestTableMetrics(t *testing.T) {
	t.Parallel()
	e := newMetricsEnv(t)
	e.record(
		fake.QuerySample{SQL: "insert into users (id) values (1), (2), (3)", RowsAffected: 3},
		fake.QuerySample{SQL: "delete from users where id = 1", RowsAffected: 1},
		fake.QuerySample{SQL: "insert into users (id) values (9)", RowsAffected: 1, Error: "duplicate"},
		fake.QuerySample{SQL: "insert into events (id) values (1)", Keyspace: "sharded", RowsAffected: 1},
	)
	ks, err := e.c.Metrics.GetKeyspaceTables(t.Context(), &platform.GetKeyspaceTableMetricsParams{Organization: e.org, Database: drDB, Branch: "main"})
	if err != nil {
		t.Fatal(err)
	}
	if got := ks[drDB]["users"]; got == nil || *got != (platform.TableStorage{Rows: 2, DataBytes: 200, IndexBytes: 40}) {
		t.Errorf("app.users %+v, want 2 rows", got)
	}
	if got := ks["sharded"]["events"]; got == nil || got.Rows != 1 {
		t.Errorf("sharded.events %+v, want 1 row", got)
	}
	tables, err := e.c.Metrics.GetTables(t.Context(), &platform.GetTableMetricsParams{Organization: e.org, Database: drDB, Branch: "main"})
	if err != nil {
		t.Fatal(err)
	}
	for name := range ks[drDB] {
		if tables[name] == nil {
			t.Errorf("table %s missing from the tables' storage", name)
		}
	}
	if got := tables["users"]; got == nil || got.Rows != 2 {
		t.Errorf("users %+v, want 2 rows", got)
	}
	// A table of that name in another keyspace adds to it, and leaves
	// each keyspace's figures as they are.
	if _, err := e.c.Branches.DisableSafeMigrations(t.Context(), &platform.BranchParams{Organization: e.org, Database: drDB, Branch: "main"}); err != nil {
		t.Fatal(err)
	}
	if err := e.srv.PushSchema(e.org, drDB, "main", "CREATE TABLE sharded.users (id bigint NOT NULL, PRIMARY KEY (id))"); err != nil {
		t.Fatal(err)
	}
	e.record(fake.QuerySample{SQL: "insert into users (id) values (5), (6), (7)", Keyspace: "sharded", RowsAffected: 3})
	tables, err = e.c.Metrics.GetTables(t.Context(), &platform.GetTableMetricsParams{Organization: e.org, Database: drDB, Branch: "main"})
	if err != nil {
		t.Fatal(err)
	}
	if got := tables["users"]; got == nil || *got != (platform.TableStorage{Rows: 5, DataBytes: 500, IndexBytes: 100}) {
		t.Errorf("users of both keyspaces %+v, want 5 rows", got)
	}
	ks, err = e.c.Metrics.GetKeyspaceTables(t.Context(), &platform.GetKeyspaceTableMetricsParams{Organization: e.org, Database: drDB, Branch: "main"})
	if err != nil {
		t.Fatal(err)
	}
	if app, sh := ks[drDB]["users"], ks["sharded"]["users"]; app == nil || sh == nil || app.Rows != 2 || sh.Rows != 3 {
		t.Errorf("users by keyspace: %+v and %+v, want 2 and 3 rows", app, sh)
	}
}

// TestMetricsRefusals checks that every bad parameter is a 400 naming it.
func TestMetricsRefusals(t *testing.T) {
	t.Parallel()
	e := newMetricsEnv(t)
	base := "/v1/organizations/acme/databases/app/branches/main/metrics"
	for _, tc := range []struct{ target, param string }{
		{base + "?metrics=nope", "metrics"},
		{base + "?metrics=queries,nope", "metrics"},
		{base + "/tablets?metrics=queries", "metrics"},
		{base + "/instant?metrics=queries", "metrics"},
		{base + "?period=2h", "period"},
		{base + "?period=1h&from=2026-01-01T00:00:00Z", "period"},
		{base + "?from=yesterday", "from"},
		{base + "/query?to=2026-13-01T00:00:00Z", "to"},
		{base + "?from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z", "from"},
		{base + "?steps=0", "steps"},
		{base + "/tag?steps=1001", "steps"},
		{base + "?steps=x", "steps"},
		{base + "?tablet_type=leader", "tablet_type"},
		{base + "?budget_id=nope", "budget_id"},
		{base + "/query?rule_id=nope", "rule_id"},
		{base + "/tag?budget_id=nope", "budget_id"},
		{base + "/tablets-instant?metrics=queries", "metrics"},
		{base + "/tag?tag_sets=route", "tag_sets"},
		{base + "/tag?tag_sets=route:a,:b", "tag_sets"},
	} {
		r := send(t, e.srv, http.MethodGet, tc.target, admin(e.srv), "")
		if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), tc.param) {
			t.Errorf("%s: %d %s, want 400 naming %s", tc.target, r.status, r.body, tc.param)
		}
	}
	r := send(t, e.srv, http.MethodGet, "/v1/organizations/acme/databases/app/branches/nope/metrics", admin(e.srv), "")
	wantStatus(t, r, http.StatusNotFound)
}

// TestTrafficViewsAgree records a known mix and checks that query
// insights, the metrics and a query-patterns report, all derived from the
// same samples, count the same queries: per query, its executions, errors,
// rows read and slowest latency; per tag value, its executions.
func TestTrafficViewsAgree(t *testing.T) {
	t.Parallel()
	e := newMetricsEnv(t)
	e.record(metricsMix...)
	ctx := t.Context()
	org, db, br := e.org, drDB, "main"

	r, err := e.c.QueryPatternReports.Create(ctx, &platform.CreateQueryPatternsReportParams{Organization: org, Database: db, Branch: br})
	if err != nil {
		t.Fatal(err)
	}
	get := &platform.GetQueryPatternsReportParams{Organization: org, Database: db, Branch: br, ID: r.ID}
	if _, err := e.c.QueryPatternReports.Wait(ctx, get); err != nil {
		t.Fatal(err)
	}
	d, err := e.c.QueryPatternReports.Download(ctx, get)
	if err != nil {
		t.Fatal(err)
	}
	fromReport := map[string][]float64{}
	for _, p := range d.Patterns {
		fromReport[p.Fingerprint] = []float64{float64(p.Count), float64(p.ErrorCount), float64(p.RowsRead), p.LatencyMaxMillis}
	}

	q, err := e.c.Metrics.GetQuery(ctx, &platform.GetQueryMetricsParams{Organization: org, Database: db, Branch: br,
		Metrics: []platform.MetricName{"queries", "query_errors", "rows_read", "latency_max"}, MetricsWindow: e.window(1)})
	if err != nil {
		t.Fatal(err)
	}
	fromMetrics := map[string][]float64{}
	for _, s := range q.Series {
		fromMetrics[s.Labels["fingerprint"]] = append(fromMetrics[s.Labels["fingerprint"]], points(s)[0])
	}

	window := platform.QueryWindow{From: e.t0, To: e.t0.Add(time.Hour)}
	fromInsights := map[string][]float64{}
	for s, err := range e.c.QueryInsights.All(ctx, &platform.ListBranchQueriesParams{Organization: org, Database: db, Branch: br, QueryWindow: window}) {
		if err != nil {
			t.Fatal(err)
		}
		fromInsights[s.Fingerprint] = []float64{float64(s.QueryCount), float64(s.ErrorCount), float64(s.SumRowsRead), s.MaxLatency}
	}
	if len(fromReport) != 2 {
		t.Fatalf("report: %d queries, want the mix's 2 (the select's three literals are one query)", len(fromReport))
	}
	if diff := cmp.Diff(fromReport, fromMetrics); diff != "" {
		t.Errorf("report and query metrics disagree (-report +metrics):\n%s", diff)
	}
	if diff := cmp.Diff(fromReport, fromInsights); diff != "" {
		t.Errorf("report and query insights disagree (-report +insights):\n%s", diff)
	}

	// Per tag value: the insights' tag view and the tag metrics.
	tag, err := e.c.QueryInsights.GetTag(ctx, &platform.GetQueryTagParams{Organization: org, Database: db, Branch: br, Tag: "route",
		QueryTagFilter: platform.QueryTagFilter{QueryWindow: window}})
	if err != nil {
		t.Fatal(err)
	}
	tagInsights, tagMetrics := map[string]float64{}, map[string]float64{}
	for _, v := range tag.Values {
		tagInsights["route:"+v.Name] = float64(v.QueryCount)
	}
	tm, err := e.c.Metrics.GetTag(ctx, &platform.GetTagMetricsParams{Organization: org, Database: db, Branch: br,
		Metrics: []platform.MetricName{"queries"}, TagSets: []string{"route:login", "route:home"}, MetricsWindow: e.window(1)})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range tm.Series {
		tagMetrics[s.Labels["tag_set"]] = points(s)[0]
	}
	if diff := cmp.Diff(map[string]float64{"route:login": 2, "route:home": 1}, tagInsights); diff != "" {
		t.Errorf("insights' route tag (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(tagInsights, tagMetrics); diff != "" {
		t.Errorf("tag insights and tag metrics disagree (-insights +metrics):\n%s", diff)
	}
}
