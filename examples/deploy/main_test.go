package main

import (
	"testing"

	"github.com/dbplatform/platform-go/internal/exampletest"
)

func TestRun(t *testing.T) {
	t.Parallel()
	exampletest.Run(t, run,
		"deploy request #1 is ready with 2 operations:",
		"  create shop.prices",
		"  alter shop.products",
		"deployment is pending_cutover",
		"deployment is complete_pending_revert: the schema is live and can be reverted",
		"deployment is complete; deploy request #1 is closed",
		"  queued            2026-01-01T00:00:11Z  +1s",
		"  started           2026-01-01T00:00:13Z  +3s",
		"  ready to cut over 2026-01-01T00:00:23Z  +13s",
		"  cut over          2026-01-01T00:00:24Z  +14s",
		"  closed            2026-01-01T00:00:24Z  +14s",
	)
}
