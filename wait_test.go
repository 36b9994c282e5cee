package platform_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
	"github.com/dbplatform/platform-go/internal/pollhook"
)

func TestWait(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	c := srv.Client()
	start := srv.Now()
	db, err := c.Databases.Create(t.Context(), &platform.CreateDatabaseParams{Organization: srv.Org(), Name: "app-db", ClusterSize: "PS_10"})
	if err != nil {
		t.Fatal(err)
	}
	if db.Ready || db.State != platform.DatabasePending {
		t.Fatalf("new database is ready %v, state %s; want pending", db.Ready, db.State)
	}
	db, err = c.Databases.Wait(t.Context(), &platform.GetDatabaseParams{Organization: srv.Org(), Database: "app-db"})
	if err != nil {
		t.Fatal(err)
	}
	if !db.Ready || db.State != platform.DatabaseReady || db.Name != "app-db" {
		t.Errorf("Wait returned ready %v, state %s, name %s", db.Ready, db.State, db.Name)
	}
	if waited := srv.Now().Sub(start); waited < 5*time.Second {
		t.Errorf("the fake's clock moved %s, want at least 5s", waited)
	}
}

// TestWaitAlreadyReady returns at once, without waiting.
func TestWaitAlreadyReady(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	c := srv.Client()
	if _, err := c.Databases.Create(t.Context(), &platform.CreateDatabaseParams{Organization: srv.Org(), Name: "app-db", ClusterSize: "PS_10"}); err != nil {
		t.Fatal(err)
	}
	srv.Advance(time.Minute)
	before := srv.Now()
	db, err := c.Databases.Wait(t.Context(), &platform.GetDatabaseParams{Organization: srv.Org(), Database: "app-db"})
	if err != nil || !db.Ready {
		t.Fatalf("Wait = %v, %v", db, err)
	}
	if !srv.Now().Equal(before) {
		t.Errorf("clock moved %s for a ready database", srv.Now().Sub(before))
	}
}

func TestWaitCancelled(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	c := srv.Client()
	if _, err := c.Databases.Create(t.Context(), &platform.CreateDatabaseParams{Organization: srv.Org(), Name: "app-db", ClusterSize: "PS_10"}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := c.Databases.Wait(ctx, &platform.GetDatabaseParams{Organization: srv.Org(), Database: "app-db"})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Wait with a cancelled context = %v, want context.Canceled", err)
	}
}

func TestWaitNotFound(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	_, err := srv.Client().Databases.Wait(t.Context(), &platform.GetDatabaseParams{Organization: srv.Org(), Database: "missing"})
	if !errors.Is(err, platform.ErrNotFound) {
		t.Errorf("Wait of a missing database = %v, want ErrNotFound", err)
	}
}

// TestWaitDeadline gives up when the context ends while waiting: the
// sleep function cancels, as a deadline would.
func TestWaitDeadline(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var waits []time.Duration
	sleep := func(ctx context.Context, d time.Duration) error {
		waits = append(waits, d)
		if len(waits) == 2 {
			cancel()
			return ctx.Err()
		}
		return nil // no time passes: the database stays pending
	}
	// A plain HTTP client: the fake's own would move its clock ahead of
	// each poll.
	c, err := platform.NewClient(append(srv.ClientOptions(srv.AdminToken()), platform.WithHTTPClient(&http.Client{}), platform.WithSleep(sleep))...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: srv.Org(), Name: "app-db", ClusterSize: "PS_10"}); err != nil {
		t.Fatal(err)
	}
	db, err := c.Databases.Wait(ctx, &platform.GetDatabaseParams{Organization: srv.Org(), Database: "app-db"})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error = %v, want context.Canceled", err)
	}
	if db == nil || db.Ready {
		t.Errorf("Wait returned %v, want the last (pending) database seen", db)
	}
	// The waits grow: 1s, then 2s.
	if len(waits) != 2 || waits[0] != time.Second || waits[1] != 2*time.Second {
		t.Errorf("waits = %v, want [1s 2s]", waits)
	}
}

