package clock

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// log is what the jobs of a test run against: each job appends its name.
type log struct {
	ran []string
	c   *Clock[func(*log)]
}

func newLog() *log {
	l := &log{}
	l.c = New(false, t0, func(j func(*log)) { j(l) }, nil)
	return l
}

// named is a job that records its name and the clock's time.
func named(name string) func(*log) {
	return func(l *log) { l.ran = append(l.ran, name+"@"+l.c.Now().Sub(t0).String()) }
}

func TestRunDueRunsInTimeThenScheduleOrder(t *testing.T) {
	t.Parallel()
	l := newLog()
	l.c.After(2*time.Second, named("b"))
	l.c.After(time.Second, named("a"))
	l.c.After(2*time.Second, named("c")) // same time as b, scheduled after it
	l.c.After(time.Second, func(l *log) {
		named("d")(l)
		l.c.After(time.Second, named("e")) // due at 2s: runs in the same pass
	})
	l.c.After(time.Hour, named("late"))
	if n := l.c.RunDue(t0.Add(5*time.Second), 100); n != 5 {
		t.Errorf("RunDue ran %d jobs, want 5", n)
	}
	want := []string{"a@1s", "d@1s", "b@2s", "c@2s", "e@2s"}
	if diff := cmp.Diff(want, l.ran); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	if got := l.c.Now(); !got.Equal(t0.Add(5 * time.Second)) {
		t.Errorf("Now = %v, want the time moved to", got)
	}
	if next, ok := l.c.Next(); !ok || !next.Equal(t0.Add(time.Hour)) || l.c.Len() != 1 {
		t.Errorf("Next = %v, %v with %d waiting; want the late job alone", next, ok, l.c.Len())
	}
	if l.c.Seq() != 6 {
		t.Errorf("Seq = %d, want 6", l.c.Seq())
	}
}

func TestRunDueStopsAtTheLimit(t *testing.T) {
	t.Parallel()
	l := newLog()
	for _, n := range []string{"a", "b", "c"} {
		l.c.After(time.Second, named(n))
	}
	l.c.After(3*time.Second, named("d"))
	if n := l.c.RunDue(t0.Add(time.Minute), 2); n != 2 {
		t.Fatalf("RunDue ran %d, want the limit, 2", n)
	}
	if got := l.c.Now(); !got.Equal(t0.Add(time.Second)) {
		t.Errorf("Now = %v, want the time of the last job run", got)
	}
	if !l.c.Due(t0.Add(time.Minute)) {
		t.Error("Due reports nothing left, with two jobs due")
	}
	l.c.RunDue(t0.Add(time.Minute), 2)
	if diff := cmp.Diff([]string{"a@1s", "b@1s", "c@1s", "d@3s"}, l.ran); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

func TestPendingAndRestore(t *testing.T) {
	t.Parallel()
	l := newLog()
	l.c.After(3*time.Second, named("c"))
	l.c.After(time.Second, named("a"))
	l.c.After(time.Second, named("b"))
	var order []uint64
	for _, tm := range l.c.Pending() {
		order = append(order, tm.Seq)
	}
	if diff := cmp.Diff([]uint64{2, 3, 1}, order); diff != "" {
		t.Errorf("Pending order by Seq (-want +got):\n%s", diff)
	}
	jobs := 0
	for range l.c.Jobs() {
		jobs++
	}
	if jobs != 3 {
		t.Errorf("Jobs yields %d, want 3", jobs)
	}

	// A second clock restored from the first runs the same jobs the same.
	r := newLog()
	r.c.Restore(l.c.Now(), l.c.Seq(), l.c.Pending())
	r.c.RunDue(t0.Add(time.Minute), 100)
	if diff := cmp.Diff([]string{"a@1s", "b@1s", "c@3s"}, r.ran); diff != "" {
		t.Errorf("restored order (-want +got):\n%s", diff)
	}
	r.c.After(0, named("next"))
	if r.c.Pending()[0].Seq != 4 {
		t.Error("a restored clock does not go on from the saved sequence number")
	}
}

func TestStopDropsEverything(t *testing.T) {
	t.Parallel()
	l := newLog()
	l.c.After(time.Second, named("a"))
	l.c.Stop()
	l.c.After(time.Second, named("b"))
	if n := l.c.RunDue(t0.Add(time.Minute), 100); n != 0 || l.c.Len() != 0 || len(l.ran) != 0 {
		t.Errorf("a stopped clock ran %d jobs (%v), holds %d", n, l.ran, l.c.Len())
	}
}

func TestRealClockFollowsTheWallClock(t *testing.T) {
	t.Parallel()
	c := New(true, t0, func(func()) {}, func() {})
	if !c.Real() {
		t.Fatal("Real = false for a real clock")
	}
	if got := c.Now(); got.Before(time.Now().Add(-time.Hour)) || got.Location() != time.UTC || got.Nanosecond()%int(time.Millisecond) != 0 {
		t.Errorf("Now = %v, want the wall clock's time in UTC, in milliseconds", got)
	}
	c.Stop()
}
