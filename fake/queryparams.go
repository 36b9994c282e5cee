package fake

// This file holds the parsing of query parameters that several groups'
// lists and reads take.

import (
	"strings"
	"time"
)

// boolQuery parses an optional boolean query parameter.
func boolQuery(v, name string) (bool, error) {
	switch v {
	case "", "false", "0":
		return false, nil
	case "true", "1":
		return true, nil
	}
	return false, badRequest("%s must be true or false, got %q", name, v)
}

// triQuery parses an optional boolean filter: nil when absent.
func triQuery(v, name string) (*bool, error) {
	if v == "" {
		return nil, nil
	}
	b, err := boolQuery(v, name)
	if err != nil {
		return nil, err
	}
	return &b, nil
}

// timeQuery parses an optional RFC 3339 time; zero when absent.
func timeQuery(v, name string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, badRequest("%s must be an RFC 3339 time such as 2026-01-02T15:04:05Z, got %q", name, v)
	}
	return t, nil
}

// rangeQuery parses an optional range "START..END" of RFC 3339 times;
// zero times when absent.
func rangeQuery(v, name string) (from, to time.Time, err error) {
	if v == "" {
		return from, to, nil
	}
	lo, hi, ok := strings.Cut(v, "..")
	if !ok {
		return from, to, badRequest("%s must be a range START..END of RFC 3339 times, got %q", name, v)
	}
	if from, err = timeQuery(lo, name+" start"); err != nil {
		return from, to, err
	}
	if to, err = timeQuery(hi, name+" end"); err != nil {
		return from, to, err
	}
	if from.IsZero() || to.IsZero() || to.Before(from) {
		return from, to, badRequest("%s must be a range START..END with START not after END, got %q", name, v)
	}
	return from, to, nil
}
