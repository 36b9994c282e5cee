package fake_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// snapshotCoverage lists, by type, the fields of the records a snapshot
// holds (fake/*_snap.go saves and loads each, or rebuilds it from
// others, as an index from its records). TestSnapshotCoversEveryField
// fails on a field missing here, so that a new field or record type cannot
// be forgotten by the snapshot; TestSnapshotOperations checks that each is
// set somewhere in the operation table's worlds, and restored exactly.
var snapshotCoverage = map[string]string{
	"world":                  "rng pcg orgs orgIdx users tokens oauth inFlight audit failNext importSources",
	"Consent":                "Organizations Databases Branches",
	"Token":                  "ID Secret",
	"stamps":                 "id created updated",
	"Index":                  "items",
	"Store":                  "live byID",
	"Timer":                  "At Seq Job",
	"userRec":                "stamps name email defaultOrg",
	"orgRec":                 "stamps name billingEmail idpManagedRoles invoiceBudget defaultRegion members memberByUser dbs dbByName branchByName teams tokens billing auth",
	"memberRec":              "stamps user role",
	"regionRec":              "id slug provider displayName location ips",
	"teamStore":              "idx bySlug",
	"teamRec":                "stamps name slug description creator managed members memberByUser databases analystDatabases",
	"teamMemberRec":          "stamps user actor",
	"tokenRec":               "stamps name hash org creator orgPerms dbGrants grantIdx expiresAt lastUsed",
	"dbGrant":                "db perms",
	"branchKey":              "db name",
	"dbRec":                  "stamps org name region kind clusterSize nonHA state deleted requireApproval restrictBranchRegion allowDataBranching foreignKeys insightsRawQueries deletionProtected prodWebConsole notes automaticMigrations migrationFramework migrationTable defaultBranch branchIdx backups drs drByNumber lastDR deployQueue more workflows extra",
	"dbMore":                 "webhooks maintenance ipRestrictions dataImport importNotes",
	"importRec":              "stamps db state checkErrors started finished source plan maxPoolSize",
	"importSourceRec":        "host schema username port sslMode sslServerName",
	"importSourceKey":        "org host",
	"importStepJob":          "imp from",
	"ImportSource":           "Reachable ConnectError Password LintErrors NeedsUpgrade SuggestedPlan MaxPoolSize",
	"ImportNotification":     "At MigrationID Event BranchName Method ExportBytes TableCount Matched DurationMs Error ErrorCode Stage Message",
	"webhookStore":           "Store",
	"webhookRec":             "stamps db url secret enabled events deleted lastSent lastSentResult lastSentSuccess failures lastTest",
	"branchRec":              "stamps db name parent production ready safeMigrations deletionProtected deleted deletedAt actor region restoredFrom initialRestoreID schemaUpdated keyspaces roles more readOnlyRegions primary cluster traffic",
	"branchMore":             "passwords budgets bouncers switchovers qpReports routingRules sessions vitess deletedBy base majorVersion restorePoint",
	"vrWorkflow":             "name kind source target sourceShards targetShards tables created updated opts stopped copyDue copyLeft errMsg ranOn frozen doc",
	"branchVitess":           "shards ops ksRules throttlers metrics vdiff workflows",
	"vdiffState":             "list seq diffs",
	"vdiffTableKey":          "keyspace table",
	"VDiffDifferences":       "Mismatched ExtraSource ExtraTarget",
	"vdiffRec":               "stamps seq branch wf opts shards",
	"vdiffOptions":           "tables tabletTypes tabletSelectionPreference limit maxSampleRows maxExtraRowsToCompare truncateAt waitSeconds autoRetry autoStart debugQuery onlyPKs updateTableStats verbose",
	"vdiffShard":             "name state gen begun tables compared since started done lastErr",
	"vdiffTable":             "name rows diffs",
	"vrTable":                "name filter",
	"vrOptions":              "onDDL deferSecondaryKeys stopAfterCopy autoStart atomicCopy cells tabletTypes sourceTimeZone tenantID autoIncrement globalKeyspace",
	"ksRoutingRule":          "from to",
	"throttlerConfig":        "enabled threshold apps appMetrics",
	"throttledApp":           "name ratio expires",
	"tabletMetric":           "keyspace shard index metric",
	"shardKey":               "keyspace shard",
	"shardState":             "primary termStart controls reparent",
	"tabletControl":          "tabletType cells deniedTables disableQueryService",
	"vitessOpRec":            "stamps branch action state keyspace ksName shard target alias err completed workflow body actor result",
	"branchSessions":         "recs nextPID",
	"sessionRec":             "id pid instance keyspace shard user host app started query queryStart queryEnd xactStart aborted blockedBy changed recorded client",
	"readOnlyRegionRec":      "stamps region actor readyAt removed",
	"keyspaceReadOnlyRegion": "region branchRegion clusterSize replicas",
	"keyspaceRec":            "stamps branch name shards extraReplicas clusterSize ready isDefault deleted tables settings more meter",
	"keyspaceMore":           "vschema readOnlyRegions configChanging before configGen resizes resize lastResize",
	"keyspaceMeter":          "sku since",
	"keyspaceSettings":       "durability vreplication mysqld vttablet nodeTTL vectorPool",
	"branchRoles":            "live every def owners",
	"roleRec":                "stamps branch name baseUsername actor isDefault lease inherited withReplication whereOnDelete whereOnUpdate dropped droppedAt",
	"lease":                  "ttl expiresAt",
	"branchPasswords":        "Store",
	"passwordRec":            "stamps lease branch name role replica region directVTGate cidrs username actor",
	"ipRestrictions":         "Store",
	"ipRestrictionRec":       "stamps schema role cidrs description actor",
	"branchSwitchovers":      "Store running",
	"switchoverRec":          "stamps branch state method candidate err actor completed",
	"maintenanceStore":       "windows running",
	"branchBouncers":         "idx byName resizes",
	"bouncerRec":             "stamps branch name config actor ready deleted deletedAt active resizes",
	"bouncerConfig":          "size replicas target params",
	"bouncerSKU":             "name displayName cpu ram",
	"bouncerResizeRec":       "stamps bouncer state next prev started completed actor",
	"keyspaceResizeRec":      "stamps ks actor state started completed shardTime from to replicas prevReplicas",
	"keyspaceSize":           "clusterSize extraReplicas vectorPool",
	"branchCluster":          "vtgate storage params resizes changes pending resized",
	"vtgateConfig":           "size count maxCount autoscaling targetCPU",
	"storageConfig":          "min max autoscaling iops throughput",
	"paramValue":             "value updated actor",
	"branchChangeRec":        "stamps branch resize actor state started completed before after",
	"orgBilling":             "ended invoices payment",
	"usageSpan":              "branch size rate from to branchDeleted",
	"billedBranch":           "dbID dbName id name created updated",
	"invoiceRec":             "stamps start end paid total lines",
	"lineItemRec":            "id branch deleted size rate hours amount",
	"paymentMethodRec":       "id method",
	"PaymentMethod":          "Brand Last4 ExpMonth ExpYear Name",
	"clusterState":           "clusterSize replicas vtgate storage params",
	"windowRec":              "stamps branch started finished",
	"branchBudgets":          "Store",
	"trafficBudgetRec":       "stamps branch name mode limits actor rules",
	"trafficRuleRec":         "stamps trafficRuleSpec actor",
	"trafficRuleSpec":        "kind keyspace fingerprint tag",
	"trafficTag":             "key value",
	"branchQPReports":        "list byID gone seq",
	"qpReportRec":            "stamps seq branch state actor finished patterns deleted",
	"backupStore":            "byID byBranch policies",
	"branchBackups":          "live all inFlight",
	"backupRec":              "stamps branch name state production protected required policy actor retention started completed ended deleted expired deletedAt size snapshot restored",
	"retention":              "value unit",
	"schemaSnapshot":         "id taken keyspaces",
	"snapshotKeyspace":       "name shards extraReplicas isDefault tables",
	"policyRec":              "stamps db policySpec displayName required lastRan nextRun deleted gen",
	"policySpec":             "name target retention sched day week",
	"schedule":               "unit every hour minute day week",
	"drRec":                  "stamps db number head into notes creator creatorToken open closedAt closedBy deployedAt reviews dep throttle",
	"reviewRec":              "stamps actor token state body",
	"deployRec":              "id created updated state gen autoCutover autoDeleteBranch instant eligible vschema ops lint checkErrors before actor cutoverActor forceActor cancelledActor revertActor queued submitted started readyToCutover forceCutover cutoverAt finished",
	"opRec":                  "stamps keyspace table name ddl create prev state shards errors",
	"shardRec":               "id name",
	"tableState":             "keyspace table create",
	"oauthStore":             "apps byClient byOrg access refresh codes devices userCodes",
	"oauthDeviceRec":         "app userCode expires interval lastPoll grant user denied used",
	"oauthAppRec":            "stamps org name domain redirectURI avatar scopes clientID secretHash tokens",
	"oauthTokenRec":          "stamps app grant accessHash refreshHash expires lastUsed",
	"oauthGrant":             "user scopes orgs dbs branches",
	"oauthCodeRec":           "app grant redirectURI expires used issued",
	"oauthSession":           "user signedOut autoApprove",
	"dbExtra":                "recs throttle sizes",
	"tableRef":               "ks table",
	"recStore":               "list byNumber last open",
	"recRec":                 "stamps db number finding state applied dismissed closedBy dismissedBy reason",
	"finding":                "kind keyspace table subject title statement",
	"workflowStore":          "list byNumber last",
	"workflowTable":          "id total copied updated",
	"workflowStream":         "id targetShard sourceShard",
	"streamEvent":            "at kind state message",
	"workflowVDiff":          "id created begun start due ended state reports",
	"vdiffTableShard":        "shard vdiffTable",
	"workflowRec":            "stamps db number name branch source target global tables rows deferSecondaryKeys onDDL state failedFrom errors replicasSwitched primariesSwitched sequenceTablesApplied started copied verified switchedReplicas switchedPrimaries cutoverAt reversed retried completed cancelled actor verifyBy reversedBy switchReplicasBy switchPrimariesBy cancelledBy completedBy retriedBy cutoverBy reversedCutoverBy stepDue stepGen resume stepLeft vr streams streamLog vdiff",
	"branchTraffic":          "patterns samples byID",
	"patternKey":             "keyspace fingerprint",
	"queryPattern":           "keyspace fingerprint normalized statement tables samples",
	"querySample":            "id pattern at duration rowsRead rowsReturned rowsAffected shardQueries tablet tags err",
	"queryError":             "message code fingerprint",

	// The jobs of the clock, one type per kind of transition.
	"databaseReadyJob":       "db",
	"branchReadyJob":         "b",
	"keyspaceReadyJob":       "ks",
	"keyspaceConfigJob":      "ks gen",
	"backupJob":              "bk from",
	"backupExpiryJob":        "bk",
	"policyRunJob":           "p gen",
	"deployJob":              "dr gen step",
	"retryJob":               "d",
	"delivery":               "hook id event body attempt",
	"codeExpiryJob":          "hash",
	"readOnlyRegionReadyJob": "rr",
	"deviceExpiryJob":        "hash userCode",
	"switchoverJob":          "sw from",
	"vitessOpJob":            "op from",
	"vrCopyJob":              "b vw",
	"vdiffJob":               "d shard gen",
	"maintenanceEndJob":      "w",
	"bouncerReadyJob":        "bn",
	"bouncerResizeJob":       "r from",
	"keyspaceResizeJob":      "r from",
	"branchChangeJob":        "r from",
	"qpReportJob":            "r",
	"authExportJob":          "x from",
	"orgAuth":                "attempts exports deletedPasswords",
	"authExportRec":          "stamps org state startAt endAt format filters branchIDs started finished expires failure detail rows",
	"deletedPassword":        "branchID name at",
	"auditLog":               "seq limit byOrg",
	"ring":                   "buf next limit",
	"auditRec":               "seq at shape actor dbID dbName targetID targetName path remoteIP",
	"auditActor":             "kind id name",
	"auditShape":             "op action verb targetType param segments",
	"workflowJob":            "wf from gen",
	"invoiceJob":             "org",
}

