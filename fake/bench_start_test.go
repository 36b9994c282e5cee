package fake_test

import (
	"testing"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake"
)

// BenchmarkStartFake measures the smallest test there is against the fake:
// start a server (seeding its organization, admin and token, and a loopback
// listener), make one call through its client, and close it. ns/op is the
// cost of one fake in a consumer's test; 1e9 / ns/op is fakes per second.
func BenchmarkStartFake(b *testing.B) {
	ctx := b.Context()
	b.ReportAllocs()
	for b.Loop() {
		srv, err := fake.New()
		if err != nil {
			b.Fatal(err)
		}
		if _, err := srv.Client().Organizations.Get(ctx, &platform.GetOrganizationParams{Organization: srv.Org()}); err != nil {
			b.Fatal(err)
		}
		srv.Close()
	}
}
