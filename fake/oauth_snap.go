package fake

import (
	"fmt"
	"slices"
	"time"
)

// The snapshot of the OAuth server: the authorization codes waiting for
// their exchange, the device authorizations, and the consent page's
// session. Applications and their tokens are in oauthapps_snap.go.

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
	for i, cs := range list {
		st := &ld.w.oauth
		if st.codes == nil {
			st.codes = map[[32]byte]*oauthCodeRec{}
		}
		if st.codes[cs.Hash] != nil {
			return at(fmt.Errorf("OAuth code %x appears twice", cs.Hash[:]), "[%d].hash", i)
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
			return at(named(err, "OAuth code %x", cs.Hash[:4]), "[%d]", i)
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
	for i, ds := range list {
		if st.devices == nil {
			st.devices = map[[32]byte]*oauthDeviceRec{}
			st.userCodes = map[string]*oauthDeviceRec{}
		}
		if st.devices[ds.Hash] != nil || st.userCodes[ds.UserCode] != nil {
			return at(fmt.Errorf("device authorization %s appears twice", ds.UserCode), "[%d]", i)
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
			return at(named(err, "device authorization %s", ds.UserCode), "[%d]", i)
		}
		st.devices[ds.Hash] = d
		st.userCodes[d.userCode] = d
	}
	return nil
}
