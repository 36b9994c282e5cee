package fake

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

// TestScanTakenSecrets checks what scanTakenIDs finds for newSecret to
// skip: the hashes a snapshot holds of secrets (64 hexadecimal digits),
// and the secrets it holds as they are, of each form newSecret makes; and
// that it finds no other string, nor an ID.
func TestScanTakenSecrets(t *testing.T) {
	t.Parallel()
	hashed := "sk_" + repeatTo("abc123", 32)
	hash := sha256.Sum256([]byte(hashed))
	plain := []string{"app_" + repeatTo("q1", 20), repeatTo("u9", 20), repeatTo("w", 32), "role_" + repeatTo("r", 12)}
	var doc strings.Builder
	doc.WriteString(`{"hash": "` + hex.EncodeToString(hash[:]) + `", "id": "abcdefghijkl"`)
	for _, p := range plain {
		doc.WriteString(`, "x": "` + p + `"`)
	}
	doc.WriteString(`, "name": "` + repeatTo("Not-A-Secret", 20) + `", "upper": "APP_` + repeatTo("q1", 20) + `"}`)
	ids, held := scanTakenIDs([]byte(doc.String()))
	if len(ids) != 1 || !ids.has([]byte("abcdefghijkl")) {
		t.Errorf("IDs %v, want abcdefghijkl's", ids)
	}
	tests := []struct {
		secret string
		held   bool
	}{
		{hashed, true},
		{plain[0], true}, {plain[1], true}, {plain[2], true}, {plain[3], true},
		{"sk_" + repeatTo("zzz999", 32), false},
		{repeatTo("Not-A-Secret", 20), false},
		{"abcdefghijkl", false},
	}
	for _, tc := range tests {
		if got := held.has([]byte(tc.secret)); got != tc.held {
			t.Errorf("held.has(%q) = %t, want %t", tc.secret, got, tc.held)
		}
	}
	if len(held) != 1+len(plain) {
		t.Errorf("%d secrets held, want %d", len(held), 1+len(plain))
	}
}

// repeatTo repeats s to n bytes.
func repeatTo(s string, n int) string {
	out := ""
	for len(out) < n {
		out += s
	}
	return out[:n]
}
