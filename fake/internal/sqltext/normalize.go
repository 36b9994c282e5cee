package sqltext

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
)

// sqlToken is a token of an SQL text.
type sqlToken struct {
	text string
	kind sqlTokenKind
}

type sqlTokenKind int

const (
	tokWord    sqlTokenKind = iota // an identifier, keyword or function name
	tokQuoted                      // a `quoted` identifier
	tokLiteral                     // a literal, already "?"
	tokPunct                       // an operator or punctuation
)

// sqlKeywords are the words written in upper case; sqlFunctions too, and
// they take their "(" without a space.
var (
	sqlKeywords  = wordSet(`ADD ALL ALTER AND ANY AS ASC BEGIN BETWEEN BY CASE COMMIT CREATE CROSS DEFAULT DELETE DESC DISTINCT DROP DUPLICATE ELSE END EXISTS EXPLAIN FALSE FOR FORCE FROM FULL GROUP HAVING IGNORE IN INDEX INNER INSERT INTERVAL INTO IS JOIN KEY LEFT LIKE LIMIT LOCK NATURAL NOT NULL OFFSET ON OR ORDER OUTER REPLACE RETURNING RIGHT ROLLBACK SELECT SET SHARE SHOW STRAIGHT_JOIN TABLE THEN TRUE TRUNCATE UNION UNIQUE UPDATE USE USING VALUES WHEN WHERE WITH`)
	sqlFunctions = wordSet(`ABS AVG CAST COALESCE CONCAT COUNT CURRENT_TIMESTAMP DATE DATE_ADD DATE_SUB GREATEST IF IFNULL JSON_EXTRACT LEAST LENGTH LOWER MAX MIN NOW ROUND SUBSTRING SUM TRIM UPPER`)
)

func wordSet(words string) map[string]bool {
	set := map[string]bool{}
	for w := range strings.FieldsSeq(words) {
		set[w] = true
	}
	return set
}

// Normalized is what a query's text says of it.
type Normalized struct {
	Text        string   // the normalised text
	Fingerprint string   // the fingerprint of Text
	Statement   string   // SELECT, INSERT, ...: the first keyword; OTHER when none
	Tables      []string // the tables it names, in order, without keyspace
}

// Normalize normalises sql; see the package doc.
func Normalize(sql string) Normalized {
	toks := collapseLists(tokenizeSQL(sql))
	n := Normalized{Text: renderSQL(toks), Statement: "OTHER", Tables: sqlTables(toks)}
	if len(toks) > 0 && toks[0].kind == tokWord && sqlKeywords[toks[0].text] {
		n.Statement = toks[0].text
	}
	n.Fingerprint = Fingerprint(n.Text)
	return n
}

// Canonical writes text's tokens with every literal as "?", keywords in
// upper case and one spacing, as Normalize does, but keeps its lists and
// rows: the messages of errors that differ only in their literals have
// one canonical text.
func Canonical(text string) string { return renderSQL(tokenizeSQL(text)) }

// Fingerprint is the first 16 hexadecimal digits of the SHA-256 of text.
func Fingerprint(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:8])
}

