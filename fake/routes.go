package fake

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dbplatform/platform-go"
)

// maxBody is the largest request body the API accepts.
const maxBody = 1 << 20

// route is one row of the route table: an operation of operations.tsv and
// the handler that serves it. Authentication, the permission check, body
// decoding, pagination and errors are the pipeline's, not the handler's.
type route struct {
	// pattern is the net/http pattern, "METHOD /v1/...".
	pattern string
	// op is the operation's name in operations.tsv.
	op string
	// public routes need no credentials.
	public bool
	// cursor marks a list paged by cursor (its handler reads the cursor
	// with parseCursor), whose page, per_page and order the pipeline
	// leaves alone.
	cursor bool
	// scopeBranch, when set, names the branch whose branch-level OAuth
	// scopes admit the request, for an operation whose path has no {branch}
	// (see scopes.go).
	scopeBranch func(c *call) *branchRec
	// ownView marks an operation that shows a credential only what it
	// holds (list_organizations): every OAuth token may call it, and one
	// without the row's scope sees only the resources its grant names.
	ownView bool
	handler
	// spec is op's row of operations.tsv, filled when the table is built.
	spec operation
	// branchMayBeGone marks an operation under {branch} whose resource
	// outlives its branch (a backup): the pipeline sets call.branch only
	// when the branch lives, and leaves an unknown one to the handler.
	branchMayBeGone bool
	// createsDatabase, when set, reports whether the request asks to
	// create the path's {database} when it names nothing
	// (create_branch's create_database_if_missing): the pipeline then
	// leaves call.db nil and call.newDatabase set, checks the permission
	// to create a database instead of the row's (mayCreateDatabase), and
	// the handler creates it.
	createsDatabase func(c *call) bool
	// muxPattern, when set, is what the ServeMux routes instead of pattern:
	// a wider pattern where two of the API's paths overlap with neither more
	// specific (.../insights/{fingerprint}/summary and .../insights/queries/{id});
	// the handler refuses the paths pattern does not match.
	muxPattern string
}

// handler serves an operation: newBody, when set, makes the value a JSON
// body decodes into; serve returns the response body (nil for none) or an
// error.
type handler struct {
	newBody func() any
	serve   func(c *call) (any, error)
	// write marks handlers that change the world; the others run under a
	// read lock.
	write bool
}

// read serves an operation that changes nothing.
func read(fn func(c *call) (any, error)) handler { return handler{serve: fn} }

// act serves an operation without a body that changes the world.
func act(fn func(c *call) (any, error)) handler { return handler{serve: fn, write: true} }

// withBody serves an operation that takes a JSON body of type B.
func withBody[B any](fn func(c *call, body *B) (any, error)) handler {
	return handler{
		newBody: func() any { return new(B) },
		serve:   func(c *call) (any, error) { return fn(c, c.body.(*B)) },
		write:   true,
	}
}

// readBody serves an operation that takes a JSON body of type B and
// changes nothing (a throttler check): it runs under the read lock and
// leaves no entry in the audit log.
func readBody[B any](fn func(c *call, body *B) (any, error)) handler {
	h := withBody(fn)
	h.write = false
	return h
}

// call is one request on its way through a handler.
type call struct {
	s    *Server
	w    *world
	r    *http.Request
	rt   *route
	who  *principal // &as for a request with credentials, nil for a public one
	as   principal
	body any
	now  time.Time
	// org, db and branch are the {organization}, {database} and {branch}
	// of the path, resolved and checked by the pipeline when the pattern
	// has them: a handler of a path with {branch} finds branch set (unless
	// its route is branchMayBeGone).
	org    *orgRec
	db     *dbRec
	branch *branchRec
	// newDatabase marks a {database} that names nothing and that the
	// request asks to create (see route.createsDatabase); db is nil then.
	newDatabase bool
	// page, perPage and desc are the validated list parameters.
	page, perPage int
	desc          bool
}

// redirect is what a handler returns to answer with its operation's
// status (a 302) and a Location header, with body as the JSON body.
type redirect struct {
	location string
	body     any
}

// retryLater is what a handler returns to answer with its operation's
// status, body, and a Retry-After header of after in whole seconds
// (rounded up): a resource still being generated.
type retryLater struct {
	after time.Duration
	body  any
}

