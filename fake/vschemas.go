package fake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/dbplatform/platform-go"
)

// A keyspace's VSchema and a branch's routing rules are JSON documents the
// fake keeps as the last update left them (indented), and shows as a
// default until the first update: an unsharded keyspace's VSchema lists
// its tables; a sharded keyspace's shards each table with a hash vindex
// on its first primary key column; routing rules are {"rules": []}. A
// new branch starts with its parent's documents. Both are MySQL's.

// defaultRoutingRules are a branch's routing rules before any update.
const defaultRoutingRules = "{\n  \"rules\": []\n}"

// primaryKeyRe finds the first column of a table's primary key declared
// as a constraint, PRIMARY KEY (col, ...).
var primaryKeyRe = regexp.MustCompile("(?i)primary\\s+key\\s*\\(\\s*`?([A-Za-z0-9_$]+)")

// primaryKeyColumn is the first column of the primary key of a table
// defined by create, as its definition spells it: the constraint's first
// column, or the column declared PRIMARY KEY; "id" when it has neither.
func primaryKeyColumn(create string) string {
	if m := primaryKeyRe.FindStringSubmatch(create); m != nil {
		return m[1]
	}
	indexes, columns := tableDefinition(create)
	for _, ix := range indexes {
		if !ix.primary || len(ix.cols) == 0 {
			continue
		}
		for _, c := range columns {
			if strings.EqualFold(c, ix.cols[0]) {
				return c
			}
		}
	}
	return "id"
}

