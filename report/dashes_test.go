package report_test

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/resulttest"
	"github.com/rlbench/rlbench/report"
)

// TestNoDashWithoutCause prints the summary of each result of
// DashedResults and holds every dash of its decision, audit and memory
// tables to a line under the table that names its column and its row and
// says why.
func TestNoDashWithoutCause(t *testing.T) {
	for name, r := range resulttest.Dashed(t) {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := report.WriteSummary(&buf, r); err != nil {
				t.Fatal(err)
			}
			dashes := 0
			for _, p := range undashed(strings.Split(buf.String(), "\n"), &dashes) {
				t.Error(p)
			}
			t.Logf("%d dashes, each with its cause", dashes)
			if t.Failed() {
				t.Log(buf.String())
			}
		})
	}
}

// TestUndashedFindsDashesWithoutCause shows the check fails a dash whose
// cause is missing, or names another column or row.
func TestUndashedFindsDashesWithoutCause(t *testing.T) {
	table := "which limiter, is it right, what it costs:\n" +
		"     algorithm  promise  most past the policy  server/decision  worst p99  memory/identity\n" +
		"  fixed_window     kept                     0            5.0us   - (generator-bound)            -\n" +
		"   sliding_log     kept                     0                -      1.2ms            -\n"
	tests := []struct {
		name, causes string
		problems     int
	}{
		{"every cause", "  - memory/identity of fixed_window and sliding_log: few identities\n  - server/decision of sliding_log: x\n  - worst p99 of fixed_window: slipped\n", 0},
		{"no cause at all", "", 4},
		{"a cause of another row", "  - memory/identity of fixed_window: few identities\n  - server/decision of fixed_window: x\n  - worst p99 of fixed_window: slipped\n", 2},
		{"a cause of another column", "  - memory/identity of fixed_window and sliding_log: few\n  - worst p99 of sliding_log: x\n  - worst p99 of fixed_window: slipped\n", 1},
		{"a cause of every run", "  - memory/identity of every run (2): few\n  - server/decision of sliding_log: x\n  - worst p99 of fixed_window: slipped\n", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := 0
			if got := undashed(strings.Split(table+tt.causes, "\n"), &n); len(got) != tt.problems {
				t.Errorf("want %d problems, got %q", tt.problems, got)
			}
			if n != 4 {
				t.Errorf("want 4 dashes counted, got %d", n)
			}
		})
	}
}

// splitCells splits a tabwriter line into its cells: tabwriter pads them
// with two spaces or more, and no cell holds two spaces in a row.
var splitCells = regexp.MustCompile(`\s{2,}`)

// causeLine is a line under a table saying why some cells are dashes.
var causeLine = regexp.MustCompile(`^  - (.+?) of (.+?): \S`)

// undashed finds, in a summary's lines, each dash of a table whose header
// starts with "algorithm" that no line under the table explains: a line
// "- COLUMN of ROWS: why" naming the cell's column and its row (by its
// algorithm, or algorithm/scenario where the table has a scenario). It
// counts the dashes it saw in *dashes.
func undashed(lines []string, dashes *int) []string {
	var problems []string
	for i := 0; i < len(lines); i++ {
		header := splitCells.Split(strings.TrimSpace(lines[i]), -1)
		if header[0] != "algorithm" || len(header) < 3 {
			continue
		}
		type dashed struct{ column, row string }
		var cells []dashed
		j := i + 1
		for ; j < len(lines) && strings.HasPrefix(lines[j], " ") && !causeLine.MatchString(lines[j]); j++ {
			row := splitCells.Split(strings.TrimSpace(lines[j]), -1)
			if len(row) != len(header) {
				break // not a row of this table
			}
			name := row[0]
			if header[1] == "scenario" {
				name += "/" + row[1]
			}
			for c, cell := range row {
				if cell == "-" || strings.HasPrefix(cell, "- (") {
					cells = append(cells, dashed{header[c], name})
				}
			}
		}
		// The cause lines right under the table (sentences may come
		// between them and it).
		var causes [][]string
		for ; j < len(lines) && lines[j] != ""; j++ {
			if m := causeLine.FindStringSubmatch(lines[j]); m != nil {
				causes = append(causes, m[1:])
			}
		}
		for _, d := range cells {
			*dashes++
			explained := slices.ContainsFunc(causes, func(c []string) bool {
				return names(c[0], d.column) && (strings.HasPrefix(c[1], "every ") || slices.Contains(listed(c[1]), d.row))
			})
			if !explained {
				problems = append(problems, "the dash in column "+d.column+" of "+d.row+" has no line saying why, under the table headed "+strings.TrimSpace(lines[i]))
			}
		}
		i = j
	}
	return problems
}

// names says a cause line's label names column ("expected and
// mismatches" names both).
func names(label, column string) bool {
	return label == column || slices.Contains(listed(label), column)
}

// listed splits "a, b and c" into its names.
func listed(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ", ") {
		out = append(out, strings.Split(part, " and ")...)
	}
	return out
}
