package fake

import (
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/dbplatform/platform-go"
)

// A branch's cluster changes through requests: resize requests (a MySQL
// branch's query routers) and change requests (a branch's cluster size,
// and a PostgreSQL branch's replicas, storage and parameters). Both share
// one lifecycle and one slot per branch: a request is queued for
// Timings.BranchChangeStart, resizes for Timings.BranchChangeRun, then
// completes and its values become the branch's. While it is queued, another
// request of the same kind changes it (the API's upsert); while it resizes,
// or while one of the other kind is queued, a new request is refused.
// cancel_branch_change_request cancels it until it completes;
// cancel_branch_changes cancels a change request while it is queued.

// vtgateConfig is the query routers' configuration of a MySQL branch.
type vtgateConfig struct {
	size        string
	count       int
	maxCount    int
	autoscaling bool
	targetCPU   int
}

// storageConfig is a PostgreSQL branch's storage.
type storageConfig struct {
	min, max    int64
	autoscaling bool
	iops        int
	throughput  int // MiB/s
}

// Storage defaults and bounds (gp3 volumes).
const (
	defaultMinStorage = 10 * gib
	defaultMaxStorage = 1024 * gib
	minIOPS, maxIOPS  = 3000, 16000
	minThroughput     = 125
	maxThroughput     = 1000
	storageType       = "gp3"
)

// paramValue is a parameter's value as a completed change request set it.
type paramValue struct {
	value   string
	updated time.Time
	actor   *userRec
}

// branchCluster is what a branch's resize and change requests change, and
// the requests themselves. A branch has none until its first request (see
// branchRec.clusterView), so that the many branches no one resizes stay
// lean.
type branchCluster struct {
	vtgate  vtgateConfig
	storage storageConfig
	// params holds the parameters changes have set, by name; the others
	// have their default.
	params map[string]paramValue

	resizes, changes index[*branchChangeRec]
	// pending is the queued or resizing request; nil when none is.
	pending *branchChangeRec
	// resized is true once a resize request has set the query routers.
	resized bool
}

// clusterView is what b's requests have changed: the defaults before its
// first request. The caller must not modify it.
func (b *branchRec) clusterView() branchCluster {
	if b.cluster != nil {
		return *b.cluster
	}
	return branchCluster{
		vtgate:  vtgateConfig{size: defaultVTGate(b.db.clusterSize), count: 1},
		storage: b.defaultStorage(),
	}
}

// defaultStorage is the storage a branch starts with, unless its creation
// bounds it (see askPostgres).
func (b *branchRec) defaultStorage() storageConfig { return defaultStorageConfig() }

// clusterRec is b's record of requests, made from the defaults on first
// use.
func (b *branchRec) clusterRec() *branchCluster {
	if b.cluster == nil {
		c := b.clusterView()
		b.cluster = &c
	}
	return b.cluster
}

// pendingChange is b's queued or resizing request; nil when none is.
func (b *branchRec) pendingChange() *branchChangeRec {
	if b.cluster == nil {
		return nil
	}
	return b.cluster.pending
}

// find returns the request with the given ID; nil when there is none.
func (c branchCluster) find(id string) *branchChangeRec {
	for _, x := range [][]*branchChangeRec{c.resizes.All(), c.changes.All()} {
		for _, r := range x {
			if r.id == id {
				return r
			}
		}
	}
	return nil
}

// clusterState is the part of a branch a request changes: its values
// before the request and after it.
type clusterState struct {
	clusterSize string
	replicas    int
	vtgate      vtgateConfig
	storage     storageConfig
	// params are the request's parameters by name (after), or their
	// values when it was made (before).
	params map[string]string
}

// branchChangeRec is a resize request (resize true) or a change request.
type branchChangeRec struct {
	stamps
	branch             *branchRec
	resize             bool
	actor              *userRec
	state              platform.BranchChangeState
	started, completed time.Time
	before, after      clusterState
}

// what names the request in messages.
func (r *branchChangeRec) what() string {
	if r.resize {
		return "resize request " + r.id
	}
	return "change request " + r.id
}

// resizesCluster reports whether the request changes the size or number
// of the cluster's servers (not only parameters).
func (r *branchChangeRec) resizesCluster() bool {
	return r.after.clusterSize != r.before.clusterSize || r.after.replicas != r.before.replicas
}

