package fake

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/dbplatform/platform-go"
)

// roleRec is a set of role credentials of a branch. Its password is not
// kept: the API shows it once, in the response that made it, and the fake
// has no connections that would check it.
type roleRec struct {
	stamps
	branch       *branchRec
	name         string
	baseUsername string
	actor        *userRec
	lease
	inherited     []platform.InheritedRole
	whereOnDelete platform.QuerySafety
	whereOnUpdate platform.QuerySafety
	droppedAt     time.Time
	// The flags sit together, with no padding between them, which keeps
	// the record (one for every branch) in the 240-byte size class.
	isDefault       bool
	withReplication bool
	dropped         bool
}

// branchRoles are the roles of a branch and the database objects they own.
type branchRoles struct {
	live   index[*roleRec]     // the listed roles, in list order
	every  []*roleRec          // every role, dropped ones included; see byID
	def    *roleRec            // the default role
	owners map[string]*roleRec // object name -> the live role that owns it; nil until the first
}

// defaultRoleName is the name and base username of every branch's default
// role.
const defaultRoleName = "postgres"

// newDefaultRole gives a new branch its roles, starting with the default
// role, created by the branch's creator.
func (w *world) newDefaultRole(b *branchRec) {
	b.roles = &branchRoles{}
	r := w.newRole(b, defaultRoleName, defaultRoleName, b.actor, w.clock.Now())
	r.isDefault = true
	r.inherited = []platform.InheritedRole{platform.InheritedManaged}
	b.roles.def = r
}

// newRole adds a role to a branch, with the API's defaults.
func (w *world) newRole(b *branchRec, name, baseUsername string, actor *userRec, now time.Time) *roleRec {
	r := &roleRec{
		stamps:        stamps{id: w.newID(), created: now, updated: now},
		branch:        b,
		name:          name,
		baseUsername:  baseUsername,
		actor:         actor,
		inherited:     []platform.InheritedRole{},
		whereOnDelete: platform.QuerySafetyOff,
		whereOnUpdate: platform.QuerySafetyOff,
	}
	b.roles.live.Add(r)
	b.roles.every = append(b.roles.every, r)
	return r
}

// username is the role's database user name: the base username with the
// branch routing suffix.
func (r *roleRec) username() string { return r.baseUsername + "." + r.branch.id }

// byID finds a role by ID, dropped or not: a scan, as a branch has few
// roles, cheaper than a map per branch.
func (rs *branchRoles) byID(id string) *roleRec {
	for _, r := range rs.every {
		if r.id == id {
			return r
		}
	}
	return nil
}

// lookup finds a role by ID, or a live role by username with or without
// the branch suffix. Dropped roles are found by ID only when withDropped.
func (rs *branchRoles) lookup(ref string, withDropped bool) *roleRec {
	if r := rs.byID(ref); r != nil && (withDropped || !r.dropped) {
		return r
	}
	for _, r := range rs.live.All() {
		if ref == r.username() || ref == r.baseUsername {
			return r
		}
	}
	return nil
}

// successor finds the live role that takes over r's objects.
func (rs *branchRoles) successor(r *roleRec, ref string) (*roleRec, error) {
	to := rs.lookup(ref, false)
	switch {
	case to == nil:
		return nil, unprocessable("successor %q is not a role of branch %s", ref, r.branch.name)
	case to == r:
		return nil, unprocessable("successor %q is the role %s itself", ref, r.name)
	}
	return to, nil
}

// objectsOf returns the names of the objects r owns, sorted.
func (rs *branchRoles) objectsOf(r *roleRec) []string {
	var out []string
	for obj, owner := range rs.owners {
		if owner == r {
			out = append(out, obj)
		}
	}
	slices.Sort(out)
	return out
}

// reassign gives every object from owns to to.
func (rs *branchRoles) reassign(from, to *roleRec) {
	for obj, owner := range rs.owners {
		if owner == from {
			rs.owners[obj] = to
		}
	}
}

