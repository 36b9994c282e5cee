package fake

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/dbplatform/platform-go"
	vclock "github.com/dbplatform/platform-go/fake/internal/clock"
	"github.com/dbplatform/platform-go/fake/internal/ordered"
	"github.com/dbplatform/platform-go/fake/internal/sqltext"
)

// A snapshot is the whole state of a server as JSON: every resource, the
// clock, the transitions waiting on it, the ID generator, the credentials
// (as the hashes the server keeps, plus the admin token's secret), pending
// FailNext instructions and the OAuth server's session. Restoring it gives a
// server that behaves exactly as the one snapshotted: the same resources,
// the same IDs and secrets next, the same transitions due at the same times.
//
// The shape, version 1 (times are RFC 3339 with nanoseconds; lists are in
// the server's list order, or by ID where it has none):
//
//	{
//	  "format": "platform-fake-snapshot", "version": 1,
//	  "clock": {"now": ..., "seq": n}, "rng": "<PCG state, base64>",
//	  "admin": {"organization", "user", "token_id", "token_secret"},
//	  "users": [...], "organizations": [... members, teams ...],
//	  "service_tokens": [...], "databases": [... backups, backup_policies,
//	  deploy_requests, webhooks, ip_restrictions, maintenance_windows,
//	  workflows ...],
//	  "branches": [... keyspaces, roles, traffic_budgets, passwords,
//	  switchovers, traffic ...], "oauth_applications": [... tokens ...],
//	  "oauth_codes": [...], "oauth_devices": [...], "oauth_session": {...},
//	  "in_flight": [ids], "fail_next": [ids],
//	  "transitions": [{"kind", "at", "seq", ...}],
//	  "audit_log": {"seq": n, "entries": [...]},
//	  "auth_attempts": [{"organization", "attempts", "exports",
//	  "deleted_passwords"}] (left out when empty)
//	}
//
// Records that are gone (a deleted database or branch, a revoked token)
// are kept when a live record still refers to them, as the server does.
//
// Restore refuses what the server could not have saved: values the API
// refuses (each group checks its records next to its load, in
// <group>_snap.go, at the path of the value in the document), records
// waiting on the clock with no transition there (checkWaiting), in_flight
// and fail_next IDs of no record that can be in flight (flightIDs), a clock
// at or after maxSnapTime, counters over maxSnapCounter, and documents over
// MaxSnapshotSize or that would cost more than maxDecodeCost to decode
// (snapshot_decode.go).
//
// Not in a snapshot, as they are logs or test configuration rather than
// state: the request log, the event stream, the webhook delivery log and
// attempts in flight (their scheduled retries are in), fault rules, the
// rate limiter's counts, and the options the server was started with
// (timings, strictness, seed, address). The audit log is in, as the API
// serves it; a server restoring it keeps the newest entries up to its own
// WithAuditLogLimit.

// snapshotFormat and snapshotVersion identify a snapshot; Restore refuses
// any other. Bump the version when a change makes older snapshots load
// differently.
const (
	snapshotFormat  = "platform-fake-snapshot"
	snapshotVersion = 1
)

// snapshotHeader is what Restore reads first, to refuse a foreign file or
// another version before decoding the rest strictly.
type snapshotHeader struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
}

// worldSnap is a snapshot.
type worldSnap struct {
	snapshotHeader
	Clock         clockSnap         `json:"clock"`
	RNG           []byte            `json:"rng"`
	Admin         adminSnap         `json:"admin"`
	Users         []userSnap        `json:"users"`
	Organizations []orgSnap         `json:"organizations"`
	ServiceTokens []tokenSnap       `json:"service_tokens"`
	Databases     []dbSnap          `json:"databases"`
	Branches      []branchSnap      `json:"branches"`
	OAuthApps     []oauthAppSnap    `json:"oauth_applications"`
	OAuthDevices  []oauthDeviceSnap `json:"oauth_devices"`
	OAuthCodes    []oauthCodeSnap   `json:"oauth_codes"`
	OAuthSession  oauthSessionSnap  `json:"oauth_session"`
	InFlight      []string          `json:"in_flight"`
	FailNext      []string          `json:"fail_next"`
	Transitions   []jobSnap         `json:"transitions"`
	AuditLog      auditLogSnap      `json:"audit_log"`
	AuthAttempts  []orgAuthSnap     `json:"auth_attempts,omitempty"`
	DataImports   *dataImportsSnap  `json:"data_imports,omitempty"` // nil when there are none

	// ids are the IDs of the records, and flyable those of the records
	// that can be in flight (flyingTypes), as checkRecordIDs found them;
	// nil until it ran.
	ids, flyable map[string]bool
}

// clockSnap is the clock: its time and the sequence number of the last
// job scheduled, which orders jobs due at the same time.
type clockSnap struct {
	Now time.Time `json:"now"`
	Seq uint64    `json:"seq"`
}

// maxSnapTime bounds the clock of a snapshot and the times of its
// transitions: what the clock reaches must still be written in a snapshot
// (years up to 9999), and an advance by the longest duration Go has
// (292 years) from the latest time allowed here must still end before.
var maxSnapTime = time.Date(9000, 1, 1, 0, 0, 0, 0, time.UTC)

// maxSnapCounter bounds the counters of a snapshot (the clock's sequence,
// the last deploy request's number, generations): far from overflowing,
// however long the server that loads it runs.
const maxSnapCounter = 1 << 53

// validate checks the clock: a time it can advance from and still save,
// a sequence it can count on from.
func (c clockSnap) validate() error {
	if err := snapTime(c.Now); err != nil {
		return at(err, "now")
	}
	return at(snapCounter(c.Seq), "seq")
}

// snapTime checks a time the clock reaches.
func snapTime(t time.Time) error {
	if t.IsZero() || !t.Before(maxSnapTime) {
		return fmt.Errorf("%s is not a time the clock can reach: it must be after %s and before %s",
			t.Format(time.RFC3339Nano), time.Time{}.Format(time.RFC3339), maxSnapTime.Format(time.RFC3339))
	}
	return nil
}

// snapCounter checks a counter the server counts on from.
func snapCounter[N int | int64 | uint64](n N) error {
	if n < 0 || uint64(n) > maxSnapCounter {
		return fmt.Errorf("must be from 0 to %d, got %d", uint64(maxSnapCounter), n)
	}
	return nil
}

