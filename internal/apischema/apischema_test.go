package apischema

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// testSchema is an object with every kind of node.
var testSchema = &Schema{
	Type:     "object",
	Required: []string{"id", "state", "actor", "tags"},
	Properties: map[string]*Schema{
		"id":     {Type: "string"},
		"state":  {Type: "string", Enum: []string{"open", "closed"}},
		"size":   {Type: "integer"},
		"ratio":  {Type: "number"},
		"ready":  {Type: "boolean"},
		"note":   {Type: "string", Nullable: true},
		"actor":  {Type: "object", Required: []string{"id"}, Properties: map[string]*Schema{"id": {Type: "string"}}},
		"tags":   {Type: "array", Items: &Schema{Type: "object", Required: []string{"key"}, Properties: map[string]*Schema{"key": {Type: "string"}}}},
		"shards": {Type: "object", Values: &Schema{Type: "integer"}},
	},
}

const testComplete = `{"id":"x","state":"open","size":1,"ratio":0.5,"ready":true,"note":null,"actor":{"id":"u"},"tags":[{"key":"k"}],"shards":{"-80":1},"extra":"allowed"}`

func TestValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		body   string
		exempt Exempt
		want   []string
	}{
		{name: "complete", body: testComplete},
		{
			name: "required and optional missing",
			body: `{"state":"open","actor":{},"tags":[{"key":"k"},{}]}`,
			want: []string{
				`$: required property "id" is missing`,
				`$: property "note" is missing: the schema has it optional, but the service sends it and clients read it`,
				`$: property "ratio" is missing: the schema has it optional, but the service sends it and clients read it`,
				`$: property "ready" is missing: the schema has it optional, but the service sends it and clients read it`,
				`$: property "shards" is missing: the schema has it optional, but the service sends it and clients read it`,
				`$: property "size" is missing: the schema has it optional, but the service sends it and clients read it`,
				`$.actor: required property "id" is missing`,
				`$.tags[1]: required property "key" is missing`,
			},
		},
		{
			name: "types",
			body: `{"id":1,"state":"open","size":1.5,"ratio":"half","ready":"yes","note":3,"actor":[],"tags":{},"shards":{"-80":"one"}}`,
			want: []string{
				`$.actor: an array, want an object`,
				`$.id: the number 1, want a string`,
				`$.note: the number 3, want a string`,
				`$.ratio: the string "half", want a number`,
				`$.ready: the string "yes", want a boolean`,
				`$.shards.-80: the string "one", want an integer`,
				`$.size: the number 1.5, want an integer`,
				`$.tags: an object, want an array`,
			},
		},
		{
			name: "null and enum",
			body: `{"id":null,"state":"merged","size":null,"ratio":1,"ready":false,"note":null,"actor":null,"tags":[null],"shards":{}}`,
			want: []string{
				`$.actor: null, but the schema's object is not nullable`,
				`$.id: null, but the schema's string is not nullable`,
				`$.size: null, but the schema's integer is not nullable`,
				`$.state: "merged" is not one of open, closed`,
				`$.tags[0]: null, but the schema's object is not nullable`,
			},
		},
		{
			name: "exempt",
			body: `{"state":"merged","size":1,"ratio":1,"ready":false,"note":null,"actor":null,"tags":[],"shards":{}}`,
			exempt: func(path, kind, what string) bool {
				return path == "$" && (kind == "missing" && what == "id" || kind == "enum" && what == "merged") ||
					path == "$.actor" && kind == "null" && what == "actor"
			},
			want: []string{`$.state: "merged" is not one of open, closed`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var v any
			if err := json.Unmarshal([]byte(tt.body), &v); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, testSchema.Validate(v, tt.exempt)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLoad checks that the committed schema file loads and describes the
// operations the way the tests rely on.
func TestLoad(t *testing.T) {
	t.Parallel()
	f, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	op := f.Operations["get_database"]
	if op == nil || op.Method != "GET" || op.Path != "/v1/organizations/{organization}/databases/{database}" || op.Status != 200 ||
		op.Response == nil || op.Response.Properties["name"] == nil {
		t.Errorf("get_database = %+v, want GET of a database with its properties", op)
	}
	for name, op := range f.Operations {
		if op.Source != "reference" && op.Source != "project" {
			t.Errorf("%s: source %q", name, op.Source)
		}
	}
}

// TestValidateOptional checks that a property a client may go without is
// not reported missing, and is still held to its kind when present.
func TestValidateOptional(t *testing.T) {
	t.Parallel()
	s := &Schema{Type: "object", Optional: []string{"units"}, Properties: map[string]*Schema{
		"name": {Type: "string"}, "units": {Type: "array"},
	}}
	for body, want := range map[string][]string{
		`{"name":"x"}`:             nil,
		`{"name":"x","units":"s"}`: {`$.units: the string "s", want an array`},
		`{"units":[]}`:             {`$: property "name" is missing: the schema has it optional, but the service sends it and clients read it`},
	} {
		var v any
		if err := json.Unmarshal([]byte(body), &v); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, s.Validate(v, nil)); diff != "" {
			t.Errorf("%s: problems (-want +got):\n%s", body, diff)
		}
	}
}

// TestValidateVariants checks an object of two shapes: its discriminator
// picks the variant it is held to, alone, and a value no variant has is
// reported.
func TestValidateVariants(t *testing.T) {
	t.Parallel()
	s := &Schema{Type: "object", Discriminator: "type", Variants: map[string]*Schema{
		"Pods":  {Type: "object", Required: []string{"type", "pods"}, Properties: map[string]*Schema{"type": {Type: "string"}, "pods": {Type: "array"}}},
		"Nodes": {Type: "object", Required: []string{"type", "nodes"}, Properties: map[string]*Schema{"type": {Type: "string"}, "nodes": {Type: "array"}}},
	}}
	tests := []struct {
		name, body string
		want       []string
	}{
		{"first variant", `{"type":"Pods","pods":[]}`, nil},
		{"second variant", `{"type":"Nodes","nodes":[]}`, nil},
		{"the other variant's property only", `{"type":"Nodes","pods":[]}`, []string{`$: required property "nodes" is missing`}},
		{"wrong kind in the variant", `{"type":"Nodes","nodes":{}}`, []string{`$.nodes: an object, want an array`}},
		{"unknown type", `{"type":"Other"}`, []string{`$: type "Other" is not one of Nodes, Pods`}},
		{"no type", `{"pods":[]}`, []string{`$: type "" is not one of Nodes, Pods`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var v any
			if err := json.Unmarshal([]byte(tt.body), &v); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, s.Validate(v, nil)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

// TestClientFacts checks the committed client file: every operation's types
// are in it, and a price the official client reads as an integer fails
// when it is not a whole number, as the fake's contract test relies on.
func TestClientFacts(t *testing.T) {
	t.Parallel()
	f, err := LoadClient()
	if err != nil {
		t.Fatal(err)
	}
	for op, types := range f.Operations {
		for _, name := range types {
			if f.Types[name] == nil {
				t.Errorf("%s decodes into %s, which the file does not describe", op, name)
			}
		}
	}
	types := f.Operations["list_cluster_size_skus"]
	if len(types) != 1 {
		t.Fatalf("list_cluster_size_skus decodes into %v, want one type", types)
	}
	s := f.Types[types[0]]
	var whole, half any
	if err := json.Unmarshal([]byte(`[{"name":"PS_5","replica_rate":2}]`), &whole); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(`[{"name":"PS_5","replica_rate":2.5}]`), &half); err != nil {
		t.Fatal(err)
	}
	kinds := func(_, kind, _ string) bool { return kind == "missing" }
	if got := s.Validate(whole, kinds); len(got) > 0 {
		t.Errorf("a whole replica_rate: %v, want no problem", got)
	}
	want := []string{`$[0].replica_rate: the number 2.5, want an integer`}
	if diff := cmp.Diff(want, s.Validate(half, kinds)); diff != "" {
		t.Errorf("replica_rate 2.5: problems (-want +got):\n%s", diff)
	}
}
