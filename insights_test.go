package platform_test

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/dbplatform/platform-go"
)

// insightsBranch is the path of main's insights in app-db.
const insightsBranch = "/v1/organizations/acme/databases/app-db/branches/main/insights"

// querySummaryJSON is part of a query summary as the API sends it, written
// from the reference independently of the SDK's types.
const querySummaryJSON = `{"id": "qs1", "fingerprint": "9f2c", "statement_type": "SELECT", "keyspace": "app-db",
	"normalized_sql": "SELECT * FROM users WHERE id = ?", "syntax_highlighted_sql": "<pre>SELECT</pre>", "multishard": true,
	"query_count": 4, "error_count": 1, "tables": ["users"], "qualified_tables": ["app-db.users"],
	"table_keyspaces": [{"table": "users", "keyspace": "app-db"}], "index_usages": [], "routing_index_usages": [],
	"sum_rows_read": 10, "sum_total_duration_millis": 100, "p50_latency": 20, "p99_latency": 40.5,
	"last_run_at": "2026-01-14T10:19:23.000Z", "traffic_control_checked": 2}`

func wantQuerySummary(t *testing.T) *platform.QuerySummary {
	return &platform.QuerySummary{
		ID: "qs1", Fingerprint: "9f2c", StatementType: "SELECT", Keyspace: "app-db",
		NormalizedSQL: "SELECT * FROM users WHERE id = ?", SyntaxHighlightedSQL: "<pre>SELECT</pre>", Multishard: true,
		QueryStats: platform.QueryStats{
			QueryCount: 4, ErrorCount: 1, Tables: []string{"users"}, QualifiedTables: []string{"app-db.users"},
			TableKeyspaces: []any{map[string]any{"table": "users", "keyspace": "app-db"}}, IndexUsages: []any{}, RoutingIndexUsages: []any{},
			SumRowsRead: 10, SumTotalDurationMillis: 100, P50Latency: 20, P99Latency: 40.5,
			LastRunAt: platform.Ptr(mustTimestamp(t, "2026-01-14T10:19:23Z")), TrafficControlChecked: 2,
		},
	}
}

// branchQueryJSON is part of an execution as the API sends it.
const branchQueryJSON = `{"id": "q1", "password": {}, "tags": [{"key": "route", "value": "home"}], "fingerprint": "9f2c",
	"started_at": "2026-01-14T10:19:23.000Z", "statement_type": "SELECT", "keyspace": "app-db", "tables": ["users"],
	"username": "web", "remote_address": "192.0.2.1", "shard_queries": 2, "rows_read": 3, "rows_affected": 0, "rows_returned": 1,
	"total_duration_millis": 12, "error_message": "", "normalized_sql": "SELECT 1", "syntax_highlighted_sql": "<pre>SELECT 1</pre>",
	"created_at": "2026-01-14T10:19:23.000Z", "updated_at": "2026-01-14T10:19:23.000Z", "explainable": true, "truncated": false}`

func wantBranchQuery(t *testing.T) *platform.BranchQuery {
	at := mustTimestamp(t, "2026-01-14T10:19:23Z")
	return &platform.BranchQuery{
		ID: "q1", Password: map[string]any{}, Tags: []map[string]any{{"key": "route", "value": "home"}}, Fingerprint: "9f2c",
		StartedAt: &at, StatementType: "SELECT", Keyspace: "app-db", Tables: []string{"users"}, Username: "web", RemoteAddress: "192.0.2.1",
		ShardQueries: 2, RowsRead: 3, RowsReturned: 1, TotalDurationMillis: 12, NormalizedSQL: "SELECT 1",
		SyntaxHighlightedSQL: "<pre>SELECT 1</pre>", CreatedAt: at, UpdatedAt: at, Explainable: true,
	}
}

const queryTagJSON = `{"id": "Sroute", "name": "route", "source": "sql", "query_count": 5,
	"values": [{"name": "cart", "query_count": 3, "kind": "literal"}, {"name": "(other)", "query_count": 2, "kind": "overflow"}]}`

var wantQueryTag = &platform.QueryTag{ID: "Sroute", Name: "route", Source: platform.TagSourceSQL, QueryCount: 5, Values: []*platform.QueryTagValue{
	{Name: "cart", QueryCount: 3, Kind: platform.TagValueLiteral}, {Name: "(other)", QueryCount: 2, Kind: platform.TagValueOverflow},
}}

