package fake

import (
	"errors"
	"net/http"

	"github.com/dbplatform/platform-go"
)

// The control endpoints of the OAuth server: applications, the signed-in
// user, auto-approval and device sign-ins (see oauthapps.go, oauth.go and
// oauthdevice.go).

// controlOAuthRoutes are the OAuth endpoints.
func controlOAuthRoutes() []controlRoute {
	return []controlRoute{
		{http.MethodPost, "organizations/{organization}/oauth-applications", http.StatusCreated, ctlBody((*Server).controlCreateOAuthApplication)},
		{http.MethodPost, "oauth/sign-in", http.StatusNoContent, ctlBody((*Server).controlSignIn)},
		{http.MethodPost, "oauth/sign-out", http.StatusNoContent, ctlBody((*Server).controlSignOut)},
		{http.MethodPut, "oauth/auto-approve", http.StatusNoContent, ctlBody((*Server).controlSetAutoApprove)},
		{http.MethodDelete, "oauth/auto-approve", http.StatusNoContent, ctl((*Server).controlClearAutoApprove)},
		{http.MethodPost, "oauth/device/approve", http.StatusNoContent, ctlBody((*Server).controlApproveDevice)},
		{http.MethodPost, "oauth/device/deny", http.StatusNoContent, ctlBody((*Server).controlDenyDevice)},
	}
}

// controlOAuthAppBody is the body of POST
// /_fake/organizations/{org}/oauth-applications: an [OAuthAppSpec].
type controlOAuthAppBody struct {
	Name        string           `json:"name"`
	Domain      string           `json:"domain"`
	RedirectURI string           `json:"redirect_uri"`
	Scopes      []platform.Scope `json:"scopes"`
	Avatar      string           `json:"avatar"`
	// ClientID and ClientSecret, when set, are the credentials chosen.
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret"`
}

// controlOAuthApp is a new application's credentials as the control
// surface shows them, once.
type controlOAuthApp struct {
	ID           string `json:"id"`
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret"`
	RedirectURI  string `json:"redirect_uri"`
}

// controlCreateOAuthApplication serves POST
// /_fake/organizations/{organization}/oauth-applications.
func (s *Server) controlCreateOAuthApplication(r *http.Request, b *controlOAuthAppBody) (any, error) {
	app, err := s.CreateOAuthApplication(r.PathValue("organization"), OAuthAppSpec{
		Name: b.Name, Domain: b.Domain, RedirectURI: b.RedirectURI, Scopes: b.Scopes, Avatar: b.Avatar,
		ClientID: b.ClientID, ClientSecret: b.ClientSecret,
	})
	if err != nil {
		return nil, refused(err)
	}
	return controlOAuthApp(app), nil
}

// controlSignInBody is the body of POST /_fake/oauth/sign-in.
type controlSignInBody struct {
	UserID string `json:"user_id"`
}

// controlSignIn serves POST /_fake/oauth/sign-in.
func (s *Server) controlSignIn(_ *http.Request, b *controlSignInBody) (any, error) {
	return nil, refused(s.SignIn(b.UserID))
}

// controlSignOut serves POST /_fake/oauth/sign-out; its body, if any, is an
// empty object.
func (s *Server) controlSignOut(*http.Request, *struct{}) (any, error) {
	s.SignOut()
	return nil, nil
}

// controlConsentBody is the body of PUT /_fake/oauth/auto-approve: a
// [Consent].
type controlConsentBody struct {
	Organizations []string `json:"organizations"`
	Databases     []string `json:"databases"`
	Branches      []string `json:"branches"`
}

// controlSetAutoApprove serves PUT /_fake/oauth/auto-approve.
func (s *Server) controlSetAutoApprove(_ *http.Request, b *controlConsentBody) (any, error) {
	s.SetAutoApprove(&Consent{Organizations: b.Organizations, Databases: b.Databases, Branches: b.Branches})
	return nil, nil
}

// controlClearAutoApprove serves DELETE /_fake/oauth/auto-approve: the
// consent page shows again.
func (s *Server) controlClearAutoApprove(*http.Request) (any, error) {
	s.SetAutoApprove(nil)
	return nil, nil
}

// controlDeviceBody is the body of POST /_fake/oauth/device/approve and
// /deny.
type controlDeviceBody struct {
	UserCode string `json:"user_code"`
}

// controlApproveDevice serves POST /_fake/oauth/device/approve.
func (s *Server) controlApproveDevice(_ *http.Request, b *controlDeviceBody) (any, error) {
	return nil, controlDeviceError(b, s.ApproveDevice)
}

// controlDenyDevice serves POST /_fake/oauth/device/deny.
func (s *Server) controlDenyDevice(_ *http.Request, b *controlDeviceBody) (any, error) {
	return nil, controlDeviceError(b, s.DenyDevice)
}

// controlDeviceError decides the body's user code with decide: a missing
// code is a 422, an unknown one a 404, any other refusal a 422.
func controlDeviceError(b *controlDeviceBody, decide func(string) error) error {
	if b.UserCode == "" {
		return missing("user_code")
	}
	err := decide(b.UserCode)
	var derr *deviceCodeError
	if errors.As(err, &derr) && derr.unknown {
		return absent(err)
	}
	return refused(err)
}
