package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
)

// started is a run of the binary's run function in the background.
type started struct {
	info   map[string]string // the "key: value" lines printed on startup
	cancel context.CancelFunc
	done   chan struct{} // closed when run has returned err
	err    error
}

// start runs run(ctx, args, ...) until the startup lines are printed, and
// stops it when the test ends.
func start(t *testing.T, args ...string) *started {
	t.Helper()
	return startWith(t, defaultSaveDelay, args...)
}

// startWith is start with the delay of saving the -state file.
func startWith(t *testing.T, saveDelay time.Duration, args ...string) *started {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	pr, pw := io.Pipe()
	s := &started{cancel: cancel, done: make(chan struct{})}
	go func() {
		s.err = runWith(ctx, args, pw, saveDelay)
		if s.err != nil {
			pw.CloseWithError(s.err)
		} else {
			pw.Close()
		}
		close(s.done)
	}()
	var err error
	if s.info, err = readStartup(pr); len(s.info) == 0 || err != nil {
		t.Fatalf("run ended before it was ready: %v", err)
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }() // the rest of the output
	t.Cleanup(func() { s.stop(t) })
	return s
}

// readStartup reads the "key: value" lines printed on startup, up to the
// last one.
func readStartup(r io.Reader) (map[string]string, error) {
	info := map[string]string{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ": "); ok {
			info[k] = v
		}
		if strings.HasPrefix(sc.Text(), "stop with") {
			break
		}
	}
	return info, sc.Err()
}

// stop cancels the run, waits until it has returned, and returns its error.
func (s *started) stop(t *testing.T) error {
	t.Helper()
	s.cancel()
	<-s.done
	return s.err
}

// send sends an authorized request and decodes the JSON answer into v.
func send(t *testing.T, method, url, auth string, v any) int {
	t.Helper()
	return sendJSON(t, method, url, auth, "", v)
}

// sendJSON sends an authorized request with a JSON body (none when empty)
// and decodes the JSON answer into v; a nil v expects no answer body.
func sendJSON(t *testing.T, method, url, auth, body string, v any) int {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, url, r)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", auth)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := testClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if v == nil {
		if len(data) != 0 {
			t.Errorf("%s %s: %d with body %s, want none", method, url, resp.StatusCode, data)
		}
		return resp.StatusCode
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s %s: %d, decoding %s: %v", method, url, resp.StatusCode, data, err)
	}
	return resp.StatusCode
}

// clockAnswer is the body of /_fake/advance and /_fake/now.
type clockAnswer struct {
	Now     string `json:"now"`
	Virtual bool   `json:"virtual"`
}

func TestRunServesAndStops(t *testing.T) {
	t.Parallel()
	s := start(t, "-addr", "127.0.0.1:0", "-org", "globex", "-seed", "7", "-virtual-time")

	base, auth := s.info["base URL"], s.info["Authorization"]
	if !strings.HasPrefix(base, "http://127.0.0.1:") || !strings.HasSuffix(base, "/") {
		t.Fatalf("base URL %q is not a loopback http URL ending in /", base)
	}
	if got := s.info["organization"]; got != "globex" {
		t.Errorf("organization %q, want globex", got)
	}
	if want := s.info["admin token ID"] + ":" + s.info["admin token secret"]; auth != want || auth == ":" {
		t.Errorf("Authorization %q, want ID:secret %q", auth, want)
	}
	if !strings.HasPrefix(s.info["clock"], "virtual, at 2026-01-01T00:00:00.000Z") {
		t.Errorf("clock %q, want the virtual clock at its start", s.info["clock"])
	}

	// The printed token works for the API and the control endpoints.
	var org platform.Organization
	if status := send(t, "GET", base+"v1/organizations/globex", auth, &org); status != 200 || org.Name != "globex" {
		t.Errorf("GET organization: status %d, name %q", status, org.Name)
	}
	var now clockAnswer
	if status := send(t, "POST", base+"_fake/advance?d=1m", auth, &now); status != 200 {
		t.Errorf("POST /_fake/advance: status %d", status)
	}
	if diff := cmp.Diff(clockAnswer{Now: "2026-01-01T00:01:00.000Z", Virtual: true}, now); diff != "" {
		t.Errorf("POST /_fake/advance?d=1m (-want +got):\n%s", diff)
	}

	if err := s.stop(t); err != nil {
		t.Errorf("run returned %v after its context ended, want nil", err)
	}
	if _, err := testClient.Get(base + "v1/regions"); err == nil {
		t.Error("the server still answers after run returned")
	}
}

