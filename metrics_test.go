package platform_test

import (
	"context"
	"maps"
	"net/url"
	"testing"
	"time"

	"github.com/dbplatform/platform-go"
)

// wireSeriesJSON is a time series as the API sends it.
const wireSeriesJSON = `{"type": "metric_series", "start_date": "2026-01-01T00:00:00Z", "end_date": "2026-01-01T00:02:00Z",
	"interval": 60, "series": [{"metric": "queries", "labels": {"table": "users"},
	"points": [{"time": "2026-01-01T00:00:00Z", "value": 3}, {"time": "2026-01-01T00:01:00Z", "value": null}]}]}`

func wireSeries() *platform.TimeSeries {
	return &platform.TimeSeries{
		Type: "metric_series", StartDate: backupTS("2026-01-01T00:00:00Z"), EndDate: backupTS("2026-01-01T00:02:00Z"), Interval: 60,
		Series: []*platform.MetricSeries{{
			Metric: platform.MetricQueries, Labels: map[string]string{"table": "users"},
			Points: []*platform.MetricPoint{
				{Time: backupTS("2026-01-01T00:00:00Z"), Value: platform.Ptr(3.0)},
				{Time: backupTS("2026-01-01T00:01:00Z")},
			},
		}},
	}
}

const wireInstantJSON = `{"type": "instant_metrics", "branch": {"id": "br1", "type": "Branch", "name": "main"},
	"metrics": [{"metric": "replication_lag", "labels": {"tablet": "app/-/replica"}, "value": 0, "time": "2026-01-01T00:00:00Z"}]}`

func wireInstant() *platform.InstantMetrics {
	return &platform.InstantMetrics{
		Type: "instant_metrics", Branch: &platform.MetricsBranch{ID: "br1", Type: "Branch", Name: "main"},
		Metrics: []*platform.InstantMetric{{
			Metric: platform.MetricReplicationLag, Labels: map[string]string{"tablet": "app/-/replica"}, Time: backupTS("2026-01-01T00:00:00Z"),
		}},
	}
}

