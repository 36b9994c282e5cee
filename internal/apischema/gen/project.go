package main

import (
	"fmt"
	"log"
	"maps"
	"slices"

	"github.com/dbplatform/platform-go/internal/apischema"
)

// projectOperations are the operations the project serves that the
// reference does not describe, with the shapes the spec (the OAuth token
// response's table), decisions.md (the service token access endpoints) and
// RFC 8628 3.2 (the device authorization response) give them. Where a shape is the reference's, it is taken from there: an
// access is an item of a service token's service_token_accesses, a page is
// the reference's paginated list, a cluster size the reference's SKU. The
// paths the service's official client calls although the reference omits
// them (a branch's cluster sizes and infrastructure, a keyspace's read-only
// regions, branch and deploy-request diffs, routing rules, refresh-schema)
// have the shapes of that client's types, as decisions.md says.
func projectOperations(defs map[string]*refSchema) map[string]*apischema.Operation {
	access := mustConvert(defs, "ServiceToken").Properties["service_token_accesses"].Items
	access.Nullable = false
	page := func(item *apischema.Schema) *apischema.Schema {
		p := mustConvert(defs, "PaginatedServiceToken")
		p.Properties["data"].Items = item
		return p
	}
	str := func() *apischema.Schema { return &apischema.Schema{Type: "string"} }
	grant := &apischema.Schema{
		Type:     "object",
		Required: []string{"id", "resource_name", "resource_id", "resource_type", "accesses"},
		Properties: map[string]*apischema.Schema{
			"id": str(), "resource_name": str(), "resource_id": str(), "resource_type": str(),
			"accesses": {Type: "array", Items: &apischema.Schema{
				Type:       "object",
				Required:   []string{"access", "description"},
				Properties: map[string]*apischema.Schema{"access": str(), "description": str()},
			}},
		},
	}
	obj := func(props map[string]*apischema.Schema) *apischema.Schema {
		s := &apischema.Schema{Type: "object", Properties: props}
		s.Required = slices.Sorted(maps.Keys(props))
		return s
	}
	arr := func(item *apischema.Schema) *apischema.Schema { return &apischema.Schema{Type: "array", Items: item} }
	nullStr := func() *apischema.Schema { return &apischema.Schema{Type: "string", Nullable: true} }
	integer := func() *apischema.Schema { return &apischema.Schema{Type: "integer"} }
	pod := obj(map[string]*apischema.Schema{
		"name": str(), "status": str(), "component": str(), "ready": str(), "restart_count": integer(),
		"created_at": nullStr(), "cell": str(), "size": str(), "keyspace": nullStr(), "shard": nullStr(), "tablet_type": nullStr(),
	})
	// A PostgreSQL branch's infrastructure, as the official client's
	// PostgresBranchInfrastructure decodes it: its instances and bouncers.
	// Its regions are the reference's public regions (GET /v1/regions).
	region := obj(map[string]*apischema.Schema{
		"id": str(), "provider": str(), "enabled": {Type: "boolean"}, "public_ip_addresses": arr(str()),
		"display_name": str(), "location": str(), "slug": str(),
	})
	nullInt := func() *apischema.Schema { return &apischema.Schema{Type: "integer", Nullable: true} }
	pgNode := obj(map[string]*apischema.Schema{
		"name": str(), "normalized_name": str(), "role": str(), "availability_zone": str(), "cluster_name": str(),
		"cluster_display_name": str(), "peers_count": integer(), "volume_usage_bytes": nullInt(), "volume_capacity_bytes": nullInt(),
		"volume_shrink_threshold_percent": {Type: "number", Nullable: true}, "region": region,
		"disk_replacement": {Type: "object", Nullable: true, Required: []string{"reason", "bytes", "scheduled_at"}, Properties: map[string]*apischema.Schema{
			"reason": str(), "bytes": integer(), "scheduled_at": nullStr(),
		}},
	})
	pgBouncer := obj(map[string]*apischema.Schema{
		"id": str(), "name": str(), "target": str(), "replicas_per_cell": integer(), "region": region,
		"sku": {Type: "object", Nullable: true, Required: []string{"name", "display_name", "cpu", "ram"}, Properties: map[string]*apischema.Schema{
			"name": str(), "display_name": str(), "cpu": str(), "ram": integer(),
		}},
	})
	readOnlyRegion := obj(map[string]*apischema.Schema{
		"region": str(), "cluster_name": str(), "cluster_display_name": str(), "replicas": integer(),
	})
	branch := "/v1/organizations/{organization}/databases/{database}/branches/{branch}"
	// A diff is a list of tables as the branch schema lists them (name,
	// raw, html); routing rules are a document as a VSchema is (raw, html).
	diff := obj(map[string]*apischema.Schema{"data": arr(obj(map[string]*apischema.Schema{"name": str(), "raw": str(), "html": str()}))})
	document := func() *apischema.Schema { return obj(map[string]*apischema.Schema{"raw": str(), "html": str()}) }
	tokens := "/v1/organizations/{organization}/service-tokens/{id}"
	// An authentication-attempt export, as the official client reads it:
	// each filter list is left out when empty (its omitempty); the times
	// of steps not reached are null.
	enum := func(values ...string) *apischema.Schema { return &apischema.Schema{Type: "string", Enum: values} }
	strs := func() *apischema.Schema { return arr(str()) }
	filters := &apischema.Schema{Type: "object", Properties: map[string]*apischema.Schema{
		"source_ips": strs(), "branches": strs(), "outcomes": arr(enum("allow", "deny")), "usernames": strs(),
		"startup_databases": strs(), "failure_reasons": arr(enum("bad_password", "unknown_user", "authorization_failed", "ip_not_allowed", "other")),
		"backend_routes": arr(enum("postgres", "pgbouncer", "unknown")),
	}}
	filters.Optional = slices.Sorted(maps.Keys(filters.Properties))
	export := obj(map[string]*apischema.Schema{
		"id": str(), "state": enum("pending", "running", "ready", "failed"), "expired": {Type: "boolean"},
		"start_at": str(), "end_at": str(), "filters": filters, "format": enum("jsonl", "csv", "parquet"),
		"resolved_branch_public_ids": strs(), "created_at": str(),
		"started_at": nullStr(), "generated_at": nullStr(), "finished_at": nullStr(), "expires_at": nullStr(),
		"failure_reason": str(), "failure_detail": str(), "recovery_hint": str(),
	})
	exports := "/v1/organizations/{organization}/auth-attempt-exports"
	// A data import is the reference's data_import of a database, with the
	// id the official client reads; a test of its source has the shape of
	// that client's answer.
	dataImport := mustConvert(defs, "Database").Properties["data_import"]
	dataImport.Nullable = false
	dataImport.Properties["id"] = str()
	dataImport.Required = append(dataImport.Required, "id")
	imports := "/v1/organizations/{organization}/databases/{database}/data-imports"
	sourceCheck := obj(map[string]*apischema.Schema{
		"can_connect": {Type: "boolean"}, "error": str(), "should_upgrade": {Type: "boolean"},
		"suggested_plan": str(), "max_pool_size": integer(),
		"lint_errors": arr(obj(map[string]*apischema.Schema{
			"lint_error": str(), "keyspace_name": str(), "table_name": str(), "subject_type": str(),
			"error_description": str(), "docs_url": str(),
		})),
	})
	// A branch's connections and its process list have the shapes the
	// command-line tool and the official client decode (decisions.md,
	// "Connections and process list").
	topology := obj(map[string]*apischema.Schema{"keyspace": str(), "shard": str(), "tablet": str()})
	topology.Nullable = true
	connections := obj(map[string]*apischema.Schema{
		"type": str(), "database_kind": {Type: "string", Enum: []string{"mysql", "postgresql"}}, "captured_at": str(),
		"next_page": nullInt(), "prev_page": nullInt(), "topology": topology,
		"instances": arr(obj(map[string]*apischema.Schema{"id": str(), "role": {Type: "string", Enum: []string{"primary", "replica"}}, "error": nullStr()})),
		"data": arr(obj(map[string]*apischema.Schema{
			"pid": integer(), "instance": str(), "connection_id": nullStr(), "transaction_id": nullStr(), "query_id": nullStr(),
			"leader_pid": nullInt(), "datname": str(), "usename": str(), "application_name": str(), "client_addr": str(),
			"state": str(), "wait_event_type": nullStr(), "wait_event": nullStr(), "backend_type": str(),
			"backend_start": nullStr(), "xact_start": nullStr(), "query_start": nullStr(), "state_change": nullStr(),
			"captured_at": str(), "duration_ms": integer(), "blocked_by": arr(integer()), "query_text": str(),
		})),
	})
	processes := obj(map[string]*apischema.Schema{"data": obj(map[string]*apischema.Schema{
		"keyspace": str(), "shard": str(), "tablet": str(),
		"processes": arr(obj(map[string]*apischema.Schema{
			"id": integer(), "user": str(), "host": str(), "db": str(), "command": str(), "time": integer(), "state": str(), "info": str(),
		})),
	})})
	killed := obj(map[string]*apischema.Schema{"data": obj(map[string]*apischema.Schema{
		"success": {Type: "boolean"}, "keyspace": str(), "shard": str(), "tablet": str(), "id": integer(),
		"kind": {Type: "string", Enum: []string{"connection", "query"}},
	})})
	ops := map[string]*apischema.Operation{
		"create_auth_attempt_export":   {Method: "POST", Path: exports, Status: 200, Source: "project", Response: export},
		"get_auth_attempt_export":      {Method: "GET", Path: exports + "/{export}", Status: 200, Source: "project", Response: export},
		"download_auth_attempt_export": {Method: "GET", Path: exports + "/{export}/download", Status: 302, Source: "project", Response: export},
		"list_branch_connections":      {Method: "GET", Path: branch + "/connections", Status: 200, Source: "project", Response: connections},
		"kill_branch_query":            {Method: "DELETE", Path: branch + "/connections/query/{id}", Status: 204, Source: "project"},
		"kill_branch_transaction":      {Method: "DELETE", Path: branch + "/connections/transaction/{id}", Status: 204, Source: "project"},
		"kill_branch_connection":       {Method: "DELETE", Path: branch + "/connections/connection/{id}", Status: 204, Source: "project"},
		"list_processlist":             {Method: "GET", Path: branch + "/processlist", Status: 200, Source: "project", Response: processes},
		"kill_process":                 {Method: "POST", Path: branch + "/processlist/kill", Status: 200, Source: "project", Response: killed},
		"list_service_token_accesses":  {Method: "GET", Path: tokens + "/access", Status: 200, Source: "project", Response: page(access)},
		"test_data_import_source":      {Method: "POST", Path: "/v1/organizations/{organization}/data-imports/test-connection", Status: 200, Source: "project", Response: sourceCheck},
		"start_data_import":            {Method: "POST", Path: "/v1/organizations/{organization}/data-imports/new", Status: 200, Source: "project", Response: dataImport},
		"get_data_import":              {Method: "GET", Path: imports, Status: 200, Source: "project", Response: dataImport},
		"make_data_import_primary":     {Method: "POST", Path: imports + "/begin-switch-traffic", Status: 200, Source: "project", Response: dataImport},
		"make_data_import_replica":     {Method: "POST", Path: imports + "/begin-reverse-traffic", Status: 200, Source: "project", Response: dataImport},
		"detach_data_import_database":  {Method: "POST", Path: imports + "/detach-external-database", Status: 200, Source: "project", Response: dataImport},
		"cancel_data_import":           {Method: "POST", Path: imports + "/cancel", Status: 204, Source: "project"},
		"create_import_notification":   {Method: "POST", Path: "/internal/organizations/{organization}/databases/{database}/d1-import-notifications", Status: 204, Source: "project"},
		"add_service_token_accesses": {Method: "POST", Path: tokens + "/access", Status: 200, Source: "project", Response: &apischema.Schema{
			Type: "object", Required: []string{"data"},
			Properties: map[string]*apischema.Schema{"data": {Type: "array", Items: access}},
		}},
		"remove_service_token_accesses": {Method: "DELETE", Path: tokens + "/access", Status: 204, Source: "project"},
		"list_service_token_grants":     {Method: "GET", Path: tokens + "/grants", Status: 200, Source: "project", Response: page(grant)},
		"oauth_authorize":               {Method: "GET", Path: "{auth_url}/oauth/authorize", Status: 302, Source: "project"},
		"list_branch_cluster_size_skus": {Method: "GET", Path: branch + "/cluster-size-skus", Status: 200, Source: "project", Response: arr(mustConvert(defs, "ClusterSizeSku"))},
		"get_branch_infrastructure": {Method: "GET", Path: branch + "/infrastructure", Status: 200, Source: "project", Response: &apischema.Schema{
			Type: "object", Discriminator: "type", Variants: map[string]*apischema.Schema{
				"BranchInfrastructure": obj(map[string]*apischema.Schema{"type": str(), "ready": {Type: "boolean"}, "pods": arr(pod)}),
				"PostgresInfrastructure": obj(map[string]*apischema.Schema{
					"type": str(), "state": str(), "primary_name": str(), "primary_promoted_at": nullStr(),
					"volume_modifications_blocked_until": nullStr(), "nodes": arr(pgNode), "bouncers": arr(pgBouncer),
				}),
			},
		}},
		"update_keyspace_read_only_regions": {Method: "PUT", Path: branch + "/keyspaces/{keyspace}/read-only-regions", Status: 200, Source: "project", Response: arr(readOnlyRegion)},
		"diff_branch":                       {Method: "GET", Path: branch + "/diff", Status: 200, Source: "project", Response: diff},
		"get_deploy_request_diff":           {Method: "GET", Path: "/v1/organizations/{organization}/databases/{database}/deploy-requests/{number}/diff", Status: 200, Source: "project", Response: diff},
		"refresh_branch_schema":             {Method: "POST", Path: branch + "/refresh-schema", Status: 204, Source: "project"},
		"cancel_branch_changes":             {Method: "DELETE", Path: branch + "/changes", Status: 204, Source: "project"},
		"get_branch_routing_rules":          {Method: "GET", Path: branch + "/routing-rules", Status: 200, Source: "project", Response: document()},
		"update_branch_routing_rules":       {Method: "PATCH", Path: branch + "/routing-rules", Status: 200, Source: "project", Response: document()},
		"oauth_authorize_device": {Method: "POST", Path: "{auth_url}/oauth/authorize_device", Status: 200, Source: "project", Response: &apischema.Schema{
			Type:     "object",
			Required: []string{"device_code", "user_code", "verification_uri", "verification_uri_complete", "expires_in", "interval"},
			Properties: map[string]*apischema.Schema{
				"device_code": str(), "user_code": str(), "verification_uri": str(), "verification_uri_complete": str(),
				"expires_in": {Type: "integer"}, "interval": {Type: "integer"},
			},
		}},
		"oauth_revoke": {Method: "POST", Path: "{auth_url}/oauth/revoke", Status: 200, Source: "project"},
		// The Vitess control plane (decisions.md, "Vitess pass-through"):
		// the official client's TabletGroup and VtctldOperation, and the
		// envelope {"data": ...} of Vitess documents in protobuf JSON.
		"list_tablets": {Method: "GET", Path: branch + "/tablets", Status: 200, Source: "project", Response: arr(obj(map[string]*apischema.Schema{
			"type": str(), "keyspace": str(), "shard": str(),
			"tablets": arr(obj(map[string]*apischema.Schema{"alias": str(), "role": str(), "cell": str()})),
		}))},
		"oauth_token": {Method: "POST", Path: "{auth_url}/oauth/token", Status: 200, Source: "project", Response: &apischema.Schema{
			Type:     "object",
			Required: []string{"access_token", "token_type", "expires_in", "refresh_token", "scope"},
			Properties: map[string]*apischema.Schema{
				"access_token": str(), "token_type": str(), "expires_in": {Type: "integer"}, "refresh_token": str(), "scope": str(),
			},
		}},
	}
	maps.Copy(ops, vitessOperations(branch))
	return ops
}

