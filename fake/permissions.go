package fake

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"

	"github.com/dbplatform/platform-go"
)

// organizationPermissions are the permissions that only make sense for a
// whole organization.
var organizationPermissions = []string{
	"read_organization", "write_organization", "read_invoices", "read_audit_logs",
	"read_databases", "create_databases", "delete_databases",
	"read_oauth_applications", "read_oauth_tokens", "write_oauth_tokens", "delete_oauth_tokens",
	"read_service_tokens", "write_service_tokens", "delete_service_tokens",
	"write_teams", "read_metrics_endpoints",
	"read_payment_method", "write_payment_method",
}

// databasePermissions are the permissions that can be granted on one
// database: the spec's table, and the names the operations use.
var databasePermissions = func() []string {
	set := map[string]bool{}
	for p := range strings.FieldsSeq(`read_database write_database delete_database create_branch read_branch
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

// AllPermissions returns every permission a service token can hold, sorted.
func AllPermissions() []platform.Permission {
	out := make([]platform.Permission, len(permissionNames))
	for i, name := range permissionNames {
		out[i] = platform.Permission(name)
	}
	return out
}

// permissionStrings returns the names of perms.
func permissionStrings(perms []platform.Permission) []string {
	out := make([]string, len(perms))
	for i, p := range perms {
		out[i] = string(p)
	}
	return out
}

// permSet is a set of permissions, one bit per name: bit i stands for
// permissionNames[i]. A token's grant on one resource is one permSet, so a
// grant costs a word, not a map.
type permSet uint64

// permissionNames are the names of a permSet's bits: every permission,
// sorted, so that a set's names come out sorted.
var permissionNames = func() []string {
	out := append(append([]string(nil), organizationPermissions...), databasePermissions...)
	slices.Sort(out)
	return out
}()

// permBits maps each permission name to its bit.
var permBits = func() map[string]permSet {
	if len(permissionNames) > 64 {
		panic(fmt.Sprintf("fake: %d permissions do not fit a permSet of 64 bits: widen it", len(permissionNames)))
	}
	out := make(map[string]permSet, len(permissionNames))
	for i, p := range permissionNames {
		out[p] = 1 << i
	}
	return out
}()

// databasePermSet is every database permission.
var databasePermSet = permsOf(databasePermissions)

// permsOf returns the set of the named permissions; names that are not
// permissions are left out (nobody holds them).
func permsOf(names []string) permSet {
	var s permSet
	for _, p := range names {
		s |= permBits[p]
	}
	return s
}

// len is the number of permissions in the set.
func (s permSet) len() int { return bits.OnesCount64(uint64(s)) }

// names returns the set's permissions, sorted.
func (s permSet) names() []string {
	out := make([]string, 0, s.len())
	for rest := uint64(s); rest != 0; rest &= rest - 1 {
		out = append(out, permissionNames[bits.TrailingZeros64(rest)])
	}
	return out
}

// knownPermission reports whether name is a permission.
func knownPermission(name string) bool {
	return slices.Contains(organizationPermissions, name) || slices.Contains(databasePermissions, name)
}

// organizationPermission reports whether name is an organization
// permission, which is granted on the whole organization only.
func organizationPermission(name string) bool {
	return slices.Contains(organizationPermissions, name)
}

// checkGrant checks that perms can be granted on db, or on the
// organization when db is nil: every name is a permission, and none is an
// organization permission when db is set.
func checkGrant(db *dbRec, perms []string) error {
	for _, p := range perms {
		if !knownPermission(p) {
			return fmt.Errorf("unknown permission %q", p)
		}
		if db != nil && organizationPermission(p) {
			return fmt.Errorf("%s is an organization permission and cannot be granted on database %s; grant it without a database", p, db.name)
		}
	}
	return nil
}

// roleHolds reports whether an organization member with role holds perm,
// and so may grant it to a service token (the spec: "Permissions are
// granted to a token by an organization member who is themselves
// authorized to hold them. For example, an organization member cannot
// give a token create_databases").
//
// The spec splits permissions into organization access and database
// access, and its example denies a member an organization permission. The
// fake draws the line there: an admin holds every permission; a member
// holds every database permission (on every database, so also granted on
// the whole organization) and no organization permission: not
// create_databases, write_organization, the service token, OAuth, team,
// invoice or audit log permissions, and not the organization-wide reads
// (read_organization, read_databases, read_metrics_endpoints) either.
func roleHolds(role platform.MemberRole, perm string) bool {
	switch role {
	case platform.RoleAdmin:
		return knownPermission(perm)
	case platform.RoleMember:
		return slices.Contains(databasePermissions, perm)
	}
	return false
}

// permissionDescriptions say what each permission allows, as accesses and
// grants show it: the spec's tables, and for the names only the
// operations use, what those operations do.
var permissionDescriptions = map[string]string{
	"read_organization":       "get information about an organization",
	"write_organization":      "update an organization's settings",
	"read_invoices":           "get invoices",
	"read_audit_logs":         "get audit logs",
	"read_databases":          "get information about the organization's databases",
	"create_databases":        "create organization databases",
	"delete_databases":        "delete organization databases",
	"read_oauth_applications": "get information about OAuth applications and their tokens",
	"read_oauth_tokens":       "get OAuth tokens for an OAuth application",
	"write_oauth_tokens":      "create and refresh OAuth grants and tokens",
	"delete_oauth_tokens":     "delete OAuth tokens",
	"read_service_tokens":     "get information about service tokens",
	"write_service_tokens":    "create and update service tokens",
	"delete_service_tokens":   "delete service tokens",
	"write_teams":             "create and update teams",
	"read_metrics_endpoints":  "get information about branch metrics endpoints",
	"read_payment_method":     "get the organization's billing payment method",
	"write_payment_method":    "remove the organization's billing payment method",

	"read_database":                               "get information about a database",
	"write_database":                              "update information about a database",
	"delete_database":                             "delete a database",
	"create_branch":                               "create a database branch",
	"read_branch":                                 "read a database branch",
	"delete_branch":                               "delete a database branch",
	"delete_production_branch":                    "delete a production branch",
	"promote_branches":                            "promote a development branch to production",
	"demote_branches":                             "demote a production branch to development",
	"connect_branch":                              "connect to a branch",
	"connect_production_branch":                   "connect to a production branch",
	"connect_production_read_only_branch":         "connect to a read-only replica of a production branch",
	"create_branch_password":                      "create credentials for a non-production branch",
	"create_production_branch_password":           "create credentials for a production branch",
	"create_production_read_only_branch_password": "create read-only credentials for a production branch",
	"delete_branch_password":                      "delete a password for a non-production branch",
	"delete_production_branch_password":           "delete a password for a production branch",
	"delete_production_read_only_branch_password": "delete read-only credentials of a production branch",
	"create_deploy_request":                       "create a deploy request",
	"read_deploy_request":                         "read a deploy request",
	"review_deploy_request":                       "review a deploy request",
	"approve_deploy_request":                      "approve a deploy request",
	"create_comment":                              "create a deploy request comment",
	"read_comment":                                "read a deploy request comment",
	"read_backups":                                "list backups",
	"write_backups":                               "create and update backups",
	"delete_backups":                              "delete development branch backups",
	"delete_production_branch_backups":            "delete production branch backups",
	"restore_backup":                              "restore a development branch backup",
	"restore_production_branch_backup":            "restore a production branch backup",
	"write_branch_vschema":                        "update the VSchema of a branch",
	"write_production_branch_vschema":             "update the VSchema of a production branch",
}
