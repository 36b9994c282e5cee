package platform

import (
	"context"
	"fmt"
)

// ConnectionState is what a live connection is doing. A PostgreSQL
// connection has pg_stat_activity's states; a MySQL connection has its
// process list command, with the command's state after a slash while a
// query runs. Unknown values still decode.
type ConnectionState string

// The connection states.
const (
	// ConnectionActive: a PostgreSQL connection runs a query.
	ConnectionActive ConnectionState = "active"
	// ConnectionIdle: a PostgreSQL connection waits for its client.
	ConnectionIdle ConnectionState = "idle"
	// ConnectionIdleInTransaction: a PostgreSQL connection waits for its
	// client inside a transaction.
	ConnectionIdleInTransaction ConnectionState = "idle in transaction"
	// ConnectionIdleInTransactionAborted: as ConnectionIdleInTransaction,
	// after a statement of the transaction failed or was cancelled; only a
	// rollback ends it.
	ConnectionIdleInTransactionAborted ConnectionState = "idle in transaction (aborted)"
	// ConnectionQueryExecuting: a MySQL connection runs a query.
	ConnectionQueryExecuting ConnectionState = "Query/executing"
	// ConnectionSleep: a MySQL connection waits for its client.
	ConnectionSleep ConnectionState = "Sleep"
)

// IsIdle reports whether a connection in state s runs no query.
func (s ConnectionState) IsIdle() bool {
	switch s {
	case ConnectionIdle, ConnectionIdleInTransaction, ConnectionIdleInTransactionAborted, ConnectionSleep:
		return true
	}
	return false
}

// ConnectionList is what a branch's connections were doing at one moment,
// CapturedAt. It is one snapshot, never paged: NextPage and PrevPage are
// always nil.
type ConnectionList struct {
	// Type is always "list".
	Type         string       `json:"type"`
	DatabaseKind DatabaseKind `json:"database_kind"`
	CapturedAt   Timestamp    `json:"captured_at"`
	NextPage     *int         `json:"next_page"`
	PrevPage     *int         `json:"prev_page"`
	// Instances are the PostgreSQL instances the list was read from,
	// primary and replicas; empty for a MySQL branch, whose list is read
	// from one tablet (Topology).
	Instances []*ConnectionInstance `json:"instances"`
	// Topology is the MySQL tablet the list was read from: the primary of
	// one shard of one keyspace. Nil for a PostgreSQL branch.
	Topology *ConnectionTopology `json:"topology"`
	// Connections are the connections, longest-running transaction first
	// (then query, then process ID).
	Connections []*Connection `json:"data"`
}

// ConnectionInstance is a PostgreSQL instance of a connection list.
type ConnectionInstance struct {
	// ID is the instance's name, as the branch's infrastructure names it.
	ID string `json:"id"`
	// Role is "primary" or "replica".
	Role string `json:"role"`
	// Error says why the instance could not be read; nil when it was.
	Error *string `json:"error"`
}

// ConnectionTopology is the MySQL tablet a list or a kill was served by.
type ConnectionTopology struct {
	Keyspace string `json:"keyspace"`
	Shard    string `json:"shard"`
	// Tablet is the tablet's alias, "<cell>-<uid>".
	Tablet string `json:"tablet"`
}

