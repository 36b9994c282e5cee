package fake

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"time"
)

// world is everything the fake knows. The server's mutex guards it; every
// handler and every timer runs with that lock held, so a request sees and
// leaves a consistent world.
type world struct {
	rng    *rand.Rand
	pcg    *rand.PCG          // rng's source, whose state a snapshot holds
	orgs   map[string]*orgRec // by name
	orgIdx index[*orgRec]
	users  map[string]*userRec  // by ID
	tokens map[string]*tokenRec // by ID
	oauth  oauthStore           // OAuth applications, tokens and codes
	// inFlight holds the IDs of resources with transitions ahead.
	inFlight map[string]bool
	audit    auditLog // the organizations' audit logs; see auditlogs.go
	// importSources are what tests of external databases find; see dataimports.go.
	importSources importSources

	// clock is the world's time and the transitions waiting on it; every
	// job runs against the world (see clock.go). timing is how long each
	// lifecycle's steps take.
	clock  *clock
	timing Timings
	// failNext holds the IDs whose next transition fails (see FailNext).
	failNext map[string]bool
	// base is the server's base URL, which rendered resources link to.
	base string
	// host logs and delivers what the world emits; see host.
	host host
	// taken holds the IDs a restored world was loaded with, which newID
	// skips (see takenIDs); nil for a world that was never restored.
	taken takenIDs
	// held holds the secrets a restored world was loaded with, which
	// newSecret skips (see heldSecrets); nil for a world never restored.
	held heldSecrets
}

// host is what the world asks of the server that holds it, and all it
// knows of it: the world names no server, request or response.
type host interface {
	// record logs an event of db and sends it to db's webhooks.
	record(e *eventRec, db *dbRec)
	// send makes the next attempt of a webhook delivery.
	send(d *delivery)
}

func newWorld(seed uint64) *world {
	pcg := rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)
	return &world{
		rng:      rand.New(pcg),
		pcg:      pcg,
		orgs:     map[string]*orgRec{},
		users:    map[string]*userRec{},
		tokens:   map[string]*tokenRec{},
		inFlight: map[string]bool{},
	}
}

const idAlphabet = "abcdefghijklmnopqrstuvwxyz0123456789"

// idLen is the length of an ID.
const idLen = 12

// newID returns a fresh 12-character ID. IDs follow from the seed, so two
// servers with the same seed and the same calls produce the same IDs. An
// ID a restored world was loaded with is skipped: a snapshot's generator
// may have been set back (by hand) to a state that issued them.
func (w *world) newID() string {
	b := make([]byte, idLen)
	for {
		for i := range b {
			b[i] = idAlphabet[w.rng.IntN(len(idAlphabet))]
		}
		if !w.taken.has(b) {
			return string(b)
		}
	}
}

// derivedID is an ID for what has no record of its own (an access, a
// grant, a lint error's url_hash, a workflow stream's log entry): stable for the same parts, 12 lowercase
// alphanumerics like every other ID.
func derivedID(parts ...string) string {
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	b := make([]byte, 12)
	for i := range b {
		b[i] = idAlphabet[int(sum[i])%len(idAlphabet)]
	}
	return string(b)
}

// takenIDs is a set of IDs: each packed in a uint64 (an ID, 12 characters
// of 36, is a number below 36^12 < 2^63), sorted. It costs 8 bytes an ID,
// only in a restored world.
type takenIDs []uint64

// packID is the number of an ID, and whether b is one.
func packID(b []byte) (uint64, bool) {
	if len(b) != idLen {
		return 0, false
	}
	var n uint64
	for _, c := range b {
		var d byte
		switch {
		case c >= 'a' && c <= 'z':
			d = c - 'a'
		case c >= '0' && c <= '9':
			d = c - '0' + 26
		default:
			return 0, false
		}
		n = n*uint64(len(idAlphabet)) + uint64(d)
	}
	return n, true
}

// has reports whether the ID b is in the set.
func (t takenIDs) has(b []byte) bool {
	if len(t) == 0 {
		return false
	}
	n, ok := packID(b)
	if !ok {
		return false
	}
	_, found := slices.BinarySearch(t, n)
	return found
}

