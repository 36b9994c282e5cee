package platform_test

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
)

// vdiffColumns are the columns of Vitess's VDiff summary query.
var vdiffColumns = []string{"vdiff_state", "last_error", "table_name", "uuid", "table_state", "table_rows", "started_at", "rows_compared", "completed_at", "has_mismatch", "report"}

// null marks a NULL value in vdiffShow's rows.
const null = "\x00NULL"

// vdiffShow writes a VDiffShowResponse by hand: each shard's rows, their
// values in vdiffColumns' order, as query.QueryResult encodes them.
func vdiffShow(shards map[string][][]string) []byte {
	type row struct {
		Lengths []string `json:"lengths"`
		Values  string   `json:"values"`
	}
	fields := []map[string]string{}
	for _, c := range vdiffColumns {
		fields = append(fields, map[string]string{"name": c, "type": "VARBINARY"})
	}
	resp := map[string]any{}
	for shard, rows := range shards {
		var out []row
		for _, r := range rows {
			var x row
			var buf []byte
			for _, v := range r {
				if v == null {
					x.Lengths = append(x.Lengths, "-1")
					continue
				}
				x.Lengths = append(x.Lengths, strconv.Itoa(len(v)))
				buf = append(buf, v...)
			}
			x.Values = base64.StdEncoding.EncodeToString(buf)
			out = append(out, x)
		}
		resp[shard] = map[string]any{"output": map[string]any{"fields": fields, "rows": out}, "vdiff_uuid": "u1"}
	}
	doc, _ := json.Marshal(map[string]any{"data": map[string]any{"tablet_responses": resp}})
	return doc
}

