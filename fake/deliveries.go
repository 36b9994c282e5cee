package fake

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"time"

	"github.com/dbplatform/platform-go"
)

// Webhook delivery: every event of the stream (see [Server.Emit]) is sent
// to each enabled webhook of its database that subscribes to it, as a
// signed POST. An attempt is a real HTTP request, made outside the server's
// lock (a receiver may call back into the fake) and in its own goroutine
// (so that [Server.Advance] never waits for a receiver). Its result is
// recorded under the lock; a failed attempt is retried on the fake's
// clock, so a test moves from one retry to the next with Advance and
// waits for each attempt's result with [Server.FlushDeliveries].
//
// Attempts in flight may finish in any order (a slow receiver answers an
// older attempt after a newer one), but a webhook's record follows the
// order they were sent (sendOrder): last_sent_* show the latest attempt
// sent whose result is in, and the failures in a row that disable a
// webhook are counted in send order too. An attempt that finishes after a
// newer one's result is in does not replace last_sent_*; it counts as a
// failure only when no newer attempt succeeded, and as a success it clears
// only the failures of attempts sent before it.

// The delivery rules of decisions.md.
const (
	// defaultWebhookTimeout is how long a receiver has to answer.
	defaultWebhookTimeout = 2 * time.Second
	// maxWebhookFailures failed attempts in a row disable a webhook.
	maxWebhookFailures = 5
)

// webhookRetryDelays are the waits before the retries of a failed delivery:
// the n-th retry is sent webhookRetryDelays[n-1] after attempt n failed.
var webhookRetryDelays = [...]time.Duration{10 * time.Second, 60 * time.Second, 300 * time.Second}

// WithWebhookTimeout sets how long a webhook receiver has to answer a
// delivery before the attempt counts as failed (2 s by default). Tests of
// slow receivers shorten it to stay fast.
func WithWebhookTimeout(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return fmt.Errorf("fake: WithWebhookTimeout: %s is not positive", d)
		}
		c.webhookTimeout = d
		return nil
	}
}

// Delivery is one attempt to deliver an event to a webhook.
type Delivery struct {
	// WebhookID is the webhook the event was sent to.
	WebhookID string
	// DeliveryID is the X-Platform-Delivery header: a UUID, the same for
	// every attempt of one delivery.
	DeliveryID string
	// Event is the event's name.
	Event platform.WebhookEvent
	// URL is where the attempt was sent.
	URL string
	// Attempt is 1 for the first attempt and 2 to 4 for the retries.
	Attempt int
	// StatusCode is the receiver's status; 0 when no answer came.
	StatusCode int
	// Error says why no answer came (a timeout, a refused connection);
	// empty when one did.
	Error string
	// Success reports a 2xx answer within the timeout. Redirects are not
	// followed: a 3xx is a failure.
	Success bool
	// At is the fake's time when the attempt was sent.
	At time.Time
	// Body is the raw body sent, which the signature signs.
	Body []byte
}

// Result is the attempt's result as a webhook's last_sent_result shows it:
// the status ("200 OK"), or the error.
func (d Delivery) Result() string {
	if d.StatusCode == 0 {
		return d.Error
	}
	return fmt.Sprintf("%d %s", d.StatusCode, http.StatusText(d.StatusCode))
}

// deliveries is a server's delivery machinery.
type deliveries struct {
	client  *http.Client
	timeout time.Duration
	// ctx ends when the server closes, which ends the attempts in flight.
	ctx    context.Context
	cancel context.CancelFunc

	// log, closed, sent and order are guarded by the server's lock.
	log    ring[*attemptRec] // the latest attempts, in the order they were sent
	closed bool
	// sent numbers the attempts in the order they are sent: the last
	// number given, from 1.
	sent uint64
	// order is, per webhook with attempts, what settling its attempts in
	// send order needs; an entry goes with its webhook (delete_webhook,
	// or settle once the webhook or its database is gone) or its world
	// (Server.install).
	order map[*webhookRec]*sendOrder

	// mu guards the count of attempts in flight. It is taken with the
	// server's lock held (when an attempt starts) or alone (when it ends),
	// never the other way round.
	mu      sync.Mutex
	pending int
	idle    chan struct{} // closed when pending drops to 0; nil while 0
}

