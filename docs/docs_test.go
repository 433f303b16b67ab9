// Package docs holds rlbench's documentation pages. Its test resolves every
// relative link of the README and of the pages, so a section that moves or a
// file that is renamed cannot leave a link pointing nowhere.
package docs

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// TestLinks checks every relative link of README.md and docs/*.md: the file or
// directory it names exists in the repository, and a #fragment names a heading
// of the Markdown file it points at.
func TestLinks(t *testing.T) {
	pages, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	files := []string{"README.md"}
	for _, p := range pages {
		files = append(files, filepath.Join("docs", p))
	}
	checked, problems := checkLinks("..", files)
	for _, p := range problems {
		t.Error(p)
	}
	// A checker that finds no link at all would pass on anything.
	if checked == 0 {
		t.Fatal("no relative link found in README.md or docs/*.md")
	}
	t.Logf("%d relative links checked in README.md and %d pages", checked, len(pages))
}

// TestCheckLinksFindsBrokenLinks runs the checker on small repositories of its
// own, so each kind of broken link is shown to fail.
func TestCheckLinksFindsBrokenLinks(t *testing.T) {
	const target = "# Guide\n\n## Install\n\n## Install\n\n## Use `it` — now\n\n" +
		"```sh\n# not a heading\n```\n"
	tests := []struct {
		name string
		page string // the text of docs/page.md, which links to docs/guide.md and beyond
		want string // a part of the one problem expected; "" for none
	}{
		// The plain cases that must pass.
		{"file", "[g](guide.md)", ""},
		{"heading", "[g](guide.md#install)", ""},
		{"second heading of the same text", "[g](guide.md#install-1)", ""},
		{"heading with code and a dash", "[g](guide.md#use-it--now)", ""},
		{"repository file", "[p](../profiles/x.yaml)", ""},
		{"repository directory", "[p](../profiles)", ""},
		{"root-relative path", "[p](/profiles/x.yaml)", ""},
		{"own heading", "# Here\n\n[h](#here)", ""},
		{"line of a source file", "[p](../profiles/x.yaml#L3)", ""},
		{"image", "![i](../profiles/x.yaml)", ""},
		{"reference definition", "[g][ref]\n\n[ref]: guide.md#install", ""},
		{"web and mail links are not followed", "[w](https://example.com/x.md#nothing) [m](mailto:a@example.com)", ""},
		{"a link in a code block is not followed", "```\n[x](missing.md)\n```", ""},
		{"a link in a code span is not followed", "`[x](missing.md)` and `a\n[y](missing.md)`", ""},
		{"link text spread over lines", "see [the\nguide](guide.md#install)", ""},

		// The broken ones.
		{"missing file", "[g](gide.md)", `gide.md: docs/gide.md does not exist`},
		{"missing heading", "[g](guide.md#instal)", `no heading with anchor "instal"`},
		{"third heading that is not there", "[g](guide.md#install-2)", `no heading with anchor "install-2"`},
		{"heading in a code block", "[g](guide.md#not-a-heading)", `no heading with anchor "not-a-heading"`},
		{"anchor not lower-cased", "[g](guide.md#Install)", `no heading with anchor "Install"`},
		{"missing own heading", "# Here\n\n[h](#there)", `no heading with anchor "there" in docs/page.md`},
		{"missing repository file", "[p](../profiles/y.yaml)", `profiles/y.yaml does not exist`},
		{"fragment on a file that has no headings", "[p](../profiles/x.yaml#top)", `not a Markdown file`},
		{"outside the repository", "[p](../../elsewhere.md)", `outside the repository`},
		{"broken reference definition", "[g][ref]\n\n[ref]: guide.md#nowhere", `no heading with anchor "nowhere"`},
		{"broken image", "![i](missing.png)", `docs/missing.png does not exist`},
		{"other scheme", "[f](file:///etc/passwd)", `not a relative link`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			write(t, root, "docs/guide.md", target)
			write(t, root, "docs/page.md", tt.page+"\n")
			write(t, root, "profiles/x.yaml", "name: x\n")
			_, problems := checkLinks(root, []string{"docs/page.md"})
			switch {
			case tt.want == "" && len(problems) > 0:
				t.Errorf("want no problem, got %q", problems)
			case tt.want != "" && len(problems) != 1:
				t.Errorf("want one problem containing %q, got %q", tt.want, problems)
			case tt.want != "" && !strings.Contains(problems[0], tt.want):
				t.Errorf("want a problem containing %q, got %q", tt.want, problems[0])
			}
		})
	}
}

