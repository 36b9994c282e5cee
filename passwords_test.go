package platform_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// passwordJSON is a password as the API sends it, written from the
// reference's schema rather than from the SDK's types.
const passwordJSON = `{
	"id": "pw0000000001", "type": "Password", "name": "ci", "role": "reader", "cidrs": null,
	"created_at": "2026-01-14T10:19:23.000Z", "deleted_at": null, "expires_at": null, "last_used_at": null,
	"expired": false, "direct_vtgate": false, "direct_vtgate_addresses": [], "ttl_seconds": null,
	"access_host_url": "aws.connect.example.com", "access_host_regional_url": "us-east.connect.example.com",
	"access_host_regional_urls": [],
	"actor": {"id": "usr0000000001", "type": "User", "display_name": "Ada", "avatar_url": "https://avatars.example.com/ada"},
	"region": {"id": "reg1", "type": "Region", "provider": "AWS", "enabled": true, "public_ip_addresses": ["192.0.2.10"],
		"display_name": "AWS us-east-1", "location": "Ashburn, Virginia", "slug": "us-east",
		"current_default": true, "mysql_supported": true, "postgresql_supported": true},
	"username": "k2n4b6v8c0x1z3l5j7h9", "plain_text": "pw_secret", "replica": true, "renewable": false,
	"database_branch": {"name": "main", "id": "br0000000001", "production": true,
		"mysql_edge_address": "aws.connect.example.com", "private_edge_connectivity": false}
}`

func wantPassword(t *testing.T) *platform.Password {
	return &platform.Password{
		ID: "pw0000000001", Type: "Password", Name: "ci", Role: platform.PasswordReader,
		CreatedAt:              mustTimestamp(t, "2026-01-14T10:19:23Z"),
		DirectVTGateAddresses:  []string{},
		AccessHostURL:          "aws.connect.example.com",
		AccessHostRegionalURL:  "us-east.connect.example.com",
		AccessHostRegionalURLs: []string{},
		Actor:                  &platform.Actor{ID: "usr0000000001", Type: "User", DisplayName: "Ada", AvatarURL: "https://avatars.example.com/ada"},
		Region: platform.Region{
			ID: "reg1", Type: "Region", Provider: "AWS", Enabled: true, PublicIPAddresses: []string{"192.0.2.10"},
			DisplayName: "AWS us-east-1", Location: "Ashburn, Virginia", Slug: "us-east",
			CurrentDefault: platform.Ptr(true), MySQLSupported: platform.Ptr(true), PostgreSQLSupported: platform.Ptr(true),
		},
		Username: "k2n4b6v8c0x1z3l5j7h9", PlainText: platform.Ptr("pw_secret"), Replica: true,
		Branch: platform.PasswordBranchRef{ID: "br0000000001", Name: "main", Production: true, MySQLEdgeAddress: "aws.connect.example.com"},
	}
}

