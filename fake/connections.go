package fake

import (
	"cmp"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dbplatform/platform-go"
)

// A branch's live connections (sessions). The fake runs no database, so a
// branch has the sessions a test opens ([Server.OpenSession], or POST
// /_fake/.../sessions) and those its recorded traffic implies
// ([Server.RecordQueries]):
//
//   - the samples of one client (the same username and remote_address
//     tags, keyspace and kind of server) share one session, opened at its
//     first sample; the session runs the query of its latest sample while
//     that sample's Time+Duration is after the clock's now, and sleeps
//     (MySQL) or is idle (PostgreSQL) afterwards, showing that query as
//     its last (PostgreSQL only);
//   - such a session closes once it has been idle for [SessionIdleTimeout],
//     as a server closes a connection idle past its wait timeout; one a
//     test opened stays until it is killed or its branch is deleted.
//
// What a session shows is computed from the clock when it is read: its
// state, its durations, whether a lock still blocks it. A kill changes it
// at once and the next list shows it: killing a query leaves the
// connection idle (a PostgreSQL one inside a transaction: "idle in
// transaction (aborted)"), killing a transaction terminates the connection
// that holds it (as the command-line tool's kill-transaction does),
// killing a connection removes it. Kills do not change the recorded
// traffic: insights still count the killed query's sample as recorded.
//
// A session ends with what it points at: the sessions on a PostgreSQL
// instance that a change of the replicas removes, or on a MySQL keyspace
// deleted, end with it; a session that ends (killed, or with its server)
// releases its locks, so the queries it blocked are blocked no more.

// SessionIdleTimeout is how long a session that recorded traffic implied
// stays open once idle (MySQL's default wait_timeout).
const SessionIdleTimeout = 8 * time.Hour

// maxSessionsPerBranch bounds a branch's open sessions, as a server bounds
// its connections.
const maxSessionsPerBranch = 10_000

// firstPID is the process ID of a branch's first session.
const firstPID = 100

// SessionSpec describes a session for [Server.OpenSession]. Every field
// may be left zero.
type SessionSpec struct {
	// User is the database user; "app" when empty.
	User string
	// Host is the client's address (an IP address, with or without a
	// port); "" for a local client.
	Host string
	// Application is the client's application_name (PostgreSQL).
	Application string
	// Instance is the PostgreSQL instance it is connected to, named as the
	// branch's infrastructure names it; "" for the primary. Not for MySQL.
	Instance string
	// Keyspace and Shard are the MySQL keyspace and shard whose primary
	// tablet it is connected to; "" for the default keyspace and for its
	// first shard. Not for PostgreSQL.
	Keyspace, Shard string
	// Query is the query it runs; "" for an idle session.
	Query string
	// QueryDuration is how long Query runs from its start; 0 until it is
	// killed.
	QueryDuration time.Duration
	// QueryStarted is when Query started; zero for Started. It must not be
	// before Started nor after the clock's now.
	QueryStarted time.Time
	// InTransaction opens a transaction at Started (PostgreSQL only).
	InTransaction bool
	// BlockedBy is the ID of another session of the branch whose
	// transaction holds a lock Query waits for (PostgreSQL only): Query
	// is blocked as long as that session is in its transaction.
	BlockedBy string
	// Started is when the session connected; zero for the clock's now. It
	// must not be after now.
	Started time.Time
}

// sessionRec is a live connection of a branch.
type sessionRec struct {
	id       string // the fake's own, as OpenSession returns it
	pid      int
	instance int    // PostgreSQL: the instance, see postgresInstanceName
	keyspace string // MySQL: the keyspace and shard whose primary it is on
	shard    string
	user     string
	host     string
	app      string
	started  time.Time
	// query is its current or last query; queryStart when it started
	// (zero: none yet); queryEnd when it ends (zero: when killed).
	query      string
	queryStart time.Time
	queryEnd   time.Time
	// xactStart is when its transaction started; zero outside one.
	// aborted marks a transaction whose query was cancelled.
	xactStart time.Time
	aborted   bool
	blockedBy string    // the session whose lock its query waits for
	changed   time.Time // its last change by a kill or a new query
	// recorded marks a session recorded traffic implied, which closes
	// after SessionIdleTimeout idle; client names its samples' client.
	recorded bool
	client   string
}

