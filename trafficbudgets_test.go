package platform_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// trafficRuleJSON is a traffic rule as the API sends it, written from the
// reference independently of the SDK's types.
const trafficRuleJSON = `{
	"id": "r1", "type": "TrafficRule", "kind": "match",
	"tags": [{"type": "TrafficTag", "key_id": "Sroute", "key": "route", "value": "checkout", "source": "sql"}],
	"fingerprint": null, "keyspace": null,
	"actor": {"id": "u1", "type": "User", "display_name": "Ada", "avatar_url": "https://avatars.example.com/u1"},
	"syntax_highlighted_sql": "<pre>/* route=&#39;checkout&#39; */</pre>",
	"created_at": "2026-01-14T10:19:23.000Z", "updated_at": "2026-01-14T10:19:23.000Z"
}`

// trafficBudgetJSON is a traffic budget as the API sends it, written from
// the reference independently of the SDK's types.
const trafficBudgetJSON = `{
	"id": "tb1", "type": "TrafficBudget", "name": "Checkout", "mode": "warn",
	"capacity": 1200, "rate": 25, "burst": null, "concurrency": 40, "warning_threshold": null,
	"actor": {"id": "u1", "type": "User", "display_name": "Ada", "avatar_url": "https://avatars.example.com/u1"},
	"rules": [` + trafficRuleJSON + `, {
		"id": "r2", "type": "TrafficRule", "kind": "each",
		"tags": [],
		"fingerprint": "9f2c", "keyspace": "app-db",
		"actor": {"id": "u1", "type": "User", "display_name": "Ada", "avatar_url": "https://avatars.example.com/u1"},
		"syntax_highlighted_sql": "",
		"created_at": "2026-01-14T10:19:24.000Z", "updated_at": "2026-01-14T10:19:24.000Z"
	}],
	"created_at": "2026-01-14T10:19:22.000Z", "updated_at": "2026-01-14T10:19:24.000Z"
}`

// trafficBudgetListJSON is the last page of a list of one budget.
const trafficBudgetListJSON = `{
	"type": "list", "current_page": 2, "per_page": 1,
	"next_page": null, "next_page_url": null,
	"prev_page": 1, "prev_page_url": "https://api.example.com/v1/x?page=1",
	"data": [` + trafficBudgetJSON + `]
}`

// wantTrafficRule is trafficRuleJSON decoded by hand.
func wantTrafficRule(t *testing.T) *platform.TrafficRule {
	at := mustTimestamp(t, "2026-01-14T10:19:23Z")
	return &platform.TrafficRule{
		ID: "r1", Type: "TrafficRule", Kind: platform.TrafficRuleMatch,
		Tags:                 []*platform.TrafficTag{{Type: "TrafficTag", KeyID: "Sroute", Key: "route", Value: "checkout", Source: platform.TagSourceSQL}},
		Actor:                &platform.Actor{ID: "u1", Type: "User", DisplayName: "Ada", AvatarURL: "https://avatars.example.com/u1"},
		SyntaxHighlightedSQL: "<pre>/* route=&#39;checkout&#39; */</pre>",
		CreatedAt:            at, UpdatedAt: at,
	}
}

// wantTrafficBudget is trafficBudgetJSON decoded by hand.
func wantTrafficBudget(t *testing.T) *platform.TrafficBudget {
	at := mustTimestamp(t, "2026-01-14T10:19:24Z")
	actor := &platform.Actor{ID: "u1", Type: "User", DisplayName: "Ada", AvatarURL: "https://avatars.example.com/u1"}
	return &platform.TrafficBudget{
		ID: "tb1", Type: "TrafficBudget", Name: "Checkout", Mode: platform.TrafficBudgetWarn,
		Capacity: platform.Ptr(1200), Rate: platform.Ptr(25), Concurrency: platform.Ptr(40),
		Actor: actor,
		Rules: []*platform.TrafficRule{wantTrafficRule(t), {
			ID: "r2", Type: "TrafficRule", Kind: platform.TrafficRuleEach, Tags: []*platform.TrafficTag{},
			Fingerprint: platform.Ptr("9f2c"), Keyspace: platform.Ptr("app-db"), Actor: actor,
			CreatedAt: at, UpdatedAt: at,
		}},
		CreatedAt: mustTimestamp(t, "2026-01-14T10:19:22Z"), UpdatedAt: at,
	}
}

