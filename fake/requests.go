package fake

import (
	"fmt"
	"strings"
	"sync"
)

// Request is a request the server answered, as the request log keeps it.
type Request struct {
	// Method is the request's HTTP method.
	Method string
	// Path is the request's path, decoded, as the server received it.
	Path string
	// Query is the raw query string, without the "?".
	Query string
	// Status is the response's status code.
	Status int
	// Operation is the name of the operation (as in operations.tsv) whose
	// route served the request; "" when no route matched. The fake's own
	// pages have names of their own: "_fake/" and the route's pattern for
	// the control surface, "_fake/" or "_fake/page/NAME" for the state
	// page, "oauth_device" for the device verification page.
	Operation string
	// RequestID is the ID the response carried in its X-Request-Id header.
	RequestID string
	// Reason says in words why a 4xx answer refused the request, where the
	// body the API sends does not (a missing permission is a bare 404):
	// the permission or scope the credential lacked and those it held, the
	// path value that named nothing, the field that failed. "" for a
	// success.
	Reason string
}

// requestLog keeps the most recent requests, up to its limit. It has its
// own lock: requests are logged as their responses start, whatever lock
// of the server's their handlers held.
type requestLog struct {
	mu   sync.Mutex
	list ring[Request]
}

func (l *requestLog) add(r Request) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.list.add(r)
}

// Requests returns the requests served so far, oldest first (the most
// recent ones, up to [WithRequestLogLimit]).
func (s *Server) Requests() []Request {
	s.requests.mu.Lock()
	defer s.requests.mu.Unlock()
	out := make([]Request, 0, s.requests.list.len())
	s.requests.list.all(func(r Request) { out = append(out, r) })
	return out
}

// failureLogLength is how many requests a server from NewServer logs when
// its test fails.
const failureLogLength = 20

// failureLog renders the last n requests of the log, one a line, for a
// failed test: status, method, path and query, operation, and the reason
// of a refusal.
func (s *Server) failureLog(n int) string {
	log := s.Requests()
	var b strings.Builder
	fmt.Fprintf(&b, "fake: the last %d of %d requests logged (%s):", min(n, len(log)), len(log), s.URL())
	for _, r := range log[max(len(log)-n, 0):] {
		path := r.Path
		if r.Query != "" {
			path += "?" + r.Query
		}
		fmt.Fprintf(&b, "\n  %d %s %s", r.Status, r.Method, path)
		if r.Operation != "" {
			fmt.Fprintf(&b, " (%s)", r.Operation)
		}
		if r.Reason != "" {
			fmt.Fprintf(&b, ": %s", r.Reason)
		}
	}
	return b.String()
}

// ClearRequests empties the request log.
func (s *Server) ClearRequests() {
	s.requests.mu.Lock()
	defer s.requests.mu.Unlock()
	s.requests.list.clear()
}
