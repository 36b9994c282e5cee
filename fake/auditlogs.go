package fake

import (
	"net"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dbplatform/platform-go"
)

// The audit log: every change made through the API is an entry of its
// organization's log, recorded once, by the pipeline (see Server.run),
// whatever the operation: its action and target are derived from the
// operation's name and path (auditShapeOf), so an operation added to the
// route table is audited without a line of its own.

// auditRec is an entry of an organization's audit log, kept compact: the
// strings share the memory of the records and request they come from, and
// the entry is rendered on read.
type auditRec struct {
	// seq orders the entries of every log; the entry's ID is derived
	// from it.
	seq   uint64
	at    time.Time
	shape *auditShape
	actor auditActor
	// dbID and dbName are the database the change was made in; "" for a
	// change to the organization.
	dbID, dbName string
	// targetID and targetName are the record changed; targetID is "" when
	// the request named it only by a name the response did not resolve.
	targetID, targetName string
	// path is the request's escaped path, whose values make the metadata.
	path     string
	remoteIP string
}

// auditActor is who made a change.
type auditActor struct {
	kind     string // "ServiceToken" or "User"
	id, name string
}

// auditLog holds the organizations' audit logs.
type auditLog struct {
	// seq is the sequence number of the last entry recorded.
	seq uint64
	// limit is how many entries each organization's log keeps; 0 keeps
	// every entry, until setLimit (a world loading from a snapshot).
	limit int
	byOrg map[*orgRec]*ring[auditRec]
}

// add records e in org's log.
func (l *auditLog) add(org *orgRec, e auditRec) {
	l.seq++
	e.seq = l.seq
	r := l.byOrg[org]
	if r == nil {
		if l.byOrg == nil {
			l.byOrg = map[*orgRec]*ring[auditRec]{}
		}
		r = &ring[auditRec]{limit: l.limit}
		if r.limit == 0 {
			r.limit = int(^uint(0) >> 1)
		}
		l.byOrg[org] = r
	}
	r.add(e)
}

// setLimit bounds every log to its newest n entries.
func (l *auditLog) setLimit(n int) {
	l.limit = n
	for org, r := range l.byOrg {
		bounded := &ring[auditRec]{limit: n}
		r.all(bounded.add)
		l.byOrg[org] = bounded
	}
}

// auditID is the ID of the entry of sequence number seq: 12 characters
// of the IDs' alphabet, in the order of the entries.
func auditID(seq uint64) string {
	s := strconv.FormatUint(seq, 36)
	return strings.Repeat("0", max(0, 12-len(s))) + s
}

// auditSeq reads an entry's ID back, for a cursor.
func auditSeq(id string) (uint64, bool) {
	if len(id) != 12 {
		return 0, false
	}
	seq, err := strconv.ParseUint(id, 36, 64)
	return seq, err == nil && id == strings.ToLower(id)
}

// auditShape is what an operation's entries share: the action and the kind
// of record it changes, derived once from the operation's row.
type auditShape struct {
	op string
	// action is the entry's audit_action ("deploy_request.queued"); verb
	// its action ("queued").
	action, verb string
	// targetType is the kind of record changed ("DatabaseBranch").
	targetType string
	// param is the path's placeholder that names the target, "" when the
	// target is the record the response holds (a create).
	param string
	// segments are the path's segments, for the metadata.
	segments []string
}

// auditShapes are the shapes of the operations that change the world, by
// name.
var auditShapes = func() map[string]*auditShape {
	shapes := map[string]*auditShape{}
	for name, op := range operations {
		orgPath := strings.HasPrefix(op.path, "/v1/organizations/{organization}") ||
			strings.HasPrefix(op.path, "/internal/organizations/{organization}") // an import notification
		if op.method != "GET" && !unaudited[name] && orgPath {
			shapes[name] = auditShapeOf(op)
		}
	}
	return shapes
}()