func write(t *testing.T, root, name, text string) {
	t.Helper()
	path := filepath.Join(root, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestAnchor(t *testing.T) {
	tests := []struct {
		heading, want string
	}{
		// Lower case, spaces to '-'.
		{"The two commands", "the-two-commands"},
		// An apostrophe is punctuation: dropped, not turned into '-'.
		{"Faults and the caller's error policy", "faults-and-the-callers-error-policy"},
		// Commas, quotes and colons go; the spaces around them stay.
		{`Open loop, and what "corrected" means`, "open-loop-and-what-corrected-means"},
		{"Many identities: the cardinality shape", "many-identities-the-cardinality-shape"},
		// Code spans lose their backticks, and '-' inside words is kept.
		{"Start from `rlbench init`", "start-from-rlbench-init"},
		{"rlbench against redis-benchmark", "rlbench-against-redis-benchmark"},
		// '_' is kept, as GitHub keeps it.
		{"snake_case names", "snake_case-names"},
		// An em dash is punctuation: its two spaces make two '-'.
		{"Scale — measured", "scale--measured"},
		// Symbols go too, and spaces are not collapsed.
		{"C++ & Go!", "c--go"},
		{"µs per call × decisions", "µs-per-call--decisions"},
		{"Ship it 🚀", "ship-it-"},
		// Letters of any script are kept, lower-cased.
		{"Ünïcödé Straße", "ünïcödé-straße"},
		// Dots in numbers go.
		{"1.2.3 release", "123-release"},
		// A link in a heading counts by its text, not its address.
		{"See [the guide](docs/guide.md) first", "see-the-guide-first"},
		// Emphasis markers are punctuation.
		{"**Bold** words", "bold-words"},
		// Inline HTML counts by its text.
		{"Use <code>EVALSHA</code>", "use-evalsha"},
	}
	for _, tt := range tests {
		if got := anchor(tt.heading); got != tt.want {
			t.Errorf("anchor(%q) = %q, want %q", tt.heading, got, tt.want)
		}
	}
}

func TestHeadingAnchors(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
	}{
		{"duplicates get -1, -2", "# A\n## A\n### A\n", []string{"a", "a-1", "a-2"}},
		// As GitHub's slugger does: a heading that already reads "a-1" takes
		// that anchor, and the next "A" moves on to "a-2".
		{"a heading that looks like a duplicate's anchor", "# A\n# A-1\n# A\n", []string{"a", "a-1", "a-2"}},
		{"closing hashes are not part of the heading", "## Title ##\n", []string{"title"}},
		{"a hash without a space is not a heading", "#tag\n####### seven\n", nil},
		{"four spaces make a code block, not a heading", "    # code\n", nil},
		{"fenced code is not a heading", "```yaml\n# comment\n```\n~~~\n# also\n~~~\n# After\n", []string{"after"}},
		{"a longer fence is closed only by one as long", "````\n```\n# inside\n````\n# Out\n", []string{"out"}},
		{"setext headings", "Title\n=====\n\nSub title\n---\n", []string{"title", "sub-title"}},
		{"a table separator is not a setext underline", "| a | b |\n|---|---|\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := headingAnchors(tt.text)
			if !slices.Equal(got, tt.want) {
				t.Errorf("headingAnchors(%q) = %q, want %q", tt.text, got, tt.want)
			}
		})
	}
}

// checkLinks resolves the relative links of files (slash-separated paths
// under root) and returns how many it checked and what is broken, one
// message per broken link naming the file and line.
func checkLinks(root string, files []string) (checked int, problems []string) {
	anchorsOf := map[string]map[string]bool{} // by slash path under root
	anchorsFor := func(rel string) (map[string]bool, error) {
		if a, ok := anchorsOf[rel]; ok {
			return a, nil
		}
		text, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			return nil, err
		}
		a := map[string]bool{}
		for _, name := range headingAnchors(string(text)) {
			a[name] = true
		}
		anchorsOf[rel] = a
		return a, nil
	}
	for _, file := range files {
		text, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(file)))
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		for _, l := range links(string(text)) {
			if isExternal(l.target) {
				continue
			}
			checked++
			if msg := resolve(root, file, l.target, anchorsFor); msg != "" {
				problems = append(problems, fmt.Sprintf("%s:%d: %s: %s", file, l.line, l.target, msg))
			}
		}
	}
	return checked, problems
}