// branchSessions are the live connections of a branch, by process ID.
type branchSessions struct {
	recs    []*sessionRec // by pid
	nextPID int           // 0 before the first: firstPID
}

// running reports whether s runs a query at now.
func (s *sessionRec) running(now time.Time) bool {
	return !s.queryStart.IsZero() && (s.queryEnd.IsZero() || now.Before(s.queryEnd))
}

// stateChange is when s entered the state it is in at now.
func (s *sessionRec) stateChange(now time.Time) time.Time {
	if s.running(now) {
		return s.queryStart
	}
	t := s.changed
	if !s.queryEnd.IsZero() && s.queryEnd.After(t) {
		t = s.queryEnd
	}
	return t
}

// closed reports whether a session recorded traffic implied has been idle
// too long at now.
func (s *sessionRec) closed(now time.Time) bool {
	return s.recorded && !s.running(now) && now.Sub(s.stateChange(now)) >= SessionIdleTimeout
}

// live returns the sessions of b open at now, by process ID.
func (ss *branchSessions) live(now time.Time) []*sessionRec {
	out := make([]*sessionRec, 0, len(ss.recs))
	for _, s := range ss.recs {
		if !s.closed(now) {
			out = append(out, s)
		}
	}
	return out
}

// byID finds an open session by the fake's ID.
func (ss *branchSessions) byID(id string, now time.Time) *sessionRec {
	for _, s := range ss.recs {
		if s.id == id && !s.closed(now) {
			return s
		}
	}
	return nil
}

// prune drops the sessions closed at now.
func (ss *branchSessions) prune(now time.Time) {
	ss.drop(func(s *sessionRec) bool { return s.closed(now) })
}

// drop ends the sessions gone reports, and unblocks the queries their
// transactions blocked: a session that ends releases its locks.
func (ss *branchSessions) drop(gone func(*sessionRec) bool) {
	n := len(ss.recs)
	ss.recs = slices.DeleteFunc(ss.recs, gone)
	if len(ss.recs) == n {
		return
	}
	open := make(map[string]bool, len(ss.recs))
	for _, s := range ss.recs {
		open[s.id] = true
	}
	for _, s := range ss.recs {
		if s.blockedBy != "" && !open[s.blockedBy] {
			s.blockedBy = ""
		}
	}
}

// add keeps a new session, giving it the next process ID.
func (ss *branchSessions) add(s *sessionRec) {
	if ss.nextPID == 0 {
		ss.nextPID = firstPID
	}
	s.pid = ss.nextPID
	ss.nextPID++
	ss.recs = append(ss.recs, s)
}

// remove drops a session.
func (ss *branchSessions) remove(s *sessionRec) {
	ss.drop(func(r *sessionRec) bool { return r == s })
}

// endStrandedSessions ends the sessions of b on a server b no longer runs:
// a PostgreSQL instance a change of its replicas removed, or a MySQL
// keyspace (or shard) deleted. A client's connection ends with its server.
func (w *world) endStrandedSessions(b *branchRec) {
	m := b.more.peek()
	if m == nil {
		return
	}
	if b.db.kind == platform.KindPostgreSQL {
		n := b.postgresInstances()
		m.sessions.drop(func(s *sessionRec) bool { return s.instance >= n })
		return
	}
	m.sessions.drop(func(s *sessionRec) bool {
		_, _, err := sessionTablet(b, s.keyspace, s.shard)
		return err != nil
	})
}

// endInstanceSessions ends the sessions on PostgreSQL instance i of b, as
// a restart of the instance does.
func (w *world) endInstanceSessions(b *branchRec, i int) {
	if m := b.more.peek(); m != nil {
		m.sessions.drop(func(s *sessionRec) bool { return s.instance == i })
	}
}

// OpenSession opens a live connection on a branch, as a client would: the
// branch's connection list and (MySQL) process list show it until it is
// killed. It returns the session's ID, which another session's BlockedBy
// may name. The branch must be ready and have fewer than 10,000 sessions;
// a spec that names no instance, keyspace or shard of the branch, or a
// field of the other kind of database, is refused, and nothing is opened.
func (s *Server) OpenSession(org, database, branch string, spec SessionSpec) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, err := s.world.findBranch(org, database, branch)
	if err != nil {
		return "", methodErr("OpenSession", err)
	}
	id, err := s.world.openSession(b, spec)
	if err != nil {
		return "", methodErr("OpenSession", err)
	}
	return id, nil
}

