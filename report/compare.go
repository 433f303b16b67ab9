package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/rlbench/rlbench/result"
)

// Tolerances are how much a noisy figure may move before a comparison
// calls it a regression, as fractions: latency, server cost and memory may
// grow by theirs (0.25 = +25%), closed-loop throughput may fall by its own.
type Tolerances struct {
	P50              float64
	P99              float64
	UsecPerCall      float64
	BytesPerIdentity float64
	Throughput       float64
	// Given marks the tolerances the caller chose ("p50", "p99",
	// "throughput"). A run compared without repetitions on both sides has
	// no spread to tell noise from change, so latency and throughput are
	// then judged only on order-of-magnitude changes, unless given.
	Given map[string]bool
}

// DefaultTolerances: p50 +15%, p99 +25%, server cost +25%, bytes/identity
// +5%, closed-loop throughput -20%.
var DefaultTolerances = Tolerances{P50: 0.15, P99: 0.25, UsecPerCall: 0.25, BytesPerIdentity: 0.05, Throughput: 0.20}

// OrderOfMagnitude is the tolerance latency and throughput get when a run
// was not repeated on both sides: ten times the baseline (or a tenth of
// it, for throughput).
const OrderOfMagnitude = 9.0

// Comparison verdicts for one metric of one run.
const (
	Same         = "ok"
	Improved     = "improved"
	Regressed    = "REGRESSED"
	WithinSpread = "within spread"
	NotMeasured  = "n/a"
	// NotJudged marks an absolute figure whose calibrated counterpart (a
	// relative.* figure both sides have) is judged instead; it is shown
	// for people, with --all.
	NotJudged = "info"
)

// metric is one figure a comparison checks. A correctness metric must not
// grow at all; a noisy one may move by its tolerance. A correctness metric
// that depends on timing (timingDependent) may still move within what the
// repetitions of both results showed: how far a bucket or a fixed window
// lets one identity past the policy depends on when, to the millisecond, a
// burst's requests were decided, while a broken limiter raises it in every
// repetition.
type metric struct {
	path            string
	exact           bool
	timingDependent bool
	tolerance       func(Tolerances) float64
	// given names the tolerance in Tolerances.Given; a metric with one is
	// judged on order-of-magnitude changes between single runs.
	given string
	// lowerIsWorse: the figure regresses when it falls (throughput).
	lowerIsWorse bool
	// closedLoop: only closed-loop runs have the figure worth comparing.
	closedLoop bool
	// calibratedBy is the relative.* figure judged instead of this one when
	// both sides have it.
	calibratedBy string
	// tail: a tail percentile, compared only over minTailSamples requests.
	tail bool
	// scheduled: the figure follows the arrivals, so it is compared only
	// where they are scheduled (open loop); in a closed loop they follow
	// the machine's speed.
	scheduled bool
	// measured says zero is no figure: a time, a rate or a ratio above
	// zero whenever it was measured (a run that sent nothing has no
	// latency, a limiter whose cost was not measured no cost ratio).
	measured bool
	// spread is how far the figure moved within one run by noise alone,
	// as a fraction of it, when the run measured that.
	spread func(*result.Run) (float64, bool)
	// slack, for a timing-dependent figure that is not a count, is how far
	// it may rise by timing alone (timingSlack otherwise).
	slack func(base, cur *result.Run, baseline float64) float64
}

// minTailSamples is the fewest requests (in one repetition) whose p99 is
// compared: below it, the p99 is the latency of a handful of requests, and
// one pause of the machine moves it tenfold.
const minTailSamples = 1000

// SingleTail is the tolerance a p99 gets between single runs of fewer than
// ten times minTailSamples requests: thirty times the baseline. Such a
// p99 rests on a few tens of requests, and back-to-back runs of
// profiles/smoke.yaml (1,000 requests a run) on a quiet 2-core machine
// moved it up to 16-fold (relative to the reference measured in the same
// run); an order of magnitude is not enough to tell a change from the
// machine there.
const SingleTail = 29.0

