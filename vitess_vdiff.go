package platform

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// VDiffState is the state of a VDiff, of one of its shards or of one of
// its tables.
type VDiffState string

// The VDiff states. A VDiff starts pending (or stopped, when created
// without starting), compares while started, and ends completed; a stop
// leaves it stopped until resumed; error means a shard or table failed
// (Errors says why).
const (
	VDiffPending   VDiffState = "pending"
	VDiffStarted   VDiffState = "started"
	VDiffStopped   VDiffState = "stopped"
	VDiffError     VDiffState = "error"
	VDiffCompleted VDiffState = "completed"
	VDiffUnknown   VDiffState = "unknown"
)

// vdiffsPath is the path of a workflow's VDiffs, with suffix appended.
func vdiffsPath(org, db, branch, workflow, suffix string) string {
	return vitessPath(org, db, branch, pathf("/vdiff/workflows/%s/vdiffs", workflow)) + suffix
}

// CreateVDiffParams asks for a VDiff of a workflow: a comparison of the
// rows of its source keyspace with those of its target keyspace.
type CreateVDiffParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	// Workflow is the workflow's name.
	Workflow string `json:"-" url:"-"`
	// TargetKeyspace is the workflow's target keyspace.
	TargetKeyspace string `json:"target_keyspace"`
	// AutoRetry retries a VDiff that failed on an error that may pass.
	AutoRetry *bool `json:"auto_retry,omitempty"`
	// AutoStart false creates the VDiff stopped: ResumeVDiff starts it.
	AutoStart *bool `json:"auto_start,omitempty"`
	// DebugQuery adds to each sample row of the report the query that
	// reads it.
	DebugQuery *bool `json:"debug_query,omitempty"`
	// OnlyPKs reports only the primary key columns of sample rows.
	OnlyPKs *bool `json:"only_pks,omitempty"`
	// UpdateTableStats has the tables analyzed first, for their row
	// counts.
	UpdateTableStats *bool `json:"update_table_stats,omitempty"`
	// Verbose asks for a verbose report.
	Verbose *bool `json:"verbose,omitempty"`
	// Tables limits the comparison to these tables of the workflow; empty
	// for all of them.
	Tables []string `json:"tables,omitempty"`
	// TabletTypes are the tablet types to read from (primary, replica,
	// rdonly).
	TabletTypes []string `json:"tablet_types,omitempty"`
	// TabletSelectionPreference is "any" or "inorder" (TabletTypes in
	// their order).
	TabletSelectionPreference *string `json:"tablet_selection_preference,omitempty"`
	// FilteredReplicationWaitTime is how long, in seconds, to wait for
	// the target to catch up before comparing.
	FilteredReplicationWaitTime *int `json:"filtered_replication_wait_time,omitempty"`
	// MaxReportSampleRows is how many sample rows of each kind a table's
	// report shows (10 when not set).
	MaxReportSampleRows *int `json:"max_report_sample_rows,omitempty"`
	// MaxExtraRowsToCompare is how many extra rows to compare in full.
	MaxExtraRowsToCompare *int `json:"max_extra_rows_to_compare,omitempty"`
	// RowDiffColumnTruncateAt truncates long column values in the report.
	RowDiffColumnTruncateAt *int `json:"row_diff_column_truncate_at,omitempty"`
	// Limit is how many rows of each table each shard compares at most;
	// 0 or not set for all.
	Limit *int `json:"limit,omitempty"`
}

// CreatedVDiff is the answer to the creation of a VDiff.
type CreatedVDiff struct {
	// UUID names the VDiff in the other calls.
	UUID string `json:"-"`
	// Raw is the whole document: vtctldata.VDiffCreateResponse in
	// protobuf JSON.
	Raw json.RawMessage `json:"data"`
}

// CreateVDiff starts a VDiff of a workflow on each of its target shards
// and returns its UUID; [VitessService.WaitVDiff] waits until it has
// completed.
//
// API: POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/vdiff/workflows/{workflow}/vdiffs
func (s *VitessService) CreateVDiff(ctx context.Context, p *CreateVDiffParams) (*CreatedVDiff, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch, "workflow", p.Workflow, "target_keyspace", p.TargetKeyspace); err != nil {
		return nil, err
	}
	out := new(CreatedVDiff)
	if err := s.client.post(ctx, vdiffsPath(p.Organization, p.Database, p.Branch, p.Workflow, ""), p, out); err != nil {
		return nil, err
	}
	var doc struct {
		UUID string `json:"UUID"`
	}
	if err := decodeVtctld(out.Raw, &doc, "VDiff"); err != nil {
		return nil, err
	}
	out.UUID = doc.UUID
	return out, nil
}

