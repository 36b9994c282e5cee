package platform

import (
	"fmt"
	"net/url"
	"strings"
)

// required returns an *ArgError for the first of the name/value pairs whose
// value is empty, or is "." or "..": escaping leaves those as they are, and
// as a path segment they would change the route ("v1/organizations/.." is
// not an organization's path).
func required(pairs ...string) error {
	for i := 0; i+1 < len(pairs); i += 2 {
		switch v := pairs[i+1]; {
		case strings.HasPrefix(v, nilMark):
			return &ArgError{Arg: "params", Reason: "must not be nil: pass a " + v[len(nilMark):] + " with the path values set"}
		case strings.TrimSpace(v) == "":
			return &ArgError{Arg: pairs[i], Reason: "must not be empty"}
		case v == "." || v == "..":
			return &ArgError{Arg: pairs[i], Reason: fmt.Sprintf("%q is not a valid path value", v)}
		}
	}
	return nil
}

// pathf builds an operation path from a format and path values, escaping
// each value so that a "/" or "?" in a name cannot change the route. Each
// "%s" of format takes the next value; format has no other verbs, and as
// many "%s" as values.
func pathf(format string, values ...string) string {
	var stack [8]string
	escaped := stack[:0]
	n := len(format)
	for _, v := range values {
		e := url.PathEscape(v) // v itself when nothing needs escaping
		escaped = append(escaped, e)
		n += len(e)
	}
	var b strings.Builder
	b.Grow(n)
	for _, e := range escaped {
		i := strings.Index(format, "%s")
		b.WriteString(format[:i])
		b.WriteString(e)
		format = format[i+2:]
	}
	b.WriteString(format)
	return b.String()
}
