package fake_test

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// webhookHit is a request a webhook receiver got.
type webhookHit struct {
	path   string
	header http.Header
	body   []byte
}

// parse reads the hit as a receiver does, with platform.ParseWebhook.
func (h webhookHit) parse(secret string) (*platform.WebhookDelivery, error) {
	r := httptest.NewRequest(http.MethodPost, h.path, bytes.NewReader(h.body))
	r.Header = h.header.Clone()
	return platform.ParseWebhook(r, secret)
}

// webhookReceiver is an httptest server standing for a webhook's receiver:
// it records every request, then answers with its handler.
type webhookReceiver struct {
	srv  *httptest.Server
	mu   sync.Mutex
	hits []webhookHit
}

func newWebhookReceiver(t *testing.T, answer http.HandlerFunc) *webhookReceiver {
	t.Helper()
	recv := &webhookReceiver{}
	recv.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			t.Errorf("receiver: reading body: %v", err)
		}
		recv.mu.Lock()
		recv.hits = append(recv.hits, webhookHit{path: r.URL.Path, header: r.Header.Clone(), body: body})
		recv.mu.Unlock()
		answer(w, r)
	}))
	t.Cleanup(recv.srv.Close)
	return recv
}

// url is the receiver's address for webhooks.
func (recv *webhookReceiver) url() string { return recv.srv.URL + "/hooks" }

// got returns the requests received so far.
func (recv *webhookReceiver) got() []webhookHit {
	recv.mu.Lock()
	defer recv.mu.Unlock()
	return append([]webhookHit(nil), recv.hits...)
}

// webhookAnswer answers every delivery with status.
func webhookAnswer(status int) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(status) }
}

// webhookFlush waits for the deliveries in flight.
func webhookFlush(t *testing.T, srv *fake.Server) {
	t.Helper()
	if err := srv.FlushDeliveries(t.Context()); err != nil {
		t.Fatalf("FlushDeliveries: %v", err)
	}
}

// webhookEmit emits an event about app.
func webhookEmit(t *testing.T, srv *fake.Server, event platform.WebhookEvent) {
	t.Helper()
	if err := srv.Emit(srv.Org(), webhookDB, event, nil); err != nil {
		t.Fatal(err)
	}
}

// webhookRetrySchedule moves the clock through every retry of a delivery
// failed at the current time, flushing each attempt.
func webhookRetrySchedule(t *testing.T, srv *fake.Server) {
	t.Helper()
	for _, d := range []time.Duration{10 * time.Second, 60 * time.Second, 300 * time.Second} {
		srv.Advance(d)
		webhookFlush(t, srv)
	}
}

