package html

import (
	"fmt"
	"strings"

	"github.com/rlbench/rlbench/report"
	"github.com/rlbench/rlbench/result"
)

// findings says in plain sentences what each run of alg showed: how much
// it admitted, how much of one identity's traffic got through in one
// window against the policy and against the algorithm's own bound, whether
// the reference model agreed, its latency and its memory.
func findings(v *view, alg string) []finding {
	var out []finding
	for _, s := range v.scenarios {
		if run := v.run(alg, s); run != nil {
			out = append(out, finding{Scenario: s, Text: describeRun(v.r, run)})
		}
	}
	return out
}

// finding is what one run of an algorithm showed; Text follows "In
// <scenario>".
type finding struct{ Scenario, Text string }

func describeRun(r *result.Result, run *result.Run) string {
	var b strings.Builder
	q := run.Requests
	if run.Incomplete {
		b.WriteString("(incomplete) ")
	}
	if q.Sent == 0 {
		b.WriteString("it was sent no requests.")
		return b.String()
	}
	fmt.Fprintf(&b, "it admitted %s of %s requests (%.1f%%)", report.FormatCount(q.Allowed), report.FormatCount(q.Sent), 100*float64(q.Allowed)/float64(q.Sent))
	if q.Errors > 0 {
		fmt.Fprintf(&b, "; %s got no decision", report.FormatCount(q.Errors))
	}
	b.WriteString(". ")
	if e := run.Eviction; e.ResetState() {
		b.WriteString("Redis dropped limiter state during this run (it evicted or restarted), so what follows says nothing about the limiter. ")
	}
	if a := run.Audit; a != nil {
		limit := runLimit(r, run)
		fmt.Fprintf(&b, "At most %s requests of one identity got through within one %s window", report.FormatCount(a.MaxWindowAdmitted), report.FormatMillis(runWindowMs(r, run)))
		if limit > 0 && a.MaxWindowAdmitted > limit {
			fmt.Fprintf(&b, ": %.2fx the policy limit of %s", float64(a.MaxWindowAdmitted)/float64(limit), report.FormatCount(limit))
		} else {
			fmt.Fprintf(&b, ", within the policy limit of %s", report.FormatCount(limit))
		}
		if a.Overshoot > 0 {
			fmt.Fprintf(&b, ", and beyond its own bound of %s: %s requests too many over %s identities. ",
				report.FormatCount(a.BoundWindow), report.FormatCount(a.Overshoot), report.FormatCount(a.Violations))
		} else {
			fmt.Fprintf(&b, ", and within its own bound of %s. ", report.FormatCount(a.BoundWindow))
		}
		if a.ModelMismatches == 0 {
			b.WriteString("The reference model agreed with every decision. ")
		} else {
			fmt.Fprintf(&b, "The reference model disagreed on %s decisions (it would have admitted %s). ",
				report.FormatCount(a.ModelMismatches), report.FormatCount(a.ExpectedAllowed))
		}
	}
	fmt.Fprintf(&b, "Latency p50 %s, p99 %s", report.FormatMicros(run.LatencyUs.P50), report.FormatMicros(run.LatencyUs.P99))
	if m := run.Memory; m != nil {
		if bpi, ok := m.PerIdentity(); ok {
			fmt.Fprintf(&b, "; Redis held %.0f B per identity", bpi)
		}
		if m.KeysWithoutTTL > 0 {
			fmt.Fprintf(&b, ", and %s keys had no TTL (a leak)", report.FormatCount(m.KeysWithoutTTL))
		}
	}
	b.WriteString(".")
	return b.String()
}
