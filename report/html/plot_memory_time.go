package html

import (
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/rlbench/rlbench/result"
)

// memoryOverTime draws, side by side, what memory each run of the scenario
// held through its traffic: the server's memory per identity at each
// sample (result.MemoryOverTime.BytesPerIdentity), where a limiter whose
// state per identity stays put draws a level line once its identities
// have come and one whose state keeps growing draws a rising one; and
// rlbench's own resident set, which stays level on a run whose generator
// holds nothing that grows with the run's length.
func memoryOverTime(v *view, scenario string) (drawing, error) {
	const axis = "time (s from the start of the traffic)"
	perIdentity := newPlot("Redis memory per identity", axis, "bytes per identity")
	rss := newPlot("rlbench's resident set", axis, "MiB")
	var topIdentity, topRSS float64
	for _, run := range v.scenarioRuns(scenario) {
		col := v.colors.color(run.Algorithm)
		ts, bytes := run.MemoryOverTime.BytesPerIdentity(run.Memory)
		if len(ts) >= 2 {
			xys := make(plotter.XYs, len(ts))
			for i := range ts {
				xys[i] = plotter.XY{X: ts[i], Y: max(bytes[i], 0)}
				topIdentity = max(topIdentity, bytes[i])
			}
			l, err := line(xys, col, vg.Points(1.5))
			if err != nil {
				return nil, err
			}
			perIdentity.Add(l)
			perIdentity.Legend.Add(run.Algorithm, l)
		}
		if xys := rssSamples(run.MemoryOverTime); len(xys) >= 2 {
			for _, p := range xys {
				topRSS = max(topRSS, p.Y)
			}
			l, err := line(xys, col, vg.Points(1.5))
			if err != nil {
				return nil, err
			}
			rss.Add(l)
			rss.Legend.Add(run.Algorithm, l)
		}
	}
	tiles := []*plot.Plot{perIdentity, rss}
	for i, top := range []float64{topIdentity, topRSS} {
		if top <= 0 {
			msg := "no run held enough identities for a figure"
			if i == 1 {
				msg = "rlbench's resident set was not read"
			}
			tiles[i] = markNoData(tiles[i], msg).Plot
			continue
		}
		tiles[i].X.Min, tiles[i].Y.Min = 0, 0
		padTop(tiles[i], top, 0.3)
	}
	return grid{title: "Memory over time — scenario " + scenario, plots: gridOf(tiles, 2)}, nil
}

// rssSamples are the samples of rlbench's resident set, in MiB, where it
// was read.
func rssSamples(m *result.MemoryOverTime) plotter.XYs {
	if m == nil {
		return nil
	}
	var xys plotter.XYs
	for _, s := range m.Samples {
		if s.RlbenchRSSBytes > 0 {
			xys = append(xys, plotter.XY{X: s.TS, Y: float64(s.RlbenchRSSBytes) / (1 << 20)})
		}
	}
	return xys
}

// hasMemoryOverTime says whether some run of the scenario went on long
// enough for its memory over time to say something: past the minute its
// resident set is given to settle in, or with server memory per identity
// at two samples or more.
func (v *view) hasMemoryOverTime(scenario string) bool {
	for _, run := range v.scenarioRuns(scenario) {
		if m := run.MemoryOverTime; m != nil && m.RlbenchRSS != nil {
			return true
		}
		if ts, _ := run.MemoryOverTime.BytesPerIdentity(run.Memory); len(ts) >= 2 {
			return true
		}
	}
	return false
}
