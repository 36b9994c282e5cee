package platform

import (
	"context"
	"slices"
)

// DataImportState is the state of an import of data from an external MySQL
// database into a new database.
//
// The happy path: the import prepares (prepare_data_copy_pending), copies
// the data (data_copy_pending), then runs the new database as a replica of
// the external one (switch_traffic_workflow_pending). MakePrimary switches
// traffic (switch_traffic_workflow_running) until the new database is the
// primary (cleanup_workflow_pending); MakeReplica switches back
// (reverse_traffic_workflow_running). Detach then cuts the external database
// off (cleanup_workflow_running) and the import is ready. A failed step
// ends in its _error state, which only Cancel leaves.
type DataImportState string

// The states of a data import.
const (
	DataImportPreparingDataCopy       DataImportState = "prepare_data_copy_pending"
	DataImportPreparingDataCopyFailed DataImportState = "prepare_data_copy_error"
	DataImportCopyingData             DataImportState = "data_copy_pending"
	DataImportCopyingDataFailed       DataImportState = "data_copy_error"
	// DataImportSwitchTrafficPending: the data is copied and the new
	// database runs as a replica of the external one.
	DataImportSwitchTrafficPending  DataImportState = "switch_traffic_workflow_pending"
	DataImportSwitchTrafficRunning  DataImportState = "switch_traffic_workflow_running"
	DataImportSwitchTrafficError    DataImportState = "switch_traffic_workflow_error"
	DataImportReverseTrafficRunning DataImportState = "reverse_traffic_workflow_running"
	DataImportReverseTrafficError   DataImportState = "reverse_traffic_workflow_error"
	// DataImportSwitchTrafficCompleted: the new database is the primary and
	// the external one its replica, until Detach.
	DataImportSwitchTrafficCompleted        DataImportState = "cleanup_workflow_pending"
	DataImportDetachExternalDatabaseRunning DataImportState = "cleanup_workflow_running"
	DataImportDetachExternalDatabaseError   DataImportState = "cleanup_workflow_error"
	// DataImportReady: the external database is detached; the import is
	// over.
	DataImportReady DataImportState = "ready"
)

// DataImportStates lists every state of a data import, in the order of the
// happy path where it has one.
var DataImportStates = []DataImportState{
	DataImportPreparingDataCopy, DataImportPreparingDataCopyFailed,
	DataImportCopyingData, DataImportCopyingDataFailed,
	DataImportSwitchTrafficPending, DataImportSwitchTrafficRunning, DataImportSwitchTrafficError,
	DataImportReverseTrafficRunning, DataImportReverseTrafficError,
	DataImportSwitchTrafficCompleted,
	DataImportDetachExternalDatabaseRunning, DataImportDetachExternalDatabaseError,
	DataImportReady,
}

// Failed reports whether s is the state of a failed step, which only
// Cancel leaves.
func (s DataImportState) Failed() bool {
	switch s {
	case DataImportPreparingDataCopyFailed, DataImportCopyingDataFailed, DataImportSwitchTrafficError,
		DataImportReverseTrafficError, DataImportDetachExternalDatabaseError:
		return true
	}
	return false
}

// DataImport is an import of data from an external database: the
// database's data_import, and the answer of the import's own operations.
type DataImport struct {
	// ID is the import's ID; "" in the data_import of a database as the
	// API's reference shows it.
	ID                string          `json:"id,omitempty"`
	State             DataImportState `json:"state"`
	ImportCheckErrors string          `json:"import_check_errors"`
	StartedAt         *Timestamp      `json:"started_at"`
	FinishedAt        *Timestamp      `json:"finished_at"`
	DataSource        DataSource      `json:"data_source"`
}

// DataSource is the external database of an import, as the API shows it:
// never its password or TLS keys.
type DataSource struct {
	Hostname string `json:"hostname"`
	Port     int    `json:"port"`
	Database string `json:"database"`
	// SchemaName is Database again, under the name the connection is
	// given with.
	SchemaName    string `json:"schema_name,omitempty"`
	Username      string `json:"username,omitempty"`
	SSLMode       string `json:"ssl_mode,omitempty"`
	SSLServerName string `json:"ssl_server_name,omitempty"`
}

// The TLS modes of a connection to an external database
// (DataImportConnection.SSLMode).
const (
	SSLModeDisabled       = "disabled"
	SSLModePreferred      = "preferred"
	SSLModeRequired       = "required"
	SSLModeVerifyCA       = "verify_ca"
	SSLModeVerifyIdentity = "verify_identity"
)

