package html

import (
	"bytes"
	"context"
	"flag"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/rlbench/rlbench/internal/resulttest"
	"github.com/rlbench/rlbench/report"
	"github.com/rlbench/rlbench/result"
)

var firstScreenCopy = flag.String("first-screen", "", "save the first screen of the page with twelve notes, at 1366x768, to `FILE`")

// twelveNotes is the fixture made into a failed run on a busy machine
// with exactly twelve notes: a limiter that overshot its bound and one
// that leaked keys (the limiter's own failures, last in the result's
// order), four runs whose schedule slipped, three starved of CPU, failed
// calls, a NOSCRIPT reload and a note on the server.
func twelveNotes(t *testing.T) *result.Result {
	t.Helper()
	r := resulttest.Fixture(t)
	for i := range r.Runs {
		run := &r.Runs[i]
		run.Requests.Late = 0
		// Long enough for a bucket's figures to settle: the twelve
		// notes below are of the kinds chosen here.
		run.Params.DurationS = 3600
		if g := run.Generator; g != nil {
			g.CPUWaitShare = 0
		}
	}
	run := func(alg, scenario string) *result.Run {
		for i := range r.Runs {
			if r.Runs[i].Algorithm == alg && r.Runs[i].Scenario == scenario {
				return &r.Runs[i]
			}
		}
		t.Fatalf("the fixture has no run %s/%s", alg, scenario)
		return nil
	}
	for _, alg := range []string{"fixed_window", "sliding_log", "token_bucket", "leaky_bucket"} {
		s := run(alg, "steady")
		s.Requests.Late = s.Requests.Sent / 10
		c := run(alg, "saturate")
		if alg != "sliding_log" {
			c.Generator = &result.Generator{CPUShare: 0.4, CPUWaitShare: 0.6}
		}
	}
	over := run("fixed_window", "burst-one").Audit
	over.Overshoot, over.Violations, over.MaxWindowAdmitted = 7, 2, over.BoundWindow+4
	run("sliding_log", "burst-one").Memory.KeysWithoutTTL = 2
	failed := run("sliding_log", "saturate") // one call in 17,145: within the error budget
	failed.Requests.Errors = 1
	failed.Errors = []result.ErrorCount{{Kind: "timeout", Message: "i/o timeout", Count: 1}}
	run("leaky_bucket", "silence").Requests.NoScriptReloads = 1
	r.Redis.Note = "the server was started with a configuration file of its own"
	r.Verdict = ""
	if n := len(report.Notes(r)); n != 12 {
		t.Fatalf("the page has %d notes, want twelve: %q", n, report.Notes(r))
	}
	return r
}

// firstScreen is where the parts of a page's first screen lie, in CSS
// pixels from the top of the viewport, with the page scrolled to its top.
type firstScreen struct {
	Width       float64 `json:"width"`
	Height      float64 `json:"height"`
	ScrollY     float64 `json:"scrollY"`
	BannerTop   float64 `json:"bannerTop"`
	BannerEnd   float64 `json:"bannerEnd"`
	Reason      string  `json:"reason"`
	DecisionTop float64 `json:"decisionTop"`
	TableTop    float64 `json:"tableTop"`
	TableEnd    float64 `json:"tableEnd"`
	TableRows   int     `json:"tableRows"`
	NotesTop    float64 `json:"notesTop"`
	// Kinds are the notes' top-level items in order: "limiter" or
	// "machine", each with the height of the line that names it.
	Kinds       []string  `json:"kinds"`
	LineHeights []float64 `json:"lineHeights"`
	// Open counts the notes' folds that are open.
	Open int `json:"open"`
}

// measureFirstScreen is the script that reads a firstScreen.
const measureFirstScreen = `(() => {
	window.scrollTo(0, 0);
	const box = sel => { const e = document.querySelector(sel); return e ? e.getBoundingClientRect() : null; };
	const banner = box('#verdict'), decision = box('#decision'), table = box('#decision table'), notes = box('#notes');
	const items = Array.from(document.querySelectorAll('#notes ul.notes > li'));
	return {
		width: window.innerWidth, height: window.innerHeight, scrollY: window.scrollY,
		bannerTop: banner ? banner.top : -1, bannerEnd: banner ? banner.bottom : -1,
		reason: (document.querySelector('#verdict p') || {}).textContent || '',
		decisionTop: decision ? decision.top : -1,
		tableTop: table ? table.top : -1, tableEnd: table ? table.bottom : -1,
		tableRows: document.querySelectorAll('#decision table tr').length - 1,
		notesTop: notes ? notes.top : -1,
		kinds: items.map(li => li.className),
		lineHeights: items.map(li => (li.querySelector(':scope > details > summary') || li).getBoundingClientRect().height),
		open: document.querySelectorAll('#notes details[open]').length,
	};
})()`

