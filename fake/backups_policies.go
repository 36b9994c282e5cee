package fake

import (
	"slices"
	"time"

	"github.com/dbplatform/platform-go"
)

// policyRec is a backup policy of a database.
type policyRec struct {
	stamps
	db *dbRec
	policySpec
	displayName string
	required    bool
	lastRan     time.Time
	nextRun     time.Time
	deleted     bool
	// gen counts the times the policy was armed; a timer armed for an
	// older generation does nothing, so an update or delete stops it.
	gen uint64
}

// policySpec is the writable part of a policy.
type policySpec struct {
	name      string
	target    platform.BackupPolicyTarget
	retention retention
	sched     schedule
	// day and week are schedule_day and schedule_week as written; nil when
	// the frequency unit does not use them.
	day, week *int
}

// The required policy every database has: production branches, daily at
// midnight UTC, kept a week.
const (
	requiredPolicyName        = "required"
	requiredPolicyDisplayName = "Required production backups"
)

func requiredPolicySpec() policySpec {
	return policySpec{
		name:      requiredPolicyName,
		target:    platform.BackupTargetProduction,
		retention: retention{value: 7, unit: platform.RetentionDay},
		sched:     schedule{unit: platform.FrequencyDay, every: 1},
	}
}

// backupTargets are the targets a policy can have.
var backupTargets = []platform.BackupPolicyTarget{platform.BackupTargetProduction, platform.BackupTargetDevelopment}

// maxPolicyNameLen bounds a policy's name.
const maxPolicyNameLen = 255

// initBackups gives a new database its required backup policy, armed to
// run on its schedule.
func (w *world) initBackups(db *dbRec) {
	p := w.addPolicy(db, requiredPolicySpec())
	p.required = true
	p.displayName = requiredPolicyDisplayName
}

// addPolicy records a policy of db and arms it.
func (w *world) addPolicy(db *dbRec, spec policySpec) *policyRec {
	now := w.clock.Now()
	p := &policyRec{
		stamps:      stamps{id: w.newID(), created: now, updated: now},
		db:          db,
		policySpec:  spec,
		displayName: spec.name,
	}
	db.backups.addPolicy(p)
	w.armPolicy(p)
	return p
}

// armPolicy sets the policy's next run from now on its schedule and
// schedules it. Earlier timers of the policy are left to expire unheeded.
func (w *world) armPolicy(p *policyRec) {
	now := w.clock.Now()
	p.nextRun = p.sched.next(now)
	p.gen++
	if p.nextRun.IsZero() {
		return
	}
	w.clock.After(p.nextRun.Sub(now), policyRunJob{p, p.gen})
}

// runPolicy backs up every ready branch the policy targets. A branch that
// has a backup still pending or running gets an ignored backup instead.
func (w *world) runPolicy(p *policyRec) {
	now := w.clock.Now()
	production := p.target == platform.BackupTargetProduction
	for _, b := range p.db.branchIdx.All() {
		if !b.ready || b.production != production {
			continue
		}
		name := defaultBackupName(b, now)
		if b.backupInProgress() {
			w.addBackup(b, name, p.retention, nil, p, platform.BackupIgnored).ended = now
			continue
		}
		w.newBackup(b, name, p.retention, nil, p)
	}
	p.lastRan = now
	w.armPolicy(p)
}

func listBackupPolicies(c *call) (any, error) {
	return pageOf(c, &c.db.backups.policies, false, renderBackupPolicy), nil
}

func createBackupPolicy(c *call, p *platform.CreateBackupPolicyParams) (any, error) {
	spec := policySpec{
		name:      p.Name,
		target:    p.Target,
		retention: retention{value: p.RetentionValue, unit: p.RetentionUnit},
		sched:     schedule{unit: p.FrequencyUnit, every: p.FrequencyValue},
		day:       p.ScheduleDay,
		week:      p.ScheduleWeek,
	}
	if err := spec.complete(p.ScheduleTime); err != nil {
		return nil, err
	}
	return renderBackupPolicy(c.w.addPolicy(c.db, spec)), nil
}

// backupPolicy finds the path's {id} among the path database's policies.
func (c *call) backupPolicy() (*policyRec, error) {
	p := c.db.backups.policy(c.r.PathValue("id"))
	if p == nil {
		return nil, c.nothingAt("id")
	}
	return p, nil
}

func getBackupPolicy(c *call) (any, error) {
	p, err := c.backupPolicy()
	if err != nil {
		return nil, err
	}
	return renderBackupPolicy(p), nil
}

