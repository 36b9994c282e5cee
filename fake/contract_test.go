package fake_test

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
	"github.com/dbplatform/platform-go/internal/apischema"
)

// The contract tests hold the fake's responses to the API's schemas
// (internal/apischema/schema.json, generated from the live service's
// reference): every operation of operations.tsv, driven to its success
// status by its fixture of opfixtures_test.go and by the states of
// contractStates that change the shape of bodies, must answer a body that
// has every property the schema names (required or not: the service sends
// them), the right types, null only where the schema allows it and enum
// values in their set, at every depth; and the SDK type the operation
// decodes into must keep every property of the body.

// contractException is a documented difference between the fake and the
// schema, which the checks excuse: a problem of kind ("missing", "enum",
// "null", "type") about what (a property's or a value's name), in the
// responses of the operations ops (every operation when empty).
type contractException struct {
	ops        []string
	kind, what string
	reason     string
}

// contractExceptions are the only problems the contract tests excuse.
var contractExceptions = []contractException{
	{
		ops:  []string{"list_roles", "get_role", "get_default_role", "update_role", "renew_role"},
		kind: "missing", what: "password",
		reason: "the spec shows a role's password only in the response that creates (or resets) its credentials; the reference marks it required everywhere",
	},
	{
		ops:  []string{"get_branch_metrics", "get_branch_query_metrics", "get_branch_tag_metrics", "get_tablet_metrics", "get_instant_branch_metrics", "get_instant_tablet_metrics"},
		kind: "type", what: "",
		reason: "the reference types each item of a time series' series, and of the instant metrics' metrics, as a string, with no shape; the fake sends an object per series (metric, labels, points) and per value (metric, labels, value, time), as docs/fake-behaviour.md (Metrics) says",
	},
	{
		kind: "enum", what: "svc_managed",
		reason: "inherited_roles may hold svc_managed, the role the service manages for its own use, which the reference's enum leaves out",
	},
}

// workflowOps are the operations that answer a workflow.
var workflowOps = []string{
	"list_workflows", "create_workflow", "get_workflow", "workflow_cancel", "workflow_complete", "workflow_cutover", "workflow_retry",
	"workflow_reverse_cutover", "workflow_reverse_traffic", "workflow_switch_primaries", "workflow_switch_replicas", "verify_workflow",
}

func init() {
	// A workflow's actors of actions not taken yet, and its global
	// keyspace when none was named, are null: the reference marks them
	// required objects, but there is nothing to show, and the official
	// client decodes them as pointers.
	for _, what := range []string{
		"verify_data_by", "reversed_by", "switch_replicas_by", "switch_primaries_by", "cancelled_by",
		"completed_by", "retried_by", "cutover_by", "reversed_cutover_by", "global_keyspace",
	} {
		contractExceptions = append(contractExceptions, contractException{
			ops: workflowOps, kind: "null", what: what,
			reason: "null until someone takes the action (or, for global_keyspace, when none was named); the reference has no null form",
		})
	}
}

// contractExempt returns the exceptions that apply to operation name.
func contractExempt(name string) apischema.Exempt {
	return func(_, kind, what string) bool {
		for _, e := range contractExceptions {
			if e.kind == kind && e.what == what && (len(e.ops) == 0 || slices.Contains(e.ops, name)) {
				return true
			}
		}
		return false
	}
}

// clientException is a documented difference between the fake's bodies
// and what the service's official client decodes: properties (any, when
// empty) the client reads that the bodies of the operations ops lack in
// the objects at the JSON paths at (list indexes written []). Only missing
// properties are excused: a value of another kind than the client reads
// fails its decoding.
type clientException struct {
	ops    []string
	at     []string
	what   []string
	reason string
}

// clientExceptions are the only problems the checks against what the
// service's official client decodes (internal/apischema/client.json)
// excuse.
var clientExceptions = []clientException{
	{
		ops: workflowOps, at: []string{"$.branch", "$.data[].branch", "$.source_keyspace", "$.data[].source_keyspace", "$.target_keyspace", "$.data[].target_keyspace"},
		reason: "the reference gives a workflow's branch and keyspaces as short references (id, name, times); the client decodes them into its whole branch and keyspace types",
	},
	{
		ops: []string{"create_password", "get_password", "renew_password", "list_passwords"}, at: []string{"$.database_branch", "$.data[].database_branch"},
		reason: "the reference gives a password's branch as a short reference (id, name, production, addresses); the client decodes it into its whole branch type",
	},
	{
		ops: []string{"get_role", "update_role", "renew_role", "list_roles"}, at: []string{"$", "$.data[]"}, what: []string{"password"},
		reason: "a role's password is shown only in the response that creates (or resets) its credentials, as for the reference's schema (contractExceptions)",
	},
	{
		ops: []string{"start_data_import", "get_data_import", "make_data_import_primary", "make_data_import_replica", "detach_data_import_database"},
		at:  []string{"$.data_source"}, what: []string{"password", "ssl_ca", "ssl_cert", "ssl_key", "ssl_server_name"},
		reason: "the client reads an import's source into the type it sends the connection in; the source's password and TLS keys are given, never shown back (the reference's data_source has neither), and a server name only when one was given",
	},
	{
		ops: []string{"start_data_import", "get_data_import", "make_data_import_primary", "make_data_import_replica", "detach_data_import_database"},
		at:  []string{"$"}, what: []string{"deleted_at"},
		reason: "the reference's data_import has no deleted_at: an import is read only while its database lives, and a cancel deletes both",
	},
}

// clientExempt returns the client exceptions that apply to operation name.
func clientExempt(name string) apischema.Exempt {
	return func(path, kind, what string) bool {
		return clientExcusing(name, path, kind, what) != nil
	}
}

// clientIndex matches a list index of a JSON path.
var clientIndex = regexp.MustCompile(`\[[0-9]+\]`)

// clientExcusing returns the exception that excuses a problem of operation
// name, or nil.
func clientExcusing(name, path, kind, what string) *clientException {
	at := clientIndex.ReplaceAllString(path, "[]")
	for i, e := range clientExceptions {
		if kind == "missing" && slices.Contains(e.ops, name) && slices.Contains(e.at, at) && (len(e.what) == 0 || slices.Contains(e.what, what)) {
			return &clientExceptions[i]
		}
	}
	return nil
}

// clientFacts is the client file, loaded once.
var clientFacts = sync.OnceValues(apischema.LoadClient)

// clientProblems holds a success body of operation name to every type the
// service's official client decodes it into: each field it reads present,
// of the kind it reads (a whole number where it reads an integer).
func clientProblems(t testing.TB, name string, body any, exempt apischema.Exempt) []string {
	t.Helper()
	facts, err := clientFacts()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, typ := range facts.Operations[name] {
		for _, p := range facts.Types[typ].Validate(body, exempt) {
			out = append(out, "as the official client reads it: "+p)
		}
	}
	return out
}

// contractSchema is the schema file, loaded once.
var contractSchema = sync.OnceValues(apischema.Load)