// adminSnap is who Server.Org, AdminUserID and AdminToken name.
type adminSnap struct {
	Organization string `json:"organization"`
	User         string `json:"user"`
	TokenID      string `json:"token_id"`
	TokenSecret  string `json:"token_secret"`
}

// Snapshot returns the server's state as JSON, which [Server.Restore]
// loads into this server or another. Logs (requests, events, webhook
// deliveries) and fault rules are not part of it.
func (s *Server) Snapshot() ([]byte, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	snap, err := s.save()
	if err != nil {
		return nil, methodErr("Snapshot", err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", " ")
	if err := enc.Encode(snap); err != nil {
		return nil, methodErr("Snapshot", err)
	}
	return buf.Bytes(), nil
}

// Restore replaces the server's state with a snapshot from
// [Server.Snapshot]: resources, clock, pending transitions, the ID
// generator and credentials, including the admin token. A snapshot of
// another version, or one that is corrupt, is refused with an error that
// says why, and the server is left as it was. Logs and fault rules stay as
// they are. A virtual clock is set to the snapshot's time; a real one
// keeps following the wall clock, and transitions already due run at once.
func (s *Server) Restore(data []byte) error {
	snap, err := decodeSnapshot(data)
	if err != nil {
		return methodErr("Restore", err)
	}
	ld := newLoader()
	if err := ld.load(snap); err != nil {
		return fmt.Errorf("fake: Restore: corrupt snapshot: %w", err)
	}
	ld.w.taken, ld.w.held = scanTakenIDs(data)
	if err := s.restoreLoaded(ld); err != nil {
		return fmt.Errorf("fake: Restore: corrupt snapshot: %w", err)
	}
	return nil
}

// restoreLoaded is Restore once the snapshot is loaded: it runs the
// transitions due (settleDue), then installs the world, or leaves the
// server as it was if one of them fails.
func (s *Server) restoreLoaded(ld *loader) error {
	if err := s.settleDue(ld); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.install(ld)
	return nil
}

// Reset returns the server to its state when it started: the starting
// organization, admin user and token (the same secret), the clock at its
// start (a real clock keeps the wall clock), the ID generator at its seed.
// It also empties the request log, the event stream, the webhook
// delivery log and the audit log. Fault rules stay installed.
func (s *Server) Reset() {
	fresh, err := s.fresh()
	if err != nil {
		// The same options built this server.
		panic(fmt.Sprintf("fake: Reset: %v", err))
	}
	ld := newLoader()
	if err := ld.load(fresh); err != nil {
		panic(fmt.Sprintf("fake: Reset: %v", err))
	}
	if err := s.settleDue(ld); err != nil {
		panic(fmt.Sprintf("fake: Reset: %v", err))
	}
	s.installFresh(ld)
	s.ClearRequests()
}

// installFresh installs a fresh world and empties the logs of the old one.
func (s *Server) installFresh(ld *loader) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.install(ld)
	s.events.clear()
	s.hooks.log.clear()
}

// fresh returns the snapshot of a server just started with this one's
// options.
func (s *Server) fresh() (*worldSnap, error) {
	n := &Server{cfg: s.cfg}
	n.adopt(newWorld(s.cfg.seed), vclock.New[job](s.cfg.realTime, s.cfg.start, nil, nil))
	n.world.newID() // the request ID prefix, as New takes it
	if err := n.seedDefaults(s.cfg); err != nil {
		return nil, err
	}
	return n.save()
}

// decodeSnapshot checks the size and the header, and what decoding would
// cost (decodeCost), then decodes the whole snapshot, strictly: an unknown
// field is an error.
func decodeSnapshot(data []byte) (*worldSnap, error) {
	if len(data) > MaxSnapshotSize {
		return nil, fmt.Errorf("snapshot of %d bytes is over the limit of %d bytes", len(data), MaxSnapshotSize)
	}
	var h snapshotHeader
	if err := json.Unmarshal(data, &h); err != nil {
		// A snapshot cut short or edited by hand still names its format.
		if bytes.Contains(data, []byte(`"`+snapshotFormat+`"`)) {
			return nil, fmt.Errorf("corrupt snapshot: %v", err)
		}
		return nil, fmt.Errorf("not a snapshot: %v", err)
	}
	if h.Format != snapshotFormat {
		return nil, fmt.Errorf("not a snapshot: format is %q, want %q", h.Format, snapshotFormat)
	}
	if h.Version != snapshotVersion {
		return nil, fmt.Errorf("snapshot version %d is not supported: this fake reads version %d", h.Version, snapshotVersion)
	}
	if err := decodeCost(data, reflect.TypeFor[worldSnap](), maxDecodeCost(len(data))); err != nil {
		return nil, fmt.Errorf("corrupt snapshot: %v", err)
	}
	snap := new(worldSnap)
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(snap); err != nil {
		return nil, fmt.Errorf("corrupt snapshot: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("corrupt snapshot: data after the snapshot")
	}
	if err := checkRecordIDs(snap); err != nil {
		return nil, fmt.Errorf("corrupt snapshot: %w", err)
	}
	return snap, nil
}

// save builds the snapshot of the server; the caller holds the lock.
func (s *Server) save() (*worldSnap, error) {
	w := s.world
	rng, err := w.pcg.MarshalBinary()
	if err != nil {
		return nil, err
	}
	sv := newSaver(w)
	snap := &worldSnap{
		snapshotHeader: snapshotHeader{Format: snapshotFormat, Version: snapshotVersion},
		Clock:          clockSnap{Now: s.world.clock.Now(), Seq: s.world.clock.Seq()},
		RNG:            rng,
		Admin: adminSnap{
			Organization: s.org.name, User: s.admin.id,
			TokenID: s.adminToken.ID, TokenSecret: s.adminToken.Secret,
		},
	}
	snap.OAuthSession = sv.session(&s.session)
	codes, devices := sv.codes(), sv.devices()
	sv.collect()
	for _, t := range s.world.clock.Pending() {
		if !sv.keepJob(t.Job) {
			continue
		}
		js := t.Job.save()
		if jobLoaders[js.Kind] == nil {
			return nil, fmt.Errorf("transition kind %q has no loader in jobLoaders (snapshot.go)", js.Kind)
		}
		js.At, js.Seq = t.At, t.Seq
		snap.Transitions = append(snap.Transitions, js)
	}
	snap.Users = sv.users()
	snap.Organizations = sv.orgs()
	snap.ServiceTokens = sv.tokens()
	snap.Databases = sv.databases()
	snap.Branches = sv.branches()
	snap.OAuthApps = sv.apps()
	snap.OAuthCodes = codes
	snap.OAuthDevices = devices
	snap.AuditLog = sv.auditLog()
	snap.AuthAttempts = sv.authSnaps()
	snap.DataImports = sv.dataImports()
	snap.InFlight, snap.FailNext = sortedKeys(w.inFlight), sortedKeys(w.failNext)
	if len(snap.InFlight)+len(snap.FailNext) > 0 {
		// A record that goes without ending its flight (a database
		// deleted with a deployment in flight) may leave its ID behind:
		// only those of records saved are saved.
		_, flyable := recordIDs(snap)
		snap.InFlight = slices.DeleteFunc(snap.InFlight, func(id string) bool { return !flyable[id] })
		snap.FailNext = slices.DeleteFunc(snap.FailNext, func(id string) bool { return !flyable[id] })
	}
	return snap, nil
}

// install swaps in the world a loader built and settleDue settled; the
// caller holds the lock. Nothing it does can fail: what the snapshot's
// transitions due at its time do has been done by settleDue. The old world is
// retired, so that a webhook attempt still in flight records nothing when
// its answer comes.
func (s *Server) install(ld *loader) {
	s.world.retire()
	s.hooks.order = nil // the retired world's webhooks
	s.adopt(ld.w, s.world.clock)
	s.world.audit.setLimit(s.cfg.auditLogLimit)
	s.org, s.admin, s.adminToken = ld.org, ld.admin, ld.adminToken
	s.session = ld.session
	s.codeTries = nil // counted on the old clock
	s.limiter.clear() // likewise
	s.world.clock.Restore(ld.now, ld.seq, ld.timers)
	s.ran.Add(uint64(ld.ran))
	ld.held.release(s)
}

// settleDue runs the transitions of ld's world due at its time (with a real
// clock, due now), as the server would once it holds the world, but
// before: on a clock of the world's own, with a host that holds what they
// emit until install releases it. A transition that fails (panics)
// leaves the world unsettled and the server as it was: settleDue returns an
// error, and the world is never installed. It runs at most
// MaxAdvanceTransitions, as one move of the clock does; the rest run at
// the next.
func (s *Server) settleDue(ld *loader) (err error) {
	w := ld.w
	clk := vclock.New[job](s.cfg.realTime, ld.now, func(j job) { j.run(w) }, func() {})
	defer clk.Stop() // a real clock's timer, which nothing reads
	clk.Restore(ld.now, ld.seq, ld.timers)
	held := &heldHost{w: w}
	w.clock, w.timing, w.host, w.base = clk, s.cfg.timing, held, s.url
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("a transition due at the snapshot's time fails: %v", p)
		}
	}()
	ld.ran = clk.RunDue(clk.Now(), MaxAdvanceTransitions)
	ld.now, ld.seq, ld.timers, ld.held = clk.Now(), clk.Seq(), clk.Pending(), held
	return nil
}

