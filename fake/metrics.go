package fake

import (
	"cmp"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dbplatform/platform-go"
)

// Metrics are computed from a branch's recorded queries (traffic.go), with
// the same aggregation as insights and reports, so that they agree:
//
//   - A time series covers its window (period, 12h by default, ending now;
//     or from to to) in steps buckets (60 by default, at most 1000) of
//     whole seconds, aligned to the window's start. Each bucket aggregates
//     the samples whose time falls in it: counts and totals (0 when none),
//     latency percentiles by nearest rank and ratios (null when none).
//   - Grouped series: per query pattern (labels keyspace, fingerprint), per
//     tag set (labels tag_set and each key), per tablet (labels keyspace,
//     shard, tablet_type, pod). A group named by the request (query_ids,
//     tag_sets) has its series even when empty; without names, every
//     group with samples in the window has one.
//   - Tablets are the branch's database servers as its infrastructure lists
//     them: for each shard of each keyspace, a primary and the keyspace's
//     replicas (a PostgreSQL branch: its instances). A sample runs on a
//     shard chosen by a hash of its ID (on ShardQueries consecutive shards
//     for a scatter query), on the primary or, for a replica or rdonly
//     sample, on one of the replicas (by the same hash).
//   - Metrics of the API with no source in the fake (CPU, memory, I/O,
//     storage of servers, connection pools) are accepted and answered as
//     series of nulls, or no instant values. The service's metric names
//     that carry its vendor's prefix are written svc_ here.
//   - Table storage counts the rows INSERT samples added less those DELETE
//     samples removed, at 100 bytes a row of data and 20 of index.

// metricsDefaultSteps and metricsMaxSteps bound a series' buckets.
const (
	metricsDefaultSteps = 60
	metricsMaxSteps     = 1000
)

// tableRowBytes and tableIndexBytes are the storage of one row.
const (
	tableRowBytes   = 100
	tableIndexBytes = 20
)

// The metrics of each operation: those computed from samples, and those
// accepted without a source.
var (
	queryMetrics    = strings.Fields("queries query_errors rows_read rows_returned rows_written total_duration_millis latency_min latency_p50 latency_p95 latency_p99 latency_p999 latency_max rows_read_per_query rows_returned_per_query rows_affected_per_query rows_read_per_returned avg_shard_queries max_shard_queries")
	queryNoSource   = strings.Fields("avg_parallel_workers block_cache_hit_ratio blocks_dirtied blocks_hit blocks_read blocks_written cpu_duration_millis egress_bytes egress_bytes_per_query ingress_bytes ingress_bytes_per_query io_duration_millis max_egress_bytes max_ingress_bytes traffic_control_throttled traffic_control_warnings index_usage_percent plan_change_score routing_index_usage_percent")
	branchNoSource  = append(slices.Clone(queryNoSource), strings.Fields("connections storage_per_table violations vtgate_cpu_avg_by_az vtgate_cpu_by_az vtgate_latency_p50 vtgate_latency_p95 vtgate_memory_avg_by_az vtgate_memory_by_az vtgate_requests svc_dedicated_pgbouncer_cpu_usage svc_dedicated_pgbouncer_current_connections svc_dedicated_pgbouncer_memory_usage svc_edge_bytes_received svc_edge_bytes_received_rate svc_edge_bytes_sent svc_edge_bytes_sent_rate svc_pgbouncer_current_connections svc_pgbouncer_pools_client svc_pgbouncer_pools_server svc_pods_container_ooms svc_pods_cpu_util_percentages svc_pods_iops_total svc_pods_mem_util_percentages svc_primary_memory_active_cache_bytes svc_primary_memory_inactive_cache_bytes svc_primary_memory_mmap_bytes svc_primary_memory_rss_bytes svc_primary_pgbouncer_cpu_util_percentages svc_primary_pgbouncer_mem_util_percentages svc_primary_pods_cpu_util_percentages svc_primary_pods_iops_total svc_primary_pods_mem_util_percentages svc_primary_postgres_connection_state svc_primary_storage_usage svc_primary_xact_commit_rate svc_replica_lag_seconds svc_replica_memory_active_cache_bytes svc_replica_memory_inactive_cache_bytes svc_replica_memory_mmap_bytes svc_replica_memory_rss_bytes svc_replica_pgbouncer_cpu_util_percentages svc_replica_pgbouncer_current_connections svc_replica_pgbouncer_mem_util_percentages svc_replica_pods_cpu_util_percentages svc_replica_pods_iops_total svc_replica_pods_mem_util_percentages svc_replica_postgres_connection_state svc_replica_storage_usage_bytes svc_replica_volume_usage_percentages svc_replication_slot_max_wal_retained_bytes svc_replication_slots_lost svc_settings_max_slot_wal_keep_size_bytes svc_storage_usage_bytes svc_volume_usage_percentages svc_wal_archiver_failed_rate svc_wal_archiver_last_age_succeeded svc_wal_archiver_succeeded_rate svc_wal_size_bytes")...)
	tabletMetrics   = strings.Fields("pod_queries pod_rows_read primary_queries primary_rows_read primary_rows_written replication_lag")
	tabletNoSource  = strings.Fields("vreplication_lag pod_cpu_usage pod_memory_usage pod_iops pod_ooms primary_cpu_usage primary_memory_usage primary_iops shard_storage_usage shard_storage_available")
	instantTablet   = strings.Fields("replication_lag")
	instantTabletNS = strings.Fields("primary_cpu_usage primary_memory_usage vtgate_cpu_usage vtgate_memory_usage")
	instantBranchNS = strings.Fields("svc_backup_fetch_percent svc_backup_restore_active svc_dedicated_pgbouncer_cpu_usage svc_dedicated_pgbouncer_current_client_connections svc_dedicated_pgbouncer_current_connections svc_dedicated_pgbouncer_current_server_connections svc_dedicated_pgbouncer_max_connections svc_dedicated_pgbouncer_memory_usage svc_pgbouncer_current_client_connections svc_pgbouncer_current_server_connections svc_pgbouncer_settings_max_client_conn svc_postgres_connection_state svc_postgres_settings_max_connections svc_volume_capacity_bytes svc_volume_disk_usage_bytes svc_volume_usage_percentage")
)

