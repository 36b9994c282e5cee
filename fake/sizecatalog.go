package fake

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/dbplatform/platform-go"
)

// This file holds the catalogue of cluster sizes, which every group that
// takes a cluster_size reads (databases, branches, keyspaces, resizes,
// bouncers, billing): the sizes, their prices by region, and the check of
// a requested size. clustersizes.go serves the catalogue's lists.

// clusterSKU is a cluster size of the catalogue. Every cluster_size the
// API takes names one, for an engine the size is offered for.
type clusterSKU struct {
	name, displayName, cpu string
	ram                    int64 // bytes
	// storage is a Metal size's local disk in bytes; 0 (rendered null)
	// where storage grows with the data.
	storage int64
	metal   bool
	// provider and architecture are "" (rendered null) for sizes that run
	// on every provider.
	provider, architecture string
	// instanceType is the provider's machine a size tied to one runs on
	// (a Metal size's, with its local disk); "" (rendered null) otherwise.
	instanceType string
	vtgate       string
	// rate, replicaRate and vtgateRate are monthly prices in the base
	// regions, in whole currency units; see regionalPrice.
	rate, replicaRate, vtgateRate int64
	development, production       bool
	// devOnly marks the development size (PS_DEV), which runs development
	// branches only; see clusterSizeFor.
	devOnly           bool
	mysql, postgresql bool
	// A PostgreSQL size is fully qualified (see pgSizeName): plain is the
	// name without its provider and architecture (PS_10), which requests
	// may give for it, shortDisplay its display name as a branch, a change
	// request or a node shows it (PS-10), and cloud and arch its name's
	// provider (a region's, AWS or GCP) and architecture (X86 or ARM).
	// All "" for the other sizes.
	plain, shortDisplay, cloud, arch string
}

// devClusterSize is the development size: the smallest, free, for
// development branches only (what the service's own command-line tool asks
// for a new development branch). It runs on every provider and is the one
// PostgreSQL size that is not fully qualified: the tool asks for it by
// that name for both engines.
const devClusterSize = "PS_DEV"

const (
	gib = int64(1) << 30
	mib = int64(1) << 20
)

// The architectures of PostgreSQL's sizes: the suffix of their names, and
// what the catalogue's architecture field says. X86 is the default: what a
// plain name means for a new cluster.
const (
	archX86, archARM = "X86", "ARM"
)

// archField is the catalogue's architecture field for a name's suffix.
var archField = map[string]string{archX86: "x86_64", archARM: "arm64"}

// pgProviders are the providers PostgreSQL's sizes run on, as regions
// name them (regionRec.provider).
var pgProviders = []string{"AWS", "GCP"}

// pgSizeName is the fully-qualified name of the PostgreSQL size plain
// (PS_10) on a provider and an architecture: PS_10_AWS_X86.
func pgSizeName(plain, provider, arch string) string {
	return plain + "_" + provider + "_" + arch
}

// armRate is an ARM size's price: a tenth below the X86 size's, in whole
// units, rounded down (the old PS_40_ARM's 89 for PS_40's 99).
func armRate(v int64) int64 { return v * 9 / 10 }

// postgresSizes are PostgreSQL's sizes: each of the plain sizes on every
// provider and architecture, as the service names them (PS_10_AWS_X86,
// displayed PS-10-AWS-X86), smallest first, then by provider and
// architecture.
func postgresSizes(plain []*clusterSKU) []*clusterSKU {
	var out []*clusterSKU
	for _, p := range plain {
		for _, cloud := range pgProviders {
			for _, arch := range []string{archX86, archARM} {
				s := *p
				s.mysql, s.postgresql = false, true
				s.name = pgSizeName(p.name, cloud, arch)
				s.displayName = p.displayName + "-" + cloud + "-" + arch
				s.plain, s.shortDisplay, s.cloud, s.arch = p.name, p.displayName, cloud, arch
				s.provider, s.architecture = strings.ToLower(cloud), archField[arch]
				if arch == archARM {
					s.rate, s.replicaRate, s.vtgateRate = armRate(p.rate), armRate(p.replicaRate), armRate(p.vtgateRate)
				}
				out = append(out, &s)
			}
		}
	}
	return out
}

