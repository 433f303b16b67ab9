package plural

import "testing"

// TestNoun: one for exactly one, many for every other count, zero
// included ("0 keys").
func TestNoun(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		want string
	}{
		{0, "times"},  // none is plural in English
		{1, "time"},   // the case that read "1 times"
		{2, "times"},  // the ordinary plural
		{11, "times"}, // no rule of the last digit: 11, 21 are plural
		{21, "times"},
	} {
		if got := Noun(tc.n, "time", "times"); got != tc.want {
			t.Errorf("Noun(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
	if got := "key" + S(1) + ", key" + S(uint64(3)) + ", identit" + Noun(1, "y", "ies"); got != "key, keys, identity" {
		t.Errorf("%q", got)
	}
}
