package fake

import (
	"net/http"
	"time"

	"github.com/dbplatform/platform-go"
)

// The control endpoints of what a branch holds that the API does not
// change: its schema, its keyspaces as set up, the objects its roles own
// and the queries it ran (see schema.go, seed_keyspaces.go, roles.go and
// traffic.go).

// controlBranch is the path of a branch below ControlPrefix.
const controlBranch = "organizations/{organization}/databases/{database}/branches/{branch}"

// controlBranchRoutes are the branch endpoints.
func controlBranchRoutes() []controlRoute {
	return []controlRoute{
		{http.MethodPost, controlBranch + "/schema", http.StatusNoContent, ctlBody((*Server).controlPushSchema)},
		{http.MethodPost, controlBranch + "/keyspaces", http.StatusNoContent, ctlBody((*Server).controlAddKeyspace)},
		{http.MethodGet, controlBranch + "/roles/{role}", http.StatusOK, ctl((*Server).controlRole)},
		{http.MethodGet, controlBranch + "/roles/{role}/objects", http.StatusOK, ctl((*Server).controlRoleObjects)},
		{http.MethodPost, controlBranch + "/roles/{role}/objects", http.StatusNoContent, ctlBody((*Server).controlAddRoleObjects)},
		{http.MethodPut, controlBranch + "/table-sizes", http.StatusNoContent, ctlBody((*Server).controlSetTableSize)},
		{http.MethodPut, controlBranch + "/throttler-metrics", http.StatusNoContent, ctlBody((*Server).controlSetThrottlerMetric)},
		{http.MethodPut, controlBranch + "/vdiff-differences", http.StatusNoContent, ctlBody((*Server).controlSetVDiffDifferences)},
		{http.MethodPost, controlBranch + "/queries", http.StatusNoContent, ctlBody((*Server).controlRecordQueries)},
	}
}

// branchPath returns the organization, database and branch of a branch
// endpoint's path.
func branchPath(r *http.Request) (org, database, branch string) {
	return r.PathValue("organization"), r.PathValue("database"), r.PathValue("branch")
}

// controlSchemaBody is the body of POST .../branches/{branch}/schema.
type controlSchemaBody struct {
	// Statements each hold one or more DDL statements.
	Statements []string `json:"statements"`
}

// controlPushSchema serves POST .../branches/{branch}/schema.
func (s *Server) controlPushSchema(r *http.Request, b *controlSchemaBody) (any, error) {
	org, db, branch := branchPath(r)
	return nil, refused(s.PushSchema(org, db, branch, b.Statements...))
}

// controlKeyspaceBody is the body of POST .../branches/{branch}/keyspaces.
type controlKeyspaceBody struct {
	Name   string `json:"name"`
	Shards int    `json:"shards"`
}

// controlAddKeyspace serves POST .../branches/{branch}/keyspaces.
func (s *Server) controlAddKeyspace(r *http.Request, b *controlKeyspaceBody) (any, error) {
	org, db, branch := branchPath(r)
	return nil, refused(s.AddKeyspace(org, db, branch, b.Name, b.Shards))
}

// controlRole serves GET .../branches/{branch}/roles/{role}.
func (s *Server) controlRole(r *http.Request) (any, error) {
	org, db, branch := branchPath(r)
	role, err := s.Role(org, db, branch, r.PathValue("role"))
	if err != nil {
		return nil, absent(err)
	}
	return role, nil
}

// controlRoleObjects serves GET .../branches/{branch}/roles/{role}/objects.
func (s *Server) controlRoleObjects(r *http.Request) (any, error) {
	org, db, branch := branchPath(r)
	objects, err := s.RoleObjects(org, db, branch, r.PathValue("role"))
	if err != nil {
		return nil, absent(err)
	}
	return controlList[string]{Data: append([]string{}, objects...)}, nil
}

// controlRoleObjectsBody is the body of POST .../roles/{role}/objects.
type controlRoleObjectsBody struct {
	Objects []string `json:"objects"`
}

// controlAddRoleObjects serves POST .../branches/{branch}/roles/{role}/objects.
func (s *Server) controlAddRoleObjects(r *http.Request, b *controlRoleObjectsBody) (any, error) {
	if len(b.Objects) == 0 {
		return nil, missing("objects")
	}
	org, db, branch := branchPath(r)
	return nil, refused(s.AddRoleObjects(org, db, branch, r.PathValue("role"), b.Objects...))
}

