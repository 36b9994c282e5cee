package fake

import (
	"regexp"
	"slices"
	"strings"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake/internal/sqltext"
)

// Lookup vindexes. A lookup vindex's record is its keyspace's VSchema and
// its workflow: create adds the vindex to the VSchema of its keyspace
// (params table, from, to, ignore_nulls and write_only "true"; owner the
// owner table, whose column_vindexes gain it), adds the lookup table to
// the table keyspace's schema and VSchema, and makes a workflow of kind
// CreateLookupIndex (vreplication.go) of the vindex's name in the table
// keyspace that fills the table. What Vitess checks, the fake checks,
// from the same state:
//
//   - externalize: with continue_after_copy_with_owner (the default),
//     every stream Running (the copy done); without it, every stream
//     stopped after the copy. It drops write_only and freezes the
//     workflow (Stopped, "FROZEN"), or deletes it with delete.
//   - internalize: the vindex externalized (no write_only) and its
//     workflow frozen; write_only comes back and the streams run again.
//   - complete: the vindex externalized and its workflow frozen; the
//     workflow is deleted.
//   - cancel: the workflow is deleted; the vindex and the lookup table
//     stay as they are, as Vitess leaves them.

// lookupVindexTypes are the vindex types a lookup vindex may be.
var lookupVindexTypes = []string{"consistent_lookup_unique", "consistent_lookup", "lookup_unique", "lookup"}

// functionalVindexTypes are the vindex types a sharded lookup table may
// be sharded by.
var functionalVindexTypes = []string{"hash", "xxhash", "unicode_loose_md5", "unicode_loose_xxhash", "binary_md5", "numeric", "binary", "reverse_bits"}

// lookupVindexPlan is a checked lookup_vindex_create.
type lookupVindexPlan struct {
	name, vtype, owner, table, tableVindex string
	columns                                []string
	ks, tks                                *keyspaceRec // the vindex's keyspace, the table's
	ignoreNulls                            bool
	create                                 string // the lookup table's CREATE TABLE
	opts                                   vrOptions
}

func vitessLookupVindexRoutes() []route {
	const base = "/v1/organizations/{organization}/databases/{database}/branches/{branch}/lookup-vindex/vindexes"
	return []route{
		{pattern: "POST " + base, op: "lookup_vindex_create", handler: withBody(lookupVindexCreate)},
		{pattern: "GET " + base + "/{name}", op: "lookup_vindex_show", handler: read(lookupVindexShow)},
		{pattern: "POST " + base + "/{name}/externalize", op: "lookup_vindex_externalize", handler: withBody(lookupVindexExternalize)},
		{pattern: "POST " + base + "/{name}/internalize", op: "lookup_vindex_internalize", handler: withBody(lookupVindexInternalize)},
		{pattern: "POST " + base + "/{name}/complete", op: "lookup_vindex_complete", handler: withBody(lookupVindexComplete)},
		{pattern: "POST " + base + "/{name}/cancel", op: "lookup_vindex_cancel", handler: withBody(lookupVindexCancel)},
	}
}

func lookupVindexCreate(c *call, p *platform.CreateLookupVindexParams) (any, error) {
	b, err := c.vitessBranch()
	if err != nil {
		return nil, err
	}
	plan, err := c.w.checkLookupVindex(b, p)
	if err != nil {
		return nil, err
	}
	vw := c.w.createLookupVindex(b, plan)
	return vtctldData{map[string]any{"summary": "Lookup vindex " + plan.name + " created in the " + plan.ks.name + " keyspace, write-only, and the " + vw.name +
		" workflow filling table " + plan.tks.name + "." + plan.table + " started on the " + strings.Join(vw.targetShards, ", ") + " shards"}}, nil
}

func lookupVindexShow(c *call) (any, error) {
	b, err := c.vitessBranch()
	if err != nil {
		return nil, err
	}
	vw, err := c.w.lookupVindexWorkflow(b, c.r.URL.Query().Get("table_keyspace"), c.r.PathValue("name"))
	if err != nil {
		return nil, err
	}
	return vtctldData{map[string]any{"workflows": []*protoWorkflow{renderVRWorkflow(vw, c.now, &c.w.timing)}}}, nil
}

