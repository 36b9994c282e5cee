package fake

import (
	"slices"
	"strings"

	"github.com/dbplatform/platform-go"
)

// Throttler ratios. A database's are for the keyspaces of its default
// branch; a deploy request's for the keyspaces of the branch it deploys
// into, each its own where set and else the database's (0 where neither
// is). Records keep the ratios set, by keyspace name; a keyspace that has
// gone keeps its ratio until it comes back. A closed deploy request keeps
// the ratios it ended with, whatever its database's become.

func throttlerRoutes() []route {
	return []route{
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/throttler", op: "get_database_throttler", handler: read(getDatabaseThrottler)},
		{pattern: "PATCH /v1/organizations/{organization}/databases/{database}/throttler", op: "update_database_throttler", handler: withBody(updateDatabaseThrottler)},
		{pattern: "GET /v1/organizations/{organization}/databases/{database}/deploy-requests/{number}/throttler", op: "get_deploy_request_throttler", handler: read(getDeployRequestThrottler)},
		{pattern: "PATCH /v1/organizations/{organization}/databases/{database}/deploy-requests/{number}/throttler", op: "update_deploy_request_throttler", handler: withBody(updateDeployRequestThrottler)},
	}
}

func getDatabaseThrottler(c *call) (any, error) {
	return renderDatabaseThrottler(c.db), nil
}

func updateDatabaseThrottler(c *call, p *platform.UpdateDatabaseThrottlerParams) (any, error) {
	ratios, err := setRatios(c.db.ratiosSet(), c.db.throttleKeyspaces(), &p.UpdateThrottlerFields)
	if err != nil {
		return nil, err
	}
	c.db.extras().throttle = ratios
	return renderDatabaseThrottler(c.db), nil
}

func getDeployRequestThrottler(c *call) (any, error) {
	dr, err := c.deployRequest()
	if err != nil {
		return nil, err
	}
	return renderDRThrottler(dr), nil
}

func updateDeployRequestThrottler(c *call, p *platform.UpdateDeployRequestThrottlerParams) (any, error) {
	dr, err := c.deployRequest()
	if err != nil {
		return nil, err
	}
	if !dr.open {
		return nil, unprocessable("deploy request #%d is closed; its throttler ratios can no longer change", dr.number)
	}
	ratios, err := setRatios(dr.throttle, dr.throttleKeyspaces(), &p.UpdateThrottlerFields)
	if err != nil {
		return nil, err
	}
	dr.throttle = ratios
	return renderDRThrottler(dr), nil
}

// setRatios checks an update against the eligible keyspaces and returns
// the ratios set after it, leaving set as it is: ratio sets every eligible
// keyspace, then configurations set the keyspaces they name.
func setRatios(set []platform.ThrottlerConfiguration, eligible []string, p *platform.UpdateThrottlerFields) ([]platform.ThrottlerConfiguration, error) {
	if p.Ratio != nil {
		if err := checkRatio("ratio", *p.Ratio); err != nil {
			return nil, err
		}
	}
	named := map[string]bool{}
	for i, conf := range p.Configurations {
		field := "configurations[" + itoa(i) + "]"
		switch {
		case conf.KeyspaceName == "":
			return nil, unprocessable("%s.keyspace_name is required", field)
		case !slices.Contains(eligible, conf.KeyspaceName):
			return nil, unprocessable("%s.keyspace_name: keyspace %q is not eligible; eligible keyspaces: %s", field, conf.KeyspaceName, strings.Join(eligible, ", "))
		case named[conf.KeyspaceName]:
			return nil, unprocessable("%s.keyspace_name: keyspace %q is named twice", field, conf.KeyspaceName)
		}
		if err := checkRatio(field+".ratio", conf.Ratio); err != nil {
			return nil, err
		}
		named[conf.KeyspaceName] = true
	}
	out := append([]platform.ThrottlerConfiguration(nil), set...)
	put := func(ks string, ratio int) {
		for i := range out {
			if out[i].KeyspaceName == ks {
				out[i].Ratio = ratio
				return
			}
		}
		out = append(out, platform.ThrottlerConfiguration{KeyspaceName: ks, Ratio: ratio})
	}
	if p.Ratio != nil {
		for _, ks := range eligible {
			put(ks, *p.Ratio)
		}
	}
	for _, conf := range p.Configurations {
		put(conf.KeyspaceName, conf.Ratio)
	}
	return out, nil
}