// ListVDiffsParams names a workflow whose VDiffs to list.
type ListVDiffsParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	Workflow     string `json:"-" url:"-"`
	// TargetKeyspace is the workflow's target keyspace.
	TargetKeyspace string `json:"-" url:"target_keyspace"`
}

// VDiffs are the recent VDiffs of a workflow.
type VDiffs struct {
	// VDiffs are the VDiffs, newest first.
	VDiffs []*VDiffEntry `json:"-"`
	// Raw is the whole document: vtctldata.VDiffShowResponse in protobuf
	// JSON, each target shard's answer holding its rows of _vt.vdiff.
	Raw json.RawMessage `json:"data"`
}

// VDiffEntry is one VDiff of a list.
type VDiffEntry struct {
	// UUID names the VDiff.
	UUID string
	// Workflow is its workflow's name.
	Workflow string
	// Keyspace is its workflow's target keyspace.
	Keyspace string
	// State is the VDiff's state over its shards (see VDiff.State).
	State VDiffState
	// Shards are the target shards it runs on.
	Shards []string
	// ShardStates are the shards' states, by shard.
	ShardStates map[string]VDiffState
	// CreatedAt is when it was created.
	CreatedAt *time.Time
}

// ListVDiffs returns the recent VDiffs of a workflow, newest first.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/vdiff/workflows/{workflow}/vdiffs
func (s *VitessService) ListVDiffs(ctx context.Context, p *ListVDiffsParams) (*VDiffs, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch, "workflow", p.Workflow, "target_keyspace", p.TargetKeyspace); err != nil {
		return nil, err
	}
	out := new(VDiffs)
	if err := s.client.get(ctx, vdiffsPath(p.Organization, p.Database, p.Branch, p.Workflow, ""), p, out); err != nil {
		return nil, err
	}
	shards, err := decodeVDiffShow(out.Raw)
	if err != nil {
		return nil, err
	}
	type entry struct {
		e  *VDiffEntry
		id int64
	}
	var list []entry
	for _, sh := range shards {
		for _, row := range sh.rows {
			uuid := row["vdiff_uuid"]
			i := slices.IndexFunc(list, func(e entry) bool { return e.e.UUID == uuid })
			if i < 0 {
				list = append(list, entry{e: &VDiffEntry{UUID: uuid, Workflow: row["workflow"], Keyspace: row["keyspace"], ShardStates: map[string]VDiffState{}}})
				i = len(list) - 1
			}
			e := list[i].e
			id, _ := strconv.ParseInt(row["id"], 10, 64)
			list[i].id = max(list[i].id, id)
			e.Shards = append(e.Shards, sh.name)
			e.ShardStates[sh.name] = VDiffState(strings.ToLower(row["state"]))
			if at := vdiffTime(row["created_at"]); at != nil && (e.CreatedAt == nil || at.Before(*e.CreatedAt)) {
				e.CreatedAt = at
			}
		}
	}
	slices.SortStableFunc(list, func(a, b entry) int {
		if a.e.CreatedAt != nil && b.e.CreatedAt != nil && !a.e.CreatedAt.Equal(*b.e.CreatedAt) {
			return b.e.CreatedAt.Compare(*a.e.CreatedAt)
		}
		return int(b.id - a.id)
	})
	for _, x := range list {
		slices.Sort(x.e.Shards)
		x.e.State = overallVDiffState(x.e.ShardStates)
		out.VDiffs = append(out.VDiffs, x.e)
	}
	return out, nil
}

// overallVDiffState is a VDiff's state from its shards' states: stopped
// if any is, else error, started, pending, completed when all are.
func overallVDiffState(states map[string]VDiffState) VDiffState {
	count := map[VDiffState]int{}
	for _, s := range states {
		count[s]++
	}
	switch {
	case count[VDiffStopped] > 0:
		return VDiffStopped
	case count[VDiffError] > 0:
		return VDiffError
	case count[VDiffStarted] > 0:
		return VDiffStarted
	case count[VDiffPending] > 0:
		return VDiffPending
	case len(states) > 0 && count[VDiffCompleted] == len(states):
		return VDiffCompleted
	}
	return VDiffUnknown
}

