package fake_test

import (
	"encoding/json"
	"html"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// vsEnv is a drEnv with the sharded keyspace, and a ready development
// branch dev that adds accounts, keyed by tenant, to it.
func vsEnv(t *testing.T) *drEnv {
	t.Helper()
	e := newDREnv(t, true)
	e.branch("dev", "CREATE TABLE sharded.accounts (tenant_id bigint, id bigint, PRIMARY KEY (`tenant_id`, id))")
	return e
}

// vschemaOf reads a keyspace's VSchema document.
func vschemaOf(t *testing.T, e *drEnv, branch, keyspace string) string {
	t.Helper()
	v, err := e.c.Keyspaces.GetVSchema(t.Context(), &platform.GetVSchemaParams{Organization: e.org, Database: drDB, Branch: branch, Keyspace: keyspace})
	if err != nil {
		t.Fatal(err)
	}
	if want := "<pre>" + html.EscapeString(v.Raw) + "</pre>"; v.HTML != want {
		t.Errorf("html %q, want %q", v.HTML, want)
	}
	return v.Raw
}

// routingRulesOf reads a branch's routing rules document.
func routingRulesOf(t *testing.T, e *drEnv, branch string) string {
	t.Helper()
	r, err := e.c.Branches.GetRoutingRules(t.Context(), &platform.GetRoutingRulesParams{Organization: e.org, Database: drDB, Branch: branch})
	if err != nil {
		t.Fatal(err)
	}
	return r.Raw
}

func TestVSchemaDefaults(t *testing.T) {
	t.Parallel()
	e := vsEnv(t)
	tests := []struct {
		branch, keyspace string
		want             string
	}{
		{branch: "main", keyspace: "app", want: `{
  "sharded": false,
  "tables": {
    "audit": {},
    "users": {}
  }
}`},
		{branch: "dev", keyspace: "sharded", want: `{
  "sharded": true,
  "tables": {
    "accounts": {
      "column_vindexes": [
        {
          "column": "tenant_id",
          "name": "hash"
        }
      ]
    },
    "events": {
      "column_vindexes": [
        {
          "column": "id",
          "name": "hash"
        }
      ]
    }
  },
  "vindexes": {
    "hash": {
      "type": "hash"
    }
  }
}`},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, vschemaOf(t, e, tt.branch, tt.keyspace)); diff != "" {
			t.Errorf("VSchema of %s/%s (-want +got):\n%s", tt.branch, tt.keyspace, diff)
		}
	}
	if diff := cmp.Diff("{\n  \"rules\": []\n}", routingRulesOf(t, e, "main")); diff != "" {
		t.Errorf("default routing rules (-want +got):\n%s", diff)
	}
	// The default follows the tables until a VSchema is set.
	if err := e.srv.PushSchema(e.org, drDB, "dev", "CREATE TABLE extra (id bigint, PRIMARY KEY (id))"); err != nil {
		t.Fatal(err)
	}
	if got := vschemaOf(t, e, "dev", "app"); !strings.Contains(got, `"extra": {}`) {
		t.Errorf("dev's default VSchema %s lacks the new table extra", got)
	}
	// A primary key declared with its column is the table's key too.
	if err := e.srv.PushSchema(e.org, drDB, "dev", "CREATE TABLE sharded.tenants (`tenantKey` bigint NOT NULL PRIMARY KEY, name text)"); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tables map[string]struct {
			ColumnVindexes []struct{ Column, Name string } `json:"column_vindexes"`
		} `json:"tables"`
	}
	if err := json.Unmarshal([]byte(vschemaOf(t, e, "dev", "sharded")), &doc); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]struct{ Column, Name string }{{"tenantKey", "hash"}}, doc.Tables["tenants"].ColumnVindexes); diff != "" {
		t.Errorf("column_vindexes of tenants, keyed by an inline primary key (-want +got):\n%s", diff)
	}
}

