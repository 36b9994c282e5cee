package platform_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// newDRWire starts a wire server answering each request with the next of
// bodies (the last one repeats), its client recording the waits between
// polls instead of sleeping them.
func newDRWire(t *testing.T, bodies ...string) (*wire, *sleepRecorder) {
	t.Helper()
	hs := make([]http.HandlerFunc, len(bodies))
	for i, b := range bodies {
		hs[i] = respond(http.StatusOK, b)
	}
	w := newWireFunc(t, sequence(hs...))
	slept := &sleepRecorder{}
	w.client = w.newClient(t, platform.WithoutRetries(), platform.WithSleep(slept.sleep))
	return w, slept
}

// Canned responses.
const (
	drJSON         = `{"id":"dr0000000001","type":"DeployRequest","number":7,"state":"open","deployment_state":"ready","deployment":{"id":"dp0000000001","type":"Deployment","state":"ready"}}`
	deploymentJSON = `{"id":"dp0000000001","type":"Deployment","state":"ready","deploy_request_number":7}`
	reviewJSON     = `{"id":"rv0000000001","type":"DeployRequestReview","state":"approved","body":"ok"}`
)

// drPageJSON is a one-item page of item.
func drPageJSON(item string) string {
	return `{"type":"list","current_page":1,"per_page":25,"next_page":null,"next_page_url":null,"prev_page":null,"prev_page_url":null,"data":[` + item + `]}`
}

// drBase is the escaped path of database "app db" of organization acme.
const drBase = "/v1/organizations/acme/databases/app%20db"

