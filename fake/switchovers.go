package fake

import (
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake/internal/ordered"
)

// switchoverRec is a switchover of a PostgreSQL branch's primary.
type switchoverRec struct {
	stamps
	branch    *branchRec
	state     platform.SwitchoverState
	method    platform.SwitchoverMethod // "" until it runs
	candidate int                       // the instance to promote
	err       string
	actor     *userRec
	completed time.Time
}

// branchSwitchovers are the switchovers of one branch. The map is made on
// the first write; reads of the zero value find nothing.
type branchSwitchovers struct {
	ordered.Store[*switchoverRec]
	// running is the switchover in progress, nil when none is.
	running *switchoverRec
}

// switchoverFailure is the error of a switchover whose failure a test
// injected with FailNext.
const switchoverFailure = "the switchover did not confirm its outcome"

func switchoverRoutes() []route {
	return []route{
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/switchovers", op: "list_switchovers", handler: read(listSwitchovers)},
		{pattern: "POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/switchovers", op: "create_switchover", handler: withBody(createSwitchover)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/switchovers/{id}", op: "get_switchover", handler: read(getSwitchover)},
	}
}

// postgresBranch returns the path's branch and refuses it unless its
// database is a PostgreSQL one; what names what was asked for.
func (c *call) postgresBranch(what string) (*branchRec, error) {
	b := c.branch
	if b.db.kind != platform.KindPostgreSQL {
		return nil, unprocessable("%s are for postgresql databases; %s is %s", what, b.db.name, b.db.kind)
	}
	return b, nil
}

func listSwitchovers(c *call) (any, error) {
	b, err := c.postgresBranch("switchovers")
	if err != nil {
		return nil, err
	}
	return pageOf(c, b.x().switchovers.Index(), false, c.w.renderSwitchover), nil
}

func getSwitchover(c *call) (any, error) {
	b, err := c.postgresBranch("switchovers")
	if err != nil {
		return nil, err
	}
	sw := b.x().switchovers.Get(c.r.PathValue("id"))
	if sw == nil {
		return nil, notFound()
	}
	return c.w.renderSwitchover(sw), nil
}

func createSwitchover(c *call, p *platform.CreateSwitchoverParams) (any, error) {
	b, err := c.postgresBranch("switchovers")
	if err != nil {
		return nil, err
	}
	if err := b.busy(); err != nil {
		return nil, err
	}
	if r := b.replicaRemoval(); r != nil {
		return nil, unprocessable("branch %s has %s %s, which removes replicas (%d to %d); wait for it to complete or cancel it", b.name, r.what(), r.state, b.postgresInstances()-1, r.after.replicas)
	}
	candidate, err := b.switchoverCandidate(p.Candidate)
	if err != nil {
		return nil, err
	}
	sw := c.w.newSwitchover(b, candidate, c.who.user)
	return c.w.renderSwitchover(sw), nil
}

// busy refuses a switchover or maintenance of b while it cannot take one:
// before it is ready, and while a switchover or a maintenance runs.
func (b *branchRec) busy() error {
	switch {
	case !b.ready:
		return unprocessable("branch %s is not ready yet", b.name)
	case b.x().switchovers.running != nil:
		sw := b.x().switchovers.running
		return unprocessable("branch %s has switchover %s %s; wait until it finishes", b.name, sw.id, sw.state)
	case b.db.x().maintenance.running != nil && b.db.x().maintenance.running.branch == b:
		return unprocessable("branch %s is in maintenance window %s; wait until it finishes", b.name, b.db.x().maintenance.running.id)
	}
	return nil
}

// postgresInstances is how many PostgreSQL instances b runs: its primary
// and its default keyspace's replicas.
func (b *branchRec) postgresInstances() int {
	for _, ks := range b.keyspaces.All() {
		if ks.isDefault {
			return 1 + ks.replicas()
		}
	}
	return 1
}

// restarting reports whether instance i of b is being restarted now, by a
// running switchover by restart: it is down, not ready, until the
// switchover succeeds.
func (b *branchRec) restarting(i int) bool {
	sw := b.more.read().switchovers.running
	return sw != nil && sw.state == platform.SwitchoverRunning && sw.method == platform.SwitchoverRestart && sw.candidate == i
}

// primaryInstance is the instance of b that is its primary: the one the
// last switchover promoted, while a change of the replicas keeps it (see
// replicasChanged).
func (b *branchRec) primaryInstance() int { return b.primary }

// switchoverCandidate is the instance a switchover of b promotes: the
// replica named, or the next one after the primary; the primary itself
// (restarted) when b has no replicas.
func (b *branchRec) switchoverCandidate(name *string) (int, error) {
	n, primary := b.postgresInstances(), b.primaryInstance()
	if name == nil {
		return (primary + 1) % n, nil
	}
	if n == 1 {
		return 0, unprocessable("candidate %q: branch %s has no replicas to promote", *name, b.name)
	}
	for i := range n {
		if postgresInstanceName(b, i) != *name {
			continue
		}
		if i == primary {
			return 0, unprocessable("candidate %q is the primary of branch %s already; name a replica", *name, b.name)
		}
		return i, nil
	}
	return 0, unprocessable("candidate %q is not a replica of branch %s; see its infrastructure", *name, b.name)
}

// newSwitchover starts a switchover of b to instance candidate: pending
// now, running after Timings.SwitchoverStart, succeeded
// Timings.SwitchoverRun later, when the candidate becomes the primary. It
// emits no event: branch.primary_promoted is one a test emits
// (Server.Emit), as decisions.md has it.
func (w *world) newSwitchover(b *branchRec, candidate int, actor *userRec) *switchoverRec {
	now := w.clock.Now()
	sw := &switchoverRec{
		stamps:    stamps{id: w.newID(), created: now, updated: now},
		branch:    b,
		state:     platform.SwitchoverPending,
		candidate: candidate,
		actor:     actor,
	}
	bs := &b.x().switchovers
	bs.Add(sw)
	bs.running = sw
	w.startFlight(sw.id)
	w.clock.After(w.timing.SwitchoverStart, switchoverJob{sw, platform.SwitchoverPending})
	return sw
}

// advanceSwitchover moves sw on from pending or running, once no failure
// was injected: pending starts running, by promotion or (without replicas)
// by restart; running ends with the candidate as the primary.
func (w *world) advanceSwitchover(sw *switchoverRec, now time.Time) {
	b := sw.branch
	if sw.state == platform.SwitchoverPending {
		sw.state, sw.updated = platform.SwitchoverRunning, now
		sw.method = platform.SwitchoverPromote
		if b.postgresInstances() == 1 {
			sw.method = platform.SwitchoverRestart
			w.endInstanceSessions(b, sw.candidate) // the instance goes down
		}
		w.clock.After(w.timing.SwitchoverRun, switchoverJob{sw, platform.SwitchoverRunning})
		return
	}
	b.primary = sw.candidate
	b.updated = now
	w.settleSwitchover(sw, platform.SwitchoverSucceeded, now)
}

// settleSwitchover puts a switchover in a final state.
func (w *world) settleSwitchover(sw *switchoverRec, state platform.SwitchoverState, now time.Time) {
	sw.state = state
	sw.completed, sw.updated = now, now
	sw.branch.x().switchovers.running = nil
	w.endFlight(sw.id)
}

// cancelSwitchover cancels the switchover of b in progress, if any, as
// deleting b does.
func (w *world) cancelSwitchover(b *branchRec) {
	if sw := b.x().switchovers.running; sw != nil {
		w.settleSwitchover(sw, platform.SwitchoverCanceled, w.clock.Now())
	}
}

// renderSwitchover renders a switchover as the API shows it.
func (w *world) renderSwitchover(sw *switchoverRec) *platform.Switchover {
	out := &platform.Switchover{
		ID:          sw.id,
		State:       sw.state,
		StartedAt:   ptrTime(sw.created),
		CompletedAt: ptrTime(sw.completed),
		CreatedAt:   platform.NewTimestamp(sw.created),
		UpdatedAt:   platform.NewTimestamp(sw.updated),
		Actor:       renderActor(sw.actor),
	}
	if sw.method != "" {
		out.Method = platform.Ptr(sw.method)
	}
	if sw.err != "" {
		out.Error = platform.Ptr(sw.err)
	}
	return out
}
