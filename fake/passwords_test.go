package fake_test

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// pwDB is the MySQL database the password tests work in; its production
// branch is main, and newPasswordServer gives it a ready development
// branch dev.
const pwDB = "app-db"

// newPasswordServer starts a fake with the ready MySQL database pwDB and
// its branches main (production) and dev.
func newPasswordServer(t *testing.T) (*fake.Server, *platform.Client) {
	t.Helper()
	srv, c := newKindServer(t, platform.KindMySQL) // roleDB is pwDB
	newRoleBranch(t, srv, c, "dev")
	return srv, c
}

// createPassword creates a password on a branch of pwDB with p's body
// fields, then moves the clock by a millisecond, so that passwords list in
// the order they were created.
func createPassword(t *testing.T, srv *fake.Server, c *platform.Client, branch string, p platform.CreatePasswordParams) *platform.Password {
	t.Helper()
	p.Organization, p.Database, p.Branch = srv.Org(), pwDB, branch
	pw, err := c.Passwords.Create(t.Context(), &p)
	if err != nil {
		t.Fatalf("create password: %v", err)
	}
	srv.Advance(time.Millisecond)
	return pw
}

// pwRef names a password of a branch of pwDB.
func pwRef(srv *fake.Server, branch, id string) *platform.GetPasswordParams {
	return &platform.GetPasswordParams{Organization: srv.Org(), Database: pwDB, Branch: branch, ID: id}
}

// listPasswordNames returns the names of a branch's listed passwords that
// match p's filters, in list order.
func listPasswordNames(t *testing.T, srv *fake.Server, c *platform.Client, branch string, p platform.ListPasswordsParams) []string {
	t.Helper()
	p.Organization, p.Database, p.Branch = srv.Org(), pwDB, branch
	var names []string
	for pw, err := range c.Passwords.All(t.Context(), &p) {
		if err != nil {
			t.Fatalf("list passwords: %v", err)
		}
		names = append(names, pw.Name)
	}
	return names
}

func TestPasswordCreateRenders(t *testing.T) {
	t.Parallel()
	srv, c := newPasswordServer(t)
	created := srv.Now()
	pw := createPassword(t, srv, c, "dev", platform.CreatePasswordParams{
		Name: platform.Ptr("ci"), Role: platform.Ptr(platform.PasswordReadWriter), TTL: platform.Ptr(3600),
		CIDRs: []string{"192.0.2.7", "10.0.0.0/8", "2001:db8::/32"}, DirectVTGate: platform.Ptr(true),
	})
	if pw.PlainText == nil || !regexp.MustCompile(`^pw_[a-z0-9]{40}$`).MatchString(*pw.PlainText) {
		t.Errorf("plain_text %v, want pw_ and 40 characters", pw.PlainText)
	}
	if !regexp.MustCompile(`^[a-z0-9]{20}$`).MatchString(pw.Username) {
		t.Errorf("username %q, want 20 lowercase letters and digits", pw.Username)
	}
	dev, err := c.Branches.Get(t.Context(), &platform.GetBranchParams{Organization: srv.Org(), Database: pwDB, Branch: "dev"})
	if err != nil {
		t.Fatal(err)
	}
	expires := platform.NewTimestamp(created.Add(time.Hour))
	want := &platform.Password{
		ID: pw.ID, Type: "Password", Name: "ci", Role: platform.PasswordReadWriter,
		CIDRs:     []string{"192.0.2.7", "10.0.0.0/8", "2001:db8::/32"},
		CreatedAt: platform.NewTimestamp(created), ExpiresAt: &expires,
		DirectVTGate: true,
		DirectVTGateAddresses: []string{
			"vtgate-az1.us-east.connect.dbplatform.dev", "vtgate-az2.us-east.connect.dbplatform.dev", "vtgate-az3.us-east.connect.dbplatform.dev",
		},
		TTLSeconds:             platform.Ptr(3600),
		AccessHostURL:          "aws.connect.dbplatform.dev",
		AccessHostRegionalURL:  "us-east.connect.dbplatform.dev",
		AccessHostRegionalURLs: []string{},
		Actor:                  &platform.Actor{ID: srv.AdminUserID(), Type: "User", DisplayName: pw.Actor.DisplayName, AvatarURL: "https://avatars.example.com/" + srv.AdminUserID()},
		Region: platform.Region{
			ID: "reg0useast01", Type: "Region", Provider: "AWS", Enabled: true, PublicIPAddresses: []string{"192.0.2.10", "192.0.2.11"},
			DisplayName: "AWS us-east-1 (N. Virginia)", Location: "Ashburn, Virginia", Slug: "us-east",
			CurrentDefault: platform.Ptr(true), MySQLSupported: platform.Ptr(true), PostgreSQLSupported: platform.Ptr(true),
		},
		Username: pw.Username, PlainText: pw.PlainText, Renewable: true,
		Branch: platform.PasswordBranchRef{ID: dev.ID, Name: "dev", MySQLEdgeAddress: "aws.connect.dbplatform.dev"},
	}
	if diff := cmp.Diff(want, pw); diff != "" {
		t.Errorf("created password (-want +got):\n%s", diff)
	}
	got, err := c.Passwords.Get(t.Context(), pwRef(srv, "dev", pw.ID))
	if err != nil {
		t.Fatal(err)
	}
	want.PlainText = nil
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("password read back (-want +got):\n%s", diff)
	}
}

