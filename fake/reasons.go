package fake

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// This file holds the reasons the request log gives for a refusal (see
// Request.Reason): the wire body stays the API's, often a bare "Not
// Found", while the log says in words what was missing.

// because sets the reason the request log gives for e, and returns e.
func (e *apiError) because(format string, args ...any) *apiError {
	e.reason = fmt.Sprintf(format, args...)
	return e
}

// logReason is what the request log gives for e: its reason, or its
// message when that says more than the status, or the path values of r
// when a 404 has neither.
func (e *apiError) logReason(r *http.Request) string {
	switch {
	case e.reason != "":
		return e.reason
	case e.message != "Not Found":
		return e.message
	}
	var vals []string
	for _, name := range wildcards(r.Pattern) {
		vals = append(vals, fmt.Sprintf("%s %q", name, r.PathValue(name)))
	}
	if len(vals) == 0 {
		return "no operation at " + r.Method + " " + r.URL.Path
	}
	return "nothing at this path (" + strings.Join(vals, ", ") + ")"
}

// wildcards returns the names of the {wildcards} of a ServeMux pattern.
func wildcards(pattern string) []string {
	var out []string
	for seg := range strings.SplitSeq(pattern, "/") {
		if name, ok := strings.CutPrefix(seg, "{"); ok {
			out = append(out, strings.TrimSuffix(strings.TrimSuffix(name, "}"), "..."))
		}
	}
	return out
}

// nothingAt is the 404 for the path value name that names nothing where
// the call looks for it.
func (c *call) nothingAt(name string) *apiError {
	where := ""
	switch {
	case c.db != nil:
		where = " in database " + c.db.name
	case c.org != nil:
		where = " in organization " + c.org.name
	}
	return notFound().because("%s %q names nothing%s", name, c.r.PathValue(name), where)
}

// refusal says why the call's credential may not run its operation: what
// the operation needs and what the credential holds.
func (c *call) refusal() string {
	if c.newDatabase {
		return fmt.Sprintf("database %q names nothing in organization %s, and creating it (create_database_if_missing) takes create_databases on the organization (an OAuth token: organization:create_databases and organization:write_branches)",
			c.r.PathValue("database"), c.org.name)
	}
	spec := c.rt.spec
	if g := c.who.grant(); g != nil {
		var need []string
		for res, names := range spec.scopes {
			for _, n := range names {
				need = append(need, res+":"+n)
			}
		}
		slices.Sort(need)
		var held []string
		for _, s := range g.scopeList() {
			held = append(held, string(s))
		}
		return fmt.Sprintf("%s needs one of the OAuth scopes %s on %s; the token holds %s",
			c.rt.op, orNone(need), c.target(), orNone(held))
	}
	if c.who == nil || c.who.token == nil {
		return c.rt.op + " needs a service token holding one of " + orNone(spec.perms)
	}
	t := c.who.token
	held := []string{"on the organization: " + orNone(t.orgPerms.names())}
	for _, g := range t.grantIdx.All() {
		held = append(held, "on database "+g.db.name+": "+orNone(g.perms.names()))
	}
	return fmt.Sprintf("service token %s lacks the permission for %s (one of %s) on %s; it holds %s",
		t.id, c.rt.op, orNone(spec.perms), c.target(), strings.Join(held, "; "))
}

// target names what the call acts on, for a refusal.
func (c *call) target() string {
	switch {
	case c.db != nil:
		return "database " + c.db.name
	case c.org != nil:
		return "organization " + c.org.name
	}
	return "the caller"
}

// orNone lists names, or says there are none.
func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
