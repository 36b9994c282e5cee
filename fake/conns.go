package fake

import (
	"net"
	"net/http"
	"sync"
)

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