// answerBody is the body of a handler's answer.
func answerBody(resp any) any {
	if rl, ok := resp.(retryLater); ok {
		return rl.body
	}
	return resp
}

// nothingToDo is what a handler returns for a request that changes
// nothing where the API then answers 204 with no body instead of the
// operation's success status.
type nothingToDo struct{}

// routeTable is the route table: every operation the fake serves.
func routeTable() []route {
	rs := make([]route, 0, len(operations))
	rs = append(rs, organizationRoutes()...)
	rs = append(rs, databaseRoutes()...)
	rs = append(rs, branchRoutes()...)
	rs = append(rs, keyspaceRoutes()...)
	rs = append(rs, schemaDiffRoutes()...)
	rs = append(rs, vschemaRoutes()...)
	rs = append(rs, clusterSizeRoutes()...)
	rs = append(rs, branchChangeRoutes()...)
	rs = append(rs, branchResizeRoutes()...)
	rs = append(rs, bouncerRoutes()...)
	rs = append(rs, switchoverRoutes()...)
	rs = append(rs, vitessRoutes()...)
	rs = append(rs, vitessRoutingRoutes()...)
	rs = append(rs, vitessThrottlerRoutes()...)
	rs = append(rs, vitessVDiffRoutes()...)
	rs = append(rs, vitessMoveTablesRoutes()...)
	rs = append(rs, vitessMaterializeRoutes()...)
	rs = append(rs, vitessLookupVindexRoutes()...)
	rs = append(rs, maintenanceRoutes()...)
	rs = append(rs, backupRoutes()...)
	rs = append(rs, backupPolicyRoutes()...)
	rs = append(rs, roleRoutes()...)
	rs = append(rs, passwordRoutes()...)
	rs = append(rs, ipRestrictionRoutes()...)
	rs = append(rs, deployRequestRoutes()...)
	rs = append(rs, storageCheckRoutes()...)
	rs = append(rs, teamRoutes()...)
	rs = append(rs, trafficBudgetRoutes()...)
	rs = append(rs, insightsRoutes()...)
	rs = append(rs, serviceTokenRoutes()...)
	rs = append(rs, webhookRoutes()...)
	rs = append(rs, oauthAppRoutes()...)
	rs = append(rs, metricsRoutes()...)
	rs = append(rs, queryPatternRoutes()...)
	rs = append(rs, schemaRecommendationRoutes()...)
	rs = append(rs, throttlerRoutes()...)
	rs = append(rs, auditLogRoutes()...)
	rs = append(rs, workflowRoutes()...)
	rs = append(rs, billingRoutes()...)
	rs = append(rs, authAttemptRoutes()...)
	rs = append(rs, dataImportRoutes()...)
	rs = append(rs, connectionRoutes()...)
	return rs
}

// The handlers of every server, and the ServeMux that routes requests to
// them, built once per process: nothing in them is a server's own. Each
// serves the server that received the request, which the request's
// recorder carries (Server.ServeHTTP is the only way in), so starting a
// server builds nothing here.
var handlers struct {
	once sync.Once
	mux  *http.ServeMux
	err  error
}

// sharedMux returns the ServeMux of every server, building it on first use.
func sharedMux() (*http.ServeMux, error) {
	handlers.once.Do(func() { handlers.mux, handlers.err = buildMux() })
	return handlers.mux, handlers.err
}

// buildMux joins each row of the route table to its operations.tsv row and
// mounts the operations, the OAuth server, the control surface and the
// signed downloads.
func buildMux() (mux *http.ServeMux, err error) {
	defer func() {
		if p := recover(); p != nil { // ServeMux panics on a bad or conflicting pattern
			mux, err = nil, fmt.Errorf("fake: route table: %v", p)
		}
	}()
	mux = http.NewServeMux()
	rs := routeTable()
	for i := range rs {
		rt := &rs[i] // its pipeline keeps it: one array holds every route
		spec, ok := operations[rt.op]
		if !ok {
			return nil, fmt.Errorf("fake: route %q: operation %q is not in operations.tsv", rt.pattern, rt.op)
		}
		if spec.pattern != rt.pattern {
			return nil, fmt.Errorf("fake: route %q: operations.tsv has %q for %s", rt.pattern, spec.pattern, rt.op)
		}
		spec.need = permsOf(spec.perms)
		rt.spec = spec
		mux.Handle(cmp.Or(rt.muxPattern, rt.pattern), pipeline{rt})
	}
	if err := mountOAuthServer(mux); err != nil { // see oauth.go
		return nil, err
	}
	mux.Handle(ControlPrefix, serving(func(s *Server, w http.ResponseWriter, r *http.Request) {
		control{s}.ServeHTTP(w, r) // the control surface; see control.go
	}))
	mux.Handle(reportFilesPattern, serving((*Server).serveReportFile))         // signed downloads; see querypatterns.go
	mux.Handle(authExportFilesPattern, serving((*Server).serveAuthExportFile)) // see authattempts.go
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { writeError(w, notFound()) })
	return mux, nil
}

