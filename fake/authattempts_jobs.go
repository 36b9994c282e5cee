package fake

import (
	"fmt"

	"github.com/dbplatform/platform-go"
)

// authExportJob moves an authentication-attempt export on from the state
// it was scheduled in (see stepAuthExport): pending to running, running
// to ready or failed.
type authExportJob struct {
	x    *authExportRec
	from platform.AuthAttemptExportState
}

func (j authExportJob) run(w *world) {
	if j.x.state != j.from {
		return
	}
	w.stepAuthExport(j.x)
}

// keep reports whether a snapshot holds the step: not once the export has
// left the state it moves it from.
func (j authExportJob) keep(*saver) bool { return j.x.state == j.from }

func (j authExportJob) save() jobSnap {
	return jobSnap{Kind: "auth_attempt_export.step", ID: j.x.id, Step: string(j.from)}
}

func loadAuthExportJob(ld *loader, js jobSnap) (job, error) {
	x, err := refNonNil(ld.authExports, js.ID, "auth attempt export")
	if err != nil {
		return nil, err
	}
	from := platform.AuthAttemptExportState(js.Step)
	if err := snapOneOf(from, "a state an export leaves on the clock", platform.AuthAttemptExportPending, platform.AuthAttemptExportRunning); err != nil {
		return nil, at(err, "step")
	}
	if x.state != from {
		return nil, fmt.Errorf("auth attempt export %s is %s: its step from %s cannot run", x.id, x.state, from)
	}
	return authExportJob{x: x, from: from}, nil
}
