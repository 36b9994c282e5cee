package fake

import (
	"crypto/sha256"
	"slices"
	"strings"
	"time"

	"github.com/dbplatform/platform-go"
)

// maxTokenTTL bounds the ttl of a service token created through the API
// (in seconds: 100 years), so that its expiry is a representable time.
const maxTokenTTL = 100 * 365 * 24 * 60 * 60

// maxTokenNameLen bounds a service token's name.
const maxTokenNameLen = 255

func serviceTokenRoutes() []route {
	return []route{
		{pattern: "GET /v1/organizations/{organization}/service-tokens", op: "list_service_tokens", handler: read(listServiceTokens)},
		{pattern: "POST /v1/organizations/{organization}/service-tokens", op: "create_service_token", handler: withBody(createServiceToken)},
		{pattern: "GET /v1/organizations/{organization}/service-tokens/{id}", op: "get_service_token", handler: read(getServiceToken)},
		{pattern: "DELETE /v1/organizations/{organization}/service-tokens/{id}", op: "delete_service_token", handler: act(deleteServiceToken)},
		{pattern: "GET /v1/organizations/{organization}/service-tokens/{id}/access", op: "list_service_token_accesses", handler: read(listServiceTokenAccesses)},
		{pattern: "POST /v1/organizations/{organization}/service-tokens/{id}/access", op: "add_service_token_accesses", handler: withBody(addServiceTokenAccesses)},
		{pattern: "DELETE /v1/organizations/{organization}/service-tokens/{id}/access", op: "remove_service_token_accesses", handler: withBody(removeServiceTokenAccesses)},
		{pattern: "GET /v1/organizations/{organization}/service-tokens/{id}/grants", op: "list_service_token_grants", handler: read(listServiceTokenGrants)},
	}
}

// newToken adds a service token of org, created on behalf of creator, with
// no permissions; a positive ttl makes it expire that long after now. It
// returns the token and its secret, of which only the hash is kept.
func (w *world) newToken(org *orgRec, creator *userRec, name string, now time.Time, ttl time.Duration) (*tokenRec, string) {
	t := &tokenRec{
		stamps:   stamps{id: w.newID(), created: now, updated: now},
		name:     name,
		org:      org,
		creator:  creator,
		dbGrants: map[string]*dbGrant{},
	}
	if ttl > 0 {
		exp := now.Add(ttl)
		t.expiresAt = &exp
	}
	secret := w.newSecret("sk_", 32)
	t.hash = sha256.Sum256([]byte(secret))
	w.tokens[t.id] = t
	org.tokens.Add(t)
	return t, secret
}

// removeToken deletes a token: it is refused from the next request on.
func (w *world) removeToken(t *tokenRec) {
	delete(w.tokens, t.id)
	t.org.tokens.Remove(t)
}

// dbGrant is what a token holds on one database.
type dbGrant struct {
	db    *dbRec
	perms permSet
}

func (g *dbGrant) ListKey() key { return g.db.ListKey() }

// heldOn returns the permissions the token holds on db itself (not those
// held on the whole organization).
func (t *tokenRec) heldOn(db *dbRec) permSet {
	if g := t.dbGrants[db.id]; g != nil {
		return g.perms
	}
	return 0
}

// grantOn gives the token perms on db, or on the organization when db is
// nil, and reports whether any of them is new there.
func (t *tokenRec) grantOn(db *dbRec, perms []string) bool {
	return t.grantSet(db, permsOf(perms))
}

// grantSet is grantOn for a set of permissions.
func (t *tokenRec) grantSet(db *dbRec, perms permSet) bool {
	if db == nil {
		changed := perms&^t.orgPerms != 0
		t.orgPerms |= perms
		return changed
	}
	g := t.dbGrants[db.id]
	if g == nil {
		if perms == 0 {
			return false
		}
		g = &dbGrant{db: db}
		t.dbGrants[db.id] = g
		t.grantIdx.Add(g)
	}
	changed := perms&^g.perms != 0
	g.perms |= perms
	return changed
}

