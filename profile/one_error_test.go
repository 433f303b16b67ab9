package profile

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// TestOneMistakeOneError: a mistake is reported once, at the field the
// profile wrote, and the checks that would follow from the wrong value
// (a rate from a policy that is wrong, a schedule from an offset that is
// wrong, a default that follows from a field) do not add errors of their
// own that blame something else.
func TestOneMistakeOneError(t *testing.T) {
	withMachine(t, 8<<30, 4096, 2)
	const steady = "scenarios:\n  - {name: s, shape: steady, rate: 2x, duration: 1s}\n"
	for _, tc := range []struct {
		why  string
		yaml string
		want string
	}{
		// Once "a rate of +Inf/s" followed.
		{"a window that is not a duration", "policy: {limit: 10, window: 1x}\n" + steady,
			`x.yaml:1: policy.window: "1x" is not a duration`},
		// Once "offers no request after the first" followed.
		{"a negative limit", "policy: {limit: -10, window: 1s}\n" + steady,
			"x.yaml:1: policy.limit: must be at least 1, got -10"},
		// A scenario's own policy is the scenario's: still one error.
		{"a scenario's window that is not a duration", "policy: {limit: 10, window: 1s}\nscenarios:\n  - {name: s, shape: steady, rate: 2x, duration: 1s, policy: {limit: 10, window: soon}}\n",
			`x.yaml:3: scenarios[0].policy.window: "soon" is not a duration`},
		// Once a second error blamed a stagger nobody wrote.
		{"an offset as long as a year", "policy: {limit: 10, window: 1s}\nscenarios:\n  - {name: e, shape: boundary, identities: 10, offset: 8760h}\n",
			"x.yaml:3: scenarios[0].offset: offset 8760h0m0s + spread 0s must be shorter than the window 1s"},
		// The default stagger follows from the offset: the offset is named.
		{"an offset whose default stagger is too long", "policy: {limit: 10, window: 2000h}\nscenarios:\n  - {name: e, shape: boundary, identities: 10, offset: 1000h}\n",
			"x.yaml:3: scenarios[0].offset: the default stagger, 4 x offset + 2 x spread = 4000h0m0s between 10 identities, makes the scenario last"},
		// A stagger written is named as such.
		{"a stagger too long", "policy: {limit: 10, window: 1s}\nscenarios:\n  - {name: e, shape: boundary, identities: 10, stagger: 2000h}\n",
			"x.yaml:3: scenarios[0].stagger: 9 x 2000h0m0s between 10 identities makes the scenario last"},
		// Strict typing: a quoted number is text.
		{"a quoted whole number", "policy: {limit: 10, window: 1s}\nconcurrency: \"4\"\n" + steady,
			`x.yaml:2: concurrency: "4" is quoted, which makes it text: write the number without quotes`},
		{"a quoted number in a list", "policy: {limit: 10, window: 1s}\nscenarios:\n  - {name: c, shape: cardinality, identities: [10, '20'], rate: max, requests: 100}\n",
			`scenarios[0].identities[1]: "20" is quoted, which makes it text`},
		// Once followed by "must be more than 1, got 1.5".
		{"a quoted fraction", "policy: {limit: 10, window: 1s}\nscenarios:\n  - {name: s, shape: cardinality, identities: 100, distribution: zipf, zipf_exponent: \"1.5\", rate: max, requests: 100}\n",
			`scenarios[0].zipf_exponent: "1.5" is quoted, which makes it text`},
	} {
		_, err := Parse("x.yaml", []byte(tc.yaml))
		var perrs Errors
		if !errors.As(err, &perrs) {
			t.Errorf("%s: error %v, want profile errors", tc.why, err)
			continue
		}
		if len(perrs) != 1 || !strings.Contains(perrs[0].Error(), tc.want) {
			t.Errorf("%s: %d errors:\n%v\nwant one: %s", tc.why, len(perrs), err, tc.want)
		}
	}
}

// TestSizeTextSaysWhenItCannotCount: a size that saturated is "more
// than" the largest, not "about" it.
func TestSizeTextSaysWhenItCannotCount(t *testing.T) {
	if got := sizeText(math.MaxInt64); got != "more than 8 EiB" {
		t.Errorf("saturated: %q", got)
	}
	if got := sizeText(3 << 30); got != "about 3 GiB" {
		t.Errorf("3 GiB: %q", got)
	}
}
