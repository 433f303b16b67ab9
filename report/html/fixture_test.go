package html

import (
	"sync"
	"testing"

	"github.com/rlbench/rlbench/internal/resulttest"
)

var fixturePlots struct {
	once sync.Once
	figs []Figure
	err  error
}

// fixtureFigures renders the fixture's plots once for every test that only
// reads them: rendering is the slow part of these tests under -race.
func fixtureFigures(t testing.TB) []Figure {
	t.Helper()
	r := resulttest.Fixture(t)
	fixturePlots.once.Do(func() { fixturePlots.figs, fixturePlots.err = Plots(r) })
	if fixturePlots.err != nil {
		t.Fatal(fixturePlots.err)
	}
	return fixturePlots.figs
}
