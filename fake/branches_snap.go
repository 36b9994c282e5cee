package fake

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/dbplatform/platform-go"
)

// The snapshot of branches. Their keyspaces and read-only regions, roles,
// traffic budgets, passwords, switchovers, bouncers, query-patterns
// reports, traffic and cluster requests are in keyspaces_snap.go,
// roles_snap.go, trafficbudgets_snap.go, passwords_snap.go,
// switchovers_snap.go, bouncers_snap.go, querypatterns_snap.go,
// traffic_snap.go and branchresizes_snap.go.

type branchSnap struct {
	stampsSnap
	Database          string    `json:"database"`
	Name              string    `json:"name"`
	Parent            string    `json:"parent"`
	Production        bool      `json:"production"`
	Ready             bool      `json:"ready"`
	SafeMigrations    bool      `json:"safe_migrations"`
	DeletionProtected bool      `json:"deletion_protected"`
	Deleted           bool      `json:"deleted,omitempty"`
	DeletedAt         time.Time `json:"deleted_at"`
	DeletedBy         string    `json:"deleted_by,omitempty"` // a user's ID
	// Base is the schema it started from, tables by keyspace; none for a
	// branch without one (see planDeploy).
	Base             schemaBase `json:"base,omitempty"`
	Actor            string     `json:"actor"`
	Region           string     `json:"region"` // slug
	RestoredFrom     string     `json:"restored_from"`
	InitialRestoreID string     `json:"initial_restore_id"`
	SchemaUpdated    time.Time  `json:"schema_updated"`
	RoutingRules     string     `json:"routing_rules,omitempty"` // "" for the default
	// MajorVersion is a PostgreSQL branch's major version; "" for the
	// default.
	MajorVersion string `json:"major_version,omitempty"`
	// RestorePoint is the time of RestoredFrom a PostgreSQL branch
	// restores (restore_point); none for a branch that restores none,
	// as in a snapshot of a fake older than the field.
	RestorePoint *time.Time `json:"restore_point,omitempty"`

	ReadOnlyRegions []readOnlyRegionSnap `json:"read_only_regions"`
	Keyspaces       []keyspaceSnap       `json:"keyspaces"`
	Roles           []roleSnap           `json:"roles"` // dropped ones included
	DefaultRole     string               `json:"default_role"`
	RoleOwners      map[string]string    `json:"role_owners"` // object -> role ID
	Budgets         []budgetSnap         `json:"traffic_budgets"`
	Passwords       []passwordSnap       `json:"passwords"`
	Switchovers     []switchoverSnap     `json:"switchovers"`
	Primary         int                  `json:"primary"` // the PostgreSQL instance that is the primary
	Bouncers        []bouncerSnap        `json:"bouncers"`
	BouncerResizes  []bouncerResizeSnap  `json:"bouncer_resizes"`
	Cluster         *branchClusterSnap   `json:"cluster,omitempty"`
	QPReports       []qpReportSnap       `json:"query_patterns_reports"`
	// DeletedQPReports are the places (seq) of deleted query-patterns
	// reports by ID, for cursors that name them; absent in older
	// snapshots.
	DeletedQPReports map[string]uint64 `json:"deleted_query_patterns_reports,omitempty"`
	Traffic          *trafficSnap      `json:"traffic,omitempty"`
	Sessions         *sessionsSnap     `json:"sessions,omitempty"` // see connections_snap.go
	Vitess           *vitessSnap       `json:"vitess,omitempty"`   // see vitess_snap.go
}

func (sv *saver) branches() []branchSnap {
	var out []branchSnap
	for _, b := range listOrder(sv.branchSet) {
		bs := branchSnap{
			stampsSnap: saveStamps(b.stamps), Database: b.db.id, Name: b.name, Parent: b.parent,
			Production: b.production, Ready: b.ready, SafeMigrations: b.safeMigrations,
			DeletionProtected: b.deletionProtected, Deleted: b.deleted, DeletedAt: b.deletedAt, DeletedBy: idOf(b.more.read().deletedBy),
			Actor: idOf(b.actor), Region: b.region.slug, RestoredFrom: idOf(b.restoredFrom),
			InitialRestoreID: b.initialRestoreID, SchemaUpdated: b.schemaUpdated, RoutingRules: b.more.read().routingRules,
			DefaultRole: idOf(b.roles.def), Passwords: savePasswords(b),
			Switchovers: saveSwitchovers(b), Primary: b.primary, Base: b.more.read().base,
			MajorVersion: b.more.read().majorVersion,
		}
		if at := b.more.read().restorePoint; at != nil {
			bs.RestorePoint = platform.Ptr(*at)
		}
		bs.Bouncers, bs.BouncerResizes = saveBouncers(b)
		bs.Cluster = saveBranchCluster(b)
		bs.QPReports, bs.DeletedQPReports = saveQPReports(b)
		bs.Traffic = saveTraffic(b)
		bs.Sessions = saveSessions(b)
		bs.Vitess = saveVitess(b)
		bs.ReadOnlyRegions = saveReadOnlyRegions(b)
		bs.Keyspaces = saveKeyspaces(b)
		bs.Roles, bs.RoleOwners = saveRoles(b)
		bs.Budgets = saveBudgets(b)
		out = append(out, bs)
	}
	return out
}

