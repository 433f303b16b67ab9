package report

import (
	"fmt"
	"strings"

	"github.com/rlbench/rlbench/internal/plural"
	"github.com/rlbench/rlbench/result"
)

// A figure a table cannot show is a dash with its cause, said from the
// run's own values: never a blank a reader has to guess at, and never a
// general reason where the run has its own.

// WhyNoMemory says why run has no memory per identity; empty when it has
// one.
func WhyNoMemory(r *result.Result, run *result.Run) string {
	m := run.Memory
	if _, ok := m.PerIdentity(); ok {
		return ""
	}
	min := FormatCount(result.MinIdentitiesForBytes)
	switch {
	case r.Redis.Mode == "embedded":
		return "the embedded server keeps no used_memory"
	case m == nil:
		return "the server's memory was not read after the run (it stopped before its end)"
	case m.CensusFailed && refusedCensus(run) != "":
		return "the key census was not taken, so the identities holding a key are unknown: " + refusedCensus(run)
	case m.CensusFailed:
		return "the key census failed, so the identities holding a key are unknown"
	case m.Fill != nil:
		return fmt.Sprintf("its keys expired before they were counted, and the fill that measured it apart had %s identities, fewer than the %s it takes",
			FormatCount(m.Fill.Identities), min)
	}
	for _, n := range m.Notes {
		if strings.HasPrefix(n, "no used_memory") {
			return n
		}
	}
	if m.UsedMemoryUnread {
		for _, u := range run.Unavailable {
			if u.Figure == "memory" || strings.HasPrefix(u.Figure, "memory.") {
				return fmt.Sprintf("used_memory was not read: the user may not run %s (%s)", u.Command, u.Reason)
			}
		}
		return "used_memory was not read before and after the run"
	}
	alive := fmt.Sprintf("%s of %s identities held a key when counted", FormatCount(m.Identities), FormatCount(int64(run.Identities)))
	switch {
	case int64(run.Identities) < result.MinIdentitiesForBytes:
		return fmt.Sprintf("its run in %s had %s %s, and memory per identity needs %s holding a key (fewer give allocator noise, not a figure): "+
			"a cardinality scenario measures it", run.Scenario, FormatCount(int64(run.Identities)), plural.Noun(int64(run.Identities), "identity", "identities"), min)
	case m.ExpiredKeys > 0:
		why := fmt.Sprintf("%s: %s keys had expired (a bucket's key lives until the bucket is full again, a window's until its window ends), "+
			"and the hash tables grown for them are still counted", alive, FormatCount(m.ExpiredKeys))
		if m.NoFill != "" {
			return why + "; no fill measured it apart: " + m.NoFill
		}
		return why + "; a cardinality scenario measures it apart"
	}
	return fmt.Sprintf("%s; memory per identity needs %s holding a key (fewer give allocator noise, not a figure)", alive, min)
}

// WhyNoServerTime says why run has no server time per decision; empty when
// it has one.
func WhyNoServerTime(r *result.Result, run *result.Run) string {
	if s := run.Server; s != nil && s.Calls > 0 {
		return ""
	}
	switch {
	case r.Redis.Mode == "embedded":
		return "the embedded server keeps no command statistics"
	case run.Memory != nil:
		for _, n := range run.Memory.Notes {
			if strings.HasPrefix(n, "no commandstats") {
				return n
			}
		}
	}
	return "the server gave no command statistics for its decisions"
}

// WhyNoExcess says why run has no figure of how far one identity got past
// the policy; empty when it has one.
func WhyNoExcess(run *result.Run) string {
	if run.Audit != nil {
		return ""
	}
	return "it was not audited (audit.identities: 0, or the run stopped before the audit)"
}

// WhyNoExpected says why run has no expected admissions or mismatches (its
// decisions were not replayed through a reference model); empty when they
// were.
func WhyNoExpected(run *result.Run) string {
	a := run.Audit
	switch {
	case a == nil:
		return WhyNoExcess(run)
	case a.HasModel():
		return ""
	case a.Basis == result.AuditByBound:
		return "judged by its bound only: it declares a bound, not a semantics with a reference model to replay"
	case a.Basis == result.AuditByBoundCallerTime:
		return "judged by its bound only: it decides by its caller's clock, which a model on the server's time cannot replay"
	case a.Basis == result.AuditByBoundClientTime:
		return "judged by its bound only: its replies carry no server time to replay its model at"
	}
	return "its decisions were not replayed through a reference model"
}

