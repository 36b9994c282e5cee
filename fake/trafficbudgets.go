package fake

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/netip"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake/internal/ordered"
)

// This file serves the traffic budgets of branches and their rules. Where
// the API's description is silent, the fake decides (and the SDK's
// TrafficBudgetsService documents) that: a budget's name is required, at
// most 255 characters and unique on its branch; mode defaults to enforce;
// the strings of a budget body's "rules" are tags, one match rule each,
// and on update they replace the budget's rules (a rule with exactly that
// tag and nothing else is kept, with its ID); a limit sent as null is
// unlimited again; a tag key is 1 to 64 letters, digits, _ . or -, and its
// value 1 to 255 characters, an IP address or CIDR range for
// remote_address; a rule's keyspace must be a keyspace of the branch; a
// budget refuses a rule it already has; creating or deleting a rule moves
// the budget's updated_at; and a rule with an SQL key shows its tag as the
// SQL comment "/* key='value' */", HTML-escaped in a <pre> block, in
// syntax_highlighted_sql ("" for the other rules).

// trafficBudgetRec is a traffic budget of a branch, with its rules. It
// lives on its branch: a deleted branch's budgets go with it.
type trafficBudgetRec struct {
	stamps
	branch *branchRec
	name   string
	mode   platform.TrafficBudgetMode
	limits trafficLimits
	actor  *userRec
	rules  []*trafficRuleRec // oldest first
}

// trafficLimitSpecs are a budget's limits and their ranges (from 0).
var trafficLimitSpecs = [...]struct {
	field platform.TrafficBudgetLimit
	max   int
}{
	{platform.TrafficLimitCapacity, 6000},
	{platform.TrafficLimitRate, 100},
	{platform.TrafficLimitBurst, 6000},
	{platform.TrafficLimitConcurrency, 100},
	{platform.TrafficLimitWarningThreshold, 100},
}

// trafficLimits are a budget's limits, in the order of trafficLimitSpecs;
// nil is unlimited.
type trafficLimits [len(trafficLimitSpecs)]*int

// trafficRuleRec is a rule of a traffic budget. Rules never change, so
// their updated time is their creation time.
type trafficRuleRec struct {
	stamps
	trafficRuleSpec
	actor *userRec
}

// trafficRuleSpec is what a rule matches. Two rules of a budget never have
// the same spec.
type trafficRuleSpec struct {
	kind        platform.TrafficRuleKind
	keyspace    string     // "" for any keyspace
	fingerprint string     // "" for none
	tag         trafficTag // the zero tag for none
}

// trafficTag is a rule's tag.
type trafficTag struct {
	key, value string
}

// branchBudgets are the traffic budgets of a branch, in list order and by
// ID. The zero value is empty and ready to use.
type branchBudgets struct {
	ordered.Store[*trafficBudgetRec]
}

// trafficSystemKeys are the tag keys the platform knows about every query;
// any other key comes from SQL comments.
var trafficSystemKeys = []string{"remote_address", "username", "query_fingerprint"}

// source is where the tag's key comes from.
func (t trafficTag) source() platform.TagSource {
	if slices.Contains(trafficSystemKeys, t.key) {
		return platform.TagSourceSystem
	}
	return platform.TagSourceSQL
}

// keyID identifies the tag's key: "B<key>" for system keys, "S<key>" for
// SQL keys.
func (t trafficTag) keyID() string {
	if t.source() == platform.TagSourceSystem {
		return "B" + t.key
	}
	return "S" + t.key
}

// sqlComment is the SQL comment that carries the tag, as queries write it.
func (t trafficTag) sqlComment() string {
	return "/* " + t.key + "='" + strings.ReplaceAll(t.value, "'", `\'`) + "' */"
}

// Bounds of the traffic budget's strings.
const (
	maxTrafficBudgetName = 255
	maxTrafficTagKey     = 64
	maxTrafficTagValue   = 255
)

