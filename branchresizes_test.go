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

// resizeRequestJSON and changeRequestJSON are requests as the API sends
// them, written from the reference's schemas rather than from the SDK's
// types.
const (
	resizeRequestJSON = `{"id": "rsz012345678", "type": "BranchResizeRequest", "state": "resizing",
	"started_at": "2026-01-14T10:19:33.000Z", "completed_at": null,
	"created_at": "2026-01-14T10:19:23.000Z", "updated_at": "2026-01-14T10:19:33.000Z",
	"actor": {"id": "usr012345678", "display_name": "Ada", "avatar_url": "https://avatars.example.com/a"},
	"vtgate_size": "VTG_10", "previous_vtgate_size": "VTG_5", "vtgate_name": "VTG_10", "previous_vtgate_name": "VTG_5",
	"vtgate_display_name": "VTG-10", "previous_vtgate_display_name": "VTG-5",
	"vtgate_count": 2, "previous_vtgate_count": 1, "vtgate_max_count": 4, "previous_vtgate_max_count": 0,
	"vtgate_autoscaling": true, "previous_vtgate_autoscaling": false,
	"vtgate_target_cpu_utilization": 60, "previous_vtgate_target_cpu_utilization": 0}`
	changeRequestJSON = `{"id": "chg012345678", "type": "BranchChangeRequest", "state": "completed",
	"started_at": "2026-01-14T10:19:33.000Z", "completed_at": "2026-01-14T10:21:33.000Z",
	"created_at": "2026-01-14T10:19:23.000Z", "updated_at": "2026-01-14T10:21:33.000Z",
	"actor": {"id": "usr012345678", "display_name": "Ada", "avatar_url": "https://avatars.example.com/a"},
	"cluster_name": "PS_40", "previous_cluster_name": "PS_10", "cluster_display_name": "PS-40", "previous_cluster_display_name": "PS-10",
	"cluster_metal": false, "previous_cluster_metal": false, "replicas": 3, "previous_replicas": 2,
	"version": "17.5", "previous_version": "17.5",
	"parameters": {"pgconf": {"max_connections": "200"}}, "previous_parameters": {"pgconf": {"max_connections": "100"}},
	"minimum_storage_bytes": 10737418240, "previous_minimum_storage_bytes": 10737418240,
	"maximum_storage_bytes": 2199023255552, "previous_maximum_storage_bytes": 1099511627776,
	"storage_autoscaling": true, "previous_storage_autoscaling": true, "storage_shrinking": false, "previous_storage_shrinking": false,
	"storage_type": "gp3", "previous_storage_type": "gp3", "storage_iops": 6000, "previous_storage_iops": 3000,
	"storage_throughput_mibs": 125, "previous_storage_throughput_mibs": 125}`
)

var wireActor = &platform.Actor{ID: "usr012345678", DisplayName: "Ada", AvatarURL: "https://avatars.example.com/a"}

func wantResizeRequest(t *testing.T) *platform.BranchResizeRequest {
	return &platform.BranchResizeRequest{
		ID: "rsz012345678", Type: "BranchResizeRequest", State: platform.ChangeResizing,
		StartedAt: platform.Ptr(mustTimestamp(t, "2026-01-14T10:19:33.000Z")),
		CreatedAt: mustTimestamp(t, "2026-01-14T10:19:23.000Z"), UpdatedAt: mustTimestamp(t, "2026-01-14T10:19:33.000Z"),
		Actor: wireActor, VTGateSize: "VTG_10", PreviousVTGateSize: "VTG_5", VTGateName: "VTG_10", PreviousVTGateName: "VTG_5",
		VTGateDisplayName: "VTG-10", PreviousVTGateDisplayName: "VTG-5", VTGateCount: 2, PreviousVTGateCount: 1,
		VTGateMaxCount: 4, VTGateAutoscaling: true, VTGateTargetCPUUtilization: 60,
	}
}

