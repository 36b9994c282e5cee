package fake

import (
	"archive/zip"
	"bytes"
	"cmp"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake/internal/ordered"
	"github.com/dbplatform/platform-go/fake/internal/parquet"
)

// Authentication-attempt exports. A test records attempts to connect to a
// branch (RecordAuthAttempts, or its control endpoint); the fake decides
// each one's outcome from its own credentials when it is recorded: a live
// password (MySQL) or role (PostgreSQL) with the username lets it in; an
// expired one, a deleted one or no credential at all denies it, and the
// attempt says which. An export selects the attempts of a time window that
// its filters match, generated on the clock (pending, running, then ready
// or failed), and is downloaded as a ZIP archive through a signed address
// until it expires; after that the API answers 410 with its record.

// orgAuth is what an organization keeps of authentication: the attempts
// recorded, oldest first; the exports asked for; the usernames of deleted
// passwords, so that an attempt with one is told apart from an unknown
// username. Made on the first write (see orgRec.authOf).
type orgAuth struct {
	attempts []platform.AuthAttempt
	exports  ordered.Store[*authExportRec]
	// deletedPasswords are the deleted passwords by username.
	deletedPasswords map[string]deletedPassword
}

// deletedPassword is what an attempt's failure says of a deleted password.
type deletedPassword struct {
	branchID string
	name     string
	at       time.Time
}

// authOf returns org's authentication records, making them on first use
// (under the write lock); readers use peekAuth.
func (org *orgRec) authOf() *orgAuth {
	if org.auth == nil {
		org.auth = &orgAuth{}
	}
	return org.auth
}

// peekAuth returns org's authentication records, or empty ones (not kept).
func (org *orgRec) peekAuth() *orgAuth {
	if org.auth == nil {
		return &orgAuth{}
	}
	return org.auth
}

// authExportRec is an export of an organization's attempts. It is
// generated from the attempts recorded until it runs, which it keeps: a
// ready export does not change.
type authExportRec struct {
	stamps
	org       *orgRec
	state     platform.AuthAttemptExportState
	startAt   time.Time
	endAt     time.Time
	format    platform.AuthAttemptExportFormat
	filters   platform.AuthAttemptFilters // as checked: canonical addresses
	branchIDs []string                    // the branches filters.Branches names
	started   time.Time                   // running from
	finished  time.Time                   // ready or failed at
	expires   time.Time                   // a ready export's archive is served until
	// failure is a failed export's failure_reason; detail its failure_detail.
	failure, detail string
	rows            []platform.AuthAttempt // when ready
}

// expired reports whether a ready export's archive is no longer served.
func (x *authExportRec) expired(now time.Time) bool {
	return !x.expires.IsZero() && !now.Before(x.expires)
}

// authExportRecoveryHint is what an expired or failed export suggests.
const authExportRecoveryHint = "Create a new export with the original time range."

// authExportFilesPrefix is where the fake serves exports' archives at
// signed addresses, outside /v1:
// /_files/auth-attempt-exports/{organization}/{export}. The API's download
// operation redirects there.
const authExportFilesPrefix = "/_files/auth-attempt-exports/"

// authExportFilesPattern is the route of authExportFilesPrefix.
const authExportFilesPattern = "GET " + authExportFilesPrefix + "{organization}/{export}"

func authAttemptRoutes() []route {
	return []route{
		{pattern: "POST /v1/organizations/{organization}/auth-attempt-exports", op: "create_auth_attempt_export", handler: withBody(createAuthExport)},
		{pattern: "GET /v1/organizations/{organization}/auth-attempt-exports/{export}", op: "get_auth_attempt_export", handler: read(getAuthExport)},
		{pattern: "GET /v1/organizations/{organization}/auth-attempt-exports/{export}/download", op: "download_auth_attempt_export", handler: read(downloadAuthExport)},
	}
}

