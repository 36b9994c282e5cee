package fake

import (
	"regexp"
	"time"
	_ "time/tzdata" // the zone database, so that the check is the same on a host without one
)

// This file holds the check of a time zone's name, which the VReplication
// workflows that convert times (MoveTables and Materialize) share.

// checkTimeZone checks tz, a time zone given as field: a name of the IANA
// database (UTC, Europe/Paris), not "Local", whose meaning is the host's.
func checkTimeZone(field, tz string) *apiError {
	if timeZoneRe.MatchString(tz) && tz != "Local" {
		if _, err := time.LoadLocation(tz); err == nil {
			return nil
		}
	}
	return unprocessable("%s %q is not an IANA time zone such as UTC or Europe/Paris", field, tz)
}

// timeZoneRe is what a time zone's name looks like: it keeps paths and
// other files of the zone database's directory out of time.LoadLocation.
var timeZoneRe = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_+-]*(/[A-Za-z0-9_+-]+)*$`)
