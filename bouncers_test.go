package platform_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/url"
	"testing"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// bouncerJSON is a bouncer as the API sends it, written from the
// reference's schema rather than from the SDK's types.
const bouncerJSON = `{
	"id": "bn0123456789", "name": "pool",
	"sku": {"name": "PGB_10", "display_name": "PGB-10", "cpu": "1/8", "ram": 1073741824, "sort_order": 20},
	"target": "replica", "replicas_per_cell": 2,
	"created_at": "2026-01-14T10:19:23.000Z", "updated_at": "2026-01-14T10:20:00.500Z", "deleted_at": null,
	"actor": {"id": "u1", "type": "User", "display_name": "Ada", "avatar_url": "https://example.com/a.png"},
	"branch": {"id": "br1", "name": "main", "created_at": "2026-01-14T10:00:00.000Z", "updated_at": "2026-01-14T10:00:00.000Z", "deleted_at": null},
	"parameters": [{"id": "p1", "namespace": "pgbouncer", "name": "pool_mode", "display_name": "Pool mode", "category": "Connection pooling",
		"description": "d", "immutable": false, "parameter_type": "select", "default_value": "transaction", "value": "session",
		"required": false, "created_at": "2026-01-14T10:00:00.000Z", "updated_at": "2026-01-14T10:00:00.000Z", "restart": false,
		"max": 0, "min": 0, "url": "https://example.com/p", "options": ["session", "transaction"],
		"actor": {"id": "u1", "type": "User", "display_name": "Ada", "avatar_url": "https://example.com/a.png"}}]
}`

func bouncerTime(min, sec, ms int) platform.Timestamp {
	return platform.NewTimestamp(time.Date(2026, 1, 14, 10, min, sec, ms*int(time.Millisecond), time.UTC))
}

// wantBouncer is bouncerJSON decoded.
func wantBouncer() *platform.Bouncer {
	ada := &platform.Actor{ID: "u1", Type: "User", DisplayName: "Ada", AvatarURL: "https://example.com/a.png"}
	return &platform.Bouncer{
		ID: "bn0123456789", Name: "pool",
		SKU:    platform.BouncerSKU{Name: "PGB_10", DisplayName: "PGB-10", CPU: "1/8", RAM: 1 << 30, SortOrder: 20},
		Target: platform.BouncerTargetReplica, ReplicasPerCell: 2,
		CreatedAt: bouncerTime(19, 23, 0), UpdatedAt: bouncerTime(20, 0, 500), Actor: ada,
		Branch: platform.BranchRef{ID: "br1", Name: "main", CreatedAt: bouncerTime(0, 0, 0), UpdatedAt: bouncerTime(0, 0, 0)},
		Parameters: []*platform.BouncerParameter{{
			ID: "p1", Namespace: platform.NamespacePgbouncer, Name: "pool_mode", DisplayName: "Pool mode", Category: "Connection pooling",
			Description: "d", ParameterType: platform.ParameterSelect, DefaultValue: "transaction", Value: "session",
			Created: bouncerTime(0, 0, 0), Updated: bouncerTime(0, 0, 0), URL: "https://example.com/p",
			Options: []string{"session", "transaction"}, Actor: ada,
		}},
	}
}

// bouncerResizeJSON is a bouncer resize request as the API sends it.
const bouncerResizeJSON = `{
	"id": "rz1", "state": "resizing", "replicas_per_cell": 3, "target": "primary",
	"parameters": {"pgbouncer": {"default_pool_size": "100"}},
	"previous_replicas_per_cell": 2, "previous_target": "replica", "previous_parameters": {"pgbouncer": {}},
	"started_at": "2026-01-14T10:20:00.000Z", "completed_at": null,
	"created_at": "2026-01-14T10:19:23.000Z", "updated_at": "2026-01-14T10:20:00.000Z",
	"actor": {"id": "u1", "type": "User", "display_name": "Ada", "avatar_url": "https://example.com/a.png"},
	"bouncer": {"id": "bn0123456789", "name": "pool", "created_at": "2026-01-14T10:00:00.000Z", "updated_at": "2026-01-14T10:00:00.000Z", "deleted_at": null},
	"sku": {"name": "PGB_20", "display_name": "PGB-20", "cpu": "1/4", "ram": 2147483648, "sort_order": 30},
	"previous_sku": {"name": "PGB_10", "display_name": "PGB-10", "cpu": "1/8", "ram": 1073741824, "sort_order": 20}
}`

