package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/resulttest"
	"github.com/rlbench/rlbench/result"
)

// writeSegment writes segment i of a load of n made of the sample result,
// changed by change, as dir/seg<i>.json.
func writeSegment(t *testing.T, dir string, i, n int, change func(*result.Result)) string {
	t.Helper()
	r := resulttest.Sample()
	r.RunID = "seg" + string(rune('a'+i))
	r.Segment = &result.SegmentInfo{Index: i, Count: n, Group: "g", Plan: "p", PlannedRuns: 1}
	r.Profile.Algorithms = []string{"fixed_window"}
	if change != nil {
		change(r)
	}
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "seg"+string(rune('0'+i))+".json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestMergeReadsResultsAsItReadsProfiles: the files merge is given are
// checked as a profile is before anything is built from them: a segment
// count past what --segment allows (which would size the merge, or
// panic) and a profile name that is no name (which names the merged
// result's folder) are refused with the file and the field, exit 2,
// nothing written.
func TestMergeReadsResultsAsItReadsProfiles(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*result.Result)
		want   string
	}{
		{"a count of 1e15", func(r *result.Result) { r.Segment.Count = 1_000_000_000_000_000 }, "segment.count 1000000000000000: want 1 to 10000"},
		{"a count of 1e7", func(r *result.Result) { r.Segment.Count = 10_000_000 }, "segment.count 10000000: want 1 to 10000"},
		{"an index past the count", func(r *result.Result) { r.Segment.Index = 7 }, "segment.index 7: want 0 to 1"},
		{"a name that climbs out of results/", func(r *result.Result) { r.Profile.Name = "../../x" }, `profile.name "../../x" must be 1-64 letters, digits, '.', '_' or '-'`},
		{"an empty name", func(r *result.Result) { r.Profile.Name = "" }, `profile.name "" must be 1-64`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			t.Chdir(dir)
			a := writeSegment(t, dir, 0, 2, tc.change)
			b := writeSegment(t, dir, 1, 2, tc.change)
			code, stdout, stderr := runCLI(t, "merge", "--no-report", a, b)
			if code != exitUsage || !strings.Contains(stderr, a) || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, want %d naming %s and %q\n%s%s", code, exitUsage, a, tc.want, stdout, stderr)
			}
			if strings.Contains(stderr, "goroutine") || len(stderr) > 4096 {
				t.Errorf("said %d bytes: %.300s", len(stderr), stderr)
			}
			if left, _ := filepath.Glob(filepath.Join(dir, "..", "..", "x*")); len(left) != 0 {
				t.Errorf("written outside: %v", left)
			}
			if _, err := os.Stat(filepath.Join(dir, "results")); !os.IsNotExist(err) {
				t.Errorf("a merged result was written")
			}
		})
	}
}