// loadContractSchema returns the schema file, failing the test when it does
// not load.
func loadContractSchema(t testing.TB) *apischema.File {
	t.Helper()
	f, err := contractSchema()
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestContractCoverage checks that every row of operations.tsv can be held
// to the schema: it has a fixture and a schema entry of the same method,
// path and success status. An operation added to the fake without either
// fails here, with what to add.
func TestContractCoverage(t *testing.T) {
	t.Parallel()
	schema := loadContractSchema(t)
	for name, op := range loadOperations(t) {
		_, api := opFixtures[name]
		_, oauth := opOAuthServer[name]
		if !api && !oauth {
			t.Errorf("%s: no fixture: add to opFixtures in fake/opfixtures_test.go an entry %q that sets up what the operation needs and returns a request that succeeds", name, name)
		}
		entry := schema.Operations[name]
		if entry == nil {
			t.Errorf("%s: no schema entry in internal/apischema/schema.json: regenerate it from the reference (CONTRIBUTING.md, \"Contract tests\"), or, for an operation the reference lacks, add it to projectOperations in internal/apischema/gen/project.go and regenerate", name)
			continue
		}
		if entry.Method != op.method || entry.Path != op.path || entry.Status != op.status {
			t.Errorf("%s: operations.tsv has %s %s %d, the schema %s %s %d: fix the row or the route", name, op.method, op.path, op.status, entry.Method, entry.Path, entry.Status)
		}
	}
	for _, e := range contractExceptions {
		for _, name := range e.ops {
			if schema.Operations[name] == nil {
				t.Errorf("contractExceptions names %s, which the schema does not have", name)
			}
		}
	}
}

// TestContractExceptionsApply checks that each of contractExceptions
// excuses a difference the fake still has (the default role shows the
// role's, a new workflow the workflows', a branch's metrics the series'):
// an exception no longer needed must go.
func TestContractExceptionsApply(t *testing.T) {
	t.Parallel()
	w := newOpWorld(t)
	wfSetup(t, w.srv, "main")
	wfDrive(t, w.srv, w.c, wfCreate(w.srv), platform.WorkflowPending)
	w.traffic()
	probes := map[string]string{
		"get_default_role":   w.postgresDB("pg") + "/branches/main/roles/default",
		"get_workflow":       "/v1/organizations/acme/databases/" + drDB + "/workflows/1",
		"get_branch_metrics": "/v1/organizations/acme/databases/" + drDB + "/branches/main/metrics?metrics=queries&period=1h&steps=2",
	}
	bodies := map[string]any{}
	for op, path := range probes {
		r := send(t, w.srv, http.MethodGet, path, admin(w.srv), "")
		wantStatus(t, r, http.StatusOK)
		bodies[op] = decode[any](t, r)
		schema := loadContractSchema(t).Operations[op].Response
		if problems := schema.Validate(bodies[op], contractExempt(op)); len(problems) > 0 {
			t.Errorf("%s with the exceptions: %v", op, problems)
		}
	}
	for _, e := range contractExceptions {
		only := func(_, kind, what string) bool { return kind != e.kind || what != e.what }
		applies := false
		for op, body := range bodies {
			if len(e.ops) == 0 || slices.Contains(e.ops, op) {
				applies = applies || len(loadContractSchema(t).Operations[op].Response.Validate(body, only)) > 0
			}
		}
		if !applies {
			t.Errorf("exception %s %q excuses nothing: remove it from contractExceptions", e.kind, e.what)
		}
	}
}

// TestClientExceptionsApply checks that each of clientExceptions excuses
// a difference the fake still has, in the body of one of its operations'
// fixtures: an exception no longer needed must go.
func TestClientExceptionsApply(t *testing.T) {
	t.Parallel()
	ops := loadOperations(t)
	used := map[*clientException]bool{}
	var mu sync.Mutex
	var names []string
	for _, e := range clientExceptions {
		for _, name := range e.ops {
			if !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
	}
	t.Run("bodies", func(t *testing.T) {
		for _, name := range names {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				w := newOpWorld(t)
				call := opFixtures[name](w, "")
				r := send(t, w.srv, ops[name].method, call.path(t, w, ops[name]), admin(w.srv), call.body)
				var body any
				if err := json.Unmarshal(r.body, &body); err != nil {
					t.Fatalf("%s: %d %s", name, r.status, r.body)
				}
				clientProblems(t, name, body, func(path, kind, what string) bool {
					if e := clientExcusing(name, path, kind, what); e != nil {
						mu.Lock()
						used[e] = true
						mu.Unlock()
					}
					return true
				})
			})
		}
	})
	for i, e := range clientExceptions {
		if !used[&clientExceptions[i]] {
			t.Errorf("client exception %v at %v (%s) excuses nothing: remove it from clientExceptions", e.what, e.at, e.reason)
		}
	}
}

// TestContractOperations sends every fixture's request with the admin token
// and holds each response to its operation's schema.
func TestContractOperations(t *testing.T) {
	t.Parallel()
	ops := loadOperations(t)
	for _, name := range opOperations(t, func(tsvOperation) bool { return true }) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := newOpWorld(t)
			contractCheck(t, w, name, opFixtures[name](w, ""), ops[name])
		})
	}
	for name, do := range opOAuthServer {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := do(newOpWorld(t))
			contractBody(t, name, wire{status: r.status, body: []byte(r.body)})
		})
	}
}

// contractCheck sends an operation's request with the admin token and holds
// the response to the schema.
func contractCheck(t *testing.T, w *opWorld, name string, call opCall, op tsvOperation) {
	t.Helper()
	r := send(t, w.srv, op.method, call.path(t, w, op), admin(w.srv), call.body)
	contractBody(t, name, r)
}

// contractBody holds a response of operation name to its schema entry: the
// entry's status, its body's shape, and the SDK type's keeping every
// property of the body. Every actor object has a type too, which the
// service sends and the reference leaves out.
func contractBody(t *testing.T, name string, r wire) {
	t.Helper()
	entry := loadContractSchema(t).Operations[name]
	if entry == nil {
		t.Fatalf("%s has no schema entry", name)
	}
	if r.status != entry.Status {
		t.Fatalf("%s: status %d, want %d; body %s", name, r.status, entry.Status, r.body)
	}
	if entry.Response == nil {
		if len(strings.TrimSpace(string(r.body))) > 0 && r.status != http.StatusFound {
			t.Errorf("%s: body %s, want none", name, r.body)
		}
		return
	}
	var body any
	if err := json.Unmarshal(r.body, &body); err != nil {
		t.Fatalf("%s: body %q is not JSON: %v", name, r.body, err)
	}
	for _, p := range entry.Response.Validate(body, contractExempt(name)) {
		t.Errorf("%s: %s", name, p)
	}
	for _, p := range clientProblems(t, name, body, clientExempt(name)) {
		t.Errorf("%s: %s", name, p)
	}
	for at, a := range contractActors("$", body) {
		if _, ok := a["type"]; !ok {
			t.Errorf("%s: %s: an actor without type", name, at)
		}
	}
	if strings.HasPrefix(entry.Path, "{auth_url}") {
		// The OAuth server's token response is decoded by x/oauth2, which
		// keeps the whole response (Token.Extra): no SDK type to check.
		return
	}
	typ, ok := contractSDKTypes(t)[entry.Method+" "+entry.Path]
	switch {
	case !ok:
		t.Fatalf("%s: no SDK method of package platform ends its doc comment with \"// API: %s %s\"", name, entry.Method, entry.Path)
	case typ == nil:
		t.Fatalf("%s: the SDK method returns only an error, dropping the body the schema describes", name)
	}
	if data, ok := contractEnvelope(body, typ); ok {
		// The API wraps the body in {"data": ...} and the SDK method
		// returns what is inside (the process list and its kill).
		var err error
		if r.body, err = json.Marshal(data); err != nil {
			t.Fatal(err)
		}
		body = data
	}
	again := reflect.New(typ)
	if err := json.Unmarshal(r.body, again.Interface()); err != nil {
		t.Fatalf("%s: decoding into %v: %v", name, typ, err)
	}
	b, err := json.Marshal(again.Interface())
	if err != nil {
		t.Fatal(err)
	}
	var kept any
	if err := json.Unmarshal(b, &kept); err != nil {
		t.Fatal(err)
	}
	for _, p := range contractDropped("$", body, kept) {
		t.Errorf("%s: %s: the SDK's %v drops it (decode then encode loses the property)", name, p, typ)
	}
}

// contractDropped returns the JSON paths of the properties of body that
// kept, body decoded into an SDK type and encoded again, lacks.
func contractDropped(path string, body, kept any) []string {
	var out []string
	switch b := body.(type) {
	case map[string]any:
		k, _ := kept.(map[string]any)
		for _, name := range slices.Sorted(func(yield func(string) bool) {
			for name := range b {
				if !yield(name) {
					return
				}
			}
		}) {
			v, ok := k[name]
			if !ok {
				out = append(out, path+"."+name)
				continue
			}
			out = append(out, contractDropped(path+"."+name, b[name], v)...)
		}
	case []any:
		k, _ := kept.([]any)
		for i, item := range b {
			if i >= len(k) {
				out = append(out, fmt.Sprintf("%s[%d]", path, i))
				continue
			}
			out = append(out, contractDropped(fmt.Sprintf("%s[%d]", path, i), item, k[i])...)
		}
	}
	return out
}

// contractEnvelope returns what a body of only {"data": ...} holds, when
// the SDK type the method returns is not the envelope (has no "data"
// field) but what it holds.
func contractEnvelope(body any, typ reflect.Type) (any, bool) {
	m, ok := body.(map[string]any)
	if !ok || len(m) != 1 || typ.Kind() != reflect.Struct {
		return nil, false
	}
	data, ok := m["data"]
	if !ok {
		return nil, false
	}
	for i := range typ.NumField() {
		if name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ","); name == "data" {
			return nil, false
		}
	}
	return data, true
}

