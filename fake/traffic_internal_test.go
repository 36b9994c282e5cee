package fake

import (
	"testing"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/google/go-cmp/cmp"
)

// TestQueryFingerprint: the same query written differently has one
// fingerprint, another query another; errors that differ in their
// literals only have one.
func TestQueryFingerprint(t *testing.T) {
	t.Parallel()
	a, _ := QueryFingerprint("SELECT * FROM users WHERE id = 1")
	b, _ := QueryFingerprint("select *   from users\nwhere id=99")
	c, _ := QueryFingerprint("SELECT * FROM users WHERE email = 'x'")
	if a != b || a == c {
		t.Errorf("fingerprints %s %s %s: want the first two equal and the third different", a, b, c)
	}
	if e1, e2 := errorFingerprint("Duplicate entry '7' for key 'PRIMARY'"), errorFingerprint("Duplicate entry '9' for key 'PRIMARY'"); e1 != e2 {
		t.Errorf("error fingerprints differ with the literals only: %s %s", e1, e2)
	}
}

// trafficMix records a known mix on acme/app/main: three runs of a lookup
// (two tagged route=home, one on a replica), one failed insert, one of
// them an hour earlier, and returns the branch.
func trafficMix(t *testing.T, srv *Server) *branchRec {
	t.Helper()
	now := srv.Now()
	ms := time.Millisecond
	err := srv.RecordQueries("acme", "app", "main",
		QuerySample{SQL: "SELECT * FROM users WHERE id = 1", RowsRead: 1, RowsReturned: 1, Duration: 10 * ms, Tags: map[string]string{"route": "home"}, Time: now.Add(-time.Hour)},
		QuerySample{SQL: "SELECT * FROM users WHERE id = 2", RowsRead: 2, RowsReturned: 1, Duration: 20 * ms, Tags: map[string]string{"route": "home", "username": "app"}},
		QuerySample{SQL: "select * from users where id = 3", RowsRead: 3, RowsReturned: 0, Duration: 90 * ms, TabletType: platform.TabletReplica, ShardQueries: 4},
		QuerySample{SQL: "INSERT INTO orders (id) VALUES (1)", RowsAffected: 0, Duration: 5 * ms, Error: "Duplicate entry '1' for key 'PRIMARY'", ErrorCode: "1062"},
	)
	if err != nil {
		t.Fatal(err)
	}
	return srv.world.orgs["acme"].dbByName["app"].branch("main")
}

func newTrafficServer(t *testing.T, opts ...Option) *Server {
	t.Helper()
	srv := NewServer(t, opts...)
	if _, err := srv.Client().Databases.Create(t.Context(), &platform.CreateDatabaseParams{Organization: "acme", Name: "app", ClusterSize: "PS_10"}); err != nil {
		t.Fatal(err)
	}
	srv.Advance(2 * time.Hour)
	return srv
}