// changedKeyspaces are the keyspaces a change request resizes: the
// default one of a PostgreSQL branch, every one of a MySQL branch.
func (b *branchRec) changedKeyspaces() []*keyspaceRec {
	if b.db.kind == platform.KindMySQL {
		return b.keyspaces.All()
	}
	return []*keyspaceRec{b.defaultKeyspace()}
}

// currentCluster is the branch's cluster as requests see it.
func (b *branchRec) currentCluster() clusterState {
	ks, v := b.defaultKeyspace(), b.clusterView()
	return clusterState{clusterSize: ks.clusterSize, replicas: ks.replicas(), vtgate: v.vtgate, storage: v.storage, params: map[string]string{}}
}

// paramValue is the current value of a parameter of the branch.
func (b *branchRec) paramValue(p *paramSpec) string {
	if v, ok := b.clusterView().params[p.name]; ok {
		return v.value
	}
	return p.def
}

// branchResize is the change request of its branch that resizes the
// keyspace, queued or resizing; nil when none does.
func (ks *keyspaceRec) branchResize() *branchChangeRec {
	r := ks.branch.pendingChange()
	if r == nil || r.resize || !r.resizesCluster() || !slices.Contains(ks.branch.changedKeyspaces(), ks) {
		return nil
	}
	return r
}

// resizeFlags are a keyspace's resize_pending and resizing while a
// request of its branch resizes it.
func (ks *keyspaceRec) resizeFlags() (pending, resizing bool) {
	r := ks.branchResize()
	if r == nil {
		return false, false
	}
	return r.state == platform.ChangeQueued, r.state == platform.ChangeResizing
}

// databaseFlags are a database's resize_queued, resizing,
// config_change_queued and config_changing, from its default branch's
// request and its keyspaces' own resizes and settings changes.
func (b *branchRec) databaseFlags() (resizeQueued, resizing, configQueued, configChanging bool) {
	if r := b.pendingChange(); r != nil {
		queued := r.state == platform.ChangeQueued
		if r.resize || r.resizesCluster() || r.after.storage != r.before.storage {
			resizeQueued, resizing = queued, !queued
		}
		if len(r.after.params) > 0 {
			configQueued, configChanging = queued, !queued
		}
	}
	for _, ks := range b.keyspaces.All() {
		m := ks.more.read()
		if m.resize != nil {
			resizeQueued = resizeQueued || m.resize.state == platform.KeyspaceResizeQueued
			resizing = resizing || m.resize.state == platform.KeyspaceResizeResizing
		}
		configChanging = configChanging || m.configChanging
	}
	return
}

