package fake_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
	"github.com/google/go-cmp/cmp"
)

// connEnv is a fake with a ready database db of kind, for the connections
// tests.
type connEnv struct {
	t   *testing.T
	srv *fake.Server
	c   *platform.Client
	db  string
}

func newConnEnv(t *testing.T, kind platform.DatabaseKind) *connEnv {
	t.Helper()
	srv := fake.NewServer(t)
	c := srv.Client()
	if _, err := c.Databases.Create(t.Context(), &platform.CreateDatabaseParams{Organization: srv.Org(), Name: "app", ClusterSize: "PS_10", Kind: kind}); err != nil {
		t.Fatal(err)
	}
	srv.Advance(5 * time.Second)
	return &connEnv{t: t, srv: srv, c: c, db: "app"}
}

// open opens a session on main.
func (e *connEnv) open(spec fake.SessionSpec) string {
	e.t.Helper()
	id, err := e.srv.OpenSession(e.srv.Org(), e.db, "main", spec)
	if err != nil {
		e.t.Fatal(err)
	}
	return id
}

// list lists main's connections with the target given.
func (e *connEnv) list(keyspace, shard string) (*platform.ConnectionList, error) {
	return e.c.Connections.List(e.t.Context(), &platform.ListConnectionsParams{Organization: e.srv.Org(), Database: e.db, Branch: "main", Keyspace: keyspace, Shard: shard})
}

// mustList lists main's connections.
func (e *connEnv) mustList() *platform.ConnectionList {
	e.t.Helper()
	l, err := e.list("", "")
	if err != nil {
		e.t.Fatal(err)
	}
	return l
}

// kill runs one of the three kills on main.
func (e *connEnv) kill(kind, id string) error {
	p := &platform.KillConnectionParams{Organization: e.srv.Org(), Database: e.db, Branch: "main", ID: id}
	switch kind {
	case "query":
		return e.c.Connections.KillQuery(e.t.Context(), p)
	case "transaction":
		return e.c.Connections.KillTransaction(e.t.Context(), p)
	}
	return e.c.Connections.KillConnection(e.t.Context(), p)
}

// connRow is what the tests compare of a listed connection.
type connRow struct {
	PID        int
	State      platform.ConnectionState
	Query      string
	DurationMS int64
	BlockedBy  []int
	HasQueryID bool
	HasXactID  bool
}

func connRows(l *platform.ConnectionList) []connRow {
	var out []connRow
	for _, c := range l.Connections {
		out = append(out, connRow{c.PID, c.State, c.QueryText, c.DurationMS, c.BlockedBy, c.QueryID != nil, c.TransactionID != nil})
	}
	return out
}

func TestConnectionsMySQLStatesFollowTheClock(t *testing.T) {
	t.Parallel()
	e := newConnEnv(t, platform.KindMySQL)
	e.open(fake.SessionSpec{User: "app", Host: "192.0.2.7:50123", Query: "select sleep(60)"})         // 100, until killed
	e.open(fake.SessionSpec{Query: "select count(*) from orders", QueryDuration: 3 * time.Second})    // 101, 3 s
	e.open(fake.SessionSpec{User: "idle", Started: e.srv.Now().Add(-time.Minute), Host: "192.0.2.8"}) // 102, sleeping a minute
	running := func(pid int, q string, ms int64) connRow {
		return connRow{PID: pid, State: platform.ConnectionQueryExecuting, Query: q, DurationMS: ms, BlockedBy: []int{}, HasQueryID: true}
	}
	sleeping := func(pid int, ms int64) connRow {
		return connRow{PID: pid, State: platform.ConnectionSleep, DurationMS: ms, BlockedBy: []int{}}
	}
	if diff := cmp.Diff([]connRow{running(100, "select sleep(60)", 0), running(101, "select count(*) from orders", 0), sleeping(102, 60_000)}, connRows(e.mustList())); diff != "" {
		t.Errorf("at open (-want +got):\n%s", diff)
	}
	e.srv.Advance(5 * time.Second)
	l := e.mustList()
	if diff := cmp.Diff([]connRow{running(100, "select sleep(60)", 5000), sleeping(101, 2000), sleeping(102, 65_000)}, connRows(l)); diff != "" {
		t.Errorf("5 s later (-want +got):\n%s", diff)
	}
	// What the tool reads: the tablet, its IDs (the process ID), the client.
	first := l.Connections[0]
	if l.DatabaseKind != platform.KindMySQL || l.Topology == nil || l.Topology.Keyspace != "app" || l.Topology.Shard != "-" || first.Instance != l.Topology.Tablet {
		t.Errorf("list = %+v, first %+v: want app's tablet app/- as every row's instance", l, first)
	}
	if *first.ConnectionID != "100" || *first.QueryID != "100" || first.TransactionID != nil || first.ClientAddr != "192.0.2.7:50123" || first.DatabaseName != "app" {
		t.Errorf("first = %+v", first)
	}
	if !l.CapturedAt.Equal(e.srv.Now()) {
		t.Errorf("captured_at = %v, want the clock's %v", l.CapturedAt, e.srv.Now())
	}
}

