package fake

import (
	"strconv"
	"strings"
	"time"

	"github.com/dbplatform/platform-go"
)

// keyspaceResizeRec is a resize request of a keyspace. It is queued for
// Timings.KeyspaceResizeQueued, then resizing while its shards roll out one
// after another, Timings.KeyspaceResizeShard each, then completed, when the
// keyspace takes its size. It can be canceled until it completes.
type keyspaceResizeRec struct {
	stamps
	ks    *keyspaceRec
	actor *userRec
	state platform.KeyspaceResizeState
	// started and completed are zero until the rollout starts and the
	// request completes.
	started, completed time.Time
	// shardTime is how long each shard's rollout takes, fixed when the
	// rollout starts.
	shardTime time.Duration
	// from is the keyspace's size when asked (or last upserted), to the
	// size asked for; replicas and prevReplicas their totals. Completing,
	// it writes only the fields where to differs from from (see onto).
	from, to               keyspaceSize
	replicas, prevReplicas int
}

// keyspaceSize is what a resize changes. vectorPool is never modified in
// place, only replaced, and never shared with another record (a snapshot
// keeps records apart).
type keyspaceSize struct {
	clusterSize   string
	extraReplicas int
	vectorPool    *float64
}

// size is the keyspace's current size.
func (ks *keyspaceRec) size() keyspaceSize {
	return keyspaceSize{clusterSize: ks.clusterSize, extraReplicas: ks.extraReplicas, vectorPool: clonePtr(ks.settings.vectorPool)}
}

// clonePtr returns a copy of *p, or nil.
func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// equal reports whether two sizes are the same; an unset vector pool
// allocation differs from one set to 0.
func (z keyspaceSize) equal(o keyspaceSize) bool {
	return z.clusterSize == o.clusterSize && z.extraReplicas == o.extraReplicas && sameVector(z.vectorPool, o.vectorPool)
}

// sameVector reports whether two vector pool allocations are the same; an
// unset one differs from one set to 0.
func sameVector(a, b *float64) bool {
	return (a == nil) == (b == nil) && vectorPercent(a) == vectorPercent(b)
}

// setsVector reports whether the request changes the keyspace's vector
// pool allocation: what it writes when it completes.
func (r *keyspaceResizeRec) setsVector() bool { return !sameVector(r.from.vectorPool, r.to.vectorPool) }

// onto is z with what the request changes (the fields where it differs
// from the size it was asked at) set to the request's values. A request
// writes only these when it completes, so that a setting it leaves alone
// can change meanwhile (vector_pool_allocation, through update_keyspace).
func (r *keyspaceResizeRec) onto(z keyspaceSize) keyspaceSize {
	if r.to.clusterSize != r.from.clusterSize {
		z.clusterSize = r.to.clusterSize
	}
	if r.to.extraReplicas != r.from.extraReplicas {
		z.extraReplicas = r.to.extraReplicas
	}
	if r.setsVector() {
		z.vectorPool = clonePtr(r.to.vectorPool)
	}
	return z
}

// vectorText is a vector pool allocation as messages show it: null when
// unset.
func vectorText(v *float64) string {
	if v == nil {
		return "null"
	}
	return strconv.FormatFloat(*v, 'g', -1, 64)
}

// vectorPercent is a vector pool allocation as a resize request shows it:
// 0 when unset.
func vectorPercent(v *float64) float64 {
	if v == nil {
		return 0
	}
	return *v
}

func listKeyspaceResizes(c *call) (any, error) {
	ks, err := c.keyspace()
	if err != nil {
		return nil, err
	}
	keep, err := completedWithin(c.r.URL.Query().Get("completed_at"))
	if err != nil {
		return nil, err
	}
	return filteredPageOf(c, ks.more.read().resizes.Index(), false, keep, renderKeyspaceResize), nil
}

// completedWithin reads the completed_at filter, "FROM..TO" in RFC 3339
// with either end optional, and keeps the requests completed in it; every
// request when the filter is empty.
func completedWithin(v string) (func(*keyspaceResizeRec) bool, error) {
	if v == "" {
		return func(*keyspaceResizeRec) bool { return true }, nil
	}
	fromText, toText, ok := strings.Cut(v, "..")
	if !ok {
		return nil, badRequest("completed_at must be a range FROM..TO of RFC 3339 times, got %q", v)
	}
	var bounds [2]time.Time
	for i, t := range []string{fromText, toText} {
		if t == "" {
			continue
		}
		at, err := time.Parse(time.RFC3339Nano, t)
		if err != nil {
			return nil, badRequest("completed_at: %q is not an RFC 3339 time", t)
		}
		bounds[i] = at
	}
	return func(r *keyspaceResizeRec) bool {
		return !r.completed.IsZero() &&
			(bounds[0].IsZero() || !r.completed.Before(bounds[0])) &&
			(bounds[1].IsZero() || !r.completed.After(bounds[1]))
	}, nil
}