func branchResizeRoutes() []route {
	return []route{
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/resizes", op: "list_branch_resize_requests", handler: read(listBranchResizes)},
		{pattern: "PUT /v1/organizations/{organization}/databases/{database}/branches/{branch}/resizes", op: "update_branch_resize_request", handler: withBody(updateBranchResize)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/resizes/{resize}", op: "get_branch_resize_request", handler: read(getBranchResize)},
		{pattern: "DELETE /v1/organizations/{organization}/databases/{database}/branches/{branch}/resizes", op: "cancel_branch_change_request", handler: act(cancelBranchChange)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/changes", op: "list_branch_change_requests", handler: read(listBranchChanges)},
		{pattern: "PATCH /v1/organizations/{organization}/databases/{database}/branches/{branch}/changes", op: "update_branch_change_request", handler: withBody(updateBranchChange)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/changes/{id}", op: "get_branch_change_request", handler: read(getBranchChange)},
		{pattern: "DELETE /v1/organizations/{organization}/databases/{database}/branches/{branch}/changes", op: "cancel_branch_changes", handler: act(cancelBranchChanges)},
		{pattern: "PATCH /v1/organizations/{organization}/databases/{database}/branches/{branch}/cluster", op: "update_branch_cluster_config", handler: withBody(updateBranchClusterConfig)},
	}
}

func listBranchResizes(c *call) (any, error) {
	v := c.branch.clusterView()
	return pageOf(c, &v.resizes, false, renderBranchResize), nil
}

func listBranchChanges(c *call) (any, error) {
	v := c.branch.clusterView()
	return pageOf(c, &v.changes, false, renderBranchChange), nil
}

// branchChange finds the request of b the path value names, of the given
// kind.
func (c *call) branchChange(name string, resize bool) (*branchChangeRec, error) {
	r := c.branch.clusterView().find(c.r.PathValue(name))
	if r == nil || r.resize != resize {
		return nil, notFound()
	}
	return r, nil
}

func getBranchResize(c *call) (any, error) {
	r, err := c.branchChange("resize", true)
	if err != nil {
		return nil, err
	}
	return renderBranchResize(r), nil
}

func getBranchChange(c *call) (any, error) {
	r, err := c.branchChange("id", false)
	if err != nil {
		return nil, err
	}
	return renderBranchChange(r), nil
}

// vtgateSizes are the query router sizes, smallest first: the service's
// command-line tool's list of the sizes its API takes. Each cluster size's
// default router size is one of them (TestClusterSizesRouterDefaults).
var vtgateSizes = []string{
	"VTG_DEV", "VTG_5", "VTG_10", "VTG_20", "VTG_40",
	"VTG_80", "VTG_320", "VTG_640", "VTG_1280", "VTG_2560",
}

// vtgateDisplayName is a query router size's display name (VTG-5).
func vtgateDisplayName(size string) string { return strings.ReplaceAll(size, "_", "-") }

// Bounds of a resize request's query routers.
const maxVTGates = 16

func updateBranchResize(c *call, p *platform.UpdateBranchResizeRequestParams) (any, error) {
	b := c.branch
	if b.db.kind != platform.KindMySQL {
		return nil, unprocessable("resize requests change a mysql branch's query routers; %s is a %s database: use update_branch_change_request", b.db.name, b.db.kind)
	}
	base, err := c.changeBase(b, true)
	if err != nil {
		return nil, err
	}
	v := base.vtgate
	if p.VTGateSize != nil {
		v.size = sizeName(*p.VTGateSize)
	}
	setIf(&v.count, p.VTGateCount)
	setIf(&v.maxCount, p.VTGateMaxCount)
	setIf(&v.autoscaling, p.VTGateAutoscaling)
	setIf(&v.targetCPU, p.VTGateTargetCPUUtilization)
	switch {
	case !slices.Contains(vtgateSizes, v.size):
		return nil, unprocessable("vtgate_size %q is not a query router size; the sizes are %s", v.size, strings.Join(vtgateSizes, ", "))
	case v.count < 1 || v.count > maxVTGates:
		return nil, unprocessable("vtgate_count %d is out of range: it must be from 1 to %d", v.count, maxVTGates)
	case p.VTGateMaxCount != nil && (v.maxCount < 1 || v.maxCount > maxVTGates):
		return nil, unprocessable("vtgate_max_count %d is out of range: it must be from 1 to %d", v.maxCount, maxVTGates)
	case v.autoscaling && v.maxCount < v.count:
		return nil, unprocessable("vtgate_max_count %d is below vtgate_count %d: autoscaling needs room to grow", v.maxCount, v.count)
	case p.VTGateTargetCPUUtilization != nil && (v.targetCPU < 1 || v.targetCPU > 100):
		return nil, unprocessable("vtgate_target_cpu_utilization %d is out of range: it must be from 1 to 100", v.targetCPU)
	}
	after := base
	after.vtgate = v
	r, changed := c.w.requestChange(c.who, b, true, after)
	if !changed {
		return nothingToDo{}, nil
	}
	return renderBranchResize(r), nil
}

// changeBase checks that b can take a request of the kind (resize or
// change) and returns what the request starts from: the queued request's
// values when it changes that one, else the branch's.
func (c *call) changeBase(b *branchRec, resize bool) (clusterState, error) {
	if !b.ready {
		return clusterState{}, unprocessable("branch %s is not ready yet", b.name)
	}
	r := b.pendingChange()
	switch {
	case r == nil:
		return b.currentCluster(), nil
	case r.state != platform.ChangeQueued || r.resize != resize:
		return clusterState{}, unprocessable("branch %s already has %s %s; wait for it to complete or cancel it", b.name, r.what(), r.state)
	}
	after := r.after
	after.params = cloneMap(r.after.params) // never nil: checkChange adds to it
	return after, nil
}

func updateBranchChange(c *call, p *platform.UpdateBranchChangeRequestParams) (any, error) {
	b := c.branch
	after, err := c.changeBase(b, false)
	if err != nil {
		return nil, err
	}
	if err := checkChange(b, p, &after); err != nil {
		return nil, err
	}
	if err := checkKeyspaceResizes(b, after); err != nil {
		return nil, err
	}
	if err := b.checkReplicaRemoval(after.replicas, "the change request"); err != nil {
		return nil, err
	}
	r, changed := c.w.requestChange(c.who, b, false, after)
	if !changed {
		return nothingToDo{}, nil
	}
	return renderBranchChange(r), nil
}

// checkChange validates a change request of b and applies it to after.
func checkChange(b *branchRec, p *platform.UpdateBranchChangeRequestParams, after *clusterState) error {
	kind := b.db.kind
	if p.ClusterSize != nil {
		size, err := branchClusterSize(b, *p.ClusterSize, after.clusterSize)
		if err != nil {
			return err
		}
		after.clusterSize = size
	}
	if kind == platform.KindMySQL {
		switch {
		case p.Replicas != nil:
			return unprocessable("replicas of a mysql branch are set per keyspace (update_keyspace); %s is a mysql database", b.db.name)
		case p.Storage != nil:
			return unprocessable("storage is set on postgresql branches only; %s is a mysql database", b.db.name)
		}
	}
	if p.Replicas != nil {
		least := included(b)
		if *p.Replicas < least || *p.Replicas > maxReplicas {
			return unprocessable("replicas %d is out of range: branch %s takes from %d to %d", *p.Replicas, b.name, least, maxReplicas)
		}
		after.replicas = *p.Replicas
	}
	if p.Storage != nil {
		st, err := checkStorage(after.storage, p.Storage)
		if err != nil {
			return err
		}
		after.storage = st
	}
	// In order, so that the first bad parameter is named the same each time.
	for _, ns := range slices.Sorted(maps.Keys(p.Parameters)) {
		values := p.Parameters[ns]
		for _, name := range slices.Sorted(maps.Keys(values)) {
			value := values[name]
			if err := validateParameter(kind, name, value); err != nil {
				return err
			}
			if spec := paramByName[name]; spec.namespace != ns {
				return unprocessable("parameter %s is in namespace %s, not %s", name, spec.namespace, ns)
			}
			after.params[name] = value
		}
	}
	return nil
}

// checkKeyspaceResizes refuses a change that resizes keyspaces of b while
// one of them has a keyspace resize request of its own in flight.
func checkKeyspaceResizes(b *branchRec, after clusterState) error {
	now := b.currentCluster()
	if after.clusterSize == now.clusterSize && after.replicas == now.replicas {
		return nil
	}
	for _, ks := range b.changedKeyspaces() {
		if r := ks.more.read().resize; r != nil {
			return unprocessable("keyspace %s of branch %s has a resize request in flight, %s (%s); wait for it to complete or cancel it", ks.name, b.name, r.id, r.state)
		}
	}
	return nil
}

// maxReplicas bounds a change request's replicas.
const maxReplicas = 10

// branchClusterSize checks a cluster_size for branch b, changing from the
// size from: one of the catalogue's, offered for its kind and for its kind
// of branch (see resizeScope for PostgreSQL's). It returns the size's
// canonical name.
func branchClusterSize(b *branchRec, size, from string) (string, error) {
	name, err := clusterSizeFor("cluster_size", size, b.resizeScope(from), b.production)
	if err != nil {
		return "", err
	}
	if !skuByName[name].fits(b) {
		kind := "development"
		if b.production {
			kind = "production"
		}
		return "", unprocessable("cluster_size %q is not offered for %s branches", size, kind)
	}
	return name, nil
}

func updateBranchClusterConfig(c *call, p *platform.UpdateClusterConfigParams) (any, error) {
	b := c.branch
	after, err := c.changeBase(b, false)
	if err != nil {
		return nil, err
	}
	size, err := branchClusterSize(b, p.ClusterSize, after.clusterSize)
	if err != nil {
		return nil, err
	}
	after.clusterSize = size
	if err := checkKeyspaceResizes(b, after); err != nil {
		return nil, err
	}
	if _, changed := c.w.requestChange(c.who, b, false, after); !changed {
		return nothingToDo{}, nil
	}
	return nil, nil
}

// sameCluster reports whether after changes nothing of before.
func sameCluster(b *branchRec, before, after clusterState) bool {
	if before.clusterSize != after.clusterSize || before.replicas != after.replicas || before.vtgate != after.vtgate || before.storage != after.storage {
		return false
	}
	for name, v := range after.params {
		if b.paramValue(paramByName[name]) != v {
			return false
		}
	}
	return true
}

// previousParams are the branch's values of the parameters after sets.
func previousParams(b *branchRec, after clusterState) map[string]string {
	out := make(map[string]string, len(after.params))
	for name := range after.params {
		out[name] = b.paramValue(paramByName[name])
	}
	return out
}

// requestChange makes after the branch's queued request of the kind:
// a new one, or the queued one changed. It reports false, changing
// nothing, when after is the branch as it is and none is queued.
func (w *world) requestChange(who *principal, b *branchRec, resize bool, after clusterState) (*branchChangeRec, bool) {
	if r := b.pendingChange(); r != nil {
		r.after, r.updated, r.actor = after, w.clock.Now(), who.user
		r.before.params = previousParams(b, after)
		return r, true
	}
	before := b.currentCluster()
	if sameCluster(b, before, after) {
		return nil, false
	}
	before.params = previousParams(b, after)
	r := &branchChangeRec{
		stamps: stamps{id: w.newID(), created: w.clock.Now(), updated: w.clock.Now()},
		branch: b, resize: resize, actor: who.user,
		state: platform.ChangeQueued, before: before, after: after,
	}
	cl := b.clusterRec()
	if resize {
		cl.resizes.Add(r)
	} else {
		cl.changes.Add(r)
	}
	cl.pending = r
	w.clock.After(w.timing.BranchChangeStart, branchChangeJob{r, platform.ChangeQueued})
	return r, true
}

// stepChange moves r on: a queued request starts resizing, for
// Timings.BranchChangeRun; a resizing one completes; a canceled one stays.
func (w *world) stepChange(r *branchChangeRec) {
	now := w.clock.Now()
	switch r.state {
	case platform.ChangeQueued:
		r.state, r.started, r.updated = platform.ChangeResizing, now, now
		w.clock.After(w.timing.BranchChangeRun, branchChangeJob{r, platform.ChangeResizing})
	case platform.ChangeResizing:
		w.completeChange(r, now)
	}
}

// completeChange makes a request's values the branch's.
func (w *world) completeChange(r *branchChangeRec, now time.Time) {
	b := r.branch
	r.state, r.completed, r.updated = platform.ChangeCompleted, now, now
	cl := b.cluster // made by the request
	cl.pending = nil
	if len(r.after.params) > 0 && cl.params == nil {
		cl.params = map[string]paramValue{}
	}
	for name, v := range r.after.params {
		cl.params[name] = paramValue{value: v, updated: now, actor: r.actor}
	}
	cl.vtgate, cl.storage = r.after.vtgate, r.after.storage
	cl.resized = cl.resized || r.resize
	// Only a request that resizes the cluster changes its keyspaces, and
	// only in what it resizes: a keyspace resized on its own since keeps
	// its size through a request of the query routers or parameters.
	if r.resizesCluster() {
		for _, ks := range b.changedKeyspaces() {
			if r.after.clusterSize != r.before.clusterSize {
				ks.clusterSize = r.after.clusterSize
			}
			if ks.isDefault && r.after.replicas != r.before.replicas {
				ks.extraReplicas = r.after.replicas - included(b)
			}
			ks.updated = now
			w.meterKeyspace(ks, now)
		}
		w.replicasChanged(b)
	}
	b.updated = now
}

func cancelBranchChange(c *call) (any, error) {
	b := c.branch
	r := b.pendingChange()
	if r == nil {
		return nil, unprocessable("branch %s has no queued or resizing request to cancel%s", b.name, lastChange(b))
	}
	r.state, r.updated = platform.ChangeCanceled, c.now
	b.cluster.pending = nil // made by the request
	return nil, nil
}

// cancelBranchChanges cancels the branch's queued change request (the
// service's own command-line tool cancels a PostgreSQL resize this way).
// Only a queued one: once resizing it is too late, and a resize request
// of the query routers is cancel_branch_change_request's.
func cancelBranchChanges(c *call) (any, error) {
	b := c.branch
	r := b.pendingChange()
	switch {
	case r == nil:
		return nil, unprocessable("branch %s has no queued change request to cancel%s", b.name, lastChange(b))
	case r.resize:
		return nil, unprocessable("branch %s has %s %s, not a change request; cancel it with cancel_branch_change_request", b.name, r.what(), r.state)
	case r.state != platform.ChangeQueued:
		return nil, unprocessable("branch %s has %s %s: only a queued change request can be canceled", b.name, r.what(), r.state)
	}
	r.state, r.updated = platform.ChangeCanceled, c.now
	b.cluster.pending = nil // made by the request
	return nil, nil
}

// lastChange says how the branch's latest request ended, for a refused
// cancel.
func lastChange(b *branchRec) string {
	var last *branchChangeRec
	v := b.clusterView()
	for _, x := range [][]*branchChangeRec{v.resizes.All(), v.changes.All()} {
		if n := len(x); n > 0 && (last == nil || last.ListKey().Compare(x[n-1].ListKey()) < 0) {
			last = x[n-1]
		}
	}
	if last == nil {
		return ""
	}
	return "; its latest, " + last.what() + ", is " + string(last.state)
}

// renderChangeStamps renders what both kinds of request share.
func renderChangeStamps(r *branchChangeRec) (started, completed *platform.Timestamp, created, updated platform.Timestamp, actor *platform.Actor) {
	return ptrTime(r.started), ptrTime(r.completed), platform.NewTimestamp(r.created), platform.NewTimestamp(r.updated), renderActor(r.actor)
}

func renderBranchResize(r *branchChangeRec) *platform.BranchResizeRequest {
	a, p := r.after.vtgate, r.before.vtgate
	out := &platform.BranchResizeRequest{
		ID: r.id, Type: "BranchResizeRequest", State: r.state,
		VTGateSize: a.size, PreviousVTGateSize: p.size,
		VTGateName: a.size, PreviousVTGateName: p.size,
		VTGateDisplayName: vtgateDisplayName(a.size), PreviousVTGateDisplayName: vtgateDisplayName(p.size),
		VTGateCount: a.count, PreviousVTGateCount: p.count,
		VTGateMaxCount: a.maxCount, PreviousVTGateMaxCount: p.maxCount,
		VTGateAutoscaling: a.autoscaling, PreviousVTGateAutoscaling: p.autoscaling,
		VTGateTargetCPUUtilization: float64(a.targetCPU), PreviousVTGateTargetCPUUtilization: float64(p.targetCPU),
	}
	out.StartedAt, out.CompletedAt, out.CreatedAt, out.UpdatedAt, out.Actor = renderChangeStamps(r)
	return out
}

func renderBranchChange(r *branchChangeRec) *platform.BranchChangeRequest {
	a, p := r.after, r.before
	version := r.branch.postgresVersion()
	out := &platform.BranchChangeRequest{
		ID: r.id, Type: "BranchChangeRequest", State: r.state,
		ClusterName: a.clusterSize, PreviousClusterName: p.clusterSize,
		ClusterDisplayName: clusterDisplayName(a.clusterSize), PreviousClusterDisplayName: clusterDisplayName(p.clusterSize),
		ClusterMetal: skuByName[a.clusterSize].metal, PreviousClusterMetal: skuByName[p.clusterSize].metal,
		Replicas: a.replicas, PreviousReplicas: p.replicas,
		Version: version, PreviousVersion: version,
		Parameters: renderParamValues(a.params), PreviousParameters: renderParamValues(p.params),
		MinimumStorageBytes: a.storage.min, PreviousMinimumStorageBytes: p.storage.min,
		MaximumStorageBytes: a.storage.max, PreviousMaximumStorageBytes: p.storage.max,
		StorageAutoscaling: a.storage.autoscaling, PreviousStorageAutoscaling: p.storage.autoscaling,
		StorageType: storageType, PreviousStorageType: storageType,
		StorageIOPS: a.storage.iops, PreviousStorageIOPS: p.storage.iops,
		StorageThroughputMiBs: a.storage.throughput, PreviousStorageThroughputMiBs: p.storage.throughput,
	}
	out.StartedAt, out.CompletedAt, out.CreatedAt, out.UpdatedAt, out.Actor = renderChangeStamps(r)
	return out
}

// renderParamValues nests parameter values by namespace, as requests
// take them.
func renderParamValues(values map[string]string) map[platform.ParameterNamespace]map[string]string {
	out := map[platform.ParameterNamespace]map[string]string{}
	for name, v := range values {
		ns := paramByName[name].namespace
		if out[ns] == nil {
			out[ns] = map[string]string{}
		}
		out[ns][name] = v
	}
	return out
}