// The values an export's body may name.
var (
	authExportFormats  = []platform.AuthAttemptExportFormat{platform.AuthAttemptExportJSONL, platform.AuthAttemptExportCSV, platform.AuthAttemptExportParquet}
	authOutcomes       = []platform.AuthAttemptOutcome{platform.AuthAttemptAllow, platform.AuthAttemptDeny}
	authFailureReasons = []platform.AuthAttemptFailureReason{
		platform.AuthFailedBadPassword, platform.AuthFailedUnknownUser, platform.AuthFailedAuthorization,
		platform.AuthFailedIPNotAllowed, platform.AuthFailedOther,
	}
	authRoutes = []platform.AuthAttemptBackendRoute{platform.AuthRoutePostgres, platform.AuthRoutePgBouncer, platform.AuthRouteUnknown}
)

// maxAuthExportFilterValues bounds each filter list of an export.
const maxAuthExportFilterValues = 100

func createAuthExport(c *call, p *platform.CreateAuthAttemptExportParams) (any, error) {
	x, err := c.w.checkAuthExport(c.org, p)
	if err != nil {
		return nil, err
	}
	c.w.newAuthExport(x)
	return c.w.renderAuthExportAnswer(x, c.now), nil
}

// checkAuthExport validates a request for an export of org's attempts
// and returns the export it asks for, not yet filed; every refusal names
// the field.
func (w *world) checkAuthExport(org *orgRec, p *platform.CreateAuthAttemptExportParams) (*authExportRec, error) {
	switch {
	case p.StartAt.IsZero():
		return nil, unprocessable("start_at is required")
	case p.EndAt.IsZero():
		return nil, unprocessable("end_at is required")
	case !p.StartAt.Before(p.EndAt):
		return nil, unprocessable("start_at %s must be before end_at %s", platform.NewTimestamp(p.StartAt), platform.NewTimestamp(p.EndAt))
	case p.Format == "":
		return nil, unprocessable("format is required: jsonl, csv or parquet")
	}
	if err := oneOf("format", p.Format, authExportFormats); err != nil {
		return nil, err
	}
	x := &authExportRec{org: org, startAt: p.StartAt.UTC(), endAt: p.EndAt.UTC(), format: p.Format, branchIDs: []string{}}
	if p.Filters == nil {
		return x, nil
	}
	f := p.Filters
	for _, l := range []struct {
		field string
		n     int
	}{
		{"source_ips", len(f.SourceIPs)}, {"branches", len(f.Branches)}, {"outcomes", len(f.Outcomes)},
		{"usernames", len(f.Usernames)}, {"startup_databases", len(f.StartupDatabases)},
		{"failure_reasons", len(f.FailureReasons)}, {"backend_routes", len(f.BackendRoutes)},
	} {
		if l.n > maxAuthExportFilterValues {
			return nil, unprocessable("filters.%s has %d values; at most %d are allowed", l.field, l.n, maxAuthExportFilterValues)
		}
	}
	ips, err := parseCIDRs("filters.source_ips", f.SourceIPs, false)
	if err != nil {
		return nil, err
	}
	for i, ref := range f.Branches {
		b := org.branchByRef(ref)
		if b == nil {
			return nil, unprocessable("filters.branches[%d]: %q names no branch of %s (a branch ID, or database/branch)", i, ref, org.name)
		}
		if !slices.Contains(x.branchIDs, b.id) {
			x.branchIDs = append(x.branchIDs, b.id)
		}
	}
	for i, v := range f.Outcomes {
		if err := oneOf(fmt.Sprintf("filters.outcomes[%d]", i), v, authOutcomes); err != nil {
			return nil, err
		}
	}
	for i, v := range f.FailureReasons {
		if err := oneOf(fmt.Sprintf("filters.failure_reasons[%d]", i), v, authFailureReasons); err != nil {
			return nil, err
		}
	}
	for i, v := range f.BackendRoutes {
		if err := oneOf(fmt.Sprintf("filters.backend_routes[%d]", i), v, authRoutes); err != nil {
			return nil, err
		}
	}
	x.filters = platform.AuthAttemptFilters{
		SourceIPs: nilIfEmpty(ips), Branches: slices.Clone(f.Branches), Outcomes: slices.Clone(f.Outcomes),
		Usernames: slices.Clone(f.Usernames), StartupDatabases: slices.Clone(f.StartupDatabases),
		FailureReasons: slices.Clone(f.FailureReasons), BackendRoutes: slices.Clone(f.BackendRoutes),
	}
	return x, nil
}

