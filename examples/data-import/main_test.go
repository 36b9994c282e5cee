package main

import (
	"testing"

	"github.com/dbplatform/platform-go/internal/exampletest"
)

func TestRun(t *testing.T) {
	t.Parallel()
	exampletest.Run(t, run,
		`test with a wrong password: can connect false (access denied for user "importer" at legacy.example.com:3306)`,
		"test: compatible true, suggested plan developer",
		"started importing shop from legacy.example.com:3306: prepare_data_copy_pending",
		"after 10s: import data_copy_pending, database importing",
		"after 1m10s: import switch_traffic_workflow_pending, database import_ready",
		"after 1m10s: import switch_traffic_workflow_running, database import_ready",
		"after 1m20s: import cleanup_workflow_pending, database import_ready",
		"after 1m30s: import ready, database ready",
	)
}
