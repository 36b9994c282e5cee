package fake

import (
	"fmt"

	"github.com/dbplatform/platform-go"
)

// keyspaceResizeJob moves a keyspace resize request out of state from
// (queued or resizing) to its next state; it does nothing if the request
// has left from meanwhile (it was canceled) or its keyspace is gone.
type keyspaceResizeJob struct {
	r    *keyspaceResizeRec
	from platform.KeyspaceResizeState
}

func (j keyspaceResizeJob) run(w *world) {
	if j.from == platform.KeyspaceResizeQueued {
		w.keyspaceResizeStart(j.r)
	} else {
		w.keyspaceResizeComplete(j.r)
	}
}

func (j keyspaceResizeJob) save() jobSnap {
	return jobSnap{Kind: "keyspace_resize.step", ID: j.r.id, Step: string(j.from)}
}

func loadKeyspaceResizeJob(ld *loader, js jobSnap) (job, error) {
	from := platform.KeyspaceResizeState(js.Step)
	if from != platform.KeyspaceResizeQueued && from != platform.KeyspaceResizeResizing {
		return nil, fmt.Errorf("a keyspace resize does not leave state %q on the clock", js.Step)
	}
	r, err := refNonNil(ld.keyspaceResizes, js.ID, "keyspace resize")
	return keyspaceResizeJob{r, from}, err
}
