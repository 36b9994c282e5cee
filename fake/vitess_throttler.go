package fake

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/dbplatform/platform-go"
)

// The tablet throttler of a branch's Vitess control plane (see
// vitess.go): one configuration per keyspace, which its tablets share,
// and the metrics each tablet measures.
//
// A keyspace's throttler starts enabled, with a threshold of 5 s of
// replication lag (Vitess's default), no throttled apps and no metrics
// assigned to apps; update_throttler_config changes it, and status and
// check read it. A throttled app's rule has a ratio (0 to 1, in steps of
// 0.01) and may expire, on the fake's clock: an expired rule no longer
// shows or acts, and the next update drops it.
//
// The fake has no replication, so every metric of every tablet reads 0
// until a test sets it (Server.SetThrottlerMetric, or the control
// surface). The metrics are Vitess's lag (seconds; its threshold is the
// configuration's), threads_running (threshold 100) and loadavg
// (threshold 1). A metric's self scope is the tablet's own value, its
// shard scope the highest of the shard's tablets; lag is checked in the
// shard scope unless asked otherwise, the others in the self scope.
//
// A check answers from the configuration: a disabled throttler grants
// every app; an app whose rule (or the rule of the app "all") has ratio 1
// and has not expired is denied; otherwise each metric checked (the app's
// assigned metrics, else lag) is compared with its threshold, and a value
// above it denies. Vitess denies an app of a smaller ratio at random, that
// share of its checks; the fake's checks must answer the same each time,
// so they grant it (an answer Vitess may give too). A check changes
// nothing: the fake keeps no heartbeats and no record of recent apps, so
// skip_request_heartbeats and ok_if_not_exists (every metric exists) have
// nothing to change.
//
// These are the tablets' own throttler. The database's and deploy
// requests' throttler ratios (throttlers.go) are the platform's pace for
// its deployments, a separate setting: neither changes the other.

// throttlerConfig is a keyspace's throttler configuration.
type throttlerConfig struct {
	enabled bool
	// threshold is the lag threshold, in seconds.
	threshold float64
	// apps are the throttled apps' rules, by name.
	apps []throttledApp
	// appMetrics are the metrics assigned to apps, by app; nil for none.
	appMetrics map[string][]string
}

// throttledApp is the rule of a throttled app.
type throttledApp struct {
	name  string
	ratio float64
	// expires is when the rule stops acting; zero: until changed.
	expires time.Time
}

// active reports whether the rule acts at now.
func (a throttledApp) active(now time.Time) bool { return a.expires.IsZero() || a.expires.After(now) }

// tabletMetric names a metric of a tablet: the tablet by its keyspace's
// ID, shard and index (see shardTablets).
type tabletMetric struct {
	keyspace, shard string
	index           int
	metric          string
}

// defaultThrottler is a keyspace's throttler until its first update.
var defaultThrottler = throttlerConfig{enabled: true, threshold: 5}

// throttlerMetrics are the metrics the fake's tablets measure, their
// default scope and threshold (lag's is the configuration's).
var throttlerMetrics = []struct {
	name, scope string
	threshold   float64
}{
	{"lag", "shard", 0},
	{"threads_running", "self", 100},
	{"loadavg", "self", 1},
}

// throttlerMetricNames are the metrics' names, as an error lists them.
const throttlerMetricNames = "lag, threads_running or loadavg"

// lagMetricQuery is the query Vitess reads a tablet's lag with.
const lagMetricQuery = "select unix_timestamp(now(6))-max(ts/1000000000) as replication_lag from _vt.heartbeat"

// defaultThrottlerApp is the app a check without app_name is made for.
const defaultThrottlerApp = "vitess"

// metricIndex is the index of a metric in throttlerMetrics, or -1.
func metricIndex(name string) int {
	return slices.IndexFunc(throttlerMetrics, func(m struct {
		name, scope string
		threshold   float64
	}) bool {
		return m.name == name
	})
}