var (
	schemeRE     = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
	sourceLineRE = regexp.MustCompile(`^L[0-9]+(-L[0-9]+)?$`)
)

// isExternal reports the links the test does not follow: the web and mail.
func isExternal(target string) bool {
	lower := strings.ToLower(target)
	return strings.HasPrefix(lower, "http://") || strings.HasPrefix(lower, "https://") ||
		strings.HasPrefix(lower, "mailto:")
}

// resolve checks one link of file and returns what is wrong with it, or "".
func resolve(root, file, target string, anchorsFor func(string) (map[string]bool, error)) string {
	if schemeRE.MatchString(target) || strings.HasPrefix(target, "//") {
		return "not a relative link, and not http(s) or mailto"
	}
	pathPart, fragment, _ := strings.Cut(target, "#")
	p, err := url.PathUnescape(pathPart)
	if err != nil {
		return err.Error()
	}
	if f, err := url.PathUnescape(fragment); err == nil {
		fragment = f
	}
	var rel string // slash path under root
	switch {
	case p == "":
		rel = file
	case strings.HasPrefix(p, "/"): // GitHub reads these from the repository's root
		rel = strings.TrimPrefix(p, "/")
	default:
		rel = filepath.ToSlash(filepath.Join(filepath.Dir(filepath.FromSlash(file)), filepath.FromSlash(p)))
	}
	rel = filepath.ToSlash(filepath.Clean(filepath.FromSlash(rel)))
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return "points outside the repository"
	}
	info, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return rel + " does not exist"
	}
	if fragment == "" {
		return ""
	}
	if info.IsDir() || !strings.EqualFold(filepath.Ext(rel), ".md") {
		if !info.IsDir() && sourceLineRE.MatchString(fragment) {
			return "" // GitHub's line anchors in a file's view
		}
		return fmt.Sprintf("#%s on %s, which is not a Markdown file", fragment, rel)
	}
	anchors, err := anchorsFor(rel)
	if err != nil {
		return err.Error()
	}
	if !anchors[fragment] {
		return fmt.Sprintf("no heading with anchor %q in %s", fragment, rel)
	}
	return ""
}

// link is a link's target and the line it is on.
type link struct {
	target string
	line   int
}

var (
	inlineLinkRE = regexp.MustCompile(`\]\(\s*(<[^>\n]*>|[^)\s]*)(?:\s+(?:"[^"]*"|'[^']*'|\([^)]*\)))?\s*\)`)
	refDefRE     = regexp.MustCompile(`(?m)^ {0,3}\[[^\]\n]+\]:[ \t]*(<[^>\n]*>|\S+)`)
)

// links returns the targets of the inline links, images and reference
// definitions of a Markdown text, leaving out fenced code blocks and code
// spans. Text is taken a block at a time (blocks end at blank lines, fences
// and headings), so link text and code spans may run over several lines.
func links(text string) []link {
	var out []link
	var block []string
	blockStart := 0
	flush := func() {
		if len(block) == 0 {
			return
		}
		joined := stripCodeSpans(strings.Join(block, "\n"))
		add := func(re *regexp.Regexp) {
			for _, m := range re.FindAllStringSubmatchIndex(joined, -1) {
				target := strings.TrimSuffix(strings.TrimPrefix(joined[m[2]:m[3]], "<"), ">")
				out = append(out, link{target, blockStart + strings.Count(joined[:m[0]], "\n")})
			}
		}
		add(inlineLinkRE)
		add(refDefRE)
		block = nil
	}
	var f fence
	for i, line := range strings.Split(text, "\n") {
		if f.update(line) {
			flush()
			continue
		}
		if strings.TrimSpace(line) == "" || atxRE.MatchString(line) {
			flush()
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		if len(block) == 0 {
			blockStart = i + 1
		}
		block = append(block, line)
	}
	flush()
	slices.SortStableFunc(out, func(a, b link) int { return a.line - b.line })
	return out
}

// stripCodeSpans blanks the content of code spans (a run of backticks closed
// by a run as long), keeping newlines so line numbers still count.
func stripCodeSpans(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] != '`' {
			b.WriteByte(s[i])
			i++
			continue
		}
		n := 0
		for i+n < len(s) && s[i+n] == '`' {
			n++
		}
		run := s[i : i+n]
		end := -1
		for j := i + n; j < len(s); {
			k := strings.Index(s[j:], run)
			if k < 0 {
				break
			}
			k += j
			m := 0
			for k+m < len(s) && s[k+m] == '`' {
				m++
			}
			if m == n {
				end = k
				break
			}
			j = k + m
		}
		if end < 0 { // no closing run: the backticks are literal
			b.WriteString(run)
			i += n
			continue
		}
		b.WriteString(strings.Repeat("_", n))
		for _, r := range s[i+n : end] {
			if r == '\n' {
				b.WriteByte('\n')
			}
		}
		b.WriteString(strings.Repeat("_", n))
		i = end + n
	}
	return b.String()
}

