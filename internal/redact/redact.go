// Package redact keeps secrets out of error texts: the SDK's own
// credentials that a server echoed back (package platform), and the values
// a request to the authorization server sent in its form (package oauth).
package redact

import "strings"

// Marker stands, in a text, for each secret taken out of it.
const Marker = "[REDACTED]"

// Text returns s with each of secrets (the empty ones aside) replaced by
// Marker.
func Text(s string, secrets ...string) string {
	for _, secret := range secrets {
		if secret != "" && strings.Contains(s, secret) {
			s = strings.ReplaceAll(s, secret, Marker)
		}
	}
	return s
}

// Error returns err when its text holds none of secrets; otherwise an error
// whose text has them replaced by Marker, and which unwraps to err (for
// errors.Is and errors.As). A nil err stays nil.
func Error(err error, secrets ...string) error {
	if err == nil {
		return nil
	}
	text := err.Error()
	if r := Text(text, secrets...); r != text {
		return &redacted{text: r, err: err}
	}
	return err
}

// redacted is an error whose text had a secret replaced.
type redacted struct {
	text string
	err  error
}

func (e *redacted) Error() string { return e.text }

func (e *redacted) Unwrap() error { return e.err }