// parseScopedMetric reads a metric name, optionally scoped
// ("shard/loadavg"): its name and scope ("" for the metric's default).
func parseScopedMetric(s string) (name, scope string, ok bool) {
	name = s
	if sc, n, found := strings.Cut(s, "/"); found {
		if sc != "self" && sc != "shard" {
			return "", "", false
		}
		scope, name = sc, n
	}
	return name, scope, metricIndex(name) >= 0
}

// throttler returns ks's throttler configuration.
func (v *branchVitess) throttler(ks *keyspaceRec) throttlerConfig {
	if c := v.throttlers[ks.id]; c != nil {
		return *c
	}
	return defaultThrottler
}

// thresholdOf is a metric's threshold under c.
func (c throttlerConfig) thresholdOf(metric string) float64 {
	if metric == "lag" {
		return c.threshold
	}
	return throttlerMetrics[metricIndex(metric)].threshold
}

// rule is the active rule that applies to app at now: its own, else the
// rule of "all".
func (c throttlerConfig) rule(app string, now time.Time) (throttledApp, bool) {
	for _, name := range []string{app, "all"} {
		for _, a := range c.apps {
			if a.name == name && a.active(now) {
				return a, true
			}
		}
	}
	return throttledApp{}, false
}

// metricValue is a metric of tablet t in scope: its own, or in the shard
// scope the highest of its shard's tablets.
func metricValue(t vtTablet, metric, scope string) float64 {
	v := t.ks.branch.more.read().vitess
	if scope == "self" {
		return v.metrics[tabletMetric{t.ks.id, t.shard, t.index, metric}]
	}
	var hi float64
	for _, o := range shardTablets(t.ks, t.shard) {
		hi = max(hi, v.metrics[tabletMetric{o.ks.id, o.shard, o.index, metric}])
	}
	return hi
}

// vitessTablet finds the tablet of b that field names by its alias: a
// 422 naming the field when it is missing, malformed or names no tablet.
func vitessTablet(b *branchRec, field, alias string) (vtTablet, error) {
	if alias == "" {
		return vtTablet{}, unprocessable("%s is required: the alias of a tablet of branch %s (see its tablets)", field, b.name)
	}
	a, err := platform.ParseTabletAlias(alias)
	if err != nil {
		return vtTablet{}, unprocessable("%s: %v", field, err)
	}
	for _, t := range allTablets(b) {
		if t.alias == a {
			return t, nil
		}
	}
	return vtTablet{}, unprocessable("%s %s is not a tablet of branch %s; see its tablets", field, alias, b.name)
}

// throttlerChange is an update_throttler_config request, checked.
type throttlerChange struct {
	ks         *keyspaceRec
	enabled    *bool
	threshold  *float64
	apps       []throttledApp
	unthrottle []string
	metrics    map[string][]string
}

