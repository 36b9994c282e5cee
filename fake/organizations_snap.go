package fake

import (
	"fmt"
	"time"

	"github.com/dbplatform/platform-go"
)

// The snapshot of users, organizations with their members and teams, and
// service tokens.

// stampsSnap is a record's ID and times.
type stampsSnap struct {
	ID      string    `json:"id"`
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
}

func saveStamps(s stamps) stampsSnap { return stampsSnap{s.id, s.created, s.updated} }
func (s stampsSnap) load() stamps    { return stamps{s.ID, s.Created, s.Updated} }

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
					return fmt.Errorf("user %s: default organization %q is not in the snapshot", u.id, us.DefaultOrg)
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

type teamSnap struct {
	stampsSnap
	Name             string           `json:"name"`
	Slug             string           `json:"slug"`
	Description      string           `json:"description"`
	Creator          string           `json:"creator"`
	Managed          bool             `json:"managed"`
	Members          []teamMemberSnap `json:"members"`
	Databases        []string         `json:"databases"`
	AnalystDatabases []string         `json:"analyst_databases"`
}

type teamMemberSnap struct {
	stampsSnap
	User  string `json:"user"`
	Actor string `json:"actor"`
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
		if err := ld.loadOrg(os); err != nil {
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

// loadOrg loads an organization with its members and teams.
func (ld *loader) loadOrg(os orgSnap) error {
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
	for _, ms := range os.Members {
		u, err := ref(ld.users, ms.User, "member's user")
		if err != nil || u == nil || org.memberByUser[ms.User] != nil {
			return fmt.Errorf("organization %s: member %s: user %q missing or twice (%v)", org.name, ms.ID, ms.User, err)
		}
		m := &memberRec{stamps: ms.load(), user: u, role: ms.Role}
		org.members.Add(m)
		org.memberByUser[u.id] = m
	}
	if err := os.Billing.load(org); err != nil {
		return named(err, "organization %s", org.name)
	}
	for i, ts := range os.Teams {
		if err := ld.loadTeam(org, ts); err != nil {
			return at(named(err, "team %s", ts.ID), "teams[%d]", i)
		}
	}
	return nil
}

func (ld *loader) loadTeam(org *orgRec, ts teamSnap) error {
	if org.teams.bySlug[ts.Slug] != nil {
		return fmt.Errorf("slug %q appears twice", ts.Slug)
	}
	creator, err := ref(ld.users, ts.Creator, "creator")
	if err != nil {
		return err
	}
	t := &teamRec{
		stamps: ts.load(), name: ts.Name, slug: ts.Slug, description: ts.Description,
		creator: creator, managed: ts.Managed, memberByUser: map[string]*teamMemberRec{},
	}
	for _, ms := range ts.Members {
		u, err := ref(ld.users, ms.User, "member")
		if err != nil {
			return err
		}
		actor, err := ref(ld.users, ms.Actor, "member's actor")
		if err != nil {
			return err
		}
		if u == nil || t.memberByUser[u.id] != nil {
			return fmt.Errorf("member %s: user missing or twice", ms.ID)
		}
		m := &teamMemberRec{stamps: ms.load(), user: u, actor: actor}
		t.members.Add(m)
		t.memberByUser[u.id] = m
	}
	org.teams.add(t)
	ld.later(func() (err error) {
		if t.databases, err = refs(ld.dbs, ts.Databases, "team database"); err != nil {
			return err
		}
		t.analystDatabases, err = refs(ld.dbs, ts.AnalystDatabases, "team analyst database")
		return err
	})
	return nil
}

type tokenSnap struct {
	stampsSnap
	Name         string        `json:"name"`
	Hash         hash32        `json:"hash"`
	Organization string        `json:"organization"`
	Creator      string        `json:"creator"`
	Permissions  []string      `json:"permissions"` // on the organization
	Grants       []dbGrantSnap `json:"database_grants"`
	ExpiresAt    *time.Time    `json:"expires_at"`
	LastUsed     int64         `json:"last_used"`
	// Deleted marks a token kept because a deploy request or review
	// names it.
	Deleted bool `json:"deleted,omitempty"`
}

func (sv *saver) tokens() []tokenSnap {
	var out []tokenSnap
	for _, t := range listOrder(sv.tokenSet) {
		ts := tokenSnap{
			stampsSnap: saveStamps(t.stamps), Name: t.name, Hash: t.hash,
			Organization: t.org.name, Creator: idOf(t.creator),
			Permissions: t.orgPerms.names(), ExpiresAt: t.expiresAt,
			LastUsed: t.lastUsed.Load(), Deleted: sv.w.tokens[t.id] != t,
		}
		for _, g := range t.grantIdx.All() {
			// A revoked token keeps its grants on databases deleted
			// since; nothing reaches them.
			if sv.dbSet[g.db] {
				ts.Grants = append(ts.Grants, dbGrantSnap{g.db.id, g.perms.names()})
			}
		}
		out = append(out, ts)
	}
	return out
}

// dbGrantSnap is what a token holds on one database.
type dbGrantSnap struct {
	Database    string   `json:"database"`
	Permissions []string `json:"permissions"`
}

// loadGrants gives t its grants on databases, once the databases exist.
func (ld *loader) loadGrants(t *tokenRec, list []dbGrantSnap) error {
	for _, gs := range list {
		db, err := refNonNil(ld.dbs, gs.Database, "granted database")
		if err != nil {
			return err
		}
		if t.dbGrants[db.id] != nil {
			return fmt.Errorf("database %s is granted twice", db.id)
		}
		perms, err := loadPerms(gs.Permissions, databasePermSet)
		if err != nil {
			return named(err, "grant on database %s", db.id)
		}
		if perms == 0 {
			return fmt.Errorf("grant on database %s holds no permission", db.id)
		}
		t.grantSet(db, perms)
	}
	return nil
}

// loadPerms returns the set of the named permissions, each of which must
// be in allowed.
func loadPerms(names []string, allowed permSet) (permSet, error) {
	var set permSet
	for _, name := range names {
		bit := permBits[name]
		if bit&allowed == 0 {
			return 0, fmt.Errorf("%q is not a permission held there", name)
		}
		set |= bit
	}
	return set, nil
}

func (ld *loader) loadTokens(list []tokenSnap) error {
	for i, ts := range list {
		if err := unique(ld.tokens, ts.ID, "service token"); err != nil {
			return at(err, "service_tokens[%d].id", i)
		}
		org := ld.w.orgs[ts.Organization]
		if org == nil {
			return fmt.Errorf("service token %s: organization %q is not in the snapshot", ts.ID, ts.Organization)
		}
		creator, err := ref(ld.users, ts.Creator, "creator")
		if err != nil {
			return named(err, "service token %s", ts.ID)
		}
		t := &tokenRec{
			stamps: ts.load(), name: ts.Name, hash: ts.Hash, org: org, creator: creator,
			dbGrants: map[string]*dbGrant{}, expiresAt: ts.ExpiresAt,
		}
		if t.orgPerms, err = loadPerms(ts.Permissions, ^permSet(0)); err != nil {
			return named(err, "service token %s", ts.ID)
		}
		ld.later(func() error { return named(ld.loadGrants(t, ts.Grants), "service token %s", t.id) })
		t.lastUsed.Store(ts.LastUsed)
		ld.tokens[t.id] = t
		if !ts.Deleted {
			ld.w.tokens[t.id] = t
			org.tokens.Add(t)
		}
	}
	return nil
}
