package fake

import (
	"fmt"
	"time"

	"github.com/dbplatform/platform-go"
)

// The snapshot of backups and backup policies.

type backupSnap struct {
	stampsSnap
	Branch     string               `json:"branch"`
	Name       string               `json:"name"`
	State      platform.BackupState `json:"state"`
	Production bool                 `json:"production"`
	Protected  bool                 `json:"protected"`
	Required   bool                 `json:"required"`
	Policy     string               `json:"policy"`
	Actor      string               `json:"actor"`
	Retention  retentionSnap        `json:"retention"`
	Started    time.Time            `json:"started"`
	Completed  time.Time            `json:"completed"`
	Ended      time.Time            `json:"ended"`
	Deleted    bool                 `json:"deleted"`
	Expired    bool                 `json:"expired"`
	DeletedAt  time.Time            `json:"deleted_at"`
	Size       int64                `json:"size"`
	Schema     *schemaSnap          `json:"schema"`
	Restored   []string             `json:"restored"` // branch IDs
}

type retentionSnap struct {
	Value int                    `json:"value"`
	Unit  platform.RetentionUnit `json:"unit"`
}

// schemaSnap is the schema a backup holds.
type schemaSnap struct {
	ID        string               `json:"id"`
	Taken     time.Time            `json:"taken"`
	Keyspaces []schemaKeyspaceSnap `json:"keyspaces"`
}

type schemaKeyspaceSnap struct {
	Name          string            `json:"name"`
	Shards        int               `json:"shards"`
	ExtraReplicas int               `json:"extra_replicas"`
	IsDefault     bool              `json:"is_default"`
	Tables        map[string]string `json:"tables"`
}

type policySnap struct {
	stampsSnap
	Name        string                      `json:"name"`
	Target      platform.BackupPolicyTarget `json:"target"`
	Retention   retentionSnap               `json:"retention"`
	Schedule    scheduleSnap                `json:"schedule"`
	Day         *int                        `json:"schedule_day"`
	Week        *int                        `json:"schedule_week"`
	DisplayName string                      `json:"display_name"`
	Required    bool                        `json:"required"`
	LastRan     time.Time                   `json:"last_ran"`
	NextRun     time.Time                   `json:"next_run"`
	Deleted     bool                        `json:"deleted,omitempty"`
	Gen         uint64                      `json:"gen"`
}

type scheduleSnap struct {
	Unit   platform.FrequencyUnit `json:"unit"`
	Every  int                    `json:"every"`
	Hour   int                    `json:"hour"`
	Minute int                    `json:"minute"`
	Day    int                    `json:"day"`
	Week   int                    `json:"week"`
}

func saveBackups(db *dbRec) []backupSnap {
	var out []backupSnap
	for _, id := range sortedKeys(db.backups.byID) {
		bk := db.backups.byID[id]
		bs := backupSnap{
			stampsSnap: saveStamps(bk.stamps), Branch: bk.branch.id, Name: bk.name, State: bk.state,
			Production: bk.production, Protected: bk.protected, Required: bk.required,
			Policy: idOf(bk.policy), Actor: idOf(bk.actor), Retention: retentionSnap{bk.retention.value, bk.retention.unit},
			Started: bk.started, Completed: bk.completed, Ended: bk.ended, Deleted: bk.deleted,
			Expired: bk.expired, DeletedAt: bk.deletedAt, Size: bk.size, Restored: idsOf(bk.restored),
		}
		if sn := bk.snapshot; sn != nil {
			bs.Schema = &schemaSnap{ID: sn.id, Taken: sn.taken}
			for _, k := range sn.keyspaces {
				bs.Schema.Keyspaces = append(bs.Schema.Keyspaces, schemaKeyspaceSnap{k.name, k.shards, k.extraReplicas, k.isDefault, k.tables})
			}
		}
		out = append(out, bs)
	}
	return out
}

// validate checks what the API checks of a backup: its state, retention,
// size, and the keyspaces of its schema, which a branch restored from it
// gets.
func (bs *backupSnap) validate() error {
	state := snapOneOf(bs.State, "a backup state", platform.BackupPending, platform.BackupRunning, platform.BackupSuccess,
		platform.BackupFailed, platform.BackupCanceled, platform.BackupIgnored)
	size := snapNonNegative(bs.Size)
	errs := []error{
		at(state, "state"), at(size, "size"),
		at(snapCheck(retention{bs.Retention.Value, bs.Retention.Unit}.check()), "retention"),
	}
	if bs.Expired {
		// The platform deletes a successful backup, at the end of its
		// retention or later (once its protection is removed).
		ret := retention{bs.Retention.Value, bs.Retention.Unit}
		switch {
		case !bs.Deleted || bs.State != platform.BackupSuccess:
			errs = append(errs, at(fmt.Errorf("an expired backup is a deleted one in state success, not %s (deleted %v)", bs.State, bs.Deleted), "expired"))
		case ret.check() == nil && bs.DeletedAt.Before(ret.after(bs.Completed)):
			errs = append(errs, at(fmt.Errorf("an expired backup is deleted at the end of its retention or later, not %s", bs.DeletedAt.Format(time.RFC3339Nano)), "deleted_at"))
		}
	}
	if bs.Schema != nil {
		for i, k := range bs.Schema.Keyspaces {
			errs = append(errs, at(snapName(k.Name), "schema.keyspaces[%d].name", i),
				at(snapRange(k.Shards, 1, maxShards), "schema.keyspaces[%d].shards", i),
				at(snapRange(k.ExtraReplicas, 0, maxKeyspaceReplicas), "schema.keyspaces[%d].extra_replicas", i),
				at(snapObject(k.Tables), "schema.keyspaces[%d].tables", i),
				at(snapTables(k.Tables), "schema.keyspaces[%d].tables", i))
		}
	}
	return firstErr(errs...)
}

