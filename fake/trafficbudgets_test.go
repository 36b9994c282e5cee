package fake_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// trafficDB is the database of the traffic budget tests; its default
// keyspace has its name.
const trafficDB = "app-db"

// newTrafficServer returns a fake with the ready database trafficDB, and
// its client.
func newTrafficServer(t *testing.T, opts ...fake.Option) (*fake.Server, *platform.Client) {
	t.Helper()
	srv := fake.NewServer(t, opts...)
	c := srv.Client()
	if _, err := c.Databases.Create(t.Context(), &platform.CreateDatabaseParams{Organization: srv.Org(), Name: trafficDB, ClusterSize: "PS_10"}); err != nil {
		t.Fatal(err)
	}
	srv.Advance(5 * time.Second)
	return srv, c
}

// trafficRef names budget id on branch of trafficDB.
func trafficRef(srv *fake.Server, branch, id string) *platform.TrafficBudgetParams {
	return &platform.TrafficBudgetParams{Organization: srv.Org(), Database: trafficDB, Branch: branch, ID: id}
}

// trafficPath is the path of branch's budgets in trafficDB.
func trafficPath(srv *fake.Server, branch string) string {
	return "/v1/organizations/" + srv.Org() + "/databases/" + trafficDB + "/branches/" + branch + "/traffic/budgets"
}

// trafficCreate creates a budget on branch with p's body fields, then moves
// the clock by a millisecond, so that budgets list in creation order.
func trafficCreate(t *testing.T, srv *fake.Server, c *platform.Client, branch string, p platform.CreateTrafficBudgetParams) *platform.TrafficBudget {
	t.Helper()
	p.Organization, p.Database, p.Branch = srv.Org(), trafficDB, branch
	bg, err := c.TrafficBudgets.Create(t.Context(), &p)
	if err != nil {
		t.Fatalf("creating traffic budget %q: %v", p.Name, err)
	}
	srv.Advance(time.Millisecond)
	return bg
}

// trafficRule adds a rule to budget id on main, then moves the clock by a
// millisecond.
func trafficRule(t *testing.T, srv *fake.Server, c *platform.Client, id string, p platform.CreateTrafficRuleParams) *platform.TrafficRule {
	t.Helper()
	p.Organization, p.Database, p.Branch, p.BudgetID = srv.Org(), trafficDB, "main", id
	r, err := c.TrafficBudgets.CreateRule(t.Context(), &p)
	if err != nil {
		t.Fatalf("creating traffic rule: %v", err)
	}
	srv.Advance(time.Millisecond)
	return r
}

// trafficList returns every budget of branch that p's filters keep, in
// list order.
func trafficList(t *testing.T, srv *fake.Server, c *platform.Client, branch string, p platform.ListTrafficBudgetsParams) []*platform.TrafficBudget {
	t.Helper()
	p.Organization, p.Database, p.Branch = srv.Org(), trafficDB, branch
	var out []*platform.TrafficBudget
	for bg, err := range c.TrafficBudgets.All(t.Context(), &p) {
		if err != nil {
			t.Fatalf("listing traffic budgets: %v", err)
		}
		out = append(out, bg)
	}
	return out
}

// trafficNames returns the names of budgets, in order.
func trafficNames(bgs []*platform.TrafficBudget) []string {
	out := []string{}
	for _, bg := range bgs {
		out = append(out, bg.Name)
	}
	return out
}

// trafficUnchanged checks that main's budgets are still before.
func trafficUnchanged(t *testing.T, srv *fake.Server, c *platform.Client, before []*platform.TrafficBudget) {
	t.Helper()
	if diff := cmp.Diff(before, trafficList(t, srv, c, "main", platform.ListTrafficBudgetsParams{})); diff != "" {
		t.Errorf("traffic budgets changed (-before +after):\n%s", diff)
	}
}

func TestTrafficBudgetCreate(t *testing.T) {
	t.Parallel()
	srv, c := newTrafficServer(t)
	now := platform.NewTimestamp(srv.Now())
	bg := trafficCreate(t, srv, c, "main", platform.CreateTrafficBudgetParams{
		Name: "Checkout", Mode: platform.Ptr(platform.TrafficBudgetWarn),
		Capacity: platform.Ptr(1200), Rate: platform.Ptr(25), Burst: platform.Ptr(300),
		Concurrency: platform.Ptr(40), WarningThreshold: platform.Ptr(80),
		Rules: []string{"remote_address=10.0.0.0/8", "route=checkout"},
	})
	actor := &platform.Actor{ID: srv.AdminUserID(), Type: "User", DisplayName: "Ada Admin", AvatarURL: bg.Actor.AvatarURL}
	want := &platform.TrafficBudget{
		Type: "TrafficBudget", Name: "Checkout", Mode: platform.TrafficBudgetWarn,
		Capacity: platform.Ptr(1200), Rate: platform.Ptr(25), Burst: platform.Ptr(300),
		Concurrency: platform.Ptr(40), WarningThreshold: platform.Ptr(80),
		Actor: actor,
		Rules: []*platform.TrafficRule{
			{
				Type: "TrafficRule", Kind: platform.TrafficRuleMatch, Actor: actor, CreatedAt: now, UpdatedAt: now,
				Tags: []*platform.TrafficTag{{Type: "TrafficTag", KeyID: "Bremote_address", Key: "remote_address", Value: "10.0.0.0/8", Source: platform.TagSourceSystem}},
			},
			{
				Type: "TrafficRule", Kind: platform.TrafficRuleMatch, Actor: actor, CreatedAt: now, UpdatedAt: now,
				Tags:                 []*platform.TrafficTag{{Type: "TrafficTag", KeyID: "Sroute", Key: "route", Value: "checkout", Source: platform.TagSourceSQL}},
				SyntaxHighlightedSQL: "<pre>/* route=&#39;checkout&#39; */</pre>",
			},
		},
		CreatedAt: now, UpdatedAt: now,
	}
	ignoreIDs := cmp.Options{cmpopts.IgnoreFields(platform.TrafficBudget{}, "ID"), cmpopts.IgnoreFields(platform.TrafficRule{}, "ID")}
	if diff := cmp.Diff(want, bg, ignoreIDs); diff != "" {
		t.Errorf("created budget (-want +got):\n%s", diff)
	}
	if bg.Actor.AvatarURL == "" {
		t.Error("actor has no avatar_url")
	}
	ids := map[string]bool{bg.ID: true}
	for _, r := range bg.Rules {
		ids[r.ID] = true
	}
	if len(ids) != 3 || ids[""] {
		t.Errorf("budget and rule IDs %v are not three distinct IDs", ids)
	}

	got, err := c.TrafficBudgets.Get(t.Context(), trafficRef(srv, "main", bg.ID))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(bg, got); diff != "" {
		t.Errorf("get (-created +got):\n%s", diff)
	}
	if diff := cmp.Diff([]*platform.TrafficBudget{bg}, trafficList(t, srv, c, "main", platform.ListTrafficBudgetsParams{})); diff != "" {
		t.Errorf("list (-want +got):\n%s", diff)
	}
}

