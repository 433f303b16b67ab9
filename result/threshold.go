package result

import (
	"fmt"
	"math"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// A Threshold is one line of a profile's thresholds, e.g.
//
//	*/steady latency_us.p99 < 5ms
//	fixed_window/* audit.max_window_admitted <= 2*limit
//
// It selects runs by algorithm/scenario (with * and ? wildcards), reads a
// numeric result field by its JSON path, and compares it with a value that
// may carry a unit (us, ms, s, B, KiB, MiB, %) or refer to the run's own
// limit, capacity, target rate or bound.
type Threshold struct {
	// Expr is the threshold as written.
	Expr string
	// Algorithm and Scenario are the selector's two patterns.
	Algorithm, Scenario string
	// Field is the JSON path of the field the threshold reads.
	Field string
	// Op is one of < <= > >= ==.
	Op string
	// Factor multiplies Ref (or is the whole right-hand side when Ref is
	// empty), already converted to the field's own unit.
	Factor float64
	// Ref names a per-run quantity: limit, capacity, target or bound.
	Ref string
}

// Threshold operators.
var operators = []string{"<", "<=", ">", ">=", "=="}

// refs are the per-run quantities a right-hand side may name, with what
// they are, for messages.
var refs = map[string]string{
	"limit":    "the policy's limit (requests per window)",
	"capacity": "the bucket capacity (burst)",
	"target":   "the offered rate (per second)",
	"bound":    "the algorithm's own bound for one window (audit.bound_window)",
}

// units maps a unit suffix to its dimension and its size in that
// dimension's base unit (microseconds, bytes, or 1 for %).
var units = []struct {
	suffix string
	dim    Dimension
	scale  float64
}{
	{"KiB", Bytes, 1024}, {"MiB", Bytes, 1 << 20}, {"GiB", Bytes, 1 << 30}, {"B", Bytes, 1},
	{"us", Micros, 1}, {"µs", Micros, 1}, {"ms", Micros, 1e3}, {"s", Micros, 1e6},
	{"%", Plain, 0.01},
}

// ParseThreshold reads one threshold expression. It checks the field exists
// in the result contract and that units fit the field; whether the selector
// matches any run is checked against a plan by MatchesAny.
func ParseThreshold(expr string) (*Threshold, error) {
	parts := strings.Fields(expr)
	if len(parts) < 4 {
		return nil, fmt.Errorf(`want "algorithm/scenario field operator value", e.g. "*/* audit.overshoot == 0"`)
	}
	t := &Threshold{Expr: expr, Field: parts[1], Op: parts[2]}
	alg, scen, ok := strings.Cut(parts[0], "/")
	if !ok || alg == "" || scen == "" || strings.Contains(scen, "/") {
		return nil, fmt.Errorf(`selector %q is not algorithm/scenario (use * for any, e.g. "*/steady")`, parts[0])
	}
	for _, p := range []string{alg, scen} {
		if _, err := path.Match(p, ""); err != nil {
			return nil, fmt.Errorf("selector %q: bad pattern %q", parts[0], p)
		}
	}
	t.Algorithm, t.Scenario = alg, scen
	dim, err := FieldDimension(t.Field)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(operators, t.Op) {
		return nil, fmt.Errorf("unknown operator %q (use <, <=, >, >= or ==)", t.Op)
	}
	if err := t.parseValue(strings.Join(parts[3:], ""), dim); err != nil {
		return nil, err
	}
	return t, nil
}

// parseValue reads the right-hand side: a number with an optional unit, a
// per-run name, or a number times a name ("2*limit", "0.98*target", "98%*target").
func (t *Threshold) parseValue(rhs string, dim Dimension) error {
	t.Factor = 1
	haveNumber := false
	for _, term := range strings.Split(rhs, "*") {
		if term == "" {
			return fmt.Errorf("value %q is not a number, a unit value like 5ms, or a product like 2*limit", rhs)
		}
		if _, ok := refs[term]; ok {
			if t.Ref != "" {
				return fmt.Errorf("value %q names more than one of %s", rhs, refNames())
			}
			if dim == Micros || dim == Seconds || dim == Bytes {
				return fmt.Errorf("%s is %s; %q is %s", t.Field, dim, term, refs[term])
			}
			t.Ref = term
			continue
		}
		if haveNumber {
			return fmt.Errorf("value %q multiplies two numbers; write their product", rhs)
		}
		v, err := parseQuantity(term, dim, t.Field)
		if err != nil {
			return err
		}
		t.Factor, haveNumber = v, true
	}
	return nil
}

// parseQuantity reads "5ms", "200B", "98%" or "3" into the base unit of dim.
func parseQuantity(s string, dim Dimension, field string) (float64, error) {
	num, unit := s, ""
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			num, unit = strings.TrimSuffix(s, u.suffix), u.suffix
			break
		}
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q is not a number, a unit value like 5ms, or a name (%s)", s, refNames())
	}
	if unit == "" {
		return v, nil
	}
	for _, u := range units {
		if u.suffix != unit {
			continue
		}
		switch {
		case u.dim == dim:
			return v * u.scale, nil
		case u.dim == Micros && dim == Seconds:
			return v * u.scale / 1e6, nil
		case u.suffix == "%" && dim == Plain:
			return v * u.scale, nil
		}
		return 0, fmt.Errorf("%s is %s; %q is %s", field, dim, s, unitDimension(u.suffix))
	}
	return v, nil
}

