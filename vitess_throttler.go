package platform

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The tablet throttler of a keyspace: how the tablets pace background
// work (online schema changes, VReplication) by their metrics, such as
// replication lag. Its configuration is per keyspace; status and checks
// are asked of one tablet, named by its alias (see
// [VitessService.ListTablets]).

// ThrottledApp is the rule of a throttled app.
type ThrottledApp struct {
	// Name is the app ("online-ddl", "vreplication", or "all" for every
	// app).
	Name string `json:"name"`
	// Ratio is the share of the app's checks denied, 0 to 1.
	Ratio float64 `json:"ratio"`
	// ExpiresAt is when the rule stops; nil when it lasts until changed.
	ExpiresAt *time.Time `json:"expires_at"`
	// Exempt apps are never throttled.
	Exempt bool `json:"exempt"`
}

// ThrottlerStatus is the tablet throttler as one tablet sees it.
type ThrottlerStatus struct {
	// TabletAlias is the tablet's alias in its text form.
	TabletAlias string `json:"-"`
	Keyspace    string `json:"-"`
	Shard       string `json:"-"`
	// IsLeader is true for the shard's primary, which checks the shard's
	// metrics for the others.
	IsLeader  bool `json:"-"`
	IsOpen    bool `json:"-"`
	IsEnabled bool `json:"-"`
	// DefaultThreshold is the threshold of the default metric
	// (MetricNameUsedAsDefault: replication lag, in seconds).
	DefaultThreshold        float64 `json:"-"`
	MetricNameUsedAsDefault string  `json:"-"`
	// Metrics are the metrics' values by scoped name ("self/lag",
	// "shard/loadavg"), and Thresholds their thresholds by name ("lag").
	Metrics    map[string]float64 `json:"-"`
	Thresholds map[string]float64 `json:"-"`
	// ThrottledApps are the rules in force, by app name.
	ThrottledApps []ThrottledApp `json:"-"`
	// AppCheckedMetrics are the metrics assigned to apps, by app.
	AppCheckedMetrics map[string][]string `json:"-"`
	// Raw is the whole document: vtctldata.GetThrottlerStatusResponse in
	// protobuf JSON.
	Raw json.RawMessage `json:"data"`
}

// protoTimeJSON is vttime.Time in protobuf JSON.
type protoTimeJSON struct {
	Seconds     json.Number `json:"seconds"`
	Nanoseconds int32       `json:"nanoseconds"`
}

// time reads t; nil for none.
func (t *protoTimeJSON) time() (*time.Time, error) {
	if t == nil {
		return nil, nil
	}
	sec, err := strconv.ParseInt(cmp.Or(t.Seconds.String(), "0"), 10, 64)
	if err != nil {
		return nil, fmt.Errorf("seconds: %w", err)
	}
	at := time.Unix(sec, int64(t.Nanoseconds)).UTC()
	return &at, nil
}

// UnmarshalJSON reads the envelope {"data": ...} and the status in it.
func (st *ThrottlerStatus) UnmarshalJSON(b []byte) error {
	if err := nilTarget(st); err != nil {
		return err
	}
	data, err := vtctldEnvelope(b)
	if err != nil {
		return err
	}
	var doc struct {
		Status struct {
			TabletAlias             string  `json:"tablet_alias"`
			Keyspace                string  `json:"keyspace"`
			Shard                   string  `json:"shard"`
			IsLeader                bool    `json:"is_leader"`
			IsOpen                  bool    `json:"is_open"`
			IsEnabled               bool    `json:"is_enabled"`
			DefaultThreshold        float64 `json:"default_threshold"`
			MetricNameUsedAsDefault string  `json:"metric_name_used_as_default"`
			AggregatedMetrics       map[string]struct {
				Value float64 `json:"value"`
			} `json:"aggregated_metrics"`
			MetricThresholds map[string]float64 `json:"metric_thresholds"`
			ThrottledApps    map[string]struct {
				Name      string         `json:"name"`
				Ratio     float64        `json:"ratio"`
				ExpiresAt *protoTimeJSON `json:"expires_at"`
				Exempt    bool           `json:"exempt"`
			} `json:"throttled_apps"`
			AppCheckedMetrics map[string]string `json:"app_checked_metrics"`
		} `json:"status"`
	}
	if err := decodeVtctld(data, &doc, "throttler status"); err != nil {
		return err
	}
	s := doc.Status
	*st = ThrottlerStatus{
		TabletAlias: s.TabletAlias, Keyspace: s.Keyspace, Shard: s.Shard, IsLeader: s.IsLeader, IsOpen: s.IsOpen, IsEnabled: s.IsEnabled,
		DefaultThreshold: s.DefaultThreshold, MetricNameUsedAsDefault: s.MetricNameUsedAsDefault, Thresholds: s.MetricThresholds, Raw: data,
	}
	for name, m := range s.AggregatedMetrics {
		if st.Metrics == nil {
			st.Metrics = map[string]float64{}
		}
		st.Metrics[name] = m.Value
	}
	for _, name := range slices.Sorted(maps.Keys(s.ThrottledApps)) {
		a := s.ThrottledApps[name]
		at, err := a.ExpiresAt.time()
		if err != nil {
			return fmt.Errorf("platform: decoding throttler status: throttled_apps.%s.expires_at: %w", name, err)
		}
		st.ThrottledApps = append(st.ThrottledApps, ThrottledApp{Name: cmp.Or(a.Name, name), Ratio: a.Ratio, ExpiresAt: at, Exempt: a.Exempt})
	}
	for app, ms := range s.AppCheckedMetrics {
		if st.AppCheckedMetrics == nil {
			st.AppCheckedMetrics = map[string][]string{}
		}
		st.AppCheckedMetrics[app] = strings.Split(ms, ",")
	}
	return nil
}

