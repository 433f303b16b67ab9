package html

import (
	"bytes"
	"context"
	"flag"
	"image/png"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/rlbench/rlbench/internal/resulttest"
)

var screenshotCopy = flag.String("screenshot", "", "also save the browser test's screenshot of the report to `FILE`")

// TestReportInABrowser opens the fixture's report.html from disk in headless
// Chromium with the page's network access turned off, and checks that every
// image decoded and that the page asked for nothing but itself and its
// embedded images. A page that refers to anything outside itself fails.
// It saves a full-page screenshot in the test's temporary directory (and
// to -screenshot FILE when given) for a person to look at.
//
// Without Chromium the test is skipped, unless RLBENCH_REQUIRE_BROWSER=1
// (set by CI), which makes a missing browser a failure.
func TestReportInABrowser(t *testing.T) {
	browser := findChromium(t)
	dir := t.TempDir()
	if _, err := Render(dir, resulttest.Fixture(t), testSemantics); err != nil {
		t.Fatal(err)
	}
	// A control page with one image from the network: the checks below
	// must catch it, or they could not catch anything.
	leaky := filepath.Join(dir, "leaky.html")
	if err := os.WriteFile(leaky, []byte(`<!DOCTYPE html><p>control</p><img src="http://127.0.0.1:9/x.png" alt="x">`+
		`<div class="tablewrap" style="overflow-x: auto"><table><caption>control</caption><tr><td style="min-width: 3000px">x</td></tr></table></div>`), 0o644); err != nil {
		t.Fatal(err)
	}

	ctx := newBrowser(t, browser)
	got := loadPage(t, ctx, filepath.Join(dir, HTMLFile))
	if len(got.images) != 18 {
		t.Errorf("page shows %d images, want the 18 plots of the fixture", len(got.images))
	}
	edge := false
	for _, img := range got.images {
		if !img.Complete || img.NaturalWidth != PlotWidthPx || img.NaturalHeight != PlotHeightPx {
			t.Errorf("image %q did not decode: complete %v, natural size %dx%d", img.Alt, img.Complete, img.NaturalWidth, img.NaturalHeight)
		}
		edge = edge || strings.HasPrefix(img.Alt, "Admissions around the window boundary")
	}
	if !edge {
		t.Error("the page shows no plot of admissions around the window boundary for the boundary scenario")
	}
	// The decision summary answers the reader's question before anything
	// else: it is on the page, above the environment, with a row per
	// algorithm and the promise each kept.
	d := got.decision
	if !d.Found || d.Rows != 4 || d.Top >= d.EnvTop || !strings.Contains(d.Text, "Kept its promise") || !strings.Contains(d.Text, "Fastest at the server") {
		t.Errorf("decision summary: %+v; want 4 rows above the environment, saying who kept its promise and who was fastest", d)
	}
	for _, u := range got.outside {
		t.Errorf("page requested %s", u)
	}
	for _, w := range got.wide {
		t.Errorf("a table is wider than a 1366 px screen, its columns cut in a screenshot or a print: %s", w)
	}
	shot := filepath.Join(dir, "report-screenshot.png")
	if err := os.WriteFile(shot, got.screenshot, 0o644); err != nil {
		t.Fatal(err)
	}
	if cfg, err := png.DecodeConfig(bytes.NewReader(got.screenshot)); err != nil || cfg.Width == 0 || cfg.Height < 2000 {
		t.Errorf("screenshot: %v, %dx%d: the page did not lay out", err, cfg.Width, cfg.Height)
	}
	if *screenshotCopy != "" {
		if err := os.WriteFile(*screenshotCopy, got.screenshot, 0o644); err != nil {
			t.Error(err)
		}
	}
	t.Logf("screenshot: %s", shot)

	control := loadPage(t, ctx, leaky)
	if len(control.outside) == 0 {
		t.Error("the control page's network image went unnoticed: the request check sees nothing")
	}
	if len(control.wide) != 1 {
		t.Errorf("the control page's 3000 px table went unnoticed (%q): the width check sees nothing", control.wide)
	}
	if len(control.images) != 1 || control.images[0].NaturalWidth != 0 {
		t.Errorf("the control page's network image loaded (%+v) although the network is off", control.images)
	}
}

