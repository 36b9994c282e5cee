package fake

import (
	"encoding/json"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dbplatform/platform-go"
)

// teamRec is a team of an organization. The API addresses it by slug, which
// follows its name.
type teamRec struct {
	stamps
	name, slug  string
	description string // "" for none
	creator     *userRec
	// managed teams come from SSO or directory services; the API refuses
	// to change them. Only the Go API (SetTeamManaged) sets it.
	managed bool

	members      index[*teamMemberRec]
	memberByUser map[string]*teamMemberRec // by user ID

	// databases and analystDatabases are in the order they were added, by
	// the Go API (AddTeamDatabase); a deleted database is left out when
	// the team is rendered.
	databases, analystDatabases []*dbRec
}

// teamMemberRec is a user's membership of a team.
type teamMemberRec struct {
	stamps
	user  *userRec
	actor *userRec // who added the user
}

// teamStore holds an organization's teams. Its zero value is empty and
// ready to use.
type teamStore struct {
	idx    index[*teamRec]
	bySlug map[string]*teamRec
}

// add files a new team under its slug.
func (ts *teamStore) add(t *teamRec) {
	if ts.bySlug == nil {
		ts.bySlug = map[string]*teamRec{}
	}
	ts.idx.Add(t)
	ts.bySlug[t.slug] = t
}

// remove deletes a team.
func (ts *teamStore) remove(t *teamRec) {
	ts.idx.Remove(t)
	delete(ts.bySlug, t.slug)
}

// dropUser takes a user off every team at time now, as when the user
// leaves the organization; managed teams included, since the user is gone.
func (ts *teamStore) dropUser(u *userRec, now time.Time) {
	for _, t := range ts.idx.All() {
		if m := t.memberByUser[u.id]; m != nil {
			t.removeMember(m, now)
		}
	}
}

func teamRoutes() []route {
	return []route{
		{pattern: "GET /v1/organizations/{organization}/teams", op: "list_organization_teams", handler: read(listTeams)},
		{pattern: "POST /v1/organizations/{organization}/teams", op: "create_organization_team", handler: withBody(createTeam)},
		{pattern: "GET /v1/organizations/{organization}/teams/{team}", op: "get_organization_team", handler: read(getTeam)},
		{pattern: "PATCH /v1/organizations/{organization}/teams/{team}", op: "update_organization_team", handler: withBody(updateTeam)},
		{pattern: "DELETE /v1/organizations/{organization}/teams/{team}", op: "delete_organization_team", handler: act(deleteTeam)},
		{pattern: "GET /v1/organizations/{organization}/teams/{team}/members", op: "list_organization_team_members", handler: read(listTeamMembers)},
		{pattern: "POST /v1/organizations/{organization}/teams/{team}/members", op: "add_organization_team_member", handler: withBody(addTeamMember)},
		{pattern: "GET /v1/organizations/{organization}/teams/{team}/members/{id}", op: "get_organization_team_member", handler: read(getTeamMember)},
		{pattern: "DELETE /v1/organizations/{organization}/teams/{team}/members/{id}", op: "remove_organization_team_member", handler: act(removeTeamMember)},
	}
}

func listTeams(c *call) (any, error) {
	q := strings.ToLower(c.r.URL.Query().Get("q"))
	if q == "" {
		return pageOf(c, &c.org.teams.idx, true, c.w.renderTeam), nil
	}
	match := func(t *teamRec) bool { return strings.Contains(strings.ToLower(t.name), q) }
	return filteredPageOf(c, &c.org.teams.idx, true, match, c.w.renderTeam), nil
}

// teamSlug derives a team's slug from its name: lowercase ASCII letters
// and digits, every other run of characters one dash, none at either end.
func teamSlug(name string) string {
	var b strings.Builder
	gap := false
	for _, r := range strings.ToLower(name) {
		if ('a' <= r && r <= 'z') || ('0' <= r && r <= '9') {
			if gap && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			gap = false
			continue
		}
		gap = true
	}
	return b.String()
}

