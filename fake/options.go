package fake

import (
	"errors"
	"fmt"
	"regexp"
	"time"
)

// Option configures a [Server].
type Option func(*config) error

// config collects the options.
type config struct {
	seed             uint64
	strict           bool
	realTime         bool
	start            time.Time
	timing           Timings
	addr             string
	orgName          string
	requestLogLimit  int
	eventLogLimit    int
	deliveryLogLimit int
	auditLogLimit    int
	querySampleLimit int           // per branch; see WithQuerySampleLimit
	rateLimit        int           // requests a minute per credential; 0: none
	webhookTimeout   time.Duration // see WithWebhookTimeout; 0 is the default
	onChange         func()        // see WithOnChange

	timeouts     ServerTimeouts // see WithServerTimeouts; none by default
	noFailureLog bool           // see WithoutFailureLog
}

// DefaultStart is the virtual clock's starting time unless [WithStartTime]
// sets another.
var DefaultStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func defaultConfig() config {
	return config{
		seed:             1,
		start:            DefaultStart,
		timing:           DefaultTimings(),
		orgName:          "acme",
		requestLogLimit:  defaultRequestLogLimit,
		eventLogLimit:    defaultEventLogLimit,
		deliveryLogLimit: defaultEventLogLimit,
		auditLogLimit:    defaultAuditLogLimit,
		querySampleLimit: defaultQuerySampleLimit,
	}
}

