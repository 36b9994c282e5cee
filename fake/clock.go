package fake

import (
	"container/heap"
	"time"
)

// clock is the server's time. A virtual clock stands still until Advance
// moves it; a real one follows the wall clock. Either way, work scheduled
// for a time runs once the clock reaches it, in time order (ties in the
// order scheduled), under the server's lock.
type clock struct {
	real   bool
	now    time.Time // virtual time; unused when real
	timers timerHeap
	seq    uint64
	wake   *time.Timer // arms the earliest timer in real-time mode
	onWake func()      // runs due timers; set by the server
	exec   func(job)   // runs a job; set by the server
	// stopped is set when the server closes: nothing is scheduled, run or
	// armed afterwards.
	stopped bool
}

// timer is a job due at a time.
type timer struct {
	at  time.Time
	seq uint64
	job job
}

// job is a lifecycle transition waiting on the clock. It is data, not a
// closure, so that a snapshot can hold it: save gives its kind and the
// identity of what it acts on (see snapshot_jobs.go), and a loader of that
// kind builds it again. Each kind is a small struct in the file of its
// resource group.
type job interface {
	// run performs the transition, under the server's lock.
	run(s *Server)
	// save returns the job as a snapshot holds it, without its time.
	save() jobSnap
}

type timerHeap []*timer

func (h timerHeap) Len() int { return len(h) }
func (h timerHeap) Less(i, j int) bool {
	if h[i].at.Equal(h[j].at) {
		return h[i].seq < h[j].seq
	}
	return h[i].at.Before(h[j].at)
}
func (h timerHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *timerHeap) Push(x any)   { *h = append(*h, x.(*timer)) }
func (h *timerHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	old[len(old)-1] = nil // the array keeps no popped timer, nor what its work holds, alive
	*h = old[:len(old)-1]
	return t
}

// Now returns the clock's time, in UTC and truncated to milliseconds as the
// API reports times.
func (c *clock) Now() time.Time {
	if c.real {
		return time.Now().UTC().Truncate(time.Millisecond)
	}
	return c.now
}

// after schedules j to run once the clock has moved d past now.
func (c *clock) after(d time.Duration, j job) {
	if c.stopped {
		return
	}
	c.seq++
	heap.Push(&c.timers, &timer{at: c.Now().Add(d), seq: c.seq, job: j})
	c.arm()
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

// runDue runs every timer due at or before until, in order, moving a virtual
// clock to each timer's time as it runs, so that work a timer schedules
// runs in the same pass when it is due by until. It stops after
// MaxAdvanceTransitions, short of until when more are due (see due). It
// returns how many ran.
func (c *clock) runDue(until time.Time) int {
	if c.stopped {
		return 0
	}
	ran := 0
	for len(c.timers) > 0 && !c.timers[0].at.After(until) {
		if ran == MaxAdvanceTransitions {
			c.arm() // a real-time clock runs the rest once the lock is free
			return ran
		}
		t := heap.Pop(&c.timers).(*timer)
		if !c.real && t.at.After(c.now) {
			c.now = t.at
		}
		c.exec(t.job)
		ran++
	}
	if !c.real && until.After(c.now) {
		c.now = until
	}
	c.arm()
	return ran
}

// due reports whether work is scheduled at or before t.
func (c *clock) due(t time.Time) bool {
	return len(c.timers) > 0 && !c.timers[0].at.After(t)
}

// next returns the time of the earliest scheduled work.
func (c *clock) next() (time.Time, bool) {
	if len(c.timers) == 0 {
		return time.Time{}, false
	}
	return c.timers[0].at, true
}

// arm sets the wall-clock timer for the earliest work in real-time mode.
func (c *clock) arm() {
	if !c.real || c.stopped || len(c.timers) == 0 {
		return
	}
	d := time.Until(c.timers[0].at)
	if c.wake == nil {
		c.wake = time.AfterFunc(d, c.onWake)
		return
	}
	c.wake.Reset(d)
}

// stop releases the wall-clock timer for good: work scheduled later (a
// delivery's retry settling as the server closes) or due later is dropped,
// and Advance runs nothing.
func (c *clock) stop() {
	c.stopped = true
	c.timers = nil
	if c.wake != nil {
		c.wake.Stop()
	}
}