func metricsRoutes() []route {
	return []route{
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/metrics", op: "get_branch_metrics", handler: read(getBranchMetrics)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/metrics/instant", op: "get_instant_branch_metrics", handler: read(getInstantBranchMetrics)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/metrics/keyspace-tables", op: "get_branch_keyspace_table_metrics", handler: read(getKeyspaceTableMetrics)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/metrics/query", op: "get_branch_query_metrics", handler: read(getQueryMetrics)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/metrics/tables", op: "get_branch_table_metrics", handler: read(getTableMetrics)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/metrics/tablets", op: "get_tablet_metrics", handler: read(getTabletMetrics)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/metrics/tablets-instant", op: "get_instant_tablet_metrics", handler: read(getInstantTabletMetrics)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/metrics/tag", op: "get_branch_tag_metrics", handler: read(getTagMetrics)},
	}
}

// metricsRequest is a metrics request's query, checked.
type metricsRequest struct {
	q       url.Values
	b       *branchRec
	metrics []string
	// from, to and width are a time series' window and bucket width.
	from, to time.Time
	width    time.Duration
	steps    int
	filter   trafficFilter
	// keep selects further, for the filters trafficFilter lacks.
	keep []func(q *querySample) bool
}

// metricsQuery reads the query of a metrics request on the path's branch:
// the metrics asked for (derived or without a source in the fake; every
// derived one when none is), and, for a series (window), its window. Every
// bad parameter is a 400 naming it.
func (c *call) metricsQuery(derived, noSource []string, window bool) (*metricsRequest, error) {
	m := &metricsRequest{q: c.r.URL.Query(), b: c.branch}
	for _, v := range append(m.q["metrics"], m.q["metrics[]"]...) {
		for name := range strings.SplitSeq(v, ",") {
			if !slices.Contains(derived, name) && !slices.Contains(noSource, name) {
				return nil, badRequest("metrics: %q is not a metric of this operation", name)
			}
			if !slices.Contains(m.metrics, name) {
				m.metrics = append(m.metrics, name)
			}
		}
	}
	if len(m.metrics) == 0 {
		m.metrics = derived
	}
	if window {
		if err := m.window(c.now); err != nil {
			return nil, err
		}
	}
	if tt := m.q.Get("tablet_type"); tt != "" {
		switch t := platform.TabletType(tt); t {
		case platform.TabletPrimary, platform.TabletReplica, platform.TabletRDOnly:
			m.filter.tablet = t
		default:
			return nil, badRequest("tablet_type %q is not primary, replica or rdonly", tt)
		}
	}
	m.filter.keyspace = m.q.Get("keyspace")
	m.filter.fingerprint = m.q.Get("fingerprint")
	return m, nil
}

