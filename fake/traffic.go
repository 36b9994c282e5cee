package fake

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake/internal/sqltext"
)

// The fake runs no SQL, so the traffic of a branch is what tests record
// with [Server.RecordQueries] (or POST /_fake/.../queries): one sample per
// execution. Every view of traffic (insights, statistics, summaries, tags,
// errors, anomalies, metrics and query-pattern reports) is computed from
// the samples kept, through the aggregation below, so that the same query
// shows the same numbers everywhere.
//
// A branch keeps its last samples by the order they were recorded, up to
// the limit of [WithQuerySampleLimit]; the rest are dropped, oldest
// recorded first, and no view counts them any more. A snapshot holds the
// samples kept; one restored into a server with a lower limit keeps them
// all until the branch's next recording trims them.

// QuerySample is one execution of a query on a branch, for
// [Server.RecordQueries]. Only SQL is required.
type QuerySample struct {
	// SQL is the query's text. Its normalised form and fingerprint group
	// the executions of the same query (see [QueryFingerprint]).
	SQL string
	// Keyspace is the keyspace it ran against; "" for the branch's default
	// keyspace. It must be a keyspace of the branch.
	Keyspace string
	// Tables are the tables it read or wrote; nil for those named after
	// FROM, JOIN, INTO, UPDATE and TABLE in SQL. A query keeps the tables
	// of its first sample; a later sample's are not read.
	Tables []string
	// Tags are its tags, key to value: the keys its SQL comments carry
	// ("route" of "/* route='checkout' */") and the system keys username
	// and remote_address (an IP address). A key is 1 to 64 letters, digits,
	// _ . or -, a value 1 to 255 characters.
	Tags map[string]string
	// TabletType is the kind of server that ran it; "" for primary.
	TabletType platform.TabletType
	// RowsRead, RowsReturned and RowsAffected count its rows.
	RowsRead, RowsReturned, RowsAffected int64
	// ShardQueries is how many shards it ran on; 0 for one.
	ShardQueries int
	// Duration is how long it took.
	Duration time.Duration
	// Error is its error message; "" when it succeeded. ErrorCode is the
	// error's code (a MySQL error number such as "1062"), only with an
	// Error.
	Error, ErrorCode string
	// Time is when it ran; the zero time for the server's clock now. It
	// must not be after now.
	Time time.Time
}

// defaultQuerySampleLimit is how many samples a branch keeps unless
// WithQuerySampleLimit says otherwise: about 150 bytes each plus their
// tags and error, a query's text and tables being shared by its samples.
const defaultQuerySampleLimit = 100_000

// WithQuerySampleLimit keeps the last n query samples recorded on each
// branch (100,000 by default); see [Server.RecordQueries].
func WithQuerySampleLimit(n int) Option {
	return logLimit("WithQuerySampleLimit", n, func(c *config) *int { return &c.querySampleLimit })
}

// maxShardQueries bounds a sample's shard queries.
const maxShardQueries = 1 << 16

// queryPattern is a query of a branch: the samples of the same keyspace
// and fingerprint share it.
type queryPattern struct {
	keyspace    string
	fingerprint string
	normalized  string
	statement   string   // SELECT, INSERT, ...; OTHER
	tables      []string // from the first sample recorded
	samples     int      // how many of the branch's kept samples are of it
}

// patternKey finds a pattern of a branch.
type patternKey struct{ keyspace, fingerprint string }

// queryError is the error of a failed sample.
type queryError struct {
	message     string
	code        string
	fingerprint string // of the message with its literals normalised
}

// querySample is a sample as a branch keeps it.
type querySample struct {
	id           string
	pattern      *queryPattern
	at           time.Time
	duration     time.Duration
	rowsRead     int64
	rowsReturned int64
	rowsAffected int64
	shardQueries int
	tablet       platform.TabletType
	tags         []trafficTag // sorted by key
	err          *queryError  // nil when it succeeded
}

