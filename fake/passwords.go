package fake

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake/internal/ordered"
)

// passwordRec is a password of a MySQL branch. Its plain text is not kept:
// the API shows it once, in the response that created it, and the fake has
// no connections that would check it.
type passwordRec struct {
	stamps
	lease
	branch  *branchRec
	name    string
	role    platform.PasswordRole
	replica bool
	// region is the read-only region the password is bound to (it reads
	// that region's replicas); nil for none.
	region       *readOnlyRegionRec
	directVTGate bool
	cidrs        []string // canonical; nil: any address may connect
	username     string
	actor        *userRec
}

// branchPasswords are the live passwords of a branch, in list order and
// by ID.
type branchPasswords struct{ ordered.Store[*passwordRec] }

// readOnly reports whether the password only reads: the reader role, which
// replica passwords always have.
func (pw *passwordRec) readOnly() bool { return pw.role == platform.PasswordReader }

func passwordRoutes() []route {
	return []route{
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/passwords", op: "list_passwords", handler: read(listPasswords)},
		{pattern: "POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/passwords", op: "create_password", handler: withBody(createPassword)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/passwords/{id}", op: "get_password", handler: read(getPassword)},
		{pattern: "PATCH /v1/organizations/{organization}/databases/{database}/branches/{branch}/passwords/{id}", op: "update_password", handler: withBody(updatePassword)},
		{pattern: "DELETE /v1/organizations/{organization}/databases/{database}/branches/{branch}/passwords/{id}", op: "delete_password", handler: act(deletePassword)},
		{pattern: "POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/passwords/{id}/renew", op: "renew_password", handler: act(renewPassword)},
	}
}

// mysqlBranch returns the path's {branch}, which must be of a MySQL
// database: PostgreSQL branches have role credentials instead.
func (c *call) mysqlBranch() (*branchRec, error) {
	b := c.branch
	if b.db.kind != platform.KindMySQL {
		return nil, unprocessable("passwords apply to mysql databases; %s is %s, whose branches have roles instead", b.db.name, b.db.kind)
	}
	return b, nil
}

// password finds the path's password {id} on the path's {branch}.
func (c *call) password() (*passwordRec, error) {
	b, err := c.mysqlBranch()
	if err != nil {
		return nil, err
	}
	pw := b.x().passwords.Get(c.r.PathValue("id"))
	if pw == nil {
		return nil, c.nothingAt("id")
	}
	return pw, nil
}

// mayManagePassword checks what a change to a password of branch b takes
// beyond its row of operations.tsv, which admits any of the connect (or,
// deleting, delete) permissions and any password scope: each covers its
// kind of branch and password.
//
//   - A development branch: connect_branch (delete_branch_password);
//     scopes manage_passwords, or manage_read_only_passwords for a
//     read-only password.
//   - A production branch: connect_production_branch
//     (delete_production_branch_password), or for a read-only password
//     also connect_production_read_only_branch
//     (delete_production_read_only_branch_password); scopes
//     manage_production_branch_passwords, or for a read-only password also
//     manage_production_read_only_passwords.
func (c *call) mayManagePassword(b *branchRec, readOnly, deleting bool) bool {
	var perms, scopes []string
	switch {
	case !b.production:
		perms, scopes = []string{"connect_branch"}, []string{"manage_passwords"}
		if readOnly {
			scopes = append(scopes, "manage_read_only_passwords")
		}
	case readOnly:
		perms = []string{"connect_production_branch", "connect_production_read_only_branch"}
		scopes = []string{"manage_production_branch_passwords", "manage_production_read_only_passwords"}
	default:
		perms, scopes = []string{"connect_production_branch"}, []string{"manage_production_branch_passwords"}
	}
	if deleting {
		for i, p := range perms {
			perms[i] = deletePasswordPermission[p]
		}
	}
	return c.holds(perms, scopes, b)
}

// deletePasswordPermission is the delete permission of each connect
// permission's kind of branch.
var deletePasswordPermission = map[string]string{
	"connect_branch":                      "delete_branch_password",
	"connect_production_branch":           "delete_production_branch_password",
	"connect_production_read_only_branch": "delete_production_read_only_branch_password",
}

func listPasswords(c *call) (any, error) {
	b, err := c.mysqlBranch()
	if err != nil {
		return nil, err
	}
	status, err := leaseStatus(c)
	if err != nil {
		return nil, err
	}
	q := c.r.URL.Query()
	// Replica passwords are the ones that read in the branch's read-only
	// regions.
	replicasOnly := false
	var region *readOnlyRegionRec
	if id := q.Get("read_only_region_id"); id != "" {
		i := slices.IndexFunc(b.readOnlyRegions.All(), func(r *readOnlyRegionRec) bool { return r.id == id })
		if i < 0 {
			return nil, unprocessable("read_only_region_id %q is not a read-only region of branch %s", id, b.name)
		}
		replicasOnly, region = true, b.readOnlyRegions.All()[i]
	}
	search := strings.ToLower(q.Get("q"))
	render := func(pw *passwordRec) *platform.Password { return renderPassword(pw, c.now) }
	if status == "" && search == "" && !replicasOnly {
		return pageOf(c, b.x().passwords.Index(), true, render), nil
	}
	keep := func(pw *passwordRec) bool {
		return pw.inStatus(status, c.now) && strings.Contains(strings.ToLower(pw.name), search) &&
			(!replicasOnly || pw.replica && (pw.region == nil || pw.region == region))
	}
	return filteredPageOf(c, b.x().passwords.Index(), true, keep, render), nil
}

func createPassword(c *call, p *platform.CreatePasswordParams) (any, error) {
	b, err := c.mysqlBranch()
	if err != nil {
		return nil, err
	}
	replica := p.Replica != nil && *p.Replica
	// A password bound to a read-only region reads its replicas.
	var region *readOnlyRegionRec
	if p.ReadOnlyRegionID != nil {
		if region, err = b.passwordRegion(*p.ReadOnlyRegionID); err != nil {
			return nil, err
		}
		if p.Replica != nil && !*p.Replica {
			return nil, unprocessable("read_only_region_id %q binds the password to a read-only region's replicas; leave replica out or set it to true", *p.ReadOnlyRegionID)
		}
		replica = true
	}
	role := platform.PasswordAdmin
	if replica {
		role = platform.PasswordReader
	}
	setIf(&role, p.Role)
	if !c.mayManagePassword(b, role == platform.PasswordReader, false) {
		return nil, notFound()
	}
	if err := checkPasswordRole(role, replica); err != nil {
		return nil, err
	}
	if p.Name != nil {
		if err := b.x().passwords.checkName(b, *p.Name); err != nil {
			return nil, err
		}
	}
	lease, err := newLease(p.TTL, c.now)
	if err != nil {
		return nil, err
	}
	cidrs, err := passwordCIDRs(p.CIDRs)
	if err != nil {
		return nil, err
	}
	pw := &passwordRec{
		stamps:   stamps{id: c.w.newID(), created: c.now, updated: c.now},
		lease:    lease,
		branch:   b,
		role:     role,
		replica:  replica,
		region:   region,
		cidrs:    cidrs,
		username: c.w.newSecret("", 20),
		actor:    c.who.user,
	}
	pw.name = "password-" + pw.id
	setIf(&pw.name, p.Name)
	setIf(&pw.directVTGate, p.DirectVTGate)
	b.x().passwords.Add(pw)
	out := renderPassword(pw, c.now)
	out.PlainText = platform.Ptr(c.w.newSecret("pw_", 40))
	return out, nil
}

// passwordRegion finds the read-only region of b that a new password is
// bound to by its read_only_region_id: one of b's, ready.
func (b *branchRec) passwordRegion(id string) (*readOnlyRegionRec, error) {
	for _, rr := range b.readOnlyRegions.All() {
		if rr.id != id {
			continue
		}
		if !rr.ready() {
			return nil, unprocessable("read_only_region_id %q: read-only region %s of branch %s is not ready yet", id, rr.region.slug, b.name)
		}
		return rr, nil
	}
	return nil, unprocessable("read_only_region_id %q is not a read-only region of branch %s", id, b.name)
}

// dropRegionPasswords deletes the passwords of b bound to a read-only
// region it no longer has, as removing the region does.
func (w *world) dropRegionPasswords(b *branchRec) {
	for _, pw := range slices.Clone(b.more.read().passwords.All()) {
		if pw.region != nil && pw.region.removed {
			b.x().passwords.Remove(pw)
			w.passwordDeleted(pw, w.clock.Now())
		}
	}
}

// checkPasswordRole validates the role of a new password: one of the four,
// and reader for a replica password, which only reads.
func checkPasswordRole(role platform.PasswordRole, replica bool) error {
	if !slices.Contains(platform.PasswordRoles(), role) {
		return unprocessable("role %q is not reader, writer, readwriter or admin", role)
	}
	if replica && role != platform.PasswordReader {
		return unprocessable("role %s cannot be used with replica: replica passwords are read-only; use reader or leave role out", role)
	}
	return nil
}

// checkName validates a password name that must be free among the
// branch's passwords.
func (ps *branchPasswords) checkName(b *branchRec, name string) error {
	return checkCredentialName("password", b, name, func(n string) bool {
		return slices.ContainsFunc(ps.All(), func(pw *passwordRec) bool { return pw.name == n })
	})
}

// passwordCIDRs validates the addresses allowed to use a password; none
// (nil) lets any address connect.
func passwordCIDRs(list []string) ([]string, error) {
	cidrs, err := parseCIDRs("cidrs", list, false)
	if err != nil || len(cidrs) == 0 {
		return nil, err
	}
	return cidrs, nil
}

func getPassword(c *call) (any, error) {
	pw, err := c.password()
	if err != nil {
		return nil, err
	}
	return renderPassword(pw, c.now), nil
}

func updatePassword(c *call, p *platform.UpdatePasswordParams) (any, error) {
	pw, err := c.password()
	if err != nil {
		return nil, err
	}
	if !c.mayManagePassword(pw.branch, pw.readOnly(), false) {
		return nil, notFound()
	}
	rename := p.Name != nil && *p.Name != pw.name
	if rename {
		if err := pw.branch.x().passwords.checkName(pw.branch, *p.Name); err != nil {
			return nil, err
		}
	}
	cidrs := pw.cidrs
	if p.CIDRs != nil {
		if cidrs, err = passwordCIDRs(*p.CIDRs); err != nil {
			return nil, err
		}
	}
	if rename {
		pw.name = *p.Name
	}
	pw.cidrs = cidrs
	pw.updated = c.now
	return renderPassword(pw, c.now), nil
}

func deletePassword(c *call) (any, error) {
	pw, err := c.password()
	if err != nil {
		return nil, err
	}
	if !c.mayManagePassword(pw.branch, pw.readOnly(), true) {
		return nil, notFound()
	}
	pw.branch.x().passwords.Remove(pw)
	c.w.passwordDeleted(pw, c.now)
	return nil, nil
}

func renewPassword(c *call) (any, error) {
	pw, err := c.password()
	if err != nil {
		return nil, err
	}
	if !c.mayManagePassword(pw.branch, pw.readOnly(), false) {
		return nil, notFound()
	}
	if err := pw.renew("password "+pw.name, c.now); err != nil {
		return nil, err
	}
	pw.updated = c.now
	return renderPassword(pw, c.now), nil
}

// deletePasswordsCreatedBy deletes the passwords u created in org's
// databases, as removing a member with delete_passwords does.
func (w *world) deletePasswordsCreatedBy(org *orgRec, u *userRec) {
	for _, db := range org.dbs.All() {
		for _, b := range db.branchIdx.All() {
			for _, pw := range slices.Clone(b.x().passwords.All()) {
				if pw.actor == u {
					b.x().passwords.Remove(pw)
					w.passwordDeleted(pw, w.clock.Now())
				}
			}
		}
	}
}

// The hosts passwords connect to: the provider's edge, the region's, and
// per availability zone the VTGates of direct_vtgate passwords.
func edgeHost(region *regionRec) string {
	return strings.ToLower(region.provider) + ".connect.dbplatform.dev"
}

func regionalHost(region *regionRec) string { return region.slug + ".connect.dbplatform.dev" }

func vtgateHosts(region *regionRec) []string {
	out := make([]string, 3)
	for i := range out {
		out[i] = fmt.Sprintf("vtgate-az%d.%s", i+1, regionalHost(region))
	}
	return out
}

// renderPassword renders a password as the API shows it at now, without
// its plain text.
func renderPassword(pw *passwordRec, now time.Time) *platform.Password {
	b := pw.branch
	host, regional := edgeHost(b.region), regionalHost(b.region)
	if pw.replica {
		host, regional = "replica."+host, "replica."+regional
	}
	out := &platform.Password{
		ID:                     pw.id,
		Type:                   "Password",
		Name:                   pw.name,
		Role:                   pw.role,
		CIDRs:                  slices.Clone(pw.cidrs),
		CreatedAt:              platform.NewTimestamp(pw.created),
		ExpiresAt:              ptrTime(pw.expiresAt),
		Expired:                pw.expired(now),
		DirectVTGate:           pw.directVTGate,
		DirectVTGateAddresses:  []string{},
		AccessHostURL:          host,
		AccessHostRegionalURL:  regional,
		AccessHostRegionalURLs: []string{},
		Actor:                  renderActor(pw.actor),
		Region:                 *renderRegionFor(b.db.region)(b.region),
		Username:               pw.username,
		Replica:                pw.replica,
		Renewable:              pw.renewable(now),
		Branch: platform.PasswordBranchRef{
			ID: b.id, Name: b.name, Production: b.production, MySQLEdgeAddress: edgeHost(b.region),
		},
	}
	if pw.ttl > 0 {
		out.TTLSeconds = platform.Ptr(pw.ttl)
	}
	if pw.directVTGate {
		out.DirectVTGateAddresses = vtgateHosts(b.region)
	}
	switch {
	case pw.region != nil:
		// Bound to a read-only region: its region and its replicas' host.
		out.Region = *renderRegionFor(b.db.region)(pw.region.region)
		out.AccessHostRegionalURL = "replica." + regionalHost(pw.region.region)
		out.AccessHostRegionalURLs = append(out.AccessHostRegionalURLs, regionalHost(pw.region.region))
	case pw.replica:
		for _, r := range b.readOnlyRegions.All() {
			out.AccessHostRegionalURLs = append(out.AccessHostRegionalURLs, regionalHost(r.region))
		}
	}
	return out
}
