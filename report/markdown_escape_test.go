package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/resulttest"
	"github.com/rlbench/rlbench/result"
)

// TestMarkdownKeepsNamesText: names, notes and expressions in a result
// are text in the Markdown summary, whatever they hold: no link, image,
// code span, HTML, emphasis, bare URL or line of their own, and no
// terminal control; an expression stays one code span even with
// backticks in it.
func TestMarkdownKeepsNamesText(t *testing.T) {
	r := resulttest.Sample()
	hostile := "[x](https://evil.example) ![i](u) `c` <b>h</b> **e** ~~s~~ www.evil.example a|b \x1b[31m\nlate line"
	r.Profile.Name = hostile
	r.Runs[0].Algorithm = hostile
	r.Runs[0].Scenario = hostile
	r.Redis.Version = hostile
	r.Verdict = result.Fail
	r.Thresholds = []result.ThresholdResult{{Expression: "x`y``z audit.overshoot == 0", Run: hostile, Value: 1}}
	var buf bytes.Buffer
	if err := WriteMarkdown(&buf, r); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, bad := range []string{"[x](", "![i]", " `c` ", "<b>", "**e**", "~~s~~", "https://", "www.evil", "\x1b", "\nlate line"} {
		if strings.Contains(out, bad) {
			t.Errorf("the Markdown holds %q as it was:\n%s", bad, out)
		}
	}
	for _, want := range []string{`\[x\]`, "&lt;b&gt;", `https\:\/\/`, `www\.evil`, `a\|b`, "```x`y``z audit.overshoot == 0```"} {
		if !strings.Contains(out, want) {
			t.Errorf("the Markdown lacks %q:\n%s", want, out)
		}
	}
}

// TestMarkdownCode: inline code is fenced past every run of backticks in
// it, padded where it starts or ends with one, on one line.
func TestMarkdownCode(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain", "`plain`"},       // the common case
		{"a`b", "``a`b``"},         // one backtick inside
		{"`edge", "`` `edge ``"},   // a backtick at the start needs a space
		{"a\nb|c", "`a b\\|c`"},    // a line break and a cell's end
		{"x```y", "````x```y````"}, // a longer run
	} {
		if got := mdCode(tc.in); got != tc.want {
			t.Errorf("mdCode(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
