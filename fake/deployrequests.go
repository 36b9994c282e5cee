package fake

import (
	"html"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dbplatform/platform-go"
)

// drRec is a deploy request.
type drRec struct {
	stamps
	db           *dbRec
	number       int
	head, into   *branchRec
	notes        string
	creator      *userRec
	creatorToken *tokenRec // the service token that opened it, if one did
	open         bool
	closedAt     time.Time
	closedBy     *userRec
	deployedAt   time.Time
	reviews      []*reviewRec
	dep          deployRec
	throttle     []platform.ThrottlerConfiguration // throttler ratios set, by keyspace
}

// deployRec is a deploy request's deployment.
type deployRec struct {
	id                string
	created, updated  time.Time
	state             platform.DeploymentState
	gen               int // bumped by every change of state and scheduled transition; see step
	autoCutover       bool
	autoDeleteBranch  bool
	instant, eligible bool
	vschema           bool // a sharded keyspace changes
	ops               []*opRec
	lint              []*platform.LintError
	checkErrors       *string
	before            []tableState // what the cutover replaced, for a revert
	actor             *userRec
	cutoverActor      *userRec
	forceActor        *userRec // who forced the cutover before the gate
	cancelledActor    *userRec
	revertActor       *userRec // who reverted; closes the deploy request

	queued, submitted, started, readyToCutover time.Time
	forceCutover, cutoverAt, finished          time.Time
}

// reviewRec is a review of a deploy request.
type reviewRec struct {
	stamps
	actor *userRec
	token *tokenRec
	state platform.ReviewState
	body  string
}

func deployRequestRoutes() []route {
	return []route{
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/deploy-queue", op: "get_deploy_queue", handler: read(getDeployQueue)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/deploy-requests", op: "list_deploy_requests", handler: read(listDeployRequests)},
		{pattern: "POST /v1/organizations/{organization}/databases/{database}/deploy-requests", op: "create_deploy_request", handler: withBody(createDeployRequest)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/deploy-requests/{number}", op: "get_deploy_request", handler: read(onDR(nil))},
		{pattern: "PATCH /v1/organizations/{organization}/databases/{database}/deploy-requests/{number}", op: "close_deploy_request", handler: withBody(closeDeployRequest)},
		{pattern: "POST /v1/organizations/{organization}/databases/{database}/deploy-requests/{number}/deploy", op: "queue_deploy_request", handler: withBody(deploy)},
		{pattern: "POST /v1/organizations/{organization}/databases/{database}/deploy-requests/{number}/apply-deploy", op: "complete_gated_deploy_request", handler: act(onDR((*world).applyDeploy))},
		{pattern: "POST /v1/organizations/{organization}/databases/{database}/deploy-requests/{number}/force-cutover", op: "force_cutover_deploy_request", handler: act(onDR((*world).forceCutover))},
		{pattern: "PUT /v1/organizations/{organization}/databases/{database}/deploy-requests/{number}/auto-apply", op: "update_auto_apply", handler: withBody(updateAutoApply)},
		{pattern: "PUT /v1/organizations/{organization}/databases/{database}/deploy-requests/{number}/auto-delete-branch", op: "update_auto_delete_branch", handler: withBody(updateAutoDeleteBranch)},
		{pattern: "POST /v1/organizations/{organization}/databases/{database}/deploy-requests/{number}/cancel", op: "cancel_deploy_request", handler: act(onDR((*world).cancelDeploy))},
		{pattern: "POST /v1/organizations/{organization}/databases/{database}/deploy-requests/{number}/complete-deploy", op: "complete_errored_deploy", handler: act(onDR((*world).completeErrored))},
		{pattern: "POST /v1/organizations/{organization}/databases/{database}/deploy-requests/{number}/revert", op: "complete_revert", handler: act(onDR((*world).revert))},
		{pattern: "POST /v1/organizations/{organization}/databases/{database}/deploy-requests/{number}/skip-revert", op: "skip_revert_period", handler: act(onDR((*world).skipRevert))},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/deploy-requests/{number}/deployment", op: "get_deployment", handler: read(getDeployment)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/deploy-requests/{number}/operations", op: "list_deploy_operations", handler: read(listDeployOperations)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/deploy-requests/{number}/reviews", op: "list_deploy_request_reviews", handler: read(listReviews)},
		{pattern: "POST /v1/organizations/{organization}/databases/{database}/deploy-requests/{number}/reviews", op: "review_deploy_request", handler: withBody(reviewDeployRequest)},
	}
}

