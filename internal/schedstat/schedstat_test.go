package schedstat

import (
	"os"
	"runtime"
	"testing"
	"time"
)

// TestReadSeesThisProcessRun: CPU time this test burns shows in its own
// figures, which only grow.
func TestReadSeesThisProcessRun(t *testing.T) {
	if _, err := os.Stat("/proc/self/task"); err != nil || runtime.GOOS != "linux" {
		t.Skip("no /proc: the scheduler's figures are Linux's")
	}
	before, ok := Read(Self)
	if !ok {
		t.Skip("this kernel keeps no schedstat")
	}
	// Burn at least 20ms of CPU, by the figures themselves (bounded: 10s).
	deadline := time.Now().Add(10 * time.Second)
	var after Times
	for x := 0; time.Now().Before(deadline); x++ {
		for i := 0; i < 1_000_000; i++ {
			x ^= i
		}
		if after, _ = Read(Self); after.Sub(before).Run >= 20*time.Millisecond {
			break
		}
	}
	d := after.Sub(before)
	if d.Run < 20*time.Millisecond || d.Slices < 1 {
		t.Errorf("after burning CPU: %+v", d)
	}
	if d.Wait < 0 {
		t.Errorf("negative wait %v", d.Wait)
	}
	if _, ok := Read(1 << 30); ok {
		t.Error("figures for a pid that cannot exist")
	}
}

// TestSubNeverNegative: a thread that exits between two readings takes
// its figures with it; the difference is then zero, not negative.
func TestSubNeverNegative(t *testing.T) {
	a := Times{Run: 5 * time.Second, Wait: time.Second, Slices: 100}
	b := Times{Run: 4 * time.Second, Wait: 2 * time.Second, Slices: 90}
	if got := b.Sub(a); got != (Times{Run: 0, Wait: time.Second, Slices: 0}) {
		t.Errorf("%+v", got)
	}
}

// TestAutogroup reads the setting the way the kernel writes it.
func TestAutogroup(t *testing.T) {
	b, err := os.ReadFile(autogroupFile)
	enabled, known := Autogroup()
	if err != nil {
		if known {
			t.Errorf("known without %s", autogroupFile)
		}
		return
	}
	if want := string(b[:1]) == "1"; !known || enabled != want {
		t.Errorf("autogroup %v (known %v), file says %q", enabled, known, b)
	}
}
