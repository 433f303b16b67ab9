package main

import (
	"strings"
	"testing"
)

// TestASegmentNeedsItsLoadsStart: the start every segment of a load shares
// is what names the load, so --segment without --start-at (or
// $RLBENCH_START_AT) is refused before anything runs: otherwise the
// segments of two loads of one profile meet in one place, and a lone
// segment of the second runs at once.
func TestASegmentNeedsItsLoadsStart(t *testing.T) {
	t.Setenv(startAtEnv, "")
	path := writeProfile(t, tinyProfile)
	code, _, stderr := runCLI(t, "run", "--quiet", "--out", t.TempDir(), "--segment", "1/2", path)
	if code != exitUsage || !strings.Contains(stderr, "--segment 1/2 needs --start-at TIME (or $RLBENCH_START_AT)") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}