// deployRequest finds the path's {number} in the path's database.
func (c *call) deployRequest() (*drRec, error) {
	n, ok := resourceNumber(c.r.PathValue("number"))
	if !ok {
		return nil, c.nothingAt("number")
	}
	dr := c.db.drByNumber[n]
	if dr == nil {
		return nil, c.nothingAt("number")
	}
	return dr, nil
}

// onDR adapts a handler of one deploy request: it finds the request, runs
// fn (nil for a read), and renders the request fn leaves.
func onDR(fn func(w *world, who *principal, dr *drRec) error) func(c *call) (any, error) {
	return func(c *call) (any, error) {
		dr, err := c.deployRequest()
		if err != nil {
			return nil, err
		}
		if fn != nil {
			if err := fn(c.w, c.who, dr); err != nil {
				return nil, err
			}
		}
		return c.w.renderDeployRequest(dr), nil
	}
}

func listDeployRequests(c *call) (any, error) {
	q := c.r.URL.Query()
	state, branch, into := q.Get("state"), q.Get("branch"), q.Get("into_branch")
	switch platform.DeployRequestState(state) {
	case "", platform.DeployRequestOpen, platform.DeployRequestClosed, platform.DeployRequestDeployed:
	default:
		return nil, badRequest("state must be open, closed or deployed, got %q", state)
	}
	// deployed_at and running_at are ranges START..END: deployed within
	// it, and deploying (from its start to its end, or now) at some time
	// in it.
	depFrom, depTo, err := rangeQuery(q.Get("deployed_at"), "deployed_at")
	if err != nil {
		return nil, err
	}
	runFrom, runTo, err := rangeQuery(q.Get("running_at"), "running_at")
	if err != nil {
		return nil, err
	}
	if state == "" && branch == "" && into == "" && depFrom.IsZero() && runFrom.IsZero() {
		return pageOf(c, &c.db.drs, true, c.w.renderDeployRequest), nil
	}
	keep := func(dr *drRec) bool {
		return dr.hasState(platform.DeployRequestState(state)) &&
			(branch == "" || dr.head.name == branch) &&
			(into == "" || dr.into.name == into) &&
			(depFrom.IsZero() || !dr.deployedAt.IsZero() && !dr.deployedAt.Before(depFrom) && !dr.deployedAt.After(depTo)) &&
			(runFrom.IsZero() || dr.ranDuring(runFrom, runTo, c.now))
	}
	return filteredPageOf(c, &c.db.drs, true, keep, c.w.renderDeployRequest), nil
}

// ranDuring reports whether dr's deployment was running at some time from
// from to to: it started, no later than to, and had not finished (ended
// by a cutover, a cancel or an error) before from.
func (dr *drRec) ranDuring(from, to, now time.Time) bool {
	d := dr.dep
	if d.started.IsZero() || d.started.After(to) {
		return false
	}
	end := d.finished
	if end.IsZero() {
		end = now
	}
	return !end.Before(from)
}

// hasState reports whether dr matches a state filter of the list: open,
// closed, deployed (its schema reached the into branch), or "" for any.
func (dr *drRec) hasState(st platform.DeployRequestState) bool {
	switch st {
	case platform.DeployRequestOpen:
		return dr.open
	case platform.DeployRequestClosed:
		return !dr.open
	case platform.DeployRequestDeployed:
		return !dr.deployedAt.IsZero()
	}
	return true
}

