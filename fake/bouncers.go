package fake

import (
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/dbplatform/platform-go"
)

// This file serves the bouncers (connection poolers) of PostgreSQL
// branches and their resize requests. See docs/fake-behaviour.md
// (Bouncers) for the decisions where the API's description is silent.

// bouncerSKU is a bouncer size of the catalogue.
type bouncerSKU struct {
	name, displayName, cpu string
	ram                    int64 // bytes
}

// bouncerSKUs is the bouncer size catalogue, smallest first: its order is
// sort_order.
var bouncerSKUs = []*bouncerSKU{
	{name: "PGB_5", displayName: "PGB-5", cpu: "1/16", ram: 512 * mib},
	{name: "PGB_10", displayName: "PGB-10", cpu: "1/8", ram: 1 * gib},
	{name: "PGB_20", displayName: "PGB-20", cpu: "1/4", ram: 2 * gib},
	{name: "PGB_40", displayName: "PGB-40", cpu: "1/2", ram: 4 * gib},
	{name: "PGB_80", displayName: "PGB-80", cpu: "1", ram: 8 * gib},
	{name: "PGB_160", displayName: "PGB-160", cpu: "2", ram: 16 * gib},
}

// defaultBouncerSize is a new bouncer's size when none is given.
var defaultBouncerSize = bouncerSKUs[0]

// bouncerSKUByName indexes the bouncer size catalogue.
var bouncerSKUByName = indexBy(bouncerSKUs, func(s *bouncerSKU) string { return s.name })

// maxBouncerReplicas bounds replicas_per_cell.
const maxBouncerReplicas = 10

// bouncerRec is a bouncer of a branch. Its servers are pending until
// Timings.BouncerReady has passed.
type bouncerRec struct {
	stamps
	branch    *branchRec
	name      string
	config    bouncerConfig
	actor     *userRec
	ready     bool
	deleted   bool
	deletedAt time.Time
	// active is the resize request in progress (pending or resizing); nil
	// when none.
	active  *bouncerResizeRec
	resizes index[*bouncerResizeRec]
}

// bouncerConfig is what a resize changes: a bouncer's size, servers per
// cell, target and pgbouncer parameter values (those that differ from the
// defaults).
type bouncerConfig struct {
	size     *bouncerSKU
	replicas int
	target   platform.BouncerTarget
	params   map[string]string
}

// bouncerResizeRec is a resize request of a bouncer: pending until
// Timings.BouncerResizeStart has passed, resizing for
// Timings.BouncerResize, then completed, unless canceled before.
type bouncerResizeRec struct {
	stamps
	bouncer            *bouncerRec
	state              platform.BouncerResizeState
	next, prev         bouncerConfig
	started, completed time.Time
	actor              *userRec
}

// branchBouncers are the bouncers of a branch and the resize requests of
// every bouncer it has had. The zero value is empty and ready to use.
type branchBouncers struct {
	idx     index[*bouncerRec]
	byName  map[string]*bouncerRec
	resizes index[*bouncerResizeRec]
}

