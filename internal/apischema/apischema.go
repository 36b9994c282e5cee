// Package apischema holds the API's response schemas, brand-neutral facts
// generated from the live service's reference (see gen/, run by hand), and
// checks a JSON body against them. The fake's contract test reads it; no
// library code does.
package apischema

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// File is the schema file: every operation of the API by its name in
// operations.tsv.
type File struct {
	Operations map[string]*Operation `json:"operations"`
}

// Operation is one operation: its method, path and success status, and the
// schema of its success response's body (nil for none).
type Operation struct {
	Method string `json:"method"`
	Path   string `json:"path"`
	Status int    `json:"status"`
	// Source is "reference" for an operation of the live service's
	// reference, "project" for one the reference lacks, whose schema the
	// generator states from the spec and decisions.md.
	Source   string  `json:"source"`
	Response *Schema `json:"response,omitempty"`
}

// Schema is the shape of a JSON value.
type Schema struct {
	// Type is object, array, string, integer, number or boolean.
	Type     string `json:"type"`
	Nullable bool   `json:"nullable,omitempty"`
	// Enum are the values a string may take; empty for any.
	Enum []string `json:"enum,omitempty"`
	// Required are the properties an object always has.
	Required []string `json:"required,omitempty"`
	// Optional are the properties a client reads that the service may
	// leave out (the official client's omitempty): Validate does not report
	// them missing.
	Optional   []string           `json:"optional,omitempty"`
	Properties map[string]*Schema `json:"properties,omitempty"`
	// Values is the schema of the values of an object used as a map (its
	// keys are data, not names); nil when they are not described.
	Values *Schema `json:"values,omitempty"`
	// Items is the schema of an array's items.
	Items *Schema `json:"items,omitempty"`
	// Discriminator names the string property of an object whose value
	// picks the object's schema among Variants; the object is checked
	// against that variant alone (its Required and Properties), and a
	// value no variant has is reported as an enum problem. Empty for an
	// object of one shape.
	Discriminator string             `json:"discriminator,omitempty"`
	Variants      map[string]*Schema `json:"variants,omitempty"`
}

//go:embed schema.json
var schemaJSON []byte

// Load returns the schema file.
func Load() (*File, error) {
	var f File
	if err := json.Unmarshal(schemaJSON, &f); err != nil {
		return nil, fmt.Errorf("apischema: schema.json: %w", err)
	}
	return &f, nil
}

// ClientFile is what the live service's official client decodes (see
// clientgen/, run by hand): the response types it reads, each named by
// the first operation, in name order, whose body it decodes into it, with
// the JSON names and kinds of their fields; and, for each operation, the
// types its success body is decoded into (more than one where several
// methods of the client call it). Its schemas allow null everywhere and
// require nothing: presence is the checker's rule (Validate reports a
// property missing).
type ClientFile struct {
	Types      map[string]*Schema  `json:"types"`
	Operations map[string][]string `json:"operations"`
}

//go:embed client.json
var clientJSON []byte

// LoadClient returns the client file.
func LoadClient() (*ClientFile, error) {
	var f ClientFile
	if err := json.Unmarshal(clientJSON, &f); err != nil {
		return nil, fmt.Errorf("apischema: client.json: %w", err)
	}
	return &f, nil
}

// Exempt says whether a problem at a JSON path is a documented exception:
// it gets the path ("$.data[0].password") and the problem's kind
// ("missing", "enum", ...) with the property or value concerned (for
// "null", the property that is null: the path's last name).
type Exempt func(path, kind, what string) bool

// Validate checks a decoded JSON value (from encoding/json into any) against
// s and returns the problems found, each naming its JSON path: a property
// of the schema missing (a required one, or an optional one: the fake
// sends every property the service may send, so that a client reading one
// finds it), a wrong type, null where the schema does not allow it, a value
// outside an enum; for nested objects and every list item. Properties the
// schema does not name are allowed, as the service may add fields.
func (s *Schema) Validate(v any, exempt Exempt) []string {
	var out []string
	s.validate("$", v, exempt, &out)
	return out
}

func (s *Schema) validate(path string, v any, exempt Exempt, out *[]string) {
	report := func(kind, what, format string, args ...any) {
		if exempt == nil || !exempt(path, kind, what) {
			*out = append(*out, path+": "+fmt.Sprintf(format, args...))
		}
	}
	if v == nil {
		if !s.Nullable {
			report("null", path[strings.LastIndex(path, ".")+1:], "null, but the schema's %s is not nullable", s.Type)
		}
		return
	}
	switch s.Type {
	case "object":
		obj, ok := v.(map[string]any)
		if !ok {
			report("type", "", "%s, want an object", jsonType(v))
			return
		}
		if s.Discriminator != "" {
			kind, _ := obj[s.Discriminator].(string)
			variant := s.Variants[kind]
			if variant == nil {
				report("enum", kind, "%s %q is not one of %s", s.Discriminator, kind, strings.Join(sortedKeys(s.Variants), ", "))
				return
			}
			variant.validate(path, v, exempt, out)
			return
		}
		for _, name := range s.Required {
			if _, ok := obj[name]; !ok {
				report("missing", name, "required property %q is missing", name)
			}
		}
		for _, name := range sortedKeys(s.Properties) {
			if _, ok := obj[name]; !ok && !slices.Contains(s.Required, name) && !slices.Contains(s.Optional, name) {
				report("missing", name, "property %q is missing: the schema has it optional, but the service sends it and clients read it", name)
			}
		}
		for _, name := range sortedKeys(obj) {
			sub := s.Properties[name]
			if sub == nil {
				sub = s.Values
			}
			if sub != nil {
				sub.validate(path+"."+name, obj[name], exempt, out)
			}
		}
	case "array":
		list, ok := v.([]any)
		if !ok {
			report("type", "", "%s, want an array", jsonType(v))
			return
		}
		if s.Items != nil {
			for i, item := range list {
				s.Items.validate(fmt.Sprintf("%s[%d]", path, i), item, exempt, out)
			}
		}
	case "string":
		str, ok := v.(string)
		if !ok {
			report("type", "", "%s, want a string", jsonType(v))
			return
		}
		if len(s.Enum) > 0 && !slices.Contains(s.Enum, str) {
			report("enum", str, "%q is not one of %s", str, strings.Join(s.Enum, ", "))
		}
	case "integer":
		n, ok := v.(float64)
		if !ok || n != float64(int64(n)) {
			report("type", "", "%s, want an integer", jsonType(v))
		}
	case "number":
		if _, ok := v.(float64); !ok {
			report("type", "", "%s, want a number", jsonType(v))
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			report("type", "", "%s, want a boolean", jsonType(v))
		}
	}
}

// jsonType names the JSON type of a decoded value, with the value when
// short.
func jsonType(v any) string {
	switch v := v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return fmt.Sprintf("the string %q", v)
	case float64:
		return fmt.Sprintf("the number %v", v)
	case bool:
		return fmt.Sprintf("the boolean %v", v)
	}
	return fmt.Sprintf("%T", v)
}

// sortedKeys returns an object's keys in order, for reports that read the
// same every run.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
