package platform

import (
	"encoding/json"
	"slices"
	"strings"
)

// Scope is an OAuth scope: what an OAuth application may do on behalf of a
// user, named with the kind of resource it is granted on
// ("organization:read_databases"). A user grants each scope on resources of
// its kind: a user scope on the user, an organization scope on the
// organizations the user chooses, a database scope on chosen databases, a
// branch scope on chosen branches. A scope granted on an organization
// covers its databases and their branches; one granted on a database covers
// its branches.
type Scope string

// The scopes on the user.
const (
	ScopeUserReadOrganizations Scope = "user:read_organizations"
	ScopeUserReadUser          Scope = "user:read_user"
)

// The scopes on an organization, covering its databases and branches.
const (
	ScopeOrganizationApproveDeployRequests             Scope = "organization:approve_deploy_requests"
	ScopeOrganizationCreateDatabases                   Scope = "organization:create_databases"
	ScopeOrganizationDeleteBackups                     Scope = "organization:delete_backups"
	ScopeOrganizationDeleteBranches                    Scope = "organization:delete_branches"
	ScopeOrganizationDeleteDatabases                   Scope = "organization:delete_databases"
	ScopeOrganizationDeleteProductionBranchBackups     Scope = "organization:delete_production_branch_backups"
	ScopeOrganizationDeleteProductionBranches          Scope = "organization:delete_production_branches"
	ScopeOrganizationDemoteBranches                    Scope = "organization:demote_branches"
	ScopeOrganizationDeployDeployRequests              Scope = "organization:deploy_deploy_requests"
	ScopeOrganizationManagePasswords                   Scope = "organization:manage_passwords"
	ScopeOrganizationManageProductionBranchPasswords   Scope = "organization:manage_production_branch_passwords"
	ScopeOrganizationManageProductionReadOnlyPasswords Scope = "organization:manage_production_read_only_passwords"
	ScopeOrganizationManageReadOnlyPasswords           Scope = "organization:manage_read_only_passwords"
	ScopeOrganizationPromoteBranches                   Scope = "organization:promote_branches"
	ScopeOrganizationReadAuditLogs                     Scope = "organization:read_audit_logs"
	ScopeOrganizationReadBackups                       Scope = "organization:read_backups"
	ScopeOrganizationReadBranches                      Scope = "organization:read_branches"
	ScopeOrganizationReadDatabases                     Scope = "organization:read_databases"
	ScopeOrganizationReadDeployRequests                Scope = "organization:read_deploy_requests"
	ScopeOrganizationReadInvoices                      Scope = "organization:read_invoices"
	ScopeOrganizationReadOrganization                  Scope = "organization:read_organization"
	ScopeOrganizationReadPaymentMethod                 Scope = "organization:read_payment_method"
	ScopeOrganizationRestoreBackups                    Scope = "organization:restore_backups"
	ScopeOrganizationRestoreProductionBranchBackups    Scope = "organization:restore_production_branch_backups"
	ScopeOrganizationWriteBackups                      Scope = "organization:write_backups"
	ScopeOrganizationWriteBranches                     Scope = "organization:write_branches"
	ScopeOrganizationWriteDatabases                    Scope = "organization:write_databases"
	ScopeOrganizationWriteDeployRequests               Scope = "organization:write_deploy_requests"
	ScopeOrganizationWriteOrganization                 Scope = "organization:write_organization"
	ScopeOrganizationWritePaymentMethod                Scope = "organization:write_payment_method"
)

// ScopeOrganizationAdmin is not a scope an application asks for, and
// [Scopes] leaves it out: the operations' table names it for the service
// token operations, which admit an OAuth token whose user holds the admin
// role in the organization, whatever scopes the token was granted.
const ScopeOrganizationAdmin Scope = "organization:admin"