// periodLength is the length of a named window: 15m, 1h, ... 8d.
func periodLength(p platform.TrafficPeriod) (time.Duration, bool) {
	if !slices.Contains(trafficPeriods, p) {
		return 0, false
	}
	if days, ok := strings.CutSuffix(string(p), "d"); ok {
		n, err := strconv.Atoi(days)
		return time.Duration(n) * 24 * time.Hour, err == nil
	}
	d, err := time.ParseDuration(string(p))
	return d, err == nil
}

// window reads period, from, to and steps.
func (m *metricsRequest) window(now time.Time) error {
	period, from, to := m.q.Get("period"), m.q.Get("from"), m.q.Get("to")
	m.to, m.steps = now, metricsDefaultSteps
	length := 12 * time.Hour
	if period != "" {
		d, ok := periodLength(platform.TrafficPeriod(period))
		if !ok {
			return badRequest("period %q is not one of %s", period, backupEnumText(trafficPeriods))
		}
		if from != "" || to != "" {
			return badRequest("period: give a period or from and to, not both")
		}
		length = d
	}
	end, err := timeQuery(to, "to")
	if err != nil {
		return err
	}
	if !end.IsZero() {
		m.to = end.UTC()
	}
	m.from = m.to.Add(-length)
	start, err := timeQuery(from, "from")
	if err != nil {
		return err
	}
	if !start.IsZero() {
		if m.from = start.UTC(); !m.from.Before(m.to) {
			return badRequest("from %s is not before to %s", from, m.to.Format(time.RFC3339))
		}
	}
	if v := m.q.Get("steps"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > metricsMaxSteps {
			return badRequest("steps %q is not a number from 1 to %d", v, metricsMaxSteps)
		}
		m.steps = n
	}
	span := m.to.Sub(m.from)
	m.width = max(((span+time.Duration(m.steps)-1)/time.Duration(m.steps) + time.Second - 1).Truncate(time.Second), time.Second)
	return nil
}

// filters reads the filters of the query metrics: query_ids (fingerprints,
// any of them), q (words the query's text contains), role (the samples'
// username tag), budget_id and rule_id (the samples a traffic budget's
// rules, or one rule, match).
func (m *metricsRequest) filters() error {
	if ids := m.q["query_ids"]; len(ids) > 0 {
		m.keep = append(m.keep, func(q *querySample) bool { return slices.Contains(ids, q.pattern.fingerprint) })
	}
	if words := strings.Fields(strings.ToLower(m.q.Get("q"))); len(words) > 0 {
		m.keep = append(m.keep, func(q *querySample) bool {
			text := strings.ToLower(q.pattern.normalized)
			for _, w := range words {
				if !strings.Contains(text, w) {
					return false
				}
			}
			return true
		})
	}
	if role := m.q.Get("role"); role != "" {
		m.filter.tags = append(m.filter.tags, trafficTag{"username", role})
	}
	if id := m.q.Get("budget_id"); id != "" {
		bg := m.b.x().budgets.Get(id)
		if bg == nil {
			return badRequest("budget_id %q is not a traffic budget of branch %s", id, m.b.name)
		}
		m.keep = append(m.keep, func(q *querySample) bool {
			return slices.ContainsFunc(bg.rules, func(r *trafficRuleRec) bool { return r.appliesTo(q) })
		})
	}
	if id := m.q.Get("rule_id"); id != "" {
		var r *trafficRuleRec
		for _, bg := range m.b.x().budgets.All() {
			if i := slices.IndexFunc(bg.rules, func(r *trafficRuleRec) bool { return r.id == id }); i >= 0 {
				r = bg.rules[i]
			}
		}
		if r == nil {
			return badRequest("rule_id %q is not a traffic rule of branch %s", id, m.b.name)
		}
		m.keep = append(m.keep, r.appliesTo)
	}
	return nil
}

// selected reports whether the request's filters select q.
func (m *metricsRequest) selected(q *querySample) bool {
	if !m.filter.match(q) {
		return false
	}
	for _, keep := range m.keep {
		if !keep(q) {
			return false
		}
	}
	return true
}