var compareMetrics = []metric{
	{path: "audit.overshoot", exact: true},
	{path: "audit.policy_excess", exact: true, timingDependent: true, scheduled: true},
	{path: "audit.model_mismatches", exact: true},
	{path: "accuracy.false_admit_share", exact: true, timingDependent: true, scheduled: true, slack: shareSlack},
	{path: "accuracy.false_deny_share", exact: true, timingDependent: true, scheduled: true, slack: shareSlack},
	{path: "memory.keys_without_ttl", exact: true},
	{path: "relative.latency_p50", tolerance: func(t Tolerances) float64 { return t.P50 }, given: "p50", measured: true},
	{path: "relative.latency_p99", tolerance: func(t Tolerances) float64 { return t.P99 }, given: "p99", tail: true, measured: true},
	{path: "relative.server_cost", tolerance: func(t Tolerances) float64 { return t.UsecPerCall }, measured: true, spread: serverCostSpread},
	{path: "relative.throughput", tolerance: func(t Tolerances) float64 { return t.Throughput }, given: "throughput", lowerIsWorse: true, closedLoop: true, measured: true},
	{path: "latency_us.p50", tolerance: func(t Tolerances) float64 { return t.P50 }, given: "p50", calibratedBy: "relative.latency_p50", measured: true},
	{path: "latency_us.p99", tolerance: func(t Tolerances) float64 { return t.P99 }, given: "p99", calibratedBy: "relative.latency_p99", tail: true, measured: true},
	{path: "server.usec_per_call", tolerance: func(t Tolerances) float64 { return t.UsecPerCall }, calibratedBy: "relative.server_cost", measured: true},
	{path: "rate.achieved_per_s", tolerance: func(t Tolerances) float64 { return t.Throughput }, given: "throughput",
		lowerIsWorse: true, closedLoop: true, calibratedBy: "relative.throughput", measured: true},
	{path: "memory.bytes_per_identity", tolerance: func(t Tolerances) float64 { return t.BytesPerIdentity }},
}

// spreadWidths is how many of its measured spreads a figure may move
// between two runs: the spreads of the two added as independent noise
// (the root of the sum of their squares), twice. A run's rounds share
// what runs do not (where the server's threads ran, what else ran on the
// machine), so one run's median moves from the next run's about as far as
// one round's figure from the next round's.
const spreadWidths = 2

// serverCostSpread is the interquartile range of the rounds' cost ratios
// over the ratio.
func serverCostSpread(r *result.Run) (float64, bool) {
	rel := r.Relative
	if rel == nil || rel.ServerCost <= 0 || rel.ServerCostHigh < rel.ServerCostLow || rel.ServerCostLow <= 0 {
		return 0, false
	}
	return (rel.ServerCostHigh - rel.ServerCostLow) / rel.ServerCost, true
}

// spreadTolerance is how far a figure may move between two runs by the
// spreads they measured: false unless both measured one.
func spreadTolerance(m metric, base, cur *result.Run) (float64, bool) {
	if m.spread == nil {
		return 0, false
	}
	sb, okb := m.spread(base)
	sc, okc := m.spread(cur)
	if !okb || !okc {
		return 0, false
	}
	return spreadWidths * math.Hypot(sb, sc), true
}

// CompareRow is one metric of one run, baseline against current.
type CompareRow struct {
	Run      string  `json:"run"`
	Metric   string  `json:"metric"`
	Baseline float64 `json:"baseline"`
	Current  float64 `json:"current"`
	// Ratio is current/baseline; 0 when the baseline is 0.
	Ratio   float64 `json:"ratio"`
	Verdict string  `json:"verdict"`
	// Allowed says how far the metric may move ("+25%", "-20%", "none").
	Allowed string `json:"allowed"`
	// Tolerance is how far a noisy figure may grow before it counts as a
	// regression, as a fraction (0.25 = +25%); 0 for an exact figure or
	// one not judged.
	Tolerance float64 `json:"tolerance,omitempty"`
	Note      string  `json:"note,omitempty"`
	// Missing names the side that did not measure the figure ("baseline",
	// "current" or "both"); its value is then no figure at all.
	Missing string `json:"missing,omitempty"`
}

