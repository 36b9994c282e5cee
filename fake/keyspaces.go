package fake

import (
	"bytes"
	"encoding/json"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/dbplatform/platform-go"
)

// keyspaceRec is a keyspace of a branch, with the tables of its schema.
//
// A keyspace created through the API is pending for Timings.KeyspaceReady;
// the keyspaces a branch starts with are ready when the branch is. A
// settings change is in progress for Timings.KeyspaceConfigChange. With
// FailNext on its ID, a pending keyspace fails to provision (and is
// removed), and a settings change fails (and the settings roll back).
type keyspaceRec struct {
	stamps
	branch        *branchRec
	name          string
	shards        int
	extraReplicas int
	clusterSize   string
	ready         bool
	isDefault     bool
	deleted       bool
	tables        map[string]string // table name -> CREATE TABLE statement
	settings      keyspaceSettings
	// readOnlyRegions are the slugs of the regions serving read-only
	// replicas.
	readOnlyRegions []string

	// configChanging is true while a settings change is applied; before
	// holds the settings from before it, restored if it fails, and
	// configGen counts changes, so that only the latest one completes.
	configChanging bool
	before         keyspaceSettings
	configGen      int
}

// keyspaceSettings are what update_keyspace changes. Pointed-to values are
// never modified in place, only replaced, so copies may share them.
type keyspaceSettings struct {
	durability   *platform.DurabilityStrategy
	vreplication platform.VReplicationFlags
	mysqld       map[string]string
	vttablet     map[string]string
	nodeTTL      platform.NodeTTLStrategy
	vectorPool   *float64
}

// defaultKeyspaceSettings are a new keyspace's settings.
func defaultKeyspaceSettings() keyspaceSettings {
	return keyspaceSettings{
		mysqld:   map[string]string{},
		vttablet: map[string]string{},
		nodeTTL:  platform.NodeTTLFollowMaintenance,
	}
}

// clone copies the settings, maps included.
func (st keyspaceSettings) clone() keyspaceSettings {
	st.mysqld, st.vttablet = cloneMap(st.mysqld), cloneMap(st.vttablet)
	return st
}

// maxShards bounds a keyspace's shards: the fake names shards by key
// ranges of two hex digits ("-80", "80-"), which divide into 256 at most.
const maxShards = 256

// includedReplicas is how many replicas each keyspace of a production
// branch has before extra_replicas; development branches include none.
const includedReplicas = 2

// replicas is the keyspace's total number of replicas.
func (ks *keyspaceRec) replicas() int {
	if ks.branch.production {
		return includedReplicas + ks.extraReplicas
	}
	return ks.extraReplicas
}

// gone reports whether the keyspace, or its branch, was deleted.
func (ks *keyspaceRec) gone() bool { return ks.deleted || ks.branch.deleted }

// newKeyspace adds a keyspace to a branch.
func (w *world) newKeyspace(b *branchRec, name string, now time.Time) *keyspaceRec {
	ks := &keyspaceRec{
		stamps:      stamps{id: w.newID(), created: now, updated: now},
		branch:      b,
		name:        name,
		shards:      1,
		clusterSize: b.db.clusterSize,
		tables:      map[string]string{},
		settings:    defaultKeyspaceSettings(),
	}
	b.keyspaces.add(ks)
	b.keyspaceByName[name] = ks
	return ks
}

// copyKeyspaces gives b a copy of every keyspace of src, with its tables and
// settings, as branching copies a schema. The copies are created a
// nanosecond apart, below the API's millisecond times, so that they list in
// their originals' order.
func (w *world) copyKeyspaces(b, src *branchRec, now time.Time) {
	for i, from := range src.keyspaces.all() {
		ks := w.newKeyspace(b, from.name, now.Add(time.Duration(i)))
		ks.shards, ks.extraReplicas, ks.clusterSize = from.shards, from.extraReplicas, from.clusterSize
		ks.isDefault = from.isDefault
		ks.tables = cloneMap(from.tables)
		ks.settings = from.settings.clone()
	}
}

