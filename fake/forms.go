package fake

import (
	"net/http"
	"strings"
)

// foreignOrigin says why a browser's POST to one of the fake's pages (the
// OAuth consent and device forms, the state page) came from a page of
// another origin, or "" when it did not: a browser names the sender with
// Sec-Fetch-Site, which must be same-origin, and with Origin, which must
// be the address the request went to ("null", an opaque origin, is not).
// A request with neither header is not a browser's; the form's CSRF token
// still guards it.
func foreignOrigin(r *http.Request) string {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" {
		return "Sec-Fetch-Site: " + site
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return ""
	}
	scheme := "http://"
	if r.TLS != nil {
		scheme = "https://"
	}
	if !strings.EqualFold(origin, scheme+r.Host) {
		return "Origin: " + origin
	}
	return ""
}