// contractSDKTypes maps each operation ("METHOD PATH") that an SDK method of
// package platform calls to the type its response decodes into: the
// method's result, found by the method's "// API:" doc line
// (conventions_test.go holds one method to each row), or the slice it
// returns for a list the API sends as a bare array (or the map for an
// object keyed by name). A method that returns
// only an error maps to no type.
var contractSDKTypes = func() func(testing.TB) map[string]reflect.Type {
	var (
		once  sync.Once
		types map[string]reflect.Type
		err   error
	)
	return func(t testing.TB) map[string]reflect.Type {
		t.Helper()
		once.Do(func() { types, err = loadSDKTypes() })
		if err != nil {
			t.Fatal(err)
		}
		return types
	}
}()

// contractAPILine is the last line of an SDK method's doc comment.
var contractAPILine = regexp.MustCompile(`(?m)^API: ([A-Z]+ /\S*)\s*$`)

func loadSDKTypes() (map[string]reflect.Type, error) {
	files, err := filepath.Glob("../*.go")
	if err != nil {
		return nil, err
	}
	methods := map[string]string{} // "Service.Method" -> "METHOD PATH"
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || fn.Doc == nil {
				continue
			}
			star, ok := fn.Recv.List[0].Type.(*ast.StarExpr)
			if !ok {
				continue
			}
			recv, ok := star.X.(*ast.Ident)
			if m := contractAPILine.FindStringSubmatch(fn.Doc.Text()); ok && m != nil {
				methods[recv.Name+"."+fn.Name.Name] = m[1]
			}
		}
	}
	types := map[string]reflect.Type{}
	client := reflect.TypeFor[platform.Client]()
	for i := range client.NumField() {
		svc := client.Field(i).Type
		if svc.Kind() != reflect.Pointer || !client.Field(i).IsExported() {
			continue
		}
		for j := range svc.NumMethod() {
			m := svc.Method(j)
			op, ok := methods[svc.Elem().Name()+"."+m.Name]
			if !ok {
				continue
			}
			switch out := m.Type.Out(0); out.Kind() {
			case reflect.Pointer:
				types[op] = out.Elem()
			case reflect.Slice, reflect.Map:
				types[op] = out
			default:
				types[op] = nil
			}
		}
	}
	if len(types) == 0 {
		return nil, fmt.Errorf("found no SDK method with an // API: line in ../*.go")
	}
	return types, nil
}

// contractRequest is one request of a contract state: an operation and the
// request sent for it.
type contractRequest struct {
	op   string
	call opCall
}

// contractState is a state of the world that changes the shape of bodies
// (a pending database, a failed backup, a closed deploy request), with the
// requests that show it.
type contractState struct {
	name string
	// world makes the world; newOpWorld when nil.
	world func(t *testing.T) *opWorld
	// setup brings the world to the state and returns the requests.
	setup func(w *opWorld) []contractRequest
}

// contractOn is a request of op with the given path values.
func contractOn(op string, kv ...string) contractRequest {
	vals := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		vals[kv[i]] = kv[i+1]
	}
	return contractRequest{op: op, call: opCall{vals: vals}}
}

// contractKeyspaceResizeReads are the reads that show resize request id
// of app's default keyspace on dev.
func contractKeyspaceResizeReads(id string) []contractRequest {
	on := []string{"branch", "dev", "keyspace", drDB}
	return []contractRequest{
		contractOn("get_keyspace_resize_request", append(on, "id", id)...),
		contractOn("list_keyspace_resize_requests", on...),
		contractOn("get_keyspace_rollout_status", on...),
		contractOn("get_keyspace", on...),
	}
}

// contractDeployReads are the reads that show deploy request 1 of app.
func contractDeployReads() []contractRequest {
	return []contractRequest{
		contractOn("get_deploy_request", "number", "1"),
		contractOn("get_deployment", "number", "1"),
		contractOn("list_deploy_requests"),
		contractOn("list_deploy_operations", "number", "1"),
		contractOn("list_deploy_request_reviews", "number", "1"),
		contractOn("get_deploy_queue"),
	}
}

// contractBackupReads are the reads that show the backups of dev, the
// deleted ones too, of which one must be in state want.
func contractBackupReads(w *opWorld, want platform.BackupState) []contractRequest {
	w.t.Helper()
	reqs := []contractRequest{
		contractOn("list_backups", "branch", "dev"),
		{op: "list_backups", call: opCall{vals: map[string]string{"branch": "dev"}, query: "include_deleted=true"}},
	}
	var states []platform.BackupState
	for _, bk := range opCollect(w.t, w.c.Backups.All(w.t.Context(), &platform.ListBackupsParams{Organization: w.org, Database: drDB, Branch: "dev", IncludeDeleted: true})) {
		states = append(states, bk.State)
		if bk.DeletedAt == nil {
			reqs = append(reqs, contractOn("get_backup", "branch", "dev", "id", bk.ID))
		}
	}
	if !slices.Contains(states, want) {
		w.t.Fatalf("the backups of dev are %v, none %s", states, want)
	}
	return reqs
}

