package fake

import (
	"fmt"
	"time"

	"github.com/dbplatform/platform-go"
)

// The snapshot of schema recommendations, with their database.

type recSnap struct {
	stampsSnap
	Number      int                                `json:"number"`
	Kind        platform.SchemaRecommendationType  `json:"kind"`
	Keyspace    string                             `json:"keyspace"`
	Table       string                             `json:"table"`
	Subject     string                             `json:"subject"`
	Title       string                             `json:"title"`
	Statement   string                             `json:"statement"`
	State       platform.SchemaRecommendationState `json:"state"`
	Applied     time.Time                          `json:"applied"`
	Dismissed   time.Time                          `json:"dismissed"`
	ClosedBy    int                                `json:"closed_by,omitempty"` // a deploy request number
	DismissedBy string                             `json:"dismissed_by"`
	Reason      string                             `json:"reason"`
}

func saveRecommendations(db *dbRec) []recSnap {
	if db.extra.peek() == nil {
		return nil
	}
	var out []recSnap
	for _, r := range db.extra.peek().recs.list.All() {
		rs := recSnap{
			stampsSnap: saveStamps(r.stamps), Number: r.number, Kind: r.kind, Keyspace: r.keyspace, Table: r.table,
			Subject: r.subject, Title: r.title, Statement: r.statement, State: r.state, Applied: r.applied,
			Dismissed: r.dismissed, DismissedBy: idOf(r.dismissedBy), Reason: r.reason,
		}
		if r.closedBy != nil {
			rs.ClosedBy = r.closedBy.number
		}
		out = append(out, rs)
	}
	return out
}

// loadRecommendations loads db's schema recommendations, after its deploy
// requests; the newest number is the highest loaded.
func (ld *loader) loadRecommendations(db *dbRec, list []recSnap) error {
	for _, rs := range list {
		st := db.extras().recs.init()
		if rs.Number <= 0 || st.byNumber[rs.Number] != nil {
			return fmt.Errorf("schema recommendation %s: number %d missing or twice", rs.ID, rs.Number)
		}
		r := &recRec{
			stamps: rs.load(), db: db, number: rs.Number, state: rs.State, applied: rs.Applied, dismissed: rs.Dismissed, reason: rs.Reason,
			finding: finding{kind: rs.Kind, keyspace: rs.Keyspace, table: rs.Table, subject: rs.Subject, title: rs.Title, statement: rs.Statement},
		}
		switch r.state {
		case platform.RecommendationOpen:
			st.open++
		case platform.RecommendationApplied, platform.RecommendationDismissed, platform.RecommendationStale:
		default:
			return fmt.Errorf("schema recommendation #%d: unknown state %q", r.number, r.state)
		}
		var err error
		if r.dismissedBy, err = ref(ld.users, rs.DismissedBy, "user who dismissed a schema recommendation"); err != nil {
			return err
		}
		if rs.ClosedBy != 0 {
			if r.closedBy = db.drByNumber[rs.ClosedBy]; r.closedBy == nil {
				return fmt.Errorf("schema recommendation #%d: no deploy request #%d", r.number, rs.ClosedBy)
			}
		}
		st.list.Add(r)
		st.byNumber[r.number] = r
		st.last = max(st.last, r.number)
	}
	return nil
}
