package platform

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"strings"
	"time"
)

// WebhookEvent is the name of an event a webhook delivers.
type WebhookEvent string

// The webhook events.
const (
	EventBranchReady                 WebhookEvent = "branch.ready"
	EventBranchAnomaly               WebhookEvent = "branch.anomaly"
	EventBranchOutOfMemory           WebhookEvent = "branch.out_of_memory"
	EventBranchPrimaryPromoted       WebhookEvent = "branch.primary_promoted"
	EventBranchSchemaRecommendation  WebhookEvent = "branch.schema_recommendation"
	EventBranchSleeping              WebhookEvent = "branch.sleeping"
	EventBranchStartMaintenance      WebhookEvent = "branch.start_maintenance"
	EventClusterStorage              WebhookEvent = "cluster.storage"
	EventDatabaseAccessRequest       WebhookEvent = "database.access_request"
	EventDeployRequestClosed         WebhookEvent = "deploy_request.closed"
	EventDeployRequestErrored        WebhookEvent = "deploy_request.errored"
	EventDeployRequestInProgress     WebhookEvent = "deploy_request.in_progress"
	EventDeployRequestOpened         WebhookEvent = "deploy_request.opened"
	EventDeployRequestPendingCutover WebhookEvent = "deploy_request.pending_cutover"
	EventDeployRequestQueued         WebhookEvent = "deploy_request.queued"
	EventDeployRequestReverted       WebhookEvent = "deploy_request.reverted"
	EventDeployRequestSchemaApplied  WebhookEvent = "deploy_request.schema_applied"
	EventKeyspaceStorage             WebhookEvent = "keyspace.storage"
	EventWebhookTest                 WebhookEvent = "webhook.test"
)

// AllWebhookEvents returns every event a webhook can subscribe to, in the
// API's order.
func AllWebhookEvents() []WebhookEvent {
	return []WebhookEvent{
		EventBranchReady, EventBranchAnomaly, EventBranchOutOfMemory, EventBranchPrimaryPromoted,
		EventBranchSchemaRecommendation, EventBranchSleeping, EventBranchStartMaintenance,
		EventClusterStorage, EventDatabaseAccessRequest,
		EventDeployRequestClosed, EventDeployRequestErrored, EventDeployRequestInProgress,
		EventDeployRequestOpened, EventDeployRequestPendingCutover, EventDeployRequestQueued,
		EventDeployRequestReverted, EventDeployRequestSchemaApplied,
		EventKeyspaceStorage, EventWebhookTest,
	}
}

// Webhook sends a database's events to a URL, signed with its secret.
type Webhook struct {
	ID   string `json:"id"`
	Type string `json:"type"`
	// URL is where the events are sent.
	URL string `json:"url"`
	// Secret is the key of the deliveries' signatures; see [VerifyWebhook].
	Secret string `json:"secret"`
	// Enabled webhooks receive their events. A webhook whose deliveries
	// fail five times in a row is disabled.
	Enabled bool `json:"enabled"`
	// LastSentResult describes the latest delivery attempt ("200 OK");
	// empty before the first.
	LastSentResult string `json:"last_sent_result"`
	// LastSentSuccess reports whether the latest delivery attempt succeeded.
	LastSentSuccess bool `json:"last_sent_success"`
	// LastSentAt is the time of the latest delivery attempt; nil before
	// the first.
	LastSentAt *Timestamp `json:"last_sent_at"`
	CreatedAt  Timestamp  `json:"created_at"`
	UpdatedAt  Timestamp  `json:"updated_at"`
	// Events are the events the webhook subscribes to.
	Events []WebhookEvent `json:"events"`
}

// WebhooksService manages the webhooks of databases. The receiving side of
// a webhook is [ParseWebhook].
type WebhooksService service

// webhooksPath is the collection path of a database's webhooks.
func webhooksPath(org, db string) string {
	return pathf("v1/organizations/%s/databases/%s/webhooks", org, db)
}

// ListWebhooksParams selects a page of a database's webhooks.
type ListWebhooksParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	ListParams
}

// List returns a page of a database's webhooks.
//
// API: GET /v1/organizations/{organization}/databases/{database}/webhooks
func (s *WebhooksService) List(ctx context.Context, p *ListWebhooksParams) (*Page[Webhook], error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database); err != nil {
		return nil, err
	}
	return listPage[Webhook](ctx, s.client, webhooksPath(p.Organization, p.Database), p)
}

// All ranges over every webhook of a database.
func (s *WebhooksService) All(ctx context.Context, p *ListWebhooksParams) iter.Seq2[*Webhook, error] {
	return allOf(ctx, p, s.List)
}

// CreateWebhookParams describes a new webhook.
type CreateWebhookParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	// URL is where events are sent: an absolute http or https URL.
	URL string `json:"url"`
	// Enabled turns deliveries on; a new webhook is disabled when nil.
	Enabled *bool `json:"enabled,omitempty"`
	// Events are the events to subscribe to.
	Events []WebhookEvent `json:"events,omitempty"`
}