// contractStates are the states the contract tests hold to the schema on
// top of the fixtures' (each deploy request and deployment state is in
// contractDeployStates).
var contractStates = []contractState{
	{name: "prices", setup: func(*opWorld) []contractRequest {
		rates := func(op string) contractRequest {
			return contractRequest{op: op, call: opCall{vals: map[string]string{"branch": "dev"}, query: "rates=true"}}
		}
		return []contractRequest{rates("list_cluster_size_skus"), rates("list_branch_cluster_size_skus")}
	}},
	{name: "postgresql connections", setup: func(w *opWorld) []contractRequest {
		// Instances and no topology; a transaction, a query its lock
		// blocks (wait events, blocked_by) and an idle session.
		w.postgresApp()
		open := func(spec fake.SessionSpec) string {
			id, err := w.srv.OpenSession(w.org, drDB, "main", spec)
			if err != nil {
				w.t.Fatal(err)
			}
			return id
		}
		blocker := open(fake.SessionSpec{Application: "psql", Host: "192.0.2.9", Query: "update t set x = 1", QueryDuration: time.Second, InTransaction: true})
		open(fake.SessionSpec{Query: "update t set x = 2", BlockedBy: blocker})
		open(fake.SessionSpec{User: "idle"})
		w.srv.Advance(2 * time.Second)
		return []contractRequest{contractOn("list_branch_connections", "branch", "main")}
	}},
	{name: "mysql connections, sleeping and from recorded traffic", setup: func(w *opWorld) []contractRequest {
		if _, err := w.srv.OpenSession(w.org, drDB, "main", fake.SessionSpec{User: "idle"}); err != nil {
			w.t.Fatal(err)
		}
		w.traffic()
		return []contractRequest{contractOn("list_branch_connections", "branch", "main"), contractOn("list_processlist", "branch", "main")}
	}},
	{name: "pending and ready databases", setup: func(w *opWorld) []contractRequest {
		if _, err := w.c.Databases.Create(w.t.Context(), &platform.CreateDatabaseParams{Organization: w.org, Name: "fresh", ClusterSize: "PS_10"}); err != nil {
			w.t.Fatal(err)
		}
		return []contractRequest{
			contractOn("get_database", "database", "fresh"),
			contractOn("get_database"),
			contractOn("list_databases"),
			contractOn("list_branches", "database", "fresh"),
			contractOn("get_branch", "database", "fresh", "branch", "main"),
			contractOn("list_keyspaces", "database", "fresh", "branch", "main"),
		}
	}},
	{name: "data import ready, and a failed one", setup: func(w *opWorld) []contractRequest {
		opImport(time.Minute+10*time.Second, (*platform.DataImportsService).MakePrimary, (*platform.DataImportsService).Detach)(w, "")
		ctx := w.t.Context()
		if _, err := w.c.DataImports.Start(ctx, &platform.StartDataImportParams{
			Organization: w.org, DatabaseName: "failing",
			Connection: platform.DataImportConnection{Hostname: opImportHost, Database: "legacy", Username: "u"},
		}); err != nil {
			w.t.Fatal(err)
		}
		imp, err := w.c.DataImports.Get(ctx, &platform.GetDataImportParams{Organization: w.org, Database: "failing"})
		if err != nil {
			w.t.Fatal(err)
		}
		if err := w.srv.FailNext(imp.ID); err != nil {
			w.t.Fatal(err)
		}
		w.srv.Advance(time.Minute)
		return []contractRequest{
			contractOn("get_data_import"), contractOn("get_database"),
			contractOn("get_data_import", "database", "failing"), contractOn("get_database", "database", "failing"),
		}
	}},
	{name: "backup pending", setup: func(w *opWorld) []contractRequest {
		contractBackup(w)
		return contractBackupReads(w, platform.BackupPending)
	}},
	{name: "backup running", setup: func(w *opWorld) []contractRequest {
		contractBackup(w)
		w.srv.Advance(fake.DefaultTimings().BackupStart)
		return contractBackupReads(w, platform.BackupRunning)
	}},
	{name: "backup success", setup: func(w *opWorld) []contractRequest {
		w.backup("dev")
		return contractBackupReads(w, platform.BackupSuccess)
	}},
	{name: "backup failed", setup: func(w *opWorld) []contractRequest {
		if err := w.srv.FailNext(contractBackup(w)); err != nil {
			w.t.Fatal(err)
		}
		tm := fake.DefaultTimings()
		w.srv.Advance(tm.BackupStart + tm.BackupRun)
		return contractBackupReads(w, platform.BackupFailed)
	}},
	{name: "backup canceled", setup: func(w *opWorld) []contractRequest {
		id := contractBackup(w)
		w.srv.Advance(fake.DefaultTimings().BackupStart)
		if err := w.c.Backups.Delete(w.t.Context(), &platform.GetBackupParams{Organization: w.org, Database: drDB, Branch: "dev", ID: id}); err != nil {
			w.t.Fatal(err)
		}
		return contractBackupReads(w, platform.BackupCanceled)
	}},
	{name: "backup ignored, of a policy", setup: func(w *opWorld) []contractRequest {
		p, err := w.c.BackupPolicies.Create(w.t.Context(), &platform.CreateBackupPolicyParams{
			Organization: w.org, Database: drDB, Name: "hourly", Target: "development",
			RetentionValue: 1, RetentionUnit: "day", FrequencyValue: 1, FrequencyUnit: "hour",
		})
		if err != nil {
			w.t.Fatal(err)
		}
		// The run finds a backup of dev in progress.
		w.srv.Advance(p.NextRunAt.Sub(w.srv.Now()) - time.Second)
		contractBackup(w)
		w.srv.Advance(time.Second)
		return append(contractBackupReads(w, platform.BackupIgnored), contractOn("list_backup_policies"))
	}},
	{name: "expired role", setup: func(w *opWorld) []contractRequest {
		w.postgresBranches()
		id := w.role("dev")
		w.srv.Advance(2 * time.Hour)
		return []contractRequest{contractOn("get_role", "branch", "dev", "id", id), contractOn("list_roles", "branch", "dev")}
	}},
	{name: "switchovers pending, running and failed", setup: func(w *opWorld) []contractRequest {
		w.postgresApp()
		ctx, tm := w.t.Context(), fake.DefaultTimings()
		if _, err := w.c.Branches.Create(ctx, &platform.CreateBranchParams{Organization: w.org, Database: drDB, Name: "dev", ParentBranch: "main"}); err != nil {
			w.t.Fatal(err)
		}
		w.srv.Advance(tm.BranchReady)
		start := func(branch string) string {
			sw, err := w.c.Switchovers.Create(ctx, &platform.CreateSwitchoverParams{Organization: w.org, Database: drDB, Branch: branch})
			if err != nil {
				w.t.Fatal(err)
			}
			return sw.ID
		}
		failed := start("main")
		if err := w.srv.FailNext(failed); err != nil {
			w.t.Fatal(err)
		}
		w.srv.Advance(tm.SwitchoverStart)
		running := start("main")
		w.srv.Advance(tm.SwitchoverStart)
		pending := start("dev")
		return []contractRequest{
			contractOn("get_switchover", "branch", "main", "id", failed),
			contractOn("get_switchover", "branch", "main", "id", running),
			contractOn("list_switchovers", "branch", "main"),
			contractOn("get_switchover", "branch", "dev", "id", pending),
		}
	}},
	{name: "a switchover succeeded: a PostgreSQL branch's primary promoted", setup: func(w *opWorld) []contractRequest {
		w.postgresApp()
		tm := fake.DefaultTimings()
		sw, err := w.c.Switchovers.Create(w.t.Context(), &platform.CreateSwitchoverParams{Organization: w.org, Database: drDB, Branch: "main"})
		if err != nil {
			w.t.Fatal(err)
		}
		w.srv.Advance(tm.SwitchoverStart + tm.SwitchoverRun)
		return []contractRequest{
			contractOn("get_switchover", "branch", "main", "id", sw.ID),
			contractOn("get_branch_infrastructure", "branch", "main"),
		}
	}},
	{name: "planned reparents pending, running, failed and completed; a shard with tablet controls and a moved primary", setup: func(w *opWorld) []contractRequest {
		ctx, tm := w.t.Context(), fake.DefaultTimings()
		start := func() string {
			op, err := w.c.Vitess.CreatePlannedReparent(ctx, &platform.CreatePlannedReparentParams{Organization: w.org, Database: drDB, Branch: "main", Keyspace: "app", Shard: "-", NewPrimary: w.replicaOf("main")})
			if err != nil {
				w.t.Fatal(err)
			}
			return op.ID
		}
		failed := start()
		if err := w.srv.FailNext(failed); err != nil {
			w.t.Fatal(err)
		}
		w.srv.Advance(tm.VitessOperationStart)
		w.srv.Advance(tm.PlannedReparent)
		completed := start()
		w.srv.Advance(tm.VitessOperationStart + tm.PlannedReparent)
		running := start()
		w.srv.Advance(tm.VitessOperationStart)
		for _, p := range []*platform.SetShardTabletControlParams{
			{TabletType: platform.TabletRDOnly, DeniedTables: []string{"t1", "t2"}, Cells: []string{"us-east"}},
			{TabletType: platform.TabletPrimary, DisableQueryService: platform.Ptr(true)},
		} {
			p.Organization, p.Database, p.Branch, p.Keyspace, p.Shard = w.org, drDB, "main", "app", "-"
			if _, err := w.c.Vitess.SetShardTabletControl(ctx, p); err != nil {
				w.t.Fatal(err)
			}
		}
		shard := contractRequest{op: "vtctld_get_shard", call: opCall{vals: map[string]string{"branch": "main"}, query: "keyspace=app&shard=-"}}
		out := []contractRequest{shard, contractOn("list_tablets", "branch", "main")}
		for _, id := range []string{failed, completed, running} {
			out = append(out, contractOn("get_planned_reparent", "branch", "main", "id", id), contractOn("vtctld_get_operation", "branch", "main", "id", id))
		}
		return out
	}},
	{name: "MoveTables operations: pending, failed, completed with each result; streams stopped, with logs", setup: func(w *opWorld) []contractRequest {
		ctx := w.t.Context()
		opMoveTables("running", "")(w, "")
		ids := []string{}
		act := func(ref *platform.VitessOperationRef, err error) {
			w.t.Helper()
			if err != nil {
				w.t.Fatal(err)
			}
			ids = append(ids, ref.ID)
			if _, err := w.c.Vitess.WaitOperation(ctx, &platform.GetVitessOperationParams{Organization: w.org, Database: drDB, Branch: "main", ID: ref.ID}); err != nil {
				w.t.Fatal(err)
			}
		}
		sw := func(dry bool, types ...string) (*platform.VitessOperationRef, error) {
			return w.c.Vitess.SwitchTraffic(ctx, &platform.SwitchTrafficParams{Organization: w.org, Database: drDB, Branch: "main", Workflow: mtWorkflow, TargetKeyspace: "archive", TabletTypes: types, DryRun: platform.Ptr(dry)})
		}
		act(sw(true))
		act(sw(false))
		act(w.c.Vitess.CompleteMoveTables(ctx, &platform.CompleteMoveTablesParams{Organization: w.org, Database: drDB, Branch: "main", Workflow: mtWorkflow, TargetKeyspace: "archive", DryRun: platform.Ptr(true)}))
		act(w.c.Vitess.ReverseTraffic(ctx, &platform.ReverseTrafficParams{Organization: w.org, Database: drDB, Branch: "main", Workflow: mtWorkflow, TargetKeyspace: "archive"}))
		failed, err := sw(false)
		if err != nil {
			w.t.Fatal(err)
		}
		if err := w.srv.FailNext(failed.ID); err != nil {
			w.t.Fatal(err)
		}
		w.srv.Advance(time.Minute)
		act(w.c.Vitess.CancelMoveTables(ctx, &platform.CancelMoveTablesParams{Organization: w.org, Database: drDB, Branch: "main", Workflow: mtWorkflow, TargetKeyspace: "archive"}))
		pending, err := w.c.Vitess.CreateMoveTables(ctx, &platform.CreateMoveTablesParams{Organization: w.org, Database: drDB, Branch: "main", Workflow: "again", SourceKeyspace: drDB, TargetKeyspace: "archive", Tables: []string{"users"}})
		if err != nil {
			w.t.Fatal(err)
		}
		out := []contractRequest{}
		for _, id := range append(ids, failed.ID, pending.ID) {
			out = append(out, contractOn("vtctld_get_operation", "branch", "main", "id", id))
		}
		return out
	}},
	{name: "routing rules set both ways; throttler checks over a threshold and denied, apps with metrics", setup: func(w *opWorld) []contractRequest {
		ctx := w.t.Context()
		if _, err := w.c.Branches.UpdateRoutingRules(ctx, &platform.UpdateRoutingRulesParams{Organization: w.org, Database: drDB, Branch: "main",
			RoutingRules: `{"rules":[{"from_table":"t","to_tables":["app.t2"]}]}`}); err != nil {
			w.t.Fatal(err)
		}
		opVtctldControl("")(w, "")
		primary, replica := w.tabletOf("main", platform.TabletPrimary), w.tabletOf("main", platform.TabletReplica)
		check := func(app string) contractRequest {
			return contractRequest{op: "vtctld_check_throttler", call: opCall{vals: map[string]string{"branch": "main"}, body: `{"tablet_alias":"` + primary + `","app_name":"` + app + `"}`}}
		}
		if _, err := w.c.Vitess.UpdateThrottlerConfig(ctx, &platform.UpdateThrottlerConfigParams{Organization: w.org, Database: drDB, Branch: "main", Keyspace: "app",
			Threshold: platform.Ptr(1.5), AppCheckedMetrics: map[string][]string{"vreplication": {"lag", "self/loadavg", "threads_running"}}}); err != nil {
			w.t.Fatal(err)
		}
		return []contractRequest{
			contractOn("vtctld_get_routing_rules", "branch", "main"), contractOn("vtctld_get_keyspace_routing_rules", "branch", "main"),
			{op: "vtctld_get_throttler_status", call: opCall{vals: map[string]string{"branch": "main"}, query: "tablet_alias=" + primary}},
			{op: "vtctld_get_throttler_status", call: opCall{vals: map[string]string{"branch": "main"}, query: "tablet_alias=" + replica}},
			check("vreplication"), check("online-ddl"),
		}
	}},
	{name: "workflows with every actor, retried, cancelled and in error, verified with differences found", setup: func(w *opWorld) []contractRequest {
		wfSetup(w.t, w.srv, "main")
		// Differences for the verification to find: its reports hold
		// sample rows and their queries.
		if err := w.srv.SetVDiffDifferences(w.org, drDB, "main", wfTarget, "audit", fake.VDiffDifferences{
			Mismatched: []string{"1", "2"}, ExtraSource: []string{"3"}, ExtraTarget: []string{"4"},
		}); err != nil {
			w.t.Fatal(err)
		}
		p := wfCreate(w.srv)
		p.GlobalKeyspace = platform.Ptr(drDB)
		wfDrive(w.t, w.srv, w.c, p, platform.WorkflowVerifiedData)
		wfSteps(w.t, w.c, wfRef(w.srv, 1), "switch-replicas", "wait:switched_replicas", "switch-primaries", "wait:switched_primaries",
			"reverse-traffic", "wait:switched_replicas", "switch-primaries", "wait:switched_primaries", "cutover", "wait:cutover",
			"reverse-cutover", "switch-replicas", "wait:switched_replicas", "switch-primaries", "wait:switched_primaries",
			"cutover", "wait:cutover", "complete")
		for _, name := range []string{"retried", "failed"} {
			p := wfCreate(w.srv)
			p.Name, p.Tables = name, []string{"users"}
			wf := wfDrive(w.t, w.srv, w.c, p, platform.WorkflowPending)
			if err := w.srv.FailNext(wf.ID); err != nil {
				w.t.Fatal(err)
			}
			wfSteps(w.t, w.c, wfRef(w.srv, wf.Number), "wait:error")
			if name == "retried" {
				wfSteps(w.t, w.c, wfRef(w.srv, wf.Number), "retry", "cancel", "wait:cancelled")
			}
		}
		return []contractRequest{
			contractOn("get_workflow", "number", "1"), contractOn("get_workflow", "number", "2"),
			contractOn("get_workflow", "number", "3"), contractOn("list_workflows"),
		}
	}},
	{name: "maintenance window running", setup: func(w *opWorld) []contractRequest {
		w.postgresApp()
		if err := w.c.Maintenance.Run(w.t.Context(), &platform.RunBranchMaintenanceParams{Organization: w.org, Database: drDB, Branch: "main"}); err != nil {
			w.t.Fatal(err)
		}
		return []contractRequest{contractOn("list_maintenance_windows", "id", w.maintenanceSchedule()), contractOn("get_maintenance_schedule", "id", w.maintenanceSchedule())}
	}},
	{name: "passwords: expired, without a ttl, with cidrs, replica, direct VTGate", setup: func(w *opWorld) []contractRequest {
		expired := w.password("dev", platform.PasswordReader)
		w.srv.Advance(2 * time.Hour)
		pw, err := w.c.Passwords.Create(w.t.Context(), &platform.CreatePasswordParams{
			Organization: w.org, Database: drDB, Branch: "main", Replica: platform.Ptr(true),
			CIDRs: []string{"192.0.2.0/24", "2001:db8::1"}, DirectVTGate: platform.Ptr(true),
		})
		if err != nil {
			w.t.Fatal(err)
		}
		return []contractRequest{
			contractOn("get_password", "branch", "dev", "id", expired), contractOn("list_passwords", "branch", "dev"),
			contractOn("get_password", "branch", "main", "id", pw.ID), contractOn("list_passwords", "branch", "main"),
		}
	}},
	{name: "IP restriction with a schema, role and description", setup: func(w *opWorld) []contractRequest {
		w.postgresApp()
		r, err := w.c.IPRestrictions.Create(w.t.Context(), &platform.CreateIPRestrictionParams{
			Organization: w.org, Database: drDB, CIDRs: []string{"192.0.2.0/24", "198.51.100.7"},
			Schema: platform.Ptr("reports"), Role: platform.Ptr("analyst"), Description: platform.Ptr("office"),
		})
		if err != nil {
			w.t.Fatal(err)
		}
		return []contractRequest{contractOn("get_database_postgres_cidr", "id", r.ID), contractOn("list_database_postgres_cidrs")}
	}},
	{name: "restored branch", setup: func(w *opWorld) []contractRequest {
		if _, err := w.c.Branches.Create(w.t.Context(), &platform.CreateBranchParams{
			Organization: w.org, Database: drDB, Name: "restored", BackupID: w.backup("dev"), ClusterSize: "PS_10",
		}); err != nil {
			w.t.Fatal(err)
		}
		return []contractRequest{contractOn("get_branch", "branch", "restored"), contractOn("list_branches")}
	}},
	{name: "sharded keyspace", setup: func(w *opWorld) []contractRequest {
		if err := w.srv.AddKeyspace(w.org, drDB, "dev", "sharded", 4); err != nil {
			w.t.Fatal(err)
		}
		return []contractRequest{
			contractOn("get_keyspace", "branch", "dev", "keyspace", "sharded"), contractOn("list_keyspaces", "branch", "dev"),
			contractOn("get_keyspace_rollout_status", "branch", "dev", "keyspace", "sharded"),
		}
	}},
	{name: "webhook with events", setup: func(w *opWorld) []contractRequest {
		h, err := w.c.Webhooks.Create(w.t.Context(), &platform.CreateWebhookParams{
			Organization: w.org, Database: drDB, URL: "https://hooks.example.com/events", Events: platform.AllWebhookEvents(),
		})
		if err != nil {
			w.t.Fatal(err)
		}
		return []contractRequest{contractOn("get_webhook", "id", h.ID), contractOn("list_webhooks")}
	}},
	{name: "service token with accesses", setup: func(w *opWorld) []contractRequest {
		id := w.serviceToken()
		if _, err := w.c.ServiceTokens.AddAccesses(w.t.Context(), &platform.AddServiceTokenAccessesParams{
			Organization: w.org, ID: id, Access: []platform.Permission{platform.PermissionReadOrganization, platform.PermissionCreateDatabases},
		}); err != nil {
			w.t.Fatal(err)
		}
		return []contractRequest{
			contractOn("get_service_token", "id", id), contractOn("list_service_tokens"),
			contractOn("list_service_token_accesses", "id", id), contractOn("list_service_token_grants", "id", id),
		}
	}},
	{name: "OAuth token with accesses", setup: func(w *opWorld) []contractRequest {
		app := oauthApp(w.t, w.srv, "https://app.example.com/cb", platform.ScopeUserReadUser, platform.ScopeOrganizationReadDatabases)
		oauthIssue(w.t, w.srv, app, fake.Consent{})
		return []contractRequest{
			contractOn("get_oauth_token", "application_id", app.ID, "token_id", w.oauthTokenID(app)),
			contractOn("list_oauth_tokens", "application_id", app.ID),
		}
	}},
	{name: "reviewed deploy request", setup: func(w *opWorld) []contractRequest {
		opFixtures["review_deploy_request"](w, "")
		for _, state := range []string{"approved", "commented"} {
			wantStatus(w.t, send(w.t, w.srv, http.MethodPost, "/v1/organizations/"+w.org+"/databases/"+drDB+"/deploy-requests/1/reviews", admin(w.srv), `{"state":"`+state+`","body":"noted"}`), http.StatusCreated)
		}
		return contractDeployReads()
	}},
	{name: "PostgreSQL branch configuration", setup: func(w *opWorld) []contractRequest {
		if _, err := w.c.Databases.Create(w.t.Context(), &platform.CreateDatabaseParams{Organization: w.org, Name: "pg", Kind: platform.KindPostgreSQL}); err != nil {
			w.t.Fatal(err)
		}
		w.srv.Advance(fake.DefaultTimings().DatabaseReady)
		var reqs []contractRequest
		for _, op := range []string{"list_parameters", "list_extensions", "get_branch_infrastructure", "list_branch_cluster_size_skus"} {
			reqs = append(reqs, contractOn(op, "database", "pg", "branch", "main"))
		}
		return append(reqs, contractRequest{op: "list_cluster_size_skus", call: opCall{vals: map[string]string{}}})
	}},
	{name: "branch resizes and changes queued, resizing, completed and canceled", setup: func(w *opWorld) []contractRequest {
		if _, err := w.c.Databases.Create(w.t.Context(), &platform.CreateDatabaseParams{Organization: w.org, Name: "pg", Kind: platform.KindPostgreSQL}); err != nil {
			w.t.Fatal(err)
		}
		tm := fake.DefaultTimings()
		w.srv.Advance(tm.DatabaseReady)
		resize, change := w.resize("dev"), w.change("main")
		pg, err := w.c.BranchChanges.UpdateChange(w.t.Context(), &platform.UpdateBranchChangeRequestParams{
			Organization: w.org, Database: "pg", Branch: "main", Replicas: platform.Ptr(3),
			Parameters: map[platform.ParameterNamespace]map[string]string{platform.NamespacePgconf: {"max_connections": "200"}},
			Storage:    &platform.BranchStorage{StorageIOPS: platform.Ptr(6000)},
		})
		if err != nil {
			w.t.Fatal(err)
		}
		reads := []contractRequest{
			contractOn("get_branch_resize_request", "branch", "dev", "resize", resize), contractOn("list_branch_resize_requests", "branch", "dev"),
			contractOn("get_branch_change_request", "branch", "main", "id", change), contractOn("list_branch_change_requests", "branch", "main"),
			contractOn("get_branch_change_request", "database", "pg", "branch", "main", "id", pg.ID),
			contractOn("get_branch", "database", "pg", "branch", "main"), contractOn("get_database", "database", "pg"),
			contractOn("get_keyspace", "database", "pg", "branch", "main", "keyspace", "pg"),
			contractOn("list_parameters", "database", "pg", "branch", "main"),
		}
		check := func() {
			for _, r := range reads {
				contractCheck(w.t, w, r.op, r.call, loadOperations(w.t)[r.op])
			}
		}
		check() // queued
		w.srv.Advance(tm.BranchChangeStart)
		check() // resizing
		if err := w.c.BranchChanges.CancelChange(w.t.Context(), &platform.CancelBranchChangeRequestParams{Organization: w.org, Database: drDB, Branch: "main"}); err != nil {
			w.t.Fatal(err)
		}
		w.srv.Advance(tm.BranchChangeRun)
		return reads // completed and canceled
	}},
	{name: "keyspace resize resizing", setup: func(w *opWorld) []contractRequest {
		id := w.keyspaceResize("dev")
		w.srv.Advance(fake.DefaultTimings().KeyspaceResizeQueued)
		return contractKeyspaceResizeReads(id)
	}},
	{name: "keyspace resize completed", setup: func(w *opWorld) []contractRequest {
		id := w.keyspaceResize("dev")
		tm := fake.DefaultTimings()
		w.srv.Advance(tm.KeyspaceResizeQueued + tm.KeyspaceResizeShard)
		return contractKeyspaceResizeReads(id)
	}},
	{name: "keyspace resize canceled", setup: func(w *opWorld) []contractRequest {
		id := w.keyspaceResize("dev")
		if err := w.c.Keyspaces.CancelResize(w.t.Context(), &platform.CancelKeyspaceResizeParams{Organization: w.org, Database: drDB, Branch: "dev", Keyspace: drDB}); err != nil {
			w.t.Fatal(err)
		}
		return contractKeyspaceResizeReads(id)
	}},
	{name: "read-only regions provisioning and ready", setup: func(w *opWorld) []contractRequest {
		w.readOnlyRegion("eu-west")
		reads := []contractRequest{
			contractOn("list_read_only_regions"), contractOn("get_branch_infrastructure", "branch", "main"),
			contractOn("get_keyspace", "branch", "main", "keyspace", drDB),
		}
		for _, r := range reads {
			contractCheck(w.t, w, r.op, r.call, loadOperations(w.t)[r.op])
		}
		w.srv.Advance(fake.DefaultTimings().ReadOnlyRegionReady)
		return reads
	}},
	{name: "bouncer resizes resizing, completed and canceled, of a deleted bouncer", setup: func(w *opWorld) []contractRequest {
		tm := fake.DefaultTimings()
		w.bouncer("pool")
		ctx := w.t.Context()
		resize := func(bouncer, size string) {
			if _, err := w.c.Bouncers.Resize(ctx, &platform.ResizeBouncerParams{Organization: w.org, Database: drDB, Branch: "main", Bouncer: bouncer, BouncerSize: platform.Ptr(size)}); err != nil {
				w.t.Fatal(err)
			}
		}
		resize("pool", "PGB_10")
		w.srv.Advance(tm.BouncerResizeStart + tm.BouncerResize) // completed
		resize("pool", "PGB_20")
		if err := w.c.Bouncers.CancelResize(ctx, &platform.CancelBouncerResizeParams{Organization: w.org, Database: drDB, Branch: "main", Bouncer: "pool"}); err != nil {
			w.t.Fatal(err)
		}
		resize("pool", "PGB_40")
		w.srv.Advance(tm.BouncerResizeStart) // resizing
		reads := []contractRequest{
			contractOn("list_bouncer_resize_requests", "branch", "main", "bouncer", "pool"),
			contractOn("get_bouncer", "branch", "main", "bouncer", "pool"),
			contractOn("list_bouncers", "branch", "main"),
			contractOn("get_branch_infrastructure", "branch", "main"),
		}
		for _, r := range reads {
			contractCheck(w.t, w, r.op, r.call, loadOperations(w.t)[r.op])
		}
		if err := w.c.Bouncers.Delete(ctx, &platform.DeleteBouncerParams{Organization: w.org, Database: drDB, Branch: "main", Bouncer: "pool"}); err != nil {
			w.t.Fatal(err)
		}
		return []contractRequest{contractOn("list_branch_bouncer_resize_requests", "branch", "main")}
	}},
	{name: "query-patterns reports pending, completed and failed", setup: func(w *opWorld) []contractRequest {
		w.traffic()
		create := func() string {
			r, err := w.c.QueryPatternReports.Create(w.t.Context(), &platform.CreateQueryPatternsReportParams{Organization: w.org, Database: drDB, Branch: "main"})
			if err != nil {
				w.t.Fatal(err)
			}
			return r.ID
		}
		failed := create()
		if err := w.srv.FailNext(failed); err != nil {
			w.t.Fatal(err)
		}
		completed := create()
		w.srv.Advance(fake.DefaultTimings().QueryPatternsReport)
		pending := create()
		return []contractRequest{
			contractOn("get_query_patterns_report_status", "branch", "main", "id", failed),
			contractOn("get_query_patterns_report_status", "branch", "main", "id", completed),
			contractOn("get_query_patterns_report_status", "branch", "main", "id", pending),
			contractOn("list_generated_query_patterns_reports", "branch", "main"),
		}
	}},
	{name: "metrics of a branch without queries", setup: func(w *opWorld) []contractRequest {
		var out []contractRequest
		for _, op := range []string{"get_branch_metrics", "get_instant_branch_metrics", "get_branch_keyspace_table_metrics", "get_branch_query_metrics",
			"get_branch_table_metrics", "get_tablet_metrics", "get_instant_tablet_metrics", "get_branch_tag_metrics", "list_generated_query_patterns_reports"} {
			out = append(out, contractOn(op, "branch", "main"))
		}
		return out
	}},
	{name: "schema recommendations open, dismissed, stale and applied", setup: func(w *opWorld) []contractRequest {
		contractRecommendations(w)
		return []contractRequest{
			contractOn("list_schema_recommendations"),
			contractOn("get_schema_recommendation", "number", "1"),
			contractOn("get_schema_recommendation", "number", "2"),
			contractOn("get_schema_recommendation", "number", "3"),
			contractOn("get_schema_recommendation", "number", "4"),
			contractOn("get_database"),
			contractOn("get_deploy_request_throttler", "number", "1"),
			contractOn("get_deployment", "number", "1"),
			contractOn("check_deploy_request_storage", "number", "1"),
		}
	}},
	{name: "empty diffs, a deployed deploy request's diff, sharded and set VSchemas", setup: func(w *opWorld) []contractRequest {
		w.branch("same")
		w.open(platform.CreateDeployRequestParams{Branch: "same"}) // no changes: number 1
		w.takeSteps(w.open(platform.CreateDeployRequestParams{Branch: "dev"}), toPendingRevert)
		if err := w.srv.AddKeyspace(w.org, drDB, "dev", "sharded", 2); err != nil {
			w.t.Fatal(err)
		}
		w.srv.Advance(time.Minute)
		if _, err := w.c.Branches.UpdateRoutingRules(w.t.Context(), &platform.UpdateRoutingRulesParams{
			Organization: w.org, Database: drDB, Branch: "same", RoutingRules: `{"rules":[{"from_table":"a","to_tables":["app.a"]}]}`,
		}); err != nil {
			w.t.Fatal(err)
		}
		return []contractRequest{
			contractOn("diff_branch", "branch", "same"),
			contractOn("get_deploy_request_diff", "number", "1"),
			contractOn("get_deploy_request_diff", "number", "2"),
			contractOn("get_keyspace_vschema", "branch", "dev", "keyspace", "sharded"),
			contractOn("get_branch_routing_rules", "branch", "same"),
		}
	}},
	{name: "audit log: a middle page, an empty page, a user's change", setup: func(w *opWorld) []contractRequest {
		access := oauthGrant(w.t, w.srv, fake.Consent{Organizations: []string{w.org}}, platform.ScopeOrganizationWriteOrganization)
		wantStatus(w.t, send(w.t, w.srv, http.MethodPatch, "/v1/organizations/"+w.org, bearer(access), `{"billing_email": "ap@example.com"}`), http.StatusOK)
		page, err := w.c.AuditLogs.List(w.t.Context(), &platform.ListAuditLogsParams{Organization: w.org, CursorParams: platform.CursorParams{Limit: 1}})
		if err != nil || !page.HasNext {
			w.t.Fatalf("first page of the audit log: %+v, %v", page, err)
		}
		return []contractRequest{
			{op: "list_audit_logs", call: opCall{query: "limit=1&starting_after=" + *page.CursorEnd}},
			{op: "list_audit_logs", call: opCall{query: "filters[]=audit_action:none.done"}},
			{op: "list_audit_logs", call: opCall{query: "limit=1"}},
		}
	}},
	{name: "an invoice billing a deleted branch, paid, and a card without a name", setup: func(w *opWorld) []contractRequest {
		if err := w.c.Branches.Delete(w.t.Context(), &platform.DeleteBranchParams{Organization: w.org, Database: drDB, Branch: "dev"}); err != nil {
			w.t.Fatal(err)
		}
		if err := w.srv.SetPaymentMethod(w.org, fake.PaymentMethod{Brand: "visa", Last4: "4242", ExpMonth: 12, ExpYear: 2030}); err != nil {
			w.t.Fatal(err)
		}
		id := w.invoice()
		return []contractRequest{
			contractOn("list_invoices"), contractOn("get_invoice", "id", id),
			contractOn("get_invoice_line_items", "id", id), contractOn("get_organization_billing_payment_method"),
		}
	}},
	{name: "an overdue invoice", setup: func(w *opWorld) []contractRequest {
		id := w.invoice()
		w.srv.Advance(fake.DefaultTimings().InvoiceDue)
		return []contractRequest{contractOn("list_invoices"), contractOn("get_invoice", "id", id)}
	}},
}

