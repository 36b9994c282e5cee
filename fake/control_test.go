package fake_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// controlResponse is what a raw control request got back.
type controlResponse struct {
	status int
	header http.Header
	body   []byte
}

// controlDo sends a request with net/http alone, as a client in another
// language would; auth is the Authorization header, none when empty.
func controlDo(t *testing.T, method, url, auth string) controlResponse {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return controlResponse{status: resp.StatusCode, header: resp.Header, body: body}
}

// controlDecode decodes a JSON response body into a new T.
func controlDecode[T any](t *testing.T, r controlResponse) T {
	t.Helper()
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q, want application/json", ct)
	}
	var v T
	if err := json.Unmarshal(r.body, &v); err != nil {
		t.Fatalf("decoding %s: %v", r.body, err)
	}
	return v
}

type controlClock struct {
	Now     string `json:"now"`
	Virtual bool   `json:"virtual"`
}

type controlError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func controlStamp(t time.Time) string { return t.UTC().Format(platform.TimeLayout) }

func TestControlAdvanceRunsTransitions(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	client := srv.Client()
	ctx := t.Context()
	if _, err := client.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: srv.Org(), Name: "app-db", ClusterSize: "PS_10"}); err != nil {
		t.Fatal(err)
	}
	auth := srv.AdminToken().Authorization()

	r := controlDo(t, http.MethodPost, srv.URL()+"_fake/advance?d=5s", auth)
	if r.status != http.StatusOK {
		t.Fatalf("POST /_fake/advance: status %d, body %s", r.status, r.body)
	}
	want := controlClock{Now: controlStamp(fake.DefaultStart.Add(5 * time.Second)), Virtual: true}
	if diff := cmp.Diff(want, controlDecode[controlClock](t, r)); diff != "" {
		t.Errorf("POST /_fake/advance (-want +got):\n%s", diff)
	}
	if got, want := srv.Now(), fake.DefaultStart.Add(5*time.Second); !got.Equal(want) {
		t.Errorf("srv.Now() = %v, want %v", got, want)
	}
	db, err := client.Databases.Get(ctx, &platform.GetDatabaseParams{Organization: srv.Org(), Database: "app-db"})
	if err != nil {
		t.Fatal(err)
	}
	if !db.Ready || db.State != platform.DatabaseReady {
		t.Errorf("after advancing 5s: ready = %v, state = %q; want true, ready", db.Ready, db.State)
	}

	r = controlDo(t, http.MethodGet, srv.URL()+"_fake/now", auth)
	if r.status != http.StatusOK {
		t.Fatalf("GET /_fake/now: status %d, body %s", r.status, r.body)
	}
	if diff := cmp.Diff(want, controlDecode[controlClock](t, r)); diff != "" {
		t.Errorf("GET /_fake/now after advance (-want +got):\n%s", diff)
	}
}

func TestControlAdvanceAddsUp(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	auth := srv.AdminToken().Authorization()
	for _, d := range []string{"1s", "1m30s", "0s", "250ms"} {
		if r := controlDo(t, http.MethodPost, srv.URL()+"_fake/advance?d="+d, auth); r.status != http.StatusOK {
			t.Fatalf("advance %s: status %d, body %s", d, r.status, r.body)
		}
	}
	got := controlDecode[controlClock](t, controlDo(t, http.MethodGet, srv.URL()+"_fake/now", auth))
	want := controlClock{Now: controlStamp(fake.DefaultStart.Add(91*time.Second + 250*time.Millisecond)), Virtual: true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("GET /_fake/now (-want +got):\n%s", diff)
	}
}

func TestControlRealTime(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t, fake.WithRealTime())
	auth := srv.AdminToken().Authorization()

	got := controlDecode[controlClock](t, controlDo(t, http.MethodGet, srv.URL()+"_fake/now", auth))
	if got.Virtual {
		t.Errorf("GET /_fake/now: virtual = true with WithRealTime")
	}
	if _, err := time.Parse(time.RFC3339, got.Now); err != nil {
		t.Errorf("GET /_fake/now: now = %q: %v", got.Now, err)
	}

	r := controlDo(t, http.MethodPost, srv.URL()+"_fake/advance?d=5s", auth)
	if r.status != http.StatusUnprocessableEntity {
		t.Fatalf("advance with a real clock: status %d, want 422; body %s", r.status, r.body)
	}
	if e := controlDecode[controlError](t, r); e.Code != "unprocessable" || !strings.Contains(e.Message, "wall clock") {
		t.Errorf("advance with a real clock: body %+v; want code unprocessable and a message naming the wall clock", e)
	}
}