func bouncerRoutes() []route {
	return []route{
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/bouncers", op: "list_bouncers", handler: read(listBouncers)},
		{pattern: "POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/bouncers", op: "create_bouncer", handler: withBody(createBouncer)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/bouncers/{bouncer}", op: "get_bouncer", handler: read(getBouncer)},
		{pattern: "DELETE /v1/organizations/{organization}/databases/{database}/branches/{branch}/bouncers/{bouncer}", op: "delete_bouncer", handler: act(deleteBouncer)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/bouncers/{bouncer}/resizes", op: "list_bouncer_resize_requests", handler: read(listBouncerResizes)},
		{pattern: "PATCH /v1/organizations/{organization}/databases/{database}/branches/{branch}/bouncers/{bouncer}/resizes", op: "update_bouncer_resize_request", handler: withBody(resizeBouncer)},
		{pattern: "DELETE /v1/organizations/{organization}/databases/{database}/branches/{branch}/bouncers/{bouncer}/resizes", op: "cancel_bouncer_resize_request", handler: act(cancelBouncerResize)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/bouncer-resizes", op: "list_branch_bouncer_resize_requests", handler: read(listBranchBouncerResizes)},
	}
}

// bouncer finds the path's {bouncer} on the path's branch.
func (c *call) bouncer() (*bouncerRec, error) {
	b, err := c.postgresBranch("bouncers")
	if err != nil {
		return nil, err
	}
	bn := b.x().bouncers.byName[c.r.PathValue("bouncer")]
	if bn == nil {
		return nil, c.nothingAt("bouncer")
	}
	return bn, nil
}

func listBouncers(c *call) (any, error) {
	b, err := c.postgresBranch("bouncers")
	if err != nil {
		return nil, err
	}
	return pageOf(c, &b.x().bouncers.idx, false, renderBouncer), nil
}

func getBouncer(c *call) (any, error) {
	bn, err := c.bouncer()
	if err != nil {
		return nil, err
	}
	return renderBouncer(bn), nil
}

func createBouncer(c *call, p *platform.CreateBouncerParams) (any, error) {
	b, err := c.postgresBranch("bouncers")
	if err != nil {
		return nil, err
	}
	if err := checkName("name", p.Name); err != nil {
		return nil, err
	}
	if b.x().bouncers.byName[p.Name] != nil {
		return nil, unprocessable("name %q is already taken by another bouncer of branch %s", p.Name, b.name)
	}
	cfg := bouncerConfig{size: defaultBouncerSize, replicas: 1, target: platform.BouncerTargetPrimary}
	target := p.Target
	if target != nil && *target == "" {
		target = nil // the default: the service's own client sends "" for none
	}
	if err := cfg.with(b, p.BouncerSize, p.ReplicasPerCell, target); err != nil {
		return nil, err
	}
	if !b.ready {
		return nil, unprocessable("branch %s is not ready yet", b.name)
	}
	bn := &bouncerRec{
		stamps: stamps{id: c.w.newID(), created: c.now, updated: c.now},
		branch: b, name: p.Name, config: cfg, actor: c.who.user,
	}
	if b.x().bouncers.byName == nil {
		b.x().bouncers.byName = map[string]*bouncerRec{}
	}
	b.x().bouncers.idx.Add(bn)
	b.x().bouncers.byName[bn.name] = bn
	c.w.startFlight(bn.id)
	c.w.clock.After(c.w.timing.BouncerReady, bouncerReadyJob{bn})
	return renderBouncer(bn), nil
}

// with applies the values given (nil ones are kept) to cfg, checking
// each: a 422 naming the field for an unknown size, a count out of range,
// an unknown target or one that needs replicas b lacks.
func (cfg *bouncerConfig) with(b *branchRec, size *string, replicas *int, target *platform.BouncerTarget) error {
	next := *cfg
	if size != nil {
		if next.size = bouncerSKUByName[sizeName(*size)]; next.size == nil {
			names := make([]string, len(bouncerSKUs))
			for i, s := range bouncerSKUs {
				names[i] = s.name
			}
			return unprocessable("bouncer_size %q is not a bouncer size; the sizes are %s", *size, strings.Join(names, ", "))
		}
	}
	if replicas != nil {
		if *replicas < 1 || *replicas > maxBouncerReplicas {
			return unprocessable("replicas_per_cell must be from 1 to %d, got %d", maxBouncerReplicas, *replicas)
		}
		next.replicas = *replicas
	}
	if target != nil {
		switch *target {
		case platform.BouncerTargetPrimary:
		case platform.BouncerTargetReplica, platform.BouncerTargetReplicaAZAffinity:
			if branchReplicas(b) == 0 {
				return unprocessable("target %s needs replicas, and branch %s has none", *target, b.name)
			}
			if r := b.replicaRemoval(); r != nil && r.after.replicas == 0 {
				return unprocessable("target %s needs replicas, and branch %s has %s %s, which removes them all; wait for it to complete or cancel it", *target, b.name, r.what(), r.state)
			}
		default:
			return unprocessable("target %q is not primary, replica or replica_az_affinity", *target)
		}
		next.target = *target
	}
	*cfg = next
	return nil
}

// targetsReplicas reports whether a bouncer with this target needs
// replicas.
func targetsReplicas(t platform.BouncerTarget) bool {
	return t == platform.BouncerTargetReplica || t == platform.BouncerTargetReplicaAZAffinity
}

// replicaBouncer is a bouncer of b that targets replicas, or whose resize
// in progress makes it target them; nil when none does.
func (b *branchRec) replicaBouncer() *bouncerRec {
	for _, bn := range b.more.read().bouncers.idx.All() {
		if targetsReplicas(bn.config.target) || bn.active != nil && targetsReplicas(bn.active.next.target) {
			return bn
		}
	}
	return nil
}

// branchReplicas is the number of replicas of a PostgreSQL branch: its
// default keyspace's.
func branchReplicas(b *branchRec) int {
	for _, ks := range b.keyspaces.All() {
		if ks.isDefault {
			return ks.replicas()
		}
	}
	return 0
}

// bouncerReady is the pending -> ready transition of a new bouncer's
// servers; a failed one is removed.
func (w *world) bouncerReady(bn *bouncerRec) {
	w.endFlight(bn.id)
	failed := w.takeFailure(bn.id)
	switch {
	case bn.deleted:
	case failed:
		w.dropBouncer(bn)
	default:
		bn.ready = true
		bn.updated = w.clock.Now()
	}
}

func deleteBouncer(c *call) (any, error) {
	bn, err := c.bouncer()
	if err != nil {
		return nil, err
	}
	c.w.dropBouncer(bn)
	return nil, nil
}

// dropBouncer deletes a bouncer, canceling its resize in progress.
func (w *world) dropBouncer(bn *bouncerRec) {
	now := w.clock.Now()
	if r := bn.active; r != nil {
		w.endBouncerResize(r, platform.BouncerResizeCanceled, now)
	}
	b := bn.branch
	bn.deleted, bn.deletedAt, bn.updated = true, now, now
	b.x().bouncers.idx.Remove(bn)
	delete(b.x().bouncers.byName, bn.name)
	w.endFlight(bn.id)
}

// dropBranchBouncers deletes the bouncers of a deleted branch.
func (w *world) dropBranchBouncers(b *branchRec) {
	for _, bn := range slices.Clone(b.x().bouncers.idx.All()) {
		w.dropBouncer(bn)
	}
}

func listBouncerResizes(c *call) (any, error) {
	bn, err := c.bouncer()
	if err != nil {
		return nil, err
	}
	return pageOf(c, &bn.resizes, false, renderBouncerResize), nil
}

func listBranchBouncerResizes(c *call) (any, error) {
	b, err := c.postgresBranch("bouncers")
	if err != nil {
		return nil, err
	}
	return pageOf(c, &b.x().bouncers.resizes, false, renderBouncerResize), nil
}

func resizeBouncer(c *call, p *platform.ResizeBouncerParams) (any, error) {
	bn, err := c.bouncer()
	if err != nil {
		return nil, err
	}
	// A pending request is changed (the API's upsert): the values given
	// apply to it, not to the bouncer.
	pending := bn.active != nil && bn.active.state == platform.BouncerResizePending
	next := bn.config
	if pending {
		next = bn.active.next
	}
	if err := next.with(bn.branch, p.BouncerSize, p.ReplicasPerCell, p.Target); err != nil {
		return nil, err
	}
	if next.params, err = bouncerParamsWith(next.params, p.Parameters); err != nil {
		return nil, err
	}
	switch {
	case !bn.ready:
		return nil, unprocessable("bouncer %s is not ready yet", bn.name)
	case pending:
		r := bn.active
		r.next, r.updated, r.actor = next, c.now, c.who.user
		return renderBouncerResize(r), nil
	case bn.active != nil:
		return nil, unprocessable("bouncer %s already has a resize request %s, %s; cancel it or wait for it to complete", bn.name, bn.active.id, bn.active.state)
	case next.equal(bn.config):
		return nil, unprocessable("the resize changes nothing: bouncer %s already has these values", bn.name)
	}
	r := &bouncerResizeRec{
		stamps:  stamps{id: c.w.newID(), created: c.now, updated: c.now},
		bouncer: bn, state: platform.BouncerResizePending,
		next: next, prev: bn.config, actor: c.who.user,
	}
	bn.resizes.Add(r)
	bn.branch.x().bouncers.resizes.Add(r)
	bn.active = r
	c.w.startFlight(r.id)
	c.w.clock.After(c.w.timing.BouncerResizeStart, bouncerResizeJob{r, platform.BouncerResizePending})
	return renderBouncerResize(r), nil
}

// bouncerParamsWith returns the parameter values cur (those that differ
// from the defaults) with those of the request set: a 422 naming the namespace or the parameter for one that
// is not a pgbouncer parameter, or a value it does not take.
func bouncerParamsWith(cur map[string]string, req platform.BouncerParameters) (map[string]string, error) {
	if len(req) == 0 {
		return cur, nil
	}
	next := maps.Clone(cur)
	if next == nil {
		next = map[string]string{}
	}
	for _, ns := range slices.Sorted(maps.Keys(req)) {
		if ns != string(platform.NamespacePgbouncer) {
			return nil, unprocessable("parameters: namespace %q cannot be changed on a bouncer; only %s", ns, platform.NamespacePgbouncer)
		}
		for _, name := range slices.Sorted(maps.Keys(req[ns])) {
			value := req[ns][name]
			spec := paramByName[name]
			if spec == nil || spec.namespace != platform.NamespacePgbouncer {
				return nil, unprocessable("parameter %q is not a %s parameter; list_parameters lists them", name, platform.NamespacePgbouncer)
			}
			if err := validateParameter(platform.KindPostgreSQL, name, value); err != nil {
				return nil, err
			}
			if value == spec.def {
				delete(next, name) // back to the default
			} else {
				next[name] = value
			}
		}
	}
	return next, nil
}

// equal reports whether two configurations are the same.
func (cfg bouncerConfig) equal(o bouncerConfig) bool {
	return cfg.size == o.size && cfg.replicas == o.replicas && cfg.target == o.target && maps.Equal(cfg.params, o.params)
}

// bouncerResizeStarted is the pending -> resizing transition.
func (w *world) bouncerResizeStarted(r *bouncerResizeRec) {
	if r.state != platform.BouncerResizePending {
		return // canceled
	}
	r.state = platform.BouncerResizeResizing
	r.started = w.clock.Now()
	r.updated = r.started
	w.clock.After(w.timing.BouncerResize, bouncerResizeJob{r, platform.BouncerResizeResizing})
}

// bouncerResized is the resizing -> completed transition: the bouncer
// takes the new values. A failed resize ends canceled, the bouncer
// keeping its values.
func (w *world) bouncerResized(r *bouncerResizeRec) {
	if r.state != platform.BouncerResizeResizing {
		return // canceled
	}
	now := w.clock.Now()
	if w.takeFailure(r.id) {
		w.endBouncerResize(r, platform.BouncerResizeCanceled, now)
		return
	}
	bn := r.bouncer
	bn.config = r.next
	bn.updated = now
	w.endBouncerResize(r, platform.BouncerResizeCompleted, now)
}

// endBouncerResize ends a resize request in progress in state.
func (w *world) endBouncerResize(r *bouncerResizeRec, state platform.BouncerResizeState, now time.Time) {
	r.state, r.updated = state, now
	if state == platform.BouncerResizeCompleted {
		r.completed = now
	}
	r.bouncer.active = nil
	w.endFlight(r.id)
}

func cancelBouncerResize(c *call) (any, error) {
	bn, err := c.bouncer()
	if err != nil {
		return nil, err
	}
	if bn.active == nil {
		if n := bn.resizes.Len(); n > 0 {
			last := bn.resizes.All()[n-1]
			return nil, unprocessable("bouncer %s has no resize request to cancel: the last one, %s, is %s", bn.name, last.id, last.state)
		}
		return nil, unprocessable("bouncer %s has no resize request to cancel", bn.name)
	}
	c.w.endBouncerResize(bn.active, platform.BouncerResizeCanceled, c.now)
	return nil, nil
}

// render renders a bouncer size as the API shows it.
func (s *bouncerSKU) render() platform.BouncerSKU {
	return platform.BouncerSKU{
		Name: s.name, DisplayName: s.displayName, CPU: s.cpu, RAM: s.ram,
		SortOrder: (slices.Index(bouncerSKUs, s) + 1) * 10,
	}
}

// renderBouncerRef renders the short form of a bouncer.
func renderBouncerRef(bn *bouncerRec) platform.BouncerRef {
	ref := platform.BouncerRef{ID: bn.id, Name: bn.name, CreatedAt: platform.NewTimestamp(bn.created), UpdatedAt: platform.NewTimestamp(bn.updated)}
	if bn.deleted {
		ref.DeletedAt = ptrTime(bn.deletedAt)
	}
	return ref
}

// renderBouncer renders a bouncer as the API shows it, with the pgbouncer
// parameters of the catalogue at its values.
func renderBouncer(bn *bouncerRec) *platform.Bouncer {
	out := &platform.Bouncer{
		ID:              bn.id,
		Name:            bn.name,
		SKU:             bn.config.size.render(),
		Target:          bn.config.target,
		ReplicasPerCell: bn.config.replicas,
		CreatedAt:       platform.NewTimestamp(bn.created),
		UpdatedAt:       platform.NewTimestamp(bn.updated),
		Actor:           renderActor(bn.actor),
		Branch:          *renderBranchRef(bn.branch),
		Parameters:      []*platform.BouncerParameter{},
	}
	if bn.deleted {
		out.DeletedAt = ptrTime(bn.deletedAt)
	}
	r := newParamRenderer(bn.branch)
	for _, spec := range postgresParams {
		if spec.namespace != platform.NamespacePgbouncer {
			continue
		}
		p := r.parameter(spec)
		if v, ok := bn.config.params[spec.name]; ok {
			p.Value = v
		}
		out.Parameters = append(out.Parameters, &platform.BouncerParameter{
			ID: p.ID, Namespace: p.Namespace, Name: p.Name, DisplayName: p.DisplayName,
			Category: p.Category, Description: p.Description, Immutable: p.Immutable,
			ParameterType: p.ParameterType, DefaultValue: p.DefaultValue, Value: p.Value,
			Required: p.Required, Created: p.Created, Updated: p.Updated, Restart: p.Restart,
			Max: p.Max, Min: p.Min, URL: p.URL, Options: p.Options, Actor: p.Actor,
		})
	}
	return out
}

// renderBouncerParams renders parameter values by namespace.
func renderBouncerParams(params map[string]string) platform.BouncerParameters {
	values := maps.Clone(params)
	if values == nil {
		values = map[string]string{}
	}
	return platform.BouncerParameters{string(platform.NamespacePgbouncer): values}
}

// renderBouncerResize renders a bouncer resize request.
func renderBouncerResize(r *bouncerResizeRec) *platform.BouncerResizeRequest {
	return &platform.BouncerResizeRequest{
		ID:                      r.id,
		State:                   r.state,
		ReplicasPerCell:         r.next.replicas,
		Target:                  r.next.target,
		Parameters:              renderBouncerParams(r.next.params),
		PreviousReplicasPerCell: r.prev.replicas,
		PreviousTarget:          r.prev.target,
		PreviousParameters:      renderBouncerParams(r.prev.params),
		StartedAt:               ptrTime(r.started),
		CompletedAt:             ptrTime(r.completed),
		CreatedAt:               platform.NewTimestamp(r.created),
		UpdatedAt:               platform.NewTimestamp(r.updated),
		Actor:                   renderActor(r.actor),
		Bouncer:                 renderBouncerRef(r.bouncer),
		SKU:                     r.next.size.render(),
		PreviousSKU:             r.prev.size.render(),
	}
}