// revokeOn takes perms from the token on db, or on the organization when
// db is nil, and reports whether it held any of them there.
func (t *tokenRec) revokeOn(db *dbRec, perms []string) bool {
	set := permsOf(perms)
	if db == nil {
		changed := t.orgPerms&set != 0
		t.orgPerms &^= set
		return changed
	}
	g := t.dbGrants[db.id]
	if g == nil {
		return false
	}
	changed := g.perms&set != 0
	if g.perms &^= set; g.perms == 0 {
		t.dropGrant(db)
	}
	return changed
}

// dropGrant forgets what the token holds on db.
func (t *tokenRec) dropGrant(db *dbRec) {
	if g := t.dbGrants[db.id]; g != nil {
		delete(t.dbGrants, db.id)
		t.grantIdx.Remove(g)
	}
}

// tokenGrant is what a token holds on one resource: the organization (db
// nil) or one database. perms are sorted.
type tokenGrant struct {
	t     *tokenRec
	db    *dbRec
	perms []string
}

// grantCount is the number of resources the token holds permissions on:
// the organization, when it holds any there, and each database.
func (t *tokenRec) grantCount() int {
	n := t.grantIdx.Len()
	if t.orgPerms != 0 {
		n++
	}
	return n
}

// grantSetAt returns the resource and permissions of grant i, in the
// order of the token's grants: the organization first, then its databases
// in list order.
func (t *tokenRec) grantSetAt(i int) (*dbRec, permSet) {
	if t.orgPerms != 0 {
		if i == 0 {
			return nil, t.orgPerms
		}
		i--
	}
	g := t.grantIdx.All()[i]
	return g.db, g.perms
}

// grants returns grants lo to hi-1 of the token's (see grantSetAt).
func (t *tokenRec) grants(lo, hi int) []tokenGrant {
	out := make([]tokenGrant, 0, hi-lo)
	for i := lo; i < hi; i++ {
		db, perms := t.grantSetAt(i)
		out = append(out, tokenGrant{t: t, db: db, perms: perms.names()})
	}
	return out
}

// tokenAccess is one permission a token holds on one resource.
type tokenAccess struct {
	tokenGrant
	perm string
}

// accessCount is the number of the token's accesses: one per permission
// and resource.
func (t *tokenRec) accessCount() int {
	n := t.orgPerms.len()
	for _, g := range t.grantIdx.All() {
		n += g.perms.len()
	}
	return n
}

// accesses returns accesses lo to hi-1 of what the token holds, one
// permission at a time, in the order of grants and, within one, by
// permission name. Only the grants that hold them are rendered as names.
func (t *tokenRec) accesses(lo, hi int) []tokenAccess {
	out := make([]tokenAccess, 0, hi-lo)
	first := 0 // the position of grant i's first access
	for i, n := 0, t.grantCount(); i < n && first < hi; i++ {
		db, perms := t.grantSetAt(i)
		if next := first + perms.len(); next > lo {
			g := tokenGrant{t: t, db: db, perms: perms.names()}
			for j, p := range g.perms {
				if k := first + j; k >= lo && k < hi {
					out = append(out, tokenAccess{g, p})
				}
			}
		}
		first += perms.len()
	}
	return out
}

// serviceToken finds the path's {id} among the organization's tokens.
func (c *call) serviceToken() (*tokenRec, error) {
	t := c.w.tokens[c.r.PathValue("id")]
	if t == nil || t.org != c.org {
		return nil, c.nothingAt("id")
	}
	return t, nil
}

func listServiceTokens(c *call) (any, error) {
	return pageOf(c, &c.org.tokens, true, renderServiceToken), nil
}

