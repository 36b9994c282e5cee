package fake

import (
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"
	"unsafe"
)

// This file gives the tests of package fake_test (snapshot_test.go) a look
// at what a snapshot covers: the world and the rest of a server's state.

// snapState is everything of a server a snapshot holds.
type snapState struct {
	World      *world
	Now        time.Time
	Seq        uint64
	Timers     []*timer
	FailNext   map[string]bool
	Session    oauthSession
	Org        *orgRec
	Admin      *userRec
	AdminToken Token
}

// stateOf returns srv's snapState; the caller holds srv's lock. The
// transitions a snapshot leaves out (of resources gone for good, which do
// nothing) are left out here too.
func stateOf(srv *Server) snapState {
	sv := newSaver(srv.world)
	sv.collect()
	var timers []*timer
	for _, t := range srv.world.clock.Pending() {
		if sv.keepJob(t.Job) {
			timers = append(timers, t)
		}
	}
	return snapState{
		World: srv.world, Now: srv.world.clock.Now(), Seq: srv.world.clock.Seq(), Timers: timers,
		FailNext: srv.world.failNext, Session: srv.session,
		Org: srv.org, Admin: srv.admin, AdminToken: srv.adminToken,
	}
}

// SnapshotStateDiff compares what a snapshot holds of two servers, field by
// field, unexported ones included: "" when b's state is a's rebuilt, else
// the first difference. The two graphs must have the same shape: where a
// has one record reached by two paths, so must b. Maps keyed by records
// are matched by the keys' IDs; an empty map or slice equals a nil one;
// times are compared with Equal.
func SnapshotStateDiff(a, b *Server) string {
	a.mu.RLock()
	defer a.mu.RUnlock()
	b.mu.RLock()
	defer b.mu.RUnlock()
	g := graphDiff{pairs: map[uintptr]uintptr{}}
	g.compare("state", reflect.ValueOf(stateOf(a)), reflect.ValueOf(stateOf(b)))
	return g.diff
}

// graphDiff compares two graphs of records.
type graphDiff struct {
	pairs map[uintptr]uintptr // a's pointers to b's
	diff  string
}

var timeType = reflect.TypeFor[time.Time]()

// worldType's wiring fields are the server's, given to whichever world it
// holds (see Server.adopt), not the world's state: the clock's time and
// timers are compared on their own. taken and held are not state either:
// the IDs and secrets a restored world skips, read from the snapshot it was
// loaded from.
var (
	worldType   = reflect.TypeFor[world]()
	worldWiring = map[string]bool{"clock": true, "timing": true, "base": true, "host": true, "taken": true, "held": true}
)

// lazyPart is what every lazy[T] (the parts of records made on first
// use: branchRec.more, dbRec.more, dbRec.extra, dbRec.workflows,
// keyspaceRec.more, ...) shows the snapshot tests: its part, read as a zero
// T when none was made, so that none made equals none held, and the part's
// type.
type lazyPart interface {
	part() reflect.Value
	partType() reflect.Type
}

func (l *lazy[T]) part() reflect.Value    { return reflect.ValueOf(l.read()) }
func (l *lazy[T]) partType() reflect.Type { return reflect.TypeFor[*T]() }

var lazyPartType = reflect.TypeFor[lazyPart]()

// lazyTypes caches, by type, whether a type is a lazy[T]; see isLazy.
var lazyTypes sync.Map

// isLazy reports whether t is a lazy[T], whose part the walks below
// follow instead of its atomic pointer.
func isLazy(t reflect.Type) bool {
	if v, ok := lazyTypes.Load(t); ok {
		return v.(bool)
	}
	is := t.Kind() == reflect.Struct && reflect.PointerTo(t).Implements(lazyPartType)
	lazyTypes.Store(t, is)
	return is
}

// lazyElem is the type of the part of lazy type t (a pointer).
func lazyElem(t reflect.Type) reflect.Type {
	return reflect.New(t).Interface().(lazyPart).partType()
}

// loadLazy reads the part of an addressable lazy[T], a new T when none was
// made.
func loadLazy(v reflect.Value) reflect.Value {
	return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Interface().(lazyPart).part()
}

func (g *graphDiff) fail(path string, format string, args ...any) {
	if g.diff == "" {
		g.diff = path + ": " + fmt.Sprintf(format, args...)
	}
}

