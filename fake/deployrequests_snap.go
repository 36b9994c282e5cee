package fake

import (
	"fmt"
	"slices"
	"time"

	"github.com/dbplatform/platform-go"
)

// The snapshot of deploy requests and their deployments.

type drSnap struct {
	stampsSnap
	Number       int          `json:"number"`
	Head         string       `json:"head"` // branch IDs
	Into         string       `json:"into"`
	Notes        string       `json:"notes"`
	Creator      string       `json:"creator"`
	CreatorToken string       `json:"creator_token"`
	Open         bool         `json:"open"`
	ClosedAt     time.Time    `json:"closed_at"`
	ClosedBy     string       `json:"closed_by"`
	DeployedAt   time.Time    `json:"deployed_at"`
	Reviews      []reviewSnap `json:"reviews"`
	Deployment   deploySnap   `json:"deployment"`
	// Throttle holds the throttler ratios set.
	Throttle []platform.ThrottlerConfiguration `json:"throttle,omitempty"`
}

type reviewSnap struct {
	stampsSnap
	Actor string               `json:"actor"`
	Token string               `json:"token"`
	State platform.ReviewState `json:"state"`
	Body  string               `json:"body"`
}

type deploySnap struct {
	stampsSnap
	State            platform.DeploymentState `json:"state"`
	Gen              int                      `json:"gen"`
	AutoCutover      bool                     `json:"auto_cutover"`
	AutoDeleteBranch bool                     `json:"auto_delete_branch"`
	Instant          bool                     `json:"instant"`
	Eligible         bool                     `json:"eligible"`
	VSchema          bool                     `json:"vschema"`
	Operations       []opSnap                 `json:"operations"`
	Lint             []*platform.LintError    `json:"lint"`
	CheckErrors      *string                  `json:"check_errors"`
	Before           []tableSnap              `json:"before"`

	Actor          string `json:"actor"`
	CutoverActor   string `json:"cutover_actor"`
	ForceActor     string `json:"force_actor"`
	CancelledActor string `json:"cancelled_actor"`
	RevertActor    string `json:"revert_actor"`

	Queued         time.Time `json:"queued"`
	Submitted      time.Time `json:"submitted"`
	Started        time.Time `json:"started"`
	ReadyToCutover time.Time `json:"ready_to_cutover"`
	ForceCutover   time.Time `json:"force_cutover"`
	CutoverAt      time.Time `json:"cutover_at"`
	Finished       time.Time `json:"finished"`
}

type opSnap struct {
	stampsSnap
	Keyspace string                        `json:"keyspace"`
	Table    string                        `json:"table"`
	Name     platform.DeployOperationName  `json:"name"`
	DDL      string                        `json:"ddl"`
	Create   string                        `json:"create"`
	Prev     string                        `json:"prev,omitempty"`
	State    platform.DeployOperationState `json:"state"`
	Shards   [][2]string                   `json:"shards"`           // [id, name]
	Errors   string                        `json:"errors,omitempty"` // its deploy_errors
}

type tableSnap struct {
	Keyspace string `json:"keyspace"`
	Table    string `json:"table"`
	Create   string `json:"create"`
}