// serving makes a handler of every server from serve, which serves the
// server that received the request.
func serving(serve func(s *Server, w http.ResponseWriter, r *http.Request)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := w.(*recorder)
		serve(rec.srv, rec, r)
	})
}

// pipeline runs what every operation shares, in order: fault rules,
// authentication, the rate limit, the organization and database of the
// path, the permission check, body and page decoding, the branch of the
// path, then the handler, and writes the result.
type pipeline struct{ rt *route }

func (p pipeline) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rt, rec := p.rt, w.(*recorder)
	s := rec.srv
	rec.op = rt.op
	if !peeking(r) && s.applyFault(w, r, rt.op) {
		return
	}
	body, bodyErr := decodeBody(w, r, rt, s.strict)
	status, resp, err := s.run(rt, r, body, bodyErr)
	if err != nil {
		writeError(w, err)
		return
	}
	if rd, ok := resp.(redirect); ok {
		w.Header().Set("Location", rd.location)
		resp = rd.body
	}
	if rl, ok := resp.(retryLater); ok {
		w.Header().Set("Retry-After", strconv.FormatInt(int64((rl.after+time.Second-1)/time.Second), 10))
		resp = rl.body
	}
	if pw, ok := rec.ResponseWriter.(*peekWriter); ok {
		pw.keep(status, resp) // a read the server makes for itself reads the resource, not its JSON
		return
	}
	writeJSON(w, status, resp)
}

// run executes the handler with the world locked and returns what to write.
func (s *Server) run(rt *route, r *http.Request, body any, bodyErr *apiError) (status int, resp any, err error) {
	if rt.write {
		s.mu.Lock()
		defer s.mu.Unlock()
	} else {
		s.mu.RLock()
		defer s.mu.RUnlock()
	}
	defer func() {
		if p := recover(); p != nil {
			err = errf(http.StatusInternalServerError, "internal", "internal error in %s: %v", rt.op, p)
		}
	}()
	c := &call{s: s, w: s.world, r: r, rt: rt, body: body, now: s.world.clock.Now()}
	if !rt.public {
		if c.as, err = s.authenticate(r, c.now); err != nil {
			return 0, nil, err
		}
		c.who = &c.as
		if peeking(r) {
			// A read the server makes for itself is not the client's.
		} else if err := s.limiter.allow(c.who, c.now); err != nil {
			return 0, nil, err
		}
	}
	if err := c.resolvePath(); err != nil {
		return 0, nil, err
	}
	if !c.permitted() {
		return 0, nil, notFound().because("%s", c.refusal())
	}
	if bodyErr != nil {
		return 0, nil, bodyErr
	}
	if rt.list() {
		if err := c.parsePage(); err != nil {
			return 0, nil, err
		}
	}
	if err := c.checkBranch(); err != nil {
		return 0, nil, err
	}
	var targetID, targetName string
	if rt.write {
		targetID, targetName = c.auditTarget()
	}
	resp, err = rt.serve(c)
	if err != nil {
		return 0, nil, err
	}
	if _, ok := resp.(nothingToDo); ok {
		return http.StatusNoContent, nil, nil
	}
	if rt.write { // a change that succeeded: an entry of the audit log
		c.audit(targetID, targetName, answerBody(resp))
	}
	return rt.spec.status, resp, nil
}

