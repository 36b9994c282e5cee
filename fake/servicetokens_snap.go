package fake

import (
	"errors"
	"fmt"
	"time"
)

// The snapshot of service tokens and their grants.

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
	for i, gs := range list {
		db, err := refNonNil(ld.dbs, gs.Database, "granted database")
		if err != nil {
			return err
		}
		if db.org != t.org {
			return at(fmt.Errorf("database %s is of organization %s, not the token's %s", db.id, db.org.name, t.org.name), "database_grants[%d].database", i)
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
			return at(fmt.Errorf("organization %q is not in the snapshot", ts.Organization), "service_tokens[%d].organization", i)
		}
		creator, err := ref(ld.users, ts.Creator, "creator")
		if err == nil && creator == nil {
			// Every token acts for the user who made it: the API's, and
			// CreateServiceToken's (its CreatedBy or an admin).
			err = errors.New("must name a user")
		}
		if err != nil {
			return at(err, "service_tokens[%d].creator", i)
		}
		t := &tokenRec{
			stamps: ts.load(), name: ts.Name, hash: ts.Hash, org: org, creator: creator,
			dbGrants: map[string]*dbGrant{}, expiresAt: ts.ExpiresAt,
		}
		if t.orgPerms, err = loadPerms(ts.Permissions, ^permSet(0)); err != nil {
			return at(err, "service_tokens[%d].permissions", i)
		}
		ld.later(func() error {
			return at(named(ld.loadGrants(t, ts.Grants), "service token %s", t.id), "service_tokens[%d]", i)
		})
		t.lastUsed.Store(ts.LastUsed)
		ld.tokens[t.id] = t
		if !ts.Deleted {
			ld.w.tokens[t.id] = t
			org.tokens.Add(t)
		}
	}
	return nil
}
