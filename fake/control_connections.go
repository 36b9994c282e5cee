package fake

import (
	"net/http"
	"time"
)

// The control endpoint that opens a live connection on a branch (see
// connections.go).

// controlConnectionRoutes are the connections endpoints.
func controlConnectionRoutes() []controlRoute {
	return []controlRoute{
		{http.MethodPost, controlBranch + "/sessions", http.StatusCreated, ctlBody((*Server).controlOpenSession)},
	}
}

// controlSessionBody is the body of POST .../branches/{branch}/sessions:
// a SessionSpec, its durations as Go duration strings.
type controlSessionBody struct {
	User          string    `json:"user"`
	Host          string    `json:"host"`
	Application   string    `json:"application"`
	Instance      string    `json:"instance"`
	Keyspace      string    `json:"keyspace"`
	Shard         string    `json:"shard"`
	Query         string    `json:"query"`
	QueryDuration string    `json:"query_duration"`
	QueryStarted  time.Time `json:"query_started"`
	InTransaction bool      `json:"in_transaction"`
	BlockedBy     string    `json:"blocked_by"`
	Started       time.Time `json:"started"`
}

// controlSession is the answer of POST .../branches/{branch}/sessions.
type controlSession struct {
	ID string `json:"id"`
}

// controlOpenSession serves POST .../branches/{branch}/sessions.
func (s *Server) controlOpenSession(r *http.Request, b *controlSessionBody) (any, error) {
	d, err := parseControlDuration("query_duration", b.QueryDuration)
	if err != nil {
		return nil, err
	}
	org, db, branch := branchPath(r)
	id, err := s.OpenSession(org, db, branch, SessionSpec{
		User: b.User, Host: b.Host, Application: b.Application, Instance: b.Instance,
		Keyspace: b.Keyspace, Shard: b.Shard, Query: b.Query, QueryDuration: d, QueryStarted: b.QueryStarted,
		InTransaction: b.InTransaction, BlockedBy: b.BlockedBy, Started: b.Started,
	})
	if err != nil {
		return nil, refused(err)
	}
	return controlSession{ID: id}, nil
}
