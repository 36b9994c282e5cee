package fake_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/google/go-cmp/cmp"
)

// TestVitessRoutingRulesOneState checks that the branch's routing-rules
// document and vtctld's routing rules are one state, and that keyspace
// routing rules are replaced whole by an apply.
func TestVitessRoutingRulesOneState(t *testing.T) {
	t.Parallel()
	w := newOpWorld(t)
	ctx, bp := t.Context(), platform.BranchParams{Organization: w.org, Database: drDB, Branch: "main"}
	got, err := w.c.Vitess.GetRoutingRules(ctx, &bp)
	if err != nil || len(got.Rules) != 0 || string(got.Raw) != `{"routing_rules":{}}` {
		t.Fatalf("default rules = %+v, %s, %v; want none", got, got.Raw, err)
	}
	if _, err := w.c.Branches.UpdateRoutingRules(ctx, &platform.UpdateRoutingRulesParams{Organization: w.org, Database: drDB, Branch: "main",
		RoutingRules: `{"rules":[{"from_table":"t","to_tables":["app.t2"]},{"from_table":"app.u","to_tables":["app.v","app.w"]}]}`}); err != nil {
		t.Fatal(err)
	}
	got, err = w.c.Vitess.GetRoutingRules(ctx, &bp)
	if err != nil {
		t.Fatal(err)
	}
	want := []platform.VitessRoutingRule{{FromTable: "t", ToTables: []string{"app.t2"}}, {FromTable: "app.u", ToTables: []string{"app.v", "app.w"}}}
	if diff := cmp.Diff(want, got.Rules); diff != "" {
		t.Errorf("vtctld rules after an update of the document (-want +got):\n%s", diff)
	}

	// An empty apply where there are no rules changes nothing, not even
	// when the branch was updated.
	branch := func() *platform.Branch {
		b, err := w.c.Branches.Get(ctx, &platform.GetBranchParams{Organization: w.org, Database: drDB, Branch: "main"})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	before := branch()
	w.srv.Advance(time.Minute)
	if empty, err := w.c.Vitess.ApplyKeyspaceRoutingRules(ctx, &platform.ApplyKeyspaceRoutingRulesParams{Organization: w.org, Database: drDB, Branch: "main"}); err != nil || len(empty.Rules) != 0 {
		t.Fatalf("an empty apply without rules = %+v, %v", empty, err)
	}
	if after := branch(); !after.UpdatedAt.Time.Equal(before.UpdatedAt.Time) {
		t.Errorf("an empty apply without rules moved the branch's updated_at from %v to %v", before.UpdatedAt, after.UpdatedAt)
	}

	opVtctldControl("")(w, "") // keyspace archive, rules archive -> app
	kp := &platform.ApplyKeyspaceRoutingRulesParams{Organization: w.org, Database: drDB, Branch: "main",
		Rules: []platform.KeyspaceRoutingRule{{FromKeyspace: "app", ToKeyspace: "archive"}}, RebuildCells: []string{"us-east"}}
	applied, err := w.c.Vitess.ApplyKeyspaceRoutingRules(ctx, kp)
	if err != nil {
		t.Fatal(err)
	}
	read, err := w.c.Vitess.GetKeyspaceRoutingRules(ctx, &bp)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []*platform.KeyspaceRoutingRules{applied, read} {
		if diff := cmp.Diff(kp.Rules, r.Rules); diff != "" {
			t.Errorf("rules after an apply replace the set (-want +got):\n%s", diff)
		}
	}
	if _, err := w.c.Vitess.ApplyKeyspaceRoutingRules(ctx, &platform.ApplyKeyspaceRoutingRulesParams{Organization: w.org, Database: drDB, Branch: "main"}); err != nil {
		t.Fatal(err)
	}
	if read, err = w.c.Vitess.GetKeyspaceRoutingRules(ctx, &bp); err != nil || len(read.Rules) != 0 {
		t.Errorf("rules after an empty apply = %+v, %v; want none", read, err)
	}
}

// TestVitessControlRefusals sends each refused request of the routing
// rules and the throttler: the status, the words naming the field or
// state, and nothing changed.
func TestVitessControlRefusals(t *testing.T) {
	t.Parallel()
	ksRules := "/vtctld/keyspace-routing-rules"
	config := "/vtctld/throttler/config"
	check := "/vtctld/throttler/check"
	cases := []struct {
		name, method, path, query, body string
		status                          int
		words                           string
	}{
		{"unknown to_keyspace", "PUT", ksRules, "", `{"rules":[{"from_keyspace":"app","to_keyspace":"nope"}]}`, 422, `rules[0].to_keyspace "nope" is not a keyspace`},
		{"missing from_keyspace", "PUT", ksRules, "", `{"rules":[{"to_keyspace":"app"}]}`, 422, "rules[0].from_keyspace is required"},
		{"keyspace routed twice", "PUT", ksRules, "", `{"rules":[{"from_keyspace":"app","to_keyspace":"archive"},{"from_keyspace":"app","to_keyspace":"app"}]}`, 422, "rules[1].from_keyspace \"app\" is routed by rules[0]"},
		{"unknown rebuild cell", "PUT", ksRules, "", `{"rules":[],"rebuild_cells":["mars"]}`, 422, `rebuild_cells[0] "mars" is not a cell`},
		{"bad rules", "PUT", ksRules, "", `{"rules":"x"}`, 400, "rules"},
		{"status without alias", "GET", "/vtctld/throttler/status", "", "", 422, "tablet_alias is required"},
		{"status of a bad alias", "GET", "/vtctld/throttler/status", "tablet_alias=zone1", "", 422, "tablet_alias"},
		{"status of no tablet", "GET", "/vtctld/throttler/status", "tablet_alias=us-east-0000000001", "", 422, "tablet_alias us-east-0000000001 is not a tablet"},
		{"check of no tablet", "POST", check, "", `{"tablet_alias":"mars-0000000100"}`, 422, "tablet_alias mars-0000000100 is not a tablet"},
		{"check in an unknown scope", "POST", check, "", `{"tablet_alias":"PRIMARY","scope":"cluster"}`, 422, `scope "cluster" is not self or shard`},
		{"config without keyspace", "PUT", config, "", `{"enabled":true}`, 422, "keyspace is required"},
		{"config of an unknown keyspace", "PUT", config, "", `{"keyspace":"nope","enabled":true}`, 422, `keyspace "nope" is not a keyspace`},
		{"config changing nothing", "PUT", config, "", `{"keyspace":"app"}`, 422, "one of enabled, threshold"},
		{"negative threshold", "PUT", config, "", `{"keyspace":"app","threshold":-1}`, 422, "threshold must be at least 0"},
		{"app without name", "PUT", config, "", `{"keyspace":"app","apps":[{"ratio":1}]}`, 422, "apps[0].name is required"},
		{"ratio above 1", "PUT", config, "", `{"keyspace":"app","apps":[{"name":"a","ratio":1.5}]}`, 422, "apps[0].ratio must be from 0 to 1"},
		{"ratio between steps", "PUT", config, "", `{"keyspace":"app","apps":[{"name":"a","ratio":0.125}]}`, 422, "apps[0].ratio must be from 0 to 1 in steps of 0.01"},
		{"app twice", "PUT", config, "", `{"keyspace":"app","apps":[{"name":"a"},{"name":"a"}]}`, 422, `apps[1].name "a" is named twice`},
		{"app throttled and unthrottled", "PUT", config, "", `{"keyspace":"app","apps":[{"name":"a"}],"unthrottle_apps":["a"]}`, 422, "in unthrottle_apps too"},
		{"expiry in the past", "PUT", config, "", `{"keyspace":"app","apps":[{"name":"a","expire_at":"2001-01-01T00:00:00Z"}]}`, 422, "apps[0].expire_at 2001-01-01T00:00:00Z is not in the future"},
		{"expiry not a time", "PUT", config, "", `{"keyspace":"app","apps":[{"name":"a","expire_at":"soon"}]}`, 422, `apps[0].expire_at "soon" is not an RFC 3339 time`},
		{"empty unthrottled app", "PUT", config, "", `{"keyspace":"app","unthrottle_apps":[""]}`, 422, "unthrottle_apps[0] is empty"},
		{"unknown metric", "PUT", config, "", `{"keyspace":"app","app_checked_metrics":{"x":["lag","cpu"]}}`, 422, `app_checked_metrics.x[1] "cpu" is not a metric`},
		{"unknown scope of a metric", "PUT", config, "", `{"keyspace":"app","app_checked_metrics":{"x":["cell/lag"]}}`, 422, `app_checked_metrics.x[0] "cell/lag"`},
		{"threshold not a number", "PUT", config, "", `{"keyspace":"app","threshold":"x"}`, 400, "threshold"},
	}
	w := newOpWorld(t)
	opVtctldControl("")(w, "")
	primary := w.tabletOf("main", platform.TabletPrimary)
	base := "/v1/organizations/" + w.org + "/databases/" + drDB + "/branches/main"
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			body := tc.body
			if body != "" {
				body = strings.ReplaceAll(body, "PRIMARY", primary)
			}
			path := base + tc.path
			if tc.query != "" {
				path += "?" + tc.query
			}
			before := opWorldState(t, w.srv)
			r := send(t, w.srv, tc.method, path, admin(w.srv), body)
			var e struct{ Message string }
			if err := json.Unmarshal(r.body, &e); err != nil || r.status != tc.status || !strings.Contains(e.Message, tc.words) {
				t.Errorf("%s %s = %d %s; want %d naming %q", tc.method, tc.path, r.status, r.body, tc.status, tc.words)
			}
			if diff := worldStateDiff(t, before, opWorldState(t, w.srv)); diff != "" {
				t.Errorf("a refused request changed the world (-before +after):\n%s", diff)
			}
		})
	}
}

