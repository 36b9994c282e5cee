package platform_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/url"
	"testing"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// wireScheduleJSON is a maintenance schedule as the API sends it, written
// from the reference's schema rather than from the SDK's types.
const wireScheduleJSON = `{"id": "mnt1", "name": "Weekly maintenance", "created_at": "2026-01-01T00:00:00Z",
	"updated_at": "2026-01-02T00:00:00Z", "last_window_datetime": "2026-01-04T03:00:00Z",
	"next_window_datetime": "2026-01-11T03:00:00Z", "duration": 2, "day": 0, "hour": 3, "week": 0,
	"frequency_value": 1, "frequency_unit": "week", "enabled": true, "expires_at": null, "deadline_at": null,
	"required": false, "pending_vitess_version_update": true, "pending_vitess_version": "v22",
	"pending_mysql_version_update": false, "pending_mysql_version": null}`

func wireSchedule() *platform.MaintenanceSchedule {
	return &platform.MaintenanceSchedule{
		ID: "mnt1", Name: "Weekly maintenance", CreatedAt: backupTS("2026-01-01T00:00:00Z"), UpdatedAt: backupTS("2026-01-02T00:00:00Z"),
		LastWindowDatetime: backupTS("2026-01-04T03:00:00Z"), NextWindowDatetime: backupTS("2026-01-11T03:00:00Z"),
		Duration: 2, Hour: 3, FrequencyValue: 1, FrequencyUnit: platform.MaintenanceWeekly, Enabled: true,
		PendingVitessVersionUpdate: true, PendingVitessVersion: platform.Ptr("v22"),
	}
}

const wireWindowJSON = `{"id": "win1", "created_at": "2026-01-04T03:00:00Z", "updated_at": "2026-01-04T03:01:00Z",
	"started_at": "2026-01-04T03:00:00Z", "finished_at": null}`

func wireWindow() *platform.MaintenanceWindow {
	return &platform.MaintenanceWindow{
		ID: "win1", CreatedAt: backupTS("2026-01-04T03:00:00Z"), UpdatedAt: backupTS("2026-01-04T03:01:00Z"),
		StartedAt: backupTSP("2026-01-04T03:00:00Z"),
	}
}

// wirePage is the page of backupListJSON holding item.
func wirePage[T any](item *T) *platform.Page[T] {
	return &platform.Page[T]{
		Type: "list", CurrentPage: 2, PerPage: 1, NextPage: platform.Ptr(3), PrevPage: platform.Ptr(1),
		NextPageURL: platform.Ptr("https://api.example.com/next"), PrevPageURL: platform.Ptr("https://api.example.com/prev"),
		Items: []*T{item},
	}
}

func TestMaintenanceWire(t *testing.T) {
	t.Parallel()
	const base = "/v1/organizations/acme/databases/app%20db"
	org, db := "acme", "app db"
	second := platform.ListParams{Page: 2, PerPage: 1}
	runMethodCases(t, []methodCase{
		{
			name: "Run", status: 204,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return nil, c.Maintenance.Run(ctx, &platform.RunBranchMaintenanceParams{Organization: org, Database: db, Branch: "main", UpdatePostgresMinorVersion: platform.Ptr(true)})
			},
			method: "POST", path: base + "/branches/main/maintenance", query: url.Values{}, body: `{"update_postgres_minor_version": true}`,
		},
		{
			name: "ListSchedules", status: 200, response: backupListJSON(wireScheduleJSON),
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Maintenance.ListSchedules(ctx, &platform.ListMaintenanceSchedulesParams{Organization: org, Database: db, ListParams: second})
			},
			method: "GET", path: base + "/maintenance-schedules", query: url.Values{"page": {"2"}, "per_page": {"1"}}, want: wirePage(wireSchedule()),
		},
		{
			name: "GetSchedule", status: 200, response: wireScheduleJSON,
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Maintenance.GetSchedule(ctx, &platform.GetMaintenanceScheduleParams{Organization: org, Database: db, ID: "mnt1"})
			},
			method: "GET", path: base + "/maintenance-schedules/mnt1", query: url.Values{}, want: wireSchedule(),
		},
		{
			name: "ListWindows", status: 200, response: backupListJSON(wireWindowJSON),
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Maintenance.ListWindows(ctx, &platform.ListMaintenanceWindowsParams{Organization: org, Database: db, ID: "mnt1", ListParams: second})
			},
			method: "GET", path: base + "/maintenance-schedules/mnt1/windows", query: url.Values{"page": {"2"}, "per_page": {"1"}}, want: wirePage(wireWindow()),
		},
	})
}

