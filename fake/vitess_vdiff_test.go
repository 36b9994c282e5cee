package fake_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// vdTimings start a VDiff a second after it is asked for and have each
// shard compare its rows in 10 s; the workflow copies for a minute.
var vdTimings = fake.Timings{WorkflowStart: 10 * time.Second, WorkflowCopy: time.Minute, VDiffStart: time.Second, VDiffRun: 10 * time.Second}

// vdEnv is a deploy request world whose main has the keyspace archive
// (two shards) and the running MoveTables workflow mv, moving audit and
// users from app into it: 1000 rows of each table on each target shard.
type vdEnv struct{ *drEnv }

func newVDiffEnv(t *testing.T) *vdEnv {
	t.Helper()
	e := &vdEnv{newDREnv(t, false, fake.WithTimings(vdTimings))}
	if err := e.srv.AddKeyspace(e.org, drDB, "main", "archive", 2); err != nil {
		t.Fatal(err)
	}
	wfDrive(t, e.srv, e.c, &platform.CreateWorkflowParams{
		Organization: e.org, Database: drDB, Name: "mv", SourceKeyspace: drDB, TargetKeyspace: "archive", Tables: []string{"users", "audit"},
	}, platform.WorkflowRunning)
	return e
}

// create creates a VDiff of mv with p's options and returns its UUID.
func (e *vdEnv) create(p platform.CreateVDiffParams) string {
	e.t.Helper()
	p.Organization, p.Database, p.Branch, p.Workflow, p.TargetKeyspace = e.org, drDB, "main", "mv", "archive"
	v, err := e.c.Vitess.CreateVDiff(e.t.Context(), &p)
	if err != nil {
		e.t.Fatal(err)
	}
	return v.UUID
}

func (e *vdEnv) ref(uuid string) *platform.GetVDiffParams {
	return &platform.GetVDiffParams{Organization: e.org, Database: drDB, Branch: "main", Workflow: "mv", TargetKeyspace: "archive", UUID: uuid}
}

func (e *vdEnv) shards(uuid string, shards ...string) *platform.VDiffShardsParams {
	return &platform.VDiffShardsParams{Organization: e.org, Database: drDB, Branch: "main", Workflow: "mv", TargetKeyspace: "archive", UUID: uuid, TargetShards: shards}
}

// show returns the VDiff's report.
func (e *vdEnv) show(uuid string) *platform.VDiff {
	e.t.Helper()
	v, err := e.c.Vitess.GetVDiff(e.t.Context(), e.ref(uuid))
	if err != nil {
		e.t.Fatal(err)
	}
	return v
}

// vdSummary is what the tests compare of a report.
type vdSummary struct {
	State       platform.VDiffState
	Compared    int64
	Mismatch    bool
	Progress    float64 // -1 without progress
	Tables      map[string]platform.VDiffState
	Started     bool
	CompletedAt bool
}

func summarize(v *platform.VDiff) vdSummary {
	s := vdSummary{State: v.State, Compared: v.RowsCompared, Mismatch: v.HasMismatch, Progress: -1, Started: v.StartedAt != nil, CompletedAt: v.CompletedAt != nil}
	if v.Progress != nil {
		s.Progress = v.Progress.Percentage
	}
	for _, t := range v.Tables {
		if s.Tables == nil {
			s.Tables = map[string]platform.VDiffState{}
		}
		s.Tables[t.Name] = t.State
	}
	return s
}

