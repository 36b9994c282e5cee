package platform_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/oauth2"

	"github.com/dbplatform/platform-go"
)

var sentinels = map[string]error{
	"ErrInvalid":         platform.ErrInvalid,
	"ErrUnauthorized":    platform.ErrUnauthorized,
	"ErrForbidden":       platform.ErrForbidden,
	"ErrNotFound":        platform.ErrNotFound,
	"ErrPayloadTooLarge": platform.ErrPayloadTooLarge,
	"ErrUnprocessable":   platform.ErrUnprocessable,
	"ErrGone":            platform.ErrGone,
	"ErrRateLimited":     platform.ErrRateLimited,
	"ErrInternal":        platform.ErrInternal,
}

// TestErrorClassification follows the decisions' error table: each status
// matches its sentinel and no other.
func TestErrorClassification(t *testing.T) {
	t.Parallel()
	tests := []struct {
		status   int
		code     string
		sentinel string
	}{
		{400, "bad_request", "ErrInvalid"},
		{401, "unauthorized", "ErrUnauthorized"},
		{403, "forbidden", "ErrForbidden"},
		{404, "not_found", "ErrNotFound"},
		{413, "payload_too_large", "ErrPayloadTooLarge"},
		{410, "gone", "ErrGone"},
		{422, "unprocessable", "ErrUnprocessable"},
		{429, "rate_limited", "ErrRateLimited"},
		{500, "internal", "ErrInternal"},
		{502, "bad_gateway", "ErrInternal"},
		{503, "service_unavailable", "ErrInternal"},
		{504, "gateway_timeout", "ErrInternal"},
	}
	for _, tc := range tests {
		t.Run(http.StatusText(tc.status), func(t *testing.T) {
			t.Parallel()
			api := newWireFunc(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("X-Request-Id", "req-42")
				if tc.status == 429 || tc.status == 503 {
					w.Header().Set("Retry-After", "7")
				}
				writeBody(w, tc.status, `{"code": "`+tc.code+`", "message": "database app-db is in state pending"}`)
			})
			_, err := api.newClient(t).Databases.Get(t.Context(), &platform.GetDatabaseParams{Organization: "acme", Database: "app-db"})
			if err == nil {
				t.Fatal("no error")
			}
			for name, s := range sentinels {
				if got, want := errors.Is(err, s), name == tc.sentinel; got != want {
					t.Errorf("errors.Is(err, %s) = %v, want %v", name, got, want)
				}
			}
			if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("the API's error %v matches a context's error", err)
			}
			var apiErr *platform.Error
			if !errors.As(err, &apiErr) {
				t.Fatalf("errors.As(*platform.Error) failed for %T", err)
			}
			want := &platform.Error{
				StatusCode: tc.status,
				Code:       tc.code,
				Message:    "database app-db is in state pending",
				RequestID:  "req-42",
				Method:     "GET",
				Path:       apiPrefix + "v1/organizations/acme/databases/app-db",
			}
			if tc.status == 429 || tc.status == 503 {
				want.RetryAfter = 7 * time.Second
			}
			if diff := cmp.Diff(want, apiErr); diff != "" {
				t.Errorf("*Error mismatch (-want +got):\n%s", diff)
			}
			if n := api.count(); n != 1 {
				t.Errorf("server saw %d requests, want 1", n)
			}
		})
	}
}

