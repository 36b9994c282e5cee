package platform

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// VitessService reads and drives the Vitess control plane of a MySQL
// branch. Its methods come in groups, each in a file of its own:
//
//   - the topology (vitess.go): the tablets, keyspaces and shards as the
//     cluster's topology holds them, a shard's tablet controls and the
//     refresh of its tablets' state ([VitessService.ListTablets],
//     [VitessService.GetShard], [VitessService.SetShardTabletControl]);
//   - operations and planned reparents (vitess_reparents.go), which move
//     a shard's primary to another tablet
//     ([VitessService.CreatePlannedReparent],
//     [VitessService.WaitPlannedReparent], [VitessService.WaitOperation]);
//   - VReplication workflows (vitess_workflows.go): listing, starting and
//     stopping them ([VitessService.ListWorkflows]);
//   - MoveTables (vitess_movetables.go), which moves tables to another
//     keyspace ([VitessService.CreateMoveTables],
//     [VitessService.WaitMoveTables], [VitessService.SwitchTraffic],
//     [VitessService.CompleteMoveTables]);
//   - VDiffs (vitess_vdiff.go), which compare a workflow's target with its
//     source ([VitessService.CreateVDiff], [VitessService.WaitVDiff]);
//   - Materialize (vitess_materialize.go), which keeps tables of a target
//     keyspace filled from queries on a source keyspace
//     ([VitessService.CreateMaterialize], [VitessService.WaitMaterialize]);
//   - lookup vindexes (vitess_lookupvindex.go), created write-only and
//     filled by a workflow, then externalized
//     ([VitessService.CreateLookupVindex],
//     [VitessService.WaitLookupVindex],
//     [VitessService.ExternalizeLookupVindex]);
//   - routing rules (vitess_routing.go): the table routing rules, and the
//     keyspace routing rules, which [VitessService.ApplyKeyspaceRoutingRules]
//     replaces;
//   - the tablet throttler (vitess_throttler.go): a tablet's status, a
//     check, and a keyspace's configuration
//     ([VitessService.GetThrottlerStatus], [VitessService.CheckThrottler],
//     [VitessService.UpdateThrottlerConfig]).
//
// A planned reparent answers its operation, and each MoveTables action a
// [VitessOperationRef]; [VitessService.WaitOperation] follows either.
//
// The answers of the `vtctld` operations are Vitess documents in
// protobuf JSON (proto field names, enum names as strings); each typed
// result carries the fields callers act on and the whole document as Raw.
type VitessService service

// vitessPath is the path of a branch's Vitess operations: the branch
// itself with suffix appended.
func vitessPath(org, db, branch, suffix string) string {
	return pathf("v1/organizations/%s/databases/%s/branches/%s", org, db, branch) + suffix
}

// TabletAlias names a tablet: its cell and its number within the cluster.
// Its text form is "<cell>-<uid>", the uid written with ten digits
// ("us-east-0000000101").
type TabletAlias struct {
	Cell string `json:"cell"`
	UID  uint32 `json:"uid"`
}

// String returns the alias in its text form.
func (a TabletAlias) String() string {
	if a.Cell == "" && a.UID == 0 {
		return ""
	}
	return fmt.Sprintf("%s-%010d", a.Cell, a.UID)
}

// ParseTabletAlias reads a tablet alias in its text form, "<cell>-<uid>":
// the uid is what follows the last dash, with or without leading zeros.
func ParseTabletAlias(s string) (TabletAlias, error) {
	i := strings.LastIndexByte(s, '-')
	if i <= 0 || i == len(s)-1 {
		return TabletAlias{}, fmt.Errorf("tablet alias %q: want <cell>-<uid>", s)
	}
	uid, err := strconv.ParseUint(s[i+1:], 10, 32)
	if err != nil {
		return TabletAlias{}, fmt.Errorf("tablet alias %q: the uid must be a number below 2^32", s)
	}
	return TabletAlias{Cell: s[:i], UID: uint32(uid)}, nil
}

// TabletGroup is the tablets of one type in one shard of a keyspace.
type TabletGroup struct {
	Type     TabletType `json:"type"`
	Keyspace string     `json:"keyspace"`
	Shard    string     `json:"shard"`
	Tablets  []Tablet   `json:"tablets"`
}