// uuidV4 is the form of delivery IDs.
var uuidV4 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestDeliveryBranchReady(t *testing.T) {
	t.Parallel()
	srv, c := newWebhookServer(t)
	ctx := t.Context()
	dev := &platform.GetBranchParams{Organization: srv.Org(), Database: webhookDB, Branch: "dev"}
	// The receiver calls back into the fake while it delivers: deliveries
	// are made outside the server's lock, or this would deadlock.
	var callback atomic.Pointer[platform.Branch]
	recv := newWebhookReceiver(t, func(w http.ResponseWriter, r *http.Request) {
		b, err := srv.Client().Branches.Get(r.Context(), dev)
		if err != nil {
			t.Errorf("receiver calling back: %v", err)
		}
		callback.Store(b)
		w.WriteHeader(http.StatusOK)
	})
	h := webhookCreate(t, srv, recv.url(), true, platform.EventBranchReady)
	if _, err := c.Branches.Create(ctx, &platform.CreateBranchParams{Organization: srv.Org(), Database: webhookDB, Name: "dev"}); err != nil {
		t.Fatal(err)
	}
	srv.Advance(5 * time.Second)
	readyAt := srv.Now()
	webhookFlush(t, srv)

	hits := recv.got()
	if len(hits) != 1 {
		t.Fatalf("receiver got %d requests, want 1", len(hits))
	}
	hit := hits[0]
	for name, want := range map[string]string{
		"Content-Type":                  "application/json",
		platform.WebhookEventHeader:     "branch.ready",
		platform.WebhookSignatureHeader: platform.SignWebhook(hit.body, h.Secret),
	} {
		if got := hit.header.Get(name); got != want {
			t.Errorf("header %s = %q, want %q", name, got, want)
		}
	}
	if id := hit.header.Get(platform.WebhookDeliveryHeader); !uuidV4.MatchString(id) {
		t.Errorf("delivery ID %q is not a version 4 UUID", id)
	}
	if err := platform.VerifyWebhook(hit.body, hit.header.Get(platform.WebhookSignatureHeader), h.Secret); err != nil {
		t.Errorf("VerifyWebhook with the webhook's secret: %v", err)
	}
	if err := platform.VerifyWebhook(hit.body, hit.header.Get(platform.WebhookSignatureHeader), "another-secret"); !errors.Is(err, platform.ErrWebhookSignature) {
		t.Errorf("VerifyWebhook with another secret: %v, want ErrWebhookSignature", err)
	}

	d, err := hit.parse(h.Secret)
	if err != nil {
		t.Fatalf("ParseWebhook: %v", err)
	}
	if d.Event != platform.EventBranchReady || d.Organization != srv.Org() || d.Database != webhookDB ||
		d.Timestamp != readyAt.Unix() || d.DeliveryID != hit.header.Get(platform.WebhookDeliveryHeader) {
		t.Errorf("envelope = %+v, want branch.ready of %s/%s at %d", d, srv.Org(), webhookDB, readyAt.Unix())
	}
	got, err := d.BranchResource()
	if err != nil {
		t.Fatal(err)
	}
	want, err := c.Branches.Get(ctx, dev)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("resource (-branch +delivered):\n%s", diff)
	}
	if b := callback.Load(); b == nil || !b.Ready {
		t.Errorf("the receiver's callback saw %+v, want the ready branch", b)
	}

	wantDeliveries := []fake.Delivery{{
		WebhookID: h.ID, DeliveryID: d.DeliveryID, Event: platform.EventBranchReady, URL: recv.url(),
		Attempt: 1, StatusCode: http.StatusOK, Success: true, At: readyAt, Body: hit.body,
	}}
	if diff := cmp.Diff(wantDeliveries, srv.Deliveries()); diff != "" {
		t.Errorf("Deliveries (-want +got):\n%s", diff)
	}
	after := webhookGet(t, srv, h.ID)
	if after.LastSentAt == nil || !after.LastSentAt.Equal(readyAt) || after.LastSentResult != "200 OK" || !after.LastSentSuccess {
		t.Errorf("last sent: at %v, result %q, success %v; want %s, 200 OK, true", after.LastSentAt, after.LastSentResult, after.LastSentSuccess, readyAt)
	}
}

func TestDeliveryDeployRequestOpened(t *testing.T) {
	t.Parallel()
	e := newDREnv(t, false)
	recv := newWebhookReceiver(t, webhookAnswer(http.StatusAccepted))
	h, err := e.c.Webhooks.Create(t.Context(), &platform.CreateWebhookParams{
		Organization: e.org, Database: drDB, URL: recv.url(), Enabled: platform.Ptr(true),
		Events: []platform.WebhookEvent{platform.EventDeployRequestOpened},
	})
	if err != nil {
		t.Fatal(err)
	}
	e.branch("dev", drChange...)
	dr := e.open(platform.CreateDeployRequestParams{Branch: "dev"})
	webhookFlush(t, e.srv)
	// The deploy request moves on; its later states are not subscribed to.
	e.srv.Advance(time.Minute)
	webhookFlush(t, e.srv)

	hits := recv.got()
	if len(hits) != 1 {
		t.Fatalf("receiver got %d requests, want 1 (deploy_request.opened)", len(hits))
	}
	d, err := hits[0].parse(h.Secret)
	if err != nil {
		t.Fatal(err)
	}
	got, err := d.DeployRequestResource()
	if err != nil {
		t.Fatal(err)
	}
	if d.Event != platform.EventDeployRequestOpened || got.ID != dr.ID || got.Number != dr.Number || got.Branch != "dev" {
		t.Errorf("delivered %s about deploy request %s #%d of %s; want deploy_request.opened about %s #%d of dev",
			d.Event, got.ID, got.Number, got.Branch, dr.ID, dr.Number)
	}
	if ds := e.srv.Deliveries(); len(ds) != 1 || !ds[0].Success || ds[0].StatusCode != http.StatusAccepted {
		t.Errorf("Deliveries = %+v, want one success with 202", ds)
	}
}

