package fake

import (
	"fmt"
	"strings"
)

// vrCopyJob ends the copy of a workflow other than a MoveTables one
// (whose copy is its documented workflow's step), scheduled for when the
// copy is due: the streams' state follows from the clock already, so it
// only records the change as the workflow's last update. It does nothing
// when the copy it was scheduled for is no longer the workflow's
// (stopped, deleted, or started again with a later due time).
type vrCopyJob struct {
	b  *branchRec
	vw *vrWorkflow
}

func (j vrCopyJob) run(w *world) {
	if now := w.clock.Now(); j.live() && j.vw.copyDue.Equal(now) {
		j.vw.updated = now
	}
}

// live reports whether j's workflow is still its branch's.
func (j vrCopyJob) live() bool {
	return !j.b.deleted && j.b.more.read().vitess.vrWorkflow(j.vw.target, j.vw.name) == j.vw
}

func (j vrCopyJob) save() jobSnap {
	return jobSnap{Kind: "vreplication.copy", ID: j.b.id, Step: j.vw.id()}
}

func (j vrCopyJob) keep(sv *saver) bool { return sv.branchSet[j.b] && j.live() }

// loadVRCopyJob finds the workflow a copy job ends by its branch and its
// target keyspace's ID and name.
func loadVRCopyJob(ld *loader, js jobSnap) (job, error) {
	b, err := refNonNil(ld.branches, js.ID, "branch")
	if err != nil {
		return nil, err
	}
	ksID, name, ok := strings.Cut(js.Step, "/")
	if !ok {
		return nil, fmt.Errorf("a VReplication copy names its workflow as <keyspace id>/<name>, not %q", js.Step)
	}
	for _, vw := range b.more.read().vitess.workflows {
		if vw.doc == nil && vw.target.id == ksID && vw.name == name {
			return vrCopyJob{b, vw}, nil
		}
	}
	return nil, fmt.Errorf("branch %s has no workflow %s of Materialize or a lookup vindex", b.name, js.Step)
}
