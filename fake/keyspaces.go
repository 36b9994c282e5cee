package fake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake/internal/ordered"
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
	// more holds what few keyspaces have; see x.
	more lazy[keyspaceMore]

	meter keyspaceMeter // what it is billed at; see meterKeyspace
}

// keyspaceMore holds what few keyspaces have (a VSchema of their own,
// read-only regions, a settings change, resize requests), apart from the
// record so that a keyspace without them does not carry them.
type keyspaceMore struct {
	vschema string // as last updated; "" for the default (see vschemas.go)
	// readOnlyRegions are the regions it replicates to, as last set.
	readOnlyRegions []keyspaceReadOnlyRegion

	// configChanging is true while a settings change is applied; before
	// holds the settings from before it, restored if it fails, and
	// configGen counts changes, so that only the latest one completes.
	configChanging bool
	before         *keyspaceSettings // nil when no change is in progress
	configGen      int

	// resizes are its resize requests, in list order and by ID; resize
	// is the one that has not completed (queued or resizing), nil when
	// none, and lastResize the latest completed one, whose rollout times
	// its shards show.
	resizes    ordered.Store[*keyspaceResizeRec]
	resize     *keyspaceResizeRec
	lastResize *keyspaceResizeRec
}

// x returns what few keyspaces have, making it on first use (see lazy).
// Reads that visit every keyspace (rendering, listing, a snapshot) use
// ks.more.read() instead, which makes nothing.
func (ks *keyspaceRec) x() *keyspaceMore { return ks.more.get() }

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
	return keyspaceSettings{nodeTTL: platform.NodeTTLFollowMaintenance} // no mysqld or vttablet options: nil maps
}

// equal reports whether two settings are the same: no option map and an
// empty one are.
func (st keyspaceSettings) equal(o keyspaceSettings) bool {
	a, b := st, o
	a.mysqld, a.vttablet, b.mysqld, b.vttablet = nil, nil, nil, nil
	return reflect.DeepEqual(a, b) && maps.Equal(st.mysqld, o.mysqld) && maps.Equal(st.vttablet, o.vttablet)
}

// clone copies the settings, maps included.
func (st keyspaceSettings) clone() keyspaceSettings {
	st.mysqld, st.vttablet = cloneMap(st.mysqld), cloneMap(st.vttablet)
	return st
}

// maxShards bounds a keyspace's shards: the fake names shards by key
// ranges of two hex digits ("-80", "80-"), which divide into 256 at most.
const maxShards = 256

// maxKeyspaceReplicas bounds a keyspace's total number of replicas.
const maxKeyspaceReplicas = 20

// replicas is the keyspace's total number of replicas.
func (ks *keyspaceRec) replicas() int { return included(ks.branch) + ks.extraReplicas }

// checkExtraReplicas checks an extra_replicas value for a keyspace of
// branch b: a 422 naming the bounds unless the total stays within
// maxKeyspaceReplicas.
func checkExtraReplicas(b *branchRec, n int) error {
	if hi := maxKeyspaceReplicas - included(b); n < 0 || n > hi {
		return unprocessable("extra_replicas must be from 0 to %d on branch %s (%d replicas included, %d at most), got %d",
			hi, b.name, included(b), maxKeyspaceReplicas, n)
	}
	return nil
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
	b.keyspaces.Add(ks)
	w.meterKeyspace(ks, now)
	return ks
}

// copyKeyspaces gives b a copy of every keyspace of src, with its tables and
// settings, as branching copies a schema. The copies are created a
// nanosecond apart, below the API's millisecond times, so that they list in
// their originals' order.
func (w *world) copyKeyspaces(b, src *branchRec, now time.Time) {
	for i, from := range src.keyspaces.All() {
		ks := w.newKeyspace(b, from.name, now.Add(time.Duration(i)))
		ks.shards, ks.extraReplicas, ks.clusterSize = from.shards, from.extraReplicas, from.clusterSize
		ks.isDefault = from.isDefault
		ks.tables = cloneMap(from.tables)
		if v := from.more.read().vschema; v != "" {
			ks.x().vschema = v
		}
		ks.settings = from.settings.clone()
	}
}