// newSecret returns a fresh secret: prefix and n characters, one of
// secretForms. A restored world skips the secrets it was loaded with (held),
// should its generator have been set back to a state that issued them.
func (w *world) newSecret(prefix string, n int) string {
	if !slices.Contains(secretForms, secretForm{prefix, n}) {
		panic(fmt.Sprintf("newSecret: %q and %d characters is not one of secretForms", prefix, n))
	}
	b := make([]byte, len(prefix)+n)
	copy(b, prefix)
	for {
		for i := len(prefix); i < len(b); i++ {
			b[i] = idAlphabet[w.rng.IntN(len(idAlphabet))]
		}
		if !w.held.has(b) {
			return string(b)
		}
	}
}

// secretForm is the form of the secrets newSecret makes: a prefix, and n
// characters of idAlphabet.
type secretForm struct {
	prefix string
	n      int
}

// secretForms are the forms of every secret the server issues, which a
// restore finds in its snapshot as they are (a client ID, a password's
// username, a webhook's secret) to skip them; those it keeps as hashes it
// finds by their hash (see scanTakenIDs).
var secretForms = []secretForm{
	{"code_", 32}, {"oat_", 40}, {"ort_", 40}, {"app_", 20}, {"secret_", 40}, {"device_", 40},
	{"", 20}, {"pw_", 40}, {"role_", 12}, {"sk_", 32}, {"", 32},
}

// isSecret reports whether b has the form of a secret newSecret makes.
func isSecret(b []byte) bool {
	if len(b) >= len(secretsByLen) {
		return false
	}
	for _, f := range secretsByLen[len(b)] {
		if string(b[:len(f.prefix)]) == f.prefix && inAlphabet(b[len(f.prefix):]) {
			return true
		}
	}
	return false
}

// secretsByLen are the secretForms by the length of their secrets.
var secretsByLen = func() [][]secretForm {
	var out [][]secretForm
	for _, f := range secretForms {
		n := len(f.prefix) + f.n
		for len(out) <= n {
			out = append(out, nil)
		}
		out[n] = append(out[n], f)
	}
	return out
}()

// inAlphabet reports whether every byte of b is of idAlphabet.
func inAlphabet(b []byte) bool {
	for _, c := range b {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// heldSecrets is a set of secrets: each the first 8 bytes of its SHA-256,
// the hash the server keeps of most, sorted. Two secrets that share them
// are both skipped, which costs a draw. It costs 8 bytes a secret, only in
// a restored world.
type heldSecrets []uint64

// secretKey is the key of a secret of its SHA-256 hash.
func secretKey(hash [32]byte) uint64 { return binary.BigEndian.Uint64(hash[:8]) }

// has reports whether the secret b is in the set.
func (h heldSecrets) has(b []byte) bool {
	if len(h) == 0 {
		return false
	}
	_, found := slices.BinarySearch(h, secretKey(sha256.Sum256(b)))
	return found
}

// stamps are the creation and update times every record has.
type stamps struct {
	id      string
	created time.Time
	updated time.Time
}

// ListKey orders records by creation time, then ID.
func (s *stamps) ListKey() key { return key{At: s.created, ID: s.id} }

// lazy holds a part of a record that few records need, made on first
// use, so that a record without it carries one pointer and no empty tables:
// branchRec.more, dbRec.more, dbRec.extra, dbRec.workflows and
// keyspaceRec.more are each a lazy. get makes the part; peek and read
// make nothing, for paths every record takes (emitting an event, a
// snapshot) that would otherwise make it for all of them.
//
// The pointer is atomic because reads under the server's read lock make
// parts too (a read handler's get): two readers that make one at once
// agree on one, the first stored. What the part holds is guarded by the
// server's lock as the rest of the record is.
type lazy[T any] struct{ p atomic.Pointer[T] }

// get returns the part, making a zero T on first use.
func (l *lazy[T]) get() *T {
	if m := l.p.Load(); m != nil {
		return m
	}
	l.p.CompareAndSwap(nil, new(T))
	return l.p.Load()
}

// peek returns the part without making it: nil when none was made.
func (l *lazy[T]) peek() *T { return l.p.Load() }

// read returns the part without making it, for reading its fields: an
// empty T (not kept) when none was made. What it returns is read, never
// changed.
func (l *lazy[T]) read() *T {
	if m := l.p.Load(); m != nil {
		return m
	}
	return new(T)
}