// TestVDiffSummary decodes VDiff documents as Vitess's tools sum them:
// the state over shards and tables, rows, mismatches, times and progress.
func TestVDiffSummary(t *testing.T) {
	t.Parallel()
	report := func(table string, processed, mismatched int) string {
		b, _ := json.Marshal(map[string]any{"TableName": table, "ProcessedRows": processed, "MatchingRows": processed - mismatched, "MismatchedRows": mismatched,
			"ExtraRowsSource": 0, "ExtraRowsTarget": 0})
		return string(b)
	}
	const t0, t1, t2 = "2026-01-01 00:00:05", "2026-01-01 00:00:07", "2026-01-01 00:01:00"
	at := func(s string) *time.Time {
		v, _ := time.Parse(time.DateTime, s)
		return &v
	}
	type want struct {
		State        platform.VDiffState
		RowsCompared int64
		HasMismatch  bool
		Started      *time.Time
		Completed    *time.Time
		Progress     *platform.VDiffProgress
		Tables       []string // name:state
		Errors       map[string]string
	}
	tests := []struct {
		name   string
		shards map[string][][]string
		want   want
	}{
		{"pending, no tables yet", map[string][][]string{
			"-80": {{"pending", null, null, "u1", null, null, null, null, null, "0", null}},
			"80-": {{"pending", null, null, "u1", null, null, null, null, null, "0", null}},
		}, want{State: platform.VDiffPending}},
		{"started on one shard", map[string][][]string{
			"-80": {{"started", null, "t", "u1", "started", "100", t1, "50", null, "0", report("t", 50, 0)}},
			"80-": {{"started", null, "t", "u1", "pending", "100", t0, "0", null, "0", null}},
		}, want{State: platform.VDiffStarted, RowsCompared: 50, Started: at(t0), Progress: &platform.VDiffProgress{Percentage: 25, TableRows: 200}, Tables: []string{"t:pending"}}},
		{"a stopped shard wins", map[string][][]string{
			"-80": {{"stopped", null, "t", "u1", "stopped", "100", t1, "50", null, "0", report("t", 50, 0)}},
			"80-": {{"completed", null, "t", "u1", "completed", "100", t0, "100", t2, "1", report("t", 100, 3)}},
		}, want{State: platform.VDiffStopped, RowsCompared: 150, HasMismatch: true, Started: at(t0), Tables: []string{"t:stopped"}}},
		{"an error", map[string][][]string{
			"-": {{"error", "boom", "t", "u1", "started", "100", t1, "10", null, "0", report("t", 10, 0)}},
		}, want{State: platform.VDiffError, RowsCompared: 10, Started: at(t1), Tables: []string{"t:started"}, Errors: map[string]string{"-": "boom"}}},
		{"tables done, a shard still running", map[string][][]string{
			"-80": {{"completed", null, "t", "u1", "completed", "100", t0, "100", t2, "0", report("t", 100, 0)}},
			"80-": {{"started", null, "t", "u1", "completed", "100", t0, "100", null, "0", report("t", 100, 0)}},
		}, want{State: platform.VDiffStarted, RowsCompared: 200, Started: at(t0), Progress: &platform.VDiffProgress{Percentage: 100, TableRows: 200}, Tables: []string{"t:completed"}}},
		// vtctldclient counts a shard that answers with no rows: the VDiff
		// is not completed while it has not listed its tables.
		{"a shard that answered without rows", map[string][][]string{
			"-80": {{"completed", null, "t", "u1", "completed", "10", t0, "10", t1, "0", report("t", 10, 0)}},
			"80-": {},
		}, want{State: platform.VDiffUnknown, RowsCompared: 10, Started: at(t0), Tables: []string{"t:completed"}}},
		{"a state it does not know", map[string][][]string{
			"-": {{"resumed", null, "t", "u1", "resumed", "10", t0, "5", null, "0", report("t", 5, 0)}},
		}, want{State: platform.VDiffUnknown, RowsCompared: 5, Started: at(t0), Tables: []string{"t:resumed"}}},
		{"completed", map[string][][]string{
			"-80": {{"completed", null, "a", "u1", "completed", "10", t0, "10", t1, "0", report("a", 10, 0)}, {"completed", null, "b", "u1", "completed", "5", t0, "5", t1, "0", report("b", 5, 0)}},
			"80-": {{"completed", null, "a", "u1", "completed", "10", t1, "10", t2, "0", report("a", 10, 0)}, {"completed", null, "b", "u1", "completed", "5", t1, "5", t2, "0", report("b", 5, 0)}},
		}, want{State: platform.VDiffCompleted, RowsCompared: 30, Started: at(t0), Completed: at(t2), Tables: []string{"a:completed", "b:completed"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var v platform.VDiff
			if err := json.Unmarshal(vdiffShow(tc.shards), &v); err != nil {
				t.Fatal(err)
			}
			got := want{State: v.State, RowsCompared: v.RowsCompared, HasMismatch: v.HasMismatch, Started: v.StartedAt, Completed: v.CompletedAt, Progress: v.Progress, Errors: v.Errors}
			for _, tb := range v.Tables {
				got.Tables = append(got.Tables, tb.Name+":"+string(tb.State))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("summary (-want +got):\n%s", diff)
			}
			if v.UUID != "u1" || len(v.Raw) == 0 {
				t.Errorf("UUID %q, Raw %d bytes", v.UUID, len(v.Raw))
			}
		})
	}
}

// TestVDiffShardsThatAnswered checks which shards a summary counts: one
// that answered, even with no rows, and not one whose response is null.
func TestVDiffShardsThatAnswered(t *testing.T) {
	t.Parallel()
	row := []string{"completed", null, "t", "u1", "completed", "1", "2026-01-01 00:00:05", "1", "2026-01-01 00:00:07", "0", null}
	var doc map[string]any
	if err := json.Unmarshal(vdiffShow(map[string][][]string{"-80": {row}, "80-": {}}), &doc); err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		other  any // the response of shard 80-
		shards []string
		state  platform.VDiffState
	}{
		"no rows": {doc["data"].(map[string]any)["tablet_responses"].(map[string]any)["80-"], []string{"-80", "80-"}, platform.VDiffUnknown},
		"null":    {nil, []string{"-80"}, platform.VDiffCompleted},
	}
	for name, tc := range tests {
		doc["data"].(map[string]any)["tablet_responses"].(map[string]any)["80-"] = tc.other
		b, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		var v platform.VDiff
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if diff := cmp.Diff(tc.shards, v.Shards); diff != "" || v.State != tc.state {
			t.Errorf("%s: state %s (want %s), shards (-want +got):\n%s", name, v.State, tc.state, diff)
		}
	}
}

// TestVDiffDecodeErrors checks that a document the SDK cannot read is an
// error, not a wrong summary.
func TestVDiffDecodeErrors(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"bad base64": `{"data":{"tablet_responses":{"-":{"output":{"fields":[{"name":"vdiff_state"}],"rows":[{"lengths":["7"],"values":"%%%"}]}}}}}`,
		"too long":   `{"data":{"tablet_responses":{"-":{"output":{"fields":[{"name":"vdiff_state"}],"rows":[{"lengths":["70"],"values":"cGVuZGluZw=="}]}}}}}`,
		"bad report": string(vdiffShow(map[string][][]string{"-": {{"started", null, "t", "u1", "started", "1", null, "0", null, "0", "{"}}})),
		"not a show": `{"data":[1]}`,
	}
	for name, doc := range tests {
		var v platform.VDiff
		if err := json.Unmarshal([]byte(doc), &v); err == nil {
			t.Errorf("%s: decoded as %+v, want an error", name, v)
		}
	}
}

