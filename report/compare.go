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

// Tolerances are how much a noisy figure may grow before a comparison calls
// it a regression, as fractions (0.25 = +25%).
type Tolerances struct {
	P50              float64
	P99              float64
	UsecPerCall      float64
	BytesPerIdentity float64
}

// DefaultTolerances: p50 +15%, p99 +25%, server cost +25%, bytes/identity +5%.
var DefaultTolerances = Tolerances{P50: 0.15, P99: 0.25, UsecPerCall: 0.25, BytesPerIdentity: 0.05}

// Comparison verdicts for one metric of one run.
const (
	Same         = "ok"
	Improved     = "improved"
	Regressed    = "REGRESSED"
	WithinSpread = "within spread"
	NotMeasured  = "n/a"
)

// metric is one figure a comparison checks. A correctness metric must not
// grow at all; a noisy one may grow by its tolerance. A correctness metric
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
}

var compareMetrics = []metric{
	{path: "audit.overshoot", exact: true},
	{path: "audit.policy_excess", exact: true, timingDependent: true},
	{path: "audit.model_mismatches", exact: true},
	{path: "memory.keys_without_ttl", exact: true},
	{path: "latency_us.p50", tolerance: func(t Tolerances) float64 { return t.P50 }},
	{path: "latency_us.p99", tolerance: func(t Tolerances) float64 { return t.P99 }},
	{path: "server.usec_per_call", tolerance: func(t Tolerances) float64 { return t.UsecPerCall }},
	{path: "memory.bytes_per_identity", tolerance: func(t Tolerances) float64 { return t.BytesPerIdentity }},
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
	// Allowed says how much the metric may grow ("+25%", "none").
	Allowed string `json:"allowed"`
	Note    string `json:"note,omitempty"`
}

// Comparison is a baseline result against a current one.
type Comparison struct {
	Baseline string       `json:"baseline"`
	Current  string       `json:"current"`
	Rows     []CompareRow `json:"rows"`
	// MissingInCurrent are baseline runs the current result lacks (a
	// regression: coverage was lost); MissingInBaseline are new runs.
	MissingInCurrent  []string `json:"missing_in_current"`
	MissingInBaseline []string `json:"missing_in_baseline"`
	Regressed         bool     `json:"regressed"`
}

// Compare matches runs by algorithm/scenario and checks every metric.
func Compare(baseline, current *result.Result, tol Tolerances) *Comparison {
	c := &Comparison{Baseline: describeResult(baseline), Current: describeResult(current),
		MissingInCurrent: []string{}, MissingInBaseline: []string{}}
	cur := map[string]*result.Run{}
	for i := range current.Runs {
		cur[current.Runs[i].Key()] = &current.Runs[i]
	}
	seen := map[string]bool{}
	for i := range baseline.Runs {
		b := &baseline.Runs[i]
		seen[b.Key()] = true
		r, ok := cur[b.Key()]
		if !ok {
			c.MissingInCurrent = append(c.MissingInCurrent, b.Key())
			c.Regressed = true
			continue
		}
		for _, m := range compareMetrics {
			row, ok := compareMetric(m, b, r, tol)
			if !ok {
				continue
			}
			c.Rows = append(c.Rows, row)
			c.Regressed = c.Regressed || row.Verdict == Regressed
		}
	}
	for i := range current.Runs {
		if k := current.Runs[i].Key(); !seen[k] {
			c.MissingInBaseline = append(c.MissingInBaseline, k)
		}
	}
	sort.SliceStable(c.Rows, func(i, j int) bool {
		return c.Rows[i].Verdict == Regressed && c.Rows[j].Verdict != Regressed
	})
	return c
}

func describeResult(r *result.Result) string {
	return fmt.Sprintf("%s %s (rlbench %s, redis %s %s)", r.Profile.Name, r.StartedAt.Format("2006-01-02T15:04:05Z"),
		r.Tool.Version, r.Redis.Mode, r.Redis.Version)
}