// snapshotUnset are the fields of snapshotCoverage that no world of the
// operation table sets, with the reason.
var snapshotUnset = map[string]string{
	"keyspaceRec.deleted": "a dropped keyspace is no longer reachable: nothing refers to it, and a snapshot leaves it out",
	"webhookRec.deleted":  "a deleted webhook is no longer reachable (its retries do nothing and are left out), nor in a snapshot",
	// Rendered, but no operation sets them yet: the operation that does
	// must make a world set them.
	"dbRec.notes":               "no operation sets a database's notes yet",
	"qpReportRec.deleted":       "a deleted query-patterns report is no longer reachable (its transition does nothing and is left out), nor in a snapshot",
	"ring.next":                 "only a full log wraps: a snapshot keeps its entries oldest first and a restored one starts unwrapped (TestAuditLogSnapshotBounded checks a wrapped log's round trip)",
	"vrWorkflow.errMsg":         "no operation fails a Materialize or lookup-vindex workflow's streams",
	"readOnlyRegionRec.removed": "a removed read-only region is no longer reachable (its transition does nothing and is left out), nor in a snapshot",
}

// snapshotCovered reports whether snapshotCoverage lists "type.field".
func snapshotCovered(field string) bool {
	typ, name, _ := strings.Cut(field, ".")
	return slices.Contains(strings.Fields(snapshotCoverage[typ]), name)
}

