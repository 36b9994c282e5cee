package fake

import (
	"fmt"
	"time"

	"github.com/dbplatform/platform-go"
)

// The snapshot of keyspaces, with their branch: their settings, the
// branch's read-only regions they replicate to, and their resize requests.

type keyspaceResizeSnap struct {
	stampsSnap
	Actor        string                       `json:"actor"`
	State        platform.KeyspaceResizeState `json:"state"`
	Started      time.Time                    `json:"started"`
	Completed    time.Time                    `json:"completed"`
	ShardTime    time.Duration                `json:"shard_time"`
	From         keyspaceSizeSnap             `json:"from"`
	To           keyspaceSizeSnap             `json:"to"`
	Replicas     int                          `json:"replicas"`
	PrevReplicas int                          `json:"previous_replicas"`
}

type keyspaceSizeSnap struct {
	ClusterSize   string   `json:"cluster_size"`
	ExtraReplicas int      `json:"extra_replicas"`
	VectorPool    *float64 `json:"vector_pool,omitempty"`
}

func saveKeyspaceSize(z keyspaceSize) keyspaceSizeSnap {
	return keyspaceSizeSnap{z.clusterSize, z.extraReplicas, z.vectorPool}
}

func (z keyspaceSizeSnap) load() keyspaceSize {
	return keyspaceSize{z.ClusterSize, z.ExtraReplicas, z.VectorPool}
}

// saveKeyspaceResizes saves the resize requests of ks, and its latest
// completed one by ID.
func saveKeyspaceResizes(ks *keyspaceRec) (list []keyspaceResizeSnap, last string) {
	m := ks.more.read()
	for _, r := range m.resizes.All() {
		list = append(list, keyspaceResizeSnap{
			stampsSnap: saveStamps(r.stamps), Actor: idOf(r.actor), State: r.state,
			Started: r.started, Completed: r.completed, ShardTime: r.shardTime,
			From: saveKeyspaceSize(r.from), To: saveKeyspaceSize(r.to),
			Replicas: r.replicas, PrevReplicas: r.prevReplicas,
		})
	}
	return list, idOf(m.lastResize)
}

