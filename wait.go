package platform

import (
	"context"
	"strings"
	"time"
)

// Waiting polls with waits that start at waitMin and double up to waitMax.
const (
	waitMin = time.Second
	waitMax = 15 * time.Second
)

// StateError is returned by a waiter that saw the resource reach a state it
// can no longer leave for the wanted one.
type StateError struct {
	// Resource names what was waited on ("backup 7x2k...").
	Resource string
	// State is the state that ended the wait.
	State string
	// Want lists the states that were waited for.
	Want []string
}

// Error implements error.
func (e *StateError) Error() string {
	return "platform: " + e.Resource + " reached state " + e.State + " while waiting for " + strings.Join(e.Want, " or ")
}

// pollWaitKey marks the context of a waiter's wait between polls.
type pollWaitKey struct{}

// IsPollWait reports whether a [SleepFunc] is called for a waiter's wait
// between two polls, rather than for retry backoff. Such a wait may end
// early, at any moment the polled resource may have changed: polling sooner
// only costs a request. (Retry backoff may not: it honours the server's
// Retry-After.) The fake's clients use it to move the virtual clock straight
// to the next scheduled transition instead of by the waiter's growing steps.
func IsPollWait(ctx context.Context) bool {
	return ctx.Value(pollWaitKey{}) != nil
}

// waitFor polls get until done reports true or an error, or ctx ends. The
// waits between polls go through the client's sleep function, marked for
// [IsPollWait], so a fake's virtual clock moves instead of the caller
// sleeping.
func waitFor[T any](ctx context.Context, c *Client, get func(context.Context) (*T, error), done func(*T) (bool, error)) (*T, error) {
	wait := waitMin
	pollWait := context.WithValue(ctx, pollWaitKey{}, true)
	for {
		v, err := get(ctx)
		if err != nil {
			return nil, err
		}
		ok, err := done(v)
		if err != nil || ok {
			return v, err
		}
		if err := c.sleep(pollWait, wait); err != nil {
			return v, err
		}
		wait = min(wait*2, waitMax)
	}
}
