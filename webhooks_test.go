package platform_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// webhookWireJSON is a webhook as the API sends it, written from the
// reference's DatabaseWebhook independently of the SDK's types.
const webhookWireJSON = `{
	"id": "wh1", "type": "Webhook", "url": "https://hooks.example.com/in", "secret": "s3cr3t",
	"enabled": true, "last_sent_result": "200 OK", "last_sent_success": true,
	"last_sent_at": "2026-01-14T10:19:25.000Z", "created_at": "2026-01-14T10:19:23.000Z",
	"updated_at": "2026-01-14T10:19:24.000Z", "events": ["branch.ready", "deploy_request.opened"]
}`

// wantWireWebhook is webhookWireJSON decoded by hand.
func wantWireWebhook(t *testing.T) *platform.Webhook {
	t.Helper()
	sent := mustTimestamp(t, "2026-01-14T10:19:25Z")
	return &platform.Webhook{
		ID: "wh1", Type: "Webhook", URL: "https://hooks.example.com/in", Secret: "s3cr3t",
		Enabled: true, LastSentResult: "200 OK", LastSentSuccess: true, LastSentAt: &sent,
		CreatedAt: mustTimestamp(t, "2026-01-14T10:19:23Z"), UpdatedAt: mustTimestamp(t, "2026-01-14T10:19:24Z"),
		Events: []platform.WebhookEvent{platform.EventBranchReady, platform.EventDeployRequestOpened},
	}
}

// TestWebhookJSONRoundTrip checks that a webhook's JSON survives a decode
// and an encode: every key kept, none added, the null last_sent_at of a
// webhook that never sent anything kept as null.
func TestWebhookJSONRoundTrip(t *testing.T) {
	t.Parallel()
	never := strings.NewReplacer(`"2026-01-14T10:19:25.000Z"`, `null`, `"200 OK"`, `""`, `"last_sent_success": true`, `"last_sent_success": false`).Replace(webhookWireJSON)
	for _, in := range []string{webhookWireJSON, never} {
		dec := json.NewDecoder(strings.NewReader(in))
		dec.DisallowUnknownFields()
		var w platform.Webhook
		if err := dec.Decode(&w); err != nil {
			t.Fatal(err)
		}
		out, err := json.Marshal(&w)
		if err != nil {
			t.Fatal(err)
		}
		checkSameJSON(t, []byte(in), out)
	}
}