func TestPasswordDefaults(t *testing.T) {
	t.Parallel()
	srv, c := newPasswordServer(t)
	pw := createPassword(t, srv, c, "main", platform.CreatePasswordParams{})
	if pw.Role != platform.PasswordAdmin || pw.Name != "password-"+pw.ID || pw.CIDRs != nil ||
		pw.TTLSeconds != nil || pw.ExpiresAt != nil || pw.Renewable || pw.Replica || !pw.Branch.Production ||
		len(pw.DirectVTGateAddresses) != 0 {
		t.Errorf("password with defaults: %+v; want an admin named after its ID, no cidrs, no ttl, on production main", pw)
	}
	replica := createPassword(t, srv, c, "main", platform.CreatePasswordParams{Replica: platform.Ptr(true)})
	if replica.Role != platform.PasswordReader || !replica.Replica ||
		replica.AccessHostURL != "replica.aws.connect.dbplatform.dev" || replica.AccessHostRegionalURL != "replica.us-east.connect.dbplatform.dev" {
		t.Errorf("replica password: role %s, replica %v, hosts %s %s; want a reader on the replica hosts",
			replica.Role, replica.Replica, replica.AccessHostURL, replica.AccessHostRegionalURL)
	}
}

// TestPasswordPlainTextOnlyAtCreation reads every response that shows a
// password as raw JSON: plain_text is present and null in all but the
// creation's.
func TestPasswordPlainTextOnlyAtCreation(t *testing.T) {
	t.Parallel()
	srv, c := newPasswordServer(t)
	pw := createPassword(t, srv, c, "dev", platform.CreatePasswordParams{TTL: platform.Ptr(60)})
	base := fmt.Sprintf("v1/organizations/%s/databases/%s/branches/dev/passwords", srv.Org(), pwDB)
	for _, tt := range []struct {
		method, path string
		body         any
	}{
		{"GET", base + "/" + pw.ID, nil},
		{"PATCH", base + "/" + pw.ID, map[string]any{"name": "renamed"}},
		{"POST", base + "/" + pw.ID + "/renew", nil},
	} {
		m, _ := rawRoleJSON(t, c, tt.method, tt.path, tt.body).(map[string]any)
		if v, ok := m["plain_text"]; !ok || v != nil {
			t.Errorf("%s %s: plain_text = %v (present %v), want present and null", tt.method, tt.path, v, ok)
		}
	}
	list, _ := rawRoleJSON(t, c, "GET", base, nil).(map[string]any)
	items, _ := list["data"].([]any)
	if len(items) != 1 {
		t.Fatalf("list has %d passwords, want 1", len(items))
	}
	if v, ok := items[0].(map[string]any)["plain_text"]; !ok || v != nil {
		t.Errorf("listed plain_text = %v (present %v), want present and null", v, ok)
	}
}

func TestPasswordKindMismatch(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	c, ctx := srv.Client(), t.Context()
	if _, err := c.Databases.Create(ctx, &platform.CreateDatabaseParams{
		Organization: srv.Org(), Name: "pg", ClusterSize: "PS_10", Kind: platform.KindPostgreSQL,
	}); err != nil {
		t.Fatal(err)
	}
	srv.Advance(5 * time.Second)
	ref := &platform.GetPasswordParams{Organization: srv.Org(), Database: "pg", Branch: "main", ID: "nosuchpasswd"}
	calls := map[string]func() error{
		"list": func() error {
			_, err := c.Passwords.List(ctx, &platform.ListPasswordsParams{Organization: srv.Org(), Database: "pg", Branch: "main"})
			return err
		},
		"create": func() error {
			_, err := c.Passwords.Create(ctx, &platform.CreatePasswordParams{Organization: srv.Org(), Database: "pg", Branch: "main"})
			return err
		},
		"get": func() error { _, err := c.Passwords.Get(ctx, ref); return err },
		"update": func() error {
			_, err := c.Passwords.Update(ctx, &platform.UpdatePasswordParams{Organization: srv.Org(), Database: "pg", Branch: "main", ID: ref.ID})
			return err
		},
		"delete": func() error { return c.Passwords.Delete(ctx, ref) },
		"renew":  func() error { _, err := c.Passwords.Renew(ctx, ref); return err },
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			apiError(t, call(), http.StatusUnprocessableEntity, "mysql", "pg is postgresql", "roles")
		})
	}
}

