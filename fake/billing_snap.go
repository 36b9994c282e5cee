package fake

import (
	"fmt"
	"time"
)

// The snapshot of billing: each keyspace's running meter, and each
// organization's ended usage, invoices and payment method.

// meterSnap is the size a keyspace is billed at, since when.
type meterSnap struct {
	Size  string    `json:"size"`
	Since time.Time `json:"since"`
}

func saveMeter(ks *keyspaceRec) *meterSnap {
	sku := ks.meter.size()
	if sku == nil {
		return nil
	}
	return &meterSnap{Size: sku.name, Since: ks.meter.from()}
}

// load sets ks's meter; a nil meterSnap leaves it unmetered. A size of a
// snapshot from before PostgreSQL's sizes were fully qualified is its
// size now (see snapPostgresSize).
func (ms *meterSnap) load(ks *keyspaceRec) error {
	if ms == nil {
		return nil
	}
	b := ks.branch
	size := snapPostgresSize(ms.Size, b.db.kind, b.region)
	if skuByName[size] == nil {
		return fmt.Errorf("metered size %q is not a cluster size", ms.Size)
	}
	ks.meter = meterOf(size, ms.Since)
	return nil
}

// billingSnap is an organization's billing; nil when it has none.
type billingSnap struct {
	Ended    []usageSpanSnap `json:"ended,omitempty"`
	Invoices []invoiceSnap   `json:"invoices,omitempty"`
	Payment  *paymentSnap    `json:"payment_method,omitempty"`
}

// billedBranchSnap is a branch as invoices name it.
type billedBranchSnap struct {
	DatabaseID   string    `json:"database_id"`
	DatabaseName string    `json:"database_name"`
	ID           string    `json:"id"`
	Name         string    `json:"name"`
	Created      time.Time `json:"created"`
	Updated      time.Time `json:"updated"`
}

type usageSpanSnap struct {
	Branch        billedBranchSnap `json:"branch"`
	Size          string           `json:"size"`
	Rate          int64            `json:"rate_cents"`
	From          time.Time        `json:"from"`
	To            time.Time        `json:"to"`
	BranchDeleted bool             `json:"branch_deleted,omitempty"`
}

type invoiceSnap struct {
	stampsSnap
	Start time.Time      `json:"start"`
	End   time.Time      `json:"end"`
	Paid  bool           `json:"paid"`
	Lines []lineItemSnap `json:"lines"`
}

type lineItemSnap struct {
	ID      string           `json:"id"`
	Branch  billedBranchSnap `json:"branch"`
	Deleted time.Time        `json:"deleted,omitzero"`
	Size    string           `json:"size"`
	Rate    int64            `json:"rate_cents"`
	Hours   int64            `json:"hours"`
	Amount  int64            `json:"amount_cents"`
}

type paymentSnap struct {
	ID     string        `json:"id"`
	Method PaymentMethod `json:"method"`
}

func saveBilledBranch(b billedBranch) billedBranchSnap {
	return billedBranchSnap{b.dbID, b.dbName, b.id, b.name, b.created, b.updated}
}

func (s billedBranchSnap) load() billedBranch {
	return billedBranch{s.DatabaseID, s.DatabaseName, s.ID, s.Name, s.Created, s.Updated}
}

func saveBilling(bl *orgBilling) *billingSnap {
	if len(bl.ended) == 0 && bl.invoices.Len() == 0 && bl.payment == nil {
		return nil
	}
	out := &billingSnap{}
	for _, sp := range bl.ended {
		out.Ended = append(out.Ended, usageSpanSnap{saveBilledBranch(sp.branch), sp.size, sp.rate, sp.from, sp.to, sp.branchDeleted})
	}
	for _, inv := range bl.invoices.All() {
		is := invoiceSnap{stampsSnap: saveStamps(inv.stamps), Start: inv.start, End: inv.end, Paid: inv.paid}
		for _, li := range inv.lines {
			is.Lines = append(is.Lines, lineItemSnap{li.id, saveBilledBranch(li.branch), li.deleted, li.size, li.rate, li.hours, li.amount})
		}
		out.Invoices = append(out.Invoices, is)
	}
	if pm := bl.payment; pm != nil {
		out.Payment = &paymentSnap{pm.id, pm.method}
	}
	return out
}

// load gives org the billing of the snapshot, checking what the API shows
// for consistency: known sizes, spans that end after they start, amounts
// that follow from the hours and rates.
func (bs *billingSnap) load(org *orgRec) error {
	if bs == nil {
		return nil
	}
	bl := &org.billing
	for _, ss := range bs.Ended {
		// PS_40_ARM, of a snapshot from before PostgreSQL's sizes were
		// fully qualified, is PS_40's ARM size: see nameBilledSizes.
		if skuByName[ss.Size] == nil && ss.Size != legacyARMSize || !ss.To.After(ss.From) {
			return fmt.Errorf("usage of branch %s: size %q from %v to %v is not a span of a cluster size", ss.Branch.ID, ss.Size, ss.From, ss.To)
		}
		bl.ended = append(bl.ended, &usageSpan{ss.Branch.load(), ss.Size, ss.Rate, ss.From, ss.To, ss.BranchDeleted})
	}
	for _, is := range bs.Invoices {
		if bl.invoices.Get(is.ID) != nil {
			return fmt.Errorf("invoice %s appears twice", is.ID)
		}
		inv := &invoiceRec{stamps: is.load(), start: is.Start, end: is.End, paid: is.Paid}
		for _, ls := range is.Lines {
			if ls.Amount != billedCents(ls.Rate, ls.Hours) {
				return fmt.Errorf("invoice %s: line item %s: %d cents is not %d hours at %d cents a month", is.ID, ls.ID, ls.Amount, ls.Hours, ls.Rate)
			}
			inv.lines = append(inv.lines, &lineItemRec{ls.ID, ls.Branch.load(), ls.Deleted, ls.Size, ls.Rate, ls.Hours, ls.Amount})
			inv.total += ls.Amount
		}
		bl.addInvoice(inv)
	}
	if ps := bs.Payment; ps != nil {
		if err := ps.Method.check(); err != nil {
			return fmt.Errorf("payment method: %w", err)
		}
		bl.payment = &paymentMethodRec{ps.ID, ps.Method}
	}
	return nil
}

// nameBilledSizes names the sizes of org's usage and invoices as the
// server names them now (see snapPostgresSize): on the provider of the
// billed branch's region (its database's when the snapshot lacks it). It
// runs once every database and branch is loaded.
func (ld *loader) nameBilledSizes(org *orgRec) {
	name := func(b billedBranch, size string) string {
		db := ld.dbs[b.dbID]
		if db == nil {
			return size
		}
		region := db.region
		if br := ld.branches[b.id]; br != nil {
			region = br.region
		}
		return snapPostgresSize(size, db.kind, region)
	}
	for _, sp := range org.billing.ended {
		sp.size = name(sp.branch, sp.size)
	}
	for _, inv := range org.billing.invoices.All() {
		for _, li := range inv.lines {
			li.size = name(li.branch, li.size)
		}
	}
}
