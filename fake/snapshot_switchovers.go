package fake

import (
	"fmt"
	"time"

	"github.com/dbplatform/platform-go"
)

// The snapshot of switchovers (with their branch) and of maintenance
// windows (with their database).

type switchoverSnap struct {
	stampsSnap
	State     platform.SwitchoverState  `json:"state"`
	Method    platform.SwitchoverMethod `json:"method"`
	Candidate int                       `json:"candidate"`
	Error     string                    `json:"error"`
	Actor     string                    `json:"actor"`
	Completed time.Time                 `json:"completed"`
}

func saveSwitchovers(b *branchRec) []switchoverSnap {
	var out []switchoverSnap
	for _, sw := range b.more.read().switchovers.All() {
		out = append(out, switchoverSnap{
			stampsSnap: saveStamps(sw.stamps), State: sw.state, Method: sw.method, Candidate: sw.candidate,
			Error: sw.err, Actor: idOf(sw.actor), Completed: sw.completed,
		})
	}
	return out
}

// loadSwitchovers loads the switchovers of b; the one pending or running
// is b's running switchover.
func (ld *loader) loadSwitchovers(b *branchRec, list []switchoverSnap) error {
	for _, ss := range list {
		if err := unique(ld.switchovers, ss.ID, "switchover"); err != nil {
			return err
		}
		actor, err := ref(ld.users, ss.Actor, "switchover actor")
		if err != nil {
			return err
		}
		sw := &switchoverRec{
			stamps: ss.load(), branch: b, state: ss.State, method: ss.Method, candidate: ss.Candidate,
			err: ss.Error, actor: actor, completed: ss.Completed,
		}
		switch sw.state {
		case platform.SwitchoverPending, platform.SwitchoverRunning:
			if b.x().switchovers.running != nil {
				return fmt.Errorf("switchovers %s and %s both in progress", b.x().switchovers.running.id, sw.id)
			}
			b.x().switchovers.running = sw
		case platform.SwitchoverSucceeded, platform.SwitchoverFailed, platform.SwitchoverCanceled:
		default:
			return fmt.Errorf("switchover %s: unknown state %q", sw.id, sw.state)
		}
		ld.switchovers[sw.id] = sw
		b.x().switchovers.Add(sw)
	}
	return nil
}

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