// openSession checks spec against b, then opens the session.
func (w *world) openSession(b *branchRec, spec SessionSpec) (string, error) {
	now := w.clock.Now()
	sessions := &b.x().sessions
	sessions.prune(now)
	rec := &sessionRec{
		user: cmp.Or(spec.User, "app"), host: spec.Host, app: spec.Application,
		started: spec.Started.UTC(), query: spec.Query, blockedBy: spec.BlockedBy,
	}
	if spec.Started.IsZero() {
		rec.started = now
	}
	rec.changed = rec.started
	postgres := b.db.kind == platform.KindPostgreSQL
	switch {
	case !b.ready:
		return "", fmt.Errorf("branch %s is not ready yet", b.name)
	case len(sessions.recs) >= maxSessionsPerBranch:
		return "", fmt.Errorf("branch %s has %d sessions, the most it takes", b.name, maxSessionsPerBranch)
	case rec.started.After(now):
		return "", fmt.Errorf("the Started %s is after the clock's now, %s", rec.started.Format(time.RFC3339Nano), now.Format(time.RFC3339Nano))
	case strings.TrimSpace(spec.User) == "" && spec.User != "":
		return "", errors.New("the User is blank")
	case spec.QueryDuration < 0:
		return "", fmt.Errorf("the QueryDuration %s is negative", spec.QueryDuration)
	case spec.Query == "" && (spec.QueryDuration != 0 || !spec.QueryStarted.IsZero() || spec.BlockedBy != ""):
		return "", errors.New("the QueryDuration, QueryStarted and BlockedBy need a Query")
	case !postgres && (spec.Instance != "" || spec.InTransaction || spec.BlockedBy != "" || spec.Application != ""):
		return "", fmt.Errorf("the Instance, InTransaction, BlockedBy and Application are for postgresql sessions; database %s is %s", b.db.name, b.db.kind)
	case postgres && (spec.Keyspace != "" || spec.Shard != ""):
		return "", fmt.Errorf("the Keyspace and Shard are for mysql sessions; database %s is %s", b.db.name, b.db.kind)
	}
	if spec.Host != "" {
		if _, err := parseClientHost(spec.Host); err != nil {
			return "", err
		}
	}
	if spec.Query != "" {
		rec.queryStart = spec.QueryStarted.UTC()
		if spec.QueryStarted.IsZero() {
			rec.queryStart = rec.started
		}
		if rec.queryStart.Before(rec.started) || rec.queryStart.After(now) {
			return "", fmt.Errorf("the QueryStarted %s is not between Started and the clock's now", rec.queryStart.Format(time.RFC3339Nano))
		}
		if spec.QueryDuration > 0 {
			rec.queryEnd = rec.queryStart.Add(spec.QueryDuration)
		}
	}
	if spec.InTransaction {
		rec.xactStart = rec.started
	}
	if postgres {
		i, err := postgresInstanceNamed(b, spec.Instance)
		if err != nil {
			return "", err
		}
		rec.instance = i
		if spec.BlockedBy != "" {
			blocker := sessions.byID(spec.BlockedBy, now)
			if blocker == nil {
				return "", fmt.Errorf("the BlockedBy %q is not a session of branch %s", spec.BlockedBy, b.name)
			}
			if blocker.xactStart.IsZero() {
				return "", fmt.Errorf("the BlockedBy session %s is in no transaction, so holds no lock", spec.BlockedBy)
			}
		}
	} else {
		ks, shard, err := sessionTablet(b, spec.Keyspace, spec.Shard)
		if err != nil {
			return "", err
		}
		rec.keyspace, rec.shard = ks.name, shard
	}
	rec.id = w.newID()
	sessions.add(rec)
	return rec.id, nil
}

// parseClientHost reads a client address: an IP address, with or without
// a port.
func parseClientHost(host string) (netip.Addr, error) {
	if ap, err := netip.ParseAddrPort(host); err == nil {
		return ap.Addr(), nil
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return a, fmt.Errorf("the Host %q is not an IP address, with or without a port", host)
	}
	return a, nil
}