// findChromium returns the browser to run, or skips the test when there is
// none and CI does not require one.
func findChromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	if os.Getenv("RLBENCH_REQUIRE_BROWSER") == "1" {
		t.Fatal("no chromium on PATH and RLBENCH_REQUIRE_BROWSER=1 (install the Debian package chromium)")
	}
	t.Skip("no chromium on PATH (install the Debian package chromium, or set RLBENCH_REQUIRE_BROWSER=1 to fail instead)")
	return ""
}

// newBrowser starts headless Chromium with everything that would reach
// for the network on its own turned off, and a profile of its own.
func newBrowser(t *testing.T, path string) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox, // CI runs as root, where Chromium refuses its sandbox
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		// A laptop's screen: every table must fit it (see wide).
		chromedp.WindowSize(1366, 900),
	)
	t.Cleanup(cancelAlloc)
	return allocCtx
}

// imageState is what the page says about one <img>.
type imageState struct {
	Alt           string `json:"alt"`
	Complete      bool   `json:"complete"`
	NaturalWidth  int    `json:"naturalWidth"`
	NaturalHeight int    `json:"naturalHeight"`
}

// decisionState is what the page shows of its decision summary.
type decisionState struct {
	Found  bool    `json:"found"`
	Text   string  `json:"text"`
	Rows   int     `json:"rows"`
	Top    float64 `json:"top"`
	EnvTop float64 `json:"envTop"`
}

type pageLoad struct {
	images   []imageState
	decision decisionState
	// outside lists every request for something other than the page
	// itself or an embedded data: URI.
	outside    []string
	screenshot []byte
	// wide names each table wider than the window shows (by its caption,
	// or the heading above it).
	wide []string
}

// loadPage opens the file in a new tab with the network offline, waits
// until the document and all its images are done, and reports the images,
// the requests that left the page, and a full-page screenshot.
func loadPage(t *testing.T, parent context.Context, file string) pageLoad {
	t.Helper()
	self := (&url.URL{Scheme: "file", Path: file}).String()
	var mu sync.Mutex
	var res pageLoad
	ctx, cancel := chromedp.NewContext(parent, chromedp.WithListener(func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok {
			u := e.Request.URL
			if u != self && !strings.HasPrefix(u, "data:") {
				mu.Lock()
				res.outside = append(res.outside, u)
				mu.Unlock()
			}
		}
	}))
	defer cancel()
	offline := network.EmulateNetworkConditionsByRuleParams{
		MatchedNetworkConditions: []*network.Conditions{{Offline: true, DownloadThroughput: -1, UploadThroughput: -1}},
	}
	if err := chromedp.Do(ctx,
		func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
			if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
				return chromedp.Void{}, err
			}
			_, err := chromedp.Call(ctx, network.EmulateNetworkConditionsByRule, offline)
			return chromedp.Void{}, err
		},
		chromedp.Navigate(self),
	); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](
		`document.readyState === "complete" && Array.from(document.images).every(i => i.complete)`,
		chromedp.WithPollingTimeout(30*time.Second))); err != nil {
		t.Fatalf("%s: waiting for the page: %v", file, err)
	}
	images, err := chromedp.Run(ctx, chromedp.Evaluate[[]imageState](
		`Array.from(document.images).map(i => ({alt: i.alt, complete: i.complete, naturalWidth: i.naturalWidth, naturalHeight: i.naturalHeight}))`))
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	decision, err := chromedp.Run(ctx, chromedp.Evaluate[decisionState](`(() => {
		const d = document.querySelector('#decision');
		const env = Array.from(document.querySelectorAll('h2')).find(h => h.textContent === 'Environment');
		if (!d) return {found: false};
		return {found: true, text: d.innerText, rows: d.querySelectorAll('tr').length - 1,
			top: d.getBoundingClientRect().top, envTop: env ? env.getBoundingClientRect().top : 0};
	})()`))
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	wide, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('.tablewrap'))
		.filter(d => d.scrollWidth > d.clientWidth + 1 || d.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
		.map(d => {
			const c = d.querySelector('caption');
			let h = d.previousElementSibling;
			while (h && !/^H[1-6]$/.test(h.tagName)) h = h.previousElementSibling;
			return (c ? c.textContent : (h ? h.textContent : '?')) + ' (' + d.scrollWidth + ' px in ' + d.clientWidth + ')';
		})`))
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("%s: screenshot: %v", file, err)
	}
	mu.Lock()
	defer mu.Unlock()
	res.images, res.screenshot, res.decision, res.wide = images, shot, decision, wide
	return res
}