// checkThrottlerUpdate checks an update of a keyspace's throttler of b at
// now.
func checkThrottlerUpdate(b *branchRec, p *platform.UpdateThrottlerConfigParams, now time.Time) (throttlerChange, error) {
	var ch throttlerChange
	names := keyspaceNames(b)
	switch {
	case p.Keyspace == "":
		return ch, unprocessable("keyspace is required: one of %s", strings.Join(names, ", "))
	case b.keyspace(p.Keyspace) == nil:
		return ch, unprocessable("keyspace %q is not a keyspace of branch %s: its keyspaces are %s", p.Keyspace, b.name, strings.Join(names, ", "))
	case p.Enabled == nil && p.Threshold == nil && len(p.Apps) == 0 && len(p.UnthrottleApps) == 0 && len(p.AppCheckedMetrics) == 0:
		return ch, unprocessable("one of enabled, threshold, apps, unthrottle_apps or app_checked_metrics is required")
	case p.Threshold != nil && (*p.Threshold < 0 || math.IsNaN(*p.Threshold) || math.IsInf(*p.Threshold, 0)):
		return ch, unprocessable("threshold must be at least 0 (seconds of replication lag), got %v", *p.Threshold)
	}
	ch = throttlerChange{ks: b.keyspace(p.Keyspace), enabled: p.Enabled, threshold: p.Threshold}
	for i, a := range p.Apps {
		field := "apps[" + itoa(i) + "]"
		switch {
		case strings.TrimSpace(a.Name) == "":
			return ch, unprocessable("%s.name is required: the app to throttle", field)
		case slices.ContainsFunc(ch.apps, func(o throttledApp) bool { return o.name == a.Name }):
			return ch, unprocessable("%s.name %q is named twice in apps", field, a.Name)
		case slices.Contains(p.UnthrottleApps, a.Name):
			return ch, unprocessable("%s.name %q is in unthrottle_apps too; throttle or unthrottle it", field, a.Name)
		}
		rule := throttledApp{name: a.Name, ratio: 1}
		if a.Ratio != nil {
			r := *a.Ratio
			if r < 0 || r > 1 || math.Abs(r*100-math.Round(r*100)) > 1e-9 {
				return ch, unprocessable("%s.ratio must be from 0 to 1 in steps of 0.01, got %v", field, r)
			}
			rule.ratio = math.Round(r*100) / 100
		}
		if a.ExpireAt != "" {
			at, err := time.Parse(time.RFC3339, a.ExpireAt)
			if err != nil {
				return ch, unprocessable("%s.expire_at %q is not an RFC 3339 time", field, a.ExpireAt)
			}
			if !at.After(now) {
				return ch, unprocessable("%s.expire_at %s is not in the future (it is %s)", field, a.ExpireAt, now.UTC().Format(time.RFC3339))
			}
			rule.expires = at.UTC()
		}
		ch.apps = append(ch.apps, rule)
	}
	for i, name := range p.UnthrottleApps {
		if strings.TrimSpace(name) == "" {
			return ch, unprocessable("unthrottle_apps[%d] is empty", i)
		}
	}
	for _, app := range slices.Sorted(maps.Keys(p.AppCheckedMetrics)) {
		if strings.TrimSpace(app) == "" {
			return ch, unprocessable("app_checked_metrics: an app's name must not be empty")
		}
		for i, m := range p.AppCheckedMetrics[app] {
			if _, _, ok := parseScopedMetric(m); !ok {
				return ch, unprocessable("app_checked_metrics.%s[%d] %q is not a metric: %s, optionally scoped self/ or shard/", app, i, m, throttlerMetricNames)
			}
		}
	}
	ch.unthrottle, ch.metrics = p.UnthrottleApps, p.AppCheckedMetrics
	return ch, nil
}

// updateThrottler applies a checked change to its keyspace's throttler:
// enabled and a threshold above 0 are set (Vitess leaves the threshold
// as it is for 0), expired rules dropped, apps' rules set, unthrottled
// apps' dropped, and each app's metrics set (an empty list drops the
// app's).
func (w *world) updateThrottler(b *branchRec, ch throttlerChange, now time.Time) {
	v := b.vitess()
	c := v.throttler(ch.ks)
	if ch.enabled != nil {
		c.enabled = *ch.enabled
	}
	if ch.threshold != nil && *ch.threshold > 0 {
		c.threshold = *ch.threshold
	}
	apps := slices.DeleteFunc(slices.Clone(c.apps), func(a throttledApp) bool {
		return !a.active(now) || slices.Contains(ch.unthrottle, a.name)
	})
	for _, a := range ch.apps {
		if i := slices.IndexFunc(apps, func(o throttledApp) bool { return o.name == a.name }); i >= 0 {
			apps[i] = a
		} else {
			apps = append(apps, a)
		}
	}
	slices.SortFunc(apps, func(a, b throttledApp) int { return strings.Compare(a.name, b.name) })
	c.apps = apps
	if len(ch.metrics) > 0 {
		c.appMetrics = maps.Clone(c.appMetrics)
		if c.appMetrics == nil {
			c.appMetrics = map[string][]string{}
		}
		for app, ms := range ch.metrics {
			if len(ms) == 0 {
				delete(c.appMetrics, app)
				continue
			}
			c.appMetrics[app] = slices.Compact(slices.Clone(ms))
		}
		if len(c.appMetrics) == 0 {
			c.appMetrics = nil
		}
	}
	if v.throttlers == nil {
		v.throttlers = map[string]*throttlerConfig{}
	}
	v.throttlers[ch.ks.id] = &c
	b.updated = now
}

