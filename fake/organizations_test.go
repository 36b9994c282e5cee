package fake_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

func TestListOrganizations(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	otherOrg(t, srv, "globex")
	if err := srv.CreateOrganization("initech"); err != nil {
		t.Fatal(err)
	}
	// A token without permissions lists its organization too.
	none := mustToken(t, srv, fake.TokenSpec{Name: "none"})
	for _, c := range []*platform.Client{srv.Client(), srv.ClientFor(none)} {
		page, err := c.Organizations.List(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if page.Type != "list" || page.CurrentPage != 1 || page.PerPage != 25 || page.HasNext() || len(page.Items) != 1 {
			t.Fatalf("page = %+v", page)
		}
		if org := page.Items[0]; org.Name != "acme" || org.Type != "Organization" {
			t.Errorf("organization = %s (%s), want acme", org.Name, org.Type)
		}
	}
}

func TestGetOrganization(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	ctx, c := t.Context(), srv.Client()
	get := func() *platform.Organization {
		t.Helper()
		org, err := c.Organizations.Get(ctx, &platform.GetOrganizationParams{Organization: "acme"})
		if err != nil {
			t.Fatal(err)
		}
		return org
	}
	org := get()
	want := &platform.Organization{
		ID:                  org.ID,
		Type:                "Organization",
		Name:                "acme",
		BillingEmail:        "billing@acme.example.com",
		CreatedAt:           platform.NewTimestamp(fake.DefaultStart),
		UpdatedAt:           platform.NewTimestamp(fake.DefaultStart),
		Plan:                "scaler_pro",
		ValidBillingInfo:    false, // no payment method on file yet
		HasPastDueInvoices:  platform.Ptr(false),
		Features:            map[string]any{},
		InvoiceBudgetAmount: "0",
		KeyspaceShardLimit:  32,
		HasCard:             false,
	}
	if diff := cmp.Diff(want, org); diff != "" {
		t.Errorf("organization (-want +got):\n%s", diff)
	}
	if len(org.ID) != 12 {
		t.Errorf("ID %q is not 12 characters", org.ID)
	}

	mustDB(t, srv, "a")
	mustDB(t, srv, "b")
	if n := get().DatabaseCount; n != 2 {
		t.Errorf("database_count = %d after creating two, want 2", n)
	}
	if err := c.Databases.Delete(ctx, &platform.DeleteDatabaseParams{Organization: "acme", Database: "a"}); err != nil {
		t.Fatal(err)
	}
	if n := get().DatabaseCount; n != 1 {
		t.Errorf("database_count = %d after deleting one, want 1", n)
	}

	for _, name := range []string{"nope", "ACME", "acme2"} {
		_, err := c.Organizations.Get(ctx, &platform.GetOrganizationParams{Organization: name})
		apiError(t, err, http.StatusNotFound)
	}
}

func TestUpdateOrganization(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	ctx, c := t.Context(), srv.Client()
	srv.Advance(time.Minute)

	org, err := c.Organizations.Update(ctx, &platform.UpdateOrganizationParams{
		Organization: "acme", BillingEmail: platform.Ptr("accounts@acme.example.com"), IDPManagedRoles: platform.Ptr(true),
	})
	if err != nil {
		t.Fatal(err)
	}
	if org.BillingEmail != "accounts@acme.example.com" || !org.IDPManagedRoles || org.InvoiceBudgetAmount != "0" {
		t.Errorf("after update: %+v", org)
	}
	if !org.UpdatedAt.Equal(fake.DefaultStart.Add(time.Minute)) || !org.CreatedAt.Equal(fake.DefaultStart) {
		t.Errorf("created %v updated %v", org.CreatedAt, org.UpdatedAt)
	}
	// Fields left out stay as they are.
	org, err = c.Organizations.Update(ctx, &platform.UpdateOrganizationParams{Organization: "acme", InvoiceBudgetAmount: platform.Ptr(500)})
	if err != nil {
		t.Fatal(err)
	}
	if org.BillingEmail != "accounts@acme.example.com" || !org.IDPManagedRoles || org.InvoiceBudgetAmount != "500" {
		t.Errorf("after a partial update: %+v", org)
	}
	got, err := c.Organizations.Get(ctx, &platform.GetOrganizationParams{Organization: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(org, got); diff != "" {
		t.Errorf("the update did not persist (-update +get):\n%s", diff)
	}

	before := observe(t, srv)
	for _, tc := range []struct {
		name, body, field string
	}{
		{"not an email", `{"billing_email":"accounts"}`, "billing_email"},
		{"no domain dot", `{"billing_email":"a@b"}`, "billing_email"},
		{"empty email", `{"billing_email":""}`, "billing_email"},
		{"space in email", `{"billing_email":"a b@c.com"}`, "billing_email"},
		{"negative budget", `{"invoice_budget_amount":-1}`, "invoice_budget_amount"},
		{"valid field with an invalid one", `{"idp_managed_roles":false,"billing_email":"x"}`, "billing_email"},
	} {
		w := send(t, srv, "PATCH", "/v1/organizations/acme", admin(srv), tc.body)
		e := wantError(t, w, http.StatusUnprocessableEntity, "unprocessable")
		if !strings.Contains(e.Message, tc.field) {
			t.Errorf("%s: message %q does not name %s", tc.name, e.Message, tc.field)
		}
	}
	unchanged(t, srv, before)
}

func TestOrganizationRegions(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	ctx, c := t.Context(), srv.Client()

	var orgRegions []*platform.Region
	for r, err := range c.Organizations.AllRegions(ctx, &platform.ListOrganizationRegionsParams{Organization: "acme", ListParams: platform.ListParams{PerPage: 2}}) {
		if err != nil {
			t.Fatal(err)
		}
		orgRegions = append(orgRegions, r)
	}
	page, err := c.Regions.List(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	public := page.Items
	if len(orgRegions) != 5 || len(public) != 5 {
		t.Fatalf("%d organization regions, %d public regions; want 5 each", len(orgRegions), len(public))
	}
	defaults := 0
	for i, r := range orgRegions {
		if r.CurrentDefault == nil || r.MySQLSupported == nil || r.PostgreSQLSupported == nil {
			t.Errorf("organization region %s lacks current_default or the engines", r.Slug)
			continue
		}
		if *r.CurrentDefault {
			defaults++
			if r.Slug != "us-east" {
				t.Errorf("default region %s, want us-east", r.Slug)
			}
		}
		// The public list is the same regions without the organization's
		// view of the engines; its default is the one new organizations
		// start with.
		want := *r
		want.MySQLSupported, want.PostgreSQLSupported = nil, nil
		if diff := cmp.Diff(&want, public[i]); diff != "" {
			t.Errorf("public region %d (-organization's +public):\n%s", i, diff)
		}
		if r.Type != "Region" || r.Slug == "" || r.DisplayName == "" || len(r.PublicIPAddresses) == 0 || !r.Enabled {
			t.Errorf("region %+v is missing fields", r)
		}
	}
	if defaults != 1 {
		t.Errorf("%d default regions, want 1", defaults)
	}

	p2, err := c.Regions.List(ctx, &platform.ListRegionsParams{ListParams: platform.ListParams{Page: 3, PerPage: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if len(p2.Items) != 1 || p2.Items[0].Slug != public[4].Slug || p2.HasNext() || p2.PrevPage == nil || *p2.PrevPage != 2 {
		t.Errorf("page 3 of 2 = %+v", p2)
	}
}

func TestListMembers(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	ctx, c := t.Context(), srv.Client()
	ids := []string{srv.AdminUserID()}
	for _, name := range []string{"Bob Builder", "Carol Danvers", "Dave Bowman", "Erin Brockovich"} {
		srv.Advance(time.Second)
		ids = append(ids, mustMember(t, srv, "acme", name, platform.RoleMember))
	}
	userIDs := func(p *platform.Page[platform.Member]) []string {
		var out []string
		for _, m := range p.Items {
			out = append(out, m.User.ID)
		}
		return out
	}
	list := func(p platform.ListMembersParams) *platform.Page[platform.Member] {
		t.Helper()
		p.Organization = "acme"
		page, err := c.Organizations.ListMembers(ctx, &p)
		if err != nil {
			t.Fatal(err)
		}
		return page
	}

	all := list(platform.ListMembersParams{})
	if diff := cmp.Diff(ids, userIDs(all)); diff != "" {
		t.Errorf("members in creation order (-want +got):\n%s", diff)
	}
	if all.TotalCount == nil || *all.TotalCount != 5 || all.TotalPages == nil || *all.TotalPages != 1 {
		t.Errorf("totals = %v, %v; want 5, 1", all.TotalCount, all.TotalPages)
	}
	for i, m := range all.Items {
		if m.Type != "OrganizationMembership" || m.ID == m.User.ID || (i > 0) != (m.Role == platform.RoleMember) {
			t.Errorf("member %d = %+v", i, m)
		}
	}

	p2 := list(platform.ListMembersParams{ListParams: platform.ListParams{Page: 2, PerPage: 2}})
	if diff := cmp.Diff(ids[2:4], userIDs(p2)); diff != "" {
		t.Errorf("page 2 of 2 (-want +got):\n%s", diff)
	}
	if *p2.TotalCount != 5 || *p2.TotalPages != 3 || *p2.NextPage != 3 || *p2.PrevPage != 1 {
		t.Errorf("page 2 of 2: total %d pages %d next %d prev %d", *p2.TotalCount, *p2.TotalPages, *p2.NextPage, *p2.PrevPage)
	}
	p3 := list(platform.ListMembersParams{ListParams: platform.ListParams{Page: 3, PerPage: 2}})
	if len(p3.Items) != 1 || p3.HasNext() {
		t.Errorf("last page = %v, next %v", userIDs(p3), p3.NextPage)
	}

	var iterated []string
	for m, err := range c.Organizations.AllMembers(ctx, &platform.ListMembersParams{Organization: "acme", ListParams: platform.ListParams{PerPage: 2}}) {
		if err != nil {
			t.Fatal(err)
		}
		iterated = append(iterated, m.User.ID)
	}
	if diff := cmp.Diff(ids, iterated); diff != "" {
		t.Errorf("AllMembers (-want +got):\n%s", diff)
	}

	desc := decode[platform.Page[platform.Member]](t, send(t, srv, "GET", "/v1/organizations/acme/members?order=desc&per_page=2", admin(srv), ""))
	if diff := cmp.Diff([]string{ids[4], ids[3]}, userIDs(&desc)); diff != "" {
		t.Errorf("order=desc (-want +got):\n%s", diff)
	}

	for _, tc := range []struct {
		q    string
		want []string
	}{
		{"bo", []string{ids[1], ids[3]}}, // Bob Builder, Dave Bowman
		{"CAROL", []string{ids[2]}},
		{"dave@example", []string{ids[3]}},
		{"example.com", ids},
		{"nobody", nil},
	} {
		page := list(platform.ListMembersParams{Query: tc.q})
		if diff := cmp.Diff(tc.want, userIDs(page)); diff != "" {
			t.Errorf("q=%s (-want +got):\n%s", tc.q, diff)
		}
		if *page.TotalCount != len(tc.want) {
			t.Errorf("q=%s: total_count %d, want %d", tc.q, *page.TotalCount, len(tc.want))
		}
	}
	if p := list(platform.ListMembersParams{Query: "bo", ListParams: platform.ListParams{Page: 2, PerPage: 1}}); len(p.Items) != 1 || p.Items[0].User.ID != ids[3] || *p.TotalCount != 2 || *p.TotalPages != 2 || p.HasNext() {
		t.Errorf("q=bo page 2 of 1: %v total %d", userIDs(p), *p.TotalCount)
	}
}

func TestGetMember(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	ctx, c := t.Context(), srv.Client()
	bob := mustMember(t, srv, "acme", "Bob Builder", platform.RoleMember)
	otherOrg(t, srv, "globex")
	olga := srv.CreateUser("Olga Outsider", "olga@example.com")
	if err := srv.AddMember("globex", olga, platform.RoleMember); err != nil {
		t.Fatal(err)
	}

	m, err := c.Organizations.GetMember(ctx, &platform.GetMemberParams{Organization: "acme", UserID: bob})
	if err != nil {
		t.Fatal(err)
	}
	if m.User.ID != bob || m.User.Name != "Bob Builder" || m.User.Email != "bob@example.com" || m.Role != platform.RoleMember || m.Type != "OrganizationMembership" {
		t.Errorf("member = %+v", m)
	}
	page, err := c.Organizations.ListMembers(ctx, &platform.ListMembersParams{Organization: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(page.Items[1], m); diff != "" {
		t.Errorf("get and list disagree (-list +get):\n%s", diff)
	}

	for label, id := range map[string]string{
		"membership ID, not user ID": m.ID,
		"unknown user":               "nosuchuser12",
		"member of another org":      olga,
	} {
		_, err := c.Organizations.GetMember(ctx, &platform.GetMemberParams{Organization: "acme", UserID: id})
		if e := apiError(t, err, http.StatusNotFound); e.Code != "not_found" {
			t.Errorf("%s: %v", label, e)
		}
	}
}

func TestUpdateMember(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	ctx, c := t.Context(), srv.Client()
	ada := srv.AdminUserID()
	bob := mustMember(t, srv, "acme", "Bob Builder", platform.RoleMember)
	update := func(id string, role platform.MemberRole) (*platform.Member, error) {
		return c.Organizations.UpdateMember(ctx, &platform.UpdateMemberParams{Organization: "acme", UserID: id, Role: role})
	}
	refuse := func(id string, role platform.MemberRole, status int, mention string) {
		t.Helper()
		before := observe(t, srv)
		_, err := update(id, role)
		e := apiError(t, err, status)
		if !strings.Contains(e.Message, mention) {
			t.Errorf("message %q does not mention %q", e.Message, mention)
		}
		unchanged(t, srv, before)
	}

	// Ada is the last admin.
	refuse(ada, platform.RoleMember, http.StatusUnprocessableEntity, "last admin")

	srv.Advance(time.Second)
	m, err := update(bob, platform.RoleAdmin)
	if err != nil {
		t.Fatal(err)
	}
	if m.Role != platform.RoleAdmin || !m.UpdatedAt.Equal(srv.Now()) {
		t.Errorf("promoted Bob: role %s updated %v", m.Role, m.UpdatedAt)
	}
	// Setting the same role changes nothing, not even updated_at.
	srv.Advance(time.Second)
	same, err := update(bob, platform.RoleAdmin)
	if err != nil {
		t.Fatal(err)
	}
	if !same.UpdatedAt.Equal(m.UpdatedAt.Time) {
		t.Errorf("a no-op update moved updated_at to %v", same.UpdatedAt)
	}
	if m, err = update(ada, platform.RoleMember); err != nil || m.Role != platform.RoleMember {
		t.Fatalf("demoting Ada with Bob an admin: %v, %v", m, err)
	}
	// Now Bob is the last admin.
	refuse(bob, platform.RoleMember, http.StatusUnprocessableEntity, "last admin")

	for _, tc := range []struct {
		name, id, body string
		status         int
		mention        string
	}{
		{"unknown role", ada, `{"role":"owner"}`, http.StatusUnprocessableEntity, "owner"},
		{"uppercase role", ada, `{"role":"Admin"}`, http.StatusUnprocessableEntity, "Admin"},
		{"no role", ada, `{}`, http.StatusUnprocessableEntity, "role"},
		{"empty role", ada, `{"role":""}`, http.StatusUnprocessableEntity, "role"},
		{"role not a string", ada, `{"role":1}`, http.StatusBadRequest, "role"},
		{"unknown user", "nosuchuser12", `{"role":"admin"}`, http.StatusNotFound, "Not Found"},
	} {
		before := observe(t, srv)
		w := send(t, srv, "PATCH", "/v1/organizations/acme/members/"+tc.id, admin(srv), tc.body)
		e := wantError(t, w, tc.status, map[int]string{400: "bad_request", 404: "not_found", 422: "unprocessable"}[tc.status])
		if !strings.Contains(e.Message, tc.mention) {
			t.Errorf("%s: message %q does not mention %q", tc.name, e.Message, tc.mention)
		}
		unchanged(t, srv, before)
	}
}

func TestRemoveMember(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	ctx, c := t.Context(), srv.Client()
	ada := srv.AdminUserID()
	bob := mustMember(t, srv, "acme", "Bob Builder", platform.RoleMember)
	carol := mustMember(t, srv, "acme", "Carol Danvers", platform.RoleAdmin)
	bobs := mustToken(t, srv, fake.TokenSpec{Name: "bob's", CreatedBy: bob, Permissions: []platform.Permission{"read_organization"}})
	carols := mustToken(t, srv, fake.TokenSpec{Name: "carol's", CreatedBy: carol, Permissions: []platform.Permission{"read_organization"}})
	works := func(tok fake.Token) bool {
		_, err := srv.ClientFor(tok).Organizations.Get(ctx, &platform.GetOrganizationParams{Organization: "acme"})
		return err == nil
	}
	remove := func(p platform.RemoveMemberParams) error {
		p.Organization = "acme"
		return c.Organizations.RemoveMember(ctx, &p)
	}

	// A bad flag is refused before anything is removed.
	before := observe(t, srv)
	e := wantError(t, send(t, srv, "DELETE", "/v1/organizations/acme/members/"+bob+"?delete_service_tokens=yes", admin(srv), ""), http.StatusBadRequest, "bad_request")
	if !strings.Contains(e.Message, "delete_service_tokens") {
		t.Errorf("message %q does not name delete_service_tokens", e.Message)
	}
	wantError(t, send(t, srv, "DELETE", "/v1/organizations/acme/members/"+bob+"?delete_passwords=maybe", admin(srv), ""), http.StatusBadRequest, "bad_request")
	apiError(t, remove(platform.RemoveMemberParams{UserID: "nosuchuser12"}), http.StatusNotFound)
	unchanged(t, srv, before)

	// Removing Bob without his tokens leaves them working.
	if err := remove(platform.RemoveMemberParams{UserID: bob}); err != nil {
		t.Fatal(err)
	}
	_, err := c.Organizations.GetMember(ctx, &platform.GetMemberParams{Organization: "acme", UserID: bob})
	apiError(t, err, http.StatusNotFound)
	apiError(t, remove(platform.RemoveMemberParams{UserID: bob}), http.StatusNotFound)
	if !works(bobs) {
		t.Error("Bob's token stopped working though his tokens were kept")
	}

	// Removing Carol with her tokens revokes them.
	if err := remove(platform.RemoveMemberParams{UserID: carol, DeleteServiceTokens: true, DeletePasswords: true}); err != nil {
		t.Fatal(err)
	}
	if works(carols) {
		t.Error("Carol's token still works after removing her with delete_service_tokens")
	}
	if !works(srv.AdminToken()) {
		t.Error("the admin token, created by Ada, stopped working")
	}

	// Ada is now the last admin, and stays.
	before = observe(t, srv)
	e2 := apiError(t, remove(platform.RemoveMemberParams{UserID: ada}), http.StatusUnprocessableEntity)
	if !strings.Contains(e2.Message, "last admin") {
		t.Errorf("message %q does not say last admin", e2.Message)
	}
	unchanged(t, srv, before)
	if len(before.Members) != 1 || before.Members[0].User.ID != ada {
		t.Errorf("members left: %+v", before.Members)
	}

	// A removed user can join again.
	if err := srv.AddMember("acme", bob, platform.RoleMember); err != nil {
		t.Fatal(err)
	}
}

func TestGetCurrentUser(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	bob := mustMember(t, srv, "acme", "Bob Builder", platform.RoleMember)
	tok := mustToken(t, srv, fake.TokenSpec{Name: "bob's", CreatedBy: bob})
	for who, c := range map[string]*platform.Client{srv.AdminUserID(): srv.Client(), bob: srv.ClientFor(tok)} {
		u, err := c.Users.GetCurrent(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if u.ID != who || u.Type != "User" || u.DefaultOrganization == nil || u.DefaultOrganization.Name != "acme" || !u.EmailVerified {
			t.Errorf("current user = %+v, want %s", u, who)
		}
	}
}

// TestOrganizationBillingFlags: has_card and valid_billing_info follow the
// payment method on file, has_past_due_invoices the overdue invoices.
func TestOrganizationBillingFlags(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	ctx, c := t.Context(), srv.Client()
	mustDB(t, srv, "app") // a database to invoice
	type flags struct{ Card, Valid, PastDue bool }
	card := fake.PaymentMethod{Brand: "visa", Last4: "4242", ExpMonth: 1, ExpYear: 2030}
	steps := []struct {
		name string
		act  func() error
		want flags
	}{
		{"new organization", func() error { return nil }, flags{}},
		{"card set", func() error { return srv.SetPaymentMethod(srv.Org(), card) }, flags{Card: true, Valid: true}},
		{"card deleted", func() error {
			return c.Billing.DeletePaymentMethod(ctx, &platform.DeletePaymentMethodParams{Organization: srv.Org()})
		}, flags{}},
		{"invoices unpaid past their due time", func() error { srv.Advance(90 * 24 * time.Hour); return nil }, flags{PastDue: true}},
		{"a card pays them", func() error { return srv.SetPaymentMethod(srv.Org(), card) }, flags{Card: true, Valid: true}},
	}
	for _, s := range steps {
		if err := s.act(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		org, err := c.Organizations.Get(ctx, &platform.GetOrganizationParams{Organization: srv.Org()})
		if err != nil {
			t.Fatal(err)
		}
		got := flags{org.HasCard, org.ValidBillingInfo, org.HasPastDueInvoices != nil && *org.HasPastDueInvoices}
		if diff := cmp.Diff(s.want, got); diff != "" {
			t.Errorf("%s: flags (-want +got):\n%s", s.name, diff)
		}
	}
	overdue := 0
	for inv, err := range c.Billing.AllInvoices(ctx, &platform.ListInvoicesParams{Organization: srv.Org()}) {
		if err != nil {
			t.Fatal(err)
		}
		if inv.Overdue {
			overdue++
		}
	}
	if overdue != 0 {
		t.Errorf("%d invoices overdue once the card paid them", overdue)
	}
}
