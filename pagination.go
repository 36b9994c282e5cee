package platform

import (
	"context"
	"errors"
	"fmt"
	"iter"
)

// MaxPerPage is the largest page size the API serves.
const MaxPerPage = 100

// ListParams selects one page of a list. Zero values take the API's
// defaults: page 1, 25 items.
type ListParams struct {
	// Page is the page number, from 1.
	Page int `json:"-" url:"page,omitempty"`
	// PerPage is the page size, 1 to [MaxPerPage].
	PerPage int `json:"-" url:"per_page,omitempty"`
}

// validate checks the page numbers before any request is sent.
func (p ListParams) validate() error {
	if p.Page < 0 {
		return &ArgError{Arg: "page", Reason: fmt.Sprintf("%d is not a page number (pages start at 1)", p.Page)}
	}
	if p.PerPage < 0 || p.PerPage > MaxPerPage {
		return &ArgError{Arg: "per_page", Reason: fmt.Sprintf("%d is outside 1..%d", p.PerPage, MaxPerPage)}
	}
	return nil
}

// Page is one page of a list, with the numbers of its neighbours.
type Page[T any] struct {
	// Type is always "list".
	Type string `json:"type"`
	// CurrentPage is this page's number.
	CurrentPage int `json:"current_page"`
	// PerPage is the page size used.
	PerPage int `json:"per_page"`
	// NextPage is the next page's number, nil on the last page.
	NextPage *int `json:"next_page"`
	// NextPageURL is the next page's address, nil on the last page.
	NextPageURL *string `json:"next_page_url"`
	// PrevPage is the previous page's number, nil on the first page.
	PrevPage *int `json:"prev_page"`
	// PrevPageURL is the previous page's address, nil on the first page.
	PrevPageURL *string `json:"prev_page_url"`
	// TotalCount is the number of items in the whole list, for the lists
	// that report it; nil otherwise.
	TotalCount *int `json:"total_count,omitempty"`
	// TotalPages is the number of pages, where TotalCount is reported.
	TotalPages *int `json:"total_pages,omitempty"`
	// Items are this page's items.
	Items []*T `json:"data"`
}

// HasNext reports whether another page follows this one.
func (p *Page[T]) HasNext() bool { return p.NextPage != nil }

// pageParams gives generic code the ListParams embedded in a params struct.
func (p *ListParams) pageParams() *ListParams { return p }

// paged is a params struct that embeds ListParams.
type paged interface{ pageParams() *ListParams }

// listPage fetches one page of a list at path; q's url-tagged fields
// (filters, page, per_page) become the query.
func listPage[T any](ctx context.Context, c *Client, path string, q paged) (*Page[T], error) {
	if err := q.pageParams().validate(); err != nil {
		return nil, err
	}
	page := new(Page[T])
	if err := c.get(ctx, path, q, page); err != nil {
		return nil, err
	}
	return page, nil
}

// listOn is listPage for a list below the one resource r names (a deploy
// request's operations, its reviews): it checks r's path values, then
// fetches the page at r's path plus suffix.
func listOn[T any](ctx context.Context, c *Client, r resource, suffix string, q paged) (*Page[T], error) {
	if err := r.check(); err != nil {
		return nil, err
	}
	return listPage[T](ctx, c, r.path(suffix), q)
}

// allOf is the All twin of a List method: it ranges over every item from
// p's page on, calling list with a copy of p for each page, so the caller's
// params are never modified and the sequence can be ranged again.
func allOf[P any, PP interface {
	*P
	paged
}, T any](ctx context.Context, p *P, list func(context.Context, *P) (*Page[T], error)) iter.Seq2[*T, error] {
	q := *orZero(p)
	return all(ctx, PP(&q).pageParams().Page, func(ctx context.Context, page int) (*Page[T], error) {
		q := q
		PP(&q).pageParams().Page = page
		return list(ctx, &q)
	})
}

// all ranges over every item of a list, fetching pages lazily from
// firstPage on. fetch gets one page by number. Ranging again starts over; an
// error is yielded once and ends the iteration.
func all[T any](ctx context.Context, firstPage int, fetch func(ctx context.Context, page int) (*Page[T], error)) iter.Seq2[*T, error] {
	return func(yield func(*T, error) bool) {
		page := firstPage
		if page == 0 {
			page = 1 // the API's default; a negative page reaches fetch, which reports it
		}
		for {
			p, err := fetch(ctx, page)
			if err != nil {
				yield(nil, err)
				return
			}
			for _, item := range p.Items {
				if item == nil {
					// A null in the page's data: yielding it would hand the
					// caller a nil pointer to dereference.
					yield(nil, fmt.Errorf("platform: page %d of the list holds a null item", page))
					return
				}
				if !yield(item, nil) {
					return
				}
			}
			if p.NextPage == nil || *p.NextPage <= page || len(p.Items) == 0 {
				return
			}
			page = *p.NextPage
		}
	}
}

