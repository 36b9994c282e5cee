package platform

import (
	"context"
	"fmt"
	"iter"
	"strings"
	"time"
)

// QueryInsightsService reads what a branch's queries did: per query
// (fingerprint) summaries and executions, errors grouped by error
// fingerprint, tags, latency anomalies, and the traffic budgets that apply
// to a query. Times are windows [From, To) or a Period back from now.
type QueryInsightsService service

// TabletType is the kind of database server a query ran on.
type TabletType string

// The tablet types.
const (
	// TabletPrimary is the primary, which takes writes.
	TabletPrimary TabletType = "primary"
	// TabletReplica is a replica serving reads.
	TabletReplica TabletType = "replica"
	// TabletRDOnly is a read-only replica for analytics and batch work.
	TabletRDOnly TabletType = "rdonly"
)

// StatementType is the kind of an SQL statement, for filtering.
type StatementType string

// The statement types the API filters on.
const (
	StatementSelect StatementType = "SELECT"
	StatementInsert StatementType = "INSERT"
	StatementUpdate StatementType = "UPDATE"
	StatementDelete StatementType = "DELETE"
)

// TagValueKind is the kind of a tag value: a literal value, or the
// overflow or collapsed bucket of values beyond the limit.
type TagValueKind string

// The tag value kinds.
const (
	TagValueLiteral   TagValueKind = "literal"
	TagValueOverflow  TagValueKind = "overflow"
	TagValueCollapsed TagValueKind = "collapsed"
)

// QueryWindow is the time window of an insights request: From and To
// bound it ([From, To); zero for open), or Period reaches back from now.
type QueryWindow struct {
	From   time.Time     `json:"-" url:"from,omitempty"`
	To     time.Time     `json:"-" url:"to,omitempty"`
	Period TrafficPeriod `json:"-" url:"period,omitempty"`
}

// QueryStats are the figures of a group of executions. Latencies and
// times per query are in milliseconds. The CPU, IO, byte and block figures
// are the service's own measurements.
type QueryStats struct {
	QueryCount              int        `json:"query_count"`
	ErrorCount              int        `json:"error_count"`
	Tables                  []string   `json:"tables"`
	QualifiedTables         []string   `json:"qualified_tables"`
	TableKeyspaces          []any      `json:"table_keyspaces"`
	IndexUsages             []any      `json:"index_usages"`
	RoutingIndexUsages      []any      `json:"routing_index_usages"`
	SumShardQueries         int64      `json:"sum_shard_queries"`
	MaxShardQueries         int        `json:"max_shard_queries"`
	AvgShardQueries         float64    `json:"avg_shard_queries"`
	AvgParallelWorkers      float64    `json:"avg_parallel_workers"`
	SumRowsRead             int64      `json:"sum_rows_read"`
	SumRowsAffected         int64      `json:"sum_rows_affected"`
	SumRowsReturned         int64      `json:"sum_rows_returned"`
	RowsReadPerReturned     float64    `json:"rows_read_per_returned"`
	RowsReadPerQuery        float64    `json:"rows_read_per_query"`
	RowsReturnedPerQuery    float64    `json:"rows_returned_per_query"`
	RowsAffectedPerQuery    float64    `json:"rows_affected_per_query"`
	SumTotalDurationMillis  int64      `json:"sum_total_duration_millis"`
	SumTotalDurationPercent float64    `json:"sum_total_duration_percent"`
	SumCPUDurationMillis    int64      `json:"sum_cpu_duration_millis"`
	SumCPUDurationPercent   float64    `json:"sum_cpu_duration_percent"`
	SumIODurationMillis     int64      `json:"sum_io_duration_millis"`
	SumIODurationPercent    float64    `json:"sum_io_duration_percent"`
	LastRunAt               *Timestamp `json:"last_run_at"`
	TimePerQuery            float64    `json:"time_per_query"`
	P50Latency              float64    `json:"p50_latency"`
	P99Latency              float64    `json:"p99_latency"`
	MaxLatency              float64    `json:"max_latency"`
	EgressBytes             int64      `json:"egress_bytes"`
	EgressBytesPerQuery     float64    `json:"egress_bytes_per_query"`
	MaxEgressBytes          int64      `json:"max_egress_bytes"`
	IngressBytes            int64      `json:"ingress_bytes"`
	IngressBytesPerQuery    float64    `json:"ingress_bytes_per_query"`
	MaxIngressBytes         int64      `json:"max_ingress_bytes"`
	BlocksRead              int64      `json:"blocks_read"`
	BlocksHit               int64      `json:"blocks_hit"`
	BlockCacheHitRatio      float64    `json:"block_cache_hit_ratio"`
	BlocksDirtied           int64      `json:"blocks_dirtied"`
	BlocksWritten           int64      `json:"blocks_written"`
	TrafficControlWarnings  int        `json:"traffic_control_warnings"`
	TrafficControlThrottled int        `json:"traffic_control_throttled"`
	TrafficControlChecked   int        `json:"traffic_control_checked"`
}