func TestDeployRequestsWire(t *testing.T) {
	t.Parallel()
	const org, db = "acme", "app db"
	one := platform.DeployRequestParams{Organization: org, Database: db, Number: 7}
	type row struct {
		name   string
		call   func(ctx context.Context, c *platform.Client) (string, error) // returns the decoded ID
		resp   string
		method string
		path   string
		query  string
		body   string // JSON; "" for no body
	}
	drCall := func(fn func(*platform.DeployRequestsService, context.Context, *platform.DeployRequestParams) (*platform.DeployRequest, error)) func(ctx context.Context, c *platform.Client) (string, error) {
		return func(ctx context.Context, c *platform.Client) (string, error) {
			p := one
			dr, err := fn(c.DeployRequests, ctx, &p)
			if err != nil {
				return "", err
			}
			return dr.ID + "/" + dr.Deployment.ID, nil
		}
	}
	const drID = "dr0000000001/dp0000000001"
	rows := []row{
		{name: "List", resp: drPageJSON(drJSON), method: "GET", path: drBase + "/deploy-requests", query: "branch=dev&into_branch=main&page=2&per_page=5&state=open",
			call: func(ctx context.Context, c *platform.Client) (string, error) {
				p, err := c.DeployRequests.List(ctx, &platform.ListDeployRequestsParams{Organization: org, Database: db, State: platform.DeployRequestOpen, Branch: "dev", IntoBranch: "main", ListParams: platform.ListParams{Page: 2, PerPage: 5}})
				if err != nil {
					return "", err
				}
				return p.Items[0].ID + "/" + p.Items[0].Deployment.ID, nil
			}},
		{name: "Create", resp: drJSON, method: "POST", path: drBase + "/deploy-requests",
			body: `{"branch":"dev","into_branch":"main","notes":"n","auto_cutover":false,"auto_delete_branch":true}`,
			call: func(ctx context.Context, c *platform.Client) (string, error) {
				dr, err := c.DeployRequests.Create(ctx, &platform.CreateDeployRequestParams{Organization: org, Database: db, Branch: "dev", IntoBranch: "main", Notes: "n", AutoCutover: platform.Ptr(false), AutoDeleteBranch: platform.Ptr(true)})
				if err != nil {
					return "", err
				}
				return dr.ID + "/" + dr.Deployment.ID, nil
			}},
		{name: "Create minimal", resp: drJSON, method: "POST", path: drBase + "/deploy-requests", body: `{"branch":"dev","into_branch":"main"}`,
			call: func(ctx context.Context, c *platform.Client) (string, error) {
				dr, err := c.DeployRequests.Create(ctx, &platform.CreateDeployRequestParams{Organization: org, Database: db, Branch: "dev", IntoBranch: "main"})
				if err != nil {
					return "", err
				}
				return dr.ID + "/" + dr.Deployment.ID, nil
			}},
		{name: "Get", resp: drJSON, method: "GET", path: drBase + "/deploy-requests/7", call: drCall((*platform.DeployRequestsService).Get)},
		{name: "Close", resp: drJSON, method: "PATCH", path: drBase + "/deploy-requests/7", body: `{"state":"closed"}`, call: drCall((*platform.DeployRequestsService).Close)},
		{name: "Deploy", resp: drJSON, method: "POST", path: drBase + "/deploy-requests/7/deploy", body: `{}`,
			call: func(ctx context.Context, c *platform.Client) (string, error) {
				dr, err := c.DeployRequests.Deploy(ctx, &platform.DeployParams{Organization: org, Database: db, Number: 7})
				if err != nil {
					return "", err
				}
				return dr.ID + "/" + dr.Deployment.ID, nil
			}},
		{name: "Deploy instant", resp: drJSON, method: "POST", path: drBase + "/deploy-requests/7/deploy", body: `{"instant_ddl":true}`,
			call: func(ctx context.Context, c *platform.Client) (string, error) {
				dr, err := c.DeployRequests.Deploy(ctx, &platform.DeployParams{Organization: org, Database: db, Number: 7, InstantDDL: platform.Ptr(true)})
				if err != nil {
					return "", err
				}
				return dr.ID + "/" + dr.Deployment.ID, nil
			}},
		{name: "ApplyDeploy", resp: drJSON, method: "POST", path: drBase + "/deploy-requests/7/apply-deploy", call: drCall((*platform.DeployRequestsService).ApplyDeploy)},
		{name: "ForceCutover", resp: drJSON, method: "POST", path: drBase + "/deploy-requests/7/force-cutover", call: drCall((*platform.DeployRequestsService).ForceCutover)},
		{name: "UpdateAutoApply", resp: drJSON, method: "PUT", path: drBase + "/deploy-requests/7/auto-apply", body: `{"enable":true}`,
			call: func(ctx context.Context, c *platform.Client) (string, error) {
				dr, err := c.DeployRequests.UpdateAutoApply(ctx, &platform.UpdateAutoApplyParams{Organization: org, Database: db, Number: 7, Enable: true})
				if err != nil {
					return "", err
				}
				return dr.ID + "/" + dr.Deployment.ID, nil
			}},
		{name: "UpdateAutoDeleteBranch", resp: drJSON, method: "PUT", path: drBase + "/deploy-requests/7/auto-delete-branch", body: `{"enable":false}`,
			call: func(ctx context.Context, c *platform.Client) (string, error) {
				dr, err := c.DeployRequests.UpdateAutoDeleteBranch(ctx, &platform.UpdateAutoDeleteBranchParams{Organization: org, Database: db, Number: 7, Enable: false})
				if err != nil {
					return "", err
				}
				return dr.ID + "/" + dr.Deployment.ID, nil
			}},
		{name: "Cancel", resp: drJSON, method: "POST", path: drBase + "/deploy-requests/7/cancel", call: drCall((*platform.DeployRequestsService).Cancel)},
		{name: "CompleteErroredDeploy", resp: drJSON, method: "POST", path: drBase + "/deploy-requests/7/complete-deploy", call: drCall((*platform.DeployRequestsService).CompleteErroredDeploy)},
		{name: "Revert", resp: drJSON, method: "POST", path: drBase + "/deploy-requests/7/revert", call: drCall((*platform.DeployRequestsService).Revert)},
		{name: "SkipRevert", resp: drJSON, method: "POST", path: drBase + "/deploy-requests/7/skip-revert", call: drCall((*platform.DeployRequestsService).SkipRevert)},
		{name: "GetDeployment", resp: deploymentJSON, method: "GET", path: drBase + "/deploy-requests/7/deployment",
			call: func(ctx context.Context, c *platform.Client) (string, error) {
				p := one
				d, err := c.DeployRequests.GetDeployment(ctx, &p)
				if err != nil {
					return "", err
				}
				return d.ID, nil
			}},
		{name: "ListOperations", resp: drPageJSON(`{"id":"op0000000001","type":"DeployOperation","operation_name":"create"}`), method: "GET", path: drBase + "/deploy-requests/7/operations", query: "page=3",
			call: func(ctx context.Context, c *platform.Client) (string, error) {
				p, err := c.DeployRequests.ListOperations(ctx, &platform.ListDeployOperationsParams{Organization: org, Database: db, Number: 7, ListParams: platform.ListParams{Page: 3}})
				if err != nil {
					return "", err
				}
				return p.Items[0].ID + "/" + string(p.Items[0].OperationName), nil
			}},
		{name: "ListReviews", resp: drPageJSON(reviewJSON), method: "GET", path: drBase + "/deploy-requests/7/reviews", query: "per_page=10",
			call: func(ctx context.Context, c *platform.Client) (string, error) {
				p, err := c.DeployRequests.ListReviews(ctx, &platform.ListReviewsParams{Organization: org, Database: db, Number: 7, ListParams: platform.ListParams{PerPage: 10}})
				if err != nil {
					return "", err
				}
				return p.Items[0].ID, nil
			}},
		{name: "Review", resp: reviewJSON, method: "POST", path: drBase + "/deploy-requests/7/reviews", body: `{"state":"approved","body":"ok"}`,
			call: func(ctx context.Context, c *platform.Client) (string, error) {
				r, err := c.DeployRequests.Review(ctx, &platform.ReviewParams{Organization: org, Database: db, Number: 7, State: platform.ReviewApproved, Body: "ok"})
				if err != nil {
					return "", err
				}
				return r.ID + "/" + string(r.State), nil
			}},
		{name: "Review comment without body", resp: reviewJSON, method: "POST", path: drBase + "/deploy-requests/7/reviews", body: `{"state":"commented"}`,
			call: func(ctx context.Context, c *platform.Client) (string, error) {
				r, err := c.DeployRequests.Review(ctx, &platform.ReviewParams{Organization: org, Database: db, Number: 7, State: platform.ReviewCommented})
				if err != nil {
					return "", err
				}
				return r.ID + "/" + string(r.State), nil
			}},
		{name: "GetDeployQueue", resp: drPageJSON(deploymentJSON), method: "GET", path: drBase + "/deploy-queue",
			call: func(ctx context.Context, c *platform.Client) (string, error) {
				p, err := c.DeployRequests.GetDeployQueue(ctx, &platform.GetDeployQueueParams{Organization: org, Database: db})
				if err != nil {
					return "", err
				}
				return p.Items[0].ID, nil
			}},
	}
	wantIDs := map[string]string{
		"GetDeployment": "dp0000000001", "GetDeployQueue": "dp0000000001",
		"ListOperations": "op0000000001/create", "ListReviews": "rv0000000001",
		"Review": "rv0000000001/approved", "Review comment without body": "rv0000000001/approved",
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			t.Parallel()
			w, _ := newDRWire(t, r.resp)
			id, err := r.call(t.Context(), w.client)
			if err != nil {
				t.Fatal(err)
			}
			want := drID
			if v, ok := wantIDs[r.name]; ok {
				want = v
			}
			if id != want {
				t.Errorf("decoded %q, want %q", id, want)
			}
			checkRequest(t, w.only(), wantRequest{Method: r.method, Path: r.path, RawQuery: r.query, Body: r.body})
		})
	}
}

