package sqltext

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The readings of DDL text that cut at punctuation (statements at ';',
// definitions at ',', a parenthesis at its match) all skip what is quoted.

func TestDDLPunctuationInsideQuotes(t *testing.T) {
	t.Parallel()
	const escaped = `'it\'s; (a, b'`
	if got, want := SplitStatements("CREATE TABLE `a;b` (c int DEFAULT "+escaped+"); DROP TABLE d;;"),
		[]string{"CREATE TABLE `a;b` (c int DEFAULT " + escaped + ")", "DROP TABLE d"}; !cmp.Equal(got, want) {
		t.Errorf("SplitStatements:\n%s", cmp.Diff(want, got))
	}
	if got, want := SplitTopLevel("id int, note varchar(9) DEFAULT "+escaped+", `x,y` int, KEY k (id, `x,y`)"),
		[]string{"id int", "note varchar(9) DEFAULT " + escaped, "`x,y` int", "KEY k (id, `x,y`)"}; !cmp.Equal(got, want) {
		t.Errorf("SplitTopLevel:\n%s", cmp.Diff(want, got))
	}
	for _, tc := range []struct {
		in, inner string
		closed    bool
	}{
		{"(a (b) " + escaped + ") rest", "a (b) " + escaped, true},
		{"(a `)` \")\" b) rest", "a `)` \")\" b", true},
		{"(a (b)", "a (b)", false},
	} {
		if inner, closed := Balanced(tc.in); inner != tc.inner || closed != tc.closed {
			t.Errorf("Balanced(%q) = %q, %t; want %q, %t", tc.in, inner, closed, tc.inner, tc.closed)
		}
	}
}
