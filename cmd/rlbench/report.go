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
	maxScenarios := html.DefaultMaxScenarios
	return command{
		name:  "report",
		usage: "[-o DIR] [--format html|text|markdown|benchfmt|junit|github] [--max-scenarios N] RESULT.json",
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&outDir, "o", "", "write into `DIR` (default: the result's own directory; required when the result is read from a pipe or a device such as /dev/stdin)")
			fs.StringVar(&format, "format", "html", "`html` (plots, .hgrm files, report.html), text (the summary), markdown (the summary for a pull request), benchfmt (lines for benchstat), junit (JUnit XML for CI) or github (GitHub Actions annotations)")
			fs.IntVar(&maxScenarios, "max-scenarios", html.DefaultMaxScenarios,
				"draw each scenario's plots and .hgrm files for at most `N` scenarios; past it, only the tables and the plots across scenarios (0: no limit)")
		},
		run: func(ctx context.Context, args []string, stdout, _ io.Writer) error {
			if _, ok := textFormats[format]; !ok && format != "html" {
				return usageErrorf("-format %q: want html, text, markdown, benchfmt, junit or github", format)
			}
			if maxScenarios < 0 {
				return usageErrorf("--max-scenarios %d: want 0 (no limit) or more", maxScenarios)
			}
			if err := wantArgs("report", args, 1, "exactly one result.json"); err != nil {
				return err
			}
			limit := maxScenarios
			if limit == 0 {
				limit = -1
			}
			return writeReport(ctx, args[0], outDir, format, limit, stdout)
		},
	}
}

// textFormats are the reports written to stdout, by --format name.
var textFormats = map[string]func(io.Writer, *result.Result) error{
	"text":     report.WriteSummary,
	"markdown": report.WriteMarkdown,
	"benchfmt": report.WriteBenchfmt,
	"junit":    report.WriteJUnit,
	"github":   report.WriteGitHubAnnotations,
}

func writeReport(ctx context.Context, path, outDir, format string, maxScenarios int, stdout io.Writer) error {
	_, text := textFormats[format]
	dir := outDir
	if dir == "" && !text {
		var kind string
		if dir, kind = inputFolder(path); dir == "" {
			return usageErrorf("%s is %s, not a file in a folder to write the report beside: name the folder with -o DIR", path, kind)
		}
	}
	res, err := readResult(ctx, path)
	if err != nil {
		return err
	}
	if write, ok := textFormats[format]; ok {
		return write(stdout, res)
	}
	written, err := renderReport(ctx, dir, res, maxScenarios)
	if ctx.Err() != nil {
		return interrupted(ctx, "rendering the report into "+dir)
	}
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
	fmt.Fprintf(stdout, "report: %s (with %s and %s)\n", report.Printable(written[len(written)-1]), counted(pngs, "plot"), counted(hgrms, ".hgrm file"))
	printLeftOut(stdout, res, maxScenarios)
	return nil
}

// printLeftOut says what the report of res leaves out of a huge result.
func printLeftOut(stdout io.Writer, res *result.Result, maxScenarios int) {
	if note := html.LeftOut(res, reportOptions(res, maxScenarios)); note != "" {
		fmt.Fprintln(stdout, "note: "+note)
	}
}

// readResult reads a result file; a missing, malformed or truncated one is
// bad input (exit 2), with report.Decode's account of what is wrong.
func readResult(ctx context.Context, path string) (*result.Result, error) {
	res, err := result.ReadFileContext(ctx, path)
	if ctx.Err() != nil {
		return nil, interrupted(ctx, "reading "+path)
	}
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
// each scenario's plots for at most maxScenarios scenarios (see
// html.RenderOptions).
func renderReport(ctx context.Context, dir string, res *result.Result, maxScenarios int) ([]string, error) {
	return html.RenderContext(ctx, dir, res, reportOptions(res, maxScenarios))
}

// reportOptions are the report's options, with each algorithm's semantics
// from the registry, and each declared limiter's from the result.
func reportOptions(res *result.Result, maxScenarios int) html.RenderOptions {
	semantics := map[string]string{}
	for _, a := range algorithms.List() {
		semantics[a.Name] = a.Describe()
	}
	for _, l := range res.Profile.Limiters {
		semantics[l.Name] = l.Description
	}
	return html.RenderOptions{Semantics: semantics, MaxScenarios: maxScenarios}
}