func TestConnectionsKills(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		kind platform.DatabaseKind
		// kill names the kill and which ID of the running session's it
		// takes; want is the running session's row after it (nil: gone).
		kill string
		want *connRow
	}{
		{"mysql query", platform.KindMySQL, "query", &connRow{PID: 100, State: platform.ConnectionSleep, BlockedBy: []int{}}},
		{"mysql connection", platform.KindMySQL, "connection", nil},
		{"postgres query", platform.KindPostgreSQL, "query", &connRow{PID: 100, State: platform.ConnectionIdleInTransactionAborted, Query: "update t set x = 1", BlockedBy: []int{}, HasXactID: true}},
		{"postgres transaction", platform.KindPostgreSQL, "transaction", nil},
		{"postgres connection", platform.KindPostgreSQL, "connection", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newConnEnv(t, tt.kind)
			e.open(fake.SessionSpec{Query: "update t set x = 1", InTransaction: tt.kind == platform.KindPostgreSQL})
			e.open(fake.SessionSpec{User: "other"})
			e.srv.Advance(time.Second)
			before := e.mustList()
			target := before.Connections[0]
			id := map[string]*string{"query": target.QueryID, "transaction": target.TransactionID, "connection": target.ConnectionID}[tt.kill]
			if err := e.kill(tt.kill, *id); err != nil {
				t.Fatal(err)
			}
			e.srv.Advance(2 * time.Second)
			after := connRows(e.mustList())
			want := []connRow{{PID: 101, State: map[platform.DatabaseKind]platform.ConnectionState{platform.KindMySQL: platform.ConnectionSleep, platform.KindPostgreSQL: platform.ConnectionIdle}[tt.kind], DurationMS: 3000, BlockedBy: []int{}}}
			if tt.want != nil {
				w := *tt.want
				w.DurationMS = 2000 // idle since the kill
				want = append([]connRow{w}, want...)
			}
			if diff := cmp.Diff(want, after); diff != "" {
				t.Errorf("after the kill (-want +got):\n%s", diff)
			}
			// The same ID again: the query or transaction has ended (422),
			// the connection is gone (404); neither changes anything.
			status := http.StatusUnprocessableEntity
			if tt.want == nil {
				status = http.StatusNotFound
			}
			apiError(t, e.kill(tt.kill, *id), status)
			if diff := cmp.Diff(after, connRows(e.mustList())); diff != "" {
				t.Errorf("a refused kill changed the list (-before +after):\n%s", diff)
			}
		})
	}
}

