package main

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"
)

// TestRunPrintsStatePageLink: the "state page" line printed at start is a
// link that signs a browser in to the state page once.
func TestRunPrintsStatePageLink(t *testing.T) {
	t.Parallel()
	s := start(t, "-addr", "127.0.0.1:0", "-virtual-time", "-org", "globex")
	base, link := s.info["base URL"], s.info["state page"]
	if !strings.HasPrefix(link, base+"_fake/page/sign-in?code=") {
		t.Fatalf("state page %q, want a link %s_fake/page/sign-in?code=...", link, base)
	}
	// open follows link as a browser does, with its own cookies, and
	// returns where it ended and what it was answered.
	open := func() (status int, at, body string) {
		t.Helper()
		jar, err := cookiejar.New(nil)
		if err != nil {
			t.Fatal(err)
		}
		req, err := http.NewRequestWithContext(t.Context(), "GET", link, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Accept", "text/html")
		resp, err := (&http.Client{Jar: jar}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, resp.Request.URL.String(), string(data)
	}
	status, at, body := open()
	if status != http.StatusOK || at != base+"_fake/" || !strings.Contains(body, "<td>globex</td>") || !strings.Contains(body, `id="advance"`) {
		t.Fatalf("following the link: status %d at %s; want 200 at %s_fake/, the state page with globex and the Advance form:\n%s", status, at, base, body)
	}
	if status, _, body := open(); status != http.StatusUnauthorized || !strings.Contains(body, "used already") {
		t.Errorf("following the link again: status %d, want 401 and that it was used:\n%s", status, body)
	}
}
