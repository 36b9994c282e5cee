package fake

import (
	"github.com/dbplatform/platform-go"
)

// databaseReadyJob is the pending -> ready transition of a database.
type databaseReadyJob struct{ db *dbRec }

func (j databaseReadyJob) run(w *world) {
	if !j.db.deleted {
		j.db.state = platform.DatabaseReady
		j.db.updated = w.clock.Now()
	}
}

func (j databaseReadyJob) save() jobSnap { return jobSnap{Kind: "database.ready", ID: j.db.id} }

func (j databaseReadyJob) keep(sv *saver) bool {
	return sv.dbSet[j.db]
}

func loadDatabaseReadyJob(ld *loader, js jobSnap) (job, error) {
	db, err := refNonNil(ld.dbs, js.ID, "database")
	return databaseReadyJob{db}, err
}
