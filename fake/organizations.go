package fake

import (
	"slices"
	"strings"

	"github.com/dbplatform/platform-go"
)

// orgRec is an organization with its members and databases.
type orgRec struct {
	stamps
	name            string
	billingEmail    string
	idpManagedRoles bool
	invoiceBudget   int
	defaultRegion   *regionRec

	members      index[*memberRec]
	memberByUser map[string]*memberRec // by user ID
	dbs          index[*dbRec]
	dbByName     map[string]*dbRec
	branchByName map[branchKey]*branchRec // every database's live branches
	teams        teamStore
	tokens       index[*tokenRec] // service tokens, in list order
	billing      orgBilling       // usage, invoices, payment method; see billing.go
	auth         *orgAuth         // authentication attempts and exports; see authattempts.go
}

// userRec is a person.
type userRec struct {
	stamps
	name, email string
	defaultOrg  *orgRec
}

// memberRec is a user's membership of an organization.
type memberRec struct {
	stamps
	user *userRec
	role platform.MemberRole
}

func organizationRoutes() []route {
	return []route{
		{pattern: "GET /v1/organizations", op: "list_organizations", ownView: true, handler: read(listOrganizations)},
		{pattern: "GET /v1/organizations/{organization}", op: "get_organization", handler: read(getOrganization)},
		{pattern: "PATCH /v1/organizations/{organization}", op: "update_organization", handler: withBody(updateOrganization)},
		{pattern: "GET /v1/organizations/{organization}/regions", op: "list_regions_for_organization", handler: read(listOrganizationRegions)},
		{pattern: "GET /v1/organizations/{organization}/members", op: "list_organization_members", handler: read(listMembers)},
		{pattern: "GET /v1/organizations/{organization}/members/{id}", op: "get_organization_membership", handler: read(getMember)},
		{pattern: "PATCH /v1/organizations/{organization}/members/{id}", op: "update_organization_membership", handler: withBody(updateMember)},
		{pattern: "DELETE /v1/organizations/{organization}/members/{id}", op: "remove_organization_member", handler: act(removeMember)},
		{pattern: "GET /v1/user", op: "get_current_user", handler: read(getCurrentUser)},
		{pattern: "GET /v1/regions", op: "list_public_regions", public: true, handler: read(listPublicRegions)},
	}
}

// listOrganizations lists the organizations the credential acts in. An
// OAuth token granted user:read_organizations sees every organization of
// its user; one without it (a sign-in that asked for organization scopes
// only, as the service's command-line tool does) sees the organizations
// its grant names.
func listOrganizations(c *call) (any, error) {
	sees := c.who.belongsTo
	if g := c.who.grant(); g != nil && !slices.Contains(g.scopes[platform.ScopeResourceUser], platform.ScopeUserReadOrganizations.Name()) {
		sees = func(o *orgRec) bool { return c.who.belongsTo(o) && slices.Contains(g.orgs, o) }
	}
	return filteredPageOf(c, &c.w.orgIdx, false, sees, c.w.renderOrganization), nil
}

func getOrganization(c *call) (any, error) {
	return c.w.renderOrganization(c.org), nil
}

func updateOrganization(c *call, p *platform.UpdateOrganizationParams) (any, error) {
	if p.BillingEmail != nil && !validEmail(*p.BillingEmail) {
		return nil, unprocessable("billing_email %q is not an email address", *p.BillingEmail)
	}
	if p.InvoiceBudgetAmount != nil && *p.InvoiceBudgetAmount < 0 {
		return nil, unprocessable("invoice_budget_amount must not be negative")
	}
	org := c.org
	if p.BillingEmail != nil {
		org.billingEmail = *p.BillingEmail
	}
	if p.IDPManagedRoles != nil {
		org.idpManagedRoles = *p.IDPManagedRoles
	}
	if p.InvoiceBudgetAmount != nil {
		org.invoiceBudget = *p.InvoiceBudgetAmount
	}
	org.updated = c.now
	return c.w.renderOrganization(org), nil
}

func listOrganizationRegions(c *call) (any, error) {
	return regionPage(c, renderRegionFor(c.org.defaultRegion)), nil
}

func listMembers(c *call) (any, error) {
	q := strings.ToLower(c.r.URL.Query().Get("q"))
	if q == "" {
		return pageOf(c, &c.org.members, true, renderMember), nil
	}
	match := func(m *memberRec) bool {
		return strings.Contains(strings.ToLower(m.user.name), q) || strings.Contains(strings.ToLower(m.user.email), q)
	}
	return filteredPageOf(c, &c.org.members, true, match, renderMember), nil
}

