package fake_test

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// insightsMix records a known mix on main of trafficDB, now being T:
//
//	lookup  T-2h  10ms read 1 ret 1 route=home
//	lookup  T-30m 20ms read 2 ret 1 route=home username=web
//	lookup  T-10m 30ms read 3 ret 0 route=cart replica, 2 shards
//	lookup  T     40ms read 4 ret 1 route=cart, failed (lock wait)
//	insert  T-5m   5ms affected 1
//	insert  T      5ms affected 1 route=cart, failed (duplicate entry)
//
// and returns the fingerprints of the lookup and the insert.
func insightsMix(t *testing.T, srv *fake.Server) (lookup, insert string) {
	t.Helper()
	now, ms := srv.Now(), time.Millisecond
	sel := func(id string) string { return "SELECT * FROM users WHERE id = " + id }
	ins := "INSERT INTO orders (id, total) VALUES (1, 2)"
	err := srv.RecordQueries(srv.Org(), trafficDB, "main",
		fake.QuerySample{SQL: sel("1"), Duration: 10 * ms, RowsRead: 1, RowsReturned: 1, Tags: map[string]string{"route": "home"}, Time: now.Add(-2 * time.Hour)},
		fake.QuerySample{SQL: sel("2"), Duration: 20 * ms, RowsRead: 2, RowsReturned: 1, Tags: map[string]string{"route": "home", "username": "web"}, Time: now.Add(-30 * time.Minute)},
		fake.QuerySample{SQL: sel("3"), Duration: 30 * ms, RowsRead: 3, Tags: map[string]string{"route": "cart"}, TabletType: platform.TabletReplica, ShardQueries: 2, Time: now.Add(-10 * time.Minute)},
		fake.QuerySample{SQL: sel("4"), Duration: 40 * ms, RowsRead: 4, RowsReturned: 1, Tags: map[string]string{"route": "cart"}, Error: "Lock wait timeout exceeded", ErrorCode: "1205"},
		fake.QuerySample{SQL: ins, Duration: 5 * ms, RowsAffected: 1, Time: now.Add(-5 * time.Minute)},
		fake.QuerySample{SQL: ins, Duration: 5 * ms, RowsAffected: 1, Tags: map[string]string{"route": "cart"}, Error: "Duplicate entry '7' for key 'PRIMARY'", ErrorCode: "1062"},
	)
	if err != nil {
		t.Fatal(err)
	}
	lookup, _ = fake.QueryFingerprint(sel("1"))
	insert, _ = fake.QueryFingerprint(ins)
	return lookup, insert
}

// insightsOn is the branch ref of main of trafficDB.
func insightsOn(srv *fake.Server) (org, db, branch string) { return srv.Org(), trafficDB, "main" }