// SetThrottlerMetric sets what a metric of a tablet of a MySQL branch
// reads (lag in seconds, threads_running, loadavg), which the tablet
// throttler's status and checks then show; every metric reads 0 until
// set. The tablet is named by its alias, as list_tablets gives it.
func (s *Server) SetThrottlerMetric(org, database, branch, tabletAlias, metric string, value float64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, err := s.world.findBranch(org, database, branch)
	if err != nil {
		return fmt.Errorf("fake: SetThrottlerMetric: %w", err)
	}
	if err := vitessKind(b); err != nil {
		return fmt.Errorf("fake: SetThrottlerMetric: %s", err.(*apiError).message)
	}
	t, err := vitessTablet(b, "tablet alias", tabletAlias)
	if err != nil {
		return fmt.Errorf("fake: SetThrottlerMetric: %s", err.(*apiError).message)
	}
	switch {
	case metricIndex(metric) < 0:
		return fmt.Errorf("fake: SetThrottlerMetric: metric %q is not %s", metric, throttlerMetricNames)
	case value < 0 || math.IsNaN(value) || math.IsInf(value, 0):
		return fmt.Errorf("fake: SetThrottlerMetric: value %v of %s must be a number of at least 0", value, metric)
	}
	s.world.setTabletMetric(b, tabletMetric{t.ks.id, t.shard, t.index, metric}, value)
	return nil
}

// setTabletMetric sets a metric of a tablet of b; 0, what every metric
// reads unset, is kept as unset.
func (w *world) setTabletMetric(b *branchRec, k tabletMetric, value float64) {
	v := b.vitess()
	if value == 0 {
		delete(v.metrics, k)
		return
	}
	if v.metrics == nil {
		v.metrics = map[tabletMetric]float64{}
	}
	v.metrics[k] = value
}

// Handlers.

func vitessThrottlerRoutes() []route {
	const branch = "/v1/organizations/{organization}/databases/{database}/branches/{branch}"
	return []route{
		{pattern: "GET " + branch + "/vtctld/throttler/status", op: "vtctld_get_throttler_status", handler: read(vtctldGetThrottlerStatus)},
		{pattern: "POST " + branch + "/vtctld/throttler/check", op: "vtctld_check_throttler", handler: readBody(vtctldCheckThrottler)},
		{pattern: "PUT " + branch + "/vtctld/throttler/config", op: "vtctld_update_throttler_config", handler: withBody(vtctldUpdateThrottlerConfig)},
	}
}

func vtctldGetThrottlerStatus(c *call) (any, error) {
	b, err := c.vitessBranch()
	if err != nil {
		return nil, err
	}
	t, err := vitessTablet(b, "tablet_alias", c.r.URL.Query().Get("tablet_alias"))
	if err != nil {
		return nil, err
	}
	return vtctldData{map[string]any{"status": renderThrottlerStatus(t, c.now)}}, nil
}

func vtctldCheckThrottler(c *call, p *platform.CheckThrottlerParams) (any, error) {
	b, err := c.vitessBranch()
	if err != nil {
		return nil, err
	}
	t, err := vitessTablet(b, "tablet_alias", p.TabletAlias)
	if err != nil {
		return nil, err
	}
	app, scope := defaultThrottlerApp, ""
	if p.AppName != nil && *p.AppName != "" {
		app = *p.AppName
	}
	if p.Scope != nil && *p.Scope != "" {
		if scope = *p.Scope; scope != "self" && scope != "shard" {
			return nil, unprocessable("scope %q is not self or shard", scope)
		}
	}
	return vtctldData{map[string]any{
		"tablet_alias": protoAlias{Cell: t.alias.Cell, UID: t.alias.UID},
		"Check":        checkThrottler(t, app, scope, c.now),
	}}, nil
}

func vtctldUpdateThrottlerConfig(c *call, p *platform.UpdateThrottlerConfigParams) (any, error) {
	b, err := c.vitessBranch()
	if err != nil {
		return nil, err
	}
	ch, err := checkThrottlerUpdate(b, p, c.now)
	if err != nil {
		return nil, err
	}
	c.w.updateThrottler(b, ch, c.now)
	return vtctldData{map[string]any{}}, nil
}