// branchTraffic is the traffic recorded on a branch. A nil *branchTraffic
// has no samples; every method below takes it.
type branchTraffic struct {
	patterns map[patternKey]*queryPattern
	samples  []*querySample // oldest recorded first
	byID     map[string]*querySample
}

func newBranchTraffic() *branchTraffic {
	return &branchTraffic{
		patterns: map[patternKey]*queryPattern{},
		byID:     map[string]*querySample{},
	}
}

// RecordQueries records executions of queries on a branch, as if clients
// had run them: insights, metrics and reports are computed from what is
// recorded. Either every sample is recorded or, when one is refused (an
// empty query, an unknown keyspace, a bad tag, a negative count or
// duration, a time after the clock's now), none is, and the error names
// the sample and its field. The branch keeps the last samples up to
// [WithQuerySampleLimit].
func (s *Server) RecordQueries(org, database, branch string, samples ...QuerySample) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, err := s.world.findBranch(org, database, branch)
	if err != nil {
		return methodErr("RecordQueries", err)
	}
	now := s.world.clock.Now()
	checked := make([]checkedSample, len(samples))
	for i := range samples {
		if checked[i], err = checkSample(b, &samples[i], now); err != nil {
			return fmt.Errorf("fake: RecordQueries: samples[%d]: %w", i, err)
		}
	}
	if b.traffic == nil {
		b.traffic = newBranchTraffic()
	}
	for _, c := range checked {
		b.traffic.add(s.world.newID(), c)
	}
	b.traffic.trim(s.cfg.querySampleLimit)
	s.world.observeSamples(b, checked) // the sessions they imply; see connections.go
	return nil
}

// checkedSample is a valid sample, normalised.
type checkedSample struct {
	*QuerySample
	sql      sqltext.Normalized
	keyspace string
	at       time.Time
	tags     []trafficTag
}

// checkSample validates a sample for branch b.
func checkSample(b *branchRec, q *QuerySample, now time.Time) (checkedSample, error) {
	c := checkedSample{QuerySample: q, sql: sqltext.Normalize(q.SQL), keyspace: q.Keyspace, at: q.Time.UTC()}
	switch {
	case c.sql.Text == "":
		return c, errors.New("the SQL is empty (or only comments)")
	case q.RowsRead < 0 || q.RowsReturned < 0 || q.RowsAffected < 0:
		return c, errors.New("rows read, returned and affected must not be negative")
	case q.ShardQueries < 0 || q.ShardQueries > maxShardQueries:
		return c, fmt.Errorf("the ShardQueries must be from 0 to %d, got %d", maxShardQueries, q.ShardQueries)
	case q.Duration < 0:
		return c, fmt.Errorf("the Duration %s is negative", q.Duration)
	case q.ErrorCode != "" && q.Error == "":
		return c, fmt.Errorf("an ErrorCode %q without an Error message", q.ErrorCode)
	}
	switch q.TabletType {
	case "", platform.TabletPrimary, platform.TabletReplica, platform.TabletRDOnly:
	default:
		return c, fmt.Errorf("the TabletType %q is not primary, replica or rdonly", q.TabletType)
	}
	if c.keyspace == "" {
		c.keyspace = b.defaultKeyspace().name
	} else if b.keyspace(c.keyspace) == nil {
		return c, fmt.Errorf("keyspace %q is not a keyspace of branch %s", c.keyspace, b.name)
	}
	if q.Time.IsZero() {
		c.at = now
	} else if c.at.After(now) {
		return c, fmt.Errorf("the Time %s is after the clock's now, %s", c.at.Format(time.RFC3339Nano), now.Format(time.RFC3339Nano))
	}
	for _, k := range slices.Sorted(maps.Keys(q.Tags)) {
		t := trafficTag{key: k, value: q.Tags[k]}
		if err := checkSampleTag(t); err != nil {
			return c, err
		}
		c.tags = append(c.tags, t)
	}
	for i, t := range q.Tables {
		if strings.TrimSpace(t) == "" {
			return c, fmt.Errorf("the Tables[%d] is empty", i)
		}
	}
	return c, nil
}

