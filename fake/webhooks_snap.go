package fake

import (
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
	for i, hs := range list {
		if err := uniqueIn(&db.x().webhooks.Store, hs.ID, "webhook"); err != nil {
			return at(err, "webhooks[%d].id", i)
		}
		db.x().webhooks.Add(loadWebhook(db, hs))
	}
	return nil
}
