package fake

import (
	"fmt"
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
			return fmt.Errorf("deploy queue: no deploy request #%d", n)
		}
		for _, queued := range db.deployQueue {
			if queued == dr {
				return at(fmt.Errorf("deploy request #%d appears twice", n), "deploy_queue[%d]", i)
			}
		}
		db.deployQueue = append(db.deployQueue, dr)
	}
	return nil
}

// checkBranches checks a deploy request's branches as create_deploy_request
// does: two branches of its database, and no other open request from its
// head into its base. Whether the base is a production branch is not
// checked: a demote makes it a development branch, whatever the request's
// state.
func (dr *drRec) checkBranches() error {
	switch {
	case dr.head.db != dr.db:
		return at(fmt.Errorf("branch %s is of database %s, not %s", dr.head.id, dr.head.db.id, dr.db.id), "head")
	case dr.into.db != dr.db:
		return at(fmt.Errorf("branch %s is of database %s, not %s", dr.into.id, dr.into.db.id, dr.db.id), "into")
	case dr.head == dr.into:
		return at(fmt.Errorf("branch %s is both the head and the base", dr.head.id), "into")
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
