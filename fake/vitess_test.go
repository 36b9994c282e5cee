package fake_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// vitessEnv is a server with the ready MySQL database app, whose
// production branch main has the default keyspace app (unsharded, two
// replicas) and the keyspace sharded (two shards, three replicas), and
// the ready PostgreSQL database pg.
type vitessEnv struct {
	t   *testing.T
	srv *fake.Server
	c   *platform.Client
}

func newVitessEnv(t *testing.T) *vitessEnv {
	t.Helper()
	srv := fake.NewServer(t)
	e := &vitessEnv{t: t, srv: srv, c: srv.Client()}
	ctx := t.Context()
	for _, p := range []*platform.CreateDatabaseParams{
		{Organization: srv.Org(), Name: "app", ClusterSize: "PS_10"},
		{Organization: srv.Org(), Name: "pg", ClusterSize: "PS_10", Kind: platform.KindPostgreSQL},
	} {
		if _, err := e.c.Databases.Create(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	srv.Advance(time.Minute)
	if _, err := e.c.Keyspaces.Create(ctx, &platform.CreateKeyspaceParams{
		Organization: srv.Org(), Database: "app", Branch: "main", Name: "sharded", ClusterSize: "PS_10",
		Shards: platform.Ptr(2), ExtraReplicas: platform.Ptr(1),
	}); err != nil {
		t.Fatal(err)
	}
	srv.Advance(time.Hour)
	return e
}

func (e *vitessEnv) tablets(p *platform.ListTabletsParams) []*platform.TabletGroup {
	e.t.Helper()
	if p == nil {
		p = &platform.ListTabletsParams{}
	}
	p.Organization, p.Database, p.Branch = e.srv.Org(), "app", "main"
	gs, err := e.c.Vitess.ListTablets(e.t.Context(), p)
	if err != nil {
		e.t.Fatal(err)
	}
	return gs
}

func (e *vitessEnv) shard(keyspace, shard string) *platform.VitessShard {
	e.t.Helper()
	s, err := e.c.Vitess.GetShard(e.t.Context(), &platform.GetShardParams{Organization: e.srv.Org(), Database: "app", Branch: "main", Keyspace: keyspace, Shard: shard})
	if err != nil {
		e.t.Fatal(err)
	}
	return s
}

// view is what every read shows of main's topology: its tablets, each
// shard, its keyspaces and its pods' types.
func (e *vitessEnv) view() string {
	e.t.Helper()
	ctx := e.t.Context()
	var out []any
	out = append(out, e.tablets(nil))
	for _, s := range [][2]string{{"app", "-"}, {"sharded", "-80"}, {"sharded", "80-"}} {
		out = append(out, json.RawMessage(e.shard(s[0], s[1]).Raw))
	}
	ks, err := e.c.Vitess.ListKeyspaces(ctx, &platform.ListVitessKeyspacesParams{Organization: e.srv.Org(), Database: "app", Branch: "main"})
	if err != nil {
		e.t.Fatal(err)
	}
	out = append(out, ks)
	inf, err := e.c.BranchChanges.GetInfrastructure(ctx, &platform.GetInfrastructureParams{Organization: e.srv.Org(), Database: "app", Branch: "main"})
	if err != nil {
		e.t.Fatal(err)
	}
	out = append(out, inf)
	b, err := json.Marshal(out)
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}

// primaryPod is the name of the pod of a shard that is its primary.
func (e *vitessEnv) primaryPod(keyspace, shard string) string {
	e.t.Helper()
	inf, err := e.c.BranchChanges.GetInfrastructure(e.t.Context(), &platform.GetInfrastructureParams{Organization: e.srv.Org(), Database: "app", Branch: "main"})
	if err != nil {
		e.t.Fatal(err)
	}
	var found []string
	for _, p := range inf.Pods {
		if p.Keyspace != nil && *p.Keyspace == keyspace && *p.Shard == shard && *p.TabletType == "primary" {
			found = append(found, p.Name)
		}
	}
	if len(found) != 1 {
		e.t.Fatalf("shard %s/%s has primary pods %v, want one", keyspace, shard, found)
	}
	return found[0]
}

func TestVitessTablets(t *testing.T) {
	t.Parallel()
	e := newVitessEnv(t)
	all := e.tablets(nil)
	var shape []string
	aliases := map[string]bool{}
	for _, g := range all {
		shape = append(shape, g.Keyspace+"/"+g.Shard+"/"+string(g.Type)+"/"+strings.Repeat("t", len(g.Tablets)))
		for _, tb := range g.Tablets {
			a, err := platform.ParseTabletAlias(tb.Alias)
			if err != nil || a.String() != tb.Alias || tb.Cell != "us-east" || a.Cell != tb.Cell || tb.Role != g.Type {
				t.Errorf("tablet %+v: alias %v, %v", tb, a, err)
			}
			if aliases[tb.Alias] {
				t.Errorf("alias %s twice", tb.Alias)
			}
			aliases[tb.Alias] = true
		}
	}
	want := []string{"app/-/primary/t", "app/-/replica/tt", "sharded/-80/primary/t", "sharded/-80/replica/ttt", "sharded/80-/primary/t", "sharded/80-/replica/ttt"}
	if d := cmp.Diff(want, shape); d != "" {
		t.Fatalf("groups (-want +got):\n%s", d)
	}
	if d := cmp.Diff(all, e.tablets(nil)); d != "" {
		t.Errorf("a second list differs (-first +second):\n%s", d)
	}
	replica := all[3].Tablets[1].Alias
	for _, tc := range []struct {
		name string
		p    *platform.ListTabletsParams
		want []string
	}{
		{"keyspace", &platform.ListTabletsParams{Keyspace: "app"}, []string{"app/-/primary", "app/-/replica"}},
		{"shard", &platform.ListTabletsParams{Keyspace: "sharded", Shard: "80-"}, []string{"sharded/80-/primary", "sharded/80-/replica"}},
		{"type", &platform.ListTabletsParams{TabletType: platform.TabletPrimary}, []string{"app/-/primary", "sharded/-80/primary", "sharded/80-/primary"}},
		{"type rdonly", &platform.ListTabletsParams{TabletType: "RDONLY"}, nil},
		{"aliases override", &platform.ListTabletsParams{Keyspace: "app", TabletAliases: []string{replica, all[0].Tablets[0].Alias}}, []string{"app/-/primary", "sharded/-80/replica"}},
		{"unknown keyspace", &platform.ListTabletsParams{Keyspace: "nope"}, nil},
	} {
		var got []string
		for _, g := range e.tablets(tc.p) {
			got = append(got, g.Keyspace+"/"+g.Shard+"/"+string(g.Type))
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, d)
		}
	}
}

func TestVitessKeyspacesAndShards(t *testing.T) {
	t.Parallel()
	e := newVitessEnv(t)
	kss, err := e.c.Vitess.ListKeyspaces(t.Context(), &platform.ListVitessKeyspacesParams{Organization: e.srv.Org(), Database: "app", Branch: "main", Name: "sharded"})
	if err != nil {
		t.Fatal(err)
	}
	ks := kss.Keyspaces
	if len(ks) != 1 || ks[0].Name != "sharded" || ks[0].DurabilityPolicy != "semi_sync" || ks[0].SidecarDBName != "_vt" {
		t.Fatalf("keyspaces named sharded: %+v", ks)
	}
	s := e.shard("sharded", "-80")
	primary := e.tablets(&platform.ListTabletsParams{Keyspace: "sharded", Shard: "-80", TabletType: platform.TabletPrimary})[0].Tablets[0].Alias
	if s.Keyspace != "sharded" || s.Name != "-80" || s.Primary.String() != primary || !s.IsPrimaryServing || s.PrimaryTermStart == nil || len(s.TabletControls) != 0 {
		t.Errorf("shard -80: %+v, want primary %s", s, primary)
	}
	var doc struct {
		Shard struct {
			KeyRange map[string]string `json:"key_range"`
		} `json:"shard"`
	}
	if err := json.Unmarshal(s.Raw, &doc); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string]string{"end": "gA=="}, doc.Shard.KeyRange); d != "" {
		t.Errorf("key range of -80 (-want +got):\n%s", d)
	}

	// Four shards: bounds with hex letters, both ends set.
	if _, err := e.c.Keyspaces.Create(t.Context(), &platform.CreateKeyspaceParams{Organization: e.srv.Org(), Database: "app", Branch: "main", Name: "quad", ClusterSize: "PS_10", Shards: platform.Ptr(4)}); err != nil {
		t.Fatal(err)
	}
	e.srv.Advance(time.Hour)
	for shard, want := range map[string]map[string]string{
		"-40":   {"end": "QA=="},
		"80-c0": {"start": "gA==", "end": "wA=="},
		"c0-":   {"start": "wA=="},
	} {
		doc.Shard.KeyRange = nil
		if err := json.Unmarshal(e.shard("quad", shard).Raw, &doc); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, doc.Shard.KeyRange); d != "" {
			t.Errorf("key range of %s (-want +got):\n%s", shard, d)
		}
	}
}

