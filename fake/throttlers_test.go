package fake_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
)

// ratiosOf lists configurations as keyspace:ratio pairs.
func ratiosOf(confs []platform.ThrottlerConfiguration) map[string]int {
	out := map[string]int{}
	for _, c := range confs {
		out[c.KeyspaceName] = c.Ratio
	}
	return out
}

func TestDatabaseThrottler(t *testing.T) {
	t.Parallel()
	e := newDREnv(t, true) // main: keyspaces app and sharded
	ctx := t.Context()
	get := func() *platform.ThrottlerConfigurations {
		t.Helper()
		tc, err := e.c.Throttlers.GetDatabase(ctx, &platform.GetDatabaseThrottlerParams{Organization: e.org, Database: drDB})
		if err != nil {
			t.Fatal(err)
		}
		return tc
	}
	tc := get()
	db, err := e.c.Databases.Get(ctx, &platform.GetDatabaseParams{Organization: e.org, Database: drDB})
	if err != nil {
		t.Fatal(err)
	}
	want := &platform.ThrottlerConfigurations{
		Keyspaces:      []string{"app", "sharded"},
		Configurable:   platform.ThrottlerConfigurable{ID: db.ID, Name: drDB, CreatedAt: db.CreatedAt, UpdatedAt: db.UpdatedAt},
		Configurations: []platform.ThrottlerConfiguration{{KeyspaceName: "app"}, {KeyspaceName: "sharded"}},
	}
	if diff := cmp.Diff(want, tc); diff != "" {
		t.Errorf("the default (-want +got):\n%s", diff)
	}

	update := func(f platform.UpdateThrottlerFields) (*platform.ThrottlerConfigurations, error) {
		return e.c.Throttlers.UpdateDatabase(ctx, &platform.UpdateDatabaseThrottlerParams{Organization: e.org, Database: drDB, UpdateThrottlerFields: f})
	}
	steps := []struct {
		f    platform.UpdateThrottlerFields
		want map[string]int
	}{
		{platform.UpdateThrottlerFields{Ratio: platform.Ptr(30)}, map[string]int{"app": 30, "sharded": 30}},
		{platform.UpdateThrottlerFields{Configurations: []platform.ThrottlerConfiguration{{KeyspaceName: "sharded", Ratio: 95}}}, map[string]int{"app": 30, "sharded": 95}},
		{platform.UpdateThrottlerFields{Ratio: platform.Ptr(0), Configurations: []platform.ThrottlerConfiguration{{KeyspaceName: "app", Ratio: 5}}}, map[string]int{"app": 5, "sharded": 0}},
		{platform.UpdateThrottlerFields{}, map[string]int{"app": 5, "sharded": 0}},
	}
	for i, st := range steps {
		got, err := update(st.f)
		if err != nil {
			t.Fatalf("update %d: %v", i, err)
		}
		if diff := cmp.Diff(st.want, ratiosOf(got.Configurations)); diff != "" {
			t.Errorf("update %d (-want +got):\n%s", i, diff)
		}
		if diff := cmp.Diff(got, get()); diff != "" {
			t.Errorf("get after update %d (-update +get):\n%s", i, diff)
		}
	}

	for _, tc := range []struct {
		name  string
		f     platform.UpdateThrottlerFields
		words []string
	}{
		{"a ratio below 0", platform.UpdateThrottlerFields{Ratio: platform.Ptr(-1)}, []string{"ratio", "0 and 95", "-1"}},
		{"a ratio above 95", platform.UpdateThrottlerFields{Ratio: platform.Ptr(96)}, []string{"ratio", "96"}},
		{"a keyspace ratio above 95", platform.UpdateThrottlerFields{Ratio: platform.Ptr(10), Configurations: []platform.ThrottlerConfiguration{{KeyspaceName: "app", Ratio: 100}}},
			[]string{"configurations[0].ratio", "100"}},
		{"no keyspace name", platform.UpdateThrottlerFields{Configurations: []platform.ThrottlerConfiguration{{Ratio: 10}}}, []string{"configurations[0].keyspace_name", "required"}},
		{"an unknown keyspace", platform.UpdateThrottlerFields{Configurations: []platform.ThrottlerConfiguration{{KeyspaceName: "app", Ratio: 1}, {KeyspaceName: "nope", Ratio: 10}}},
			[]string{"configurations[1].keyspace_name", `"nope"`, "app, sharded"}},
		{"a keyspace named twice", platform.UpdateThrottlerFields{Configurations: []platform.ThrottlerConfiguration{{KeyspaceName: "app", Ratio: 1}, {KeyspaceName: "app", Ratio: 2}}},
			[]string{"configurations[1].keyspace_name", "twice"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := opWorldState(t, e.srv)
			_, err := update(tc.f)
			apiError(t, err, 422, tc.words...)
			if diff := worldStateDiff(t, before, opWorldState(t, e.srv)); diff != "" {
				t.Errorf("a refused update changed the world (-before +after):\n%s", diff)
			}
		})
	}
	_, err = e.c.Throttlers.GetDatabase(ctx, &platform.GetDatabaseThrottlerParams{Organization: e.org, Database: "nope"})
	apiError(t, err, 404)
}