// GetVDiffParams names a VDiff of a workflow.
type GetVDiffParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	Workflow     string `json:"-" url:"-"`
	// UUID is the VDiff's UUID, or "last" for the workflow's latest.
	UUID string `json:"-" url:"-"`
	// TargetKeyspace is the workflow's target keyspace.
	TargetKeyspace string `json:"-" url:"target_keyspace"`
}

// VDiff is the report of a VDiff, summed over its target shards as the
// Vitess tools sum it.
type VDiff struct {
	// UUID is the VDiff's UUID.
	UUID string `json:"-"`
	// State is its state over its shards: stopped if any shard is, else
	// error if any shard or table is, else started or pending if any
	// table is, completed when every table of every shard is.
	State VDiffState `json:"-"`
	// RowsCompared is how many rows have been compared, over all shards.
	RowsCompared int64 `json:"-"`
	// HasMismatch is true when some table differs on some shard.
	HasMismatch bool `json:"-"`
	// Shards are its target shards whose primaries answered, in order.
	Shards []string `json:"-"`
	// StartedAt is when the first shard started; nil before.
	StartedAt *time.Time `json:"-"`
	// CompletedAt is when the last shard completed; nil until the VDiff
	// has completed.
	CompletedAt *time.Time `json:"-"`
	// Progress is how far a started VDiff has come; nil in other states.
	Progress *VDiffProgress `json:"-"`
	// Errors are the shards' errors, by shard.
	Errors map[string]string `json:"-"`
	// Tables are its tables' summaries, by name.
	Tables []*VDiffTable `json:"-"`
	// Raw is the whole document: vtctldata.VDiffShowResponse in protobuf
	// JSON, each target shard's answer holding its rows of the VDiff's
	// tables (the query result of Vitess's summary).
	Raw json.RawMessage `json:"data"`
}

// VDiffProgress is how far a started VDiff has come.
type VDiffProgress struct {
	// Percentage is the share of the rows to compare compared so far,
	// from 0 to 100, rounded to two decimals.
	Percentage float64
	// TableRows is how many rows there are to compare, over all shards.
	TableRows int64
}

// ETA estimates when a started VDiff completes, at the pace it has kept
// since StartedAt, as of now; the zero time when it cannot tell yet
// (below 1%).
func (v *VDiff) ETA(now time.Time) time.Time {
	if v.Progress == nil || v.StartedAt == nil || v.Progress.Percentage < 1 {
		return time.Time{}
	}
	run := now.Sub(*v.StartedAt)
	left := time.Duration(float64(run) / v.Progress.Percentage * (100 - v.Progress.Percentage))
	return now.Add(left).Truncate(time.Second)
}

// VDiffTable is the summary of one table of a VDiff over its shards.
type VDiffTable struct {
	// Name is the table's name.
	Name string
	// State is the table's state: error if any shard's is, else the
	// state of a shard that has not completed, else completed.
	State VDiffState
	// RowsCompared is how many of its rows have been compared.
	RowsCompared int64
	// MatchingRows is how many of those match.
	MatchingRows int64
	// MismatchedRows is how many rows both sides have but differ.
	MismatchedRows int64
	// ExtraRowsSource is how many rows only the source has.
	ExtraRowsSource int64
	// ExtraRowsTarget is how many rows only the target has.
	ExtraRowsTarget int64
	// Reports are the shards' reports of the table, by shard.
	Reports map[string]*VDiffReport
}

// VDiffReport is what a VDiff found in one table on one shard (Vitess's
// DiffReport), with sample rows.
type VDiffReport struct {
	TableName       string `json:"TableName"`
	ProcessedRows   int64  `json:"ProcessedRows"`
	MatchingRows    int64  `json:"MatchingRows"`
	MismatchedRows  int64  `json:"MismatchedRows"`
	ExtraRowsSource int64  `json:"ExtraRowsSource"`
	ExtraRowsTarget int64  `json:"ExtraRowsTarget"`
	// ExtraRowsSourceSample are rows only the source has.
	ExtraRowsSourceSample []*VDiffRow `json:"ExtraRowsSourceSample,omitempty"`
	// ExtraRowsTargetSample are rows only the target has.
	ExtraRowsTargetSample []*VDiffRow `json:"ExtraRowsTargetSample,omitempty"`
	// MismatchedRowsSample are rows that differ, as each side has them.
	MismatchedRowsSample []*VDiffMismatch `json:"MismatchedRowsSample,omitempty"`
}

