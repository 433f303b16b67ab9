package html

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"

	"github.com/rlbench/rlbench/result"
)

// HTMLFile is the name of the report page in a result directory.
const HTMLFile = "report.html"

// Render writes everything a person reads beside result.json into dir: the
// PNG plots, one .hgrm percentile distribution per run and latency measure
// under hgrm/, and report.html with the plots embedded. It needs nothing
// but r. It returns the paths written, the page last.
func Render(dir string, r *result.Result, opts RenderOptions) ([]string, error) {
	return RenderContext(context.Background(), dir, r, opts)
}

// RenderContext is Render, stopped between one file and the next when ctx
// ends (it then returns ctx's error with the paths already written).
func RenderContext(ctx context.Context, dir string, r *result.Result, opts RenderOptions) ([]string, error) {
	v := newView(r)
	detailed := opts.leftOut(v) == ""
	// Every histogram is decoded, drawn or not, so a result whose
	// histograms are damaged is refused before anything is written.
	var hgrms []HGRM
	var err error
	if detailed {
		hgrms, err = HGRMs(r)
	} else {
		err = checkHistograms(r)
	}
	if err != nil {
		return nil, err
	}
	figs, err := plots(ctx, v, detailed)
	if err != nil {
		return nil, err
	}
	var written []string
	write := func(path string, data []byte) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := result.WriteFileAtomic(path, data); err != nil {
			return err
		}
		written = append(written, path)
		return nil
	}
	for _, f := range figs {
		if err := write(filepath.Join(dir, f.File), f.PNG); err != nil {
			return written, err
		}
	}
	for _, h := range hgrms {
		if err := write(filepath.Join(dir, "hgrm", h.File), h.Text); err != nil {
			return written, err
		}
	}
	var page bytes.Buffer
	if err := WriteHTML(&page, r, figs, opts); err != nil {
		return written, err
	}
	return written, write(filepath.Join(dir, HTMLFile), page.Bytes())
}

// DefaultMaxScenarios is how many scenarios a report draws in detail. Each
// scenario's three plots take about a quarter of a second to draw and a
// few hundred kilobytes of the page; past this many, the report draws only
// the tables and the plots across scenarios, which stay quick (well under
// a second per hundred runs) and readable whatever the result's size.
const DefaultMaxScenarios = 24

// LeftOut says what the report of r with opts leaves out, and why; ""
// when it draws everything.
func LeftOut(r *result.Result, opts RenderOptions) string { return opts.leftOut(newView(r)) }

// leftOut says what a report of v leaves out, and why; "" when it draws
// everything.
func (o RenderOptions) leftOut(v *view) string {
	limit := o.MaxScenarios
	if limit == 0 {
		limit = DefaultMaxScenarios
	}
	if limit < 0 || len(v.scenarios) <= limit {
		return ""
	}
	return fmt.Sprintf("This result has %d scenarios (%d runs), more than %d: the plots of each scenario and the .hgrm files are left out, "+
		"which would take about a quarter of a second per scenario to draw and make this page hard to read. The tables cover every run, "+
		"and the plots across scenarios every scenario; rlbench report --max-scenarios 0 draws everything.",
		len(v.scenarios), len(v.r.Runs), limit)
}
