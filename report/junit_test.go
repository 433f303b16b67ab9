package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/resulttest"
	"github.com/rlbench/rlbench/result"
)

// junitRules is the common JUnit schema (the junit-10.xsd that Jenkins'
// xUnit plugin publishes, which GitLab, Jenkins and most CI systems read),
// written out: for each element, the elements it may hold, the attributes
// it must have and may have, and whether it holds text.
var junitRules = map[string]struct {
	children           []string
	required, optional []string
	text               bool
}{
	"testsuites": {children: []string{"testsuite"}, optional: []string{"name", "time", "tests", "failures", "errors"}},
	"testsuite": {children: []string{"testsuite", "properties", "testcase", "system-out", "system-err"},
		required: []string{"name", "tests", "failures", "errors"},
		optional: []string{"group", "time", "skipped", "timestamp", "hostname", "id", "package", "file", "log", "url"}},
	"properties": {children: []string{"property"}},
	"property":   {required: []string{"name", "value"}},
	"testcase": {children: []string{"skipped", "error", "failure", "rerunFailure", "rerunError", "flakyFailure", "flakyError", "system-out", "system-err"},
		required: []string{"name"}, optional: []string{"time", "classname", "group"}},
	"failure":    {optional: []string{"type", "message"}, text: true},
	"error":      {optional: []string{"type", "message"}, text: true},
	"skipped":    {optional: []string{"type", "message"}, text: true},
	"system-out": {text: true},
	"system-err": {text: true},
}

// surefireTime is the schema's pattern for a time attribute (SUREFIRE_TIME).
var surefireTime = regexp.MustCompile(`^(([0-9]{0,3},)*[0-9]{3}|[0-9]{0,3})*(\.[0-9]*)?$`)

// validateJUnit checks a document against junitRules, its root being
// testsuites; it returns what breaks them.
func validateJUnit(t *testing.T, doc []byte) []string {
	t.Helper()
	var problems []string
	dec := xml.NewDecoder(bytes.NewReader(doc))
	type open struct {
		name string
		text bool
	}
	var stack []open
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return append(problems, "not well-formed XML: "+err.Error())
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			name := tok.Name.Local
			rule, known := junitRules[name]
			switch {
			case !known:
				problems = append(problems, "unknown element <"+name+">")
			case len(stack) == 0 && name != "testsuites":
				problems = append(problems, "the root is <"+name+">, not <testsuites>")
			case len(stack) > 0 && !slices.Contains(junitRules[stack[len(stack)-1].name].children, name):
				problems = append(problems, fmt.Sprintf("<%s> inside <%s>", name, stack[len(stack)-1].name))
			}
			have := map[string]bool{}
			for _, a := range tok.Attr {
				have[a.Name.Local] = true
				if !slices.Contains(rule.required, a.Name.Local) && !slices.Contains(rule.optional, a.Name.Local) {
					problems = append(problems, fmt.Sprintf("<%s %s=...>: no such attribute", name, a.Name.Local))
				}
				if a.Name.Local == "time" && name != "testcase" && !surefireTime.MatchString(a.Value) {
					problems = append(problems, fmt.Sprintf("<%s time=%q>: not a time", name, a.Value))
				}
			}
			for _, a := range rule.required {
				if !have[a] {
					problems = append(problems, fmt.Sprintf("<%s> without %s", name, a))
				}
			}
			stack = append(stack, open{name: name, text: rule.text})
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 && !stack[len(stack)-1].text && strings.TrimSpace(string(tok)) != "" {
				problems = append(problems, fmt.Sprintf("text %q inside <%s>", tok, stack[len(stack)-1].name))
			}
		}
	}
	return problems
}

