package calibrate_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/internal/calibrate"
	"github.com/rlbench/rlbench/internal/redistest"
)

// fixture reads one of the limiters written for init's tests, each in a
// way published limiters are written.
func fixture(t *testing.T, name string) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("../../profile/testdata/init", name+".lua"))
	if err != nil {
		t.Fatal(err)
	}
	return string(src)
}

// declared is a declaration of src with keys and args as templates.
func declared(t *testing.T, src string, keys, args []string, reply algorithms.ReplyLayout, s algorithms.Semantics) *algorithms.Declaration {
	t.Helper()
	d := &algorithms.Declaration{Name: "mine", Script: src, SourcePath: "mine.lua", Reply: reply, Semantics: s, CallsTime: strings.Contains(src, "TIME")}
	for _, k := range keys {
		d.Keys = append(d.Keys, algorithms.MustParseTemplate(k, algorithms.KeyVariables))
	}
	for _, a := range args {
		d.Args = append(d.Args, algorithms.MustParseTemplate(a, algorithms.ArgVariables))
	}
	return d
}

func argsOf(d *algorithms.Declaration) string {
	var out []string
	for _, a := range d.Args {
		out = append(out, fmt.Sprintf("%q", a.String()))
	}
	return strings.Join(out, " ")
}

// fixedFields are the lines a report changed.
func fixedFields(r *calibrate.Report) string {
	var out []string
	for _, f := range r.Findings {
		if f.Fixed {
			out = append(out, f.Field)
		}
	}
	return strings.Join(out, " ")
}

