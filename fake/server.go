// Package fake is an in-memory implementation of the Database Platform API
// for tests: a stateful HTTP server with the API's operations, permissions,
// pagination, errors and state machines, driven by a clock the test controls.
//
// A test starts one server per test; it is cheap, and closed when the test
// ends:
//
//	srv := fake.NewServer(t)
//	client := srv.Client() // a *platform.Client with an all-powerful token
//	db, err := client.Databases.Create(ctx, &platform.CreateDatabaseParams{
//		Organization: srv.Org(), Name: "app-db", ClusterSize: "PS_10",
//	})
//	srv.Advance(5 * time.Second) // the database becomes ready
//
// The clock is virtual: nothing happens until [Server.Advance] moves it,
// and the waits of srv.Client() (waiters, retry backoff) advance it instead
// of sleeping. [WithRealTime] follows the wall clock instead, as the
// standalone binary does.
//
// [Server.Snapshot] saves the whole state as versioned JSON, which
// [Server.Restore] loads into this server or another, and [Server.Reset]
// returns a server to its start. A snapshot holds every resource (and the
// deleted ones others still name), the clock, the transitions waiting on
// it, the ID generator, the credentials (hashes of secrets, and the admin
// token), pending [Server.FailNext] instructions and the OAuth consent
// page's session, so that a restored server behaves exactly as the one
// snapshotted. It leaves out logs and test settings: the request log, the
// event stream, webhook deliveries already made or in flight (their
// scheduled retries are in), fault rules, the rate limiter's counts and the
// server's options. [Server.Restore] checks what it loads as the API
// checks what it is sent (names, kinds, states, bounds, references between
// records), and the clock and counters (a clock before the year 9000,
// counters at most 2^53); it refuses a snapshot over [MaxSnapshotSize] or
// one whose records would take over four times its size once decoded.
//
// # Logs
//
// The server keeps three logs for assertions, each bounded so that a long
// run holds a fixed amount of memory: the requests it answered
// ([Server.Requests]; the last 10,000 unless [WithRequestLogLimit] says
// otherwise), the events it emitted ([Server.Events]; the last 1,000,
// [WithEventLogLimit]) and the webhook delivery attempts it made
// ([Server.Deliveries]; the last 1,000, [WithDeliveryLogLimit]). An event
// or a delivery carries a whole resource, about 2 KB, a request about 150
// bytes. A log that is full drops its oldest entry; webhooks, their
// last_sent_* fields and their retries do not depend on the limits.
//
// # Scale
//
// A page of a list costs O(page size) whatever the list's length: pages
// are cut from ordered indexes. A service token that holds a permission on
// some databases only (not on the whole organization) lists them from its
// own grants, in O(its grants), not by checking every database. The
// exception is a search: list_databases' ?q= (and list_branches' filters)
// scan every record the caller sees, O(records) per request. 100,000
// databases, each with its production branch, hold under 200 MB of heap
// (see BENCHMARKS.md).
//
// A service token's object lists the accesses it holds on the
// organization only; its accesses on databases (a token that creates a
// database is granted the database permissions it does not already hold
// on the organization, as one grant) are listed a page at a time by
// list_service_token_accesses and list_service_token_grants.
//
// # Decisions
//
// Where the reference marks a field required but the service's own clients
// leave it out, the fake does as the service does:
//
//   - a database created without cluster_size gets the default size,
//     PS_10;
//   - a deploy request opened without into_branch goes into the database's
//     default branch;
//   - a role's deletion takes its successor in the query, as the reference
//     has it, or in the JSON body, where the service's clients send it
//     (both at once must name the same role);
//   - the catalogue holds PS_DEV, the development size its command-line
//     tool asks for by default for a new development branch: the smallest,
//     free, development branches only. A new branch (with or without a
//     backup) and a development branch's changes take it; creating a
//     database (its default branch is a production branch), a production
//     branch's keyspaces, keyspace resizes and change requests, and
//     read-only regions refuse it with a 422 naming the field, and a
//     branch running on it cannot be promoted (a 422 naming the size);
//   - a size written with a dash, as that tool writes sizes for branches
//     from backups, means the underscore size (PS-10 is PS_10) in every
//     size field (cluster_size, vtgate_size, bouncer_size); what is stored
//     and shown is the underscore form;
//   - prices are whole currency units, as the service's official client
//     reads them into integers (see Cluster sizes below);
//   - where the reference names no permission, operations.tsv does:
//     update_organization takes write_organization, the safe-migration
//     operations and every workflow action write_database, reading
//     workflows read_database, the deploy queue read_deploy_request. Apart
//     from the OAuth server, list_public_regions, list_organizations and
//     get_current_user, no operation is open to a credential without a
//     permission on its resource, and a refusal is the 404 of a missing
//     resource that changes nothing. The service-token operations take an
//     OAuth token whose user is an admin of the organization, whatever
//     scopes it was granted (organization:admin in the table), and no
//     other OAuth token.
//
// [WithStrictBodies] refuses an unknown body field for every method,
// DELETE included.
//
// # Where the API's description is silent
//
// Cluster sizes. One catalogue of SKUs serves both size lists and checks
// every cluster_size the API takes (database and keyspace creation, branch
// creation and restores, read-only regions): a size it lacks, or one not
// offered for the database's engine (Metal sizes are MySQL's, PS_40_ARM
// PostgreSQL's), is a 422 naming the field and the value. A new branch
// given a cluster_size without a backup runs its keyspaces at that size.
// The sizes carry prices only when the
// list is asked for rates, in the region given, else the database's (the
// database query parameter) or the organization's default region; regions
// in Europe cost 10% more and Singapore 25%, rounded to whole units. A
// branch's list holds the sizes of its engine and of its kind of branch
// (development sizes PS_DEV to PS_20; production PS_10 and up), priced in
// the branch's region.
//
// Cluster parameters and extensions are PostgreSQL's catalogue (the
// reference's namespaces are patroni, pgconf and pgbouncer); a MySQL
// branch lists none, its server options being its keyspaces'
// mysqld_options. A branch's values are the defaults until a configuration
// change sets them; the catalogue's bounds, options and types are what a
// change is checked against. Infrastructure derives from the branch: a
// MySQL branch runs two query routers (one on a development branch), and
// per shard of each keyspace a primary and the keyspace's replicas, plus
// each read-only region's replicas; a PostgreSQL branch runs a primary and
// its default keyspace's replicas, and each bouncer's servers. Pods run
// once the branch and their keyspace, region or bouncer are ready.
//
// Read-only regions are for production branches of MySQL databases. The
// PUT replaces a keyspace's list as a whole (an empty list removes them
// all; a missing one is a 422); a region must be known, not the branch's
// own, and given once; its cluster size defaults to the keyspace's and its
// replicas to 2 (1 to 20). The database's list is its default branch's: one
// entry per region any keyspace replicates to, added with the first, ready
// after Timings.ReadOnlyRegionReady, removed with the last. A branch with
// read-only regions cannot be demoted until they are removed.
//
// Resize and change requests. A resize request changes a MySQL branch's
// query routers (vtgate_size one of the catalogue's router sizes, VTG_5 to
// VTG_160; vtgate_count 1 to 16; with autoscaling, vtgate_max_count at
// least vtgate_count; a CPU target of 1 to 100); a PostgreSQL branch
// answers 422 and takes change requests. A change request changes a
// branch's cluster_size (checked against the catalogue and the branch's
// kind: a development branch takes PS_DEV to PS_20), and on PostgreSQL its
// total replicas (from 2 on a production branch, which includes two, to
// 10), storage (gp3 bounds: 3000 to 16000 IOPS, 125 to 1000 MiB/s, a
// maximum not below the minimum) and parameters (by namespace, checked
// against the parameter catalogue; a parameter under another namespace
// than its own is a 422). On a MySQL branch the cluster size applies to
// every keyspace, and replicas and storage are a 422 (they are set per
// keyspace). update_branch_cluster_config is a change request of the
// cluster size alone: the change lists show it, and its 204 has no body.
// Both kinds share one lifecycle and one slot per branch: queued for
// Timings.BranchChangeStart, resizing for Timings.BranchChangeRun, then
// completed, when its values become the branch's (cluster_name, the
// keyspaces' sizes and replicas, the vtgate fields, list_parameters'
// values, with who set them and when). While a request is queued, a
// request of the same kind changes it (the reference calls them upserts)
// and keeps its ID; while it is resizing, or queued of the other kind, a
// new one is a 422 naming it and its state, as is a change that would
// resize a keyspace with a keyspace resize in flight; a request that changes nothing
// is a 204 with no body. The branch's database shows resize_queued and
// resizing (config_change_queued and config_changing for parameters) for
// its default branch's request, the resized keyspaces resize_pending, then
// resizing and resize_in_progress. The DELETE of a branch's resizes
// cancels its queued or resizing request, whichever kind (the reference
// names it cancel_branch_change_request): nothing of it applies; with none
// in flight it is a 422 naming the state of the branch's latest request.
// The DELETE of a branch's changes (cancel_branch_changes, which the
// service's own command-line tool sends to cancel a PostgreSQL resize)
// cancels its change request while it is queued only: none queued, one
// already resizing (too late) or a resize request of the query routers is
// a 422 naming the request's state, and changes nothing. A
// new branch starts from the defaults, not from its parent's requests.
//
// Bouncers pool the connections of PostgreSQL branches (the reference's
// schemas are PostgreSQL's): on a MySQL branch every bouncer operation is a
// 422 naming the database's kind. A bouncer is created on a ready branch;
// its name is unique among the branch's bouncers; bouncer_size is a bouncer
// size (PGB_5, the default, PGB_10, PGB_20, PGB_40, PGB_80, PGB_160: a
// catalogue of its own, the cluster sizes being the database's); it runs
// replicas_per_cell servers (1, the default, to 10) and targets primary
// (the default), or replica or replica_az_affinity on a branch with
// replicas. The API shows no state for a bouncer: its servers are pods of
// component pgbouncer in the branch's infrastructure, pending until
// Timings.BouncerReady has passed. Its parameters are the catalogue's
// pgbouncer parameters. A resize request (the PATCH) takes any of size,
// servers, target and pgbouncer parameter values, checked as at creation
// and against the parameter catalogue, and must change something; it needs
// a ready bouncer with no other request in progress (a second one is a 422
// naming the first and its state, rather than the upsert the reference's
// summary suggests). It is pending for Timings.BouncerResizeStart, resizing
// for Timings.BouncerResize, then completed, when the bouncer takes its
// values; the request's parameters are the values that differ from the
// defaults, before and after. The DELETE cancels the request in progress,
// pending or resizing (a 422 naming the last request's state otherwise);
// FailNext on a request ends it canceled, on a new bouncer removes it.
// Deleting a bouncer cancels its request in progress; deleting a branch
// deletes its bouncers. The branch's list of resize requests keeps those of
// its deleted bouncers, whose deleted_at is set. A role read with a
// bouncer's name (get_role's bouncer) connects to the host
// <bouncer>.pgbouncer.<region host>; a name that is not one of the
// branch's bouncers is a 422.
//
// Keyspace resizes are for MySQL databases (a PostgreSQL database resizes
// its branch). The PUT is an upsert, as the reference names it: it queues
// a request, or updates the keyspace's queued one (same ID; the queue time
// counts from the first); while one is resizing, another is a 422 naming
// it. Fields left out keep the keyspace's values; a request that changes
// nothing is a 422; cluster_size is checked against the catalogue and
// extra_replicas bounds the keyspace's total replicas to 20 (creation
// checks the same). A request is queued for Timings.KeyspaceResizeQueued,
// then resizing while its shards roll out one after another
// (Timings.KeyspaceResizeShard each), then completed, when the keyspace
// takes its cluster_name, replicas and vector_pool_allocation; until then
// the keyspace shows resize_pending (queued), resizing (rolling out) and
// resize_in_progress (either). The DELETE cancels the request that has not
// completed, leaving the keyspace as it was; without one it is a 422
// naming the state of the latest request. The rollout status is idle,
// pending (queued) or in_progress; its shards pending, in_progress or
// completed, each showing its latest rollout's times (the keyspace's
// creation before any). The list's completed_at filter is FROM..TO in
// RFC 3339, either end optional; a resize request shows a vector pool
// allocation that was never set as 0.
//
// Switchovers and maintenance runs are for PostgreSQL databases (a MySQL
// one is a 422 naming its kind). A PostgreSQL branch runs instances
// numbered from 0 (its default keyspace's replicas plus one), the first
// its primary. A switchover is pending, runs after
// Timings.SwitchoverStart by method switchover (restart when the branch
// has no replicas, which then takes no candidate), and succeeds
// Timings.SwitchoverRun later: the candidate (the named replica, else the
// instance after the primary) becomes the primary, as the infrastructure
// shows, and branch.primary_promoted is emitted with the branch. A failed
// switchover (FailNext) leaves the primary where it was. A branch takes
// one switchover or maintenance at a time: another is a 422 naming the one
// in progress and its state, as is a branch not ready yet. Deleting a
// branch ends what runs on it.
//
// Every database has one maintenance schedule, derived from it: weekly,
// two hours long, on the day of the week and at the hour (UTC) that an
// FNV hash of the database's ID picks, so the same seed gives the same
// slots; its ID is a hash of the database's too. The fake runs no
// maintenance by itself: the schedule's windows are the runs asked for
// with run_branch_maintenance, one at a time per database (another is a
// 422 naming the window running), each emitting branch.start_maintenance
// and finishing after Timings.Maintenance (the reference has no event for
// the end). last_window_datetime is the later of the latest run's start
// and the latest slot passed. update_postgres_minor_version is accepted;
// the fake's branches have no minor version for it to change.
//
// Branch passwords (MySQL databases only: on a PostgreSQL database every
// password operation answers 422 naming its kind, whose branches have
// role credentials instead):
//
//   - role defaults to admin, or to reader for a replica password, which
//     must be a reader (any other role: 422). A name, unique among the
//     branch's passwords, defaults to "password-" and the password's ID.
//   - plain_text is in the creation's response only; a password's plain
//     text is not kept. last_used_at stays null: the fake has no
//     connections.
//   - ttl is in seconds (absent or 0: no expiry). Expiry is read from the
//     clock, so no timer runs: from expires_at on, expired is true,
//     renewable false and renew a 422 naming the expiry; a password without
//     a ttl is not renewable either. Expired passwords stay listed (filter
//     with status active, renewable or expired) until deleted. Renew moves
//     expires_at to now plus the ttl.
//   - cidrs are IP addresses or CIDR ranges parsed with net/netip and shown
//     in canonical form; a range with host bits set, a repeat or a
//     malformed entry is a 422 naming it. No cidrs: any address connects;
//     an update's cidrs replace the list, and [] clears it.
//   - Hosts: access_host_url and mysql_edge_address are the provider's
//     edge ("aws.connect.dbplatform.dev"), access_host_regional_url the
//     branch's region's; a replica password's carry a "replica." prefix;
//     direct_vtgate passwords list one VTGate host per availability zone
//     (three). A replica password's access_host_regional_urls are the
//     hosts of the branch's read-only regions (empty for the others), and
//     read_only_region_id, the ID of one of them (else a 422), keeps the
//     replica passwords.
//   - Changes take the permission of their kind of branch and password,
//     not just any permission of the operation's row: connect_branch
//     (delete_branch_password) on a development branch,
//     connect_production_branch (delete_production_branch_password) on a
//     production one, where connect_production_read_only_branch
//     (delete_production_read_only_branch_password) also covers reader
//     passwords. OAuth likewise: manage_passwords (or, for a reader,
//     manage_read_only_passwords) on development branches, the
//     manage_production_* scopes, which are granted on organizations and
//     databases, on production ones. A token without it gets the 404 of a
//     missing permission. Reads take any permission of their row.
//   - A deleted password is gone (404); removing a member with
//     delete_passwords deletes the passwords they created.
//
// IP restrictions (PostgreSQL databases only; a MySQL database answers 422
// naming its kind):
//
//   - cidrs are IPv4 addresses or ranges (at least one), parsed with
//     net/netip and shown in canonical form; an IPv6, malformed or
//     host-bits-set entry, a repeat within the list, or a range that
//     another entry already allows for the same schema and role is a 422
//     naming it.
//   - schema and role ("" for all) are names of at most 63 characters, not
//     checked against the branches' schemas or roles, since an entry
//     applies to every branch; description is at most 255 characters, and
//     an update's "" clears it (null).
//   - A deleted entry is gone (404).
//
// Schema recommendations are per database, computed from its default
// branch's schema, and recomputed whenever that schema changes (PushSchema,
// dropping a keyspace, a deployment's cutover or its revert); other
// branches' schemas are not advised on. The fake checks three rules on each
// table's CREATE TABLE: no primary key (new_index: add an auto-increment id
// column as the primary key, or make an existing id column the key); an
// index with the same columns as another (duplicate_index: drop it,
// keeping the primary key, then a unique index, then the first); a
// non-unique index whose columns begin another's (duplicate_index: drop
// it). Full-text and spatial indexes, foreign keys and prefix lengths that
// differ are not compared. Recommendations are numbered per database in
// the order they appear (one branch.schema_recommendation event each,
// with the recommendation as its resource) and listed in number order;
// the state filter takes open or closed (applied, dismissed or stale), a
// 400 otherwise. When advice no longer holds, its open recommendation is
// applied (applied_at set; closed_by_deploy_request names the deploy
// request when a deployment took it) or, if its table has gone, stale.
// Advice that holds again later is a new recommendation, unless the
// earlier one was dismissed: dismissed advice is not given again. Dismiss
// takes an open recommendation (else a 422 naming its state) and a reason
// of at most 500 characters. open_schema_recommendations_count counts the
// open ones.
//
// Throttler ratios (0 to 95, a 422 naming the field otherwise) are per
// keyspace: a database's are for its default branch's keyspaces, a
// deploy request's for those of the branch it deploys into; a keyspace
// not eligible or named twice in configurations is a 422 naming its
// index. An update's ratio sets every eligible keyspace, then its
// configurations set the ones they name; an empty update changes nothing.
// A deploy request's ratio for a keyspace is its own where set, else its
// database's, else 0, and its deployment's throttler_configurations holds
// {"keyspaces", "configurations"} likewise. A deploy request may change
// its ratios until it closes (then a 422); closing keeps the ratios it
// had. The configurable of a deploy request is named after its branch.
//
// Storage checks count table sizes as set with [Server.SetTableSize], else
// 16 KiB (an empty table); a keyspace's data spreads evenly over its
// shards. A deployment needs, per shard, room to copy each table it alters
// there; creating or dropping a table needs none. The report holds the
// keyspaces of the branch deployed into that the deployment changes
// (before its check, the branches' difference). A shard's capacity is its
// cluster size's storage on Metal sizes; other sizes grow their storage
// with the data, in steps of 10 GiB, and always have room. upgradeable is
// false only when a reported keyspace is on the Metal size with the most
// storage.
//
// Workflows move tables between two keyspaces of a branch of a MySQL
// database (a PostgreSQL one is a 422 naming its kind). create_workflow
// takes an optional branch, the database's default branch when absent
// (the reference's body names none). The source, target and global
// keyspaces must be ready keyspaces of that branch, the source and target
// different; tables must be at least one, each named once, each in the
// source keyspace and not in the target, and in no other active workflow
// of the branch, whose name must differ too: each refusal is a 422 naming
// what is missing or taken. Workflows are numbered per database from 1,
// listed oldest first, between keeping those active (created, and not yet
// completed or cancelled) at some time within FROM..TO. The branch schema
// does not change until complete, which moves each table's definition
// from the source keyspace to the target (a table dropped from the source
// or created in the target meanwhile is a 422 naming it, and the workflow
// stays in cutover). The state table, where an action in a state it does
// not list is a 422 naming the state and the states that allow it, and
// "then" is where the clock takes the workflow on:
//
//	state                action            result, then
//	pending              cancel            cancelling, cancelled
//	pending              (clock)           copying after Timings.WorkflowStart
//	copying              cancel            cancelling, cancelled
//	copying              (clock)           running after Timings.WorkflowCopy
//	running              verify-data       verifying_data, verified_data after Timings.WorkflowVerify
//	running              switch-replicas   switching_replicas, switched_replicas
//	running              cancel            cancelling, cancelled
//	verified_data        same as running
//	reversed_cutover     same as running
//	switched_replicas    switch-primaries  switching_primaries, switched_primaries
//	switched_replicas    reverse-traffic   reversing_traffic, running
//	switched_replicas    cancel            reversing_traffic_for_cancel, cancelling, cancelled
//	switched_primaries   cutover           cutting_over, cutover
//	switched_primaries   reverse-traffic   reversing_traffic, switched_replicas
//	switched_primaries   cancel            reversing_traffic_for_cancel, cancelling, cancelled
//	cutover              complete          completed at once; the tables move
//	cutover              reverse-cutover   reversed_cutover at once; no traffic switched
//	error                retry             the state whose step failed, which runs again
//	error                cancel            cancelling, cancelled
//	verifying_data, switching_*, reversing_traffic*, cutting_over, cancelling,
//	completed, cancelled: no action
//
// Every step on the clock but the start, the copy and the verification
// takes Timings.WorkflowSwitch. FailNext on a workflow (until it has
// completed or been cancelled) makes its next clock step end in error,
// with workflow_errors naming the step and may_retry true; retry sets
// retried_at and runs that step again, and verified_data_stale is true
// once a workflow has been retried after its latest verification. Each
// action records its actor (*_by) and time (*_at) as the reference names
// them; the actors of actions not taken, and global_keyspace when none
// was named, are null. sequence_tables_applied is true once a workflow
// with a global keyspace has copied. Deleting a keyspace an active
// workflow uses is a 422 naming the workflow and its state; deleting a
// branch cancels its active workflows at once. The fake never stops a
// workflow (stopped, may_restart) and emits no webhook events for
// workflows, as the reference names none.
//
// Schema diffs, VSchemas and routing rules:
//
//   - A branch's diff is its schema against its parent branch's, as a
//     deploy request from it would change the parent now; each table that
//     differs shows its definitions as a line diff ("+" added, "-" removed,
//     " " kept), by keyspace and name. A branch without a parent (or whose
//     parent was deleted) answers 422 naming it. A deploy request's diff is
//     its deployment's operations once its check has listed them (they stay
//     its diff after the deployment), and before that the comparison of its
//     branches as they are.
//   - refresh-schema moves the ready branch's schema_last_updated_at (the
//     fake's schema is always current); a pending branch answers 422.
//   - VSchemas (per keyspace) and routing rules (per branch) are MySQL's (a
//     PostgreSQL database answers 422). Each is a JSON document, shown
//     indented as last set; until then a keyspace's default VSchema lists
//     its tables, and in a sharded keyspace (more than one shard) gives
//     each a hash vindex on its first primary key column; routing rules
//     default to {"rules": []}. A new branch starts with its parent's.
//   - An update must be a JSON object. A VSchema's sharded, when given,
//     must match the keyspace; vindexes need a type; column_vindexes must
//     name defined vindexes and a column (or columns); in a sharded
//     keyspace every table but a reference or sequence table needs one.
//     Routing rules hold rules only, each a from_table and a non-empty
//     to_tables. A refusal is a 422 naming the field, the table or the
//     rule, and changes nothing; so is an update of a branch not ready.
//   - Updates take the permission of their kind of branch:
//     write_branch_vschema on a development branch,
//     write_production_branch_vschema on a production one (a token without
//     it gets the 404 of a missing permission).
//
// Query traffic (traffic.go): the fake runs no SQL, so what a branch ran is
// what [Server.RecordQueries] records, and every view of traffic is
// computed from those samples alone. A query is its keyspace and
// fingerprint: the first 16 hexadecimal digits of the SHA-256 of its
// normalised text (literals and IN lists as ?, comments dropped, keywords
// upper case, spacing canonical; [QueryFingerprint]); an error's
// fingerprint is that of its message with literals normalised likewise.
// Percentiles are by the nearest rank. A sample's tags are the ones it is
// recorded with, plus the system tag query_fingerprint, which no recording
// may set.
//
// Query insights (insights.go, anomalies.go) are computed from those
// samples when asked. The window is from/to, or period back from now, or
// else the last 24 hours; lists sort by total time (errors by last run),
// descending, ties by keyspace and fingerprint; figures the fake does not
// measure (CPU, IO, bytes, blocks, traffic control) are 0. Anomalies follow
// one rule: a minute whose p99 latency is over 3 times the median p99 of
// the 60 minutes before it (10 of them with queries at least) is in
// violation, and consecutive such minutes are one anomaly, whose
// correlations are the queries whose mean latency follows the branch's
// p99 with r >= 0.5. The traffic budgets of a query are those with a rule
// for its fingerprint or for a tag its executions carry.
//
// The audit log (list_audit_logs) is recorded once, by the request
// pipeline, not by handlers: every request through the API that changes
// the world and succeeds, whoever sends it (a service token, or a user
// through an OAuth token), is an entry of its organization's log; a
// refused request, a read, a change that answered 204 because it changed
// nothing, the OAuth server's endpoints and control calls (/_fake/, Go
// seeding) leave none. An entry's audit_action is "<resource>.<action>",
// derived from the operation (see auditShapeOf in auditlogs.go):
// create_database is "database.created", queue_deploy_request
// "deploy_request.queued", update_auto_apply on a deploy request
// "deploy_request.updated_auto_apply", with the live service's names where
// the official client lists them ("service_token.granted_access",
// "organization.removed_member", "organization.updated_role"); action is
// the part after the dot. The auditable is where the change was made: the
// path's database, or the organization; the target is the record changed
// (the one created, or the one the path names, by its ID), of the kinds
// the reference names ("DatabaseBranch", "DatabaseBranchPassword",
// "DeployRequest", ...). metadata holds the path's values but the
// organization (null when none); remote_ip is the request's peer address;
// location is null, as the fake locates no address. The log is newest
// first, paged by cursor as the reference defines (starting_after,
// ending_before, an entry's ID; limit 1 to 100, 25 by default; both
// cursors together are a 400) and filtered as the official client does,
// by filters[]=audit_action:ACTION, repeatable (any of them). A cursor
// places its page by the entries' order, so the ID of an entry the log has
// dropped still works. Each organization keeps its last 10,000 entries
// (WithAuditLogLimit), compact records (about 270 bytes each) rendered
// on read. The audit log is part of a snapshot, unlike the request log:
// the API serves it.
//
// Metrics (metrics.go) are computed from the queries recorded on the
// branch (traffic.go), so that they agree with insights and reports:
//
//   - A time series covers period (12h by default) ending now, or from to
//     to (to defaults to now), cut into steps buckets (60 by default, 1 to
//     1000) of whole seconds from the window's start; interval is a
//     bucket's length. Counts and totals of an empty bucket are 0, its
//     latencies (nearest-rank percentiles, in milliseconds) and ratios
//     null. A series is an object (metric, labels, points of time and
//     value), as is an instant value (metric, labels, value, time), where
//     the reference types both as strings.
//   - metrics repeats (or joins with commas) the reference's names; any
//     other is a 400 naming it, as is a bad period, from, to, steps,
//     tablet_type, tag_sets, budget_id or rule_id. Every metric the
//     queries give when none is named. The reference's names carrying the
//     service's vendor prefix are written svc_. Metrics with no source in
//     the fake (CPU, memory, I/O, pools, the servers' storage) are series
//     of nulls, or no instant values: the instant branch metrics are all
//     such.
//   - Groups: per query pattern (labels keyspace and fingerprint; query_ids
//     are fingerprints), per tag set ("key:value" pairs joined by commas;
//     label tag_set and each key), per tablet (keyspace, shard,
//     tablet_type, pod). A group the request names has its series even
//     without queries; unnamed, every group with queries in the window
//     does. q keeps the queries whose normalized text has every word, role
//     those tagged with that username, budget_id and rule_id those a
//     traffic budget's rules (any) or one rule match.
//   - A tablet is a database server of the branch's infrastructure: per
//     shard of each keyspace, a primary and the keyspace's replicas (a
//     PostgreSQL branch: its instances). A query runs on the shard a hash
//     of its sample's ID picks (on ShardQueries consecutive shards for a
//     scatter query), on the primary, or for a replica or rdonly query on
//     one of the replicas; primary_ metrics are of primaries, and
//     replication_lag, always 0, of replicas.
//   - A table's storage is the rows INSERT queries added less those DELETE
//     queries removed (failed ones not counted), at 100 bytes of data and
//     20 of index a row; every table of the schema is listed.
//
// Query-pattern reports (querypatterns.go) are generated
// Timings.QueryPatternsReport after they are asked for, from the queries
// recorded until then, most run first; a report keeps its patterns once
// completed. FailNext fails the generation. The list is paged by cursor,
// newest first (starting_after or ending_before, limit 1 to 100, 25 by
// default; an unknown cursor is a 400). A pending or failed report's
// download is a 422. A completed one's answers 302, with the report as the
// body, to a signed address the fake serves itself outside /v1, below its
// own base URL: /_files/query-patterns/{organization}/{database}/{branch}/{id}
// ?expires=UNIX&signature=HEX, the signature an HMAC-SHA256 of the path and
// expiry under a key each server draws at random. It needs no credentials;
// a changed path, expiry or signature is a 403, an expiry past on the
// fake's clock (Timings.QueryPatternsURL after the redirect) a 410, a
// deleted report a 404. The file is JSON: generated_at and patterns (per
// keyspace and fingerprint: normalized_sql, tables, count, error_count,
// rows read, returned and affected, total, p50, p99 and max latency in
// milliseconds, first and last seen). Addresses signed before a Restore
// are refused as changed.
//
// The OAuth server (oauth.go, oauthdevice.go, oauthpage.go):
//
//   - A scope name without a resource, as the service's command-line tool
//     asks for at sign-in (read_databases write_databases read_user
//     read_organization), is the scope on the organization, or on the user
//     when only the user has it (read_user); at the device flow and the
//     authorization page alike, every requested scope must be one of the
//     application's (else invalid_scope), and the user is asked for the
//     application's scopes. Applications are configured with qualified
//     names.
//   - Revocation (POST /oauth/revoke, RFC 7009) authenticates the client
//     as the device flow does (client_id; client_secret checked when sent,
//     or HTTP Basic), answers 200 with no body also for an unknown token,
//     refuses a token of another client (400 unauthorized_client), and
//     ends the whole sign-in: its access and refresh tokens both, whichever
//     is revoked.
//   - An application may be created with a client ID and secret of the
//     caller's choosing (printable ASCII, no spaces, 1 to 200 characters);
//     another application's client ID is refused.
//   - Auto-approval approves a device sign-in as it starts, as the
//     signed-in user with the auto-approval consent; if that consent
//     cannot be granted the sign-in waits, and the verification page says
//     why. [Server.ApproveDevice] and [Server.DenyDevice] decide a device
//     sign-in as the signed-in user (the admin user unless SignIn named
//     another), with the auto-approval consent if set, else the user's
//     default organization.
//   - The consent forms are bound to the browser that opened their page:
//     an HttpOnly SameSite=Lax cookie for /oauth holds a random session,
//     and the form's csrf_token is an HMAC of it and the signed-in user
//     under the server's random key; a POST without it, or from another
//     site (Origin, Sec-Fetch-Site), is a 403 page, checked before
//     anything else. Wrong user codes at the verification page are
//     throttled per client IP on the fake's clock (the 5th within a
//     minute: 429 slow_down; then every code until the minute ends: 429),
//     a count not kept in snapshots. The pages send X-Frame-Options DENY
//     and frame-ancestors 'none', and are rendered under the server's lock
//     and written to the client after it is released.
//
// Billing (invoices and the payment method):
//
//   - Usage is metered per keyspace: the span of time it runs at one
//     cluster size, from its creation (branch and database creation,
//     create_keyspace, deploys and restores that add one) until a resize
//     completes (a branch change request or a keyspace resize request) or
//     it is deleted with its branch or database. Pending time counts.
//   - Each organization is invoiced at every month boundary of the clock
//     (UTC), for the calendar month that ended; the month under way is not
//     an invoice yet, and a month in which nothing ran gets none. One line
//     item per branch and cluster size: its keyspaces' time summed and
//     rounded up to whole hours, at the size's monthly rate in the
//     branch's region (list_cluster_size_skus's rate, so regions cost what
//     that list shows) divided by 730 hours. Amounts are integer cents,
//     each item rounded half up, and the total is the sum of the items
//     exactly: subtotal is cents/100, total a two-decimal string.
//     metric_name is the size, the marketplace-billing flag false, and
//     resource the branch (deleted_at set when it was deleted within the
//     period). Line items list by database name, branch name, size.
//   - Invoices list oldest first. One is paid when issued if a card is on
//     file, else unpaid, and overdue from Timings.InvoiceDue (30 days)
//     after its period's end; [Server.SetPaymentMethod] (the API cannot
//     add a card) pays the unpaid ones. The payment method is a 404 when
//     none is on file, and delete_organization_billing_payment_method
//     likewise; deleting leaves issued invoices as they are.
package fake