// TestVDiffLifecycle follows a VDiff on the clock: pending, started with
// its progress, rows compared table after table, then completed.
func TestVDiffLifecycle(t *testing.T) {
	t.Parallel()
	e := newVDiffEnv(t)
	uuid := e.create(platform.CreateVDiffParams{})
	steps := []struct {
		after time.Duration
		want  vdSummary
	}{
		{0, vdSummary{State: platform.VDiffPending, Progress: -1}},
		{time.Second, vdSummary{State: platform.VDiffStarted, Progress: 0, Started: true,
			Tables: map[string]platform.VDiffState{"audit": platform.VDiffStarted, "users": platform.VDiffPending}}},
		{2500 * time.Millisecond, vdSummary{State: platform.VDiffStarted, Compared: 1000, Progress: 25, Started: true,
			Tables: map[string]platform.VDiffState{"audit": platform.VDiffStarted, "users": platform.VDiffPending}}},
		{5 * time.Second, vdSummary{State: platform.VDiffStarted, Compared: 3000, Progress: 75, Started: true,
			Tables: map[string]platform.VDiffState{"audit": platform.VDiffCompleted, "users": platform.VDiffStarted}}},
		{2500 * time.Millisecond, vdSummary{State: platform.VDiffCompleted, Compared: 4000, Progress: -1, Started: true, CompletedAt: true,
			Tables: map[string]platform.VDiffState{"audit": platform.VDiffCompleted, "users": platform.VDiffCompleted}}},
	}
	for i, st := range steps {
		e.srv.Advance(st.after)
		v := e.show(uuid)
		if diff := cmp.Diff(st.want, summarize(v)); diff != "" {
			t.Errorf("step %d (+%s) (-want +got):\n%s", i, st.after, diff)
		}
		if v.UUID != uuid || !cmp.Equal(v.Shards, []string{"-80", "80-"}) {
			t.Errorf("step %d: UUID %s shards %v", i, v.UUID, v.Shards)
		}
	}
	v := e.show(uuid)
	if want := e.srv.Now().Add(-10 * time.Second).Truncate(time.Second); !v.StartedAt.Equal(want) || !v.CompletedAt.Equal(e.srv.Now().Truncate(time.Second)) {
		t.Errorf("started %v completed %v, want %v and %v", v.StartedAt, v.CompletedAt, want, e.srv.Now())
	}
	for _, tb := range v.Tables {
		if tb.RowsCompared != 2000 || tb.MatchingRows != 2000 || len(tb.Reports) != 2 {
			t.Errorf("table %s: %+v", tb.Name, *tb)
		}
	}
}

// TestVDiffETA checks the estimate from a started VDiff's pace.
func TestVDiffETA(t *testing.T) {
	t.Parallel()
	e := newVDiffEnv(t)
	uuid := e.create(platform.CreateVDiffParams{})
	e.srv.Advance(3 * time.Second) // started 2 s ago: 20%
	v := e.show(uuid)
	if v.Progress == nil || v.Progress.Percentage != 20 {
		t.Fatalf("progress %+v, want 20%%", v.Progress)
	}
	if got, want := v.ETA(e.srv.Now()), e.srv.Now().Add(8*time.Second); !got.Equal(want) {
		t.Errorf("ETA %v, want %v", got, want)
	}
}

// TestVDiffDifferences checks that a VDiff reports what the test
// arranged, shard by shard, as it compares, with samples.
func TestVDiffDifferences(t *testing.T) {
	t.Parallel()
	e := newVDiffEnv(t)
	if err := e.srv.SetVDiffDifferences(e.org, drDB, "main", "archive", "users", fake.VDiffDifferences{
		Mismatched: []string{"1", "2", "3"}, ExtraSource: []string{"7"}, ExtraTarget: []string{"9", "10"},
	}); err != nil {
		t.Fatal(err)
	}
	uuid := e.create(platform.CreateVDiffParams{DebugQuery: platform.Ptr(true), MaxReportSampleRows: platform.Ptr(1)})
	e.srv.Advance(6 * time.Second) // audit compared, users not yet
	if v := e.show(uuid); v.HasMismatch {
		t.Errorf("a mismatch before users was compared")
	}
	v, err := e.c.Vitess.WaitVDiff(t.Context(), e.ref(uuid))
	if err != nil {
		t.Fatal(err)
	}
	if !v.HasMismatch || v.State != platform.VDiffCompleted {
		t.Fatalf("state %s mismatch %v", v.State, v.HasMismatch)
	}
	users := v.Tables[1]
	got := []int64{users.RowsCompared, users.MatchingRows, users.MismatchedRows, users.ExtraRowsSource, users.ExtraRowsTarget}
	if diff := cmp.Diff([]int64{2000, 1996, 3, 1, 2}, got); diff != "" {
		t.Errorf("users' counts (-want +got):\n%s", diff)
	}
	// The rows go to the shards in turn: 1, 3, 7 and 9 on -80; 2 and 10 on 80-.
	r := users.Reports["-80"]
	want := &platform.VDiffReport{
		TableName: "users", ProcessedRows: 1000, MatchingRows: 997, MismatchedRows: 2, ExtraRowsSource: 1, ExtraRowsTarget: 1,
		ExtraRowsSourceSample: []*platform.VDiffRow{{Row: map[string]string{"id": "7"}, Query: "select id from users where id='7'"}},
		ExtraRowsTargetSample: []*platform.VDiffRow{{Row: map[string]string{"id": "9"}, Query: "select id from users where id='9'"}},
		MismatchedRowsSample: []*platform.VDiffMismatch{{
			Source: &platform.VDiffRow{Row: map[string]string{"id": "1"}, Query: "select id from users where id='1'"},
			Target: &platform.VDiffRow{Row: map[string]string{"id": "1"}, Query: "select id from users where id='1'"},
		}},
	}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Errorf("users on -80 (-want +got):\n%s", diff)
	}
	if audit := v.Tables[0]; audit.MismatchedRows+audit.ExtraRowsSource+audit.ExtraRowsTarget != 0 {
		t.Errorf("audit differs: %+v", *audit)
	}
	// Differences arranged later show in the next VDiff only; none
	// removes the arrangement.
	if err := e.srv.SetVDiffDifferences(e.org, drDB, "main", "archive", "users", fake.VDiffDifferences{}); err != nil {
		t.Fatal(err)
	}
	if !e.show(uuid).HasMismatch {
		t.Errorf("the completed VDiff lost its differences")
	}
	next, err := e.c.Vitess.WaitVDiff(t.Context(), e.ref(e.create(platform.CreateVDiffParams{})))
	if err != nil {
		t.Fatal(err)
	}
	if next.HasMismatch {
		t.Errorf("the next VDiff found differences that were removed")
	}
}

