package fake

import (
	"fmt"

	"github.com/dbplatform/platform-go"
)

// backupJob moves a backup out of state from: pending -> running ->
// success, or failed when a failure was injected. It does nothing if the
// backup has left from meanwhile (canceled or deleted).
type backupJob struct {
	bk   *backupRec
	from platform.BackupState
}

func (j backupJob) run(w *world) {
	bk := j.bk
	if bk.state != j.from {
		return
	}
	now := w.clock.Now()
	if w.takeFailure(bk.id) {
		w.settleBackup(bk, platform.BackupFailed, now)
		return
	}
	switch j.from {
	case platform.BackupPending:
		bk.state = platform.BackupRunning
		bk.started, bk.updated = now, now
		w.clock.After(w.timing.BackupRun, backupJob{bk, platform.BackupRunning})
	case platform.BackupRunning:
		bk.completed = now
		bk.size = backupBaseSize + backupSizePerTable*int64(bk.snapshot.tableCount())
		w.settleBackup(bk, platform.BackupSuccess, now)
	}
}

func (j backupJob) save() jobSnap {
	return jobSnap{Kind: "backup.step", ID: j.bk.id, Step: string(j.from)}
}

func (j backupJob) keep(sv *saver) bool {
	return sv.dbSet[j.bk.branch.db] && j.bk.branch.db.backups.byID[j.bk.id] == j.bk
}

func loadBackupJob(ld *loader, js jobSnap) (job, error) {
	from := platform.BackupState(js.Step)
	if from != platform.BackupPending && from != platform.BackupRunning {
		return nil, fmt.Errorf("a backup does not leave state %q on the clock", js.Step)
	}
	for _, db := range ld.dbs {
		if bk := db.backups.byID[js.ID]; bk != nil {
			return backupJob{bk, from}, nil
		}
	}
	return nil, fmt.Errorf("backup %q is not in the snapshot", js.ID)
}

// policyRunJob runs armed generation gen of a policy, unless the policy was
// updated or deleted since.
type policyRunJob struct {
	p   *policyRec
	gen uint64
}

func (j policyRunJob) run(w *world) {
	if j.p.deleted || j.p.db.deleted || j.p.gen != j.gen {
		return
	}
	w.runPolicy(j.p)
}

func (j policyRunJob) save() jobSnap {
	return jobSnap{Kind: "backup_policy.run", ID: j.p.id, Gen: j.gen}
}

func (j policyRunJob) keep(sv *saver) bool {
	return sv.dbSet[j.p.db] && !j.p.deleted
}

func loadPolicyRunJob(ld *loader, js jobSnap) (job, error) {
	for _, db := range ld.dbs {
		if p := db.backups.policy(js.ID); p != nil {
			return policyRunJob{p, js.Gen}, nil
		}
	}
	return nil, fmt.Errorf("backup policy %q is not in the snapshot", js.ID)
}
