package report

import (
	"fmt"
	"strings"

	"github.com/rlbench/rlbench/result"
)

// describeErrors says how often each kind of failed call happened, most
// frequent first, each with its example: timeout x141, e.g. "read tcp
// ...: i/o timeout"; NOPERM x3, e.g. "...". A result from before calls
// were grouped by kind has messages only.
func describeErrors(es []result.ErrorCount) string {
	parts := make([]string, len(es))
	for i, e := range es {
		if e.Kind == "" {
			parts[i] = fmt.Sprintf("%q x%d", e.Message, e.Count)
		} else {
			parts[i] = fmt.Sprintf("%s x%d, e.g. %q", e.Kind, e.Count, e.Message)
		}
	}
	return strings.Join(parts, "; ")
}