// wantBouncerResize is bouncerResizeJSON decoded.
func wantBouncerResize() *platform.BouncerResizeRequest {
	started := bouncerTime(20, 0, 0)
	return &platform.BouncerResizeRequest{
		ID: "rz1", State: platform.BouncerResizeResizing, ReplicasPerCell: 3, Target: platform.BouncerTargetPrimary,
		Parameters:              platform.BouncerParameters{"pgbouncer": {"default_pool_size": "100"}},
		PreviousReplicasPerCell: 2, PreviousTarget: platform.BouncerTargetReplica,
		PreviousParameters: platform.BouncerParameters{"pgbouncer": {}},
		StartedAt:          &started, CreatedAt: bouncerTime(19, 23, 0), UpdatedAt: started,
		Actor:       &platform.Actor{ID: "u1", Type: "User", DisplayName: "Ada", AvatarURL: "https://example.com/a.png"},
		Bouncer:     platform.BouncerRef{ID: "bn0123456789", Name: "pool", CreatedAt: bouncerTime(0, 0, 0), UpdatedAt: bouncerTime(0, 0, 0)},
		SKU:         platform.BouncerSKU{Name: "PGB_20", DisplayName: "PGB-20", CPU: "1/4", RAM: 2 << 30, SortOrder: 30},
		PreviousSKU: platform.BouncerSKU{Name: "PGB_10", DisplayName: "PGB-10", CPU: "1/8", RAM: 1 << 30, SortOrder: 20},
	}
}

func bouncerList(item string) string {
	return `{"type": "list", "current_page": 2, "per_page": 1, "next_page": null, "next_page_url": null, "prev_page": 1, "prev_page_url": null, "data": [` + item + `]}`
}