// trafficTagKey is the form of a tag key.
var trafficTagKey = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// parseTrafficTag reads a tag written "key=value"; field names it in errors.
func parseTrafficTag(field, s string) (trafficTag, error) {
	key, value, ok := strings.Cut(s, "=")
	switch {
	case !ok:
		return trafficTag{}, unprocessable("%s: %q is not a tag key=value", field, s)
	case key == "":
		return trafficTag{}, unprocessable("%s: tag %q has no key", field, s)
	case len(key) > maxTrafficTagKey || !trafficTagKey.MatchString(key):
		return trafficTag{}, unprocessable("%s: tag key %q must be 1 to %d letters, digits, _ . or -", field, key, maxTrafficTagKey)
	case value == "":
		return trafficTag{}, unprocessable("%s: tag %q has no value", field, s)
	case len(value) > maxTrafficTagValue:
		return trafficTag{}, unprocessable("%s: the value of tag %s is longer than %d characters", field, key, maxTrafficTagValue)
	}
	if key == "remote_address" {
		if _, err := netip.ParsePrefix(value); err != nil {
			if _, err := netip.ParseAddr(value); err != nil {
				return trafficTag{}, unprocessable("%s: remote_address %q is not an IP address or CIDR range", field, value)
			}
		}
	}
	return trafficTag{key: key, value: value}, nil
}

// checkTrafficRule validates a rule for budget bg from the fields of
// create_traffic_rule.
func checkTrafficRule(bg *trafficBudgetRec, p *platform.CreateTrafficRuleParams) (trafficRuleSpec, error) {
	spec, err := checkRuleSpec(bg.branch, "", p)
	if err != nil {
		return spec, err
	}
	for _, r := range bg.rules {
		if r.trafficRuleSpec == spec {
			return spec, unprocessable("budget %s already has the same rule, %s", bg.name, r.id)
		}
	}
	return spec, nil
}

// checkRuleSpec validates a rule of branch b: create_traffic_rule's body
// (field ""), or a budget body's rule given as an object (field
// "rules[i]", which its messages name).
func checkRuleSpec(b *branchRec, field string, p *platform.CreateTrafficRuleParams) (trafficRuleSpec, error) {
	name := func(f string) string {
		if field == "" {
			return f
		}
		return field + "." + f
	}
	spec := trafficRuleSpec{kind: platform.TrafficRuleMatch}
	if p.Kind != nil {
		switch *p.Kind {
		case platform.TrafficRuleMatch, platform.TrafficRuleEach:
			spec.kind = *p.Kind
		default:
			return spec, unprocessable("%s %q is not match or each", name("kind"), *p.Kind)
		}
	}
	if len(p.Tags) > 1 {
		return spec, unprocessable("%s: a rule takes at most one tag, got %d", name("tags"), len(p.Tags))
	}
	if len(p.Tags) == 1 {
		tag, err := parseTrafficTag(name("tags[0]"), p.Tags[0])
		if err != nil {
			return spec, err
		}
		spec.tag = tag
	}
	if p.Keyspace != nil && *p.Keyspace != "" {
		if b.keyspace(*p.Keyspace) == nil {
			return spec, unprocessable("%s %q is not a keyspace of branch %s", name("keyspace"), *p.Keyspace, b.name)
		}
		spec.keyspace = *p.Keyspace
	}
	if p.Fingerprint != nil {
		spec.fingerprint = *p.Fingerprint
	}
	if spec.fingerprint == "" && spec.tag.key == "" {
		if field != "" {
			return spec, unprocessable("%s: a rule needs a fingerprint or a tag", field)
		}
		return spec, unprocessable("a rule needs a fingerprint or a tag")
	}
	return spec, nil
}

// nullableInt is an integer body field that tells absent from null.
type nullableInt struct {
	given bool
	value *int // nil for null
}

func (n *nullableInt) UnmarshalJSON(data []byte) error {
	n.given = true
	if string(data) == "null" {
		n.value = nil
		return nil
	}
	var v int
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	n.value = &v
	return nil
}

// trafficBudgetBody is the body of create_traffic_budget and
// update_traffic_budget: the fields of the SDK's params, read with null
// told apart from absent, since null clears a limit (unlimited).
type trafficBudgetBody struct {
	Name             *string                     `json:"name"`
	Mode             *platform.TrafficBudgetMode `json:"mode"`
	Capacity         nullableInt                 `json:"capacity"`
	Rate             nullableInt                 `json:"rate"`
	Burst            nullableInt                 `json:"burst"`
	Concurrency      nullableInt                 `json:"concurrency"`
	WarningThreshold nullableInt                 `json:"warning_threshold"`
	Rules            []budgetRule                `json:"rules"`
}

// budgetRule is a rule of a budget body: a tag "key=value", which becomes
// a match rule, or an object with create_traffic_rule's fields (kind,
// fingerprint, keyspace, tags in either form), as the service's official
// Go client sends it.
type budgetRule struct {
	tag *string          // the string form
	obj *trafficRuleBody // the object form
}