func createDeployRequest(c *call, p *platform.CreateDeployRequestParams) (any, error) {
	db := c.db
	if p.IntoBranch == "" {
		p.IntoBranch = db.defaultBranch
	}
	switch {
	case p.Branch == "":
		return nil, unprocessable("branch is required")
	case p.Branch == p.IntoBranch:
		return nil, unprocessable("branch and into_branch are both %q; a deploy request needs two branches", p.Branch)
	}
	head, into := db.branch(p.Branch), db.branch(p.IntoBranch)
	switch {
	case head == nil:
		return nil, unprocessable("branch %q is not a branch of %s", p.Branch, db.name)
	case into == nil:
		return nil, unprocessable("into_branch %q is not a branch of %s", p.IntoBranch, db.name)
	case !head.ready:
		return nil, unprocessable("branch %s is not ready yet", head.name)
	}
	if err := checkIntoBranch(into); err != nil {
		return nil, err
	}
	for _, other := range db.drs.All() {
		if other.open && other.head == head && other.into == into {
			return nil, unprocessable("deploy request #%d from %s into %s is already open", other.number, head.name, into.name)
		}
	}
	db.lastDR++
	dr := &drRec{
		stamps:  stamps{id: c.w.newID(), created: c.now, updated: c.now},
		db:      db,
		number:  db.lastDR,
		head:    head,
		into:    into,
		notes:   p.Notes,
		creator: c.who.user,
		open:    true,
	}
	dr.creatorToken = c.who.token
	dr.dep = deployRec{id: c.w.newID(), created: c.now, updated: c.now, state: platform.DeploymentPending}
	setIf(&dr.dep.autoCutover, p.AutoCutover)
	setIf(&dr.dep.autoDeleteBranch, p.AutoDeleteBranch)
	db.drs.Add(dr)
	if db.drByNumber == nil {
		db.drByNumber = map[int]*drRec{}
	}
	db.drByNumber[dr.number] = dr
	c.w.startFlight(dr.dep.id)
	c.w.emitDR(dr, "deploy_request.opened")
	c.w.step(dr, c.w.timing.DeployStep, stepCheck)
	return c.w.renderDeployRequest(dr), nil
}

// checkIntoBranch says why a branch cannot receive deployments, if it
// cannot: it must be a production branch with safe migrations on.
func checkIntoBranch(into *branchRec) error {
	switch {
	case !into.production:
		return unprocessable("into_branch %s is not a production branch", into.name)
	case !into.safeMigrations:
		return unprocessable("into_branch %s does not have safe migrations enabled", into.name)
	}
	return nil
}

// closeBody is the body of close_deploy_request.
type closeBody struct {
	State string `json:"state"`
}

func closeDeployRequest(c *call, p *closeBody) (any, error) {
	return onDR(func(w *world, _ *principal, dr *drRec) error {
		if p.State != string(platform.DeployRequestClosed) {
			return unprocessable("state must be %q, got %q", platform.DeployRequestClosed, p.State)
		}
		allowed := []platform.DeploymentState{platform.DeploymentPending, platform.DeploymentReady, platform.DeploymentNoChanges, platform.DeploymentError}
		if !dr.open || !dr.in(allowed...) {
			return refuse(dr, "close", allowed...)
		}
		w.setState(dr, platform.DeploymentCancelled)
		w.closeDR(dr, c.who.user)
		return nil
	})(c)
}

func deploy(c *call, p *platform.DeployParams) (any, error) {
	return onDR(func(w *world, _ *principal, dr *drRec) error {
		if dr.open && dr.head.deleted {
			return unprocessable("cannot deploy deploy request #%d: its branch %s was deleted (its deployment is %s), and a deployment needs the branch it deploys from",
				dr.number, dr.head.name, dr.dep.state)
		}
		if !dr.open || !dr.in(platform.DeploymentReady) {
			return refuse(dr, "deploy", platform.DeploymentReady)
		}
		if err := checkIntoBranch(dr.into); err != nil {
			return err
		}
		if dr.db.requireApproval && !dr.approved() {
			return unprocessable("deploy request #%d needs an approving review: %s requires approval for deploys", dr.number, dr.db.name)
		}
		instant := p.InstantDDL != nil && *p.InstantDDL
		if instant && !dr.dep.eligible {
			return unprocessable("deploy request #%d is not instant_ddl_eligible; deploy it without instant_ddl", dr.number)
		}
		dr.dep.instant = instant
		dr.dep.actor = c.who.user
		dr.dep.queued, dr.dep.submitted = c.now, c.now
		w.setState(dr, platform.DeploymentQueued)
		dr.db.deployQueue = append(dr.db.deployQueue, dr)
		w.emitDR(dr, "deploy_request.queued")
		if len(dr.db.preceding(dr)) == 0 {
			w.step(dr, w.timing.DeployStep, stepSubmit)
		}
		return nil
	})(c)
}

func (w *world) applyDeploy(who *principal, dr *drRec) error {
	if !dr.in(platform.DeploymentPendingCutover) {
		return refuse(dr, "apply", platform.DeploymentPendingCutover)
	}
	w.cutover(dr, who.user)
	return nil
}