// attemptRec is an attempt of the log; done once its result is in.
type attemptRec struct {
	Delivery
	done bool
	seq  uint64 // its place in the order attempts were sent (deliveries.sent)
}

// sendOrder is where a webhook's finished attempts stand in the order they
// were sent, by their attemptRec.seq (0: none).
type sendOrder struct {
	// recorded is the attempt last_sent_* show: the latest sent of those
	// finished.
	recorded uint64
	// success is the latest sent of the attempts that succeeded.
	success uint64
	// failed are the failed attempts sent after success, which the
	// webhook's failures count (with those before a snapshot was
	// restored, which are older than any attempt of this server).
	failed []uint64
}

// forget drops h's sendOrder, h being deleted; the caller holds the
// server's lock.
func (ds *deliveries) forget(h *webhookRec) { delete(ds.order, h) }

// restartCount starts h's count of failures in a row from zero, h being
// enabled again: the failures before no longer count. The caller holds the
// server's lock.
func (ds *deliveries) restartCount(h *webhookRec) {
	h.failures = 0
	if o := ds.order[h]; o != nil {
		o.failed = nil
	}
}

// sendOrderOf returns h's sendOrder, made on first use; the caller holds
// the server's lock.
func (ds *deliveries) sendOrderOf(h *webhookRec) *sendOrder {
	o := ds.order[h]
	if o == nil {
		if ds.order == nil {
			ds.order = map[*webhookRec]*sendOrder{}
		}
		o = &sendOrder{}
		ds.order[h] = o
	}
	return o
}

// delivery is an event on its way to one webhook.
type delivery struct {
	hook    *webhookRec
	id      string
	event   platform.WebhookEvent
	body    []byte
	attempt int
}

