package fake

import (
	"errors"
	"fmt"

	"github.com/dbplatform/platform-go"
)

// The snapshot of users and organizations with their members. Teams and
// service tokens are in teams_snap.go and servicetokens_snap.go.

type userSnap struct {
	stampsSnap
	Name       string `json:"name"`
	Email      string `json:"email"`
	DefaultOrg string `json:"default_organization,omitempty"` // its name
}

func (sv *saver) users() []userSnap {
	var out []userSnap
	for _, id := range sortedKeys(sv.w.users) {
		u := sv.w.users[id]
		us := userSnap{stampsSnap: saveStamps(u.stamps), Name: u.name, Email: u.email}
		if u.defaultOrg != nil {
			us.DefaultOrg = u.defaultOrg.name
		}
		out = append(out, us)
	}
	return out
}

func (ld *loader) loadUsers(list []userSnap) error {
	for i, us := range list {
		if err := unique(ld.users, us.ID, "user"); err != nil {
			return at(err, "users[%d].id", i)
		}
		u := &userRec{stamps: us.load(), name: us.Name, email: us.Email}
		ld.users[u.id] = u
		ld.w.users[u.id] = u
		if us.DefaultOrg != "" {
			ld.later(func() error {
				u.defaultOrg = ld.w.orgs[us.DefaultOrg]
				if u.defaultOrg == nil {
					return at(fmt.Errorf("organization %q is not in the snapshot", us.DefaultOrg), "users[%d].default_organization", i)
				}
				return nil
			})
		}
	}
	return nil
}

type orgSnap struct {
	stampsSnap
	Name            string       `json:"name"`
	BillingEmail    string       `json:"billing_email"`
	IDPManagedRoles bool         `json:"idp_managed_roles"`
	InvoiceBudget   int          `json:"invoice_budget"`
	DefaultRegion   string       `json:"default_region"` // slug
	Members         []memberSnap `json:"members"`
	Teams           []teamSnap   `json:"teams"`
	Billing         *billingSnap `json:"billing,omitempty"`
}

type memberSnap struct {
	stampsSnap
	User string              `json:"user"`
	Role platform.MemberRole `json:"role"`
}

func (sv *saver) orgs() []orgSnap {
	var out []orgSnap
	for _, org := range sv.w.orgIdx.All() {
		os := orgSnap{
			stampsSnap:      saveStamps(org.stamps),
			Name:            org.name,
			BillingEmail:    org.billingEmail,
			IDPManagedRoles: org.idpManagedRoles,
			InvoiceBudget:   org.invoiceBudget,
			DefaultRegion:   org.defaultRegion.slug,
			Billing:         saveBilling(&org.billing),
		}
		for _, m := range org.members.All() {
			os.Members = append(os.Members, memberSnap{saveStamps(m.stamps), m.user.id, m.role})
		}
		for _, t := range org.teams.idx.All() {
			ts := teamSnap{
				stampsSnap: saveStamps(t.stamps), Name: t.name, Slug: t.slug,
				Description: t.description, Creator: idOf(t.creator), Managed: t.managed,
				Databases: idsOf(t.databases), AnalystDatabases: idsOf(t.analystDatabases),
			}
			for _, m := range t.members.All() {
				ts.Members = append(ts.Members, teamMemberSnap{saveStamps(m.stamps), idOf(m.user), idOf(m.actor)})
			}
			os.Teams = append(os.Teams, ts)
		}
		out = append(out, os)
	}
	return out
}

func (ld *loader) loadOrgs(list []orgSnap) error {
	for i, os := range list {
		if err := ld.loadOrg(os, fmt.Sprintf("organizations[%d]", i)); err != nil {
			return at(err, "organizations[%d]", i)
		}
	}
	return nil
}

// validate checks what the API checks of an organization and its members.
func (os *orgSnap) validate() error {
	errs := []error{at(snapName(os.Name), "name"), at(snapNonNegative(os.InvoiceBudget), "invoice_budget")}
	for i, ms := range os.Members {
		switch ms.Role {
		case platform.RoleMember, platform.RoleAdmin:
		default:
			errs = append(errs, at(fmt.Errorf("%q is not a member role", ms.Role), "members[%d].role", i))
		}
	}
	return firstErr(errs...)
}

// loadOrg loads an organization with its members and teams; path is its
// place in the document, for the references resolved later.
func (ld *loader) loadOrg(os orgSnap, path string) error {
	if err := unique(ld.orgs, os.ID, "organization"); err != nil {
		return at(err, "id")
	}
	if err := os.validate(); err != nil {
		return err
	}
	if ld.w.orgs[os.Name] != nil {
		return at(fmt.Errorf("%q appears twice", os.Name), "name")
	}
	region := regionBySlug(os.DefaultRegion)
	if region == nil {
		return fmt.Errorf("organization %s: unknown region %q", os.Name, os.DefaultRegion)
	}
	org := &orgRec{
		stamps: os.load(), name: os.Name, billingEmail: os.BillingEmail,
		idpManagedRoles: os.IDPManagedRoles, invoiceBudget: os.InvoiceBudget, defaultRegion: region,
		memberByUser: map[string]*memberRec{}, dbByName: map[string]*dbRec{},
		branchByName: map[branchKey]*branchRec{},
	}
	ld.orgs[org.id] = org
	ld.w.orgs[org.name] = org
	ld.w.orgIdx.Add(org)
	for j, ms := range os.Members {
		u, err := ref(ld.users, ms.User, "member's user")
		switch {
		case err == nil && u == nil:
			err = errors.New("must name a user")
		case err == nil && org.memberByUser[ms.User] != nil:
			err = fmt.Errorf("user %s is a member twice", ms.User)
		}
		if err != nil {
			return at(err, "members[%d].user", j)
		}
		m := &memberRec{stamps: ms.load(), user: u, role: ms.Role}
		org.members.Add(m)
		org.memberByUser[u.id] = m
	}
	if err := os.Billing.load(org); err != nil {
		return named(err, "organization %s", org.name)
	}
	ld.later(func() error { ld.nameBilledSizes(org); return nil })
	for i, ts := range os.Teams {
		if err := ld.loadTeam(org, ts, fmt.Sprintf("%s.teams[%d]", path, i)); err != nil {
			return at(named(err, "team %s", ts.ID), "teams[%d]", i)
		}
	}
	return nil
}
