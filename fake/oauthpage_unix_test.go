//go:build unix

package fake_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// TestOAuthPageUnreadHoldsUpNobody requests a large consent page on a
// connection with a tiny receive buffer that then reads only its first
// bytes: the server cannot finish writing the page, and an API request
// made meanwhile must still be answered.
func TestOAuthPageUnreadHoldsUpNobody(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	// Kernels buffer megabytes of a socket's output (Linux up to 4 MiB):
	// the page is larger, through its application's name and its state,
	// which it shows HTML-escaped (5 bytes for each quote).
	app, err := srv.CreateOAuthApplication(srv.Org(), fake.OAuthAppSpec{
		Name: strings.Repeat(`"`, 400_000), Domain: "https://app.example.com", RedirectURI: "https://app.example.com/cb",
		Scopes: []platform.Scope{platform.ScopeUserReadUser},
	})
	if err != nil {
		t.Fatal(err)
	}
	target, err := url.Parse(oauthAuthorizeURL(srv, app.ClientID, app.RedirectURI, strings.Repeat(`"`, 250_000)))
	if err != nil {
		t.Fatal(err)
	}
	// Whatever asks the server (even its organization's name) is asked
	// before the page is requested.
	orgURL, auth := srv.URL()+"v1/organizations/"+srv.Org(), admin(srv)
	dialer := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		err := c.Control(func(fd uintptr) {
			serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 1024)
		})
		if err != nil {
			return err
		}
		return serr
	}}
	conn, err := dialer.DialContext(t.Context(), "tcp", target.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", target.RequestURI(), target.Host); err != nil {
		t.Fatal(err)
	}
	// The server has rendered the page and started to send it.
	first := make([]byte, len("HTTP/1.1 200"))
	if _, err := conn.Read(first); err != nil || string(first) != "HTTP/1.1 200" {
		t.Fatalf("the page starts %q (%v), want HTTP/1.1 200", first, err)
	}

	// Generous for a loaded machine: what matters is that the request
	// completes while the page is still unread, not how fast.
	// The request goes over the network, as another client's would (the
	// fake's own client may reach into the server).
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, orgURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", auth)
	resp, err := clientOf(srv).Do(req)
	if err != nil {
		t.Fatalf("an API request while a consent page is unread: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("an API request while a consent page is unread: status %d", resp.StatusCode)
	}
}