// TestCalibrateFixesWhatItCanProve: each guess below is wrong in one of
// the ways init has misread published limiters; the probes on a real
// Redis find it, make the one change that passes every probe, and say
// why. A right guess is left alone, and a limiter no change explains is
// doubted in words, changed nowhere.
func TestCalibrateFixesWhatItCanProve(t *testing.T) {
	rdb := redistest.Client(t)
	one := algorithms.ReplyLayout{Allowed: 1}
	key := []string{"rl:{${identity}}"}
	for i, tc := range []struct {
		why  string
		decl *algorithms.Declaration
		// fixed are the lines changed, args the templates after, allowed
		// how the answer reads after ("" to skip), bound the family a
		// bound replaces; passed whether the result passed every probe.
		fixed, args, allowed string
		bound                algorithms.Semantics
		passed               bool
		// says is a phrase the report's words hold.
		says string
	}{
		{"a right guess: the textbook fixed window",
			declared(t, mustRead(t, "../../profiles/examples/textbook_fixed_window.lua"), key, []string{"${limit}", "${window_s}"},
				algorithms.ReplyLayout{Allowed: 1, Remaining: 2, RetryAfterMs: 3}, algorithms.SemanticsFixedWindow),
			"", `"${limit}" "${window_s}"`, "", "", true, ""},
		{"a reply that says 1 when it throttles, read as 1 admitting",
			declared(t, fixture(t, "limited_flag"), key, []string{"${limit}", "${window_s}", "${now_s_float}"}, one, algorithms.SemanticsSlidingLog),
			"reply.allowed", `"${limit}" "${window_s}" "${now_s_float}"`, "1/zero", "", true, "the reply said 0 (10 times), then 1"},
		{"a table whose first element is 0 when admitted",
			declared(t, fixture(t, "limited_table"), key, []string{"${limit}", "${window_ms}"},
				algorithms.ReplyLayout{Allowed: 1, Remaining: 2, Values: map[algorithms.ReplyPart]algorithms.ReplyValue{
					algorithms.PartRetryAfter: {Position: 3, Unit: algorithms.Milliseconds, None: []string{"-1"}}}}, algorithms.SemanticsFixedWindow),
			"reply.allowed", `"${limit}" "${window_ms}"`, "1/zero", "", true, "read reversed"},
		{"a per-request cost (n_tokens) taken as the limit",
			declared(t, fixture(t, "n_tokens_bucket"), key, []string{"${burst}", "${rate_per_s}", "${limit}"}, one, algorithms.SemanticsTokenBucket),
			"ARGV[3]", `"${burst}" "${rate_per_s}" "${cost}"`, "", "", true, "admitted only the first of 11"},
		{"the caller's clock in milliseconds (elapsed * rate / 1000) guessed in seconds",
			declared(t, fixture(t, "ms_bucket"), key, []string{"${burst}", "${rate_per_s}", "${now_s_float}", "${cost}"}, one, algorithms.SemanticsTokenBucket),
			"ARGV[3]", `"${burst}" "${rate_per_s}" "${now_ms}" "${cost}"`, "", "", true, "${now_ms}, not ${now_s_float}"},
		{"a rate per second taken as a rate per window",
			declared(t, fixture(t, "rate_and_period"), key, []string{"${burst}", "${limit}", "${window_s}"}, one, algorithms.SemanticsTokenBucket),
			"ARGV[2]", `"${burst}" "${rate_per_s}" "${window_s}"`, "", "", true, "a token_bucket refilled at 2.5 a second"},
		{"a window in milliseconds guessed in seconds from its EXPIRE",
			declared(t, fixture(t, "sliding_ms"), key, []string{"${window_s}", "${limit}"},
				algorithms.ReplyLayout{Allowed: 1, Values: map[algorithms.ReplyPart]algorithms.ReplyValue{
					algorithms.PartRetryAfter: {Position: 2, Unit: algorithms.Microseconds, None: []string{"0"}}}}, algorithms.SemanticsSlidingLog),
			"ARGV[1]", `"${window_ms}" "${limit}"`, "", "", true, "where a sliding log admits none"},
		{"a bucket that refills in steps, its clock and its cost both misread: two changes, then declared by its bound",
			declared(t, fixture(t, "stepwise_bucket"), key, []string{"${burst}", "${window_ms}", "${limit}", "${now_s_float}", "${limit}"},
				algorithms.ReplyLayout{Allowed: 1, When: algorithms.AllowedNonNegative}, algorithms.SemanticsTokenBucket),
			"ARGV[4] ARGV[5] semantics", `"${burst}" "${window_ms}" "${limit}" "${now_ms}" "${cost}"`, "", algorithms.SemanticsTokenBucket, true, "refills in steps"},
		{"a count of requests declared as what is left",
			declared(t, "local n = redis.call('INCR', KEYS[1])\nif n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end\nreturn {n <= tonumber(ARGV[1]) and 1 or 0, n}",
				key, []string{"${limit}", "${window_ms}"}, algorithms.ReplyLayout{Allowed: 1, Remaining: 2}, algorithms.SemanticsFixedWindow),
			"reply.remaining", `"${limit}" "${window_ms}"`, "", "", true, "a count of requests, not what is left"},
		{"a retry-after in seconds declared in milliseconds",
			declared(t, "local n = redis.call('INCR', KEYS[1])\nif n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end\n"+
				"if n > tonumber(ARGV[1]) then return {0, tostring(redis.call('PTTL', KEYS[1]) / 1000)} end\nreturn {1, 0}",
				key, []string{"${limit}", "${window_ms}"}, algorithms.ReplyLayout{Allowed: 1, RetryAfterMs: 2}, algorithms.SemanticsFixedWindow),
			"reply.retry_after", `"${limit}" "${window_ms}"`, "", "", true, "unit s, not ms"},
		{"a limiter that admits everything: nothing to fix, doubted in words",
			declared(t, "redis.call('INCR', KEYS[1])\nredis.call('EXPIRE', KEYS[1], ARGV[2])\nreturn 1", key, []string{"${limit}", "${window_s}"}, one, algorithms.SemanticsFixedWindow),
			"", `"${limit}" "${window_s}"`, "", "", false, "admitted all 11, 1 past the limit"},
	} {
		t.Run(tc.why, func(t *testing.T) {
			t.Parallel()
			ns := fmt.Sprintf("rlbench:init:test%d:", i)
			rep, err := calibrate.Run(context.Background(), rdb, ns, calibrate.Guess{Declaration: tc.decl})
			if err != nil {
				t.Fatal(err)
			}
			var words []string
			for _, f := range rep.Findings {
				words = append(words, f.String())
			}
			all := strings.Join(words, "\n")
			if got := fixedFields(rep); got != tc.fixed {
				t.Errorf("changed %q, want %q:\n%s", got, tc.fixed, all)
			}
			if got := argsOf(rep.Declaration); got != tc.args {
				t.Errorf("args %s, want %s:\n%s", got, tc.args, all)
			}
			if tc.allowed != "" {
				if got := fmt.Sprintf("%d/%s", rep.Declaration.Reply.Allowed, rep.Declaration.Reply.When); got != tc.allowed {
					t.Errorf("allowed %s, want %s:\n%s", got, tc.allowed, all)
				}
			}
			if rep.BoundOf != tc.bound || rep.Passed != tc.passed {
				t.Errorf("bound of %q, passed %v; want %q, %v:\n%s", rep.BoundOf, rep.Passed, tc.bound, tc.passed, all)
			}
			if tc.says != "" && !strings.Contains(all, tc.says) {
				t.Errorf("the report does not say %q:\n%s", tc.says, all)
			}
			if tc.fixed == "" && tc.passed && len(rep.Findings) > 0 {
				t.Errorf("a right guess has findings:\n%s", all)
			}
			// Every key it wrote is under its namespace.
			keys, err := rdb.Keys(context.Background(), "*").Result()
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range keys {
				if !strings.HasPrefix(k, "rlbench:init:test") {
					t.Errorf("a key outside the namespace: %s", k)
				}
			}
		})
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(src)
}
