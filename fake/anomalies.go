package fake

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/dbplatform/platform-go"
	"github.com/dbplatform/platform-go/fake/internal/sqltext"
)

// A branch's anomalies are found in its samples, when asked, by one rule:
// the samples of the last 8 days are cut into minutes; a minute is in
// violation when its p99 latency is over 3 times its baseline, the median
// of the p99 latencies of the minutes with samples among the 60 before it
// (at least 10 of them; a minute with fewer has no baseline and is never in
// violation). Consecutive minutes in violation are one anomaly, from the
// start of the first to the end of the last; it is active when its last
// minute is the current one. Its metrics window reaches an hour either side
// (up to now), and its correlations are the queries (by keyspace,
// fingerprint and tablet type) whose mean latency per minute (0 in a
// minute without it) follows the branch's p99 over the minutes of that
// window with queries, with a Pearson r of at least 0.5, highest first, at
// most 10. An anomaly's ID is a hash of its branch and start, so
// the same samples give the same IDs. The list holds the anomalies that
// overlap the window, newest first, without their correlations (null);
// get_branch_anomaly gives them.

// The rule's constants.
const (
	anomalyMinute       = time.Minute
	anomalyBaseline     = 60 // minutes before
	anomalyMinBaseline  = 10 // minutes with samples among them
	anomalyFactor       = 3
	anomalyHorizon      = 8 * 24 * time.Hour
	anomalyMetricsReach = time.Hour
	anomalyMinR         = 0.5
	anomalyMaxCorrelate = 10
)

// anomalyRec is an anomaly found: the minutes [start, end).
type anomalyRec struct {
	id         string
	start, end time.Time
	minutes    int
	active     bool
}

// anomalyRange is the range of minutes the rule looks at on b at now:
// from its earliest sample, at most anomalyHorizon back, to the end of the
// current minute.
func anomalyRange(b *branchRec, now time.Time) (from, to time.Time) {
	from = now.Add(-anomalyHorizon)
	if earliest := slices.MinFunc(b.traffic.all(), func(x, y *querySample) int { return x.at.Compare(y.at) }); earliest.at.After(from) {
		from = earliest.at
	}
	return from.Truncate(anomalyMinute), now.Truncate(anomalyMinute).Add(anomalyMinute)
}

// detectAnomalies finds b's anomalies at now, earliest first.
func detectAnomalies(b *branchRec, now time.Time) []*anomalyRec {
	if len(b.traffic.all()) == 0 {
		return nil
	}
	from, to := anomalyRange(b, now)
	buckets := b.traffic.byBucket(trafficFilter{}, from, to, anomalyMinute)
	p99 := make([]time.Duration, len(buckets))
	for i, bk := range buckets {
		p99[i] = bk.stats.percentile(99)
	}
	var out []*anomalyRec
	var cur *anomalyRec
	for i, bk := range buckets {
		if !anomalous(buckets, p99, i) {
			cur = nil
			continue
		}
		if cur == nil {
			cur = &anomalyRec{start: bk.start, id: sqltext.Fingerprint("anomaly\x00" + b.id + "\x00" + bk.start.Format(time.RFC3339))}
			out = append(out, cur)
		}
		cur.end = bk.start.Add(anomalyMinute)
		cur.minutes++
		cur.active = !cur.end.Before(to)
	}
	return out
}

// anomalous reports whether minute i is in violation.
func anomalous(buckets []trafficBucket, p99 []time.Duration, i int) bool {
	if buckets[i].stats.count == 0 {
		return false
	}
	var base []time.Duration
	for j := max(0, i-anomalyBaseline); j < i; j++ {
		if buckets[j].stats.count > 0 {
			base = append(base, p99[j])
		}
	}
	if len(base) < anomalyMinBaseline {
		return false
	}
	slices.Sort(base)
	median := base[len(base)/2]
	return p99[i] > anomalyFactor*median
}

// metricsWindow is the anomaly's metrics window at now.
func (a *anomalyRec) metricsWindow(now time.Time) (time.Time, time.Time) {
	end := a.end.Add(anomalyMetricsReach)
	if limit := now.Truncate(anomalyMinute).Add(anomalyMinute); end.After(limit) {
		end = limit
	}
	return a.start.Add(-anomalyMetricsReach), end
}

// correlationKey is a query on a tablet type.
type correlationKey struct {
	pattern *queryPattern
	tablet  platform.TabletType
}

