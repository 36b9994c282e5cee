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

// waitFor polls get until done reports true or an error, or ctx ends. The
// waits between polls go through the client's sleep function, so a fake's
// virtual clock moves instead of the caller sleeping.
func waitFor[T any](ctx context.Context, c *Client, get func(context.Context) (*T, error), done func(*T) (bool, error)) (*T, error) {
	wait := waitMin
	for {
		v, err := get(ctx)
		if err != nil {
			return nil, err
		}
		ok, err := done(v)
		if err != nil || ok {
			return v, err
		}
		if err := c.sleep(ctx, wait); err != nil {
			return v, err
		}
		wait = min(wait*2, waitMax)
	}
}
