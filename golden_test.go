package platform_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dbplatform/platform-go"
)

// The files in testdata/golden are written by hand from the API's field
// lists, independently of the SDK's types. Each must survive a decode into
// its SDK type and an encode back: every key kept, none added, every value
// the same. A wrong or missing JSON tag fails here instead of passing in
// both the SDK and the fake, which share the types.
func TestGoldenRoundTrip(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file string
		into func() any
	}{
		{"organization.json", func() any { return new(platform.Organization) }},
		{"organization_membership.json", func() any { return new(platform.Member) }},
		{"user.json", func() any { return new(platform.User) }},
		{"database.json", func() any { return new(platform.Database) }},
		{"database_list.json", func() any { return new(platform.Page[platform.Database]) }},
		{"region_list.json", func() any { return new(platform.Page[platform.Region]) }},
		{"public_region_list.json", func() any { return new(platform.Page[platform.Region]) }},
		{"oauth_application.json", func() any { return new(platform.OAuthApplication) }},
		{"oauth_token.json", func() any { return new(platform.OAuthToken) }},
		{"oauth_token_list.json", func() any { return new(platform.Page[platform.OAuthToken]) }},
		{"cluster_size_sku_list.json", func() any { return new([]*platform.ClusterSizeSKU) }},
		{"cluster_parameter_list.json", func() any { return new([]*platform.ClusterParameter) }},
		{"cluster_extension_list.json", func() any { return new([]*platform.ClusterExtension) }},
		{"branch_infrastructure.json", func() any { return new(platform.BranchInfrastructure) }},
		{"postgres_infrastructure.json", func() any { return new(platform.BranchInfrastructure) }},
		{"tablet_group_list.json", func() any { return new([]*platform.TabletGroup) }},
		{"vitess_operation.json", func() any { return new(platform.VitessOperation) }},
		{"vitess_shard.json", func() any { return new(platform.VitessShard) }},
		{"vitess_operation_ref.json", func() any { return new(platform.VitessOperationRef) }},
		{"vitess_operation_move_tables.json", func() any { return new(platform.VitessOperation) }},
		{"vreplication_workflow_list.json", func() any { return new(platform.VReplicationWorkflows) }},
		{"move_tables_workflow.json", func() any { return new(platform.MoveTablesWorkflow) }},
		{"move_tables_status.json", func() any { return new(platform.MoveTablesStatus) }},
		{"workflow_update.json", func() any { return new(platform.WorkflowUpdate) }},
		{"vdiff.json", func() any { return new(platform.VDiff) }},
		{"vdiff_list.json", func() any { return new(platform.VDiffs) }},
		{"read_only_region_list.json", func() any { return new(platform.Page[platform.ReadOnlyRegion]) }},
		{"bouncer.json", func() any { return new(platform.Bouncer) }},
		{"bouncer_resize_request_list.json", func() any { return new(platform.Page[platform.BouncerResizeRequest]) }},
		{"switchover_list.json", func() any { return new(platform.Page[platform.Switchover]) }},
		{"maintenance_schedule.json", func() any { return new(platform.MaintenanceSchedule) }},
		{"maintenance_window_list.json", func() any { return new(platform.Page[platform.MaintenanceWindow]) }},
		{"password.json", func() any { return new(platform.Password) }},
		{"ip_restriction_list.json", func() any { return new(platform.Page[platform.IPRestriction]) }},
		{"schema_diff.json", func() any { return new(platform.SchemaDiff) }},
		{"vschema.json", func() any { return new(platform.VSchema) }},
		{"routing_rules.json", func() any { return new(platform.RoutingRules) }},
		{"audit_log_list.json", func() any { return new(platform.CursorPage[platform.AuditLog]) }},
		{"connection_list.json", func() any { return new(platform.ConnectionList) }},
		{"process_list.json", func() any { return new(platform.ProcessList) }},
		{"kill_process_result.json", func() any { return new(platform.KillProcessResult) }},
		{"vreplication_workflow_show.json", func() any { return new(platform.WorkflowShow) }},
		{"workflow_delete.json", func() any { return new(platform.WorkflowDelete) }},
		{"lookup_vindex_change.json", func() any { return new(platform.LookupVindexChange) }},
		{"vreplication_summary.json", func() any { return new(platform.VReplicationSummary) }},
	}
	files, err := filepath.Glob(filepath.Join("testdata", "golden", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var covered []string
	for _, tc := range tests {
		covered = append(covered, filepath.Join("testdata", "golden", tc.file))
	}
	for _, f := range files {
		if !slices.Contains(covered, f) {
			t.Errorf("golden file %s has no round-trip case", f)
		}
	}

	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			golden, err := os.ReadFile(filepath.Join("testdata", "golden", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			v := tc.into()
			dec := json.NewDecoder(bytes.NewReader(golden))
			dec.DisallowUnknownFields() // a golden key the type lacks
			if err := dec.Decode(v); err != nil {
				t.Fatalf("decoding into %T: %v", v, err)
			}
			again, err := json.Marshal(v)
			if err != nil {
				t.Fatalf("encoding %T: %v", v, err)
			}
			checkSameJSON(t, golden, again)
		})
	}
}

// goldenKeyDiff compares the key sets of two decoded JSON values recursively: a
// key of want missing from got, or a key of got that want lacks.
func goldenKeyDiff(path string, want, got any) []string {
	var out []string
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: want an object, got %T", path, got)}
		}
		for _, k := range goldenSortedKeys(w) {
			if _, ok := g[k]; !ok {
				out = append(out, fmt.Sprintf("%s.%s: lost in the round trip", path, k))
				continue
			}
			out = append(out, goldenKeyDiff(path+"."+k, w[k], g[k])...)
		}
		for _, k := range goldenSortedKeys(g) {
			if _, ok := w[k]; !ok {
				out = append(out, fmt.Sprintf("%s.%s: added by the round trip", path, k))
			}
		}
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return []string{fmt.Sprintf("%s: want an array of %d, got %v", path, len(w), got)}
		}
		for i := range w {
			out = append(out, goldenKeyDiff(fmt.Sprintf("%s[%d]", path, i), w[i], g[i])...)
		}
	}
	return out
}

func goldenSortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, strings.Compare)
	return keys
}
