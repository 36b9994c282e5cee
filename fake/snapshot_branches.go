package fake

import (
	"fmt"
	"time"

	"github.com/dbplatform/platform-go"
)

// The snapshot of branches with their keyspaces, roles and traffic budgets.
// Their passwords, switchovers, bouncers, keyspace resizes and cluster
// requests are in snapshot_credentials.go, snapshot_switchovers.go,
// snapshot_bouncers.go, snapshot_keyspace_resizes.go and
// snapshot_branchchanges.go.

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
	Actor             string    `json:"actor"`
	Region            string    `json:"region"` // slug
	RestoredFrom      string    `json:"restored_from"`
	InitialRestoreID  string    `json:"initial_restore_id"`
	SchemaUpdated     time.Time `json:"schema_updated"`
	RoutingRules      string    `json:"routing_rules,omitempty"` // "" for the default

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
	Traffic         *trafficSnap         `json:"traffic,omitempty"`
	Vitess          *vitessSnap          `json:"vitess,omitempty"`
	Sessions        *sessionsSnap        `json:"sessions,omitempty"` // see connections_snap.go
}

type keyspaceSnap struct {
	stampsSnap
	Name           string               `json:"name"`
	Shards         int                  `json:"shards"`
	ExtraReplicas  int                  `json:"extra_replicas"`
	ClusterSize    string               `json:"cluster_size"`
	Ready          bool                 `json:"ready"`
	IsDefault      bool                 `json:"is_default"`
	ReadOnly       []keyspaceROSnap     `json:"read_only_regions"`
	Tables         map[string]string    `json:"tables"`
	TableSizes     map[string]int64     `json:"table_sizes,omitempty"`
	VSchema        string               `json:"vschema,omitempty"` // "" for the default
	Settings       settingsSnap         `json:"settings"`
	ConfigChanging bool                 `json:"config_changing"`
	Before         *settingsSnap        `json:"settings_before,omitempty"`
	ConfigGen      int                  `json:"config_gen"`
	Resizes        []keyspaceResizeSnap `json:"resizes"`
	LastResize     string               `json:"last_resize"`
	Metered        *meterSnap           `json:"metered,omitempty"`
}

// readOnlyRegionSnap is a region a branch's keyspaces replicate to.
type readOnlyRegionSnap struct {
	stampsSnap
	Region  string    `json:"region"` // slug
	Actor   string    `json:"actor"`
	ReadyAt time.Time `json:"ready_at"`
	Removed bool      `json:"removed,omitempty"`
}

// keyspaceROSnap is a region a keyspace replicates to.
type keyspaceROSnap struct {
	Region       string `json:"region"`        // slug
	BranchRegion string `json:"branch_region"` // a read-only region of the branch, by ID
	ClusterSize  string `json:"cluster_size"`
	Replicas     int    `json:"replicas"`
}

type settingsSnap struct {
	Durability   *platform.DurabilityStrategy `json:"durability"`
	VReplication platform.VReplicationFlags   `json:"vreplication"`
	Mysqld       map[string]string            `json:"mysqld"`
	VTTablet     map[string]string            `json:"vttablet"`
	NodeTTL      platform.NodeTTLStrategy     `json:"node_ttl"`
	VectorPool   *float64                     `json:"vector_pool"`
}

type roleSnap struct {
	stampsSnap
	Name         string `json:"name"`
	BaseUsername string `json:"base_username"`
	Actor        string `json:"actor"`
	IsDefault    bool   `json:"is_default"`
	leaseSnap
	Inherited       []platform.InheritedRole `json:"inherited"`
	WithReplication bool                     `json:"with_replication"`
	WhereOnDelete   platform.QuerySafety     `json:"where_on_delete"`
	WhereOnUpdate   platform.QuerySafety     `json:"where_on_update"`
	Dropped         bool                     `json:"dropped"`
	DroppedAt       time.Time                `json:"dropped_at"`
}

type budgetSnap struct {
	stampsSnap
	Name   string                     `json:"name"`
	Mode   platform.TrafficBudgetMode `json:"mode"`
	Limits trafficLimits              `json:"limits"`
	Actor  string                     `json:"actor"`
	Rules  []ruleSnap                 `json:"rules"`
}

type ruleSnap struct {
	stampsSnap
	Kind        platform.TrafficRuleKind `json:"kind"`
	Keyspace    string                   `json:"keyspace"`
	Fingerprint string                   `json:"fingerprint"`
	TagKey      string                   `json:"tag_key"`
	TagValue    string                   `json:"tag_value"`
	Actor       string                   `json:"actor"`
}

