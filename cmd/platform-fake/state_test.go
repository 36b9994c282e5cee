package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/iotest"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// stateArgs are the arguments of a virtual-time run keeping its state in
// path, with extra arguments.
func stateArgs(path string, extra ...string) []string {
	return append([]string{"-addr", "127.0.0.1:0", "-virtual-time", "-state", path}, extra...)
}

// TestRunStateSurvivesRestart checks that a restart with -state carries on
// where the last run stopped: the same admin token (whatever -seed says),
// the same resources, the clock where it was, and the pending transitions,
// which run when the clock reaches them.
func TestRunStateSurvivesRestart(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state.json")
	first := start(t, stateArgs(path)...)
	if got := first.info["state"]; got != "new, saved to "+path {
		t.Errorf("state line %q, want a new state", got)
	}
	base, auth := first.info["base URL"], first.info["Authorization"]
	body := `{"name":"app-db","cluster_size":"PS_10"}`
	if status := sendJSON(t, "POST", base+"v1/organizations/acme/databases", auth, body, &platform.Database{}); status != 201 {
		t.Fatalf("creating a database: status %d", status)
	}
	if status := send(t, "POST", base+"_fake/advance?d=2s", auth, &clockAnswer{}); status != 200 {
		t.Fatalf("advancing: status %d", status)
	}
	if err := first.stop(t); err != nil {
		t.Fatalf("the first run: %v", err)
	}

	second := start(t, stateArgs(path, "-seed", "42")...)
	if got := second.info["state"]; got != "loaded from "+path {
		t.Errorf("state line %q, want the state loaded", got)
	}
	if second.info["Authorization"] != auth {
		t.Errorf("admin token %q after the restart, want the saved %q", second.info["Authorization"], auth)
	}
	base = second.info["base URL"]
	var now clockAnswer
	if send(t, "GET", base+"_fake/now", auth, &now); now.Now != "2026-01-01T00:00:02.000Z" {
		t.Errorf("clock at %s after the restart, want where it stopped, 2s in", now.Now)
	}
	var db platform.Database
	if send(t, "GET", base+"v1/organizations/acme/databases/app-db", auth, &db); db.State != platform.DatabaseState("pending") {
		t.Errorf("database %q is %q, want still pending", db.Name, db.State)
	}
	send(t, "POST", base+"_fake/advance?d=3s", auth, &now)
	if send(t, "GET", base+"v1/organizations/acme/databases/app-db", auth, &db); db.State != platform.DatabaseReady {
		t.Errorf("database is %q once the clock reached its transition, want ready", db.State)
	}
}

// TestRunStateSavesAfterChanges checks that a change is saved a moment
// after it happens, while the server runs: a crash then loses nothing
// older. The file is a snapshot a server restores.
func TestRunStateSavesAfterChanges(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state.json")
	s := startWith(t, time.Millisecond, stateArgs(path)...)
	base, auth := s.info["base URL"], s.info["Authorization"]
	body := `{"name":"saved-db","cluster_size":"PS_10"}`
	if status := sendJSON(t, "POST", base+"v1/organizations/acme/databases", auth, body, &platform.Database{}); status != 201 {
		t.Fatalf("creating a database: status %d", status)
	}
	// The save runs on its own goroutine a millisecond later: wait for it,
	// briefly.
	var data []byte
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		if data, _ = os.ReadFile(path); bytes.Contains(data, []byte(`"saved-db"`)) {
			break
		}
	}
	if !bytes.Contains(data, []byte(`"saved-db"`)) {
		t.Fatal("the new database was not saved while the server ran")
	}
	srv, err := fake.New()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if err := srv.Restore(data); err != nil {
		t.Errorf("the saved file does not restore: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".state.json.tmp-*")); len(left) != 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

// TestRunStateRefusesBadFile checks that a file that is not a snapshot this
// fake reads stops the start with the reason, and is left untouched.
func TestRunStateRefusesBadFile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, content, want string
	}{
		{"foreign", "name,email\nada,ada@example.com\n", "not a snapshot"},
		{"other version", `{"format":"platform-fake-snapshot","version":99}`, "snapshot version 99 is not supported"},
		{"corrupt", `{"format":"platform-fake-snapshot","version":1,"users":[{"id":`, "corrupt snapshot"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "state.json")
			if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			err := runWith(t.Context(), stateArgs(path), io.Discard, 0)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "-state "+path) {
				t.Fatalf("run: %v, want a refusal naming the file and saying %q", err, tt.want)
			}
			if got, _ := os.ReadFile(path); string(got) != tt.content {
				t.Errorf("the refused file was changed to %q", got)
			}
		})
	}
}

