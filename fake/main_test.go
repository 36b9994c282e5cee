package fake_test

import (
	"os"
	"runtime/debug"
	"testing"
)

// TestMain runs the package's tests with the garbage collector at a
// quarter of its default pace (GOGC=400) unless GOGC is set: the tests
// allocate much and keep little (worlds restored, snapshotted and thrown
// away by the thousand), so the collector's work is a sixth of the test
// binary's CPU under -race at the default, for a heap that stays small.
// What the tests assert does not depend on it (TestRestoreMemoryBounded
// counts bytes allocated, which the pace does not change).
func TestMain(m *testing.M) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	os.Exit(m.Run())
}
