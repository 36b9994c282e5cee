package fake_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// ipDB is the PostgreSQL database the IP restriction tests work in.
const ipDB = "pg-db"

// newIPServer starts a fake with the ready PostgreSQL database ipDB and
// the ready MySQL database app-db.
func newIPServer(t *testing.T) (*fake.Server, *platform.Client) {
	t.Helper()
	srv, c := newKindServer(t, platform.KindMySQL)
	if _, err := c.Databases.Create(t.Context(), &platform.CreateDatabaseParams{
		Organization: srv.Org(), Name: ipDB, ClusterSize: "PS_10", Kind: platform.KindPostgreSQL,
	}); err != nil {
		t.Fatal(err)
	}
	srv.Advance(5 * time.Second)
	return srv, c
}

// createIPRestriction creates an entry of ipDB with p's body fields, then
// moves the clock by a millisecond, so that entries list in the order they
// were created.
func createIPRestriction(t *testing.T, srv *fake.Server, c *platform.Client, p platform.CreateIPRestrictionParams) *platform.IPRestriction {
	t.Helper()
	p.Organization, p.Database = srv.Org(), ipDB
	r, err := c.IPRestrictions.Create(t.Context(), &p)
	if err != nil {
		t.Fatalf("create IP restriction: %v", err)
	}
	srv.Advance(time.Millisecond)
	return r
}

// ipRef names an entry of ipDB.
func ipRef(srv *fake.Server, id string) *platform.GetIPRestrictionParams {
	return &platform.GetIPRestrictionParams{Organization: srv.Org(), Database: ipDB, ID: id}
}

// listIPRestrictions returns every entry of ipDB, in list order.
func listIPRestrictions(t *testing.T, srv *fake.Server, c *platform.Client) []*platform.IPRestriction {
	t.Helper()
	return opCollect(t, c.IPRestrictions.All(t.Context(), &platform.ListIPRestrictionsParams{Organization: srv.Org(), Database: ipDB}))
}

func TestIPRestrictionLifecycle(t *testing.T) {
	t.Parallel()
	srv, c := newIPServer(t)
	ctx := t.Context()
	created := srv.Now()
	r := createIPRestriction(t, srv, c, platform.CreateIPRestrictionParams{
		CIDRs: []string{"192.0.2.0/24", "198.51.100.7"}, Schema: platform.Ptr("reports"), Role: platform.Ptr("analyst"),
		Description: platform.Ptr("office"),
	})
	at := platform.NewTimestamp(created)
	want := &platform.IPRestriction{
		ID: r.ID, Type: "IPRestriction", Schema: "reports", Role: "analyst",
		CIDRs: []string{"192.0.2.0/24", "198.51.100.7"}, Description: platform.Ptr("office"),
		CreatedAt: at, UpdatedAt: at,
		Actor: platform.Actor{ID: srv.AdminUserID(), Type: "User", DisplayName: r.Actor.DisplayName, AvatarURL: "https://avatars.example.com/" + srv.AdminUserID()},
	}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Errorf("created (-want +got):\n%s", diff)
	}
	if got, err := c.IPRestrictions.Get(ctx, ipRef(srv, r.ID)); err != nil || !cmp.Equal(want, got) {
		t.Errorf("read back: %v (-want +got):\n%s", err, cmp.Diff(want, got))
	}

	srv.Advance(time.Minute)
	got, err := c.IPRestrictions.Update(ctx, &platform.UpdateIPRestrictionParams{
		Organization: srv.Org(), Database: ipDB, ID: r.ID,
		CIDRs: &[]string{"203.0.113.0/24"}, Schema: platform.Ptr(""), Description: platform.Ptr(""),
	})
	if err != nil {
		t.Fatal(err)
	}
	want.CIDRs, want.Schema, want.Description = []string{"203.0.113.0/24"}, "", nil
	want.UpdatedAt = platform.NewTimestamp(srv.Now())
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("updated (-want +got):\n%s", diff)
	}
	if got, err := c.IPRestrictions.Update(ctx, &platform.UpdateIPRestrictionParams{Organization: srv.Org(), Database: ipDB, ID: r.ID}); err != nil ||
		!cmp.Equal(want.CIDRs, got.CIDRs) || got.Role != "analyst" {
		t.Errorf("an empty update changed the entry: %+v, %v", got, err)
	}

	if err := c.IPRestrictions.Delete(ctx, ipRef(srv, r.ID)); err != nil {
		t.Fatal(err)
	}
	if got := listIPRestrictions(t, srv, c); len(got) != 0 {
		t.Errorf("after delete the list has %d entries", len(got))
	}
	for _, id := range []string{r.ID, "nosuchentry"} {
		_, err := c.IPRestrictions.Get(ctx, ipRef(srv, id))
		apiError(t, err, http.StatusNotFound)
		_, err = c.IPRestrictions.Update(ctx, &platform.UpdateIPRestrictionParams{Organization: srv.Org(), Database: ipDB, ID: id, Role: platform.Ptr("x")})
		apiError(t, err, http.StatusNotFound)
		apiError(t, c.IPRestrictions.Delete(ctx, ipRef(srv, id)), http.StatusNotFound)
	}
}

