package platform_test

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/oauth2"

	"github.com/dbplatform/platform-go"
)

// loggerLines decodes the JSON lines a slog.JSONHandler wrote.
func loggerLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var lines []map[string]any
	for l := range strings.SplitSeq(strings.TrimSpace(out), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		lines = append(lines, m)
	}
	return lines
}

func debugLogger(buf *lockedBuffer) *slog.Logger {
	return slog.New(slog.NewJSONHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

func TestLoggerOneLinePerAttempt(t *testing.T) {
	t.Parallel()
	api := newWireFunc(t, sequence(
		respond(503, `{"code": "unavailable", "message": "`+testTokenSecret+`"}`),
		respond(200, databaseJSON),
	))
	buf := &lockedBuffer{}
	c := api.newClient(t, fastRetries(2), platform.WithLogger(debugLogger(buf)))
	if _, err := c.Databases.Get(t.Context(), &platform.GetDatabaseParams{Organization: "acme", Database: "app-db"}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	lines := loggerLines(t, out)
	type line struct {
		Level, Msg, Method, Path string
		Status, Attempt          float64
		HasDuration              bool
	}
	var got []line
	for _, m := range lines {
		_, hasDuration := m["duration"]
		l := line{HasDuration: hasDuration}
		l.Level, _ = m["level"].(string)
		l.Msg, _ = m["msg"].(string)
		l.Method, _ = m["method"].(string)
		l.Path, _ = m["path"].(string)
		l.Status, _ = m["status"].(float64)
		l.Attempt, _ = m["attempt"].(float64)
		got = append(got, l)
	}
	path := apiPrefix + "v1/organizations/acme/databases/app-db"
	want := []line{
		{"DEBUG", "platform request", "GET", path, 503, 1, true},
		{"DEBUG", "platform request", "GET", path, 200, 2, true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("log lines (-want +got):\n%s\nlog:\n%s", diff, out)
	}
	checkNoSecret(t, "log", out)
}

// TestLoggerAttemptsPerCall checks that attempts count per call, not per client.
func TestLoggerAttemptsPerCall(t *testing.T) {
	t.Parallel()
	api := newWireFunc(t, respond(200, userJSON))
	buf := &lockedBuffer{}
	c := api.newClient(t, fastRetries(2), platform.WithLogger(debugLogger(buf)))
	for range 3 {
		if _, err := c.Users.GetCurrent(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	var attempts []float64
	for _, m := range loggerLines(t, buf.String()) {
		a, _ := m["attempt"].(float64)
		attempts = append(attempts, a)
	}
	if diff := cmp.Diff([]float64{1, 1, 1}, attempts); diff != "" {
		t.Errorf("attempts (-want +got):\n%s", diff)
	}
}

func TestLoggerTransportError(t *testing.T) {
	t.Parallel()
	api := newWireFunc(t, hangUp(t))
	buf := &lockedBuffer{}
	c := api.newClient(t, platform.WithoutRetries(), platform.WithLogger(debugLogger(buf)))
	if _, err := c.Users.GetCurrent(t.Context()); err == nil {
		t.Fatal("no error")
	}
	out := buf.String()
	lines := loggerLines(t, out)
	if len(lines) != 1 {
		t.Fatalf("%d log lines, want 1:\n%s", len(lines), out)
	}
	if lines[0]["status"] != float64(0) || lines[0]["error"] == nil {
		t.Errorf("log line %v, want status 0 and an error", lines[0])
	}
	checkNoSecret(t, "log", out)
}

func TestLoggerHidesBearerToken(t *testing.T) {
	t.Parallel()
	const access = "access-token-never-logged"
	api := newWireFunc(t, respond(401, `{"code": "unauthorized", "message": "expired"}`))
	buf := &lockedBuffer{}
	c, err := platform.NewClient(
		platform.WithBaseURL(api.baseURL()),
		platform.WithHTTPClient(api.srv.Client()),
		platform.WithTokenSource(oauth2.StaticTokenSource(&oauth2.Token{AccessToken: access})),
		platform.WithLogger(debugLogger(buf)),
		platform.WithoutRetries(),
	)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Users.GetCurrent(t.Context())
	if err == nil {
		t.Fatal("no error")
	}
	if out := buf.String(); out == "" || strings.Contains(out, access) {
		t.Errorf("log is empty or holds the access token:\n%s", out)
	}
	if strings.Contains(err.Error(), access) {
		t.Errorf("error holds the access token: %v", err)
	}
	if got := api.requests()[0].Header.Get("Authorization"); got != "Bearer "+access {
		t.Errorf("Authorization = %q", got)
	}
}

// TestLoggerLevel checks that the lines are at debug level: an info logger
// writes nothing.
func TestLoggerLevel(t *testing.T) {
	t.Parallel()
	api := newWireFunc(t, respond(http.StatusOK, userJSON))
	buf := &lockedBuffer{}
	l := slog.New(slog.NewJSONHandler(buf, &slog.HandlerOptions{Level: slog.LevelInfo}))
	c := api.newClient(t, platform.WithoutRetries(), platform.WithLogger(l))
	if _, err := c.Users.GetCurrent(t.Context()); err != nil {
		t.Fatal(err)
	}
	if out := buf.String(); out != "" {
		t.Errorf("info-level logger got:\n%s", out)
	}
}
