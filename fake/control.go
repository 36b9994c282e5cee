package fake

import (
	"crypto/subtle"
	"net/http"
	"time"

	"github.com/dbplatform/platform-go"
)

// ControlPrefix is the path below which a server serves its control surface:
// the part of its Go API that a client in another language needs, over HTTP.
// Every control request needs the admin token's Authorization header
// ([Server.AdminToken]); without it the answer is 401.
//
//	POST /_fake/advance?d=5s  moves the virtual clock (as [Server.Advance]); answers {"now": ..., "virtual": true}
//	GET  /_fake/now           answers {"now": ..., "virtual": ...}
//	GET  /_fake/requests      answers the request log (as [Server.Requests]): {"data": [...]}
//
// Control requests are themselves logged, with an operation of
// "_fake/advance", "_fake/now" or "_fake/requests".
const ControlPrefix = "/_fake/"

// controlEndpoint is one operation of the control surface.
type controlEndpoint struct {
	method string
	serve  func(s *Server, r *http.Request) (any, error)
}

// controlEndpoints are the control operations by path.
var controlEndpoints = map[string]controlEndpoint{
	ControlPrefix + "advance":  {http.MethodPost, (*Server).controlAdvance},
	ControlPrefix + "now":      {http.MethodGet, (*Server).controlNow},
	ControlPrefix + "requests": {http.MethodGet, (*Server).controlRequests},
}

// control is the http.Handler of the control surface; buildMux mounts it at
// ControlPrefix.
type control struct{ s *Server }

// ServeHTTP checks the admin token, then the path and method, and serves the
// control operation. Errors are the API's JSON error bodies.
func (c control) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ep, known := controlEndpoints[r.URL.Path]
	if rec, ok := w.(*recorder); ok && known {
		rec.op = "_fake/" + r.URL.Path[len(ControlPrefix):]
	}
	if !c.authorized(r) {
		writeError(w, unauthorized("the control endpoints under %s need the admin token's Authorization header (ID:TOKEN)", ControlPrefix))
		return
	}
	if !known {
		writeError(w, errf(http.StatusNotFound, "not_found", "no control endpoint %s; there are %sadvance, %snow and %srequests", r.URL.Path, ControlPrefix, ControlPrefix, ControlPrefix))
		return
	}
	if r.Method != ep.method {
		w.Header().Set("Allow", ep.method)
		writeError(w, errf(http.StatusMethodNotAllowed, "method_not_allowed", "%s takes %s, not %s", r.URL.Path, ep.method, r.Method))
		return
	}
	resp, err := ep.serve(c.s, r)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, resp)
}

// authorized reports whether r carries the admin token, compared in
// constant time.
func (c control) authorized(r *http.Request) bool {
	got := r.Header.Get("Authorization")
	want := c.s.adminToken.Authorization()
	return subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// controlTime is the answer of advance and now.
type controlTime struct {
	// Now is the server's time after the operation.
	Now platform.Timestamp `json:"now"`
	// Virtual is false when the clock follows the wall clock ([WithRealTime]).
	Virtual bool `json:"virtual"`
}

// controlAdvance serves POST /_fake/advance?d=DURATION.
func (s *Server) controlAdvance(r *http.Request) (any, error) {
	v := r.URL.Query().Get("d")
	if v == "" {
		return nil, badRequest("query parameter d is required: a duration such as 5s or 1m30s")
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return nil, badRequest("d must be a non-negative duration such as 5s or 1m30s, got %q", v)
	}
	if s.clock.real {
		return nil, unprocessable("the clock follows the wall clock (real time); only a virtual clock can be advanced")
	}
	s.Advance(d)
	return s.controlNow(r)
}

// controlNow serves GET /_fake/now.
func (s *Server) controlNow(*http.Request) (any, error) {
	return controlTime{Now: platform.NewTimestamp(s.Now()), Virtual: !s.clock.real}, nil
}

// controlRequest is a request of the log as /_fake/requests shows it.
type controlRequest struct {
	Method    string `json:"method"`
	Path      string `json:"path"`
	Query     string `json:"query"`
	Status    int    `json:"status"`
	Operation string `json:"operation"`
	RequestID string `json:"request_id"`
}

// controlRequestLog is the answer of GET /_fake/requests.
type controlRequestLog struct {
	Data []controlRequest `json:"data"`
}

// controlRequests serves GET /_fake/requests: the log, oldest first.
func (s *Server) controlRequests(*http.Request) (any, error) {
	log := s.Requests()
	out := controlRequestLog{Data: make([]controlRequest, 0, len(log))}
	for _, r := range log {
		out.Data = append(out.Data, controlRequest{
			Method: r.Method, Path: r.Path, Query: r.Query, Status: r.Status, Operation: r.Operation, RequestID: r.RequestID,
		})
	}
	return out, nil
}
