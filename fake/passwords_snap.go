package fake

import (
	"fmt"
	"slices"

	"github.com/dbplatform/platform-go"
)

// The snapshot of branch passwords, with their branch.

type passwordSnap struct {
	stampsSnap
	leaseSnap
	Name    string                `json:"name"`
	Role    platform.PasswordRole `json:"role"`
	Replica bool                  `json:"replica"`
	// ReadOnlyRegion is the ID of the branch's read-only region the
	// password is bound to; "" for none.
	ReadOnlyRegion string   `json:"read_only_region,omitempty"`
	DirectVTGate   bool     `json:"direct_vtgate"`
	CIDRs          []string `json:"cidrs"` // null: any address
	Username       string   `json:"username"`
	Actor          string   `json:"actor"`
}

func savePasswords(b *branchRec) []passwordSnap {
	var out []passwordSnap
	for _, pw := range b.more.read().passwords.All() {
		out = append(out, passwordSnap{
			stampsSnap: saveStamps(pw.stamps), leaseSnap: saveLease(pw.lease), Name: pw.name, Role: pw.role,
			Replica: pw.replica, ReadOnlyRegion: idOf(pw.region), DirectVTGate: pw.directVTGate, CIDRs: pw.cidrs, Username: pw.username, Actor: idOf(pw.actor),
		})
	}
	return out
}

// validate checks what create_password checks of a password of branch b
// (its name, role and addresses, in the canonical form the server keeps),
// and its lease.
func (ps *passwordSnap) validate(b *branchRec) error {
	if b.db.kind != platform.KindMySQL {
		return fmt.Errorf("a password of a branch of %s database %s, whose branches have roles instead", b.db.kind, b.db.id)
	}
	name := snapCheck(checkCredentialName("password", b, ps.Name, func(string) bool { return false }))
	cidrs, err := passwordCIDRs(ps.CIDRs)
	if err == nil && !slices.Equal(cidrs, ps.CIDRs) {
		err = fmt.Errorf("%q is not in the form the server keeps, %q", ps.CIDRs, cidrs)
	}
	return firstErr(at(name, "name"), at(snapCheck(checkPasswordRole(ps.Role, ps.Replica)), "role"),
		at(snapCheck(err), "cidrs"), ps.leaseFrom(ps.Created))
}

func (ld *loader) loadPasswords(b *branchRec, list []passwordSnap) error {
	for i, ps := range list {
		if err := uniqueIn(&b.x().passwords.Store, ps.ID, "password"); err != nil {
			return err
		}
		if slices.ContainsFunc(b.x().passwords.All(), func(pw *passwordRec) bool { return pw.name == ps.Name }) {
			return at(fmt.Errorf("%q appears twice in branch %s", ps.Name, b.id), "passwords[%d].name", i)
		}
		actor, err := ref(ld.users, ps.Actor, "password actor")
		if err != nil {
			return err
		}
		l, err := ps.loadLease()
		if err != nil {
			return fmt.Errorf("password %s: %v", ps.ID, err)
		}
		if err := ps.validate(b); err != nil {
			return at(err, "passwords[%d]", i)
		}
		var region *readOnlyRegionRec
		if ps.ReadOnlyRegion != "" {
			if region, err = b.passwordRegion(ps.ReadOnlyRegion); err != nil {
				return at(snapCheck(err), "passwords[%d].read_only_region", i)
			}
			if !ps.Replica {
				return at(fmt.Errorf("a password bound to read-only region %s is a replica password", ps.ReadOnlyRegion), "passwords[%d].replica", i)
			}
		}
		b.x().passwords.Add(&passwordRec{
			stamps: ps.load(), lease: l, branch: b, name: ps.Name, region: region,
			role: ps.Role, replica: ps.Replica, directVTGate: ps.DirectVTGate, cidrs: ps.CIDRs,
			username: ps.Username, actor: actor,
		})
	}
	return nil
}
