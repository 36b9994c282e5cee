package main

import (
	"testing"

	"github.com/dbplatform/platform-go/internal/exampletest"
)

func TestRun(t *testing.T) {
	t.Parallel()
	exampletest.Run(t, run,
		"databases app-db and billing-db are ready",
		"created service token reporting with 0 permissions; it expires in 1h0m0s",
		"reading it back shows the secret: false",
		"granted read_branch, read_database on app-db",
		"reporting reads app-db: state ready",
		"reporting reads billing-db: not found (status 404, code not_found)",
		"grant on database app-db: read_branch, read_database",
		"after deleting the token, reporting is unauthorized",
	)
}
