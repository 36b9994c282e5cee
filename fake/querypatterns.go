package fake

import (
	"cmp"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/dbplatform/platform-go"
)

// qpReportRec is a report of the query patterns of a branch. It is
// generated Timings.QueryPatternsReport after it is asked for, from the
// queries the branch ran until then, which it keeps: a report does not
// change once completed.
type qpReportRec struct {
	stamps
	seq      uint64 // its place in its branch's list, from 1
	branch   *branchRec
	state    platform.QueryPatternsReportState
	actor    *userRec
	finished time.Time
	patterns []*platform.QueryPattern // when completed
	deleted  bool
}

// branchQPReports are the query-patterns reports of one branch, in the
// order they were asked for. The map is made on the first write; reads of
// the zero value find nothing.
type branchQPReports struct {
	list []*qpReportRec
	byID map[string]*qpReportRec
	// gone holds the places (seq) of deleted reports by ID, so that a
	// cursor naming one still places its page: a client that deletes a
	// page's reports and then asks for the page after its cursor_end.
	gone map[string]uint64
	seq  uint64 // of the last report asked for
}

// reportFilesPrefix is where the fake serves reports' files at signed
// addresses, outside /v1, below its own base URL:
// /_files/query-patterns/{organization}/{database}/{branch}/{id}. The API's
// download operation redirects there.
const reportFilesPrefix = "/_files/query-patterns/"

// reportFilesPattern is the route of reportFilesPrefix.
const reportFilesPattern = "GET " + reportFilesPrefix + "{organization}/{database}/{branch}/{id}"

