package fake

import (
	"github.com/dbplatform/platform-go"
)

func branchChangeRoutes() []route {
	return []route{
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/parameters", op: "list_parameters", handler: read(listParameters)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/extensions", op: "list_extensions", handler: read(listExtensions)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/infrastructure", op: "get_branch_infrastructure", handler: read(getBranchInfrastructure)},
	}
}

func listParameters(c *call) (any, error) {
	b := c.branch
	params, r := clusterParams(b.db.kind), newParamRenderer(b)
	out := make([]*platform.ClusterParameter, len(params))
	for i, p := range params {
		out[i] = r.parameter(p)
	}
	return out, nil
}

func listExtensions(c *call) (any, error) {
	b := c.branch
	exts, r := clusterExtensions(b.db.kind), newParamRenderer(b)
	out := make([]*platform.ClusterExtension, len(exts))
	for i, e := range exts {
		out[i] = r.extension(e)
	}
	return out, nil
}

func getBranchInfrastructure(c *call) (any, error) {
	return renderInfrastructure(c.branch), nil
}

// vtgateZones is how many availability zones a branch runs its query
// routers in, vtgate_count in each.
func vtgateZones(b *branchRec) int {
	if b.production {
		return 2
	}
	return 1
}