func saveDeployRequests(db *dbRec) []drSnap {
	var out []drSnap
	for _, dr := range db.drs.All() {
		d := dr.dep
		ds := drSnap{
			stampsSnap: saveStamps(dr.stamps), Number: dr.number, Head: dr.head.id, Into: dr.into.id,
			Notes: dr.notes, Creator: idOf(dr.creator), CreatorToken: idOf(dr.creatorToken), Open: dr.open,
			ClosedAt: dr.closedAt, ClosedBy: idOf(dr.closedBy), DeployedAt: dr.deployedAt, Throttle: dr.throttle,
			Deployment: deploySnap{
				stampsSnap: stampsSnap{d.id, d.created, d.updated}, State: d.state, Gen: d.gen,
				AutoCutover: d.autoCutover, AutoDeleteBranch: d.autoDeleteBranch, Instant: d.instant,
				Eligible: d.eligible, VSchema: d.vschema, Lint: d.lint, CheckErrors: d.checkErrors,
				Actor: idOf(d.actor), CutoverActor: idOf(d.cutoverActor), ForceActor: idOf(d.forceActor),
				CancelledActor: idOf(d.cancelledActor), RevertActor: idOf(d.revertActor),
				Queued: d.queued, Submitted: d.submitted, Started: d.started, ReadyToCutover: d.readyToCutover,
				ForceCutover: d.forceCutover, CutoverAt: d.cutoverAt, Finished: d.finished,
			},
		}
		for _, r := range dr.reviews {
			ds.Reviews = append(ds.Reviews, reviewSnap{saveStamps(r.stamps), idOf(r.actor), idOf(r.token), r.state, r.body})
		}
		for _, op := range d.ops {
			os := opSnap{saveStamps(op.stamps), op.keyspace, op.table, op.name, op.ddl, op.create, op.prev, op.state, nil, op.errors}
			for _, sh := range op.shards {
				os.Shards = append(os.Shards, [2]string{sh.id, sh.name})
			}
			ds.Deployment.Operations = append(ds.Deployment.Operations, os)
		}
		for _, t := range d.before {
			ds.Deployment.Before = append(ds.Deployment.Before, tableSnap{t.keyspace, t.table, t.create})
		}
		out = append(out, ds)
	}
	return out
}

func (ld *loader) loadDeployRequests(db *dbRec, list []drSnap, queue []int) error {
	for i, ds := range list {
		dr, err := ld.loadDeployRequest(db, ds)
		if err != nil {
			return at(named(err, "deploy request #%d", ds.Number), "deploy_requests[%d]", i)
		}
		db.drs.Add(dr)
		if db.drByNumber == nil {
			db.drByNumber = map[int]*drRec{}
		}
		db.drByNumber[dr.number] = dr
	}
	for i, n := range queue {
		dr := db.drByNumber[n]
		if dr == nil {
			return at(fmt.Errorf("no deploy request #%d", n), "deploy_queue[%d]", i)
		}
		if slices.Contains(db.deployQueue, dr) {
			return at(fmt.Errorf("deploy request #%d appears twice", n), "deploy_queue[%d]", i)
		}
		if !dr.holdsQueue() {
			return at(fmt.Errorf("deploy request #%d is in the queue, but its deployment is %s, which holds no place in it", n, dr.dep.state), "deploy_queue[%d]", i)
		}
		db.deployQueue = append(db.deployQueue, dr)
	}
	for i, ds := range list {
		if dr := db.drByNumber[ds.Number]; dr.holdsQueue() && !slices.Contains(db.deployQueue, dr) {
			return at(fmt.Errorf("%s, which holds a place in the deploy queue, but deploy request #%d is not in deploy_queue", dr.dep.state, dr.number), "deploy_requests[%d].deployment.state", i)
		}
	}
	return nil
}

// queueStates are the states of a deployment that holds its place in its
// database's deploy queue: from deploy until it completes, is cancelled or
// reverted, or its error is completed (see release).
var queueStates = []platform.DeploymentState{
	platform.DeploymentQueued, platform.DeploymentSubmitting, platform.DeploymentInProgress,
	platform.DeploymentInProgressVSchema, platform.DeploymentPendingCutover, platform.DeploymentInProgressCutover,
	platform.DeploymentCompletePendingRevert, platform.DeploymentInProgressRevert,
	platform.DeploymentInProgressRevertVSchema, platform.DeploymentInProgressCancel,
	platform.DeploymentCompleteError, platform.DeploymentCompleteRevertError,
}

// holdsQueue reports whether the deployment holds a place in the deploy
// queue.
func (dr *drRec) holdsQueue() bool { return dr.in(queueStates...) }

