package fake

import (
	"fmt"
	"net/url"
	"slices"
	"time"

	"github.com/dbplatform/platform-go"
)

// The snapshot of OAuth applications, their tokens, the authorization codes
// waiting for their exchange, and the consent page's session.

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

type oauthCodeSnap struct {
	Hash        hash32    `json:"hash"`
	App         string    `json:"application"`
	Grant       grantSnap `json:"grant"`
	RedirectURI string    `json:"redirect_uri"`
	Expires     time.Time `json:"expires"`
	Used        bool      `json:"used"`
	Issued      string    `json:"issued"` // token ID
}

type oauthSessionSnap struct {
	User        string   `json:"user"`
	SignedOut   bool     `json:"signed_out"`
	AutoApprove *Consent `json:"auto_approve"`
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
	for _, as := range list {
		if err := ld.loadApp(as); err != nil {
			return named(err, "OAuth application %s", as.ID)
		}
	}
	return nil
}

func (ld *loader) loadApp(as oauthAppSnap) error {
	if err := unique(ld.apps, as.ID, "OAuth application"); err != nil {
		return err
	}
	org := ld.w.orgs[as.Organization]
	if org == nil {
		return fmt.Errorf("organization %q is not in the snapshot", as.Organization)
	}
	domain, err := url.Parse(as.Domain)
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
	for _, ts := range as.Tokens {
		if err := unique(ld.otokens, ts.ID, "OAuth token"); err != nil {
			return err
		}
		t := &oauthTokenRec{stamps: ts.load(), app: a, accessHash: ts.AccessHash, refreshHash: ts.RefreshHash, expires: ts.Expires}
		t.lastUsed.Store(ts.LastUsed)
		ld.otokens[t.id] = t
		// Grants name databases and branches: resolve them once all exist.
		ld.later(func() (err error) {
			t.grant, err = ld.loadGrant(ts.Grant)
			return named(err, "OAuth token %s", t.id)
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

func (sv *saver) codes() []oauthCodeSnap {
	var out []oauthCodeSnap
	for h, c := range sv.w.oauth.codes {
		out = append(out, oauthCodeSnap{
			Hash: h, App: c.app.id, Grant: saveGrant(c.grant), RedirectURI: c.redirectURI,
			Expires: c.expires, Used: c.used, Issued: idOf(c.issued),
		})
	}
	slices.SortFunc(out, func(a, b oauthCodeSnap) int { return slices.Compare(a.Hash[:], b.Hash[:]) })
	return out
}

func (ld *loader) loadCodes(list []oauthCodeSnap) error {
	for _, cs := range list {
		st := &ld.w.oauth
		if st.codes == nil {
			st.codes = map[[32]byte]*oauthCodeRec{}
		}
		if st.codes[cs.Hash] != nil {
			return fmt.Errorf("OAuth code %x appears twice", cs.Hash[:])
		}
		c := &oauthCodeRec{redirectURI: cs.RedirectURI, expires: cs.Expires, used: cs.Used}
		var err error
		if c.app, err = ref(ld.apps, cs.App, "application"); err == nil && c.app == nil {
			err = fmt.Errorf("no application")
		}
		if err == nil {
			c.grant, err = ld.loadGrant(cs.Grant)
		}
		if err == nil {
			c.issued, err = ref(ld.otokens, cs.Issued, "issued token")
		}
		if err != nil {
			return named(err, "OAuth code %x", cs.Hash[:4])
		}
		st.codes[cs.Hash] = c
	}
	return nil
}

func (sv *saver) session(s *oauthSession) oauthSessionSnap {
	return oauthSessionSnap{User: idOf(s.user), SignedOut: s.signedOut, AutoApprove: s.autoApprove}
}

func (ld *loader) loadSession(ss oauthSessionSnap) error {
	u, err := ref(ld.users, ss.User, "signed-in user")
	ld.session = oauthSession{user: u, signedOut: ss.SignedOut, autoApprove: ss.AutoApprove}
	return named(err, "OAuth session")
}

// oauthDeviceSnap is a device authorization of the device flow.
type oauthDeviceSnap struct {
	Hash     hash32        `json:"hash"` // of the device code
	App      string        `json:"application"`
	UserCode string        `json:"user_code"`
	Expires  time.Time     `json:"expires"`
	Interval time.Duration `json:"interval"`
	LastPoll time.Time     `json:"last_poll"`
	Grant    *grantSnap    `json:"grant"`
	User     string        `json:"user"`
	Denied   bool          `json:"denied"`
	Used     bool          `json:"used"`
}

func (sv *saver) devices() []oauthDeviceSnap {
	var out []oauthDeviceSnap
	for h, d := range sv.w.oauth.devices {
		ds := oauthDeviceSnap{
			Hash: h, App: d.app.id, UserCode: d.userCode, Expires: d.expires, Interval: d.interval,
			LastPoll: d.lastPoll, User: idOf(d.user), Denied: d.denied, Used: d.used,
		}
		if d.grant != nil {
			g := saveGrant(d.grant)
			ds.Grant = &g
		}
		out = append(out, ds)
	}
	slices.SortFunc(out, func(a, b oauthDeviceSnap) int { return slices.Compare(a.Hash[:], b.Hash[:]) })
	return out
}

func (ld *loader) loadDevices(list []oauthDeviceSnap) error {
	st := &ld.w.oauth
	for _, ds := range list {
		if st.devices == nil {
			st.devices = map[[32]byte]*oauthDeviceRec{}
			st.userCodes = map[string]*oauthDeviceRec{}
		}
		if st.devices[ds.Hash] != nil || st.userCodes[ds.UserCode] != nil {
			return fmt.Errorf("device authorization %s appears twice", ds.UserCode)
		}
		d := &oauthDeviceRec{userCode: ds.UserCode, expires: ds.Expires, interval: ds.Interval, lastPoll: ds.LastPoll, denied: ds.Denied, used: ds.Used}
		var err error
		if d.app, err = refNonNil(ld.apps, ds.App, "application"); err == nil {
			d.user, err = ref(ld.users, ds.User, "user")
		}
		if err == nil && ds.Grant != nil {
			d.grant, err = ld.loadGrant(*ds.Grant)
		}
		if err != nil {
			return named(err, "device authorization %s", ds.UserCode)
		}
		st.devices[ds.Hash] = d
		st.userCodes[d.userCode] = d
	}
	return nil
}