// Tablet is one tablet of a branch: a MySQL server and its agent.
type Tablet struct {
	// Alias is the tablet's alias in its text form ("us-east-0000000101");
	// ParseTabletAlias reads it.
	Alias string     `json:"alias"`
	Role  TabletType `json:"role"`
	Cell  string     `json:"cell"`
}

// ListTabletsParams names a branch and filters its tablets.
type ListTabletsParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	// Keyspace keeps the tablets of this keyspace.
	Keyspace string `json:"-" url:"keyspace,omitempty"`
	// Shard keeps the tablets of this shard ("-", "-80"); it needs
	// Keyspace.
	Shard string `json:"-" url:"shard,omitempty"`
	// TabletType keeps the tablets of this type.
	TabletType TabletType `json:"-" url:"tablet_type,omitempty"`
	// TabletAliases keeps the tablets with these aliases; when set, the
	// other filters are ignored.
	TabletAliases []string `json:"-" url:"tablet_alias,comma,omitempty"`
}

// ListTablets returns a branch's tablets grouped by keyspace, shard and
// type: each shard's primary, then its replicas.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/tablets
func (s *VitessService) ListTablets(ctx context.Context, p *ListTabletsParams) ([]*TabletGroup, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch); err != nil {
		return nil, err
	}
	if p.Shard != "" && p.Keyspace == "" {
		return nil, &ArgError{Arg: "shard", Reason: "needs keyspace"}
	}
	var out []*TabletGroup
	err := s.client.get(ctx, vitessPath(p.Organization, p.Database, p.Branch, "/tablets"), p, &out)
	return orNil(out, err)
}

// VitessKeyspaces are the keyspaces of a branch's topology.
type VitessKeyspaces struct {
	// Keyspaces are the keyspaces, by name.
	Keyspaces []*VitessKeyspace `json:"-"`
	// Raw is the whole document: vtctldata.GetKeyspacesResponse in
	// protobuf JSON.
	Raw json.RawMessage `json:"data"`
}

// VitessKeyspace is a keyspace as the cluster's topology holds it.
type VitessKeyspace struct {
	// Name is the keyspace's name.
	Name string
	// DurabilityPolicy is how the keyspace's writes are made durable
	// ("semi_sync", "none").
	DurabilityPolicy string
	// SidecarDBName is the database Vitess keeps its own tables in.
	SidecarDBName string
	// Raw is the whole document: vtctldata.Keyspace in protobuf JSON.
	Raw json.RawMessage
}

// ListVitessKeyspacesParams names a branch and, optionally, one keyspace.
type ListVitessKeyspacesParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	// Name keeps the keyspace of this name.
	Name string `json:"-" url:"name,omitempty"`
}

// ListKeyspaces returns the keyspaces of a branch's topology, by name.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/vtctld/keyspaces
func (s *VitessService) ListKeyspaces(ctx context.Context, p *ListVitessKeyspacesParams) (*VitessKeyspaces, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch); err != nil {
		return nil, err
	}
	out := new(VitessKeyspaces)
	if err := s.client.get(ctx, vitessPath(p.Organization, p.Database, p.Branch, "/vtctld/keyspaces"), p, out); err != nil {
		return nil, err
	}
	var doc struct {
		Keyspaces []json.RawMessage `json:"keyspaces"`
	}
	if err := json.Unmarshal(out.Raw, &doc); err != nil {
		return nil, fmt.Errorf("platform: decoding keyspaces: %w", err)
	}
	for _, raw := range doc.Keyspaces {
		var ks struct {
			Name     string `json:"name"`
			Keyspace struct {
				DurabilityPolicy string `json:"durability_policy"`
				SidecarDBName    string `json:"sidecar_db_name"`
			} `json:"keyspace"`
		}
		if err := json.Unmarshal(raw, &ks); err != nil {
			return nil, fmt.Errorf("platform: decoding keyspaces: %w", err)
		}
		out.Keyspaces = append(out.Keyspaces, &VitessKeyspace{Name: ks.Name, DurabilityPolicy: ks.Keyspace.DurabilityPolicy, SidecarDBName: ks.Keyspace.SidecarDBName, Raw: raw})
	}
	return out, nil
}