func (ld *loader) loadBranches(list []branchSnap) error {
	for i, bs := range list {
		fixes := len(ld.fixes)
		err := unique(ld.branches, bs.ID, "branch")
		if err == nil {
			err = ld.loadBranch(bs)
		}
		if err != nil {
			return at(named(err, "branch %s", bs.ID), "branches[%d]", i)
		}
		// What the branch resolves once everything is loaded (its
		// restored_from, its VDiffs' workflows) is refused at its path too.
		for j, fix := range ld.fixes[fixes:] {
			ld.fixes[fixes+j] = func() error { return at(named(fix(), "branch %s", bs.ID), "branches[%d]", i) }
		}
	}
	return nil
}

// validate checks what the API checks of a branch: its name and its
// parent's (a parent deleted since is known by name only), and that its
// base names keyspaces as the API names them, and tables whose
// definitions the API took (snapTables).
func (bs *branchSnap) validate() error {
	var parent error
	if bs.Parent != "" {
		parent = snapName(bs.Parent)
	}
	errs := []error{at(snapName(bs.Name), "name"), at(parent, "parent"),
		at(snapRange(bs.Primary, 0, maxKeyspaceReplicas), "primary")} // an instance: the primary or a replica
	for _, ks := range sortedKeys(bs.Base) {
		errs = append(errs, at(snapName(ks), "base.%s", ks), at(snapTables(bs.Base[ks]), "base.%s", ks))
	}
	return firstErr(errs...)
}

func (ld *loader) loadBranch(bs branchSnap) error {
	if err := bs.validate(); err != nil {
		return err
	}
	db, err := refNonNil(ld.dbs, bs.Database, "database")
	if err != nil {
		return at(err, "database")
	}
	if db.deleted && !bs.Deleted {
		// Deleting a database deletes its branches.
		return at(fmt.Errorf("a live branch of database %s, which is deleted", db.id), "deleted")
	}
	actor, err := ref(ld.users, bs.Actor, "actor")
	if err != nil {
		return err
	}
	deletedBy, err := ref(ld.users, bs.DeletedBy, "user")
	switch {
	case err != nil:
		return at(err, "deleted_by")
	case deletedBy != nil && !bs.Deleted:
		return at(errors.New("set on a branch not deleted"), "deleted_by")
	}
	region := regionBySlug(bs.Region)
	if region == nil {
		return fmt.Errorf("unknown region %q", bs.Region)
	}
	b := &branchRec{
		stamps: bs.load(), db: db, name: bs.Name, parent: bs.Parent, production: bs.Production,
		ready: bs.Ready, safeMigrations: bs.SafeMigrations, deletionProtected: bs.DeletionProtected,
		deleted: bs.Deleted, deletedAt: bs.DeletedAt, actor: actor, region: region,
		initialRestoreID: bs.InitialRestoreID, schemaUpdated: bs.SchemaUpdated,
		roles: &branchRoles{}, primary: bs.Primary,
	}
	if deletedBy != nil {
		b.x().deletedBy = deletedBy
	}
	if bs.Base != nil {
		b.x().base = bs.Base
	}
	if bs.MajorVersion != "" {
		if db.kind != platform.KindPostgreSQL {
			return at(fmt.Errorf("a major version on a branch of %s database %s", db.kind, db.id), "major_version")
		}
		if err := snapOneOf(bs.MajorVersion, "a PostgreSQL major version", slices.Sorted(maps.Keys(postgresVersions))...); err != nil {
			return at(err, "major_version")
		}
		b.x().majorVersion = bs.MajorVersion
	}
	if err := loadRestorePoint(b, bs); err != nil {
		return at(err, "restore_point")
	}
	if err := loadRoutingRules(b, bs.RoutingRules); err != nil {
		return fmt.Errorf("branch %s: %v", bs.ID, err)
	}
	ld.branches[b.id] = b
	if !b.deleted {
		if db.branch(b.name) != nil {
			return fmt.Errorf("name %q appears twice in database %s", b.name, db.id)
		}
		db.org.branchByName[branchKey{db, b.name}] = b
		db.branchIdx.Add(b)
	}
	ld.later(func() (err error) {
		b.restoredFrom, err = ref(ld.branches, bs.RestoredFrom, "restored_from branch")
		switch {
		case err != nil:
		case b.restoredFrom == b && bs.RestorePoint == nil:
			err = fmt.Errorf("restored_from is the branch itself: a branch restores another's backup or point in time")
		default:
			err = checkRestoredPoint(b) // which refuses itself too
		}
		return err
	})
	for i, rs := range bs.ReadOnlyRegions {
		if err := ld.loadReadOnlyRegion(b, rs); err != nil {
			return at(err, "read_only_regions[%d]", i)
		}
	}
	for i, ks := range bs.Keyspaces {
		if err := ld.loadKeyspace(b, ks); err != nil {
			return at(err, "keyspaces[%d]", i)
		}
	}
	// A fake older than this one kept a primary past the instances a
	// replica change left and read it modulo their number: that primary is
	// instance primary % n, as it was then.
	if n := b.postgresInstances(); b.db.kind == platform.KindPostgreSQL && b.primary >= n {
		b.primary %= n
	}
	if n := b.postgresInstances(); b.primary >= n || b.db.kind != platform.KindPostgreSQL && b.primary != 0 {
		return at(fmt.Errorf("branch %s runs instances 0 to %d (a mysql branch has no primary instance), got %d", b.name, n-1, b.primary), "primary")
	}
	if err := ld.loadPasswords(b, bs.Passwords); err != nil {
		return err
	}
	if err := ld.loadSwitchovers(b, bs.Switchovers); err != nil {
		return err
	}
	if err := ld.loadVitess(b, bs.Vitess); err != nil {
		return err
	}
	if err := ld.loadBouncers(b, bs.Bouncers, bs.BouncerResizes); err != nil {
		return err
	}
	if bn := b.replicaBouncer(); bn != nil && b.postgresInstances() == 1 {
		return at(fmt.Errorf("bouncer %s targets replicas, and branch %s has none", bn.name, b.name), "bouncers")
	}
	if err := ld.loadBranchCluster(b, bs.Cluster); err != nil {
		return err
	}
	if err := ld.loadQPReports(b, bs.QPReports, bs.DeletedQPReports); err != nil {
		return err
	}
	if err := ld.loadTraffic(b, bs.Traffic); err != nil {
		return err
	}
	if err := loadSessions(b, bs.Sessions); err != nil {
		return err
	}
	if err := ld.loadRoles(b, bs.Roles, bs.DefaultRole, bs.RoleOwners); err != nil {
		return err
	}
	return ld.loadBudgets(b, bs.Budgets)
}

