package main

import (
	"strings"
	"testing"
)

// TestQuietness: the line benchcmp ends with says whether the machine was
// quiet enough for the target to mean something.
func TestQuietness(t *testing.T) {
	for _, tc := range []struct {
		why           string
		before, after float64
		cpus          int
		want          string
	}{
		{"idle before, only the tools and the server during", 0.2, 2.3, 2, "quiet"},
		{"someone else was busy before it started", 3.5, 2.2, 2, "BUSY"},
		{"someone else got busy while it ran", 0.4, 4.8, 2, "BUSY"},
		{"a larger machine has room for more", 0.9, 4.2, 8, "quiet"},
		{"no load average to read", -1, -1, 2, "unknown"},
	} {
		if got := quietness(tc.before, tc.after, tc.cpus); !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want it to say %s", tc.why, got, tc.want)
		}
	}
}
