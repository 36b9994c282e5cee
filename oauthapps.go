package platform

import (
	"context"
	"iter"
)

// OAuthApplicationsService reads an organization's OAuth applications and
// manages the tokens they were issued. Applications themselves are created
// in the organization's settings, where the client secret is shown once.
//
// The authorization-code flow that obtains tokens on a user's behalf (the
// consent page and the token endpoint) lives on the authorization host; see
// package oauth. [OAuthApplicationsService.CreateToken] is its server-side
// twin, for an application's backend holding a service token.
type OAuthApplicationsService service

// OAuthApplication is an OAuth application, as its organization sees it.
// The client secret is never shown again after creation.
type OAuthApplication struct {
	ID          string `json:"id"`
	Type        string `json:"type"`
	Name        string `json:"name"`
	RedirectURI string `json:"redirect_uri"`
	// Domain is the full URL of the application's domain; redirect URIs
	// must be on it.
	Domain    string    `json:"domain"`
	CreatedAt Timestamp `json:"created_at"`
	UpdatedAt Timestamp `json:"updated_at"`
	// Scopes are the scopes the application asks users for.
	Scopes ScopeList `json:"scopes"`
	// Avatar is the address of the application's image; "" when it has none.
	Avatar   string `json:"avatar"`
	ClientID string `json:"client_id"`
	// Tokens is the number of live tokens issued to the application.
	Tokens int `json:"tokens"`
	// DCR reports whether the application was created by dynamic client
	// registration.
	DCR bool `json:"dcr"`
	// SingleOrgAuthorization limits an authorization to one organization.
	SingleOrgAuthorization bool `json:"single_org_authorization"`
	// RequiresOrgScope reports whether a user must authorize at least one
	// organization.
	RequiresOrgScope bool `json:"requires_org_scope"`
	// ScopesByResource are the application's scopes grouped by the kind of
	// resource they are granted on ("user", "organization", "database",
	// "branch").
	ScopesByResource map[string][]OAuthScopeInfo `json:"scopes_by_resource"`
	// AllScopesByResource are every scope, grouped the same way, with
	// Selected set for the application's own.
	AllScopesByResource map[string][]OAuthScopeInfo `json:"all_scopes_by_resource"`
}

// OAuthScopeInfo describes a scope inside an [OAuthApplication].
type OAuthScopeInfo struct {
	// Scope is the scope's name without its resource ("read_databases").
	Scope       string `json:"scope"`
	Description string `json:"description"`
	// Admin reports whether only an organization's administrators may grant
	// the scope.
	Admin bool `json:"admin"`
	// Selected is set in AllScopesByResource only: whether the application
	// asks for the scope.
	Selected *bool `json:"selected,omitempty"`
}

// OAuthToken is a token issued to an OAuth application on a user's behalf:
// one authorization, whose access token is renewed by refreshing.
type OAuthToken struct {
	ID          string  `json:"id"`
	Type        string  `json:"type"`
	Name        *string `json:"name"`
	DisplayName string  `json:"display_name"`
	// Token is the access token in plain text, shown only by CreateToken.
	Token *string `json:"token"`
	// PlainTextRefreshToken is the refresh token, shown only by
	// CreateToken.
	PlainTextRefreshToken *string    `json:"plain_text_refresh_token"`
	AvatarURL             string     `json:"avatar_url"`
	CreatedAt             Timestamp  `json:"created_at"`
	UpdatedAt             Timestamp  `json:"updated_at"`
	ExpiresAt             *Timestamp `json:"expires_at"`
	LastUsedAt            *Timestamp `json:"last_used_at"`
	// ActorID, ActorDisplayName and ActorType name the user on whose
	// behalf the token acts.
	ActorID          *string `json:"actor_id"`
	ActorDisplayName *string `json:"actor_display_name"`
	ActorType        *string `json:"actor_type"`
	// OAuthAccessesByResource is what the user granted: per kind of
	// resource, the resources and the scopes granted on them.
	OAuthAccessesByResource *OAuthAccesses `json:"oauth_accesses_by_resource"`
	// ServiceTokenAccesses are the permissions of a service token, which
	// the API renders in the same shape; always nil for an OAuth token,
	// whose grant is OAuthAccessesByResource.
	ServiceTokenAccesses []*ServiceTokenAccess `json:"service_token_accesses"`
}