import (
	"context"
	cryptorand "crypto/rand"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"path"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dbplatform/platform-go"
	vclock "github.com/dbplatform/platform-go/fake/internal/clock"
	"github.com/dbplatform/platform-go/internal/pollhook"
)

// Server is a running fake. Its methods are safe for concurrent use.
type Server struct {
	mu     sync.RWMutex
	world  *world
	mux    *http.ServeMux // shared by every server; see sharedMux
	strict bool
	cfg    config // the options it started with, for Reset

	onChange func() // see WithOnChange; nil for none

	httpSrv *httptest.Server
	conns   idleConns    // httpSrv's connections, reset when idle at Close
	client  *http.Client // of the fake's clients: httpSrv's, with pollAhead
	reqSeq  atomic.Uint64
	clients atomic.Uint64 // clients made, each with its own jitter source
	reqID   string        // per-server prefix of request IDs

	faults   faultRules
	limiter  rateLimiter // see ratelimit.go
	requests requestLog
	events   ring[*eventRec] // the event log; see events.go
	hooks    deliveries      // webhook deliveries; see deliveries.go
	session  oauthSession    // the OAuth server's signed-in user; see oauth.go
	page     statePage       // the state page's sign-ins; see statepage.go
	// codeTries are the wrong user codes per client address at the device
	// flow's verification page, like the rate limit not in snapshots; see
	// oauthdevice.go.
	codeTries map[string]*codeTries

	ctlFaults controlFaultSet // fault rules installed over HTTP; see control_faults.go
	fileKey   [32]byte        // signs download addresses; see querypatterns.go

	// The organization, admin user and token every server starts with.
	org        *orgRec
	admin      *userRec
	adminToken Token
}

