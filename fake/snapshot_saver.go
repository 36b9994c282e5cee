package fake

import (
	"encoding/hex"
	"fmt"
	"slices"
)

// saver gathers what a snapshot holds: every live record, and the records
// that are gone (deleted databases and branches, revoked tokens) but that
// a saved record still refers to.
type saver struct {
	w         *world
	dbSet     map[*dbRec]bool
	branchSet map[*branchRec]bool
	tokenSet  map[*tokenRec]bool
	otokenSet map[*oauthTokenRec]bool
}

func newSaver(w *world) *saver {
	return &saver{
		w:         w,
		dbSet:     map[*dbRec]bool{},
		branchSet: map[*branchRec]bool{},
		tokenSet:  map[*tokenRec]bool{},
		otokenSet: map[*oauthTokenRec]bool{},
	}
}

// collect gathers the records to save, following references from the
// live ones.
func (sv *saver) collect() {
	for _, t := range sv.w.tokens {
		sv.tokenSet[t] = true
	}
	for _, org := range sv.w.orgIdx.All() {
		for _, db := range org.dbs.All() {
			sv.addDB(db)
		}
		for _, t := range org.teams.idx.All() {
			for _, db := range slices.Concat(t.databases, t.analystDatabases) {
				sv.addDB(db)
			}
		}
	}
	for _, a := range sv.w.oauth.apps {
		for _, t := range a.tokens.All() {
			sv.otokenSet[t] = true
		}
	}
	for t := range sv.otokenSet {
		sv.addGrant(t.grant)
	}
	for _, d := range sv.w.oauth.devices {
		if d.grant != nil {
			sv.addGrant(d.grant)
		}
	}
	for _, c := range sv.w.oauth.codes {
		sv.addGrant(c.grant)
		if c.issued != nil {
			sv.otokenSet[c.issued] = true
			sv.addGrant(c.issued.grant)
		}
	}
}

// addDB saves db and what it refers to.
func (sv *saver) addDB(db *dbRec) {
	if db == nil || sv.dbSet[db] {
		return
	}
	sv.dbSet[db] = true
	for _, b := range db.branchIdx.All() {
		sv.addBranch(b)
	}
	for _, bk := range db.backups.byID {
		sv.addBranch(bk.branch)
		for _, b := range bk.restored {
			sv.addBranch(b)
		}
	}
	for _, w := range db.more.read().maintenance.windows.All() {
		sv.addBranch(w.branch)
	}
	for _, wf := range db.workflows.peek().all() {
		sv.addBranch(wf.branch)
	}
	for _, dr := range db.drs.All() {
		sv.addBranch(dr.head)
		sv.addBranch(dr.into)
		sv.addToken(dr.creatorToken)
		for _, r := range dr.reviews {
			sv.addToken(r.token)
		}
	}
}

// addBranch saves b and what it refers to.
func (sv *saver) addBranch(b *branchRec) {
	if b == nil || sv.branchSet[b] {
		return
	}
	sv.branchSet[b] = true
	sv.addDB(b.db)
	sv.addBranch(b.restoredFrom)
}

func (sv *saver) addToken(t *tokenRec) {
	if t != nil {
		sv.tokenSet[t] = true
	}
}

// addGrant saves the resources an OAuth grant names.
func (sv *saver) addGrant(g *oauthGrant) {
	for _, db := range g.dbs {
		sv.addDB(db)
	}
	for _, b := range g.branches {
		sv.addBranch(b)
	}
}

// keepJob reports whether a snapshot holds j: a job whose resource is
// gone for good does nothing, and is left out (each kind says so in its
// keep, beside its save).
func (sv *saver) keepJob(j job) bool { return j.keep(sv) }

// listOrder returns the records of a set in list order.
func listOrder[T interface {
	comparable
	keyed
}](set map[T]bool) []T {
	out := make([]T, 0, len(set))
	for v := range set {
		out = append(out, v)
	}
	slices.SortFunc(out, func(a, b T) int { return a.ListKey().Compare(b.ListKey()) })
	return out
}

// idOf returns a record's ID; "" for nil.
func idOf[T any, P interface {
	*T
	keyed
}](p P) string {
	if p == nil {
		return ""
	}
	return p.ListKey().ID
}

// idsOf returns the IDs of records.
func idsOf[T any, P interface {
	*T
	keyed
}](list []P) []string {
	var out []string
	for _, p := range list {
		out = append(out, idOf(p))
	}
	return out
}

// hash32 is a SHA-256 hash, as hex in JSON.
type hash32 [32]byte

func (h hash32) MarshalText() ([]byte, error) { return []byte(hex.EncodeToString(h[:])), nil }

func (h *hash32) UnmarshalText(b []byte) error {
	n, err := hex.Decode(h[:], b)
	if err == nil && n != len(h) {
		err = fmt.Errorf("%d bytes, want %d", n, len(h))
	}
	if err != nil {
		return fmt.Errorf("hash %q: %v", b, err)
	}
	return nil
}
