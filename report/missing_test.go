package report

import (
	"strings"
	"testing"

	"github.com/rlbench/rlbench/result"
)

// TestWhyNoMemory: a missing memory per identity says the run's own
// reason, and a run with the figure says none.
func TestWhyNoMemory(t *testing.T) {
	run := func(identities int, m *result.Memory) *result.Run {
		return &result.Run{Algorithm: "token_bucket", Scenario: "many", Identities: identities, Memory: m}
	}
	r := resultOf()
	for _, tc := range []struct {
		why  string
		mode string
		run  *result.Run
		want string
	}{
		{"the figure is there", "private", run(100_000, &result.Memory{Identities: 100_000, BytesPerIdentity: 150}), ""},
		{"a fill measured it", "private", run(100_000, &result.Memory{Identities: 712, ExpiredKeys: 99_288,
			Fill: &result.MemoryFill{Identities: 100_000, BytesPerIdentity: 205}}), ""},
		// The case a user met: a bucket's keys gone before the count, and
		// no fill (the run was on someone else's server).
		{"keys expired, no fill", "external", run(100_000, &result.Memory{Identities: 712, ExpiredKeys: 99_288,
			NoFill: "a fill holds the server for a transaction of up to 100,000 decisions: rlbench does so only on a server it started"}),
			"712 of 100,000 identities held a key when counted: 99,288 keys had expired (a bucket's key lives until the bucket is full again, a window's until its window ends), " +
				"and the hash tables grown for them are still counted; no fill measured it apart: a fill holds the server"},
		{"a few keys expired among many alive", "private", run(100_000, &result.Memory{Identities: 98_323, ExpiredKeys: 1_677}),
			"98,323 of 100,000 identities held a key when counted: 1,677 keys had expired"},
		{"too few identities by design", "private", run(50, &result.Memory{Identities: 17, ExpiredKeys: 33}),
			"its run in many had 50 identities, and memory per identity needs 1,000 holding a key"},
		{"a fill too small", "private", run(500, &result.Memory{ExpiredKeys: 500, Fill: &result.MemoryFill{Identities: 500, BytesPerIdentity: 300}}),
			"the fill that measured it apart had 500 identities, fewer than the 1,000 it takes"},
		{"the census failed", "private", run(100_000, &result.Memory{CensusFailed: true}), "the key census failed"},
		{"the server was replaced", "private", run(100_000, &result.Memory{Identities: 10_000, UsedMemoryUnread: true,
			Notes: []string{"no used_memory delta: the server was replaced 1 time by scheduled faults"}}), "no used_memory delta: the server was replaced"},
		{"embedded", "embedded", run(100_000, &result.Memory{Identities: 100_000, UsedMemoryUnread: true}), "the embedded server keeps no used_memory"},
		{"used_memory refused", "external", run(100_000, &result.Memory{Identities: 100_000, UsedMemoryUnread: true}), "used_memory was not read"},
		{"not read", "private", run(100_000, nil), "the server's memory was not read after the run"},
	} {
		r.Redis.Mode = tc.mode
		got := WhyNoMemory(r, tc.run)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want it to say %q", tc.why, got, tc.want)
		}
	}
}

// TestWhyNoExpectedAndKeySample: the page's audit and cost dashes say the
// run's own cause, and a run with the figures says none.
func TestWhyNoExpectedAndKeySample(t *testing.T) {
	r := resultOf()
	r.Redis.Mode = "private"
	run := func(a *result.Audit, m *result.Memory) *result.Run {
		return &result.Run{Algorithm: "checkout", Scenario: "edge", Identities: 10, Audit: a, Memory: m}
	}
	for _, tc := range []struct {
		why       string
		got, want string
	}{
		{"replayed", WhyNoExpected(run(&result.Audit{Basis: result.AuditByModel}, nil)), ""},
		{"a bound only", WhyNoExpected(run(&result.Audit{Basis: result.AuditByBound}, nil)), "judged by its bound only: it declares a bound"},
		{"caller's clock", WhyNoExpected(run(&result.Audit{Basis: result.AuditByBoundCallerTime}, nil)), "decides by its caller's clock"},
		{"no server time", WhyNoExpected(run(&result.Audit{Basis: result.AuditByBoundClientTime}, nil)), "its replies carry no server time"},
		{"sampled", WhyNoKeySample(r, run(nil, &result.Memory{Keys: 10, SampledKeys: 10})), ""},
		{"keys expired", WhyNoKeySample(r, run(nil, &result.Memory{ExpiredKeys: 1})), "no key of the run was alive when counted (1 key had expired)"},
		{"census failed", WhyNoKeySample(r, run(nil, &result.Memory{CensusFailed: true})), "the key census failed"},
		{"not read", WhyNoKeySample(r, run(nil, nil)), "the server was not read after the run"},
	} {
		if (tc.want == "") != (tc.got == "") || !strings.Contains(tc.got, tc.want) {
			t.Errorf("%s: %q, want it to say %q", tc.why, tc.got, tc.want)
		}
	}
}
