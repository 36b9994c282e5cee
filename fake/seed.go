package fake

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/dbplatform/platform-go"
)

// Token is a service token's ID and secret, as the API shows them once at
// creation.
type Token struct {
	// ID is the token's ID, the part of the Authorization header before
	// the colon and the {id} of the service token operations.
	ID string
	// Secret is the token's secret, the part of the Authorization header
	// after the colon.
	Secret string
}

// Authorization returns the value of the Authorization header for the token.
func (t Token) Authorization() string { return t.ID + ":" + t.Secret }

// TokenSpec describes a service token to seed.
type TokenSpec struct {
	// Name is the token's descriptive name.
	Name string
	// CreatedBy is the ID of the user who creates the token, who must be a
	// member of the organization; the organization's first admin when empty.
	// The token acts for this user: through the API it may grant other
	// tokens only what the user holds (an admin every permission, a member
	// the database permissions).
	CreatedBy string
	// Permissions are granted on the whole organization.
	Permissions []platform.Permission
	// DatabasePermissions are granted per database, by database name.
	DatabasePermissions map[string][]platform.Permission
	// TTL, when set, makes the token expire that long after creation.
	TTL time.Duration
}

// seedDefaults creates the organization, admin and token a server starts with.
func (s *Server) seedDefaults(cfg config) error {
	if err := s.CreateOrganization(cfg.orgName); err != nil {
		return err
	}
	s.admin = s.world.createUserLocked("Ada Admin", "admin@example.com")
	s.org = s.world.orgs[cfg.orgName]
	if err := s.AddMember(cfg.orgName, s.admin.id, platform.RoleAdmin); err != nil {
		return err
	}
	tok, err := s.CreateServiceToken(cfg.orgName, TokenSpec{Name: "admin", Permissions: AllPermissions()})
	if err != nil {
		return err
	}
	s.adminToken = tok
	return nil
}

// CreateOrganization adds an organization with no members. Its name must be
// lowercase letters, digits and dashes, and not taken.
func (s *Server) CreateOrganization(name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := checkName("organization name", name); err != nil {
		return methodErr("CreateOrganization", err)
	}
	if s.world.orgs[name] != nil {
		return fmt.Errorf("fake: CreateOrganization: %q exists", name)
	}
	now := s.world.clock.Now()
	org := &orgRec{
		stamps:        stamps{id: s.world.newID(), created: now, updated: now},
		name:          name,
		billingEmail:  "billing@" + name + ".example.com",
		defaultRegion: publicRegions[0],
		memberByUser:  map[string]*memberRec{},
		dbByName:      map[string]*dbRec{},
		branchByName:  map[branchKey]*branchRec{},
	}
	s.world.orgs[name] = org
	s.world.orgIdx.Add(org)
	scheduleInvoice(s.world, org, now)
	return nil
}

// CreateUser adds a user and returns its ID.
func (s *Server) CreateUser(name, email string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.world.createUserLocked(name, email).id
}

func (w *world) createUserLocked(name, email string) *userRec {
	now := w.clock.Now()
	u := &userRec{stamps: stamps{id: w.newID(), created: now, updated: now}, name: name, email: email}
	w.users[u.id] = u
	return u
}

// AddMember makes a user a member of an organization with a role.
func (s *Server) AddMember(org, userID string, role platform.MemberRole) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, u := s.world.orgs[org], s.world.users[userID]
	switch {
	case o == nil:
		return fmt.Errorf("fake: AddMember: no organization %q", org)
	case u == nil:
		return fmt.Errorf("fake: AddMember: no user %q", userID)
	case role != platform.RoleMember && role != platform.RoleAdmin:
		return fmt.Errorf("fake: AddMember: role %q is not member or admin", role)
	case o.memberByUser[userID] != nil:
		return fmt.Errorf("fake: AddMember: user %s is already a member of %s", userID, org)
	}
	now := s.world.clock.Now()
	m := &memberRec{stamps: stamps{id: s.world.newID(), created: now, updated: now}, user: u, role: role}
	o.members.Add(m)
	o.memberByUser[userID] = m
	if u.defaultOrg == nil {
		u.defaultOrg = o
	}
	return nil
}

// CreateServiceToken adds a service token to an organization and returns its
// ID and secret. Permission names must be known, databases must exist, and
// an organization permission cannot be granted on a database. Seeding is the
// test's own doing: unlike the API, it grants whatever the spec lists,
// whoever CreatedBy is.
func (s *Server) CreateServiceToken(org string, spec TokenSpec) (Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.world.orgs[org]
	if o == nil {
		return Token{}, fmt.Errorf("fake: CreateServiceToken: no organization %q", org)
	}
	creator, err := o.creator(spec.CreatedBy)
	if err != nil {
		return Token{}, methodErr("CreateServiceToken", err)
	}
	if err := checkGrant(nil, permissionStrings(spec.Permissions)); err != nil {
		return Token{}, methodErr("CreateServiceToken", err)
	}
	for _, name := range slices.Sorted(maps.Keys(spec.DatabasePermissions)) {
		db := o.dbByName[name]
		if db == nil {
			return Token{}, fmt.Errorf("fake: CreateServiceToken: no database %q in %s", name, org)
		}
		if err := checkGrant(db, permissionStrings(spec.DatabasePermissions[name])); err != nil {
			return Token{}, methodErr("CreateServiceToken", err)
		}
	}
	if spec.TTL < 0 {
		return Token{}, fmt.Errorf("fake: CreateServiceToken: negative TTL")
	}
	t, secret := s.world.newToken(o, creator, spec.Name, s.world.clock.Now(), spec.TTL)
	t.grantOn(nil, permissionStrings(spec.Permissions))
	for name, perms := range spec.DatabasePermissions {
		t.grantOn(o.dbByName[name], permissionStrings(perms))
	}
	return Token{ID: t.id, Secret: secret}, nil
}

// DeleteServiceToken revokes a token at once.
func (s *Server) DeleteServiceToken(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.world.tokens[id]
	if t == nil {
		return fmt.Errorf("fake: DeleteServiceToken: no token %q", id)
	}
	s.world.removeToken(t)
	return nil
}

// creator finds the user who creates something in the organization: the
// given member, or the first admin.
func (org *orgRec) creator(userID string) (*userRec, error) {
	if userID != "" {
		m := org.memberByUser[userID]
		if m == nil {
			return nil, fmt.Errorf("user %q is not a member of %s", userID, org.name)
		}
		return m.user, nil
	}
	for _, m := range org.members.All() {
		if m.role == platform.RoleAdmin {
			return m.user, nil
		}
	}
	return nil, fmt.Errorf("%s has no admin to act as creator; name CreatedBy", org.name)
}
