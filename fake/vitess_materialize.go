package fake

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake/internal/sqltext"
)

// Materialize: a VReplication workflow of kind Materialize (see
// vreplication.go) that fills tables of a target keyspace from SELECTs on
// a source keyspace. Creating one makes the target tables it is given DDL
// for (or "copy": the source table's definition) in the target keyspace's
// schema, as Vitess deploys them before the streams start; the streams
// then copy (Timings.VReplicationCopy) and replicate, or stop after the
// copy when asked. Start and stop act on its streams; cancel deletes it
// and, unless keep_data, drops its target tables from the schema and the
// VSchema, as Vitess's workflow delete does.

// vrNameRe is what a workflow's (or lookup vindex's) name may be.
var vrNameRe = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_-]{0,63}$`)

// materializeTable is a target table of a Materialize being made: its
// name, its filter, and its CREATE TABLE when the workflow makes it.
type materializeTable struct {
	name, filter, create string
}

// materializePlan is a checked materialize_create: everything it makes.
type materializePlan struct {
	name           string
	source, target *keyspaceRec
	tables         []materializeTable
	opts           vrOptions
}

func vitessMaterializeRoutes() []route {
	const base = "/v1/organizations/{organization}/databases/{database}/branches/{branch}/materialize/workflows"
	return []route{
		{pattern: "POST " + base, op: "materialize_create", handler: withBody(materializeCreate)},
		{pattern: "GET " + base + "/{workflow}", op: "materialize_show", handler: read(materializeShow)},
		{pattern: "POST " + base + "/{workflow}/start", op: "materialize_start", handler: withBody(materializeStart)},
		{pattern: "POST " + base + "/{workflow}/stop", op: "materialize_stop", handler: withBody(materializeStop)},
		{pattern: "POST " + base + "/{workflow}/cancel", op: "materialize_cancel", handler: withBody(materializeCancel)},
	}
}

func materializeCreate(c *call, p *platform.CreateMaterializeParams) (any, error) {
	b, err := c.vitessBranch()
	if err != nil {
		return nil, err
	}
	plan, err := c.w.checkMaterialize(b, p)
	if err != nil {
		return nil, err
	}
	vw := c.w.materialize(b, plan)
	return vtctldData{map[string]any{"summary": "Materialization workflow " + vw.name + " successfully created in the " + vw.target.name +
		" keyspace: it copies " + itoa(len(vw.tables)) + " table(s) from keyspace " + vw.source.name + " on " + itoa(len(vw.targetShards)) + " target shard(s)"}}, nil
}

func materializeShow(c *call) (any, error) {
	b, err := c.vitessBranch()
	if err != nil {
		return nil, err
	}
	vw, err := c.w.materializeWorkflow(b, c.r.URL.Query().Get("target_keyspace"), c.r.PathValue("workflow"))
	if err != nil {
		return nil, err
	}
	return vtctldData{map[string]any{"workflows": []*protoWorkflow{renderVRWorkflow(vw, c.now, &c.w.timing)}}}, nil
}

func materializeStart(c *call, p *platform.StartMaterializeParams) (any, error) {
	return materializeUpdate(c, p, true)
}

func materializeStop(c *call, p *platform.StopMaterializeParams) (any, error) {
	return materializeUpdate(c, p, false)
}

// materializeUpdate starts or stops a Materialize workflow's streams.
func materializeUpdate(c *call, p *platform.MaterializeActionParams, start bool) (any, error) {
	b, err := c.vitessBranch()
	if err != nil {
		return nil, err
	}
	vw, err := c.w.materializeWorkflow(b, p.TargetKeyspace, c.r.PathValue("workflow"))
	if err != nil {
		return nil, err
	}
	var changed bool
	if start {
		changed, err = c.w.startVRWorkflow(c.who, vw)
	} else {
		changed, err = c.w.stopVRWorkflow(vw)
	}
	if err != nil {
		return nil, err
	}
	out := &protoTabletsResponse{Summary: "Successfully updated the " + vw.name + " workflow on (" + itoa(len(vw.targetShards)) + ") target primary tablets in the " + vw.target.name + " keyspace"}
	for _, a := range targetPrimaries(vw.target, vw.targetShards) {
		out.Details = append(out.Details, protoTabletInfo{Tablet: a, Changed: changed})
	}
	return vtctldData{out}, nil
}

func materializeCancel(c *call, p *platform.CancelMaterializeParams) (any, error) {
	b, err := c.vitessBranch()
	if err != nil {
		return nil, err
	}
	vw, err := c.w.materializeWorkflow(b, p.TargetKeyspace, c.r.PathValue("workflow"))
	if err != nil {
		return nil, err
	}
	out := deleteAnswer(vw)
	c.w.cancelMaterialize(vw, p.KeepData != nil && *p.KeepData)
	return vtctldData{out}, nil
}

// materializeWorkflow finds the Materialize workflow a request names: a
// 422 naming target_keyspace when it is missing or unknown, a 404 when the
// keyspace has no workflow of that name, a 422 when it has one of another
// kind.
func (w *world) materializeWorkflow(b *branchRec, keyspace, name string) (*vrWorkflow, error) {
	vw, err := w.findVRWorkflow(b, "target_keyspace", keyspace, name)
	if err != nil {
		return nil, err
	}
	if vw.kind != vrMaterialize {
		return nil, unprocessable("workflow %s of keyspace %s is a %s workflow, not a Materialize one", vw.name, vw.target.name, vw.kind)
	}
	return vw, nil
}

// checkMaterialize checks a materialize_create of branch b, naming the
// field at fault, and returns what it makes.
func (w *world) checkMaterialize(b *branchRec, p *platform.CreateMaterializeParams) (materializePlan, error) {
	var plan materializePlan
	if !b.ready {
		return plan, unprocessable("branch %s is not ready yet", b.name)
	}
	switch {
	case p.Workflow == "":
		return plan, unprocessable("workflow is required: the new workflow's name")
	case !vrNameRe.MatchString(p.Workflow):
		return plan, unprocessable("workflow %q must be letters, digits, _ and -, at most 64", p.Workflow)
	}
	source, err := w.vrKeyspace(b, "source_keyspace", p.SourceKeyspace)
	if err != nil {
		return plan, err
	}
	target, err := w.vrKeyspace(b, "target_keyspace", p.TargetKeyspace)
	if err != nil {
		return plan, err
	}
	if vw := b.more.read().vitess.vrWorkflow(target, p.Workflow); vw != nil {
		return plan, unprocessable("workflow %q: keyspace %s has a %s workflow of that name already", p.Workflow, target.name, vw.kind)
	}
	switch {
	case len(p.TableSettings) == 0 && len(p.ReferenceTables) == 0:
		return plan, unprocessable("table_settings or reference_tables is required: the tables to materialize")
	case len(p.TableSettings) > 0 && len(p.ReferenceTables) > 0:
		return plan, unprocessable("table_settings and reference_tables exclude each other: give one")
	}
	plan = materializePlan{name: p.Workflow, source: source, target: target}
	for i, ts := range p.TableSettings {
		t, err := checkMaterializeTable(source, target, "table_settings["+itoa(i)+"]", ts)
		if err != nil {
			return plan, err
		}
		plan.tables = append(plan.tables, t)
	}
	for i, name := range p.ReferenceTables {
		t, err := checkMaterializeTable(source, target, "reference_tables["+itoa(i)+"]", platform.MaterializeTableSettings{TargetTable: name, CreateDDL: "copy"})
		if err != nil {
			return plan, err
		}
		plan.tables = append(plan.tables, t)
	}
	for i, t := range plan.tables {
		if slices.ContainsFunc(plan.tables[:i], func(o materializeTable) bool { return o.name == t.name }) {
			return plan, unprocessable("target table %s is named twice", t.name)
		}
	}
	opts, err := checkVROptions(b, p.Cells, p.TabletTypes, p.OnDDL)
	if err != nil {
		return plan, err
	}
	opts.autoStart = true
	opts.stopAfterCopy = p.StopAfterCopy != nil && *p.StopAfterCopy
	opts.deferSecondaryKeys = p.DeferSecondaryKeys != nil && *p.DeferSecondaryKeys
	opts.atomicCopy = p.AtomicCopy != nil && *p.AtomicCopy
	if tz := p.SourceTimeZone; tz != "" {
		if err := checkTimeZone("source_time_zone", tz); err != nil {
			return plan, err
		}
		opts.sourceTimeZone = tz
	}
	plan.opts = opts
	return plan, nil
}

// checkMaterializeTable checks one target table (field names it): a name;
// a SELECT over tables of the source keyspace (by default every row of
// the source table of the same name); and where the target table comes
// from: its CREATE TABLE, "copy" (the source table's definition) or
// nothing when the target keyspace has it already. A sharded target's
// table needs a vindex in the keyspace's VSchema.
func checkMaterializeTable(source, target *keyspaceRec, field string, ts platform.MaterializeTableSettings) (materializeTable, error) {
	t := materializeTable{name: ts.TargetTable}
	switch {
	case ts.TargetTable == "":
		return t, unprocessable("%s.target_table is required", field)
	case !tableNameRe.MatchString(ts.TargetTable):
		return t, unprocessable("%s.target_table %q is not a table name", field, ts.TargetTable)
	}
	expr := ts.SourceExpression
	if expr == "" {
		if source.tables[t.name] == "" {
			return t, unprocessable("%s.target_table %s is not a table of source keyspace %s; give a source_expression", field, t.name, source.name)
		}
	} else {
		n := sqltext.Normalize(expr)
		if n.Statement != "SELECT" || len(n.Tables) == 0 {
			return t, unprocessable("%s.source_expression must be a SELECT from tables of keyspace %s", field, source.name)
		}
		for _, from := range n.Tables {
			if source.tables[from] == "" {
				return t, unprocessable("%s.source_expression reads table %s, which is not a table of source keyspace %s", field, from, source.name)
			}
			if source == target && from == t.name {
				return t, unprocessable("%s.source_expression reads target table %s itself", field, t.name)
			}
		}
		t.filter = expr
	}
	if source == target && expr == "" {
		return t, unprocessable("%s.target_table %s is its own source in keyspace %s; give a source_expression", field, t.name, source.name)
	}
	exists := target.tables[t.name] != ""
	switch ddl := ts.CreateDDL; {
	case ddl == "" && !exists:
		return t, unprocessable("%s.target_table %s is not a table of keyspace %s: give create_ddl (a CREATE TABLE, or \"copy\")", field, t.name, target.name)
	case ddl == "" || exists:
		// Vitess leaves a target table that exists as it is.
	case strings.EqualFold(ddl, "copy"):
		create := source.tables[t.name]
		if create == "" {
			return t, unprocessable("%s.create_ddl copy needs table %s in source keyspace %s", field, t.name, source.name)
		}
		t.create = create
	default:
		d, err := sqltext.ParseDDL(ddl)
		switch {
		case err != nil || d.Create == "":
			return t, unprocessable("%s.create_ddl must be a CREATE TABLE statement (or \"copy\")", field)
		case d.Table != t.name:
			return t, unprocessable("%s.create_ddl creates table %s, not target_table %s", field, d.Table, t.name)
		case d.Keyspace != "" && d.Keyspace != target.name:
			return t, unprocessable("%s.create_ddl creates its table in keyspace %s, not target keyspace %s", field, d.Keyspace, target.name)
		}
		t.create = d.Create
	}
	if target.sharded() && target.more.read().vschema != "" {
		if _, ok := target.vschemaTables()[t.name]; !ok {
			return t, unprocessable("%s.target_table %s is not in the VSchema of sharded keyspace %s: add it, with its vindex, first", field, t.name, target.name)
		}
	}
	return t, nil
}

// tableNameRe is what a table's name may be.
var tableNameRe = regexp.MustCompile(`^[A-Za-z0-9_$]{1,64}$`)

// materialize makes a checked Materialize: its target tables, then its
// workflow, copying from now.
func (w *world) materialize(b *branchRec, plan materializePlan) *vrWorkflow {
	var made []string
	tables := make([]vrTable, len(plan.tables))
	for i, t := range plan.tables {
		tables[i] = vrTable{name: t.name, filter: t.filter}
		if t.create != "" {
			made = append(made, t.name)
		}
	}
	if len(made) > 0 {
		next := cloneMap(plan.target.tables)
		for _, t := range plan.tables {
			if t.create != "" {
				next[t.name] = t.create
			}
		}
		plan.target.tables = next
		b.schemaUpdated = w.clock.Now()
		w.schemaChanged(b, nil)
	}
	return w.newVRWorkflow(b, vrSpec{name: plan.name, kind: vrMaterialize, source: plan.source, target: plan.target, tables: tables, opts: plan.opts})
}

// cancelMaterialize deletes a Materialize workflow and, unless keepData,
// drops its target tables from the target keyspace's schema and VSchema.
func (w *world) cancelMaterialize(vw *vrWorkflow, keepData bool) {
	w.deleteVRWorkflow(vw)
	if keepData {
		return
	}
	ks := vw.target
	next := cloneMap(ks.tables)
	for _, t := range vw.tables {
		delete(next, t.name)
	}
	if len(next) == len(ks.tables) {
		return
	}
	ks.tables = next
	if ks.more.read().vschema != "" {
		doc := ks.vschemaDoc()
		if tables, ok := doc["tables"].(map[string]any); ok {
			for _, t := range vw.tables {
				delete(tables, t.name)
			}
		}
		ks.setVSchemaDoc(doc)
	}
	ks.branch.schemaUpdated = w.clock.Now()
	w.schemaChanged(ks.branch, nil)
}

// VSchema documents as data, for the workflows that change them.

// vschemaDoc is ks's VSchema (the stored one or the default) decoded. A
// stored VSchema is a JSON object (updates and restores check it); were it
// not, the workflows would see a VSchema without tables, of ks's
// sharding, and leave the stored text as it is unless they change it.
func (ks *keyspaceRec) vschemaDoc() map[string]any {
	doc := map[string]any{}
	if err := json.Unmarshal([]byte(ks.vschemaText()), &doc); err != nil || doc == nil {
		return map[string]any{"sharded": ks.sharded(), "tables": map[string]any{}}
	}
	return doc
}

// vschemaTables are the tables of ks's VSchema.
func (ks *keyspaceRec) vschemaTables() map[string]any {
	t, _ := ks.vschemaDoc()["tables"].(map[string]any)
	return t
}

// referenceTables are the tables ks's VSchema of its own declares of type
// reference: copied whole to every shard.
func (ks *keyspaceRec) referenceTables() map[string]bool {
	out := map[string]bool{}
	if ks.more.read().vschema == "" {
		return out
	}
	for name, v := range ks.vschemaTables() {
		if t, _ := v.(map[string]any); t["type"] == "reference" {
			out[name] = true
		}
	}
	return out
}

// setVSchemaDoc stores doc as ks's VSchema, indented as an update leaves
// it. doc holds only what JSON decodes to and the workflows' strings,
// bools and maps of them, which always encode; were one not to, the
// VSchema would stay as it was.
func (ks *keyspaceRec) setVSchemaDoc(doc map[string]any) {
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return
	}
	ks.x().vschema = string(out)
}
