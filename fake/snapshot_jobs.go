package fake

import (
	"errors"
	"fmt"
	"time"

	"github.com/dbplatform/platform-go"
)

// jobSnap is a transition waiting on the clock, as a snapshot holds it: its
// kind, when it is due, the order it was scheduled in, and what it acts on.
type jobSnap struct {
	Kind string    `json:"kind"`
	At   time.Time `json:"at"`
	Seq  uint64    `json:"seq"`
	// ID is the resource the job acts on; for a deploy request, its
	// deployment's ID; for an authorization code, its hash.
	ID string `json:"id"`
	// Gen is the generation of the resource the job was scheduled for
	// (deployments, policies, keyspace settings changes).
	Gen uint64 `json:"gen,omitempty"`
	// Step is the deployment's step, or the state a backup leaves.
	Step     string        `json:"step,omitempty"`
	Delivery *deliverySnap `json:"delivery,omitempty"`
}

// deliverySnap is a webhook delivery waiting for its retry.
type deliverySnap struct {
	ID      string                `json:"id"`
	Event   platform.WebhookEvent `json:"event"`
	Body    []byte                `json:"body"`
	Attempt int                   `json:"attempt"`
	Retry   bool                  `json:"retry"`
}

// jobLoaders build each kind of job again from its snapshot. A new kind of
// transition adds its loader here, next to the save method of its job.
var jobLoaders = map[string]func(ld *loader, js jobSnap) (job, error){
	"database.ready":                 loadDatabaseReadyJob,
	"branch.ready":                   loadBranchReadyJob,
	"keyspace.ready":                 loadKeyspaceReadyJob,
	"keyspace.config":                loadKeyspaceConfigJob,
	"backup.step":                    loadBackupJob,
	"backup_policy.run":              loadPolicyRunJob,
	"deployment.step":                loadDeployJob,
	"webhook.retry":                  loadRetryJob,
	"oauth_code.expire":              loadCodeExpiryJob,
	"read_only_region.ready":         loadReadOnlyRegionReadyJob,
	"oauth_device.forget":            loadDeviceExpiryJob,
	"switchover.step":                loadSwitchoverJob,
	"maintenance.end":                loadMaintenanceEndJob,
	"bouncer.ready":                  loadBouncerReadyJob,
	"bouncer_resize.step":            loadBouncerResizeJob,
	"keyspace_resize.step":           loadKeyspaceResizeJob,
	"branch_change.step":             loadBranchChangeJob,
	"workflow.step":                  loadWorkflowJob,
	"query_patterns_report.generate": loadQPReportJob,
	"invoice.issue":                  loadInvoiceJob,
	"data_import.step":               loadImportStepJob,
}

// loadJobs puts the snapshot's transitions on the new clock.
func (ld *loader) loadJobs(list []jobSnap) error {
	seqs := make(map[uint64]bool, len(list))
	for i, js := range list {
		j, err := ld.loadJob(js, seqs)
		if err != nil {
			return at(err, "transitions[%d]", i)
		}
		ld.timers = append(ld.timers, &timer{At: js.At, Seq: js.Seq, Job: j})
	}
	return nil
}

// loadJob checks and loads one transition; seqs are the sequence numbers
// of those before it.
func (ld *loader) loadJob(js jobSnap, seqs map[uint64]bool) (job, error) {
	load := jobLoaders[js.Kind]
	if load == nil {
		return nil, at(fmt.Errorf("transition of unknown kind %q", js.Kind), "kind")
	}
	if js.Seq == 0 || js.Seq > ld.seq || seqs[js.Seq] {
		return nil, at(fmt.Errorf("transition %s of %s: sequence %d is not within the clock's %d, or appears twice", js.Kind, js.ID, js.Seq, ld.seq), "seq")
	}
	seqs[js.Seq] = true
	if err := snapTime(js.At); err != nil {
		return nil, at(err, "at")
	}
	if err := snapCounter(js.Gen); err != nil {
		return nil, at(err, "gen")
	}
	j, err := load(ld, js)
	return j, named(err, "transition %s of %s", js.Kind, js.ID)
}