// NewServer starts a fake for tb and closes it when tb's test ends. A
// configuration error fails the test. When the test has failed by then,
// the server logs its last requests (up to 20, with status and reason:
// see [Request.Reason]) through tb.Log, unless [WithoutFailureLog].
func NewServer(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	s, err := New(opts...)
	if err != nil {
		tb.Fatalf("fake.NewServer: %v", err)
	}
	tb.Cleanup(func() {
		if tb.Failed() && !s.cfg.noFailureLog {
			tb.Log(s.failureLog(failureLogLength))
		}
		s.Close()
	})
	return s
}

// New starts a fake on a loopback port; the caller must Close it. Use it
// outside tests; in tests, [NewServer] closes it for you.
func New(opts ...Option) (*Server, error) {
	cfg := defaultConfig()
	for _, opt := range opts {
		if opt == nil {
			continue
		}
		if err := opt(&cfg); err != nil {
			return nil, err
		}
	}
	s := &Server{strict: cfg.strict, cfg: cfg}
	s.adopt(newWorld(cfg.seed), vclock.New(cfg.realTime, cfg.start, func(j job) { j.run(s.world) }, s.wake))
	s.onChange = cfg.onChange
	s.hooks.init(cfg.webhookTimeout)
	s.requests.list.limit = cfg.requestLogLimit
	s.events.limit = cfg.eventLogLimit
	s.world.audit.limit = cfg.auditLogLimit
	s.hooks.log.limit = cfg.deliveryLogLimit
	s.limiter.limit = cfg.rateLimit
	s.faults.rng = newFaultRand(cfg.seed)
	s.reqID = s.world.newID()[:6]
	_, _ = cryptorand.Read(s.fileKey[:]) // never fails (crypto/rand)
	mux, err := sharedMux()
	if err != nil {
		return nil, err
	}
	s.mux = mux
	if err := s.seedDefaults(cfg); err != nil {
		return nil, err
	}
	s.httpSrv = httptest.NewUnstartedServer(s)
	s.httpSrv.Config.ConnState = s.conns.track
	cfg.timeouts.set(s.httpSrv.Config)
	if cfg.addr != "" {
		l, err := net.Listen("tcp", cfg.addr)
		if err != nil {
			return nil, fmt.Errorf("fake: listening on %s: %w", cfg.addr, err)
		}
		s.httpSrv.Listener.Close()
		s.httpSrv.Listener = l
	}
	s.httpSrv.Start()
	s.world.base = s.URL()
	s.client = &http.Client{Transport: pollAhead{s: s, base: s.httpSrv.Client().Transport}}
	return s, nil
}