func wantChangeRequest(t *testing.T) *platform.BranchChangeRequest {
	return &platform.BranchChangeRequest{
		ID: "chg012345678", Type: "BranchChangeRequest", State: platform.ChangeCompleted,
		StartedAt: platform.Ptr(mustTimestamp(t, "2026-01-14T10:19:33.000Z")), CompletedAt: platform.Ptr(mustTimestamp(t, "2026-01-14T10:21:33.000Z")),
		CreatedAt: mustTimestamp(t, "2026-01-14T10:19:23.000Z"), UpdatedAt: mustTimestamp(t, "2026-01-14T10:21:33.000Z"),
		Actor: wireActor, ClusterName: "PS_40", PreviousClusterName: "PS_10", ClusterDisplayName: "PS-40", PreviousClusterDisplayName: "PS-10",
		Replicas: 3, PreviousReplicas: 2, Version: "17.5", PreviousVersion: "17.5",
		Parameters:          map[platform.ParameterNamespace]map[string]string{platform.NamespacePgconf: {"max_connections": "200"}},
		PreviousParameters:  map[platform.ParameterNamespace]map[string]string{platform.NamespacePgconf: {"max_connections": "100"}},
		MinimumStorageBytes: 10 << 30, PreviousMinimumStorageBytes: 10 << 30, MaximumStorageBytes: 2 << 40, PreviousMaximumStorageBytes: 1 << 40,
		StorageAutoscaling: true, PreviousStorageAutoscaling: true, StorageType: "gp3", PreviousStorageType: "gp3",
		StorageIOPS: 6000, PreviousStorageIOPS: 3000, StorageThroughputMiBs: 125, PreviousStorageThroughputMiBs: 125,
	}
}

func TestBranchResizesWire(t *testing.T) {
	t.Parallel()
	const base = "/v1/organizations/acme/databases/app-db/branches/dev"
	page := func(item string) string {
		return `{"type": "list", "current_page": 2, "per_page": 5, "next_page": null, "next_page_url": null,
			"prev_page": 1, "prev_page_url": "https://api.example.com/prev", "data": [` + item + `]}`
	}
	list := platform.ListBranchResizeRequestsParams{Organization: "acme", Database: "app-db", Branch: "dev", ListParams: platform.ListParams{Page: 2, PerPage: 5}}
	runMethodCases(t, []methodCase{
		{
			name: "ListResizes",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				p, err := c.BranchChanges.ListResizes(ctx, &list)
				return p.Items, err
			},
			method: "GET", path: base + "/resizes", query: url.Values{"page": {"2"}, "per_page": {"5"}},
			status: 200, response: page(resizeRequestJSON), want: []*platform.BranchResizeRequest{wantResizeRequest(t)},
		},
		{
			name: "UpdateResize",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.BranchChanges.UpdateResize(ctx, &platform.UpdateBranchResizeRequestParams{
					Organization: "acme", Database: "app-db", Branch: "dev", VTGateSize: platform.Ptr("VTG_10"),
					VTGateCount: platform.Ptr(2), VTGateMaxCount: platform.Ptr(4), VTGateAutoscaling: platform.Ptr(true), VTGateTargetCPUUtilization: platform.Ptr(60),
				})
			},
			method: "PUT", path: base + "/resizes", query: url.Values{},
			body:   `{"vtgate_size":"VTG_10","vtgate_count":2,"vtgate_max_count":4,"vtgate_autoscaling":true,"vtgate_target_cpu_utilization":60}`,
			status: 200, response: resizeRequestJSON, want: wantResizeRequest(t),
		},
		{
			name: "UpdateResize with nothing to change",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				r, err := c.BranchChanges.UpdateResize(ctx, &platform.UpdateBranchResizeRequestParams{Organization: "acme", Database: "app-db", Branch: "dev"})
				if r != nil {
					return r, err
				}
				return nil, err
			},
			method: "PUT", path: base + "/resizes", query: url.Values{}, body: `{}`, status: 204,
		},
		{
			name: "GetResize",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.BranchChanges.GetResize(ctx, &platform.GetBranchResizeRequestParams{Organization: "acme", Database: "app-db", Branch: "dev", Resize: "rsz/1"})
			},
			method: "GET", path: base + "/resizes/rsz%2F1", query: url.Values{},
			status: 200, response: resizeRequestJSON, want: wantResizeRequest(t),
		},
		{
			name: "ListChanges",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				p, err := c.BranchChanges.ListChanges(ctx, &list)
				return p.Items, err
			},
			method: "GET", path: base + "/changes", query: url.Values{"page": {"2"}, "per_page": {"5"}},
			status: 200, response: page(changeRequestJSON), want: []*platform.BranchChangeRequest{wantChangeRequest(t)},
		},
		{
			name: "UpdateChange",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.BranchChanges.UpdateChange(ctx, &platform.UpdateBranchChangeRequestParams{
					Organization: "acme", Database: "app-db", Branch: "dev", ClusterSize: platform.Ptr("PS_40"), Replicas: platform.Ptr(3),
					Parameters: map[platform.ParameterNamespace]map[string]string{platform.NamespacePgconf: {"max_connections": "200"}},
					Storage:    &platform.BranchStorage{MaximumStorageBytes: platform.Ptr(int64(2 << 40)), StorageIOPS: platform.Ptr(6000)},
				})
			},
			method: "PATCH", path: base + "/changes", query: url.Values{},
			body:   `{"cluster_size":"PS_40","replicas":3,"parameters":{"pgconf":{"max_connections":"200"}},"storage":{"maximum_storage_bytes":2199023255552,"storage_iops":6000}}`,
			status: 200, response: changeRequestJSON, want: wantChangeRequest(t),
		},
		{
			name: "GetChange",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.BranchChanges.GetChange(ctx, &platform.GetBranchChangeRequestParams{Organization: "acme", Database: "app-db", Branch: "dev", ID: "chg012345678"})
			},
			method: "GET", path: base + "/changes/chg012345678", query: url.Values{},
			status: 200, response: changeRequestJSON, want: wantChangeRequest(t),
		},
		{
			name: "CancelChange",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return nil, c.BranchChanges.CancelChange(ctx, &platform.BranchParams{Organization: "acme", Database: "app-db", Branch: "dev"})
			},
			method: "DELETE", path: base + "/resizes", query: url.Values{}, status: 204,
		},
		{
			name: "CancelChanges",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return nil, c.BranchChanges.CancelChanges(ctx, &platform.BranchParams{Organization: "acme", Database: "app-db", Branch: "dev"})
			},
			method: "DELETE", path: base + "/changes", query: url.Values{}, status: 204,
		},
		{
			name: "UpdateClusterConfig",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return nil, c.BranchChanges.UpdateClusterConfig(ctx, &platform.UpdateClusterConfigParams{Organization: "acme", Database: "app-db", Branch: "dev", ClusterSize: "PS_40"})
			},
			method: "PATCH", path: base + "/cluster", query: url.Values{}, body: `{"cluster_size":"PS_40"}`, status: 204,
		},
	})
}