func (w *world) forceCutover(who *principal, dr *drRec) error {
	early := []platform.DeploymentState{platform.DeploymentQueued, platform.DeploymentSubmitting, platform.DeploymentInProgress, platform.DeploymentInProgressVSchema}
	switch {
	case dr.in(platform.DeploymentPendingCutover):
		dr.dep.forceCutover = w.clock.Now()
		w.cutover(dr, who.user)
	case dr.in(early...):
		dr.dep.forceCutover = w.clock.Now()
		dr.dep.forceActor = who.user
		dr.dep.updated, dr.updated = w.clock.Now(), w.clock.Now()
	default:
		return refuse(dr, "force the cutover of", append(early, platform.DeploymentPendingCutover)...)
	}
	return nil
}

// toggleBody is the body of the auto-apply and auto-delete-branch toggles.
type toggleBody struct {
	Enable *bool `json:"enable"`
}

// togglable are the states in which the toggles may change.
var togglable = []platform.DeploymentState{
	platform.DeploymentPending, platform.DeploymentReady, platform.DeploymentQueued,
	platform.DeploymentSubmitting, platform.DeploymentInProgress,
	platform.DeploymentInProgressVSchema, platform.DeploymentPendingCutover,
}

func updateAutoApply(c *call, p *toggleBody) (any, error) {
	return onDR(func(w *world, _ *principal, dr *drRec) error {
		if p.Enable == nil {
			return unprocessable("enable is required: true or false")
		}
		if !dr.open || !dr.in(togglable...) {
			return refuse(dr, "change auto-apply of", togglable...)
		}
		dr.dep.autoCutover = *p.Enable
		dr.dep.updated, dr.updated = c.now, c.now
		if *p.Enable && dr.in(platform.DeploymentPendingCutover) {
			w.cutover(dr, c.who.user)
		}
		return nil
	})(c)
}

// branchTogglable are the states in which auto-delete-branch may change:
// every state that is not terminal.
var branchTogglable = slices.Concat(togglable, []platform.DeploymentState{
	platform.DeploymentInProgressCutover, platform.DeploymentInProgressCancel,
	platform.DeploymentCompletePendingRevert, platform.DeploymentInProgressRevert,
	platform.DeploymentInProgressRevertVSchema,
})

func updateAutoDeleteBranch(c *call, p *toggleBody) (any, error) {
	return onDR(func(_ *world, _ *principal, dr *drRec) error {
		if p.Enable == nil {
			return unprocessable("enable is required: true or false")
		}
		if !dr.open || dr.dep.state.IsTerminal() {
			return refuse(dr, "change auto-delete-branch of", branchTogglable...)
		}
		dr.dep.autoDeleteBranch = *p.Enable
		dr.dep.updated, dr.updated = c.now, c.now
		return nil
	})(c)
}

func (w *world) cancelDeploy(who *principal, dr *drRec) error {
	allowed := []platform.DeploymentState{platform.DeploymentQueued, platform.DeploymentSubmitting, platform.DeploymentInProgress, platform.DeploymentPendingCutover}
	if !dr.in(allowed...) {
		return refuse(dr, "cancel", allowed...)
	}
	dr.dep.cancelledActor = who.user
	w.setState(dr, platform.DeploymentInProgressCancel)
	w.step(dr, w.timing.DeployStep, stepCancelled)
	return nil
}

func (w *world) completeErrored(who *principal, dr *drRec) error {
	allowed := []platform.DeploymentState{platform.DeploymentCompleteError, platform.DeploymentCompleteRevertError}
	if !dr.in(allowed...) {
		return refuse(dr, "complete", allowed...)
	}
	w.complete(dr)
	return nil
}

func (w *world) revert(who *principal, dr *drRec) error {
	if !dr.in(platform.DeploymentCompletePendingRevert) {
		return refuse(dr, "revert", platform.DeploymentCompletePendingRevert)
	}
	dr.dep.revertActor = who.user
	w.setState(dr, platform.DeploymentInProgressRevert)
	w.step(dr, w.timing.DeployRevert, stepRevert)
	return nil
}

func (w *world) skipRevert(who *principal, dr *drRec) error {
	if !dr.in(platform.DeploymentCompletePendingRevert) {
		return refuse(dr, "skip the revert window of", platform.DeploymentCompletePendingRevert)
	}
	w.complete(dr)
	return nil
}

func getDeployment(c *call) (any, error) {
	dr, err := c.deployRequest()
	if err != nil {
		return nil, err
	}
	return c.w.renderDeployment(dr, true), nil
}

