package platform

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
)

// TrafficBudgetMode is what a traffic budget does with the queries its
// rules match once they exceed its limits.
type TrafficBudgetMode string

// The traffic budget modes.
const (
	// TrafficBudgetEnforce holds queries to the budget's limits.
	TrafficBudgetEnforce TrafficBudgetMode = "enforce"
	// TrafficBudgetWarn lets queries through and reports them.
	TrafficBudgetWarn TrafficBudgetMode = "warn"
	// TrafficBudgetOff turns the budget off.
	TrafficBudgetOff TrafficBudgetMode = "off"
)

// TrafficRuleKind is how a traffic rule matches queries.
type TrafficRuleKind string

// The traffic rule kinds.
const (
	// TrafficRuleMatch matches the queries that carry the rule's tag or
	// fingerprint.
	TrafficRuleMatch TrafficRuleKind = "match"
	// TrafficRuleEach is the other kind the API accepts.
	TrafficRuleEach TrafficRuleKind = "each"
)

// TagSource is where the key of a traffic rule's tag comes from.
type TagSource string

// The tag sources.
const (
	// TagSourceSystem marks the keys the platform knows about every query:
	// remote_address, username and query_fingerprint.
	TagSourceSystem TagSource = "system"
	// TagSourceSQL marks keys that queries carry in SQL comments
	// ("/* route='checkout' */").
	TagSourceSQL TagSource = "sql"
)

// TrafficBudgetLimit names one of a traffic budget's nullable limits, for
// [UpdateTrafficBudgetParams.Clear].
type TrafficBudgetLimit string

// The traffic budget limits.
const (
	TrafficLimitCapacity         TrafficBudgetLimit = "capacity"
	TrafficLimitRate             TrafficBudgetLimit = "rate"
	TrafficLimitBurst            TrafficBudgetLimit = "burst"
	TrafficLimitConcurrency      TrafficBudgetLimit = "concurrency"
	TrafficLimitWarningThreshold TrafficBudgetLimit = "warning_threshold"
)

// TrafficBudget is a budget of server resources for the queries of a branch
// that its rules match. A nil limit is unlimited.
type TrafficBudget struct {
	ID   string            `json:"id"`
	Type string            `json:"type"`
	Name string            `json:"name"`
	Mode TrafficBudgetMode `json:"mode"`
	// Capacity is the most that can be banked, as a percentage of seconds
	// of full server usage (0 to 6000).
	Capacity *int `json:"capacity"`
	// Rate is how fast capacity refills, as a percentage of server
	// resources (0 to 100).
	Rate *int `json:"rate"`
	// Burst is the most a single query can consume, as a percentage of
	// seconds of full server usage (0 to 6000).
	Burst *int `json:"burst"`
	// Concurrency is the percentage of worker processes the budget may use
	// (0 to 100).
	Concurrency *int `json:"concurrency"`
	// WarningThreshold is the percentage of the capacity, burst or
	// concurrency limits at which an enforced budget warns (0 to 100).
	WarningThreshold *int   `json:"warning_threshold"`
	Actor            *Actor `json:"actor"`
	// Rules are the budget's rules, oldest first.
	Rules     []*TrafficRule `json:"rules"`
	CreatedAt Timestamp      `json:"created_at"`
	UpdatedAt Timestamp      `json:"updated_at"`
}

// TrafficRule selects the queries a traffic budget applies to: those with
// its fingerprint (in its keyspace, when set), its tag, or both.
type TrafficRule struct {
	ID   string          `json:"id"`
	Type string          `json:"type"`
	Kind TrafficRuleKind `json:"kind"`
	// Tags holds the rule's tag; a rule has at most one.
	Tags []*TrafficTag `json:"tags"`
	// Fingerprint is the query fingerprint the rule targets; nil for none.
	Fingerprint *string `json:"fingerprint"`
	// Keyspace is the keyspace of the fingerprint; nil for any.
	Keyspace *string `json:"keyspace"`
	Actor    *Actor  `json:"actor"`
	// SyntaxHighlightedSQL is the SQL comment that carries the rule's tag,
	// marked up for display, for rules with SQL keys; "" for the others.
	SyntaxHighlightedSQL string    `json:"syntax_highlighted_sql"`
	CreatedAt            Timestamp `json:"created_at"`
	UpdatedAt            Timestamp `json:"updated_at"`
}

// TrafficTag is a key and value that a traffic rule matches queries by.
type TrafficTag struct {
	// Type is always "TrafficTag".
	Type string `json:"type"`
	// KeyID identifies the key: "B" then the key for system keys, "S" then
	// the key for SQL keys.
	KeyID  string    `json:"key_id"`
	Key    string    `json:"key"`
	Value  string    `json:"value"`
	Source TagSource `json:"source"`
}

