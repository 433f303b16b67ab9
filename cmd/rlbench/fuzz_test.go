package main

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/resulttest"
	"github.com/rlbench/rlbench/result"
)

// segmentBytes is segment i of a load of n made of the sample result,
// changed by change, as JSON.
func segmentBytes(t testing.TB, i, n int, change func(*result.Result)) []byte {
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
	return data
}

// fuzzFiles writes the non-empty inputs as files in dir/in, and returns
// their paths.
func fuzzFiles(t *testing.T, dir string, inputs ...[]byte) []string {
	t.Helper()
	in := filepath.Join(dir, "in")
	if err := os.MkdirAll(in, 0o755); err != nil {
		t.Fatal(err)
	}
	var paths []string
	for i, data := range inputs {
		if len(data) == 0 {
			continue
		}
		p := filepath.Join(in, "result"+string(rune('0'+i))+".json")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

// writtenOutside lists the files under dir that are not under one of the
// folders allowed (relative to dir).
func writtenOutside(t *testing.T, dir string, allowed ...string) []string {
	t.Helper()
	var out []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		for _, a := range allowed {
			if rel == a || strings.HasPrefix(rel, a+string(filepath.Separator)) {
				return nil
			}
		}
		out = append(out, rel)
		return nil
	})
	return out
}

// validExit says whether code is one of rlbench's exit codes.
func validExit(code int) bool {
	return code == exitOK || code == exitFail || code == exitUsage || code == exitRuntime || code == exitInconclusive
}

// maxMessageBytes bounds what a command given a few fuzzed files prints:
// a summary of its runs, or one error.
const maxMessageBytes = 1 << 20

// maxMergeAllocPerByte and maxMergeAllocPerRun bound what merging fuzzed
// files may allocate: decoding (see result's FuzzDecode) and, per run, its
// histograms merged and the summary; a count read from a file (a segment
// count of ten million) sizes nothing.
const (
	maxMergeAllocPerByte = 64
	maxMergeAllocPerRun  = 8 << 20
)

// FuzzMerge gives `rlbench merge` up to three result files of arbitrary
// bytes, from a working directory of its own. It must exit with one of
// rlbench's codes without panicking, print a bounded amount, allocate
// within bounds, and write only under results/ of that directory (a
// profile name from the file names the folder). The seed corpus
// (testdata/fuzz/FuzzMerge, and the loads added here) runs with every
// `go test`; `make fuzz` fuzzes it.
func FuzzMerge(f *testing.F) {
	f.Add(segmentBytes(f, 0, 2, nil), segmentBytes(f, 1, 2, nil), []byte{})
	f.Add(segmentBytes(f, 0, 3, nil), segmentBytes(f, 2, 3, nil), segmentBytes(f, 1, 3, func(r *result.Result) {
		r.Complete, r.IncompleteReason = false, "interrupted (SIGTERM)"
	}))
	f.Add(segmentBytes(f, 0, 2, func(r *result.Result) { r.Segment.Count = 1_000_000_000_000_000 }), segmentBytes(f, 1, 2, nil), []byte{})
	f.Add(segmentBytes(f, 0, 2, func(r *result.Result) { r.Profile.Name = "../../x" }), segmentBytes(f, 1, 2, func(r *result.Result) { r.Profile.Name = "../../x" }), []byte{})
	f.Fuzz(func(t *testing.T, a, b, c []byte) {
		dir := t.TempDir()
		paths := fuzzFiles(t, dir, a, b, c)
		if len(paths) == 0 {
			return
		}
		t.Chdir(dir)
		runs := 0
		for _, p := range paths {
			data, _ := os.ReadFile(p)
			runs += strings.Count(string(data), `"algorithm"`)
		}
		before := totalAlloc()
		code, stdout, stderr := runCLI(t, append([]string{"merge", "--no-report"}, paths...)...)
		used := totalAlloc() - before
		if !validExit(code) || strings.Contains(stderr, "goroutine ") {
			t.Fatalf("exit %d:\n%s", code, stderr)
		}
		if n := len(stdout) + len(stderr); n > maxMessageBytes {
			t.Fatalf("printed %d bytes", n)
		}
		if limit := uint64(len(a)+len(b)+len(c))*maxMergeAllocPerByte + uint64(runs+1)*maxMergeAllocPerRun; used > limit {
			t.Fatalf("merging %d bytes of %d runs allocated %d bytes", len(a)+len(b)+len(c), runs, used)
		}
		if out := writtenOutside(t, dir, "in", "results"); len(out) > 0 {
			t.Fatalf("wrote outside results/: %v", out)
		}
	})
}

// FuzzReport gives `rlbench report` a result file of arbitrary bytes: as
// the summary (--format text) and rendered (plots, .hgrm files and the
// page, into the file's own folder). It must exit with one of rlbench's
// codes without panicking, print a bounded amount, and write nothing
// outside that folder. The seed corpus (testdata/fuzz/FuzzReport, and the
// results added here) runs with every `go test`; `make fuzz` fuzzes it.
func FuzzReport(f *testing.F) {
	sample, err := json.Marshal(resulttest.Sample())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(sample)
	if data, err := os.ReadFile(resulttest.FixtureFile()); err == nil {
		f.Add(data)
	}
	f.Add(segmentBytes(f, 0, 2, func(r *result.Result) { r.Profile.Name = "../../x" }))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		paths := fuzzFiles(t, dir, data)
		if len(paths) == 0 {
			return
		}
		for _, args := range [][]string{
			{"report", "--format", "text", paths[0]},
			{"report", "--max-scenarios", "2", paths[0]},
		} {
			code, stdout, stderr := runCLI(t, args...)
			if !validExit(code) || strings.Contains(stderr, "goroutine ") {
				t.Fatalf("%v: exit %d:\n%s", args, code, stderr)
			}
			if n := len(stdout) + len(stderr); n > maxMessageBytes+len(data)*4 {
				t.Fatalf("%v: printed %d bytes", args, n)
			}
		}
		if out := writtenOutside(t, dir, "in"); len(out) > 0 {
			t.Fatalf("wrote outside the result's folder: %v", out)
		}
	})
}

// totalAlloc is how many bytes this process has allocated so far.
func totalAlloc() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.TotalAlloc
}