// Timings are the durations of the lifecycles' transitions on the clock.
// Zero fields given to [WithTimings] keep their defaults.
type Timings struct {
	// DatabaseReady is how long a new database stays pending.
	DatabaseReady time.Duration
	// BranchReady is how long a new branch stays pending.
	BranchReady time.Duration
	// KeyspaceReady is how long a new keyspace takes to be ready.
	KeyspaceReady time.Duration
	// KeyspaceConfigChange is how long a keyspace settings change takes.
	KeyspaceConfigChange time.Duration
	// ReadOnlyRegionReady is how long a read-only region new to a branch
	// takes to serve reads.
	ReadOnlyRegionReady time.Duration
	// BranchChangeStart is how long a branch's resize or change request
	// stays queued before it starts resizing.
	BranchChangeStart time.Duration
	// BranchChangeRun is how long a started resize or change request takes
	// to complete.
	BranchChangeRun time.Duration
	// BouncerReady is how long a new bouncer's servers take to run.
	BouncerReady time.Duration
	// BouncerResizeStart is how long a bouncer resize request stays
	// pending before it starts.
	BouncerResizeStart time.Duration
	// BouncerResize is how long a started bouncer resize takes to
	// complete.
	BouncerResize time.Duration
	// KeyspaceResizeQueued is how long a keyspace resize request stays
	// queued before its rollout starts.
	KeyspaceResizeQueued time.Duration
	// KeyspaceResizeShard is how long a resize takes to roll out on each
	// shard of the keyspace; the shards roll out one after another.
	KeyspaceResizeShard time.Duration
	// BackupStart is how long a backup stays pending before it runs.
	BackupStart time.Duration
	// BackupRun is how long a running backup takes to succeed.
	BackupRun time.Duration
	// SwitchoverStart is how long a switchover stays pending before it
	// runs.
	SwitchoverStart time.Duration
	// SwitchoverRun is how long a running switchover takes to succeed.
	SwitchoverRun time.Duration
	// VitessOperationStart is how long an operation of a branch's Vitess
	// control plane (a planned reparent) stays pending before it runs.
	VitessOperationStart time.Duration
	// PlannedReparent is how long a running planned reparent takes to
	// complete.
	PlannedReparent time.Duration
	// VDiffStart is how long a VDiff stays pending on a shard (after its
	// creation or a resume) before it compares.
	VDiffStart time.Duration
	// VDiffRun is how long a shard of a VDiff takes to compare all its
	// rows; it compares them at an even pace.
	VDiffRun time.Duration
	// VReplicationCopy is how long a Materialize or lookup-vindex
	// workflow's streams copy before they run (a MoveTables workflow
	// copies for WorkflowStart and WorkflowCopy, as its documented
	// workflow does).
	VReplicationCopy time.Duration
	// MoveTablesAction is how long a running MoveTables action (create,
	// switch or reverse traffic, cancel, complete) takes.
	MoveTablesAction time.Duration
	// Maintenance is how long a maintenance run takes.
	Maintenance time.Duration
	// QueryPatternsReport is how long a query-patterns report takes to
	// generate.
	QueryPatternsReport time.Duration
	// QueryPatternsURL is how long the signed address a report's download
	// redirects to stays valid.
	QueryPatternsURL time.Duration
	// AuthAttemptExportStart is how long an authentication-attempt export
	// stays pending before it runs.
	AuthAttemptExportStart time.Duration
	// AuthAttemptExport is how long a running export takes to be ready.
	AuthAttemptExport time.Duration
	// AuthAttemptExportTTL is how long a ready export's archive is kept;
	// after it, the export answers 410.
	AuthAttemptExportTTL time.Duration
	// AuthAttemptExportURL is how long the signed address an export's
	// download redirects to stays valid.
	AuthAttemptExportURL time.Duration
	// DeployStep is how long each short deployment state lasts (pending,
	// queued, submitting, in_progress_vschema, in_progress_cutover,
	// in_progress_cancel, in_progress_revert_vschema).
	DeployStep time.Duration
	// DeployInProgress is how long a deployment copies data (in_progress).
	DeployInProgress time.Duration
	// DeployRevert is how long a revert takes (in_progress_revert).
	DeployRevert time.Duration
	// RevertWindow is how long a deployed schema can be reverted
	// (complete_pending_revert).
	RevertWindow time.Duration
	// WorkflowStart is how long a new workflow stays pending before it
	// copies.
	WorkflowStart time.Duration
	// WorkflowCopy is how long a workflow copies its tables' rows before
	// it runs, caught up with its source.
	WorkflowCopy time.Duration
	// WorkflowVerify is how long a workflow's data verification takes.
	WorkflowVerify time.Duration
	// WorkflowSwitch is how long each other step of a workflow takes:
	// switching replica or primary traffic, reversing traffic, cutting
	// over, cancelling.
	WorkflowSwitch time.Duration
	// OAuthCode is how long an OAuth authorization code can be exchanged.
	OAuthCode time.Duration
	// OAuthAccessToken is how long an OAuth access token lives (the token
	// response's expires_in), on the server's clock: a client's
	// oauth.Config with Now set to Server.Now judges its expiry on the
	// same clock and refreshes it in time.
	OAuthAccessToken time.Duration
	// OAuthDeviceCode is how long a device code of the device flow can be
	// polled for a token (expires_in of POST /oauth/authorize_device).
	OAuthDeviceCode time.Duration
	// OAuthDevicePoll is how long a device-flow client must wait between
	// polls of the token endpoint (interval), in whole seconds.
	OAuthDevicePoll time.Duration
	// InvoiceDue is how long after its billing period ends an unpaid
	// invoice becomes overdue.
	InvoiceDue time.Duration
	// DataImportPrepare is how long a new data import prepares its copy
	// (prepare_data_copy_pending).
	DataImportPrepare time.Duration
	// DataImportCopy is how long a data import copies its data
	// (data_copy_pending).
	DataImportCopy time.Duration
	// DataImportSwitch is how long a data import switches traffic either
	// way (switch_traffic_workflow_running, reverse_traffic_workflow_running).
	DataImportSwitch time.Duration
	// DataImportDetach is how long a data import detaches the external
	// database (cleanup_workflow_running).
	DataImportDetach time.Duration
}