// nilIfEmpty is list, or nil for an empty one.
func nilIfEmpty(list []string) []string {
	if len(list) == 0 {
		return nil
	}
	return list
}

// oneOf refuses a value outside allowed, naming the field and the values.
func oneOf[T ~string](field string, v T, allowed []T) error {
	if slices.Contains(allowed, v) {
		return nil
	}
	names := make([]string, len(allowed))
	for i, a := range allowed {
		names[i] = string(a)
	}
	return unprocessable("%s %q is not one of %s", field, v, strings.Join(names, ", "))
}

// branchByRef finds a live branch of org by ID or by "database/branch".
func (org *orgRec) branchByRef(ref string) *branchRec {
	if dbName, name, ok := strings.Cut(ref, "/"); ok {
		if db := org.dbByName[dbName]; db != nil {
			return db.branch(name)
		}
		return nil
	}
	for _, db := range org.dbs.All() {
		for _, b := range db.branchIdx.All() {
			if b.id == ref {
				return b
			}
		}
	}
	return nil
}

// authExport finds the export the path names.
func (c *call) authExport() (*authExportRec, error) {
	x := c.org.peekAuth().exports.Get(c.r.PathValue("export"))
	if x == nil {
		return nil, c.nothingAt("export")
	}
	return x, nil
}

func getAuthExport(c *call) (any, error) {
	x, err := c.authExport()
	if err != nil {
		return nil, err
	}
	if x.expired(c.now) {
		return nil, authExportGone(x, c.now)
	}
	return c.w.renderAuthExportAnswer(x, c.now), nil
}

// authExportGone is the answer for an expired export: 410 with its record,
// as the API gives it.
func authExportGone(x *authExportRec, now time.Time) *apiError {
	e := errf(http.StatusGone, "gone", "auth attempt export %s expired at %s", x.id, platform.NewTimestamp(x.expires))
	e.body = renderAuthExport(x, now)
	return e
}

// downloadAuthExport answers with a redirect to the ready export's signed
// address, valid for Timings.AuthAttemptExportURL (and not past the
// export's expiry), and the export's record as the body.
func downloadAuthExport(c *call) (any, error) {
	x, err := c.authExport()
	if err != nil {
		return nil, err
	}
	switch {
	case x.expired(c.now):
		return nil, authExportGone(x, c.now)
	case x.state != platform.AuthAttemptExportReady:
		return nil, unprocessable("auth attempt export %s is %s; it can be downloaded once ready", x.id, x.state)
	}
	until := c.now.Add(c.w.timing.AuthAttemptExportURL)
	if x.expires.Before(until) {
		until = x.expires
	}
	path := authExportFilesPrefix + x.org.name + "/" + x.id
	return redirect{location: c.signedURL(path, until), body: renderAuthExport(x, c.now)}, nil
}

// newAuthExport files x, pending now: it runs Timings.AuthAttemptExportStart
// later (see authExportJob).
func (w *world) newAuthExport(x *authExportRec) {
	now := w.clock.Now()
	x.stamps = stamps{id: w.newID(), created: now, updated: now}
	x.state = platform.AuthAttemptExportPending
	x.org.authOf().exports.Add(x)
	w.startFlight(x.id)
	w.clock.After(w.timing.AuthAttemptExportStart, authExportJob{x: x, from: platform.AuthAttemptExportPending})
}