// TestWaitMarksPollWaits checks that a SleepFunc can tell a waiter's waits
// between polls (which the fake ends at its next transition) from retry
// backoff (which it must wait out): only the former are pollhook.IsWait.
func TestWaitMarksPollWaits(t *testing.T) {
	t.Parallel()
	api := newWireFunc(t, sequence(
		respond(http.StatusServiceUnavailable, ""), // retried after a backoff
		respond(http.StatusOK, `{"name":"app-db","state":"pending","ready":false}`),
		respond(http.StatusOK, `{"name":"app-db","state":"ready","ready":true}`),
	))
	slept := &sleepRecorder{}
	c := api.newClient(t, fastRetries(2), platform.WithSleep(slept.sleep))
	if _, err := c.Databases.Wait(t.Context(), &platform.GetDatabaseParams{Organization: "acme", Database: "app-db"}); err != nil {
		t.Fatal(err)
	}
	slept.mu.Lock()
	defer slept.mu.Unlock()
	if diff := cmp.Diff([]bool{false, true}, slept.polls); diff != "" {
		t.Errorf("IsWait of the waits (-want +got):\n%s", diff)
	}
	if len(slept.waits) == 2 && slept.waits[1] != time.Second {
		t.Errorf("the waiter's first wait is %s, want 1s", slept.waits[1])
	}
	if pollhook.IsWait(t.Context()) {
		t.Error("IsWait of a plain context is true")
	}
}

// pollConditions is an http.RoundTripper that records, for each request,
// the pollhook.Condition it carries applied to the body it gets back (nil for
// none), then returns the response. It also applies the condition to the
// database the body decodes into, as a fake applies it to the database it
// rendered, and records where the two disagree or a value of another type
// is read.
type pollConditions struct {
	mu       sync.Mutex
	seen     []*bool
	mismatch []string
}

// pollTransport sends pollConditions' requests. It is not
// http.DefaultTransport, whose idle connections every closed httptest
// server (the wire tests' servers, in parallel tests) closes, breaking a
// request about to reuse one. It keeps no idle connection either: one
// kept to a server that has closed could be reused for a new server
// given the same port, and the request would meet a reset.
var pollTransport = &http.Transport{DisableKeepAlives: true}

