//go:build integration

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/redistest"
	"github.com/rlbench/rlbench/result"
)

// TestIntegrationMutantsOfPublishedLimiters: limiters written as popular
// libraries write them, each declared by the profile rlbench init writes
// (shortened for a test, and edited for nothing else unless said), then
// broken as such scripts are broken in the wild. An off-by-one fixed window
// whose hash lives twice its window fails on its overshoot, whether its
// window is read from its reply or found from its behaviour; so do an
// off-by-one sliding log kept in a list and a token bucket one token too
// large (over the instant of its first burst: over a window it keeps its
// bound). A bucket that refills six times slower than it promises fails on
// its under-admission. The originals pass
// (TestIntegrationInitOnPublishedLimiters).
func TestIntegrationMutantsOfPublishedLimiters(t *testing.T) {
	redistest.ServerPath(t)
	for _, tc := range []struct {
		why, example string
		// change is pairs of old and new text in the script; drop removes
		// the lines holding it from the profile init wrote, and longer
		// makes its steady scenario last 3s instead of the test's 1s.
		change []string
		drop   string
		longer bool
		want   string
	}{
		{"a fixed window in a hash admitting one more, its window read from reset_at", "hash_fixed_window",
			[]string{"if count > limit then", "if count > limit + 1 then"}, "", false, "OVERSHOOT"},
		{"the same, its reply's reset_at not declared: its window found by behaviour", "hash_fixed_window",
			[]string{"if count > limit then", "if count > limit + 1 then"}, "reset_at:", false, "OVERSHOOT"},
		{"a sliding log in a list admitting one more", "list_sliding_log",
			[]string{"redis.call('LINDEX', key, limit - amount)", "redis.call('LINDEX', key, limit - amount + 1)"}, "", false, "OVERSHOOT"},
		{"a token bucket in a Redis Function holding one token more", "token_bucket_function",
			[]string{"local full = tonumber(args[3]) * window_us", "local full = (tonumber(args[3]) + 1) * window_us"}, "", false, "OVERSHOOT"},
		{"a token bucket refilling a sixth as fast as it promises", "token_bucket_microtime",
			[]string{"local refill_rate = tonumber(ARGV[2])", "local refill_rate = tonumber(ARGV[2]) / 6"}, "", true, "UNDER-ADMISSION"},
	} {
		dir := t.TempDir()
		lua := filepath.Join(dir, tc.example+".lua")
		copyExample(t, tc.example, lua)
		src, err := os.ReadFile(lua)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < len(tc.change); i += 2 {
			if !strings.Contains(string(src), tc.change[i]) {
				t.Fatalf("%s: the example has no %q to change", tc.why, tc.change[i])
			}
		}
		profilePath := initShortened(t, lua)
		if err := os.WriteFile(lua, []byte(strings.NewReplacer(tc.change...).Replace(string(src))), 0o644); err != nil {
			t.Fatal(err)
		}
		text, err := os.ReadFile(profilePath)
		if err != nil {
			t.Fatal(err)
		}
		var kept []string
		for _, line := range strings.Split(string(text), "\n") {
			if tc.drop == "" || !strings.Contains(line, tc.drop) {
				kept = append(kept, line)
			}
		}
		edited := strings.Join(kept, "\n")
		if tc.longer {
			edited = strings.Replace(edited, "duration: 1s", "duration: 3s", 1)
		}
		if err := os.WriteFile(profilePath, []byte(edited), 0o644); err != nil {
			t.Fatal(err)
		}
		out := t.TempDir()
		code, stdout, stderr := runCLI(t, "run", "--quiet", "--no-report", "--out", out, profilePath)
		first, _, _ := strings.Cut(stdout, "\n")
		if code != exitFail || !strings.Contains(stdout, tc.want) {
			t.Errorf("%s: exit %d, want %d with %s\n%s\n%s", tc.why, code, exitFail, tc.want, stdout, stderr)
			continue
		}
		if !strings.HasPrefix(first, "verdict: fail: ") {
			t.Errorf("%s: the first line does not say why it failed: %q", tc.why, first)
		}
		matches, _ := filepath.Glob(filepath.Join(out, "*", "result.json"))
		res, err := result.ReadFile(matches[0])
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res.Runs {
			if w := r.WindowLocation; w != nil && tc.drop != "" && r.Algorithm == tc.example && w.Method != "behaviour" {
				t.Errorf("%s: %s: window located by %q, want behaviour", tc.why, r.Key(), w.Method)
			}
		}
	}
}