func TestBranchResizesArgErrors(t *testing.T) {
	t.Parallel()
	runArgCases(t, []argCase{
		{"ListResizes without branch", "branch", func(ctx context.Context, c *platform.Client) error {
			_, err := c.BranchChanges.ListResizes(ctx, &platform.ListBranchResizeRequestsParams{Organization: "acme", Database: "app-db"})
			return err
		}},
		{"ListChanges with a bad page", "page", func(ctx context.Context, c *platform.Client) error {
			_, err := c.BranchChanges.ListChanges(ctx, &platform.ListBranchChangeRequestsParams{Organization: "acme", Database: "app-db", Branch: "dev", ListParams: platform.ListParams{Page: -1}})
			return err
		}},
		{"UpdateResize with nil params", "params", func(ctx context.Context, c *platform.Client) error {
			_, err := c.BranchChanges.UpdateResize(ctx, nil)
			return err
		}},
		{"GetResize without resize", "resize", func(ctx context.Context, c *platform.Client) error {
			_, err := c.BranchChanges.GetResize(ctx, &platform.GetBranchResizeRequestParams{Organization: "acme", Database: "app-db", Branch: "dev"})
			return err
		}},
		{"UpdateChange without database", "database", func(ctx context.Context, c *platform.Client) error {
			_, err := c.BranchChanges.UpdateChange(ctx, &platform.UpdateBranchChangeRequestParams{Organization: "acme", Branch: "dev"})
			return err
		}},
		{"GetChange without id", "id", func(ctx context.Context, c *platform.Client) error {
			_, err := c.BranchChanges.GetChange(ctx, &platform.GetBranchChangeRequestParams{Organization: "acme", Database: "app-db", Branch: "dev"})
			return err
		}},
		{"CancelChange without branch", "branch", func(ctx context.Context, c *platform.Client) error {
			return c.BranchChanges.CancelChange(ctx, &platform.BranchParams{Organization: "acme", Database: "app-db"})
		}},
		{"CancelChanges without branch", "branch", func(ctx context.Context, c *platform.Client) error {
			return c.BranchChanges.CancelChanges(ctx, &platform.BranchParams{Organization: "acme", Database: "app-db"})
		}},
		{"UpdateClusterConfig without size", "cluster_size", func(ctx context.Context, c *platform.Client) error {
			return c.BranchChanges.UpdateClusterConfig(ctx, &platform.UpdateClusterConfigParams{Organization: "acme", Database: "app-db", Branch: "dev"})
		}},
	})
}

