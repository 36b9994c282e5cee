package fake

import (
	"net/http"
	"time"

	"github.com/dbplatform/platform-go"
)

// The control endpoint of authentication attempts (see authattempts.go).

// controlAuthAttemptRoutes are the authentication attempts' endpoints.
func controlAuthAttemptRoutes() []controlRoute {
	return []controlRoute{
		{http.MethodPost, "organizations/{organization}/auth-attempts", http.StatusOK, ctlBody((*Server).controlRecordAuthAttempts)},
	}
}

// controlAuthAttemptsBody is the body of POST
// /_fake/organizations/{org}/auth-attempts.
type controlAuthAttemptsBody struct {
	Attempts []controlAuthAttempt `json:"attempts"`
}

// controlAuthAttempt is an AuthAttempt over HTTP; at is RFC 3339, absent
// for now.
type controlAuthAttempt struct {
	Username        string                           `json:"username"`
	SourceAddress   string                           `json:"source_address"`
	Database        string                           `json:"database"`
	Branch          string                           `json:"branch"`
	At              time.Time                        `json:"at"`
	StartupDatabase string                           `json:"startup_database"`
	BackendRoute    platform.AuthAttemptBackendRoute `json:"backend_route"`
}

// controlRecordAuthAttempts serves POST .../auth-attempts: it answers the
// attempts as recorded, with their outcomes, as {"data": [...]}.
func (s *Server) controlRecordAuthAttempts(r *http.Request, b *controlAuthAttemptsBody) (any, error) {
	if len(b.Attempts) == 0 {
		return nil, missing("attempts")
	}
	attempts := make([]AuthAttempt, len(b.Attempts))
	for i, a := range b.Attempts {
		attempts[i] = AuthAttempt(a)
	}
	rows, err := s.RecordAuthAttempts(r.PathValue("organization"), attempts...)
	if err != nil {
		return nil, refused(err)
	}
	return controlList[platform.AuthAttempt]{Data: rows}, nil
}