// postgresInstanceNamed finds a PostgreSQL branch's instance by name; ""
// is the primary.
func postgresInstanceNamed(b *branchRec, name string) (int, error) {
	if name == "" {
		return b.primaryInstance(), nil
	}
	var names []string
	for i := range b.postgresInstances() {
		if postgresInstanceName(b, i) == name {
			return i, nil
		}
		names = append(names, postgresInstanceName(b, i))
	}
	return 0, fmt.Errorf("the Instance %q is not an instance of branch %s (it has %s)", name, b.name, strings.Join(names, ", "))
}

// sessionTablet finds the keyspace and shard a MySQL session is on; ""
// for the default keyspace and for its first shard.
func sessionTablet(b *branchRec, keyspace, shard string) (*keyspaceRec, string, error) {
	ks := b.defaultKeyspace()
	if keyspace != "" {
		if ks = b.keyspace(keyspace); ks == nil {
			return nil, "", fmt.Errorf("the Keyspace %q is not a keyspace of branch %s", keyspace, b.name)
		}
	}
	shards := shardNames(ks.shards)
	if shard == "" {
		return ks, shards[0], nil
	}
	if !slices.Contains(shards, shard) {
		return nil, "", fmt.Errorf("the Shard %q is not a shard of keyspace %s (it has %s)", shard, ks.name, strings.Join(shards, ", "))
	}
	return ks, shard, nil
}

// clientKey names the client of recorded samples: their username and
// remote_address tags, keyspace and kind of server. A session keeps it as
// its client, joined (see key).
type clientKey struct {
	user, addr, keyspace string
	tablet               platform.TabletType
}

// String is the key as a session keeps it.
func (k clientKey) String() string {
	return strings.Join([]string{k.user, k.addr, k.keyspace, string(k.tablet)}, "\x00")
}

// parseClientKey reads a key a session keeps.
func parseClientKey(s string) clientKey {
	p := strings.SplitN(s, "\x00", 4)
	for len(p) < 4 {
		p = append(p, "")
	}
	return clientKey{p[0], p[1], p[2], platform.TabletType(p[3])}
}

// observeSamples opens or moves on the sessions that recorded samples
// imply (see the top of this file): one session per client, running the
// query of its latest sample.
func (w *world) observeSamples(b *branchRec, samples []checkedSample) {
	now := w.clock.Now()
	var (
		sessions *branchSessions
		byClient map[clientKey]*sessionRec
	)
	for _, c := range samples {
		end := c.at.Add(c.Duration)
		if now.Sub(end) >= SessionIdleTimeout {
			continue // its session would have closed already
		}
		if sessions == nil {
			sessions = &b.x().sessions
			sessions.prune(now)
			byClient = map[clientKey]*sessionRec{}
			for _, s := range sessions.recs {
				if s.recorded {
					byClient[parseClientKey(s.client)] = s
				}
			}
		}
		user, _ := tagOf(c.tags, "username")
		addr, _ := tagOf(c.tags, "remote_address")
		key := clientKey{user, addr, c.keyspace, c.TabletType}
		rec := byClient[key]
		if rec == nil {
			if len(sessions.recs) >= maxSessionsPerBranch {
				continue
			}
			rec = &sessionRec{
				id: w.newID(), user: cmp.Or(user, "app"), host: addr, started: c.at, changed: c.at,
				recorded: true, client: key.String(),
			}
			if b.db.kind == platform.KindPostgreSQL {
				rec.instance = recordedInstance(b, c.TabletType)
			} else {
				ks := b.keyspace(c.keyspace)
				rec.keyspace, rec.shard = ks.name, shardNames(ks.shards)[0]
			}
			sessions.add(rec)
			byClient[key] = rec
		}
		if c.at.Before(rec.started) {
			rec.started = c.at
		}
		if !c.at.Before(rec.queryStart) {
			rec.query, rec.queryStart, rec.queryEnd = c.SQL, c.at, end
			if c.Duration == 0 {
				rec.queryEnd = c.at.Add(time.Nanosecond) // it ran, and ended at once
			}
		}
	}
}

// recordedInstance is the PostgreSQL instance a sample of tablet type t
// ran on: the primary, or for a replica sample the first replica.
func recordedInstance(b *branchRec, t platform.TabletType) int {
	primary := b.primaryInstance()
	if t == "" || t == platform.TabletPrimary || b.postgresInstances() == 1 {
		return primary
	}
	return (primary + 1) % b.postgresInstances()
}

