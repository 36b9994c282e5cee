package fake

import (
	"fmt"

	"github.com/dbplatform/platform-go"
)

// qpReportJob generates a pending query-patterns report (see
// finishQPReport). It does nothing if the report was deleted meanwhile.
type qpReportJob struct{ r *qpReportRec }

func (j qpReportJob) run(w *world) {
	if j.r.deleted || j.r.state != platform.QueryPatternsReportPending {
		return
	}
	w.finishQPReport(j.r)
}

func (j qpReportJob) save() jobSnap {
	return jobSnap{Kind: "query_patterns_report.generate", ID: j.r.id}
}

func (j qpReportJob) keep(sv *saver) bool {
	return sv.branchSet[j.r.branch] && !j.r.deleted
}

func loadQPReportJob(ld *loader, js jobSnap) (job, error) {
	r, err := refNonNil(ld.qpReports, js.ID, "query-patterns report")
	if err != nil {
		return nil, err
	}
	if r.state != platform.QueryPatternsReportPending {
		return nil, fmt.Errorf("query-patterns report %s is %s: only a pending report is generated", r.id, r.state)
	}
	return qpReportJob{r}, nil
}
