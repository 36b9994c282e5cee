package platform_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// clusterSizeJSON is a cluster size as the API sends it, with rates,
// written from the reference's schema rather than from the SDK's types.
const clusterSizeJSON = `{"name": "PS_10", "display_name": "PS-10", "cpu": "1/8", "storage": null,
	"ram": 1073741824, "metal": false, "enabled": true, "provider": null, "default_vtgate": "VTG_5",
	"default_vtgate_rate": 0, "replica_rate": 13, "rate": 39, "sort_order": 20, "architecture": null,
	"development": true, "production": true}`

func wantClusterSizes() []*platform.ClusterSizeSKU {
	return []*platform.ClusterSizeSKU{{
		Name: "PS_10", DisplayName: "PS-10", CPU: "1/8", RAM: 1 << 30, Enabled: true, DefaultVTGate: "VTG_5",
		DefaultVTGateRate: platform.Ptr(0.0), ReplicaRate: platform.Ptr(13.0), Rate: platform.Ptr(39.0),
		SortOrder: 20, Development: true, Production: true,
	}}
}

func TestClusterSizesWire(t *testing.T) {
	t.Parallel()
	runMethodCases(t, []methodCase{
		{
			name: "List",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.ClusterSizes.List(ctx, &platform.ListClusterSizesParams{Organization: "acme"})
			},
			method: "GET", path: "/v1/organizations/acme/cluster-size-skus", query: url.Values{},
			status: 200, response: `[` + clusterSizeJSON + `]`, want: wantClusterSizes(),
		},
		{
			name: "List/every option",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.ClusterSizes.List(ctx, &platform.ListClusterSizesParams{
					Organization: "acme", Engine: platform.Ptr(platform.KindPostgreSQL), Rates: platform.Ptr(true),
					Region: platform.Ptr("eu-west"), Database: platform.Ptr("app db"),
				})
			},
			method: "GET", path: "/v1/organizations/acme/cluster-size-skus",
			query:  url.Values{"engine": {"postgresql"}, "rates": {"true"}, "region": {"eu-west"}, "database": {"app db"}},
			status: 200, response: `[` + clusterSizeJSON + `]`, want: wantClusterSizes(),
		},
		{
			name: "List/rates off is sent",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.ClusterSizes.List(ctx, &platform.ListClusterSizesParams{Organization: "acme", Rates: platform.Ptr(false)})
			},
			method: "GET", path: "/v1/organizations/acme/cluster-size-skus", query: url.Values{"rates": {"false"}},
			status: 200, response: `[]`, want: []*platform.ClusterSizeSKU{},
		},
		{
			// Whole currency units from this API; another service may send
			// decimals, which decode as well.
			name: "List/decimal prices",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.ClusterSizes.List(ctx, &platform.ListClusterSizesParams{Organization: "acme"})
			},
			method: "GET", path: "/v1/organizations/acme/cluster-size-skus", query: url.Values{},
			status: 200, response: `[{"name": "PS_5", "rate": 5, "replica_rate": 2.5, "default_vtgate_rate": 0.75}]`,
			want: []*platform.ClusterSizeSKU{{Name: "PS_5", Rate: platform.Ptr(5.0), ReplicaRate: platform.Ptr(2.5), DefaultVTGateRate: platform.Ptr(0.75)}},
		},
		{
			// A PostgreSQL size, fully qualified by provider and
			// architecture, as the official client decodes one.
			name: "List/postgresql=true",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.ClusterSizes.List(ctx, &platform.ListClusterSizesParams{Organization: "acme", PostgreSQL: platform.Ptr(true)})
			},
			method: "GET", path: "/v1/organizations/acme/cluster-size-skus", query: url.Values{"postgresql": {"true"}},
			status: 200, response: `[{"name": "PS_10_AWS_ARM", "display_name": "PS-10-AWS-ARM", "cpu": "1/8", "ram": 1073741824, "enabled": true,
				"provider": "aws", "architecture": "arm64", "rate": 36, "sort_order": 190, "development": true, "production": true}]`,
			want: []*platform.ClusterSizeSKU{{
				Name: "PS_10_AWS_ARM", DisplayName: "PS-10-AWS-ARM", CPU: "1/8", RAM: 1 << 30, Enabled: true,
				Provider: platform.Ptr("aws"), Architecture: platform.Ptr("arm64"), Rate: platform.Ptr(36.0), SortOrder: 190,
				Development: true, Production: true,
			}},
		},
		{
			name: "ListForBranch",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.ClusterSizes.ListForBranch(ctx, &platform.ListBranchClusterSizesParams{
					Organization: "acme", Database: "app-db", Branch: "a/b", Rates: platform.Ptr(true), Region: platform.Ptr("us-west"),
				})
			},
			method: "GET", path: "/v1/organizations/acme/databases/app-db/branches/a%2Fb/cluster-size-skus",
			query:  url.Values{"rates": {"true"}, "region": {"us-west"}},
			status: 200, response: `[` + clusterSizeJSON + `]`, want: wantClusterSizes(),
		},
	})
}