// tagOf is the value of a sorted tag list's key.
func tagOf(tags []trafficTag, key string) (string, bool) {
	for _, t := range tags {
		if t.key == key {
			return t.value, true
		}
	}
	return "", false
}

// The HTTP side: routes, the target a request names, kills and rendering.

func connectionRoutes() []route {
	const branch = "/v1/organizations/{organization}/databases/{database}/branches/{branch}"
	return []route{
		{pattern: "GET " + branch + "/connections", op: "list_branch_connections", handler: read(listBranchConnections)},
		{pattern: "DELETE " + branch + "/connections/query/{id}", op: "kill_branch_query", handler: act(killBranchQuery)},
		{pattern: "DELETE " + branch + "/connections/transaction/{id}", op: "kill_branch_transaction", handler: act(killBranchTransaction)},
		{pattern: "DELETE " + branch + "/connections/connection/{id}", op: "kill_branch_connection", handler: act(killBranchConnection)},
		{pattern: "GET " + branch + "/processlist", op: "list_processlist", handler: read(listProcesslist)},
		{pattern: "POST " + branch + "/processlist/kill", op: "kill_process", handler: withBody(killProcess)},
	}
}

// connTarget is the tablet a MySQL connections request reads or acts on:
// the primary of one shard of one keyspace. A PostgreSQL request has none
// (ks nil) and reads every instance.
type connTarget struct {
	ks    *keyspaceRec
	shard string
}

// targetChoices are the keyspaces and shards a 400 offers.
type targetChoices struct {
	Keyspaces []string `json:"keyspaces,omitempty"`
	Shards    []string `json:"shards,omitempty"`
}

// resolveTarget finds the tablet keyspace and shard name on MySQL branch
// b: a keyspace may be left out when b has one, a shard when the keyspace
// has one. What is missing or unknown is a 400 that names it and offers
// the choices, as the command-line tool expects (it asks its user to pick
// one). A PostgreSQL branch takes neither.
func resolveTarget(b *branchRec, keyspace, shard string) (connTarget, error) {
	if b.db.kind == platform.KindPostgreSQL {
		if keyspace != "" || shard != "" {
			return connTarget{}, badRequest("keyspace and shard are for mysql databases; %s is %s, whose connections are listed from every instance", b.db.name, b.db.kind)
		}
		return connTarget{}, nil
	}
	var names []string
	for _, ks := range b.keyspaces.All() {
		names = append(names, ks.name)
	}
	slices.Sort(names)
	var ks *keyspaceRec
	switch {
	case keyspace != "":
		if ks = b.keyspace(keyspace); ks == nil {
			e := badRequest("keyspace %q is not a keyspace of branch %s; choose one of %s", keyspace, b.name, strings.Join(names, ", "))
			return connTarget{}, e.offering(targetChoices{Keyspaces: names})
		}
	case len(names) == 1:
		ks = b.keyspaces.All()[0]
	default:
		e := badRequest("keyspace is required: branch %s has keyspaces %s", b.name, strings.Join(names, ", "))
		return connTarget{}, e.offering(targetChoices{Keyspaces: names})
	}
	shards := shardNames(ks.shards)
	switch {
	case shard != "":
		if !slices.Contains(shards, shard) {
			e := badRequest("shard %q is not a shard of keyspace %s; choose one of %s", shard, ks.name, strings.Join(shards, ", "))
			return connTarget{}, e.offering(targetChoices{Shards: shards})
		}
	case len(shards) == 1:
		shard = shards[0]
	default:
		e := badRequest("shard is required: keyspace %s has shards %s", ks.name, strings.Join(shards, ", "))
		return connTarget{}, e.offering(targetChoices{Shards: shards})
	}
	return connTarget{ks: ks, shard: shard}, nil
}

// on reports whether session s is on the target's tablet.
func (t connTarget) on(s *sessionRec) bool {
	return t.ks == nil || (s.keyspace == t.ks.name && s.shard == t.shard)
}

// connectionsRequest finds the path's branch and the target the query
// names.
func (c *call) connectionsRequest() (*branchRec, connTarget, error) {
	b := c.branch
	q := c.r.URL.Query()
	t, err := resolveTarget(b, q.Get("keyspace"), q.Get("shard"))
	return b, t, err
}

