package fake

import (
	"cmp"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake/internal/sqltext"
)

// This file serves the query insights of branches, computed from the
// samples of traffic.go. Where the API's description is silent, the fake
// decides that:
//   - The window is [from, to) of RFC 3339 times, or period (15m to 8d)
//     back from now, now included; from or to alone leaves the other side
//     open; period with from or to is a 400; without any the window is
//     the last 24 hours.
//   - A query is its keyspace and fingerprint. Its summary's id is a hash
//     of both; an error summary's id is its error fingerprint.
//   - list_branch_queries sorts by totalTime, descending, by default; any
//     sort sorts descending unless dir says asc, and ties go by keyspace
//     and fingerprint. Sorts by figures the fake does not measure (CPU
//     and IO time, bytes, blocks, indexes, parallel workers, traffic
//     control) are accepted and leave those ties. Those figures are 0;
//     index_usages and routing_index_usages are empty. fields is accepted
//     and every field is returned.
//   - list_branch_query_errors sorts by lastRun, descending, by default;
//     an error summary's message is its latest occurrence's.
//   - Executions (get_query_statistics, get_branch_query_error) are newest
//     first; a query or error fingerprint with no sample kept is a 404, one
//     with none in the window an empty page (a summary of zeros).
//   - An execution's started_at is its sample's time; username and
//     remote_address are its tags of those keys ("" without); password is
//     {} (the fake does not know which password ran it); tags are its
//     recorded tags as {"key_id", "key", "name", "value", "source"}, name
//     the key again (the official client reads name); SELECTs are
//     explainable; nothing is truncated.
//   - Tags: every key the samples of the window carry, by name, the
//     system tag query_fingerprint included; a tag's id is its key's ID
//     ("S" for SQL keys, "B" for system keys, then the key), and its path
//     segment in get_branch_query_tag is its name. Values are by count,
//     then name; beyond values_limit (10 by default, 1 to 100) the rest are
//     one value "(other)" of kind overflow, left out with
//     literal_values_only. A tag no sample kept carries is a 404.
//   - Tag summaries group the executions by the values of the tags named
//     in tags (names or ids; tags or tags[]); the executions without all of
//     them are left out. Without tags, each key=value is its own group.
//     They sort like list_branch_queries, and by dimensions.
//   - list_traffic_budgets_for_query lists, in the budget list's order,
//     the budgets of the branch with a rule for the query: its fingerprint,
//     a query_fingerprint tag of it, or a tag that an execution of it
//     carries, a rule with a keyspace matching only that keyspace's
//     executions; keyspace keeps the rules for that keyspace. A
//     fingerprint the branch has neither seen nor a rule for is a 404, as
//     on the query's other routes.

func insightsRoutes() []route {
	return []route{
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/insights", op: "list_branch_queries", handler: read(listBranchQueries)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/insights/queries/{id}", op: "get_branch_query", handler: read(getBranchQuery)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/insights/{fingerprint}", op: "get_query_statistics", handler: read(getQueryStatistics)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/insights/{fingerprint}/summary", op: "get_query_summary", handler: read(getQuerySummary), muxPattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/insights/{fingerprint}/{rest...}"},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/insights/errors", op: "list_branch_query_errors", handler: read(listBranchQueryErrors)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/insights/errors/{fingerprint}", op: "get_branch_query_error", handler: read(getBranchQueryError)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/insights/tags", op: "list_branch_query_tags", handler: read(listBranchQueryTags)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/insights/tags/summaries", op: "list_branch_query_tag_summaries", handler: read(listBranchQueryTagSummaries)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/insights/tags/{tag}", op: "get_branch_query_tag", handler: read(getBranchQueryTag)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/insights/anomalies", op: "list_branch_anomalies", handler: read(listBranchAnomalies)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/insights/anomalies/{id}", op: "get_branch_anomaly", handler: read(getBranchAnomaly)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/insights/{fingerprint}/traffic/budgets", op: "list_traffic_budgets_for_query", handler: read(listTrafficBudgetsForQuery)},
	}
}

// defaultInsightsWindow is the window of a request that names none.
const defaultInsightsWindow = 24 * time.Hour

