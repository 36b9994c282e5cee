package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/dbplatform/platform-go/fake"
)

// defaultSaveDelay is the longest the -state file waits after the first
// change it has not saved: a burst of requests is saved once, and a steady
// stream of them once a second.
const defaultSaveDelay = time.Second

// stateFile keeps the server's state in a file: loaded at start when the
// file exists, saved at most delay after the first change since the last
// save, however busy the server is, and on shutdown. Every save replaces
// the file atomically, so that a crash loses at most the last delay of
// changes and never leaves a half-written file. A save that fails is
// logged at once and retried delay later.
type stateFile struct {
	path  string
	delay time.Duration
	kick  chan struct{} // a change happened; buffered, never blocks
	srv   *fake.Server
	log   io.Writer // where failed saves are reported, as they happen

	mu      sync.Mutex
	lastErr error // the last save's error, reported on shutdown
}

func newStateFile(path string, delay time.Duration, log io.Writer) *stateFile {
	return &stateFile{path: path, delay: delay, kick: make(chan struct{}, 1), log: log}
}

// changed notes a change, for fake.WithOnChange.
func (f *stateFile) changed() {
	select {
	case f.kick <- struct{}{}:
	default:
	}
}

// load restores the file into srv when it exists. A file that is not a
// snapshot this fake reads is an error, and the file is left untouched.
func (f *stateFile) load(srv *fake.Server) (loaded bool, err error) {
	f.srv = srv
	data, err := readState(f.path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("-state %s: %w", f.path, err)
	}
	if err := srv.Restore(data); err != nil {
		return false, fmt.Errorf("-state %s: %w; the file is left as it is (move it away to start afresh)", f.path, err)
	}
	return true, nil
}

// run saves the state until ctx ends: delay after the first change since
// the last save (a later change does not push the save back), and again
// delay after a failed save; then it saves once more and returns the error
// of that last save. A failure is logged when it happens, and so is the
// first save that succeeds after failures.
func (f *stateFile) run(ctx context.Context) error {
	timer := time.NewTimer(f.delay)
	timer.Stop()
	armed := false
	var failed error // the failure last logged; nil when the last save worked
	for {
		select {
		case <-f.kick:
			if !armed {
				timer.Reset(f.delay)
				armed = true
			}
		case <-timer.C:
			armed = false
			err := f.save()
			f.record(err)
			switch {
			case err != nil:
				if failed == nil || failed.Error() != err.Error() {
					fmt.Fprintf(f.log, "platform-fake: saving the state failed, retrying every %v: %v\n", f.delay, err)
				}
				failed = err
				timer.Reset(f.delay)
				armed = true
			case failed != nil:
				fmt.Fprintf(f.log, "platform-fake: -state %s saved again\n", f.path)
				failed = nil
			}
		case <-ctx.Done():
			timer.Stop()
			f.record(f.save())
			f.mu.Lock()
			defer f.mu.Unlock()
			return f.lastErr
		}
	}
}

// record keeps a save's outcome.
func (f *stateFile) record(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lastErr = err
}

// save writes a snapshot of the server to the file atomically: to a
// temporary file in the same directory, synced, renamed over the file, and
// the directory synced, so that the rename itself survives a crash.
func (f *stateFile) save() error {
	data, err := f.srv.Snapshot()
	if err != nil {
		return fmt.Errorf("-state %s: %w", f.path, err)
	}
	return writeAtomic(f.path, data)
}

// writeAtomic replaces path with data, all or nothing.
func writeAtomic(path string, data []byte) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("-state %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
			err = fmt.Errorf("-state %s: %w", path, withoutTempName(err, tmp.Name()))
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// withoutTempName words err, of a step on the temporary file tmp, without
// that file's name, which is new at every save: a save that fails again
// for the same reason then reads the same, and run reports it once.
func withoutTempName(err error, tmp string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == tmp {
		return fmt.Errorf("%s of its temporary file: %w", pe.Op, pe.Err)
	}
	var le *os.LinkError
	if errors.As(err, &le) && le.Old == tmp {
		return fmt.Errorf("renaming its temporary file over it: %w", le.Err)
	}
	return err
}

// readState reads a -state file of at most fake.MaxSnapshotSize bytes, the
// limit of PUT /_fake/snapshot; a larger file is an error, before it is
// read: a regular file by its size, anything else (a pipe) as soon as it
// has given more (readLimited).
func readState(path string) ([]byte, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	if fi, err := file.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > fake.MaxSnapshotSize {
		return nil, errStateTooLarge
	}
	return readLimited(file, fake.MaxSnapshotSize)
}

// errStateTooLarge refuses a -state file over the limit of a snapshot.
var errStateTooLarge = fmt.Errorf("the file is over the limit of a snapshot, %d bytes", fake.MaxSnapshotSize)

// readLimited reads r to its end, or fails with errStateTooLarge as soon
// as it has given more than limit bytes.
func readLimited(r io.Reader, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, errStateTooLarge
	}
	return data, nil
}
