package platform_test

import (
	"context"
	"fmt"
	"log"
	"net/url"
	"testing"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// wireRecommendationJSON is a dismissed schema recommendation as the API
// sends it, written from the reference's schema.
const wireRecommendationJSON = `{"id": "rec1", "html_url": "https://app.example.com/acme/app/insights/recommendations/7",
	"title": "Drop index name of table tags", "table_name": "tags", "keyspace": "app",
	"ddl_statement": "ALTER TABLE tags DROP INDEX name", "number": 7, "state": "dismissed",
	"recommendation_type": "duplicate_index", "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-02T00:00:00Z",
	"applied_at": null, "dismissed_at": "2026-01-02T00:00:00Z",
	"closed_by_deploy_request": {"id": "dr1", "branch_id": "br1", "number": 3},
	"dismissed_by": {"id": "usr1", "display_name": "Ada", "avatar_url": "https://avatars.example.com/a"}}`

func wireRecommendation() *platform.SchemaRecommendation {
	return &platform.SchemaRecommendation{
		ID: "rec1", HTMLURL: "https://app.example.com/acme/app/insights/recommendations/7",
		Title: "Drop index name of table tags", TableName: "tags", Keyspace: "app",
		DDLStatement: "ALTER TABLE tags DROP INDEX name", Number: 7, State: platform.RecommendationDismissed,
		RecommendationType: platform.RecommendationDuplicateIndex,
		CreatedAt:          backupTS("2026-01-01T00:00:00Z"), UpdatedAt: backupTS("2026-01-02T00:00:00Z"),
		DismissedAt:           backupTSP("2026-01-02T00:00:00Z"),
		ClosedByDeployRequest: &platform.DeployRequestRef{ID: "dr1", BranchID: "br1", Number: 3},
		DismissedBy:           &platform.Actor{ID: "usr1", DisplayName: "Ada", AvatarURL: "https://avatars.example.com/a"},
	}
}

func TestSchemaRecommendationsWire(t *testing.T) {
	t.Parallel()
	const base = "/v1/organizations/acme/databases/app%20db/schema-recommendations"
	org, db := "acme", "app db"
	runMethodCases(t, []methodCase{
		{
			name: "List", status: 200, response: backupListJSON(wireRecommendationJSON),
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.SchemaRecommendations.List(ctx, &platform.ListSchemaRecommendationsParams{
					Organization: org, Database: db, State: platform.RecommendationClosed, ListParams: platform.ListParams{Page: 2, PerPage: 1},
				})
			},
			method: "GET", path: base, query: url.Values{"state": {"closed"}, "page": {"2"}, "per_page": {"1"}},
			want: wirePage(wireRecommendation()),
		},
		{
			name: "List without a state", status: 200, response: backupListJSON(wireRecommendationJSON),
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.SchemaRecommendations.List(ctx, &platform.ListSchemaRecommendationsParams{Organization: org, Database: db})
			},
			method: "GET", path: base, query: url.Values{}, want: wirePage(wireRecommendation()),
		},
		{
			name: "Get", status: 200, response: wireRecommendationJSON,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.SchemaRecommendations.Get(ctx, &platform.GetSchemaRecommendationParams{Organization: org, Database: db, Number: 7})
			},
			method: "GET", path: base + "/7", query: url.Values{}, want: wireRecommendation(),
		},
		{
			name: "Dismiss with a reason", status: 200, response: wireRecommendationJSON,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.SchemaRecommendations.Dismiss(ctx, &platform.DismissSchemaRecommendationParams{Organization: org, Database: db, Number: 7, Reason: platform.Ptr("on purpose")})
			},
			method: "POST", path: base + "/7/dismiss", query: url.Values{}, body: `{"reason": "on purpose"}`, want: wireRecommendation(),
		},
		{
			name: "Dismiss", status: 200, response: wireRecommendationJSON,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.SchemaRecommendations.Dismiss(ctx, &platform.DismissSchemaRecommendationParams{Organization: org, Database: db, Number: 7})
			},
			method: "POST", path: base + "/7/dismiss", query: url.Values{}, body: `{}`, want: wireRecommendation(),
		},
	})
}

func TestSchemaRecommendationsArgErrors(t *testing.T) {
	t.Parallel()
	runArgCases(t, []argCase{
		{"List with nil params", "params", func(ctx context.Context, c *platform.Client) error {
			_, err := c.SchemaRecommendations.List(ctx, nil)
			return err
		}},
		{"List without database", "database", func(ctx context.Context, c *platform.Client) error {
			_, err := c.SchemaRecommendations.List(ctx, &platform.ListSchemaRecommendationsParams{Organization: "acme"})
			return err
		}},
		{"Get without number", "number", func(ctx context.Context, c *platform.Client) error {
			_, err := c.SchemaRecommendations.Get(ctx, &platform.GetSchemaRecommendationParams{Organization: "acme", Database: "db"})
			return err
		}},
		{"Get with nil params", "params", func(ctx context.Context, c *platform.Client) error {
			_, err := c.SchemaRecommendations.Get(ctx, nil)
			return err
		}},
		{"Dismiss with a negative number", "number", func(ctx context.Context, c *platform.Client) error {
			_, err := c.SchemaRecommendations.Dismiss(ctx, &platform.DismissSchemaRecommendationParams{Organization: "acme", Database: "db", Number: -1})
			return err
		}},
		{"Dismiss without database", "database", func(ctx context.Context, c *platform.Client) error {
			_, err := c.SchemaRecommendations.Dismiss(ctx, &platform.DismissSchemaRecommendationParams{Organization: "acme", Number: 1})
			return err
		}},
	})
}

// ExampleSchemaRecommendationsService_All lists the advice on a database's
// production schema, then dismisses one piece of it.
func ExampleSchemaRecommendationsService_All() {
	srv, err := fake.New()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	client, ctx := srv.Client(), context.Background()
	if _, err := client.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: "acme", Name: "app"}); err != nil {
		log.Fatal(err)
	}
	if _, err := client.Databases.Wait(ctx, &platform.GetDatabaseParams{Organization: "acme", Database: "app"}); err != nil {
		log.Fatal(err)
	}
	// The schema a migration tool would have sent to main.
	if err := srv.PushSchema("acme", "app", "main",
		"CREATE TABLE users (id bigint NOT NULL, email varchar(255), PRIMARY KEY (id), KEY email (email), KEY email_id (email, id))",
		"CREATE TABLE events (payload json)"); err != nil {
		log.Fatal(err)
	}

	for r, err := range client.SchemaRecommendations.All(ctx, &platform.ListSchemaRecommendationsParams{Organization: "acme", Database: "app"}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("#%d %s: %s\n", r.Number, r.RecommendationType, r.DDLStatement)
	}
	r, err := client.SchemaRecommendations.Dismiss(ctx, &platform.DismissSchemaRecommendationParams{
		Organization: "acme", Database: "app", Number: 1, Reason: platform.Ptr("events is append-only"),
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("#1 is", r.State)
	// Output:
	// #1 new_index: ALTER TABLE `events` ADD COLUMN `id` bigint unsigned NOT NULL AUTO_INCREMENT PRIMARY KEY FIRST
	// #2 duplicate_index: ALTER TABLE `users` DROP INDEX `email`
	// #1 is dismissed
}
