package platform_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// teamJSON is a team as the API sends it, written from the reference's
// schema rather than from the SDK's types.
const teamJSON = `{
	"id": "team00000001", "type": "OrganizationTeam", "name": "Core DBAs", "display_name": "Core DBAs",
	"slug": "core-dbas", "description": null,
	"creator": {"id": "usr0000000001", "type": "User", "display_name": "Ada", "avatar_url": "https://avatars.example.com/ada"},
	"members": [` + userJSON + `],
	"databases": [{"id": "db0000000001", "name": "app-db",
		"url": "https://api.example.com/v1/organizations/acme/databases/app-db",
		"branches_url": "https://api.example.com/v1/organizations/acme/databases/app-db/branches"}],
	"analyst_databases": [],
	"managed": true,
	"created_at": "2026-01-14T10:19:23.000Z", "updated_at": "2026-01-14T10:20:00.500Z"
}`

func wantTeam(t *testing.T) *platform.Team {
	return &platform.Team{
		ID: "team00000001", Type: "OrganizationTeam", Name: "Core DBAs", DisplayName: "Core DBAs",
		Slug:    "core-dbas",
		Creator: platform.Actor{ID: "usr0000000001", Type: "User", DisplayName: "Ada", AvatarURL: "https://avatars.example.com/ada"},
		Members: []platform.User{*wantUser(t)},
		Databases: []platform.DatabaseRef{{
			ID: "db0000000001", Name: "app-db",
			URL:         "https://api.example.com/v1/organizations/acme/databases/app-db",
			BranchesURL: "https://api.example.com/v1/organizations/acme/databases/app-db/branches",
		}},
		AnalystDatabases: []platform.DatabaseRef{},
		Managed:          true,
		CreatedAt:        mustTimestamp(t, "2026-01-14T10:19:23Z"),
		UpdatedAt:        mustTimestamp(t, "2026-01-14T10:20:00.5Z"),
	}
}

// teamPasswordJSON is one password of a membership, compact, as the
// membership keeps it.
const teamPasswordJSON = `{"id":"pw0000000001","name":"ci","role":"reader","cidrs":null,"expired":false}`

const teamMemberJSON = `{
	"id": "tm0000000001", "type": "OrganizationTeamMembership", "user": ` + userJSON + `,
	"actor": {"id": "usr0000000002", "type": "User", "display_name": "Bob", "avatar_url": "https://avatars.example.com/bob"},
	"created_at": "2026-01-15T00:00:00.000Z", "updated_at": "2026-01-16T00:00:00.000Z",
	"passwords": [` + teamPasswordJSON + `]
}`

func wantTeamMember(t *testing.T) *platform.TeamMember {
	return &platform.TeamMember{
		ID: "tm0000000001", Type: "OrganizationTeamMembership", User: *wantUser(t),
		Actor:     platform.Actor{ID: "usr0000000002", Type: "User", DisplayName: "Bob", AvatarURL: "https://avatars.example.com/bob"},
		CreatedAt: mustTimestamp(t, "2026-01-15T00:00:00Z"),
		UpdatedAt: mustTimestamp(t, "2026-01-16T00:00:00Z"),
		Passwords: []json.RawMessage{json.RawMessage(teamPasswordJSON)},
	}
}

// teamsListJSON wraps items in the envelope of a list with totals.
func teamsListJSON(items ...string) string {
	return `{"type": "list", "current_page": 2, "per_page": 1, "next_page": 3,
		"next_page_url": "https://api.example.com/v1/organizations/acme/teams?page=3&per_page=1",
		"prev_page": 1, "prev_page_url": "https://api.example.com/v1/organizations/acme/teams?page=1&per_page=1",
		"total_count": 3, "total_pages": 3, "data": [` + strings.Join(items, ",") + `]}`
}

func teamsPage[T any](items ...*T) *platform.Page[T] {
	next, prev, total, pages := 3, 1, 3, 3
	return &platform.Page[T]{
		Type: "list", CurrentPage: 2, PerPage: 1,
		NextPage: &next, NextPageURL: platform.Ptr("https://api.example.com/v1/organizations/acme/teams?page=3&per_page=1"),
		PrevPage: &prev, PrevPageURL: platform.Ptr("https://api.example.com/v1/organizations/acme/teams?page=1&per_page=1"),
		TotalCount: &total, TotalPages: &pages,
		Items: items,
	}
}