func lookupVindexExternalize(c *call, p *platform.ExternalizeLookupVindexParams) (any, error) {
	b, err := c.vitessBranch()
	if err != nil {
		return nil, err
	}
	lv, err := c.w.findLookupVindex(b, p.TableKeyspace, p.Keyspace, c.r.PathValue("name"))
	if err != nil {
		return nil, err
	}
	out, err := c.w.externalizeLookupVindex(lv, p.Delete != nil && *p.Delete)
	if err != nil {
		return nil, err
	}
	return vtctldData{out}, nil
}

func lookupVindexInternalize(c *call, p *platform.InternalizeLookupVindexParams) (any, error) {
	b, err := c.vitessBranch()
	if err != nil {
		return nil, err
	}
	lv, err := c.w.findLookupVindex(b, p.TableKeyspace, p.Keyspace, c.r.PathValue("name"))
	if err != nil {
		return nil, err
	}
	if err := c.w.internalizeLookupVindex(lv); err != nil {
		return nil, err
	}
	return vtctldData{map[string]any{}}, nil
}

func lookupVindexComplete(c *call, p *platform.CompleteLookupVindexParams) (any, error) {
	b, err := c.vitessBranch()
	if err != nil {
		return nil, err
	}
	lv, err := c.w.findLookupVindex(b, p.TableKeyspace, p.Keyspace, c.r.PathValue("name"))
	if err != nil {
		return nil, err
	}
	if err := c.w.checkFrozen(lv, "complete"); err != nil {
		return nil, err
	}
	c.w.deleteVRWorkflow(lv.vw)
	return vtctldData{map[string]any{}}, nil
}

func lookupVindexCancel(c *call, p *platform.CancelLookupVindexParams) (any, error) {
	b, err := c.vitessBranch()
	if err != nil {
		return nil, err
	}
	vw, err := c.w.lookupVindexWorkflow(b, p.TableKeyspace, c.r.PathValue("name"))
	if err != nil {
		return nil, err
	}
	out := deleteAnswer(vw)
	c.w.deleteVRWorkflow(vw)
	return vtctldData{out}, nil
}

// lookupVindexWorkflow finds the workflow of a lookup vindex: a 422
// naming table_keyspace when it is missing or unknown, a 404 when that
// keyspace has no workflow of the name, a 422 when its workflow of the
// name is of another kind.
func (w *world) lookupVindexWorkflow(b *branchRec, tableKeyspace, name string) (*vrWorkflow, error) {
	vw, err := w.findVRWorkflow(b, "table_keyspace", tableKeyspace, name)
	if err != nil {
		return nil, err
	}
	if vw.kind != vrCreateLookupIndex {
		return nil, unprocessable("workflow %s of keyspace %s is a %s workflow, not a lookup vindex's", vw.name, vw.target.name, vw.kind)
	}
	return vw, nil
}

// lookupVindex is a lookup vindex an action names: its keyspace and the
// vindex in its VSchema, and its workflow (nil once deleted).
type lookupVindex struct {
	name    string
	ks, tks *keyspaceRec
	doc     map[string]any // ks's VSchema
	vindex  map[string]any // doc's vindexes[name]
	vw      *vrWorkflow
}

// findLookupVindex finds the lookup vindex named by the path and by a
// body's table_keyspace and keyspace (table_keyspace when empty): 404
// when neither the vindex nor its workflow exists, 422 when the vindex
// does not while its workflow does, or its workflow is of another kind.
func (w *world) findLookupVindex(b *branchRec, tableKeyspace, keyspace, name string) (*lookupVindex, error) {
	tks, err := w.vrKeyspace(b, "table_keyspace", tableKeyspace)
	if err != nil {
		return nil, err
	}
	ks := tks
	if keyspace != "" {
		if ks, err = w.vrKeyspace(b, "keyspace", keyspace); err != nil {
			return nil, err
		}
	}
	lv := &lookupVindex{name: name, ks: ks, tks: tks, doc: ks.vschemaDoc(), vw: b.more.read().vitess.vrWorkflow(tks, name)}
	vindexes, _ := lv.doc["vindexes"].(map[string]any)
	lv.vindex, _ = vindexes[name].(map[string]any)
	switch {
	case lv.vindex == nil && lv.vw == nil:
		return nil, notFound()
	case lv.vindex == nil:
		return nil, unprocessable("keyspace %s has no vindex %s in its VSchema; its workflow in keyspace %s is left: cancel it", ks.name, name, tks.name)
	case lv.vw != nil && lv.vw.kind != vrCreateLookupIndex:
		return nil, unprocessable("workflow %s of keyspace %s is a %s workflow, not a lookup vindex's", name, tks.name, lv.vw.kind)
	}
	return lv, nil
}