// ShardTabletControl is what a shard asks of its tablets of one type:
// the tables they refuse to serve.
type ShardTabletControl struct {
	// TabletType is the type of the tablets it applies to.
	TabletType TabletType
	// Cells are the cells it applies to; empty for all.
	Cells []string
	// DeniedTables are the tables the tablets refuse to serve.
	DeniedTables []string
	// Frozen is true while a migration holds the control.
	Frozen bool
}

// VitessShard is a shard as the cluster's topology holds it.
type VitessShard struct {
	// Keyspace is the shard's keyspace.
	Keyspace string `json:"-"`
	// Name is the shard's key range ("-", "-80", "80-").
	Name string `json:"-"`
	// Primary is the shard's primary tablet; zero when it has none.
	Primary TabletAlias `json:"-"`
	// PrimaryTermStart is when the primary became the primary; nil when
	// the topology does not say.
	PrimaryTermStart *time.Time `json:"-"`
	// IsPrimaryServing is false while the primary's query service is
	// disabled.
	IsPrimaryServing bool `json:"-"`
	// TabletControls are the shard's tablet controls, one per tablet
	// type at most.
	TabletControls []ShardTabletControl `json:"-"`
	// Raw is the whole document in protobuf JSON: vtctldata.Shard for
	// GetShard, vtctldata.SetShardTabletControlResponse (the shard as
	// "shard") for SetShardTabletControl.
	Raw json.RawMessage `json:"data"`
}

// protoShard is topodata.Shard in protobuf JSON.
type protoShard struct {
	PrimaryAlias         *TabletAlias `json:"primary_alias"`
	PrimaryTermStartTime *struct {
		Seconds     json.Number `json:"seconds"`
		Nanoseconds int32       `json:"nanoseconds"`
	} `json:"primary_term_start_time"`
	TabletControls []struct {
		TabletType   string   `json:"tablet_type"`
		Cells        []string `json:"cells"`
		DeniedTables []string `json:"denied_tables"`
		Frozen       bool     `json:"frozen"`
	} `json:"tablet_controls"`
	IsPrimaryServing bool `json:"is_primary_serving"`
}

// fill sets the shard's typed fields from topodata.Shard.
func (ps *protoShard) fill(out *VitessShard) error {
	if ps.PrimaryAlias != nil {
		out.Primary = *ps.PrimaryAlias
	}
	if t := ps.PrimaryTermStartTime; t != nil {
		sec, err := strconv.ParseInt(t.Seconds.String(), 10, 64)
		if err != nil {
			return fmt.Errorf("primary_term_start_time.seconds: %w", err)
		}
		at := time.Unix(sec, int64(t.Nanoseconds)).UTC()
		out.PrimaryTermStart = &at
	}
	out.IsPrimaryServing = ps.IsPrimaryServing
	for _, tc := range ps.TabletControls {
		out.TabletControls = append(out.TabletControls, ShardTabletControl{
			TabletType: TabletType(strings.ToLower(strings.TrimPrefix(tc.TabletType, "TABLET_TYPE_"))), Cells: tc.Cells, DeniedTables: tc.DeniedTables, Frozen: tc.Frozen,
		})
	}
	return nil
}

// GetShardParams names a shard of a branch.
type GetShardParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	Keyspace     string `json:"-" url:"keyspace"`
	// Shard is the shard's key range ("-" for an unsharded keyspace).
	Shard string `json:"-" url:"shard"`
}

// GetShard returns a shard of a branch: its primary, since when, and its
// tablet controls.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/vtctld/shard
func (s *VitessService) GetShard(ctx context.Context, p *GetShardParams) (*VitessShard, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch, "keyspace", p.Keyspace, "shard", p.Shard); err != nil {
		return nil, err
	}
	out := new(VitessShard)
	if err := s.client.get(ctx, vitessPath(p.Organization, p.Database, p.Branch, "/vtctld/shard"), p, out); err != nil {
		return nil, err
	}
	var doc struct {
		Keyspace string     `json:"keyspace"`
		Name     string     `json:"name"`
		Shard    protoShard `json:"shard"`
	}
	if err := json.Unmarshal(out.Raw, &doc); err != nil {
		return nil, fmt.Errorf("platform: decoding shard: %w", err)
	}
	out.Keyspace, out.Name = doc.Keyspace, doc.Name
	if err := doc.Shard.fill(out); err != nil {
		return nil, fmt.Errorf("platform: decoding shard: %w", err)
	}
	return out, nil
}

