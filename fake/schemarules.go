package fake

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake/internal/sqltext"
)

// The rules schema recommendations come from, checked on a table's CREATE
// TABLE statement: a table without a primary key (new_index: add one), an
// index with the same columns as another (duplicate_index: drop it), and
// an index whose columns begin another's (duplicate_index: the longer one
// serves its lookups, so drop it).

// tableIndex is an index of a table as its definition declares it.
type tableIndex struct {
	name            string
	primary, unique bool
	cols            []string // lower-cased, with any prefix length: "name(10)"
}

var (
	// indexHeadRe matches the head of an index definition, up to its
	// column list: [CONSTRAINT [sym]] PRIMARY KEY | UNIQUE [KEY|INDEX]
	// [name] | KEY|INDEX [name], then [USING type].
	indexHeadRe = regexp.MustCompile(`(?is)^(?:constraint(?:\s+` + sqltext.Ident + `)?\s+)?(primary\s+key|unique(?:\s+(?:key|index))?|key|index)(?:\s+` + sqltext.Ident + `)?(?:\s+using\s+\w+)?\s*\(`)
	// otherDefRe matches the definitions that are neither columns nor
	// indexes the rules compare.
	otherDefRe  = regexp.MustCompile(`(?i)^(fulltext|spatial|foreign\s+key|check|constraint\s+(` + sqltext.Ident + `\s+)?(foreign|check))\b`)
	columnRe    = regexp.MustCompile(`^` + sqltext.Ident)
	colPrimary  = regexp.MustCompile(`(?i)\bprimary\s+key\b`)
	colUnique   = regexp.MustCompile(`(?i)\bunique\b`)
	keyColumnRe = regexp.MustCompile(`^` + sqltext.Ident + `\s*(\(\s*\d+\s*\))?`)
)

// tableDefinition reads a CREATE TABLE statement's indexes and column
// names.
func tableDefinition(create string) (indexes []tableIndex, columns []string) {
	open := strings.IndexByte(create, '(')
	if open < 0 {
		return nil, nil
	}
	body, _ := sqltext.Balanced(create[open:])
	for _, def := range sqltext.SplitTopLevel(body) {
		switch m := indexHeadRe.FindStringSubmatch(def); {
		case m != nil:
			inner, _ := sqltext.Balanced(def[len(m[0])-1:])
			kind := strings.ToLower(strings.Join(strings.Fields(m[3]), " "))
			ix := tableIndex{name: m[4] + m[5], primary: kind == "primary key", cols: keyColumns(inner)}
			ix.unique = ix.primary || strings.HasPrefix(kind, "unique")
			if ix.primary {
				ix.name = "PRIMARY"
			} else if ix.name == "" && len(ix.cols) > 0 {
				ix.name = strings.SplitN(ix.cols[0], "(", 2)[0] // as the database names it
			}
			indexes = append(indexes, ix)
		case otherDefRe.MatchString(def):
		default:
			c := columnRe.FindStringSubmatch(def)
			if c == nil {
				continue
			}
			col := c[1] + c[2]
			columns = append(columns, col)
			rest := def[len(c[0]):]
			switch {
			case colPrimary.MatchString(rest):
				indexes = append(indexes, tableIndex{name: "PRIMARY", primary: true, unique: true, cols: []string{strings.ToLower(col)}})
			case colUnique.MatchString(rest):
				indexes = append(indexes, tableIndex{name: col, unique: true, cols: []string{strings.ToLower(col)}})
			}
		}
	}
	return indexes, columns
}

// keyColumns reads an index's column list: each name lower-cased, with
// its prefix length; ASC and DESC are left out.
func keyColumns(list string) []string {
	var cols []string
	for _, part := range sqltext.SplitTopLevel(list) {
		m := keyColumnRe.FindStringSubmatch(part)
		if m == nil {
			continue
		}
		cols = append(cols, strings.ToLower(m[1]+m[2])+strings.Join(strings.Fields(m[3]), ""))
	}
	return cols
}

// finding is one piece of advice about a table, before it is numbered.
type finding struct {
	kind            platform.SchemaRecommendationType
	keyspace, table string
	// subject is the index the advice is about: "PRIMARY" for a missing
	// primary key.
	subject   string
	title     string
	statement string
}

// key identifies the advice: the same advice about the same index of the
// same table is one recommendation.
func (f finding) key() string {
	return string(f.kind) + "\x00" + f.keyspace + "\x00" + f.table + "\x00" + f.subject
}

// schemaFindings checks every table of b, keyspace by keyspace and table
// by table in name order.
func schemaFindings(b *branchRec) []finding {
	var out []finding
	for _, ks := range b.keyspaces.All() {
		for _, table := range ks.tableNames() {
			out = append(out, tableFindings(ks.name, table, ks.tables[table])...)
		}
	}
	return out
}

// tableFindings applies the rules to one table.
func tableFindings(keyspace, table, create string) []finding {
	indexes, columns := tableDefinition(create)
	var out []finding
	advise := func(kind platform.SchemaRecommendationType, subject, title, statement string) {
		out = append(out, finding{kind: kind, keyspace: keyspace, table: table, subject: subject, title: title, statement: statement})
	}
	if !slices.ContainsFunc(indexes, func(ix tableIndex) bool { return ix.primary }) {
		stmt := fmt.Sprintf("ALTER TABLE `%s` ADD COLUMN `id` bigint unsigned NOT NULL AUTO_INCREMENT PRIMARY KEY FIRST", table)
		if slices.ContainsFunc(columns, func(c string) bool { return strings.EqualFold(c, "id") }) {
			stmt = fmt.Sprintf("ALTER TABLE `%s` ADD PRIMARY KEY (`id`)", table)
		}
		advise(platform.RecommendationNewIndex, "PRIMARY", fmt.Sprintf("Add a primary key to table %s", table), stmt)
	}
	drop := func(ix tableIndex) string { return fmt.Sprintf("ALTER TABLE `%s` DROP INDEX `%s`", table, ix.name) }
	dropped := make([]bool, len(indexes))
	for j := range indexes {
		for i := range j {
			if dropped[i] || !slices.Equal(indexes[i].cols, indexes[j].cols) {
				continue
			}
			// Keep the primary key, then a unique index, then the first.
			keep, gone := i, j
			if indexes[j].primary || (indexes[j].unique && !indexes[i].unique) {
				keep, gone = j, i
			}
			dropped[gone] = true
			advise(platform.RecommendationDuplicateIndex, indexes[gone].name,
				fmt.Sprintf("Drop index %s of table %s: it duplicates %s", indexes[gone].name, table, indexes[keep].name), drop(indexes[gone]))
			break
		}
	}
	for i, ix := range indexes {
		if dropped[i] || ix.unique {
			continue // a unique index constrains, whatever covers it
		}
		for j, longer := range indexes {
			if j == i || dropped[j] || len(longer.cols) <= len(ix.cols) || !slices.Equal(longer.cols[:len(ix.cols)], ix.cols) {
				continue
			}
			dropped[i] = true
			advise(platform.RecommendationDuplicateIndex, ix.name,
				fmt.Sprintf("Drop index %s of table %s: %s begins with its columns", ix.name, table, longer.name), drop(ix))
			break
		}
	}
	return out
}
