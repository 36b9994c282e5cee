package platform

import (
	"context"
	"fmt"
	"iter"
	"strconv"
)

// SchemaRecommendationState is the state of a schema recommendation.
type SchemaRecommendationState string

// The schema recommendation states. A recommendation is open until its
// advice is taken (applied), it is dismissed, or the table it is about
// goes (stale).
const (
	RecommendationOpen      SchemaRecommendationState = "open"
	RecommendationApplied   SchemaRecommendationState = "applied"
	RecommendationDismissed SchemaRecommendationState = "dismissed"
	RecommendationStale     SchemaRecommendationState = "stale"
	// RecommendationClosed is a filter of [SchemaRecommendationsService.List]
	// only: the recommendations that are applied, dismissed or stale.
	RecommendationClosed SchemaRecommendationState = "closed"
)

// SchemaRecommendationType is the kind of advice a recommendation gives.
type SchemaRecommendationType string

// The schema recommendation types.
const (
	RecommendationUnusedTable                SchemaRecommendationType = "unused_table"
	RecommendationUnusedIndex                SchemaRecommendationType = "unused_index"
	RecommendationDuplicateIndex             SchemaRecommendationType = "duplicate_index"
	RecommendationSequenceOverflow           SchemaRecommendationType = "sequence_overflow"
	RecommendationSequenceOverflowForeignKey SchemaRecommendationType = "sequence_overflow_foreign_key"
	RecommendationNewIndex                   SchemaRecommendationType = "new_index"
	RecommendationEncodingUpgrade            SchemaRecommendationType = "encoding_upgrade"
	RecommendationBloatedTable               SchemaRecommendationType = "bloated_table"
	RecommendationBloatedIndex               SchemaRecommendationType = "bloated_index"
)

// SchemaRecommendation is advice about a table of a database's production
// schema, with the DDL that follows it.
type SchemaRecommendation struct {
	ID                 string                    `json:"id"`
	HTMLURL            string                    `json:"html_url"`
	Title              string                    `json:"title"`
	TableName          string                    `json:"table_name"`
	Keyspace           string                    `json:"keyspace"`
	DDLStatement       string                    `json:"ddl_statement"`
	Number             int                       `json:"number"`
	State              SchemaRecommendationState `json:"state"`
	RecommendationType SchemaRecommendationType  `json:"recommendation_type"`
	CreatedAt          Timestamp                 `json:"created_at"`
	UpdatedAt          Timestamp                 `json:"updated_at"`
	AppliedAt          *Timestamp                `json:"applied_at"`
	DismissedAt        *Timestamp                `json:"dismissed_at"`
	// ClosedByDeployRequest is the deploy request whose deployment applied
	// the recommendation; nil otherwise.
	ClosedByDeployRequest *DeployRequestRef `json:"closed_by_deploy_request"`
	DismissedBy           *Actor            `json:"dismissed_by"`
}

// DeployRequestRef is the short form of a deploy request inside other
// objects.
type DeployRequestRef struct {
	ID       string `json:"id"`
	BranchID string `json:"branch_id"`
	Number   int    `json:"number"`
}

// SchemaRecommendationsService reads and dismisses the schema
// recommendations of databases.
type SchemaRecommendationsService service

func schemaRecommendationsPath(org, db string) string {
	return pathf("v1/organizations/%s/databases/%s/schema-recommendations", org, db)
}

// ListSchemaRecommendationsParams selects a page of a database's schema
// recommendations.
type ListSchemaRecommendationsParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	// State keeps the open recommendations ([RecommendationOpen]) or the
	// closed ones ([RecommendationClosed]); empty keeps all.
	State SchemaRecommendationState `json:"-" url:"state,omitempty"`
	ListParams
}

// List returns a page of a database's schema recommendations, in number
// order.
//
// API: GET /v1/organizations/{organization}/databases/{database}/schema-recommendations
func (s *SchemaRecommendationsService) List(ctx context.Context, p *ListSchemaRecommendationsParams) (*Page[SchemaRecommendation], error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database); err != nil {
		return nil, err
	}
	return listPage[SchemaRecommendation](ctx, s.client, schemaRecommendationsPath(p.Organization, p.Database), p)
}

// All ranges over every schema recommendation of a database.
func (s *SchemaRecommendationsService) All(ctx context.Context, p *ListSchemaRecommendationsParams) iter.Seq2[*SchemaRecommendation, error] {
	return allOf(ctx, p, s.List)
}

// GetSchemaRecommendationParams names a schema recommendation by its
// number.
type GetSchemaRecommendationParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Number       int    `json:"-" url:"-"`
}

// path checks the params and returns the recommendation's path plus suffix.
func (p *GetSchemaRecommendationParams) check() error {
	if err := required("organization", p.Organization, "database", p.Database); err != nil {
		return err
	}
	if p.Number < 1 {
		return &ArgError{Arg: "number", Reason: fmt.Sprintf("%d is not a schema recommendation number (they start at 1)", p.Number)}
	}
	return nil
}

func (p *GetSchemaRecommendationParams) path(suffix string) string {
	return schemaRecommendationsPath(p.Organization, p.Database) + pathf("/%s", strconv.Itoa(p.Number)) + suffix
}

// Get returns a schema recommendation.
//
// API: GET /v1/organizations/{organization}/databases/{database}/schema-recommendations/{number}
func (s *SchemaRecommendationsService) Get(ctx context.Context, p *GetSchemaRecommendationParams) (*SchemaRecommendation, error) {
	return callOn[SchemaRecommendation](ctx, s.client, "GET", p, "", nil, nil)
}

// DismissSchemaRecommendationParams names the schema recommendation to
// dismiss.
type DismissSchemaRecommendationParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Number       int    `json:"-" url:"-"`
	// Reason says why (at most 500 characters).
	Reason *string `json:"reason,omitempty"`
}

// Dismiss closes an open schema recommendation without following it. The
// same advice is not given again while the recommendation stays dismissed.
//
// API: POST /v1/organizations/{organization}/databases/{database}/schema-recommendations/{number}/dismiss
func (s *SchemaRecommendationsService) Dismiss(ctx context.Context, p *DismissSchemaRecommendationParams) (*SchemaRecommendation, error) {
	p = orZero(p)
	return callOn[SchemaRecommendation](ctx, s.client, "POST", &GetSchemaRecommendationParams{Organization: p.Organization, Database: p.Database, Number: p.Number}, "/dismiss", nil, p)
}
