package platform

import "context"

// ClusterSizeSKU is a cluster size of the catalogue: what a database,
// branch or keyspace of that size runs on, and what it costs.
type ClusterSizeSKU struct {
	// Name is the SKU that cluster_size fields take: "PS_10" for MySQL; a
	// PostgreSQL size's is fully qualified by provider and architecture
	// ("PS_10_AWS_X86", "PS_10_GCP_ARM"), but for DevClusterSize.
	Name string `json:"name"`
	// DisplayName is "PS-10", "PS-10-AWS-ARM" for a PostgreSQL size (whose
	// branch and change requests show "PS-10").
	DisplayName string `json:"display_name"`
	// CPU is the number of CPUs, a fraction for the smallest sizes ("1/8").
	CPU string `json:"cpu"`
	// Storage is the storage in bytes of a size with local disks (Metal);
	// nil where storage grows with the data.
	Storage *int64 `json:"storage"`
	// RAM is the memory in bytes.
	RAM   int64 `json:"ram"`
	Metal bool  `json:"metal"`
	// Enabled reports whether the organization may use the size.
	Enabled bool `json:"enabled"`
	// Provider is the cloud provider a size is tied to (a Metal size's
	// "AWS"; a PostgreSQL size's "aws" or "gcp", which must be its
	// region's); nil for sizes offered on every provider.
	Provider *string `json:"provider"`
	// DefaultVTGate is the size of the query routers a cluster of this size
	// gets.
	DefaultVTGate string `json:"default_vtgate"`
	// DefaultVTGateRate, ReplicaRate and Rate are monthly prices, present
	// when the list was asked for rates; nil otherwise. The API sends
	// whole currency units (a region's factor rounds); a decimal decodes
	// as well.
	DefaultVTGateRate *float64 `json:"default_vtgate_rate"`
	ReplicaRate       *float64 `json:"replica_rate"`
	Rate              *float64 `json:"rate"`
	// SortOrder orders the sizes from the smallest.
	SortOrder int `json:"sort_order"`
	// Architecture is the processor architecture ("x86_64", "arm64") of a
	// size tied to one (Metal, PostgreSQL); nil otherwise.
	Architecture *string `json:"architecture"`
	// ProviderInstanceType is the provider's machine type a size tied to
	// one runs on (a Metal size's, "r6id.large"); nil otherwise. The
	// reference's size lacks it; the service's official client reads it.
	ProviderInstanceType *string `json:"provider_instance_type"`
	// Development and Production report which kinds of branch may use the
	// size.
	Development bool `json:"development"`
	Production  bool `json:"production"`
}

// DevClusterSize is the development cluster size: the smallest, free, for
// development branches only. A new development branch may be created with
// it (CreateBranchParams.ClusterSize); a database, a production branch's
// keyspaces and changes, and read-only regions may not use it, and a
// branch running on it cannot be promoted.
//
// Every cluster_size field also takes a size written with a dash for the
// underscore ("PS-10" is "PS_10"); responses show the underscore form.
// PostgreSQL's sizes are fully qualified ("PS_10_AWS_X86"), but for this
// one, which both engines take under this name; a PostgreSQL field also
// takes a plain name ("PS_10"), the size on the provider of the branch's
// region and in the architecture it runs (x86 for a new one).
const DevClusterSize = "PS_DEV"

// ClusterSizesService lists the cluster sizes (SKUs) that cluster_size
// fields take.
type ClusterSizesService service

// ListClusterSizesParams selects an organization's cluster sizes.
type ListClusterSizesParams struct {
	Organization string `json:"-" url:"-"`
	// Engine selects the sizes of one kind of database; mysql when nil.
	Engine *DatabaseKind `json:"-" url:"engine,omitempty"`
	// PostgreSQL selects the engine as the service's official client
	// does: true for PostgreSQL's sizes (as Engine postgresql), false for
	// MySQL's. With an Engine that names the other engine, the API
	// answers 422 naming both.
	PostgreSQL *bool `json:"-" url:"postgresql,omitempty"`
	// Rates asks for the prices (Rate, ReplicaRate, DefaultVTGateRate).
	Rates *bool `json:"-" url:"rates,omitempty"`
	// Region is the slug of the region whose prices to give; the
	// organization's default region when nil.
	Region *string `json:"-" url:"region,omitempty"`
	// Database names a database whose own prices take precedence over the
	// organization's.
	Database *string `json:"-" url:"database,omitempty"`
}

// List returns the cluster sizes an organization may choose from, smallest
// first. The API returns them in one response, without pages.
//
// API: GET /v1/organizations/{organization}/cluster-size-skus
func (s *ClusterSizesService) List(ctx context.Context, p *ListClusterSizesParams) ([]*ClusterSizeSKU, error) {
	p = orZero(p)
	if err := required("organization", p.Organization); err != nil {
		return nil, err
	}
	var out []*ClusterSizeSKU
	err := s.client.get(ctx, pathf("v1/organizations/%s/cluster-size-skus", p.Organization), p, &out)
	return orNil(out, err)
}

// ListBranchClusterSizesParams selects the cluster sizes a branch may use.
type ListBranchClusterSizesParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	// Rates asks for the prices (Rate, ReplicaRate, DefaultVTGateRate).
	Rates *bool `json:"-" url:"rates,omitempty"`
	// Region is the slug of the region whose prices to give; the branch's
	// region when nil.
	Region *string `json:"-" url:"region,omitempty"`
}

// ListForBranch returns the cluster sizes a branch may use: those of its
// database's kind and of its kind of branch (development or production),
// smallest first, in one response.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/cluster-size-skus
func (s *ClusterSizesService) ListForBranch(ctx context.Context, p *ListBranchClusterSizesParams) ([]*ClusterSizeSKU, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch); err != nil {
		return nil, err
	}
	var out []*ClusterSizeSKU
	err := s.client.get(ctx, pathf("v1/organizations/%s/databases/%s/branches/%s/cluster-size-skus", p.Organization, p.Database, p.Branch), p, &out)
	return orNil(out, err)
}
