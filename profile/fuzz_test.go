package profile

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// maxParseAllocBytes bounds what reading one fuzzed profile may allocate:
// far above what any input of a fuzzer's size needs, far below what an
// unbounded allocation (a pool or an audit sized from a number in the
// input) would take.
const maxParseAllocBytes = 256 << 20

func totalAlloc() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.TotalAlloc
}

// FuzzParse feeds the profile decoder arbitrary bytes. It must return a
// profile or Errors (with the file named) without panicking, within a
// bounded allocation, and a profile it accepts must plan without
// panicking. The seed corpus (testdata/fuzz/FuzzParse, and the shipped
// profiles added here) runs with every `go test`.
func FuzzParse(f *testing.F) {
	paths, _ := filepath.Glob("../profiles/*.yaml")
	for _, p := range paths {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(goodProfile))
	f.Fuzz(func(t *testing.T, data []byte) {
		before := totalAlloc()
		p, err := Parse("fuzz.yaml", data)
		if used := totalAlloc() - before; used > maxParseAllocBytes {
			t.Fatalf("parsing %d bytes allocated %d bytes", len(data), used)
		}
		if err != nil {
			var es Errors
			if !errors.As(err, &es) || len(es) == 0 || es[0].File != "fuzz.yaml" {
				t.Fatalf("error %T %v is not Errors naming the file", err, err)
			}
			return
		}
		plan := p.Plan(2)
		_ = PlanLength(plan)
		for _, s := range p.Scenarios {
			_ = p.PlannedRequests(s)
			_ = s.Rate.TargetPerSecond(p.Policy, s.Identities)
		}
	})
}