// WhyNoKeySample says why run has no MEMORY USAGE or encodings of its keys;
// empty when it has them.
func WhyNoKeySample(r *result.Result, run *result.Run) string {
	m := run.Memory
	switch {
	case m != nil && (m.SampledKeys > 0 || m.MemoryUsageSampledBytes > 0):
		return ""
	case r.Redis.Mode == "embedded":
		return "the embedded server has no MEMORY USAGE"
	case m == nil:
		return "the server was not read after the run (it stopped before its end)"
	case m.CensusFailed && refusedCensus(run) != "":
		return "the key census was not taken: " + refusedCensus(run)
	case m.CensusFailed:
		return "the key census failed"
	case m.Keys == 0 && m.ExpiredKeys > 0:
		return fmt.Sprintf("no key of the run was alive when counted (%s %s expired)", FormatCount(m.ExpiredKeys), plural.Noun(m.ExpiredKeys, "key had", "keys had"))
	case m.Keys == 0:
		return "no key of the run was alive when counted"
	}
	for _, n := range m.Notes {
		if strings.HasPrefix(n, "memory sample failed") {
			return n
		}
	}
	for _, u := range run.Unavailable {
		if u.Figure == "memory.memory_usage_sampled_bytes" || u.Figure == "memory.sampled_keys" {
			return fmt.Sprintf("the user may not run %s (%s)", u.Command, u.Reason)
		}
	}
	return "the result holds no sample of the keys (memory.sampled_keys: 0; a result written before rlbench sampled them)"
}

// WhyNoOffered says why run has no figure of the most one identity
// offered within one window (audit.power); empty when it has one.
func WhyNoOffered(run *result.Run) string {
	switch {
	case run.Audit == nil:
		return WhyNoExcess(run)
	case run.Audit.Power != nil:
		return ""
	}
	return "its audit holds no audit.power (a result written before rlbench recorded what each run could have caught, or merged from one)"
}

// WhyNoWrong says why run has no share of decisions decided otherwise
// than the ideal limiter; empty when some of its decisions were compared.
func WhyNoWrong(run *result.Run) string {
	acc := run.Accuracy
	switch {
	case acc != nil && acc.Decisions > 0:
		return ""
	case run.Audit == nil:
		return WhyNoExcess(run)
	case acc != nil && acc.FaultDecisions > 0:
		return fmt.Sprintf("each of its %s compared %s fell in a fault's window or after a reset, where the ideal's state is unknown, so none was counted",
			FormatCount(acc.FaultDecisions), plural.Noun(acc.FaultDecisions, "decision", "decisions"))
	case run.Audit.Identities == 0 || run.Audit.Decisions == 0:
		return "no identity's decisions were audited, so none was set beside the ideal"
	case acc == nil:
		return "the result holds no comparison with the ideal limiter (runs[].accuracy: a result written before rlbench made one, or merged from one)"
	}
	return "no decision of it was set beside the ideal"
}

// WhyNoLatency says why run has no latency figures; empty when its
// histogram holds some call.
func WhyNoLatency(run *result.Run) string {
	q := run.Requests
	switch {
	case run.LatencyUs.Count > 0:
		return ""
	case q.Sent == 0 && run.Incomplete:
		return "it sent no request before it stopped"
	case q.Sent == 0:
		return "it sent no request"
	case q.Decisions() == 0:
		return fmt.Sprintf("none of its %s %s got a decision (%s %s)", FormatCount(q.Sent), plural.Noun(q.Sent, "request", "requests"),
			FormatCount(q.Errors), plural.Noun(q.Errors, "error", "errors"))
	}
	return "its latency histogram holds no call"
}

// WhySlipped says why a run's p99 is left out as generator-bound: the
// share of its requests that went out late for want of the generator's
// workers or CPU; empty when it kept its schedule.
func WhySlipped(run *result.Run) string {
	if !ScheduleSlipped(run) {
		return ""
	}
	late := GeneratorLate(run)
	return fmt.Sprintf("the generator fell behind the schedule of %s (%s of %s requests went out more than 1ms late, not counting a scheduled fault's), "+
		"so its latency is mostly the generator's own queue; more concurrency, pipelining or a lower rate would keep the schedule",
		run.Scenario, FormatCount(late), FormatCount(run.Requests.Sent))
}

// whyNoRSS says why a run has no figure of rlbench's own resident set;
// empty when it has one.
func whyNoRSS(r *result.Result, m *result.Memory) string {
	if m.RlbenchPeakRSSBytes > 0 {
		return ""
	}
	if r.Host.OS != "" && r.Host.OS != "linux" {
		return "rlbench reads its resident set from /proc/self/statm, which " + r.Host.OS + " does not have"
	}
	return "the result holds no resident set of rlbench's (memory.rlbench_peak_rss_bytes: 0; /proc/self/statm could not be read, or a result written before rlbench recorded it)"
}

// WhyNoEncodings says why run has no OBJECT ENCODING counts of its keys;
// empty when it has them.
func WhyNoEncodings(r *result.Result, run *result.Run) string {
	m := run.Memory
	if m != nil && len(m.Encodings) > 0 {
		return ""
	}
	if why := WhyNoKeySample(r, run); why != "" {
		return why
	}
	for _, u := range run.Unavailable {
		if u.Figure == "memory.encodings" {
			return fmt.Sprintf("the user may not run %s (%s)", u.Command, u.Reason)
		}
	}
	return "the result holds no OBJECT ENCODING of its keys (memory.encodings: a result written before rlbench recorded them)"
}

// refusedCensus is, when the server refused the user a command the key
// census needs, which and what it said; "" when it did not.
func refusedCensus(run *result.Run) string {
	for _, u := range run.Unavailable {
		if u.Figure == "memory.keys" {
			return fmt.Sprintf("the user may not run %s (%s)", u.Command, u.Reason)
		}
	}
	return ""
}
