package fake

import (
	"fmt"
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

func saveQPReports(b *branchRec) []qpReportSnap {
	var out []qpReportSnap
	for _, r := range b.more.read().qpReports.list {
		out = append(out, qpReportSnap{
			stampsSnap: saveStamps(r.stamps), Seq: r.seq, State: r.state, Actor: idOf(r.actor), Finished: r.finished, Patterns: r.patterns,
		})
	}
	return out
}

// loadQPReports loads the query-patterns reports of b.
func (ld *loader) loadQPReports(b *branchRec, list []qpReportSnap) error {
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
	return nil
}
