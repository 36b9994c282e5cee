package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go/internal/apischema"
)

// testClient is a small client: a path helper, a method per request, a
// response type with every kind, an embedded struct and a cycle.
const testClient = `package acme

import (
	"context"
	"fmt"
	"path"
	"time"
)

type Client struct{}

type Request struct{}

const MethodGet = "GET"

func (c *Client) newRequest(method, p string, body any) (*Request, error) { return nil, nil }
func (c *Client) do(ctx context.Context, req *Request, v any) error     { return nil }

type Base struct {
	ID string ` + "`json:\"id\"`" + `
}

type Thing struct {
	Base
	Size    int       ` + "`json:\"size\"`" + `
	Rate    float64   ` + "`json:\"rate\"`" + `
	Ready   bool      ` + "`json:\"ready\"`" + `
	At      time.Time ` + "`json:\"created_at\"`" + `
	Parts   []*Thing  ` + "`json:\"parts\"`" + `
	Note    string    ` + "`json:\"note,omitempty\"`" + `
	Count   int64     ` + "`json:\"count,string\"`" + `
	Skipped string    ` + "`json:\"-\"`" + `
	Untagged string
}

type thingsService struct{ client *Client }

func thingPath(org string, n uint64) string {
	return path.Join("v1/organizations", org, "things", fmt.Sprintf("%d", n))
}

func (s *thingsService) Get(ctx context.Context, org string, n uint64) (*Thing, error) {
	p := thingPath(org, n)
	req, _ := s.client.newRequest(MethodGet, p, nil)
	t := &Thing{}
	return t, s.client.do(ctx, req, &t)
}

func (s *thingsService) Other(ctx context.Context) error {
	req, _ := s.client.newRequest("POST", "v1/elsewhere", nil)
	return s.client.do(ctx, req, nil)
}
`

func writeClient(t *testing.T, module, src string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module "+module+"\n\ngo 1.22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "acme"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "acme", "acme.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

var testOps = &apischema.File{Operations: map[string]*apischema.Operation{
	"get_thing": {Method: "GET", Path: "/v1/organizations/{organization}/things/{number}"},
}}

func TestGenerate(t *testing.T) {
	t.Parallel()
	out, unmatched, err := generate(writeClient(t, "example.com/acmebase/acmebase-go", testClient), testOps)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"thingsService.Other: POST v1/elsewhere"}, unmatched); diff != "" {
		t.Errorf("unmatched (-want +got):\n%s", diff)
	}
	var f apischema.ClientFile
	if err := json.Unmarshal(out, &f); err != nil {
		t.Fatal(err)
	}
	kind := func(k string) *apischema.Schema { return &apischema.Schema{Type: k, Nullable: true} }
	thing := &apischema.Schema{Type: "object", Nullable: true, Optional: []string{"note"}, Properties: map[string]*apischema.Schema{
		"id": kind("string"), "size": kind("integer"), "rate": kind("number"), "ready": kind("boolean"),
		"created_at": kind("string"), "note": kind("string"), "count": kind("string"),
		"parts": {Type: "array", Nullable: true, Items: kind("object")},
	}}
	want := apischema.ClientFile{
		Types:      map[string]*apischema.Schema{"get_thing": thing},
		Operations: map[string][]string{"get_thing": {"get_thing"}},
	}
	if diff := cmp.Diff(want, f); diff != "" {
		t.Errorf("client file (-want +got):\n%s", diff)
	}
}

func TestBrandNeutral(t *testing.T) {
	t.Parallel()
	if err := brandNeutral([]byte(`{"types":{"get_thing":{"properties":{"AcmeBase_rate":{}}}}}`), "acmebase"); err == nil || !strings.Contains(err.Error(), "names the vendor") {
		t.Errorf("error %v, want a refusal naming the vendor", err)
	}
	if err := brandNeutral([]byte(`{"types":{}}`), "acmebase"); err != nil {
		t.Errorf("neutral output refused: %v", err)
	}
}

func TestVendor(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/acmebase/acmebase-go\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := vendor(dir); err != nil || got != "acmebase" {
		t.Errorf("vendor = %q, %v; want acmebase", got, err)
	}
}