// shown is the row's baseline and current value as printed: "-" for a
// side that did not measure it.
func (r CompareRow) shown() (base, cur string) {
	base, cur = FormatFieldValue(r.Metric, r.Baseline), FormatFieldValue(r.Metric, r.Current)
	if r.Missing == "baseline" || r.Missing == "both" {
		base = "-"
	}
	if r.Missing == "current" || r.Missing == "both" {
		cur = "-"
	}
	return base, cur
}

// changed reports whether the row is worth a line by default: a figure
// that moved, not one unchanged, shown only for people, or not comparable.
func (r CompareRow) changed() bool {
	return r.Verdict != Same && r.Verdict != NotJudged && r.Verdict != NotMeasured
}

// Comparison is a baseline result against a current one.
type Comparison struct {
	Baseline string       `json:"baseline"`
	Current  string       `json:"current"`
	Rows     []CompareRow `json:"rows"`
	// Warnings say what makes the two results less comparable: different
	// profiles, policies, hosts or servers, no repetitions.
	Warnings []string `json:"warnings"`
	// MissingInCurrent are baseline runs the current result lacks (a
	// regression, coverage was lost, unless the current result is
	// incomplete); MissingInBaseline are new runs.
	MissingInCurrent  []string `json:"missing_in_current"`
	MissingInBaseline []string `json:"missing_in_baseline"`
	Regressed         bool     `json:"regressed"`
	// Incomplete says why either result, or a run of one, covers only part
	// of what it set out to measure: then the comparison cannot say "no
	// regression", only what regressed among the figures both measured.
	// Empty when both are complete.
	Incomplete []string `json:"incomplete"`
	// Detectable is, per limiter whose server cost both results measured,
	// the smallest slowdown of its decisions on the server this comparison
	// shows as a regression: one plus the least tolerance its runs'
	// relative.server_cost got (the figure a change of the script moves
	// in every run alike).
	Detectable []Detectable `json:"detectable"`
}

// Detectable is the smallest slowdown of one limiter's server time per
// decision that a comparison shows as a regression: Factor (1.3 = 30%
// slower) on the run whose tolerance was the least.
type Detectable struct {
	Algorithm string  `json:"algorithm"`
	Factor    float64 `json:"factor"`
	Run       string  `json:"run"`
}

// detectable gathers, per algorithm, the least tolerance of the rows of
// metric, in the order the algorithms first appear.
func detectable(rows []CompareRow, algorithmOf map[string]string, metric string) []Detectable {
	out := []Detectable{}
	at := map[string]int{}
	for _, r := range rows {
		if r.Metric != metric || r.Tolerance <= 0 || r.Verdict == NotMeasured || r.Verdict == NotJudged {
			continue
		}
		alg := algorithmOf[r.Run]
		i, ok := at[alg]
		if !ok {
			at[alg] = len(out)
			out = append(out, Detectable{Algorithm: alg, Factor: 1 + r.Tolerance, Run: r.Run})
			continue
		}
		if 1+r.Tolerance < out[i].Factor {
			out[i].Factor, out[i].Run = 1+r.Tolerance, r.Run
		}
	}
	return out
}

