package fake

import (
	"net/url"
	"slices"
	"strconv"

	"github.com/dbplatform/platform-go"
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
	items, total := x.window(c.page, c.perPage, c.desc)
	return listOf(c, items, total, withTotals, render)
}

// filteredPageOf is pageOf for the records keep accepts.
func filteredPageOf[T keyed, R any](c *call, x *index[T], withTotals bool, keep func(T) bool, render func(T) *R) *platform.Page[R] {
	items, total := x.filter(c.page, c.perPage, c.desc, keep)
	return listOf(c, items, total, withTotals, render)
}

// slicePageOf cuts the call's page out of records already in list order,
// and renders it.
func slicePageOf[T any, R any](c *call, items []T, withTotals bool, render func(T) *R) *platform.Page[R] {
	lo := min((c.page-1)*c.perPage, len(items))
	hi := min(lo+c.perPage, len(items))
	return listOf(c, items[lo:hi], len(items), withTotals, render)
}

// rangePageOf cuts the call's page out of a list of total records that
// get returns by position (records lo to hi-1, in ascending list order),
// and renders it: only the page's records are built, whatever the total.
func rangePageOf[T any, R any](c *call, total int, get func(lo, hi int) []T, withTotals bool, render func(T) *R) *platform.Page[R] {
	lo := min((c.page-1)*c.perPage, total)
	hi := min(lo+c.perPage, total)
	if c.desc {
		lo, hi = total-hi, total-lo
	}
	items := get(lo, hi)
	if c.desc {
		slices.Reverse(items)
	}
	return listOf(c, items, total, withTotals, render)
}

// cursorPageOf cuts one page of a list paged by cursor, newest first, out
// of an index, and renders it: the call's starting_after or ending_before
// names an item of byID (what says what kind, for the error), limit the
// page size (1..100, 25 by default).
func cursorPageOf[T keyed, R any](c *call, x *index[T], byID map[string]T, what string, render func(T) *R) (*platform.CursorPage[R], error) {
	q := c.r.URL.Query()
	limit := 25
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > platform.MaxPerPage {
			return nil, badRequest("limit %q is not a number from 1 to %d", v, platform.MaxPerPage)
		}
		limit = n
	}
	after, before := q.Get("starting_after"), q.Get("ending_before")
	if after != "" && before != "" {
		return nil, badRequest("give starting_after or ending_before, not both")
	}
	// Positions count from the newest item: the index is oldest first.
	items := x.all()
	n := len(items)
	at := func(param, id string) (int, error) {
		v, ok := byID[id]
		if !ok {
			return 0, badRequest("%s %q is not a %s of this list", param, id, what)
		}
		i, _ := x.find(v.listKey())
		return n - 1 - i, nil
	}
	lo, hi := 0, min(limit, n)
	switch {
	case after != "":
		j, err := at("starting_after", after)
		if err != nil {
			return nil, err
		}
		lo, hi = j+1, min(j+1+limit, n)
	case before != "":
		j, err := at("ending_before", before)
		if err != nil {
			return nil, err
		}
		lo, hi = max(j-limit, 0), j
	}
	p := &platform.CursorPage[R]{Type: "list", HasNext: hi < n, HasPrev: lo > 0, Items: make([]*R, 0, hi-lo)}
	for j := lo; j < hi; j++ {
		p.Items = append(p.Items, render(items[n-1-j]))
	}
	if hi > lo {
		first, last := items[n-1-lo].listKey().id, items[n-hi].listKey().id
		p.CursorStart, p.CursorEnd = &first, &last
	}
	return p, nil
}
