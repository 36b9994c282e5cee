package platform

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/dbplatform/platform-go/internal/redact"
)

// Sentinel errors that an [*Error] matches with [errors.Is], by status code.
var (
	// ErrInvalid matches 400 Bad Request (malformed JSON or a bad query
	// value), and an [*ArgError], the bad argument the client caught first.
	ErrInvalid = errors.New("platform: invalid request")
	// ErrUnauthorized matches 401: missing, malformed, revoked or expired credentials.
	ErrUnauthorized = errors.New("platform: unauthorized")
	// ErrForbidden matches 403: permitted, but a rule forbids the action.
	ErrForbidden = errors.New("platform: forbidden")
	// ErrNotFound matches 404: no such resource, or the credentials lack the
	// permission to see it (the API does not tell the two apart).
	ErrNotFound = errors.New("platform: not found")
	// ErrPayloadTooLarge matches 413: the request body is over the limit.
	ErrPayloadTooLarge = errors.New("platform: payload too large")
	// ErrUnprocessable matches 422: a valid request that the current state
	// refuses (a missing field, a taken name, an illegal transition).
	ErrUnprocessable = errors.New("platform: unprocessable")
	// ErrGone matches 410: the resource existed and is no longer served
	// (an expired export, an expired download address).
	ErrGone = errors.New("platform: gone")
	// ErrRateLimited matches 429: over the rate limit; see [Error.RetryAfter].
	ErrRateLimited = errors.New("platform: rate limited")
	// ErrInternal matches any 5xx status.
	ErrInternal = errors.New("platform: internal server error")
)

// maxErrorBody bounds how much of an error response is read.
const maxErrorBody = 64 << 10

// Error is an error response from the API. Only Code, Message and
// Available come from the body, each on its own (one of the wrong JSON type
// is left unset, and the others are kept); the other fields are tagged out
// of JSON so that a body's "path" or "statuscode" key cannot overwrite them.
type Error struct {
	// StatusCode is the HTTP status.
	StatusCode int `json:"-"`
	// Code is the machine-readable code of the body ("not_found", "unprocessable", ...).
	Code string `json:"code"`
	// Message is the human-readable explanation; it names the offending
	// field or state.
	Message string `json:"message"`
	// RequestID is the X-Request-Id of the response, for support requests.
	RequestID string `json:"-"`
	// RetryAfter is the wait the response's Retry-After header asked for
	// (429 and 503 send one), or zero.
	RetryAfter time.Duration `json:"-"`
	// Method and Path are those of the request that failed.
	Method, Path string `json:"-"`
	// Available are the choices of a connections request that lacks its
	// keyspace or shard (a 400); nil otherwise.
	Available *TargetChoices `json:"available,omitempty"`
}

// errorBodyKey carries, in a request's context, where newError copies the
// body of an error answer: for the few operations whose error answer is a
// resource rather than a code and message (an expired export's 410).
type errorBodyKey struct{}

// keepErrorBody returns ctx with body as where an error answer's body is
// kept.
func keepErrorBody(ctx context.Context, body *[]byte) context.Context {
	return context.WithValue(ctx, errorBodyKey{}, body)
}

// Error describes the failure: method, path, status, code, message and
// request ID.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("platform: ")
	if e.Method != "" {
		fmt.Fprintf(&b, "%s %s: ", e.Method, e.Path)
	}
	fmt.Fprintf(&b, "%d", e.StatusCode)
	if e.Code != "" {
		fmt.Fprintf(&b, " %s", e.Code)
	}
	if e.Message != "" {
		fmt.Fprintf(&b, ": %s", e.Message)
	}
	if e.RequestID != "" {
		fmt.Fprintf(&b, " (request %s)", e.RequestID)
	}
	return b.String()
}

