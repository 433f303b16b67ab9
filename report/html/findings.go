package html

import (
	"fmt"
	"sort"
	"strings"

	"github.com/rlbench/rlbench/internal/plural"
	"github.com/rlbench/rlbench/report"
	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/verdict"
)

// remarks says in a few sentences what this run showed about alg that a
// reader would not see at a glance in the tables: whether it kept its
// promise, how far it let one identity past the policy, where it stood
// among the algorithms on admissions, server time, client latency and
// memory, and anything that went wrong. Figures that are unremarkable
// (in the middle of the pack) are left to the tables, so the paragraphs of
// different algorithms say different things.
func remarks(v *view, alg string) []string {
	var out []string
	runs := v.algorithmRuns(alg)
	if len(runs) == 0 {
		return []string{"This result holds no run of it."}
	}
	out = append(out, promiseRemark(v, alg, runs)...)
	if r := exactRemark(runs); r != "" {
		out = append(out, r)
	}
	out = append(out, admissionRemarks(v, alg)...)
	if r := rankRemark(v, alg, "server time per decision", func(run *result.Run) (float64, bool) {
		if run.Server == nil || run.Server.Calls == 0 {
			return 0, false
		}
		return run.Server.UsecPerCall, true
	}, func(f float64) string { return fmt.Sprintf("%.1f µs", f) }); r != "" {
		out = append(out, r)
	}
	if r := rankRemark(v, alg, "p99 latency", func(run *result.Run) (float64, bool) {
		return float64(run.LatencyUs.P99), run.LatencyUs.Count > 0 && !report.ScheduleSlipped(run)
	}, func(f float64) string { return report.FormatMicros(int64(f)) }); r != "" {
		out = append(out, r)
	}
	if r := rankRemark(v, alg, "Redis memory per identity", func(run *result.Run) (float64, bool) {
		return run.Memory.PerIdentity()
	}, report.FormatSize); r != "" {
		out = append(out, r)
	}
	out = append(out, troubleRemarks(v, alg, runs)...)
	return out
}

// algorithmRuns are alg's runs in scenario order.
func (v *view) algorithmRuns(alg string) []*result.Run {
	var out []*result.Run
	for _, s := range v.scenarios {
		if run := v.run(alg, s); run != nil {
			out = append(out, run)
		}
	}
	return out
}

// promiseRemark says whether alg kept its own bound and agreed with its
// model, and how far it let one identity past the policy.
func promiseRemark(v *view, alg string, runs []*result.Run) []string {
	var broken, reset []string
	var worst *result.Run
	audited := false
	for _, run := range runs {
		a, found := run.Audit, v.verdictOf(run)
		if a == nil {
			continue
		}
		if !found.Judged {
			// The server dropped the limiter's state: its audit says
			// nothing about the limiter.
			reset = append(reset, run.Scenario)
			continue
		}
		audited = true
		if found.Promise == verdict.Broken {
			broken = append(broken, fmt.Sprintf("in %s it admitted %s beyond its own bound and disagreed with its model on %s %s",
				run.Scenario, report.FormatCount(a.Overshoot), report.FormatCount(a.ModelMismatches), plural.Noun(a.ModelMismatches, "decision", "decisions")))
		}
		if worst == nil || a.PolicyExcess > worst.Audit.PolicyExcess {
			worst = run
		}
	}
	var out []string
	if len(reset) > 0 {
		out = append(out, fmt.Sprintf("In %s Redis evicted keys or restarted during the run, so that run's audit says nothing about the limiter.",
			strings.Join(reset, ", ")))
	}
	if !audited {
		return append(out, "No other run of it was audited, so this result cannot say whether it keeps its promise.")
	}
	switch a := worst.Audit; {
	case len(broken) > 0:
		out = append(out, "It broke its promise: "+strings.Join(broken, "; ")+".")
	case a.Basis == result.AuditByBoundCallerTime:
		out = append(out, "It decides by the caller's clock, so it was judged by its bound alone on the true clock (each decision somewhere between its request's send and its reply), and kept it.")
	case a.Basis == result.AuditByBoundClientTime:
		out = append(out, "Its replies carry no server time, so it was judged by its bound alone, counting only admissions that fell in one window wherever in its round trip each was decided; it kept it.")
	case !a.HasModel():
		out = append(out, "Having no reference model, it was judged by its bound alone, and kept it.")
	default:
		out = append(out, "It kept its own bound and agreed with its reference model on every audited decision.")
	}
	a := worst.Audit
	limit := runLimit(v.r, worst)
	windowMs := runWindowMs(v.r, worst)
	if a.WindowMs > 0 {
		windowMs = a.WindowMs // a declared promise's own interval
	}
	window := report.FormatMillis(windowMs)
	switch {
	case a.PolicyExcess <= 0:
		out = append(out, fmt.Sprintf("No identity ever got more than the policy's %s within one %s window.", report.FormatCount(limit), window))
	case limit > 0:
		out = append(out, fmt.Sprintf("In %s one identity got %s admitted within one %s window, %.2fx the policy's %s (its bound allows %s).",
			worst.Scenario, report.FormatCount(a.MaxWindowAdmitted), window, float64(a.MaxWindowAdmitted)/float64(limit),
			report.FormatCount(limit), report.FormatCount(a.BoundWindow)))
	}
	return out
}