// adopt makes w the server's world, running on clk: it gets the server's
// timings and base URL, and the server as its host.
func (s *Server) adopt(w *world, clk *clock) {
	w.clock, w.timing, w.host = clk, s.cfg.timing, s
	if s.httpSrv != nil {
		w.base = s.URL()
	}
	s.world = w
}

// Close stops the server, its timers and its webhook deliveries: nothing
// runs on the clock afterwards, and Advance does nothing.
func (s *Server) Close() {
	s.conns.resetOnClose()
	s.httpSrv.Close()
	s.mu.Lock()
	s.world.clock.Stop()
	s.mu.Unlock()
	s.stopDeliveries()
}

// URL returns the base URL of the API ("http://127.0.0.1:PORT/"); operation
// paths (/v1/...) are below it.
func (s *Server) URL() string { return s.httpSrv.URL + "/" }

// Org returns the name of the organization every server starts with.
func (s *Server) Org() string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.org.name
}

// AdminUserID returns the ID of the user who is the starting organization's
// admin and the creator of the admin token.
func (s *Server) AdminUserID() string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.admin.id
}

// AdminToken returns the service token, holding every permission on the
// starting organization, that [Server.Client] uses: its ID and secret, for
// curl or a client in another language.
func (s *Server) AdminToken() Token {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.adminToken
}