// stepAuthExport moves x on from the state its job was scheduled in:
// pending to running, running to ready (or failed, when a test injected a
// failure with FailNext).
func (w *world) stepAuthExport(x *authExportRec) {
	now := w.clock.Now()
	x.updated = now
	switch x.state {
	case platform.AuthAttemptExportPending:
		x.state, x.started = platform.AuthAttemptExportRunning, now
		w.clock.After(w.timing.AuthAttemptExport, authExportJob{x: x, from: platform.AuthAttemptExportRunning})
		return
	case platform.AuthAttemptExportRunning:
		x.finished = now
		if w.takeFailure(x.id) {
			x.state, x.failure = platform.AuthAttemptExportFailed, "generation_failed"
			x.detail = "the export could not be generated (a failure injected with FailNext)"
		} else {
			x.state, x.expires = platform.AuthAttemptExportReady, now.Add(w.timing.AuthAttemptExportTTL)
			x.rows = x.org.peekAuth().exported(x)
		}
	}
	w.endFlight(x.id)
}

// exported returns the attempts x exports: those of its window that its
// filters match, oldest first.
func (a *orgAuth) exported(x *authExportRec) []platform.AuthAttempt {
	lo, _ := slices.BinarySearchFunc(a.attempts, x.startAt, func(at platform.AuthAttempt, t time.Time) int { return at.At.Compare(t) })
	out := []platform.AuthAttempt{}
	for _, at := range a.attempts[lo:] {
		if !at.At.Before(x.endAt) {
			break
		}
		if x.matches(&at) {
			out = append(out, at)
		}
	}
	return out
}

// matches reports whether x's filters keep at: each list that is set
// must hold a value of the attempt's.
func (x *authExportRec) matches(at *platform.AuthAttempt) bool {
	f := &x.filters
	in := func(list []string, v string) bool { return len(list) == 0 || slices.Contains(list, v) }
	if len(f.SourceIPs) > 0 {
		addr, err := netip.ParseAddr(at.SourceIP)
		if err != nil || !slices.ContainsFunc(f.SourceIPs, func(s string) bool {
			p, err := parseCIDR(s)
			return err == nil && p.Contains(addr)
		}) {
			return false
		}
	}
	return (len(f.Branches) == 0 || slices.Contains(x.branchIDs, at.BranchID)) &&
		(len(f.Outcomes) == 0 || slices.Contains(f.Outcomes, at.Outcome)) &&
		in(f.Usernames, at.Username) && in(f.StartupDatabases, at.StartupDatabase) &&
		(len(f.FailureReasons) == 0 || slices.Contains(f.FailureReasons, at.FailureReason)) &&
		(len(f.BackendRoutes) == 0 || slices.Contains(f.BackendRoutes, at.BackendRoute))
}

// renderAuthExportAnswer is an export's record with the wait a client should
// take before polling again, while it is generated.
func (w *world) renderAuthExportAnswer(x *authExportRec, now time.Time) any {
	body := renderAuthExport(x, now)
	var next time.Time
	switch x.state {
	case platform.AuthAttemptExportPending:
		next = x.created.Add(w.timing.AuthAttemptExportStart)
	case platform.AuthAttemptExportRunning:
		next = x.started.Add(w.timing.AuthAttemptExport)
	default:
		return body
	}
	return retryLater{after: max(next.Sub(now), time.Second), body: body}
}

// renderAuthExport renders an export as the API shows it at now.
func renderAuthExport(x *authExportRec, now time.Time) *platform.AuthAttemptExport {
	out := &platform.AuthAttemptExport{
		ID:                x.id,
		State:             x.state,
		Expired:           x.expired(now),
		StartAt:           platform.NewTimestamp(x.startAt),
		EndAt:             platform.NewTimestamp(x.endAt),
		Filters:           x.filters,
		Format:            x.format,
		ResolvedBranchIDs: slices.Clone(x.branchIDs),
		CreatedAt:         platform.NewTimestamp(x.created),
		StartedAt:         ptrTime(x.started),
		FinishedAt:        ptrTime(x.finished),
		ExpiresAt:         ptrTime(x.expires),
		FailureReason:     x.failure,
		FailureDetail:     x.detail,
	}
	if x.state == platform.AuthAttemptExportReady {
		out.GeneratedAt = ptrTime(x.finished)
	}
	if x.state == platform.AuthAttemptExportFailed || out.Expired {
		out.RecoveryHint = authExportRecoveryHint
	}
	return out
}

