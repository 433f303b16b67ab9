package html

import (
	"bytes"
	"context"
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
	// The .hgrm files decode every histogram, so a result whose histograms
	// are damaged is refused before anything is written.
	hgrms, err := HGRMs(r)
	if err != nil {
		return nil, err
	}
	figs, err := Plots(r)
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
