package main

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rlbench/rlbench/result"
)

// TestTwoRunsInOneSecondKeepBothResults: a result's folder is named by
// the profile and the start to the second, so two runs of one profile
// with one --out in the same second shared a folder and one result was
// lost. Every folder the run could be named (the seconds around it) is
// taken, holding another run's result: the run writes into a folder of
// its own, with a suffix, and leaves the other result alone.
func TestTwoRunsInOneSecondKeepBothResults(t *testing.T) {
	out := t.TempDir()
	now := time.Now().UTC()
	const marker = "another run's result\n"
	for s := -5; s <= 300; s++ {
		dir := filepath.Join(out, "tiny-"+now.Add(time.Duration(s)*time.Second).Format("20060102T150405Z"))
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "result.json"), []byte(marker), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, stderr := runCLI(t, "run", "--quiet", "--no-report", "--out", out, writeProfile(t, tinyProfile))
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	found, _ := filepath.Glob(filepath.Join(out, "tiny-*-2", "result.json"))
	if len(found) != 1 {
		t.Fatalf("results in folders with a suffix: %v\n%s", found, stdout)
	}
	if _, err := result.ReadFile(found[0]); err != nil {
		t.Errorf("the run's result: %v", err)
	}
	if !strings.Contains(stdout, found[0]) {
		t.Errorf("the summary names another path:\n%s", stdout)
	}
	all, _ := filepath.Glob(filepath.Join(out, "tiny-*", "result.json"))
	for _, p := range all {
		if p == found[0] {
			continue
		}
		if data, _ := os.ReadFile(p); string(data) != marker {
			t.Errorf("%s was overwritten", p)
		}
	}
}

// TestResultFoldersAreCreatedExclusively: processes asking for one
// folder name at once each get a folder of their own.
func TestResultFoldersAreCreatedExclusively(t *testing.T) {
	parent := t.TempDir()
	const n = 16
	dirs := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d, err := newResultDir(parent, "p-20260101T000000Z")
			if err != nil {
				t.Error(err)
			}
			dirs[i] = d
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	for _, d := range dirs {
		if seen[d] {
			t.Errorf("%s handed out twice", d)
		}
		seen[d] = true
	}
}