// DefaultTimings returns the default durations.
func DefaultTimings() Timings {
	return Timings{
		DatabaseReady:          5 * time.Second,
		BranchReady:            5 * time.Second,
		KeyspaceReady:          5 * time.Second,
		KeyspaceConfigChange:   10 * time.Second,
		ReadOnlyRegionReady:    30 * time.Second,
		BranchChangeStart:      10 * time.Second,
		BranchChangeRun:        2 * time.Minute,
		BouncerReady:           10 * time.Second,
		BouncerResizeStart:     5 * time.Second,
		BouncerResize:          30 * time.Second,
		KeyspaceResizeQueued:   5 * time.Second,
		KeyspaceResizeShard:    30 * time.Second,
		BackupStart:            time.Second,
		BackupRun:              30 * time.Second,
		SwitchoverStart:        time.Second,
		SwitchoverRun:          10 * time.Second,
		VitessOperationStart:   time.Second,
		PlannedReparent:        5 * time.Second,
		VDiffStart:             time.Second,
		VDiffRun:               30 * time.Second,
		VReplicationCopy:       30 * time.Second,
		MoveTablesAction:       2 * time.Second,
		Maintenance:            time.Minute,
		QueryPatternsReport:    30 * time.Second,
		QueryPatternsURL:       5 * time.Minute,
		AuthAttemptExportStart: 2 * time.Second,
		AuthAttemptExport:      20 * time.Second,
		AuthAttemptExportTTL:   24 * time.Hour,
		AuthAttemptExportURL:   5 * time.Minute,
		DeployStep:             time.Second,
		DeployInProgress:       10 * time.Second,
		DeployRevert:           5 * time.Second,
		RevertWindow:           30 * time.Minute,
		WorkflowStart:          5 * time.Second,
		WorkflowCopy:           time.Minute,
		WorkflowVerify:         30 * time.Second,
		WorkflowSwitch:         10 * time.Second,
		OAuthCode:              10 * time.Minute,
		OAuthAccessToken:       2592000 * time.Second,
		OAuthDeviceCode:        15 * time.Minute,
		OAuthDevicePoll:        5 * time.Second,
		InvoiceDue:             30 * 24 * time.Hour,
		DataImportPrepare:      10 * time.Second,
		DataImportCopy:         time.Minute,
		DataImportSwitch:       10 * time.Second,
		DataImportDetach:       10 * time.Second,
	}
}

// fields lists the durations, for merging and checking.
func (t *Timings) fields() []*time.Duration {
	return []*time.Duration{
		&t.DatabaseReady, &t.BranchReady, &t.KeyspaceReady, &t.KeyspaceConfigChange, &t.ReadOnlyRegionReady, &t.BranchChangeStart, &t.BranchChangeRun,
		&t.KeyspaceResizeQueued, &t.KeyspaceResizeShard, &t.BackupStart, &t.BackupRun,
		&t.BouncerReady, &t.BouncerResizeStart, &t.BouncerResize,
		&t.SwitchoverStart, &t.SwitchoverRun, &t.VitessOperationStart, &t.PlannedReparent, &t.VDiffStart, &t.VDiffRun, &t.VReplicationCopy, &t.MoveTablesAction, &t.Maintenance,
		&t.DeployStep, &t.DeployInProgress, &t.DeployRevert, &t.RevertWindow,
		&t.WorkflowStart, &t.WorkflowCopy, &t.WorkflowVerify, &t.WorkflowSwitch,
		&t.OAuthCode, &t.OAuthAccessToken, &t.OAuthDeviceCode, &t.OAuthDevicePoll,
		&t.QueryPatternsReport, &t.QueryPatternsURL,
		&t.AuthAttemptExportStart, &t.AuthAttemptExport, &t.AuthAttemptExportTTL, &t.AuthAttemptExportURL,
		&t.InvoiceDue,
		&t.DataImportPrepare, &t.DataImportCopy, &t.DataImportSwitch, &t.DataImportDetach,
	}
}

// WithSeed sets the seed of IDs and secrets (1 by default): servers with the
// same seed given the same calls produce the same IDs.
func WithSeed(seed uint64) Option {
	return func(c *config) error {
		c.seed = seed
		return nil
	}
}

// WithStrictBodies answers a request body with an unknown field with 400
// bad_request naming the field, where the API ignores it, whatever the
// method: a DELETE's body too, and any field of a body sent to an operation
// that takes none. It catches typos in hand-built requests. It is stricter
// than the API, so it refuses some clients the API serves: the service's
// own Go client, for one, sends fields the API ignores (its organization's
// name in the bodies of create_database and of the data imports' test and
// start, the source's SSL mode inside their connection).
func WithStrictBodies() Option {
	return func(c *config) error {
		c.strict = true
		return nil
	}
}

