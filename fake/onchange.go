package fake

import "net/http"

// WithOnChange calls fn whenever the server's state may have changed: after
// each request other than GET, HEAD and OPTIONS (API and control requests
// alike, refused ones included), and after the clock moves or runs
// transitions ([Server.Advance] included). fn runs outside the server's
// lock, on the goroutine of the request or of the clock, and must return
// quickly: the standalone binary uses it to schedule saving its -state
// file. It is not called for the other Go methods of [Server], whose caller
// knows when it changes the state.
func WithOnChange(fn func()) Option {
	return func(c *config) error {
		c.onChange = fn
		return nil
	}
}

// changed calls the WithOnChange function, if any.
func (s *Server) changed() {
	if s.onChange != nil {
		s.onChange()
	}
}

// mayChange reports whether a request of this method may change the state.
func mayChange(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	return true
}