// Is matches the sentinel errors by status code.
func (e *Error) Is(target error) bool {
	switch target {
	case ErrInvalid:
		return e.StatusCode == http.StatusBadRequest
	case ErrUnauthorized:
		return e.StatusCode == http.StatusUnauthorized
	case ErrForbidden:
		return e.StatusCode == http.StatusForbidden
	case ErrNotFound:
		return e.StatusCode == http.StatusNotFound
	case ErrPayloadTooLarge:
		return e.StatusCode == http.StatusRequestEntityTooLarge
	case ErrUnprocessable:
		return e.StatusCode == http.StatusUnprocessableEntity
	case ErrGone:
		return e.StatusCode == http.StatusGone
	case ErrRateLimited:
		return e.StatusCode == http.StatusTooManyRequests
	case ErrInternal:
		return e.StatusCode >= 500
	}
	return false
}

// newError reads an error response. A body that is not the API's JSON error
// object still gives an *Error, with the status text as its message.
func newError(req *http.Request, resp *http.Response) *Error {
	e := &Error{
		StatusCode: resp.StatusCode,
		RequestID:  resp.Header.Get("X-Request-Id"),
		Method:     req.Method,
		Path:       req.URL.Path,
	}
	if d, ok := retryAfter(resp); ok {
		e.RetryAfter = d
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	if keep, ok := req.Context().Value(errorBodyKey{}).(*[]byte); ok {
		*keep = body
	}
	decodeErrorBody(body, e)
	if e.Code == "" && e.Message == "" {
		e.Message = http.StatusText(resp.StatusCode)
	}
	return e
}

// decodeErrorBody sets e's Code, Message and Available from an error
// answer's JSON body, each on its own: a field of the wrong type is
// dropped without losing the others, and leaves its field unset.
func decodeErrorBody(body []byte, e *Error) {
	var raw struct {
		Code      json.RawMessage `json:"code"`
		Message   json.RawMessage `json:"message"`
		Available json.RawMessage `json:"available"`
	}
	if json.Unmarshal(body, &raw) != nil {
		return
	}
	_ = json.Unmarshal(raw.Code, &e.Code)
	_ = json.Unmarshal(raw.Message, &e.Message)
	var choices *TargetChoices
	if json.Unmarshal(raw.Available, &choices) == nil {
		e.Available = choices
	}
}

// ArgError reports a bad argument found before any request was sent: a
// missing path value, a page number or size out of range, an invalid
// order or enumeration value, both cursors set, an empty webhook secret.
type ArgError struct {
	// Arg names the argument: a params field in its JSON/URL spelling, or
	// the function's parameter.
	Arg string
	// Reason says what is wrong with it.
	Reason string
}

// Error implements error.
func (e *ArgError) Error() string {
	return fmt.Sprintf("platform: invalid argument %s: %s", e.Arg, e.Reason)
}

// Is reports whether target is [ErrInvalid], so that errors.Is classifies
// a bad argument the client caught as the server's 400 would be.
func (e *ArgError) Is(target error) bool { return target == ErrInvalid }

// Redacted is what stands, in an error's text, for a credential of the
// client's own (its service token's secret, or an access token it sent)
// that a server echoed back (in a body, or a Location header).
const Redacted = redact.Marker

// redact keeps the client's own credentials out of err's text: an [*Error]
// in err's chain has them replaced in its code and message, and an error
// whose text still holds one is wrapped in an error whose text has them
// replaced (it unwraps to err, for errors.Is and errors.As).
func (c *Client) redact(err error) error {
	if err == nil || (c.secret == "" && c.bearer == nil) {
		return err
	}
	secrets := []string{c.secret}
	if c.bearer != nil {
		recent := c.bearer.recent()
		secrets = append(secrets, recent[:]...)
	}
	var apiErr *Error
	if errors.As(err, &apiErr) {
		apiErr.Code = redact.Text(apiErr.Code, secrets...)
		apiErr.Message = redact.Text(apiErr.Message, secrets...)
	}
	return redact.Error(err, secrets...)
}