// drop drops a role: it leaves the lists, and the objects it still owns go
// with it.
func (rs *branchRoles) drop(r *roleRec, now time.Time) {
	for obj, owner := range rs.owners {
		if owner == r {
			delete(rs.owners, obj)
		}
	}
	r.dropped, r.droppedAt, r.updated = true, now, now
	rs.live.Remove(r)
}

// checkName validates a role name that must be free among the branch's
// live roles.
func (rs *branchRoles) checkName(b *branchRec, name string) error {
	return checkCredentialName("role", b, name, func(n string) bool {
		return slices.ContainsFunc(rs.live.All(), func(r *roleRec) bool { return r.name == n })
	})
}

// checkInheritedRoles validates inherited_roles and drops repeats.
func checkInheritedRoles(roles []platform.InheritedRole) ([]platform.InheritedRole, error) {
	valid := platform.InheritedRoles()
	out := []platform.InheritedRole{}
	for _, ir := range roles {
		if !slices.Contains(valid, ir) {
			names := make([]string, len(valid))
			for i, v := range valid {
				names[i] = string(v)
			}
			return nil, unprocessable("inherited_roles: %q is not an inherited role; allowed: %s", ir, strings.Join(names, ", "))
		}
		if !slices.Contains(out, ir) {
			out = append(out, ir)
		}
	}
	return out, nil
}

// querySafety validates an optional query safety setting; current is the
// value when it is absent.
func querySafety(field string, v *platform.QuerySafety, current platform.QuerySafety) (platform.QuerySafety, error) {
	if v == nil {
		return current, nil
	}
	switch *v {
	case platform.QuerySafetyOff, platform.QuerySafetyWarn, platform.QuerySafetyOn:
		return *v, nil
	}
	return "", unprocessable("%s %q is not off, warn or on", field, *v)
}

func roleRoutes() []route {
	return []route{
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/roles", op: "list_roles", handler: postgresOnly(read(listRoles))},
		{pattern: "POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/roles", op: "create_role", handler: postgresOnly(withBody(createRole))},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/roles/default", op: "get_default_role", handler: postgresOnly(read(getDefaultRole))},
		{pattern: "POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/roles/reset-default", op: "reset_default_role", handler: postgresOnly(act(resetDefaultRole))},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/roles/{id}", op: "get_role", handler: postgresOnly(read(getRole))},
		{pattern: "PATCH /v1/organizations/{organization}/databases/{database}/branches/{branch}/roles/{id}", op: "update_role", handler: postgresOnly(withBody(updateRole))},
		{pattern: "DELETE /v1/organizations/{organization}/databases/{database}/branches/{branch}/roles/{id}", op: "delete_role", handler: postgresOnly(withBody(deleteRole))},
		{pattern: "POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/roles/{id}/reassign", op: "reassign_role_objects", handler: postgresOnly(withBody(reassignRole))},
		{pattern: "POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/roles/{id}/renew", op: "renew_role", handler: postgresOnly(act(renewRole))},
		{pattern: "POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/roles/{id}/reset", op: "reset_role", handler: postgresOnly(act(resetRole))},
	}
}

// postgresOnly is h for an operation on the role credentials of a
// PostgreSQL branch: on a MySQL database's branch, whose credentials are
// passwords instead, it answers 422 naming the database's kind.
func postgresOnly(h handler) handler {
	serve := h.serve
	h.serve = func(c *call) (any, error) {
		if b := c.branch; b.db.kind != platform.KindPostgreSQL {
			return nil, unprocessable("roles apply to postgresql databases; %s is %s, whose branches have passwords instead", b.db.name, b.db.kind)
		}
		return serve(c)
	}
	return h
}

// role finds the path's live role {id} on the path's {branch}.
func (c *call) role() (*roleRec, error) {
	r := c.branch.roles.byID(c.r.PathValue("id"))
	if r == nil || r.dropped {
		return nil, c.nothingAt("id")
	}
	return r, nil
}