func TestConnectionsKillRefusals(t *testing.T) {
	t.Parallel()
	my := newConnEnv(t, platform.KindMySQL)
	my.open(fake.SessionSpec{User: "idle"})
	pg := newConnEnv(t, platform.KindPostgreSQL)
	pg.open(fake.SessionSpec{User: "idle"})
	pgConn := *pg.mustList().Connections[0].ConnectionID
	pg.open(fake.SessionSpec{User: "busy", Query: "select pg_sleep(60)", InTransaction: true})
	pg.srv.Advance(time.Second)
	var busy *platform.Connection
	for _, c := range pg.mustList().Connections {
		if c.QueryID != nil {
			busy = c
		}
	}
	pgXact, pgQuery := *busy.TransactionID, *busy.QueryID
	// notIDs are IDs the fake never gives: one it gives with more after
	// it, or its number in another form.
	notIDs := func(id string) []string {
		head, micros := id[:strings.LastIndex(id, "-")+1], id[strings.LastIndex(id, "-")+1:]
		return []string{id + "/x", id + "\x00", id + " ", id + "x", head + "0" + micros, head + "+" + micros, head + " " + micros, head}
	}
	type killRefusal struct {
		name   string
		e      *connEnv
		kill   string
		id     string
		status int
		words  []string
	}
	tests := []killRefusal{
		{"mysql query of a sleeping connection", my, "query", "100", http.StatusUnprocessableEntity, []string{"query 100", "ended"}},
		{"mysql unknown process", my, "connection", "999", http.StatusNotFound, nil},
		{"mysql not a process ID", my, "query", "abc", http.StatusNotFound, nil},
		{"mysql transaction", my, "transaction", "100", http.StatusUnprocessableEntity, []string{"postgresql", "mysql"}},
		{"postgres query of an idle connection", pg, "query", pgConn, http.StatusUnprocessableEntity, []string{"query", "ended"}},
		{"postgres transaction outside one", pg, "transaction", pgConn, http.StatusUnprocessableEntity, []string{"transaction", "ended"}},
		{"postgres forged connection ID", pg, "connection", pgConn + "1", http.StatusNotFound, nil},
		{"postgres unknown", pg, "connection", "nope", http.StatusNotFound, nil},
	}
	for _, k := range []struct{ kill, id string }{{"transaction", pgXact}, {"query", pgQuery}} {
		for _, bad := range notIDs(k.id) {
			tests = append(tests, killRefusal{"postgres " + k.kill + " " + strconv.Quote(bad), pg, k.kill, bad, http.StatusNotFound, nil})
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := tt.e.mustList()
			apiError(t, tt.e.kill(tt.kill, tt.id), tt.status, tt.words...)
			if diff := cmp.Diff(connRows(before), connRows(tt.e.mustList())); diff != "" {
				t.Errorf("a refused kill changed the list (-before +after):\n%s", diff)
			}
		})
	}
}

func TestConnectionsTargets(t *testing.T) {
	t.Parallel()
	e := newConnEnv(t, platform.KindMySQL)
	if err := e.srv.AddKeyspace(e.srv.Org(), e.db, "main", "sharded", 2); err != nil {
		t.Fatal(err)
	}
	e.open(fake.SessionSpec{Keyspace: "sharded", Shard: "80-", Query: "select 1"})
	tests := []struct {
		name            string
		keyspace, shard string
		words           []string
		want            *platform.TargetChoices
		pids            []int
	}{
		{name: "no keyspace", words: []string{"keyspace is required"}, want: &platform.TargetChoices{Keyspaces: []string{"app", "sharded"}}},
		{name: "unknown keyspace", keyspace: "nope", words: []string{`"nope"`}, want: &platform.TargetChoices{Keyspaces: []string{"app", "sharded"}}},
		{name: "sharded, no shard", keyspace: "sharded", words: []string{"shard is required"}, want: &platform.TargetChoices{Shards: []string{"-80", "80-"}}},
		{name: "unknown shard", keyspace: "sharded", shard: "-", words: []string{`"-"`}, want: &platform.TargetChoices{Shards: []string{"-80", "80-"}}},
		{name: "the session's tablet", keyspace: "sharded", shard: "80-", pids: []int{100}},
		{name: "another tablet", keyspace: "sharded", shard: "-80", pids: []int{}},
		{name: "unsharded keyspace", keyspace: "app", pids: []int{}},
	}
	t.Run("lists", func(t *testing.T) { // waits for its parallel cases
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				t.Parallel()
				l, err := e.list(tt.keyspace, tt.shard)
				procs, perr := e.c.Connections.ListProcesses(t.Context(), &platform.ListProcessesParams{Organization: e.srv.Org(), Database: e.db, Branch: "main", Keyspace: tt.keyspace, Shard: tt.shard})
				if tt.want != nil {
					for _, err := range []error{err, perr} {
						if diff := cmp.Diff(tt.want, apiError(t, err, http.StatusBadRequest, tt.words...).Available); diff != "" {
							t.Errorf("available (-want +got):\n%s", diff)
						}
					}
					return
				}
				if err != nil || perr != nil {
					t.Fatal(err, perr)
				}
				pids := []int{}
				for _, c := range l.Connections {
					pids = append(pids, c.PID)
					if c.Instance != l.Topology.Tablet {
						t.Errorf("instance %s, want the list's tablet %s", c.Instance, l.Topology.Tablet)
					}
				}
				if diff := cmp.Diff(tt.pids, pids); diff != "" {
					t.Errorf("pids (-want +got):\n%s", diff)
				}
				if procs.Tablet != l.Topology.Tablet || len(procs.Processes) != len(pids) {
					t.Errorf("process list %+v, want the connection list's tablet %s and %d processes", procs, l.Topology.Tablet, len(pids))
				}
			})
		}
	})
	// A kill names its session's tablet: on another one the ID is unknown.
	kill := func(shard string) error {
		return e.c.Connections.KillConnection(t.Context(), &platform.KillConnectionParams{Organization: e.srv.Org(), Database: e.db, Branch: "main", ID: "100", Keyspace: "sharded", Shard: shard})
	}
	apiError(t, kill("-80"), http.StatusNotFound)
	if err := kill("80-"); err != nil {
		t.Fatal(err)
	}
	// A PostgreSQL branch has no keyspace or shard to name.
	pg := newConnEnv(t, platform.KindPostgreSQL)
	_, err := pg.list("app", "")
	apiError(t, err, http.StatusBadRequest, "keyspace and shard are for mysql")
}

