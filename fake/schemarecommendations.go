package fake

import (
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/dbplatform/platform-go"
)

// recRec is a schema recommendation of a database.
type recRec struct {
	stamps
	db     *dbRec
	number int
	finding
	state              platform.SchemaRecommendationState
	applied, dismissed time.Time
	closedBy           *drRec // the deploy request whose deployment applied it
	dismissedBy        *userRec
	reason             string
}

// ListKey orders recommendations by number, the order they were created
// in (several may be created at one time).
func (r *recRec) ListKey() key { return key{At: time.Time{}.Add(time.Duration(r.number))} }

// recStore holds a database's schema recommendations.
type recStore struct {
	list     index[*recRec]
	byNumber map[int]*recRec // nil until the first
	last     int             // the newest number
	open     int             // how many are open
}

// init makes the store ready for its first recommendation.
func (st *recStore) init() *recStore {
	if st.byNumber == nil {
		st.byNumber = map[int]*recRec{}
	}
	return st
}

// maxDismissReason bounds a dismissal's reason, in characters.
const maxDismissReason = 500

func schemaRecommendationRoutes() []route {
	return []route{
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/schema-recommendations", op: "list_schema_recommendations", handler: read(listSchemaRecommendations)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/schema-recommendations/{number}", op: "get_schema_recommendation", handler: read(getSchemaRecommendation)},
		{pattern: "POST /v1/organizations/{organization}/databases/{database}/schema-recommendations/{number}/dismiss", op: "dismiss_schema_recommendation", handler: withBody(dismissSchemaRecommendation)},
	}
}

func listSchemaRecommendations(c *call) (any, error) {
	state := platform.SchemaRecommendationState(c.r.URL.Query().Get("state"))
	var keep func(*recRec) bool
	switch state {
	case "":
	case platform.RecommendationOpen:
		keep = func(r *recRec) bool { return r.state == platform.RecommendationOpen }
	case platform.RecommendationClosed:
		keep = func(r *recRec) bool { return r.state != platform.RecommendationOpen }
	default:
		return nil, badRequest("state must be open or closed, got %q", state)
	}
	st := &recStore{}
	if c.db.extra.peek() != nil {
		st = &c.db.extra.peek().recs
	}
	if keep == nil {
		return pageOf(c, &st.list, true, c.w.renderRecommendation), nil
	}
	return filteredPageOf(c, &st.list, true, keep, c.w.renderRecommendation), nil
}

// recommendation finds the path's {number} in the path's database.
func (c *call) recommendation() (*recRec, error) {
	n, ok := resourceNumber(c.r.PathValue("number"))
	if !ok || c.db.extra.peek() == nil || c.db.extra.peek().recs.byNumber[n] == nil {
		return nil, c.nothingAt("number")
	}
	return c.db.extra.peek().recs.byNumber[n], nil
}

func getSchemaRecommendation(c *call) (any, error) {
	r, err := c.recommendation()
	if err != nil {
		return nil, err
	}
	return c.w.renderRecommendation(r), nil
}

func dismissSchemaRecommendation(c *call, p *platform.DismissSchemaRecommendationParams) (any, error) {
	r, err := c.recommendation()
	if err != nil {
		return nil, err
	}
	switch {
	case r.state != platform.RecommendationOpen:
		return nil, unprocessable("schema recommendation #%d is %s; only an open one can be dismissed", r.number, r.state)
	case p.Reason != nil && utf8.RuneCountInString(*p.Reason) > maxDismissReason:
		return nil, unprocessable("reason is %d characters; at most %d", utf8.RuneCountInString(*p.Reason), maxDismissReason)
	}
	r.state = platform.RecommendationDismissed
	r.dismissed, r.updated = c.now, c.now
	r.dismissedBy = c.who.user
	if p.Reason != nil {
		r.reason = *p.Reason
	}
	c.db.extra.peek().recs.open--
	return c.w.renderRecommendation(r), nil
}

// schemaChanged follows a change of b's schema: by is the deploy request
// whose deployment changed it, nil for any other change. The open deploy
// requests from b not yet deployed check again (recheck), and a
// change of the database's default branch recomputes its schema
// recommendations.
func (w *world) schemaChanged(b *branchRec, by *drRec) {
	b.db.pruneTableSizes()
	w.recheck(b)
	if b.name == b.db.defaultBranch {
		w.recommend(b.db, b, by)
	}
}

// recommend brings db's schema recommendations in line with the schema of
// b, its default branch: an open recommendation whose advice no longer
// holds is applied (by the deploy request by, if any) or, when its table
// has gone, stale; advice that no open or dismissed recommendation gives
// yet is a new open recommendation, numbered next. It emits no event:
// branch.schema_recommendation is one a test emits (Server.Emit), as
// decisions.md has it.
func (w *world) recommend(db *dbRec, b *branchRec, by *drRec) {
	now := w.clock.Now()
	found := schemaFindings(b)
	holds := make(map[string]bool, len(found))
	for _, f := range found {
		holds[f.key()] = true
	}
	given := map[string]bool{}
	if db.extra.peek() != nil {
		st := &db.extra.peek().recs
		for _, r := range st.list.All() {
			k := r.key()
			switch {
			case r.state == platform.RecommendationDismissed:
				given[k] = true
			case r.state != platform.RecommendationOpen:
			case holds[k]:
				given[k] = true
			default:
				r.state, r.updated = platform.RecommendationStale, now
				if ks := b.keyspace(r.keyspace); ks != nil && ks.tables[r.table] != "" {
					r.state, r.applied, r.closedBy = platform.RecommendationApplied, now, by
				}
				st.open--
			}
		}
	}
	for _, f := range found {
		if given[f.key()] {
			continue
		}
		st := db.extras().recs.init()
		st.last++
		r := &recRec{
			stamps:  stamps{id: w.newID(), created: now, updated: now},
			db:      db,
			number:  st.last,
			finding: f,
			state:   platform.RecommendationOpen,
		}
		st.list.Add(r)
		st.byNumber[r.number] = r
		st.open++
		given[f.key()] = true
	}
}

// openRecommendations is how many of db's schema recommendations are open.
func (db *dbRec) openRecommendations() int {
	if db.extra.peek() == nil {
		return 0
	}
	return db.extra.peek().recs.open
}

// renderRecommendation renders a schema recommendation as the API shows
// it.
func (w *world) renderRecommendation(r *recRec) *platform.SchemaRecommendation {
	out := &platform.SchemaRecommendation{
		ID:                 r.id,
		HTMLURL:            w.base + r.db.org.name + "/" + r.db.name + "/insights/recommendations/" + strconv.Itoa(r.number),
		Title:              r.title,
		TableName:          r.table,
		Keyspace:           r.keyspace,
		DDLStatement:       r.statement,
		Number:             r.number,
		State:              r.state,
		RecommendationType: r.kind,
		CreatedAt:          platform.NewTimestamp(r.created),
		UpdatedAt:          platform.NewTimestamp(r.updated),
		AppliedAt:          ptrTime(r.applied),
		DismissedAt:        ptrTime(r.dismissed),
		DismissedBy:        renderActor(r.dismissedBy),
	}
	if dr := r.closedBy; dr != nil {
		out.ClosedByDeployRequest = &platform.DeployRequestRef{ID: dr.id, BranchID: dr.head.id, Number: dr.number}
	}
	return out
}