// grouped aggregates the samples of the window that the request selects
// into its buckets, per group: keys names each sample's groups (a sample
// counts once in each). It returns the groups in the order their first
// sample was recorded.
func grouped[K comparable](m *metricsRequest, keys func(q *querySample, group func(K))) (map[K][]*trafficStats, []K) {
	out := map[K][]*trafficStats{}
	var order []K
	var (
		q *querySample
		i int
	)
	group := func(k K) { // one closure for every sample
		bs := out[k]
		if bs == nil {
			bs = m.emptyBuckets()
			out[k] = bs
			order = append(order, k)
		}
		bs[i].add(q)
	}
	for _, q = range m.b.traffic.all() {
		if q.at.Before(m.from) || q.at.After(m.to) || !m.selected(q) {
			continue
		}
		i = min(int(q.at.Sub(m.from)/m.width), m.steps-1)
		keys(q, group)
	}
	return out, order
}

// emptyBuckets are the window's buckets with nothing in them.
func (m *metricsRequest) emptyBuckets() []*trafficStats {
	out := make([]*trafficStats, m.steps)
	for i := range out {
		out[i] = &trafficStats{}
	}
	return out
}

// bucketsOf returns a group's buckets, empty ones for a group without
// samples.
func bucketsOf[K comparable](m *metricsRequest, groups map[K][]*trafficStats, k K) []*trafficStats {
	if bs := groups[k]; bs != nil {
		return bs
	}
	return m.emptyBuckets()
}

// series renders one series per metric of the request over buckets.
func (m *metricsRequest) series(labels map[string]string, buckets []*trafficStats, value func(name string, st *trafficStats) *float64) []*platform.MetricSeries {
	var out []*platform.MetricSeries
	for _, name := range m.metrics {
		s := &platform.MetricSeries{Metric: platform.MetricName(name), Labels: labels, Points: make([]*platform.MetricPoint, len(buckets))}
		for i, st := range buckets {
			s.Points[i] = &platform.MetricPoint{Time: platform.NewTimestamp(m.from.Add(time.Duration(i) * m.width)), Value: value(name, st)}
		}
		out = append(out, s)
	}
	return out
}

// render wraps series in the API's response.
func (m *metricsRequest) render(series []*platform.MetricSeries) *platform.TimeSeries {
	if series == nil {
		series = []*platform.MetricSeries{}
	}
	return &platform.TimeSeries{
		Type: "metric_series", StartDate: platform.NewTimestamp(m.from), EndDate: platform.NewTimestamp(m.to),
		Interval: int(m.width / time.Second), Series: series,
	}
}

// queryMetricValue is a query metric's value over st; nil for a metric
// without a source, and for a latency or ratio of no samples.
func queryMetricValue(name string, st *trafficStats) *float64 {
	ratio := func(a, b int64) *float64 {
		if b == 0 {
			return nil
		}
		return num(float64(a) / float64(b))
	}
	latency := func(p float64) *float64 {
		if st.count == 0 {
			return nil
		}
		return num(millis(st.percentile(p)))
	}
	n := int64(st.count)
	switch name {
	case "queries":
		return num(float64(st.count))
	case "query_errors":
		return num(float64(st.errors))
	case "rows_read":
		return num(float64(st.rowsRead))
	case "rows_returned":
		return num(float64(st.rowsReturned))
	case "rows_written":
		return num(float64(st.rowsAffected))
	case "total_duration_millis":
		return num(millis(st.total))
	case "latency_min":
		return latency(0)
	case "latency_p50":
		return latency(50)
	case "latency_p95":
		return latency(95)
	case "latency_p99":
		return latency(99)
	case "latency_p999":
		return latency(99.9)
	case "latency_max":
		return latency(100)
	case "rows_read_per_query":
		return ratio(st.rowsRead, n)
	case "rows_returned_per_query":
		return ratio(st.rowsReturned, n)
	case "rows_affected_per_query":
		return ratio(st.rowsAffected, n)
	case "rows_read_per_returned":
		return ratio(st.rowsRead, st.rowsReturned)
	case "avg_shard_queries":
		return ratio(st.shardQueries, n)
	case "max_shard_queries":
		if st.count == 0 {
			return nil
		}
		return num(float64(max(st.maxShards, 1)))
	}
	return nil
}

func num(v float64) *float64 { return &v }

