package fake

import (
	"errors"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
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

// conns tracks the server's connections, for Close. It is the one
// ConnState hook of the server's http.Server.
//
// Their states let Close end the idle ones (and those accepted with no
// request yet) at once, with a reset instead of the usual close. A closed
// TCP connection otherwise stays in the kernel's TIME_WAIT for a minute,
// and a test run that starts thousands of fakes leaves tens of thousands
// of them, which makes every later listen slower (the kernel searches past
// them for a free port). An idle connection has nothing left to send, so
// resetting it loses nothing; a connection busy with a request when Close
// is called finishes it and closes as usual.
//
// Their number lets Close wait until the last one has closed, and with it
// the goroutine that served it: live counts them, and the serving
// goroutine (see [Server.serve]) while it accepts, so that a connection is
// counted before Close can see the count reach zero (its StateNew hook runs
// on the accepting goroutine).
type conns struct {
	mu     sync.Mutex
	state  map[net.Conn]http.ConnState
	closed bool // Close has begun: connections idle or new from now on are closed
	// closing is closed, for the handler to read without the lock: an
	// answer begun after Close has begun says "Connection: close" (see
	// recorder.record), also before Close turns keep-alives off.
	closing atomic.Bool
	live    sync.WaitGroup // the connections open, and the accepting goroutine
	// serveErr is why the server's Serve returned before Close; see
	// [Server.serve].
	serveErr error
}

// served notes why the server's Serve returned, err: it returns it, and
// keeps it for stopped, unless Close had closed the listener (Serve then
// returns the closed listener's error, which is no news).
func (cs *conns) served(err error) error {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.closed {
		return nil
	}
	cs.serveErr = err
	return err
}

// stopped returns why the server stopped serving before Close, or nil.
func (cs *conns) stopped() error {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.serveErr
}

// track is the server's http.Server.ConnState hook.
func (cs *conns) track(c net.Conn, st http.ConnState) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	switch st {
	case http.StateClosed, http.StateHijacked:
		if _, ok := cs.state[c]; ok {
			delete(cs.state, c)
			cs.live.Done()
		}
		return
	case http.StateNew:
		if cs.state == nil {
			cs.state = map[net.Conn]http.ConnState{}
		}
		cs.live.Add(1)
		if cs.closed {
			// Accepted as Close closed the listener: it will never
			// carry a request.
			resetConn(c)
		}
	case http.StateIdle:
		if cs.closed {
			// Its request, in flight at Close, is answered: the server
			// closes it anyway, as keep-alives are off. Closed as usual,
			// not reset: its response may still be on its way.
			c.Close()
		}
	}
	cs.state[c] = st
}

// close begins Close: it closes l, the server's listener; from now on
// every connection is closed as soon as it is idle, and those idle or
// accepted with no request yet are closed now, with a reset. It reports
// whether it was the first call.
func (cs *conns) close(l net.Listener) bool {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.closed {
		return false
	}
	cs.closed = true
	cs.closing.Store(true)
	l.Close()
	for c, st := range cs.state {
		if st == http.StateIdle || st == http.StateNew {
			resetConn(c)
		}
	}
	return true
}

// resetConn closes c with a reset rather than leave it in TIME_WAIT.
func resetConn(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetLinger(0) // best effort: a failure leaves the usual close
	}
	c.Close()
}
