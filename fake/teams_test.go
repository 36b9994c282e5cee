package fake_test

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// teamCreate creates a team in srv's organization with the admin client.
func teamCreate(t testing.TB, srv *fake.Server, name string) *platform.Team {
	t.Helper()
	team, err := srv.Client().Teams.Create(t.Context(), &platform.CreateTeamParams{Organization: srv.Org(), Name: name})
	if err != nil {
		t.Fatalf("creating team %q: %v", name, err)
	}
	return team
}

// teamGet reads a team by slug with the admin client.
func teamGet(t testing.TB, srv *fake.Server, slug string) *platform.Team {
	t.Helper()
	team, err := srv.Client().Teams.Get(t.Context(), &platform.GetTeamParams{Organization: srv.Org(), Team: slug})
	if err != nil {
		t.Fatalf("getting team %s: %v", slug, err)
	}
	return team
}

// teamAdd adds a user to a team with the admin client.
func teamAdd(t testing.TB, srv *fake.Server, slug, userID string) *platform.TeamMember {
	t.Helper()
	m, err := srv.Client().Teams.AddMember(t.Context(), &platform.AddTeamMemberParams{Organization: srv.Org(), Team: slug, UserID: userID})
	if err != nil {
		t.Fatalf("adding %s to team %s: %v", userID, slug, err)
	}
	return m
}

// teamUserIDs are the IDs of a team's members, as the team shows them.
func teamUserIDs(team *platform.Team) []string {
	ids := []string{}
	for _, u := range team.Members {
		ids = append(ids, u.ID)
	}
	return ids
}

// teamSlugs are the slugs of a page's teams.
func teamSlugs(page *platform.Page[platform.Team]) []string {
	slugs := []string{}
	for _, team := range page.Items {
		slugs = append(slugs, team.Slug)
	}
	return slugs
}

// teamActor is the short form of the user the credentials act for.
func teamActor(t testing.TB, c *platform.Client) platform.Actor {
	t.Helper()
	me, err := c.Users.GetCurrent(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return platform.Actor{ID: me.ID, Type: "User", DisplayName: me.DisplayName, AvatarURL: me.AvatarURL}
}

// teamSnapshot is what the admin client sees of srv's teams: every team
// and every membership, and the organization's state. A refused request
// must leave it unchanged.
type teamSnapshot struct {
	Org     observed
	Teams   []*platform.Team
	Members map[string][]*platform.TeamMember // by team slug
}

func teamObserve(t testing.TB, srv *fake.Server) teamSnapshot {
	t.Helper()
	ctx, c := t.Context(), srv.Client()
	snap := teamSnapshot{Org: observe(t, srv), Members: map[string][]*platform.TeamMember{}}
	for team, err := range c.Teams.All(ctx, &platform.ListTeamsParams{Organization: srv.Org(), ListParams: platform.ListParams{PerPage: 100}}) {
		if err != nil {
			t.Fatal(err)
		}
		snap.Teams = append(snap.Teams, team)
		for m, err := range c.Teams.AllMembers(ctx, &platform.ListTeamMembersParams{Organization: srv.Org(), Team: team.Slug, ListParams: platform.ListParams{PerPage: 100}}) {
			if err != nil {
				t.Fatal(err)
			}
			snap.Members[team.Slug] = append(snap.Members[team.Slug], m)
		}
	}
	return snap
}

// teamUnchanged checks that srv's teams are still as before.
func teamUnchanged(t testing.TB, srv *fake.Server, before teamSnapshot) {
	t.Helper()
	if diff := cmp.Diff(before, teamObserve(t, srv)); diff != "" {
		t.Errorf("state changed (-before +after):\n%s", diff)
	}
}

var teamIDPattern = regexp.MustCompile(`^[a-z0-9]{12}$`)

func TestTeamCreate(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	ctx, c := t.Context(), srv.Client()
	srv.Advance(time.Minute)

	team, err := c.Teams.Create(ctx, &platform.CreateTeamParams{Organization: srv.Org(), Name: "Core DBAs", Description: platform.Ptr("keeps the lights on")})
	if err != nil {
		t.Fatal(err)
	}
	if !teamIDPattern.MatchString(team.ID) {
		t.Errorf("ID %q is not 12 lowercase letters and digits", team.ID)
	}
	now := platform.NewTimestamp(srv.Now())
	want := &platform.Team{
		ID: team.ID, Type: "OrganizationTeam", Name: "Core DBAs", DisplayName: "Core DBAs", Slug: "core-dbas",
		Description:      platform.Ptr("keeps the lights on"),
		Creator:          teamActor(t, c),
		Members:          []platform.User{},
		Databases:        []platform.DatabaseRef{},
		AnalystDatabases: []platform.DatabaseRef{},
		CreatedAt:        now,
		UpdatedAt:        now,
	}
	if diff := cmp.Diff(want, team); diff != "" {
		t.Errorf("created team (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, teamGet(t, srv, "core-dbas")); diff != "" {
		t.Errorf("Get (-want +got):\n%s", diff)
	}

	// No description is null; surrounding spaces are not part of the name.
	plain, err := c.Teams.Create(ctx, &platform.CreateTeamParams{Organization: srv.Org(), Name: "  Data  "})
	if err != nil {
		t.Fatal(err)
	}
	if plain.Description != nil || plain.Name != "Data" || plain.Slug != "data" {
		t.Errorf("team without description: name %q slug %q description %v", plain.Name, plain.Slug, plain.Description)
	}
	w := send(t, srv, "GET", "/v1/organizations/acme/teams/data", admin(srv), "")
	wantStatus(t, w, http.StatusOK)
	for _, field := range []string{`"description":null`, `"members":[]`, `"databases":[]`, `"analyst_databases":[]`, `"managed":false`} {
		if !strings.Contains(string(w.body), field) {
			t.Errorf("team body %s lacks %s", w.body, field)
		}
	}
}

// TestTeamCreatorIsTheTokensUser checks that a team's creator is the user
// behind the credentials, not the organization's admin.
func TestTeamCreatorIsTheTokensUser(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	bob := mustMember(t, srv, srv.Org(), "Bob Builder", platform.RoleMember)
	tok := mustToken(t, srv, fake.TokenSpec{Name: "bob's", CreatedBy: bob, Permissions: []platform.Permission{"write_teams", "read_organization"}})
	bc := srv.ClientFor(tok)
	team, err := bc.Teams.Create(t.Context(), &platform.CreateTeamParams{Organization: srv.Org(), Name: "Bob's crew"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(teamActor(t, bc), team.Creator); diff != "" {
		t.Errorf("creator (-want +got):\n%s", diff)
	}
	if team.Creator.ID != bob {
		t.Errorf("creator %s, want Bob %s", team.Creator.ID, bob)
	}
	m := teamAdd(t, srv, team.Slug, bob)
	if m.Actor.ID != srv.AdminUserID() {
		t.Errorf("membership actor %s, want the admin %s who added it", m.Actor.ID, srv.AdminUserID())
	}
}

func TestTeamSlugDerivation(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, slug string }{
		{"Core", "core"},
		{"Core DBAs", "core-dbas"},
		{"R&D / Ops", "r-d-ops"},
		{"  --Edge--  ", "edge"},
		{"a_b.c", "a-b-c"},
		{"Team 42", "team-42"},
		{"ABC123xyz", "abc123xyz"},
		{"Ünïcode Team", "n-code-team"},
		{"many    spaces\tand\ttabs", "many-spaces-and-tabs"},
		{strings.Repeat("é", 62) + "x", "x"}, // the longest name: 63 characters
		{" " + strings.Repeat("Ab", 31) + "c ", strings.Repeat("ab", 31) + "c"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := fake.NewServer(t)
			team := teamCreate(t, srv, tt.name)
			if team.Slug != tt.slug {
				t.Errorf("slug of %q = %q, want %q", tt.name, team.Slug, tt.slug)
			}
			if got := teamGet(t, srv, tt.slug); got.ID != team.ID {
				t.Errorf("Get(%s) = team %s, want %s", tt.slug, got.ID, team.ID)
			}
		})
	}
}

func TestTeamCreateRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		body   string
		status int
		words  []string
	}{
		{"no name", `{"description":"x"}`, http.StatusUnprocessableEntity, []string{"name", "required"}},
		{"empty name", `{"name":""}`, http.StatusUnprocessableEntity, []string{"name", "required"}},
		{"blank name", `{"name":"   "}`, http.StatusUnprocessableEntity, []string{"name", "required"}},
		{"no letters or digits", `{"name":"!!! ---"}`, http.StatusUnprocessableEntity, []string{"name", "!!! ---", "slug"}},
		{"slug taken", `{"name":"CORE  dbas!"}`, http.StatusUnprocessableEntity, []string{"core-dbas", "Core DBAs", "acme"}},
		{"name too long", `{"name":"` + strings.Repeat("é", 64) + `"}`, http.StatusUnprocessableEntity, []string{"name is longer than 63 characters (it has 64)"}},
		{"name of half a megabyte", `{"name":"` + strings.Repeat("a", 1<<19) + `"}`, http.StatusUnprocessableEntity, []string{"name is longer than 63 characters"}},
		{"name not a string", `{"name":5}`, http.StatusBadRequest, []string{"name"}},
		{"description not a string", `{"name":"Fresh","description":true}`, http.StatusBadRequest, []string{"description"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := fake.NewServer(t)
			teamCreate(t, srv, "Core DBAs")
			before := teamObserve(t, srv)
			w := send(t, srv, "POST", "/v1/organizations/acme/teams", admin(srv), tt.body)
			code := map[int]string{http.StatusBadRequest: "bad_request", http.StatusUnprocessableEntity: "unprocessable"}[tt.status]
			e := wantError(t, w, tt.status, code)
			for _, word := range tt.words {
				if !strings.Contains(e.Message, word) {
					t.Errorf("message %q does not mention %q", e.Message, word)
				}
			}
			teamUnchanged(t, srv, before)
		})
	}
}