func saveSettings(s keyspaceSettings) settingsSnap {
	return settingsSnap{s.durability, s.vreplication, s.mysqld, s.vttablet, s.nodeTTL, s.vectorPool}
}

func (s settingsSnap) load() keyspaceSettings {
	return keyspaceSettings{s.Durability, s.VReplication, s.Mysqld, s.VTTablet, s.NodeTTL, s.VectorPool}
}

func (sv *saver) branches() []branchSnap {
	var out []branchSnap
	for _, b := range listOrder(sv.branchSet) {
		bs := branchSnap{
			stampsSnap: saveStamps(b.stamps), Database: b.db.id, Name: b.name, Parent: b.parent,
			Production: b.production, Ready: b.ready, SafeMigrations: b.safeMigrations,
			DeletionProtected: b.deletionProtected, Deleted: b.deleted, DeletedAt: b.deletedAt,
			Actor: idOf(b.actor), Region: b.region.slug, RestoredFrom: idOf(b.restoredFrom),
			InitialRestoreID: b.initialRestoreID, SchemaUpdated: b.schemaUpdated, RoutingRules: b.more.read().routingRules,
			DefaultRole: idOf(b.roles.def), Passwords: savePasswords(b),
			Switchovers: saveSwitchovers(b), Primary: b.primary,
		}
		bs.Bouncers, bs.BouncerResizes = saveBouncers(b)
		bs.Cluster = saveBranchCluster(b)
		bs.QPReports = saveQPReports(b)
		bs.Traffic = saveTraffic(b)
		bs.Vitess = saveVitess(b)
		bs.Sessions = saveSessions(b)
		for _, rr := range b.readOnlyRegions.All() {
			bs.ReadOnlyRegions = append(bs.ReadOnlyRegions, readOnlyRegionSnap{
				stampsSnap: saveStamps(rr.stamps), Region: rr.region.slug, Actor: idOf(rr.actor), ReadyAt: rr.readyAt, Removed: rr.removed,
			})
		}
		for _, ks := range b.keyspaces.All() {
			m := ks.more.read()
			resizes, last := saveKeyspaceResizes(ks)
			bs.Keyspaces = append(bs.Keyspaces, keyspaceSnap{
				stampsSnap: saveStamps(ks.stamps), Name: ks.name, Shards: ks.shards,
				ExtraReplicas: ks.extraReplicas, ClusterSize: ks.clusterSize, Ready: ks.ready,
				IsDefault: ks.isDefault, ReadOnly: saveKeyspaceRO(m.readOnlyRegions), Tables: ks.tables, TableSizes: ks.savedSizes(), VSchema: m.vschema, Settings: saveSettings(ks.settings),
				ConfigChanging: m.configChanging, ConfigGen: m.configGen, Resizes: resizes, LastResize: last,
				Metered: saveMeter(ks),
			})
			if m.before != nil {
				before := saveSettings(*m.before)
				bs.Keyspaces[len(bs.Keyspaces)-1].Before = &before
			}
		}
		for _, r := range b.roles.every {
			bs.Roles = append(bs.Roles, roleSnap{
				stampsSnap: saveStamps(r.stamps), Name: r.name, BaseUsername: r.baseUsername,
				Actor: idOf(r.actor), IsDefault: r.isDefault, leaseSnap: saveLease(r.lease),
				Inherited: r.inherited, WithReplication: r.withReplication,
				WhereOnDelete: r.whereOnDelete, WhereOnUpdate: r.whereOnUpdate,
				Dropped: r.dropped, DroppedAt: r.droppedAt,
			})
		}
		if len(b.roles.owners) > 0 {
			bs.RoleOwners = map[string]string{}
			for obj, r := range b.roles.owners {
				bs.RoleOwners[obj] = r.id
			}
		}
		for _, bg := range b.more.read().budgets.All() {
			gs := budgetSnap{stampsSnap: saveStamps(bg.stamps), Name: bg.name, Mode: bg.mode, Limits: bg.limits, Actor: idOf(bg.actor)}
			for _, r := range bg.rules {
				gs.Rules = append(gs.Rules, ruleSnap{
					stampsSnap: saveStamps(r.stamps), Kind: r.kind, Keyspace: r.keyspace, Fingerprint: r.fingerprint,
					TagKey: r.tag.key, TagValue: r.tag.value, Actor: idOf(r.actor),
				})
			}
			bs.Budgets = append(bs.Budgets, gs)
		}
		out = append(out, bs)
	}
	return out
}