// VDiffRow is a sample row of a report: its columns' values, and the
// query that reads it when the VDiff was created with DebugQuery.
type VDiffRow struct {
	Row   map[string]string `json:"Row,omitempty"`
	Query string            `json:"Query,omitempty"`
}

// VDiffMismatch is a row that differs between source and target.
type VDiffMismatch struct {
	Source *VDiffRow `json:"Source,omitempty"`
	Target *VDiffRow `json:"Target,omitempty"`
}

// UnmarshalJSON reads the envelope {"data": ...} and sums the shards'
// rows into the VDiff's summary.
func (v *VDiff) UnmarshalJSON(b []byte) error {
	if err := nilTarget(v); err != nil {
		return err
	}
	data, err := vtctldEnvelope(b)
	if err != nil {
		return err
	}
	shards, err := decodeVDiffShow(data)
	if err != nil {
		return err
	}
	*v = VDiff{Raw: data}
	return v.sum(shards)
}

// sum fills the summary from the shards' rows, as vtctldclient's show
// does.
func (v *VDiff) sum(shards []vdiffShard) error {
	shardStates := map[VDiffState]int{}
	tableStates := map[VDiffState]int{}
	var total int64
	tables := map[string]*VDiffTable{}
	var started, completed string
	for _, sh := range shards {
		if sh.uuid != "" && v.UUID == "" {
			v.UUID = sh.uuid
		}
		if !sh.answered {
			continue
		}
		// A shard that answered counts even before it has rows, as
		// vtctldclient counts it: the VDiff is not completed until every
		// answering shard has completed every table.
		v.Shards = append(v.Shards, sh.name)
		if len(sh.rows) == 0 {
			continue
		}
		first := sh.rows[0]
		if sa := first["started_at"]; sa != "" && (started == "" || sa < started) {
			started = sa
		}
		if ca := first["completed_at"]; ca != "" && ca > completed {
			completed = ca
		}
		if e := first["last_error"]; e != "" {
			if v.Errors == nil {
				v.Errors = map[string]string{}
			}
			v.Errors[sh.name] = e
		}
		shardStates[VDiffState(strings.ToLower(first["vdiff_state"]))]++
		for _, row := range sh.rows {
			n, _ := strconv.ParseInt(row["rows_compared"], 10, 64)
			v.RowsCompared += n
			n, _ = strconv.ParseInt(row["table_rows"], 10, 64)
			total += n
			if row["has_mismatch"] == "1" {
				v.HasMismatch = true
			}
			name := row["table_name"]
			if name == "" {
				continue // the shard has not started its tables
			}
			t := tables[name]
			if t == nil {
				t = &VDiffTable{Name: name, State: VDiffUnknown, Reports: map[string]*VDiffReport{}}
				tables[name] = t
			}
			st := VDiffState(strings.ToLower(row["table_state"]))
			tableStates[st]++
			switch {
			case st == VDiffCompleted:
				if t.State == VDiffUnknown {
					t.State = st
				}
			case st == VDiffError:
				t.State = st
			case t.State != VDiffError:
				t.State = st
			}
			r := row["report"]
			if r == "" {
				continue // the shard has not compared the table yet
			}
			rep := &VDiffReport{}
			if err := json.Unmarshal([]byte(r), rep); err != nil {
				return fmt.Errorf("platform: decoding the VDiff report of %s on shard %s: %w", name, sh.name, err)
			}
			t.RowsCompared += rep.ProcessedRows
			t.MatchingRows += rep.MatchingRows
			t.MismatchedRows += rep.MismatchedRows
			t.ExtraRowsSource += rep.ExtraRowsSource
			t.ExtraRowsTarget += rep.ExtraRowsTarget
			t.Reports[sh.name] = rep
		}
	}
	slices.Sort(v.Shards)
	switch {
	case shardStates[VDiffStopped] > 0:
		v.State = VDiffStopped
	case shardStates[VDiffError] > 0 || tableStates[VDiffError] > 0:
		v.State = VDiffError
	case tableStates[VDiffStarted] > 0:
		v.State = VDiffStarted
	case tableStates[VDiffPending] > 0:
		v.State = VDiffPending
	case shardStates[VDiffPending] > 0 && len(tables) == 0:
		v.State = VDiffPending // no shard has listed its tables yet
	case len(v.Shards) > 0 && tableStates[VDiffCompleted] == len(tables)*len(v.Shards):
		v.State = VDiffStarted
		if shardStates[VDiffCompleted] == len(v.Shards) {
			v.State = VDiffCompleted
		}
	default:
		v.State = VDiffUnknown
	}
	v.StartedAt = vdiffTime(started)
	if v.State == VDiffCompleted {
		v.CompletedAt = vdiffTime(completed)
	}
	if v.State == VDiffStarted {
		p := &VDiffProgress{TableRows: total}
		if v.RowsCompared >= 1 && total > 0 {
			p.Percentage = math.Round(math.Min(float64(v.RowsCompared)/float64(total)*100, 100)*100) / 100
		}
		v.Progress = p
	}
	for _, name := range slices.Sorted(maps.Keys(tables)) {
		v.Tables = append(v.Tables, tables[name])
	}
	return nil
}