func TestConnectionsPostgresInstancesAndLocks(t *testing.T) {
	t.Parallel()
	e := newConnEnv(t, platform.KindPostgreSQL)
	blocker := e.open(fake.SessionSpec{Application: "psql", Host: "192.0.2.9:5000", Query: "update t set x = 1", QueryDuration: time.Second, InTransaction: true})
	e.open(fake.SessionSpec{Query: "update t set x = 2", BlockedBy: blocker})
	e.srv.Advance(2 * time.Second)
	l := e.mustList()
	if l.Topology != nil || len(l.Instances) == 0 || l.Instances[0].Role != "primary" {
		t.Errorf("instances %+v, topology %+v: want the primary first and no topology", l.Instances, l.Topology)
	}
	want := []connRow{
		{PID: 100, State: platform.ConnectionIdleInTransaction, Query: "update t set x = 1", DurationMS: 1000, BlockedBy: []int{}, HasXactID: true},
		{PID: 101, State: platform.ConnectionActive, Query: "update t set x = 2", DurationMS: 2000, BlockedBy: []int{100}, HasQueryID: true},
	}
	if diff := cmp.Diff(want, connRows(l)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	first, second := l.Connections[0], l.Connections[1]
	if first.ClientAddr != "192.0.2.9" || first.ApplicationName != "psql" || *second.WaitEventType != "Lock" || first.Instance != l.Instances[0].ID {
		t.Errorf("first %+v, second %+v", first, second)
	}
	// Killing the blocker's transaction terminates it, which frees the lock.
	if err := e.kill("transaction", *first.TransactionID); err != nil {
		t.Fatal(err)
	}
	want = []connRow{{PID: 101, State: platform.ConnectionActive, Query: "update t set x = 2", DurationMS: 2000, BlockedBy: []int{}, HasQueryID: true}}
	if diff := cmp.Diff(want, connRows(e.mustList())); diff != "" {
		t.Errorf("after the kill (-want +got):\n%s", diff)
	}
}

func TestConnectionsFromRecordedTraffic(t *testing.T) {
	t.Parallel()
	e := newConnEnv(t, platform.KindMySQL)
	now := e.srv.Now()
	app := map[string]string{"username": "web", "remote_address": "192.0.2.5"}
	record := func(samples ...fake.QuerySample) {
		t.Helper()
		if err := e.srv.RecordQueries(e.srv.Org(), e.db, "main", samples...); err != nil {
			t.Fatal(err)
		}
	}
	record(
		fake.QuerySample{SQL: "select 1", Tags: app, Time: now.Add(-time.Minute), Duration: time.Millisecond},
		fake.QuerySample{SQL: "select * from big", Tags: app, Time: now.Add(-time.Second), Duration: 10 * time.Second}, // still running
		fake.QuerySample{SQL: "select 2", Tags: map[string]string{"username": "batch"}, Time: now.Add(-9 * time.Hour)}, // long closed
		fake.QuerySample{SQL: "select 3", Tags: map[string]string{"username": "cron"}, Time: now.Add(-time.Hour), Duration: time.Second},
	)
	want := []connRow{
		{PID: 100, State: platform.ConnectionQueryExecuting, Query: "select * from big", DurationMS: 1000, BlockedBy: []int{}, HasQueryID: true},
		{PID: 101, State: platform.ConnectionSleep, DurationMS: (time.Hour - time.Second).Milliseconds(), BlockedBy: []int{}},
	}
	l := e.mustList()
	if diff := cmp.Diff(want, connRows(l)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if c := l.Connections[0]; c.Username != "web" || c.ClientAddr != "192.0.2.5" || !c.BackendStart.Equal(now.Add(-time.Minute)) {
		t.Errorf("web's session %+v: want its user, address and first sample's time", c)
	}
	// The query ends on the clock; the session idles, then closes after
	// SessionIdleTimeout.
	e.srv.Advance(10 * time.Second)
	if got := connRows(e.mustList())[0]; got.State != platform.ConnectionSleep || got.DurationMS != 1000 {
		t.Errorf("web's session after its query = %+v, want sleeping for 1 s", got)
	}
	e.srv.Advance(fake.SessionIdleTimeout - time.Hour)
	if rows := connRows(e.mustList()); len(rows) != 1 || rows[0].PID != 100 {
		t.Errorf("after cron's timeout = %+v, want web's session only", rows)
	}
	// A killed connection's client comes back on a new one.
	if err := e.kill("connection", "100"); err != nil {
		t.Fatal(err)
	}
	record(fake.QuerySample{SQL: "select 4", Tags: app, Duration: 5 * time.Second})
	if rows := connRows(e.mustList()); len(rows) != 1 || rows[0].PID != 102 || rows[0].Query != "select 4" {
		t.Errorf("after the kill and a new sample = %+v, want web on a new session 102", rows)
	}
}

func TestProcessList(t *testing.T) {
	t.Parallel()
	e := newConnEnv(t, platform.KindMySQL)
	e.open(fake.SessionSpec{User: "app", Host: "192.0.2.7:50123", Query: "select sleep(60)"})
	e.open(fake.SessionSpec{User: "idle"})
	e.srv.Advance(3 * time.Second)
	branch := func() (string, string, string) { return e.srv.Org(), e.db, "main" }
	org, db, br := branch()
	l, err := e.c.Connections.ListProcesses(t.Context(), &platform.ListProcessesParams{Organization: org, Database: db, Branch: br})
	if err != nil {
		t.Fatal(err)
	}
	want := []*platform.Process{
		{ID: 100, User: "app", Host: "192.0.2.7:50123", DB: "app", Command: "Query", Time: 3, State: "executing", Info: "select sleep(60)"},
		{ID: 101, User: "idle", DB: "app", Command: "Sleep", Time: 3},
	}
	if diff := cmp.Diff(want, l.Processes); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	kill := func(id int64, kind platform.ProcessKind) (*platform.KillProcessResult, error) {
		return e.c.Connections.KillProcess(t.Context(), &platform.KillProcessParams{Organization: org, Database: db, Branch: br, ID: id, Kind: kind})
	}
	res, err := kill(100, platform.ProcessQuery)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&platform.KillProcessResult{Success: true, Keyspace: "app", Shard: "-", Tablet: l.Tablet, ID: 100, Kind: platform.ProcessQuery}, res); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
	for _, tt := range []struct {
		id     int64
		kind   platform.ProcessKind
		status int
		words  []string
	}{
		{100, platform.ProcessQuery, http.StatusUnprocessableEntity, []string{"ended"}},
		{999, "", http.StatusNotFound, nil},
		{101, "session", http.StatusUnprocessableEntity, []string{"kind", `"session"`}},
	} {
		_, err := kill(tt.id, tt.kind)
		apiError(t, err, tt.status, tt.words...)
	}
	// A target that is none: the kills name it (a 400 offering the
	// targets, as the list does), and kill nothing.
	_, err = e.c.Connections.KillProcess(t.Context(), &platform.KillProcessParams{Organization: org, Database: db, Branch: br, ID: 101, Keyspace: "nope"})
	apiError(t, err, http.StatusBadRequest, `"nope"`)
	err = e.c.Connections.KillConnection(t.Context(), &platform.KillConnectionParams{Organization: org, Database: db, Branch: br, ID: "101", Keyspace: "app", Shard: "-80"})
	apiError(t, err, http.StatusBadRequest, `"-80"`)
	if got, err := e.c.Connections.ListProcesses(t.Context(), &platform.ListProcessesParams{Organization: org, Database: db, Branch: br}); err != nil || len(got.Processes) != 2 {
		t.Fatalf("after refused kills: %+v, %v; want both processes", got, err)
	}
	res, err = kill(101, "")
	if err != nil || res.Kind != platform.ProcessConnection {
		t.Fatalf("kill 101 = %+v, %v; want its connection killed", res, err)
	}
	l, err = e.c.Connections.ListProcesses(t.Context(), &platform.ListProcessesParams{Organization: org, Database: db, Branch: br})
	if err != nil {
		t.Fatal(err)
	}
	want = []*platform.Process{{ID: 100, User: "app", Host: "192.0.2.7:50123", DB: "app", Command: "Sleep"}}
	if diff := cmp.Diff(want, l.Processes); diff != "" {
		t.Errorf("after the kills (-want +got):\n%s", diff)
	}
	// A body the SDK would not send: a process ID of 0 names the field.
	r := send(t, e.srv, "POST", "/v1/organizations/"+org+"/databases/app/branches/main/processlist/kill", admin(e.srv), `{"id":0}`)
	if r.status != http.StatusUnprocessableEntity {
		t.Errorf("id 0: %d %s, want 422", r.status, r.body)
	}
	// PostgreSQL has no process list.
	pg := newConnEnv(t, platform.KindPostgreSQL)
	_, err = pg.c.Connections.ListProcesses(t.Context(), &platform.ListProcessesParams{Organization: pg.srv.Org(), Database: pg.db, Branch: "main"})
	apiError(t, err, http.StatusUnprocessableEntity, "mysql")
}

func TestOpenSessionRefusals(t *testing.T) {
	t.Parallel()
	my := newConnEnv(t, platform.KindMySQL)
	pg := newConnEnv(t, platform.KindPostgreSQL)
	later := my.srv.Now().Add(time.Hour)
	idle := pg.open(fake.SessionSpec{}) // in no transaction: it holds no lock
	if _, err := my.c.Branches.Create(t.Context(), &platform.CreateBranchParams{Organization: my.srv.Org(), Database: my.db, Name: "dev", ParentBranch: "main"}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		e      *connEnv
		branch string
		spec   fake.SessionSpec
		says   string
	}{
		{"started after now", my, "main", fake.SessionSpec{Started: later}, "the Started"},
		{"query started after now", my, "main", fake.SessionSpec{Query: "select 1", QueryStarted: later}, "the QueryStarted"},
		{"negative duration", my, "main", fake.SessionSpec{Query: "select 1", QueryDuration: -time.Second}, "the QueryDuration -1s is negative"},
		{"duration without a query", my, "main", fake.SessionSpec{QueryDuration: time.Second}, "need a Query"},
		{"blank user", my, "main", fake.SessionSpec{User: "  "}, "the User is blank"},
		{"bad host", my, "main", fake.SessionSpec{Host: "not-an-ip"}, "not-an-ip"},
		{"unknown keyspace", my, "main", fake.SessionSpec{Keyspace: "nope"}, "nope"},
		{"unknown shard", my, "main", fake.SessionSpec{Shard: "-80"}, "-80"},
		{"instance on mysql", my, "main", fake.SessionSpec{Instance: "x"}, "are for postgresql sessions"},
		{"transaction on mysql", my, "main", fake.SessionSpec{InTransaction: true}, "are for postgresql sessions"},
		{"branch not ready", my, "dev", fake.SessionSpec{}, "branch dev is not ready yet"},
		{"keyspace on postgres", pg, "main", fake.SessionSpec{Keyspace: "app"}, "are for mysql sessions"},
		{"unknown instance", pg, "main", fake.SessionSpec{Instance: "nope"}, "nope"},
		{"unknown blocker", pg, "main", fake.SessionSpec{Query: "select 1", BlockedBy: "nope"}, `the BlockedBy "nope" is not a session`},
		{"blocker in no transaction", pg, "main", fake.SessionSpec{Query: "select 1", BlockedBy: idle}, "is in no transaction, so holds no lock"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(tt.e.mustList().Connections)
			if _, err := tt.e.srv.OpenSession(tt.e.srv.Org(), tt.e.db, tt.branch, tt.spec); err == nil || !strings.Contains(err.Error(), tt.says) {
				t.Fatalf("OpenSession(%+v) = %v, want an error saying %q", tt.spec, err, tt.says)
			}
			if n := len(tt.e.mustList().Connections); n != before {
				t.Errorf("%d sessions after a refusal, want %d", n, before)
			}
		})
	}
	if _, err := my.srv.OpenSession(my.srv.Org(), "nope", "main", fake.SessionSpec{}); err == nil {
		t.Error("OpenSession on an unknown database = nil error")
	}
}

