package fake

import (
	"reflect"
	"strings"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
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
	for _, t := range srv.clock.sorted() {
		if sv.keepJob(t.job) {
			timers = append(timers, t)
		}
	}
	return snapState{
		World: srv.world, Now: srv.clock.Now(), Seq: srv.clock.seq, Timers: timers,
		FailNext: srv.failNext, Session: srv.session,
		Org: srv.org, Admin: srv.admin, AdminToken: srv.adminToken,
	}
}

// SnapshotStateDiff compares what a snapshot holds of two servers, field by
// field, unexported ones included: "" when b's state is a's rebuilt.
// Records in maps keyed by a record are matched by the key's ID; an empty
// map or slice equals a nil one.
func SnapshotStateDiff(a, b *Server) string {
	a.mu.RLock()
	defer a.mu.RUnlock()
	b.mu.RLock()
	defer b.mu.RUnlock()
	return cmp.Diff(stateOf(a), stateOf(b),
		cmp.Exporter(func(reflect.Type) bool { return true }),
		cmpopts.EquateEmpty(),
		cmp.Transformer("byBranchID", func(m map[*branchRec]*branchBackups) map[string]*branchBackups {
			out := map[string]*branchBackups{}
			for k, v := range m {
				out[k.id] = v
			}
			return out
		}),
		cmp.Transformer("byOrgID", func(m map[*orgRec]*index[*oauthAppRec]) map[string]*index[*oauthAppRec] {
			out := map[string]*index[*oauthAppRec]{}
			for k, v := range m {
				out[k.id] = v
			}
			return out
		}),
	)
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
			if !ownType(t) {
				return
			}
			for i := range t.NumField() {
				f := t.Field(i)
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
			if !ownType(v.Type()) {
				return
			}
			for i := range v.NumField() {
				f := v.Field(i)
				if !f.IsZero() {
					set[typeName(v.Type())+"."+v.Type().Field(i).Name] = true
				}
				walk(f)
			}
		}
	}
	walk(reflect.ValueOf(st))
}

// ownType reports whether t is a type of this package.
func ownType(t reflect.Type) bool {
	return t.PkgPath() == reflect.TypeFor[world]().PkgPath()
}

// typeName is t's name without type arguments: "index" for index[*dbRec].
func typeName(t reflect.Type) string {
	name, _, _ := strings.Cut(t.Name(), "[")
	return name
}
