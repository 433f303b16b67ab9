package html

import (
	"embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rlbench/rlbench/internal/plural"
	"github.com/rlbench/rlbench/report"
	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/verdict"
)

//go:embed templates/report.html
var templateFS embed.FS

var pageTemplate = template.Must(template.New("report.html").ParseFS(templateFS, "templates/report.html"))

// RenderOptions carry what the result itself does not say.
type RenderOptions struct {
	// Semantics maps an algorithm name to one line on how it reads the
	// policy; the page opens each algorithm's paragraph with it.
	Semantics map[string]string
	// MaxScenarios is the most scenarios drawn in detail (their plots and
	// .hgrm files); past it the report has the tables and the plots across
	// scenarios only, and says so. Zero means DefaultMaxScenarios, a
	// negative number no limit.
	MaxScenarios int
}

// WriteHTML writes the self-contained report page for r: the verdict
// with its reasons first, then which limiter, whether it is right and
// what it costs, then the notes grouped by kind (the limiter's own
// failures first, each kind's details folded), then the environment, thresholds, one table and the plots per
// scenario, the plots across scenarios, and a paragraph per algorithm.
// figs are embedded as data: URIs, so the page needs no other file and
// makes no request. Every string from the result is escaped.
func WriteHTML(w io.Writer, r *result.Result, figs []Figure, opts RenderOptions) error {
	return pageTemplate.Execute(w, newPage(r, figs, opts))
}

// page is what the template shows, every figure already formatted.
type page struct {
	Title   string
	Pass    bool
	Verdict string
	// VerdictClass styles the banner: pass, fail or inconclusive.
	VerdictClass string
	// Reasons are the verdict's first reasons, in the banner; MoreReasons
	// the rest, folded, so that the decision stays in the first screen.
	Reasons, MoreReasons []string
	// Notes are what a reader must know, grouped by kind, the limiter's
	// own failures first; they follow the decision.
	Notes    []report.NoteGroup
	Decision decision
	Env      []field
	// Thresholds are the failed rules, then the ones that held, which the
	// page folds away behind a line when there are many.
	Thresholds     []thresholdRow
	ThresholdsHeld []thresholdRow
	FoldHeld       bool
	Scenarios      []scenarioSection
	Across         []figureView
	// Omitted says which plots were left out, and why.
	Omitted    []string
	Algorithms []algorithmSection
	HGRMNote   string
	// LeftOut says what the page leaves out of a huge result, and why.
	LeftOut string
	// PolicyColumns and Policies are the error policies side by side, when
	// the profile ran more than one.
	PolicyColumns []string
	Policies      [][]string
	// PolicyWhy says, under that table, why a cell of it has no figure.
	PolicyWhy []string
	// Sweeps are the sweeps of clock skews, and FleetExcess says how the
	// instances of a fleet took part in admissions past the bound.
	Sweeps      []sweepSection
	FleetExcess []string
}

type field struct{ Name, Value string }

type thresholdRow struct {
	Expression, Run, Value, Against, Note string
	OK                                    bool
}

type scenarioSection struct {
	Name      string
	Anchor    string
	Describe  string
	HasAudit  bool
	HasMemory bool
	HasServer bool
	Rows      []tableRow
	// AuditWhy and CostWhy say, under the audit's and the costs' tables,
	// why a cell of theirs is a dash: one line per column and cause,
	// naming the algorithms it applies to.
	AuditWhy, CostWhy []string
	// Cluster is the runs' figures per master of a Redis Cluster.
	Cluster *clusterTable
	// Capacity is what the scenario's capacity searches found: the SLO
	// they held, and a row of report.CapacityColumns per run.
	CapacityHeadline string
	CapacityColumns  []string
	Capacity         [][]string
	Figures          []figureView
}

