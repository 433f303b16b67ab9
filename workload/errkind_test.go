package workload

import (
	"testing"

	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/result"
)

// TestErrorKindsNoAnswer: the kinds the client names a failed call by are
// the contract's, and those of a call that got no answer are the ones the
// verdict and the faults section excuse; an error Redis answered is not.
func TestErrorKindsNoAnswer(t *testing.T) {
	for _, tc := range []struct {
		kind     string
		noAnswer bool
	}{
		{redisenv.KindTimeout, true}, {redisenv.KindRefused, true}, {redisenv.KindEOF, true},
		{redisenv.KindReset, true}, {redisenv.KindNotOwned, true},
		{redisenv.KindOther, false}, {"ERR", false}, {"WRONGTYPE", false}, {"BUSY", false}, {"", false},
	} {
		if got := (result.ErrorCount{Kind: tc.kind}).NoAnswer(); got != tc.noAnswer {
			t.Errorf("%q: no answer %v, want %v", tc.kind, got, tc.noAnswer)
		}
	}
	errs := []result.ErrorCount{{Kind: redisenv.KindTimeout, Count: 3}, {Kind: "ERR", Count: 5}, {Kind: redisenv.KindEOF, Count: 2}}
	if n := connectionErrors(errs); n != 5 {
		t.Errorf("%d calls without an answer, want 5", n)
	}
}