func TestPasswordCreateRefusals(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		p     platform.CreatePasswordParams
		words []string
	}{
		{"unknown role", platform.CreatePasswordParams{Role: platform.Ptr(platform.PasswordRole("owner"))}, []string{"role", `"owner"`, "reader, writer, readwriter or admin"}},
		{"empty role", platform.CreatePasswordParams{Role: platform.Ptr(platform.PasswordRole(""))}, []string{"role", `""`}},
		{"replica that writes", platform.CreatePasswordParams{Replica: platform.Ptr(true), Role: platform.Ptr(platform.PasswordWriter)}, []string{"role writer", "replica", "read-only"}},
		{"not an address", platform.CreatePasswordParams{CIDRs: []string{"10.0.0.0/8", "office"}}, []string{"cidrs", `"office"`}},
		{"prefix too long", platform.CreatePasswordParams{CIDRs: []string{"10.0.0.0/33"}}, []string{"cidrs", `"10.0.0.0/33"`}},
		{"host bits set", platform.CreatePasswordParams{CIDRs: []string{"10.1.2.3/8"}}, []string{"cidrs", `"10.1.2.3/8"`, "10.0.0.0/8"}},
		{"address with a zone", platform.CreatePasswordParams{CIDRs: []string{"fe80::1%eth0"}}, []string{"cidrs", `"fe80::1%eth0"`}},
		{"repeated range", platform.CreatePasswordParams{CIDRs: []string{"192.0.2.1", "192.0.2.1/32"}}, []string{"cidrs", `"192.0.2.1/32" repeats "192.0.2.1"`}},
		{"negative ttl", platform.CreatePasswordParams{TTL: platform.Ptr(-1)}, []string{"ttl", "-1"}},
		{"blank name", platform.CreatePasswordParams{Name: platform.Ptr(" ")}, []string{"name"}},
		{"name taken", platform.CreatePasswordParams{Name: platform.Ptr("ci")}, []string{`name "ci"`, "taken", "branch dev"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, c := newPasswordServer(t)
			createPassword(t, srv, c, "dev", platform.CreatePasswordParams{Name: platform.Ptr("ci")})
			p := tt.p
			p.Organization, p.Database, p.Branch = srv.Org(), pwDB, "dev"
			_, err := c.Passwords.Create(t.Context(), &p)
			apiError(t, err, http.StatusUnprocessableEntity, tt.words...)
			if got := listPasswordNames(t, srv, c, "dev", platform.ListPasswordsParams{}); !cmp.Equal(got, []string{"ci"}) {
				t.Errorf("passwords after the refusal: %v, want only ci", got)
			}
		})
	}
}

