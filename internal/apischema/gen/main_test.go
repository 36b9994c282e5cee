package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go/internal/apischema"
)

// testReference is a small reference: one operation whose response refers
// to a definition, with descriptions, a nullable field, an enum, a list and
// a map. Its definitions include the four the project's operations use.
const testReference = `{
 "info": {"title": "Acmebase API"}, "host": "api.acmebase.example", "basePath": "/v1",
 "paths": {"/things/{id}": {"parameters": [], "get": {"operationId": "get_thing", "responses": {
  "200": {"description": "Returns a thing", "schema": {"$ref": "#/definitions/Thing"}},
  "404": {"description": "Not Found"}}}}},
 "definitions": {
  "Thing": {"type": "object", "description": "A thing", "required": ["id"], "properties": {
   "id": {"type": "string", "description": "The ID"},
   "state": {"type": "string", "enum": ["on", "off"]},
   "note": {"type": "string", "x-nullable": true},
   "parts": {"type": "array", "items": {"type": "object", "properties": {"n": {"type": "integer"}}}},
   "sizes": {"type": "object", "additionalProperties": {"type": "integer"}},
   "extra": {"type": "object", "additionalProperties": true}}},
  "ServiceToken": {"type": "object", "properties": {"service_token_accesses": {"type": "array", "x-nullable": true, "items": {"type": "object", "properties": {"id": {"type": "string"}}}}}},
  "PaginatedServiceToken": {"type": "object", "properties": {"data": {"type": "array", "items": {"type": "object"}}}},
  "ClusterSizeSku": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}},
  "Database": {"type": "object", "properties": {"data_import": {"type": "object", "x-nullable": true, "required": ["state"], "properties": {"state": {"type": "string"}}}}}
 }
}`

func TestGenerate(t *testing.T) {
	t.Parallel()
	out, err := generate([]byte(testReference))
	if err != nil {
		t.Fatal(err)
	}
	var f apischema.File
	if err := json.Unmarshal(out, &f); err != nil {
		t.Fatal(err)
	}
	want := &apischema.Operation{Method: "GET", Path: "/v1/things/{id}", Status: 200, Source: "reference", Response: &apischema.Schema{
		Type: "object", Required: []string{"id"},
		Properties: map[string]*apischema.Schema{
			"id":    {Type: "string"},
			"state": {Type: "string", Enum: []string{"on", "off"}},
			"note":  {Type: "string", Nullable: true},
			"parts": {Type: "array", Items: &apischema.Schema{Type: "object", Properties: map[string]*apischema.Schema{"n": {Type: "integer"}}}},
			"sizes": {Type: "object", Values: &apischema.Schema{Type: "integer"}},
			"extra": {Type: "object"},
		},
	}}
	if diff := cmp.Diff(want, f.Operations["get_thing"]); diff != "" {
		t.Errorf("get_thing (-want +got):\n%s", diff)
	}
	if strings.Contains(string(out), "The ID") || strings.Contains(string(out), "Returns") {
		t.Errorf("the output keeps descriptions:\n%s", out)
	}
	for _, name := range []string{"list_service_token_accesses", "add_service_token_accesses", "remove_service_token_accesses", "list_service_token_grants", "oauth_authorize", "oauth_token",
		"list_branch_cluster_size_skus", "get_branch_infrastructure", "update_keyspace_read_only_regions"} {
		if f.Operations[name] == nil || f.Operations[name].Source != "project" {
			t.Errorf("%s: %+v, want the project's entry", name, f.Operations[name])
		}
	}
}

func TestGenerateRefusesVendorNames(t *testing.T) {
	t.Parallel()
	ref := strings.Replace(testReference, `"enum": ["on", "off"]`, `"enum": ["on", "acmebase_managed"]`, 1)
	if _, err := generate([]byte(ref)); err == nil || !strings.Contains(err.Error(), "Acmebase") {
		t.Errorf("err = %v, want the output refused for naming the vendor", err)
	}
}

// TestGenerateAddsProjectProperties checks that a definition of the
// reference gets the properties the project adds to it (a workflow's
// tables, streams and verification), required, and that one the
// reference has itself is refused rather than hidden.
func TestGenerateAddsProjectProperties(t *testing.T) {
	t.Parallel()
	ref := strings.Replace(testReference, `"definitions": {`, `"definitions": {
  "Workflow": {"type": "object", "required": ["id"], "properties": {"id": {"type": "string"}}},`, 1)
	ref = strings.Replace(ref, `"#/definitions/Thing"`, `"#/definitions/Workflow"`, 1)
	out, err := generate([]byte(ref))
	if err != nil {
		t.Fatal(err)
	}
	var f apischema.File
	if err := json.Unmarshal(out, &f); err != nil {
		t.Fatal(err)
	}
	got := f.Operations["get_thing"].Response
	if diff := cmp.Diff([]string{"id", "streams", "tables", "vdiff"}, got.Required); diff != "" {
		t.Errorf("required (-want +got):\n%s", diff)
	}
	if vd := got.Properties["vdiff"]; vd == nil || !vd.Nullable || vd.Properties["table_reports"] == nil {
		t.Errorf("vdiff = %+v, want a nullable object with table_reports", vd)
	}
	if s := got.Properties["streams"]; s == nil || s.Items == nil || s.Items.Properties["logs"] == nil {
		t.Errorf("streams = %+v, want a list of streams with logs", s)
	}
	clash := strings.Replace(ref, `"properties": {"id": {"type": "string"}}}`, `"properties": {"id": {"type": "string"}, "streams": {"type": "array", "items": {"type": "string"}}}}`, 1)
	if _, err := generate([]byte(clash)); err == nil || !strings.Contains(err.Error(), "Workflow has streams now") {
		t.Errorf("err = %v, want the reference's own streams refused", err)
	}
}