// contractRecommendations gives app schema recommendations in every state:
// main gets log (a unique key but no primary key: #1, dismissed), tags
// (a redundant index: #2, applied by deploy request 1 from tidy, a branch
// of main as it is then, which drops it), tmp (no primary key: #3, stale
// once dropped) and keep (no primary key: #4, open).
func contractRecommendations(w *opWorld) {
	ctx := w.t.Context()
	main := platform.DisableSafeMigrationsParams{Organization: w.org, Database: drDB, Branch: "main"}
	tags := "CREATE TABLE `tags` (id bigint NOT NULL, name varchar(64), PRIMARY KEY (id), KEY name_id (name, id))"
	steps := []func() error{
		func() error { _, err := w.c.Branches.DisableSafeMigrations(ctx, &main); return err },
		func() error {
			return w.srv.PushSchema(w.org, drDB, "main", "CREATE TABLE `log` (email varchar(64) NOT NULL, UNIQUE KEY email (email))",
				strings.Replace(tags, "PRIMARY KEY (id),", "PRIMARY KEY (id), KEY name (name),", 1),
				"CREATE TABLE `tmp` (email varchar(64) NOT NULL, UNIQUE KEY email (email))", "CREATE TABLE `keep` (email varchar(64) NOT NULL, UNIQUE KEY email (email))")
		},
		func() error {
			_, err := w.c.SchemaRecommendations.Dismiss(ctx, &platform.DismissSchemaRecommendationParams{Organization: w.org, Database: drDB, Number: 1})
			return err
		},
		func() error { return w.srv.PushSchema(w.org, drDB, "main", "DROP TABLE `tmp`") },
		func() error { _, err := w.c.Branches.EnableSafeMigrations(ctx, &main); return err },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			w.t.Fatal(err)
		}
	}
	w.branch("tidy", tags)
	w.takeSteps(w.open(platform.CreateDeployRequestParams{Branch: "tidy"}), toPendingRevert)
}