// Client returns a client of this server authenticated with the admin token.
// Its waits (waiters and retry backoff) advance the virtual clock instead of
// sleeping. Before a waiter's poll it moves the virtual clock through the
// scheduled transitions until the poll would see what the waiter waits
// for, so the waiter polls once; otherwise waiters poll right after each
// scheduled transition (with [WithRealTime], as soon as it has run on the
// wall clock). When nothing scheduled can bring the resource to the
// waiter's state (a deployment waits to be applied), the waiter returns a
// [*platform.UnreachableError] at once, naming what would move it.
func (s *Server) Client() *platform.Client { return s.ClientFor(s.AdminToken()) }

// ClientFor returns a client of this server authenticated with tok, with the
// same clock behaviour as [Server.Client].
func (s *Server) ClientFor(tok Token) *platform.Client {
	c, err := platform.NewClient(s.ClientOptions(tok)...)
	if err != nil {
		// The options are the fake's own and valid for any token it issued;
		// a zero Token gets a client whose requests are unauthorized.
		c, _ = platform.NewClient(platform.WithBaseURL(s.URL()), platform.WithHTTPClient(s.httpSrv.Client()))
	}
	return c
}

// ClientOptions returns the options that point a client at this server with
// tok, for callers that add options of their own. The jitter of each
// client's retry backoff is drawn from the server's seed ([WithSeed]), so
// that retried faults move the virtual clock the same on every run (given
// the same clients made in the same order):
//
//	client, err := platform.NewClient(append(srv.ClientOptions(tok), platform.WithLogger(l))...)
func (s *Server) ClientOptions(tok Token) []platform.Option {
	return []platform.Option{
		platform.WithBaseURL(s.URL()),
		platform.WithServiceToken(tok.ID, tok.Secret),
		platform.WithHTTPClient(s.client),
		platform.WithSleep(s.sleep),
		// Retry backoff's jitter from the server's seed: a run with
		// retried faults moves the virtual clock the same every time.
		platform.WithJitterSource(rand.NewPCG(s.cfg.seed, s.clients.Add(1))),
	}
}