// tableRow is one run: the terminal summary's columns, then audit and
// memory columns; a cell the run has no figure for holds a dash. A Bad
// cell holds what the verdict found wrong; a Warn cell a figure worth a
// look that fails nothing.
type tableRow struct {
	Algorithm, Color                             string
	Incomplete                                   bool
	Sent, Allowed, Denied, Errors, Rate, Target  string
	P50, P99, P999, Max, P99Sent                 string
	Expected, Mismatches, MaxWindow, Overshoot   string
	Offered, Under                               string
	NoPower, BadUnder                            bool
	PolicyExcess, BytesPerIdentity, KeysNoTTL    string
	MemoryUsage, Encodings, UsecPerCall          string
	BadErrors, BadMismatch, BadOvershoot, BadTTL bool
	WarnErrors, WarnExcess, Slipped              bool
}

type figureView struct {
	Title, NoData string
	Src           template.URL
	Width, Height int
}

type algorithmSection struct {
	Name, Color, Semantics string
	Remarks                []string
}

// bannerReasons is how many of the verdict's reasons the banner shows;
// the rest are folded behind a line.
const bannerReasons = 3

// foldThresholdsFrom is how many rules that held the page lists openly;
// more are folded behind a summary line.
const foldThresholdsFrom = 8

const dash = "—"

func newPage(r *result.Result, figs []Figure, opts RenderOptions) page {
	v := newView(r)
	p := page{
		Title:    "rlbench report: " + r.Profile.Name,
		Notes:    report.NoteGroups(r),
		Decision: decide(v),
		Env:      environment(r),
	}
	comparisons := report.PolicyComparisons(r)
	for _, c := range comparisons {
		p.PolicyColumns = report.PolicyComparisonColumns
		p.Policies = append(p.Policies, c.Cells())
	}
	p.PolicyWhy = report.PolicyComparisonDashes(comparisons, "-")
	for _, th := range r.Thresholds {
		row := thresholdRow{Expression: th.Expression, Run: th.Run, OK: th.OK, Note: th.Note}
		if th.Note == "" {
			field := result.FieldOf(th.Expression)
			row.Value, row.Against = report.FormatFieldValue(field, th.Value), report.FormatFieldValue(field, th.Against)
		}
		if th.OK {
			p.ThresholdsHeld = append(p.ThresholdsHeld, row)
		} else {
			p.Thresholds = append(p.Thresholds, row)
		}
	}
	p.FoldHeld = len(p.ThresholdsHeld) > foldThresholdsFrom
	j := v.judgement
	p.Pass, p.Verdict, p.VerdictClass = j.Verdict == result.Pass, strings.ToUpper(j.Verdict), j.Verdict
	p.Reasons = append(append(p.Reasons, j.Reasons()...), j.Caught...)
	if p.Pass && len(r.Thresholds) == 0 {
		p.Reasons = append(p.Reasons, "The profile sets no thresholds; every check a run passes by default held.")
	}
	if len(p.Reasons) > bannerReasons {
		p.Reasons, p.MoreReasons = p.Reasons[:bannerReasons], p.Reasons[bannerReasons:]
	}
	byScenario := map[string][]figureView{}
	for _, f := range figs {
		fv := figureView{Title: f.Title, NoData: f.NoData, Src: dataURI(f.PNG), Width: PlotWidthPx, Height: PlotHeightPx}
		if f.Scenario == "" {
			p.Across = append(p.Across, fv)
		} else {
			byScenario[f.Scenario] = append(byScenario[f.Scenario], fv)
		}
	}
	for _, s := range v.scenarios {
		p.Scenarios = append(p.Scenarios, scenarioView(v, s, byScenario[s]))
	}
	for _, a := range v.algorithms {
		sem := opts.Semantics[a]
		if sem == "" {
			sem = "This version of rlbench has no description of this algorithm."
		}
		p.Algorithms = append(p.Algorithms, algorithmSection{
			Name: a, Color: hexColor(v.colors.color(a)), Semantics: sentence(sem), Remarks: remarks(v, a),
		})
	}
	p.Sweeps, p.FleetExcess = sweepSections(v), report.FleetExcessLines(r, v.judgement)
	p.Omitted = omittedPlots(v)
	p.LeftOut = opts.leftOut(v)
	if len(r.Runs) > 0 && p.LeftOut == "" {
		p.HGRMNote = "Each run's latency distribution is also written beside this page as hgrm/<algorithm>-<scenario>.hgrm " +
			"(and .uncorrected.hgrm), in milliseconds, for the HdrHistogram plotter."
	}
	return p
}

