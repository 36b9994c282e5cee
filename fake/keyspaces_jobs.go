package fake

import (
	"fmt"

	"github.com/dbplatform/platform-go"
)

// keyspaceReadyJob runs keyspaceReady.
type keyspaceReadyJob struct{ ks *keyspaceRec }

func (j keyspaceReadyJob) run(w *world) { w.keyspaceReady(j.ks) }

func (j keyspaceReadyJob) save() jobSnap { return jobSnap{Kind: "keyspace.ready", ID: j.ks.id} }

func (j keyspaceReadyJob) keep(sv *saver) bool {
	return sv.keyspace(j.ks)
}

func loadKeyspaceReadyJob(ld *loader, js jobSnap) (job, error) {
	ks, err := ld.keyspace(js.ID)
	return keyspaceReadyJob{ks}, err
}

// keyspaceConfigJob runs keyspaceConfigApplied for settings change gen.
type keyspaceConfigJob struct {
	ks  *keyspaceRec
	gen int
}

func (j keyspaceConfigJob) run(w *world) { w.keyspaceConfigApplied(j.ks, j.gen) }

func (j keyspaceConfigJob) save() jobSnap {
	return jobSnap{Kind: "keyspace.config", ID: j.ks.id, Gen: uint64(j.gen)}
}

func (j keyspaceConfigJob) keep(sv *saver) bool {
	return sv.keyspace(j.ks)
}

func loadKeyspaceConfigJob(ld *loader, js jobSnap) (job, error) {
	ks, err := ld.keyspace(js.ID)
	return keyspaceConfigJob{ks, int(js.Gen)}, err
}

// keyspace reports whether ks is saved, as a keyspace of a saved branch.
func (sv *saver) keyspace(ks *keyspaceRec) bool {
	return sv.branchSet[ks.branch] && ks.branch.keyspace(ks.name) == ks
}

// keyspace finds a keyspace by ID among the loaded branches.
func (ld *loader) keyspace(id string) (*keyspaceRec, error) {
	for _, b := range ld.branches {
		for _, ks := range b.keyspaces.All() {
			if ks.id == id {
				return ks, nil
			}
		}
	}
	return nil, fmt.Errorf("keyspace %q is not in the snapshot", id)
}

// readOnlyRegionReadyJob makes a branch's read-only region ready, unless it
// was removed meanwhile.
type readOnlyRegionReadyJob struct{ rr *readOnlyRegionRec }

func (j readOnlyRegionReadyJob) run(w *world) {
	if !j.rr.removed {
		j.rr.readyAt = w.clock.Now()
		j.rr.updated = j.rr.readyAt
	}
}

func (j readOnlyRegionReadyJob) save() jobSnap {
	return jobSnap{Kind: "read_only_region.ready", ID: j.rr.id}
}

func (j readOnlyRegionReadyJob) keep(sv *saver) bool {
	return sv.readOnlyRegion(j.rr)
}

func loadReadOnlyRegionReadyJob(ld *loader, js jobSnap) (job, error) {
	rr, err := refNonNil(ld.readOnly, js.ID, "read-only region")
	return readOnlyRegionReadyJob{rr}, err
}

// readOnlyRegion reports whether rr is saved, as a read-only region of a
// saved branch.
func (sv *saver) readOnlyRegion(rr *readOnlyRegionRec) bool {
	for b := range sv.branchSet {
		if _, ok := b.readOnlyRegions.Find(rr.ListKey()); ok {
			return true
		}
	}
	return false
}

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

func (j keyspaceResizeJob) keep(sv *saver) bool {
	return sv.keyspace(j.r.ks) && j.r.state == j.from
}

func loadKeyspaceResizeJob(ld *loader, js jobSnap) (job, error) {
	from := platform.KeyspaceResizeState(js.Step)
	if from != platform.KeyspaceResizeQueued && from != platform.KeyspaceResizeResizing {
		return nil, fmt.Errorf("a keyspace resize does not leave state %q on the clock", js.Step)
	}
	r, err := refNonNil(ld.keyspaceResizes, js.ID, "keyspace resize")
	return keyspaceResizeJob{r, from}, err
}