// teamName checks a team name given as field (at most maxNameLen
// characters once trimmed), and returns it trimmed with its slug. self is
// the team being renamed, nil for a new team: the slug may be its own, but
// no other team's.
func (c *call) teamName(field, name string, self *teamRec) (string, string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return "", "", unprocessable("%s is required", field)
	}
	if n := utf8.RuneCountInString(name); n > maxNameLen {
		return "", "", unprocessable("%s is longer than %d characters (it has %d): the team's slug, its path, follows it", field, maxNameLen, n)
	}
	slug := teamSlug(name)
	if slug == "" {
		return "", "", unprocessable("%s %q has no letters or digits to make the team's slug from", field, name)
	}
	if other := c.org.teams.bySlug[slug]; other != nil && other != self {
		return "", "", unprocessable("%s %q makes the slug %q, which team %q of %s already has", field, name, slug, other.name, c.org.name)
	}
	return name, slug, nil
}

func createTeam(c *call, p *platform.CreateTeamParams) (any, error) {
	name, slug, err := c.teamName("name", p.Name, nil)
	if err != nil {
		return nil, err
	}
	t := &teamRec{
		stamps:       stamps{id: c.w.newID(), created: c.now, updated: c.now},
		name:         name,
		slug:         slug,
		creator:      c.who.user,
		memberByUser: map[string]*teamMemberRec{},
	}
	setIf(&t.description, p.Description)
	c.org.teams.add(t)
	return c.w.renderTeam(t), nil
}

// team finds the path's {team}, a slug, in the path's organization.
func (c *call) team() (*teamRec, error) {
	t := c.org.teams.bySlug[c.r.PathValue("team")]
	if t == nil {
		return nil, c.nothingAt("team")
	}
	return t, nil
}

// changeableTeam finds the path's {team} and refuses a managed one.
func (c *call) changeableTeam() (*teamRec, error) {
	t, err := c.team()
	if err != nil {
		return nil, err
	}
	if err := t.checkUnmanaged(); err != nil {
		return nil, err
	}
	return t, nil
}

// checkUnmanaged refuses changes to a team managed through SSO or
// directory services.
func (t *teamRec) checkUnmanaged() error {
	if t.managed {
		return unprocessable("team %s is managed through SSO or directory services; change it there", t.slug)
	}
	return nil
}

func getTeam(c *call) (any, error) {
	t, err := c.team()
	if err != nil {
		return nil, err
	}
	return c.w.renderTeam(t), nil
}

func updateTeam(c *call, p *platform.UpdateTeamParams) (any, error) {
	t, err := c.changeableTeam()
	if err != nil {
		return nil, err
	}
	name, slug := t.name, t.slug
	if p.Name != nil {
		if name, slug, err = c.teamName("name", *p.Name, t); err != nil {
			return nil, err
		}
	}
	if name == t.name && (p.Description == nil || *p.Description == t.description) {
		return c.w.renderTeam(t), nil
	}
	if slug != t.slug {
		c.org.teams.remove(t)
		t.slug = slug
		c.org.teams.add(t)
	}
	t.name = name
	setIf(&t.description, p.Description)
	t.updated = c.now
	return c.w.renderTeam(t), nil
}

func deleteTeam(c *call) (any, error) {
	t, err := c.changeableTeam()
	if err != nil {
		return nil, err
	}
	c.org.teams.remove(t)
	return nil, nil
}

func listTeamMembers(c *call) (any, error) {
	t, err := c.team()
	if err != nil {
		return nil, err
	}
	return pageOf(c, &t.members, true, renderTeamMember), nil
}