// loadRestorePoint loads a branch's restore point, as create_branch
// takes one: on a PostgreSQL branch, restored from a branch (its parent)
// and not from a backup, at or before the branch's creation and within
// the recovery window it had then (see recoveryWindow; checkRestoredPoint
// checks the parent's side once branches are loaded).
func loadRestorePoint(b *branchRec, bs branchSnap) error {
	if bs.RestorePoint == nil {
		return nil
	}
	point, from := *bs.RestorePoint, b.created.Add(-pitrRetention)
	switch {
	case point.IsZero():
		return errors.New("a zero time: leave it out for none")
	case b.db.kind != platform.KindPostgreSQL:
		return fmt.Errorf("a restore point on a branch of %s database %s: point-in-time recovery is for postgresql databases", b.db.kind, b.db.id)
	case bs.RestoredFrom == "":
		return errors.New("set on a branch with no restored_from branch: it restores its parent as it was then")
	case bs.InitialRestoreID != "":
		return fmt.Errorf("set on a branch restored from backup %s: a branch restores a backup or a point in time, not both", bs.InitialRestoreID)
	case point.After(b.created):
		return fmt.Errorf("%s is after the branch's creation, %s", point.Format(time.RFC3339Nano), b.created.Format(time.RFC3339Nano))
	case point.Before(from):
		return fmt.Errorf("%s is before the recovery window of its creation at %s, which starts at %s", point.Format(time.RFC3339Nano), b.created.Format(time.RFC3339Nano), from.Format(time.RFC3339Nano))
	}
	b.x().restorePoint = platform.Ptr(point.UTC())
	return nil
}

// checkRestoredPoint checks a branch's restore point against the branch
// it restores, once that is loaded: its parent, which existed then.
func checkRestoredPoint(b *branchRec) error {
	point, from := b.more.read().restorePoint, b.restoredFrom
	var err error
	switch {
	case point == nil:
	case from.db != b.db:
		err = fmt.Errorf("restores branch %s of another database, %s", from.id, from.db.id)
	case point.Before(from.created):
		err = fmt.Errorf("%s is before branch %s, which it restores, was created (%s)", point.Format(time.RFC3339Nano), from.id, from.created.Format(time.RFC3339Nano))
	case from == b || from.name != b.parent:
		err = fmt.Errorf("restores branch %s (%s), not its parent %q: a restore point restores the parent", from.id, from.name, b.parent)
	}
	return at(err, "restore_point")
}