// TestPasswordExpiry follows a password with a ttl on the clock: renewable
// until it expires, then expired, listed as such, and no longer renewable.
func TestPasswordExpiry(t *testing.T) {
	t.Parallel()
	srv, c := newPasswordServer(t)
	ctx := t.Context()
	start := srv.Now()
	pw := createPassword(t, srv, c, "dev", platform.CreatePasswordParams{Name: platform.Ptr("short"), TTL: platform.Ptr(60)})
	createPassword(t, srv, c, "dev", platform.CreatePasswordParams{Name: platform.Ptr("forever")})
	ref := pwRef(srv, "dev", pw.ID)

	srv.Advance(59*time.Second - time.Millisecond*2)
	got, err := c.Passwords.Get(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	if got.Expired || !got.Renewable {
		t.Errorf("a second before expiry: expired %v, renewable %v; want live and renewable", got.Expired, got.Renewable)
	}
	statuses := map[platform.PasswordStatus][]string{
		platform.PasswordActive: {"short", "forever"}, platform.PasswordRenewable: {"short"}, platform.PasswordExpired: nil,
	}
	for status, want := range statuses {
		if names := listPasswordNames(t, srv, c, "dev", platform.ListPasswordsParams{Status: status}); !cmp.Equal(want, names) {
			t.Errorf("before expiry, status %s lists %v, want %v", status, names, want)
		}
	}

	srv.Advance(time.Second)
	if got, err = c.Passwords.Get(ctx, ref); err != nil {
		t.Fatal(err)
	}
	if !got.Expired || got.Renewable || got.ExpiresAt == nil || !got.ExpiresAt.Equal(start.Add(time.Minute)) || srv.Now().Before(got.ExpiresAt.Time) {
		t.Errorf("at expiry: expired %v, renewable %v, expires_at %v (now %v); want expired at start+60s", got.Expired, got.Renewable, got.ExpiresAt, srv.Now())
	}
	statuses = map[platform.PasswordStatus][]string{
		platform.PasswordActive: {"forever"}, platform.PasswordRenewable: nil, platform.PasswordExpired: {"short"},
	}
	for status, want := range statuses {
		if names := listPasswordNames(t, srv, c, "dev", platform.ListPasswordsParams{Status: status}); !cmp.Equal(want, names) {
			t.Errorf("after expiry, status %s lists %v, want %v", status, names, want)
		}
	}
	_, err = c.Passwords.Renew(ctx, ref)
	apiError(t, err, http.StatusUnprocessableEntity, "password short", "expired at", "cannot be renewed")
	if again, _ := c.Passwords.Get(ctx, ref); !cmp.Equal(got, again) {
		t.Errorf("a refused renew changed the password: %+v, then %+v", got, again)
	}
}

func TestPasswordRenew(t *testing.T) {
	t.Parallel()
	srv, c := newPasswordServer(t)
	ctx := t.Context()
	pw := createPassword(t, srv, c, "dev", platform.CreatePasswordParams{TTL: platform.Ptr(3600)})
	srv.Advance(30 * time.Minute)
	renewed, err := c.Passwords.Renew(ctx, pwRef(srv, "dev", pw.ID))
	if err != nil {
		t.Fatal(err)
	}
	if want := srv.Now().Add(time.Hour); renewed.ExpiresAt == nil || !renewed.ExpiresAt.Equal(want) || renewed.PlainText != nil {
		t.Errorf("renewed: expires_at %v, plain_text %v; want %v and no plain text", renewed.ExpiresAt, renewed.PlainText, want)
	}
	srv.Advance(59 * time.Minute) // past the first expiry, within the renewed one
	if got, _ := c.Passwords.Get(ctx, pwRef(srv, "dev", pw.ID)); got == nil || got.Expired {
		t.Errorf("a renewed password expired on its first expiry: %+v", got)
	}

	forever := createPassword(t, srv, c, "dev", platform.CreatePasswordParams{Name: platform.Ptr("forever")})
	_, err = c.Passwords.Renew(ctx, pwRef(srv, "dev", forever.ID))
	apiError(t, err, http.StatusUnprocessableEntity, "password forever", "no ttl")
}

func TestPasswordUpdate(t *testing.T) {
	t.Parallel()
	srv, c := newPasswordServer(t)
	ctx := t.Context()
	pw := createPassword(t, srv, c, "dev", platform.CreatePasswordParams{Name: platform.Ptr("ci"), CIDRs: []string{"192.0.2.0/24"}})
	createPassword(t, srv, c, "dev", platform.CreatePasswordParams{Name: platform.Ptr("taken")})
	upd := func(name *string, cidrs *[]string) (*platform.Password, error) {
		return c.Passwords.Update(ctx, &platform.UpdatePasswordParams{Organization: srv.Org(), Database: pwDB, Branch: "dev", ID: pw.ID, Name: name, CIDRs: cidrs})
	}
	got, err := upd(platform.Ptr("deploy"), &[]string{"198.51.100.0/24", "203.0.113.9"})
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "deploy" || !cmp.Equal(got.CIDRs, []string{"198.51.100.0/24", "203.0.113.9"}) || got.PlainText != nil {
		t.Errorf("updated: name %q, cidrs %v, plain text %v", got.Name, got.CIDRs, got.PlainText)
	}
	if got, err = upd(nil, nil); err != nil || got.Name != "deploy" || len(got.CIDRs) != 2 {
		t.Errorf("an empty update changed the password: %+v, %v", got, err)
	}
	if got, err = upd(nil, &[]string{}); err != nil || got.CIDRs != nil {
		t.Errorf("cidrs [] should let any address connect (cidrs null): %+v, %v", got, err)
	}

	before, _ := c.Passwords.Get(ctx, pwRef(srv, "dev", pw.ID))
	_, err = upd(platform.Ptr("taken"), &[]string{"10.0.0.0/8"})
	apiError(t, err, http.StatusUnprocessableEntity, `name "taken"`, "taken")
	_, err = upd(platform.Ptr("fresh"), &[]string{"10.0.0.0/8", "nope"})
	apiError(t, err, http.StatusUnprocessableEntity, "cidrs", `"nope"`)
	if after, _ := c.Passwords.Get(ctx, pwRef(srv, "dev", pw.ID)); !cmp.Equal(before, after) {
		t.Errorf("refused updates changed the password (-before +after):\n%s", cmp.Diff(before, after))
	}
}

func TestPasswordDeleteAndNotFound(t *testing.T) {
	t.Parallel()
	srv, c := newPasswordServer(t)
	ctx := t.Context()
	pw := createPassword(t, srv, c, "dev", platform.CreatePasswordParams{Name: platform.Ptr("gone"), TTL: platform.Ptr(60)})
	createPassword(t, srv, c, "dev", platform.CreatePasswordParams{Name: platform.Ptr("kept")})
	if err := c.Passwords.Delete(ctx, pwRef(srv, "dev", pw.ID)); err != nil {
		t.Fatal(err)
	}
	if got := listPasswordNames(t, srv, c, "dev", platform.ListPasswordsParams{}); !cmp.Equal(got, []string{"kept"}) {
		t.Errorf("after delete the list is %v, want [kept]", got)
	}
	// The deleted password, one of another branch, and one that never
	// was: 404 for every operation on one password.
	other := createPassword(t, srv, c, "main", platform.CreatePasswordParams{})
	for _, ref := range []*platform.GetPasswordParams{pwRef(srv, "dev", pw.ID), pwRef(srv, "dev", other.ID), pwRef(srv, "dev", "nosuchpasswd"), pwRef(srv, "nosuchbranch", other.ID)} {
		_, err := c.Passwords.Get(ctx, ref)
		apiError(t, err, http.StatusNotFound)
		_, err = c.Passwords.Update(ctx, &platform.UpdatePasswordParams{Organization: ref.Organization, Database: ref.Database, Branch: ref.Branch, ID: ref.ID, Name: platform.Ptr("x")})
		apiError(t, err, http.StatusNotFound)
		_, err = c.Passwords.Renew(ctx, ref)
		apiError(t, err, http.StatusNotFound)
		apiError(t, c.Passwords.Delete(ctx, ref), http.StatusNotFound)
	}
}

func TestPasswordListPagesAndFilters(t *testing.T) {
	t.Parallel()
	srv, c := newPasswordServer(t)
	ctx := t.Context()
	for _, name := range []string{"api-1", "api-2", "worker-1", "api-3", "Worker-2"} {
		createPassword(t, srv, c, "dev", platform.CreatePasswordParams{Name: platform.Ptr(name)})
	}
	page, err := c.Passwords.List(ctx, &platform.ListPasswordsParams{Organization: srv.Org(), Database: pwDB, Branch: "dev", ListParams: platform.ListParams{Page: 2, PerPage: 2}})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, pw := range page.Items {
		names = append(names, pw.Name)
	}
	if !cmp.Equal(names, []string{"worker-1", "api-3"}) || page.TotalCount == nil || *page.TotalCount != 5 || !page.HasNext() {
		t.Errorf("page 2 of 2: %v, total %v, next %v; want [worker-1 api-3] of 5 with a next page", names, page.TotalCount, page.NextPage)
	}
	if got := listPasswordNames(t, srv, c, "dev", platform.ListPasswordsParams{Query: "WORKER"}); !cmp.Equal(got, []string{"worker-1", "Worker-2"}) {
		t.Errorf("search ignoring case: %v, want [worker-1 Worker-2]", got)
	}
	_, err = c.Passwords.List(ctx, &platform.ListPasswordsParams{Organization: srv.Org(), Database: pwDB, Branch: "dev", ReadOnlyRegionID: "nowhere"})
	apiError(t, err, http.StatusUnprocessableEntity, "read_only_region_id", `"nowhere"`, "branch dev")
	_, err = c.Passwords.List(ctx, &platform.ListPasswordsParams{Organization: srv.Org(), Database: pwDB, Branch: "dev", Status: "stale"})
	apiError(t, err, http.StatusBadRequest, "status", `"stale"`)
}

// TestPasswordReadOnlyRegions checks that replica passwords show the hosts
// of the branch's read-only regions, and that read_only_region_id keeps
// them.
func TestPasswordReadOnlyRegions(t *testing.T) {
	t.Parallel()
	srv, c := newPasswordServer(t)
	ctx := t.Context()
	if _, err := c.Keyspaces.UpdateReadOnlyRegions(ctx, &platform.UpdateReadOnlyRegionsParams{
		Organization: srv.Org(), Database: pwDB, Branch: "main", Keyspace: pwDB,
		ReadOnlyRegions: []platform.ReadOnlyRegionConfig{{Region: "eu-west"}, {Region: "ap-southeast"}},
	}); err != nil {
		t.Fatal(err)
	}
	replica := createPassword(t, srv, c, "main", platform.CreatePasswordParams{Name: platform.Ptr("reads"), Replica: platform.Ptr(true)})
	primary := createPassword(t, srv, c, "main", platform.CreatePasswordParams{Name: platform.Ptr("writes")})
	if want := []string{"eu-west.connect.dbplatform.dev", "ap-southeast.connect.dbplatform.dev"}; !cmp.Equal(want, replica.AccessHostRegionalURLs) || len(primary.AccessHostRegionalURLs) != 0 {
		t.Errorf("access_host_regional_urls: replica %v, primary %v; want %v and none", replica.AccessHostRegionalURLs, primary.AccessHostRegionalURLs, want)
	}
	regions := opCollect(t, c.Databases.AllReadOnlyRegions(ctx, &platform.ListReadOnlyRegionsParams{Organization: srv.Org(), Database: pwDB}))
	if len(regions) != 2 {
		t.Fatalf("%d read-only regions, want 2", len(regions))
	}
	if got := listPasswordNames(t, srv, c, "main", platform.ListPasswordsParams{ReadOnlyRegionID: regions[0].ID}); !cmp.Equal(got, []string{"reads"}) {
		t.Errorf("passwords of read-only region %s: %v, want the replica's [reads]", regions[0].ID, got)
	}
	_, err := c.Passwords.List(ctx, &platform.ListPasswordsParams{Organization: srv.Org(), Database: pwDB, Branch: "dev", ReadOnlyRegionID: regions[0].ID})
	apiError(t, err, http.StatusUnprocessableEntity, "read_only_region_id", "not a read-only region of branch dev")
}

// TestPasswordProductionPermissions checks that each connect or delete
// permission covers the passwords of its kind of branch only, through the
// SDK with service tokens; the operation tables check the same rows.
func TestPasswordProductionPermissions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		perm   string
		branch string
		role   platform.PasswordRole
		allow  bool
	}{
		{"connect_branch", "dev", platform.PasswordAdmin, true},
		{"connect_branch", "main", platform.PasswordReader, false},
		{"connect_production_branch", "main", platform.PasswordAdmin, true},
		{"connect_production_branch", "dev", platform.PasswordAdmin, false},
		{"connect_production_read_only_branch", "main", platform.PasswordReader, true},
		{"connect_production_read_only_branch", "main", platform.PasswordAdmin, false},
		{"connect_production_read_only_branch", "dev", platform.PasswordReader, false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s %s %s", tt.perm, tt.branch, tt.role), func(t *testing.T) {
			t.Parallel()
			srv, admin := newPasswordServer(t)
			ctx := t.Context()
			c := srv.ClientFor(mustToken(t, srv, fake.TokenSpec{
				Name: "scoped", DatabasePermissions: map[string][]platform.Permission{pwDB: permissions(tt.perm, deletePermOf[tt.perm])},
			}))
			_, err := c.Passwords.Create(ctx, &platform.CreatePasswordParams{Organization: srv.Org(), Database: pwDB, Branch: tt.branch, Role: platform.Ptr(tt.role), TTL: platform.Ptr(60)})
			existing := createPassword(t, srv, admin, tt.branch, platform.CreatePasswordParams{Role: platform.Ptr(tt.role), TTL: platform.Ptr(60)})
			ref := pwRef(srv, tt.branch, existing.ID)
			_, renewErr := c.Passwords.Renew(ctx, ref)
			_, updateErr := c.Passwords.Update(ctx, &platform.UpdatePasswordParams{Organization: ref.Organization, Database: pwDB, Branch: tt.branch, ID: existing.ID, Name: platform.Ptr("renamed")})
			deleteErr := c.Passwords.Delete(ctx, ref)
			for what, err := range map[string]error{"create": err, "renew": renewErr, "update": updateErr, "delete": deleteErr} {
				if tt.allow && err != nil {
					t.Errorf("%s: %v, want it allowed", what, err)
				}
				if !tt.allow {
					apiError(t, err, http.StatusNotFound)
				}
			}
			if !tt.allow {
				if got := listPasswordNames(t, srv, admin, tt.branch, platform.ListPasswordsParams{}); !cmp.Equal(got, []string{existing.Name}) {
					t.Errorf("refused requests changed the passwords: %v", got)
				}
			}
		})
	}
}

