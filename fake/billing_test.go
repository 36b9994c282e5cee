package fake_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// billingDay is a day of 2026 in January (or later, past 31), at hour h.
func billingDay(day, h int) time.Time {
	return time.Date(2026, time.January, day, h, 0, 0, 0, time.UTC)
}

// billingAdvanceTo moves srv's clock to at.
func billingAdvanceTo(t *testing.T, srv *fake.Server, at time.Time) {
	t.Helper()
	if d := at.Sub(srv.Now()); d < 0 {
		t.Fatalf("the clock is at %v, past %v", srv.Now(), at)
	} else {
		srv.Advance(d)
	}
}

// billingTimings make resizes and changes take an hour.
var billingTimings = fake.WithTimings(fake.Timings{
	BranchChangeStart: 30 * time.Minute, BranchChangeRun: 30 * time.Minute,
	KeyspaceResizeQueued: 30 * time.Minute, KeyspaceResizeShard: 30 * time.Minute,
})

// billingMix runs January's known usage on a server started on January 1,
// whose transitions take an hour:
//   - alpha (us-east) runs PS_10 from Jan 1; its main branch is resized to
//     PS_20 from Jan 15 23:00, complete on Jan 16;
//   - beta (eu-west, rates 1.1 times) runs PS_20 from Jan 10; its branch
//     dev runs from Jan 20 until deleted on Jan 25; its keyspace is resized
//     to PS_40 from Jan 27 23:00, complete on Jan 28.
func billingMix(t *testing.T) (*fake.Server, *platform.Client) {
	t.Helper()
	srv := fake.NewServer(t, billingTimings)
	c, ctx, org := srv.Client(), t.Context(), srv.Org()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	_, err := c.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: org, Name: "alpha", ClusterSize: "PS_10", Region: "us-east"})
	must(err)
	billingAdvanceTo(t, srv, billingDay(10, 0))
	_, err = c.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: org, Name: "beta", ClusterSize: "PS_20", Region: "eu-west"})
	must(err)
	billingAdvanceTo(t, srv, billingDay(15, 23))
	must(c.BranchChanges.UpdateClusterConfig(ctx, &platform.UpdateClusterConfigParams{Organization: org, Database: "alpha", Branch: "main", ClusterSize: "PS_20"}))
	billingAdvanceTo(t, srv, billingDay(20, 0))
	_, err = c.Branches.Create(ctx, &platform.CreateBranchParams{Organization: org, Database: "beta", Name: "dev", ParentBranch: "main"})
	must(err)
	billingAdvanceTo(t, srv, billingDay(25, 0))
	must(c.Branches.Delete(ctx, &platform.DeleteBranchParams{Organization: org, Database: "beta", Branch: "dev"}))
	billingAdvanceTo(t, srv, billingDay(27, 23))
	_, err = c.Keyspaces.Resize(ctx, &platform.ResizeKeyspaceParams{Organization: org, Database: "beta", Branch: "main", Keyspace: "beta", ClusterSize: platform.Ptr("PS_40")})
	must(err)
	return srv, c
}

// billingLine is what a test checks of a line item.
type billingLine struct {
	Database, Branch, Metric, Description string
	Cents                                 int64
	Deleted                               *time.Time
}

func billingLines(t *testing.T, c *platform.Client, org, id string) []billingLine {
	t.Helper()
	var out []billingLine
	for li, err := range c.Billing.AllInvoiceLineItems(t.Context(), &platform.ListInvoiceLineItemsParams{Organization: org, ID: id, ListParams: platform.ListParams{PerPage: 2}}) {
		if err != nil {
			t.Fatal(err)
		}
		bl := billingLine{li.DatabaseName, li.Resource.Name, li.MetricName, li.Description, int64(li.Subtotal*100 + 0.5), nil}
		if li.Resource.DeletedAt != nil {
			bl.Deleted = &li.Resource.DeletedAt.Time
		}
		out = append(out, bl)
	}
	return out
}