func TestDeliveryRetriesOnTheClock(t *testing.T) {
	t.Parallel()
	srv, _ := newWebhookServer(t)
	recv := newWebhookReceiver(t, webhookAnswer(http.StatusInternalServerError))
	h := webhookCreate(t, srv, recv.url(), true, platform.EventBranchSleeping)
	t0 := srv.Now()
	webhookEmit(t, srv, platform.EventBranchSleeping)
	webhookFlush(t, srv)
	for _, step := range []struct {
		advance  time.Duration
		attempts int
	}{
		{0, 1},
		{9 * time.Second, 1}, {time.Second, 2}, // 10 s after the first
		{59 * time.Second, 2}, {time.Second, 3}, // 60 s after the second
		{299 * time.Second, 3}, {time.Second, 4}, // 300 s after the third
		{time.Hour, 4}, // no fourth retry
	} {
		srv.Advance(step.advance)
		webhookFlush(t, srv)
		if n := len(srv.Deliveries()); n != step.attempts {
			t.Fatalf("at +%s: %d attempts, want %d", srv.Now().Sub(t0), n, step.attempts)
		}
	}
	ds := srv.Deliveries()
	var at []time.Duration
	for i, d := range ds {
		at = append(at, d.At.Sub(t0))
		if d.Attempt != i+1 || d.DeliveryID != ds[0].DeliveryID || d.StatusCode != 500 || d.Success ||
			!bytes.Equal(d.Body, ds[0].Body) || d.Result() != "500 Internal Server Error" {
			t.Errorf("attempt %d = %+v, want attempt %d of delivery %s failed with 500", i+1, d, i+1, ds[0].DeliveryID)
		}
	}
	if diff := cmp.Diff([]time.Duration{0, 10 * time.Second, 70 * time.Second, 370 * time.Second}, at); diff != "" {
		t.Errorf("attempt times after the event (-want +got):\n%s", diff)
	}
	for i, hit := range recv.got() {
		if id := hit.header.Get(platform.WebhookDeliveryHeader); id != ds[0].DeliveryID {
			t.Errorf("request %d carried delivery ID %q, want %q for every retry", i+1, id, ds[0].DeliveryID)
		}
	}
	got := webhookGet(t, srv, h.ID)
	if !got.Enabled || got.LastSentAt == nil || !got.LastSentAt.Equal(t0.Add(370*time.Second)) ||
		got.LastSentResult != "500 Internal Server Error" || got.LastSentSuccess {
		t.Errorf("after 4 failures: enabled %v, last sent %v %q %v; want still enabled, the last attempt's 500",
			got.Enabled, got.LastSentAt, got.LastSentResult, got.LastSentSuccess)
	}

	// The fifth failure in a row disables the webhook; its retries and
	// later events are not sent.
	webhookEmit(t, srv, platform.EventBranchSleeping)
	webhookFlush(t, srv)
	if got := webhookGet(t, srv, h.ID); got.Enabled {
		t.Error("still enabled after 5 failed deliveries in a row")
	}
	srv.Advance(time.Hour)
	webhookEmit(t, srv, platform.EventBranchSleeping)
	webhookFlush(t, srv)
	if n := len(srv.Deliveries()); n != 5 {
		t.Errorf("%d attempts after the webhook was disabled, want 5", n)
	}

	// Enabling it again starts a new count.
	if _, err := srv.Client().Webhooks.Update(t.Context(), &platform.UpdateWebhookParams{Organization: srv.Org(), Database: webhookDB, ID: h.ID, Enabled: platform.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	webhookEmit(t, srv, platform.EventBranchSleeping)
	webhookFlush(t, srv)
	if n := len(srv.Deliveries()); n != 6 {
		t.Errorf("%d attempts after re-enabling, want 6", n)
	}
	if got := webhookGet(t, srv, h.ID); !got.Enabled {
		t.Error("disabled by the first failure after being enabled again")
	}
}

func TestDeliverySuccessResetsFailures(t *testing.T) {
	t.Parallel()
	srv, _ := newWebhookServer(t)
	var status atomic.Int32
	status.Store(http.StatusServiceUnavailable)
	recv := newWebhookReceiver(t, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(int(status.Load())) })
	h := webhookCreate(t, srv, recv.url(), true, platform.EventBranchAnomaly)

	webhookEmit(t, srv, platform.EventBranchAnomaly) // 4 failures
	webhookFlush(t, srv)
	webhookRetrySchedule(t, srv)
	status.Store(http.StatusOK)
	webhookEmit(t, srv, platform.EventBranchAnomaly) // a success
	webhookFlush(t, srv)
	if got := webhookGet(t, srv, h.ID); got.LastSentResult != "200 OK" || !got.LastSentSuccess {
		t.Errorf("last sent %q, %v; want 200 OK, true", got.LastSentResult, got.LastSentSuccess)
	}
	status.Store(http.StatusServiceUnavailable)
	webhookEmit(t, srv, platform.EventBranchAnomaly) // 4 more failures
	webhookFlush(t, srv)
	webhookRetrySchedule(t, srv)

	if n := len(srv.Deliveries()); n != 9 {
		t.Fatalf("%d attempts, want 9", n)
	}
	if got := webhookGet(t, srv, h.ID); !got.Enabled || got.LastSentResult != "503 Service Unavailable" {
		t.Errorf("enabled %v, last result %q; want enabled (the success reset the count), 503", got.Enabled, got.LastSentResult)
	}
}

func TestDeliveryRedirectIsAFailure(t *testing.T) {
	t.Parallel()
	srv, _ := newWebhookServer(t)
	recv := newWebhookReceiver(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hooks" {
			http.Redirect(w, r, "/elsewhere", http.StatusFound)
			return
		}
		w.WriteHeader(http.StatusOK)
	})
	h := webhookCreate(t, srv, recv.url(), true, platform.EventBranchOutOfMemory)
	webhookEmit(t, srv, platform.EventBranchOutOfMemory)
	webhookFlush(t, srv)
	srv.Advance(10 * time.Second) // a failure: retried
	webhookFlush(t, srv)

	var paths []string
	for _, hit := range recv.got() {
		paths = append(paths, hit.path)
	}
	if diff := cmp.Diff([]string{"/hooks", "/hooks"}, paths); diff != "" {
		t.Errorf("receiver paths (-want +got); the redirect must not be followed:\n%s", diff)
	}
	for _, d := range srv.Deliveries() {
		if d.StatusCode != http.StatusFound || d.Success || d.Result() != "302 Found" {
			t.Errorf("attempt %d: %d %q success %v, want a failed 302 Found", d.Attempt, d.StatusCode, d.Result(), d.Success)
		}
	}
	if got := webhookGet(t, srv, h.ID); got.LastSentResult != "302 Found" || got.LastSentSuccess {
		t.Errorf("last sent %q, %v; want 302 Found, false", got.LastSentResult, got.LastSentSuccess)
	}
}

