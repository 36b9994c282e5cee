package platform_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
	"github.com/google/go-cmp/cmp"
)

// TestVitessControlAgainstFake drives the routing rules and the throttler
// through the SDK: every typed result against the fake's answers.
func TestVitessControlAgainstFake(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	c, ctx := srv.Client(), t.Context()
	if _, err := c.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: "acme", Name: "shop", ClusterSize: "PS_10"}); err != nil {
		t.Fatal(err)
	}
	srv.Advance(time.Minute)
	if err := srv.AddKeyspace("acme", "shop", "main", "archive", 1); err != nil {
		t.Fatal(err)
	}
	bp := &platform.BranchParams{Organization: "acme", Database: "shop", Branch: "main"}
	if _, err := c.Branches.UpdateRoutingRules(ctx, &platform.UpdateRoutingRulesParams{Organization: "acme", Database: "shop", Branch: "main",
		RoutingRules: `{"rules":[{"from_table":"t","to_tables":["archive.t"]}]}`}); err != nil {
		t.Fatal(err)
	}
	rr, err := c.Vitess.GetRoutingRules(ctx, bp)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]platform.VitessRoutingRule{{FromTable: "t", ToTables: []string{"archive.t"}}}, rr.Rules); diff != "" {
		t.Errorf("routing rules (-want +got):\n%s", diff)
	}
	kr, err := c.Vitess.ApplyKeyspaceRoutingRules(ctx, &platform.ApplyKeyspaceRoutingRulesParams{Organization: "acme", Database: "shop", Branch: "main",
		Rules: []platform.KeyspaceRoutingRule{{FromKeyspace: "archive", ToKeyspace: "shop"}}, SkipRebuild: platform.Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.Vitess.GetKeyspaceRoutingRules(ctx, bp)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(kr.Rules, got.Rules); diff != "" || len(got.Rules) != 1 {
		t.Errorf("keyspace rules read back (-applied +read):\n%s", diff)
	}
	gs, err := c.Vitess.ListTablets(ctx, &platform.ListTabletsParams{Organization: "acme", Database: "shop", Branch: "main", Keyspace: "shop", TabletType: platform.TabletPrimary})
	if err != nil {
		t.Fatal(err)
	}
	primary := gs[0].Tablets[0].Alias
	if _, err := c.Vitess.UpdateThrottlerConfig(ctx, &platform.UpdateThrottlerConfigParams{Organization: "acme", Database: "shop", Branch: "main", Keyspace: "shop",
		Threshold: platform.Ptr(2.0), Apps: []platform.ThrottledAppConfig{{Name: "online-ddl", Ratio: platform.Ptr(0.25), ExpireAt: srv.Now().Add(time.Hour).Format(time.RFC3339)}}}); err != nil {
		t.Fatal(err)
	}
	st, err := c.Vitess.GetThrottlerStatus(ctx, &platform.GetThrottlerStatusParams{Organization: "acme", Database: "shop", Branch: "main", TabletAlias: primary})
	if err != nil {
		t.Fatal(err)
	}
	expires := srv.Now().Add(time.Hour).Truncate(time.Second).UTC()
	if diff := cmp.Diff([]platform.ThrottledApp{{Name: "online-ddl", Ratio: 0.25, ExpiresAt: &expires}}, st.ThrottledApps); diff != "" || !st.IsEnabled || st.DefaultThreshold != 2 {
		t.Errorf("status = %+v; throttled apps (-want +got):\n%s", st, diff)
	}
	if err := srv.SetThrottlerMetric("acme", "shop", "main", primary, "lag", 3); err != nil {
		t.Fatal(err)
	}
	chk, err := c.Vitess.CheckThrottler(ctx, &platform.CheckThrottlerParams{Organization: "acme", Database: "shop", Branch: "main", TabletAlias: primary, AppName: platform.Ptr("online-ddl")})
	if err != nil {
		t.Fatal(err)
	}
	alias, _ := platform.ParseTabletAlias(primary)
	if chk.OK || chk.ResponseCode != platform.ThrottlerCheckThresholdExceeded || chk.Value != 3 || chk.Threshold != 2 || chk.TabletAlias != alias || chk.Metrics["lag"].Scope != "shard" {
		t.Errorf("check = %+v; want lag 3 over 2 in the shard scope", chk)
	}
}

// TestVitessRoutingRulesDecode checks the typed results of documents in
// both shapes: Vitess's (rules nested) and the rules at the top, as the
// official client's fixtures show them, and an empty document.
func TestVitessRoutingRulesDecode(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, body string
		want       []platform.KeyspaceRoutingRule
	}{
		{"nested", `{"data":{"keyspace_routing_rules":{"rules":[{"from_keyspace":"a","to_keyspace":"b"}]}}}`, []platform.KeyspaceRoutingRule{{FromKeyspace: "a", ToKeyspace: "b"}}},
		{"at the top", `{"data":{"rules":[{"from_keyspace":"a","to_keyspace":"b"}]}}`, []platform.KeyspaceRoutingRule{{FromKeyspace: "a", ToKeyspace: "b"}}},
		{"empty", `{"data":{"keyspace_routing_rules":{}}}`, nil},
		{"no data", `{}`, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, tc.body) }))
			defer ts.Close()
			c, err := platform.NewClient(platform.WithBaseURL(ts.URL), platform.WithServiceToken("id", "secret"))
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.Vitess.GetKeyspaceRoutingRules(t.Context(), &platform.BranchParams{Organization: "o", Database: "d", Branch: "b"})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got.Rules); diff != "" {
				t.Errorf("rules (-want +got):\n%s", diff)
			}
			var env struct{ Data json.RawMessage }
			_ = json.Unmarshal([]byte(tc.body), &env)
			if string(got.Raw) != string(env.Data) {
				t.Errorf("Raw = %s, want %s", got.Raw, env.Data)
			}
		})
	}
}

