package fake

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	_ "embed"
	"encoding/base64"
	"errors"
	"html/template"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dbplatform/platform-go"
)

// The state page: ControlPrefix opened in a browser shows the server's
// state (organizations, databases, branches, deploy requests, workflows and
// backups with their states, the clock with a form that advances it, the
// request log and the webhook deliveries) to whoever holds the admin token.
// It is server-rendered HTML without scripts.
//
// A browser signs in with a form that takes the admin token's
// Authorization value, or with a link that holds a one-time code
// ([Server.StatePageLink]); either starts a session whose cookie is
// HttpOnly and SameSite=Strict, and which ends when the admin token changes
// (a Restore with another token) or at sign-out. The page's forms carry the
// session's CSRF token, and a POST from another origin is refused.
//
// Only a GET of ControlPrefix itself whose Accept header takes text/html is
// the page's: every other request below ControlPrefix is the control
// surface's, as before, but those below pagePrefix:
//
//	GET  /_fake/                     the page; the sign-in form (401) without a session
//	GET  /_fake/page/sign-in?code=C  signs in with a one-time code, then 303 to the page
//	GET  /_fake/page/sign-in         the sign-in form
//	POST /_fake/page/sign-in         signs in: token=ID:SECRET
//	POST /_fake/page/sign-out        ends the session: csrf
//	POST /_fake/page/advance         Advance: csrf, d=DURATION; then 303 to the page

//go:embed statepage.html.tmpl
var statePageHTML string

//go:embed statepage.css
var statePageCSS string

// pagePrefix is the path below which the state page's forms post.
const pagePrefix = ControlPrefix + "page/"

// pageCookie is the name of the state page's session cookie.
const pageCookie = "fake_state_session"

// Bounds of the state page.
const (
	// maxPageRows is how many rows a table of the world shows, the first
	// in list order; the page says how many more there are.
	maxPageRows = 200
	// maxPageLogRows is how many of the newest requests and webhook
	// delivery attempts the page shows.
	maxPageLogRows = 100
	// maxPageSessions and maxPageCodes bound the sessions and the unused
	// one-time codes a server keeps; past them the oldest is dropped.
	maxPageSessions = 64
	maxPageCodes    = 16
	// maxPageForm bounds a form's body.
	maxPageForm = 16 << 10
)

// statePageTemplates are the state page's templates: "state", "sign-in"
// (whose data is a notice, "" for none) and "error" (a message).
var statePageTemplates = template.Must(template.New("statepage").Funcs(template.FuncMap{
	"css": func() template.CSS { return template.CSS(statePageCSS) },
	// pagePath is the path of a form's endpoint; "" is the page's.
	"pagePath": func(name string) string {
		if name == "" {
			return ControlPrefix
		}
		return pagePrefix + name
	},
}).Parse(statePageHTML))

// statePageCSP is the state page's Content-Security-Policy: nothing but
// its own inline style sheet (by its hash), forms to itself, no framing.
var statePageCSP = func() string {
	sum := sha256.Sum256([]byte(statePageCSS))
	return "default-src 'none'; style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) +
		"'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
}()

// statePage holds the state page's one-time codes and sessions. Its lock is
// its own and is never held while taking the server's.
type statePage struct {
	mu       sync.Mutex
	codes    []string               // unused one-time codes, oldest first
	sessions map[string]pageSession // by cookie value
	order    []string               // the sessions' cookie values, oldest first
}

// pageSession is a browser signed in to the state page.
type pageSession struct {
	// csrf is the token the session's forms carry.
	csrf string
	// admin is the admin token's Authorization at sign-in: the session
	// ends when the admin token changes.
	admin string
}

// StatePageLink returns a link to the state page that signs a browser in
// once: it holds a new one-time code, which the first visit uses up. The
// standalone server prints one at start. A server keeps its 16 newest
// unused codes.
func (s *Server) StatePageLink() string {
	code := rand.Text()
	p := &s.page
	p.mu.Lock()
	defer p.mu.Unlock()
	p.codes = append(p.codes, code)
	if len(p.codes) > maxPageCodes {
		p.codes = slices.Delete(p.codes, 0, len(p.codes)-maxPageCodes)
	}
	return s.URL() + strings.TrimPrefix(pagePrefix, "/") + "sign-in?code=" + code
}