func (p *pollConditions) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := pollTransport.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	var got *bool
	if cond, ok := pollhook.Condition(r.Context()); ok {
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		resp.Body = io.NopCloser(bytes.NewReader(body))
		done, _ := cond.Body(body)
		got = &done
		var db platform.Database
		if err := json.Unmarshal(body, &db); err != nil {
			return nil, err
		}
		ok, valueDone, _ := cond.Value(&db)
		other, _, _ := cond.Value(&platform.Branch{})
		if !ok || valueDone != done || other {
			p.mu.Lock()
			p.mismatch = append(p.mismatch, fmt.Sprintf("%s: the body reads done %t, the database ok %t done %t, a branch ok %t", body, done, ok, valueDone, other))
			p.mu.Unlock()
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.seen = append(p.seen, got)
	return resp, nil
}

// TestWaitPollCondition checks the condition a waiter's polls carry for a
// fake to move its clock by: present on the polls alone, and true of a body
// exactly when the waiter would stop there.
func TestWaitPollCondition(t *testing.T) {
	t.Parallel()
	api := newWireFunc(t, sequence(
		respond(http.StatusOK, `{"name":"app-db","state":"pending","ready":false}`),
		respond(http.StatusOK, `{"name":"app-db","state":"pending","ready":false}`),
		respond(http.StatusOK, `{"name":"app-db","state":"ready","ready":true}`),
	))
	rt := &pollConditions{}
	c := api.newClient(t, platform.WithoutRetries(), platform.WithHTTPClient(&http.Client{Transport: rt}),
		platform.WithSleep(func(ctx context.Context, _ time.Duration) error { return ctx.Err() }))
	if _, err := c.Databases.Get(t.Context(), &platform.GetDatabaseParams{Organization: "acme", Database: "app-db"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Databases.Wait(t.Context(), &platform.GetDatabaseParams{Organization: "acme", Database: "app-db"}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range rt.seen {
		switch {
		case s == nil:
			got = append(got, "none")
		case *s:
			got = append(got, "done")
		default:
			got = append(got, "not done")
		}
	}
	// The plain Get carries none; the waiter's two polls carry one.
	if diff := cmp.Diff([]string{"none", "not done", "done"}, got); diff != "" {
		t.Errorf("the requests' poll conditions (-want +got):\n%s", diff)
	}
	for _, m := range rt.mismatch {
		t.Errorf("the condition on the body and on the value differ: %s", m)
	}
}

// TestWaitersStopWhenUnreachable checks every waiter on a client whose
// transport notes, as a fake's client does, that nothing scheduled can move
// the resource: a waiter that is not done returns an *UnreachableError at
// once, without waiting. Without the note it waits (its sleep is called),
// even though the server's answers carry the header of that name the fake's
// client once set: nothing a server sends ends a wait.
func TestWaitersStopWhenUnreachable(t *testing.T) {
	t.Parallel()
	// Each answer is not done for every waiter: pending, not ready, a
	// running maintenance window, a bouncer resize that is pending.
	const body = `{"id": "r1", "number": 1, "name": "b", "state": "pending", "ready": false,
		"branch": {"id": "br1"}, "data": [{"id": "r1", "state": "pending", "started_at": "2026-01-01T00:00:00Z"}]}`
	const mark = "reason=it+waits+to+be+applied+%28DeployRequests.ApplyDeploy%29&resource=deployment+of+deploy+request+%237&state=pending_cutover"
	ref := struct{ org, db, br string }{"acme", "app", "main"}
	waiters := map[string]func(context.Context, *platform.Client) error{
		"AuthAttemptExports.Wait": func(ctx context.Context, c *platform.Client) error {
			_, err := c.AuthAttemptExports.Wait(ctx, &platform.GetAuthAttemptExportParams{Organization: ref.org, ID: "r1"})
			return err
		},
		"Backups.Wait": func(ctx context.Context, c *platform.Client) error {
			_, err := c.Backups.Wait(ctx, &platform.GetBackupParams{Organization: ref.org, Database: ref.db, Branch: ref.br, ID: "r1"})
			return err
		},
		"Bouncers.Wait": func(ctx context.Context, c *platform.Client) error {
			_, err := c.Bouncers.Wait(ctx, &platform.GetBouncerParams{Organization: ref.org, Database: ref.db, Branch: ref.br, Bouncer: "b"})
			return err
		},
		"Bouncers.WaitResize": func(ctx context.Context, c *platform.Client) error {
			_, err := c.Bouncers.WaitResize(ctx, &platform.WaitBouncerResizeParams{Organization: ref.org, Database: ref.db, Branch: ref.br, Bouncer: "b", ID: "r1"})
			return err
		},
		"Branches.Wait": func(ctx context.Context, c *platform.Client) error {
			_, err := c.Branches.Wait(ctx, &platform.GetBranchParams{Organization: ref.org, Database: ref.db, Branch: ref.br})
			return err
		},
		"BranchChanges.WaitResize": func(ctx context.Context, c *platform.Client) error {
			_, err := c.BranchChanges.WaitResize(ctx, &platform.GetBranchResizeRequestParams{Organization: ref.org, Database: ref.db, Branch: ref.br, Resize: "r1"})
			return err
		},
		"BranchChanges.WaitChange": func(ctx context.Context, c *platform.Client) error {
			_, err := c.BranchChanges.WaitChange(ctx, &platform.GetBranchChangeRequestParams{Organization: ref.org, Database: ref.db, Branch: ref.br, ID: "r1"})
			return err
		},
		"DataImports.Wait": func(ctx context.Context, c *platform.Client) error {
			_, err := c.DataImports.Wait(ctx, &platform.GetDataImportParams{Organization: ref.org, Database: ref.db}, platform.DataImportReady)
			return err
		},
		"Databases.Wait": func(ctx context.Context, c *platform.Client) error {
			_, err := c.Databases.Wait(ctx, &platform.GetDatabaseParams{Organization: ref.org, Database: ref.db})
			return err
		},
		"DeployRequests.WaitDeployment": func(ctx context.Context, c *platform.Client) error {
			_, err := c.DeployRequests.WaitDeployment(ctx, &platform.GetDeploymentParams{Organization: ref.org, Database: ref.db, Number: 7}, platform.DeploymentComplete)
			return err
		},
		"Keyspaces.Wait": func(ctx context.Context, c *platform.Client) error {
			_, err := c.Keyspaces.Wait(ctx, &platform.GetKeyspaceParams{Organization: ref.org, Database: ref.db, Branch: ref.br, Keyspace: "ks"})
			return err
		},
		"Keyspaces.WaitResize": func(ctx context.Context, c *platform.Client) error {
			_, err := c.Keyspaces.WaitResize(ctx, &platform.GetKeyspaceResizeParams{Organization: ref.org, Database: ref.db, Branch: ref.br, Keyspace: "ks", ID: "r1"})
			return err
		},
		"Maintenance.WaitSchedule": func(ctx context.Context, c *platform.Client) error {
			_, err := c.Maintenance.WaitSchedule(ctx, &platform.GetMaintenanceScheduleParams{Organization: ref.org, Database: ref.db, ID: "r1"})
			return err
		},
		"QueryPatternReports.Wait": func(ctx context.Context, c *platform.Client) error {
			_, err := c.QueryPatternReports.Wait(ctx, &platform.GetQueryPatternsReportParams{Organization: ref.org, Database: ref.db, Branch: ref.br, ID: "r1"})
			return err
		},
		"Switchovers.Wait": func(ctx context.Context, c *platform.Client) error {
			_, err := c.Switchovers.Wait(ctx, &platform.GetSwitchoverParams{Organization: ref.org, Database: ref.db, Branch: ref.br, ID: "r1"})
			return err
		},
		"Vitess.WaitOperation": func(ctx context.Context, c *platform.Client) error {
			_, err := c.Vitess.WaitOperation(ctx, &platform.GetVitessOperationParams{Organization: ref.org, Database: ref.db, Branch: ref.br, ID: "r1"})
			return err
		},
		"Vitess.WaitMoveTables": func(ctx context.Context, c *platform.Client) error {
			_, err := c.Vitess.WaitMoveTables(ctx, &platform.GetMoveTablesParams{Organization: ref.org, Database: ref.db, Branch: ref.br, Workflow: "w1", TargetKeyspace: "ks"})
			return err
		},
		"Vitess.WaitMaterialize": func(ctx context.Context, c *platform.Client) error {
			_, err := c.Vitess.WaitMaterialize(ctx, &platform.GetMaterializeParams{Organization: ref.org, Database: ref.db, Branch: ref.br, Workflow: "w1", TargetKeyspace: "ks"})
			return err
		},
		"Vitess.WaitLookupVindex": func(ctx context.Context, c *platform.Client) error {
			_, err := c.Vitess.WaitLookupVindex(ctx, &platform.GetLookupVindexParams{Organization: ref.org, Database: ref.db, Branch: ref.br, Name: "w1", TableKeyspace: "ks"})
			return err
		},
		"Vitess.WaitPlannedReparent": func(ctx context.Context, c *platform.Client) error {
			_, err := c.Vitess.WaitPlannedReparent(ctx, &platform.GetPlannedReparentParams{Organization: ref.org, Database: ref.db, Branch: ref.br, ID: "r1"})
			return err
		},
		"Vitess.WaitVDiff": func(ctx context.Context, c *platform.Client) error {
			_, err := c.Vitess.WaitVDiff(ctx, &platform.GetVDiffParams{Organization: ref.org, Database: ref.db, Branch: ref.br, Workflow: "wf", UUID: "r1", TargetKeyspace: "ks"})
			return err
		},
		"Workflows.Wait": func(ctx context.Context, c *platform.Client) error {
			_, err := c.Workflows.Wait(ctx, &platform.WorkflowParams{Organization: ref.org, Database: ref.db, Number: 1}, platform.WorkflowCompleted)
			return err
		},
	}
	// bodies are the answers of the waiters whose document is not the
	// shared one: a VDiff pending on its one shard ("cGVuZGluZw==" is
	// "pending"), a workflow copying.
	const copyingWorkflow = `{"data": {"workflows": [{"name": "w1", "shard_streams": {"ks/-": {"streams": [{"id": "1", "shard": "-", "state": "Copying"}]}}}]}}`
	bodies := map[string]string{
		"Vitess.WaitMaterialize":  copyingWorkflow,
		"Vitess.WaitLookupVindex": copyingWorkflow,
		"Vitess.WaitVDiff": `{"data": {"tablet_responses": {"-": {"output": {"fields": [{"name": "vdiff_state"}],
			"rows": [{"lengths": ["7"], "values": "cGVuZGluZw=="}]}, "vdiff_uuid": "r1"}}}}`,
	}
	// Every waiter of the SDK is in the table.
	for _, svc := range reflect.VisibleFields(reflect.TypeFor[platform.Client]()) {
		if svc.Type.Kind() != reflect.Pointer {
			continue
		}
		for i := range svc.Type.NumMethod() {
			if m := svc.Type.Method(i).Name; strings.HasPrefix(m, "Wait") {
				if _, ok := waiters[strings.TrimSuffix(svc.Name, "Service")+"."+m]; !ok {
					t.Errorf("waiter %s.%s has no case here", svc.Name, m)
				}
			}
		}
	}
	for name, wait := range waiters {
		for _, marked := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s marked %v", name, marked), func(t *testing.T) {
				t.Parallel()
				api := newWireFunc(t, func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Fake-Wait-Unreachable", mark)
					b := body
					if o, ok := bodies[name]; ok {
						b = o
					}
					writeBody(w, http.StatusOK, b)
				})
				errSlept := errors.New("slept")
				opts := []platform.Option{platform.WithoutRetries(),
					platform.WithSleep(func(context.Context, time.Duration) error { return errSlept })}
				if marked {
					opts = append(opts, platform.WithHTTPClient(&http.Client{Transport: noteUnreachable{api.srv.Client().Transport, mark}}))
				}
				err := wait(t.Context(), api.newClient(t, opts...))
				if !marked {
					if !errors.Is(err, errSlept) {
						t.Errorf("without the mark the waiter returned %v, want it to wait", err)
					}
					return
				}
				var ue *platform.UnreachableError
				if !errors.As(err, &ue) {
					t.Fatalf("the waiter returned %v, want an *UnreachableError", err)
				}
				want := platform.UnreachableError{Resource: "deployment of deploy request #7", State: "pending_cutover", Reason: "it waits to be applied (DeployRequests.ApplyDeploy)"}
				if diff := cmp.Diff(want, *ue); diff != "" {
					t.Errorf("the error (-want +got):\n%s", diff)
				}
				if got, want := ue.Error(), "platform: deployment of deploy request #7 is pending_cutover and nothing scheduled moves it: it waits to be applied (DeployRequests.ApplyDeploy)"; got != want {
					t.Errorf("Error() = %q, want %q", got, want)
				}
			})
		}
	}
}