func TestInvoicesBillTheMonthsUsageByTheHour(t *testing.T) {
	t.Parallel()
	srv, c := billingMix(t)
	ctx, org := t.Context(), srv.Org()

	billingAdvanceTo(t, srv, billingDay(31, 23))
	if page, err := c.Billing.ListInvoices(ctx, &platform.ListInvoicesParams{Organization: org}); err != nil || len(page.Items) != 0 {
		t.Fatalf("before the month ends: %v invoices, err %v; want none", page, err)
	}
	billingAdvanceTo(t, srv, billingDay(32, 0))

	page, err := c.Billing.ListInvoices(ctx, &platform.ListInvoicesParams{Organization: org})
	if err != nil || len(page.Items) != 1 {
		t.Fatalf("after the month: %v, err %v; want one invoice", page, err)
	}
	jan := page.Items[0]
	wantInv := &platform.Invoice{
		ID: jan.ID, Total: "113.75", Paid: false, Overdue: false,
		BillingPeriodStart: platform.NewTimestamp(billingDay(1, 0)), BillingPeriodEnd: platform.NewTimestamp(billingDay(32, 0)),
	}
	if diff := cmp.Diff(wantInv, jan); diff != "" {
		t.Errorf("January's invoice (-want +got):\n%s", diff)
	}
	deleted := billingDay(25, 0)
	want := []billingLine{
		{"alpha", "main", "PS_10", "PS-10 cluster, 360 hours at 39.00 a month", 1923, nil},
		{"alpha", "main", "PS_20", "PS-20 cluster, 384 hours at 59.00 a month", 3104, nil},
		{"beta", "dev", "PS_20", "PS-20 cluster, 120 hours at 65.00 a month", 1068, &deleted},
		{"beta", "main", "PS_20", "PS-20 cluster, 432 hours at 65.00 a month", 3847, nil},
		{"beta", "main", "PS_40", "PS-40 cluster, 96 hours at 109.00 a month", 1433, nil},
	}
	got := billingLines(t, c, org, jan.ID)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("January's line items (-want +got):\n%s", diff)
	}
	var sum int64
	for _, l := range got {
		sum += l.Cents
	}
	if total, err := jan.TotalCents(); err != nil || total != sum {
		t.Errorf("total %q (%d cents, err %v) is not the line items' sum, %d cents", jan.Total, total, err, sum)
	}
	if g, err := c.Billing.GetInvoice(ctx, &platform.GetInvoiceParams{Organization: org, ID: jan.ID}); err != nil || !cmp.Equal(g, jan) {
		t.Errorf("GetInvoice = %+v, %v; want %+v", g, err, jan)
	}

	// February bills what still runs, all month; January's invoice stays
	// as issued, overdue once unpaid past its due time.
	billingAdvanceTo(t, srv, time.Date(2026, time.March, 1, 0, 0, 0, 0, time.UTC))
	var all []*platform.Invoice
	for inv, err := range c.Billing.AllInvoices(ctx, &platform.ListInvoicesParams{Organization: org}) {
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, inv)
	}
	if len(all) != 2 || all[0].ID != jan.ID || all[1].Total != "154.65" || all[0].Overdue {
		t.Fatalf("invoices on March 1: %+v; want January's, not yet overdue, then February's for 154.65", all)
	}
	wantFeb := []billingLine{
		{"alpha", "main", "PS_20", "PS-20 cluster, 672 hours at 59.00 a month", 5431, nil},
		{"beta", "main", "PS_40", "PS-40 cluster, 672 hours at 109.00 a month", 10034, nil},
	}
	if diff := cmp.Diff(wantFeb, billingLines(t, c, org, all[1].ID)); diff != "" {
		t.Errorf("February's line items (-want +got):\n%s", diff)
	}
	billingAdvanceTo(t, srv, time.Date(2026, time.March, 3, 0, 0, 0, 0, time.UTC))
	if g, err := c.Billing.GetInvoice(ctx, &platform.GetInvoiceParams{Organization: org, ID: jan.ID}); err != nil || !g.Overdue || g.Paid {
		t.Errorf("January's invoice 30 days after it was issued = %+v, %v; want overdue", g, err)
	}

	// A card on file pays what is due, and what is issued later.
	if err := srv.SetPaymentMethod(org, fake.PaymentMethod{Brand: "visa", Last4: "4242", ExpMonth: 1, ExpYear: 2030}); err != nil {
		t.Fatal(err)
	}
	billingAdvanceTo(t, srv, time.Date(2026, time.April, 1, 0, 0, 0, 0, time.UTC))
	for inv, err := range c.Billing.AllInvoices(ctx, &platform.ListInvoicesParams{Organization: org}) {
		if err != nil || !inv.Paid || inv.Overdue {
			t.Errorf("with a card on file: %+v, %v; want paid", inv, err)
		}
	}
}

