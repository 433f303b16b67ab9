package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/rlbench/rlbench/internal/plural"
	"github.com/rlbench/rlbench/result"
)

// compareWarnings says what makes two results less comparable than they
// look: they come from different profiles, policies, hosts or servers, a
// run ran with other parameters, figures were not repeated, or one side
// has no reference to calibrate against.
func compareWarnings(base, cur *result.Result, tol Tolerances) []string {
	out := []string{}
	bp, cp := base.Profile, cur.Profile
	switch {
	case bp.Name != cp.Name:
		out = append(out, fmt.Sprintf("the results come from different profiles (%s and %s): runs are matched by algorithm/scenario name only", bp.Name, cp.Name))
	case bp.SHA256 != "" && cp.SHA256 != "" && bp.SHA256 != cp.SHA256:
		out = append(out, fmt.Sprintf("profile %s changed between the two results (SHA-256 %s and %s): a scenario of one name may not be the same scenario",
			bp.Name, shortHash(bp.SHA256), shortHash(cp.SHA256)))
	}
	if bp.Policy != cp.Policy {
		out = append(out, fmt.Sprintf("different policies: %s in the baseline, %s now", FormatPolicy(bp.Policy), FormatPolicy(cp.Policy)))
	}
	if b, c := describeHost(base.Host), describeHost(cur.Host); b != c {
		out = append(out, fmt.Sprintf("the results come from different hosts (%s, and now %s): absolute latency, server cost and throughput do not compare; the relative figures are calibrated against each run's own reference", b, c))
	}
	if b, c := describeServer(base), describeServer(cur); b != c {
		out = append(out, fmt.Sprintf("different Redis servers: %s in the baseline, %s now", b, c))
	}
	byKey := map[string]*result.Run{}
	for i := range cur.Runs {
		byKey[cur.Runs[i].Key()] = &cur.Runs[i]
	}
	var changed, single, uncalibrated, faulted []string
	for i := range base.Runs {
		b := &base.Runs[i]
		c, ok := byKey[b.Key()]
		if !ok {
			continue
		}
		for _, side := range []struct {
			which string
			run   *result.Run
		}{{"baseline", b}, {"current", c}} {
			if sent, planned, short := shortOfPlan(side.run); short && inFault(side.run) {
				faulted = append(faulted, fmt.Sprintf("%s (%s: sent %s of %s)", b.Key(), side.which, FormatCount(sent), FormatCount(planned)))
			}
		}
		if bs, cs := describeParams(base, b), describeParams(cur, c); bs != cs {
			changed = append(changed, fmt.Sprintf("%s (%s, now %s)", b.Key(), bs, cs))
		}
		if !repeated(b, c) {
			single = append(single, b.Key())
		}
		if (b.Relative == nil) != (c.Relative == nil) {
			uncalibrated = append(uncalibrated, b.Key())
		}
	}
	if len(changed) > 0 {
		out = append(out, "runs with other parameters: "+listSome(changed, 3))
	}
	if len(single) > 0 {
		exempt := ""
		var given []string
		for _, name := range []string{"p50", "p99", "throughput"} {
			if tol.Given[name] {
				given = append(given, "--"+name)
			}
		}
		if len(given) > 0 {
			exempt = " (but for the tolerances given: " + strings.Join(given, ", ") + ")"
		}
		out = append(out, fmt.Sprintf("a single run has no spread: %d %s not repeated on both sides, so %s latency and throughput are judged only on order-of-magnitude changes%s; record both with rlbench run --repeat 5 to tell noise from change",
			len(single), plural.Noun(len(single), "run was", "runs were"), plural.Noun(len(single), "its", "their"), exempt))
	}
	if len(faulted) > 0 {
		out = append(out, "runs short of their plan during a fault (scheduled, or the server stalled, restarted or lost state under the watch), "+
			"as their verdict excuses: their figures are judged only where they show a finding: "+listSome(faulted, 3))
	}
	if len(uncalibrated) > 0 {
		out = append(out, fmt.Sprintf("only one side measured a reference in %s: latency, server cost and throughput are compared as absolute figures there, which move with the machine's load; re-record the older result",
			listSome(uncalibrated, 3)))
	}
	return out
}

// repetitions is how often every run of r was repeated (1 when some run
// was not).
func repetitions(r *result.Result) int {
	n := 0
	for i := range r.Runs {
		c := 1
		if rep := r.Runs[i].Repeats; rep != nil {
			c = rep.Count
		}
		if i == 0 || c < n {
			n = c
		}
	}
	return n
}

func describeHost(h result.HostInfo) string {
	s := DescribeHost(h)
	if h.Name != "" {
		s = h.Name + " " + s
	}
	return s
}

func describeServer(r *result.Result) string { return DescribeRedis(r) }

// describeParams is what a run ran with, as far as a comparison cares.
func describeParams(r *result.Result, run *result.Run) string {
	p := run.Params
	s := fmt.Sprintf("policy %s, rate %s, %d identities, %gs, %d requests, concurrency %d",
		FormatPolicyShort(r.RunPolicy(run)), p.Rate, run.Identities, p.DurationS, p.Requests, p.Concurrency)
	if p.Pipeline != "" {
		s += ", pipeline " + p.Pipeline
	}
	return s
}

func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// listSome joins the first n items, and says how many more there are.
func listSome(items []string, n int) string {
	sort.Strings(items)
	if len(items) <= n {
		return strings.Join(items, "; ")
	}
	return fmt.Sprintf("%s; and %d more", strings.Join(items[:n], "; "), len(items)-n)
}