const anomalyJSON = `{"id": "a1", "period_start": "2026-01-14T10:00:00.000Z", "period_end": "2026-01-14T10:03:00.000Z",
	"minutes_in_violation": 3, "active": false, "duration": 180, "metrics_start": "2026-01-14T09:00:00.000Z",
	"metrics_end": "2026-01-14T11:03:00.000Z", "correlations": [{"id": "c1", "r": 0.93, "keyspace": "app-db",
	"fingerprint": "9f2c", "normalized_sql": "SELECT 1", "syntax_highlighted_sql": "<pre>SELECT 1</pre>", "tablet_type": "replica"}]}`

func wantAnomaly(t *testing.T) *platform.Anomaly {
	return &platform.Anomaly{
		ID: "a1", PeriodStart: mustTimestamp(t, "2026-01-14T10:00:00Z"), PeriodEnd: mustTimestamp(t, "2026-01-14T10:03:00Z"),
		MinutesInViolation: 3, Duration: 180, MetricsStart: mustTimestamp(t, "2026-01-14T09:00:00Z"), MetricsEnd: mustTimestamp(t, "2026-01-14T11:03:00Z"),
		Correlations: []*platform.AnomalyCorrelation{{ID: "c1", R: 0.93, Keyspace: "app-db", Fingerprint: "9f2c", NormalizedSQL: "SELECT 1",
			SyntaxHighlightedSQL: "<pre>SELECT 1</pre>", TabletType: platform.TabletReplica}},
	}
}

