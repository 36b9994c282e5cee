package fake_test

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// The GetDatabase benchmarks measure what the fake adds to a request: both
// serve GET /v1/organizations/{organization}/databases/{database} over
// loopback TCP to the same kind of plain http.Client from parallel
// goroutines; one is the fake, the other a bare handler that writes the
// fake's response bytes. Their ratio is the fake's overhead over net/http.
// See BENCHMARKS.md.

// benchDatabase is the database both benchmarks get.
const benchDatabase = "app-db"

// benchHTTPClient is the client of both benchmarks: keep-alive connections,
// enough idle ones for every parallel goroutine.
func benchHTTPClient(b *testing.B) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = 256
	t.MaxIdleConnsPerHost = 256
	b.Cleanup(t.CloseIdleConnections)
	return &http.Client{Transport: t}
}

// benchFake starts a fake holding benchDatabase and returns it with the
// database's URL.
func benchFake(b *testing.B) (*fake.Server, string) {
	b.Helper()
	srv, err := fake.New()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(srv.Close)
	_, err = srv.Client().Databases.Create(b.Context(), &platform.CreateDatabaseParams{
		Organization: srv.Org(), Name: benchDatabase, ClusterSize: "PS_10",
	})
	if err != nil {
		b.Fatal(err)
	}
	srv.Advance(fake.DefaultTimings().DatabaseReady)
	return srv, srv.URL() + "v1/organizations/" + srv.Org() + "/databases/" + benchDatabase
}

// benchGet gets url with the Authorization header auth from parallel
// goroutines, each reading the whole body, and fails on any status but 200.
func benchGet(b *testing.B, client *http.Client, url, auth string) {
	b.Helper()
	b.ReportAllocs()
	template := benchRequest(b, url, auth)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		req := template.Clone(template.Context())
		for pb.Next() {
			if !benchDo(b, client, req) {
				return
			}
		}
	})
}

// benchRequest is a GET of url with the Authorization header auth; each
// goroutine sends a clone of its own, again and again.
func benchRequest(b *testing.B, url, auth string) *http.Request {
	b.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Authorization", auth)
	return req
}

// benchDo sends req with client and reads the whole body. It reports
// whether the request succeeded with 200, and fails the benchmark if not.
func benchDo(b *testing.B, client *http.Client, req *http.Request) bool {
	resp, err := client.Do(req)
	if err != nil {
		b.Error(err)
		return false
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		b.Errorf("GET %s: status %d, read error %v", req.URL, resp.StatusCode, err)
		return false
	}
	return true
}

// benchResponse is a response as it came over the wire.
type benchResponse struct {
	header http.Header
	body   []byte
}

// benchCapture gets url once with client.
func benchCapture(b *testing.B, client *http.Client, url, auth string) benchResponse {
	b.Helper()
	req, err := http.NewRequestWithContext(b.Context(), http.MethodGet, url, nil)
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Authorization", auth)
	resp, err := client.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		b.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		b.Fatalf("GET %s: status %d: %s", url, resp.StatusCode, body)
	}
	return benchResponse{header: resp.Header, body: body}
}

// BenchmarkGetDatabase_Fake measures the fake serving get_database:
// routing, authentication, the permission check, rendering, JSON encoding
// and the request log, over loopback HTTP.
func BenchmarkGetDatabase_Fake(b *testing.B) {
	srv, url := benchFake(b)
	client := benchHTTPClient(b)
	benchGet(b, client, url, srv.AdminToken().Authorization())
}

// BenchmarkGetDatabase_BareHandler measures net/http alone: a handler that
// writes the fake's get_database response (the same body and headers,
// captured from a fake first) on the same kind of loopback listener, to the
// same kind of client.
func BenchmarkGetDatabase_BareHandler(b *testing.B) {
	srv, url := benchFake(b)
	client := benchHTTPClient(b)
	auth := srv.AdminToken().Authorization()
	bareURL := benchBare(b, client, srv, url, auth)
	srv.Close()
	benchGet(b, client, bareURL, auth)
}

// benchBare starts the bare handler of BenchmarkGetDatabase_BareHandler:
// it writes the response the fake gives to a GET of url (captured first,
// with its headers but Date), and is checked to give the same bytes. It
// returns the bare handler's URL for the same path.
func benchBare(b *testing.B, client *http.Client, srv *fake.Server, url, auth string) string {
	b.Helper()
	want := benchCapture(b, client, url, auth)
	header := http.Header{}
	for k, v := range want.header {
		if k != "Date" { // net/http writes its own
			header[k] = v
		}
	}
	bare := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		maps.Copy(h, header)
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(want.body)
	}))
	b.Cleanup(bare.Close)
	bareURL := bare.URL + "/v1/organizations/" + srv.Org() + "/databases/" + benchDatabase

	got := benchCapture(b, client, bareURL, auth)
	if !bytes.Equal(got.body, want.body) || got.header.Get("Content-Length") != want.header.Get("Content-Length") {
		b.Fatalf("the bare handler's response differs from the fake's:\n%s\n%s", got.body, want.body)
	}
	return bareURL
}

