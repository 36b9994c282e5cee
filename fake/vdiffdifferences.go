package fake

import (
	"fmt"
	"slices"
	"strings"
)

// The differences tests arrange for the VDiffs of a branch to find: the
// vtctld VDiffs (vitess_vdiff.go) and the data verifications of the
// documented workflows (workflows_streams.go) both read them.

// VDiffDifferences are the differences a VDiff finds in one table: the
// rows, each named by its primary key value (the values of a key of
// several columns separated by commas, in the key's order), that differ
// between source and target, that only the source has, and that only the
// target has. The rows are spread over the target keyspace's shards in
// turn (the first row on the first shard, the second on the second...).
type VDiffDifferences struct {
	// Mismatched are the rows that differ between source and target.
	Mismatched []string `json:"mismatched,omitempty"`
	// ExtraSource are the rows only the source has.
	ExtraSource []string `json:"extra_source,omitempty"`
	// ExtraTarget are the rows only the target has.
	ExtraTarget []string `json:"extra_target,omitempty"`
}

// empty reports whether d holds no difference.
func (d *VDiffDifferences) empty() bool {
	return d == nil || len(d.Mismatched)+len(d.ExtraSource)+len(d.ExtraTarget) == 0
}

// SetVDiffDifferences arranges what VDiffs find in a table of a keyspace
// of a MySQL branch, the target keyspace of a workflow that moves it: a
// shard of a VDiff reads them when it starts comparing, and a workflow's
// data verification (verify-data) when it begins, so they show in the
// VDiffs and verifications started after the call. Differences with no
// rows remove the arrangement.
func (s *Server) SetVDiffDifferences(org, database, branch, keyspace, table string, d VDiffDifferences) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, err := s.world.findBranch(org, database, branch)
	if err != nil {
		return methodErr("SetVDiffDifferences", err)
	}
	if err := vitessKind(b); err != nil {
		return fmt.Errorf("fake: SetVDiffDifferences: %s", err.(*apiError).message)
	}
	ks := b.keyspace(keyspace)
	if ks == nil {
		return fmt.Errorf("fake: SetVDiffDifferences: keyspace %q is not a keyspace of branch %s", keyspace, b.name)
	}
	if err := checkVDiffDifferences(table, &d); err != nil {
		return methodErr("SetVDiffDifferences", err)
	}
	s.world.setVDiffDifferences(b, vdiffTableKey{ks.id, table}, d)
	return nil
}

// checkVDiffDifferences checks arranged differences of a table: a table
// name, rows named by non-empty keys, none named twice in one list.
func checkVDiffDifferences(table string, d *VDiffDifferences) error {
	if err := snapName(table); err != nil {
		return fmt.Errorf("table: %w", err)
	}
	for _, l := range []struct {
		field string
		rows  []string
	}{{"mismatched", d.Mismatched}, {"extra_source", d.ExtraSource}, {"extra_target", d.ExtraTarget}} {
		for i, r := range l.rows {
			switch {
			case strings.TrimSpace(r) == "":
				return fmt.Errorf("%s[%d] is empty: name a row by its primary key", l.field, i)
			case slices.Index(l.rows, r) < i:
				return fmt.Errorf("%s[%d] %q is named twice", l.field, i, r)
			}
		}
	}
	return nil
}

// setVDiffDifferences sets (or, without rows, removes) the differences
// arranged for a table.
func (w *world) setVDiffDifferences(b *branchRec, k vdiffTableKey, d VDiffDifferences) {
	if d.empty() {
		if st := b.more.peek(); st != nil {
			delete(st.vitess.vdiff.diffs, k)
		}
		return
	}
	st := &b.vitess().vdiff
	if st.diffs == nil {
		st.diffs = map[vdiffTableKey]*VDiffDifferences{}
	}
	st.diffs[k] = &VDiffDifferences{Mismatched: slices.Clone(d.Mismatched), ExtraSource: slices.Clone(d.ExtraSource), ExtraTarget: slices.Clone(d.ExtraTarget)}
}