// snapshotHome says where the snapshot of each record type is written.
var snapshotHome = map[string]string{
	"importRec": "importSnap in fake/dataimports_snap.go", "importSourceRec": "importSourceRecSnap in fake/dataimports_snap.go",
	"importSourceKey": "importSourceSnap in fake/dataimports_snap.go", "ImportSource": "importSourceSnap in fake/dataimports_snap.go",
	"ImportNotification": "importNotesSnap in fake/dataimports_snap.go",
	"world":              "worldSnap in fake/snapshot.go", "oauthSession": "oauthSessionSnap in fake/oauth_snap.go",
	"userRec": "userSnap in fake/organizations_snap.go", "orgRec": "orgSnap in fake/organizations_snap.go",
	"memberRec": "memberSnap in fake/organizations_snap.go", "teamRec": "teamSnap in fake/teams_snap.go",
	"teamMemberRec": "teamMemberSnap in fake/teams_snap.go", "tokenRec": "tokenSnap in fake/servicetokens_snap.go",
	"dbRec": "dbSnap in fake/databases_snap.go", "webhookRec": "webhookSnap in fake/webhooks_snap.go",
	"branchRec": "branchSnap in fake/branches_snap.go", "branchMore": "branchSnap in fake/branches_snap.go", "dbMore": "dbSnap in fake/databases_snap.go", "readOnlyRegionRec": "readOnlyRegionSnap in fake/keyspaces_snap.go",
	"keyspaceReadOnlyRegion": "keyspaceROSnap in fake/keyspaces_snap.go", "keyspaceRec": "keyspaceSnap in fake/keyspaces_snap.go", "keyspaceMore": "keyspaceSnap in fake/keyspaces_snap.go",
	"keyspaceSettings": "settingsSnap in fake/keyspaces_snap.go", "roleRec": "roleSnap in fake/roles_snap.go",
	"branchRoles": "branchSnap in fake/branches_snap.go", "trafficBudgetRec": "budgetSnap in fake/trafficbudgets_snap.go",
	"trafficRuleRec": "ruleSnap in fake/trafficbudgets_snap.go", "backupRec": "backupSnap in fake/backups_snap.go",
	"schemaSnapshot": "schemaSnap in fake/backups_snap.go", "policyRec": "policySnap in fake/backups_snap.go",
	"schedule": "scheduleSnap in fake/backups_snap.go", "drRec": "drSnap in fake/deployrequests_snap.go",
	"deployRec": "deploySnap in fake/deployrequests_snap.go", "opRec": "opSnap in fake/deployrequests_snap.go",
	"reviewRec": "reviewSnap in fake/deployrequests_snap.go", "oauthAppRec": "oauthAppSnap in fake/oauthapps_snap.go",
	"oauthTokenRec": "oauthTokenSnap in fake/oauthapps_snap.go", "oauthGrant": "grantSnap in fake/oauthapps_snap.go",
	"oauthCodeRec": "oauthCodeSnap in fake/oauth_snap.go", "oauthDeviceRec": "oauthDeviceSnap in fake/oauth_snap.go",
	"lease": "leaseSnap in fake/snapshot.go", "passwordRec": "passwordSnap in fake/passwords_snap.go",
	"ipRestrictionRec": "ipRestrictionSnap in fake/iprestrictions_snap.go", "switchoverRec": "switchoverSnap in fake/switchovers_snap.go",
	"windowRec": "windowSnap in fake/maintenance_snap.go", "recRec": "recSnap in fake/schemarecommendations_snap.go",
	"bouncerRec": "bouncerSnap in fake/bouncers_snap.go", "bouncerConfig": "bouncerConfigSnap in fake/bouncers_snap.go",
	"bouncerResizeRec": "bouncerResizeSnap in fake/bouncers_snap.go", "keyspaceResizeRec": "keyspaceResizeSnap in fake/keyspaces_snap.go",
	"keyspaceSize":  "keyspaceSizeSnap in fake/keyspaces_snap.go",
	"branchCluster": "branchClusterSnap in fake/branchresizes_snap.go", "vtgateConfig": "vtgateSnap in fake/branchresizes_snap.go",
	"storageConfig": "storageSnap in fake/branchresizes_snap.go", "paramValue": "paramValueSnap in fake/branchresizes_snap.go",
	"branchChangeRec": "branchChangeSnap in fake/branchresizes_snap.go", "clusterState": "clusterStateSnap in fake/branchresizes_snap.go",
	"qpReportRec": "qpReportSnap in fake/querypatterns_snap.go",
	"vitessOpRec": "vitessOpSnap in fake/vitess_snap.go", "shardState": "shardSnap in fake/vitess_snap.go",
	"tabletControl": "tabletControlSnap in fake/vitess_snap.go",
	"ksRoutingRule": "ksRoutingSnap in fake/vitess_snap.go", "throttlerConfig": "throttlerSnap in fake/vitess_snap.go",
	"throttledApp": "throttledAppSnap in fake/vitess_snap.go", "tabletMetric": "tabletMetricSnap in fake/vitess_snap.go",
	"vdiffState": "vitessSnap in fake/vitess_snap.go", "vdiffRec": "vdiffSnap in fake/vitess_vdiff_snap.go",
	"vdiffOptions": "vdiffOptionsSnap in fake/vitess_vdiff_snap.go", "vdiffShard": "vdiffShardSnap in fake/vitess_vdiff_snap.go",
	"vdiffTable": "vdiffTableSnap in fake/vitess_vdiff_snap.go", "vdiffTableKey": "vdiffDiffsSnap in fake/vitess_vdiff_snap.go",
	"VDiffDifferences": "vdiffDiffsSnap in fake/vitess_vdiff_snap.go",
	"orgAuth":          "orgAuthSnap in fake/authattempts_snap.go", "authExportRec": "authExportSnap in fake/authattempts_snap.go",
	"deletedPassword": "deletedPasswordSnap in fake/authattempts_snap.go",
	"auditRec":        "auditSnap in fake/auditlogs_snap.go", "auditLog": "auditLogSnap in fake/auditlogs_snap.go",
	"workflowRec":    "workflowSnap in fake/workflows_snap.go",
	"workflowStream": "workflowStreamSnap in fake/workflows_snap.go", "streamEvent": "streamEventSnap in fake/workflows_snap.go",
	"workflowVDiff": "workflowVDiffSnap in fake/workflows_snap.go", "vdiffTableShard": "vdiffTableShardSnap in fake/workflows_snap.go",
	"vrWorkflow": "vrWorkflowSnap in fake/vreplication_snap.go", "vrTable": "vrTableSnap in fake/vreplication_snap.go",
	"vrOptions":     "vrOptionsSnap in fake/vreplication_snap.go",
	"sessionRec":    "sessionSnap in fake/connections_snap.go",
	"branchTraffic": "trafficSnap in fake/traffic_snap.go", "queryPattern": "patternSnap in fake/traffic_snap.go",
	"querySample": "sampleSnap in fake/traffic_snap.go", "queryError": "sampleSnap in fake/traffic_snap.go",
	"orgBilling": "billingSnap in fake/billing_snap.go", "usageSpan": "usageSpanSnap in fake/billing_snap.go",
	"billedBranch": "billedBranchSnap in fake/billing_snap.go", "invoiceRec": "invoiceSnap in fake/billing_snap.go",
	"lineItemRec": "lineItemSnap in fake/billing_snap.go", "paymentMethodRec": "paymentSnap in fake/billing_snap.go",
}

// snapshotAdvice says what to do about a field the snapshot does not cover.
func snapshotAdvice(field, typ string) string {
	owner, _, _ := strings.Cut(field, ".")
	where := "a ...Snap struct of its own in the snapshot file of its resource group (fake/<group>_snap.go), " +
		"saved by its owner's save and built again by its load; a job of a new kind of transition gets a save " +
		"method and a loader (listed in jobLoaders, fake/snapshot.go) beside its run in fake/<group>_jobs.go"
	if home, ok := snapshotHome[owner]; ok {
		where = home + ": a field of the struct, set in its save, read back in its load"
	}
	return fmt.Sprintf("field %s (%s) is not covered by the snapshot: add it to %s; make a world of "+
		"TestSnapshotOperations set it (opFixtures, or snapshotRichWorld); then list it in snapshotCoverage "+
		"in fake/snapshot_test.go", field, typ, where)
}

// TestSnapshotCoversEveryField checks that every field of every record type
// a snapshot reaches is listed in snapshotCoverage, and that every field
// listed still exists.
func TestSnapshotCoversEveryField(t *testing.T) {
	t.Parallel()
	fields := fake.SnapshotFields()
	for _, f := range slices.Sorted(maps.Keys(fields)) {
		if !snapshotCovered(f) {
			t.Error(snapshotAdvice(f, fields[f]))
		}
	}
	for typ, names := range snapshotCoverage {
		for name := range strings.FieldsSeq(names) {
			if _, ok := fields[typ+"."+name]; !ok && !strings.HasSuffix(typ, "Job") && typ != "delivery" {
				t.Errorf("snapshotCoverage lists %s.%s, which no longer exists: remove it", typ, name)
			}
		}
	}
}

// TestSnapshotOperations runs the operation table's worlds through a
// snapshot: for every operation, its fixture's world is restored into a
// server of another seed, which must hold the same state field by field,
// give the same snapshot, render every resource the same through the API,
// answer the operation's request the same, and then run the same
// transitions to the same results and IDs; the world is restored again
// after the request and at each step of the clock, so that what the
// request and its transitions leave (a job on the clock, a field only
// they set) is restored too. The restored states together must set every
// field of snapshotCoverage and hold a transition of every kind.
func TestSnapshotOperations(t *testing.T) {
	t.Parallel()
	seen := newRestoredSeen()
	ops := loadOperations(t)
	t.Run("ops", func(t *testing.T) {
		t.Run("rich world", func(t *testing.T) {
			t.Parallel()
			snapshotRichWorld(t, seen)
		})
		for _, name := range opOperations(t, func(tsvOperation) bool { return true }) {
			op := ops[name]
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				w := newOpWorldInProcess(t)
				call := opFixtures[name](w, "")
				snapshotRoundTrip(t, w, op.method, call.path(t, w, op), call.body, seen)
			})
		}
	})
	if t.Failed() {
		return
	}
	for f := range seen.fields {
		if !snapshotCovered(f) {
			t.Error(snapshotAdvice(f, "seen in a world"))
		}
	}
	for typ, names := range snapshotCoverage {
		for name := range strings.FieldsSeq(names) {
			f := typ + "." + name
			if !seen.fields[f] && snapshotUnset[f] == "" {
				t.Errorf("no restored world of the operation table sets %s, so the snapshot's round trip of it goes untested: make a fixture set it", f)
			}
		}
	}
	for _, kind := range fake.TransitionKinds() {
		if !seen.kinds[kind] {
			t.Errorf("no restored world of the operation table holds a transition of kind %q, so its loader goes untested: make a fixture leave one on the clock (opFixtures, or snapshotRichWorld)", kind)
		}
	}
}

// restoredSeen is what the snapshots restored so far held, over every
// round trip of TestSnapshotOperations: the fields set (as "type.field",
// see fake.SnapshotFieldsSet) and the kinds of their transitions. It is
// safe for concurrent use.
type restoredSeen struct {
	mu            sync.Mutex
	fields, kinds map[string]bool
}

func newRestoredSeen() *restoredSeen {
	return &restoredSeen{fields: map[string]bool{}, kinds: map[string]bool{}}
}