// params are the vindex's params.
func (lv *lookupVindex) params() map[string]any {
	p, _ := lv.vindex["params"].(map[string]any)
	if p == nil {
		p = map[string]any{}
		lv.vindex["params"] = p
	}
	return p
}

// writeOnly reports whether the vindex is write-only (not externalized).
func (lv *lookupVindex) writeOnly() bool {
	v, _ := lv.params()["write_only"].(string)
	return v == "true"
}

// owner is the vindex's owner table; "" for none.
func (lv *lookupVindex) owner() string {
	o, _ := lv.vindex["owner"].(string)
	return o
}

// checkFrozen refuses action (internalize, complete) unless lv is
// externalized, with an owner, and its workflow frozen.
func (w *world) checkFrozen(lv *lookupVindex, action string) error {
	switch {
	case lv.writeOnly():
		return unprocessable("vindex %s has not been externalized yet: it is write-only; %s needs it externalized", lv.name, action)
	case lv.owner() == "":
		return unprocessable("vindex %s has no owner table; %s needs one", lv.name, action)
	case lv.vw == nil:
		return unprocessable("vindex %s has no workflow left in keyspace %s (it was deleted); %s needs its frozen workflow", lv.name, lv.tks.name, action)
	case !lv.vw.frozen:
		state, _ := lv.vw.phase(w.clock.Now(), &w.timing)
		return unprocessable("workflow %s of keyspace %s is %s, not frozen; %s needs it frozen by externalize", lv.name, lv.tks.name, state, action)
	}
	return nil
}

// externalizeLookupVindex makes lv route queries: its workflow must have
// copied (Running, or Stopped after the copy when it stops after its
// copy). With an owner, the workflow is deleted (del) or frozen.
func (w *world) externalizeLookupVindex(lv *lookupVindex, del bool) (map[string]any, error) {
	now := w.clock.Now()
	if lv.vw == nil {
		if !lv.writeOnly() {
			return nil, unprocessable("vindex %s is externalized already and its workflow deleted", lv.name)
		}
		return nil, unprocessable("vindex %s has no workflow in keyspace %s (it was cancelled); externalize needs the workflow that fills its table", lv.name, lv.tks.name)
	}
	vw := lv.vw
	state, share := vw.phase(now, &w.timing)
	switch {
	case vw.frozen:
		return nil, unprocessable("vindex %s is externalized already: its workflow is frozen", lv.name)
	case lv.owner() == "" || !vw.opts.stopAfterCopy:
		if state != vrRunning {
			return nil, unprocessable("workflow %s of keyspace %s is %s; externalize needs every stream %s, its copy done", vw.name, lv.tks.name, state, vrRunning)
		}
	case state != vrStopped || share < 1:
		return nil, unprocessable("workflow %s of keyspace %s is %s; externalize needs every stream stopped after its copy", vw.name, lv.tks.name, state)
	}
	out := map[string]any{}
	if lv.owner() != "" {
		if del {
			w.deleteVRWorkflow(vw)
			out["workflow_deleted"] = true
		} else {
			w.freezeVRWorkflow(vw)
			out["workflow_stopped"] = true
		}
	}
	delete(lv.params(), "write_only")
	lv.ks.setVSchemaDoc(lv.doc)
	lv.ks.updated = now
	return out, nil
}

// internalizeLookupVindex makes an externalized lv write-only again and
// runs its frozen workflow again.
func (w *world) internalizeLookupVindex(lv *lookupVindex) error {
	if err := w.checkFrozen(lv, "internalize"); err != nil {
		return err
	}
	lv.params()["write_only"] = "true"
	lv.ks.setVSchemaDoc(lv.doc)
	lv.ks.updated = w.clock.Now()
	w.unfreezeVRWorkflow(lv.vw)
	return nil
}