// QuerySummary is what a query (a fingerprint on a keyspace) did in a
// window.
type QuerySummary struct {
	ID                   string `json:"id"`
	Fingerprint          string `json:"fingerprint"`
	StatementType        string `json:"statement_type"`
	Keyspace             string `json:"keyspace"`
	NormalizedSQL        string `json:"normalized_sql"`
	SyntaxHighlightedSQL string `json:"syntax_highlighted_sql"`
	// Multishard is whether an execution ran on more than one shard.
	Multishard bool `json:"multishard"`
	QueryStats
}

// QueryDimensionsSummary is what the queries carrying a set of tag values
// did in a window.
type QueryDimensionsSummary struct {
	// Dimensions are the tag names and values of the group.
	Dimensions map[string]any `json:"dimensions"`
	QueryStats
}

// BranchQuery is one execution of a query.
type BranchQuery struct {
	ID string `json:"id"`
	// Password is the password the query ran with, as the API gives it;
	// empty when unknown.
	Password map[string]any `json:"password"`
	// Tags are the execution's tags, objects the reference leaves open:
	// "key" and "name" (the same), "value", "key_id" and "source".
	Tags                 []map[string]any `json:"tags"`
	Fingerprint          string           `json:"fingerprint"`
	StartedAt            *Timestamp       `json:"started_at"`
	StatementType        string           `json:"statement_type"`
	Keyspace             string           `json:"keyspace"`
	Tables               []string         `json:"tables"`
	Username             string           `json:"username"`
	RemoteAddress        string           `json:"remote_address"`
	ShardQueries         int              `json:"shard_queries"`
	RowsRead             int64            `json:"rows_read"`
	RowsAffected         int64            `json:"rows_affected"`
	RowsReturned         int64            `json:"rows_returned"`
	TotalDurationMillis  int64            `json:"total_duration_millis"`
	ErrorMessage         string           `json:"error_message"`
	NormalizedSQL        string           `json:"normalized_sql"`
	SyntaxHighlightedSQL string           `json:"syntax_highlighted_sql"`
	CreatedAt            Timestamp        `json:"created_at"`
	UpdatedAt            Timestamp        `json:"updated_at"`
	Explainable          bool             `json:"explainable"`
	Truncated            bool             `json:"truncated"`
}

// QueryErrorSummary is an error of a branch's queries: the failures with
// messages that differ only in their literals.
type QueryErrorSummary struct {
	ID               string `json:"id"`
	ErrorFingerprint string `json:"error_fingerprint"`
	// StartedAt is when the error last occurred.
	StartedAt           Timestamp `json:"started_at"`
	TotalDurationMillis int64     `json:"total_duration_millis"`
	// TimePerQuery is the mean duration of a failed execution, in
	// milliseconds.
	TimePerQuery float64 `json:"time_per_query"`
	ErrorCount   int     `json:"error_count"`
	ErrorMessage string  `json:"error_message"`
}