func TestErrorBodies(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		status      int
		contentType string
		body        string
		wantCode    string
		wantMessage string
		wantChoices *platform.TargetChoices
	}{
		{"HTML", 502, "text/html", "<html><body>upstream unavailable</body></html>", "", "Bad Gateway", nil},
		{"empty", 404, "", "", "", "Not Found", nil},
		{"JSON without code or message", 500, "application/json", `{"error": "boom"}`, "", "Internal Server Error", nil},
		{"JSON null", 400, "application/json", `null`, "", "Bad Request", nil},
		{"JSON array", 422, "application/json", `["x"]`, "", "Unprocessable Entity", nil},
		{"code only", 403, "application/json", `{"code": "forbidden"}`, "forbidden", "", nil},
		{
			// Keys of a proxy's or framework's error body must not overwrite
			// what the client knows about the request.
			"foreign keys", 404, "application/json",
			`{"code": "not_found", "message": "m", "path": "/elsewhere", "method": "PUT", "statuscode": 200, "requestid": "fake", "retryafter": 5}`,
			"not_found", "m", nil,
		},
		// A field of the wrong type is dropped alone: the others still count.
		{"code of the wrong type", 404, "application/json", `{"code": 404, "message": "no such database"}`, "", "no such database", nil},
		{"message of the wrong type", 422, "application/json", `{"code": "unprocessable", "message": {"a": 1}}`, "unprocessable", "", nil},
		{"available of the wrong type", 400, "application/json", `{"code": "bad_request", "message": "pick a keyspace", "available": "ks"}`, "bad_request", "pick a keyspace", nil},
		{
			"available", 400, "application/json", `{"code": "bad_request", "message": "pick a keyspace", "available": {"keyspaces": ["ks"]}}`,
			"bad_request", "pick a keyspace", &platform.TargetChoices{Keyspaces: []string{"ks"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			api := newWireFunc(t, func(w http.ResponseWriter, r *http.Request) {
				if tc.contentType != "" {
					w.Header().Set("Content-Type", tc.contentType)
				}
				w.WriteHeader(tc.status)
				_, _ = w.Write([]byte(tc.body))
			})
			_, err := api.newClient(t).Organizations.Get(t.Context(), &platform.GetOrganizationParams{Organization: "acme"})
			var apiErr *platform.Error
			if !errors.As(err, &apiErr) {
				t.Fatalf("error %v (%T) is not a *platform.Error", err, err)
			}
			want := &platform.Error{
				StatusCode: tc.status,
				Code:       tc.wantCode,
				Message:    tc.wantMessage,
				Available:  tc.wantChoices,
				Method:     "GET",
				Path:       apiPrefix + "v1/organizations/acme",
			}
			if diff := cmp.Diff(want, apiErr); diff != "" {
				t.Errorf("*Error mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestErrorText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  *platform.Error
		want string
	}{
		{
			"full",
			&platform.Error{StatusCode: 422, Code: "unprocessable", Message: "name is taken", RequestID: "req-1", Method: "POST", Path: "/v1/organizations/acme/databases"},
			"platform: POST /v1/organizations/acme/databases: 422 unprocessable: name is taken (request req-1)",
		},
		{"status only", &platform.Error{StatusCode: 500}, "platform: 500"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := tc.err.Error(); got != tc.want {
				t.Errorf("Error() = %q, want %q", got, tc.want)
			}
		})
	}

	t.Run("from a response", func(t *testing.T) {
		t.Parallel()
		api := newWireFunc(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Request-Id", "req-77")
			writeBody(w, 422, `{"code": "unprocessable", "message": "name \"app-db\" is already taken"}`)
		})
		_, err := api.newClient(t).Databases.Create(t.Context(), &platform.CreateDatabaseParams{Organization: "acme", Name: "app-db", ClusterSize: "PS_10"})
		if err == nil {
			t.Fatal("no error")
		}
		text := err.Error()
		for _, part := range []string{"POST", apiPrefix + "v1/organizations/acme/databases", "422", "unprocessable", `name "app-db" is already taken`, "req-77"} {
			if !strings.Contains(text, part) {
				t.Errorf("Error() = %q lacks %q", text, part)
			}
		}
	})
}

// TestErrorsHideTheToken checks that neither an API error nor a transport
// error repeats the token's secret.
func TestErrorsHideTheToken(t *testing.T) {
	t.Parallel()
	t.Run("401", func(t *testing.T) {
		t.Parallel()
		api := newWireFunc(t, func(w http.ResponseWriter, r *http.Request) {
			// A server that echoes what it was sent must not get it into the text either.
			writeBody(w, 401, `{"code": "unauthorized", "message": "unknown service token"}`)
		})
		_, err := api.newClient(t).Users.GetCurrent(t.Context())
		if !errors.Is(err, platform.ErrUnauthorized) {
			t.Fatalf("error = %v, want ErrUnauthorized", err)
		}
		checkNoSecret(t, "error text", err.Error())
	})
	t.Run("transport error", func(t *testing.T) {
		t.Parallel()
		// The server hangs up on every attempt.
		api := newWireFunc(t, hangUp(t))
		for _, retry := range []platform.Option{platform.WithoutRetries(), fastRetries(1)} {
			_, err := api.newClient(t, retry).Organizations.Get(t.Context(), &platform.GetOrganizationParams{Organization: "acme"})
			if err == nil {
				t.Fatal("no error from a closed server")
			}
			var apiErr *platform.Error
			if errors.As(err, &apiErr) {
				t.Errorf("a transport error is an *Error: %v", err)
			}
			if !strings.Contains(err.Error(), "v1/organizations/acme") {
				t.Errorf("transport error %q does not name the path", err)
			}
			checkNoSecret(t, "transport error text", err.Error())
		}
	})
}

func checkNoSecret(t *testing.T, what, s string) {
	t.Helper()
	if strings.Contains(s, testTokenSecret) {
		t.Errorf("%s contains the token secret: %q", what, s)
	}
}

func TestArgErrorText(t *testing.T) {
	t.Parallel()
	err := &platform.ArgError{Arg: "per_page", Reason: "101 is outside 1..100"}
	want := "platform: invalid argument per_page: 101 is outside 1..100"
	if diff := cmp.Diff(want, err.Error()); diff != "" {
		t.Errorf("Error() (-want +got):\n%s", diff)
	}
	// An ArgError is the client's 400: it matches ErrInvalid, as the
	// server's refusal of the same argument would, and no other sentinel.
	for name, s := range sentinels {
		if got, want := errors.Is(err, s), s == platform.ErrInvalid; got != want {
			t.Errorf("errors.Is(ArgError, %s) = %t, want %t", name, got, want)
		}
	}
	wrapped := fmt.Errorf("listing: %w", err)
	if !errors.Is(wrapped, platform.ErrInvalid) {
		t.Errorf("errors.Is(wrapped ArgError, ErrInvalid) = false")
	}
}

// TestErrorsRedactEchoedCredentials points clients at servers that echo
// the request's Authorization value back, in an error body or in a
// redirect's Location: the service token's secret and the access token
// stay out of every error text, each replaced by platform.Redacted.
func TestErrorsRedactEchoedCredentials(t *testing.T) {
	t.Parallel()
	const access = "access-3cho3d-by-the-server"
	servers := []struct {
		name    string
		handler http.HandlerFunc
	}{
		{"body", func(w http.ResponseWriter, r *http.Request) {
			writeBody(w, 401, fmt.Sprintf(`{"code": "unauthorized %s", "message": "bad credentials %s"}`,
				r.Header.Get("Authorization"), r.Header.Get("Authorization")))
		}},
		{"Location", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Location", "http://[::1%zz/"+r.Header.Get("Authorization"))
			w.WriteHeader(http.StatusFound)
		}},
	}
	credentials := []struct {
		name   string
		option platform.Option
		secret string
	}{
		{"service token", platform.WithServiceToken(testTokenID, testTokenSecret), testTokenSecret},
		{"token source", platform.WithTokenSource(oauth2.StaticTokenSource(&oauth2.Token{AccessToken: access})), access},
	}
	for _, srv := range servers {
		for _, cred := range credentials {
			t.Run(srv.name+"/"+cred.name, func(t *testing.T) {
				t.Parallel()
				api := newWireFunc(t, srv.handler)
				c, err := platform.NewClient(platform.WithBaseURL(api.baseURL()), platform.WithHTTPClient(api.srv.Client()),
					cred.option, platform.WithoutRetries())
				if err != nil {
					t.Fatal(err)
				}
				_, getErr := c.Databases.Get(t.Context(), &platform.GetDatabaseParams{Organization: "acme", Database: "app-db"})
				req, err := c.NewRequest(t.Context(), "GET", "v1/organizations/acme", nil)
				if err != nil {
					t.Fatal(err)
				}
				_, doErr := c.Do(req, nil)
				for what, err := range map[string]error{"method": getErr, "Do": doErr} {
					if err == nil {
						t.Fatalf("%s: no error", what)
					}
					for _, text := range []string{err.Error(), fmt.Sprintf("%+v %#v", err, err)} {
						if strings.Contains(text, cred.secret) {
							t.Errorf("%s: error text holds the credential: %s", what, text)
						}
					}
					if !strings.Contains(err.Error(), platform.Redacted) {
						t.Errorf("%s: error %q lacks %q where the credential was", what, err, platform.Redacted)
					}
				}
			})
		}
	}
}