// checkLookupVindex checks a lookup_vindex_create of branch b, naming the
// field at fault, and returns what it makes.
func (w *world) checkLookupVindex(b *branchRec, p *platform.CreateLookupVindexParams) (lookupVindexPlan, error) {
	var plan lookupVindexPlan
	if !b.ready {
		return plan, unprocessable("branch %s is not ready yet", b.name)
	}
	switch {
	case p.Name == "":
		return plan, unprocessable("name is required: the vindex's name, which its workflow takes")
	case !vrNameRe.MatchString(p.Name):
		return plan, unprocessable("name %q must be letters, digits, _ and -, at most 64", p.Name)
	}
	plan.name = p.Name
	tks, err := w.vrKeyspace(b, "table_keyspace", p.TableKeyspace)
	if err != nil {
		return plan, err
	}
	ks := tks
	if p.Keyspace != "" {
		if ks, err = w.vrKeyspace(b, "keyspace", p.Keyspace); err != nil {
			return plan, err
		}
	}
	plan.ks, plan.tks = ks, tks
	if !ks.sharded() {
		return plan, unprocessable("keyspace %s has one shard: a lookup vindex maps the rows of a sharded keyspace", ks.name)
	}
	plan.vtype = "consistent_lookup_unique"
	if p.Type != "" {
		if !slices.Contains(lookupVindexTypes, p.Type) {
			return plan, unprocessable("type %q is not %s", p.Type, strings.Join(lookupVindexTypes, ", "))
		}
		plan.vtype = p.Type
	}
	doc := ks.vschemaDoc()
	if vindexes, _ := doc["vindexes"].(map[string]any); vindexes[p.Name] != nil {
		return plan, unprocessable("name %s: keyspace %s has a vindex of that name already", p.Name, ks.name)
	}
	if vw := b.more.read().vitess.vrWorkflow(tks, p.Name); vw != nil {
		return plan, unprocessable("name %s: keyspace %s has a %s workflow of that name already", p.Name, tks.name, vw.kind)
	}
	if err := checkLookupOwner(ks, doc, p, &plan); err != nil {
		return plan, err
	}
	plan.table = p.Name
	if p.TableName != "" {
		plan.table = p.TableName
	}
	switch {
	case !tableNameRe.MatchString(plan.table):
		return plan, unprocessable("table_name %q is not a table name", plan.table)
	case tks.tables[plan.table] != "":
		return plan, unprocessable("table_name %s is a table of keyspace %s already", plan.table, tks.name)
	}
	if _, ok := tks.vschemaTables()[plan.table]; ok {
		return plan, unprocessable("table_name %s is in the VSchema of keyspace %s already", plan.table, tks.name)
	}
	colType := columnType(ks.tables[plan.owner], plan.columns[0])
	if tks.sharded() {
		plan.tableVindex = p.TableVindexType
		if plan.tableVindex == "" {
			plan.tableVindex = vindexForType(colType)
			if plan.tableVindex == "" {
				return plan, unprocessable("table_vindex_type is required: column %s of %s is %s, which no vindex type suits by default", plan.columns[0], plan.owner, colType)
			}
		}
		if !slices.Contains(functionalVindexTypes, plan.tableVindex) {
			return plan, unprocessable("table_vindex_type %q is not %s", plan.tableVindex, strings.Join(functionalVindexTypes, ", "))
		}
		tdoc := doc
		if tks != ks {
			tdoc = tks.vschemaDoc()
		}
		if vindexes, _ := tdoc["vindexes"].(map[string]any); vindexes[plan.tableVindex] != nil {
			if v, _ := vindexes[plan.tableVindex].(map[string]any); v == nil || v["type"] != plan.tableVindex || len(v) > 1 {
				return plan, unprocessable("table_vindex_type %s: keyspace %s has a different vindex of that name", plan.tableVindex, tks.name)
			}
		}
	}
	plan.create = lookupTableDDL(ks.tables[plan.owner], plan.table, plan.columns)
	opts, err := checkVROptions(b, p.Cells, p.TabletTypes, "")
	if err != nil {
		return plan, err
	}
	opts.autoStart = true
	opts.stopAfterCopy = p.ContinueAfterCopyWithOwner != nil && !*p.ContinueAfterCopyWithOwner
	plan.opts = opts
	plan.ignoreNulls = p.IgnoreNulls != nil && *p.IgnoreNulls
	return plan, nil
}