func listDeployOperations(c *call) (any, error) {
	dr, err := c.deployRequest()
	if err != nil {
		return nil, err
	}
	ops := dr.dep.ops
	lo := min((c.page-1)*c.perPage, len(ops))
	hi := min(lo+c.perPage, len(ops))
	copied := dr.dep.copied()
	return listOf(c, ops[lo:hi], len(ops), false, func(op *opRec) *platform.DeployOperation { return renderDeployOperation(op, copied) }), nil
}

func getDeployQueue(c *call) (any, error) {
	q := c.db.deployQueue
	lo := min((c.page-1)*c.perPage, len(q))
	hi := min(lo+c.perPage, len(q))
	return listOf(c, q[lo:hi], len(q), false, func(dr *drRec) *platform.Deployment { return c.w.renderDeployment(dr, true) }), nil
}

func listReviews(c *call) (any, error) {
	dr, err := c.deployRequest()
	if err != nil {
		return nil, err
	}
	lo := min((c.page-1)*c.perPage, len(dr.reviews))
	hi := min(lo+c.perPage, len(dr.reviews))
	return listOf(c, dr.reviews[lo:hi], len(dr.reviews), false, renderReview), nil
}

func reviewDeployRequest(c *call, p *platform.ReviewParams) (any, error) {
	dr, err := c.deployRequest()
	if err != nil {
		return nil, err
	}
	switch p.State {
	case platform.ReviewCommented, platform.ReviewApproved:
	case "":
		return nil, unprocessable("state is required: commented or approved")
	default:
		return nil, unprocessable("state %q is not commented or approved", p.State)
	}
	if p.State == platform.ReviewApproved && !c.holds([]string{"approve_deploy_request"}, []string{"approve_deploy_requests"}, nil) {
		// review_deploy_request lets a token comment; approving takes
		// approve_deploy_request, and lacking a permission is a 404.
		return nil, notFound()
	}
	if !dr.open {
		return nil, unprocessable("cannot review deploy request #%d: it is closed (deployment %s)", dr.number, dr.dep.state)
	}
	if p.State == platform.ReviewApproved && dr.db.requireApproval {
		if err := dr.mayApprove(c.who.token, c.who.user); err != nil {
			return nil, err
		}
	}
	r := &reviewRec{stamps: stamps{id: c.w.newID(), created: c.now, updated: c.now}, actor: c.who.user, token: c.who.token, state: p.State, body: p.Body}
	dr.reviews = append(dr.reviews, r)
	dr.updated = c.now
	return renderReview(r), nil
}

// mayApprove applies the spec's approval rules to a reviewer acting with
// token (nil for a user acting through OAuth) as user: a service token
// cannot approve a request it opened (rule 1), and a user cannot approve a
// request they opened or that a service token they created opened (rule
// 2). Rule 2 is about users: another service token, even one created by
// the same user, may approve.
func (dr *drRec) mayApprove(token *tokenRec, user *userRec) error {
	switch {
	case token != nil && token == dr.creatorToken:
		return forbidden("a service token cannot approve a deploy request it created")
	case token == nil && dr.creatorToken == nil && user == dr.creator:
		return forbidden("you cannot approve your own deploy request")
	case token == nil && dr.creatorToken != nil && dr.creatorToken.creator == user:
		return forbidden("you cannot approve a deploy request created by a service token you created")
	}
	return nil
}

// approved reports whether an approving review by someone the approval
// rules allow stands. An approval recorded while the database did not
// require approval counts only if it would pass the rules now.
func (dr *drRec) approved() bool {
	for _, r := range dr.reviews {
		if r.state == platform.ReviewApproved && dr.mayApprove(r.token, r.actor) == nil {
			return true
		}
	}
	return false
}

// openDeployRequestsInto returns the open deploy requests into b, by
// number.
func (b *branchRec) openDeployRequestsInto() []*drRec {
	var out []*drRec
	for _, dr := range b.db.drs.All() {
		if dr.open && dr.into == b {
			out = append(out, dr)
		}
	}
	return out
}

// checkNoOpenDeployRequestsInto says why b cannot stop taking deployments
// (be deleted, demoted, or lose safe migrations): what, says the
// refusal's message, if open deploy requests go into it.
func (b *branchRec) checkNoOpenDeployRequestsInto(what string) error {
	open := b.openDeployRequestsInto()
	if len(open) == 0 {
		return nil
	}
	numbers := make([]string, len(open))
	for i, dr := range open {
		numbers[i] = "#" + strconv.Itoa(dr.number)
	}
	return unprocessable("branch %s %s: open deploy request(s) %s go into it; close them first", b.name, what, strings.Join(numbers, ", "))
}

