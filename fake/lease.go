package fake

import (
	"math"
	"slices"
	"strings"
	"time"

	"github.com/dbplatform/platform-go"
)

// lease is the expiry of credentials created with a ttl (role credentials,
// branch passwords): they expire ttl seconds after their creation or last
// renewal. Expiry is read from the clock when asked, so no timer runs.
type lease struct {
	ttl       int       // seconds; 0: the credentials never expire
	expiresAt time.Time // zero without a ttl
}

// maxLeaseTTL is the longest ttl, in seconds, that a time.Duration holds.
const maxLeaseTTL = math.MaxInt64 / int64(time.Second)

// newLease validates an optional ttl in seconds (nil or 0: no expiry) and
// starts the lease at now.
func newLease(ttl *int, now time.Time) (lease, error) {
	if ttl == nil {
		return lease{}, nil
	}
	if *ttl < 0 || int64(*ttl) > maxLeaseTTL {
		return lease{}, unprocessable("ttl must be from 0 to %d seconds, got %d", maxLeaseTTL, *ttl)
	}
	l := lease{ttl: *ttl}
	if l.ttl > 0 {
		l.expiresAt = now.Add(time.Duration(l.ttl) * time.Second)
	}
	return l, nil
}

// expired reports whether the ttl has run out at now.
func (l *lease) expired(now time.Time) bool {
	return !l.expiresAt.IsZero() && !now.Before(l.expiresAt)
}

// renewable reports whether renew applies at now: a ttl that has not run
// out.
func (l *lease) renewable(now time.Time) bool { return l.ttl > 0 && !l.expired(now) }

// renew moves the expiry to now plus the ttl, or refuses, naming what and
// its state: credentials without a ttl, or expired ones.
func (l *lease) renew(what string, now time.Time) error {
	switch {
	case l.ttl == 0:
		return unprocessable("%s has no ttl and does not expire", what)
	case l.expired(now):
		return unprocessable("%s expired at %s and cannot be renewed; create new credentials", what, platform.NewTimestamp(l.expiresAt))
	}
	l.expiresAt = now.Add(time.Duration(l.ttl) * time.Second)
	return nil
}

// inStatus reports whether the lease is in a list's status filter at now:
// active (not expired), renewable or expired; every lease is in "".
func (l *lease) inStatus(status string, now time.Time) bool {
	switch status {
	case "active":
		return !l.expired(now)
	case "renewable":
		return l.renewable(now)
	case "expired":
		return l.expired(now)
	}
	return true
}

// leaseStatus reads a list's status filter from the query: active,
// renewable or expired, or one of more the list takes.
func leaseStatus(c *call, more ...string) (string, error) {
	status := c.r.URL.Query().Get("status")
	switch {
	case status == "", status == "active", status == "renewable", status == "expired", slices.Contains(more, status):
		return status, nil
	}
	return "", badRequest("status must be %s, got %q", strings.Join(append([]string{"active", "renewable", "expired"}, more...), ", "), status)
}