// awaitedStep is the step on the clock that moves the deployment on from
// its state, "" for a state that waits for an action (ready, pending_cutover,
// complete_error, ...), is terminal, or is queued behind another deployment
// into its branch (release schedules its submit).
func (dr *drRec) awaitedStep() deployStep {
	switch dr.dep.state {
	case platform.DeploymentPending:
		return stepCheck
	case platform.DeploymentQueued:
		if len(dr.db.preceding(dr)) == 0 {
			return stepSubmit
		}
	case platform.DeploymentSubmitting:
		return stepStart
	case platform.DeploymentInProgress, platform.DeploymentInProgressVSchema:
		return stepCopied
	case platform.DeploymentInProgressCutover:
		return stepCutoverDone
	case platform.DeploymentCompletePendingRevert:
		return stepComplete
	case platform.DeploymentInProgressRevert, platform.DeploymentInProgressRevertVSchema:
		return stepRevert
	case platform.DeploymentInProgressCancel:
		return stepCancelled
	}
	return ""
}

// checkDeployWaiting refuses a deployment of a live database whose state
// waits on a step of the clock (awaitedStep) with none scheduled at its
// generation, and a step scheduled at its generation that it does not wait
// on (a step of an older generation does nothing when due, and is kept).
// byDR are the snapshot's deployment steps at their deployment's
// generation, with their index in its transitions.
func checkDeployWaiting(snap *worldSnap, dbs map[string]*dbRec, byDR map[*drRec][]indexedStep) error {
	for i, ds := range snap.Databases {
		db := dbs[ds.ID]
		if db.deleted {
			continue // its steps do nothing, and are not saved
		}
		for j, drs := range ds.DeployRequests {
			dr := db.drByNumber[drs.Number]
			want, got := dr.awaitedStep(), byDR[dr]
			if len(got) > 1 {
				return at(fmt.Errorf("a second step of deployment %s at its generation %d (also transitions[%d]): a deployment waits on one step at a time",
					dr.dep.id, dr.dep.gen, got[0].index), "transitions[%d]", got[1].index)
			}
			switch {
			case want != "" && len(got) == 0:
				return at(fmt.Errorf("%s, with no transition on the clock to end it (a deployment.step %q at generation %d)", dr.dep.state, want, dr.dep.gen),
					"databases[%d].deploy_requests[%d].deployment.state", i, j)
			case len(got) == 1 && got[0].step != want:
				waits := "waits on no step of the clock"
				if want != "" {
					waits = fmt.Sprintf("waits on step %q", want)
				}
				return at(fmt.Errorf("step %q of deployment %s, which is %s and %s", got[0].step, dr.dep.id, dr.dep.state, waits),
					"transitions[%d]", got[0].index)
			}
		}
	}
	return nil
}

// indexedStep is a deployment's step on the clock, and its index in the
// snapshot's transitions.
type indexedStep struct {
	step  deployStep
	index int
}

// checkBranches checks a deploy request's branches as create_deploy_request
// does: two branches of its database, and no other open request from its
// head into its base. An open request's base is a live production branch
// with safe migrations on: while it is open, its base cannot be deleted,
// demoted or lose safe migrations (checkNoOpenDeployRequestsInto), unless
// its database goes with them. A closed request's base may have been
// since.
func (dr *drRec) checkBranches() error {
	switch {
	case dr.head.db != dr.db:
		return at(fmt.Errorf("branch %s is of database %s, not %s", dr.head.id, dr.head.db.id, dr.db.id), "head")
	case dr.into.db != dr.db:
		return at(fmt.Errorf("branch %s is of database %s, not %s", dr.into.id, dr.into.db.id, dr.db.id), "into")
	case dr.head == dr.into:
		return at(fmt.Errorf("branch %s is both the head and the base", dr.head.id), "into")
	}
	if dr.open && !dr.db.deleted {
		const gone = "branch %s %s, and an open deploy request into it keeps it from that (checkNoOpenDeployRequestsInto)"
		switch {
		case dr.into.deleted:
			return at(fmt.Errorf(gone, dr.into.id, "is deleted"), "into")
		case !dr.into.production:
			return at(fmt.Errorf(gone, dr.into.id, "is not a production branch"), "into")
		case !dr.into.safeMigrations:
			return at(fmt.Errorf(gone, dr.into.id, "has safe migrations off"), "into")
		}
	}
	for _, other := range dr.db.drs.All() {
		if dr.open && other.open && other.head == dr.head && other.into == dr.into {
			return at(fmt.Errorf("deploy request #%d from %s into %s is open too", other.number, dr.head.id, dr.into.id), "open")
		}
	}
	return nil
}

