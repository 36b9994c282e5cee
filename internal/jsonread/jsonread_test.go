package jsonread_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/internal/jsonread"
)

// state is a named string type, as the SDK's enumerations are.
type state string

// shout is decoded by its own UnmarshalJSON: a string, upper-cased.
type shout string

func (s *shout) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*s = "NULL"
		return nil
	}
	var v string
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*s = shout(strings.ToUpper(v))
	return nil
}

// angled is decoded from text by UnmarshalText.
type angled string

func (a *angled) UnmarshalText(b []byte) error {
	*a = angled("<" + string(b) + ">")
	return nil
}

type inner struct {
	Name  string `json:"name"`
	Count *int   `json:"count,omitempty"`
}

// embeds has what the fast path leaves to encoding/json: an embedded
// struct, whose fields are promoted by rules of their own.
type embeds struct {
	inner
	Extra string `json:"extra"`
}

// quoted has a ",string" option: numbers written as strings.
type quoted struct {
	N int `json:"n,string"`
}

// kitchen holds every kind of field the decoder meets.
type kitchen struct {
	S       string
	Named   state             `json:"named"`
	B       bool              `json:"b"`
	I       int               `json:"i"`
	I8      int8              `json:"i8"`
	U16     uint16            `json:"u16"`
	F32     float32           `json:"f32"`
	F       float64           `json:"f"`
	P       *int              `json:"p"`
	PP      **string          `json:"pp"`
	Strings []string          `json:"strings"`
	Ptrs    []*inner          `json:"ptrs"`
	M       map[string]int    `json:"m"`
	MN      map[state]*inner  `json:"mn"`
	A       any               `json:"a"`
	As      []any             `json:"as"`
	In      inner             `json:"in"`
	Shout   shout             `json:"shout"`
	ShoutP  *shout            `json:"shout_p"`
	Angled  angled            `json:"angled"`
	Number  json.Number       `json:"number"`
	Raw     json.RawMessage   `json:"raw"`
	Bytes   []byte            `json:"bytes"`
	Arr     [2]int            `json:"arr"`
	E       embeds            `json:"e"`
	Q       quoted            `json:"q"`
	Self    *kitchen          `json:"self"`
	Camel   int               `json:"CamelCase"`
	Dash    string            `json:"with-dash"`
	Iface   fmt.Stringer      `json:"iface"`
	Nested  map[string][]bool `json:"nested"`
	Skip    string            `json:"-"`
	hidden  int
}

// agree decodes data into a zero T with Unmarshal and with json.Unmarshal
// and fails unless both give the same value and the same error.
func agree[T any](t *testing.T, data []byte) {
	t.Helper()
	var got, want T
	gotErr := jsonread.Unmarshal(data, &got)
	wantErr := json.Unmarshal(data, &want)
	if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
		t.Fatalf("%T from %q: error %v, encoding/json's %v", got, data, gotErr, wantErr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%T from %q:\n got %#v\nwant %#v", got, data, got, want)
	}
}

// agreeAll checks data against every type the tests decode.
func agreeAll(t *testing.T, data []byte) {
	t.Helper()
	agree[kitchen](t, data)
	agree[*kitchen](t, data)
	agree[[]inner](t, data)
	agree[map[string]any](t, data)
	agree[any](t, data)
	agree[platform.Database](t, data)
	agree[platform.Page[platform.Branch]](t, data)
	agree[platform.Deployment](t, data)
}