// GetThrottlerStatusParams names a tablet of a branch.
type GetThrottlerStatusParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	// TabletAlias is the tablet's alias in its text form, as ListTablets
	// gives it.
	TabletAlias string `json:"-" url:"tablet_alias"`
}

// GetThrottlerStatus returns the tablet throttler's status on one tablet:
// its keyspace's configuration and the tablet's metrics.
//
// API: GET /v1/organizations/{organization}/databases/{database}/branches/{branch}/vtctld/throttler/status
func (s *VitessService) GetThrottlerStatus(ctx context.Context, p *GetThrottlerStatusParams) (*ThrottlerStatus, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch, "tablet_alias", p.TabletAlias); err != nil {
		return nil, err
	}
	out := new(ThrottlerStatus)
	return orNil(out, s.client.get(ctx, vitessPath(p.Organization, p.Database, p.Branch, "/vtctld/throttler/status"), p, out))
}

// The answers of a throttler check (ThrottlerCheck.ResponseCode).
const (
	ThrottlerCheckOK                = "OK"
	ThrottlerCheckThresholdExceeded = "THRESHOLD_EXCEEDED"
	ThrottlerCheckAppDenied         = "APP_DENIED"
	ThrottlerCheckUnknownMetric     = "UNKNOWN_METRIC"
	ThrottlerCheckInternalError     = "INTERNAL_ERROR"
)

// ThrottlerCheck is a throttler's answer to an app: may it go on now?
type ThrottlerCheck struct {
	// TabletAlias is the tablet that answered.
	TabletAlias TabletAlias `json:"-"`
	// OK is true when the app may go on.
	OK bool `json:"-"`
	// ResponseCode is one of the ThrottlerCheck constants; StatusCode its
	// HTTP equivalent (200, 429, 417, ...).
	ResponseCode string `json:"-"`
	StatusCode   int    `json:"-"`
	// Value and Threshold are the deciding metric's.
	Value     float64 `json:"-"`
	Threshold float64 `json:"-"`
	// AppName is the app (or the rule's app) the answer is for.
	AppName string `json:"-"`
	// Message says why the app was denied; Summary says it in a sentence.
	Message string `json:"-"`
	Summary string `json:"-"`
	// Metrics are the metrics checked, by name.
	Metrics map[string]ThrottlerCheckMetric `json:"-"`
	// Raw is the whole document: vtctldata.CheckThrottlerResponse in
	// protobuf JSON.
	Raw json.RawMessage `json:"data"`
}

// ThrottlerCheckMetric is the answer of one metric of a check.
type ThrottlerCheckMetric struct {
	ResponseCode string  `json:"response_code"`
	StatusCode   int     `json:"status_code"`
	Value        float64 `json:"value"`
	Threshold    float64 `json:"threshold"`
	// Scope is "self" (the tablet) or "shard" (the highest of its shard).
	Scope   string `json:"scope"`
	Message string `json:"message"`
}

// UnmarshalJSON reads the envelope {"data": ...} and the check in it.
func (c *ThrottlerCheck) UnmarshalJSON(b []byte) error {
	if err := nilTarget(c); err != nil {
		return err
	}
	data, err := vtctldEnvelope(b)
	if err != nil {
		return err
	}
	type check struct {
		ResponseCode string                          `json:"response_code"`
		StatusCode   int                             `json:"status_code"`
		Value        float64                         `json:"value"`
		Threshold    float64                         `json:"threshold"`
		Message      string                          `json:"message"`
		AppName      string                          `json:"app_name"`
		Summary      string                          `json:"summary"`
		Metrics      map[string]ThrottlerCheckMetric `json:"metrics"`
	}
	var doc struct {
		TabletAlias *TabletAlias `json:"tablet_alias"`
		Check       *check       `json:"Check"`
	}
	if err := decodeVtctld(data, &doc, "throttler check"); err != nil {
		return err
	}
	*c = ThrottlerCheck{Raw: data}
	if doc.TabletAlias != nil {
		c.TabletAlias = *doc.TabletAlias
	}
	if k := doc.Check; k != nil {
		c.ResponseCode, c.StatusCode, c.Value, c.Threshold = k.ResponseCode, k.StatusCode, k.Value, k.Threshold
		c.AppName, c.Message, c.Summary, c.Metrics = k.AppName, k.Message, k.Summary, k.Metrics
		c.OK = k.ResponseCode == ThrottlerCheckOK || (k.ResponseCode == "" && k.StatusCode == 200)
	}
	return nil
}

