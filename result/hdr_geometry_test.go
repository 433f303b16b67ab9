package result

import (
	"errors"
	"math"
	"runtime"
	"strings"
	"testing"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// TestHistogramsOfAnotherGeometryAreRefused: decoding allocates what a
// histogram's header declares, up to tens of megabytes for a few bytes of
// result (1 to MaxInt64 at 5 digits). A histogram whose range or precision
// is not the contract's is refused before it is decoded.
func TestHistogramsOfAnotherGeometryAreRefused(t *testing.T) {
	wide := hdrhistogram.New(1, math.MaxInt64/2, 5)
	_ = wide.RecordValue(42)
	enc, err := EncodeHistogram(&Histogram{h: wide})
	if err != nil {
		t.Fatal(err)
	}
	run := &Run{Algorithm: "fixed_window", Scenario: "s", LatencyHDR: enc}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	before := m.TotalAlloc
	_, _, err = run.Histograms()
	runtime.ReadMemStats(&m)
	var he *HistogramError
	if !errors.As(err, &he) || !strings.Contains(err.Error(), "1..4611686018427387903 at 5 significant digits, not the contract's 1..60000000 at 3") {
		t.Errorf("error %v", err)
	}
	if used := m.TotalAlloc - before; used > 1<<20 {
		t.Errorf("refusing it allocated %d bytes", used)
	}

	// The contract's own histograms still decode.
	h := NewHistogram()
	h.Record(250)
	if run.LatencyHDR, err = EncodeHistogram(h); err != nil {
		t.Fatal(err)
	}
	if c, _, err := run.Histograms(); err != nil || c.Count() != 1 {
		t.Errorf("a contract histogram: %v", err)
	}
}
