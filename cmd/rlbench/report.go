package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/report"
	"github.com/rlbench/rlbench/report/html"
	"github.com/rlbench/rlbench/result"
)

// reportCommand re-renders the plots, the .hgrm files and report.html from
// a result.json alone: no Redis is needed. With --format text or benchfmt
// it prints the summary, or Go benchmark lines for benchstat, instead.
func reportCommand() command {
	var outDir, format string
	return command{
		name:  "report",
		usage: "[-o DIR] [--format html|text|markdown|benchfmt] RESULT.json",
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&outDir, "o", "", "write into `DIR` (default: the result's own directory)")
			fs.StringVar(&format, "format", "html", "`html` (plots, .hgrm files, report.html), text (the summary), markdown (the summary for a pull request) or benchfmt (lines for benchstat)")
		},
		run: func(_ context.Context, args []string, stdout, _ io.Writer) error {
			if format != "html" && format != "text" && format != "markdown" && format != "benchfmt" {
				return usageErrorf("-format %q: want html, text, markdown or benchfmt", format)
			}
			if err := wantArgs("report", args, 1, "exactly one result.json"); err != nil {
				return err
			}
			return writeReport(args[0], outDir, format, stdout)
		},
	}
}

func writeReport(path, outDir, format string, stdout io.Writer) error {
	res, err := readResult(path)
	if err != nil {
		return err
	}
	switch format {
	case "text":
		return report.WriteSummary(stdout, res)
	case "markdown":
		return report.WriteMarkdown(stdout, res)
	case "benchfmt":
		return report.WriteBenchfmt(stdout, res)
	}
	dir := outDir
	if dir == "" {
		dir = filepath.Dir(path)
	}
	written, err := renderReport(dir, res)
	if err != nil {
		var bad *result.HistogramError
		if errors.As(err, &bad) {
			return usageErrorf("%s: %v", path, err)
		}
		return err
	}
	pngs, hgrms := 0, 0
	for _, p := range written {
		switch filepath.Ext(p) {
		case ".png":
			pngs++
		case ".hgrm":
			hgrms++
		}
	}
	fmt.Fprintf(stdout, "report: %s (with %d plots and %d .hgrm files)\n", written[len(written)-1], pngs, hgrms)
	return nil
}

// readResult reads a result file; a missing, malformed or truncated one is
// bad input (exit 2), with report.Decode's account of what is wrong.
func readResult(path string) (*result.Result, error) {
	res, err := result.ReadFile(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, usageErrorf("%s: %v", path, pe.Err)
		}
		return nil, usageErrorf("%v", err)
	}
	return res, nil
}

// renderReport writes the plots, .hgrm files and report.html into dir,
// with each algorithm's semantics from the registry, and each declared
// limiter's from the result.
func renderReport(dir string, res *result.Result) ([]string, error) {
	semantics := map[string]string{}
	for _, a := range algorithms.List() {
		semantics[a.Name] = a.Describe()
	}
	for _, l := range res.Profile.Limiters {
		semantics[l.Name] = l.Description
	}
	return html.Render(dir, res, html.RenderOptions{Semantics: semantics})
}