// QueryTag is a tag key of a branch's queries with its values.
type QueryTag struct {
	ID         string           `json:"id"`
	Name       string           `json:"name"`
	Source     TagSource        `json:"source"`
	QueryCount int              `json:"query_count"`
	Values     []*QueryTagValue `json:"values"`
}

// QueryTagValue is a value of a tag and how many queries carry it.
type QueryTagValue struct {
	Name       string       `json:"name"`
	QueryCount int          `json:"query_count"`
	Kind       TagValueKind `json:"kind"`
}

// Anomaly is a period when a branch's query latency broke from its
// baseline.
type Anomaly struct {
	ID                 string    `json:"id"`
	PeriodStart        Timestamp `json:"period_start"`
	PeriodEnd          Timestamp `json:"period_end"`
	MinutesInViolation int       `json:"minutes_in_violation"`
	Active             bool      `json:"active"`
	// Duration is the anomaly's length in seconds.
	Duration     float64   `json:"duration"`
	MetricsStart Timestamp `json:"metrics_start"`
	MetricsEnd   Timestamp `json:"metrics_end"`
	// Correlations are the queries whose latency followed the anomaly's.
	Correlations []*AnomalyCorrelation `json:"correlations"`
}

// AnomalyCorrelation is a query correlated with an anomaly.
type AnomalyCorrelation struct {
	ID string `json:"id"`
	// R is the correlation coefficient, -1 to 1.
	R                    float64    `json:"r"`
	Keyspace             string     `json:"keyspace"`
	Fingerprint          string     `json:"fingerprint"`
	NormalizedSQL        string     `json:"normalized_sql"`
	SyntaxHighlightedSQL string     `json:"syntax_highlighted_sql"`
	TabletType           TabletType `json:"tablet_type"`
}

// insightsPath is the path of a branch's insights, with more segments
// (escaped) after it.
func insightsPath(org, db, branch string, more ...string) string {
	var p strings.Builder
	p.WriteString(pathf("v1/organizations/%s/databases/%s/branches/%s/insights", org, db, branch))
	for _, m := range more {
		p.WriteString("/" + pathf("%s", m))
	}
	return p.String()
}

// checkDir refuses a sort direction the API does not know, before any
// request is sent.
func checkDir(d Order) error {
	if d != "" && d != OrderAsc && d != OrderDesc {
		return &ArgError{Arg: "dir", Reason: fmt.Sprintf("%q is not asc or desc", string(d))}
	}
	return nil
}

// ListBranchQueriesParams selects a page of a branch's query summaries.
type ListBranchQueriesParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	QueryWindow
	// Query keeps the queries whose normalised SQL contains it.
	Query string `json:"-" url:"q,omitempty"`
	// Sort names the figure to sort by (count, totalTime, p99Latency,
	// lastRun, query, keyspace, errorCount, rowsRead, ...); Dir is asc or
	// desc.
	Sort string `json:"-" url:"sort,omitempty"`
	Dir  Order  `json:"-" url:"dir,omitempty"`
	// TabletType and Type filter by tablet and statement type.
	TabletType TabletType    `json:"-" url:"tablet_type,omitempty"`
	Type       StatementType `json:"-" url:"type,omitempty"`
	ListParams
}

// List returns a page of the queries a branch ran in the window, one
// summary per query.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/insights
func (s *QueryInsightsService) List(ctx context.Context, p *ListBranchQueriesParams) (*Page[QuerySummary], error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch); err != nil {
		return nil, err
	}
	if err := checkDir(p.Dir); err != nil {
		return nil, err
	}
	return listPage[QuerySummary](ctx, s.client, insightsPath(p.Organization, p.Database, p.Branch), p)
}

// All ranges over every query summary List would page through.
func (s *QueryInsightsService) All(ctx context.Context, p *ListBranchQueriesParams) iter.Seq2[*QuerySummary, error] {
	return allOf(ctx, p, s.List)
}