func TestMaintenanceArgErrors(t *testing.T) {
	t.Parallel()
	runArgCases(t, []argCase{
		{"Run without branch", "branch", func(ctx context.Context, c *platform.Client) error {
			return c.Maintenance.Run(ctx, &platform.RunBranchMaintenanceParams{Organization: "acme", Database: "db"})
		}},
		{"ListSchedules with nil params", "params", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Maintenance.ListSchedules(ctx, nil)
			return err
		}},
		{"GetSchedule without id", "id", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Maintenance.GetSchedule(ctx, &platform.GetMaintenanceScheduleParams{Organization: "acme", Database: "db"})
			return err
		}},
		{"ListWindows without database", "database", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Maintenance.ListWindows(ctx, &platform.ListMaintenanceWindowsParams{Organization: "acme", ID: "mnt1"})
			return err
		}},
		{"WaitSchedule with nil params", "params", func(ctx context.Context, c *platform.Client) error {
			_, err := c.Maintenance.WaitSchedule(ctx, nil)
			return err
		}},
	})
}

// TestMaintenanceAgainstTheFake runs maintenance through the SDK: a second
// run while one runs is refused, and WaitSchedule returns once it has ended.
func TestMaintenanceAgainstTheFake(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	c, ctx, org := srv.Client(), t.Context(), srv.Org()
	if _, err := c.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: org, Name: "pg", Kind: platform.KindPostgreSQL}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Databases.Wait(ctx, &platform.GetDatabaseParams{Organization: org, Database: "pg"}); err != nil {
		t.Fatal(err)
	}
	run := &platform.RunBranchMaintenanceParams{Organization: org, Database: "pg", Branch: "main"}
	if err := c.Maintenance.Run(ctx, run); err != nil {
		t.Fatal(err)
	}
	if err := c.Maintenance.Run(ctx, run); !errors.Is(err, platform.ErrUnprocessable) {
		t.Errorf("second run: %v, want unprocessable", err)
	}
	schedules := collectSeq(t, c.Maintenance.AllSchedules(ctx, &platform.ListMaintenanceSchedulesParams{Organization: org, Database: "pg"}))
	if len(schedules) != 1 {
		t.Fatalf("%d schedules, want 1", len(schedules))
	}
	windows := &platform.ListMaintenanceWindowsParams{Organization: org, Database: "pg", ID: schedules[0].ID}
	if ws := collectSeq(t, c.Maintenance.AllWindows(ctx, windows)); len(ws) != 1 || !ws[0].Running() {
		t.Fatalf("windows %+v, want one running", ws)
	}
	if _, err := c.Maintenance.WaitSchedule(ctx, &platform.GetMaintenanceScheduleParams{Organization: org, Database: "pg", ID: schedules[0].ID}); err != nil {
		t.Fatal(err)
	}
	if ws := collectSeq(t, c.Maintenance.AllWindows(ctx, windows)); len(ws) != 1 || ws[0].Running() {
		t.Fatalf("windows %+v, want one finished", ws)
	}
}

// ExampleMaintenanceService_Run runs maintenance of a PostgreSQL branch now
// and waits until its window has finished.
func ExampleMaintenanceService_Run() {
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
	page, err := client.Maintenance.ListSchedules(ctx, &platform.ListMaintenanceSchedulesParams{Organization: "acme", Database: "pg"})
	if err != nil {
		log.Fatal(err)
	}
	schedule := page.Items[0]
	fmt.Printf("%s: every %d %s, %d hours\n", schedule.Name, schedule.FrequencyValue, schedule.FrequencyUnit, schedule.Duration)

	if err := client.Maintenance.Run(ctx, &platform.RunBranchMaintenanceParams{Organization: "acme", Database: "pg", Branch: "main"}); err != nil {
		log.Fatal(err)
	}
	if _, err := client.Maintenance.WaitSchedule(ctx, &platform.GetMaintenanceScheduleParams{Organization: "acme", Database: "pg", ID: schedule.ID}); err != nil {
		log.Fatal(err)
	}
	for w, err := range client.Maintenance.AllWindows(ctx, &platform.ListMaintenanceWindowsParams{Organization: "acme", Database: "pg", ID: schedule.ID}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("window took", w.FinishedAt.Sub(w.StartedAt.Time))
	}
	// Output:
	// Weekly maintenance: every 1 week, 2 hours
	// window took 1m0s
}