// TestUpdateVSchemaAndRoutingRules sets both documents: each reads back
// indented, a new branch starts with its parent's, and the parent's
// later changes are not the child's.
func TestUpdateVSchemaAndRoutingRules(t *testing.T) {
	t.Parallel()
	e := vsEnv(t)
	ctx := t.Context()
	vs, err := e.c.Keyspaces.UpdateVSchema(ctx, &platform.UpdateVSchemaParams{
		Organization: e.org, Database: drDB, Branch: "dev", Keyspace: "sharded",
		VSchema: `{"sharded":true,"vindexes":{"xx":{"type":"xxhash"}},"tables":{"accounts":{"column_vindexes":[{"column":"id","name":"xx"}]},"events":{"column_vindexes":[{"columns":["id"],"name":"xx"}]},"seq":{"type":"sequence"}}}`,
	})
	if err != nil {
		t.Fatal(err)
	}
	wantVS := `{
  "sharded": true,
  "vindexes": {
    "xx": {
      "type": "xxhash"
    }
  },
  "tables": {
    "accounts": {
      "column_vindexes": [
        {
          "column": "id",
          "name": "xx"
        }
      ]
    },
    "events": {
      "column_vindexes": [
        {
          "columns": [
            "id"
          ],
          "name": "xx"
        }
      ]
    },
    "seq": {
      "type": "sequence"
    }
  }
}`
	if diff := cmp.Diff(wantVS, vs.Raw); diff != "" {
		t.Errorf("update answered (-want +got):\n%s", diff)
	}
	rr, err := e.c.Branches.UpdateRoutingRules(ctx, &platform.UpdateRoutingRulesParams{
		Organization: e.org, Database: drDB, Branch: "dev",
		RoutingRules: `{"rules":[{"from_table":"users","to_tables":["sharded.users"]}]}`,
	})
	if err != nil {
		t.Fatal(err)
	}
	wantRR := "{\n  \"rules\": [\n    {\n      \"from_table\": \"users\",\n      \"to_tables\": [\n        \"sharded.users\"\n      ]\n    }\n  ]\n}"
	if diff := cmp.Diff(wantRR, rr.Raw); diff != "" {
		t.Errorf("update answered (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantVS, vschemaOf(t, e, "dev", "sharded")); diff != "" {
		t.Errorf("VSchema read back (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantRR, routingRulesOf(t, e, "dev")); diff != "" {
		t.Errorf("routing rules read back (-want +got):\n%s", diff)
	}
	mainVS := vschemaOf(t, e, "main", "sharded")
	if mainVS == wantVS || routingRulesOf(t, e, "main") == wantRR {
		t.Error("updating dev changed main's documents")
	}

	if _, err := e.c.Branches.Create(ctx, &platform.CreateBranchParams{Organization: e.org, Database: drDB, Name: "child", ParentBranch: "dev"}); err != nil {
		t.Fatal(err)
	}
	e.srv.Advance(5 * time.Second)
	if _, err := e.c.Branches.UpdateRoutingRules(ctx, &platform.UpdateRoutingRulesParams{Organization: e.org, Database: drDB, Branch: "dev", RoutingRules: `{"rules":[]}`}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantVS, vschemaOf(t, e, "child", "sharded")); diff != "" {
		t.Errorf("child's VSchema (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantRR, routingRulesOf(t, e, "child")); diff != "" {
		t.Errorf("child's routing rules (-want +got):\n%s", diff)
	}
}

func TestUpdateVSchemaRefusals(t *testing.T) {
	t.Parallel()
	e := vsEnv(t)
	if _, err := e.c.Branches.Create(t.Context(), &platform.CreateBranchParams{Organization: e.org, Database: drDB, Name: "pending", ParentBranch: "main"}); err != nil {
		t.Fatal(err)
	}
	const unprocessable = http.StatusUnprocessableEntity
	tests := []struct {
		name, branch, keyspace, vschema string
		status                          int
		words                           []string
	}{
		{name: "empty", vschema: "", status: unprocessable, words: []string{"vschema is required"}},
		{name: "not JSON", vschema: "{tables", status: unprocessable, words: []string{"vschema is not valid JSON"}},
		{name: "two values", vschema: "{} {}", status: unprocessable, words: []string{"vschema is not valid JSON"}},
		{name: "array", vschema: "[]", status: unprocessable, words: []string{"vschema must be a JSON object, got an array"}},
		{name: "sharded not boolean", vschema: `{"sharded":"yes"}`, status: unprocessable, words: []string{"sharded must be a boolean, got a string"}},
		{name: "sharded on one shard", vschema: `{"sharded":true}`, status: unprocessable, words: []string{"keyspace app has one shard", "sharded must be false"}},
		{name: "unsharded on shards", keyspace: "sharded", vschema: `{"sharded":false}`, status: unprocessable, words: []string{"keyspace sharded is sharded", "sharded must be true"}},
		{name: "vindexes not object", vschema: `{"vindexes":[]}`, status: unprocessable, words: []string{"vindexes must be an object, got an array"}},
		{name: "vindex not object", vschema: `{"vindexes":{"h":1}}`, status: unprocessable, words: []string{`vindex "h" must be an object`}},
		{name: "vindex without type", vschema: `{"vindexes":{"h":{}}}`, status: unprocessable, words: []string{`vindex "h" needs a type`}},
		{name: "tables not object", vschema: `{"tables":null}`, status: unprocessable, words: []string{"tables must be an object, got null"}},
		{name: "table not object", vschema: `{"tables":{"t":1}}`, status: unprocessable, words: []string{`table "t" must be an object, got a number`}},
		{name: "column_vindexes not array", vschema: `{"tables":{"t":{"column_vindexes":{}}}}`, status: unprocessable, words: []string{`column_vindexes of table "t" must be an array`}},
		{name: "column vindex not object", vschema: `{"tables":{"t":{"column_vindexes":["id"]}}}`, status: unprocessable, words: []string{`column_vindexes[0] of table "t" must be an object`}},
		{name: "undefined vindex", vschema: `{"tables":{"t":{"column_vindexes":[{"column":"id","name":"nope"}]}}}`, status: unprocessable, words: []string{`names vindex "nope"`, "does not define"}},
		{name: "vindex without column", vschema: `{"vindexes":{"h":{"type":"hash"}},"tables":{"t":{"column_vindexes":[{"name":"h"}]}}}`, status: unprocessable, words: []string{`column_vindexes[0] of table "t" needs a column`}},
		{name: "sharded table without vindex", keyspace: "sharded", vschema: `{"sharded":true,"tables":{"events":{}}}`, status: unprocessable, words: []string{`table "events" of sharded keyspace sharded needs a vindex`}},
		{name: "unknown keyspace", keyspace: "nope", vschema: `{}`, status: http.StatusNotFound},
		{name: "pending branch", branch: "pending", vschema: `{}`, status: unprocessable, words: []string{"branch pending is not ready"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			branch, keyspace := tt.branch, tt.keyspace
			if branch == "" {
				branch = "dev"
			}
			if keyspace == "" {
				keyspace = "app"
			}
			before := opWorldState(t, e.srv)
			_, err := e.c.Keyspaces.UpdateVSchema(t.Context(), &platform.UpdateVSchemaParams{Organization: e.org, Database: drDB, Branch: branch, Keyspace: keyspace, VSchema: tt.vschema})
			apiError(t, err, tt.status, tt.words...)
			if diff := worldStateDiff(t, before, opWorldState(t, e.srv)); diff != "" {
				t.Errorf("refused update changed the world (-before +after):\n%s", diff)
			}
		})
	}
}

func TestUpdateRoutingRulesRefusals(t *testing.T) {
	t.Parallel()
	e := vsEnv(t)
	tests := []struct {
		name, rules string
		words       []string
	}{
		{name: "empty", rules: "", words: []string{"routing_rules is required"}},
		{name: "not JSON", rules: `{"rules":`, words: []string{"routing_rules is not valid JSON"}},
		{name: "array", rules: `[{"from_table":"t"}]`, words: []string{"routing_rules must be a JSON object, got an array"}},
		{name: "unknown field", rules: `{"rules":[],"extra":1}`, words: []string{`unknown field "extra"`}},
		{name: "rules not array", rules: `{"rules":{}}`, words: []string{"rules must be an array, got an object"}},
		{name: "rule not object", rules: `{"rules":[true]}`, words: []string{"rules[0] must be an object, got a boolean"}},
		{name: "no from_table", rules: `{"rules":[{"to_tables":["ks.t"]}]}`, words: []string{"rules[0] needs from_table"}},
		{name: "no to_tables", rules: `{"rules":[{"from_table":"t"}]}`, words: []string{"rules[0] needs to_tables"}},
		{name: "empty to_tables", rules: `{"rules":[{"from_table":"t","to_tables":[]}]}`, words: []string{"rules[0] needs to_tables"}},
		{name: "bad table name", rules: `{"rules":[{"from_table":"t","to_tables":["ks.t",7]}]}`, words: []string{"rules[0].to_tables[1] must be a table name"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := opWorldState(t, e.srv)
			_, err := e.c.Branches.UpdateRoutingRules(t.Context(), &platform.UpdateRoutingRulesParams{Organization: e.org, Database: drDB, Branch: "dev", RoutingRules: tt.rules})
			apiError(t, err, http.StatusUnprocessableEntity, tt.words...)
			if diff := worldStateDiff(t, before, opWorldState(t, e.srv)); diff != "" {
				t.Errorf("refused update changed the world (-before +after):\n%s", diff)
			}
		})
	}
}

// TestVSchemaPermissionByBranchKind checks that each VSchema permission
// covers its kind of branch only, for both documents; a refusal is not
// found and changes nothing.
func TestVSchemaPermissionByBranchKind(t *testing.T) {
	t.Parallel()
	e := vsEnv(t)
	dev := e.token("", "read_branch", "write_branch_vschema")
	prod := e.token("", "read_branch", "write_production_branch_vschema")
	tests := []struct {
		name   string
		c      *platform.Client
		branch string
		allow  bool
	}{
		{name: "development permission on dev", c: dev, branch: "dev", allow: true},
		{name: "development permission on main", c: dev, branch: "main"},
		{name: "production permission on main", c: prod, branch: "main", allow: true},
		{name: "production permission on dev", c: prod, branch: "dev"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := opWorldState(t, e.srv)
			_, errVS := tt.c.Keyspaces.UpdateVSchema(t.Context(), &platform.UpdateVSchemaParams{Organization: e.org, Database: drDB, Branch: tt.branch, Keyspace: "app", VSchema: `{"tables":{}}`})
			_, errRR := tt.c.Branches.UpdateRoutingRules(t.Context(), &platform.UpdateRoutingRulesParams{Organization: e.org, Database: drDB, Branch: tt.branch, RoutingRules: `{"rules":[]}`})
			for _, err := range []error{errVS, errRR} {
				if tt.allow {
					if err != nil {
						t.Errorf("refused: %v", err)
					}
					continue
				}
				apiError(t, err, http.StatusNotFound)
			}
			if !tt.allow {
				if diff := worldStateDiff(t, before, opWorldState(t, e.srv)); diff != "" {
					t.Errorf("refused updates changed the world (-before +after):\n%s", diff)
				}
			}
		})
	}
}

func TestVSchemaOfPostgreSQL(t *testing.T) {
	t.Parallel()
	e := newDREnv(t, false)
	if _, err := e.c.Databases.Create(t.Context(), &platform.CreateDatabaseParams{Organization: e.org, Name: "pg", ClusterSize: "PS_10", Kind: platform.KindPostgreSQL}); err != nil {
		t.Fatal(err)
	}
	e.srv.Advance(5 * time.Second)
	ks, err := e.c.Keyspaces.List(t.Context(), &platform.ListKeyspacesParams{Organization: e.org, Database: "pg", Branch: "main"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.c.Keyspaces.GetVSchema(t.Context(), &platform.GetVSchemaParams{Organization: e.org, Database: "pg", Branch: "main", Keyspace: ks.Items[0].Name})
	apiError(t, err, http.StatusUnprocessableEntity, "MySQL", "pg is a postgresql database")
	_, err = e.c.Branches.GetRoutingRules(t.Context(), &platform.GetRoutingRulesParams{Organization: e.org, Database: "pg", Branch: "main"})
	apiError(t, err, http.StatusUnprocessableEntity, "MySQL")
	before := opWorldState(t, e.srv)
	_, err = e.c.Branches.UpdateRoutingRules(t.Context(), &platform.UpdateRoutingRulesParams{Organization: e.org, Database: "pg", Branch: "main", RoutingRules: `{"rules":[]}`})
	apiError(t, err, http.StatusUnprocessableEntity, "MySQL", "pg is a postgresql database")
	if diff := worldStateDiff(t, before, opWorldState(t, e.srv)); diff != "" {
		t.Errorf("a refused update changed the world (-before +after):\n%s", diff)
	}
}

// TestWorkflowIntoShardedVSchemaRestores checks that a workflow completed
// into a sharded keyspace whose VSchema is its own, without a vindex
// named hash, leaves a VSchema the API would take: the table it adds, on
// hash, comes with the hash vindex. Restore, which refuses a VSchema that
// update_vschema refuses, takes the world.
func TestWorkflowIntoShardedVSchemaRestores(t *testing.T) {
	t.Parallel()
	e := newDREnv(t, true)
	ctx := t.Context()
	ks := &platform.GetVSchemaParams{Organization: e.org, Database: drDB, Branch: "main", Keyspace: "sharded"}
	own := `{"sharded": true, "vindexes": {"xx": {"type": "xxhash"}}, "tables": {}}`
	if _, err := e.c.Keyspaces.UpdateVSchema(ctx, &platform.UpdateVSchemaParams{Organization: e.org, Database: drDB, Branch: "main", Keyspace: "sharded", VSchema: own}); err != nil {
		t.Fatal(err)
	}
	p := &platform.CreateWorkflowParams{Organization: e.org, Database: drDB, Name: "move-audit", SourceKeyspace: drDB, TargetKeyspace: "sharded", Tables: []string{"audit"}}
	wfDrive(t, e.srv, nil, p, platform.WorkflowCompleted)
	vs, err := e.c.Keyspaces.GetVSchema(ctx, ks)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Vindexes map[string]struct {
			Type string `json:"type"`
		} `json:"vindexes"`
	}
	if err := json.Unmarshal([]byte(vs.Raw), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Vindexes["hash"].Type != "hash" || doc.Vindexes["xx"].Type != "xxhash" {
		t.Errorf("vindexes %+v, want xx and hash", doc.Vindexes)
	}
	data, err := e.srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if err := fake.NewServer(t).Restore(data); err != nil {
		t.Errorf("Restore: %v", err)
	}
}