// Now returns the server's current time.
func (s *Server) Now() time.Time {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.world.clock.Now()
}

// Advance moves the virtual clock forward by d, running every transition
// that falls due on the way, in time order. With [WithRealTime] it runs
// what is due now and does not move time.
//
// One Advance runs at most [MaxAdvanceTransitions] transitions. When more
// fall due within d, it stops after that many, with the clock at the time
// of the last one run, short of d: [Server.Now] says how far it got, and
// another Advance goes on from there. Only a very long d on a busy server
// gets there (one database's backups and invoices make about 1,100
// transitions a year).
func (s *Server) Advance(d time.Duration) {
	s.advance(d)
}

// advance is Advance, reporting how many transitions ran and whether the
// clock reached its end.
func (s *Server) advance(d time.Duration) (ran int, complete bool) {
	return s.runClock(func() time.Time {
		if s.world.clock.Real() {
			return s.world.clock.Now()
		}
		return s.world.clock.Now().Add(max(d, 0))
	})
}

// runClock runs the work due by until, which it calls under the server's
// lock, and then, if the work ran or a virtual clock moved, the
// WithOnChange function. It returns how much work ran, and whether all
// that was due by until ran (false when it stopped at
// MaxAdvanceTransitions).
func (s *Server) runClock(until func() time.Time) (ran int, complete bool) {
	s.mu.Lock()
	from := s.world.clock.Now()
	to := until()
	ran = s.world.clock.RunDue(to, MaxAdvanceTransitions)
	complete = !s.world.clock.Due(to)
	moved := !s.world.clock.Real() && s.world.clock.Now().After(from)
	s.mu.Unlock()
	if ran > 0 || moved {
		s.changed()
	}
	return ran, complete
}

