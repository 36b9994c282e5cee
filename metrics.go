package platform

import (
	"context"
	"fmt"
	"time"
)

// MetricName names a metric. The constants are the metrics derived from the
// queries a branch runs; the API knows more (the infrastructure's CPU,
// memory and storage), which any MetricName value may name.
type MetricName string

// The query metrics, per bucket of a time series: counts and totals over
// the bucket's queries, latencies over their durations, ratios of the
// totals.
const (
	MetricQueries              MetricName = "queries"
	MetricQueryErrors          MetricName = "query_errors"
	MetricRowsRead             MetricName = "rows_read"
	MetricRowsReturned         MetricName = "rows_returned"
	MetricRowsWritten          MetricName = "rows_written"
	MetricTotalDurationMillis  MetricName = "total_duration_millis"
	MetricLatencyMin           MetricName = "latency_min"
	MetricLatencyP50           MetricName = "latency_p50"
	MetricLatencyP95           MetricName = "latency_p95"
	MetricLatencyP99           MetricName = "latency_p99"
	MetricLatencyP999          MetricName = "latency_p999"
	MetricLatencyMax           MetricName = "latency_max"
	MetricRowsReadPerQuery     MetricName = "rows_read_per_query"
	MetricRowsReturnedPerQuery MetricName = "rows_returned_per_query"
	MetricRowsAffectedPerQuery MetricName = "rows_affected_per_query"
	MetricRowsReadPerReturned  MetricName = "rows_read_per_returned"
)

// The tablet metrics derived from queries: those of every tablet (pod_),
// and those of primary tablets only (primary_).
const (
	MetricPodQueries         MetricName = "pod_queries"
	MetricPodRowsRead        MetricName = "pod_rows_read"
	MetricPrimaryQueries     MetricName = "primary_queries"
	MetricPrimaryRowsRead    MetricName = "primary_rows_read"
	MetricPrimaryRowsWritten MetricName = "primary_rows_written"
	MetricReplicationLag     MetricName = "replication_lag"
)

// MetricsWindow is the time range of a time series and its resolution:
// a named Period ending now (12 hours when neither it nor From is set), or
// From to To (To defaults to now), cut into Steps buckets.
type MetricsWindow struct {
	Period TrafficPeriod `json:"-" url:"period,omitempty"`
	From   time.Time     `json:"-" url:"from,omitempty" layout:"2006-01-02T15:04:05.999999999Z07:00"`
	To     time.Time     `json:"-" url:"to,omitempty" layout:"2006-01-02T15:04:05.999999999Z07:00"`
	// Steps is the number of buckets (data points); the API chooses when 0.
	Steps int `json:"-" url:"steps,omitempty"`
}

// validate checks the window before any request is sent.
func (w MetricsWindow) validate() error {
	switch {
	case w.Steps < 0:
		return &ArgError{Arg: "steps", Reason: fmt.Sprintf("%d is not a number of data points", w.Steps)}
	case w.Period != "" && !w.From.IsZero():
		return &ArgError{Arg: "period", Reason: "give a period or from and to, not both"}
	case !w.From.IsZero() && !w.To.IsZero() && !w.From.Before(w.To):
		return &ArgError{Arg: "from", Reason: "must be before to"}
	}
	return nil
}

// TimeSeries is the answer of the time-series metrics: one series per
// metric and group (table, tag set, tablet or query pattern, by operation),
// each with a point per bucket of the window.
type TimeSeries struct {
	Type      string    `json:"type"`
	StartDate Timestamp `json:"start_date"`
	EndDate   Timestamp `json:"end_date"`
	// Interval is the length of a bucket, in seconds.
	Interval int             `json:"interval"`
	Series   []*MetricSeries `json:"series"`
}

// MetricSeries is the values of one metric over a window, for one group.
type MetricSeries struct {
	Metric MetricName `json:"metric"`
	// Labels name the group ("keyspace", "table", "tag", "tablet", ...);
	// empty for a whole branch.
	Labels map[string]string `json:"labels"`
	Points []*MetricPoint    `json:"points"`
}

// MetricPoint is a metric's value over one bucket, which starts at Time.
// Value is nil where the bucket has nothing to measure (a latency where no
// query ran); counts are 0 there.
type MetricPoint struct {
	Time  Timestamp `json:"time"`
	Value *float64  `json:"value"`
}

// InstantMetrics is the answer of the instant metrics: each metric's
// current value, per group.
type InstantMetrics struct {
	Type    string           `json:"type"`
	Branch  *MetricsBranch   `json:"branch"`
	Metrics []*InstantMetric `json:"metrics"`
}

// MetricsBranch names the branch metrics are of.
type MetricsBranch struct {
	ID   string `json:"id"`
	Type string `json:"type"`
	Name string `json:"name"`
}

// InstantMetric is a metric's current value for one group.
type InstantMetric struct {
	Metric MetricName        `json:"metric"`
	Labels map[string]string `json:"labels"`
	Value  float64           `json:"value"`
	Time   Timestamp         `json:"time"`
}