// heldHost is the host of a world a server does not hold yet: a restored
// world, while the transitions due at its time run before it is
// installed (see Server.settleDue). It stamps events and makes their
// deliveries as the server would, drawing the same IDs in the same order,
// and holds them; release logs and sends them once the world is the
// server's, and a world that is never installed sends nothing.
type heldHost struct {
	w      *world
	events []*eventRec
	sends  []*delivery
}

func (h *heldHost) record(e *eventRec, db *dbRec) {
	e.stamp(db, h.w.clock.Now())
	h.events = append(h.events, e)
	h.sends = append(h.sends, eventDeliveries(h.w, e, db)...)
}

func (h *heldHost) send(d *delivery) { h.sends = append(h.sends, d) }

// release logs the held events and sends the held deliveries on s, whose
// world is now h's; the caller holds the server's lock.
func (h *heldHost) release(s *Server) {
	for _, e := range h.events {
		s.events.add(e)
	}
	for _, d := range h.sends {
		s.send(d)
	}
	h.events, h.sends = nil, nil
}

// retire marks every webhook of w deleted: w is no longer the server's.
func (w *world) retire() {
	for _, org := range w.orgs {
		for _, db := range org.dbs.All() {
			for _, h := range db.more.read().webhooks.All() {
				h.deleted = true
			}
		}
	}
}

// scanTakenIDs returns the IDs a snapshot holds, for the restored world's
// newID to skip: every JSON string of 12 characters of the IDs' alphabet
// (a name that looks like an ID too, which costs nothing). The generator's
// state in the snapshot is not checked against them (which IDs it issues
// depends on what else draws from it), so a state set back to one that
// issued them is harmless instead.
//
// It returns the secrets the snapshot holds too, for newSecret to skip
// likewise: every string of 64 hexadecimal digits (the hash of a secret
// the server keeps hashed, as hash32 writes it), and every string of the
// form of a secret (isSecret: a client ID, a password's username).
func scanTakenIDs(data []byte) (takenIDs, heldSecrets) {
	var ids takenIDs
	var held heldSecrets
	// Each quote may open a string that ends at the next: a quote that
	// closes one is tried as an opener too, unless what it closes was
	// taken, so that an escaped quote within a string hides nothing.
	q := bytes.IndexByte(data, '"')
	for q >= 0 {
		start := q + 1
		n := bytes.IndexByte(data[start:], '"')
		if n < 0 {
			break
		}
		end := start + n
		s, took := data[start:end], false
		switch {
		case n == idLen:
			if id, ok := packID(s); ok {
				ids, took = append(ids, id), true
			}
		case n == 2*sha256.Size:
			var key [8]byte
			if _, err := hex.Decode(key[:], s[:16]); err == nil && isHex(s[16:]) {
				held, took = append(held, binary.BigEndian.Uint64(key[:])), true
			}
		case n < len(secretsByLen) && secretsByLen[n] != nil && isSecret(s):
			held, took = append(held, secretKey(sha256.Sum256(s))), true
		}
		q = end
		if took {
			if next := bytes.IndexByte(data[end+1:], '"'); next >= 0 {
				q = end + 1 + next
			} else {
				q = -1
			}
		}
	}
	slices.Sort(ids)
	slices.Sort(held)
	return slices.Clip(slices.Compact(ids)), slices.Clip(slices.Compact(held))
}

