package fake_test

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// wfSplit is a target keyspace of two shards (-80 and 80-): a workflow
// into it from the one shard of app has two streams.
const wfSplit = "split"

// newWFSplitEnv is newWFEnv with wfSplit too, and workflow 1 created
// moving audit and users from app into it.
func newWFSplitEnv(t *testing.T) (*drEnv, *platform.Workflow) {
	t.Helper()
	e := newWFEnv(t)
	if err := e.srv.AddKeyspace(e.org, drDB, "main", wfSplit, 2); err != nil {
		t.Fatal(err)
	}
	p := wfCreate(e.srv)
	p.TargetKeyspace, p.Tables = wfSplit, []string{"audit", "users"}
	wf, err := e.c.Workflows.Create(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	return e, wf
}

// wfStreamRow is a workflow stream as a test checks it: times as offsets
// from the workflow's creation, and its position as the last transaction
// of its GTID set.
type wfStreamRow struct {
	Target, Source, State string
	Rows                  int64
	Primary               bool
	Info                  string
	Updated               time.Duration
	Position              int64
}

// wfLogRow is an entry of a stream's log as a test checks it.
type wfLogRow struct {
	Kind, State, Message string
	At                   time.Duration
}

// wfStreams reads wf's streams as wfStreamRows, and the log they share,
// checking what every stream must have: an ID of its own, the workflow's
// creation, the same log entries (with IDs of their own), no throttling
// and no stop position.
func wfStreams(t *testing.T, wf *platform.Workflow) ([]wfStreamRow, []wfLogRow) {
	t.Helper()
	since := func(ts platform.Timestamp) time.Duration { return ts.Sub(wf.CreatedAt.Time) }
	rows := []wfStreamRow{}
	var logs []wfLogRow
	ids := map[string]bool{}
	for i, s := range wf.Streams {
		if s.ID == "" || ids[s.ID] || !s.CreatedAt.Equal(wf.CreatedAt.Time) || s.ComponentThrottled != nil || s.ComponentThrottledAt != nil || s.StopPosition != "" {
			t.Errorf("stream %d: %+v: want an ID of its own, created with the workflow, not throttled, no stop position", i, s)
		}
		ids[s.ID] = true
		_, last, _ := strings.Cut(s.Position, ":1-")
		pos, err := strconv.ParseInt(last, 10, 64)
		if err != nil || !strings.HasPrefix(s.Position, "MySQL56/") {
			t.Errorf("stream %d: position %q is not a GTID set", i, s.Position)
		}
		rows = append(rows, wfStreamRow{s.TargetShard, s.SourceShard, s.State, s.RowsCopied, s.PrimaryServing, s.Info, since(s.UpdatedAt), pos})
		var mine []wfLogRow
		for _, l := range s.Logs {
			if l.ID == "" || ids[l.ID] || !l.CreatedAt.Equal(l.UpdatedAt.Time) {
				t.Errorf("stream %d: log %+v: want an ID of its own, updated when created", i, l)
			}
			ids[l.ID] = true
			mine = append(mine, wfLogRow{l.LogType, l.State, l.Message, since(l.CreatedAt)})
		}
		if i == 0 {
			logs = mine
		} else if diff := cmp.Diff(logs, mine); diff != "" {
			t.Errorf("stream %d's log differs from stream 0's (-0 +%d):\n%s", i, i, diff)
		}
	}
	return rows, logs
}

// wfCreatedLog is the start of every stream log: created, stopped, and
// copying at once.
var wfCreatedLog = []wfLogRow{
	{platform.StreamLogCreated, platform.VReplicationStopped, "MoveTables workflow move-audit created", 0},
	{platform.StreamLogCopyStarted, platform.VReplicationCopying, "", 0},
}

// wfTwoStreams are the two streams of workflow 1 of newWFSplitEnv in a
// state, with rows each and updated and position at offsets.
func wfTwoStreams(state string, rows int64, primary bool, info string, updated time.Duration) []wfStreamRow {
	pos := 1 + int64(updated/time.Second)
	return []wfStreamRow{
		{"-80", "-", state, rows, primary, info, updated, pos},
		{"80-", "-", state, rows, primary, info, updated, pos},
	}
}

// TestWorkflowStreamsFollowTheWorkflow follows the two streams of a
// workflow (start 10 s, copy a minute, every other step 10 s; two tables
// of 2000 rows each, 1000 from the source shard into each target shard)
// through its life: copying while it is pending and copying, each
// stream's share of the tables' rows following the copy, running once
// copied, serving primary traffic once the primaries are switched, and
// stopped for good when it completes, its position read up to then. The
// streams are those of the Vitess view of the same workflow, in get and
// list alike.
func TestWorkflowStreamsFollowTheWorkflow(t *testing.T) {
	t.Parallel()
	e, created := newWFSplitEnv(t)
	copied := append(slices.Clone(wfCreatedLog), wfLogRow{platform.StreamLogCopyEnded, platform.VReplicationRunning, "", 70 * time.Second})
	completed := append(slices.Clone(copied), wfLogRow{platform.StreamLogStateChange, platform.VReplicationStopped, "workflow completed", 115 * time.Second})
	ref := wfRef(e.srv, 1)
	steps := []struct {
		name    string
		do      func(t *testing.T) // from the step before
		at      time.Duration      // since creation, once done
		state   platform.WorkflowState
		streams []wfStreamRow
		logs    []wfLogRow
	}{
		{"created", func(*testing.T) {}, 0, platform.WorkflowPending, wfTwoStreams(platform.VReplicationCopying, 0, false, "", 0), wfCreatedLog},
		{"copying", func(*testing.T) { e.srv.Advance(35 * time.Second) }, 35 * time.Second, platform.WorkflowCopying,
			// 25 s of the minute's copy: audit 5/6 copied (1666 of 2000 rows), 833 by each stream.
			wfTwoStreams(platform.VReplicationCopying, 833, false, "", 35*time.Second), wfCreatedLog},
		{"running", func(*testing.T) { e.srv.Advance(40 * time.Second) }, 75 * time.Second, platform.WorkflowRunning,
			wfTwoStreams(platform.VReplicationRunning, 2000, false, "", 75*time.Second), copied},
		{"verified", func(t *testing.T) { wfSteps(t, e.c, ref, "verify-data", "wait:verified_data") }, 85 * time.Second, platform.WorkflowVerifiedData,
			wfTwoStreams(platform.VReplicationRunning, 2000, false, "", 85*time.Second), copied},
		{"replicas switched", func(t *testing.T) { wfSteps(t, e.c, ref, "switch-replicas", "wait:switched_replicas") }, 95 * time.Second, platform.WorkflowSwitchedReplicas,
			wfTwoStreams(platform.VReplicationRunning, 2000, false, "", 95*time.Second), copied},
		{"primaries switched", func(t *testing.T) { wfSteps(t, e.c, ref, "switch-primaries", "wait:switched_primaries") }, 105 * time.Second, platform.WorkflowSwitchedPrimaries,
			wfTwoStreams(platform.VReplicationRunning, 2000, true, "", 105*time.Second), copied},
		{"cutover", func(t *testing.T) { wfSteps(t, e.c, ref, "cutover", "wait:cutover") }, 115 * time.Second, platform.WorkflowCutover,
			wfTwoStreams(platform.VReplicationRunning, 2000, true, "", 115*time.Second), copied},
		{"completed", func(t *testing.T) { wfSteps(t, e.c, ref, "complete") }, 115 * time.Second, platform.WorkflowCompleted,
			wfTwoStreams(platform.VReplicationStopped, 2000, true, "workflow completed", 115*time.Second), completed},
		{"an hour later", func(*testing.T) { e.srv.Advance(time.Hour) }, time.Hour + 115*time.Second, platform.WorkflowCompleted,
			wfTwoStreams(platform.VReplicationStopped, 2000, true, "workflow completed", 115*time.Second), completed},
	}
	var ids []string
	for _, s := range created.Streams {
		ids = append(ids, s.ID)
	}
	for _, st := range steps {
		st.do(t)
		wf, err := e.c.Workflows.Get(t.Context(), ref)
		if err != nil {
			t.Fatal(err)
		}
		if wf.State != st.state || e.srv.Now().Sub(wf.CreatedAt.Time) != st.at {
			t.Fatalf("%s: %s at %v, want %s at %v", st.name, wf.State, e.srv.Now().Sub(wf.CreatedAt.Time), st.state, st.at)
		}
		streams, logs := wfStreams(t, wf)
		if diff := cmp.Diff(st.streams, streams); diff != "" {
			t.Errorf("%s: streams (-want +got):\n%s", st.name, diff)
		}
		if diff := cmp.Diff(st.logs, logs); diff != "" {
			t.Errorf("%s: log (-want +got):\n%s", st.name, diff)
		}
		var now []string
		for _, s := range wf.Streams {
			now = append(now, s.ID)
		}
		if diff := cmp.Diff(ids, now); diff != "" {
			t.Errorf("%s: stream IDs changed (-created +now):\n%s", st.name, diff)
		}
		if diff := cmp.Diff(wf.Streams, onlyListedWorkflow(t, e).Streams); diff != "" {
			t.Errorf("%s: listed (-get +list):\n%s", st.name, diff)
		}
		if wf.State == platform.WorkflowCompleted {
			continue // its VReplication workflow is gone
		}
		vr, err := e.c.Vitess.ListWorkflows(t.Context(), &platform.ListVReplicationWorkflowsParams{Organization: e.org, Database: drDB, Branch: "main", Keyspace: wfSplit})
		if err != nil || len(vr.Workflows) != 1 {
			t.Fatalf("vtctld workflows: %v, %v", vr, err)
		}
		var seen, want [][4]string
		for i, s := range vr.Workflows[0].Streams {
			seen = append(seen, [4]string{s.Shard, s.SourceShard, s.State, s.Position})
			want = append(want, [4]string{wf.Streams[i].TargetShard, wf.Streams[i].SourceShard, wf.Streams[i].State, wf.Streams[i].Position})
		}
		if diff := cmp.Diff(want, seen); diff != "" {
			t.Errorf("%s: the Vitess view's streams (-workflow +vtctld):\n%s", st.name, diff)
		}
	}
}

// TestWorkflowStreamsLeavingTheirState leaves the copy halfway through
// audit (25 s after creation) in each way it can be left, and reads the
// streams a minute later: stopped (and started again), failed (and
// retried), cancelled while copying, cancelled with traffic switched
// (running until the workflow is cancelled), and cancelled with their
// branch.
func TestWorkflowStreamsLeavingTheirState(t *testing.T) {
	t.Parallel()
	vr := func(e *drEnv) *platform.StartVReplicationWorkflowParams {
		return &platform.StartVReplicationWorkflowParams{Organization: e.org, Database: drDB, Branch: "main", Workflow: "move-audit", Keyspace: wfSplit}
	}
	at := func(kind, state, msg string, d time.Duration) wfLogRow { return wfLogRow{kind, state, msg, d} }
	log := func(more ...wfLogRow) []wfLogRow { return append(slices.Clone(wfCreatedLog), more...) }
	failure := "the workflow stopped with an error while copying"
	cases := []struct {
		name    string
		leave   func(t *testing.T, e *drEnv, wf *platform.Workflow)
		state   platform.WorkflowState
		streams []wfStreamRow // at 85 s
		logs    []wfLogRow
	}{
		{"stop", func(t *testing.T, e *drEnv, _ *platform.Workflow) {
			if _, err := e.c.Vitess.StopWorkflow(t.Context(), vr(e)); err != nil {
				t.Fatal(err)
			}
		}, platform.WorkflowStopped, wfTwoStreams(platform.VReplicationStopped, 500, false, "Stopped", 25*time.Second),
			log(at(platform.StreamLogStateChange, platform.VReplicationStopped, "Stopped", 25*time.Second))},
		{"stop and start", func(t *testing.T, e *drEnv, _ *platform.Workflow) {
			if _, err := e.c.Vitess.StopWorkflow(t.Context(), vr(e)); err != nil {
				t.Fatal(err)
			}
			e.srv.Advance(10 * time.Second)
			if _, err := e.c.Vitess.StartWorkflow(t.Context(), vr(e)); err != nil {
				t.Fatal(err)
			}
			// 45 s of the copy left from 35 s: copied at 80 s.
		}, platform.WorkflowRunning, wfTwoStreams(platform.VReplicationRunning, 2000, false, "", 85*time.Second),
			log(at(platform.StreamLogStateChange, platform.VReplicationStopped, "Stopped", 25*time.Second),
				at(platform.StreamLogCopyStarted, platform.VReplicationCopying, "", 35*time.Second),
				at(platform.StreamLogCopyEnded, platform.VReplicationRunning, "", 80*time.Second))},
		{"failure", func(t *testing.T, e *drEnv, wf *platform.Workflow) {
			if err := e.srv.FailNext(wf.ID); err != nil {
				t.Fatal(err)
			}
			// The copy fails at its end (70 s): no rows copied.
		}, platform.WorkflowError, wfTwoStreams(platform.VReplicationError, 0, false, failure, 70*time.Second),
			log(at(platform.StreamLogError, platform.VReplicationError, failure, 70*time.Second))},
		{"failure and retry", func(t *testing.T, e *drEnv, wf *platform.Workflow) {
			if err := e.srv.FailNext(wf.ID); err != nil {
				t.Fatal(err)
			}
			e.srv.Advance(50 * time.Second) // failed at 70 s
			if _, err := e.c.Workflows.Retry(t.Context(), wfRef(e.srv, 1)); err != nil {
				t.Fatal(err)
			}
			// Copying again from 75 s: 10 s in at 85 s, audit a third
			// copied (666 of 2000 rows).
		}, platform.WorkflowCopying, wfTwoStreams(platform.VReplicationCopying, 333, false, "", 85*time.Second),
			log(at(platform.StreamLogError, platform.VReplicationError, failure, 70*time.Second),
				at(platform.StreamLogCopyStarted, platform.VReplicationCopying, "", 75*time.Second))},
		{"cancel while copying", func(t *testing.T, e *drEnv, _ *platform.Workflow) {
			if _, err := e.c.Workflows.Cancel(t.Context(), wfRef(e.srv, 1)); err != nil {
				t.Fatal(err)
			}
			// Cancelling for 10 s: the streams copy no more, and stop
			// when it is cancelled.
		}, platform.WorkflowCancelled, wfTwoStreams(platform.VReplicationStopped, 500, false, "workflow cancelled", 35*time.Second),
			log(at(platform.StreamLogStateChange, platform.VReplicationStopped, "workflow cancelled", 35*time.Second))},
		{"cancel with replicas switched", func(t *testing.T, e *drEnv, _ *platform.Workflow) {
			ref := wfRef(e.srv, 1)
			wfSteps(t, e.c, ref, "wait:running", "switch-replicas", "wait:switched_replicas", "cancel")
			// At 80 s; reversing traffic for 10 s, then cancelling for
			// 10 s: running until cancelled at 100 s.
			e.srv.Advance(20 * time.Second)
		}, platform.WorkflowCancelled, wfTwoStreams(platform.VReplicationStopped, 2000, false, "workflow cancelled", 100*time.Second),
			log(at(platform.StreamLogCopyEnded, platform.VReplicationRunning, "", 70*time.Second),
				at(platform.StreamLogStateChange, platform.VReplicationStopped, "workflow cancelled", 100*time.Second))},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e, wf := newWFSplitEnv(t)
			e.srv.Advance(25 * time.Second)
			tc.leave(t, e, wf)
			if d := 85*time.Second - e.srv.Now().Sub(wf.CreatedAt.Time); d > 0 {
				e.srv.Advance(d)
			}
			got, err := e.c.Workflows.Get(t.Context(), wfRef(e.srv, 1))
			if err != nil {
				t.Fatal(err)
			}
			if got.State != tc.state {
				t.Errorf("state %s, want %s", got.State, tc.state)
			}
			streams, logs := wfStreams(t, got)
			if diff := cmp.Diff(tc.streams, streams); diff != "" {
				t.Errorf("streams (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.logs, logs); diff != "" {
				t.Errorf("log (-want +got):\n%s", diff)
			}
		})
	}
}

