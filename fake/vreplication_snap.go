package fake

import (
	"fmt"
	"regexp"
	"slices"
	"time"

	"github.com/dbplatform/platform-go"
)

// The snapshot of a VReplication workflow (see vreplication.go): with its
// branch's topology state (vitessSnap.Workflows) for the kinds without a
// documented workflow, with its documented workflow
// (workflowSnap.VReplication) for MoveTables.

type vrWorkflowSnap struct {
	Name         string        `json:"name"`
	Kind         string        `json:"kind"`
	Source       string        `json:"source_keyspace"` // ID
	Target       string        `json:"target_keyspace"` // ID
	SourceShards []string      `json:"source_shards"`
	TargetShards []string      `json:"target_shards"`
	Tables       []vrTableSnap `json:"tables"`
	Created      time.Time     `json:"created"`
	Updated      time.Time     `json:"updated"`
	Options      vrOptionsSnap `json:"options"`
	Stopped      bool          `json:"stopped,omitempty"`
	CopyDue      time.Time     `json:"copy_due,omitzero"`
	CopyLeft     time.Duration `json:"copy_left,omitempty"`
	Error        string        `json:"error,omitempty"`
	RanOn        bool          `json:"ran_on,omitempty"`
	Frozen       bool          `json:"frozen,omitempty"`
}

type vrTableSnap struct {
	Name   string `json:"name"`
	Filter string `json:"filter,omitempty"`
}

type vrOptionsSnap struct {
	OnDDL              string                `json:"on_ddl,omitempty"`
	DeferSecondaryKeys bool                  `json:"defer_secondary_keys,omitempty"`
	StopAfterCopy      bool                  `json:"stop_after_copy,omitempty"`
	AutoStart          bool                  `json:"auto_start,omitempty"`
	AtomicCopy         bool                  `json:"atomic_copy,omitempty"`
	Cells              []string              `json:"cells,omitempty"`
	TabletTypes        []platform.TabletType `json:"tablet_types,omitempty"`
	SourceTimeZone     string                `json:"source_time_zone,omitempty"`
	TenantID           string                `json:"tenant_id,omitempty"`
	AutoIncrement      string                `json:"sharded_auto_increment_handling,omitempty"`
	GlobalKeyspace     string                `json:"global_keyspace,omitempty"`
}

// saveVRWorkflow saves vw.
func saveVRWorkflow(vw *vrWorkflow) *vrWorkflowSnap {
	o := vw.opts
	out := &vrWorkflowSnap{
		Name: vw.name, Kind: vw.kind, Source: vw.source.id, Target: vw.target.id,
		SourceShards: vw.sourceShards, TargetShards: vw.targetShards,
		Created: vw.created, Updated: vw.updated,
		Options: vrOptionsSnap{
			OnDDL: o.onDDL, DeferSecondaryKeys: o.deferSecondaryKeys, StopAfterCopy: o.stopAfterCopy, AutoStart: o.autoStart,
			AtomicCopy: o.atomicCopy, Cells: o.cells, TabletTypes: o.tabletTypes, SourceTimeZone: o.sourceTimeZone,
			TenantID: o.tenantID, AutoIncrement: o.autoIncrement, GlobalKeyspace: o.globalKeyspace,
		},
		Stopped: vw.stopped, CopyDue: vw.copyDue, CopyLeft: vw.copyLeft, Error: vw.errMsg, RanOn: vw.ranOn, Frozen: vw.frozen,
		Tables: []vrTableSnap{},
	}
	for _, t := range vw.tables {
		out.Tables = append(out.Tables, vrTableSnap{Name: t.name, Filter: t.filter})
	}
	return out
}

// saveVRWorkflows saves b's workflows without a documented workflow, of
// live keyspaces.
func saveVRWorkflows(b *branchRec) []*vrWorkflowSnap {
	var out []*vrWorkflowSnap
	for _, vw := range b.more.read().vitess.workflows { // in creation order, which a restore keeps
		if vw.doc == nil && !vw.source.gone() && !vw.target.gone() {
			out = append(out, saveVRWorkflow(vw))
		}
	}
	return out
}

// shardNameRe matches a shard's name as shardNames writes them.
var shardNameRe = regexp.MustCompile(`^(-|[0-9a-f]{2}-|-[0-9a-f]{2}|[0-9a-f]{2}-[0-9a-f]{2})$`)