// TestVDiffETAOf checks the estimate: the pace so far, for what is left.
func TestVDiffETAOf(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := start.Add(30 * time.Second)
	tests := []struct {
		name string
		v    platform.VDiff
		want time.Time
	}{
		{"a quarter in 30 s", platform.VDiff{StartedAt: &start, Progress: &platform.VDiffProgress{Percentage: 25}}, now.Add(90 * time.Second)},
		{"below 1%", platform.VDiff{StartedAt: &start, Progress: &platform.VDiffProgress{Percentage: 0.5}}, time.Time{}},
		{"not started", platform.VDiff{Progress: &platform.VDiffProgress{Percentage: 50}}, time.Time{}},
		{"no progress", platform.VDiff{StartedAt: &start}, time.Time{}},
	}
	for _, tc := range tests {
		if got := tc.v.ETA(now); !got.Equal(tc.want) {
			t.Errorf("%s: ETA %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestVDiffGolden reads the golden VDiff, written by hand from Vitess's
// protos: a completed VDiff of two shards with one row mismatched on -80.
func TestVDiffGolden(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join("testdata", "golden", "vdiff.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v platform.VDiff
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	done := time.Date(2026, 1, 14, 10, 19, 59, 0, time.UTC)
	if v.State != platform.VDiffCompleted || !v.HasMismatch || v.RowsCompared != 2000 || !v.CompletedAt.Equal(done) || len(v.Tables) != 1 {
		t.Fatalf("summary %+v", v)
	}
	c := v.Tables[0]
	if c.MismatchedRows != 1 || c.MatchingRows != 1999 || c.Reports["-80"].MismatchedRowsSample[0].Source.Row["id"] != "42" {
		t.Errorf("customers %+v", *c)
	}
}

// vdiffRows writes a VDiffShowResponse of any columns, each shard's rows
// with their values in cols' order.
func vdiffRows(cols []string, shards map[string][][]string) string {
	fields := []map[string]string{}
	for _, c := range cols {
		fields = append(fields, map[string]string{"name": c, "type": "VARBINARY"})
	}
	resp := map[string]any{}
	for shard, rows := range shards {
		var out []map[string]any
		for _, r := range rows {
			var lengths []string
			var buf []byte
			for _, v := range r {
				lengths = append(lengths, strconv.Itoa(len(v)))
				buf = append(buf, v...)
			}
			out = append(out, map[string]any{"lengths": lengths, "values": base64.StdEncoding.EncodeToString(buf)})
		}
		resp[shard] = map[string]any{"output": map[string]any{"fields": fields, "rows": out}}
	}
	doc, _ := json.Marshal(map[string]any{"data": map[string]any{"tablet_responses": resp}})
	return string(doc)
}

// TestListVDiffsStates: each VDiff of a list has the state over its
// shards (stopped if one is, else error, started, pending, completed when
// all are, and unknown otherwise), newest first.
func TestListVDiffsStates(t *testing.T) {
	t.Parallel()
	cols := []string{"id", "vdiff_uuid", "workflow", "keyspace", "state", "created_at"}
	row := func(id, uuid, state, at string) []string {
		return []string{id, uuid, "w1", "ks", state, "2026-01-01 00:00:" + at}
	}
	doc := vdiffRows(cols, map[string][][]string{
		"-80": {row("1", "stopped", "stopped", "01"), row("2", "error", "error", "02"), row("3", "started", "started", "03"),
			row("4", "pending", "pending", "04"), row("5", "completed", "completed", "05"), row("6", "unknown", "resumed", "06")},
		"80-": {row("1", "stopped", "error", "01"), row("2", "error", "completed", "02"), row("3", "started", "pending", "03"),
			row("4", "pending", "completed", "04"), row("5", "completed", "completed", "05"), row("6", "unknown", "completed", "06")},
	})
	w := newWire(t, 200, doc)
	got, err := w.client.Vitess.ListVDiffs(t.Context(), &platform.ListVDiffsParams{Organization: "acme", Database: "shop", Branch: "main", Workflow: "w1", TargetKeyspace: "ks"})
	if err != nil {
		t.Fatal(err)
	}
	var states []string
	for _, e := range got.VDiffs {
		states = append(states, e.UUID+":"+string(e.State))
		if len(e.Shards) != 2 || e.Workflow != "w1" || e.Keyspace != "ks" {
			t.Errorf("%s: shards %v, workflow %q, keyspace %q", e.UUID, e.Shards, e.Workflow, e.Keyspace)
		}
	}
	want := []string{"unknown:" + string(platform.VDiffUnknown), "completed:completed", "pending:pending", "started:started", "error:error", "stopped:stopped"}
	if diff := cmp.Diff(want, states); diff != "" {
		t.Errorf("VDiffs, newest first (-want +got):\n%s", diff)
	}
}