func createServiceToken(c *call, p *platform.CreateServiceTokenParams) (any, error) {
	var name string
	if p.Name != nil {
		name = *p.Name
		switch {
		case strings.TrimSpace(name) == "":
			return nil, unprocessable("name must not be blank; leave it out for a token without a name")
		case len(name) > maxTokenNameLen:
			return nil, unprocessable("name is longer than %d characters", maxTokenNameLen)
		}
	}
	var ttl time.Duration
	if p.TTL != nil {
		if *p.TTL <= 0 || *p.TTL > maxTokenTTL {
			return nil, unprocessable("ttl must be a number of seconds from 1 to %d, got %d", maxTokenTTL, *p.TTL)
		}
		ttl = time.Duration(*p.TTL) * time.Second
	}
	t, secret := c.w.newToken(c.org, c.who.user, name, c.now, ttl)
	out := renderServiceToken(t)
	out.Token = &secret
	return out, nil
}

func getServiceToken(c *call) (any, error) {
	t, err := c.serviceToken()
	if err != nil {
		return nil, err
	}
	return renderServiceToken(t), nil
}

func deleteServiceToken(c *call) (any, error) {
	t, err := c.serviceToken()
	if err != nil {
		return nil, err
	}
	c.w.removeToken(t)
	return nil, nil
}

func listServiceTokenAccesses(c *call) (any, error) {
	t, err := c.serviceToken()
	if err != nil {
		return nil, err
	}
	return rangePageOf(c, t.accessCount(), t.accesses, true, renderAccess), nil
}

func listServiceTokenGrants(c *call) (any, error) {
	t, err := c.serviceToken()
	if err != nil {
		return nil, err
	}
	return rangePageOf(c, t.grantCount(), t.grants, true, renderGrant), nil
}

// accessChange validates the body of an add or remove: the database it
// names (nil for the organization: database omitted, null or "", which the
// service's own clients send for an organization-wide grant) and its
// permissions, sorted and without duplicates.
func (c *call) accessChange(p *platform.AddServiceTokenAccessesParams) (*dbRec, []string, error) {
	if len(p.Access) == 0 {
		return nil, nil, unprocessable("access is required: name at least one permission")
	}
	var db *dbRec
	if p.Database != nil && *p.Database != "" {
		if db = c.org.dbByName[*p.Database]; db == nil {
			return nil, nil, unprocessable("database %q is not a database of %s", *p.Database, c.org.name)
		}
	}
	perms := make([]string, 0, len(p.Access))
	for _, a := range p.Access {
		perms = append(perms, string(a))
	}
	slices.Sort(perms)
	perms = slices.Compact(perms)
	if err := checkGrant(db, perms); err != nil {
		return nil, nil, unprocessable("access: %v", err)
	}
	return db, perms, nil
}

func addServiceTokenAccesses(c *call, p *platform.AddServiceTokenAccessesParams) (any, error) {
	t, err := c.serviceToken()
	if err != nil {
		return nil, err
	}
	db, perms, err := c.accessChange(p)
	if err != nil {
		return nil, err
	}
	if err := c.mayGrant(perms); err != nil {
		return nil, err
	}
	if t.grantOn(db, perms) {
		t.updated = c.now
	}
	g := tokenGrant{t: t, db: db, perms: perms}
	out := &platform.ServiceTokenAccesses{Accesses: make([]*platform.ServiceTokenAccess, 0, len(perms))}
	for _, p := range perms {
		out.Accesses = append(out.Accesses, renderAccess(tokenAccess{g, p}))
	}
	return out, nil
}

// mayGrant checks that the acting user holds every one of perms (see
// roleHolds): a token acts for the user who created it. Granting what the
// user does not hold is forbidden (403): the caller is permitted to change
// tokens, but the spec's rule refuses this grant.
func (c *call) mayGrant(perms []string) error {
	u := c.who.user
	var m *memberRec
	if u != nil {
		m = c.org.memberByUser[u.id]
	}
	if m == nil {
		return forbidden("the acting user is not a member of %s and can grant no permission", c.org.name)
	}
	for _, p := range perms {
		if !roleHolds(m.role, p) {
			return forbidden("user %s, a %s of %s, does not hold %s and cannot grant it: members hold the database permissions only", u.id, m.role, c.org.name, p)
		}
	}
	return nil
}

