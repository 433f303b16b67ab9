package suggest

import "testing"

func TestClosest(t *testing.T) {
	known := []string{"concurrency", "scenarios", "audit.overshoot", "latency_us.p99"}
	for _, tc := range []struct {
		in, want string
	}{
		{"concurrence", "concurrency"},        // one letter off
		{"scenario", "scenarios"},             // missing plural
		{"audit.overshot", "audit.overshoot"}, // dotted path typo
		{"banana", ""},                        // nothing close: no hint
	} {
		if got := Closest(tc.in, known, 3); got != tc.want {
			t.Errorf("Closest(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if d := Distance("kitten", "sitting"); d != 3 {
		t.Errorf("Distance = %d, want 3", d)
	}
}