func updateBackupPolicy(c *call, u *platform.UpdateBackupPolicyParams) (any, error) {
	p, err := c.backupPolicy()
	if err != nil {
		return nil, err
	}
	spec := p.policySpec
	setIf(&spec.name, u.Name)
	setIf(&spec.target, u.Target)
	setIf(&spec.retention.value, u.RetentionValue)
	setIf(&spec.retention.unit, u.RetentionUnit)
	setIf(&spec.sched.every, u.FrequencyValue)
	setIf(&spec.sched.unit, u.FrequencyUnit)
	if u.ScheduleDay != nil {
		spec.day = u.ScheduleDay
	}
	if u.ScheduleWeek != nil {
		spec.week = u.ScheduleWeek
	}
	scheduleTime := u.ScheduleTime
	if scheduleTime == nil {
		scheduleTime = platform.Ptr(spec.sched.timeOfDay())
	}
	if err := spec.complete(scheduleTime); err != nil {
		return nil, err
	}
	if p.required && spec.target != platform.BackupTargetProduction {
		return nil, unprocessable("backup policy %s is the required policy of %s; its target stays production", p.id, c.db.name)
	}
	p.policySpec = spec
	if !p.required {
		p.displayName = spec.name
	}
	p.updated = c.now
	c.w.armPolicy(p)
	return renderBackupPolicy(p), nil
}

func deleteBackupPolicy(c *call) (any, error) {
	p, err := c.backupPolicy()
	if err != nil {
		return nil, err
	}
	if p.required {
		return nil, unprocessable("backup policy %s is the required policy of %s and cannot be deleted", p.id, c.db.name)
	}
	c.db.backups.policies.Remove(p)
	p.deleted = true
	return nil, nil
}

// complete validates every field of a policy as a request leaves it, and
// fills the schedule: scheduleTime ("HH:MM", 00:00 when nil), and
// schedule_day and schedule_week, which default to 0 where the frequency
// unit uses them and are dropped where it does not.
func (sp *policySpec) complete(scheduleTime *string) error {
	switch {
	case sp.name == "":
		return unprocessable("name is required")
	case len(sp.name) > maxPolicyNameLen:
		return unprocessable("name is longer than %d characters", maxPolicyNameLen)
	case sp.target == "":
		return unprocessable("target is required: %s", backupEnumText(backupTargets))
	case !slices.Contains(backupTargets, sp.target):
		return unprocessable("target %q is not %s", sp.target, backupEnumText(backupTargets))
	}
	if err := sp.retention.check(); err != nil {
		return err
	}
	unit := sp.sched.unit
	switch {
	case unit == "":
		return unprocessable("frequency_unit is required: %s", backupEnumText(frequencyUnits))
	case !slices.Contains(frequencyUnits, unit):
		return unprocessable("frequency_unit %q is not %s", unit, backupEnumText(frequencyUnits))
	case sp.sched.every < 1 || sp.sched.every > maxFrequency(unit):
		return unprocessable("frequency_value must be from 1 to %d for frequency_unit %s, got %d", maxFrequency(unit), unit, sp.sched.every)
	case sp.day != nil && (*sp.day < 0 || *sp.day > 6):
		return unprocessable("schedule_day must be from 0 (Sunday) to 6 (Saturday), got %d", *sp.day)
	case sp.week != nil && (*sp.week < 0 || *sp.week > 3):
		return unprocessable("schedule_week must be from 0 (the first week) to 3 (the fourth week), got %d", *sp.week)
	}
	sp.sched.hour, sp.sched.minute = 0, 0
	if scheduleTime != nil {
		h, m, err := parseScheduleTime(*scheduleTime)
		if err != nil {
			return err
		}
		sp.sched.hour, sp.sched.minute = h, m
	}
	sp.day = scheduleField(sp.day, usesDay(unit))
	sp.week = scheduleField(sp.week, usesWeek(unit))
	sp.sched.day, sp.sched.week = derefOr0(sp.day), derefOr0(sp.week)
	return nil
}

// scheduleField is a schedule_day or schedule_week as kept: a copy of v,
// 0 when v is nil, for a unit that uses it; nil for one that does not.
func scheduleField(v *int, used bool) *int {
	if !used {
		return nil
	}
	return platform.Ptr(derefOr0(v))
}

func derefOr0(v *int) int {
	if v == nil {
		return 0
	}
	return *v
}
