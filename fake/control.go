package fake

import (
	"crypto/subtle"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/dbplatform/platform-go"
)

// ControlPrefix is the path below which a server serves its control surface:
// its Go API over HTTP, for clients in other languages (the standalone
// binary's users). Every endpoint is a thin adapter over one method of
// [Server]. Every control request needs the admin token's Authorization
// header ([Server.AdminToken]); without it the answer is 401.
//
// Bodies are JSON objects, decoded strictly: an unknown field or a wrong
// JSON type is a 400 naming the field, a missing required field a 422.
// Durations are Go duration strings ("5s", "1m30s"). A refusal of the Go
// method is a 422 (a 404 for the endpoints that look something up) whose
// message is the method's error without its "fake: Method: " prefix: the
// reason alone. Errors are the API's JSON error bodies; an
// unknown path is a 404, a known path with another method a 405 with an
// Allow header.
//
//	POST   /_fake/advance?d=5s                    Advance; answers {"now": ..., "virtual": true, "transitions": N,
//	                                              "complete": true}; complete is false when it stopped at
//	                                              MaxAdvanceTransitions short of d, now saying how far it got;
//	                                              422 on a real-time clock (WithRealTime)
//	GET    /_fake/now                             Now; answers {"now": ..., "virtual": ...}
//	GET    /_fake/requests                        Requests: {"data": [{"method", "path", "query", "status", "operation", "request_id",
//	                                              "reason"}]}
//	DELETE /_fake/requests                        ClearRequests
//	POST   /_fake/organizations                   CreateOrganization {"name"}
//	POST   /_fake/users                           CreateUser {"name", "email"}; answers {"id", "name", "email"}
//	POST   /_fake/organizations/{org}/members     AddMember {"user_id", "role"}
//	POST   /_fake/organizations/{org}/service-tokens
//	                                              CreateServiceToken {"name", "created_by", "permissions",
//	                                              "database_permissions", "ttl"}; answers {"id", "secret", "authorization"}
//	DELETE /_fake/service-tokens/{id}             DeleteServiceToken
//	POST   /_fake/organizations/{org}/teams/{team}/databases
//	                                              AddTeamDatabase {"database"}
//	POST   /_fake/organizations/{org}/teams/{team}/analyst-databases
//	                                              AddTeamAnalystDatabase {"database"}
//	PUT    /_fake/organizations/{org}/teams/{team}/managed
//	                                              SetTeamManaged {"managed"}
//	POST   /_fake/organizations/{org}/oauth-applications
//	                                              CreateOAuthApplication {"name", "domain", "redirect_uri", "scopes",
//	                                              "avatar", "client_id", "client_secret"}; answers {"id", "client_id",
//	                                              "client_secret", "redirect_uri"}
//	POST   /_fake/oauth/sign-in                   SignIn {"user_id"}
//	POST   /_fake/oauth/sign-out                  SignOut
//	PUT    /_fake/oauth/auto-approve              SetAutoApprove {"organizations", "databases", "branches"}
//	DELETE /_fake/oauth/auto-approve              SetAutoApprove(nil)
//	POST   /_fake/oauth/device/approve            ApproveDevice {"user_code"}
//	POST   /_fake/oauth/device/deny               DenyDevice {"user_code"}
//	POST   /_fake/organizations/{org}/databases/{db}/branches/{branch}/schema
//	                                              PushSchema {"statements"}
//	POST   /_fake/organizations/{org}/databases/{db}/branches/{branch}/keyspaces
//	                                              AddKeyspace {"name", "shards"}
//	GET    /_fake/organizations/{org}/databases/{db}/branches/{branch}/roles/{role}
//	                                              Role; answers the role, dropped or not
//	GET    /_fake/organizations/{org}/databases/{db}/branches/{branch}/roles/{role}/objects
//	                                              RoleObjects; answers {"data": [...]}
//	POST   /_fake/organizations/{org}/databases/{db}/branches/{branch}/roles/{role}/objects
//	                                              AddRoleObjects {"objects"}
//	PUT    /_fake/organizations/{org}/databases/{db}/branches/{branch}/table-sizes
//	                                              SetTableSize {"keyspace", "table", "bytes"}
//	PUT    /_fake/organizations/{org}/databases/{db}/branches/{branch}/throttler-metrics
//	                                              SetThrottlerMetric {"tablet_alias", "metric", "value"}
//	PUT    /_fake/organizations/{org}/databases/{db}/branches/{branch}/vdiff-differences
//	                                              SetVDiffDifferences {"keyspace", "table", "mismatched",
//	                                              "extra_source", "extra_target"}
//	POST   /_fake/organizations/{org}/databases/{db}/branches/{branch}/queries
//	                                              RecordQueries {"samples": [{"sql", "keyspace", "tables", "tags",
//	                                              "tablet_type", "rows_read", "rows_returned", "rows_affected",
//	                                              "shard_queries", "duration", "error", "error_code", "time"}]}
//	POST   /_fake/organizations/{org}/auth-attempts
//	                                              RecordAuthAttempts {"attempts": [{"username", "source_address",
//	                                              "database", "branch", "at", "startup_database", "backend_route"}]};
//	                                              answers the attempts with their outcomes: {"data": [...]}
//	POST   /_fake/organizations/{org}/databases/{db}/branches/{branch}/sessions
//	                                              OpenSession {"user", "host", "application", "instance", "keyspace",
//	                                              "shard", "query", "query_duration", "query_started", "in_transaction",
//	                                              "blocked_by", "started"}; answers {"id"}
//	POST   /_fake/fail-next                       FailNext {"id"}
//	POST   /_fake/faults                          InjectFault {"operation", "status", "code", "message", "retry_after",
//	                                              "times", "probability", "latency"}; answers the rule with its "id"
//	GET    /_fake/faults                          the rules installed over HTTP: {"data": [...]}
//	GET    /_fake/faults/{id}                     a rule, with its "fired" count (FaultRule.Fired)
//	DELETE /_fake/faults/{id}                     FaultRule.Remove
//	POST   /_fake/organizations/{org}/databases/{db}/events
//	                                              Emit {"event", "resource"}
//	GET    /_fake/events                          Events: {"data": [{"name", "organization", "database", "resource", "at"}]}
//	GET    /_fake/deliveries                      Deliveries: {"data": [...]}
//	POST   /_fake/deliveries/flush?timeout=10s    FlushDeliveries, waiting at most timeout (10s when absent, 0s not at all)
//	GET    /_fake/snapshot                        Snapshot; answers the snapshot's JSON
//	PUT    /_fake/snapshot                        Restore; the body is a snapshot (the admin token becomes the snapshot's)
//	POST   /_fake/reset                           Reset
//	PUT    /_fake/organizations/{org}/billing/payment-method
//	                                              SetPaymentMethod {"brand", "last4", "exp_month", "exp_year", "name"}
//	PUT    /_fake/organizations/{org}/import-sources/{host}
//	                                              SetImportSource {"reachable", "connect_error", "password", "lint_errors",
//	                                              "needs_upgrade", "suggested_plan", "max_pool_size"}
//	GET    /_fake/organizations/{org}/databases/{db}/import-notifications
//	                                              ImportNotifications: {"data": [...]}
//
// Control requests are themselves logged, with an operation of "_fake/"
// and the endpoint's path pattern ("_fake/advance", "_fake/faults/{id}").
//
// The state page is the one exception: a browser's GET of ControlPrefix
// itself (an Accept header that takes text/html), and the paths below
// /_fake/page/, are a web page of the server's state, which signs in with
// a form or a one-time link ([Server.StatePageLink]) instead of the
// header. Any other client's GET of ControlPrefix is answered as before.
const ControlPrefix = "/_fake/"