func TestWebhooksWire(t *testing.T) {
	t.Parallel()
	const (
		org, db = "acme", "app db"
		base    = "/v1/organizations/acme/databases/app%20db/webhooks"
	)
	ref := &platform.GetWebhookParams{Organization: org, Database: db, ID: "w/1"}
	tests := []struct {
		name   string
		status int
		resp   string
		call   func(ctx context.Context, c *platform.Client) (*platform.Webhook, error)
		want   wantRequest
	}{
		{
			name: "create", status: 201, resp: webhookWireJSON,
			call: func(ctx context.Context, c *platform.Client) (*platform.Webhook, error) {
				return c.Webhooks.Create(ctx, &platform.CreateWebhookParams{
					Organization: org, Database: db, URL: "https://hooks.example.com/in", Enabled: platform.Ptr(true),
					Events: []platform.WebhookEvent{platform.EventBranchReady, platform.EventDeployRequestOpened},
				})
			},
			want: wantRequest{Method: "POST", Path: base, Body: `{"url":"https://hooks.example.com/in","enabled":true,"events":["branch.ready","deploy_request.opened"]}`},
		},
		{
			name: "create with only a url", status: 201, resp: webhookWireJSON,
			call: func(ctx context.Context, c *platform.Client) (*platform.Webhook, error) {
				return c.Webhooks.Create(ctx, &platform.CreateWebhookParams{Organization: org, Database: db, URL: "https://hooks.example.com/in"})
			},
			want: wantRequest{Method: "POST", Path: base, Body: `{"url":"https://hooks.example.com/in"}`},
		},
		{
			name: "create disabled", status: 201, resp: webhookWireJSON,
			call: func(ctx context.Context, c *platform.Client) (*platform.Webhook, error) {
				return c.Webhooks.Create(ctx, &platform.CreateWebhookParams{Organization: org, Database: db, URL: "https://hooks.example.com/in", Enabled: platform.Ptr(false)})
			},
			want: wantRequest{Method: "POST", Path: base, Body: `{"url":"https://hooks.example.com/in","enabled":false}`},
		},
		{
			name: "get", status: 200, resp: webhookWireJSON,
			call: func(ctx context.Context, c *platform.Client) (*platform.Webhook, error) {
				return c.Webhooks.Get(ctx, ref)
			},
			want: wantRequest{Method: "GET", Path: base + "/w%2F1"},
		},
		{
			name: "update", status: 200, resp: webhookWireJSON,
			call: func(ctx context.Context, c *platform.Client) (*platform.Webhook, error) {
				return c.Webhooks.Update(ctx, &platform.UpdateWebhookParams{
					Organization: org, Database: db, ID: "w/1", URL: platform.Ptr("http://new.example.com/"), Enabled: platform.Ptr(false),
				})
			},
			want: wantRequest{Method: "PATCH", Path: base + "/w%2F1", Body: `{"url":"http://new.example.com/","enabled":false}`},
		},
		{
			name: "update events", status: 200, resp: webhookWireJSON,
			call: func(ctx context.Context, c *platform.Client) (*platform.Webhook, error) {
				return c.Webhooks.Update(ctx, &platform.UpdateWebhookParams{
					Organization: org, Database: db, ID: "w/1", Events: []platform.WebhookEvent{platform.EventWebhookTest},
				})
			},
			want: wantRequest{Method: "PATCH", Path: base + "/w%2F1", Body: `{"events":["webhook.test"]}`},
		},
		{
			name: "delete", status: 204,
			call: func(ctx context.Context, c *platform.Client) (*platform.Webhook, error) {
				return nil, c.Webhooks.Delete(ctx, ref)
			},
			want: wantRequest{Method: "DELETE", Path: base + "/w%2F1"},
		},
		{
			name: "test", status: 204,
			call: func(ctx context.Context, c *platform.Client) (*platform.Webhook, error) {
				return nil, c.Webhooks.Test(ctx, ref)
			},
			want: wantRequest{Method: "POST", Path: base + "/w%2F1/test"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWire(t, tt.status, tt.resp)
			got, err := tt.call(t.Context(), w.client)
			if err != nil {
				t.Fatal(err)
			}
			checkRequest(t, w.only(), tt.want)
			if tt.resp == "" {
				return
			}
			if diff := cmp.Diff(wantWireWebhook(t), got); diff != "" {
				t.Errorf("decoded webhook (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWebhooksWireList(t *testing.T) {
	t.Parallel()
	w := newWire(t, 200, `{"type": "list", "current_page": 2, "per_page": 1, "next_page": null, "next_page_url": null,
		"prev_page": 1, "prev_page_url": "https://api.example.com/v1/organizations/acme/databases/app/webhooks?page=1",
		"data": [`+webhookWireJSON+`]}`)
	page, err := w.client.Webhooks.List(t.Context(), &platform.ListWebhooksParams{
		Organization: "acme", Database: "app", ListParams: platform.ListParams{Page: 2, PerPage: 1},
	})
	if err != nil {
		t.Fatal(err)
	}
	checkRequest(t, w.only(), wantRequest{Method: "GET", Path: "/v1/organizations/acme/databases/app/webhooks", RawQuery: "page=2&per_page=1"})
	if diff := cmp.Diff([]*platform.Webhook{wantWireWebhook(t)}, page.Items); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
	if page.CurrentPage != 2 || page.HasNext() || page.PrevPage == nil || *page.PrevPage != 1 {
		t.Errorf("page %d, next %v, prev %v; want page 2 of 2", page.CurrentPage, page.NextPage, page.PrevPage)
	}
}

func TestWebhooksArgErrors(t *testing.T) {
	t.Parallel()
	w := newWire(t, 200, webhookWireJSON)
	ctx, c := t.Context(), w.client
	tests := []struct {
		name, arg string
		call      func() error
	}{
		{"list without database", "database", func() error {
			_, err := c.Webhooks.List(ctx, &platform.ListWebhooksParams{Organization: "acme"})
			return err
		}},
		{"list with a bad page size", "per_page", func() error {
			_, err := c.Webhooks.List(ctx, &platform.ListWebhooksParams{Organization: "acme", Database: "app", ListParams: platform.ListParams{PerPage: 101}})
			return err
		}},
		{"create without organization", "organization", func() error {
			_, err := c.Webhooks.Create(ctx, &platform.CreateWebhookParams{Database: "app", URL: "https://x.example.com/"})
			return err
		}},
		{"get without id", "id", func() error {
			_, err := c.Webhooks.Get(ctx, &platform.GetWebhookParams{Organization: "acme", Database: "app"})
			return err
		}},
		{"nil params", "params", func() error {
			_, err := c.Webhooks.Get(ctx, nil)
			return err
		}},
		{"update without id", "id", func() error {
			_, err := c.Webhooks.Update(ctx, &platform.UpdateWebhookParams{Organization: "acme", Database: "app", Enabled: platform.Ptr(true)})
			return err
		}},
		{"delete with id ..", "id", func() error {
			return c.Webhooks.Delete(ctx, &platform.DeleteWebhookParams{Organization: "acme", Database: "app", ID: ".."})
		}},
		{"test without database", "database", func() error {
			return c.Webhooks.Test(ctx, &platform.TestWebhookParams{Organization: "acme", ID: "w1"})
		}},
	}
	for _, tt := range tests {
		var argErr *platform.ArgError
		if err := tt.call(); !errors.As(err, &argErr) || argErr.Arg != tt.arg {
			t.Errorf("%s: %v, want *ArgError for %s", tt.name, err, tt.arg)
		}
	}
	if n := len(w.requests()); n != 0 {
		t.Errorf("%d requests sent for refused arguments", n)
	}
}

func TestWebhooksTestRateLimited(t *testing.T) {
	t.Parallel()
	api := newWireFunc(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "17")
		writeBody(w, http.StatusTooManyRequests, `{"code":"rate_limited","message":"webhook w1 was tested at 2026-01-14T10:19:23.000Z"}`)
	})
	err := api.newClient(t).Webhooks.Test(t.Context(), &platform.TestWebhookParams{Organization: "acme", Database: "app", ID: "w1"})
	var e *platform.Error
	if !errors.Is(err, platform.ErrRateLimited) || !errors.As(err, &e) || e.RetryAfter != 17*time.Second {
		t.Fatalf("Test = %v, want ErrRateLimited with RetryAfter 17s", err)
	}
}

func TestAllWebhookEvents(t *testing.T) {
	t.Parallel()
	// The event names of the API, written out independently of the constants.
	want := []string{
		"branch.ready", "branch.anomaly", "branch.out_of_memory", "branch.primary_promoted",
		"branch.schema_recommendation", "branch.sleeping", "branch.start_maintenance",
		"cluster.storage", "database.access_request", "deploy_request.closed", "deploy_request.errored",
		"deploy_request.in_progress", "deploy_request.opened", "deploy_request.pending_cutover",
		"deploy_request.queued", "deploy_request.reverted", "deploy_request.schema_applied",
		"keyspace.storage", "webhook.test",
	}
	var got []string
	for _, e := range platform.AllWebhookEvents() {
		got = append(got, string(e))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("AllWebhookEvents (-want +got):\n%s", diff)
	}
	// A fresh slice each time: a caller's change does not stick.
	platform.AllWebhookEvents()[0] = "changed"
	if platform.AllWebhookEvents()[0] != platform.EventBranchReady {
		t.Error("AllWebhookEvents returned a shared slice")
	}
}

// webhookHMAC is the signature of body under secret, computed here
// independently of SignWebhook.
func webhookHMAC(body, secret string) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(body))
	return hex.EncodeToString(mac.Sum(nil))
}

func TestSignWebhook(t *testing.T) {
	t.Parallel()
	// The well-known HMAC-SHA256 of the "quick brown fox" sentence under
	// the key "key".
	const want = "f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8"
	if got := platform.SignWebhook([]byte("The quick brown fox jumps over the lazy dog"), "key"); got != want {
		t.Errorf("SignWebhook = %s, want %s", got, want)
	}
}

func TestVerifyWebhook(t *testing.T) {
	t.Parallel()
	const body, secret = `{"event":"webhook.test"}`, "whsecret"
	good := webhookHMAC(body, secret)
	tests := []struct {
		name, body, header, secret string
		ok                         bool
	}{
		{"good", body, good, secret, true},
		{"good in upper case", body, strings.ToUpper(good), secret, true},
		{"good with spaces around", body, " " + good + "\n", secret, true},
		{"missing", body, "", secret, false},
		{"not hexadecimal", body, "zz" + good[2:], secret, false},
		{"truncated", body, good[:32], secret, false},
		{"prefixed like another scheme", body, "sha256=" + good, secret, false},
		{"another secret's", body, webhookHMAC(body, "other"), secret, false},
		{"wrong secret given", body, good, "other", false},
		{"tampered body", body + " ", good, secret, false},
	}
	for _, tt := range tests {
		err := platform.VerifyWebhook([]byte(tt.body), tt.header, tt.secret)
		if tt.ok != (err == nil) {
			t.Errorf("%s: VerifyWebhook = %v, want ok %v", tt.name, err, tt.ok)
		}
		if err != nil && !errors.Is(err, platform.ErrWebhookSignature) {
			t.Errorf("%s: %v does not match ErrWebhookSignature", tt.name, err)
		}
	}
	if err := platform.VerifyWebhook([]byte(body), good, ""); err == nil || errors.Is(err, platform.ErrWebhookSignature) {
		t.Errorf("empty secret: %v, want an argument error", err)
	} else if argErr := new(platform.ArgError); !errors.As(err, &argErr) || argErr.Arg != "secret" {
		t.Errorf("empty secret: %v, want *ArgError for secret", err)
	}
	if err := platform.VerifyWebhook([]byte(body), "", secret); err == nil || !strings.Contains(err.Error(), platform.WebhookSignatureHeader) {
		t.Errorf("missing signature: %v, want an error naming %s", err, platform.WebhookSignatureHeader)
	}
}

// webhookSignedRequest is a delivery of body as a webhook sends it, signed
// with secret.
func webhookSignedRequest(body, secret string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/hooks", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set(platform.WebhookEventHeader, "branch.ready")
	r.Header.Set(platform.WebhookDeliveryHeader, "6f1c2a9e-3b7d-4c1e-9a2b-5d8e7f6a1b2c")
	r.Header.Set(platform.WebhookSignatureHeader, webhookHMAC(body, secret))
	return r
}

// webhookEnvelope is a delivery body about resource.
func webhookEnvelope(event, resource string) string {
	return `{"timestamp": 1768386000, "event": "` + event + `", "organization": "acme", "database": "app", "resource": ` + resource + `}`
}

func TestParseWebhook(t *testing.T) {
	t.Parallel()
	const secret = "whsecret"
	t.Run("branch", func(t *testing.T) {
		t.Parallel()
		r := webhookSignedRequest(webhookEnvelope("branch.ready", `{"id": "b1", "type": "Branch", "name": "dev", "ready": true, "production": false}`), secret)
		d, err := platform.ParseWebhook(r, secret)
		if err != nil {
			t.Fatal(err)
		}
		want := &platform.WebhookDelivery{
			Timestamp: 1768386000, Event: platform.EventBranchReady, Organization: "acme", Database: "app",
			Resource:   json.RawMessage(`{"id": "b1", "type": "Branch", "name": "dev", "ready": true, "production": false}`),
			DeliveryID: "6f1c2a9e-3b7d-4c1e-9a2b-5d8e7f6a1b2c",
		}
		if diff := cmp.Diff(want, d); diff != "" {
			t.Errorf("delivery (-want +got):\n%s", diff)
		}
		if got := d.Time(); !got.Equal(time.Date(2026, 1, 14, 10, 20, 0, 0, time.UTC)) || got.Location() != time.UTC {
			t.Errorf("Time() = %v, want 2026-01-14T10:20:00Z", got)
		}
		b, err := d.BranchResource()
		if err != nil {
			t.Fatal(err)
		}
		if b.ID != "b1" || b.Type != "Branch" || b.Name != "dev" || !b.Ready {
			t.Errorf("branch = %+v, want ready branch dev", b)
		}
	})
	t.Run("typed resources", func(t *testing.T) {
		t.Parallel()
		parse := func(event, resource string) *platform.WebhookDelivery {
			d, err := platform.ParseWebhook(webhookSignedRequest(webhookEnvelope(event, resource), secret), secret)
			if err != nil {
				t.Fatalf("%s: %v", event, err)
			}
			return d
		}
		dr, err := parse("deploy_request.opened", `{"id": "dr1", "type": "DeployRequest", "number": 7, "branch": "dev", "into_branch": "main"}`).DeployRequestResource()
		if err != nil || dr.Number != 7 || dr.Branch != "dev" || dr.IntoBranch != "main" {
			t.Errorf("DeployRequestResource = %+v, %v; want #7 from dev into main", dr, err)
		}
		db, err := parse("webhook.test", `{"id": "d1", "type": "Database", "name": "app", "state": "ready"}`).DatabaseResource()
		if err != nil || db.Name != "app" || db.State != platform.DatabaseReady {
			t.Errorf("DatabaseResource = %+v, %v; want the ready database app", db, err)
		}
		ks, err := parse("keyspace.storage", `{"id": "k1", "type": "Keyspace", "name": "app", "shards": 2}`).KeyspaceResource()
		if err != nil || ks.Name != "app" || ks.Shards != 2 {
			t.Errorf("KeyspaceResource = %+v, %v; want keyspace app of 2 shards", ks, err)
		}
		var generic map[string]any
		if err := parse("cluster.storage", `{"id": "c1", "used_bytes": 10}`).DecodeResource(&generic); err != nil || generic["used_bytes"] != 10.0 {
			t.Errorf("DecodeResource = %v, %v", generic, err)
		}
		if _, err := parse("branch.ready", `"not an object"`).BranchResource(); err == nil || !strings.Contains(err.Error(), "branch.ready") {
			t.Errorf("BranchResource of a string: %v, want an error naming the event", err)
		}
		// A database sent with a branch event is not read as a branch; a
		// type none of the typed methods reads is left to the caller.
		database := parse("branch.sleeping", `{"id": "d1", "type": "Database", "name": "app"}`)
		if _, err := database.BranchResource(); err == nil || !strings.Contains(err.Error(), "is a Database, not a Branch") {
			t.Errorf("BranchResource of a database: %v, want an error naming both types", err)
		}
		if b, err := parse("branch.ready", `{"id": "b1", "type": "BranchV2", "name": "dev"}`).BranchResource(); err != nil || b.Name != "dev" {
			t.Errorf("BranchResource of an unknown type: %+v, %v; want the branch dev", b, err)
		}
	})
	t.Run("no resource", func(t *testing.T) {
		t.Parallel()
		body := `{"timestamp": 1, "event": "branch.sleeping", "organization": "acme", "database": "app"}`
		d, err := platform.ParseWebhook(webhookSignedRequest(body, secret), secret)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := d.BranchResource(); err == nil {
			t.Error("BranchResource of a delivery without a resource succeeded")
		}
	})

	refused := []struct {
		name    string
		request func() *http.Request
		check   func(error) bool
	}{
		{"tampered body", func() *http.Request {
			r := webhookSignedRequest(webhookEnvelope("branch.ready", `{"name": "dev"}`), secret)
			r.Body = io.NopCloser(strings.NewReader(webhookEnvelope("branch.ready", `{"name": "prod"}`)))
			return r
		}, isSignatureError},
		{"missing signature", func() *http.Request {
			r := webhookSignedRequest(webhookEnvelope("branch.ready", `{}`), secret)
			r.Header.Del(platform.WebhookSignatureHeader)
			return r
		}, isSignatureError},
		{"another secret", func() *http.Request {
			return webhookSignedRequest(webhookEnvelope("branch.ready", `{}`), "other")
		}, isSignatureError},
		{"oversized body", func() *http.Request {
			body := webhookEnvelope("branch.ready", `"`+strings.Repeat("x", platform.MaxWebhookBody)+`"`)
			return webhookSignedRequest(body, secret)
		}, func(err error) bool {
			var tooBig *http.MaxBytesError
			return errors.As(err, &tooBig) && tooBig.Limit == platform.MaxWebhookBody
		}},
		{"signed but not JSON", func() *http.Request {
			return webhookSignedRequest(`{"event": `, secret)
		}, func(err error) bool { return err != nil && !isSignatureError(err) }},
		{"no body", func() *http.Request {
			r := webhookSignedRequest("", secret)
			r.Body = nil
			return r
		}, func(err error) bool { return err != nil }},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d, err := platform.ParseWebhook(tt.request(), secret)
			if d != nil || !tt.check(err) {
				t.Errorf("ParseWebhook = %+v, %v", d, err)
			}
		})
	}
}

