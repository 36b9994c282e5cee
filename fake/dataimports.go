package fake

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/dbplatform/platform-go"
)

// Data imports: a database created by copying an external MySQL database,
// then run as its replica, then as the primary, then on its own. The
// external database is never dialled: what a test of it finds is what the
// test set up with SetImportSource. The steps that take time run on the
// clock (dataimports_jobs.go); FailNext fails the next one.

// importRec is the import that created a database.
type importRec struct {
	stamps
	db          *dbRec
	state       platform.DataImportState
	checkErrors string // why the failed step failed; "" otherwise
	started     time.Time
	finished    time.Time // when it became ready
	source      importSourceRec
	plan        string
	maxPoolSize int
}

// importSourceRec is the external database of an import, without its
// password and TLS keys, which the service keeps to itself and the fake
// does not need.
type importSourceRec struct {
	host, schema, username string
	port                   int
	sslMode, sslServerName string
}

// ImportSource is what a test of an external database (test_data_import_source,
// and the same check start_data_import runs) finds at a host: the fake never
// connects to it. A host no test set up is unreachable.
type ImportSource struct {
	// Reachable makes a connection succeed; when false, the test answers
	// can_connect false with ConnectError.
	Reachable bool `json:"reachable"`
	// ConnectError is the error of an unreachable source; a message naming
	// the host and port when "".
	ConnectError string `json:"connect_error,omitempty"`
	// Password, when set, is the only password the source accepts; any
	// other answers can_connect false, access denied.
	Password string `json:"password,omitempty"`
	// LintErrors are the reasons the source's schema cannot be imported;
	// start_data_import refuses a source with any.
	LintErrors []platform.DataImportLintError `json:"lint_errors,omitempty"`
	// NeedsUpgrade marks a source too large for the free plan
	// (should_upgrade): start_data_import then needs plan scaler_pro.
	NeedsUpgrade bool `json:"needs_upgrade,omitempty"`
	// SuggestedPlan is the plan the test suggests; "developer" when "".
	SuggestedPlan string `json:"suggested_plan,omitempty"`
	// MaxPoolSize is the pool the test suggests; 20 when 0.
	MaxPoolSize int `json:"max_pool_size,omitempty"`
}

// ImportNotification is a progress report of an import run by a tool of the
// caller's (create_import_notification), as the fake keeps it: every field
// of the request, and when it came.
type ImportNotification struct {
	// At is when the fake received it, on its clock.
	At time.Time `json:"at"`
	// The other fields are the request's, of the same JSON names.
	MigrationID string `json:"migration_id"`
	Event       string `json:"event"`
	BranchName  string `json:"branch_name,omitempty"`
	Method      string `json:"method,omitempty"`
	ExportBytes int64  `json:"export_bytes,omitempty"`
	TableCount  int    `json:"table_count,omitempty"`
	Matched     *bool  `json:"matched,omitempty"`
	DurationMs  int64  `json:"duration_ms,omitempty"`
	Error       string `json:"error,omitempty"`
	ErrorCode   string `json:"error_code,omitempty"`
	Stage       string `json:"stage,omitempty"`
	Message     string `json:"message,omitempty"`
}

// Bounds of what the fake keeps of import sources and notifications.
const (
	maxImportNotes     = 1000 // per database: the oldest go first
	maxImportNoteText  = 4096 // characters of each text field of a notification
	maxImportSources   = 1000 // per organization
	maxImportLintCount = 100  // lint errors of one source
	defaultImportPool  = 20
	defaultMySQLPort   = 3306
	importPlanFree     = "developer"
	importPlanPaid     = "scaler_pro"
)

// importSources are the external databases tests set up, by organization
// and host.
type importSources map[importSourceKey]ImportSource

// importSourceKey names a source: its organization and host.
type importSourceKey struct {
	org  *orgRec
	host string
}

// importSSLModes are the TLS modes a connection may ask for.
var importSSLModes = []string{
	platform.SSLModeDisabled, platform.SSLModePreferred, platform.SSLModeRequired,
	platform.SSLModeVerifyCA, platform.SSLModeVerifyIdentity,
}