// SetShardTabletControlParams changes a shard's tablet control of one
// tablet type. At least one of DeniedTables, Remove and
// DisableQueryService is set.
type SetShardTabletControlParams struct {
	Organization string     `json:"-" url:"-"`
	Database     string     `json:"-" url:"-"`
	Branch       string     `json:"-" url:"-"`
	Keyspace     string     `json:"keyspace"`
	Shard        string     `json:"shard"`
	TabletType   TabletType `json:"tablet_type"`
	// Cells limits the change to these cells; empty for all.
	Cells []string `json:"cells,omitempty"`
	// DeniedTables are added to the tables the tablets refuse to serve
	// (or, with Remove, taken from them).
	DeniedTables []string `json:"denied_tables,omitempty"`
	// Remove removes DeniedTables, or the whole control without them.
	Remove *bool `json:"remove,omitempty"`
	// DisableQueryService stops (true) or restarts (false) the query
	// service of the tablets of that type.
	DisableQueryService *bool `json:"disable_query_service,omitempty"`
}

// SetShardTabletControl changes a shard's tablet control and returns the
// shard as it then is.
//
// API: PUT /v1/organizations/{organization}/databases/{database}/branches/{branch}/vtctld/shard/tablet-control
func (s *VitessService) SetShardTabletControl(ctx context.Context, p *SetShardTabletControlParams) (*VitessShard, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch, "keyspace", p.Keyspace, "shard", p.Shard, "tablet_type", string(p.TabletType)); err != nil {
		return nil, err
	}
	out := &VitessShard{}
	if err := s.client.put(ctx, vitessPath(p.Organization, p.Database, p.Branch, "/vtctld/shard/tablet-control"), p, out); err != nil {
		return nil, err
	}
	var doc struct {
		Shard protoShard `json:"shard"`
	}
	if err := json.Unmarshal(out.Raw, &doc); err != nil {
		return nil, fmt.Errorf("platform: decoding shard: %w", err)
	}
	out.Keyspace, out.Name = p.Keyspace, p.Shard
	if err := doc.Shard.fill(out); err != nil {
		return nil, fmt.Errorf("platform: decoding shard: %w", err)
	}
	return out, nil
}

// RefreshStateByShardParams names a shard whose tablets reload their
// records.
type RefreshStateByShardParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	Keyspace     string `json:"keyspace"`
	Shard        string `json:"shard"`
	// Cells limits the refresh to the tablets of these cells; empty for
	// all.
	Cells []string `json:"cells,omitempty"`
}

// RefreshState is the outcome of a refresh of a shard's tablets.
type RefreshState struct {
	// IsPartialRefresh is true when some tablets did not refresh;
	// PartialRefreshDetails says which.
	IsPartialRefresh      bool   `json:"-"`
	PartialRefreshDetails string `json:"-"`
	// Raw is the whole document (vtctldata.RefreshStateByShardResponse).
	Raw json.RawMessage `json:"data"`
}

// RefreshStateByShard has every tablet of a shard (or of its cells
// given) reload its record from the topology.
//
// API: POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/vtctld/shard/refresh-state
func (s *VitessService) RefreshStateByShard(ctx context.Context, p *RefreshStateByShardParams) (*RefreshState, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch, "keyspace", p.Keyspace, "shard", p.Shard); err != nil {
		return nil, err
	}
	out := new(RefreshState)
	if err := s.client.post(ctx, vitessPath(p.Organization, p.Database, p.Branch, "/vtctld/shard/refresh-state"), p, out); err != nil {
		return nil, err
	}
	var doc struct {
		IsPartialRefresh      bool   `json:"is_partial_refresh"`
		PartialRefreshDetails string `json:"partial_refresh_details"`
	}
	if err := json.Unmarshal(out.Raw, &doc); err != nil {
		return nil, fmt.Errorf("platform: decoding refresh state: %w", err)
	}
	out.IsPartialRefresh, out.PartialRefreshDetails = doc.IsPartialRefresh, doc.PartialRefreshDetails
	return out, nil
}