// DataImportConnection is how the service reaches the external database of
// an import.
type DataImportConnection struct {
	Hostname string `json:"hostname"`
	// Database is the external database (schema) to import.
	Database string `json:"schema_name"`
	// Port is the MySQL port; 0 means 3306.
	Port     int    `json:"port"`
	Username string `json:"username"`
	Password string `json:"password"`
	// SSLMode is one of the SSLMode constants; "" means disabled.
	SSLMode        string `json:"ssl_mode,omitempty"`
	SSLCA          string `json:"ssl_ca,omitempty"`
	SSLCertificate string `json:"ssl_cert,omitempty"`
	SSLKey         string `json:"ssl_key,omitempty"`
	SSLServerName  string `json:"ssl_server_name,omitempty"`
}

// DataImportSourceCheck is what a test of an external database found.
type DataImportSourceCheck struct {
	// CanConnect reports whether the service could connect; Error says why
	// not.
	CanConnect bool   `json:"can_connect"`
	Error      string `json:"error"`
	// LintErrors are the reasons the source's schema cannot be imported.
	LintErrors []DataImportLintError `json:"lint_errors"`
	// ShouldUpgrade reports that the source is too large for the free plan.
	ShouldUpgrade bool `json:"should_upgrade"`
	// SuggestedPlan is the plan the import should run on ("developer" or
	// "scaler_pro"), for StartDataImportParams.Plan.
	SuggestedPlan string `json:"suggested_plan"`
	// MaxPoolSize is the connection pool the import should use, for
	// StartDataImportParams.MaxPoolSize.
	MaxPoolSize int `json:"max_pool_size"`
}

// Compatible reports whether the source can be imported: reachable and
// without lint errors.
func (c *DataImportSourceCheck) Compatible() bool { return c.CanConnect && len(c.LintErrors) == 0 }

// DataImportLintError is a reason an external database's schema cannot be
// imported.
type DataImportLintError struct {
	LintError        string `json:"lint_error"`
	Keyspace         string `json:"keyspace_name"`
	Table            string `json:"table_name"`
	SubjectType      string `json:"subject_type"`
	ErrorDescription string `json:"error_description"`
	DocsURL          string `json:"docs_url"`
}

// DataImportsService imports databases from external MySQL servers.
type DataImportsService service

// dataImportsPath is the path of an organization's data imports.
func dataImportsPath(org string) string {
	return pathf("v1/organizations/%s/data-imports", org)
}

// TestDataImportSourceParams names an external database to test.
type TestDataImportSourceParams struct {
	Organization string `json:"-" url:"-"`
	// DatabaseName is the database the import would create.
	DatabaseName string               `json:"database_name"`
	Connection   DataImportConnection `json:"connection"`
}

// TestSource checks whether the service can connect to an external
// database and import its schema.
//
// API: POST /v1/organizations/{organization}/data-imports/test-connection
func (s *DataImportsService) TestSource(ctx context.Context, p *TestDataImportSourceParams) (*DataImportSourceCheck, error) {
	p = orZero(p)
	if err := required("organization", p.Organization); err != nil {
		return nil, err
	}
	out := new(DataImportSourceCheck)
	if err := s.client.post(ctx, dataImportsPath(p.Organization)+"/test-connection", p, out); err != nil {
		return nil, err
	}
	return out, nil
}

// StartDataImportParams starts an import into a new database.
type StartDataImportParams struct {
	Organization string `json:"-" url:"-"`
	// DatabaseName is the name of the database the import creates.
	DatabaseName string               `json:"database_name"`
	Connection   DataImportConnection `json:"connection"`
	// Region is the new database's region slug; the organization's
	// default when nil.
	Region *string `json:"region,omitempty"`
	// Plan is the plan a test suggested (DataImportSourceCheck.SuggestedPlan).
	Plan *string `json:"plan,omitempty"`
	// MaxPoolSize is the pool a test suggested.
	MaxPoolSize *int `json:"max_pool_size,omitempty"`
}

// Start creates a database that copies the data of an external one, then
// runs as its replica. The database is named DatabaseName; its import is
// read with Get.
//
// API: POST /v1/organizations/{organization}/data-imports/new
func (s *DataImportsService) Start(ctx context.Context, p *StartDataImportParams) (*DataImport, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database_name", p.DatabaseName); err != nil {
		return nil, err
	}
	out := new(DataImport)
	if err := s.client.post(ctx, dataImportsPath(p.Organization)+"/new", p, out); err != nil {
		return nil, err
	}
	return out, nil
}

// DataImportParams names the import of a database.
type DataImportParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
}

func (p *DataImportParams) check() error {
	return required("organization", p.Organization, "database", p.Database)
}

func (p *DataImportParams) path(suffix string) string {
	return pathf("v1/organizations/%s/databases/%s/data-imports", p.Organization, p.Database) + suffix
}

// GetDataImportParams names the import to read.
type GetDataImportParams = DataImportParams

// Get returns the import of a database.
//
// API: GET /v1/organizations/{organization}/databases/{database}/data-imports
func (s *DataImportsService) Get(ctx context.Context, p *GetDataImportParams) (*DataImport, error) {
	return callOn[DataImport](ctx, s.client, "GET", p, "", nil, nil)
}