func TestTrafficBudgetsWire(t *testing.T) {
	t.Parallel()
	const base = "/v1/organizations/acme/databases/app%20db/branches/main/traffic/budgets"
	budget := func(id string) *platform.TrafficBudgetParams {
		return &platform.TrafficBudgetParams{Organization: "acme", Database: "app db", Branch: "main", ID: id}
	}
	start, end := mustTimestamp(t, "2026-01-01T00:00:00Z").Time, mustTimestamp(t, "2026-01-02T12:30:00Z").Time
	tests := []struct {
		name     string
		call     func(ctx context.Context, c *platform.Client) (any, error)
		status   int
		response string
		method   string
		path     string
		query    url.Values
		body     string
		want     func(t *testing.T) any
	}{{
		name: "list",
		call: func(ctx context.Context, c *platform.Client) (any, error) {
			return c.TrafficBudgets.List(ctx, &platform.ListTrafficBudgetsParams{
				Organization: "acme", Database: "app db", Branch: "main",
				Period: platform.TrafficPeriod12h, CreatedAt: &platform.TimeRange{Start: start, End: end},
				Fingerprint: "9f2c", Order: platform.OrderDesc, ListParams: platform.ListParams{Page: 2, PerPage: 1},
			})
		},
		status: 200, response: trafficBudgetListJSON,
		method: "GET", path: base,
		query: url.Values{
			"period": {"12h"}, "created_at": {"2026-01-01T00:00:00Z..2026-01-02T12:30:00Z"},
			"fingerprint": {"9f2c"}, "order": {"desc"}, "page": {"2"}, "per_page": {"1"},
		},
		want: func(t *testing.T) any {
			return &platform.Page[platform.TrafficBudget]{
				Type: "list", CurrentPage: 2, PerPage: 1, PrevPage: platform.Ptr(1),
				PrevPageURL: platform.Ptr("https://api.example.com/v1/x?page=1"),
				Items:       []*platform.TrafficBudget{wantTrafficBudget(t)},
			}
		},
	}, {
		name: "create",
		call: func(ctx context.Context, c *platform.Client) (any, error) {
			return c.TrafficBudgets.Create(ctx, &platform.CreateTrafficBudgetParams{
				Organization: "acme", Database: "app db", Branch: "main",
				Name: "Checkout", Mode: platform.Ptr(platform.TrafficBudgetWarn),
				Capacity: platform.Ptr(0), Rate: platform.Ptr(25), Concurrency: platform.Ptr(40),
				Rules: []string{"route=checkout"},
			})
		},
		status: 201, response: trafficBudgetJSON,
		method: "POST", path: base,
		body: `{"name":"Checkout","mode":"warn","capacity":0,"rate":25,"concurrency":40,"rules":["route=checkout"]}`,
		want: func(t *testing.T) any { return wantTrafficBudget(t) },
	}, {
		name: "create with the name only",
		call: func(ctx context.Context, c *platform.Client) (any, error) {
			return c.TrafficBudgets.Create(ctx, &platform.CreateTrafficBudgetParams{Organization: "acme", Database: "app db", Branch: "main", Name: "Checkout"})
		},
		status: 201, response: trafficBudgetJSON,
		method: "POST", path: base, body: `{"name":"Checkout"}`,
		want: func(t *testing.T) any { return wantTrafficBudget(t) },
	}, {
		name: "get",
		call: func(ctx context.Context, c *platform.Client) (any, error) {
			return c.TrafficBudgets.Get(ctx, budget("tb/1"))
		},
		status: 200, response: trafficBudgetJSON,
		method: "GET", path: base + "/tb%2F1",
		want: func(t *testing.T) any { return wantTrafficBudget(t) },
	}, {
		name: "update",
		call: func(ctx context.Context, c *platform.Client) (any, error) {
			return c.TrafficBudgets.Update(ctx, &platform.UpdateTrafficBudgetParams{
				Organization: "acme", Database: "app db", Branch: "main", ID: "tb1",
				Name: platform.Ptr("Renamed"), Mode: platform.Ptr(platform.TrafficBudgetOff),
				Burst: platform.Ptr(6000), WarningThreshold: platform.Ptr(0),
				Rules: []string{"username=app"},
				Clear: []platform.TrafficBudgetLimit{platform.TrafficLimitCapacity, platform.TrafficLimitRate},
			})
		},
		status: 200, response: trafficBudgetJSON,
		method: "PATCH", path: base + "/tb1",
		body: `{"name":"Renamed","mode":"off","burst":6000,"warning_threshold":0,"rules":["username=app"],"capacity":null,"rate":null}`,
		want: func(t *testing.T) any { return wantTrafficBudget(t) },
	}, {
		name: "update nothing",
		call: func(ctx context.Context, c *platform.Client) (any, error) {
			return c.TrafficBudgets.Update(ctx, &platform.UpdateTrafficBudgetParams{Organization: "acme", Database: "app db", Branch: "main", ID: "tb1"})
		},
		status: 200, response: trafficBudgetJSON,
		method: "PATCH", path: base + "/tb1", body: `{}`,
		want: func(t *testing.T) any { return wantTrafficBudget(t) },
	}, {
		name: "delete",
		call: func(ctx context.Context, c *platform.Client) (any, error) {
			return nil, c.TrafficBudgets.Delete(ctx, budget("tb1"))
		},
		status: 204,
		method: "DELETE", path: base + "/tb1",
	}, {
		name: "create rule",
		call: func(ctx context.Context, c *platform.Client) (any, error) {
			return c.TrafficBudgets.CreateRule(ctx, &platform.CreateTrafficRuleParams{
				Organization: "acme", Database: "app db", Branch: "main", BudgetID: "tb/1",
				Kind: platform.Ptr(platform.TrafficRuleMatch), Keyspace: platform.Ptr("app-db"),
				Fingerprint: platform.Ptr("9f2c"), Tags: []string{"route=checkout"},
			})
		},
		status: 201, response: trafficRuleJSON,
		method: "POST", path: base + "/tb%2F1/rules",
		body: `{"kind":"match","keyspace":"app-db","fingerprint":"9f2c","tags":["route=checkout"]}`,
		want: func(t *testing.T) any { return wantTrafficRule(t) },
	}, {
		name: "create rule with a tag only",
		call: func(ctx context.Context, c *platform.Client) (any, error) {
			return c.TrafficBudgets.CreateRule(ctx, &platform.CreateTrafficRuleParams{
				Organization: "acme", Database: "app db", Branch: "main", BudgetID: "tb1", Tags: []string{"route=checkout"},
			})
		},
		status: 201, response: trafficRuleJSON,
		method: "POST", path: base + "/tb1/rules", body: `{"tags":["route=checkout"]}`,
		want: func(t *testing.T) any { return wantTrafficRule(t) },
	}, {
		name: "delete rule",
		call: func(ctx context.Context, c *platform.Client) (any, error) {
			return nil, c.TrafficBudgets.DeleteRule(ctx, &platform.DeleteTrafficRuleParams{
				Organization: "acme", Database: "app db", Branch: "main", BudgetID: "tb1", ID: "r/1",
			})
		},
		status: 204,
		method: "DELETE", path: base + "/tb1/rules/r%2F1",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWire(t, tt.status, tt.response)
			got, err := tt.call(t.Context(), w.client)
			if err != nil {
				t.Fatalf("call: %v", err)
			}
			checkRequest(t, w.only(), wantRequest{Method: tt.method, Path: tt.path, RawQuery: tt.query.Encode(), Body: tt.body})
			if tt.want == nil {
				return
			}
			if diff := cmp.Diff(tt.want(t), got); diff != "" {
				t.Errorf("decoded (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTrafficBudgetRoundTrip checks that a budget as the API sends it
// survives a decode into the SDK's type and an encode back: every key kept,
// none added, every value the same.
func TestTrafficBudgetRoundTrip(t *testing.T) {
	t.Parallel()
	var bg platform.TrafficBudget
	dec := json.NewDecoder(strings.NewReader(trafficBudgetJSON))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&bg); err != nil {
		t.Fatalf("decoding: %v", err)
	}
	again, err := json.Marshal(&bg)
	if err != nil {
		t.Fatal(err)
	}
	checkSameJSON(t, []byte(trafficBudgetJSON), again)
}

func TestTrafficBudgetsArgErrors(t *testing.T) {
	t.Parallel()
	type names struct{ org, db, branch, budget, rule string }
	calls := map[string]func(ctx context.Context, c *platform.Client, n names) error{
		"List": func(ctx context.Context, c *platform.Client, n names) error {
			_, err := c.TrafficBudgets.List(ctx, &platform.ListTrafficBudgetsParams{Organization: n.org, Database: n.db, Branch: n.branch})
			return err
		},
		"Create": func(ctx context.Context, c *platform.Client, n names) error {
			_, err := c.TrafficBudgets.Create(ctx, &platform.CreateTrafficBudgetParams{Organization: n.org, Database: n.db, Branch: n.branch, Name: "b"})
			return err
		},
		"Get": func(ctx context.Context, c *platform.Client, n names) error {
			_, err := c.TrafficBudgets.Get(ctx, &platform.GetTrafficBudgetParams{Organization: n.org, Database: n.db, Branch: n.branch, ID: n.budget})
			return err
		},
		"Update": func(ctx context.Context, c *platform.Client, n names) error {
			_, err := c.TrafficBudgets.Update(ctx, &platform.UpdateTrafficBudgetParams{Organization: n.org, Database: n.db, Branch: n.branch, ID: n.budget})
			return err
		},
		"Delete": func(ctx context.Context, c *platform.Client, n names) error {
			return c.TrafficBudgets.Delete(ctx, &platform.DeleteTrafficBudgetParams{Organization: n.org, Database: n.db, Branch: n.branch, ID: n.budget})
		},
		"CreateRule": func(ctx context.Context, c *platform.Client, n names) error {
			_, err := c.TrafficBudgets.CreateRule(ctx, &platform.CreateTrafficRuleParams{Organization: n.org, Database: n.db, Branch: n.branch, BudgetID: n.budget, Tags: []string{"route=a"}})
			return err
		},
		"DeleteRule": func(ctx context.Context, c *platform.Client, n names) error {
			return c.TrafficBudgets.DeleteRule(ctx, &platform.DeleteTrafficRuleParams{Organization: n.org, Database: n.db, Branch: n.branch, BudgetID: n.budget, ID: n.rule})
		},
	}
	// budgetArg is the name of the budget's path value in each method.
	budgetArg := map[string]string{"Get": "id", "Update": "id", "Delete": "id", "CreateRule": "budget_id", "DeleteRule": "budget_id"}
	for method, call := range calls {
		args := []string{"organization", "database", "branch"}
		if a, ok := budgetArg[method]; ok {
			args = append(args, a)
		}
		if method == "DeleteRule" {
			args = append(args, "id")
		}
		for i, arg := range args {
			t.Run(method+" without "+arg, func(t *testing.T) {
				t.Parallel()
				w := newWire(t, 200, "{}")
				vals := []string{"acme", "app-db", "main", "tb1", "r1"}
				vals[i] = ""
				err := call(t.Context(), w.client, names{vals[0], vals[1], vals[2], vals[3], vals[4]})
				var argErr *platform.ArgError
				if !errors.As(err, &argErr) || argErr.Arg != arg {
					t.Fatalf("error %v, want an *ArgError for %s", err, arg)
				}
				if n := len(w.requests()); n != 0 {
					t.Errorf("%d requests sent, want none", n)
				}
			})
		}
	}
}

func TestTrafficBudgetsBadParams(t *testing.T) {
	t.Parallel()
	update := func(p platform.UpdateTrafficBudgetParams) func(ctx context.Context, c *platform.Client) error {
		p.Organization, p.Database, p.Branch, p.ID = "acme", "app-db", "main", "tb1"
		return func(ctx context.Context, c *platform.Client) error {
			_, err := c.TrafficBudgets.Update(ctx, &p)
			return err
		}
	}
	tests := []struct {
		name string
		call func(ctx context.Context, c *platform.Client) error
		arg  string
	}{
		{"limit set and cleared", update(platform.UpdateTrafficBudgetParams{Rate: platform.Ptr(5), Clear: []platform.TrafficBudgetLimit{platform.TrafficLimitRate}}), "rate"},
		{"unknown limit cleared", update(platform.UpdateTrafficBudgetParams{Clear: []platform.TrafficBudgetLimit{"speed"}}), "clear"},
		{"bad order", func(ctx context.Context, c *platform.Client) error {
			_, err := c.TrafficBudgets.List(ctx, &platform.ListTrafficBudgetsParams{Organization: "acme", Database: "app-db", Branch: "main", Order: "newest"})
			return err
		}, "order"},
		{"bad per_page", func(ctx context.Context, c *platform.Client) error {
			_, err := c.TrafficBudgets.List(ctx, &platform.ListTrafficBudgetsParams{Organization: "acme", Database: "app-db", Branch: "main", ListParams: platform.ListParams{PerPage: 101}})
			return err
		}, "per_page"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWire(t, 200, "{}")
			var argErr *platform.ArgError
			if err := tt.call(t.Context(), w.client); !errors.As(err, &argErr) || argErr.Arg != tt.arg {
				t.Fatalf("error %v, want an *ArgError for %s", err, tt.arg)
			}
			if n := len(w.requests()); n != 0 {
				t.Errorf("%d requests sent, want none", n)
			}
		})
	}
}

// TestTrafficBudgetsErrorResponse checks that an API error reaches the
// caller classified, with its message.
func TestTrafficBudgetsErrorResponse(t *testing.T) {
	t.Parallel()
	w := newWire(t, http.StatusUnprocessableEntity, `{"code":"unprocessable","message":"a rule needs a fingerprint or a tag"}`)
	_, err := w.client.TrafficBudgets.CreateRule(t.Context(), &platform.CreateTrafficRuleParams{Organization: "acme", Database: "app-db", Branch: "main", BudgetID: "tb1"})
	var apiErr *platform.Error
	if !errors.As(err, &apiErr) || !errors.Is(err, platform.ErrUnprocessable) {
		t.Fatalf("CreateRule error %v, want an unprocessable *platform.Error", err)
	}
	if apiErr.Message != "a rule needs a fingerprint or a tag" {
		t.Errorf("message %q", apiErr.Message)
	}
}

// TestTrafficBudgetsAgainstTheFake runs one budget through its life on the
// fake: the SDK and the fake agree on every operation.
func TestTrafficBudgetsAgainstTheFake(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	c := srv.Client()
	newReadyDatabase(t, srv, "app-db")
	ctx := t.Context()
	org := srv.Org()
	bg, err := c.TrafficBudgets.Create(ctx, &platform.CreateTrafficBudgetParams{
		Organization: org, Database: "app-db", Branch: "main", Name: "reports",
		Mode: platform.Ptr(platform.TrafficBudgetWarn), Concurrency: platform.Ptr(10), Rules: []string{"username=reporting"},
	})
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.TrafficBudgets.CreateRule(ctx, &platform.CreateTrafficRuleParams{
		Organization: org, Database: "app-db", Branch: "main", BudgetID: bg.ID, Tags: []string{"job=nightly"},
	})
	if err != nil {
		t.Fatal(err)
	}
	srv.Advance(time.Second)
	up, err := c.TrafficBudgets.Update(ctx, &platform.UpdateTrafficBudgetParams{
		Organization: org, Database: "app-db", Branch: "main", ID: bg.ID,
		Mode: platform.Ptr(platform.TrafficBudgetEnforce), Clear: []platform.TrafficBudgetLimit{platform.TrafficLimitConcurrency},
	})
	if err != nil {
		t.Fatal(err)
	}
	if up.Mode != platform.TrafficBudgetEnforce || up.Concurrency != nil || len(up.Rules) != 2 || up.Rules[1].ID != r.ID {
		t.Errorf("updated budget: mode %q concurrency %v rules %d", up.Mode, up.Concurrency, len(up.Rules))
	}
	var listed []*platform.TrafficBudget
	for b, err := range c.TrafficBudgets.All(ctx, &platform.ListTrafficBudgetsParams{Organization: org, Database: "app-db", Branch: "main"}) {
		if err != nil {
			t.Fatal(err)
		}
		listed = append(listed, b)
	}
	if diff := cmp.Diff([]*platform.TrafficBudget{up}, listed); diff != "" {
		t.Errorf("list (-want +got):\n%s", diff)
	}
	if err := c.TrafficBudgets.DeleteRule(ctx, &platform.DeleteTrafficRuleParams{Organization: org, Database: "app-db", Branch: "main", BudgetID: bg.ID, ID: r.ID}); err != nil {
		t.Fatal(err)
	}
	if err := c.TrafficBudgets.Delete(ctx, &platform.DeleteTrafficBudgetParams{Organization: org, Database: "app-db", Branch: "main", ID: bg.ID}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.TrafficBudgets.Get(ctx, &platform.GetTrafficBudgetParams{Organization: org, Database: "app-db", Branch: "main", ID: bg.ID}); !errors.Is(err, platform.ErrNotFound) {
		t.Errorf("get after delete: %v, want not found", err)
	}
}

// TestTrafficBudgetRuleSpecsBody checks the rules a budget's body carries:
// the tags as strings, then the rules in full as objects; none when
// neither is given; with the update's cleared limits.
func TestTrafficBudgetRuleSpecsBody(t *testing.T) {
	t.Parallel()
	spec := platform.TrafficBudgetRule{Kind: platform.Ptr(platform.TrafficRuleEach), Keyspace: platform.Ptr("ks"), Fingerprint: platform.Ptr("f1"), Tags: []string{"route=a"}}
	tests := []struct {
		name string
		p    any
		want string
	}{
		{"create, none", platform.CreateTrafficBudgetParams{Name: "b"}, `{"name":"b"}`},
		{"create, tags", platform.CreateTrafficBudgetParams{Name: "b", Rules: []string{"route=a"}}, `{"name":"b","rules":["route=a"]}`},
		{"create, both", platform.CreateTrafficBudgetParams{Name: "b", Rules: []string{"route=a"}, RuleSpecs: []platform.TrafficBudgetRule{spec, {Fingerprint: platform.Ptr("f2")}}},
			`{"name":"b","rules":["route=a",{"kind":"each","keyspace":"ks","fingerprint":"f1","tags":["route=a"]},{"fingerprint":"f2"}]}`},
		{"update, specs and a cleared limit", platform.UpdateTrafficBudgetParams{ID: "x", RuleSpecs: []platform.TrafficBudgetRule{{Fingerprint: platform.Ptr("f2")}}, Clear: []platform.TrafficBudgetLimit{platform.TrafficLimitRate}},
			`{"rate":null,"rules":[{"fingerprint":"f2"}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := json.Marshal(tt.p)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("body\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}