func TestVitessTabletControl(t *testing.T) {
	t.Parallel()
	e := newVitessEnv(t)
	set := func(p platform.SetShardTabletControlParams) *platform.VitessShard {
		t.Helper()
		p.Organization, p.Database, p.Branch, p.Keyspace, p.Shard = e.srv.Org(), "app", "main", "app", "-"
		s, err := e.c.Vitess.SetShardTabletControl(t.Context(), &p)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(s.TabletControls, e.shard("app", "-").TabletControls); d != "" {
			t.Errorf("get_shard differs from the answer (-answer +get):\n%s", d)
		}
		return s
	}
	steps := []struct {
		name    string
		p       platform.SetShardTabletControlParams
		want    []platform.ShardTabletControl
		serving bool
	}{
		{"deny", platform.SetShardTabletControlParams{TabletType: "rdonly", DeniedTables: []string{"b", "a"}},
			[]platform.ShardTabletControl{{TabletType: platform.TabletRDOnly, DeniedTables: []string{"a", "b"}}}, true},
		{"deny more in a cell", platform.SetShardTabletControlParams{TabletType: "TABLET_TYPE_RDONLY", DeniedTables: []string{"c", "a"}, Cells: []string{"us-east"}},
			[]platform.ShardTabletControl{{TabletType: platform.TabletRDOnly, Cells: []string{"us-east"}, DeniedTables: []string{"a", "b", "c"}}}, true},
		{"deny on the primary", platform.SetShardTabletControlParams{TabletType: "primary", DeniedTables: []string{"x"}},
			[]platform.ShardTabletControl{{TabletType: platform.TabletPrimary, DeniedTables: []string{"x"}}, {TabletType: platform.TabletRDOnly, Cells: []string{"us-east"}, DeniedTables: []string{"a", "b", "c"}}}, true},
		{"remove some", platform.SetShardTabletControlParams{TabletType: "rdonly", DeniedTables: []string{"a", "c"}, Remove: platform.Ptr(true)},
			[]platform.ShardTabletControl{{TabletType: platform.TabletPrimary, DeniedTables: []string{"x"}}, {TabletType: platform.TabletRDOnly, Cells: []string{"us-east"}, DeniedTables: []string{"b"}}}, true},
		{"disable the primary's query service", platform.SetShardTabletControlParams{TabletType: "primary", DisableQueryService: platform.Ptr(true)},
			[]platform.ShardTabletControl{{TabletType: platform.TabletPrimary, DeniedTables: []string{"x"}}, {TabletType: platform.TabletRDOnly, Cells: []string{"us-east"}, DeniedTables: []string{"b"}}}, false},
		{"remove the primary's control", platform.SetShardTabletControlParams{TabletType: "primary", Remove: platform.Ptr(true)},
			[]platform.ShardTabletControl{{TabletType: platform.TabletRDOnly, Cells: []string{"us-east"}, DeniedTables: []string{"b"}}}, true},
		{"remove the last table", platform.SetShardTabletControlParams{TabletType: "rdonly", DeniedTables: []string{"b"}, Remove: platform.Ptr(true)}, nil, true},
	}
	for _, st := range steps {
		s := set(st.p)
		if d := cmp.Diff(st.want, s.TabletControls); d != "" {
			t.Errorf("%s (-want +got):\n%s", st.name, d)
		}
		if s.IsPrimaryServing != st.serving {
			t.Errorf("%s: is_primary_serving %v, want %v", st.name, s.IsPrimaryServing, st.serving)
		}
	}
	r, err := e.c.Vitess.RefreshStateByShard(t.Context(), &platform.RefreshStateByShardParams{Organization: e.srv.Org(), Database: "app", Branch: "main", Keyspace: "app", Shard: "-", Cells: []string{"us-east"}})
	if err != nil || r.IsPartialRefresh || string(r.Raw) != "{}" {
		t.Errorf("refresh: %+v, %v", r, err)
	}
}

