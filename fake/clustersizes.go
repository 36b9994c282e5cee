package fake

import (
	"strings"

	"github.com/dbplatform/platform-go"
)

// skuQuery is what a cluster-size list was asked for.
type skuQuery struct {
	kind platform.DatabaseKind
	// rates is the region whose prices to show; nil for no prices.
	rates *regionRec
	// branch, when set, keeps the sizes of its kind of branch and, on
	// PostgreSQL, of its provider and architecture (see takes).
	branch *branchRec
}

// list renders the catalogue's sizes that q selects.
func (q skuQuery) list() []*platform.ClusterSizeSKU {
	out := []*platform.ClusterSizeSKU{}
	var resize sizeScope
	if b := q.branch; b != nil {
		resize = b.resizeScope(b.defaultKeyspace().clusterSize)
	}
	for i, s := range clusterSKUs {
		if !s.offers(q.kind) {
			continue
		}
		if q.branch != nil && (!s.fits(q.branch) || !resize.takes(s)) {
			continue
		}
		out = append(out, q.render(s, i))
	}
	return out
}

func (q skuQuery) render(s *clusterSKU, order int) *platform.ClusterSizeSKU {
	out := &platform.ClusterSizeSKU{
		Name: s.name, DisplayName: s.displayName, CPU: s.cpu, RAM: s.ram,
		Metal: s.metal, Enabled: true, DefaultVTGate: s.vtgate,
		SortOrder: (order + 1) * 10, Development: s.development, Production: s.production,
	}
	if s.storage > 0 {
		out.Storage = platform.Ptr(s.storage)
	}
	if s.provider != "" {
		out.Provider = platform.Ptr(s.provider)
	}
	if s.architecture != "" {
		out.Architecture = platform.Ptr(s.architecture)
	}
	if s.instanceType != "" {
		out.ProviderInstanceType = platform.Ptr(s.instanceType)
	}
	if q.rates != nil {
		price := func(v int64) *float64 { return platform.Ptr(float64(regionalPrice(v, q.rates))) }
		out.Rate, out.ReplicaRate, out.DefaultVTGateRate = price(s.rate), price(s.replicaRate), price(s.vtgateRate)
	}
	return out
}

func clusterSizeRoutes() []route {
	return []route{
		{pattern: "GET /v1/organizations/{organization}/cluster-size-skus", op: "list_cluster_size_skus", handler: read(listClusterSizes)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/cluster-size-skus", op: "list_branch_cluster_size_skus", handler: read(listBranchClusterSizes)},
	}
}

// skuRates reads the rates and region query parameters: the region whose
// prices to show (def unless region is given), or nil without rates.
func skuRates(c *call, def *regionRec) (*regionRec, error) {
	q := c.r.URL.Query()
	rates, err := boolQuery(q.Get("rates"), "rates")
	if err != nil {
		return nil, err
	}
	region := def
	if slug := q.Get("region"); slug != "" {
		if region = regionBySlug(slug); region == nil {
			return nil, unprocessable("region %q is not a known region slug", slug)
		}
	}
	if !rates {
		return nil, nil
	}
	return region, nil
}

func listClusterSizes(c *call) (any, error) {
	q := c.r.URL.Query()
	kind := platform.DatabaseKind(strings.ToLower(q.Get("engine")))
	switch kind {
	case "", platform.KindMySQL, platform.KindPostgreSQL:
	default:
		return nil, badRequest("engine %q is not mysql or postgresql", q.Get("engine"))
	}
	// postgresql=true (the official client's form) asks for the
	// PostgreSQL sizes as engine=postgresql does; false for MySQL's.
	if v := q.Get("postgresql"); v != "" {
		pg, err := boolQuery(v, "postgresql")
		if err != nil {
			return nil, err
		}
		want := platform.KindMySQL
		if pg {
			want = platform.KindPostgreSQL
		}
		if kind != "" && kind != want {
			return nil, unprocessable("engine %q and postgresql=%s ask for different engines; give one of them", q.Get("engine"), v)
		}
		kind = want
	}
	if kind == "" {
		kind = platform.KindMySQL
	}
	def := c.org.defaultRegion
	if name := q.Get("database"); name != "" {
		db := c.org.dbByName[name]
		if db == nil || db.deleted || !c.seesDatabase(db) {
			return nil, unprocessable("database %q is not a database of %s", name, c.org.name)
		}
		def = db.region
	}
	rates, err := skuRates(c, def)
	if err != nil {
		return nil, err
	}
	return skuQuery{kind: kind, rates: rates}.list(), nil
}

func listBranchClusterSizes(c *call) (any, error) {
	b := c.branch
	rates, err := skuRates(c, b.region)
	if err != nil {
		return nil, err
	}
	return skuQuery{kind: b.db.kind, rates: rates, branch: b}.list(), nil
}
