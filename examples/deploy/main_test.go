package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if err := run(&out); err != nil {
		t.Fatalf("run: %v\noutput:\n%s", err, out.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	for _, want := range []string{
		"deploy request #1 is ready with 2 operations:",
		"  create shop.prices",
		"  alter shop.products",
		"deployment is pending_cutover",
		"deployment is complete_pending_revert: the schema is live and can be reverted",
		"deployment is complete; deploy request #1 is closed",
		"  queued            2026-01-01T00:00:15Z  +1s",
		"  started           2026-01-01T00:00:17Z  +3s",
		"  ready to cut over 2026-01-01T00:00:27Z  +13s",
		"  cut over          2026-01-01T00:00:31Z  +17s",
		"  closed            2026-01-01T00:00:31Z  +17s",
	} {
		if !slices.Contains(lines, want) {
			t.Errorf("output lacks the line %q; got:\n%s", want, out.String())
		}
	}
}

func TestRunIsDeterministic(t *testing.T) {
	t.Parallel()
	var a, b bytes.Buffer
	if err := run(&a); err != nil {
		t.Fatal(err)
	}
	if err := run(&b); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Errorf("two runs printed different output:\n%s\n---\n%s", a.String(), b.String())
	}
}
