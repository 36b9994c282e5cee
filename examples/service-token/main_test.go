package main

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRun(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if err := run(&out); err != nil {
		t.Fatalf("run: %v\noutput:\n%s", err, out.String())
	}
	want := `databases app-db and billing-db are ready
created service token reporting with 0 permissions; it expires in 1h0m0s
reading it back shows the secret: false
granted read_branch, read_database on app-db
reporting reads app-db: state ready
reporting reads billing-db: not found (status 404, code not_found)
grant on database app-db: read_branch, read_database
after deleting the token, reporting is unauthorized
`
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
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