// unaudited are the operations other than GETs that change nothing, and
// so leave no entry (their routes are readBody's).
var unaudited = map[string]bool{"vtctld_check_throttler": true}

// auditVerbs are the verbs operations' names start with (or, for
// workflow_*, follow the resource with), in the past tense an action
// takes. An operation whose name has none of them is audited under its
// own name (auditShapeOf).
var auditVerbs = map[string]string{
	"add": "added", "cancel": "canceled", "close": "closed", "complete": "completed",
	"create": "created", "cutover": "cut_over", "delete": "deleted", "demote": "demoted",
	"disable": "disabled", "dismiss": "dismissed", "enable": "enabled", "force": "forced",
	"kill": "killed", "promote": "promoted", "queue": "queued", "reassign": "reassigned", "refresh": "refreshed",
	"remove": "removed", "renew": "renewed", "reset": "reset", "retry": "retried",
	"reverse": "reversed", "review": "reviewed", "run": "ran", "skip": "skipped",
	"switch": "switched", "test": "tested", "update": "updated", "verify": "verified",
	"start": "started", "make": "made", "detach": "detached", "stop": "stopped", "resume": "resumed",
}

// auditActionNames are the operations whose action the live service names
// otherwise than the rule of auditShapeOf would, or whose name holds words
// of the action rather than of the record (force_cutover_deploy_request);
// their target is the path's.
var auditActionNames = map[string]string{
	"add_service_token_accesses":          "service_token.granted_access",
	"remove_organization_member":          "organization.removed_member",
	"update_organization_membership":      "organization.updated_role",
	"force_cutover_deploy_request":        "deploy_request.forced_cutover",
	"complete_gated_deploy_request":       "deploy_request.completed_gated",
	"create_import_notification":          "database.created_import_notification",
	"kill_branch_query":                   "branch.killed_query",
	"kill_branch_transaction":             "branch.killed_transaction",
	"kill_branch_connection":              "branch.killed_connection",
	"kill_process":                        "branch.killed_process",
	"vtctld_set_shard_tablet_control":     "branch.updated_shard_tablet_control",
	"vtctld_apply_keyspace_routing_rules": "branch.applied_keyspace_routing_rules",
	"materialize_create":                  "branch.created_materialize_workflow",
	"materialize_start":                   "materialize_workflow.started",
	"materialize_stop":                    "materialize_workflow.stopped",
	"materialize_cancel":                  "materialize_workflow.canceled",
	"lookup_vindex_create":                "branch.created_lookup_vindex",
	"lookup_vindex_externalize":           "lookup_vindex.externalized",
	"lookup_vindex_internalize":           "lookup_vindex.internalized",
	"lookup_vindex_complete":              "lookup_vindex.completed",
	"lookup_vindex_cancel":                "lookup_vindex.canceled",
	"move_tables_create":                  "branch.created_move_tables_workflow",
	"move_tables_switch_traffic":          "move_tables_workflow.switched_traffic",
	"move_tables_reverse_traffic":         "move_tables_workflow.reversed_traffic",
	"move_tables_cancel":                  "move_tables_workflow.canceled",
	"move_tables_complete":                "move_tables_workflow.completed",
}

// auditTypeNames are the record kinds the reference names otherwise than
// their path does.
var auditTypeNames = map[string]string{
	"branch":       "DatabaseBranch",
	"password":     "DatabaseBranchPassword",
	"member":       "OrganizationMembership",
	"organization": "Organization",
	"oauth_token":  "OAuthToken",
}