func TestTeamUpdate(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	ctx, c := t.Context(), srv.Client()
	created := teamCreate(t, srv, "Core DBAs")
	srv.Advance(time.Minute)

	renamed, err := c.Teams.Update(ctx, &platform.UpdateTeamParams{
		Organization: srv.Org(), Team: "core-dbas", Name: platform.Ptr("Platform Team"), Description: platform.Ptr("runs the platform"),
	})
	if err != nil {
		t.Fatal(err)
	}
	want := *created
	want.Name, want.DisplayName, want.Slug = "Platform Team", "Platform Team", "platform-team"
	want.Description = platform.Ptr("runs the platform")
	want.UpdatedAt = platform.NewTimestamp(srv.Now())
	if diff := cmp.Diff(&want, renamed); diff != "" {
		t.Errorf("renamed team (-want +got):\n%s", diff)
	}
	// The rename moved the team to the new slug.
	if diff := cmp.Diff(&want, teamGet(t, srv, "platform-team")); diff != "" {
		t.Errorf("Get under the new slug (-want +got):\n%s", diff)
	}
	_, err = c.Teams.Get(ctx, &platform.GetTeamParams{Organization: srv.Org(), Team: "core-dbas"})
	apiError(t, err, http.StatusNotFound)

	// A change of case keeps the slug; an empty description clears it.
	srv.Advance(time.Minute)
	recased, err := c.Teams.Update(ctx, &platform.UpdateTeamParams{
		Organization: srv.Org(), Team: "platform-team", Name: platform.Ptr("PLATFORM team"), Description: platform.Ptr(""),
	})
	if err != nil {
		t.Fatal(err)
	}
	if recased.Slug != "platform-team" || recased.Name != "PLATFORM team" || recased.Description != nil {
		t.Errorf("recased team: slug %q name %q description %v", recased.Slug, recased.Name, recased.Description)
	}
	if !recased.UpdatedAt.Equal(srv.Now()) {
		t.Errorf("updated_at %v, want %v", recased.UpdatedAt, srv.Now())
	}

	// A change to nothing keeps updated_at.
	srv.Advance(time.Minute)
	same, err := c.Teams.Update(ctx, &platform.UpdateTeamParams{Organization: srv.Org(), Team: "platform-team", Name: platform.Ptr("PLATFORM team")})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(recased, same); diff != "" {
		t.Errorf("an update that changes nothing changed the team (-before +after):\n%s", diff)
	}
}

func TestTeamUpdateRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, team, body string
		status           int
		words            []string
	}{
		{"empty name", "core-dbas", `{"name":""}`, http.StatusUnprocessableEntity, []string{"name", "required"}},
		{"no letters or digits", "core-dbas", `{"name":"%%"}`, http.StatusUnprocessableEntity, []string{"name", "slug"}},
		{"slug of another team", "core-dbas", `{"name":"data!","description":"changed"}`, http.StatusUnprocessableEntity, []string{"slug", "data", "Data"}},
		{"name too long", "core-dbas", `{"name":"` + strings.Repeat("a", 64) + `"}`, http.StatusUnprocessableEntity, []string{"name is longer than 63 characters (it has 64)"}},
		{"name not a string", "core-dbas", `{"name":["x"]}`, http.StatusBadRequest, []string{"name"}},
		{"unknown team", "nope", `{"description":"x"}`, http.StatusNotFound, nil},
		{"slug in another case", "Core-DBAs", `{"description":"x"}`, http.StatusNotFound, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := fake.NewServer(t)
			teamCreate(t, srv, "Core DBAs")
			teamCreate(t, srv, "Data")
			before := teamObserve(t, srv)
			w := send(t, srv, "PATCH", "/v1/organizations/acme/teams/"+tt.team, admin(srv), tt.body)
			code := map[int]string{http.StatusBadRequest: "bad_request", http.StatusNotFound: "not_found", http.StatusUnprocessableEntity: "unprocessable"}[tt.status]
			e := wantError(t, w, tt.status, code)
			for _, word := range tt.words {
				if !strings.Contains(e.Message, word) {
					t.Errorf("message %q does not mention %q", e.Message, word)
				}
			}
			teamUnchanged(t, srv, before)
		})
	}
}

func TestTeamDelete(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	ctx, c := t.Context(), srv.Client()
	bob := mustMember(t, srv, srv.Org(), "Bob Builder", platform.RoleMember)
	old := teamCreate(t, srv, "Core")
	teamAdd(t, srv, "core", bob)
	teamCreate(t, srv, "Data")

	if err := c.Teams.Delete(ctx, &platform.DeleteTeamParams{Organization: srv.Org(), Team: "core"}); err != nil {
		t.Fatal(err)
	}
	_, err := c.Teams.Get(ctx, &platform.GetTeamParams{Organization: srv.Org(), Team: "core"})
	apiError(t, err, http.StatusNotFound)
	_, err = c.Teams.ListMembers(ctx, &platform.ListTeamMembersParams{Organization: srv.Org(), Team: "core"})
	apiError(t, err, http.StatusNotFound)
	page, err := c.Teams.List(ctx, &platform.ListTeamsParams{Organization: srv.Org()})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"data"}, teamSlugs(page)); diff != "" {
		t.Errorf("teams after the deletion (-want +got):\n%s", diff)
	}
	// The members stay in the organization.
	if _, err := c.Organizations.GetMember(ctx, &platform.GetMemberParams{Organization: srv.Org(), UserID: bob}); err != nil {
		t.Errorf("Bob left the organization with the team: %v", err)
	}
	// Gone is gone; the slug is free again, for a new team.
	err = c.Teams.Delete(ctx, &platform.DeleteTeamParams{Organization: srv.Org(), Team: "core"})
	apiError(t, err, http.StatusNotFound)
	again := teamCreate(t, srv, "Core")
	if again.ID == old.ID || len(again.Members) != 0 {
		t.Errorf("the new team core is the old one: ID %s (old %s), %d members", again.ID, old.ID, len(again.Members))
	}
}

// TestTeamUnknownTeam checks that every operation on a team answers 404
// for a slug that names no team, and one of another organization.
func TestTeamUnknownTeam(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	bob := mustMember(t, srv, srv.Org(), "Bob Builder", platform.RoleMember)
	other := otherOrg(t, srv, "beta")
	if _, err := srv.ClientFor(other).Teams.Create(t.Context(), &platform.CreateTeamParams{Organization: "beta", Name: "Theirs"}); err != nil {
		t.Fatal(err)
	}
	teamCreate(t, srv, "Core")
	before := teamObserve(t, srv)
	for _, slug := range []string{"nope", "theirs"} {
		for _, r := range []struct{ method, suffix, body string }{
			{"GET", "", ""},
			{"PATCH", "", `{"description":"x"}`},
			{"DELETE", "", ""},
			{"GET", "/members", ""},
			{"POST", "/members", `{"user_id":"` + bob + `"}`},
			{"GET", "/members/" + bob, ""},
			{"DELETE", "/members/" + bob, ""},
		} {
			w := send(t, srv, r.method, "/v1/organizations/acme/teams/"+slug+r.suffix, admin(srv), r.body)
			if e := wantError(t, w, http.StatusNotFound, "not_found"); e.Message != "Not Found" {
				t.Errorf("%s %s: message %q", r.method, r.suffix, e.Message)
			}
		}
	}
	teamUnchanged(t, srv, before)
}