func TestTrafficBudgetDefaults(t *testing.T) {
	t.Parallel()
	srv, c := newTrafficServer(t)
	bg := trafficCreate(t, srv, c, "main", platform.CreateTrafficBudgetParams{Name: "plain"})
	if bg.Mode != platform.TrafficBudgetEnforce {
		t.Errorf("mode %q, want enforce", bg.Mode)
	}
	if bg.Capacity != nil || bg.Rate != nil || bg.Burst != nil || bg.Concurrency != nil || bg.WarningThreshold != nil {
		t.Errorf("limits %v %v %v %v %v, want all unlimited (nil)", bg.Capacity, bg.Rate, bg.Burst, bg.Concurrency, bg.WarningThreshold)
	}
	// Unset limits are present as null, and rules as an empty list.
	w := send(t, srv, "GET", trafficPath(srv, "main")+"/"+bg.ID, admin(srv), "")
	wantStatus(t, w, http.StatusOK)
	raw := decode[map[string]any](t, w)
	for _, field := range []string{"capacity", "rate", "burst", "concurrency", "warning_threshold"} {
		if v, ok := raw[field]; !ok || v != nil {
			t.Errorf("%s = %v (present %v), want null", field, v, ok)
		}
	}
	if rules, ok := raw["rules"].([]any); !ok || len(rules) != 0 {
		t.Errorf("rules = %#v, want []", raw["rules"])
	}
}

func TestTrafficBudgetStatuses(t *testing.T) {
	t.Parallel()
	srv, _ := newTrafficServer(t)
	base := trafficPath(srv, "main")
	w := send(t, srv, "POST", base, admin(srv), `{"name":"api","capacity":100}`)
	wantStatus(t, w, http.StatusCreated)
	id := decode[platform.TrafficBudget](t, w).ID
	w = send(t, srv, "POST", base+"/"+id+"/rules", admin(srv), `{"tags":["username=app"]}`)
	wantStatus(t, w, http.StatusCreated)
	rule := decode[map[string]any](t, w)
	for _, field := range []string{"fingerprint", "keyspace"} {
		if v, ok := rule[field]; !ok || v != nil {
			t.Errorf("rule %s = %v (present %v), want null", field, v, ok)
		}
	}
	if v, ok := rule["syntax_highlighted_sql"]; !ok || v != "" {
		t.Errorf("rule syntax_highlighted_sql = %v (present %v), want \"\"", v, ok)
	}
	wantStatus(t, send(t, srv, "GET", base, admin(srv), ""), http.StatusOK)
	wantStatus(t, send(t, srv, "GET", base+"/"+id, admin(srv), ""), http.StatusOK)
	wantStatus(t, send(t, srv, "PATCH", base+"/"+id, admin(srv), `{"mode":"off"}`), http.StatusOK)
	w = send(t, srv, "DELETE", base+"/"+id+"/rules/"+rule["id"].(string), admin(srv), "")
	wantStatus(t, w, http.StatusNoContent)
	w = send(t, srv, "DELETE", base+"/"+id, admin(srv), "")
	wantStatus(t, w, http.StatusNoContent)
	if len(w.body) != 0 {
		t.Errorf("delete answered a body: %s", w.body)
	}
}

// trafficLimitFields are the budget's limits and their largest values.
var trafficLimitFields = []struct {
	field string
	max   int
}{
	{"capacity", 6000}, {"rate", 100}, {"burst", 6000}, {"concurrency", 100}, {"warning_threshold", 100},
}

func TestTrafficBudgetLimitsInRange(t *testing.T) {
	t.Parallel()
	for _, l := range trafficLimitFields {
		for _, v := range []int{0, l.max} {
			t.Run(fmt.Sprintf("%s=%d", l.field, v), func(t *testing.T) {
				t.Parallel()
				srv, _ := newTrafficServer(t)
				w := send(t, srv, "POST", trafficPath(srv, "main"), admin(srv), fmt.Sprintf(`{"name":"b",%q:%d}`, l.field, v))
				wantStatus(t, w, http.StatusCreated)
				if got := decode[map[string]any](t, w)[l.field]; got != float64(v) {
					t.Errorf("%s = %v, want %d", l.field, got, v)
				}
			})
		}
	}
}

func TestTrafficBudgetLimitsOutOfRange(t *testing.T) {
	t.Parallel()
	for _, l := range trafficLimitFields {
		for _, v := range []int{-1, l.max + 1} {
			for _, op := range []string{"create", "update"} {
				t.Run(fmt.Sprintf("%s %s=%d", op, l.field, v), func(t *testing.T) {
					t.Parallel()
					srv, c := newTrafficServer(t)
					bg := trafficCreate(t, srv, c, "main", platform.CreateTrafficBudgetParams{Name: "b", Capacity: platform.Ptr(10)})
					before := trafficList(t, srv, c, "main", platform.ListTrafficBudgetsParams{})
					method, path, body := "POST", trafficPath(srv, "main"), fmt.Sprintf(`{"name":"other",%q:%d}`, l.field, v)
					if op == "update" {
						// A valid change comes first: nothing of it may stick.
						method, path, body = "PATCH", path+"/"+bg.ID, fmt.Sprintf(`{"name":"renamed","mode":"warn",%q:%d}`, l.field, v)
					}
					e := wantError(t, send(t, srv, method, path, admin(srv), body), http.StatusUnprocessableEntity, "unprocessable")
					if want := fmt.Sprintf("%s must be from 0 to %d", l.field, l.max); !strings.Contains(e.Message, want) {
						t.Errorf("message %q does not say %q", e.Message, want)
					}
					trafficUnchanged(t, srv, c, before)
				})
			}
		}
	}
}