// TestVitessControlPostgres checks that a PostgreSQL branch has neither
// routing rules nor a throttler here.
func TestVitessControlPostgres(t *testing.T) {
	t.Parallel()
	w := newOpWorld(t)
	w.postgresApp()
	_, err := w.c.Vitess.GetKeyspaceRoutingRules(t.Context(), &platform.BranchParams{Organization: w.org, Database: drDB, Branch: "main"})
	apiError(t, err, http.StatusUnprocessableEntity, "MySQL")
	if err := w.srv.SetThrottlerMetric(w.org, drDB, "main", "us-east-0000000101", "lag", 1); err == nil || !strings.Contains(err.Error(), "SetThrottlerMetric: ") || !strings.Contains(err.Error(), "MySQL") {
		t.Errorf("SetThrottlerMetric on PostgreSQL = %v; want an error naming MySQL", err)
	}
}

// TestVitessThrottler walks a keyspace's throttler through its
// configuration and its tablets' metrics: what status and check show.
func TestVitessThrottler(t *testing.T) {
	t.Parallel()
	w := newOpWorld(t)
	ctx := t.Context()
	primary, replica := w.tabletOf("main", platform.TabletPrimary), w.tabletOf("main", platform.TabletReplica)
	update := func(p platform.UpdateThrottlerConfigParams) {
		t.Helper()
		p.Organization, p.Database, p.Branch, p.Keyspace = w.org, drDB, "main", "app"
		if _, err := w.c.Vitess.UpdateThrottlerConfig(ctx, &p); err != nil {
			t.Fatal(err)
		}
	}
	checkOf := func(alias, app, scope string) *platform.ThrottlerCheck {
		t.Helper()
		p := &platform.CheckThrottlerParams{Organization: w.org, Database: drDB, Branch: "main", TabletAlias: alias}
		if app != "" {
			p.AppName = &app
		}
		if scope != "" {
			p.Scope = &scope
		}
		c, err := w.c.Vitess.CheckThrottler(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	type answer struct {
		OK           bool
		ResponseCode string
		StatusCode   int
		Value        float64
		Threshold    float64
		AppName      string
	}
	answerOf := func(c *platform.ThrottlerCheck) answer {
		return answer{c.OK, c.ResponseCode, c.StatusCode, c.Value, c.Threshold, c.AppName}
	}
	steps := []struct {
		name  string
		do    func()
		alias string
		app   string
		scope string
		want  answer
	}{
		{"no lag: granted", func() {}, primary, "", "", answer{true, "OK", 200, 0, 5, "vitess"}},
		{"a replica lags 7 s: the shard's lag exceeds 5", func() {
			if err := w.srv.SetThrottlerMetric(w.org, drDB, "main", replica, "lag", 7); err != nil {
				t.Fatal(err)
			}
		}, primary, "online-ddl", "", answer{false, "THRESHOLD_EXCEEDED", 429, 7, 5, "online-ddl"}},
		{"the primary's own lag is 0", func() {}, primary, "online-ddl", "self", answer{true, "OK", 200, 0, 5, "online-ddl"}},
		{"threshold 10: granted", func() { update(platform.UpdateThrottlerConfigParams{Threshold: platform.Ptr(10.0)}) }, primary, "online-ddl", "", answer{true, "OK", 200, 7, 10, "online-ddl"}},
		{"threshold 0 leaves it", func() { update(platform.UpdateThrottlerConfigParams{Threshold: platform.Ptr(0.0)}) }, primary, "online-ddl", "", answer{true, "OK", 200, 7, 10, "online-ddl"}},
		{"online-ddl throttled with ratio 1 for an hour: denied", func() {
			update(platform.UpdateThrottlerConfigParams{Apps: []platform.ThrottledAppConfig{{Name: "online-ddl", ExpireAt: w.srv.Now().Add(time.Hour).Format(time.RFC3339)}}})
		}, replica, "online-ddl", "", answer{false, "APP_DENIED", 417, 0, 0, "online-ddl"}},
		{"another app is granted", func() {}, replica, "vreplication", "", answer{true, "OK", 200, 7, 10, "vreplication"}},
		{"an hour later the rule has expired", func() { w.srv.Advance(time.Hour) }, replica, "online-ddl", "", answer{true, "OK", 200, 7, 10, "online-ddl"}},
		{"all throttled at 0.5: granted (the fake denies at 1 only)", func() {
			update(platform.UpdateThrottlerConfigParams{Apps: []platform.ThrottledAppConfig{{Name: "all", Ratio: platform.Ptr(0.5)}}})
		}, replica, "online-ddl", "", answer{true, "OK", 200, 7, 10, "online-ddl"}},
		{"all throttled at 1: every app denied", func() {
			update(platform.UpdateThrottlerConfigParams{Apps: []platform.ThrottledAppConfig{{Name: "all", Ratio: platform.Ptr(1.0)}}})
		}, replica, "x", "", answer{false, "APP_DENIED", 417, 0, 0, "all"}},
		{"all unthrottled; loadavg 2 checked for vreplication", func() {
			update(platform.UpdateThrottlerConfigParams{UnthrottleApps: []string{"all"}, AppCheckedMetrics: map[string][]string{"vreplication": {"loadavg"}}})
			if err := w.srv.SetThrottlerMetric(w.org, drDB, "main", replica, "loadavg", 2); err != nil {
				t.Fatal(err)
			}
		}, replica, "vreplication", "", answer{false, "THRESHOLD_EXCEEDED", 429, 2, 1, "vreplication"}},
		{"the primary's own loadavg is 0", func() {}, primary, "vreplication", "", answer{true, "OK", 200, 0, 1, "vreplication"}},
		{"disabled: granted whatever the metrics", func() { update(platform.UpdateThrottlerConfigParams{Enabled: platform.Ptr(false)}) }, replica, "vreplication", "", answer{true, "OK", 200, 0, 0, "vreplication"}},
	}
	for _, s := range steps {
		s.do()
		if diff := cmp.Diff(s.want, answerOf(checkOf(s.alias, s.app, s.scope))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", s.name, diff)
		}
	}

	st, err := w.c.Vitess.GetThrottlerStatus(ctx, &platform.GetThrottlerStatusParams{Organization: w.org, Database: drDB, Branch: "main", TabletAlias: primary})
	if err != nil {
		t.Fatal(err)
	}
	st.Raw = nil
	want := &platform.ThrottlerStatus{
		TabletAlias: primary, Keyspace: "app", Shard: "-", IsLeader: true, IsOpen: true, IsEnabled: false,
		DefaultThreshold: 10, MetricNameUsedAsDefault: "lag",
		Metrics: map[string]float64{
			"self/lag": 0, "shard/lag": 7, "self/threads_running": 0, "shard/threads_running": 0, "self/loadavg": 0, "shard/loadavg": 2,
		},
		Thresholds: map[string]float64{"lag": 10, "threads_running": 100, "loadavg": 1},
		// online-ddl's rule expired; the updates since dropped it.
		AppCheckedMetrics: map[string][]string{"vreplication": {"loadavg"}},
	}
	if diff := cmp.Diff(want, st); diff != "" {
		t.Errorf("status of the primary (-want +got):\n%s", diff)
	}
	rst, err := w.c.Vitess.GetThrottlerStatus(ctx, &platform.GetThrottlerStatusParams{Organization: w.org, Database: drDB, Branch: "main", TabletAlias: replica})
	if err != nil {
		t.Fatal(err)
	}
	if rst.IsLeader || rst.Metrics["self/loadavg"] != 2 || rst.Metrics["self/lag"] != 7 || len(rst.Metrics) != 3 {
		t.Errorf("status of a replica = %+v; want its own metrics only, not the leader", rst)
	}
	// A metric set back to 0 reads 0 again.
	if err := w.srv.SetThrottlerMetric(w.org, drDB, "main", replica, "lag", 0); err != nil {
		t.Fatal(err)
	}
	if rst, err = w.c.Vitess.GetThrottlerStatus(ctx, &platform.GetThrottlerStatusParams{Organization: w.org, Database: drDB, Branch: "main", TabletAlias: replica}); err != nil || rst.Metrics["self/lag"] != 0 || rst.Metrics["self/loadavg"] != 2 {
		t.Errorf("status of the replica with its lag set to 0 = %+v, %v", rst, err)
	}
	// Apps throttled together are listed by name.
	update(platform.UpdateThrottlerConfigParams{Apps: []platform.ThrottledAppConfig{
		{Name: "vreplication", ExpireAt: w.srv.Now().Add(time.Hour).Format(time.RFC3339)},
		{Name: "online-ddl", ExpireAt: w.srv.Now().Add(time.Hour).Format(time.RFC3339)},
	}})
	if st, err = w.c.Vitess.GetThrottlerStatus(ctx, &platform.GetThrottlerStatusParams{Organization: w.org, Database: drDB, Branch: "main", TabletAlias: primary}); err != nil {
		t.Fatal(err)
	}
	var apps []string
	for _, a := range st.ThrottledApps {
		apps = append(apps, a.Name)
	}
	if diff := cmp.Diff([]string{"online-ddl", "vreplication"}, apps); diff != "" {
		t.Errorf("throttled apps (-want +got):\n%s", diff)
	}
}

// TestVitessThrottlerSurvivesSnapshot checks that a throttler's rules,
// expiring on the clock, and a tablet's metrics survive a snapshot.
func TestVitessThrottlerSurvivesSnapshot(t *testing.T) {
	t.Parallel()
	w := newOpWorld(t)
	opVtctldControl("")(w, "")
	primary := w.tabletOf("main", platform.TabletPrimary)
	read := func(srvName string, c *platform.Client) (*platform.ThrottlerStatus, *platform.KeyspaceRoutingRules) {
		t.Helper()
		st, err := c.Vitess.GetThrottlerStatus(t.Context(), &platform.GetThrottlerStatusParams{Organization: w.org, Database: drDB, Branch: "main", TabletAlias: primary})
		if err != nil {
			t.Fatalf("%s: %v", srvName, err)
		}
		kr, err := c.Vitess.GetKeyspaceRoutingRules(t.Context(), &platform.BranchParams{Organization: w.org, Database: drDB, Branch: "main"})
		if err != nil {
			t.Fatalf("%s: %v", srvName, err)
		}
		st.Raw, kr.Raw = nil, nil
		return st, kr
	}
	snap, err := w.srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	w2 := newOpWorld(t)
	if err := w2.srv.Restore(snap); err != nil {
		t.Fatal(err)
	}
	st1, kr1 := read("original", w.c)
	st2, kr2 := read("restored", w2.c)
	if diff := cmp.Diff(st1, st2); diff != "" {
		t.Errorf("throttler status after a restore (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(kr1, kr2); diff != "" {
		t.Errorf("keyspace routing rules after a restore (-before +after):\n%s", diff)
	}
	if len(st2.ThrottledApps) != 1 || st2.Metrics["shard/lag"] != 3 {
		t.Errorf("restored status = %+v; want online-ddl throttled and a lag of 3", st2)
	}
	w2.srv.Advance(time.Hour)
	if st3, _ := read("restored, an hour later", w2.c); len(st3.ThrottledApps) != 0 {
		t.Errorf("throttled apps an hour later = %+v; want the rule expired", st3.ThrottledApps)
	}
}

// TestSetThrottlerMetricRefusals checks the Go API's refusals.
func TestSetThrottlerMetricRefusals(t *testing.T) {
	t.Parallel()
	w := newOpWorld(t)
	replica := w.tabletOf("main", platform.TabletReplica)
	cases := []struct {
		name, branch, alias, metric string
		value                       float64
		words                       string
	}{
		{"no branch", "nope", replica, "lag", 1, `no branch "nope"`},
		{"bad alias", "main", "x", "lag", 1, "tablet alias"},
		{"no tablet", "main", "us-east-0000000001", "lag", 1, "is not a tablet"},
		{"unknown metric", "main", replica, "cpu", 1, `metric "cpu" is not lag, threads_running or loadavg`},
		{"negative value", "main", replica, "lag", -1, "must be a number of at least 0"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := w.srv.SetThrottlerMetric(w.org, drDB, tc.branch, tc.alias, tc.metric, tc.value)
			if err == nil || !strings.Contains(err.Error(), tc.words) {
				t.Errorf("SetThrottlerMetric = %v; want an error naming %q", err, tc.words)
			}
		})
	}
}
