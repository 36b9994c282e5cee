// Package testexit ends the module's test binaries: every test package
// calls [Main] from its TestMain.
//
// Under the race detector, a test binary that succeeds pauses at exit for
// GORACE's atexit_sleep_ms, a second by default, in which it does nothing:
// a second per test binary of the module, a tenth of `go test -race
// ./...`'s wall time on two cores (BENCHMARKS.md). Main skips that pause,
// and only that: a race found while the tests ran has failed them already
// (the testing package fails the test, or the run, that saw it), so the
// status says so, and a failing run exits as usual, with the race
// runtime's report.
package testexit

import (
	"os"
	"strings"
	"syscall"
	"testing"
)

// Main runs m's tests and exits with their status. A successful run under
// the race detector exits at once, without the race runtime's exit pause,
// unless GORACE sets atexit_sleep_ms or the run collects coverage (whose
// last writes may wait for a normal exit); otherwise it exits as os.Exit
// does.
func Main(m *testing.M) {
	code := m.Run()
	if code == 0 && raceEnabled && testing.CoverMode() == "" && !strings.Contains(os.Getenv("GORACE"), "atexit_sleep_ms") {
		syscall.Exit(0)
	}
	os.Exit(code)
}