// TestInvoicesSurviveSnapshots restores a server mid-month (with a resize
// under way): the restored one, with the same timings, issues the same
// invoice.
func TestInvoicesSurviveSnapshots(t *testing.T) {
	t.Parallel()
	srv, c := billingMix(t)
	data, err := srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	restored := fake.NewServer(t, billingTimings)
	if err := restored.Restore(data); err != nil {
		t.Fatal(err)
	}
	var invoices [2][]billingLine
	for i, s := range []*fake.Server{srv, restored} {
		billingAdvanceTo(t, s, billingDay(32, 0))
		cl := c
		if i == 1 {
			cl = s.Client()
		}
		page, err := cl.Billing.ListInvoices(t.Context(), &platform.ListInvoicesParams{Organization: s.Org()})
		if err != nil || len(page.Items) != 1 {
			t.Fatalf("server %d: %v, %v; want one invoice", i, page, err)
		}
		invoices[i] = billingLines(t, cl, s.Org(), page.Items[0].ID)
	}
	if diff := cmp.Diff(invoices[0], invoices[1]); diff != "" {
		t.Errorf("the restored server's invoice differs (-original +restored):\n%s", diff)
	}
}

func TestPaymentMethod(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	c, ctx, org := srv.Client(), t.Context(), srv.Org()
	get := &platform.GetPaymentMethodParams{Organization: org}

	_, err := c.Billing.GetPaymentMethod(ctx, get)
	apiError(t, err, http.StatusNotFound)
	apiError(t, c.Billing.DeletePaymentMethod(ctx, get), http.StatusNotFound)

	card := fake.PaymentMethod{Brand: "mastercard", Last4: "0005", ExpMonth: 7, ExpYear: 2031, Name: "Ada Admin"}
	if err := srv.SetPaymentMethod(org, card); err != nil {
		t.Fatal(err)
	}
	pm, err := c.Billing.GetPaymentMethod(ctx, get)
	if err != nil {
		t.Fatal(err)
	}
	want := &platform.PaymentMethod{Type: "PaymentMethod", ID: pm.ID, Brand: "mastercard", Last4: "0005", ExpMonth: 7, ExpYear: 2031, Name: platform.Ptr("Ada Admin")}
	if diff := cmp.Diff(want, pm); diff != "" {
		t.Errorf("payment method (-want +got):\n%s", diff)
	}
	if err := c.Billing.DeletePaymentMethod(ctx, get); err != nil {
		t.Fatal(err)
	}
	_, err = c.Billing.GetPaymentMethod(ctx, get)
	apiError(t, err, http.StatusNotFound)

	// Without a name, the card's name is null.
	card.Name = ""
	if err := srv.SetPaymentMethod(org, card); err != nil {
		t.Fatal(err)
	}
	if pm, err := c.Billing.GetPaymentMethod(ctx, get); err != nil || pm.Name != nil {
		t.Errorf("a card without a name: %+v, %v; want name null", pm, err)
	}
}