// auditShapeOf derives an operation's shape from its row:
//
//   - The target is the record the path's last placeholder names
//     ({branch} of .../branches/{branch}/demote), of the kind its
//     collection names ("branches": branch), or, for create_* on a
//     collection, the record created, of that collection's kind.
//   - The name is a verb of auditVerbs and the words naming the record:
//     when those end with the kind (delete_traffic_rule: traffic_rule),
//     they are the resource and the action is the verb's past tense
//     ("traffic_rule.deleted"); otherwise the resource is the kind and the
//     other words follow the verb (update_auto_apply on a deploy request:
//     "deploy_request.updated_auto_apply"). A leading "organization" of a
//     record within the organization is dropped
//     (delete_organization_team: "team.deleted").
//   - auditActionNames names the few actions the service names otherwise
//     (and the few that the rule would name wrongly); auditTypeNames the
//     kinds the reference names otherwise ("DatabaseBranch").
func auditShapeOf(op operation) *auditShape {
	segs := strings.Split(strings.TrimPrefix(op.path, "/"), "/")
	sh := &auditShape{op: op.name, segments: segs}
	last := -1 // the last placeholder
	for i, s := range segs {
		if strings.HasPrefix(s, "{") {
			last = i
		}
	}
	prev := -1 // the placeholder before the target's collection
	for i := last - 1; i >= 0; i-- {
		if strings.HasPrefix(segs[i], "{") {
			prev = i
			break
		}
	}
	words := strings.Split(op.name, "_")
	var kindSegs []string
	if words[0] == "create" && last < len(segs)-1 {
		kindSegs = segs[last+1:] // the collection created into
	} else {
		kindSegs = segs[prev+1 : last]
		sh.param = strings.Trim(segs[last], "{}")
	}
	kind := kindWords(kindSegs)
	if sh.param == "organization" {
		kind = []string{"organization"}
	}

	verbAt := 0
	if _, ok := auditVerbs[words[0]]; !ok && len(words) > 1 {
		if _, ok := auditVerbs[words[1]]; ok {
			verbAt = 1 // workflow_cancel
		}
	}
	verb := words[verbAt]
	past, known := auditVerbs[verb]
	if !known {
		past, verbAt = op.name, -1
	}
	var rest []string
	for i, w := range words {
		if i != verbAt {
			rest = append(rest, w)
		}
	}
	if known && len(rest) > 1 && rest[0] == "organization" && kind[0] != "organization" {
		rest = rest[1:]
	}
	subject, phrase := kind, []string{past}
	switch at := wordsAt(rest, kind); {
	case !known:
	case at >= 0 && at+len(kind) == len(rest):
		subject = append(slices.Clone(rest[:at]), kind...)
		phrase = append(phrase, rest[at+len(kind):]...)
	case at >= 0:
		phrase = append(phrase, rest[:at]...)
		phrase = append(phrase, rest[at+len(kind):]...)
	default:
		phrase = append(phrase, rest...)
	}
	sh.verb = strings.Join(phrase, "_")
	sh.action = strings.Join(subject, "_") + "." + sh.verb
	if name, ok := auditActionNames[op.name]; ok {
		if sh.param == "" { // a create below a record whose answer holds nothing: the target is the path's
			sh.param = strings.Trim(segs[last], "{}")
			kind = kindWords(segs[prev+1 : last])
		}
		sh.action, subject = name, kind
		_, sh.verb, _ = strings.Cut(name, ".")
	}
	sh.targetType = auditTypeNames[strings.Join(subject, "_")]
	if sh.targetType == "" {
		var b strings.Builder
		for _, w := range subject {
			b.WriteString(strings.ToUpper(w[:1]) + w[1:])
		}
		sh.targetType = b.String()
	}
	return sh
}

// kindWords are the words of a collection's path segments, singular:
// ["traffic", "budgets"] is traffic budget, ["deploy-requests"] deploy
// request.
func kindWords(segs []string) []string {
	var words []string
	for _, s := range segs {
		words = append(words, strings.Split(s, "-")...)
	}
	if n := len(words); n > 0 {
		words[n-1] = singular(words[n-1])
	}
	return words
}

// singular is the singular of an English plural of the API's nouns.
func singular(w string) string {
	switch {
	case strings.HasSuffix(w, "ies"):
		return strings.TrimSuffix(w, "ies") + "y"
	case strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "shes"), strings.HasSuffix(w, "sses"), strings.HasSuffix(w, "xes"):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "ss"):
		return w
	}
	return strings.TrimSuffix(w, "s")
}

