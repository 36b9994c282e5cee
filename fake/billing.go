package fake

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake/internal/ordered"
)

// Billing: what an organization ran is metered as usage spans (a
// keyspace's time at one cluster size), and at each month boundary of the
// clock an invoiceJob turns the month's spans into an invoice whose line
// items price them by the hour from the cluster size catalogue. Amounts are
// integer cents throughout; see billedCents.

// hoursPerMonth is the number of hours a catalogue's monthly rate pays
// for: an hour costs rate/hoursPerMonth.
const hoursPerMonth = 730

// usageSpan is the time a keyspace ran at one cluster size, ended: a
// keyspace's running span is its keyspaceMeter, ended by meterKeyspace
// when the size changes or the keyspace goes. A span names its branch and
// database by value, as invoices show them after they are gone.
type usageSpan struct {
	branch billedBranch
	size   string
	// rate is the size's monthly rate in the branch's region, in cents.
	rate     int64
	from, to time.Time
	// branchDeleted is true when the span ended with its branch's
	// deletion, at to.
	branchDeleted bool
}

// keyspaceMeter is the size a keyspace is billed at, and since when:
// 16 bytes, where a size name and a time.Time would take 40 in every
// keyspace.
type keyspaceMeter struct {
	sku   uint8 // 1 + the size's index in clusterSKUs; 0 while not metered (gone)
	since int64 // Unix nanoseconds
}

// meterOf is the meter of a keyspace of size since t; a size the
// catalogue lacks (none is stored, see clusterSizeFor) is not metered.
func meterOf(size string, t time.Time) keyspaceMeter {
	i := slices.IndexFunc(clusterSKUs, func(s *clusterSKU) bool { return s.name == size })
	return keyspaceMeter{uint8(i + 1), t.UnixNano()}
}

// size is the metered size; nil while not metered.
func (m keyspaceMeter) size() *clusterSKU {
	if m.sku == 0 {
		return nil
	}
	return clusterSKUs[m.sku-1]
}

func (m keyspaceMeter) from() time.Time { return time.Unix(0, m.since).UTC() }

// billedBranch is a branch as a line item names it: its database, its
// name, and its creation and last update as metering last saw them.
type billedBranch struct {
	dbID, dbName     string
	id, name         string
	created, updated time.Time
}

// orgBilling is an organization's usage not yet invoiced, its invoices and
// its payment method.
type orgBilling struct {
	// ended are the spans that ended since the last invoice.
	ended    []*usageSpan
	invoices ordered.Store[*invoiceRec]
	payment  *paymentMethodRec // nil when none is on file
}

// invoiceRec is an issued invoice: its period [start, end), and its line
// items, fixed when it was issued.
type invoiceRec struct {
	stamps
	start, end time.Time
	paid       bool
	total      int64 // cents; the sum of the lines' amounts
	lines      []*lineItemRec
}

// lineItemRec is what one branch ran at one size over an invoice's period.
type lineItemRec struct {
	id     string
	branch billedBranch // updated: the latest seen over the period
	// deleted is when the branch was deleted; zero while it lived at the
	// period's end.
	deleted time.Time
	size    string
	rate    int64 // monthly, in cents
	hours   int64
	amount  int64 // cents
}

// paymentMethodRec is the card an organization's invoices are charged to.
type paymentMethodRec struct {
	id     string
	method PaymentMethod
}

// PaymentMethod is a card to seed as an organization's payment method with
// [Server.SetPaymentMethod]: the API can show and delete one, not add one.
type PaymentMethod struct {
	// Brand is the card's brand ("visa", "mastercard"); required.
	Brand string `json:"brand"`
	// Last4 is the last four digits of its number; required.
	Last4 string `json:"last4"`
	// ExpMonth (1-12) and ExpYear (four digits) are when it expires;
	// required.
	ExpMonth int `json:"exp_month"`
	ExpYear  int `json:"exp_year"`
	// Name is the cardholder's name; "" for none (rendered null).
	Name string `json:"name"`
}

// check says what is wrong with a card to seed, naming the field.
func (pm PaymentMethod) check() error {
	switch {
	case pm.Brand == "":
		return fmt.Errorf("brand is required")
	case len(pm.Last4) != 4 || !allDigits(pm.Last4):
		return fmt.Errorf("last4 %q is not four digits", pm.Last4)
	case pm.ExpMonth < 1 || pm.ExpMonth > 12:
		return fmt.Errorf("exp_month %d is not a month from 1 to 12", pm.ExpMonth)
	case pm.ExpYear < 1000 || pm.ExpYear > 9999:
		return fmt.Errorf("exp_year %d is not a four-digit year", pm.ExpYear)
	}
	return nil
}

func allDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// SetPaymentMethod puts a card on file for an organization, replacing any,
// and charges it the organization's unpaid invoices: they become paid. The
// invoices issued while a card is on file are paid when issued.
func (s *Server) SetPaymentMethod(org string, pm PaymentMethod) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.world.orgs[org]
	if o == nil {
		return fmt.Errorf("fake: SetPaymentMethod: no organization %q", org)
	}
	if err := pm.check(); err != nil {
		return methodErr("SetPaymentMethod", err)
	}
	o.billing.payment = &paymentMethodRec{id: s.world.newID(), method: pm}
	for _, inv := range o.billing.invoices.All() {
		inv.paid = true
	}
	return nil
}

// meterBranch brings the metering of b's keyspaces up to date at now,
// after they were created, resized or deleted, or b was.
func (w *world) meterBranch(b *branchRec, now time.Time) {
	for _, ks := range b.keyspaces.All() {
		w.meterKeyspace(ks, now)
	}
}

// meterKeyspace ends ks's running span at now if its size changed or it
// is gone, and starts one at its size unless it is gone. A span of no
// time is dropped: nothing ran.
func (w *world) meterKeyspace(ks *keyspaceRec, now time.Time) {
	gone, sku := ks.gone(), ks.meter.size()
	if !gone && sku != nil && sku.name == ks.clusterSize {
		return
	}
	b := ks.branch
	if m := ks.meter; sku != nil && now.After(m.from()) {
		bl := &b.db.org.billing
		bl.ended = append(bl.ended, &usageSpan{
			branch: billOf(b), size: sku.name, rate: priceCents(sku.rate, b.region),
			from: m.from(), to: now, branchDeleted: b.deleted,
		})
	}
	ks.meter = keyspaceMeter{}
	if !gone {
		ks.meter = meterOf(ks.clusterSize, now)
	}
}

func billOf(b *branchRec) billedBranch {
	return billedBranch{dbID: b.db.id, dbName: b.db.name, id: b.id, name: b.name, created: b.created, updated: b.updated}
}

// billedCents is the amount of hours at a monthly rate, in cents, rounded
// half up: rate × hours / hoursPerMonth.
func billedCents(rate, hours int64) int64 {
	return (2*rate*hours + hoursPerMonth) / (2 * hoursPerMonth)
}

// monthStart is the start of t's calendar month, in UTC.
func monthStart(t time.Time) time.Time {
	y, m, _ := t.UTC().Date()
	return time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
}

// scheduleInvoice puts org's next invoice on the clock, at the first
// month boundary after now.
func scheduleInvoice(w *world, org *orgRec, now time.Time) {
	w.clock.After(monthStart(now).AddDate(0, 1, 0).Sub(now), invoiceJob{org})
}

// lineKey identifies a line item: one branch at one size and rate.
type lineKey struct {
	branch, size string
	rate         int64
}

// issueInvoice bills org for the month before end, from the spans that
// ended since the last invoice and those still running, and keeps only
// what falls after end for the next one. A month where nothing ran gets
// no invoice.
func (w *world) issueInvoice(org *orgRec, end, now time.Time) {
	start := end.AddDate(0, -1, 0)
	bl := &org.billing
	used := map[lineKey]time.Duration{}
	lines := map[lineKey]*lineItemRec{}
	var order []lineKey
	add := func(bb billedBranch, size string, rate int64, from, to time.Time, deleted bool) {
		from, to = maxTime(from, start), minTime(to, end)
		if !to.After(from) {
			return
		}
		k := lineKey{bb.id, size, rate}
		li := lines[k]
		if li == nil {
			li = &lineItemRec{branch: bb, size: size, rate: rate}
			lines[k] = li
			order = append(order, k)
		}
		if deleted {
			li.deleted = to
		}
		li.branch.updated = maxTime(li.branch.updated, bb.updated)
		used[k] += to.Sub(from)
	}
	for _, sp := range bl.ended {
		add(sp.branch, sp.size, sp.rate, sp.from, sp.to, sp.branchDeleted)
	}
	for _, db := range org.dbs.All() {
		for _, b := range db.branchIdx.All() {
			for _, ks := range b.keyspaces.All() {
				if sku := ks.meter.size(); sku != nil {
					add(billOf(b), sku.name, priceCents(sku.rate, b.region), ks.meter.from(), now, false)
				}
			}
		}
	}
	// What ended after the boundary (a real-time clock runs the job late)
	// is the next invoice's.
	bl.ended = slices.DeleteFunc(bl.ended, func(sp *usageSpan) bool { return !sp.to.After(end) })
	for _, sp := range bl.ended {
		sp.from = maxTime(sp.from, end)
	}
	if len(order) == 0 {
		return
	}
	slices.SortFunc(order, func(a, b lineKey) int {
		la, lb := lines[a], lines[b]
		return cmp.Or(cmp.Compare(la.branch.dbName, lb.branch.dbName), cmp.Compare(la.branch.name, lb.branch.name),
			cmp.Compare(a.branch, b.branch), cmp.Compare(a.size, b.size), cmp.Compare(a.rate, b.rate))
	})
	inv := &invoiceRec{stamps: stamps{id: w.newID(), created: now, updated: now}, start: start, end: end, paid: bl.payment != nil}
	for _, k := range order {
		li := lines[k]
		li.id = w.newID()
		li.hours = int64((used[k] + time.Hour - 1) / time.Hour)
		li.amount = billedCents(li.rate, li.hours)
		inv.total += li.amount
		inv.lines = append(inv.lines, li)
	}
	bl.addInvoice(inv)
}