func listRoles(c *call) (any, error) {
	b := c.branch
	// disabled, which the service's command-line tool offers, keeps the
	// roles whose disabled_at is set: none, as no operation the fake
	// serves disables a role.
	status, err := leaseStatus(c, "disabled")
	if err != nil {
		return nil, err
	}
	search := strings.ToLower(c.r.URL.Query().Get("q"))
	render := func(r *roleRec) *platform.Role { return renderRole(r, c.now) }
	if status == "" && search == "" {
		return pageOf(c, &b.roles.live, true, render), nil
	}
	keep := func(r *roleRec) bool {
		return status != "disabled" && r.inStatus(status, c.now) &&
			(strings.Contains(strings.ToLower(r.name), search) || strings.Contains(strings.ToLower(r.username()), search))
	}
	return filteredPageOf(c, &b.roles.live, true, keep, render), nil
}

func createRole(c *call, p *platform.CreateRoleParams) (any, error) {
	b := c.branch
	if p.Name != nil {
		if err := b.roles.checkName(b, *p.Name); err != nil {
			return nil, err
		}
	}
	lease, err := newLease(p.TTL, c.now)
	if err != nil {
		return nil, err
	}
	inherited, err := checkInheritedRoles(p.InheritedRoles)
	if err != nil {
		return nil, err
	}
	onDelete, err := querySafety("require_where_on_delete", p.RequireWhereOnDelete, platform.QuerySafetyOff)
	if err != nil {
		return nil, err
	}
	onUpdate, err := querySafety("require_where_on_update", p.RequireWhereOnUpdate, platform.QuerySafetyOff)
	if err != nil {
		return nil, err
	}
	baseUsername := c.w.newSecret("role_", 12)
	name := baseUsername
	if p.Name != nil {
		name = *p.Name
	}
	r := c.w.newRole(b, name, baseUsername, c.who.user, c.now)
	r.lease = lease
	r.inherited = inherited
	setIf(&r.withReplication, p.WithReplication)
	r.whereOnDelete, r.whereOnUpdate = onDelete, onUpdate
	return c.issuePassword(r), nil
}

// issuePassword gives a role a new password and renders the role with it:
// the one response that shows it.
func (c *call) issuePassword(r *roleRec) *platform.Role {
	r.updated = c.now
	out := renderRole(r, c.now)
	out.Password = c.w.newSecret("pw_", 40)
	return out
}

func getDefaultRole(c *call) (any, error) {
	return renderRole(c.branch.roles.def, c.now), nil
}

func resetDefaultRole(c *call) (any, error) {
	return c.issuePassword(c.branch.roles.def), nil
}

func getRole(c *call) (any, error) {
	r, err := c.role()
	if err != nil {
		return nil, err
	}
	q := c.r.URL.Query()
	replica, err := boolQuery(q.Get("replica"), "replica")
	if err != nil {
		return nil, err
	}
	bouncer := q.Get("bouncer")
	if bouncer != "" && r.branch.x().bouncers.byName[bouncer] == nil {
		return nil, unprocessable("bouncer %q is not a bouncer of branch %s", bouncer, r.branch.name)
	}
	out := renderRole(r, c.now)
	if slug := q.Get("read_only_replica"); slug != "" {
		region := regionBySlug(slug)
		if region == nil {
			return nil, unprocessable("read_only_replica %q is not a known region slug", slug)
		}
		out.AccessHostURL = "replica." + roleHost(region)
	} else if replica {
		out.AccessHostURL = "replica." + out.AccessHostURL
	}
	if bouncer != "" {
		// Connections through a bouncer go to its host, whatever it targets.
		out.AccessHostURL = bouncer + ".pgbouncer." + roleHost(r.branch.region)
	}
	return out, nil
}

