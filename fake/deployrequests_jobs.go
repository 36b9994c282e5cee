package fake

import (
	"fmt"
)

// deployJob runs step of the deployment, scheduled at generation gen.
type deployJob struct {
	dr   *drRec
	gen  int
	step deployStep
}

func (j deployJob) run(w *world) {
	if j.dr.dep.gen == j.gen && !j.dr.db.deleted {
		deploySteps[j.step](w, j.dr)
	}
}

func (j deployJob) save() jobSnap {
	return jobSnap{Kind: "deployment.step", ID: j.dr.dep.id, Gen: uint64(j.gen), Step: string(j.step)}
}

func (j deployJob) keep(sv *saver) bool {
	return sv.dbSet[j.dr.db] && !j.dr.db.deleted
}

func loadDeployJob(ld *loader, js jobSnap) (job, error) {
	step := deployStep(js.Step)
	if deploySteps[step] == nil {
		return nil, fmt.Errorf("unknown deployment step %q", js.Step)
	}
	for _, db := range ld.dbs {
		for _, dr := range db.drs.All() {
			if dr.dep.id != js.ID {
				continue
			}
			if int(js.Gen) > dr.dep.gen {
				// A step carries the generation it was scheduled at,
				// which only grows.
				return nil, at(fmt.Errorf("generation %d is after its deployment's %d", js.Gen, dr.dep.gen), "gen")
			}
			return deployJob{dr, int(js.Gen), step}, nil
		}
	}
	return nil, fmt.Errorf("deployment %q is not in the snapshot", js.ID)
}