func vschemaRoutes() []route {
	return []route{
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/keyspaces/{keyspace}/vschema", op: "get_keyspace_vschema", handler: read(getVSchema)},
		{pattern: "PATCH /v1/organizations/{organization}/databases/{database}/branches/{branch}/keyspaces/{keyspace}/vschema", op: "update_keyspace_vschema", handler: withBody(updateVSchema)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/routing-rules", op: "get_branch_routing_rules", handler: read(getRoutingRules)},
		{pattern: "PATCH /v1/organizations/{organization}/databases/{database}/branches/{branch}/routing-rules", op: "update_branch_routing_rules", handler: withBody(updateRoutingRules)},
	}
}

// vschemaBranch returns the path's branch and refuses a PostgreSQL
// database's, which has no VSchema.
func vschemaBranch(c *call) (*branchRec, error) {
	b := c.branch
	if b.db.kind != platform.KindMySQL {
		return nil, unprocessable("VSchema and routing rules are MySQL's; %s is a %s database", b.db.name, b.db.kind)
	}
	return b, nil
}

// vschemaKeyspace finds the path's keyspace of a MySQL branch.
func vschemaKeyspace(c *call) (*keyspaceRec, error) {
	if _, err := vschemaBranch(c); err != nil {
		return nil, err
	}
	return c.keyspace()
}

// mayWriteVSchema checks the permission of b's kind: each of the
// operation's two permissions covers one kind of branch. A refusal is not
// found, as for every missing permission.
func mayWriteVSchema(c *call, b *branchRec) error {
	perm := "write_branch_vschema"
	if b.production {
		perm = "write_production_branch_vschema"
	}
	if !c.holds([]string{perm}, []string{perm}, b) {
		return notFound()
	}
	if !b.ready {
		return unprocessable("branch %s is not ready", b.name)
	}
	return nil
}

func getVSchema(c *call) (any, error) {
	ks, err := vschemaKeyspace(c)
	if err != nil {
		return nil, err
	}
	return renderVSchema(ks.vschemaText()), nil
}

func updateVSchema(c *call, p *platform.UpdateVSchemaParams) (any, error) {
	ks, err := vschemaKeyspace(c)
	if err != nil {
		return nil, err
	}
	if err := mayWriteVSchema(c, ks.branch); err != nil {
		return nil, err
	}
	doc, err := jsonObject("vschema", p.VSchema)
	if err != nil {
		return nil, err
	}
	if err := checkVSchema(ks, doc); err != nil {
		return nil, err
	}
	m := ks.x()
	m.vschema = indentJSON(p.VSchema)
	ks.updated = c.now
	return renderVSchema(m.vschema), nil
}

func getRoutingRules(c *call) (any, error) {
	b, err := vschemaBranch(c)
	if err != nil {
		return nil, err
	}
	return renderRoutingRules(b.routingRulesText()), nil
}

func updateRoutingRules(c *call, p *platform.UpdateRoutingRulesParams) (any, error) {
	b, err := vschemaBranch(c)
	if err != nil {
		return nil, err
	}
	if err := mayWriteVSchema(c, b); err != nil {
		return nil, err
	}
	doc, err := jsonObject("routing_rules", p.RoutingRules)
	if err != nil {
		return nil, err
	}
	if err := checkRoutingRules(doc); err != nil {
		return nil, err
	}
	m := b.x()
	m.routingRules = indentJSON(p.RoutingRules)
	b.updated = c.now
	return renderRoutingRules(m.routingRules), nil
}

func renderVSchema(raw string) *platform.VSchema {
	return &platform.VSchema{Raw: raw, HTML: htmlPre(raw)}
}

func renderRoutingRules(raw string) *platform.RoutingRules {
	return &platform.RoutingRules{Raw: raw, HTML: htmlPre(raw)}
}

// routingRulesText is the branch's routing rules, or the default.
func (b *branchRec) routingRulesText() string {
	if r := b.more.read().routingRules; r != "" {
		return r
	}
	return defaultRoutingRules
}

// vschemaText is the keyspace's VSchema, or the default for its tables.
func (ks *keyspaceRec) vschemaText() string {
	if v := ks.more.read().vschema; v != "" {
		return v
	}
	tables := map[string]any{}
	doc := map[string]any{"sharded": ks.sharded(), "tables": tables}
	if ks.sharded() {
		doc["vindexes"] = map[string]any{"hash": map[string]any{"type": "hash"}}
	}
	for name, create := range ks.tables {
		if !ks.sharded() {
			tables[name] = map[string]any{}
			continue
		}
		tables[name] = map[string]any{"column_vindexes": []any{map[string]any{"column": primaryKeyColumn(create), "name": "hash"}}}
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		panic(err) // maps of strings always marshal
	}
	return string(out)
}

// sharded reports whether the keyspace has more than one shard.
func (ks *keyspaceRec) sharded() bool { return ks.shards > 1 }

// jsonObject parses field's text, which must be a JSON object.
func jsonObject(field, text string) (map[string]any, error) {
	if text == "" {
		return nil, unprocessable("%s is required: the JSON text of an object", field)
	}
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		return nil, unprocessable("%s is not valid JSON: %v", field, err)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, unprocessable("%s must be a JSON object, got %s", field, jsonKind(v))
	}
	return obj, nil
}

// jsonKind names the JSON type of a decoded value.
func jsonKind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	default:
		return "null"
	}
}

// checkVSchema validates a VSchema for ks: sharded, when given, matches
// the keyspace; vindexes are objects with a type; tables are objects whose
// column_vindexes name defined vindexes; and in a sharded keyspace every
// table but a reference or sequence table has a column vindex.
func checkVSchema(ks *keyspaceRec, doc map[string]any) error {
	if v, ok := doc["sharded"]; ok {
		sharded, isBool := v.(bool)
		switch {
		case !isBool:
			return unprocessable("vschema: sharded must be a boolean, got %s", jsonKind(v))
		case sharded && !ks.sharded():
			return unprocessable("vschema: keyspace %s has one shard: sharded must be false", ks.name)
		case !sharded && ks.sharded():
			return unprocessable("vschema: keyspace %s is sharded (%d shards): sharded must be true", ks.name, ks.shards)
		}
	}
	vindexes, err := objectField(doc, "vindexes", "vschema: vindexes")
	if err != nil {
		return err
	}
	for _, name := range sortedKeys(vindexes) {
		vx, ok := vindexes[name].(map[string]any)
		if !ok {
			return unprocessable("vschema: vindex %q must be an object, got %s", name, jsonKind(vindexes[name]))
		}
		if typ, _ := vx["type"].(string); typ == "" {
			return unprocessable("vschema: vindex %q needs a type, such as \"hash\"", name)
		}
	}
	tables, err := objectField(doc, "tables", "vschema: tables")
	if err != nil {
		return err
	}
	for _, name := range sortedKeys(tables) {
		t, ok := tables[name].(map[string]any)
		if !ok {
			return unprocessable("vschema: table %q must be an object, got %s", name, jsonKind(tables[name]))
		}
		if err := checkColumnVindexes(ks, name, t, vindexes); err != nil {
			return err
		}
	}
	return nil
}