// insightsPeriods are the values of period, and their lengths.
var insightsPeriods = map[platform.TrafficPeriod]time.Duration{
	platform.TrafficPeriod15m: 15 * time.Minute, platform.TrafficPeriod1h: time.Hour,
	platform.TrafficPeriod3h: 3 * time.Hour, platform.TrafficPeriod6h: 6 * time.Hour,
	platform.TrafficPeriod12h: 12 * time.Hour, platform.TrafficPeriod1d: 24 * time.Hour,
	platform.TrafficPeriod2d: 48 * time.Hour, platform.TrafficPeriod7d: 7 * 24 * time.Hour,
	platform.TrafficPeriod8d: 8 * 24 * time.Hour,
}

// insightsWindow reads from, to and period into a filter's window.
func (c *call) insightsWindow() (trafficFilter, error) {
	q := c.r.URL.Query()
	var f trafficFilter
	var err error
	if f.from, err = timeQuery(q.Get("from"), "from"); err != nil {
		return f, err
	}
	if f.to, err = timeQuery(q.Get("to"), "to"); err != nil {
		return f, err
	}
	period := platform.TrafficPeriod(q.Get("period"))
	switch d, ok := insightsPeriods[period]; {
	case period != "" && !ok:
		return f, badRequest("period %q is not one of %s", period, backupEnumText(trafficPeriods))
	case period != "" && (!f.from.IsZero() || !f.to.IsZero()):
		return f, badRequest("give period or from and to, not both")
	case !f.from.IsZero() && !f.to.IsZero() && !f.from.Before(f.to):
		return f, badRequest("from must be before to")
	case ok:
		f.from, f.to = c.now.Add(-d), c.now.Add(time.Nanosecond)
	case f.from.IsZero() && f.to.IsZero():
		f.from, f.to = c.now.Add(-defaultInsightsWindow), c.now.Add(time.Nanosecond)
	}
	return f, nil
}

// insightsEnum reads an optional query parameter that takes one of values.
func insightsEnum[T ~string](q url.Values, name string, values ...T) (T, error) {
	v := T(q.Get(name))
	if v != "" && !slices.Contains(values, v) {
		return "", badRequest("%s %q is not one of %s", name, v, backupEnumText(values))
	}
	return v, nil
}

// insightsFilter reads the window and the tablet_type, type, keyspace and
// fingerprint parameters the operation takes (by name in params).
func (c *call) insightsFilter(params ...string) (trafficFilter, error) {
	f, err := c.insightsWindow()
	if err != nil {
		return f, err
	}
	q := c.r.URL.Query()
	for _, p := range params {
		switch p {
		case "tablet_type":
			f.tablet, err = insightsEnum(q, p, platform.TabletPrimary, platform.TabletReplica, platform.TabletRDOnly)
		case "type":
			var st platform.StatementType
			st, err = insightsEnum(q, p, platform.StatementSelect, platform.StatementInsert, platform.StatementUpdate, platform.StatementDelete)
			f.statement = string(st)
		case "keyspace":
			f.keyspace = q.Get(p)
		case "fingerprint":
			f.fingerprint = q.Get(p)
		}
		if err != nil {
			return f, err
		}
	}
	return f, nil
}