// restore restores a snapshot of srv into a new twin (restoredFrom, with
// its checks) and notes what it held. Unless always, it does so only when
// srv's state sets a field or has a kind of transition waiting that no
// restored state has held yet, and returns nil otherwise: a restore at
// every step of every operation's world would cost the suite seconds and
// cover nothing more.
func (s *restoredSeen) restore(t *testing.T, srv *fake.Server, always bool) *fake.Server {
	t.Helper()
	fields, pending := map[string]bool{}, map[string]bool{}
	fake.SnapshotFieldsSet(srv, fields)
	for _, kind := range fake.PendingTransitionKinds(srv) {
		pending[kind] = true
	}
	if !always && !s.holdsNew(fields, pending) {
		return nil
	}
	data, err := srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	var snap struct {
		Transitions []struct {
			Kind string `json:"kind"`
		} `json:"transitions"`
	}
	if err := json.Unmarshal(data, &snap); err != nil {
		t.Fatal(err)
	}
	twin := restoredFrom(t, srv, data)
	s.mu.Lock()
	defer s.mu.Unlock()
	maps.Copy(s.fields, fields)
	for _, tr := range snap.Transitions {
		s.kinds[tr.Kind] = true
	}
	return twin
}

// holdsNew reports whether fields or kinds hold one no restored state has.
func (s *restoredSeen) holdsNew(fields, kinds map[string]bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for f := range fields {
		if !s.fields[f] {
			return true
		}
	}
	for k := range kinds {
		if !s.kinds[k] {
			return true
		}
	}
	return false
}

// snapshotRendered holds, by the SHA-256 of their state (fake.StateJSON),
// the worlds whose restored twin renders them as the original does. Most
// fixtures leave the operation table's world as the template holds it, and
// reading that same world through the API twice more for each would check
// nothing new; each distinct world is still read.
var snapshotRendered sync.Map

// snapshotRoundTrip restores a snapshot of w's server into a twin, sends
// the same request to both, then moves both clocks in steps, checking at
// each that they hold the same state; after the request and at each step,
// a snapshot of w's server that holds something new to seen is restored
// into a new twin too (seen.restore).
func snapshotRoundTrip(t *testing.T, w *opWorld, method, path, body string, seen *restoredSeen) {
	t.Helper()
	twin := seen.restore(t, w.srv, true)
	state, err := fake.StateJSON(w.srv)
	if err != nil {
		t.Fatal(err)
	}
	key := sha256.Sum256([]byte(state))
	if _, seen := snapshotRendered.Load(key); !seen {
		if diff := opRenderedAlike(t, w.srv, twin); diff != "" {
			t.Errorf("the restored server renders the world differently: %s", diff)
		} else {
			snapshotRendered.Store(key, true)
		}
	}
	got := []wire{
		opSend(t, w.srv, method, path, admin(w.srv), body),
		opSend(t, twin, method, path, admin(twin), body),
	}
	both := []*fake.Server{w.srv, twin}
	flushAll(t, both)
	if a, b := normalizedBody(w.srv, got[0]), normalizedBody(twin, got[1]); got[0].status != got[1].status || a != b {
		t.Errorf("%s %s: the original answered %d %s, the restored server %d %s", method, path, got[0].status, a, got[1].status, b)
	}
	seen.restore(t, w.srv, false)
	for _, d := range []time.Duration{time.Second, time.Minute, 48 * time.Hour} {
		sameSnapshots(t, w.srv, twin, fmt.Sprintf("after %s %s and %s", method, path, d))
		for _, srv := range both {
			srv.Advance(d)
		}
		flushAll(t, both)
		seen.restore(t, w.srv, false)
	}
	sameSnapshots(t, w.srv, twin, "at the end")
}