// TestWorkflowStreamsOfADeletedBranch cancels a copying workflow with its
// branch: its streams stop at once, as it is cancelled.
func TestWorkflowStreamsOfADeletedBranch(t *testing.T) {
	t.Parallel()
	e := newWFEnv(t)
	e.branch("dev", drChange...)
	p := wfCreate(e.srv)
	p.Branch, p.Tables = platform.Ptr("dev"), []string{"orders"}
	wf := wfDrive(t, e.srv, nil, p, platform.WorkflowCopying)
	e.srv.Advance(5 * time.Second)
	if err := e.c.Branches.Delete(t.Context(), &platform.DeleteBranchParams{Organization: e.org, Database: drDB, Branch: "dev"}); err != nil {
		t.Fatal(err)
	}
	got, err := e.c.Workflows.Get(t.Context(), wfRef(e.srv, wf.Number))
	if err != nil {
		t.Fatal(err)
	}
	gone := got.CancelledAt.Sub(got.CreatedAt.Time)
	streams, logs := wfStreams(t, got)
	want := []wfStreamRow{{"-", "-", platform.VReplicationStopped, got.Tables[0].RowsCopied, false, "workflow cancelled", gone, 1 + int64(gone/time.Second)}}
	if diff := cmp.Diff(want, streams); diff != "" {
		t.Errorf("streams (-want +got):\n%s", diff)
	}
	wantLog := append(slices.Clone(wfCreatedLog), wfLogRow{platform.StreamLogStateChange, platform.VReplicationStopped, "workflow cancelled", gone})
	wantLog[0].Message = "MoveTables workflow move-audit created"
	if diff := cmp.Diff(wantLog, logs); diff != "" {
		t.Errorf("log (-want +got):\n%s", diff)
	}
	if got.Tables[0].RowsCopied == 0 {
		t.Errorf("tables %+v: want some rows copied 15 s into the copy", got.Tables)
	}
}

