package fake

import (
	"time"
)

// Event is something that happened in the fake: a lifecycle transition,
// named as the API's webhook events are ("branch.ready",
// "deploy_request.opened", ...). Every transition emits its events through
// one stream, which tests read with [Server.Events] and webhooks deliver.
type Event struct {
	// Name is the event's name.
	Name string
	// Organization and Database say where it happened.
	Organization, Database string
	// Resource is the object the event is about, as the API renders it
	// (a *platform.Branch for branch events, ...).
	Resource any
	// At is the fake's time when it happened.
	At time.Time
}

// events is the stream of emitted events.
type events struct {
	list []Event
}

// emit records an event and sends it to the database's webhooks; the
// caller holds the server's lock.
func (s *Server) emit(name string, db *dbRec, resource any) {
	ev := Event{
		Name:         name,
		Organization: db.org.name,
		Database:     db.name,
		Resource:     resource,
		At:           s.clock.Now(),
	}
	s.events.list = append(s.events.list, ev)
	s.deliverEvent(ev, db)
}

// Events returns the events emitted so far, oldest first.
func (s *Server) Events() []Event {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return append([]Event(nil), s.events.list...)
}

// EventNames returns the names of the events emitted so far, oldest first:
// a compact form for assertions.
func (s *Server) EventNames() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]string, len(s.events.list))
	for i, e := range s.events.list {
		out[i] = e.Name
	}
	return out
}
