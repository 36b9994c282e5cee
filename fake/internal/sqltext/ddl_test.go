package sqltext

import (
	"strings"
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

// FuzzDDL reads any text as the schema a push sends: no reading panics;
// the statements SplitStatements cuts are trimmed and not empty, and are
// cut the same when joined again; and the form a CREATE TABLE is kept in
// reads back as the same table, unqualified, in the same form.
func FuzzDDL(f *testing.F) {
	for _, s := range []string{
		"CREATE TABLE `a;b` (c int DEFAULT 'x;y'); DROP TABLE d;;",
		"create table if not exists ks.`t` (id int, KEY k (id, `x,y`))",
		"drop table if exists `x`.y",
		"(a (b) 'c)' \"d\\\"\" e) rest",
		"a'b;c", "'\\", "`", " ; ;",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		stmts := SplitStatements(sql)
		for _, s := range stmts {
			if s == "" || s != strings.TrimSpace(s) {
				t.Errorf("SplitStatements(%q) has statement %q", sql, s)
			}
		}
		if again := SplitStatements(strings.Join(stmts, ";")); !cmp.Equal(again, stmts) {
			t.Errorf("SplitStatements(%q) = %q, which joined and cut again is %q", sql, stmts, again)
		}
		for _, s := range stmts {
			d, err := ParseDDL(s)
			if err != nil || d.Create == "" {
				continue
			}
			again, err := ParseDDL(d.Create)
			if err != nil || again != (DDL{Table: d.Table, Create: d.Create}) {
				t.Errorf("ParseDDL(%q) keeps %q, which reads back as %+v, %v", s, d.Create, again, err)
			}
		}
		inner, _ := Balanced(sql)
		SplitTopLevel(inner)
	})
}