// fence follows fenced code blocks line by line.
type fence struct {
	open bool
	char byte
	size int
}

var fenceRE = regexp.MustCompile("^[ \t]*(`{3,}|~{3,})")

// update reads one line and reports whether it belongs to a fenced code
// block, its opening and closing lines included.
func (f *fence) update(line string) bool {
	m := fenceRE.FindStringSubmatch(line)
	if !f.open {
		if m == nil || (m[1][0] == '`' && strings.Contains(line[len(m[0]):], "`")) {
			return false
		}
		f.open, f.char, f.size = true, m[1][0], len(m[1])
		return true
	}
	if m != nil && m[1][0] == f.char && len(m[1]) >= f.size && strings.TrimSpace(line[len(m[0]):]) == "" {
		f.open = false
	}
	return true
}

var (
	atxRE     = regexp.MustCompile(`^ {0,3}#{1,6}(?:[ \t]+|$)`)
	closingRE = regexp.MustCompile(`(?:^|[ \t]+)#+[ \t]*$`)
	setextRE  = regexp.MustCompile(`^ {0,3}(?:=+|-+)[ \t]*$`)
	// Lines that cannot be the text of a setext heading: list items, quotes,
	// table rows and indented code.
	notSetextTextRE = regexp.MustCompile(`^(?: {4}|\t| {0,3}(?:[-+*>|]|[0-9]+[.)])(?:[ \t]|$))`)
)

// headingAnchors returns the anchors GitHub gives the headings of a Markdown
// text, in order: the first heading of a text gets anchor(text), the next of
// the same text "-1" after it, then "-2", skipping any a heading already has.
func headingAnchors(text string) []string {
	var out []string
	seen := map[string]int{}
	add := func(heading string) {
		base := anchor(heading)
		name := base
		for {
			if _, taken := seen[name]; !taken {
				break
			}
			seen[base]++
			name = fmt.Sprintf("%s-%d", base, seen[base])
		}
		seen[name] = 0
		out = append(out, name)
	}
	var f fence
	prev := "" // the previous line, when it could be a setext heading's text
	for _, line := range strings.Split(text, "\n") {
		if f.update(line) {
			prev = ""
			continue
		}
		switch {
		case atxRE.MatchString(line):
			h := strings.TrimSpace(line)
			h = strings.TrimSpace(strings.TrimLeft(h, "#"))
			h = closingRE.ReplaceAllString(h, "")
			add(h)
			prev = ""
			continue
		case prev != "" && setextRE.MatchString(line):
			add(strings.TrimSpace(prev))
			prev = ""
			continue
		}
		if strings.TrimSpace(line) == "" || notSetextTextRE.MatchString(line) {
			prev = ""
		} else {
			prev = line
		}
	}
	return out
}

var (
	headingLinkRE = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	htmlTagRE     = regexp.MustCompile(`</?[a-zA-Z][^>]*>`)
)

// anchor is GitHub's anchor for a heading: its text lower-cased, every
// character but letters, digits, '-', '_' and spaces dropped, and each space
// turned into '-'. A link or an HTML tag counts by its text alone.
func anchor(heading string) string {
	heading = headingLinkRE.ReplaceAllString(heading, "$1")
	heading = htmlTagRE.ReplaceAllString(heading, "")
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
