package fake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"sync"
)

// This file gives the tests of package fake_test a cheap way to restore the
// same world again and again (the operation tables restore a few prepared
// worlds thousands of times): the snapshot is decoded once, and each
// restore loads a copy of the decoded records, as Restore loads the ones
// it decodes. Restore's own decoding is tested on its own (snapshot_test.go,
// fuzz_restore_test.go).

// Template is a snapshot decoded once, which [Server.RestoreTemplate]
// loads into a server.
type Template struct {
	snap  *worldSnap
	taken takenIDs    // read only: the worlds restored share it
	held  heldSecrets // likewise
}

// NewTemplate decodes data, a snapshot from [Server.Snapshot], as Restore
// does, and keeps the result.
func NewTemplate(data []byte) (*Template, error) {
	snap, err := decodeSnapshot(data)
	if err != nil {
		return nil, fmt.Errorf("fake: NewTemplate: %w", err)
	}
	taken, held := scanTakenIDs(data)
	return &Template{snap: snap, taken: taken, held: held}, nil
}

// RestoreTemplate replaces the server's state with the template's, as
// Restore does with the snapshot the template was decoded from: the loader
// builds the world from a copy of the template's records (a world may keep
// parts of what it was loaded from, and change them), then the server
// installs it.
func (s *Server) RestoreTemplate(tp *Template) error {
	ld := newLoader()
	if err := ld.load(copySnap(tp.snap)); err != nil {
		return fmt.Errorf("fake: RestoreTemplate: corrupt snapshot: %w", err)
	}
	ld.w.taken, ld.w.held = tp.taken, tp.held
	if err := s.restoreLoaded(ld); err != nil {
		return fmt.Errorf("fake: RestoreTemplate: corrupt snapshot: %w", err)
	}
	return nil
}

// copySnap returns a deep copy of snap, which shares no memory a world may
// change with it.
func copySnap(snap *worldSnap) *worldSnap {
	c := new(worldSnap)
	deepCopy(reflect.ValueOf(c).Elem(), reflect.ValueOf(snap).Elem())
	c.ids, c.flyable = maps.Clone(snap.ids), maps.Clone(snap.flyable) // unexported: set as they are
	return c
}

// deepCopy sets dst, settable and of src's type, to a copy of src: new
// pointers, slices and maps all the way down. The records of a snapshot
// are trees of exported fields (JSON decodes them), with times, whose
// unexported fields are values or an immutable *time.Location, at the
// leaves; a struct with other unexported fields would be copied shallowly,
// which TestRestoreTemplate rules out (TemplateCopyShares).
func deepCopy(dst, src reflect.Value) {
	switch src.Kind() {
	case reflect.Pointer:
		if src.IsNil() {
			return
		}
		p := reflect.New(src.Type().Elem())
		deepCopy(p.Elem(), src.Elem())
		dst.Set(p)
	case reflect.Slice:
		if src.IsNil() {
			return
		}
		s := reflect.MakeSlice(src.Type(), src.Len(), src.Len())
		if copyPlan(src.Type().Elem()).plain {
			reflect.Copy(s, src)
		} else {
			for i := range src.Len() {
				deepCopy(s.Index(i), src.Index(i))
			}
		}
		dst.Set(s)
	case reflect.Map:
		if src.IsNil() {
			return
		}
		m := reflect.MakeMapWithSize(src.Type(), src.Len())
		for it := src.MapRange(); it.Next(); {
			k := reflect.New(src.Type().Key()).Elem()
			deepCopy(k, it.Key())
			v := reflect.New(src.Type().Elem()).Elem()
			deepCopy(v, it.Value())
			m.SetMapIndex(k, v)
		}
		dst.Set(m)
	case reflect.Array:
		for i := range src.Len() {
			deepCopy(dst.Index(i), src.Index(i))
		}
	case reflect.Interface:
		if src.IsNil() {
			return
		}
		v := reflect.New(src.Elem().Type()).Elem()
		deepCopy(v, src.Elem())
		dst.Set(v)
	case reflect.Struct:
		dst.Set(src) // the unexported fields too (a time's)
		for _, i := range copyPlan(src.Type()).deep {
			deepCopy(dst.Field(i), src.Field(i))
		}
	default:
		dst.Set(src)
	}
}

// typeCopy is how deepCopy copies a value of a type: plain when the value
// holds no pointer, slice, map or interface a copy could share (numbers,
// bools, strings, which are immutable, times, and structs and arrays of
// them), so that assigning it copies it; else, for a struct, the indexes
// of its exported fields that are not plain.
type typeCopy struct {
	plain bool
	deep  []int
}

// copyPlans holds each type's typeCopy, worked out once.
var copyPlans sync.Map // reflect.Type → typeCopy