// MakeDataImportPrimaryParams names the import to switch.
type MakeDataImportPrimaryParams = DataImportParams

// MakePrimary switches traffic to the imported database, which becomes the
// primary and the external database its replica. The import must be in
// switch_traffic_workflow_pending.
//
// API: POST /v1/organizations/{organization}/databases/{database}/data-imports/begin-switch-traffic
func (s *DataImportsService) MakePrimary(ctx context.Context, p *MakeDataImportPrimaryParams) (*DataImport, error) {
	return callOn[DataImport](ctx, s.client, "POST", p, "/begin-switch-traffic", nil, nil)
}

// MakeDataImportReplicaParams names the import to switch back.
type MakeDataImportReplicaParams = DataImportParams

// MakeReplica switches traffic back to the external database, which becomes
// the primary again. The import must be in cleanup_workflow_pending (the
// imported database is the primary).
//
// API: POST /v1/organizations/{organization}/databases/{database}/data-imports/begin-reverse-traffic
func (s *DataImportsService) MakeReplica(ctx context.Context, p *MakeDataImportReplicaParams) (*DataImport, error) {
	return callOn[DataImport](ctx, s.client, "POST", p, "/begin-reverse-traffic", nil, nil)
}

// DetachDataImportDatabaseParams names the import to finish.
type DetachDataImportDatabaseParams = DataImportParams

// Detach cuts the external database off the imported one, which then
// stands alone: the import ends ready. The import must be in
// cleanup_workflow_pending.
//
// API: POST /v1/organizations/{organization}/databases/{database}/data-imports/detach-external-database
func (s *DataImportsService) Detach(ctx context.Context, p *DetachDataImportDatabaseParams) (*DataImport, error) {
	return callOn[DataImport](ctx, s.client, "POST", p, "/detach-external-database", nil, nil)
}

// CancelDataImportParams names the import to cancel.
type CancelDataImportParams = DataImportParams

// Cancel stops an import that is not ready and deletes the database it
// created.
//
// API: POST /v1/organizations/{organization}/databases/{database}/data-imports/cancel
func (s *DataImportsService) Cancel(ctx context.Context, p *CancelDataImportParams) error {
	return doOn(ctx, s.client, "POST", p, "/cancel", nil, nil)
}

// Wait polls the import of a database until it reaches one of states, and
// returns it. A failed step (a state whose Failed is true), or
// [DataImportReady], that is not among them ends the wait with a
// *StateError naming it.
func (s *DataImportsService) Wait(ctx context.Context, p *GetDataImportParams, states ...DataImportState) (*DataImport, error) {
	p = orZero(p)
	if len(states) == 0 {
		return nil, &ArgError{Arg: "states", Reason: "name at least one data import state to wait for"}
	}
	return waitForGet(ctx, s.client, func(ctx context.Context) (*DataImport, error) {
		return s.Get(ctx, p)
	}, func(d *DataImport) (bool, error) {
		if slices.Contains(states, d.State) {
			return true, nil
		}
		if d.State.Failed() || d.State == DataImportReady {
			want := make([]string, len(states))
			for i, st := range states {
				want[i] = string(st)
			}
			return false, &StateError{Resource: "data import of database " + p.Database, State: string(d.State), Want: want}
		}
		return false, nil
	})
}

// CreateImportNotificationParams is a progress report of an import run by
// a tool of the caller's (a migration from another service), which the
// service records against the database.
type CreateImportNotificationParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	// MigrationID identifies the migration the report belongs to.
	MigrationID string `json:"migration_id"`
	// Event is what happened ("progress", "imported", "complete", ...).
	Event       string  `json:"event"`
	BranchName  *string `json:"branch_name,omitempty"`
	Method      *string `json:"method,omitempty"`
	ExportBytes *int64  `json:"export_bytes,omitempty"`
	TableCount  *int    `json:"table_count,omitempty"`
	Matched     *bool   `json:"matched,omitempty"`
	DurationMs  *int64  `json:"duration_ms,omitempty"`
	Error       *string `json:"error,omitempty"`
	ErrorCode   *string `json:"error_code,omitempty"`
	Stage       *string `json:"stage,omitempty"`
	Message     *string `json:"message,omitempty"`
}

func (p *CreateImportNotificationParams) check() error {
	return required("organization", p.Organization, "database", p.Database, "migration_id", p.MigrationID, "event", p.Event)
}

func (p *CreateImportNotificationParams) path(suffix string) string {
	return pathf("internal/organizations/%s/databases/%s/d1-import-notifications", p.Organization, p.Database) + suffix
}

// CreateNotification reports the progress of an import run by a tool of
// the caller's.
//
// API: POST /internal/organizations/{organization}/databases/{database}/d1-import-notifications
func (s *DataImportsService) CreateNotification(ctx context.Context, p *CreateImportNotificationParams) error {
	return doOn(ctx, s.client, "POST", p, "", nil, p)
}
