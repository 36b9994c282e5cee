// Package fake is an in-memory implementation of the Database Platform API
// for tests: a stateful HTTP server with the API's operations, permissions,
// pagination, errors and state machines, driven by a clock the test controls.
//
// Where the API's description is silent, the fake decides; its decisions,
// by resource group, are in docs/fake-behaviour.md at the module's root.
//
// A test starts one server per test with [NewServer]; it is cheap, safe to
// use from parallel tests, and closed when the test ends. A new server holds
// one organization ([Server.Org]), its admin user, and a service token with
// every permission, which [Server.Client] uses:
//
//	func TestProvision(t *testing.T) {
//		t.Parallel()
//		srv := fake.NewServer(t)
//		client := srv.Client() // a *platform.Client with the admin token
//		ctx := t.Context()
//		_, err := client.Databases.Create(ctx, &platform.CreateDatabaseParams{
//			Organization: srv.Org(), Name: "app-db", ClusterSize: "PS_10",
//		})
//		if err != nil {
//			t.Fatal(err)
//		}
//		srv.Advance(5 * time.Second) // the database becomes ready; nothing sleeps
//		db, err := client.Databases.Get(ctx, &platform.GetDatabaseParams{Organization: srv.Org(), Database: "app-db"})
//		if err != nil || !db.Ready {
//			t.Fatalf("after 5s: %v, %v", db, err)
//		}
//	}
//
// # The clock
//
// The clock is virtual: nothing happens until [Server.Advance] moves it;
// then every transition that falls due runs, in time order. The waits of
// the fake's clients ([Server.Client], [Server.ClientFor]: waiters, retry
// backoff) advance it instead of sleeping. [WithTimings] sets how long each
// lifecycle's steps take, [Server.FailNext] makes a resource's next
// transition fail, and [WithRealTime] follows the wall clock instead, as the
// standalone binary does.
//
// # Seeding, faults and logs
//
// A test seeds the server from Go: [Server.CreateServiceToken] makes a
// token with exactly the permissions it gives, [Server.PushSchema] changes
// a branch's schema as the live service does over SQL,
// [Server.RecordQueries] records the traffic the views report, and
// [Server.Emit] raises the events only production raises. It injects
// faults ([Server.InjectFault]) and asserts on three bounded logs:
// [Server.Requests] (each refusal with its reason in words),
// [Server.Events] and [Server.Deliveries]. The same Go API is served over
// HTTP below [ControlPrefix], behind the admin token, for clients in other
// languages; [New] starts a server outside tests, and cmd/platform-fake
// runs one as a standalone binary.
//
// # Webhooks
//
// A webhook created through the API ([platform.WebhooksService.Create]),
// enabled, with the address of a receiver the test starts (an httptest
// server) receives the events of its database it subscribes to, as signed
// HTTP POSTs. The events are
// sent as they happen: as transitions run on the clock ([Server.Advance]),
// as requests change things, and on [Server.Emit]; each delivery runs on
// its own goroutine, and a failed one is retried on the clock.
// [Server.FlushDeliveries] waits until every delivery sent so far has had
// its answer, and [Server.Deliveries] lists them. The receiver reads each
// with [platform.ParseWebhook], which checks its signature against the
// webhook's secret ([platform.VerifyWebhook]); the example of
// platform.ParseWebhook receives a database's events this way.
//
// # Failing calls
//
// [Server.InjectFault] fails calls: requests for an operation, named as
// in the API's operation table, answer an error instead of being served,
// as many times as the [Fault] says, and the rule counts how often it
// answered:
//
//	rule, err := srv.InjectFault("get_database", fake.Fault{Status: 503, Times: 1})
//	// The next get_database answers 503; the client's retry gets the database.
//	// rule.Fired() is 1.
//
// [Server.FailNext] fails a resource's next state change instead: the
// request that started it succeeds, and the next transition the clock runs
// for that resource ends failed (a backup failed, a deployment in error),
// which a waiter on it reports as a [*platform.StateError].
//
// # Snapshots
//
// [Server.Snapshot] saves the whole state as versioned JSON, which
// [Server.Restore] loads into this server or another, and [Server.Reset]
// returns a server to its start. A restored server behaves exactly as the
// one snapshotted; logs and test settings are left out (what a snapshot
// holds is in docs/fake-behaviour.md).
package fake