func TestDeliverySlowReceiverTimesOut(t *testing.T) {
	t.Parallel()
	srv, _ := newWebhookServer(t, fake.WithWebhookTimeout(50*time.Millisecond))
	release := make(chan struct{})
	recv := newWebhookReceiver(t, func(w http.ResponseWriter, _ *http.Request) {
		<-release
		w.WriteHeader(http.StatusOK)
	})
	t.Cleanup(func() { close(release) }) // before the receiver closes
	h := webhookCreate(t, srv, recv.url(), true, platform.EventBranchPrimaryPromoted)
	webhookEmit(t, srv, platform.EventBranchPrimaryPromoted)
	webhookFlush(t, srv)

	ds := srv.Deliveries()
	if len(ds) != 1 {
		t.Fatalf("%d attempts, want 1", len(ds))
	}
	d := ds[0]
	if d.StatusCode != 0 || d.Success || !strings.Contains(d.Error, "timeout") || !strings.Contains(d.Error, "50ms") {
		t.Errorf("attempt = status %d, error %q, success %v; want a timeout after 50ms", d.StatusCode, d.Error, d.Success)
	}
	if got := webhookGet(t, srv, h.ID); got.LastSentResult != d.Error || got.LastSentSuccess {
		t.Errorf("last sent %q, %v; want %q, false", got.LastSentResult, got.LastSentSuccess, d.Error)
	}
}