// flushAll waits for the webhook deliveries of the servers.
func flushAll(t *testing.T, srvs []*fake.Server) {
	t.Helper()
	for _, srv := range srvs {
		if err := srv.FlushDeliveries(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
}

// snapshotRichWorld builds a world that sets what the operation table's
// worlds leave unset (deleted records still named, failed and instant
// deployments, OAuth grants on every kind of resource, a webhook retry due,
// every setting), and runs snapshotRoundTrip on it at two points.
func snapshotRichWorld(t *testing.T, seen *restoredSeen) {
	w := richWorld(t)
	snapshotRoundTrip(t, w, "GET", "/v1/organizations/"+w.org, "", seen)
	w.srv.SignOut()
	snapshotRoundTrip(t, w, "GET", "/v1/organizations/"+w.org, "", seen)
}

// richWorld builds the world of snapshotRichWorld.
func richWorld(t *testing.T) *opWorld {
	// newOpWorld's, with a sharded keyspace in main.
	e := newDREnv(t, true, opReceiverTimeout)
	e.branch("dev", drChange...)
	mustDB(t, e.srv, "other")
	e.srv.Advance(5 * time.Second)
	w := &opWorld{drEnv: e, bob: mustMember(t, e.srv, e.org, "Bob Builder", platform.RoleMember)}
	srv, org := w.srv, w.org
	do := func(method, path, body string) []byte {
		t.Helper()
		r := send(t, srv, method, path, admin(srv), body)
		if r.status >= 300 {
			t.Fatalf("%s %s: %d %s", method, path, r.status, r.body)
		}
		return r.body
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	idOf := func(body []byte) string {
		var v struct {
			ID string `json:"id"`
		}
		must(json.Unmarshal(body, &v))
		return v.ID
	}
	base := "/v1/organizations/" + org
	app := base + "/databases/" + drDB

	do("PATCH", base, `{"idp_managed_roles":true,"invoice_budget_amount":100}`)
	do("PATCH", base+"/databases/other", `{"automatic_migrations":true,"migration_framework":"rails","migration_table_name":"schema_migrations",`+
		`"require_approval_for_deploy":true,"restrict_branch_region":true,"allow_data_branching":true,"insights_raw_queries":true,"production_branch_web_console":true}`)

	// A team names a database since deleted.
	do("POST", base+"/databases", `{"name":"gone","cluster_size":"PS_10","replicas":0}`)
	w.team()
	must(srv.AddTeamDatabase(org, "core", "gone"))
	must(srv.AddTeamAnalystDatabase(org, "core", "other"))
	do("DELETE", base+"/databases/gone", "")
	must(srv.SetTeamManaged(org, "core", true))

	// A keyspace with every setting, sharded with extra replicas.
	do("POST", app+"/branches/dev/keyspaces", `{"name":"extra","cluster_size":"PS_10","shards":2,"extra_replicas":1}`)
	srv.Advance(time.Minute)

	// A daily policy's backups outlive it; a monthly policy sets every
	// schedule field.
	daily := idOf(do("POST", app+"/backup-policies", `{"name":"daily","target":"development","retention_value":7,"retention_unit":"day","frequency_value":1,"frequency_unit":"day"}`))
	do("POST", app+"/backup-policies", `{"name":"monthly","target":"production","retention_value":1,"retention_unit":"year",`+
		`"frequency_value":1,"frequency_unit":"month","schedule_time":"03:30","schedule_day":2,"schedule_week":1}`)
	srv.Advance(25 * time.Hour)
	do("DELETE", app+"/backup-policies/"+daily, "")

	// A branch restored from a backup, then deleted: its backup names it.
	do("POST", app+"/branches", `{"name":"restored","backup_id":"`+w.backup("dev")+`","cluster_size":"PS_10"}`)
	srv.Advance(time.Minute)
	do("DELETE", app+"/branches/restored", "")

	// main's tags, sized, has a redundant index, which the instant deploy
	// request below drops: its schema recommendation is applied by it.
	mainParams := platform.DisableSafeMigrationsParams{Organization: org, Database: drDB, Branch: "main"}
	_, err := w.c.Branches.DisableSafeMigrations(t.Context(), &mainParams)
	must(err)
	must(srv.PushSchema(org, drDB, "main", "CREATE TABLE `tags` (id bigint NOT NULL, name varchar(64), PRIMARY KEY (id), KEY name (name), KEY name_id (name, id))"))
	must(srv.SetTableSize(org, drDB, "main", "", "tags", 5<<30))
	_, err = w.c.Branches.EnableSafeMigrations(t.Context(), &mainParams)
	must(err)
	// The month's invoice, paid by the card on file, bills the deleted
	// branch.
	w.paymentMethod()
	w.invoice()

	// Deploy requests: one with notes that fails its lint, one whose check
	// fails, one deployed instantly, one changing a sharded keyspace, one
	// whose deployment fails while queued (its operations say why) and is
	// completed, letting the queue go.
	w.branch("linty", drLintError...)
	w.branch("inst", "CREATE TABLE extra (id bigint NOT NULL, PRIMARY KEY (id))",
		"CREATE TABLE `tags` (id bigint NOT NULL, name varchar(64), PRIMARY KEY (id), KEY name_id (name, id))")
	w.branch("shardy", drShardedChange...)
	w.branch("broken", "CREATE TABLE `broken` (id bigint NOT NULL, PRIMARY KEY (id))")
	w.open(platform.CreateDeployRequestParams{Branch: "linty", Notes: "adds notes"})
	w.takeSteps(w.open(platform.CreateDeployRequestParams{Branch: "dev"}), []drStep{failNext})
	inst := w.open(platform.CreateDeployRequestParams{Branch: "inst"})
	w.open(platform.CreateDeployRequestParams{Branch: "shardy"})
	broken := w.open(platform.CreateDeployRequestParams{Branch: "broken"})
	srv.Advance(time.Second)
	w.takeSteps(broken, []drStep{act("deploy"), failNext, adv(time.Second), act("complete-deploy")})
	do("POST", fmt.Sprintf("%s/deploy-requests/%d/deploy", app, inst.Number), `{"instant_ddl":true}`)

	// Budgets and keyspace settings, the last change still applying.
	do("POST", app+"/branches/dev/traffic/budgets", `{"name":"capped","mode":"enforce","capacity":10,"rate":5,"burst":20,"concurrency":3,"warning_threshold":80,"rules":["route=a"]}`)
	budget := w.budget("dev")
	do("POST", app+"/branches/dev/traffic/budgets/"+budget.ID+"/rules", `{"keyspace":"app","fingerprint":"0123456789abcdef"}`)
	do("PATCH", app+"/branches/dev/keyspaces/extra", `{"replication_durability_constraints":{"strategy":"always"},"vreplication_flags":{"optimize_inserts":true},"vector_pool_allocation":0.5}`)

	// A webhook whose receiver fails, with a retry due.
	recv := newWebhookReceiver(t, webhookAnswer(http.StatusInternalServerError))
	hook := idOf(do("POST", app+"/webhooks", `{"url":"`+recv.url()+`","events":["branch.ready"]}`))
	do("PATCH", app+"/webhooks/"+hook, `{"enabled":true}`)
	must(srv.Emit(org, drDB, platform.WebhookEvent("branch.ready"), nil))
	must(srv.FlushDeliveries(t.Context()))

	// OAuth: an application with an avatar; a token granted on every kind
	// of resource, used, then revoked while its code is remembered; a code
	// waiting for its exchange.
	oa, err := srv.CreateOAuthApplication(org, fake.OAuthAppSpec{
		Name: "Everything", Domain: "https://app.example.com", RedirectURI: "https://app.example.com/cb",
		Scopes: platform.Scopes(), Avatar: "https://app.example.com/avatar.png",
	})
	must(err)
	consent := fake.Consent{Organizations: []string{org}, Databases: []string{org + "/" + drDB}, Branches: []string{org + "/" + drDB + "/main"}}
	tok := oauthIssue(t, srv, oa, consent)
	if r := send(t, srv, "GET", base, "Bearer "+tok.AccessToken, ""); r.status != http.StatusOK {
		t.Fatalf("using the OAuth token: %d %s", r.status, r.body)
	}
	revoked := oauthOnlyTokenID(t, srv, oa)
	do("DELETE", base+"/oauth-applications/"+oa.ID+"/tokens/"+revoked, "")
	oauthIssue(t, srv, oa, consent) // a live token besides
	oauthCode(t, srv, oa, consent)

	// Device authorizations: one approved and used, one denied, one
	// polled too soon (slow_down) and still pending.
	cli := oauthApp(t, srv, "https://cli.example.com/cb", platform.ScopeUserReadUser)
	_, used := deviceStart(t, srv, cli.ClientID, nil)
	oauthDo(t, http.MethodGet, used.VerificationURIComplete, nil, nil)
	wantPoll(t, srv, cli.ClientID, used.DeviceCode, "")
	srv.SetAutoApprove(nil)
	_, denied := deviceStart(t, srv, cli.ClientID, nil)
	deviceDecide(t, srv, deviceConsent(t, srv, denied.UserCode), "deny", nil)
	_, pending := deviceStart(t, srv, cli.ClientID, nil)
	wantPoll(t, srv, cli.ClientID, pending.DeviceCode, "authorization_pending")
	wantPoll(t, srv, cli.ClientID, pending.DeviceCode, "slow_down")
	srv.SetAutoApprove(&consent)
	must(srv.SignIn(w.bob))

	// Credentials: a replica password with a ttl, limited to addresses,
	// through VTGate.
	do("POST", app+"/branches/dev/passwords", `{"name":"ci","role":"reader","replica":true,"ttl":3600,"cidrs":["10.0.0.0/8"],"direct_vtgate":true}`)
	// A password bound to a read-only region of main.
	do("PUT", app+"/branches/main/keyspaces/"+drDB+"/read-only-regions", `{"read_only_regions":[{"region":"eu-west"}]}`)
	srv.Advance(fake.DefaultTimings().ReadOnlyRegionReady)
	var regions struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	must(json.Unmarshal(do("GET", app+"/read-only-regions", ""), &regions))
	do("POST", app+"/branches/main/passwords", `{"name":"dump","role":"reader","read_only_region_id":"`+regions.Data[0].ID+`"}`)

	// A PostgreSQL database with role credentials and an IP restriction;
	// its main's switchovers succeeded, failed and running; dev's
	// maintenance, finished and running, and its restart.
	pg := base + "/databases/pg"
	do("POST", base+"/databases", `{"name":"pg","cluster_size":"PS_10","kind":"postgresql"}`)
	srv.Advance(5 * time.Second)
	do("POST", pg+"/branches", `{"name":"dev","parent_branch":"main","major_version":"16","storage":{"minimum_storage_bytes":21474836480}}`)
	srv.Advance(5 * time.Second)
	// A branch of main as it was 3 seconds ago.
	do("POST", pg+"/branches", `{"name":"pitr","parent_branch":"main","restore_point":"`+srv.Now().Add(-3*time.Second).Format(time.RFC3339Nano)+`"}`)
	do("POST", pg+"/branches/dev/roles", `{"with_replication":true,"ttl":3600}`)
	do("POST", pg+"/cidrs", `{"cidrs":["192.0.2.0/24"],"schema":"public","role":"app","description":"office"}`)
	tm := fake.DefaultTimings()
	do("POST", pg+"/branches/main/switchovers", "")
	srv.Advance(tm.SwitchoverStart + tm.SwitchoverRun)
	must(srv.FailNext(idOf(do("POST", pg+"/branches/main/switchovers", ""))))
	srv.Advance(tm.SwitchoverStart)
	do("POST", pg+"/branches/dev/maintenance", "{}")
	srv.Advance(tm.Maintenance)
	do("POST", pg+"/branches/dev/switchovers", "") // a restart: dev has no replicas
	srv.Advance(tm.SwitchoverStart + tm.SwitchoverRun)

	// Branch requests: other's main resized, then resizing again; pg's dev
	// changed (parameters and storage), and a change queued below.
	do("PUT", base+"/databases/other/branches/main/resizes",
		`{"vtgate_size":"VTG_20","vtgate_count":2,"vtgate_max_count":4,"vtgate_autoscaling":true,"vtgate_target_cpu_utilization":70}`)
	do("PATCH", pg+"/branches/dev/changes", `{"parameters":{"pgconf":{"max_connections":"200"}},`+
		`"storage":{"storage_iops":6000,"storage_throughput_mibs":250,"maximum_storage_bytes":2199023255552,"storage_autoscaling":false}}`)
	srv.Advance(tm.BranchChangeStart + tm.BranchChangeRun)
	do("PUT", base+"/databases/other/branches/main/resizes", `{"vtgate_count":3}`)

	// Bouncers of pg's main: "gone" resized, then deleted with a resize
	// pending (its requests stay in the branch's list); "pool" resized,
	// and resizing again; "queue" with a resize pending; "fresh" not yet
	// ready. Keyspace resizes of app's dev: "app" resized (one shard),
	// then queued again; the sharded "extra" mid-rollout.
	bouncers := pg + "/branches/main/bouncers"
	ksDev := app + "/branches/dev/keyspaces"
	do("POST", bouncers, `{"name":"gone"}`)
	do("POST", bouncers, `{"name":"pool","bouncer_size":"PGB_10"}`)
	do("PUT", ksDev+"/app/resizes", `{"cluster_size":"PS_20"}`)
	do("PUT", ksDev+"/extra/resizes", `{"cluster_size":"PS_20"}`)
	srv.Advance(tm.BouncerReady)
	do("PATCH", bouncers+"/gone/resizes", `{"bouncer_size":"PGB_20"}`)
	do("PATCH", bouncers+"/pool/resizes", `{"replicas_per_cell":2,"parameters":{"pgbouncer":{"pool_mode":"session"}}}`)
	srv.Advance(tm.BouncerResizeStart + tm.BouncerResize)
	do("PATCH", bouncers+"/gone/resizes", `{"bouncer_size":"PGB_40"}`)
	do("DELETE", bouncers+"/gone", "")
	do("POST", bouncers, `{"name":"queue"}`)
	do("PATCH", bouncers+"/pool/resizes", `{"bouncer_size":"PGB_40"}`)
	srv.Advance(tm.BouncerReady)
	do("PATCH", bouncers+"/queue/resizes", `{"replicas_per_cell":3}`)
	do("POST", bouncers, `{"name":"fresh"}`)
	do("PUT", ksDev+"/app/resizes", `{"cluster_size":"PS_40","vector_pool_allocation":20}`)
	do("PATCH", pg+"/branches/dev/changes", `{"cluster_size":"PS_20","parameters":{"pgconf":{"max_connections":"300"}}}`)

	do("POST", pg+"/branches/dev/maintenance", "{}")
	do("POST", pg+"/branches/main/switchovers", "")
	srv.Advance(tm.SwitchoverStart)

	// Traffic on app's dev: a tagged query on a replica, and a failed one.
	must(srv.RecordQueries(org, drDB, "dev",
		fake.QuerySample{SQL: "SELECT * FROM users WHERE id = 1", Tags: map[string]string{"route": "home"}, TabletType: platform.TabletReplica,
			RowsRead: 3, RowsReturned: 1, ShardQueries: 2, Duration: 5 * time.Millisecond, Time: srv.Now().Add(-time.Minute)},
		fake.QuerySample{SQL: "UPDATE users SET name = 'x' WHERE id = 2", Keyspace: "extra", RowsAffected: 1, Duration: time.Millisecond,
			Error: "Lock wait timeout exceeded", ErrorCode: "1205"},
	))

	// Data imports: a source with every finding, one that fails to
	// connect, an import whose copy failed, and a notification with every
	// field.
	must(srv.SetImportSource(org, "legacy.example.com", fake.ImportSource{
		Reachable: true, Password: "p", NeedsUpgrade: true, SuggestedPlan: "scaler_pro", MaxPoolSize: 40,
		LintErrors: []platform.DataImportLintError{{LintError: "NO_PRIMARY_KEY", Keyspace: "legacy", Table: "t", SubjectType: "table", ErrorDescription: "no key", DocsURL: "https://docs.example.com/pk"}},
	}))
	must(srv.SetImportSource(org, "down.example.com", fake.ImportSource{ConnectError: "external database is down"}))
	must(srv.SetImportSource(org, "fine.example.com", fake.ImportSource{Reachable: true}))
	imp := idOf(do("POST", base+"/data-imports/new", `{"database_name":"imported","plan":"scaler_pro","max_pool_size":30,"connection":{"hostname":"fine.example.com",`+
		`"schema_name":"legacy","port":3307,"username":"u","password":"p","ssl_mode":"verify_identity","ssl_server_name":"db.fine.example.com"}}`))
	must(srv.FailNext(imp))
	srv.Advance(tm.DataImportPrepare)
	do("POST", "/internal/organizations/"+org+"/databases/"+drDB+"/d1-import-notifications", `{"migration_id":"m1","event":"failed",`+
		`"branch_name":"main","method":"pgloader","export_bytes":1024,"table_count":3,"matched":false,"duration_ms":1500,`+
		`"error":"copy failed","error_code":"E42","stage":"sqlite_staging","message":"Staging"}`)
	// Authentication attempts on pg's main (its default role, from an
	// address its IP restrictions do not admit) and app's dev (a deleted
	// password); a ready export with every filter, a failed one and a
	// pending one.
	pw := idOf(do("POST", app+"/branches/dev/passwords", `{"name":"temp","role":"reader"}`))
	var pwBody struct {
		Username string `json:"username"`
	}
	must(json.Unmarshal(do("GET", app+"/branches/dev/passwords/"+pw, ""), &pwBody))
	do("DELETE", app+"/branches/dev/passwords/"+pw, "")
	_, err = srv.RecordAuthAttempts(org,
		fake.AuthAttempt{Username: "postgres", SourceAddress: "198.51.100.4", Database: "pg", Branch: "main", StartupDatabase: "postgres",
			BackendRoute: platform.AuthRoutePgBouncer, At: srv.Now().Add(-time.Minute)},
		fake.AuthAttempt{Username: pwBody.Username, SourceAddress: "2001:db8::1", Database: drDB, Branch: "dev"},
	)
	must(err)
	exports := base + "/auth-attempt-exports"
	window := `"start_at":"2020-01-01T00:00:00Z","end_at":"2100-01-01T00:00:00Z"`
	do("POST", exports, `{`+window+`,"format":"csv","filters":{"source_ips":["198.51.100.0/24","2001:db8::/32"],"branches":["pg/main"],`+
		`"outcomes":["deny"],"usernames":["postgres"],"startup_databases":["postgres"],"failure_reasons":["ip_not_allowed"],"backend_routes":["pgbouncer"]}}`)
	must(srv.FailNext(idOf(do("POST", exports, `{`+window+`,"format":"jsonl"}`))))
	srv.Advance(tm.AuthAttemptExportStart + tm.AuthAttemptExport)
	do("POST", exports, `{`+window+`,"format":"jsonl"}`)
	// Sessions on pg's main (whose primary the switchover moved): one in a
	// transaction that blocks another's query, and one whose query was
	// cancelled inside its transaction.
	open := func(spec fake.SessionSpec) string {
		t.Helper()
		id, err := srv.OpenSession(org, "pg", "main", spec)
		must(err)
		return id
	}
	blocker := open(fake.SessionSpec{Application: "psql", Host: "192.0.2.9", Query: "UPDATE t SET x = 1", QueryDuration: time.Second, InTransaction: true})
	open(fake.SessionSpec{Query: "UPDATE t SET x = 2", BlockedBy: blocker})
	open(fake.SessionSpec{Query: "SELECT pg_sleep(60)", InTransaction: true})
	list, err := w.c.Connections.List(t.Context(), &platform.ListConnectionsParams{Organization: org, Database: "pg", Branch: "main"})
	must(err)
	for _, conn := range list.Connections {
		if conn.QueryText == "SELECT pg_sleep(60)" {
			must(w.c.Connections.KillQuery(t.Context(), &platform.KillQueryParams{Organization: org, Database: "pg", Branch: "main", ID: *conn.QueryID}))
		}
	}

	return w
}

// restoredTwin restores a snapshot of srv into a new server of another
// seed and checks that it holds the same state and gives the same snapshot.
func restoredTwin(t *testing.T, srv *fake.Server) *fake.Server {
	t.Helper()
	data, err := srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	return restoredFrom(t, srv, data)
}

// restoredFrom is restoredTwin of data, a snapshot of srv.
func restoredFrom(t *testing.T, srv *fake.Server, data []byte) *fake.Server {
	t.Helper()
	twin := fake.NewServer(t, fake.WithSeed(99), fake.WithOrganization("other-org"), opReceiverTimeout)
	if err := twin.Restore(data); err != nil {
		t.Fatalf("Restore of a snapshot: %v", err)
	}
	if diff := fake.SnapshotStateDiff(srv, twin); diff != "" {
		t.Errorf("the restored state differs (-original +restored):\n%s", diff)
	}
	again, err := twin.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, again) {
		t.Errorf("a snapshot of the restored server differs from the one restored (-original +restored):\n%s", cmp.Diff(string(data), string(again)))
	}
	return twin
}

// sameSnapshots checks that two servers give the same snapshot
// (fake.SameSnapshots), and shows them indented as Snapshot gives them
// when they differ.
func sameSnapshots(t *testing.T, a, b *fake.Server, when string) {
	t.Helper()
	same, sa, sb, err := fake.SameSnapshots(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if !same {
		t.Errorf("%s, the snapshots differ (-original +restored):\n%s", when, cmp.Diff(indentJSON(t, sa), indentJSON(t, sb)))
	}
}

// indentJSON returns data indented as a snapshot is.
func indentJSON(t *testing.T, data []byte) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Indent(&b, data, "", " "); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// opRenderedAlike reads srv's world through the API as opSnapshot does
// (the logs a snapshot leaves out aside) and sends each of its requests to
// twin as well: twin must answer every one as srv does, status and body,
// with each server's URL made neutral, and its Go API give the same role
// objects and authentication-attempt exports. It returns the first
// difference, "" when none. The requests go to both handlers in process,
// one after the other, and only srv's answers are decoded.
func opRenderedAlike(t *testing.T, srv, twin *fake.Server) string {
	t.Helper()
	if err := twin.FlushDeliveries(t.Context()); err != nil {
		t.Fatal(err)
	}
	mirror := &opMirror{a: srv, b: twin}
	c, err := platform.NewClient(append(srv.ClientOptions(srv.AdminToken()), platform.WithHTTPClient(&http.Client{Transport: mirror}))...)
	if err != nil {
		t.Fatal(err)
	}
	st := opSnapshotThrough(t, srv, c)
	if mirror.diff != "" {
		return mirror.diff
	}
	if diff := cmp.Diff(st.AuthExports, fake.AuthExportStates(twin, twin.Org())); diff != "" {
		return "authentication-attempt exports (-original +restored):\n" + diff
	}
	for key, roles := range st.Roles {
		db, branch, _ := strings.Cut(key, "/")
		for _, r := range roles {
			objects, err := twin.RoleObjects(twin.Org(), db, branch, r.ID)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(st.RoleObjects[r.ID], objects); diff != "" {
				return "objects of role " + r.ID + " (-original +restored):\n" + diff
			}
		}
	}
	return ""
}

// opMirror is an http.RoundTripper that serves each request with a's
// handler and returns its answer, after serving it with b's too and
// keeping, in diff, the first request the two answer differently (status
// or body, each server's URL made neutral).
type opMirror struct {
	a, b *fake.Server
	diff string
}

func (m *opMirror) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil && r.Body != http.NoBody {
		return nil, fmt.Errorf("opMirror: %s %s has a body, which it cannot send twice", r.Method, r.URL)
	}
	serve := func(srv *fake.Server) *httptest.ResponseRecorder {
		req := r.Clone(r.Context())
		req.Body = http.NoBody
		base, err := url.Parse(srv.URL()) // as srv's own client sends it
		if err != nil {
			panic(err)
		}
		req.URL.Scheme, req.URL.Host, req.Host = base.Scheme, base.Host, base.Host
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		return rec
	}
	ra, rb := serve(m.a), serve(m.b)
	if m.diff == "" {
		a, b := strings.ReplaceAll(ra.Body.String(), m.a.URL(), "BASE/"), strings.ReplaceAll(rb.Body.String(), m.b.URL(), "BASE/")
		if ra.Code != rb.Code || a != b {
			m.diff = fmt.Sprintf("%s %s: the original answered %d, the restored server %d (-original +restored):\n%s", r.Method, r.URL.Path, ra.Code, rb.Code, cmp.Diff(a, b))
		}
	}
	return ra.Result(), nil
}

// normalizedBody is a response's body with srv's URL made neutral.
func normalizedBody(srv *fake.Server, w wire) string {
	return strings.ReplaceAll(string(w.body), srv.URL(), "BASE/")
}

// TestRestoreRefuses checks that a snapshot of another version, a foreign
// file or a corrupt snapshot is refused with an error that says why, and
// changes nothing.
func TestRestoreRefuses(t *testing.T) {
	t.Parallel()
	src := fake.NewServer(t)
	mustDB(t, src, "app")
	good, err := src.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	edit := func(fn func(m map[string]any)) []byte {
		var m map[string]any
		if err := json.Unmarshal(good, &m); err != nil {
			t.Fatal(err)
		}
		fn(m)
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	first := func(m map[string]any, list string) map[string]any { return m[list].([]any)[0].(map[string]any) }
	// rekey puts an object under key in place of the users.
	rekey := func(key string) []byte {
		return bytes.Replace(edit(func(m map[string]any) { delete(m, "users"); m["REKEYED"] = map[string]any{} }), []byte(`"REKEYED"`), []byte(key), 1)
	}
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "not a snapshot"},
		{"not JSON", []byte("hello"), "not a snapshot"},
		{"another format", []byte(`{"format":"something-else","version":1}`), `format is "something-else"`},
		{"another version", edit(func(m map[string]any) { m["version"] = 2 }), "snapshot version 2 is not supported: this fake reads version 1"},
		{"unknown field", edit(func(m map[string]any) { m["extra"] = true }), `unknown field "extra"`},
		{"truncated", good[:len(good)/2], "corrupt snapshot"},
		{"trailing data", append(bytes.Clone(good), "{}"...), "corrupt snapshot: invalid character"},
		{"wrong type", edit(func(m map[string]any) { m["users"] = "ada" }), "corrupt snapshot"},
		{"dangling user", edit(func(m map[string]any) { first(m, "databases")["organization"] = "nowhere" }), `organization "nowhere" is not in the snapshot`},
		{"dangling branch", edit(func(m map[string]any) { first(m, "branches")["database"] = "nosuchdb" }), `database "nosuchdb" is not in the snapshot`},
		{"duplicate ID", edit(func(m map[string]any) { m["users"] = append(m["users"].([]any), m["users"].([]any)[0]) }), "appears twice"},
		{"admin secret", edit(func(m map[string]any) { m["admin"].(map[string]any)["token_secret"] = "sk_wrong" }), "does not match its hash"},
		{"bad rng", edit(func(m map[string]any) { m["rng"] = "AAAA" }), "rng"},
		{"bad hash", edit(func(m map[string]any) { first(m, "service_tokens")["hash"] = "zz" }), "hash"},
		{"unknown transition", edit(func(m map[string]any) { first(m, "transitions")["kind"] = "database.explode" }), `unknown kind "database.explode"`},
		{"transition of nothing", edit(func(m map[string]any) { first(m, "transitions")["id"] = "gone" }), `"gone" is not in the snapshot`},
		{"unknown region", edit(func(m map[string]any) { first(m, "databases")["region"] = "mars" }), `unknown region "mars"`},
		{"an object for a list", edit(func(m map[string]any) { m["users"] = map[string]any{} }), "corrupt snapshot: users: want an array, got an object"},
		{"a list for an object", edit(func(m map[string]any) { m["clock"] = []any{} }), "corrupt snapshot: clock: want an object, got an array"},
		{"a boolean for a name", edit(func(m map[string]any) { first(m, "users")["name"] = true }), "corrupt snapshot: users[0].name: want a string, got a boolean"},
		// A key json.Unmarshal fills a field from (in another case, or
		// escaped) is checked as the field.
		{"an object for a list, under a key in capitals", rekey(`"USERS"`), "corrupt snapshot: USERS: want an array, got an object"},
		{"an object for a list, under an escaped key", rekey(`"\u0075sers"`), "corrupt snapshot: users: want an array, got an object"},
		{"an unknown field holding nested values", edit(func(m map[string]any) {
			m["extra"] = map[string]any{"a": []any{1, map[string]any{"b": "}]"}, []any{}}}
		}), `unknown field "extra"`},
		{"admin of no organization", edit(func(m map[string]any) { m["admin"].(map[string]any)["organization"] = "nowhere" }), `admin: no organization "nowhere"`},
		{"admin of no user", edit(func(m map[string]any) { m["admin"].(map[string]any)["user"] = "" }), "admin: no user"},
		{"admin of an unknown user", edit(func(m map[string]any) { m["admin"].(map[string]any)["user"] = "ghost" }), `admin user "ghost" is not in the snapshot`},
		{"admin without a token", edit(func(m map[string]any) { m["admin"].(map[string]any)["token_id"] = "" }), "admin: no token"},
		{"a user without an ID", edit(func(m map[string]any) { first(m, "users")["id"] = "" }), "without an ID"},
		{"a database name too long", edit(func(m map[string]any) { first(m, "databases")["name"] = strings.Repeat("a", 100) }), "is longer than"},
		{"a database name the API refuses", edit(func(m map[string]any) { first(m, "databases")["name"] = "Bad Name" }),
			`"Bad Name" must be lowercase letters, digits and dashes`},
		{"a cluster size not as the API keeps it", edit(func(m map[string]any) { first(m, "databases")["cluster_size"] = "PS-10" }),
			`databases[0].cluster_size: cluster size "PS-10" is stored as "PS_10"`},
		{"a transition of sequence 0", edit(func(m map[string]any) { first(m, "transitions")["seq"] = 0 }), "transitions[0].seq: transition "},
		{"two transitions of one sequence", edit(func(m map[string]any) {
			m["transitions"].([]any)[1].(map[string]any)["seq"] = first(m, "transitions")["seq"]
		}), "transitions[1].seq: transition "},
		{"a transition's generation past the counters", edit(func(m map[string]any) { first(m, "transitions")["gen"] = 1 << 62 }), "transitions[0].gen: "},
		{"a transition of no ID", edit(func(m map[string]any) { first(m, "transitions")["id"] = "" }), "transitions[0]: transition branch.ready of : no branch"},
		{"a signed-in user not in the snapshot", edit(func(m map[string]any) { m["oauth_session"] = map[string]any{"user": "ghost"} }),
			`oauth_session: OAuth session: signed-in user "ghost" is not in the snapshot`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := fake.NewServer(t, fake.WithSeed(5))
			mustDB(t, srv, "mine")
			before, err := srv.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			err = srv.Restore(tt.data)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "fake: Restore: ") {
				t.Fatalf("Restore: %v, want an error saying %q", err, tt.want)
			}
			after, err := srv.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(before, after) {
				t.Error("a refused Restore changed the server")
			}
		})
	}
}