func addTeamMember(c *call, p *platform.AddTeamMemberParams) (any, error) {
	t, err := c.changeableTeam()
	if err != nil {
		return nil, err
	}
	if p.UserID == "" {
		return nil, unprocessable("user_id is required: the ID of a member of %s", c.org.name)
	}
	om := c.org.memberByUser[p.UserID]
	if om == nil {
		return nil, unprocessable("user_id %q is not a member of %s; only organization members can join its teams", p.UserID, c.org.name)
	}
	if t.memberByUser[p.UserID] != nil {
		return nil, unprocessable("user %s is already a member of team %s", p.UserID, t.slug)
	}
	m := &teamMemberRec{stamps: stamps{id: c.w.newID(), created: c.now, updated: c.now}, user: om.user, actor: c.who.user}
	t.members.Add(m)
	t.memberByUser[m.user.id] = m
	t.updated = c.now
	return renderTeamMember(m), nil
}

// teamMember finds the path's {id} on a team: a membership ID or a user ID.
func (c *call) teamMember(t *teamRec) (*teamMemberRec, error) {
	id := c.r.PathValue("id")
	if m := t.memberByUser[id]; m != nil {
		return m, nil
	}
	for _, m := range t.members.All() {
		if m.id == id {
			return m, nil
		}
	}
	return nil, notFound()
}

func getTeamMember(c *call) (any, error) {
	t, err := c.team()
	if err != nil {
		return nil, err
	}
	m, err := c.teamMember(t)
	if err != nil {
		return nil, err
	}
	return renderTeamMember(m), nil
}

func removeTeamMember(c *call) (any, error) {
	t, err := c.team()
	if err != nil {
		return nil, err
	}
	m, err := c.teamMember(t)
	if err != nil {
		return nil, err
	}
	// The fake makes no passwords through teams (passwords are outside its
	// operations), so there are none to delete; the flag is still checked.
	if _, err := boolQuery(c.r.URL.Query().Get("delete_passwords"), "delete_passwords"); err != nil {
		return nil, err
	}
	if err := t.checkUnmanaged(); err != nil {
		return nil, err
	}
	t.removeMember(m, c.now)
	return nil, nil
}

// removeMember ends a membership at time now.
func (t *teamRec) removeMember(m *teamMemberRec, now time.Time) {
	t.members.Remove(m)
	delete(t.memberByUser, m.user.id)
	t.updated = now
}

// renderTeam renders a team as the API shows it.
func (w *world) renderTeam(t *teamRec) *platform.Team {
	out := &platform.Team{
		ID:               t.id,
		Type:             "OrganizationTeam",
		Name:             t.name,
		DisplayName:      t.name,
		Slug:             t.slug,
		Members:          make([]platform.User, 0, t.members.Len()),
		Databases:        w.renderDatabaseRefs(t.databases),
		AnalystDatabases: w.renderDatabaseRefs(t.analystDatabases),
		Managed:          t.managed,
		CreatedAt:        platform.NewTimestamp(t.created),
		UpdatedAt:        platform.NewTimestamp(t.updated),
	}
	if a := renderActor(t.creator); a != nil {
		out.Creator = *a
	}
	if t.description != "" {
		out.Description = platform.Ptr(t.description)
	}
	for _, m := range t.members.All() {
		out.Members = append(out.Members, *renderUser(m.user))
	}
	return out
}

// renderDatabaseRefs renders the databases that still exist as short
// forms.
func (w *world) renderDatabaseRefs(dbs []*dbRec) []platform.DatabaseRef {
	out := make([]platform.DatabaseRef, 0, len(dbs))
	for _, db := range dbs {
		if db.deleted {
			continue
		}
		d := w.renderDatabase(db)
		out = append(out, platform.DatabaseRef{ID: d.ID, Name: d.Name, URL: d.URL, BranchesURL: d.BranchesURL})
	}
	return out
}

// renderTeamMember renders a team membership as the API shows it.
func renderTeamMember(m *teamMemberRec) *platform.TeamMember {
	out := &platform.TeamMember{
		ID:        m.id,
		Type:      "OrganizationTeamMembership",
		User:      *renderUser(m.user),
		CreatedAt: platform.NewTimestamp(m.created),
		UpdatedAt: platform.NewTimestamp(m.updated),
		Passwords: []json.RawMessage{},
	}
	if a := renderActor(m.actor); a != nil {
		out.Actor = *a
	}
	return out
}
