package fake_test

import (
	"testing"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// insightsFixture is the traffic opInsights records on dev, and what the
// operations on it name.
type insightsFixture struct {
	w *opWorld
	// lookupFP is the fingerprint of the lookup on keyspace app.
	lookupFP string
	// runID is an execution of the lookup; errorFP the fingerprint of the
	// failed insert's error; anomalyID the anomaly of the last minute.
	runID, errorFP, anomalyID string
}

// onQuery is a call on the lookup, with query.
func (f *insightsFixture) onQuery(query string) opCall {
	return opCall{vals: map[string]string{"fingerprint": f.lookupFP}, query: query}
}

// opInsights is a fixture of an operation on dev's insights: a lookup
// tagged route=a ran once a minute for 12 minutes at 10ms, then at 100ms
// now (an anomaly), with a failed insert; call gives the request's path
// values and query.
func opInsights(call func(f *insightsFixture) opCall) opFixture {
	return func(w *opWorld, _ string) opCall {
		f := recordInsightsTraffic(w.t, w.srv, w.org, "dev")
		f.w = w
		c := call(f)
		if c.vals == nil {
			c.vals = map[string]string{}
		}
		c.vals["branch"] = "dev"
		return c
	}
}

// recordInsightsTraffic records opInsights' traffic on a branch of app,
// and finds what it names through the API.
func recordInsightsTraffic(t testing.TB, srv *fake.Server, org, branch string) *insightsFixture {
	t.Helper()
	now := srv.Now()
	var samples []fake.QuerySample
	for m := 12; m >= 1; m-- {
		samples = append(samples, fake.QuerySample{
			SQL: "SELECT * FROM users WHERE id = 1", Tags: map[string]string{"route": "a"}, RowsRead: 1, RowsReturned: 1,
			Duration: 10 * time.Millisecond, Time: now.Add(-time.Duration(m) * time.Minute),
		})
	}
	samples = append(samples,
		fake.QuerySample{SQL: "SELECT * FROM users WHERE id = 2", Tags: map[string]string{"route": "a", "username": "app"}, RowsRead: 9, RowsReturned: 1, Duration: 100 * time.Millisecond},
		fake.QuerySample{SQL: "INSERT INTO orders (id) VALUES (1)", Duration: 5 * time.Millisecond, Error: "Duplicate entry '1' for key 'PRIMARY'", ErrorCode: "1062"},
	)
	if err := srv.RecordQueries(org, drDB, branch, samples...); err != nil {
		t.Fatal(err)
	}
	ctx, c := t.Context(), srv.Client()
	f := &insightsFixture{}
	f.lookupFP, _ = fake.QueryFingerprint("SELECT * FROM users WHERE id = 1")
	runs, err := c.QueryInsights.Statistics(ctx, &platform.QueryStatisticsParams{Organization: org, Database: drDB, Branch: branch, Fingerprint: f.lookupFP, Keyspace: drDB})
	if err != nil || len(runs.Items) == 0 {
		t.Fatalf("the lookup's executions: %v, %v", runs, err)
	}
	f.runID = runs.Items[0].ID
	errs, err := c.QueryInsights.ListErrors(ctx, &platform.ListQueryErrorsParams{Organization: org, Database: drDB, Branch: branch})
	if err != nil || len(errs.Items) != 1 {
		t.Fatalf("the errors: %v, %v", errs, err)
	}
	f.errorFP = errs.Items[0].ErrorFingerprint
	anomalies, err := c.QueryInsights.ListAnomalies(ctx, &platform.ListAnomaliesParams{Organization: org, Database: drDB, Branch: branch})
	if err != nil || len(anomalies.Items) != 1 {
		t.Fatalf("the anomalies: %v, %v", anomalies, err)
	}
	f.anomalyID = anomalies.Items[0].ID
	return f
}
