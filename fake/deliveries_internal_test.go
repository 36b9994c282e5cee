package fake

import (
	"testing"
	"time"
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