// Compare matches runs by algorithm/scenario and checks every metric.
func Compare(baseline, current *result.Result, tol Tolerances) *Comparison {
	c := &Comparison{Baseline: describeResult(baseline), Current: describeResult(current),
		Warnings: compareWarnings(baseline, current, tol), MissingInCurrent: []string{}, MissingInBaseline: []string{},
		Incomplete: append(append([]string{}, incompleteness("baseline", baseline)...), incompleteness("current", current)...)}
	cur := map[string]*result.Run{}
	for i := range current.Runs {
		cur[current.Runs[i].Key()] = &current.Runs[i]
	}
	seen := map[string]bool{}
	algorithmOf := map[string]string{}
	for i := range baseline.Runs {
		b := &baseline.Runs[i]
		seen[b.Key()] = true
		algorithmOf[b.Key()] = b.Algorithm
		r, ok := cur[b.Key()]
		if !ok {
			// An incomplete result lacks the runs it never reached: that
			// is said once, as its incompleteness.
			c.MissingInCurrent = append(c.MissingInCurrent, b.Key())
			c.Regressed = c.Regressed || current.Complete
			continue
		}
		for _, m := range compareMetrics {
			row, ok := compareMetric(m, b, r, tol)
			if !ok {
				continue
			}
			c.Rows = append(c.Rows, row)
		}
	}
	pooled, judged := pooledServerCost(baseline, current, tol)
	for i := range c.Rows {
		row := &c.Rows[i]
		if alg := algorithmOf[row.Run]; row.Metric == "relative.server_cost" && judged[alg] && row.Verdict != NotMeasured {
			row.Verdict, row.Allowed, row.Tolerance = NotJudged, "-", 0
			row.Note = "judged over all of its runs, as " + alg + pooledSuffix
		}
	}
	for _, row := range pooled {
		algorithmOf[row.Run] = strings.TrimSuffix(row.Run, pooledSuffix)
	}
	c.Rows = append(c.Rows, pooled...)
	for _, row := range c.Rows {
		c.Regressed = c.Regressed || row.Verdict == Regressed
	}
	for i := range current.Runs {
		if k := current.Runs[i].Key(); !seen[k] {
			c.MissingInBaseline = append(c.MissingInBaseline, k)
		}
	}
	c.Detectable = detectable(c.Rows, algorithmOf, "relative.server_cost")
	sort.SliceStable(c.Rows, func(i, j int) bool {
		return c.Rows[i].Verdict == Regressed && c.Rows[j].Verdict != Regressed
	})
	return c
}

func describeResult(r *result.Result) string {
	reps := ""
	if n := repetitions(r); n > 1 {
		reps = fmt.Sprintf(", %d repetitions", n)
	}
	return fmt.Sprintf("%s %s (rlbench %s, redis %s %s%s)", r.Profile.Name, r.StartedAt.Format("2006-01-02T15:04:05Z"),
		r.Tool.Version, r.Redis.Mode, r.Redis.Version, reps)
}

// repeated reports whether both runs were repeated, so their repetitions
// show how much the figures move by noise alone.
func repeated(base, cur *result.Run) bool { return base.Repeats != nil && cur.Repeats != nil }

// compareMetric compares one metric; false when there is nothing to say
// (neither side measured it, or it does not apply to the run). A run that
// covers only part of what it set out to measure has its figure judged
// only where it is worse: a correctness finding in part of a run is a
// finding, while nothing it lacks is better or unchanged.
func compareMetric(m metric, base, cur *result.Run, tol Tolerances) (CompareRow, bool) {
	row, ok := judgeMetric(m, base, cur, tol)
	if !ok || !(partial(base) || partial(cur)) || row.Verdict == NotMeasured {
		return row, ok
	}
	if !m.exact || row.Verdict != Regressed {
		row.Verdict, row.Ratio = NotMeasured, 0
		row.Note = "a run that covers only part of its plan: a finding in it counts, nothing it lacks does"
	}
	return row, true
}

