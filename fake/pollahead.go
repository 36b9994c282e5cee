package fake

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/dbplatform/platform-go/internal/pollhook"
)

// maxPollAhead bounds the transitions the clock runs through ahead of one
// poll; past it, the waiter polls and waits as it would anyway.
const maxPollAhead = 100

// pollAhead is the transport of the fake's clients. Before a waiter's poll
// on a virtual clock, it moves the clock one scheduled transition at a time
// until what the poll reads satisfies the waiter's condition
// ([pollhook.Condition]): the poll then sees the state the waiter waits
// for, at the moment it was reached, and the waiter makes one request
// instead of one after each transition. When no scheduled transition can
// move what a poll reads any more, it says so in the poll's probe
// ([pollhook.NoteUnreachable]), naming the resource, so that a waiter not
// yet satisfied fails at once instead of polling until its context ends;
// it does not for an answer that reads as the one that satisfied the
// condition before the poll: the waiter it satisfies has no use for it.
// Every other request goes straight to the server.
type pollAhead struct {
	s    *Server
	base http.RoundTripper
}

func (t pollAhead) RoundTrip(r *http.Request) (*http.Response, error) {
	if t.s.realTime() {
		// The wait after the poll compares what ran since; see sleep.
		pollhook.NoteSent(r.Context(), t.s.ran.Load())
		return t.base.RoundTrip(r)
	}
	poll := r.Method == http.MethodGet && pollhook.IsPoll(r.Context())
	var satisfied any
	met := false
	if cond, ok := pollhook.Condition(r.Context()); ok && poll {
		satisfied, met = t.s.advanceUntil(r, cond)
	}
	// The wait after the poll compares what ran since (another client's
	// calls may run the clock meanwhile); see Sleep. What advanceUntil ran
	// for this poll is before it.
	pollhook.NoteSent(r.Context(), t.s.ran.Load())
	resp, err := t.base.RoundTrip(r)
	if err != nil || !poll || resp.StatusCode != http.StatusOK || t.s.movesPending() {
		return resp, err
	}
	// Nothing scheduled can change what the poll reads: tell the waiter,
	// which fails at once if the answer is not what it waits for, unless
	// the answer is the one that satisfied its condition.
	var buf bytes.Buffer
	if n := resp.ContentLength; n > 0 {
		buf.Grow(int(n) + bytes.MinRead) // ReadFrom wants MinRead free to read EOF
	}
	_, err = buf.ReadFrom(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	body := buf.Bytes()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if !met || !bytes.Equal(body, answerJSON(satisfied)) {
		pollhook.NoteUnreachable(r.Context(), stuck(r, body))
	}
	return resp, nil
}

// movesPending reports whether a scheduled transition may still move a
// resource that a waiter polls: whether the clock holds a job other than
// those that only recur or expire credentials, deliveries and backups.
func (s *Server) movesPending() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.movesPendingLocked()
}

// movesPendingLocked is movesPending for a caller that holds s.mu.
func (s *Server) movesPendingLocked() bool {
	for j := range s.world.clock.Jobs() {
		switch j.(type) {
		case policyRunJob, invoiceJob, retryJob, codeExpiryJob, deviceExpiryJob, backupExpiryJob:
		default:
			return true
		}
	}
	return false
}

// stuck describes what a waiter's poll r read (its answer body) when no
// scheduled transition can move it: the resource, its state and what would
// move it, as [pollhook.NoteUnreachable] takes it (a query string of
// resource, state and reason).
func stuck(r *http.Request, body []byte) string {
	op := ""
	if mux, err := sharedMux(); err == nil {
		if h, _ := mux.Handler(r); h != nil {
			if p, ok := h.(pipeline); ok {
				op = p.rt.op
			}
		}
	}
	var v struct {
		State *string `json:"state"`
		Ready *bool   `json:"ready"`
	}
	_ = json.Unmarshal(body, &v) // a list answers an array: no state of its own
	state := "unchanged"
	switch {
	case v.State != nil:
		state = *v.State
	case v.Ready != nil && !*v.Ready:
		state = "not ready"
	}
	segs := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	resource := strings.ReplaceAll(strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(op, "get_"), "list_"), "_status"), "_", " ")
	if op == "get_deployment" {
		resource = "deployment of deploy request #" + segs[len(segs)-2]
	} else if op == "get_data_import" {
		resource = "data import of database " + segs[len(segs)-2]
	} else if !strings.HasPrefix(op, "list_") {
		resource += " " + segs[len(segs)-1]
	}
	reason, ok := stuckReasons[op+" "+state]
	if !ok {
		reason = "only a call of the API can move it"
	}
	return url.Values{"resource": {resource}, "state": {state}, "reason": {reason}}.Encode()
}