func TestClusterSizesArgErrors(t *testing.T) {
	t.Parallel()
	runArgCases(t, []argCase{
		{"List with nil params", "params", func(ctx context.Context, c *platform.Client) error {
			_, err := c.ClusterSizes.List(ctx, nil)
			return err
		}},
		{"ListForBranch without branch", "branch", func(ctx context.Context, c *platform.Client) error {
			_, err := c.ClusterSizes.ListForBranch(ctx, &platform.ListBranchClusterSizesParams{Organization: "acme", Database: "app-db"})
			return err
		}},
	})
}

// TestClusterSizesFake checks the behaviour a user relies on against the
// fake: the sizes a list offers are the sizes create accepts, and an
// unknown size is refused naming it.
func TestClusterSizesFake(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	c, ctx := srv.Client(), t.Context()
	skus, err := c.ClusterSizes.List(ctx, &platform.ListClusterSizesParams{Organization: srv.Org(), Engine: platform.Ptr(platform.KindPostgreSQL), Rates: platform.Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	if len(skus) == 0 || skus[0].Rate == nil {
		t.Fatalf("postgresql sizes with rates: %+v", skus)
	}
	// A PostgreSQL size runs on one provider (PS_1280_GCP_ARM on GCP): a
	// database of it is in one of that provider's regions.
	last := skus[len(skus)-1]
	if last.Provider == nil {
		t.Fatalf("the last PostgreSQL size, %s, names no provider", last.Name)
	}
	region := ""
	for r, err := range c.Regions.All(ctx, &platform.ListRegionsParams{}) {
		if err != nil {
			t.Fatal(err)
		}
		if strings.EqualFold(r.Provider, *last.Provider) {
			region = r.Slug
		}
	}
	if _, err := c.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: srv.Org(), Name: "pg", Kind: platform.KindPostgreSQL, ClusterSize: last.Name, Region: region}); err != nil {
		t.Fatalf("creating a database of the listed size %s in %s: %v", last.Name, region, err)
	}
	_, err = c.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: srv.Org(), Name: "bogus", ClusterSize: "PS_BOGUS"})
	var apiErr *platform.Error
	if !errors.Is(err, platform.ErrUnprocessable) || !errors.As(err, &apiErr) || apiErr.Message != `cluster_size "PS_BOGUS" is not a cluster size; list_cluster_size_skus lists the sizes` {
		t.Errorf("unknown size: %v", err)
	}
	srv.Advance(5 * time.Second)
	dev, err := c.ClusterSizes.ListForBranch(ctx, &platform.ListBranchClusterSizesParams{Organization: srv.Org(), Database: "pg", Branch: "main"})
	if err != nil || len(dev) == 0 || !dev[0].Production || dev[0].Rate != nil {
		t.Errorf("main's sizes without rates: %+v, %v", dev, err)
	}
}

// TestDevClusterSizeFake checks what the service's own command-line tool
// relies on: a development branch created with DevClusterSize runs on it,
// and a size written with a dash names the underscore size.
func TestDevClusterSizeFake(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	c, ctx, org := srv.Client(), t.Context(), srv.Org()
	if _, err := c.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: org, Name: "app", ClusterSize: "PS-20"}); err != nil {
		t.Fatal(err)
	}
	srv.Advance(5 * time.Second)
	for _, tc := range []struct{ branch, size, want string }{
		{"dev", platform.DevClusterSize, "PS_DEV"},
		{"bigger", "PS-10", "PS_10"},
	} {
		b, err := c.Branches.Create(ctx, &platform.CreateBranchParams{Organization: org, Database: "app", Name: tc.branch, ClusterSize: tc.size})
		if err != nil || b.ClusterName != tc.want {
			t.Errorf("branch of size %s: %+v, %v; want cluster %s", tc.size, b, err, tc.want)
		}
	}
	main, err := c.Branches.Get(ctx, &platform.GetBranchParams{Organization: org, Database: "app", Branch: "main"})
	if err != nil || main.ClusterName != "PS_20" {
		t.Errorf("main: %+v, %v; want cluster PS_20", main, err)
	}
}

// ExampleClusterSizesService_List picks a cluster size from the catalogue
// and creates a database of that size.
func ExampleClusterSizesService_List() {
	srv, err := fake.New()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	client, ctx := srv.Client(), context.Background()

	skus, err := client.ClusterSizes.List(ctx, &platform.ListClusterSizesParams{Organization: "acme", Rates: platform.Ptr(true)})
	if err != nil {
		log.Fatal(err)
	}
	var pick *platform.ClusterSizeSKU
	for _, s := range skus {
		if s.Production && s.RAM >= 4<<30 {
			pick = s
			break
		}
	}
	fmt.Printf("%s: %s CPU, %d GiB, $%.2f a month\n", pick.DisplayName, pick.CPU, pick.RAM>>30, *pick.Rate)

	db, err := client.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: "acme", Name: "shop", ClusterSize: pick.Name})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(db.Name, "created")

	_, err = client.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: "acme", Name: "typo", ClusterSize: "PS_BOGUS"})
	fmt.Println(errors.Is(err, platform.ErrUnprocessable))
	// Output:
	// PS-40: 1/2 CPU, 4 GiB, $99.00 a month
	// shop created
	// true
}