// controlRoute is one endpoint of the control surface.
type controlRoute struct {
	method string
	// pattern is the path below ControlPrefix; a segment {name} matches any
	// one non-empty segment, which the handler reads with r.PathValue.
	pattern string
	// status is the success status: 200 or 201 with a body, 204 without.
	status int
	serve  controlHandler
}

// controlHandler serves a control endpoint: it returns the response body
// (nil for none) or an error.
type controlHandler func(s *Server, w http.ResponseWriter, r *http.Request) (any, error)

// controlRoutes is the control surface's route table.
func controlRoutes() []controlRoute {
	var rs []controlRoute
	rs = append(rs, controlClockRoutes()...)
	rs = append(rs, controlSeedRoutes()...)
	rs = append(rs, controlOAuthRoutes()...)
	rs = append(rs, controlBranchRoutes()...)
	rs = append(rs, controlConnectionRoutes()...)
	rs = append(rs, controlFaultRoutes()...)
	rs = append(rs, controlEventRoutes()...)
	rs = append(rs, controlSnapshotRoutes()...)
	rs = append(rs, controlBillingRoutes()...)
	rs = append(rs, controlAuthAttemptRoutes()...)
	rs = append(rs, controlDataImportRoutes()...)
	return rs
}

// controlClockRoutes are the clock's and the request log's endpoints.
func controlClockRoutes() []controlRoute {
	return []controlRoute{
		{http.MethodPost, "advance", http.StatusOK, ctl((*Server).controlAdvance)},
		{http.MethodGet, "now", http.StatusOK, ctl((*Server).controlNow)},
		{http.MethodGet, "requests", http.StatusOK, ctl((*Server).controlRequests)},
		{http.MethodDelete, "requests", http.StatusNoContent, ctl((*Server).controlClearRequests)},
	}
}

