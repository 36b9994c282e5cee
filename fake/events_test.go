package fake_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// TestEventLogLimit checks that the event log keeps the latest events, up
// to WithEventLogLimit, oldest first, and that webhooks still get every
// event.
func TestEventLogLimit(t *testing.T) {
	t.Parallel()
	srv, _ := newWebhookServer(t, fake.WithEventLogLimit(3))
	recv := newWebhookReceiver(t, webhookAnswer(http.StatusOK))
	webhookCreate(t, srv, recv.url(), true, platform.EventBranchSleeping)
	before := srv.EventNames() // app becoming ready, within the limit
	for i := range 5 {
		branch := &platform.Branch{Name: fmt.Sprintf("b%d", i)}
		if err := srv.Emit(srv.Org(), webhookDB, platform.EventBranchSleeping, branch); err != nil {
			t.Fatal(err)
		}
	}
	webhookFlush(t, srv)
	var got []string
	for _, e := range srv.Events() {
		got = append(got, e.Resource.(*platform.Branch).Name)
	}
	if diff := cmp.Diff([]string{"b2", "b3", "b4"}, got); diff != "" {
		t.Errorf("the log after %v and five events keeps (-want +got):\n%s", before, diff)
	}
	if names := srv.EventNames(); len(names) != 3 {
		t.Errorf("EventNames %v, want the three of Events", names)
	}
	if n := len(recv.got()); n != 5 {
		t.Errorf("the webhook got %d deliveries, want all 5", n)
	}
}

// TestEventKeepsTheResourceAsItWas checks that an event's resource is the
// object as the API rendered it when the event happened, however the
// record changes afterwards, and that each read returns its own copy.
func TestEventKeepsTheResourceAsItWas(t *testing.T) {
	t.Parallel()
	e := newBranchEnv(t, "app-db")
	e.create("dev", false)
	e.srv.Advance(5 * time.Second)
	ready := e.get("dev")
	if _, err := e.c.Branches.Update(t.Context(), &platform.UpdateBranchParams{
		Organization: e.org, Database: e.db, Branch: "dev", DeletionProtected: platform.Ptr(true),
	}); err != nil {
		t.Fatal(err)
	}
	e.srv.Advance(time.Minute)
	last := func() *platform.Branch {
		events := e.srv.Events()
		ev := events[len(events)-1]
		if ev.Name != "branch.ready" {
			t.Fatalf("last event %s, want branch.ready", ev.Name)
		}
		return ev.Resource.(*platform.Branch)
	}
	first := last()
	if diff := cmp.Diff(ready, first); diff != "" {
		t.Errorf("branch.ready's resource after the branch changed (-when ready +event):\n%s", diff)
	}
	first.Name = "changed by the reader"
	if diff := cmp.Diff(ready, last()); diff != "" {
		t.Errorf("a second read after the first was changed (-when ready +event):\n%s", diff)
	}
}

// TestDeployRequestEventsKeepTheirState checks that each event of a deploy
// request that runs to the end keeps the deployment as it was when the
// event happened, although the events are encoded only when read and the
// deployment moved on since.
func TestDeployRequestEventsKeepTheirState(t *testing.T) {
	t.Parallel()
	e := newDREnv(t, false)
	e.branch("dev", drChange...)
	dr := e.open(platform.CreateDeployRequestParams{Branch: "dev", AutoCutover: platform.Ptr(false)})
	e.srv.Advance(time.Second)
	e.mustDo("deploy", dr.Number)
	e.srv.Advance(time.Minute)
	e.mustDo("apply-deploy", dr.Number)
	e.srv.Advance(time.Second)
	e.mustDo("skip-revert", dr.Number)
	var got []string
	for _, ev := range e.srv.Events() {
		if r, ok := ev.Resource.(*platform.DeployRequest); ok {
			got = append(got, ev.Name+": "+string(r.Deployment.State))
		}
	}
	want := []string{
		"deploy_request.opened: pending",
		"deploy_request.queued: queued",
		"deploy_request.in_progress: in_progress",
		"deploy_request.pending_cutover: pending_cutover",
		"deploy_request.schema_applied: complete_pending_revert",
		"deploy_request.closed: complete",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the deploy request's events (-want +got):\n%s", diff)
	}
}