// TestDeployRequestThrottler: a deploy request's ratios are its own where
// set, else its database's; its deployment shows them; once closed it
// keeps them and refuses changes.
func TestDeployRequestThrottler(t *testing.T) {
	t.Parallel()
	e := newDREnv(t, true)
	e.branch("dev", drChange...)
	ctx := t.Context()
	dr := e.open(platform.CreateDeployRequestParams{Branch: "dev"})
	p := e.params(dr.Number)
	get := func() map[string]int {
		t.Helper()
		tc, err := e.c.Throttlers.GetDeployRequest(ctx, &p)
		if err != nil {
			t.Fatal(err)
		}
		if tc.Configurable.ID != dr.ID || tc.Configurable.Name != "dev" || !cmp.Equal(tc.Keyspaces, []string{"app", "sharded"}) {
			t.Errorf("configurable %+v, keyspaces %v", tc.Configurable, tc.Keyspaces)
		}
		got := ratiosOf(tc.Configurations)
		// The deployment shows the same.
		shown := e.get(dr.Number).Deployment.ThrottlerConfigurations
		var conf []platform.ThrottlerConfiguration
		for _, c := range shown["configurations"].([]any) {
			m := c.(map[string]any)
			conf = append(conf, platform.ThrottlerConfiguration{KeyspaceName: m["keyspace_name"].(string), Ratio: int(m["ratio"].(float64))})
		}
		if diff := cmp.Diff(got, ratiosOf(conf)); diff != "" {
			t.Errorf("the deployment's throttler_configurations (-throttler +deployment):\n%s", diff)
		}
		return got
	}
	setDB := func(ratio int) {
		t.Helper()
		if _, err := e.c.Throttlers.UpdateDatabase(ctx, &platform.UpdateDatabaseThrottlerParams{Organization: e.org, Database: drDB,
			UpdateThrottlerFields: platform.UpdateThrottlerFields{Ratio: platform.Ptr(ratio)}}); err != nil {
			t.Fatal(err)
		}
	}
	updateDR := func(f platform.UpdateThrottlerFields) error {
		_, err := e.c.Throttlers.UpdateDeployRequest(ctx, &platform.UpdateDeployRequestThrottlerParams{Organization: e.org, Database: drDB, Number: dr.Number, UpdateThrottlerFields: f})
		return err
	}
	if diff := cmp.Diff(map[string]int{"app": 0, "sharded": 0}, get()); diff != "" {
		t.Errorf("default (-want +got):\n%s", diff)
	}
	setDB(20)
	if diff := cmp.Diff(map[string]int{"app": 20, "sharded": 20}, get()); diff != "" {
		t.Errorf("the database's (-want +got):\n%s", diff)
	}
	if err := updateDR(platform.UpdateThrottlerFields{Configurations: []platform.ThrottlerConfiguration{{KeyspaceName: "sharded", Ratio: 70}}}); err != nil {
		t.Fatal(err)
	}
	setDB(40)
	if diff := cmp.Diff(map[string]int{"app": 40, "sharded": 70}, get()); diff != "" {
		t.Errorf("its own over the database's (-want +got):\n%s", diff)
	}
	// Changes are taken while the deployment runs.
	e.takeSteps(dr, toInProgress)
	if err := updateDR(platform.UpdateThrottlerFields{Ratio: platform.Ptr(90)}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]int{"app": 90, "sharded": 90}, get()); diff != "" {
		t.Errorf("in progress (-want +got):\n%s", diff)
	}
	// Closed, it keeps its ratios and refuses changes.
	if err := updateDR(platform.UpdateThrottlerFields{Configurations: []platform.ThrottlerConfiguration{{KeyspaceName: "app", Ratio: 10}}}); err != nil {
		t.Fatal(err)
	}
	e.takeSteps(dr, []drStep{adv(time.Minute), act("apply-deploy"), adv(time.Second), act("skip-revert")})
	if st := e.get(dr.Number); st.State != platform.DeployRequestClosed {
		t.Fatalf("deploy request is %s (deployment %s), want closed", st.State, st.DeploymentState)
	}
	setDB(1)
	if diff := cmp.Diff(map[string]int{"app": 10, "sharded": 90}, get()); diff != "" {
		t.Errorf("closed (-want +got):\n%s", diff)
	}
	before := opWorldState(t, e.srv)
	apiError(t, updateDR(platform.UpdateThrottlerFields{Ratio: platform.Ptr(5)}), 422, "#1", "closed")
	if diff := worldStateDiff(t, before, opWorldState(t, e.srv)); diff != "" {
		t.Errorf("a refused update changed the world (-before +after):\n%s", diff)
	}

	// An open one refuses what the database's refuses, and no such
	// deploy request is a 404.
	e.branch("dev2", "CREATE TABLE `more` (id bigint NOT NULL, PRIMARY KEY (id))")
	dr2 := e.open(platform.CreateDeployRequestParams{Branch: "dev2"})
	_, err := e.c.Throttlers.UpdateDeployRequest(ctx, &platform.UpdateDeployRequestThrottlerParams{Organization: e.org, Database: drDB, Number: dr2.Number,
		UpdateThrottlerFields: platform.UpdateThrottlerFields{Configurations: []platform.ThrottlerConfiguration{{KeyspaceName: "gone", Ratio: 5}}}})
	apiError(t, err, 422, "configurations[0].keyspace_name", "gone")
	_, err = e.c.Throttlers.GetDeployRequest(ctx, &platform.GetDeployRequestThrottlerParams{Organization: e.org, Database: drDB, Number: 9})
	apiError(t, err, 404)
	_, err = e.c.Throttlers.UpdateDeployRequest(ctx, &platform.UpdateDeployRequestThrottlerParams{Organization: e.org, Database: drDB, Number: 9})
	apiError(t, err, 404)
}