// ctl adapts a handler that reads no body.
func ctl(fn func(s *Server, r *http.Request) (any, error)) controlHandler {
	return func(s *Server, _ http.ResponseWriter, r *http.Request) (any, error) { return fn(s, r) }
}

// ctlBody adapts a handler that takes a JSON body of type B, decoded
// strictly: an unknown field is a 400 that names it.
func ctlBody[B any](fn func(s *Server, r *http.Request, body *B) (any, error)) controlHandler {
	return func(s *Server, w http.ResponseWriter, r *http.Request) (any, error) {
		body := new(B)
		if err := readJSON(w, r, body, true); err != nil {
			return nil, err
		}
		return fn(s, r, body)
	}
}

// control is the http.Handler of the control surface; buildMux mounts it at
// ControlPrefix.
type control struct{ s *Server }

// ServeHTTP checks the admin token, then the path and method, and serves the
// control operation. Errors are the API's JSON error bodies.
func (c control) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if c.s.servePage(w, r) { // a browser's state page; see statepage.go
		return
	}
	m := c.route(r)
	if rec, ok := w.(*recorder); ok && m.pattern != "" {
		rec.op = "_fake/" + m.pattern
	}
	if !c.authorized(r) {
		writeError(w, unauthorized("the control endpoints under %s need the admin token's Authorization header (ID:TOKEN)", ControlPrefix))
		return
	}
	if m.pattern == "" {
		writeError(w, errf(http.StatusNotFound, "not_found", "no control endpoint %s (the README and fake.ControlPrefix list them)", r.URL.Path))
		return
	}
	if m.rt == nil {
		list := strings.Join(m.allowed, ", ")
		w.Header().Set("Allow", list)
		writeError(w, errf(http.StatusMethodNotAllowed, "method_not_allowed", "%s takes %s, not %s", r.URL.Path, list, r.Method))
		return
	}
	resp, err := m.rt.serve(c.s, w, r)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, m.rt.status, resp)
}

// controlMatch is what the route table says of a request.
type controlMatch struct {
	// rt is the endpoint of the request's path and method; nil when none.
	rt *controlRoute
	// pattern is the pattern of the request's path; "" for an unknown path.
	pattern string
	// allowed are the methods the path takes, sorted.
	allowed []string
}

// route finds the endpoint of r's path and method, and sets r's path
// values from it.
func (c control) route(r *http.Request) controlMatch {
	path := strings.TrimPrefix(r.URL.Path, ControlPrefix)
	var m controlMatch
	for _, rt := range controlRoutes() {
		values, ok := matchControl(rt.pattern, path)
		if !ok {
			continue
		}
		m.pattern = rt.pattern
		m.allowed = append(m.allowed, rt.method)
		if rt.method == r.Method {
			m.rt = &rt
			for _, kv := range values {
				r.SetPathValue(kv[0], kv[1])
			}
		}
	}
	slices.Sort(m.allowed)
	return m
}

