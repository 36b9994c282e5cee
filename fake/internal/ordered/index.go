package ordered

import (
	"slices"
	"strings"
	"time"
)

// Key orders records in lists: by creation time, then by ID.
type Key struct {
	// At is the record's creation time.
	At time.Time
	// ID is the record's ID, which orders records created at one time.
	ID string
}

// Compare returns -1, 0 or +1 as k sorts before, with or after o.
func (k Key) Compare(o Key) int {
	if c := k.At.Compare(o.At); c != 0 {
		return c
	}
	return strings.Compare(k.ID, o.ID)
}

// Keyed is a record that can be listed.
type Keyed interface {
	// ListKey is the record's place in lists.
	ListKey() Key
}

// Index keeps records in list order, so that a page of an unfiltered list
// is a slice of it: O(page size) after an O(log n) search. The zero value
// is empty and ready to use.
type Index[T Keyed] struct {
	items []T
}

// Find returns the position of the record of key k, and whether it is
// there; when it is not, the position it would take.
func (x *Index[T]) Find(k Key) (int, bool) {
	return slices.BinarySearchFunc(x.items, k, func(v T, k Key) int { return v.ListKey().Compare(k) })
}

// Add inserts v in order.
func (x *Index[T]) Add(v T) {
	i, _ := x.Find(v.ListKey())
	x.items = slices.Insert(x.items, i, v)
}

// Remove deletes v, if present.
func (x *Index[T]) Remove(v T) {
	if i, ok := x.Find(v.ListKey()); ok {
		x.items = slices.Delete(x.items, i, i+1)
	}
}

// Len is the number of records.
func (x *Index[T]) Len() int { return len(x.items) }

// All returns the records in order; the caller must not modify the slice.
func (x *Index[T]) All() []T { return x.items }

// Window returns page p (from 1) of per items, in ascending or descending
// order, and the total count.
func (x *Index[T]) Window(p, per int, desc bool) ([]T, int) {
	n := len(x.items)
	lo, hi := Cut(p, per, n)
	if !desc {
		return x.items[lo:hi], n
	}
	out := make([]T, 0, hi-lo)
	for i := n - 1 - lo; i > n-1-hi; i-- {
		out = append(out, x.items[i])
	}
	return out, n
}

// Filter returns page p of the records keep accepts, and how many it
// accepts.
func (x *Index[T]) Filter(p, per int, desc bool, keep func(T) bool) ([]T, int) {
	var out []T
	lo := (p - 1) * per
	total := 0
	visit := func(v T) {
		if !keep(v) {
			return
		}
		if total >= lo && total < lo+per {
			out = append(out, v)
		}
		total++
	}
	if desc {
		for i := len(x.items) - 1; i >= 0; i-- {
			visit(x.items[i])
		}
	} else {
		for _, v := range x.items {
			visit(v)
		}
	}
	return out, total
}

// Cut returns the bounds [lo, hi) of page p (from 1) of per items in a
// list of n, clipped to the list.
func Cut(p, per, n int) (lo, hi int) {
	lo = min((p-1)*per, n)
	hi = min(lo+per, n)
	return lo, hi
}

// Span is Cut for a list shown in ascending or descending order: the
// bounds [lo, hi) of page p in ascending positions. A descending page
// holds those records in reverse.
func Span(p, per, n int, desc bool) (lo, hi int) {
	lo, hi = Cut(p, per, n)
	if desc {
		lo, hi = n-hi, n-lo
	}
	return lo, hi
}