// keepJob reports whether a snapshot holds j: a job whose resource is
// gone for good does nothing, and is left out.
func (sv *saver) keepJob(j job) bool {
	switch j := j.(type) {
	case databaseReadyJob:
		return sv.dbSet[j.db]
	case branchReadyJob:
		return sv.branchSet[j.b]
	case keyspaceReadyJob:
		return sv.keyspace(j.ks)
	case keyspaceConfigJob:
		return sv.keyspace(j.ks)
	case backupJob:
		return sv.dbSet[j.bk.branch.db] && j.bk.branch.db.backups.byID[j.bk.id] == j.bk
	case policyRunJob:
		return sv.dbSet[j.p.db] && !j.p.deleted
	case deployJob:
		return sv.dbSet[j.dr.db] && !j.dr.db.deleted
	case retryJob:
		return sv.dbSet[j.d.hook.db] && !j.d.hook.deleted
	case readOnlyRegionReadyJob:
		return sv.readOnlyRegion(j.rr)
	case switchoverJob:
		return sv.branchSet[j.sw.branch]
	case maintenanceEndJob:
		return sv.dbSet[j.w.branch.db]
	case importStepJob:
		return sv.dbSet[j.imp.db] && !j.imp.db.deleted
	case bouncerReadyJob:
		return sv.branchSet[j.bn.branch] && !j.bn.deleted
	case bouncerResizeJob:
		return sv.branchSet[j.r.bouncer.branch] && j.r.state == j.from
	case keyspaceResizeJob:
		return sv.keyspace(j.r.ks) && j.r.state == j.from
	case branchChangeJob:
		return sv.branchSet[j.r.branch] && j.r.state == j.from
	case qpReportJob:
		return sv.branchSet[j.r.branch] && !j.r.deleted
	case workflowJob:
		return sv.dbSet[j.wf.db] && j.wf.state == j.from
	}
	return true
}

// keyspace reports whether ks is saved, as a keyspace of a saved branch.
func (sv *saver) keyspace(ks *keyspaceRec) bool {
	return sv.branchSet[ks.branch] && ks.branch.keyspace(ks.name) == ks
}

func (j databaseReadyJob) save() jobSnap { return jobSnap{Kind: "database.ready", ID: j.db.id} }

func loadDatabaseReadyJob(ld *loader, js jobSnap) (job, error) {
	db, err := refNonNil(ld.dbs, js.ID, "database")
	return databaseReadyJob{db}, err
}

func (j branchReadyJob) save() jobSnap { return jobSnap{Kind: "branch.ready", ID: j.b.id} }

func loadBranchReadyJob(ld *loader, js jobSnap) (job, error) {
	b, err := refNonNil(ld.branches, js.ID, "branch")
	return branchReadyJob{b}, err
}

func (j keyspaceReadyJob) save() jobSnap { return jobSnap{Kind: "keyspace.ready", ID: j.ks.id} }

func loadKeyspaceReadyJob(ld *loader, js jobSnap) (job, error) {
	ks, err := ld.keyspace(js.ID)
	return keyspaceReadyJob{ks}, err
}

func (j keyspaceConfigJob) save() jobSnap {
	return jobSnap{Kind: "keyspace.config", ID: j.ks.id, Gen: uint64(j.gen)}
}