// checkSampleTag checks a tag of a sample, as a traffic rule's tag.
func checkSampleTag(t trafficTag) error {
	switch {
	case len(t.key) > maxTrafficTagKey || !trafficTagKey.MatchString(t.key):
		return fmt.Errorf("tag key %q must be 1 to %d letters, digits, _ . or -", t.key, maxTrafficTagKey)
	case t.key == "query_fingerprint":
		return errors.New("tag query_fingerprint is the query's fingerprint, set by the server")
	case t.value == "" || len(t.value) > maxTrafficTagValue:
		return fmt.Errorf("the value of tag %s must be 1 to %d characters", t.key, maxTrafficTagValue)
	}
	if t.key == "remote_address" {
		if _, err := netip.ParseAddr(t.value); err != nil {
			return fmt.Errorf("tag remote_address %q is not an IP address", t.value)
		}
	}
	return nil
}

// add keeps a checked sample under id.
func (t *branchTraffic) add(id string, c checkedSample) {
	k := patternKey{c.keyspace, c.sql.Fingerprint}
	p := t.patterns[k]
	if p == nil {
		tables := c.Tables
		if tables == nil {
			tables = c.sql.Tables
		}
		p = &queryPattern{
			keyspace: c.keyspace, fingerprint: c.sql.Fingerprint, normalized: c.sql.Text,
			statement: c.sql.Statement, tables: slices.Clone(tables),
		}
		t.patterns[k] = p
	}
	q := &querySample{
		id: id, pattern: p, at: c.at, duration: c.Duration,
		rowsRead: c.RowsRead, rowsReturned: c.RowsReturned, rowsAffected: c.RowsAffected,
		shardQueries: max(c.ShardQueries, 1), tablet: c.TabletType, tags: c.tags,
	}
	if q.tablet == "" {
		q.tablet = platform.TabletPrimary
	}
	if c.Error != "" {
		q.err = newQueryError(c.Error, c.ErrorCode)
	}
	t.keep(q)
}

// keep adds a sample, whole, to the samples kept.
func (t *branchTraffic) keep(q *querySample) {
	q.pattern.samples++
	t.samples = append(t.samples, q)
	t.byID[q.id] = q
}

// trim drops the oldest recorded samples beyond limit, and the patterns
// no sample kept is of.
func (t *branchTraffic) trim(limit int) {
	excess := len(t.samples) - limit
	if excess <= 0 {
		return
	}
	for _, q := range t.samples[:excess] {
		delete(t.byID, q.id)
		if q.pattern.samples--; q.pattern.samples == 0 {
			delete(t.patterns, patternKey{q.pattern.keyspace, q.pattern.fingerprint})
		}
	}
	t.samples = slices.Delete(t.samples, 0, excess)
}

// newQueryError is the error of a failed sample.
func newQueryError(message, code string) *queryError {
	return &queryError{message: message, code: code, fingerprint: errorFingerprint(message)}
}

// errorFingerprint groups the errors whose messages differ only in their
// literals: "Duplicate entry '7' for key 'PRIMARY'" and "Duplicate entry
// '9' for key 'PRIMARY'" have the same.
func errorFingerprint(message string) string {
	return sqltext.Fingerprint("error: " + sqltext.Canonical(message))
}

// all returns the samples kept, oldest recorded first.
func (t *branchTraffic) all() []*querySample {
	if t == nil {
		return nil
	}
	return t.samples
}

// sample finds a kept sample by ID; nil when there is none.
func (t *branchTraffic) sample(id string) *querySample {
	if t == nil {
		return nil
	}
	return t.byID[id]
}

// pattern finds a query of the branch by keyspace and fingerprint; nil
// when no sample kept is of it.
func (t *branchTraffic) pattern(keyspace, fingerprint string) *queryPattern {
	if t == nil {
		return nil
	}
	return t.patterns[patternKey{keyspace, fingerprint}]
}

