package html

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"slices"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/resulttest"
	"github.com/rlbench/rlbench/result"
)

// TestPlotFunctionsDrawPNGsOfTheFixedSize renders every plot function from
// the fixture and checks each is a valid PNG of PlotWidthPx x PlotHeightPx
// that shows every algorithm it plots in that algorithm's own colour.
func TestPlotFunctionsDrawPNGsOfTheFixedSize(t *testing.T) {
	v := newView(resulttest.Fixture(t))
	// The smoke profile's runs hold too few identities for memory per
	// identity; the bars are drawn as if each had held a thousand.
	held := resulttest.Fixture(t)
	for i := range held.Runs {
		if m := held.Runs[i].Memory; m != nil {
			m.Identities, m.BytesPerIdentity = result.MinIdentitiesForBytes, 100+float64(i)
		}
	}
	thousandsHeld := newView(held)
	type build func() (drawing, error)
	perScenario := func(f func(*view, string) (drawing, error), s string) build {
		return func() (drawing, error) { return f(v, s) }
	}
	for _, tc := range []struct {
		why   string
		build build
	}{
		{"latency: corrected and uncorrected curves differ (open loop)", perScenario(latencySpectrum, "steady")},
		{"latency: curves agree (closed loop), no dashed curve", perScenario(latencySpectrum, "saturate")},
		{"admissions: a tile per algorithm", perScenario(admissionsOverTime, "steady")},
		{"admissions: a few seconds only (boundary bursts)", perScenario(admissionsOverTime, "straddle")},
		{"throughput and p99: stacked panels", perScenario(throughputOverTime, "saturate")},
		{"throughput and p99: a few points per line", perScenario(throughputOverTime, "straddle")},
		{"edge: admissions around the boundary", perScenario(admissionsAtTheEdge, "straddle")},
		{"admitted vs bound: grouped bars, fixed window at 2x", func() (drawing, error) { return admittedVsBound(v) }},
		{"memory per identity: grouped bars", func() (drawing, error) { return memoryPerIdentity(thousandsHeld) }},
		{"decisions per master: grouped bars, one per algorithm", func() (drawing, error) {
			c := newView(resulttest.Clustered(t))
			return decisionsPerMaster(c, c.scenarios[1])
		}},
		{"accuracy against memory: a mark per algorithm, sized by server time", func() (drawing, error) { return accuracyVsMemory(thousandsHeld) }},
	} {
		d, err := tc.build()
		if err != nil {
			t.Errorf("%s: %v", tc.why, err)
			continue
		}
		if nd, ok := d.(noData); ok {
			t.Errorf("%s: marked no data (%s) on the full fixture", tc.why, nd.reason)
		}
		data, err := renderPNG(d)
		if err != nil {
			t.Errorf("%s: %v", tc.why, err)
			continue
		}
		img := decodePNG(t, tc.why, data)
		if img == nil {
			continue
		}
		seen := colorsIn(img)
		for _, alg := range v.algorithms {
			if !seen[v.colors.color(alg)] {
				t.Errorf("%s: no pixel in %s's colour %s", tc.why, alg, hexColor(v.colors.color(alg)))
			}
		}
	}
}

// decodePNG checks data is a PNG of the plot size and returns it.
func decodePNG(t *testing.T, what string, data []byte) image.Image {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Errorf("%s: not a PNG: %v", what, err)
		return nil
	}
	if b := img.Bounds(); b.Dx() != PlotWidthPx || b.Dy() != PlotHeightPx {
		t.Errorf("%s: %dx%d, want %dx%d", what, b.Dx(), b.Dy(), PlotWidthPx, PlotHeightPx)
	}
	return img
}

// colorsIn is the set of colours the image's pixels have.
func colorsIn(img image.Image) map[color.RGBA]bool {
	seen := map[color.RGBA]bool{}
	b := img.Bounds()
	rgba, fast := img.(*image.RGBA)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if fast {
				seen[rgba.RGBAAt(x, y)] = true
			} else {
				seen[color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)] = true
			}
		}
	}
	return seen
}

// inkInMiddle is the share of non-white pixels in the middle band of the
// image, where a "no data" mark is written and an empty frame has none.
func inkInMiddle(img image.Image) float64 {
	b := img.Bounds()
	ink, all := 0, 0
	for y := b.Min.Y + b.Dy()*45/100; y < b.Min.Y+b.Dy()*55/100; y++ {
		for x := b.Min.X + b.Dx()*25/100; x < b.Min.X+b.Dx()*75/100; x++ {
			all++
			if c := color.GrayModel.Convert(img.At(x, y)).(color.Gray); c.Y < 200 {
				ink++
			}
		}
	}
	return float64(ink) / float64(all)
}