// Sleep waits for d by advancing the virtual clock, without waiting on the
// wall clock; it returns ctx.Err() at once if ctx has ended. It is the
// platform.SleepFunc of the fake's clients, and what to give other waiting
// code under test, such as the device flow's oauth.Config.DeviceAccessToken.
// A waiter's wait between polls (the SDK marks it) ends instead at the
// next scheduled transition, however near or far, so the waiter polls right
// after each change rather than stepping through time where nothing
// happens (or past a change); with nothing scheduled, it is d. On a
// real-time clock ([WithRealTime]) Sleep runs what is due and returns.
func (s *Server) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.runClock(func() time.Time {
		if s.world.clock.Real() {
			return s.world.clock.Now()
		}
		if next, ok := s.world.clock.Next(); ok && pollhook.IsWait(ctx) {
			return next // RunDue runs work already due, and never moves the clock back
		}
		return s.world.clock.Now().Add(max(d, 0))
	})
	return nil
}

// sleep is the platform.SleepFunc of the fake's clients: [Server.Sleep] on
// a virtual clock. On a real-time clock it waits on the wall clock: d for
// retry backoff, and for a waiter's poll until the next scheduled transition
// is due (at most d), then runs what is due, so the waiter polls right
// after it.
func (s *Server) sleep(ctx context.Context, d time.Duration) error {
	if !s.world.clock.Real() { // fixed when the server is made
		return s.Sleep(ctx, d)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if pollhook.IsWait(ctx) {
		s.mu.Lock()
		next, ok := s.world.clock.Next()
		s.mu.Unlock()
		if ok {
			d = min(d, time.Until(next))
		}
	}
	if d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
	s.wake() // what fell due has run before the next poll
	return nil
}

// wake runs due work in real-time mode.
func (s *Server) wake() { s.runClock(s.world.clock.Now) }

// ServeHTTP serves the API: it stamps a request ID, routes the request and
// records it in the request log.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := &recorder{ResponseWriter: w, srv: s, status: http.StatusOK, req: r}
	if !peeking(r) {
		rec.rid = requestID(s.reqID, s.reqSeq.Add(1))
		rec.log = &s.requests
		w.Header().Set("X-Request-Id", rec.rid)
	}
	switch {
	case r.RequestURI == "*":
		// ServeMux answers the target "*" with a bare 400, not the API's
		// JSON error.
		writeError(rec, badRequest("request target * is not a path"))
	case !cleanPath(r.URL.Path):
		// ServeMux would redirect an unclean path ("//", "..") to its clean
		// form with an HTML body; no API path is unclean.
		writeError(rec, notFound())
	default:
		s.mux.ServeHTTP(rec, r)
	}
	rec.record()
	if mayChange(r.Method) {
		s.changed()
	}
}