// exactRemark says, for an approximate algorithm, how often it decided
// otherwise than the exact one it approximates would have on the same
// arrivals, scenario by scenario.
func exactRemark(runs []*result.Run) string {
	var parts []string
	exact := ""
	for _, run := range runs {
		if run.Audit == nil || run.Audit.VsExact == nil {
			continue
		}
		c := run.Audit.VsExact
		exact = c.Algorithm
		part := fmt.Sprintf("in %s on %s of %s decisions (%s", run.Scenario, report.FormatCount(c.Differ), report.FormatCount(c.Decisions), report.FormatShare(c.DifferShare()))
		if c.Differ > 0 {
			part += fmt.Sprintf(": %s admitted that it would deny, %s denied that it would admit", report.FormatCount(c.AdmittedBeyond), report.FormatCount(c.DeniedWithin))
		}
		parts = append(parts, part+")")
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("On the same arrivals, at the same server times, the exact %s would have decided otherwise %s.", exact, strings.Join(parts, "; "))
}

// admissionRemarks names the scenarios where alg admitted clearly more or
// clearly less than the other algorithms did on the same traffic.
func admissionRemarks(v *view, alg string) []string {
	var out []string
	for _, s := range v.scenarios {
		run := v.run(alg, s)
		if run == nil || run.Requests.Sent == 0 {
			continue
		}
		share := func(r *result.Run) float64 { return float64(r.Requests.Allowed) / float64(r.Requests.Sent) }
		var others []float64
		for _, o := range v.scenarioRuns(s) {
			if o.Algorithm != alg && o.Requests.Sent > 0 {
				others = append(others, share(o))
			}
		}
		if len(others) == 0 {
			continue
		}
		sort.Float64s(others)
		mine, mid := share(run), others[len(others)/2]
		switch {
		case mine > mid*1.1 && mine > others[len(others)-1]:
			out = append(out, fmt.Sprintf("In %s it admitted the most: %.0f%% of requests, against %.0f%% for the middle of the others.", s, 100*mine, 100*mid))
		case mine < mid*0.9 && mine < others[0]:
			out = append(out, fmt.Sprintf("In %s it admitted the least: %.0f%% of requests, against %.0f%% for the middle of the others.", s, 100*mine, 100*mid))
		}
	}
	return out
}

// rankRemark says where alg stands on one figure among the algorithms of
// this result, when it is the best or the worst of at least three, taking
// each algorithm's figure from the scenario where all have one.
func rankRemark(v *view, alg, what string, figure func(*result.Run) (float64, bool), format func(float64) string) string {
	for _, s := range v.scenarios {
		var values []float64
		var mine float64
		found := false
		for _, run := range v.scenarioRuns(s) {
			f, ok := figure(run)
			if !ok {
				continue
			}
			values = append(values, f)
			if run.Algorithm == alg {
				mine, found = f, true
			}
		}
		if !found || len(values) < 3 {
			continue
		}
		sort.Float64s(values)
		switch mine {
		case values[0]:
			if values[1] > mine*1.05 {
				return fmt.Sprintf("It had the lowest %s in %s (%s; next %s).", what, s, format(mine), format(values[1]))
			}
		case values[len(values)-1]:
			if values[len(values)-2]*1.05 < mine {
				return fmt.Sprintf("It had the highest %s in %s (%s; next %s).", what, s, format(mine), format(values[len(values)-2]))
			}
		}
		return ""
	}
	return ""
}

// troubleRemarks lists what went wrong in alg's runs: calls without a
// decision, keys without a TTL, a schedule the generator could not keep,
// an incomplete run.
func troubleRemarks(v *view, alg string, runs []*result.Run) []string {
	var out []string
	for _, run := range runs {
		if run.Incomplete {
			out = append(out, fmt.Sprintf("Its %s run did not complete.", run.Scenario))
		}
		if q := run.Requests; q.Errors > 0 {
			out = append(out, fmt.Sprintf("In %s, %s of %s %s no decision.", run.Scenario, report.FormatCount(q.Errors), report.FormatCount(q.Sent), plural.Noun(q.Errors, "call got", "calls got")))
		}
		if leak, ok := v.verdictOf(run).Finding(verdict.KeyWithoutTTL); ok {
			out = append(out, fmt.Sprintf("In %s it left %s without a TTL: %s.", run.Scenario,
				report.FormatCount(leak.Count)+" "+plural.Noun(leak.Count, "key", "keys"), plural.Noun(leak.Count, "it never expires", "they never expire")))
		}
		if report.ScheduleSlipped(run) {
			out = append(out, fmt.Sprintf("In %s the generator fell behind its schedule, so that run's latency is the generator's queue more than %s's (p99 from the actual send: %s).",
				run.Scenario, alg, report.FormatMicros(run.LatencyUncorrectedUs.P99)))
		}
	}
	return out
}