// String returns the tag as requests write it: "key=value".
func (t TrafficTag) String() string { return t.Key + "=" + t.Value }

// TrafficBudgetsService manages the traffic budgets of branches and their
// rules. A budget's rules come with it; there is no list of rules alone.
//
// Where the API's description is silent, the SDK and the fake agree on
// this: a budget's name is required and unique among its branch's budgets;
// its mode is enforce unless given; the rules a create or update body
// lists are tags ("key=value"), one match rule each, and on update they
// replace the budget's rules; a limit sent as null (see
// [UpdateTrafficBudgetParams.Clear]) becomes unlimited again; a rule's
// keyspace must be a keyspace of the branch; and a budget never holds two
// rules with the same kind, keyspace, fingerprint and tag.
type TrafficBudgetsService service

// TrafficBudgetParams names a traffic budget of a branch.
type TrafficBudgetParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	// ID is the budget's ID.
	ID string `json:"-" url:"-"`
}

func (p *TrafficBudgetParams) check() error {
	return required("organization", p.Organization, "database", p.Database, "branch", p.Branch, "id", p.ID)
}

func (p *TrafficBudgetParams) path(suffix string) string {
	return trafficBudgetsPath(p.Organization, p.Database, p.Branch) + "/" + pathf("%s", p.ID) + suffix
}

// trafficBudgetsPath is the collection path of a branch's traffic budgets.
func trafficBudgetsPath(org, db, branch string) string {
	return pathf("v1/organizations/%s/databases/%s/branches/%s/traffic/budgets", org, db, branch)
}

// TrafficPeriod is a time period back from now: of the traffic budget list
// filter, and the window of query insights ([QueryWindow]).
type TrafficPeriod string

// The traffic periods.
const (
	TrafficPeriod15m TrafficPeriod = "15m"
	TrafficPeriod1h  TrafficPeriod = "1h"
	TrafficPeriod3h  TrafficPeriod = "3h"
	TrafficPeriod6h  TrafficPeriod = "6h"
	TrafficPeriod12h TrafficPeriod = "12h"
	TrafficPeriod1d  TrafficPeriod = "1d"
	TrafficPeriod2d  TrafficPeriod = "2d"
	TrafficPeriod7d  TrafficPeriod = "7d"
	TrafficPeriod8d  TrafficPeriod = "8d"
)

// ListTrafficBudgetsParams selects a page of a branch's traffic budgets.
type ListTrafficBudgetsParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	// Period is the time period of traffic the list is about.
	Period TrafficPeriod `json:"-" url:"period,omitempty"`
	// CreatedAt keeps the budgets created in the range.
	CreatedAt *TimeRange `json:"-" url:"created_at,omitempty"`
	// Fingerprint keeps the budgets with a rule for that query fingerprint.
	Fingerprint string `json:"-" url:"fingerprint,omitempty"`
	// Order is by creation time; ascending when empty.
	Order Order `json:"-" url:"order,omitempty"`
	ListParams
}

// List returns a page of a branch's traffic budgets, each with its rules.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/traffic/budgets
func (s *TrafficBudgetsService) List(ctx context.Context, p *ListTrafficBudgetsParams) (*Page[TrafficBudget], error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch); err != nil {
		return nil, err
	}
	if err := p.Order.check(); err != nil {
		return nil, err
	}
	return listPage[TrafficBudget](ctx, s.client, trafficBudgetsPath(p.Organization, p.Database, p.Branch), p)
}

// All ranges over every traffic budget of a branch that matches p.
func (s *TrafficBudgetsService) All(ctx context.Context, p *ListTrafficBudgetsParams) iter.Seq2[*TrafficBudget, error] {
	return allOf(ctx, p, s.List)
}

// CreateTrafficBudgetParams describes a new traffic budget. A limit left nil
// is unlimited.
type CreateTrafficBudgetParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	// Name names the budget; it is unique among the branch's budgets.
	Name string `json:"name"`
	// Mode is the budget's mode; enforce when nil.
	Mode             *TrafficBudgetMode `json:"mode,omitempty"`
	Capacity         *int               `json:"capacity,omitempty"`
	Rate             *int               `json:"rate,omitempty"`
	Burst            *int               `json:"burst,omitempty"`
	Concurrency      *int               `json:"concurrency,omitempty"`
	WarningThreshold *int               `json:"warning_threshold,omitempty"`
	// Rules are tags, "key=value" each, that become one match rule each.
	Rules []string `json:"rules,omitempty"`
	// RuleSpecs are rules given in full, as [TrafficBudgetsService.CreateRule]
	// takes them (kind, fingerprint, keyspace, tag); they follow Rules in
	// the body's rules.
	RuleSpecs []TrafficBudgetRule `json:"-" url:"-"`
}