// wfReport is a table report of a verification as a test checks it.
type wfReport struct {
	Table, Shard                      string
	Mismatched, ExtraSource, ExtraTgt int64
	Samples                           string // the sample rows, mismatched/extra source/extra target
	Queries                           []string
}

// wfReports reads the table reports of vd, checking their IDs (one each,
// the same for the same table and shard in every read: ids) and times
// (created when the verification started, updated with it).
func wfReports(t *testing.T, vd *platform.WorkflowVDiff, ids map[string]string) []wfReport {
	t.Helper()
	out := []wfReport{}
	for _, r := range vd.TableReports {
		key := r.TableName + "/" + r.Shard
		if r.ID == "" || ids[key] != "" && ids[key] != r.ID || vd.StartedAt == nil || !r.CreatedAt.Equal(vd.StartedAt.Time) || !r.UpdatedAt.Equal(vd.UpdatedAt.Time) {
			t.Errorf("report %s: %+v: want a stable ID, created when the verification started, updated with it", key, r)
		}
		ids[key] = r.ID
		raw := func(rows []json.RawMessage) string {
			var s []string
			for _, r := range rows {
				s = append(s, string(r))
			}
			return strings.Join(s, " ")
		}
		out = append(out, wfReport{r.TableName, r.Shard, r.MismatchedRowsCount, r.ExtraSourceRowsCount, r.ExtraTargetRowsCount,
			raw(r.MismatchedRows) + "/" + raw(r.ExtraSourceRows) + "/" + raw(r.ExtraTargetRows),
			[]string{r.SampleMismatchedRowsQuery, r.SampleExtraSourceRowsQuery, r.SampleExtraTargetRowsQuery}})
	}
	return out
}