// TestContractStates holds the bodies of each of contractStates to the
// schema.
func TestContractStates(t *testing.T) {
	t.Parallel()
	for _, st := range contractStates {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			var w *opWorld
			if st.world != nil {
				w = st.world(t)
			} else {
				w = newOpWorld(t)
			}
			contractRun(t, w, st.setup)
		})
	}
}

// TestContractDeployStates holds the bodies of a deploy request and its
// deployment in each state of the deploy machine (every walk of walkRows)
// to the schema.
func TestContractDeployStates(t *testing.T) {
	t.Parallel()
	for _, row := range walkRows {
		t.Run(row.name, func(t *testing.T) {
			t.Parallel()
			contractRun(t, &opWorld{drEnv: row.walk(t)}, func(*opWorld) []contractRequest { return contractDeployReads() })
		})
	}
}

// contractRun brings w to a state with setup and holds the responses of
// the state's requests to the schema.
func contractRun(t *testing.T, w *opWorld, setup func(*opWorld) []contractRequest) {
	t.Helper()
	ops := loadOperations(t)
	for _, req := range setup(w) {
		op, ok := ops[req.op]
		if !ok {
			t.Fatalf("%s is not a row of operations.tsv", req.op)
		}
		contractCheck(t, w, req.op, req.call, op)
	}
}