// TrafficBudgetRule is a rule given in full in a budget's body: the
// fields of [CreateTrafficRuleParams], sent as an object among the body's
// rules (the form the service's official client sends). The API refuses
// one as CreateRule does, naming it ("rules[1].keyspace").
type TrafficBudgetRule struct {
	// Kind is the rule's kind; match when nil.
	Kind *TrafficRuleKind `json:"kind,omitempty"`
	// Keyspace is the keyspace of the branch the fingerprint belongs to.
	Keyspace *string `json:"keyspace,omitempty"`
	// Fingerprint is the query fingerprint the rule targets.
	Fingerprint *string `json:"fingerprint,omitempty"`
	// Tags holds at most one tag, "key=value".
	Tags []string `json:"tags,omitempty"`
}

// budgetRules is a budget body's rules: the tags, then the rules in
// full; nil when there are none.
func budgetRules(tags []string, specs []TrafficBudgetRule) []any {
	if len(tags)+len(specs) == 0 {
		return nil
	}
	out := make([]any, 0, len(tags)+len(specs))
	for _, t := range tags {
		out = append(out, t)
	}
	for _, r := range specs {
		out = append(out, r)
	}
	return out
}

// MarshalJSON encodes the body, with Rules and RuleSpecs as its rules.
func (p CreateTrafficBudgetParams) MarshalJSON() ([]byte, error) {
	type plain CreateTrafficBudgetParams
	return json.Marshal(struct {
		plain
		Rules []any `json:"rules,omitempty"`
	}{plain(p), budgetRules(p.Rules, p.RuleSpecs)})
}

// Create creates a traffic budget on a branch. A name that is empty or
// taken, a mode the API does not know, a limit out of its range and a
// malformed rule are refused with [ErrUnprocessable].
//
// API: POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/traffic/budgets
func (s *TrafficBudgetsService) Create(ctx context.Context, p *CreateTrafficBudgetParams) (*TrafficBudget, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch); err != nil {
		return nil, err
	}
	b := new(TrafficBudget)
	return orNil(b, s.client.post(ctx, trafficBudgetsPath(p.Organization, p.Database, p.Branch), p, b))
}

// GetTrafficBudgetParams names a traffic budget.
type GetTrafficBudgetParams = TrafficBudgetParams

// Get returns a traffic budget with its rules.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/traffic/budgets/{id}
func (s *TrafficBudgetsService) Get(ctx context.Context, p *GetTrafficBudgetParams) (*TrafficBudget, error) {
	p = orZero(p)
	if err := p.check(); err != nil {
		return nil, err
	}
	b := new(TrafficBudget)
	return orNil(b, s.client.get(ctx, p.path(""), nil, b))
}

// UpdateTrafficBudgetParams changes a traffic budget; nil fields stay as
// they are.
type UpdateTrafficBudgetParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	// ID is the budget's ID.
	ID               string             `json:"-" url:"-"`
	Name             *string            `json:"name,omitempty"`
	Mode             *TrafficBudgetMode `json:"mode,omitempty"`
	Capacity         *int               `json:"capacity,omitempty"`
	Rate             *int               `json:"rate,omitempty"`
	Burst            *int               `json:"burst,omitempty"`
	Concurrency      *int               `json:"concurrency,omitempty"`
	WarningThreshold *int               `json:"warning_threshold,omitempty"`
	// Rules, when not empty, replaces the budget's rules with one match
	// rule per tag ("key=value"). A rule that has exactly that tag and
	// nothing else is kept, with its ID; the other rules are deleted. To
	// delete single rules, use [TrafficBudgetsService.DeleteRule].
	Rules []string `json:"rules,omitempty"`
	// RuleSpecs are rules given in full, which follow Rules in the body's
	// rules and replace the budget's rules as Rules do: a rule the budget
	// has with exactly those fields is kept, with its ID.
	RuleSpecs []TrafficBudgetRule `json:"-" url:"-"`
	// Clear makes the named limits unlimited again (sends them as null). A
	// limit cannot be both set and cleared.
	Clear []TrafficBudgetLimit `json:"-" url:"-"`
}

// limits maps each limit's name to its field.
func (p *UpdateTrafficBudgetParams) limits() map[TrafficBudgetLimit]*int {
	return map[TrafficBudgetLimit]*int{
		TrafficLimitCapacity:         p.Capacity,
		TrafficLimitRate:             p.Rate,
		TrafficLimitBurst:            p.Burst,
		TrafficLimitConcurrency:      p.Concurrency,
		TrafficLimitWarningThreshold: p.WarningThreshold,
	}
}