func getBranchMetrics(c *call) (any, error) {
	m, err := c.metricsQuery(queryMetrics, branchNoSource, true)
	if err != nil {
		return nil, err
	}
	if err := m.filters(); err != nil {
		return nil, err
	}
	shard, pods := m.q.Get("shard"), append(m.q["pods"], m.q["pod"]...)
	if shard != "" || len(pods) > 0 {
		bt := tabletsOf(m.b)
		m.keep = append(m.keep, func(q *querySample) bool {
			found := false
			bt.place(q, func(t *tablet) {
				found = found || ((shard == "" || t.shard == shard) && (len(pods) == 0 || slices.Contains(pods, t.pod)))
			})
			return found
		})
	}
	groups, _ := grouped(m, func(q *querySample, group func(bool)) { group(true) })
	return m.render(m.series(map[string]string{}, bucketsOf(m, groups, true), queryMetricValue)), nil
}

func getQueryMetrics(c *call) (any, error) {
	m, err := c.metricsQuery(queryMetrics, queryNoSource, true)
	if err != nil {
		return nil, err
	}
	if err := m.filters(); err != nil {
		return nil, err
	}
	groups, order := grouped(m, func(q *querySample, group func(patternKey)) {
		group(patternKey{q.pattern.keyspace, q.pattern.fingerprint})
	})
	if ids := m.q["query_ids"]; len(ids) > 0 {
		// Each pattern asked for has its series, in the order asked.
		order = order[:0]
		for _, id := range ids {
			k := patternKey{m.filter.keyspace, id}
			if k.keyspace == "" {
				k.keyspace = m.b.defaultKeyspace().name
				if t := m.b.traffic; t != nil {
					for pk := range t.patterns {
						if pk.fingerprint == id {
							k.keyspace = pk.keyspace
							break
						}
					}
				}
			}
			order = append(order, k)
		}
	}
	var out []*platform.MetricSeries
	for _, k := range order {
		labels := map[string]string{"keyspace": k.keyspace, "fingerprint": k.fingerprint}
		out = append(out, m.series(labels, bucketsOf(m, groups, k), queryMetricValue)...)
	}
	return m.render(out), nil
}

func getTagMetrics(c *call) (any, error) {
	m, err := c.metricsQuery(queryMetrics, queryNoSource, true)
	if err != nil {
		return nil, err
	}
	if err := m.filters(); err != nil {
		return nil, err
	}
	var sets [][]trafficTag
	for _, v := range m.q["tag_sets"] {
		set, err := parseTagSet(v)
		if err != nil {
			return nil, err
		}
		sets = append(sets, set)
	}
	var groups map[int][]*trafficStats
	if len(sets) > 0 {
		// Each tag set asked for has its series, in the order asked.
		groups, _ = grouped(m, func(q *querySample, group func(int)) {
			for i, set := range sets {
				if sampleHasTags(q, set) {
					group(i)
				}
			}
		})
	} else {
		byTag, order := grouped(m, func(q *querySample, group func(trafficTag)) {
			for _, t := range q.tags {
				group(t)
			}
		})
		slices.SortFunc(order, func(a, b trafficTag) int {
			return cmp.Or(strings.Compare(a.key, b.key), strings.Compare(a.value, b.value))
		})
		groups = map[int][]*trafficStats{}
		for i, t := range order {
			sets, groups[i] = append(sets, []trafficTag{t}), byTag[t]
		}
	}
	var out []*platform.MetricSeries
	for i, set := range sets {
		labels := map[string]string{"tag_set": renderTagSet(set)}
		for _, t := range set {
			labels[t.key] = t.value
		}
		out = append(out, m.series(labels, bucketsOf(m, groups, i), queryMetricValue)...)
	}
	return m.render(out), nil
}

// sampleHasTags reports whether q carries every tag of set.
func sampleHasTags(q *querySample, set []trafficTag) bool {
	for _, t := range set {
		if v, ok := q.tag(t.key); !ok || v != t.value {
			return false
		}
	}
	return true
}

// parseTagSet reads a tag set, "key:value" pairs joined by commas.
func parseTagSet(v string) ([]trafficTag, error) {
	var set []trafficTag
	for pair := range strings.SplitSeq(v, ",") {
		k, val, ok := strings.Cut(pair, ":")
		t := trafficTag{strings.TrimSpace(k), strings.TrimSpace(val)}
		if !ok || t.key == "" || t.value == "" {
			return nil, badRequest("tag_sets %q: each tag is key:value, joined by commas", v)
		}
		set = append(set, t)
	}
	slices.SortFunc(set, func(a, b trafficTag) int { return strings.Compare(a.key, b.key) })
	return set, nil
}

