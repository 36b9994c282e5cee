package fake

import (
	"fmt"
	"slices"
)

// The API has no operation that puts a database on a team or makes a team
// managed: the first happens in the product's web interface, the second
// through SSO or directory services, neither of which the fake has. A
// test sets both up through these methods.

// AddTeamDatabase gives a team access to a database of its organization:
// the database appears in the team's databases until it is deleted. team
// is the team's slug.
func (s *Server) AddTeamDatabase(org, team, database string) error {
	return s.addTeamDatabase("AddTeamDatabase", org, team, database, false)
}

// AddTeamAnalystDatabase gives a team analyst access to a database of its
// organization: the database appears in the team's analyst_databases until
// it is deleted. team is the team's slug.
func (s *Server) AddTeamAnalystDatabase(org, team, database string) error {
	return s.addTeamDatabase("AddTeamAnalystDatabase", org, team, database, true)
}

// SetTeamManaged marks a team as managed through SSO or directory services
// (or no longer): the API then refuses to update or delete it and to add
// or remove its members, with 422. team is the team's slug.
func (s *Server) SetTeamManaged(org, team string, managed bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, err := s.world.findTeam(org, team)
	if err != nil {
		return methodErr("SetTeamManaged", err)
	}
	if t.managed != managed {
		t.managed = managed
		t.updated = s.world.clock.Now()
	}
	return nil
}

// addTeamDatabase is AddTeamDatabase (analyst false) and
// AddTeamAnalystDatabase (analyst true), named fn in errors.
func (s *Server) addTeamDatabase(fn, org, team, database string, analyst bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, err := s.world.findTeam(org, team)
	if err != nil {
		return methodErr(fn, err)
	}
	db := s.world.orgs[org].dbByName[database]
	if db == nil {
		return fmt.Errorf("fake: %s: no database %q in %s", fn, database, org)
	}
	list := &t.databases
	if analyst {
		list = &t.analystDatabases
	}
	if slices.Contains(*list, db) {
		return fmt.Errorf("fake: %s: database %s is already on team %s", fn, database, team)
	}
	// Deleted databases are left out when the team is rendered; drop them
	// here so that the list does not grow with them.
	*list = append(slices.DeleteFunc(*list, func(d *dbRec) bool { return d.deleted }), db)
	t.updated = s.world.clock.Now()
	return nil
}

// findTeam looks a team up by organization name and slug, for the Go API.
func (w *world) findTeam(org, team string) (*teamRec, error) {
	o := w.orgs[org]
	if o == nil {
		return nil, fmt.Errorf("no organization %q", org)
	}
	t := o.teams.bySlug[team]
	if t == nil {
		return nil, fmt.Errorf("no team %q in %s", team, org)
	}
	return t, nil
}