// member finds the membership of the path's {id}, a user ID.
func (c *call) member() (*memberRec, error) {
	m := c.org.memberByUser[c.r.PathValue("id")]
	if m == nil {
		return nil, c.nothingAt("id")
	}
	return m, nil
}

func getMember(c *call) (any, error) {
	m, err := c.member()
	if err != nil {
		return nil, err
	}
	return renderMember(m), nil
}

func updateMember(c *call, p *platform.UpdateMemberParams) (any, error) {
	m, err := c.member()
	if err != nil {
		return nil, err
	}
	switch p.Role {
	case platform.RoleMember, platform.RoleAdmin:
	case "":
		return nil, unprocessable("role is required: member or admin")
	default:
		return nil, unprocessable("role %q is not member or admin", p.Role)
	}
	if m.role == platform.RoleAdmin && p.Role != platform.RoleAdmin && c.org.adminCount() == 1 {
		return nil, unprocessable("user %s is the last admin of %s and cannot be demoted", m.user.id, c.org.name)
	}
	if m.role != p.Role {
		m.role = p.Role
		m.updated = c.now
	}
	return renderMember(m), nil
}

func removeMember(c *call) (any, error) {
	m, err := c.member()
	if err != nil {
		return nil, err
	}
	q := c.r.URL.Query()
	deleteTokens, err := boolQuery(q.Get("delete_service_tokens"), "delete_service_tokens")
	if err != nil {
		return nil, err
	}
	deletePasswords, err := boolQuery(q.Get("delete_passwords"), "delete_passwords")
	if err != nil {
		return nil, err
	}
	if m.role == platform.RoleAdmin && c.org.adminCount() == 1 {
		return nil, unprocessable("user %s is the last admin of %s and cannot be removed", m.user.id, c.org.name)
	}
	c.org.members.Remove(m)
	delete(c.org.memberByUser, m.user.id)
	c.org.teams.dropUser(m.user, c.now)
	if deletePasswords {
		c.w.dropRolesCreatedBy(c.org, m.user)
		c.w.deletePasswordsCreatedBy(c.org, m.user)
	}
	if deleteTokens {
		for _, t := range c.w.tokens {
			if t.org == c.org && t.creator == m.user {
				c.w.removeToken(t)
			}
		}
	}
	return nil, nil
}

func getCurrentUser(c *call) (any, error) {
	if c.who.user == nil {
		return nil, notFound()
	}
	return renderUser(c.who.user), nil
}

func listPublicRegions(c *call) (any, error) {
	return regionPage(c, renderPublicRegionItem), nil
}

// adminCount is the number of the organization's admins.
func (org *orgRec) adminCount() int {
	n := 0
	for _, m := range org.members.All() {
		if m.role == platform.RoleAdmin {
			n++
		}
	}
	return n
}

// validEmail is a loose check: something@something.something.
func validEmail(s string) bool {
	local, domain, ok := strings.Cut(s, "@")
	return ok && local != "" && strings.Contains(domain, ".") && !strings.ContainsAny(s, " \t\r\n")
}

// renderOrganization renders an organization; its billing flags follow its
// billing (billing.go): has_card and valid_billing_info while a payment
// method is on file, has_past_due_invoices while an invoice is overdue.
func (w *world) renderOrganization(o *orgRec) *platform.Organization {
	card := o.billing.payment != nil
	return &platform.Organization{
		ID:                  o.id,
		Type:                "Organization",
		Name:                o.name,
		BillingEmail:        o.billingEmail,
		CreatedAt:           platform.NewTimestamp(o.created),
		UpdatedAt:           platform.NewTimestamp(o.updated),
		Plan:                "scaler_pro",
		ValidBillingInfo:    card,
		HasPastDueInvoices:  platform.Ptr(w.pastDue(o)),
		DatabaseCount:       o.dbs.Len(),
		Features:            map[string]any{},
		IDPManagedRoles:     o.idpManagedRoles,
		InvoiceBudgetAmount: itoa(o.invoiceBudget),
		KeyspaceShardLimit:  32,
		HasCard:             card,
		// The paid plan the fake's organizations are on includes no free
		// database.
		FreeDatabasesRemaining: 0,
	}
}

func renderMember(m *memberRec) *platform.Member {
	return &platform.Member{
		ID:        m.id,
		Type:      "OrganizationMembership",
		User:      *renderUser(m.user),
		Role:      m.role,
		CreatedAt: platform.NewTimestamp(m.created),
		UpdatedAt: platform.NewTimestamp(m.updated),
	}
}