// ratio is a/b, 0 when b is 0.
func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// renderQueryStats renders aggregated figures; total is the duration of
// every execution of the window, for the percentages.
func renderQueryStats(st *trafficStats, tables []trafficTable, total time.Duration) platform.QueryStats {
	n := float64(st.count)
	out := platform.QueryStats{
		QueryCount: st.count, ErrorCount: st.errors,
		Tables: []string{}, QualifiedTables: []string{}, TableKeyspaces: []any{}, IndexUsages: []any{}, RoutingIndexUsages: []any{},
		SumShardQueries: st.shardQueries, MaxShardQueries: st.maxShards, AvgShardQueries: ratio(float64(st.shardQueries), n),
		SumRowsRead: st.rowsRead, SumRowsAffected: st.rowsAffected, SumRowsReturned: st.rowsReturned,
		RowsReadPerReturned: ratio(float64(st.rowsRead), float64(st.rowsReturned)), RowsReadPerQuery: ratio(float64(st.rowsRead), n),
		RowsReturnedPerQuery: ratio(float64(st.rowsReturned), n), RowsAffectedPerQuery: ratio(float64(st.rowsAffected), n),
		SumTotalDurationMillis: st.total.Milliseconds(), SumTotalDurationPercent: 100 * ratio(float64(st.total), float64(total)),
		TimePerQuery: millis(st.mean()), P50Latency: millis(st.percentile(50)), P99Latency: millis(st.percentile(99)), MaxLatency: millis(st.maxDuration()),
	}
	if st.count > 0 {
		out.LastRunAt = platform.Ptr(platform.NewTimestamp(st.last))
	}
	for _, t := range tables {
		out.Tables = append(out.Tables, t.table)
		out.QualifiedTables = append(out.QualifiedTables, t.keyspace+"."+t.table)
		out.TableKeyspaces = append(out.TableKeyspaces, map[string]any{"table": t.table, "keyspace": t.keyspace})
	}
	return out
}

// patternTables are the tables of a query.
func patternTables(p *queryPattern) []trafficTable {
	out := make([]trafficTable, len(p.tables))
	for i, t := range p.tables {
		out[i] = trafficTable{p.keyspace, t}
	}
	return out
}

// renderQuerySummary renders what a query did.
func renderQuerySummary(p *queryPattern, st *trafficStats, total time.Duration) *platform.QuerySummary {
	return &platform.QuerySummary{
		ID: sqltext.Fingerprint(p.keyspace + "\x00" + p.fingerprint), Fingerprint: p.fingerprint, StatementType: p.statement,
		Keyspace: p.keyspace, NormalizedSQL: p.normalized, SyntaxHighlightedSQL: syntaxHighlighted(p.normalized),
		Multishard: st.maxShards > 1, QueryStats: renderQueryStats(st, patternTables(p), total),
	}
}

// statsSorts are the figures of a summary to sort by, as numbers; the
// sorts the API lists that are not here (figures the fake does not
// measure) are accepted and sort nothing.
var statsSorts = map[string]func(s *platform.QueryStats) float64{
	"lastRun": func(s *platform.QueryStats) float64 {
		if s.LastRunAt == nil {
			return 0
		}
		return float64(s.LastRunAt.UnixNano())
	},
	"count":                func(s *platform.QueryStats) float64 { return float64(s.QueryCount) },
	"errorCount":           func(s *platform.QueryStats) float64 { return float64(s.ErrorCount) },
	"rowsRead":             func(s *platform.QueryStats) float64 { return float64(s.SumRowsRead) },
	"rowsAffected":         func(s *platform.QueryStats) float64 { return float64(s.SumRowsAffected) },
	"rowsReturned":         func(s *platform.QueryStats) float64 { return float64(s.SumRowsReturned) },
	"rowsReadPerReturned":  func(s *platform.QueryStats) float64 { return s.RowsReadPerReturned },
	"rowsReadPerQuery":     func(s *platform.QueryStats) float64 { return s.RowsReadPerQuery },
	"rowsReturnedPerQuery": func(s *platform.QueryStats) float64 { return s.RowsReturnedPerQuery },
	"rowsAffectedPerQuery": func(s *platform.QueryStats) float64 { return s.RowsAffectedPerQuery },
	"totalTime":            func(s *platform.QueryStats) float64 { return float64(s.SumTotalDurationMillis) },
	"percentTime":          func(s *platform.QueryStats) float64 { return s.SumTotalDurationPercent },
	"sumShardQueries":      func(s *platform.QueryStats) float64 { return float64(s.SumShardQueries) },
	"maxShardQueries":      func(s *platform.QueryStats) float64 { return float64(s.MaxShardQueries) },
	"avgShardQueries":      func(s *platform.QueryStats) float64 { return s.AvgShardQueries },
	"p50Latency":           func(s *platform.QueryStats) float64 { return s.P50Latency },
	"p99Latency":           func(s *platform.QueryStats) float64 { return s.P99Latency },
	"maxLatency":           func(s *platform.QueryStats) float64 { return s.MaxLatency },
}

