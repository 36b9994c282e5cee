package fake

import (
	"slices"
	"testing"
)

// TestClusterSizesRouterDefaults checks that each cluster size's default
// query router size is one a resize request takes.
func TestClusterSizesRouterDefaults(t *testing.T) {
	t.Parallel()
	for _, s := range clusterSKUs {
		if !slices.Contains(vtgateSizes, s.vtgate) {
			t.Errorf("%s: default router size %q is not one of %v", s.name, s.vtgate, vtgateSizes)
		}
	}
}
