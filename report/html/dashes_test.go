package html

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/resulttest"
)

// TestNoDashWithoutCause builds the page of each result of
// resulttest.Dashed and holds every dash of its decision table to a
// sentence under it ("No <figure> for <algorithms>: why."), and every dash
// of a scenario's audit and costs tables to a line under that table ("—
// <column> of <algorithms>: why").
func TestNoDashWithoutCause(t *testing.T) {
	for name, r := range resulttest.Dashed(t) {
		t.Run(name, func(t *testing.T) {
			p := newPage(r, nil, RenderOptions{})
			n := 0
			for _, problem := range pageUndashed(p, &n) {
				t.Error(problem)
			}
			if n == 0 {
				t.Fatal("no dash on the page: the check saw nothing")
			}
			t.Logf("%d dashes, each with its cause", n)
		})
	}
}

// TestPageUndashedFindsDashesWithoutCause shows the check fails a dash
// whose cause is missing or names another row or column.
func TestPageUndashedFindsDashesWithoutCause(t *testing.T) {
	r := resulttest.Dashed(t)["no accuracy"]
	p := newPage(r, nil, RenderOptions{})
	n := 0
	if got := pageUndashed(p, &n); len(got) != 0 {
		t.Fatalf("the page as built: %q", got)
	}
	drop := func(lines []string, containing string) []string {
		return slices.DeleteFunc(slices.Clone(lines), func(l string) bool { return strings.Contains(l, containing) })
	}
	tests := []struct {
		name   string
		change func(p *page)
	}{
		{"the decision's cause left out", func(p *page) { p.Decision.Missing = drop(p.Decision.Missing, "wrong vs the ideal") }},
		{"the decision's cause of another algorithm", func(p *page) {
			for i, m := range p.Decision.Missing {
				p.Decision.Missing[i] = strings.Replace(m, "for token_bucket", "for sliding_log", 1)
			}
		}},
		{"a scenario's cause left out", func(p *page) {
			for i := range p.Scenarios {
				p.Scenarios[i].CostWhy = nil
			}
		}},
		{"a dash in a cell that had a figure", func(p *page) { p.Scenarios[0].Rows[0].Overshoot = dash }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPage(r, nil, RenderOptions{})
			tt.change(&p)
			n := 0
			if got := pageUndashed(p, &n); len(got) == 0 {
				t.Error("want a dash without its cause found, got none")
			}
		})
	}
}

// missingSentence is a sentence under the decision table saying why some
// of its cells are dashes.
var missingSentence = regexp.MustCompile(`^No (.+?) for (.+?): \S`)

// whyLine is a line under a scenario's table saying why some of its cells
// are dashes.
var whyLine = regexp.MustCompile(`^— (.+?) of (.+?): \S`)

// pageUndashed finds the dashes of p's tables that nothing under the table
// explains, counting every dash it saw in *n.
func pageUndashed(p page, n *int) []string {
	var out []string
	d := p.Decision
	explained := func(lines []string, re *regexp.Regexp, figure, alg string, match func(label, figure string) bool) bool {
		return slices.ContainsFunc(lines, func(l string) bool {
			m := re.FindStringSubmatch(l)
			return m != nil && match(m[1], figure) && slices.Contains(splitList(m[2]), alg)
		})
	}
	for _, row := range d.Rows {
		cells := []struct{ figure, cell string }{
			{"past the policy", row.PastPolicy}, {"server time per decision", row.ServerUs}, {"client latency", row.ClientP99},
			{"Redis CPU at the measured rate", row.CPU}, {"memory per identity", row.MemoryAt},
		}
		if d.Ideal != "" {
			cells = append(cells, struct{ figure, cell string }{"wrong vs the ideal", row.Wrong})
		}
		if d.MemoryAtMillion != "" {
			cells = append(cells, struct{ figure, cell string }{"memory per identity", row.MemoryAtMillion})
		}
		for i, p := range d.Policies {
			cells = append(cells, struct{ figure, cell string }{p + " cost", row.PolicyCosts[i]})
		}
		for _, c := range cells {
			if c.cell != dash && !strings.HasPrefix(c.cell, dash+" (") {
				continue
			}
			*n++
			if !explained(d.Missing, missingSentence, c.figure, row.Algorithm, strings.Contains) {
				out = append(out, fmt.Sprintf("decision table: the dash of %s in %q has no sentence saying why", row.Algorithm, c.figure))
			}
		}
	}
	for _, s := range p.Scenarios {
		for _, row := range s.Rows {
			type cell struct {
				column, value string
				lines         []string
			}
			var cells []cell
			if s.HasAudit {
				for _, c := range []struct{ column, value string }{
					{"expected", row.Expected}, {"mismatches", row.Mismatches}, {"offered in window", row.Offered},
					{"max in window", row.MaxWindow}, {"overshoot", row.Overshoot}, {"under-admitted", row.Under}, {"policy excess", row.PolicyExcess},
				} {
					cells = append(cells, cell{c.column, c.value, s.AuditWhy})
				}
			}
			if s.HasMemory {
				for _, c := range []struct{ column, value string }{
					{"memory per identity", row.BytesPerIdentity}, {"MEMORY USAGE per key", row.MemoryUsage},
					{"encodings", row.Encodings}, {"keys without TTL", row.KeysNoTTL},
				} {
					cells = append(cells, cell{c.column, c.value, s.CostWhy})
				}
			}
			if s.HasServer {
				cells = append(cells, cell{"µs/call", row.UsecPerCall, s.CostWhy})
			}
			for _, c := range cells {
				if c.value != dash {
					continue
				}
				*n++
				if !explained(c.lines, whyLine, c.column, row.Algorithm, func(label, column string) bool { return slices.Contains(splitList(label), column) }) {
					out = append(out, fmt.Sprintf("scenario %s: the dash of %s in %q has no line saying why", s.Name, row.Algorithm, c.column))
				}
			}
		}
	}
	return out
}

// splitList splits "a, b and c" into its names.
func splitList(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ", ") {
		out = append(out, strings.Split(part, " and ")...)
	}
	return out
}