func TestTrafficAggregation(t *testing.T) {
	t.Parallel()
	srv := newTrafficServer(t)
	b := trafficMix(t, srv)
	tr := b.traffic
	lookup, _ := QueryFingerprint("SELECT * FROM users WHERE id = ?")
	insert, _ := QueryFingerprint("INSERT INTO orders (id) VALUES (?)")
	ms := time.Millisecond

	type row struct {
		Count, Errors              int
		Read, Returned, Affected   int64
		Shards                     int64
		MaxShards                  int
		Total, P50, P99, Max, Mean time.Duration
	}
	rowOf := func(st *trafficStats) row {
		if st == nil {
			return row{}
		}
		return row{st.count, st.errors, st.rowsRead, st.rowsReturned, st.rowsAffected, st.shardQueries, st.maxShards,
			st.total, st.percentile(50), st.percentile(99), st.maxDuration(), st.mean()}
	}
	lookupRow := row{3, 0, 6, 2, 0, 6, 4, 120 * ms, 20 * ms, 90 * ms, 90 * ms, 40 * ms}
	insertRow := row{1, 1, 0, 0, 0, 1, 1, 5 * ms, 5 * ms, 5 * ms, 5 * ms, 5 * ms}

	byPattern := map[string]row{}
	for p, st := range tr.byPattern(trafficFilter{}) {
		byPattern[p.keyspace+"/"+p.fingerprint+" "+p.statement+" "+p.normalized] = rowOf(st)
	}
	want := map[string]row{
		"app/" + lookup + " SELECT SELECT * FROM users WHERE id = ?":   lookupRow,
		"app/" + insert + " INSERT INSERT INTO orders (id) VALUES (?)": insertRow,
	}
	if diff := cmp.Diff(want, byPattern); diff != "" {
		t.Errorf("byPattern (-want +got):\n%s", diff)
	}

	tags := map[string]int{}
	for tg, st := range tr.byTag(trafficFilter{}) {
		tags[tg.key+"="+tg.value] = st.count
	}
	if diff := cmp.Diff(map[string]int{"route=home": 2, "username=app": 1, "query_fingerprint=" + lookup: 3, "query_fingerprint=" + insert: 1}, tags); diff != "" {
		t.Errorf("byTag (-want +got):\n%s", diff)
	}

	tables := map[trafficTable]row{}
	for tb, st := range tr.byTable(trafficFilter{}) {
		tables[tb] = rowOf(st)
	}
	if diff := cmp.Diff(map[trafficTable]row{{"app", "users"}: lookupRow, {"app", "orders"}: insertRow}, tables); diff != "" {
		t.Errorf("byTable (-want +got):\n%s", diff)
	}

	errs := map[string]int{}
	for fp, st := range tr.byError(trafficFilter{}) {
		errs[fp] = st.errors
	}
	if diff := cmp.Diff(map[string]int{errorFingerprint("Duplicate entry '5' for key 'PRIMARY'"): 1}, errs); diff != "" {
		t.Errorf("byError (-want +got):\n%s", diff)
	}

	// Filters: the window [now-30m, now+1s) leaves out the hour-old run;
	// the others select by what they name.
	now := srv.Now()
	for _, tc := range []struct {
		name string
		f    trafficFilter
		want int
	}{
		{"window", trafficFilter{from: now.Add(-30 * time.Minute), to: now.Add(time.Second)}, 3},
		{"window ends before now", trafficFilter{to: now}, 1},
		{"fingerprint", trafficFilter{fingerprint: insert}, 1},
		{"keyspace", trafficFilter{keyspace: "app"}, 4},
		{"other keyspace", trafficFilter{keyspace: "nope"}, 0},
		{"statement", trafficFilter{statement: "SELECT"}, 3},
		{"tablet", trafficFilter{tablet: platform.TabletReplica}, 1},
		{"table", trafficFilter{table: "orders"}, 1},
		{"tag", trafficFilter{tags: []trafficTag{{"route", "home"}}}, 2},
		{"two tags", trafficFilter{tags: []trafficTag{{"route", "home"}, {"username", "app"}}}, 1},
		{"fingerprint tag", trafficFilter{tags: []trafficTag{{"query_fingerprint", lookup}}}, 3},
		{"errors", trafficFilter{errors: true}, 1},
		{"error fingerprint", trafficFilter{errorFingerprint: errorFingerprint("Duplicate entry '1' for key 'PRIMARY'")}, 1},
		{"other error fingerprint", trafficFilter{errorFingerprint: "0000000000000000"}, 0},
	} {
		if got := tr.stats(tc.f).count; got != tc.want {
			t.Errorf("%s: %d samples, want %d", tc.name, got, tc.want)
		}
		if got := len(tr.selectSamples(tc.f)); got != tc.want {
			t.Errorf("%s: selectSamples gives %d, want %d", tc.name, got, tc.want)
		}
	}

	// Buckets of an hour over the last two hours: the old run, then the
	// three recorded now in the bucket that holds now.
	var counts []int
	var starts []time.Time
	for _, bk := range tr.byBucket(trafficFilter{}, now.Add(-2*time.Hour), now.Add(time.Second), time.Hour) {
		counts = append(counts, bk.stats.count)
		starts = append(starts, bk.start)
	}
	start := now.Add(-2 * time.Hour).Truncate(time.Hour)
	if diff := cmp.Diff([]int{0, 1, 3}, counts); diff != "" {
		t.Errorf("byBucket counts (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]time.Time{start, start.Add(time.Hour), start.Add(2 * time.Hour)}, starts); diff != "" {
		t.Errorf("byBucket starts (-want +got):\n%s", diff)
	}
	if got := tr.byBucket(trafficFilter{}, now, now, time.Hour); got != nil {
		t.Errorf("byBucket of an empty window: %v, want none", got)
	}

	// No traffic is no samples, whatever the view.
	var none *branchTraffic
	if st := none.stats(trafficFilter{}); st.count != 0 || st.percentile(99) != 0 || st.mean() != 0 {
		t.Errorf("nil traffic: %+v", st)
	}
	if got := len(none.byPattern(trafficFilter{})); got != 0 || none.sample("x") != nil || none.pattern("app", lookup) != nil {
		t.Errorf("nil traffic has %d patterns", got)
	}
	for _, bk := range none.byBucket(trafficFilter{}, now.Add(-time.Hour), now, 15*time.Minute) {
		if bk.stats.count != 0 {
			t.Errorf("nil traffic: bucket %v has %d samples", bk.start, bk.stats.count)
		}
	}
}

func TestTrafficPercentiles(t *testing.T) {
	t.Parallel()
	st := &trafficStats{}
	for i := 100; i >= 1; i-- {
		st.add(&querySample{pattern: &queryPattern{}, duration: time.Duration(i) * time.Millisecond})
	}
	for p, want := range map[float64]time.Duration{50: 50 * time.Millisecond, 99: 99 * time.Millisecond, 100: 100 * time.Millisecond, 0.1: time.Millisecond} {
		if got := st.percentile(p); got != want {
			t.Errorf("p%v = %v, want %v", p, got, want)
		}
	}
}

func TestRecordQueriesKeepsTheLastSamples(t *testing.T) {
	t.Parallel()
	srv := newTrafficServer(t, WithQuerySampleLimit(3))
	b := trafficMix(t, srv) // four samples: the first is dropped
	tr := b.traffic
	lookup, _ := QueryFingerprint("SELECT * FROM users WHERE id = ?")
	if got := len(tr.all()); got != 3 {
		t.Fatalf("%d samples kept, want 3", got)
	}
	if got := tr.pattern("app", lookup).samples; got != 2 {
		t.Errorf("the lookup has %d samples, want 2", got)
	}
	if got := tr.stats(trafficFilter{}).count; got != 3 || len(tr.byID) != 3 {
		t.Errorf("%d samples counted, %d by ID; want 3", got, len(tr.byID))
	}
	// Three more inserts drop every lookup, and the lookup with them.
	ins := QuerySample{SQL: "INSERT INTO orders (id) VALUES (2)"}
	if err := srv.RecordQueries("acme", "app", "main", ins, ins, ins); err != nil {
		t.Fatal(err)
	}
	if p := tr.pattern("app", lookup); p != nil || len(tr.patterns) != 1 || len(tr.all()) != 3 {
		t.Errorf("after the inserts: lookup %v, %d patterns, %d samples; want none, 1, 3", p, len(tr.patterns), len(tr.all()))
	}
	if _, err := New(WithQuerySampleLimit(0)); err == nil {
		t.Error("WithQuerySampleLimit(0) is accepted")
	}
}
