package fake_test

import (
	"encoding/json"
	"net/http"
	"testing"
)

// The request bodies of the API, fuzzed one resource group per target.
// Each input picks one of the group's operations that take a body (by
// index, modulo their number) and a body, and sends it on a fresh world
// (newOpWorld) to the request the operation's fixture builds, with the
// admin token. Whatever the body, the answer is the operation's success
// status or a 4xx in the API's error format, never a 5xx; and a refused
// request changes nothing opWorldState shows. The seed corpora are in
// testdata/fuzz/<target>: the fixture's body of each operation and broken
// variants.

// fuzzBodies runs the fuzz target of the operations ops.
func fuzzBodies(f *testing.F, ops ...string) {
	all := loadOperations(f)
	for _, name := range ops {
		if _, ok := all[name]; !ok {
			f.Fatalf("%s is not a row of operations.tsv", name)
		}
		if _, ok := opFixtures[name]; !ok {
			f.Fatalf("%s has no fixture in opFixtures", name)
		}
	}
	f.Fuzz(func(t *testing.T, pick uint8, body []byte) {
		t.Parallel() // the seed corpus runs in parallel; fuzzing ignores it
		name := ops[int(pick)%len(ops)]
		op := all[name]
		w := newOpWorldInProcess(t)
		call := opFixtures[name](w, "")
		path := call.path(t, w, op)
		before := opWorldState(t, w.srv)
		r := opSend(t, w.srv, op.method, path, admin(w.srv), string(body))
		nothing := noChangeOps[name] && r.status == http.StatusNoContent && len(r.body) == 0
		if !nothing {
			fuzzCheckAnswer(t, name, op.status, r)
		}
		if r.status >= 400 || nothing {
			if diff := worldStateDiff(t, before, opWorldState(t, w.srv)); diff != "" {
				t.Errorf("%s: a refused body (%d %s) changed the world (-before +after):\n%s", name, r.status, r.body, diff)
			}
		}
	})
}

// noChangeOps answer a request that changes nothing with 204 and no body,
// as the reference documents, instead of their success status.
var noChangeOps = map[string]bool{"update_branch_resize_request": true, "update_branch_change_request": true}

// fuzzCheckAnswer checks an answer of the API to any request: the
// operation's success status, or a 4xx with the API's error body whose
// code goes with the status.
func fuzzCheckAnswer(t *testing.T, name string, success int, r wire) {
	t.Helper()
	switch {
	case r.status == success:
		if len(r.body) > 0 && !json.Valid(r.body) {
			t.Errorf("%s: %d with a body that is not JSON: %q", name, r.status, r.body)
		}
	case r.status >= 400 && r.status < 500:
		var e errorBody
		if err := json.Unmarshal(r.body, &e); err != nil || e.Code == "" || e.Message == "" {
			t.Errorf("%s: %d with body %q, want the API's error body", name, r.status, r.body)
		}
		if want, ok := codeOf[r.status]; ok && e.Code != want {
			t.Errorf("%s: %d with code %q, want %q", name, r.status, e.Code, want)
		}
	default:
		t.Fatalf("%s: status %d, want %d or a 4xx: %s", name, r.status, success, r.body)
	}
	if r.header.Get("X-Request-Id") == "" {
		t.Errorf("%s: status %d without X-Request-Id", name, r.status)
	}
}

// fuzzBodyGroups are the operations that take a body, by resource group.
var fuzzBodyGroups = map[string][]string{
	"Organization":         {"update_organization", "update_organization_membership"},
	"Database":             {"create_database", "update_database_settings"},
	"Branch":               {"create_branch", "update_branch", "update_safe_migrations"},
	"Keyspace":             {"create_keyspace", "update_keyspace", "update_keyspace_read_only_regions", "update_keyspace_resize_request"},
	"BranchChange":         {"update_branch_resize_request", "update_branch_change_request", "update_branch_cluster_config"},
	"DeployRequest":        {"create_deploy_request", "close_deploy_request", "queue_deploy_request", "update_auto_apply", "update_auto_delete_branch", "review_deploy_request"},
	"Backup":               {"create_backup", "update_backup"},
	"BackupPolicy":         {"create_backup_policy", "update_backup_policy"},
	"Role":                 {"create_role", "update_role", "reassign_role_objects"},
	"Password":             {"create_password", "update_password"},
	"IPRestriction":        {"create_database_postgres_cidr", "update_database_postgres_cidr"},
	"OAuthApplication":     {"create_oauth_token"},
	"Team":                 {"create_organization_team", "update_organization_team", "add_organization_team_member"},
	"Webhook":              {"create_webhook", "update_webhook"},
	"TrafficBudget":        {"create_traffic_budget", "update_traffic_budget", "create_traffic_rule"},
	"ServiceToken":         {"create_service_token", "add_service_token_accesses", "remove_service_token_accesses"},
	"Bouncer":              {"create_bouncer", "update_bouncer_resize_request"},
	"Switchover":           {"create_switchover"},
	"Vitess":               {"vtctld_set_shard_tablet_control", "vtctld_refresh_state_by_shard", "create_planned_reparent"},
	"MoveTables":           {"move_tables_create", "move_tables_switch_traffic", "move_tables_reverse_traffic", "move_tables_cancel", "move_tables_complete", "vtctld_start_workflow", "vtctld_stop_workflow"},
	"VitessControl":        {"vtctld_apply_keyspace_routing_rules", "vtctld_check_throttler", "vtctld_update_throttler_config"},
	"Materialize":          {"materialize_create", "materialize_start", "materialize_stop", "materialize_cancel"},
	"LookupVindex":         {"lookup_vindex_create", "lookup_vindex_externalize", "lookup_vindex_internalize", "lookup_vindex_complete", "lookup_vindex_cancel"},
	"Maintenance":          {"run_branch_maintenance"},
	"Workflow":             {"create_workflow"},
	"VDiff":                {"vdiff_create", "vdiff_stop", "vdiff_resume"},
	"VSchema":              {"update_keyspace_vschema", "update_branch_routing_rules"},
	"SchemaRecommendation": {"dismiss_schema_recommendation"},
	"Throttler":            {"update_database_throttler", "update_deploy_request_throttler"},
	"AuthAttemptExport":    {"create_auth_attempt_export"},
	"DataImport":           {"test_data_import_source", "start_data_import", "create_import_notification"},
	"Connection":           {"kill_process"},
}