func dataImportRoutes() []route {
	return []route{
		{pattern: "POST /v1/organizations/{organization}/data-imports/test-connection", op: "test_data_import_source", handler: withBody(testDataImportSource)},
		{pattern: "POST /v1/organizations/{organization}/data-imports/new", op: "start_data_import", handler: withBody(startDataImport)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/data-imports", op: "get_data_import", handler: read(onImport(nil))},
		{pattern: "POST /v1/organizations/{organization}/databases/{database}/data-imports/begin-switch-traffic", op: "make_data_import_primary", handler: act(onImport((*world).makeImportPrimary))},
		{pattern: "POST /v1/organizations/{organization}/databases/{database}/data-imports/begin-reverse-traffic", op: "make_data_import_replica", handler: act(onImport((*world).makeImportReplica))},
		{pattern: "POST /v1/organizations/{organization}/databases/{database}/data-imports/detach-external-database", op: "detach_data_import_database", handler: act(onImport((*world).detachImport))},
		{pattern: "POST /v1/organizations/{organization}/databases/{database}/data-imports/cancel", op: "cancel_data_import", handler: act(cancelDataImport)},
		{pattern: "POST /internal/organizations/{organization}/databases/{database}/d1-import-notifications", op: "create_import_notification", handler: withBody(createImportNotification)},
	}
}

// dataImport returns the import that created db, or nil.
func (db *dbRec) dataImport() *importRec {
	if m := db.more.peek(); m != nil {
		return m.dataImport
	}
	return nil
}

// importOf finds the import of the path's database: a database no import
// created has none to act on, a 404 (the service's command-line tool reads
// a not-found as "the database is not importing data").
func (c *call) importOf() (*importRec, error) {
	imp := c.db.dataImport()
	if imp == nil {
		return nil, errf(http.StatusNotFound, "not_found", "database %s has no data import: none was started", c.db.name)
	}
	return imp, nil
}

// onImport adapts an action on the import of the path's database: it finds
// the import, runs fn (nil for a read), and renders the import fn leaves.
func onImport(fn func(w *world, imp *importRec) error) func(c *call) (any, error) {
	return func(c *call) (any, error) {
		imp, err := c.importOf()
		if err != nil {
			return nil, err
		}
		if fn != nil {
			if err := fn(c.w, imp); err != nil {
				return nil, err
			}
		}
		return renderDataImport(imp), nil
	}
}

// checkConnection validates a connection as both operations that take one
// do, and fills in the default port and TLS mode.
func checkConnection(conn *platform.DataImportConnection) error {
	switch {
	case strings.TrimSpace(conn.Hostname) == "":
		return unprocessable("connection.hostname is required")
	case len(conn.Hostname) > 255:
		return unprocessable("connection.hostname is longer than 255 characters")
	case conn.Database == "":
		return unprocessable("connection.schema_name is required")
	case conn.Username == "":
		return unprocessable("connection.username is required")
	case conn.Port < 0 || conn.Port > 65535:
		return unprocessable("connection.port %d is not a port (1 to 65535)", conn.Port)
	}
	for _, f := range []struct{ name, v string }{
		{"schema_name", conn.Database}, {"username", conn.Username}, {"password", conn.Password},
		{"ssl_ca", conn.SSLCA}, {"ssl_cert", conn.SSLCertificate}, {"ssl_key", conn.SSLKey}, {"ssl_server_name", conn.SSLServerName},
	} {
		if len(f.v) > 64<<10 {
			return unprocessable("connection.%s is longer than 65536 characters", f.name)
		}
	}
	conn.SSLMode = cmp.Or(conn.SSLMode, platform.SSLModeDisabled)
	if !slices.Contains(importSSLModes, conn.SSLMode) {
		return unprocessable("connection.ssl_mode %q is not one of %s", conn.SSLMode, strings.Join(importSSLModes, ", "))
	}
	if conn.Port == 0 {
		conn.Port = defaultMySQLPort
	}
	return nil
}

// probeSource answers what a test of conn finds, from what the tests set
// up at its host in org.
func (w *world) probeSource(org *orgRec, conn *platform.DataImportConnection) *platform.DataImportSourceCheck {
	out := &platform.DataImportSourceCheck{LintErrors: []platform.DataImportLintError{}, SuggestedPlan: importPlanFree, MaxPoolSize: defaultImportPool}
	src, ok := w.importSources[importSourceKey{org, conn.Hostname}]
	switch {
	case !ok:
		out.Error = fmt.Sprintf("could not connect to %s:%d: no database server answers there", conn.Hostname, conn.Port)
	case !src.Reachable:
		out.Error = cmp.Or(src.ConnectError, fmt.Sprintf("could not connect to %s:%d", conn.Hostname, conn.Port))
	case src.Password != "" && src.Password != conn.Password:
		out.Error = fmt.Sprintf("access denied for user %q at %s:%d", conn.Username, conn.Hostname, conn.Port)
	default:
		out.CanConnect = true
		out.LintErrors = append(out.LintErrors, src.LintErrors...)
		out.ShouldUpgrade = src.NeedsUpgrade
		out.SuggestedPlan = cmp.Or(src.SuggestedPlan, out.SuggestedPlan)
		out.MaxPoolSize = cmp.Or(src.MaxPoolSize, out.MaxPoolSize)
	}
	return out
}

func testDataImportSource(c *call, p *platform.TestDataImportSourceParams) (any, error) {
	if err := checkConnection(&p.Connection); err != nil {
		return nil, err
	}
	return c.w.probeSource(c.org, &p.Connection), nil
}

func startDataImport(c *call, p *platform.StartDataImportParams) (any, error) {
	w := c.w
	if err := checkName("database_name", p.DatabaseName); err != nil {
		return nil, err
	}
	if c.org.dbByName[p.DatabaseName] != nil {
		return nil, unprocessable("database_name %q is already taken by another database in %s", p.DatabaseName, c.org.name)
	}
	if err := checkConnection(&p.Connection); err != nil {
		return nil, err
	}
	region := c.org.defaultRegion
	if p.Region != nil && *p.Region != "" {
		if region = regionBySlug(*p.Region); region == nil {
			return nil, unprocessable("region %q is not a known region slug", *p.Region)
		}
	}
	plan := importPlanFree
	if p.Plan != nil && *p.Plan != "" {
		if plan = *p.Plan; plan != importPlanFree && plan != importPlanPaid {
			return nil, unprocessable("plan %q is not %s or %s", plan, importPlanFree, importPlanPaid)
		}
	}
	pool := defaultImportPool
	if p.MaxPoolSize != nil && *p.MaxPoolSize != 0 {
		if pool = *p.MaxPoolSize; pool < 1 || pool > 1000 {
			return nil, unprocessable("max_pool_size %d is not from 1 to 1000", pool)
		}
	}
	probe := w.probeSource(c.org, &p.Connection)
	switch {
	case !probe.CanConnect:
		return nil, unprocessable("connection: %s", probe.Error)
	case len(probe.LintErrors) > 0:
		var why []string
		for _, le := range probe.LintErrors {
			why = append(why, cmp.Or(le.ErrorDescription, le.LintError))
		}
		return nil, unprocessable("connection: schema %s at %s cannot be imported: %s", p.Connection.Database, p.Connection.Hostname, strings.Join(why, "; "))
	case probe.ShouldUpgrade && plan != importPlanPaid:
		return nil, unprocessable("plan %s cannot import %s at %s: it is too large for the free plan; start with plan %s", plan, p.Connection.Database, p.Connection.Hostname, importPlanPaid)
	}
	db := w.newDatabaseRec(c.org, p.DatabaseName, region, platform.KindMySQL, defaultClusterSize, platform.DatabaseImporting)
	w.addDatabase(db, c.who.token, c.who.user)
	imp := &importRec{
		stamps:  stamps{id: c.w.newID(), created: c.now, updated: c.now},
		db:      db,
		state:   platform.DataImportPreparingDataCopy,
		started: c.now,
		source: importSourceRec{
			host: p.Connection.Hostname, port: p.Connection.Port, schema: p.Connection.Database,
			username: p.Connection.Username, sslMode: p.Connection.SSLMode, sslServerName: p.Connection.SSLServerName,
		},
		plan:        plan,
		maxPoolSize: pool,
	}
	db.x().dataImport = imp
	w.startFlight(imp.id)
	w.clock.After(w.timing.DataImportPrepare, importStepJob{imp, imp.state})
	return renderDataImport(imp), nil
}

// makeImportPrimary switches traffic to the imported database.
func (w *world) makeImportPrimary(imp *importRec) error {
	if imp.state != platform.DataImportSwitchTrafficPending {
		return unprocessable("data import of %s is %s: it can be made primary only in %s, running as a replica once its data is copied",
			imp.db.name, imp.state, platform.DataImportSwitchTrafficPending)
	}
	w.moveImport(imp, platform.DataImportSwitchTrafficRunning, w.timing.DataImportSwitch)
	return nil
}

// makeImportReplica switches traffic back to the external database.
func (w *world) makeImportReplica(imp *importRec) error {
	if imp.state != platform.DataImportSwitchTrafficCompleted {
		return unprocessable("data import of %s is %s: it can be made a replica only in %s, serving as the primary",
			imp.db.name, imp.state, platform.DataImportSwitchTrafficCompleted)
	}
	w.moveImport(imp, platform.DataImportReverseTrafficRunning, w.timing.DataImportSwitch)
	return nil
}

// detachImport cuts the external database off.
func (w *world) detachImport(imp *importRec) error {
	if imp.state != platform.DataImportSwitchTrafficCompleted {
		return unprocessable("data import of %s is %s: the external database can be detached only in %s, the imported database serving as the primary",
			imp.db.name, imp.state, platform.DataImportSwitchTrafficCompleted)
	}
	w.moveImport(imp, platform.DataImportDetachExternalDatabaseRunning, w.timing.DataImportDetach)
	return nil
}

// moveImport puts imp in state, whose step takes d on the clock.
func (w *world) moveImport(imp *importRec, state platform.DataImportState, d time.Duration) {
	imp.state = state
	imp.updated = w.clock.Now()
	w.clock.After(d, importStepJob{imp, state})
}

func cancelDataImport(c *call) (any, error) {
	imp, err := c.importOf()
	if err != nil {
		return nil, err
	}
	switch {
	case imp.state == platform.DataImportReady:
		return nil, unprocessable("data import of %s is %s: a finished import cannot be cancelled", imp.db.name, imp.state)
	case imp.db.deletionProtected:
		return nil, unprocessable("database %s is deletion protected; turn deletion_protected off first", imp.db.name)
	}
	c.w.removeDatabase(imp.db)
	return nil, nil
}

// endDataImport settles the import of a deleted database: nothing is ahead
// of it.
func (w *world) endDataImport(db *dbRec) {
	if imp := db.dataImport(); imp != nil {
		w.endFlight(imp.id)
	}
}

func createImportNotification(c *call, p *platform.CreateImportNotificationParams) (any, error) {
	n := ImportNotification{
		At: c.now, MigrationID: p.MigrationID, Event: p.Event,
		BranchName: valueOf(p.BranchName), Method: valueOf(p.Method), Error: valueOf(p.Error), ErrorCode: valueOf(p.ErrorCode),
		Stage: valueOf(p.Stage), Message: valueOf(p.Message), Matched: p.Matched,
		ExportBytes: valueOf(p.ExportBytes), TableCount: valueOf(p.TableCount), DurationMs: valueOf(p.DurationMs),
	}
	if err := n.validate(); err != nil {
		return nil, unprocessable("%v", err)
	}
	if n.BranchName != "" && c.db.branch(n.BranchName) == nil {
		return nil, unprocessable("branch_name %q is not a branch of %s", n.BranchName, c.db.name)
	}
	m := c.db.x()
	if len(m.importNotes) >= maxImportNotes {
		m.importNotes = append(m.importNotes[:0], m.importNotes[1:]...)
	}
	m.importNotes = append(m.importNotes, n)
	return nil, nil
}

// validate checks a notification as the API does: a request's, or a
// snapshot's.
func (n *ImportNotification) validate() error {
	switch {
	case n.MigrationID == "":
		return errors.New("migration_id is required")
	case n.Event == "":
		return errors.New("event is required")
	case n.ExportBytes < 0:
		return fmt.Errorf("export_bytes %d is negative", n.ExportBytes)
	case n.TableCount < 0:
		return fmt.Errorf("table_count %d is negative", n.TableCount)
	case n.DurationMs < 0:
		return fmt.Errorf("duration_ms %d is negative", n.DurationMs)
	}
	for _, f := range []struct{ name, v string }{
		{"migration_id", n.MigrationID}, {"event", n.Event}, {"branch_name", n.BranchName}, {"method", n.Method},
		{"error", n.Error}, {"error_code", n.ErrorCode}, {"stage", n.Stage}, {"message", n.Message},
	} {
		if len(f.v) > maxImportNoteText {
			return fmt.Errorf("%s is longer than %d characters", f.name, maxImportNoteText)
		}
	}
	return nil
}

// valueOf returns what p points to, or the zero value.
func valueOf[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}

// renderDataImport renders an import as its operations answer it.
func renderDataImport(imp *importRec) *platform.DataImport {
	src := imp.source
	return &platform.DataImport{
		ID:                imp.id,
		State:             imp.state,
		ImportCheckErrors: imp.checkErrors,
		StartedAt:         ptrTime(imp.started),
		FinishedAt:        ptrTime(imp.finished),
		DataSource: platform.DataSource{
			Hostname: src.host, Port: src.port, Database: src.schema, SchemaName: src.schema,
			Username: src.username, SSLMode: src.sslMode, SSLServerName: src.sslServerName,
		},
	}
}

// renderDataImportOf renders the data_import of a database: nil for one no
// import created.
func (w *world) renderDataImportOf(db *dbRec) *platform.DataImport {
	if imp := db.dataImport(); imp != nil {
		return renderDataImport(imp)
	}
	return nil
}

// SetImportSource sets what a test of the external database at host finds
// for org (see ImportSource): test_data_import_source answers it and
// start_data_import checks it. Setting it again replaces it.
func (s *Server) SetImportSource(org, host string, src ImportSource) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.world.orgs[org]
	switch {
	case o == nil:
		return fmt.Errorf("fake: SetImportSource: no organization %q", org)
	case strings.TrimSpace(host) == "" || len(host) > 255:
		return fmt.Errorf("fake: SetImportSource: host %q is not a host name", host)
	}
	if err := src.validate(); err != nil {
		return methodErr("SetImportSource", err)
	}
	key := importSourceKey{o, host}
	if _, ok := s.world.importSources[key]; !ok && s.world.importSources.count(o) >= maxImportSources {
		return fmt.Errorf("fake: SetImportSource: %s already has %d sources", org, maxImportSources)
	}
	if s.world.importSources == nil {
		s.world.importSources = importSources{}
	}
	src.LintErrors = append([]platform.DataImportLintError(nil), src.LintErrors...)
	s.world.importSources[key] = src
	return nil
}