// dropKeyspace removes a keyspace, and its tables, from its branch.
func (w *world) dropKeyspace(ks *keyspaceRec) {
	b := ks.branch
	ks.deleted = true
	w.meterKeyspace(ks, w.clock.Now())
	b.keyspaces.Remove(ks)
	w.endFlight(ks.id)
	w.endStrandedSessions(b)
	b.pruneReadOnlyRegions()
	w.dropRegionPasswords(b)
	if len(ks.tables) > 0 {
		b.schemaUpdated = w.clock.Now()
		b.updated = b.schemaUpdated
		w.schemaChanged(b, nil)
	}
}

func keyspaceRoutes() []route {
	return []route{
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/keyspaces", op: "list_keyspaces", handler: read(listKeyspaces)},
		{pattern: "POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/keyspaces", op: "create_keyspace", handler: withBody(createKeyspace)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/keyspaces/{keyspace}", op: "get_keyspace", handler: read(getKeyspace)},
		{pattern: "PATCH /v1/organizations/{organization}/databases/{database}/branches/{branch}/keyspaces/{keyspace}", op: "update_keyspace", handler: withBody(updateKeyspace)},
		{pattern: "DELETE /v1/organizations/{organization}/databases/{database}/branches/{branch}/keyspaces/{keyspace}", op: "delete_keyspace", handler: act(deleteKeyspace)},
		{pattern: "PUT /v1/organizations/{organization}/databases/{database}/branches/{branch}/keyspaces/{keyspace}/read-only-regions", op: "update_keyspace_read_only_regions", handler: withBody(updateReadOnlyRegions)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/keyspaces/{keyspace}/resizes", op: "list_keyspace_resize_requests", handler: read(listKeyspaceResizes)},
		{pattern: "PUT /v1/organizations/{organization}/databases/{database}/branches/{branch}/keyspaces/{keyspace}/resizes", op: "update_keyspace_resize_request", handler: withBody(resizeKeyspace)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/keyspaces/{keyspace}/resizes/{id}", op: "get_keyspace_resize_request", handler: read(getKeyspaceResize)},
		{pattern: "DELETE /v1/organizations/{organization}/databases/{database}/branches/{branch}/keyspaces/{keyspace}/resizes", op: "cancel_keyspace_resize_request", handler: act(cancelKeyspaceResize)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/keyspaces/{keyspace}/rollout-status", op: "get_keyspace_rollout_status", handler: read(getKeyspaceRollout)},
	}
}

// keyspace finds the path's {keyspace} on the path's branch.
func (c *call) keyspace() (*keyspaceRec, error) {
	ks := c.branch.keyspace(c.r.PathValue("keyspace"))
	if ks == nil {
		return nil, c.nothingAt("keyspace")
	}
	return ks, nil
}

func listKeyspaces(c *call) (any, error) {
	return pageOf(c, &c.branch.keyspaces, false, renderKeyspace), nil
}

func createKeyspace(c *call, p *platform.CreateKeyspaceParams) (any, error) {
	b := c.branch
	if err := checkName("name", p.Name); err != nil {
		return nil, err
	}
	if b.keyspace(p.Name) != nil {
		return nil, unprocessable("name %q is already taken by another keyspace of branch %s", p.Name, b.name)
	}
	size, err := clusterSizeFor("cluster_size", p.ClusterSize, newClusterScope(b.db.kind, b.region), b.production)
	if err != nil {
		return nil, err
	}
	if p.Shards != nil && (*p.Shards < 1 || *p.Shards > maxShards) {
		return nil, unprocessable("shards must be from 1 to %d, got %d", maxShards, *p.Shards)
	}
	if p.ExtraReplicas != nil {
		if err := checkExtraReplicas(b, *p.ExtraReplicas); err != nil {
			return nil, err
		}
	}
	if !b.ready {
		return nil, unprocessable("branch %s is not ready yet", b.name)
	}
	ks := c.w.newKeyspace(b, p.Name, c.now)
	ks.clusterSize = size
	setIf(&ks.shards, p.Shards)
	setIf(&ks.extraReplicas, p.ExtraReplicas)
	c.w.meterKeyspace(ks, c.now)
	c.w.startFlight(ks.id)
	c.w.clock.After(c.w.timing.KeyspaceReady, keyspaceReadyJob{ks})
	return renderKeyspace(ks), nil
}

// keyspaceReady is the pending -> ready transition of a created keyspace;
// a failed one is removed.
func (w *world) keyspaceReady(ks *keyspaceRec) {
	w.endFlight(ks.id)
	failed := w.takeFailure(ks.id)
	switch {
	case ks.gone():
	case failed:
		w.dropKeyspace(ks)
	default:
		ks.ready = true
		ks.updated = w.clock.Now()
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

// keyspaceSettingsBody is the body of update_keyspace, as sent and as
// decodeKeyspaceSettings reads it.
type keyspaceSettingsBody struct {
	json.RawMessage
	p           *platform.UpdateKeyspaceParams
	clearVector bool
}

// check reads the settings: unknown fields and wrong JSON types are 400s.
func (b *keyspaceSettingsBody) check() *apiError {
	var err *apiError
	b.p, b.clearVector, err = decodeKeyspaceSettings(b.RawMessage)
	return err
}

func updateKeyspace(c *call, b *keyspaceSettingsBody) (any, error) {
	ks, err := c.keyspace()
	if err != nil {
		return nil, err
	}
	next, err := ks.settings.with(b.p, b.clearVector)
	if err != nil {
		return nil, err
	}
	if !ks.ready {
		return nil, unprocessable("keyspace %s is not ready yet", ks.name)
	}
	if r := ks.more.read().resize; r != nil && r.setsVector() && !sameVector(next.vectorPool, ks.settings.vectorPool) {
		return nil, unprocessable("keyspace %s has resize request %s %s, which sets vector_pool_allocation to %s; wait for it to complete or cancel it",
			ks.name, r.id, r.state, vectorText(r.to.vectorPool))
	}
	if !next.equal(ks.settings) {
		c.w.changeKeyspaceSettings(ks, next)
	}
	return renderKeyspace(ks), nil
}

// decodeKeyspaceSettings reads the body of update_keyspace: unknown fields
// and wrong JSON types are 400s. clearVector reports a
// vector_pool_allocation given as null.
func decodeKeyspaceSettings(data []byte) (p *platform.UpdateKeyspaceParams, clearVector bool, err *apiError) {
	p = new(platform.UpdateKeyspaceParams)
	if len(bytes.TrimSpace(data)) == 0 {
		return p, false, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(p); err != nil {
		e := bodyError(err, data, p)
		if _, ok := unknownField(err); ok {
			e.message += "; the settings are " + strings.Join(keyspaceSettingsFields, ", ")
		}
		return nil, false, e
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return nil, false, bodyError(err, data, &fields)
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
			next.durability = platform.Ptr(*d.Strategy)
		case "":
			// The service's official client reads a keyspace without a
			// strategy (null) as "" and sends it back with its other
			// settings: it leaves the strategy as it is.
		default:
			return next, unprocessable("replication_durability_constraints.strategy %q is not available, lag or always", *d.Strategy)
		}
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
func (w *world) changeKeyspaceSettings(ks *keyspaceRec, next keyspaceSettings) {
	m := ks.x()
	if !m.configChanging {
		before := ks.settings
		m.before = &before
	}
	ks.settings = next
	m.configChanging = true
	m.configGen++
	ks.updated = w.clock.Now()
	gen := m.configGen
	w.startFlight(ks.id)
	w.clock.After(w.timing.KeyspaceConfigChange, keyspaceConfigJob{ks, gen})
}

// keyspaceConfigApplied completes settings change gen; a failed change
// restores the settings from before it.
func (w *world) keyspaceConfigApplied(ks *keyspaceRec, gen int) {
	m := ks.x() // made by the change
	if gen != m.configGen {
		return
	}
	w.endFlight(ks.id)
	failed := w.takeFailure(ks.id)
	if ks.gone() {
		return
	}
	if failed {
		ks.settings = *m.before
	}
	m.before = nil
	m.configChanging = false
	ks.updated = w.clock.Now()
}

func deleteKeyspace(c *call) (any, error) {
	ks, err := c.keyspace()
	if err != nil {
		return nil, err
	}
	if ks.isDefault {
		return nil, unprocessable("keyspace %s is the default keyspace of branch %s and cannot be deleted", ks.name, ks.branch.name)
	}
	if wf := ks.activeWorkflow(); wf != nil {
		return nil, unprocessable("keyspace %s is in workflow #%d, which is %s; complete or cancel it first", ks.name, wf.number, wf.state)
	}
	c.w.dropKeyspace(ks)
	return nil, nil
}

// renderKeyspace renders a keyspace as the API shows it.
func renderKeyspace(ks *keyspaceRec) *platform.Keyspace {
	st, m := ks.settings, ks.more.read()
	out := &platform.Keyspace{
		ID:                     ks.id,
		Type:                   "Keyspace",
		Name:                   ks.name,
		Shards:                 ks.shards,
		Sharded:                ks.shards > 1,
		Replicas:               ks.replicas(),
		ExtraReplicas:          ks.extraReplicas,
		ClusterName:            ks.clusterSize,
		ClusterDisplayName:     clusterDisplayName(ks.clusterSize),
		Metal:                  skuByName[ks.clusterSize] != nil && skuByName[ks.clusterSize].metal,
		Resizing:               m.resize != nil && m.resize.state == platform.KeyspaceResizeResizing,
		ResizeInProgress:       m.resize != nil,
		ResizePending:          m.resize != nil && m.resize.state == platform.KeyspaceResizeQueued,
		ConfigChangeInProgress: m.configChanging,
		Ready:                  ks.ready,
		Default:                ks.isDefault,
		NodeTTLStrategy:        st.nodeTTL,
		VReplicationFlags:      st.vreplication,
		MysqldOptions:          cloneMap(st.mysqld),
		VTTabletOptions:        cloneMap(st.vttablet),
		ReadOnlyRegions:        renderKeyspaceReadOnlyRegions(ks),
		CreatedAt:              platform.NewTimestamp(ks.created),
		UpdatedAt:              platform.NewTimestamp(ks.updated),
	}
	if pending, resizing := ks.resizeFlags(); pending || resizing {
		out.ResizePending, out.Resizing, out.ResizeInProgress = pending, resizing, true
	}
	if st.durability != nil {
		out.ReplicationDurabilityConstraints.Strategy = platform.Ptr(*st.durability)
	}
	if st.vectorPool != nil {
		out.VectorPoolAllocation = platform.Ptr(*st.vectorPool)
	}
	return out
}

// readOnlyRegionRec is a read-only region of a branch: a region some of
// its keyspaces replicate to. It is added with the first keyspace that
// replicates there, serves reads after Timings.ReadOnlyRegionReady, and is
// removed with the last.
type readOnlyRegionRec struct {
	stamps
	region  *regionRec
	actor   *userRec
	readyAt time.Time // zero until ready
	removed bool
}

func (r *readOnlyRegionRec) ready() bool { return !r.readyAt.IsZero() }

// keyspaceReadOnlyRegion is a region a keyspace replicates to.
type keyspaceReadOnlyRegion struct {
	region       *regionRec
	branchRegion *readOnlyRegionRec
	clusterSize  string
	replicas     int
}

// defaultReadOnlyReplicas is a read-only region's replicas when not given.
const defaultReadOnlyReplicas = 2

// maxReadOnlyReplicas bounds a read-only region's replicas.
const maxReadOnlyReplicas = 20

func updateReadOnlyRegions(c *call, p *platform.UpdateReadOnlyRegionsParams) (any, error) {
	ks, err := c.keyspace()
	if err != nil {
		return nil, err
	}
	b := ks.branch
	if p.ReadOnlyRegions == nil {
		return nil, unprocessable("read_only_regions is required: the list of regions (an empty list removes them all)")
	}
	if b.db.kind != platform.KindMySQL {
		return nil, unprocessable("read-only regions are for mysql databases; %s is %s", b.db.name, b.db.kind)
	}
	if !b.production {
		return nil, unprocessable("read-only regions are for production branches; %s is a development branch", b.name)
	}
	if !ks.ready {
		return nil, unprocessable("keyspace %s is not ready yet", ks.name)
	}
	next := make([]keyspaceReadOnlyRegion, 0, len(p.ReadOnlyRegions))
	seen := map[string]bool{}
	for i, cfg := range p.ReadOnlyRegions {
		field := fmt.Sprintf("read_only_regions[%d]", i)
		r := regionBySlug(cfg.Region)
		switch {
		case cfg.Region == "":
			return nil, unprocessable("%s.region is required", field)
		case r == nil:
			return nil, unprocessable("%s.region %q is not a known region slug", field, cfg.Region)
		case r == b.region:
			return nil, unprocessable("%s.region %q is the branch's own region", field, cfg.Region)
		case seen[r.slug]:
			return nil, unprocessable("%s.region %q is given twice", field, cfg.Region)
		}
		seen[r.slug] = true
		ro := keyspaceReadOnlyRegion{region: r, clusterSize: ks.clusterSize, replicas: defaultReadOnlyReplicas}
		if cfg.ClusterSize != nil {
			size, err := clusterSizeFor(field+".cluster_size", *cfg.ClusterSize, newClusterScope(b.db.kind, r), true)
			if err != nil {
				return nil, err
			}
			ro.clusterSize = size
		}
		if n := cfg.Replicas; n != nil {
			if *n < 1 || *n > maxReadOnlyReplicas {
				return nil, unprocessable("%s.replicas must be from 1 to %d, got %d", field, maxReadOnlyReplicas, *n)
			}
			ro.replicas = *n
		}
		next = append(next, ro)
	}
	for i := range next {
		// A nanosecond apart, below the API's millisecond times, so that
		// regions added together list in the order given.
		next[i].branchRegion = c.w.branchReadOnlyRegion(c.who, b, next[i].region, c.now.Add(time.Duration(i)))
	}
	ks.x().readOnlyRegions = next
	ks.updated = c.now
	b.pruneReadOnlyRegions()
	c.w.dropRegionPasswords(b)
	return renderKeyspaceReadOnlyRegionList(ks), nil
}

// branchReadOnlyRegion finds the branch's read-only region r, or adds it,
// created at now, to be ready after Timings.ReadOnlyRegionReady.
func (w *world) branchReadOnlyRegion(who *principal, b *branchRec, r *regionRec, now time.Time) *readOnlyRegionRec {
	for _, rr := range b.readOnlyRegions.All() {
		if rr.region == r {
			return rr
		}
	}
	rr := &readOnlyRegionRec{stamps: stamps{id: w.newID(), created: now, updated: now}, region: r, actor: who.user}
	b.readOnlyRegions.Add(rr)
	w.clock.After(w.timing.ReadOnlyRegionReady, readOnlyRegionReadyJob{rr})
	return rr
}

// pruneReadOnlyRegions removes the branch's read-only regions that no
// keyspace replicates to any more.
func (b *branchRec) pruneReadOnlyRegions() {
	used := map[*readOnlyRegionRec]bool{}
	for _, ks := range b.keyspaces.All() {
		for _, ro := range ks.more.read().readOnlyRegions {
			used[ro.branchRegion] = true
		}
	}
	for _, rr := range slices.Clone(b.readOnlyRegions.All()) {
		if !used[rr] {
			rr.removed = true
			b.readOnlyRegions.Remove(rr)
		}
	}
}

// readOnlyRegionSlugs lists the branch's read-only regions, for messages.
func (b *branchRec) readOnlyRegionSlugs() string {
	slugs := make([]string, b.readOnlyRegions.Len())
	for i, r := range b.readOnlyRegions.All() {
		slugs[i] = r.region.slug
	}
	return strings.Join(slugs, ", ")
}

// renderKeyspaceReadOnlyRegions renders a keyspace's read-only regions, as
// its read_only_regions field shows them.
func renderKeyspaceReadOnlyRegions(ks *keyspaceRec) []platform.KeyspaceReadOnlyRegion {
	regions := ks.more.read().readOnlyRegions
	out := make([]platform.KeyspaceReadOnlyRegion, len(regions))
	for i, ro := range regions {
		out[i] = platform.KeyspaceReadOnlyRegion{
			Region:             ro.region.slug,
			ClusterName:        ro.clusterSize,
			ClusterDisplayName: clusterDisplayName(ro.clusterSize),
			Replicas:           ro.replicas,
		}
	}
	return out
}

// renderKeyspaceReadOnlyRegionList is the response of
// update_keyspace_read_only_regions.
func renderKeyspaceReadOnlyRegionList(ks *keyspaceRec) []*platform.KeyspaceReadOnlyRegion {
	regions := renderKeyspaceReadOnlyRegions(ks)
	out := make([]*platform.KeyspaceReadOnlyRegion, len(regions))
	for i := range regions {
		out[i] = &regions[i]
	}
	return out
}
