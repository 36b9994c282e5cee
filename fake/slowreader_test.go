package fake_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// slowReader sends a GET of target to srv on a raw connection with a small
// receive buffer, reads the response's status line and then nothing more:
// a client that never reads the rest of a large response. The connection
// is closed when the test ends, before srv is.
func slowReader(t *testing.T, srv *fake.Server, target string) {
	t.Helper()
	host := strings.TrimSuffix(strings.TrimPrefix(srv.URL(), "http://"), "/")
	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if err := conn.(*net.TCPConn).SetReadBuffer(4 << 10); err != nil {
		t.Fatal(err)
	}
	if _, err := fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, host); err != nil {
		t.Fatal(err)
	}
	status, err := bufio.NewReaderSize(conn, 16).ReadString('\n')
	if err != nil || !strings.Contains(status, " 200 ") {
		t.Fatalf("status line %q, %v; want 200", status, err)
	}
}

// TestSlowReaderHoldsNoLock checks that a client that never reads a large
// response (a query-patterns file of 16 MB, more than the kernel buffers
// between the two ends hold) holds up no other request: the server writes
// a response after releasing its lock. A request that changes the world
// needs the lock to itself, and completes.
func TestSlowReaderHoldsNoLock(t *testing.T) {
	t.Parallel()
	e := newQPEnv(t)
	// 4,000 patterns of 4 KB each: distinct tables make distinct patterns.
	cols := strings.Repeat("a_rather_long_column_name, ", 150)
	samples := make([]fake.QuerySample, 4000)
	for i := range samples {
		samples[i] = fake.QuerySample{SQL: fmt.Sprintf("select %sid from table_%d", cols, i), Tables: []string{"users"}}
	}
	if err := e.srv.RecordQueries(e.org, "app", "main", samples...); err != nil {
		t.Fatal(err)
	}
	r := e.create()
	e.srv.Advance(fake.DefaultTimings().QueryPatternsReport)
	slowReader(t, e.srv, qpSignedLocation(t, e, r.ID))

	// A bound for the failure only: with the fix the request completes at
	// once.
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if _, err := e.c.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: e.org, Name: "while-stuck", ClusterSize: "PS_10"}); err != nil {
		t.Fatalf("creating a database while a client does not read: %v", err)
	}
}
