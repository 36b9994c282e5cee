package platform

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path"
	"strings"
	"time"
)

// AuthAttemptExportState is the state of an authentication-attempt export.
type AuthAttemptExportState string

// The export states. An export starts pending, runs, and ends ready (its
// archive can be downloaded until it expires) or failed.
const (
	AuthAttemptExportPending AuthAttemptExportState = "pending"
	AuthAttemptExportRunning AuthAttemptExportState = "running"
	AuthAttemptExportReady   AuthAttemptExportState = "ready"
	AuthAttemptExportFailed  AuthAttemptExportState = "failed"
)

// Done reports whether the export has reached a state it will not leave.
func (s AuthAttemptExportState) Done() bool {
	return s == AuthAttemptExportReady || s == AuthAttemptExportFailed
}

// AuthAttemptExportFormat is the format of the file in an export's archive.
type AuthAttemptExportFormat string

// The export formats: one JSON object per line, comma-separated values
// with a header row, or Parquet.
const (
	AuthAttemptExportJSONL   AuthAttemptExportFormat = "jsonl"
	AuthAttemptExportCSV     AuthAttemptExportFormat = "csv"
	AuthAttemptExportParquet AuthAttemptExportFormat = "parquet"
)

// AuthAttemptOutcome says whether an authentication attempt was let in.
type AuthAttemptOutcome string

// The outcomes of an attempt.
const (
	AuthAttemptAllow AuthAttemptOutcome = "allow"
	AuthAttemptDeny  AuthAttemptOutcome = "deny"
)

// AuthAttemptFailureReason says why an attempt was denied.
type AuthAttemptFailureReason string

// The reasons an attempt is denied.
const (
	// AuthFailedBadPassword: the password did not match the user's.
	AuthFailedBadPassword AuthAttemptFailureReason = "bad_password"
	// AuthFailedUnknownUser: no credential has the username (it never
	// existed, or was deleted).
	AuthFailedUnknownUser AuthAttemptFailureReason = "unknown_user"
	// AuthFailedAuthorization: the credential exists but may not connect
	// (it expired).
	AuthFailedAuthorization AuthAttemptFailureReason = "authorization_failed"
	// AuthFailedIPNotAllowed: the source address is outside the addresses
	// the credential or the database admits.
	AuthFailedIPNotAllowed AuthAttemptFailureReason = "ip_not_allowed"
	// AuthFailedOther: any other reason.
	AuthFailedOther AuthAttemptFailureReason = "other"
)

// AuthAttemptBackendRoute is where an attempt was headed: the database
// server itself or its connection pooler.
type AuthAttemptBackendRoute string

// The backend routes.
const (
	AuthRoutePostgres  AuthAttemptBackendRoute = "postgres"
	AuthRoutePgBouncer AuthAttemptBackendRoute = "pgbouncer"
	AuthRouteUnknown   AuthAttemptBackendRoute = "unknown"
)

// AuthAttemptFilters select the attempts an export holds. Each list keeps
// the attempts that match any of its values; an empty list keeps all.
type AuthAttemptFilters struct {
	// SourceIPs are addresses or CIDR ranges ("203.0.113.0/24").
	SourceIPs []string `json:"source_ips,omitempty"`
	// Branches are branch IDs or "database/branch" names.
	Branches []string `json:"branches,omitempty"`
	// Outcomes keep allowed or denied attempts.
	Outcomes []AuthAttemptOutcome `json:"outcomes,omitempty"`
	// Usernames are exact usernames.
	Usernames []string `json:"usernames,omitempty"`
	// StartupDatabases are the database names the clients asked for at
	// connection; "" keeps the attempts that named none.
	StartupDatabases []string `json:"startup_databases,omitempty"`
	// FailureReasons keep denied attempts denied for these reasons.
	FailureReasons []AuthAttemptFailureReason `json:"failure_reasons,omitempty"`
	// BackendRoutes keep the attempts headed to these routes.
	BackendRoutes []AuthAttemptBackendRoute `json:"backend_routes,omitempty"`
}