// controlTableSizeBody is the body of PUT .../branches/{branch}/table-sizes.
type controlTableSizeBody struct {
	Keyspace string `json:"keyspace"`
	Table    string `json:"table"`
	Bytes    *int64 `json:"bytes"`
}

// controlSetTableSize serves PUT .../branches/{branch}/table-sizes.
func (s *Server) controlSetTableSize(r *http.Request, b *controlTableSizeBody) (any, error) {
	if b.Bytes == nil {
		return nil, missing("bytes")
	}
	org, db, branch := branchPath(r)
	return nil, refused(s.SetTableSize(org, db, branch, b.Keyspace, b.Table, *b.Bytes))
}

// controlThrottlerMetricBody is the body of PUT
// .../branches/{branch}/throttler-metrics.
type controlThrottlerMetricBody struct {
	TabletAlias string   `json:"tablet_alias"`
	Metric      string   `json:"metric"`
	Value       *float64 `json:"value"`
}

// controlSetThrottlerMetric serves PUT .../branches/{branch}/throttler-metrics.
func (s *Server) controlSetThrottlerMetric(r *http.Request, b *controlThrottlerMetricBody) (any, error) {
	if b.Value == nil {
		return nil, missing("value")
	}
	org, db, branch := branchPath(r)
	return nil, refused(s.SetThrottlerMetric(org, db, branch, b.TabletAlias, b.Metric, *b.Value))
}

// controlQueriesBody is the body of POST .../branches/{branch}/queries.
type controlQueriesBody struct {
	Samples []controlQuerySample `json:"samples"`
}

// controlQuerySample is a QuerySample over HTTP; duration is a Go
// duration string and time RFC 3339.
type controlQuerySample struct {
	SQL          string              `json:"sql"`
	Keyspace     string              `json:"keyspace"`
	Tables       []string            `json:"tables"`
	Tags         map[string]string   `json:"tags"`
	TabletType   platform.TabletType `json:"tablet_type"`
	RowsRead     int64               `json:"rows_read"`
	RowsReturned int64               `json:"rows_returned"`
	RowsAffected int64               `json:"rows_affected"`
	ShardQueries int                 `json:"shard_queries"`
	Duration     string              `json:"duration"`
	Error        string              `json:"error"`
	ErrorCode    string              `json:"error_code"`
	Time         time.Time           `json:"time"`
}

// controlRecordQueries serves POST .../branches/{branch}/queries.
func (s *Server) controlRecordQueries(r *http.Request, b *controlQueriesBody) (any, error) {
	if len(b.Samples) == 0 {
		return nil, missing("samples")
	}
	samples := make([]QuerySample, len(b.Samples))
	for i, c := range b.Samples {
		d, err := parseControlDuration("samples["+itoa(i)+"].duration", c.Duration)
		if err != nil {
			return nil, err
		}
		samples[i] = QuerySample{
			SQL: c.SQL, Keyspace: c.Keyspace, Tables: c.Tables, Tags: c.Tags, TabletType: c.TabletType,
			RowsRead: c.RowsRead, RowsReturned: c.RowsReturned, RowsAffected: c.RowsAffected,
			ShardQueries: c.ShardQueries, Duration: d, Error: c.Error, ErrorCode: c.ErrorCode, Time: c.Time,
		}
	}
	org, db, branch := branchPath(r)
	return nil, refused(s.RecordQueries(org, db, branch, samples...))
}

// controlVDiffDifferencesBody is the body of PUT
// .../branches/{branch}/vdiff-differences.
type controlVDiffDifferencesBody struct {
	Keyspace string `json:"keyspace"`
	Table    string `json:"table"`
	VDiffDifferences
}

// controlSetVDiffDifferences serves PUT .../branches/{branch}/vdiff-differences.
func (s *Server) controlSetVDiffDifferences(r *http.Request, b *controlVDiffDifferencesBody) (any, error) {
	org, db, branch := branchPath(r)
	return nil, refused(s.SetVDiffDifferences(org, db, branch, b.Keyspace, b.Table, b.VDiffDifferences))
}