// TestRunStateRefusesLargeFile checks that a -state file over the limit of
// a snapshot (the limit of PUT /_fake/snapshot) stops the start with the
// reason before it is read whole, and is left untouched.
func TestRunStateRefusesLargeFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state.json")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	size := int64(fake.MaxSnapshotSize + 1)
	if err := os.Truncate(path, size); err != nil { // sparse: no disk taken
		t.Fatal(err)
	}
	err := runWith(t.Context(), stateArgs(path), io.Discard, 0)
	if want := "over the limit of a snapshot"; err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "-state "+path) {
		t.Fatalf("run: %v, want a refusal naming the file and saying %q", err, want)
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() != size {
		t.Errorf("the refused file was changed (%v)", err)
	}
}

// TestReadLimited checks the limit on what is not a regular file (a pipe,
// whose size is unknown until it is read): up to the limit is read whole,
// more is refused, and an endless stream is refused once past the limit.
func TestReadLimited(t *testing.T) {
	t.Parallel()
	const limit = 1000
	for _, tt := range []struct {
		name string
		r    io.Reader
		want error
	}{
		{"at the limit", strings.NewReader(strings.Repeat("x", limit)), nil},
		{"one byte over", strings.NewReader(strings.Repeat("x", limit+1)), errStateTooLarge},
		{"endless", endless{}, errStateTooLarge},
		{"a read that fails", iotest.ErrReader(io.ErrUnexpectedEOF), io.ErrUnexpectedEOF},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			data, err := readLimited(tt.r, limit)
			if !errors.Is(err, tt.want) {
				t.Fatalf("readLimited: %v, want %v", err, tt.want)
			}
			if err == nil && len(data) != limit {
				t.Errorf("read %d bytes, want %d", len(data), limit)
			}
		})
	}
}

// endless is a reader that never ends.
type endless struct{}

func (endless) Read(p []byte) (int, error) { return len(p), nil }