func TestTeamMembers(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	ctx, c := t.Context(), srv.Client()
	bob := mustMember(t, srv, srv.Org(), "Bob Builder", platform.RoleMember)
	carol := mustMember(t, srv, srv.Org(), "Carol Chen", platform.RoleAdmin)
	teamCreate(t, srv, "Core")
	srv.Advance(time.Minute)

	m := teamAdd(t, srv, "core", bob)
	if !teamIDPattern.MatchString(m.ID) || m.ID == bob {
		t.Errorf("membership ID %q: want its own 12-character ID", m.ID)
	}
	orgMember, err := c.Organizations.GetMember(ctx, &platform.GetMemberParams{Organization: srv.Org(), UserID: bob})
	if err != nil {
		t.Fatal(err)
	}
	now := platform.NewTimestamp(srv.Now())
	want := &platform.TeamMember{
		ID: m.ID, Type: "OrganizationTeamMembership", User: orgMember.User, Actor: teamActor(t, c),
		CreatedAt: now, UpdatedAt: now, Passwords: []json.RawMessage{},
	}
	if diff := cmp.Diff(want, m); diff != "" {
		t.Errorf("membership (-want +got):\n%s", diff)
	}
	// Found by membership ID and by user ID.
	for _, id := range []string{m.ID, bob} {
		got, err := c.Teams.GetMember(ctx, &platform.GetTeamMemberParams{Organization: srv.Org(), Team: "core", ID: id})
		if err != nil {
			t.Fatalf("GetMember(%s): %v", id, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("GetMember(%s) (-want +got):\n%s", id, diff)
		}
	}
	team := teamGet(t, srv, "core")
	if diff := cmp.Diff([]platform.User{orgMember.User}, team.Members); diff != "" {
		t.Errorf("team members (-want +got):\n%s", diff)
	}
	if !team.UpdatedAt.Equal(srv.Now()) {
		t.Errorf("team updated_at %v, want the time of the addition %v", team.UpdatedAt, srv.Now())
	}

	srv.Advance(time.Second)
	mc := teamAdd(t, srv, "core", carol)
	page, err := c.Teams.ListMembers(ctx, &platform.ListTeamMembersParams{Organization: srv.Org(), Team: "core"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]*platform.TeamMember{want, mc}, page.Items); diff != "" {
		t.Errorf("ListMembers (-want +got):\n%s", diff)
	}
	if page.TotalCount == nil || *page.TotalCount != 2 {
		t.Errorf("total_count %v, want 2", page.TotalCount)
	}
	if diff := cmp.Diff([]string{bob, carol}, teamUserIDs(teamGet(t, srv, "core"))); diff != "" {
		t.Errorf("team members (-want +got):\n%s", diff)
	}
	// A membership of another team is not this team's.
	teamCreate(t, srv, "Data")
	_, err = c.Teams.GetMember(ctx, &platform.GetTeamMemberParams{Organization: srv.Org(), Team: "data", ID: m.ID})
	apiError(t, err, http.StatusNotFound)
}

func TestTeamAddMemberRefused(t *testing.T) {
	t.Parallel()
	type fixture struct {
		srv                        *fake.Server
		bob, outsider, otherMember string
	}
	tests := []struct {
		name   string
		body   func(f fixture) string
		status int
		words  func(f fixture) []string
	}{
		{"no user_id", func(fixture) string { return `{}` }, http.StatusUnprocessableEntity,
			func(fixture) []string { return []string{"user_id", "required"} }},
		{"user not in the organization", func(f fixture) string { return `{"user_id":"` + f.outsider + `"}` }, http.StatusUnprocessableEntity,
			func(f fixture) []string { return []string{f.outsider, "not a member", "acme"} }},
		{"member of another organization", func(f fixture) string { return `{"user_id":"` + f.otherMember + `"}` }, http.StatusUnprocessableEntity,
			func(f fixture) []string { return []string{f.otherMember, "not a member"} }},
		{"unknown user", func(fixture) string { return `{"user_id":"nosuchuser00"}` }, http.StatusUnprocessableEntity,
			func(fixture) []string { return []string{"nosuchuser00", "not a member"} }},
		{"already on the team", func(f fixture) string { return `{"user_id":"` + f.bob + `"}` }, http.StatusUnprocessableEntity,
			func(f fixture) []string { return []string{f.bob, "already", "core"} }},
		{"user_id not a string", func(fixture) string { return `{"user_id":7}` }, http.StatusBadRequest,
			func(fixture) []string { return []string{"user_id"} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := fake.NewServer(t)
			f := fixture{srv: srv, bob: mustMember(t, srv, srv.Org(), "Bob Builder", platform.RoleMember)}
			f.outsider = srv.CreateUser("Otto Outsider", "otto@example.com")
			if err := srv.CreateOrganization("beta"); err != nil {
				t.Fatal(err)
			}
			f.otherMember = mustMember(t, srv, "beta", "Olga Other", platform.RoleAdmin)
			teamCreate(t, srv, "Core")
			teamAdd(t, srv, "core", f.bob)
			before := teamObserve(t, srv)
			w := send(t, srv, "POST", "/v1/organizations/acme/teams/core/members", admin(srv), tt.body(f))
			code := map[int]string{http.StatusBadRequest: "bad_request", http.StatusUnprocessableEntity: "unprocessable"}[tt.status]
			e := wantError(t, w, tt.status, code)
			for _, word := range tt.words(f) {
				if !strings.Contains(e.Message, word) {
					t.Errorf("message %q does not mention %q", e.Message, word)
				}
			}
			teamUnchanged(t, srv, before)
		})
	}
}

func TestTeamRemoveMember(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	ctx, c := t.Context(), srv.Client()
	bob := mustMember(t, srv, srv.Org(), "Bob Builder", platform.RoleMember)
	carol := mustMember(t, srv, srv.Org(), "Carol Chen", platform.RoleMember)
	dan := mustMember(t, srv, srv.Org(), "Dan Doe", platform.RoleMember)
	teamCreate(t, srv, "Core")
	mb := teamAdd(t, srv, "core", bob)
	teamAdd(t, srv, "core", carol)

	// Refusals first: a bad flag, and a user who is not on the team.
	before := teamObserve(t, srv)
	w := send(t, srv, "DELETE", "/v1/organizations/acme/teams/core/members/"+bob+"?delete_passwords=maybe", admin(srv), "")
	if e := wantError(t, w, http.StatusBadRequest, "bad_request"); !strings.Contains(e.Message, "delete_passwords") {
		t.Errorf("message %q does not name delete_passwords", e.Message)
	}
	err := c.Teams.RemoveMember(ctx, &platform.RemoveTeamMemberParams{Organization: srv.Org(), Team: "core", ID: dan})
	apiError(t, err, http.StatusNotFound)
	teamUnchanged(t, srv, before)

	// By membership ID, then by user ID.
	srv.Advance(time.Minute)
	if err := c.Teams.RemoveMember(ctx, &platform.RemoveTeamMemberParams{Organization: srv.Org(), Team: "core", ID: mb.ID, DeletePasswords: true}); err != nil {
		t.Fatal(err)
	}
	team := teamGet(t, srv, "core")
	if diff := cmp.Diff([]string{carol}, teamUserIDs(team)); diff != "" {
		t.Errorf("members after removing Bob (-want +got):\n%s", diff)
	}
	if !team.UpdatedAt.Equal(srv.Now()) {
		t.Errorf("team updated_at %v, want the time of the removal %v", team.UpdatedAt, srv.Now())
	}
	for _, id := range []string{mb.ID, bob} {
		_, err := c.Teams.GetMember(ctx, &platform.GetTeamMemberParams{Organization: srv.Org(), Team: "core", ID: id})
		apiError(t, err, http.StatusNotFound)
	}
	err = c.Teams.RemoveMember(ctx, &platform.RemoveTeamMemberParams{Organization: srv.Org(), Team: "core", ID: bob})
	apiError(t, err, http.StatusNotFound)
	if err := c.Teams.RemoveMember(ctx, &platform.RemoveTeamMemberParams{Organization: srv.Org(), Team: "core", ID: carol}); err != nil {
		t.Fatal(err)
	}
	page, err := c.Teams.ListMembers(ctx, &platform.ListTeamMembersParams{Organization: srv.Org(), Team: "core"})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 0 || page.TotalCount == nil || *page.TotalCount != 0 {
		t.Errorf("members left: %d, total %v", len(page.Items), page.TotalCount)
	}
	// They stay in the organization, and may join again.
	for _, id := range []string{bob, carol} {
		if _, err := c.Organizations.GetMember(ctx, &platform.GetMemberParams{Organization: srv.Org(), UserID: id}); err != nil {
			t.Errorf("user %s left the organization with the team: %v", id, err)
		}
	}
	if again := teamAdd(t, srv, "core", bob); again.ID == mb.ID {
		t.Errorf("rejoining reused the old membership %s", mb.ID)
	}
}

// TestTeamMemberLeavesOrganization checks that a user removed from the
// organization leaves every team, managed ones included, and does not come
// back with a new organization membership.
func TestTeamMemberLeavesOrganization(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	ctx, c := t.Context(), srv.Client()
	bob := mustMember(t, srv, srv.Org(), "Bob Builder", platform.RoleMember)
	carol := mustMember(t, srv, srv.Org(), "Carol Chen", platform.RoleMember)
	for _, name := range []string{"Core", "Data"} {
		team := teamCreate(t, srv, name)
		teamAdd(t, srv, team.Slug, bob)
		teamAdd(t, srv, team.Slug, carol)
	}
	if err := srv.SetTeamManaged(srv.Org(), "data", true); err != nil {
		t.Fatal(err)
	}
	srv.Advance(time.Minute)

	if err := c.Organizations.RemoveMember(ctx, &platform.RemoveMemberParams{Organization: srv.Org(), UserID: bob}); err != nil {
		t.Fatal(err)
	}
	if err := srv.AddMember(srv.Org(), bob, platform.RoleMember); err != nil {
		t.Fatal(err)
	}
	for _, slug := range []string{"core", "data"} {
		team := teamGet(t, srv, slug)
		if diff := cmp.Diff([]string{carol}, teamUserIDs(team)); diff != "" {
			t.Errorf("%s members (-want +got):\n%s", slug, diff)
		}
		if !team.UpdatedAt.Equal(srv.Now()) {
			t.Errorf("%s updated_at %v, want %v", slug, team.UpdatedAt, srv.Now())
		}
		_, err := c.Teams.GetMember(ctx, &platform.GetTeamMemberParams{Organization: srv.Org(), Team: slug, ID: bob})
		apiError(t, err, http.StatusNotFound)
		page, err := c.Teams.ListMembers(ctx, &platform.ListTeamMembersParams{Organization: srv.Org(), Team: slug})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Items) != 1 || page.Items[0].User.ID != carol || *page.TotalCount != 1 {
			t.Errorf("%s memberships: %d, total %v", slug, len(page.Items), *page.TotalCount)
		}
	}
}

