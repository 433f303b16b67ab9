package html

import (
	"bytes"

	"github.com/rlbench/rlbench/result"
)

const (
	// hgrmTicksPerHalfDistance is how densely the distribution is listed:
	// 5 lines per halving of the remaining tail, as HdrHistogram's own
	// tools print it.
	hgrmTicksPerHalfDistance = 5
	// hgrmMicrosPerUnit prints the microsecond histograms in milliseconds,
	// the unit the HdrHistogram plotter labels its axis with.
	hgrmMicrosPerUnit = 1000
)

// HGRM is one run's latency as an HdrHistogram percentile-distribution
// file (.hgrm), which the HdrHistogram plotter loads as it is.
type HGRM struct {
	// File is the name to write it under: <algorithm>-<scenario>.hgrm, and
	// <algorithm>-<scenario>.uncorrected.hgrm for the latency measured
	// from the actual send.
	File string
	Text []byte
}

// HGRMs renders the corrected and the uncorrected latency of every run
// that carries histograms, in milliseconds. A histogram that does not
// decode is an error naming the run and the field.
func HGRMs(r *result.Result) ([]HGRM, error) {
	v := newView(r)
	var out []HGRM
	for _, s := range v.scenarios {
		for _, run := range v.scenarioRuns(s) {
			corrected, uncorrected, err := run.Histograms()
			if err != nil {
				return nil, err
			}
			base := fileSlug(run.Algorithm) + "-" + v.slugs[s]
			for _, h := range []struct {
				file string
				hist *result.Histogram
			}{{base + ".hgrm", corrected}, {base + ".uncorrected.hgrm", uncorrected}} {
				if h.hist == nil {
					continue
				}
				var buf bytes.Buffer
				if err := h.hist.WritePercentiles(&buf, hgrmTicksPerHalfDistance, hgrmMicrosPerUnit); err != nil {
					return nil, err
				}
				out = append(out, HGRM{File: h.file, Text: buf.Bytes()})
			}
		}
	}
	return out, nil
}

// checkHistograms decodes every histogram of r, as HGRMs does, without
// writing them out.
func checkHistograms(r *result.Result) error {
	for i := range r.Runs {
		if _, _, err := r.Runs[i].Histograms(); err != nil {
			return err
		}
	}
	return nil
}