// judgeMetric compares one metric of two runs; false when there is
// nothing to say.
func judgeMetric(m metric, base, cur *result.Run, tol Tolerances) (CompareRow, bool) {
	if m.closedLoop && (base.Rate.TargetPerS != 0 || cur.Rate.TargetPerS != 0) {
		return CompareRow{}, false
	}
	bv, bok := result.FieldValue(base, m.path)
	cv, cok := result.FieldValue(cur, m.path)
	if strings.HasPrefix(m.path, "relative.") {
		// An old result has no reference: its absolute rows are judged.
		bok, cok = bok && base.Relative != nil, cok && cur.Relative != nil
	}
	if m.measured {
		// Zero is no figure: never a change from or to one.
		bok, cok = bok && bv > 0, cok && cv > 0
	}
	if !bok && !cok {
		return CompareRow{}, false
	}
	row := CompareRow{Run: base.Key(), Metric: m.path, Baseline: bv, Current: cv, Allowed: "none"}
	if m.path == "memory.bytes_per_identity" && (tooFewForBytes(base) || tooFewForBytes(cur)) {
		if tooFewForBytes(base) && tooFewForBytes(cur) {
			return CompareRow{}, false
		}
		row.Verdict = NotMeasured
		row.Note = fmt.Sprintf("fewer than %d identities held a key: too few for a stable figure", result.MinIdentitiesForBytes)
		return row, true
	}
	if !bok || !cok {
		row.Verdict, row.Missing = NotMeasured, "current"
		if !bok {
			row.Missing = "baseline"
		}
		row.Note = "not measured in the " + row.Missing
		if row.Missing == "current" {
			row.Note += " result"
		}
		return row, true
	}
	if m.scheduled && (base.Rate.TargetPerS == 0 || cur.Rate.TargetPerS == 0) {
		row.Verdict = NotMeasured
		row.Note = "in a closed loop the arrivals, and how far one window gets past the policy, follow the machine's speed"
		return row, true
	}
	if m.tail {
		if n := min(base.LatencyUs.Count, cur.LatencyUs.Count); n < minTailSamples {
			row.Verdict = NotMeasured
			row.Note = fmt.Sprintf("a p99 of %d requests rests on its %d slowest: too few to compare", n, max(n/100, 1))
			return row, true
		}
	}
	if m.given == "p50" || m.given == "p99" {
		// A starved generator waits for a CPU between a reply's arrival
		// and its reading: its latency, middle and tail alike, is then the
		// machine's as much as the limiter's (on a loaded 2-CPU machine a
		// p50 13 times PING's in one run, 1.1 times in the next; and 5.3
		// times the baseline's in the median of three repetitions that
		// all waited). Repetitions do not help when each of them starved:
		// the run kept is the median one, and it waited this long.
		if w := max(cpuWait(base), cpuWait(cur)); w >= CPUWaitNoted {
			row.Verdict = NotMeasured
			row.Note = fmt.Sprintf("rlbench waited for a CPU %.0f%% of the run's traffic: its latency is the machine's stalls as much as the limiter's", 100*w)
			return row, true
		}
	}
	if bv != 0 {
		row.Ratio = cv / bv
	}
	if m.exact {
		compareExact(m, base, cur, &row)
		return row, true
	}
	if m.calibratedBy != "" && base.Relative != nil && cur.Relative != nil {
		if _, ok := result.FieldValue(base, m.calibratedBy); ok {
			row.Verdict, row.Allowed = NotJudged, "-"
			row.Note = "judged as " + m.calibratedBy + ", against the reference measured in the same run"
			return row, true
		}
	}
	t := m.tolerance(tol)
	if m.given != "" && !tol.Given[m.given] && !repeated(base, cur) {
		t = max(t, OrderOfMagnitude)
		row.Note = "single run: only an order-of-magnitude change counts"
		if n := min(base.LatencyUs.Count, cur.LatencyUs.Count); m.tail && n < 10*minTailSamples {
			t = max(t, SingleTail)
			row.Note = fmt.Sprintf("single run: a p99 of %d requests moves tenfold with the machine; only a %.0f-fold change counts", n, 1+SingleTail)
		}
	}
	bySpread := false
	if s, ok := spreadTolerance(m, base, cur); ok && s > t {
		t, bySpread = s, true
	}
	worse, better := cv > bv*(1+t), cv < bv*(1-t)
	row.Allowed, row.Tolerance = fmt.Sprintf("+%.0f%%", 100*t), t
	if m.lowerIsWorse {
		// t is how far the figure may fall: a fraction of it, or, from
		// one on, a factor (an order of magnitude is to a tenth).
		fall := t
		if t >= 1 {
			fall = 1 - 1/(1+t)
		}
		worse, better = cv < bv*(1-fall), cv > bv*(1+t)
		row.Allowed = fmt.Sprintf("-%.0f%%", 100*fall)
	}
	switch {
	case worse:
		row.Verdict = Regressed
	case better:
		row.Verdict = Improved
	default:
		row.Verdict = Same
	}
	if bySpread {
		row.Note = spreadNote(row.Verdict, row.Allowed)
	}
	if row.Verdict == Same {
		return row, true
	}
	// A change that stays inside what the repetitions already showed is
	// noise, not a change.
	if lo, hi, ok := overlap(base, cur, m.path, bv, cv); ok {
		row.Note = fmt.Sprintf("inside the measured spread %s..%s", FormatFieldValue(m.path, lo), FormatFieldValue(m.path, hi))
		row.Verdict = WithinSpread
	}
	return row, true
}