func TestTeamDatabases(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	ctx, c := t.Context(), srv.Client()
	mustDB(t, srv, "app")
	mustDB(t, srv, "web")
	teamCreate(t, srv, "Core")
	srv.Advance(5 * time.Second)
	ref := func(name string) platform.DatabaseRef {
		t.Helper()
		db, err := c.Databases.Get(ctx, &platform.GetDatabaseParams{Organization: srv.Org(), Database: name})
		if err != nil {
			t.Fatal(err)
		}
		return platform.DatabaseRef{ID: db.ID, Name: db.Name, URL: db.URL, BranchesURL: db.BranchesURL}
	}

	if err := srv.AddTeamDatabase(srv.Org(), "core", "app"); err != nil {
		t.Fatal(err)
	}
	if err := srv.AddTeamAnalystDatabase(srv.Org(), "core", "web"); err != nil {
		t.Fatal(err)
	}
	if err := srv.AddTeamAnalystDatabase(srv.Org(), "core", "app"); err != nil {
		t.Fatal(err)
	}
	team := teamGet(t, srv, "core")
	if diff := cmp.Diff([]platform.DatabaseRef{ref("app")}, team.Databases); diff != "" {
		t.Errorf("databases (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]platform.DatabaseRef{ref("web"), ref("app")}, team.AnalystDatabases); diff != "" {
		t.Errorf("analyst databases (-want +got):\n%s", diff)
	}
	if !team.UpdatedAt.Equal(srv.Now()) {
		t.Errorf("updated_at %v, want %v", team.UpdatedAt, srv.Now())
	}
	page, err := c.Teams.List(ctx, &platform.ListTeamsParams{Organization: srv.Org()})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(team, page.Items[0]); diff != "" {
		t.Errorf("the list shows the team otherwise (-get +list):\n%s", diff)
	}

	if err := srv.CreateOrganization("beta"); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		add  func() error
	}{
		{"already on the team", func() error { return srv.AddTeamDatabase(srv.Org(), "core", "app") }},
		{"already an analyst database", func() error { return srv.AddTeamAnalystDatabase(srv.Org(), "core", "web") }},
		{"unknown database", func() error { return srv.AddTeamDatabase(srv.Org(), "core", "nope") }},
		{"unknown team", func() error { return srv.AddTeamDatabase(srv.Org(), "nope", "app") }},
		{"unknown organization", func() error { return srv.AddTeamDatabase("nope", "core", "app") }},
		{"team of another organization", func() error { return srv.AddTeamDatabase("beta", "core", "app") }},
	} {
		if err := tt.add(); err == nil {
			t.Errorf("%s: no error", tt.name)
		}
	}
	if diff := cmp.Diff(team, teamGet(t, srv, "core")); diff != "" {
		t.Errorf("a refused addition changed the team (-before +after):\n%s", diff)
	}

	// A renamed database shows its new name; a deleted one leaves the team,
	// and a new database of the same name is not on it.
	if _, err := c.Databases.Update(ctx, &platform.UpdateDatabaseParams{Organization: srv.Org(), Database: "web", NewName: platform.Ptr("site")}); err != nil {
		t.Fatal(err)
	}
	if err := c.Databases.Delete(ctx, &platform.DeleteDatabaseParams{Organization: srv.Org(), Database: "app"}); err != nil {
		t.Fatal(err)
	}
	mustDB(t, srv, "app")
	team = teamGet(t, srv, "core")
	if len(team.Databases) != 0 {
		t.Errorf("databases after the deletion: %+v", team.Databases)
	}
	if diff := cmp.Diff([]platform.DatabaseRef{ref("site")}, team.AnalystDatabases); diff != "" {
		t.Errorf("analyst databases after the rename and the deletion (-want +got):\n%s", diff)
	}
	// The new app can join.
	if err := srv.AddTeamDatabase(srv.Org(), "core", "app"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]platform.DatabaseRef{ref("app")}, teamGet(t, srv, "core").Databases); diff != "" {
		t.Errorf("databases (-want +got):\n%s", diff)
	}
}

