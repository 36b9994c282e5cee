package fake_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// BenchmarkListBranches10k lists the first and the last page of a
// database with 10,000 branches, and, as the baseline, the one page of a
// database with 25. Pages come out of an ordered index, so the three cost
// the same: O(page size), not O(branches). The requests go straight to the
// server's handler, so that the figures are the fake's own work (routing,
// authentication, paging, rendering, JSON), not the network's.
func BenchmarkListBranches10k(b *testing.B) {
	const (
		total   = 10000
		perPage = 25
	)
	srv := fake.NewServer(b)
	c := srv.Client()
	ctx := context.Background()
	if _, err := c.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: srv.Org(), Name: "app-db", ClusterSize: "PS_10"}); err != nil {
		b.Fatal(err)
	}
	srv.Advance(5 * time.Second)
	if _, err := c.Databases.Create(ctx, &platform.CreateDatabaseParams{Organization: srv.Org(), Name: "small-db", ClusterSize: "PS_10"}); err != nil {
		b.Fatal(err)
	}
	srv.Advance(5 * time.Second)
	for db, n := range map[string]int{"app-db": total, "small-db": perPage} {
		for i := 1; i < n; i++ { // main is the first
			if _, err := c.Branches.Create(ctx, &platform.CreateBranchParams{Organization: srv.Org(), Database: db, Name: fmt.Sprintf("branch-%05d", i)}); err != nil {
				b.Fatal(err)
			}
		}
	}
	auth := srv.AdminToken().Authorization()
	for _, bc := range []struct {
		name  string
		db    string
		page  int
		total int
	}{
		{"baseline_25_branches", "small-db", 1, perPage},
		{"first_page", "app-db", 1, total},
		{"last_page", "app-db", total / perPage, total},
	} {
		b.Run(bc.name, func(b *testing.B) {
			target := fmt.Sprintf("/v1/organizations/%s/databases/%s/branches?page=%d&per_page=%d", srv.Org(), bc.db, bc.page, perPage)
			// Check the page once, outside the timed loop.
			rec := benchRecord(srv, auth, target)
			var page platform.Page[platform.Branch]
			if err := json.Unmarshal(rec.Body.Bytes(), &page); err != nil || rec.Code != http.StatusOK {
				b.Fatalf("status %d, %v", rec.Code, err)
			}
			if len(page.Items) != perPage || *page.TotalCount != bc.total || (bc.page*perPage < bc.total) != page.HasNext() {
				b.Fatalf("page %d: %d items of %d, next %v", bc.page, len(page.Items), *page.TotalCount, page.NextPage)
			}
			b.ReportAllocs()
			for b.Loop() {
				benchRecord(srv, auth, target)
			}
		})
	}
}
