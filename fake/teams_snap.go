package fake

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// The snapshot of teams, with their organization.

type teamSnap struct {
	stampsSnap
	Name             string           `json:"name"`
	Slug             string           `json:"slug"`
	Description      string           `json:"description"`
	Creator          string           `json:"creator"`
	Managed          bool             `json:"managed"`
	Members          []teamMemberSnap `json:"members"`
	Databases        []string         `json:"databases"`
	AnalystDatabases []string         `json:"analyst_databases"`
}

type teamMemberSnap struct {
	stampsSnap
	User  string `json:"user"`
	Actor string `json:"actor"`
}

// loadTeam loads a team of org; path is its place in the document, for
// the databases resolved later.
func (ld *loader) loadTeam(org *orgRec, ts teamSnap, path string) error {
	if strings.TrimSpace(ts.Name) == "" {
		return fmt.Errorf("team %q has no name", ts.Slug)
	}
	if n := utf8.RuneCountInString(ts.Name); n > maxNameLen {
		return fmt.Errorf("team %q: name is longer than %d characters (it has %d)", ts.Slug, maxNameLen, n)
	}
	if ts.Slug == "" || teamSlug(ts.Slug) != ts.Slug {
		return fmt.Errorf("team slug %q is not a slug", ts.Slug)
	}
	if org.teams.bySlug[ts.Slug] != nil {
		return fmt.Errorf("slug %q appears twice", ts.Slug)
	}
	creator, err := ref(ld.users, ts.Creator, "creator")
	if err != nil {
		return err
	}
	t := &teamRec{
		stamps: ts.load(), name: ts.Name, slug: ts.Slug, description: ts.Description,
		creator: creator, managed: ts.Managed, memberByUser: map[string]*teamMemberRec{},
	}
	for i, ms := range ts.Members {
		u, err := ref(ld.users, ms.User, "member")
		if err != nil {
			return err
		}
		if u != nil && org.memberByUser[u.id] == nil {
			// Removing a member of the organization removes them from its
			// teams: a team member is always one.
			return at(fmt.Errorf("user %s is not a member of organization %s", u.id, org.name), "members[%d].user", i)
		}
		actor, err := ref(ld.users, ms.Actor, "member's actor")
		if err != nil {
			return err
		}
		if u == nil || t.memberByUser[u.id] != nil {
			return fmt.Errorf("member %s: user missing or twice", ms.ID)
		}
		m := &teamMemberRec{stamps: ms.load(), user: u, actor: actor}
		t.members.Add(m)
		t.memberByUser[u.id] = m
	}
	org.teams.add(t)
	ld.later(func() (err error) {
		if t.databases, err = teamDatabases(org, ts.Databases, ld.dbs, "databases"); err != nil {
			return at(err, "%s", path)
		}
		t.analystDatabases, err = teamDatabases(org, ts.AnalystDatabases, ld.dbs, "analyst_databases")
		return at(err, "%s", path)
	})
	return nil
}

// teamDatabases resolves a team's list of databases (field): databases
// of its organization, each once, as AddTeamDatabase leaves them.
func teamDatabases(org *orgRec, ids []string, dbs map[string]*dbRec, field string) ([]*dbRec, error) {
	list, err := refs(dbs, ids, "team database")
	if err != nil {
		return nil, at(err, "%s", field)
	}
	for i, db := range list {
		switch {
		case db.org != org:
			return nil, at(fmt.Errorf("database %s is of organization %s, not %s", db.id, db.org.name, org.name), "%s[%d]", field, i)
		case slices.Index(list, db) < i:
			return nil, at(fmt.Errorf("database %s appears twice", db.id), "%s[%d]", field, i)
		}
	}
	return list, nil
}
