package fake

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"time"

	"github.com/dbplatform/platform-go"
)

// The snapshot of organizations' authentication attempts, exports and
// deleted passwords' usernames (see authattempts.go). A ready export keeps
// the attempts it was generated with; the signed addresses of downloads
// are not kept (see signedfiles.go).

// orgAuthSnap is what one organization keeps of authentication.
type orgAuthSnap struct {
	Organization     string                 `json:"organization"`
	Attempts         []platform.AuthAttempt `json:"attempts"`
	Exports          []authExportSnap       `json:"exports"`
	DeletedPasswords []deletedPasswordSnap  `json:"deleted_passwords"`
}

type authExportSnap struct {
	stampsSnap
	State         platform.AuthAttemptExportState  `json:"state"`
	StartAt       time.Time                        `json:"start_at"`
	EndAt         time.Time                        `json:"end_at"`
	Format        platform.AuthAttemptExportFormat `json:"format"`
	Filters       platform.AuthAttemptFilters      `json:"filters"`
	BranchIDs     []string                         `json:"branch_ids"`
	Started       time.Time                        `json:"started"`
	Finished      time.Time                        `json:"finished"`
	Expires       time.Time                        `json:"expires"`
	FailureReason string                           `json:"failure_reason"`
	FailureDetail string                           `json:"failure_detail"`
	Rows          []platform.AuthAttempt           `json:"rows"`
}

type deletedPasswordSnap struct {
	Username string    `json:"username"`
	Branch   string    `json:"branch"` // its ID
	Name     string    `json:"name"`
	At       time.Time `json:"at"`
}

// authSnaps saves the organizations that keep anything of authentication.
func (sv *saver) authSnaps() []orgAuthSnap {
	var out []orgAuthSnap
	for _, org := range sv.w.orgIdx.All() {
		a := org.auth
		if a == nil {
			continue
		}
		os := orgAuthSnap{Organization: org.name, Attempts: slices.Clone(a.attempts)}
		for _, x := range a.exports.All() {
			os.Exports = append(os.Exports, authExportSnap{
				stampsSnap: saveStamps(x.stamps), State: x.state, StartAt: x.startAt, EndAt: x.endAt, Format: x.format,
				Filters: x.filters, BranchIDs: x.branchIDs, Started: x.started, Finished: x.finished, Expires: x.expires,
				FailureReason: x.failure, FailureDetail: x.detail, Rows: x.rows,
			})
		}
		for _, u := range sortedKeys(a.deletedPasswords) {
			d := a.deletedPasswords[u]
			os.DeletedPasswords = append(os.DeletedPasswords, deletedPasswordSnap{Username: u, Branch: d.branchID, Name: d.name, At: d.at})
		}
		out = append(out, os)
	}
	return out
}

// loadAuth loads the organizations' authentication records, checking
// each value as the server checks it when it is recorded or asked for.
func (ld *loader) loadAuth(list []orgAuthSnap) error {
	for i, os := range list {
		if err := ld.loadOrgAuth(os); err != nil {
			return at(err, "auth_attempts[%d]", i)
		}
	}
	return nil
}

func (ld *loader) loadOrgAuth(os orgAuthSnap) error {
	org := ld.w.orgs[os.Organization]
	switch {
	case org == nil:
		return at(fmt.Errorf("no organization %q", os.Organization), "organization")
	case org.auth != nil:
		return at(fmt.Errorf("organization %q appears twice", os.Organization), "organization")
	}
	a := org.authOf()
	for i := range os.Attempts {
		if err := snapAuthAttempt(&os.Attempts[i]); err != nil {
			return at(err, "attempts[%d]", i)
		}
		if i > 0 && os.Attempts[i].At.Before(os.Attempts[i-1].At.Time) {
			return at(errors.New("attempts are out of time order"), "attempts[%d].attempted_at", i)
		}
	}
	a.attempts = os.Attempts
	for i, xs := range os.Exports {
		x, err := ld.loadAuthExport(org, xs)
		if err != nil {
			return at(err, "exports[%d]", i)
		}
		a.exports.Add(x)
	}
	for i, d := range os.DeletedPasswords {
		err := firstErr(
			at(nonEmpty(d.Username), "username"), at(nonEmpty(d.Branch), "branch"), at(nonEmpty(d.Name), "name"),
			at(snapTime(d.At), "at"),
		)
		if err == nil && a.deletedPasswords[d.Username].branchID != "" {
			err = at(fmt.Errorf("username %q appears twice", d.Username), "username")
		}
		if err != nil {
			return at(err, "deleted_passwords[%d]", i)
		}
		if a.deletedPasswords == nil {
			a.deletedPasswords = map[string]deletedPassword{}
		}
		a.deletedPasswords[d.Username] = deletedPassword{branchID: d.Branch, name: d.Name, at: d.At}
	}
	return nil
}

// nonEmpty refuses an empty string.
func nonEmpty(s string) error {
	if s == "" {
		return errors.New("must not be empty")
	}
	return nil
}

