package main

import (
	"testing"

	"github.com/dbplatform/platform-go/internal/exampletest"
)

func TestRun(t *testing.T) {
	t.Parallel()
	exampletest.Run(t, run,
		"1. keyspace customers is ready with 2 shards",
		"   shop       customers orders",
		"   customers  (no tables)",
		"2. workflow move-customers moves shop.customers to customers: pending",
		"3. the copy is done: running",
		"4. VDiff completed on shards -80 80-: 2000 rows compared, mismatch: false",
		"5. traffic switched: customers routes to customers.customers",
		"6. workflow move-customers is completed",
		"   shop       orders",
		"   customers  customers",
		"7. customers.customers: CREATE TABLE `customers` (id bigint NOT NULL, email varchar(255), PRIMARY KEY (id))",
	)
}
