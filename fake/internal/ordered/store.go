package ordered

// Store is an [Index] of records plus a map that finds them by the ID of
// their key. The map is made on the first Add, so that a zero Store (one
// per parent record, most of them empty) costs no allocation.
type Store[T Keyed] struct {
	live Index[T]
	byID map[string]T
}

// Add inserts v in order and by ID.
func (s *Store[T]) Add(v T) {
	if s.byID == nil {
		s.byID = map[string]T{}
	}
	s.live.Add(v)
	s.byID[v.ListKey().ID] = v
}

// Remove deletes v, if present.
func (s *Store[T]) Remove(v T) {
	s.live.Remove(v)
	delete(s.byID, v.ListKey().ID)
}

// Get finds a record by ID: the zero T when there is none.
func (s *Store[T]) Get(id string) T { return s.byID[id] }

// Has reports whether a record of that ID is stored.
func (s *Store[T]) Has(id string) bool {
	_, ok := s.byID[id]
	return ok
}

// Len is the number of records.
func (s *Store[T]) Len() int { return s.live.Len() }

// All returns the records in order; the caller must not modify the slice.
func (s *Store[T]) All() []T { return s.live.All() }

// Index is the store's records in order, for cutting pages.
func (s *Store[T]) Index() *Index[T] { return &s.live }