// deletePermOf is the delete permission of each connect permission's kind
// of password.
var deletePermOf = map[string]string{
	"connect_branch":                      "delete_branch_password",
	"connect_production_branch":           "delete_production_branch_password",
	"connect_production_read_only_branch": "delete_production_read_only_branch_password",
}

// TestPasswordProductionScopes checks the OAuth side: a production scope
// covers production passwords, manage_passwords development ones, and a
// read-only scope read-only passwords only.
func TestPasswordProductionScopes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		scope  platform.Scope
		branch string
		role   platform.PasswordRole
		allow  bool
	}{
		{platform.ScopeDatabaseManagePasswords, "dev", platform.PasswordAdmin, true},
		{platform.ScopeDatabaseManagePasswords, "main", platform.PasswordAdmin, false},
		{platform.ScopeDatabaseManageReadOnlyPasswords, "dev", platform.PasswordReader, true},
		{platform.ScopeDatabaseManageReadOnlyPasswords, "dev", platform.PasswordWriter, false},
		{platform.ScopeDatabaseManageProductionBranchPasswords, "main", platform.PasswordAdmin, true},
		{platform.ScopeDatabaseManageProductionBranchPasswords, "dev", platform.PasswordAdmin, false},
		{platform.ScopeDatabaseManageProductionReadOnlyPasswords, "main", platform.PasswordReader, true},
		{platform.ScopeDatabaseManageProductionReadOnlyPasswords, "main", platform.PasswordAdmin, false},
		{platform.ScopeBranchManagePasswords, "main", platform.PasswordAdmin, false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s %s %s", tt.scope, tt.branch, tt.role), func(t *testing.T) {
			t.Parallel()
			srv, _ := newPasswordServer(t)
			access := oauthGrant(t, srv, fake.Consent{Databases: []string{srv.Org() + "/" + pwDB}, Branches: []string{srv.Org() + "/" + pwDB + "/" + tt.branch}}, tt.scope)
			path := fmt.Sprintf("/v1/organizations/%s/databases/%s/branches/%s/passwords", srv.Org(), pwDB, tt.branch)
			r := send(t, srv, http.MethodPost, path, bearer(access), `{"role":"`+string(tt.role)+`"}`)
			if tt.allow {
				wantStatus(t, r, http.StatusCreated)
				return
			}
			wantError(t, r, http.StatusNotFound, "not_found")
		})
	}
}

