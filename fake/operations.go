package fake

import (
	_ "embed"
	"strconv"
	"strings"
)

// operationsTSV is the table of operations in scope: for each, its method,
// path, success status, the service-token permissions (any one suffices) and
// the OAuth scopes per resource (any one suffices).
//
//go:embed operations.tsv
var operationsTSV string

// operation is one row of operations.tsv.
type operation struct {
	group, method, path, name string
	status                    int
	perms                     []string            // nil: no permission needed
	need                      permSet             // perms as a set; filled when the routes are built
	pattern                   string              // the net/http pattern of its route, "METHOD PATH"
	scopes                    map[string][]string // resource -> scopes; nil: none apply
}

// operations are the rows of operations.tsv by operation name.
var operations = parseOperations(operationsTSV)

func parseOperations(tsv string) map[string]operation {
	ops := map[string]operation{}
	for i, line := range strings.Split(strings.TrimSpace(tsv), "\n") {
		f := strings.Split(line, "\t")
		if i == 0 || len(f) < 7 {
			continue
		}
		status, _ := strconv.Atoi(f[4])
		op := operation{group: f[0], method: f[1], path: strings.TrimPrefix(f[2], "{auth_url}"), name: f[3], status: status}
		op.pattern = op.method + " " + op.path
		if f[5] != "-" {
			op.perms = strings.Fields(f[5])
		}
		if f[6] != "-" {
			op.scopes = map[string][]string{}
			for rs := range strings.FieldsSeq(f[6]) {
				res, list, _ := strings.Cut(rs, ":")
				op.scopes[res] = strings.Split(list, ",")
			}
		}
		ops[op.name] = op
	}
	return ops
}