func TestDeliveryOnlyToEnabledSubscribers(t *testing.T) {
	t.Parallel()
	srv, c := newWebhookServer(t)
	recv := newWebhookReceiver(t, webhookAnswer(http.StatusOK))
	base := recv.srv.URL
	webhookCreate(t, srv, base+"/enabled", true, platform.EventClusterStorage, platform.EventKeyspaceStorage)
	webhookCreate(t, srv, base+"/disabled", false, platform.EventClusterStorage)
	webhookCreate(t, srv, base+"/unsubscribed", true, platform.EventKeyspaceStorage)
	deleted := webhookCreate(t, srv, base+"/deleted", true, platform.EventClusterStorage)
	if err := c.Webhooks.Delete(t.Context(), webhookRef(srv, deleted.ID)); err != nil {
		t.Fatal(err)
	}
	// Another database's events do not reach app's webhooks.
	mustDB(t, srv, "other")
	if err := srv.Emit(srv.Org(), "other", platform.EventClusterStorage, nil); err != nil {
		t.Fatal(err)
	}
	webhookEmit(t, srv, platform.EventClusterStorage)
	webhookFlush(t, srv)

	var paths []string
	for _, hit := range recv.got() {
		paths = append(paths, hit.path)
	}
	if diff := cmp.Diff([]string{"/enabled"}, paths); diff != "" {
		t.Errorf("receivers reached (-want +got):\n%s", diff)
	}
}

func TestDeliveryRetriesStopWhenDeleted(t *testing.T) {
	t.Parallel()
	srv, c := newWebhookServer(t)
	recv := newWebhookReceiver(t, webhookAnswer(http.StatusBadGateway))
	h := webhookCreate(t, srv, recv.url(), true, platform.EventBranchStartMaintenance)
	webhookEmit(t, srv, platform.EventBranchStartMaintenance)
	webhookFlush(t, srv)
	if err := c.Webhooks.Delete(t.Context(), webhookRef(srv, h.ID)); err != nil {
		t.Fatal(err)
	}
	srv.Advance(time.Hour)
	webhookFlush(t, srv)
	if n := len(recv.got()); n != 1 {
		t.Errorf("receiver got %d requests, want 1: a deleted webhook's retries are dropped", n)
	}
}

