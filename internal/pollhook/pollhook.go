// Package pollhook carries what the SDK's waiters tell the transport and
// the sleep function of a client, and what the transport tells a waiter
// back: the hooks by which the fake's clients run its virtual clock ahead
// of a waiter's polls and report a wait that cannot end. They pass only
// through a request's context, between the SDK and a transport in this
// module: nothing a server sends can set them.
package pollhook

import (
	"context"
	"sync"
)

type (
	waitKey  struct{}
	condKey  struct{}
	probeKey struct{}
)

// MarkWait returns ctx marked as the context of a waiter's wait between two
// polls (see IsWait), after the poll whose probe is last (see LastPoll).
func MarkWait(ctx context.Context, last *Probe) context.Context {
	return context.WithValue(ctx, waitKey{}, last)
}

// LastPoll returns the probe of the poll before a waiter's wait, or nil if
// ctx is not a wait's.
func LastPoll(ctx context.Context) *Probe {
	p, _ := ctx.Value(waitKey{}).(*Probe)
	return p
}

// IsWait reports whether a sleep function is called for a waiter's wait
// between two polls, rather than for retry backoff. Such a wait may end
// early, at any moment the polled resource may have changed: polling sooner
// only costs a request. (Retry backoff may not: it honours the server's
// Retry-After.)
func IsWait(ctx context.Context) bool {
	return ctx.Value(waitKey{}) != nil
}

// Cond is the condition of a waiter's poll: whether an answer shows what
// the waiter waits for (an error ends the wait too).
type Cond struct {
	// Body reads the body of a successful response.
	Body func(body []byte) (done bool, err error)
	// Value reads the resource a server in this module rendered for the
	// answer, before it encoded it: ok is false when v is not of the type
	// the waiter decodes the body into, and then Body is to read the body.
	Value func(v any) (ok, done bool, err error)
}

// WithCondition returns ctx carrying the condition of a waiter's poll.
func WithCondition(ctx context.Context, cond Cond) context.Context {
	return context.WithValue(ctx, condKey{}, cond)
}

// Condition returns the condition a waiter sends a poll for; ok is false
// for any other request, and for the polls of waiters that read more than
// one response.
func Condition(ctx context.Context) (cond Cond, ok bool) {
	cond, ok = ctx.Value(condKey{}).(Cond)
	return cond, ok
}

// Probe collects, over one poll of a waiter, the first reason the
// transport noted that the poll's resource cannot move (NoteUnreachable),
// and what the transport noted as the poll's first request
// left (see NoteSent).
type Probe struct {
	mu          sync.Mutex
	unreachable string
	sent        uint64
	noted       bool
}

// WithProbe returns ctx carrying a new Probe for the requests of one poll,
// and the probe.
func WithProbe(ctx context.Context) (context.Context, *Probe) {
	p := new(Probe)
	return context.WithValue(ctx, probeKey{}, p), p
}

// IsPoll reports whether ctx is that of a waiter's poll.
func IsPoll(ctx context.Context) bool {
	return ctx.Value(probeKey{}) != nil
}

// NoteUnreachable records in the probe of ctx, if ctx has one and the
// probe holds no reason yet, why no scheduled transition can move what the
// poll reads: a query string of resource, state and reason, which the
// waiter reports as its error.
func NoteUnreachable(ctx context.Context, why string) {
	p, _ := ctx.Value(probeKey{}).(*Probe)
	if p == nil || why == "" {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.unreachable == "" {
		p.unreachable = why
	}
}

// Unreachable returns the reason an answer gave that no scheduled
// transition moves what the waiter polls, or "".
func (p *Probe) Unreachable() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.unreachable
}

// NoteSent records n in the probe of ctx, if ctx has one and the probe
// holds no n yet: a count the transport keeps of what changes a server's
// state of its own accord (the fake's clock transitions), as the poll's
// first request leaves. Comparing it with the count at the wait after the
// poll tells whether the state may have changed since the poll read it.
func NoteSent(ctx context.Context, n uint64) {
	p, _ := ctx.Value(probeKey{}).(*Probe)
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.noted {
		p.sent, p.noted = n, true
	}
}

// Sent returns what NoteSent recorded for the poll; ok is false if nothing
// was, or p is nil.
func (p *Probe) Sent() (n uint64, ok bool) {
	if p == nil {
		return 0, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sent, p.noted
}
