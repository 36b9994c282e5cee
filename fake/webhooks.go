package fake

import (
	"math"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake/internal/ordered"
)

// webhookRec is a webhook of a database.
type webhookRec struct {
	stamps
	db      *dbRec
	url     string
	secret  string
	enabled bool
	events  []platform.WebhookEvent
	deleted bool

	// The latest delivery attempt; lastSent is zero before the first.
	lastSent        time.Time
	lastSentResult  string
	lastSentSuccess bool
	// failures counts the failed attempts since the last success; at
	// maxWebhookFailures the webhook is disabled.
	failures int
	// lastTest is when test_webhook last sent webhook.test; zero before.
	lastTest time.Time
}

// webhookStore holds a database's webhooks, in list order and by ID.
type webhookStore struct{ ordered.Store[*webhookRec] }

// The webhook rules of decisions.md.
const (
	// maxWebhooks is the number of webhooks a database can have.
	maxWebhooks = 5
	// webhookTestInterval is how often a webhook can be tested.
	webhookTestInterval = 20 * time.Second
)

// subscribed reports whether the webhook takes the event.
func (h *webhookRec) subscribed(event platform.WebhookEvent) bool {
	return slices.Contains(h.events, event)
}

func webhookRoutes() []route {
	return []route{
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/webhooks", op: "list_webhooks", handler: read(listWebhooks)},
		{pattern: "POST /v1/organizations/{organization}/databases/{database}/webhooks", op: "create_webhook", handler: withBody(createWebhook)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/webhooks/{id}", op: "get_webhook", handler: read(getWebhook)},
		{pattern: "PATCH /v1/organizations/{organization}/databases/{database}/webhooks/{id}", op: "update_webhook", handler: withBody(updateWebhook)},
		{pattern: "DELETE /v1/organizations/{organization}/databases/{database}/webhooks/{id}", op: "delete_webhook", handler: act(deleteWebhook)},
		{pattern: "POST /v1/organizations/{organization}/databases/{database}/webhooks/{id}/test", op: "test_webhook", handler: act(testWebhook)},
	}
}

func listWebhooks(c *call) (any, error) {
	return pageOf(c, c.db.x().webhooks.Index(), false, renderWebhook), nil
}

func createWebhook(c *call, p *platform.CreateWebhookParams) (any, error) {
	if p.URL == "" {
		return nil, unprocessable("url is required")
	}
	if err := checkWebhookURL(p.URL); err != nil {
		return nil, err
	}
	events, err := checkWebhookEvents(p.Events)
	if err != nil {
		return nil, err
	}
	if n := c.db.x().webhooks.Len(); n >= maxWebhooks {
		return nil, unprocessable("database %s already has %d webhooks, the most a database can have; delete one first", c.db.name, n)
	}
	h := &webhookRec{
		stamps: stamps{id: c.w.newID(), created: c.now, updated: c.now},
		db:     c.db,
		url:    p.URL,
		secret: c.w.newSecret("", 32),
		events: events,
	}
	setIf(&h.enabled, p.Enabled)
	c.db.x().webhooks.Add(h)
	return renderWebhook(h), nil
}

// checkWebhookURL accepts absolute http and https URLs.
func checkWebhookURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return unprocessable("url %q must be an absolute http or https URL", raw)
	}
	return nil
}

// checkWebhookEvents validates event names and drops repeats, keeping the
// order given. The result is never nil, so that it renders as [].
func checkWebhookEvents(events []platform.WebhookEvent) ([]platform.WebhookEvent, error) {
	known := platform.AllWebhookEvents()
	out := make([]platform.WebhookEvent, 0, len(events))
	for _, e := range events {
		if !slices.Contains(known, e) {
			return nil, unprocessable("events: %q is not a webhook event; the events are %v", e, known)
		}
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out, nil
}

// webhook finds the path's {id} among the path database's webhooks.
func (c *call) webhook() (*webhookRec, error) {
	h := c.db.x().webhooks.Get(c.r.PathValue("id"))
	if h == nil {
		return nil, c.nothingAt("id")
	}
	return h, nil
}

func getWebhook(c *call) (any, error) {
	h, err := c.webhook()
	if err != nil {
		return nil, err
	}
	return renderWebhook(h), nil
}

func updateWebhook(c *call, p *platform.UpdateWebhookParams) (any, error) {
	h, err := c.webhook()
	if err != nil {
		return nil, err
	}
	if p.URL != nil {
		if err := checkWebhookURL(*p.URL); err != nil {
			return nil, err
		}
	}
	events, err := checkWebhookEvents(p.Events)
	if err != nil {
		return nil, err
	}
	setIf(&h.url, p.URL)
	if p.Events != nil {
		h.events = events
	}
	if p.Enabled != nil {
		if *p.Enabled && !h.enabled {
			c.s.hooks.restartCount(h)
		}
		h.enabled = *p.Enabled
	}
	h.updated = c.now
	return renderWebhook(h), nil
}

func deleteWebhook(c *call) (any, error) {
	h, err := c.webhook()
	if err != nil {
		return nil, err
	}
	c.db.x().webhooks.Remove(h)
	h.deleted = true
	c.s.hooks.forget(h)
	return nil, nil
}

// testWebhook sends webhook.test, with the database as resource, to the
// webhook whether or not it is enabled or subscribed to webhook.test: the
// point is to try the receiver. It is delivered like any event: its result
// is the webhook's last_sent_*, and a failure counts towards disabling the
// webhook and is retried on the clock while the webhook is enabled (a
// disabled webhook's test is sent once, as no retry goes to a disabled
// webhook).
func testWebhook(c *call) (any, error) {
	h, err := c.webhook()
	if err != nil {
		return nil, err
	}
	if !h.lastTest.IsZero() {
		if wait := h.lastTest.Add(webhookTestInterval).Sub(c.now); wait > 0 {
			e := errf(http.StatusTooManyRequests, "rate_limited",
				"webhook %s was tested at %s; a webhook can be tested once every %s", h.id, platform.NewTimestamp(h.lastTest), webhookTestInterval)
			e.retryAfter = int(math.Ceil(wait.Seconds()))
			return nil, e
		}
	}
	ev := &eventRec{name: string(platform.EventWebhookTest), org: c.org.name, db: c.db.name, resource: c.w.renderDatabase(c.db), at: c.now}
	body, err := deliveryBody(ev)
	if err != nil {
		return nil, err
	}
	h.lastTest = c.now
	c.s.deliver(h, platform.EventWebhookTest, body)
	return nil, nil
}

// renderWebhook renders a webhook as the API shows it.
func renderWebhook(h *webhookRec) *platform.Webhook {
	return &platform.Webhook{
		ID:              h.id,
		Type:            "Webhook",
		URL:             h.url,
		Secret:          h.secret,
		Enabled:         h.enabled,
		LastSentResult:  h.lastSentResult,
		LastSentSuccess: h.lastSentSuccess,
		LastSentAt:      ptrTime(h.lastSent),
		CreatedAt:       platform.NewTimestamp(h.created),
		UpdatedAt:       platform.NewTimestamp(h.updated),
		Events:          slices.Clone(h.events),
	}
}