// Connection is one live connection of a branch. Its three IDs are what the
// kills take: ConnectionID for [ConnectionsService.KillConnection],
// TransactionID (PostgreSQL only, nil outside a transaction) for
// [ConnectionsService.KillTransaction], QueryID (nil while no query runs)
// for [ConnectionsService.KillQuery]. An ID names the connection, the
// transaction or the query it was listed with: once that has ended, a kill
// given it is refused.
type Connection struct {
	PID int `json:"pid"`
	// Instance is the PostgreSQL instance or the MySQL tablet it is on.
	Instance      string  `json:"instance"`
	ConnectionID  *string `json:"connection_id"`
	TransactionID *string `json:"transaction_id"`
	QueryID       *string `json:"query_id"`
	LeaderPID     *int    `json:"leader_pid"`
	// DatabaseName is the database (MySQL: keyspace) it uses.
	DatabaseName    string          `json:"datname"`
	Username        string          `json:"usename"`
	ApplicationName string          `json:"application_name"`
	ClientAddr      string          `json:"client_addr"`
	State           ConnectionState `json:"state"`
	// WaitEventType and WaitEvent say what it waits for ("Lock",
	// "transactionid" while another connection blocks it); nil when it
	// waits for nothing.
	WaitEventType *string    `json:"wait_event_type"`
	WaitEvent     *string    `json:"wait_event"`
	BackendType   string     `json:"backend_type"`
	BackendStart  *Timestamp `json:"backend_start"`
	XactStart     *Timestamp `json:"xact_start"`
	QueryStart    *Timestamp `json:"query_start"`
	StateChange   *Timestamp `json:"state_change"`
	CapturedAt    Timestamp  `json:"captured_at"`
	// DurationMS is how long it has been in its state, in milliseconds:
	// for a running query, since the query started.
	DurationMS int64 `json:"duration_ms"`
	// BlockedBy are the PIDs of the connections whose locks it waits for.
	BlockedBy []int `json:"blocked_by"`
	// QueryText is the query it runs, or (PostgreSQL) last ran.
	QueryText string `json:"query_text"`
}

// ConnectionsService shows and kills the live connections of branches, and
// reads and kills the MySQL process list of a tablet.
type ConnectionsService service

// ListConnectionsParams names a branch, and for a MySQL branch the tablet
// to read: Keyspace may be left empty when the branch has one keyspace,
// Shard when the keyspace has one shard. A request that lacks one is
// refused with ErrInvalid and the choices in [Error.Available].
type ListConnectionsParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	Keyspace     string `json:"-" url:"keyspace,omitempty"`
	Shard        string `json:"-" url:"shard,omitempty"`
}

// List returns what a branch's connections are doing now.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/connections
func (s *ConnectionsService) List(ctx context.Context, p *ListConnectionsParams) (*ConnectionList, error) {
	p = orZero(p)
	return callOn[ConnectionList](ctx, s.client, "GET", &BranchParams{p.Organization, p.Database, p.Branch}, "/connections", p, nil)
}

// KillConnectionParams names a connection, transaction or query of a
// branch by the ID a [ConnectionList] gave it, and for a MySQL branch the
// tablet it is on (as [ListConnectionsParams]).
type KillConnectionParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	// ID is the connection's ConnectionID, TransactionID or QueryID, as
	// the kill takes.
	ID       string `json:"-" url:"-"`
	Keyspace string `json:"-" url:"keyspace,omitempty"`
	Shard    string `json:"-" url:"shard,omitempty"`
}

func (p *KillConnectionParams) check() error {
	return required("organization", p.Organization, "database", p.Database, "branch", p.Branch, "id", p.ID)
}

func (p *KillConnectionParams) path(suffix string) string {
	return pathf("v1/organizations/%s/databases/%s/branches/%s/connections", p.Organization, p.Database, p.Branch) + suffix
}

// KillQueryParams names a running query by its QueryID.
type KillQueryParams = KillConnectionParams

// KillTransactionParams names a PostgreSQL transaction by its
// TransactionID.
type KillTransactionParams = KillConnectionParams

// KillQuery cancels a running query; its connection stays, idle. A query
// that has ended is refused with ErrUnprocessable, an unknown ID with
// ErrNotFound.
//
// API: DELETE /v1/organizations/{organization}/databases/{database}/branches/{branch}/connections/query/{id}
func (s *ConnectionsService) KillQuery(ctx context.Context, p *KillQueryParams) error {
	p = orZero(p)
	return doOn(ctx, s.client, "DELETE", p, pathf("/query/%s", p.ID), p, nil)
}

// KillTransaction ends a PostgreSQL transaction by terminating its
// connection, provided the connection is still in that transaction; a
// transaction that has ended is refused with ErrUnprocessable.
//
// API: DELETE /v1/organizations/{organization}/databases/{database}/branches/{branch}/connections/transaction/{id}
func (s *ConnectionsService) KillTransaction(ctx context.Context, p *KillTransactionParams) error {
	p = orZero(p)
	return doOn(ctx, s.client, "DELETE", p, pathf("/transaction/%s", p.ID), p, nil)
}

