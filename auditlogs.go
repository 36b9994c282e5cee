package platform

import (
	"context"
	"iter"
	"net/url"
)

// AuditLog is an entry of an organization's audit log: one change made
// through the API, who made it, to what, from where and when.
type AuditLog struct {
	ID string `json:"id"`
	// Type is the object's type, "AuditLogEvent".
	Type string `json:"type"`
	// ActorType is "ServiceToken" or "User" (a person, through an OAuth
	// token or the web).
	ActorID          *string `json:"actor_id"`
	ActorType        *string `json:"actor_type"`
	ActorDisplayName string  `json:"actor_display_name"`
	// AuditableType is where the change was made: "Organization" or
	// "Database".
	AuditableID          *string `json:"auditable_id"`
	AuditableType        *string `json:"auditable_type"`
	AuditableDisplayName string  `json:"auditable_display_name"`
	// TargetType is the kind of record changed ("DatabaseBranch",
	// "DatabaseBranchPassword", "DeployRequest", ...).
	TargetID          *string `json:"target_id"`
	TargetType        *string `json:"target_type"`
	TargetDisplayName *string `json:"target_display_name"`
	// AuditAction names the change as "<resource>.<action>"
	// ("database.created", "deploy_request.queued"); Action is its part
	// after the dot.
	AuditAction string `json:"audit_action"`
	Action      string `json:"action"`
	// Location is where the actor's address is, when known.
	Location  *string   `json:"location"`
	RemoteIP  *string   `json:"remote_ip"`
	CreatedAt Timestamp `json:"created_at"`
	UpdatedAt Timestamp `json:"updated_at"`
	// Metadata holds details of the change, nil when there are none.
	Metadata map[string]any `json:"metadata"`
}

// AuditLogsService reads organizations' audit logs.
type AuditLogsService service

// AuditActions keeps the audit log entries whose AuditAction is one of
// them ("database.created", "branch.deleted"); empty keeps every entry.
type AuditActions []string

// EncodeValues writes each action as the API's "audit_action:ACTION"
// filter.
func (a AuditActions) EncodeValues(key string, v *url.Values) error {
	for _, action := range a {
		v.Add(key, "audit_action:"+action)
	}
	return nil
}

// ListAuditLogsParams selects a page of an organization's audit log.
type ListAuditLogsParams struct {
	Organization string `json:"-" url:"-"`
	// Actions keeps the entries of these actions.
	Actions AuditActions `json:"-" url:"filters[],omitempty"`
	CursorParams
}

// List returns a page of an organization's audit log, newest first. Pages
// are reached by cursor: pass a page's CursorEnd as StartingAfter for the
// older entries after it.
//
// API: GET /v1/organizations/{organization}/audit-log
func (s *AuditLogsService) List(ctx context.Context, p *ListAuditLogsParams) (*CursorPage[AuditLog], error) {
	p = orZero(p)
	if err := required("organization", p.Organization); err != nil {
		return nil, err
	}
	return listCursorPage[AuditLog](ctx, s.client, pathf("v1/organizations/%s/audit-log", p.Organization), p)
}

// All ranges over an organization's audit log that matches p, newest
// first, from p's cursor on.
func (s *AuditLogsService) All(ctx context.Context, p *ListAuditLogsParams) iter.Seq2[*AuditLog, error] {
	return allCursored(ctx, p, s.List)
}
