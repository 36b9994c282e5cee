package fake

import (
	"strings"
)

// This file holds the checks of request values that several groups share:
// the names of new organizations, databases, branches and credentials.

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