func TestBouncersWire(t *testing.T) {
	t.Parallel()
	const branch = "/v1/organizations/acme/databases/pg%20db/branches/a%2Fb"
	const base = branch + "/bouncers"
	page := url.Values{"page": {"2"}, "per_page": {"1"}}
	ref := platform.BouncerParams{Organization: "acme", Database: "pg db", Branch: "a/b", Bouncer: "pool"}
	runMethodCases(t, []methodCase{
		{
			name: "List",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Bouncers.List(ctx, &platform.ListBouncersParams{Organization: "acme", Database: "pg db", Branch: "a/b", ListParams: platform.ListParams{Page: 2, PerPage: 1}})
			},
			status: 200, response: bouncerList(bouncerJSON), method: "GET", path: base, query: page,
			want: &platform.Page[platform.Bouncer]{Type: "list", CurrentPage: 2, PerPage: 1, PrevPage: platform.Ptr(1), Items: []*platform.Bouncer{wantBouncer()}},
		},
		{
			name: "Create with every field",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Bouncers.Create(ctx, &platform.CreateBouncerParams{
					Organization: "acme", Database: "pg db", Branch: "a/b", Name: "pool",
					Target: platform.Ptr(platform.BouncerTargetReplica), BouncerSize: platform.Ptr("PGB_10"), ReplicasPerCell: platform.Ptr(2),
				})
			},
			status: 200, response: bouncerJSON, method: "POST", path: base,
			body: `{"name": "pool", "target": "replica", "bouncer_size": "PGB_10", "replicas_per_cell": 2}`, want: wantBouncer(),
		},
		{
			name: "Create with the name only",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Bouncers.Create(ctx, &platform.CreateBouncerParams{Organization: "acme", Database: "pg db", Branch: "a/b", Name: "pool"})
			},
			status: 200, response: bouncerJSON, method: "POST", path: base, body: `{"name": "pool"}`, want: wantBouncer(),
		},
		{
			name: "Get",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Bouncers.Get(ctx, &ref)
			},
			status: 200, response: bouncerJSON, method: "GET", path: base + "/pool", want: wantBouncer(),
		},
		{
			name: "Delete",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return nil, c.Bouncers.Delete(ctx, &ref)
			},
			status: 204, method: "DELETE", path: base + "/pool",
		},
		{
			name: "ListResizes",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Bouncers.ListResizes(ctx, &platform.ListBouncerResizesParams{Organization: "acme", Database: "pg db", Branch: "a/b", Bouncer: "pool", ListParams: platform.ListParams{Page: 2, PerPage: 1}})
			},
			status: 200, response: bouncerList(bouncerResizeJSON), method: "GET", path: base + "/pool/resizes", query: page,
			want: &platform.Page[platform.BouncerResizeRequest]{Type: "list", CurrentPage: 2, PerPage: 1, PrevPage: platform.Ptr(1), Items: []*platform.BouncerResizeRequest{wantBouncerResize()}},
		},
		{
			name: "Resize with every field",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Bouncers.Resize(ctx, &platform.ResizeBouncerParams{
					Organization: "acme", Database: "pg db", Branch: "a/b", Bouncer: "pool",
					BouncerSize: platform.Ptr("PGB_20"), ReplicasPerCell: platform.Ptr(3), Target: platform.Ptr(platform.BouncerTargetPrimary),
					Parameters: platform.BouncerParameters{"pgbouncer": {"default_pool_size": "100"}},
				})
			},
			status: 200, response: bouncerResizeJSON, method: "PATCH", path: base + "/pool/resizes",
			body: `{"bouncer_size": "PGB_20", "replicas_per_cell": 3, "target": "primary", "parameters": {"pgbouncer": {"default_pool_size": "100"}}}`,
			want: wantBouncerResize(),
		},
		{
			name: "Resize with nothing",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Bouncers.Resize(ctx, &platform.ResizeBouncerParams{Organization: "acme", Database: "pg db", Branch: "a/b", Bouncer: "pool"})
			},
			status: 200, response: bouncerResizeJSON, method: "PATCH", path: base + "/pool/resizes", body: `{}`, want: wantBouncerResize(),
		},
		{
			name: "CancelResize",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return nil, c.Bouncers.CancelResize(ctx, &ref)
			},
			status: 204, method: "DELETE", path: base + "/pool/resizes",
		},
		{
			name: "ListBranchResizes",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Bouncers.ListBranchResizes(ctx, &platform.ListBranchBouncerResizesParams{Organization: "acme", Database: "pg db", Branch: "a/b", ListParams: platform.ListParams{Page: 2, PerPage: 1}})
			},
			status: 200, response: bouncerList(bouncerResizeJSON), method: "GET", path: branch + "/bouncer-resizes", query: page,
			want: &platform.Page[platform.BouncerResizeRequest]{Type: "list", CurrentPage: 2, PerPage: 1, PrevPage: platform.Ptr(1), Items: []*platform.BouncerResizeRequest{wantBouncerResize()}},
		},
	})
}