// vdiffTime reads a time of a VDiff's rows ("2006-01-02 15:04:05", UTC);
// nil for none.
func vdiffTime(s string) *time.Time {
	t, err := time.Parse(time.DateTime, s)
	if err != nil {
		return nil
	}
	return &t
}

// vdiffShard is one target shard's answer to a VDiff show: its rows, each
// a map of column name to value (NULL as "").
type vdiffShard struct {
	name string
	uuid string
	// answered is whether the shard's primary answered with a query
	// result, even one of no rows.
	answered bool
	rows     []map[string]string
}

// decodeVDiffShow decodes vtctldata.VDiffShowResponse: each shard's query
// result (query.QueryResult: fields, and rows as lengths and
// concatenated values in base64), by shard name.
func decodeVDiffShow(raw json.RawMessage) ([]vdiffShard, error) {
	var doc struct {
		TabletResponses map[string]*struct {
			Output *struct {
				Fields []struct {
					Name string `json:"name"`
				} `json:"fields"`
				Rows []struct {
					Lengths []json.Number `json:"lengths"`
					Values  string        `json:"values"`
				} `json:"rows"`
			} `json:"output"`
			VDiffUUID string `json:"vdiff_uuid"`
		} `json:"tablet_responses"`
	}
	if err := decodeVtctld(raw, &doc, "VDiff"); err != nil {
		return nil, err
	}
	var out []vdiffShard
	for _, name := range slices.Sorted(maps.Keys(doc.TabletResponses)) {
		r := doc.TabletResponses[name]
		sh := vdiffShard{name: name}
		if r == nil {
			out = append(out, sh)
			continue
		}
		sh.uuid = r.VDiffUUID
		if r.Output != nil {
			sh.answered = true
			for i, row := range r.Output.Rows {
				values, err := base64.StdEncoding.DecodeString(row.Values)
				if err != nil {
					return nil, fmt.Errorf("platform: decoding VDiff: shard %s row %d: %w", name, i, err)
				}
				m := make(map[string]string, len(r.Output.Fields))
				for j, f := range r.Output.Fields {
					if j >= len(row.Lengths) {
						break
					}
					n, err := strconv.ParseInt(row.Lengths[j].String(), 10, 64)
					if err != nil || n > int64(len(values)) {
						return nil, fmt.Errorf("platform: decoding VDiff: shard %s row %d: bad length %q of %s", name, i, row.Lengths[j], f.Name)
					}
					if n < 0 {
						continue // NULL
					}
					m[f.Name], values = string(values[:n]), values[n:]
				}
				sh.rows = append(sh.rows, m)
			}
		}
		out = append(out, sh)
	}
	return out, nil
}

// GetVDiff returns the report of a VDiff: its state, progress, rows
// compared and, per table, the differences found.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/vdiff/workflows/{workflow}/vdiffs/{uuid}
func (s *VitessService) GetVDiff(ctx context.Context, p *GetVDiffParams) (*VDiff, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch, "workflow", p.Workflow, "uuid", p.UUID, "target_keyspace", p.TargetKeyspace); err != nil {
		return nil, err
	}
	out := new(VDiff)
	return orNil(out, s.client.get(ctx, vdiffsPath(p.Organization, p.Database, p.Branch, p.Workflow, pathf("/%s", p.UUID)), p, out))
}