// The scopes on a database, covering its branches.
const (
	ScopeDatabaseApproveDeployRequests             Scope = "database:approve_deploy_requests"
	ScopeDatabaseDeleteBackups                     Scope = "database:delete_backups"
	ScopeDatabaseDeleteBranches                    Scope = "database:delete_branches"
	ScopeDatabaseDeleteDatabase                    Scope = "database:delete_database"
	ScopeDatabaseDeleteProductionBranchBackups     Scope = "database:delete_production_branch_backups"
	ScopeDatabaseDeleteProductionBranches          Scope = "database:delete_production_branches"
	ScopeDatabaseDemoteBranches                    Scope = "database:demote_branches"
	ScopeDatabaseDeployDeployRequests              Scope = "database:deploy_deploy_requests"
	ScopeDatabaseManagePasswords                   Scope = "database:manage_passwords"
	ScopeDatabaseManageProductionBranchPasswords   Scope = "database:manage_production_branch_passwords"
	ScopeDatabaseManageProductionReadOnlyPasswords Scope = "database:manage_production_read_only_passwords"
	ScopeDatabaseManageReadOnlyPasswords           Scope = "database:manage_read_only_passwords"
	ScopeDatabasePromoteBranches                   Scope = "database:promote_branches"
	ScopeDatabaseReadBackups                       Scope = "database:read_backups"
	ScopeDatabaseReadBranches                      Scope = "database:read_branches"
	ScopeDatabaseReadDatabase                      Scope = "database:read_database"
	ScopeDatabaseReadDeployRequests                Scope = "database:read_deploy_requests"
	ScopeDatabaseRestoreBackups                    Scope = "database:restore_backups"
	ScopeDatabaseRestoreProductionBranchBackups    Scope = "database:restore_production_branch_backups"
	ScopeDatabaseWriteBackups                      Scope = "database:write_backups"
	ScopeDatabaseWriteBranches                     Scope = "database:write_branches"
	ScopeDatabaseWriteDatabase                     Scope = "database:write_database"
	ScopeDatabaseWriteDeployRequests               Scope = "database:write_deploy_requests"
)

// The scopes on a branch.
const (
	ScopeBranchDeleteBackups           Scope = "branch:delete_backups"
	ScopeBranchDeleteBranch            Scope = "branch:delete_branch"
	ScopeBranchManagePasswords         Scope = "branch:manage_passwords"
	ScopeBranchManageReadOnlyPasswords Scope = "branch:manage_read_only_passwords"
	ScopeBranchReadBackups             Scope = "branch:read_backups"
	ScopeBranchReadBranch              Scope = "branch:read_branch"
	ScopeBranchRestoreBackups          Scope = "branch:restore_backups"
	ScopeBranchWriteBackups            Scope = "branch:write_backups"
	ScopeBranchWriteBranch             Scope = "branch:write_branch"
)

// The kinds of resource a scope is granted on: the part of its name before
// the colon.
const (
	ScopeResourceUser         = "user"
	ScopeResourceOrganization = "organization"
	ScopeResourceDatabase     = "database"
	ScopeResourceBranch       = "branch"
)

