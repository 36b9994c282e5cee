package fake

import (
	"bytes"
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
	w.value(t)
	return w.err
}

// costWalker is the state of decodeCost.
type costWalker struct {
	data  []byte
	pos   int
	cost  int64
	limit int64
	err   error
	// path leads from the document to the value at pos, one step per
	// object member or array element entered. Its string is made only for
	// an error.
	path []pathStep
}

// pathStep is one step of a costWalker's path: an object's key, or an
// array's index.
type pathStep struct {
	key   []byte // the key, unescaped
	index int
	elem  bool // an array's element: index, not key
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// where is the path of the value at pos, as errors name it: keys joined
// with dots, indexes in brackets (users[0].name); "snapshot" for the
// document itself.
func (w *costWalker) where() string {
	var b []byte
	for _, st := range w.path {
		if st.elem {
			b = append(b, '[')
			b = strconv.AppendInt(b, int64(st.index), 10)
			b = append(b, ']')
			continue
		}
		if len(b) > 0 {
			b = append(b, '.')
		}
		b = append(b, st.key...)
	}
	if len(b) == 0 {
		return "snapshot"
	}
	return string(b)
}

// fail records the first error, at the value at pos.
func (w *costWalker) fail(format string, args ...any) {
	if w.err == nil {
		w.err = fmt.Errorf("%s: %s", w.where(), fmt.Sprintf(format, args...))
	}
}

// want fails unless ok, saying the value at pos is not what.
func (w *costWalker) want(ok bool, what string) bool {
	if !ok {
		w.fail("want %s, got %s", what, w.kind())
	}
	return ok
}

// charge adds n bytes to the cost.
func (w *costWalker) charge(n uintptr) {
	w.cost += int64(n)
	if w.cost > w.limit {
		w.fail("the snapshot holds more records than a snapshot of its size can (decoding it would take over %d bytes)", w.limit)
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
func (w *costWalker) value(t reflect.Type) {
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
	switch t.Kind() {
	case reflect.Pointer:
		w.charge(t.Elem().Size())
		w.value(t.Elem())
	case reflect.Struct:
		if w.want(c == '{', "an object") {
			w.object(func(key []byte) {
				if f, ok := fieldOf(t, key); ok {
					w.value(f)
				} else {
					w.skip() // refused when decoded, as an unknown field
				}
			})
		}
	case reflect.Map:
		if w.want(c == '{', "an object") {
			entry, elem := t.Key().Size()+t.Elem().Size()+mapEntryCost, t.Elem()
			w.object(func([]byte) {
				w.charge(entry)
				w.value(elem)
			})
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			w.want(c == '"', "a string")
			w.skip()
			return
		}
		if w.want(c == '[', "an array") {
			size, elem := t.Elem().Size(), t.Elem()
			w.array(func() {
				w.charge(size)
				w.value(elem)
			})
		}
	case reflect.Array:
		if w.want(c == '[', "an array") {
			elem, n := t.Elem(), 0
			w.array(func() { n++; w.value(elem) })
			if n != t.Len() {
				// json.Unmarshal would zero the rest, or drop the extra.
				w.fail("want an array of %d, got %d", t.Len(), n)
			}
		}
	case reflect.String:
		w.want(c == '"', "a string")
		w.skip()
	case reflect.Bool:
		w.want(c == 't' || c == 'f', "a boolean")
		w.skip()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		w.want(c == '-' || c >= '0' && c <= '9', "a number")
		w.skip()
	default: // an interface: decoded as maps and slices of its own
		start := w.pos
		w.skip()
		w.charge(uintptr(8 * (w.pos - start)))
	}
}

// object walks an object, calling member for each key with pos at its
// value and the key on the path.
func (w *costWalker) object(member func(key []byte)) {
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
		w.path = append(w.path, pathStep{key: key})
		member(key)
		w.path = w.path[:len(w.path)-1]
	}
}

// array walks an array, calling elem for each element with pos at it and
// its index on the path.
func (w *costWalker) array(elem func()) {
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
		w.path = append(w.path, pathStep{index: i, elem: true})
		elem()
		w.path = w.path[:len(w.path)-1]
	}
}

// key reads an object's key, unescaped: a slice of the data unless it
// holds an escape.
func (w *costWalker) key() []byte {
	start := w.pos
	w.skip()
	raw := w.data[start:w.pos]
	if s := raw[1 : len(raw)-1]; bytes.IndexByte(s, '\\') < 0 {
		return s
	}
	var key string
	_ = json.Unmarshal(raw, &key) // valid JSON
	return []byte(key)
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
func fieldOf(t reflect.Type, key []byte) (reflect.Type, bool) {
	v, ok := jsonFields.Load(t)
	if !ok {
		m := map[string]reflect.Type{}
		collectFields(t, m)
		v, _ = jsonFields.LoadOrStore(t, m)
	}
	m := v.(map[string]reflect.Type)
	if f, ok := m[string(key)]; ok {
		return f, true
	}
	for name, f := range m {
		if strings.EqualFold(name, string(key)) {
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
