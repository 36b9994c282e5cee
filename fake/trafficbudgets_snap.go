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
		bg := &trafficBudgetRec{stamps: gs.load(), branch: b, name: gs.Name, mode: gs.Mode, limits: gs.Limits, actor: actor}
		for _, rs := range gs.Rules {
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