// renderTagSet writes a tag set as parseTagSet reads it, keys sorted.
func renderTagSet(set []trafficTag) string {
	parts := make([]string, len(set))
	for i, t := range set {
		parts[i] = t.key + ":" + t.value
	}
	return strings.Join(parts, ",")
}

// tablet is a database server of a branch.
type tablet struct {
	keyspace, shard, pod string
	typ                  platform.TabletType
}

// branchTablets are a branch's tablets, by keyspace and shard.
type branchTablets struct {
	b      *branchRec
	shards map[string][]string             // keyspace -> shard names
	byKS   map[string]map[string][]*tablet // keyspace -> shard -> primary first, then replicas
	all    []*tablet
}

// tabletsOf lists b's tablets from its infrastructure.
func tabletsOf(b *branchRec) *branchTablets {
	bt := &branchTablets{b: b, shards: map[string][]string{}, byKS: map[string]map[string][]*tablet{}}
	ksOf := map[string]string{}
	for _, ks := range b.keyspaces.All() {
		if ks.isDefault {
			ksOf[""] = ks.name
		}
	}
	for _, pod := range infraPods(b).Pods {
		if pod.TabletType == nil {
			continue
		}
		t := &tablet{keyspace: ksOf[""], shard: "-", pod: pod.Name, typ: platform.TabletType(*pod.TabletType)}
		if pod.Keyspace != nil {
			t.keyspace = *pod.Keyspace
		}
		if pod.Shard != nil && *pod.Shard != "" {
			t.shard = *pod.Shard
		}
		shards := bt.byKS[t.keyspace]
		if shards == nil {
			shards = map[string][]*tablet{}
			bt.byKS[t.keyspace] = shards
		}
		if _, ok := shards[t.shard]; !ok {
			bt.shards[t.keyspace] = append(bt.shards[t.keyspace], t.shard)
		}
		if t.typ == platform.TabletPrimary {
			shards[t.shard] = append([]*tablet{t}, shards[t.shard]...)
		} else {
			shards[t.shard] = append(shards[t.shard], t)
		}
		bt.all = append(bt.all, t)
	}
	return bt
}

// sampleHash places a sample among shards and replicas: the FNV-1a hash
// of its ID.
func sampleHash(q *querySample) uint32 {
	h := uint32(2166136261)
	for i := range len(q.id) {
		h = (h ^ uint32(q.id[i])) * 16777619
	}
	return h
}

// place calls fn with each tablet a sample ran on: on each of its shards
// (ShardQueries consecutive shards from the one its hash picks), the
// primary, or one of the replicas for a replica or rdonly sample.
func (bt *branchTablets) place(q *querySample, fn func(*tablet)) {
	shards := bt.shards[q.pattern.keyspace]
	if len(shards) == 0 {
		return
	}
	h := sampleHash(q)
	first := int(h % uint32(len(shards)))
	for i := range min(max(q.shardQueries, 1), len(shards)) {
		ts := bt.byKS[q.pattern.keyspace][shards[(first+i)%len(shards)]]
		switch {
		case q.tablet == "" || q.tablet == platform.TabletPrimary || len(ts) == 1:
			fn(ts[0])
		default:
			fn(ts[1+int(h%uint32(len(ts)-1))])
		}
	}
}

func getTabletMetrics(c *call) (any, error) {
	m, err := c.metricsQuery(tabletMetrics, tabletNoSource, true)
	if err != nil {
		return nil, err
	}
	bt := tabletsOf(m.b)
	ks, shard, pod := m.q.Get("keyspace"), m.q.Get("shard"), m.q.Get("pod")
	m.filter.keyspace = "" // the tablets are filtered instead
	groups, _ := grouped(m, func(q *querySample, group func(*tablet)) { bt.place(q, group) })
	var out []*platform.MetricSeries
	for _, t := range bt.all {
		if (ks != "" && t.keyspace != ks) || (shard != "" && t.shard != shard) || (pod != "" && t.pod != pod) {
			continue
		}
		labels := map[string]string{"keyspace": t.keyspace, "shard": t.shard, "tablet_type": string(t.typ), "pod": t.pod}
		for _, s := range m.series(labels, bucketsOf(m, groups, t), tabletMetricValue) {
			if tabletSeriesApplies(string(s.Metric), t) {
				out = append(out, s)
			}
		}
	}
	return m.render(out), nil
}