// snapAuthAttempt checks an attempt as RecordAuthAttempts decides one.
func snapAuthAttempt(a *platform.AuthAttempt) error {
	addr, err := netip.ParseAddr(a.SourceIP)
	if err == nil && addr.String() != a.SourceIP {
		err = fmt.Errorf("%q is stored as %q", a.SourceIP, addr)
	}
	if err = firstErr(
		at(snapTime(a.At.Time), "attempted_at"), at(nonEmpty(a.Username), "username"), at(err, "source_ip"),
		at(nonEmpty(a.Database), "database"), at(nonEmpty(a.Branch), "branch"), at(nonEmpty(a.BranchID), "branch_public_id"),
		at(snapOneOf(a.BackendRoute, "a backend route", authRoutes...), "backend_route"),
		at(snapOneOf(a.Outcome, "an outcome", authOutcomes...), "outcome"),
	); err != nil {
		return err
	}
	if a.Outcome == platform.AuthAttemptAllow {
		if a.FailureReason != "" || a.FailureDetail != "" {
			return at(errors.New("an allowed attempt has no failure"), "failure_reason")
		}
		return nil
	}
	return firstErr(
		at(snapOneOf(a.FailureReason, "a failure reason", authFailureReasons...), "failure_reason"),
		at(nonEmpty(a.FailureDetail), "failure_detail"),
	)
}

// loadAuthExport loads one export of org.
func (ld *loader) loadAuthExport(org *orgRec, xs authExportSnap) (*authExportRec, error) {
	if err := unique(ld.authExports, xs.ID, "auth attempt export"); err != nil {
		return nil, err
	}
	if err := firstErr(
		at(snapTime(xs.Created), "created"), at(snapTime(xs.Updated), "updated"),
		at(snapOneOf(xs.State, "an export state", platform.AuthAttemptExportPending, platform.AuthAttemptExportRunning,
			platform.AuthAttemptExportReady, platform.AuthAttemptExportFailed), "state"),
		at(snapOneOf(xs.Format, "an export format", authExportFormats...), "format"),
		at(snapTime(xs.StartAt), "start_at"), at(snapTime(xs.EndAt), "end_at"),
	); err != nil {
		return nil, err
	}
	if !xs.StartAt.Before(xs.EndAt) {
		return nil, at(errors.New("start_at must be before end_at"), "start_at")
	}
	if err := snapAuthFilters(&xs.Filters, xs.BranchIDs); err != nil {
		return nil, at(err, "filters")
	}
	pending, running, ready, failed := xs.State == platform.AuthAttemptExportPending, xs.State == platform.AuthAttemptExportRunning,
		xs.State == platform.AuthAttemptExportReady, xs.State == platform.AuthAttemptExportFailed
	switch {
	case pending != xs.Started.IsZero():
		return nil, at(fmt.Errorf("a %s export with started time %v", xs.State, xs.Started), "started")
	case (pending || running) != xs.Finished.IsZero():
		return nil, at(fmt.Errorf("a %s export with finished time %v", xs.State, xs.Finished), "finished")
	case ready == xs.Expires.IsZero() || ready && !xs.Expires.After(xs.Finished):
		return nil, at(fmt.Errorf("a %s export with expiry %v", xs.State, xs.Expires), "expires")
	case failed == (xs.FailureReason == "") || failed == (xs.FailureDetail == ""):
		return nil, at(fmt.Errorf("a %s export with failure %q (%q)", xs.State, xs.FailureReason, xs.FailureDetail), "failure_reason")
	case !ready && xs.Rows != nil:
		return nil, at(fmt.Errorf("a %s export has no rows", xs.State), "rows")
	}
	for i := range xs.Rows {
		if err := snapAuthAttempt(&xs.Rows[i]); err != nil {
			return nil, at(err, "rows[%d]", i)
		}
	}
	if ready && xs.Rows == nil {
		xs.Rows = []platform.AuthAttempt{}
	}
	x := &authExportRec{
		stamps: xs.load(), org: org, state: xs.State, startAt: xs.StartAt, endAt: xs.EndAt, format: xs.Format,
		filters: xs.Filters, branchIDs: append([]string{}, xs.BranchIDs...), started: xs.Started, finished: xs.Finished,
		expires: xs.Expires, failure: xs.FailureReason, detail: xs.FailureDetail, rows: xs.Rows,
	}
	ld.authExports[x.id] = x
	return x, nil
}

// snapAuthFilters checks an export's filters as checkAuthExport leaves
// them.
func snapAuthFilters(f *platform.AuthAttemptFilters, branchIDs []string) error {
	for i, s := range f.SourceIPs {
		p, err := parseCIDR(s)
		if err == nil && p.Masked() != p {
			err = fmt.Errorf("%q has bits set past its prefix", s)
		}
		if err != nil {
			return at(err, "source_ips[%d]", i)
		}
	}
	if (len(f.Branches) == 0) != (len(branchIDs) == 0) || len(branchIDs) > len(f.Branches) {
		return at(fmt.Errorf("%d branches resolve to %d IDs", len(f.Branches), len(branchIDs)), "branches")
	}
	for i, id := range branchIDs {
		if err := nonEmpty(id); err != nil {
			return at(err, "branch_ids[%d]", i)
		}
	}
	for i, v := range f.Outcomes {
		if err := snapOneOf(v, "an outcome", authOutcomes...); err != nil {
			return at(err, "outcomes[%d]", i)
		}
	}
	for i, v := range f.FailureReasons {
		if err := snapOneOf(v, "a failure reason", authFailureReasons...); err != nil {
			return at(err, "failure_reasons[%d]", i)
		}
	}
	for i, v := range f.BackendRoutes {
		if err := snapOneOf(v, "a backend route", authRoutes...); err != nil {
			return at(err, "backend_routes[%d]", i)
		}
	}
	for _, l := range [][]string{f.SourceIPs, f.Branches, f.Usernames, f.StartupDatabases} {
		if len(l) > maxAuthExportFilterValues {
			return fmt.Errorf("a filter of %d values; at most %d are allowed", len(l), maxAuthExportFilterValues)
		}
	}
	return nil
}
