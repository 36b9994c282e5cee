package fake

// invoiceJob issues an organization's invoice for the month that ended at
// the boundary it is due at, and schedules the next one.
type invoiceJob struct{ org *orgRec }

func (j invoiceJob) run(w *world) {
	now := w.clock.Now()
	w.issueInvoice(j.org, monthStart(now), now)
	scheduleInvoice(w, j.org, now)
}

func (j invoiceJob) save() jobSnap { return jobSnap{Kind: "invoice.issue", ID: j.org.id} }

func (invoiceJob) keep(*saver) bool { return true }

func loadInvoiceJob(ld *loader, js jobSnap) (job, error) {
	org, err := refNonNil(ld.orgs, js.ID, "organization")
	return invoiceJob{org}, err
}
