package fake

import "sync"

// Request is a request the server answered, as the request log keeps it.
type Request struct {
	Method    string
	Path      string
	Query     string
	Status    int
	Operation string // "" when no route matched
	RequestID string
}

// requestLog keeps the most recent requests, up to limit.
type requestLog struct {
	mu    sync.Mutex
	list  []Request
	limit int
}

func (l *requestLog) add(r Request) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.list = append(l.list, r)
	if len(l.list) >= 2*l.limit {
		l.list = append(l.list[:0:0], l.list[len(l.list)-l.limit:]...)
	}
}

// Requests returns the requests served so far, oldest first (the most
// recent ones, up to [WithRequestLogLimit]).
func (s *Server) Requests() []Request {
	s.requests.mu.Lock()
	defer s.requests.mu.Unlock()
	start := max(len(s.requests.list)-s.requests.limit, 0)
	return append([]Request(nil), s.requests.list[start:]...)
}

// ClearRequests empties the request log.
func (s *Server) ClearRequests() {
	s.requests.mu.Lock()
	defer s.requests.mu.Unlock()
	s.requests.list = nil
}
