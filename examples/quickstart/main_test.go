package main

import (
	"testing"

	"github.com/dbplatform/platform-go/internal/exampletest"
)

func TestRun(t *testing.T) {
	t.Parallel()
	exampletest.Run(t, run,
		"created database app-db in acme: state pending, ready false",
		"database app-db is ready after 5s of virtual time",
		"created 30 more databases",
		"listed 31 databases in 4 pages of up to 8, oldest first: app-db, ...",
		"database no-such-db: not found (status 404, code not_found)",
	)
}
