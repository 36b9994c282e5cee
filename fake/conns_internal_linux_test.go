package fake

import (
	"net"
	"net/http"
	"syscall"
	"testing"
)

// TestServeErrorKept checks that when the server stops serving before
// Close (its listener fails with an error Serve does not retry: here the
// process shuts the listening socket down, and accept fails with EINVAL),
// the error is kept for NewServer to report, and the server refuses
// connections; Close then works as ever and keeps the error.
func TestServeErrorKept(t *testing.T) {
	t.Parallel()
	s, err := New()
	if err != nil {
		t.Fatal(err)
	}
	rc, err := s.listener.(*net.TCPListener).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var shutErr error
	if err := rc.Control(func(fd uintptr) { shutErr = syscall.Shutdown(int(fd), syscall.SHUT_RDWR) }); err != nil || shutErr != nil {
		t.Fatal(err, shutErr)
	}
	// No connection is open: live counts only the accepting goroutine,
	// which has noted the error when it returns.
	s.conns.live.Wait()
	if err := s.conns.stopped(); err == nil {
		t.Fatal("stopped() = nil after Serve failed, want its error")
	}
	req, err := http.NewRequestWithContext(t.Context(), "GET", s.URL(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp, err := (&http.Transport{}).RoundTrip(req); err == nil {
		resp.Body.Close()
		t.Errorf("a request after Serve failed: status %d, want an error", resp.StatusCode)
	}
	s.Close()
	if err := s.conns.stopped(); err == nil {
		t.Error("stopped() = nil after Close, want Serve's error kept")
	}
}
