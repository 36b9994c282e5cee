package fake

import (
	"slices"
	"strings"
	"time"
)

// key orders records in lists: by creation time, then by ID.
type key struct {
	at time.Time
	id string
}

func (k key) compare(o key) int {
	if c := k.at.Compare(o.at); c != 0 {
		return c
	}
	return strings.Compare(k.id, o.id)
}

// keyed is a record that can be listed.
type keyed interface {
	listKey() key
}

// index keeps records in list order, so that a page of an unfiltered list
// is a slice of it: O(page size) after an O(log n) search.
type index[T keyed] struct {
	items []T
}

func (x *index[T]) find(k key) (int, bool) {
	return slices.BinarySearchFunc(x.items, k, func(v T, k key) int { return v.listKey().compare(k) })
}

// add inserts v in order.
func (x *index[T]) add(v T) {
	i, _ := x.find(v.listKey())
	x.items = slices.Insert(x.items, i, v)
}

// remove deletes v, if present.
func (x *index[T]) remove(v T) {
	if i, ok := x.find(v.listKey()); ok {
		x.items = slices.Delete(x.items, i, i+1)
	}
}

// len is the number of records.
func (x *index[T]) len() int { return len(x.items) }

// all returns the records in order; the caller must not modify the slice.
func (x *index[T]) all() []T { return x.items }

// window returns page p (from 1) of per items, in ascending or descending
// order, and the total count.
func (x *index[T]) window(p, per int, desc bool) ([]T, int) {
	n := len(x.items)
	lo := min((p-1)*per, n)
	hi := min(lo+per, n)
	if !desc {
		return x.items[lo:hi], n
	}
	out := make([]T, 0, hi-lo)
	for i := n - 1 - lo; i > n-1-hi; i-- {
		out = append(out, x.items[i])
	}
	return out, n
}

// filter returns page p of the records keep accepts, and how many it accepts.
func (x *index[T]) filter(p, per int, desc bool, keep func(T) bool) ([]T, int) {
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
