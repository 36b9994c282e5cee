package fake

import (
	"fmt"
	"slices"

	"github.com/dbplatform/platform-go"
)

// The snapshot of traffic budgets and their rules, with their branch.

type budgetSnap struct {
	stampsSnap
	Name   string                     `json:"name"`
	Mode   platform.TrafficBudgetMode `json:"mode"`
	Limits trafficLimits              `json:"limits"`
	Actor  string                     `json:"actor"`
	Rules  []ruleSnap                 `json:"rules"`
}

type ruleSnap struct {
	stampsSnap
	Kind        platform.TrafficRuleKind `json:"kind"`
	Keyspace    string                   `json:"keyspace"`
	Fingerprint string                   `json:"fingerprint"`
	TagKey      string                   `json:"tag_key"`
	TagValue    string                   `json:"tag_value"`
	Actor       string                   `json:"actor"`
}

// validate checks what create_traffic_budget checks of a budget: its name,
// mode and limits.
func (gs *budgetSnap) validate() error {
	_, err := checkTrafficBudget(&branchRec{}, nil, &trafficBudgetBody{Name: &gs.Name, Mode: &gs.Mode})
	if err != nil {
		return snapCheck(err)
	}
	for i, l := range gs.Limits {
		if spec := trafficLimitSpecs[i]; l != nil && (*l < 0 || *l > spec.max) {
			return at(fmt.Errorf("%s must be from 0 to %d, got %d", spec.field, spec.max, *l), "limits[%d]", i)
		}
	}
	return nil
}

// validate checks what create_traffic_rule checks of a rule of budget bg,
// on branch b (its keyspace may have been dropped since).
func (rs *ruleSnap) validate(b *branchRec, bg *trafficBudgetRec) error {
	p := &platform.CreateTrafficRuleParams{Kind: &rs.Kind, Fingerprint: &rs.Fingerprint}
	if rs.TagKey != "" || rs.TagValue != "" {
		p.Tags = []string{rs.TagKey + "=" + rs.TagValue}
	}
	spec, err := checkTrafficRule(&trafficBudgetRec{branch: b}, p)
	if err != nil {
		return snapCheck(err)
	}
	spec.keyspace = rs.Keyspace
	for _, r := range bg.rules {
		if r.trafficRuleSpec == spec {
			return fmt.Errorf("the rule of %s appears twice", r.id)
		}
	}
	return nil
}

// saveBudgets saves the traffic budgets of b with their rules.
func saveBudgets(b *branchRec) []budgetSnap {
	var out []budgetSnap
	for _, bg := range b.more.read().budgets.All() {
		gs := budgetSnap{stampsSnap: saveStamps(bg.stamps), Name: bg.name, Mode: bg.mode, Limits: bg.limits, Actor: idOf(bg.actor)}
		for _, r := range bg.rules {
			gs.Rules = append(gs.Rules, ruleSnap{
				stampsSnap: saveStamps(r.stamps), Kind: r.kind, Keyspace: r.keyspace, Fingerprint: r.fingerprint,
				TagKey: r.tag.key, TagValue: r.tag.value, Actor: idOf(r.actor),
			})
		}
		out = append(out, gs)
	}
	return out
}

// loadBudgets loads the traffic budgets of b with their rules.
func (ld *loader) loadBudgets(b *branchRec, list []budgetSnap) error {
	for i, gs := range list {
		if slices.ContainsFunc(b.x().budgets.All(), func(o *trafficBudgetRec) bool { return o.name == gs.Name }) {
			return at(fmt.Errorf("%q appears twice in branch %s", gs.Name, b.id), "traffic_budgets[%d].name", i)
		}
		actor, err := ref(ld.users, gs.Actor, "budget actor")
		if err != nil {
			return err
		}
		if err := gs.validate(); err != nil {
			return at(err, "traffic_budgets[%d]", i)
		}
		bg := &trafficBudgetRec{stamps: gs.load(), branch: b, name: gs.Name, mode: gs.Mode, limits: gs.Limits, actor: actor}
		for j, rs := range gs.Rules {
			if err := rs.validate(b, bg); err != nil {
				return at(err, "traffic_budgets[%d].rules[%d]", i, j)
			}
			actor, err := ref(ld.users, rs.Actor, "rule actor")
			if err != nil {
				return err
			}
			bg.rules = append(bg.rules, &trafficRuleRec{
				stamps: rs.load(), actor: actor,
				trafficRuleSpec: trafficRuleSpec{kind: rs.Kind, keyspace: rs.Keyspace, fingerprint: rs.Fingerprint, tag: trafficTag{rs.TagKey, rs.TagValue}},
			})
		}
		b.x().budgets.Add(bg)
	}
	return nil
}