// UnmarshalJSON reads either form.
func (r *budgetRule) UnmarshalJSON(b []byte) error {
	var s string
	if string(bytes.TrimSpace(b)) == "null" {
		return errors.New("a rule is a string key=value or an object with kind, fingerprint, keyspace and tags")
	}
	if err := json.Unmarshal(b, &s); err == nil {
		r.tag = &s
		return nil
	}
	var o trafficRuleBody
	if t := bytes.TrimSpace(b); len(t) == 0 || t[0] != '{' || json.Unmarshal(b, &o) != nil {
		return errors.New("a rule is a string key=value or an object with kind, fingerprint, keyspace and tags")
	}
	r.obj = &o
	return nil
}

// limits returns the body's limits in the order of trafficLimitSpecs.
func (p *trafficBudgetBody) limits() [len(trafficLimitSpecs)]nullableInt {
	return [...]nullableInt{p.Capacity, p.Rate, p.Burst, p.Concurrency, p.WarningThreshold}
}

// budgetChange is a validated budget body: what the budget becomes.
type budgetChange struct {
	name   string
	mode   platform.TrafficBudgetMode
	limits trafficLimits
	// rules replace the budget's rules; nil leaves them as they are.
	rules []trafficRuleSpec
}

// checkTrafficBudget validates a budget body for branch b, against the
// budget cur it changes (nil for a new budget), and returns the change.
func checkTrafficBudget(b *branchRec, cur *trafficBudgetRec, p *trafficBudgetBody) (budgetChange, error) {
	next := budgetChange{mode: platform.TrafficBudgetEnforce}
	if cur != nil {
		next = budgetChange{name: cur.name, mode: cur.mode, limits: cur.limits}
	}
	switch {
	case p.Name != nil:
		name := *p.Name
		switch {
		case strings.TrimSpace(name) == "":
			return next, unprocessable("name must not be empty")
		case len(name) > maxTrafficBudgetName:
			return next, unprocessable("name is longer than %d characters", maxTrafficBudgetName)
		}
		if other := b.budgetNamed(name); other != nil && other != cur {
			return next, unprocessable("name %q is already taken by another traffic budget of branch %s", name, b.name)
		}
		next.name = name
	case cur == nil:
		return next, unprocessable("name is required")
	}
	if p.Mode != nil {
		switch *p.Mode {
		case platform.TrafficBudgetEnforce, platform.TrafficBudgetWarn, platform.TrafficBudgetOff:
			next.mode = *p.Mode
		default:
			return next, unprocessable("mode %q is not enforce, warn or off", *p.Mode)
		}
	}
	for i, l := range p.limits() {
		spec := trafficLimitSpecs[i]
		switch {
		case !l.given:
		case l.value == nil:
			next.limits[i] = nil
		case *l.value < 0 || *l.value > spec.max:
			return next, unprocessable("%s must be from 0 to %d, got %d", spec.field, spec.max, *l.value)
		default:
			next.limits[i] = platform.Ptr(*l.value)
		}
	}
	if p.Rules != nil {
		next.rules = make([]trafficRuleSpec, 0, len(p.Rules))
		for i, rule := range p.Rules {
			field := "rules[" + itoa(i) + "]"
			var spec trafficRuleSpec
			if rule.tag != nil {
				tag, err := parseTrafficTag(field, *rule.tag)
				if err != nil {
					return next, err
				}
				spec = trafficRuleSpec{kind: platform.TrafficRuleMatch, tag: tag}
			} else {
				o := rule.obj
				rp := &platform.CreateTrafficRuleParams{Kind: o.Kind, Keyspace: o.Keyspace, Fingerprint: o.Fingerprint}
				for _, tag := range o.Tags {
					rp.Tags = append(rp.Tags, string(tag))
				}
				var err error
				if spec, err = checkRuleSpec(b, field, rp); err != nil {
					return next, err
				}
			}
			if j := slices.Index(next.rules, spec); j >= 0 {
				if rule.tag != nil {
					return next, unprocessable("%s: %q repeats rules[%d]", field, *rule.tag, j)
				}
				return next, unprocessable("%s repeats rules[%d]", field, j)
			}
			next.rules = append(next.rules, spec)
		}
	}
	return next, nil
}

// budgetNamed finds a budget of the branch by name.
func (b *branchRec) budgetNamed(name string) *trafficBudgetRec {
	for _, bg := range b.x().budgets.All() {
		if bg.name == name {
			return bg
		}
	}
	return nil
}

