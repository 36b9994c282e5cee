package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dbplatform/platform-go/internal/testexit"
)

// testClient is the client of the tests' requests. Its transport is not
// http.DefaultTransport, whose idle connections any httptest server in the
// process closes when it closes, breaking a request about to reuse one.
// It keeps no idle connection either: the tests start and stop many
// servers on ports the system hands out, and a connection kept to one
// that has stopped could be reused for a new one given the same port,
// where the request would meet a reset.
var testClient = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}

// childEnv, set to 1 in a test binary's environment, makes the binary run
// main with its arguments instead of the tests: the command as a child
// process, which a test can kill.
const childEnv = "PLATFORM_FAKE_TEST_CHILD"

// childSaveDelayEnv, in a child's environment, is the longest delay
// between a change and the save of its -state file (a time.Duration),
// instead of the command's second: a test of the saves' promise scales it
// down to take less of the wall clock.
const childSaveDelayEnv = "PLATFORM_FAKE_TEST_SAVE_DELAY"

// TestMain runs the command when the binary is a child, the tests
// otherwise, ending through testexit.Main as every test binary of the
// module does. The tests mostly wait on child processes and the wall
// clock, not on the processor, so more of them run at once than the
// processors: -test.parallel is 8 unless given.
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		delay := defaultSaveDelay
		if d, err := time.ParseDuration(os.Getenv(childSaveDelayEnv)); err == nil {
			delay = d
		}
		os.Exit(runMain(delay))
	}
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		if err := flag.Set("test.parallel", "8"); err != nil {
			panic(err)
		}
	}
	testexit.Main(m)
}

// child is the command running as a child process.
type child struct {
	cmd    *exec.Cmd
	info   map[string]string // the "key: value" lines printed on startup
	stderr *lockedBuffer
	done   chan struct{} // closed when the process has exited; then err is set
	err    error
}

// startChild starts the command with args in a child process and waits
// for its startup lines; the process is killed when the test ends.
func startChild(t *testing.T, args ...string) *child {
	t.Helper()
	return startChildEnv(t, nil, args...)
}

// startChildEnv is startChild with env ("KEY=value") added to the child's
// environment.
func startChildEnv(t *testing.T, env []string, args ...string) *child {
	t.Helper()
	c := &child{cmd: exec.Command(os.Args[0], args...), stderr: &lockedBuffer{}, done: make(chan struct{})}
	c.cmd.Env = append(append(os.Environ(), childEnv+"=1"), env...)
	c.cmd.Stderr = c.stderr
	out, err := c.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.cmd.Process.Kill() // an error says it has exited already
		<-c.done
	})
	info, err := readStartup(out)
	c.info = info
	go func() {
		_, _ = io.Copy(io.Discard, out)
		c.err = c.cmd.Wait()
		close(c.done)
	}()
	if c.info["base URL"] == "" {
		t.Fatalf("the child ended before it was ready: %v; stderr: %s", err, c.stderr)
	}
	return c
}

// signal sends sig to the child and returns its exit status once it has
// exited.
func (c *child) signal(t *testing.T, sig os.Signal) int {
	t.Helper()
	if err := c.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	<-c.done
	var exit *exec.ExitError
	if c.err != nil && !errors.As(c.err, &exit) {
		t.Fatalf("waiting for the child: %v", c.err)
	}
	return c.cmd.ProcessState.ExitCode()
}

// createDatabase creates a database through the child's API and reports
// whether the server acknowledged it.
func (c *child) createDatabase(name string) error {
	body := fmt.Sprintf(`{"name":%q,"cluster_size":"PS_10"}`, name)
	req, err := http.NewRequest("POST", c.info["base URL"]+"v1/organizations/acme/databases", strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", c.info["Authorization"])
	req.Header.Set("Content-Type", "application/json")
	resp, err := testClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return err
	}
	if resp.StatusCode != http.StatusCreated {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	return nil
}

// lockedBuffer is a bytes.Buffer safe for a writer and a reader at once.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// waitFor polls cond on the wall clock until it holds or within has
// passed, and reports whether it held.
func waitFor(within time.Duration, cond func() bool) bool {
	for deadline := time.Now().Add(within); ; time.Sleep(10 * time.Millisecond) {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}
