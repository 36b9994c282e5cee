package fake

import (
	"fmt"
	"net/http"
)

// apiError is an error response: its status and the body's code and message.
type apiError struct {
	status     int
	code       string
	message    string
	retryAfter int // seconds, for 429
	// reason is what the request log gives for the refusal, when the
	// message does not say it (see reasons.go); never sent.
	reason string
	// body, when set, is sent instead of the code and message: the few
	// refusals the API answers with a record (an expired export's 410).
	body any
	// available are the choices a connections request that lacks its
	// keyspace or shard is offered (see connections.go); sent.
	available *targetChoices
}

func (e *apiError) Error() string { return fmt.Sprintf("%d %s: %s", e.status, e.code, e.message) }

func errf(status int, code, format string, args ...any) *apiError {
	return &apiError{status: status, code: code, message: fmt.Sprintf(format, args...)}
}

// notFound is the one answer for a missing resource and for a missing
// permission, which the API does not tell apart.
func notFound() *apiError { return errf(http.StatusNotFound, "not_found", "Not Found") }

func badRequest(format string, args ...any) *apiError {
	return errf(http.StatusBadRequest, "bad_request", format, args...)
}

func unprocessable(format string, args ...any) *apiError {
	return errf(http.StatusUnprocessableEntity, "unprocessable", format, args...)
}

func unauthorized(format string, args ...any) *apiError {
	return errf(http.StatusUnauthorized, "unauthorized", format, args...)
}

func forbidden(format string, args ...any) *apiError {
	return errf(http.StatusForbidden, "forbidden", format, args...)
}

// offering adds the choices of a connections target to e's body.
func (e *apiError) offering(choices targetChoices) *apiError {
	e.available = &choices
	return e
}

// errorBody is the JSON of an error response.
type errorBody struct {
	Code      string         `json:"code"`
	Message   string         `json:"message"`
	Available *targetChoices `json:"available,omitempty"`
}

// methodError is the error of a method of Server: "fake: Method: why". An
// API refusal it wraps (a check the API makes too) gives its message, not
// its status: the Go API has none.
type methodError struct {
	method string
	err    error
}

// methodErr wraps err, the reason method of Server failed.
func methodErr(method string, err error) error { return &methodError{method: method, err: err} }

func (e *methodError) Error() string {
	if ae, ok := e.err.(*apiError); ok {
		return "fake: " + e.method + ": " + ae.message
	}
	return "fake: " + e.method + ": " + e.err.Error()
}

func (e *methodError) Unwrap() error { return e.err }