func (ld *loader) loadBackups(db *dbRec, list []backupSnap, policies map[string]*policyRec) error {
	for i, bs := range list {
		if err := unique(db.backups.byID, bs.ID, "backup"); err != nil {
			return at(err, "backups[%d].id", i)
		}
		if err := bs.validate(); err != nil {
			return at(err, "backups[%d]", i)
		}
		var err error
		bk := &backupRec{
			stamps: bs.load(), name: bs.Name, state: bs.State, production: bs.Production,
			protected: bs.Protected, required: bs.Required, retention: retention{bs.Retention.Value, bs.Retention.Unit},
			started: bs.Started, completed: bs.Completed, ended: bs.Ended, deleted: bs.Deleted,
			expired: bs.Expired, deletedAt: bs.DeletedAt, size: bs.Size,
		}
		if bk.branch, err = ref(ld.branches, bs.Branch, "branch"); err == nil && bk.branch == nil {
			err = fmt.Errorf("no branch")
		}
		if err == nil {
			bk.policy, err = ref(policies, bs.Policy, "policy")
		}
		if err == nil {
			bk.actor, err = ref(ld.users, bs.Actor, "actor")
		}
		if err == nil {
			bk.restored, err = refs(ld.branches, bs.Restored, "restored branch")
		}
		if err != nil {
			return named(err, "backup %s", bs.ID)
		}
		if bk.branch.db != db {
			return at(fmt.Errorf("branch %s is of database %s, not %s", bk.branch.id, bk.branch.db.id, db.id), "backups[%d].branch", i)
		}
		for j, b := range bk.restored {
			if b.db != db {
				return at(fmt.Errorf("branch %s is of database %s, not %s", b.id, b.db.id, db.id), "backups[%d].restored[%d]", i, j)
			}
		}
		if sn := bs.Schema; sn != nil {
			bk.snapshot = &schemaSnapshot{id: sn.ID, taken: sn.Taken}
			for _, k := range sn.Keyspaces {
				bk.snapshot.keyspaces = append(bk.snapshot.keyspaces, snapshotKeyspace{k.Name, k.Shards, k.ExtraReplicas, k.IsDefault, k.Tables})
			}
		}
		db.backups.addBackup(bk)
		if bk.deleted {
			db.backups.byBranch[bk.branch].live.Remove(bk)
		}
	}
	return nil
}

func savePolicies(db *dbRec) []policySnap {
	set := map[*policyRec]bool{}
	for _, p := range db.backups.policies.All() {
		set[p] = true
	}
	for _, bk := range db.backups.byID {
		if bk.policy != nil {
			set[bk.policy] = true // a deleted policy its backups name
		}
	}
	var out []policySnap
	for _, p := range listOrder(set) {
		out = append(out, policySnap{
			stampsSnap: saveStamps(p.stamps), Name: p.name, Target: p.target,
			Retention: retentionSnap{p.retention.value, p.retention.unit},
			Schedule:  scheduleSnap{p.sched.unit, p.sched.every, p.sched.hour, p.sched.minute, p.sched.day, p.sched.week},
			Day:       p.day, Week: p.week, DisplayName: p.displayName, Required: p.required,
			LastRan: p.lastRan, NextRun: p.nextRun, Deleted: p.deleted, Gen: p.gen,
		})
	}
	return out
}

// loadPolicies loads the policies of db and returns them by ID, deleted
// ones included, for its backups to find.
func (ld *loader) loadPolicies(db *dbRec, list []policySnap) (map[string]*policyRec, error) {
	byID := map[string]*policyRec{}
	for i, ps := range list {
		if err := unique(byID, ps.ID, "backup policy"); err != nil {
			return nil, at(err, "backup_policies[%d].id", i)
		}
		p := &policyRec{
			stamps: ps.load(), db: db, displayName: ps.DisplayName, required: ps.Required,
			lastRan: ps.LastRan, nextRun: ps.NextRun, deleted: ps.Deleted, gen: ps.Gen,
			policySpec: policySpec{
				name: ps.Name, target: ps.Target, retention: retention{ps.Retention.Value, ps.Retention.Unit},
				sched: schedule{ps.Schedule.Unit, ps.Schedule.Every, ps.Schedule.Hour, ps.Schedule.Minute, ps.Schedule.Day, ps.Schedule.Week},
				day:   ps.Day, week: ps.Week,
			},
		}
		// Checked as a request would leave it, on a copy: complete fills
		// what it leaves out.
		spec := p.policySpec
		if err := spec.complete(platform.Ptr(spec.sched.timeOfDay())); err != nil {
			return nil, at(snapCheck(err), "backup_policies[%d]", i)
		}
		if err := snapCounter(ps.Gen); err != nil {
			return nil, at(err, "backup_policies[%d].gen", i)
		}
		byID[p.id] = p
		if !p.deleted {
			db.backups.addPolicy(p)
		}
	}
	return byID, nil
}