// TestResetWhileServing resets a server while its client and a client of
// the control surface send requests, which read whether the clock is real
// while Reset replaces the world: under the race detector (go test -race),
// a read of the world without the lock fails it.
func TestResetWhileServing(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	auth := srv.AdminToken().Authorization()
	done := make(chan struct{})
	var wg sync.WaitGroup
	// repeat runs f until done is closed or f reports a failure.
	repeat := func(f func() bool) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				if !f() {
					return
				}
			}
		}()
	}
	repeat(func() bool {
		// The org may be gone for a moment; only the read matters.
		_, _ = srv.Client().Organizations.Get(t.Context(), &platform.GetOrganizationParams{Organization: srv.Org()})
		return true
	})
	repeat(func() bool {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL()+"_fake/now", nil)
		if err != nil {
			t.Error(err)
			return false
		}
		req.Header.Set("Authorization", auth)
		resp, err := clientOf(srv).Do(req)
		if err != nil {
			t.Error(err)
			return false
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return true
	})
	for range 20 {
		srv.Reset()
	}
	close(done)
	wg.Wait()
}

// TestReset checks that Reset returns a server to its start: the same
// snapshot as a new server with the same options, the same admin token,
// and empty logs.
func TestReset(t *testing.T) {
	t.Parallel()
	start := time.Date(2030, 5, 1, 0, 0, 0, 0, time.UTC)
	opts := []fake.Option{fake.WithSeed(3), fake.WithStartTime(start), fake.WithOrganization("zeta")}
	srv := fake.NewServer(t, opts...)
	tok := srv.AdminToken()
	mustDB(t, srv, "app")
	srv.Advance(time.Hour)
	if _, err := srv.CreateServiceToken("zeta", fake.TokenSpec{Name: "ci"}); err != nil {
		t.Fatal(err)
	}
	srv.Reset()
	got, err := srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	want, err := fake.NewServer(t, opts...).Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("after Reset (-new server +reset):\n%s", cmp.Diff(string(want), string(got)))
	}
	if srv.AdminToken() != tok || !srv.Now().Equal(start) {
		t.Errorf("after Reset: admin token %v at %s, want %v at %s", srv.AdminToken(), srv.Now(), tok, start)
	}
	if len(srv.Events()) != 0 || len(srv.Requests()) != 0 {
		t.Errorf("after Reset: %d events and %d requests logged, want none", len(srv.Events()), len(srv.Requests()))
	}
	dbs, err := srv.Client().Databases.List(t.Context(), &platform.ListDatabasesParams{Organization: "zeta"})
	if err != nil || len(dbs.Items) != 0 {
		t.Errorf("after Reset: databases %v, %v; want none", dbs, err)
	}
}

