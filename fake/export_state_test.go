package fake

import "encoding/json"

// This file gives the tests of package fake_test a cheap way to tell
// whether a request changed a server: its snapshot, which holds every
// resource and everything that decides what the API shows next.

// StateJSON returns srv's snapshot (see [Server.Snapshot]), compact (the
// tests compare it as it is and indent it only to show a difference:
// worldStateDiff), without what every authenticated request
// records, refused or not: the service tokens' and OAuth access tokens'
// last use. Two are equal when nothing a request may change has changed.
func StateJSON(srv *Server) (string, error) {
	srv.mu.RLock()
	snap, err := srv.save()
	srv.mu.RUnlock()
	if err != nil {
		return "", err
	}
	for i := range snap.ServiceTokens {
		snap.ServiceTokens[i].LastUsed = 0
	}
	for i := range snap.OAuthApps {
		for j := range snap.OAuthApps[i].Tokens {
			snap.OAuthApps[i].Tokens[j].LastUsed = 0
		}
	}
	b, err := json.Marshal(snap)
	return string(b), err
}
