package platform

import "context"

// SchemaDiff is a table-level difference between two schemas: a branch's
// against its parent's, or what a deploy request changes.
type SchemaDiff struct {
	// Tables are the tables that differ, ordered by keyspace and name.
	Tables []*TableDiff `json:"data"`
}

// TableDiff is how one table differs.
type TableDiff struct {
	// Name is the table's name.
	Name string `json:"name"`
	// Raw is the difference as lines of the table's definition, each
	// prefixed "+" (added), "-" (removed) or " " (unchanged): a created
	// table's lines are all added, a dropped table's all removed.
	Raw string `json:"raw"`
	// HTML is Raw marked up for display.
	HTML string `json:"html"`
}

// DiffBranchParams names the branch whose schema to compare with its
// parent branch's.
type DiffBranchParams = BranchParams

// Diff returns how a branch's schema differs from its parent branch's:
// the tables it adds, drops or changes.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/diff
func (s *BranchesService) Diff(ctx context.Context, p *DiffBranchParams) (*SchemaDiff, error) {
	p = orZero(p)
	if err := p.check(); err != nil {
		return nil, err
	}
	out := new(SchemaDiff)
	return orNil(out, s.client.get(ctx, p.path("/diff"), nil, out))
}

// RefreshBranchSchemaParams names the branch whose schema to read again.
type RefreshBranchSchemaParams = BranchParams

// RefreshSchema has the service read a branch's schema again, for changes
// made over a connection; the branch's SchemaLastUpdatedAt then moves.
//
// API: POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/refresh-schema
func (s *BranchesService) RefreshSchema(ctx context.Context, p *RefreshBranchSchemaParams) error {
	p = orZero(p)
	if err := p.check(); err != nil {
		return err
	}
	return s.client.post(ctx, p.path("/refresh-schema"), nil, nil)
}

// GetDeployRequestDiffParams names the deploy request whose changes to
// show.
type GetDeployRequestDiffParams = DeployRequestParams

// Diff returns the table changes a deploy request makes to the branch it
// deploys into.
//
// API: GET /v1/organizations/{organization}/databases/{database}/deploy-requests/{number}/diff
func (s *DeployRequestsService) Diff(ctx context.Context, p *GetDeployRequestDiffParams) (*SchemaDiff, error) {
	return callOn[SchemaDiff](ctx, s.client, "GET", p, "/diff", nil, nil)
}
