package fake

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/dbplatform/platform-go"
)

// settleDB creates a database through the API, failing the test if the
// server does not answer it.
func settleDB(t *testing.T, s *Server, name string) {
	t.Helper()
	if _, err := s.Client().Databases.Create(t.Context(), &platform.CreateDatabaseParams{Organization: s.Org(), Name: name}); err != nil {
		t.Fatalf("creating database %s: %v", name, err)
	}
}

// panicJob is a transition that panics when it runs, as a job given a
// world it does not expect could.
type panicJob struct{}

func (panicJob) run(*world)          { panic("panicJob ran") }
func (panicJob) save() jobSnap       { return jobSnap{Kind: "test.panic"} }
func (panicJob) keep(sv *saver) bool { return false }

// TestRestoreDueTransitionPanics checks that a restored transition due at
// once that panics is an error of Restore that leaves the server as it
// was (its world, clock and logs), and still serving, rather than a half
// installed world or a panic.
func TestRestoreDueTransitionPanics(t *testing.T) {
	t.Parallel()
	src := NewServer(t)
	settleDB(t, src, "app")
	data, err := src.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	s := NewServer(t, WithSeed(5))
	settleDB(t, s, "mine")
	before, err := s.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	events := len(s.Events())
	snap, err := decodeSnapshot(data)
	if err != nil {
		t.Fatal(err)
	}
	ld := newLoader()
	if err := ld.load(snap); err != nil {
		t.Fatal(err)
	}
	ld.seq++
	ld.timers = append(ld.timers, &timer{At: ld.now, Seq: ld.seq, Job: panicJob{}})
	err = s.restoreLoaded(ld)
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte("panicJob ran")) {
		t.Fatalf("restoreLoaded: %v, want the transition's failure", err)
	}
	if !s.mu.TryLock() {
		t.Error("the server is left locked") // by no goroutine: release it
	}
	s.mu.Unlock()
	after, err := s.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Error("a Restore whose transition failed changed the server")
	}
	if n := len(s.Events()); n != events {
		t.Errorf("%d events after the failed Restore, want %d", n, events)
	}
	settleDB(t, s, "more")
}

// TestAdvancePanicUnlocks checks that a transition that panics on the
// clock leaves the server unlocked: the panic reaches Advance's caller,
// and the server answers afterwards.
func TestAdvancePanicUnlocks(t *testing.T) {
	t.Parallel()
	s := NewServer(t)
	func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.world.clock.After(time.Second, panicJob{})
	}()
	err := func() (err error) {
		defer func() {
			if p := recover(); p != nil {
				err = errors.New("panicked")
			}
		}()
		s.Advance(time.Minute)
		return nil
	}()
	if err == nil {
		t.Fatal("Advance ran the panicking transition without a panic")
	}
	if !s.mu.TryLock() {
		// Held by no goroutine now: release it, so that Close returns.
		t.Error("the server is left locked after the panic")
	}
	s.mu.Unlock()
	settleDB(t, s, "after")
}
