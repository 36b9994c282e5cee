package fake

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Fault is a failure the server answers with, for an operation, instead of
// serving it: to prove that a client retries, backs off or reports errors.
type Fault struct {
	// Status is the error status to answer with (400 to 599). Zero answers
	// normally after Latency: a slow response, not a failed one.
	Status int
	// Code and Message are the error body's; Code defaults from Status
	// ("rate_limited" for 429) and Message to the status text.
	Code, Message string
	// RetryAfter sets the Retry-After header, in whole seconds.
	RetryAfter time.Duration
	// Times is how many requests the rule answers; zero means no limit.
	Times int
	// Probability, when set (0 < p <= 1), makes the rule answer each
	// matching request with that probability, drawn from the server's seed.
	Probability float64
	// Latency is a wall-clock delay before answering.
	Latency time.Duration
}

// FaultRule is an installed fault. Its Fired count says how often it
// answered, so a test can prove a retry happened.
type FaultRule struct {
	op    string
	fault Fault
	fired int
	rules *faultRules
}

// Fired returns how many requests the rule has answered.
func (r *FaultRule) Fired() int {
	r.rules.mu.Lock()
	defer r.rules.mu.Unlock()
	return r.fired
}

// Remove uninstalls the rule.
func (r *FaultRule) Remove() {
	r.rules.mu.Lock()
	defer r.rules.mu.Unlock()
	for i, x := range r.rules.list {
		if x == r {
			r.rules.list = append(r.rules.list[:i:i], r.rules.list[i+1:]...)
			return
		}
	}
}

// faultRules are the installed rules, in order of installation.
type faultRules struct {
	mu   sync.Mutex
	list []*FaultRule
	rng  *rand.Rand
}

func newFaultRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed^0x5bd1e995, seed))
}

// MaxFaultRules is the most fault rules a server holds at once: every
// request is checked against them in turn. A rule that has answered its
// Times stays installed, and counts, until it is removed.
const MaxFaultRules = 1000

// InjectFault installs a fault for the operation named op (a name from the
// API's operation table, such as "get_database"). Rules are tried in the
// order installed; the first that applies answers. With [MaxFaultRules]
// rules installed it refuses, until one is removed ([FaultRule.Remove]).
func (s *Server) InjectFault(op string, f Fault) (*FaultRule, error) {
	if _, ok := operations[op]; !ok {
		return nil, fmt.Errorf("fake: InjectFault: unknown operation %q", op)
	}
	if f.Status != 0 && (f.Status < 400 || f.Status > 599) {
		return nil, fmt.Errorf("fake: InjectFault: status %d is not an error status", f.Status)
	}
	switch {
	case !(f.Probability >= 0 && f.Probability <= 1): // NaN too
		return nil, fmt.Errorf("fake: InjectFault: Probability must be between 0 and 1 (0: always), not %v", f.Probability)
	case f.Times < 0:
		return nil, fmt.Errorf("fake: InjectFault: Times must not be negative (0: no limit), not %d", f.Times)
	case f.Latency < 0:
		return nil, fmt.Errorf("fake: InjectFault: Latency must not be negative, not %v", f.Latency)
	case f.RetryAfter < 0:
		return nil, fmt.Errorf("fake: InjectFault: RetryAfter must not be negative, not %v", f.RetryAfter)
	}
	if f.Status == 0 && f.Latency == 0 {
		return nil, fmt.Errorf("fake: InjectFault: a fault needs a Status or a Latency")
	}
	if f.Code == "" && f.Status != 0 {
		f.Code = defaultCode(f.Status)
	}
	if f.Message == "" && f.Status != 0 {
		f.Message = http.StatusText(f.Status)
	}
	r := &FaultRule{op: op, fault: f, rules: &s.faults}
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	if len(s.faults.list) >= MaxFaultRules {
		return nil, fmt.Errorf("fake: InjectFault: %d fault rules are installed, the most a server holds; remove one first (FaultRule.Remove, DELETE %sfaults/{id})", MaxFaultRules, ControlPrefix)
	}
	s.faults.list = append(s.faults.list, r)
	return r, nil
}

// defaultCode is the error code the API uses with a status.
func defaultCode(status int) string {
	switch status {
	case http.StatusBadRequest:
		return "bad_request"
	case http.StatusUnauthorized:
		return "unauthorized"
	case http.StatusForbidden:
		return "forbidden"
	case http.StatusNotFound:
		return "not_found"
	case http.StatusRequestEntityTooLarge:
		return "payload_too_large"
	case http.StatusUnprocessableEntity:
		return "unprocessable"
	case http.StatusTooManyRequests:
		return "rate_limited"
	case http.StatusInternalServerError:
		return "internal"
	}
	return strings.ToLower(strings.ReplaceAll(http.StatusText(status), " ", "_"))
}

// match finds the rule that answers a request for op, and counts it.
func (fr *faultRules) match(op string) (Fault, bool) {
	fr.mu.Lock()
	defer fr.mu.Unlock()
	for _, r := range fr.list {
		if r.op != op || (r.fault.Times > 0 && r.fired >= r.fault.Times) {
			continue
		}
		if p := r.fault.Probability; p > 0 && fr.rng.Float64() >= p {
			continue
		}
		r.fired++
		return r.fault, true
	}
	return Fault{}, false
}

// applyFault answers a request from a matching rule. It reports whether the
// request was answered; a latency-only rule delays and lets it through.
func (s *Server) applyFault(w http.ResponseWriter, r *http.Request, op string) bool {
	f, ok := s.faults.match(op)
	if !ok {
		return false
	}
	if f.Latency > 0 {
		t := time.NewTimer(f.Latency)
		select {
		case <-r.Context().Done():
		case <-t.C:
		}
		t.Stop()
	}
	if f.Status == 0 {
		return false
	}
	writeError(w, &apiError{status: f.Status, code: f.Code, message: f.Message, retryAfter: int(f.RetryAfter / time.Second)})
	return true
}

// FailNext makes the next transition of the resource with the given ID fail:
// a backup or a switchover ends failed, a deployment ends in error, a new
// keyspace or bouncer is removed instead of becoming ready, a keyspace's
// settings change restores the settings before it, a bouncer resize ends
// canceled, a workflow's next step ends in error (from which retry runs it
// again); likewise a data import, a Vitess operation, a VDiff, a
// query-pattern report and an authentication-attempt export. The ID must
// be of a resource that exists and has transitions ahead of it; a deploy
// request's ID stands for its deployment's, so that it fails the
// deployment's next transition; a deployment in complete_pending_revert,
// whose window ends (or is skipped) without a transition that can fail,
// is refused with an error that says so. The ID of a resource whose transitions
// FailNext does not fail (a database's or a branch's, pending or not) is
// an error that says so, as is an unknown ID or none.
func (s *Server) FailNext(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.world.failNextOf(id); err != nil {
		return methodErr("FailNext", err)
	}
	return nil
}
