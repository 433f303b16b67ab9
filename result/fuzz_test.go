package result_test

import (
	"encoding/json"
	"os"
	"runtime"
	"testing"

	"github.com/rlbench/rlbench/internal/resulttest"
	"github.com/rlbench/rlbench/result"
)

// What decoding one fuzzed result may allocate: per byte of input
// (encoding/json's structures stay within a few times the input), per
// histogram decoded (its counts, 139 KB at the contract's geometry, and the
// inflated payload), and a megabyte besides. A histogram whose few bytes
// declared a wider geometry would take tens of megabytes.
const (
	maxDecodeAllocPerByte      = 64
	maxDecodeAllocPerHistogram = 512 << 10
)

func totalAlloc() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.TotalAlloc
}

// FuzzDecode feeds the result decoder arbitrary bytes. It must return a
// result or an error without panicking, within a bounded allocation; a
// result it accepts must decode its histograms without panicking, survive
// its fields being read, and come back the same through JSON. The seed
// corpus (testdata/fuzz/FuzzDecode, and the committed results added here)
// runs with every `go test`.
func FuzzDecode(f *testing.F) {
	for _, p := range []string{resulttest.FixtureFile(), "../report/testdata/wave1-result.json", "../results/baselines/smoke.json"} {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	sample, err := json.Marshal(resulttest.Sample())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(sample)
	f.Fuzz(func(t *testing.T, data []byte) {
		before := totalAlloc()
		r, err := result.Decode(data)
		if err != nil {
			return
		}
		histograms := uint64(0)
		for i := range r.Runs {
			run := &r.Runs[i]
			_, _, _ = run.Histograms()
			histograms += 2
			for _, path := range result.NumericFields() {
				_, _ = result.FieldValue(run, path)
			}
		}
		_ = result.MergeRepetitions(r.Runs)
		if used := totalAlloc() - before; used > uint64(len(data))*maxDecodeAllocPerByte+histograms*maxDecodeAllocPerHistogram+1<<20 {
			t.Fatalf("decoding %d bytes allocated %d bytes", len(data), used)
		}
		again, err := json.Marshal(r)
		if err != nil {
			t.Fatalf("an accepted result does not encode: %v", err)
		}
		if _, err := result.Decode(again); err != nil {
			t.Fatalf("an accepted result, encoded again, is refused: %v", err)
		}
	})
}
