package docs

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/golden"
	"github.com/rlbench/rlbench/profile"
	"github.com/rlbench/rlbench/report"
	"github.com/rlbench/rlbench/result"
)

// Every example of rlbench's output in the README and the pages is what
// rlbench prints for a real run. A comment right before its code block
// names the run and the part of the summary it shows, and for a table the
// rows (algorithm, or algorithm/scenario) it keeps:
//
//	<!-- example: boundary audit fixed_window/boundary sliding_log/boundary -->
//
// TestExamples renders that part with this rlbench's summary from the
// run's result, recorded under testdata/examples/, and compares it with the
// page. A column added to a table, a sentence reworded, a row that moved:
// the test fails until the page shows what rlbench prints.
//
//	go test ./docs -run TestExamples -update    rewrites the pages' blocks
//	go test ./docs -run TestExamples -record    runs the profiles again (rlbench run on a
//	                                            private redis-server, a few minutes) and
//	                                            records their results first
var record = flag.Bool("record", false, "run the examples' profiles with rlbench on a private redis-server and record their results under testdata/examples/ (then -update the pages)")

// exampleRuns are the runs the examples come from: a name, and the profile
// that makes it (relative to the repository).
var exampleRuns = map[string]string{
	"boundary":    "profiles/boundary.yaml",
	"buggy":       "profiles/examples/buggy_fixed_window.yaml",
	"textbook":    "profiles/examples/textbook_fixed_window.yaml",
	"microtime":   "profiles/examples/token_bucket_microtime.yaml",
	"fleet":       "profiles/fleet.yaml",
	"smoke":       "profiles/smoke.yaml",
	"compare-all": "profiles/compare-all.yaml",
}

// exampleMarker is the comment that names an example: its run, the parts
// of the summary (joined by +), and the rows it keeps.
var exampleMarker = regexp.MustCompile(`^( *)<!-- example: ([a-z-]+) ([a-z-]+(?:\+[a-z-]+)*)((?: [^ ]+)*) -->$`)

// example is one marked code block of a page.
type example struct {
	file        string
	line        int // of the code block's opening fence
	run, part   string
	filter      []string
	first, last int // the block's content lines, [first, last)
	indent      string
	body        string
}