// sessionsOf returns b's sessions open at now on t's tablet.
func sessionsOf(b *branchRec, t connTarget, now time.Time) []*sessionRec {
	var out []*sessionRec
	for _, s := range peekSessions(b).live(now) {
		if t.on(s) {
			out = append(out, s)
		}
	}
	return out
}

// peekSessions is b's sessions without making its less common records.
func peekSessions(b *branchRec) *branchSessions {
	if m := b.more.peek(); m != nil {
		return &m.sessions
	}
	return &branchSessions{}
}

func listBranchConnections(c *call) (any, error) {
	b, t, err := c.connectionsRequest()
	if err != nil {
		return nil, err
	}
	return renderConnectionList(b, t, sessionsOf(b, t, c.now), c.now), nil
}

// killKind is what a kill of the connections routes names by its ID.
type killKind int

const (
	killQuery killKind = iota
	killTransaction
	killConnection
)

// idName is how the listing names the ID a kill takes.
func (k killKind) idName() string {
	return [...]string{"query_id", "transaction_id", "connection_id"}[k]
}

func killBranchQuery(c *call) (any, error)       { return c.killSession(killQuery) }
func killBranchTransaction(c *call) (any, error) { return c.killSession(killTransaction) }
func killBranchConnection(c *call) (any, error)  { return c.killSession(killConnection) }

// killSession serves the three kills: it finds the session the path's
// {id} names on the target's tablet, checks that what the ID names is
// still there, and kills it.
func (c *call) killSession(kind killKind) (any, error) {
	b, t, err := c.connectionsRequest()
	if err != nil {
		return nil, err
	}
	if kind == killTransaction && b.db.kind != platform.KindPostgreSQL {
		return nil, unprocessable("killing a transaction is for postgresql databases; %s is %s: kill its query or its connection", b.db.name, b.db.kind)
	}
	id := c.r.PathValue("id")
	s, err := findSession(b, t, kind, id, c.now)
	if err != nil {
		return nil, err
	}
	c.w.kill(b, s, kind)
	return nil, nil
}

// findSession finds the session a kill's ID names and checks that what it
// names is still there: an ID that names no session, or is not in the form
// the fake gives IDs, is a 404; the ID of a query or transaction that has
// ended, a 422 that says so.
func findSession(b *branchRec, t connTarget, kind killKind, id string, now time.Time) (*sessionRec, error) {
	postgres := b.db.kind == platform.KindPostgreSQL
	for _, s := range sessionsOf(b, t, now) {
		ids := sessionIDs(b, s, now)
		if postgres && !isMicros(strings.CutPrefix(id, ids.prefix)) || !postgres && id != ids.prefix {
			continue
		}
		want := &ids.connection
		switch kind {
		case killQuery:
			want = ids.query
		case killTransaction:
			want = ids.transaction
		}
		if want != nil && *want == id {
			return s, nil
		}
		if kind == killConnection {
			break // a connection before this one, with its process ID
		}
		what := [...]string{"query", "transaction"}[kind]
		return nil, unprocessable("the %s %s has already ended: connection %d has moved on; list the connections again", what, id, s.pid)
	}
	return nil, notFound().because("%s %q names no connection of branch %s", kind.idName(), id, b.name)
}

// isMicros reports whether rest, after a PostgreSQL session's ID prefix
// (found), is a time in microseconds as sessionIDs writes one: an integer
// in canonical decimal form, nothing before or after it.
func isMicros(rest string, found bool) bool {
	n, err := strconv.ParseInt(rest, 10, 64)
	return found && err == nil && strconv.FormatInt(n, 10) == rest
}

// kill kills what kind names of session s of b, now.
func (w *world) kill(b *branchRec, s *sessionRec, kind killKind) {
	now := w.clock.Now()
	sessions := &b.x().sessions
	if kind == killQuery {
		s.queryEnd, s.changed = now, now
		if !s.xactStart.IsZero() {
			s.aborted = true
		}
		sessions.prune(now)
		return
	}
	sessions.remove(s)
	sessions.prune(now)
}

// sessionIDs are the IDs a listing gives a session: a PostgreSQL one's are
// "<instance>-<pid>-<start in microseconds>" of the connection, its
// transaction and its query; a MySQL one's connection and query IDs are
// its process ID, as the tablet's process list has it.
type sessionIDsOf struct {
	prefix      string // what every ID of the session starts with (MySQL: is)
	connection  string
	transaction *string // nil outside a transaction
	query       *string // nil while no query runs
}