// checkLookupOwner checks the owner table of a new lookup vindex of ks
// (whose VSchema is doc) and its columns.
func checkLookupOwner(ks *keyspaceRec, doc map[string]any, p *platform.CreateLookupVindexParams, plan *lookupVindexPlan) error {
	switch {
	case p.TableOwner == "":
		return unprocessable("table_owner is required: the table of keyspace %s whose rows the vindex maps", ks.name)
	case ks.tables[p.TableOwner] == "":
		return unprocessable("table_owner %s is not a table of keyspace %s", p.TableOwner, ks.name)
	}
	tables, _ := doc["tables"].(map[string]any)
	owner, _ := tables[p.TableOwner].(map[string]any)
	if owner == nil {
		return unprocessable("table_owner %s is not in the VSchema of keyspace %s", p.TableOwner, ks.name)
	}
	cvs, _ := owner["column_vindexes"].([]any)
	for _, cv := range cvs {
		if m, _ := cv.(map[string]any); m != nil && m["name"] == p.Name {
			return unprocessable("table_owner %s has a column vindex %s already", p.TableOwner, p.Name)
		}
	}
	if len(p.TableOwnerColumns) == 0 {
		return unprocessable("table_owner_columns is required: the columns of %s the vindex maps", p.TableOwner)
	}
	if strings.HasSuffix(plan.vtype, "_unique") && len(p.TableOwnerColumns) != 1 {
		return unprocessable("table_owner_columns: a %s vindex maps one column, got %d", plan.vtype, len(p.TableOwnerColumns))
	}
	_, cols := tableDefinition(ks.tables[p.TableOwner])
	for i, col := range p.TableOwnerColumns {
		if !slices.ContainsFunc(cols, func(c string) bool { return strings.EqualFold(c, col) }) {
			return unprocessable("table_owner_columns[%d] %q is not a column of %s: its columns are %s", i, col, p.TableOwner, strings.Join(cols, ", "))
		}
		if slices.Contains(p.TableOwnerColumns[:i], col) {
			return unprocessable("table_owner_columns[%d] %q is named twice", i, col)
		}
	}
	plan.owner, plan.columns = p.TableOwner, slices.Clone(p.TableOwnerColumns)
	return nil
}

// createLookupVindex makes a checked lookup vindex: the vindex in its
// keyspace's VSchema, write-only, and in the owner table's column
// vindexes; the lookup table in the table keyspace's schema and VSchema;
// and the workflow that fills it, copying from now.
func (w *world) createLookupVindex(b *branchRec, plan lookupVindexPlan) *vrWorkflow {
	now := w.clock.Now()
	doc := plan.ks.vschemaDoc()
	tdoc := doc
	if plan.tks != plan.ks {
		tdoc = plan.tks.vschemaDoc()
	}
	vindexes := objectIn(doc, "vindexes")
	vindexes[plan.name] = map[string]any{
		"type":  plan.vtype,
		"owner": plan.owner,
		"params": map[string]any{
			"table": plan.tks.name + "." + plan.table, "from": strings.Join(plan.columns, ","), "to": "keyspace_id",
			"ignore_nulls": boolText(plan.ignoreNulls), "write_only": "true",
		},
	}
	owner := objectIn(doc, "tables")[plan.owner].(map[string]any)
	cvs, _ := owner["column_vindexes"].([]any)
	cols := make([]any, len(plan.columns))
	for i, c := range plan.columns {
		cols[i] = c
	}
	owner["column_vindexes"] = append(cvs, map[string]any{"name": plan.name, "columns": cols})
	table := map[string]any{}
	if plan.tks.sharded() {
		objectIn(tdoc, "vindexes")[plan.tableVindex] = map[string]any{"type": plan.tableVindex}
		table["column_vindexes"] = []any{map[string]any{"column": plan.columns[0], "name": plan.tableVindex}}
	}
	objectIn(tdoc, "tables")[plan.table] = table
	tables := cloneMap(plan.tks.tables)
	tables[plan.table] = plan.create
	plan.tks.tables = tables
	plan.ks.setVSchemaDoc(doc)
	if plan.tks != plan.ks {
		plan.tks.setVSchemaDoc(tdoc)
	}
	plan.ks.updated, plan.tks.updated = now, now
	b.schemaUpdated = now
	w.schemaChanged(b, nil)
	return w.newVRWorkflow(b, vrSpec{
		name: plan.name, kind: vrCreateLookupIndex, source: plan.ks, target: plan.tks,
		tables: []vrTable{{name: plan.table, filter: lookupFilter(plan)}}, opts: plan.opts,
	})
}