func (g *graphDiff) compare(path string, a, b reflect.Value) {
	if g.diff != "" {
		return
	}
	if isLazy(a.Type()) {
		g.compare(path, loadLazy(a).Elem(), loadLazy(b).Elem())
		return
	}
	if a.Type() == timeType {
		ta, tb := readTime(a), readTime(b)
		if !ta.Equal(tb) {
			g.fail(path, "%s, want %s", tb, ta)
		}
		return
	}
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				g.fail(path, "nil on one side only")
			}
			return
		}
		if a.Type() == reflect.TypeFor[*oauthGrant]() {
			// Grants never change: a snapshot holds each by value, with
			// the code and the token that share it.
			g.compare(path, a.Elem(), b.Elem())
			return
		}
		if p, ok := g.pairs[a.Pointer()]; ok {
			if p != b.Pointer() {
				g.fail(path, "a record the original reaches by another path too is a different one here")
			}
			return
		}
		g.pairs[a.Pointer()] = b.Pointer()
		if a.Pointer() == b.Pointer() {
			return // shared by both, as the regions
		}
		g.compare(path, a.Elem(), b.Elem())
	case reflect.Interface:
		if a.IsNil() || b.IsNil() || a.Elem().Type() != b.Elem().Type() {
			if a.IsNil() != b.IsNil() || (!a.IsNil() && a.Elem().Type() != b.Elem().Type()) {
				g.fail(path, "different dynamic types")
			}
			return
		}
		g.compare(path, a.Elem(), b.Elem())
	case reflect.Slice, reflect.Array:
		if a.Len() != b.Len() {
			g.fail(path, "%d elements, want %d", b.Len(), a.Len())
			return
		}
		for i := range a.Len() {
			g.compare(fmt.Sprintf("%s[%d]", path, i), a.Index(i), b.Index(i))
		}
	case reflect.Map:
		ka, kb := mapByKey(a), mapByKey(b)
		if len(ka) != len(kb) {
			g.fail(path, "%d entries, want %d", len(kb), len(ka))
			return
		}
		for k, va := range ka {
			vb, ok := kb[k]
			if !ok {
				g.fail(path, "no entry %s", k)
				return
			}
			g.compare(path+"["+k+"]", va[1], vb[1])
			if va[0].IsValid() {
				g.compare(path+"{"+k+"}", va[0], vb[0])
			}
		}
	case reflect.Struct:
		for i := range a.NumField() {
			if a.Type() == worldType && worldWiring[a.Type().Field(i).Name] {
				continue
			}
			g.compare(path+"."+a.Type().Field(i).Name, a.Field(i), b.Field(i))
		}
	case reflect.Func, reflect.Chan, reflect.UnsafePointer:
		g.fail(path, "cannot compare a %s", a.Kind())
	default:
		if fmt.Sprint(a) != fmt.Sprint(b) {
			g.fail(path, "%v, want %v", b, a)
		}
	}
}

// mapByKey returns a map's keys and values by a string form of the key (see
// keyName). Keys that hold records are returned too, to be compared.
func mapByKey(m reflect.Value) map[string][2]reflect.Value {
	if m.CanAddr() && !m.CanInterface() {
		// A map in an unexported field: read it as an exported one, so
		// that its struct values can be copied where they are
		// addressable (readTime reads their times).
		m = reflect.NewAt(m.Type(), unsafe.Pointer(m.UnsafeAddr())).Elem()
	}
	out := map[string][2]reflect.Value{}
	for it := m.MapRange(); it.Next(); {
		k, v := it.Key(), it.Value()
		if v.Kind() == reflect.Struct {
			c := reflect.New(v.Type()).Elem()
			c.Set(v)
			v = c
		}
		if k.Kind() == reflect.Pointer || k.Kind() == reflect.Struct {
			out[keyName(k)] = [2]reflect.Value{k, v}
		} else {
			out[keyName(k)] = [2]reflect.Value{reflect.Value{}, v}
		}
	}
	return out
}

// keyName is a string form of a map key: a record's ID for a record, the
// names of its fields for a struct (a branch's database and name).
func keyName(k reflect.Value) string {
	switch k.Kind() {
	case reflect.Pointer:
		return k.Elem().FieldByName("id").String()
	case reflect.Struct:
		parts := make([]string, k.NumField())
		for i := range parts {
			parts[i] = keyName(k.Field(i))
		}
		return "{" + strings.Join(parts, " ") + "}"
	default:
		return fmt.Sprint(k)
	}
}

// readTime reads a time.Time, which may sit in an unexported field of a
// record (addressable, as records are reached through pointers).
func readTime(v reflect.Value) time.Time {
	if v.CanInterface() {
		return v.Interface().(time.Time)
	}
	return *(*time.Time)(unsafe.Pointer(v.UnsafeAddr()))
}

// SnapshotFields returns the fields of every struct type of this package
// that a snapshot's state reaches, as "type.field", with their types.
// Interface fields (the jobs of the clock) are reached by SnapshotFieldsSet.
func SnapshotFields() map[string]string {
	out := map[string]string{}
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		if seen[t] {
			return
		}
		seen[t] = true
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array:
			walk(t.Elem())
		case reflect.Map:
			walk(t.Key())
			walk(t.Elem())
		case reflect.Struct:
			if isLazy(t) {
				walk(lazyElem(t))
				return
			}
			if !ownType(t) {
				return
			}
			for i := range t.NumField() {
				f := t.Field(i)
				if t == worldType && worldWiring[f.Name] {
					continue
				}
				out[typeName(t)+"."+f.Name] = f.Type.String()
				walk(f.Type)
			}
		}
	}
	walk(reflect.TypeFor[snapState]())
	delete(out, "snapState.World") // the roots themselves
	for k := range out {
		if strings.HasPrefix(k, "snapState.") {
			delete(out, k)
		}
	}
	return out
}

