package fake

import "testing"

// TestRequestID checks the request IDs' form: the server's prefix, then the
// request's number in at least six digits.
func TestRequestID(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		n    uint64
		want string
	}{
		{1, "a1b2c3000001"},
		{42, "a1b2c3000042"},
		{99999, "a1b2c3099999"},
		{999999, "a1b2c3999999"},
		{1234567, "a1b2c31234567"},
	} {
		if got := requestID("a1b2c3", tt.n); got != tt.want {
			t.Errorf("requestID(a1b2c3, %d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}
