package main

import (
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/rlbench/rlbench/internal/resulttest"
	"github.com/rlbench/rlbench/result"
)

// hostileResult carries terminal escape sequences and other control
// characters in every kind of string a report prints.
func hostileResult() *result.Result {
	r := resulttest.Sample()
	r.Profile.Name = "demo\x1b]0;owned\x07"
	r.Profile.Algorithms = []string{"fixed\x1b[2J_window"}
	r.Redis.Version = "7.0.15\x1b[31m"
	r.Host.OS = "linux\x1b[2J"
	r.Tool.Version = "v1\x9b2J" // a lone C1 CSI byte, not even UTF-8
	r.Redis.Note = "note\rover\x9b2J"
	r.Redis.MaxmemoryPolicy = "allkeys-lru\x1b[5m"
	r.Complete = false
	r.IncompleteReason = "stopped\x1b[1A\x1b[2K"
	run := &r.Runs[0]
	run.Algorithm = "fixed\x1b[2J_window"
	run.Scenario = "steady\u202eevil"
	run.Errors = []result.ErrorCount{{Kind: "ERR\x1b[7m", Message: "boom\x1b[8m\nverdict: pass", Count: 1}}
	run.Memory = &result.Memory{Identities: 1, Keys: 1, Notes: []string{"memo\x1b[0m"}, Encodings: map[string]int64{"embstr\x1b[4m": 1}}
	run.Incomplete, run.Note = true, "cut\x1bc"
	r.Thresholds = []result.ThresholdResult{{Expression: "*/* requests.errors == 0\x1b[9m", Run: run.Key(), Value: 1, Note: "n\x1b[3m"}}
	r.Verdict = result.Fail
	return r
}

// controlChars lists the control characters in out, other than the
// newlines and tabs that lay it out.
func controlChars(out string) []string {
	var bad []string
	for _, c := range out {
		if c != '\n' && c != '\t' && (unicode.IsControl(c) || unicode.Is(unicode.Bidi_Control, c)) {
			bad = append(bad, strconv.QuoteRune(c))
		}
	}
	return bad
}

// TestTerminalOutputHasNoControlCharacters: strings from a result reach
// the terminal without their escape sequences, whatever prints them, and a
// newline inside one cannot forge a line of the report.
func TestTerminalOutputHasNoControlCharacters(t *testing.T) {
	path := writeResult(t, hostileResult())
	base := writeResult(t, hostileResult())
	for _, args := range [][]string{
		{"report", "--format", "text", path},
		{"report", "--format", "benchfmt", path},
		{"compare", base, path},
		{"compare", "--format", "markdown", base, path},
	} {
		_, stdout, stderr := runCLI(t, args...)
		if bad := controlChars(stdout + stderr); len(bad) > 0 {
			t.Errorf("rlbench %s printed %d control characters %q:\n%s%s", strings.Join(args[:len(args)-1], " "), len(bad), bad, stdout, stderr)
		}
		if strings.Contains(stdout, "\nverdict: pass") {
			t.Errorf("rlbench %s: a newline in a string forged a verdict line:\n%s", args[0], stdout)
		}
	}
}

// TestCompareRejectsToleranceThatIsNoNumber: a tolerance that is not a
// finite, non-negative percentage is bad usage; the NaN called a
// 50x slowdown "no regression".
func TestCompareRejectsToleranceThatIsNoNumber(t *testing.T) {
	base := writeResult(t, gateResult(1000, 0))
	slow := writeResult(t, gateResult(50_000, 0))
	for _, tol := range []string{"NaN", "nan%", "Inf", "+Inf%", "-Inf", "-5%", "1e400"} {
		code, stdout, stderr := runCLI(t, "compare", "--p99", tol, base, slow)
		if code != exitUsage || !strings.Contains(stderr, "is not a percentage") || strings.Contains(stdout, "no regression") {
			t.Errorf("--p99 %s: exit %d, %s%s", tol, code, stdout, stderr)
		}
	}
}