func TestQueryInsightsWire(t *testing.T) {
	t.Parallel()
	from := time.Date(2026, 1, 14, 9, 0, 0, 0, time.UTC)
	to := from.Add(time.Hour)
	errorJSON := `{"id": "e1", "error_fingerprint": "e1", "started_at": "2026-01-14T10:19:23.000Z", "total_duration_millis": 10,
		"time_per_query": 5, "error_count": 2, "error_message": "Duplicate entry"}`
	dimensionsJSON := `{"dimensions": {"route": "cart"}, "query_count": 3, "error_count": 2, "tables": [], "qualified_tables": [],
		"table_keyspaces": [], "index_usages": [], "routing_index_usages": [], "last_run_at": null}`
	runMethodCases(t, []methodCase{
		{
			name: "List", method: "GET", path: insightsBranch, status: 200, response: listJSON(querySummaryJSON),
			query: url.Values{"q": {"users"}, "sort": {"p99Latency"}, "dir": {"asc"}, "tablet_type": {"replica"}, "type": {"SELECT"},
				"from": {"2026-01-14T09:00:00Z"}, "to": {"2026-01-14T10:00:00Z"}, "page": {"2"}, "per_page": {"10"}},
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.QueryInsights.List(ctx, &platform.ListBranchQueriesParams{Organization: "acme", Database: "app-db", Branch: "main",
					QueryWindow: platform.QueryWindow{From: from, To: to}, Query: "users", Sort: "p99Latency", Dir: platform.OrderAsc,
					TabletType: platform.TabletReplica, Type: platform.StatementSelect, ListParams: platform.ListParams{Page: 2, PerPage: 10}})
			},
			want: onePage(wantQuerySummary(t)),
		},
		{
			name: "GetQuery", method: "GET", path: insightsBranch + "/queries/q1", status: 200, response: branchQueryJSON,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.QueryInsights.GetQuery(ctx, &platform.GetBranchQueryParams{Organization: "acme", Database: "app-db", Branch: "main", ID: "q1"})
			},
			want: wantBranchQuery(t),
		},
		{
			name: "Statistics", method: "GET", path: insightsBranch + "/9f2c", status: 200, response: listJSON(branchQueryJSON),
			query: url.Values{"keyspace": {"app-db"}, "period": {"1h"}},
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.QueryInsights.Statistics(ctx, &platform.QueryStatisticsParams{Organization: "acme", Database: "app-db", Branch: "main",
					Fingerprint: "9f2c", Keyspace: "app-db", QueryWindow: platform.QueryWindow{Period: platform.TrafficPeriod1h}})
			},
			want: onePage(wantBranchQuery(t)),
		},
		{
			name: "Summary", method: "GET", path: insightsBranch + "/9f2c/summary", status: 200, response: querySummaryJSON,
			query: url.Values{"keyspace": {"app-db"}},
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.QueryInsights.Summary(ctx, &platform.QuerySummaryParams{Organization: "acme", Database: "app-db", Branch: "main", Fingerprint: "9f2c", Keyspace: "app-db"})
			},
			want: wantQuerySummary(t),
		},
		{
			name: "ListErrors", method: "GET", path: insightsBranch + "/errors", status: 200, response: listJSON(errorJSON),
			query: url.Values{"q": {"dup"}, "sort": {"count"}, "dir": {"desc"}},
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.QueryInsights.ListErrors(ctx, &platform.ListQueryErrorsParams{Organization: "acme", Database: "app-db", Branch: "main", Query: "dup", Sort: "count", Dir: platform.OrderDesc})
			},
			want: onePage(&platform.QueryErrorSummary{ID: "e1", ErrorFingerprint: "e1", StartedAt: mustTimestamp(t, "2026-01-14T10:19:23Z"),
				TotalDurationMillis: 10, TimePerQuery: 5, ErrorCount: 2, ErrorMessage: "Duplicate entry"}),
		},
		{
			name: "ErrorQueries", method: "GET", path: insightsBranch + "/errors/e1", status: 200, response: listJSON(branchQueryJSON),
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.QueryInsights.ErrorQueries(ctx, &platform.QueryErrorParams{Organization: "acme", Database: "app-db", Branch: "main", Fingerprint: "e1"})
			},
			want: onePage(wantBranchQuery(t)),
		},
		{
			name: "ListTags", method: "GET", path: insightsBranch + "/tags", status: 200, response: listJSON(queryTagJSON),
			query: url.Values{"q": {"ro"}, "fingerprint": {"9f2c"}, "keyspace": {"app-db"}, "values_limit": {"1"}, "literal_values_only": {"true"}},
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.QueryInsights.ListTags(ctx, &platform.ListQueryTagsParams{Organization: "acme", Database: "app-db", Branch: "main", Query: "ro",
					QueryTagFilter: platform.QueryTagFilter{Fingerprint: "9f2c", Keyspace: "app-db", ValuesLimit: 1, LiteralValuesOnly: true}})
			},
			want: onePage(wantQueryTag),
		},
		{
			name: "GetTag", method: "GET", path: insightsBranch + "/tags/route", status: 200, response: queryTagJSON,
			query: url.Values{"tablet_type": {"primary"}},
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.QueryInsights.GetTag(ctx, &platform.GetQueryTagParams{Organization: "acme", Database: "app-db", Branch: "main", Tag: "route",
					QueryTagFilter: platform.QueryTagFilter{TabletType: platform.TabletPrimary}})
			},
			want: wantQueryTag,
		},
		{
			name: "TagSummaries", method: "GET", path: insightsBranch + "/tags/summaries", status: 200, response: listJSON(dimensionsJSON),
			query: url.Values{"tags[]": {"Sroute", "Busername"}, "sort": {"count"}},
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.QueryInsights.TagSummaries(ctx, &platform.ListQueryTagSummariesParams{Organization: "acme", Database: "app-db", Branch: "main",
					Tags: []string{"Sroute", "Busername"}, Sort: "count"})
			},
			want: onePage(&platform.QueryDimensionsSummary{Dimensions: map[string]any{"route": "cart"}, QueryStats: platform.QueryStats{
				QueryCount: 3, ErrorCount: 2, Tables: []string{}, QualifiedTables: []string{}, TableKeyspaces: []any{}, IndexUsages: []any{}, RoutingIndexUsages: []any{},
			}}),
		},
		{
			name: "ListAnomalies", method: "GET", path: insightsBranch + "/anomalies", status: 200, response: listJSON(anomalyJSON),
			query: url.Values{"period": {"7d"}},
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.QueryInsights.ListAnomalies(ctx, &platform.ListAnomaliesParams{Organization: "acme", Database: "app-db", Branch: "main",
					QueryWindow: platform.QueryWindow{Period: platform.TrafficPeriod7d}})
			},
			want: onePage(wantAnomaly(t)),
		},
		{
			name: "GetAnomaly", method: "GET", path: insightsBranch + "/anomalies/a1", status: 200, response: anomalyJSON,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.QueryInsights.GetAnomaly(ctx, &platform.GetAnomalyParams{Organization: "acme", Database: "app-db", Branch: "main", ID: "a1"})
			},
			want: wantAnomaly(t),
		},
		{
			name: "TrafficBudgets", method: "GET", path: insightsBranch + "/9f2c/traffic/budgets", status: 200, response: trafficBudgetListJSON,
			query: url.Values{"keyspace": {"app-db"}},
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.QueryInsights.TrafficBudgets(ctx, &platform.ListQueryTrafficBudgetsParams{Organization: "acme", Database: "app-db", Branch: "main", Fingerprint: "9f2c", Keyspace: "app-db"})
			},
			want: &platform.Page[platform.TrafficBudget]{
				Type: "list", CurrentPage: 2, PerPage: 1, PrevPage: platform.Ptr(1),
				PrevPageURL: platform.Ptr("https://api.example.com/v1/x?page=1"),
				Items:       []*platform.TrafficBudget{wantTrafficBudget(t)},
			},
		},
	})
}

