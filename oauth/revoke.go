package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"golang.org/x/oauth2"
)

// maxRevokeBody bounds how much of a revocation answer is read.
const maxRevokeBody = 1 << 20

// Revoke revokes token, an access token or a refresh token the platform
// issued to this application (RFC 7009), as a sign-out does: the token
// stops working, and so does the other token of the same sign-in. It sends
// token, client_id and, when ClientSecret is set, client_secret as a form
// body to {AuthURL}/oauth/revoke. The platform answers success for a token
// it does not know (already revoked, or never issued), so a sign-out need
// not check first. A refusal is an *oauth2.RetrieveError with the server's
// error code ("invalid_client"; "unauthorized_client" for a token of
// another application). ctx bounds the request; a copy of the *http.Client
// stored under [oauth2.HTTPClient] in ctx sends it, which follows no
// redirect: any answer outside 2xx, a redirect included, is an
// *oauth2.RetrieveError, so a sign-out that did not happen never looks
// done. No error text repeats the token or the client secret.
//
// API: POST /oauth/revoke
func (c *Config) Revoke(ctx context.Context, token string) error {
	if token == "" {
		return errors.New("oauth: Revoke: the token is empty")
	}
	form := url.Values{"token": {token}, "client_id": {c.ClientID}}
	if c.ClientSecret != "" {
		form.Set("client_secret", c.ClientSecret)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.baseURL()+"/oauth/revoke", strings.NewReader(form.Encode()))
	if err != nil {
		return fmt.Errorf("oauth: Revoke: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	resp, err := noRedirectClient(ctx).Do(req)
	if err != nil {
		return redact(fmt.Errorf("oauth: Revoke: %w", err), token, c.ClientSecret)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxRevokeBody))
	if err != nil {
		return fmt.Errorf("oauth: Revoke: reading the answer: %w", err)
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return nil
	}
	re := &oauth2.RetrieveError{Response: resp, Body: body}
	var e struct {
		Code        string `json:"error"`
		Description string `json:"error_description"`
		URI         string `json:"error_uri"`
	}
	if json.Unmarshal(body, &e) == nil {
		re.ErrorCode, re.ErrorDescription, re.ErrorURI = e.Code, e.Description, e.URI
	}
	return redact(re, token, c.ClientSecret)
}
