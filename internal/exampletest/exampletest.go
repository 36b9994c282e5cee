// Package exampletest checks the runnable programs under examples/: that
// they succeed, print the lines their readers are promised, and print the
// same on every run.
package exampletest

import (
	"bytes"
	"io"
	"slices"
	"strings"
	"testing"
)

// Run runs run twice: both runs must succeed and print the same output,
// and the output must hold every line of want.
func Run(t *testing.T, run func(io.Writer) error, want ...string) {
	t.Helper()
	var first, second bytes.Buffer
	if err := run(&first); err != nil {
		t.Fatalf("run: %v\noutput:\n%s", err, first.String())
	}
	if err := run(&second); err != nil {
		t.Fatalf("second run: %v\noutput:\n%s", err, second.String())
	}
	if first.String() != second.String() {
		t.Errorf("two runs printed different output:\n%s\n---\n%s", first.String(), second.String())
	}
	lines := strings.Split(strings.TrimSpace(first.String()), "\n")
	for _, line := range want {
		if !slices.Contains(lines, line) {
			t.Errorf("output lacks the line %q; got:\n%s", line, first.String())
		}
	}
}
