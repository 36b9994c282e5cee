package fake

import (
	"errors"
	"fmt"

	"github.com/dbplatform/platform-go"
)

// retryJob sends the next attempt of a delivery, unless its webhook was
// deleted or disabled meanwhile.
type retryJob struct{ d *delivery }

func (j retryJob) run(w *world) {
	h := j.d.hook
	if h.deleted || h.db.deleted || !h.enabled {
		return
	}
	w.host.send(j.d)
}

// deliverySnap is a webhook delivery waiting for its retry.
type deliverySnap struct {
	ID      string                `json:"id"`
	Event   platform.WebhookEvent `json:"event"`
	Body    []byte                `json:"body"`
	Attempt int                   `json:"attempt"`
	// Retry is always true: every failed delivery is retried (earlier
	// fakes did not retry webhook.test, and wrote false for nothing on the
	// clock).
	Retry bool `json:"retry"`
}

func (j retryJob) save() jobSnap {
	d := j.d
	return jobSnap{Kind: "webhook.retry", ID: d.hook.id, Delivery: &deliverySnap{d.id, d.event, d.body, d.attempt, true}}
}

func (j retryJob) keep(sv *saver) bool {
	return sv.dbSet[j.d.hook.db] && !j.d.hook.deleted
}

func loadRetryJob(ld *loader, js jobSnap) (job, error) {
	ds := js.Delivery
	if ds == nil {
		return nil, fmt.Errorf("no delivery")
	}
	// A retry job holds the attempt it sends next: 2 for the first retry,
	// one more than the retries there are for the last.
	if err := snapRange(ds.Attempt, 2, len(webhookRetryDelays)+1); err != nil {
		return nil, at(err, "delivery.attempt")
	}
	if !ds.Retry {
		return nil, at(errors.New("a delivery that is not retried has no retry on the clock"), "delivery.retry")
	}
	for _, db := range ld.dbs {
		if h := db.x().webhooks.Get(js.ID); h != nil {
			return retryJob{&delivery{hook: h, id: ds.ID, event: ds.Event, body: ds.Body, attempt: ds.Attempt}}, nil
		}
	}
	return nil, fmt.Errorf("webhook %q is not in the snapshot", js.ID)
}