// OAuthAccesses is the grant behind an [OAuthToken], per kind of resource.
// Every scope of a kind applies to every resource of that kind.
type OAuthAccesses struct {
	Database     OAuthDatabaseAccesses     `json:"database"`
	Organization OAuthOrganizationAccesses `json:"organization"`
	Branch       OAuthBranchAccesses       `json:"branch"`
	User         OAuthUserAccesses         `json:"user"`
}

// OAuthAccess is a scope of a grant, named without its resource.
type OAuthAccess struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// OAuthDatabaseAccesses are the database scopes of a grant and the
// databases they are granted on.
type OAuthDatabaseAccesses struct {
	Databases []OAuthDatabaseResource `json:"databases"`
	Accesses  []OAuthAccess           `json:"accesses"`
}

// OAuthDatabaseResource is a database a grant covers.
type OAuthDatabaseResource struct {
	Name         string `json:"name"`
	ID           string `json:"id"`
	Organization string `json:"organization"`
	URL          string `json:"url"`
}

// OAuthOrganizationAccesses are the organization scopes of a grant and the
// organizations they are granted on.
type OAuthOrganizationAccesses struct {
	Organizations []OAuthOrganizationResource `json:"organizations"`
	Accesses      []OAuthAccess               `json:"accesses"`
}

// OAuthOrganizationResource is an organization a grant covers.
type OAuthOrganizationResource struct {
	Name string `json:"name"`
	ID   string `json:"id"`
	URL  string `json:"url"`
}

// OAuthBranchAccesses are the branch scopes of a grant and the branches
// they are granted on.
type OAuthBranchAccesses struct {
	Branches []OAuthBranchResource `json:"branches"`
	Accesses []OAuthAccess         `json:"accesses"`
}

// OAuthBranchResource is a branch a grant covers.
type OAuthBranchResource struct {
	Name         string `json:"name"`
	ID           string `json:"id"`
	Database     string `json:"database"`
	Organization string `json:"organization"`
	URL          string `json:"url"`
}

// OAuthUserAccesses are the user scopes of a grant and the user they are
// granted on.
type OAuthUserAccesses struct {
	Users    []OAuthUserResource `json:"users"`
	Accesses []OAuthAccess       `json:"accesses"`
}

// OAuthUserResource is the user a grant acts for.
type OAuthUserResource struct {
	Name string `json:"name"`
	ID   string `json:"id"`
}

// OAuthGrantType is what CreateToken exchanges for a token.
type OAuthGrantType string

// The grant types.
const (
	// OAuthGrantAuthorizationCode exchanges the code the consent page
	// redirected with.
	OAuthGrantAuthorizationCode OAuthGrantType = "authorization_code"
	// OAuthGrantRefreshToken renews a token with its refresh token, which
	// is replaced by a new one.
	OAuthGrantRefreshToken OAuthGrantType = "refresh_token"
)

// oauthAppsPath is the collection path of an organization's applications.
func oauthAppsPath(org string) string {
	return pathf("v1/organizations/%s/oauth-applications", org)
}

// ListOAuthApplicationsParams selects a page of an organization's OAuth
// applications.
type ListOAuthApplicationsParams struct {
	Organization string `json:"-" url:"-"`
	ListParams
}

// List returns a page of an organization's OAuth applications.
//
// API: GET /v1/organizations/{organization}/oauth-applications
func (s *OAuthApplicationsService) List(ctx context.Context, p *ListOAuthApplicationsParams) (*Page[OAuthApplication], error) {
	p = orZero(p)
	if err := required("organization", p.Organization); err != nil {
		return nil, err
	}
	return listPage[OAuthApplication](ctx, s.client, oauthAppsPath(p.Organization), p)
}

// All ranges over every OAuth application of an organization.
func (s *OAuthApplicationsService) All(ctx context.Context, p *ListOAuthApplicationsParams) iter.Seq2[*OAuthApplication, error] {
	return allOf(ctx, p, s.List)
}

// GetOAuthApplicationParams names an OAuth application.
type GetOAuthApplicationParams struct {
	Organization  string `json:"-" url:"-"`
	ApplicationID string `json:"-" url:"-"`
}

// Get returns an OAuth application.
//
// API: GET /v1/organizations/{organization}/oauth-applications/{application_id}
func (s *OAuthApplicationsService) Get(ctx context.Context, p *GetOAuthApplicationParams) (*OAuthApplication, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "application_id", p.ApplicationID); err != nil {
		return nil, err
	}
	app := new(OAuthApplication)
	return orNil(app, s.client.get(ctx, oauthAppsPath(p.Organization)+pathf("/%s", p.ApplicationID), nil, app))
}

