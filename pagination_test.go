package platform_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
)

// listAPI serves n databases named db-1..db-n as the API's paginated
// list, with totals. failPage, when not zero, answers that page with 500.
func listAPI(t *testing.T, n, failPage int) *wire {
	t.Helper()
	var api *wire
	api = newWireFunc(t, func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		page, perPage := 1, 25
		if v := q.Get("page"); v != "" {
			page, _ = strconv.Atoi(v)
		}
		if v := q.Get("per_page"); v != "" {
			perPage, _ = strconv.Atoi(v)
		}
		if page == failPage {
			writeBody(w, 500, `{"code": "internal", "message": "page failed"}`)
			return
		}
		type item struct {
			ID   string `json:"id"`
			Type string `json:"type"`
			Name string `json:"name"`
		}
		env := map[string]any{
			"type": "list", "current_page": page, "per_page": perPage,
			"next_page": nil, "next_page_url": nil, "prev_page": nil, "prev_page_url": nil,
			"total_count": n, "total_pages": (n + perPage - 1) / perPage,
		}
		data := []item{}
		for i := (page-1)*perPage + 1; i <= min(page*perPage, n); i++ {
			data = append(data, item{ID: fmt.Sprintf("id%d", i), Type: "Database", Name: fmt.Sprintf("db-%d", i)})
		}
		env["data"] = data
		pageURL := func(p int) string {
			return fmt.Sprintf("%s%s?page=%d&per_page=%d", api.srv.URL, r.URL.Path, p, perPage)
		}
		if page*perPage < n {
			env["next_page"], env["next_page_url"] = page+1, pageURL(page+1)
		}
		if page > 1 {
			env["prev_page"], env["prev_page_url"] = page-1, pageURL(page-1)
		}
		buf, err := json.Marshal(env)
		if err != nil {
			t.Error(err)
		}
		writeBody(w, 200, string(buf))
	})
	return api
}

func dbNames(dbs []*platform.Database) []string {
	var out []string
	for _, db := range dbs {
		out = append(out, db.Name)
	}
	return out
}

// listQueries lists the page query of each request.
func listQueries(api *wire) []string {
	var out []string
	for _, r := range api.requests() {
		out = append(out, r.RawQuery)
	}
	return out
}

func TestAllFetchesEveryPage(t *testing.T) {
	t.Parallel()
	api := listAPI(t, 7, 0)
	c := api.newClient(t)
	params := &platform.ListDatabasesParams{Organization: "acme", ListParams: platform.ListParams{PerPage: 3}}
	var got []*platform.Database
	for db, err := range c.Databases.All(t.Context(), params) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, db)
	}
	want := []string{"db-1", "db-2", "db-3", "db-4", "db-5", "db-6", "db-7"}
	if diff := cmp.Diff(want, dbNames(got)); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
	wantQueries := []string{"page=1&per_page=3", "page=2&per_page=3", "page=3&per_page=3"}
	if diff := cmp.Diff(wantQueries, listQueries(api)); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	for _, r := range api.requests() {
		if r.Path != "/v1/organizations/acme/databases" {
			t.Errorf("request path %s", r.Path)
		}
	}
}

func TestAllStartsAtTheGivenPage(t *testing.T) {
	t.Parallel()
	api := listAPI(t, 7, 0)
	var got []*platform.Database
	for db, err := range api.newClient(t).Databases.All(t.Context(), &platform.ListDatabasesParams{
		Organization: "acme", ListParams: platform.ListParams{Page: 2, PerPage: 3},
	}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, db)
	}
	if diff := cmp.Diff([]string{"db-4", "db-5", "db-6", "db-7"}, dbNames(got)); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
}

func TestAllIsLazy(t *testing.T) {
	t.Parallel()
	api := listAPI(t, 7, 0)
	seq := api.newClient(t).Databases.All(t.Context(), &platform.ListDatabasesParams{Organization: "acme", ListParams: platform.ListParams{PerPage: 3}})
	if n := api.count(); n != 0 {
		t.Fatalf("All sent %d requests before ranging, want 0", n)
	}
	for db, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		if db.Name != "db-1" {
			t.Errorf("first item %s, want db-1", db.Name)
		}
		break
	}
	if n := api.count(); n != 1 {
		t.Errorf("breaking after the first item sent %d requests, want 1", n)
	}
}

