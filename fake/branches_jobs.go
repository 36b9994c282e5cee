package fake

// branchReadyJob runs branchReady.
type branchReadyJob struct{ b *branchRec }

func (j branchReadyJob) run(w *world) { w.branchReady(j.b) }

func (j branchReadyJob) save() jobSnap { return jobSnap{Kind: "branch.ready", ID: j.b.id} }

func (j branchReadyJob) keep(sv *saver) bool {
	return sv.branchSet[j.b]
}

func loadBranchReadyJob(ld *loader, js jobSnap) (job, error) {
	b, err := refNonNil(ld.branches, js.ID, "branch")
	return branchReadyJob{b}, err
}