func removeServiceTokenAccesses(c *call, p *platform.RemoveServiceTokenAccessesParams) (any, error) {
	t, err := c.serviceToken()
	if err != nil {
		return nil, err
	}
	db, perms, err := c.accessChange(p)
	if err != nil {
		return nil, err
	}
	if t.revokeOn(db, perms) {
		t.updated = c.now
	}
	return nil, nil
}

// resource names the grant's resource: its ID, name, type and short form.
func (g tokenGrant) resource() (string, string, platform.AccessResourceType, platform.ServiceTokenResource) {
	id, name, typ, st := g.t.org.id, g.t.org.name, platform.AccessResourceOrganization, g.t.org.stamps
	if g.db != nil {
		id, name, typ, st = g.db.id, g.db.name, platform.AccessResourceDatabase, g.db.stamps
	}
	return id, name, typ, platform.ServiceTokenResource{
		ID:        id,
		Type:      typ,
		Name:      name,
		CreatedAt: platform.NewTimestamp(st.created),
		UpdatedAt: platform.NewTimestamp(st.updated),
	}
}

func renderAccess(a tokenAccess) *platform.ServiceTokenAccess {
	id, name, typ, res := a.resource()
	return &platform.ServiceTokenAccess{
		ID:           derivedID("access", a.t.id, id, a.perm),
		Type:         "ServiceTokenAccess",
		Access:       platform.Permission(a.perm),
		Description:  permissionDescriptions[a.perm],
		ResourceName: name,
		ResourceID:   id,
		ResourceType: typ,
		Resource:     res,
	}
}

func renderGrant(g tokenGrant) *platform.ServiceTokenGrant {
	id, name, typ, _ := g.resource()
	out := &platform.ServiceTokenGrant{
		ID:           derivedID("grant", g.t.id, id),
		Type:         "ServiceTokenGrant",
		ResourceName: name,
		ResourceID:   id,
		ResourceType: typ,
		Accesses:     make([]*platform.ServiceTokenGrantAccess, 0, len(g.perms)),
	}
	for _, p := range g.perms {
		out.Accesses = append(out.Accesses, &platform.ServiceTokenGrantAccess{
			Access:      platform.Permission(p),
			Description: permissionDescriptions[p],
		})
	}
	return out
}

// renderServiceToken renders a token as the API shows it after creation:
// without its secret. Its service_token_accesses are those it holds on the
// whole organization, at most one per permission, so that the token stays
// small whatever it holds on databases (a token that created a thousand
// databases holds a grant on each): the accesses on databases are listed,
// a page at a time, by list_service_token_accesses and
// list_service_token_grants.
func renderServiceToken(t *tokenRec) *platform.ServiceToken {
	out := &platform.ServiceToken{
		ID:                   t.id,
		Type:                 "ServiceToken",
		DisplayName:          t.id,
		AvatarURL:            "https://avatars.example.com/" + t.id,
		CreatedAt:            platform.NewTimestamp(t.created),
		UpdatedAt:            platform.NewTimestamp(t.updated),
		ServiceTokenAccesses: []*platform.ServiceTokenAccess{},
	}
	if t.name != "" {
		out.Name, out.DisplayName = platform.Ptr(t.name), t.name
	}
	if t.expiresAt != nil {
		out.ExpiresAt = platform.Ptr(platform.NewTimestamp(*t.expiresAt))
	}
	if n := t.lastUsed.Load(); n != 0 {
		out.LastUsedAt = platform.Ptr(platform.NewTimestamp(time.Unix(0, n)))
	}
	if u := t.creator; u != nil {
		out.ActorID, out.ActorDisplayName, out.ActorType = platform.Ptr(u.id), platform.Ptr(u.name), platform.Ptr("User")
	}
	for _, a := range t.accesses(0, t.orgPerms.len()) {
		out.ServiceTokenAccesses = append(out.ServiceTokenAccesses, renderAccess(a))
	}
	return out
}