// keyspacesOf returns, in order, the keyspaces a fingerprint's kept
// samples ran in.
func (t *branchTraffic) keyspacesOf(fingerprint string) []string {
	if t == nil {
		return nil
	}
	var out []string
	for k := range t.patterns {
		if k.fingerprint == fingerprint {
			out = append(out, k.keyspace)
		}
	}
	slices.Sort(out)
	return out
}

// tag returns the value of a sample's tag key, and whether it has it. The
// system key query_fingerprint is every sample's fingerprint.
func (q *querySample) tag(key string) (string, bool) {
	if key == "query_fingerprint" {
		return q.pattern.fingerprint, true
	}
	for _, t := range q.tags {
		if t.key == key {
			return t.value, true
		}
	}
	return "", false
}

// trafficFilter selects samples; its zero value selects all.
type trafficFilter struct {
	// from and to bound the samples' times to [from, to); a zero bound
	// is open.
	from, to time.Time
	// keyspace, fingerprint, statement (SELECT, ...), tablet and table
	// select the samples that have them; "" selects any.
	keyspace    string
	fingerprint string
	statement   string
	tablet      platform.TabletType
	table       string
	// tags select the samples that carry every one of them.
	tags []trafficTag
	// errors selects the failed samples; errorFingerprint those failed
	// with errors of that fingerprint.
	errors           bool
	errorFingerprint string
}

// match reports whether the filter selects q.
func (f *trafficFilter) match(q *querySample) bool {
	p := q.pattern
	switch {
	case !f.from.IsZero() && q.at.Before(f.from), !f.to.IsZero() && !q.at.Before(f.to):
		return false
	case f.keyspace != "" && p.keyspace != f.keyspace,
		f.fingerprint != "" && p.fingerprint != f.fingerprint,
		f.statement != "" && p.statement != f.statement,
		f.tablet != "" && q.tablet != f.tablet,
		f.table != "" && !slices.Contains(p.tables, f.table):
		return false
	case (f.errors || f.errorFingerprint != "") && q.err == nil,
		f.errorFingerprint != "" && q.err.fingerprint != f.errorFingerprint:
		return false
	}
	for _, t := range f.tags {
		if v, ok := q.tag(t.key); !ok || v != t.value {
			return false
		}
	}
	return true
}

// selectSamples returns the samples f selects, oldest recorded first.
func (t *branchTraffic) selectSamples(f trafficFilter) []*querySample {
	var out []*querySample
	for _, q := range t.all() {
		if f.match(q) {
			out = append(out, q)
		}
	}
	return out
}

// trafficStats aggregate samples.
type trafficStats struct {
	count        int
	errors       int
	rowsRead     int64
	rowsReturned int64
	rowsAffected int64
	shardQueries int64 // summed
	maxShards    int
	total        time.Duration
	first, last  time.Time // the earliest and latest sample times
	durations    []time.Duration
	sorted       bool
}

// add counts a sample.
func (st *trafficStats) add(q *querySample) {
	if st.count == 0 || q.at.Before(st.first) {
		st.first = q.at
	}
	if q.at.After(st.last) {
		st.last = q.at
	}
	st.count++
	if q.err != nil {
		st.errors++
	}
	st.rowsRead += q.rowsRead
	st.rowsReturned += q.rowsReturned
	st.rowsAffected += q.rowsAffected
	st.shardQueries += int64(q.shardQueries)
	st.maxShards = max(st.maxShards, q.shardQueries)
	st.total += q.duration
	st.durations = append(st.durations, q.duration)
	st.sorted = false
}

// percentile returns the p-th percentile (0 < p <= 100) of the
// durations, by the nearest rank: the smallest duration that at least p%
// of the samples do not exceed. It is 0 with no samples.
func (st *trafficStats) percentile(p float64) time.Duration {
	if st == nil || len(st.durations) == 0 {
		return 0
	}
	if !st.sorted {
		slices.Sort(st.durations)
		st.sorted = true
	}
	rank := int(math.Ceil(p / 100 * float64(len(st.durations))))
	return st.durations[min(max(rank, 1), len(st.durations))-1]
}

