package fake

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/dbplatform/platform-go"
)

// The routing rules of a branch's Vitess control plane (see vitess.go).
//
// Table routing rules are one state with the branch's routing-rules
// document (vschemas.go): vtctld_get_routing_rules renders the document
// that get_branch_routing_rules shows and update_branch_routing_rules
// sets, as vschema.RoutingRules, so a change through one shows in the
// other.
//
// Keyspace routing rules (vschema.KeyspaceRoutingRules) live in the
// topology only: a new branch starts without any, and an apply replaces
// the whole set. Both keyspaces of each rule must be keyspaces of the
// branch when the rules are applied; a rule names its keyspaces, and
// keeps them after a keyspace is deleted, as the topology does.

// ksRoutingRule is a keyspace routing rule: queries for from go to to.
type ksRoutingRule struct{ from, to string }

func vitessRoutingRoutes() []route {
	const branch = "/v1/organizations/{organization}/databases/{database}/branches/{branch}"
	return []route{
		{pattern: "GET " + branch + "/vtctld/routing-rules", op: "vtctld_get_routing_rules", handler: read(vtctldGetRoutingRules)},
		{pattern: "GET " + branch + "/vtctld/keyspace-routing-rules", op: "vtctld_get_keyspace_routing_rules", handler: read(vtctldGetKeyspaceRoutingRules)},
		{pattern: "PUT " + branch + "/vtctld/keyspace-routing-rules", op: "vtctld_apply_keyspace_routing_rules", handler: withBody(vtctldApplyKeyspaceRoutingRules)},
	}
}

func vtctldGetRoutingRules(c *call) (any, error) {
	b, err := c.vitessBranch()
	if err != nil {
		return nil, err
	}
	return vtctldData{map[string]any{"routing_rules": renderProtoRoutingRules(b)}}, nil
}

func vtctldGetKeyspaceRoutingRules(c *call) (any, error) {
	b, err := c.vitessBranch()
	if err != nil {
		return nil, err
	}
	return vtctldData{map[string]any{"keyspace_routing_rules": renderProtoKeyspaceRules(b)}}, nil
}

func vtctldApplyKeyspaceRoutingRules(c *call, p *platform.ApplyKeyspaceRoutingRulesParams) (any, error) {
	b, err := c.vitessBranch()
	if err != nil {
		return nil, err
	}
	rules, err := checkKeyspaceRules(b, p)
	if err != nil {
		return nil, err
	}
	c.w.applyKeyspaceRules(b, rules)
	return vtctldData{map[string]any{"keyspace_routing_rules": renderProtoKeyspaceRules(b)}}, nil
}

// checkKeyspaceRules checks an apply of keyspace routing rules to b and
// returns the rules: each names two keyspaces of b, and no keyspace is
// routed twice. Without skip_rebuild, the cells to rebuild must be cells
// of b (with it, Vitess ignores them).
func checkKeyspaceRules(b *branchRec, p *platform.ApplyKeyspaceRoutingRulesParams) ([]ksRoutingRule, error) {
	names := keyspaceNames(b)
	known := func(field, name string) error {
		switch {
		case name == "":
			return unprocessable("%s is required: a keyspace of branch %s (%s)", field, b.name, strings.Join(names, ", "))
		case !slices.Contains(names, name):
			return unprocessable("%s %q is not a keyspace of branch %s: its keyspaces are %s", field, name, b.name, strings.Join(names, ", "))
		}
		return nil
	}
	out := make([]ksRoutingRule, 0, len(p.Rules))
	for i, r := range p.Rules {
		field := "rules[" + itoa(i) + "]"
		if err := known(field+".from_keyspace", r.FromKeyspace); err != nil {
			return nil, err
		}
		if err := known(field+".to_keyspace", r.ToKeyspace); err != nil {
			return nil, err
		}
		if j := slices.IndexFunc(out, func(o ksRoutingRule) bool { return o.from == r.FromKeyspace }); j >= 0 {
			return nil, unprocessable("%s.from_keyspace %q is routed by rules[%d] already; a keyspace has one rule", field, r.FromKeyspace, j)
		}
		out = append(out, ksRoutingRule{from: r.FromKeyspace, to: r.ToKeyspace})
	}
	if p.SkipRebuild == nil || !*p.SkipRebuild {
		if err := checkCells(b, "rebuild_cells", p.RebuildCells); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// applyKeyspaceRules replaces b's keyspace routing rules.
func (w *world) applyKeyspaceRules(b *branchRec, rules []ksRoutingRule) {
	if len(rules) == 0 && b.more.read().vitess.ksRules == nil {
		return // nothing to keep, nothing to make
	}
	b.vitess().ksRules = rules
	b.updated = w.clock.Now()
}

// protoRoutingRule is vschema.RoutingRule.
type protoRoutingRule struct {
	FromTable string   `json:"from_table,omitempty"`
	ToTables  []string `json:"to_tables,omitempty"`
}

// protoRoutingRules is vschema.RoutingRules.
type protoRoutingRules struct {
	Rules []protoRoutingRule `json:"rules,omitempty"`
}

// renderProtoRoutingRules renders b's routing-rules document as Vitess
// holds it: each rule's from_table and to_tables, in the document's
// order.
func renderProtoRoutingRules(b *branchRec) *protoRoutingRules {
	var doc protoRoutingRules
	// The document was checked when it was set (checkRoutingRules).
	if err := json.Unmarshal([]byte(b.routingRulesText()), &doc); err != nil {
		panic("routing rules of branch " + b.name + ": " + err.Error())
	}
	return &doc
}

// protoKeyspaceRule is vschema.KeyspaceRoutingRule.
type protoKeyspaceRule struct {
	FromKeyspace string `json:"from_keyspace,omitempty"`
	ToKeyspace   string `json:"to_keyspace,omitempty"`
}

// protoKeyspaceRules is vschema.KeyspaceRoutingRules.
type protoKeyspaceRules struct {
	Rules []protoKeyspaceRule `json:"rules,omitempty"`
}

func renderProtoKeyspaceRules(b *branchRec) *protoKeyspaceRules {
	out := &protoKeyspaceRules{}
	for _, r := range b.more.read().vitess.ksRules {
		out.Rules = append(out.Rules, protoKeyspaceRule{FromKeyspace: r.from, ToKeyspace: r.to})
	}
	return out
}
