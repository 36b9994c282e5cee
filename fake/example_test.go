package fake_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// Example is what a test of code that provisions a database does with the
// fake: create, move the clock, survive faults, and check what a token
// without permission gets. In a test, start the server with
// fake.NewServer(t), which closes it when the test ends and fails the test
// on a bad option; fake.New, here, is for code outside tests.
func Example() {
	srv, err := fake.New()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	client := srv.Client() // the admin token; its waits advance the clock
	ctx := context.Background()
	orders := &platform.GetDatabaseParams{Organization: srv.Org(), Database: "orders"}

	if _, err := client.Databases.Create(ctx, &platform.CreateDatabaseParams{
		Organization: srv.Org(), Name: "orders", ClusterSize: "PS_10",
	}); err != nil {
		log.Fatal(err)
	}
	srv.Advance(5 * time.Second)
	db, err := client.Databases.Get(ctx, orders)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("after 5s:", db.State)

	// Two 503s, which the client retries through.
	rule, err := srv.InjectFault("get_database", fake.Fault{Status: 503, Times: 2})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := client.Databases.Get(ctx, orders); err != nil {
		log.Fatal(err)
	}
	fmt.Println("faults answered:", rule.Fired())

	// A token that may only read orders cannot delete it: 404, as if the
	// database did not exist.
	tok, err := srv.CreateServiceToken(srv.Org(), fake.TokenSpec{
		Name:                "reader",
		DatabasePermissions: map[string][]platform.Permission{"orders": {platform.PermissionReadDatabase}},
	})
	if err != nil {
		log.Fatal(err)
	}
	err = srv.ClientFor(tok).Databases.Delete(ctx, orders)
	fmt.Println("delete with a read-only token is not found:", errors.Is(err, platform.ErrNotFound))
	// Output:
	// after 5s: ready
	// faults answered: 2
	// delete with a read-only token is not found: true
}

// ExampleServer_Advance moves the virtual clock: nothing changes until it
// moves, then every transition that falls due runs, in time order.
func ExampleServer_Advance() {
	srv, err := fake.New()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	ctx := context.Background()
	client := srv.Client()
	p := &platform.GetDatabaseParams{Organization: srv.Org(), Database: "app"}
	if _, err := client.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: srv.Org(), Name: "app", ClusterSize: "PS_10"}); err != nil {
		log.Fatal(err)
	}
	for _, step := range []time.Duration{0, 4 * time.Second, time.Second} {
		srv.Advance(step)
		db, err := client.Databases.Get(ctx, p)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(srv.Now().Sub(fake.DefaultStart), db.State)
	}
	fmt.Println(srv.EventNames())
	// Output:
	// 0s pending
	// 4s pending
	// 5s ready
	// [branch.ready]
}

// ExampleServer_InjectFault makes an operation fail, to test what the code
// under test does then. The rule counts how often it answered.
func ExampleServer_InjectFault() {
	srv, err := fake.New()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	client, err := platform.NewClient(append(srv.ClientOptions(srv.AdminToken()), platform.WithoutRetries())...)
	if err != nil {
		log.Fatal(err)
	}
	rule, err := srv.InjectFault("get_organization", fake.Fault{Status: 429, RetryAfter: 30 * time.Second, Times: 1})
	if err != nil {
		log.Fatal(err)
	}
	p := &platform.GetOrganizationParams{Organization: srv.Org()}
	_, err = client.Organizations.Get(context.Background(), p)
	var apiErr *platform.Error
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, apiErr.Code, apiErr.RetryAfter)
	}
	org, err := client.Organizations.Get(context.Background(), p)
	fmt.Println(org.Name, err, rule.Fired())
	// Output:
	// 429 rate_limited 30s
	// acme <nil> 1
}

// ExampleServer_CreateServiceToken makes a token with exactly the
// permissions a test needs, per organization or per database.
func ExampleServer_CreateServiceToken() {
	srv, err := fake.New()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	ctx := context.Background()
	for _, name := range []string{"billing", "orders"} {
		if _, err := srv.Client().Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: srv.Org(), Name: name, ClusterSize: "PS_10"}); err != nil {
			log.Fatal(err)
		}
	}
	tok, err := srv.CreateServiceToken(srv.Org(), fake.TokenSpec{
		Name:                "orders-reader",
		DatabasePermissions: map[string][]platform.Permission{"orders": {platform.PermissionReadDatabase}},
	})
	if err != nil {
		log.Fatal(err)
	}
	client := srv.ClientFor(tok)
	for _, name := range []string{"billing", "orders"} {
		_, err := client.Databases.Get(ctx, &platform.GetDatabaseParams{Organization: srv.Org(), Database: name})
		fmt.Printf("%s: found %v\n", name, err == nil)
	}
	// Output:
	// billing: found false
	// orders: found true
}