// resolvePath finds the organization, database and branch the path names.
// An organization the caller does not belong to is as missing as one that
// does not exist. A branch that names nothing is refused later, by
// checkBranch: the permission check sees it missing first.
func (c *call) resolvePath() error {
	if name := c.r.PathValue("organization"); name != "" {
		org := c.w.orgs[name]
		if org == nil {
			return notFound().because("organization %q names nothing", name)
		}
		if !c.who.belongsTo(org) {
			return notFound().because("the credential's user is not a member of organization %q", name)
		}
		c.org = org
		if name := c.r.PathValue("database"); name != "" {
			if c.db = org.dbByName[name]; c.db == nil {
				if c.rt.createsDatabase != nil && c.rt.createsDatabase(c) {
					c.newDatabase = true
					return nil
				}
				return c.nothingAt("database")
			}
			if name := c.r.PathValue("branch"); name != "" {
				c.branch = c.db.branch(name)
			}
		}
	}
	return nil
}

// checkBranch refuses a path whose {branch} names no live branch of its
// database, after the permission check, the body and the page parameters,
// and before the handler, which reads call.branch.
func (c *call) checkBranch() error {
	if c.branch == nil && c.db != nil && !c.rt.branchMayBeGone && c.r.PathValue("branch") != "" {
		return c.nothingAt("branch")
	}
	return nil
}

// list reports whether the route serves a list, whose page, per_page and
// order the pipeline reads. Operations that list are named list_*, but for
// five that the API names otherwise.
func (rt *route) list() bool {
	return rt.spec.method == http.MethodGet && !rt.cursor &&
		(strings.HasPrefix(rt.op, "list_") || slices.Contains(pagedGets, rt.op))
}

// pagedGets are the operations that list but are not named list_*.
var pagedGets = []string{"get_deploy_queue", "lint_branch_schema", "get_query_statistics", "get_branch_query_error", "get_invoice_line_items"}

// permitted applies the operation's permission column to a service token,
// its scope column to an OAuth token (see scopes.go).
func (c *call) permitted() bool {
	if c.rt.public {
		return true
	}
	if c.newDatabase {
		return c.mayCreateDatabase()
	}
	if g := c.who.grant(); g != nil {
		return c.rt.ownView || permitsOAuth(g, c.rt.spec, c.scopeTarget())
	}
	return c.who.mayDo(&c.rt.spec, c.db)
}

// parsePage reads page, per_page and order for list operations.
func (c *call) parsePage() error {
	c.page, c.perPage = 1, 25
	q := c.r.URL.Query()
	for _, f := range []struct {
		name     string
		dst      *int
		min, max int
	}{{"page", &c.page, 1, 1 << 30}, {"per_page", &c.perPage, 1, 100}} {
		v := q.Get(f.name)
		if v == "" {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < f.min || n > f.max {
			return badRequest("%s must be an integer from %d to %d, got %q", f.name, f.min, f.max, v)
		}
		*f.dst = n
	}
	switch q.Get("order") {
	case "", "asc":
	case "desc":
		c.desc = true
	default:
		return badRequest("order must be asc or desc, got %q", q.Get("order"))
	}
	return nil
}

// decodeBody reads and decodes the JSON body of a route that takes one,
// and runs its check when its type has one (bodyChecker). Its error is held
// back until the permission check has passed; with it comes what decoded
// of the body (encoding/json decodes every field it can), which the path
// and permission checks may read (a create_branch asking to create its
// database, then refused for a field of the wrong type, is a 400 as it is
// where the database exists, not a 404). A route that takes none
// still refuses a body that is not a JSON object, as every route does
// (malformed JSON is a 400 whatever the mode), and ignores the fields of
// one, unless strict: then every field of it is unknown, whatever the
// method (a DELETE's too).
func decodeBody(w http.ResponseWriter, r *http.Request, rt *route, strict bool) (any, *apiError) {
	if rt.newBody == nil {
		return nil, readJSON(w, r, &struct{}{}, strict)
	}
	v := rt.newBody()
	if err := readJSON(w, r, v, strict); err != nil {
		return v, err
	}
	if b, ok := v.(bodyChecker); ok {
		if err := b.check(); err != nil {
			return v, err
		}
	}
	return v, nil
}

// bodyChecker is a body whose own check refuses it before the path's
// branch is looked up: a body the API refuses for itself, whatever the
// path names.
type bodyChecker interface {
	check() *apiError
}

// readJSON decodes r's JSON body into v, refusing unknown fields when
// strict; an empty body leaves v as it is.
func readJSON(w http.ResponseWriter, r *http.Request, v any, strict bool) *apiError {
	if r.Body == nil || r.Body == http.NoBody {
		return nil
	}
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return errf(http.StatusRequestEntityTooLarge, "payload_too_large", "request body is over the limit of %d bytes", maxBody)
		}
		return badRequest("reading request body: %v", err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if strict {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(v); err != nil {
		return bodyError(err, data, v)
	}
	// More would miss a stray "}" or "]": only the end of the body may
	// follow the value.
	if _, err := dec.Token(); err != io.EOF {
		return badRequest("request body has data after the JSON object")
	}
	return nil
}

// bodyError turns the error of decoding data into v into a 400 that names
// the field. It finds the field itself (badField) rather than trusting the
// error's Field: encoding/json names embedded structs by their Go names and
// gives no index, and from Go 1.27 it does not name the field whose own
// UnmarshalJSON refused its value.
func bodyError(err error, data []byte, v any) *apiError {
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &syntaxErr):
		return badRequest("malformed JSON at byte %d: %v", syntaxErr.Offset, syntaxErr)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return badRequest("malformed JSON: unexpected end of body")
	}
	if field, ok := unknownField(err); ok {
		return badRequest("unknown field %s", field)
	}
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if top := bytes.TrimSpace(data); t.Kind() == reflect.Struct && !decodesItself(t) && len(top) > 0 && top[0] != '{' {
		return badRequest("request body must be a JSON object, not %s", rawValue(top))
	}
	if bad, ok := badField(data, t, ""); ok {
		return bad.refusal()
	}
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) && typeErr.Field != "" {
		return badRequest("field %s must be %s, not %s", typeErr.Field, jsonType(typeErr.Type), typeErr.Value)
	}
	return badRequest("malformed JSON: %v", err)
}

