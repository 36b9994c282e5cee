package fake

import (
	"errors"
	"fmt"
	"time"

	"github.com/dbplatform/platform-go"
)

// The snapshot of a branch's live connections (see connections.go): its
// sessions by process ID, and the process ID the next one takes.

type sessionsSnap struct {
	NextPID  int           `json:"next_pid"`
	Sessions []sessionSnap `json:"sessions"`
}

type sessionSnap struct {
	ID         string    `json:"id"`
	PID        int       `json:"pid"`
	Instance   int       `json:"instance"`
	Keyspace   string    `json:"keyspace,omitempty"`
	Shard      string    `json:"shard,omitempty"`
	User       string    `json:"user"`
	Host       string    `json:"host,omitempty"`
	App        string    `json:"application,omitempty"`
	Started    time.Time `json:"started"`
	Query      string    `json:"query,omitempty"`
	QueryStart time.Time `json:"query_start"`
	QueryEnd   time.Time `json:"query_end"`
	XactStart  time.Time `json:"xact_start"`
	Aborted    bool      `json:"aborted,omitempty"`
	BlockedBy  string    `json:"blocked_by,omitempty"`
	Changed    time.Time `json:"changed"`
	Recorded   bool      `json:"recorded,omitempty"`
	Client     string    `json:"client,omitempty"`
}

// saveSessions saves b's sessions; nil when it never had one.
func saveSessions(b *branchRec) *sessionsSnap {
	m := b.more.peek()
	if m == nil || m.sessions.nextPID == 0 {
		return nil
	}
	out := &sessionsSnap{NextPID: m.sessions.nextPID, Sessions: []sessionSnap{}}
	for _, s := range m.sessions.recs {
		out.Sessions = append(out.Sessions, sessionSnap{
			ID: s.id, PID: s.pid, Instance: s.instance, Keyspace: s.keyspace, Shard: s.shard,
			User: s.user, Host: s.host, App: s.app, Started: s.started, Query: s.query,
			QueryStart: s.queryStart, QueryEnd: s.queryEnd, XactStart: s.xactStart, Aborted: s.aborted,
			BlockedBy: s.blockedBy, Changed: s.changed, Recorded: s.recorded, Client: s.client,
		})
	}
	return out
}

// loadSessions loads b's sessions, checking each as OpenSession checks a
// spec: on an instance, or a keyspace and shard, of b; times in order;
// process IDs rising and below the next one; a blocker among them.
func loadSessions(b *branchRec, ss *sessionsSnap) error {
	if ss == nil {
		return nil
	}
	if ss.NextPID < firstPID {
		return at(fmt.Errorf("must be at least %d, got %d", firstPID, ss.NextPID), "sessions.next_pid")
	}
	if len(ss.Sessions) > maxSessionsPerBranch {
		return at(fmt.Errorf("%d sessions, over the %d a branch takes", len(ss.Sessions), maxSessionsPerBranch), "sessions")
	}
	ids := map[string]bool{}
	for _, s := range ss.Sessions {
		ids[s.ID] = true
	}
	sessions := &b.x().sessions
	sessions.nextPID = ss.NextPID
	last := firstPID - 1
	for i, s := range ss.Sessions {
		if err := s.validate(b, last, ss.NextPID, ids); err != nil {
			return at(at(err, "[%d]", i), "sessions")
		}
		last = s.PID
		sessions.recs = append(sessions.recs, &sessionRec{
			id: s.ID, pid: s.PID, instance: s.Instance, keyspace: s.Keyspace, shard: s.Shard,
			user: s.User, host: s.Host, app: s.App, started: s.Started, query: s.Query,
			queryStart: s.QueryStart, queryEnd: s.QueryEnd, xactStart: s.XactStart, aborted: s.Aborted,
			blockedBy: s.BlockedBy, changed: s.Changed, recorded: s.Recorded, client: s.Client,
		})
	}
	return nil
}

// validate checks a session of b loaded after the process ID last, before
// next; ids are the IDs of b's sessions.
func (s sessionSnap) validate(b *branchRec, last, next int, ids map[string]bool) error {
	postgres := b.db.kind == platform.KindPostgreSQL
	switch {
	case s.ID == "":
		return at(errors.New("must not be empty"), "id")
	case s.PID <= last || s.PID >= next:
		return at(fmt.Errorf("must be above %d and below next_pid %d, got %d", last, next, s.PID), "pid")
	case s.User == "":
		return at(errors.New("must not be empty"), "user")
	case s.Started.IsZero():
		return at(errors.New("must be set"), "started")
	case s.Changed.Before(s.Started):
		return at(errors.New("is before started"), "changed")
	case s.Query == "" && !s.QueryStart.IsZero(), s.Query != "" && s.QueryStart.IsZero():
		return at(errors.New("a query and its start go together"), "query_start")
	case !s.QueryStart.IsZero() && s.QueryStart.Before(s.Started):
		return at(errors.New("is before started"), "query_start")
	case !s.QueryEnd.IsZero() && (s.QueryStart.IsZero() || s.QueryEnd.Before(s.QueryStart)):
		return at(errors.New("is before its query's start, or has no query"), "query_end")
	case s.Recorded != (s.Client != ""):
		return at(errors.New("a recorded session and its client go together"), "client")
	case s.Host != "":
		if _, err := parseClientHost(s.Host); err != nil {
			return at(err, "host")
		}
	}
	if postgres {
		switch {
		case s.Instance < 0 || s.Instance >= b.postgresInstances():
			return at(fmt.Errorf("branch %s has instances 0 to %d, got %d", b.name, b.postgresInstances()-1, s.Instance), "instance")
		case s.Keyspace != "" || s.Shard != "":
			return at(errors.New("a postgresql session has no keyspace"), "keyspace")
		case !s.XactStart.IsZero() && s.XactStart.Before(s.Started):
			return at(errors.New("is before started"), "xact_start")
		case s.Aborted && s.XactStart.IsZero():
			return at(errors.New("an aborted transaction needs one"), "aborted")
		case s.BlockedBy != "" && (!ids[s.BlockedBy] || s.BlockedBy == s.ID):
			return at(fmt.Errorf("%q is not another session of branch %s", s.BlockedBy, b.name), "blocked_by")
		}
		return nil
	}
	switch {
	case s.Instance != 0:
		return at(errors.New("a mysql session has no instance"), "instance")
	case !s.XactStart.IsZero() || s.Aborted || s.BlockedBy != "" || s.App != "":
		return at(errors.New("transactions, blockers and applications are for postgresql sessions"), "xact_start")
	}
	if _, _, err := sessionTablet(b, s.Keyspace, s.Shard); err != nil || s.Keyspace == "" || s.Shard == "" {
		return at(fmt.Errorf("%q/%q is not a keyspace and shard of branch %s", s.Keyspace, s.Shard, b.name), "keyspace")
	}
	return nil
}