func TestRunRateLimit(t *testing.T) {
	t.Parallel()
	s := start(t, "-addr", "127.0.0.1:0", "-virtual-time", "-rate-limit", "1")
	base, auth := s.info["base URL"], s.info["Authorization"]
	var org platform.Organization
	if status := send(t, "GET", base+"v1/organizations/acme", auth, &org); status != http.StatusOK {
		t.Errorf("first request: status %d, want 200", status)
	}
	var e struct{ Code string }
	if status := send(t, "GET", base+"v1/organizations/acme", auth, &e); status != http.StatusTooManyRequests || e.Code != "rate_limited" {
		t.Errorf("second request in the minute: status %d, code %q; want 429 rate_limited", status, e.Code)
	}
}

func TestRunStrictBodies(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args       []string
		wantStatus int
	}{
		{nil, http.StatusCreated},
		{[]string{"-strict-bodies"}, http.StatusBadRequest},
	} {
		s := start(t, append([]string{"-addr", "127.0.0.1:0", "-virtual-time"}, tc.args...)...)
		var body struct {
			Name    string `json:"name"`
			Message string `json:"message"`
		}
		status := sendJSON(t, "POST", s.info["base URL"]+"v1/organizations/acme/databases", s.info["Authorization"],
			`{"name": "app", "cluster_size": "PS_10", "clustr_size": "PS_20"}`, &body)
		if status != tc.wantStatus {
			t.Errorf("%q: a misspelled field got %d, want %d", tc.args, status, tc.wantStatus)
		}
		if status == http.StatusBadRequest && !strings.Contains(body.Message, "clustr_size") {
			t.Errorf("%q: message %q does not name the field clustr_size", tc.args, body.Message)
		}
	}
}

func TestRunRealTimeByDefault(t *testing.T) {
	t.Parallel()
	s := start(t, "-addr", "127.0.0.1:0")
	if got := s.info["clock"]; got != "real time" {
		t.Errorf("clock %q, want real time", got)
	}
	if got := s.info["organization"]; got != "acme" {
		t.Errorf("organization %q, want acme", got)
	}
	var body struct {
		Code string `json:"code"`
	}
	if status := send(t, "POST", s.info["base URL"]+"_fake/advance?d=1s", s.info["Authorization"], &body); status != 422 || body.Code != "unprocessable" {
		t.Errorf("advance on the wall clock: status %d, code %q; want 422 unprocessable", status, body.Code)
	}
}

func TestRunSameSeedSameToken(t *testing.T) {
	t.Parallel()
	a := start(t, "-addr", "127.0.0.1:0", "-seed", "42")
	b := start(t, "-addr", "127.0.0.1:0", "-seed", "42")
	c := start(t, "-addr", "127.0.0.1:0", "-seed", "43")
	if a.info["Authorization"] != b.info["Authorization"] {
		t.Errorf("seed 42 twice gave tokens %q and %q", a.info["Authorization"], b.info["Authorization"])
	}
	if a.info["Authorization"] == c.info["Authorization"] {
		t.Errorf("seeds 42 and 43 gave the same token %q", a.info["Authorization"])
	}
}

func TestRunBadCommandLine(t *testing.T) {
	t.Parallel()
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { busy.Close() })

	for _, tc := range []struct {
		name      string
		args      []string
		wantUsage bool   // a usageError
		wantIn    string // in the error text
	}{
		{"unknown flag", []string{"-port", "80"}, true, "-port"},
		{"positional argument", []string{"serve"}, true, `"serve"`},
		{"seed not a number", []string{"-seed", "x"}, true, "-seed"},
		{"bad organization", []string{"-addr", "127.0.0.1:0", "-org", "Not_A_Slug"}, false, "Not_A_Slug"},
		{"address in use", []string{"-addr", busy.Addr().String()}, false, busy.Addr().String()},
		{"negative rate limit", []string{"-addr", "127.0.0.1:0", "-rate-limit", "-1"}, false, "WithRateLimit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var out strings.Builder
			err := run(t.Context(), tc.args, &out)
			if err == nil {
				t.Fatalf("run(%q) = nil, want an error", tc.args)
			}
			var uerr usageError
			if got := errors.As(err, &uerr); got != tc.wantUsage {
				t.Errorf("run(%q) = %v; usage error %v, want %v", tc.args, err, got, tc.wantUsage)
			}
			if !strings.Contains(err.Error(), tc.wantIn) {
				t.Errorf("run(%q) = %q, want it to name %s", tc.args, err, tc.wantIn)
			}
			if out.Len() != 0 {
				t.Errorf("run(%q) printed %q before failing", tc.args, out.String())
			}
		})
	}
}