// renderDeployRequest renders a deploy request as the API shows it.
func (w *world) renderDeployRequest(dr *drRec) *platform.DeployRequest {
	base := w.base
	sharded, shards := false, 0
	for _, ks := range dr.into.keyspaces.All() {
		shards += ks.shards
		sharded = sharded || ks.shards > 1
	}
	comments := 0
	for _, r := range dr.reviews {
		if r.body != "" {
			comments++
		}
	}
	out := &platform.DeployRequest{
		ID:                      dr.id,
		Type:                    "DeployRequest",
		Number:                  dr.number,
		Actor:                   renderActor(dr.creator),
		ClosedBy:                renderActor(dr.closedBy),
		Branch:                  dr.head.name,
		BranchID:                dr.head.id,
		BranchDeleted:           dr.head.deleted,
		IntoBranch:              dr.into.name,
		IntoBranchSharded:       sharded,
		IntoBranchShardCount:    shards,
		IntoBranchKeyspaceCount: dr.into.keyspaces.Len(),
		Approved:                dr.approved(),
		State:                   platform.DeployRequestClosed,
		DeploymentState:         dr.dep.state,
		Deployment:              w.renderDeployment(dr, true),
		NumComments:             comments,
		HTMLURL:                 base + dr.db.org.name + "/" + dr.db.name + "/deploy-requests/" + strconv.Itoa(dr.number),
		Notes:                   dr.notes,
		HTMLBody:                "<p>" + html.EscapeString(dr.notes) + "</p>",
		CreatedAt:               platform.NewTimestamp(dr.created),
		UpdatedAt:               platform.NewTimestamp(dr.updated),
		ClosedAt:                ptrTime(dr.closedAt),
		DeployedAt:              ptrTime(dr.deployedAt),
	}
	if dr.open {
		out.State = platform.DeployRequestOpen
	}
	if dr.head.deleted {
		out.BranchDeletedAt = ptrTime(dr.head.deletedAt)
		out.BranchDeletedBy = renderActor(dr.head.more.read().deletedBy)
	}
	return out
}

// renderDeployment renders a deployment; withQueue adds the deployments
// ahead of it (rendered without their own queue).
func (w *world) renderDeployment(dr *drRec, withQueue bool) *platform.Deployment {
	d := &dr.dep
	out := &platform.Deployment{
		ID:                         d.id,
		Type:                       "Deployment",
		State:                      d.state,
		AutoCutover:                d.autoCutover,
		AutoDeleteBranch:           d.autoDeleteBranch,
		IntoBranch:                 dr.into.name,
		DeployRequestNumber:        dr.number,
		Deployable:                 d.state == platform.DeploymentReady && !dr.head.deleted,
		InstantDDL:                 d.instant,
		InstantDDLEligible:         d.eligible,
		DeployCheckErrors:          d.checkErrors,
		PrecedingDeployments:       []*platform.Deployment{},
		DeployOperations:           make([]*platform.DeployOperation, 0, len(d.ops)),
		DeployOperationSummaries:   make([]*platform.DeployOperationSummary, 0, len(d.ops)),
		LintErrors:                 d.lint,
		SequentialDiffDependencies: []map[string]any{},
		LookupVindexOperations:     []map[string]any{},
		ThrottlerConfigurations:    renderDeploymentThrottler(dr),
		Actor:                      renderActor(d.actor),
		CutoverActor:               renderActor(d.cutoverActor),
		CancelledActor:             renderActor(d.cancelledActor),
		CreatedAt:                  platform.NewTimestamp(d.created),
		UpdatedAt:                  platform.NewTimestamp(d.updated),
		QueuedAt:                   ptrTime(d.queued),
		SubmittedAt:                ptrTime(d.submitted),
		StartedAt:                  ptrTime(d.started),
		ReadyToCutoverAt:           ptrTime(d.readyToCutover),
		ForceCutoverRequestedAt:    ptrTime(d.forceCutover),
		CutoverAt:                  ptrTime(d.cutoverAt),
		FinishedAt:                 ptrTime(d.finished),
		SchemaLastUpdatedAt:        ptrTime(dr.head.schemaUpdated),
	}
	if out.LintErrors == nil {
		out.LintErrors = []*platform.LintError{}
	}
	for _, op := range d.ops {
		out.DeployOperations = append(out.DeployOperations, renderDeployOperation(op, d.copied()))
		out.DeployOperationSummaries = append(out.DeployOperationSummaries, renderOperationSummary(op, d.copied()))
	}
	if withQueue {
		for _, p := range dr.db.preceding(dr) {
			out.PrecedingDeployments = append(out.PrecedingDeployments, w.renderDeployment(p, false))
		}
	}
	return out
}

