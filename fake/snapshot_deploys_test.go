package fake_test

import (
	"bytes"
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// deployStepAt is the index of the refusal world's deployment step in its
// transitions, for the paths errors name.
func deployStepAt(t *testing.T) int {
	t.Helper()
	base, err := refusalWorld()
	if err != nil {
		t.Fatal(err)
	}
	at := -1
	snapshotEdit(t, base, func(m map[string]any) {
		for i, x := range (refusalDoc{m}).list(m, "transitions") {
			if x.(map[string]any)["kind"] == "deployment.step" {
				at = i
			}
		}
	})
	if at < 0 {
		t.Fatal("the refusal world has no deployment step")
	}
	return at
}

// TestRestoreRefusesDeploymentsTheAPIDoesNotReach checks that an open
// deploy request into a branch it could not stay open into, a deployment
// whose state waits on a step of the clock that is not there, a step of
// the clock its deployment does not wait on, and a deploy queue at odds
// with its deployments' states, and table definitions the schema diff
// never makes, are refused at their path. In the refusal world, deploy
// request #1 (dev into main) is in_progress, in the deploy queue, with its
// step "copied" on the clock, and alters app.users.
func TestRestoreRefusesDeploymentsTheAPIDoesNotReach(t *testing.T) {
	t.Parallel()
	p := refusalWorldPaths(t)
	dr := p.app + ".deploy_requests[0]"
	step := fmt.Sprintf("transitions[%d]", deployStepAt(t))
	dep := func(d refusalDoc) map[string]any { return d.dr()["deployment"].(map[string]any) }
	stepOf := func(d refusalDoc) map[string]any {
		return d.find(d.list(d.m, "transitions"), "kind", "deployment.step")
	}
	// opOf is the deployment's one operation: an alter of app.users.
	opOf := func(d refusalDoc) map[string]any { return dep(d)["operations"].([]any)[0].(map[string]any) }
	runRefusals(t, []refusalCase{
		{"an open deploy request into a development branch", func(d refusalDoc) {
			d.branch("app", "main")["production"] = false
		}, dr + ".into: branch " + p.appMainID + " is not a production branch"},
		{"an open deploy request into a branch without safe migrations", func(d refusalDoc) {
			d.branch("app", "main")["safe_migrations"] = false
		}, dr + ".into: branch " + p.appMainID + " has safe migrations off"},
		{"an open deploy request into a deleted branch", func(d refusalDoc) {
			// dev becomes the production base, deleted; main the head.
			b := d.branch("app", "dev")
			b["production"], b["safe_migrations"], b["deleted"], b["deleted_at"] = true, true, true, b["created"]
			d.dr()["head"], d.dr()["into"] = d.branch("app", "main")["id"], b["id"]
		}, dr + ".into: branch " + p.appDevID + " is deleted"},
		{"a deployment waiting on a step that is not there", func(d refusalDoc) {
			var keep []any
			for _, x := range d.list(d.m, "transitions") {
				if x.(map[string]any)["kind"] != "deployment.step" {
					keep = append(keep, x)
				}
			}
			d.m["transitions"] = keep
		}, dr + `.deployment.state: in_progress, with no transition on the clock to end it (a deployment.step "copied"`},
		{"a step of a deployment in a terminal state", func(d refusalDoc) {
			dep(d)["state"] = "complete_error"
		}, step + `: step "copied" of deployment `},
		{"a step its deployment's state does not take", func(d refusalDoc) {
			dep(d)["state"] = "submitting"
		}, `, which is submitting and waits on step "start"`},
		{"a step of a generation the deployment has not reached", func(d refusalDoc) {
			stepOf(d)["gen"] = 99
		}, step + ".gen: generation 99 is after its deployment's "},
		{"two steps of a deployment at its generation", func(d refusalDoc) {
			c := map[string]any{}
			maps.Copy(c, stepOf(d))
			used := map[string]bool{}
			for _, x := range d.list(d.m, "transitions") {
				used[fmt.Sprint(x.(map[string]any)["seq"])] = true
			}
			seq := 1
			for used[fmt.Sprint(seq)] {
				seq++
			}
			c["seq"] = seq
			d.m["transitions"] = append(d.list(d.m, "transitions"), c)
		}, "a second step of deployment "},
		{"an operation's table that is not a CREATE TABLE", func(d refusalDoc) {
			opOf(d)["prev"] = "CREATE VIEW `users` AS SELECT 1"
		}, dr + ".deployment.operations[0].prev: \"CREATE VIEW `users` AS SELECT 1\" is not a CREATE TABLE statement"},
		{"an operation's table of another name", func(d refusalDoc) {
			opOf(d)["create"] = "CREATE TABLE `other` (id bigint NOT NULL, PRIMARY KEY (id))"
		}, dr + `.deployment.operations[0].create: the CREATE TABLE statement is of table "other", not "users"`},
		{"an alter without the table before it", func(d refusalDoc) {
			delete(opOf(d), "prev")
		}, dr + ".deployment.operations[0]: an alter has the table before and after it"},
		{"a create with the table before it", func(d refusalDoc) {
			opOf(d)["name"] = "create"
		}, dr + ".deployment.operations[0]: a create has the table after it and none before"},
		{"a deploy request numbered 0", func(d refusalDoc) { d.dr()["number"] = 0 }, dr + ": deploy request #0: number missing or twice"},
		{"a deploy request numbered after the last", func(d refusalDoc) { d.dr()["number"] = 5 }, dr + ".number: 5 is after the database's last_deploy_request 1"},
		{"a deployment's generation past the counters", func(d refusalDoc) { dep(d)["gen"] = 1 << 62 }, dr + ".deployment.gen: must be from 0 to "},
		{"a deploy request of no head", func(d refusalDoc) { d.dr()["head"] = "" }, dr + ": deploy request #1: a branch is missing"},
		{"a deploy request's creator token not in the snapshot", func(d refusalDoc) { d.dr()["creator_token"] = "notoken" }, dr + `: deploy request #1: service token "notoken" is not in the snapshot`},
		{"a reviewer not in the snapshot", func(d refusalDoc) {
			d.dr()["reviews"] = []any{map[string]any{"id": "reviewxxxxxx", "created": "2026-01-01T00:00:10Z", "updated": "2026-01-01T00:00:10Z",
				"actor": "ghost", "token": "", "state": "approved", "body": "x"}}
		}, dr + `: deploy request #1: reviewer "ghost" is not in the snapshot`},
		{"a reviewer's token not in the snapshot", func(d refusalDoc) {
			d.dr()["reviews"] = []any{map[string]any{"id": "reviewxxxxxx", "created": "2026-01-01T00:00:10Z", "updated": "2026-01-01T00:00:10Z",
				"actor": d.m["admin"].(map[string]any)["user"], "token": "notoken", "state": "approved", "body": "x"}}
		}, dr + `: deploy request #1: reviewer's token "notoken" is not in the snapshot`},
		{"a queued deploy request that is none", func(d refusalDoc) { d.db("app")["deploy_queue"] = []any{1, 7} }, p.app + ".deploy_queue[1]: no deploy request #7"},
		{"a drop with a table after it", func(d refusalDoc) {
			opOf(d)["name"] = "drop"
		}, dr + ".deployment.operations[0]: a drop has the table before it and none after"},
		{"an operation's statement that is not its table", func(d refusalDoc) {
			opOf(d)["ddl"] = "DROP TABLE `users`"
		}, dr + ".deployment.operations[0].ddl: \"DROP TABLE `users`\" is not the operation's statement"},
		{"a table replaced that is not a CREATE TABLE", func(d refusalDoc) {
			dep(d)["before"] = []any{map[string]any{"keyspace": "app", "table": "users", "create": "users"}}
		}, dr + `.deployment.before[0].create: "users" is not a CREATE TABLE statement`},
		{"a deployment that holds the queue, out of it", func(d refusalDoc) {
			d.db("app")["deploy_queue"] = nil
		}, dr + ".deployment.state: in_progress, which holds a place in the deploy queue"},
		{"a deployment that holds no place in the queue, in it", func(d refusalDoc) {
			dep(d)["state"] = "ready"
		}, p.app + ".deploy_queue[0]: deploy request #1 is in the queue, but its deployment is ready"},
	})
}

// TestRestoreAcceptsDeploymentsTheAPIReaches restores deployments the API
// reaches that the checks above must let through: a pending request closed
// (its check, of an older generation, stays on the clock and does
// nothing), a deployment queued behind another into the same branch (no
// step until the first releases the queue), a deployment in complete_error
// holding the queue, a closed request into a branch demoted since, a
// database deleted with a deployment in flight and a FailNext of it (their
// IDs, of a record the snapshot does not hold, are left out of in_flight
// and fail_next), and a FailNext of the queued deployment. Each restores,
// saves again byte for byte, and runs on: the queued deployment is
// submitted once the one before it completes, and fails as asked.
func TestRestoreAcceptsDeploymentsTheAPIReaches(t *testing.T) {
	t.Parallel()
	e := newDREnv(t, false)
	e.productionBranch("staging")
	e.branch("one", drChange...)
	e.branch("two", "CREATE TABLE `extra` (id bigint NOT NULL, PRIMARY KEY (id))")
	e.branch("three", "CREATE TABLE `more` (id bigint NOT NULL, PRIMARY KEY (id))")
	// #1 pending, closed at once; #2 and #3 deployed into main, #3 behind
	// #2; #4 into staging fails, and holds staging's queue in complete_error.
	e.open(platform.CreateDeployRequestParams{Branch: "one", IntoBranch: "staging"})
	e.mustDo("close", 1)
	e.open(platform.CreateDeployRequestParams{Branch: "one", AutoCutover: platform.Ptr(true)})
	e.open(platform.CreateDeployRequestParams{Branch: "two", AutoCutover: platform.Ptr(true)})
	four := e.open(platform.CreateDeployRequestParams{Branch: "three", IntoBranch: "staging"})
	e.srv.Advance(time.Second)
	e.mustDo("deploy", 2)
	e.mustDo("deploy", 3)
	e.mustDo("deploy", 4)
	if err := e.srv.FailNext(four.Deployment.ID); err != nil {
		t.Fatal(err)
	}
	e.srv.Advance(time.Second)
	if st := e.state(4); st != platform.DeploymentCompleteError {
		t.Fatalf("#4: %s, want complete_error", st)
	}
	// A closed request into a branch demoted since.
	e.productionBranch("old")
	e.open(platform.CreateDeployRequestParams{Branch: "two", IntoBranch: "old"})
	e.srv.Advance(time.Second)
	e.mustDo("close", 5)
	if _, err := e.c.Branches.Demote(t.Context(), &platform.DemoteBranchParams{Organization: e.org, Database: drDB, Branch: "old"}); err != nil {
		t.Fatal(err)
	}
	// A database deleted while a deployment of it is in flight, FailNext
	// set on it.
	ctx := t.Context()
	if _, err := e.c.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: e.org, Name: "gone", ClusterSize: "PS_10"}); err != nil {
		t.Fatal(err)
	}
	e.srv.Advance(5 * time.Second)
	if _, err := e.c.Branches.Create(ctx, &platform.CreateBranchParams{Organization: e.org, Database: "gone", Name: "dev", ParentBranch: "main"}); err != nil {
		t.Fatal(err)
	}
	e.srv.Advance(5 * time.Second)
	if _, err := e.c.Branches.EnableSafeMigrations(ctx, &platform.EnableSafeMigrationsParams{Organization: e.org, Database: "gone", Branch: "main"}); err != nil {
		t.Fatal(err)
	}
	gone, err := e.c.DeployRequests.Create(ctx, &platform.CreateDeployRequestParams{Organization: e.org, Database: "gone", Branch: "dev", IntoBranch: "main"})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.srv.FailNext(gone.Deployment.ID); err != nil {
		t.Fatal(err)
	}
	if err := e.c.Databases.Delete(ctx, &platform.DeleteDatabaseParams{Organization: e.org, Database: "gone"}); err != nil {
		t.Fatal(err)
	}
	// The next step of #3, queued, fails.
	if err := e.srv.FailNext(e.get(3).Deployment.ID); err != nil {
		t.Fatal(err)
	}
	if st := e.state(3); st != platform.DeploymentQueued {
		t.Fatalf("#3: %s, want queued", st)
	}
	data, err := e.srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	twin := fake.NewServer(t)
	if err := twin.Restore(data); err != nil {
		t.Fatalf("Restore: %v", err)
	}
	again, err := twin.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, again) {
		t.Error("the restored server's snapshot differs from the one it restored")
	}
	// #2 completes at the end of its revert window and releases the
	// queue: #3 goes on, and fails as FailNext asked before the snapshot.
	e.srv = twin
	e.c = twin.Client()
	e.srv.Advance(31 * time.Minute)
	if st := e.state(3); st != platform.DeploymentCompleteError {
		t.Errorf("#3 after #2 completed: %s, want complete_error", st)
	}
}