// correlations finds the queries correlated with the anomaly.
func (a *anomalyRec) correlations(b *branchRec, now time.Time) []*platform.AnomalyCorrelation {
	from, to := a.metricsWindow(now)
	buckets := b.traffic.byBucket(trafficFilter{}, from, to, anomalyMinute)
	branch := make([]float64, len(buckets))
	for i, bk := range buckets {
		branch[i] = millis(bk.stats.percentile(99))
	}
	sums := map[correlationKey][]float64{}
	counts := map[correlationKey][]int{}
	start := buckets[0].start
	for _, q := range b.traffic.selectSamples(trafficFilter{from: from, to: to}) {
		k := correlationKey{q.pattern, q.tablet}
		if sums[k] == nil {
			sums[k], counts[k] = make([]float64, len(buckets)), make([]int, len(buckets))
		}
		i := int(q.at.Sub(start) / anomalyMinute)
		sums[k][i] += millis(q.duration)
		counts[k][i]++
	}
	// The series are compared over the minutes the branch ran queries in.
	var ran []int
	for i, bk := range buckets {
		if bk.stats.count > 0 {
			ran = append(ran, i)
		}
	}
	var out []*platform.AnomalyCorrelation
	for k, sum := range sums {
		x, y := make([]float64, len(ran)), make([]float64, len(ran))
		for j, i := range ran {
			if n := counts[k][i]; n > 0 {
				x[j] = sum[i] / float64(n)
			}
			y[j] = branch[i]
		}
		r := pearson(x, y)
		if r < anomalyMinR {
			continue
		}
		p := k.pattern
		out = append(out, &platform.AnomalyCorrelation{
			ID: sqltext.Fingerprint(a.id + "\x00" + p.keyspace + "\x00" + p.fingerprint + "\x00" + string(k.tablet)),
			R:  math.Round(r*1000) / 1000, Keyspace: p.keyspace, Fingerprint: p.fingerprint,
			NormalizedSQL: p.normalized, SyntaxHighlightedSQL: syntaxHighlighted(p.normalized), TabletType: k.tablet,
		})
	}
	slices.SortFunc(out, func(x, y *platform.AnomalyCorrelation) int {
		return cmp.Or(cmp.Compare(y.R, x.R), strings.Compare(x.ID, y.ID))
	})
	return out[:min(len(out), anomalyMaxCorrelate)]
}

// pearson is the correlation coefficient of two series of the same
// length; 0 when either is constant.
func pearson(x, y []float64) float64 {
	n := float64(len(x))
	var sx, sy float64
	for i := range x {
		sx += x[i]
		sy += y[i]
	}
	mx, my := sx/n, sy/n
	var cov, vx, vy float64
	for i := range x {
		dx, dy := x[i]-mx, y[i]-my
		cov += dx * dy
		vx += dx * dx
		vy += dy * dy
	}
	if vx == 0 || vy == 0 {
		return 0
	}
	return cov / math.Sqrt(vx*vy)
}

// renderAnomaly renders an anomaly; with correlations, those too.
func renderAnomaly(a *anomalyRec, now time.Time, correlations []*platform.AnomalyCorrelation) *platform.Anomaly {
	ms, me := a.metricsWindow(now)
	return &platform.Anomaly{
		ID: a.id, PeriodStart: platform.NewTimestamp(a.start), PeriodEnd: platform.NewTimestamp(a.end),
		MinutesInViolation: a.minutes, Active: a.active, Duration: a.end.Sub(a.start).Seconds(),
		MetricsStart: platform.NewTimestamp(ms), MetricsEnd: platform.NewTimestamp(me), Correlations: correlations,
	}
}

func listBranchAnomalies(c *call) (any, error) {
	f, err := c.insightsWindow()
	if err != nil {
		return nil, err
	}
	var list []*anomalyRec
	for _, a := range detectAnomalies(c.branch, c.now) {
		if (f.to.IsZero() || a.start.Before(f.to)) && (f.from.IsZero() || a.end.After(f.from)) {
			list = append(list, a)
		}
	}
	slices.Reverse(list)
	return slicePageOf(c, list, false, func(a *anomalyRec) *platform.Anomaly { return renderAnomaly(a, c.now, nil) }), nil
}

func getBranchAnomaly(c *call) (any, error) {
	b := c.branch
	id := c.r.PathValue("id")
	for _, a := range detectAnomalies(b, c.now) {
		if a.id == id {
			return renderAnomaly(a, c.now, append([]*platform.AnomalyCorrelation{}, a.correlations(b, c.now)...)), nil
		}
	}
	return nil, notFound()
}
