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
		"created database app-db in acme: state pending, ready false",
		"database app-db is ready after 7s of virtual time",
		"created 30 more databases",
		"listed 31 databases in 4 pages of up to 8, oldest first: app-db, ...",
		"database no-such-db: not found (status 404, code not_found)",
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
