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

// listParameters lists a branch's parameters, those of an extension or
// not (extension) and internal ones, which cannot be changed, or not
// (internal), as the service's official client and tool filter them.
func listParameters(c *call) (any, error) {
	q := c.r.URL.Query()
	extension, err := triQuery(q.Get("extension"), "extension")
	if err != nil {
		return nil, err
	}
	internal, err := triQuery(q.Get("internal"), "internal")
	if err != nil {
		return nil, err
	}
	b := c.branch
	params, r := clusterParams(b.db.kind), newParamRenderer(b)
	out := make([]*platform.ClusterParameter, 0, len(params))
	for _, p := range params {
		rp := r.parameter(p)
		if extension != nil && rp.Extension != *extension || internal != nil && rp.Immutable != *internal {
			continue
		}
		out = append(out, rp)
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
