package fake

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestSettleAttemptOutOfRange checks that a failed attempt whose number is
// outside the retries there are (as a crafted snapshot could hold) gets no
// retry, rather than a panic that ends the process.
func TestSettleAttemptOutOfRange(t *testing.T) {
	t.Parallel()
	s := NewServer(t)
	for _, attempt := range []int{-1, 0, len(webhookRetryDelays) + 1} {
		h := &webhookRec{db: &dbRec{}, enabled: true}
		scheduled := func() int {
			s.mu.Lock()
			defer s.mu.Unlock()
			before := s.world.clock.Len()
			s.settle(&delivery{hook: h, attempt: attempt}, &attemptRec{}, 500, nil)
			return s.world.clock.Len() - before
		}()
		if scheduled != 0 {
			t.Errorf("attempt %d: %d transitions scheduled, want none", attempt, scheduled)
		}
	}
	s.Advance(time.Hour)
}

// TestSettleFollowsSendOrder settles a webhook's attempts in another order
// than they were sent, as receivers that answer at different speeds do,
// and checks that the webhook's record follows the send order: last_sent_*
// show the latest attempt sent whose result is in, and the failures in a
// row count in send order (see sendOrder).
func TestSettleFollowsSendOrder(t *testing.T) {
	t.Parallel()
	// finish is an attempt's result coming in: which attempt (1 for the
	// first sent) and its status; attempt 0 enables the webhook again
	// instead, as update_webhook does.
	type finish struct{ attempt, status int }
	type record struct {
		LastSent time.Time
		Result   string
		Success  bool
		Failures int
		Enabled  bool
	}
	t0 := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		sent int
		// apart is the time between two attempts; 0 sends them at the same
		// instant of the fake's clock.
		apart    time.Duration
		finishes []finish
		// wantLast is the attempt last_sent_* show.
		wantLast     int
		wantFailures int
		wantDisabled bool
	}{
		{name: "in send order", sent: 2, apart: 5 * time.Second, finishes: []finish{{1, 500}, {2, 200}}, wantLast: 2},
		{name: "older failure after newer success", sent: 2, apart: 5 * time.Second, finishes: []finish{{2, 200}, {1, 500}}, wantLast: 2},
		{name: "older failure after newer success, same instant", sent: 2, finishes: []finish{{2, 200}, {1, 500}}, wantLast: 2},
		{name: "older success after newer failure", sent: 2, apart: 5 * time.Second, finishes: []finish{{2, 500}, {1, 200}}, wantLast: 2, wantFailures: 1},
		{name: "late success clears only the failures sent before it", sent: 3, apart: time.Second,
			finishes: []finish{{1, 500}, {3, 500}, {2, 200}}, wantLast: 3, wantFailures: 1},
		{name: "late failure sent after the last success counts", sent: 3, apart: time.Second,
			finishes: []finish{{1, 200}, {3, 500}, {2, 500}}, wantLast: 3, wantFailures: 2},
		{name: "late failures after a newer success do not disable", sent: 6, apart: time.Second,
			finishes: []finish{{6, 200}, {1, 500}, {2, 500}, {3, 500}, {4, 500}, {5, 500}}, wantLast: 6},
		{name: "five failures in any finishing order disable", sent: 5, apart: time.Second,
			finishes: []finish{{5, 500}, {3, 500}, {4, 500}, {1, 500}, {2, 500}}, wantLast: 5, wantFailures: 5, wantDisabled: true},
		{name: "enabling again starts a new count", sent: 3, apart: time.Second,
			finishes: []finish{{2, 500}, {0, 0}, {3, 500}, {1, 200}}, wantLast: 3, wantFailures: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := NewServer(t)
			h := &webhookRec{db: &dbRec{}, enabled: true}
			// The last attempt of a delivery: a failure schedules no retry.
			d := &delivery{hook: h, attempt: len(webhookRetryDelays) + 1}
			var recs []*attemptRec
			s.mu.Lock()
			for i := range tc.sent {
				s.hooks.sent++
				recs = append(recs, &attemptRec{Delivery: Delivery{At: t0.Add(time.Duration(i) * tc.apart)}, seq: s.hooks.sent})
			}
			for _, f := range tc.finishes {
				if f.attempt == 0 { // update_webhook enabling it again
					h.enabled = true
					s.hooks.restartCount(h)
					continue
				}
				s.settle(d, recs[f.attempt-1], f.status, nil)
			}
			got := record{h.lastSent, h.lastSentResult, h.lastSentSuccess, h.failures, h.enabled}
			s.mu.Unlock()
			last := recs[tc.wantLast-1]
			want := record{last.At, last.Result(), last.Success, tc.wantFailures, !tc.wantDisabled}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("webhook after the attempts finished (-want +got):\n%s", diff)
			}
		})
	}
}