func (bl *orgBilling) addInvoice(inv *invoiceRec) {
	bl.invoices.Add(inv)
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func billingRoutes() []route {
	return []route{
		{pattern: "GET /v1/organizations/{organization}/invoices", op: "list_invoices", handler: read(listInvoices)},
		{pattern: "GET /v1/organizations/{organization}/invoices/{id}", op: "get_invoice", handler: read(getInvoice)},
		{pattern: "GET /v1/organizations/{organization}/invoices/{id}/line-items", op: "get_invoice_line_items", handler: read(listInvoiceLineItems)},
		{pattern: "GET /v1/organizations/{organization}/billing/payment-method", op: "get_organization_billing_payment_method", handler: read(getPaymentMethod)},
		{pattern: "DELETE /v1/organizations/{organization}/billing/payment-method", op: "delete_organization_billing_payment_method", handler: act(deletePaymentMethod)},
	}
}

func listInvoices(c *call) (any, error) {
	return pageOf(c, c.org.billing.invoices.Index(), false, c.w.renderInvoice), nil
}

// invoice finds the path's invoice.
func (c *call) invoice() (*invoiceRec, error) {
	inv := c.org.billing.invoices.Get(c.r.PathValue("id"))
	if inv == nil {
		return nil, c.nothingAt("id")
	}
	return inv, nil
}

func getInvoice(c *call) (any, error) {
	inv, err := c.invoice()
	if err != nil {
		return nil, err
	}
	return c.w.renderInvoice(inv), nil
}

func listInvoiceLineItems(c *call) (any, error) {
	inv, err := c.invoice()
	if err != nil {
		return nil, err
	}
	return slicePageOf(c, inv.lines, false, renderLineItem), nil
}

func getPaymentMethod(c *call) (any, error) {
	pm := c.org.billing.payment
	if pm == nil {
		return nil, notFound()
	}
	return renderPaymentMethod(pm), nil
}

func deletePaymentMethod(c *call) (any, error) {
	if c.org.billing.payment == nil {
		return nil, notFound()
	}
	c.org.billing.payment = nil
	return nil, nil
}

// overdue reports whether an invoice is unpaid past its due time
// (Timings.InvoiceDue after its period's end).
func (w *world) overdue(inv *invoiceRec) bool {
	return !inv.paid && !w.clock.Now().Before(inv.end.Add(w.timing.InvoiceDue))
}

// pastDue reports whether an invoice of o is overdue: the organization's
// has_past_due_invoices.
func (w *world) pastDue(o *orgRec) bool {
	return slices.ContainsFunc(o.billing.invoices.All(), w.overdue)
}

// renderInvoice renders an invoice; it is overdue once unpaid past its
// due time.
func (w *world) renderInvoice(inv *invoiceRec) *platform.Invoice {
	return &platform.Invoice{
		ID: inv.id, Total: formatCents(inv.total),
		BillingPeriodStart: platform.NewTimestamp(inv.start), BillingPeriodEnd: platform.NewTimestamp(inv.end),
		Paid:    inv.paid,
		Overdue: w.overdue(inv),
	}
}

func renderLineItem(li *lineItemRec) *platform.InvoiceLineItem {
	out := &platform.InvoiceLineItem{
		ID: li.id, Subtotal: float64(li.amount) / 100,
		Description: fmt.Sprintf("%s cluster, %d hours at %s a month", billedDisplayName(li.size), li.hours, formatCents(li.rate)),
		MetricName:  li.size, DatabaseID: li.branch.dbID, DatabaseName: li.branch.dbName,
		Resource: platform.BilledResource{
			ID: li.branch.id, Name: li.branch.name,
			CreatedAt: platform.NewTimestamp(li.branch.created), UpdatedAt: platform.NewTimestamp(li.branch.updated),
		},
	}
	if !li.deleted.IsZero() {
		out.Resource.DeletedAt = platform.Ptr(platform.NewTimestamp(li.deleted))
	}
	return out
}

func renderPaymentMethod(pm *paymentMethodRec) *platform.PaymentMethod {
	out := &platform.PaymentMethod{
		Type: "PaymentMethod", ID: pm.id, Brand: pm.method.Brand, Last4: pm.method.Last4,
		ExpMonth: pm.method.ExpMonth, ExpYear: pm.method.ExpYear,
	}
	if pm.method.Name != "" {
		out.Name = platform.Ptr(pm.method.Name)
	}
	return out
}

// formatCents writes cents as a decimal with two fractional digits.
func formatCents(c int64) string {
	sign := ""
	if c < 0 {
		sign, c = "-", -c
	}
	return fmt.Sprintf("%s%d.%02d", sign, c/100, c%100)
}
