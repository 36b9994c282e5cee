package platform

import "context"

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

// BranchInfrastructure is what a branch's cluster runs: one pod per
// process.
type BranchInfrastructure struct {
	Type string `json:"type"`
	// Ready is true when every pod is ready.
	Ready bool                 `json:"ready"`
	Pods  []*InfrastructurePod `json:"pods"`
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

// ListParametersParams names the branch whose parameters to list.
type ListParametersParams = BranchParams

// ListParameters returns a branch's cluster parameters, with the values it
// accepts and its current value, in one response. The catalogue is
// PostgreSQL's; a MySQL branch has none (its server options are its
// keyspaces' MysqldOptions).
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/parameters
func (s *BranchChangesService) ListParameters(ctx context.Context, p *ListParametersParams) ([]*ClusterParameter, error) {
	p = orZero(p)
	if err := p.check(); err != nil {
		return nil, err
	}
	var out []*ClusterParameter
	err := s.client.get(ctx, p.path("/parameters"), nil, &out)
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

// GetInfrastructure returns the pods of a branch's cluster, as its cluster
// size, keyspaces, shards and replicas make them.
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