func sessionIDs(b *branchRec, s *sessionRec, now time.Time) sessionIDsOf {
	if b.db.kind != platform.KindPostgreSQL {
		pid := strconv.Itoa(s.pid)
		ids := sessionIDsOf{prefix: pid, connection: pid}
		if s.running(now) {
			ids.query = &pid
		}
		return ids
	}
	prefix := fmt.Sprintf("%s-%d-", postgresInstanceName(b, s.instance), s.pid)
	micros := func(t time.Time) *string {
		v := prefix + strconv.FormatInt(t.UnixMicro(), 10)
		return &v
	}
	ids := sessionIDsOf{prefix: prefix, connection: *micros(s.started)}
	if !s.xactStart.IsZero() {
		ids.transaction = micros(s.xactStart)
	}
	if s.running(now) {
		ids.query = micros(s.queryStart)
	}
	return ids
}

// blockers are the PIDs of the sessions whose transactions block s's
// running query at now.
func blockers(b *branchRec, s *sessionRec, now time.Time) []int {
	if s.blockedBy == "" || !s.running(now) {
		return []int{}
	}
	if bl := peekSessions(b).byID(s.blockedBy, now); bl != nil && !bl.xactStart.IsZero() {
		return []int{bl.pid}
	}
	return []int{}
}

// sessionState is the state a session shows at now.
func sessionState(b *branchRec, s *sessionRec, now time.Time) platform.ConnectionState {
	running := s.running(now)
	switch {
	case b.db.kind != platform.KindPostgreSQL && running:
		return platform.ConnectionQueryExecuting
	case b.db.kind != platform.KindPostgreSQL:
		return platform.ConnectionSleep
	case running:
		return platform.ConnectionActive
	case s.aborted:
		return platform.ConnectionIdleInTransactionAborted
	case !s.xactStart.IsZero():
		return platform.ConnectionIdleInTransaction
	}
	return platform.ConnectionIdle
}

// tabletOf is the alias of the primary tablet of a keyspace's shard on b,
// as the branch's topology has it now (vitess.go): a planned reparent
// moves the connections' tablet with the primary.
func tabletOf(b *branchRec, keyspace, shard string) string {
	ks := b.keyspace(keyspace)
	if ks == nil {
		return ""
	}
	return shardTablets(ks, shard)[primaryIndex(ks, shard)].alias.String()
}

// renderConnectionList renders the sessions of b on t's tablet at now,
// longest-running transaction first, then query, then process ID.
func renderConnectionList(b *branchRec, t connTarget, sessions []*sessionRec, now time.Time) *platform.ConnectionList {
	out := &platform.ConnectionList{
		Type: "list", DatabaseKind: b.db.kind, CapturedAt: platform.NewTimestamp(now),
		Instances: []*platform.ConnectionInstance{}, Connections: []*platform.Connection{},
	}
	if t.ks != nil {
		out.Topology = &platform.ConnectionTopology{Keyspace: t.ks.name, Shard: t.shard, Tablet: tabletOf(b, t.ks.name, t.shard)}
	} else {
		primary := b.primaryInstance()
		for i := range b.postgresInstances() {
			role := "replica"
			if i == primary {
				role = "primary"
			}
			out.Instances = append(out.Instances, &platform.ConnectionInstance{ID: postgresInstanceName(b, i), Role: role})
		}
	}
	for _, s := range sessions {
		out.Connections = append(out.Connections, renderConnection(b, s, now))
	}
	slices.SortStableFunc(out.Connections, func(x, y *platform.Connection) int {
		return cmp.Or(compareStart(x.XactStart, y.XactStart), compareStart(x.QueryStart, y.QueryStart), cmp.Compare(x.PID, y.PID))
	})
	return out
}

// compareStart orders two start times, nil last.
func compareStart(a, b *platform.Timestamp) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 1
	case b == nil:
		return -1
	}
	return a.Compare(b.Time)
}

