package fake

import (
	"fmt"
	"slices"
	"time"

	"github.com/dbplatform/platform-go"
)

// The snapshot of roles, with their branch.

type roleSnap struct {
	stampsSnap
	Name         string `json:"name"`
	BaseUsername string `json:"base_username"`
	Actor        string `json:"actor"`
	IsDefault    bool   `json:"is_default"`
	leaseSnap
	Inherited       []platform.InheritedRole `json:"inherited"`
	WithReplication bool                     `json:"with_replication"`
	WhereOnDelete   platform.QuerySafety     `json:"where_on_delete"`
	WhereOnUpdate   platform.QuerySafety     `json:"where_on_update"`
	Dropped         bool                     `json:"dropped"`
	DroppedAt       time.Time                `json:"dropped_at"`
}

// validate checks what create_role and update_role check of a role of
// branch b: its name and query safety settings; and its lease.
func (rs *roleSnap) validate(b *branchRec) error {
	_, onDelete := querySafety("where_on_delete", &rs.WhereOnDelete, "")
	_, onUpdate := querySafety("where_on_update", &rs.WhereOnUpdate, "")
	return firstErr(at(snapCheck(checkCredentialName("role", b, rs.Name, func(string) bool { return false })), "name"),
		snapCheck(onDelete), snapCheck(onUpdate), rs.leaseFrom(rs.Created))
}

// saveRoles saves the roles of b, dropped ones included, and which role
// owns each object that has one.
func saveRoles(b *branchRec) (list []roleSnap, owners map[string]string) {
	for _, r := range b.roles.every {
		list = append(list, roleSnap{
			stampsSnap: saveStamps(r.stamps), Name: r.name, BaseUsername: r.baseUsername,
			Actor: idOf(r.actor), IsDefault: r.isDefault, leaseSnap: saveLease(r.lease),
			Inherited: r.inherited, WithReplication: r.withReplication,
			WhereOnDelete: r.whereOnDelete, WhereOnUpdate: r.whereOnUpdate,
			Dropped: r.dropped, DroppedAt: r.droppedAt,
		})
	}
	if len(b.roles.owners) > 0 {
		owners = map[string]string{}
		for obj, r := range b.roles.owners {
			owners[obj] = r.id
		}
	}
	return list, owners
}

// loadRoles loads the roles of b, then its default role and the owners of
// its objects, which name them.
func (ld *loader) loadRoles(b *branchRec, list []roleSnap, def string, owners map[string]string) error {
	roles := map[string]*roleRec{} // by ID, for the references below
	for i, rs := range list {
		actor, err := ref(ld.users, rs.Actor, "role actor")
		if err != nil {
			return err
		}
		if rs.ID == "" {
			return fmt.Errorf("role without an ID")
		}
		if roles[rs.ID] != nil {
			return fmt.Errorf("role %q appears twice", rs.ID)
		}
		l, err := rs.loadLease()
		if err != nil {
			return fmt.Errorf("role %s: %v", rs.ID, err)
		}
		if err := rs.validate(b); err != nil {
			return at(err, "roles[%d]", i)
		}
		r := &roleRec{
			stamps: rs.load(), branch: b, name: rs.Name, baseUsername: rs.BaseUsername, actor: actor,
			isDefault: rs.IsDefault, lease: l, inherited: rs.Inherited,
			withReplication: rs.WithReplication, whereOnDelete: rs.WhereOnDelete, whereOnUpdate: rs.WhereOnUpdate,
			dropped: rs.Dropped, droppedAt: rs.DroppedAt,
		}
		if !r.dropped && slices.ContainsFunc(b.roles.live.All(), func(o *roleRec) bool { return o.name == r.name }) {
			return at(fmt.Errorf("%q appears twice among the live roles of branch %s", r.name, b.id), "roles[%d].name", i)
		}
		roles[r.id] = r
		b.roles.every = append(b.roles.every, r)
		if !r.dropped {
			b.roles.live.Add(r)
		}
	}
	var err error
	if b.roles.def, err = ref(roles, def, "default role"); err != nil {
		return err
	}
	for obj, id := range owners {
		if b.roles.owners == nil {
			b.roles.owners = map[string]*roleRec{}
		}
		if b.roles.owners[obj], err = ref(roles, id, "owner of "+obj); err != nil {
			return err
		}
	}
	return nil
}