// definedFlags are the flags run defines, as -h lists them.
func definedFlags(t *testing.T) []string {
	t.Helper()
	var out strings.Builder
	if err := run(t.Context(), []string{"-h"}, &out); err != nil {
		t.Fatalf("run(-h) = %v", err)
	}
	var flags []string
	for line := range strings.SplitSeq(out.String(), "\n") {
		if rest, ok := strings.CutPrefix(line, "  -"); ok {
			name, _, _ := strings.Cut(rest, " ")
			flags = append(flags, "-"+name)
		}
	}
	if len(flags) == 0 {
		t.Fatalf("run(-h) lists no flags:\n%s", out.String())
	}
	return flags
}

// TestUsageDocumentsEveryFlag checks that the usage line of the command's
// doc comment and the README's list of flags name every flag run defines,
// and the usage line nothing else.
// TestExitStatus runs the command as a child process: a bad command line
// exits with status 2, any other failure to start with 1, each with its
// error on stderr.
func TestExitStatus(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args   []string
		status int
		stderr string
	}{
		{[]string{"-port", "80"}, 2, "see platform-fake -h"},
		{[]string{"-addr", "127.0.0.1:0", "-org", "Not_A_Slug"}, 1, "Not_A_Slug"},
	} {
		cmd := exec.Command(os.Args[0], tc.args...)
		cmd.Env = append(os.Environ(), childEnv+"=1")
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != tc.status {
			t.Errorf("platform-fake %q: %v, want exit status %d", tc.args, err, tc.status)
		}
		if !strings.HasPrefix(stderr.String(), "platform-fake: ") || !strings.Contains(stderr.String(), tc.stderr) {
			t.Errorf("platform-fake %q wrote %q to stderr, want its error naming %s", tc.args, stderr.String(), tc.stderr)
		}
	}
}

func TestUsageDocumentsEveryFlag(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	var usage string
	for line := range strings.SplitSeq(string(src), "\n") {
		if rest, ok := strings.CutPrefix(line, "//\tplatform-fake "); ok {
			usage = rest
		}
	}
	if usage == "" {
		t.Fatal("the doc comment of main.go has no usage line \"//\\tplatform-fake [flags]\"")
	}
	var documented []string
	for _, m := range regexp.MustCompile(`\[(-[a-z-]+)[^\]]*\]`).FindAllStringSubmatch(usage, -1) {
		documented = append(documented, m[1])
	}
	defined := definedFlags(t)
	sort.Strings(defined)
	sort.Strings(documented)
	if diff := cmp.Diff(defined, documented); diff != "" {
		t.Errorf("flags in the usage line %q (-defined +documented):\n%s", usage, diff)
	}

	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range defined {
		if !strings.Contains(string(readme), "`"+f) {
			t.Errorf("README.md does not document %s (as `%s ...`)", f, f)
		}
	}
}

func TestRunHelp(t *testing.T) {
	t.Parallel()
	if got := definedFlags(t); len(got) < 6 {
		t.Errorf("run(-h) lists %q, want every flag", got)
	}
	var uerr usageError
	if err := run(t.Context(), []string{"-nope"}, io.Discard); !errors.As(err, &uerr) || errors.Is(err, flag.ErrHelp) {
		t.Errorf("run(-nope) = %v, want a usage error", err)
	}
}