// wfVDiffRow is a verification as a test checks it: times as offsets from
// the verification's creation (-1 for none).
type wfVDiffRow struct {
	State                       platform.VDiffState
	Progress                    int
	ETA                         int64
	Mismatch                    bool
	Updated, Started, Completed time.Duration
}

func wfVDiff(vd *platform.WorkflowVDiff) wfVDiffRow {
	since := func(ts *platform.Timestamp) time.Duration {
		if ts == nil {
			return -1
		}
		return ts.Sub(vd.CreatedAt.Time)
	}
	return wfVDiffRow{vd.State, vd.ProgressPercentage, vd.EtaSeconds, vd.HasMismatch, since(&vd.UpdatedAt), since(vd.StartedAt), since(vd.CompletedAt)}
}

// TestWorkflowVDiffFollowsTheVerification verifies a workflow's data
// (10 s; the comparison starts after a second) with differences arranged
// in audit in the target keyspace: no verification before verify-data,
// pending, then started and comparing each shard's tables in name order
// at an even pace (the differences found in proportion), then completed
// with every difference, spread over the two shards, and samples and the
// queries that read them. A second verify-data makes a new verification,
// which reads the differences as they are then (none).
func TestWorkflowVDiffFollowsTheVerification(t *testing.T) {
	t.Parallel()
	e, _ := newWFSplitEnv(t)
	ref := wfRef(e.srv, 1)
	wfSteps(t, e.c, ref, "wait:running")
	if wf, err := e.c.Workflows.Get(t.Context(), ref); err != nil || wf.VDiff != nil {
		t.Fatalf("before verify-data: vdiff %+v, %v; want none", wf.VDiff, err)
	}
	diffs := fake.VDiffDifferences{Mismatched: []string{"1", "2", "3", "4"}, ExtraSource: []string{"7"}, ExtraTarget: []string{"9", "10"}}
	if err := e.srv.SetVDiffDifferences(e.org, drDB, "main", wfSplit, "audit", diffs); err != nil {
		t.Fatal(err)
	}
	none := []string{"", "", ""}
	clean := func(table, shard string) wfReport { return wfReport{table, shard, 0, 0, 0, "//", none} }
	found := []wfReport{
		{"audit", "-80", 2, 1, 1, `{"id":"1"} {"id":"3"}/{"id":"7"}/{"id":"9"}`, []string{
			"select * from app.audit where id in ('1', '3')", "select * from app.audit where id in ('7')", "select * from split.audit where id in ('9')"}},
		{"audit", "80-", 2, 0, 1, `{"id":"2"} {"id":"4"}//{"id":"10"}`, []string{
			"select * from app.audit where id in ('2', '4')", "", "select * from split.audit where id in ('10')"}},
		clean("users", "-80"), clean("users", "80-"),
	}
	steps := []struct {
		name    string
		advance time.Duration
		vdiff   wfVDiffRow
		reports []wfReport
	}{
		{"asked", 0, wfVDiffRow{platform.VDiffPending, 0, 10, false, 0, -1, -1}, []wfReport{}},
		{"started", time.Second, wfVDiffRow{platform.VDiffStarted, 0, 9, false, time.Second, time.Second, -1},
			[]wfReport{clean("audit", "-80"), clean("audit", "80-"), clean("users", "-80"), clean("users", "80-")}},
		// 4 of the 9 s: each shard has compared 888 of its 2000 rows, all
		// of audit's 1000: a quarter of the mismatched rows found.
		{"comparing", 4 * time.Second, wfVDiffRow{platform.VDiffStarted, 44, 5, true, 5 * time.Second, time.Second, -1},
			[]wfReport{{"audit", "-80", 1, 0, 0, `{"id":"1"}//`, []string{"select * from app.audit where id in ('1')", "", ""}},
				{"audit", "80-", 1, 0, 0, `{"id":"2"}//`, []string{"select * from app.audit where id in ('2')", "", ""}},
				clean("users", "-80"), clean("users", "80-")}},
		{"completed", 5 * time.Second, wfVDiffRow{platform.VDiffCompleted, 100, 0, true, 10 * time.Second, time.Second, 10 * time.Second}, found},
		{"an hour later", time.Hour, wfVDiffRow{platform.VDiffCompleted, 100, 0, true, 10 * time.Second, time.Second, 10 * time.Second}, found},
	}
	if _, err := e.c.Workflows.VerifyData(t.Context(), ref); err != nil {
		t.Fatal(err)
	}
	var id string
	ids := map[string]string{}
	for _, st := range steps {
		e.srv.Advance(st.advance)
		wf, err := e.c.Workflows.Get(t.Context(), ref)
		if err != nil || wf.VDiff == nil {
			t.Fatalf("%s: vdiff %v, %v", st.name, wf, err)
		}
		if id == "" {
			id = wf.VDiff.ID
		}
		if wf.VDiff.ID != id || id == "" {
			t.Errorf("%s: ID %q, want %q throughout", st.name, wf.VDiff.ID, id)
		}
		if diff := cmp.Diff(st.vdiff, wfVDiff(wf.VDiff)); diff != "" {
			t.Errorf("%s: vdiff (-want +got):\n%s", st.name, diff)
		}
		if diff := cmp.Diff(st.reports, wfReports(t, wf.VDiff, ids)); diff != "" {
			t.Errorf("%s: reports (-want +got):\n%s", st.name, diff)
		}
	}
	if err := e.srv.SetVDiffDifferences(e.org, drDB, "main", wfSplit, "audit", fake.VDiffDifferences{}); err != nil {
		t.Fatal(err)
	}
	again, err := e.c.Workflows.VerifyData(t.Context(), ref)
	if err != nil {
		t.Fatal(err)
	}
	if again.VDiff == nil || again.VDiff.ID == id || again.VDiff.State != platform.VDiffPending {
		t.Fatalf("verify-data again: %+v; want a new pending verification", again.VDiff)
	}
	wfSteps(t, e.c, ref, "wait:verified_data")
	done, err := e.c.Workflows.Get(t.Context(), ref)
	if err != nil {
		t.Fatal(err)
	}
	if done.VDiff.State != platform.VDiffCompleted || done.VDiff.HasMismatch {
		t.Errorf("second verification: %+v; want completed without mismatch", done.VDiff)
	}
	if diff := cmp.Diff([]wfReport{clean("audit", "-80"), clean("audit", "80-"), clean("users", "-80"), clean("users", "80-")}, wfReports(t, done.VDiff, map[string]string{})); diff != "" {
		t.Errorf("second verification's reports (-want +got):\n%s", diff)
	}
}

