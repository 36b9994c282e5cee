package main

import (
	"testing"

	"github.com/dbplatform/platform-go/internal/exampletest"
)

func TestRun(t *testing.T) {
	t.Parallel()
	exampletest.Run(t, run,
		"recorded 4320 queries on shop/main over 2026-01-01",
		"slowest queries of the day (total time, runs, p99, max):",
		"    57.6s  1440   40.0ms   40.0ms  SELECT id, name FROM products WHERE name LIKE ?",
		"     4.9s  1440    2.0ms  200.0ms  SELECT id, total FROM orders WHERE customer_id = ?",
		"     4.3s  1440    3.0ms    3.0ms  UPDATE carts SET quantity = ? WHERE id = ?",
		"anomalies:",
		"  20:00 to 20:10: 10 minutes over the baseline",
		"    moved with (r=1.00) SELECT id, total FROM orders WHERE customer_id = ?",
		"invoice for 2026-01-01 to 2026-02-01: 39.75",
		"     39.75  PS-10 cluster, 744 hours at 39.00 a month",
	)
}