// junitDoc is what the tests read back of the JUnit output.
type junitDoc struct {
	Suites []struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Skipped  int `xml:"skipped,attr"`
		Cases    []struct {
			Name    string `xml:"name,attr"`
			Class   string `xml:"classname,attr"`
			Skipped *struct {
				Message string `xml:"message,attr"`
			} `xml:"skipped"`
			Failures []struct {
				Type    string `xml:"type,attr"`
				Message string `xml:"message,attr"`
			} `xml:"failure"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func writeJUnit(t *testing.T, r *result.Result) ([]byte, junitDoc) {
	t.Helper()
	var b bytes.Buffer
	if err := WriteJUnit(&b, r); err != nil {
		t.Fatal(err)
	}
	for _, p := range validateJUnit(t, b.Bytes()) {
		t.Errorf("the JUnit output breaks the schema: %s", p)
	}
	var doc junitDoc
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), doc
}

// TestJUnitOfAFailedResult: a run the verdict fails on fails once per
// finding, with its kind and its text; a run that could not judge is
// skipped with the reason; a threshold is a test case of its own; an
// incomplete result fails the case for the whole; the counts add up, and
// the document keeps to the common JUnit schema however the names read.
func TestJUnitOfAFailedResult(t *testing.T) {
	r := resulttest.Fixture(t)
	r.Runs[0].Algorithm = `<fixed&"window">` + "\x1b[31m"
	r.Runs[0].Audit.Overshoot, r.Runs[0].Audit.Violations = 7, 2
	r.Runs[0].Audit.ModelMismatches = 3
	r.Runs[1].Requests.Planned = r.Runs[1].Requests.Sent * 2 // sent half its plan: inconclusive
	r.Runs[1].Params.AcceptInconclusive = false
	r.Complete, r.IncompleteReason = false, "interrupted (Ctrl-C)"
	r.Thresholds = []result.ThresholdResult{
		{Expression: "*/* latency_us.p99 < 1ms", Run: r.Runs[0].Key(), Value: 2500, Against: 1000},
		{Expression: "*/* requests.errors == 0", Run: r.Runs[0].Key(), OK: true},
	}
	out, doc := writeJUnit(t, r)
	if bytes.Contains(out, []byte("\x1b")) {
		t.Error("a control character reached the XML")
	}
	s := doc.Suites[0]
	cases := map[string]int{}
	for i, c := range s.Cases {
		cases[c.Name] = i
	}
	first := s.Cases[0]
	if len(first.Failures) != 2 || first.Failures[0].Type != "OVERSHOOT" || !strings.Contains(first.Failures[0].Message, "OVERSHOOT: 2 identities") ||
		first.Failures[1].Type != "MISMATCH" || !strings.Contains(first.Name, `<fixed&"window">\x1b`) {
		t.Errorf("the broken run's case: %+v", first)
	}
	second := s.Cases[1]
	if second.Skipped == nil || !strings.Contains(second.Skipped.Message, "inconclusive: it sent") || len(second.Failures) != 0 {
		t.Errorf("the run that sent half its plan: %+v, want it skipped with the reason", second)
	}
	key := Printable(r.Runs[0].Key())
	p99 := s.Cases[cases["*/* latency_us.p99 < 1ms ["+key+"]"]]
	if len(p99.Failures) != 1 || p99.Failures[0].Type != "THRESHOLD" || !strings.Contains(p99.Failures[0].Message, "measured 2.50ms, against 1.00ms") ||
		!strings.HasSuffix(p99.Class, ".thresholds") {
		t.Errorf("the failed threshold's case: %+v", p99)
	}
	if held := s.Cases[cases["*/* requests.errors == 0 ["+key+"]"]]; len(held.Failures) != 0 {
		t.Errorf("a threshold that held failed: %+v", held)
	}
	whole := s.Cases[len(s.Cases)-1]
	if whole.Name != junitResultCase || len(whole.Failures) != 1 || !strings.Contains(whole.Failures[0].Message, "interrupted (Ctrl-C)") {
		t.Errorf("the result's case: %+v", whole)
	}
	failed, skipped := 0, 0
	for _, c := range s.Cases {
		if len(c.Failures) > 0 {
			failed++
		} else if c.Skipped != nil {
			skipped++
		}
	}
	if s.Tests != len(r.Runs)+len(r.Thresholds)+1 || s.Failures != failed || s.Skipped != skipped || failed != 3 {
		t.Errorf("suite counts: %d tests, %d failures, %d skipped; the cases say %d, %d, %d", s.Tests, s.Failures, s.Skipped, len(s.Cases), failed, skipped)
	}
}

// TestJUnitOfAPass: the fixture, which passes, has no failure, and keeps to
// the schema.
func TestJUnitOfAPass(t *testing.T) {
	_, doc := writeJUnit(t, resulttest.Fixture(t))
	if s := doc.Suites[0]; s.Failures != 0 || s.Tests != len(resulttest.Fixture(t).Runs)+len(resulttest.Fixture(t).Thresholds)+1 {
		t.Errorf("a passing result: %d tests, %d failures", s.Tests, s.Failures)
	}
}

// TestTheSchemaCheckCatches: the check above catches what breaks the
// schema, or it could not vouch for anything.
func TestTheSchemaCheckCatches(t *testing.T) {
	for _, bad := range []string{
		`<testsuite name="x" tests="1" failures="0" errors="0"/>`,
		`<testsuites><testsuite name="x" tests="1" failures="0"/></testsuites>`,
		`<testsuites><testsuite name="x" tests="1" failures="0" errors="0" time="1,5"/></testsuites>`,
		`<testsuites><testsuite name="x" tests="1" failures="0" errors="0"><testcase name="a"><failure reason="x"/></testcase></testsuite></testsuites>`,
		`<testsuites><testsuite name="x" tests="1" failures="0" errors="0"><failure/></testsuite></testsuites>`,
		`<testsuites><testsuite name="x" tests="1" failures="0" errors="0">text</testsuite></testsuites>`,
		`<testsuites><testsuite`,
	} {
		if problems := validateJUnit(t, []byte(bad)); len(problems) == 0 {
			t.Errorf("%s passes the schema check", bad)
		}
	}
}