// TestWorkflowVDiffLeavingTheVerification ends a verification early: a
// failure ends it in error where it was (at its end: everything
// compared, but not completed), and the retry runs the same verification
// again from the start; deleting the branch stops it where it is.
func TestWorkflowVDiffLeavingTheVerification(t *testing.T) {
	t.Parallel()
	t.Run("failure and retry", func(t *testing.T) {
		t.Parallel()
		e := newWFEnv(t)
		wf := wfDrive(t, e.srv, nil, wfCreate(e.srv), platform.WorkflowVerifyingData)
		if err := e.srv.FailNext(wf.ID); err != nil {
			t.Fatal(err)
		}
		ref := wfRef(e.srv, 1)
		wfSteps(t, e.c, ref, "wait:error")
		failed, err := e.c.Workflows.Get(t.Context(), ref)
		if err != nil {
			t.Fatal(err)
		}
		want := wfVDiffRow{platform.VDiffError, 99, 0, false, 10 * time.Second, time.Second, -1}
		if diff := cmp.Diff(want, wfVDiff(failed.VDiff)); diff != "" {
			t.Errorf("failed (-want +got):\n%s", diff)
		}
		e.srv.Advance(time.Minute)
		retried, err := e.c.Workflows.Retry(t.Context(), ref)
		if err != nil {
			t.Fatal(err)
		}
		// Run again from 70 s after its creation: pending, then the same
		// timeline.
		want = wfVDiffRow{platform.VDiffPending, 0, 10, false, 70 * time.Second, -1, -1}
		if diff := cmp.Diff(want, wfVDiff(retried.VDiff)); diff != "" || retried.VDiff.ID != failed.VDiff.ID {
			t.Errorf("retried %s, want %s (-want +got):\n%s", retried.VDiff.ID, failed.VDiff.ID, diff)
		}
		wfSteps(t, e.c, ref, "wait:verified_data")
		done, err := e.c.Workflows.Get(t.Context(), ref)
		if err != nil {
			t.Fatal(err)
		}
		want = wfVDiffRow{platform.VDiffCompleted, 100, 0, false, 80 * time.Second, 71 * time.Second, 80 * time.Second}
		if diff := cmp.Diff(want, wfVDiff(done.VDiff)); diff != "" {
			t.Errorf("completed after the retry (-want +got):\n%s", diff)
		}
	})
	t.Run("branch deleted", func(t *testing.T) {
		t.Parallel()
		e := newWFEnv(t)
		e.branch("dev", drChange...)
		p := wfCreate(e.srv)
		p.Branch, p.Tables = platform.Ptr("dev"), []string{"orders"}
		wfDrive(t, e.srv, nil, p, platform.WorkflowVerifyingData)
		e.srv.Advance(3 * time.Second) // 2 s of the 9 s compared
		if err := e.c.Branches.Delete(t.Context(), &platform.DeleteBranchParams{Organization: e.org, Database: drDB, Branch: "dev"}); err != nil {
			t.Fatal(err)
		}
		e.srv.Advance(time.Minute)
		got, err := e.c.Workflows.Get(t.Context(), wfRef(e.srv, 1))
		if err != nil {
			t.Fatal(err)
		}
		want := wfVDiffRow{platform.VDiffStopped, 22, 0, false, 3 * time.Second, time.Second, -1}
		if diff := cmp.Diff(want, wfVDiff(got.VDiff)); diff != "" || got.State != platform.WorkflowCancelled {
			t.Errorf("%s workflow's verification (-want +got):\n%s", got.State, diff)
		}
	})
}

