package fake

import (
	"fmt"
	"time"

	"github.com/dbplatform/platform-go"
)

// The snapshot of branch passwords and of the IP restrictions of
// databases.

type passwordSnap struct {
	stampsSnap
	leaseSnap
	Name         string                `json:"name"`
	Role         platform.PasswordRole `json:"role"`
	Replica      bool                  `json:"replica"`
	DirectVTGate bool                  `json:"direct_vtgate"`
	CIDRs        []string              `json:"cidrs"` // null: any address
	Username     string                `json:"username"`
	Actor        string                `json:"actor"`
}

// leaseSnap is the lease of credentials created with a ttl.
type leaseSnap struct {
	TTL       int       `json:"ttl"`
	ExpiresAt time.Time `json:"expires_at"`
}

func saveLease(l lease) leaseSnap { return leaseSnap{l.ttl, l.expiresAt} }

func (l leaseSnap) loadLease() (lease, error) {
	if l.TTL < 0 || int64(l.TTL) > maxLeaseTTL || (l.TTL == 0) != l.ExpiresAt.IsZero() {
		return lease{}, fmt.Errorf("ttl %d with expiry %s", l.TTL, l.ExpiresAt)
	}
	return lease{l.TTL, l.ExpiresAt}, nil
}

func savePasswords(b *branchRec) []passwordSnap {
	var out []passwordSnap
	for _, pw := range b.more.read().passwords.All() {
		out = append(out, passwordSnap{
			stampsSnap: saveStamps(pw.stamps), leaseSnap: saveLease(pw.lease), Name: pw.name, Role: pw.role,
			Replica: pw.replica, DirectVTGate: pw.directVTGate, CIDRs: pw.cidrs, Username: pw.username, Actor: idOf(pw.actor),
		})
	}
	return out
}

func (ld *loader) loadPasswords(b *branchRec, list []passwordSnap) error {
	for _, ps := range list {
		if err := uniqueIn(&b.x().passwords.Store, ps.ID, "password"); err != nil {
			return err
		}
		actor, err := ref(ld.users, ps.Actor, "password actor")
		if err != nil {
			return err
		}
		l, err := ps.loadLease()
		if err != nil {
			return fmt.Errorf("password %s: %v", ps.ID, err)
		}
		b.x().passwords.Add(&passwordRec{
			stamps: ps.load(), lease: l, branch: b, name: ps.Name,
			role: ps.Role, replica: ps.Replica, directVTGate: ps.DirectVTGate, cidrs: ps.CIDRs,
			username: ps.Username, actor: actor,
		})
	}
	return nil
}

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
