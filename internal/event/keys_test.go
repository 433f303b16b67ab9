package event

import (
	"testing"

	"github.com/rlbench/rlbench/plan"
)

// TestKeySchemes: each tagging names an identity's key as the result and
// a cluster expect, and reads the identity back out of it, and of nothing
// else.
func TestKeySchemes(t *testing.T) {
	const prefix = "rlbench:r:fixed_window:s:"
	for _, tc := range []struct {
		why               string
		tag               plan.HashTag
		declared, cluster bool
		key               string
		wantTag           plan.HashTag
	}{
		{"no tag by default on a single server: it would only lengthen the key", plan.HashTagDefault, false, false, prefix + "42", plan.HashTagNone},
		{"the identity as the tag by default on a cluster", plan.HashTagDefault, false, true, prefix + "{42}", plan.HashTagIdentity},
		{"one tag for every identity when asked", plan.HashTagFixed, false, true, prefix + "{all}:42", plan.HashTagFixed},
		{"no tag when asked, even on a cluster", plan.HashTagNone, false, true, prefix + "42", plan.HashTagNone},
		{"a declared limiter makes its own keys from prefix<identity>", plan.HashTagIdentity, true, true, prefix + "42", plan.HashTagDeclared},
	} {
		k := NewKeyScheme(prefix, tc.tag, tc.declared, tc.cluster)
		if got := k.Key(42); got != tc.key || k.Tag != tc.wantTag {
			t.Errorf("%s: key %q tagged %q, want %q tagged %q", tc.why, got, k.Tag, tc.key, tc.wantTag)
		}
		if id, ok := k.Identity(tc.key); !ok || id != 42 {
			t.Errorf("%s: identity of %q is %d, %v", tc.why, tc.key, id, ok)
		}
		for _, other := range []string{prefix, prefix + "x", "rlbench:other:42", tc.key + "0x"} {
			if id, ok := k.Identity(other); ok {
				t.Errorf("%s: %q read as identity %d", tc.why, other, id)
			}
		}
	}
}