// init prepares the machinery; a zero timeout is the default.
func (ds *deliveries) init(timeout time.Duration) {
	if timeout <= 0 {
		timeout = defaultWebhookTimeout
	}
	ds.timeout = timeout
	ds.ctx, ds.cancel = context.WithCancel(context.Background())
	ds.client = &http.Client{
		Transport: http.DefaultTransport.(*http.Transport).Clone(),
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// begin counts an attempt in flight.
func (ds *deliveries) begin() {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	if ds.pending == 0 {
		ds.idle = make(chan struct{})
	}
	ds.pending++
}

// end counts an attempt out.
func (ds *deliveries) end() {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	ds.pending--
	if ds.pending == 0 {
		close(ds.idle)
		ds.idle = nil
	}
}

// idleChan returns a channel closed when no attempt is in flight, or nil
// when none is now.
func (ds *deliveries) idleChan() <-chan struct{} {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	if ds.pending == 0 {
		return nil
	}
	return ds.idle
}

// stopDeliveries ends the attempts in flight and waits for them; the
// server's lock must not be held. Nothing is sent afterwards.
func (s *Server) stopDeliveries() {
	s.mu.Lock()
	s.hooks.closed = true
	s.hooks.cancel()
	s.mu.Unlock()
	for ch := s.hooks.idleChan(); ch != nil; ch = s.hooks.idleChan() {
		<-ch
	}
	s.hooks.client.CloseIdleConnections()
}

// FlushDeliveries waits until no delivery attempt is in flight: every
// attempt sent so far has had its answer, or timed out, and its result is
// recorded (the webhook's last_sent_* fields, [Server.Deliveries], and on
// failure the retry scheduled on the clock). It does not move the clock:
// retries are sent when [Server.Advance] reaches them. It returns ctx's
// error if ctx ends first. A receiver's handler must not call it: it would
// wait for its own attempt.
//
// Events are sent as they happen, during Emit, Advance or a request, so a
// test flushes after the call that caused them:
//
//	srv.Advance(5 * time.Second) // a branch becomes ready: branch.ready is sent
//	if err := srv.FlushDeliveries(ctx); err != nil { ... }
//	got := srv.Deliveries()
func (s *Server) FlushDeliveries(ctx context.Context) error {
	for {
		ch := s.hooks.idleChan()
		if ch == nil {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Deliveries returns the delivery attempts whose result is in, in the
// order they were sent.
func (s *Server) Deliveries() []Delivery {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]Delivery, 0, s.hooks.log.len())
	s.hooks.log.all(func(a *attemptRec) {
		if a.done {
			d := a.Delivery
			d.Body = slices.Clone(d.Body)
			out = append(out, d)
		}
	})
	return out
}

// Emit emits an event about a database, as if it had happened: it joins
// the event stream ([Server.Events]) and goes to the database's webhooks
// that subscribe to it. It is how a test triggers the events the fake has
// no lifecycle for (branch.sleeping, branch.anomaly, cluster.storage,
// database.access_request, ...). resource is the object the event is
// about, as the API renders it (a *platform.Branch, ...); nil sends the
// database. The event must be one of [platform.AllWebhookEvents].
func (s *Server) Emit(org, db string, event platform.WebhookEvent, resource any) error {
	if !slices.Contains(platform.AllWebhookEvents(), event) {
		return fmt.Errorf("fake: Emit: %q is not a webhook event", event)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.world.orgs[org]
	if o == nil {
		return fmt.Errorf("fake: Emit: no organization %q", org)
	}
	d := o.dbByName[db]
	if d == nil {
		return fmt.Errorf("fake: Emit: no database %q in %s", db, org)
	}
	if resource == nil {
		s.world.emit(string(event), d, s.world.renderDatabase(d))
		return nil
	}
	if _, err := json.Marshal(resource); err != nil {
		return fmt.Errorf("fake: Emit: encoding the resource: %w", err)
	}
	s.record(&eventRec{name: string(event), resource: resource, given: true}, d)
	return nil
}

// deliverEvent sends an event of the stream to the webhooks of its
// database that are enabled and subscribe to it; the caller holds the
// server's lock.
func (s *Server) deliverEvent(ev *eventRec, db *dbRec) {
	for _, d := range eventDeliveries(s.world, ev, db) {
		s.send(d)
	}
}

// eventDeliveries are the first attempts of an event's deliveries to
// db's webhooks, their IDs drawn from w's generator; nil when no webhook
// takes the event.
func eventDeliveries(w *world, ev *eventRec, db *dbRec) []*delivery {
	name := platform.WebhookEvent(ev.name)
	more := db.more.peek() // every event passes here: make no records
	if more == nil {
		return nil
	}
	var to []*webhookRec
	for _, h := range more.webhooks.All() {
		if h.enabled && h.subscribed(name) {
			to = append(to, h)
		}
	}
	if len(to) == 0 {
		return nil
	}
	body, err := deliveryBody(ev)
	if err != nil {
		return nil // Emit checks resources; the fake's own always encode
	}
	out := make([]*delivery, len(to))
	for i, h := range to {
		out[i] = newDelivery(w, h, name, body)
	}
	return out
}

// deliveryBody is the body of an event's deliveries.
func deliveryBody(ev *eventRec) ([]byte, error) {
	res, err := ev.resourceJSON()
	if err != nil {
		return nil, err
	}
	return json.Marshal(platform.WebhookDelivery{
		Timestamp:    ev.at.Unix(),
		Event:        platform.WebhookEvent(ev.name),
		Organization: ev.org,
		Database:     ev.db,
		Resource:     res,
	})
}

// deliver starts a delivery of body to a webhook; the caller holds the
// server's lock.
func (s *Server) deliver(h *webhookRec, event platform.WebhookEvent, body []byte) {
	s.send(newDelivery(s.world, h, event, body))
}

// newDelivery is the first attempt of a delivery of body to a webhook,
// its ID drawn from w's generator.
func newDelivery(w *world, h *webhookRec, event platform.WebhookEvent, body []byte) *delivery {
	return &delivery{hook: h, id: w.newUUID(), event: event, body: body, attempt: 1}
}

// send makes one attempt of a delivery in a goroutine; the caller holds
// the server's lock.
func (s *Server) send(d *delivery) {
	if s.hooks.closed {
		return
	}
	s.hooks.sent++
	rec := &attemptRec{Delivery: Delivery{
		WebhookID:  d.hook.id,
		DeliveryID: d.id,
		Event:      d.event,
		URL:        d.hook.url,
		Attempt:    d.attempt,
		At:         s.world.clock.Now(),
		Body:       d.body,
	}, seq: s.hooks.sent}
	s.hooks.log.add(rec)
	sig := platform.SignWebhook(d.body, d.hook.secret)
	target := rec.URL
	s.hooks.begin()
	go func() {
		defer s.hooks.end() // after the lock is released
		status, err := s.hooks.post(target, d, sig)
		s.mu.Lock()
		defer s.mu.Unlock()
		s.settle(d, rec, status, err)
	}()
}

// post sends one attempt and returns the receiver's status.
func (ds *deliveries) post(target string, d *delivery, sig string) (int, error) {
	ctx, cancel := context.WithTimeout(ds.ctx, ds.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(d.body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "platform-fake-webhooks")
	req.Header.Set(platform.WebhookEventHeader, string(d.event))
	req.Header.Set(platform.WebhookDeliveryHeader, d.id)
	req.Header.Set(platform.WebhookSignatureHeader, sig)
	resp, err := ds.client.Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
	return resp.StatusCode, nil
}

// settle records an attempt's result on its webhook, in send order (see
// sendOrder), and, when it failed, disables the webhook after
// maxWebhookFailures failures in a row or schedules the next retry; the
// caller holds the server's lock.
func (s *Server) settle(d *delivery, rec *attemptRec, status int, err error) {
	rec.done = true
	rec.StatusCode = status
	if err != nil {
		rec.Error = s.hooks.describe(err)
	}
	rec.Success = err == nil && status >= 200 && status < 300
	h := d.hook
	if s.hooks.closed || h.deleted || h.db.deleted {
		s.hooks.forget(h)
		return
	}
	o := s.hooks.sendOrderOf(h)
	if rec.seq > o.recorded { // else a newer attempt's result is in
		o.recorded = rec.seq
		h.lastSent, h.lastSentResult, h.lastSentSuccess = rec.At, rec.Result(), rec.Success
	}
	if rec.Success {
		if rec.seq > o.success {
			o.success = rec.seq
			o.failed = slices.DeleteFunc(o.failed, func(seq uint64) bool { return seq < rec.seq })
			h.failures = len(o.failed)
		}
		return
	}
	if rec.seq > o.success { // else a newer attempt succeeded
		o.failed = append(o.failed, rec.seq)
		h.failures++
	}
	if h.failures >= maxWebhookFailures && h.enabled {
		h.enabled = false
		h.updated = s.world.clock.Now()
	}
	if d.attempt < 1 || d.attempt > len(webhookRetryDelays) || !h.enabled {
		return
	}
	next := *d
	next.attempt++
	s.world.clock.After(webhookRetryDelays[d.attempt-1], retryJob{&next})
}

// describe says why an attempt got no answer.
func (ds *deliveries) describe(err error) string {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Sprintf("timeout: no answer within %s", ds.timeout)
	}
	var uerr *url.Error
	if errors.As(err, &uerr) {
		err = uerr.Err
	}
	return err.Error()
}

// newUUID returns a version 4 UUID drawn from the world's seeded source,
// so that delivery IDs repeat from run to run.
func (w *world) newUUID() string {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], w.rng.Uint64())
	binary.BigEndian.PutUint64(b[8:], w.rng.Uint64())
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // RFC 4122 variant
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