// GetBranchQueryParams names one execution of a query.
type GetBranchQueryParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	// ID is the execution's ID.
	ID string `json:"-" url:"-"`
}

// GetQuery returns one execution of a query.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/insights/queries/{id}
func (s *QueryInsightsService) GetQuery(ctx context.Context, p *GetBranchQueryParams) (*BranchQuery, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch, "id", p.ID); err != nil {
		return nil, err
	}
	q := new(BranchQuery)
	return orNil(q, s.client.get(ctx, insightsPath(p.Organization, p.Database, p.Branch, "queries", p.ID), nil, q))
}

// QueryStatisticsParams selects a page of the executions of a query.
type QueryStatisticsParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	// Fingerprint and Keyspace name the query; both are required.
	Fingerprint string `json:"-" url:"-"`
	Keyspace    string `json:"-" url:"keyspace"`
	QueryWindow
	ListParams
}

// Statistics returns a page of the executions of a query in the window,
// newest first.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/insights/{fingerprint}
func (s *QueryInsightsService) Statistics(ctx context.Context, p *QueryStatisticsParams) (*Page[BranchQuery], error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch, "fingerprint", p.Fingerprint, "keyspace", p.Keyspace); err != nil {
		return nil, err
	}
	return listPage[BranchQuery](ctx, s.client, insightsPath(p.Organization, p.Database, p.Branch, p.Fingerprint), p)
}

// AllStatistics ranges over every execution Statistics would page through.
func (s *QueryInsightsService) AllStatistics(ctx context.Context, p *QueryStatisticsParams) iter.Seq2[*BranchQuery, error] {
	return allOf(ctx, p, s.Statistics)
}

// QuerySummaryParams names a query and a window.
type QuerySummaryParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	// Fingerprint and Keyspace name the query; both are required.
	Fingerprint string `json:"-" url:"-"`
	Keyspace    string `json:"-" url:"keyspace"`
	QueryWindow
}

// Summary returns what a query did in the window, all executions
// together.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/insights/{fingerprint}/summary
func (s *QueryInsightsService) Summary(ctx context.Context, p *QuerySummaryParams) (*QuerySummary, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch, "fingerprint", p.Fingerprint, "keyspace", p.Keyspace); err != nil {
		return nil, err
	}
	out := new(QuerySummary)
	return orNil(out, s.client.get(ctx, insightsPath(p.Organization, p.Database, p.Branch, p.Fingerprint, "summary"), p, out))
}

// ListQueryErrorsParams selects a page of a branch's query errors.
type ListQueryErrorsParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	QueryWindow
	// Query keeps the errors whose message contains it.
	Query string `json:"-" url:"q,omitempty"`
	// Sort is error, lastRun, count, totalTime or timePerQuery; Dir is
	// asc or desc.
	Sort       string     `json:"-" url:"sort,omitempty"`
	Dir        Order      `json:"-" url:"dir,omitempty"`
	TabletType TabletType `json:"-" url:"tablet_type,omitempty"`
	ListParams
}

// ListErrors returns a page of the errors of a branch's queries in the
// window, grouped by error fingerprint.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/insights/errors
func (s *QueryInsightsService) ListErrors(ctx context.Context, p *ListQueryErrorsParams) (*Page[QueryErrorSummary], error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch); err != nil {
		return nil, err
	}
	if err := checkDir(p.Dir); err != nil {
		return nil, err
	}
	return listPage[QueryErrorSummary](ctx, s.client, insightsPath(p.Organization, p.Database, p.Branch, "errors"), p)
}

// AllErrors ranges over every error ListErrors would page through.
func (s *QueryInsightsService) AllErrors(ctx context.Context, p *ListQueryErrorsParams) iter.Seq2[*QueryErrorSummary, error] {
	return allOf(ctx, p, s.ListErrors)
}

