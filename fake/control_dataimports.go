package fake

import "net/http"

// The control endpoints of data imports: what a test of an external
// database finds, and the import notifications a database received (see
// dataimports.go).

// controlDataImportRoutes are the data import endpoints.
func controlDataImportRoutes() []controlRoute {
	return []controlRoute{
		{http.MethodPut, "organizations/{organization}/import-sources/{host}", http.StatusNoContent, ctlBody((*Server).controlSetImportSource)},
		{http.MethodGet, "organizations/{organization}/databases/{database}/import-notifications", http.StatusOK, ctl((*Server).controlImportNotifications)},
	}
}

// controlSetImportSource serves PUT /_fake/organizations/{org}/import-sources/{host}.
func (s *Server) controlSetImportSource(r *http.Request, b *ImportSource) (any, error) {
	return nil, refused(s.SetImportSource(r.PathValue("organization"), r.PathValue("host"), *b))
}

// controlImportNotifications serves GET
// /_fake/organizations/{org}/databases/{db}/import-notifications:
// {"data": [...]}, oldest first.
func (s *Server) controlImportNotifications(r *http.Request) (any, error) {
	list, err := s.ImportNotifications(r.PathValue("organization"), r.PathValue("database"))
	if err != nil {
		return nil, absent(err)
	}
	return map[string]any{"data": list}, nil
}