func isSignatureError(err error) bool { return errors.Is(err, platform.ErrWebhookSignature) }

// countedName is a caller's type with its own decoding; nameDecodes counts
// its calls per JSON value decoded.
type countedName string

var nameDecodes sync.Map // the value's JSON text -> *atomic.Int32

// nameDecoded returns how many times countedName decoded the JSON text v.
func nameDecoded(v string) int32 {
	if n, ok := nameDecodes.Load(v); ok {
		return n.(*atomic.Int32).Load()
	}
	return 0
}

func (c *countedName) UnmarshalJSON(b []byte) error {
	n, _ := nameDecodes.LoadOrStore(string(b), new(atomic.Int32))
	n.(*atomic.Int32).Add(1)
	return json.Unmarshal(b, (*string)(c))
}

// TestDecodeResourceCallerTypes checks DecodeResource into types a caller
// defines, as encoding/json decodes them: an error, not a panic, for an
// anonymous struct holding a nil *Timestamp; a type's UnmarshalJSON called
// once per value, and never on a document that is not valid JSON.
func TestDecodeResourceCallerTypes(t *testing.T) {
	t.Parallel()
	delivery := func(resource string) *platform.WebhookDelivery {
		return &platform.WebhookDelivery{Event: platform.EventBranchReady, Resource: json.RawMessage(resource)}
	}
	t.Run("anonymous struct of a *Timestamp", func(t *testing.T) {
		t.Parallel()
		var v struct {
			At struct{ *platform.Timestamp } `json:"at"`
		}
		err := delivery(`{"at": "2026-01-14T10:19:23.000Z"}`).DecodeResource(&v)
		if err == nil || !strings.Contains(err.Error(), "branch.ready") {
			t.Errorf("DecodeResource = %v, want an error naming the event", err)
		}
	})
	// Each case decodes a name of its own, so that the counts are its own.
	for _, tt := range []struct {
		name, resource string
		value          string // the name's JSON text, which nameDecodes counts
		wantName       countedName
		wantCalls      int32
		wantErr        bool
	}{
		{"plain key", `{"name": "plain"}`, `"plain"`, "plain", 1, false},
		{"an escaped key after it", `{"name": "escaped", "\u0069d": "r1"}`, `"escaped"`, "escaped", 1, false},
		{"not JSON after the value", `{"name": "invalid",}`, `"invalid"`, "", 0, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var v struct {
				Name countedName `json:"name"`
			}
			before := nameDecoded(tt.value) // an earlier run's, with -count
			err := delivery(tt.resource).DecodeResource(&v)
			if (err != nil) != tt.wantErr {
				t.Errorf("DecodeResource(%s) = %v, want error %v", tt.resource, err, tt.wantErr)
			}
			if calls := nameDecoded(tt.value) - before; calls != tt.wantCalls || v.Name != tt.wantName {
				t.Errorf("UnmarshalJSON ran %d times, name %q; want %d times, %q", calls, v.Name, tt.wantCalls, tt.wantName)
			}
		})
	}
}