func TestDeployRequestsArgErrors(t *testing.T) {
	t.Parallel()
	w, _ := newDRWire(t, drJSON)
	c := w.client
	calls := map[string]func(ctx context.Context, p platform.DeployRequestParams) error{
		"Get": func(ctx context.Context, p platform.DeployRequestParams) error {
			_, err := c.DeployRequests.Get(ctx, &p)
			return err
		},
		"Close": func(ctx context.Context, p platform.DeployRequestParams) error {
			_, err := c.DeployRequests.Close(ctx, &p)
			return err
		},
		"Deploy": func(ctx context.Context, p platform.DeployRequestParams) error {
			_, err := c.DeployRequests.Deploy(ctx, &platform.DeployParams{Organization: p.Organization, Database: p.Database, Number: p.Number})
			return err
		},
		"ApplyDeploy": func(ctx context.Context, p platform.DeployRequestParams) error {
			_, err := c.DeployRequests.ApplyDeploy(ctx, &p)
			return err
		},
		"ForceCutover": func(ctx context.Context, p platform.DeployRequestParams) error {
			_, err := c.DeployRequests.ForceCutover(ctx, &p)
			return err
		},
		"UpdateAutoApply": func(ctx context.Context, p platform.DeployRequestParams) error {
			_, err := c.DeployRequests.UpdateAutoApply(ctx, &platform.UpdateAutoApplyParams{Organization: p.Organization, Database: p.Database, Number: p.Number})
			return err
		},
		"UpdateAutoDeleteBranch": func(ctx context.Context, p platform.DeployRequestParams) error {
			_, err := c.DeployRequests.UpdateAutoDeleteBranch(ctx, &platform.UpdateAutoDeleteBranchParams{Organization: p.Organization, Database: p.Database, Number: p.Number})
			return err
		},
		"Cancel": func(ctx context.Context, p platform.DeployRequestParams) error {
			_, err := c.DeployRequests.Cancel(ctx, &p)
			return err
		},
		"CompleteErroredDeploy": func(ctx context.Context, p platform.DeployRequestParams) error {
			_, err := c.DeployRequests.CompleteErroredDeploy(ctx, &p)
			return err
		},
		"Revert": func(ctx context.Context, p platform.DeployRequestParams) error {
			_, err := c.DeployRequests.Revert(ctx, &p)
			return err
		},
		"SkipRevert": func(ctx context.Context, p platform.DeployRequestParams) error {
			_, err := c.DeployRequests.SkipRevert(ctx, &p)
			return err
		},
		"GetDeployment": func(ctx context.Context, p platform.DeployRequestParams) error {
			_, err := c.DeployRequests.GetDeployment(ctx, &p)
			return err
		},
		"WaitDeployment": func(ctx context.Context, p platform.DeployRequestParams) error {
			_, err := c.DeployRequests.WaitDeployment(ctx, &p, platform.DeploymentComplete)
			return err
		},
		"ListOperations": func(ctx context.Context, p platform.DeployRequestParams) error {
			_, err := c.DeployRequests.ListOperations(ctx, &platform.ListDeployOperationsParams{Organization: p.Organization, Database: p.Database, Number: p.Number})
			return err
		},
		"ListReviews": func(ctx context.Context, p platform.DeployRequestParams) error {
			_, err := c.DeployRequests.ListReviews(ctx, &platform.ListReviewsParams{Organization: p.Organization, Database: p.Database, Number: p.Number})
			return err
		},
		"Review": func(ctx context.Context, p platform.DeployRequestParams) error {
			_, err := c.DeployRequests.Review(ctx, &platform.ReviewParams{Organization: p.Organization, Database: p.Database, Number: p.Number, State: platform.ReviewCommented})
			return err
		},
		// The database-level operations ignore Number.
		"List": func(ctx context.Context, p platform.DeployRequestParams) error {
			_, err := c.DeployRequests.List(ctx, &platform.ListDeployRequestsParams{Organization: p.Organization, Database: p.Database})
			return err
		},
		"Create": func(ctx context.Context, p platform.DeployRequestParams) error {
			_, err := c.DeployRequests.Create(ctx, &platform.CreateDeployRequestParams{Organization: p.Organization, Database: p.Database})
			return err
		},
		"GetDeployQueue": func(ctx context.Context, p platform.DeployRequestParams) error {
			_, err := c.DeployRequests.GetDeployQueue(ctx, &platform.GetDeployQueueParams{Organization: p.Organization, Database: p.Database})
			return err
		},
	}
	databaseLevel := map[string]bool{"List": true, "Create": true, "GetDeployQueue": true}
	for name, call := range calls {
		for _, tc := range []struct {
			arg string
			p   platform.DeployRequestParams
		}{
			{"organization", platform.DeployRequestParams{Database: "app", Number: 1}},
			{"database", platform.DeployRequestParams{Organization: "acme", Number: 1}},
			{"number", platform.DeployRequestParams{Organization: "acme", Database: "app", Number: 0}},
			{"number", platform.DeployRequestParams{Organization: "acme", Database: "app", Number: -3}},
		} {
			if tc.arg == "number" && databaseLevel[name] {
				continue
			}
			var argErr *platform.ArgError
			if err := call(t.Context(), tc.p); !errors.As(err, &argErr) || argErr.Arg != tc.arg {
				t.Errorf("%s with %+v: %v, want an ArgError for %s", name, tc.p, err, tc.arg)
			}
		}
	}
	// Nil params are missing values too.
	if _, err := c.DeployRequests.Get(t.Context(), nil); err == nil {
		t.Error("Get(nil): no error")
	}
	if n := len(w.requests()); n != 0 {
		t.Errorf("%d requests sent for invalid arguments, want 0", n)
	}
}