// TestWorkflowStreamsSnapshot restores a snapshot taken mid-verification,
// with differences arranged and the streams' log grown by a stop and a
// start, and reads the same workflow at once and as the clock moves on:
// the streams, their logs and the verification, with their IDs.
func TestWorkflowStreamsSnapshot(t *testing.T) {
	t.Parallel()
	e, _ := newWFSplitEnv(t)
	vr := &platform.StartVReplicationWorkflowParams{Organization: e.org, Database: drDB, Branch: "main", Workflow: "move-audit", Keyspace: wfSplit}
	e.srv.Advance(20 * time.Second)
	if _, err := e.c.Vitess.StopWorkflow(t.Context(), vr); err != nil {
		t.Fatal(err)
	}
	e.srv.Advance(time.Minute)
	if _, err := e.c.Vitess.StartWorkflow(t.Context(), vr); err != nil {
		t.Fatal(err)
	}
	if err := e.srv.SetVDiffDifferences(e.org, drDB, "main", wfSplit, "users", fake.VDiffDifferences{ExtraTarget: []string{"5", "6", "8"}}); err != nil {
		t.Fatal(err)
	}
	ref := wfRef(e.srv, 1)
	wfSteps(t, e.c, ref, "wait:running", "verify-data")
	e.srv.Advance(6 * time.Second)
	snap, err := e.srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	other := fake.NewServer(t, fake.WithTimings(wfTimings))
	if err := other.Restore(snap); err != nil {
		t.Fatal(err)
	}
	// The arrangement changes after the snapshot: the verification read
	// it when it began.
	if err := e.srv.SetVDiffDifferences(e.org, drDB, "main", wfSplit, "users", fake.VDiffDifferences{}); err != nil {
		t.Fatal(err)
	}
	for _, step := range []time.Duration{0, 2 * time.Second, time.Hour} {
		for _, srv := range []*fake.Server{e.srv, other} {
			srv.Advance(step)
		}
		a, errA := e.c.Workflows.Get(t.Context(), ref)
		b, errB := other.Client().Workflows.Get(t.Context(), wfRef(other, 1))
		if errA != nil || errB != nil {
			t.Fatal(errA, errB)
		}
		if diff := cmp.Diff(a, b); diff != "" {
			t.Errorf("%v after the snapshot, the restored workflow differs (-original +restored):\n%s", step, diff)
		}
		if len(b.Streams) != 2 || len(b.Streams[0].Logs) != 5 || b.VDiff == nil || len(b.VDiff.TableReports) != 4 {
			t.Errorf("%v after: %d streams, logs %+v, vdiff %+v; want 2 streams logging a stop and a start, a verification of 4 reports", step, len(b.Streams), b.Streams, b.VDiff)
		}
	}
	done, err := other.Client().Workflows.Get(t.Context(), wfRef(other, 1))
	if err != nil {
		t.Fatal(err)
	}
	if !done.VDiff.HasMismatch || done.VDiff.TableReports[2].ExtraTargetRowsCount+done.VDiff.TableReports[3].ExtraTargetRowsCount != 3 {
		t.Errorf("restored verification %+v: want the 3 extra target rows of users arranged before it began", done.VDiff)
	}
}

