package sqltext

import (
	"fmt"
	"iter"
	"regexp"
	"strings"
)

// Ident matches a table or keyspace name, bare or in backquotes.
const Ident = "(?:`([^`]+)`|([A-Za-z0-9_$]+))"

var (
	createTableRe = regexp.MustCompile(`(?is)^create\s+table\s+(if\s+not\s+exists\s+)?` + Ident + `(?:\.` + Ident + `)?\s*\(`)
	dropTableRe   = regexp.MustCompile(`(?is)^drop\s+table\s+(if\s+exists\s+)?` + Ident + `(?:\.` + Ident + `)?\s*$`)
	spaceRe       = regexp.MustCompile(`\s+`)
)

// DDL is one parsed statement.
type DDL struct {
	Keyspace string // "" when the table is not qualified
	Table    string // the table's name, without quotes
	Create   string // the CREATE TABLE statement; "" for a drop
	// IfExists is a DROP TABLE IF EXISTS; IfNotExists a CREATE TABLE IF
	// NOT EXISTS.
	IfExists, IfNotExists bool
}

// ParseDDL reads a CREATE TABLE or DROP TABLE statement. A table may be
// qualified by its keyspace (ks.table). A CREATE TABLE is kept with its
// head in one form, "CREATE TABLE `name` (", whatever the keyspace
// qualifier, quoting and case it was written with, as the database itself
// shows a table's definition.
func ParseDDL(stmt string) (DDL, error) {
	s := strings.TrimSpace(stmt)
	if m := createTableRe.FindStringSubmatch(s); m != nil {
		ks, table := qualified(m)
		create := "CREATE TABLE `" + table + "` (" + s[len(m[0]):]
		return DDL{Keyspace: ks, Table: table, Create: create, IfNotExists: m[1] != ""}, nil
	}
	if m := dropTableRe.FindStringSubmatch(s); m != nil {
		ks, table := qualified(m)
		return DDL{Keyspace: ks, Table: table, IfExists: m[1] != ""}, nil
	}
	return DDL{}, fmt.Errorf("statement %q is not CREATE TABLE or DROP TABLE", stmt)
}

// SplitStatements cuts SQL text at the semicolons that end statements,
// leaving alone those inside quotes, and drops empty statements.
func SplitStatements(sql string) []string {
	var out []string
	start := 0
	for i, ch := range Unquoted(sql) {
		if ch == ';' {
			out = append(out, sql[start:i])
			start = i + 1
		}
	}
	out = append(out, sql[start:])
	kept := out[:0]
	for _, st := range out {
		if st = strings.TrimSpace(st); st != "" {
			kept = append(kept, st)
		}
	}
	return kept
}

// Unquoted yields the index and byte of each byte of SQL text that is
// outside quotes: string literals ('...', "...", where a backslash escapes
// the next byte) and quoted identifiers (`...`), quotes included, are
// skipped. Every reading of DDL that cuts at punctuation reads through it.
func Unquoted(sql string) iter.Seq2[int, byte] {
	return func(yield func(int, byte) bool) {
		var quote byte
		for i := 0; i < len(sql); i++ {
			ch := sql[i]
			switch {
			case quote != 0 && ch == '\\' && quote != '`':
				i++
			case quote != 0 && ch == quote:
				quote = 0
			case quote != 0:
			case ch == '\'' || ch == '"' || ch == '`':
				quote = ch
			default:
				if !yield(i, ch) {
					return
				}
			}
		}
	}
}

// qualified reads the one- or two-part name of a match, whose first group
// is the IF [NOT] EXISTS clause.
func qualified(m []string) (keyspace, table string) {
	first := m[2] + m[3]
	second := m[4] + m[5]
	if second == "" {
		return "", first
	}
	return first, second
}

// SameDDL reports whether two statements differ only in white space.
func SameDDL(a, b string) bool {
	return spaceRe.ReplaceAllString(a, " ") == spaceRe.ReplaceAllString(b, " ")
}

// Balanced returns the text inside the parenthesis s begins with, and
// whether it closes.
func Balanced(s string) (string, bool) {
	depth := 0
	for i, ch := range Unquoted(s) {
		switch ch {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return s[1:i], true
			}
		}
	}
	return strings.TrimPrefix(s, "("), false
}

// SplitTopLevel cuts a definition list at the commas outside parentheses
// and quotes, trimming each part.
func SplitTopLevel(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, ch := range Unquoted(s) {
		switch {
		case ch == '(':
			depth++
		case ch == ')':
			depth--
		case ch == ',' && depth == 0:
			out = append(out, strings.TrimSpace(s[start:i]))
			start = i + 1
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}