// dropKeyspace removes a keyspace, and its tables, from its branch.
func (s *Server) dropKeyspace(ks *keyspaceRec) {
	b := ks.branch
	ks.deleted = true
	b.keyspaces.remove(ks)
	delete(b.keyspaceByName, ks.name)
	s.world.endFlight(ks.id)
	if len(ks.tables) > 0 {
		b.schemaUpdated = s.clock.Now()
		b.updated = b.schemaUpdated
	}
}

func (s *Server) keyspaceRoutes() []route {
	return []route{
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/keyspaces", op: "list_keyspaces", handler: read(listKeyspaces)},
		{pattern: "POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/keyspaces", op: "create_keyspace", handler: withBody(s.createKeyspace)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/keyspaces/{keyspace}", op: "get_keyspace", handler: read(getKeyspace)},
		{pattern: "PATCH /v1/organizations/{organization}/databases/{database}/branches/{branch}/keyspaces/{keyspace}", op: "update_keyspace", handler: withBody(s.updateKeyspace)},
		{pattern: "DELETE /v1/organizations/{organization}/databases/{database}/branches/{branch}/keyspaces/{keyspace}", op: "delete_keyspace", handler: act(s.deleteKeyspace)},
	}
}

// keyspace finds the path's {keyspace} on the path's branch.
func (c *call) keyspace() (*keyspaceRec, error) {
	b, err := c.branch()
	if err != nil {
		return nil, err
	}
	ks := b.keyspaceByName[c.r.PathValue("keyspace")]
	if ks == nil {
		return nil, notFound()
	}
	return ks, nil
}

func listKeyspaces(c *call) (any, error) {
	b, err := c.branch()
	if err != nil {
		return nil, err
	}
	return pageOf(c, &b.keyspaces, false, renderKeyspace), nil
}

func (s *Server) createKeyspace(c *call, p *platform.CreateKeyspaceParams) (any, error) {
	b, err := c.branch()
	if err != nil {
		return nil, err
	}
	if err := checkName("name", p.Name); err != nil {
		return nil, err
	}
	if b.keyspaceByName[p.Name] != nil {
		return nil, unprocessable("name %q is already taken by another keyspace of branch %s", p.Name, b.name)
	}
	if p.ClusterSize == "" {
		return nil, unprocessable("cluster_size is required")
	}
	if p.Shards != nil && (*p.Shards < 1 || *p.Shards > maxShards) {
		return nil, unprocessable("shards must be from 1 to %d, got %d", maxShards, *p.Shards)
	}
	if p.ExtraReplicas != nil && *p.ExtraReplicas < 0 {
		return nil, unprocessable("extra_replicas must not be negative, got %d", *p.ExtraReplicas)
	}
	if !b.ready {
		return nil, unprocessable("branch %s is not ready yet", b.name)
	}
	ks := c.w.newKeyspace(b, p.Name, c.now)
	ks.clusterSize = p.ClusterSize
	setIf(&ks.shards, p.Shards)
	setIf(&ks.extraReplicas, p.ExtraReplicas)
	c.w.startFlight(ks.id)
	s.clock.after(s.timing.KeyspaceReady, keyspaceReadyJob{ks})
	return renderKeyspace(ks), nil
}

// keyspaceReady is the pending -> ready transition of a created keyspace;
// a failed one is removed.
func (s *Server) keyspaceReady(ks *keyspaceRec) {
	s.world.endFlight(ks.id)
	failed := s.takeFailure(ks.id)
	switch {
	case ks.gone():
	case failed:
		s.dropKeyspace(ks)
	default:
		ks.ready = true
		ks.updated = s.clock.Now()
	}
}

func getKeyspace(c *call) (any, error) {
	ks, err := c.keyspace()
	if err != nil {
		return nil, err
	}
	return renderKeyspace(ks), nil
}

// keyspaceSettingsFields are the fields update_keyspace takes; any other is
// refused whether or not the server is strict.
var keyspaceSettingsFields = []string{
	"replication_durability_constraints", "vreplication_flags", "mysqld_options",
	"vttablet_options", "node_ttl_strategy", "vector_pool_allocation",
}

func (s *Server) updateKeyspace(c *call, raw *json.RawMessage) (any, error) {
	p, clearVector, err := decodeKeyspaceSettings(*raw)
	if err != nil {
		return nil, err
	}
	ks, err := c.keyspace()
	if err != nil {
		return nil, err
	}
	next, err := ks.settings.with(p, clearVector)
	if err != nil {
		return nil, err
	}
	if !ks.ready {
		return nil, unprocessable("keyspace %s is not ready yet", ks.name)
	}
	if !reflect.DeepEqual(next, ks.settings) {
		s.changeKeyspaceSettings(ks, next)
	}
	return renderKeyspace(ks), nil
}

// decodeKeyspaceSettings reads the body of update_keyspace: unknown fields
// and wrong JSON types are 400s. clearVector reports a
// vector_pool_allocation given as null.
func decodeKeyspaceSettings(data []byte) (p *platform.UpdateKeyspaceParams, clearVector bool, err error) {
	p = new(platform.UpdateKeyspaceParams)
	if len(bytes.TrimSpace(data)) == 0 {
		return p, false, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(p); err != nil {
		e := bodyError(err)
		if _, ok := unknownField(err); ok {
			e.message += "; the settings are " + strings.Join(keyspaceSettingsFields, ", ")
		}
		return nil, false, e
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return nil, false, bodyError(err)
	}
	for name, v := range fields {
		if strings.EqualFold(name, "vector_pool_allocation") && string(bytes.TrimSpace(v)) == "null" {
			clearVector = true
		}
	}
	return p, clearVector, nil
}

// optionName is the form of a mysqld or vttablet option's name.
var optionName = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// with returns the settings p leaves, or a 422 naming the first bad value.
func (st keyspaceSettings) with(p *platform.UpdateKeyspaceParams, clearVector bool) (keyspaceSettings, error) {
	next := st.clone()
	if d := p.ReplicationDurabilityConstraints; d != nil {
		if d.Strategy == nil {
			return next, unprocessable("replication_durability_constraints.strategy is required: available, lag or always")
		}
		switch *d.Strategy {
		case platform.DurabilityAvailable, platform.DurabilityLag, platform.DurabilityAlways:
		default:
			return next, unprocessable("replication_durability_constraints.strategy %q is not available, lag or always", *d.Strategy)
		}
		next.durability = platform.Ptr(*d.Strategy)
	}
	if f := p.VReplicationFlags; f != nil {
		setIf(&next.vreplication.OptimizeInserts, f.OptimizeInserts)
		setIf(&next.vreplication.AllowNoBlobBinlogRowImage, f.AllowNoBlobBinlogRowImage)
		setIf(&next.vreplication.VPlayerBatching, f.VPlayerBatching)
	}
	for _, opts := range []struct {
		field string
		given *map[string]string
		dst   *map[string]string
	}{{"mysqld_options", p.MysqldOptions, &next.mysqld}, {"vttablet_options", p.VTTabletOptions, &next.vttablet}} {
		if opts.given == nil {
			continue
		}
		for _, name := range slices.Sorted(maps.Keys(*opts.given)) {
			if !optionName.MatchString(name) {
				return next, unprocessable("%s: %q is not an option name (letters, digits, _ . -)", opts.field, name)
			}
		}
		*opts.dst = cloneMap(*opts.given)
	}
	if t := p.NodeTTLStrategy; t != nil {
		switch *t {
		case platform.NodeTTLFollowMaintenance, platform.NodeTTLAlways, platform.NodeTTLOff:
		default:
			return next, unprocessable("node_ttl_strategy %q is not node_ttl_follow_maintenance, node_ttl_always or node_ttl_off", *t)
		}
		next.nodeTTL = *t
	}
	switch v := p.VectorPoolAllocation; {
	case clearVector:
		next.vectorPool = nil
	case v != nil && (*v < 0 || *v > 100):
		return next, unprocessable("vector_pool_allocation must be from 0 to 100, got %g", *v)
	case v != nil:
		next.vectorPool = platform.Ptr(*v)
	}
	return next, nil
}

// changeKeyspaceSettings starts applying new settings. A change made while
// another is in progress replaces it: only the latest one completes.
func (s *Server) changeKeyspaceSettings(ks *keyspaceRec, next keyspaceSettings) {
	if !ks.configChanging {
		ks.before = ks.settings
	}
	ks.settings = next
	ks.configChanging = true
	ks.configGen++
	ks.updated = s.clock.Now()
	gen := ks.configGen
	s.world.startFlight(ks.id)
	s.clock.after(s.timing.KeyspaceConfigChange, keyspaceConfigJob{ks, gen})
}

// keyspaceReadyJob runs keyspaceReady.
type keyspaceReadyJob struct{ ks *keyspaceRec }

func (j keyspaceReadyJob) run(s *Server) { s.keyspaceReady(j.ks) }

// keyspaceConfigJob runs keyspaceConfigApplied for settings change gen.
type keyspaceConfigJob struct {
	ks  *keyspaceRec
	gen int
}

func (j keyspaceConfigJob) run(s *Server) { s.keyspaceConfigApplied(j.ks, j.gen) }

// keyspaceConfigApplied completes settings change gen; a failed change
// restores the settings from before it.
func (s *Server) keyspaceConfigApplied(ks *keyspaceRec, gen int) {
	if gen != ks.configGen {
		return
	}
	s.world.endFlight(ks.id)
	failed := s.takeFailure(ks.id)
	if ks.gone() {
		return
	}
	if failed {
		ks.settings = ks.before
	}
	ks.before = keyspaceSettings{}
	ks.configChanging = false
	ks.updated = s.clock.Now()
}

func (s *Server) deleteKeyspace(c *call) (any, error) {
	ks, err := c.keyspace()
	if err != nil {
		return nil, err
	}
	if ks.isDefault {
		return nil, unprocessable("keyspace %s is the default keyspace of branch %s and cannot be deleted", ks.name, ks.branch.name)
	}
	s.dropKeyspace(ks)
	return nil, nil
}

// renderKeyspace renders a keyspace as the API shows it.
func renderKeyspace(ks *keyspaceRec) *platform.Keyspace {
	st := ks.settings
	out := &platform.Keyspace{
		ID:                     ks.id,
		Type:                   "Keyspace",
		Name:                   ks.name,
		Shards:                 ks.shards,
		Sharded:                ks.shards > 1,
		Replicas:               ks.replicas(),
		ExtraReplicas:          ks.extraReplicas,
		ClusterName:            ks.clusterSize,
		ClusterDisplayName:     strings.ReplaceAll(ks.clusterSize, "_", "-"),
		ConfigChangeInProgress: ks.configChanging,
		Ready:                  ks.ready,
		Default:                ks.isDefault,
		NodeTTLStrategy:        st.nodeTTL,
		VReplicationFlags:      st.vreplication,
		MysqldOptions:          cloneMap(st.mysqld),
		VTTabletOptions:        cloneMap(st.vttablet),
		CreatedAt:              platform.NewTimestamp(ks.created),
		UpdatedAt:              platform.NewTimestamp(ks.updated),
		ReadOnlyRegions:        append([]string{}, ks.readOnlyRegions...),
	}
	if st.durability != nil {
		out.ReplicationDurabilityConstraints.Strategy = platform.Ptr(*st.durability)
	}
	if st.vectorPool != nil {
		out.VectorPoolAllocation = platform.Ptr(*st.vectorPool)
	}
	return out
}