// CursorParams selects one page of a list the API pages by cursor rather
// than by number (the audit log): the items after one item's ID, or those
// before it. Zero values take the API's defaults: the first page, 25
// items.
type CursorParams struct {
	// StartingAfter is the ID of an item: the page holds the items that
	// follow it in the list's order. Set at most one of StartingAfter and
	// EndingBefore.
	StartingAfter string `json:"-" url:"starting_after,omitempty"`
	// EndingBefore is the ID of an item: the page holds the items just
	// before it in the list's order.
	EndingBefore string `json:"-" url:"ending_before,omitempty"`
	// Limit is the page size, 1 to [MaxPerPage].
	Limit int `json:"-" url:"limit,omitempty"`
}

// validate checks the cursor and the page size before any request is sent.
func (p CursorParams) validate() error {
	if p.StartingAfter != "" && p.EndingBefore != "" {
		return &ArgError{Arg: "ending_before", Reason: "must not be set with starting_after (a page is either after one item or before one)"}
	}
	if p.Limit < 0 || p.Limit > MaxPerPage {
		return &ArgError{Arg: "limit", Reason: fmt.Sprintf("%d is outside 1..%d", p.Limit, MaxPerPage)}
	}
	return nil
}

// cursorParams gives generic code the CursorParams embedded in a params
// struct.
func (p *CursorParams) cursorParams() *CursorParams { return p }

// cursored is a params struct that embeds CursorParams.
type cursored interface{ cursorParams() *CursorParams }

// CursorPage is one page of a list paged by cursor, with the cursors that
// reach its neighbours.
type CursorPage[T any] struct {
	// Type is always "list".
	Type string `json:"type"`
	// HasNext reports whether items follow this page: pass CursorEnd as
	// StartingAfter to get them.
	HasNext bool `json:"has_next"`
	// HasPrev reports whether items precede this page: pass CursorStart
	// as EndingBefore to get them.
	HasPrev bool `json:"has_prev"`
	// CursorStart is the ID of the page's first item, nil for an empty
	// page.
	CursorStart *string `json:"cursor_start"`
	// CursorEnd is the ID of the page's last item, nil for an empty page.
	CursorEnd *string `json:"cursor_end"`
	// Items are this page's items.
	Items []*T `json:"data"`
}

// listCursorPage fetches one page of a list paged by cursor at path; q's
// url-tagged fields (filters, cursors, limit) become the query.
func listCursorPage[T any](ctx context.Context, c *Client, path string, q cursored) (*CursorPage[T], error) {
	if err := q.cursorParams().validate(); err != nil {
		return nil, err
	}
	page := new(CursorPage[T])
	if err := c.get(ctx, path, q, page); err != nil {
		return nil, err
	}
	return page, nil
}

// allCursored is the All twin of a List method of a list paged by cursor:
// it ranges over every item from p's position on, following each page's
// CursorEnd while HasNext, calling list with a copy of p for each page, so
// the caller's params are never modified and the sequence can be ranged
// again. A page asked with EndingBefore starts the walk; the pages after
// it are asked with StartingAfter. The walk ends, without an error, at a
// page whose CursorEnd is a cursor it has already asked with.
func allCursored[P any, PP interface {
	*P
	cursored
}, T any](ctx context.Context, p *P, list func(context.Context, *P) (*CursorPage[T], error)) iter.Seq2[*T, error] {
	first := *orZero(p)
	return func(yield func(*T, error) bool) {
		q := first
		// The cursors the walk has asked with: a page whose CursorEnd is one
		// of them leads back into pages already yielded (a server whose
		// cursors cycle), so the walk ends there, as all ends at a repeated
		// or backward page number.
		seen := map[string]bool{}
		if s := PP(&q).cursorParams().StartingAfter; s != "" {
			seen[s] = true
		}
		for {
			page, err := list(ctx, &q)
			if err != nil {
				yield(nil, err)
				return
			}
			for _, item := range page.Items {
				if item == nil {
					yield(nil, errors.New("platform: a page of the list holds a null item"))
					return
				}
				if !yield(item, nil) {
					return
				}
			}
			end := page.CursorEnd
			cur := PP(&q).cursorParams()
			if !page.HasNext || end == nil || *end == "" || seen[*end] || len(page.Items) == 0 {
				return
			}
			seen[*end] = true
			cur.StartingAfter, cur.EndingBefore = *end, ""
		}
	}
}