// wordsAt returns where sub starts in words (a plural word matching its
// singular), or -1.
func wordsAt(words, sub []string) int {
	for i := 0; i+len(sub) <= len(words); i++ {
		match := true
		for j, w := range sub {
			if words[i+j] != w && singular(words[i+j]) != w {
				match = false
				break
			}
		}
		if match {
			return i
		}
	}
	return -1
}

// auditTarget is the record a change is about to act on, as far as the
// path names it: found before the handler runs, as a delete leaves
// nothing to find after. A record the path names by an ID is taken at its
// word; one named otherwise is looked up where the fake keeps it (a
// placeholder of a group without a lookup here gets its ID from the
// response, or none).
func (c *call) auditTarget() (id, name string) {
	sh := auditShapes[c.rt.op]
	if sh == nil || sh.param == "" {
		return "", ""
	}
	name = c.r.PathValue(sh.param)
	branch := c.branch
	switch {
	case sh.param == "organization":
		return c.org.id, name
	case sh.param == "database":
		return c.db.id, name
	case sh.param == "id" || strings.HasSuffix(sh.param, "_id") || sh.param == "uuid":
		return name, name
	case sh.param == "branch" && branch != nil:
		return branch.id, name
	case sh.param == "team":
		if t := c.org.teams.bySlug[name]; t != nil {
			return t.id, name
		}
	case sh.param == "bouncer" && branch != nil:
		if b := branch.x().bouncers.byName[name]; b != nil {
			return b.id, name
		}
	case (sh.param == "workflow" || sh.param == "name") && branch != nil:
		// A VReplication workflow, by its name on the branch (see
		// vrWorkflow.id).
		for _, vw := range branch.more.read().vitess.vrWorkflowsOf(branch) {
			if vw.name == name {
				return vw.id(), name
			}
		}
	case sh.param == "keyspace" && branch != nil:
		if ks := branch.keyspace(name); ks != nil {
			return ks.id, name
		}
	case sh.param == "number":
		n, ok := resourceNumber(name)
		if !ok {
			break
		}
		switch sh.targetType {
		case "DeployRequest":
			if dr := c.db.drByNumber[n]; dr != nil {
				return dr.id, "#" + name
			}
		case "Workflow":
			if wf := c.db.workflows.peek().get(n); wf != nil {
				return wf.id, wf.name
			}
		}
	}
	return "", name
}

// audit records a change that succeeded in its organization's log: id and
// name are the target auditTarget found, resp the response, which names a
// created record, or resolves a target the path named.
func (c *call) audit(id, name string, resp any) {
	sh := auditShapes[c.rt.op]
	if sh == nil || c.org == nil {
		return
	}
	if rid, rname, ok := renderedIdentity(resp); ok && (sh.param == "" || rid == id || id == "" && (rname == name || rname == "#"+name)) {
		id, name = rid, rname // the record created, or the target by its name
	}
	e := auditRec{at: c.now, shape: sh, targetID: id, targetName: name, path: c.r.URL.EscapedPath()}
	if c.db != nil {
		e.dbID, e.dbName = c.db.id, c.db.name
	}
	switch who := c.who; {
	case who == nil: // a public route: no actor
	case who.token != nil:
		e.actor = auditActor{kind: "ServiceToken", id: who.token.id, name: who.token.name}
		if e.actor.name == "" {
			e.actor.name = who.token.id
		}
	case who.user != nil:
		e.actor = auditActor{kind: "User", id: who.user.id, name: who.user.name}
	}
	e.remoteIP = c.r.RemoteAddr
	if host, _, err := net.SplitHostPort(c.r.RemoteAddr); err == nil {
		e.remoteIP = host
	}
	c.w.audit.add(c.org, e)
}