// ListOAuthTokensParams selects a page of the tokens of an OAuth
// application.
type ListOAuthTokensParams struct {
	Organization  string `json:"-" url:"-"`
	ApplicationID string `json:"-" url:"-"`
	ListParams
}

// ListTokens returns a page of the live tokens issued to an OAuth
// application. No token secret is shown.
//
// API: GET /v1/organizations/{organization}/oauth-applications/{application_id}/tokens
func (s *OAuthApplicationsService) ListTokens(ctx context.Context, p *ListOAuthTokensParams) (*Page[OAuthToken], error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "application_id", p.ApplicationID); err != nil {
		return nil, err
	}
	return listPage[OAuthToken](ctx, s.client, oauthAppsPath(p.Organization)+pathf("/%s/tokens", p.ApplicationID), p)
}

// AllTokens ranges over every live token of an OAuth application.
func (s *OAuthApplicationsService) AllTokens(ctx context.Context, p *ListOAuthTokensParams) iter.Seq2[*OAuthToken, error] {
	return allOf(ctx, p, s.ListTokens)
}

// GetOAuthTokenParams names a token of an OAuth application.
type GetOAuthTokenParams struct {
	Organization  string `json:"-" url:"-"`
	ApplicationID string `json:"-" url:"-"`
	TokenID       string `json:"-" url:"-"`
}

func (p *GetOAuthTokenParams) check() error {
	return required("organization", p.Organization, "application_id", p.ApplicationID, "token_id", p.TokenID)
}

func (p *GetOAuthTokenParams) path(suffix string) string {
	return oauthAppsPath(p.Organization) + pathf("/%s/tokens/%s", p.ApplicationID, p.TokenID) + suffix
}

// GetToken returns a token of an OAuth application, without its secrets.
//
// API: GET /v1/organizations/{organization}/oauth-applications/{application_id}/tokens/{token_id}
func (s *OAuthApplicationsService) GetToken(ctx context.Context, p *GetOAuthTokenParams) (*OAuthToken, error) {
	return callOn[OAuthToken](ctx, s.client, "GET", p, "", nil, nil)
}

// DeleteOAuthTokenParams names the token to delete.
type DeleteOAuthTokenParams = GetOAuthTokenParams

// DeleteToken revokes a token of an OAuth application at once: its access
// token and its refresh token stop working.
//
// API: DELETE /v1/organizations/{organization}/oauth-applications/{application_id}/tokens/{token_id}
func (s *OAuthApplicationsService) DeleteToken(ctx context.Context, p *DeleteOAuthTokenParams) error {
	return doOn(ctx, s.client, "DELETE", p, "", nil, nil)
}

// CreateOAuthTokenParams exchanges an authorization code, or a refresh
// token, for a token of an OAuth application.
type CreateOAuthTokenParams struct {
	Organization  string `json:"-" url:"-"`
	ApplicationID string `json:"-" url:"-"`
	// ClientID and ClientSecret are the application's credentials.
	ClientID     string         `json:"client_id"`
	ClientSecret string         `json:"client_secret"`
	GrantType    OAuthGrantType `json:"grant_type"`
	// Code is the code the consent page redirected with; required with
	// [OAuthGrantAuthorizationCode].
	Code *string `json:"code,omitempty"`
	// RedirectURI is the redirect URI the code was issued for; required
	// with [OAuthGrantAuthorizationCode].
	RedirectURI *string `json:"redirect_uri,omitempty"`
	// RefreshToken is the token's refresh token; required with
	// [OAuthGrantRefreshToken].
	RefreshToken *string `json:"refresh_token,omitempty"`
}

// CreateToken exchanges an authorization code for a new token, or renews a
// token with its refresh token (which it replaces: the old refresh token
// stops working). The answer is the only one that shows the access token
// (Token) and the refresh token (PlainTextRefreshToken).
//
// API: POST /v1/organizations/{organization}/oauth-applications/{id}/token
func (s *OAuthApplicationsService) CreateToken(ctx context.Context, p *CreateOAuthTokenParams) (*OAuthToken, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "application_id", p.ApplicationID); err != nil {
		return nil, err
	}
	tok := new(OAuthToken)
	return orNil(tok, s.client.post(ctx, oauthAppsPath(p.Organization)+pathf("/%s/token", p.ApplicationID), p, tok))
}
