package platform

import (
	"context"
	"encoding/json"
	"fmt"
)

// VitessRoutingRules are a branch's table routing rules as the cluster
// holds them: the same rules [BranchesService.GetRoutingRules] shows as
// a document.
type VitessRoutingRules struct {
	// Rules are the rules, in their order.
	Rules []VitessRoutingRule `json:"-"`
	// Raw is the whole document: vtctldata.GetRoutingRulesResponse in
	// protobuf JSON.
	Raw json.RawMessage `json:"data"`
}

// VitessRoutingRule routes the queries of a table to other tables.
type VitessRoutingRule struct {
	// FromTable is the table routed ("t" or "keyspace.t").
	FromTable string `json:"from_table"`
	// ToTables are the tables its queries go to.
	ToTables []string `json:"to_tables"`
}

// UnmarshalJSON reads the envelope {"data": ...} and the rules in it.
func (r *VitessRoutingRules) UnmarshalJSON(b []byte) error {
	if err := nilTarget(r); err != nil {
		return err
	}
	data, err := vtctldEnvelope(b)
	if err != nil {
		return err
	}
	var doc struct {
		RoutingRules *struct {
			Rules []VitessRoutingRule `json:"rules"`
		} `json:"routing_rules"`
		Rules []VitessRoutingRule `json:"rules"`
	}
	if err := decodeVtctld(data, &doc, "routing rules"); err != nil {
		return err
	}
	r.Raw, r.Rules = data, doc.Rules
	if doc.RoutingRules != nil {
		r.Rules = doc.RoutingRules.Rules
	}
	return nil
}

// vtctldEnvelope returns the document inside a vtctld answer's envelope,
// {"data": ...}.
func vtctldEnvelope(b []byte) (json.RawMessage, error) {
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(b, &env); err != nil {
		return nil, err
	}
	return env.Data, nil
}

// decodeVtctld decodes a vtctld document into v; an absent document
// decodes as empty.
func decodeVtctld(raw json.RawMessage, v any, what string) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("platform: decoding %s: %w", what, err)
	}
	return nil
}

// GetVitessRoutingRulesParams names a branch (GetRoutingRulesParams is
// the document's, of BranchesService).
type GetVitessRoutingRulesParams = BranchParams

// GetRoutingRules returns the table routing rules of a branch as its
// cluster holds them.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/vtctld/routing-rules
func (s *VitessService) GetRoutingRules(ctx context.Context, p *GetVitessRoutingRulesParams) (*VitessRoutingRules, error) {
	return callOn[VitessRoutingRules](ctx, s.client, "GET", p, "/vtctld/routing-rules", nil, nil)
}

// KeyspaceRoutingRules are a branch's keyspace routing rules: each sends
// the queries of one keyspace to another.
type KeyspaceRoutingRules struct {
	// Rules are the rules, in the order applied.
	Rules []KeyspaceRoutingRule `json:"-"`
	// Raw is the whole document in protobuf JSON:
	// vtctldata.GetKeyspaceRoutingRulesResponse, or
	// vtctldata.ApplyKeyspaceRoutingRulesResponse for an apply.
	Raw json.RawMessage `json:"data"`
}

// KeyspaceRoutingRule sends the queries of FromKeyspace to ToKeyspace.
type KeyspaceRoutingRule struct {
	FromKeyspace string `json:"from_keyspace"`
	ToKeyspace   string `json:"to_keyspace"`
}

// UnmarshalJSON reads the envelope {"data": ...} and the rules in it:
// under keyspace_routing_rules, as Vitess answers, or at the top.
func (r *KeyspaceRoutingRules) UnmarshalJSON(b []byte) error {
	if err := nilTarget(r); err != nil {
		return err
	}
	data, err := vtctldEnvelope(b)
	if err != nil {
		return err
	}
	var doc struct {
		KeyspaceRoutingRules *struct {
			Rules []KeyspaceRoutingRule `json:"rules"`
		} `json:"keyspace_routing_rules"`
		Rules []KeyspaceRoutingRule `json:"rules"`
	}
	if err := decodeVtctld(data, &doc, "keyspace routing rules"); err != nil {
		return err
	}
	r.Raw, r.Rules = data, doc.Rules
	if doc.KeyspaceRoutingRules != nil {
		r.Rules = doc.KeyspaceRoutingRules.Rules
	}
	return nil
}

// GetKeyspaceRoutingRulesParams names a branch.
type GetKeyspaceRoutingRulesParams = BranchParams

// GetKeyspaceRoutingRules returns the keyspace routing rules of a
// branch.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/vtctld/keyspace-routing-rules
func (s *VitessService) GetKeyspaceRoutingRules(ctx context.Context, p *GetKeyspaceRoutingRulesParams) (*KeyspaceRoutingRules, error) {
	return callOn[KeyspaceRoutingRules](ctx, s.client, "GET", p, "/vtctld/keyspace-routing-rules", nil, nil)
}

// ApplyKeyspaceRoutingRulesParams replaces a branch's keyspace routing
// rules with Rules (none: no rule is left). Each rule names two keyspaces
// of the branch, and a keyspace is routed by one rule at most.
type ApplyKeyspaceRoutingRulesParams struct {
	Organization string                `json:"-" url:"-"`
	Database     string                `json:"-" url:"-"`
	Branch       string                `json:"-" url:"-"`
	Rules        []KeyspaceRoutingRule `json:"rules"`
	// SkipRebuild leaves the cells' serving copy of the VSchema as it
	// is; RebuildCells is then ignored.
	SkipRebuild *bool `json:"skip_rebuild,omitempty"`
	// RebuildCells limits the rebuild to these cells; empty for all.
	RebuildCells []string `json:"rebuild_cells,omitempty"`
}

// ApplyKeyspaceRoutingRules replaces a branch's keyspace routing rules
// and returns them as they then are.
//
// API: PUT /v1/organizations/{organization}/databases/{database}/branches/{branch}/vtctld/keyspace-routing-rules
func (s *VitessService) ApplyKeyspaceRoutingRules(ctx context.Context, p *ApplyKeyspaceRoutingRulesParams) (*KeyspaceRoutingRules, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch); err != nil {
		return nil, err
	}
	body := *p
	if body.Rules == nil {
		body.Rules = []KeyspaceRoutingRule{} // "rules": [] rather than null
	}
	out := new(KeyspaceRoutingRules)
	return orNil(out, s.client.put(ctx, vitessPath(p.Organization, p.Database, p.Branch, "/vtctld/keyspace-routing-rules"), &body, out))
}
