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

// eventRec is an event as the log keeps it. The fake's own resources are
// kept as the JSON the API renders (the bytes webhooks are sent), one
// allocation without pointers, and decoded again on read; a resource given
// to Emit is kept as given.
type eventRec struct {
	name, org, db string
	at            time.Time
	raw           []byte       // the resource's JSON, when typ is set
	typ           reflect.Type // the pointer type raw decodes into
	given         any          // the resource given to Emit, when typ is nil
}

// event renders the record: a fresh copy of the resource each time.
func (e *eventRec) event() Event {
	ev := Event{Name: e.name, Organization: e.org, Database: e.db, At: e.at, Resource: e.given}
	if e.typ != nil {
		v := reflect.New(e.typ.Elem())
		_ = json.Unmarshal(e.raw, v.Interface()) // the fake's own encoding of the same type
		ev.Resource = v.Interface()
	}
	return ev
}

// resourceJSON is the JSON of the event's resource.
func (e *eventRec) resourceJSON() ([]byte, error) {
	if e.typ != nil {
		return e.raw, nil
	}
	return json.Marshal(e.given)
}

// emit records an event about db with resource, an object the fake
// rendered (a *platform.Branch, ...), and sends it to the database's
// webhooks; the caller holds the server's lock.
func (w *world) emit(name string, db *dbRec, resource any) {
	raw, err := json.Marshal(resource)
	if err != nil { // the fake's own types always encode; keep it if one did not
		w.host.record(&eventRec{name: name, given: resource}, db)
		return
	}
	w.host.record(&eventRec{name: name, raw: raw, typ: reflect.TypeOf(resource)}, db)
}

// record stamps an event with its place and time, adds it to the log and
// sends it to the database's webhooks; the caller holds the server's lock.
func (s *Server) record(e *eventRec, db *dbRec) {
	e.org, e.db, e.at = db.org.name, db.name, s.world.clock.Now()
	s.events.add(e)
	s.deliverEvent(e, db)
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
