package fake_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// TestRestoreRewoundRNGIssuesNoHeldSecret checks that a restored world
// whose generator state (rng) was set back to one that issued the secrets
// it holds issues none of them again: an OAuth refresh (which draws its
// two secrets first, and no ID), service tokens and passwords made after
// the restore all get secrets of their own, and the secrets held keep
// naming what they named.
func TestRestoreRewoundRNGIssuesNoHeldSecret(t *testing.T) {
	t.Parallel()
	srv := fake.NewServer(t)
	mustDB(t, srv, "app")
	srv.Advance(5 * time.Second)
	app := oauthApp(t, srv, "https://app.example.com/cb", platform.ScopeUserReadUser)
	first := oauthIssue(t, srv, app, fake.Consent{})
	ctx, c, org := context.Background(), srv.Client(), srv.Org()
	rewound, err := srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	// What the generator issues from the rewound state on.
	status, held := oauthToken(t, srv, "query", refreshParams(app, first.RefreshToken))
	if status != http.StatusOK {
		t.Fatalf("refresh: %d %+v", status, held)
	}
	tok, err := srv.CreateServiceToken(org, fake.TokenSpec{Name: "held", Permissions: fake.AllPermissions()})
	if err != nil {
		t.Fatal(err)
	}
	pw, err := c.Passwords.Create(ctx, &platform.CreatePasswordParams{Organization: org, Database: "app", Branch: "main", Name: platform.Ptr("held")})
	if err != nil {
		t.Fatal(err)
	}
	data, err := srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	var rng any
	snapshotEdit(t, rewound, func(m map[string]any) { rng = m["rng"] })
	data = snapshotEdit(t, data, func(m map[string]any) { m["rng"] = rng })

	twin := fake.NewServer(t)
	if err := twin.Restore(data); err != nil {
		t.Fatal(err)
	}
	// The OAuth token refreshed again: new secrets, not the held ones.
	status, again := oauthToken(t, twin, "query", refreshParams(app, held.RefreshToken))
	if status != http.StatusOK {
		t.Fatalf("refresh after the restore: %d %+v", status, again)
	}
	if again.AccessToken == held.AccessToken || again.RefreshToken == held.RefreshToken {
		t.Errorf("the restored world issued a held secret again: access %t, refresh %t",
			again.AccessToken == held.AccessToken, again.RefreshToken == held.RefreshToken)
	}
	status, stale := oauthToken(t, twin, "form", refreshParams(app, held.RefreshToken))
	wantOAuthError(t, status, stale, http.StatusBadRequest, "invalid_grant")
	// A service token and a password made now: secrets of their own.
	tok2, err := twin.CreateServiceToken(org, fake.TokenSpec{Name: "new", Permissions: []platform.Permission{platform.PermissionReadDatabases}})
	if err != nil {
		t.Fatal(err)
	}
	if tok2.Secret == tok.Secret {
		t.Error("a new service token has the secret of one held")
	}
	pw2, err := twin.Client().Passwords.Create(ctx, &platform.CreatePasswordParams{Organization: org, Database: "app", Branch: "main", Name: platform.Ptr("new")})
	if err != nil {
		t.Fatal(err)
	}
	if pw2.PlainText != nil && pw.PlainText != nil && *pw2.PlainText == *pw.PlainText || pw2.Username == pw.Username {
		t.Error("a new password has the secret or username of one held")
	}
	if _, err := twin.ClientFor(tok).Databases.List(ctx, &platform.ListDatabasesParams{Organization: org}); err != nil {
		t.Errorf("the held service token: %v", err)
	}
}