func unitDimension(suffix string) string {
	switch suffix {
	case "%":
		return "a percentage"
	case "B", "KiB", "MiB", "GiB":
		return "a size"
	default:
		return "a time"
	}
}

func refNames() string {
	names := make([]string, 0, len(refs))
	for n := range refs {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// Matches reports whether the threshold applies to the run algorithm/scenario.
func (t *Threshold) Matches(algorithm, scenario string) bool {
	a, _ := path.Match(t.Algorithm, algorithm)
	s, _ := path.Match(t.Scenario, scenario)
	return a && s
}

// MatchesAny reports whether the selector matches at least one of the runs,
// given as algorithm/scenario keys.
func (t *Threshold) MatchesAny(runs []string) bool {
	for _, k := range runs {
		alg, scen, _ := strings.Cut(k, "/")
		if t.Matches(alg, scen) {
			return true
		}
	}
	return false
}

// Evaluate checks every threshold on every run it selects and returns one
// ThresholdResult per pair, failures first. A field the run does not have
// (an incomplete run, a probe that did not run) fails, with a note.
func Evaluate(r *Result, ts []*Threshold) []ThresholdResult {
	out := []ThresholdResult{}
	for _, t := range ts {
		for i := range r.Runs {
			run := &r.Runs[i]
			if !t.Matches(run.Algorithm, run.Scenario) {
				continue
			}
			out = append(out, t.evaluate(run))
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return !out[i].OK && out[j].OK })
	return out
}

func (t *Threshold) evaluate(run *Run) ThresholdResult {
	res := ThresholdResult{Expression: t.Expr, Run: run.Key()}
	v, ok := FieldValue(run, t.Field)
	if !ok {
		res.Note = fmt.Sprintf("the run has no %s", t.Field)
		return res
	}
	res.Value = v
	against := t.Factor
	if t.Ref != "" {
		ref, ok := refValue(run, t.Ref)
		if !ok {
			res.Note = fmt.Sprintf("the run has no %s (%s)", t.Ref, refs[t.Ref])
			return res
		}
		against *= ref
	}
	res.Against = against
	switch t.Op {
	case "<":
		res.OK = v < against
	case "<=":
		res.OK = v <= against
	case ">":
		res.OK = v > against
	case ">=":
		res.OK = v >= against
	case "==":
		res.OK = v == against
	}
	return res
}

// refValue is the per-run quantity a threshold may name.
func refValue(run *Run, name string) (float64, bool) {
	switch name {
	case "limit":
		return float64(run.Params.Limit), run.Params.Limit > 0
	case "capacity":
		return float64(run.Params.Capacity), run.Params.Capacity > 0
	case "target":
		return run.Rate.TargetPerS, run.Rate.TargetPerS > 0
	case "bound":
		if run.Audit == nil {
			return 0, false
		}
		return float64(run.Audit.BoundWindow), true
	}
	return 0, false
}

// FieldOf returns the field a threshold expression reads ("" if unparsable).
func FieldOf(expr string) string {
	parts := strings.Fields(expr)
	if len(parts) < 2 {
		return ""
	}
	return parts[1]
}

// ThresholdResult is one threshold evaluated on one run.
type ThresholdResult struct {
	Expression string `json:"expression"`
	// Run is algorithm/scenario.
	Run string `json:"run"`
	// Value is what the run measured; Against is the right-hand side
	// worked out for this run (e.g. 2*limit = 200), in the field's unit.
	Value   float64 `json:"value"`
	Against float64 `json:"against"`
	OK      bool    `json:"ok"`
	// Note says why a threshold failed without a value (the run lacks the
	// field).
	Note string `json:"note,omitempty"`
}