// checkColumnVindexes validates one table of a VSchema.
func checkColumnVindexes(ks *keyspaceRec, table string, t, vindexes map[string]any) error {
	raw, given := t["column_vindexes"]
	cvs, ok := raw.([]any)
	if given && !ok {
		return unprocessable("vschema: column_vindexes of table %q must be an array, got %s", table, jsonKind(raw))
	}
	for i, cv := range cvs {
		o, ok := cv.(map[string]any)
		if !ok {
			return unprocessable("vschema: column_vindexes[%d] of table %q must be an object, got %s", i, table, jsonKind(cv))
		}
		name, _ := o["name"].(string)
		if _, ok := vindexes[name]; !ok {
			return unprocessable("vschema: column_vindexes[%d] of table %q names vindex %q, which vindexes does not define", i, table, name)
		}
		_, column := o["column"].(string)
		_, columns := o["columns"].([]any)
		if !column && !columns {
			return unprocessable("vschema: column_vindexes[%d] of table %q needs a column (or columns)", i, table)
		}
	}
	typ, _ := t["type"].(string)
	if ks.sharded() && len(cvs) == 0 && !slices.Contains([]string{"reference", "sequence"}, typ) {
		return unprocessable("vschema: table %q of sharded keyspace %s needs a vindex: give it column_vindexes", table, ks.name)
	}
	return nil
}

// objectField returns doc's key, which must be an object when present.
func objectField(doc map[string]any, key, what string) (map[string]any, error) {
	v, ok := doc[key]
	if !ok {
		return nil, nil
	}
	o, ok := v.(map[string]any)
	if !ok {
		return nil, unprocessable("%s must be an object, got %s", what, jsonKind(v))
	}
	return o, nil
}

// checkRoutingRules validates routing rules: an object whose only key,
// rules, is a list of {"from_table": "t", "to_tables": ["ks.t", ...]}.
func checkRoutingRules(doc map[string]any) error {
	for _, k := range sortedKeys(doc) {
		if k != "rules" {
			return unprocessable("routing_rules: unknown field %q; the document holds rules only", k)
		}
	}
	rules, ok := doc["rules"].([]any)
	if _, given := doc["rules"]; given && !ok {
		return unprocessable("routing_rules: rules must be an array, got %s", jsonKind(doc["rules"]))
	}
	for i, r := range rules {
		rule, ok := r.(map[string]any)
		if !ok {
			return unprocessable("routing_rules: rules[%d] must be an object, got %s", i, jsonKind(r))
		}
		if from, _ := rule["from_table"].(string); from == "" {
			return unprocessable("routing_rules: rules[%d] needs from_table, the table it routes", i)
		}
		to, ok := rule["to_tables"].([]any)
		if !ok || len(to) == 0 {
			return unprocessable("routing_rules: rules[%d] needs to_tables, a non-empty array of table names", i)
		}
		for j, t := range to {
			if s, _ := t.(string); s == "" {
				return unprocessable("routing_rules: rules[%d].to_tables[%d] must be a table name", i, j)
			}
		}
	}
	return nil
}

// indentJSON indents valid JSON text two spaces a level.
func indentJSON(text string) string {
	var out bytes.Buffer
	if err := json.Indent(&out, []byte(text), "", "  "); err != nil {
		panic(fmt.Sprintf("indentJSON of checked JSON: %v", err))
	}
	return out.String()
}
