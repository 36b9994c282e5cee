package fake_test

import (
	"testing"
)

// TestRestoreRefusesSchemasTheAPIDoesNotTake checks that the tables of a
// keyspace, of a branch's base schema and the VSchema of a keyspace are
// ones the API would have taken (the DDL reading of PushSchema, the checks
// of update_vschema), each refused at its path otherwise. In the refusal
// world, app's main has the table users in its keyspace app, and dev the
// same in its base.
func TestRestoreRefusesSchemasTheAPIDoesNotTake(t *testing.T) {
	t.Parallel()
	p := refusalWorldPaths(t)
	ks := func(d refusalDoc) map[string]any { return d.at(d.branch("app", "main"), "keyspaces", 0) }
	tables := func(d refusalDoc) map[string]any { return ks(d)["tables"].(map[string]any) }
	base := func(d refusalDoc) map[string]any {
		return d.branch("app", "dev")["base"].(map[string]any)["app"].(map[string]any)
	}
	at := p.appMain + ".keyspaces[0]"
	runRefusals(t, []refusalCase{
		{"a table that is a drop", func(d refusalDoc) { tables(d)["users"] = "DROP TABLE users" },
			at + `.tables.users: "DROP TABLE users" is not a CREATE TABLE statement`},
		{"a table that is no DDL", func(d refusalDoc) { tables(d)["users"] = "SELECT 1" },
			at + `.tables.users: "SELECT 1" is not a CREATE TABLE statement`},
		{"a table whose statement makes another", func(d refusalDoc) {
			tables(d)["users"] = "CREATE TABLE `orders` (id bigint NOT NULL, PRIMARY KEY (id))"
		}, at + `.tables.users: the CREATE TABLE statement is of table "orders", not "users"`},
		{"a table not in the form kept", func(d refusalDoc) {
			tables(d)["users"] = "create table app.users (id bigint NOT NULL, PRIMARY KEY (id))"
		}, at + `.tables.users: "create table app.users (id bigint NOT NULL, PRIMARY KEY (id)..." is not in the form the server keeps a CREATE TABLE ("CREATE TABLE ` + "`users`" + ` (`},
		{"a table without a name", func(d refusalDoc) { tables(d)[""] = "CREATE TABLE `` (id int)" },
			at + ".tables: a table without a name"},
		{"the first bad table by name", func(d refusalDoc) {
			tables(d)["zz"], tables(d)["aa"] = "bogus", "bogus too"
		}, at + `.tables.aa: "bogus too" is not`},
		{"a base table that is no DDL", func(d refusalDoc) { base(d)["users"] = "ALTER TABLE users ADD x int" },
			p.appDev + `.base.app.users: "ALTER TABLE users ADD x int" is not a CREATE TABLE statement`},
		{"a VSchema that is no JSON", func(d refusalDoc) { ks(d)["vschema"] = "{not json" },
			at + ".vschema: vschema is not valid JSON"},
		{"a VSchema that is no object", func(d refusalDoc) { ks(d)["vschema"] = "[1]" },
			at + ".vschema: vschema must be a JSON object, got an array"},
		{"a VSchema sharded on one shard", func(d refusalDoc) { ks(d)["vschema"] = `{"sharded": true}` },
			at + ".vschema: vschema: keyspace app has one shard: sharded must be false"},
		{"a VSchema naming a vindex it does not define", func(d refusalDoc) {
			ks(d)["vschema"] = `{"tables": {"users": {"column_vindexes": [{"column": "id", "name": "nosuch"}]}}}`
		}, at + `.vschema: vschema: column_vindexes[0] of table "users" names vindex "nosuch", which vindexes does not define`},
	})
}