func TestControlOpenSession(t *testing.T) {
	t.Parallel()
	e := newConnEnv(t, platform.KindMySQL)
	path := "/_fake/organizations/" + e.srv.Org() + "/databases/app/branches/main/sessions"
	r := send(t, e.srv, "POST", path, admin(e.srv), `{"user":"app","query":"select 1","query_duration":"30s"}`)
	if r.status != http.StatusCreated {
		t.Fatalf("%d %s", r.status, r.body)
	}
	for body, status := range map[string]int{
		`{"query_duration":"soon"}`: http.StatusBadRequest,
		`{"keyspace":"nope"}`:       http.StatusUnprocessableEntity,
		`{"nope":1}`:                http.StatusBadRequest,
	} {
		if r := send(t, e.srv, "POST", path, admin(e.srv), body); r.status != status {
			t.Errorf("%s: %d %s, want %d", body, r.status, r.body, status)
		}
	}
	e.srv.Advance(10 * time.Second)
	want := []connRow{{PID: 100, State: platform.ConnectionQueryExecuting, Query: "select 1", DurationMS: 10_000, BlockedBy: []int{}, HasQueryID: true}}
	if diff := cmp.Diff(want, connRows(e.mustList())); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestConnectionsEndWithTheirServer takes each way a session's server, or
// its blocker, goes away: the session ends with it (or stops being
// blocked), the list no longer shows it, and the snapshot of that state
// restores to the same connections.
func TestConnectionsEndWithTheirServer(t *testing.T) {
	t.Parallel()
	tm := fake.DefaultTimings()
	changeRun := tm.BranchChangeStart + tm.BranchChangeRun
	tests := []struct {
		name string
		kind platform.DatabaseKind
		// run opens sessions and takes their server (or blocker) away; it
		// returns the branch and what its sessions must no longer name.
		run  func(t *testing.T, e *connEnv) (branch, gone string)
		want []connRow // what stays, on the branch run returns
	}{
		{
			name: "replica removed by a change request", kind: platform.KindPostgreSQL,
			run: func(t *testing.T, e *connEnv) (string, string) {
				e.branch("dev")
				e.replicas("dev", 1)
				e.srv.Advance(changeRun)
				replica := e.instances("dev")[1]
				e.openOn("dev", fake.SessionSpec{Instance: replica, Query: "select 1"})
				e.openOn("dev", fake.SessionSpec{Query: "select 2"})
				e.replicas("dev", 0)
				e.srv.Advance(changeRun)
				return "dev", replica
			},
			want: []connRow{{PID: 101, State: platform.ConnectionActive, Query: "select 2", DurationMS: changeRun.Milliseconds(), BlockedBy: []int{}, HasQueryID: true}},
		},
		{
			name: "replicas removed by a demotion", kind: platform.KindPostgreSQL,
			run: func(t *testing.T, e *connEnv) (string, string) {
				e.branch("stage")
				if _, err := e.c.Branches.Promote(t.Context(), &platform.PromoteBranchParams{Organization: e.srv.Org(), Database: e.db, Branch: "stage"}); err != nil {
					t.Fatal(err)
				}
				replica := e.instances("stage")[2]
				e.openOn("stage", fake.SessionSpec{Instance: replica, InTransaction: true})
				if _, err := e.c.Branches.Demote(t.Context(), &platform.DemoteBranchParams{Organization: e.srv.Org(), Database: e.db, Branch: "stage"}); err != nil {
					t.Fatal(err)
				}
				return "stage", replica
			},
		},
		{
			name: "keyspace deleted", kind: platform.KindMySQL,
			run: func(t *testing.T, e *connEnv) (string, string) {
				if _, err := e.c.Keyspaces.Create(t.Context(), &platform.CreateKeyspaceParams{Organization: e.srv.Org(), Database: e.db, Branch: "main", Name: "ks2", ClusterSize: "PS_10", Shards: platform.Ptr(2)}); err != nil {
					t.Fatal(err)
				}
				e.srv.Advance(tm.KeyspaceReady)
				e.open(fake.SessionSpec{Keyspace: "ks2", Shard: "80-", Query: "select 1"})
				if err := e.c.Keyspaces.Delete(t.Context(), &platform.DeleteKeyspaceParams{Organization: e.srv.Org(), Database: e.db, Branch: "main", Keyspace: "ks2"}); err != nil {
					t.Fatal(err)
				}
				return "main", "ks2"
			},
		},
		{
			name: "instance restarted by a switchover", kind: platform.KindPostgreSQL,
			run: func(t *testing.T, e *connEnv) (string, string) {
				e.branch("dev") // one instance: a switchover restarts it
				instance := e.instances("dev")[0]
				e.openOn("dev", fake.SessionSpec{Query: "select 1"})
				if _, err := e.c.Switchovers.Create(t.Context(), &platform.CreateSwitchoverParams{Organization: e.srv.Org(), Database: e.db, Branch: "dev"}); err != nil {
					t.Fatal(err)
				}
				e.srv.Advance(tm.SwitchoverStart)
				return "dev", instance
			},
		},
		{
			name: "blocker's connection killed", kind: platform.KindPostgreSQL,
			run: func(t *testing.T, e *connEnv) (string, string) {
				blocker := e.open(fake.SessionSpec{InTransaction: true})
				e.open(fake.SessionSpec{Query: "update t set a = 1", BlockedBy: blocker})
				if err := e.kill("connection", *e.mustList().Connections[0].ConnectionID); err != nil {
					t.Fatal(err)
				}
				return "main", blocker
			},
			want: []connRow{{PID: 101, State: platform.ConnectionActive, Query: "update t set a = 1", BlockedBy: []int{}, HasQueryID: true}},
		},
		{
			name: "blocker's transaction killed", kind: platform.KindPostgreSQL,
			run: func(t *testing.T, e *connEnv) (string, string) {
				blocker := e.open(fake.SessionSpec{InTransaction: true})
				e.open(fake.SessionSpec{Query: "update t set a = 1", BlockedBy: blocker})
				if err := e.kill("transaction", *e.mustList().Connections[0].TransactionID); err != nil {
					t.Fatal(err)
				}
				return "main", blocker
			},
			want: []connRow{{PID: 101, State: platform.ConnectionActive, Query: "update t set a = 1", BlockedBy: []int{}, HasQueryID: true}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newConnEnv(t, tt.kind)
			branch, gone := tt.run(t, e)
			list := e.listOn(branch)
			for _, c := range list.Connections {
				if c.Instance == gone || c.DatabaseName == gone {
					t.Errorf("connection %d is still on %s, which is gone", c.PID, gone)
				}
			}
			if diff := cmp.Diff(tt.want, connRows(list)); diff != "" {
				t.Errorf("connections (-want +got):\n%s", diff)
			}
			snap, err := e.srv.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			restored := &connEnv{t: t, srv: fake.NewServer(t), db: e.db}
			if err := restored.srv.Restore(snap); err != nil {
				t.Fatalf("Restore of the fake's own snapshot: %v", err)
			}
			restored.c = restored.srv.Client()
			if diff := cmp.Diff(connRows(list), connRows(restored.listOn(branch))); diff != "" {
				t.Errorf("restored connections (-before +after):\n%s", diff)
			}
		})
	}
}

// branch creates a branch of e's database from main and waits until it is
// ready.
func (e *connEnv) branch(name string) {
	e.t.Helper()
	if _, err := e.c.Branches.Create(e.t.Context(), &platform.CreateBranchParams{Organization: e.srv.Org(), Database: e.db, Name: name, ParentBranch: "main"}); err != nil {
		e.t.Fatal(err)
	}
	e.srv.Advance(fake.DefaultTimings().BranchReady)
}

// replicas asks for n replicas on a PostgreSQL branch of e's database.
func (e *connEnv) replicas(branch string, n int) {
	e.t.Helper()
	if _, err := e.c.BranchChanges.UpdateChange(e.t.Context(), &platform.UpdateBranchChangeRequestParams{Organization: e.srv.Org(), Database: e.db, Branch: branch, Replicas: platform.Ptr(n)}); err != nil {
		e.t.Fatal(err)
	}
}

// instances names the PostgreSQL instances of a branch, primary first.
func (e *connEnv) instances(branch string) []string {
	var out []string
	for _, in := range e.listOn(branch).Instances {
		out = append(out, in.ID)
	}
	return out
}

// openOn opens a session on a branch of e's database.
func (e *connEnv) openOn(branch string, spec fake.SessionSpec) {
	e.t.Helper()
	if _, err := e.srv.OpenSession(e.srv.Org(), e.db, branch, spec); err != nil {
		e.t.Fatal(err)
	}
}

// listOn lists the connections of a branch of e's database (a MySQL one:
// of its default keyspace's first shard).
func (e *connEnv) listOn(branch string) *platform.ConnectionList {
	e.t.Helper()
	l, err := e.c.Connections.List(e.t.Context(), &platform.ListConnectionsParams{Organization: e.srv.Org(), Database: e.db, Branch: branch})
	if err != nil {
		e.t.Fatal(err)
	}
	return l
}
