package fake

import (
	"context"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/dbplatform/platform-go"
)

// maxPollAhead bounds the transitions the clock runs through ahead of one
// poll; past it, the waiter polls and waits as it would anyway.
const maxPollAhead = 100

// pollAhead is the transport of the fake's clients. Before a waiter's poll
// on a virtual clock, it moves the clock one scheduled transition at a time
// until what the poll reads satisfies the waiter's condition
// ([platform.PollCondition]): the poll then sees the state the waiter waits
// for, at the moment it was reached, and the waiter makes one request
// instead of one after each transition. Every other request goes straight
// to the server.
type pollAhead struct {
	s    *Server
	base http.RoundTripper
}

func (t pollAhead) RoundTrip(r *http.Request) (*http.Response, error) {
	if cond, ok := platform.PollCondition(r.Context()); ok && r.Method == http.MethodGet && !t.s.clock.real {
		t.s.advanceUntil(r, cond)
	}
	return t.base.RoundTrip(r)
}

// advanceUntil runs the clock to each next scheduled transition in turn
// until r, read by the server for itself (peek), answers 200 with a body
// that satisfies cond or makes it fail, an answer that is not 200 (the
// poll reports it), nothing is scheduled, r's context ends, or
// maxPollAhead transitions have run.
func (s *Server) advanceUntil(r *http.Request, cond func([]byte) (bool, error)) {
	for range maxPollAhead {
		if r.Context().Err() != nil {
			return
		}
		status, body := s.peek(r)
		if status != http.StatusOK {
			return
		}
		if done, err := cond(body); done || err != nil {
			return
		}
		moved := false
		s.runClock(func() time.Time {
			next, ok := s.clock.next()
			if !ok {
				return s.clock.now
			}
			moved = true
			return next
		})
		if !moved {
			return
		}
	}
}

// peekKey marks a read the server makes for itself (see peek).
type peekKey struct{}

// peeking reports whether r is a read the server makes for itself.
func peeking(r *http.Request) bool { return r.Context().Value(peekKey{}) != nil }

// peek serves a read as the API would answer it now, for the server's own
// use: it leaves no trace a client could see (no request ID taken, no entry
// in the request log, not counted by the rate limit) and no fault rule
// applies to it.
func (s *Server) peek(r *http.Request) (int, []byte) {
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, r.WithContext(context.WithValue(r.Context(), peekKey{}, true)))
	return rec.Code, rec.Body.Bytes()
}