// TestWorkflowSnapshotWithoutStreams restores a snapshot of a fake older
// than workflow streams and verifications: each workflow's streams are
// derived (from its VReplication workflow, or for an ended one from its
// keyspaces' shards), created and then in the state the workflow gives
// them since it last changed; its verification is derived from its own
// (none when it never verified, completed at verify_data_at, running
// until its step ends); IDs two restores agree on.
func TestWorkflowSnapshotWithoutStreams(t *testing.T) {
	t.Parallel()
	e := newWFEnv(t)
	if err := e.srv.AddKeyspace(e.org, drDB, "main", wfSplit, 2); err != nil {
		t.Fatal(err)
	}
	p := wfCreate(e.srv) // 1: users into archive, verified, then completed
	p.Name, p.Tables = "done", []string{"users"}
	wfDrive(t, e.srv, nil, p, platform.WorkflowPending)
	wfSteps(t, e.c, wfRef(e.srv, 1), "wait:running", "verify-data", "wait:verified_data", "switch-replicas", "wait:switched_replicas",
		"switch-primaries", "wait:switched_primaries", "cutover", "wait:cutover", "complete")
	p = wfCreate(e.srv) // 2: users back from archive, stopped while copying
	p.Name, p.Tables = "stopped", []string{"users"}
	p.SourceKeyspace, p.TargetKeyspace = wfTarget, drDB
	if _, err := e.c.Workflows.Create(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	e.srv.Advance(20 * time.Second)
	if _, err := e.c.Vitess.StopWorkflow(t.Context(), &platform.StartVReplicationWorkflowParams{Organization: e.org, Database: drDB, Branch: "main", Workflow: "stopped", Keyspace: drDB}); err != nil {
		t.Fatal(err)
	}
	p = wfCreate(e.srv) // 3: audit into split, verifying
	p.TargetKeyspace = wfSplit
	if _, err := e.c.Workflows.Create(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	wfSteps(t, e.c, wfRef(e.srv, 3), "wait:running", "verify-data")
	e.srv.Advance(5 * time.Second)
	snap, err := e.srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	old := snapshotEdit(t, snap, func(m map[string]any) {
		for _, db := range m["databases"].([]any) {
			wfs, _ := db.(map[string]any)["workflows"].([]any)
			for _, wf := range wfs {
				for _, k := range []string{"streams", "stream_log", "vdiff"} {
					delete(wf.(map[string]any), k)
				}
			}
		}
	})
	type derived struct {
		State      platform.WorkflowState
		Streams    []wfStreamRow
		Logs       []wfLogRow
		VDiff      platform.VDiffState
		VDiffTimes [3]time.Duration // updated, started, completed since created
	}
	var runs [][]*platform.Workflow
	for range 2 {
		other := fake.NewServer(t, fake.WithTimings(wfTimings))
		if err := other.Restore(old); err != nil {
			t.Fatal(err)
		}
		var got []*platform.Workflow
		for _, n := range []int{3, 1, 2} {
			wf, err := other.Client().Workflows.Get(t.Context(), wfRef(other, n))
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, wf)
		}
		runs = append(runs, got)
	}
	if diff := cmp.Diff(runs[0], runs[1]); diff != "" {
		t.Errorf("two restores derived differently (-first +second):\n%s", diff)
	}
	created := func(wf *platform.Workflow) wfLogRow {
		return wfLogRow{platform.StreamLogCreated, platform.VReplicationStopped, "MoveTables workflow " + wf.Name + " created", 0}
	}
	var got []derived
	for _, wf := range runs[0] {
		streams, logs := wfStreams(t, wf)
		d := derived{State: wf.State, Streams: streams, Logs: logs}
		if wf.VDiff != nil {
			v := wfVDiff(wf.VDiff)
			d.VDiff, d.VDiffTimes = v.State, [3]time.Duration{v.Updated, v.Started, v.Completed}
		}
		got = append(got, d)
	}
	since1, since2, since3 := e.srv.Now().Sub(runs[0][0].CreatedAt.Time), runs[0][1].UpdatedAt.Sub(runs[0][1].CreatedAt.Time), runs[0][2].UpdatedAt.Sub(runs[0][2].CreatedAt.Time)
	verifying := runs[0][0].UpdatedAt.Sub(runs[0][0].CreatedAt.Time)
	want := []derived{
		{platform.WorkflowVerifyingData, []wfStreamRow{
			{"-80", "-", platform.VReplicationRunning, 1000, false, "", since1, 1 + int64(since1/time.Second)},
			{"80-", "-", platform.VReplicationRunning, 1000, false, "", since1, 1 + int64(since1/time.Second)},
		}, []wfLogRow{created(runs[0][0]), {platform.StreamLogStateChange, platform.VReplicationRunning, "", verifying}},
			platform.VDiffStarted, [3]time.Duration{5 * time.Second, 0, -1}},
		{platform.WorkflowCompleted, []wfStreamRow{{"-", "-", platform.VReplicationStopped, 1000, true, "workflow completed", since2, 1 + int64(since2/time.Second)}},
			[]wfLogRow{created(runs[0][1]), {platform.StreamLogStateChange, platform.VReplicationStopped, "workflow completed", since2}},
			platform.VDiffCompleted, [3]time.Duration{0, 0, 0}},
		{platform.WorkflowStopped, []wfStreamRow{{"-", "-", platform.VReplicationStopped, 166, false, "Stopped", since3, 1 + int64(since3/time.Second)}},
			[]wfLogRow{created(runs[0][2]), {platform.StreamLogStateChange, platform.VReplicationStopped, "Stopped", since3}}, "", [3]time.Duration{}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("derived (-want +got):\n%s", diff)
	}
}

// TestWorkflowSnapshotRefusesStreams restores a snapshot of a workflow
// verifying its data, its streams, their log or its verification edited
// to what the API cannot reach: each is refused, naming what is wrong.
func TestWorkflowSnapshotRefusesStreams(t *testing.T) {
	t.Parallel()
	e, _ := newWFSplitEnv(t)
	wfSteps(t, e.c, wfRef(e.srv, 1), "wait:running", "verify-data")
	e.srv.Advance(3 * time.Second)
	snap, err := e.srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	wfOf := func(m map[string]any) map[string]any {
		for _, db := range m["databases"].([]any) {
			if wfs, ok := db.(map[string]any)["workflows"].([]any); ok && len(wfs) > 0 {
				return wfs[0].(map[string]any)
			}
		}
		t.Fatal("no workflow in the snapshot")
		return nil
	}
	item := func(m map[string]any, list string, i int) map[string]any {
		return wfOf(m)[list].([]any)[i].(map[string]any)
	}
	vdiff := func(m map[string]any) map[string]any { return wfOf(m)["vdiff"].(map[string]any) }
	vdiffTable := func(m map[string]any, i int) map[string]any { return vdiff(m)["tables"].([]any)[i].(map[string]any) }
	tests := []struct {
		name  string
		edit  func(m map[string]any)
		words []string
	}{
		{"a stream without an ID", func(m map[string]any) { item(m, "streams", 0)["id"] = "" }, []string{"streams[0]", "without an ID"}},
		{"a stream's ID twice", func(m map[string]any) { item(m, "streams", 1)["id"] = item(m, "streams", 0)["id"] }, []string{"streams[1]", "appears twice"}},
		{"two streams between the same shards", func(m map[string]any) { item(m, "streams", 1)["target_shard"] = "-80" }, []string{"streams[1]", "a second stream into -80 from -"}},
		{"a stream without a shard", func(m map[string]any) { item(m, "streams", 0)["source_shard"] = "" }, []string{"streams[0]", "names both"}},
		{"streams of other shards", func(m map[string]any) { item(m, "streams", 1)["target_shard"] = "c0-" }, []string{"not those of its VReplication workflow"}},
		{"streams without a log", func(m map[string]any) { delete(wfOf(m), "stream_log") }, []string{"streams without a stream_log"}},
		{"a log without streams", func(m map[string]any) { delete(wfOf(m), "streams") }, []string{"stream_log without streams"}},
		{"a log not starting with the creation", func(m map[string]any) { item(m, "stream_log", 0)["kind"] = platform.StreamLogStateChange }, []string{"stream_log[0]", "starts with"}},
		{"a second creation", func(m map[string]any) { item(m, "stream_log", 2)["kind"] = platform.StreamLogCreated }, []string{"stream_log[2]", "starts with"}},
		{"a log of an unknown kind", func(m map[string]any) { item(m, "stream_log", 1)["kind"] = "Exploded" }, []string{"stream_log[1]", `kind "Exploded"`}},
		{"a log of an unknown state", func(m map[string]any) { item(m, "stream_log", 1)["state"] = "Lagging" }, []string{"stream_log[1]", `state "Lagging"`}},
		{"a log out of order", func(m map[string]any) { item(m, "stream_log", 2)["at"] = "2026-01-01T00:00:00Z" }, []string{"stream_log[2]", "before the entry before it"}},
		{"a log after the snapshot", func(m map[string]any) { item(m, "stream_log", 2)["at"] = "2030-01-01T00:00:00Z" }, []string{"stream_log[2]", "after the snapshot's time"}},
		{"created apart from the workflow", func(m map[string]any) { item(m, "stream_log", 0)["at"] = "2026-01-01T00:00:01Z" }, []string{"stream_log[0]", "not with its workflow"}},
		{"streams not as the workflow has them", func(m map[string]any) { item(m, "stream_log", 2)["state"] = "Error" }, []string{"stream_log[2]", "the streams are Error", "has them Running"}},
		{"a verification without an ID", func(m map[string]any) { vdiff(m)["id"] = "" }, []string{"vdiff", "without an ID"}},
		{"a verification ended while its workflow verifies", func(m map[string]any) {
			vdiff(m)["state"], vdiff(m)["ended"] = "completed", vdiff(m)["begun"]
		}, []string{"vdiff", "runs exactly while its workflow verifies"}},
		{"a verification ending in another state", func(m map[string]any) { vdiff(m)["state"] = "started" }, []string{"vdiff", `state "started"`}},
		{"a verification due apart from its step", func(m map[string]any) { vdiff(m)["due"] = "2030-01-01T00:00:00Z" }, []string{"vdiff", "not when its workflow's verification step ends"}},
		{"a verification begun before it was asked for", func(m map[string]any) { vdiff(m)["begun"] = "2025-01-01T00:00:00Z" }, []string{"vdiff", "not in order"}},
		{"a verification of another table", func(m map[string]any) { vdiffTable(m, 0)["table"] = "orders" }, []string{"vdiff", "tables[0]", `table "orders" is not a table of the workflow`}},
		{"a verification on another shard", func(m map[string]any) { vdiffTable(m, 0)["shard"] = "c0-" }, []string{"vdiff", "tables[0]", `shard "c0-"`}},
		{"a table compared twice", func(m map[string]any) { vdiffTable(m, 1)["shard"] = "-80" }, []string{"vdiff", "tables[1]", "appears twice"}},
		{"a table without rows", func(m map[string]any) { vdiffTable(m, 0)["rows"] = 0 }, []string{"vdiff", "tables[0]", "rows 0"}},
		{"rows its streams did not copy", func(m map[string]any) { vdiffTable(m, 0)["rows"] = 5 }, []string{"vdiff", "tables[0]", "rows 5, not the"}},
		{"rows past any count", func(m map[string]any) { vdiffTable(m, 0)["rows"] = int64(1<<63 - 1) }, []string{"vdiff", "tables[0]", "not the"}},
		{"a table not compared", func(m map[string]any) { vdiff(m)["tables"] = vdiff(m)["tables"].([]any)[1:] }, []string{"vdiff", "3 tables compared, want 4"}},
		{"a difference without a key", func(m map[string]any) {
			vdiffTable(m, 0)["diffs"] = map[string]any{"mismatched": []any{""}}
		}, []string{"vdiff", "tables[0]", "mismatched[0] is empty"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			wfRestoreRefused(t, snapshotEdit(t, snap, tt.edit), tt.words...)
		})
	}
	other := fake.NewServer(t, fake.WithTimings(wfTimings))
	if err := other.Restore(snap); err != nil {
		t.Fatalf("the snapshot unedited: %v", err)
	}
}
