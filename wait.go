package platform

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"time"

	"github.com/dbplatform/platform-go/internal/pollhook"
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

// UnreachableError is returned by a waiter, on a client of a fake with a
// virtual clock, when no scheduled transition can bring what it waits on to
// the state it waits for: the resource waits for a call of the API (a
// deploy request to be applied, a workflow's next step). Against a real
// server waiters never return it; they poll (every second at first,
// backing off to every 15 seconds) until the state is reached, the
// resource fails, a poll fails after its retries (its error is returned),
// or the context ends. They have no timeout of their own: give the
// context a deadline.
type UnreachableError struct {
	// Resource names what was waited on ("deployment of deploy request #7").
	Resource string
	// State is the resource's state when the wait ended ("pending_cutover").
	State string
	// Reason says what would move it on ("it waits to be applied
	// (DeployRequests.ApplyDeploy)").
	Reason string
}

// Error implements error.
func (e *UnreachableError) Error() string {
	return "platform: " + e.Resource + " is " + e.State + " and nothing scheduled moves it: " + e.Reason
}

// unreachable decodes what the fake's transport noted with
// [pollhook.NoteUnreachable].
func unreachable(v string) *UnreachableError {
	q, _ := url.ParseQuery(v)
	return &UnreachableError{Resource: q.Get("resource"), State: q.Get("state"), Reason: q.Get("reason")}
}

// waitFor polls get until done reports true or an error, or ctx ends. The
// waits between polls go through the client's sleep function, marked for
// [pollhook.IsWait], so a fake's virtual clock moves instead of the caller
// sleeping; the mark carries the poll's probe (see [pollhook.LastPoll]), by
// which a fake on a real-time clock sees whether a transition ran since the
// poll left. Each poll's requests carry a [pollhook.Probe]: when an answer
// says that nothing scheduled can move what the waiter polls (a fake's
// client only), a poll that is not done ends the wait with an
// [*UnreachableError].
func waitFor[T any](ctx context.Context, c *Client, get func(context.Context) (*T, error), done func(*T) (bool, error)) (*T, error) {
	wait := waitMin
	for {
		pollCtx, probe := pollhook.WithProbe(ctx)
		v, err := get(pollCtx)
		if err != nil {
			return nil, err
		}
		ok, err := done(v)
		if err != nil || ok {
			return v, err
		}
		if why := probe.Unreachable(); why != "" {
			return v, unreachable(why)
		}
		if err := c.sleep(pollhook.MarkWait(ctx, probe), wait); err != nil {
			return v, err
		}
		wait = min(wait*2, waitMax)
	}
}

// waitForGet is waitFor for a waiter whose poll is one request answering a
// T: each poll carries done as its [pollhook.Condition], applied to the
// body, or to the T a fake rendered for it unless T decodes itself, by
// which a fake's client moves its virtual clock to the first moment the
// condition holds before the poll is answered.
func waitForGet[T any](ctx context.Context, c *Client, get func(context.Context) (*T, error), done func(*T) (bool, error)) (*T, error) {
	// A T that decodes itself may read its body into more than the fields
	// a server set (the Vitess envelopes): it is read from its body.
	_, decodesItself := any(new(T)).(json.Unmarshaler)
	cond := pollhook.Cond{
		Body: func(body []byte) (bool, error) {
			v := new(T)
			if err := json.Unmarshal(body, v); err != nil {
				return false, err
			}
			return done(v)
		},
		Value: func(v any) (ok, isDone bool, err error) {
			t, ok := v.(*T)
			if !ok || decodesItself {
				return false, false, nil
			}
			isDone, err = done(t)
			return true, isDone, err
		},
	}
	return waitFor(ctx, c, func(ctx context.Context) (*T, error) { return get(pollhook.WithCondition(ctx, cond)) }, done)
}
