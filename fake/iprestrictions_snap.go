package fake

import (
	"fmt"
)

// The snapshot of the IP restrictions of databases, with their database.

type ipRestrictionSnap struct {
	stampsSnap
	Schema      string   `json:"schema"`
	Role        string   `json:"role"`
	CIDRs       []string `json:"cidrs"`
	Description *string  `json:"description"`
	Actor       string   `json:"actor"`
}

func saveIPRestrictions(db *dbRec) []ipRestrictionSnap {
	var out []ipRestrictionSnap
	for _, r := range db.more.read().ipRestrictions.All() {
		out = append(out, ipRestrictionSnap{
			stampsSnap: saveStamps(r.stamps), Schema: r.schema, Role: r.role, CIDRs: r.cidrs,
			Description: r.description, Actor: idOf(r.actor),
		})
	}
	return out
}

func (ld *loader) loadIPRestrictions(db *dbRec, list []ipRestrictionSnap) error {
	for _, rs := range list {
		if err := uniqueIn(&db.x().ipRestrictions.Store, rs.ID, "IP restriction"); err != nil {
			return err
		}
		if len(rs.CIDRs) == 0 {
			return fmt.Errorf("IP restriction %s has no cidrs", rs.ID)
		}
		actor, err := ref(ld.users, rs.Actor, "IP restriction actor")
		if err != nil {
			return err
		}
		db.x().ipRestrictions.Add(&ipRestrictionRec{
			stamps: rs.load(), schema: rs.Schema, role: rs.Role, cidrs: rs.CIDRs, description: rs.Description, actor: actor,
		})
	}
	return nil
}