// deploymentAt is a canned deployment in state st.
func deploymentAt(st platform.DeploymentState) string {
	return `{"id":"dp0000000001","type":"Deployment","state":"` + string(st) + `","deploy_request_number":7}`
}

func TestWaitDeployment(t *testing.T) {
	t.Parallel()
	p := &platform.GetDeploymentParams{Organization: "acme", Database: "app", Number: 7}
	t.Run("returns on a wanted state", func(t *testing.T) {
		t.Parallel()
		w, slept := newDRWire(t, deploymentAt("queued"), deploymentAt("in_progress"), deploymentAt("pending_cutover"), deploymentAt("in_progress_cutover"))
		d, err := w.client.DeployRequests.WaitDeployment(t.Context(), p, platform.DeploymentPendingCutover, platform.DeploymentComplete)
		if err != nil {
			t.Fatal(err)
		}
		if d.State != platform.DeploymentPendingCutover {
			t.Errorf("state %s, want pending_cutover", d.State)
		}
		reqs := w.requests()
		if len(reqs) != 3 {
			t.Errorf("%d polls, want 3", len(reqs))
		}
		for _, r := range reqs {
			if r.Method != "GET" || r.Path != "/v1/organizations/acme/databases/app/deploy-requests/7/deployment" {
				t.Errorf("poll %s %s", r.Method, r.Path)
			}
		}
		if waits := slept.recorded(); len(waits) != 2 || waits[0] <= 0 || waits[1] < waits[0] {
			t.Errorf("waits %v, want two growing waits", waits)
		}
	})
	t.Run("a wanted terminal state", func(t *testing.T) {
		t.Parallel()
		w, _ := newDRWire(t, deploymentAt("in_progress_revert"), deploymentAt("complete_revert"))
		d, err := w.client.DeployRequests.WaitDeployment(t.Context(), p, platform.DeploymentCompleteRevert)
		if err != nil || d.State != platform.DeploymentCompleteRevert {
			t.Errorf("WaitDeployment = %v, %v; want complete_revert", d, err)
		}
	})
	t.Run("an unwanted terminal state", func(t *testing.T) {
		t.Parallel()
		w, _ := newDRWire(t, deploymentAt("in_progress"), deploymentAt("complete_error"))
		_, err := w.client.DeployRequests.WaitDeployment(t.Context(), p, platform.DeploymentPendingCutover)
		var stateErr *platform.StateError
		if !errors.As(err, &stateErr) {
			t.Fatalf("error %v, want a *StateError", err)
		}
		if stateErr.State != "complete_error" || !cmp.Equal(stateErr.Want, []string{"pending_cutover"}) {
			t.Errorf("StateError = %+v", stateErr)
		}
		if !strings.Contains(err.Error(), "complete_error") {
			t.Errorf("error text %q does not name the state", err)
		}
		if n := len(w.requests()); n != 2 {
			t.Errorf("%d polls, want 2", n)
		}
	})
	t.Run("no states", func(t *testing.T) {
		t.Parallel()
		w, _ := newDRWire(t, deploymentAt("ready"))
		_, err := w.client.DeployRequests.WaitDeployment(t.Context(), p)
		var argErr *platform.ArgError
		if !errors.As(err, &argErr) || argErr.Arg != "states" {
			t.Errorf("error %v, want an ArgError for states", err)
		}
		if n := len(w.requests()); n != 0 {
			t.Errorf("%d requests, want 0", n)
		}
	})
	t.Run("context ends", func(t *testing.T) {
		t.Parallel()
		w, _ := newDRWire(t, deploymentAt("in_progress"))
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if _, err := w.client.DeployRequests.WaitDeployment(ctx, p, platform.DeploymentComplete); !errors.Is(err, context.Canceled) {
			t.Errorf("error %v, want context.Canceled", err)
		}
	})
}

