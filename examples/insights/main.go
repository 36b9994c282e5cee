// Command insights records a day of a shop's traffic into the in-memory
// fake and reads it back the way a dashboard would: the slowest queries
// of the day, the latency anomaly an evening spike caused and the queries
// that moved with it, and, once the month is over, the invoice for what
// the database ran. The fake runs no SQL: a test (or this program) tells
// it what ran with RecordQueries, and every view is derived from those
// samples. The fake's clock is virtual, so the output is the same on
// every run.
//
//	go run ./examples/insights
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "insights:", err)
		os.Exit(1)
	}
}

// The queries of the day: what each does, how long it usually takes, and
// the route of the application that sends it.
var workload = []struct {
	sql      string
	route    string
	took     time.Duration
	read     int64
	returned int64
	affected int64
}{
	{"SELECT id, total FROM orders WHERE customer_id = %d", "orders", 2 * time.Millisecond, 12, 12, 0},
	{"SELECT id, name FROM products WHERE name LIKE '%%lamp%d%%'", "search", 40 * time.Millisecond, 5000, 20, 0},
	{"UPDATE carts SET quantity = %d WHERE id = 7", "cart", 3 * time.Millisecond, 1, 0, 1},
}

// spikeFrom and spikeFor place the evening's incident: the orders query
// slows down a hundredfold for ten minutes from 20:00.
const (
	spikeFrom = 20 * time.Hour
	spikeFor  = 10 * time.Minute
)

// run does the walkthrough and writes what it found to w.
func run(w io.Writer) error {
	ctx := context.Background()
	srv, err := fake.New()
	if err != nil {
		return err
	}
	defer srv.Close()
	client := srv.Client()
	org, db := srv.Org(), "shop"

	if _, err := client.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: org, Name: db, ClusterSize: "PS_10"}); err != nil {
		return fmt.Errorf("creating %s: %w", db, err)
	}
	if _, err := client.Databases.Wait(ctx, &platform.GetDatabaseParams{Organization: org, Database: db}); err != nil {
		return fmt.Errorf("waiting for %s: %w", db, err)
	}

	// A day passes; then the day's traffic is recorded, each query once a
	// minute, as a load test or a replay of a production log would.
	day := srv.Now()
	srv.Advance(24 * time.Hour)
	var samples []fake.QuerySample
	for m := time.Duration(0); m < 24*time.Hour; m += time.Minute {
		for i, q := range workload {
			took := q.took
			if i == 0 && m >= spikeFrom && m < spikeFrom+spikeFor {
				took *= 100
			}
			samples = append(samples, fake.QuerySample{
				SQL:          fmt.Sprintf(q.sql, int(m/time.Minute)%97),
				Tags:         map[string]string{"route": q.route},
				RowsRead:     q.read,
				RowsReturned: q.returned,
				RowsAffected: q.affected,
				Duration:     took,
				Time:         day.Add(m),
			})
		}
	}
	if err := srv.RecordQueries(org, db, "main", samples...); err != nil {
		return err
	}
	fmt.Fprintf(w, "recorded %d queries on %s/main over %s\n", len(samples), db, day.Format("2006-01-02"))

	if err := slowest(ctx, w, client, org, db); err != nil {
		return err
	}
	if err := anomalies(ctx, w, client, org, db); err != nil {
		return err
	}
	return invoice(ctx, w, srv, client, org)
}

// slowest prints the day's queries by the time they took in all.
func slowest(ctx context.Context, w io.Writer, client *platform.Client, org, db string) error {
	page, err := client.QueryInsights.List(ctx, &platform.ListBranchQueriesParams{
		Organization: org, Database: db, Branch: "main",
		Sort: "totalTime", Dir: platform.OrderDesc,
	})
	if err != nil {
		return fmt.Errorf("listing queries: %w", err)
	}
	fmt.Fprintln(w, "slowest queries of the day (total time, runs, p99, max):")
	for _, q := range page.Items {
		fmt.Fprintf(w, "  %6.1fs %5d %6.1fms %6.1fms  %s\n",
			float64(q.SumTotalDurationMillis)/1000, q.QueryCount, q.P99Latency, q.MaxLatency, q.NormalizedSQL)
	}
	return nil
}

// anomalies prints the day's latency anomalies and the queries that
// moved with each.
func anomalies(ctx context.Context, w io.Writer, client *platform.Client, org, db string) error {
	fmt.Fprintln(w, "anomalies:")
	for a, err := range client.QueryInsights.AllAnomalies(ctx, &platform.ListAnomaliesParams{Organization: org, Database: db, Branch: "main"}) {
		if err != nil {
			return fmt.Errorf("listing anomalies: %w", err)
		}
		fmt.Fprintf(w, "  %s to %s: %d minutes over the baseline\n",
			a.PeriodStart.Format("15:04"), a.PeriodEnd.Format("15:04"), a.MinutesInViolation)
		full, err := client.QueryInsights.GetAnomaly(ctx, &platform.GetAnomalyParams{Organization: org, Database: db, Branch: "main", ID: a.ID})
		if err != nil {
			return fmt.Errorf("reading anomaly %s: %w", a.ID, err)
		}
		for _, c := range full.Correlations {
			fmt.Fprintf(w, "    moved with (r=%.2f) %s\n", c.R, c.NormalizedSQL)
		}
	}
	return nil
}

// invoice lets the month end on the fake's clock and prints the invoice
// the organization is issued for what its database ran.
func invoice(ctx context.Context, w io.Writer, srv *fake.Server, client *platform.Client, org string) error {
	now := srv.Now()
	monthEnd := time.Date(now.Year(), now.Month()+1, 1, 0, 0, 0, 0, time.UTC)
	srv.Advance(monthEnd.Sub(now) + time.Minute)
	for inv, err := range client.Billing.AllInvoices(ctx, &platform.ListInvoicesParams{Organization: org}) {
		if err != nil {
			return fmt.Errorf("listing invoices: %w", err)
		}
		fmt.Fprintf(w, "invoice for %s to %s: %s\n",
			inv.BillingPeriodStart.Format("2006-01-02"), inv.BillingPeriodEnd.Format("2006-01-02"), inv.Total)
		for item, err := range client.Billing.AllInvoiceLineItems(ctx, &platform.ListInvoiceLineItemsParams{Organization: org, ID: inv.ID}) {
			if err != nil {
				return fmt.Errorf("listing the items of invoice %s: %w", inv.ID, err)
			}
			fmt.Fprintf(w, "  %8.2f  %s\n", item.Subtotal, item.Description)
		}
	}
	return nil
}