// badJSON is a field of a body whose value does not decode: its path by
// JSON names, its type, its JSON value, and the error of decoding that
// value alone.
type badJSON struct {
	field string
	t     reflect.Type
	raw   []byte
	err   error
}

// refusal is the 400 that names the field and what it must be: a time in
// the API's format, the JSON type encoding/json wanted (of the value inside
// a type that decodes itself: an integer for a nullable one), or else the
// type's own words.
func (b badJSON) refusal() *apiError {
	if isTime(b.t) {
		return badRequest("field %s must be a time in RFC 3339 format, such as %q, not %s", b.field, "2026-01-14T10:19:23Z", clip(b.raw))
	}
	if typeErr, ok := b.err.(*json.UnmarshalTypeError); ok {
		return badRequest("field %s must be %s, not %s", b.field, wantedType(typeErr.Type, b.raw), rawValue(b.raw))
	}
	return badRequest("field %s: %v", b.field, b.err)
}

// badField finds the field of a value of type t (its path below prefix)
// whose value in data, well-formed JSON, does not decode; encoding/json
// reports some of them (what a type's own UnmarshalJSON refuses) without
// the field.
func badField(data []byte, t reflect.Type, prefix string) (badJSON, bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if decodesItself(t) {
		return badJSON{}, false
	}
	join := func(name string) string {
		if prefix == "" {
			return name
		}
		return prefix + "." + name
	}
	switch t.Kind() {
	case reflect.Struct:
		var obj map[string]json.RawMessage
		if json.Unmarshal(data, &obj) != nil {
			return badJSON{}, false
		}
		for _, name := range slices.Sorted(maps.Keys(obj)) {
			ft, ok := fieldOf(t, []byte(name))
			if !ok {
				continue
			}
			if bad, ok := badValue(obj[name], ft, join(name)); ok {
				return bad, true
			}
		}
	case reflect.Slice, reflect.Array:
		var elems []json.RawMessage
		if json.Unmarshal(data, &elems) != nil {
			return badJSON{}, false
		}
		for i, e := range elems {
			if bad, ok := badValue(e, t.Elem(), fmt.Sprintf("%s[%d]", prefix, i)); ok {
				return bad, true
			}
		}
	case reflect.Map:
		var obj map[string]json.RawMessage
		if json.Unmarshal(data, &obj) != nil {
			return badJSON{}, false
		}
		for _, key := range slices.Sorted(maps.Keys(obj)) {
			if bad, ok := badValue(obj[key], t.Elem(), join(key)); ok {
				return bad, true
			}
		}
	}
	return badJSON{}, false
}

