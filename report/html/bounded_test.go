package html

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot"

	"github.com/rlbench/rlbench/internal/resulttest"
	"github.com/rlbench/rlbench/result"
)

// TestAHugeResultStaysBounded: past DefaultMaxScenarios scenarios the
// report draws the tables of every run and the plots across scenarios,
// leaves out the per-scenario plots and .hgrm files, and says so and why.
func TestAHugeResultStaysBounded(t *testing.T) {
	r := resulttest.Many(t, DefaultMaxScenarios+6)
	dir := t.TempDir()
	written, err := Render(dir, r, testSemantics)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, p := range written {
		rel, _ := filepath.Rel(dir, p)
		files = append(files, rel)
	}
	// The fixture's runs hold too few identities for memory per identity,
	// so the only plot across scenarios is admitted vs bound.
	want := []string{"admitted-vs-bound.png", HTMLFile}
	if strings.Join(files, " ") != strings.Join(want, " ") {
		t.Errorf("wrote %v, want only %v", files, want)
	}
	page, err := os.ReadFile(filepath.Join(dir, HTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	text := string(page)
	for i := range r.Runs {
		if s := r.Runs[i].Scenario; !strings.Contains(text, `id="scenario-`+s+`"`) {
			t.Errorf("the page has no table for scenario %s", s)
		}
	}
	note := fmt.Sprintf("This result has %d scenarios (%d runs), more than %d: the plots of each scenario and the .hgrm files are left out",
		DefaultMaxScenarios+6, len(r.Runs), DefaultMaxScenarios)
	if !strings.Contains(text, note) {
		t.Errorf("the page does not say what it left out; want %q", note)
	}
}

// TestLeftOutFollowsMaxScenarios: the limit is DefaultMaxScenarios unless
// given, and a negative one lifts it. (Drawing past the limit is checked
// end to end, on a smaller result, by the report command's tests.)
func TestLeftOutFollowsMaxScenarios(t *testing.T) {
	r := resulttest.Many(t, DefaultMaxScenarios+1)
	for _, tc := range []struct {
		why     string
		max     int
		leftOut bool
	}{
		{"the default limit is passed by one", 0, true},
		{"a limit that covers every scenario", DefaultMaxScenarios + 1, false},
		{"no limit", -1, false},
		{"a lower limit", 3, true},
	} {
		if got := LeftOut(r, RenderOptions{MaxScenarios: tc.max}) != ""; got != tc.leftOut {
			t.Errorf("%s: left out %v, want %v", tc.why, got, tc.leftOut)
		}
	}
}

// TestAHugeResultStillChecksItsHistograms: a histogram left out of the
// page is still decoded, so a damaged result is refused whatever its size.
func TestAHugeResultStillChecksItsHistograms(t *testing.T) {
	r := resulttest.Many(t, DefaultMaxScenarios+6)
	last := &r.Runs[len(r.Runs)-1]
	last.LatencyUncorrectedHDR = "not base64!"
	_, err := Render(t.TempDir(), r, testSemantics)
	var he *result.HistogramError
	if !errors.As(err, &he) || he.Run != last.Key() {
		t.Errorf("error %v, want one naming %s", err, last.Key())
	}
}

// BenchmarkRenderHuge renders the report of a result of 3000 runs (750
// scenarios of 4 algorithms), the size; the target is under a
// second per hundred runs.
func BenchmarkRenderHuge(b *testing.B) {
	r := resulttest.Many(b, 750)
	dir := b.TempDir()
	for b.Loop() {
		if _, err := Render(dir, r, testSemantics); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Seconds())/float64(b.N)/float64(len(r.Runs))*100, "s/100runs")
}

// TestPlotsAcrossManyScenariosStayReadable: past maxBarGroups scenarios a
// grouped bar chart would be a wall of overlapping bars and names; the
// plots across scenarios become one column of points per algorithm.
func TestPlotsAcrossManyScenariosStayReadable(t *testing.T) {
	for _, n := range []int{maxBarGroups, maxBarGroups + 1} {
		v := newView(resulttest.Many(t, n))
		d, err := admittedVsBound(v)
		if err != nil {
			t.Fatal(err)
		}
		p, ok := d.(*plot.Plot)
		if !ok {
			t.Fatalf("%d scenarios: drew %T", n, d)
		}
		strip := strings.Contains(p.Title.Text, fmt.Sprintf("one point per scenario, %d scenarios", n))
		if strip != (n > maxBarGroups) {
			t.Errorf("%d scenarios: title %q", n, p.Title.Text)
		}
		if _, err := renderFigure(d, "x.png", "x"); err != nil {
			t.Errorf("%d scenarios: %v", n, err)
		}
	}
}