func TestAllCanBeRangedAgain(t *testing.T) {
	t.Parallel()
	api := listAPI(t, 7, 0)
	params := &platform.ListDatabasesParams{Organization: "acme", Query: "db", ListParams: platform.ListParams{PerPage: 3}}
	before := *params
	seq := api.newClient(t).Databases.All(t.Context(), params)
	collect := func() []string {
		var out []string
		for db, err := range seq {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, db.Name)
		}
		return out
	}
	first, second := collect(), collect()
	if len(first) != 7 {
		t.Errorf("first range gave %d items, want 7", len(first))
	}
	if diff := cmp.Diff(first, second); diff != "" {
		t.Errorf("second range differs (-first +second):\n%s", diff)
	}
	if diff := cmp.Diff(before, *params); diff != "" {
		t.Errorf("the caller's params changed (-before +after):\n%s", diff)
	}
	if n := api.count(); n != 6 {
		t.Errorf("server saw %d requests, want 6 (3 pages, twice)", n)
	}
}

func TestAllStopsAfterAnError(t *testing.T) {
	t.Parallel()
	api := listAPI(t, 7, 2)
	var got []string
	var errs []error
	for db, err := range api.newClient(t, platform.WithoutRetries()).Databases.All(t.Context(), &platform.ListDatabasesParams{
		Organization: "acme", ListParams: platform.ListParams{PerPage: 3},
	}) {
		if err != nil {
			if db != nil {
				t.Errorf("item %v yielded with the error", db)
			}
			errs = append(errs, err)
			continue // the iterator, not the caller, must stop
		}
		got = append(got, db.Name)
	}
	if diff := cmp.Diff([]string{"db-1", "db-2", "db-3"}, got); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
	if len(errs) != 1 {
		t.Fatalf("%d errors yielded, want 1: %v", len(errs), errs)
	}
	var apiErr *platform.Error
	if !errors.As(errs[0], &apiErr) || apiErr.StatusCode != 500 || apiErr.Message != "page failed" {
		t.Errorf("error = %v, want the page's 500", errs[0])
	}
	if n := api.count(); n != 2 {
		t.Errorf("server saw %d requests, want 2", n)
	}
}

// TestAllEndsOnAnEmptyPage checks that a list of no items makes one request.
func TestAllEndsOnAnEmptyPage(t *testing.T) {
	t.Parallel()
	api := listAPI(t, 0, 0)
	for db, err := range api.newClient(t).Databases.All(t.Context(), &platform.ListDatabasesParams{Organization: "acme"}) {
		t.Errorf("yielded %v, %v from an empty list", db, err)
	}
	if n := api.count(); n != 1 {
		t.Errorf("server saw %d requests, want 1", n)
	}
}

// TestAllOtherLists ranges the other All methods over three pages.
func TestAllOtherLists(t *testing.T) {
	t.Parallel()
	per := platform.ListParams{PerPage: 3}
	tests := []struct {
		name string
		path string
		ids  func(*platform.Client, *testing.T) []string
	}{
		{"Organizations.All", "v1/organizations", func(c *platform.Client, t *testing.T) []string {
			var ids []string
			for v, err := range c.Organizations.All(t.Context(), &platform.ListOrganizationsParams{ListParams: per}) {
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, v.ID)
			}
			return ids
		}},
		{"Organizations.AllRegions", "v1/organizations/acme/regions", func(c *platform.Client, t *testing.T) []string {
			var ids []string
			for v, err := range c.Organizations.AllRegions(t.Context(), &platform.ListOrganizationRegionsParams{Organization: "acme", ListParams: per}) {
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, v.ID)
			}
			return ids
		}},
		{"Organizations.AllMembers", "v1/organizations/acme/members", func(c *platform.Client, t *testing.T) []string {
			var ids []string
			for v, err := range c.Organizations.AllMembers(t.Context(), &platform.ListMembersParams{Organization: "acme", ListParams: per}) {
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, v.ID)
			}
			return ids
		}},
		{"Regions.All", "v1/regions", func(c *platform.Client, t *testing.T) []string {
			var ids []string
			for v, err := range c.Regions.All(t.Context(), &platform.ListRegionsParams{ListParams: per}) {
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, v.ID)
			}
			return ids
		}},
		{"Databases.AllRegions", "v1/organizations/acme/databases/app-db/regions", func(c *platform.Client, t *testing.T) []string {
			var ids []string
			for v, err := range c.Databases.AllRegions(t.Context(), &platform.ListDatabaseRegionsParams{Organization: "acme", Database: "app-db", ListParams: per}) {
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, v.ID)
			}
			return ids
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			api := listAPI(t, 7, 0)
			got := tc.ids(api.newClient(t), t)
			want := []string{"id1", "id2", "id3", "id4", "id5", "id6", "id7"}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("items (-want +got):\n%s", diff)
			}
			for _, r := range api.requests() {
				if r.Path != "/"+tc.path {
					t.Errorf("request path %s, want %s", r.Path, "/"+tc.path)
				}
			}
			if n := api.count(); n != 3 {
				t.Errorf("server saw %d requests, want 3", n)
			}
		})
	}
}