// dataURI embeds a PNG in the page. It is typed as a URL because
// html/template would otherwise refuse a data: URI; the bytes are our own
// rendering, never text from the result.
func dataURI(png []byte) template.URL {
	return template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(png))
}

func environment(r *result.Result) []field {
	mode := r.Redis.Mode
	switch mode {
	case "private":
		mode = "private (started by rlbench for this run)"
	case "embedded":
		mode = "embedded (in-process, not Redis: latency and memory are not Redis figures)"
	}
	redis := fmt.Sprintf("%s, %s at %s", r.Redis.Version, mode, r.Redis.Addr)
	if c := r.Redis.Cluster; c != nil {
		redis = fmt.Sprintf("%s, %s Redis Cluster of %d masters and %d replicas; masters in slot order: %s",
			r.Redis.Version, mode, c.Masters, c.Replicas, strings.Join(c.Nodes, ", "))
	}
	if r.Redis.MaxmemoryPolicy != "" {
		redis += ", maxmemory-policy " + r.Redis.MaxmemoryPolicy
	}
	profile := r.Profile.Name
	if r.Profile.Path != "" {
		profile += " (" + r.Profile.Path + ")"
	}
	when := r.StartedAt.UTC().Format("2006-01-02 15:04:05 UTC")
	if !r.FinishedAt.IsZero() && r.FinishedAt.After(r.StartedAt) {
		when += fmt.Sprintf(", %s", r.FinishedAt.Sub(r.StartedAt).Round(1e9))
	}
	return []field{
		{"Redis", redis},
		{"Host", report.DescribeHost(r.Host)},
		{"Go", r.Tool.GoVersion},
		{"rlbench", r.Tool.Version},
		{"Profile", profile},
		{"Profile SHA-256", r.Profile.SHA256},
		{"Seed", fmt.Sprint(r.Profile.Seed)},
		{"Policy", report.FormatPolicy(r.Profile.Policy)},
		{"Concurrency", fmt.Sprintf("%d goroutines, warmup %gs", r.Profile.Concurrency, r.Profile.WarmupS)},
		{"Run", fmt.Sprintf("%s, id %s", when, r.RunID)},
	}
}

func scenarioView(v *view, s string, figs []figureView) scenarioSection {
	sec := scenarioSection{Name: s, Anchor: "scenario-" + v.slugs[s], Figures: figs}
	runs := v.scenarioRuns(s)
	if len(runs) > 0 {
		sec.Describe = describeScenario(runs[0])
	}
	for _, run := range runs {
		sec.HasAudit = sec.HasAudit || run.Audit != nil
		sec.HasMemory = sec.HasMemory || run.Memory != nil
		sec.HasServer = sec.HasServer || run.Server != nil
	}
	var audit, cost report.MissingCells
	for _, run := range runs {
		row := newTableRow(v, run)
		sec.Rows = append(sec.Rows, row)
		// Each dash of the audit's and the costs' tables, with its cause.
		why := func(m *report.MissingCells, column, cell, cause string) {
			if cell == dash {
				m.Add(column, run.Algorithm, cause)
			}
		}
		why(&audit, "expected and mismatches", row.Expected, report.WhyNoExpected(run))
		why(&audit, "offered in window", row.Offered, report.WhyNoOffered(run))
		why(&audit, "max in window, overshoot, under-admitted and policy excess", row.MaxWindow, report.WhyNoExcess(run))
		why(&cost, "memory per identity", row.BytesPerIdentity, report.WhyNoMemory(v.r, run))
		why(&cost, "MEMORY USAGE per key", row.MemoryUsage, report.WhyNoKeySample(v.r, run))
		why(&cost, "encodings", row.Encodings, report.WhyNoEncodings(v.r, run))
		why(&cost, "keys without TTL", row.KeysNoTTL, report.WhyNoMemory(v.r, run))
		if sec.HasServer {
			why(&cost, "µs/call", row.UsecPerCall, report.WhyNoServerTime(v.r, run))
		}
	}
	sec.AuditWhy, sec.CostWhy = audit.Lines(dash), cost.Lines(dash)
	sec.Cluster = newClusterTable(v, s)
	for _, run := range runs {
		if run.Capacity != nil {
			sec.CapacityColumns = report.CapacityColumns
			sec.Capacity = append(sec.Capacity, report.CapacityCells(run))
			sec.CapacityHeadline = report.DescribeSLO(run.Capacity.SLO)
		}
	}
	return sec
}