// requestID is a request's X-Request-Id: the server's prefix, then n in at
// least six digits.
func requestID(prefix string, n uint64) string {
	var a [32]byte
	b := append(a[:0], prefix...)
	for pow := uint64(100000); pow > 1 && n < pow; pow /= 10 {
		b = append(b, '0')
	}
	return string(strconv.AppendUint(b, n, 10))
}

// cleanPath reports whether p is already in its clean form.
func cleanPath(p string) bool {
	if p == "" || p[0] != '/' {
		return false
	}
	c := path.Clean(p)
	return c == p || c+"/" == p
}

// recorder notes the status written and the operation served, and logs the
// request as its response starts: a client that has the response finds the
// request in the log, even when the response is too large for the server to
// hold back until the handler returns.
type recorder struct {
	http.ResponseWriter
	srv    *Server // the server the request is to; see serving
	status int
	op     string

	log    *requestLog
	req    *http.Request
	rid    string
	reason string // of a refusal; see writeError
	logged bool
}

func (r *recorder) WriteHeader(status int) {
	r.status = status
	r.record()
	r.ResponseWriter.WriteHeader(status)
}

func (r *recorder) Write(b []byte) (int, error) {
	r.record()
	return r.ResponseWriter.Write(b)
}

// record adds the request to the log, once; a peek has no log.
func (r *recorder) record() {
	if r.logged || r.log == nil {
		return
	}
	r.logged = true
	r.log.add(Request{
		Method:    r.req.Method,
		Path:      r.req.URL.Path,
		Query:     r.req.URL.RawQuery,
		Status:    r.status,
		Operation: r.op,
		RequestID: r.rid,
		Reason:    r.reason,
	})
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