// count returns how many sources org has.
func (m importSources) count(org *orgRec) int {
	n := 0
	for k := range m {
		if k.org == org {
			n++
		}
	}
	return n
}

// validate checks a source as SetImportSource does: a snapshot's too.
func (src *ImportSource) validate() error {
	switch {
	case src.SuggestedPlan != "" && src.SuggestedPlan != importPlanFree && src.SuggestedPlan != importPlanPaid:
		return fmt.Errorf("suggested_plan %q is not %s or %s", src.SuggestedPlan, importPlanFree, importPlanPaid)
	case src.MaxPoolSize < 0 || src.MaxPoolSize > 1000:
		return fmt.Errorf("max_pool_size %d is not from 0 to 1000", src.MaxPoolSize)
	case len(src.LintErrors) > maxImportLintCount:
		return fmt.Errorf("lint_errors has %d errors, more than %d", len(src.LintErrors), maxImportLintCount)
	case len(src.ConnectError) > maxImportNoteText || len(src.Password) > maxImportNoteText:
		return fmt.Errorf("connect_error or password is longer than %d characters", maxImportNoteText)
	}
	for i, le := range src.LintErrors {
		if le.LintError == "" && le.ErrorDescription == "" {
			return fmt.Errorf("lint_errors[%d] has neither lint_error nor error_description", i)
		}
	}
	return nil
}

// ImportNotifications returns the import notifications a database received
// (create_import_notification), oldest first: the last 1,000.
func (s *Server) ImportNotifications(org, database string) ([]ImportNotification, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	o := s.world.orgs[org]
	if o == nil {
		return nil, fmt.Errorf("fake: ImportNotifications: no organization %q", org)
	}
	db := o.dbByName[database]
	if db == nil {
		return nil, fmt.Errorf("fake: ImportNotifications: no database %q in %s", database, org)
	}
	m := db.more.peek()
	if m == nil {
		return []ImportNotification{}, nil
	}
	out := append([]ImportNotification{}, m.importNotes...)
	for i, n := range out {
		if n.Matched != nil {
			out[i].Matched = platform.Ptr(*n.Matched) // the caller's to change
		}
	}
	return out, nil
}
