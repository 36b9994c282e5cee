package fake

import "sync"

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
	// route served the request; "" when no route matched.
	Operation string
	// RequestID is the ID the response carried in its X-Request-Id header.
	RequestID string
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

// ClearRequests empties the request log.
func (s *Server) ClearRequests() {
	s.requests.mu.Lock()
	defer s.requests.mu.Unlock()
	s.requests.list.clear()
}
