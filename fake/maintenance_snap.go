package fake

import (
	"fmt"
	"time"
)

// The snapshot of maintenance windows, with their database.

type windowSnap struct {
	stampsSnap
	Branch   string    `json:"branch"`
	Started  time.Time `json:"started"`
	Finished time.Time `json:"finished"`
}

func saveWindows(db *dbRec) []windowSnap {
	var out []windowSnap
	for _, w := range db.more.read().maintenance.windows.All() {
		out = append(out, windowSnap{stampsSnap: saveStamps(w.stamps), Branch: w.branch.id, Started: w.started, Finished: w.finished})
	}
	return out
}

// loadWindows loads the maintenance windows of db; the one not finished is
// the running one.
func (ld *loader) loadWindows(db *dbRec, list []windowSnap) error {
	for _, ws := range list {
		if err := unique(ld.windows, ws.ID, "maintenance window"); err != nil {
			return err
		}
		b, err := refNonNil(ld.branches, ws.Branch, "branch of a maintenance window")
		if err != nil {
			return err
		}
		if b.db != db {
			return fmt.Errorf("maintenance window %s: branch %s is of another database", ws.ID, b.id)
		}
		w := &windowRec{stamps: ws.load(), branch: b, started: ws.Started, finished: ws.Finished}
		if w.finished.IsZero() {
			if db.x().maintenance.running != nil {
				return fmt.Errorf("maintenance windows %s and %s both running", db.x().maintenance.running.id, w.id)
			}
			db.x().maintenance.running = w
		}
		ld.windows[w.id] = w
		db.x().maintenance.windows.Add(w)
	}
	return nil
}