// TestSnapshotControl runs snapshot, restore and reset over the control
// endpoints: a snapshot taken over HTTP restores into another server, a
// corrupt one is a 422 that changes nothing, and reset starts afresh.
func TestSnapshotControl(t *testing.T) {
	t.Parallel()
	src := fake.NewServer(t)
	mustDB(t, src, "app")
	r := send(t, src, http.MethodGet, "/_fake/snapshot", admin(src), "")
	wantStatus(t, r, http.StatusOK)
	dst := fake.NewServer(t)
	wantStatus(t, send(t, dst, http.MethodPut, "/_fake/snapshot", admin(dst), string(r.body)), http.StatusNoContent)
	sameSnapshots(t, src, dst, "after PUT /_fake/snapshot")

	before, err := dst.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	bad := send(t, dst, http.MethodPut, "/_fake/snapshot", admin(dst), `{"format":"platform-fake-snapshot","version":7}`)
	if e := wantError(t, bad, http.StatusUnprocessableEntity, "unprocessable"); !strings.Contains(e.Message, "snapshot version 7 is not supported") {
		t.Errorf("message %q, want the version refused", e.Message)
	}
	if after, _ := dst.Snapshot(); !bytes.Equal(before, after) {
		t.Error("a refused PUT /_fake/snapshot changed the server")
	}
	// A body that breaks off while it is read is a 400, the server
	// unchanged.
	req := httptest.NewRequestWithContext(t.Context(), http.MethodPut, "/_fake/snapshot",
		io.MultiReader(bytes.NewReader(r.body[:len(r.body)/2]), iotest.ErrReader(io.ErrUnexpectedEOF)))
	req.Header.Set("Authorization", admin(dst))
	rec := httptest.NewRecorder()
	dst.ServeHTTP(rec, req)
	broken := wire{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
	if e := wantError(t, broken, http.StatusBadRequest, "bad_request"); !strings.Contains(e.Message, "reading request body: unexpected EOF") {
		t.Errorf("message %q, want the body's read refused", e.Message)
	}
	if after, _ := dst.Snapshot(); !bytes.Equal(before, after) {
		t.Error("a PUT /_fake/snapshot whose body broke off changed the server")
	}

	wantStatus(t, send(t, dst, http.MethodPost, "/_fake/reset", admin(dst), ""), http.StatusNoContent)
	sameSnapshots(t, fake.NewServer(t), dst, "after POST /_fake/reset")
}

// BenchmarkSnapshot measures a snapshot and a restore of a world of 20
// databases, against rendering the same world through the API
// (opSnapshot), the baseline.
func BenchmarkSnapshot(b *testing.B) {
	srv := fake.NewServer(b)
	for i := range 20 {
		mustDB(b, srv, fmt.Sprintf("db-%02d", i))
	}
	srv.Advance(time.Minute)
	w := struct{ srv *fake.Server }{srv}
	data, err := w.srv.Snapshot()
	if err != nil {
		b.Fatal(err)
	}
	twin := fake.NewServer(b)
	b.Run("render", func(b *testing.B) {
		for b.Loop() {
			opSnapshot(b, w.srv)
		}
	})
	b.Run("snapshot", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if _, err := w.srv.Snapshot(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("restore", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if err := twin.Restore(data); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestRestoreDropsAttemptsInFlight checks that a webhook attempt in flight
// when a snapshot is restored records nothing once its answer comes: the
// restored webhook does not count its failure, and no retry of it is sent.
func TestRestoreDropsAttemptsInFlight(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	mustDB(t, srv, "app")
	srv.Advance(5 * time.Second)
	release := make(chan struct{})
	recv := newWebhookReceiver(t, func(w http.ResponseWriter, _ *http.Request) {
		<-release
		w.WriteHeader(http.StatusInternalServerError)
	})
	c := srv.Client()
	h, err := c.Webhooks.Create(t.Context(), &platform.CreateWebhookParams{
		Organization: srv.Org(), Database: "app", URL: recv.url(), Events: []platform.WebhookEvent{"branch.ready"},
	})
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, send(t, srv, "PATCH", "/v1/organizations/acme/databases/app/webhooks/"+h.ID, admin(srv), `{"enabled":true}`), http.StatusOK)
	fixture, err := srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Emit(srv.Org(), "app", "branch.ready", nil); err != nil {
		t.Fatal(err)
	}
	if err := srv.Restore(fixture); err != nil {
		t.Fatal(err)
	}
	close(release)
	if err := srv.FlushDeliveries(t.Context()); err != nil {
		t.Fatal(err)
	}
	srv.Advance(time.Hour) // past every retry delay
	if err := srv.FlushDeliveries(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := len(recv.got()); n != 1 {
		t.Errorf("the receiver got %d attempts, want the one in flight alone", n)
	}
	got, err := c.Webhooks.Get(t.Context(), &platform.GetWebhookParams{Organization: srv.Org(), Database: "app", ID: h.ID})
	if err != nil {
		t.Fatal(err)
	}
	if got.LastSentResult != "" {
		t.Errorf("the restored webhook recorded %q from an attempt of the world it replaced", got.LastSentResult)
	}
}
