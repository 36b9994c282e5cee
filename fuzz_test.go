package platform_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dbplatform/platform-go"
)

// The SDK's decoding of what it receives, fuzzed: webhook deliveries and
// their signatures, API responses of any status, headers and body, and
// list pages that lie about what follows. The seed corpora are in
// testdata/fuzz/<target>.

// FuzzParseWebhook parses any delivery, signed with the right secret
// (rightSig) or carrying any signature header. A delivery is accepted only
// when the header is the body's HMAC under the secret and the body decodes;
// with the right signature, every body that decodes is accepted.
func FuzzParseWebhook(f *testing.F) {
	f.Fuzz(func(t *testing.T, body []byte, header, secret string, rightSig bool) {
		if rightSig {
			header = platform.SignWebhook(body, secret)
		}
		req := httptest.NewRequestWithContext(t.Context(), http.MethodPost, "/hook", bytes.NewReader(body))
		req.Header.Set(platform.WebhookSignatureHeader, header)
		d, err := platform.ParseWebhook(req, secret)

		var argErr *platform.ArgError
		want, _ := hex.DecodeString(platform.SignWebhook(body, secret))
		got, hexErr := hex.DecodeString(strings.TrimSpace(header))
		signed := hexErr == nil && hmac.Equal(got, want)
		decodes := json.Unmarshal(body, new(platform.WebhookDelivery)) == nil
		switch {
		case secret == "":
			if !errors.As(err, &argErr) {
				t.Fatalf("an empty secret: %v, want an *ArgError", err)
			}
		case len(body) > platform.MaxWebhookBody:
			var tooBig *http.MaxBytesError
			if !errors.As(err, &tooBig) {
				t.Fatalf("a body of %d bytes: %v, want an *http.MaxBytesError", len(body), err)
			}
		case !signed:
			if !errors.Is(err, platform.ErrWebhookSignature) {
				t.Fatalf("header %q does not sign the body, yet ParseWebhook = %v", header, err)
			}
		case decodes != (err == nil):
			t.Fatalf("a signed body that decodes: %v; one that does not: %v", decodes, err)
		}
		if err != nil {
			if d != nil {
				t.Errorf("ParseWebhook returned a delivery with the error %v", err)
			}
			return
		}
		// The typed resources decode or fail; they never panic.
		_, _ = d.BranchResource()
		_, _ = d.DeployRequestResource()
		_, _ = d.DatabaseResource()
		_, _ = d.KeyspaceResource()
		_ = d.Time()
	})
}

// fuzzServer answers every request with the status, headers and body of
// answer, and counts the requests.
func fuzzServer(t *testing.T, answer func(r *http.Request) (int, string, string, []byte)) (*platform.Client, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		status, contentType, retryAfter, body := answer(r)
		if contentType != "" {
			w.Header().Set("Content-Type", contentType)
		}
		if retryAfter != "" {
			w.Header().Set("Retry-After", retryAfter)
		}
		w.WriteHeader(status)
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	client, err := platform.NewClient(
		platform.WithBaseURL(srv.URL+"/"),
		platform.WithServiceToken("tok-id", "sk_fuzz_secret"),
		platform.WithHTTPClient(srv.Client()),
		platform.WithoutRetries(),
		platform.WithSleep(func(ctx context.Context, _ time.Duration) error { return ctx.Err() }),
	)
	if err != nil {
		t.Fatal(err)
	}
	return client, &n
}

// FuzzDecodeResponse answers a get, a list and a delete with any status
// (200 to 599), Content-Type, Retry-After and body. A success is returned
// only for a 2xx; an error status is an *Error with that status; a 2xx
// whose body is not JSON is an error.
func FuzzDecodeResponse(f *testing.F) {
	f.Fuzz(func(t *testing.T, code uint16, contentType, retryAfter string, body []byte) {
		status := 200 + int(code)%400
		if strings.ContainsFunc(contentType+retryAfter, func(r rune) bool { return r < ' ' || r == 0x7f }) {
			t.Skip("not a header value a server could send")
		}
		client, _ := fuzzServer(t, func(*http.Request) (int, string, string, []byte) { return status, contentType, retryAfter, body })
		ctx := t.Context()
		check := func(what string, err error) {
			t.Helper()
			var apiErr *platform.Error
			switch {
			case status >= 400:
				if !errors.As(err, &apiErr) || apiErr.StatusCode != status {
					t.Fatalf("%s: status %d gave %v, want an *Error with that status", what, status, err)
				}
				if strings.Contains(err.Error(), "sk_fuzz_secret") {
					t.Errorf("%s: the error names the token's secret: %v", what, err)
				}
			case err == nil && status >= 300:
				t.Fatalf("%s: status %d succeeded", what, status)
			}
		}
		db, err := client.Databases.Get(ctx, &platform.GetDatabaseParams{Organization: "acme", Database: "app"})
		check("get", err)
		// A 204 has no body to decode; any other success starts with JSON.
		if err == nil && (db == nil || (status != http.StatusNoContent && json.NewDecoder(bytes.NewReader(body)).Decode(new(any)) != nil)) {
			t.Errorf("get: %d with body %q gave %v and no error", status, body, db)
		}
		page, err := client.Databases.List(ctx, &platform.ListDatabasesParams{Organization: "acme"})
		check("list", err)
		if err == nil && page == nil {
			t.Error("list: no page and no error")
		}
		check("delete", client.Databases.Delete(ctx, &platform.DeleteDatabaseParams{Organization: "acme", Database: "app"}))
	})
}

// FuzzPagination ranges over a list whose first page is first and every
// other page rest, whatever they say of the pages that follow. The
// iteration ends after at most three pages (a page may only point forward,
// and the same answer twice cannot), yields what the pages hold, and
// reports an error once, last.
func FuzzPagination(f *testing.F) {
	f.Fuzz(func(t *testing.T, first, rest []byte) {
		client, fetches := fuzzServer(t, func(r *http.Request) (int, string, string, []byte) {
			if p := r.URL.Query().Get("page"); p == "" || p == "1" {
				return 200, "application/json", "", first
			}
			return 200, "application/json", "", rest
		})
		items, errs := 0, 0
		for db, err := range client.Databases.All(t.Context(), &platform.ListDatabasesParams{Organization: "acme"}) {
			if errs > 0 {
				t.Fatal("the iteration went on after an error")
			}
			if err != nil {
				errs++
				continue
			}
			if db == nil {
				t.Error("a nil database without an error")
			}
			items++
		}
		if n := fetches.Load(); n > 3 {
			t.Errorf("%d pages fetched, want at most 3", n)
		}
		if errs == 0 && items > countItems(first)+2*countItems(rest) {
			t.Errorf("%d items from pages of %d and %d", items, countItems(first), countItems(rest))
		}
	})
}

// countItems is how many items a page body holds, 0 when it does not
// decode.
func countItems(body []byte) int {
	var p struct {
		Data []json.RawMessage `json:"data"`
	}
	if json.Unmarshal(body, &p) != nil {
		return 0
	}
	return len(p.Data)
}