// Create creates a webhook, with a new secret. A database has at most five
// webhooks; a sixth is refused with [ErrUnprocessable].
//
// API: POST /v1/organizations/{organization}/databases/{database}/webhooks
func (s *WebhooksService) Create(ctx context.Context, p *CreateWebhookParams) (*Webhook, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database); err != nil {
		return nil, err
	}
	w := new(Webhook)
	return orNil(w, s.client.post(ctx, webhooksPath(p.Organization, p.Database), p, w))
}

// GetWebhookParams names a webhook.
type GetWebhookParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	ID           string `json:"-" url:"-"`
}

func (p *GetWebhookParams) check() error {
	return required("organization", p.Organization, "database", p.Database, "id", p.ID)
}

func (p *GetWebhookParams) path(suffix string) string {
	return webhooksPath(p.Organization, p.Database) + pathf("/%s", p.ID) + suffix
}

// Get returns a webhook.
//
// API: GET /v1/organizations/{organization}/databases/{database}/webhooks/{id}
func (s *WebhooksService) Get(ctx context.Context, p *GetWebhookParams) (*Webhook, error) {
	return callOn[Webhook](ctx, s.client, "GET", p, "", nil, nil)
}

// UpdateWebhookParams changes a webhook; nil and empty fields are left as
// they are.
type UpdateWebhookParams struct {
	Organization string  `json:"-" url:"-"`
	Database     string  `json:"-" url:"-"`
	ID           string  `json:"-" url:"-"`
	URL          *string `json:"url,omitempty"`
	Enabled      *bool   `json:"enabled,omitempty"`
	// Events, when not empty, replace the subscribed events.
	Events []WebhookEvent `json:"events,omitempty"`
}

// Update changes a webhook's URL, its events, or whether it is enabled.
// Enabling a webhook clears its count of failed deliveries.
//
// API: PATCH /v1/organizations/{organization}/databases/{database}/webhooks/{id}
func (s *WebhooksService) Update(ctx context.Context, p *UpdateWebhookParams) (*Webhook, error) {
	p = orZero(p)
	return callOn[Webhook](ctx, s.client, "PATCH", &GetWebhookParams{p.Organization, p.Database, p.ID}, "", nil, p)
}

// DeleteWebhookParams names the webhook to delete.
type DeleteWebhookParams = GetWebhookParams

// Delete deletes a webhook; it receives nothing more.
//
// API: DELETE /v1/organizations/{organization}/databases/{database}/webhooks/{id}
func (s *WebhooksService) Delete(ctx context.Context, p *DeleteWebhookParams) error {
	return doOn(ctx, s.client, "DELETE", p, "", nil, nil)
}

// TestWebhookParams names the webhook to test.
type TestWebhookParams = GetWebhookParams

// Test sends an [EventWebhookTest] event, whose resource is the database, to
// the webhook. A webhook can be tested once every 20 seconds; a sooner test
// is answered 429 with a Retry-After, which the client's [RetryPolicy]
// waits out before sending the test again. A client built with
// [WithoutRetries], or whose MaxRetryAfter is shorter than the wait, gets
// an error matching [ErrRateLimited] with [Error.RetryAfter] set instead.
//
// API: POST /v1/organizations/{organization}/databases/{database}/webhooks/{id}/test
func (s *WebhooksService) Test(ctx context.Context, p *TestWebhookParams) error {
	return doOn(ctx, s.client, "POST", p, "/test", nil, nil)
}

// The headers of a webhook delivery.
const (
	// WebhookEventHeader names the event.
	WebhookEventHeader = "X-Platform-Event"
	// WebhookDeliveryHeader is the delivery's ID, a UUID. Retries of a
	// delivery carry the same ID, so a receiver can skip repeats.
	WebhookDeliveryHeader = "X-Platform-Delivery"
	// WebhookSignatureHeader is the hex HMAC-SHA256 of the raw body keyed
	// by the webhook's secret.
	WebhookSignatureHeader = "X-Platform-Signature"
)

// MaxWebhookBody is the largest delivery body [ParseWebhook] reads.
const MaxWebhookBody = 1 << 20

// ErrWebhookSignature is the error of [VerifyWebhook] and [ParseWebhook]
// when a delivery's signature is missing or does not match its body.
var ErrWebhookSignature = errors.New("platform: invalid webhook signature")

// SignWebhook returns the signature of a delivery body: the hex HMAC-SHA256
// of body keyed by secret, as the [WebhookSignatureHeader] carries it. Tests
// of a receiver use it to sign the deliveries they make up.
func SignWebhook(body []byte, secret string) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return hex.EncodeToString(mac.Sum(nil))
}