// SnapshotFieldsSet adds to set the fields, as "type.field", that hold a
// value other than their zero somewhere in srv's state, jobs included.
func SnapshotFieldsSet(srv *Server, set map[string]bool) {
	srv.mu.RLock()
	defer srv.mu.RUnlock()
	st := stateOf(srv)
	visited := map[uintptr]bool{}
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Pointer:
			if v.IsNil() || visited[v.Pointer()] {
				return
			}
			visited[v.Pointer()] = true
			walk(v.Elem())
		case reflect.Interface:
			if !v.IsNil() {
				walk(v.Elem())
			}
		case reflect.Slice, reflect.Array:
			for i := range v.Len() {
				walk(v.Index(i))
			}
		case reflect.Map:
			for it := v.MapRange(); it.Next(); {
				walk(it.Key())
				walk(it.Value())
			}
		case reflect.Struct:
			if isLazy(v.Type()) {
				walk(loadLazy(v))
				return
			}
			keys := fieldKeysOf(v.Type())
			for i, key := range keys {
				if key == "" {
					continue
				}
				f := v.Field(i)
				if !f.IsZero() && v.Type() != reflect.TypeFor[snapState]() {
					set[key] = true
				}
				walk(f)
			}
		}
	}
	walk(reflect.ValueOf(st))
}

// fieldKeys caches, by struct type, fieldKeysOf's answer.
var fieldKeys sync.Map

// fieldKeysOf returns, for each field of struct type t, its name as
// SnapshotFieldsSet gives it ("type.field"), or "" for a field the walk
// skips (a world's wiring); none for a type of another package.
func fieldKeysOf(t reflect.Type) []string {
	if keys, ok := fieldKeys.Load(t); ok {
		return keys.([]string)
	}
	var keys []string
	if ownType(t) {
		keys = make([]string, t.NumField())
		for i := range keys {
			if name := t.Field(i).Name; t != worldType || !worldWiring[name] {
				keys[i] = typeName(t) + "." + name
			}
		}
	}
	fieldKeys.Store(t, keys)
	return keys
}

// ownType reports whether t is a type of this package or of one of its
// internal packages.
func ownType(t reflect.Type) bool {
	own := reflect.TypeFor[world]().PkgPath()
	return t.PkgPath() == own || strings.HasPrefix(t.PkgPath(), own+"/internal/")
}

// typeName is t's name without type arguments: "Index" for index[*dbRec].
func typeName(t reflect.Type) string {
	name, _, _ := strings.Cut(t.Name(), "[")
	return name
}

// AuthExportStates lists org's authentication-attempt exports as
// "id state", in the order they were asked for, for the operation tables'
// view of a world (the API lists none).
func AuthExportStates(srv *Server, org string) []string {
	srv.mu.RLock()
	defer srv.mu.RUnlock()
	var out []string
	if o := srv.world.orgs[org]; o != nil {
		for _, x := range o.peekAuth().exports.All() {
			out = append(out, x.id+" "+string(x.state))
		}
	}
	return out
}

// PollAhead wraps base, a transport to srv, as srv's own clients' is
// wrapped: a waiter's poll moves srv's clock to the moment its condition
// holds, and learns when nothing scheduled can move what it polls (see
// [Server.Client]).
func PollAhead(srv *Server, base http.RoundTripper) http.RoundTripper {
	return pollAhead{s: srv, base: base}
}

// OpenConns returns how many connections srv's HTTP server holds open.
func OpenConns(srv *Server) int {
	srv.conns.mu.Lock()
	defer srv.conns.mu.Unlock()
	return len(srv.conns.state)
}

// HTTPClientOver returns an HTTP client like the one of srv's clients,
// whose transport, under the fake's, is wrap of srv's own.
func (s *Server) HTTPClientOver(wrap func(http.RoundTripper) http.RoundTripper) *http.Client {
	return &http.Client{Transport: pollAhead{s: s, base: wrap(s.transport)}}
}

// DropTransitions removes every transition waiting on srv's clock and
// leaves its resources as they are: states no call of the API leaves (a
// snapshot of them is refused), for the tests of waiters on resources
// that nothing will move.
func DropTransitions(srv *Server) {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	c := srv.world.clock
	c.Restore(c.Now(), c.Seq(), nil)
}

// TransitionKinds lists the kinds of transition a snapshot may hold (the
// keys of jobLoaders), sorted.
func TransitionKinds() []string {
	return slices.Sorted(maps.Keys(jobLoaders))
}

// PendingTransitionKinds lists the kinds of the transitions waiting on
// srv's clock (a snapshot holds those whose records it saves).
func PendingTransitionKinds(srv *Server) []string {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	var kinds []string
	for j := range srv.world.clock.Jobs() {
		kinds = append(kinds, j.save().Kind)
	}
	return kinds
}