func FuzzMaterializeBodies(f *testing.F) { fuzzBodies(f, fuzzBodyGroups["Materialize"]...) }

func FuzzLookupVindexBodies(f *testing.F) { fuzzBodies(f, fuzzBodyGroups["LookupVindex"]...) }

func FuzzDataImportBodies(f *testing.F) { fuzzBodies(f, fuzzBodyGroups["DataImport"]...) }

func FuzzOrganizationBodies(f *testing.F) { fuzzBodies(f, fuzzBodyGroups["Organization"]...) }

func FuzzDatabaseBodies(f *testing.F) { fuzzBodies(f, fuzzBodyGroups["Database"]...) }

func FuzzBranchBodies(f *testing.F) { fuzzBodies(f, fuzzBodyGroups["Branch"]...) }

func FuzzKeyspaceBodies(f *testing.F) { fuzzBodies(f, fuzzBodyGroups["Keyspace"]...) }

func FuzzBranchChangeBodies(f *testing.F) { fuzzBodies(f, fuzzBodyGroups["BranchChange"]...) }

func FuzzDeployRequestBodies(f *testing.F) { fuzzBodies(f, fuzzBodyGroups["DeployRequest"]...) }

func FuzzBackupBodies(f *testing.F) { fuzzBodies(f, fuzzBodyGroups["Backup"]...) }

func FuzzMoveTablesBodies(f *testing.F) { fuzzBodies(f, fuzzBodyGroups["MoveTables"]...) }

func FuzzBackupPolicyBodies(f *testing.F) { fuzzBodies(f, fuzzBodyGroups["BackupPolicy"]...) }

func FuzzRoleBodies(f *testing.F) { fuzzBodies(f, fuzzBodyGroups["Role"]...) }

func FuzzPasswordBodies(f *testing.F) { fuzzBodies(f, fuzzBodyGroups["Password"]...) }

func FuzzIPRestrictionBodies(f *testing.F) { fuzzBodies(f, fuzzBodyGroups["IPRestriction"]...) }

func FuzzOAuthApplicationBodies(f *testing.F) { fuzzBodies(f, fuzzBodyGroups["OAuthApplication"]...) }

func FuzzTeamBodies(f *testing.F) { fuzzBodies(f, fuzzBodyGroups["Team"]...) }

func FuzzWebhookBodies(f *testing.F) { fuzzBodies(f, fuzzBodyGroups["Webhook"]...) }

func FuzzTrafficBudgetBodies(f *testing.F) { fuzzBodies(f, fuzzBodyGroups["TrafficBudget"]...) }

func FuzzServiceTokenBodies(f *testing.F) { fuzzBodies(f, fuzzBodyGroups["ServiceToken"]...) }

func FuzzBouncerBodies(f *testing.F)    { fuzzBodies(f, fuzzBodyGroups["Bouncer"]...) }
func FuzzSwitchoverBodies(f *testing.F) { fuzzBodies(f, fuzzBodyGroups["Switchover"]...) }

func FuzzVitessBodies(f *testing.F) { fuzzBodies(f, fuzzBodyGroups["Vitess"]...) }

func FuzzVitessControlBodies(f *testing.F) { fuzzBodies(f, fuzzBodyGroups["VitessControl"]...) }

func FuzzMaintenanceBodies(f *testing.F) { fuzzBodies(f, fuzzBodyGroups["Maintenance"]...) }

func FuzzSchemaRecommendationBodies(f *testing.F) {
	fuzzBodies(f, fuzzBodyGroups["SchemaRecommendation"]...)
}

func FuzzThrottlerBodies(f *testing.F) { fuzzBodies(f, fuzzBodyGroups["Throttler"]...) }
func FuzzWorkflowBodies(f *testing.F)  { fuzzBodies(f, fuzzBodyGroups["Workflow"]...) }
func FuzzVDiffBodies(f *testing.F)     { fuzzBodies(f, fuzzBodyGroups["VDiff"]...) }
func FuzzVSchemaBodies(f *testing.F)   { fuzzBodies(f, fuzzBodyGroups["VSchema"]...) }

func FuzzAuthAttemptExportBodies(f *testing.F) { fuzzBodies(f, fuzzBodyGroups["AuthAttemptExport"]...) }
func FuzzConnectionBodies(f *testing.F)        { fuzzBodies(f, fuzzBodyGroups["Connection"]...) }

// TestFuzzBodiesCoverBodyOperations checks that every operation whose
// fixture sends a body is fuzzed by one of the targets above.
func TestFuzzBodiesCoverBodyOperations(t *testing.T) {
	t.Parallel()
	fuzzed := map[string]bool{}
	for _, group := range fuzzBodyGroups {
		for _, name := range group {
			fuzzed[name] = true
		}
	}
	ops := loadOperations(t)
	for name := range opFixtures {
		if fuzzed[name] || ops[name].method == http.MethodGet {
			continue
		}
		w := newOpWorldInProcess(t)
		if call := opFixtures[name](w, ""); call.body != "" {
			t.Errorf("%s takes a body that no Fuzz...Bodies target fuzzes", name)
		}
	}
}