// apply makes a validated change.
func (bg *trafficBudgetRec) apply(c *call, ch budgetChange) {
	bg.name, bg.mode, bg.limits = ch.name, ch.mode, ch.limits
	if ch.rules != nil {
		bg.replaceRules(c, ch.rules)
	}
	bg.updated = c.now
}

// replaceRules gives the budget one rule per spec: a rule it has with that
// spec stays as it is; the others go, and new rules take their place.
func (bg *trafficBudgetRec) replaceRules(c *call, specs []trafficRuleSpec) {
	kept := make([]*trafficRuleRec, 0, len(specs))
	for _, r := range bg.rules {
		if slices.Contains(specs, r.trafficRuleSpec) {
			kept = append(kept, r)
		}
	}
	for _, spec := range specs {
		if !slices.ContainsFunc(kept, func(r *trafficRuleRec) bool { return r.trafficRuleSpec == spec }) {
			kept = append(kept, newTrafficRule(c, spec))
		}
	}
	bg.rules = kept
}

// newTrafficRule makes a rule, created by the caller now.
func newTrafficRule(c *call, spec trafficRuleSpec) *trafficRuleRec {
	return &trafficRuleRec{
		stamps:          stamps{id: c.w.newID(), created: c.now, updated: c.now},
		trafficRuleSpec: spec,
		actor:           c.who.user,
	}
}

func trafficBudgetRoutes() []route {
	return []route{
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/traffic/budgets", op: "list_traffic_budgets", handler: read(listTrafficBudgets)},
		{pattern: "POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/traffic/budgets", op: "create_traffic_budget", handler: withBody(createTrafficBudget)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/traffic/budgets/{id}", op: "get_traffic_budget", handler: read(getTrafficBudget)},
		{pattern: "PATCH /v1/organizations/{organization}/databases/{database}/branches/{branch}/traffic/budgets/{id}", op: "update_traffic_budget", handler: withBody(updateTrafficBudget)},
		{pattern: "DELETE /v1/organizations/{organization}/databases/{database}/branches/{branch}/traffic/budgets/{id}", op: "delete_traffic_budget", handler: act(deleteTrafficBudget)},
		{pattern: "POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/traffic/budgets/{budget_id}/rules", op: "create_traffic_rule", handler: withBody(createTrafficRule)},
		{pattern: "DELETE /v1/organizations/{organization}/databases/{database}/branches/{branch}/traffic/budgets/{budget_id}/rules/{id}", op: "delete_traffic_rule", handler: act(deleteTrafficRule)},
	}
}

// trafficBudget finds the budget that the path value param names on the
// path's {branch}.
func (c *call) trafficBudget(param string) (*trafficBudgetRec, error) {
	bg := c.branch.x().budgets.Get(c.r.PathValue(param))
	if bg == nil {
		return nil, notFound()
	}
	return bg, nil
}

// trafficPeriods are the values of list_traffic_budgets' period.
var trafficPeriods = []platform.TrafficPeriod{
	platform.TrafficPeriod15m, platform.TrafficPeriod1h, platform.TrafficPeriod3h,
	platform.TrafficPeriod6h, platform.TrafficPeriod12h, platform.TrafficPeriod1d,
	platform.TrafficPeriod2d, platform.TrafficPeriod7d, platform.TrafficPeriod8d,
}

// listTrafficBudgets serves a page of a branch's budgets. period is
// checked but selects nothing: it is the window of the traffic figures
// the live service reports, and the fake has no traffic.
func listTrafficBudgets(c *call) (any, error) {
	b := c.branch
	q := c.r.URL.Query()
	if v := platform.TrafficPeriod(q.Get("period")); v != "" && !slices.Contains(trafficPeriods, v) {
		return nil, badRequest("period %q is not one of %s", v, backupEnumText(trafficPeriods))
	}
	from, to, err := rangeQuery(q.Get("created_at"), "created_at")
	if err != nil {
		return nil, err
	}
	fingerprint := q.Get("fingerprint")
	if from.IsZero() && fingerprint == "" {
		return pageOf(c, b.x().budgets.Index(), false, renderTrafficBudget), nil
	}
	keep := func(bg *trafficBudgetRec) bool {
		return (from.IsZero() || inRange(bg.created, from, to)) &&
			(fingerprint == "" || bg.targets(fingerprint))
	}
	return filteredPageOf(c, b.x().budgets.Index(), false, keep, renderTrafficBudget), nil
}

// inRange reports whether t is in [from, to].
func inRange(t, from, to time.Time) bool { return !t.Before(from) && !t.After(to) }

// targets reports whether one of the budget's rules is about the query
// fingerprint: by its fingerprint, or by a query_fingerprint tag.
func (bg *trafficBudgetRec) targets(fingerprint string) bool {
	return slices.ContainsFunc(bg.rules, func(r *trafficRuleRec) bool {
		return r.fingerprint == fingerprint || r.tag == trafficTag{"query_fingerprint", fingerprint}
	})
}

func createTrafficBudget(c *call, p *trafficBudgetBody) (any, error) {
	b := c.branch
	ch, err := checkTrafficBudget(b, nil, p)
	if err != nil {
		return nil, err
	}
	bg := &trafficBudgetRec{
		stamps: stamps{id: c.w.newID(), created: c.now},
		branch: b,
		actor:  c.who.user,
	}
	bg.apply(c, ch)
	b.x().budgets.Add(bg)
	return renderTrafficBudget(bg), nil
}

func getTrafficBudget(c *call) (any, error) {
	bg, err := c.trafficBudget("id")
	if err != nil {
		return nil, err
	}
	return renderTrafficBudget(bg), nil
}

func updateTrafficBudget(c *call, p *trafficBudgetBody) (any, error) {
	bg, err := c.trafficBudget("id")
	if err != nil {
		return nil, err
	}
	ch, err := checkTrafficBudget(bg.branch, bg, p)
	if err != nil {
		return nil, err
	}
	bg.apply(c, ch)
	return renderTrafficBudget(bg), nil
}

func deleteTrafficBudget(c *call) (any, error) {
	bg, err := c.trafficBudget("id")
	if err != nil {
		return nil, err
	}
	bg.branch.x().budgets.Remove(bg)
	return nil, nil
}

// trafficRuleBody is the body of create_traffic_rule: the fields of
// platform.CreateTrafficRuleParams, whose tags may also be objects, as the
// service's official Go client sends them.
type trafficRuleBody struct {
	Kind        *platform.TrafficRuleKind `json:"kind"`
	Keyspace    *string                   `json:"keyspace"`
	Fingerprint *string                   `json:"fingerprint"`
	Tags        []ruleTag                 `json:"tags"`
}

// ruleTag is a tag of a rule's body: "key=value", or an object with a key
// and a value (its other fields, such as type and key_id, are ignored).
type ruleTag string

// UnmarshalJSON reads either form into "key=value".
func (t *ruleTag) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*t = ruleTag(s)
		return nil
	}
	var o struct {
		Key   string `json:"key"`
		Value string `json:"value"`
	}
	if err := json.Unmarshal(b, &o); err != nil {
		return errors.New("a tag is a string key=value or an object with a key and a value")
	}
	*t = ruleTag(o.Key + "=" + o.Value)
	return nil
}

