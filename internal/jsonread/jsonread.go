// Package jsonread decodes JSON into Go values exactly as encoding/json's
// Unmarshal does, several times faster for the shapes API responses have:
// structs of strings, numbers, booleans, pointers, slices and maps.
//
// encoding/json reads its input twice (it checks the whole document first,
// then decodes it) and steps a state machine through a function call per
// byte. Unmarshal reads once, with plain loops, and finds a struct's fields
// through a table built once per type. Where the result could differ from
// encoding/json's, it does not guess: values of types it does not model
// (arrays, []byte, json.Number, encoding.TextUnmarshaler, non-empty
// interfaces, embedded fields, ",string" options) are decoded by
// encoding/json itself, and any input it does not take in its stride (an
// error of any kind, a key written with escapes or outside ASCII, a key seen
// twice) makes it start over with encoding/json. Both paths give the same
// value and the same error; FuzzUnmarshal holds them to that.
package jsonread

import (
	"encoding/json"
	"errors"
	"reflect"
)

// Unmarshal decodes data into the value v points to, as json.Unmarshal
// does. The fast path needs v to point to a zero value (a fresh one, as the
// SDK's are); any other v goes to encoding/json at once, which merges into
// what is there.
func Unmarshal(data []byte, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return json.Unmarshal(data, v)
	}
	target := rv.Elem()
	p := planFor(target.Type())
	if p.kind == kindDelegate || !target.IsZero() {
		return json.Unmarshal(data, v)
	}
	d := decoder{data: data}
	if err := d.value(p, target); err == nil {
		d.space()
		if d.off == len(data) {
			return nil
		}
	}
	// Start over from the zero value the call began with, so that the
	// value and the error are encoding/json's own.
	target.SetZero()
	return json.Unmarshal(data, v)
}

// errFallback stops the fast path; the error encoding/json gives is the
// one returned.
var errFallback = errors.New("jsonread: decode with encoding/json")

// maxDepth bounds the nesting the fast path follows; deeper documents go
// to encoding/json, which has its own (larger) limit.
const maxDepth = 500

// decoder reads one document; off is the next byte to read.
type decoder struct {
	data  []byte
	off   int
	depth int
}

// value decodes the value at d.off into v, a settable zero value of p's
// type.
func (d *decoder) value(p *plan, v reflect.Value) error {
	d.space()
	if d.off >= len(d.data) {
		return errFallback
	}
	c := d.data[d.off]
	switch p.kind {
	case kindUnmarshaler:
		raw, err := d.raw()
		if err != nil {
			return err
		}
		if v.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(raw) != nil {
			return errFallback
		}
		return nil
	case kindDelegate:
		raw, err := d.raw()
		if err != nil {
			return err
		}
		if json.Unmarshal(raw, v.Addr().Interface()) != nil {
			return errFallback
		}
		return nil
	}
	if c == 'n' {
		// null leaves a zero value as it is, whatever its kind.
		return d.literal("null")
	}
	switch p.kind {
	case kindString:
		if c != '"' {
			return errFallback
		}
		s, err := d.str()
		if err != nil {
			return err
		}
		v.SetString(s)
	case kindBool:
		b, err := d.boolean()
		if err != nil {
			return err
		}
		v.SetBool(b)
	case kindInt:
		n, err := d.integer()
		if err != nil || v.OverflowInt(n) {
			return errFallback
		}
		v.SetInt(n)
	case kindUint:
		n, err := d.unsigned()
		if err != nil || v.OverflowUint(n) {
			return errFallback
		}
		v.SetUint(n)
	case kindFloat:
		f, err := d.float(p.typ.Bits())
		if err != nil {
			return err
		}
		v.SetFloat(f)
	case kindPointer:
		ptr := reflect.New(p.elem.typ)
		if err := d.value(p.elem, ptr.Elem()); err != nil {
			return err
		}
		v.Set(ptr)
	case kindStruct:
		if c != '{' {
			return errFallback
		}
		return d.object(p, v)
	case kindSlice:
		if c != '[' {
			return errFallback
		}
		return d.array(p, v)
	case kindMap:
		if c != '{' {
			return errFallback
		}
		return d.mapping(p, v)
	case kindAny:
		x, err := d.anyValue()
		if err != nil {
			return err
		}
		if x != nil {
			v.Set(reflect.ValueOf(x))
		}
	}
	return nil
}

// object decodes a JSON object into v, a zero struct of p's type.
func (d *decoder) object(p *plan, v reflect.Value) error {
	var seen [maxFields / 64]uint64
	next := 0 // the field after the last one set: the likely next key
	return d.each('}', func() error {
		key, err := d.key()
		if err != nil {
			return err
		}
		i := -1
		if next < len(p.fields) && string(key) == p.fields[next].name {
			i = next
		} else if i = p.lookup(key); i < 0 {
			return d.skip()
		}
		// A second value for a field would be merged into the first by
		// encoding/json; leave that to it.
		if seen[i/64]&(1<<(i%64)) != 0 {
			return errFallback
		}
		seen[i/64] |= 1 << (i % 64)
		next = i + 1
		f := &p.fields[i]
		return d.value(f.plan, v.Field(f.index))
	})
}

// array decodes a JSON array into v, a nil slice of p's type: an empty
// array makes an empty slice, not a nil one, as encoding/json does.
func (d *decoder) array(p *plan, v reflect.Value) error {
	n := 0
	err := d.each(']', func() error {
		v.Grow(1)
		v.SetLen(n + 1)
		n++
		return d.value(p.elem, v.Index(n-1))
	})
	if n == 0 {
		v.Set(p.empty)
	}
	return err
}

// mapping decodes a JSON object into v, a nil map of p's type; a key seen
// twice keeps its last value, as in encoding/json.
func (d *decoder) mapping(p *plan, v reflect.Value) error {
	t := p.typ
	v.Set(reflect.MakeMap(t))
	elem := reflect.New(t.Elem()).Elem()
	return d.each('}', func() error {
		k, err := d.mapKey()
		if err != nil {
			return err
		}
		elem.SetZero()
		if err := d.value(p.elem, elem); err != nil {
			return err
		}
		key := reflect.ValueOf(k)
		if key.Type() != t.Key() {
			key = key.Convert(t.Key())
		}
		v.SetMapIndex(key, elem)
		return nil
	})
}

// anyValue decodes the value at d.off as encoding/json does into an empty
// interface: objects become map[string]any, arrays []any, numbers float64.
func (d *decoder) anyValue() (any, error) {
	d.space()
	if d.off >= len(d.data) {
		return nil, errFallback
	}
	switch d.data[d.off] {
	case '{':
		m := make(map[string]any)
		err := d.each('}', func() error {
			k, err := d.mapKey()
			if err != nil {
				return err
			}
			m[k], err = d.anyValue()
			return err
		})
		return m, err
	case '[':
		s := make([]any, 0)
		err := d.each(']', func() error {
			x, err := d.anyValue()
			s = append(s, x)
			return err
		})
		return s, err
	case '"':
		return d.str()
	case 't', 'f':
		return d.boolean()
	case 'n':
		return nil, d.literal("null")
	default:
		return d.float(64)
	}
}
