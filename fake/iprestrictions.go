package fake

import (
	"slices"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake/internal/ordered"
)

// ipRestrictionRec is an entry of a PostgreSQL database's IP allowlist.
type ipRestrictionRec struct {
	stamps
	schema, role string   // "": every schema, every role
	cidrs        []string // canonical IPv4 addresses and ranges; never empty
	description  *string
	actor        *userRec
}

// ipRestrictions are the live entries of a database's IP allowlist, in
// list order and by ID.
type ipRestrictions struct {
	ordered.Store[*ipRestrictionRec]
}

// maxIPRestrictionDescription bounds an entry's description.
const maxIPRestrictionDescription = 255

func ipRestrictionRoutes() []route {
	return []route{
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/cidrs", op: "list_database_postgres_cidrs", handler: read(listIPRestrictions)},
		{pattern: "POST /v1/organizations/{organization}/databases/{database}/cidrs", op: "create_database_postgres_cidr", handler: withBody(createIPRestriction)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/cidrs/{id}", op: "get_database_postgres_cidr", handler: read(getIPRestriction)},
		{pattern: "PATCH /v1/organizations/{organization}/databases/{database}/cidrs/{id}", op: "update_database_postgres_cidr", handler: withBody(updateIPRestriction)},
		{pattern: "DELETE /v1/organizations/{organization}/databases/{database}/cidrs/{id}", op: "delete_database_postgres_cidr", handler: act(deleteIPRestriction)},
	}
}

// postgresDB checks that the path's {database} is a PostgreSQL database,
// the only kind with IP restrictions.
func (c *call) postgresDB() error {
	if c.db.kind != platform.KindPostgreSQL {
		return unprocessable("IP restrictions apply to postgresql databases; %s is %s", c.db.name, c.db.kind)
	}
	return nil
}

// ipRestriction finds the path's entry {id} of the path's {database}.
func (c *call) ipRestriction() (*ipRestrictionRec, error) {
	if err := c.postgresDB(); err != nil {
		return nil, err
	}
	r := c.db.x().ipRestrictions.Get(c.r.PathValue("id"))
	if r == nil {
		return nil, notFound()
	}
	return r, nil
}

func listIPRestrictions(c *call) (any, error) {
	if err := c.postgresDB(); err != nil {
		return nil, err
	}
	return pageOf(c, c.db.x().ipRestrictions.Index(), true, renderIPRestriction), nil
}

func createIPRestriction(c *call, p *platform.CreateIPRestrictionParams) (any, error) {
	if err := c.postgresDB(); err != nil {
		return nil, err
	}
	r := &ipRestrictionRec{actor: c.who.user}
	setIf(&r.schema, p.Schema)
	setIf(&r.role, p.Role)
	if err := c.db.x().ipRestrictions.check(r, p.CIDRs, p.Description); err != nil {
		return nil, err
	}
	r.stamps = stamps{id: c.w.newID(), created: c.now, updated: c.now}
	c.db.x().ipRestrictions.Add(r)
	return renderIPRestriction(r), nil
}

// check validates next, an entry as it is to be (its schema and role set)
// with its cidrs and description: the cidrs are IPv4 addresses or ranges,
// at least one, none repeated and none allowed already by another entry for
// the same schema and role. On success next holds the canonical cidrs and
// the description ("" for none).
func (rs *ipRestrictions) check(next *ipRestrictionRec, cidrs []string, description *string) error {
	switch {
	case len(next.schema) > maxNameLen:
		return unprocessable("schema %q is longer than %d characters", next.schema, maxNameLen)
	case len(next.role) > maxNameLen:
		return unprocessable("role %q is longer than %d characters", next.role, maxNameLen)
	case description != nil && len(*description) > maxIPRestrictionDescription:
		return unprocessable("description is longer than %d characters", maxIPRestrictionDescription)
	case len(cidrs) == 0:
		return unprocessable("cidrs must hold at least one IPv4 address or CIDR range")
	}
	canon, err := parseCIDRs("cidrs", cidrs, true)
	if err != nil {
		return err
	}
	for _, other := range rs.All() {
		if other.id == next.id || other.schema != next.schema || other.role != next.role {
			continue
		}
		for _, cidr := range canon {
			if slices.Contains(other.cidrs, cidr) {
				return unprocessable("cidrs: %s is already allowed by IP restriction %s for the same schema and role", cidr, other.id)
			}
		}
	}
	next.cidrs = canon
	if description != nil {
		next.description = nil
		if *description != "" {
			next.description = platform.Ptr(*description)
		}
	}
	return nil
}

func getIPRestriction(c *call) (any, error) {
	r, err := c.ipRestriction()
	if err != nil {
		return nil, err
	}
	return renderIPRestriction(r), nil
}

func updateIPRestriction(c *call, p *platform.UpdateIPRestrictionParams) (any, error) {
	r, err := c.ipRestriction()
	if err != nil {
		return nil, err
	}
	next := *r
	setIf(&next.schema, p.Schema)
	setIf(&next.role, p.Role)
	cidrs := r.cidrs
	if p.CIDRs != nil {
		cidrs = *p.CIDRs
	}
	if err := c.db.x().ipRestrictions.check(&next, cidrs, p.Description); err != nil {
		return nil, err
	}
	next.updated = c.now
	*r = next
	return renderIPRestriction(r), nil
}

func deleteIPRestriction(c *call) (any, error) {
	r, err := c.ipRestriction()
	if err != nil {
		return nil, err
	}
	c.db.x().ipRestrictions.Remove(r)
	return nil, nil
}

// renderIPRestriction renders an entry as the API shows it.
func renderIPRestriction(r *ipRestrictionRec) *platform.IPRestriction {
	out := &platform.IPRestriction{
		ID:          r.id,
		Type:        "IPRestriction",
		Schema:      r.schema,
		Role:        r.role,
		CIDRs:       slices.Clone(r.cidrs),
		Description: r.description,
		CreatedAt:   platform.NewTimestamp(r.created),
		UpdatedAt:   platform.NewTimestamp(r.updated),
	}
	if a := renderActor(r.actor); a != nil {
		out.Actor = *a
	}
	return out
}