// Rendering.

// The response codes of a check (tabletmanagerdata.CheckThrottlerResponseCode).
const (
	checkOK                = "OK"
	checkThresholdExceeded = "THRESHOLD_EXCEEDED"
	checkAppDenied         = "APP_DENIED"
)

// protoCheckMetric is tabletmanagerdata.CheckThrottlerResponse.Metric.
type protoCheckMetric struct {
	Name         string  `json:"name,omitempty"`
	StatusCode   int32   `json:"status_code,omitempty"`
	Value        float64 `json:"value,omitempty"`
	Threshold    float64 `json:"threshold,omitempty"`
	Error        string  `json:"error,omitempty"`
	Message      string  `json:"message,omitempty"`
	Scope        string  `json:"scope,omitempty"`
	ResponseCode string  `json:"response_code,omitempty"`
}

// protoCheck is tabletmanagerdata.CheckThrottlerResponse.
type protoCheck struct {
	StatusCode   int32                       `json:"status_code,omitempty"`
	Value        float64                     `json:"value,omitempty"`
	Threshold    float64                     `json:"threshold,omitempty"`
	Error        string                      `json:"error,omitempty"`
	Message      string                      `json:"message,omitempty"`
	Metrics      map[string]protoCheckMetric `json:"metrics,omitempty"`
	AppName      string                      `json:"app_name,omitempty"`
	Summary      string                      `json:"summary,omitempty"`
	ResponseCode string                      `json:"response_code,omitempty"`
}

// checkThrottler answers a check of app on tablet t at now, in scope ("":
// each metric's own).
func checkThrottler(t vtTablet, app, scope string, now time.Time) *protoCheck {
	c := t.ks.branch.more.read().vitess.throttler(t.ks)
	granted := &protoCheck{StatusCode: 200, ResponseCode: checkOK, AppName: app, Summary: app + " is granted access"}
	if !c.enabled {
		return granted
	}
	metrics := c.appMetrics[app]
	if len(metrics) == 0 {
		metrics = []string{"lag"}
	}
	out := &protoCheck{Metrics: map[string]protoCheckMetric{}}
	if rule, ok := c.rule(app, now); ok && rule.ratio >= 1 {
		for _, m := range metrics {
			name, sc, _ := parseScopedMetric(m)
			out.Metrics[name] = protoCheckMetric{Name: name, StatusCode: 417, Error: "App denied", Message: "App denied", Scope: metricScope(name, sc, scope), ResponseCode: checkAppDenied}
		}
		out.StatusCode, out.ResponseCode, out.Error, out.Message = 417, checkAppDenied, "App denied", "App denied"
		out.AppName, out.Summary = rule.name, app+" is explicitly denied access"
		return out
	}
	var first, lag *protoCheckMetric
	var failed bool
	for _, m := range metrics {
		name, sc, _ := parseScopedMetric(m)
		sc = metricScope(name, sc, scope)
		r := protoCheckMetric{Name: name, StatusCode: 200, Value: metricValue(t, name, sc), Threshold: c.thresholdOf(name), Scope: sc, ResponseCode: checkOK}
		if r.Value > r.Threshold {
			r.StatusCode, r.ResponseCode, r.Error, r.Message = 429, checkThresholdExceeded, "threshold exceeded", "threshold exceeded"
		}
		out.Metrics[name] = r
		switch {
		case r.ResponseCode != checkOK && !failed:
			failed, first = true, &r
		case first == nil:
			first = &r
		}
		if name == "lag" {
			lag = &r
		}
	}
	pick := first
	if !failed && lag != nil {
		pick = lag
	}
	out.StatusCode, out.Value, out.Threshold, out.Error, out.Message, out.ResponseCode = pick.StatusCode, pick.Value, pick.Threshold, pick.Error, pick.Message, pick.ResponseCode
	out.AppName = app
	out.Summary = app + " is granted access"
	if failed {
		out.Summary = fmt.Sprintf("%s is denied access due to %s/%s metric value %v exceeding threshold %v", app, pick.Scope, pick.Name, pick.Value, pick.Threshold)
	}
	return out
}