// WithRealTime drives the lifecycles from the wall clock instead of the
// virtual clock, as the standalone binary does.
func WithRealTime() Option {
	return func(c *config) error {
		c.realTime = true
		return nil
	}
}

// WithStartTime sets the virtual clock's starting time, in UTC and to the
// millisecond; the zero time is refused.
func WithStartTime(t time.Time) Option {
	return func(c *config) error {
		if t.IsZero() {
			return errors.New("fake: WithStartTime: zero time")
		}
		c.start = t.UTC().Truncate(time.Millisecond)
		return nil
	}
}

// WithTimings changes the durations of transitions; zero fields keep their
// defaults, and a negative one is refused.
func WithTimings(t Timings) Option {
	return func(c *config) error {
		dst := c.timing.fields()
		for i, d := range t.fields() {
			if *d < 0 {
				return errors.New("fake: WithTimings: durations must not be negative")
			}
			if *d > 0 {
				*dst[i] = *d
			}
		}
		return nil
	}
}

// WithAddr listens on addr ("127.0.0.1:8080") instead of a free loopback port.
func WithAddr(addr string) Option {
	return func(c *config) error {
		if addr == "" {
			return errors.New("fake: WithAddr: empty address")
		}
		c.addr = addr
		return nil
	}
}

// slug is the form of organization and database names.
var slug = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// WithOrganization names the organization a new server starts with
// ("acme" by default).
func WithOrganization(name string) Option {
	return func(c *config) error {
		if !slug.MatchString(name) {
			return fmt.Errorf("fake: WithOrganization: %q is not lowercase letters, digits and dashes", name)
		}
		c.orgName = name
		return nil
	}
}

// How many entries the logs keep unless an option says otherwise: the
// request log 10,000 requests (about 150 bytes each); the event log and the
// delivery log 1,000 each, as an event or a delivery carries a whole
// resource (about 2 KB); each organization's audit log 10,000 entries
// (about 270 bytes each: IDs, names and the request's path, rendered on
// read).
const (
	defaultRequestLogLimit = 10_000
	defaultEventLogLimit   = 1_000
	defaultAuditLogLimit   = 10_000
)

// WithRequestLogLimit keeps the last n requests in [Server.Requests]
// (10,000 by default).
func WithRequestLogLimit(n int) Option {
	return logLimit("WithRequestLogLimit", n, func(c *config) *int { return &c.requestLogLimit })
}

// WithEventLogLimit keeps the last n events in [Server.Events] (1,000 by
// default). Webhooks are sent every event, whatever the limit.
func WithEventLogLimit(n int) Option {
	return logLimit("WithEventLogLimit", n, func(c *config) *int { return &c.eventLogLimit })
}

// WithDeliveryLogLimit keeps the last n webhook delivery attempts in
// [Server.Deliveries] (1,000 by default). Webhooks' last_sent_* fields
// and retries do not depend on it.
func WithDeliveryLogLimit(n int) Option {
	return logLimit("WithDeliveryLogLimit", n, func(c *config) *int { return &c.deliveryLogLimit })
}

// WithAuditLogLimit keeps the last n entries of each organization's audit
// log (10,000 by default): list_audit_logs shows those, and a cursor
// naming an entry dropped since still places its page by time.
func WithAuditLogLimit(n int) Option {
	return logLimit("WithAuditLogLimit", n, func(c *config) *int { return &c.auditLogLimit })
}

// WithoutFailureLog keeps a server from [NewServer] from logging its last
// requests when the test fails (see [NewServer]).
func WithoutFailureLog() Option {
	return func(c *config) error {
		c.noFailureLog = true
		return nil
	}
}

// logLimit is an option setting the limit of a log to n, which must be
// positive.
func logLimit(name string, n int, field func(*config) *int) Option {
	return func(c *config) error {
		if n < 1 {
			return fmt.Errorf("fake: %s: %d is not positive", name, n)
		}
		*field(c) = n
		return nil
	}
}
