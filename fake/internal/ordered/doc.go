// Package ordered keeps records in list order and cuts pages out of them.
//
// An [Index] holds records sorted by their [Key] (creation time, then ID),
// so that a page of an unfiltered list is a slice of it: O(page size)
// after an O(log n) search. A [Store] is an Index plus a map from ID to
// record, for the record kinds that are both listed and found by ID.
// [Cut] and [Span] compute the bounds of a page in a list of n records.
//
// The package knows nothing of the fake that uses it: records are any
// type with a ListKey method.
package ordered