func TestBouncersArgs(t *testing.T) {
	t.Parallel()
	noBouncer := platform.BouncerParams{Organization: "acme", Database: "pg", Branch: "main"}
	runArgCases(t, []argCase{
		{"List without branch", "branch", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Bouncers.List(ctx, &platform.ListBouncersParams{Organization: "acme", Database: "pg"})
			return err
		}},
		{"Create without database", "database", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Bouncers.Create(ctx, &platform.CreateBouncerParams{Organization: "acme", Branch: "main", Name: "pool"})
			return err
		}},
		{"Get without bouncer", "bouncer", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Bouncers.Get(ctx, &noBouncer)
			return err
		}},
		{"Delete with nil params", "params", func(ctx context.Context, c *platform.Client) error {
			return c.Bouncers.Delete(ctx, nil)
		}},
		{"ListResizes without bouncer", "bouncer", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Bouncers.ListResizes(ctx, &platform.ListBouncerResizesParams{Organization: "acme", Database: "pg", Branch: "main"})
			return err
		}},
		{"Resize without bouncer", "bouncer", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Bouncers.Resize(ctx, &platform.ResizeBouncerParams{Organization: "acme", Database: "pg", Branch: "main"})
			return err
		}},
		{"CancelResize without bouncer", "bouncer", func(ctx context.Context, c *platform.Client) error {
			return c.Bouncers.CancelResize(ctx, &noBouncer)
		}},
		{"ListBranchResizes without organization", "organization", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Bouncers.ListBranchResizes(ctx, &platform.ListBranchBouncerResizesParams{Database: "pg", Branch: "main"})
			return err
		}},
		{"WaitResize without id", "id", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Bouncers.WaitResize(ctx, &platform.WaitBouncerResizeParams{Organization: "acme", Database: "pg", Branch: "main", Bouncer: "pool"})
			return err
		}},
	})
}

// newBouncerFake is a fake with the ready PostgreSQL database pg and a
// bouncer pool, just created, on its branch main.
func newBouncerFake(t *testing.T) (*fake.Server, *platform.Client, platform.BouncerParams) {
	t.Helper()
	srv := fake.NewServer(t)
	c := srv.Client()
	if _, err := c.Databases.Create(t.Context(), &platform.CreateDatabaseParams{Organization: srv.Org(), Name: "pg", Kind: platform.KindPostgreSQL}); err != nil {
		t.Fatal(err)
	}
	srv.Advance(time.Minute)
	if _, err := c.Bouncers.Create(t.Context(), &platform.CreateBouncerParams{Organization: srv.Org(), Database: "pg", Branch: "main", Name: "pool"}); err != nil {
		t.Fatal(err)
	}
	return srv, c, platform.BouncerParams{Organization: srv.Org(), Database: "pg", Branch: "main", Bouncer: "pool"}
}

func TestBouncersWaitFake(t *testing.T) {
	t.Parallel()
	srv, c, ref := newBouncerFake(t)
	// A bouncer whose name extends pool's is not mistaken for it.
	other := &platform.CreateBouncerParams{Organization: ref.Organization, Database: "pg", Branch: "main", Name: "pool-1"}
	start := srv.Now()
	srv.Advance(5 * time.Second)
	if _, err := c.Bouncers.Create(t.Context(), other); err != nil {
		t.Fatal(err)
	}
	b, err := c.Bouncers.Wait(t.Context(), &ref)
	if err != nil {
		t.Fatalf("Wait: %v", err)
	}
	if b.Name != "pool" {
		t.Errorf("Wait returned %s", b.Name)
	}
	if waited := srv.Now().Sub(start); waited < fake.DefaultTimings().BouncerReady {
		t.Errorf("Wait returned after %v, before the bouncer was ready", waited)
	}
	gone := ref
	gone.Bouncer = "nope"
	if _, err := c.Bouncers.Wait(t.Context(), &gone); !errors.Is(err, platform.ErrNotFound) {
		t.Errorf("Wait of a missing bouncer: %v, want ErrNotFound", err)
	}
}

