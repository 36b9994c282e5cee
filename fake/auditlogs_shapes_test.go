package fake

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestAuditShapes checks the action every operation that changes the
// world is audited under: each names a verb of auditVerbs (an operation
// with none fails here, asking for its verb), and a sample shows the
// rule of auditShapeOf at work.
func TestAuditShapes(t *testing.T) {
	t.Parallel()
	for name, sh := range auditShapes {
		past := false
		for _, v := range auditVerbs {
			past = past || sh.verb == v || strings.HasPrefix(sh.verb, v+"_")
		}
		if _, named := auditActionNames[name]; !past && !named {
			t.Errorf("%s is audited as %q, with no verb of auditVerbs (fake/auditlogs.go): add its verb in the past tense", name, sh.action)
		}
	}
	type shape struct{ Action, Verb, TargetType, Param string }
	sample := map[string]shape{}
	want := map[string]shape{
		"create_database":              {"database.created", "created", "Database", ""},
		"delete_branch":                {"branch.deleted", "deleted", "DatabaseBranch", "branch"},
		"queue_deploy_request":         {"deploy_request.queued", "queued", "DeployRequest", "number"},
		"update_auto_apply":            {"deploy_request.updated_auto_apply", "updated_auto_apply", "DeployRequest", "number"},
		"force_cutover_deploy_request": {"deploy_request.forced_cutover", "forced_cutover", "DeployRequest", "number"},
		"create_traffic_rule":          {"traffic_rule.created", "created", "TrafficRule", ""},
		"delete_organization_team":     {"team.deleted", "deleted", "Team", "team"},
		"add_organization_team_member": {"team.added_member", "added_member", "Team", "team"},
		"add_service_token_accesses":   {"service_token.granted_access", "granted_access", "ServiceToken", "id"},
		"renew_password":               {"password.renewed", "renewed", "DatabaseBranchPassword", "id"},
		"reset_default_role":           {"branch.reset_default_role", "reset_default_role", "DatabaseBranch", "branch"},
		"create_backup_policy":         {"backup_policy.created", "created", "BackupPolicy", ""},
		"update_organization":          {"organization.updated", "updated", "Organization", "organization"},
	}
	for name := range want {
		sh := auditShapes[name]
		if sh == nil {
			t.Fatalf("%s is not audited", name)
		}
		sample[name] = shape{sh.action, sh.verb, sh.targetType, sh.param}
	}
	if diff := cmp.Diff(want, sample); diff != "" {
		t.Errorf("shapes (-want +got):\n%s", diff)
	}
	workflow := auditShapeOf(operation{name: "workflow_switch_primaries", method: "PATCH", path: "/v1/organizations/{organization}/databases/{database}/workflows/{number}/switch-primaries"})
	if workflow.action != "workflow.switched_primaries" || workflow.targetType != "Workflow" {
		t.Errorf("workflow_switch_primaries: %s of %s, want workflow.switched_primaries of Workflow", workflow.action, workflow.targetType)
	}
}