// TestTeamsWire checks each method's request (method, escaped path, query,
// JSON body) and the decoding of its response.
func TestTeamsWire(t *testing.T) {
	t.Parallel()
	tests := []methodCase{
		{
			name: "List",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Teams.List(ctx, &platform.ListTeamsParams{Organization: "acme", Query: "core dbas", ListParams: platform.ListParams{Page: 2, PerPage: 1}})
			},
			method: "GET", path: "/v1/organizations/acme/teams",
			query:  url.Values{"q": {"core dbas"}, "page": {"2"}, "per_page": {"1"}},
			status: 200, response: teamsListJSON(teamJSON),
			want: teamsPage(wantTeam(t)),
		},
		{
			name: "List/no filter",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Teams.List(ctx, &platform.ListTeamsParams{Organization: "acme"})
			},
			method: "GET", path: "/v1/organizations/acme/teams", query: url.Values{},
			status: 200, response: listJSON(),
			want: onePage[platform.Team](),
		},
		{
			name: "Create",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Teams.Create(ctx, &platform.CreateTeamParams{Organization: "acme", Name: "Core DBAs", Description: platform.Ptr("keeps the lights on")})
			},
			method: "POST", path: "/v1/organizations/acme/teams", query: url.Values{},
			body:   `{"name": "Core DBAs", "description": "keeps the lights on"}`,
			status: 200, response: teamJSON,
			want: wantTeam(t),
		},
		{
			name: "Create/name only",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Teams.Create(ctx, &platform.CreateTeamParams{Organization: "acme", Name: "Core DBAs"})
			},
			method: "POST", path: "/v1/organizations/acme/teams", query: url.Values{},
			body:   `{"name": "Core DBAs"}`,
			status: 200, response: teamJSON,
			want: wantTeam(t),
		},
		{
			name: "Get",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Teams.Get(ctx, &platform.GetTeamParams{Organization: "acme", Team: "core-dbas"})
			},
			method: "GET", path: "/v1/organizations/acme/teams/core-dbas", query: url.Values{},
			status: 200, response: teamJSON,
			want: wantTeam(t),
		},
		{
			name: "Update",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Teams.Update(ctx, &platform.UpdateTeamParams{
					Organization: "acme", Team: "core-dbas", Name: platform.Ptr("Core"), Description: platform.Ptr(""),
				})
			},
			method: "PATCH", path: "/v1/organizations/acme/teams/core-dbas", query: url.Values{},
			body:   `{"name": "Core", "description": ""}`,
			status: 200, response: teamJSON,
			want: wantTeam(t),
		},
		{
			name: "Update/omitted fields",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Teams.Update(ctx, &platform.UpdateTeamParams{Organization: "acme", Team: "core-dbas", Description: platform.Ptr("on call")})
			},
			method: "PATCH", path: "/v1/organizations/acme/teams/core-dbas", query: url.Values{},
			body:   `{"description": "on call"}`,
			status: 200, response: teamJSON,
			want: wantTeam(t),
		},
		{
			name: "Delete",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return nil, c.Teams.Delete(ctx, &platform.DeleteTeamParams{Organization: "acme", Team: "core-dbas"})
			},
			method: "DELETE", path: "/v1/organizations/acme/teams/core-dbas", query: url.Values{},
			status: 204,
		},
		{
			name: "ListMembers",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Teams.ListMembers(ctx, &platform.ListTeamMembersParams{Organization: "acme", Team: "core-dbas", ListParams: platform.ListParams{Page: 2, PerPage: 1}})
			},
			method: "GET", path: "/v1/organizations/acme/teams/core-dbas/members",
			query:  url.Values{"page": {"2"}, "per_page": {"1"}},
			status: 200, response: teamsListJSON(teamMemberJSON),
			want: teamsPage(wantTeamMember(t)),
		},
		{
			name: "AddMember",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Teams.AddMember(ctx, &platform.AddTeamMemberParams{Organization: "acme", Team: "core-dbas", UserID: "usr0000000001"})
			},
			method: "POST", path: "/v1/organizations/acme/teams/core-dbas/members", query: url.Values{},
			body:   `{"user_id": "usr0000000001"}`,
			status: 200, response: teamMemberJSON,
			want: wantTeamMember(t),
		},
		{
			name: "GetMember",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Teams.GetMember(ctx, &platform.GetTeamMemberParams{Organization: "acme", Team: "core-dbas", ID: "tm0000000001"})
			},
			method: "GET", path: "/v1/organizations/acme/teams/core-dbas/members/tm0000000001", query: url.Values{},
			status: 200, response: teamMemberJSON,
			want: wantTeamMember(t),
		},
		{
			name: "GetMember/escaped path values",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return c.Teams.GetMember(ctx, &platform.GetTeamMemberParams{Organization: "acme", Team: "core dbas", ID: "a/b?c"})
			},
			method: "GET", path: "/v1/organizations/acme/teams/core%20dbas/members/a%2Fb%3Fc", query: url.Values{},
			status: 200, response: teamMemberJSON,
			want: wantTeamMember(t),
		},
		{
			name: "RemoveMember",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return nil, c.Teams.RemoveMember(ctx, &platform.RemoveTeamMemberParams{Organization: "acme", Team: "core-dbas", ID: "usr0000000001", DeletePasswords: true})
			},
			method: "DELETE", path: "/v1/organizations/acme/teams/core-dbas/members/usr0000000001",
			query:  url.Values{"delete_passwords": {"true"}},
			status: 204,
		},
		{
			name: "RemoveMember/keep passwords",
			call: func(ctx context.Context, c *platform.Client) (any, error) {
				return nil, c.Teams.RemoveMember(ctx, &platform.RemoveTeamMemberParams{Organization: "acme", Team: "core-dbas", ID: "usr0000000001"})
			},
			method: "DELETE", path: "/v1/organizations/acme/teams/core-dbas/members/usr0000000001", query: url.Values{},
			status: 204,
		},
	}
	runMethodCases(t, tests)
}

