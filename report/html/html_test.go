package html

import (
	"bytes"
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/golden"
	"github.com/rlbench/rlbench/internal/resulttest"
	"github.com/rlbench/rlbench/result"
)

// testSemantics stands in for the algorithm registry, which the report
// package does not depend on.
var testSemantics = RenderOptions{Semantics: map[string]string{
	"fixed_window": "counts requests in a window that opens at the identity's first hit; a burst across a window boundary may admit 2x limit",
	"sliding_log":  "exact rolling window: never more than limit admitted in any window-long interval",
	"token_bucket": "bucket of burst tokens refilled at limit/window; an idle identity may send a whole burst at once",
}}

// renderPage draws r's plots and writes its page.
func renderPage(t *testing.T, r *result.Result) (string, []Figure) {
	t.Helper()
	figs, err := Plots(r)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteHTML(&buf, r, figs, testSemantics); err != nil {
		t.Fatal(err)
	}
	return buf.String(), figs
}

func fixturePage(t *testing.T) (string, []Figure) {
	t.Helper()
	figs := fixtureFigures(t)
	var buf bytes.Buffer
	if err := WriteHTML(&buf, resulttest.Fixture(t), figs, testSemantics); err != nil {
		t.Fatal(err)
	}
	return buf.String(), figs
}

// TestHTMLTextGolden pins what a reader of the fixture's page reads: its
// text, in order, without markup and images.
func TestHTMLTextGolden(t *testing.T) {
	page, _ := fixturePage(t)
	golden.Check(t, "testdata/report.txt.golden", []byte(pageText(page)))
}

// TestHTMLIsSelfContained checks the page refers to nothing outside
// itself: every image is an embedded PNG, and no URL, script or link
// element appears.
func TestHTMLIsSelfContained(t *testing.T) {
	page, figs := fixturePage(t)
	imgs := regexp.MustCompile(`<img [^>]*src="([^"]*)"`).FindAllStringSubmatch(page, -1)
	if len(imgs) != len(figs) {
		t.Errorf("%d <img> elements, want one per figure (%d)", len(imgs), len(figs))
	}
	for _, m := range imgs {
		if !strings.HasPrefix(m[1], "data:image/png;base64,") {
			t.Errorf("image source %.40q is not an embedded PNG", m[1])
		}
	}
	text := dataPayload.ReplaceAllString(page, "data:")
	for _, bad := range []string{"http:", "https:", "//", "<script", "<link", "@import", "url("} {
		if strings.Contains(text, bad) {
			t.Errorf("page contains %q", bad)
		}
	}
	verdict, env := strings.Index(page, `class="verdict`), strings.Index(page, "<h2>Environment")
	if verdict < 0 || env < 0 || verdict > env {
		t.Errorf("the verdict must come first (verdict at %d, environment at %d)", verdict, env)
	}
}

// TestHTMLEscapesResultStrings feeds markup through every string a profile
// or Redis puts in a result and checks none of it reaches the page raw.
func TestHTMLEscapesResultStrings(t *testing.T) {
	r := resulttest.Fixture(t)
	evil := `<script>alert("x")</script>`
	r.Profile.Name = evil
	r.Profile.Path = evil
	r.Redis.Version = evil
	r.Redis.Addr = evil
	r.Redis.Note = evil
	r.IncompleteReason = evil
	r.Complete = false
	r.Thresholds[0].Expression = evil
	// One run keeps the plots few: the scenario name reaches the figure
	// titles and alternative texts, the algorithm every table and paragraph.
	r.Runs = r.Runs[:1]
	r.Runs[0].Scenario = `<img src=x onerror=alert(1)>`
	r.Runs[0].Algorithm = `"><b>bold</b>`
	r.Runs[0].Errors = []result.ErrorCount{{Message: evil, Count: 1}}
	r.Runs[0].Requests.Errors = 1
	figs, err := Plots(r)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteHTML(&buf, r, figs, RenderOptions{Semantics: map[string]string{r.Runs[0].Algorithm: evil}}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, raw := range []string{"<script", "<img src=x", "<b>bold"} {
		if strings.Contains(page, raw) {
			t.Errorf("page contains %q unescaped", raw)
		}
	}
	if !strings.Contains(page, "&lt;script&gt;") {
		t.Errorf("escaped form of the profile name missing")
	}
}

var (
	// html/template writes the base64 "+" as "&#43;" inside attributes.
	dataPayload = regexp.MustCompile(`data:image/png;base64,(?:[A-Za-z0-9+/=]|&#43;)*`)
	styleBlock  = regexp.MustCompile(`(?s)<style>.*?</style>|<head>.*?</head>`)
	blockTag    = regexp.MustCompile(`(?i)</?(h1|h2|h3|p|li|tr|dt|dd|section|figure|figcaption|div|ul|table|footer)[^>]*>`)
	cellTag     = regexp.MustCompile(`(?i)</?(td|th)[^>]*>`)
	anyTag      = regexp.MustCompile(`<[^>]*>`)
	spaces      = regexp.MustCompile(`\s+`)
)

// pageText is the text a reader sees: blocks on lines of their own, table
// cells separated by " | ", markup and images dropped.
func pageText(page string) string {
	s := spaces.ReplaceAllString(styleBlock.ReplaceAllString(page, ""), " ")
	s = regexp.MustCompile(`<img [^>]*alt="([^"]*)"[^>]*>`).ReplaceAllString(s, "[image: $1]")
	s = blockTag.ReplaceAllString(s, "\n")
	s = cellTag.ReplaceAllString(s, " | ")
	s = anyTag.ReplaceAllString(s, "")
	s = html.UnescapeString(s)
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(spaces.ReplaceAllString(l, " "))
		l = strings.Trim(l, "| ")
		l = strings.ReplaceAll(l, "| |", "|")
		if l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

// TestWave1Result: the page of a result written by the first release
// (../testdata/wave1-result.json) still renders. Its golden text was that
// release's own page when the packages were restructured; it changes only
// with intended changes to the page.
func TestWave1Result(t *testing.T) {
	r, err := result.ReadFile("../testdata/wave1-result.json")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := renderPage(t, r)
	golden.Check(t, "testdata/wave1-report.txt", []byte(pageText(page)))
}
