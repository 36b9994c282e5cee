package platform

import (
	"context"
	"fmt"
	"iter"
	"strconv"
	"strings"
)

// Invoice is an organization's bill for one billing period.
type Invoice struct {
	ID string `json:"id"`
	// Total is the amount due, a decimal in text ("123.45") so that no
	// precision is lost; [Invoice.TotalCents] reads it.
	Total              string    `json:"total"`
	BillingPeriodStart Timestamp `json:"billing_period_start"`
	BillingPeriodEnd   Timestamp `json:"billing_period_end"`
	Paid               bool      `json:"paid"`
	// Overdue is true for an unpaid invoice past its due date.
	Overdue bool `json:"overdue"`
}

// TotalCents returns the invoice's total in hundredths of the currency
// unit, exactly.
func (inv *Invoice) TotalCents() (int64, error) {
	return decimalCents(inv.Total)
}

// decimalCents reads a decimal with at most two fractional digits
// ("12", "12.5", "-0.07") as hundredths, without floating point.
func decimalCents(s string) (int64, error) {
	whole, frac, dot := strings.Cut(s, ".")
	neg := strings.HasPrefix(whole, "-")
	digits := strings.TrimPrefix(whole, "-")
	bad := digits == "" || len(frac) > 2 || (dot && frac == "")
	for _, r := range digits + frac {
		bad = bad || r < '0' || r > '9'
	}
	if bad {
		return 0, fmt.Errorf("platform: %q is not an amount with at most two decimals", s)
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("platform: amount %q: %w", s, err)
	}
	f, _ := strconv.ParseInt((frac + "00")[:2], 10, 64)
	cents := n*100 + f
	if neg {
		cents = -cents
	}
	return cents, nil
}

// InvoiceLineItem is one billed item of an invoice: what one database's
// branch cost at one cluster size over the period.
type InvoiceLineItem struct {
	ID string `json:"id"`
	// Subtotal is the item's amount; an invoice's items add up to its
	// total.
	Subtotal    float64 `json:"subtotal"`
	Description string  `json:"description"`
	// MetricName names what was billed.
	MetricName string `json:"metric_name"`
	// ExternallyBilled is true for an item billed through a cloud
	// marketplace instead of this invoice's payment method.
	ExternallyBilled bool           `json:"cloudflare_billed"`
	DatabaseID       string         `json:"database_id"`
	DatabaseName     string         `json:"database_name"`
	Resource         BilledResource `json:"resource"`
}

// BilledResource is what a line item bills for (a branch), as it was when
// the invoice was issued.
type BilledResource struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	CreatedAt Timestamp `json:"created_at"`
	UpdatedAt Timestamp `json:"updated_at"`
	// DeletedAt is when the resource was deleted; nil while it lives.
	DeletedAt *Timestamp `json:"deleted_at"`
}

// PaymentMethod is the card an organization's invoices are charged to.
type PaymentMethod struct {
	Type     string `json:"type"`
	ID       string `json:"id"`
	Brand    string `json:"brand"`
	Last4    string `json:"last4"`
	ExpMonth int    `json:"exp_month"`
	ExpYear  int    `json:"exp_year"`
	// Name is the cardholder's name; nil when the card has none.
	Name *string `json:"name"`
}

// BillingService reads an organization's invoices and manages its payment
// method.
type BillingService service

func invoicesPath(org string) string {
	return pathf("v1/organizations/%s/invoices", org)
}

func paymentMethodPath(org string) string {
	return pathf("v1/organizations/%s/billing/payment-method", org)
}

// ListInvoicesParams selects a page of an organization's invoices.
type ListInvoicesParams struct {
	Organization string `json:"-" url:"-"`
	ListParams
}

// ListInvoices returns a page of an organization's invoices, oldest first.
//
// API: GET /v1/organizations/{organization}/invoices
func (s *BillingService) ListInvoices(ctx context.Context, p *ListInvoicesParams) (*Page[Invoice], error) {
	p = orZero(p)
	if err := required("organization", p.Organization); err != nil {
		return nil, err
	}
	return listPage[Invoice](ctx, s.client, invoicesPath(p.Organization), p)
}

// AllInvoices ranges over every invoice of an organization.
func (s *BillingService) AllInvoices(ctx context.Context, p *ListInvoicesParams) iter.Seq2[*Invoice, error] {
	return allOf(ctx, p, s.ListInvoices)
}

// GetInvoiceParams names an invoice.
type GetInvoiceParams struct {
	Organization string `json:"-" url:"-"`
	ID           string `json:"-" url:"-"`
}

// GetInvoice returns an invoice.
//
// API: GET /v1/organizations/{organization}/invoices/{id}
func (s *BillingService) GetInvoice(ctx context.Context, p *GetInvoiceParams) (*Invoice, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "id", p.ID); err != nil {
		return nil, err
	}
	inv := new(Invoice)
	return orNil(inv, s.client.get(ctx, invoicesPath(p.Organization)+pathf("/%s", p.ID), nil, inv))
}

// ListInvoiceLineItemsParams selects a page of an invoice's line items.
type ListInvoiceLineItemsParams struct {
	Organization string `json:"-" url:"-"`
	ID           string `json:"-" url:"-"`
	ListParams
}

// ListInvoiceLineItems returns a page of an invoice's line items.
//
// API: GET /v1/organizations/{organization}/invoices/{id}/line-items
func (s *BillingService) ListInvoiceLineItems(ctx context.Context, p *ListInvoiceLineItemsParams) (*Page[InvoiceLineItem], error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "id", p.ID); err != nil {
		return nil, err
	}
	return listPage[InvoiceLineItem](ctx, s.client, invoicesPath(p.Organization)+pathf("/%s/line-items", p.ID), p)
}

// AllInvoiceLineItems ranges over every line item of an invoice.
func (s *BillingService) AllInvoiceLineItems(ctx context.Context, p *ListInvoiceLineItemsParams) iter.Seq2[*InvoiceLineItem, error] {
	return allOf(ctx, p, s.ListInvoiceLineItems)
}

// GetPaymentMethodParams names an organization's payment method.
type GetPaymentMethodParams struct {
	Organization string `json:"-" url:"-"`
}

// DeletePaymentMethodParams names the payment method to remove.
type DeletePaymentMethodParams = GetPaymentMethodParams

// GetPaymentMethod returns the card an organization's invoices are charged
// to; [ErrNotFound] when it has none.
//
// API: GET /v1/organizations/{organization}/billing/payment-method
func (s *BillingService) GetPaymentMethod(ctx context.Context, p *GetPaymentMethodParams) (*PaymentMethod, error) {
	p = orZero(p)
	if err := required("organization", p.Organization); err != nil {
		return nil, err
	}
	pm := new(PaymentMethod)
	return orNil(pm, s.client.get(ctx, paymentMethodPath(p.Organization), nil, pm))
}

// DeletePaymentMethod removes an organization's payment method; invoices
// issued afterwards stay unpaid until another is added.
//
// API: DELETE /v1/organizations/{organization}/billing/payment-method
func (s *BillingService) DeletePaymentMethod(ctx context.Context, p *DeletePaymentMethodParams) error {
	p = orZero(p)
	if err := required("organization", p.Organization); err != nil {
		return err
	}
	return s.client.del(ctx, paymentMethodPath(p.Organization), nil)
}
