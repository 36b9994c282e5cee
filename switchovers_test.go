package platform_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"log"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// wireSwitchoverJSON is a switchover as the API sends it, written from the
// reference's schema rather than from the SDK's types.
const wireSwitchoverJSON = `{"id": "sw1", "state": "succeeded", "method": "switchover", "error": null,
	"started_at": "2026-01-01T00:00:00Z", "completed_at": "2026-01-01T00:00:11Z",
	"created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:11Z",
	"actor": {"id": "usr1", "display_name": "Ada", "avatar_url": "https://avatars.example.com/a"}}`

func wireSwitchover() *platform.Switchover {
	return &platform.Switchover{
		ID: "sw1", State: platform.SwitchoverSucceeded, Method: platform.Ptr(platform.SwitchoverPromote),
		StartedAt: backupTSP("2026-01-01T00:00:00Z"), CompletedAt: backupTSP("2026-01-01T00:00:11Z"),
		CreatedAt: backupTS("2026-01-01T00:00:00Z"), UpdatedAt: backupTS("2026-01-01T00:00:11Z"),
		Actor: &platform.Actor{ID: "usr1", DisplayName: "Ada", AvatarURL: "https://avatars.example.com/a"},
	}
}

func TestSwitchoversWire(t *testing.T) {
	t.Parallel()
	const base = "/v1/organizations/acme/databases/app%20db/branches/main/switchovers"
	org, db, br := "acme", "app db", "main"
	runMethodCases(t, []methodCase{
		{
			name: "List", status: 200, response: backupListJSON(wireSwitchoverJSON),
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Switchovers.List(ctx, &platform.ListSwitchoversParams{Organization: org, Database: db, Branch: br, ListParams: platform.ListParams{Page: 2, PerPage: 1}})
			},
			method: "GET", path: base, query: url.Values{"page": {"2"}, "per_page": {"1"}},
			want: wirePage(wireSwitchover()),
		},
		{
			name: "Create with a candidate", status: 201, response: wireSwitchoverJSON,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Switchovers.Create(ctx, &platform.CreateSwitchoverParams{Organization: org, Database: db, Branch: br, Candidate: platform.Ptr("pg-1")})
			},
			method: "POST", path: base, query: url.Values{}, body: `{"candidate": "pg-1"}`, want: wireSwitchover(),
		},
		{
			name: "Create", status: 201, response: wireSwitchoverJSON,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Switchovers.Create(ctx, &platform.CreateSwitchoverParams{Organization: org, Database: db, Branch: br})
			},
			method: "POST", path: base, query: url.Values{}, body: `{}`, want: wireSwitchover(),
		},
		{
			name: "Get", status: 200, response: wireSwitchoverJSON,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Switchovers.Get(ctx, &platform.GetSwitchoverParams{Organization: org, Database: db, Branch: br, ID: "sw/1"})
			},
			method: "GET", path: base + "/sw%2F1", query: url.Values{}, want: wireSwitchover(),
		},
	})
}

func TestSwitchoversArgErrors(t *testing.T) {
	t.Parallel()
	runArgCases(t, []argCase{
		{"List with nil params", "params", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Switchovers.List(ctx, nil)
			return err
		}},
		{"Create without branch", "branch", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Switchovers.Create(ctx, &platform.CreateSwitchoverParams{Organization: "acme", Database: "db"})
			return err
		}},
		{"Get without id", "id", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Switchovers.Get(ctx, &platform.GetSwitchoverParams{Organization: "acme", Database: "db", Branch: "main"})
			return err
		}},
		{"Wait without id", "id", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Switchovers.Wait(ctx, &platform.GetSwitchoverParams{Organization: "acme", Database: "db", Branch: "main"})
			return err
		}},
	})
}

func TestSwitchoverStates(t *testing.T) {
	t.Parallel()
	for s, done := range map[platform.SwitchoverState]bool{
		platform.SwitchoverPending: false, platform.SwitchoverRunning: false,
		platform.SwitchoverSucceeded: true, platform.SwitchoverFailed: true, platform.SwitchoverCanceled: true,
		"new_state": false,
	} {
		if s.Done() != done {
			t.Errorf("%s.Done() = %v, want %v", s, !done, done)
		}
	}
}

// collectSeq gathers what an All method yields, failing on an error.
func collectSeq[T any](t *testing.T, seq iter.Seq2[*T, error]) []*T {
	t.Helper()
	var out []*T
	for v, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

// TestSwitchoversAgainstTheFake walks a switchover to its end through the
// SDK, and its refusal of a second one while it runs.
func TestSwitchoversAgainstTheFake(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	c, ctx, org := srv.Client(), t.Context(), srv.Org()
	if _, err := c.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: org, Name: "pg", Kind: platform.KindPostgreSQL}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Databases.Wait(ctx, &platform.GetDatabaseParams{Organization: org, Database: "pg"}); err != nil {
		t.Fatal(err)
	}
	sw, err := c.Switchovers.Create(ctx, &platform.CreateSwitchoverParams{Organization: org, Database: "pg", Branch: "main"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Switchovers.Create(ctx, &platform.CreateSwitchoverParams{Organization: org, Database: "pg", Branch: "main"})
	if !errors.Is(err, platform.ErrUnprocessable) {
		t.Errorf("second switchover: %v, want unprocessable", err)
	}
	done, err := c.Switchovers.Wait(ctx, &platform.GetSwitchoverParams{Organization: org, Database: "pg", Branch: "main", ID: sw.ID})
	if err != nil {
		t.Fatal(err)
	}
	all := collectSeq(t, c.Switchovers.All(ctx, &platform.ListSwitchoversParams{Organization: org, Database: "pg", Branch: "main", ListParams: platform.ListParams{PerPage: 1}}))
	if diff := cmp.Diff([]*platform.Switchover{done}, all); diff != "" {
		t.Errorf("All (-want +got):\n%s", diff)
	}
}

// ExampleSwitchoversService_Create moves a PostgreSQL branch's primary to
// one of its replicas and waits until it has moved.
func ExampleSwitchoversService_Create() {
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

	sw, err := client.Switchovers.Create(ctx, &platform.CreateSwitchoverParams{Organization: "acme", Database: "pg", Branch: "main"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("asked:", sw.State)
	sw, err = client.Switchovers.Wait(ctx, &platform.GetSwitchoverParams{Organization: "acme", Database: "pg", Branch: "main", ID: sw.ID})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("finished:", sw.State, "by", *sw.Method)
	// Output:
	// asked: pending
	// finished: succeeded by switchover
}