func TestIPRestrictionKindMismatch(t *testing.T) {
	t.Parallel()
	srv, c := newIPServer(t)
	ctx := t.Context()
	mysql := &platform.GetIPRestrictionParams{Organization: srv.Org(), Database: roleDB, ID: "nosuchentry"}
	calls := map[string]func() error{
		"list": func() error {
			_, err := c.IPRestrictions.List(ctx, &platform.ListIPRestrictionsParams{Organization: srv.Org(), Database: roleDB})
			return err
		},
		"create": func() error {
			_, err := c.IPRestrictions.Create(ctx, &platform.CreateIPRestrictionParams{Organization: srv.Org(), Database: roleDB, CIDRs: []string{"10.0.0.0/8"}})
			return err
		},
		"get": func() error { _, err := c.IPRestrictions.Get(ctx, mysql); return err },
		"update": func() error {
			_, err := c.IPRestrictions.Update(ctx, &platform.UpdateIPRestrictionParams{Organization: srv.Org(), Database: roleDB, ID: mysql.ID})
			return err
		},
		"delete": func() error { return c.IPRestrictions.Delete(ctx, mysql) },
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			apiError(t, call(), http.StatusUnprocessableEntity, "postgresql", roleDB+" is mysql")
		})
	}
}

func TestIPRestrictionRefusals(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		p     platform.CreateIPRestrictionParams
		words []string
	}{
		{"no cidrs", platform.CreateIPRestrictionParams{}, []string{"cidrs", "at least one"}},
		{"not an address", platform.CreateIPRestrictionParams{CIDRs: []string{"10.0.0.0/8", "10.0.0.300"}}, []string{"cidrs", `"10.0.0.300"`}},
		{"IPv6", platform.CreateIPRestrictionParams{CIDRs: []string{"2001:db8::/32"}}, []string{"cidrs", `"2001:db8::/32"`, "IPv4"}},
		{"host bits set", platform.CreateIPRestrictionParams{CIDRs: []string{"192.0.2.1/24"}}, []string{"cidrs", `"192.0.2.1/24"`, "192.0.2.0/24"}},
		{"repeated in the list", platform.CreateIPRestrictionParams{CIDRs: []string{"10.0.0.0/8", "10.0.0.0/8"}}, []string{"cidrs", "repeats"}},
		{"duplicate of another entry", platform.CreateIPRestrictionParams{CIDRs: []string{"172.16.0.0/12", "192.0.2.0/24"}}, []string{"cidrs", "192.0.2.0/24", "already allowed"}},
		{"long schema", platform.CreateIPRestrictionParams{CIDRs: []string{"10.0.0.0/8"}, Schema: platform.Ptr(strings.Repeat("s", 64))}, []string{"schema", "63"}},
		{"long role", platform.CreateIPRestrictionParams{CIDRs: []string{"10.0.0.0/8"}, Role: platform.Ptr(strings.Repeat("r", 64))}, []string{"role", "63"}},
		{"long description", platform.CreateIPRestrictionParams{CIDRs: []string{"10.0.0.0/8"}, Description: platform.Ptr(strings.Repeat("d", 256))}, []string{"description", "255"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, c := newIPServer(t)
			first := createIPRestriction(t, srv, c, platform.CreateIPRestrictionParams{CIDRs: []string{"192.0.2.0/24"}})
			p := tt.p
			p.Organization, p.Database = srv.Org(), ipDB
			_, err := c.IPRestrictions.Create(t.Context(), &p)
			apiError(t, err, http.StatusUnprocessableEntity, tt.words...)
			if got := listIPRestrictions(t, srv, c); len(got) != 1 || got[0].ID != first.ID {
				t.Errorf("entries after the refusal: %d, want only the first", len(got))
			}
			// The same refusal when an update would make the entry so
			// (the duplicate: of itself, which is no duplicate, so of
			// another entry); nothing changes.
			if tt.name == "no cidrs" {
				p.CIDRs = []string{}
			}
			target := first
			if tt.name == "duplicate of another entry" {
				target = createIPRestriction(t, srv, c, platform.CreateIPRestrictionParams{CIDRs: []string{"10.0.0.0/8"}})
			}
			before := listIPRestrictions(t, srv, c)
			_, err = c.IPRestrictions.Update(t.Context(), &platform.UpdateIPRestrictionParams{
				Organization: srv.Org(), Database: ipDB, ID: target.ID, CIDRs: &p.CIDRs, Schema: p.Schema, Role: p.Role, Description: p.Description,
			})
			apiError(t, err, http.StatusUnprocessableEntity, tt.words...)
			if diff := cmp.Diff(before, listIPRestrictions(t, srv, c)); diff != "" {
				t.Errorf("a refused update changed the entries (-before +after):\n%s", diff)
			}
		})
	}
}