// tokenizeSQL splits sql into tokens, dropping comments and whitespace and
// turning literals into "?".
func tokenizeSQL(sql string) []sqlToken {
	var toks []sqlToken
scan:
	for i := 0; i < len(sql); {
		c := sql[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			i++
		case strings.HasPrefix(sql[i:], "/*"):
			end := strings.Index(sql[i+2:], "*/")
			if end < 0 {
				break scan
			}
			i += end + 4
		case strings.HasPrefix(sql[i:], "--") || c == '#':
			end := strings.IndexByte(sql[i:], '\n')
			if end < 0 {
				break scan
			}
			i += end + 1
		case c == '\'' || c == '"':
			i = skipQuoted(sql, i)
			toks = append(toks, sqlToken{"?", tokLiteral})
		case c == '`':
			j := skipQuoted(sql, i)
			toks = append(toks, sqlToken{sql[i:j], tokQuoted})
			i = j
		case isDigit(c) || (c == '.' && i+1 < len(sql) && isDigit(sql[i+1])):
			i = skipNumber(sql, i)
			toks = appendLiteral(toks)
		case c == '?':
			// A placeholder is a literal, as the "?" a literal becomes must
			// read back: VALUES (?), (0) is one row. It takes no sign, as
			// a written "- ?" is the sign that was not folded.
			i++
			toks = append(toks, sqlToken{"?", tokLiteral})
		case isWordByte(c):
			j := i
			for j < len(sql) && isWordByte(sql[j]) {
				j++
			}
			word := sql[i:j]
			up := strings.ToUpper(word)
			switch {
			case (up == "X" || up == "B") && j < len(sql) && sql[j] == '\'':
				// x'ff' and b'01'.
				i = skipQuoted(sql, j)
				toks = append(toks, sqlToken{"?", tokLiteral})
				continue
			case sqlKeywords[up] || sqlFunctions[up]:
				word = up
			}
			toks = append(toks, sqlToken{word, tokWord})
			i = j
		default:
			j := i + 1
			// Two-character operators stay one token.
			if j < len(sql) && strings.Contains("<=>!=|&:", string(c)) && strings.Contains("=>|&", string(sql[j])) {
				j++
			}
			toks = append(toks, sqlToken{sql[i:j], tokPunct})
			i = j
		}
	}
	for len(toks) > 0 && toks[len(toks)-1].text == ";" {
		toks = toks[:len(toks)-1]
	}
	return toks
}

// appendLiteral appends a "?" to toks, folding a sign before it into the
// literal when the sign is not a binary operator: "= -1" is "= ?".
func appendLiteral(toks []sqlToken) []sqlToken {
	if n := len(toks); n > 0 && (toks[n-1].text == "-" || toks[n-1].text == "+") {
		prev := sqlToken{kind: tokPunct}
		if n > 1 {
			prev = toks[n-2]
		}
		unary := prev.kind == tokPunct && prev.text != ")" || prev.kind == tokWord && sqlKeywords[prev.text]
		if unary {
			toks = toks[:n-1]
		}
	}
	return append(toks, sqlToken{"?", tokLiteral})
}

