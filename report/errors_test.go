package report

import (
	"testing"

	"github.com/rlbench/rlbench/result"
)

func TestDescribeErrors(t *testing.T) {
	for _, tc := range []struct {
		why  string
		errs []result.ErrorCount
		want string
	}{
		{"kinds, each with its example",
			[]result.ErrorCount{{Kind: "timeout", Message: "read tcp 127.0.0.1:40001->127.0.0.1:6379: i/o timeout", Count: 141}, {Kind: "NOPERM", Message: "NOPERM no", Count: 3}},
			`timeout x141, e.g. "read tcp 127.0.0.1:40001->127.0.0.1:6379: i/o timeout"; NOPERM x3, e.g. "NOPERM no"`},
		{"a result written before errors had kinds",
			[]result.ErrorCount{{Message: "i/o timeout", Count: 2}},
			`"i/o timeout" x2`},
	} {
		if got := describeErrors(tc.errs); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.why, got, tc.want)
		}
	}
}
