package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/report"
)

// reportCmd re-renders the plots, the .hgrm files and report.html from a
// result.json alone: no Redis is needed. With --format text or benchfmt it
// prints the summary, or Go benchmark lines for benchstat, instead.
func reportCmd(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("report", stderr, "rlbench report [-o DIR] [--format html|text|benchfmt] RESULT.json")
	outDir := fs.String("o", "", "write into `DIR` (default: the result's own directory)")
	format := fs.String("format", "html", "`html` (plots, .hgrm files, report.html), text (the summary) or benchfmt (lines for benchstat)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *format != "html" && *format != "text" && *format != "benchfmt" {
		return usageErrorf("-format %q: want html, text or benchfmt", *format)
	}
	if fs.NArg() != 1 {
		return usageErrorf("report needs exactly one result.json (got %d arguments)", fs.NArg())
	}
	path := fs.Arg(0)
	res, err := readResult(path)
	if err != nil {
		return err
	}
	switch *format {
	case "text":
		return report.WriteSummary(stdout, res)
	case "benchfmt":
		return report.WriteBenchfmt(stdout, res)
	}
	dir := *outDir
	if dir == "" {
		dir = filepath.Dir(path)
	}
	written, err := renderReport(dir, res)
	if err != nil {
		var bad *report.HistogramError
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
func readResult(path string) (*report.Result, error) {
	res, err := report.ReadFile(path)
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
// with each algorithm's semantics from the registry.
func renderReport(dir string, res *report.Result) ([]string, error) {
	semantics := map[string]string{}
	for _, a := range algorithms.List() {
		semantics[a.Name] = a.Semantics
	}
	return report.Render(dir, res, report.RenderOptions{Semantics: semantics})
}