// objectIn returns doc[key] as an object, making it when absent.
func objectIn(doc map[string]any, key string) map[string]any {
	o, _ := doc[key].(map[string]any)
	if o == nil {
		o = map[string]any{}
		doc[key] = o
	}
	return o
}

// boolText is a vindex param's form of a boolean.
func boolText(v bool) string {
	if v {
		return "true"
	}
	return "false"
}

// lookupFilter is the query that fills a lookup table, as Vitess writes
// it: each column, the row's keyspace ID; grouped, since an owned vindex
// only backfills.
func lookupFilter(plan lookupVindexPlan) string {
	var sb strings.Builder
	sb.WriteString("select ")
	for _, c := range plan.columns {
		sb.WriteString(c + " as " + c + ", ")
	}
	sb.WriteString("keyspace_id() as keyspace_id from " + plan.owner)
	if plan.ignoreNulls {
		conds := make([]string, len(plan.columns))
		for i, c := range plan.columns {
			conds[i] = c + " is not null"
		}
		sb.WriteString(" where " + strings.Join(conds, " and "))
	}
	sb.WriteString(" group by " + strings.Join(plan.columns, ", ") + ", keyspace_id")
	return sb.String()
}

// lookupTableDDL is the lookup table's CREATE TABLE: each column as the
// owner table defines it (without AUTO_INCREMENT or DEFAULT NULL), the
// keyspace ID, and the columns as its primary key.
func lookupTableDDL(ownerCreate, table string, columns []string) string {
	var sb strings.Builder
	sb.WriteString("CREATE TABLE `" + table + "` (\n")
	for _, c := range columns {
		def := columnType(ownerCreate, c)
		def = strings.TrimSpace(strings.Replace(strings.Replace(def, " AUTO_INCREMENT", "", 1), " DEFAULT NULL", "", 1))
		sb.WriteString("  `" + c + "` " + def + ",\n")
	}
	quoted := make([]string, len(columns))
	for i, c := range columns {
		quoted[i] = "`" + c + "`"
	}
	sb.WriteString("  `keyspace_id` varbinary(128),\n  PRIMARY KEY (" + strings.Join(quoted, ", ") + ")\n)")
	return sb.String()
}

// columnType is the definition of column col in a CREATE TABLE, after
// its name ("bigint NOT NULL"); "" when the table has no such column.
func columnType(create, col string) string {
	open := strings.IndexByte(create, '(')
	if open < 0 {
		return ""
	}
	body, _ := sqltext.Balanced(create[open:])
	for _, def := range sqltext.SplitTopLevel(body) {
		def = strings.TrimSpace(def)
		if m := columnRe.FindStringSubmatch(def); m != nil && strings.EqualFold(m[1]+m[2], col) && !indexHeadRe.MatchString(def) {
			return strings.TrimSpace(def[len(m[0]):])
		}
	}
	return ""
}

// vindexTypeRe reads the base type of a column's definition.
var vindexTypeRe = regexp.MustCompile(`(?i)^(tinyint|smallint|mediumint|int|integer|bigint|char|varchar|tinytext|text|mediumtext|longtext|binary|varbinary|tinyblob|blob|mediumblob|longblob)\b`)

// vindexForType is the vindex type Vitess picks for a column of type def:
// hash for integers, unicode_loose_md5 for text, binary_md5 for bytes; ""
// for other types.
func vindexForType(def string) string {
	m := vindexTypeRe.FindStringSubmatch(def)
	if m == nil {
		return ""
	}
	switch t := strings.ToLower(m[1]); {
	case strings.Contains(t, "int"):
		return "hash"
	case strings.Contains(t, "char") || strings.Contains(t, "text"):
		return "unicode_loose_md5"
	}
	return "binary_md5"
}

// freezeVRWorkflow stops vw's streams for good, as externalizing its
// lookup vindex does: Stopped, with the message "FROZEN".
func (w *world) freezeVRWorkflow(vw *vrWorkflow) {
	vw.stopped, vw.frozen, vw.updated = true, true, w.clock.Now()
}

// unfreezeVRWorkflow runs a frozen workflow's streams again, as
// internalizing its lookup vindex does: Running, past any stop after the
// copy.
func (w *world) unfreezeVRWorkflow(vw *vrWorkflow) {
	vw.stopped, vw.frozen, vw.updated = false, false, w.clock.Now()
	vw.ranOn = vw.opts.stopAfterCopy
}