func TestVitessPlannedReparent(t *testing.T) {
	t.Parallel()
	e := newVitessEnv(t)
	tm := fake.DefaultTimings()
	before := e.shard("sharded", "80-")
	if got := e.primaryPod("sharded", "80-"); !strings.HasSuffix(got, "-sharded-80x-primary") {
		t.Fatalf("primary pod %s before any reparent", got)
	}
	target := e.tablets(&platform.ListTabletsParams{Keyspace: "sharded", Shard: "80-", TabletType: platform.TabletReplica})[0].Tablets[1].Alias
	op, err := e.c.Vitess.CreatePlannedReparent(t.Context(), &platform.CreatePlannedReparentParams{Organization: e.srv.Org(), Database: "app", Branch: "main", Keyspace: "sharded", Shard: "80-", NewPrimary: target})
	if err != nil {
		t.Fatal(err)
	}
	if op.State != platform.VitessOperationPending || op.Completed || op.Action != platform.VitessActionPlannedReparent || op.Result != nil && string(op.Result) != "null" || op.Error != nil {
		t.Fatalf("new operation: %+v", op)
	}
	get := &platform.GetVitessOperationParams{Organization: e.srv.Org(), Database: "app", Branch: "main", ID: op.ID}
	e.srv.Advance(tm.VitessOperationStart)
	running, err := e.c.Vitess.GetOperation(t.Context(), get)
	if err != nil || running.State != platform.VitessOperationRunning {
		t.Fatalf("after the start: %+v, %v", running, err)
	}
	if got := e.shard("sharded", "80-"); got.Primary != before.Primary {
		t.Errorf("primary moved to %v while the reparent runs", got.Primary)
	}
	done, err := e.c.Vitess.WaitPlannedReparent(t.Context(), get)
	if err != nil {
		t.Fatal(err)
	}
	res, err := done.PlannedReparent()
	if err != nil || done.State != platform.VitessOperationCompleted || !done.Completed || done.CompletedAt == nil || res.PromotedPrimary.String() != target {
		t.Fatalf("finished: %+v, result %+v, %v", done, res, err)
	}
	after := e.shard("sharded", "80-")
	if after.Primary.String() != target || after.PrimaryTermStart == nil || !after.PrimaryTermStart.After(*before.PrimaryTermStart) {
		t.Errorf("shard after: primary %v since %v, want %s since after %v", after.Primary, after.PrimaryTermStart, target, before.PrimaryTermStart)
	}
	if got := e.tablets(&platform.ListTabletsParams{Keyspace: "sharded", Shard: "80-", TabletType: platform.TabletPrimary})[0].Tablets[0].Alias; got != target {
		t.Errorf("list_tablets primary %s, want %s", got, target)
	}
	if got := e.primaryPod("sharded", "80-"); !strings.HasSuffix(got, "-sharded-80x-replica-1") {
		t.Errorf("primary pod %s, want replica-1's", got)
	}
	if got := e.shard("sharded", "-80").Primary; got == after.Primary {
		t.Errorf("the other shard's primary moved too")
	}
	if viaOps, err := e.c.Vitess.WaitOperation(t.Context(), get); err != nil || viaOps.ID != op.ID {
		t.Errorf("the operation via vtctld: %+v, %v", viaOps, err)
	}
	// It survives a snapshot and a restore, aliases and all.
	view := e.view()
	snap, err := e.srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if err := e.srv.Restore(snap); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(view, e.view()); d != "" {
		t.Errorf("restored (-before +after):\n%s", d)
	}
}