func (ld *loader) loadDeployRequest(db *dbRec, ds drSnap) (*drRec, error) {
	if ds.Number <= 0 || db.drByNumber[ds.Number] != nil {
		return nil, fmt.Errorf("number missing or twice")
	}
	if ds.Number > db.lastDR {
		return nil, at(fmt.Errorf("%d is after the database's last_deploy_request %d", ds.Number, db.lastDR), "number")
	}
	d := ds.Deployment
	if err := snapCounter(d.Gen); err != nil {
		return nil, at(err, "deployment.gen")
	}
	if err := ds.validateStates(); err != nil {
		return nil, err
	}
	if err := ds.validateTables(); err != nil {
		return nil, err
	}
	dr := &drRec{
		stamps: ds.load(), db: db, number: ds.Number, notes: ds.Notes, open: ds.Open,
		closedAt: ds.ClosedAt, deployedAt: ds.DeployedAt, throttle: ds.Throttle,
		dep: deployRec{
			id: d.ID, created: d.Created, updated: d.Updated, state: d.State, gen: d.Gen,
			autoCutover: d.AutoCutover, autoDeleteBranch: d.AutoDeleteBranch, instant: d.Instant,
			eligible: d.Eligible, vschema: d.VSchema, lint: d.Lint, checkErrors: d.CheckErrors,
			queued: d.Queued, submitted: d.Submitted, started: d.Started, readyToCutover: d.ReadyToCutover,
			forceCutover: d.ForceCutover, cutoverAt: d.CutoverAt, finished: d.Finished,
		},
	}
	users := []struct {
		to *(*userRec)
		id string
	}{
		{&dr.creator, ds.Creator}, {&dr.closedBy, ds.ClosedBy}, {&dr.dep.actor, d.Actor},
		{&dr.dep.cutoverActor, d.CutoverActor}, {&dr.dep.forceActor, d.ForceActor},
		{&dr.dep.cancelledActor, d.CancelledActor}, {&dr.dep.revertActor, d.RevertActor},
	}
	var err error
	for _, u := range users {
		if *u.to, err = ref(ld.users, u.id, "user"); err != nil {
			return nil, err
		}
	}
	if dr.head, err = ref(ld.branches, ds.Head, "head branch"); err != nil {
		return nil, err
	}
	if dr.into, err = ref(ld.branches, ds.Into, "base branch"); err != nil {
		return nil, err
	}
	if dr.head == nil || dr.into == nil {
		return nil, fmt.Errorf("a branch is missing")
	}
	if err := dr.checkBranches(); err != nil {
		return nil, err
	}
	if dr.creatorToken, err = ref(ld.tokens, ds.CreatorToken, "service token"); err != nil {
		return nil, err
	}
	for _, rs := range ds.Reviews {
		r := &reviewRec{stamps: rs.load(), state: rs.State, body: rs.Body}
		if r.actor, err = ref(ld.users, rs.Actor, "reviewer"); err != nil {
			return nil, err
		}
		if r.token, err = ref(ld.tokens, rs.Token, "reviewer's token"); err != nil {
			return nil, err
		}
		dr.reviews = append(dr.reviews, r)
	}
	for _, os := range d.Operations {
		op := &opRec{stamps: os.load(), keyspace: os.Keyspace, table: os.Table, name: os.Name, ddl: os.DDL, create: os.Create, prev: os.Prev, state: os.State, errors: os.Errors}
		for _, sh := range os.Shards {
			op.shards = append(op.shards, shardRec{id: sh[0], name: sh[1]})
		}
		dr.dep.ops = append(dr.dep.ops, op)
	}
	for _, t := range d.Before {
		dr.dep.before = append(dr.dep.before, tableState{t.Keyspace, t.Table, t.Create})
	}
	return dr, nil
}