// useCode uses up a one-time code, and reports whether it was one.
func (p *statePage) useCode(code string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, c := range p.codes {
		if subtle.ConstantTimeCompare([]byte(c), []byte(code)) == 1 {
			p.codes = slices.Delete(p.codes, i, i+1)
			return true
		}
	}
	return false
}

// start starts a session for the admin token admin and returns its cookie
// value.
func (p *statePage) start(admin string) string {
	id := rand.Text()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.sessions == nil {
		p.sessions = map[string]pageSession{}
	}
	p.sessions[id] = pageSession{csrf: rand.Text(), admin: admin}
	p.order = append(p.order, id)
	for len(p.order) > maxPageSessions {
		delete(p.sessions, p.order[0])
		p.order = p.order[1:]
	}
	return id
}

// session returns the session of r's cookie, if it is one signed in with
// the admin token admin.
func (p *statePage) session(r *http.Request, admin string) (pageSession, bool) {
	c, err := r.Cookie(pageCookie)
	if err != nil {
		return pageSession{}, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	sess, ok := p.sessions[c.Value]
	return sess, ok && sess.admin == admin
}

// end ends the session of r's cookie, if any.
func (p *statePage) end(r *http.Request) {
	c, err := r.Cookie(pageCookie)
	if err != nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.sessions[c.Value]; ok {
		delete(p.sessions, c.Value)
		p.order = slices.DeleteFunc(p.order, func(id string) bool { return id == c.Value })
	}
}

// pageHandler serves one of the state page's endpoints.
type pageHandler func(s *Server, w http.ResponseWriter, r *http.Request)

// pageRoutes are the endpoints below pagePrefix, by name and method.
var pageRoutes = map[string]map[string]pageHandler{
	"sign-in":  {http.MethodGet: (*Server).pageLinkSignIn, http.MethodPost: (*Server).pageSignIn},
	"sign-out": {http.MethodPost: (*Server).pageSignOut},
	"advance":  {http.MethodPost: (*Server).pageAdvance},
}

// servePage serves r if it is the state page's, and reports whether it
// was: a GET of ControlPrefix that accepts text/html, or a path below
// pagePrefix. The request log names them "_fake/" and "_fake/page/NAME".
func (s *Server) servePage(w http.ResponseWriter, r *http.Request) bool {
	name, below := strings.CutPrefix(r.URL.Path, pagePrefix)
	if !below && (r.URL.Path != ControlPrefix || r.Method != http.MethodGet || !pageAcceptsHTML(r.Header.Values("Accept"))) {
		return false
	}
	methods, known := pageRoutes[name]
	if rec, ok := w.(*recorder); ok && (known || !below) {
		rec.op = strings.TrimPrefix(r.URL.Path, "/")
	}
	switch {
	case !below:
		s.pageView(w, r)
	case !known:
		writePageMessage(w, http.StatusNotFound, "There is no page "+r.URL.Path+".")
	case methods[r.Method] == nil:
		allowed := slices.Sorted(maps.Keys(methods))
		w.Header().Set("Allow", strings.Join(allowed, ", "))
		writePageMessage(w, http.StatusMethodNotAllowed, r.URL.Path+" takes "+strings.Join(allowed, ", ")+", not "+r.Method+".")
	default:
		methods[r.Method](s, w, r)
	}
	return true
}

// pageAcceptsHTML reports whether Accept header values take text/html (not
// with q=0): a browser's navigation does, curl's */* does not.
func pageAcceptsHTML(accept []string) bool {
	for _, v := range accept {
		for part := range strings.SplitSeq(v, ",") {
			media, params, _ := strings.Cut(part, ";")
			if !strings.EqualFold(strings.TrimSpace(media), "text/html") {
				continue
			}
			q := 1.0
			for p := range strings.SplitSeq(params, ";") {
				if k, v, ok := strings.Cut(strings.TrimSpace(p), "="); ok && strings.EqualFold(k, "q") {
					if f, err := strconv.ParseFloat(v, 64); err == nil {
						q = f
					}
				}
			}
			return q > 0
		}
	}
	return false
}

// pageView serves GET /_fake/: the page to a session, the sign-in form to
// anyone else.
func (s *Server) pageView(w http.ResponseWriter, r *http.Request) {
	sess, ok := s.page.session(r, s.AdminToken().Authorization())
	if !ok {
		writeSignIn(w, http.StatusUnauthorized, "")
		return
	}
	s.writeState(w, http.StatusOK, sess, "", "")
}

// pageLinkSignIn serves GET /_fake/page/sign-in: with a one-time code, it
// signs in and goes to the page; without one it shows the sign-in form.
func (s *Server) pageLinkSignIn(w http.ResponseWriter, r *http.Request) {
	code := r.URL.Query().Get("code")
	if code == "" {
		writeSignIn(w, http.StatusOK, "")
		return
	}
	if !s.page.useCode(code) {
		writeSignIn(w, http.StatusUnauthorized, "That sign-in link was used already, or is not this server's: sign in with the admin token.")
		return
	}
	s.pageSignedIn(w, r)
}

// pageSignIn serves POST /_fake/page/sign-in: the form with the admin
// token's Authorization value.
func (s *Server) pageSignIn(w http.ResponseWriter, r *http.Request) {
	if !pageForm(w, r) {
		return
	}
	got := strings.TrimSpace(r.PostForm.Get("token"))
	want := s.AdminToken().Authorization()
	if subtle.ConstantTimeCompare([]byte(got), []byte(want)) != 1 {
		writeSignIn(w, http.StatusUnauthorized, "That is not the admin token: enter its Authorization value, ID:SECRET, as platform-fake prints it at start.")
		return
	}
	s.pageSignedIn(w, r)
}

// pageSignedIn starts a session, sets its cookie and goes to the page.
func (s *Server) pageSignedIn(w http.ResponseWriter, r *http.Request) {
	id := s.page.start(s.AdminToken().Authorization())
	http.SetCookie(w, &http.Cookie{
		Name: pageCookie, Value: id, Path: ControlPrefix,
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil,
	})
	pageRedirect(w, ControlPrefix)
}

// pageSignOut serves POST /_fake/page/sign-out.
func (s *Server) pageSignOut(w http.ResponseWriter, r *http.Request) {
	if _, ok := s.pageSession(w, r); !ok {
		return
	}
	s.page.end(r)
	http.SetCookie(w, &http.Cookie{
		Name: pageCookie, Path: ControlPrefix, MaxAge: -1,
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil,
	})
	pageRedirect(w, ControlPrefix)
}

// pageAdvance serves POST /_fake/page/advance: it advances the virtual
// clock by the form's d and goes back to the page. A refusal shows the page
// with the reason and the duration entered.
func (s *Server) pageAdvance(w http.ResponseWriter, r *http.Request) {
	sess, ok := s.pageSession(w, r)
	if !ok {
		return
	}
	v := strings.TrimSpace(r.PostForm.Get("d"))
	d, err := parseControlDuration("d", v)
	switch {
	case v == "":
		err = badRequest("d is required: a duration such as 5s or 1m30s")
	case err == nil && s.realTime():
		err = unprocessable("the clock follows the wall clock (real time); only a virtual clock can be advanced")
	}
	var e *apiError
	if errors.As(err, &e) {
		s.writeState(w, e.status, sess, "Not advanced: "+e.message+".", v)
		return
	}
	s.Advance(d)
	pageRedirect(w, ControlPrefix)
}

// pageForm reads the body of a form's POST, after checking that it comes
// from a page of this server; it answers the refusal and returns false
// when it does not, or when the body is not a form.
func pageForm(w http.ResponseWriter, r *http.Request) bool {
	if foreignOrigin(r) != "" {
		writePageMessage(w, http.StatusForbidden, "This form was sent from another site; the state page takes its forms from its own pages only.")
		return false
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxPageForm)
	if err := r.ParseForm(); err != nil {
		writePageMessage(w, http.StatusBadRequest, "The form could not be read: "+err.Error())
		return false
	}
	return true
}

// pageSession reads a form's POST (see pageForm) and returns its session,
// after checking the form's CSRF token against it. It answers the refusal
// and returns false when there is no session or the token is wrong.
func (s *Server) pageSession(w http.ResponseWriter, r *http.Request) (pageSession, bool) {
	if !pageForm(w, r) {
		return pageSession{}, false
	}
	sess, ok := s.page.session(r, s.AdminToken().Authorization())
	if !ok {
		writeSignIn(w, http.StatusUnauthorized, "Your session has ended: sign in again.")
		return pageSession{}, false
	}
	if subtle.ConstantTimeCompare([]byte(r.PostForm.Get("csrf")), []byte(sess.csrf)) != 1 {
		writePageMessage(w, http.StatusForbidden, "The form's CSRF token does not match your session: reload the page and try again.")
		return pageSession{}, false
	}
	return sess, true
}

// stateView is what the page shows.
type stateView struct {
	CSRF string
	// Now is the clock's time; Next the time of the earliest scheduled
	// transition ("" for none), and Pending how many are scheduled.
	Now, Next string
	Pending   int
	Virtual   bool
	// Notice is a refusal of the Advance form, and Advance the duration
	// it was given.
	Notice, Advance string
	Tables          []*pageTable
}

// pageTable is a table of the page.
type pageTable struct {
	ID, Title string
	Columns   []string
	Rows      [][]string
	// Note says what the table leaves out, if anything.
	Note string
	// total counts the rows add was given, shown or not.
	total int
	// limit is how many rows it shows.
	limit int
}

// add adds a row, if the table is not full yet.
func (t *pageTable) add(cells ...string) {
	t.total++
	if len(t.Rows) < t.limit {
		t.Rows = append(t.Rows, cells)
	}
}

// writeState renders the page for sess, under the server's read lock, and
// writes it after the lock is released.
func (s *Server) writeState(w http.ResponseWriter, status int, sess pageSession, notice, advance string) {
	page, err := s.renderState(sess, notice, advance)
	if err != nil {
		writePageMessage(w, http.StatusInternalServerError, "Rendering the page failed: "+err.Error())
		return
	}
	writePageBytes(w, status, page)
}

// renderState renders the page.
func (s *Server) renderState(sess pageSession, notice, advance string) ([]byte, error) {
	log := s.Requests() // under the log's own lock
	s.mu.RLock()
	defer s.mu.RUnlock()
	if advance == "" {
		advance = "5s"
	}
	v := stateView{
		CSRF: sess.csrf, Now: pageTime(s.world.clock.Now()), Pending: s.world.clock.Len(),
		Virtual: !s.world.clock.Real(), Notice: notice, Advance: advance,
	}
	if next, ok := s.world.clock.Next(); ok {
		v.Next = pageTime(next)
	}
	v.Tables = s.world.pageWorldTables()
	v.Tables = append(v.Tables, pageRequestTable(log), s.pageDeliveryTable())
	var buf bytes.Buffer
	if err := statePageTemplates.ExecuteTemplate(&buf, "state", v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// pageWorldTables are the tables of the world's resources, each in list order
// (organizations, then each one's databases, and so on). The server's lock
// is held.
func (w *world) pageWorldTables() []*pageTable {
	table := func(id, title string, columns ...string) *pageTable {
		return &pageTable{ID: id, Title: title, Columns: columns, limit: maxPageRows}
	}
	orgs := table("organizations", "Organizations", "Organization", "Members", "Databases", "Created")
	dbs := table("databases", "Databases", "Organization", "Database", "Kind", "State", "Region", "Branches", "Created")
	branches := table("branches", "Branches", "Database", "Branch", "Parent", "Production", "State", "Created")
	drs := table("deploy-requests", "Deploy requests", "Database", "Number", "Branch", "Into", "State", "Deployment", "Created")
	wfs := table("workflows", "Workflows", "Database", "Number", "Name", "Branch", "State", "Created")
	backups := table("backups", "Backups", "Database", "Branch", "Backup", "State", "Created")
	for _, o := range w.orgIdx.All() {
		orgs.add(o.name, strconv.Itoa(o.members.Len()), strconv.Itoa(o.dbs.Len()), pageTime(o.created))
		for _, db := range o.dbs.All() {
			where := o.name + "/" + db.name
			region := ""
			if db.region != nil {
				region = db.region.slug
			}
			dbs.add(o.name, db.name, string(db.kind), string(db.state), region, strconv.Itoa(db.branchIdx.Len()), pageTime(db.created))
			for _, b := range db.branchIdx.All() {
				state := platform.BranchPending
				if b.ready {
					state = platform.BranchReady
				}
				branches.add(where, b.name, b.parent, pageFlag(b.production), string(state), pageTime(b.created))
				for _, bk := range db.backups.of(b).live.All() {
					backups.add(where, b.name, bk.name, string(bk.state), pageTime(bk.created))
				}
			}
			for _, dr := range db.drs.All() {
				state := platform.DeployRequestClosed
				if dr.open {
					state = platform.DeployRequestOpen
				}
				drs.add(where, strconv.Itoa(dr.number), dr.head.name, dr.into.name, string(state), string(dr.dep.state), pageTime(dr.created))
			}
			for _, wf := range db.workflows.peek().all() {
				wfs.add(where, strconv.Itoa(wf.number), wf.name, wf.branch.name, string(wf.state), pageTime(wf.created))
			}
		}
	}
	tables := []*pageTable{orgs, dbs, branches, drs, wfs, backups}
	for _, t := range tables {
		if t.total > len(t.Rows) {
			t.Note = "The first " + strconv.Itoa(len(t.Rows)) + " of " + strconv.Itoa(t.total) + "."
		}
	}
	return tables
}

// pageRequestTable is the table of the request log, newest first.
func pageRequestTable(log []Request) *pageTable {
	t := &pageTable{
		ID: "requests", Title: "Request log",
		Columns: []string{"Request ID", "Method", "Path", "Status", "Operation", "Reason"},
		limit:   maxPageLogRows,
	}
	for _, r := range slices.Backward(log) {
		path := r.Path
		if r.Query != "" {
			path += "?" + r.Query
		}
		t.add(r.RequestID, r.Method, path, strconv.Itoa(r.Status), r.Operation, r.Reason)
	}
	t.Note = pageLogNote(t, "requests")
	return t
}

// pageDeliveryTable is the table of webhook delivery attempts, newest first.
// The server's lock is held.
func (s *Server) pageDeliveryTable() *pageTable {
	t := &pageTable{
		ID: "deliveries", Title: "Webhook deliveries",
		Columns: []string{"Sent", "Event", "URL", "Attempt", "Result", "Delivery ID"},
		limit:   maxPageLogRows,
	}
	for i := s.hooks.log.len() - 1; i >= 0; i-- {
		a := s.hooks.log.at(i)
		result := "in flight"
		if a.done {
			result = a.Result()
		}
		t.add(pageTime(a.At), string(a.Event), a.URL, strconv.Itoa(a.Attempt), result, a.DeliveryID)
	}
	t.Note = pageLogNote(t, "attempts")
	return t
}

// pageLogNote is the note of a log's table: newest first, and how many of
// them it shows.
func pageLogNote(t *pageTable, what string) string {
	if t.total == 0 {
		return ""
	}
	if t.total > len(t.Rows) {
		return "Newest first: the last " + strconv.Itoa(len(t.Rows)) + " of the " + strconv.Itoa(t.total) + " " + what + " kept."
	}
	return "Newest first."
}

// pageTime is how the page shows a time: as the API does.
func pageTime(t time.Time) string { return platform.NewTimestamp(t).String() }

// pageFlag shows a flag.
func pageFlag(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// writeSignIn answers with the sign-in form and a notice ("" for none).
func writeSignIn(w http.ResponseWriter, status int, notice string) {
	writePageTemplate(w, status, "sign-in", notice)
}

// writePageMessage answers with the error page's message.
func writePageMessage(w http.ResponseWriter, status int, message string) {
	writePageTemplate(w, status, "error", message)
}

// writePageTemplate renders one of the pages whose data is a string.
func writePageTemplate(w http.ResponseWriter, status int, name, data string) {
	var buf bytes.Buffer
	if err := statePageTemplates.ExecuteTemplate(&buf, name, data); err != nil {
		status = http.StatusInternalServerError
		buf.Reset()
		buf.WriteString(template.HTMLEscapeString("rendering the page failed: " + err.Error()))
	}
	writePageBytes(w, status, buf.Bytes())
}

// pageHeaders sets the headers of every answer of the state page: not to
// be framed, cached, sniffed or referred to elsewhere.
func pageHeaders(h http.Header) {
	h.Set("Content-Security-Policy", statePageCSP)
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
}

// writePageBytes writes an HTML page of the state page.
func writePageBytes(w http.ResponseWriter, status int, page []byte) {
	h := w.Header()
	pageHeaders(h)
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(page)))
	w.WriteHeader(status)
	_, _ = w.Write(page)
}

// pageRedirect answers a form's POST (or a sign-in link) with a 303 to location.
func pageRedirect(w http.ResponseWriter, location string) {
	pageHeaders(w.Header())
	w.Header().Set("Location", location)
	w.WriteHeader(http.StatusSeeOther)
}
