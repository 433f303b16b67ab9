package workload

import (
	"fmt"
	"strings"
)

// ProfileError is one problem in a profile, located by file, line and field,
// e.g. `profiles/x.yaml:7: scenarios[0].rate: "fast" is not a rate like 500/s`.
type ProfileError struct {
	File  string
	Line  int
	Field string
	Msg   string
}

func (e *ProfileError) Error() string {
	loc := e.File
	if e.Line > 0 {
		loc = fmt.Sprintf("%s:%d", e.File, e.Line)
	}
	if e.Field == "" {
		return loc + ": " + e.Msg
	}
	return loc + ": " + e.Field + ": " + e.Msg
}

// ProfileErrors is every problem found in one profile, in file order.
type ProfileErrors []*ProfileError

func (es ProfileErrors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// closest returns the known name nearest to s when it is a plausible typo.
func closest(s string, known []string) string {
	best, bestDist := "", 3
	for _, k := range known {
		if d := editDistance(s, k); d < bestDist {
			best, bestDist = k, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
