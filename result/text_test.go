package result_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rlbench/rlbench/internal/resulttest"
	"github.com/rlbench/rlbench/result"
)

// TestTextsAreCut: every text a result keeps, in any field, list or map,
// is cut to MaxTextBytes at a character's start and says how much was
// left out; the histograms are not texts and stay whole; a result read
// from a file written before texts were cut is cut as it is read.
func TestTextsAreCut(t *testing.T) {
	huge := strings.Repeat("é", 1<<19) // a megabyte of two-byte characters
	r := resulttest.Fixture(t)
	hdr := r.Runs[0].LatencyHDR
	run := &r.Runs[0]
	run.Errors = []result.ErrorCount{{Kind: "ERR", Message: "ERR " + huge, Count: 1}}
	r.IncompleteReason = huge
	r.VerdictReasons = []string{huge}
	r.Redis.Note = huge
	check := func(where string, r *result.Result) {
		t.Helper()
		for what, s := range map[string]string{
			"an error's example": r.Runs[0].Errors[0].Message, "the incomplete reason": r.IncompleteReason,
			"a verdict reason": r.VerdictReasons[0], "a note": r.Redis.Note,
		} {
			if len(s) > result.MaxTextBytes || !utf8.ValidString(s) || !strings.HasSuffix(s, "more bytes)") {
				t.Errorf("%s: %s is %d bytes (valid UTF-8: %v), ends %q", where, what, len(s), utf8.ValidString(s), s[max(0, len(s)-40):])
			}
		}
		if r.Runs[0].LatencyHDR != hdr {
			t.Errorf("%s: the histogram was changed", where)
		}
	}
	// Written whole, as before texts were cut, and read.
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "result.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	read, err := result.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	check("read", read)
	r.ClipTexts()
	check("cut in place", r)
	if short := "a short text"; result.ClipText(short) != short {
		t.Error("a short text was changed")
	}
}