// ExampleParseWebhook receives a webhook's deliveries in an HTTP handler.
// Here they come from the in-memory fake, whose clock the example moves.
func ExampleParseWebhook() {
	srv, err := fake.New()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()
	if _, err := client.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: "acme", Name: "app-db", ClusterSize: "PS_10"}); err != nil {
		log.Fatal(err)
	}

	// The receiver's address is known before it starts, so the webhook can
	// be created first and its secret given to the handler.
	receiver := httptest.NewUnstartedServer(nil)
	hook, err := client.Webhooks.Create(ctx, &platform.CreateWebhookParams{
		Organization: "acme",
		Database:     "app-db",
		URL:          "http://" + receiver.Listener.Addr().String() + "/hooks",
		Enabled:      platform.Ptr(true),
		Events:       []platform.WebhookEvent{platform.EventBranchReady},
	})
	if err != nil {
		log.Fatal(err)
	}
	receiver.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d, err := platform.ParseWebhook(r, hook.Secret)
		if errors.Is(err, platform.ErrWebhookSignature) {
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		switch d.Event {
		case platform.EventBranchReady:
			b, err := d.BranchResource()
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			fmt.Printf("%s: branch %s of %s\n", d.Event, b.Name, d.Database)
		case platform.EventWebhookTest:
			db, err := d.DatabaseResource()
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			fmt.Printf("%s: database %s (%s)\n", d.Event, db.Name, db.State)
		}
		w.WriteHeader(http.StatusNoContent)
	})
	receiver.Start()
	defer receiver.Close()

	// The database's main branch becomes ready: branch.ready is delivered.
	srv.Advance(5 * time.Second)
	if err := srv.FlushDeliveries(ctx); err != nil {
		log.Fatal(err)
	}
	// A test delivery carries the database.
	if err := client.Webhooks.Test(ctx, &platform.TestWebhookParams{Organization: "acme", Database: "app-db", ID: hook.ID}); err != nil {
		log.Fatal(err)
	}
	if err := srv.FlushDeliveries(ctx); err != nil {
		log.Fatal(err)
	}
	// Output:
	// branch.ready: branch main of app-db
	// webhook.test: database app-db (ready)
}