// documents are inputs that each exercise one rule of decoding; the fuzz
// target starts from them too.
var documents = []string{
	`{"S":"plain","named":"ready","b":true,"i":-42,"i8":127,"u16":65535,"f32":1.5,"f":-2.5e-3}`,
	`{"p":7,"pp":"twice","strings":["a","b"],"ptrs":[{"name":"x","count":2},null,{}],"m":{"a":1,"b":2}}`,
	`{"mn":{"k":{"name":"v"},"z":null},"a":{"x":[1,"two",true,null,{"y":{}}]},"as":[]}`,
	`{"in":{"name":"n"},"shout":"quiet","shout_p":"quieter","angled":"text","number":"12.5e3"}`,
	`{"raw":{"keep":[1, 2]},"bytes":"aGVsbG8=","arr":[1,2],"e":{"name":"promoted","extra":"x"},"q":{"n":"17"}}`,
	`{"self":{"S":"inside","self":{"i":1}},"camelcase":3,"with-dash":"d","iface":null,"nested":{"a":[true,false]}}`,
	`{"-":"dash","Skip":"no","hidden":1,"unknown":{"deep":[{"a":[1,{"b":null}]}]}}`,
	`{"shout":null,"shout_p":null,"p":null,"strings":null,"m":null,"a":null,"in":null,"S":null}`,
	// Keys matched without regard to case, and keys encoding/json folds by
	// Unicode's rules (ſ is s, K is the Kelvin sign).
	`{"s":"lower","NAMED":"upper","In":{"NAME":"x"}}`,
	`{"ſ":"long s","named":"k","\u0053":"escaped key"}`,
	// A key seen twice: the second merges into the first.
	`{"in":{"name":"a"},"in":{"count":1},"strings":["a","b"],"strings":["c"],"i":1,"I":2}`,
	// Strings: escapes, non-ASCII, invalid UTF-8.
	`{"S":"tab\there \"q\" \\ \/ \u00e9 \ud83d\ude00 \ud800","named":"naïve"}`,
	"{\"S\":\"bad \xff utf8\",\"named\":\"\xc3\"}",
	// Numbers: limits, fractions into integers, exponents, overflow.
	`{"i":9223372036854775807,"i8":-128,"u16":0,"f":1e308,"f32":3.4e38}`,
	`{"i":9223372036854775808}`, `{"i8":128}`, `{"u16":-1}`, `{"i":1.0}`, `{"i":1e2}`,
	`{"f32":1e39}`, `{"f":1e400}`, `{"i":-0}`, `{"i":01}`, `{"f":.5}`, `{"f":1.}`, `{"f":-}`,
	// Wrong types: the error, and the rest of the document decoded.
	`{"S":1,"b":"true","i":"1","strings":{},"in":[],"m":[],"shout":5,"named":"after"}`,
	// Malformed documents.
	``, ` `, `{`, `}`, `{"S"}`, `{"S":}`, `{"S":"a",}`, `{"S":"a" "b":1}`, `[1,]`, `[1 2]`,
	`{"S":"unterminated`, `{"S":"bad escape \x"}`, `{"S":"\u12"}`, "{\"S\":\"ctl\x01\"}",
	`{} trailing`, `{}{}`, ` {"S":"spaced"} `, "\ufeff{}", `nul`, `tru`, `null`, `true`, `1`, `"s"`,
	`[]`, `[{"name":"a"},{"name":"b","count":null}]`, `[null,{"name":"c"}]`,
	strings.Repeat("[", 600) + strings.Repeat("]", 600),
	`{"a":` + strings.Repeat(`{"a":`, 600) + `1` + strings.Repeat("}", 601),
}

func TestUnmarshalAgreesWithEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, doc := range documents {
		agreeAll(t, []byte(doc))
	}
}

// TestUnmarshalNonZero checks that a value already holding data is merged
// into as encoding/json merges.
func TestUnmarshalNonZero(t *testing.T) {
	t.Parallel()
	got := kitchen{S: "kept", Strings: []string{"old", "older"}, M: map[string]int{"old": 1}}
	want := got
	want.Strings = []string{"old", "older"}
	want.M = map[string]int{"old": 1}
	doc := []byte(`{"i":1,"strings":["new"],"m":{"new":2}}`)
	if err := jsonread.Unmarshal(doc, &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(doc, &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v\nwant %#v", got, want)
	}
}

// TestUnmarshalTargets checks what is not a pointer to a value.
func TestUnmarshalTargets(t *testing.T) {
	t.Parallel()
	var nilPtr *kitchen
	for _, v := range []any{nil, kitchen{}, nilPtr} {
		got, want := jsonread.Unmarshal([]byte(`{}`), v), json.Unmarshal([]byte(`{}`), v)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("Unmarshal into %T: %v, encoding/json's %v", v, got, want)
		}
	}
}

// TestFastPathTaken checks which documents the fast path decodes itself:
// the well-formed ones of the shapes it models, with no key seen twice.
func TestFastPathTaken(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		doc  string
		fast bool
	}{
		{`{"S":"plain","b":true,"i":-42,"f":2.5,"p":7,"strings":["a"],"ptrs":[{"name":"x"},null]}`, true},
		{`{"m":{"a":1},"mn":{"k":{"name":"v"}},"a":{"x":[1,"two",true,null]},"as":[]}`, true},
		{`{"shout":"quiet","shout_p":"x","raw":{"k":1},"number":"1","angled":"t","q":{"n":"1"}}`, true},
		{`{"s":"tab\t","named":"naïve","unknown":{"a":[{}]}}`, true},
		{`{"ſ":"a key folded by Unicode's rules"}`, false},
		{`{"\u0053":"an escaped key"}`, false},
		{`{"hidden":1,"Skip":"ignored","i":1}`, true},
		{`{"i":1,"i":2}`, false},
		{`{"i":1.5}`, false},
		{`{"S":1}`, false},
		{`{"S":"a"} x`, false},
	} {
		var k kitchen
		err := jsonread.FastPath([]byte(tc.doc), &k)
		if k.hidden != 0 {
			t.Errorf("%s: an unexported field was set", tc.doc)
		}
		if (err == nil) != tc.fast {
			t.Errorf("%s: fast path error %v, want fast %t", tc.doc, err, tc.fast)
		}
		agree[kitchen](t, []byte(tc.doc))
	}
}