func describeScenario(run *result.Run) string {
	parts := []string{"shape " + run.Shape}
	if r := run.Params.Replay; r != nil {
		t := fmt.Sprintf("trace %s (%s, %s requests a pass) at %gx", filepath.Base(r.Trace), r.Format, report.FormatCount(r.Requests), r.Speed)
		if r.Loop {
			t += ", looped"
		}
		parts = append(parts, t)
	}
	if run.Params.Rate != "" {
		rate := "rate " + readableRate(run)
		if run.Params.Arrival != "" {
			rate += " (" + run.Params.Arrival + ")"
		}
		parts = append(parts, rate)
	}
	parts = append(parts, fmt.Sprintf("%s %s", report.FormatCount(int64(run.Identities)), plural.Noun(run.Identities, "identity", "identities")))
	if run.Params.DurationS > 0 {
		parts = append(parts, fmt.Sprintf("%gs", run.Params.DurationS))
	}
	if run.Params.Requests > 0 {
		parts = append(parts, fmt.Sprintf("%s %s", report.FormatCount(run.Params.Requests), plural.Noun(run.Params.Requests, "request", "requests")))
	}
	if run.Params.Concurrency > 0 {
		parts = append(parts, fmt.Sprintf("concurrency %d", run.Params.Concurrency))
	}
	if p := run.Pipeline; p != nil && p.Depth > 1 {
		parts = append(parts, fmt.Sprintf("pipelined, at most %d per batch (mean %.1f)", p.Depth, p.MeanBatch))
	}
	return strings.Join(parts, ", ")
}

