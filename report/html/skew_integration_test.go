//go:build integration

package html

import (
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/resulttest"
)

// TestIntegrationSkewSweepPage: a result of a sweep of clock skews gets a section
// stating, per limiter, the most admitted in one window at each skew (red
// where the step went past the bound) and the largest skew it tolerates,
// with how the instances took part in the excess, and a plot of admitted
// against skew, one line per limiter; a result without a fleet gets
// neither.
func TestIntegrationSkewSweepPage(t *testing.T) {
	page, figs := renderPage(t, resulttest.Swept())
	text := pageText(page)
	for _, want := range []string{
		"Clock skew of the fleet", "the 2 application instances' clocks spread evenly over minus to plus each skew",
		"±500ms or more (every step held)", "0 (over-admits at ±50ms)",
		"instance 1 (clock +50ms) 152",
		"[image: Most admitted in one window against the clock skew of the fleet",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if !strings.Contains(page, `<td class="bad">2,299</td>`) || strings.Contains(page, `<td class="bad">120</td>`) {
		t.Error("the steps past the bound, and only they, are not marked")
	}
	var skew *Figure
	for i := range figs {
		if figs[i].File == "admitted-vs-skew.png" {
			skew = &figs[i]
		}
	}
	if skew == nil || skew.NoData != "" || len(skew.PNG) == 0 {
		t.Fatalf("no plot of admitted against skew: %+v", skew)
	}
	plain, err := Plots(resulttest.Fixture(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range plain {
		if f.File == "admitted-vs-skew.png" {
			t.Error("a result without a fleet got a plot against skew")
		}
	}
}
