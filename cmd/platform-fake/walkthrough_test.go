package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbplatform/platform-go"
)

// The README's walkthrough of the standalone server is a shell block between
// these markers. Its first line is a comment with the command that starts
// the server; the rest talks to it at readmeAddr.
const (
	walkthroughStart = "<!-- walkthrough:start -->"
	walkthroughEnd   = "<!-- walkthrough:end -->"
	readmeAddr       = "http://127.0.0.1:8080"
	startPrefix      = "# first terminal: go run ./cmd/platform-fake"
)

// readmeWalkthrough returns the flags of the walkthrough's server and its
// script.
func readmeWalkthrough(t *testing.T) (flags []string, script string) {
	t.Helper()
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(data), walkthroughStart)
	block, _, ok2 := strings.Cut(rest, walkthroughEnd)
	block = strings.TrimSpace(block)
	if !ok || !ok2 || !strings.HasPrefix(block, "```sh\n") || !strings.HasSuffix(block, "\n```") {
		t.Fatalf("README.md has no sh block between %s and %s", walkthroughStart, walkthroughEnd)
	}
	script = strings.TrimSuffix(strings.TrimPrefix(block, "```sh\n"), "```")
	first, _, _ := strings.Cut(script, "\n")
	rest, ok = strings.CutPrefix(first, startPrefix)
	if !ok {
		t.Fatalf("the walkthrough starts with %q, want %q and the flags", first, startPrefix)
	}
	if !strings.Contains(script, readmeAddr) {
		t.Fatalf("the walkthrough does not talk to %s", readmeAddr)
	}
	return strings.Fields(rest), script
}

// TestREADMEWalkthrough builds the binary, starts it as the README's
// walkthrough does (on a free port instead of 8080), runs the walkthrough's
// commands with bash and curl, and checks where they left the server.
func TestREADMEWalkthrough(t *testing.T) {
	t.Parallel()
	flags, script := readmeWalkthrough(t)
	for _, tool := range []string{"bash", "curl"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the walkthrough needs %s: %v", tool, err)
		}
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	bin := filepath.Join(t.TempDir(), "platform-fake")
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	server := exec.CommandContext(ctx, bin, append(flags, "-addr", "127.0.0.1:0")...)
	stdout, err := server.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = server.Process.Signal(os.Interrupt)
		_ = server.Wait()
	})
	info := map[string]string{}
	sc := bufio.NewScanner(stdout)
	for sc.Scan() && !strings.HasPrefix(sc.Text(), "stop with") {
		if k, v, ok := strings.Cut(sc.Text(), ": "); ok {
			info[k] = v
		}
	}
	base := strings.TrimSuffix(info["base URL"], "/")
	if base == "" {
		t.Fatalf("the server printed no base URL: %v", sc.Err())
	}
	go func() {
		for sc.Scan() {
		}
	}()
	if !strings.Contains(script, "AUTH='"+info["Authorization"]+"'") {
		t.Errorf("the walkthrough's AUTH is not the Authorization the server printed, %s", info["Authorization"])
	}

	run := exec.CommandContext(ctx, "bash", "-euo", "pipefail", "-c", strings.ReplaceAll(script, readmeAddr, base))
	out, err := run.CombinedOutput()
	if err != nil {
		t.Fatalf("the walkthrough failed: %v\n%s", err, out)
	}

	// It left a deployed deploy request and an OAuth application.
	auth := info["Authorization"]
	var d platform.Deployment
	if status := send(t, "GET", base+"/v1/organizations/acme/databases/app-db/deploy-requests/1/deployment", auth, &d); status != 200 || d.State != platform.DeploymentCompletePendingRevert {
		t.Errorf("deployment after the walkthrough: status %d, state %q; want %s", status, d.State, platform.DeploymentCompletePendingRevert)
	}
	var apps platform.Page[platform.OAuthApplication]
	if status := send(t, "GET", base+"/v1/organizations/acme/oauth-applications", auth, &apps); status != 200 || len(apps.Items) != 1 || apps.Items[0].Name != "Dashboard" {
		t.Errorf("OAuth applications after the walkthrough: status %d, %+v; want Dashboard", status, apps.Items)
	}
	if t.Failed() {
		t.Logf("the walkthrough's output:\n%s", out)
	}
}
