package fake

import "github.com/dbplatform/platform-go/fake/internal/ordered"

// The fake's names for the ordered records of fake/internal/ordered.
type (
	// key orders records in lists: by creation time, then by ID.
	key = ordered.Key
	// keyed is a record that can be listed.
	keyed = ordered.Keyed
	// index keeps records in list order; see ordered.Index.
	index[T keyed] = ordered.Index[T]
)