// vitessOperations are the operations of a branch's Vitess control plane
// whose bodies are Vitess documents (vtctldata and topodata in protobuf
// JSON, whose fields at their zero value are left out: optional here) or
// the official client's VtctldOperation.
func vitessOperations(branch string) map[string]*apischema.Operation {
	str := func() *apischema.Schema { return &apischema.Schema{Type: "string"} }
	integer := func() *apischema.Schema { return &apischema.Schema{Type: "integer"} }
	boolean := func() *apischema.Schema { return &apischema.Schema{Type: "boolean"} }
	// proto is an object whose properties are all optional but those
	// required.
	proto := func(props map[string]*apischema.Schema, required ...string) *apischema.Schema {
		s := &apischema.Schema{Type: "object", Properties: props, Required: required}
		for _, k := range slices.Sorted(maps.Keys(props)) {
			if !slices.Contains(required, k) {
				s.Optional = append(s.Optional, k)
			}
		}
		return s
	}
	data := func(inner *apischema.Schema) *apischema.Schema {
		return proto(map[string]*apischema.Schema{"data": inner}, "data")
	}
	alias := proto(map[string]*apischema.Schema{"cell": str(), "uid": integer()})
	tabletType := &apischema.Schema{Type: "string", Enum: []string{"TABLET_TYPE_PRIMARY", "TABLET_TYPE_REPLICA", "TABLET_TYPE_RDONLY"}}
	shard := proto(map[string]*apischema.Schema{
		"primary_alias":           alias,
		"primary_term_start_time": proto(map[string]*apischema.Schema{"seconds": str(), "nanoseconds": integer()}),
		"key_range":               proto(map[string]*apischema.Schema{"start": str(), "end": str()}),
		"tablet_controls": {Type: "array", Items: proto(map[string]*apischema.Schema{
			"tablet_type": tabletType, "cells": {Type: "array", Items: str()}, "denied_tables": {Type: "array", Items: str()}, "frozen": boolean(),
		}, "tablet_type")},
		"is_primary_serving": boolean(),
	})
	keyspace := proto(map[string]*apischema.Schema{
		"name":     str(),
		"keyspace": proto(map[string]*apischema.Schema{"keyspace_type": str(), "base_keyspace": str(), "durability_policy": str(), "sidecar_db_name": str()}),
	}, "name", "keyspace")
	nullable := func(s *apischema.Schema) *apischema.Schema { s.Nullable = true; return s }
	operation := proto(map[string]*apischema.Schema{
		"id": str(), "type": str(), "action": str(), "timeout": integer(),
		"created_at": str(), "completed_at": {Type: "string", Nullable: true},
		"state":     {Type: "string", Enum: []string{"pending", "running", "completed", "failed", "cancelled"}},
		"completed": boolean(),
		"metadata":  {Type: "object", Nullable: true, Values: str()},
		// The result is the action's Vitess response: a planned
		// reparent's PlannedReparentShardResponse, a MoveTables action's
		// MoveTablesCreateResponse, WorkflowSwitchTrafficResponse,
		// WorkflowDeleteResponse or MoveTablesCompleteResponse.
		"result": nullable(proto(map[string]*apischema.Schema{
			"keyspace": str(), "shard": str(), "promoted_primary": alias,
			"summary": str(), "start_state": str(), "current_state": str(), "dry_run_results": {Type: "array", Items: str()},
			"details": {Type: "array", Items: proto(map[string]*apischema.Schema{"tablet": alias, "created": boolean(), "deleted": boolean()})},
		})),
		"error": {Type: "string", Nullable: true},
	}, "id", "type", "action", "timeout", "created_at", "completed_at", "state", "completed", "metadata", "result", "error")
	number := func() *apischema.Schema { return &apischema.Schema{Type: "number"} }
	// The routing rules and the throttler (vschema, topodata and
	// tabletmanagerdata).
	ksRules := proto(map[string]*apischema.Schema{"rules": {Type: "array", Items: proto(map[string]*apischema.Schema{
		"from_keyspace": str(), "to_keyspace": str(),
	})}})
	appRule := proto(map[string]*apischema.Schema{
		"name": str(), "ratio": number(), "exempt": boolean(),
		"expires_at": proto(map[string]*apischema.Schema{"seconds": str(), "nanoseconds": integer()}),
	})
	checkCode := &apischema.Schema{Type: "string", Enum: []string{"UNDEFINED", "OK", "THRESHOLD_EXCEEDED", "APP_DENIED", "UNKNOWN_METRIC", "INTERNAL_ERROR"}}
	// The VDiffs (vtctldata, tabletmanagerdata.VDiffResponse and
	// query.QueryResult).
	queryResult := proto(map[string]*apischema.Schema{
		"fields": {Type: "array", Items: proto(map[string]*apischema.Schema{
			"name": str(), "type": str(), "table": str(), "org_table": str(), "database": str(), "org_name": str(),
			"column_length": integer(), "charset": integer(), "decimals": integer(), "flags": integer(), "column_type": str(),
		})},
		"rows_affected": str(), "insert_id": str(),
		"rows": {Type: "array", Items: proto(map[string]*apischema.Schema{"lengths": {Type: "array", Items: str()}, "values": str()})},
		"info": str(), "session_state_changes": str(),
	})
	vdiffShow := proto(map[string]*apischema.Schema{"tablet_responses": {Type: "object", Values: proto(map[string]*apischema.Schema{
		"id": str(), "output": queryResult, "vdiff_uuid": str(),
	})}})
	const vdiffs = "/vdiff/workflows/{workflow}/vdiffs"
	// The VReplication workflows (vtctldata.Workflow and the answers of
	// its actions); an action of MoveTables answers the reference of its
	// operation, as the official client's VtctldOperationReference reads it.
	protoTime := proto(map[string]*apischema.Schema{"seconds": str(), "nanoseconds": integer()})
	strs := &apischema.Schema{Type: "array", Items: str()}
	stream := proto(map[string]*apischema.Schema{
		"id": str(), "shard": str(), "tablet": alias,
		"binlog_source": proto(map[string]*apischema.Schema{
			"keyspace": str(), "shard": str(), "key_range": proto(map[string]*apischema.Schema{"start": str(), "end": str()}),
			"filter": proto(map[string]*apischema.Schema{
				"rules":         {Type: "array", Items: proto(map[string]*apischema.Schema{"match": str(), "filter": str()})},
				"workflow_type": str(), "workflow_name": str(),
			}),
			"on_ddl":          &apischema.Schema{Type: "string", Enum: []string{"IGNORE", "STOP", "EXEC", "EXEC_IGNORE"}},
			"stop_after_copy": boolean(), "source_time_zone": str(), "target_time_zone": str(),
		}),
		"position": str(), "stop_position": str(),
		"state":   &apischema.Schema{Type: "string", Enum: []string{"Unknown", "Init", "Stopped", "Copying", "Running", "Error", "Lagging"}},
		"db_name": str(), "transaction_timestamp": protoTime, "time_updated": protoTime, "message": str(),
		"copy_states": {Type: "array", Items: proto(map[string]*apischema.Schema{"table": str(), "last_pk": str(), "stream_id": str()})},
		"logs": {Type: "array", Items: proto(map[string]*apischema.Schema{
			"id": str(), "stream_id": str(), "type": str(), "state": str(), "created_at": protoTime, "updated_at": protoTime, "message": str(), "count": str(),
		})},
		"rows_copied": str(), "tablet_types": {Type: "array", Items: tabletType}, "cells": strs,
	})
	location := proto(map[string]*apischema.Schema{"keyspace": str(), "shards": strs})
	workflow := proto(map[string]*apischema.Schema{
		"name": str(), "source": location, "target": location, "max_v_replication_lag": str(),
		"shard_streams": {Type: "object", Values: proto(map[string]*apischema.Schema{
			"streams": {Type: "array", Items: stream},
			"tablet_controls": {Type: "array", Items: proto(map[string]*apischema.Schema{
				"tablet_type": tabletType, "cells": strs, "denied_tables": strs, "frozen": boolean(),
			}, "tablet_type")},
			"is_primary_serving": boolean(),
		})},
		"workflow_type":        &apischema.Schema{Type: "string", Enum: []string{"Materialize", "MoveTables", "CreateLookupIndex", "Migrate", "Reshard", "OnlineDDL"}},
		"workflow_sub_type":    &apischema.Schema{Type: "string", Enum: []string{"None", "Partial", "AtomicCopy"}},
		"defer_secondary_keys": boolean(),
		"options": proto(map[string]*apischema.Schema{
			"tenant_id": str(), "sharded_auto_increment_handling": &apischema.Schema{Type: "string", Enum: []string{"LEAVE", "REMOVE", "REPLACE"}},
			"shards": strs, "global_keyspace": str(),
		}),
	})
	tabletsAnswer := func(flag string) *apischema.Schema {
		return proto(map[string]*apischema.Schema{"summary": str(), "details": {Type: "array", Items: proto(map[string]*apischema.Schema{"tablet": alias, flag: boolean()})}})
	}
	workflowStatus := proto(map[string]*apischema.Schema{
		"table_copy_state": {Type: "object", Values: proto(map[string]*apischema.Schema{
			"rows_copied": str(), "rows_total": str(), "rows_percentage": number(), "bytes_copied": str(), "bytes_total": str(), "bytes_percentage": number(),
		})},
		"shard_streams": {Type: "object", Values: proto(map[string]*apischema.Schema{"streams": {Type: "array", Items: proto(map[string]*apischema.Schema{
			"id": integer(), "tablet": alias, "source_shard": str(), "position": str(), "status": str(), "info": str(),
		})}})},
		"traffic_state": str(),
	})
	opRef := proto(map[string]*apischema.Schema{"id": str()}, "id")
	// Materialize and lookup vindexes: a show is the workflow as the
	// workflow list has it; a create answers a summary.
	workflows := data(proto(map[string]*apischema.Schema{"workflows": {Type: "array", Items: workflow}}))
	summary := data(proto(map[string]*apischema.Schema{"summary": str()}))
	op := func(method, path string, resp *apischema.Schema) *apischema.Operation {
		return &apischema.Operation{Method: method, Path: branch + path, Status: 200, Source: "project", Response: resp}
	}
	return map[string]*apischema.Operation{
		"vtctld_list_keyspaces": op("GET", "/vtctld/keyspaces", data(proto(map[string]*apischema.Schema{
			"keyspaces": {Type: "array", Items: keyspace},
		}))),
		"vtctld_get_shard": op("GET", "/vtctld/shard", data(proto(map[string]*apischema.Schema{
			"keyspace": str(), "name": str(), "shard": shard,
		}, "keyspace", "name", "shard"))),
		"vtctld_set_shard_tablet_control": op("PUT", "/vtctld/shard/tablet-control", data(proto(map[string]*apischema.Schema{"shard": shard}, "shard"))),
		"vtctld_refresh_state_by_shard": op("POST", "/vtctld/shard/refresh-state", data(proto(map[string]*apischema.Schema{
			"is_partial_refresh": boolean(), "partial_refresh_details": str(),
		}))),
		"vtctld_get_routing_rules": op("GET", "/vtctld/routing-rules", data(proto(map[string]*apischema.Schema{
			"routing_rules": proto(map[string]*apischema.Schema{"rules": {Type: "array", Items: proto(map[string]*apischema.Schema{
				"from_table": str(), "to_tables": {Type: "array", Items: str()},
			})}}),
		}))),
		"vtctld_get_keyspace_routing_rules":   op("GET", "/vtctld/keyspace-routing-rules", data(proto(map[string]*apischema.Schema{"keyspace_routing_rules": ksRules}))),
		"vtctld_apply_keyspace_routing_rules": op("PUT", "/vtctld/keyspace-routing-rules", data(proto(map[string]*apischema.Schema{"keyspace_routing_rules": ksRules}))),
		"vtctld_get_throttler_status": op("GET", "/vtctld/throttler/status", data(proto(map[string]*apischema.Schema{"status": proto(map[string]*apischema.Schema{
			"tablet_alias": str(), "keyspace": str(), "shard": str(),
			"is_leader": boolean(), "is_open": boolean(), "is_enabled": boolean(), "is_dormant": boolean(),
			"lag_metric_query": str(), "custom_metric_query": str(), "default_threshold": number(), "metric_name_used_as_default": str(),
			"aggregated_metrics":  {Type: "object", Values: proto(map[string]*apischema.Schema{"value": number(), "error": str()})},
			"metric_thresholds":   {Type: "object", Values: number()},
			"throttled_apps":      {Type: "object", Values: appRule},
			"app_checked_metrics": {Type: "object", Values: str()},
			"recently_checked":    boolean(),
		})}))),
		"vtctld_check_throttler": op("POST", "/vtctld/throttler/check", data(proto(map[string]*apischema.Schema{
			"tablet_alias": alias,
			"Check": proto(map[string]*apischema.Schema{
				"status_code": integer(), "value": number(), "threshold": number(), "error": str(), "message": str(), "recently_checked": boolean(),
				"metrics": {Type: "object", Values: proto(map[string]*apischema.Schema{
					"name": str(), "status_code": integer(), "value": number(), "threshold": number(), "error": str(), "message": str(),
					"scope": str(), "response_code": checkCode,
				})},
				"app_name": str(), "summary": str(), "response_code": checkCode,
			}),
		}))),
		"vtctld_update_throttler_config": op("PUT", "/vtctld/throttler/config", data(proto(map[string]*apischema.Schema{}))),
		"vtctld_get_operation":           op("GET", "/vtctld/operations/{id}", operation),
		"vtctld_list_workflows":          op("GET", "/vtctld/workflows", data(proto(map[string]*apischema.Schema{"workflows": {Type: "array", Items: workflow}}))),
		"vtctld_start_workflow":          op("POST", "/vtctld/workflows/{workflow}/start", data(tabletsAnswer("changed"))),
		"vtctld_stop_workflow":           op("POST", "/vtctld/workflows/{workflow}/stop", data(tabletsAnswer("changed"))),
		"move_tables_create":             op("POST", "/move-tables/workflows", opRef),
		"move_tables_show":               op("GET", "/move-tables/workflows/{workflow}", data(proto(map[string]*apischema.Schema{"workflows": {Type: "array", Items: workflow}}))),
		"move_tables_status":             op("GET", "/move-tables/workflows/{workflow}/status", data(workflowStatus)),
		"move_tables_switch_traffic":     op("POST", "/move-tables/workflows/{workflow}/switch-traffic", opRef),
		"move_tables_reverse_traffic":    op("POST", "/move-tables/workflows/{workflow}/reverse-traffic", opRef),
		"move_tables_cancel":             op("POST", "/move-tables/workflows/{workflow}/cancel", opRef),
		"move_tables_complete":           op("POST", "/move-tables/workflows/{workflow}/complete", opRef),
		"create_planned_reparent":        op("POST", "/planned-reparent", operation),
		"get_planned_reparent":           op("GET", "/planned-reparent/{id}", operation),
		"materialize_create":             op("POST", "/materialize/workflows", summary),
		"materialize_show":               op("GET", "/materialize/workflows/{workflow}", workflows),
		"materialize_start":              op("POST", "/materialize/workflows/{workflow}/start", data(tabletsAnswer("changed"))),
		"materialize_stop":               op("POST", "/materialize/workflows/{workflow}/stop", data(tabletsAnswer("changed"))),
		"materialize_cancel":             op("POST", "/materialize/workflows/{workflow}/cancel", data(tabletsAnswer("deleted"))),
		"lookup_vindex_create":           op("POST", "/lookup-vindex/vindexes", summary),
		"lookup_vindex_show":             op("GET", "/lookup-vindex/vindexes/{name}", workflows),
		"lookup_vindex_externalize": op("POST", "/lookup-vindex/vindexes/{name}/externalize", data(proto(map[string]*apischema.Schema{
			"workflow_stopped": boolean(), "workflow_deleted": boolean(),
		}))),
		"lookup_vindex_internalize": op("POST", "/lookup-vindex/vindexes/{name}/internalize", data(proto(map[string]*apischema.Schema{}))),
		"lookup_vindex_complete":    op("POST", "/lookup-vindex/vindexes/{name}/complete", data(proto(map[string]*apischema.Schema{}))),
		"lookup_vindex_cancel":      op("POST", "/lookup-vindex/vindexes/{name}/cancel", data(tabletsAnswer("deleted"))),
		"vdiff_create":              op("POST", vdiffs, data(proto(map[string]*apischema.Schema{"UUID": str()}, "UUID"))),
		"vdiff_list":                op("GET", vdiffs, data(vdiffShow)),
		"vdiff_show":                op("GET", vdiffs+"/{uuid}", data(vdiffShow)),
		"vdiff_stop":                op("POST", vdiffs+"/{uuid}/stop", data(proto(map[string]*apischema.Schema{}))),
		"vdiff_resume":              op("POST", vdiffs+"/{uuid}/resume", data(proto(map[string]*apischema.Schema{}))),
		"vdiff_delete":              op("DELETE", vdiffs+"/{uuid}", data(proto(map[string]*apischema.Schema{}))),
	}
}