func TestVitessReparentFailsAndCancels(t *testing.T) {
	t.Parallel()
	e := newVitessEnv(t)
	tm := fake.DefaultTimings()
	replica := func(ks, shard string) string {
		return e.tablets(&platform.ListTabletsParams{Keyspace: ks, Shard: shard, TabletType: platform.TabletReplica})[0].Tablets[0].Alias
	}
	op, err := e.c.Vitess.CreatePlannedReparent(t.Context(), &platform.CreatePlannedReparentParams{Organization: e.srv.Org(), Database: "app", Branch: "main", Keyspace: "app", Shard: "-", NewPrimary: replica("app", "-")})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.srv.FailNext(op.ID); err != nil {
		t.Fatal(err)
	}
	view := e.view()
	e.srv.Advance(tm.VitessOperationStart)
	_, err = e.c.Vitess.WaitPlannedReparent(t.Context(), &platform.GetPlannedReparentParams{Organization: e.srv.Org(), Database: "app", Branch: "main", ID: op.ID})
	var se *platform.StateError
	if !errors.As(err, &se) || se.State != "failed" {
		t.Fatalf("wait on a failing reparent: %v", err)
	}
	if d := cmp.Diff(view, e.view()); d != "" {
		t.Errorf("a failed reparent changed the topology (-before +after):\n%s", d)
	}
	// A keyspace deleted under a running reparent cancels it.
	op, err = e.c.Vitess.CreatePlannedReparent(t.Context(), &platform.CreatePlannedReparentParams{Organization: e.srv.Org(), Database: "app", Branch: "main", Keyspace: "sharded", Shard: "-80", NewPrimary: replica("sharded", "-80")})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.c.Keyspaces.Delete(t.Context(), &platform.DeleteKeyspaceParams{Organization: e.srv.Org(), Database: "app", Branch: "main", Keyspace: "sharded"}); err != nil {
		t.Fatal(err)
	}
	got, err := e.c.Vitess.WaitOperation(t.Context(), &platform.GetVitessOperationParams{Organization: e.srv.Org(), Database: "app", Branch: "main", ID: op.ID})
	if !errors.As(err, &se) || se.State != "cancelled" || got.Error == nil || !strings.Contains(*got.Error, "sharded") {
		t.Fatalf("reparent of a deleted keyspace: %+v, %v", got, err)
	}
}

