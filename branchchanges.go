package platform

import (
	"context"
	"encoding/json"
)

// ParameterNamespace is the component a cluster parameter configures.
type ParameterNamespace string

// The parameter namespaces.
const (
	// NamespacePgconf parameters configure the database server.
	NamespacePgconf ParameterNamespace = "pgconf"
	// NamespacePgbouncer parameters configure the connection pooler.
	NamespacePgbouncer ParameterNamespace = "pgbouncer"
	// NamespacePatroni parameters configure replication and failover.
	NamespacePatroni ParameterNamespace = "patroni"
)

// ParameterType is the type of a cluster parameter's value, which is
// always sent and shown as a string.
type ParameterType string

// The parameter types.
const (
	ParameterArray   ParameterType = "array"
	ParameterBoolean ParameterType = "boolean"
	// ParameterBytes values are a number with an optional unit (kB, MB,
	// GB, TB); Min and Max are in bytes.
	ParameterBytes ParameterType = "bytes"
	ParameterFloat ParameterType = "float"
	// ParameterInteger values are whole numbers between Min and Max.
	ParameterInteger ParameterType = "integer"
	// ParameterSeconds values are a number with an optional unit (ms, s,
	// min, h, d); Min and Max are in seconds.
	ParameterSeconds ParameterType = "seconds"
	// ParameterSelect values are one of Options.
	ParameterSelect ParameterType = "select"
	ParameterString ParameterType = "string"
	ParameterTime   ParameterType = "time"
)

// ClusterParameter is a configuration parameter of a branch's cluster:
// what it accepts and the value it has.
type ClusterParameter struct {
	ID          string             `json:"id"`
	Name        string             `json:"name"`
	DisplayName string             `json:"display_name"`
	Namespace   ParameterNamespace `json:"namespace"`
	Category    string             `json:"category"`
	Description string             `json:"description"`
	// Extension is true for a parameter of an extension.
	Extension bool `json:"extension"`
	// Immutable parameters cannot be changed.
	Immutable     bool          `json:"immutable"`
	ParameterType ParameterType `json:"parameter_type"`
	DefaultValue  string        `json:"default_value"`
	// Value is the branch's current value.
	Value    string    `json:"value"`
	Required bool      `json:"required"`
	Created  Timestamp `json:"created_at"`
	Updated  Timestamp `json:"updated_at"`
	// Restart is true when a change restarts the database server.
	Restart bool `json:"restart"`
	// Max and Min bound a numeric parameter's value (0 when unbounded).
	Max float64 `json:"max"`
	Min float64 `json:"min"`
	URL string  `json:"url"`
	// Options are a select parameter's allowed values.
	Options []string `json:"options"`
	// Actor is who set the current value.
	Actor *Actor `json:"actor"`
}

// ExtensionLoader is how an extension is loaded.
type ExtensionLoader string

// The extension loaders.
const (
	LoaderSharedPreload  ExtensionLoader = "shared_preload_libraries"
	LoaderSessionPreload ExtensionLoader = "session_preload_libraries"
	LoaderCreate         ExtensionLoader = "create_extension"
)