// TestTeamsRoundTrip decodes the reference-shaped JSON strictly (every key
// known to the SDK's types) and encodes it back: no key lost or added, no
// value changed. A wrong JSON tag on Team or TeamMember fails here.
func TestTeamsRoundTrip(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		json string
		into any
	}{
		{"team", teamJSON, new(platform.Team)},
		{"team list", teamsListJSON(teamJSON), new(platform.Page[platform.Team])},
		{"team membership", teamMemberJSON, new(platform.TeamMember)},
		{"team membership list", teamsListJSON(teamMemberJSON), new(platform.Page[platform.TeamMember])},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dec := json.NewDecoder(strings.NewReader(tt.json))
			dec.DisallowUnknownFields()
			if err := dec.Decode(tt.into); err != nil {
				t.Fatalf("decoding into %T: %v", tt.into, err)
			}
			again, err := json.Marshal(tt.into)
			if err != nil {
				t.Fatal(err)
			}
			checkSameJSON(t, []byte(tt.json), again)
		})
	}
}

// TestTeamsErrorResponse checks that a refusal reaches the caller
// classified, with its message.
func TestTeamsErrorResponse(t *testing.T) {
	t.Parallel()
	w := newWire(t, http.StatusUnprocessableEntity, `{"code":"unprocessable","message":"team core is managed through SSO or directory services"}`)
	err := w.client.Teams.Delete(t.Context(), &platform.DeleteTeamParams{Organization: "acme", Team: "core"})
	var apiErr *platform.Error
	if !errors.As(err, &apiErr) || !errors.Is(err, platform.ErrUnprocessable) {
		t.Fatalf("Delete error %v, want an unprocessable *platform.Error", err)
	}
	if apiErr.Message != "team core is managed through SSO or directory services" {
		t.Errorf("message %q", apiErr.Message)
	}
}

