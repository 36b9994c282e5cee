// Package sqltext reads SQL text without running it: the scanner that
// skips what is quoted ([Unquoted]), statement splitting
// ([SplitStatements]), the DDL the fake's schemas are made of ([ParseDDL],
// [Balanced], [SplitTopLevel]), and the normalisation that groups the
// executions of one query ([Normalize]).
//
// Normalising replaces every literal (a number, a quoted string, a hex or
// bit value; a boolean or NULL keeps its word) with "?", reads a
// placeholder "?" as such a literal, collapses a list of literals in
// IN (...) and the repeated rows of VALUES (...), (...) into one, drops
// comments and a trailing ";", writes keywords and function names in
// upper case, and spaces the tokens one way:
// "select * from `users` where id in (1,2,3)" becomes
// "SELECT * FROM `users` WHERE id IN (?)". Identifiers keep their case.
// The fingerprint is the first 16 hexadecimal digits of the SHA-256 of the
// normalised text, so the same query has the same fingerprint in every
// view, on every server.
//
// The package knows nothing of the fake that uses it.
package sqltext