// TestPasswordRemovedMember checks that removing a member with
// delete_passwords deletes the passwords they created, and only those.
func TestPasswordRemovedMember(t *testing.T) {
	t.Parallel()
	srv, admin := newPasswordServer(t)
	ctx := t.Context()
	bob := mustMember(t, srv, srv.Org(), "Bob Builder", platform.RoleMember)
	bobs := srv.ClientFor(mustToken(t, srv, fake.TokenSpec{Name: "bob's", CreatedBy: bob, Permissions: []platform.Permission{"connect_branch"}}))
	if _, err := bobs.Passwords.Create(ctx, &platform.CreatePasswordParams{Organization: srv.Org(), Database: pwDB, Branch: "dev", Name: platform.Ptr("bobs")}); err != nil {
		t.Fatal(err)
	}
	createPassword(t, srv, admin, "dev", platform.CreatePasswordParams{Name: platform.Ptr("admins")})
	if err := admin.Organizations.RemoveMember(ctx, &platform.RemoveMemberParams{Organization: srv.Org(), UserID: bob, DeletePasswords: true}); err != nil {
		t.Fatal(err)
	}
	if got := listPasswordNames(t, srv, admin, "dev", platform.ListPasswordsParams{}); !cmp.Equal(got, []string{"admins"}) {
		t.Errorf("after removing Bob with delete_passwords: %v, want [admins]", got)
	}
}