// unmeasuredSorts are the API's sorts by figures the fake has as 0.
var unmeasuredSorts = strings.Fields(`cpuTime ioTime avgParallelWorkers indexes routingIndexes percentCpuTime percentIoTime
	egressBytes egressBytesPerQuery maxEgressBytes ingressBytes ingressBytesPerQuery maxIngressBytes blocksRead blocksHit
	blockCacheHitRatio blocksDirtied blocksWritten trafficControlWarnings trafficControlThrottled trafficControlChecked trafficControlBudgetsUsed`)

// statsOrder reads sort and dir for rows with stats: it returns the
// comparison of two rows, by the sort (texts names the sorts by a text of
// the row), then by tie. def is the default sort.
func statsOrder[T any](c *call, def string, stats func(T) *platform.QueryStats, texts map[string]func(T) string, tie func(a, b T) int) (func(a, b T) int, error) {
	q := c.r.URL.Query()
	sort := cmp.Or(q.Get("sort"), def)
	desc := true
	switch q.Get("dir") {
	case "", "desc":
	case "asc":
		desc = false
	default:
		return nil, badRequest("dir must be asc or desc, got %q", q.Get("dir"))
	}
	var key func(a, b T) int
	if num, ok := statsSorts[sort]; ok {
		key = func(a, b T) int { return cmp.Compare(num(stats(a)), num(stats(b))) }
	} else if text, ok := texts[sort]; ok {
		key = func(a, b T) int { return strings.Compare(text(a), text(b)) }
	} else if slices.Contains(unmeasuredSorts, sort) {
		key = func(T, T) int { return 0 }
	} else {
		return nil, badRequest("sort %q is not a sort of this list", sort)
	}
	return func(a, b T) int {
		k := key(a, b)
		if desc {
			k = -k
		}
		return cmp.Or(k, tie(a, b))
	}, nil
}

// summaryTexts are the sorts of a query summary by a text.
var summaryTexts = map[string]func(*platform.QuerySummary) string{
	"keyspace":       func(s *platform.QuerySummary) string { return s.Keyspace },
	"query":          func(s *platform.QuerySummary) string { return s.NormalizedSQL },
	"table":          func(s *platform.QuerySummary) string { return strings.Join(s.Tables, ",") },
	"qualifiedTable": func(s *platform.QuerySummary) string { return strings.Join(s.QualifiedTables, ",") },
	"tableKeyspace":  func(s *platform.QuerySummary) string { return s.Keyspace },
}

// searched reports whether text contains q, ignoring case; an empty q is
// in every text.
func searched(text, q string) bool {
	return q == "" || strings.Contains(strings.ToLower(text), strings.ToLower(q))
}

// trafficTotal is the duration of every execution f selects.
func trafficTotal(b *branchRec, f trafficFilter) time.Duration { return b.traffic.totalDuration(f) }

func listBranchQueries(c *call) (any, error) {
	b := c.branch
	f, err := c.insightsFilter("tablet_type", "type")
	if err != nil {
		return nil, err
	}
	order, err := statsOrder(c, "totalTime", func(s *platform.QuerySummary) *platform.QueryStats { return &s.QueryStats }, summaryTexts,
		func(a, b *platform.QuerySummary) int {
			return cmp.Or(strings.Compare(a.Keyspace, b.Keyspace), strings.Compare(a.Fingerprint, b.Fingerprint))
		})
	if err != nil {
		return nil, err
	}
	search := c.r.URL.Query().Get("q")
	total := trafficTotal(b, f)
	var rows []*platform.QuerySummary
	for p, st := range b.traffic.byPattern(f) {
		if searched(p.normalized, search) {
			rows = append(rows, renderQuerySummary(p, st, total))
		}
	}
	slices.SortFunc(rows, order)
	return slicePageOf(c, rows, false, func(s *platform.QuerySummary) *platform.QuerySummary { return s }), nil
}