// tabletSeriesApplies reports whether a tablet has a series of metric
// name: primary_ metrics are of primaries, replication_lag of replicas.
func tabletSeriesApplies(name string, t *tablet) bool {
	switch {
	case strings.HasPrefix(name, "primary_"):
		return t.typ == platform.TabletPrimary
	case name == "replication_lag":
		return t.typ != platform.TabletPrimary
	}
	return true
}

// tabletMetricValue is a tablet metric's value over st.
func tabletMetricValue(name string, st *trafficStats) *float64 {
	switch name {
	case "pod_queries", "primary_queries":
		return num(float64(st.count))
	case "pod_rows_read", "primary_rows_read":
		return num(float64(st.rowsRead))
	case "primary_rows_written":
		return num(float64(st.rowsAffected))
	case "replication_lag":
		return num(0) // the fake's replicas never lag
	}
	return nil
}

func getInstantTabletMetrics(c *call) (any, error) {
	m, err := c.metricsQuery(instantTablet, instantTabletNS, false)
	if err != nil {
		return nil, err
	}
	ks, shard := m.q.Get("keyspace"), m.q.Get("shard")
	out := m.instant()
	for _, t := range tabletsOf(m.b).all {
		if (ks != "" && t.keyspace != ks) || (shard != "" && t.shard != shard) || t.typ == platform.TabletPrimary {
			continue
		}
		if slices.Contains(m.metrics, "replication_lag") {
			out.Metrics = append(out.Metrics, &platform.InstantMetric{
				Metric: platform.MetricReplicationLag, Time: platform.NewTimestamp(c.now),
				Labels: map[string]string{"keyspace": t.keyspace, "shard": t.shard, "tablet_type": string(t.typ), "pod": t.pod},
			})
		}
	}
	return out, nil
}

func getInstantBranchMetrics(c *call) (any, error) {
	m, err := c.metricsQuery(nil, instantBranchNS, false)
	if err != nil {
		return nil, err
	}
	return m.instant(), nil
}

// instant is an empty instant-metrics response for the request's branch.
func (m *metricsRequest) instant() *platform.InstantMetrics {
	return &platform.InstantMetrics{
		Type:    "instant_metrics",
		Branch:  &platform.MetricsBranch{ID: m.b.id, Type: "Branch", Name: m.b.name},
		Metrics: []*platform.InstantMetric{},
	}
}

// tableStorage estimates the storage of b's tables from its INSERT and
// DELETE samples, by keyspace and table; every table of the schema is
// there.
func tableStorage(b *branchRec) map[string]map[string]*platform.TableStorage {
	out := map[string]map[string]*platform.TableStorage{}
	for _, ks := range b.keyspaces.All() {
		tables := map[string]*platform.TableStorage{}
		for name := range ks.tables {
			tables[name] = &platform.TableStorage{}
		}
		out[ks.name] = tables
	}
	for _, q := range b.traffic.all() {
		sign := int64(0)
		switch q.pattern.statement {
		case "INSERT":
			sign = 1
		case "DELETE":
			sign = -1
		}
		if sign == 0 || q.err != nil {
			continue
		}
		for _, name := range q.pattern.tables {
			if t := out[q.pattern.keyspace][name]; t != nil {
				t.Rows = max(t.Rows+sign*q.rowsAffected, 0)
			}
		}
	}
	for _, tables := range out {
		for _, t := range tables {
			t.DataBytes, t.IndexBytes = t.Rows*tableRowBytes, t.Rows*tableIndexBytes
		}
	}
	return out
}

// tableBytes is the storage of all of b's tables (data and indexes), as
// tableStorage estimates it.
func (b *branchRec) tableBytes() int64 {
	var n int64
	for _, tables := range tableStorage(b) {
		for _, t := range tables {
			n += t.DataBytes + t.IndexBytes
		}
	}
	return n
}

func getKeyspaceTableMetrics(c *call) (any, error) {
	return tableStorage(c.branch), nil
}

func getTableMetrics(c *call) (any, error) {
	out := map[string]*platform.TableStorage{}
	for _, tables := range tableStorage(c.branch) {
		for name, t := range tables {
			if sum := out[name]; sum != nil {
				sum.Rows, sum.DataBytes, sum.IndexBytes = sum.Rows+t.Rows, sum.DataBytes+t.DataBytes, sum.IndexBytes+t.IndexBytes
			} else {
				out[name] = t
			}
		}
	}
	return out, nil
}