// CheckThrottlerParams asks a tablet's throttler whether an app may go on.
type CheckThrottlerParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	// TabletAlias is the tablet to ask, in its text form.
	TabletAlias string `json:"tablet_alias"`
	// AppName is the app to check for ("online-ddl"); the throttler's
	// default app ("vitess") when nil.
	AppName *string `json:"app_name,omitempty"`
	// Scope is "self" (the tablet's own metrics) or "shard" (the highest
	// of its shard's); each metric's default when nil.
	Scope *string `json:"scope,omitempty"`
	// SkipRequestHeartbeats asks the check not to renew the throttler's
	// heartbeat lease.
	SkipRequestHeartbeats *bool `json:"skip_request_heartbeats,omitempty"`
	// OKIfNotExists answers OK for a metric the tablet does not have.
	OKIfNotExists *bool `json:"ok_if_not_exists,omitempty"`
}

// CheckThrottler asks a tablet's throttler whether an app may go on now:
// [ThrottlerCheck.OK] is the answer, the metrics say why.
//
// API: POST /v1/organizations/{organization}/databases/{database}/branches/{branch}/vtctld/throttler/check
func (s *VitessService) CheckThrottler(ctx context.Context, p *CheckThrottlerParams) (*ThrottlerCheck, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch, "tablet_alias", p.TabletAlias); err != nil {
		return nil, err
	}
	out := new(ThrottlerCheck)
	return orNil(out, s.client.post(ctx, vitessPath(p.Organization, p.Database, p.Branch, "/vtctld/throttler/check"), p, out))
}

// ThrottledAppConfig throttles an app.
type ThrottledAppConfig struct {
	// Name is the app to throttle ("online-ddl", "vreplication", an
	// online DDL migration's UUID, or "all").
	Name string `json:"name"`
	// Ratio is the share of the app's checks to deny, 0 to 1 in steps of
	// 0.01; 1 (every check) when nil.
	Ratio *float64 `json:"ratio,omitempty"`
	// ExpireAt is when the rule ends, in RFC 3339
	// (t.Format(time.RFC3339)), in the future; empty for a rule that
	// lasts until changed.
	ExpireAt string `json:"expire_at,omitempty"`
}

// UpdateThrottlerConfigParams changes a keyspace's tablet throttler. At
// least one of Enabled, Threshold, Apps, UnthrottleApps and
// AppCheckedMetrics is set; what is not set stays as it is.
type UpdateThrottlerConfigParams struct {
	Organization string `json:"-" url:"-"`
	Database     string `json:"-" url:"-"`
	Branch       string `json:"-" url:"-"`
	Keyspace     string `json:"keyspace"`
	// Enabled turns the throttler on or off.
	Enabled *bool `json:"enabled,omitempty"`
	// Threshold is the replication lag, in seconds, above which the
	// throttler denies; at least 0, and 0 leaves it as it is.
	Threshold *float64 `json:"threshold,omitempty"`
	// Apps are rules to set, each replacing the app's.
	Apps []ThrottledAppConfig `json:"apps,omitempty"`
	// UnthrottleApps are apps whose rules to remove.
	UnthrottleApps []string `json:"unthrottle_apps,omitempty"`
	// AppCheckedMetrics assigns metrics to apps ({"online-ddl": {"lag",
	// "shard/loadavg"}}); an empty list removes an app's.
	AppCheckedMetrics map[string][]string `json:"app_checked_metrics,omitempty"`
}

// ThrottlerConfigUpdate is the answer to an update of a throttler's
// configuration, which Vitess leaves empty: read the result with
// [VitessService.GetThrottlerStatus].
type ThrottlerConfigUpdate struct {
	// Raw is the whole document: vtctldata.UpdateThrottlerConfigResponse
	// in protobuf JSON.
	Raw json.RawMessage `json:"data"`
}

// UpdateThrottlerConfig changes a keyspace's tablet throttler; its
// tablets' status and checks show the change at once.
//
// API: PUT /v1/organizations/{organization}/databases/{database}/branches/{branch}/vtctld/throttler/config
func (s *VitessService) UpdateThrottlerConfig(ctx context.Context, p *UpdateThrottlerConfigParams) (*ThrottlerConfigUpdate, error) {
	p = orZero(p)
	if err := required("organization", p.Organization, "database", p.Database, "branch", p.Branch, "keyspace", p.Keyspace); err != nil {
		return nil, err
	}
	out := new(ThrottlerConfigUpdate)
	return orNil(out, s.client.put(ctx, vitessPath(p.Organization, p.Database, p.Branch, "/vtctld/throttler/config"), p, out))
}