func updateRole(c *call, p *platform.UpdateRoleParams) (any, error) {
	r, err := c.role()
	if err != nil {
		return nil, err
	}
	rename := p.Name != nil && *p.Name != r.name
	if rename {
		if r.isDefault {
			return nil, unprocessable("role %s is the default role of branch %s and cannot be renamed", r.name, r.branch.name)
		}
		if err := r.branch.roles.checkName(r.branch, *p.Name); err != nil {
			return nil, err
		}
	}
	onDelete, err := querySafety("require_where_on_delete", p.RequireWhereOnDelete, r.whereOnDelete)
	if err != nil {
		return nil, err
	}
	onUpdate, err := querySafety("require_where_on_update", p.RequireWhereOnUpdate, r.whereOnUpdate)
	if err != nil {
		return nil, err
	}
	if rename {
		r.name = *p.Name
	}
	r.whereOnDelete, r.whereOnUpdate = onDelete, onUpdate
	r.updated = c.now
	return renderRole(r, c.now), nil
}

// deleteRoleBody is the body of a role's deletion. The successor may come
// in the query, as the reference has it, or in the body, where the
// service's own clients send it; both at once must agree.
type deleteRoleBody struct {
	Successor string `json:"successor"`
}

func deleteRole(c *call, p *deleteRoleBody) (any, error) {
	r, err := c.role()
	if err != nil {
		return nil, err
	}
	roles := r.branch.roles
	if r.isDefault {
		return nil, unprocessable("role %s is the default role of branch %s and cannot be deleted", r.name, r.branch.name)
	}
	ref := c.r.URL.Query().Get("successor")
	switch {
	case ref == "":
		ref = p.Successor
	case p.Successor != "" && p.Successor != ref:
		return nil, unprocessable("successor is %q in the query but %q in the body; name it once", ref, p.Successor)
	}
	var to *roleRec
	if ref != "" {
		if to, err = roles.successor(r, ref); err != nil {
			return nil, err
		}
	} else if owned := roles.objectsOf(r); len(owned) > 0 {
		return nil, unprocessable("role %s owns %d object(s) (%s); name a successor to reassign them before the drop",
			r.name, len(owned), strings.Join(owned, ", "))
	}
	if to != nil {
		roles.reassign(r, to)
	}
	roles.drop(r, c.now)
	return nil, nil
}

func reassignRole(c *call, p *platform.ReassignRoleParams) (any, error) {
	r, err := c.role()
	if err != nil {
		return nil, err
	}
	if p.Successor == "" {
		return nil, unprocessable("successor is required: a role ID or username")
	}
	to, err := r.branch.roles.successor(r, p.Successor)
	if err != nil {
		return nil, err
	}
	r.branch.roles.reassign(r, to)
	return nil, nil
}

func renewRole(c *call) (any, error) {
	r, err := c.role()
	if err != nil {
		return nil, err
	}
	if err := r.renew("role "+r.name, c.now); err != nil {
		return nil, err
	}
	r.updated = c.now
	return renderRole(r, c.now), nil
}

func resetRole(c *call) (any, error) {
	r, err := c.role()
	if err != nil {
		return nil, err
	}
	return c.issuePassword(r), nil
}

// dropBranchRoles drops every role of a branch that is being deleted.
func (w *world) dropBranchRoles(b *branchRec) {
	now := w.clock.Now()
	for _, r := range slices.Clone(b.roles.live.All()) {
		b.roles.drop(r, now)
	}
}

// dropRolesCreatedBy drops the roles u created in org's databases, as
// removing a member with delete_passwords does. Their objects go to the
// branch's default role, which is never dropped this way.
func (w *world) dropRolesCreatedBy(org *orgRec, u *userRec) {
	now := w.clock.Now()
	for _, db := range org.dbs.All() {
		for _, b := range db.branchIdx.All() {
			for _, r := range slices.Clone(b.roles.live.All()) {
				if r.actor == u && !r.isDefault {
					b.roles.reassign(r, b.roles.def)
					b.roles.drop(r, now)
				}
			}
		}
	}
}

// roleHost is the host role credentials connect to in a region.
func roleHost(region *regionRec) string { return region.slug + ".pg.dbplatform.dev" }

