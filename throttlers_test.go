package platform_test

import (
	"context"
	"net/url"
	"testing"

	"github.com/dbplatform/platform-go"
)

// wireThrottlerJSON is a throttler configuration as the API sends it,
// written from the reference's schema.
const wireThrottlerJSON = `{"keyspaces": ["app", "extra"],
	"configurable": {"id": "db1", "name": "app", "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-02T00:00:00Z", "deleted_at": null},
	"configurations": [{"keyspace_name": "app", "ratio": 10}, {"keyspace_name": "extra", "ratio": 95}]}`

func wireThrottler() *platform.ThrottlerConfigurations {
	return &platform.ThrottlerConfigurations{
		Keyspaces: []string{"app", "extra"},
		Configurable: platform.ThrottlerConfigurable{
			ID: "db1", Name: "app", CreatedAt: backupTS("2026-01-01T00:00:00Z"), UpdatedAt: backupTS("2026-01-02T00:00:00Z"),
		},
		Configurations: []platform.ThrottlerConfiguration{{KeyspaceName: "app", Ratio: 10}, {KeyspaceName: "extra", Ratio: 95}},
	}
}

func TestThrottlersWire(t *testing.T) {
	t.Parallel()
	const db = "/v1/organizations/acme/databases/app%20db"
	org, name := "acme", "app db"
	runMethodCases(t, []methodCase{
		{
			name: "GetDatabase", status: 200, response: wireThrottlerJSON,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Throttlers.GetDatabase(ctx, &platform.GetDatabaseThrottlerParams{Organization: org, Database: name})
			},
			method: "GET", path: db + "/throttler", query: url.Values{}, want: wireThrottler(),
		},
		{
			name: "UpdateDatabase with a ratio", status: 200, response: wireThrottlerJSON,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Throttlers.UpdateDatabase(ctx, &platform.UpdateDatabaseThrottlerParams{Organization: org, Database: name,
					UpdateThrottlerFields: platform.UpdateThrottlerFields{Ratio: platform.Ptr(0)}})
			},
			method: "PATCH", path: db + "/throttler", query: url.Values{}, body: `{"ratio": 0}`, want: wireThrottler(),
		},
		{
			name: "UpdateDeployRequest by keyspace", status: 200, response: wireThrottlerJSON,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Throttlers.UpdateDeployRequest(ctx, &platform.UpdateDeployRequestThrottlerParams{Organization: org, Database: name, Number: 4,
					UpdateThrottlerFields: platform.UpdateThrottlerFields{Configurations: []platform.ThrottlerConfiguration{{KeyspaceName: "extra", Ratio: 95}}}})
			},
			method: "PATCH", path: db + "/deploy-requests/4/throttler", query: url.Values{},
			body: `{"configurations": [{"keyspace_name": "extra", "ratio": 95}]}`, want: wireThrottler(),
		},
		{
			name: "GetDeployRequest", status: 200, response: wireThrottlerJSON,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Throttlers.GetDeployRequest(ctx, &platform.GetDeployRequestThrottlerParams{Organization: org, Database: name, Number: 4})
			},
			method: "GET", path: db + "/deploy-requests/4/throttler", query: url.Values{}, want: wireThrottler(),
		},
	})
}

func TestThrottlersArgErrors(t *testing.T) {
	t.Parallel()
	runArgCases(t, []argCase{
		{"GetDatabase with nil params", "params", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Throttlers.GetDatabase(ctx, nil)
			return err
		}},
		{"UpdateDatabase without database", "database", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Throttlers.UpdateDatabase(ctx, &platform.UpdateDatabaseThrottlerParams{Organization: "acme"})
			return err
		}},
		{"GetDeployRequest without number", "number", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Throttlers.GetDeployRequest(ctx, &platform.GetDeployRequestThrottlerParams{Organization: "acme", Database: "db"})
			return err
		}},
		{"UpdateDeployRequest with nil params", "params", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Throttlers.UpdateDeployRequest(ctx, nil)
			return err
		}},
	})
}
