package fake

import "github.com/dbplatform/platform-go/fake/internal/sqltext"

// The fake runs no SQL: it reads a recorded query's text only to group it
// with the executions of the same query, through sqltext.Normalize (whose
// package doc says how a text is normalised).

// QueryFingerprint returns the fingerprint of an SQL query and its
// normalised text, as [Server.RecordQueries] computes them: tests use it to
// name the query the API's insights show.
func QueryFingerprint(sql string) (fingerprint, normalized string) {
	n := sqltext.Normalize(sql)
	return n.Fingerprint, n.Text
}