// ClusterExtension is an extension a branch's cluster offers.
type ClusterExtension struct {
	ID          string          `json:"id"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Internal    bool            `json:"internal"`
	Loader      ExtensionLoader `json:"loader"`
	URL         string          `json:"url"`
	// Available is false when the cluster cannot load the extension;
	// UnavailableReason then says why.
	Available         bool   `json:"available"`
	UnavailableReason string `json:"unavailable_reason"`
	// Parameters are the extension's configuration parameters.
	Parameters []*ClusterParameter `json:"parameters"`
}

// The values of BranchInfrastructure.Type.
const (
	// InfrastructureVitess is the Type of a MySQL branch's infrastructure:
	// its pods ([BranchInfrastructure.Ready], [BranchInfrastructure.Pods]).
	InfrastructureVitess = "BranchInfrastructure"
	// InfrastructurePostgres is the Type of a PostgreSQL branch's
	// infrastructure: its instances and bouncers
	// ([BranchInfrastructure.Postgres]).
	InfrastructurePostgres = "PostgresInfrastructure"
)

// BranchInfrastructure is what a branch's cluster runs. Its Type says which
// of two shapes the API sent: a MySQL branch's pods (InfrastructureVitess:
// Ready and Pods set, Postgres nil), or a PostgreSQL branch's instances and
// bouncers (InfrastructurePostgres: Postgres set, Ready false and Pods
// nil). A Type the SDK does not know decodes as pods. It encodes back to
// the shape it was decoded from.
type BranchInfrastructure struct {
	Type string `json:"type"`
	// Ready is true when every pod is ready.
	Ready bool                 `json:"ready"`
	Pods  []*InfrastructurePod `json:"pods"`
	// Postgres is a PostgreSQL branch's infrastructure; nil for the other
	// types.
	Postgres *PostgresInfrastructure `json:"-"`
}

// postgresInfrastructureJSON is the wire form of a PostgreSQL branch's
// infrastructure: its type next to the fields of PostgresInfrastructure.
type postgresInfrastructureJSON struct {
	Type string `json:"type"`
	*PostgresInfrastructure
}

// vitessInfrastructureJSON is BranchInfrastructure without its methods.
type vitessInfrastructureJSON struct {
	Type  string               `json:"type"`
	Ready bool                 `json:"ready"`
	Pods  []*InfrastructurePod `json:"pods"`
}

// UnmarshalJSON decodes either shape, by the body's type.
func (b *BranchInfrastructure) UnmarshalJSON(data []byte) error {
	if err := nilTarget(b); err != nil {
		return err
	}
	var kind struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(data, &kind); err != nil {
		return err
	}
	if kind.Type == InfrastructurePostgres {
		pg := new(PostgresInfrastructure)
		if err := json.Unmarshal(data, pg); err != nil {
			return err
		}
		*b = BranchInfrastructure{Type: kind.Type, Postgres: pg}
		return nil
	}
	var v vitessInfrastructureJSON
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*b = BranchInfrastructure{Type: v.Type, Ready: v.Ready, Pods: v.Pods}
	return nil
}

// MarshalJSON encodes the shape b holds: Postgres's fields when it is set,
// else Ready and Pods.
func (b BranchInfrastructure) MarshalJSON() ([]byte, error) {
	if b.Postgres != nil {
		return json.Marshal(postgresInfrastructureJSON{Type: b.Type, PostgresInfrastructure: b.Postgres})
	}
	return json.Marshal(vitessInfrastructureJSON{Type: b.Type, Ready: b.Ready, Pods: b.Pods})
}

// PostgresInfrastructure is what a PostgreSQL branch's cluster runs: its
// instances (a primary and its replicas) and its bouncers.
type PostgresInfrastructure struct {
	// State is "pending" until the branch's instances run, then "ready".
	State string `json:"state"`
	// PrimaryName is the name of the instance that is the primary.
	PrimaryName string `json:"primary_name"`
	// PrimaryPromotedAt is when a switchover last made an instance the
	// primary; nil when none has.
	PrimaryPromotedAt *Timestamp `json:"primary_promoted_at"`
	// VolumeModificationsBlockedUntil is when the instances' volumes can
	// change again after a change; nil when they can now.
	VolumeModificationsBlockedUntil *Timestamp `json:"volume_modifications_blocked_until"`
	// Nodes are the instances, the primary among them.
	Nodes []*PostgresNode `json:"nodes"`
	// Bouncers are the branch's bouncers whose servers run.
	Bouncers []*InfrastructureBouncer `json:"bouncers"`
}

// PostgresNode is one PostgreSQL instance of a branch.
type PostgresNode struct {
	// Name names the instance, as a switchover's candidate and a
	// connection's instance name it.
	Name string `json:"name"`
	// NormalizedName is the name without the branch's ID ("postgres-0").
	NormalizedName string `json:"normalized_name"`
	// Role is "primary" or "replica".
	Role string `json:"role"`
	// AvailabilityZone is the zone of the branch's region the instance
	// runs in.
	AvailabilityZone   string `json:"availability_zone"`
	ClusterName        string `json:"cluster_name"`
	ClusterDisplayName string `json:"cluster_display_name"`
	// PeersCount is how many other instances the branch runs.
	PeersCount int `json:"peers_count"`
	// VolumeUsageBytes and VolumeCapacityBytes are the instance's disk
	// used and its size; nil when unknown.
	VolumeUsageBytes    *int64 `json:"volume_usage_bytes"`
	VolumeCapacityBytes *int64 `json:"volume_capacity_bytes"`
	// VolumeShrinkThresholdPercent is the usage below which the volume
	// shrinks; nil when it does not.
	VolumeShrinkThresholdPercent *float64 `json:"volume_shrink_threshold_percent"`
	Region                       Region   `json:"region"`
	// DiskReplacement is the instance's disk replacement scheduled; nil
	// when none is.
	DiskReplacement *DiskReplacement `json:"disk_replacement"`
}

// DiskReplacement is a scheduled replacement of an instance's disk.
type DiskReplacement struct {
	Reason      string     `json:"reason"`
	Bytes       int64      `json:"bytes"`
	ScheduledAt *Timestamp `json:"scheduled_at"`
}

// InfrastructureBouncer is a bouncer as its branch's infrastructure lists
// it.
type InfrastructureBouncer struct {
	ID     string        `json:"id"`
	Name   string        `json:"name"`
	Target BouncerTarget `json:"target"`
	// ReplicasPerCell is how many servers it runs in each zone.
	ReplicasPerCell int         `json:"replicas_per_cell"`
	Region          Region      `json:"region"`
	SKU             *BouncerSKU `json:"sku"`
}

// InfrastructurePod is one process of a branch's cluster.
type InfrastructurePod struct {
	Name string `json:"name"`
	// Status is "Running" or "Pending".
	Status string `json:"status"`
	// Component is what the pod runs: "vtgate" (query routing) or
	// "vttablet" (a MySQL shard's server), or "postgres".
	Component string `json:"component"`
	// Ready counts the pod's ready containers ("1/1").
	Ready        string     `json:"ready"`
	RestartCount int        `json:"restart_count"`
	CreatedAt    *Timestamp `json:"created_at"`
	// Cell is the region slug the pod runs in.
	Cell string `json:"cell"`
	// Size is the pod's cluster size SKU.
	Size string `json:"size"`
	// Keyspace, Shard and TabletType place a database server pod; nil for
	// the other components.
	Keyspace   *string `json:"keyspace"`
	Shard      *string `json:"shard"`
	TabletType *string `json:"tablet_type"`
}

// BranchChangesService reads and changes the configuration of branches'
// clusters. It reads their parameters, extensions and infrastructure
// ([BranchChangesService.ListParameters],
// [BranchChangesService.ListExtensions],
// [BranchChangesService.GetInfrastructure]), and changes them through
// requests that run on their own (branchresizes.go): a resize of a MySQL
// branch's query routers ([BranchChangesService.UpdateResize], with
// ListResizes, GetResize and WaitResize) and a change of a branch's
// cluster ([BranchChangesService.UpdateChange], with ListChanges,
// GetChange and WaitChange), which [BranchChangesService.CancelChange] and
// [BranchChangesService.CancelChanges] cancel before they complete.
// [BranchChangesService.UpdateClusterConfig] changes a branch's cluster
// size, as a change request.
type BranchChangesService service

// ListParametersParams names the branch whose parameters to list, and
// filters them.
type ListParametersParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	// Extension keeps the parameters that configure an extension (true)
	// or those that do not (false); nil keeps both.
	Extension *bool `json:"-" url:"extension,omitempty"`
	// Internal keeps the internal parameters, those that cannot be changed
	// ([ClusterParameter.Immutable]) (true), or the others (false); nil
	// keeps both.
	Internal *bool `json:"-" url:"internal,omitempty"`
}

// ListParameters returns a branch's cluster parameters, with the values it
// accepts and its current value, in one response; the params' Extension
// and Internal keep some of them. The catalogue is
// PostgreSQL's; a MySQL branch has none (its server options are its
// keyspaces' MysqldOptions).
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/parameters
func (s *BranchChangesService) ListParameters(ctx context.Context, p *ListParametersParams) ([]*ClusterParameter, error) {
	p = orZero(p)
	bp := &BranchParams{Organization: p.Organization, Database: p.Database, Branch: p.Branch}
	if err := bp.check(); err != nil {
		return nil, err
	}
	var out []*ClusterParameter
	err := s.client.get(ctx, bp.path("/parameters"), p, &out)
	return orNil(out, err)
}

// ListExtensionsParams names the branch whose extensions to list.
type ListExtensionsParams = BranchParams

// ListExtensions returns the extensions a branch's cluster offers, with
// their parameters, in one response; none for a MySQL branch.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/extensions
func (s *BranchChangesService) ListExtensions(ctx context.Context, p *ListExtensionsParams) ([]*ClusterExtension, error) {
	p = orZero(p)
	if err := p.check(); err != nil {
		return nil, err
	}
	var out []*ClusterExtension
	err := s.client.get(ctx, p.path("/extensions"), nil, &out)
	return orNil(out, err)
}

// GetInfrastructureParams names the branch whose infrastructure to get.
type GetInfrastructureParams = BranchParams

// GetInfrastructure returns what a branch's cluster runs, as its cluster
// size, keyspaces, shards and replicas make it: a MySQL branch's pods, or
// a PostgreSQL branch's instances and bouncers
// ([BranchInfrastructure.Postgres]).
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/infrastructure
func (s *BranchChangesService) GetInfrastructure(ctx context.Context, p *GetInfrastructureParams) (*BranchInfrastructure, error) {
	p = orZero(p)
	if err := p.check(); err != nil {
		return nil, err
	}
	out := new(BranchInfrastructure)
	return orNil(out, s.client.get(ctx, p.path("/infrastructure"), nil, out))
}
