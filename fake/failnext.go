package fake

import (
	"errors"
	"fmt"
)

// failNextOf makes the next transition of id fail; id must name a
// resource with transitions ahead, or a deploy request whose deployment
// has them.
func (w *world) failNextOf(id string) error {
	if id == "" {
		return errors.New("an ID is required: the ID of a resource with a transition ahead")
	}
	target := id
	if !w.failable(id) {
		kind, dep := w.kindOfID(id)
		switch {
		case dep != "" && w.failable(dep):
			target = dep
		case kind == "deploy request":
			return fmt.Errorf("deploy request %q has no transition ahead: its deployment has settled", id)
		case kind != "":
			return fmt.Errorf("%q is a %s, and FailNext does not fail a %s's transitions; it fails those of %s", id, kind, kind, failableKinds)
		default:
			return fmt.Errorf("no resource %q with a transition ahead", id)
		}
	}
	if err := w.checkDeploymentFailable(target); err != nil {
		return err
	}
	if w.failNext == nil {
		w.failNext = map[string]bool{}
	}
	w.failNext[target] = true
	return nil
}

// failableKinds are the resources whose transitions FailNext fails.
const failableKinds = "backups, switchovers, deployments (by their ID or their deploy request's), " +
	"new keyspaces and bouncers, keyspace settings changes, bouncer resizes, workflows, data imports, " +
	"Vitess operations, VDiffs, query-pattern reports and authentication-attempt exports"

// kindOfID names the kind of the live database, branch or deploy request
// with the ID ("" when none has it), and for a deploy request, its
// deployment's ID. It visits every one: FailNext asks only after the ID
// named no resource with a transition ahead.
func (w *world) kindOfID(id string) (kind, deployment string) {
	for _, org := range w.orgIdx.All() {
		for _, db := range org.dbs.All() {
			if db.id == id {
				return "database", ""
			}
			for _, b := range db.branchIdx.All() {
				if b.id == id {
					return "branch", ""
				}
			}
			for _, dr := range db.drs.All() {
				if dr.id == id {
					return "deploy request", dr.dep.id
				}
			}
		}
	}
	return "", ""
}

// takeFailure reports whether the next transition of id must fail, and
// consumes the instruction.
func (w *world) takeFailure(id string) bool {
	if !w.failNext[id] {
		return false
	}
	delete(w.failNext, id)
	return true
}

// failable reports whether id names a resource with transitions ahead.
func (w *world) failable(id string) bool { return w.inFlight[id] }

// startFlight marks a resource as having transitions ahead, so that
// FailNext accepts its ID.
func (w *world) startFlight(id string) { w.inFlight[id] = true }

// endFlight marks a resource as settled.
func (w *world) endFlight(id string) { delete(w.inFlight, id) }
