package calibrate

import (
	"strings"
	"testing"
	"time"

	"github.com/rlbench/rlbench/algorithms"
)

// outcomeOf is a burst's outcome from its answers, 1 admitting.
func outcomeOf(answers ...string) outcome {
	var o outcome
	for _, a := range answers {
		o.admitted = append(o.admitted, a == "1")
		o.answers = append(o.answers, a)
	}
	return o
}

func repeat(a string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = a
	}
	return out
}

// TestLimitThenDenyInWords: a burst that admits the limit and denies the
// next holds; every other shape fails, said in words a user can act on.
func TestLimitThenDenyInWords(t *testing.T) {
	for _, tc := range []struct {
		why  string
		o    outcome
		ok   bool
		says string
	}{
		{"the limit, then a denial", outcomeOf(append(repeat("1", 10), "0")...), true, ""},
		{"reversed: 0 to the limit, 1 to the next", outcomeOf(append(repeat("0", 10), "1")...), false, "denied the first 10 and admitted the last (the reply said 0 (10 times), then 1)"},
		{"the cost taken for the limit", outcomeOf(append([]string{"1"}, repeat("0", 10)...)...), false, "admitted only the first of 11"},
		{"a window too short to hold anything", outcomeOf(repeat("1", 11)...), false, "admitted all 11, 1 past the limit"},
		{"nothing ever", outcomeOf(repeat("0", 11)...), false, "denied all 11"},
		{"a count, said briefly", outcome{admitted: repeat1(11), answers: []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11"}}, false, "the reply said 1, 2, 3, ..., 11"},
	} {
		v := limitThenDeny(tc.o, 10, "it")
		if v.ok != tc.ok || !strings.Contains(v.text, tc.says) {
			t.Errorf("%s: ok %v, %q; want %v, %q", tc.why, v.ok, v.text, tc.ok, tc.says)
		}
	}
}

func repeat1(n int) []bool {
	out := make([]bool, n)
	for i := range out {
		out[i] = true
	}
	return out
}

// TestRefillHalfway: halfway through the refill policy's window a bucket
// refilled at 2.5 a second admits about 4 (or what a whole-second clock
// gives: 2 or 5), never 10 (a rate per window taken per second) nor 0 (a
// rate per millisecond); a fixed window admits none or all; a sliding log
// none; no family, anything.
func TestRefillHalfway(t *testing.T) {
	half := 1500 * time.Millisecond
	n := func(k int) outcome { return outcomeOf(append(repeat("1", k), repeat("0", 11-k)...)...) }
	for _, tc := range []struct {
		why     string
		s       algorithms.Semantics
		k       int
		ok, low bool
	}{
		{"a bucket, refilled little by little", algorithms.SemanticsTokenBucket, 4, true, false},
		{"a bucket on a whole-second clock, one second passed", algorithms.SemanticsTokenBucket, 2, true, false},
		{"a bucket on a whole-second clock, two seconds passed", algorithms.SemanticsGCRA, 5, true, false},
		{"a rate per window taken for one per second", algorithms.SemanticsTokenBucket, 10, false, false},
		{"a rate per millisecond taken for one per second", algorithms.SemanticsLeakyBucket, 0, false, true},
		{"a fixed window before its end", algorithms.SemanticsFixedWindow, 0, true, false},
		{"a fixed window whose boundary fell between", algorithms.SemanticsFixedWindow, 10, true, false},
		{"a fixed window that refilled like a bucket", algorithms.SemanticsFixedWindow, 4, false, false},
		{"a sliding log", algorithms.SemanticsSlidingLog, 0, true, false},
		{"no family", algorithms.SemanticsBound, 7, true, false},
	} {
		v := refillVerdict(n(tc.k), tc.s, half)
		if v.ok != tc.ok || v.low != tc.low {
			t.Errorf("%s: admitted %d: ok %v low %v (%s); want ok %v low %v", tc.why, tc.k, v.ok, v.low, v.text, tc.ok, tc.low)
		}
	}
}

// TestReadingsOfTheAnswer: the answer is read the guess's way first, then
// reversed, then at every other position, as a count where the replies
// rose by one; the guess's own reading is never listed twice.
func TestReadingsOfTheAnswer(t *testing.T) {
	raw := func(vals ...any) call { return call{raw: vals} }
	var first burst
	for i := 1; i <= 11; i++ {
		first.calls = append(first.calls, raw(int64(0), int64(i), int64(-1)))
	}
	rs := readings(algorithms.ReplyLayout{Allowed: 1}, []*run{{first: first}})
	var got []string
	for _, r := range rs {
		got = append(got, describeAllowed(r.layout))
	}
	want := []string{
		"position 1, 1 (or true) admits",
		"position 1, 0 (or false) admits (when: zero)",
		"position 1, when: nonzero",
		"position 2, 1 (or true) admits",
		"position 2, 0 (or false) admits (when: zero)",
		"position 2, the count so far, admitting while it is at most the limit (when: count)",
		"position 3, 1 (or true) admits",
		"position 3, 0 (or false) admits (when: zero)",
		"position 3, when: nonnegative",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("readings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if f, ok := flipped(algorithms.ReplyLayout{Allowed: 2, Admit: []string{"OK"}, Deny: []string{"NO"}}); !ok || f.Admit[0] != "NO" || f.Deny[0] != "OK" {
		t.Errorf("texts reversed: %+v", f)
	}
	if _, ok := flipped(algorithms.ReplyLayout{Allowed: 1, When: algorithms.AllowedCost}); ok {
		t.Error("the units granted have no reverse")
	}
}

// TestRoundedDown: what is left less a fraction, as a Lua number reaches
// Redis, is told apart from a count and from what was left before.
func TestRoundedDown(t *testing.T) {
	for _, tc := range []struct {
		vals []float64
		want bool
	}{
		{[]float64{8, 8, 7, 6}, true},
		{[]float64{9, 8, 7}, true},
		{[]float64{10, 9, 8}, false},
		{[]float64{1, 2, 3}, false},
	} {
		if got := roundedDown(tc.vals, 9); got != tc.want {
			t.Errorf("roundedDown(%v, 9) = %v", tc.vals, got)
		}
	}
}