// stuckReasons say, for an operation a waiter polls and a state that only a
// call of the API leaves, which calls move it on.
var stuckReasons = map[string]string{
	"get_deployment ready":                            "it waits to be deployed (DeployRequests.Deploy)",
	"get_deployment pending_cutover":                  "it waits to be applied (DeployRequests.ApplyDeploy)",
	"get_deployment complete_pending_revert":          "it waits to be reverted or for the revert to be skipped (DeployRequests.Revert, DeployRequests.SkipRevert)",
	"get_deployment queued":                           "it waits for the deployments ahead of it in the queue (DeployRequests.GetDeployQueue)",
	"get_workflow running":                            "it waits for its next step (Workflows.VerifyData, Workflows.SwitchReplicas, Workflows.SwitchPrimaries)",
	"get_workflow verified_data":                      "it waits for its next step (Workflows.SwitchReplicas, Workflows.SwitchPrimaries)",
	"get_workflow switched_replicas":                  "it waits for its primaries to be switched (Workflows.SwitchPrimaries) or its traffic reversed (Workflows.ReverseTraffic)",
	"get_workflow switched_primaries":                 "it waits to be cut over (Workflows.Cutover) or its traffic reversed (Workflows.ReverseTraffic)",
	"get_workflow cutover":                            "it waits to be completed (Workflows.Complete) or its cutover reversed (Workflows.ReverseCutover)",
	"get_workflow stopped":                            "it waits to be retried or cancelled (Workflows.Retry, Workflows.Cancel)",
	"get_workflow error":                              "it waits to be retried or cancelled (Workflows.Retry, Workflows.Cancel)",
	"get_data_import switch_traffic_workflow_pending": "it runs as a replica until it is made primary or cancelled (DataImports.MakePrimary, DataImports.Cancel)",
	"get_data_import cleanup_workflow_pending":        "it serves as the primary until the external database is detached or it is made a replica again (DataImports.Detach, DataImports.MakeReplica)",
	"get_data_import prepare_data_copy_error":         "a failed import waits to be cancelled (DataImports.Cancel)",
	"get_data_import data_copy_error":                 "a failed import waits to be cancelled (DataImports.Cancel)",
	"get_data_import switch_traffic_workflow_error":   "a failed import waits to be cancelled (DataImports.Cancel)",
	"get_data_import reverse_traffic_workflow_error":  "a failed import waits to be cancelled (DataImports.Cancel)",
	"get_data_import cleanup_workflow_error":          "a failed import waits to be cancelled (DataImports.Cancel)",
}

// advanceUntil runs the clock to each next scheduled transition in turn
// until r, read by the server for itself (peek), answers 200 with a
// resource that satisfies cond or makes it fail, an answer that is not 200
// (the poll reports it), nothing scheduled can move a polled resource
// (movesPending), r's context ends, or maxPollAhead transitions have run.
// When another client runs the clock between a read and the move after it,
// it reads again instead of moving: the next transition may be far past
// the one the waiter needed, which has run.
// It returns the resource that satisfied cond, and whether one did.
func (s *Server) advanceUntil(r *http.Request, cond pollhook.Cond) (satisfied any, met bool) {
	for range maxPollAhead {
		if r.Context().Err() != nil {
			return nil, false
		}
		ran := s.ran.Load()
		status, v := s.peek(r)
		if status != http.StatusOK {
			return nil, false
		}
		done, err := satisfies(cond, v)
		if done && err == nil {
			return v, true
		}
		if err != nil {
			return nil, false
		}
		moved, again := false, false
		s.runClock(func() time.Time {
			if s.ran.Load() != ran {
				// Another client moved the clock since the peek, maybe
				// through what the peek waited for: read it again.
				again = true
				return s.world.clock.Now()
			}
			next, ok := s.world.clock.Next()
			if !ok || !s.movesPendingLocked() {
				return s.world.clock.Now()
			}
			moved = true
			return next
		})
		if !moved && !again {
			return nil, false
		}
	}
	return nil, false
}

// satisfies applies a waiter's condition to v, the resource a peek
// answered: to v itself when it is what the waiter decodes its poll's body
// into, which spares encoding and decoding it, else to its body.
func satisfies(cond pollhook.Cond, v any) (bool, error) {
	if ok, done, err := cond.Value(v); ok {
		return done, err
	}
	return cond.Body(answerJSON(v))
}

// answerJSON is the body the pipeline answers for the resource v.
func answerJSON(v any) []byte {
	var w peekWriter
	writeJSON(&w, http.StatusOK, v)
	return w.body
}

// peekKey marks a read the server makes for itself (see peek).
type peekKey struct{}

// peeking reports whether r is a read the server makes for itself.
func peeking(r *http.Request) bool { return r.Context().Value(peekKey{}) != nil }

// peek serves a read as the API would answer it now, for the server's own
// use: it leaves no trace a client could see (no request ID taken, no entry
// in the request log, not counted by the rate limit) and no fault rule
// applies to it. It returns the answer's status and, for a success, the
// resource the handler rendered, which the pipeline leaves unencoded.
func (s *Server) peek(r *http.Request) (status int, v any) {
	var w peekWriter
	r = r.WithContext(context.WithValue(r.Context(), peekKey{}, true))
	r.Body = http.NoBody // the client's GET has none; its copy needs no other
	s.ServeHTTP(&w, r)
	return cmp.Or(w.status, http.StatusOK), w.value
}

// peekWriter keeps what a peek returns: the status, and the resource the
// pipeline answers (keep) instead of writing its JSON; the body written
// otherwise is kept as it is, at its size (the pipeline writes a body in
// one piece).
type peekWriter struct {
	header http.Header
	status int
	value  any
	body   []byte
}

// keep answers v with status, unencoded.
func (w *peekWriter) keep(status int, v any) {
	w.WriteHeader(status)
	w.value = v
}

func (w *peekWriter) Header() http.Header {
	if w.header == nil {
		w.header = http.Header{}
	}
	return w.header
}

func (w *peekWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}

func (w *peekWriter) Write(b []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	w.body = append(w.body, b...)
	return len(b), nil
}