// validateTables checks the table definitions a deployment holds, as the
// schema diff makes them (planDeploy): each operation's table after it
// (create, "" for a drop) and before it (prev, "" for a create), tables in
// the form the server keeps, its name agreeing with which are there, its
// ddl the statement it shows (the table after, or the drop); and the
// tables it replaced (before, "" for one it created).
func (ds *drSnap) validateTables() error {
	d := ds.Deployment
	for i, op := range d.Operations {
		path := fmt.Sprintf("deployment.operations[%d]", i)
		want := ""
		switch op.Name {
		case platform.OperationCreate:
			want = op.Create
			if op.Create == "" || op.Prev != "" {
				return at(fmt.Errorf("a create has the table after it and none before"), "%s", path)
			}
		case platform.OperationAlter:
			want = op.Create
			if op.Create == "" || op.Prev == "" {
				return at(fmt.Errorf("an alter has the table before and after it"), "%s", path)
			}
		case platform.OperationDrop:
			want = "DROP TABLE `" + op.Table + "`"
			if op.Create != "" || op.Prev == "" {
				return at(fmt.Errorf("a drop has the table before it and none after"), "%s", path)
			}
		}
		for _, f := range []struct{ field, create string }{{"create", op.Create}, {"prev", op.Prev}} {
			if f.create == "" {
				continue
			}
			if err := snapTable(op.Table, f.create); err != nil {
				return at(err, "%s.%s", path, f.field)
			}
		}
		if op.DDL != want {
			return at(fmt.Errorf("%q is not the operation's statement (%q)", snapQuote(op.DDL), snapQuote(want)), "%s.ddl", path)
		}
	}
	for i, t := range d.Before {
		if t.Create == "" {
			continue
		}
		if err := snapTable(t.Table, t.Create); err != nil {
			return at(err, "deployment.before[%d].create", i)
		}
	}
	return nil
}

// validateStates checks the states and names a deploy request holds: its
// deployment's state, its operations' names and states, its reviews'
// states, each one the API has.
func (ds *drSnap) validateStates() error {
	d := ds.Deployment
	errs := []error{at(snapOneOf(d.State, "a deployment state",
		platform.DeploymentPending, platform.DeploymentReady, platform.DeploymentNoChanges, platform.DeploymentQueued,
		platform.DeploymentSubmitting, platform.DeploymentInProgress, platform.DeploymentPendingCutover,
		platform.DeploymentInProgressVSchema, platform.DeploymentInProgressCancel, platform.DeploymentInProgressCutover,
		platform.DeploymentComplete, platform.DeploymentCompleteCancel, platform.DeploymentCompleteError,
		platform.DeploymentCompletePendingRevert, platform.DeploymentInProgressRevert,
		platform.DeploymentInProgressRevertVSchema, platform.DeploymentCompleteRevert,
		platform.DeploymentCompleteRevertError, platform.DeploymentCancelled, platform.DeploymentError), "deployment.state")}
	for i, op := range d.Operations {
		errs = append(errs,
			at(snapOneOf(op.Name, "an operation", platform.OperationCreate, platform.OperationAlter, platform.OperationDrop), "deployment.operations[%d].name", i),
			at(snapOneOf(op.State, "an operation state", platform.OperationPending, platform.OperationQueued,
				platform.OperationInProgress, platform.OperationComplete, platform.OperationCancelled, platform.OperationError), "deployment.operations[%d].state", i))
	}
	for i, r := range ds.Reviews {
		errs = append(errs, at(snapOneOf(r.State, "a review state", platform.ReviewCommented, platform.ReviewApproved), "reviews[%d].state", i))
	}
	return firstErr(errs...)
}