// TestSingleGetWaitersPollOnce checks that the waiters whose poll is one
// Get (here those of a workflow and a query-patterns report, which polled
// with their backoff before) give the fake's client their condition: the
// clock moves to the transition that reaches the state waited for, and the
// waiter polls once, there.
func TestSingleGetWaitersPollOnce(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		op   string // the operation the waiter polls
		// start makes a database "shop" hold the resource on its way and
		// returns the wait.
		start func(t *testing.T, srv *fake.Server, c *platform.Client) func(context.Context) error
	}{
		{"Workflows.Wait", "get_workflow", func(t *testing.T, srv *fake.Server, c *platform.Client) func(context.Context) error {
			if err := srv.PushSchema(srv.Org(), "shop", "main", "CREATE TABLE orders (id bigint, PRIMARY KEY (id))"); err != nil {
				t.Fatal(err)
			}
			if err := srv.AddKeyspace(srv.Org(), "shop", "main", "history", 1); err != nil {
				t.Fatal(err)
			}
			wf, err := c.Workflows.Create(t.Context(), &platform.CreateWorkflowParams{Organization: srv.Org(), Database: "shop", Name: "move-orders",
				SourceKeyspace: "shop", TargetKeyspace: "history", Tables: []string{"orders"}})
			if err != nil {
				t.Fatal(err)
			}
			return func(ctx context.Context) error {
				_, err := c.Workflows.Wait(ctx, &platform.WorkflowParams{Organization: srv.Org(), Database: "shop", Number: wf.Number}, platform.WorkflowRunning)
				return err
			}
		}},
		{"QueryPatternReports.Wait", "get_query_patterns_report_status", func(t *testing.T, srv *fake.Server, c *platform.Client) func(context.Context) error {
			r, err := c.QueryPatternReports.Create(t.Context(), &platform.CreateQueryPatternsReportParams{Organization: srv.Org(), Database: "shop", Branch: "main"})
			if err != nil {
				t.Fatal(err)
			}
			return func(ctx context.Context) error {
				_, err := c.QueryPatternReports.Wait(ctx, &platform.GetQueryPatternsReportParams{Organization: srv.Org(), Database: "shop", Branch: "main", ID: r.ID})
				return err
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := fake.NewServer(t)
			c := srv.Client()
			if _, err := c.Databases.Create(t.Context(), &platform.CreateDatabaseParams{Organization: srv.Org(), Name: "shop"}); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Databases.Wait(t.Context(), &platform.GetDatabaseParams{Organization: srv.Org(), Database: "shop"}); err != nil {
				t.Fatal(err)
			}
			wait := tt.start(t, srv, c)
			if err := wait(t.Context()); err != nil {
				t.Fatal(err)
			}
			polls := 0
			for _, r := range srv.Requests() {
				if r.Operation == tt.op {
					polls++
				}
			}
			if polls != 1 {
				t.Errorf("the waiter polled %s %d times, want once (the clock moved to the state first)", tt.op, polls)
			}
		})
	}
}

