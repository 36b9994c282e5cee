package fake

import (
	"slices"
	"strings"

	"github.com/dbplatform/platform-go"
)

// The checks and answers the VReplication families (Materialize, lookup
// vindexes) share: the keyspaces a request names, where the streams read
// from, and what an update or delete of a workflow did.

// onDDLActions are the values on_ddl takes (binlogdata.OnDDLAction).
var onDDLActions = []string{"IGNORE", "STOP", "EXEC", "EXEC_IGNORE"}

// vrKeyspace finds the keyspace a request's field names, which must be
// ready.
func (w *world) vrKeyspace(b *branchRec, field, name string) (*keyspaceRec, error) {
	if name == "" {
		return nil, unprocessable("%s is required", field)
	}
	ks := b.keyspace(name)
	switch {
	case ks == nil:
		return nil, unprocessable("%s %q is not a keyspace of branch %s: its keyspaces are %s", field, name, b.name, strings.Join(vitessKeyspaceNames(b), ", "))
	case !ks.ready:
		return nil, unprocessable("%s %s is not ready yet", field, ks.name)
	}
	return ks, nil
}

// checkVROptions checks where a workflow's streams read from and what
// they do on DDL.
func checkVROptions(b *branchRec, cells []string, types []platform.TabletType, onDDL string) (vrOptions, error) {
	var opts vrOptions
	if err := checkCells(b, "cells", cells); err != nil {
		return opts, err
	}
	opts.cells = slices.Clone(cells)
	for i, s := range types {
		t, ok := parseTabletType(string(s))
		if !ok {
			return opts, unprocessable("tablet_types[%d] %q is not primary, replica or rdonly", i, s)
		}
		opts.tabletTypes = append(opts.tabletTypes, t)
	}
	if onDDL != "" {
		up := strings.ToUpper(onDDL)
		if !slices.Contains(onDDLActions, up) {
			return opts, unprocessable("on_ddl %q is not %s", onDDL, strings.Join(onDDLActions, ", "))
		}
		if up != "IGNORE" {
			opts.onDDL = up
		}
	}
	return opts, nil
}

// renderWorkflowChange renders what an update or delete of vw did on each
// target shard's primary (vtctldata.WorkflowUpdateResponse, with field
// "changed", or WorkflowDeleteResponse, with "deleted"): all of them.
func renderWorkflowChange(vw *vrWorkflow, field, summary string) map[string]any {
	details := []map[string]any{}
	for _, shard := range vw.targetShards {
		for _, t := range shardTablets(vw.target, shard) {
			if t.tabletType == platform.TabletPrimary {
				details = append(details, map[string]any{"tablet": protoAlias{Cell: t.alias.Cell, UID: t.alias.UID}, field: true})
			}
		}
	}
	return map[string]any{"summary": summary, "details": details}
}
