package main

import (
	"testing"

	"github.com/dbplatform/platform-go/internal/exampletest"
)

func TestRun(t *testing.T) {
	t.Parallel()
	exampletest.Run(t, run,
		"before:",
		"  shop     events orders",
		"  history  (no tables)",
		"workflow #1 move-events moves shop.events to history:",
		"  +0s     pending",
		"  +5s     copying",
		"  +1m5s   running",
		"  +1m5s   verifying_data",
		"  +1m35s  verified_data",
		"  +1m35s  switching_replicas",
		"  +1m45s  switched_replicas",
		"  +1m45s  switching_primaries",
		"  +1m55s  switched_primaries",
		"  +1m55s  cutting_over",
		"  +2m5s   cutover",
		"  +2m5s   completed",
		"after:",
		"  shop     orders",
		"  history  events",
	)
}
