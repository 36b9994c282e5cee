package platform

import "context"

// VSchema is a keyspace's VSchema: the JSON document that says how its
// tables are sharded (vindexes) and routed.
type VSchema struct {
	// Raw is the document's JSON text.
	Raw string `json:"raw"`
	// HTML is Raw marked up for display.
	HTML string `json:"html"`
}

// RoutingRules are a branch's routing rules: the JSON document that sends
// queries for a table to tables of other keyspaces.
type RoutingRules struct {
	// Raw is the document's JSON text, such as {"rules":[]}.
	Raw string `json:"raw"`
	// HTML is Raw marked up for display.
	HTML string `json:"html"`
}

// GetVSchemaParams names the keyspace whose VSchema to read.
type GetVSchemaParams = KeyspaceParams

// GetVSchema returns a keyspace's VSchema.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/keyspaces/{keyspace}/vschema
func (s *KeyspacesService) GetVSchema(ctx context.Context, p *GetVSchemaParams) (*VSchema, error) {
	p = orZero(p)
	if err := p.check(); err != nil {
		return nil, err
	}
	out := new(VSchema)
	return orNil(out, s.client.get(ctx, p.path("/vschema"), nil, out))
}

// UpdateVSchemaParams replaces a keyspace's VSchema.
type UpdateVSchemaParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	Keyspace     string `json:"-" url:"-"`
	// VSchema is the new document, JSON text of an object.
	VSchema string `json:"vschema"`
}

// UpdateVSchema replaces a keyspace's VSchema and returns it. The document
// must be a JSON object; in a sharded keyspace every table needs a vindex.
// A production branch's VSchema takes the write_production_branch_vschema
// permission, a development branch's write_branch_vschema.
//
// API: PATCH /v1/organizations/{organization}/databases/{database}/branches/{branch}/keyspaces/{keyspace}/vschema
func (s *KeyspacesService) UpdateVSchema(ctx context.Context, p *UpdateVSchemaParams) (*VSchema, error) {
	p = orZero(p)
	kp := &KeyspaceParams{p.Organization, p.Database, p.Branch, p.Keyspace}
	if err := kp.check(); err != nil {
		return nil, err
	}
	out := new(VSchema)
	return orNil(out, s.client.patch(ctx, kp.path("/vschema"), p, out))
}

// GetRoutingRulesParams names the branch whose routing rules to read.
type GetRoutingRulesParams = BranchParams

// GetRoutingRules returns a branch's routing rules.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/routing-rules
func (s *BranchesService) GetRoutingRules(ctx context.Context, p *GetRoutingRulesParams) (*RoutingRules, error) {
	p = orZero(p)
	if err := p.check(); err != nil {
		return nil, err
	}
	out := new(RoutingRules)
	return orNil(out, s.client.get(ctx, p.path("/routing-rules"), nil, out))
}

// UpdateRoutingRulesParams replaces a branch's routing rules.
type UpdateRoutingRulesParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	// RoutingRules is the new document, JSON text of an object such as
	// {"rules":[{"from_table":"t","to_tables":["ks.t"]}]}.
	RoutingRules string `json:"routing_rules"`
}

// UpdateRoutingRules replaces a branch's routing rules (the whole
// document) and returns them. A production branch's rules take the
// write_production_branch_vschema permission, a development branch's
// write_branch_vschema.
//
// API: PATCH /v1/organizations/{organization}/databases/{database}/branches/{branch}/routing-rules
func (s *BranchesService) UpdateRoutingRules(ctx context.Context, p *UpdateRoutingRulesParams) (*RoutingRules, error) {
	p = orZero(p)
	bp := &BranchParams{p.Organization, p.Database, p.Branch}
	if err := bp.check(); err != nil {
		return nil, err
	}
	out := new(RoutingRules)
	return orNil(out, s.client.patch(ctx, bp.path("/routing-rules"), p, out))
}
