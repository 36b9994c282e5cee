package fake

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The readings of DDL text that cut at punctuation (statements at ';',
// definitions at ',', a parenthesis at its match) all skip what is quoted;
// this test is inside the package to reach them with text a branch's schema
// would need many pushes for.

func TestDDLPunctuationInsideQuotes(t *testing.T) {
	t.Parallel()
	const escaped = `'it\'s; (a, b'`
	if got, want := splitStatements("CREATE TABLE `a;b` (c int DEFAULT "+escaped+"); DROP TABLE d;;"),
		[]string{"CREATE TABLE `a;b` (c int DEFAULT " + escaped + ")", "DROP TABLE d"}; !cmp.Equal(got, want) {
		t.Errorf("splitStatements:\n%s", cmp.Diff(want, got))
	}
	if got, want := splitTopLevel("id int, note varchar(9) DEFAULT "+escaped+", `x,y` int, KEY k (id, `x,y`)"),
		[]string{"id int", "note varchar(9) DEFAULT " + escaped, "`x,y` int", "KEY k (id, `x,y`)"}; !cmp.Equal(got, want) {
		t.Errorf("splitTopLevel:\n%s", cmp.Diff(want, got))
	}
	for _, tc := range []struct {
		in, inner string
		closed    bool
	}{
		{"(a (b) " + escaped + ") rest", "a (b) " + escaped, true},
		{"(a `)` \")\" b) rest", "a `)` \")\" b", true},
		{"(a (b)", "a (b)", false},
	} {
		if inner, closed := balanced(tc.in); inner != tc.inner || closed != tc.closed {
			t.Errorf("balanced(%q) = %q, %t; want %q, %t", tc.in, inner, closed, tc.inner, tc.closed)
		}
	}
}
