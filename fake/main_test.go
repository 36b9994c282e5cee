package fake_test

import (
	"os"
	"runtime/debug"
	"testing"

	"github.com/dbplatform/platform-go/internal/testexit"
)

// TestMain runs the package's tests with the garbage collector at a
// quarter of its default pace (GOGC=400) unless GOGC is set: the tests
// allocate much and keep little (worlds restored, snapshotted and thrown
// away by the thousand): at the default pace the collector took about an
// eighth of the race binary's CPU (BENCHMARKS.md, "Issue 20, item 3"), for
// about 1.5 GB more memory at this one.
// What the tests assert does not depend on it (TestRestoreMemoryBounded
// counts bytes allocated, which the pace does not change). It ends
// through testexit.Main, as every test binary of the module does.
func TestMain(m *testing.M) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	testexit.Main(m)
}
