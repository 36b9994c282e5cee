package fake

import (
	"math"
	"time"

	"github.com/dbplatform/platform-go"
)

// backupStore is what a database keeps of its backups and backup policies.
// Backups stay here after their branch is deleted, so that they can still
// be restored by ID. Its maps are made on the first write; reads of the
// zero store find nothing.
type backupStore struct {
	byID     map[string]*backupRec
	byBranch map[*branchRec]*branchBackups

	policies index[*policyRec] // the live policies; see policy
}

// branchBackups are the backups of one branch in list order: live leaves
// out the deleted ones, all keeps them (the list's all=true).
type branchBackups struct {
	live, all index[*backupRec]
	// inFlight counts the backups pending or running, so that a policy's
	// run need not scan every backup the branch ever had.
	inFlight int
}

// of returns the backups of branch b, for reading: empty when it has none.
func (st *backupStore) of(b *branchRec) *branchBackups {
	if bb := st.byBranch[b]; bb != nil {
		return bb
	}
	return &branchBackups{}
}

// addBackup records a backup.
func (st *backupStore) addBackup(bk *backupRec) {
	if st.byID == nil {
		st.byID = map[string]*backupRec{}
		st.byBranch = map[*branchRec]*branchBackups{}
	}
	st.byID[bk.id] = bk
	bb := st.byBranch[bk.branch]
	if bb == nil {
		bb = &branchBackups{}
		st.byBranch[bk.branch] = bb
	}
	bb.live.Add(bk)
	bb.all.Add(bk)
	if bk.inProgress() {
		bb.inFlight++
	}
}

// policy finds a live policy by ID: a scan, as a database has few, cheaper
// than a map per database.
func (st *backupStore) policy(id string) *policyRec {
	for _, p := range st.policies.All() {
		if p.id == id {
			return p
		}
	}
	return nil
}

// addPolicy records a policy.
func (st *backupStore) addPolicy(p *policyRec) {
	st.policies.Add(p)
}

// backupRec is a backup of a branch.
type backupRec struct {
	stamps
	branch     *branchRec
	name       string
	state      platform.BackupState
	production bool // whether the branch was a production branch when backed up
	protected  bool
	required   bool
	policy     *policyRec // nil for a backup asked for directly
	actor      *userRec   // nil for a policy's backup
	retention  retention

	started, completed time.Time
	ended              time.Time // when it reached a final state
	deleted            bool
	// expired is true when the platform deleted it at the end of its
	// retention (see expireBackup), rather than a request.
	expired   bool
	deletedAt time.Time
	size      int64

	snapshot *schemaSnapshot // nil for an ignored backup
	restored []*branchRec
}

// inProgress reports whether the backup has transitions ahead.
func (bk *backupRec) inProgress() bool {
	return bk.state == platform.BackupPending || bk.state == platform.BackupRunning
}

// expiresAt is when a successful backup's retention ends: completed +
// retention.
func (bk *backupRec) expiresAt() time.Time { return bk.retention.after(bk.completed) }

// findable reports whether a restore finds the backup: a live one, or one
// deleted at its expiry (whose restore is refused, naming the expiry).
func (bk *backupRec) findable() bool { return !bk.deleted || bk.expired }

// How long a backup asked for without a retention is kept.
const (
	defaultRetentionValue = 7
	defaultRetentionUnit  = platform.RetentionDay
)

// maxRetentionValue bounds retention_value.
const maxRetentionValue = 1000

// Sizes the fake reports for a successful backup: a base, and a share per
// table of the schema it holds.
const (
	backupBaseSize     = 1 << 20
	backupSizePerTable = 256 << 10
	backupGiB          = 1 << 30
)