// KillConnection terminates a connection, whatever it is doing.
//
// API: DELETE /v1/organizations/{organization}/databases/{database}/branches/{branch}/connections/connection/{id}
func (s *ConnectionsService) KillConnection(ctx context.Context, p *KillConnectionParams) error {
	p = orZero(p)
	return doOn(ctx, s.client, "DELETE", p, pathf("/connection/%s", p.ID), p, nil)
}

// Process is one row of a MySQL tablet's process list.
type Process struct {
	ID   int64  `json:"id"`
	User string `json:"user"`
	Host string `json:"host"`
	DB   string `json:"db"`
	// Command is "Query" while a query runs, "Sleep" otherwise.
	Command string `json:"command"`
	// Time is how long it has been in its command, in seconds.
	Time int64 `json:"time"`
	// State is "executing" while a query runs, "" otherwise.
	State string `json:"state"`
	// Info is the query it runs; "" while it sleeps.
	Info string `json:"info"`
}

// ProcessList is the process list of the primary tablet of one shard of
// one keyspace.
type ProcessList struct {
	Keyspace  string     `json:"keyspace"`
	Shard     string     `json:"shard"`
	Tablet    string     `json:"tablet"`
	Processes []*Process `json:"processes"`
}

// processListBody is the envelope the process list comes in.
type processListBody struct {
	Data *ProcessList `json:"data"`
}

// ListProcessesParams names a MySQL branch and the tablet to read, as
// [ListConnectionsParams] does.
type ListProcessesParams = ListConnectionsParams

// ListProcesses returns the process list of a MySQL branch's tablet.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/processlist
func (s *ConnectionsService) ListProcesses(ctx context.Context, p *ListProcessesParams) (*ProcessList, error) {
	p = orZero(p)
	body, err := callOn[processListBody](ctx, s.client, "GET", &BranchParams{p.Organization, p.Database, p.Branch}, "/processlist", p, nil)
	if err != nil {
		return nil, err
	}
	return body.Data, nil
}

// ProcessKind is what [ConnectionsService.KillProcess] kills.
type ProcessKind string

// The process kinds.
const (
	// ProcessConnection kills the whole connection (KILL <id>).
	ProcessConnection ProcessKind = "connection"
	// ProcessQuery kills only the running query (KILL QUERY <id>).
	ProcessQuery ProcessKind = "query"
)

// KillProcessParams names a process of a MySQL tablet: the tablet as
// [ListProcessesParams] does, and the process by its ID.
type KillProcessParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	Keyspace     string `json:"keyspace,omitempty"`
	Shard        string `json:"shard,omitempty"`
	ID           int64  `json:"id"`
	// Kind is what to kill; the connection when empty.
	Kind ProcessKind `json:"kind,omitempty"`
}

// KillProcessResult is what a process kill did, and on which tablet.
type KillProcessResult struct {
	Success  bool        `json:"success"`
	Keyspace string      `json:"keyspace"`
	Shard    string      `json:"shard"`
	Tablet   string      `json:"tablet"`
	ID       int64       `json:"id"`
	Kind     ProcessKind `json:"kind"`
}

// killProcessBody is the envelope a process kill's result comes in.
type killProcessBody struct {
	Data *KillProcessResult `json:"data"`
}

// KillProcess kills a process of a MySQL tablet, or only its running
// query.
//
// API: POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/processlist/kill
func (s *ConnectionsService) KillProcess(ctx context.Context, p *KillProcessParams) (*KillProcessResult, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch); err != nil {
		return nil, err
	}
	if p.ID <= 0 {
		return nil, &ArgError{Arg: "id", Reason: fmt.Sprintf("%d is not a process ID (they start at 1)", p.ID)}
	}
	body, err := callOn[killProcessBody](ctx, s.client, "POST", &BranchParams{p.Organization, p.Database, p.Branch}, "/processlist/kill", nil, p)
	if err != nil {
		return nil, err
	}
	return body.Data, nil
}

// TargetChoices are the keyspaces and shards a MySQL branch offers, which
// a connections request that lacks its keyspace or shard is refused with
// (see [Error.Available]).
type TargetChoices struct {
	Keyspaces []string `json:"keyspaces,omitempty"`
	Shards    []string `json:"shards,omitempty"`
}