// ExampleWebhooksService_Create subscribes a receiver to the branch.ready
// events of a database. The receiver is down when the first delivery comes:
// the webhook records the failure, and the delivery is sent again later (on
// the fake, 10 seconds later).
func ExampleWebhooksService_Create() {
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

	// The receiver's handler needs the webhook's secret, so it is
	// registered once the webhook is created.
	mux := http.NewServeMux()
	receiver := httptest.NewServer(mux)
	defer receiver.Close()
	// A webhook is created disabled unless Enabled says otherwise.
	hook, err := client.Webhooks.Create(ctx, &platform.CreateWebhookParams{
		Organization: "acme", Database: "shop",
		URL:     receiver.URL + "/events",
		Enabled: platform.Ptr(true),
		Events:  []platform.WebhookEvent{platform.EventBranchReady},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("enabled:", hook.Enabled, "events:", hook.Events)

	var down atomic.Bool
	down.Store(true)
	mux.HandleFunc("POST /events", func(w http.ResponseWriter, r *http.Request) {
		if down.Load() {
			http.Error(w, "deploying", http.StatusServiceUnavailable)
			return
		}
		d, err := platform.ParseWebhook(r, hook.Secret)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		b, err := d.BranchResource()
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		fmt.Printf("received %s: %s/%s\n", d.Event, d.Database, b.Name)
		w.WriteHeader(http.StatusNoContent)
	})
	lastSent := func() {
		h, err := client.Webhooks.Get(ctx, &platform.GetWebhookParams{Organization: "acme", Database: "shop", ID: hook.ID})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("last sent: %s, success %t\n", h.LastSentResult, h.LastSentSuccess)
	}

	// A new branch becomes ready after 5 seconds, while the receiver is down.
	if _, err := client.Branches.Create(ctx, &platform.CreateBranchParams{Organization: "acme", Database: "shop", Name: "dev", ParentBranch: "main"}); err != nil {
		log.Fatal(err)
	}
	srv.Advance(5 * time.Second)
	if err := srv.FlushDeliveries(ctx); err != nil {
		log.Fatal(err)
	}
	lastSent()

	// The receiver is back up when the retry comes.
	down.Store(false)
	srv.Advance(10 * time.Second)
	if err := srv.FlushDeliveries(ctx); err != nil {
		log.Fatal(err)
	}
	lastSent()
	// Output:
	// enabled: true events: [branch.ready]
	// last sent: 503 Service Unavailable, success false
	// received branch.ready: shop/dev
	// last sent: 204 No Content, success true
}