// TestTeamsArgErrors checks that every method refuses a missing path value
// with an *ArgError naming it, before any request; nil params count as
// empty.
func TestTeamsArgErrors(t *testing.T) {
	t.Parallel()
	type vals struct{ org, team, id string }
	methods := map[string]struct {
		args []string // the path values the method takes
		call func(ctx context.Context, c *platform.TeamsService, v vals) error
		nil  func(ctx context.Context, c *platform.TeamsService) error
	}{
		"List": {
			args: []string{"organization"},
			call: func(ctx context.Context, c *platform.TeamsService, v vals) error {
				_, err := c.List(ctx, &platform.ListTeamsParams{Organization: v.org})
				return err
			},
			nil: func(ctx context.Context, c *platform.TeamsService) error { _, err := c.List(ctx, nil); return err },
		},
		"Create": {
			args: []string{"organization"},
			call: func(ctx context.Context, c *platform.TeamsService, v vals) error {
				_, err := c.Create(ctx, &platform.CreateTeamParams{Organization: v.org, Name: "Core"})
				return err
			},
			nil: func(ctx context.Context, c *platform.TeamsService) error { _, err := c.Create(ctx, nil); return err },
		},
		"Get": {
			args: []string{"organization", "team"},
			call: func(ctx context.Context, c *platform.TeamsService, v vals) error {
				_, err := c.Get(ctx, &platform.GetTeamParams{Organization: v.org, Team: v.team})
				return err
			},
			nil: func(ctx context.Context, c *platform.TeamsService) error { _, err := c.Get(ctx, nil); return err },
		},
		"Update": {
			args: []string{"organization", "team"},
			call: func(ctx context.Context, c *platform.TeamsService, v vals) error {
				_, err := c.Update(ctx, &platform.UpdateTeamParams{Organization: v.org, Team: v.team, Name: platform.Ptr("x")})
				return err
			},
			nil: func(ctx context.Context, c *platform.TeamsService) error { _, err := c.Update(ctx, nil); return err },
		},
		"Delete": {
			args: []string{"organization", "team"},
			call: func(ctx context.Context, c *platform.TeamsService, v vals) error {
				return c.Delete(ctx, &platform.DeleteTeamParams{Organization: v.org, Team: v.team})
			},
			nil: func(ctx context.Context, c *platform.TeamsService) error { return c.Delete(ctx, nil) },
		},
		"ListMembers": {
			args: []string{"organization", "team"},
			call: func(ctx context.Context, c *platform.TeamsService, v vals) error {
				_, err := c.ListMembers(ctx, &platform.ListTeamMembersParams{Organization: v.org, Team: v.team})
				return err
			},
			nil: func(ctx context.Context, c *platform.TeamsService) error {
				_, err := c.ListMembers(ctx, nil)
				return err
			},
		},
		"AddMember": {
			args: []string{"organization", "team"},
			call: func(ctx context.Context, c *platform.TeamsService, v vals) error {
				_, err := c.AddMember(ctx, &platform.AddTeamMemberParams{Organization: v.org, Team: v.team, UserID: "u1"})
				return err
			},
			nil: func(ctx context.Context, c *platform.TeamsService) error { _, err := c.AddMember(ctx, nil); return err },
		},
		"GetMember": {
			args: []string{"organization", "team", "id"},
			call: func(ctx context.Context, c *platform.TeamsService, v vals) error {
				_, err := c.GetMember(ctx, &platform.GetTeamMemberParams{Organization: v.org, Team: v.team, ID: v.id})
				return err
			},
			nil: func(ctx context.Context, c *platform.TeamsService) error { _, err := c.GetMember(ctx, nil); return err },
		},
		"RemoveMember": {
			args: []string{"organization", "team", "id"},
			call: func(ctx context.Context, c *platform.TeamsService, v vals) error {
				return c.RemoveMember(ctx, &platform.RemoveTeamMemberParams{Organization: v.org, Team: v.team, ID: v.id})
			},
			nil: func(ctx context.Context, c *platform.TeamsService) error { return c.RemoveMember(ctx, nil) },
		},
	}
	check := func(t *testing.T, w *wire, err error, arg string) {
		t.Helper()
		var argErr *platform.ArgError
		if !errors.As(err, &argErr) || argErr.Arg != arg {
			t.Fatalf("error %v, want an *ArgError for %s", err, arg)
		}
		if n := len(w.requests()); n != 0 {
			t.Errorf("%d requests sent, want none", n)
		}
	}
	for name, m := range methods {
		for _, arg := range m.args {
			t.Run(name+"/"+arg, func(t *testing.T) {
				t.Parallel()
				w := newWire(t, 200, "{}")
				v := vals{org: "acme", team: "core", id: "tm1"}
				switch arg {
				case "organization":
					v.org = ""
				case "team":
					v.team = " "
				case "id":
					v.id = ".."
				}
				check(t, w, m.call(t.Context(), w.client.Teams, v), arg)
			})
		}
		t.Run(name+"/nil params", func(t *testing.T) {
			t.Parallel()
			w := newWire(t, 200, "{}")
			check(t, w, m.nil(t.Context(), w.client.Teams), "params")
		})
	}
}