func newTableRow(v *view, run *result.Run) tableRow {
	q := run.Requests
	found := v.verdictOf(run)
	row := tableRow{
		Algorithm: run.Algorithm, Color: hexColor(v.colors.color(run.Algorithm)), Incomplete: run.Incomplete,
		Sent: report.FormatCount(q.Sent), Allowed: report.FormatCount(q.Allowed), Denied: report.FormatCount(q.Denied), Errors: report.FormatCount(q.Errors),
		Rate: report.FormatRate(run.Rate.AchievedPerS), Target: "max",
		P50: report.FormatMicros(run.LatencyUs.P50), P99: report.FormatMicros(run.LatencyUs.P99),
		P999: report.FormatMicros(run.LatencyUs.P999), Max: report.FormatMicros(run.LatencyUs.Max),
		P99Sent:  report.FormatMicros(run.LatencyUncorrectedUs.P99),
		Expected: dash, Mismatches: dash, MaxWindow: dash, Overshoot: dash, PolicyExcess: dash, Offered: dash, Under: dash,
		BytesPerIdentity: dash, KeysNoTTL: dash, MemoryUsage: dash, Encodings: dash, UsecPerCall: dash,
		BadErrors: found.Has(verdict.ErrorsOverBudget), Slipped: report.ScheduleSlipped(run),
		BadMismatch: found.Has(verdict.ModelMismatch), BadOvershoot: found.Has(verdict.Overshoot),
		BadTTL: found.Has(verdict.KeyWithoutTTL), BadUnder: found.Has(verdict.UnderAdmission), NoPower: found.Has(verdict.NoPower),
	}
	// Failed calls within the error budget fail nothing, but are worth a
	// look.
	row.WarnErrors = q.Errors > 0 && !row.BadErrors
	if s := run.Server; s != nil && s.Calls > 0 {
		row.UsecPerCall = fmt.Sprintf("%.2f", s.UsecPerCall)
	}
	if run.Rate.TargetPerS > 0 {
		row.Target = report.FormatRate(run.Rate.TargetPerS)
	}
	if a := run.Audit; a != nil {
		if a.HasModel() {
			row.Expected = report.FormatCount(a.ExpectedAllowed)
			row.Mismatches = report.FormatCount(a.ModelMismatches)
		}
		row.MaxWindow = fmt.Sprintf("%s / %s", report.FormatCount(a.MaxWindowAdmitted), report.AuditBound(a))
		row.Overshoot = report.FormatCount(a.Overshoot)
		row.Under = report.FormatCount(a.UnderAdmitted)
		if p := a.Power; p != nil {
			row.Offered = report.FormatCount(p.OfferedMaxInWindow)
		}
		row.PolicyExcess = report.FormatCount(a.PolicyExcess)
		row.WarnExcess = a.PolicyExcess > 0
	}
	if m := run.Memory; m != nil {
		if b, ok := m.PerIdentity(); ok {
			row.BytesPerIdentity = fmt.Sprintf("%.0f B", b)
		}
		row.KeysNoTTL = report.FormatCount(m.KeysWithoutTTL)
		switch {
		case !run.Measured("memory.keys_without_ttl"):
			// The server refused the census, as the summary says.
			row.KeysNoTTL = "unavailable"
		case m.CensusFailed:
			row.KeysNoTTL = "skipped"
		}
		// A census not taken is a check that did not happen, not one
		// that passed.
		row.BadTTL = row.BadTTL || m.CensusFailed
		if m.MemoryUsageSampledBytes > 0 {
			row.MemoryUsage = report.FormatSize(m.MemoryUsageSampledBytes)
		}
		if len(m.Encodings) > 0 {
			row.Encodings = report.FormatEncodings(m.Encodings)
		}
	}
	return row
}

// readableRate is a scenario's rate as people read it: the profile's own
// words ("2x", "max", "500/s"), or for a shape that derives its rate (the
// boundary shape), the average it works out to, rounded.
func readableRate(run *result.Run) string {
	perS, ok := strings.CutSuffix(run.Params.Rate, "/s")
	if !ok {
		return run.Params.Rate
	}
	v, err := strconv.ParseFloat(perS, 64)
	if err != nil {
		return run.Params.Rate
	}
	s := report.FormatRate(v) + "/s"
	if run.Params.Boundary != nil {
		s = "about " + s + " on average"
	}
	return s
}

// omittedPlots says which cross-scenario plots the page leaves out, and
// why, so a reader does not look for them.
func omittedPlots(v *view) []string {
	var out []string
	hasMemory := false
	for i := range v.r.Runs {
		hasMemory = hasMemory || v.r.Runs[i].Memory != nil
	}
	if hasMemory && !v.hasMemoryPerIdentity() {
		out = append(out, fmt.Sprintf("Memory per identity is not plotted: no run had %s identities holding a key, too few for the figure to mean more than allocator noise. "+
			"The tables show keys, keys without a TTL and MEMORY USAGE per key; a cardinality scenario measures memory per identity.",
			report.FormatCount(result.MinIdentitiesForBytes)))
	}
	if audited := len(report.AlgorithmCosts(v.r)); audited >= 2 && !v.hasTradeoff() {
		out = append(out, "Accuracy against memory per identity is not plotted: it needs both figures for at least two algorithms, "+
			"and memory per identity comes from a scenario with many identities (a cardinality scenario, as in profiles/compare-all.yaml).")
	}
	return out
}

// sentence capitalises s and ends it with a full stop.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return s
	}
	s = strings.ToUpper(s[:1]) + s[1:]
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}
