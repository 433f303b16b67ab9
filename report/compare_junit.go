package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// compareJUnitCase names the test case of what belongs to no one run of a
// comparison: an incomplete result, a run the current result lacks.
const compareJUnitCase = "comparison"

// WriteCompareJUnit writes a comparison as JUnit XML, in the same schema
// as WriteJUnit: one test suite with a test case per run of the baseline,
// which fails with one failure per figure that regressed (type
// REGRESSED, the message what moved how far against what was allowed),
// and a case named "comparison" that fails when the current result lacks a
// run of the baseline or either result is incomplete. A run whose figures
// all held passes, with its rows in system-out.
func WriteCompareJUnit(w io.Writer, c *Comparison) error {
	c = printableCopy(c)
	suite := junitSuite{
		Name: "rlbench compare",
		Time: junitSeconds(0),
		Properties: []junitProperty{
			{"verdict", c.verdictWord()},
			{"baseline", c.Baseline},
			{"current", c.Current},
		},
	}
	class := "rlbench.compare"
	var order []string
	byRun := map[string][]CompareRow{}
	for _, r := range c.Rows {
		if _, ok := byRun[r.Run]; !ok {
			order = append(order, r.Run)
		}
		byRun[r.Run] = append(byRun[r.Run], r)
	}
	for _, run := range order {
		tc := junitCase{Name: run, Class: class}
		var out []string
		for _, r := range byRun[run] {
			line := compareRowText(r)
			if r.Verdict == Regressed {
				tc.Failures = append(tc.Failures, newJUnitMessage(Regressed, line))
				continue
			}
			out = append(out, line)
		}
		tc.Out = strings.Join(out, "\n")
		suite.add(tc)
	}
	whole := junitCase{Name: compareJUnitCase, Class: class, Out: strings.Join(c.Warnings, "\n")}
	for _, k := range c.MissingInCurrent {
		if len(c.Incomplete) == 0 {
			whole.Failures = append(whole.Failures, newJUnitMessage("MISSING", k+" is in the baseline but missing from the current result"))
		}
	}
	for _, why := range c.Incomplete {
		whole.Failures = append(whole.Failures, newJUnitMessage("INCOMPLETE", why))
	}
	if d := c.detectableLine(); d != "" {
		whole.Out = strings.TrimPrefix(whole.Out+"\n"+d, "\n")
	}
	suite.add(whole)
	doc := junitSuites{Name: "rlbench", Tests: suite.Tests, Failures: suite.Failures, Errors: suite.Errors, Time: suite.Time, Suites: []junitSuite{suite}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// compareRowText is one row of a comparison in a line: the metric, both
// values, their ratio, what was allowed and the verdict with its note.
func compareRowText(r CompareRow) string {
	b, cur := r.shown()
	line := fmt.Sprintf("%s: %s -> %s", r.Metric, b, cur)
	if s := ratioString(r.Ratio); s != "-" {
		line += " (" + s + "x)"
	}
	line += ", allowed " + r.Allowed + ": " + r.Verdict
	if r.Note != "" {
		line += " (" + r.Note + ")"
	}
	return line
}