// matchControl matches a path below ControlPrefix against a pattern and
// returns the values of its {name} segments.
func matchControl(pattern, path string) ([][2]string, bool) {
	want, got := strings.Split(pattern, "/"), strings.Split(path, "/")
	if len(want) != len(got) {
		return nil, false
	}
	var values [][2]string
	for i, seg := range want {
		if name, ok := strings.CutPrefix(seg, "{"); ok {
			if got[i] == "" {
				return nil, false
			}
			values = append(values, [2]string{strings.TrimSuffix(name, "}"), got[i]})
			continue
		}
		if seg != got[i] {
			return nil, false
		}
	}
	return values, true
}

// authorized reports whether r carries the admin token, compared in
// constant time.
func (c control) authorized(r *http.Request) bool {
	got := r.Header.Get("Authorization")
	want := c.s.AdminToken().Authorization()
	return subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// refused is the error of a Go method that changes the world, as a 422
// with the method's reason; nil stays nil.
func refused(err error) error {
	if err == nil {
		return nil
	}
	return unprocessable("%s", controlReason(err))
}

// absent is the error of a Go method that looks something up, as a 404
// with the method's reason; nil stays nil.
func absent(err error) error {
	if err == nil {
		return nil
	}
	return errf(http.StatusNotFound, "not_found", "%s", controlReason(err))
}

// controlReason is the message of a Go method's error over HTTP: the
// reason alone, without the "fake: Method: " that names the method in Go
// (the endpoint names it here), the response's status being the only one.
func controlReason(err error) string {
	msg := err.Error()
	if rest, ok := strings.CutPrefix(msg, "fake: "); ok {
		if _, reason, ok := strings.Cut(rest, ": "); ok {
			return reason
		}
	}
	return msg
}

// missing is the 422 for a required body field left out.
func missing(field string) error { return unprocessable("field %s is required", field) }

// parseControlDuration reads a duration of the control surface, named name
// in errors: a Go duration string, not negative. Empty is zero.
func parseControlDuration(name, v string) (time.Duration, error) {
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, badRequest("%s must be a non-negative duration such as 5s or 1m30s, got %q", name, v)
	}
	return d, nil
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
	d, err := parseControlDuration("d", v)
	if err != nil {
		return nil, err
	}
	if s.realTime() {
		return nil, unprocessable("the clock follows the wall clock (real time); only a virtual clock can be advanced")
	}
	ran, complete := s.advance(d)
	return controlAdvanced{controlTime: s.controlTime(), Transitions: ran, Complete: complete}, nil
}

// controlAdvanced is the answer of advance.
type controlAdvanced struct {
	controlTime
	// Transitions is how many transitions ran.
	Transitions int `json:"transitions"`
	// Complete is false when the advance stopped at MaxAdvanceTransitions
	// short of its end; Now says how far it got.
	Complete bool `json:"complete"`
}

// controlNow serves GET /_fake/now.
func (s *Server) controlNow(*http.Request) (any, error) {
	return s.controlTime(), nil
}

// controlTime reads the clock for advance and now.
func (s *Server) controlTime() controlTime {
	return controlTime{Now: platform.NewTimestamp(s.Now()), Virtual: !s.realTime()}
}

// controlRequest is a request of the log as /_fake/requests shows it.
type controlRequest struct {
	Method    string `json:"method"`
	Path      string `json:"path"`
	Query     string `json:"query"`
	Status    int    `json:"status"`
	Operation string `json:"operation"`
	RequestID string `json:"request_id"`
	Reason    string `json:"reason,omitempty"`
}

// controlList is the answer of the control endpoints that list.
type controlList[T any] struct {
	Data []T `json:"data"`
}

// controlRequests serves GET /_fake/requests: the log, oldest first.
func (s *Server) controlRequests(*http.Request) (any, error) {
	log := s.Requests()
	out := controlList[controlRequest]{Data: make([]controlRequest, 0, len(log))}
	for _, r := range log {
		out.Data = append(out.Data, controlRequest(r))
	}
	return out, nil
}

// controlClearRequests serves DELETE /_fake/requests.
func (s *Server) controlClearRequests(*http.Request) (any, error) {
	s.ClearRequests()
	return nil, nil
}
