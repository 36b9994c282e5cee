package fake

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/dbplatform/platform-go"
)

// The control endpoints of the event stream and webhook deliveries (see
// events.go and deliveries.go).

// defaultFlushTimeout is how long POST /_fake/deliveries/flush waits when
// the request names no timeout.
const defaultFlushTimeout = 10 * time.Second

// controlEventRoutes are the event and delivery endpoints.
func controlEventRoutes() []controlRoute {
	return []controlRoute{
		{http.MethodPost, "organizations/{organization}/databases/{database}/events", http.StatusNoContent, ctlBody((*Server).controlEmit)},
		{http.MethodGet, "events", http.StatusOK, ctl((*Server).controlEvents)},
		{http.MethodGet, "deliveries", http.StatusOK, ctl((*Server).controlDeliveries)},
		{http.MethodPost, "deliveries/flush", http.StatusNoContent, ctl((*Server).controlFlushDeliveries)},
	}
}

// controlEmitBody is the body of POST .../databases/{database}/events.
type controlEmitBody struct {
	Event platform.WebhookEvent `json:"event"`
	// Resource is the object the event is about, as the API renders it;
	// absent or null sends the database.
	Resource json.RawMessage `json:"resource"`
}

// controlEmit serves POST
// /_fake/organizations/{organization}/databases/{database}/events. The
// event's resource is kept as the JSON it was sent as.
func (s *Server) controlEmit(r *http.Request, b *controlEmitBody) (any, error) {
	var resource any
	if len(b.Resource) > 0 && string(b.Resource) != "null" {
		resource = b.Resource
	}
	return nil, refused(s.Emit(r.PathValue("organization"), r.PathValue("database"), b.Event, resource))
}

// controlEvent is an event of the stream as the control surface shows it.
type controlEvent struct {
	Name         string             `json:"name"`
	Organization string             `json:"organization"`
	Database     string             `json:"database"`
	Resource     any                `json:"resource"`
	At           platform.Timestamp `json:"at"`
}

// controlEvents serves GET /_fake/events: the stream, oldest first.
func (s *Server) controlEvents(*http.Request) (any, error) {
	evs := s.Events()
	out := controlList[controlEvent]{Data: make([]controlEvent, 0, len(evs))}
	for _, e := range evs {
		out.Data = append(out.Data, controlEvent{
			Name: e.Name, Organization: e.Organization, Database: e.Database, Resource: e.Resource, At: platform.NewTimestamp(e.At),
		})
	}
	return out, nil
}

// controlDelivery is a delivery attempt as the control surface shows it;
// Body is the exact text sent, which the signature signs.
type controlDelivery struct {
	WebhookID  string                `json:"webhook_id"`
	DeliveryID string                `json:"delivery_id"`
	Event      platform.WebhookEvent `json:"event"`
	URL        string                `json:"url"`
	Attempt    int                   `json:"attempt"`
	StatusCode int                   `json:"status_code"`
	Error      string                `json:"error"`
	Success    bool                  `json:"success"`
	Result     string                `json:"result"`
	At         platform.Timestamp    `json:"at"`
	Body       string                `json:"body"`
}

// controlDeliveries serves GET /_fake/deliveries: the attempts whose
// result is in, in the order they were sent.
func (s *Server) controlDeliveries(*http.Request) (any, error) {
	ds := s.Deliveries()
	out := controlList[controlDelivery]{Data: make([]controlDelivery, 0, len(ds))}
	for _, d := range ds {
		out.Data = append(out.Data, controlDelivery{
			WebhookID: d.WebhookID, DeliveryID: d.DeliveryID, Event: d.Event, URL: d.URL, Attempt: d.Attempt,
			StatusCode: d.StatusCode, Error: d.Error, Success: d.Success, Result: d.Result(),
			At: platform.NewTimestamp(d.At), Body: string(d.Body),
		})
	}
	return out, nil
}

// controlFlushDeliveries serves POST /_fake/deliveries/flush?timeout=D: it
// waits until no delivery attempt is in flight, at most D.
func (s *Server) controlFlushDeliveries(r *http.Request) (any, error) {
	timeout := defaultFlushTimeout
	if v := r.URL.Query().Get("timeout"); v != "" {
		d, err := parseControlDuration("timeout", v)
		if err != nil {
			return nil, err
		}
		timeout = d
	}
	ctx, cancel := context.WithTimeout(r.Context(), timeout)
	defer cancel()
	err := s.FlushDeliveries(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		return nil, unprocessable("deliveries are still in flight after the timeout of %s", timeout)
	}
	return nil, refused(err)
}
