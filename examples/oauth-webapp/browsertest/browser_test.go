package browsertest

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// This test drives the oauth-webapp demo in a real browser: headless
// Chromium, through the DevTools protocol with chromedp. It builds the demo
// as a user runs it (go run ./examples/oauth-webapp -demo) and clicks what a
// user clicks, so it proves what the net/http tests of the example cannot:
// that the pages, the consent form and the cookies work in a browser
// (SameSite, redirects after a POST).

// browserCandidates are the Chromium executables tried, in order, when
// CHROME_PATH does not name one.
var browserCandidates = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "/usr/bin/chromium"}

// findBrowser returns the Chromium to run: $CHROME_PATH, or the first of
// browserCandidates found; "" when there is none.
func findBrowser() string {
	if p := os.Getenv("CHROME_PATH"); p != "" {
		return p
	}
	for _, name := range browserCandidates {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// lockedBuffer collects output written from several goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// browserTimeout bounds the whole browser test, so that a browser that
// hangs fails it instead of holding CI.
const browserTimeout = 90 * time.Second

// The demo's seed, as its README section describes it.
const (
	demoAppName  = "Database Lister"
	demoOrg      = "acme"
	otherDemoOrg = "side-project"
)

// demo is the oauth-webapp demo running as a process.
type demo struct {
	url     string // the app: http://127.0.0.1:port
	fakeURL string // the platform's fake, ending in /
}

// startDemo builds examples/oauth-webapp and runs it with -demo on a free
// loopback port until the test ends.
func startDemo(ctx context.Context, t *testing.T, output *lockedBuffer) demo {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "oauth-webapp")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/dbplatform/platform-go/examples/oauth-webapp")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the demo: %v\n%s", err, out)
	}
	cmd := exec.CommandContext(ctx, bin, "-demo", "-addr", "127.0.0.1:0")
	cmd.Stderr = output
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	})
	var d demo
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		line := sc.Text()
		fmt.Fprintln(output, line)
		if rest, ok := strings.CutPrefix(line, "oauth-webapp demo: open "); ok {
			d.url, _, _ = strings.Cut(rest, " ")
		}
		if rest, ok := strings.CutPrefix(line, "the platform's fake (API and consent page) is at "); ok {
			d.fakeURL = rest
		}
		if strings.HasPrefix(line, "press Ctrl-C") {
			break
		}
	}
	if d.url == "" || d.fakeURL == "" {
		t.Fatalf("the demo did not print its addresses: %v\n%s", sc.Err(), output)
	}
	go func() { _, _ = bufio.NewReader(stdout).WriteTo(output) }()
	return d
}

// pageShows is what an app page shows, read in the browser.
type pageShows struct {
	Databases []string // organization/database, sorted
	NotShared []string // organizations, sorted
	SignIn    bool
	SignOut   bool
	Notice    string
}

// readPageJS reads a pageShows from the app's page.
const readPageJS = `(() => {
	const all = (sel) => Array.from(document.querySelectorAll(sel));
	const notice = document.querySelector("p.notice");
	return {
		Databases: all("li.database").map(e => e.dataset.organization + "/" + e.dataset.name).sort(),
		NotShared: all("p.not-shared").map(e => e.dataset.organization).sort(),
		SignIn: document.querySelector("#sign-in") !== null,
		SignOut: document.querySelector('form[action="/logout"]') !== null,
		Notice: notice ? notice.textContent : "",
	};
})()`

// newBrowser starts the headless Chromium at path, with a fresh profile
// and its output in output, and returns the context of its tab. The browser
// stops when ctx ends or the test ends.
func newBrowser(ctx context.Context, t *testing.T, path string, output *lockedBuffer) context.Context {
	t.Helper()
	// Not t.TempDir: Chromium's helper processes can still be writing to
	// the profile when the browser itself has exited, and TempDir fails the
	// test when its removal finds the directory not empty. The profile is
	// removed as far as it can be.
	profile, err := os.MkdirTemp("", "oauth-webapp-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(profile) })
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox, // the sandbox cannot start as root, as in CI containers
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true), // containers have a small /dev/shm
		chromedp.UserDataDir(profile),
		chromedp.CombinedOutput(output),
	)
	t.Cleanup(cancelAlloc) // stops the browser and waits for it
	logf := func(format string, args ...any) { fmt.Fprintf(output, format+"\n", args...) }
	browserCtx, cancelBrowser := chromedp.NewContext(allocCtx, chromedp.WithLogf(logf), chromedp.WithErrorf(logf))
	t.Cleanup(cancelBrowser)
	return browserCtx
}