func TestControlRequests(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	client := srv.Client()
	ctx := t.Context()
	if _, err := client.Organizations.Get(ctx, &platform.GetOrganizationParams{Organization: srv.Org()}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Databases.Get(ctx, &platform.GetDatabaseParams{Organization: srv.Org(), Database: "nope"}); err == nil {
		t.Fatal("getting a missing database: no error")
	}
	auth := srv.AdminToken().Authorization()
	if r := controlDo(t, http.MethodPost, srv.URL()+"_fake/advance?d=1s", auth); r.status != http.StatusOK {
		t.Fatalf("advance: status %d, body %s", r.status, r.body)
	}

	r := controlDo(t, http.MethodGet, srv.URL()+"_fake/requests", auth)
	if r.status != http.StatusOK {
		t.Fatalf("GET /_fake/requests: status %d, body %s", r.status, r.body)
	}
	type entry struct {
		Method    string `json:"method"`
		Path      string `json:"path"`
		Query     string `json:"query"`
		Status    int    `json:"status"`
		Operation string `json:"operation"`
		RequestID string `json:"request_id"`
	}
	got := controlDecode[struct {
		Data []entry `json:"data"`
	}](t, r).Data

	// The log as JSON is the Go log, field for field.
	var want []entry
	for _, q := range srv.Requests() {
		if q.Path == "/_fake/requests" {
			continue // logged after it answered
		}
		want = append(want, entry{q.Method, q.Path, q.Query, q.Status, q.Operation, q.RequestID})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("GET /_fake/requests (-want +got):\n%s", diff)
	}

	// And it says what happened, in order.
	type seen struct {
		Method, Path string
		Status       int
		Operation    string
	}
	var gotSeen []seen
	for _, e := range got {
		if e.RequestID == "" {
			t.Errorf("request %s %s has no request ID", e.Method, e.Path)
		}
		gotSeen = append(gotSeen, seen{e.Method, e.Path, e.Status, e.Operation})
	}
	wantSeen := []seen{
		{"GET", "/v1/organizations/" + srv.Org(), 200, "get_organization"},
		{"GET", "/v1/organizations/" + srv.Org() + "/databases/nope", 404, "get_database"},
		{"POST", "/_fake/advance", 200, "_fake/advance"},
	}
	if diff := cmp.Diff(wantSeen, gotSeen); diff != "" {
		t.Errorf("request log (-want +got):\n%s", diff)
	}
}

func TestControlErrors(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	admin := srv.AdminToken().Authorization()
	limited, err := srv.CreateServiceToken(srv.Org(), fake.TokenSpec{Name: "reader", Permissions: []string{"read_organization"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, method, path, auth string
		wantStatus               int
		wantCode                 string
		wantInMessage            string
	}{
		{"no credentials", "GET", "_fake/now", "", 401, "unauthorized", "admin token"},
		{"wrong secret", "GET", "_fake/now", srv.AdminToken().ID + ":sk_wrong", 401, "unauthorized", "admin token"},
		{"another token", "GET", "_fake/requests", limited.Authorization(), 401, "unauthorized", "admin token"},
		{"no credentials, unknown endpoint", "GET", "_fake/reset", "", 401, "unauthorized", "admin token"},
		{"unknown endpoint", "GET", "_fake/reset", admin, 404, "not_found", "/_fake/reset"},
		{"advance by GET", "GET", "_fake/advance?d=1s", admin, 405, "method_not_allowed", "POST"},
		{"now by POST", "POST", "_fake/now", admin, 405, "method_not_allowed", "GET"},
		{"advance without d", "POST", "_fake/advance", admin, 400, "bad_request", "d is required"},
		{"advance by a number", "POST", "_fake/advance?d=5", admin, 400, "bad_request", `"5"`},
		{"advance backwards", "POST", "_fake/advance?d=-1s", admin, 400, "bad_request", "non-negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := controlDo(t, tc.method, srv.URL()+tc.path, tc.auth)
			if r.status != tc.wantStatus {
				t.Fatalf("status %d, want %d; body %s", r.status, tc.wantStatus, r.body)
			}
			e := controlDecode[controlError](t, r)
			if e.Code != tc.wantCode || !strings.Contains(e.Message, tc.wantInMessage) {
				t.Errorf("body %+v; want code %q and a message containing %q", e, tc.wantCode, tc.wantInMessage)
			}
			if r.header.Get("X-Request-Id") == "" {
				t.Error("no X-Request-Id header")
			}
			if tc.wantStatus == http.StatusMethodNotAllowed && r.header.Get("Allow") != tc.wantInMessage {
				t.Errorf("Allow = %q, want %q", r.header.Get("Allow"), tc.wantInMessage)
			}
		})
	}
	// None of the refused requests moved the clock.
	if got := srv.Now(); !got.Equal(fake.DefaultStart) {
		t.Errorf("srv.Now() = %v after refused requests, want %v", got, fake.DefaultStart)
	}
}