// TestPlotsOfTheFixture: the smoke profile's result gets every plot, each
// with data, the boundary scenario its edge plot; memory per identity is
// left out, as its runs hold fewer than a thousand identities.
func TestPlotsOfTheFixture(t *testing.T) {
	var names []string
	for _, f := range fixtureFigures(t) {
		names = append(names, f.File)
		if f.NoData != "" {
			t.Errorf("%s: no data %q", f.File, f.NoData)
		}
		decodePNG(t, f.File, f.PNG)
	}
	want := "latency-steady.png admissions-steady.png throughput-steady.png " +
		"latency-saturate.png admissions-saturate.png throughput-saturate.png " +
		"edge-straddle.png latency-straddle.png admissions-straddle.png throughput-straddle.png " +
		"edge-silence.png latency-silence.png admissions-silence.png throughput-silence.png " +
		"latency-burst-one.png admissions-burst-one.png throughput-burst-one.png " +
		"admitted-vs-bound.png"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("figures:\n got %s\nwant %s", got, want)
	}
}

// TestSparseResultsRenderWithANoDataMark renders results with little or
// nothing in them: no panic, and every plot that has nothing to show says
// so with a visible mark.
func TestSparseResultsRenderWithANoDataMark(t *testing.T) {
	full := resulttest.Fixture(t)
	bare := full.Runs[0]
	bare.Audit, bare.Memory, bare.Server = nil, nil, nil
	s := bare.Scenario
	perScenario := []string{"latency-" + s + ".png", "admissions-" + s + ".png", "throughput-" + s + ".png", "admitted-vs-bound.png"}
	empty := bare
	empty.LatencyHDR, empty.LatencyUncorrectedHDR, empty.Series, empty.Timeline = "", "", nil, nil
	oneSecond := bare
	oneSecond.Series, oneSecond.Timeline = oneSecond.Series[:1], nil // a result from before timelines
	for _, tc := range []struct {
		why    string
		runs   []result.Run
		files  []string
		noData []string // the figures that must carry a no-data mark
	}{
		{"no runs at all: only the cross-scenario plot, marked", nil,
			[]string{"admitted-vs-bound.png"}, []string{"admitted-vs-bound.png"}},
		{"one run without audit or memory: no bars to draw", []result.Run{bare},
			perScenario, []string{"admitted-vs-bound.png"}},
		{"one run with neither histogram nor series", []result.Run{empty},
			perScenario, perScenario},
		{"one run of a single second: a line of one point", []result.Run{oneSecond},
			perScenario, []string{"admitted-vs-bound.png"}},
	} {
		r := *full
		r.Runs = tc.runs
		figs, err := Plots(&r)
		if err != nil {
			t.Errorf("%s: %v", tc.why, err)
			continue
		}
		var got []string
		for _, f := range figs {
			got = append(got, f.File)
			img := decodePNG(t, tc.why+": "+f.File, f.PNG)
			marked := slices.Contains(tc.noData, f.File)
			if marked != (f.NoData != "") {
				t.Errorf("%s: %s no-data %q, want marked %v", tc.why, f.File, f.NoData, marked)
			}
			if img != nil && marked && inkInMiddle(img) < 0.01 {
				t.Errorf("%s: %s: the no-data mark is not visible", tc.why, f.File)
			}
		}
		if strings.Join(got, " ") != strings.Join(tc.files, " ") {
			t.Errorf("%s: figures %v, want %v", tc.why, got, tc.files)
		}
		var page bytes.Buffer
		if err := WriteHTML(&page, &r, figs, RenderOptions{}); err != nil {
			t.Errorf("%s: page: %v", tc.why, err)
		}
		if !strings.Contains(page.String(), "no data: ") {
			t.Errorf("%s: the page does not say which plot has no data", tc.why)
		}
	}
}

// BenchmarkPlots renders every plot of the fixture: 4 algorithms x 3
// scenarios, 11 PNGs.
func BenchmarkPlots(b *testing.B) {
	r := resulttest.Fixture(b)
	for b.Loop() {
		if _, err := Plots(r); err != nil {
			b.Fatal(err)
		}
	}
}