func TestDeploymentStateClasses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		state             platform.DeploymentState
		terminal, failure bool
	}{
		{platform.DeploymentPending, false, false},
		{platform.DeploymentReady, false, false},
		{platform.DeploymentNoChanges, true, false},
		{platform.DeploymentQueued, false, false},
		{platform.DeploymentSubmitting, false, false},
		{platform.DeploymentInProgress, false, false},
		{platform.DeploymentPendingCutover, false, false},
		{platform.DeploymentInProgressVSchema, false, false},
		{platform.DeploymentInProgressCancel, false, false},
		{platform.DeploymentInProgressCutover, false, false},
		{platform.DeploymentComplete, true, false},
		{platform.DeploymentCompleteCancel, true, false},
		{platform.DeploymentCompleteError, true, true},
		{platform.DeploymentCompletePendingRevert, false, false},
		{platform.DeploymentInProgressRevert, false, false},
		{platform.DeploymentInProgressRevertVSchema, false, false},
		{platform.DeploymentCompleteRevert, true, false},
		{platform.DeploymentCompleteRevertError, true, true},
		{platform.DeploymentCancelled, true, false},
		{platform.DeploymentError, true, true},
		{"some_future_state", false, false},
	} {
		if got := tc.state.IsTerminal(); got != tc.terminal {
			t.Errorf("%s.IsTerminal() = %t, want %t", tc.state, got, tc.terminal)
		}
		if got := tc.state.IsFailure(); got != tc.failure {
			t.Errorf("%s.IsFailure() = %t, want %t", tc.state, got, tc.failure)
		}
	}
}