// TestVDiffStopResume stops a VDiff part way, on one shard and then on
// all, and resumes it: rows compared freeze while stopped and the
// comparison goes on from there.
func TestVDiffStopResume(t *testing.T) {
	t.Parallel()
	e := newVDiffEnv(t)
	ctx := t.Context()
	uuid := e.create(platform.CreateVDiffParams{})
	e.srv.Advance(3 * time.Second) // 400 rows a shard
	if _, err := e.c.Vitess.StopVDiff(ctx, e.shards(uuid, "80-")); err != nil {
		t.Fatal(err)
	}
	e.srv.Advance(time.Second) // -80 goes on: 600
	v := e.show(uuid)
	if v.State != platform.VDiffStopped || v.RowsCompared != 400+600 {
		t.Fatalf("one shard stopped: %s with %d rows compared, want stopped with 1000", v.State, v.RowsCompared)
	}
	if _, err := e.c.Vitess.StopVDiff(ctx, e.shards(uuid)); err != nil {
		t.Fatal(err)
	}
	e.srv.Advance(time.Hour)
	if v := e.show(uuid); v.State != platform.VDiffStopped || v.RowsCompared != 1000 || v.Tables[0].State != platform.VDiffStopped {
		t.Fatalf("stopped: %s, %d rows compared, audit %s; want stopped, 1000, stopped", v.State, v.RowsCompared, v.Tables[0].State)
	}
	// Stopping a stopped VDiff changes nothing, as in Vitess.
	if _, err := e.c.Vitess.StopVDiff(ctx, e.shards(uuid)); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.Vitess.ResumeVDiff(ctx, e.shards(uuid)); err != nil {
		t.Fatal(err)
	}
	if v := e.show(uuid); v.State != platform.VDiffPending || v.StartedAt != nil || v.RowsCompared != 1000 {
		t.Fatalf("resumed: %s started %v with %d compared, want pending, not started, 1000", v.State, v.StartedAt, v.RowsCompared)
	}
	t0 := e.srv.Now()
	v, err := e.c.Vitess.WaitVDiff(ctx, e.ref(uuid))
	if err != nil {
		t.Fatal(err)
	}
	// 80- had 1600 rows left (8 s), -80 1400 (7 s), each after a 1 s start.
	if took := e.srv.Now().Sub(t0); took != 9*time.Second || v.RowsCompared != 4000 {
		t.Errorf("the resumed VDiff completed after %s with %d rows, want 9s and 4000", took, v.RowsCompared)
	}
	// A completed VDiff: a stop changes nothing; a resume compares again
	// what is left (nothing) and completes.
	if _, err := e.c.Vitess.StopVDiff(ctx, e.shards(uuid)); err != nil {
		t.Fatal(err)
	}
	if v := e.show(uuid); v.State != platform.VDiffCompleted {
		t.Fatalf("a stop made a completed VDiff %s", v.State)
	}
	if _, err := e.c.Vitess.ResumeVDiff(ctx, e.shards(uuid)); err != nil {
		t.Fatal(err)
	}
	e.srv.Advance(time.Second)
	if v := e.show(uuid); v.State != platform.VDiffCompleted || v.RowsCompared != 4000 {
		t.Errorf("a resumed completed VDiff: %s, %d rows", v.State, v.RowsCompared)
	}
}

