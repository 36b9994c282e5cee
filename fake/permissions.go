package fake

import (
	"slices"
	"strings"
)

// organizationPermissions are the permissions that only make sense for a
// whole organization.
var organizationPermissions = []string{
	"read_organization", "write_organization", "read_invoices", "read_audit_logs",
	"read_databases", "create_databases", "delete_databases",
	"read_oauth_applications", "read_oauth_tokens", "write_oauth_tokens", "delete_oauth_tokens",
	"read_service_tokens", "write_service_tokens", "delete_service_tokens",
	"write_teams", "read_metrics_endpoints",
}

// databasePermissions are the permissions that can be granted on one
// database: the spec's table, and the names the operations use.
var databasePermissions = func() []string {
	set := map[string]bool{}
	for _, p := range strings.Fields(`read_database write_database delete_database create_branch read_branch
		delete_branch delete_production_branch connect_branch connect_production_branch
		delete_branch_password delete_production_branch_password create_deploy_request
		read_deploy_request approve_deploy_request create_comment read_comment read_backups
		write_backups delete_backups delete_production_branch_backups restore_backup
		restore_production_branch_backup write_branch_vschema write_production_branch_vschema`) {
		set[p] = true
	}
	org := map[string]bool{}
	for _, p := range organizationPermissions {
		org[p] = true
	}
	for _, op := range operations {
		for _, p := range op.perms {
			if !org[p] {
				set[p] = true
			}
		}
	}
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}()

// AllPermissions returns every permission name a service token can hold,
// sorted.
func AllPermissions() []string {
	out := append(append([]string(nil), organizationPermissions...), databasePermissions...)
	slices.Sort(out)
	return out
}

// knownPermission reports whether name is a permission.
func knownPermission(name string) bool {
	return slices.Contains(organizationPermissions, name) || slices.Contains(databasePermissions, name)
}
