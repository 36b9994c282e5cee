package fake

import (
	"strings"

	"github.com/dbplatform/platform-go"
)

// This file holds the checks of request values that several groups share:
// the names of new organizations, databases, branches and credentials,
// and the engine a database is made with.

// checkName validates a new organization, database or branch name.
func checkName(field, name string) error {
	switch {
	case name == "":
		return unprocessable("%s is required", field)
	case len(name) > maxNameLen:
		return unprocessable("%s %q is longer than %d characters", field, name, maxNameLen)
	case !slug.MatchString(name):
		return unprocessable("%s %q must be lowercase letters, digits and dashes, and start and end with a letter or digit", field, name)
	}
	return nil
}

// checkCredentialName validates the name of new or renamed credentials
// (what: "role", "password") of branch b: not blank, not too long, and not
// taken by other live credentials of the branch.
func checkCredentialName(what string, b *branchRec, name string, taken func(string) bool) error {
	switch {
	case strings.TrimSpace(name) == "":
		return unprocessable("name must not be empty")
	case len(name) > maxNameLen:
		return unprocessable("name %q is longer than %d characters", name, maxNameLen)
	case taken(name):
		return unprocessable("name %q is already taken by another %s of branch %s", name, what, b.name)
	}
	return nil
}

// checkKind checks the kind field of a request that names a database's
// engine: mysql, postgresql, or "" when it is not given.
func checkKind(kind platform.DatabaseKind) (platform.DatabaseKind, error) {
	switch kind {
	case "", platform.KindMySQL, platform.KindPostgreSQL:
		return kind, nil
	}
	return "", unprocessable("kind %q is not mysql or postgresql", kind)
}