// contractBackup starts a backup of dev and returns its ID.
func contractBackup(w *opWorld) string {
	w.t.Helper()
	bk, err := w.c.Backups.Create(w.t.Context(), &platform.CreateBackupParams{Organization: w.org, Database: drDB, Branch: "dev"})
	if err != nil {
		w.t.Fatal(err)
	}
	return bk.ID
}

// contractActorKeys are the properties that hold an actor.
var contractActorKeys = []string{"actor", "closed_by", "cutover_actor", "cancelled_actor", "creator", "branch_deleted_by"}

// contractActors returns the actor objects of a decoded body, by JSON path.
func contractActors(path string, v any) map[string]map[string]any {
	out := map[string]map[string]any{}
	switch v := v.(type) {
	case map[string]any:
		for k, sub := range v {
			if obj, ok := sub.(map[string]any); ok && slices.Contains(contractActorKeys, k) {
				out[path+"."+k] = obj
			}
			maps.Copy(out, contractActors(path+"."+k, sub))
		}
	case []any:
		for i, item := range v {
			maps.Copy(out, contractActors(fmt.Sprintf("%s[%d]", path, i), item))
		}
	}
	return out
}

// contractGet sends a GET with the admin token and decodes its body.
func contractGet(t *testing.T, w *opWorld, path string) map[string]any {
	t.Helper()
	r := send(t, w.srv, http.MethodGet, path, admin(w.srv), "")
	wantStatus(t, r, http.StatusOK)
	return decode[map[string]any](t, r)
}