// AuthAttemptExport is an export of an organization's authentication
// attempts over a time window: its record, which says whether its archive
// is ready.
type AuthAttemptExport struct {
	ID    string                 `json:"id"`
	State AuthAttemptExportState `json:"state"`
	// Expired is true once the archive is no longer kept (see ExpiresAt).
	Expired bool `json:"expired"`
	// StartAt and EndAt bound the attempts exported: from StartAt
	// (inclusive) to EndAt (exclusive).
	StartAt Timestamp               `json:"start_at"`
	EndAt   Timestamp               `json:"end_at"`
	Filters AuthAttemptFilters      `json:"filters"`
	Format  AuthAttemptExportFormat `json:"format"`
	// ResolvedBranchIDs are the IDs of the branches the Branches filter
	// names.
	ResolvedBranchIDs []string   `json:"resolved_branch_public_ids"`
	CreatedAt         Timestamp  `json:"created_at"`
	StartedAt         *Timestamp `json:"started_at"`
	GeneratedAt       *Timestamp `json:"generated_at"`
	FinishedAt        *Timestamp `json:"finished_at"`
	// ExpiresAt is when a ready export's archive stops being served.
	ExpiresAt *Timestamp `json:"expires_at"`
	// FailureReason, FailureDetail and RecoveryHint say why a failed
	// export failed and what to do; RecoveryHint also says what to do
	// about an expired one. Empty otherwise.
	FailureReason string `json:"failure_reason"`
	FailureDetail string `json:"failure_detail"`
	RecoveryHint  string `json:"recovery_hint"`
}

// AuthAttempt is one authentication attempt, a row of an export's file.
type AuthAttempt struct {
	// At is when the attempt was made.
	At Timestamp `json:"attempted_at"`
	// Username is the username the client gave.
	Username string `json:"username"`
	// SourceIP is the address the client connected from.
	SourceIP string `json:"source_ip"`
	// Database, Branch and BranchID name the branch the attempt was for.
	Database string `json:"database"`
	Branch   string `json:"branch"`
	BranchID string `json:"branch_public_id"`
	// StartupDatabase is the database name the client asked for, or "".
	StartupDatabase string                  `json:"startup_database"`
	BackendRoute    AuthAttemptBackendRoute `json:"backend_route"`
	Outcome         AuthAttemptOutcome      `json:"outcome"`
	// FailureReason is empty for an allowed attempt; FailureDetail says
	// more (which credential, expired or deleted when).
	FailureReason AuthAttemptFailureReason `json:"failure_reason"`
	FailureDetail string                   `json:"failure_detail"`
}

// AuthAttemptCSVHeader is the header row of an export's CSV file, the JSON
// names of [AuthAttempt]'s fields in order.
var AuthAttemptCSVHeader = []string{
	"attempted_at", "username", "source_ip", "database", "branch", "branch_public_id",
	"startup_database", "backend_route", "outcome", "failure_reason", "failure_detail",
}

// CSVRecord is a's row of an export's CSV file, in
// [AuthAttemptCSVHeader]'s order.
func (a *AuthAttempt) CSVRecord() []string {
	at, _ := a.At.MarshalJSON()
	return []string{
		strings.Trim(string(at), `"`), a.Username, a.SourceIP, a.Database, a.Branch, a.BranchID,
		a.StartupDatabase, string(a.BackendRoute), string(a.Outcome), string(a.FailureReason), a.FailureDetail,
	}
}

// parseAuthAttemptCSV reads a row in AuthAttemptCSVHeader's order.
func parseAuthAttemptCSV(rec []string) (*AuthAttempt, error) {
	if len(rec) != len(AuthAttemptCSVHeader) {
		return nil, fmt.Errorf("a row of %d fields, want %d", len(rec), len(AuthAttemptCSVHeader))
	}
	var at Timestamp
	if err := at.UnmarshalJSON([]byte(`"` + rec[0] + `"`)); err != nil {
		return nil, fmt.Errorf("attempted_at: %w", err)
	}
	return &AuthAttempt{
		At: at, Username: rec[1], SourceIP: rec[2], Database: rec[3], Branch: rec[4], BranchID: rec[5],
		StartupDatabase: rec[6], BackendRoute: AuthAttemptBackendRoute(rec[7]), Outcome: AuthAttemptOutcome(rec[8]),
		FailureReason: AuthAttemptFailureReason(rec[9]), FailureDetail: rec[10],
	}, nil
}

