package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"time"

	"golang.org/x/oauth2"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/oauth"
)

// sessions are the signed-in browsers. Each has a random ID, which the
// browser keeps in a cookie, and its user's latest token. Given a file,
// sessions are written there on every change, refreshes included, so that
// users stay signed in across restarts: the platform rotates the refresh
// token on every refresh, and a file holding an old one would lock the user
// out. The file holds credentials and is written with mode 0600.
type sessions struct {
	file string // "" keeps the sessions in memory only

	mu   sync.Mutex
	byID map[string]*session
}

// session is one signed-in browser.
type session struct {
	Token *oauth2.Token `json:"token"`
	// client calls the API for the session. It is built on first use and
	// kept, so that the session's requests share one token source, which
	// refreshes once for all of them.
	client *platform.Client
}

// openSessions returns the sessions kept in file, none if it does not exist
// yet; an empty file name keeps them in memory.
func openSessions(file string) (*sessions, error) {
	s := &sessions{file: file, byID: map[string]*session{}}
	if file == "" {
		return s, nil
	}
	b, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &s.byID); err != nil {
		return nil, fmt.Errorf("reading sessions from %s: %w", file, err)
	}
	return s, nil
}

// create starts a session for a user who has just signed in and returns its
// ID.
func (s *sessions) create(tok *oauth2.Token) (string, error) {
	// A session ID needs what a state needs: 256 random bits, URL-safe.
	id, err := oauth.NewState()
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.byID[id] = &session{Token: tok}
	if err := s.writeLocked(); err != nil {
		delete(s.byID, id)
		return "", err
	}
	return id, nil
}

// save records a refreshed token of session id; it is the save function of
// the session's token source. A session removed meanwhile stays removed.
func (s *sessions) save(id string, tok *oauth2.Token) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess, ok := s.byID[id]
	if !ok {
		return nil
	}
	sess.Token = tok
	return s.writeLocked()
}

// token returns session id's token, nil when there is no such session.
func (s *sessions) token(id string) *oauth2.Token {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sess, ok := s.byID[id]; ok {
		return sess.Token
	}
	return nil
}

// remove ends session id.
func (s *sessions) remove(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.byID[id]; !ok {
		return nil
	}
	delete(s.byID, id)
	return s.writeLocked()
}

// client returns session id's API client, building it with build from the
// session's token on first use; ok is false when there is no such session.
// build must not do I/O: it runs under the sessions' lock.
func (s *sessions) client(id string, build func(*oauth2.Token) (*platform.Client, error)) (c *platform.Client, ok bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess, ok := s.byID[id]
	if !ok {
		return nil, false, nil
	}
	if sess.client == nil {
		if sess.client, err = build(sess.Token); err != nil {
			return nil, true, err
		}
	}
	return sess.client, true, nil
}

// expire makes session id refresh its token before its next request, after
// the API refused the token of client: the session's token is marked
// expired and its client dropped, so the next one built refreshes first. It
// reports whether a refresh is to come: false when there is no session or
// its token has no refresh token. When client is no longer the session's
// (a request that got the same refusal came first), it leaves the session
// as it is, so that both requests share one refresh.
func (s *sessions) expire(id string, client *platform.Client) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess, ok := s.byID[id]
	switch {
	case !ok || sess.Token.RefreshToken == "":
		return false
	case sess.client != client:
		return true
	}
	tok := *sess.Token
	tok.Expiry = time.Now()
	sess.Token, sess.client = &tok, nil
	return true
}

// writeLocked writes every session to the file, atomically: a crash leaves
// the old file or the new one, never half of one.
func (s *sessions) writeLocked() error {
	if s.file == "" {
		return nil
	}
	b, err := json.MarshalIndent(s.byID, "", "  ")
	if err != nil {
		return err
	}
	tmp := s.file + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return fmt.Errorf("saving sessions: %w", err)
	}
	if err := os.Rename(tmp, s.file); err != nil {
		return fmt.Errorf("saving sessions: %w", err)
	}
	return nil
}