// TestInsightsViewsAgree records a known mix and checks that every view
// shows the same numbers for the same executions.
func TestInsightsViewsAgree(t *testing.T) {
	t.Parallel()
	srv, c := newTrafficServer(t)
	srv.Advance(3 * time.Hour)
	lookup, insert := insightsMix(t, srv)
	ctx := t.Context()
	org, db, br := insightsOn(srv)
	qi := c.QueryInsights

	list := opCollect(t, qi.All(ctx, &platform.ListBranchQueriesParams{Organization: org, Database: db, Branch: br, ListParams: platform.ListParams{PerPage: 1}}))
	if len(list) != 2 || list[0].Fingerprint != lookup || list[1].Fingerprint != insert {
		t.Fatalf("List: %d queries, want the lookup then the insert (by total time)", len(list))
	}
	type figures struct {
		Count, Errors                int
		Read, Returned, Affected     int64
		Shards                       int64
		MaxShards                    int
		TotalMillis                  int64
		P50, P99, Max, PerQuery, Pct float64
		Multishard                   bool
		Statement, SQL, Keyspace     string
		Tables                       []string
	}
	fig := func(s *platform.QuerySummary) figures {
		return figures{s.QueryCount, s.ErrorCount, s.SumRowsRead, s.SumRowsReturned, s.SumRowsAffected, s.SumShardQueries, s.MaxShardQueries,
			s.SumTotalDurationMillis, s.P50Latency, s.P99Latency, s.MaxLatency, s.TimePerQuery, s.SumTotalDurationPercent,
			s.Multishard, s.StatementType, s.NormalizedSQL, s.Keyspace, s.Tables}
	}
	want := []figures{
		{4, 1, 10, 3, 0, 5, 2, 100, 20, 40, 40, 25, 100 * 100.0 / 110, true, "SELECT", "SELECT * FROM users WHERE id = ?", trafficDB, []string{"users"}},
		{2, 1, 0, 0, 2, 2, 1, 10, 5, 5, 5, 5, 100 * 10.0 / 110, false, "INSERT", "INSERT INTO orders (id, total) VALUES (?, ?)", trafficDB, []string{"orders"}},
	}
	for i, s := range list {
		if diff := cmp.Diff(want[i], fig(s)); diff != "" {
			t.Errorf("List %s (-want +got):\n%s", s.Fingerprint, diff)
		}
		// The summary of the query is the list's row.
		sum, err := qi.Summary(ctx, &platform.QuerySummaryParams{Organization: org, Database: db, Branch: br, Fingerprint: s.Fingerprint, Keyspace: trafficDB})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(s, sum); diff != "" {
			t.Errorf("Summary %s differs from its List row (-list +summary):\n%s", s.Fingerprint, diff)
		}
		// Its executions add up to it.
		runs := opCollect(t, qi.AllStatistics(ctx, &platform.QueryStatisticsParams{Organization: org, Database: db, Branch: br, Fingerprint: s.Fingerprint, Keyspace: trafficDB,
			ListParams: platform.ListParams{PerPage: 3}}))
		var read, returned, affected, millis int64
		errs := 0
		for j, r := range runs {
			read, returned, affected, millis = read+r.RowsRead, returned+r.RowsReturned, affected+r.RowsAffected, millis+r.TotalDurationMillis
			if r.ErrorMessage != "" {
				errs++
			}
			if j > 0 && r.StartedAt.After(runs[j-1].StartedAt.Time) {
				t.Errorf("Statistics %s: not newest first", s.Fingerprint)
			}
			one, err := qi.GetQuery(ctx, &platform.GetBranchQueryParams{Organization: org, Database: db, Branch: br, ID: r.ID})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(r, one); diff != "" {
				t.Errorf("GetQuery %s differs from its Statistics row:\n%s", r.ID, diff)
			}
		}
		got := [6]int64{int64(len(runs)), int64(errs), read, returned, affected, millis}
		if w := [6]int64{int64(s.QueryCount), int64(s.ErrorCount), s.SumRowsRead, s.SumRowsReturned, s.SumRowsAffected, s.SumTotalDurationMillis}; got != w {
			t.Errorf("Statistics %s add up to %v (count, errors, read, returned, affected, ms); the summary says %v", s.Fingerprint, got, w)
		}
	}

	// Errors: one per error fingerprint, adding up to the summaries'.
	errList := opCollect(t, qi.AllErrors(ctx, &platform.ListQueryErrorsParams{Organization: org, Database: db, Branch: br}))
	var msgs []string
	for _, e := range errList {
		msgs = append(msgs, e.ErrorMessage)
		runs := opCollect(t, qi.AllErrorQueries(ctx, &platform.QueryErrorParams{Organization: org, Database: db, Branch: br, Fingerprint: e.ErrorFingerprint}))
		if len(runs) != e.ErrorCount || runs[0].ErrorMessage != e.ErrorMessage {
			t.Errorf("ErrorQueries %s: %d runs, the error says %d", e.ErrorFingerprint, len(runs), e.ErrorCount)
		}
	}
	if diff := cmp.Diff([]string{"Duplicate entry '7' for key 'PRIMARY'", "Lock wait timeout exceeded"}, msgs); diff != "" {
		t.Errorf("ListErrors, newest first then by fingerprint (-want +got):\n%s", diff)
	}

	// Tags: the values count the executions, as tag summaries do.
	tags := opCollect(t, qi.AllTags(ctx, &platform.ListQueryTagsParams{Organization: org, Database: db, Branch: br}))
	counts := map[string]int{}
	for _, tg := range tags {
		counts[tg.ID+" "+tg.Name+" "+string(tg.Source)] = tg.QueryCount
		for _, v := range tg.Values {
			counts[tg.Name+"="+v.Name] = v.QueryCount
		}
		got, err := qi.GetTag(ctx, &platform.GetQueryTagParams{Organization: org, Database: db, Branch: br, Tag: tg.Name})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tg, got); diff != "" {
			t.Errorf("GetTag %s differs from its ListTags row:\n%s", tg.Name, diff)
		}
	}
	wantCounts := map[string]int{
		"Bquery_fingerprint query_fingerprint system": 6, "query_fingerprint=" + lookup: 4, "query_fingerprint=" + insert: 2,
		"Sroute route sql": 5, "route=cart": 3, "route=home": 2,
		"Busername username system": 1, "username=web": 1,
	}
	if diff := cmp.Diff(wantCounts, counts); diff != "" {
		t.Errorf("ListTags (-want +got):\n%s", diff)
	}
	dims := map[string][2]int{}
	for _, d := range opCollect(t, qi.AllTagSummaries(ctx, &platform.ListQueryTagSummariesParams{Organization: org, Database: db, Branch: br, Tags: []string{"Sroute"}})) {
		dims["route="+d.Dimensions["route"].(string)] = [2]int{d.QueryCount, d.ErrorCount}
	}
	if diff := cmp.Diff(map[string][2]int{"route=cart": {3, 2}, "route=home": {2, 0}}, dims); diff != "" {
		t.Errorf("TagSummaries by route (-want +got):\n%s", diff)
	}
	// Tags by ID, as the official client sends them ("B" a system tag's,
	// "S" another's), or by name, repeated or empty: the same groups.
	groups := func(tags ...string) map[string][2]int {
		out := map[string][2]int{}
		for _, d := range opCollect(t, qi.AllTagSummaries(ctx, &platform.ListQueryTagSummariesParams{Organization: org, Database: db, Branch: br, Tags: tags})) {
			out[fmt.Sprint(d.Dimensions)] = [2]int{d.QueryCount, d.ErrorCount}
		}
		return out
	}
	byUser := groups("Busername")
	if diff := cmp.Diff(map[string][2]int{"map[username:web]": {1, 0}}, byUser); diff != "" {
		t.Errorf("TagSummaries by Busername (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(byUser, groups("username")); diff != "" {
		t.Errorf("TagSummaries by username against Busername (-want +got):\n%s", diff)
	}
	both := groups("Sroute", "Busername")
	if diff := cmp.Diff(both, groups("Sroute,route,,Busername", "username")); diff != "" {
		t.Errorf("TagSummaries by repeated keys (-want +got):\n%s", diff)
	}
	if _, ok := both["map[route:home username:web]"]; !ok {
		t.Errorf("TagSummaries by route and username: %v, want a group of both", both)
	}
	// Grouped by each tag, the query_fingerprint groups are the queries'
	// summaries.
	for _, d := range opCollect(t, qi.AllTagSummaries(ctx, &platform.ListQueryTagSummariesParams{Organization: org, Database: db, Branch: br})) {
		fp, ok := d.Dimensions["query_fingerprint"].(string)
		if !ok {
			continue
		}
		for _, s := range list {
			if s.Fingerprint == fp {
				if diff := cmp.Diff(s.QueryStats, d.QueryStats); diff != "" {
					t.Errorf("TagSummaries query_fingerprint=%s differs from the query's summary:\n%s", fp, diff)
				}
				fp = ""
			}
		}
		if fp != "" {
			t.Errorf("TagSummaries names query %s, which List does not", fp)
		}
	}

	// The last hour leaves out the oldest lookup, in every view.
	hour := platform.QueryWindow{Period: platform.TrafficPeriod1h}
	recent, err := qi.List(ctx, &platform.ListBranchQueriesParams{Organization: org, Database: db, Branch: br, QueryWindow: hour})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := qi.Summary(ctx, &platform.QuerySummaryParams{Organization: org, Database: db, Branch: br, Fingerprint: lookup, Keyspace: trafficDB, QueryWindow: hour})
	if err != nil {
		t.Fatal(err)
	}
	route, err := qi.GetTag(ctx, &platform.GetQueryTagParams{Organization: org, Database: db, Branch: br, Tag: "route", QueryTagFilter: platform.QueryTagFilter{QueryWindow: hour}})
	if err != nil {
		t.Fatal(err)
	}
	if len(recent.Items) != 2 || recent.Items[0].QueryCount != 3 || sum.QueryCount != 3 || route.QueryCount != 4 {
		t.Errorf("the last hour: list %d queries, lookup %d and %d runs, route %d; want 2, 3, 3, 4", len(recent.Items), recent.Items[0].QueryCount, sum.QueryCount, route.QueryCount)
	}
	if diff := cmp.Diff(recent.Items[0], sum); diff != "" {
		t.Errorf("the last hour's summary differs from its List row:\n%s", diff)
	}
}

