package platform

import "context"

// StorageCheck says whether the cluster a deploy request deploys into has
// the storage its schema changes need: an online change of a table
// copies it.
type StorageCheck struct {
	EnoughStorage bool `json:"enough_storage"`
	// Upgradeable is whether a larger cluster size offers more storage.
	Upgradeable bool `json:"upgradeable"`
	// StorageBytesNeeded is the additional storage the deployment needs,
	// over all shards.
	StorageBytesNeeded int64 `json:"storage_bytes_needed"`
	// StorageReport holds each shard's storage, by keyspace and shard
	// name.
	StorageReport map[string]map[string]*ShardStorage `json:"storage_report"`
}

// ShardStorage is the storage of one shard, in bytes.
type ShardStorage struct {
	Used           int64   `json:"used"`
	Capacity       int64   `json:"capacity"`
	Remaining      int64   `json:"remaining"`
	PercentageUsed float64 `json:"percentage_used"`
	StorageNeeded  int64   `json:"storage_needed"`
	HasEnough      bool    `json:"has_enough"`
}

// CheckDeployRequestStorageParams names a deploy request.
type CheckDeployRequestStorageParams = DeployRequestParams

// CheckStorage checks whether the branch a deploy request deploys into has
// the storage its deployment needs.
//
// API: GET /v1/organizations/{organization}/databases/{database}/deploy-requests/{number}/storage-check
func (s *DeployRequestsService) CheckStorage(ctx context.Context, p *CheckDeployRequestStorageParams) (*StorageCheck, error) {
	return callOn[StorageCheck](ctx, s.client, "GET", p, "/storage-check", nil, nil)
}