// VerifyWebhook checks that signatureHeader, the [WebhookSignatureHeader]
// of a delivery, signs body with the webhook's secret. It compares in
// constant time, and returns an error matching [ErrWebhookSignature] when
// the signature is missing, malformed or wrong, or an [*ArgError] when
// secret is empty.
func VerifyWebhook(body []byte, signatureHeader string, secret string) error {
	if secret == "" {
		return &ArgError{Arg: "secret", Reason: "is empty; pass the webhook's secret"}
	}
	sig := strings.TrimSpace(signatureHeader)
	if sig == "" {
		return fmt.Errorf("%w: no %s header", ErrWebhookSignature, WebhookSignatureHeader)
	}
	got, err := hex.DecodeString(sig)
	if err != nil {
		return fmt.Errorf("%w: %s is not hexadecimal", ErrWebhookSignature, WebhookSignatureHeader)
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	if !hmac.Equal(got, mac.Sum(nil)) {
		return fmt.Errorf("%w: the signature does not match the body", ErrWebhookSignature)
	}
	return nil
}

// WebhookDelivery is an event as a webhook delivers it.
type WebhookDelivery struct {
	// Timestamp is when the event happened, in Unix seconds; see Time.
	Timestamp int64 `json:"timestamp"`
	// Event names the event.
	Event WebhookEvent `json:"event"`
	// Organization and Database name where it happened.
	Organization string `json:"organization"`
	Database     string `json:"database"`
	// Resource is the object the event is about, as the API renders it: a
	// branch for branch events, a deploy request for deploy request
	// events, the database for webhook.test. Decode it with
	// DecodeResource or the typed methods.
	Resource json.RawMessage `json:"resource"`
	// DeliveryID is the [WebhookDeliveryHeader]; it is not part of the body.
	DeliveryID string `json:"-"`
}

// Time returns Timestamp as a time.
func (d *WebhookDelivery) Time() time.Time { return time.Unix(d.Timestamp, 0).UTC() }

// DecodeResource decodes the resource into v.
func (d *WebhookDelivery) DecodeResource(v any) error {
	if len(d.Resource) == 0 {
		return fmt.Errorf("platform: webhook %s delivery has no resource", d.Event)
	}
	if err := json.Unmarshal(d.Resource, v); err != nil {
		return fmt.Errorf("platform: decoding the resource of a %s delivery: %w", d.Event, err)
	}
	return nil
}

// BranchResource decodes the resource of a branch event.
func (d *WebhookDelivery) BranchResource() (*Branch, error) {
	return decodeResource[Branch](d, "Branch")
}

// DeployRequestResource decodes the resource of a deploy request event.
func (d *WebhookDelivery) DeployRequestResource() (*DeployRequest, error) {
	return decodeResource[DeployRequest](d, "DeployRequest")
}

// DatabaseResource decodes the resource of a database event, and of
// webhook.test.
func (d *WebhookDelivery) DatabaseResource() (*Database, error) {
	return decodeResource[Database](d, "Database")
}

// KeyspaceResource decodes the resource of a keyspace event.
func (d *WebhookDelivery) KeyspaceResource() (*Keyspace, error) {
	return decodeResource[Keyspace](d, "Keyspace")
}

// resourceTypes are the types of the resources the typed methods decode,
// as their "type" field names them.
var resourceTypes = map[string]bool{"Branch": true, "DeployRequest": true, "Database": true, "Keyspace": true}

// decodeResource decodes the resource of d as a T, whose "type" is want: a
// resource whose "type" names another of resourceTypes (a database sent
// with a branch event) is an error rather than a T decoded from the wrong
// fields.
func decodeResource[T any](d *WebhookDelivery, want string) (*T, error) {
	var typed struct {
		Type string `json:"type"`
	}
	if err := d.DecodeResource(&typed); err != nil {
		return nil, err
	}
	if typed.Type != want && resourceTypes[typed.Type] {
		return nil, fmt.Errorf("platform: the resource of a %s delivery is a %s, not a %s", d.Event, typed.Type, want)
	}
	v := new(T)
	if err := d.DecodeResource(v); err != nil {
		return nil, err
	}
	return v, nil
}

// ParseWebhook reads a delivery from the request a webhook sent: it reads
// the body (at most [MaxWebhookBody] bytes; beyond, the error wraps an
// [*http.MaxBytesError]), checks its signature with [VerifyWebhook] (an
// error matching [ErrWebhookSignature] when it does not match, an
// [*ArgError] when secret is empty), and decodes it. The body is consumed.
func ParseWebhook(r *http.Request, secret string) (*WebhookDelivery, error) {
	if r.Body == nil {
		return nil, errors.New("platform: webhook request has no body")
	}
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, MaxWebhookBody))
	if err != nil {
		return nil, fmt.Errorf("platform: reading webhook body: %w", err)
	}
	if err := VerifyWebhook(body, r.Header.Get(WebhookSignatureHeader), secret); err != nil {
		return nil, err
	}
	d := new(WebhookDelivery)
	if err := json.Unmarshal(body, d); err != nil {
		return nil, fmt.Errorf("platform: decoding webhook body: %w", err)
	}
	d.DeliveryID = r.Header.Get(WebhookDeliveryHeader)
	return d, nil
}