// plainSizes are the sizes of every provider, MySQL's under these names,
// PostgreSQL's qualified by provider and architecture (postgresSizes).
var plainSizes = []*clusterSKU{
	{name: "PS_5", displayName: "PS-5", cpu: "1/16", ram: 512 * mib, vtgate: "VTG_5", rate: 5, replicaRate: 3, vtgateRate: 0, development: true, mysql: true},
	{name: "PS_10", displayName: "PS-10", cpu: "1/8", ram: 1 * gib, vtgate: "VTG_5", rate: 39, replicaRate: 13, vtgateRate: 0, development: true, production: true, mysql: true},
	{name: "PS_20", displayName: "PS-20", cpu: "1/4", ram: 2 * gib, vtgate: "VTG_5", rate: 59, replicaRate: 20, vtgateRate: 0, development: true, production: true, mysql: true},
	{name: "PS_40", displayName: "PS-40", cpu: "1/2", ram: 4 * gib, vtgate: "VTG_10", rate: 99, replicaRate: 33, vtgateRate: 10, production: true, mysql: true},
	{name: "PS_80", displayName: "PS-80", cpu: "1", ram: 8 * gib, vtgate: "VTG_10", rate: 179, replicaRate: 60, vtgateRate: 10, production: true, mysql: true},
	{name: "PS_160", displayName: "PS-160", cpu: "2", ram: 16 * gib, vtgate: "VTG_20", rate: 339, replicaRate: 113, vtgateRate: 20, production: true, mysql: true},
	{name: "PS_320", displayName: "PS-320", cpu: "4", ram: 32 * gib, vtgate: "VTG_40", rate: 659, replicaRate: 220, vtgateRate: 40, production: true, mysql: true},
	{name: "PS_640", displayName: "PS-640", cpu: "8", ram: 64 * gib, vtgate: "VTG_80", rate: 1299, replicaRate: 433, vtgateRate: 80, production: true, mysql: true},
	{name: "PS_1280", displayName: "PS-1280", cpu: "16", ram: 128 * gib, vtgate: "VTG_320", rate: 2599, replicaRate: 866, vtgateRate: 320, production: true, mysql: true},
}

// clusterSKUs is the catalogue, smallest first within each engine's
// sizes: its order is sort_order.
var clusterSKUs = slices.Concat(
	[]*clusterSKU{{name: devClusterSize, displayName: "PS-DEV", cpu: "1/16", ram: 512 * mib, vtgate: "VTG_5", rate: 0, replicaRate: 0, vtgateRate: 0, development: true, devOnly: true, mysql: true, postgresql: true}},
	plainSizes,
	[]*clusterSKU{
		{name: "M_160", displayName: "M-160", cpu: "2", ram: 16 * gib, storage: 118 * gib, metal: true, provider: "AWS", instanceType: "r6id.large", architecture: "x86_64", vtgate: "VTG_20", rate: 609, replicaRate: 203, vtgateRate: 20, production: true, mysql: true},
		{name: "M_320", displayName: "M-320", cpu: "4", ram: 32 * gib, storage: 237 * gib, metal: true, provider: "AWS", instanceType: "r6id.xlarge", architecture: "x86_64", vtgate: "VTG_40", rate: 1199, replicaRate: 400, vtgateRate: 40, production: true, mysql: true},
	},
	postgresSizes(plainSizes),
)

// skuByName indexes the catalogue.
var skuByName = func() map[string]*clusterSKU {
	m := make(map[string]*clusterSKU, len(clusterSKUs))
	for _, s := range clusterSKUs {
		m[s.name] = s
	}
	return m
}()

// offers reports whether the size is offered for databases of kind.
func (s *clusterSKU) offers(kind platform.DatabaseKind) bool {
	if kind == platform.KindPostgreSQL {
		return s.postgresql
	}
	return s.mysql
}

// fits reports whether the size is one for b's kind of branch.
func (s *clusterSKU) fits(b *branchRec) bool {
	if b.production {
		return s.production
	}
	return s.development
}

// sizeName is a size's name as the catalogues spell it: a dash, as the
// service's own command-line tool writes sizes, stands for an underscore
// (PS-10 is PS_10). Every size a request names goes through it, so that
// what is stored and rendered is the canonical name.
func sizeName(size string) string { return strings.ReplaceAll(size, "-", "_") }

// sizeScope is where a requested cluster size is to run: a database of
// kind and, for PostgreSQL, whose sizes are fully qualified, the provider
// of the branch's region and the architecture a plain name means.
type sizeScope struct {
	kind platform.DatabaseKind
	// provider is the region's (AWS or GCP): a PostgreSQL size must run on
	// it.
	provider string
	// arch (X86 or ARM) is what a plain PostgreSQL name (PS_10) means;
	// fixed, when set, is the one architecture a size may have: that of
	// the cluster a change resizes, which keeps it.
	arch, fixed string
}

// newClusterScope is the scope of a new cluster of kind in region (a
// database, a branch, a restore, a keyspace): a plain PostgreSQL name
// means the default architecture, and any architecture may be asked for.
func newClusterScope(kind platform.DatabaseKind, region *regionRec) sizeScope {
	return sizeScope{kind: kind, provider: region.provider, arch: archX86}
}