// renderBranchQuery renders one execution.
func renderBranchQuery(q *querySample) *platform.BranchQuery {
	p := q.pattern
	at := platform.NewTimestamp(q.at)
	out := &platform.BranchQuery{
		ID: q.id, Password: map[string]any{}, Tags: []map[string]any{}, Fingerprint: p.fingerprint, StartedAt: &at,
		StatementType: p.statement, Keyspace: p.keyspace, Tables: append([]string{}, p.tables...),
		ShardQueries: q.shardQueries, RowsRead: q.rowsRead, RowsAffected: q.rowsAffected, RowsReturned: q.rowsReturned,
		TotalDurationMillis: q.duration.Milliseconds(), NormalizedSQL: p.normalized, SyntaxHighlightedSQL: syntaxHighlighted(p.normalized),
		CreatedAt: at, UpdatedAt: at, Explainable: p.statement == "SELECT",
	}
	out.Username, _ = q.tag("username")
	out.RemoteAddress, _ = q.tag("remote_address")
	for _, t := range q.tags {
		out.Tags = append(out.Tags, map[string]any{"key_id": t.keyID(), "key": t.key, "name": t.key, "value": t.value, "source": string(t.source())})
	}
	if q.err != nil {
		out.ErrorMessage = q.err.message
	}
	return out
}

// newestFirst orders executions by time, newest first, then by ID.
func newestFirst(a, b *querySample) int {
	return cmp.Or(b.at.Compare(a.at), strings.Compare(a.id, b.id))
}

// executionsPage serves a page of the executions f selects, newest first.
func executionsPage(c *call, b *branchRec, f trafficFilter) any {
	rows := b.traffic.selectSamples(f)
	slices.SortFunc(rows, newestFirst)
	return slicePageOf(c, rows, false, renderBranchQuery)
}

func getBranchQuery(c *call) (any, error) {
	q := c.branch.traffic.sample(c.r.PathValue("id"))
	if q == nil {
		return nil, notFound()
	}
	return renderBranchQuery(q), nil
}

// queryOf reads the {fingerprint} of the path and the keyspace parameter,
// and finds the query: a 404 when no sample kept is of it. Without a
// keyspace (the service's official client sends none) the fingerprint's
// one keyspace is meant; a 400 asks for it when the fingerprint ran in
// several.
func (c *call) queryOf(b *branchRec) (*queryPattern, trafficFilter, error) {
	f, err := c.insightsWindow()
	if err != nil {
		return nil, f, err
	}
	fp, ks := c.r.PathValue("fingerprint"), c.r.URL.Query().Get("keyspace")
	if ks == "" {
		switch kss := b.traffic.keyspacesOf(fp); {
		case len(kss) == 1:
			ks = kss[0]
		case len(kss) > 1:
			return nil, f, badRequest("keyspace is required: query %s ran in keyspaces %s", fp, strings.Join(kss, ", "))
		}
	}
	p := b.traffic.pattern(ks, fp)
	if p == nil {
		return nil, f, notFound()
	}
	f.keyspace, f.fingerprint = p.keyspace, p.fingerprint
	return p, f, nil
}

func getQueryStatistics(c *call) (any, error) {
	b := c.branch
	_, f, err := c.queryOf(b)
	if err != nil {
		return nil, err
	}
	return executionsPage(c, b, f), nil
}

func getQuerySummary(c *call) (any, error) {
	if c.r.PathValue("rest") != "summary" {
		return nil, notFound()
	}
	b := c.branch
	p, f, err := c.queryOf(b)
	if err != nil {
		return nil, err
	}
	window := f
	window.keyspace, window.fingerprint = "", ""
	return renderQuerySummary(p, b.traffic.stats(f), trafficTotal(b, window)), nil
}

// errorRow is an error of the window with its latest occurrence.
type errorRow struct {
	fingerprint string
	stats       *trafficStats
	latest      *querySample
}

func renderQueryError(e *errorRow) *platform.QueryErrorSummary {
	return &platform.QueryErrorSummary{
		ID: e.fingerprint, ErrorFingerprint: e.fingerprint, StartedAt: platform.NewTimestamp(e.stats.last),
		TotalDurationMillis: e.stats.total.Milliseconds(), TimePerQuery: millis(e.stats.mean()),
		ErrorCount: e.stats.errors, ErrorMessage: e.latest.err.message,
	}
}