// renderRole renders a role as the API shows it at now, without a password.
func renderRole(r *roleRec, now time.Time) *platform.Role {
	b := r.branch
	host := roleHost(b.region)
	out := &platform.Role{
		ID:                           r.id,
		Type:                         "Role",
		Name:                         r.name,
		AccessHostURL:                host,
		PrivateAccessHostURL:         "private." + host,
		PrivateConnectionServiceName: "private-link." + b.region.slug + ".dbplatform.dev",
		Username:                     r.username(),
		BaseUsername:                 r.baseUsername,
		DatabaseName:                 b.db.name,
		CreatedAt:                    platform.NewTimestamp(r.created),
		UpdatedAt:                    platform.NewTimestamp(r.updated),
		ExpiresAt:                    ptrTime(r.expiresAt),
		Ready:                        b.ready && !r.dropped && !r.expired(now),
		Expired:                      r.expired(now),
		Default:                      r.isDefault,
		TTL:                          r.ttl,
		InheritedRoles:               slices.Clone(r.inherited),
		WithReplication:              r.withReplication,
		Branch:                       *renderBranchRef(b),
		Actor:                        renderActor(r.actor),
		QuerySafetySettings: platform.QuerySafetySettings{
			RequireWhereOnDelete: r.whereOnDelete,
			RequireWhereOnUpdate: r.whereOnUpdate,
		},
	}
	if r.dropped {
		out.DeletedAt = ptrTime(r.droppedAt)
		out.DroppedAt = ptrTime(r.droppedAt)
	}
	return out
}

// findRole looks a role up by names, for the Go API: by ID (dropped roles
// included), or by username with or without the branch suffix.
func (w *world) findRole(org, database, branch, role string) (*roleRec, error) {
	b, err := w.findBranch(org, database, branch)
	if err != nil {
		return nil, err
	}
	r := b.roles.lookup(role, true)
	if r == nil {
		return nil, fmt.Errorf("no role %q on branch %s of %s/%s", role, branch, org, database)
	}
	return r, nil
}

// Role returns a role as the fake holds it, dropped ones included (the API
// answers 404 for those, but shows their dropped_at here). role is an ID, or
// a live role's username with or without the branch suffix. The password is
// never kept, so never shown.
func (s *Server) Role(org, database, branch, role string) (*platform.Role, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	r, err := s.world.findRole(org, database, branch, role)
	if err != nil {
		return nil, methodErr("Role", err)
	}
	return renderRole(r, s.world.clock.Now()), nil
}

// AddRoleObjects records that a live role owns database objects (tables,
// views, sequences: any names), as SQL run under the role would create
// them; the fake has no SQL connections. Objects a role owns move with
// reassign, or with a delete that names a successor; a role that owns
// objects cannot be deleted without one. An object owned by another role is
// refused; nothing changes then.
func (s *Server) AddRoleObjects(org, database, branch, role string, objects ...string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.world.findRole(org, database, branch, role)
	if err == nil && r.dropped {
		err = fmt.Errorf("role %s was dropped", r.name)
	}
	if err != nil {
		return methodErr("AddRoleObjects", err)
	}
	owners := r.branch.roles.owners
	for _, obj := range objects {
		if strings.TrimSpace(obj) == "" {
			return fmt.Errorf("fake: AddRoleObjects: empty object name")
		}
		if owner := owners[obj]; owner != nil && owner != r {
			return fmt.Errorf("fake: AddRoleObjects: %s is owned by role %s", obj, owner.name)
		}
	}
	if r.branch.roles.owners == nil {
		r.branch.roles.owners = map[string]*roleRec{}
	}
	for _, obj := range objects {
		r.branch.roles.owners[obj] = r
	}
	return nil
}

// RoleObjects returns the names of the objects a role owns, sorted. role is
// as for [Server.Role]; a dropped role owns nothing.
func (s *Server) RoleObjects(org, database, branch, role string) ([]string, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	r, err := s.world.findRole(org, database, branch, role)
	if err != nil {
		return nil, methodErr("RoleObjects", err)
	}
	return r.branch.roles.objectsOf(r), nil
}
