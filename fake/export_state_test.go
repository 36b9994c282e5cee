package fake

import (
	"encoding/json"
	"reflect"
)

// This file gives the tests of package fake_test a cheap way to tell
// whether a request changed a server: its snapshot, which holds every
// resource and everything that decides what the API shows next.

// StateJSON returns srv's snapshot (see [Server.Snapshot]), compact,
// without what every authenticated request records, refused or not: the
// service tokens' and OAuth access tokens' last use. Two are equal when
// nothing a request may change has changed. It is the JSON of srv's
// State (StateOf), without copying it.
func StateJSON(srv *Server) (string, error) {
	srv.mu.RLock()
	snap, err := srv.save()
	srv.mu.RUnlock()
	if err != nil {
		return "", err
	}
	return State{snap: withoutLastUse(snap)}.JSON()
}

// State is what StateJSON encodes of a server, kept as the values a
// snapshot encodes, in a copy that shares no memory with the server
// (copySnap: a snapshot's records may share parts with the world's, such
// as a keyspace's tables): what the server changes later leaves it as it
// was.
type State struct {
	snap *worldSnap
}

// StateOf returns srv's State.
func StateOf(srv *Server) (State, error) {
	srv.mu.RLock()
	snap, err := srv.save()
	if err == nil {
		snap = copySnap(snap) // under the lock: it reads the world's parts
	}
	srv.mu.RUnlock()
	if err != nil {
		return State{}, err
	}
	return State{snap: withoutLastUse(snap)}, nil
}

// withoutLastUse sets to zero, in snap, what every authenticated request
// records: the tokens' last use. It returns snap.
func withoutLastUse(snap *worldSnap) *worldSnap {
	for i := range snap.ServiceTokens {
		snap.ServiceTokens[i].LastUsed = 0
	}
	for i := range snap.OAuthApps {
		for j := range snap.OAuthApps[i].Tokens {
			snap.OAuthApps[i].Tokens[j].LastUsed = 0
		}
	}
	return snap
}

// JSON returns the state as StateJSON does.
func (s State) JSON() (string, error) {
	b, err := json.Marshal(s.snap)
	return string(b), err
}

// Equal reports whether s and o encode to the same JSON (their JSON
// compared, as StateJSON's are). Values deeply equal encode the same, and
// are not encoded: only states whose values differ are, and compared as
// JSON, which may still be equal (a nil slice and an empty one both
// omitted). A state that does not encode equals none.
func (s State) Equal(o State) bool {
	if reflect.DeepEqual(s.snap, o.snap) {
		return true
	}
	a, errA := s.JSON()
	b, errB := o.JSON()
	return errA == nil && errB == nil && a == b
}

// StateShares returns the path of the first pointer, slice or map st
// shares with a snapshot of srv built now (which may share parts with the
// world), or "".
func StateShares(st State, srv *Server) string {
	srv.mu.RLock()
	defer srv.mu.RUnlock()
	snap, err := srv.save()
	if err != nil {
		return err.Error()
	}
	return sharedMemory(reflect.ValueOf(st.snap).Elem(), reflect.ValueOf(snap).Elem(), "state")
}