// TestWaitChange waits on the fake's clock: the waiter's sleeps move it,
// so a change of several minutes completes at once.
func TestWaitChange(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	c, ctx := srv.Client(), t.Context()
	if _, err := c.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: srv.Org(), Name: "pg", Kind: platform.KindPostgreSQL}); err != nil {
		t.Fatal(err)
	}
	srv.Advance(time.Minute)
	r, err := c.BranchChanges.UpdateChange(ctx, &platform.UpdateBranchChangeRequestParams{Organization: srv.Org(), Database: "pg", Branch: "main", ClusterSize: platform.Ptr("PS_40")})
	if err != nil {
		t.Fatal(err)
	}
	get := &platform.GetBranchChangeRequestParams{Organization: srv.Org(), Database: "pg", Branch: "main", ID: r.ID}
	got, err := c.BranchChanges.WaitChange(ctx, get)
	if err != nil || got.State != platform.ChangeCompleted {
		t.Fatalf("WaitChange = %+v, %v; want completed", got, err)
	}
	tm := fake.DefaultTimings()
	if took := got.CompletedAt.Sub(r.CreatedAt.Time); took != tm.BranchChangeStart+tm.BranchChangeRun {
		t.Errorf("completed after %v, want %v", took, tm.BranchChangeStart+tm.BranchChangeRun)
	}

	// A canceled request ends the wait with a StateError.
	r, err = c.BranchChanges.UpdateChange(ctx, &platform.UpdateBranchChangeRequestParams{Organization: srv.Org(), Database: "pg", Branch: "main", ClusterSize: platform.Ptr("PS_80")})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.BranchChanges.CancelChange(ctx, &platform.BranchParams{Organization: srv.Org(), Database: "pg", Branch: "main"}); err != nil {
		t.Fatal(err)
	}
	get.ID = r.ID
	_, err = c.BranchChanges.WaitChange(ctx, get)
	var se *platform.StateError
	if !errors.As(err, &se) || se.State != string(platform.ChangeCanceled) || se.Resource != "change request "+r.ID {
		t.Errorf("WaitChange on a canceled request: %v", err)
	}
}

// ExampleBranchChangesService_UpdateChange raises a PostgreSQL branch's
// connection limit and cluster size, and waits for the change.
func ExampleBranchChangesService_UpdateChange() {
	srv, err := fake.New()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	client, ctx := srv.Client(), context.Background()
	if _, err := client.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: "acme", Name: "pg", Kind: platform.KindPostgreSQL}); err != nil {
		log.Fatal(err)
	}
	srv.Advance(time.Minute)

	change, err := client.BranchChanges.UpdateChange(ctx, &platform.UpdateBranchChangeRequestParams{
		Organization: "acme", Database: "pg", Branch: "main",
		ClusterSize: platform.Ptr("PS_40_AWS_X86"), // us-east, the default region, is on AWS
		Parameters:  map[platform.ParameterNamespace]map[string]string{platform.NamespacePgconf: {"max_connections": "400"}},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %s -> %s\n", change.State, change.PreviousClusterName, change.ClusterName)
	done, err := client.BranchChanges.WaitChange(ctx, &platform.GetBranchChangeRequestParams{Organization: "acme", Database: "pg", Branch: "main", ID: change.ID})
	if err != nil {
		log.Fatal(err)
	}
	branch, err := client.Branches.Get(ctx, &platform.GetBranchParams{Organization: "acme", Database: "pg", Branch: "main"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s after %s; main runs %s\n", done.State, done.CompletedAt.Sub(done.CreatedAt.Time), branch.ClusterName)
	// Output:
	// queued: PS_10_AWS_X86 -> PS_40_AWS_X86
	// completed after 2m10s; main runs PS_40_AWS_X86
}

func TestBranchChangeStateDone(t *testing.T) {
	t.Parallel()
	for s, done := range map[platform.BranchChangeState]bool{
		platform.ChangeQueued: false, platform.ChangePending: false, platform.ChangeResizing: false,
		platform.ChangeCompleted: true, platform.ChangeCanceled: true,
	} {
		if s.Done() != done {
			t.Errorf("%s.Done() = %v, want %v", s, s.Done(), done)
		}
	}
}