// startBrowserTest skips t when no Chromium is found. Otherwise it returns
// the browser's path, a context that ends after browserTimeout, and the
// buffer for the output of the browser and what it tests (of, in the log),
// which is logged when t fails.
func startBrowserTest(t *testing.T, of string) (ctx context.Context, path string, output *lockedBuffer) {
	t.Helper()
	path = findBrowser()
	if path == "" {
		t.Skip("no Chromium found: install Debian's chromium package (.ci/run does) to run the browser test")
	}
	ctx, cancel := context.WithTimeout(t.Context(), browserTimeout)
	t.Cleanup(cancel)
	output = new(lockedBuffer)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("output of %s and %s:\n%s", of, path, output.String())
		}
	})
	return ctx, path, output
}

func TestBrowserSignIn(t *testing.T) {
	t.Parallel()
	ctx, path, output := startBrowserTest(t, "the demo")
	d := startDemo(ctx, t, output)
	browserCtx := newBrowser(ctx, t, path, output)

	// step runs actions, then reads where the browser is and what the app
	// page there shows.
	step := func(name string, actions ...chromedp.Action) (location string, shows pageShows) {
		t.Helper()
		actions = append(actions, chromedp.Location(&location), chromedp.Evaluate(readPageJS, &shows))
		if err := chromedp.Run(browserCtx, actions...); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return location, shows
	}
	// want checks that the browser is on the app at path (with any query)
	// and sees want.
	want := func(name, location, path string, got, want pageShows) {
		t.Helper()
		if location != d.url+path && !strings.HasPrefix(location, d.url+path+"?") {
			t.Errorf("%s: the browser is at %s, want %s%s", name, location, d.url, path)
		}
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: page (-want +got):\n%s", name, diff)
		}
	}
	consent := func(name, button string) {
		t.Helper()
		var title string
		location, _ := step(name, chromedp.Click("#sign-in", chromedp.ByQuery),
			chromedp.WaitVisible(button, chromedp.ByQuery), chromedp.Title(&title))
		if !strings.HasPrefix(location, d.fakeURL+"oauth/authorize?") || title != "Authorize "+demoAppName {
			t.Errorf("%s: at %s, page %q; want the consent page for %s", name, location, title, demoAppName)
		}
	}
	signedOut := pageShows{SignIn: true}

	location, shows := step("opening the app", chromedp.Navigate(d.url+"/"), chromedp.WaitVisible("#sign-in", chromedp.ByQuery))
	want("opening the app", location, "/", shows, signedOut)

	deny, authorize := `button[value="deny"]`, `button[value="authorize"]`
	consent("signing in", deny)
	location, shows = step("denying", chromedp.Click(deny, chromedp.ByQuery), chromedp.WaitVisible("p.notice", chromedp.ByQuery))
	want("denying", location, "/callback", shows, pageShows{SignIn: true, Notice: "You denied access, so your databases cannot be listed."})

	consent("signing in again", authorize)
	location, shows = step("authorizing", chromedp.Click(authorize, chromedp.ByQuery), chromedp.WaitVisible("li.database", chromedp.ByQuery))
	want("authorizing", location, "/", shows, pageShows{
		Databases: []string{demoOrg + "/analytics", demoOrg + "/app-db"},
		NotShared: []string{otherDemoOrg},
		SignOut:   true,
	})

	location, shows = step("signing out", chromedp.Click(`form[action="/logout"] button`, chromedp.ByQuery), chromedp.WaitVisible("#sign-in", chromedp.ByQuery))
	want("signing out", location, "/", shows, signedOut)
}