func TestWebhookTestDelivery(t *testing.T) {
	t.Parallel()
	srv, c := newWebhookServer(t)
	recv := newWebhookReceiver(t, webhookAnswer(http.StatusInternalServerError))
	// Disabled and subscribed to nothing: a test is sent anyway.
	h := webhookCreate(t, srv, recv.url(), false)
	if err := c.Webhooks.Test(t.Context(), webhookRef(srv, h.ID)); err != nil {
		t.Fatal(err)
	}
	webhookFlush(t, srv)
	// Enabled, it is tested again; a failed test is retried like any
	// delivery (a disabled webhook's was not).
	if _, err := c.Webhooks.Update(t.Context(), &platform.UpdateWebhookParams{Organization: srv.Org(), Database: webhookDB, ID: h.ID, Enabled: platform.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	srv.Advance(20 * time.Second)
	if err := c.Webhooks.Test(t.Context(), webhookRef(srv, h.ID)); err != nil {
		t.Fatal(err)
	}
	webhookFlush(t, srv)
	for range 3 { // each retry falls due after the attempt before it failed
		srv.Advance(time.Hour)
		webhookFlush(t, srv)
	}

	hits := recv.got()
	if len(hits) != 5 {
		t.Fatalf("receiver got %d requests, want 5 (the disabled webhook's test, the enabled one's and its three retries)", len(hits))
	}
	for i, hit := range hits {
		if d, err := hit.parse(h.Secret); err != nil || d.Event != platform.EventWebhookTest {
			t.Errorf("request %d: %v, %v; want a webhook.test delivery", i+1, d, err)
		}
	}
	d, err := hits[0].parse(h.Secret)
	if err != nil {
		t.Fatal(err)
	}
	db, err := d.DatabaseResource()
	if err != nil {
		t.Fatal(err)
	}
	want, err := c.Databases.Get(t.Context(), &platform.GetDatabaseParams{Organization: srv.Org(), Database: webhookDB})
	if err != nil {
		t.Fatal(err)
	}
	if d.Event != platform.EventWebhookTest || hits[0].header.Get(platform.WebhookEventHeader) != "webhook.test" {
		t.Errorf("event %s (header %q), want webhook.test", d.Event, hits[0].header.Get(platform.WebhookEventHeader))
	}
	if diff := cmp.Diff(want, db); diff != "" {
		t.Errorf("resource (-database +delivered):\n%s", diff)
	}
	if got := webhookGet(t, srv, h.ID); got.LastSentResult != "500 Internal Server Error" || got.LastSentSuccess {
		t.Errorf("after the tests: result %q, success %v; want the 500, false", got.LastSentResult, got.LastSentSuccess)
	}
	if slices.Contains(srv.EventNames(), "webhook.test") {
		t.Error("a webhook test joined the event stream; it goes to the tested webhook only")
	}
}

// TestDeliveryLogLimit checks that the delivery log keeps the latest
// attempts, up to WithDeliveryLogLimit, in the order they were sent.
func TestDeliveryLogLimit(t *testing.T) {
	t.Parallel()
	srv, _ := newWebhookServer(t, fake.WithDeliveryLogLimit(2))
	recv := newWebhookReceiver(t, webhookAnswer(http.StatusOK))
	webhookCreate(t, srv, recv.url(), true, platform.EventBranchSleeping, platform.EventBranchAnomaly, platform.EventBranchOutOfMemory)
	for _, ev := range []platform.WebhookEvent{platform.EventBranchSleeping, platform.EventBranchAnomaly, platform.EventBranchOutOfMemory} {
		webhookEmit(t, srv, ev)
		webhookFlush(t, srv) // one at a time, so that they are logged in this order
	}
	var got []platform.WebhookEvent
	for _, d := range srv.Deliveries() {
		got = append(got, d.Event)
	}
	if diff := cmp.Diff([]platform.WebhookEvent{platform.EventBranchAnomaly, platform.EventBranchOutOfMemory}, got); diff != "" {
		t.Errorf("the delivery log keeps (-want +got):\n%s", diff)
	}
}

func TestEmit(t *testing.T) {
	t.Parallel()
	srv, c := newWebhookServer(t)
	recv := newWebhookReceiver(t, webhookAnswer(http.StatusOK))
	h := webhookCreate(t, srv, recv.url(), true, platform.EventBranchSchemaRecommendation, platform.EventDatabaseAccessRequest)
	ctx := t.Context()
	before := len(srv.Events())

	for _, bad := range []struct {
		name         string
		org, db      string
		event        platform.WebhookEvent
		resource     any
		errorMention string
	}{
		{"unknown event", srv.Org(), webhookDB, "branch.exploded", nil, "branch.exploded"},
		{"unknown organization", "nosuchorg", webhookDB, platform.EventBranchSleeping, nil, "nosuchorg"},
		{"unknown database", srv.Org(), "nosuchdb", platform.EventBranchSleeping, nil, "nosuchdb"},
		{"resource that is not JSON", srv.Org(), webhookDB, platform.EventBranchSleeping, make(chan int), "encoding"},
	} {
		err := srv.Emit(bad.org, bad.db, bad.event, bad.resource)
		if err == nil || !strings.Contains(err.Error(), bad.errorMention) {
			t.Errorf("%s: Emit = %v, want an error mentioning %q", bad.name, err, bad.errorMention)
		}
	}
	if n := len(srv.Events()); n != before {
		t.Errorf("refused Emits added %d events", n-before)
	}

	main, err := c.Branches.Get(ctx, &platform.GetBranchParams{Organization: srv.Org(), Database: webhookDB, Branch: "main"})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Emit(srv.Org(), webhookDB, platform.EventBranchSchemaRecommendation, main); err != nil {
		t.Fatal(err)
	}
	if err := srv.Emit(srv.Org(), webhookDB, "database.access_request", nil); err != nil {
		t.Fatal(err)
	}
	webhookFlush(t, srv)

	events := srv.Events()[before:]
	if len(events) != 2 || events[0].Name != "branch.schema_recommendation" || events[0].Resource != main ||
		events[1].Name != "database.access_request" || !events[1].At.Equal(srv.Now()) {
		t.Errorf("events = %+v, want branch.schema_recommendation about main, then database.access_request now", events)
	}
	// The two deliveries run concurrently: tell them apart by event.
	byEvent := map[platform.WebhookEvent]*platform.WebhookDelivery{}
	for _, hit := range recv.got() {
		d, err := hit.parse(h.Secret)
		if err != nil {
			t.Fatal(err)
		}
		byEvent[d.Event] = d
	}
	first, second := byEvent[platform.EventBranchSchemaRecommendation], byEvent[platform.EventDatabaseAccessRequest]
	if len(byEvent) != 2 || first == nil || second == nil {
		t.Fatalf("receiver got %v, want one delivery of each emitted event", byEvent)
	}
	b, err := first.BranchResource()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(main, b); diff != "" {
		t.Errorf("emitted branch (-given +delivered):\n%s", diff)
	}
	db, err := second.DatabaseResource()
	if err != nil {
		t.Fatal(err)
	}
	if second.Event != platform.EventDatabaseAccessRequest || db.Name != webhookDB || db.Type != "Database" {
		t.Errorf("second delivery: %s about %s %q, want database.access_request about the database %s", second.Event, db.Type, db.Name, webhookDB)
	}
}

// TestDeliveryIDsFollowTheSeed checks that delivery IDs, like every ID of
// the fake, repeat from run to run with the same seed.
func TestDeliveryIDsFollowTheSeed(t *testing.T) {
	t.Parallel()
	run := func(seed uint64) []string {
		srv, _ := newWebhookServer(t, fake.WithSeed(seed))
		recv := newWebhookReceiver(t, webhookAnswer(http.StatusOK))
		webhookCreate(t, srv, recv.url(), true, platform.EventKeyspaceStorage)
		webhookEmit(t, srv, platform.EventKeyspaceStorage)
		webhookEmit(t, srv, platform.EventKeyspaceStorage)
		webhookFlush(t, srv)
		var ids []string
		for _, d := range srv.Deliveries() {
			if !uuidV4.MatchString(d.DeliveryID) {
				t.Errorf("delivery ID %q is not a version 4 UUID", d.DeliveryID)
			}
			ids = append(ids, d.DeliveryID)
		}
		return ids
	}
	a, again, other := run(7), run(7), run(8)
	if len(a) != 2 || a[0] == a[1] {
		t.Fatalf("delivery IDs %v, want two different ones", a)
	}
	if diff := cmp.Diff(a, again); diff != "" {
		t.Errorf("same seed, different delivery IDs (-first +second):\n%s", diff)
	}
	if a[0] == other[0] {
		t.Errorf("seeds 7 and 8 gave the same delivery ID %s", a[0])
	}
}

func TestDeliveryRealTime(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t, fake.WithRealTime())
	mustDB(t, srv, webhookDB) // a pending database can have webhooks
	recv := newWebhookReceiver(t, webhookAnswer(http.StatusOK))
	h := webhookCreate(t, srv, recv.url(), true, platform.EventBranchSleeping)
	if err := srv.Client().Webhooks.Test(t.Context(), webhookRef(srv, h.ID)); err != nil {
		t.Fatal(err)
	}
	webhookEmit(t, srv, platform.EventBranchSleeping)
	webhookFlush(t, srv)
	var got []string
	for _, hit := range recv.got() {
		d, err := hit.parse(h.Secret)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(d.Event))
	}
	slices.Sort(got) // the two deliveries run concurrently
	if diff := cmp.Diff([]string{"branch.sleeping", "webhook.test"}, got); diff != "" {
		t.Errorf("delivered events (-want +got):\n%s", diff)
	}
}