// TestFirstScreenIsTheDecision opens, at 1366x768, the page of a failed
// run with twelve notes, and checks that the first screen reads like a
// decision: the banner with the verdict's reason, then the decision table
// whole within the first screen, then the notes grouped by kind, one line
// each with their details folded, the limiter's own failures first.
// A control pushes the decision below the first screen and must be seen
// there, or the measure could not catch anything.
func TestFirstScreenIsTheDecision(t *testing.T) {
	browser := findChromium(t)
	r := twelveNotes(t)
	// The page without its plots: they come after the first screen, and
	// drawing them takes longer than the whole test besides.
	dir := t.TempDir()
	var page bytes.Buffer
	if err := WriteHTML(&page, r, nil, testSemantics); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, HTMLFile), page.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := chromedp.NewContext(newBrowser(t, browser))
	defer cancel()
	self := (&url.URL{Scheme: "file", Path: filepath.Join(dir, HTMLFile)}).String()
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1366, 768), chromedp.Navigate(self)); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](`document.readyState === "complete"`,
		chromedp.WithPollingTimeout(30*time.Second))); err != nil {
		t.Fatalf("waiting for the page: %v", err)
	}
	got := measure(t, ctx, measureFirstScreen)
	if got.Width != 1366 || got.Height != 768 || got.ScrollY != 0 {
		t.Fatalf("viewport %gx%g scrolled to %g, want 1366x768 at the top", got.Width, got.Height, got.ScrollY)
	}
	j := report.NoteGroups(r)
	t.Logf("first screen: %+v", got)
	if got.BannerTop < 0 || got.Reason != "fixed_window/burst-one: OVERSHOOT: 2 identities got more than the algorithm's own bound of 50 within one 500ms (7 admissions beyond it)" {
		t.Errorf("the banner does not open with the verdict's reason: %q", got.Reason)
	}
	if !(got.BannerEnd <= got.DecisionTop && got.DecisionTop <= got.TableTop && got.TableEnd <= got.NotesTop) {
		t.Errorf("not banner, decision, notes in that order: banner ends at %g, decision at %g (table %g to %g), notes at %g",
			got.BannerEnd, got.DecisionTop, got.TableTop, got.TableEnd, got.NotesTop)
	}
	if got.TableTop < 0 || got.TableEnd > got.Height || got.TableRows != 4 {
		t.Errorf("the decision table (%d rows) lies from %g to %g, not within the first screen of %g", got.TableRows, got.TableTop, got.TableEnd, got.Height)
	}
	want := make([]string, len(j))
	for i, g := range j {
		want[i] = "machine"
		if g.Limiter {
			want[i] = "limiter"
		}
	}
	if len(j) >= 12 || len(j) < 3 || !slices.Equal(got.Kinds, want) || want[0] != "limiter" || want[1] != "limiter" || want[2] != "machine" {
		t.Errorf("notes %v, want %v: twelve notes grouped by kind, the limiter's two failures first", got.Kinds, want)
	}
	for i, h := range got.LineHeights {
		// One line of the notes' text is about 22px; two lines at most
		// for a line that names many runs.
		if h > 2*24 {
			t.Errorf("note %d (%s) takes %gpx, more than two lines", i, j[i].Line, h)
		}
	}
	if got.Open != 0 {
		t.Errorf("%d notes' details are open; they must be folded", got.Open)
	}

	shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "first-screen.png")
	if *firstScreenCopy != "" {
		file = *firstScreenCopy
	}
	if err := os.WriteFile(file, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("the first screen: %s", file)

	// The control: the same page with the decision pushed down by a
	// screen's height.
	control := measure(t, ctx, `(() => {
		const spacer = document.createElement('div');
		spacer.style.height = '800px';
		document.querySelector('#decision').before(spacer);
		return `+measureFirstScreen+`;
	})()`)
	if control.TableEnd <= control.Height {
		t.Errorf("the control's decision table, pushed down 800px, still measures inside the first screen (ends at %g of %g)", control.TableEnd, control.Height)
	}
}

// measure runs script in the page and decodes what it returns.
func measure(t *testing.T, ctx context.Context, script string) firstScreen {
	t.Helper()
	got, err := chromedp.Run(ctx, chromedp.Evaluate[firstScreen](script))
	if err != nil {
		t.Fatal(err)
	}
	return got
}