// TestPasswordsWire checks each method's request (method, escaped path,
// query, JSON body) and the decoding of its response.
func TestPasswordsWire(t *testing.T) {
	t.Parallel()
	const base = "/v1/organizations/acme/databases/app%20db/branches/main/passwords"
	ref := &platform.GetPasswordParams{Organization: "acme", Database: "app db", Branch: "main", ID: "pw/1"}
	runMethodCases(t, []methodCase{
		{
			name: "List",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Passwords.List(ctx, &platform.ListPasswordsParams{
					Organization: "acme", Database: "app db", Branch: "main",
					ReadOnlyRegionID: "reg1", Status: platform.PasswordRenewable, Query: "ci",
					ListParams: platform.ListParams{Page: 2, PerPage: 1},
				})
			},
			method: "GET", path: base,
			query:  url.Values{"read_only_region_id": {"reg1"}, "status": {"renewable"}, "q": {"ci"}, "page": {"2"}, "per_page": {"1"}},
			status: 200, response: listJSON(passwordJSON),
			want: onePage(wantPassword(t)),
		},
		{
			name: "List/no filter",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Passwords.List(ctx, &platform.ListPasswordsParams{Organization: "acme", Database: "app db", Branch: "main"})
			},
			method: "GET", path: base, query: url.Values{},
			status: 200, response: listJSON(),
			want: onePage[platform.Password](),
		},
		{
			name: "Create",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Passwords.Create(ctx, &platform.CreatePasswordParams{
					Organization: "acme", Database: "app db", Branch: "main",
					Name: platform.Ptr("ci"), Role: platform.Ptr(platform.PasswordReader), Replica: platform.Ptr(true),
					TTL: platform.Ptr(3600), CIDRs: []string{"192.0.2.0/24"}, DirectVTGate: platform.Ptr(false),
				})
			},
			method: "POST", path: base,
			body:   `{"name": "ci", "role": "reader", "replica": true, "ttl": 3600, "cidrs": ["192.0.2.0/24"], "direct_vtgate": false}`,
			status: 201, response: passwordJSON,
			want: wantPassword(t),
		},
		{
			name: "Create/defaults send an empty object",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Passwords.Create(ctx, &platform.CreatePasswordParams{Organization: "acme", Database: "app db", Branch: "main"})
			},
			method: "POST", path: base, body: `{}`,
			status: 201, response: passwordJSON,
			want: wantPassword(t),
		},
		{
			name:   "Get",
			call:   func(ctx context.Context, c *platform.Client) (any, error) { return c.Passwords.Get(ctx, ref) },
			method: "GET", path: base + "/pw%2F1",
			status: 200, response: passwordJSON,
			want: wantPassword(t),
		},
		{
			name: "Update",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Passwords.Update(ctx, &platform.UpdatePasswordParams{
					Organization: "acme", Database: "app db", Branch: "main", ID: "pw/1",
					Name: platform.Ptr("deploy"), CIDRs: &[]string{"10.0.0.0/8"},
				})
			},
			method: "PATCH", path: base + "/pw%2F1", body: `{"name": "deploy", "cidrs": ["10.0.0.0/8"]}`,
			status: 200, response: passwordJSON,
			want: wantPassword(t),
		},
		{
			name: "Update/clearing the cidrs sends an empty list",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Passwords.Update(ctx, &platform.UpdatePasswordParams{
					Organization: "acme", Database: "app db", Branch: "main", ID: "pw/1", CIDRs: &[]string{},
				})
			},
			method: "PATCH", path: base + "/pw%2F1", body: `{"cidrs": []}`,
			status: 200, response: passwordJSON,
			want: wantPassword(t),
		},
		{
			name:   "Renew",
			call:   func(ctx context.Context, c *platform.Client) (any, error) { return c.Passwords.Renew(ctx, ref) },
			method: "POST", path: base + "/pw%2F1/renew",
			status: 200, response: passwordJSON,
			want: wantPassword(t),
		},
		{
			name:   "Delete",
			call:   func(ctx context.Context, c *platform.Client) (any, error) { return nil, c.Passwords.Delete(ctx, ref) },
			method: "DELETE", path: base + "/pw%2F1",
			status: 204,
		},
	})
}

func TestPasswordsWireMissingPathValues(t *testing.T) {
	t.Parallel()
	full := platform.GetPasswordParams{Organization: "acme", Database: "app-db", Branch: "main", ID: "pw1"}
	without := func(field string) *platform.GetPasswordParams {
		p := full
		switch field {
		case "branch":
			p.Branch = ""
		case "id":
			p.ID = " "
		}
		return &p
	}
	runArgCases(t, []argCase{
		{"list with nil params", "params", func(ctx context.Context, c *platform.Client) error { _, err := c.Passwords.List(ctx, nil); return err }},
		{"list without branch", "branch", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Passwords.List(ctx, &platform.ListPasswordsParams{Organization: "acme", Database: "app-db"})
			return err
		}},
		{"list with a bad page", "per_page", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Passwords.List(ctx, &platform.ListPasswordsParams{Organization: "acme", Database: "app-db", Branch: "main", ListParams: platform.ListParams{PerPage: 101}})
			return err
		}},
		{"create without database", "database", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Passwords.Create(ctx, &platform.CreatePasswordParams{Organization: "acme", Branch: "main"})
			return err
		}},
		{"get without id", "id", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Passwords.Get(ctx, without("id"))
			return err
		}},
		{"update without id", "id", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Passwords.Update(ctx, &platform.UpdatePasswordParams{Organization: "acme", Database: "app-db", Branch: "main"})
			return err
		}},
		{"delete without branch", "branch", func(ctx context.Context, c *platform.Client) error { return c.Passwords.Delete(ctx, without("branch")) }},
		{"renew with nil params", "params", func(ctx context.Context, c *platform.Client) error { _, err := c.Passwords.Renew(ctx, nil); return err }},
	})
}

