package platform_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/dbplatform/platform-go"
)

// BenchmarkDatabasesGet measures the SDK's request path for one Get: params
// check, path building, the request, the retry and credential transports,
// and decoding the JSON into a Database, against an httptest server over
// loopback that answers with a canned database. Its baseline, in the same
// run, is the same request made with net/http alone and decoded with
// encoding/json. See BENCHMARKS.md.
func BenchmarkDatabasesGet(b *testing.B) {
	at := platform.NewTimestamp(time.Date(2026, 1, 14, 10, 19, 23, 0, time.UTC))
	canned, err := json.Marshal(&platform.Database{
		ID: "k2j4h5g6f7d8", Type: "Database", Name: "app-db",
		URL:         "https://api.example.com/v1/organizations/acme/databases/app-db",
		BranchesURL: "https://api.example.com/v1/organizations/acme/databases/app-db/branches",
		HTMLURL:     "https://app.example.com/acme/app-db",
		State:       platform.DatabaseReady, Ready: true, Kind: platform.KindMySQL, Plan: "scaler_pro",
		Region: platform.Region{
			ID: "r1s2t3u4v5w6", Type: "Region", Provider: "cloud", Enabled: true,
			PublicIPAddresses: []string{"192.0.2.10", "192.0.2.11"},
			DisplayName:       "Region East", Location: "East", Slug: "east",
		},
		BranchesCount: 1, ProductionBranchesCount: 1, IssuesCount: platform.Ptr(0),
		DefaultBranch: "main", DefaultBranchShardCount: 1, ForeignKeysEnabled: true, InsightsEnabled: true,
		CreatedAt: at, UpdatedAt: at,
	})
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("Content-Length", strconv.Itoa(len(canned)))
		h.Set("X-Request-Id", "req000000001")
		_, _ = w.Write(canned)
	}))
	b.Cleanup(srv.Close)
	client, err := platform.NewClient(
		platform.WithBaseURL(srv.URL),
		platform.WithServiceToken("benchtokenid", "sk_benchsecret"),
		platform.WithHTTPClient(srv.Client()),
	)
	if err != nil {
		b.Fatal(err)
	}
	ctx := b.Context()
	params := &platform.GetDatabaseParams{Organization: "acme", Database: "app-db"}

	b.Run("sdk", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			db, err := client.Databases.Get(ctx, params)
			if err != nil {
				b.Fatal(err)
			}
			if !db.Ready {
				b.Fatal("decoded database is not ready")
			}
		}
	})
	b.Run("baseline_net_http", func(b *testing.B) {
		hc := srv.Client()
		url := srv.URL + "/v1/organizations/acme/databases/app-db"
		b.ReportAllocs()
		for b.Loop() {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
			if err != nil {
				b.Fatal(err)
			}
			req.Header.Set("Authorization", "benchtokenid:sk_benchsecret")
			resp, err := hc.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			var db platform.Database
			err = json.NewDecoder(resp.Body).Decode(&db)
			resp.Body.Close()
			if err != nil || !db.Ready {
				b.Fatalf("decoding: %v (ready %t)", err, db.Ready)
			}
		}
	})
}