func TestMetricsWire(t *testing.T) {
	t.Parallel()
	const base = "/v1/organizations/acme/databases/app%20db/branches/main/metrics"
	org, db, br := "acme", "app db", "main"
	from := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	window := platform.MetricsWindow{From: from, To: from.Add(2 * time.Minute), Steps: 2}
	windowQuery := url.Values{"from": {"2026-01-01T00:00:00Z"}, "to": {"2026-01-01T00:02:00Z"}, "steps": {"2"}}
	with := func(v url.Values, more url.Values) url.Values {
		out := url.Values{}
		maps.Copy(out, v)
		maps.Copy(out, more)
		return out
	}
	runMethodCases(t, []methodCase{
		{
			name: "Get", status: 200, response: wireSeriesJSON,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Metrics.Get(ctx, &platform.GetBranchMetricsParams{Organization: org, Database: db, Branch: br,
					Metrics: []platform.MetricName{platform.MetricQueries, platform.MetricLatencyP99}, MetricsWindow: window,
					TabletType: platform.TabletPrimary, Keyspace: "app", QueryIDs: []string{"fp1", "fp2"}, Q: "users"})
			},
			method: "GET", path: base,
			query: with(windowQuery, url.Values{"metrics": {"queries", "latency_p99"}, "tablet_type": {"primary"}, "keyspace": {"app"},
				"query_ids": {"fp1", "fp2"}, "q": {"users"}}),
			want: wireSeries(),
		},
		{
			name: "Get with a period", status: 200, response: wireSeriesJSON,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Metrics.Get(ctx, &platform.GetBranchMetricsParams{Organization: org, Database: db, Branch: br,
					MetricsWindow: platform.MetricsWindow{Period: platform.TrafficPeriod1h}})
			},
			method: "GET", path: base, query: url.Values{"period": {"1h"}}, want: wireSeries(),
		},
		{
			name: "GetQuery", status: 200, response: wireSeriesJSON,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Metrics.GetQuery(ctx, &platform.GetQueryMetricsParams{Organization: org, Database: db, Branch: br,
					Metrics: []platform.MetricName{platform.MetricQueries}, Fingerprint: "fp1", MetricsWindow: window})
			},
			method: "GET", path: base + "/query", query: with(windowQuery, url.Values{"metrics": {"queries"}, "fingerprint": {"fp1"}}),
			want: wireSeries(),
		},
		{
			name: "GetTag", status: 200, response: wireSeriesJSON,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Metrics.GetTag(ctx, &platform.GetTagMetricsParams{Organization: org, Database: db, Branch: br,
					Metrics: []platform.MetricName{platform.MetricQueries}, TagSets: []string{"route:/login,tier:web", "route:/home"}})
			},
			method: "GET", path: base + "/tag", query: url.Values{"metrics": {"queries"}, "tag_sets": {"route:/login,tier:web", "route:/home"}},
			want: wireSeries(),
		},
		{
			name: "GetTablets", status: 200, response: wireSeriesJSON,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Metrics.GetTablets(ctx, &platform.GetTabletMetricsParams{Organization: org, Database: db, Branch: br,
					Metrics: []platform.MetricName{platform.MetricPodQueries}, Keyspace: "app", Shard: "-80"})
			},
			method: "GET", path: base + "/tablets", query: url.Values{"metrics": {"pod_queries"}, "keyspace": {"app"}, "shard": {"-80"}},
			want: wireSeries(),
		},
		{
			name: "GetInstant", status: 200, response: wireInstantJSON,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Metrics.GetInstant(ctx, &platform.GetInstantMetricsParams{Organization: org, Database: db, Branch: br, Shard: "-"})
			},
			method: "GET", path: base + "/instant", query: url.Values{"shard": {"-"}}, want: wireInstant(),
		},
		{
			name: "GetInstantTablets", status: 200, response: wireInstantJSON,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Metrics.GetInstantTablets(ctx, &platform.GetInstantTabletMetricsParams{Organization: org, Database: db, Branch: br,
					Metrics: []platform.MetricName{platform.MetricReplicationLag}})
			},
			method: "GET", path: base + "/tablets-instant", query: url.Values{"metrics": {"replication_lag"}}, want: wireInstant(),
		},
		{
			name: "GetTables", status: 200, response: `{"users": {"rows": 3, "data_bytes": 300, "index_bytes": 30}}`,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Metrics.GetTables(ctx, &platform.GetTableMetricsParams{Organization: org, Database: db, Branch: br})
			},
			method: "GET", path: base + "/tables", query: url.Values{},
			want: map[string]*platform.TableStorage{"users": {Rows: 3, DataBytes: 300, IndexBytes: 30}},
		},
		{
			name: "GetKeyspaceTables", status: 200, response: `{"app": {"users": {"rows": 3, "data_bytes": 300, "index_bytes": 30}}}`,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Metrics.GetKeyspaceTables(ctx, &platform.GetKeyspaceTableMetricsParams{Organization: org, Database: db, Branch: br})
			},
			method: "GET", path: base + "/keyspace-tables", query: url.Values{},
			want: map[string]map[string]*platform.TableStorage{"app": {"users": {Rows: 3, DataBytes: 300, IndexBytes: 30}}},
		},
	})
}

func TestMetricsArgErrors(t *testing.T) {
	t.Parallel()
	from := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	runArgCases(t, []argCase{
		{"Get with nil params", "params", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Metrics.Get(ctx, nil)
			return err
		}},
		{"GetQuery without branch", "branch", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Metrics.GetQuery(ctx, &platform.GetQueryMetricsParams{Organization: "acme", Database: "db"})
			return err
		}},
		{"GetTag with negative steps", "steps", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Metrics.GetTag(ctx, &platform.GetTagMetricsParams{Organization: "acme", Database: "db", Branch: "main",
				MetricsWindow: platform.MetricsWindow{Steps: -1}})
			return err
		}},
		{"GetTablets with a period and from", "period", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Metrics.GetTablets(ctx, &platform.GetTabletMetricsParams{Organization: "acme", Database: "db", Branch: "main",
				MetricsWindow: platform.MetricsWindow{Period: platform.TrafficPeriod1h, From: from}})
			return err
		}},
		{"Get with from after to", "from", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Metrics.Get(ctx, &platform.GetBranchMetricsParams{Organization: "acme", Database: "db", Branch: "main",
				MetricsWindow: platform.MetricsWindow{From: from, To: from}})
			return err
		}},
		{"GetInstant without database", "database", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Metrics.GetInstant(ctx, &platform.GetInstantMetricsParams{Organization: "acme"})
			return err
		}},
		{"GetInstantTablets with nil params", "params", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Metrics.GetInstantTablets(ctx, nil)
			return err
		}},
		{"GetTables without branch", "branch", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Metrics.GetTables(ctx, &platform.GetTableMetricsParams{Organization: "acme", Database: "db"})
			return err
		}},
		{"GetKeyspaceTables with nil params", "params", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Metrics.GetKeyspaceTables(ctx, nil)
			return err
		}},
	})
}
