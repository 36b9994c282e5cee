package fake

import (
	"fmt"
	"net/http"
	"slices"
	"sync"
)

// The control endpoints of failure injection: FailNext, and fault rules
// that a client installs, reads (with their Fired count) and removes by ID
// (see failnext.go and faults.go).

// controlFaultRoutes are the failure endpoints.
func controlFaultRoutes() []controlRoute {
	return []controlRoute{
		{http.MethodPost, "fail-next", http.StatusNoContent, ctlBody((*Server).controlFailNext)},
		{http.MethodPost, "faults", http.StatusCreated, ctlBody((*Server).controlInjectFault)},
		{http.MethodGet, "faults", http.StatusOK, ctl((*Server).controlFaults)},
		{http.MethodGet, "faults/{id}", http.StatusOK, ctl((*Server).controlFault)},
		{http.MethodDelete, "faults/{id}", http.StatusNoContent, ctl((*Server).controlRemoveFault)},
	}
}

// controlFaultSet holds the fault rules installed over HTTP, by the IDs
// the control surface gave them.
type controlFaultSet struct {
	mu    sync.Mutex
	seq   int
	rules []controlFaultRule // in order of installation
}

// controlFaultRule is a rule installed over HTTP.
type controlFaultRule struct {
	id   string
	rule *FaultRule
}

// add records a new rule and returns its ID.
func (fs *controlFaultSet) add(r *FaultRule) string {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.seq++
	id := fmt.Sprintf("fault-%d", fs.seq)
	fs.rules = append(fs.rules, controlFaultRule{id: id, rule: r})
	return id
}

// all returns the rules, in order of installation.
func (fs *controlFaultSet) all() []controlFaultRule {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return slices.Clone(fs.rules)
}

// find returns the rule with the ID, or nil.
func (fs *controlFaultSet) find(id string) *FaultRule {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for _, r := range fs.rules {
		if r.id == id {
			return r.rule
		}
	}
	return nil
}

// remove forgets the rule with the ID and returns it, or nil.
func (fs *controlFaultSet) remove(id string) *FaultRule {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for i, r := range fs.rules {
		if r.id == id {
			fs.rules = slices.Delete(fs.rules, i, i+1)
			return r.rule
		}
	}
	return nil
}

// controlFailNextBody is the body of POST /_fake/fail-next.
type controlFailNextBody struct {
	// ID is the resource's ID.
	ID string `json:"id"`
}

// controlFailNext serves POST /_fake/fail-next.
func (s *Server) controlFailNext(_ *http.Request, b *controlFailNextBody) (any, error) {
	if b.ID == "" {
		return nil, missing("id")
	}
	return nil, refused(s.FailNext(b.ID))
}

// controlFaultBody is the body of POST /_fake/faults: the operation and a
// [Fault], with durations as Go duration strings.
type controlFaultBody struct {
	Operation   string  `json:"operation"`
	Status      int     `json:"status"`
	Code        string  `json:"code"`
	Message     string  `json:"message"`
	RetryAfter  string  `json:"retry_after"`
	Times       int     `json:"times"`
	Probability float64 `json:"probability"`
	Latency     string  `json:"latency"`
}

// controlFault is an installed rule as the control surface shows it: its
// ID, its fault with the defaults filled in, and how often it fired.
type controlFault struct {
	ID string `json:"id"`
	controlFaultBody
	Fired int `json:"fired"`
}

// controlInjectFault serves POST /_fake/faults.
func (s *Server) controlInjectFault(_ *http.Request, b *controlFaultBody) (any, error) {
	retryAfter, err := parseControlDuration("retry_after", b.RetryAfter)
	if err != nil {
		return nil, err
	}
	latency, err := parseControlDuration("latency", b.Latency)
	if err != nil {
		return nil, err
	}
	rule, err := s.InjectFault(b.Operation, Fault{
		Status: b.Status, Code: b.Code, Message: b.Message, RetryAfter: retryAfter,
		Times: b.Times, Probability: b.Probability, Latency: latency,
	})
	if err != nil {
		return nil, refused(err)
	}
	return renderControlFault(s.ctlFaults.add(rule), rule), nil
}

// controlFaults serves GET /_fake/faults: the rules installed over HTTP
// and not removed, in order of installation.
func (s *Server) controlFaults(*http.Request) (any, error) {
	rules := s.ctlFaults.all()
	out := controlList[controlFault]{Data: make([]controlFault, 0, len(rules))}
	for _, r := range rules {
		out.Data = append(out.Data, renderControlFault(r.id, r.rule))
	}
	return out, nil
}

// controlFault serves GET /_fake/faults/{id}.
func (s *Server) controlFault(r *http.Request) (any, error) {
	id := r.PathValue("id")
	rule := s.ctlFaults.find(id)
	if rule == nil {
		return nil, noControlFault(id)
	}
	return renderControlFault(id, rule), nil
}

// controlRemoveFault serves DELETE /_fake/faults/{id}.
func (s *Server) controlRemoveFault(r *http.Request) (any, error) {
	id := r.PathValue("id")
	rule := s.ctlFaults.remove(id)
	if rule == nil {
		return nil, noControlFault(id)
	}
	rule.Remove()
	return nil, nil
}

// noControlFault is the 404 for a fault ID that names no rule.
func noControlFault(id string) error {
	return errf(http.StatusNotFound, "not_found", "no fault rule %q installed over HTTP (or it was removed)", id)
}

// renderControlFault shows a rule with its ID.
func renderControlFault(id string, r *FaultRule) controlFault {
	f := r.fault
	return controlFault{
		ID: id,
		controlFaultBody: controlFaultBody{
			Operation: r.op, Status: f.Status, Code: f.Code, Message: f.Message, RetryAfter: f.RetryAfter.String(),
			Times: f.Times, Probability: f.Probability, Latency: f.Latency.String(),
		},
		Fired: r.Fired(),
	}
}
