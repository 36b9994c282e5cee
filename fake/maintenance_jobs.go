package fake

// maintenanceEndJob finishes a maintenance window once Timings.Maintenance
// has passed, unless it was finished before (its branch was deleted).
type maintenanceEndJob struct{ w *windowRec }

func (j maintenanceEndJob) run(w *world) {
	if j.w.branch.db.x().maintenance.running == j.w {
		w.finishMaintenance(j.w)
	}
}

func (j maintenanceEndJob) save() jobSnap {
	return jobSnap{Kind: "maintenance.end", ID: j.w.id}
}

func (j maintenanceEndJob) keep(sv *saver) bool {
	return sv.dbSet[j.w.branch.db]
}

func loadMaintenanceEndJob(ld *loader, js jobSnap) (job, error) {
	w, err := refNonNil(ld.windows, js.ID, "maintenance window")
	return maintenanceEndJob{w}, err
}