func TestQueryInsightsArguments(t *testing.T) {
	t.Parallel()
	qi := func(c *platform.Client) *platform.QueryInsightsService { return c.QueryInsights }
	runArgCases(t, []argCase{
		{"List without a branch", "branch", func(ctx context.Context, c *platform.Client) error {
			_, err := qi(c).List(ctx, &platform.ListBranchQueriesParams{Organization: "acme", Database: "app-db"})
			return err
		}},
		{"List with a bad dir", "dir", func(ctx context.Context, c *platform.Client) error {
			_, err := qi(c).List(ctx, &platform.ListBranchQueriesParams{Organization: "acme", Database: "app-db", Branch: "main", Dir: "up"})
			return err
		}},
		{"List of nil", "params", func(ctx context.Context, c *platform.Client) error {
			_, err := qi(c).List(ctx, nil)
			return err
		}},
		{"GetQuery without an ID", "id", func(ctx context.Context, c *platform.Client) error {
			_, err := qi(c).GetQuery(ctx, &platform.GetBranchQueryParams{Organization: "acme", Database: "app-db", Branch: "main"})
			return err
		}},
		{"Statistics without a keyspace", "keyspace", func(ctx context.Context, c *platform.Client) error {
			_, err := qi(c).Statistics(ctx, &platform.QueryStatisticsParams{Organization: "acme", Database: "app-db", Branch: "main", Fingerprint: "f"})
			return err
		}},
		{"Summary without a fingerprint", "fingerprint", func(ctx context.Context, c *platform.Client) error {
			_, err := qi(c).Summary(ctx, &platform.QuerySummaryParams{Organization: "acme", Database: "app-db", Branch: "main", Keyspace: "k"})
			return err
		}},
		{"ListErrors without a database", "database", func(ctx context.Context, c *platform.Client) error {
			_, err := qi(c).ListErrors(ctx, &platform.ListQueryErrorsParams{Organization: "acme", Branch: "main"})
			return err
		}},
		{"ErrorQueries without a fingerprint", "fingerprint", func(ctx context.Context, c *platform.Client) error {
			_, err := qi(c).ErrorQueries(ctx, &platform.QueryErrorParams{Organization: "acme", Database: "app-db", Branch: "main"})
			return err
		}},
		{"ListTags with a bad page", "per_page", func(ctx context.Context, c *platform.Client) error {
			_, err := qi(c).ListTags(ctx, &platform.ListQueryTagsParams{Organization: "acme", Database: "app-db", Branch: "main", ListParams: platform.ListParams{PerPage: 1000}})
			return err
		}},
		{"GetTag without a tag", "tag", func(ctx context.Context, c *platform.Client) error {
			_, err := qi(c).GetTag(ctx, &platform.GetQueryTagParams{Organization: "acme", Database: "app-db", Branch: "main"})
			return err
		}},
		{"TagSummaries with a bad dir", "dir", func(ctx context.Context, c *platform.Client) error {
			_, err := qi(c).TagSummaries(ctx, &platform.ListQueryTagSummariesParams{Organization: "acme", Database: "app-db", Branch: "main", Dir: "up"})
			return err
		}},
		{"ListAnomalies without an organization", "organization", func(ctx context.Context, c *platform.Client) error {
			_, err := qi(c).ListAnomalies(ctx, &platform.ListAnomaliesParams{Database: "app-db", Branch: "main"})
			return err
		}},
		{"GetAnomaly without an ID", "id", func(ctx context.Context, c *platform.Client) error {
			_, err := qi(c).GetAnomaly(ctx, &platform.GetAnomalyParams{Organization: "acme", Database: "app-db", Branch: "main"})
			return err
		}},
		{"TrafficBudgets without a fingerprint", "fingerprint", func(ctx context.Context, c *platform.Client) error {
			_, err := qi(c).TrafficBudgets(ctx, &platform.ListQueryTrafficBudgetsParams{Organization: "acme", Database: "app-db", Branch: "main"})
			return err
		}},
	})
}
