package fake

import "fmt"

// FailNext makes the next transition of the resource with the given ID fail:
// a backup or a switchover ends failed, a deployment ends in error, a
// bouncer resize ends canceled, a workflow's next step ends in error (from
// which retry runs it again). The ID must be of a resource that exists
// and has transitions ahead of it.
func (s *Server) FailNext(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.failable(id) {
		return fmt.Errorf("fake: FailNext: no resource %q with a transition ahead", id)
	}
	if s.failNext == nil {
		s.failNext = map[string]bool{}
	}
	s.failNext[id] = true
	return nil
}

// takeFailure reports whether the next transition of id must fail, and
// consumes the instruction.
func (s *Server) takeFailure(id string) bool {
	if !s.failNext[id] {
		return false
	}
	delete(s.failNext, id)
	return true
}

// failable reports whether id names a resource with transitions ahead.
func (s *Server) failable(id string) bool { return s.world.inFlight[id] }

// startFlight marks a resource as having transitions ahead, so that
// FailNext accepts its ID.
func (w *world) startFlight(id string) { w.inFlight[id] = true }

// endFlight marks a resource as settled.
func (w *world) endFlight(id string) { delete(w.inFlight, id) }
