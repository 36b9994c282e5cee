package jsonread

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
)

// kind is how the fast path decodes a type.
type kind uint8

const (
	kindDelegate    kind = iota // encoding/json decodes it
	kindUnmarshaler             // its UnmarshalJSON method decodes it
	kindString
	kindBool
	kindInt
	kindUint
	kindFloat
	kindPointer
	kindStruct
	kindSlice
	kindMap // with string keys
	kindAny // the empty interface
)

// maxFields is the most fields a struct the fast path decodes may have
// (the set of fields seen in an object is a bitmap of this size).
const maxFields = 128

// plan is how to decode one type.
type plan struct {
	kind kind
	typ  reflect.Type
	elem *plan // a pointer's, slice's or map's element
	// empty is a slice type's empty slice (not nil), which every empty
	// array decodes to: its length and capacity are 0, so sharing it
	// shares nothing.
	empty reflect.Value

	// A struct's fields in order, and the indexes into fields by the
	// name as written and by the name with its ASCII letters upper-cased
	// (encoding/json matches names without regard to case when no name
	// matches exactly; the first field in order wins).
	fields []field
	exact  map[string]int
	folded map[string]int
}

// field is a struct field the fast path decodes.
type field struct {
	name  string
	index int // in the struct
	plan  *plan
}

// lookup returns the index in p.fields of the field named key, or -1.
func (p *plan) lookup(key []byte) int {
	if i, ok := p.exact[string(key)]; ok {
		return i
	}
	var buf [64]byte
	if i, ok := p.folded[string(upper(buf[:0], key))]; ok {
		return i
	}
	return -1
}

// upper appends s with its ASCII letters upper-cased to b.
func upper(b, s []byte) []byte {
	for _, c := range s {
		if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		b = append(b, c)
	}
	return b
}

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	numberType          = reflect.TypeFor[json.Number]()
)

// plans holds the plan of every type decoded so far.
var plans sync.Map // reflect.Type -> *plan

// planFor returns t's plan, making it (and those of the types it holds)
// on first use.
func planFor(t reflect.Type) *plan {
	if p, ok := plans.Load(t); ok {
		return p.(*plan)
	}
	made := make(map[reflect.Type]*plan)
	p := build(t, made)
	// A plan is published only once complete, with all it refers to.
	for t, q := range made {
		plans.LoadOrStore(t, q)
	}
	return p
}

// build makes t's plan, recording it (before its parts, so that a type
// that holds itself refers to its own plan) in made.
func build(t reflect.Type, made map[reflect.Type]*plan) *plan {
	if p, ok := made[t]; ok {
		return p
	}
	if p, ok := plans.Load(t); ok {
		return p.(*plan)
	}
	p := &plan{typ: t}
	made[t] = p
	pt := reflect.PointerTo(t)
	switch {
	case pt.Implements(unmarshalerType):
		p.kind = kindUnmarshaler
		return p
	case pt.Implements(textUnmarshalerType) || t == numberType:
		return p // kindDelegate
	}
	switch t.Kind() {
	case reflect.String:
		p.kind = kindString
	case reflect.Bool:
		p.kind = kindBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		p.kind = kindInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		p.kind = kindUint
	case reflect.Float32, reflect.Float64:
		p.kind = kindFloat
	case reflect.Pointer:
		// A named pointer type may carry methods of its own.
		if t.Name() == "" {
			p.kind, p.elem = kindPointer, build(t.Elem(), made)
		}
	case reflect.Slice:
		// []byte is base64 text.
		if t.Elem().Kind() != reflect.Uint8 {
			p.kind, p.elem, p.empty = kindSlice, build(t.Elem(), made), reflect.MakeSlice(t, 0, 0)
		}
	case reflect.Map:
		k := t.Key()
		if k.Kind() == reflect.String && !reflect.PointerTo(k).Implements(textUnmarshalerType) {
			p.kind, p.elem = kindMap, build(t.Elem(), made)
		}
	case reflect.Interface:
		if t.NumMethod() == 0 {
			p.kind = kindAny
		}
	case reflect.Struct:
		buildStruct(p, made)
	}
	return p
}

// buildStruct fills in the plan of a struct type, or leaves it to
// encoding/json when the struct has what the fast path does not model:
// embedded fields (encoding/json's rules for which field wins), ",string"
// options, names other than plain ASCII words, two fields of one name.
func buildStruct(p *plan, made map[reflect.Type]*plan) {
	t := p.typ
	if t.NumField() > maxFields {
		return
	}
	var fields []field
	exact := make(map[string]int)
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.Anonymous {
			return
		}
		if !sf.IsExported() {
			continue
		}
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if hasOption(opts, "string") {
			return
		}
		if name == "" {
			name = sf.Name
		}
		if !plainName(name) {
			return
		}
		if _, dup := exact[name]; dup {
			return
		}
		exact[name] = len(fields)
		fields = append(fields, field{name: name, index: i, plan: build(sf.Type, made)})
	}
	folded := make(map[string]int, len(fields))
	for i, f := range fields {
		k := string(upper(nil, []byte(f.name)))
		if _, ok := folded[k]; !ok {
			folded[k] = i
		}
	}
	p.kind, p.fields, p.exact, p.folded = kindStruct, fields, exact, folded
}

// hasOption reports whether opts, a tag's comma-separated options, holds
// opt.
func hasOption(opts, opt string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == opt {
			return true
		}
	}
	return false
}

// plainName reports whether name is made of ASCII letters, digits, '_'
// and '-' only: a name encoding/json takes as it is, and whose case it
// folds as upper does.
func plainName(name string) bool {
	if name == "" {
		return false
	}
	for _, c := range []byte(name) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || isDigit(c) || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
