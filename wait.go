package platform

import (
	"context"
	"encoding/json"
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

// pollCondKey marks the context of a waiter's poll with the wait's
// condition; see [PollCondition].
type pollCondKey struct{}

// PollCondition returns the condition a waiter sends a poll for, applied to
// the body of a successful response: whether it shows what the waiter waits
// for (an error ends the wait too). ok is false for any other request, and
// for the polls of waiters that read more than one response. The fake's
// clients use it to move the virtual clock, one scheduled transition at a
// time, to the first moment the condition holds before the poll is
// answered, so that a waiter polls once; against any other server nothing
// reads it, and the waiter polls with backoff.
func PollCondition(ctx context.Context) (cond func(body []byte) (bool, error), ok bool) {
	cond, ok = ctx.Value(pollCondKey{}).(func([]byte) (bool, error))
	return cond, ok
}

// waitForGet is waitFor for a waiter whose poll is one request answering a
// T: each poll carries done, applied to the body, as its [PollCondition].
func waitForGet[T any](ctx context.Context, c *Client, get func(context.Context) (*T, error), done func(*T) (bool, error)) (*T, error) {
	pollCtx := context.WithValue(ctx, pollCondKey{}, func(body []byte) (bool, error) {
		v := new(T)
		if err := json.Unmarshal(body, v); err != nil {
			return false, err
		}
		return done(v)
	})
	return waitFor(ctx, c, func(context.Context) (*T, error) { return get(pollCtx) }, done)
}