func getKeyspaceResize(c *call) (any, error) {
	ks, err := c.keyspace()
	if err != nil {
		return nil, err
	}
	r := ks.more.read().resizes.Get(c.r.PathValue("id"))
	if r == nil {
		return nil, notFound()
	}
	return renderKeyspaceResize(r), nil
}

// resizeKeyspace upserts the keyspace's resize request: it updates a
// queued one, or queues a new one.
func resizeKeyspace(c *call, p *platform.ResizeKeyspaceParams) (any, error) {
	ks, err := c.keyspace()
	if err != nil {
		return nil, err
	}
	b := ks.branch
	if b.db.kind != platform.KindMySQL {
		return nil, unprocessable("keyspace resizes are for mysql databases; %s is %s: resize the branch instead", b.db.name, b.db.kind)
	}
	m := ks.more.read()
	queued, cur := m.resize, ks.size()
	next := ks.size() // a copy of its own: a request's sizes share no memory
	if queued != nil {
		next = queued.onto(cur)
	}
	if p.ClusterSize != nil {
		size, err := clusterSizeFor("cluster_size", *p.ClusterSize, b.resizeScope(next.clusterSize), b.production)
		if err != nil {
			return nil, err
		}
		next.clusterSize = size
	}
	if p.ExtraReplicas != nil {
		if err := checkExtraReplicas(b, *p.ExtraReplicas); err != nil {
			return nil, err
		}
		next.extraReplicas = *p.ExtraReplicas
	}
	if v := p.VectorPoolAllocation; v != nil {
		if *v < 0 || *v > 100 {
			return nil, unprocessable("vector_pool_allocation must be from 0 to 100, got %d", *v)
		}
		next.vectorPool = platform.Ptr(float64(*v))
	}
	switch {
	case !ks.ready:
		return nil, unprocessable("keyspace %s is not ready yet", ks.name)
	case queued != nil && queued.state == platform.KeyspaceResizeResizing:
		return nil, unprocessable("keyspace %s is already resizing (request %s); cancel it or wait for it to complete", ks.name, queued.id)
	}
	if r := ks.branchResize(); r != nil {
		return nil, unprocessable("branch %s has %s %s, which resizes keyspace %s to %s; wait for it to complete or cancel it",
			b.name, r.what(), r.state, ks.name, r.after.clusterSize)
	}
	if m.configChanging && !sameVector(next.vectorPool, cur.vectorPool) && !sameVector(m.before.vectorPool, ks.settings.vectorPool) {
		return nil, unprocessable("keyspace %s has a settings change in progress (config_change_in_progress) that sets vector_pool_allocation to %s; wait for it to complete",
			ks.name, vectorText(ks.settings.vectorPool))
	}
	if next.equal(cur) {
		return nil, unprocessable("the resize changes nothing: keyspace %s already has cluster_size %s, extra_replicas %d and vector_pool_allocation %g",
			ks.name, ks.clusterSize, ks.extraReplicas, vectorPercent(ks.settings.vectorPool))
	}
	if queued != nil {
		// The request starts again from the keyspace as it is: only a
		// setting it does not change can have changed since.
		queued.from, queued.prevReplicas = cur, ks.replicas()
		queued.to, queued.replicas = next, included(b)+next.extraReplicas
		queued.actor, queued.updated = c.who.user, c.now
		return renderKeyspaceResize(queued), nil
	}
	r := &keyspaceResizeRec{
		stamps: stamps{id: c.w.newID(), created: c.now, updated: c.now},
		ks:     ks, actor: c.who.user, state: platform.KeyspaceResizeQueued,
		from: cur, to: next, prevReplicas: ks.replicas(), replicas: included(b) + next.extraReplicas,
	}
	x := ks.x()
	x.resizes.Add(r)
	x.resize = r
	ks.updated = c.now
	c.w.clock.After(c.w.timing.KeyspaceResizeQueued, keyspaceResizeJob{r, platform.KeyspaceResizeQueued})
	return renderKeyspaceResize(r), nil
}

// keyspaceResizeStart is the queued -> resizing transition: the rollout
// starts, and completes once every shard has rolled out.
func (w *world) keyspaceResizeStart(r *keyspaceResizeRec) {
	if r.state != platform.KeyspaceResizeQueued || r.ks.gone() {
		return
	}
	now := w.clock.Now()
	r.state, r.started, r.updated = platform.KeyspaceResizeResizing, now, now
	r.shardTime = w.timing.KeyspaceResizeShard
	r.ks.updated = now
	w.clock.After(time.Duration(r.ks.shards)*r.shardTime, keyspaceResizeJob{r, platform.KeyspaceResizeResizing})
}