// serveAuthExportFile serves an export's archive at its signed address:
// 403 for a changed address, 410 once the address or the export has
// expired, 404 for an export that is not ready. It needs no credentials:
// the signature is the authorization. The archive is built under the
// server's lock and written after it is released.
func (s *Server) serveAuthExportFile(w http.ResponseWriter, r *http.Request) {
	name, data, err := s.authExportFile(r)
	if err != nil {
		writeError(w, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/zip")
	h.Set("Content-Disposition", `attachment; filename="`+name+`"`)
	h.Set("Content-Length", fmt.Sprint(len(data)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(data)
}

// authExportFile builds the archive at r's signed address and names it.
func (s *Server) authExportFile(r *http.Request) (string, []byte, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	now := s.world.clock.Now()
	if err := s.checkSigned(r, now); err != nil {
		return "", nil, err
	}
	var x *authExportRec
	if org := s.world.orgs[r.PathValue("organization")]; org != nil {
		x = org.peekAuth().exports.Get(r.PathValue("export"))
	}
	switch {
	case x == nil || x.state != platform.AuthAttemptExportReady:
		return "", nil, notFound()
	case x.expired(now):
		return "", nil, errf(http.StatusGone, "gone", "auth attempt export %s expired at %s", x.id, platform.NewTimestamp(x.expires))
	}
	data, err := authExportArchive(x)
	return "auth-attempts-" + x.org.name + "-" + x.id + ".zip", data, err
}

// authExportArchive is x's archive: a ZIP file of one file in x's format,
// dated when x was generated. The csv and parquet files have the columns
// of platform.AuthAttemptCSVHeader, every value a string; jsonl has the
// rows as JSON objects.
func authExportArchive(x *authExportRec) ([]byte, error) {
	var file bytes.Buffer
	switch x.format {
	case platform.AuthAttemptExportParquet:
		rows := make([][]string, len(x.rows))
		for i := range x.rows {
			rows[i] = x.rows[i].CSVRecord()
		}
		if err := parquet.Write(&file, platform.AuthAttemptCSVHeader, rows); err != nil {
			return nil, err
		}
	case platform.AuthAttemptExportCSV:
		cw := csv.NewWriter(&file)
		_ = cw.Write(platform.AuthAttemptCSVHeader)
		for i := range x.rows {
			_ = cw.Write(x.rows[i].CSVRecord())
		}
		cw.Flush()
		if err := cw.Error(); err != nil {
			return nil, err
		}
	default:
		enc := json.NewEncoder(&file)
		for i := range x.rows {
			if err := enc.Encode(&x.rows[i]); err != nil {
				return nil, err
			}
		}
	}
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	f, err := zw.CreateHeader(&zip.FileHeader{Name: "auth-attempts-" + x.id + "." + string(x.format), Method: zip.Deflate, Modified: x.finished.UTC()})
	if err != nil {
		return nil, err
	}
	if _, err := f.Write(file.Bytes()); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// AuthAttempt is an attempt to connect to a branch, for
// [Server.RecordAuthAttempts]: what the client sent and where from. The
// server decides its outcome.
type AuthAttempt struct {
	// Username is the username the client gave: a password's username
	// (MySQL) or a role's (PostgreSQL, with or without the ".<branch ID>"
	// suffix). Required.
	Username string
	// SourceAddress is the client's IP address. Required.
	SourceAddress string
	// Database and Branch name the live branch the attempt was for.
	// Required.
	Database, Branch string
	// At is when the attempt was made, not after the clock's now; zero
	// means now.
	At time.Time
	// StartupDatabase is the database name the client asked for; "" for
	// none.
	StartupDatabase string
	// BackendRoute is where the attempt was headed; "" means postgres for
	// a PostgreSQL branch and unknown for a MySQL one.
	BackendRoute platform.AuthAttemptBackendRoute
}

// RecordAuthAttempts records attempts to connect to branches of org, as if
// clients had made them, and returns them as exports show them, with the
// outcome the server decided from its credentials at the time of the call:
// a live password or role with the username allows the attempt; an
// expired one denies it (authorization_failed), as does an address its
// CIDRs or the database's IP restrictions do not admit (ip_not_allowed); a
// deleted one or none at all denies it (unknown_user). The failure detail
// names the credential. Either every attempt is recorded or, when one is
// refused (a missing field, a bad address, an unknown branch, a time after
// now), none is, and the error names the attempt and its field.
func (s *Server) RecordAuthAttempts(org string, attempts ...AuthAttempt) ([]platform.AuthAttempt, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.world.orgs[org]
	if o == nil {
		return nil, fmt.Errorf("fake: RecordAuthAttempts: no organization %q", org)
	}
	now := s.world.clock.Now()
	rows := make([]platform.AuthAttempt, len(attempts))
	for i := range attempts {
		row, err := s.world.decideAuthAttempt(o, &attempts[i], now)
		if err != nil {
			return nil, fmt.Errorf("fake: RecordAuthAttempts: attempts[%d]: %w", i, err)
		}
		rows[i] = row
	}
	a := o.authOf()
	for _, row := range rows {
		i, _ := slices.BinarySearchFunc(a.attempts, row.At.Time, func(at platform.AuthAttempt, t time.Time) int {
			return cmp.Or(at.At.Compare(t), -1) // after the attempts of the same time
		})
		a.attempts = slices.Insert(a.attempts, i, row)
	}
	return rows, nil
}

// decideAuthAttempt checks an attempt and decides its outcome at now.
func (w *world) decideAuthAttempt(org *orgRec, in *AuthAttempt, now time.Time) (platform.AuthAttempt, error) {
	var row platform.AuthAttempt
	switch {
	case in.Username == "":
		return row, fmt.Errorf("username is required")
	case in.Database == "" || in.Branch == "":
		return row, fmt.Errorf("database and branch are required")
	}
	addr, err := netip.ParseAddr(in.SourceAddress)
	if err != nil || addr.Zone() != "" {
		return row, fmt.Errorf("source address %q is not an IP address", in.SourceAddress)
	}
	addr = addr.Unmap()
	at := in.At
	if at.IsZero() {
		at = now
	}
	if at.After(now) {
		return row, fmt.Errorf("time %s is after the clock's now, %s", at.Format(time.RFC3339Nano), now.Format(time.RFC3339Nano))
	}
	b, err := w.findBranch(org.name, in.Database, in.Branch)
	if err != nil {
		return row, err
	}
	route := in.BackendRoute
	if route == "" {
		route = platform.AuthRouteUnknown
		if b.db.kind == platform.KindPostgreSQL {
			route = platform.AuthRoutePostgres
		}
	}
	if !slices.Contains(authRoutes, route) {
		return row, fmt.Errorf("backend route %q is not one of postgres, pgbouncer, unknown", route)
	}
	row = platform.AuthAttempt{
		At: platform.NewTimestamp(at), Username: in.Username, SourceIP: addr.String(),
		Database: b.db.name, Branch: b.name, BranchID: b.id,
		StartupDatabase: in.StartupDatabase, BackendRoute: route, Outcome: platform.AuthAttemptAllow,
	}
	var reason platform.AuthAttemptFailureReason
	var detail string
	if b.db.kind == platform.KindPostgreSQL {
		reason, detail = roleVerdict(b, in.Username, addr, now)
	} else {
		reason, detail = passwordVerdict(org, b, in.Username, addr, now)
	}
	if reason != "" {
		row.Outcome, row.FailureReason, row.FailureDetail = platform.AuthAttemptDeny, reason, detail
	}
	return row, nil
}

// passwordVerdict decides an attempt with username on MySQL branch b:
// no reason when a live password with the username admits addr.
func passwordVerdict(org *orgRec, b *branchRec, username string, addr netip.Addr, now time.Time) (platform.AuthAttemptFailureReason, string) {
	var passwords []*passwordRec
	if m := b.more.peek(); m != nil {
		passwords = m.passwords.All()
	}
	for _, pw := range passwords {
		if pw.username != username {
			continue
		}
		switch {
		case pw.expired(now):
			return platform.AuthFailedAuthorization, fmt.Sprintf("password %s expired at %s", pw.name, platform.NewTimestamp(pw.expiresAt))
		case len(pw.cidrs) > 0 && !admits(pw.cidrs, addr):
			return platform.AuthFailedIPNotAllowed, fmt.Sprintf("password %s admits only %s", pw.name, strings.Join(pw.cidrs, ", "))
		}
		return "", ""
	}
	if d, ok := org.peekAuth().deletedPasswords[username]; ok && d.branchID == b.id {
		return platform.AuthFailedUnknownUser, fmt.Sprintf("password %s was deleted at %s", d.name, platform.NewTimestamp(d.at))
	}
	return platform.AuthFailedUnknownUser, fmt.Sprintf("no password of branch %s has username %q", b.name, username)
}

// roleVerdict decides an attempt with username on PostgreSQL branch b: no
// reason when a live role with the username may connect from addr.
func roleVerdict(b *branchRec, username string, addr netip.Addr, now time.Time) (platform.AuthAttemptFailureReason, string) {
	if r := b.roles.lookup(username, false); r != nil && !r.dropped {
		switch {
		case r.expired(now):
			return platform.AuthFailedAuthorization, fmt.Sprintf("role %s expired at %s", r.name, platform.NewTimestamp(r.expiresAt))
		case !ipRestrictionsAdmit(b.db, r, addr):
			return platform.AuthFailedIPNotAllowed, fmt.Sprintf("the IP restrictions of database %s do not admit %s for role %s", b.db.name, addr, r.baseUsername)
		}
		return "", ""
	}
	for _, r := range slices.Backward(b.roles.every) {
		if r.dropped && (username == r.username() || username == r.baseUsername) {
			return platform.AuthFailedUnknownUser, fmt.Sprintf("role %s was deleted at %s", r.name, platform.NewTimestamp(r.droppedAt))
		}
	}
	return platform.AuthFailedUnknownUser, fmt.Sprintf("no role of branch %s has username %q", b.name, username)
}

// admits reports whether one of cidrs (canonical) holds addr.
func admits(cidrs []string, addr netip.Addr) bool {
	return slices.ContainsFunc(cidrs, func(s string) bool {
		p, err := parseCIDR(s)
		return err == nil && p.Contains(addr)
	})
}

// ipRestrictionsAdmit reports whether db's IP allowlist lets role r
// connect from addr: every address when the list is empty, else an entry
// for every role or for r that holds addr. An entry names a PostgreSQL
// role, which is a role's base username (its name is the API's label).
func ipRestrictionsAdmit(db *dbRec, r *roleRec, addr netip.Addr) bool {
	m := db.more.peek()
	if m == nil || m.ipRestrictions.Len() == 0 {
		return true
	}
	entries := m.ipRestrictions.All()
	return slices.ContainsFunc(entries, func(e *ipRestrictionRec) bool {
		return (e.role == "" || e.role == r.baseUsername) && admits(e.cidrs, addr)
	})
}

// passwordDeleted remembers a deleted password's username, so that an
// attempt with it is denied as a deleted password's rather than an unknown
// username's.
func (w *world) passwordDeleted(pw *passwordRec, now time.Time) {
	a := pw.branch.db.org.authOf()
	if a.deletedPasswords == nil {
		a.deletedPasswords = map[string]deletedPassword{}
	}
	a.deletedPasswords[pw.username] = deletedPassword{branchID: pw.branch.id, name: pw.name, at: now}
}
