package fake

import (
	"fmt"
	"time"

	"github.com/dbplatform/platform-go"
)

// The snapshot of switchovers, with their branch.

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
			if n := b.postgresInstances(); sw.candidate < 0 || sw.candidate >= n {
				return fmt.Errorf("switchover %s: candidate %d is not an instance of branch %s (0 to %d)", sw.id, sw.candidate, b.name, n-1)
			}
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
