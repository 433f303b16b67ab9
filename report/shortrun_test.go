package report

import (
	"strings"
	"testing"

	"github.com/rlbench/rlbench/result"
)

func TestShortRunNote(t *testing.T) {
	tests := []struct {
		name      string
		alg       string
		shape     string
		durationS float64
		burst     int64
		want      string // a part of the note; "" for none
	}{
		// Two windows of a bucket whose burst is its limit: its first
		// window's burst is half as much again as the policy allows.
		{"a bucket over two windows", "token_bucket", "steady", 2, 0, "token_bucket/steady: 2s, 2 windows of 1s: up to 1.50x what the policy allows over the run (a bucket starts full: run it 20s"},
		{"gcra too", "gcra", "steady", 5, 0, "up to 1.20x"},
		// A built-in's variant is of its family.
		{"a variant of a bucket", "token_bucket_client_time", "steady", 2, 0, "1.50x"},
		// Twenty windows: within 5%.
		{"long enough", "token_bucket", "steady", 20, 0, ""},
		// A bucket of one token spends next to nothing at the start.
		{"a bucket of one token", "leaky_bucket", "steady", 2, 1, ""},
		// A larger burst takes longer to settle.
		{"a burst of twice the limit", "token_bucket", "steady", 20, 200, "1.10x what the policy allows over the run (a bucket starts full: run it 40s"},
		{"a window starts empty", "fixed_window", "steady", 2, 0, ""},
		{"a declared bucket", "mine", "steady", 2, 0, "mine/steady"},
		{"a declared window", "yours", "steady", 2, 0, ""},
		{"not a steady run", "token_bucket", "boundary", 2, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &result.Result{Profile: result.ProfileInfo{Policy: result.PolicyInfo{Limit: 100, WindowMs: 1000, Burst: tt.burst},
				Limiters: []result.LimiterInfo{{Name: "mine", Semantics: "token_bucket"}, {Name: "yours", Semantics: "fixed_window"}}}}
			run := &result.Run{Algorithm: tt.alg, Scenario: "steady", Shape: tt.shape, Params: result.Params{DurationS: tt.durationS}, Audit: &result.Audit{}}
			if tt.shape != "steady" {
				run.Scenario = tt.shape
			}
			n, ok := shortRunNote(r, run)
			switch {
			case tt.want == "" && ok:
				t.Errorf("want no note, got %q", n.text)
			case tt.want != "" && !ok:
				t.Errorf("want a note with %q, got none", tt.want)
			case tt.want != "" && !strings.Contains(n.text, tt.want):
				t.Errorf("want a note with %q, got %q", tt.want, n.text)
			}
		})
	}
}