// metricScope is the scope a metric is checked in: the request's, else
// the metric name's own ("shard/loadavg"), else the metric's default.
func metricScope(metric, named, asked string) string {
	switch {
	case asked != "":
		return asked
	case named != "":
		return named
	}
	return throttlerMetrics[metricIndex(metric)].scope
}

// protoAppRule is topodata.ThrottledAppRule.
type protoAppRule struct {
	Name      string     `json:"name,omitempty"`
	Ratio     float64    `json:"ratio,omitempty"`
	ExpiresAt *protoTime `json:"expires_at,omitempty"`
	Exempt    bool       `json:"exempt,omitempty"`
}

// protoMetricResult is tabletmanagerdata.GetThrottlerStatusResponse.MetricResult.
type protoMetricResult struct {
	Value float64 `json:"value,omitempty"`
	Error string  `json:"error,omitempty"`
}

// protoThrottlerStatus is tabletmanagerdata.GetThrottlerStatusResponse.
type protoThrottlerStatus struct {
	TabletAlias             string                       `json:"tablet_alias,omitempty"`
	Keyspace                string                       `json:"keyspace,omitempty"`
	Shard                   string                       `json:"shard,omitempty"`
	IsLeader                bool                         `json:"is_leader,omitempty"`
	IsOpen                  bool                         `json:"is_open,omitempty"`
	IsEnabled               bool                         `json:"is_enabled,omitempty"`
	IsDormant               bool                         `json:"is_dormant,omitempty"`
	LagMetricQuery          string                       `json:"lag_metric_query,omitempty"`
	DefaultThreshold        float64                      `json:"default_threshold,omitempty"`
	MetricNameUsedAsDefault string                       `json:"metric_name_used_as_default,omitempty"`
	AggregatedMetrics       map[string]protoMetricResult `json:"aggregated_metrics,omitempty"`
	MetricThresholds        map[string]float64           `json:"metric_thresholds,omitempty"`
	ThrottledApps           map[string]protoAppRule      `json:"throttled_apps,omitempty"`
	AppCheckedMetrics       map[string]string            `json:"app_checked_metrics,omitempty"`
	RecentlyChecked         bool                         `json:"recently_checked,omitempty"`
}

// renderThrottlerStatus renders the throttler of tablet t at now: its
// keyspace's configuration, and its metrics in the self scope (and, for
// the shard's primary, which leads the shard's throttler, in the shard
// scope).
func renderThrottlerStatus(t vtTablet, now time.Time) *protoThrottlerStatus {
	c := t.ks.branch.more.read().vitess.throttler(t.ks)
	leader := t.tabletType == platform.TabletPrimary
	out := &protoThrottlerStatus{
		TabletAlias: t.alias.String(), Keyspace: t.ks.name, Shard: t.shard,
		IsLeader: leader, IsOpen: true, IsEnabled: c.enabled,
		LagMetricQuery: lagMetricQuery, DefaultThreshold: c.threshold, MetricNameUsedAsDefault: "lag",
		AggregatedMetrics: map[string]protoMetricResult{}, MetricThresholds: map[string]float64{},
	}
	for _, m := range throttlerMetrics {
		out.MetricThresholds[m.name] = c.thresholdOf(m.name)
		out.AggregatedMetrics["self/"+m.name] = protoMetricResult{Value: metricValue(t, m.name, "self")}
		if leader {
			out.AggregatedMetrics["shard/"+m.name] = protoMetricResult{Value: metricValue(t, m.name, "shard")}
		}
	}
	for _, a := range c.apps {
		if !a.active(now) {
			continue
		}
		if out.ThrottledApps == nil {
			out.ThrottledApps = map[string]protoAppRule{}
		}
		r := protoAppRule{Name: a.name, Ratio: a.ratio}
		if !a.expires.IsZero() {
			r.ExpiresAt = newProtoTime(a.expires)
		}
		out.ThrottledApps[a.name] = r
	}
	for app, ms := range c.appMetrics {
		if out.AppCheckedMetrics == nil {
			out.AppCheckedMetrics = map[string]string{}
		}
		out.AppCheckedMetrics[app] = strings.Join(ms, ",")
	}
	return out
}