// TestPasswordBoundToReadOnlyRegion checks read_only_region_id on
// creation, as the service's command-line tool sends it for a dump from a
// read-only region: the password reads that region's replicas and shows
// the region; a region not of the branch, not ready, or a password that
// is not a replica's, is refused naming the field, and changes nothing;
// removing the region deletes the password.
func TestPasswordBoundToReadOnlyRegion(t *testing.T) {
	t.Parallel()
	srv, c := newPasswordServer(t)
	ctx := t.Context()
	setRegions := func(slugs ...string) {
		t.Helper()
		var cfg []platform.ReadOnlyRegionConfig
		for _, s := range slugs {
			cfg = append(cfg, platform.ReadOnlyRegionConfig{Region: s})
		}
		if _, err := c.Keyspaces.UpdateReadOnlyRegions(ctx, &platform.UpdateReadOnlyRegionsParams{
			Organization: srv.Org(), Database: pwDB, Branch: "main", Keyspace: pwDB, ReadOnlyRegions: cfg,
		}); err != nil {
			t.Fatal(err)
		}
	}
	setRegions("eu-west")
	regions := opCollect(t, c.Databases.AllReadOnlyRegions(ctx, &platform.ListReadOnlyRegionsParams{Organization: srv.Org(), Database: pwDB}))
	eu := regions[0].ID
	list := func() []string { return listPasswordNames(t, srv, c, "main", platform.ListPasswordsParams{}) }
	before := list()
	refusals := []struct {
		name  string
		p     platform.CreatePasswordParams
		words []string
	}{
		{"not ready", platform.CreatePasswordParams{ReadOnlyRegionID: &eu, Role: platform.Ptr(platform.PasswordReader)}, []string{"read_only_region_id", eu, "not ready"}},
		{"unknown", platform.CreatePasswordParams{ReadOnlyRegionID: platform.Ptr("nope")}, []string{"read_only_region_id", `"nope"`, "not a read-only region of branch main"}},
	}
	for _, tt := range refusals {
		tt.p.Organization, tt.p.Database, tt.p.Branch = srv.Org(), pwDB, "main"
		_, err := c.Passwords.Create(ctx, &tt.p)
		apiError(t, err, http.StatusUnprocessableEntity, tt.words...)
	}
	srv.Advance(fake.DefaultTimings().ReadOnlyRegionReady)
	for _, tt := range []struct {
		name   string
		branch string
		p      platform.CreatePasswordParams
		words  []string
	}{
		{"another branch's region", "dev", platform.CreatePasswordParams{ReadOnlyRegionID: &eu}, []string{"read_only_region_id", "not a read-only region of branch dev"}},
		{"a writer", "main", platform.CreatePasswordParams{ReadOnlyRegionID: &eu, Role: platform.Ptr(platform.PasswordWriter)}, []string{"role writer", "replica"}},
		{"replica false", "main", platform.CreatePasswordParams{ReadOnlyRegionID: &eu, Replica: platform.Ptr(false)}, []string{"read_only_region_id", "replica"}},
	} {
		tt.p.Organization, tt.p.Database, tt.p.Branch = srv.Org(), pwDB, tt.branch
		_, err := c.Passwords.Create(ctx, &tt.p)
		apiError(t, err, http.StatusUnprocessableEntity, tt.words...)
	}
	if diff := cmp.Diff(before, list()); diff != "" {
		t.Errorf("refusals changed the passwords (-before +after):\n%s", diff)
	}

	pw := createPassword(t, srv, c, "main", platform.CreatePasswordParams{Name: platform.Ptr("dump"), ReadOnlyRegionID: &eu, Role: platform.Ptr(platform.PasswordReader)})
	if !pw.Replica || pw.Region.Slug != "eu-west" || pw.AccessHostRegionalURL != "replica.eu-west.connect.dbplatform.dev" || !cmp.Equal(pw.AccessHostRegionalURLs, []string{"eu-west.connect.dbplatform.dev"}) {
		t.Errorf("bound password = replica %v, region %s, regional %s %v; want a replica of eu-west", pw.Replica, pw.Region.Slug, pw.AccessHostRegionalURL, pw.AccessHostRegionalURLs)
	}
	got, err := c.Passwords.Get(ctx, pwRef(srv, "main", pw.ID))
	if err != nil {
		t.Fatal(err)
	}
	pw.PlainText = nil
	if diff := cmp.Diff(pw, got); diff != "" {
		t.Errorf("get (-create +get):\n%s", diff)
	}
	// The list of a region holds its own passwords and the unbound replica
	// passwords; another region's are not among them.
	setRegions("eu-west", "ap-southeast")
	srv.Advance(fake.DefaultTimings().ReadOnlyRegionReady)
	regions = opCollect(t, c.Databases.AllReadOnlyRegions(ctx, &platform.ListReadOnlyRegionsParams{Organization: srv.Org(), Database: pwDB}))
	ap := regions[1].ID
	if regions[0].ID != eu {
		ap = regions[0].ID
	}
	createPassword(t, srv, c, "main", platform.CreatePasswordParams{Name: platform.Ptr("ap"), ReadOnlyRegionID: &ap})
	createPassword(t, srv, c, "main", platform.CreatePasswordParams{Name: platform.Ptr("any"), Replica: platform.Ptr(true)})
	if diff := cmp.Diff([]string{"any", "dump"}, slices.Sorted(slices.Values(listPasswordNames(t, srv, c, "main", platform.ListPasswordsParams{ReadOnlyRegionID: eu})))); diff != "" {
		t.Errorf("eu-west's passwords (-want +got):\n%s", diff)
	}
	// Removing eu-west deletes its password; ap-southeast's stays.
	setRegions("ap-southeast")
	_, err = c.Passwords.Get(ctx, pwRef(srv, "main", pw.ID))
	apiError(t, err, http.StatusNotFound)
	if diff := cmp.Diff([]string{"any", "ap"}, slices.Sorted(slices.Values(list()))); diff != "" {
		t.Errorf("passwords after eu-west's removal (-want +got):\n%s", diff)
	}
}
