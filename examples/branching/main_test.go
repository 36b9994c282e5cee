package main

import (
	"testing"

	"github.com/dbplatform/platform-go/internal/exampletest"
)

func TestRun(t *testing.T) {
	t.Parallel()
	exampletest.Run(t, run,
		"1. database inventory is ready",
		"2. branch feature of main is ready",
		"3. feature's tables: items, stock",
		"4. backup before-launch is pending",
		"   backup before-launch is success, 1572864 bytes, kept until 2026-01-08",
		"5. branch restored restored from feature: items, stock",
		"6. password reporting (shown once: true) expires at 01:00",
		"   an hour later: expired true, shown in the response: false",
	)
}