// TestRunControlScenario drives the binary through its HTTP surface only,
// as a client in another language would: seed a user and a token, create
// a database with the token, move the clock, push a schema, and read the
// schema and the events.
func TestRunControlScenario(t *testing.T) {
	t.Parallel()
	s := start(t, "-addr", "127.0.0.1:0", "-virtual-time")
	base, admin := s.info["base URL"], s.info["Authorization"]
	must := func(status, want int, what string) {
		t.Helper()
		if status != want {
			t.Fatalf("%s: status %d, want %d", what, status, want)
		}
	}

	var user struct {
		ID string `json:"id"`
	}
	must(sendJSON(t, "POST", base+"_fake/users", admin, `{"name": "Ann Tester", "email": "ann@example.com"}`, &user), 201, "POST /_fake/users")
	must(sendJSON(t, "POST", base+"_fake/organizations/acme/members", admin, `{"user_id": "`+user.ID+`", "role": "admin"}`, nil), 204, "POST members")
	var tok struct {
		ID            string `json:"id"`
		Secret        string `json:"secret"`
		Authorization string `json:"authorization"`
	}
	must(sendJSON(t, "POST", base+"_fake/organizations/acme/service-tokens", admin,
		`{"name": "ci", "created_by": "`+user.ID+`", "permissions": ["read_databases", "create_databases"]}`, &tok), 201, "POST service-tokens")
	if tok.Authorization != tok.ID+":"+tok.Secret || tok.Secret == "" {
		t.Fatalf("token %+v: want a secret and ID:secret", tok)
	}

	var db platform.Database
	must(sendJSON(t, "POST", base+"v1/organizations/acme/databases", tok.Authorization, `{"name": "app", "cluster_size": "PS_10"}`, &db), 201, "create database")
	if db.Ready {
		t.Fatal("the new database is ready before the clock moved")
	}
	var now clockAnswer
	must(send(t, "POST", base+"_fake/advance?d=5s", admin, &now), 200, "advance")
	if now.Now != "2026-01-01T00:00:05.000Z" {
		t.Errorf("clock after advancing 5s: %s", now.Now)
	}
	must(sendJSON(t, "POST", base+"_fake/organizations/acme/databases/app/branches/main/schema", admin,
		`{"statements": ["CREATE TABLE users (id bigint NOT NULL, PRIMARY KEY (id))"]}`, nil), 204, "push schema")

	var schema platform.BranchSchema
	must(send(t, "GET", base+"v1/organizations/acme/databases/app/branches/main/schema", tok.Authorization, &schema), 200, "get schema")
	if len(schema.Tables) != 1 || schema.Tables[0].Name != "users" {
		t.Errorf("schema %+v, want the table users", schema.Tables)
	}
	var events struct {
		Data []struct {
			Name     string `json:"name"`
			Database string `json:"database"`
			At       string `json:"at"`
			Resource struct {
				Name string `json:"name"`
			} `json:"resource"`
		} `json:"data"`
	}
	must(send(t, "GET", base+"_fake/events", admin, &events), 200, "GET /_fake/events")
	type event struct{ Name, Database, At, Resource string }
	var got []event
	for _, e := range events.Data {
		got = append(got, event{e.Name, e.Database, e.At, e.Resource.Name})
	}
	if diff := cmp.Diff([]event{{"branch.ready", "app", now.Now, "main"}}, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// TestRunTimeouts checks that the server disconnects a client that sends no
// request, a kept-alive connection left idle, and a request whose response
// is not written in time. Real time: the timeouts are on the wall clock, so
// the test runs them at a few hundred milliseconds (under a second in all);
// the read deadlines only bound a failure.
func TestRunTimeouts(t *testing.T) {
	t.Parallel()
	s := start(t, "-addr", "127.0.0.1:0", "-virtual-time",
		"-read-header-timeout", "100ms", "-idle-timeout", "200ms", "-write-timeout", "200ms")
	base, auth := s.info["base URL"], s.info["Authorization"]
	host := strings.TrimSuffix(strings.TrimPrefix(base, "http://"), "/")
	// closed reports whether the server closes conn within 10 s.
	closed := func(conn net.Conn) bool {
		if err := conn.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
			t.Fatal(err)
		}
		_, err := conn.Read(make([]byte, 1))
		return errors.Is(err, io.EOF)
	}
	dial := func() net.Conn {
		conn, err := net.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		return conn
	}

	if !closed(dial()) {
		t.Error("a connection that sends no request is still open")
	}

	idle := dial()
	if err := idle.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(idle, "GET /v1/regions HTTP/1.1\r\nHost: "+host+"\r\nAuthorization: "+auth+"\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(idle)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(io.Discard, resp.Body); err != nil || resp.StatusCode != http.StatusOK || resp.Close {
		t.Fatalf("GET /v1/regions: status %d, close %v, %v; want a kept-alive 200", resp.StatusCode, resp.Close, err)
	}
	if _, err := br.ReadByte(); !errors.Is(err, io.EOF) {
		t.Errorf("an idle kept-alive connection: %v, want it closed", err)
	}

	// A fault's latency outlasts the write timeout: the response is cut off.
	if status := sendJSON(t, "POST", base+"_fake/faults", auth, `{"operation": "list_public_regions", "latency": "400ms"}`, &map[string]any{}); status != http.StatusCreated {
		t.Fatalf("installing a slow fault: status %d", status)
	}
	req, err := http.NewRequestWithContext(t.Context(), "GET", base+"v1/regions", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", auth)
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 10 * time.Second}
	if resp, err := client.Do(req); err == nil {
		resp.Body.Close()
		t.Errorf("a response written after the write timeout arrived: status %d", resp.StatusCode)
	}
}