// TestVDiffOptions checks the options that change what is compared: the
// tables, the limit, and auto_start off.
func TestVDiffOptions(t *testing.T) {
	t.Parallel()
	e := newVDiffEnv(t)
	uuid := e.create(platform.CreateVDiffParams{Tables: []string{"users"}, Limit: platform.Ptr(250), AutoStart: platform.Ptr(false)})
	e.srv.Advance(time.Hour)
	if v := e.show(uuid); v.State != platform.VDiffStopped || v.Tables != nil {
		t.Fatalf("created without auto_start: %s with tables %v, want stopped and none", v.State, v.Tables)
	}
	if _, err := e.c.Vitess.ResumeVDiff(t.Context(), e.shards(uuid)); err != nil {
		t.Fatal(err)
	}
	v, err := e.c.Vitess.WaitVDiff(t.Context(), e.ref(uuid))
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Tables) != 1 || v.Tables[0].Name != "users" || v.RowsCompared != 500 {
		t.Errorf("tables %v, %d rows; want users only, 250 a shard", v.Tables, v.RowsCompared)
	}
}

// TestVDiffPickerOptions: the tablet types a VDiff reads from, as its
// listed options show them: in order when tablet_selection_preference is
// inorder, and replica then primary by default when the target has
// replicas.
func TestVDiffPickerOptions(t *testing.T) {
	t.Parallel()
	e := newVDiffEnv(t)
	for _, tc := range []struct {
		p    platform.CreateVDiffParams
		want string
	}{
		{platform.CreateVDiffParams{TabletTypes: []string{"replica"}, TabletSelectionPreference: platform.Ptr("inorder")}, `"tablet_types":"in_order:replica"`},
		{platform.CreateVDiffParams{TabletTypes: []string{"replica"}, TabletSelectionPreference: platform.Ptr("any")}, `"tablet_types":"replica"`},
		{platform.CreateVDiffParams{}, `"tablet_types":"in_order:replica,primary"`},
	} {
		uuid := e.create(tc.p)
		l, err := e.c.Vitess.ListVDiffs(e.t.Context(), &platform.ListVDiffsParams{Organization: e.org, Database: drDB, Branch: "main", Workflow: "mv", TargetKeyspace: "archive"})
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			TabletResponses map[string]struct {
				Output struct {
					Rows []struct {
						Values []byte `json:"values"`
					} `json:"rows"`
				} `json:"output"`
			} `json:"tablet_responses"`
		}
		if err := json.Unmarshal(l.Raw, &doc); err != nil {
			t.Fatal(err)
		}
		found := 0
		for shard, r := range doc.TabletResponses {
			for _, row := range r.Output.Rows {
				if v := string(row.Values); strings.Contains(v, uuid) {
					found++
					if !strings.Contains(v, tc.want) {
						t.Errorf("%+v: shard %s's row %q, want options with %s", tc.p, shard, v, tc.want)
					}
				}
			}
		}
		if found != 2 {
			t.Errorf("%+v: %d rows of VDiff %s, want one a shard", tc.p, found, uuid)
		}
	}
}