// TestVitessDocumentsRefuseMalformedBodies: each Vitess document refuses a
// body that is not its envelope, and one whose document is not its shape,
// with an error (naming the document for the latter) rather than a value
// decoded in part.
func TestVitessDocumentsRefuseMalformedBodies(t *testing.T) {
	t.Parallel()
	enveloped := []string{`[1]`, `{"data":5}`}
	docs := []struct {
		name   string
		newDoc func() json.Unmarshaler
		bodies []string
	}{
		{"lookup vindex change", func() json.Unmarshaler { return new(platform.LookupVindexChange) }, enveloped},
		{"summary", func() json.Unmarshaler { return new(platform.VReplicationSummary) }, enveloped},
		{"workflow delete", func() json.Unmarshaler { return new(platform.WorkflowDelete) }, enveloped},
		{"workflow show", func() json.Unmarshaler { return new(platform.WorkflowShow) }, enveloped},
		// A MoveTables document that is not an object has no workflow.
		{"MoveTables workflow", func() json.Unmarshaler { return new(platform.MoveTablesWorkflow) }, []string{`[1]`, `{"data":{"workflows":5}}`}},
		{"MoveTables status", func() json.Unmarshaler { return new(platform.MoveTablesStatus) }, enveloped},
		{"routing rules", func() json.Unmarshaler { return new(platform.VitessRoutingRules) }, enveloped},
		{"keyspace routing rules", func() json.Unmarshaler { return new(platform.KeyspaceRoutingRules) }, enveloped},
		{"throttler status", func() json.Unmarshaler { return new(platform.ThrottlerStatus) }, enveloped},
		{"throttler check", func() json.Unmarshaler { return new(platform.ThrottlerCheck) }, enveloped},
		{"VDiff", func() json.Unmarshaler { return new(platform.VDiff) }, enveloped},
		{"workflows", func() json.Unmarshaler { return new(platform.VReplicationWorkflows) }, enveloped},
		{"workflow update", func() json.Unmarshaler { return new(platform.WorkflowUpdate) }, enveloped},
		// A workflow is an item of a document, not enveloped.
		{"workflow", func() json.Unmarshaler { return new(platform.VReplicationWorkflow) }, []string{`[1]`, `{"name":5}`}},
	}
	for _, d := range docs {
		for _, body := range d.bodies {
			v := d.newDoc()
			if err := json.Unmarshal([]byte(body), v); err == nil {
				t.Errorf("%s: %s decoded as %+v, want an error", d.name, body, v)
			}
		}
	}
	// A throttled app without an expiry has none.
	var open platform.ThrottlerStatus
	if err := json.Unmarshal([]byte(`{"data":{"status":{"throttled_apps":{"online-ddl":{"ratio":0.5}}}}}`), &open); err != nil ||
		len(open.ThrottledApps) != 1 || open.ThrottledApps[0].ExpiresAt != nil || open.ThrottledApps[0].Name != "online-ddl" {
		t.Errorf("an app without an expiry: %+v, %v", open.ThrottledApps, err)
	}
	// A throttled app's expiry whose seconds are not a whole number.
	var st platform.ThrottlerStatus
	err := json.Unmarshal([]byte(`{"data":{"status":{"throttled_apps":{"online-ddl":{"ratio":1,"expires_at":{"seconds":"1.5"}}}}}}`), &st)
	if err == nil || !strings.Contains(err.Error(), "throttled_apps.online-ddl.expires_at: seconds") {
		t.Errorf("a fractional expiry: %v, want an error naming throttled_apps.online-ddl.expires_at", err)
	}
}

