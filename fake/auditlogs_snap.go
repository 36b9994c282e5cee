package fake

import (
	"cmp"
	"fmt"
	"slices"
	"time"
)

// The snapshot of the audit logs. They are in the snapshot, unlike the
// request log and the event stream: the API serves them (list_audit_logs),
// so a restored server must answer as the one snapshotted did, and go on
// numbering entries where it left off.

// auditLogSnap is every organization's audit log and the sequence number
// of the last entry.
type auditLogSnap struct {
	Seq     uint64      `json:"seq"`
	Entries []auditSnap `json:"entries"` // oldest first (by seq), whatever their organization
}

// auditSnap is an entry; references are by name or ID, as it renders
// them, so that an entry outlives what it names.
type auditSnap struct {
	Seq          uint64    `json:"seq"`
	Organization string    `json:"organization"` // its ID
	At           time.Time `json:"at"`
	Operation    string    `json:"operation"`
	ActorType    string    `json:"actor_type,omitempty"`
	ActorID      string    `json:"actor_id,omitempty"`
	ActorName    string    `json:"actor_name,omitempty"`
	DatabaseID   string    `json:"database_id,omitempty"`
	DatabaseName string    `json:"database_name,omitempty"`
	TargetID     string    `json:"target_id,omitempty"`
	TargetName   string    `json:"target_name,omitempty"`
	Path         string    `json:"path"`
	RemoteIP     string    `json:"remote_ip,omitempty"`
}

// auditLog saves the entries of every organization's log in the order
// they were recorded, which the loader checks: the logs of two
// organizations interleave.
func (sv *saver) auditLog() auditLogSnap {
	out := auditLogSnap{Seq: sv.w.audit.seq}
	for _, org := range sv.w.orgIdx.All() {
		log := sv.w.audit.byOrg[org]
		if log == nil {
			continue
		}
		log.all(func(e auditRec) {
			out.Entries = append(out.Entries, auditSnap{
				Seq: e.seq, Organization: org.id, At: e.at, Operation: e.shape.op,
				ActorType: e.actor.kind, ActorID: e.actor.id, ActorName: e.actor.name,
				DatabaseID: e.dbID, DatabaseName: e.dbName,
				TargetID: e.targetID, TargetName: e.targetName,
				Path: e.path, RemoteIP: e.remoteIP,
			})
		})
	}
	slices.SortFunc(out.Entries, func(a, b auditSnap) int { return cmp.Compare(a.Seq, b.Seq) })
	return out
}

// loadAuditLog rebuilds the logs, unbounded: the server bounds them to
// its limit when it installs the world.
func (ld *loader) loadAuditLog(snap auditLogSnap) error {
	l := &ld.w.audit
	for _, es := range snap.Entries {
		org, err := ref(ld.orgs, es.Organization, "audit log entry's organization")
		if err != nil {
			return err
		}
		if org == nil {
			return fmt.Errorf("audit log entry %d: no organization", es.Seq)
		}
		sh := auditShapes[es.Operation]
		if sh == nil {
			return fmt.Errorf("audit log entry %d: operation %q changes nothing the audit log records", es.Seq, es.Operation)
		}
		if es.Seq <= l.seq || es.Seq > snap.Seq {
			return fmt.Errorf("audit log entry %d: out of order (after entry %d, the last being %d)", es.Seq, l.seq, snap.Seq)
		}
		l.seq = es.Seq - 1
		l.add(org, auditRec{
			at: es.At, shape: sh,
			actor: auditActor{kind: es.ActorType, id: es.ActorID, name: es.ActorName},
			dbID:  es.DatabaseID, dbName: es.DatabaseName,
			targetID: es.TargetID, targetName: es.TargetName,
			path: es.Path, remoteIP: es.RemoteIP,
		})
	}
	l.seq = snap.Seq
	return nil
}