func TestSetPaymentMethodRefusals(t *testing.T) {
	t.Parallel()
	ok := fake.PaymentMethod{Brand: "visa", Last4: "4242", ExpMonth: 12, ExpYear: 2030}
	for _, tc := range []struct {
		name, org string
		edit      func(*fake.PaymentMethod)
		words     string
	}{
		{"unknown organization", "nope", func(*fake.PaymentMethod) {}, `no organization "nope"`},
		{"no brand", "", func(p *fake.PaymentMethod) { p.Brand = "" }, "brand is required"},
		{"short last4", "", func(p *fake.PaymentMethod) { p.Last4 = "424" }, "last4"},
		{"letters in last4", "", func(p *fake.PaymentMethod) { p.Last4 = "42a2" }, "last4"},
		{"month 13", "", func(p *fake.PaymentMethod) { p.ExpMonth = 13 }, "exp_month"},
		{"month 0", "", func(p *fake.PaymentMethod) { p.ExpMonth = 0 }, "exp_month"},
		{"two-digit year", "", func(p *fake.PaymentMethod) { p.ExpYear = 30 }, "exp_year"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := fake.NewServer(t)
			pm := ok
			tc.edit(&pm)
			org := tc.org
			if org == "" {
				org = srv.Org()
			}
			err := srv.SetPaymentMethod(org, pm)
			if err == nil || !strings.Contains(err.Error(), tc.words) {
				t.Fatalf("err = %v, want one mentioning %q", err, tc.words)
			}
			if _, err := srv.Client().Billing.GetPaymentMethod(t.Context(), &platform.GetPaymentMethodParams{Organization: srv.Org()}); err == nil {
				t.Error("a refused card was put on file")
			}
		})
	}
}

func TestInvoiceNotFound(t *testing.T) {
	t.Parallel()
	srv, c := billingMix(t)
	billingAdvanceTo(t, srv, billingDay(32, 0))
	ctx, org := t.Context(), srv.Org()
	other := otherOrg(t, srv, "globex")
	page, err := c.Billing.ListInvoices(ctx, &platform.ListInvoicesParams{Organization: org})
	if err != nil || len(page.Items) != 1 {
		t.Fatalf("%v, %v; want one invoice", page, err)
	}
	id := page.Items[0].ID
	_, err = c.Billing.GetInvoice(ctx, &platform.GetInvoiceParams{Organization: org, ID: "nosuchinvoice"})
	apiError(t, err, http.StatusNotFound)
	_, err = c.Billing.ListInvoiceLineItems(ctx, &platform.ListInvoiceLineItemsParams{Organization: org, ID: "nosuchinvoice"})
	apiError(t, err, http.StatusNotFound)

	// Another organization's invoices are not found through its name, and
	// it has none of its own: it ran nothing.
	oc := srv.ClientFor(other)
	_, err = oc.Billing.GetInvoice(ctx, &platform.GetInvoiceParams{Organization: "globex", ID: id})
	apiError(t, err, http.StatusNotFound)
	if page, err := oc.Billing.ListInvoices(ctx, &platform.ListInvoicesParams{Organization: "globex"}); err != nil || len(page.Items) != 0 {
		t.Errorf("globex's invoices: %v, %v; want none", page, err)
	}
}

// TestPaymentMethodOverControl seeds a card through the control surface.
func TestPaymentMethodOverControl(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	path := fake.ControlPrefix + "organizations/acme/billing/payment-method"
	for _, tc := range []struct {
		body   string
		status int
		words  string
	}{
		{`{"brand":"visa","last4":"4242","exp_month":13,"exp_year":2030}`, http.StatusUnprocessableEntity, "exp_month 13"},
		{`{"brand":"visa","last4":4242}`, http.StatusBadRequest, "last4"},
		{`{"brand":"visa","last4":"4242","exp_month":1,"exp_year":2030,"cvc":"123"}`, http.StatusBadRequest, "cvc"},
	} {
		if r := send(t, srv, "PUT", path, admin(srv), tc.body); r.status != tc.status || !strings.Contains(string(r.body), tc.words) {
			t.Errorf("PUT %s: %d %s; want %d mentioning %q", tc.body, r.status, r.body, tc.status, tc.words)
		}
	}
	if r := send(t, srv, "PUT", path, admin(srv), `{"brand":"visa","last4":"4242","exp_month":1,"exp_year":2030,"name":"Ada"}`); r.status != http.StatusNoContent {
		t.Fatalf("PUT: %d %s", r.status, r.body)
	}
	pm, err := srv.Client().Billing.GetPaymentMethod(t.Context(), &platform.GetPaymentMethodParams{Organization: "acme"})
	if err != nil || pm.Last4 != "4242" || pm.Name == nil || *pm.Name != "Ada" {
		t.Errorf("after the control call: %+v, %v", pm, err)
	}
}
