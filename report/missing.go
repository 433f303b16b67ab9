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
		return fmt.Sprintf("its largest run (%s) had %s %s, and memory per identity needs %s holding a key (fewer give allocator noise, not a figure): "+
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
	case m != nil && m.SampledKeys > 0:
		return ""
	case r.Redis.Mode == "embedded":
		return "the embedded server has no MEMORY USAGE"
	case m == nil:
		return "the server was not read after the run (it stopped before its end)"
	case m.CensusFailed:
		return "the key census failed"
	case m.Keys == 0 && m.ExpiredKeys > 0:
		return fmt.Sprintf("no key of the run was alive when counted (%s %s expired)", FormatCount(m.ExpiredKeys), plural.Noun(m.ExpiredKeys, "key had", "keys had"))
	case m.Keys == 0:
		return "no key of the run was alive when counted"
	}
	return "the sample of keys was not read"
}
