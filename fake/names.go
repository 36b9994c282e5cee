package fake

import (
	"time"
)

// This file holds the names the fake gives what a request leaves unnamed,
// where several groups name alike: a backup taken on demand or by a
// policy's run.

// defaultBackupName names a backup of b taken at t.
func defaultBackupName(b *branchRec, t time.Time) string {
	return b.name + "-" + t.UTC().Format("2006-01-02-150405")
}