// skipQuoted returns the index after the quoted text starting at sql[i]:
// a doubled quote or a backslash escapes; an unclosed quote runs to the end.
func skipQuoted(sql string, i int) int {
	q := sql[i]
	for j := i + 1; j < len(sql); j++ {
		switch sql[j] {
		case '\\':
			if q != '`' {
				j++
			}
		case q:
			if j+1 < len(sql) && sql[j+1] == q {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(sql)
}

// skipNumber returns the index after the number starting at sql[i]:
// decimal, with a fraction and an exponent, or 0x hexadecimal.
func skipNumber(sql string, i int) int {
	j := i
	if strings.HasPrefix(sql[i:], "0x") || strings.HasPrefix(sql[i:], "0X") {
		j += 2
		for j < len(sql) && strings.IndexByte("0123456789abcdefABCDEF", sql[j]) >= 0 {
			j++
		}
		return j
	}
	for j < len(sql) && (isDigit(sql[j]) || sql[j] == '.') {
		j++
	}
	if j < len(sql) && (sql[j] == 'e' || sql[j] == 'E') {
		k := j + 1
		if k < len(sql) && (sql[k] == '+' || sql[k] == '-') {
			k++
		}
		if k < len(sql) && isDigit(sql[k]) {
			j = k
			for j < len(sql) && isDigit(sql[j]) {
				j++
			}
		}
	}
	return j
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isWordByte(c byte) bool {
	return c == '_' || c == '$' || c == '@' || isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// collapseLists turns "IN (?, ?, ?)" into "IN (?)" and the rows after
// VALUES that repeat the first into nothing.
func collapseLists(toks []sqlToken) []sqlToken {
	out := toks[:0:0]
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		out = append(out, t)
		if t.kind != tokWord || i+1 >= len(toks) || toks[i+1].text != "(" {
			continue
		}
		switch t.text {
		case "IN":
			if end, ok := literalList(toks, i+1); ok {
				out = append(out, sqlToken{"(", tokPunct}, sqlToken{"?", tokLiteral}, sqlToken{")", tokPunct})
				i = end
			}
		case "VALUES":
			row, ok := groupEnd(toks, i+1)
			if !ok {
				continue
			}
			first := toks[i+1 : row+1]
			out = append(out, first...)
			i = row
			for i+1 < len(toks) && toks[i+1].text == "," {
				next, ok := groupEnd(toks, i+2)
				if !ok || !slices.Equal(toks[i+2:next+1], first) {
					break
				}
				i = next
			}
		}
	}
	return out
}

// literalList reports whether the group opening at toks[open] holds only
// literals and commas, and where it closes.
func literalList(toks []sqlToken, open int) (int, bool) {
	for j := open + 1; j < len(toks); j++ {
		switch {
		case toks[j].text == ")":
			return j, j > open+1
		case toks[j].kind != tokLiteral && toks[j].text != ",":
			return 0, false
		}
	}
	return 0, false
}

// groupEnd returns the index of the ")" closing the group at toks[open].
func groupEnd(toks []sqlToken, open int) (int, bool) {
	if open >= len(toks) || toks[open].text != "(" {
		return 0, false
	}
	depth := 0
	for j := open; j < len(toks); j++ {
		switch toks[j].text {
		case "(":
			depth++
		case ")":
			depth--
			if depth == 0 {
				return j, true
			}
		}
	}
	return 0, false
}

// renderSQL writes the tokens with one space between them, but none
// before , ) . ; and none after ( . nor between a function and its "(",
// nor between "@" and a quoted name.
func renderSQL(toks []sqlToken) string {
	var b strings.Builder
	for i, t := range toks {
		if i > 0 {
			prev := toks[i-1]
			// "@" stays against a quoted name (@`my var`) only: against
			// anything else it would read back as another token ("@@").
			tight := prev.text == "(" || prev.text == "." || prev.text == "@" && t.kind == tokQuoted
			switch t.text {
			case ",", ")", ".", ";":
				tight = true
			case "(":
				tight = tight || prev.kind == tokWord && sqlFunctions[prev.text] || isCall(toks, i-1)
			}
			if !tight {
				b.WriteByte(' ')
			}
		}
		b.WriteString(t.text)
	}
	return b.String()
}

// isCall reports whether the word at toks[i], before a "(", is a function
// called rather than a table followed by its columns (INTO t (a, b)).
func isCall(toks []sqlToken, i int) bool {
	if toks[i].kind != tokWord || sqlKeywords[toks[i].text] {
		return false
	}
	if i == 0 {
		return true
	}
	switch toks[i-1].text {
	case "INTO", "TABLE", "JOIN", "FROM", "UPDATE", ".":
		return false
	}
	return true
}

// sqlTables finds the tables a query names: the names after FROM, JOIN,
// INTO, UPDATE, TABLE and the commas of a FROM list, without their
// keyspace qualifier or quotes, each once, in order.
func sqlTables(toks []sqlToken) []string {
	var tables []string
	add := func(name string) {
		name = strings.Trim(name, "`")
		if name != "" && !slices.Contains(tables, name) {
			tables = append(tables, name)
		}
	}
	// name reads a possibly qualified table name at toks[i]; it returns
	// the index after it, or i when there is none.
	name := func(i int) int {
		if i >= len(toks) || toks[i].kind == tokWord && sqlKeywords[toks[i].text] || toks[i].kind != tokWord && toks[i].kind != tokQuoted {
			return i
		}
		last := toks[i].text
		j := i + 1
		for j+1 < len(toks) && toks[j].text == "." && (toks[j+1].kind == tokWord || toks[j+1].kind == tokQuoted) {
			last = toks[j+1].text
			j += 2
		}
		add(last)
		return j
	}
	inFrom := false
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t.kind == tokWord && (t.text == "FROM" || t.text == "JOIN" || t.text == "INTO" || t.text == "TABLE" || t.text == "UPDATE"):
			inFrom = t.text == "FROM"
			if j := name(i + 1); j > i+1 {
				i = j - 1
			}
		case inFrom && t.text == ",":
			// FROM a, b: skip an alias before the comma.
			if j := name(i + 1); j > i+1 {
				i = j - 1
			}
		case t.kind == tokWord && sqlKeywords[t.text] && t.text != "AS":
			inFrom = false
		}
	}
	return tables
}
