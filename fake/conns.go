package fake

import (
	"errors"
	"net"
	"net/http"
	"sync"
	"time"
)

// ServerTimeouts are the timeouts of the server's HTTP connections, as
// [net/http.Server] has them; a zero field is no timeout. A server has
// none unless [WithServerTimeouts] sets them; the standalone binary sets
// all three (see its -read-header-timeout, -write-timeout and
// -idle-timeout flags).
type ServerTimeouts struct {
	// ReadHeader is how long a client has to send a request's headers,
	// from the moment the connection is opened or, on a kept-alive
	// connection, the next request starts: a client that sends them more
	// slowly, or opens a connection and sends nothing, is disconnected.
	ReadHeader time.Duration
	// Write is how long the server has to write a response, from the end
	// of its request's headers: a client that reads it more slowly is
	// disconnected, and so is one waiting on a longer wait of the server's
	// (a fault rule's Latency, POST /_fake/deliveries/flush?timeout=).
	Write time.Duration
	// Idle is how long a kept-alive connection may wait for its next
	// request before the server closes it.
	Idle time.Duration
}

// WithServerTimeouts sets the timeouts of the server's HTTP connections, so
// that a server shared by many clients keeps no connection open forever
// for a client that is slow, gone, or never reads. Negative timeouts are
// an error.
func WithServerTimeouts(t ServerTimeouts) Option {
	return func(c *config) error {
		if t.ReadHeader < 0 || t.Write < 0 || t.Idle < 0 {
			return errors.New("fake: WithServerTimeouts: timeouts must not be negative")
		}
		c.timeouts = t
		return nil
	}
}

// set gives srv the timeouts t.
func (t ServerTimeouts) set(srv *http.Server) {
	srv.ReadHeaderTimeout = t.ReadHeader
	srv.WriteTimeout = t.Write
	srv.IdleTimeout = t.Idle
}

// idleConns tracks the state of the server's connections, so that Close
// can end the idle ones with a reset instead of the usual close. A closed
// TCP connection otherwise stays in the kernel's TIME_WAIT for a minute,
// and a test run that starts thousands of fakes leaves tens of thousands
// of them, which makes every later listen slower (the kernel searches past
// them for a free port). An idle connection has nothing left to send, so
// resetting it loses nothing; a connection busy with a request when Close
// is called finishes it and closes as usual.
type idleConns struct {
	mu    sync.Mutex
	state map[net.Conn]http.ConnState
}

// track is the server's http.Server.ConnState hook.
func (ic *idleConns) track(c net.Conn, st http.ConnState) {
	ic.mu.Lock()
	defer ic.mu.Unlock()
	switch st {
	case http.StateClosed, http.StateHijacked:
		delete(ic.state, c)
	default:
		if ic.state == nil {
			ic.state = map[net.Conn]http.ConnState{}
		}
		ic.state[c] = st
	}
}

// resetOnClose makes the idle connections send a reset when they are
// closed, rather than enter TIME_WAIT.
func (ic *idleConns) resetOnClose() {
	ic.mu.Lock()
	defer ic.mu.Unlock()
	for c, st := range ic.state {
		if tc, ok := c.(*net.TCPConn); ok && (st == http.StateIdle || st == http.StateNew) {
			_ = tc.SetLinger(0) // best effort: a failure leaves the usual close
		}
	}
}