// loadKeyspaceResizes loads the resize requests of ks: the one queued or
// resizing is its resize in progress, and last its latest completed one.
func (ld *loader) loadKeyspaceResizes(ks *keyspaceRec, list []keyspaceResizeSnap, last string) error {
	for i, rs := range list {
		if err := unique(ld.keyspaceResizes, rs.ID, "keyspace resize"); err != nil {
			return err
		}
		if err := firstErr(
			at(snapRange(rs.From.ExtraReplicas, 0, maxKeyspaceReplicas), "from.extra_replicas"),
			at(snapRange(rs.To.ExtraReplicas, 0, maxKeyspaceReplicas), "to.extra_replicas"),
			at(snapRange(rs.Replicas, 0, maxKeyspaceReplicas), "replicas"),
			at(snapRange(rs.PrevReplicas, 0, maxKeyspaceReplicas), "previous_replicas"),
		); err != nil {
			return at(err, "resizes[%d]", i)
		}
		actor, err := ref(ld.users, rs.Actor, "keyspace resize actor")
		if err != nil {
			return err
		}
		r := &keyspaceResizeRec{
			stamps: rs.load(), ks: ks, actor: actor, state: rs.State, started: rs.Started, completed: rs.Completed,
			shardTime: rs.ShardTime, from: rs.From.load(), to: rs.To.load(), replicas: rs.Replicas, prevReplicas: rs.PrevReplicas,
		}
		m := ks.x()
		switch r.state {
		case platform.KeyspaceResizeQueued, platform.KeyspaceResizeResizing:
			if m.resize != nil {
				return fmt.Errorf("keyspace resizes %s and %s both in progress", m.resize.id, r.id)
			}
			m.resize = r
		case platform.KeyspaceResizeCompleted, platform.KeyspaceResizeCanceled:
		default:
			return fmt.Errorf("keyspace resize %s: unknown state %q", r.id, r.state)
		}
		if r.state != platform.KeyspaceResizeQueued && r.shardTime < 0 {
			return fmt.Errorf("keyspace resize %s: negative shard time %v", r.id, r.shardTime)
		}
		ld.keyspaceResizes[r.id] = r
		m.resizes.Add(r)
	}
	if last == "" {
		return nil
	}
	r := ks.more.read().resizes.Get(last)
	switch {
	case r == nil:
		return fmt.Errorf("latest resize %q is not a resize of keyspace %s", last, ks.id)
	case r.state != platform.KeyspaceResizeCompleted:
		return fmt.Errorf("latest resize %s is %s, not completed", r.id, r.state)
	}
	ks.x().lastResize = r
	return nil
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

func saveSettings(s keyspaceSettings) settingsSnap {
	return settingsSnap{s.durability, s.vreplication, s.mysqld, s.vttablet, s.nodeTTL, s.vectorPool}
}

func (s settingsSnap) load() keyspaceSettings {
	return keyspaceSettings{s.Durability, s.VReplication, s.Mysqld, s.VTTablet, s.NodeTTL, s.VectorPool}
}

// validate checks what the API checks of a keyspace of branch b: its
// name, shards, replicas and cluster size.
func (ks *keyspaceSnap) validate(b *branchRec) error {
	errs := []error{
		at(snapName(ks.Name), "name"),
		at(snapRange(ks.Shards, 1, maxShards), "shards"),
		at(snapRange(ks.ExtraReplicas, 0, maxKeyspaceReplicas-included(b)), "extra_replicas"),
		at(snapClusterSize(ks.ClusterSize, newClusterScope(b.db.kind, b.region), b.production), "cluster_size"),
		at(snapCounter(ks.ConfigGen), "config_gen"),
		at(snapObject(ks.Tables), "tables"),
		at(snapTables(ks.Tables), "tables"),
	}
	for i, ro := range ks.ReadOnly {
		errs = append(errs, at(snapRange(ro.Replicas, 1, maxReadOnlyReplicas), "read_only_regions[%d].replicas", i))
	}
	for table, n := range ks.TableSizes {
		errs = append(errs, at(snapNonNegative(n), "table_sizes.%s", table))
	}
	return firstErr(errs...)
}

// loadKeyspace loads a keyspace of b.
func (ld *loader) loadKeyspace(b *branchRec, ks keyspaceSnap) error {
	ks.ClusterSize = snapPostgresSize(ks.ClusterSize, b.db.kind, b.region)
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
	if err := loadVSchema(k, ks.VSchema); err != nil {
		return at(err, "vschema")
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

// saveReadOnlyRegions saves the read-only regions of b.
func saveReadOnlyRegions(b *branchRec) []readOnlyRegionSnap {
	var out []readOnlyRegionSnap
	for _, rr := range b.readOnlyRegions.All() {
		out = append(out, readOnlyRegionSnap{
			stampsSnap: saveStamps(rr.stamps), Region: rr.region.slug, Actor: idOf(rr.actor), ReadyAt: rr.readyAt, Removed: rr.removed,
		})
	}
	return out
}

// saveKeyspaces saves the keyspaces of b.
func saveKeyspaces(b *branchRec) []keyspaceSnap {
	var out []keyspaceSnap
	for _, ks := range b.keyspaces.All() {
		m := ks.more.read()
		resizes, last := saveKeyspaceResizes(ks)
		out = append(out, keyspaceSnap{
			stampsSnap: saveStamps(ks.stamps), Name: ks.name, Shards: ks.shards,
			ExtraReplicas: ks.extraReplicas, ClusterSize: ks.clusterSize, Ready: ks.ready,
			IsDefault: ks.isDefault, ReadOnly: saveKeyspaceRO(m.readOnlyRegions), Tables: ks.tables, TableSizes: ks.savedSizes(), VSchema: m.vschema, Settings: saveSettings(ks.settings),
			ConfigChanging: m.configChanging, ConfigGen: m.configGen, Resizes: resizes, LastResize: last,
			Metered: saveMeter(ks),
		})
		if m.before != nil {
			before := saveSettings(*m.before)
			out[len(out)-1].Before = &before
		}
	}
	return out
}