func renderConnection(b *branchRec, s *sessionRec, now time.Time) *platform.Connection {
	ids := sessionIDs(b, s, now)
	changed := s.stateChange(now)
	out := &platform.Connection{
		PID: s.pid, ConnectionID: &ids.connection, TransactionID: ids.transaction, QueryID: ids.query,
		Username: s.user, ApplicationName: s.app, ClientAddr: s.host,
		State: sessionState(b, s, now), BackendType: "client backend",
		BackendStart: ptrTime(s.started), StateChange: ptrTime(changed), CapturedAt: platform.NewTimestamp(now),
		DurationMS: now.Sub(changed).Milliseconds(), BlockedBy: blockers(b, s, now),
	}
	if b.db.kind == platform.KindPostgreSQL {
		out.Instance = postgresInstanceName(b, s.instance)
		out.DatabaseName = "postgres"
		if !s.xactStart.IsZero() {
			out.XactStart = ptrTime(s.xactStart)
		}
		if !s.queryStart.IsZero() {
			out.QueryStart = ptrTime(s.queryStart)
			out.QueryText = s.query
		}
		if addr, err := parseClientHost(s.host); err == nil && s.host != "" {
			out.ClientAddr = addr.String() // pg_stat_activity's client_addr has no port
		}
		if len(out.BlockedBy) > 0 {
			out.WaitEventType, out.WaitEvent = platform.Ptr("Lock"), platform.Ptr("transactionid")
		}
		return out
	}
	out.Instance = tabletOf(b, s.keyspace, s.shard)
	out.DatabaseName = s.keyspace
	if s.running(now) {
		out.QueryStart = ptrTime(s.queryStart)
		out.QueryText = s.query
	}
	return out
}

// renderProcess renders a MySQL session as a process list row.
func renderProcess(s *sessionRec, now time.Time) *platform.Process {
	p := &platform.Process{
		ID: int64(s.pid), User: s.user, Host: s.host, DB: s.keyspace, Command: "Sleep",
		Time: int64(now.Sub(s.stateChange(now)) / time.Second),
	}
	if s.running(now) {
		p.Command, p.State, p.Info = "Query", "executing", s.query
	}
	return p
}

// mysqlConnections finds the path's branch for the process list, which
// MySQL branches have only.
func (c *call) mysqlConnections() (*branchRec, error) {
	b := c.branch
	if b.db.kind != platform.KindMySQL {
		return nil, unprocessable("the process list is for mysql databases; %s is %s: list its connections instead", b.db.name, b.db.kind)
	}
	return b, nil
}

// processListBody is the envelope of the process list.
type processListBody struct {
	Data *platform.ProcessList `json:"data"`
}

// killProcessBody is the envelope of a process kill's result.
type killProcessBody struct {
	Data *platform.KillProcessResult `json:"data"`
}

func listProcesslist(c *call) (any, error) {
	b, err := c.mysqlConnections()
	if err != nil {
		return nil, err
	}
	q := c.r.URL.Query()
	t, err := resolveTarget(b, q.Get("keyspace"), q.Get("shard"))
	if err != nil {
		return nil, err
	}
	out := &platform.ProcessList{Keyspace: t.ks.name, Shard: t.shard, Tablet: tabletOf(b, t.ks.name, t.shard), Processes: []*platform.Process{}}
	for _, s := range sessionsOf(b, t, c.now) {
		out.Processes = append(out.Processes, renderProcess(s, c.now))
	}
	return processListBody{out}, nil
}

func killProcess(c *call, p *platform.KillProcessParams) (any, error) {
	b, err := c.mysqlConnections()
	if err != nil {
		return nil, err
	}
	kind := killConnection
	switch p.Kind {
	case "", platform.ProcessConnection:
		p.Kind = platform.ProcessConnection
	case platform.ProcessQuery:
		kind = killQuery
	default:
		return nil, unprocessable("kind must be connection or query, got %q", p.Kind)
	}
	if p.ID <= 0 {
		return nil, unprocessable("id must be a process ID (from 1), got %d", p.ID)
	}
	t, err := resolveTarget(b, p.Keyspace, p.Shard)
	if err != nil {
		return nil, err
	}
	s, err := findSession(b, t, kind, strconv.FormatInt(p.ID, 10), c.now)
	if err != nil {
		return nil, err
	}
	c.w.kill(b, s, kind)
	return killProcessBody{&platform.KillProcessResult{
		Success: true, Keyspace: t.ks.name, Shard: t.shard, Tablet: tabletOf(b, t.ks.name, t.shard), ID: p.ID, Kind: p.Kind,
	}}, nil
}
