package html

import (
	"bytes"
	"errors"
	"testing"

	"github.com/rlbench/rlbench/internal/resulttest"
	"github.com/rlbench/rlbench/result"
)

// TestHGRMRoundTrip checks every run has a corrected and an uncorrected
// .hgrm file, each its histogram printed in milliseconds (the printing
// itself is checked against the histogram in package result).
func TestHGRMRoundTrip(t *testing.T) {
	r := resulttest.Fixture(t)
	files, err := HGRMs(r)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2*len(r.Runs) {
		t.Fatalf("%d files, want a corrected and an uncorrected one per run (%d)", len(files), 2*len(r.Runs))
	}
	byName := map[string][]byte{}
	for _, f := range files {
		byName[f.File] = f.Text
	}
	for i := range r.Runs {
		run := &r.Runs[i]
		corrected, uncorrected, err := run.Histograms()
		if err != nil {
			t.Fatal(err)
		}
		for name, h := range map[string]*result.Histogram{
			run.Algorithm + "-" + run.Scenario + ".hgrm":             corrected,
			run.Algorithm + "-" + run.Scenario + ".uncorrected.hgrm": uncorrected,
		} {
			text, ok := byName[name]
			if !ok {
				t.Errorf("no %s", name)
				continue
			}
			var want bytes.Buffer
			if err := h.WritePercentiles(&want, hgrmTicksPerHalfDistance, hgrmMicrosPerUnit); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(text, want.Bytes()) {
				t.Errorf("%s is not the run's histogram in milliseconds", name)
			}
		}
	}
}

func TestDamagedHistogramIsNamed(t *testing.T) {
	r := resulttest.Fixture(t)
	r.Runs[3].LatencyUncorrectedHDR = r.Runs[3].LatencyUncorrectedHDR[:40]
	_, err := HGRMs(r)
	var he *result.HistogramError
	if !errors.As(err, &he) || he.Run != r.Runs[3].Key() || he.Field != "latency_uncorrected_hdr" {
		t.Errorf("error %v, want a *HistogramError naming %s latency_uncorrected_hdr", err, r.Runs[3].Key())
	}
}
