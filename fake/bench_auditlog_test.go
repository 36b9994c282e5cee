package fake_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"testing"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// auditBenchEntries is how many entries BenchmarkAuditLog's log holds: a
// full log at the default limit.
const auditBenchEntries = 10_000

// BenchmarkAuditLog lists a full audit log (10,000 entries, each an
// update of the organization): the first page (the baseline), the page
// after a cursor at the log's oldest end (O(page) too: the cursor is
// found by binary search), and a filter whose only match is the oldest
// entry (a scan of the log). B/entry is the live heap the entries add,
// measured once.
func BenchmarkAuditLog(b *testing.B) {
	srv, err := fake.New(fake.WithRequestLogLimit(1)) // the entries alone in B/entry
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	admin := srv.AdminToken().Authorization()
	orgPath := "/v1/organizations/" + srv.Org()
	scaleServe(b, srv, admin, http.MethodPost, orgPath+"/databases", `{"name":"first","cluster_size":"PS_10"}`, http.StatusCreated)
	before := liveHeap()
	for i := range auditBenchEntries - 1 {
		scaleServe(b, srv, admin, http.MethodPatch, orgPath, `{"billing_email":"ap`+strconv.Itoa(i)+`@example.com"}`, http.StatusOK)
	}
	perEntry := float64(liveHeap()-before) / (auditBenchEntries - 1)
	list := orgPath + "/audit-log"
	var oldest platform.CursorPage[platform.AuditLog]
	if err := json.Unmarshal(scaleServe(b, srv, admin, http.MethodGet, list+"?filters[]=audit_action:database.created", "", http.StatusOK), &oldest); err != nil || len(oldest.Items) != 1 {
		b.Fatalf("the oldest entry: %+v (%v)", oldest, err)
	}
	var deep platform.CursorPage[platform.AuditLog]
	if err := json.Unmarshal(scaleServe(b, srv, admin, http.MethodGet, list+"?limit=26&ending_before="+oldest.Items[0].ID, "", http.StatusOK), &deep); err != nil || len(deep.Items) != 26 {
		b.Fatalf("the oldest page: %v", err)
	}
	for _, bc := range []struct{ name, query string }{
		{"baseline_first_page", ""},
		{"after_a_deep_cursor", "?starting_after=" + *deep.CursorStart},
		{"filter_scanning_the_log", "?filters[]=audit_action:database.created"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				scaleServe(b, srv, admin, http.MethodGet, list+bc.query, "", http.StatusOK)
			}
			b.ReportMetric(perEntry, "B/entry")
		})
	}
}
