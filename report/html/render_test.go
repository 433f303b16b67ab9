package html

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rlbench/rlbench/internal/resulttest"
	"github.com/rlbench/rlbench/result"
)

func TestRenderWritesEverythingBesideTheResult(t *testing.T) {
	dir := t.TempDir()
	written, err := Render(dir, resulttest.Fixture(t), testSemantics)
	if err != nil {
		t.Fatal(err)
	}
	if last := written[len(written)-1]; last != filepath.Join(dir, HTMLFile) {
		t.Errorf("last file written is %s, want the page", last)
	}
	var pngs, hgrms []string
	for _, p := range written {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("reported %s but: %v", p, err)
		}
		switch {
		case strings.HasSuffix(p, ".png"):
			pngs = append(pngs, filepath.Base(p))
		case strings.HasSuffix(p, ".hgrm"):
			if filepath.Dir(p) != filepath.Join(dir, "hgrm") {
				t.Errorf("%s is not under hgrm/", p)
			}
			hgrms = append(hgrms, filepath.Base(p))
		}
	}
	// Three plots for each of 5 scenarios, an edge plot for each of the 2
	// boundary ones, and admitted-vs-bound across them (no run has memory
	// per identity); two .hgrm files for each of 20 runs.
	if len(pngs) != 18 || len(hgrms) != 40 {
		t.Errorf("%d plots and %d .hgrm files, want 18 and 40", len(pngs), len(hgrms))
	}
	sort.Strings(hgrms)
	if hgrms[0] != "fixed_window-burst-one.hgrm" || hgrms[1] != "fixed_window-burst-one.uncorrected.hgrm" {
		t.Errorf(".hgrm names: %v", hgrms[:2])
	}
}

// TestRenderRefusesADamagedResult writes nothing for a result whose
// histogram does not decode, and says which run and field is damaged.
func TestRenderRefusesADamagedResult(t *testing.T) {
	r := resulttest.Fixture(t)
	r.Runs[5].LatencyHDR = "not base64!"
	dir := t.TempDir()
	_, err := Render(dir, r, testSemantics)
	var he *result.HistogramError
	if want := r.Runs[5].Key() + ": latency_hdr"; !errors.As(err, &he) || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want one naming %s", err, want)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("wrote %d files for a damaged result", len(entries))
	}
}

func TestFileSlug(t *testing.T) {
	for _, tc := range []struct{ in, want, why string }{
		{"steady", "steady", "a plain name passes"},
		{"burst-2.v1_x", "burst-2.v1_x", "dash, dot, underscore and digits pass"},
		{"../etc", "_._etc", "a path cannot climb out of the result directory"},
		{"a b/c", "a_b_c", "spaces and slashes become underscores"},
		{"", "_", "an empty name still makes a file name"},
		{"über", "_ber", "non-ASCII letters become underscores"},
		{strings.Repeat("x", 300), strings.Repeat("x", 71) + "-0d4e2ca9", "a long name is cut and ends in its hash"},
	} {
		if got := fileSlug(tc.in); got != tc.want {
			t.Errorf("%s: fileSlug(%q) = %q, want %q", tc.why, tc.in, got, tc.want)
		}
	}
}

// TestRenderOfNamesLongerThanAFileName: a result may carry a scenario or
// an algorithm name of any length (a result file is anyone's); the report
// renders it, every file name within the 255 bytes a file system allows
// ("file name too long" before), and two long names alike but for their
// end still get files of their own.
func TestRenderOfNamesLongerThanAFileName(t *testing.T) {
	r := resulttest.Fixture(t)
	long := strings.Repeat("s", 300)
	renamed := map[string]string{}
	for i := range r.Runs {
		run := &r.Runs[i]
		if _, ok := renamed[run.Scenario]; !ok {
			renamed[run.Scenario] = long + fmt.Sprint(len(renamed))
		}
		run.Scenario = renamed[run.Scenario]
		run.Algorithm = strings.Repeat("a", 300) + run.Algorithm
	}
	for i, a := range r.Profile.Algorithms {
		r.Profile.Algorithms[i] = strings.Repeat("a", 300) + a
	}
	dir := t.TempDir()
	written, err := Render(dir, r, testSemantics)
	if err != nil {
		t.Fatal(err)
	}
	// As many plots and .hgrm files as the fixture's own names give.
	pngs, hgrms := 0, 0
	for _, p := range written {
		if n := len(filepath.Base(p)); n > 255 {
			t.Errorf("%s: a name of %d bytes", p, n)
		}
		switch {
		case strings.HasSuffix(p, ".png"):
			pngs++
		case strings.HasSuffix(p, ".hgrm"):
			hgrms++
		}
	}
	if pngs != 18 || hgrms != 40 {
		t.Errorf("%d plots and %d .hgrm files, want 18 and 40", pngs, hgrms)
	}
}

// BenchmarkRender is everything `rlbench report` does for the fixture:
// plots, .hgrm files and the page, written to disk.
func BenchmarkRender(b *testing.B) {
	r := resulttest.Fixture(b)
	dir := b.TempDir()
	for b.Loop() {
		if _, err := Render(dir, r, testSemantics); err != nil {
			b.Fatal(err)
		}
	}
}
