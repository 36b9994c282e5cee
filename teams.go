package platform

import (
	"context"
	"encoding/json"
	"iter"
)

// Team is a group of an organization's members, with the databases the
// group works on. A team is addressed by its Slug, which the API derives
// from its Name.
type Team struct {
	ID          string `json:"id"`
	Type        string `json:"type"`
	Name        string `json:"name"`
	DisplayName string `json:"display_name"`
	// Slug is the team's address in the other team operations, derived
	// by the API from Name.
	Slug        string  `json:"slug"`
	Description *string `json:"description"`
	// Creator is who created the team.
	Creator Actor `json:"creator"`
	// Members are the users on the team.
	Members []User `json:"members"`
	// Databases are the databases the team has access to.
	Databases []DatabaseRef `json:"databases"`
	// AnalystDatabases are the databases the team has analyst access to.
	AnalystDatabases []DatabaseRef `json:"analyst_databases"`
	// Managed is true for a team managed through SSO or directory
	// services; the API refuses changes to it with [ErrUnprocessable].
	Managed   bool      `json:"managed"`
	CreatedAt Timestamp `json:"created_at"`
	UpdatedAt Timestamp `json:"updated_at"`
}

// DatabaseRef is the short form of a database inside other objects.
type DatabaseRef struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// URL is the database's address in the API.
	URL string `json:"url"`
	// BranchesURL is the address of the database's branches in the API.
	BranchesURL string `json:"branches_url"`
}

// TeamMember is a user's membership of a team.
type TeamMember struct {
	// ID is the membership's ID; the member operations take it or the
	// user's ID.
	ID   string `json:"id"`
	Type string `json:"type"`
	User User   `json:"user"`
	// Actor is who added the member to the team.
	Actor     Actor     `json:"actor"`
	CreatedAt Timestamp `json:"created_at"`
	UpdatedAt Timestamp `json:"updated_at"`
	// Passwords are the database passwords the member created through the
	// team, as the API sends them: passwords are not modelled by this SDK
	// yet, so each stays raw JSON for the caller to decode.
	Passwords []json.RawMessage `json:"passwords"`
}

// TeamsService manages an organization's teams and their members.
type TeamsService service

// teamsPath is the collection path of an organization's teams.
func teamsPath(org string) string {
	return pathf("v1/organizations/%s/teams", org)
}

// teamPath is the path of one team, by slug.
func teamPath(org, team string) string {
	return pathf("v1/organizations/%s/teams/%s", org, team)
}

// teamMembersPath is the collection path of a team's memberships.
func teamMembersPath(org, team string) string {
	return teamPath(org, team) + "/members"
}

// teamMemberPath is the path of one team membership, by membership or user
// ID.
func teamMemberPath(org, team, id string) string {
	return teamMembersPath(org, team) + pathf("/%s", id)
}

// ListTeamsParams selects a page of an organization's teams.
type ListTeamsParams struct {
	Organization string `json:"-" url:"-"`
	// Query filters teams by name.
	Query string `json:"-" url:"q,omitempty"`
	ListParams
}

// List returns a page of an organization's teams, oldest first, with the
// total count.
//
// API: GET /v1/organizations/{organization}/teams
func (s *TeamsService) List(ctx context.Context, p *ListTeamsParams) (*Page[Team], error) {
	p = orZero(p)
	if err := required("organization", p.Organization); err != nil {
		return nil, err
	}
	return listPage[Team](ctx, s.client, teamsPath(p.Organization), p)
}

// All ranges over every team of an organization that matches p.
func (s *TeamsService) All(ctx context.Context, p *ListTeamsParams) iter.Seq2[*Team, error] {
	return allOf(ctx, p, s.List)
}

// CreateTeamParams describes a new team.
type CreateTeamParams struct {
	Organization string `json:"-" url:"-"`
	// Name is required; the team's slug is derived from it and must not be
	// another team's.
	Name string `json:"name"`
	// Description says what the team is for.
	Description *string `json:"description,omitempty"`
}

// Create creates a team with no members and no databases. A name without
// letters or digits, or one whose slug another team of the organization
// has, is refused with [ErrUnprocessable].
//
// API: POST /v1/organizations/{organization}/teams
func (s *TeamsService) Create(ctx context.Context, p *CreateTeamParams) (*Team, error) {
	p = orZero(p)
	if err := required("organization", p.Organization); err != nil {
		return nil, err
	}
	t := new(Team)
	return orNil(t, s.client.post(ctx, teamsPath(p.Organization), p, t))
}

// GetTeamParams names a team by its slug.
type GetTeamParams struct {
	Organization string `json:"-" url:"-"`
	// Team is the team's slug.
	Team string `json:"-" url:"-"`
}

// Get returns a team with its members and databases.
//
// API: GET /v1/organizations/{organization}/teams/{team}
func (s *TeamsService) Get(ctx context.Context, p *GetTeamParams) (*Team, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "team", p.Team); err != nil {
		return nil, err
	}
	t := new(Team)
	return orNil(t, s.client.get(ctx, teamPath(p.Organization, p.Team), nil, t))
}

