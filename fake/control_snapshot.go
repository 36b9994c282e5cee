package fake

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
)

// The control endpoints of snapshots (see snapshot.go).

// controlSnapshotRoutes are the snapshot and reset endpoints.
func controlSnapshotRoutes() []controlRoute {
	return []controlRoute{
		{http.MethodGet, "snapshot", http.StatusOK, ctl((*Server).controlSnapshot)},
		{http.MethodPut, "snapshot", http.StatusNoContent, (*Server).controlRestore},
		{http.MethodPost, "reset", http.StatusNoContent, ctl((*Server).controlReset)},
	}
}

// controlSnapshot serves GET /_fake/snapshot: the snapshot itself.
func (s *Server) controlSnapshot(*http.Request) (any, error) {
	data, err := s.Snapshot()
	if err != nil {
		return nil, refused(err)
	}
	return json.RawMessage(data), nil
}

// controlRestore serves PUT /_fake/snapshot: the body is a snapshot of GET
// /_fake/snapshot. A refused snapshot is a 422 that says why.
func (s *Server) controlRestore(w http.ResponseWriter, r *http.Request) (any, error) {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxSnapshotSize))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, errf(http.StatusRequestEntityTooLarge, "payload_too_large", "snapshot is over the limit of %d bytes", MaxSnapshotSize)
		}
		return nil, badRequest("reading request body: %v", err)
	}
	return nil, refused(s.Restore(data))
}

// controlReset serves POST /_fake/reset.
func (s *Server) controlReset(*http.Request) (any, error) {
	s.Reset()
	return nil, nil
}