// errorSorts are list_branch_query_errors' sorts.
var errorSorts = map[string]func(a, b *errorRow) int{
	"error":        func(a, b *errorRow) int { return strings.Compare(a.latest.err.message, b.latest.err.message) },
	"lastRun":      func(a, b *errorRow) int { return a.stats.last.Compare(b.stats.last) },
	"count":        func(a, b *errorRow) int { return cmp.Compare(a.stats.errors, b.stats.errors) },
	"totalTime":    func(a, b *errorRow) int { return cmp.Compare(a.stats.total, b.stats.total) },
	"timePerQuery": func(a, b *errorRow) int { return cmp.Compare(a.stats.mean(), b.stats.mean()) },
}

func listBranchQueryErrors(c *call) (any, error) {
	b := c.branch
	f, err := c.insightsFilter("tablet_type")
	if err != nil {
		return nil, err
	}
	q := c.r.URL.Query()
	sort := cmp.Or(q.Get("sort"), "lastRun")
	key, ok := errorSorts[sort]
	if !ok {
		return nil, badRequest("sort %q is not one of error, lastRun, count, totalTime or timePerQuery", sort)
	}
	desc := true
	switch q.Get("dir") {
	case "", "desc":
	case "asc":
		desc = false
	default:
		return nil, badRequest("dir must be asc or desc, got %q", q.Get("dir"))
	}
	f.errors = true
	rows := map[string]*errorRow{}
	for _, s := range b.traffic.selectSamples(f) {
		e := rows[s.err.fingerprint]
		if e == nil {
			e = &errorRow{fingerprint: s.err.fingerprint, stats: &trafficStats{}}
			rows[s.err.fingerprint] = e
		}
		e.stats.add(s)
		if e.latest == nil || !s.at.Before(e.latest.at) {
			e.latest = s
		}
	}
	var list []*errorRow
	for _, e := range rows {
		if searched(e.latest.err.message, q.Get("q")) {
			list = append(list, e)
		}
	}
	slices.SortFunc(list, func(a, b *errorRow) int {
		k := key(a, b)
		if desc {
			k = -k
		}
		return cmp.Or(k, strings.Compare(a.fingerprint, b.fingerprint))
	})
	return slicePageOf(c, list, false, renderQueryError), nil
}

func getBranchQueryError(c *call) (any, error) {
	b := c.branch
	f, err := c.insightsWindow()
	if err != nil {
		return nil, err
	}
	f.errorFingerprint = c.r.PathValue("fingerprint")
	if !slices.ContainsFunc(b.traffic.all(), func(q *querySample) bool { return q.err != nil && q.err.fingerprint == f.errorFingerprint }) {
		return nil, notFound()
	}
	return executionsPage(c, b, f), nil
}

// Bounds of a tag's values.
const (
	defaultTagValues = 10
	maxTagValues     = 100
	overflowTagValue = "(other)"
)

// tagOptions are values_limit and literal_values_only.
type tagOptions struct {
	limit       int
	literalOnly bool
}

func (c *call) tagOptions() (tagOptions, error) {
	q := c.r.URL.Query()
	o := tagOptions{limit: defaultTagValues}
	if v := q.Get("values_limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxTagValues {
			return o, badRequest("values_limit must be an integer from 1 to %d, got %q", maxTagValues, v)
		}
		o.limit = n
	}
	if v := q.Get("literal_values_only"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return o, badRequest("literal_values_only must be true or false, got %q", v)
		}
		o.literalOnly = b
	}
	return o, nil
}

// tagCounts are the executions of a tag key, by value.
type tagCounts struct {
	key    string
	count  int
	values map[string]int
}

// tagsOf counts the tags of the executions f selects, by key, the system
// tag query_fingerprint included (as byTag groups them, counting only).
func tagsOf(b *branchRec, f trafficFilter) map[string]*tagCounts {
	out := map[string]*tagCounts{}
	count := func(t trafficTag) {
		tc := out[t.key]
		if tc == nil {
			tc = &tagCounts{key: t.key, values: map[string]int{}}
			out[t.key] = tc
		}
		tc.count++
		tc.values[t.value]++
	}
	for _, q := range b.traffic.all() {
		if !f.match(q) {
			continue
		}
		count(trafficTag{"query_fingerprint", q.pattern.fingerprint})
		for _, t := range q.tags {
			count(t)
		}
	}
	return out
}