func queryPatternRoutes() []route {
	return []route{
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/query-patterns", op: "list_generated_query_patterns_reports", cursor: true, handler: read(listQPReports)},
		{pattern: "POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/query-patterns", op: "create_query_patterns_report", handler: act(createQPReport)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/query-patterns/{id}", op: "get_query_patterns_report_status", handler: read(getQPReport)},
		{pattern: "DELETE /v1/organizations/{organization}/databases/{database}/branches/{branch}/query-patterns/{id}", op: "delete_query_patterns_report", handler: act(deleteQPReport)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/query-patterns/{id}/download", op: "get_query_patterns_report", handler: read(downloadQPReport)},
	}
}

func listQPReports(c *call) (any, error) {
	cur, err := c.parseCursor()
	if err != nil {
		return nil, err
	}
	rs := &c.branch.x().qpReports
	return cursorPageOf(cur, cursorList[*qpReportRec]{
		n:     len(rs.list),
		at:    func(i int) *qpReportRec { return rs.list[i] },
		key:   func(r *qpReportRec) uint64 { return r.seq },
		id:    func(r *qpReportRec) string { return r.id },
		parse: rs.place,
		keep:  func(*qpReportRec) bool { return true },
	}, renderQPReport(c))
}

// maxGoneQPReports bounds the places of deleted reports a branch keeps
// for cursors: those of the latest reports deleted, the ones a client
// paging while it deletes names.
const maxGoneQPReports = 1000

// maxQPSeq bounds a report's place in a snapshot: far beyond any count of
// reports, and a whole number JSON keeps exactly.
const maxQPSeq = 1 << 53

// place is the seq of the report id names, deleted or not, and whether
// the branch has had such a report.
func (rs *branchQPReports) place(id string) (uint64, bool) {
	if r := rs.byID[id]; r != nil {
		return r.seq, true
	}
	seq, ok := rs.gone[id]
	return seq, ok
}

func createQPReport(c *call) (any, error) {
	return renderQPReport(c)(c.w.newQPReport(c.branch, c.who.user)), nil
}

// qpReport finds the report the path names.
func (c *call) qpReport() (*qpReportRec, error) {
	r := c.branch.x().qpReports.byID[c.r.PathValue("id")]
	if r == nil {
		return nil, notFound()
	}
	return r, nil
}

func getQPReport(c *call) (any, error) {
	r, err := c.qpReport()
	if err != nil {
		return nil, err
	}
	return renderQPReport(c)(r), nil
}

func deleteQPReport(c *call) (any, error) {
	r, err := c.qpReport()
	if err != nil {
		return nil, err
	}
	c.w.removeQPReport(r)
	return nil, nil
}

// downloadQPReport answers with a redirect to the completed report's
// signed address, valid for Timings.QueryPatternsURL, and the report's
// record as the body, as the API does.
func downloadQPReport(c *call) (any, error) {
	r, err := c.qpReport()
	if err != nil {
		return nil, err
	}
	if r.state != platform.QueryPatternsReportCompleted {
		return nil, unprocessable("query-patterns report %s is %s; it can be downloaded once completed", r.id, r.state)
	}
	b := r.branch
	path := reportFilesPrefix + b.db.org.name + "/" + b.db.name + "/" + b.name + "/" + r.id
	return redirect{location: c.signedURL(path, c.now.Add(c.w.timing.QueryPatternsURL)), body: renderQPReport(c)(r)}, nil
}

// newQPReport asks for a report of b's query patterns: pending now,
// completed Timings.QueryPatternsReport later.
func (w *world) newQPReport(b *branchRec, actor *userRec) *qpReportRec {
	now := w.clock.Now()
	r := &qpReportRec{
		stamps: stamps{id: w.newID(), created: now, updated: now},
		branch: b,
		state:  platform.QueryPatternsReportPending,
		actor:  actor,
	}
	b.x().qpReports.add(r)
	w.startFlight(r.id)
	w.clock.After(w.timing.QueryPatternsReport, qpReportJob{r})
	return r
}

// add files r under its branch, last; a new report (seq 0) takes the
// next seq.
func (rs *branchQPReports) add(r *qpReportRec) {
	if rs.byID == nil {
		rs.byID = map[string]*qpReportRec{}
	}
	if r.seq == 0 {
		r.seq = rs.seq + 1
	}
	rs.seq = r.seq
	rs.list = append(rs.list, r)
	rs.byID[r.id] = r
}

// removeQPReport deletes r; a pending report is no longer generated.
func (w *world) removeQPReport(r *qpReportRec) {
	rs := &r.branch.x().qpReports
	rs.list = slices.DeleteFunc(rs.list, func(x *qpReportRec) bool { return x == r })
	delete(rs.byID, r.id)
	if rs.gone == nil {
		rs.gone = map[string]uint64{}
	}
	rs.gone[r.id] = r.seq
	if len(rs.gone) > maxGoneQPReports {
		// The oldest report's place goes: a cursor naming it is a 400.
		oldest := ""
		for id, seq := range rs.gone {
			if oldest == "" || seq < rs.gone[oldest] {
				oldest = id
			}
		}
		delete(rs.gone, oldest)
	}
	r.deleted = true
	w.endFlight(r.id)
}

// finishQPReport generates r from the queries its branch ran until now,
// or fails it when a test injected a failure.
func (w *world) finishQPReport(r *qpReportRec) {
	now := w.clock.Now()
	r.state, r.finished, r.updated = platform.QueryPatternsReportCompleted, now, now
	if w.takeFailure(r.id) {
		r.state = platform.QueryPatternsReportFailed
	} else {
		r.patterns = w.queryPatternsOf(r.branch, now)
	}
	w.endFlight(r.id)
}

// renderQPReport renders reports as the API shows them, with their
// addresses on the call's host.
func renderQPReport(c *call) func(r *qpReportRec) *platform.QueryPatternsReport {
	return func(r *qpReportRec) *platform.QueryPatternsReport {
		b := r.branch
		self := "/v1/organizations/" + b.db.org.name + "/databases/" + b.db.name + "/branches/" + b.name + "/query-patterns/" + r.id
		return &platform.QueryPatternsReport{
			ID:          r.id,
			Type:        "QueryPatternsDownload",
			State:       r.state,
			FinishedAt:  ptrTime(r.finished),
			CreatedAt:   platform.NewTimestamp(r.created),
			URL:         c.absURL(self, ""),
			DownloadURL: c.absURL(self+"/download", ""),
			Actor:       renderActor(r.actor),
		}
	}
}

// serveReportFile serves a report's file at its signed address (see
// checkSigned), or 404 when the report has been deleted since. It needs no credentials: the signature
// is the authorization. The file is rendered under the server's lock and
// written after it is released, so that a client slow to read it holds up
// no other request.
func (s *Server) serveReportFile(w http.ResponseWriter, r *http.Request) {
	file, err := s.reportFile(r)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, file)
}

// reportFile renders the file of the report at r's signed address, as
// JSON; see serveReportFile.
func (s *Server) reportFile(r *http.Request) (json.RawMessage, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.checkSigned(r, s.world.clock.Now()); err != nil {
		return nil, err
	}
	var rep *qpReportRec
	if org := s.world.orgs[r.PathValue("organization")]; org != nil {
		if db := org.dbByName[r.PathValue("database")]; db != nil {
			if b := db.branch(r.PathValue("branch")); b != nil {
				rep = b.x().qpReports.byID[r.PathValue("id")]
			}
		}
	}
	if rep == nil {
		return nil, notFound()
	}
	return json.Marshal(&platform.QueryPatternsFile{
		GeneratedAt: platform.NewTimestamp(rep.finished),
		Patterns:    rep.patterns,
	})
}

// queryPatternsOf aggregates the queries b ran until now by pattern, most
// run first (then by keyspace and fingerprint), for a report.
func (w *world) queryPatternsOf(b *branchRec, now time.Time) []*platform.QueryPattern {
	out := []*platform.QueryPattern{}
	for p, st := range b.traffic.byPattern(trafficFilter{to: now.Add(time.Nanosecond)}) {
		out = append(out, &platform.QueryPattern{
			Fingerprint: p.fingerprint, SQL: p.normalized, Keyspace: p.keyspace, Tables: slices.Clone(p.tables),
			Count: int64(st.count), ErrorCount: int64(st.errors),
			RowsRead: st.rowsRead, RowsReturned: st.rowsReturned, RowsAffected: st.rowsAffected,
			TotalDurationMillis: millis(st.total),
			LatencyP50Millis:    millis(st.percentile(50)),
			LatencyP99Millis:    millis(st.percentile(99)),
			LatencyMaxMillis:    millis(st.maxDuration()),
			FirstSeenAt:         platform.NewTimestamp(st.first),
			LastSeenAt:          platform.NewTimestamp(st.last),
		})
	}
	slices.SortFunc(out, func(a, b *platform.QueryPattern) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), strings.Compare(a.Keyspace, b.Keyspace), strings.Compare(a.Fingerprint, b.Fingerprint))
	})
	return out
}