func backupRoutes() []route {
	return []route{
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/backups", op: "list_backups", handler: read(listBackups)},
		{pattern: "POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/backups", op: "create_backup", handler: withBody(createBackup)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/backups/{id}", op: "get_backup", branchMayBeGone: true, handler: read(getBackup)},
		{pattern: "PATCH /v1/organizations/{organization}/databases/{database}/branches/{branch}/backups/{id}", op: "update_backup", branchMayBeGone: true, handler: withBody(updateBackup)},
		{pattern: "DELETE /v1/organizations/{organization}/databases/{database}/branches/{branch}/backups/{id}", op: "delete_backup", branchMayBeGone: true, handler: act(deleteBackup)},
	}
}

func backupPolicyRoutes() []route {
	return []route{
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/backup-policies", op: "list_backup_policies", handler: read(listBackupPolicies)},
		{pattern: "POST /v1/organizations/{organization}/databases/{database}/backup-policies", op: "create_backup_policy", handler: withBody(createBackupPolicy)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/backup-policies/{id}", op: "get_backup_policy", handler: read(getBackupPolicy)},
		{pattern: "PATCH /v1/organizations/{organization}/databases/{database}/backup-policies/{id}", op: "update_backup_policy", handler: withBody(updateBackupPolicy)},
		{pattern: "DELETE /v1/organizations/{organization}/databases/{database}/backup-policies/{id}", op: "delete_backup_policy", handler: act(deleteBackupPolicy)},
	}
}

func listBackups(c *call) (any, error) {
	f, err := parseBackupFilter(c.r.URL.Query())
	if err != nil {
		return nil, err
	}
	bb := c.db.backups.of(c.branch)
	x := &bb.live
	if f.all {
		x = &bb.all
	}
	if !f.any() {
		return pageOf(c, x, true, c.w.renderBackup), nil
	}
	return filteredPageOf(c, x, true, f.keep, c.w.renderBackup), nil
}

func createBackup(c *call, p *platform.CreateBackupParams) (any, error) {
	b := c.branch
	name := defaultBackupName(b, c.now)
	if p.Name != nil {
		if *p.Name == "" {
			return nil, unprocessable("name must not be empty")
		}
		name = *p.Name
	}
	ret := retention{value: defaultRetentionValue, unit: defaultRetentionUnit}
	switch {
	case p.RetentionValue == nil && p.RetentionUnit == nil:
	case p.RetentionValue == nil || p.RetentionUnit == nil:
		return nil, unprocessable("retention_value and retention_unit go together: give both or neither")
	default:
		ret = retention{value: *p.RetentionValue, unit: *p.RetentionUnit}
		if err := ret.check(); err != nil {
			return nil, err
		}
	}
	if p.Emergency != nil && *p.Emergency && b.db.kind != platform.KindPostgreSQL {
		return nil, unprocessable("emergency backups are only supported for postgresql databases; %s is %s", b.db.name, b.db.kind)
	}
	if !b.ready {
		return nil, unprocessable("branch %s is not ready yet", b.name)
	}
	bk := c.w.newBackup(b, name, ret, c.who.user, nil)
	return c.w.renderBackup(bk), nil
}

// newBackup starts a backup of b: pending now, running after
// Timings.BackupStart, done Timings.BackupRun later. It holds the branch's
// schema as it is now.
func (w *world) newBackup(b *branchRec, name string, ret retention, actor *userRec, policy *policyRec) *backupRec {
	bk := w.addBackup(b, name, ret, actor, policy, platform.BackupPending)
	bk.snapshot = w.takeSnapshot(b)
	w.startFlight(bk.id)
	w.clock.After(w.timing.BackupStart, backupJob{bk, platform.BackupPending})
	return bk
}

// addBackup records a backup of b in a state.
func (w *world) addBackup(b *branchRec, name string, ret retention, actor *userRec, policy *policyRec, state platform.BackupState) *backupRec {
	now := w.clock.Now()
	bk := &backupRec{
		stamps:     stamps{id: w.newID(), created: now, updated: now},
		branch:     b,
		name:       name,
		state:      state,
		production: b.production,
		actor:      actor,
		policy:     policy,
		retention:  ret,
	}
	if policy != nil {
		bk.required = policy.required
	}
	b.db.backups.addBackup(bk)
	return bk
}

// settleBackup puts a backup in a final state.
func (w *world) settleBackup(bk *backupRec, state platform.BackupState, now time.Time) {
	if bk.inProgress() {
		bk.branch.db.backups.of(bk.branch).inFlight--
	}
	bk.state = state
	bk.ended, bk.updated = now, now
	w.endFlight(bk.id)
}

// cancelBackups cancels the backups of b still in progress, as deleting b
// does.
func (w *world) cancelBackups(b *branchRec) {
	now := w.clock.Now()
	for _, bk := range b.db.backups.of(b).live.All() {
		if bk.inProgress() {
			w.settleBackup(bk, platform.BackupCanceled, now)
		}
	}
}

// backupInProgress reports whether b has a backup pending or running.
func (b *branchRec) backupInProgress() bool {
	return b.db.backups.of(b).inFlight > 0
}

// backup finds the path's {id} among the backups of the path's branch. A
// backup outlives its branch: once the branch is deleted, its backups are
// still found under its name, so that a client can see them canceled.
func (c *call) backup() (*backupRec, error) {
	bk := c.db.backups.byID[c.r.PathValue("id")]
	if bk == nil || bk.deleted || bk.branch.name != c.r.PathValue("branch") {
		return nil, c.nothingAt("id")
	}
	return bk, nil
}

func getBackup(c *call) (any, error) {
	bk, err := c.backup()
	if err != nil {
		return nil, err
	}
	return c.w.renderBackup(bk), nil
}

func updateBackup(c *call, p *platform.UpdateBackupParams) (any, error) {
	bk, err := c.backup()
	if err != nil {
		return nil, err
	}
	if p.Protected != nil && *p.Protected != bk.protected {
		bk.protected = *p.Protected
		bk.updated = c.now
		// A backup kept past its expiry by its protection expires as
		// soon as it loses it.
		c.w.expireBackup(bk)
	}
	return c.w.renderBackup(bk), nil
}

func deleteBackup(c *call) (any, error) {
	bk, err := c.backup()
	if err != nil {
		return nil, err
	}
	// The operation admits either permission (or scope, of the same name);
	// each covers its kind of branch.
	perm := "delete_backups"
	if bk.production {
		perm = "delete_production_branch_backups"
	}
	if !c.holds([]string{perm}, []string{perm}, bk.branch) {
		return nil, notFound()
	}
	switch {
	case bk.protected:
		return nil, unprocessable("backup %s is protected; set protected to false first", bk.id)
	case bk.required:
		return nil, unprocessable("backup %s was taken by the required backup policy and cannot be deleted", bk.id)
	}
	if bk.inProgress() {
		c.w.settleBackup(bk, platform.BackupCanceled, c.now)
	}
	removeBackup(bk, c.now)
	return nil, nil
}

// removeBackup deletes a backup at now: it leaves its branch's list (but
// for all=true) and is found by ID no more.
func removeBackup(bk *backupRec, now time.Time) {
	bk.deleted = true
	bk.deletedAt, bk.updated = now, now
	bk.branch.db.backups.of(bk.branch).live.Remove(bk)
}

// maxExpiryWait is the furthest ahead a backup's expiry goes on the clock,
// within what a time.Duration holds (292 years): the expiry of a longer
// retention (up to 1000 years) goes back on the clock until it is due.
const maxExpiryWait = 100 * 365 * 24 * time.Hour

// expiryStep is when the next step of a successful backup's expiry runs,
// from now: at its expiry, or maxExpiryWait ahead when that is further.
// It reports false when the clock cannot reach it (a snapshot's clock
// stays before maxSnapTime): such a backup is kept.
func (bk *backupRec) expiryStep(now time.Time) (time.Time, bool) {
	at := bk.expiresAt()
	if limit := now.Add(maxExpiryWait); at.After(limit) {
		at = limit
	}
	return at, at.Before(maxSnapTime)
}

// scheduleExpiry puts the next step of a successful backup's expiry on the
// clock (see expiryStep).
func (w *world) scheduleExpiry(bk *backupRec) {
	now := w.clock.Now()
	if at, ok := bk.expiryStep(now); ok {
		w.clock.After(at.Sub(now), backupExpiryJob{bk})
	}
}

// expireBackup deletes a successful backup whose retention has ended, as
// the platform does, unless it is protected (a protected backup is kept
// until its protection is removed, and then expires at once). It does
// nothing before the backup's expiry, or to a backup already deleted.
func (w *world) expireBackup(bk *backupRec) {
	now := w.clock.Now()
	if bk.deleted || bk.protected || bk.state != platform.BackupSuccess || now.Before(bk.expiresAt()) {
		return
	}
	bk.expired = true
	removeBackup(bk, now)
}

// renderBackup renders a backup as the API shows it.
func (w *world) renderBackup(bk *backupRec) *platform.Backup {
	out := &platform.Backup{
		ID:               bk.id,
		Type:             "Backup",
		Name:             bk.name,
		State:            bk.state,
		Protected:        bk.protected,
		Required:         bk.required,
		RestoredBranches: make([]*platform.BranchRef, 0, len(bk.restored)),
		Actor:            renderActor(bk.actor),
		DatabaseBranch:   renderBranchRef(bk.branch),
		CreatedAt:        platform.NewTimestamp(bk.created),
		UpdatedAt:        platform.NewTimestamp(bk.updated),
		StartedAt:        ptrTime(bk.started),
		CompletedAt:      ptrTime(bk.completed),
	}
	for _, b := range bk.restored {
		out.RestoredBranches = append(out.RestoredBranches, renderBranchRef(b))
	}
	if bk.policy != nil {
		out.BackupPolicy = renderBackupPolicy(bk.policy)
	}
	if bk.snapshot != nil {
		out.SchemaSnapshot = w.renderSchemaSnapshot(bk)
	}
	if bk.state == platform.BackupSuccess {
		out.Size = bk.size
		out.UncompressedSize = 3 * bk.size
		out.PVCSize = max(backupGiB, (out.UncompressedSize+backupGiB-1)/backupGiB*backupGiB)
		out.EstimatedStorageCost = math.Round(float64(bk.size)/1e9*0.023*1e6) / 1e6
		out.ExpiresAt = ptrTime(bk.expiresAt())
	}
	if bk.deleted {
		out.DeletedAt = ptrTime(bk.deletedAt)
	}
	return out
}