// resizeScope is the scope of a change of b's cluster from the size from
// (the branch's, or that of the queued request a change amends): a plain
// PostgreSQL name means from's architecture, and a size must keep b's
// (a branch on PS_DEV, of none, may take either).
func (b *branchRec) resizeScope(from string) sizeScope {
	at := newClusterScope(b.db.kind, b.region)
	if sku := skuByName[from]; sku != nil && sku.arch != "" {
		at.arch = sku.arch
	}
	if sku := skuByName[b.defaultKeyspace().clusterSize]; sku != nil {
		at.fixed = sku.arch
	}
	return at
}

// takes reports whether a size of at's kind is one of at's provider and,
// for a resize, of the cluster's architecture (as clusterSizeFor checks):
// every size that runs on every provider does.
func (at sizeScope) takes(s *clusterSKU) bool {
	return s.cloud == "" || s.cloud == at.provider && (at.fixed == "" || s.arch == at.fixed)
}

// lookupSize finds the size a canonical name (see sizeName) names in
// scope at: for PostgreSQL a plain name (PS_10) is the size on at's
// provider and architecture; nil for a name the catalogue lacks.
func lookupSize(name string, at sizeScope) *clusterSKU {
	if at.kind == platform.KindPostgreSQL {
		if sku := skuByName[pgSizeName(name, at.provider, at.arch)]; sku != nil {
			return sku
		}
	}
	return skuByName[name]
}

// clusterSizeFor checks the value of a cluster_size field (named field)
// for a cluster in scope at, and returns the size's canonical name (see
// sizeName; a PostgreSQL size's fully-qualified name, see lookupSize): a
// 422 naming the field and the value when the catalogue has no such size,
// does not offer it for at's kind, runs it on another provider than at's
// or, for a resize, on another architecture than the cluster's, or, for a
// size that would run a production branch (production), when it is the
// development size.
func clusterSizeFor(field, size string, at sizeScope, production bool) (string, error) {
	sku := lookupSize(sizeName(size), at)
	switch {
	case size == "":
		return "", unprocessable("%s is required; list_cluster_size_skus lists the sizes", field)
	case sku == nil:
		return "", unprocessable("%s %q is not a cluster size; list_cluster_size_skus lists the sizes", field, size)
	case !sku.offers(at.kind):
		return "", unprocessable("%s %q is not offered for %s databases", field, size, at.kind)
	case sku.cloud != "" && sku.cloud != at.provider:
		return "", unprocessable("%s %q runs on %s, and the cluster's region on %s: list_branch_cluster_size_skus lists its sizes", field, size, sku.cloud, at.provider)
	case !at.takes(sku):
		return "", unprocessable("%s %q is an %s size; the cluster runs on %s and a resize keeps its architecture", field, size, sku.arch, at.fixed)
	case production && sku.devOnly:
		return "", unprocessable("%s %q is a development-only size and cannot run a production branch", field, size)
	}
	return sku.name, nil
}

// onProvider is size on provider: a PostgreSQL size's same plain size and
// architecture there, for a branch made in a region of another provider
// than the sizes it copies; any other size as it is.
func onProvider(size, provider string) string {
	if sku := skuByName[size]; sku != nil && sku.cloud != "" {
		return pgSizeName(sku.plain, provider, sku.arch)
	}
	return size
}

// clusterDisplayName is a size's display name as a cluster of that size
// shows it (a PostgreSQL size's without its provider and architecture:
// PS-10); a name the catalogue lacks (none is stored, see clusterSizeFor)
// shows as given.
func clusterDisplayName(size string) string {
	if sku := skuByName[size]; sku != nil {
		return cmp.Or(sku.shortDisplay, sku.displayName)
	}
	return size
}

// billedDisplayName is a size's display name on an invoice: the
// catalogue's, which tells a PostgreSQL size's provider and architecture
// (PS-10-AWS-X86); a name the catalogue lacks shows as given.
func billedDisplayName(size string) string {
	if sku := skuByName[size]; sku != nil {
		return sku.displayName
	}
	return size
}

// defaultVTGate is the query router size of a cluster of the given size;
// the smallest for a size the catalogue lacks (none is stored, see
// clusterSizeFor).
func defaultVTGate(size string) string {
	if sku := skuByName[size]; sku != nil {
		return sku.vtgate
	}
	return clusterSKUs[0].vtgate
}

// regionRateFactor scales the base prices for a region; see
// regionalPrice.
func regionRateFactor(r *regionRec) float64 {
	switch r.slug {
	case "eu-west", "eu-central":
		return 1.1
	case "ap-southeast":
		return 1.25
	}
	return 1
}

// regionalPrice is a base price in a region, in whole currency units: the
// service's own clients read prices as integers, so the region's factor
// rounds (half away from zero).
func regionalPrice(v int64, r *regionRec) int64 {
	return int64(math.Round(float64(v) * regionRateFactor(r)))
}

// priceCents is a base price in a region, in cents: what the catalogue
// shows for the region, so that billing charges the price the list shows.
func priceCents(v int64, r *regionRec) int64 { return regionalPrice(v, r) * 100 }
