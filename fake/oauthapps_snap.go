package fake

import (
	"fmt"
	"slices"
	"time"

	"github.com/dbplatform/platform-go"
)

// The snapshot of OAuth applications with their tokens and grants.

type oauthAppSnap struct {
	stampsSnap
	Organization string           `json:"organization"`
	Name         string           `json:"name"`
	Domain       string           `json:"domain"`
	RedirectURI  string           `json:"redirect_uri"`
	Avatar       string           `json:"avatar"`
	Scopes       []platform.Scope `json:"scopes"`
	ClientID     string           `json:"client_id"`
	SecretHash   hash32           `json:"secret_hash"`
	Tokens       []oauthTokenSnap `json:"tokens"`
}

type oauthTokenSnap struct {
	stampsSnap
	Grant       grantSnap `json:"grant"`
	AccessHash  hash32    `json:"access_hash"`
	RefreshHash hash32    `json:"refresh_hash"`
	Expires     time.Time `json:"expires"`
	LastUsed    int64     `json:"last_used"`
	// Revoked marks a token kept because an authorization code names it.
	Revoked bool `json:"revoked,omitempty"`
}

type grantSnap struct {
	User          string              `json:"user"`
	Scopes        map[string][]string `json:"scopes"`
	Organizations []string            `json:"organizations"` // IDs
	Databases     []string            `json:"databases"`
	Branches      []string            `json:"branches"`
}

func saveGrant(g *oauthGrant) grantSnap {
	return grantSnap{idOf(g.user), g.scopes, idsOf(g.orgs), idsOf(g.dbs), idsOf(g.branches)}
}

func (ld *loader) loadGrant(gs grantSnap) (*oauthGrant, error) {
	g := &oauthGrant{scopes: gs.Scopes}
	var err error
	if g.user, err = ref(ld.users, gs.User, "grant user"); err != nil {
		return nil, err
	}
	if g.orgs, err = refs(ld.orgs, gs.Organizations, "grant organization"); err != nil {
		return nil, err
	}
	if g.dbs, err = refs(ld.dbs, gs.Databases, "grant database"); err != nil {
		return nil, err
	}
	g.branches, err = refs(ld.branches, gs.Branches, "grant branch")
	return g, err
}

func (sv *saver) apps() []oauthAppSnap {
	var apps []*oauthAppRec
	for _, a := range sv.w.oauth.apps {
		apps = append(apps, a)
	}
	slices.SortFunc(apps, func(a, b *oauthAppRec) int { return a.ListKey().Compare(b.ListKey()) })
	byApp := map[*oauthAppRec]map[*oauthTokenRec]bool{}
	for t := range sv.otokenSet {
		if byApp[t.app] == nil {
			byApp[t.app] = map[*oauthTokenRec]bool{}
		}
		byApp[t.app][t] = true
	}
	var out []oauthAppSnap
	for _, a := range apps {
		as := oauthAppSnap{
			stampsSnap: saveStamps(a.stamps), Organization: a.org.name, Name: a.name, Domain: a.domain.String(),
			RedirectURI: a.redirectURI, Avatar: a.avatar, Scopes: a.scopes, ClientID: a.clientID, SecretHash: a.secretHash,
		}
		for _, t := range listOrder(byApp[a]) {
			as.Tokens = append(as.Tokens, oauthTokenSnap{
				stampsSnap: saveStamps(t.stamps), Grant: saveGrant(t.grant), AccessHash: t.accessHash,
				RefreshHash: t.refreshHash, Expires: t.expires, LastUsed: t.lastUsed.Load(),
				Revoked: a.tokens.Get(t.id) != t,
			})
		}
		out = append(out, as)
	}
	return out
}

func (ld *loader) loadApps(list []oauthAppSnap) error {
	for i, as := range list {
		if err := ld.loadApp(as, i); err != nil {
			return at(named(err, "OAuth application %s", as.ID), "[%d]", i)
		}
	}
	return nil
}

// loadApp loads as, the i-th application of the snapshot.
func (ld *loader) loadApp(as oauthAppSnap, i int) error {
	if err := unique(ld.apps, as.ID, "OAuth application"); err != nil {
		return err
	}
	org := ld.w.orgs[as.Organization]
	if org == nil {
		return fmt.Errorf("organization %q is not in the snapshot", as.Organization)
	}
	domain, err := checkOAuthAppSpec(OAuthAppSpec{Name: as.Name, Domain: as.Domain, RedirectURI: as.RedirectURI, Scopes: as.Scopes, ClientID: as.ClientID})
	if err != nil {
		return err
	}
	if ld.w.oauth.byClient[as.ClientID] != nil {
		return fmt.Errorf("client ID %q appears twice", as.ClientID)
	}
	a := &oauthAppRec{
		stamps: as.load(), org: org, name: as.Name, domain: domain, redirectURI: as.RedirectURI,
		avatar: as.Avatar, scopes: as.Scopes, clientID: as.ClientID, secretHash: as.SecretHash,
	}
	ld.apps[a.id] = a
	ld.w.oauth.addApp(a)
	st := &ld.w.oauth
	for j, ts := range as.Tokens {
		if err := unique(ld.otokens, ts.ID, "OAuth token"); err != nil {
			return err
		}
		t := &oauthTokenRec{stamps: ts.load(), app: a, accessHash: ts.AccessHash, refreshHash: ts.RefreshHash, expires: ts.Expires}
		t.lastUsed.Store(ts.LastUsed)
		ld.otokens[t.id] = t
		// Grants name databases and branches: resolve them once all exist.
		ld.later(func() (err error) {
			t.grant, err = ld.loadGrant(ts.Grant)
			return at(named(err, "OAuth token %s", t.id), "oauth_applications[%d].tokens[%d].grant", i, j)
		})
		if ts.Revoked {
			continue
		}
		if st.access == nil {
			st.access = map[[32]byte]*oauthTokenRec{}
			st.refresh = map[[32]byte]*oauthTokenRec{}
		}
		st.access[t.accessHash] = t
		st.refresh[t.refreshHash] = t
		a.tokens.Add(t)
	}
	return nil
}
