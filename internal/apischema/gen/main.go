// Command gen writes internal/apischema/schema.json from the live
// service's reference (an OpenAPI 2 document), keeping facts only: each
// operation's method, path, success status and response schema (types,
// properties, required, nullable, enum values, nested objects and arrays),
// with every reference resolved. Descriptions, titles, examples and the
// reference's own names are left out, and the output is refused if it
// names the vendor the reference's info and host do.
//
// It is run by hand when the reference changes, never by tests or CI:
//
//	go run ./internal/apischema/gen -reference ../shared/reference/live-api-openapi.json
//
// The operations the project serves that the reference lacks (the service
// token access endpoints and the OAuth server's two) get the entries of
// projectOperations, marked "source": "project".
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/dbplatform/platform-go/internal/apischema"
)

func main() {
	ref := flag.String("reference", "", "path of the reference (OpenAPI 2 JSON)")
	out := flag.String("out", "internal/apischema/schema.json", "path of the schema file to write")
	flag.Parse()
	if *ref == "" {
		log.Fatal("gen: -reference is required")
	}
	data, err := os.ReadFile(*ref)
	if err != nil {
		log.Fatal(err)
	}
	b, err := generate(data)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, b, 0o644); err != nil {
		log.Fatal(err)
	}
}

// document is the part of an OpenAPI 2 document the generator reads.
type document struct {
	Info struct {
		Title string `json:"title"`
	} `json:"info"`
	Host        string                                `json:"host"`
	BasePath    string                                `json:"basePath"`
	Paths       map[string]map[string]json.RawMessage `json:"paths"`
	Definitions map[string]json.RawMessage            `json:"definitions"`
}

// refOperation is an operation of the reference.
type refOperation struct {
	OperationID string `json:"operationId"`
	Responses   map[string]struct {
		Schema json.RawMessage `json:"schema"`
	} `json:"responses"`
}

// refSchema is a schema node of the reference.
type refSchema struct {
	Ref        string                `json:"$ref"`
	Type       string                `json:"type"`
	Nullable   bool                  `json:"x-nullable"`
	Enum       []any                 `json:"enum"`
	Required   []string              `json:"required"`
	Properties map[string]*refSchema `json:"properties"`
	Items      *refSchema            `json:"items"`
	// Additional is true or a schema.
	Additional json.RawMessage `json:"additionalProperties"`
}

func generate(data []byte) ([]byte, error) {
	var doc document
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("reading the reference: %w", err)
	}
	defs := map[string]*refSchema{}
	for name, raw := range doc.Definitions {
		var s refSchema
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("definition %s: %w", name, err)
		}
		defs[name] = &s
	}
	f := apischema.File{Operations: map[string]*apischema.Operation{}}
	for path, methods := range doc.Paths {
		for method, raw := range methods {
			if method == "parameters" {
				continue
			}
			var o refOperation
			if err := json.Unmarshal(raw, &o); err != nil {
				return nil, fmt.Errorf("%s %s: %w", method, path, err)
			}
			op, err := operation(strings.ToUpper(method), doc.BasePath+path, o, defs)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", o.OperationID, err)
			}
			if f.Operations[o.OperationID] != nil {
				return nil, fmt.Errorf("operation %s appears twice", o.OperationID)
			}
			f.Operations[o.OperationID] = op
		}
	}
	for name, resp := range projectResponses() {
		switch op := f.Operations[name]; {
		case op == nil:
			// Not in this reference (a partial one, as the tests' is).
		case op.Response != nil:
			return nil, fmt.Errorf("project response of %s: the reference gives its schema now: remove it from projectResponses", name)
		default:
			op.Response = resp
		}
	}
	for name, op := range projectOperations(defs) {
		if f.Operations[name] != nil {
			return nil, fmt.Errorf("project operation %s is in the reference now: remove it from projectOperations", name)
		}
		f.Operations[name] = op
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", " ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(f); err != nil {
		return nil, err
	}
	if err := brandNeutral(buf.Bytes(), doc); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// operation converts an operation of the reference: its success status is
// its lowest 2xx or 3xx response.
func operation(method, path string, o refOperation, defs map[string]*refSchema) (*apischema.Operation, error) {
	var codes []int
	for code := range o.Responses {
		if n, err := strconv.Atoi(code); err == nil && n >= 200 && n < 400 {
			codes = append(codes, n)
		}
	}
	if len(codes) == 0 {
		return nil, fmt.Errorf("no success response")
	}
	status := slices.Min(codes)
	op := &apischema.Operation{Method: method, Path: path, Status: status, Source: "reference"}
	if raw := o.Responses[strconv.Itoa(status)].Schema; len(raw) > 0 {
		var s refSchema
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		var err error
		if op.Response, err = convert(&s, defs, nil); err != nil {
			return nil, err
		}
	}
	return op, nil
}

// convert resolves a reference schema into the schema file's form; seen
// holds the definitions being resolved, to refuse a cycle.
func convert(s *refSchema, defs map[string]*refSchema, seen []string) (*apischema.Schema, error) {
	if s.Ref != "" {
		name := strings.TrimPrefix(s.Ref, "#/definitions/")
		def := defs[name]
		if def == nil {
			return nil, fmt.Errorf("unknown reference %s", s.Ref)
		}
		if slices.Contains(seen, name) {
			return nil, fmt.Errorf("definition %s refers to itself", name)
		}
		out, err := convert(def, defs, append(seen, name))
		if err != nil {
			return nil, err
		}
		if err := addProjectProperties(name, out); err != nil {
			return nil, err
		}
		out.Nullable = out.Nullable || s.Nullable
		return out, nil
	}
	out := &apischema.Schema{Type: s.Type, Nullable: s.Nullable, Required: slices.Clone(s.Required)}
	if out.Type == "" {
		switch {
		case s.Properties != nil:
			out.Type = "object"
		case s.Items != nil:
			out.Type = "array"
		default:
			return nil, fmt.Errorf("a schema without a type")
		}
	}
	for _, v := range s.Enum {
		out.Enum = append(out.Enum, fmt.Sprint(v))
	}
	if len(s.Properties) > 0 {
		out.Properties = map[string]*apischema.Schema{}
		for name, p := range s.Properties {
			var err error
			if out.Properties[name], err = convert(p, defs, seen); err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
		}
	}
	if s.Items != nil {
		var err error
		if out.Items, err = convert(s.Items, defs, seen); err != nil {
			return nil, fmt.Errorf("items: %w", err)
		}
	}
	if len(s.Additional) > 0 && s.Additional[0] == '{' {
		var v refSchema
		if err := json.Unmarshal(s.Additional, &v); err != nil {
			return nil, err
		}
		var err error
		if out.Values, err = convert(&v, defs, seen); err != nil {
			return nil, fmt.Errorf("additionalProperties: %w", err)
		}
	}
	return out, nil
}

// brandNeutral refuses output that names the vendor: the first word of the
// reference's title and the second-level label of its host.
func brandNeutral(out []byte, doc document) error {
	var names []string
	if w := strings.Fields(doc.Info.Title); len(w) > 0 {
		names = append(names, w[0])
	}
	if labels := strings.Split(doc.Host, "."); len(labels) >= 2 {
		names = append(names, labels[len(labels)-2])
	}
	for _, n := range names {
		if n == "" {
			continue
		}
		if loc := regexp.MustCompile(`(?i)` + regexp.QuoteMeta(n)).FindIndex(out); loc != nil {
			return fmt.Errorf("the output names the vendor (%q at byte %d): rename or leave out what carries it", n, loc[0])
		}
	}
	return nil
}