// renderQueryTag renders a tag key with its values.
func renderQueryTag(tc *tagCounts, o tagOptions) *platform.QueryTag {
	t := trafficTag{key: tc.key}
	out := &platform.QueryTag{ID: t.keyID(), Name: tc.key, Source: t.source(), QueryCount: tc.count, Values: []*platform.QueryTagValue{}}
	names := slices.SortedFunc(func(yield func(string) bool) {
		for v := range tc.values {
			if !yield(v) {
				return
			}
		}
	}, func(a, b string) int { return cmp.Or(cmp.Compare(tc.values[b], tc.values[a]), strings.Compare(a, b)) })
	rest := 0
	for i, v := range names {
		if i < o.limit {
			out.Values = append(out.Values, &platform.QueryTagValue{Name: v, QueryCount: tc.values[v], Kind: platform.TagValueLiteral})
		} else {
			rest += tc.values[v]
		}
	}
	if rest > 0 && !o.literalOnly {
		out.Values = append(out.Values, &platform.QueryTagValue{Name: overflowTagValue, QueryCount: rest, Kind: platform.TagValueOverflow})
	}
	return out
}

// tagRequest reads what the tag operations share: the branch, the
// filter of their executions and the options of their values.
func (c *call) tagRequest() (*branchRec, trafficFilter, tagOptions, error) {
	f, err := c.insightsFilter("tablet_type", "keyspace", "fingerprint")
	if err != nil {
		return nil, trafficFilter{}, tagOptions{}, err
	}
	o, err := c.tagOptions()
	return c.branch, f, o, err
}

func listBranchQueryTags(c *call) (any, error) {
	b, f, o, err := c.tagRequest()
	if err != nil {
		return nil, err
	}
	search := c.r.URL.Query().Get("q")
	var list []*tagCounts
	for _, tc := range tagsOf(b, f) {
		if searched(tc.key, search) {
			list = append(list, tc)
		}
	}
	slices.SortFunc(list, func(a, b *tagCounts) int { return strings.Compare(a.key, b.key) })
	return slicePageOf(c, list, false, func(tc *tagCounts) *platform.QueryTag { return renderQueryTag(tc, o) }), nil
}

func getBranchQueryTag(c *call) (any, error) {
	b, f, o, err := c.tagRequest()
	if err != nil {
		return nil, err
	}
	key := c.r.PathValue("tag")
	if !slices.ContainsFunc(b.traffic.all(), func(q *querySample) bool { _, ok := q.tag(key); return ok }) {
		return nil, notFound()
	}
	tc := tagsOf(b, f)[key]
	if tc == nil {
		tc = &tagCounts{key: key}
	}
	return renderQueryTag(tc, o), nil
}

// dimensionsRow is a group of a tag summary.
type dimensionsRow struct {
	dims  []trafficTag
	stats *trafficStats
	// tables are the tables of the group's queries.
	tables []trafficTable
	// out is the row rendered.
	out *platform.QueryDimensionsSummary
}

// dimensionsText is a group's dimensions as one text, for sorting.
func dimensionsText(dims []trafficTag) string {
	parts := make([]string, len(dims))
	for i, d := range dims {
		parts[i] = d.key + "=" + d.value
	}
	return strings.Join(parts, ",")
}

// tagKeysParam reads tags (or tags[]), comma-separated or repeated: tag
// names, or IDs ("Sroute", "Busername") unless a key of b's samples is
// that name.
func tagKeysParam(b *branchRec, q url.Values) []string {
	known := map[string]bool{}
	for _, s := range b.traffic.all() {
		for _, t := range s.tags {
			known[t.key] = true
		}
	}
	var keys []string
	for _, v := range append(q["tags"], q["tags[]"]...) {
		for k := range strings.SplitSeq(v, ",") {
			switch {
			case k == "", slices.Contains(keys, k):
			case known[k]:
				keys = append(keys, k)
			default:
				keys = append(keys, tagKeyOfID(k))
			}
		}
	}
	return keys
}