// WaitVDiff polls a VDiff until it has completed, and returns its report.
// One that stops or fails on the way gives a [*StateError] naming that
// state.
func (s *VitessService) WaitVDiff(ctx context.Context, p *GetVDiffParams) (*VDiff, error) {
	return waitForGet(ctx, s.client, func(ctx context.Context) (*VDiff, error) {
		return s.GetVDiff(ctx, p)
	}, func(v *VDiff) (bool, error) {
		switch v.State {
		case VDiffCompleted:
			return true, nil
		case VDiffStopped, VDiffError:
			return true, &StateError{Resource: "VDiff " + v.UUID, State: string(v.State), Want: []string{string(VDiffCompleted)}}
		}
		return false, nil
	})
}

// VDiffShardsParams names a VDiff to stop or resume, on all its target
// shards or on those named.
type VDiffShardsParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	Workflow     string `json:"-" url:"-"`
	UUID         string `json:"-" url:"-"`
	// TargetKeyspace is the workflow's target keyspace.
	TargetKeyspace string `json:"target_keyspace"`
	// TargetShards limits the action to these target shards; empty for
	// all.
	TargetShards []string `json:"target_shards,omitempty"`
}

// StopVDiffParams names a VDiff to stop.
type StopVDiffParams = VDiffShardsParams

// ResumeVDiffParams names a VDiff to resume.
type ResumeVDiffParams = VDiffShardsParams

// VDiffAction is the answer to a stop, resume or delete of a VDiff,
// which Vitess leaves empty: read the VDiff with [VitessService.GetVDiff].
type VDiffAction struct {
	// Raw is the whole document (vtctldata.VDiffStopResponse,
	// VDiffResumeResponse or VDiffDeleteResponse in protobuf JSON).
	Raw json.RawMessage `json:"data"`
}

// StopVDiff stops a pending or started VDiff where it is; ResumeVDiff
// goes on from there. Stopping one already stopped or completed changes
// nothing.
//
// API: POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/vdiff/workflows/{workflow}/vdiffs/{uuid}/stop
func (s *VitessService) StopVDiff(ctx context.Context, p *StopVDiffParams) (*VDiffAction, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch, "workflow", p.Workflow, "uuid", p.UUID, "target_keyspace", p.TargetKeyspace); err != nil {
		return nil, err
	}
	out := new(VDiffAction)
	return orNil(out, s.client.post(ctx, vdiffsPath(p.Organization, p.Database, p.Branch, p.Workflow, pathf("/%s/stop", p.UUID)), p, out))
}

// ResumeVDiff resumes a stopped VDiff from where it stopped, or a
// completed one (which then compares what changed since), or starts one
// created with AutoStart false.
//
// API: POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/vdiff/workflows/{workflow}/vdiffs/{uuid}/resume
func (s *VitessService) ResumeVDiff(ctx context.Context, p *ResumeVDiffParams) (*VDiffAction, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch, "workflow", p.Workflow, "uuid", p.UUID, "target_keyspace", p.TargetKeyspace); err != nil {
		return nil, err
	}
	out := new(VDiffAction)
	return orNil(out, s.client.post(ctx, vdiffsPath(p.Organization, p.Database, p.Branch, p.Workflow, pathf("/%s/resume", p.UUID)), p, out))
}

// DeleteVDiffParams names a VDiff to delete.
type DeleteVDiffParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	Workflow     string `json:"-" url:"-"`
	// UUID is the VDiff's UUID, or "all" for every VDiff of the workflow.
	UUID string `json:"-" url:"-"`
	// TargetKeyspace is the workflow's target keyspace.
	TargetKeyspace string `json:"-" url:"target_keyspace"`
}

// DeleteVDiff deletes a VDiff (stopping it first if it runs), or with
// UUID "all" every VDiff of the workflow.
//
// API: DELETE /v1/organizations/{organization}/databases/{database}/branches/{branch}/vdiff/workflows/{workflow}/vdiffs/{uuid}
func (s *VitessService) DeleteVDiff(ctx context.Context, p *DeleteVDiffParams) (*VDiffAction, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch, "workflow", p.Workflow, "uuid", p.UUID, "target_keyspace", p.TargetKeyspace); err != nil {
		return nil, err
	}
	out := new(VDiffAction)
	return orNil(out, s.client.call(ctx, http.MethodDelete, vdiffsPath(p.Organization, p.Database, p.Branch, p.Workflow, pathf("/%s", p.UUID)), p, nil, out))
}