// renderDeployOperation renders an operation of a deployment; copied
// says whether the deployment's copy has finished (see progress).
func renderDeployOperation(op *opRec, copied bool) *platform.DeployOperation {
	out := &platform.DeployOperation{
		ID:                     op.id,
		Type:                   "DeployOperation",
		State:                  op.state,
		KeyspaceName:           op.keyspace,
		TableName:              op.table,
		OperationName:          op.name,
		ETASeconds:             platform.Ptr(0.0),
		ProgressPercentage:     platform.Ptr(progress(op.state, copied)),
		DDLStatement:           op.ddl,
		SyntaxHighlightedDDL:   "<pre>" + html.EscapeString(op.ddl) + "</pre>",
		CreatedAt:              platform.NewTimestamp(op.created),
		UpdatedAt:              platform.NewTimestamp(op.updated),
		CanDropData:            op.name == platform.OperationDrop,
		RemovedForeignKeyNames: []string{},
	}
	if op.errors != "" {
		out.DeployErrors = platform.Ptr(op.errors)
	}
	return out
}

// renderOperationSummary renders the summary of an operation across its
// shards; copied as for renderDeployOperation.
func renderOperationSummary(op *opRec, copied bool) *platform.DeployOperationSummary {
	// A summary has no queued state: queued on its shards is pending here.
	state := op.state
	if state == platform.OperationQueued {
		state = platform.OperationPending
	}
	out := &platform.DeployOperationSummary{
		ID:                     op.id,
		Type:                   "DeployOperationSummary",
		State:                  state,
		KeyspaceName:           op.keyspace,
		TableName:              op.table,
		OperationName:          op.name,
		ProgressPercentage:     progress(op.state, copied),
		DDLStatement:           op.ddl,
		SyntaxHighlightedDDL:   "<pre>" + html.EscapeString(op.ddl) + "</pre>",
		CreatedAt:              platform.NewTimestamp(op.created),
		CanDropData:            op.name == platform.OperationDrop,
		RemovedForeignKeyNames: []string{},
		DeployErrors:           op.errors,
		ShardCount:             len(op.shards),
		ShardNames:             make([]string, 0, len(op.shards)),
		Sharded:                len(op.shards) > 1,
		Operations:             make([]*platform.ShardOperationSummary, 0, len(op.shards)),
	}
	for _, sh := range op.shards {
		out.ShardNames = append(out.ShardNames, sh.name)
		out.Operations = append(out.Operations, &platform.ShardOperationSummary{
			ID: sh.id, Type: "DeployOperationShard", Shard: sh.name, State: op.state,
			ProgressPercentage: progress(op.state, copied),
		})
	}
	return out
}

// progress is an operation's completion in percent: 100 once complete,
// and once the deployment's copy has finished (copied) while the
// operation runs on, following the table's writes, until the cutover
// completes it; 0 before.
func progress(st platform.DeployOperationState, copied bool) float64 {
	if st == platform.OperationComplete || st == platform.OperationInProgress && copied {
		return 100
	}
	return 0
}

// copied reports whether the deployment's copy has finished: in_progress
// is over (the VSchema step, the cutover gate or the cutover are reached).
func (d *deployRec) copied() bool {
	return !d.readyToCutover.IsZero() || d.state == platform.DeploymentInProgressVSchema
}

func renderReview(r *reviewRec) *platform.DeployRequestReview {
	return &platform.DeployRequestReview{
		ID:        r.id,
		Type:      "DeployRequestReview",
		Body:      r.body,
		HTMLBody:  "<p>" + html.EscapeString(r.body) + "</p>",
		State:     r.state,
		Actor:     renderActor(r.actor),
		CreatedAt: platform.NewTimestamp(r.created),
		UpdatedAt: platform.NewTimestamp(r.updated),
	}
}