// AuthAttemptExportDownload is a downloaded export: its record, and its
// archive as it was served, a ZIP file holding one file of the export's
// format.
type AuthAttemptExportDownload struct {
	AuthAttemptExport
	// Archive is the ZIP file's bytes.
	Archive []byte
}

// Attempts reads the attempts of the archive's file, in its order
// (oldest first). It reads the jsonl and csv formats; a Parquet file is
// returned as an error naming its format.
func (d *AuthAttemptExportDownload) Attempts() ([]*AuthAttempt, error) {
	zr, err := zip.NewReader(bytes.NewReader(d.Archive), int64(len(d.Archive)))
	if err != nil {
		return nil, fmt.Errorf("platform: export archive: %w", err)
	}
	if len(zr.File) != 1 {
		return nil, fmt.Errorf("platform: export archive holds %d files, want 1", len(zr.File))
	}
	f := zr.File[0]
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("platform: export archive: %s: %w", f.Name, err)
	}
	defer rc.Close()
	out := []*AuthAttempt{}
	switch ext := strings.TrimPrefix(path.Ext(f.Name), "."); AuthAttemptExportFormat(ext) {
	case AuthAttemptExportJSONL:
		sc := bufio.NewScanner(rc)
		sc.Buffer(nil, 1<<20)
		for line := 1; sc.Scan(); line++ {
			a := new(AuthAttempt)
			if err := json.Unmarshal(sc.Bytes(), a); err != nil {
				return nil, fmt.Errorf("platform: export archive: %s line %d: %w", f.Name, line, err)
			}
			out = append(out, a)
		}
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("platform: export archive: %s: %w", f.Name, err)
		}
	case AuthAttemptExportCSV:
		r := csv.NewReader(rc)
		recs, err := r.ReadAll()
		if err != nil {
			return nil, fmt.Errorf("platform: export archive: %s: %w", f.Name, err)
		}
		if len(recs) == 0 || strings.Join(recs[0], ",") != strings.Join(AuthAttemptCSVHeader, ",") {
			return nil, fmt.Errorf("platform: export archive: %s: the first row is not the header %v", f.Name, AuthAttemptCSVHeader)
		}
		for i, rec := range recs[1:] {
			a, err := parseAuthAttemptCSV(rec)
			if err != nil {
				return nil, fmt.Errorf("platform: export archive: %s row %d: %w", f.Name, i+2, err)
			}
			out = append(out, a)
		}
	default:
		return nil, fmt.Errorf("platform: export archive: %s is of format %q, which Attempts does not read", f.Name, ext)
	}
	return out, nil
}

// AuthAttemptExportExpiredError is the error of a request for an export
// whose archive has expired: the API answers 410 with the export's record.
// It matches [ErrGone] with [errors.Is].
type AuthAttemptExportExpiredError struct {
	// Export is the expired export; its RecoveryHint says what to do.
	Export *AuthAttemptExport
	// Err is the API's answer.
	Err *Error
}

// Error implements error.
func (e *AuthAttemptExportExpiredError) Error() string {
	return "platform: auth attempt export " + e.Export.ID + " expired: " + e.Export.RecoveryHint
}

// Unwrap returns the API's answer.
func (e *AuthAttemptExportExpiredError) Unwrap() error { return e.Err }

// expiredExport turns a 410 answering with an expired export's record (its
// body) into an *AuthAttemptExportExpiredError; other errors are returned
// as they are.
func expiredExport(err error, body []byte) error {
	var e *Error
	if !errors.As(err, &e) || e.StatusCode != http.StatusGone {
		return err
	}
	x := new(AuthAttemptExport)
	if json.Unmarshal(body, x) != nil || !x.Expired || x.ID == "" {
		return err
	}
	return &AuthAttemptExportExpiredError{Export: x, Err: e}
}

// AuthAttemptExportsService exports the authentication attempts on an
// organization's databases: who tried to connect, from where, and whether
// they were let in.
type AuthAttemptExportsService service

func authAttemptExportsPath(org string) string {
	return pathf("v1/organizations/%s/auth-attempt-exports", org)
}

