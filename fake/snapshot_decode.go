package fake

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// The bounds of a snapshot before it is decoded: its size, and the memory
// its decoding costs.

// MaxSnapshotSize bounds a snapshot that [Server.Restore] loads: the body of
// PUT /_fake/snapshot, and a -state file of the standalone server.
const MaxSnapshotSize = 256 << 20

// maxDecodeCost bounds the memory that decoding a snapshot of n bytes may
// take, in bytes of the values it decodes into: a small multiple of n. A
// real snapshot, with every field named, costs less than its size; a
// crafted one of empty records ({} for each) would cost a hundred times
// its size, and is refused before it is decoded.
func maxDecodeCost(n int) int64 { return 4*int64(n) + 1<<20 }

// mapEntryCost is what a map entry costs besides its key and value.
const mapEntryCost = 16

// decodeCost walks data, which is valid JSON, as json.Unmarshal would
// decode it into a value of type t, without decoding it: it refuses a
// value of the wrong JSON kind at its path (users[0]: want an object, got
// a number), and a document whose records would take more memory than
// limit, at the path where the total passes it.
func decodeCost(data []byte, t reflect.Type, limit int64) error {
	w := &costWalker{data: data, limit: limit}
	w.value(t, "")
	return w.err
}

// costWalker is the state of decodeCost.
type costWalker struct {
	data  []byte
	pos   int
	cost  int64
	limit int64
	err   error
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// fail records the first error.
func (w *costWalker) fail(path, format string, args ...any) {
	if w.err == nil {
		if path == "" {
			path = "snapshot"
		}
		w.err = fmt.Errorf("%s: %s", path, fmt.Sprintf(format, args...))
	}
}

// charge adds n bytes to the cost.
func (w *costWalker) charge(path string, n uintptr) {
	w.cost += int64(n)
	if w.cost > w.limit {
		w.fail(path, "the snapshot holds more records than a snapshot of its size can (decoding it would take over %d bytes)", w.limit)
	}
}

func (w *costWalker) space() {
	for w.pos < len(w.data) {
		switch w.data[w.pos] {
		case ' ', '\t', '\n', '\r':
			w.pos++
		default:
			return
		}
	}
}

// kind is the JSON kind of the value at pos, for messages.
func (w *costWalker) kind() string {
	switch w.data[w.pos] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// value walks the value at pos as one of type t.
func (w *costWalker) value(t reflect.Type, path string) {
	if w.err != nil {
		return
	}
	w.space()
	c := w.data[w.pos]
	if c == 'n' { // null leaves any value as it is
		w.skip()
		return
	}
	if decodesItself(t) {
		w.skip()
		return
	}
	want := func(ok bool, what string) bool {
		if !ok {
			w.fail(path, "want %s, got %s", what, w.kind())
		}
		return ok
	}
	switch t.Kind() {
	case reflect.Pointer:
		w.charge(path, t.Elem().Size())
		w.value(t.Elem(), path)
	case reflect.Struct:
		if want(c == '{', "an object") {
			w.object(path, func(key, sub string) {
				if f, ok := fieldOf(t, key); ok {
					w.value(f, sub)
				} else {
					w.skip() // refused when decoded, as an unknown field
				}
			})
		}
	case reflect.Map:
		if want(c == '{', "an object") {
			w.object(path, func(_, sub string) {
				w.charge(sub, t.Key().Size()+t.Elem().Size()+mapEntryCost)
				w.value(t.Elem(), sub)
			})
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			want(c == '"', "a string")
			w.skip()
			return
		}
		if want(c == '[', "an array") {
			w.array(path, func(sub string) {
				w.charge(sub, t.Elem().Size())
				w.value(t.Elem(), sub)
			})
		}
	case reflect.Array:
		if want(c == '[', "an array") {
			w.array(path, func(sub string) { w.value(t.Elem(), sub) })
		}
	case reflect.String:
		want(c == '"', "a string")
		w.skip()
	case reflect.Bool:
		want(c == 't' || c == 'f', "a boolean")
		w.skip()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		want(c == '-' || c >= '0' && c <= '9', "a number")
		w.skip()
	default: // an interface: decoded as maps and slices of its own
		start := w.pos
		w.skip()
		w.charge(path, uintptr(8*(w.pos-start)))
	}
}

// object walks an object, calling member for each key, with pos at its
// value.
func (w *costWalker) object(path string, member func(key, sub string)) {
	w.pos++ // {
	for w.err == nil {
		w.space()
		if w.data[w.pos] == '}' {
			w.pos++
			return
		}
		if w.data[w.pos] == ',' {
			w.pos++
			w.space()
		}
		key := w.key()
		w.space()
		w.pos++ // :
		sub := key
		if path != "" {
			sub = path + "." + key
		}
		member(key, sub)
	}
}

// array walks an array, calling elem for each element, with pos at it.
func (w *costWalker) array(path string, elem func(sub string)) {
	w.pos++ // [
	for i := 0; w.err == nil; i++ {
		w.space()
		if w.data[w.pos] == ']' {
			w.pos++
			return
		}
		if w.data[w.pos] == ',' {
			w.pos++
		}
		elem(path + "[" + strconv.Itoa(i) + "]")
	}
}

// key reads an object's key.
func (w *costWalker) key() string {
	start := w.pos
	w.skip()
	raw := w.data[start:w.pos]
	if s := raw[1 : len(raw)-1]; !strings.ContainsRune(string(s), '\\') {
		return string(s)
	}
	var key string
	_ = json.Unmarshal(raw, &key) // valid JSON
	return key
}

// skip moves pos past the value at pos.
func (w *costWalker) skip() {
	w.space()
	switch w.data[w.pos] {
	case '"':
		w.pos++
		for w.data[w.pos] != '"' {
			if w.data[w.pos] == '\\' {
				w.pos++
			}
			w.pos++
		}
		w.pos++
	case '{', '[':
		depth := 0
		for {
			switch w.data[w.pos] {
			case '"':
				w.skip()
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
			w.pos++
			if depth == 0 {
				return
			}
		}
	default: // a number or a literal
		for w.pos < len(w.data) && !strings.ContainsRune(" \t\r\n,]}", rune(w.data[w.pos])) {
			w.pos++
		}
	}
}

// jsonFields caches the fields of struct types by JSON name.
var jsonFields sync.Map // reflect.Type -> map[string]reflect.Type

var selfDecoding sync.Map // reflect.Type -> bool

// decodesItself reports whether json.Unmarshal hands a value of type t to
// the type's own UnmarshalJSON or UnmarshalText, whose input the walk
// leaves alone. It is asked once per value, so the answer is kept per type.
func decodesItself(t reflect.Type) bool {
	if v, ok := selfDecoding.Load(t); ok {
		return v.(bool)
	}
	pt := reflect.PointerTo(t)
	yes := t.Implements(jsonUnmarshaler) || pt.Implements(jsonUnmarshaler) ||
		t.Implements(textUnmarshaler) || pt.Implements(textUnmarshaler)
	selfDecoding.Store(t, yes)
	return yes
}

// fieldOf finds the field json.Unmarshal fills for key in struct type t:
// by exact name, else by a name equal to it without regard to case.
func fieldOf(t reflect.Type, key string) (reflect.Type, bool) {
	v, ok := jsonFields.Load(t)
	if !ok {
		m := map[string]reflect.Type{}
		collectFields(t, m)
		v, _ = jsonFields.LoadOrStore(t, m)
	}
	m := v.(map[string]reflect.Type)
	if f, ok := m[key]; ok {
		return f, true
	}
	for name, f := range m {
		if strings.EqualFold(name, key) {
			return f, true
		}
	}
	return nil, false
}

// collectFields adds the JSON fields of struct type t to m, with those of
// its embedded structs, the outer ones first.
func collectFields(t reflect.Type, m map[string]reflect.Type) {
	var embedded []reflect.Type
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			embedded = append(embedded, f.Type)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if _, ok := m[name]; !ok {
			m[name] = f.Type
		}
	}
	for _, e := range embedded {
		collectFields(e, m)
	}
}
