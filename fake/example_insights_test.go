package fake_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// ExampleServer_RecordQueries feeds a branch the queries a test's code
// would have run, then reads the slowest query and the errors through the
// API's query insights.
func ExampleServer_RecordQueries() {
	srv, err := fake.New()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	client, ctx := srv.Client(), context.Background()
	if _, err := client.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: srv.Org(), Name: "shop", ClusterSize: "PS_10"}); err != nil {
		log.Fatal(err)
	}
	srv.Advance(time.Hour)

	err = srv.RecordQueries(srv.Org(), "shop", "main",
		fake.QuerySample{SQL: "SELECT * FROM carts WHERE user_id = 7", Duration: 120 * time.Millisecond, RowsRead: 5000, RowsReturned: 3,
			Tags: map[string]string{"route": "cart"}},
		fake.QuerySample{SQL: "select * from carts where user_id = 9", Duration: 80 * time.Millisecond, RowsRead: 4000, RowsReturned: 1},
		fake.QuerySample{SQL: "INSERT INTO orders (id) VALUES (1)", Duration: 4 * time.Millisecond,
			Error: "Duplicate entry '1' for key 'PRIMARY'", ErrorCode: "1062"},
	)
	if err != nil {
		log.Fatal(err)
	}
	page, err := client.QueryInsights.List(ctx, &platform.ListBranchQueriesParams{Organization: srv.Org(), Database: "shop", Branch: "main"})
	if err != nil {
		log.Fatal(err)
	}
	slowest := page.Items[0]
	fmt.Printf("%s: %d runs, p50 %.0fms, %.0f rows read per row returned\n",
		slowest.NormalizedSQL, slowest.QueryCount, slowest.P50Latency, slowest.RowsReadPerReturned)
	errs, err := client.QueryInsights.ListErrors(ctx, &platform.ListQueryErrorsParams{Organization: srv.Org(), Database: "shop", Branch: "main"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(errs.Items[0].ErrorCount, "x", errs.Items[0].ErrorMessage)
	// Output:
	// SELECT * FROM carts WHERE user_id = ?: 2 runs, p50 80ms, 2250 rows read per row returned
	// 1 x Duplicate entry '1' for key 'PRIMARY'
}