func (ld *loader) loadBranches(list []branchSnap) error {
	for i, bs := range list {
		err := unique(ld.branches, bs.ID, "branch")
		if err == nil {
			err = ld.loadBranch(bs)
		}
		if err != nil {
			return at(named(err, "branch %s", bs.ID), "branches[%d]", i)
		}
	}
	return nil
}

// validate checks what the API checks of a branch: its name and its
// parent's (a parent deleted since is known by name only).
func (bs *branchSnap) validate() error {
	var parent error
	if bs.Parent != "" {
		parent = snapName(bs.Parent)
	}
	return firstErr(at(snapName(bs.Name), "name"), at(parent, "parent"))
}

// validate checks what the API checks of a keyspace of branch b: its
// name, shards, replicas and cluster size.
func (ks *keyspaceSnap) validate(b *branchRec) error {
	errs := []error{
		at(snapName(ks.Name), "name"),
		at(snapRange(ks.Shards, 1, maxShards), "shards"),
		at(snapRange(ks.ExtraReplicas, 0, maxKeyspaceReplicas-included(b)), "extra_replicas"),
		at(snapClusterSize(ks.ClusterSize, b.db.kind, b.production), "cluster_size"),
		at(snapCounter(ks.ConfigGen), "config_gen"),
	}
	for i, ro := range ks.ReadOnly {
		errs = append(errs, at(snapRange(ro.Replicas, 1, maxReadOnlyReplicas), "read_only_regions[%d].replicas", i))
	}
	for table, n := range ks.TableSizes {
		errs = append(errs, at(snapNonNegative(n), "table_sizes.%s", table))
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
	actor, err := ref(ld.users, bs.Actor, "actor")
	if err != nil {
		return err
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
	if bs.RoutingRules != "" {
		b.x().routingRules = bs.RoutingRules
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
		return named(err, "branch %s", b.id)
	})
	for _, rs := range bs.ReadOnlyRegions {
		if err := ld.loadReadOnlyRegion(b, rs); err != nil {
			return err
		}
	}
	for i, ks := range bs.Keyspaces {
		if err := ld.loadKeyspace(b, ks); err != nil {
			return at(err, "keyspaces[%d]", i)
		}
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
	if err := ld.loadBranchCluster(b, bs.Cluster); err != nil {
		return err
	}
	if err := ld.loadQPReports(b, bs.QPReports); err != nil {
		return err
	}
	if err := ld.loadTraffic(b, bs.Traffic); err != nil {
		return err
	}
	if err := loadSessions(b, bs.Sessions); err != nil {
		return err
	}
	return ld.loadRolesAndBudgets(b, bs)
}

// loadKeyspace loads a keyspace of b.
func (ld *loader) loadKeyspace(b *branchRec, ks keyspaceSnap) error {
	if err := ks.validate(b); err != nil {
		return err
	}
	if b.keyspace(ks.Name) != nil {
		return at(fmt.Errorf("%q appears twice", ks.Name), "name")
	}
	k := &keyspaceRec{
		stamps: ks.load(), branch: b, name: ks.Name, shards: ks.Shards, extraReplicas: ks.ExtraReplicas,
		clusterSize: ks.ClusterSize, ready: ks.Ready, isDefault: ks.IsDefault, tables: ks.Tables,
		settings: ks.Settings.load(),
	}
	if ks.VSchema != "" || ks.ConfigChanging || ks.ConfigGen != 0 || ks.Before != nil {
		m := k.x()
		m.vschema, m.configChanging, m.configGen = ks.VSchema, ks.ConfigChanging, ks.ConfigGen
		if ks.Before != nil {
			before := ks.Before.load()
			m.before = &before
		}
	}
	for table, n := range ks.TableSizes {
		k.setTableSize(table, n)
	}
	if err := ks.Metered.load(k); err != nil {
		return named(err, "keyspace %s", k.id)
	}
	ro, err := ld.loadKeyspaceRO(b, ks.ReadOnly)
	if err != nil {
		return named(err, "keyspace %s", k.id)
	}
	if ro != nil {
		k.x().readOnlyRegions = ro
	}
	if err := ld.loadKeyspaceResizes(k, ks.Resizes, ks.LastResize); err != nil {
		return named(err, "keyspace %s", k.id)
	}
	b.keyspaces.Add(k)
	return nil
}

func (ld *loader) loadRolesAndBudgets(b *branchRec, bs branchSnap) error {
	roles := map[string]*roleRec{} // by ID, for the references below
	for _, rs := range bs.Roles {
		actor, err := ref(ld.users, rs.Actor, "role actor")
		if err != nil {
			return err
		}
		if rs.ID == "" {
			return fmt.Errorf("role without an ID")
		}
		if roles[rs.ID] != nil {
			return fmt.Errorf("role %q appears twice", rs.ID)
		}
		l, err := rs.loadLease()
		if err != nil {
			return fmt.Errorf("role %s: %v", rs.ID, err)
		}
		r := &roleRec{
			stamps: rs.load(), branch: b, name: rs.Name, baseUsername: rs.BaseUsername, actor: actor,
			isDefault: rs.IsDefault, lease: l, inherited: rs.Inherited,
			withReplication: rs.WithReplication, whereOnDelete: rs.WhereOnDelete, whereOnUpdate: rs.WhereOnUpdate,
			dropped: rs.Dropped, droppedAt: rs.DroppedAt,
		}
		roles[r.id] = r
		b.roles.every = append(b.roles.every, r)
		if !r.dropped {
			b.roles.live.Add(r)
		}
	}
	var err error
	if b.roles.def, err = ref(roles, bs.DefaultRole, "default role"); err != nil {
		return err
	}
	for obj, id := range bs.RoleOwners {
		if b.roles.owners == nil {
			b.roles.owners = map[string]*roleRec{}
		}
		if b.roles.owners[obj], err = ref(roles, id, "owner of "+obj); err != nil {
			return err
		}
	}
	for _, gs := range bs.Budgets {
		actor, err := ref(ld.users, gs.Actor, "budget actor")
		if err != nil {
			return err
		}
		bg := &trafficBudgetRec{stamps: gs.load(), branch: b, name: gs.Name, mode: gs.Mode, limits: gs.Limits, actor: actor}
		for _, rs := range gs.Rules {
			actor, err := ref(ld.users, rs.Actor, "rule actor")
			if err != nil {
				return err
			}
			bg.rules = append(bg.rules, &trafficRuleRec{
				stamps: rs.load(), actor: actor,
				trafficRuleSpec: trafficRuleSpec{kind: rs.Kind, keyspace: rs.Keyspace, fingerprint: rs.Fingerprint, tag: trafficTag{rs.TagKey, rs.TagValue}},
			})
		}
		b.x().budgets.Add(bg)
	}
	return nil
}

func saveKeyspaceRO(list []keyspaceReadOnlyRegion) []keyspaceROSnap {
	var out []keyspaceROSnap
	for _, ro := range list {
		out = append(out, keyspaceROSnap{ro.region.slug, idOf(ro.branchRegion), ro.clusterSize, ro.replicas})
	}
	return out
}

// loadReadOnlyRegion loads a read-only region of b.
func (ld *loader) loadReadOnlyRegion(b *branchRec, rs readOnlyRegionSnap) error {
	if err := unique(ld.readOnly, rs.ID, "read-only region"); err != nil {
		return err
	}
	region := regionBySlug(rs.Region)
	if region == nil {
		return fmt.Errorf("read-only region %s: unknown region %q", rs.ID, rs.Region)
	}
	actor, err := ref(ld.users, rs.Actor, "read-only region's actor")
	if err != nil {
		return err
	}
	rr := &readOnlyRegionRec{stamps: rs.load(), region: region, actor: actor, readyAt: rs.ReadyAt, removed: rs.Removed}
	ld.readOnly[rr.id] = rr
	if !rr.removed {
		b.readOnlyRegions.Add(rr)
	}
	return nil
}

// loadKeyspaceRO loads the regions a keyspace of b replicates to.
func (ld *loader) loadKeyspaceRO(b *branchRec, list []keyspaceROSnap) ([]keyspaceReadOnlyRegion, error) {
	var out []keyspaceReadOnlyRegion
	for _, rs := range list {
		region := regionBySlug(rs.Region)
		if region == nil {
			return nil, fmt.Errorf("unknown read-only region %q", rs.Region)
		}
		rr, err := refNonNil(ld.readOnly, rs.BranchRegion, "read-only region of the branch")
		if err != nil {
			return nil, err
		}
		out = append(out, keyspaceReadOnlyRegion{region: region, branchRegion: rr, clusterSize: rs.ClusterSize, replicas: rs.Replicas})
	}
	return out, nil
}
