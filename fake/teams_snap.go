package fake

import (
	"fmt"
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

func (ld *loader) loadTeam(org *orgRec, ts teamSnap) error {
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
	for _, ms := range ts.Members {
		u, err := ref(ld.users, ms.User, "member")
		if err != nil {
			return err
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
		if t.databases, err = refs(ld.dbs, ts.Databases, "team database"); err != nil {
			return err
		}
		t.analystDatabases, err = refs(ld.dbs, ts.AnalystDatabases, "team analyst database")
		return err
	})
	return nil
}