// TestSDKResponsesTakeFastPath decodes a filled-in value of every type an
// SDK method returns, through the fast path alone: the SDK's responses must
// never need encoding/json, and must decode to what it gives.
func TestSDKResponsesTakeFastPath(t *testing.T) {
	t.Parallel()
	client, err := platform.NewClient()
	if err != nil {
		t.Fatal(err)
	}
	types := responseTypes(reflect.ValueOf(client).Elem())
	if len(types) < 90 {
		t.Fatalf("found %d response types, want the SDK's (over 90)", len(types))
	}
	for _, typ := range types {
		v := reflect.New(typ)
		fill(v.Elem(), 0)
		doc, err := json.Marshal(v.Interface())
		if err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		got, want := reflect.New(typ), reflect.New(typ)
		if err := jsonread.FastPath(doc, got.Interface()); err != nil {
			t.Errorf("%s: the fast path gave up on %s", typ, doc)
			continue
		}
		if err := json.Unmarshal(doc, want.Interface()); err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		if !reflect.DeepEqual(got.Interface(), want.Interface()) {
			t.Errorf("%s from %s:\n got %#v\nwant %#v", typ, doc, got.Elem(), want.Elem())
		}
	}
}

// responseTypes returns the types the methods of client's services decode
// into: what each returns by pointer, first.
func responseTypes(client reflect.Value) []reflect.Type {
	seen := make(map[reflect.Type]bool)
	var types []reflect.Type
	for i := range client.NumField() {
		svc := client.Field(i)
		if !svc.CanInterface() || svc.Kind() != reflect.Pointer {
			continue
		}
		for j := range svc.NumMethod() {
			m := svc.Type().Method(j)
			for k := range m.Type.NumOut() {
				out := m.Type.Out(k)
				if out.Kind() == reflect.Pointer && out.Elem().Kind() == reflect.Struct && !seen[out.Elem()] {
					seen[out.Elem()] = true
					types = append(types, out.Elem())
				}
			}
		}
	}
	return types
}

// fill sets every exported field of v, recursively, to a value that is not
// zero: two elements for slices and maps, a value behind every pointer.
func fill(v reflect.Value, depth int) {
	if depth > 4 || !v.CanSet() {
		return
	}
	if v.Type() == reflect.TypeFor[json.RawMessage]() {
		v.SetBytes([]byte(`{"raw":[1,"two"]}`))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString("text" + fmt.Sprint(depth))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(7)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(7)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(1.25)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), depth+1)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := range 2 {
			fill(v.Index(i), depth+1)
		}
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		for _, k := range []string{"a", "b"} {
			e := reflect.New(v.Type().Elem()).Elem()
			fill(e, depth+1)
			v.SetMapIndex(reflect.ValueOf(k).Convert(v.Type().Key()), e)
		}
	case reflect.Interface:
		if v.NumMethod() == 0 {
			v.Set(reflect.ValueOf("any"))
		}
	case reflect.Struct:
		for i := range v.NumField() {
			fill(v.Field(i), depth+1)
		}
	}
}

// FuzzUnmarshal holds Unmarshal to encoding/json: for any input, the same
// value and the same error, into every type the tests decode. The seed
// corpus is documents, plus what is in testdata/fuzz/FuzzUnmarshal.
func FuzzUnmarshal(f *testing.F) {
	for _, doc := range documents {
		f.Add([]byte(doc))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		agreeAll(t, data)
	})
}

// BenchmarkUnmarshal decodes a database as an API response carries it, and
// a page of 25 of them, with Unmarshal and, as the baseline, with
// json.Unmarshal.
func BenchmarkUnmarshal(b *testing.B) {
	db := `{"id":"k2j4h5g6f7d8","type":"Database","name":"app-db",` +
		`"url":"https://api.example.com/v1/organizations/acme/databases/app-db","state":"ready","ready":true,` +
		`"kind":"mysql","plan":"scaler_pro","region":{"id":"r1s2t3u4v5w6","slug":"east","display_name":"Region East",` +
		`"public_ip_addresses":["192.0.2.10","192.0.2.11"],"enabled":true},"branches_count":1,"issues_count":0,` +
		`"default_branch":"main","automatic_migrations":null,"created_at":"2026-01-14T10:19:23.000Z",` +
		`"updated_at":"2026-01-14T10:19:23.000Z","schema_last_updated_at":null,"notes":""}`
	page := `{"type":"list","current_page":1,"per_page":25,"next_page":2,"prev_page":null,"data":[` +
		strings.Repeat(db+",", 24) + db + `]}`
	decoders := []struct {
		name      string
		unmarshal func([]byte, any) error
	}{{"jsonread", jsonread.Unmarshal}, {"baseline_encoding_json", json.Unmarshal}}
	for _, dc := range decoders {
		b.Run("database/"+dc.name, func(b *testing.B) {
			benchmarkDecode[platform.Database](b, []byte(db), dc.unmarshal)
		})
	}
	for _, dc := range decoders {
		b.Run("page_of_25/"+dc.name, func(b *testing.B) {
			benchmarkDecode[platform.Page[platform.Database]](b, []byte(page), dc.unmarshal)
		})
	}
}

// benchmarkDecode decodes doc into a fresh T with unmarshal b.N times.
func benchmarkDecode[T any](b *testing.B, doc []byte, unmarshal func([]byte, any) error) {
	b.ReportAllocs()
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		if err := unmarshal(doc, new(T)); err != nil {
			b.Fatalf("decoding: %v", err)
		}
	}
}