// TestExamples renders every marked example from its recorded run and
// compares it with the page; a code block that shows rlbench's output
// without a marker fails too, so that no example escapes the check.
func TestExamples(t *testing.T) {
	if *record {
		recordExamples(t)
	}
	total := 0
	for _, file := range pageFiles(t) {
		data, err := os.ReadFile(filepath.Join("..", file))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(data), "\n")
		examples, unmarked := findExamples(file, lines)
		for _, u := range unmarked {
			t.Errorf("%s: a code block shows rlbench's output without an <!-- example: RUN PART --> marker naming the run it comes from", u)
		}
		changed := false
		// From the last, so that rewriting a block keeps the lines of
		// those above it.
		for i := len(examples) - 1; i >= 0; i-- {
			ex := examples[i]
			total++
			got, err := ex.render()
			if err != nil {
				t.Errorf("%s:%d: %v", ex.file, ex.line, err)
				continue
			}
			if got == ex.body {
				continue
			}
			if golden.Updating() {
				block := strings.Split(got, "\n")
				for j := range block {
					if block[j] != "" {
						block[j] = ex.indent + block[j]
					}
				}
				lines = slices.Concat(lines[:ex.first], block, lines[ex.last:])
				changed = true
				continue
			}
			t.Errorf("%s:%d: the example no longer matches what rlbench prints for the %s run (go test ./docs -run TestExamples -update rewrites it):\n%s",
				ex.file, ex.line, ex.run, golden.FirstDifference(ex.body, got))
		}
		if changed {
			if err := os.WriteFile(filepath.Join("..", file), []byte(strings.Join(lines, "\n")), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	// A check that finds no example would pass on anything.
	if total == 0 {
		t.Fatal("no example marked in README.md or docs/*.md: the check sees nothing")
	}
	t.Logf("%d examples checked", total)
}

// pageFiles are the README and every page, relative to the repository.
func pageFiles(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	files := []string{"README.md"}
	for _, p := range pages {
		files = append(files, filepath.Join("docs", p))
	}
	return files
}

// outputLike says a code block's first line is one rlbench's summary
// prints: the verdict, a table's heading, a kind of note, the
// recommendation, the thresholds, a profile's error.
var outputLike = regexp.MustCompile(`^(verdict: |audit: |which limiter|notes:|approximations: |clock skew |Best fit |thresholds: |\s+algorithm\s+scenario|profiles/\S+\.yaml:\d+: )`)

// findExamples finds the marked code blocks of a page, and the unmarked
// ones that look like rlbench's output (as "file:line").
func findExamples(file string, lines []string) (examples []example, unmarked []string) {
	for i := 0; i < len(lines); i++ {
		fence := strings.TrimLeft(lines[i], " ")
		if !strings.HasPrefix(fence, "```") {
			continue
		}
		indent := lines[i][:len(lines[i])-len(fence)]
		end := i + 1
		for end < len(lines) && strings.TrimSpace(lines[end]) != "```" {
			end++
		}
		var body []string
		for _, l := range lines[i+1 : min(end, len(lines))] {
			body = append(body, strings.TrimPrefix(l, indent))
		}
		var m []string
		for j := i - 1; j >= 0; j-- {
			if strings.TrimSpace(lines[j]) == "" {
				continue
			}
			m = exampleMarker.FindStringSubmatch(lines[j])
			break
		}
		switch {
		case m != nil:
			examples = append(examples, example{file: file, line: i + 1, run: m[2], part: m[3], filter: strings.Fields(m[4]),
				first: i + 1, last: end, indent: indent, body: strings.Join(body, "\n")})
		case fence == "```" && len(body) > 0 && outputLike.MatchString(body[0]):
			unmarked = append(unmarked, fmt.Sprintf("%s:%d", file, i+1))
		}
		i = end
	}
	return examples, unmarked
}

// render is the example's part of the summary of its run, as rlbench
// prints it today.
func (ex example) render() (string, error) {
	if ex.part == "profile-error" {
		return profileError(ex.run)
	}
	r, err := result.ReadFile(filepath.Join("testdata", "examples", ex.run+".json"))
	if err != nil {
		return "", fmt.Errorf("the %s run: %w (go test ./docs -run TestExamples -record makes it)", ex.run, err)
	}
	var buf bytes.Buffer
	if err := report.WriteSummary(&buf, r); err != nil {
		return "", err
	}
	summary := strings.Split(strings.TrimRight(buf.String(), "\n"), "\n")
	var parts []string
	for _, part := range strings.Split(ex.part, "+") {
		got, err := summaryPart(summary, part, ex.filter)
		if err != nil {
			return "", fmt.Errorf("the %s run's %s: %w", ex.run, part, err)
		}
		parts = append(parts, got)
	}
	return strings.Join(parts, "\n\n"), nil
}

// summaryParts name the parts of a summary an example may show.
const summaryParts = "verdict, decision, recommendation, runs, audit, approximations, skew, thresholds, late-sends, profile-error"

// summaryPart cuts one part out of a summary's lines: the verdict's first
// line, the decision table (with what it says under it, but not the
// recommendation), the recommendation, a table by its heading, the
// thresholds, or the note of late sends (its first line, its explanation,
// its first run's figures, and "..." when it names more). A table keeps
// only the rows filter names, when it names any.
func summaryPart(summary []string, part string, filter []string) (string, error) {
	block := func(from int) []string {
		to := from
		for to < len(summary) && summary[to] != "" {
			to++
		}
		return summary[from:to]
	}
	index := func(prefix string) int {
		return slices.IndexFunc(summary, func(l string) bool { return strings.HasPrefix(l, prefix) })
	}
	var b []string
	switch part {
	case "verdict":
		return summary[0], nil
	case "recommendation":
		if i := index("Best fit "); i >= 0 {
			return summary[i], nil
		}
		return "", errors.New("no recommendation")
	case "late-sends":
		i := index("! late sends")
		if i < 0 {
			return "", errors.New("no note of late sends")
		}
		b = block(i)
		out := []string{"notes:", b[0], b[1], b[2]}
		if len(b) > 3 {
			out = append(out, "    ...")
		}
		return strings.Join(out, "\n"), nil
	case "decision":
		i := index("which limiter")
		if i < 0 {
			return "", errors.New("no decision table")
		}
		b = slices.DeleteFunc(slices.Clone(block(i)), func(l string) bool {
			return strings.HasPrefix(l, "Best fit ") || strings.HasPrefix(l, "No limiter to recommend")
		})
	case "runs":
		i := slices.IndexFunc(summary, func(l string) bool {
			f := strings.Fields(l)
			return len(f) > 3 && f[0] == "algorithm" && f[1] == "scenario" && f[2] == "sent"
		})
		if i < 0 {
			return "", errors.New("no table of runs")
		}
		b = block(i)
	default:
		headings := map[string]string{"audit": "audit: ", "approximations": "approximations: ", "skew": "clock skew ", "thresholds": "thresholds: "}
		prefix, ok := headings[part]
		if !ok {
			return "", fmt.Errorf("no part %q (%s)", part, summaryParts)
		}
		i := index(prefix)
		if i < 0 {
			return "", fmt.Errorf("no %s", part)
		}
		b = block(i)
	}
	if len(filter) == 0 {
		return strings.Join(b, "\n"), nil
	}
	var out []string
	kept := 0
	for _, l := range b {
		key, isRow := rowKey(l)
		switch {
		case !isRow:
			out = append(out, l)
		case slices.ContainsFunc(key, func(k string) bool { return slices.Contains(filter, k) }):
			out = append(out, l)
			kept++
		}
	}
	if kept == 0 {
		return "", fmt.Errorf("no row of %s in its %s", strings.Join(filter, ", "), part)
	}
	return strings.Join(out, "\n"), nil
}

// rowKey says whether a table's line is one of its algorithms' or runs'
// (not a heading or what the table says below it), and the names a filter
// may keep it by: its algorithm, and its algorithm/scenario; a line that
// says more of one run ("alg/scenario: ...") goes by that run's name.
func rowKey(l string) ([]string, bool) {
	if !strings.HasPrefix(l, " ") {
		return nil, false // a heading, or a sentence under the table
	}
	f := strings.Fields(l)
	switch {
	case len(f) < 2, f[0] == "algorithm", f[0] == "-", f[0] == "FAIL", f[0] == "ok":
		return nil, false
	case strings.HasSuffix(f[0], ":"):
		return []string{strings.TrimSuffix(f[0], ":")}, true
	}
	return []string{f[0], f[0] + "/" + f[1]}, true
}

// profileError is what rlbench says of a profile it cannot read: of
// testdata/examples/NAME.yaml read as profiles/NAME.yaml, or, where
// testdata/examples/NAME is a directory (a profile with the files it
// names), of its profiles/*.yaml loaded from within it.
func profileError(name string) (string, error) {
	dir := filepath.Join("testdata", "examples", name)
	if info, err := os.Stat(dir); err == nil && info.IsDir() {
		return loadError(dir)
	}
	data, err := os.ReadFile(dir + ".yaml")
	if err != nil {
		return "", err
	}
	_, err = profile.Parse("profiles/"+name+".yaml", data)
	if err == nil {
		return "", fmt.Errorf("profiles/%s.yaml has no error to show", name)
	}
	return strings.SplitN(err.Error(), "\n", 2)[0], nil
}

// loadError loads the one profile under dir/profiles from within dir, as
// rlbench validate profiles/NAME.yaml would there, and returns the first
// line of its error.
func loadError(dir string) (string, error) {
	found, err := filepath.Glob(filepath.Join(dir, "profiles", "*.yaml"))
	if err != nil || len(found) != 1 {
		return "", fmt.Errorf("%s: want one profile under profiles/, found %d", dir, len(found))
	}
	here, err := os.Getwd()
	if err != nil {
		return "", err
	}
	if err := os.Chdir(dir); err != nil {
		return "", err
	}
	_, err = profile.Load(filepath.Join("profiles", filepath.Base(found[0])))
	if cerr := os.Chdir(here); cerr != nil {
		panic(cerr) // every later example reads relative to here
	}
	if err == nil {
		return "", fmt.Errorf("%s has no error to show", found[0])
	}
	return strings.SplitN(err.Error(), "\n", 2)[0], nil
}

// recordExamples builds rlbench and runs each example's profile as a user
// would (rlbench run, on a private redis-server), then records its result
// with its tool version written as "docs" (so that a page does not change
// with every commit) and the figures the summary does not print left out
// (histograms, per-second series, timelines), after checking the summary is
// the same without them.
func recordExamples(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "rlbench")
	build := exec.Command("go", "build", "-o", bin, "./cmd/rlbench")
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	names := make([]string, 0, len(exampleRuns))
	for name := range exampleRuns {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		out := filepath.Join(dir, name)
		run := exec.Command(bin, "run", "--quiet", "--no-report", "--no-embedded", "--out", out, exampleRuns[name])
		run.Dir = ".."
		var stdout, stderr bytes.Buffer
		run.Stdout, run.Stderr = &stdout, &stderr
		err := run.Run()
		var exit *exec.ExitError
		// A profile whose limiter is broken fails (1), one that cannot
		// judge is inconclusive (4): both are runs to show.
		if err != nil && !(errors.As(err, &exit) && (exit.ExitCode() == 1 || exit.ExitCode() == 4)) {
			t.Fatalf("rlbench run %s: %v\n%s", exampleRuns[name], err, stderr.String())
		}
		found, err := filepath.Glob(filepath.Join(out, "*", "result.json"))
		if err != nil || len(found) != 1 {
			t.Fatalf("rlbench run %s wrote %d results (%v)", exampleRuns[name], len(found), err)
		}
		res, err := result.ReadFile(found[0])
		if err != nil {
			t.Fatal(err)
		}
		res.Tool.Version = "docs"
		var full, lean bytes.Buffer
		if err := report.WriteSummary(&full, res); err != nil {
			t.Fatal(err)
		}
		for i := range res.Runs {
			run := &res.Runs[i]
			run.LatencyHDR, run.LatencyUncorrectedHDR, run.Series, run.Timeline = "", "", nil, nil
			if run.Edge != nil {
				run.Edge.MaxInWindow, run.Edge.MeanInWindow = nil, nil
			}
			if run.Faults != nil {
				run.Faults.Timeline = nil
			}
			if run.MemoryOverTime != nil {
				run.MemoryOverTime.Samples = nil
			}
		}
		if err := report.WriteSummary(&lean, res); err != nil {
			t.Fatal(err)
		}
		if full.String() != lean.String() {
			t.Fatalf("%s: the summary changes without the figures left out:\n%s", name, golden.FirstDifference(full.String(), lean.String()))
		}
		if err := result.WriteFile(filepath.Join("testdata", "examples", name+".json"), res); err != nil {
			t.Fatal(err)
		}
		t.Logf("recorded %s from %s: verdict %s", name, exampleRuns[name], res.Verdict)
	}
}
