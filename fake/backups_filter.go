package fake

import (
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/dbplatform/platform-go"
)

// backupFilter is the query of list_backups.
type backupFilter struct {
	all        bool // deleted backups too
	state      platform.BackupState
	policy     string
	from, to   time.Time // bounds of started_at; zero when absent
	runFrom    time.Time // running_at range; zero when absent
	runTo      time.Time
	production *bool
}

// backupStates are the states a backup can be in.
var backupStates = []platform.BackupState{
	platform.BackupPending, platform.BackupRunning, platform.BackupSuccess,
	platform.BackupFailed, platform.BackupCanceled, platform.BackupIgnored,
}

// parseBackupFilter reads list_backups' query; a bad value is a 400 that
// names the parameter.
func parseBackupFilter(q url.Values) (backupFilter, error) {
	var f backupFilter
	var err error
	if f.all, err = boolQuery(q.Get("all"), "all"); err != nil {
		return f, err
	}
	if v := q.Get("state"); v != "" {
		f.state = platform.BackupState(v)
		if !slices.Contains(backupStates, f.state) {
			return f, badRequest("state %q is not one of %s", v, backupEnumText(backupStates))
		}
	}
	f.policy = q.Get("policy")
	for _, t := range []struct {
		name string
		dst  *time.Time
	}{{"from", &f.from}, {"to", &f.to}} {
		if *t.dst, err = timeQuery(q.Get(t.name), t.name); err != nil {
			return f, err
		}
	}
	if f.runFrom, f.runTo, err = rangeQuery(q.Get("running_at"), "running_at"); err != nil {
		return f, err
	}
	if f.production, err = triQuery(q.Get("production"), "production"); err != nil {
		return f, err
	}
	return f, nil
}

// any reports whether the filter keeps less than a whole index.
func (f backupFilter) any() bool {
	return f.state != "" || f.policy != "" || !f.from.IsZero() || !f.to.IsZero() || !f.runFrom.IsZero() || f.production != nil
}

// keep reports whether a backup passes the filter. The time filters keep
// only backups that started: from and to bound started_at; running_at keeps
// backups whose run (started_at to its end, or on to now) meets the range.
func (f backupFilter) keep(bk *backupRec) bool {
	switch {
	case f.state != "" && bk.state != f.state,
		f.policy != "" && (bk.policy == nil || bk.policy.id != f.policy),
		f.production != nil && bk.production != *f.production:
		return false
	}
	if f.from.IsZero() && f.to.IsZero() && f.runFrom.IsZero() {
		return true
	}
	if bk.started.IsZero() {
		return false
	}
	switch {
	case !f.from.IsZero() && bk.started.Before(f.from),
		!f.to.IsZero() && bk.started.After(f.to):
		return false
	case !f.runFrom.IsZero():
		return !bk.started.After(f.runTo) && (bk.ended.IsZero() || !bk.ended.Before(f.runFrom))
	}
	return true
}

// backupEnumText lists enum values for a message: "a, b or c".
func backupEnumText[T ~string](values []T) string {
	var b strings.Builder
	for i, v := range values {
		switch {
		case i == 0:
		case i == len(values)-1:
			b.WriteString(" or ")
		default:
			b.WriteString(", ")
		}
		b.WriteString(string(v))
	}
	return b.String()
}