// isHex reports whether b is lowercase hexadecimal digits.
func isHex(b []byte) bool {
	for _, c := range b {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// loader builds a world from a snapshot, checking every reference.
type loader struct {
	w *world

	org        *orgRec
	admin      *userRec
	adminToken Token
	session    oauthSession
	now        time.Time
	seq        uint64
	timers     []*timer
	// ran counts the transitions settleDue ran, and held holds what they
	// emitted, until install.
	ran  int
	held *heldHost

	users    map[string]*userRec
	orgs     map[string]*orgRec // by ID
	dbs      map[string]*dbRec
	branches map[string]*branchRec
	tokens   map[string]*tokenRec
	apps     map[string]*oauthAppRec
	otokens  map[string]*oauthTokenRec
	readOnly map[string]*readOnlyRegionRec
	// switchovers and windows find the records of transitions.
	switchovers map[string]*switchoverRec
	windows     map[string]*windowRec
	workflows   map[string]*workflowRec
	vitessOps   map[string]*vitessOpRec
	vdiffs      map[string]*vdiffRec
	// bouncers, bouncerResizes, keyspaceResizes and branchChanges too; a deleted
	// bouncer is among them while a resize request refers to it.
	bouncers        map[string]*bouncerRec
	bouncerResizes  map[string]*bouncerResizeRec
	keyspaceResizes map[string]*keyspaceResizeRec
	branchChanges   map[string]*branchChangeRec
	qpReports       map[string]*qpReportRec
	authExports     map[string]*authExportRec
	imports         map[string]*importRec

	// ids are the IDs of every record of the snapshot (see
	// checkRecordIDs), for the checks of IDs that name no record of their
	// own.
	ids map[string]bool

	// fixes resolve references between records once all exist.
	fixes []func() error
}

func newLoader() *loader {
	return &loader{
		users:    map[string]*userRec{},
		orgs:     map[string]*orgRec{},
		dbs:      map[string]*dbRec{},
		branches: map[string]*branchRec{},
		tokens:   map[string]*tokenRec{},
		apps:     map[string]*oauthAppRec{},
		otokens:  map[string]*oauthTokenRec{},
		readOnly: map[string]*readOnlyRegionRec{},

		switchovers: map[string]*switchoverRec{},
		windows:     map[string]*windowRec{},
		workflows:   map[string]*workflowRec{},
		vitessOps:   map[string]*vitessOpRec{},
		vdiffs:      map[string]*vdiffRec{},

		bouncers:        map[string]*bouncerRec{},
		bouncerResizes:  map[string]*bouncerResizeRec{},
		keyspaceResizes: map[string]*keyspaceResizeRec{},
		branchChanges:   map[string]*branchChangeRec{},
		qpReports:       map[string]*qpReportRec{},
		authExports:     map[string]*authExportRec{},
		imports:         map[string]*importRec{},
	}
}

// later queues a reference to resolve once every record exists.
func (ld *loader) later(fix func() error) { ld.fixes = append(ld.fixes, fix) }

// load builds the world of snap.
func (ld *loader) load(snap *worldSnap) error {
	pcg := new(rand.PCG)
	if err := pcg.UnmarshalBinary(snap.RNG); err != nil {
		return fmt.Errorf("rng: %v", err)
	}
	ld.w = newWorld(0)
	ld.w.pcg, ld.w.rng = pcg, rand.New(pcg)
	if err := snap.Clock.validate(); err != nil {
		return at(err, "clock")
	}
	ld.now, ld.seq = snap.Clock.Now, snap.Clock.Seq
	if snap.ids == nil {
		snap.ids, snap.flyable = recordIDs(snap)
	}
	ld.ids = snap.ids
	steps := []func() error{
		func() error { return ld.loadUsers(snap.Users) },
		func() error { return ld.loadOrgs(snap.Organizations) },
		func() error { return ld.loadTokens(snap.ServiceTokens) },
		func() error { return ld.loadDatabases(snap.Databases) },
		func() error { return ld.loadBranches(snap.Branches) },
		func() error { return ld.loadDatabaseContents(snap.Databases) },
		func() error { return at(ld.loadApps(snap.OAuthApps), "oauth_applications") },
		func() error { return at(ld.loadAuditLog(snap.AuditLog), "audit_log") },
		func() error { return ld.loadAuth(snap.AuthAttempts) },
		func() error { return at(ld.loadDataImports(snap.DataImports), "data_imports") },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	for _, fix := range ld.fixes {
		if err := fix(); err != nil {
			return err
		}
	}
	if err := ld.loadCodes(snap.OAuthCodes); err != nil {
		return at(err, "oauth_codes")
	}
	if err := ld.loadDevices(snap.OAuthDevices); err != nil {
		return at(err, "oauth_devices")
	}
	if err := ld.loadSession(snap.OAuthSession); err != nil {
		return at(err, "oauth_session")
	}
	if err := ld.loadAdmin(snap.Admin); err != nil {
		return at(err, "admin")
	}
	var err error
	if ld.w.inFlight, err = flightIDs(snap.InFlight, snap); err != nil {
		return at(err, "in_flight")
	}
	if ld.w.failNext, err = flightIDs(snap.FailNext, snap); err != nil {
		return at(err, "fail_next")
	}
	if err := ld.loadJobs(snap.Transitions); err != nil {
		return err
	}
	ld.scheduleBackupExpiries()
	return ld.checkWaiting(snap)
}

// checkWaiting refuses a record in a state that only a transition on the
// clock ends when none is waiting for it: it would stay there for good. A
// pending database waits for its database.ready, a branch not ready yet
// for its branch.ready, a pending or running backup for its backup.step, a
// deployment for the deployment.step of its state (checkDeployWaiting,
// which also refuses a step its deployment does not wait on).
func (ld *loader) checkWaiting(snap *worldSnap) error {
	dbs, branches, backups := map[*dbRec]bool{}, map[*branchRec]bool{}, map[*backupRec]platform.BackupState{}
	steps := map[*drRec][]indexedStep{}
	for i, t := range ld.timers {
		switch j := t.Job.(type) {
		case databaseReadyJob:
			dbs[j.db] = true
		case branchReadyJob:
			branches[j.b] = true
		case backupJob:
			backups[j.bk] = j.from
		case deployJob:
			if j.gen == j.dr.dep.gen {
				steps[j.dr] = append(steps[j.dr], indexedStep{j.step, i})
			}
		}
	}
	if err := checkDeployWaiting(snap, ld.dbs, steps); err != nil {
		return err
	}
	const stuck = "%s, with no transition on the clock to end it"
	for i, ds := range snap.Databases {
		db := ld.dbs[ds.ID]
		if !db.deleted && db.state == platform.DatabasePending && !dbs[db] {
			return at(fmt.Errorf(stuck, db.state), "databases[%d].state", i)
		}
		for j, bs := range ds.Backups {
			bk := db.backups.byID[bs.ID]
			if waiting := bk.state == platform.BackupPending || bk.state == platform.BackupRunning; waiting && !bk.deleted && backups[bk] != bk.state {
				return at(fmt.Errorf(stuck, bk.state), "databases[%d].backups[%d].state", i, j)
			}
		}
	}
	for i, bs := range snap.Branches {
		if b := ld.branches[bs.ID]; !b.deleted && !b.ready && !branches[b] {
			return at(fmt.Errorf(stuck, "not ready"), "branches[%d].ready", i)
		}
	}
	return nil
}

// loadAdmin finds the starting organization, admin and token.
func (ld *loader) loadAdmin(a adminSnap) error {
	ld.org = ld.w.orgs[a.Organization]
	if ld.org == nil {
		return fmt.Errorf("admin: no organization %q", a.Organization)
	}
	var err error
	if ld.admin, err = ref(ld.users, a.User, "admin user"); err != nil {
		return err
	}
	if ld.admin == nil {
		return errors.New("admin: no user")
	}
	if a.TokenID == "" || a.TokenSecret == "" {
		return errors.New("admin: no token")
	}
	// The admin token may have been deleted through the API: the server
	// still names it, and the snapshot holds it only while a record
	// names it. A token it holds is checked.
	if tok := ld.tokens[a.TokenID]; tok != nil {
		if sha256.Sum256([]byte(a.TokenSecret)) != tok.hash {
			return fmt.Errorf("admin: the secret of token %s does not match its hash", a.TokenID)
		}
		if tok.org != ld.org {
			return at(fmt.Errorf("token %s is of organization %s, not %s", tok.id, tok.org.name, ld.org.name), "token_id")
		}
	}
	ld.adminToken = Token{ID: a.TokenID, Secret: a.TokenSecret}
	return nil
}

// ref resolves an ID of a record the snapshot holds; "" is nil.
func ref[T any](m map[string]*T, id, what string) (*T, error) {
	if id == "" {
		return nil, nil
	}
	v := m[id]
	if v == nil {
		return nil, fmt.Errorf("%s %q is not in the snapshot", what, id)
	}
	return v, nil
}

// refs resolves a list of IDs.
func refs[T any](m map[string]*T, ids []string, what string) ([]*T, error) {
	var out []*T
	for _, id := range ids {
		v, err := ref(m, id, what)
		if err != nil {
			return nil, err
		}
		if v == nil {
			return nil, fmt.Errorf("%s: empty ID", what)
		}
		out = append(out, v)
	}
	return out, nil
}

// flightIDs checks the IDs of in_flight or fail_next, and returns them as
// a set: each names a record of the snapshot of a kind that can be in
// flight (FailNext fails its transitions), once.
func flightIDs(list []string, snap *worldSnap) (map[string]bool, error) {
	set := make(map[string]bool, len(list))
	for i, id := range list {
		switch {
		case set[id]:
			return nil, at(fmt.Errorf("ID %q appears twice", id), "[%d]", i)
		case !snap.ids[id]:
			return nil, at(fmt.Errorf("ID %q names no record of the snapshot", id), "[%d]", i)
		case !snap.flyable[id]:
			return nil, at(fmt.Errorf("ID %q names a record that is never in flight: only %s are", id, failableKinds), "[%d]", i)
		}
		set[id] = true
	}
	return set, nil
}

// unique checks that an ID is new to m.
func unique[T any](m map[string]*T, id, what string) error {
	return uniqueID(id, what, m[id] != nil)
}

// uniqueIn checks that an ID is new to s.
func uniqueIn[T keyed](s *ordered.Store[T], id, what string) error {
	return uniqueID(id, what, s.Has(id))
}

// uniqueID checks that an ID is set and not taken.
func uniqueID(id, what string, taken bool) error {
	if id == "" {
		return fmt.Errorf("%s without an ID", what)
	}
	if taken {
		return fmt.Errorf("%s %q appears twice", what, id)
	}
	return nil
}

// checkRecordIDs refuses a snapshot in which two records share an ID,
// whatever their kinds (the server issues every ID once: see newID), at
// the path of the second: "databases[1].backups[0].id: ID "..." appears
// twice (also at databases[0].backups[0].id)". A record's ID is its
// stampsSnap's, or the ID of a record type without one (ownIDTypes);
// other "id" fields (a transition's, an invoice's branch) name records.
//
// It checks the times of every record with stamps too: made at a time the
// clock reached (not after the snapshot's), and updated then or later.
//
// It notes the IDs in snap (ids, flyable), for the checks of in_flight and
// fail_next.
func checkRecordIDs(snap *worldSnap) error {
	w := &idWalk{seen: map[string]bool{}, flyable: map[string]bool{}, now: snap.Clock.Now}
	w.walk(reflect.ValueOf(snap).Elem())
	if w.err != nil {
		return w.err
	}
	if w.dup == "" {
		snap.ids, snap.flyable = w.seen, w.flyable
		return nil
	}
	// Again, for the paths of the two records: only for a refusal.
	w2 := &idWalk{want: w.dup}
	w2.walk(reflect.ValueOf(snap).Elem())
	return at(fmt.Errorf("ID %q appears twice (also at %s)", w.dup, w2.first), "%s", w2.second)
}

// recordIDs returns the IDs of the records of a snapshot the server made,
// and those of the records that can be in flight.
func recordIDs(snap *worldSnap) (ids, flyable map[string]bool) {
	w := &idWalk{seen: map[string]bool{}, flyable: map[string]bool{}, all: true}
	w.walk(reflect.ValueOf(snap).Elem())
	return w.seen, w.flyable
}

// flyingTypes are the records that can be in flight: those whose
// transitions FailNext fails (failableKinds; see startFlight).
var flyingTypes = map[reflect.Type]bool{
	reflect.TypeFor[authExportSnap]():    true,
	reflect.TypeFor[backupSnap]():        true,
	reflect.TypeFor[bouncerSnap]():       true,
	reflect.TypeFor[bouncerResizeSnap](): true,
	reflect.TypeFor[deploySnap]():        true,
	reflect.TypeFor[importSnap]():        true,
	reflect.TypeFor[keyspaceSnap]():      true,
	reflect.TypeFor[qpReportSnap]():      true,
	reflect.TypeFor[switchoverSnap]():    true,
	reflect.TypeFor[vdiffSnap]():         true,
	reflect.TypeFor[vitessOpSnap]():      true,
	reflect.TypeFor[workflowSnap]():      true,
}

// ownIDTypes are the records of a snapshot whose ID is a field of their
// own, not a stampsSnap's.
var ownIDTypes = map[reflect.Type]bool{
	reflect.TypeFor[schemaSnap]():   true,
	reflect.TypeFor[lineItemSnap](): true,
	reflect.TypeFor[paymentSnap]():  true,
	reflect.TypeFor[sessionSnap]():  true,
	reflect.TypeFor[sampleSnap]():   true,
}

// refTypes embed a stampsSnap that names another record: what a workflow
// shows of a keyspace, which may be gone.
var refTypes = map[reflect.Type]bool{
	reflect.TypeFor[workflowKeyspaceSnap](): true,
}

var stampsSnapType = reflect.TypeFor[stampsSnap]()

// idWalk is checkRecordIDs' walk over the records of a snapshot: it finds
// the first ID seen twice (dup), or, given one (want), the paths of its
// first two records.
type idWalk struct {
	seen          map[string]bool
	flyable       map[string]bool // the IDs of flyingTypes
	all           bool            // notes every ID, checking nothing (recordIDs)
	now           time.Time       // the clock's
	err           error           // of a record's times
	dup           string
	want          string
	first, second string
	path          []idStep
}

// idStep is a step of an idWalk's path: an object's key, or an array's
// index.
type idStep struct {
	key   string
	index int
}

// where is the path of the walk, with a last key.
func (w *idWalk) where(last string) string {
	var b strings.Builder
	for _, st := range w.path {
		if st.key == "" {
			fmt.Fprintf(&b, "[%d]", st.index)
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(st.key)
	}
	if b.Len() > 0 {
		b.WriteByte('.')
	}
	b.WriteString(last)
	return b.String()
}

// walk visits the records within v.
func (w *idWalk) walk(v reflect.Value) {
	if w.dup != "" || w.second != "" || w.err != nil {
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() && holdsRecords(v.Type().Elem()) {
			w.walk(v.Elem())
		}
	case reflect.Slice:
		if !holdsRecords(v.Type().Elem()) {
			return
		}
		for i := range v.Len() {
			w.path = append(w.path, idStep{index: i})
			w.walk(v.Index(i))
			w.path = w.path[:len(w.path)-1]
		}
	case reflect.Struct:
		t := v.Type()
		if ownIDTypes[t] {
			w.record(v.FieldByName("ID").String(), t)
		}
		for i := range t.NumField() {
			f := t.Field(i)
			switch {
			case f.Anonymous && f.Type == stampsSnapType:
				st := v.Field(i)
				w.record(st.Field(0).String(), t)
				if w.want == "" && !w.all && w.err == nil {
					w.err = w.stamps(st.Field(1).Interface().(time.Time), st.Field(2).Interface().(time.Time))
				}
			case (f.IsExported() || f.Anonymous) && holdsRecords(f.Type):
				name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
				if f.Anonymous {
					w.walk(v.Field(i)) // its fields are the struct's
					continue
				}
				w.path = append(w.path, idStep{key: name})
				w.walk(v.Field(i))
				w.path = w.path[:len(w.path)-1]
			}
		}
	}
}

// stamps checks the times of the record at the walk's path.
func (w *idWalk) stamps(created, updated time.Time) error {
	switch {
	case snapTime(created) != nil || created.After(w.now.Add(maxCreatedAhead)):
		return at(fmt.Errorf("%s is not a time the clock reached (it is at %s)", created.Format(time.RFC3339Nano), w.now.Format(time.RFC3339Nano)), "%s", w.where("created"))
	case !updated.IsZero() && (updated.Before(created) || updated.After(w.now.Add(maxCreatedAhead))):
		return at(fmt.Errorf("%s is not from its creation at %s to the clock's %s", updated.Format(time.RFC3339Nano), created.Format(time.RFC3339Nano), w.now.Format(time.RFC3339Nano)), "%s", w.where("updated"))
	}
	return nil
}

// maxCreatedAhead is how far after the clock a record may be made: the
// keyspaces of a new branch are made a nanosecond apart from its time, so
// that they list in order.
const maxCreatedAhead = time.Second

// record notes the ID of the record of type t at the walk's path.
func (w *idWalk) record(id string, t reflect.Type) {
	if w.want != "" {
		if id == w.want {
			where := w.where("id")
			if w.first == "" {
				w.first = where
			} else {
				w.second = where
			}
		}
		return
	}
	if id == "" {
		return // refused where the record loads, by what it is
	}
	if w.seen[id] && !w.all {
		w.dup = id
	}
	w.seen[id] = true
	if flyingTypes[t] {
		w.flyable[id] = true
	}
}

// holdsRecords reports whether a value of type t, a type within a
// snapshot, may hold a record with an ID, at any depth.
func holdsRecords(t reflect.Type) bool { return recordTypes()[t] }

// recordTypes are the types within a snapshot that may hold a record with
// an ID, worked out once.
var recordTypes = sync.OnceValue(func() map[reflect.Type]bool {
	holds := map[reflect.Type]bool{}
	seen := map[reflect.Type]bool{}
	var visit func(t reflect.Type) bool
	visit = func(t reflect.Type) bool {
		if seen[t] {
			return holds[t] // a type within itself adds nothing
		}
		seen[t] = true
		var h bool
		switch {
		case refTypes[t]:
		case t.Kind() == reflect.Pointer, t.Kind() == reflect.Slice:
			h = visit(t.Elem())
		case t.Kind() == reflect.Struct:
			h = ownIDTypes[t] || t == stampsSnapType
			for i := range t.NumField() {
				if f := t.Field(i); (f.IsExported() || f.Anonymous) && visit(f.Type) {
					h = true
				}
			}
		}
		holds[t] = h
		return h
	}
	visit(reflect.TypeFor[worldSnap]())
	return holds
})

// named prefixes an error with what it is about; an error at a path of
// the document (at) says that already, and stays as it is.
func named(err error, format string, args ...any) error {
	if _, ok := err.(*snapPathError); ok || err == nil {
		return err
	}
	return fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), err)
}

// snapPathError is a refusal of a value of a snapshot, at its path in the
// document (databases[2].branches[1].name).
type snapPathError struct {
	path string
	err  error
}

func (e *snapPathError) Error() string { return e.path + ": " + e.err.Error() }
func (e *snapPathError) Unwrap() error { return e.err }

// at puts err at the path elem of the document, within the path err is
// at already: at(at(err, "name"), "branches[1]") is at
// branches[1].name.
func at(err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	elem := fmt.Sprintf(format, args...)
	var pe *snapPathError
	if errors.As(err, &pe) && pe == err {
		if !strings.HasPrefix(pe.path, "[") {
			elem += "."
		}
		return &snapPathError{elem + pe.path, pe.err}
	}
	return &snapPathError{elem, err}
}

// snapCheck is the refusal of a check the API makes (checkName,
// clusterSizeFor), without its status.
func snapCheck(err error) error {
	if e, ok := err.(*apiError); ok {
		return errors.New(e.message)
	}
	return err
}

// snapClusterSize checks a stored cluster size as the API checks one it
// is given for a new cluster in scope at (see clusterSizeFor), and that it
// is the catalogue's own name, the only form the server stores.
func snapClusterSize(size string, at sizeScope, production bool) error {
	name, err := clusterSizeFor("cluster size", size, at, production)
	if err == nil && name != size {
		err = fmt.Errorf("cluster size %q is stored as %q", size, name)
	}
	return snapCheck(err)
}

// legacyARMSize is the one ARM size of PostgreSQL's catalogue before its
// sizes were fully qualified: PS_40 on ARM.
const legacyARMSize = "PS_40_ARM"

// snapPostgresSize is a stored size of a database of kind, in region, as
// the server names it now: a snapshot from before PostgreSQL's sizes were
// fully qualified holds their plain names (PS_10, and PS_40_ARM), which
// are the sizes on the region's provider, X86 (PS_10_AWS_X86), and ARM for
// PS_40_ARM. Any other size, and every MySQL size, is as stored.
func snapPostgresSize(size string, kind platform.DatabaseKind, region *regionRec) string {
	switch {
	case kind != platform.KindPostgreSQL:
		return size
	case size == legacyARMSize:
		return pgSizeName("PS_40", region.provider, archARM)
	}
	if name := pgSizeName(size, region.provider, archX86); skuByName[name] != nil {
		return name
	}
	return size
}

// snapName checks a name the API checks with checkName when it is
// created.
func snapName(name string) error {
	switch {
	case name == "":
		return errors.New("must not be empty")
	case strings.Contains(name, "/"):
		return errors.New(`must not contain "/"`)
	case len(name) > maxNameLen:
		return fmt.Errorf("%q is longer than %d characters", name, maxNameLen)
	case !slug.MatchString(name):
		return fmt.Errorf("%q must be lowercase letters, digits and dashes, and start and end with a letter or digit", name)
	}
	return nil
}

// snapRange checks a number the API bounds to lo..hi.
func snapRange(n, lo, hi int) error {
	if n < lo || n > hi {
		return fmt.Errorf("must be from %d to %d, got %d", lo, hi, n)
	}
	return nil
}

// snapNonNegative refuses a negative count or amount.
func snapNonNegative[N int | int64](n N) error {
	if n < 0 {
		return fmt.Errorf("must not be negative, got %d", n)
	}
	return nil
}

// snapObject refuses null for a map the server always holds (a
// keyspace's tables, even none, are {}): the server writes to it.
func snapObject[M ~map[K]V, K comparable, V any](m M) error {
	if m == nil {
		return errors.New("must be an object, not null")
	}
	return nil
}

// snapTables checks the tables of a keyspace's schema, a CREATE TABLE by
// table name, as the server keeps those the API took (PushSchema,
// deploy requests, materialize_create, lookup vindexes): each one that
// sqltext.ParseDDL reads as a CREATE TABLE of the table its name says,
// with the head it keeps ("CREATE TABLE `name` (", see ParseDDL). Its
// error is at the first bad table, by name.
func snapTables(tables map[string]string) error {
	bad, found := "", false
	for table, create := range tables {
		if (!found || table < bad) && snapTable(table, create) != nil {
			bad, found = table, true
		}
	}
	switch {
	case !found:
		return nil
	case bad == "":
		return snapTable(bad, tables[bad])
	}
	return at(snapTable(bad, tables[bad]), "%s", bad)
}

// snapTable checks one table of snapTables.
func snapTable(table, create string) error {
	if table == "" {
		return errors.New("a table without a name")
	}
	d, err := sqltext.ParseDDL(create)
	switch {
	case err != nil || d.Create == "":
		return fmt.Errorf("%q is not a CREATE TABLE statement", snapQuote(create))
	case d.Table != table:
		return fmt.Errorf("the CREATE TABLE statement is of table %q, not %q", d.Table, table)
	case d.Create != create:
		return fmt.Errorf("%q is not in the form the server keeps a CREATE TABLE (%q)", snapQuote(create), snapQuote(d.Create))
	}
	return nil
}

// snapQuote shortens a long text for a refusal's message.
func snapQuote(text string) string {
	const max = 60
	if len(text) <= max {
		return text
	}
	return text[:max] + "..."
}

// snapOneOf refuses a value of an enumeration outside allowed; what names
// the allowed values in the message ("a database state").
func snapOneOf[T ~string](v T, what string, allowed ...T) error {
	if slices.Contains(allowed, v) {
		return nil
	}
	return fmt.Errorf("%q is not %s", v, what)
}

// firstErr returns the first of errs that is not nil.
func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// stampsSnap is a record's ID and times.
type stampsSnap struct {
	ID      string    `json:"id"`
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
}

func saveStamps(s stamps) stampsSnap { return stampsSnap{s.id, s.created, s.updated} }

func (s stampsSnap) load() stamps { return stamps{s.ID, s.Created, s.Updated} }

// leaseSnap is the lease of credentials created with a ttl.
type leaseSnap struct {
	TTL       int       `json:"ttl"`
	ExpiresAt time.Time `json:"expires_at"`
}

func saveLease(l lease) leaseSnap { return leaseSnap{l.ttl, l.expiresAt} }

// leaseFrom checks the lease of credentials created at created: it expires
// its ttl after they were made, or after a renewal, never before.
func (l leaseSnap) leaseFrom(created time.Time) error {
	if l.TTL > 0 && l.ExpiresAt.Before(created.Add(time.Duration(l.TTL)*time.Second)) {
		return at(fmt.Errorf("%s is less than its ttl of %ds after its creation at %s", l.ExpiresAt.Format(time.RFC3339Nano), l.TTL, created.Format(time.RFC3339Nano)), "expires_at")
	}
	return nil
}

func (l leaseSnap) loadLease() (lease, error) {
	if l.TTL < 0 || int64(l.TTL) > maxLeaseTTL || (l.TTL == 0) != l.ExpiresAt.IsZero() {
		return lease{}, fmt.Errorf("ttl %d with expiry %s", l.TTL, l.ExpiresAt)
	}
	return lease{l.TTL, l.ExpiresAt}, nil
}

// jobSnap is a transition waiting on the clock, as a snapshot holds it: its
// kind, when it is due, the order it was scheduled in, and what it acts on.
type jobSnap struct {
	Kind string    `json:"kind"`
	At   time.Time `json:"at"`
	Seq  uint64    `json:"seq"`
	// ID is the resource the job acts on; for a deploy request, its
	// deployment's ID; for an authorization code, its hash.
	ID string `json:"id"`
	// Gen is the generation of the resource the job was scheduled for
	// (deployments, policies, keyspace settings changes).
	Gen uint64 `json:"gen,omitempty"`
	// Step is the deployment's step, or the state a backup leaves.
	Step     string        `json:"step,omitempty"`
	Delivery *deliverySnap `json:"delivery,omitempty"`
}

// jobLoaders build each kind of job again from its snapshot. A new kind of
// transition adds its loader here; the loader itself goes in its group's
// <group>_jobs.go, beside the job's struct, run, save and keep.
var jobLoaders = map[string]func(ld *loader, js jobSnap) (job, error){
	"database.ready":                 loadDatabaseReadyJob,
	"branch.ready":                   loadBranchReadyJob,
	"keyspace.ready":                 loadKeyspaceReadyJob,
	"keyspace.config":                loadKeyspaceConfigJob,
	"backup.step":                    loadBackupJob,
	"backup.expire":                  loadBackupExpiryJob,
	"backup_policy.run":              loadPolicyRunJob,
	"deployment.step":                loadDeployJob,
	"webhook.retry":                  loadRetryJob,
	"oauth_code.expire":              loadCodeExpiryJob,
	"read_only_region.ready":         loadReadOnlyRegionReadyJob,
	"oauth_device.forget":            loadDeviceExpiryJob,
	"switchover.step":                loadSwitchoverJob,
	"vitess_operation.step":          loadVitessOpJob,
	"vreplication.copy":              loadVRCopyJob,
	"vdiff.step":                     loadVDiffJob,
	"maintenance.end":                loadMaintenanceEndJob,
	"bouncer.ready":                  loadBouncerReadyJob,
	"bouncer_resize.step":            loadBouncerResizeJob,
	"keyspace_resize.step":           loadKeyspaceResizeJob,
	"branch_change.step":             loadBranchChangeJob,
	"workflow.step":                  loadWorkflowJob,
	"query_patterns_report.generate": loadQPReportJob,
	"invoice.issue":                  loadInvoiceJob,
	"auth_attempt_export.step":       loadAuthExportJob,
	"data_import.step":               loadImportStepJob,
}

// loadJobs puts the snapshot's transitions on the new clock.
func (ld *loader) loadJobs(list []jobSnap) error {
	seqs := make(map[uint64]bool, len(list))
	for i, js := range list {
		j, err := ld.loadJob(js, seqs)
		if err != nil {
			return at(err, "transitions[%d]", i)
		}
		ld.timers = append(ld.timers, &timer{At: js.At, Seq: js.Seq, Job: j})
	}
	return nil
}

// loadJob checks and loads one transition; seqs are the sequence numbers
// of those before it.
func (ld *loader) loadJob(js jobSnap, seqs map[uint64]bool) (job, error) {
	load := jobLoaders[js.Kind]
	if load == nil {
		return nil, at(fmt.Errorf("transition of unknown kind %q", js.Kind), "kind")
	}
	if js.Seq == 0 || js.Seq > ld.seq || seqs[js.Seq] {
		return nil, at(fmt.Errorf("transition %s of %s: sequence %d is not within the clock's %d, or appears twice", js.Kind, js.ID, js.Seq, ld.seq), "seq")
	}
	seqs[js.Seq] = true
	if err := snapTime(js.At); err != nil {
		return nil, at(err, "at")
	}
	if err := snapCounter(js.Gen); err != nil {
		return nil, at(err, "gen")
	}
	j, err := load(ld, js)
	return j, named(err, "transition %s of %s", js.Kind, js.ID)
}

// refNonNil resolves a required ID.
func refNonNil[T any](m map[string]*T, id, what string) (*T, error) {
	v, err := ref(m, id, what)
	if err == nil && v == nil {
		err = fmt.Errorf("no %s", what)
	}
	return v, err
}
