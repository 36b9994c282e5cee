package fake

import "fmt"

// failNextOf makes the next transition of id fail; id must name a
// resource with transitions ahead.
func (w *world) failNextOf(id string) error {
	if !w.failable(id) {
		return fmt.Errorf("no resource %q with a transition ahead", id)
	}
	if w.failNext == nil {
		w.failNext = map[string]bool{}
	}
	w.failNext[id] = true
	return nil
}

// takeFailure reports whether the next transition of id must fail, and
// consumes the instruction.
func (w *world) takeFailure(id string) bool {
	if !w.failNext[id] {
		return false
	}
	delete(w.failNext, id)
	return true
}

// failable reports whether id names a resource with transitions ahead.
func (w *world) failable(id string) bool { return w.inFlight[id] }

// startFlight marks a resource as having transitions ahead, so that
// FailNext accepts its ID.
func (w *world) startFlight(id string) { w.inFlight[id] = true }

// endFlight marks a resource as settled.
func (w *world) endFlight(id string) { delete(w.inFlight, id) }