// TestWriteAtomic checks the save: it replaces the file whole, leaves no
// temporary file, and on failure leaves the old file as it was.
func TestWriteAtomic(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	for _, content := range []string{"first", "second, longer than the first"} {
		if err := writeAtomic(path, []byte(content)); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(path); string(got) != content {
			t.Errorf("file holds %q, want %q", got, content)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d files in the directory, want the state file alone", len(entries))
	}
	// A rename onto a directory fails: the temporary file goes, the
	// target stays.
	target := filepath.Join(dir, "taken")
	if err := os.Mkdir(target, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(target, "keep"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := writeAtomic(target, []byte("x")); err == nil || !strings.Contains(err.Error(), "-state "+target) {
		t.Errorf("writing over a directory: %v, want an error naming it", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("%d entries after a failed save, want the state file and the directory", len(entries))
	}
	if err := writeAtomic(filepath.Join(dir, "missing", "state.json"), []byte("x")); err == nil {
		t.Error("writing into a missing directory succeeded")
	}
}

// TestRunStateSurvivesKill checks the promise of -state under a steady
// stream of writes: a SIGKILL loses at most the writes acknowledged in the
// last save delay (a second in the command). Real time: the promise is
// about the wall clock, so the test runs the command with the delay scaled
// down to a quarter of a second, writes every 0.1 s for 2.2 s and kills
// the process mid-stream, about 2.5 s in all.
func TestRunStateSurvivesKill(t *testing.T) {
	t.Parallel()
	const (
		saveDelay = 250 * time.Millisecond
		every     = 100 * time.Millisecond
		burst     = 2200 * time.Millisecond
		// margin is what a loaded machine may add to the delay a save
		// may wait.
		margin = time.Second
	)
	path := filepath.Join(t.TempDir(), "state.json")
	first := startChildEnv(t, []string{childSaveDelayEnv + "=" + saveDelay.String()}, stateArgs(path)...)
	type ack struct {
		name string
		at   time.Time
	}
	var acks []ack
	killed := make(chan time.Time, 1)
	kill := time.AfterFunc(burst, func() {
		killed <- time.Now()
		_ = first.cmd.Process.Signal(syscall.SIGKILL)
	})
	defer kill.Stop()
	for i := 0; ; i++ {
		name := fmt.Sprintf("db-%02d", i)
		if err := first.createDatabase(name); err != nil {
			break // killed
		}
		acks = append(acks, ack{name, time.Now()})
		time.Sleep(every)
	}
	<-first.done
	var killedAt time.Time
	select {
	case killedAt = <-killed:
	default:
		t.Fatalf("a write failed before the kill; stderr: %s", first.stderr)
	}

	second := startChild(t, stateArgs(path)...)
	if got := second.info["state"]; got != "loaded from "+path {
		t.Fatalf("state line %q after the kill, want the state loaded", got)
	}
	var list struct {
		Data []struct{ Name string }
	}
	send(t, "GET", second.info["base URL"]+"v1/organizations/acme/databases?per_page=100", second.info["Authorization"], &list)
	kept := map[string]bool{}
	for _, db := range list.Data {
		kept[db.Name] = true
	}
	var lost []string
	for _, a := range acks {
		if age := killedAt.Sub(a.at); age > saveDelay+margin && !kept[a.name] {
			lost = append(lost, fmt.Sprintf("%s (acknowledged %v before the kill)", a.name, age.Round(time.Millisecond)))
		}
	}
	if len(lost) > 0 {
		t.Errorf("of %d acknowledged writes, %d were kept; lost older than %v: %v", len(acks), len(kept), saveDelay+margin, lost)
	}
	if status := second.signal(t, syscall.SIGTERM); status != 0 {
		t.Errorf("exit status %d after SIGTERM, want 0; stderr: %s", status, second.stderr)
	}
}

// TestRunStateReportsFailedSaves checks that a save that fails while the
// server runs is reported on stderr at once and retried, and that a save
// that fails at shutdown makes the exit status 1. Real time: saves wait on
// the wall clock (a second), so the test takes about 3 s.
func TestRunStateReportsFailedSaves(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "state")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "state.json")
	c := startChild(t, stateArgs(path)...)

	// The folder goes away: the next save fails, and says so at once.
	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}
	if err := c.createDatabase("unsaved"); err != nil {
		t.Fatal(err)
	}
	failed := "platform-fake: saving the state failed, retrying every 1s: -state " + path
	if !waitFor(5*time.Second, func() bool { return strings.Contains(c.stderr.String(), failed) }) {
		t.Fatalf("no report of the failed save while the server runs; stderr: %q", c.stderr)
	}
	// The folder is back: the retry saves the change, with no new one.
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	saved := func() bool {
		data, _ := os.ReadFile(path)
		return bytes.Contains(data, []byte(`"unsaved"`))
	}
	if !waitFor(5*time.Second, saved) {
		t.Fatalf("the change was not saved once the folder was back; stderr: %q", c.stderr)
	}
	if !waitFor(time.Second, func() bool { return strings.Contains(c.stderr.String(), "-state "+path+" saved again") }) {
		t.Errorf("no report that saving works again; stderr: %q", c.stderr)
	}

	// At shutdown the last save fails: the exit status says so.
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if status := c.signal(t, syscall.SIGTERM); status != 1 {
		t.Errorf("exit status %d when the save at shutdown failed, want 1", status)
	}
	if got := c.stderr.String(); !strings.Contains(got, "platform-fake: -state "+path) {
		t.Errorf("stderr %q does not give the reason of the failed save at shutdown", got)
	}
}

// TestWriteAtomicFailsAlike checks that a save failing twice for the same
// reason gives the same error, without the name of its temporary file
// (new at every save), so that run reports the failure once; and that it
// leaves no temporary file behind.
func TestWriteAtomicFailsAlike(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// A folder where the file should be: the rename over it fails.
	path := filepath.Join(dir, "state.json")
	if err := os.MkdirAll(filepath.Join(path, "in-the-way"), 0o700); err != nil {
		t.Fatal(err)
	}
	first, second := writeAtomic(path, []byte("{}")), writeAtomic(path, []byte("{}"))
	if first == nil || second == nil {
		t.Fatalf("writing over a folder: %v, %v; want errors", first, second)
	}
	if first.Error() != second.Error() {
		t.Errorf("the same failure reads differently:\n%v\n%v", first, second)
	}
	if !strings.HasPrefix(first.Error(), "-state "+path+": renaming its temporary file over it: ") {
		t.Errorf("error %q does not say which file and which step", first)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Errorf("%d entries in the folder after the failed saves, want the folder in the way alone", len(entries))
	}
}

// TestRunStateInterleavedAuditLogs checks that a state file whose
// organizations' audit logs interleave (as a server's own do, once two
// organizations make changes in turn) loads, and that the file the run
// saves loads again.
func TestRunStateInterleavedAuditLogs(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	if err := srv.CreateOrganization("other"); err != nil {
		t.Fatal(err)
	}
	if err := srv.AddMember("other", srv.AdminUserID(), platform.RoleAdmin); err != nil {
		t.Fatal(err)
	}
	tok, err := srv.CreateServiceToken("other", fake.TokenSpec{Name: "other", Permissions: fake.AllPermissions()})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		client    *platform.Client
		org, name string
	}{{srv.Client(), srv.Org(), "a1"}, {srv.ClientFor(tok), "other", "b1"}, {srv.Client(), srv.Org(), "a2"}} {
		if _, err := c.client.Databases.Create(t.Context(), &platform.CreateDatabaseParams{Organization: c.org, Name: c.name}); err != nil {
			t.Fatal(err)
		}
	}
	data, err := srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "state.json")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		s := start(t, stateArgs(path)...)
		if got := s.info["state"]; got != "loaded from "+path {
			t.Fatalf("state line %q, want the state loaded", got)
		}
		if err := s.stop(t); err != nil {
			t.Fatalf("the run: %v", err)
		}
	}
}
