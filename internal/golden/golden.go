// Package golden compares test output with a file under testdata/, and
// rewrites the file when the test runs with -update.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// Updating reports whether the test runs with -update: a test whose golden
// text lives elsewhere than in one file of its own (a page's code blocks)
// rewrites it then.
func Updating() bool { return *update }

// Check compares got with the file at path, or writes got there under
// -update. A difference fails the test with the first line that differs.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the output (run the test with -update to rewrite it):\n%s", path, FirstDifference(string(want), string(got)))
	}
}

// FirstDifference names the first line where want and got differ.
func FirstDifference(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(wl), len(gl)); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return "line " + strconv.Itoa(i+1) + ":\nwant: " + w + "\n got: " + g
		}
	}
	return ""
}
