package clock

import (
	"cmp"
	"container/heap"
	"iter"
	"slices"
	"time"
)

// Clock is the time of a simulated world, and the jobs of type J waiting
// on it.
type Clock[J any] struct {
	real   bool
	now    time.Time // virtual time; unused when real
	timers timerHeap[J]
	seq    uint64
	wake   *time.Timer // arms the earliest timer in real-time mode
	onWake func()      // runs due timers in real-time mode
	exec   func(J)     // runs a job
	// stopped is set by Stop: nothing is scheduled, run or armed
	// afterwards.
	stopped bool
}

// New returns a clock at start, virtual unless real. exec runs a due job;
// onWake, in real-time mode, is called from a timer's goroutine when work
// comes due, and should run it (with RunDue, under the caller's lock).
func New[J any](real bool, start time.Time, exec func(J), onWake func()) *Clock[J] {
	return &Clock[J]{real: real, now: start, exec: exec, onWake: onWake}
}

// Timer is a job due at a time.
type Timer[J any] struct {
	// At is when the job is due.
	At time.Time
	// Seq orders the jobs due at the same time: the order they were
	// scheduled in.
	Seq uint64
	// Job is what runs.
	Job J
}

type timerHeap[J any] []*Timer[J]

func (h timerHeap[J]) Len() int { return len(h) }
func (h timerHeap[J]) Less(i, j int) bool {
	if h[i].At.Equal(h[j].At) {
		return h[i].Seq < h[j].Seq
	}
	return h[i].At.Before(h[j].At)
}
func (h timerHeap[J]) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *timerHeap[J]) Push(x any)   { *h = append(*h, x.(*Timer[J])) }
func (h *timerHeap[J]) Pop() any {
	old := *h
	t := old[len(old)-1]
	old[len(old)-1] = nil // the array keeps no popped timer, nor what its job holds, alive
	*h = old[:len(old)-1]
	return t
}

// Real reports whether the clock follows the wall clock.
func (c *Clock[J]) Real() bool { return c.real }

// Now returns the clock's time, in UTC and truncated to milliseconds as the
// API reports times.
func (c *Clock[J]) Now() time.Time {
	if c.real {
		return time.Now().UTC().Truncate(time.Millisecond)
	}
	return c.now
}

// Seq is the sequence number of the last job scheduled.
func (c *Clock[J]) Seq() uint64 { return c.seq }

// After schedules j to run once the clock has moved d past now.
func (c *Clock[J]) After(d time.Duration, j J) {
	if c.stopped {
		return
	}
	c.seq++
	heap.Push(&c.timers, &Timer[J]{At: c.Now().Add(d), Seq: c.seq, Job: j})
	c.arm()
}

// RunDue runs every job due at or before until, in order, moving a
// virtual clock to each job's time as it runs, so that a job scheduled by
// another runs in the same pass when it is due by until. It stops after
// limit jobs, short of until when more are due (see Due): a virtual clock
// stays at the time of the last job run, and a real-time clock arms its
// timer to run the rest. It returns how many ran.
func (c *Clock[J]) RunDue(until time.Time, limit int) int {
	if c.stopped {
		return 0
	}
	ran := 0
	for len(c.timers) > 0 && !c.timers[0].At.After(until) {
		if ran == limit {
			c.arm() // a real-time clock runs the rest once the caller lets it
			return ran
		}
		t := heap.Pop(&c.timers).(*Timer[J])
		if !c.real && t.At.After(c.now) {
			c.now = t.At
		}
		c.exec(t.Job)
		ran++
	}
	if !c.real && until.After(c.now) {
		c.now = until
	}
	c.arm()
	return ran
}

// Due reports whether a job is scheduled at or before t.
func (c *Clock[J]) Due(t time.Time) bool {
	return len(c.timers) > 0 && !c.timers[0].At.After(t)
}

// Next returns the time of the earliest job.
func (c *Clock[J]) Next() (time.Time, bool) {
	if len(c.timers) == 0 {
		return time.Time{}, false
	}
	return c.timers[0].At, true
}

// Len is the number of jobs waiting.
func (c *Clock[J]) Len() int { return len(c.timers) }

// Jobs yields the jobs waiting, in no particular order.
func (c *Clock[J]) Jobs() iter.Seq[J] {
	return func(yield func(J) bool) {
		for _, t := range c.timers {
			if !yield(t.Job) {
				return
			}
		}
	}
}

// Pending returns the jobs waiting with their times, in the order they
// run.
func (c *Clock[J]) Pending() []*Timer[J] {
	out := slices.Clone([]*Timer[J](c.timers))
	slices.SortFunc(out, func(a, b *Timer[J]) int {
		if c := a.At.Compare(b.At); c != 0 {
			return c
		}
		return cmp.Compare(a.Seq, b.Seq)
	})
	return out
}

// Restore replaces the clock's jobs and sequence number, as Pending and
// Seq gave them, and moves a virtual clock to now (a real one keeps the
// wall clock's time, and arms its timer for the earliest job). The caller
// then runs what is due with RunDue, or lets the timer do it.
func (c *Clock[J]) Restore(now time.Time, seq uint64, timers []*Timer[J]) {
	if !c.real {
		c.now = now
	}
	c.seq = seq
	c.timers = timerHeap[J](timers)
	heap.Init(&c.timers)
	c.arm()
}

// arm sets the wall-clock timer for the earliest job in real-time mode.
func (c *Clock[J]) arm() {
	if !c.real || c.stopped || len(c.timers) == 0 {
		return
	}
	d := time.Until(c.timers[0].At)
	if c.wake == nil {
		c.wake = time.AfterFunc(d, c.onWake)
		return
	}
	c.wake.Reset(d)
}

// Stop releases the wall-clock timer for good: jobs scheduled later or
// due later are dropped, and RunDue runs nothing.
func (c *Clock[J]) Stop() {
	c.stopped = true
	c.timers = nil
	if c.wake != nil {
		c.wake.Stop()
	}
}