// spreadNote says, for a row whose tolerance the two runs' measured spread
// set, what the change was against it: past what the spread explains (a
// regression or an improvement), or within it.
func spreadNote(verdict, allowed string) string {
	switch verdict {
	case Regressed:
		return "more than the spread the two runs measured explains (it allows " + allowed + ")"
	case Improved:
		return "a fall larger than the spread the two runs measured explains"
	}
	return "within the spread the two runs measured (" + allowed + ")"
}

// timingSlack is how far a timing-dependent correctness figure may rise
// without counting as a change: when, to the millisecond, a burst is
// decided moves how far a correct bucket or fixed window lets one identity
// past the policy by a request or two (more on a busy machine), while an
// algorithm that changed what it promises moves it by far more.
func timingSlack(baseline float64) float64 { return max(1, math.Ceil(baseline/10)) }

// shareSlack is timingSlack for a share of the decisions compared with
// the ideal limiter: the baseline's count of them (its share of its
// decisions) may rise by a decision or a tenth, taken over the current
// run's decisions.
func shareSlack(base, cur *result.Run, baseline float64) float64 {
	if base.Accuracy == nil || cur.Accuracy == nil || cur.Accuracy.Decisions == 0 {
		return 0
	}
	count := math.Round(baseline * float64(base.Accuracy.Decisions))
	return timingSlack(count) / float64(cur.Accuracy.Decisions)
}

// compareExact judges a correctness figure: it must not grow at all, or,
// when it depends on timing, by no more than timingSlack.
func compareExact(m metric, base, cur *result.Run, row *CompareRow) {
	slack := timingSlack(row.Baseline)
	if m.slack != nil {
		slack = m.slack(base, cur, row.Baseline)
	}
	switch bv, cv := row.Baseline, row.Current; {
	case m.timingDependent && cv > bv && cv <= bv+slack:
		row.Verdict = WithinSpread
		row.Note = fmt.Sprintf("a rise of up to %s moves with timing", FormatFieldValue(m.path, slack))
	case m.timingDependent && cv > bv && (ScheduleSlipped(base) || ScheduleSlipped(cur)) && withinBound(base, cur):
		row.Verdict = WithinSpread
		row.Note = fmt.Sprintf("a schedule slipped, and late requests bunch: still within the baseline's own bound of %s in one window",
			FormatFieldValue("audit.bound_window", float64(base.Audit.BoundWindow)))
	case cv > bv:
		row.Verdict = Regressed
		// Repeated on both sides, a rise that some current repetition
		// did not show is timing, not a change: a broken limiter shows it
		// every time.
		if lo, hi, ok := overlap(base, cur, m.path, bv, cv); ok && m.timingDependent && repeated(base, cur) {
			row.Verdict = WithinSpread
			row.Note = fmt.Sprintf("the repetitions overlap (%s..%s)", FormatFieldValue(m.path, lo), FormatFieldValue(m.path, hi))
		}
	case cv < bv:
		row.Verdict = Improved
	default:
		row.Verdict = Same
	}
}