// maxDuration is the longest duration; 0 with no samples.
func (st *trafficStats) maxDuration() time.Duration { return st.percentile(100) }

// mean is the mean duration; 0 with no samples.
func (st *trafficStats) mean() time.Duration {
	if st == nil || st.count == 0 {
		return 0
	}
	return st.total / time.Duration(st.count)
}

// stats aggregates the samples f selects.
func (t *branchTraffic) stats(f trafficFilter) *trafficStats {
	st := &trafficStats{}
	for _, q := range t.all() {
		if f.match(q) {
			st.add(q)
		}
	}
	return st
}

// totalDuration is the summed duration of the samples f selects: stats'
// total, without keeping their durations.
func (t *branchTraffic) totalDuration(f trafficFilter) time.Duration {
	var total time.Duration
	for _, q := range t.all() {
		if f.match(q) {
			total += q.duration
		}
	}
	return total
}

// groupTraffic aggregates the samples f selects by the keys keys gives
// each (none, one or several: a sample counts once in each of its groups).
func groupTraffic[K comparable](t *branchTraffic, f trafficFilter, keys func(q *querySample, group func(K))) map[K]*trafficStats {
	out := map[K]*trafficStats{}
	for _, q := range t.all() {
		if !f.match(q) {
			continue
		}
		keys(q, func(k K) {
			st := out[k]
			if st == nil {
				st = &trafficStats{}
				out[k] = st
			}
			st.add(q)
		})
	}
	return out
}

// byPattern aggregates by query (keyspace and fingerprint).
func (t *branchTraffic) byPattern(f trafficFilter) map[*queryPattern]*trafficStats {
	return groupTraffic(t, f, func(q *querySample, group func(*queryPattern)) { group(q.pattern) })
}

// byTag aggregates by tag: each key=value a sample carries, the system
// tag query_fingerprint included.
func (t *branchTraffic) byTag(f trafficFilter) map[trafficTag]*trafficStats {
	return groupTraffic(t, f, func(q *querySample, group func(trafficTag)) {
		group(trafficTag{"query_fingerprint", q.pattern.fingerprint})
		for _, tg := range q.tags {
			group(tg)
		}
	})
}

// trafficTable is a table of a keyspace.
type trafficTable struct{ keyspace, table string }

// byTable aggregates by table: a sample counts for each table its query
// names.
func (t *branchTraffic) byTable(f trafficFilter) map[trafficTable]*trafficStats {
	return groupTraffic(t, f, func(q *querySample, group func(trafficTable)) {
		for _, tb := range q.pattern.tables {
			group(trafficTable{q.pattern.keyspace, tb})
		}
	})
}

// byError aggregates the failed samples by error fingerprint.
func (t *branchTraffic) byError(f trafficFilter) map[string]*trafficStats {
	return groupTraffic(t, f, func(q *querySample, group func(string)) {
		if q.err != nil {
			group(q.err.fingerprint)
		}
	})
}

// trafficBucket is the aggregate of a time bucket [start, start+width).
type trafficBucket struct {
	start time.Time
	stats *trafficStats
}

// byBucket aggregates the samples of [from, to) (f's own bounds are
// replaced) into buckets of width, aligned as time.Truncate aligns them
// (on whole minutes, hours or days of UTC for such widths), every bucket that meets [from, to) included, empty or not,
// earliest first. width must be positive and from before to.
func (t *branchTraffic) byBucket(f trafficFilter, from, to time.Time, width time.Duration) []trafficBucket {
	if width <= 0 || !from.Before(to) {
		return nil
	}
	start := from.Truncate(width)
	n := int((to.Sub(start) + width - 1) / width)
	out := make([]trafficBucket, n)
	for i := range out {
		out[i] = trafficBucket{start: start.Add(time.Duration(i) * width).UTC(), stats: &trafficStats{}}
	}
	f.from, f.to = from, to
	for _, q := range t.all() {
		if f.match(q) {
			out[int(q.at.Sub(start)/width)].stats.add(q)
		}
	}
	return out
}
