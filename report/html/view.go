package html

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/rlbench/rlbench/report"
	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/verdict"
)

// view indexes a result for rendering: its scenarios and algorithms in
// report order, each run by algorithm and scenario, the verdict on the
// result and on each run, and one colour per algorithm shared by every
// plot and the HTML page.
type view struct {
	r          *result.Result
	judgement  verdict.Judgement
	verdicts   map[*result.Run]*verdict.Run
	scenarios  []string
	algorithms []string
	runs       map[runKey]*result.Run
	colors     palette
	slugs      map[string]string
	// sweeps are the result's sweeps of clock skews.
	sweeps []report.Sweep
}

type runKey struct{ algorithm, scenario string }

// newView orders scenarios as they first appear in the runs, and
// algorithms as the profile lists them, then any others as they appear.
func newView(r *result.Result) *view {
	v := &view{r: r, judgement: verdict.Assess(r), verdicts: map[*result.Run]*verdict.Run{},
		runs: map[runKey]*result.Run{}, slugs: map[string]string{}}
	v.sweeps = report.SkewSweeps(r, v.judgement)
	seenAlg := map[string]bool{}
	seenScenario := map[string]bool{}
	for i := range r.Runs {
		run := &r.Runs[i]
		v.verdicts[run] = &v.judgement.Runs[i]
		v.runs[runKey{run.Algorithm, run.Scenario}] = run
		if !seenScenario[run.Scenario] {
			seenScenario[run.Scenario] = true
			v.scenarios = append(v.scenarios, run.Scenario)
		}
	}
	for _, a := range r.Profile.Algorithms {
		if !seenAlg[a] && v.hasAlgorithm(a) {
			seenAlg[a] = true
			v.algorithms = append(v.algorithms, a)
		}
	}
	for i := range r.Runs {
		if a := r.Runs[i].Algorithm; !seenAlg[a] {
			seenAlg[a] = true
			v.algorithms = append(v.algorithms, a)
		}
	}
	// The profile's list comes first so an algorithm keeps its colour even
	// when an interrupted invocation never ran it.
	v.colors = newPalette(append(append([]string{}, r.Profile.Algorithms...), v.algorithms...))
	used := map[string]bool{}
	for _, s := range v.scenarios {
		slug := fileSlug(s)
		for n := 2; used[slug]; n++ {
			slug = fmt.Sprintf("%s-%d", fileSlug(s), n)
		}
		used[slug] = true
		v.slugs[s] = slug
	}
	return v
}

func (v *view) hasAlgorithm(alg string) bool {
	for i := range v.r.Runs {
		if v.r.Runs[i].Algorithm == alg {
			return true
		}
	}
	return false
}

// verdictOf is what the verdict found in run, one of v's result's runs.
func (v *view) verdictOf(run *result.Run) *verdict.Run { return v.verdicts[run] }

// run is the run of alg in scenario, or nil.
func (v *view) run(alg, scenario string) *result.Run { return v.runs[runKey{alg, scenario}] }

// scenarioRuns are the runs of one scenario in algorithm order.
func (v *view) scenarioRuns(scenario string) []*result.Run {
	var out []*result.Run
	for _, a := range v.algorithms {
		if run := v.run(a, scenario); run != nil {
			out = append(out, run)
		}
	}
	return out
}

// scenariosWith lists, in order, the scenarios where at least one run
// has what has asks for.
func (v *view) scenariosWith(has func(*result.Run) bool) []string {
	var out []string
	for _, s := range v.scenarios {
		for _, run := range v.scenarioRuns(s) {
			if has(run) {
				out = append(out, s)
				break
			}
		}
	}
	return out
}

// fileSlug turns a scenario name into a file-name part: letters, digits,
// dot, dash and underscore pass, anything else becomes an underscore, and
// past maxSlugBytes it is cut and ends in a hash of the whole name.
func fileSlug(s string) string {
	var b strings.Builder
	for _, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_':
			b.WriteRune(c)
		case c == '.' && b.Len() > 0:
			b.WriteRune(c)
		default:
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "_"
	}
	out := b.String()
	if len(out) > maxSlugBytes {
		// Cut, and told apart from every other name cut the same way by a
		// hash of the whole name.
		sum := sha256.Sum256([]byte(s))
		out = out[:maxSlugBytes-9] + "-" + hex.EncodeToString(sum[:4])
	}
	return out
}

// maxSlugBytes bounds what fileSlug makes of a name: a file named by two
// of them (an algorithm's and a scenario's), a plot's or a histogram's
// kind and a temporary file's suffix stays well within the 255 bytes a
// file name may have, whatever length the names in a result have.
const maxSlugBytes = 80