// TestIPRestrictionDuplicatesPerSchemaAndRole checks that a range may
// repeat in entries for different schemas or roles, and that an entry's
// update may keep its own ranges.
func TestIPRestrictionDuplicatesPerSchemaAndRole(t *testing.T) {
	t.Parallel()
	srv, c := newIPServer(t)
	cidrs := []string{"192.0.2.0/24"}
	first := createIPRestriction(t, srv, c, platform.CreateIPRestrictionParams{CIDRs: cidrs})
	createIPRestriction(t, srv, c, platform.CreateIPRestrictionParams{CIDRs: cidrs, Role: platform.Ptr("analyst")})
	createIPRestriction(t, srv, c, platform.CreateIPRestrictionParams{CIDRs: cidrs, Schema: platform.Ptr("reports")})
	if _, err := c.IPRestrictions.Update(t.Context(), &platform.UpdateIPRestrictionParams{
		Organization: srv.Org(), Database: ipDB, ID: first.ID, CIDRs: &[]string{"192.0.2.0/24", "198.51.100.0/24"},
	}); err != nil {
		t.Errorf("an update keeping the entry's own range: %v", err)
	}
	_, err := c.IPRestrictions.Update(t.Context(), &platform.UpdateIPRestrictionParams{
		Organization: srv.Org(), Database: ipDB, ID: first.ID, Role: platform.Ptr("analyst"),
	})
	apiError(t, err, http.StatusUnprocessableEntity, "192.0.2.0/24", "already allowed")
}

func TestIPRestrictionPages(t *testing.T) {
	t.Parallel()
	srv, c := newIPServer(t)
	var ids []string
	for _, cidr := range []string{"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"} {
		ids = append(ids, createIPRestriction(t, srv, c, platform.CreateIPRestrictionParams{CIDRs: []string{cidr}}).ID)
	}
	page, err := c.IPRestrictions.List(t.Context(), &platform.ListIPRestrictionsParams{Organization: srv.Org(), Database: ipDB, ListParams: platform.ListParams{Page: 2, PerPage: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 1 || page.Items[0].ID != ids[2] || page.HasNext() || page.TotalCount == nil || *page.TotalCount != 3 {
		t.Errorf("page 2 of 2: %d items, next %v, total %v; want the third entry of 3", len(page.Items), page.NextPage, page.TotalCount)
	}
}