// TestVDiffFailure fails a VDiff with FailNext: it ends in error, saying
// why; the waiter says so; a stop and a resume run it again.
func TestVDiffFailure(t *testing.T) {
	t.Parallel()
	e := newVDiffEnv(t)
	uuid := e.create(platform.CreateVDiffParams{})
	if err := e.srv.FailNext(uuid); err != nil {
		t.Fatal(err)
	}
	_, err := e.c.Vitess.WaitVDiff(t.Context(), e.ref(uuid))
	var se *platform.StateError
	if !errors.As(err, &se) || se.State != string(platform.VDiffError) {
		t.Fatalf("WaitVDiff: %v, want a StateError for error", err)
	}
	v := e.show(uuid)
	if v.State != platform.VDiffError || len(v.Errors) != 1 || !strings.Contains(v.Errors["-80"], "vdiff "+uuid) {
		t.Fatalf("failed: %s with errors %v", v.State, v.Errors)
	}
	if _, err := e.c.Vitess.ResumeVDiff(t.Context(), e.shards(uuid)); !errors.Is(err, platform.ErrUnprocessable) || !strings.Contains(err.Error(), "is error on shard -80") {
		t.Fatalf("resume of a failed VDiff: %v, want a 422 naming the state", err)
	}
	if _, err := e.c.Vitess.StopVDiff(t.Context(), e.shards(uuid)); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.Vitess.ResumeVDiff(t.Context(), e.shards(uuid)); err != nil {
		t.Fatal(err)
	}
	if v, err := e.c.Vitess.WaitVDiff(t.Context(), e.ref(uuid)); err != nil || v.Errors != nil {
		t.Fatalf("after stop and resume: %v, errors %v", err, v)
	}
}

// TestVDiffListShowDelete lists, shows "last" and "all", and deletes
// one VDiff and then all; a workflow that ends takes its VDiffs.
func TestVDiffListShowDelete(t *testing.T) {
	t.Parallel()
	e := newVDiffEnv(t)
	ctx := t.Context()
	first := e.create(platform.CreateVDiffParams{})
	e.srv.Advance(time.Minute)
	second := e.create(platform.CreateVDiffParams{AutoStart: platform.Ptr(false)})
	lp := &platform.ListVDiffsParams{Organization: e.org, Database: drDB, Branch: "main", Workflow: "mv", TargetKeyspace: "archive"}
	l, err := e.c.Vitess.ListVDiffs(ctx, lp)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range l.VDiffs {
		got = append(got, d.UUID+" "+string(d.State)+" "+strings.Join(d.Shards, ","))
	}
	if diff := cmp.Diff([]string{second + " stopped -80,80-", first + " completed -80,80-"}, got); diff != "" {
		t.Errorf("list (-want +got):\n%s", diff)
	}
	if v := e.show("last"); v.UUID != second {
		t.Errorf("last is %s, want %s", v.UUID, second)
	}
	// Shown as "all", the VDiffs are the list.
	all := send(t, e.srv, "GET", "/v1/organizations/acme/databases/app/branches/main/vdiff/workflows/mv/vdiffs/all?target_keyspace=archive", admin(e.srv), "")
	if all.status != 200 || strings.TrimSpace(string(all.body)) != `{"data":`+string(l.Raw)+`}` {
		t.Errorf("show all: %d %s, want the list %s", all.status, all.body, l.Raw)
	}
	dp := &platform.DeleteVDiffParams{Organization: e.org, Database: drDB, Branch: "main", Workflow: "mv", TargetKeyspace: "archive", UUID: first}
	if _, err := e.c.Vitess.DeleteVDiff(ctx, dp); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.Vitess.GetVDiff(ctx, e.ref(first)); !errors.Is(err, platform.ErrNotFound) {
		t.Errorf("a deleted VDiff: %v, want 404", err)
	}
	running := e.create(platform.CreateVDiffParams{})
	e.srv.Advance(2 * time.Second)
	dp.UUID = "all"
	if _, err := e.c.Vitess.DeleteVDiff(ctx, dp); err != nil {
		t.Fatal(err)
	}
	e.srv.Advance(time.Minute) // the deleted VDiff's transitions do nothing
	if l, err := e.c.Vitess.ListVDiffs(ctx, lp); err != nil || len(l.VDiffs) != 0 {
		t.Fatalf("after delete all: %v %v", l, err)
	}
	if err := e.srv.FailNext(running); err == nil {
		t.Errorf("FailNext of a deleted VDiff was accepted")
	}
	// The workflow's end takes its VDiffs with it.
	uuid := e.create(platform.CreateVDiffParams{})
	if _, err := e.c.Workflows.Cancel(ctx, &platform.WorkflowParams{Organization: e.org, Database: drDB, Number: 1}); err != nil {
		t.Fatal(err)
	}
	e.srv.Advance(time.Minute)
	if _, err := e.c.Vitess.GetVDiff(ctx, e.ref(uuid)); !errors.Is(err, platform.ErrNotFound) {
		t.Errorf("a VDiff of a cancelled workflow: %v, want 404", err)
	}
}