func TestDeploymentDecodes(t *testing.T) {
	t.Parallel()
	// A deployment as the reference describes it, nulls included.
	const body = `{"id":"dp0000000001","type":"Deployment","state":"complete_pending_revert",
		"auto_cutover":false,"auto_delete_branch":true,"created_at":"2026-01-14T10:19:23.000Z",
		"cutover_at":"2026-01-14T10:20:00.000Z","cutover_expiring":false,"deploy_check_errors":null,
		"finished_at":"2026-01-14T10:20:00.000Z","force_cutover_requested_at":null,
		"queued_at":"2026-01-14T10:19:24.000Z","ready_to_cutover_at":null,"started_at":null,
		"submitted_at":"2026-01-14T10:19:24.000Z","updated_at":"2026-01-14T10:20:00.000Z",
		"into_branch":"main","deploy_request_number":3,"deployable":false,"preceding_deployments":[],
		"deploy_operations":[{"id":"op0000000001","state":"complete","keyspace_name":"app","table_name":"t",
			"operation_name":"drop","eta_seconds":null,"progress_percentage":100,"deploy_error_docs_url":null,
			"ddl_statement":"DROP TABLE t","syntax_highlighted_ddl":"","created_at":"2026-01-14T10:19:23.000Z",
			"updated_at":"2026-01-14T10:19:23.000Z","throttled_at":null,"can_drop_data":true,"table_locked":false,
			"table_recently_used":false,"table_recently_used_at":null,"removed_foreign_key_names":null,"deploy_errors":null}],
		"deploy_operation_summaries":[{"id":"op0000000001","created_at":"2026-01-14T10:19:23.000Z","deploy_errors":"",
			"ddl_statement":"DROP TABLE t","eta_seconds":0,"keyspace_name":"app","operation_name":"drop",
			"progress_percentage":100,"state":"complete","syntax_highlighted_ddl":"","table_name":"t",
			"table_recently_used_at":null,"throttled_at":null,"removed_foreign_key_names":[],"shard_count":2,
			"shard_names":["-80","80-"],"can_drop_data":true,"table_recently_used":false,"sharded":true,
			"operations":[{"id":"sh0000000001","shard":"-80","state":"complete","progress_percentage":100,"eta_seconds":0}]}],
		"lint_errors":[],"sequential_diff_dependencies":[],"lookup_vindex_operations":[],"deployment_revert_request":null,
		"schema_last_updated_at":null,"table_locked":false,"instant_ddl":false,"instant_ddl_eligible":false,
		"queue_paused":false,"queue_pause_reason":null,"actor":{"id":"u1","display_name":"Ada","avatar_url":"a"},
		"cutover_actor":null,"cancelled_actor":null}`
	w, _ := newDRWire(t, body)
	d, err := w.client.DeployRequests.GetDeployment(t.Context(), &platform.GetDeploymentParams{Organization: "acme", Database: "app", Number: 3})
	if err != nil {
		t.Fatal(err)
	}
	s := d.DeployOperationSummaries[0]
	got := []any{d.State, d.AutoDeleteBranch, d.QueuedAt.Time, d.StartedAt == nil, d.Actor.DisplayName, d.CutoverActor == nil,
		d.DeployOperations[0].OperationName, d.DeployOperations[0].CanDropData, d.DeployOperations[0].ETASeconds == nil,
		s.ShardNames, s.Operations[0].State, s.ProgressPercentage}
	want := []any{platform.DeploymentCompletePendingRevert, true, time.Date(2026, 1, 14, 10, 19, 24, 0, time.UTC), true, "Ada", true,
		platform.OperationDrop, true, true, []string{"-80", "80-"}, platform.OperationComplete, 100.0}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decoded deployment (-want +got):\n%s", diff)
	}
}