// TestVitessReadsRefuseMalformedBodies: the Vitess operations that decode
// their document themselves answer an error naming the document, and no
// result, for a body whose document is not its shape (or for a shard whose
// primary term starts at a time that is not whole seconds), and the API's
// typed error, and no result, for a refusal.
func TestVitessReadsRefuseMalformedBodies(t *testing.T) {
	t.Parallel()
	type call func(context.Context, *platform.Client) (any, error)
	shard := func(ctx context.Context, c *platform.Client) (any, error) {
		return c.Vitess.GetShard(ctx, &platform.GetShardParams{Organization: "o", Database: "d", Branch: "b", Keyspace: "ks", Shard: "-"})
	}
	setShard := func(ctx context.Context, c *platform.Client) (any, error) {
		return c.Vitess.SetShardTabletControl(ctx, &platform.SetShardTabletControlParams{Organization: "o", Database: "d", Branch: "b", Keyspace: "ks", Shard: "-", TabletType: platform.TabletReplica})
	}
	keyspaces := func(ctx context.Context, c *platform.Client) (any, error) {
		return c.Vitess.ListKeyspaces(ctx, &platform.ListVitessKeyspacesParams{Organization: "o", Database: "d", Branch: "b"})
	}
	refresh := func(ctx context.Context, c *platform.Client) (any, error) {
		return c.Vitess.RefreshStateByShard(ctx, &platform.RefreshStateByShardParams{Organization: "o", Database: "d", Branch: "b", Keyspace: "ks", Shard: "-"})
	}
	createVDiff := func(ctx context.Context, c *platform.Client) (any, error) {
		return c.Vitess.CreateVDiff(ctx, &platform.CreateVDiffParams{Organization: "o", Database: "d", Branch: "b", Workflow: "w1", TargetKeyspace: "ks"})
	}
	listVDiffs := func(ctx context.Context, c *platform.Client) (any, error) {
		return c.Vitess.ListVDiffs(ctx, &platform.ListVDiffsParams{Organization: "o", Database: "d", Branch: "b", Workflow: "w1", TargetKeyspace: "ks"})
	}
	for _, tc := range []struct {
		name, body, want string
		call             call
	}{
		{"GetShard", `{"data":5}`, "platform: decoding shard", shard},
		{"GetShard, a fractional term start", `{"data":{"keyspace":"ks","name":"-","shard":{"primary_term_start_time":{"seconds":"1.5"}}}}`, "platform: decoding shard", shard},
		{"SetShardTabletControl", `{"data":5}`, "platform: decoding shard", setShard},
		{"SetShardTabletControl, a fractional term start", `{"data":{"shard":{"primary_term_start_time":{"seconds":"1.5"}}}}`, "platform: decoding shard", setShard},
		{"ListKeyspaces", `{"data":5}`, "platform: decoding keyspaces", keyspaces},
		{"ListKeyspaces, a keyspace not an object", `{"data":{"keyspaces":[5]}}`, "platform: decoding keyspaces", keyspaces},
		{"RefreshStateByShard", `{"data":5}`, "platform: decoding refresh state", refresh},
		{"CreateVDiff", `{"data":5}`, "platform: decoding VDiff", createVDiff},
		{"ListVDiffs", `{"data":5}`, "platform: decoding VDiff", listVDiffs},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWire(t, 200, tc.body)
			got, err := tc.call(t.Context(), w.client)
			if err == nil || !reflect.ValueOf(got).IsNil() || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%+v, %v; want no result and an error with %q", got, err, tc.want)
			}
			refused := newWire(t, 404, `{"code":"not_found","message":"no such branch"}`)
			got, err = tc.call(t.Context(), refused.client)
			if !errors.Is(err, platform.ErrNotFound) || !reflect.ValueOf(got).IsNil() {
				t.Errorf("refused: %+v, %v; want no result and ErrNotFound", got, err)
			}
		})
	}
}
