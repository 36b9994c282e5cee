package fake

import (
	"html"
	"time"

	"github.com/dbplatform/platform-go"
)

// This file holds the renderings that several resource groups share: a
// nullable time, an actor, a user, a branch's short form, and the parts of
// one group that another's resources show (a backup's policy, a
// deployment's throttler, a branch's query routers, the insights' budgets).

// renderBranchRef renders the short form of a branch.
func renderBranchRef(b *branchRec) *platform.BranchRef {
	ref := &platform.BranchRef{ID: b.id, Name: b.name, CreatedAt: platform.NewTimestamp(b.created), UpdatedAt: platform.NewTimestamp(b.updated)}
	if b.deleted {
		ref.DeletedAt = ptrTime(b.deletedAt)
	}
	return ref
}

// renderActor renders a user as the actor of something; nil for none.
func renderActor(u *userRec) *platform.Actor {
	if u == nil {
		return nil
	}
	return &platform.Actor{ID: u.id, Type: "User", DisplayName: u.name, AvatarURL: "https://avatars.example.com/" + u.id}
}

// ptrTime renders a time that may be absent (zero) as a nullable timestamp.
func ptrTime(t time.Time) *platform.Timestamp {
	if t.IsZero() {
		return nil
	}
	ts := platform.NewTimestamp(t)
	return &ts
}

func renderOrgRef(o *orgRec) *platform.OrganizationRef {
	if o == nil {
		return nil
	}
	return &platform.OrganizationRef{ID: o.id, Name: o.name, CreatedAt: platform.NewTimestamp(o.created), UpdatedAt: platform.NewTimestamp(o.updated)}
}

func renderUser(u *userRec) *platform.User {
	return &platform.User{
		ID:                  u.id,
		Type:                "User",
		DisplayName:         u.name,
		Name:                u.name,
		Email:               u.email,
		AvatarURL:           "https://avatars.example.com/" + u.id,
		CreatedAt:           platform.NewTimestamp(u.created),
		UpdatedAt:           platform.NewTimestamp(u.updated),
		DefaultOrganization: renderOrgRef(u.defaultOrg),
		EmailVerified:       true,
	}
}

// renderVTGate sets a branch's query router fields from its cluster cl, as
// its resize requests left them.
func renderVTGate(out *platform.Branch, cl branchCluster) {
	v := cl.vtgate
	out.VTGateSize, out.VTGateCount, out.VTGateAutoscaling = v.size, v.count, v.autoscaling
	if cl.resized {
		out.VTGateName = platform.Ptr(v.size)
	}
	if v.autoscaling {
		out.VTGateMaxCount, out.VTGateTargetCPUUtilization = platform.Ptr(v.maxCount), platform.Ptr(v.targetCPU)
	}
}

// renderBackupPolicy renders a backup policy as the API shows it.
func renderBackupPolicy(p *policyRec) *platform.BackupPolicy {
	out := &platform.BackupPolicy{
		ID:             p.id,
		Type:           "BackupPolicy",
		Name:           p.name,
		DisplayName:    p.displayName,
		Target:         p.target,
		RetentionValue: p.retention.value,
		RetentionUnit:  p.retention.unit,
		FrequencyValue: p.sched.every,
		FrequencyUnit:  p.sched.unit,
		ScheduleTime:   p.sched.timeOfDay(),
		Required:       p.required,
		LastRanAt:      ptrTime(p.lastRan),
		CreatedAt:      platform.NewTimestamp(p.created),
		UpdatedAt:      platform.NewTimestamp(p.updated),
	}
	if p.day != nil {
		out.ScheduleDay = platform.Ptr(*p.day)
	}
	if p.week != nil {
		out.ScheduleWeek = platform.Ptr(*p.week)
	}
	if !p.deleted {
		out.NextRunAt = ptrTime(p.nextRun)
	}
	return out
}

// renderDeploymentThrottler is a deployment's throttler_configurations:
// its deploy request's eligible keyspaces and effective ratios.
func renderDeploymentThrottler(dr *drRec) map[string]any {
	return map[string]any{"keyspaces": dr.throttleKeyspaces(), "configurations": dr.ratios()}
}

// renderTrafficBudget renders a budget, its rules included, as the API
// shows it.
func renderTrafficBudget(bg *trafficBudgetRec) *platform.TrafficBudget {
	l := bg.limits
	out := &platform.TrafficBudget{
		ID:               bg.id,
		Type:             "TrafficBudget",
		Name:             bg.name,
		Mode:             bg.mode,
		Capacity:         renderLimit(l[0]),
		Rate:             renderLimit(l[1]),
		Burst:            renderLimit(l[2]),
		Concurrency:      renderLimit(l[3]),
		WarningThreshold: renderLimit(l[4]),
		Actor:            renderActor(bg.actor),
		Rules:            make([]*platform.TrafficRule, len(bg.rules)),
		CreatedAt:        platform.NewTimestamp(bg.created),
		UpdatedAt:        platform.NewTimestamp(bg.updated),
	}
	for i, r := range bg.rules {
		out.Rules[i] = renderTrafficRule(r)
	}
	return out
}

// renderLimit renders a limit: a copy, or nil for unlimited.
func renderLimit(v *int) *int {
	if v == nil {
		return nil
	}
	return platform.Ptr(*v)
}

// renderTrafficRule renders a rule as the API shows it. A rule with an SQL
// key shows the SQL comment that carries its tag, HTML-escaped in a <pre>
// block, as the API's other syntax-highlighted fields are.
func renderTrafficRule(r *trafficRuleRec) *platform.TrafficRule {
	out := &platform.TrafficRule{
		ID:        r.id,
		Type:      "TrafficRule",
		Kind:      r.kind,
		Tags:      []*platform.TrafficTag{},
		Actor:     renderActor(r.actor),
		CreatedAt: platform.NewTimestamp(r.created),
		UpdatedAt: platform.NewTimestamp(r.updated),
	}
	if r.fingerprint != "" {
		out.Fingerprint = platform.Ptr(r.fingerprint)
	}
	if r.keyspace != "" {
		out.Keyspace = platform.Ptr(r.keyspace)
	}
	if t := r.tag; t.key != "" {
		out.Tags = append(out.Tags, &platform.TrafficTag{Type: "TrafficTag", KeyID: t.keyID(), Key: t.key, Value: t.value, Source: t.source()})
		if t.source() == platform.TagSourceSQL {
			out.SyntaxHighlightedSQL = "<pre>" + html.EscapeString(t.sqlComment()) + "</pre>"
		}
	}
	return out
}

// syntaxHighlighted is the API's syntax_highlighted_sql of a text:
// HTML-escaped in a <pre> block.
func syntaxHighlighted(sql string) string { return "<pre>" + html.EscapeString(sql) + "</pre>" }

// millis is a duration in milliseconds, with its fraction.
func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