// checkRatio refuses a ratio outside 0 to MaxThrottlerRatio.
func checkRatio(field string, ratio int) error {
	if ratio < 0 || ratio > platform.MaxThrottlerRatio {
		return unprocessable("%s must be between 0 and %d, got %d", field, platform.MaxThrottlerRatio, ratio)
	}
	return nil
}

// ratioOf is keyspace ks's ratio in set, and whether set has one.
func ratioOf(set []platform.ThrottlerConfiguration, ks string) (int, bool) {
	for _, conf := range set {
		if conf.KeyspaceName == ks {
			return conf.Ratio, true
		}
	}
	return 0, false
}

// keyspaceNames names a branch's keyspaces, in its order; none for a
// missing branch.
func keyspaceNames(b *branchRec) []string {
	names := []string{}
	if b == nil {
		return names
	}
	for _, ks := range b.keyspaces.All() {
		names = append(names, ks.name)
	}
	return names
}

// throttleKeyspaces are the keyspaces a database's ratios are for.
func (db *dbRec) throttleKeyspaces() []string { return keyspaceNames(db.branch(db.defaultBranch)) }

// throttleKeyspaces are the keyspaces a deploy request's ratios are for.
func (dr *drRec) throttleKeyspaces() []string { return keyspaceNames(dr.into) }

// ratios are the effective ratios of the eligible keyspaces: each one's
// own, else fallback's, else 0.
func ratios(eligible []string, own, fallback []platform.ThrottlerConfiguration) []platform.ThrottlerConfiguration {
	out := make([]platform.ThrottlerConfiguration, 0, len(eligible))
	for _, ks := range eligible {
		r, ok := ratioOf(own, ks)
		if !ok {
			r, _ = ratioOf(fallback, ks)
		}
		out = append(out, platform.ThrottlerConfiguration{KeyspaceName: ks, Ratio: r})
	}
	return out
}

// ratios are a deploy request's effective ratios.
func (dr *drRec) ratios() []platform.ThrottlerConfiguration {
	if !dr.open {
		return ratios(dr.throttleKeyspaces(), dr.throttle, nil)
	}
	return ratios(dr.throttleKeyspaces(), dr.throttle, dr.db.ratiosSet())
}

// freezeRatios keeps a closing deploy request's effective ratios as its
// own, so that later changes of its database's do not reach it.
func (dr *drRec) freezeRatios() {
	dr.throttle = ratios(dr.throttleKeyspaces(), dr.throttle, dr.db.ratiosSet())
}

func renderDatabaseThrottler(db *dbRec) *platform.ThrottlerConfigurations {
	eligible := db.throttleKeyspaces()
	return &platform.ThrottlerConfigurations{
		Keyspaces: eligible,
		Configurable: platform.ThrottlerConfigurable{
			ID: db.id, Name: db.name, CreatedAt: platform.NewTimestamp(db.created), UpdatedAt: platform.NewTimestamp(db.updated),
		},
		Configurations: ratios(eligible, db.ratiosSet(), nil),
	}
}

// renderDRThrottler renders a deploy request's ratios; its name is the
// branch it deploys from, as a deploy request has no name of its own.
func renderDRThrottler(dr *drRec) *platform.ThrottlerConfigurations {
	return &platform.ThrottlerConfigurations{
		Keyspaces: dr.throttleKeyspaces(),
		Configurable: platform.ThrottlerConfigurable{
			ID: dr.id, Name: dr.head.name, CreatedAt: platform.NewTimestamp(dr.created), UpdatedAt: platform.NewTimestamp(dr.updated),
		},
		Configurations: dr.ratios(),
	}
}