// renderedIdentity reads the ID and the name of a record the fake
// rendered (its ID field, and its Name, Slug or Number), for the target of
// an entry.
func renderedIdentity(resp any) (id, name string, ok bool) {
	v := reflect.ValueOf(resp)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return "", "", false
	}
	v = v.Elem()
	f := v.FieldByName("ID")
	if !f.IsValid() || f.Kind() != reflect.String {
		return "", "", false
	}
	id = f.String()
	for _, field := range []string{"Name", "Slug", "Number"} {
		f := v.FieldByName(field)
		if f.Kind() == reflect.Pointer && !f.IsNil() {
			f = f.Elem()
		}
		switch {
		case f.Kind() == reflect.String && f.String() != "":
			return id, f.String(), true
		case f.Kind() == reflect.Int && f.Int() != 0:
			return id, "#" + strconv.FormatInt(f.Int(), 10), true
		}
	}
	return id, id, true
}

// render is the entry as the API shows it.
func (e *auditRec) render(org *orgRec) *platform.AuditLog {
	at := platform.NewTimestamp(e.at)
	l := &platform.AuditLog{
		ID:                   auditID(e.seq),
		Type:                 "AuditLogEvent",
		ActorDisplayName:     e.actor.name,
		AuditableID:          &org.id,
		AuditableType:        platform.Ptr("Organization"),
		AuditableDisplayName: org.name,
		TargetType:           &e.shape.targetType,
		AuditAction:          e.shape.action,
		Action:               e.shape.verb,
		CreatedAt:            at,
		UpdatedAt:            at,
	}
	if e.actor.kind != "" {
		l.ActorID, l.ActorType = &e.actor.id, &e.actor.kind
	}
	if e.dbID != "" {
		l.AuditableID, l.AuditableType, l.AuditableDisplayName = &e.dbID, platform.Ptr("Database"), e.dbName
	}
	if e.targetID != "" {
		l.TargetID = &e.targetID
	}
	if e.targetName != "" {
		l.TargetDisplayName = &e.targetName
	}
	if e.remoteIP != "" {
		l.RemoteIP = &e.remoteIP
	}
	values := strings.Split(strings.TrimPrefix(e.path, "/"), "/")
	for i, s := range e.shape.segments {
		name, ok := strings.CutPrefix(s, "{")
		if !ok || name == "organization}" || i >= len(values) {
			continue
		}
		if l.Metadata == nil {
			l.Metadata = map[string]any{}
		}
		v, err := url.PathUnescape(values[i])
		if err != nil {
			v = values[i]
		}
		l.Metadata[strings.TrimSuffix(name, "}")] = v
	}
	return l
}

func auditLogRoutes() []route {
	return []route{
		{pattern: "GET /v1/organizations/{organization}/audit-log", op: "list_audit_logs", cursor: true, handler: read(listAuditLogs)},
	}
}

// listAuditLogs serves a page of the organization's audit log, newest
// first, after or before a cursor, keeping the actions of filters[]
// ("audit_action:database.created", any of them).
func listAuditLogs(c *call) (any, error) {
	cur, err := c.parseCursor()
	if err != nil {
		return nil, err
	}
	var actions []string
	for _, f := range c.r.URL.Query()["filters[]"] {
		key, action, _ := strings.Cut(f, ":")
		if key != "audit_action" || action == "" {
			return nil, badRequest("filters[] %q: the audit log filters by audit_action:ACTION", f)
		}
		actions = append(actions, action)
	}
	log := c.w.audit.byOrg[c.org]
	if log == nil {
		log = &ring[auditRec]{}
	}
	return cursorPageOf(cur, cursorList[auditRec]{
		n:     log.len(),
		at:    log.at,
		key:   func(e auditRec) uint64 { return e.seq },
		id:    func(e auditRec) string { return auditID(e.seq) },
		parse: auditSeq,
		keep:  func(e auditRec) bool { return len(actions) == 0 || slices.Contains(actions, e.shape.action) },
	}, func(e auditRec) *platform.AuditLog { return e.render(c.org) })
}