// withinBound reports whether the current run's busiest window stayed
// within what the baseline's algorithm promises for one window: a limiter
// that now lets more through than it promised then goes past it.
func withinBound(base, cur *result.Run) bool {
	return base.Audit != nil && cur.Audit != nil && base.Audit.BoundWindow > 0 && cur.Audit.MaxWindowAdmitted <= base.Audit.BoundWindow
}

// cpuWait is the share of the run's traffic time rlbench waited for a CPU
// (0 where the kernel keeps no such figure).
func cpuWait(r *result.Run) float64 {
	if r.Generator == nil {
		return 0
	}
	return r.Generator.CPUWaitShare
}

func tooFewForBytes(r *result.Run) bool {
	_, ok := r.Memory.PerIdentity()
	return !ok
}

// overlap reports whether baseline and current are indistinguishable given
// the repetitions either side recorded: the current value lies in the
// baseline's spread, the baseline value in the current spread, or (both
// repeated) the two spreads overlap. It returns the spread it relied on.
func overlap(base, cur *result.Run, path string, bv, cv float64) (lo, hi float64, ok bool) {
	blo, bhi, bok := base.Repeats.Spread(path)
	clo, chi, cok := cur.Repeats.Spread(path)
	switch {
	case bok && cok:
		return min(blo, clo), max(bhi, chi), blo <= chi && clo <= bhi
	case bok:
		return blo, bhi, cv >= blo && cv <= bhi
	case cok:
		return clo, chi, bv >= clo && bv <= chi
	}
	return 0, 0, false
}

// WriteCompare prints c as text, markdown (for a pull-request comment or
// $GITHUB_STEP_SUMMARY) or json. Text and markdown list only the rows that
// changed unless all is set; json always holds every row.
func WriteCompare(w io.Writer, c *Comparison, format string, all bool) error {
	if format != "json" {
		c = printableCopy(c)
	}
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(c)
	case "markdown":
		return writeCompareMarkdown(w, c, all)
	case "text", "":
		return writeCompareText(w, c, all)
	}
	return fmt.Errorf("unknown format %q (text, markdown or json)", format)
}

func (c *Comparison) verdictWord() string {
	switch {
	case c.Regressed && len(c.Incomplete) > 0:
		return "REGRESSED, and INCOMPLETE"
	case c.Regressed:
		return "REGRESSED"
	case len(c.Incomplete) > 0:
		return "INCOMPLETE: no regression among the figures both measured, and no verdict on the rest"
	}
	return "no regression"
}

// shownRows are the rows to print, and how many unchanged ones were left
// out.
func (c *Comparison) shownRows(all bool) (rows []CompareRow, hidden int) {
	for _, r := range c.Rows {
		if all || r.changed() {
			rows = append(rows, r)
		} else {
			hidden++
		}
	}
	return rows, hidden
}