func TestPageFields(t *testing.T) {
	t.Parallel()
	api := listAPI(t, 7, 0)
	c := api.newClient(t)
	tests := []struct {
		page     int
		wantNext *int
		wantPrev *int
		wantLen  int
	}{
		{1, platform.Ptr(2), nil, 3},
		{2, platform.Ptr(3), platform.Ptr(1), 3},
		{3, nil, platform.Ptr(2), 1},
		{4, nil, platform.Ptr(3), 0}, // past the end: empty, no next page
	}
	for _, tc := range tests {
		p, err := c.Databases.List(t.Context(), &platform.ListDatabasesParams{Organization: "acme", ListParams: platform.ListParams{Page: tc.page, PerPage: 3}})
		if err != nil {
			t.Fatal(err)
		}
		type fields struct {
			Type                string
			Current, Per        int
			Next, Prev          *int
			HasNext             bool
			NextURL, PrevURL    bool
			TotalCount, TotPage *int
			Len                 int
		}
		got := fields{p.Type, p.CurrentPage, p.PerPage, p.NextPage, p.PrevPage, p.HasNext(), p.NextPageURL != nil, p.PrevPageURL != nil, p.TotalCount, p.TotalPages, len(p.Items)}
		want := fields{"list", tc.page, 3, tc.wantNext, tc.wantPrev, tc.wantNext != nil, tc.wantNext != nil, tc.wantPrev != nil, platform.Ptr(7), platform.Ptr(3), tc.wantLen}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("page %d (-want +got):\n%s", tc.page, diff)
		}
	}
}

// TestPageDecodesNulls decodes a page whose neighbour fields are null and
// which reports no totals.
func TestPageDecodesNulls(t *testing.T) {
	t.Parallel()
	const body = `{"type": "list", "current_page": 1, "per_page": 25, "next_page": null, "next_page_url": null,
		"prev_page": null, "prev_page_url": null, "data": []}`
	var p platform.Page[platform.Region]
	if err := json.Unmarshal([]byte(body), &p); err != nil {
		t.Fatal(err)
	}
	want := platform.Page[platform.Region]{Type: "list", CurrentPage: 1, PerPage: 25, Items: []*platform.Region{}}
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("page (-want +got):\n%s", diff)
	}
	if p.HasNext() {
		t.Error("HasNext on the last page")
	}
}

// TestAllRefusesANullItem checks that a null in a page's data ends the
// iteration with an error instead of yielding a nil item.
func TestAllRefusesANullItem(t *testing.T) {
	t.Parallel()
	api := newWireFunc(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"type":"list","current_page":1,"next_page":2,"data":[{"name":"db-1"},null,{"name":"db-3"}]}`)
	})
	var got []string
	var errs []error
	for db, err := range api.newClient(t).Databases.All(t.Context(), &platform.ListDatabasesParams{Organization: "acme"}) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		got = append(got, db.Name)
	}
	if diff := cmp.Diff([]string{"db-1"}, got); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "null item") {
		t.Errorf("errors %v, want one naming the null item", errs)
	}
}
