package fake

import (
	"net/url"
	"slices"
	"sort"
	"strconv"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake/internal/ordered"
)

// listOf renders one page of records as the API's list envelope. items is
// the page (already cut by the caller from an index), total the number of
// records in the whole list; withTotals adds total_count and total_pages,
// for the lists that report them.
func listOf[T any, R any](c *call, items []T, total int, withTotals bool, render func(T) *R) *platform.Page[R] {
	p := &platform.Page[R]{
		Type:        "list",
		CurrentPage: c.page,
		PerPage:     c.perPage,
		Items:       make([]*R, 0, len(items)),
	}
	for _, it := range items {
		p.Items = append(p.Items, render(it))
	}
	if c.page*c.perPage < total {
		n := c.page + 1
		p.NextPage, p.NextPageURL = &n, c.pageURL(n)
	}
	if c.page > 1 {
		n := c.page - 1
		p.PrevPage, p.PrevPageURL = &n, c.pageURL(n)
	}
	if withTotals {
		pages := (total + c.perPage - 1) / c.perPage
		p.TotalCount, p.TotalPages = &total, &pages
	}
	return p
}

// pageURL is the address of page n of the current list.
func (c *call) pageURL(n int) *string {
	q := c.r.URL.Query()
	q.Set("page", strconv.Itoa(n))
	s := c.absURL(c.r.URL.Path, q.Encode())
	return &s
}

// absURL is the absolute address of path (and rawQuery) on the host the
// call came to.
func (c *call) absURL(path, rawQuery string) string {
	u := url.URL{Scheme: "http", Host: c.r.Host, Path: path, RawQuery: rawQuery}
	if c.r.TLS != nil {
		u.Scheme = "https"
	}
	return u.String()
}

// pageOf cuts the call's page out of an index, and renders it.
func pageOf[T keyed, R any](c *call, x *index[T], withTotals bool, render func(T) *R) *platform.Page[R] {
	items, total := x.Window(c.page, c.perPage, c.desc)
	return listOf(c, items, total, withTotals, render)
}

// filteredPageOf is pageOf for the records keep accepts.
func filteredPageOf[T keyed, R any](c *call, x *index[T], withTotals bool, keep func(T) bool, render func(T) *R) *platform.Page[R] {
	items, total := x.Filter(c.page, c.perPage, c.desc, keep)
	return listOf(c, items, total, withTotals, render)
}

// slicePageOf cuts the call's page out of records already in list order,
// and renders it.
func slicePageOf[T any, R any](c *call, items []T, withTotals bool, render func(T) *R) *platform.Page[R] {
	lo, hi := ordered.Cut(c.page, c.perPage, len(items))
	return listOf(c, items[lo:hi], len(items), withTotals, render)
}

// rangePageOf cuts the call's page out of a list of total records that
// get returns by position (records lo to hi-1, in ascending list order),
// and renders it: only the page's records are built, whatever the total.
func rangePageOf[T any, R any](c *call, total int, get func(lo, hi int) []T, withTotals bool, render func(T) *R) *platform.Page[R] {
	items := get(ordered.Span(c.page, c.perPage, total, c.desc))
	if c.desc {
		slices.Reverse(items)
	}
	return listOf(c, items, total, withTotals, render)
}

// cursor is the position of a page of a list paged by cursor: after or
// before an item's ID, and the page size.
type cursor struct {
	after, before string
	limit         int
}

// parseCursor reads starting_after, ending_before and limit (1 to 100,
// 25 by default).
func (c *call) parseCursor() (cursor, error) {
	q := c.r.URL.Query()
	cur := cursor{after: q.Get("starting_after"), before: q.Get("ending_before"), limit: 25}
	if cur.after != "" && cur.before != "" {
		return cur, badRequest("starting_after and ending_before cannot both be set: a page is either after an item or before one")
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			return cur, badRequest("limit must be an integer from 1 to 100, got %q", v)
		}
		cur.limit = n
	}
	return cur, nil
}

// cursorList is a list paged by cursor: n records that at returns by
// position, oldest first, each with a key that grows with its position
// and an ID that parse reads back into its key. The list shows them
// newest first, the records keep accepts.
type cursorList[T any] struct {
	n     int
	at    func(i int) T
	key   func(T) uint64
	id    func(T) string
	parse func(id string) (uint64, bool)
	keep  func(T) bool
}

// cursorPageOf cuts cur's page out of l, and renders it. A cursor places
// its page by key, so an ID no longer in the list still does. Without a
// filter, a page costs O(page size + log n); with one, the records it
// passes over.
func cursorPageOf[T, R any](cur cursor, l cursorList[T], render func(T) *R) (*platform.CursorPage[R], error) {
	// first is the position the page starts from and dir the way it
	// goes: towards older records (-1) from the newest or after a cursor,
	// towards newer ones (+1) before a cursor.
	first, dir := l.n-1, -1
	for _, c := range []struct {
		name, id string
		after    bool
	}{{"starting_after", cur.after, true}, {"ending_before", cur.before, false}} {
		if c.id == "" {
			continue
		}
		k, ok := l.parse(c.id)
		if !ok {
			return nil, badRequest("%s %q is not the ID of an entry of this list", c.name, c.id)
		}
		// lo is the position of the first record whose key is not below k.
		lo := sort.Search(l.n, func(i int) bool { return l.key(l.at(i)) >= k })
		if c.after {
			first = lo - 1
		} else {
			first, dir = lo, 1
			if lo < l.n && l.key(l.at(lo)) == k {
				first++
			}
		}
	}
	inList := func(i int) bool { return i >= 0 && i < l.n }
	// more reports whether a record the list keeps is at i or beyond, in
	// direction d.
	more := func(i, d int) bool {
		for ; inList(i); i += d {
			if l.keep(l.at(i)) {
				return true
			}
		}
		return false
	}
	var items []T
	i := first
	for ; inList(i) && len(items) < cur.limit; i += dir {
		if it := l.at(i); l.keep(it) {
			items = append(items, it)
		}
	}
	beyond, behind := more(i, dir), more(first-dir, -dir)
	p := &platform.CursorPage[R]{Type: "list", HasNext: beyond, HasPrev: behind, Items: make([]*R, 0, len(items))}
	if dir > 0 {
		slices.Reverse(items)
		p.HasNext, p.HasPrev = behind, beyond
	}
	for _, it := range items {
		p.Items = append(p.Items, render(it))
	}
	if len(items) > 0 {
		start, end := l.id(items[0]), l.id(items[len(items)-1])
		p.CursorStart, p.CursorEnd = &start, &end
	}
	return p, nil
}