// keyspaceResizeComplete is the resizing -> completed transition: the
// keyspace takes the size asked for.
func (w *world) keyspaceResizeComplete(r *keyspaceResizeRec) {
	ks := r.ks
	if r.state != platform.KeyspaceResizeResizing || ks.gone() {
		return
	}
	now := w.clock.Now()
	r.state, r.completed, r.updated = platform.KeyspaceResizeCompleted, now, now
	size := r.onto(ks.size())
	ks.clusterSize, ks.extraReplicas = size.clusterSize, size.extraReplicas
	w.meterKeyspace(ks, now)
	m := ks.x()
	if r.setsVector() {
		ks.settings.vectorPool = size.vectorPool
		if m.configChanging {
			// A settings change that fails afterwards keeps the new size.
			m.before.vectorPool = clonePtr(size.vectorPool)
		}
	}
	m.resize, m.lastResize = nil, r
	ks.updated = now
}

func cancelKeyspaceResize(c *call) (any, error) {
	ks, err := c.keyspace()
	if err != nil {
		return nil, err
	}
	m := ks.more.read()
	r := m.resize
	if r == nil {
		if n := m.resizes.Len(); n > 0 {
			last := m.resizes.All()[n-1]
			return nil, unprocessable("keyspace %s has no resize to cancel: its latest resize request, %s, is %s", ks.name, last.id, last.state)
		}
		return nil, unprocessable("keyspace %s has no resize to cancel: it has no resize requests", ks.name)
	}
	r.state, r.updated = platform.KeyspaceResizeCanceled, c.now
	ks.x().resize = nil
	ks.updated = c.now
	return nil, nil
}

func getKeyspaceRollout(c *call) (any, error) {
	ks, err := c.keyspace()
	if err != nil {
		return nil, err
	}
	return renderKeyspaceRollout(ks, c.now), nil
}

// renderKeyspaceRollout shows the rollout of the keyspace's resize at now:
// while it is resizing, shard i rolls out from started + i*shardTime for
// shardTime; a shard not rolling out shows its last rollout, that of the
// latest completed resize, or the keyspace's creation.
func renderKeyspaceRollout(ks *keyspaceRec, now time.Time) *platform.KeyspaceRollout {
	m := ks.more.read()
	r := m.resize
	out := &platform.KeyspaceRollout{Name: ks.name, State: platform.RolloutIdle}
	switch {
	case r == nil:
	case r.state == platform.KeyspaceResizeQueued:
		out.State = platform.RolloutPending
	default:
		out.State = platform.RolloutInProgress
	}
	names := shardNames(ks.shards)
	out.Shards = make([]*platform.ShardRollout, len(names))
	for i, name := range names {
		started, finished := ks.created, ks.created
		if last := m.lastResize; last != nil {
			started, finished = last.shardWindow(i)
		}
		state := platform.RolloutCompleted
		switch {
		case r == nil:
		case r.state == platform.KeyspaceResizeQueued:
			state = platform.RolloutPending
		default:
			from, to := r.shardWindow(i)
			switch {
			case !now.Before(to):
				state, started, finished = platform.RolloutCompleted, from, to
			case !now.Before(from):
				state, started = platform.RolloutInProgress, from
			default:
				state = platform.RolloutPending
			}
		}
		out.Shards[i] = &platform.ShardRollout{
			Name: name, State: state,
			LastRolloutStartedAt: platform.NewTimestamp(started), LastRolloutFinishedAt: platform.NewTimestamp(finished),
		}
	}
	return out
}

// shardWindow is when shard i of the request's rollout starts and
// finishes.
func (r *keyspaceResizeRec) shardWindow(i int) (from, to time.Time) {
	from = r.started.Add(time.Duration(i) * r.shardTime)
	return from, from.Add(r.shardTime)
}

// renderKeyspaceResize renders a keyspace resize request as the API shows
// it.
func renderKeyspaceResize(r *keyspaceResizeRec) *platform.KeyspaceResizeRequest {
	return &platform.KeyspaceResizeRequest{
		ID:                           r.id,
		Type:                         "KeyspaceResizeRequest",
		State:                        r.state,
		StartedAt:                    ptrTime(r.started),
		CompletedAt:                  ptrTime(r.completed),
		ExtraReplicas:                r.to.extraReplicas,
		VectorPoolAllocation:         vectorPercent(r.to.vectorPool),
		PreviousVectorPoolAllocation: vectorPercent(r.from.vectorPool),
		ClusterName:                  r.to.clusterSize,
		ClusterDisplayName:           clusterDisplayName(r.to.clusterSize),
		PreviousClusterName:          r.from.clusterSize,
		PreviousClusterDisplayName:   clusterDisplayName(r.from.clusterSize),
		Replicas:                     r.replicas,
		PreviousReplicas:             r.prevReplicas,
		Actor:                        renderActor(r.actor),
		CreatedAt:                    platform.NewTimestamp(r.created),
		UpdatedAt:                    platform.NewTimestamp(r.updated),
	}
}
