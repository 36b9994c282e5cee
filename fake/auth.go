package fake

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

// tokenRec is a service token. Only the hash of its secret is kept.
type tokenRec struct {
	stamps
	name    string
	hash    [32]byte
	org     *orgRec
	creator *userRec
	// orgPerms are the permissions held on the whole organization;
	// dbGrants those held on one database, also kept in grantIdx in the
	// databases' list order, so that what the token may list is cut from
	// its grants, not found by checking every database.
	orgPerms  permSet
	dbGrants  map[string]*dbGrant // by database ID
	grantIdx  index[*dbGrant]
	expiresAt *time.Time
	// lastUsed is the clock's time, in Unix nanoseconds, of the last
	// request the token authenticated; 0 before the first. Atomic, as
	// requests that only read authenticate under the read lock.
	lastUsed atomic.Int64
}

// principal is who a request acts as.
type principal struct {
	// token is the service token used, nil for OAuth.
	token *tokenRec
	// oauth is the OAuth token used, nil for a service token.
	oauth *oauthTokenRec
	// user is the acting user: the OAuth token's, or the service token's creator.
	user *userRec
}

// authenticate reads the Authorization header: a service token's
// "ID:TOKEN", or "Bearer ACCESS_TOKEN" of OAuth (see oauth.go).
func (s *Server) authenticate(r *http.Request, now time.Time) (principal, error) {
	h := r.Header.Get("Authorization")
	if h == "" {
		return principal{}, unauthorized("missing Authorization header")
	}
	if scheme, tok, ok := strings.Cut(h, " "); ok && strings.EqualFold(scheme, "Bearer") {
		return s.world.authenticateBearer(strings.TrimSpace(tok), now)
	}
	id, secret, ok := strings.Cut(h, ":")
	if !ok || id == "" || secret == "" || strings.ContainsAny(id, " \t") {
		return principal{}, unauthorized("malformed Authorization header: want ID:TOKEN for a service token")
	}
	tok := s.world.tokens[id]
	if tok == nil {
		return principal{}, unauthorized("unknown service token")
	}
	// Hashed from a copy on the stack: a token's secret (35 bytes) is too
	// long for a plain conversion to stay off the heap.
	var buf [64]byte
	sum := sha256.Sum256(append(buf[:0], secret...))
	if subtle.ConstantTimeCompare(sum[:], tok.hash[:]) != 1 {
		return principal{}, unauthorized("unknown service token")
	}
	if tok.expiresAt != nil && !now.Before(*tok.expiresAt) {
		return principal{}, unauthorized("service token expired")
	}
	tok.lastUsed.Store(now.UnixNano())
	return principal{token: tok, user: tok.creator}, nil
}

// belongsTo reports whether the principal acts within org.
func (p *principal) belongsTo(org *orgRec) bool {
	if p == nil {
		return false
	}
	if p.token != nil {
		return p.token.org == org
	}
	return p.user != nil && org.memberByUser[p.user.id] != nil
}

// may reports whether the principal holds one of perms, at the organization
// level or on db (organization permissions only at the organization
// level). Without a db (a list across databases), a grant on any
// database of the organization counts; the handler then shows only what
// the principal may see. An empty perms list needs no permission.
func (p *principal) may(perms []string, db *dbRec) bool {
	if len(perms) == 0 {
		return true
	}
	return p != nil && p.token != nil && p.token.holds(permsOf(perms), db)
}

// mayDo reports whether the principal holds one of op's permissions (see
// may), from the set computed once for the route.
func (p *principal) mayDo(op *operation, db *dbRec) bool {
	if len(op.perms) == 0 {
		return true
	}
	return p != nil && p.token != nil && p.token.holds(op.need, db)
}

// holds reports whether the token holds one of need on the organization or
// on db; without a db, on any of its databases. A database's grant never
// holds an organization permission (checkGrant refuses one there).
func (t *tokenRec) holds(need permSet, db *dbRec) bool {
	if t.orgPerms&need != 0 {
		return true
	}
	if need&databasePermSet == 0 {
		return false
	}
	if db != nil {
		return t.heldOn(db)&need != 0
	}
	for _, g := range t.grantIdx.All() {
		if g.perms&need != 0 {
			return true
		}
	}
	return false
}

// holdsAtOrgLevel reports whether the principal holds one of op's
// permissions for the whole organization, so that it sees every database.
func (p *principal) holdsAtOrgLevel(op *operation) bool {
	if len(op.perms) == 0 {
		return true
	}
	return p != nil && p.token != nil && p.token.orgPerms&op.need != 0
}