// QueryErrorParams selects a page of the executions that failed with an
// error.
type QueryErrorParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	// Fingerprint is the error fingerprint.
	Fingerprint string `json:"-" url:"-"`
	QueryWindow
	ListParams
}

// ErrorQueries returns a page of the executions that failed with an error
// (by error fingerprint) in the window, newest first.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/insights/errors/{fingerprint}
func (s *QueryInsightsService) ErrorQueries(ctx context.Context, p *QueryErrorParams) (*Page[BranchQuery], error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch, "fingerprint", p.Fingerprint); err != nil {
		return nil, err
	}
	return listPage[BranchQuery](ctx, s.client, insightsPath(p.Organization, p.Database, p.Branch, "errors", p.Fingerprint), p)
}

// AllErrorQueries ranges over every execution ErrorQueries would page
// through.
func (s *QueryInsightsService) AllErrorQueries(ctx context.Context, p *QueryErrorParams) iter.Seq2[*BranchQuery, error] {
	return allOf(ctx, p, s.ErrorQueries)
}

// QueryTagFilter selects the queries whose tags a tag request counts.
type QueryTagFilter struct {
	QueryWindow
	// Fingerprint and Keyspace keep the queries of that fingerprint and
	// keyspace.
	Fingerprint string     `json:"-" url:"fingerprint,omitempty"`
	Keyspace    string     `json:"-" url:"keyspace,omitempty"`
	TabletType  TabletType `json:"-" url:"tablet_type,omitempty"`
	// ValuesLimit is how many values each tag shows, 1 to 100 (the
	// service's default when 0); the rest are counted in one overflow
	// value.
	ValuesLimit int `json:"-" url:"values_limit,omitempty"`
	// LiteralValuesOnly leaves out the overflow and collapsed values.
	LiteralValuesOnly bool `json:"-" url:"literal_values_only,omitempty"`
}

// ListQueryTagsParams selects a page of the tags of a branch's queries.
type ListQueryTagsParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	QueryTagFilter
	// Query keeps the tags whose name contains it.
	Query string `json:"-" url:"q,omitempty"`
	ListParams
}

// ListTags returns a page of the tag keys a branch's queries carried in
// the window, by name, each with its most frequent values.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/insights/tags
func (s *QueryInsightsService) ListTags(ctx context.Context, p *ListQueryTagsParams) (*Page[QueryTag], error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch); err != nil {
		return nil, err
	}
	return listPage[QueryTag](ctx, s.client, insightsPath(p.Organization, p.Database, p.Branch, "tags"), p)
}

// AllTags ranges over every tag ListTags would page through.
func (s *QueryInsightsService) AllTags(ctx context.Context, p *ListQueryTagsParams) iter.Seq2[*QueryTag, error] {
	return allOf(ctx, p, s.ListTags)
}

// GetQueryTagParams names a tag key.
type GetQueryTagParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	// Tag is the tag's name (its key).
	Tag string `json:"-" url:"-"`
	QueryTagFilter
}

// GetTag returns a tag key with its values in the window.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/insights/tags/{tag}
func (s *QueryInsightsService) GetTag(ctx context.Context, p *GetQueryTagParams) (*QueryTag, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch, "tag", p.Tag); err != nil {
		return nil, err
	}
	out := new(QueryTag)
	return orNil(out, s.client.get(ctx, insightsPath(p.Organization, p.Database, p.Branch, "tags", p.Tag), p, out))
}

// ListQueryTagSummariesParams selects a page of query figures grouped by
// tag values.
type ListQueryTagSummariesParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	QueryWindow
	// Tags are the tag names (IDs of ListTags) to group by; the queries
	// without them are left out.
	Tags []string `json:"-" url:"tags,omitempty,brackets"`
	// Query keeps the queries whose normalised SQL contains it.
	Query      string        `json:"-" url:"q,omitempty"`
	Sort       string        `json:"-" url:"sort,omitempty"`
	Dir        Order         `json:"-" url:"dir,omitempty"`
	TabletType TabletType    `json:"-" url:"tablet_type,omitempty"`
	Type       StatementType `json:"-" url:"type,omitempty"`
	ListParams
}