func TestTeamManaged(t *testing.T) {
	t.Parallel()
	setup := func(t *testing.T) (srv *fake.Server, bob, carol string) {
		t.Helper()
		srv = fake.NewServer(t)
		bob = mustMember(t, srv, srv.Org(), "Bob Builder", platform.RoleMember)
		carol = mustMember(t, srv, srv.Org(), "Carol Chen", platform.RoleMember)
		teamCreate(t, srv, "Core")
		teamAdd(t, srv, "core", bob)
		srv.Advance(time.Minute)
		if err := srv.SetTeamManaged(srv.Org(), "core", true); err != nil {
			t.Fatal(err)
		}
		return srv, bob, carol
	}
	refused := []struct {
		name string
		call func(ctx context.Context, c *platform.Client, org, bob, carol string) error
	}{
		{"update name", func(ctx context.Context, c *platform.Client, org, _, _ string) error {
			_, err := c.Teams.Update(ctx, &platform.UpdateTeamParams{Organization: org, Team: "core", Name: platform.Ptr("Renamed")})
			return err
		}},
		{"update description", func(ctx context.Context, c *platform.Client, org, _, _ string) error {
			_, err := c.Teams.Update(ctx, &platform.UpdateTeamParams{Organization: org, Team: "core", Description: platform.Ptr("x")})
			return err
		}},
		{"delete", func(ctx context.Context, c *platform.Client, org, _, _ string) error {
			return c.Teams.Delete(ctx, &platform.DeleteTeamParams{Organization: org, Team: "core"})
		}},
		{"add member", func(ctx context.Context, c *platform.Client, org, _, carol string) error {
			_, err := c.Teams.AddMember(ctx, &platform.AddTeamMemberParams{Organization: org, Team: "core", UserID: carol})
			return err
		}},
		{"remove member", func(ctx context.Context, c *platform.Client, org, bob, _ string) error {
			return c.Teams.RemoveMember(ctx, &platform.RemoveTeamMemberParams{Organization: org, Team: "core", ID: bob})
		}},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, bob, carol := setup(t)
			before := teamObserve(t, srv)
			err := tt.call(t.Context(), srv.Client(), srv.Org(), bob, carol)
			apiError(t, err, http.StatusUnprocessableEntity, "core", "managed")
			teamUnchanged(t, srv, before)
		})
	}

	t.Run("reads and the way back", func(t *testing.T) {
		t.Parallel()
		srv, bob, carol := setup(t)
		ctx, c := t.Context(), srv.Client()
		team := teamGet(t, srv, "core")
		if !team.Managed || !team.UpdatedAt.Equal(srv.Now()) {
			t.Errorf("managed %v, updated_at %v; want true at %v", team.Managed, team.UpdatedAt, srv.Now())
		}
		if _, err := c.Teams.GetMember(ctx, &platform.GetTeamMemberParams{Organization: srv.Org(), Team: "core", ID: bob}); err != nil {
			t.Errorf("GetMember of a managed team: %v", err)
		}
		if _, err := c.Teams.ListMembers(ctx, &platform.ListTeamMembersParams{Organization: srv.Org(), Team: "core"}); err != nil {
			t.Errorf("ListMembers of a managed team: %v", err)
		}
		page, err := c.Teams.List(ctx, &platform.ListTeamsParams{Organization: srv.Org()})
		if err != nil || len(page.Items) != 1 || !page.Items[0].Managed {
			t.Errorf("List: %v, %+v", err, page)
		}
		// A repeated setting changes nothing.
		srv.Advance(time.Minute)
		if err := srv.SetTeamManaged(srv.Org(), "core", true); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(team, teamGet(t, srv, "core")); diff != "" {
			t.Errorf("setting managed again changed the team (-before +after):\n%s", diff)
		}
		if err := srv.SetTeamManaged(srv.Org(), "core", false); err != nil {
			t.Fatal(err)
		}
		teamAdd(t, srv, "core", carol)
		if err := c.Teams.Delete(ctx, &platform.DeleteTeamParams{Organization: srv.Org(), Team: "core"}); err != nil {
			t.Errorf("Delete of a team no longer managed: %v", err)
		}
		for _, tt := range []struct{ org, team string }{{srv.Org(), "core"}, {"nope", "core"}} {
			if err := srv.SetTeamManaged(tt.org, tt.team, true); err == nil {
				t.Errorf("SetTeamManaged(%s, %s): no error", tt.org, tt.team)
			}
		}
	})
}

