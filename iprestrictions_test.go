package platform_test

import (
	"context"
	"errors"
	"net/url"
	"testing"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// ipRestrictionJSON is an IP restriction entry as the API sends it,
// written from the reference's schema rather than from the SDK's types.
const ipRestrictionJSON = `{
	"id": "ipr000000001", "type": "IPRestriction", "schema": "reports", "role": "analyst",
	"cidrs": ["192.0.2.0/24", "198.51.100.7"], "description": "office",
	"created_at": "2026-01-14T10:19:23.000Z", "updated_at": "2026-01-15T08:00:00.500Z", "deleted_at": null,
	"actor": {"id": "usr0000000001", "type": "User", "display_name": "Ada", "avatar_url": "https://avatars.example.com/ada"}
}`

func wantIPRestriction(t *testing.T) *platform.IPRestriction {
	return &platform.IPRestriction{
		ID: "ipr000000001", Type: "IPRestriction", Schema: "reports", Role: "analyst",
		CIDRs: []string{"192.0.2.0/24", "198.51.100.7"}, Description: platform.Ptr("office"),
		CreatedAt: mustTimestamp(t, "2026-01-14T10:19:23Z"), UpdatedAt: mustTimestamp(t, "2026-01-15T08:00:00.5Z"),
		Actor: platform.Actor{ID: "usr0000000001", Type: "User", DisplayName: "Ada", AvatarURL: "https://avatars.example.com/ada"},
	}
}

// TestIPRestrictionsWire checks each method's request (method, escaped
// path, query, JSON body) and the decoding of its response.
func TestIPRestrictionsWire(t *testing.T) {
	t.Parallel()
	const base = "/v1/organizations/acme/databases/pg%20db/cidrs"
	ref := &platform.GetIPRestrictionParams{Organization: "acme", Database: "pg db", ID: "ipr/1"}
	runMethodCases(t, []methodCase{
		{
			name: "List",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.IPRestrictions.List(ctx, &platform.ListIPRestrictionsParams{Organization: "acme", Database: "pg db", ListParams: platform.ListParams{Page: 3, PerPage: 5}})
			},
			method: "GET", path: base, query: url.Values{"page": {"3"}, "per_page": {"5"}},
			status: 200, response: listJSON(ipRestrictionJSON),
			want: onePage(wantIPRestriction(t)),
		},
		{
			name: "Create",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.IPRestrictions.Create(ctx, &platform.CreateIPRestrictionParams{
					Organization: "acme", Database: "pg db", CIDRs: []string{"192.0.2.0/24"},
					Schema: platform.Ptr("reports"), Role: platform.Ptr("analyst"), Description: platform.Ptr("office"),
				})
			},
			method: "POST", path: base,
			body:   `{"cidrs": ["192.0.2.0/24"], "schema": "reports", "role": "analyst", "description": "office"}`,
			status: 201, response: ipRestrictionJSON,
			want: wantIPRestriction(t),
		},
		{
			name: "Create/cidrs only",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.IPRestrictions.Create(ctx, &platform.CreateIPRestrictionParams{Organization: "acme", Database: "pg db", CIDRs: []string{"10.0.0.0/8"}})
			},
			method: "POST", path: base, body: `{"cidrs": ["10.0.0.0/8"]}`,
			status: 201, response: ipRestrictionJSON,
			want: wantIPRestriction(t),
		},
		{
			name:   "Get",
			call:   func(ctx context.Context, c *platform.Client) (any, error) { return c.IPRestrictions.Get(ctx, ref) },
			method: "GET", path: base + "/ipr%2F1",
			status: 200, response: ipRestrictionJSON,
			want: wantIPRestriction(t),
		},
		{
			name: "Update",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.IPRestrictions.Update(ctx, &platform.UpdateIPRestrictionParams{
					Organization: "acme", Database: "pg db", ID: "ipr/1",
					CIDRs: &[]string{"203.0.113.0/24"}, Schema: platform.Ptr(""), Description: platform.Ptr(""),
				})
			},
			method: "PATCH", path: base + "/ipr%2F1", body: `{"cidrs": ["203.0.113.0/24"], "schema": "", "description": ""}`,
			status: 200, response: ipRestrictionJSON,
			want: wantIPRestriction(t),
		},
		{
			name: "Delete",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return nil, c.IPRestrictions.Delete(ctx, ref)
			},
			method: "DELETE", path: base + "/ipr%2F1",
			status: 204,
		},
	})
}

func TestIPRestrictionsWireMissingPathValues(t *testing.T) {
	t.Parallel()
	runArgCases(t, []argCase{
		{"list with nil params", "params", func(ctx context.Context, c *platform.Client) error {
			_, err := c.IPRestrictions.List(ctx, nil)
			return err
		}},
		{"create without database", "database", func(ctx context.Context, c *platform.Client) error {
			_, err := c.IPRestrictions.Create(ctx, &platform.CreateIPRestrictionParams{Organization: "acme", CIDRs: []string{"10.0.0.0/8"}})
			return err
		}},
		{"get without id", "id", func(ctx context.Context, c *platform.Client) error {
			_, err := c.IPRestrictions.Get(ctx, &platform.GetIPRestrictionParams{Organization: "acme", Database: "pg"})
			return err
		}},
		{"update without organization", "organization", func(ctx context.Context, c *platform.Client) error {
			_, err := c.IPRestrictions.Update(ctx, &platform.UpdateIPRestrictionParams{Database: "pg", ID: "ipr1"})
			return err
		}},
		{"delete with nil params", "params", func(ctx context.Context, c *platform.Client) error { return c.IPRestrictions.Delete(ctx, nil) }},
	})
}

// TestIPRestrictionsAgainstFake allows a range on a PostgreSQL database
// through the SDK against the fake, is refused a duplicate and a MySQL
// database, and ranges over the list.
func TestIPRestrictionsAgainstFake(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	c, ctx, org := srv.Client(), t.Context(), srv.Org()
	for name, kind := range map[string]platform.DatabaseKind{"pg": platform.KindPostgreSQL, "shop": platform.KindMySQL} {
		if _, err := c.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: org, Name: name, ClusterSize: "PS_10", Kind: kind}); err != nil {
			t.Fatal(err)
		}
	}
	srv.Advance(5 * time.Second)
	create := func(db string, cidrs ...string) (*platform.IPRestriction, error) {
		return c.IPRestrictions.Create(ctx, &platform.CreateIPRestrictionParams{Organization: org, Database: db, CIDRs: cidrs})
	}
	r, err := create("pg", "192.0.2.0/24")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := create("pg", "192.0.2.0/24"); !errors.Is(err, platform.ErrUnprocessable) {
		t.Errorf("a duplicate range: %v, want ErrUnprocessable", err)
	}
	if _, err := create("shop", "192.0.2.0/24"); !errors.Is(err, platform.ErrUnprocessable) {
		t.Errorf("a MySQL database: %v, want ErrUnprocessable", err)
	}
	var ids []string
	for e, err := range c.IPRestrictions.All(ctx, &platform.ListIPRestrictionsParams{Organization: org, Database: "pg"}) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, e.ID)
	}
	if len(ids) != 1 || ids[0] != r.ID {
		t.Errorf("All yielded %v, want [%s]", ids, r.ID)
	}
}
