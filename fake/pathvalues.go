package fake

import "strconv"

// This file holds the reading of path values that several groups share:
// the {number} of a deploy request, a workflow or a schema recommendation.

// resourceNumber reads a path's {number} in the one form the API writes it,
// canonical decimal (no sign, no leading zero, nothing around it), so that
// a resource has one path: "01" or "+1" is no number, and the path's
// resource is not found.
func resourceNumber(s string) (int, bool) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || strconv.Itoa(n) != s {
		return 0, false
	}
	return n, true
}