// noteUnreachable is a transport that notes why, as a fake's client
// transport does, in the probe of each request that carries one.
type noteUnreachable struct {
	base http.RoundTripper
	why  string
}

func (t noteUnreachable) RoundTrip(r *http.Request) (*http.Response, error) {
	pollhook.NoteUnreachable(r.Context(), t.why)
	return t.base.RoundTrip(r)
}

// TestWaitersEndOnAPollsError: a waiter whose poll makes more than one
// request ends with the typed error of whichever fails, retries spent,
// rather than waiting on: Bouncers.Wait when the branch's infrastructure
// cannot be read, WaitResize when the bouncer's requests cannot be listed,
// and WaitSchedule when the schedule's windows cannot be (returning the
// schedule as polled).
func TestWaitersEndOnAPollsError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		failing  string // the path suffix answered with status
		status   int
		sentinel error
		wait     func(context.Context, *platform.Client) (any, error)
		wantV    bool // the waiter returns the resource as polled
	}{
		{"Bouncers.Wait", "/infrastructure", http.StatusInternalServerError, platform.ErrInternal, func(ctx context.Context, c *platform.Client) (any, error) {
			return c.Bouncers.Wait(ctx, &platform.GetBouncerParams{Organization: "acme", Database: "pg", Branch: "main", Bouncer: "pool"})
		}, false},
		{"Bouncers.WaitResize", "/resizes", http.StatusNotFound, platform.ErrNotFound, func(ctx context.Context, c *platform.Client) (any, error) {
			return c.Bouncers.WaitResize(ctx, &platform.WaitBouncerResizeParams{Organization: "acme", Database: "pg", Branch: "main", Bouncer: "pool", ID: "r1"})
		}, false},
		{"Maintenance.WaitSchedule", "/windows", http.StatusForbidden, platform.ErrForbidden, func(ctx context.Context, c *platform.Client) (any, error) {
			return c.Maintenance.WaitSchedule(ctx, &platform.GetMaintenanceScheduleParams{Organization: "acme", Database: "pg", ID: "mnt1"})
		}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			api := newWireFunc(t, func(w http.ResponseWriter, r *http.Request) {
				switch {
				case strings.HasSuffix(r.URL.Path, tc.failing):
					writeBody(w, tc.status, `{"code": "x", "message": "refused"}`)
				case strings.Contains(r.URL.Path, "/maintenance-schedules/"):
					writeBody(w, http.StatusOK, wireScheduleJSON)
				default:
					writeBody(w, http.StatusOK, bouncerJSON)
				}
			})
			slept := 0
			c := api.newClient(t, platform.WithoutRetries(), platform.WithSleep(func(context.Context, time.Duration) error { slept++; return nil }))
			v, err := tc.wait(t.Context(), c)
			if !errors.Is(err, tc.sentinel) {
				t.Fatalf("%s = %v, want %v", tc.name, err, tc.sentinel)
			}
			if got := !reflect.ValueOf(v).IsNil(); got != tc.wantV {
				t.Errorf("returned %+v with the error; want a resource: %t", v, tc.wantV)
			}
			if slept != 0 {
				t.Errorf("the waiter slept %d times after a failed poll, want 0", slept)
			}
		})
	}
}
