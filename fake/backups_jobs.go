package fake

import (
	"fmt"
	"time"

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
		w.scheduleExpiry(bk)
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
	bk, err := ld.backup(js.ID)
	if err != nil {
		return nil, err
	}
	return backupJob{bk, from}, nil
}

// backupExpiryJob deletes a successful backup at the end of its retention
// (expireBackup); it does nothing to one deleted meanwhile, or protected.
// Before the end of a retention longer than maxExpiryWait, it puts itself
// back on the clock.
type backupExpiryJob struct{ bk *backupRec }

func (j backupExpiryJob) run(w *world) {
	bk := j.bk
	switch {
	case bk.branch.db.deleted || bk.deleted:
	case w.clock.Now().Before(bk.expiresAt()):
		w.scheduleExpiry(bk)
	default:
		w.expireBackup(bk)
	}
}

func (j backupExpiryJob) save() jobSnap { return jobSnap{Kind: "backup.expire", ID: j.bk.id} }

func (j backupExpiryJob) keep(sv *saver) bool {
	return sv.dbSet[j.bk.branch.db] && j.bk.branch.db.backups.byID[j.bk.id] == j.bk && !j.bk.deleted
}

// loadBackupExpiryJob loads the expiry of a live successful backup, due
// at the end of its retention at the latest.
func loadBackupExpiryJob(ld *loader, js jobSnap) (job, error) {
	bk, err := ld.backup(js.ID)
	switch {
	case err != nil:
		return nil, err
	case bk.deleted || bk.state != platform.BackupSuccess:
		return nil, fmt.Errorf("backup %q has no expiry ahead: only a live backup in state success expires", js.ID)
	case js.At.After(bk.expiresAt()):
		return nil, fmt.Errorf("backup %q expires at the end of its retention, %s, not later (%s)", js.ID, bk.expiresAt().Format(time.RFC3339Nano), js.At.Format(time.RFC3339Nano))
	}
	return backupExpiryJob{bk}, nil
}

// backup finds a backup by ID among the loaded databases.
func (ld *loader) backup(id string) (*backupRec, error) {
	for _, db := range ld.dbs {
		if bk := db.backups.byID[id]; bk != nil {
			return bk, nil
		}
	}
	return nil, fmt.Errorf("backup %q is not in the snapshot", id)
}

// scheduleBackupExpiries puts on the clock the expiry of every live,
// unprotected successful backup whose expiry the snapshot does not hold
// (one written before backups expired, or by hand), after those it holds:
// one past its expiry is deleted as the restored world starts. A protected
// one expires when its protection is removed.
func (ld *loader) scheduleBackupExpiries() {
	held := map[*backupRec]bool{}
	for _, t := range ld.timers {
		if j, ok := t.Job.(backupExpiryJob); ok {
			held[j.bk] = true
		}
	}
	for _, dbID := range sortedKeys(ld.dbs) {
		db := ld.dbs[dbID]
		for _, id := range sortedKeys(db.backups.byID) {
			bk := db.backups.byID[id]
			if held[bk] || bk.deleted || bk.protected || bk.state != platform.BackupSuccess {
				continue
			}
			if at, ok := bk.expiryStep(ld.now); ok {
				ld.seq++
				ld.timers = append(ld.timers, &timer{At: at, Seq: ld.seq, Job: backupExpiryJob{bk}})
			}
		}
	}
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
