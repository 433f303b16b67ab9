package html

import (
	"bytes"
	"image/color"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/resulttest"
	"github.com/rlbench/rlbench/result"
)

// faultRuns is a scenario with a 500ms pause under fail_open for two
// algorithms (Redis deciding before and after, the policy admitting during
// it), and a scenario without faults.
func faultRuns() *result.Result {
	r := resulttest.Sample()
	run := func(alg, scenario string, faults bool) result.Run {
		run := result.Run{Algorithm: alg, Scenario: scenario, ElapsedS: 2, Params: result.Params{OnError: result.FailOpen}}
		if !faults {
			return run
		}
		tl := &result.FaultTimeline{BinMs: 100}
		for t := int64(0); t < 2000; t += 100 {
			b := result.FaultBin{TMs: t, Allowed: 10, Denied: 5, P99Us: 900}
			if t >= 500 && t < 1000 {
				b = result.FaultBin{TMs: t, Errors: 15, AllowedOnError: 15, P99Us: 110_000}
			}
			tl.Bins = append(tl.Bins, b)
		}
		run.Faults = &result.Faults{Timeline: tl, Windows: []result.FaultWindow{{
			Kind: "pause", ScheduledStartMs: 500, ScheduledEndMs: 1000, ObservedStartMs: 502, ObservedEndMs: 1010,
			Recovery: result.FaultFigures{StartMs: 1010, EndMs: 1100},
		}}}
		return run
	}
	r.Runs = []result.Run{run("fixed_window", "outage", true), run("token_bucket", "outage", true), run("fixed_window", "steady", false)}
	return r
}

// TestFaultTimelineShowsWhoDecidedAndTheWindows: each category of
// decision is drawn in its colour and the fault's window is shaded; only
// the scenario with faults gets the plot.
func TestFaultTimelineShowsWhoDecidedAndTheWindows(t *testing.T) {
	v := newView(faultRuns())
	if !v.hasFaults("outage") || v.hasFaults("steady") {
		t.Fatalf("hasFaults: outage %v, steady %v", v.hasFaults("outage"), v.hasFaults("steady"))
	}
	d, err := faultTimeline(v, "outage")
	if err != nil {
		t.Fatal(err)
	}
	if nd, ok := d.(noData); ok {
		t.Fatalf("no data: %s", nd.reason)
	}
	data, err := renderPNG(d)
	if err != nil {
		t.Fatal(err)
	}
	img := decodePNG(t, "faults", data)
	if img == nil {
		return
	}
	seen := colorsIn(img)
	for name, c := range map[string]color.RGBA{
		"allowed by Redis": faultAllowedColor, "denied by Redis": faultDeniedColor,
		"allowed by the policy": faultAllowedOnErrorColor, "p99 and errors": inkColor,
	} {
		if !seen[c] {
			t.Errorf("no pixel of %s in %s", name, hexColor(c))
		}
	}
	// The window's shade over white covers a quarter of each panel's
	// width: thousands of pixels of one light red (a line's antialiased
	// edge has a few).
	shaded := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			if near(c.R, 245) && near(c.G, 215) && near(c.B, 191) {
				shaded++
			}
		}
	}
	if shaded < 5000 {
		t.Errorf("%d pixels of a shaded fault window", shaded)
	}

	figs, err := Plots(faultRuns())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range figs {
		if strings.HasPrefix(f.File, "faults-") {
			names = append(names, f.File)
		}
	}
	if strings.Join(names, " ") != "faults-outage.png" {
		t.Errorf("fault figures %v, want only faults-outage.png", names)
	}
}

// near says whether a colour component is within 3 of want.
func near(got, want uint8) bool { return int(got)-int(want) <= 3 && int(want)-int(got) <= 3 }

// TestHTMLComparesPoliciesSideBySide: a scenario run under two policies
// gets the side-by-side table, a row per policy; one without gets none.
func TestHTMLComparesPoliciesSideBySide(t *testing.T) {
	r := faultRuns()
	closed := r.Runs[0]
	closed.Scenario, closed.Params.OnError = "outage-fail_closed", result.FailClosed
	r.Runs[0].Scenario = "outage-fail_open"
	r.Runs = append(r.Runs[:1], closed)
	var buf bytes.Buffer
	if err := WriteHTML(&buf, r, nil, RenderOptions{}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	if !strings.Contains(page, "Error policies side by side") || !strings.Contains(page, "<td>fail_open</td>") || !strings.Contains(page, "<td>fail_closed</td>") {
		t.Errorf("no policies side by side:\n%s", page)
	}
	buf.Reset()
	if err := WriteHTML(&buf, faultRuns(), nil, RenderOptions{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "Error policies side by side") {
		t.Error("a table of policies for runs under one policy")
	}
}

// TestAdmissionsClipTheBacklogOfAFault: a run with a scheduled fault is
// scaled to the rate it offered, so a recovery spike of 2,500/s does not
// flatten a policy line at 200/s (the tile's legend says how high it
// went). A run without faults keeps its bursts on the axis.
func TestAdmissionsClipTheBacklogOfAFault(t *testing.T) {
	r := faultRuns()
	for i := range r.Runs {
		run := &r.Runs[i]
		run.Identities, run.Rate = 10, result.RateFigures{TargetPerS: 400, AchievedPerS: 400}
		run.Timeline = &result.Timeline{BinMs: 100}
		for t := int64(0); t < 2000; t += 100 {
			b := result.Bin{TMs: t, Allowed: 20, Denied: 20} // 400/s offered, 200/s admitted
			if t == 1000 {
				b.Allowed, b.Denied = 250, 0 // the backlog: 2,500/s
			}
			run.Timeline.Bins = append(run.Timeline.Bins, b)
		}
	}
	r.Profile.Policy = result.PolicyInfo{Limit: 20, WindowMs: 1000}
	for _, tc := range []struct {
		scenario string
		clipped  bool
	}{{"outage", true}, {"steady", false}} {
		d, err := admissionsOverTime(newView(r), tc.scenario)
		if err != nil {
			t.Fatal(err)
		}
		g, ok := d.(grid)
		if !ok {
			t.Fatalf("%s: %T, want a grid of tiles", tc.scenario, d)
		}
		p := g.plots[0][0]
		// 400/s offered, the axis padded by 30%: 571/s.
		if clipped := p.Y.Max < 2500; clipped != tc.clipped || tc.clipped && p.Y.Max > 600 {
			t.Errorf("%s: y axis to %.0f; want clipped %v", tc.scenario, p.Y.Max, tc.clipped)
		}
	}
}