// TestVitessRefusals: every refusal answers its status naming the field
// or state, and changes nothing any read shows.
func TestVitessRefusals(t *testing.T) {
	t.Parallel()
	e := newVitessEnv(t)
	ctx := t.Context()
	org := e.srv.Org()
	primary := e.shard("app", "-").Primary.String()
	replica := e.tablets(&platform.ListTabletsParams{Keyspace: "app", TabletType: platform.TabletReplica})[0].Tablets[0].Alias
	other := e.tablets(&platform.ListTabletsParams{Keyspace: "sharded", Shard: "-80", TabletType: platform.TabletReplica})[0].Tablets[0].Alias
	running, err := e.c.Vitess.CreatePlannedReparent(ctx, &platform.CreatePlannedReparentParams{Organization: org, Database: "app", Branch: "main", Keyspace: "sharded", Shard: "80-",
		NewPrimary: e.tablets(&platform.ListTabletsParams{Keyspace: "sharded", Shard: "80-", TabletType: platform.TabletReplica})[0].Tablets[0].Alias})
	if err != nil {
		t.Fatal(err)
	}
	reparent := func(ks, shard, alias string) func() error {
		return func() error {
			_, err := e.c.Vitess.CreatePlannedReparent(ctx, &platform.CreatePlannedReparentParams{Organization: org, Database: "app", Branch: "main", Keyspace: ks, Shard: shard, NewPrimary: alias})
			return err
		}
	}
	control := func(p platform.SetShardTabletControlParams) func() error {
		return func() error {
			p.Organization, p.Database, p.Branch = org, "app", "main"
			_, err := e.c.Vitess.SetShardTabletControl(ctx, &p)
			return err
		}
	}
	rawAt := func(db, method, path, body string) func() error {
		return func() error {
			req, err := http.NewRequestWithContext(ctx, method, e.srv.URL()+"v1/organizations/"+org+"/databases/"+db+"/branches/main"+path, strings.NewReader(body))
			if err != nil {
				return err
			}
			req.Header.Set("Authorization", e.srv.AdminToken().Authorization())
			req.Header.Set("Content-Type", "application/json")
			resp, err := clientOf(e.srv).Do(req)
			if err != nil {
				return err
			}
			defer resp.Body.Close()
			var body struct{ Message string }
			_ = json.NewDecoder(resp.Body).Decode(&body)
			return &platform.Error{StatusCode: resp.StatusCode, Message: body.Message}
		}
	}
	raw := func(method, path, body string) func() error { return rawAt("app", method, path, body) }
	pg := func(method, path, body string) func() error { return rawAt("pg", method, path, body) }
	for _, tc := range []struct {
		name   string
		do     func() error
		status int
		says   string
	}{
		{"reparent to the primary", reparent("app", "-", primary), 422, "is the primary"},
		{"reparent to another shard's tablet", reparent("app", "-", other), 422, "not a tablet of shard app/-"},
		{"reparent to no tablet", reparent("app", "-", "us-east-0000000001"), 422, "not a tablet"},
		{"reparent to a malformed alias", reparent("app", "-", "zone1"), 422, "new_primary"},
		{"reparent while one runs", reparent("sharded", "80-", e.shard("sharded", "80-").Primary.String()), 422, running.ID + " pending"},
		{"reparent of an unknown keyspace", reparent("nope", "-", replica), 422, `keyspace "nope"`},
		{"reparent of an unknown shard", reparent("app", "-80", replica), 422, `shard "-80"`},
		{"reparent without a keyspace", raw("POST", "/planned-reparent", `{"shard":"-","new_primary":"`+replica+`"}`), 422, "keyspace is required"},
		{"reparent without a shard", raw("POST", "/planned-reparent", `{"keyspace":"app","new_primary":"`+replica+`"}`), 422, "shard is required"},
		{"reparent without a new primary", raw("POST", "/planned-reparent", `{"keyspace":"app","shard":"-"}`), 422, "new_primary is required"},
		{"reparent on PostgreSQL", func() error {
			_, err := e.c.Vitess.CreatePlannedReparent(ctx, &platform.CreatePlannedReparentParams{Organization: org, Database: "pg", Branch: "main", Keyspace: "pg", Shard: "-", NewPrimary: replica})
			return err
		}, 422, "MySQL's; pg is a postgresql database"},
		{"tablets of PostgreSQL", func() error {
			_, err := e.c.Vitess.ListTablets(ctx, &platform.ListTabletsParams{Organization: org, Database: "pg", Branch: "main"})
			return err
		}, 422, "postgresql"},
		{"tablets of an unknown branch", func() error {
			_, err := e.c.Vitess.ListTablets(ctx, &platform.ListTabletsParams{Organization: org, Database: "app", Branch: "nope"})
			return err
		}, 404, ""},
		{"an unknown operation", func() error {
			_, err := e.c.Vitess.GetOperation(ctx, &platform.GetVitessOperationParams{Organization: org, Database: "app", Branch: "main", ID: "nope"})
			return err
		}, 404, ""},
		{"another branch's operation", func() error {
			if _, err := e.c.Branches.Create(ctx, &platform.CreateBranchParams{Organization: org, Database: "app", Name: "dev", ParentBranch: "main"}); err != nil && !errors.Is(err, platform.ErrUnprocessable) {
				return err
			}
			_, err := e.c.Vitess.GetPlannedReparent(ctx, &platform.GetPlannedReparentParams{Organization: org, Database: "app", Branch: "dev", ID: running.ID})
			return err
		}, 404, ""},
		{"tablets with a bad type", raw("GET", "/tablets?tablet_type=spare", ""), 422, "tablet_type"},
		{"tablets of a shard without keyspace", raw("GET", "/tablets?shard=-", ""), 422, "shard needs keyspace"},
		{"tablets with a bad alias", raw("GET", "/tablets?tablet_alias=x", ""), 422, "tablet_alias"},
		{"shard of an unknown keyspace", raw("GET", "/vtctld/shard?keyspace=nope&shard=-", ""), 422, `keyspace "nope"`},
		{"shard unnamed", raw("GET", "/vtctld/shard?keyspace=app", ""), 422, "shard is required"},
		{"control without a type", raw("PUT", "/vtctld/shard/tablet-control", `{"keyspace":"app","shard":"-","denied_tables":["t"]}`), 422, "tablet_type is required"},
		{"control of a bad type", control(platform.SetShardTabletControlParams{Keyspace: "app", Shard: "-", TabletType: "spare", DeniedTables: []string{"t"}}), 422, "tablet_type"},
		{"control doing nothing", control(platform.SetShardTabletControlParams{Keyspace: "app", Shard: "-", TabletType: "rdonly"}), 422, "one of denied_tables, remove or disable_query_service"},
		{"control of an unknown cell", control(platform.SetShardTabletControlParams{Keyspace: "app", Shard: "-", TabletType: "rdonly", DeniedTables: []string{"t"}, Cells: []string{"us-east", "mars"}}), 422, "cells[1]"},
		{"control of an empty table", control(platform.SetShardTabletControlParams{Keyspace: "app", Shard: "-", TabletType: "rdonly", DeniedTables: []string{""}}), 422, "denied_tables[0]"},
		{"control of an unknown shard", control(platform.SetShardTabletControlParams{Keyspace: "sharded", Shard: "-", TabletType: "rdonly", DeniedTables: []string{"t"}}), 422, `shard "-"`},
		{"refresh of an unknown cell", func() error {
			_, err := e.c.Vitess.RefreshStateByShard(ctx, &platform.RefreshStateByShardParams{Organization: org, Database: "app", Branch: "main", Keyspace: "app", Shard: "-", Cells: []string{"mars"}})
			return err
		}, 422, "cells[0]"},
		{"refresh of an unknown keyspace", raw("POST", "/vtctld/shard/refresh-state", `{"keyspace":"nope","shard":"-"}`), 422, "keyspace"},
		{"workflows of an unknown keyspace", raw("GET", "/vtctld/workflows?keyspace=nope", ""), 422, `keyspace "nope" is not a keyspace of branch main: its keyspaces are app, sharded`},
		{"keyspaces of PostgreSQL", pg("GET", "/vtctld/keyspaces", ""), 422, "pg is a postgresql database"},
		{"shard of PostgreSQL", pg("GET", "/vtctld/shard?keyspace=pg&shard=-", ""), 422, "pg is a postgresql database"},
		{"control of PostgreSQL", pg("PUT", "/vtctld/shard/tablet-control", `{"keyspace":"pg","shard":"-","tablet_type":"rdonly","denied_tables":["t"]}`), 422, "pg is a postgresql database"},
		{"refresh of PostgreSQL", pg("POST", "/vtctld/shard/refresh-state", `{"keyspace":"pg","shard":"-"}`), 422, "pg is a postgresql database"},
		{"operation of PostgreSQL", pg("GET", "/vtctld/operations/x", ""), 422, "pg is a postgresql database"},
		{"reparent of PostgreSQL", pg("GET", "/planned-reparent/x", ""), 422, "pg is a postgresql database"},
		{"workflows of PostgreSQL", pg("GET", "/vtctld/workflows?keyspace=pg", ""), 422, "pg is a postgresql database"},
		{"routing rules of PostgreSQL", pg("GET", "/vtctld/routing-rules", ""), 422, "pg is a postgresql database"},
		{"keyspace routing rules of PostgreSQL", pg("GET", "/vtctld/keyspace-routing-rules", ""), 422, "pg is a postgresql database"},
		{"keyspace routing rules set on PostgreSQL", pg("PUT", "/vtctld/keyspace-routing-rules", `{"rules":[]}`), 422, "pg is a postgresql database"},
		{"throttler status of PostgreSQL", pg("GET", "/vtctld/throttler/status?tablet_alias="+replica, ""), 422, "pg is a postgresql database"},
		{"throttler check of PostgreSQL", pg("POST", "/vtctld/throttler/check", `{"tablet_alias":"`+replica+`"}`), 422, "pg is a postgresql database"},
		{"throttler config of PostgreSQL", pg("PUT", "/vtctld/throttler/config", `{"keyspace":"pg","enable":true}`), 422, "pg is a postgresql database"},
	} {
		view := e.view()
		err := tc.do()
		var apiErr *platform.Error
		if !errors.As(err, &apiErr) || apiErr.StatusCode != tc.status || !strings.Contains(apiErr.Message, tc.says) {
			t.Errorf("%s: %v, want %d saying %q", tc.name, err, tc.status, tc.says)
		}
		if d := cmp.Diff(view, e.view()); d != "" {
			t.Errorf("%s changed the topology (-before +after):\n%s", tc.name, d)
		}
	}
}

