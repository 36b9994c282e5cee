package platform_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// wireConnectionsJSON is a MySQL branch's connection list as the
// command-line tool reads it, written from the tool's fields rather than
// from the SDK's types.
const wireConnectionsJSON = `{"type": "list", "database_kind": "mysql", "next_page": null, "prev_page": null,
	"captured_at": "2026-06-04T12:30:00.000Z", "instances": [],
	"topology": {"keyspace": "commerce", "shard": "-80", "tablet": "zone1-1001"},
	"data": [{"pid": 101, "instance": "zone1-1001", "connection_id": "101", "transaction_id": null, "query_id": "101",
		"leader_pid": null, "datname": "checkout", "state": "Query/executing", "usename": "vt_app", "wait_event": null,
		"client_addr": "10.0.0.12:54231", "wait_event_type": null, "application_name": "", "backend_type": "client backend",
		"query_start": "2026-06-04T12:29:18.000Z", "xact_start": null, "backend_start": null, "state_change": null,
		"captured_at": "2026-06-04T12:30:00.000Z", "duration_ms": 42000, "blocked_by": [], "query_text": "SELECT 1"}]}`

func wireConnections() *platform.ConnectionList {
	at := backupTS("2026-06-04T12:30:00Z")
	return &platform.ConnectionList{
		Type: "list", DatabaseKind: platform.KindMySQL, CapturedAt: at, Instances: []*platform.ConnectionInstance{},
		Topology: &platform.ConnectionTopology{Keyspace: "commerce", Shard: "-80", Tablet: "zone1-1001"},
		Connections: []*platform.Connection{{
			PID: 101, Instance: "zone1-1001", ConnectionID: platform.Ptr("101"), QueryID: platform.Ptr("101"),
			DatabaseName: "checkout", State: platform.ConnectionQueryExecuting, Username: "vt_app",
			ClientAddr: "10.0.0.12:54231", BackendType: "client backend", QueryStart: backupTSP("2026-06-04T12:29:18Z"),
			CapturedAt: at, DurationMS: 42000, BlockedBy: []int{}, QueryText: "SELECT 1",
		}},
	}
}

func TestConnectionsWire(t *testing.T) {
	t.Parallel()
	const base = "/v1/organizations/acme/databases/app%20db/branches/main"
	org, db, br := "acme", "app db", "main"
	kill := func(id string) *platform.KillConnectionParams {
		return &platform.KillConnectionParams{Organization: org, Database: db, Branch: br, ID: id, Keyspace: "commerce", Shard: "-80"}
	}
	target := url.Values{"keyspace": {"commerce"}, "shard": {"-80"}}
	runMethodCases(t, []methodCase{
		{
			name: "List", status: 200, response: wireConnectionsJSON,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Connections.List(ctx, &platform.ListConnectionsParams{Organization: org, Database: db, Branch: br, Keyspace: "commerce", Shard: "-80"})
			},
			method: "GET", path: base + "/connections", query: target, want: wireConnections(),
		},
		{
			name: "KillQuery", status: 204,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return nil, c.Connections.KillQuery(ctx, kill("primary-123-1777466070000000"))
			},
			method: "DELETE", path: base + "/connections/query/primary-123-1777466070000000", query: target,
		},
		{
			name: "KillTransaction", status: 204,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return nil, c.Connections.KillTransaction(ctx, kill("a/b"))
			},
			method: "DELETE", path: base + "/connections/transaction/a%2Fb", query: target,
		},
		{
			name: "KillConnection", status: 204,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return nil, c.Connections.KillConnection(ctx, &platform.KillConnectionParams{Organization: org, Database: db, Branch: br, ID: "101"})
			},
			method: "DELETE", path: base + "/connections/connection/101", query: url.Values{},
		},
		{
			name: "ListProcesses", status: 200,
			response: `{"data":{"keyspace":"commerce","shard":"-80","tablet":"zone1-1001","processes":[{"id":101,"user":"vt_app","command":"Query","time":42,"info":"SELECT 1"}]}}`,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Connections.ListProcesses(ctx, &platform.ListProcessesParams{Organization: org, Database: db, Branch: br, Keyspace: "commerce", Shard: "-80"})
			},
			method: "GET", path: base + "/processlist", query: target,
			want: &platform.ProcessList{Keyspace: "commerce", Shard: "-80", Tablet: "zone1-1001", Processes: []*platform.Process{
				{ID: 101, User: "vt_app", Command: "Query", Time: 42, Info: "SELECT 1"},
			}},
		},
		{
			name: "KillProcess", status: 200,
			response: `{"data":{"success":true,"keyspace":"main","shard":"-","tablet":"zone1-2001","id":101,"kind":"query"}}`,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Connections.KillProcess(ctx, &platform.KillProcessParams{Organization: org, Database: db, Branch: br, ID: 101, Kind: platform.ProcessQuery})
			},
			method: "POST", path: base + "/processlist/kill", query: url.Values{}, body: `{"id": 101, "kind": "query"}`,
			want: &platform.KillProcessResult{Success: true, Keyspace: "main", Shard: "-", Tablet: "zone1-2001", ID: 101, Kind: platform.ProcessQuery},
		},
	})
}

