package result_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/rlbench/rlbench/internal/resulttest"
	"github.com/rlbench/rlbench/result"
)

// TestReadingAResultAllocatesLittleBeyondIt: a result is decoded as it is
// read, one run at a time, so reading one allocates about what it holds
// once decoded, not the file whole and a buffer as large again besides
// (over seven times the file's size, when it was read whole first). The
// result here holds 120 runs of the committed fixture's, every figure
// filled.
func TestReadingAResultAllocatesLittleBeyondIt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "result.json")
	if err := result.WriteFile(path, resulttest.Many(t, 30)); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r, err := result.ReadFile(path)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	perByte := float64(after.TotalAlloc-before.TotalAlloc) / float64(info.Size())
	if perByte > 2 {
		t.Errorf("reading a result of %d bytes (%d runs) allocated %.2f bytes per byte of it, want at most 2", info.Size(), len(r.Runs), perByte)
	}
}