func TestTrafficBudgetInvalidBodies(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		update bool // PATCH the budget "b" instead of creating one
		body   string
		status int
		words  []string
	}{
		{name: "no name", body: `{"mode":"warn"}`, status: 422, words: []string{"name is required"}},
		{name: "empty name", body: `{"name":"  "}`, status: 422, words: []string{"name must not be empty"}},
		{name: "long name", body: `{"name":"` + strings.Repeat("n", 256) + `"}`, status: 422, words: []string{"name", "255"}},
		{name: "name taken", body: `{"name":"b"}`, status: 422, words: []string{`"b"`, "taken"}},
		{name: "bad mode", body: `{"name":"x","mode":"block"}`, status: 422, words: []string{"mode", `"block"`, "enforce, warn or off"}},
		{name: "rule without =", body: `{"name":"x","rules":["route"]}`, status: 422, words: []string{"rules[0]", "key=value"}},
		{name: "rule without key", body: `{"name":"x","rules":["=checkout"]}`, status: 422, words: []string{"rules[0]", "no key"}},
		{name: "rule without value", body: `{"name":"x","rules":["username=ok","route="]}`, status: 422, words: []string{"rules[1]", "no value"}},
		{name: "rule with a bad key", body: `{"name":"x","rules":["ro ute=a"]}`, status: 422, words: []string{"rules[0]", "key"}},
		{name: "rule with a bad address", body: `{"name":"x","rules":["remote_address=10.0.0.300"]}`, status: 422, words: []string{"rules[0]", "remote_address", "CIDR"}},
		{name: "repeated rule", body: `{"name":"x","rules":["route=a","route=a"]}`, status: 422, words: []string{"rules[1]", "repeats rules[0]"}},
		{name: "limit of the wrong type", body: `{"name":"x","rate":"ten"}`, status: 400, words: []string{"field rate must be an integer, not a string"}},
		{name: "limit too large", body: `{"name":"x","capacity":99999999999999999999}`, status: 400, words: []string{"field capacity must be an integer from", "not 99999999999999999999"}},
		{name: "rules of the wrong type", body: `{"name":"x","rules":"route=a"}`, status: 400, words: []string{"rules"}},
		{name: "update: bad mode", update: true, body: `{"mode":"loud"}`, status: 422, words: []string{"mode", `"loud"`}},
		{name: "update: name taken", update: true, body: `{"name":"other"}`, status: 422, words: []string{`"other"`, "taken"}},
		{name: "update: empty name", update: true, body: `{"name":""}`, status: 422, words: []string{"name must not be empty"}},
		{name: "update: malformed rule", update: true, body: `{"mode":"off","rules":["route=a","checkout"]}`, status: 422, words: []string{"rules[1]", "key=value"}},
		{name: "rule object: bad kind", body: `{"name":"x","rules":["route=a",{"kind":"some","fingerprint":"f1"}]}`, status: 422, words: []string{"rules[1].kind", `"some"`}},
		{name: "rule object: unknown keyspace", body: `{"name":"x","rules":[{"kind":"match","fingerprint":"f1","keyspace":"nope"}]}`, status: 422, words: []string{"rules[0].keyspace", `"nope"`}},
		{name: "rule object: two tags", body: `{"name":"x","rules":[{"kind":"match","tags":["route=a",{"key":"username","value":"b"}]}]}`, status: 422, words: []string{"rules[0].tags", "at most one tag"}},
		{name: "rule object: malformed tag", body: `{"name":"x","rules":[{"kind":"match","tags":["route"]}]}`, status: 422, words: []string{"rules[0].tags[0]", "key=value"}},
		{name: "rule object: tag object without value", body: `{"name":"x","rules":[{"kind":"match","tags":[{"type":"Tag","key":"route"}]}]}`, status: 422, words: []string{"rules[0].tags[0]", "no value"}},
		{name: "rule object: neither fingerprint nor tag", body: `{"name":"x","rules":[{"kind":"each","keyspace":"` + trafficDB + `"}]}`, status: 422, words: []string{"rules[0]", "fingerprint or a tag"}},
		{name: "rule object repeats a string", body: `{"name":"x","rules":["route=a",{"tags":[{"key":"route","value":"a"}]}]}`, status: 422, words: []string{"rules[1] repeats rules[0]"}},
		{name: "rule object: a number", body: `{"name":"x","rules":[7]}`, status: 400, words: []string{"rules", "a rule is a string key=value or an object"}},
		{name: "rule object: null", body: `{"name":"x","rules":[null]}`, status: 400, words: []string{"rules", "a rule is a string key=value or an object"}},
		{name: "rule object: kind of the wrong type", body: `{"name":"x","rules":[{"kind":1,"fingerprint":"f1"}]}`, status: 400, words: []string{"rules", "a rule is a string key=value or an object"}},
		{name: "update: rule object with unknown keyspace", update: true, body: `{"mode":"off","rules":[{"fingerprint":"f1","keyspace":"nope"}]}`, status: 422, words: []string{"rules[0].keyspace", `"nope"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, c := newTrafficServer(t)
			bg := trafficCreate(t, srv, c, "main", platform.CreateTrafficBudgetParams{Name: "b", Rules: []string{"username=app"}})
			trafficCreate(t, srv, c, "main", platform.CreateTrafficBudgetParams{Name: "other"})
			before := trafficList(t, srv, c, "main", platform.ListTrafficBudgetsParams{})
			method, path := "POST", trafficPath(srv, "main")
			if tt.update {
				method, path = "PATCH", path+"/"+bg.ID
			}
			code := map[int]string{400: "bad_request", 422: "unprocessable"}[tt.status]
			e := wantError(t, send(t, srv, method, path, admin(srv), tt.body), tt.status, code)
			for _, w := range tt.words {
				if !strings.Contains(e.Message, w) {
					t.Errorf("message %q does not mention %q", e.Message, w)
				}
			}
			trafficUnchanged(t, srv, c, before)
		})
	}
}

// TestTrafficBudgetRuleObjects checks budget bodies whose rules are
// objects, as the service's official client sends them (kind, fingerprint,
// keyspace, tags as objects or strings), mixed with tags as strings, on
// create and update, through the SDK's RuleSpecs and as raw bodies.
func TestTrafficBudgetRuleObjects(t *testing.T) {
	t.Parallel()
	srv, c := newTrafficServer(t)
	type rule struct {
		Kind                  platform.TrafficRuleKind
		Keyspace, Fingerprint string
		Tags                  string
	}
	rulesOf := func(bg *platform.TrafficBudget) []rule {
		out := []rule{}
		for _, r := range bg.Rules {
			var tags []string
			for _, tag := range r.Tags {
				tags = append(tags, tag.String())
			}
			out = append(out, rule{r.Kind, trafficStr(r.Keyspace), trafficStr(r.Fingerprint), strings.Join(tags, ",")})
		}
		return out
	}
	bg := trafficCreate(t, srv, c, "main", platform.CreateTrafficBudgetParams{
		Name: "b", Rules: []string{"route=a"},
		RuleSpecs: []platform.TrafficBudgetRule{
			{Kind: platform.Ptr(platform.TrafficRuleEach), Keyspace: platform.Ptr(trafficDB), Fingerprint: platform.Ptr("f1")},
			{Tags: []string{"username=app"}},
		},
	})
	want := []rule{{platform.TrafficRuleMatch, "", "", "route=a"}, {platform.TrafficRuleEach, trafficDB, "f1", ""}, {platform.TrafficRuleMatch, "", "", "username=app"}}
	if diff := cmp.Diff(want, rulesOf(bg)); diff != "" {
		t.Errorf("created rules (-want +got):\n%s", diff)
	}
	// The client's form: tags as objects with their other fields.
	w := send(t, srv, "POST", trafficPath(srv, "main"), admin(srv), `{"name":"client","mode":"warn","rules":[{"kind":"match","fingerprint":"f2","keyspace":"`+trafficDB+`","tags":[{"type":"Tag","key_id":"k1","key":"route","value":"cart","source":"sql"}]}]}`)
	if w.status != http.StatusCreated {
		t.Fatalf("client-form body: %d %s", w.status, w.body)
	}
	var client platform.TrafficBudget
	if err := json.Unmarshal(w.body, &client); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]rule{{platform.TrafficRuleMatch, trafficDB, "f2", "route=cart"}}, rulesOf(&client)); diff != "" {
		t.Errorf("client-form rules (-want +got):\n%s", diff)
	}
	// An update replaces the rules, keeping (with its ID) a rule given
	// again with the same fields.
	kept := bg.Rules[1]
	up, err := c.TrafficBudgets.Update(t.Context(), &platform.UpdateTrafficBudgetParams{
		Organization: srv.Org(), Database: trafficDB, Branch: "main", ID: bg.ID,
		RuleSpecs: []platform.TrafficBudgetRule{{Kind: platform.Ptr(platform.TrafficRuleEach), Keyspace: platform.Ptr(trafficDB), Fingerprint: platform.Ptr("f1")}, {Fingerprint: platform.Ptr("f3")}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]rule{{platform.TrafficRuleEach, trafficDB, "f1", ""}, {platform.TrafficRuleMatch, "", "f3", ""}}, rulesOf(up)); diff != "" {
		t.Errorf("updated rules (-want +got):\n%s", diff)
	}
	if up.Rules[0].ID != kept.ID {
		t.Errorf("the rule given again has ID %s, want %s kept", up.Rules[0].ID, kept.ID)
	}
}

// trafficStr reads an optional string.
func trafficStr(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func TestTrafficRuleInvalid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		rule  platform.CreateTrafficRuleParams
		words []string
	}{
		{"bad kind", platform.CreateTrafficRuleParams{Kind: platform.Ptr(platform.TrafficRuleKind("some")), Tags: []string{"route=a"}}, []string{"kind", `"some"`, "match or each"}},
		{"two tags", platform.CreateTrafficRuleParams{Tags: []string{"route=a", "username=b"}}, []string{"tags", "at most one tag", "2"}},
		{"tag without =", platform.CreateTrafficRuleParams{Tags: []string{"route"}}, []string{"tags[0]", "key=value"}},
		{"tag without key", platform.CreateTrafficRuleParams{Tags: []string{"=a"}}, []string{"tags[0]", "no key"}},
		{"tag without value", platform.CreateTrafficRuleParams{Tags: []string{"route="}}, []string{"tags[0]", "no value"}},
		{"empty tag", platform.CreateTrafficRuleParams{Tags: []string{""}}, []string{"tags[0]", "key=value"}},
		{"tag key with a space", platform.CreateTrafficRuleParams{Tags: []string{"my route=a"}}, []string{"tags[0]", "tag key"}},
		{"tag key too long", platform.CreateTrafficRuleParams{Tags: []string{strings.Repeat("k", 65) + "=a"}}, []string{"tags[0]", "64"}},
		{"tag value too long", platform.CreateTrafficRuleParams{Tags: []string{"route=" + strings.Repeat("v", 256)}}, []string{"tags[0]", "255"}},
		{"remote_address not an address", platform.CreateTrafficRuleParams{Tags: []string{"remote_address=office"}}, []string{"remote_address", `"office"`}},
		{"neither fingerprint nor tag", platform.CreateTrafficRuleParams{}, []string{"fingerprint or a tag"}},
		{"keyspace only", platform.CreateTrafficRuleParams{Keyspace: platform.Ptr(trafficDB)}, []string{"fingerprint or a tag"}},
		{"empty fingerprint", platform.CreateTrafficRuleParams{Fingerprint: platform.Ptr("")}, []string{"fingerprint or a tag"}},
		{"unknown keyspace", platform.CreateTrafficRuleParams{Keyspace: platform.Ptr("nope"), Fingerprint: platform.Ptr("f00d")}, []string{"keyspace", `"nope"`, "main"}},
		{"same as an existing rule", platform.CreateTrafficRuleParams{Tags: []string{"username=app"}}, []string{"already has the same rule"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, c := newTrafficServer(t)
			bg := trafficCreate(t, srv, c, "main", platform.CreateTrafficBudgetParams{Name: "b", Rules: []string{"username=app"}})
			before := trafficList(t, srv, c, "main", platform.ListTrafficBudgetsParams{})
			p := tt.rule
			p.Organization, p.Database, p.Branch, p.BudgetID = srv.Org(), trafficDB, "main", bg.ID
			_, err := c.TrafficBudgets.CreateRule(t.Context(), &p)
			apiError(t, err, http.StatusUnprocessableEntity, tt.words...)
			trafficUnchanged(t, srv, c, before)
		})
	}
}

func TestTrafficRuleTags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		tag  string
		want platform.TrafficTag
		sql  string
	}{
		{"remote_address=10.1.2.3", platform.TrafficTag{Type: "TrafficTag", KeyID: "Bremote_address", Key: "remote_address", Value: "10.1.2.3", Source: platform.TagSourceSystem}, ""},
		{"remote_address=2001:db8::/32", platform.TrafficTag{Type: "TrafficTag", KeyID: "Bremote_address", Key: "remote_address", Value: "2001:db8::/32", Source: platform.TagSourceSystem}, ""},
		{"username=reporting", platform.TrafficTag{Type: "TrafficTag", KeyID: "Busername", Key: "username", Value: "reporting", Source: platform.TagSourceSystem}, ""},
		{"query_fingerprint=9f2c", platform.TrafficTag{Type: "TrafficTag", KeyID: "Bquery_fingerprint", Key: "query_fingerprint", Value: "9f2c", Source: platform.TagSourceSystem}, ""},
		{"route=checkout", platform.TrafficTag{Type: "TrafficTag", KeyID: "Sroute", Key: "route", Value: "checkout", Source: platform.TagSourceSQL}, "<pre>/* route=&#39;checkout&#39; */</pre>"},
		{"app.name=a=b", platform.TrafficTag{Type: "TrafficTag", KeyID: "Sapp.name", Key: "app.name", Value: "a=b", Source: platform.TagSourceSQL}, "<pre>/* app.name=&#39;a=b&#39; */</pre>"},
		{"Username=x", platform.TrafficTag{Type: "TrafficTag", KeyID: "SUsername", Key: "Username", Value: "x", Source: platform.TagSourceSQL}, "<pre>/* Username=&#39;x&#39; */</pre>"},
		{"job=<it's & done>", platform.TrafficTag{Type: "TrafficTag", KeyID: "Sjob", Key: "job", Value: "<it's & done>", Source: platform.TagSourceSQL}, `<pre>/* job=&#39;&lt;it\&#39;s &amp; done&gt;&#39; */</pre>`},
	}
	for _, tt := range tests {
		t.Run(tt.tag, func(t *testing.T) {
			t.Parallel()
			srv, c := newTrafficServer(t)
			bg := trafficCreate(t, srv, c, "main", platform.CreateTrafficBudgetParams{Name: "b"})
			r := trafficRule(t, srv, c, bg.ID, platform.CreateTrafficRuleParams{Tags: []string{tt.tag}})
			if diff := cmp.Diff([]*platform.TrafficTag{&tt.want}, r.Tags); diff != "" {
				t.Errorf("tags (-want +got):\n%s", diff)
			}
			if r.SyntaxHighlightedSQL != tt.sql {
				t.Errorf("syntax_highlighted_sql %q, want %q", r.SyntaxHighlightedSQL, tt.sql)
			}
			if r.Tags[0].String() != tt.tag {
				t.Errorf("tag String() = %q, want %q", r.Tags[0].String(), tt.tag)
			}
		})
	}
}

// TestTrafficRuleTagObjects checks that a rule's tag sent as an object, as
// the service's official Go client sends it, is the tag "key=value", and
// that a tag of another JSON type is a 400.
func TestTrafficRuleTagObjects(t *testing.T) {
	t.Parallel()
	srv, c := newTrafficServer(t)
	bg := trafficCreate(t, srv, c, "main", platform.CreateTrafficBudgetParams{Name: "b"})
	path := trafficPath(srv, "main") + "/" + bg.ID + "/rules"
	r := send(t, srv, "POST", path, admin(srv), `{"kind":"match","tags":[{"type":"","key_id":"","key":"route","value":"login"}]}`)
	wantStatus(t, r, http.StatusCreated)
	rule := decode[platform.TrafficRule](t, r)
	if len(rule.Tags) != 1 || rule.Tags[0].String() != "route=login" {
		t.Errorf("tags %v, want route=login", rule.Tags)
	}
	r = send(t, srv, "POST", path, admin(srv), `{"tags":[7]}`)
	wantStatus(t, r, http.StatusBadRequest)
}

func TestTrafficRuleKindsAndFingerprints(t *testing.T) {
	t.Parallel()
	srv, c := newTrafficServer(t)
	bg := trafficCreate(t, srv, c, "main", platform.CreateTrafficBudgetParams{Name: "b"})
	fp := trafficRule(t, srv, c, bg.ID, platform.CreateTrafficRuleParams{Keyspace: platform.Ptr(trafficDB), Fingerprint: platform.Ptr("f00d")})
	if fp.Kind != platform.TrafficRuleMatch || fp.Fingerprint == nil || *fp.Fingerprint != "f00d" || fp.Keyspace == nil || *fp.Keyspace != trafficDB {
		t.Errorf("fingerprint rule: kind %q fingerprint %v keyspace %v", fp.Kind, fp.Fingerprint, fp.Keyspace)
	}
	if len(fp.Tags) != 0 || fp.Tags == nil || fp.SyntaxHighlightedSQL != "" {
		t.Errorf("fingerprint rule: tags %#v, syntax_highlighted_sql %q; want [] and \"\"", fp.Tags, fp.SyntaxHighlightedSQL)
	}
	each := trafficRule(t, srv, c, bg.ID, platform.CreateTrafficRuleParams{Kind: platform.Ptr(platform.TrafficRuleEach), Tags: []string{"username=app"}})
	if each.Kind != platform.TrafficRuleEach {
		t.Errorf("kind %q, want each", each.Kind)
	}
	// The same tag with another kind, and the same fingerprint in any
	// keyspace, are other rules.
	trafficRule(t, srv, c, bg.ID, platform.CreateTrafficRuleParams{Tags: []string{"username=app"}})
	both := trafficRule(t, srv, c, bg.ID, platform.CreateTrafficRuleParams{Fingerprint: platform.Ptr("f00d"), Tags: []string{"route=a"}})
	if *both.Fingerprint != "f00d" || len(both.Tags) != 1 || both.Keyspace != nil {
		t.Errorf("rule with fingerprint and tag: %+v", both)
	}
}

func TestTrafficRulesEmbedded(t *testing.T) {
	t.Parallel()
	srv, c := newTrafficServer(t)
	ctx := t.Context()
	bg := trafficCreate(t, srv, c, "main", platform.CreateTrafficBudgetParams{Name: "b"})
	other := trafficCreate(t, srv, c, "main", platform.CreateTrafficBudgetParams{Name: "other"})
	r1 := trafficRule(t, srv, c, bg.ID, platform.CreateTrafficRuleParams{Tags: []string{"route=a"}})
	r2 := trafficRule(t, srv, c, bg.ID, platform.CreateTrafficRuleParams{Fingerprint: platform.Ptr("beef")})

	got, err := c.TrafficBudgets.Get(ctx, trafficRef(srv, "main", bg.ID))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]*platform.TrafficRule{r1, r2}, got.Rules); diff != "" {
		t.Errorf("rules of get (-want +got):\n%s", diff)
	}
	if !got.UpdatedAt.Equal(r2.CreatedAt.Time) {
		t.Errorf("budget updated_at %v, want the last rule's creation %v", got.UpdatedAt, r2.CreatedAt)
	}
	list := trafficList(t, srv, c, "main", platform.ListTrafficBudgetsParams{})
	if diff := cmp.Diff([]*platform.TrafficBudget{got, trafficGet(t, srv, c, other.ID)}, list); diff != "" {
		t.Errorf("list (-want +got):\n%s", diff)
	}

	if err := c.TrafficBudgets.DeleteRule(ctx, &platform.DeleteTrafficRuleParams{Organization: srv.Org(), Database: trafficDB, Branch: "main", BudgetID: bg.ID, ID: r1.ID}); err != nil {
		t.Fatal(err)
	}
	got = trafficGet(t, srv, c, bg.ID)
	if diff := cmp.Diff([]*platform.TrafficRule{r2}, got.Rules); diff != "" {
		t.Errorf("rules after delete (-want +got):\n%s", diff)
	}
	if !got.UpdatedAt.Equal(srv.Now().Truncate(time.Millisecond)) {
		t.Errorf("budget updated_at %v after a rule delete, want now %v", got.UpdatedAt, srv.Now())
	}
	list = trafficList(t, srv, c, "main", platform.ListTrafficBudgetsParams{})
	if diff := cmp.Diff([]*platform.TrafficRule{r2}, list[0].Rules); diff != "" {
		t.Errorf("listed rules after delete (-want +got):\n%s", diff)
	}
	err = c.TrafficBudgets.DeleteRule(ctx, &platform.DeleteTrafficRuleParams{Organization: srv.Org(), Database: trafficDB, Branch: "main", BudgetID: bg.ID, ID: r1.ID})
	apiError(t, err, http.StatusNotFound)
}

// trafficGet reads budget id of main.
func trafficGet(t *testing.T, srv *fake.Server, c *platform.Client, id string) *platform.TrafficBudget {
	t.Helper()
	bg, err := c.TrafficBudgets.Get(t.Context(), trafficRef(srv, "main", id))
	if err != nil {
		t.Fatalf("getting traffic budget %s: %v", id, err)
	}
	return bg
}

func TestTrafficBudgetUpdate(t *testing.T) {
	t.Parallel()
	srv, c := newTrafficServer(t)
	ctx := t.Context()
	bg := trafficCreate(t, srv, c, "main", platform.CreateTrafficBudgetParams{
		Name: "b", Capacity: platform.Ptr(100), Rate: platform.Ptr(10), Burst: platform.Ptr(50), Concurrency: platform.Ptr(5),
		Rules: []string{"route=a", "route=b"},
	})
	fpRule := trafficRule(t, srv, c, bg.ID, platform.CreateTrafficRuleParams{Fingerprint: platform.Ptr("beef")})
	srv.Advance(time.Second)

	// Every field at once; limits can be cleared.
	got, err := c.TrafficBudgets.Update(ctx, &platform.UpdateTrafficBudgetParams{
		Organization: srv.Org(), Database: trafficDB, Branch: "main", ID: bg.ID,
		Name: platform.Ptr("renamed"), Mode: platform.Ptr(platform.TrafficBudgetOff),
		Rate: platform.Ptr(20), WarningThreshold: platform.Ptr(90),
		Clear: []platform.TrafficBudgetLimit{platform.TrafficLimitCapacity, platform.TrafficLimitConcurrency},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := *bg
	want.Name, want.Mode = "renamed", platform.TrafficBudgetOff
	want.Capacity, want.Rate, want.Concurrency, want.WarningThreshold = nil, platform.Ptr(20), nil, platform.Ptr(90)
	want.Rules = append(append([]*platform.TrafficRule{}, bg.Rules...), fpRule)
	want.UpdatedAt = platform.NewTimestamp(srv.Now())
	if diff := cmp.Diff(&want, got); diff != "" {
		t.Errorf("updated (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(got, trafficGet(t, srv, c, bg.ID)); diff != "" {
		t.Errorf("get after update (-update +get):\n%s", diff)
	}

	// Absent fields stay as they are; null clears a limit.
	w := send(t, srv, "PATCH", trafficPath(srv, "main")+"/"+bg.ID, admin(srv), `{"rate":null}`)
	wantStatus(t, w, http.StatusOK)
	got = decode[*platform.TrafficBudget](t, w)
	if got.Rate != nil || got.Burst == nil || *got.Burst != 50 || got.WarningThreshold == nil || got.Name != "renamed" {
		t.Errorf("after {rate: null}: rate %v burst %v warning_threshold %v name %q", got.Rate, got.Burst, got.WarningThreshold, got.Name)
	}

	// Rules replace the budget's rules, keeping the ones that stay.
	srv.Advance(time.Second)
	got, err = c.TrafficBudgets.Update(ctx, &platform.UpdateTrafficBudgetParams{
		Organization: srv.Org(), Database: trafficDB, Branch: "main", ID: bg.ID,
		Rules: []string{"route=b", "username=app"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Rules) != 2 {
		t.Fatalf("rules %+v, want 2", got.Rules)
	}
	// route=b stays as it was; route=a and the fingerprint rule go;
	// username=app is new.
	if diff := cmp.Diff(bg.Rules[1], got.Rules[0]); diff != "" {
		t.Errorf("kept rule (-before +after):\n%s", diff)
	}
	added := got.Rules[1]
	if added.ID == bg.Rules[0].ID || added.ID == fpRule.ID || added.Tags[0].String() != "username=app" || !added.CreatedAt.Equal(srv.Now().Truncate(time.Millisecond)) {
		t.Errorf("added rule %+v", added)
	}
}

func TestTrafficBudgetDelete(t *testing.T) {
	t.Parallel()
	srv, c := newTrafficServer(t)
	ctx := t.Context()
	bg := trafficCreate(t, srv, c, "main", platform.CreateTrafficBudgetParams{Name: "b", Rules: []string{"route=a"}})
	keep := trafficCreate(t, srv, c, "main", platform.CreateTrafficBudgetParams{Name: "keep"})
	if err := c.TrafficBudgets.Delete(ctx, trafficRef(srv, "main", bg.ID)); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{keep.Name}, trafficNames(trafficList(t, srv, c, "main", platform.ListTrafficBudgetsParams{}))); diff != "" {
		t.Errorf("budgets after delete (-want +got):\n%s", diff)
	}
	_, err := c.TrafficBudgets.Get(ctx, trafficRef(srv, "main", bg.ID))
	apiError(t, err, http.StatusNotFound)
	apiError(t, c.TrafficBudgets.Delete(ctx, trafficRef(srv, "main", bg.ID)), http.StatusNotFound)
	err = c.TrafficBudgets.DeleteRule(ctx, &platform.DeleteTrafficRuleParams{Organization: srv.Org(), Database: trafficDB, Branch: "main", BudgetID: bg.ID, ID: bg.Rules[0].ID})
	apiError(t, err, http.StatusNotFound)
	// Its name is free again.
	trafficCreate(t, srv, c, "main", platform.CreateTrafficBudgetParams{Name: "b"})
}

func TestTrafficBudgetNotFound(t *testing.T) {
	t.Parallel()
	srv, c := newTrafficServer(t)
	if _, err := c.Branches.Create(t.Context(), &platform.CreateBranchParams{Organization: srv.Org(), Database: trafficDB, Name: "dev"}); err != nil {
		t.Fatal(err)
	}
	srv.Advance(5 * time.Second)
	bg := trafficCreate(t, srv, c, "main", platform.CreateTrafficBudgetParams{Name: "b", Rules: []string{"route=a"}})
	other := trafficCreate(t, srv, c, "main", platform.CreateTrafficBudgetParams{Name: "other", Rules: []string{"route=b"}})
	before := trafficList(t, srv, c, "main", platform.ListTrafficBudgetsParams{})
	db := "/v1/organizations/" + srv.Org() + "/databases/" + trafficDB
	main, dev := trafficPath(srv, "main"), trafficPath(srv, "dev")
	tests := []struct{ name, method, path, body string }{
		{"list on an unknown branch", "GET", db + "/branches/nope/traffic/budgets", ""},
		{"list in an unknown database", "GET", "/v1/organizations/" + srv.Org() + "/databases/nope/branches/main/traffic/budgets", ""},
		{"create on an unknown branch", "POST", db + "/branches/nope/traffic/budgets", `{"name":"x"}`},
		{"get an unknown budget", "GET", main + "/nope", ""},
		{"get on another branch", "GET", dev + "/" + bg.ID, ""},
		{"update an unknown budget", "PATCH", main + "/nope", `{"mode":"off"}`},
		{"update on another branch", "PATCH", dev + "/" + bg.ID, `{"mode":"off"}`},
		{"delete an unknown budget", "DELETE", main + "/nope", ""},
		{"delete on another branch", "DELETE", dev + "/" + bg.ID, ""},
		{"create a rule of an unknown budget", "POST", main + "/nope/rules", `{"tags":["route=c"]}`},
		{"create a rule on another branch", "POST", dev + "/" + bg.ID + "/rules", `{"tags":["route=c"]}`},
		{"delete an unknown rule", "DELETE", main + "/" + bg.ID + "/rules/nope", ""},
		{"delete another budget's rule", "DELETE", main + "/" + bg.ID + "/rules/" + other.Rules[0].ID, ""},
		{"delete a rule of an unknown budget", "DELETE", main + "/nope/rules/" + bg.Rules[0].ID, ""},
		{"delete a rule by its budget's ID", "DELETE", main + "/" + bg.ID + "/rules/" + bg.ID, ""},
	}
	for _, tt := range tests {
		if e := wantError(t, send(t, srv, tt.method, tt.path, admin(srv), tt.body), http.StatusNotFound, "not_found"); e.Message != "Not Found" {
			t.Errorf("%s: message %q", tt.name, e.Message)
		}
	}
	trafficUnchanged(t, srv, c, before)
	if got := trafficList(t, srv, c, "dev", platform.ListTrafficBudgetsParams{}); len(got) != 0 {
		t.Errorf("dev has budgets %v", trafficNames(got))
	}
}

func TestTrafficBudgetsGoWithTheirBranch(t *testing.T) {
	t.Parallel()
	srv, c := newTrafficServer(t)
	ctx := t.Context()
	newDev := func() {
		t.Helper()
		if _, err := c.Branches.Create(ctx, &platform.CreateBranchParams{Organization: srv.Org(), Database: trafficDB, Name: "dev"}); err != nil {
			t.Fatal(err)
		}
		srv.Advance(5 * time.Second)
	}
	newDev()
	bg := trafficCreate(t, srv, c, "dev", platform.CreateTrafficBudgetParams{Name: "b", Rules: []string{"route=a"}})
	if err := c.Branches.Delete(ctx, &platform.DeleteBranchParams{Organization: srv.Org(), Database: trafficDB, Branch: "dev"}); err != nil {
		t.Fatal(err)
	}
	_, err := c.TrafficBudgets.Get(ctx, trafficRef(srv, "dev", bg.ID))
	apiError(t, err, http.StatusNotFound)

	newDev() // a new branch of the same name starts without budgets
	if got := trafficList(t, srv, c, "dev", platform.ListTrafficBudgetsParams{}); len(got) != 0 {
		t.Errorf("new dev has budgets %v", trafficNames(got))
	}
	_, err = c.TrafficBudgets.Get(ctx, trafficRef(srv, "dev", bg.ID))
	apiError(t, err, http.StatusNotFound)
	trafficCreate(t, srv, c, "dev", platform.CreateTrafficBudgetParams{Name: "b"})
}

func TestTrafficBudgetList(t *testing.T) {
	t.Parallel()
	srv, c := newTrafficServer(t)
	ctx := t.Context()
	start := srv.Now()
	a := trafficCreate(t, srv, c, "main", platform.CreateTrafficBudgetParams{Name: "a"})
	trafficRule(t, srv, c, a.ID, platform.CreateTrafficRuleParams{Fingerprint: platform.Ptr("f1")})
	srv.Advance(time.Minute)
	mid := srv.Now()
	trafficCreate(t, srv, c, "main", platform.CreateTrafficBudgetParams{Name: "b", Rules: []string{"query_fingerprint=f1"}})
	trafficCreate(t, srv, c, "main", platform.CreateTrafficBudgetParams{Name: "c", Rules: []string{"route=f1"}})
	end := srv.Now()

	tests := []struct {
		name string
		p    platform.ListTrafficBudgetsParams
		want []string
	}{
		{"all", platform.ListTrafficBudgetsParams{}, []string{"a", "b", "c"}},
		{"newest first", platform.ListTrafficBudgetsParams{Order: platform.OrderDesc}, []string{"c", "b", "a"}},
		{"pages of one", platform.ListTrafficBudgetsParams{ListParams: platform.ListParams{PerPage: 1}}, []string{"a", "b", "c"}},
		{"by fingerprint", platform.ListTrafficBudgetsParams{Fingerprint: "f1"}, []string{"a", "b"}},
		{"by another fingerprint", platform.ListTrafficBudgetsParams{Fingerprint: "f2"}, []string{}},
		{"created in a range", platform.ListTrafficBudgetsParams{CreatedAt: &platform.TimeRange{Start: mid, End: end}}, []string{"b", "c"}},
		{"created before", platform.ListTrafficBudgetsParams{CreatedAt: &platform.TimeRange{Start: start.Add(-time.Hour), End: start}}, []string{"a"}},
		{"range and fingerprint", platform.ListTrafficBudgetsParams{Fingerprint: "f1", CreatedAt: &platform.TimeRange{Start: mid, End: end}, Order: platform.OrderDesc}, []string{"b"}},
		{"a period selects no budgets away", platform.ListTrafficBudgetsParams{Period: platform.TrafficPeriod1h}, []string{"a", "b", "c"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, trafficNames(trafficList(t, srv, c, "main", tt.p))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}

	page, err := c.TrafficBudgets.List(ctx, &platform.ListTrafficBudgetsParams{Organization: srv.Org(), Database: trafficDB, Branch: "main", ListParams: platform.ListParams{Page: 2, PerPage: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if page.CurrentPage != 2 || page.NextPage != nil || page.PrevPage == nil || *page.PrevPage != 1 || len(page.Items) != 1 || page.Items[0].Name != "c" {
		t.Errorf("page 2 of 2: %+v", page)
	}
	if page.TotalCount != nil {
		t.Errorf("total_count %v, want none: the list does not report totals", *page.TotalCount)
	}

	for _, q := range []string{"period=2w", "created_at=yesterday", "created_at=2026-01-02T00:00:00Z..2026-01-01T00:00:00Z"} {
		wantError(t, send(t, srv, "GET", trafficPath(srv, "main")+"?"+q, admin(srv), ""), http.StatusBadRequest, "bad_request")
	}
}

func TestTrafficBudgetPermissions(t *testing.T) {
	t.Parallel()
	srv, c := newTrafficServer(t)
	ctx := t.Context()
	mustDB(t, srv, "other-db")
	bg := trafficCreate(t, srv, c, "main", platform.CreateTrafficBudgetParams{Name: "b", Rules: []string{"route=a"}})
	before := trafficList(t, srv, c, "main", platform.ListTrafficBudgetsParams{})
	reader := srv.ClientFor(mustToken(t, srv, fake.TokenSpec{Name: "reader", DatabasePermissions: map[string][]platform.Permission{trafficDB: {"read_branch"}}}))
	writer := srv.ClientFor(mustToken(t, srv, fake.TokenSpec{Name: "writer", DatabasePermissions: map[string][]platform.Permission{trafficDB: {"write_database"}}}))
	elsewhere := srv.ClientFor(mustToken(t, srv, fake.TokenSpec{Name: "elsewhere", DatabasePermissions: map[string][]platform.Permission{"other-db": {"read_branch", "write_database"}}}))
	none := srv.ClientFor(mustToken(t, srv, fake.TokenSpec{Name: "none"}))

	// Reading needs a branch permission; write_database alone does not do.
	if diff := cmp.Diff(before, trafficList(t, srv, reader, "main", platform.ListTrafficBudgetsParams{})); diff != "" {
		t.Errorf("reader's list (-want +got):\n%s", diff)
	}
	if _, err := reader.TrafficBudgets.Get(ctx, trafficRef(srv, "main", bg.ID)); err != nil {
		t.Errorf("reader's get: %v", err)
	}
	for name, rc := range map[string]*platform.Client{"writer": writer, "elsewhere": elsewhere, "none": none} {
		_, err := rc.TrafficBudgets.List(ctx, &platform.ListTrafficBudgetsParams{Organization: srv.Org(), Database: trafficDB, Branch: "main"})
		apiError(t, err, http.StatusNotFound)
		_, err = rc.TrafficBudgets.Get(ctx, trafficRef(srv, "main", bg.ID))
		if !errors.Is(err, platform.ErrNotFound) {
			t.Errorf("%s's get: %v, want not found", name, err)
		}
	}

	// Changing needs write_database.
	refused := map[string]func(c *platform.Client) error{
		"create": func(c *platform.Client) error {
			_, err := c.TrafficBudgets.Create(ctx, &platform.CreateTrafficBudgetParams{Organization: srv.Org(), Database: trafficDB, Branch: "main", Name: "new"})
			return err
		},
		"update": func(c *platform.Client) error {
			_, err := c.TrafficBudgets.Update(ctx, &platform.UpdateTrafficBudgetParams{Organization: srv.Org(), Database: trafficDB, Branch: "main", ID: bg.ID, Mode: platform.Ptr(platform.TrafficBudgetOff)})
			return err
		},
		"delete": func(c *platform.Client) error {
			return c.TrafficBudgets.Delete(ctx, trafficRef(srv, "main", bg.ID))
		},
		"create rule": func(c *platform.Client) error {
			_, err := c.TrafficBudgets.CreateRule(ctx, &platform.CreateTrafficRuleParams{Organization: srv.Org(), Database: trafficDB, Branch: "main", BudgetID: bg.ID, Tags: []string{"route=b"}})
			return err
		},
		"delete rule": func(c *platform.Client) error {
			return c.TrafficBudgets.DeleteRule(ctx, &platform.DeleteTrafficRuleParams{Organization: srv.Org(), Database: trafficDB, Branch: "main", BudgetID: bg.ID, ID: bg.Rules[0].ID})
		},
	}
	for op, call := range refused {
		for name, rc := range map[string]*platform.Client{"reader": reader, "elsewhere": elsewhere, "none": none} {
			if e := apiError(t, call(rc), http.StatusNotFound); e.Message != "Not Found" {
				t.Errorf("%s by %s: message %q", op, name, e.Message)
			}
		}
	}
	trafficUnchanged(t, srv, c, before)

	// write_database on the database is enough to change.
	r, err := writer.TrafficBudgets.CreateRule(ctx, &platform.CreateTrafficRuleParams{Organization: srv.Org(), Database: trafficDB, Branch: "main", BudgetID: bg.ID, Tags: []string{"route=b"}})
	if err != nil {
		t.Fatalf("writer's create rule: %v", err)
	}
	if err := writer.TrafficBudgets.DeleteRule(ctx, &platform.DeleteTrafficRuleParams{Organization: srv.Org(), Database: trafficDB, Branch: "main", BudgetID: bg.ID, ID: r.ID}); err != nil {
		t.Errorf("writer's delete rule: %v", err)
	}
	if _, err := writer.TrafficBudgets.Create(ctx, &platform.CreateTrafficBudgetParams{Organization: srv.Org(), Database: trafficDB, Branch: "main", Name: "new"}); err != nil {
		t.Errorf("writer's create: %v", err)
	}
}

func TestTrafficBudgetStrictBodies(t *testing.T) {
	t.Parallel()
	srv, c := newTrafficServer(t, fake.WithStrictBodies())
	bg := trafficCreate(t, srv, c, "main", platform.CreateTrafficBudgetParams{Name: "b", Rules: []string{"route=a"}})
	before := trafficList(t, srv, c, "main", platform.ListTrafficBudgetsParams{})
	base := trafficPath(srv, "main")
	for _, req := range []struct{ method, path, body string }{
		{"POST", base, `{"name":"x","limit":5}`},
		{"PATCH", base + "/" + bg.ID, `{"capacity":null,"limit":5}`},
		{"POST", base + "/" + bg.ID + "/rules", `{"tags":["route=b"],"limit":5}`},
	} {
		if e := wantError(t, send(t, srv, req.method, req.path, admin(srv), req.body), http.StatusBadRequest, "bad_request"); !strings.Contains(e.Message, "limit") {
			t.Errorf("%s %s: message %q does not name the field", req.method, req.path, e.Message)
		}
	}
	trafficUnchanged(t, srv, c, before)
}
