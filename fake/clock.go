package fake

import vclock "github.com/dbplatform/platform-go/fake/internal/clock"

// clock is the server's time (see fake/internal/clock). A virtual clock
// stands still until Advance moves it; a real one follows the wall clock.
// Either way, work scheduled for a time runs once the clock reaches it, in
// time order (ties in the order scheduled), under the server's lock.
type clock = vclock.Clock[job]

// timer is a job due at a time.
type timer = vclock.Timer[job]

// job is a lifecycle transition waiting on the clock. It is data, not a
// closure, so that a snapshot can hold it: save gives its kind and the
// identity of what it acts on, and a loader of that kind (listed in
// jobLoaders, snapshot.go) builds it again. Each kind is a small struct in
// the <group>_jobs.go file of its resource group, with its run, save, keep
// and loader.
type job interface {
	// run performs the transition on the world, under the server's lock.
	run(w *world)
	// save returns the job as a snapshot holds it, without its time.
	save() jobSnap
	// keep reports whether a snapshot holds the job: a job whose
	// resource is gone for good does nothing, and is left out.
	keep(sv *saver) bool
}

// MaxAdvanceTransitions is the most transitions one move of the clock
// runs: one [Server.Advance] (one POST /_fake/advance), one [Server.Sleep],
// one wake of a real-time clock. The server's lock is held while they run,
// so the bound keeps every other request from waiting long (100,000
// transitions take well under a second). A move that reaches it stops
// there: a virtual clock stays at the time of the last transition run, with
// the rest still due, and the next move goes on from there; a real-time
// clock runs the rest at once, after letting waiting requests through.
const MaxAdvanceTransitions = 100_000