// badValue reports field (of type t, whose JSON is raw) when raw does not
// decode, naming the part of it that fails when there is one.
func badValue(raw []byte, t reflect.Type, field string) (badJSON, bool) {
	err := json.Unmarshal(raw, reflect.New(t).Interface())
	if err == nil {
		return badJSON{}, false
	}
	if inner, ok := badField(raw, t, field); ok {
		return inner, true
	}
	return badJSON{field: field, t: t, raw: raw, err: err}, true
}

// isTime reports whether t is a time: time.Time or the API's Timestamp.
func isTime(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t == reflect.TypeFor[time.Time]() || t == reflect.TypeFor[platform.Timestamp]()
}

// clip shortens a value quoted in an error to its first 64 bytes.
func clip(raw []byte) string {
	if len(raw) > 64 {
		return string(raw[:64]) + "..."
	}
	return string(raw)
}

// unknownField reads the field name from encoding/json's unknown-field error.
func unknownField(err error) (string, bool) {
	var field string
	if _, scanErr := fmt.Sscanf(err.Error(), "json: unknown field %q", &field); scanErr == nil {
		return field, true
	}
	return "", false
}

// jsonType names the JSON type a Go type decodes from.
func jsonType(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer of at least 0"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	}
	return "an object"
}

// wantedType is what a field of type t that refused raw, a JSON value,
// must be: its JSON type, and for a whole number too large for an
// integer field, its bounds.
func wantedType(t reflect.Type, raw []byte) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if len(raw) == 0 || !(raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9') || bytes.ContainsAny(raw, ".eE") {
		return jsonType(t)
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		hi := uint64(1)<<(t.Bits()-1) - 1
		return fmt.Sprintf("an integer from -%d to %d", hi+1, hi)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		hi := uint64(1)<<(t.Bits()-1) - 1
		return fmt.Sprintf("an integer from 0 to %d", hi<<1|1)
	}
	return jsonType(t)
}

// rawValue describes a JSON value a field refused: a number itself,
// else its kind.
func rawValue(raw []byte) string {
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case '[':
		return "an array"
	case '{':
		return "an object"
	case 'n':
		return "null"
	}
	return clip(raw)
}

// bodyBufs holds the buffers response bodies are encoded into: every
// request of a test suite writes one, and json.Marshal would allocate and
// copy each.
var bodyBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledBody is the largest buffer returned to bodyBufs, so that one
// large report does not stay in memory.
const maxPooledBody = 64 << 10

// writeJSON writes a success response; a nil body writes no body.
func writeJSON(w http.ResponseWriter, status int, v any) {
	if v == nil {
		w.WriteHeader(status)
		return
	}
	buf := bodyBufs.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= maxPooledBody {
			buf.Reset()
			bodyBufs.Put(buf)
		}
	}()
	if err := json.NewEncoder(buf).Encode(v); err != nil {
		writeError(w, errf(http.StatusInternalServerError, "internal", "encoding response: %v", err))
		return
	}
	body := buf.Bytes()[:buf.Len()-1] // Encode ends the value with a newline, which json.Marshal does not
	// One backing array for both values, each capped at its own length,
	// as http.Header.Clone does; the keys are canonical already.
	vals := []string{"application/json", strconv.Itoa(len(body))}
	h := w.Header()
	h["Content-Type"] = vals[0:1:1]
	h["Content-Length"] = vals[1:2:2]
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// writeError writes an error response in the API's format.
func writeError(w http.ResponseWriter, err error) {
	var e *apiError
	if !errors.As(err, &e) {
		e = errf(http.StatusInternalServerError, "internal", "%v", err)
	}
	if e.retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(e.retryAfter))
	}
	if rec, ok := w.(*recorder); ok {
		rec.reason = e.logReason(rec.req)
	}
	var buf []byte
	if e.body != nil {
		buf, _ = json.Marshal(e.body)
	} else {
		buf, _ = json.Marshal(errorBody{Code: e.code, Message: e.message, Available: e.available})
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(buf)))
	w.WriteHeader(e.status)
	_, _ = w.Write(buf)
}
