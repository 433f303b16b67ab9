package verdict

import (
	"strings"
	"testing"

	"github.com/rlbench/rlbench/result"
)

// starvedTimeouts is a passing result whose run had 199 calls time out,
// outside any fault, while rlbench waited for a CPU 31% of the traffic's
// time and the server spent 40us on each call of a limiter given 100ms.
func starvedTimeouts() *result.Result {
	r := passingResult()
	run := &r.Runs[0]
	run.Requests = result.Requests{Sent: 1199, Allowed: 600, Denied: 400, Errors: 199}
	run.Errors = []result.ErrorCount{{Kind: result.ErrorTimeout, Message: "i/o timeout", Count: 199}}
	run.Generator = &result.Generator{CPUShare: 0.6, CPUWaitShare: 0.31}
	run.Server = &result.Server{Command: "evalsha", Calls: 1199, Usec: 1199 * 40, UsecPerCall: 40}
	run.Params.CallTimeoutMs = 100
	return r
}

// TestAssessErrorBlame: calls that got no decision outside any fault are
// judged by their cause. A script that failed, or one slow enough on the
// server to time out, fails the result; timeouts while rlbench waited for
// a CPU, from a script the server ran quickly, leave it inconclusive with
// the machine named; with nothing else to blame, they are the limiter's.
func TestAssessErrorBlame(t *testing.T) {
	for _, tc := range []struct {
		why     string
		change  func(r *result.Result)
		verdict string
		kind    Kind
		count   int64
		want    string
	}{
		{"timeouts while rlbench was starved of CPU are the machine's", func(*result.Result) {}, result.Inconclusive, ErrorsNotLimiter, 199,
			"fixed_window/steady: inconclusive: 199 calls got no answer (timeout x199) while rlbench waited for a CPU 31% of the traffic's time, " +
				"where the server spent 40us on each call of the limiter, within the 100ms a call was given: the machine, not the limiter, failed them"},
		{"lost connections too", func(r *result.Result) {
			r.Runs[0].Errors = []result.ErrorCount{{Kind: result.ErrorTimeout, Message: "i/o timeout", Count: 150}, {Kind: result.ErrorEOF, Message: "EOF", Count: 49}}
		}, result.Inconclusive, ErrorsNotLimiter, 199, "(timeout x150, EOF x49)"},
		{"starved, the server's time unknown: still not a verdict on the limiter", func(r *result.Result) { r.Runs[0].Server = nil }, result.Inconclusive, ErrorsNotLimiter, 199,
			"while rlbench waited for a CPU 31% of the traffic's time: the machine"},
		{"the errors the faults excused are taken from the timeouts first", func(r *result.Result) {
			run := &r.Runs[0]
			run.Requests.Errors, run.Requests.FaultErrors, run.Requests.Sent = 399, 200, 1399
			run.Errors[0].Count = 399
		}, result.Inconclusive, ErrorsNotLimiter, 199, "199 calls got no answer"},
		{"one script error within the budget beside the timeouts", func(r *result.Result) {
			r.Runs[0].Errors = append(r.Runs[0].Errors, result.ErrorCount{Kind: "ERR", Message: "ERR user_script:1: oops", Count: 1})
			r.Runs[0].Errors[0].Count = 198
		}, result.Inconclusive, ErrorsNotLimiter, 198, "198 calls got no answer"},
		{"a script that errors fails, starved or not", func(r *result.Result) {
			r.Runs[0].Errors = []result.ErrorCount{{Kind: "ERR", Message: "ERR user_script:3: attempt to compare nil with number", Count: 199}}
		}, result.Fail, ErrorsOverBudget, 199, "Redis answered 199 of them with an error: the limiter's script or command failed"},
		{"a script on a key of the wrong type fails", func(r *result.Result) {
			r.Runs[0].Errors = []result.ErrorCount{{Kind: "WRONGTYPE", Message: "WRONGTYPE Operation against a key holding the wrong kind of value", Count: 199}}
		}, result.Fail, ErrorsOverBudget, 199, "Redis answered 199 of them with an error"},
		{"a script the server spent the whole timeout on fails, starved or not", func(r *result.Result) {
			r.Runs[0].Server.UsecPerCall = 150_000
		}, result.Fail, ErrorsOverBudget, 199, "the server spent 150ms on each call of the limiter, as long as the 100ms a call was given: the limiter is too slow"},
		{"timeouts with nothing else to blame are the limiter's", func(r *result.Result) { r.Runs[0].Generator.CPUWaitShare = 0.1 }, result.Fail, ErrorsOverBudget, 199,
			"199 of 1,199 calls got no decision"},
		{"failures of no kind (an older result) are the limiter's", func(r *result.Result) { r.Runs[0].Errors[0].Kind = "" }, result.Fail, ErrorsOverBudget, 199,
			"past the error budget"},
		{"starved, timeouts within the budget: a pass", func(r *result.Result) {
			r.Runs[0].Requests.Errors, r.Runs[0].Requests.Sent, r.Runs[0].Errors[0].Count = 1, 1001, 1
		}, result.Pass, 0, 0, ""},
	} {
		t.Run(tc.why, func(t *testing.T) {
			r := starvedTimeouts()
			tc.change(r)
			j := Assess(r)
			if j.Verdict != tc.verdict {
				t.Fatalf("verdict %s, want %s: %v", j.Verdict, tc.verdict, j.Reasons())
			}
			if tc.kind == 0 {
				return
			}
			f, ok := j.Runs[0].Finding(tc.kind)
			if !ok || f.Count != tc.count || !strings.Contains(f.Text, tc.want) {
				t.Fatalf("finding %s %+v (found %v), want count %d and %q", tc.kind, f, ok, tc.count, tc.want)
			}
			if reasons := j.Reasons(); len(reasons) != 1 || reasons[0] != f.Text {
				t.Errorf("reasons %q, want the finding's text", reasons)
			}
			// Never both: the errors are the limiter's or they are not.
			if j.Runs[0].Has(ErrorsOverBudget) == j.Runs[0].Has(ErrorsNotLimiter) {
				t.Errorf("findings %+v, inconclusive %+v", j.Runs[0].Findings, j.Runs[0].Inconclusive)
			}
		})
	}
}