// TestVDiffRefusals sends each request the fake refuses: a 422 naming
// the field or state, or a 404, and nothing changes.
func TestVDiffRefusals(t *testing.T) {
	t.Parallel()
	type req struct {
		method, path, body string
	}
	const base = "/v1/organizations/acme/databases/app/branches/main/vdiff/workflows/"
	tests := []struct {
		name   string
		setup  func(e *vdEnv) map[string]string // values for the path's {uuid}
		req    req
		status int
		msg    string
	}{
		{"create without target_keyspace", nil, req{"POST", base + "mv/vdiffs", `{}`}, 422, "target_keyspace is required"},
		{"create in an unknown keyspace", nil, req{"POST", base + "mv/vdiffs", `{"target_keyspace":"nope"}`}, 422, `target_keyspace "nope" is not a keyspace`},
		{"create of an unknown workflow", nil, req{"POST", base + "nope/vdiffs", `{"target_keyspace":"archive"}`}, 404, ""},
		{"create of an unknown table", nil, req{"POST", base + "mv/vdiffs", `{"target_keyspace":"archive","tables":["users","nope"]}`}, 422, `tables[1] "nope" is not a table of workflow mv`},
		{"create with a bad tablet type", nil, req{"POST", base + "mv/vdiffs", `{"target_keyspace":"archive","tablet_types":["spare"]}`}, 422, `tablet_types[0] "spare"`},
		{"create with a bad preference", nil, req{"POST", base + "mv/vdiffs", `{"target_keyspace":"archive","tablet_selection_preference":"first"}`}, 422, "tablet_selection_preference"},
		{"create with a negative limit", nil, req{"POST", base + "mv/vdiffs", `{"target_keyspace":"archive","limit":-1}`}, 422, "limit must be at least 0"},
		{"create after writes were switched", func(e *vdEnv) map[string]string {
			send(e.t, e.srv, "PATCH", "/v1/organizations/acme/databases/app/workflows/1/switch-replicas", admin(e.srv), "")
			e.srv.Advance(time.Minute)
			send(e.t, e.srv, "PATCH", "/v1/organizations/acme/databases/app/workflows/1/switch-primaries", admin(e.srv), "")
			e.srv.Advance(time.Minute)
			return nil
		}, req{"POST", base + "mv/vdiffs", `{"target_keyspace":"archive"}`}, 422, "writes have already been switched for workflow archive.mv (it is switched_primaries)"},
		{"show of an unknown uuid", nil, req{"GET", base + "mv/vdiffs/nope?target_keyspace=archive", ""}, 404, ""},
		{"show without target_keyspace", nil, req{"GET", base + "mv/vdiffs/{uuid}", ""}, 422, "target_keyspace is required"},
		{"show of last without any", func(e *vdEnv) map[string]string {
			return nil
		}, req{"GET", base + "mv/vdiffs/last?target_keyspace=archive", ""}, 404, ""},
		{"list of an unknown workflow", nil, req{"GET", base + "nope/vdiffs?target_keyspace=archive", ""}, 404, ""},
		{"stop of an unknown uuid", nil, req{"POST", base + "mv/vdiffs/nope/stop", `{"target_keyspace":"archive"}`}, 404, ""},
		{"stop of an unknown shard", nil, req{"POST", base + "mv/vdiffs/{uuid}/stop", `{"target_keyspace":"archive","target_shards":["-80","-"]}`}, 422, `target_shards[1] "-" is not a target shard of workflow mv`},
		{"resume of a pending VDiff", nil, req{"POST", base + "mv/vdiffs/{uuid}/resume", `{"target_keyspace":"archive"}`}, 422, "is pending on shard -80; only a stopped or completed VDiff can be resumed"},
		{"resume of a started VDiff", func(e *vdEnv) map[string]string {
			e.srv.Advance(2 * time.Second)
			return nil
		}, req{"POST", base + "mv/vdiffs/{uuid}/resume", `{"target_keyspace":"archive"}`}, 422, "is started on shard -80"},
		{"resume of one started shard", func(e *vdEnv) map[string]string {
			e.srv.Advance(2 * time.Second)
			send(e.t, e.srv, "POST", base+"mv/vdiffs/"+e.lastUUID()+"/stop", admin(e.srv), `{"target_keyspace":"archive","target_shards":["-80"]}`)
			return nil
		}, req{"POST", base + "mv/vdiffs/{uuid}/resume", `{"target_keyspace":"archive","target_shards":["80-","-80"]}`}, 422, "is started on shard 80-"},
		{"stop of an unknown workflow", nil, req{"POST", base + "nope/vdiffs/{uuid}/stop", `{"target_keyspace":"archive"}`}, 404, ""},
		{"resume of an unknown workflow", nil, req{"POST", base + "nope/vdiffs/{uuid}/resume", `{"target_keyspace":"archive"}`}, 404, ""},
		{"resume of an unknown uuid", nil, req{"POST", base + "mv/vdiffs/nope/resume", `{"target_keyspace":"archive"}`}, 404, ""},
		{"resume of an unknown shard", nil, req{"POST", base + "mv/vdiffs/{uuid}/resume", `{"target_keyspace":"archive","target_shards":["c0-"]}`}, 422, `target_shards[0] "c0-" is not a target shard of workflow mv`},
		{"delete of an unknown uuid", nil, req{"DELETE", base + "mv/vdiffs/nope?target_keyspace=archive", ""}, 404, ""},
		{"delete in another keyspace", nil, req{"DELETE", base + "mv/vdiffs/{uuid}?target_keyspace=app", ""}, 404, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newVDiffEnv(t)
			if !strings.HasPrefix(tc.name, "show of last") {
				e.create(platform.CreateVDiffParams{})
			}
			if tc.setup != nil {
				tc.setup(e)
			}
			path := strings.ReplaceAll(tc.req.path, "{uuid}", e.lastUUID())
			before := e.state()
			w := send(t, e.srv, tc.req.method, path, admin(e.srv), tc.req.body)
			body := wantError(t, w, tc.status, map[int]string{404: "not_found", 422: "unprocessable"}[tc.status])
			if !strings.Contains(body.Message, tc.msg) {
				t.Errorf("message %q, want it to contain %q", body.Message, tc.msg)
			}
			if diff := cmp.Diff(before, e.state()); diff != "" {
				t.Errorf("a refused request changed the VDiffs (-before +after):\n%s", diff)
			}
		})
	}
}

