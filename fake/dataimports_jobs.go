package fake

import (
	"fmt"

	"github.com/dbplatform/platform-go"
)

// importStepJob ends the step of an import in state from: the next state of
// the happy path, or the step's error state when FailNext asked for it. It
// does nothing if the import has left from meanwhile or its database is
// gone (cancelled).
type importStepJob struct {
	imp  *importRec
	from platform.DataImportState
}

// importSteps are the states an import leaves on the clock: where each goes
// and where it fails.
var importSteps = map[platform.DataImportState]struct{ next, failed platform.DataImportState }{
	platform.DataImportPreparingDataCopy:             {platform.DataImportCopyingData, platform.DataImportPreparingDataCopyFailed},
	platform.DataImportCopyingData:                   {platform.DataImportSwitchTrafficPending, platform.DataImportCopyingDataFailed},
	platform.DataImportSwitchTrafficRunning:          {platform.DataImportSwitchTrafficCompleted, platform.DataImportSwitchTrafficError},
	platform.DataImportReverseTrafficRunning:         {platform.DataImportSwitchTrafficPending, platform.DataImportReverseTrafficError},
	platform.DataImportDetachExternalDatabaseRunning: {platform.DataImportReady, platform.DataImportDetachExternalDatabaseError},
}

// importFailures say why each step failed, in import_check_errors.
var importFailures = map[platform.DataImportState]string{
	platform.DataImportPreparingDataCopyFailed:     "the external database's binary log could not be read for the copy",
	platform.DataImportCopyingDataFailed:           "copying the external database's rows stopped on an error",
	platform.DataImportSwitchTrafficError:          "traffic could not be switched to the imported database",
	platform.DataImportReverseTrafficError:         "traffic could not be switched back to the external database",
	platform.DataImportDetachExternalDatabaseError: "the external database could not be detached",
}

func (j importStepJob) run(w *world) { w.importStep(j.imp, j.from) }

// keep reports whether a snapshot holds the step: while the import's
// database is saved and not deleted.
func (j importStepJob) keep(sv *saver) bool { return sv.dbSet[j.imp.db] && !j.imp.db.deleted }

func (j importStepJob) save() jobSnap {
	return jobSnap{Kind: "data_import.step", ID: j.imp.id, Step: string(j.from)}
}

func loadImportStepJob(ld *loader, js jobSnap) (job, error) {
	from := platform.DataImportState(js.Step)
	if _, ok := importSteps[from]; !ok {
		return nil, fmt.Errorf("a data import does not leave state %q on the clock", js.Step)
	}
	imp, err := refNonNil(ld.imports, js.ID, "data import")
	return importStepJob{imp, from}, err
}

// importStep ends imp's step in state from.
func (w *world) importStep(imp *importRec, from platform.DataImportState) {
	if imp.db.deleted || imp.state != from {
		return
	}
	now := w.clock.Now()
	step := importSteps[from]
	imp.updated = now
	if w.takeFailure(imp.id) {
		imp.state = step.failed
		imp.checkErrors = importFailures[step.failed]
		w.endFlight(imp.id)
		return
	}
	imp.state = step.next
	switch imp.state {
	case platform.DataImportCopyingData:
		w.clock.After(w.timing.DataImportCopy, importStepJob{imp, imp.state})
	case platform.DataImportSwitchTrafficPending:
		imp.db.state = platform.DatabaseImportReady
		imp.db.updated = now
	case platform.DataImportReady:
		imp.finished = now
		imp.db.state = platform.DatabaseReady
		imp.db.updated = now
		w.endFlight(imp.id)
	}
}