// TableStorage is what a table stores.
type TableStorage struct {
	// Rows is the table's row count.
	Rows int64 `json:"rows"`
	// DataBytes and IndexBytes are the sizes of its rows and its indexes.
	DataBytes  int64 `json:"data_bytes"`
	IndexBytes int64 `json:"index_bytes"`
}

// MetricsService reads the metrics of branches: time series of their
// queries, per table, tag set, tablet and query pattern, current values,
// and the storage of their tables.
type MetricsService service

func metricsPath(org, db, branch, sub string) string {
	return pathf("v1/organizations/%s/databases/%s/branches/%s/metrics", org, db, branch) + sub
}

// branchMetrics names a branch's metrics, and the window of a time
// series (zero for current values): the path values of every metrics
// operation, checked before the window.
type branchMetrics struct {
	BranchParams
	window MetricsWindow
}

func (m *branchMetrics) check() error {
	if err := m.BranchParams.check(); err != nil {
		return err
	}
	return m.window.validate()
}

func (m *branchMetrics) path(sub string) string {
	return metricsPath(m.Organization, m.Database, m.Branch, sub)
}

// GetBranchMetricsParams selects metrics of a whole branch.
type GetBranchMetricsParams struct {
	Organization string       `json:"-" url:"-"`
	Database     string       `json:"-" url:"-"`
	Branch       string       `json:"-" url:"-"`
	Metrics      []MetricName `json:"-" url:"metrics,omitempty"`
	MetricsWindow
	TabletType  TabletType `json:"-" url:"tablet_type,omitempty"`
	Keyspace    string     `json:"-" url:"keyspace,omitempty"`
	Shard       string     `json:"-" url:"shard,omitempty"`
	Role        string     `json:"-" url:"role,omitempty"`
	Container   string     `json:"-" url:"container,omitempty"`
	Pod         string     `json:"-" url:"pod,omitempty"`
	Pods        []string   `json:"-" url:"pods,omitempty"`
	QueryIDs    []string   `json:"-" url:"query_ids,omitempty"`
	Fingerprint string     `json:"-" url:"fingerprint,omitempty"`
	BudgetID    string     `json:"-" url:"budget_id,omitempty"`
	RuleID      string     `json:"-" url:"rule_id,omitempty"`
	// Q keeps the queries whose text contains each of its words.
	Q string `json:"-" url:"q,omitempty"`
}

// Get returns time series of a branch's metrics.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/metrics
func (s *MetricsService) Get(ctx context.Context, p *GetBranchMetricsParams) (*TimeSeries, error) {
	p = orZero(p)
	return callOn[TimeSeries](ctx, s.client, "GET", &branchMetrics{BranchParams{p.Organization, p.Database, p.Branch}, p.MetricsWindow}, "", p, nil)
}

// GetQueryMetricsParams selects metrics of query patterns.
type GetQueryMetricsParams struct {
	Organization string       `json:"-" url:"-"`
	Database     string       `json:"-" url:"-"`
	Branch       string       `json:"-" url:"-"`
	Metrics      []MetricName `json:"-" url:"metrics,omitempty"`
	// QueryIDs are the fingerprints of the patterns to measure, each a
	// series of its own.
	QueryIDs    []string `json:"-" url:"query_ids,omitempty"`
	Fingerprint string   `json:"-" url:"fingerprint,omitempty"`
	Keyspace    string   `json:"-" url:"keyspace,omitempty"`
	MetricsWindow
	TabletType TabletType `json:"-" url:"tablet_type,omitempty"`
	BudgetID   string     `json:"-" url:"budget_id,omitempty"`
	RuleID     string     `json:"-" url:"rule_id,omitempty"`
	Q          string     `json:"-" url:"q,omitempty"`
}

// GetQuery returns time series of metrics per query pattern.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/metrics/query
func (s *MetricsService) GetQuery(ctx context.Context, p *GetQueryMetricsParams) (*TimeSeries, error) {
	p = orZero(p)
	return callOn[TimeSeries](ctx, s.client, "GET", &branchMetrics{BranchParams{p.Organization, p.Database, p.Branch}, p.MetricsWindow}, "/query", p, nil)
}

// GetTagMetricsParams selects metrics of tag sets.
type GetTagMetricsParams struct {
	Organization string       `json:"-" url:"-"`
	Database     string       `json:"-" url:"-"`
	Branch       string       `json:"-" url:"-"`
	Metrics      []MetricName `json:"-" url:"metrics,omitempty"`
	// TagSets are the tag sets to measure, each "key:value" pairs joined
	// by commas ("route:/login,tier:web"), each a series of its own; every
	// tag set the branch's queries carry when empty.
	TagSets []string `json:"-" url:"tag_sets,omitempty"`
	MetricsWindow
	TabletType TabletType `json:"-" url:"tablet_type,omitempty"`
	BudgetID   string     `json:"-" url:"budget_id,omitempty"`
	RuleID     string     `json:"-" url:"rule_id,omitempty"`
	Q          string     `json:"-" url:"q,omitempty"`
}