func TestTeamListFilterAndPages(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	ctx, c := t.Context(), srv.Client()
	for _, name := range []string{"Core DBAs", "Data Science", "Data Engineering", "Frontend", "Backend Core"} {
		teamCreate(t, srv, name)
		srv.Advance(time.Second) // lists are in creation order
	}
	pageOf := func(q string, page, perPage int) *platform.Page[platform.Team] {
		t.Helper()
		p, err := c.Teams.List(ctx, &platform.ListTeamsParams{Organization: srv.Org(), Query: q, ListParams: platform.ListParams{Page: page, PerPage: perPage}})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	intp := func(n int) *int { return &n }
	tests := []struct {
		q              string
		page, perPage  int
		slugs          []string
		total, pages   int
		next, previous *int
	}{
		{"", 1, 2, []string{"core-dbas", "data-science"}, 5, 3, intp(2), nil},
		{"", 2, 2, []string{"data-engineering", "frontend"}, 5, 3, intp(3), intp(1)},
		{"", 3, 2, []string{"backend-core"}, 5, 3, nil, intp(2)},
		{"", 4, 2, []string{}, 5, 3, nil, intp(3)},
		{"data", 1, 25, []string{"data-science", "data-engineering"}, 2, 1, nil, nil},
		{"CORE", 1, 25, []string{"core-dbas", "backend-core"}, 2, 1, nil, nil},
		{"a e", 1, 25, []string{"data-engineering"}, 1, 1, nil, nil},
		{"data", 2, 1, []string{"data-engineering"}, 2, 2, nil, intp(1)},
		{"zzz", 1, 25, []string{}, 0, 0, nil, nil},
	}
	for _, tt := range tests {
		p := pageOf(tt.q, tt.page, tt.perPage)
		if diff := cmp.Diff(tt.slugs, teamSlugs(p)); diff != "" {
			t.Errorf("q=%q page %d per %d: slugs (-want +got):\n%s", tt.q, tt.page, tt.perPage, diff)
		}
		if p.TotalCount == nil || *p.TotalCount != tt.total || p.TotalPages == nil || *p.TotalPages != tt.pages {
			t.Errorf("q=%q page %d: totals %v/%v, want %d/%d", tt.q, tt.page, p.TotalCount, p.TotalPages, tt.total, tt.pages)
		}
		if diff := cmp.Diff(tt.next, p.NextPage); diff != "" {
			t.Errorf("q=%q page %d: next_page (-want +got):\n%s", tt.q, tt.page, diff)
		}
		if diff := cmp.Diff(tt.previous, p.PrevPage); diff != "" {
			t.Errorf("q=%q page %d: prev_page (-want +got):\n%s", tt.q, tt.page, diff)
		}
	}
	// The next page's address keeps the filter.
	if p := pageOf("data", 1, 1); p.NextPageURL == nil || !strings.Contains(*p.NextPageURL, "q=data") {
		t.Errorf("next_page_url %v does not keep q", p.NextPageURL)
	}
}

func TestTeamMembersPages(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	ctx, c := t.Context(), srv.Client()
	teamCreate(t, srv, "Core")
	var ids []string
	for _, name := range []string{"Bob Builder", "Carol Chen", "Dan Doe"} {
		id := mustMember(t, srv, srv.Org(), name, platform.RoleMember)
		teamAdd(t, srv, "core", id)
		ids = append(ids, id)
		srv.Advance(time.Second)
	}
	for _, tt := range []struct {
		page  int
		users []string
		next  bool
	}{{1, ids[:2], true}, {2, ids[2:], false}, {3, []string{}, false}} {
		p, err := c.Teams.ListMembers(ctx, &platform.ListTeamMembersParams{Organization: srv.Org(), Team: "core", ListParams: platform.ListParams{Page: tt.page, PerPage: 2}})
		if err != nil {
			t.Fatal(err)
		}
		users := []string{}
		for _, m := range p.Items {
			users = append(users, m.User.ID)
		}
		if diff := cmp.Diff(tt.users, users); diff != "" {
			t.Errorf("page %d (-want +got):\n%s", tt.page, diff)
		}
		if p.HasNext() != tt.next || p.TotalCount == nil || *p.TotalCount != 3 || p.TotalPages == nil || *p.TotalPages != 2 {
			t.Errorf("page %d: next %v, totals %v/%v; want next %v, 3/2", tt.page, p.NextPage, p.TotalCount, p.TotalPages, tt.next)
		}
	}
	w := send(t, srv, "GET", "/v1/organizations/acme/teams/core/members?per_page=101", admin(srv), "")
	wantError(t, w, http.StatusBadRequest, "bad_request")
}

// TestTeamPermissions checks each team operation against its permission
// column: a token holding every permission but that one gets 404 and
// changes nothing, as does a token of another organization; a token
// holding only that one succeeds.
func TestTeamPermissions(t *testing.T) {
	t.Parallel()
	ops := loadOperations(t)
	type fixture struct {
		srv        *fake.Server
		bob, carol string
	}
	setup := func(t *testing.T) fixture {
		t.Helper()
		srv := fake.NewServer(t)
		f := fixture{srv: srv, bob: mustMember(t, srv, srv.Org(), "Bob Builder", platform.RoleMember)}
		f.carol = mustMember(t, srv, srv.Org(), "Carol Chen", platform.RoleMember)
		teamCreate(t, srv, "Core")
		teamAdd(t, srv, "core", f.bob)
		return f
	}
	tests := []struct {
		op   string
		perm string
		path func(f fixture) string
		body func(f fixture) string
	}{
		{"list_organization_teams", "read_organization", func(fixture) string { return "/v1/organizations/acme/teams" }, nil},
		{"create_organization_team", "write_teams", func(fixture) string { return "/v1/organizations/acme/teams" },
			func(fixture) string { return `{"name":"Fresh"}` }},
		{"get_organization_team", "read_organization", func(fixture) string { return "/v1/organizations/acme/teams/core" }, nil},
		{"update_organization_team", "write_teams", func(fixture) string { return "/v1/organizations/acme/teams/core" },
			func(fixture) string { return `{"description":"changed"}` }},
		{"delete_organization_team", "write_teams", func(fixture) string { return "/v1/organizations/acme/teams/core" }, nil},
		{"list_organization_team_members", "read_organization", func(fixture) string { return "/v1/organizations/acme/teams/core/members" }, nil},
		{"add_organization_team_member", "write_teams", func(fixture) string { return "/v1/organizations/acme/teams/core/members" },
			func(f fixture) string { return `{"user_id":"` + f.carol + `"}` }},
		{"get_organization_team_member", "read_organization", func(f fixture) string { return "/v1/organizations/acme/teams/core/members/" + f.bob }, nil},
		{"remove_organization_team_member", "write_teams", func(f fixture) string { return "/v1/organizations/acme/teams/core/members/" + f.bob }, nil},
	}
	for _, tt := range tests {
		op, ok := ops[tt.op]
		if !ok {
			t.Fatalf("%s is not in operations.tsv", tt.op)
		}
		if diff := cmp.Diff([]string{tt.perm}, op.perms); diff != "" {
			t.Errorf("%s: operations.tsv permissions (-want +got):\n%s", tt.op, diff)
		}
		body := func(f fixture) string {
			if tt.body == nil {
				return ""
			}
			return tt.body(f)
		}
		t.Run(tt.op, func(t *testing.T) {
			t.Parallel()
			t.Run("lacking", func(t *testing.T) {
				t.Parallel()
				f := setup(t)
				rest := slices.DeleteFunc(permissionNames(), func(p string) bool { return p == tt.perm })
				tok := mustToken(t, f.srv, fake.TokenSpec{Name: "all but", Permissions: permissions(rest...)})
				before := teamObserve(t, f.srv)
				w := send(t, f.srv, op.method, tt.path(f), tok.Authorization(), body(f))
				if e := wantError(t, w, http.StatusNotFound, "not_found"); e.Message != "Not Found" {
					t.Errorf("message %q, want the plain Not Found of a missing resource", e.Message)
				}
				teamUnchanged(t, f.srv, before)
			})
			t.Run("another organization", func(t *testing.T) {
				t.Parallel()
				f := setup(t)
				tok := otherOrg(t, f.srv, "beta")
				before := teamObserve(t, f.srv)
				wantError(t, send(t, f.srv, op.method, tt.path(f), tok.Authorization(), body(f)), http.StatusNotFound, "not_found")
				teamUnchanged(t, f.srv, before)
			})
			t.Run("only "+tt.perm, func(t *testing.T) {
				t.Parallel()
				f := setup(t)
				tok := mustToken(t, f.srv, fake.TokenSpec{Name: "one", Permissions: permissions(tt.perm)})
				before := teamObserve(t, f.srv)
				wantStatus(t, send(t, f.srv, op.method, tt.path(f), tok.Authorization(), body(f)), op.status)
				if changed := !cmp.Equal(before, teamObserve(t, f.srv)); changed != (op.method != http.MethodGet) {
					t.Errorf("state changed: %v, want %v", changed, op.method != http.MethodGet)
				}
			})
		})
	}
}

// TestRestoreRefusesBadTeams checks the teams of a snapshot as the API
// checks a team's name: a name that is blank or longer than the API takes,
// or a slug that is not a slug, refuses the whole snapshot, and the server
// restoring it keeps its state.
func TestRestoreRefusesBadTeams(t *testing.T) {
	t.Parallel()
	src := fake.NewServer(t)
	teamCreate(t, src, "Core DBAs")
	good, err := src.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, field string
		value       any
		want        string
	}{
		{"blank name", "name", "  ", `team "core-dbas" has no name`},
		{"name too long", "name", strings.Repeat("é", 64), "name is longer than 63 characters (it has 64)"},
		{"slug not a slug", "slug", "Core DBAs", `team slug "Core DBAs" is not a slug`},
		{"no slug", "slug", "", `team slug "" is not a slug`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var m map[string]any
			if err := json.Unmarshal(good, &m); err != nil {
				t.Fatal(err)
			}
			org := m["organizations"].([]any)[0].(map[string]any)
			org["teams"].([]any)[0].(map[string]any)[tt.field] = tt.value
			bad, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			srv := fake.NewServer(t)
			teamCreate(t, srv, "Mine")
			before := teamObserve(t, srv)
			if err := srv.Restore(bad); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Restore: %v, want an error saying %q", err, tt.want)
			}
			teamUnchanged(t, srv, before)
		})
	}
}