// TagSummaries returns a page of figures per combination of the values of
// Tags in the window.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/insights/tags/summaries
func (s *QueryInsightsService) TagSummaries(ctx context.Context, p *ListQueryTagSummariesParams) (*Page[QueryDimensionsSummary], error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch); err != nil {
		return nil, err
	}
	if err := checkDir(p.Dir); err != nil {
		return nil, err
	}
	return listPage[QueryDimensionsSummary](ctx, s.client, insightsPath(p.Organization, p.Database, p.Branch, "tags", "summaries"), p)
}

// AllTagSummaries ranges over every summary TagSummaries would page
// through.
func (s *QueryInsightsService) AllTagSummaries(ctx context.Context, p *ListQueryTagSummariesParams) iter.Seq2[*QueryDimensionsSummary, error] {
	return allOf(ctx, p, s.TagSummaries)
}

// ListAnomaliesParams selects a page of a branch's anomalies.
type ListAnomaliesParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	QueryWindow
	ListParams
}

// ListAnomalies returns a page of the latency anomalies of a branch that
// overlap the window, newest first.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/insights/anomalies
func (s *QueryInsightsService) ListAnomalies(ctx context.Context, p *ListAnomaliesParams) (*Page[Anomaly], error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch); err != nil {
		return nil, err
	}
	return listPage[Anomaly](ctx, s.client, insightsPath(p.Organization, p.Database, p.Branch, "anomalies"), p)
}

// AllAnomalies ranges over every anomaly ListAnomalies would page through.
func (s *QueryInsightsService) AllAnomalies(ctx context.Context, p *ListAnomaliesParams) iter.Seq2[*Anomaly, error] {
	return allOf(ctx, p, s.ListAnomalies)
}

// GetAnomalyParams names an anomaly.
type GetAnomalyParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	ID           string `json:"-" url:"-"`
}

// GetAnomaly returns an anomaly with the queries correlated with it.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/insights/anomalies/{id}
func (s *QueryInsightsService) GetAnomaly(ctx context.Context, p *GetAnomalyParams) (*Anomaly, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch, "id", p.ID); err != nil {
		return nil, err
	}
	out := new(Anomaly)
	return orNil(out, s.client.get(ctx, insightsPath(p.Organization, p.Database, p.Branch, "anomalies", p.ID), nil, out))
}

// ListQueryTrafficBudgetsParams selects a page of the traffic budgets
// that apply to a query.
type ListQueryTrafficBudgetsParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	// Fingerprint is the query's fingerprint.
	Fingerprint string `json:"-" url:"-"`
	// Keyspace keeps the budgets whose rules apply on that keyspace.
	Keyspace string `json:"-" url:"keyspace,omitempty"`
	ListParams
}

// TrafficBudgets returns a page of the traffic budgets with a rule that
// matches the query: by its fingerprint, or by a tag its executions carry.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/insights/{fingerprint}/traffic/budgets
func (s *QueryInsightsService) TrafficBudgets(ctx context.Context, p *ListQueryTrafficBudgetsParams) (*Page[TrafficBudget], error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch, "fingerprint", p.Fingerprint); err != nil {
		return nil, err
	}
	return listPage[TrafficBudget](ctx, s.client, insightsPath(p.Organization, p.Database, p.Branch, p.Fingerprint, "traffic", "budgets"), p)
}

// AllTrafficBudgets ranges over every budget TrafficBudgets would page
// through.
func (s *QueryInsightsService) AllTrafficBudgets(ctx context.Context, p *ListQueryTrafficBudgetsParams) iter.Seq2[*TrafficBudget, error] {
	return allOf(ctx, p, s.TrafficBudgets)
}
