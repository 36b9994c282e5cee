package platform_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// The wire forms of billing, written from the reference's schemas rather
// than from the SDK's types.
const (
	wireInvoiceJSON = `{"id": "inv1", "total": "113.67", "billing_period_start": "2026-01-01T00:00:00.000Z",
		"billing_period_end": "2026-02-01T00:00:00.000Z", "paid": false, "overdue": true}`
	wireLineItemJSON = `{"id": "li1", "subtotal": 19.23, "description": "PS-10 cluster, 360 hours at 39.00 a month",
		"metric_name": "PS_10", "cloudflare_billed": false, "database_id": "db1", "database_name": "alpha",
		"resource": {"id": "br1", "name": "main", "created_at": "2026-01-01T00:00:00.000Z",
			"updated_at": "2026-01-16T00:00:00.000Z", "deleted_at": "2026-01-25T00:00:00.000Z"}}`
	wirePaymentMethodJSON = `{"type": "PaymentMethod", "id": "pm1", "brand": "visa", "last4": "4242",
		"exp_month": 12, "exp_year": 2030, "name": null}`
)

func wireInvoice() *platform.Invoice {
	return &platform.Invoice{
		ID: "inv1", Total: "113.67", BillingPeriodStart: backupTS("2026-01-01T00:00:00Z"),
		BillingPeriodEnd: backupTS("2026-02-01T00:00:00Z"), Overdue: true,
	}
}

func wireLineItem() *platform.InvoiceLineItem {
	return &platform.InvoiceLineItem{
		ID: "li1", Subtotal: 19.23, Description: "PS-10 cluster, 360 hours at 39.00 a month", MetricName: "PS_10",
		DatabaseID: "db1", DatabaseName: "alpha",
		Resource: platform.BilledResource{
			ID: "br1", Name: "main", CreatedAt: backupTS("2026-01-01T00:00:00Z"),
			UpdatedAt: backupTS("2026-01-16T00:00:00Z"), DeletedAt: backupTSP("2026-01-25T00:00:00Z"),
		},
	}
}

func TestBillingWire(t *testing.T) {
	t.Parallel()
	const base = "/v1/organizations/ac%20me"
	org := "ac me"
	page := platform.ListParams{Page: 2, PerPage: 1}
	runMethodCases(t, []methodCase{
		{
			name: "ListInvoices", status: 200, response: backupListJSON(wireInvoiceJSON),
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Billing.ListInvoices(ctx, &platform.ListInvoicesParams{Organization: org, ListParams: page})
			},
			method: "GET", path: base + "/invoices", query: url.Values{"page": {"2"}, "per_page": {"1"}},
			want: wirePage(wireInvoice()),
		},
		{
			name: "GetInvoice", status: 200, response: wireInvoiceJSON,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Billing.GetInvoice(ctx, &platform.GetInvoiceParams{Organization: org, ID: "inv/1"})
			},
			method: "GET", path: base + "/invoices/inv%2F1", query: url.Values{}, want: wireInvoice(),
		},
		{
			name: "ListInvoiceLineItems", status: 200, response: backupListJSON(wireLineItemJSON),
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Billing.ListInvoiceLineItems(ctx, &platform.ListInvoiceLineItemsParams{Organization: org, ID: "inv1", ListParams: page})
			},
			method: "GET", path: base + "/invoices/inv1/line-items", query: url.Values{"page": {"2"}, "per_page": {"1"}},
			want: wirePage(wireLineItem()),
		},
		{
			name: "GetPaymentMethod", status: 200, response: wirePaymentMethodJSON,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Billing.GetPaymentMethod(ctx, &platform.GetPaymentMethodParams{Organization: org})
			},
			method: "GET", path: base + "/billing/payment-method", query: url.Values{},
			want: &platform.PaymentMethod{Type: "PaymentMethod", ID: "pm1", Brand: "visa", Last4: "4242", ExpMonth: 12, ExpYear: 2030},
		},
		{
			name: "DeletePaymentMethod", status: 204,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return nil, c.Billing.DeletePaymentMethod(ctx, &platform.DeletePaymentMethodParams{Organization: org})
			},
			method: "DELETE", path: base + "/billing/payment-method", query: url.Values{},
		},
	})
}

func TestBillingArgErrors(t *testing.T) {
	t.Parallel()
	runArgCases(t, []argCase{
		{"ListInvoices with nil params", "params", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Billing.ListInvoices(ctx, nil)
			return err
		}},
		{"GetInvoice without id", "id", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Billing.GetInvoice(ctx, &platform.GetInvoiceParams{Organization: "acme"})
			return err
		}},
		{"ListInvoiceLineItems without id", "id", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Billing.ListInvoiceLineItems(ctx, &platform.ListInvoiceLineItemsParams{Organization: "acme"})
			return err
		}},
		{"GetPaymentMethod with nil params", "params", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Billing.GetPaymentMethod(ctx, nil)
			return err
		}},
		{"DeletePaymentMethod without organization", "organization", func(ctx context.Context, c *platform.Client) error {
			return c.Billing.DeletePaymentMethod(ctx, &platform.DeletePaymentMethodParams{})
		}},
	})
}

func TestInvoiceTotalCents(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		total string
		want  int64
		ok    bool
	}{
		{"113.67", 11367, true}, {"0.00", 0, true}, {"12", 1200, true}, {"12.5", 1250, true},
		{"-0.07", -7, true}, {"1000000.01", 100000001, true},
		{"", 0, false}, {"12.", 0, false}, {".5", 0, false}, {"1.234", 0, false},
		{"1e3", 0, false}, {"12.3x", 0, false}, {"--1", 0, false}, {"99999999999999999999", 0, false},
	} {
		got, err := (&platform.Invoice{Total: tc.total}).TotalCents()
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("TotalCents(%q) = %d, %v; want %d (ok %v)", tc.total, got, err, tc.want, tc.ok)
		}
	}
}

// TestBillingAgainstTheFake runs a database for a month on the fake and
// reads its invoice through the SDK: the line items add up to the total.
func TestBillingAgainstTheFake(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	c, ctx, org := srv.Client(), t.Context(), srv.Org()
	if _, err := c.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: org, Name: "app", ClusterSize: "PS_20"}); err != nil {
		t.Fatal(err)
	}
	srv.Advance(31 * 24 * time.Hour) // to February 1
	invoices := collectSeq(t, c.Billing.AllInvoices(ctx, &platform.ListInvoicesParams{Organization: org}))
	if len(invoices) != 1 {
		t.Fatalf("%d invoices, want January's", len(invoices))
	}
	items := collectSeq(t, c.Billing.AllInvoiceLineItems(ctx, &platform.ListInvoiceLineItemsParams{Organization: org, ID: invoices[0].ID}))
	got := make([]string, 0, len(items))
	for _, li := range items {
		got = append(got, fmt.Sprintf("%s/%s %s %.2f", li.DatabaseName, li.Resource.Name, li.MetricName, li.Subtotal))
	}
	// 744 hours at 59.00 a month of 730 hours.
	if diff := cmp.Diff([]string{"app/main PS_20 60.13"}, got); diff != "" {
		t.Errorf("line items (-want +got):\n%s", diff)
	}
	if invoices[0].Total != "60.13" {
		t.Errorf("total %q, want 60.13", invoices[0].Total)
	}
	if _, err := c.Billing.GetPaymentMethod(ctx, &platform.GetPaymentMethodParams{Organization: org}); !errors.Is(err, platform.ErrNotFound) {
		t.Errorf("GetPaymentMethod without a card = %v, want ErrNotFound", err)
	}
}