func TestBouncersWaitResizeFake(t *testing.T) {
	t.Parallel()
	_, c, ref := newBouncerFake(t)
	ctx := t.Context()
	if _, err := c.Bouncers.Wait(ctx, &ref); err != nil {
		t.Fatal(err)
	}
	// resize asks for n servers per cell and returns the request's name.
	resize := func(n int) *platform.WaitBouncerResizeParams {
		r, err := c.Bouncers.Resize(ctx, &platform.ResizeBouncerParams{Organization: ref.Organization, Database: "pg", Branch: "main", Bouncer: "pool", ReplicasPerCell: platform.Ptr(n)})
		if err != nil {
			t.Fatal(err)
		}
		return &platform.WaitBouncerResizeParams{Organization: ref.Organization, Database: "pg", Branch: "main", Bouncer: "pool", ID: r.ID}
	}
	done, err := c.Bouncers.WaitResize(ctx, resize(2))
	if err != nil {
		t.Fatalf("WaitResize: %v", err)
	}
	if done.State != platform.BouncerResizeCompleted || done.Active() {
		t.Errorf("WaitResize returned state %s", done.State)
	}
	if b, err := c.Bouncers.Get(ctx, &ref); err != nil || b.ReplicasPerCell != 2 {
		t.Errorf("bouncer after WaitResize: %+v, %v", b, err)
	}

	// A request canceled meanwhile ends the wait.
	canceled := resize(3)
	if err := c.Bouncers.CancelResize(ctx, &ref); err != nil {
		t.Fatal(err)
	}
	_, err = c.Bouncers.WaitResize(ctx, canceled)
	var se *platform.StateError
	if !errors.As(err, &se) || se.State != "canceled" {
		t.Errorf("WaitResize of a canceled request: %v, want a *StateError in state canceled", err)
	}
	unknown := *canceled
	unknown.ID = "nope"
	if _, err := c.Bouncers.WaitResize(ctx, &unknown); !errors.Is(err, platform.ErrNotFound) {
		t.Errorf("WaitResize of an unknown request: %v, want ErrNotFound", err)
	}
}

// ExampleBouncersService_Resize adds a connection pooler to a PostgreSQL
// branch, waits for its servers, then gives it a bigger size and a larger
// pool and waits for the resize to complete.
func ExampleBouncersService_Resize() {
	srv, err := fake.New()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	client, ctx := srv.Client(), context.Background()
	if _, err := client.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: "acme", Name: "pg", Kind: platform.KindPostgreSQL}); err != nil {
		log.Fatal(err)
	}
	if _, err := client.Databases.Wait(ctx, &platform.GetDatabaseParams{Organization: "acme", Database: "pg"}); err != nil {
		log.Fatal(err)
	}

	pool := &platform.BouncerParams{Organization: "acme", Database: "pg", Branch: "main", Bouncer: "pool"}
	if _, err := client.Bouncers.Create(ctx, &platform.CreateBouncerParams{Organization: "acme", Database: "pg", Branch: "main", Name: "pool"}); err != nil {
		log.Fatal(err)
	}
	b, err := client.Bouncers.Wait(ctx, pool)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s ready: %s, %d per cell, to the %s\n", b.Name, b.SKU.Name, b.ReplicasPerCell, b.Target)

	r, err := client.Bouncers.Resize(ctx, &platform.ResizeBouncerParams{
		Organization: "acme", Database: "pg", Branch: "main", Bouncer: "pool",
		BouncerSize: platform.Ptr("PGB_20"),
		Parameters:  platform.BouncerParameters{"pgbouncer": {"default_pool_size": "50"}},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("resize %s -> %s: %s\n", r.PreviousSKU.Name, r.SKU.Name, r.State)
	r, err = client.Bouncers.WaitResize(ctx, &platform.WaitBouncerResizeParams{Organization: "acme", Database: "pg", Branch: "main", Bouncer: "pool", ID: r.ID})
	if err != nil {
		log.Fatal(err)
	}
	b, err = client.Bouncers.Get(ctx, pool)
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range b.Parameters {
		if p.Name == "default_pool_size" {
			fmt.Printf("resize %s: %s, default_pool_size %s\n", r.State, b.SKU.Name, p.Value)
		}
	}
	// Output:
	// pool ready: PGB_5, 1 per cell, to the primary
	// resize PGB_5 -> PGB_20: pending
	// resize completed: PGB_20, default_pool_size 50
}
