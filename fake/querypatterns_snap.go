package fake

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/dbplatform/platform-go"
)

// The snapshot of query-patterns reports, with their branch. A completed
// report keeps the patterns it was generated with; the signed addresses of
// downloads are not kept (each server signs with a key of its own, so an
// address from before a restore is refused as changed).

type qpReportSnap struct {
	stampsSnap
	Seq      uint64                            `json:"seq"`
	State    platform.QueryPatternsReportState `json:"state"`
	Actor    string                            `json:"actor"`
	Finished time.Time                         `json:"finished"`
	Patterns []*platform.QueryPattern          `json:"patterns"`
}

// saveQPReports saves the query-patterns reports of b, and the places of
// those deleted.
func saveQPReports(b *branchRec) ([]qpReportSnap, map[string]uint64) {
	var out []qpReportSnap
	rs := b.more.read().qpReports
	for _, r := range rs.list {
		out = append(out, qpReportSnap{
			stampsSnap: saveStamps(r.stamps), Seq: r.seq, State: r.state, Actor: idOf(r.actor), Finished: r.finished, Patterns: r.patterns,
		})
	}
	return out, maps.Clone(rs.gone)
}

// loadQPReports loads the query-patterns reports of b, and the places of
// those deleted (each a place of its own, none a report's ID).
func (ld *loader) loadQPReports(b *branchRec, list []qpReportSnap, gone map[string]uint64) error {
	for _, rs := range list {
		if err := unique(ld.qpReports, rs.ID, "query-patterns report"); err != nil {
			return err
		}
		actor, err := ref(ld.users, rs.Actor, "query-patterns report actor")
		if err != nil {
			return err
		}
		switch rs.State {
		case platform.QueryPatternsReportPending, platform.QueryPatternsReportCompleted, platform.QueryPatternsReportFailed:
		default:
			return fmt.Errorf("query-patterns report %s: unknown state %q", rs.ID, rs.State)
		}
		if rs.Seq > maxQPSeq {
			return fmt.Errorf("query-patterns report %s: seq %d is beyond %d", rs.ID, rs.Seq, uint64(maxQPSeq))
		}
		if rs.Seq <= b.x().qpReports.seq {
			return fmt.Errorf("query-patterns report %s: seq %d is not after the previous report's %d", rs.ID, rs.Seq, b.x().qpReports.seq)
		}
		if (rs.State == platform.QueryPatternsReportPending) != rs.Finished.IsZero() {
			return fmt.Errorf("query-patterns report %s: a %s report with finished time %v", rs.ID, rs.State, rs.Finished)
		}
		r := &qpReportRec{stamps: rs.load(), seq: rs.Seq, branch: b, state: rs.State, actor: actor, finished: rs.Finished, patterns: rs.Patterns}
		ld.qpReports[r.id] = r
		b.x().qpReports.add(r)
	}
	if len(gone) == 0 {
		return nil
	}
	if len(gone) > maxGoneQPReports {
		return fmt.Errorf("deleted query-patterns reports: %d, beyond the %d a branch keeps", len(gone), maxGoneQPReports)
	}
	places := map[uint64]string{}
	for _, r := range b.x().qpReports.list {
		places[r.seq] = r.id
	}
	for _, id := range slices.Sorted(maps.Keys(gone)) {
		seq := gone[id]
		switch {
		case id == "":
			return fmt.Errorf("deleted query-patterns reports: an empty ID")
		case b.x().qpReports.byID[id] != nil:
			return fmt.Errorf("deleted query-patterns report %s is also a report of branch %s", id, b.name)
		case ld.ids[id]:
			return fmt.Errorf("deleted query-patterns report %s: the ID of a record of the snapshot", id)
		case seq == 0:
			return fmt.Errorf("deleted query-patterns report %s: seq 0; places start at 1", id)
		case seq > maxQPSeq:
			return fmt.Errorf("deleted query-patterns report %s: seq %d is beyond %d", id, seq, uint64(maxQPSeq))
		case places[seq] != "":
			return fmt.Errorf("deleted query-patterns report %s: seq %d is also %s's", id, seq, places[seq])
		}
		places[seq] = id
		// A new report goes after every place taken, a deleted one's too.
		b.x().qpReports.seq = max(b.x().qpReports.seq, seq)
	}
	b.x().qpReports.gone = maps.Clone(gone)
	return nil
}