// copyPlan returns t's typeCopy.
func copyPlan(t reflect.Type) typeCopy {
	if p, ok := copyPlans.Load(t); ok {
		return p.(typeCopy)
	}
	var p typeCopy
	switch t.Kind() {
	case reflect.Bool, reflect.String,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		p.plain = true
	case reflect.Array:
		p.plain = copyPlan(t.Elem()).plain
	case reflect.Struct:
		if t == timeType {
			p.plain = true // its location is shared, and immutable
			break
		}
		p.plain = true
		for i := range t.NumField() {
			f := t.Field(i)
			if !copyPlan(f.Type).plain {
				p.plain = false
				if f.IsExported() {
					p.deep = append(p.deep, i)
				}
			}
		}
	}
	copyPlans.Store(t, p)
	return p
}

// TemplateCopyShares copies the template's records as RestoreTemplate does
// and returns the path of the first pointer, slice or map the copy shares
// with them, or "".
func TemplateCopyShares(tp *Template) string {
	return sharedMemory(reflect.ValueOf(copySnap(tp.snap)).Elem(), reflect.ValueOf(tp.snap).Elem(), "snapshot")
}

// sharedMemory walks a and b, of one type, side by side, and returns the
// path of the first pointer, slice or map they share, or "".
func sharedMemory(a, b reflect.Value, path string) string {
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return ""
		}
		if a.Pointer() == b.Pointer() {
			return path
		}
		return sharedMemory(a.Elem(), b.Elem(), path)
	case reflect.Slice:
		if a.Len() > 0 && b.Len() > 0 && a.Pointer() == b.Pointer() {
			return path
		}
		for i := range min(a.Len(), b.Len()) {
			if p := sharedMemory(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i)); p != "" {
				return p
			}
		}
	case reflect.Map:
		if !a.IsNil() && !b.IsNil() && a.Pointer() == b.Pointer() {
			return path
		}
		for it := a.MapRange(); it.Next(); {
			if bv := b.MapIndex(it.Key()); bv.IsValid() {
				if p := sharedMemory(it.Value(), bv, fmt.Sprintf("%s[%v]", path, it.Key())); p != "" {
					return p
				}
			}
		}
	case reflect.Array:
		for i := range a.Len() {
			if p := sharedMemory(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i)); p != "" {
				return p
			}
		}
	case reflect.Interface:
		if !a.IsNil() && !b.IsNil() && a.Elem().Type() == b.Elem().Type() {
			return sharedMemory(a.Elem(), b.Elem(), path)
		}
	case reflect.Struct:
		if a.Type() == timeType {
			return "" // its location is shared, and immutable
		}
		for i := range a.NumField() {
			if p := sharedMemory(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name); p != "" {
				return p
			}
		}
	}
	return ""
}

// SnapshotDecodeCost runs Restore's pre-pass (decodeCost) over data, a
// snapshot, with the limit Restore gives it.
func SnapshotDecodeCost(data []byte) error {
	return decodeCost(data, reflect.TypeFor[worldSnap](), maxDecodeCost(len(data)))
}

// SnapshotCompact returns srv's snapshot as [Server.Snapshot] does, not
// indented: two are equal when the two snapshots are (indenting is a
// function of the compact form), and it is cheaper to make.
func SnapshotCompact(srv *Server) ([]byte, error) {
	srv.mu.RLock()
	snap, err := srv.save()
	srv.mu.RUnlock()
	if err != nil {
		return nil, err
	}
	return json.Marshal(snap)
}

// SameSnapshots reports whether a and b give the same snapshot, and when
// not returns the two compact snapshots (SnapshotCompact). It compares
// what Snapshot encodes with reflect.DeepEqual first: values deeply equal
// encode the same (the encoding is a function of the value), and are
// compared without encoding them. Only values that differ are encoded and
// compared as JSON, which may still be equal (a nil slice and an empty one
// both omitted), so the answer is the comparison of the encoded snapshots.
func SameSnapshots(a, b *Server) (same bool, sa, sb []byte, err error) {
	a.mu.RLock()
	snapA, err := a.save()
	a.mu.RUnlock()
	if err != nil {
		return false, nil, nil, err
	}
	b.mu.RLock()
	snapB, err := b.save()
	b.mu.RUnlock()
	if err != nil {
		return false, nil, nil, err
	}
	if reflect.DeepEqual(snapA, snapB) {
		return true, nil, nil, nil
	}
	if sa, err = json.Marshal(snapA); err != nil {
		return false, nil, nil, err
	}
	if sb, err = json.Marshal(snapB); err != nil {
		return false, nil, nil, err
	}
	return bytes.Equal(sa, sb), sa, sb, nil
}
