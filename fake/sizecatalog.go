package fake

import (
	"math"
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
}

// devClusterSize is the development size: the smallest, free, for
// development branches only (what the service's own command-line tool asks
// for a new development branch).
const devClusterSize = "PS_DEV"

const (
	gib = int64(1) << 30
	mib = int64(1) << 20
)

// clusterSKUs is the catalogue, smallest first: its order is sort_order.
var clusterSKUs = []*clusterSKU{
	{name: devClusterSize, displayName: "PS-DEV", cpu: "1/16", ram: 512 * mib, vtgate: "VTG_5", rate: 0, replicaRate: 0, vtgateRate: 0, development: true, devOnly: true, mysql: true, postgresql: true},
	{name: "PS_5", displayName: "PS-5", cpu: "1/16", ram: 512 * mib, vtgate: "VTG_5", rate: 5, replicaRate: 3, vtgateRate: 0, development: true, mysql: true, postgresql: true},
	{name: "PS_10", displayName: "PS-10", cpu: "1/8", ram: 1 * gib, vtgate: "VTG_5", rate: 39, replicaRate: 13, vtgateRate: 0, development: true, production: true, mysql: true, postgresql: true},
	{name: "PS_20", displayName: "PS-20", cpu: "1/4", ram: 2 * gib, vtgate: "VTG_5", rate: 59, replicaRate: 20, vtgateRate: 0, development: true, production: true, mysql: true, postgresql: true},
	{name: "PS_40", displayName: "PS-40", cpu: "1/2", ram: 4 * gib, vtgate: "VTG_10", rate: 99, replicaRate: 33, vtgateRate: 10, production: true, mysql: true, postgresql: true},
	{name: "PS_80", displayName: "PS-80", cpu: "1", ram: 8 * gib, vtgate: "VTG_10", rate: 179, replicaRate: 60, vtgateRate: 10, production: true, mysql: true, postgresql: true},
	{name: "PS_160", displayName: "PS-160", cpu: "2", ram: 16 * gib, vtgate: "VTG_20", rate: 339, replicaRate: 113, vtgateRate: 20, production: true, mysql: true, postgresql: true},
	{name: "PS_320", displayName: "PS-320", cpu: "4", ram: 32 * gib, vtgate: "VTG_40", rate: 659, replicaRate: 220, vtgateRate: 40, production: true, mysql: true, postgresql: true},
	{name: "PS_640", displayName: "PS-640", cpu: "8", ram: 64 * gib, vtgate: "VTG_80", rate: 1299, replicaRate: 433, vtgateRate: 80, production: true, mysql: true, postgresql: true},
	{name: "PS_1280", displayName: "PS-1280", cpu: "16", ram: 128 * gib, vtgate: "VTG_320", rate: 2599, replicaRate: 866, vtgateRate: 320, production: true, mysql: true, postgresql: true},
	{name: "M_160", displayName: "M-160", cpu: "2", ram: 16 * gib, storage: 118 * gib, metal: true, provider: "AWS", instanceType: "r6id.large", architecture: "x86_64", vtgate: "VTG_20", rate: 609, replicaRate: 203, vtgateRate: 20, production: true, mysql: true},
	{name: "M_320", displayName: "M-320", cpu: "4", ram: 32 * gib, storage: 237 * gib, metal: true, provider: "AWS", instanceType: "r6id.xlarge", architecture: "x86_64", vtgate: "VTG_40", rate: 1199, replicaRate: 400, vtgateRate: 40, production: true, mysql: true},
	{name: "PS_40_ARM", displayName: "PS-40 (ARM)", cpu: "1/2", ram: 4 * gib, architecture: "arm64", vtgate: "VTG_10", rate: 89, replicaRate: 30, vtgateRate: 10, production: true, postgresql: true},
}

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

// clusterSizeFor checks the value of a cluster_size field (named field)
// for a database of kind, and returns the size's canonical name (see
// sizeName): a 422 naming the field and the value when the catalogue has
// no such size, does not offer it for kind, or, for a size that would run
// a production branch (production), when it is the development size.
func clusterSizeFor(field, size string, kind platform.DatabaseKind, production bool) (string, error) {
	name := sizeName(size)
	sku := skuByName[name]
	switch {
	case size == "":
		return "", unprocessable("%s is required; list_cluster_size_skus lists the sizes", field)
	case sku == nil:
		return "", unprocessable("%s %q is not a cluster size; list_cluster_size_skus lists the sizes", field, size)
	case !sku.offers(kind):
		return "", unprocessable("%s %q is not offered for %s databases", field, size, kind)
	case production && sku.devOnly:
		return "", unprocessable("%s %q is a development-only size and cannot run a production branch", field, size)
	}
	return name, nil
}

// clusterDisplayName is a size's display name; a name the catalogue lacks
// (none is stored, see clusterSizeFor) shows as given.
func clusterDisplayName(size string) string {
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