// CreateAuthAttemptExportParams asks for an export of the attempts from
// StartAt (inclusive) to EndAt (exclusive).
type CreateAuthAttemptExportParams struct {
	Organization string                  `json:"-" url:"-"`
	StartAt      time.Time               `json:"start_at"`
	EndAt        time.Time               `json:"end_at"`
	Format       AuthAttemptExportFormat `json:"format"`
	// Filters, when set, keep only the attempts they match.
	Filters *AuthAttemptFilters `json:"filters,omitempty"`
}

// Create starts an export of an organization's authentication attempts. It
// starts pending; [AuthAttemptExportsService.Wait] waits until it is ready
// and [AuthAttemptExportsService.Download] fetches its archive.
//
// API: POST /v1/organizations/{organization}/auth-attempt-exports
func (s *AuthAttemptExportsService) Create(ctx context.Context, p *CreateAuthAttemptExportParams) (*AuthAttemptExport, error) {
	p = orZero(p)
	if err := required("organization", p.Organization); err != nil {
		return nil, err
	}
	x := new(AuthAttemptExport)
	return orNil(x, s.client.post(ctx, authAttemptExportsPath(p.Organization), p, x))
}

// GetAuthAttemptExportParams names an authentication-attempt export.
type GetAuthAttemptExportParams struct {
	Organization string `json:"-" url:"-"`
	ID           string `json:"-" url:"-"`
}

// DownloadAuthAttemptExportParams names the export to download.
type DownloadAuthAttemptExportParams = GetAuthAttemptExportParams

func (p *GetAuthAttemptExportParams) check() error {
	return required("organization", p.Organization, "id", p.ID)
}

func (p *GetAuthAttemptExportParams) path(suffix string) string {
	return authAttemptExportsPath(p.Organization) + pathf("/%s", p.ID) + suffix
}

// Get returns an export's record, whose state says whether it is ready.
// An export whose archive has expired is an
// [*AuthAttemptExportExpiredError].
//
// API: GET /v1/organizations/{organization}/auth-attempt-exports/{export}
func (s *AuthAttemptExportsService) Get(ctx context.Context, p *GetAuthAttemptExportParams) (*AuthAttemptExport, error) {
	var gone []byte
	x, err := callOn[AuthAttemptExport](keepErrorBody(ctx, &gone), s.client, "GET", p, "", nil, nil)
	return x, expiredExport(err, gone)
}

// Download fetches a ready export's archive: the API answers with a
// redirect to a short-lived signed address, which Download follows without
// sending the client's credentials there (see [Client.fetchSigned]). An
// export not ready yet is an [ErrUnprocessable] error; one whose archive
// has expired is an [*AuthAttemptExportExpiredError]; a signed address
// that expired before it was fetched fails with status 410, and calling
// Download again gets a fresh one.
//
// API: GET /v1/organizations/{organization}/auth-attempt-exports/{export}/download
func (s *AuthAttemptExportsService) Download(ctx context.Context, p *DownloadAuthAttemptExportParams) (*AuthAttemptExportDownload, error) {
	p = orZero(p)
	if err := p.check(); err != nil {
		return nil, err
	}
	d := new(AuthAttemptExportDownload)
	var gone []byte
	if err := s.client.fetchSigned(keepErrorBody(ctx, &gone), p.path("/download"), &d.AuthAttemptExport, &d.Archive); err != nil {
		return nil, expiredExport(err, gone)
	}
	return d, nil
}

// Wait polls an export until it is ready, and returns it. An export that
// failed gives a [*StateError] naming that state, with the export; its
// FailureReason says why.
func (s *AuthAttemptExportsService) Wait(ctx context.Context, p *GetAuthAttemptExportParams) (*AuthAttemptExport, error) {
	return waitForGet(ctx, s.client, func(ctx context.Context) (*AuthAttemptExport, error) {
		return s.Get(ctx, p)
	}, func(x *AuthAttemptExport) (bool, error) {
		if !x.State.Done() {
			return false, nil
		}
		if x.State != AuthAttemptExportReady {
			return true, &StateError{Resource: "auth attempt export " + x.ID, State: string(x.State), Want: []string{string(AuthAttemptExportReady)}}
		}
		return true, nil
	})
}