func TestConnectionsArgErrors(t *testing.T) {
	t.Parallel()
	runArgCases(t, []argCase{
		{"List with nil params", "params", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Connections.List(ctx, nil)
			return err
		}},
		{"KillQuery without id", "id", func(ctx context.Context, c *platform.Client) error {
			return c.Connections.KillQuery(ctx, &platform.KillQueryParams{Organization: "acme", Database: "db", Branch: "main"})
		}},
		{"KillConnection with nil params", "params", func(ctx context.Context, c *platform.Client) error {
			return c.Connections.KillConnection(ctx, nil)
		}},
		{"ListProcesses without branch", "branch", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Connections.ListProcesses(ctx, &platform.ListProcessesParams{Organization: "acme", Database: "db"})
			return err
		}},
		{"KillProcess without id", "id", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Connections.KillProcess(ctx, &platform.KillProcessParams{Organization: "acme", Database: "db", Branch: "main"})
			return err
		}},
	})
}

// TestConnectionTargetChoices checks that a 400 for a missing keyspace or
// shard carries its choices, as the command-line tool reads them.
func TestConnectionTargetChoices(t *testing.T) {
	t.Parallel()
	w := newWire(t, http.StatusBadRequest, `{"message": "keyspace is required", "available": {"keyspaces": ["lookup", "main"], "shards": ["-80", "80-"]}}`)
	_, err := w.client.Connections.List(t.Context(), &platform.ListConnectionsParams{Organization: "acme", Database: "db", Branch: "main"})
	var e *platform.Error
	if !errors.As(err, &e) || !errors.Is(err, platform.ErrInvalid) {
		t.Fatalf("err = %v, want a 400 *platform.Error", err)
	}
	if diff := cmp.Diff(&platform.TargetChoices{Keyspaces: []string{"lookup", "main"}, Shards: []string{"-80", "80-"}}, e.Available); diff != "" {
		t.Errorf("Available (-want +got):\n%s", diff)
	}
}

func TestConnectionStates(t *testing.T) {
	t.Parallel()
	for s, idle := range map[platform.ConnectionState]bool{
		platform.ConnectionActive: false, platform.ConnectionQueryExecuting: false, platform.ConnectionIdle: true,
		platform.ConnectionIdleInTransaction: true, platform.ConnectionIdleInTransactionAborted: true,
		platform.ConnectionSleep: true, "fastpath function call": false,
	} {
		if s.IsIdle() != idle {
			t.Errorf("%q.IsIdle() = %v, want %v", s, !idle, idle)
		}
	}
}