// BenchmarkGetDatabase_Paired measures the same two servers as
// BenchmarkGetDatabase_Fake and BenchmarkGetDatabase_BareHandler, both
// running, in one loop: each goroutine sends a request to one and then to
// the other, the order swapped every iteration, and adds up the time each
// side took. A machine that slows down for a moment slows both sides alike,
// so the ratio it reports (fake/bare, the fake's time over the bare
// handler's) moves far less from run to run than the ratio of two
// benchmarks run one after the other. ns/op is one pair of requests.
func BenchmarkGetDatabase_Paired(b *testing.B) {
	srv, url := benchFake(b)
	client := benchHTTPClient(b)
	auth := srv.AdminToken().Authorization()
	bareURL := benchBare(b, client, srv, url, auth)
	fakeTemplate, bareTemplate := benchRequest(b, url, auth), benchRequest(b, bareURL, auth)
	var fakeNS, bareNS atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		fakeReq := fakeTemplate.Clone(fakeTemplate.Context())
		bareReq := bareTemplate.Clone(bareTemplate.Context())
		var fakeSum, bareSum time.Duration
		for i := 0; pb.Next(); i++ {
			first, second, firstSum, secondSum := fakeReq, bareReq, &fakeSum, &bareSum
			if i%2 == 1 {
				first, second, firstSum, secondSum = bareReq, fakeReq, &bareSum, &fakeSum
			}
			start := time.Now()
			if !benchDo(b, client, first) {
				return
			}
			mid := time.Now()
			if !benchDo(b, client, second) {
				return
			}
			*firstSum += mid.Sub(start)
			*secondSum += time.Since(mid)
		}
		fakeNS.Add(int64(fakeSum))
		bareNS.Add(int64(bareSum))
	})
	if bareNS.Load() > 0 {
		b.ReportMetric(float64(fakeNS.Load())/float64(bareNS.Load()), "fake/bare")
	}
}

// BenchmarkGetDatabase_Encode measures encoding/json encoding the
// get_database body alone (the platform.Database a client decodes from the
// fake, checked byte for byte against the fake's body), into a reused
// buffer: the part of BenchmarkGetDatabase_Handler's work that no change to
// the request path removes while the fake encodes with encoding/json.
func BenchmarkGetDatabase_Encode(b *testing.B) {
	srv, url := benchFake(b)
	db, err := srv.Client().Databases.Get(b.Context(), &platform.GetDatabaseParams{
		Organization: srv.Org(), Database: benchDatabase,
	})
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(db); err != nil {
		b.Fatal(err)
	}
	want := benchCapture(b, benchHTTPClient(b), url, srv.AdminToken().Authorization())
	if got := bytes.TrimSuffix(buf.Bytes(), []byte("\n")); !bytes.Equal(got, want.body) {
		b.Fatalf("the encoded database differs from the fake's body:\n%s\n%s", got, want.body)
	}
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := json.NewEncoder(&buf).Encode(db); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(buf.Len()))
}

// BenchmarkGetDatabase_Handler measures the fake's own work on
// get_database without the network: the request goes straight to the
// server's ServeHTTP, and the response to a writer that keeps only its
// status. It is what BenchmarkGetDatabase_Fake adds to
// BenchmarkGetDatabase_BareHandler, measured alone, so that a change to the
// request path shows through the noise of loopback HTTP on a busy machine.
func BenchmarkGetDatabase_Handler(b *testing.B) {
	srv, url := benchFake(b)
	req := httptest.NewRequestWithContext(b.Context(), http.MethodGet, url, nil)
	req.Header.Set("Authorization", srv.AdminToken().Authorization())
	b.ReportAllocs()
	for b.Loop() {
		w := &discardWriter{header: http.Header{}}
		srv.ServeHTTP(w, req)
		if w.status != http.StatusOK {
			b.Fatalf("GET %s: status %d", url, w.status)
		}
	}
}

// discardWriter is a ResponseWriter that keeps the status and drops the
// body; each request gets a fresh one, as net/http gives each response a
// header of its own.
type discardWriter struct {
	header http.Header
	status int
}

func (w *discardWriter) Header() http.Header { return w.header }

func (w *discardWriter) WriteHeader(status int) { w.status = status }

func (w *discardWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return len(b), nil
}
