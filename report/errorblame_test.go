package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/resulttest"
	"github.com/rlbench/rlbench/result"
)

// TestSummaryErrorBlame: the summary says of a starved run's failed calls
// what the verdict decided. Timeouts while rlbench waited for a CPU, from
// a script the server ran quickly: the first line is inconclusive with the
// machine named, and the note on the wait says the failed calls are the
// machine's too. The same run with errors Redis answered fails, and the
// note says they are still the limiter's.
func TestSummaryErrorBlame(t *testing.T) {
	starved := func(kind, message string) *result.Result {
		r := resulttest.Sample()
		r.Runs = r.Runs[:1]
		run := &r.Runs[0]
		run.Requests = result.Requests{Sent: 1199, Allowed: 600, Denied: 400, Errors: 199}
		run.Errors = []result.ErrorCount{{Kind: kind, Message: message, Count: 199}}
		run.Generator = &result.Generator{CPUShare: 0.6, CPUWaitShare: 0.31}
		run.Server = &result.Server{Command: "evalsha", Calls: 1199, Usec: 1199 * 40, UsecPerCall: 40}
		run.Params.CallTimeoutMs = 100
		return r
	}
	for _, tc := range []struct {
		why         string
		r           *result.Result
		first, note string
		notFirst    string
	}{
		{"timeouts: the machine's", starved(result.ErrorTimeout, "i/o timeout"),
			"verdict: inconclusive: fixed_window/steady: 199 calls got no answer (timeout x199) while rlbench waited for a CPU 31% of the traffic's time",
			"its calls that got no answer are the machine's too", "verdict: fail"},
		{"a script's errors: the limiter's", starved("ERR", "ERR user_script:1: boom"),
			"verdict: fail: fixed_window/steady: 199 of 1,199 calls got no decision",
			"its failed calls are still the limiter's", "verdict: inconclusive"},
	} {
		var b bytes.Buffer
		if err := WriteSummary(&b, tc.r); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		first, _, _ := strings.Cut(out, "\n")
		if !strings.Contains(first, tc.first) || strings.Contains(first, tc.notFirst) {
			t.Errorf("%s: first line %q, want %s", tc.why, first, tc.first)
		}
		if !strings.Contains(out, "rlbench waited for a CPU 31%") || !strings.Contains(out, tc.note) {
			t.Errorf("%s: the summary lacks %q:\n%s", tc.why, tc.note, out)
		}
	}
}
