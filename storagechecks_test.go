package platform_test

import (
	"context"
	"net/url"
	"testing"

	"github.com/dbplatform/platform-go"
)

func TestStorageCheckWire(t *testing.T) {
	t.Parallel()
	const response = `{"enough_storage": false, "upgradeable": true, "storage_bytes_needed": 300,
		"storage_report": {"app": {"-80": {"used": 700, "capacity": 1000, "remaining": 300, "percentage_used": 70.5,
			"storage_needed": 400, "has_enough": false}}}}`
	runMethodCases(t, []methodCase{{
		name: "CheckStorage", status: 200, response: response,
		call: func(ctx context.Context, c *platform.Client) (any, error) {
			return c.DeployRequests.CheckStorage(ctx, &platform.CheckDeployRequestStorageParams{Organization: "acme", Database: "app db", Number: 2})
		},
		method: "GET", path: "/v1/organizations/acme/databases/app%20db/deploy-requests/2/storage-check", query: url.Values{},
		want: &platform.StorageCheck{
			Upgradeable: true, StorageBytesNeeded: 300,
			StorageReport: map[string]map[string]*platform.ShardStorage{"app": {"-80": {
				Used: 700, Capacity: 1000, Remaining: 300, PercentageUsed: 70.5, StorageNeeded: 400,
			}}},
		},
	}})
	runArgCases(t, []argCase{
		{"CheckStorage without number", "number", func(ctx context.Context, c *platform.Client) error {
			_, err := c.DeployRequests.CheckStorage(ctx, &platform.CheckDeployRequestStorageParams{Organization: "acme", Database: "db"})
			return err
		}},
		{"CheckStorage with nil params", "params", func(ctx context.Context, c *platform.Client) error {
			_, err := c.DeployRequests.CheckStorage(ctx, nil)
			return err
		}},
	})
}