func writeCompareText(w io.Writer, c *Comparison, all bool) error {
	fmt.Fprintf(w, "baseline: %s\ncurrent:  %s\n", c.Baseline, c.Current)
	for _, why := range c.Incomplete {
		fmt.Fprintln(w, "! INCOMPLETE: "+why)
	}
	for _, warning := range c.Warnings {
		fmt.Fprintln(w, "! "+warning)
	}
	fmt.Fprintln(w)
	rows, hidden := c.shownRows(all)
	if len(rows) > 0 {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "run\tmetric\tbaseline\tcurrent\tratio\tallowed\tverdict\t")
		for _, r := range rows {
			verdict := r.Verdict
			if r.Note != "" {
				verdict += " (" + r.Note + ")"
			}
			b, c := r.shown()
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", r.Run, r.Metric, b, c, ratioString(r.Ratio), r.Allowed, verdict)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if hidden > 0 {
		fmt.Fprintf(w, "%d of %d figures unchanged or not comparable (--all lists them)\n", hidden, len(c.Rows))
	}
	for _, k := range c.MissingInCurrent {
		fmt.Fprintf(w, "! %s is in the baseline but missing from the current result\n", k)
	}
	if len(c.MissingInCurrent) > 0 && len(c.Incomplete) > 0 {
		fmt.Fprintln(w, "  (not measured: the current result is incomplete)")
	}
	for _, k := range c.MissingInBaseline {
		fmt.Fprintf(w, "note: %s is new (not in the baseline)\n", k)
	}
	if d := c.detectableLine(); d != "" {
		fmt.Fprintln(w, d)
	}
	_, err := fmt.Fprintf(w, "\nverdict: %s\n", c.verdictWord())
	return err
}

func writeCompareMarkdown(w io.Writer, c *Comparison, all bool) error {
	icon := "✅"
	switch {
	case c.Regressed:
		icon = "❌"
	case len(c.Incomplete) > 0:
		icon = "⚠️"
	}
	fmt.Fprintf(w, "### rlbench: %s %s\n\n", icon, c.verdictWord())
	fmt.Fprintf(w, "Baseline: %s  \nCurrent: %s\n\n", mdEscape(c.Baseline), mdEscape(c.Current))
	for _, why := range c.Incomplete {
		fmt.Fprintf(w, "> **Incomplete:** %s\n\n", mdEscape(why))
	}
	for _, warning := range c.Warnings {
		fmt.Fprintf(w, "> ⚠️ %s\n\n", mdEscape(warning))
	}
	rows, hidden := c.shownRows(all)
	if len(rows) > 0 {
		fmt.Fprintln(w, "| run | metric | baseline | current | ratio | allowed | verdict |")
		fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---|")
	}
	for _, r := range rows {
		verdict := r.Verdict
		if r.Verdict == Regressed {
			verdict = "**" + verdict + "**"
		}
		if r.Note != "" {
			verdict += " (" + mdEscape(r.Note) + ")"
		}
		b, c := r.shown()
		fmt.Fprintf(w, "| %s | `%s` | %s | %s | %s | %s | %s |\n", mdEscape(r.Run), r.Metric, b, c, ratioString(r.Ratio), r.Allowed, verdict)
	}
	if hidden > 0 {
		fmt.Fprintf(w, "\n%d of %d figures unchanged or not comparable.\n", hidden, len(c.Rows))
	}
	if len(c.MissingInCurrent) > 0 {
		fmt.Fprintf(w, "\n**Missing from the current result:** %s\n", mdEscape(strings.Join(c.MissingInCurrent, ", ")))
	}
	if len(c.MissingInBaseline) > 0 {
		fmt.Fprintf(w, "\nNew runs (not in the baseline): %s\n", mdEscape(strings.Join(c.MissingInBaseline, ", ")))
	}
	if d := c.detectableLine(); d != "" {
		fmt.Fprintf(w, "\n%s\n", mdEscape(d))
	}
	return nil
}

// detectableLine says, per limiter, the smallest slowdown of its script
// the comparison would have caught; empty when no server cost was judged.
func (c *Comparison) detectableLine() string {
	if len(c.Detectable) == 0 {
		return ""
	}
	parts := make([]string, len(c.Detectable))
	for i, d := range c.Detectable {
		parts[i] = fmt.Sprintf("%s %.2fx (%s)", d.Algorithm, d.Factor, d.Run)
	}
	return "detects: a limiter's server time per decision slower by at least " + strings.Join(parts, ", ") +
		" (one plus the tolerance its relative.server_cost got)"
}

func ratioString(r float64) string {
	if r == 0 || math.IsInf(r, 0) || math.IsNaN(r) {
		return "-"
	}
	return fmt.Sprintf("%.2f", r)
}