// ExampleDeployRequestsService_Deploy is the deploy step of a CI pipeline:
// it changes a development branch's schema, opens a deploy request into
// production, waits until the request is deployable, deploys it and waits
// until the change is live.
func ExampleDeployRequestsService_Deploy() {
	srv, err := fake.New()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	client, ctx := srv.Client(), context.Background()
	if _, err := client.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: "acme", Name: "shop", ClusterSize: "PS_10"}); err != nil {
		log.Fatal(err)
	}
	if _, err := client.Databases.Wait(ctx, &platform.GetDatabaseParams{Organization: "acme", Database: "shop"}); err != nil {
		log.Fatal(err)
	}
	// The live service takes DDL over a SQL connection; the fake's
	// PushSchema stands for it. With safe migrations on, main then takes
	// schema changes through deploy requests only.
	if err := srv.PushSchema("acme", "shop", "main", "CREATE TABLE users (id bigint NOT NULL, PRIMARY KEY (id))"); err != nil {
		log.Fatal(err)
	}
	if _, err := client.Branches.EnableSafeMigrations(ctx, &platform.EnableSafeMigrationsParams{Organization: "acme", Database: "shop", Branch: "main"}); err != nil {
		log.Fatal(err)
	}
	if _, err := client.Branches.Create(ctx, &platform.CreateBranchParams{Organization: "acme", Database: "shop", Name: "add-email", ParentBranch: "main"}); err != nil {
		log.Fatal(err)
	}
	if _, err := client.Branches.Wait(ctx, &platform.GetBranchParams{Organization: "acme", Database: "shop", Branch: "add-email"}); err != nil {
		log.Fatal(err)
	}
	if err := srv.PushSchema("acme", "shop", "add-email", "CREATE TABLE users (id bigint NOT NULL, email varchar(255), PRIMARY KEY (id))"); err != nil {
		log.Fatal(err)
	}

	// AutoCutover: the deployment does not stop at the cutover gate
	// (pending_cutover), where it would wait for ApplyDeploy.
	dr, err := client.DeployRequests.Create(ctx, &platform.CreateDeployRequestParams{
		Organization: "acme", Database: "shop", Branch: "add-email", IntoBranch: "main",
		Notes: "Add users.email", AutoCutover: platform.Ptr(true),
	})
	if err != nil {
		log.Fatal(err)
	}
	// The request starts pending while the branches are compared. Waiting
	// for ready alone makes no_changes or error (nothing to deploy, or a
	// conflict) end the wait with a *platform.StateError.
	ref := &platform.GetDeploymentParams{Organization: "acme", Database: "shop", Number: dr.Number}
	d, err := client.DeployRequests.WaitDeployment(ctx, ref, platform.DeploymentReady)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("#%d %s, deployable %t\n", dr.Number, d.State, d.Deployable)
	for _, op := range d.DeployOperations {
		fmt.Println(" ", op.OperationName, op.TableName)
	}

	if _, err := client.DeployRequests.Deploy(ctx, &platform.DeployParams{Organization: "acme", Database: "shop", Number: dr.Number}); err != nil {
		log.Fatal(err)
	}
	// The change is live in complete_pending_revert, while it can still be
	// reverted, and stays live in complete once that window has closed.
	d, err = client.DeployRequests.WaitDeployment(ctx, ref, platform.DeploymentCompletePendingRevert, platform.DeploymentComplete)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("deployment", d.State)
	schema, err := client.Branches.GetSchema(ctx, &platform.GetBranchSchemaParams{Organization: "acme", Database: "shop", Branch: "main"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("main's users has email:", strings.Contains(schema.Tables[0].Raw, "email"))
	// Output:
	// #1 ready, deployable true
	//   alter users
	// deployment complete_pending_revert
	// main's users has email: true
}
