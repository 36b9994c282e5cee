package fake

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/dbplatform/platform-go"
)

// The snapshot of a branch's recorded traffic: its queries, then its
// samples (oldest recorded first), each naming its query by index. An
// error's fingerprint is computed again on load.

type trafficSnap struct {
	Patterns []patternSnap `json:"patterns"`
	Samples  []sampleSnap  `json:"samples"`
}

type patternSnap struct {
	Keyspace    string   `json:"keyspace"`
	Fingerprint string   `json:"fingerprint"`
	Normalized  string   `json:"normalized_sql"`
	Statement   string   `json:"statement_type"`
	Tables      []string `json:"tables"`
}

type sampleSnap struct {
	ID           string              `json:"id"`
	Pattern      int                 `json:"pattern"` // index in patterns
	At           time.Time           `json:"at"`
	Duration     time.Duration       `json:"duration"` // nanoseconds
	RowsRead     int64               `json:"rows_read"`
	RowsReturned int64               `json:"rows_returned"`
	RowsAffected int64               `json:"rows_affected"`
	ShardQueries int                 `json:"shard_queries"`
	TabletType   platform.TabletType `json:"tablet_type"`
	Tags         map[string]string   `json:"tags,omitempty"`
	Error        string              `json:"error,omitempty"`
	ErrorCode    string              `json:"error_code,omitempty"`
}

// saveTraffic is the snapshot of b's traffic; nil when it has none.
func saveTraffic(b *branchRec) *trafficSnap {
	if len(b.traffic.all()) == 0 {
		return nil
	}
	ts := &trafficSnap{}
	index := map[*queryPattern]int{}
	for _, q := range b.traffic.all() {
		p := q.pattern
		i, ok := index[p]
		if !ok {
			i = len(ts.Patterns)
			index[p] = i
			ts.Patterns = append(ts.Patterns, patternSnap{p.keyspace, p.fingerprint, p.normalized, p.statement, p.tables})
		}
		ss := sampleSnap{
			ID: q.id, Pattern: i, At: q.at, Duration: q.duration, RowsRead: q.rowsRead, RowsReturned: q.rowsReturned,
			RowsAffected: q.rowsAffected, ShardQueries: q.shardQueries, TabletType: q.tablet,
		}
		for _, t := range q.tags {
			if ss.Tags == nil {
				ss.Tags = map[string]string{}
			}
			ss.Tags[t.key] = t.value
		}
		if q.err != nil {
			ss.Error, ss.ErrorCode = q.err.message, q.err.code
		}
		ts.Samples = append(ts.Samples, ss)
	}
	return ts
}

// loadTraffic loads the traffic of b.
func (ld *loader) loadTraffic(b *branchRec, ts *trafficSnap) error {
	if ts == nil {
		return nil
	}
	t := newBranchTraffic()
	patterns := make([]*queryPattern, len(ts.Patterns))
	for i, ps := range ts.Patterns {
		k := patternKey{ps.Keyspace, ps.Fingerprint}
		if t.patterns[k] != nil {
			return fmt.Errorf("traffic: query %s of keyspace %s appears twice", ps.Fingerprint, ps.Keyspace)
		}
		patterns[i] = &queryPattern{
			keyspace: ps.Keyspace, fingerprint: ps.Fingerprint, normalized: ps.Normalized, statement: ps.Statement, tables: ps.Tables,
		}
		t.patterns[k] = patterns[i]
	}
	for _, ss := range ts.Samples {
		if err := loadSample(t, patterns, ss); err != nil {
			return fmt.Errorf("traffic: sample %s: %w", ss.ID, err)
		}
	}
	for _, p := range patterns {
		if p.samples == 0 {
			return fmt.Errorf("traffic: query %s of keyspace %s has no sample", p.fingerprint, p.keyspace)
		}
	}
	b.traffic = t
	return nil
}

// loadSample adds a sample of a snapshot to t.
func loadSample(t *branchTraffic, patterns []*queryPattern, ss sampleSnap) error {
	switch {
	case ss.ID == "":
		return fmt.Errorf("no ID")
	case t.byID[ss.ID] != nil:
		return fmt.Errorf("appears twice")
	case ss.Pattern < 0 || ss.Pattern >= len(patterns):
		return fmt.Errorf("query %d is not in the list of %d", ss.Pattern, len(patterns))
	case ss.ErrorCode != "" && ss.Error == "":
		return fmt.Errorf("an error code without a message")
	case ss.ShardQueries < 1 || ss.Duration < 0 || ss.RowsRead < 0 || ss.RowsReturned < 0 || ss.RowsAffected < 0:
		return fmt.Errorf("a negative count or duration, or no shard query")
	}
	switch ss.TabletType {
	case platform.TabletPrimary, platform.TabletReplica, platform.TabletRDOnly:
	default:
		return fmt.Errorf("unknown tablet type %q", ss.TabletType)
	}
	q := &querySample{
		id: ss.ID, pattern: patterns[ss.Pattern], at: ss.At, duration: ss.Duration, rowsRead: ss.RowsRead,
		rowsReturned: ss.RowsReturned, rowsAffected: ss.RowsAffected, shardQueries: ss.ShardQueries, tablet: ss.TabletType,
	}
	for _, k := range slices.Sorted(maps.Keys(ss.Tags)) {
		q.tags = append(q.tags, trafficTag{k, ss.Tags[k]})
	}
	if ss.Error != "" {
		q.err = newQueryError(ss.Error, ss.ErrorCode)
	}
	t.keep(q)
	return nil
}