// scopeDescriptions says what each scope allows, as a consent page shows it.
var scopeDescriptions = map[Scope]string{
	ScopeUserReadOrganizations: "Read the user's organizations",
	ScopeUserReadUser:          "Read the user",

	ScopeOrganizationApproveDeployRequests:             "Approve deploy requests in the organization",
	ScopeOrganizationCreateDatabases:                   "Create databases in the organization",
	ScopeOrganizationDeleteBackups:                     "Delete backups in the organization",
	ScopeOrganizationDeleteBranches:                    "Delete branches in the organization",
	ScopeOrganizationDeleteDatabases:                   "Delete databases of the organization",
	ScopeOrganizationDeleteProductionBranchBackups:     "Delete production branch backups in the organization",
	ScopeOrganizationDeleteProductionBranches:          "Delete production branches in the organization",
	ScopeOrganizationDemoteBranches:                    "Demote production branches in the organization",
	ScopeOrganizationDeployDeployRequests:              "Deploy deploy requests in the organization",
	ScopeOrganizationManagePasswords:                   "Read, write and delete branch passwords in the organization",
	ScopeOrganizationManageProductionBranchPasswords:   "Read, write and delete production branch passwords in the organization",
	ScopeOrganizationManageProductionReadOnlyPasswords: "Read, write and delete production read-only branch passwords in the organization",
	ScopeOrganizationManageReadOnlyPasswords:           "Read, write and delete read-only branch passwords in the organization",
	ScopeOrganizationPromoteBranches:                   "Promote branches in the organization",
	ScopeOrganizationReadBackups:                       "Read backups in the organization",
	ScopeOrganizationReadBranches:                      "Read branches in the organization",
	ScopeOrganizationReadDatabases:                     "Read the organization's databases",
	ScopeOrganizationReadDeployRequests:                "Read deploy requests in the organization",
	ScopeOrganizationReadOrganization:                  "Read the organization",
	ScopeOrganizationReadAuditLogs:                     "Read the organization's audit log",
	ScopeOrganizationRestoreBackups:                    "Restore backups to new branches in the organization",
	ScopeOrganizationRestoreProductionBranchBackups:    "Restore production branch backups to new branches in the organization",
	ScopeOrganizationWriteBackups:                      "Create and update backups in the organization",
	ScopeOrganizationWriteBranches:                     "Write branches in the organization",
	ScopeOrganizationWriteDatabases:                    "Write the organization's databases",
	ScopeOrganizationWriteDeployRequests:               "Create and update deploy requests in the organization",
	ScopeOrganizationWriteOrganization:                 "Write the organization and its memberships",
	ScopeOrganizationReadInvoices:                      "Read the organization's invoices",
	ScopeOrganizationReadPaymentMethod:                 "Read the organization's billing payment method",
	ScopeOrganizationWritePaymentMethod:                "Remove the organization's billing payment method",

	ScopeDatabaseApproveDeployRequests:             "Approve deploy requests of the database",
	ScopeDatabaseDeleteBackups:                     "Delete backups of the database",
	ScopeDatabaseDeleteBranches:                    "Delete branches of the database",
	ScopeDatabaseDeleteDatabase:                    "Delete the database",
	ScopeDatabaseDeleteProductionBranchBackups:     "Delete production branch backups of the database",
	ScopeDatabaseDeleteProductionBranches:          "Delete production branches of the database",
	ScopeDatabaseDemoteBranches:                    "Demote production branches of the database",
	ScopeDatabaseDeployDeployRequests:              "Deploy deploy requests of the database",
	ScopeDatabaseManagePasswords:                   "Read, write and delete branch passwords of the database",
	ScopeDatabaseManageProductionBranchPasswords:   "Read, write and delete production branch passwords of the database",
	ScopeDatabaseManageProductionReadOnlyPasswords: "Read, write and delete production read-only branch passwords of the database",
	ScopeDatabaseManageReadOnlyPasswords:           "Read, write and delete read-only branch passwords of the database",
	ScopeDatabasePromoteBranches:                   "Promote branches of the database",
	ScopeDatabaseReadBackups:                       "Read backups of the database",
	ScopeDatabaseReadBranches:                      "Read branches of the database",
	ScopeDatabaseReadDatabase:                      "Read the database",
	ScopeDatabaseReadDeployRequests:                "Read deploy requests of the database",
	ScopeDatabaseRestoreBackups:                    "Restore backups of the database to new branches",
	ScopeDatabaseRestoreProductionBranchBackups:    "Restore production branch backups of the database to new branches",
	ScopeDatabaseWriteBackups:                      "Create and update backups of the database",
	ScopeDatabaseWriteBranches:                     "Write branches of the database",
	ScopeDatabaseWriteDatabase:                     "Write the database",
	ScopeDatabaseWriteDeployRequests:               "Create and update deploy requests of the database",

	ScopeBranchDeleteBackups:           "Delete backups of the branch",
	ScopeBranchDeleteBranch:            "Delete the branch",
	ScopeBranchManagePasswords:         "Read, write and delete passwords of the branch",
	ScopeBranchManageReadOnlyPasswords: "Read, write and delete read-only passwords of the branch",
	ScopeBranchReadBackups:             "Read backups of the branch",
	ScopeBranchReadBranch:              "Read the branch",
	ScopeBranchRestoreBackups:          "Restore backups of the branch to new branches",
	ScopeBranchWriteBackups:            "Create and update backups of the branch",
	ScopeBranchWriteBranch:             "Write the branch",
}

// Scopes returns every scope the API knows, sorted: the ones an
// application may ask for (not [ScopeOrganizationAdmin]).
func Scopes() []Scope {
	out := make([]Scope, 0, len(scopeDescriptions))
	for s := range scopeDescriptions {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// Resource is the kind of resource the scope is granted on
// ([ScopeResourceUser], [ScopeResourceOrganization], [ScopeResourceDatabase]
// or [ScopeResourceBranch]); "" for a name without one.
func (s Scope) Resource() string {
	res, _, ok := strings.Cut(string(s), ":")
	if !ok {
		return ""
	}
	return res
}

// Name is the scope's name without its resource ("read_databases" of
// "organization:read_databases").
func (s Scope) Name() string {
	_, name, ok := strings.Cut(string(s), ":")
	if !ok {
		return string(s)
	}
	return name
}

// Description says what the scope allows; "" for a scope the SDK does not
// know.
func (s Scope) Description() string { return scopeDescriptions[s] }

// ScopeList is a set of scopes that travels as one space-separated string,
// as an OAuth application's scopes do.
type ScopeList []Scope

// String joins the scopes with spaces.
func (l ScopeList) String() string {
	parts := make([]string, len(l))
	for i, s := range l {
		parts[i] = string(s)
	}
	return strings.Join(parts, " ")
}

// MarshalJSON encodes the scopes as one space-separated string.
func (l ScopeList) MarshalJSON() ([]byte, error) { return json.Marshal(l.String()) }

// UnmarshalJSON decodes a space-separated string of scopes.
func (l *ScopeList) UnmarshalJSON(b []byte) error {
	if err := nilTarget(l); err != nil {
		return err
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*l = ParseScopes(s)
	return nil
}

// ParseScopes splits a space-separated string of scopes, as the token
// endpoint's scope field and an application's scopes carry them.
func ParseScopes(s string) ScopeList {
	fields := strings.Fields(s)
	out := make(ScopeList, len(fields))
	for i, f := range fields {
		out[i] = Scope(f)
	}
	return out
}
