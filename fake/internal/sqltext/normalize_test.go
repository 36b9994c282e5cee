package sqltext

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNormalizeSQL(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		sql, want, statement string
		tables               []string
	}{
		{"select * from users where id = 1", "SELECT * FROM users WHERE id = ?", "SELECT", []string{"users"}},
		{"SELECT *\n\tFROM   users WHERE  id=42 ;", "SELECT * FROM users WHERE id = ?", "SELECT", []string{"users"}},
		{"select name from `app`.`users` where email = 'a@b.c' and x = \"it''s\"", "SELECT name FROM `app`.`users` WHERE email = ? AND x = ?", "SELECT", []string{"users"}},
		{"SELECT * FROM t WHERE id IN (1, 2, 3) AND k in ('a')", "SELECT * FROM t WHERE id IN (?) AND k IN (?)", "SELECT", []string{"t"}},
		{"SELECT * FROM t WHERE id IN (SELECT id FROM u)", "SELECT * FROM t WHERE id IN (SELECT id FROM u)", "SELECT", []string{"t", "u"}},
		{"insert into orders (id, total) values (1, 2.5), (2, -3e4)", "INSERT INTO orders (id, total) VALUES (?, ?)", "INSERT", []string{"orders"}},
		{"/* route='home' */ SELECT count(*) FROM a JOIN b ON a.id = b.a_id -- trailing", "SELECT COUNT(*) FROM a JOIN b ON a.id = b.a_id", "SELECT", []string{"a", "b"}},
		{"update users set balance = balance - 5, flag = x'0f' where id = -7", "UPDATE users SET balance = balance - ?, flag = ? WHERE id = ?", "UPDATE", []string{"users"}},
		{"DELETE FROM sessions WHERE expires < NOW() LIMIT 100", "DELETE FROM sessions WHERE expires < NOW() LIMIT ?", "DELETE", []string{"sessions"}},
		{"select a, b from x, y as z where x.k >= 0x1F", "SELECT a, b FROM x, y AS z WHERE x.k >= ?", "SELECT", []string{"x", "y"}},
		{"INSERT INTO t VALUES(?),(0), (?)", "INSERT INTO t VALUES (?)", "INSERT", []string{"t"}},
		{"select * from t where a in (?, 1) and b = -?", "SELECT * FROM t WHERE a IN (?) AND b = - ?", "SELECT", []string{"t"}},
		{"show tables", "SHOW tables", "SHOW", nil},
		{"col1", "col1", "OTHER", nil},
		{"   /* only a comment */ ", "", "OTHER", nil},
		// Comments to the end of a line, and an unclosed one to the end.
		{"SELECT a -- c\nFROM t", "SELECT a FROM t", "SELECT", []string{"t"}},
		{"SELECT a # c\nFROM t WHERE b = 2", "SELECT a FROM t WHERE b = ?", "SELECT", []string{"t"}},
		{"SELECT 1 /* open", "SELECT ?", "SELECT", nil},
		// A doubled quote stays inside its name or string.
		{"select `a``b` from t where c = 'it''s'", "SELECT `a``b` FROM t WHERE c = ?", "SELECT", []string{"t"}},
		// Rows that differ are all kept; unclosed lists and rows are kept
		// as they are.
		{"INSERT INTO t VALUES (1), (a), (2)", "INSERT INTO t VALUES (?), (a), (?)", "INSERT", []string{"t"}},
		{"INSERT INTO t VALUES (1, 2", "INSERT INTO t VALUES (?, ?", "INSERT", []string{"t"}},
		{"INSERT INTO t VALUES (1), (2", "INSERT INTO t VALUES (?), (?", "INSERT", []string{"t"}},
		{"SELECT * FROM t WHERE a IN (1, 2", "SELECT * FROM t WHERE a IN (?, ?", "SELECT", []string{"t"}},
		// A function the scanner does not know is still a call.
		{"SELECT myfunc(1) FROM t", "SELECT myfunc(?) FROM t", "SELECT", []string{"t"}},
		{"myfunc(1)", "myfunc(?)", "OTHER", nil},
		{"SELECT * FROM", "SELECT * FROM", "SELECT", nil},
	} {
		n := Normalize(tc.sql)
		if n.Text != tc.want || n.Statement != tc.statement || !cmp.Equal(n.Tables, tc.tables) {
			t.Errorf("Normalize(%q) = %q %s %q; want %q %s %q", tc.sql, n.Text, n.Statement, n.Tables, tc.want, tc.statement, tc.tables)
		}
		if len(n.Fingerprint) != 16 {
			t.Errorf("Normalize(%q): fingerprint %q is not 16 hexadecimal digits", tc.sql, n.Fingerprint)
		}
	}
}

// FuzzNormalizeSQL checks that any text normalises without panicking, to
// a text that normalises to itself.
func FuzzNormalizeSQL(f *testing.F) {
	for _, s := range []string{"SELECT * FROM t WHERE a IN (1, 'x') /* c */", "INSERT INTO t VALUES (1), (2)", "x'", "`a", "-- x", "0x", "1e+", "'\\", "VALUES(?),(0)", "+\""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		n := Normalize(sql)
		if again := Normalize(n.Text); again.Text != n.Text {
			t.Errorf("Normalize(%q) = %q, which normalises to %q", sql, n.Text, again.Text)
		}
	})
}
