package fake

import (
	"net/http"

	"github.com/dbplatform/platform-go"
)

// The control endpoints that seed the world: organizations, users, members,
// service tokens and teams' databases (see seed.go and seed_teams.go).

// controlSeedRoutes are the seeding endpoints.
func controlSeedRoutes() []controlRoute {
	return []controlRoute{
		{http.MethodPost, "organizations", http.StatusNoContent, ctlBody((*Server).controlCreateOrganization)},
		{http.MethodPost, "users", http.StatusCreated, ctlBody((*Server).controlCreateUser)},
		{http.MethodPost, "organizations/{organization}/members", http.StatusNoContent, ctlBody((*Server).controlAddMember)},
		{http.MethodPost, "organizations/{organization}/service-tokens", http.StatusCreated, ctlBody((*Server).controlCreateServiceToken)},
		{http.MethodDelete, "service-tokens/{id}", http.StatusNoContent, ctl((*Server).controlDeleteServiceToken)},
		{http.MethodPost, "organizations/{organization}/teams/{team}/databases", http.StatusNoContent, ctlBody((*Server).controlAddTeamDatabase)},
		{http.MethodPost, "organizations/{organization}/teams/{team}/analyst-databases", http.StatusNoContent, ctlBody((*Server).controlAddTeamAnalystDatabase)},
		{http.MethodPut, "organizations/{organization}/teams/{team}/managed", http.StatusNoContent, ctlBody((*Server).controlSetTeamManaged)},
	}
}

// controlOrganizationBody is the body of POST /_fake/organizations.
type controlOrganizationBody struct {
	Name string `json:"name"`
}

// controlCreateOrganization serves POST /_fake/organizations.
func (s *Server) controlCreateOrganization(_ *http.Request, b *controlOrganizationBody) (any, error) {
	return nil, refused(s.CreateOrganization(b.Name))
}

// controlUser is a new user as the control surface shows it.
type controlUser struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Email string `json:"email"`
}

// controlUserBody is the body of POST /_fake/users.
type controlUserBody struct {
	Name  string `json:"name"`
	Email string `json:"email"`
}

// controlCreateUser serves POST /_fake/users.
func (s *Server) controlCreateUser(_ *http.Request, b *controlUserBody) (any, error) {
	switch {
	case b.Name == "":
		return nil, missing("name")
	case b.Email == "":
		return nil, missing("email")
	}
	return controlUser{ID: s.CreateUser(b.Name, b.Email), Name: b.Name, Email: b.Email}, nil
}

// controlMemberBody is the body of POST /_fake/organizations/{org}/members.
type controlMemberBody struct {
	UserID string              `json:"user_id"`
	Role   platform.MemberRole `json:"role"`
}

// controlAddMember serves POST /_fake/organizations/{organization}/members.
func (s *Server) controlAddMember(r *http.Request, b *controlMemberBody) (any, error) {
	return nil, refused(s.AddMember(r.PathValue("organization"), b.UserID, b.Role))
}

// controlTokenBody is the body of POST
// /_fake/organizations/{org}/service-tokens: a [TokenSpec].
type controlTokenBody struct {
	Name                string                           `json:"name"`
	CreatedBy           string                           `json:"created_by"`
	Permissions         []platform.Permission            `json:"permissions"`
	DatabasePermissions map[string][]platform.Permission `json:"database_permissions"`
	TTL                 string                           `json:"ttl"`
}

// controlToken is a new service token as the control surface shows it.
type controlToken struct {
	ID            string `json:"id"`
	Secret        string `json:"secret"`
	Authorization string `json:"authorization"`
}

// controlCreateServiceToken serves POST
// /_fake/organizations/{organization}/service-tokens.
func (s *Server) controlCreateServiceToken(r *http.Request, b *controlTokenBody) (any, error) {
	ttl, err := parseControlDuration("ttl", b.TTL)
	if err != nil {
		return nil, err
	}
	tok, err := s.CreateServiceToken(r.PathValue("organization"), TokenSpec{
		Name: b.Name, CreatedBy: b.CreatedBy, Permissions: b.Permissions, DatabasePermissions: b.DatabasePermissions, TTL: ttl,
	})
	if err != nil {
		return nil, refused(err)
	}
	return controlToken{ID: tok.ID, Secret: tok.Secret, Authorization: tok.Authorization()}, nil
}

// controlDeleteServiceToken serves DELETE /_fake/service-tokens/{id}.
func (s *Server) controlDeleteServiceToken(r *http.Request) (any, error) {
	return nil, absent(s.DeleteServiceToken(r.PathValue("id")))
}

// controlTeamDatabaseBody is the body of the endpoints that put a database
// on a team.
type controlTeamDatabaseBody struct {
	Database string `json:"database"`
}

// controlAddTeamDatabase serves POST
// /_fake/organizations/{organization}/teams/{team}/databases.
func (s *Server) controlAddTeamDatabase(r *http.Request, b *controlTeamDatabaseBody) (any, error) {
	return nil, refused(s.AddTeamDatabase(r.PathValue("organization"), r.PathValue("team"), b.Database))
}

// controlAddTeamAnalystDatabase serves POST
// /_fake/organizations/{organization}/teams/{team}/analyst-databases.
func (s *Server) controlAddTeamAnalystDatabase(r *http.Request, b *controlTeamDatabaseBody) (any, error) {
	return nil, refused(s.AddTeamAnalystDatabase(r.PathValue("organization"), r.PathValue("team"), b.Database))
}

// controlManagedBody is the body of PUT
// /_fake/organizations/{org}/teams/{team}/managed.
type controlManagedBody struct {
	Managed *bool `json:"managed"`
}

// controlSetTeamManaged serves PUT
// /_fake/organizations/{organization}/teams/{team}/managed.
func (s *Server) controlSetTeamManaged(r *http.Request, b *controlManagedBody) (any, error) {
	if b.Managed == nil {
		return nil, missing("managed")
	}
	return nil, refused(s.SetTeamManaged(r.PathValue("organization"), r.PathValue("team"), *b.Managed))
}