// lastUUID is the UUID of mv's latest VDiff ("" for none).
func (e *vdEnv) lastUUID() string {
	e.t.Helper()
	l, err := e.c.Vitess.ListVDiffs(e.t.Context(), &platform.ListVDiffsParams{Organization: e.org, Database: drDB, Branch: "main", Workflow: "mv", TargetKeyspace: "archive"})
	if err != nil || len(l.VDiffs) == 0 {
		return ""
	}
	return l.VDiffs[0].UUID
}

// state is every VDiff of mv as the list and show documents render them.
func (e *vdEnv) state() []string {
	e.t.Helper()
	l, err := e.c.Vitess.ListVDiffs(e.t.Context(), &platform.ListVDiffsParams{Organization: e.org, Database: drDB, Branch: "main", Workflow: "mv", TargetKeyspace: "archive"})
	if err != nil {
		e.t.Fatal(err)
	}
	out := []string{string(l.Raw)}
	for _, d := range l.VDiffs {
		out = append(out, string(e.show(d.UUID).Raw))
	}
	return out
}

// TestVDiffWorkflowStates checks which workflow states a VDiff may be
// created in: only with every stream running and writes not switched.
func TestVDiffWorkflowStates(t *testing.T) {
	t.Parallel()
	tests := []struct {
		state platform.WorkflowState
		msg   string // "" when a VDiff may be created
	}{
		{platform.WorkflowCopying, "not all streams are running in workflow archive.mv: they are Copying"},
		{platform.WorkflowRunning, ""},
		{platform.WorkflowSwitchedReplicas, ""},
		{platform.WorkflowError, "they are Error"},
		{platform.WorkflowSwitchedPrimaries, "writes have already been switched"},
	}
	for _, tc := range tests {
		t.Run(string(tc.state), func(t *testing.T) {
			t.Parallel()
			e := &vdEnv{newDREnv(t, false, fake.WithTimings(vdTimings))}
			if err := e.srv.AddKeyspace(e.org, drDB, "main", "archive", 2); err != nil {
				t.Fatal(err)
			}
			wfDrive(t, e.srv, e.c, &platform.CreateWorkflowParams{Organization: e.org, Database: drDB, Name: "mv", SourceKeyspace: drDB, TargetKeyspace: "archive", Tables: []string{"users"}}, tc.state)
			_, err := e.c.Vitess.CreateVDiff(t.Context(), &platform.CreateVDiffParams{Organization: e.org, Database: drDB, Branch: "main", Workflow: "mv", TargetKeyspace: "archive"})
			switch {
			case tc.msg == "" && err != nil:
				t.Errorf("create: %v", err)
			case tc.msg != "" && (!errors.Is(err, platform.ErrUnprocessable) || !strings.Contains(err.Error(), tc.msg)):
				t.Errorf("create: %v, want a 422 containing %q", err, tc.msg)
			}
		})
	}
}