// TestRestoreRefusesFlightsTheAPIDoesNotReach checks that in_flight and
// fail_next name records of the snapshot that can be in flight, once
// each, and that Restore refuses any other ID at its path, naming it.
func TestRestoreRefusesFlightsTheAPIDoesNotReach(t *testing.T) {
	t.Parallel()
	var cases []refusalCase
	for _, list := range []string{"in_flight", "fail_next"} {
		inFlight := func(d refusalDoc) any { return d.list(d.m, "in_flight")[0] }
		cases = append(cases,
			refusalCase{list + ": an ID of no record", func(d refusalDoc) {
				d.m[list] = []any{inFlight(d), "nosuchidxxxx"}
			}, list + `[1]: ID "nosuchidxxxx" names no record of the snapshot`},
			refusalCase{list + ": a branch's ID", func(d refusalDoc) {
				d.m[list] = []any{d.branch("app", "dev")["id"]}
			}, list + `[0]: ID "` + "%s" + `" names a record that is never in flight`},
			refusalCase{list + ": a password's ID", func(d refusalDoc) {
				d.m[list] = []any{d.at(d.branch("app", "main"), "passwords", 0)["id"]}
			}, list + `[0]: ID "`},
			refusalCase{list + ": an ID twice", func(d refusalDoc) {
				d.m[list] = []any{inFlight(d), inFlight(d)}
			}, list + `[1]: ID "%s" appears twice`},
		)
	}
	base, err := refusalWorld()
	if err != nil {
		t.Fatal(err)
	}
	var dev, first string
	snapshotEdit(t, base, func(m map[string]any) {
		d := refusalDoc{m}
		dev, first = d.branch("app", "dev")["id"].(string), d.list(m, "in_flight")[0].(string)
	})
	for i := range cases {
		switch {
		case i%4 == 1:
			cases[i].want = fmt.Sprintf(cases[i].want, dev)
		case i%4 == 3:
			cases[i].want = fmt.Sprintf(cases[i].want, first)
		}
	}
	runRefusals(t, cases)
}