func TestVitessAliasesStable(t *testing.T) {
	t.Parallel()
	e := newVitessEnv(t)
	before := e.tablets(&platform.ListTabletsParams{Keyspace: "sharded"})
	// Another keyspace, made and deleted, moves no alias.
	ctx := t.Context()
	if _, err := e.c.Keyspaces.Create(ctx, &platform.CreateKeyspaceParams{Organization: e.srv.Org(), Database: "app", Branch: "main", Name: "extra", ClusterSize: "PS_10"}); err != nil {
		t.Fatal(err)
	}
	e.srv.Advance(time.Hour)
	with := e.tablets(nil)
	seen := map[string]bool{}
	for _, g := range with {
		for _, tb := range g.Tablets {
			if seen[tb.Alias] {
				t.Errorf("alias %s twice", tb.Alias)
			}
			seen[tb.Alias] = true
		}
	}
	if err := e.c.Keyspaces.Delete(ctx, &platform.DeleteKeyspaceParams{Organization: e.srv.Org(), Database: "app", Branch: "main", Keyspace: "extra"}); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(before, e.tablets(&platform.ListTabletsParams{Keyspace: "sharded"})); d != "" {
		t.Errorf("aliases moved (-before +after):\n%s", d)
	}
}

// TestVitessNotReady: an action needing a ready branch or keyspace is
// refused with a 422 naming it while it is being made, and changes
// nothing.
func TestVitessNotReady(t *testing.T) {
	t.Parallel()
	e := newVitessEnv(t)
	ctx := t.Context()
	org := e.srv.Org()
	replica := e.tablets(&platform.ListTabletsParams{Keyspace: "app", TabletType: platform.TabletReplica})[0].Tablets[0].Alias
	if _, err := e.c.Branches.Create(ctx, &platform.CreateBranchParams{Organization: org, Database: "app", Name: "dev", ParentBranch: "main"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.Keyspaces.Create(ctx, &platform.CreateKeyspaceParams{Organization: org, Database: "app", Branch: "main", Name: "fresh", ClusterSize: "PS_10"}); err != nil {
		t.Fatal(err)
	}
	fresh := e.tablets(&platform.ListTabletsParams{Keyspace: "fresh", TabletType: platform.TabletReplica})
	if len(fresh) == 0 {
		t.Fatal("a keyspace being made lists no replica")
	}
	workflows := func() []string {
		page, err := e.c.Workflows.List(ctx, &platform.ListWorkflowsParams{Organization: org, Database: "app"})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, w := range page.Items {
			out = append(out, w.Name+" "+string(w.State))
		}
		return out
	}
	for _, tc := range []struct {
		name string
		do   func() error
		says string
	}{
		{"reparent on a branch being made", func() error {
			_, err := e.c.Vitess.CreatePlannedReparent(ctx, &platform.CreatePlannedReparentParams{Organization: org, Database: "app", Branch: "dev", Keyspace: "app", Shard: "-", NewPrimary: replica})
			return err
		}, "branch dev is not ready yet"},
		{"reparent of a keyspace being made", func() error {
			_, err := e.c.Vitess.CreatePlannedReparent(ctx, &platform.CreatePlannedReparentParams{Organization: org, Database: "app", Branch: "main", Keyspace: "fresh", Shard: "-", NewPrimary: fresh[0].Tablets[0].Alias})
			return err
		}, "keyspace fresh is not ready yet"},
		{"MoveTables on a branch being made", func() error {
			_, err := e.c.Vitess.CreateMoveTables(ctx, &platform.CreateMoveTablesParams{Organization: org, Database: "app", Branch: "dev", Workflow: "w", SourceKeyspace: "app", TargetKeyspace: "sharded", AllTables: platform.Ptr(true)})
			return err
		}, "branch dev is not ready yet"},
		{"MoveTables into a keyspace being made", func() error {
			_, err := e.c.Vitess.CreateMoveTables(ctx, &platform.CreateMoveTablesParams{Organization: org, Database: "app", Branch: "main", Workflow: "w", SourceKeyspace: "app", TargetKeyspace: "fresh", AllTables: platform.Ptr(true)})
			return err
		}, "target_keyspace fresh is not ready yet"},
		{"Materialize on a branch being made", func() error {
			_, err := e.c.Vitess.CreateMaterialize(ctx, &platform.CreateMaterializeParams{Organization: org, Database: "app", Branch: "dev", Workflow: "w", SourceKeyspace: "app", TargetKeyspace: "sharded", ReferenceTables: []string{"t"}})
			return err
		}, "branch dev is not ready yet"},
		{"lookup vindex on a branch being made", func() error {
			_, err := e.c.Vitess.CreateLookupVindex(ctx, &platform.CreateLookupVindexParams{Organization: org, Database: "app", Branch: "dev", Name: "v", TableKeyspace: "app", TableOwner: "t", TableOwnerColumns: []string{"c"}})
			return err
		}, "branch dev is not ready yet"},
		{"documented workflow on a branch being made", func() error {
			_, err := e.c.Workflows.Create(ctx, &platform.CreateWorkflowParams{Organization: org, Database: "app", Name: "w", SourceKeyspace: "app", TargetKeyspace: "sharded", Tables: []string{"t"}, Branch: platform.Ptr("dev")})
			return err
		}, "branch dev is not ready yet"},
	} {
		view, wfs := e.view(), workflows()
		err := tc.do()
		var apiErr *platform.Error
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 422 || !strings.Contains(apiErr.Message, tc.says) {
			t.Errorf("%s: %v, want 422 saying %q", tc.name, err, tc.says)
		}
		if d := cmp.Diff(view, e.view()); d != "" {
			t.Errorf("%s changed the topology (-before +after):\n%s", tc.name, d)
		}
		if d := cmp.Diff(wfs, workflows()); d != "" {
			t.Errorf("%s changed the workflows (-before +after):\n%s", tc.name, d)
		}
	}
}

// TestVitessReadOnlyRegion: a keyspace's read-only region is a cell of
// the branch, with replicas there; a tablet control names it, but a
// reparent to one of its replicas is refused, changing nothing.
func TestVitessReadOnlyRegion(t *testing.T) {
	t.Parallel()
	e := newVitessEnv(t)
	ctx := t.Context()
	org := e.srv.Org()
	if _, err := e.c.Keyspaces.UpdateReadOnlyRegions(ctx, &platform.UpdateReadOnlyRegionsParams{Organization: org, Database: "app", Branch: "main", Keyspace: "app",
		ReadOnlyRegions: []platform.ReadOnlyRegionConfig{{Region: "eu-west", Replicas: platform.Ptr(1)}}}); err != nil {
		t.Fatal(err)
	}
	e.srv.Advance(time.Hour)
	var far string
	for _, g := range e.tablets(&platform.ListTabletsParams{Keyspace: "app", TabletType: platform.TabletReplica}) {
		for _, tb := range g.Tablets {
			if tb.Cell == "eu-west" {
				far = tb.Alias
			}
		}
	}
	if far == "" {
		t.Fatalf("no replica of app in eu-west: %+v", e.tablets(nil))
	}
	view := e.view()
	_, err := e.c.Vitess.CreatePlannedReparent(ctx, &platform.CreatePlannedReparentParams{Organization: org, Database: "app", Branch: "main", Keyspace: "app", Shard: "-", NewPrimary: far})
	wantRefused(t, err, 422, "new_primary "+far+" is in read-only region eu-west; the primary stays in cell us-east")
	e.srv.Advance(time.Minute)
	if d := cmp.Diff(view, e.view()); d != "" {
		t.Errorf("the refused reparent changed the topology (-before +after):\n%s", d)
	}
	s, err := e.c.Vitess.SetShardTabletControl(ctx, &platform.SetShardTabletControlParams{Organization: org, Database: "app", Branch: "main", Keyspace: "app", Shard: "-",
		TabletType: platform.TabletReplica, Cells: []string{"eu-west"}, DeniedTables: []string{"t"}})
	if err != nil {
		t.Fatalf("a tablet control in the read-only region's cell: %v", err)
	}
	if len(s.TabletControls) != 1 || !slices.Equal(s.TabletControls[0].Cells, []string{"eu-west"}) {
		t.Errorf("tablet controls = %+v, want one in eu-west", s.TabletControls)
	}
}