// TestContractFixes checks each field the contract found missing (and the
// ones the service's own clients showed missing, which the reference does
// not name), in the raw bodies.
func TestContractFixes(t *testing.T) {
	t.Parallel()
	app := "/v1/organizations/acme/databases/" + drDB
	tests := []struct {
		name  string
		check func(t *testing.T, w *opWorld)
	}{
		{"type in every actor", func(t *testing.T, w *opWorld) {
			w.takeSteps(w.open(platform.CreateDeployRequestParams{Branch: "dev"}), then(toInProgress, act("cancel"), adv(time.Second)))
			w.backup("dev")
			w.budget("dev")
			w.team()
			pg := w.postgresDB("pg")
			if _, err := w.c.Roles.Create(t.Context(), &platform.CreateRoleParams{Organization: w.org, Database: "pg", Branch: "main"}); err != nil {
				t.Fatal(err)
			}
			for _, path := range []string{
				app + "/deploy-requests/1", app + "/deploy-requests/1/deployment", app + "/deploy-requests",
				app + "/branches/dev/backups", pg + "/branches/main/roles", app + "/branches/dev/traffic/budgets",
				"/v1/organizations/acme/teams", "/v1/organizations/acme/teams/core/members",
			} {
				actors := contractActors("$", contractGet(t, w, path))
				if len(actors) == 0 {
					t.Errorf("%s: no actor", path)
				}
				for at, a := range actors {
					if a["type"] != "User" {
						t.Errorf("%s: %s is %v, want type User", path, at, a)
					}
				}
			}
		}},
		{"notes of a database", func(t *testing.T, w *opWorld) {
			wantStatus(t, send(t, w.srv, http.MethodPost, "/v1/organizations/acme/databases", admin(w.srv), `{"name":"noted","notes":"audit"}`), http.StatusCreated)
			if got := contractGet(t, w, "/v1/organizations/acme/databases/noted")["notes"]; got != "audit" {
				t.Errorf("notes %v, want audit", got)
			}
		}},
		{"replicas of a branch, as its default keyspace counts them", func(t *testing.T, w *opWorld) {
			main := contractGet(t, w, app+"/branches/main")
			ks := contractGet(t, w, app+"/branches/main/keyspaces/"+drDB)
			if main["replicas"] != ks["replicas"] || main["replicas"] != 2.0 || main["has_replicas"] != true {
				t.Errorf("main: replicas %v, has_replicas %v; its keyspace %v; want 2, true, 2", main["replicas"], main["has_replicas"], ks["replicas"])
			}
			dev := contractGet(t, w, app+"/branches/dev")
			if dev["replicas"] != 0.0 || dev["has_replicas"] != false {
				t.Errorf("dev: replicas %v, has_replicas %v; want 0, false", dev["replicas"], dev["has_replicas"])
			}
		}},
		{"read_only_regions of a keyspace", func(t *testing.T, w *opWorld) {
			ks := contractGet(t, w, app+"/branches/dev/keyspaces/"+drDB)
			if got, ok := ks["read_only_regions"].([]any); !ok || len(got) != 0 {
				t.Errorf("read_only_regions %v, want an empty list", ks["read_only_regions"])
			}
		}},
		{"free_databases_remaining of an organization", func(t *testing.T, w *opWorld) {
			if got, ok := contractGet(t, w, "/v1/organizations/acme")["free_databases_remaining"]; !ok || got != 0.0 {
				t.Errorf("free_databases_remaining %v (present %v), want 0", got, ok)
			}
		}},
		{"current_default of the public regions", func(t *testing.T, w *opWorld) {
			var defaults []any
			for _, item := range contractGet(t, w, "/v1/regions?per_page=100")["data"].([]any) {
				r := item.(map[string]any)
				if r["current_default"] == true {
					defaults = append(defaults, r["slug"])
				} else if r["current_default"] != false {
					t.Errorf("region %v: current_default %v", r["slug"], r["current_default"])
				}
			}
			if diff := cmp.Diff([]any{"us-east"}, defaults); diff != "" {
				t.Errorf("default regions (-want +got):\n%s", diff)
			}
		}},
		{"resource.type of service token accesses", func(t *testing.T, w *opWorld) {
			id := w.serviceToken() // read_database on app
			if _, err := w.c.ServiceTokens.AddAccesses(t.Context(), &platform.AddServiceTokenAccessesParams{
				Organization: w.org, ID: id, Access: []platform.Permission{platform.PermissionReadOrganization},
			}); err != nil {
				t.Fatal(err)
			}
			// The token object lists its organization accesses; the access
			// list every access.
			for path, want := range map[string][]string{
				"/v1/organizations/acme/service-tokens/" + id:             {"Organization"},
				"/v1/organizations/acme/service-tokens/" + id + "/access": {"Organization", "Database"},
			} {
				body := contractGet(t, w, path)
				list, _ := body["service_token_accesses"].([]any)
				if list == nil {
					list, _ = body["data"].([]any)
				}
				var types []string
				for _, item := range list {
					a := item.(map[string]any)
					res := a["resource"].(map[string]any)
					if res["type"] != a["resource_type"] {
						t.Errorf("%s: resource %v of a %v access", path, res, a["resource_type"])
					}
					types = append(types, fmt.Sprint(res["type"]))
				}
				if diff := cmp.Diff(want, types); diff != "" {
					t.Errorf("%s: resource types (-want +got):\n%s", path, diff)
				}
			}
		}},
		{"tags[].type of traffic rules", func(t *testing.T, w *opWorld) {
			bg := w.budget("dev")
			rules := contractGet(t, w, app+"/branches/dev/traffic/budgets/"+bg.ID)["rules"].([]any)
			tag := rules[0].(map[string]any)["tags"].([]any)[0].(map[string]any)
			if tag["type"] != "TrafficTag" {
				t.Errorf("tag %v, want type TrafficTag", tag)
			}
		}},
		{"type and url_hash of lint errors", func(t *testing.T, w *opWorld) {
			if err := w.srv.PushSchema(w.org, drDB, "dev", append(slices.Clone(drLintError), "CREATE TABLE drafts (body text)")...); err != nil {
				t.Fatal(err)
			}
			lint := func() []any { return contractGet(t, w, app+"/branches/dev/schema/lint")["data"].([]any) }
			first, again := lint(), lint()
			if len(first) != 2 {
				t.Fatalf("%d lint errors, want 2: %v", len(first), first)
			}
			hashes := map[any]bool{}
			for i, item := range first {
				e := item.(map[string]any)
				hash, _ := e["url_hash"].(string)
				if e["type"] != "SchemaLintError" || len(hash) != 12 || hash != again[i].(map[string]any)["url_hash"] {
					t.Errorf("lint error %v, want type SchemaLintError and a url_hash the same on every lint", e)
				}
				hashes[hash] = true
			}
			if len(hashes) != 2 {
				t.Errorf("url_hashes %v, want one per error", hashes)
			}
		}},
		{"oauth_accesses_by_resource of service tokens, service_token_accesses of OAuth tokens", func(t *testing.T, w *opWorld) {
			st := contractGet(t, w, "/v1/organizations/acme/service-tokens/"+w.serviceToken())
			if v, ok := st["oauth_accesses_by_resource"]; !ok || v != nil {
				t.Errorf("service token: oauth_accesses_by_resource %v (present %v), want null", v, ok)
			}
			oa := w.oauthApp()
			tok := contractGet(t, w, "/v1/organizations/acme/oauth-applications/"+oa.ID+"/tokens/"+w.oauthTokenID(oa))
			if v, ok := tok["service_token_accesses"]; !ok || v != nil {
				t.Errorf("OAuth token: service_token_accesses %v (present %v), want null", v, ok)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.check(t, newOpWorld(t))
		})
	}
}
