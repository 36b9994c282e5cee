package fake

import (
	"strconv"

	"github.com/dbplatform/platform-go"
)

// regionRec is a region databases can run in.
type regionRec struct {
	id, slug, provider, displayName, location string
	ips                                       []string
}

// publicRegions are the regions the fake offers, in list order. Their
// addresses are from the documentation ranges (RFC 5737).
var publicRegions = []*regionRec{
	{id: "reg0useast01", slug: "us-east", provider: "AWS", displayName: "AWS us-east-1 (N. Virginia)", location: "Ashburn, Virginia", ips: []string{"192.0.2.10", "192.0.2.11"}},
	{id: "reg0uswest01", slug: "us-west", provider: "AWS", displayName: "AWS us-west-2 (Oregon)", location: "Boardman, Oregon", ips: []string{"192.0.2.20", "192.0.2.21"}},
	{id: "reg0euwest01", slug: "eu-west", provider: "AWS", displayName: "AWS eu-west-1 (Dublin)", location: "Dublin, Ireland", ips: []string{"198.51.100.10", "198.51.100.11"}},
	{id: "reg0eucent01", slug: "eu-central", provider: "GCP", displayName: "GCP europe-west3 (Frankfurt)", location: "Frankfurt, Germany", ips: []string{"198.51.100.20"}},
	{id: "reg0apsout01", slug: "ap-southeast", provider: "AWS", displayName: "AWS ap-southeast-1 (Singapore)", location: "Singapore", ips: []string{"203.0.113.10"}},
}

// regionBySlug finds a region.
func regionBySlug(slug string) *regionRec {
	for _, r := range publicRegions {
		if r.slug == slug {
			return r
		}
	}
	return nil
}

// regionPage renders the call's page of the regions.
func regionPage(c *call, render func(*regionRec) *platform.Region) *platform.Page[platform.Region] {
	return slicePageOf(c, publicRegions, false, render)
}

// renderRegionFor renders regions as an organization or a database sees
// them, with def as the current default.
func renderRegionFor(def *regionRec) func(*regionRec) *platform.Region {
	return func(r *regionRec) *platform.Region {
		out := renderPublicRegion(r)
		out.CurrentDefault = platform.Ptr(r == def)
		out.MySQLSupported = platform.Ptr(true)
		out.PostgreSQLSupported = platform.Ptr(true)
		return out
	}
}

// renderPublicRegionItem renders a region as GET /v1/regions lists it:
// current_default marks the region new organizations (and their databases)
// start in.
func renderPublicRegionItem(r *regionRec) *platform.Region {
	out := renderPublicRegion(r)
	out.CurrentDefault = platform.Ptr(r == publicRegions[0])
	return out
}

func renderPublicRegion(r *regionRec) *platform.Region {
	return &platform.Region{
		ID:                r.id,
		Type:              "Region",
		Provider:          r.provider,
		Enabled:           true,
		PublicIPAddresses: append([]string(nil), r.ips...),
		DisplayName:       r.displayName,
		Location:          r.location,
		Slug:              r.slug,
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
