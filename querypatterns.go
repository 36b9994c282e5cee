package platform

import (
	"context"
	"iter"
)

// QueryPatternsReportState is the state of a query-patterns report.
type QueryPatternsReportState string

// The report states. A report starts pending and is generated in the
// background: it ends completed, when it can be downloaded, or failed.
const (
	QueryPatternsReportPending   QueryPatternsReportState = "pending"
	QueryPatternsReportCompleted QueryPatternsReportState = "completed"
	QueryPatternsReportFailed    QueryPatternsReportState = "failed"
)

// Done reports whether the report has reached a state it will not leave.
func (s QueryPatternsReportState) Done() bool {
	return s == QueryPatternsReportCompleted || s == QueryPatternsReportFailed
}

// QueryPatternsReport is a report of a branch's query patterns: its
// record, which says whether it is ready to download.
type QueryPatternsReport struct {
	ID    string                   `json:"id"`
	Type  string                   `json:"type"`
	State QueryPatternsReportState `json:"state"`
	// FinishedAt is when the report completed or failed; nil while pending.
	FinishedAt *Timestamp `json:"finished_at"`
	CreatedAt  Timestamp  `json:"created_at"`
	// URL is the report's address in the API.
	URL string `json:"url"`
	// DownloadURL is the address [QueryPatternReportsService.Download]
	// fetches the report's contents through.
	DownloadURL string `json:"download_url"`
	Actor       *Actor `json:"actor"`
}

// QueryPatternsDownload is a downloaded report: its record, and the
// contents of its file.
type QueryPatternsDownload struct {
	QueryPatternsReport
	QueryPatternsFile
}

// QueryPatternsFile is the contents of a report's file, a JSON document.
type QueryPatternsFile struct {
	// GeneratedAt is when the report was generated: it covers the queries
	// the branch ran until then.
	GeneratedAt Timestamp `json:"generated_at"`
	// Patterns are the branch's query patterns, most run first.
	Patterns []*QueryPattern `json:"patterns"`
}

// QueryPattern is the traffic of one query pattern: every query that
// differs from the others only in its literals.
type QueryPattern struct {
	// Fingerprint identifies the pattern.
	Fingerprint string `json:"fingerprint"`
	// SQL is the pattern's normalized text, with its literals replaced.
	SQL string `json:"normalized_sql"`
	// Keyspace is the keyspace the pattern's queries ran in.
	Keyspace string `json:"keyspace"`
	// Tables are the tables the pattern reads or writes.
	Tables []string `json:"tables"`
	// Count is how many times the pattern ran; ErrorCount how many of those
	// failed.
	Count      int64 `json:"count"`
	ErrorCount int64 `json:"error_count"`
	// RowsRead, RowsReturned and RowsAffected are totals over every run.
	RowsRead     int64 `json:"rows_read"`
	RowsReturned int64 `json:"rows_returned"`
	RowsAffected int64 `json:"rows_affected"`
	// TotalDurationMillis is the time every run took together; the
	// latencies are the percentiles and maximum of one run's time.
	TotalDurationMillis float64 `json:"total_duration_millis"`
	LatencyP50Millis    float64 `json:"latency_p50_millis"`
	LatencyP99Millis    float64 `json:"latency_p99_millis"`
	LatencyMaxMillis    float64 `json:"latency_max_millis"`
	// FirstSeenAt and LastSeenAt are the times of the first and last run.
	FirstSeenAt Timestamp `json:"first_seen_at"`
	LastSeenAt  Timestamp `json:"last_seen_at"`
}

// QueryPatternReportsService generates and downloads reports of the query
// patterns a branch runs.
type QueryPatternReportsService service

func queryPatternsPath(org, db, branch string) string {
	return pathf("v1/organizations/%s/databases/%s/branches/%s/query-patterns", org, db, branch)
}

// ListQueryPatternsReportsParams selects a page of a branch's reports.
type ListQueryPatternsReportsParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	CursorParams
}

// List returns a page of a branch's query-patterns reports, newest first.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/query-patterns
func (s *QueryPatternReportsService) List(ctx context.Context, p *ListQueryPatternsReportsParams) (*CursorPage[QueryPatternsReport], error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch); err != nil {
		return nil, err
	}
	return listCursorPage[QueryPatternsReport](ctx, s.client, queryPatternsPath(p.Organization, p.Database, p.Branch), p)
}

