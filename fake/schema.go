package fake

import (
	"errors"
	"fmt"
	"html"
	"maps"
	"regexp"
	"slices"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake/internal/sqltext"
)

// The fake keeps each branch's schema as CREATE TABLE statements, one per
// table, in the keyspaces of the branch. The live service changes schemas
// through SQL connections, which the fake has not got; PushSchema stands for
// the DDL such a connection would carry.

// uniqueKeyRe finds a primary or unique key in a CREATE TABLE statement.
var uniqueKeyRe = regexp.MustCompile(`(?i)\b(primary\s+key|unique)\b`)

// PushSchema changes a branch's schema as DDL sent to the branch would.
// Each argument holds one or more statements separated by semicolons:
// CREATE TABLE adds a table (or, for a table that exists, replaces its
// definition: the fake's form of ALTER TABLE; IF NOT EXISTS keeps the
// existing one), DROP TABLE removes one (IF EXISTS tolerates a missing
// one). A table may be qualified by its keyspace ("ks.t"); unqualified
// tables go to the branch's default keyspace. Statements apply all or none:
// on any error the schema is left as it was. The branch must be ready, and
// one with safe migrations refuses direct DDL, as the live service does;
// schema changes then go through deploy requests.
func (s *Server) PushSchema(org, database, branch string, statements ...string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, err := s.world.findBranch(org, database, branch)
	if err != nil {
		return methodErr("PushSchema", err)
	}
	var all []string
	for _, text := range statements {
		all = append(all, sqltext.SplitStatements(text)...)
	}
	if len(all) == 0 {
		return errors.New("fake: PushSchema: no statements")
	}
	if err := b.applyDDL(all); err != nil {
		return methodErr("PushSchema", err)
	}
	b.schemaUpdated = s.world.clock.Now()
	b.updated = b.schemaUpdated
	s.world.schemaChanged(b, nil)
	return nil
}

// findBranch looks a branch up by names.
func (w *world) findBranch(org, database, branch string) (*branchRec, error) {
	o := w.orgs[org]
	if o == nil {
		return nil, fmt.Errorf("no organization %q", org)
	}
	db := o.dbByName[database]
	if db == nil {
		return nil, fmt.Errorf("no database %q in %s", database, org)
	}
	b := db.branch(branch)
	if b == nil {
		return nil, fmt.Errorf("no branch %q in %s/%s", branch, org, database)
	}
	return b, nil
}

// applyDDL checks every statement against the schema as the ones before it
// leave it, then applies them all.
func (b *branchRec) applyDDL(statements []string) error {
	if b.safeMigrations {
		return fmt.Errorf("branch %s has safe migrations enabled: direct DDL is refused; use a deploy request", b.name)
	}
	if !b.ready {
		return fmt.Errorf("branch %s is not ready", b.name)
	}
	tables := map[*keyspaceRec]map[string]string{}
	var dropped []tableState // their sizes go with them
	working := func(ks *keyspaceRec) map[string]string {
		if tables[ks] == nil {
			tables[ks] = cloneMap(ks.tables)
		}
		return tables[ks]
	}
	for _, stmt := range statements {
		d, err := sqltext.ParseDDL(stmt)
		if err != nil {
			return err
		}
		ks := b.defaultKeyspace()
		if d.Keyspace != "" {
			if ks = b.keyspace(d.Keyspace); ks == nil {
				return fmt.Errorf("keyspace %q does not exist on branch %s", d.Keyspace, b.name)
			}
		}
		t := working(ks)
		switch {
		case d.Create != "" && d.IfNotExists && t[d.Table] != "":
		case d.Create != "":
			t[d.Table] = d.Create
		case t[d.Table] == "" && !d.IfExists:
			return fmt.Errorf("table %q does not exist in keyspace %s", d.Table, ks.name)
		default:
			delete(t, d.Table)
			dropped = append(dropped, tableState{keyspace: ks.name, table: d.Table})
		}
	}
	for ks, t := range tables {
		ks.tables = t
	}
	if b.db.extra.peek() != nil {
		for _, d := range dropped {
			delete(b.db.extra.peek().sizes, tableRef{b.keyspace(d.keyspace), d.table})
		}
	}
	return nil
}

func cloneMap[K comparable, V any](m map[K]V) map[K]V {
	out := make(map[K]V, len(m))
	maps.Copy(out, m)
	return out
}

// tableNames returns a keyspace's tables in name order.
func (ks *keyspaceRec) tableNames() []string {
	names := make([]string, 0, len(ks.tables))
	for n := range ks.tables {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// lint returns the branch's lint errors, by keyspace and table.
func (b *branchRec) lint() []*platform.LintError {
	var out []*platform.LintError
	for _, ks := range b.keyspaces.All() {
		for _, name := range ks.tableNames() {
			if uniqueKeyRe.MatchString(ks.tables[name]) {
				continue
			}
			out = append(out, &platform.LintError{
				Type:                     "SchemaLintError",
				URLHash:                  derivedID("lint", platform.LintNoUniqueKey, ks.name, name),
				LintError:                platform.LintNoUniqueKey,
				SubjectType:              platform.LintSubjectTable,
				KeyspaceName:             ks.name,
				TableName:                name,
				ErrorDescription:         fmt.Sprintf("Table %q has no primary key or unique key.", name),
				DocsURL:                  "https://docs.dbplatform.dev/lint#no-unique-key",
				ForeignKeyColumnNames:    []string{},
				AutoIncrementColumnNames: []string{},
			})
		}
	}
	return out
}

// renderTable renders one table of a schema.
func renderTable(name, create string) *platform.TableSchema {
	return &platform.TableSchema{Name: name, Raw: create, HTML: htmlPre(create)}
}

// htmlPre marks text up for display, as the schema's html fields show it.
func htmlPre(text string) string {
	return "<pre>" + html.EscapeString(text) + "</pre>"
}
