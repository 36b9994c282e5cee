// Command service-token shows how service tokens and their permissions work,
// against the in-memory fake: it creates a token through the API (the only
// response that shows its secret), grants it database permissions on one
// database, and shows that the token reads that database and gets not
// found for another, lists its grants, and is refused once deleted.
//
//	go run ./examples/service-token
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "service-token:", err)
		os.Exit(1)
	}
}

// run does the walkthrough and writes what it did to w.
func run(w io.Writer) error {
	ctx := context.Background()
	srv, err := fake.New()
	if err != nil {
		return err
	}
	defer srv.Close()
	org := srv.Org()
	admin := srv.Client()

	// Two databases: the token will be allowed to read only the first.
	for _, name := range []string{"app-db", "billing-db"} {
		if _, err := admin.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: org, Name: name, ClusterSize: "PS_10"}); err != nil {
			return fmt.Errorf("creating %s: %w", name, err)
		}
		if _, err := admin.Databases.Wait(ctx, &platform.GetDatabaseParams{Organization: org, Database: name}); err != nil {
			return fmt.Errorf("waiting for %s: %w", name, err)
		}
	}
	fmt.Fprintln(w, "databases app-db and billing-db are ready")

	// Create a token. Its secret is in this response only: keep it now.
	tok, err := admin.ServiceTokens.Create(ctx, &platform.CreateServiceTokenParams{
		Organization: org,
		Name:         platform.Ptr("reporting"),
		TTL:          platform.Ptr(3600),
	})
	if err != nil {
		return fmt.Errorf("creating the token: %w", err)
	}
	if tok.Token == nil {
		return errors.New("creating the token: no secret in the response")
	}
	secret := *tok.Token
	if tok.ExpiresAt == nil {
		return errors.New("creating the token: no expiry despite a ttl")
	}
	fmt.Fprintf(w, "created service token %s with %d permissions; it expires in %s\n",
		*tok.Name, len(tok.ServiceTokenAccesses), tok.ExpiresAt.Sub(tok.CreatedAt.Time).Round(time.Second))
	again, err := admin.ServiceTokens.Get(ctx, &platform.GetServiceTokenParams{Organization: org, ID: tok.ID})
	if err != nil {
		return fmt.Errorf("getting the token: %w", err)
	}
	fmt.Fprintf(w, "reading it back shows the secret: %t\n", again.Token != nil)

	// Grant it read permissions on app-db only.
	added, err := admin.ServiceTokens.AddAccesses(ctx, &platform.AddServiceTokenAccessesParams{
		Organization: org,
		ID:           tok.ID,
		Database:     platform.Ptr("app-db"),
		Access:       []platform.Permission{platform.PermissionReadDatabase, platform.PermissionReadBranch},
	})
	if err != nil {
		return fmt.Errorf("granting: %w", err)
	}
	var names []string
	for _, a := range added.Accesses {
		names = append(names, string(a.Access))
	}
	fmt.Fprintf(w, "granted %s on app-db\n", strings.Join(names, ", "))

	// A client that authenticates as the new token.
	reporting := srv.ClientFor(fake.Token{ID: tok.ID, Secret: secret})
	for _, name := range []string{"app-db", "billing-db"} {
		db, err := reporting.Databases.Get(ctx, &platform.GetDatabaseParams{Organization: org, Database: name})
		var apiErr *platform.Error
		switch {
		case err == nil:
			fmt.Fprintf(w, "reporting reads %s: state %s\n", db.Name, db.State)
		case errors.Is(err, platform.ErrNotFound) && errors.As(err, &apiErr):
			// Lacking a permission looks exactly like a missing database.
			fmt.Fprintf(w, "reporting reads %s: not found (status %d, code %s)\n", name, apiErr.StatusCode, apiErr.Code)
		default:
			return fmt.Errorf("reading %s as reporting: %w", name, err)
		}
	}

	// What the token holds, grouped by resource.
	for g, err := range admin.ServiceTokens.AllGrants(ctx, &platform.ListServiceTokenGrantsParams{Organization: org, ID: tok.ID}) {
		if err != nil {
			return fmt.Errorf("listing grants: %w", err)
		}
		var perms []string
		for _, a := range g.Accesses {
			perms = append(perms, string(a.Access))
		}
		fmt.Fprintf(w, "grant on %s %s: %s\n", strings.ToLower(string(g.ResourceType)), g.ResourceName, strings.Join(perms, ", "))
	}

	// Deleting the token revokes it at once.
	if err := admin.ServiceTokens.Delete(ctx, &platform.DeleteServiceTokenParams{Organization: org, ID: tok.ID}); err != nil {
		return fmt.Errorf("deleting the token: %w", err)
	}
	_, err = reporting.Databases.Get(ctx, &platform.GetDatabaseParams{Organization: org, Database: "app-db"})
	if !errors.Is(err, platform.ErrUnauthorized) {
		return fmt.Errorf("reading app-db with the deleted token: %v, want unauthorized", err)
	}
	fmt.Fprintln(w, "after deleting the token, reporting is unauthorized")
	return nil
}
