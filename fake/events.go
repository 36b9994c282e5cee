package fake

import (
	"encoding/json"
	"reflect"
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
	// Resource is the object the event is about, as the API rendered it
	// when the event happened (a *platform.Branch for branch events, ...),
	// or the value given to [Server.Emit].
	Resource any
	// At is the fake's time when it happened.
	At time.Time
}

// eventRec is an event as the log keeps it. A resource the fake rendered
// for the event is the event's own: render functions build a fresh value
// whose pointers and slices no record changes in place (the records
// replace what they hold), so it stays as it was when the event happened.
// It is encoded only when something reads it (a delivery, [Server.Events])
// rather than for every transition, and each read of Events decodes a
// fresh copy from its JSON; a resource given to Emit is kept and read as
// given.
type eventRec struct {
	name, org, db string
	at            time.Time
	resource      any
	given         bool // resource was given to Emit, not rendered by the fake
}

// event renders the record: a fresh copy of a rendered resource each time.
func (e *eventRec) event() Event {
	ev := Event{Name: e.name, Organization: e.org, Database: e.db, At: e.at, Resource: e.resource}
	if e.given {
		return ev
	}
	raw, err := json.Marshal(e.resource)
	if err != nil { // the fake's own types always encode; read it as it is if one did not
		return ev
	}
	v := reflect.New(reflect.TypeOf(e.resource).Elem())
	_ = json.Unmarshal(raw, v.Interface()) // the fake's own encoding of the same type
	ev.Resource = v.Interface()
	return ev
}

// resourceJSON is the JSON of the event's resource.
func (e *eventRec) resourceJSON() ([]byte, error) { return json.Marshal(e.resource) }

// emit records an event about db with resource, a value the fake rendered
// for it (a *platform.Branch, ...) that nothing else holds, and sends it
// to the database's webhooks; the caller holds the server's lock.
func (w *world) emit(name string, db *dbRec, resource any) {
	w.host.record(&eventRec{name: name, resource: resource}, db)
}

// record stamps an event with its place and time, adds it to the log and
// sends it to the database's webhooks; the caller holds the server's lock.
func (s *Server) record(e *eventRec, db *dbRec) {
	e.stamp(db, s.world.clock.Now())
	s.events.add(e)
	s.deliverEvent(e, db)
}

// stamp gives an event its place and time.
func (e *eventRec) stamp(db *dbRec, at time.Time) {
	e.org, e.db, e.at = db.org.name, db.name, at
}

// Events returns the events emitted so far, oldest first: the most recent
// ones, up to [WithEventLogLimit].
func (s *Server) Events() []Event {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]Event, 0, s.events.len())
	s.events.all(func(e *eventRec) { out = append(out, e.event()) })
	return out
}

// EventNames returns the names of the events of [Server.Events], oldest
// first: a compact form for assertions.
func (s *Server) EventNames() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]string, 0, s.events.len())
	s.events.all(func(e *eventRec) { out = append(out, e.name) })
	return out
}