// tagKeyOfID is the key of a tag ID ("Sroute", "Busername"), or k itself
// when it is none.
func tagKeyOfID(k string) string {
	if rest, ok := strings.CutPrefix(k, "B"); ok && slices.Contains(trafficSystemKeys, rest) {
		return rest
	}
	if rest, ok := strings.CutPrefix(k, "S"); ok && rest != "" && !slices.Contains(trafficSystemKeys, rest) {
		return rest
	}
	return k
}

func listBranchQueryTagSummaries(c *call) (any, error) {
	b := c.branch
	f, err := c.insightsFilter("tablet_type", "type")
	if err != nil {
		return nil, err
	}
	order, err := statsOrder(c, "totalTime", func(r *dimensionsRow) *platform.QueryStats { return &r.out.QueryStats },
		map[string]func(*dimensionsRow) string{"dimensions": func(r *dimensionsRow) string { return dimensionsText(r.dims) }},
		func(a, b *dimensionsRow) int { return strings.Compare(dimensionsText(a.dims), dimensionsText(b.dims)) })
	if err != nil {
		return nil, err
	}
	q := c.r.URL.Query()
	keys := tagKeysParam(b, q)
	search := q.Get("q")
	groups := map[string]*dimensionsRow{}
	add := func(dims []trafficTag, s *querySample) {
		k := dimensionsText(dims)
		g := groups[k]
		if g == nil {
			g = &dimensionsRow{dims: dims, stats: &trafficStats{}}
			groups[k] = g
		}
		g.stats.add(s)
		for _, t := range patternTables(s.pattern) {
			if !slices.Contains(g.tables, t) {
				g.tables = append(g.tables, t)
			}
		}
	}
	for _, s := range b.traffic.selectSamples(f) {
		if !searched(s.pattern.normalized, search) {
			continue
		}
		if len(keys) == 0 {
			add([]trafficTag{{"query_fingerprint", s.pattern.fingerprint}}, s)
			for _, t := range s.tags {
				add([]trafficTag{t}, s)
			}
			continue
		}
		dims := make([]trafficTag, 0, len(keys))
		for _, k := range keys {
			if v, ok := s.tag(k); ok {
				dims = append(dims, trafficTag{k, v})
			}
		}
		if len(dims) == len(keys) {
			add(dims, s)
		}
	}
	total := trafficTotal(b, f)
	rows := make([]*dimensionsRow, 0, len(groups))
	for _, g := range groups {
		g.out = &platform.QueryDimensionsSummary{Dimensions: map[string]any{}, QueryStats: renderQueryStats(g.stats, g.tables, total)}
		for _, d := range g.dims {
			g.out.Dimensions[d.key] = d.value
		}
		rows = append(rows, g)
	}
	slices.SortFunc(rows, order)
	return slicePageOf(c, rows, false, func(r *dimensionsRow) *platform.QueryDimensionsSummary { return r.out }), nil
}

func listTrafficBudgetsForQuery(c *call) (any, error) {
	b := c.branch
	fp, ks := c.r.PathValue("fingerprint"), c.r.URL.Query().Get("keyspace")
	names := func(r *trafficRuleRec) bool {
		return r.fingerprint == fp || r.tag == (trafficTag{"query_fingerprint", fp})
	}
	budgets := &b.x().budgets
	// A query the branch has neither seen nor a rule for is unknown, as it
	// is to the query's other routes.
	if len(b.traffic.keyspacesOf(fp)) == 0 && !slices.ContainsFunc(budgets.All(), func(bg *trafficBudgetRec) bool {
		return slices.ContainsFunc(bg.rules, names)
	}) {
		return nil, notFound()
	}
	runs := b.traffic.selectSamples(trafficFilter{fingerprint: fp, keyspace: ks})
	keep := func(bg *trafficBudgetRec) bool {
		return slices.ContainsFunc(bg.rules, func(r *trafficRuleRec) bool {
			if ks != "" && r.keyspace != "" && r.keyspace != ks {
				return false
			}
			return names(r) || slices.ContainsFunc(runs, r.appliesTo)
		})
	}
	return filteredPageOf(c, budgets.Index(), false, keep, renderTrafficBudget), nil
}