// All ranges over every query-patterns report of a branch, newest first.
func (s *QueryPatternReportsService) All(ctx context.Context, p *ListQueryPatternsReportsParams) iter.Seq2[*QueryPatternsReport, error] {
	return allCursored(ctx, p, s.List)
}

// CreateQueryPatternsReportParams asks for a report of a branch's query
// patterns.
type CreateQueryPatternsReportParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
}

// Create starts a report of a branch's query patterns. It starts pending;
// [QueryPatternReportsService.Wait] waits until it is ready and
// [QueryPatternReportsService.Download] fetches it.
//
// API: POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/query-patterns
func (s *QueryPatternReportsService) Create(ctx context.Context, p *CreateQueryPatternsReportParams) (*QueryPatternsReport, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch); err != nil {
		return nil, err
	}
	r := new(QueryPatternsReport)
	return orNil(r, s.client.post(ctx, queryPatternsPath(p.Organization, p.Database, p.Branch), nil, r))
}

// GetQueryPatternsReportParams names a query-patterns report.
type GetQueryPatternsReportParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	ID           string `json:"-" url:"-"`
}

// DeleteQueryPatternsReportParams names the report to delete.
type DeleteQueryPatternsReportParams = GetQueryPatternsReportParams

// DownloadQueryPatternsReportParams names the report to download.
type DownloadQueryPatternsReportParams = GetQueryPatternsReportParams

func (p *GetQueryPatternsReportParams) check() error {
	return required("organization", p.Organization, "database", p.Database, "branch", p.Branch, "id", p.ID)
}

func (p *GetQueryPatternsReportParams) path(suffix string) string {
	return queryPatternsPath(p.Organization, p.Database, p.Branch) + pathf("/%s", p.ID) + suffix
}

// Get returns a query-patterns report's record, whose state says whether
// it is ready.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/query-patterns/{id}
func (s *QueryPatternReportsService) Get(ctx context.Context, p *GetQueryPatternsReportParams) (*QueryPatternsReport, error) {
	return callOn[QueryPatternsReport](ctx, s.client, "GET", p, "", nil, nil)
}

// Delete deletes a query-patterns report; a pending one is no longer
// generated.
//
// API: DELETE /v1/organizations/{organization}/databases/{database}/branches/{branch}/query-patterns/{id}
func (s *QueryPatternReportsService) Delete(ctx context.Context, p *DeleteQueryPatternsReportParams) error {
	return doOn(ctx, s.client, "DELETE", p, "", nil, nil)
}

// Download fetches a completed report: the API answers with a redirect to
// a short-lived signed address, which Download follows without sending the
// client's credentials there (see [Client.fetchSigned]). A report not
// completed yet is an [ErrUnprocessable] error; an address that has expired
// (the caller waited too long between the two requests) fails with status
// 410, and calling Download again gets a fresh one.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/query-patterns/{id}/download
func (s *QueryPatternReportsService) Download(ctx context.Context, p *DownloadQueryPatternsReportParams) (*QueryPatternsDownload, error) {
	p = orZero(p)
	if err := p.check(); err != nil {
		return nil, err
	}
	d := new(QueryPatternsDownload)
	if err := s.client.fetchSigned(ctx, p.path("/download"), &d.QueryPatternsReport, &d.QueryPatternsFile); err != nil {
		return nil, err
	}
	return d, nil
}

// Wait polls a query-patterns report until it is no longer pending,
// and returns it. A report that failed gives a [*StateError] naming that
// state, with the report.
func (s *QueryPatternReportsService) Wait(ctx context.Context, p *GetQueryPatternsReportParams) (*QueryPatternsReport, error) {
	return waitForGet(ctx, s.client, func(ctx context.Context) (*QueryPatternsReport, error) {
		return s.Get(ctx, p)
	}, func(r *QueryPatternsReport) (bool, error) {
		if !r.State.Done() {
			return false, nil
		}
		if r.State != QueryPatternsReportCompleted {
			return true, &StateError{Resource: "query-patterns report " + r.ID, State: string(r.State), Want: []string{string(QueryPatternsReportCompleted)}}
		}
		return true, nil
	})
}