// projectResponses are the bodies of operations of the reference that it
// describes only in words, without a schema: the storage of a branch's
// tables "keyed by table name" (and by keyspace), each table's storage
// the project's shape (rows, data_bytes, index_bytes).
func projectResponses() map[string]*apischema.Schema {
	integer := func() *apischema.Schema { return &apischema.Schema{Type: "integer"} }
	table := &apischema.Schema{
		Type:       "object",
		Required:   []string{"data_bytes", "index_bytes", "rows"},
		Properties: map[string]*apischema.Schema{"rows": integer(), "data_bytes": integer(), "index_bytes": integer()},
	}
	byTable := &apischema.Schema{Type: "object", Values: table}
	return map[string]*apischema.Schema{
		"get_branch_table_metrics":          byTable,
		"get_branch_keyspace_table_metrics": {Type: "object", Values: byTable},
	}
}

// projectProperties are the properties the project adds to definitions of
// the reference, by definition: what the service sends and its official
// client decodes although the reference leaves it out, with the shapes of
// that client's types (a workflow's tables, streams and latest data
// verification).
func projectProperties() map[string]map[string]*apischema.Schema {
	str := func() *apischema.Schema { return &apischema.Schema{Type: "string"} }
	nullStr := func() *apischema.Schema { return &apischema.Schema{Type: "string", Nullable: true} }
	integer := func() *apischema.Schema { return &apischema.Schema{Type: "integer"} }
	arr := func(item *apischema.Schema) *apischema.Schema { return &apischema.Schema{Type: "array", Items: item} }
	obj := func(props map[string]*apischema.Schema) *apischema.Schema {
		return &apischema.Schema{Type: "object", Properties: props, Required: slices.Sorted(maps.Keys(props))}
	}
	rows := arr(&apischema.Schema{Type: "object"})
	return map[string]map[string]*apischema.Schema{
		"Workflow": {
			"tables": arr(obj(map[string]*apischema.Schema{
				"id": str(), "name": str(), "created_at": str(), "updated_at": str(),
				"rows_copied": integer(), "rows_total": integer(), "rows_percentage": integer(),
			})),
			"streams": arr(obj(map[string]*apischema.Schema{
				"id": str(), "state": str(), "created_at": str(), "updated_at": str(), "target_shard": str(), "source_shard": str(),
				"position": str(), "stop_position": str(), "rows_copied": integer(),
				"component_throttled": nullStr(), "component_throttled_at": nullStr(), "primary_serving": {Type: "boolean"}, "info": str(),
				"logs": arr(obj(map[string]*apischema.Schema{
					"id": str(), "state": str(), "created_at": str(), "updated_at": str(), "message": str(), "log_type": str(),
				})),
			})),
			"vdiff": func() *apischema.Schema {
				v := obj(map[string]*apischema.Schema{
					"id": str(), "state": {Type: "string", Enum: []string{"pending", "started", "stopped", "error", "completed"}},
					"created_at": str(), "updated_at": str(), "started_at": nullStr(), "completed_at": nullStr(),
					"has_mismatch": {Type: "boolean"}, "progress_percentage": integer(), "eta_seconds": integer(),
					"table_reports": arr(obj(map[string]*apischema.Schema{
						"id": str(), "table_name": str(), "shard": str(), "created_at": str(), "updated_at": str(),
						"mismatched_rows_count": integer(), "extra_source_rows_count": integer(), "extra_target_rows_count": integer(),
						"mismatched_rows": rows, "extra_source_rows": rows, "extra_target_rows": rows,
						"sample_mismatched_rows_query": str(), "sample_extra_source_rows_query": str(), "sample_extra_target_rows_query": str(),
					})),
				})
				v.Nullable = true
				return v
			}(),
		},
	}
}

// addProjectProperties adds to out, the converted definition name, the
// properties projectProperties gives it, required; one the reference has
// now is an error, so that the project's shape does not hide the
// reference's.
func addProjectProperties(name string, out *apischema.Schema) error {
	props := projectProperties()[name]
	for _, prop := range slices.Sorted(maps.Keys(props)) {
		s := props[prop]
		if out.Properties[prop] != nil {
			return fmt.Errorf("definition %s has %s now: remove it from projectProperties", name, prop)
		}
		if out.Properties == nil {
			out.Properties = map[string]*apischema.Schema{}
		}
		out.Properties[prop] = s
		out.Required = append(out.Required, prop)
	}
	return nil
}

// mustConvert resolves a definition of the reference, which must exist.
func mustConvert(defs map[string]*refSchema, name string) *apischema.Schema {
	s, err := convert(&refSchema{Ref: "#/definitions/" + name}, defs, nil)
	if err != nil {
		log.Fatalf("definition %s: %v", name, err)
	}
	return s
}