// TestTeamsListParamErrors checks the page numbers the SDK refuses before
// sending, for both lists.
func TestTeamsListParamErrors(t *testing.T) {
	t.Parallel()
	w := newWire(t, 200, listJSON())
	bad := platform.ListParams{PerPage: platform.MaxPerPage + 1}
	_, errTeams := w.client.Teams.List(t.Context(), &platform.ListTeamsParams{Organization: "acme", ListParams: bad})
	_, errMembers := w.client.Teams.ListMembers(t.Context(), &platform.ListTeamMembersParams{Organization: "acme", Team: "core", ListParams: bad})
	for _, err := range []error{errTeams, errMembers} {
		var argErr *platform.ArgError
		if !errors.As(err, &argErr) || argErr.Arg != "per_page" {
			t.Errorf("error %v, want an *ArgError for per_page", err)
		}
	}
	if n := len(w.requests()); n != 0 {
		t.Errorf("%d requests sent, want none", n)
	}
}

// TestTeamsAll ranges over every team and every membership across pages,
// against the fake.
func TestTeamsAll(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	ctx, c := t.Context(), srv.Client()
	var wantSlugs []string
	for _, name := range []string{"Alpha", "Beta", "Gamma", "Delta", "Epsilon"} {
		team, err := c.Teams.Create(ctx, &platform.CreateTeamParams{Organization: srv.Org(), Name: name})
		if err != nil {
			t.Fatal(err)
		}
		wantSlugs = append(wantSlugs, team.Slug)
		srv.Advance(time.Second) // lists are in creation order
	}
	var slugs []string
	for team, err := range c.Teams.All(ctx, &platform.ListTeamsParams{Organization: srv.Org(), ListParams: platform.ListParams{PerPage: 2}}) {
		if err != nil {
			t.Fatal(err)
		}
		slugs = append(slugs, team.Slug)
	}
	if diff := cmp.Diff(wantSlugs, slugs); diff != "" {
		t.Errorf("All (-want +got):\n%s", diff)
	}

	var wantUsers []string
	for _, name := range []string{"Bob Builder", "Carol Chen", "Dan Doe"} {
		id := srv.CreateUser(name, name[:3]+"@example.com")
		if err := srv.AddMember(srv.Org(), id, platform.RoleMember); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Teams.AddMember(ctx, &platform.AddTeamMemberParams{Organization: srv.Org(), Team: "alpha", UserID: id}); err != nil {
			t.Fatal(err)
		}
		wantUsers = append(wantUsers, id)
		srv.Advance(time.Second)
	}
	var users []string
	for m, err := range c.Teams.AllMembers(ctx, &platform.ListTeamMembersParams{Organization: srv.Org(), Team: "alpha", ListParams: platform.ListParams{PerPage: 2}}) {
		if err != nil {
			t.Fatal(err)
		}
		users = append(users, m.User.ID)
	}
	if diff := cmp.Diff(wantUsers, users); diff != "" {
		t.Errorf("AllMembers (-want +got):\n%s", diff)
	}
}

// ExampleTeamsService_AddMember creates a team and puts a member of the
// organization on it, found by email.
func ExampleTeamsService_AddMember() {
	srv, err := fake.New()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	// Grace has joined the organization; on the fake, seeding does it.
	if err := srv.AddMember("acme", srv.CreateUser("Grace Hopper", "grace@example.com"), platform.RoleMember); err != nil {
		log.Fatal(err)
	}
	client, ctx := srv.Client(), context.Background()

	team, err := client.Teams.Create(ctx, &platform.CreateTeamParams{
		Organization: "acme", Name: "Data Platform",
		Description: platform.Ptr("Owns the warehouse databases"),
	})
	if err != nil {
		log.Fatal(err)
	}
	// The team operations address the team by the slug the API derived
	// from its name.
	fmt.Printf("team %q: %s, %d members\n", team.Name, team.Slug, len(team.Members))

	// Teams take a user's ID, which the organization's member list gives.
	members, err := client.Organizations.ListMembers(ctx, &platform.ListMembersParams{Organization: "acme", Query: "grace@example.com"})
	if err != nil {
		log.Fatal(err)
	}
	if len(members.Items) != 1 {
		log.Fatalf("%d members match, want 1", len(members.Items))
	}
	m, err := client.Teams.AddMember(ctx, &platform.AddTeamMemberParams{
		Organization: "acme", Team: team.Slug, UserID: members.Items[0].User.ID,
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("added", m.User.Name)

	team, err = client.Teams.Get(ctx, &platform.GetTeamParams{Organization: "acme", Team: team.Slug})
	if err != nil {
		log.Fatal(err)
	}
	for _, u := range team.Members {
		fmt.Printf("%s: %s <%s>\n", team.Slug, u.Name, u.Email)
	}
	// Output:
	// team "Data Platform": data-platform, 0 members
	// added Grace Hopper
	// data-platform: Grace Hopper <grace@example.com>
}