// checkClear refuses an unknown limit in Clear, and a limit both set and
// cleared.
func (p *UpdateTrafficBudgetParams) checkClear() error {
	limits := p.limits()
	for _, l := range p.Clear {
		v, ok := limits[l]
		switch {
		case !ok:
			return &ArgError{Arg: "clear", Reason: fmt.Sprintf("%q is not a limit (capacity, rate, burst, concurrency, warning_threshold)", string(l))}
		case v != nil:
			return &ArgError{Arg: string(l), Reason: "cannot be both set and cleared"}
		}
	}
	return nil
}

// MarshalJSON encodes the body, with Rules and RuleSpecs as its rules and
// the limits named in Clear as null.
func (p UpdateTrafficBudgetParams) MarshalJSON() ([]byte, error) {
	type plain UpdateTrafficBudgetParams
	body, err := json.Marshal(struct {
		plain
		Rules []any `json:"rules,omitempty"`
	}{plain(p), budgetRules(p.Rules, p.RuleSpecs)})
	if err != nil || len(p.Clear) == 0 {
		return body, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		return nil, err
	}
	for _, l := range p.Clear {
		fields[string(l)] = json.RawMessage("null")
	}
	return json.Marshal(fields)
}

// Update changes a traffic budget, with the rules of Create.
//
// API: PATCH /v1/organizations/{organization}/databases/{database}/branches/{branch}/traffic/budgets/{id}
func (s *TrafficBudgetsService) Update(ctx context.Context, p *UpdateTrafficBudgetParams) (*TrafficBudget, error) {
	p = orZero(p)
	bp := &TrafficBudgetParams{p.Organization, p.Database, p.Branch, p.ID}
	if err := bp.check(); err != nil {
		return nil, err
	}
	if err := p.checkClear(); err != nil {
		return nil, err
	}
	b := new(TrafficBudget)
	return orNil(b, s.client.patch(ctx, bp.path(""), p, b))
}

// DeleteTrafficBudgetParams names the traffic budget to delete.
type DeleteTrafficBudgetParams = TrafficBudgetParams

// Delete deletes a traffic budget and its rules.
//
// API: DELETE /v1/organizations/{organization}/databases/{database}/branches/{branch}/traffic/budgets/{id}
func (s *TrafficBudgetsService) Delete(ctx context.Context, p *DeleteTrafficBudgetParams) error {
	p = orZero(p)
	if err := p.check(); err != nil {
		return err
	}
	return s.client.del(ctx, p.path(""), nil)
}

// CreateTrafficRuleParams describes a new rule of a traffic budget. It needs
// a fingerprint, a tag, or both.
type CreateTrafficRuleParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	// BudgetID is the ID of the budget the rule joins.
	BudgetID string `json:"-" url:"-"`
	// Kind is the rule's kind; match when nil.
	Kind *TrafficRuleKind `json:"kind,omitempty"`
	// Keyspace is the keyspace of the branch the fingerprint belongs to.
	Keyspace *string `json:"keyspace,omitempty"`
	// Fingerprint is the query fingerprint the rule targets.
	Fingerprint *string `json:"fingerprint,omitempty"`
	// Tags holds at most one tag, "key=value" ("route=checkout",
	// "remote_address=10.0.0.0/8").
	Tags []string `json:"tags,omitempty"`
}

// CreateRule adds a rule to a traffic budget. A rule with neither
// fingerprint nor tag, more than one tag, a malformed tag, an unknown kind
// or keyspace, or the same as one the budget has is refused with
// [ErrUnprocessable].
//
// API: POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/traffic/budgets/{budget_id}/rules
func (s *TrafficBudgetsService) CreateRule(ctx context.Context, p *CreateTrafficRuleParams) (*TrafficRule, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch, "budget_id", p.BudgetID); err != nil {
		return nil, err
	}
	bp := &TrafficBudgetParams{p.Organization, p.Database, p.Branch, p.BudgetID}
	r := new(TrafficRule)
	return orNil(r, s.client.post(ctx, bp.path("/rules"), p, r))
}

// DeleteTrafficRuleParams names the traffic rule to delete.
type DeleteTrafficRuleParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	// BudgetID is the ID of the rule's budget.
	BudgetID string `json:"-" url:"-"`
	// ID is the rule's ID.
	ID string `json:"-" url:"-"`
}

// DeleteRule deletes a rule of a traffic budget.
//
// API: DELETE /v1/organizations/{organization}/databases/{database}/branches/{branch}/traffic/budgets/{budget_id}/rules/{id}
func (s *TrafficBudgetsService) DeleteRule(ctx context.Context, p *DeleteTrafficRuleParams) error {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch, "budget_id", p.BudgetID, "id", p.ID); err != nil {
		return err
	}
	bp := &TrafficBudgetParams{p.Organization, p.Database, p.Branch, p.BudgetID}
	return s.client.del(ctx, bp.path(pathf("/rules/%s", p.ID)), nil)
}
