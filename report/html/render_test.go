package html

import (
	"errors"
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
	} {
		if got := fileSlug(tc.in); got != tc.want {
			t.Errorf("%s: fileSlug(%q) = %q, want %q", tc.why, tc.in, got, tc.want)
		}
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
