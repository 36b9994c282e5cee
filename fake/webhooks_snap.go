package fake

import (
	"errors"
	"fmt"
	"time"

	"github.com/dbplatform/platform-go"
)

// The snapshot of webhooks, with their database.

type webhookSnap struct {
	stampsSnap
	URL             string                  `json:"url"`
	Secret          string                  `json:"secret"`
	Enabled         bool                    `json:"enabled"`
	Events          []platform.WebhookEvent `json:"events"`
	LastSent        time.Time               `json:"last_sent"`
	LastSentResult  string                  `json:"last_sent_result"`
	LastSentSuccess bool                    `json:"last_sent_success"`
	Failures        int                     `json:"failures"`
	LastTest        time.Time               `json:"last_test"`
}

func saveWebhook(h *webhookRec) webhookSnap {
	return webhookSnap{
		stampsSnap: saveStamps(h.stamps), URL: h.url, Secret: h.secret, Enabled: h.enabled, Events: h.events,
		LastSent: h.lastSent, LastSentResult: h.lastSentResult, LastSentSuccess: h.lastSentSuccess,
		Failures: h.failures, LastTest: h.lastTest,
	}
}

func loadWebhook(db *dbRec, hs webhookSnap) *webhookRec {
	return &webhookRec{
		stamps: hs.load(), db: db, url: hs.URL, secret: hs.Secret, enabled: hs.Enabled, events: hs.Events,
		lastSent: hs.LastSent, lastSentResult: hs.LastSentResult, lastSentSuccess: hs.LastSentSuccess,
		failures: hs.Failures, lastTest: hs.LastTest,
	}
}

// validate checks what create_webhook and update_webhook check: the URL,
// and the events, known and each once.
func (hs *webhookSnap) validate() error {
	events, err := checkWebhookEvents(hs.Events)
	if err == nil && len(events) != len(hs.Events) {
		err = errors.New("an event appears twice")
	}
	return firstErr(at(snapCheck(checkWebhookURL(hs.URL)), "url"), at(snapCheck(err), "events"))
}

// saveWebhooks saves the webhooks of db.
func saveWebhooks(db *dbRec) []webhookSnap {
	var out []webhookSnap
	for _, h := range db.more.read().webhooks.All() {
		out = append(out, saveWebhook(h))
	}
	return out
}

// loadWebhooks loads the webhooks of db.
func (ld *loader) loadWebhooks(db *dbRec, list []webhookSnap) error {
	if len(list) > maxWebhooks {
		return at(fmt.Errorf("%d webhooks, over the %d a database can have", len(list), maxWebhooks), "webhooks")
	}
	for i, hs := range list {
		if err := uniqueIn(&db.x().webhooks.Store, hs.ID, "webhook"); err != nil {
			return at(err, "webhooks[%d].id", i)
		}
		if err := hs.validate(); err != nil {
			return at(err, "webhooks[%d]", i)
		}
		db.x().webhooks.Add(loadWebhook(db, hs))
	}
	return nil
}