func loadKeyspaceConfigJob(ld *loader, js jobSnap) (job, error) {
	ks, err := ld.keyspace(js.ID)
	return keyspaceConfigJob{ks, int(js.Gen)}, err
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

func (j backupJob) save() jobSnap {
	return jobSnap{Kind: "backup.step", ID: j.bk.id, Step: string(j.from)}
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

func (j policyRunJob) save() jobSnap {
	return jobSnap{Kind: "backup_policy.run", ID: j.p.id, Gen: j.gen}
}

func loadPolicyRunJob(ld *loader, js jobSnap) (job, error) {
	for _, db := range ld.dbs {
		if p := db.backups.policy(js.ID); p != nil {
			return policyRunJob{p, js.Gen}, nil
		}
	}
	return nil, fmt.Errorf("backup policy %q is not in the snapshot", js.ID)
}

func (j deployJob) save() jobSnap {
	return jobSnap{Kind: "deployment.step", ID: j.dr.dep.id, Gen: uint64(j.gen), Step: string(j.step)}
}

func loadDeployJob(ld *loader, js jobSnap) (job, error) {
	step := deployStep(js.Step)
	if deploySteps[step] == nil {
		return nil, fmt.Errorf("unknown deployment step %q", js.Step)
	}
	for _, db := range ld.dbs {
		for _, dr := range db.drs.All() {
			if dr.dep.id == js.ID {
				return deployJob{dr, int(js.Gen), step}, nil
			}
		}
	}
	return nil, fmt.Errorf("deployment %q is not in the snapshot", js.ID)
}

func (j retryJob) save() jobSnap {
	d := j.d
	return jobSnap{Kind: "webhook.retry", ID: d.hook.id, Delivery: &deliverySnap{d.id, d.event, d.body, d.attempt, d.retry}}
}

func loadRetryJob(ld *loader, js jobSnap) (job, error) {
	ds := js.Delivery
	if ds == nil {
		return nil, fmt.Errorf("no delivery")
	}
	// A retry job holds the attempt it sends next: 2 for the first retry,
	// one more than the retries there are for the last.
	if err := snapRange(ds.Attempt, 2, len(webhookRetryDelays)+1); err != nil {
		return nil, at(err, "delivery.attempt")
	}
	if !ds.Retry {
		return nil, at(errors.New("a delivery that is not retried has no retry on the clock"), "delivery.retry")
	}
	for _, db := range ld.dbs {
		if h := db.x().webhooks.Get(js.ID); h != nil {
			return retryJob{&delivery{hook: h, id: ds.ID, event: ds.Event, body: ds.Body, attempt: ds.Attempt, retry: ds.Retry}}, nil
		}
	}
	return nil, fmt.Errorf("webhook %q is not in the snapshot", js.ID)
}

func (j codeExpiryJob) save() jobSnap {
	return jobSnap{Kind: "oauth_code.expire", ID: fmt.Sprintf("%x", j.hash[:])}
}

func loadCodeExpiryJob(_ *loader, js jobSnap) (job, error) {
	var h hash32
	if err := h.UnmarshalText([]byte(js.ID)); err != nil {
		return nil, err
	}
	return codeExpiryJob{h}, nil
}

// refNonNil resolves a required ID.
func refNonNil[T any](m map[string]*T, id, what string) (*T, error) {
	v, err := ref(m, id, what)
	if err == nil && v == nil {
		err = fmt.Errorf("no %s", what)
	}
	return v, err
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

func (j readOnlyRegionReadyJob) save() jobSnap {
	return jobSnap{Kind: "read_only_region.ready", ID: j.rr.id}
}

func loadReadOnlyRegionReadyJob(ld *loader, js jobSnap) (job, error) {
	rr, err := refNonNil(ld.readOnly, js.ID, "read-only region")
	return readOnlyRegionReadyJob{rr}, err
}

func (j deviceExpiryJob) save() jobSnap {
	return jobSnap{Kind: "oauth_device.forget", ID: fmt.Sprintf("%x", j.hash[:]), Step: j.userCode}
}

func loadDeviceExpiryJob(_ *loader, js jobSnap) (job, error) {
	var h hash32
	if err := h.UnmarshalText([]byte(js.ID)); err != nil {
		return nil, err
	}
	return deviceExpiryJob{h, js.Step}, nil
}