// TestVDiffSnapshot restores a world with a VDiff part way, stopped and
// with differences arranged: the restored one renders the same and runs
// the same.
func TestVDiffSnapshot(t *testing.T) {
	t.Parallel()
	e := newVDiffEnv(t)
	if err := e.srv.SetVDiffDifferences(e.org, drDB, "main", "archive", "audit", fake.VDiffDifferences{Mismatched: []string{"5"}}); err != nil {
		t.Fatal(err)
	}
	running := e.create(platform.CreateVDiffParams{})
	stopped := e.create(platform.CreateVDiffParams{Tables: []string{"audit"}})
	e.srv.Advance(4 * time.Second)
	if _, err := e.c.Vitess.StopVDiff(t.Context(), e.shards(stopped, "-80")); err != nil {
		t.Fatal(err)
	}
	data, err := e.srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	other := &vdEnv{&drEnv{t: t, srv: fake.NewServer(t, fake.WithTimings(vdTimings)), org: e.org}}
	other.c = other.srv.Client()
	if err := other.srv.Restore(data); err != nil {
		t.Fatal(err)
	}
	for _, env := range []*vdEnv{e, other} {
		env.srv.Advance(20 * time.Second)
	}
	if diff := cmp.Diff(e.state(), other.state()); diff != "" {
		t.Errorf("the restored VDiffs (-original +restored):\n%s", diff)
	}
	if v := other.show(running); v.State != platform.VDiffCompleted || v.Tables[0].MismatchedRows != 1 {
		t.Errorf("the restored running VDiff: %s with %d mismatched", v.State, v.Tables[0].MismatchedRows)
	}
}

// TestSetVDiffDifferencesRefusals checks the Go API's refusals.
func TestSetVDiffDifferencesRefusals(t *testing.T) {
	t.Parallel()
	e := newVitessEnv(t)
	tests := []struct {
		name, db, keyspace, table string
		d                         fake.VDiffDifferences
		msg                       string
	}{
		{"postgres", "pg", "pg", "t", fake.VDiffDifferences{Mismatched: []string{"1"}}, "MySQL's"},
		{"unknown keyspace", "app", "nope", "t", fake.VDiffDifferences{Mismatched: []string{"1"}}, `keyspace "nope"`},
		{"no table", "app", "app", "", fake.VDiffDifferences{Mismatched: []string{"1"}}, "table"},
		{"empty row", "app", "app", "t", fake.VDiffDifferences{ExtraSource: []string{" "}}, "extra_source[0] is empty"},
		{"twice", "app", "app", "t", fake.VDiffDifferences{ExtraTarget: []string{"1", "1"}}, `extra_target[1] "1" is named twice`},
	}
	for _, tc := range tests {
		err := e.srv.SetVDiffDifferences(e.srv.Org(), tc.db, "main", tc.keyspace, tc.table, tc.d)
		if err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: %v, want an error containing %q", tc.name, err, tc.msg)
		}
	}
}
