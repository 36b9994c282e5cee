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

// deleteAnswer is vtctldata.WorkflowDeleteResponse for a delete of vw,
// made before the delete: every target primary deleted its streams.
func deleteAnswer(vw *vrWorkflow) *protoTabletsResponse {
	out := &protoTabletsResponse{Summary: "Successfully cancelled the " + vw.name + " workflow in the " + vw.target.name + " keyspace"}
	for _, a := range targetPrimaries(vw.target, vw.targetShards) {
		out.Details = append(out.Details, protoTabletInfo{Tablet: a, Deleted: true})
	}
	return out
}