// UpdateTeamParams renames a team or changes its description; nil fields
// are left as they are.
type UpdateTeamParams struct {
	Organization string `json:"-" url:"-"`
	// Team is the team's slug.
	Team string `json:"-" url:"-"`
	// Name is the new name; the slug follows it.
	Name *string `json:"name,omitempty"`
	// Description is the new description; an empty one clears it.
	Description *string `json:"description,omitempty"`
}

// Update renames a team or changes its description. A rename moves the
// team to the new name's slug. A managed team is refused with
// [ErrUnprocessable], as is a new name whose slug another team has.
//
// API: PATCH /v1/organizations/{organization}/teams/{team}
func (s *TeamsService) Update(ctx context.Context, p *UpdateTeamParams) (*Team, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "team", p.Team); err != nil {
		return nil, err
	}
	t := new(Team)
	return orNil(t, s.client.patch(ctx, teamPath(p.Organization, p.Team), p, t))
}

// DeleteTeamParams names the team to delete.
type DeleteTeamParams = GetTeamParams

// Delete deletes a team; its members stay in the organization. A managed
// team is refused with [ErrUnprocessable].
//
// API: DELETE /v1/organizations/{organization}/teams/{team}
func (s *TeamsService) Delete(ctx context.Context, p *DeleteTeamParams) error {
	p = orZero(p)
	if err := required("organization", p.Organization, "team", p.Team); err != nil {
		return err
	}
	return s.client.del(ctx, teamPath(p.Organization, p.Team), nil)
}

// ListTeamMembersParams selects a page of a team's members.
type ListTeamMembersParams struct {
	Organization string `json:"-" url:"-"`
	// Team is the team's slug.
	Team string `json:"-" url:"-"`
	ListParams
}

// ListMembers returns a page of a team's memberships, oldest first, with
// the total count.
//
// API: GET /v1/organizations/{organization}/teams/{team}/members
func (s *TeamsService) ListMembers(ctx context.Context, p *ListTeamMembersParams) (*Page[TeamMember], error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "team", p.Team); err != nil {
		return nil, err
	}
	return listPage[TeamMember](ctx, s.client, teamMembersPath(p.Organization, p.Team), p)
}

// AllMembers ranges over every membership of a team.
func (s *TeamsService) AllMembers(ctx context.Context, p *ListTeamMembersParams) iter.Seq2[*TeamMember, error] {
	return allOf(ctx, p, s.ListMembers)
}

// AddTeamMemberParams names the team and the user to add to it.
type AddTeamMemberParams struct {
	Organization string `json:"-" url:"-"`
	// Team is the team's slug.
	Team string `json:"-" url:"-"`
	// UserID is the ID of the user to add, who must be a member of the
	// organization.
	UserID string `json:"user_id"`
}

// AddMember adds an organization member to a team and returns the new
// membership. A user who is not a member of the organization, one already
// on the team, and a managed team are refused with [ErrUnprocessable].
//
// API: POST /v1/organizations/{organization}/teams/{team}/members
func (s *TeamsService) AddMember(ctx context.Context, p *AddTeamMemberParams) (*TeamMember, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "team", p.Team); err != nil {
		return nil, err
	}
	m := new(TeamMember)
	return orNil(m, s.client.post(ctx, teamMembersPath(p.Organization, p.Team), p, m))
}

// GetTeamMemberParams names a team membership.
type GetTeamMemberParams struct {
	Organization string `json:"-" url:"-"`
	// Team is the team's slug.
	Team string `json:"-" url:"-"`
	// ID is the membership's ID or the member's user ID.
	ID string `json:"-" url:"-"`
}

// GetMember returns a team membership.
//
// API: GET /v1/organizations/{organization}/teams/{team}/members/{id}
func (s *TeamsService) GetMember(ctx context.Context, p *GetTeamMemberParams) (*TeamMember, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "team", p.Team, "id", p.ID); err != nil {
		return nil, err
	}
	m := new(TeamMember)
	return orNil(m, s.client.get(ctx, teamMemberPath(p.Organization, p.Team, p.ID), nil, m))
}

// RemoveTeamMemberParams names the membership to end.
type RemoveTeamMemberParams struct {
	Organization string `json:"-" url:"-"`
	// Team is the team's slug.
	Team string `json:"-" url:"-"`
	// ID is the membership's ID or the member's user ID.
	ID string `json:"-" url:"-"`
	// DeletePasswords deletes the passwords the member created through the
	// team.
	DeletePasswords bool `json:"-" url:"delete_passwords,omitempty"`
}

// RemoveMember takes a user off a team; the user stays in the
// organization. A managed team is refused with [ErrUnprocessable].
//
// API: DELETE /v1/organizations/{organization}/teams/{team}/members/{id}
func (s *TeamsService) RemoveMember(ctx context.Context, p *RemoveTeamMemberParams) error {
	p = orZero(p)
	if err := required("organization", p.Organization, "team", p.Team, "id", p.ID); err != nil {
		return err
	}
	return s.client.del(ctx, teamMemberPath(p.Organization, p.Team, p.ID), p)
}