// GetTag returns time series of metrics per tag set.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/metrics/tag
func (s *MetricsService) GetTag(ctx context.Context, p *GetTagMetricsParams) (*TimeSeries, error) {
	p = orZero(p)
	return callOn[TimeSeries](ctx, s.client, "GET", &branchMetrics{BranchParams{p.Organization, p.Database, p.Branch}, p.MetricsWindow}, "/tag", p, nil)
}

// GetTabletMetricsParams selects metrics of tablets.
type GetTabletMetricsParams struct {
	Organization string       `json:"-" url:"-"`
	Database     string       `json:"-" url:"-"`
	Branch       string       `json:"-" url:"-"`
	Metrics      []MetricName `json:"-" url:"metrics,omitempty"`
	MetricsWindow
	Keyspace string `json:"-" url:"keyspace,omitempty"`
	Shard    string `json:"-" url:"shard,omitempty"`
	Pod      string `json:"-" url:"pod,omitempty"`
	Workflow string `json:"-" url:"workflow,omitempty"`
}

// GetTablets returns time series of metrics per tablet.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/metrics/tablets
func (s *MetricsService) GetTablets(ctx context.Context, p *GetTabletMetricsParams) (*TimeSeries, error) {
	p = orZero(p)
	return callOn[TimeSeries](ctx, s.client, "GET", &branchMetrics{BranchParams{p.Organization, p.Database, p.Branch}, p.MetricsWindow}, "/tablets", p, nil)
}

// GetInstantMetricsParams selects current values of a branch's metrics.
type GetInstantMetricsParams struct {
	Organization string       `json:"-" url:"-"`
	Database     string       `json:"-" url:"-"`
	Branch       string       `json:"-" url:"-"`
	Metrics      []MetricName `json:"-" url:"metrics,omitempty"`
	Role         string       `json:"-" url:"role,omitempty"`
	Shard        string       `json:"-" url:"shard,omitempty"`
	Container    string       `json:"-" url:"container,omitempty"`
	Pod          string       `json:"-" url:"pod,omitempty"`
}

// GetInstant returns the current values of a branch's metrics.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/metrics/instant
func (s *MetricsService) GetInstant(ctx context.Context, p *GetInstantMetricsParams) (*InstantMetrics, error) {
	p = orZero(p)
	return callOn[InstantMetrics](ctx, s.client, "GET", &branchMetrics{BranchParams: BranchParams{p.Organization, p.Database, p.Branch}}, "/instant", p, nil)
}

// GetInstantTabletMetricsParams selects current values of tablets'
// metrics.
type GetInstantTabletMetricsParams struct {
	Organization string       `json:"-" url:"-"`
	Database     string       `json:"-" url:"-"`
	Branch       string       `json:"-" url:"-"`
	Metrics      []MetricName `json:"-" url:"metrics,omitempty"`
	Keyspace     string       `json:"-" url:"keyspace,omitempty"`
	Shard        string       `json:"-" url:"shard,omitempty"`
}

// GetInstantTablets returns the current values of metrics per tablet.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/metrics/tablets-instant
func (s *MetricsService) GetInstantTablets(ctx context.Context, p *GetInstantTabletMetricsParams) (*InstantMetrics, error) {
	p = orZero(p)
	return callOn[InstantMetrics](ctx, s.client, "GET", &branchMetrics{BranchParams: BranchParams{p.Organization, p.Database, p.Branch}}, "/tablets-instant", p, nil)
}

// GetTableMetricsParams names the branch whose tables' storage to read.
type GetTableMetricsParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
}

// GetKeyspaceTableMetricsParams names the branch whose tables' storage to
// read, per keyspace.
type GetKeyspaceTableMetricsParams = GetTableMetricsParams

// GetTables returns the storage of a branch's tables, by table name
// (the tables of every keyspace together).
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/metrics/tables
func (s *MetricsService) GetTables(ctx context.Context, p *GetTableMetricsParams) (map[string]*TableStorage, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch); err != nil {
		return nil, err
	}
	var m map[string]*TableStorage
	if err := s.client.get(ctx, metricsPath(p.Organization, p.Database, p.Branch, "/tables"), nil, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// GetKeyspaceTables returns the storage of a branch's tables, by keyspace
// and table name.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/metrics/keyspace-tables
func (s *MetricsService) GetKeyspaceTables(ctx context.Context, p *GetKeyspaceTableMetricsParams) (map[string]map[string]*TableStorage, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch); err != nil {
		return nil, err
	}
	var m map[string]map[string]*TableStorage
	if err := s.client.get(ctx, metricsPath(p.Organization, p.Database, p.Branch, "/keyspace-tables"), nil, &m); err != nil {
		return nil, err
	}
	return m, nil
}