func createTrafficRule(c *call, body *trafficRuleBody) (any, error) {
	bg, err := c.trafficBudget("budget_id")
	if err != nil {
		return nil, err
	}
	p := &platform.CreateTrafficRuleParams{Kind: body.Kind, Keyspace: body.Keyspace, Fingerprint: body.Fingerprint}
	for _, tag := range body.Tags {
		p.Tags = append(p.Tags, string(tag))
	}
	spec, err := checkTrafficRule(bg, p)
	if err != nil {
		return nil, err
	}
	r := newTrafficRule(c, spec)
	bg.rules = append(bg.rules, r)
	bg.updated = c.now
	return renderTrafficRule(r), nil
}

func deleteTrafficRule(c *call) (any, error) {
	bg, err := c.trafficBudget("budget_id")
	if err != nil {
		return nil, err
	}
	id := c.r.PathValue("id")
	i := slices.IndexFunc(bg.rules, func(r *trafficRuleRec) bool { return r.id == id })
	if i < 0 {
		return nil, notFound()
	}
	bg.rules = slices.Delete(bg.rules, i, i+1)
	bg.updated = c.now
	return nil, nil
}

// appliesTo reports whether a rule matches an execution of a query: its
// keyspace (any when unset), fingerprint and tag, whichever it sets.
func (r *trafficRuleRec) appliesTo(q *querySample) bool {
	if r.keyspace != "" && r.keyspace != q.pattern.keyspace {
		return false
	}
	if r.fingerprint != "" && r.fingerprint != q.pattern.fingerprint {
		return false
	}
	if r.tag.key != "" {
		v, ok := q.tag(r.tag.key)
		return ok && v == r.tag.value
	}
	return true
}