// TestConnectionsAgainstTheFake lists a PostgreSQL branch's connections,
// kills a query, then its transaction, and sees each in the next list.
func TestConnectionsAgainstTheFake(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	c, ctx, org := srv.Client(), t.Context(), srv.Org()
	if _, err := c.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: org, Name: "pg", Kind: platform.KindPostgreSQL}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Databases.Wait(ctx, &platform.GetDatabaseParams{Organization: org, Database: "pg"}); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.OpenSession(org, "pg", "main", fake.SessionSpec{User: "app", Query: "SELECT pg_sleep(60)", InTransaction: true}); err != nil {
		t.Fatal(err)
	}
	srv.Advance(4 * time.Second)
	branch := &platform.ListConnectionsParams{Organization: org, Database: "pg", Branch: "main"}
	list, err := c.Connections.List(ctx, branch)
	if err != nil {
		t.Fatal(err)
	}
	conn := list.Connections[0]
	if conn.State != platform.ConnectionActive || conn.DurationMS != 4000 || conn.QueryID == nil || conn.TransactionID == nil {
		t.Fatalf("connection %+v, want active for 4 s in a transaction", conn)
	}
	kill := func(id string) *platform.KillConnectionParams {
		return &platform.KillConnectionParams{Organization: org, Database: "pg", Branch: "main", ID: id}
	}
	if err := c.Connections.KillQuery(ctx, kill(*conn.QueryID)); err != nil {
		t.Fatal(err)
	}
	if list, err = c.Connections.List(ctx, branch); err != nil {
		t.Fatal(err)
	}
	if got := list.Connections[0].State; got != platform.ConnectionIdleInTransactionAborted {
		t.Errorf("after KillQuery: %s, want the transaction left aborted", got)
	}
	if err := c.Connections.KillQuery(ctx, kill(*conn.QueryID)); !errors.Is(err, platform.ErrUnprocessable) {
		t.Errorf("KillQuery again: %v, want unprocessable (the query has ended)", err)
	}
	if err := c.Connections.KillTransaction(ctx, kill(*conn.TransactionID)); err != nil {
		t.Fatal(err)
	}
	if list, err = c.Connections.List(ctx, branch); err != nil || len(list.Connections) != 0 {
		t.Errorf("after KillTransaction: %v, %v; want no connection", list, err)
	}
}

// ExampleConnectionsService_KillQuery cancels the longest-running query of
// a branch.
func ExampleConnectionsService_KillQuery() {
	srv, err := fake.New()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	c, ctx := srv.Client(), context.Background()
	if _, err := c.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: srv.Org(), Name: "app-db"}); err != nil {
		log.Fatal(err)
	}
	if _, err := c.Databases.Wait(ctx, &platform.GetDatabaseParams{Organization: srv.Org(), Database: "app-db"}); err != nil {
		log.Fatal(err)
	}
	if _, err := srv.OpenSession(srv.Org(), "app-db", "main", fake.SessionSpec{User: "reports", Query: "SELECT * FROM orders", Started: srv.Now().Add(-90 * time.Second)}); err != nil {
		log.Fatal(err)
	}
	branch := &platform.ListConnectionsParams{Organization: srv.Org(), Database: "app-db", Branch: "main"}
	list, err := c.Connections.List(ctx, branch)
	if err != nil {
		log.Fatal(err)
	}
	for _, conn := range list.Connections {
		if conn.QueryID != nil && time.Duration(conn.DurationMS)*time.Millisecond > time.Minute {
			fmt.Printf("killing %s's %q after %s\n", conn.Username, conn.QueryText, time.Duration(conn.DurationMS)*time.Millisecond)
			if err := c.Connections.KillQuery(ctx, &platform.KillQueryParams{Organization: srv.Org(), Database: "app-db", Branch: "main", ID: *conn.QueryID}); err != nil {
				log.Fatal(err)
			}
		}
	}
	list, err = c.Connections.List(ctx, branch)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(list.Connections[0].State)
	// Output:
	// killing reports's "SELECT * FROM orders" after 1m30s
	// Sleep
}