func TestPasswordsWireErrorResponse(t *testing.T) {
	t.Parallel()
	w := newWire(t, http.StatusUnprocessableEntity, `{"code": "unprocessable", "message": "role \"owner\" is not reader, writer, readwriter or admin"}`)
	_, err := w.client.Passwords.Create(t.Context(), &platform.CreatePasswordParams{
		Organization: "acme", Database: "app-db", Branch: "main", Role: platform.Ptr(platform.PasswordRole("owner")),
	})
	var apiErr *platform.Error
	if !errors.Is(err, platform.ErrUnprocessable) || !errors.As(err, &apiErr) || apiErr.Message != `role "owner" is not reader, writer, readwriter or admin` {
		t.Fatalf("error %v, want the unprocessable *Error with its message", err)
	}
}

func TestPasswordRolesListsEveryValue(t *testing.T) {
	t.Parallel()
	want := []platform.PasswordRole{"reader", "writer", "admin", "readwriter"}
	if diff := cmp.Diff(want, platform.PasswordRoles()); diff != "" {
		t.Errorf("PasswordRoles (-want +got):\n%s", diff)
	}
}

// TestPasswordsAgainstFake runs a password's life through the SDK against
// the fake: the plain text once, every page through All, expiry on the
// fake's clock, renewal, deletion.
func TestPasswordsAgainstFake(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	c, ctx, org := srv.Client(), t.Context(), srv.Org()
	if _, err := c.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: org, Name: "shop", ClusterSize: "PS_10"}); err != nil {
		t.Fatal(err)
	}
	srv.Advance(5 * time.Second)
	pw, err := c.Passwords.Create(ctx, &platform.CreatePasswordParams{Organization: org, Database: "shop", Branch: "main", Name: platform.Ptr("app"), TTL: platform.Ptr(600)})
	if err != nil {
		t.Fatal(err)
	}
	if pw.PlainText == nil || *pw.PlainText == "" {
		t.Fatal("create returned no plain text")
	}
	for i := range 26 {
		if _, err := c.Passwords.Create(ctx, &platform.CreatePasswordParams{Organization: org, Database: "shop", Branch: "main", Name: platform.Ptr(fmt.Sprintf("worker-%02d", i))}); err != nil {
			t.Fatal(err)
		}
	}
	n := 0
	for got, err := range c.Passwords.All(ctx, &platform.ListPasswordsParams{Organization: org, Database: "shop", Branch: "main", ListParams: platform.ListParams{PerPage: 10}}) {
		if err != nil {
			t.Fatal(err)
		}
		if got.PlainText != nil {
			t.Errorf("listed password %s shows its plain text", got.Name)
		}
		n++
	}
	if n != 27 {
		t.Errorf("All yielded %d passwords, want 27 over three pages", n)
	}

	ref := &platform.GetPasswordParams{Organization: org, Database: "shop", Branch: "main", ID: pw.ID}
	srv.Advance(10 * time.Minute)
	if _, err := c.Passwords.Renew(ctx, ref); !errors.Is(err, platform.ErrUnprocessable) {
		t.Errorf("renewing an expired password: %v, want ErrUnprocessable", err)
	}
	if err := c.Passwords.Delete(ctx, ref); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Passwords.Get(ctx, ref); !errors.Is(err, platform.ErrNotFound) {
		t.Errorf("a deleted password: %v, want ErrNotFound", err)
	}
}