func TestInsightsFiltersAndSorts(t *testing.T) {
	t.Parallel()
	srv, c := newTrafficServer(t)
	srv.Advance(3 * time.Hour)
	lookup, insert := insightsMix(t, srv)
	ctx := t.Context()
	org, db, br := insightsOn(srv)
	now := srv.Now()
	tie := []string{min(lookup, insert), max(lookup, insert)} // same keyspace: by fingerprint
	for _, tc := range []struct {
		name string
		p    platform.ListBranchQueriesParams
		want []string
	}{
		{"by count ascending", platform.ListBranchQueriesParams{Sort: "count", Dir: platform.OrderAsc}, []string{insert, lookup}},
		{"by query", platform.ListBranchQueriesParams{Sort: "query", Dir: platform.OrderAsc}, []string{insert, lookup}},
		{"by rows affected", platform.ListBranchQueriesParams{Sort: "rowsAffected"}, []string{insert, lookup}},
		{"unmeasured sort leaves the ties", platform.ListBranchQueriesParams{Sort: "cpuTime"}, tie},
		{"search", platform.ListBranchQueriesParams{Query: "orders"}, []string{insert}},
		{"statement type", platform.ListBranchQueriesParams{Type: platform.StatementSelect}, []string{lookup}},
		{"tablet type", platform.ListBranchQueriesParams{TabletType: platform.TabletReplica}, []string{lookup}},
		{"from and to", platform.ListBranchQueriesParams{QueryWindow: platform.QueryWindow{From: now.Add(-7 * time.Minute), To: now}}, []string{insert}},
		{"15 minutes", platform.ListBranchQueriesParams{QueryWindow: platform.QueryWindow{Period: platform.TrafficPeriod15m}}, []string{lookup, insert}},
		{"to alone", platform.ListBranchQueriesParams{QueryWindow: platform.QueryWindow{To: now.Add(-time.Hour)}}, []string{lookup}},
	} {
		p := tc.p
		p.Organization, p.Database, p.Branch = org, db, br
		page, err := c.QueryInsights.List(ctx, &p)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var got []string
		for _, s := range page.Items {
			got = append(got, s.Fingerprint)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
	// Every sort the fake measures, both ways: the rows come in the order
	// of the figure they show, ties by keyspace and fingerprint; and the
	// errors by each of theirs.
	byLookup, byInsert := []string{lookup, insert}, []string{insert, lookup}
	for _, tc := range []struct {
		sort string
		desc []string // asc is its reverse, but for the ties
	}{
		{"lastRun", tie}, // both last ran when recorded
		{"count", byLookup},
		{"errorCount", tie},
		{"rowsRead", byLookup},
		{"rowsAffected", byInsert},
		{"rowsReturned", byLookup},
		{"rowsReadPerReturned", byLookup},
		{"rowsReadPerQuery", byLookup},
		{"rowsReturnedPerQuery", byLookup},
		{"rowsAffectedPerQuery", byInsert},
		{"totalTime", byLookup},
		{"percentTime", byLookup},
		{"sumShardQueries", byLookup},
		{"maxShardQueries", byLookup},
		{"avgShardQueries", byLookup},
		{"p50Latency", byLookup},
		{"p99Latency", byLookup},
		{"maxLatency", byLookup},
		{"keyspace", tie},
		{"tableKeyspace", tie},
		{"table", byLookup}, // users after orders
		{"qualifiedTable", byLookup},
	} {
		for _, dir := range []platform.Order{platform.OrderDesc, platform.OrderAsc} {
			want := tc.desc
			if dir == platform.OrderAsc && !slices.Contains([]string{"lastRun", "errorCount", "keyspace", "tableKeyspace"}, tc.sort) {
				want = []string{want[1], want[0]}
			}
			page, err := c.QueryInsights.List(ctx, &platform.ListBranchQueriesParams{Organization: org, Database: db, Branch: br, Sort: tc.sort, Dir: dir})
			if err != nil {
				t.Fatalf("sort %s %s: %v", tc.sort, dir, err)
			}
			var got []string
			for _, q := range page.Items {
				got = append(got, q.Fingerprint)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("sort %s %s (-want +got):\n%s", tc.sort, dir, diff)
			}
		}
	}
	const lock, dup = "Lock wait timeout exceeded", "Duplicate entry '7' for key 'PRIMARY'"
	for _, tc := range []struct {
		sort string
		dir  platform.Order
		want []string
	}{
		{"error", platform.OrderAsc, []string{dup, lock}},
		{"error", platform.OrderDesc, []string{lock, dup}},
		{"totalTime", platform.OrderDesc, []string{lock, dup}},
		{"totalTime", platform.OrderAsc, []string{dup, lock}},
		{"timePerQuery", platform.OrderAsc, []string{dup, lock}},
	} {
		page, err := c.QueryInsights.ListErrors(ctx, &platform.ListQueryErrorsParams{Organization: org, Database: db, Branch: br, Sort: tc.sort, Dir: tc.dir})
		if err != nil {
			t.Fatalf("errors by %s %s: %v", tc.sort, tc.dir, err)
		}
		var got []string
		for _, e := range page.Items {
			got = append(got, e.ErrorMessage)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("errors by %s %s (-want +got):\n%s", tc.sort, tc.dir, diff)
		}
	}
	// Tag summaries by their dimensions' text, both ways.
	for dir, want := range map[platform.Order][]string{
		platform.OrderAsc:  {"cart", "home"},
		platform.OrderDesc: {"home", "cart"},
	} {
		var got []string
		for _, d := range opCollect(t, c.QueryInsights.AllTagSummaries(ctx, &platform.ListQueryTagSummariesParams{Organization: org, Database: db, Branch: br, Tags: []string{"Sroute"}, Sort: "dimensions", Dir: dir})) {
			got = append(got, fmt.Sprint(d.Dimensions["route"]))
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("tag summaries by dimensions %s (-want +got):\n%s", dir, diff)
		}
	}
	// Errors sorted by count then fingerprint, and searched.
	errs, err := c.QueryInsights.ListErrors(ctx, &platform.ListQueryErrorsParams{Organization: org, Database: db, Branch: br, Query: "lock"})
	if err != nil || len(errs.Items) != 1 || errs.Items[0].ErrorMessage != "Lock wait timeout exceeded" {
		t.Errorf("ListErrors q=lock: %v %v", errs, err)
	}
	// A value limit folds the rest into one overflow value, which
	// literal_values_only leaves out.
	tag := func(f platform.QueryTagFilter) []platform.QueryTagValue {
		tg, err := c.QueryInsights.GetTag(ctx, &platform.GetQueryTagParams{Organization: org, Database: db, Branch: br, Tag: "route", QueryTagFilter: f})
		if err != nil {
			t.Fatal(err)
		}
		var out []platform.QueryTagValue
		for _, v := range tg.Values {
			out = append(out, *v)
		}
		return out
	}
	if diff := cmp.Diff([]platform.QueryTagValue{{Name: "cart", QueryCount: 3, Kind: platform.TagValueLiteral}, {Name: "(other)", QueryCount: 2, Kind: platform.TagValueOverflow}},
		tag(platform.QueryTagFilter{ValuesLimit: 1})); diff != "" {
		t.Errorf("values_limit 1 (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]platform.QueryTagValue{{Name: "cart", QueryCount: 3, Kind: platform.TagValueLiteral}},
		tag(platform.QueryTagFilter{ValuesLimit: 1, LiteralValuesOnly: true})); diff != "" {
		t.Errorf("literal values only (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]platform.QueryTagValue{{Name: "cart", QueryCount: 1, Kind: platform.TagValueLiteral}},
		tag(platform.QueryTagFilter{Fingerprint: insert})); diff != "" {
		t.Errorf("the insert's route values (-want +got):\n%s", diff)
	}
}

func TestInsightsTrafficBudgetsForQuery(t *testing.T) {
	t.Parallel()
	srv, c := newTrafficServer(t)
	lookup, insert := insightsMix(t, srv)
	home := trafficCreate(t, srv, c, "main", platform.CreateTrafficBudgetParams{Name: "home", Rules: []string{"route=home"}})
	byFP := trafficCreate(t, srv, c, "main", platform.CreateTrafficBudgetParams{Name: "inserts"})
	trafficRule(t, srv, c, byFP.ID, platform.CreateTrafficRuleParams{Fingerprint: platform.Ptr(insert)})
	cart := trafficCreate(t, srv, c, "main", platform.CreateTrafficBudgetParams{Name: "cart", Rules: []string{"route=cart"}})
	trafficCreate(t, srv, c, "main", platform.CreateTrafficBudgetParams{Name: "other", Rules: []string{"route=admin"}})
	org, db, br := insightsOn(srv)
	for _, tc := range []struct {
		fp, keyspace string
		want         []string
	}{
		{lookup, "", []string{home.ID, cart.ID}},
		{insert, "", []string{byFP.ID, cart.ID}},
		{insert, trafficDB, []string{byFP.ID, cart.ID}},
		{lookup, "elsewhere", nil},
	} {
		got := opCollect(t, c.QueryInsights.AllTrafficBudgets(t.Context(), &platform.ListQueryTrafficBudgetsParams{Organization: org, Database: db, Branch: br, Fingerprint: tc.fp, Keyspace: tc.keyspace}))
		var ids []string
		for _, bg := range got {
			ids = append(ids, bg.ID)
		}
		if diff := cmp.Diff(tc.want, ids); diff != "" {
			t.Errorf("budgets for %s on %q (-want +got):\n%s", tc.fp, tc.keyspace, diff)
		}
	}
	// A query the branch has neither seen nor a rule for is unknown, as it
	// is to get_query_statistics; one with a rule but no executions kept
	// lists the budgets whose rules name it.
	_, err := c.QueryInsights.TrafficBudgets(t.Context(), &platform.ListQueryTrafficBudgetsParams{Organization: org, Database: db, Branch: br, Fingerprint: "0000000000000000"})
	if !errors.Is(err, platform.ErrNotFound) {
		t.Errorf("budgets for an unknown query: err = %v, want not found", err)
	}
	unseen := trafficCreate(t, srv, c, "main", platform.CreateTrafficBudgetParams{Name: "unseen"})
	trafficRule(t, srv, c, unseen.ID, platform.CreateTrafficRuleParams{Fingerprint: platform.Ptr("1111111111111111")})
	got := opCollect(t, c.QueryInsights.AllTrafficBudgets(t.Context(), &platform.ListQueryTrafficBudgetsParams{Organization: org, Database: db, Branch: br, Fingerprint: "1111111111111111"}))
	if len(got) != 1 || got[0].ID != unseen.ID {
		t.Errorf("budgets for a query with a rule and no executions = %v, want [%s]", got, unseen.ID)
	}
}

func TestInsightsAnomalies(t *testing.T) {
	t.Parallel()
	srv, c := newTrafficServer(t)
	srv.Advance(time.Hour)
	org, db, br := insightsOn(srv)
	now := srv.Now().Truncate(time.Minute)
	srv.Advance(30 * time.Second) // within the minute
	var samples []fake.QuerySample
	// 20 quiet minutes at 10ms, three slow ones at 50ms, 5 quiet ones,
	// then a slow current minute.
	latency := func(m int) time.Duration {
		if m >= 20 && m < 23 || m == 28 {
			return 50 * time.Millisecond
		}
		return 10 * time.Millisecond
	}
	for m := range 29 {
		at := now.Add(time.Duration(m-28) * time.Minute)
		samples = append(samples,
			fake.QuerySample{SQL: "SELECT * FROM users WHERE id = 1", Duration: latency(m), Time: at},
			fake.QuerySample{SQL: "SELECT 1", Duration: 10 * time.Millisecond, Time: at})
	}
	if err := srv.RecordQueries(org, db, br, samples...); err != nil {
		t.Fatal(err)
	}
	list := opCollect(t, c.QueryInsights.AllAnomalies(t.Context(), &platform.ListAnomaliesParams{Organization: org, Database: db, Branch: br}))
	type span struct {
		Start, End time.Time
		Minutes    int
		Active     bool
		Seconds    float64
	}
	var got []span
	for _, a := range list {
		got = append(got, span{a.PeriodStart.Time, a.PeriodEnd.Time, a.MinutesInViolation, a.Active, a.Duration})
		if a.Correlations != nil {
			t.Errorf("the list shows correlations of %s", a.ID)
		}
	}
	want := []span{
		{now, now.Add(time.Minute), 1, true, 60},
		{now.Add(-8 * time.Minute), now.Add(-5 * time.Minute), 3, false, 180},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("anomalies, newest first (-want +got):\n%s", diff)
	}
	a, err := c.QueryInsights.GetAnomaly(t.Context(), &platform.GetAnomalyParams{Organization: org, Database: db, Branch: br, ID: list[1].ID})
	if err != nil {
		t.Fatal(err)
	}
	lookup, normalized := fake.QueryFingerprint("SELECT * FROM users WHERE id = 1")
	if len(a.Correlations) != 1 || a.Correlations[0].Fingerprint != lookup || a.Correlations[0].NormalizedSQL != normalized ||
		a.Correlations[0].R != 1 || a.Correlations[0].TabletType != platform.TabletPrimary || a.Correlations[0].Keyspace != trafficDB {
		t.Errorf("correlations: %+v, want the lookup alone with r 1", a.Correlations)
	}
	if !a.MetricsStart.Equal(now.Add(-68*time.Minute)) || !a.MetricsEnd.Equal(now.Add(time.Minute)) {
		t.Errorf("metrics window %v to %v", a.MetricsStart, a.MetricsEnd)
	}
	// A window before the first anomaly lists none; the same samples give
	// the same IDs on another server.
	old := opCollect(t, c.QueryInsights.AllAnomalies(t.Context(), &platform.ListAnomaliesParams{Organization: org, Database: db, Branch: br,
		QueryWindow: platform.QueryWindow{To: now.Add(-10 * time.Minute)}}))
	if len(old) != 0 {
		t.Errorf("%d anomalies before the first", len(old))
	}
	if _, err := c.QueryInsights.GetAnomaly(t.Context(), &platform.GetAnomalyParams{Organization: org, Database: db, Branch: br, ID: "nope"}); !errors.Is(err, platform.ErrNotFound) {
		t.Errorf("an unknown anomaly: %v, want not found", err)
	}
}

func TestInsightsRefusals(t *testing.T) {
	t.Parallel()
	srv, _ := newTrafficServer(t)
	lookup, _ := insightsMix(t, srv)
	base := "/v1/organizations/" + srv.Org() + "/databases/" + trafficDB + "/branches/main/insights"
	for _, tc := range []struct {
		path   string
		status int
		want   string
	}{
		{base + "?period=1w", http.StatusBadRequest, `period "1w"`},
		{base + "?period=1h&from=2026-01-01T00:00:00Z", http.StatusBadRequest, "not both"},
		{base + "?from=yesterday", http.StatusBadRequest, "from must be an RFC 3339 time"},
		{base + "?from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z", http.StatusBadRequest, "from must be before to"},
		{base + "?sort=speed", http.StatusBadRequest, `sort "speed"`},
		{base + "?dir=up", http.StatusBadRequest, "dir must be asc or desc"},
		{base + "?tablet_type=leader", http.StatusBadRequest, `tablet_type "leader"`},
		{base + "?type=MERGE", http.StatusBadRequest, `type "MERGE"`},
		{base + "/errors?sort=count&dir=sideways", http.StatusBadRequest, "dir must be asc or desc"},
		{base + "/errors?sort=query", http.StatusBadRequest, `sort "query"`},
		{base + "/tags?values_limit=101", http.StatusBadRequest, "values_limit must be an integer from 1 to 100"},
		{base + "/tags/route?literal_values_only=maybe", http.StatusBadRequest, "literal_values_only"},
		{base + "/tags/summaries?sort=nothing", http.StatusBadRequest, `sort "nothing"`},
		{base + "?to=soon", http.StatusBadRequest, "to must be an RFC 3339 time"},
		{base + "/errors?tablet_type=leader", http.StatusBadRequest, `tablet_type "leader"`},
		{base + "/errors/" + lookup + "?period=1w", http.StatusBadRequest, `period "1w"`},
		{base + "/tags?tablet_type=leader", http.StatusBadRequest, `tablet_type "leader"`},
		{base + "/tags/route?keyspace=x&tablet_type=leader", http.StatusBadRequest, `tablet_type "leader"`},
		{base + "/tags/summaries?type=MERGE", http.StatusBadRequest, `type "MERGE"`},
		{base + "/" + lookup + "/summary?keyspace=" + trafficDB + "&from=yesterday", http.StatusBadRequest, "from must be an RFC 3339 time"},
		{base + "/" + lookup + "?keyspace=other", http.StatusNotFound, "Not Found"},
		{base + "/0000000000000000/summary?keyspace=" + trafficDB, http.StatusNotFound, "Not Found"},
		{base + "/" + lookup + "/summary-not?keyspace=" + trafficDB, http.StatusNotFound, "Not Found"},
		{base + "/queries/nope", http.StatusNotFound, "Not Found"},
		{base + "/errors/nope", http.StatusNotFound, "Not Found"},
		{base + "/tags/nope", http.StatusNotFound, "Not Found"},
		{base + "/anomalies/nope", http.StatusNotFound, "Not Found"},
		{strings.Replace(base, "main", "nope", 1), http.StatusNotFound, "Not Found"},
		{strings.Replace(base, "main", "nope", 1) + "/" + lookup + "/traffic/budgets", http.StatusNotFound, "Not Found"},
	} {
		r := send(t, srv, http.MethodGet, tc.path, admin(srv), "")
		if r.status != tc.status || !strings.Contains(strings.ReplaceAll(string(r.body), `\"`, `"`), tc.want) {
			t.Errorf("GET %s: %d %s; want %d naming %s", tc.path, r.status, r.body, tc.status, tc.want)
		}
	}
}

// TestInsightsQueryWithoutKeyspace checks that a query's statistics and
// summary, asked for without a keyspace as the service's official client
// does, are those of the fingerprint's one keyspace, and that a 400 asks
// for the keyspace once the fingerprint ran in two.
func TestInsightsQueryWithoutKeyspace(t *testing.T) {
	t.Parallel()
	srv, _ := newTrafficServer(t)
	lookup, _ := insightsMix(t, srv)
	base := "/v1/organizations/" + srv.Org() + "/databases/" + trafficDB + "/branches/main/insights/" + lookup
	for _, path := range []string{base, base + "/summary"} {
		with := send(t, srv, http.MethodGet, path+"?keyspace="+trafficDB, admin(srv), "")
		without := send(t, srv, http.MethodGet, path, admin(srv), "")
		wantStatus(t, without, http.StatusOK)
		if diff := cmp.Diff(string(with.body), string(without.body)); diff != "" {
			t.Errorf("GET %s without a keyspace (-with +without):\n%s", path, diff)
		}
	}
	if err := srv.AddKeyspace(srv.Org(), trafficDB, "main", "other", 1); err != nil {
		t.Fatal(err)
	}
	if err := srv.RecordQueries(srv.Org(), trafficDB, "main", fake.QuerySample{SQL: "SELECT * FROM users WHERE id = 9", Keyspace: "other", Duration: time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	r := send(t, srv, http.MethodGet, base, admin(srv), "")
	if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), "keyspace is required") {
		t.Errorf("GET %s with the query in two keyspaces: %d %s, want 400 asking for the keyspace", base, r.status, r.body)
	}
}

func TestInsightsOfAQuietBranch(t *testing.T) {
	t.Parallel()
	srv, c := newTrafficServer(t)
	org, db, br := insightsOn(srv)
	ctx := t.Context()
	list, err := c.QueryInsights.List(ctx, &platform.ListBranchQueriesParams{Organization: org, Database: db, Branch: br})
	if err != nil || len(list.Items) != 0 {
		t.Errorf("List of a branch without traffic: %v %v", list, err)
	}
	tags, err := c.QueryInsights.ListTags(ctx, &platform.ListQueryTagsParams{Organization: org, Database: db, Branch: br})
	if err != nil || len(tags.Items) != 0 {
		t.Errorf("ListTags of a branch without traffic: %v %v", tags, err)
	}
	anomalies, err := c.QueryInsights.ListAnomalies(ctx, &platform.ListAnomaliesParams{Organization: org, Database: db, Branch: br})
	if err != nil || len(anomalies.Items) != 0 {
		t.Errorf("ListAnomalies of a branch without traffic: %v %v", anomalies, err)
	}
	// A query with no execution in the window has a summary of zeros.
	lookup, _ := insightsMix(t, srv)
	srv.Advance(48 * time.Hour)
	sum, err := c.QueryInsights.Summary(ctx, &platform.QuerySummaryParams{Organization: org, Database: db, Branch: br, Fingerprint: lookup, Keyspace: trafficDB})
	if err != nil {
		t.Fatal(err)
	}
	if sum.QueryCount != 0 || sum.LastRunAt != nil || sum.P99Latency != 0 || sum.Fingerprint != lookup {
		t.Errorf("a summary of a quiet window: %+v", sum)
	}
}

// TestQueryStatisticsTagNames checks an execution's tags as both readers
// take them: the reference's objects (key, key_id, value, source) and the
// official client's name and value pairs, name being the key.
func TestQueryStatisticsTagNames(t *testing.T) {
	t.Parallel()
	srv, c := newTrafficServer(t)
	lookup, _ := insightsMix(t, srv)
	org, db, br := insightsOn(srv)
	runs := opCollect(t, c.QueryInsights.AllStatistics(t.Context(), &platform.QueryStatisticsParams{Organization: org, Database: db, Branch: br, Fingerprint: lookup, Keyspace: trafficDB}))
	var got []string
	for _, r := range runs {
		for _, tag := range r.Tags {
			if tag["name"] != tag["key"] {
				t.Errorf("tag %v: name %v, want its key", tag, tag["name"])
			}
			got = append(got, fmt.Sprintf("%v=%v %v %v", tag["name"], tag["value"], tag["key_id"], tag["source"]))
		}
	}
	slices.Sort(got)
	want := []string{"route=cart Sroute sql", "route=cart Sroute sql", "route=home Sroute sql", "route=home Sroute sql", "username=web Busername system"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tags (-want +got):\n%s", diff)
	}
}