// compareMetric compares one metric; false when neither side measured it.
func compareMetric(m metric, base, cur *result.Run, tol Tolerances) (CompareRow, bool) {
	bv, bok := result.FieldValue(base, m.path)
	cv, cok := result.FieldValue(cur, m.path)
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
		row.Verdict = NotMeasured
		row.Note = "measured on one side only"
		return row, true
	}
	if bv != 0 {
		row.Ratio = cv / bv
	}
	if m.exact {
		switch {
		case cv > bv:
			row.Verdict = Regressed
			// Repeated on both sides, a rise that some current repetition
			// did not show is timing, not a change: a broken limiter
			// shows it every time.
			if lo, hi, ok := overlap(base, cur, m.path, bv, cv); ok && m.timingDependent && base.Repeats != nil && cur.Repeats != nil {
				row.Verdict = WithinSpread
				row.Note = fmt.Sprintf("the repetitions overlap (%s..%s)", FormatFieldValue(m.path, lo), FormatFieldValue(m.path, hi))
			}
		case cv < bv:
			row.Verdict = Improved
		default:
			row.Verdict = Same
		}
		return row, true
	}
	t := m.tolerance(tol)
	row.Allowed = fmt.Sprintf("+%.0f%%", 100*t)
	switch {
	case cv > bv*(1+t):
		row.Verdict = Regressed
	case cv < bv*(1-t):
		row.Verdict = Improved
	default:
		row.Verdict = Same
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
// $GITHUB_STEP_SUMMARY) or json.
func WriteCompare(w io.Writer, c *Comparison, format string) error {
	if format != "json" {
		c = printableCopy(c)
	}
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(c)
	case "markdown":
		return writeCompareMarkdown(w, c)
	case "text", "":
		return writeCompareText(w, c)
	}
	return fmt.Errorf("unknown format %q (text, markdown or json)", format)
}

func (c *Comparison) verdictWord() string {
	if c.Regressed {
		return "REGRESSED"
	}
	return "no regression"
}

func writeCompareText(w io.Writer, c *Comparison) error {
	fmt.Fprintf(w, "baseline: %s\ncurrent:  %s\n\n", c.Baseline, c.Current)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "run\tmetric\tbaseline\tcurrent\tratio\tallowed\tverdict\t")
	for _, r := range c.Rows {
		verdict := r.Verdict
		if r.Note != "" {
			verdict += " (" + r.Note + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", r.Run, r.Metric,
			FormatFieldValue(r.Metric, r.Baseline), FormatFieldValue(r.Metric, r.Current), ratioString(r.Ratio), r.Allowed, verdict)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, k := range c.MissingInCurrent {
		fmt.Fprintf(w, "! %s is in the baseline but missing from the current result\n", k)
	}
	for _, k := range c.MissingInBaseline {
		fmt.Fprintf(w, "note: %s is new (not in the baseline)\n", k)
	}
	_, err := fmt.Fprintf(w, "\nverdict: %s\n", c.verdictWord())
	return err
}

func writeCompareMarkdown(w io.Writer, c *Comparison) error {
	icon := "✅"
	if c.Regressed {
		icon = "❌"
	}
	fmt.Fprintf(w, "### rlbench: %s %s\n\n", icon, c.verdictWord())
	fmt.Fprintf(w, "Baseline: %s  \nCurrent: %s\n\n", mdEscape(c.Baseline), mdEscape(c.Current))
	fmt.Fprintln(w, "| run | metric | baseline | current | ratio | allowed | verdict |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---|")
	for _, r := range c.Rows {
		verdict := r.Verdict
		if r.Verdict == Regressed {
			verdict = "**" + verdict + "**"
		}
		if r.Note != "" {
			verdict += " (" + mdEscape(r.Note) + ")"
		}
		fmt.Fprintf(w, "| %s | `%s` | %s | %s | %s | %s | %s |\n", mdEscape(r.Run), r.Metric,
			FormatFieldValue(r.Metric, r.Baseline), FormatFieldValue(r.Metric, r.Current), ratioString(r.Ratio), r.Allowed, verdict)
	}
	if len(c.MissingInCurrent) > 0 {
		fmt.Fprintf(w, "\n**Missing from the current result:** %s\n", mdEscape(strings.Join(c.MissingInCurrent, ", ")))
	}
	if len(c.MissingInBaseline) > 0 {
		fmt.Fprintf(w, "\nNew runs (not in the baseline): %s\n", mdEscape(strings.Join(c.MissingInBaseline, ", ")))
	}
	return nil
}

func ratioString(r float64) string {
	if r == 0 || math.IsInf(r, 0) || math.IsNaN(r) {
		return "-"
	}
	return fmt.Sprintf("%.2f", r)
}

// mdEscape keeps names from breaking a markdown table.
func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "*", `\*`, "_", `\_`, "<", "&lt;", ">", "&gt;").Replace(s)
}
