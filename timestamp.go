package platform

import (
	"fmt"
	"time"
)

// TimeLayout is the API's timestamp format: RFC 3339 in UTC with
// milliseconds ("2026-01-14T10:19:23.000Z").
const TimeLayout = "2006-01-02T15:04:05.000Z07:00"

// Timestamp is a time in the API's format. It decodes RFC 3339 times as
// time.Time does (upper-case T and Z), keeping their offset, and encodes in
// [TimeLayout], in UTC.
type Timestamp struct {
	time.Time
}

// NewTimestamp returns t as a Timestamp, truncated to milliseconds as the
// API reports it.
func NewTimestamp(t time.Time) Timestamp {
	return Timestamp{t.UTC().Truncate(time.Millisecond)}
}

// MarshalJSON encodes the time in [TimeLayout]. A time whose year, in UTC,
// is outside 0..9999 has no such text (UnmarshalJSON would refuse it): it is
// an error, as it is for time.Time's MarshalJSON.
func (t Timestamp) MarshalJSON() ([]byte, error) {
	if y := t.UTC().Year(); y < 0 || y > 9999 {
		return nil, fmt.Errorf("platform: Timestamp.MarshalJSON: year %d is outside the range 0..9999", y)
	}
	b := make([]byte, 0, len(TimeLayout)+2)
	b = append(b, '"')
	b = t.appendLayout(b)
	return append(b, '"'), nil
}

// appendLayout appends the time in [TimeLayout] to b. Formatted with that
// layout, AppendFormat reads the layout anew every time; time.RFC3339 has
// a path of its own, several times faster, which gives the same text to
// the second: the milliseconds then go before its "Z".
func (t Timestamp) appendLayout(b []byte) []byte {
	u := t.UTC()
	b = u.AppendFormat(b, time.RFC3339)
	ms := u.Nanosecond() / int(time.Millisecond)
	return append(b[:len(b)-1], '.', byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10), 'Z')
}

// UnmarshalJSON decodes an RFC 3339 time; null leaves t as it is.
func (t *Timestamp) UnmarshalJSON(b []byte) error {
	if err := nilTarget(t); err != nil {
		return err
	}
	if string(b) == "null" {
		return nil
	}
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return fmt.Errorf("platform: timestamp %s is not a JSON string", b)
	}
	// time.Time's own decoding reads RFC 3339 from the bytes, without
	// copying them into a string first.
	var v time.Time
	if err := v.UnmarshalJSON(b); err != nil {
		return fmt.Errorf("platform: timestamp %s: %w", b, err)
	}
	t.Time = v
	return nil
}

// String formats the time in [TimeLayout].
func (t Timestamp) String() string { return string(t.appendLayout(make([]byte, 0, len(TimeLayout)))) }