// loadVRWorkflow loads a workflow of b (doc its documented workflow, nil
// for other kinds) and files it: live keyspaces of b, a known kind
// (MoveTables exactly when doc is set), shards named once each, tables
// named once each, known options, a copy left of at least 0, a name not
// taken in its target keyspace.
func loadVRWorkflow(b *branchRec, vs *vrWorkflowSnap, doc *workflowRec) error {
	source, target := liveKeyspace(b, vs.Source), liveKeyspace(b, vs.Target)
	o := vs.Options
	switch {
	case !vrNameRe.MatchString(vs.Name):
		return fmt.Errorf("name %q is not a workflow name: letters, digits, _ and -, at most 64", vs.Name)
	case !slices.Contains(vrKinds, vs.Kind):
		return fmt.Errorf("kind %q is not one of %v", vs.Kind, vrKinds)
	case (vs.Kind == vrMoveTables) != (doc != nil):
		return fmt.Errorf("kind %s: a MoveTables workflow is saved with its documented workflow, and only it", vs.Kind)
	case source == nil:
		return fmt.Errorf("source_keyspace %q is not a keyspace of branch %s", vs.Source, b.id)
	case target == nil:
		return fmt.Errorf("target_keyspace %q is not a keyspace of branch %s", vs.Target, b.id)
	case b.more.read().vitess.vrWorkflow(target, vs.Name) != nil:
		return fmt.Errorf("workflow %s appears twice in keyspace %s", vs.Name, target.name)
	case len(vs.Tables) == 0:
		return fmt.Errorf("tables: a workflow copies at least one")
	case vs.Frozen && (!vs.Stopped || vs.Kind != vrCreateLookupIndex):
		return fmt.Errorf("frozen: only a stopped lookup vindex's workflow is frozen")
	case vs.RanOn && !o.StopAfterCopy:
		return fmt.Errorf("ran_on: only a workflow that stops after its copy runs on past it")
	case vs.CopyLeft < 0:
		return fmt.Errorf("copy_left %v is negative", vs.CopyLeft)
	case o.OnDDL != "" && !slices.Contains(workflowOnDDLs, platform.WorkflowOnDDL(o.OnDDL)):
		return fmt.Errorf("options.on_ddl %q is not one of %v", o.OnDDL, workflowOnDDLs)
	case !slices.Contains([]string{"", "LEAVE", "REMOVE", "REPLACE"}, o.AutoIncrement):
		return fmt.Errorf("options.sharded_auto_increment_handling %q is not LEAVE, REMOVE or REPLACE", o.AutoIncrement)
	}
	for field, shards := range map[string][]string{"source_shards": vs.SourceShards, "target_shards": vs.TargetShards} {
		if len(shards) == 0 {
			return fmt.Errorf("%s: a keyspace has at least one shard", field)
		}
		for i, s := range shards {
			if !shardNameRe.MatchString(s) || slices.Contains(shards[:i], s) {
				return fmt.Errorf("%s[%d] %q is not a new shard name", field, i, s)
			}
		}
	}
	for i, t := range vs.Tables {
		if t.Name == "" || slices.ContainsFunc(vs.Tables[:i], func(o vrTableSnap) bool { return o.Name == t.Name }) {
			return fmt.Errorf("tables[%d] %q is not a new table name", i, t.Name)
		}
	}
	for i, tt := range o.TabletTypes {
		if err := snapOneOf(tt, "tablet_type", tabletTypes...); err != nil {
			return at(err, "options.tablet_types[%d]", i)
		}
	}
	if err := checkCells(b, "options.cells", o.Cells); err != nil {
		return snapCheck(err)
	}
	if o.SourceTimeZone != "" {
		if err := checkTimeZone("options.source_time_zone", o.SourceTimeZone); err != nil {
			return snapCheck(err)
		}
	}
	vw := &vrWorkflow{
		name: vs.Name, kind: vs.Kind, source: source, target: target,
		sourceShards: vs.SourceShards, targetShards: vs.TargetShards,
		created: vs.Created, updated: vs.Updated,
		opts: vrOptions{
			onDDL: o.OnDDL, deferSecondaryKeys: o.DeferSecondaryKeys, stopAfterCopy: o.StopAfterCopy, autoStart: o.AutoStart,
			atomicCopy: o.AtomicCopy, cells: o.Cells, tabletTypes: o.TabletTypes, sourceTimeZone: o.SourceTimeZone,
			tenantID: o.TenantID, autoIncrement: o.AutoIncrement, globalKeyspace: o.GlobalKeyspace,
		},
		stopped: vs.Stopped, copyDue: vs.CopyDue, copyLeft: vs.CopyLeft, errMsg: vs.Error, doc: doc,
		ranOn: vs.RanOn, frozen: vs.Frozen,
	}
	for _, t := range vs.Tables {
		vw.tables = append(vw.tables, vrTable{name: t.Name, filter: t.Filter})
	}
	if doc != nil {
		doc.vr = vw
	}
	v := b.vitess()
	v.workflows = append(v.workflows, vw)
	return nil
}

// loadDocVRWorkflow loads the VReplication workflow of an active
// documented workflow; one saved without it (before workflows had one)
// gets the one its creation makes.
func loadDocVRWorkflow(wf *workflowRec, vs *vrWorkflowSnap) error {
	if !wf.active() {
		if vs != nil {
			return fmt.Errorf("vreplication: workflow %s is %s, and an ended workflow has none", wf.name, wf.state)
		}
		return nil
	}
	if vs == nil {
		if wf.source.gone() || wf.target.gone() {
			return nil
		}
		vs = &vrWorkflowSnap{
			Name: wf.name, Kind: vrMoveTables, Source: wf.source.id, Target: wf.target.id,
			SourceShards: shardNames(wf.source.shards), TargetShards: shardNames(wf.target.shards),
			Created: wf.created, Updated: wf.updated, Options: vrOptionsSnap{AutoStart: true},
		}
		for _, t := range wf.tables {
			vs.Tables = append(vs.Tables, vrTableSnap{Name: t})
		}
	}
	if vs.Name != wf.name || vs.Source != wf.source.id || vs.Target != wf.target.id {
		return fmt.Errorf("vreplication: workflow %s of %s to %s is not the documented workflow's, %s of %s to %s", vs.Name, vs.Source, vs.Target, wf.name, wf.source.id, wf.target.id)
	}
	return at(loadVRWorkflow(wf.branch, vs, wf), "vreplication")
}
