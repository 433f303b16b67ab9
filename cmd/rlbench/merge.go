package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"

	"github.com/rlbench/rlbench/report"
	"github.com/rlbench/rlbench/report/html"
	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/verdict"
)

// mergeCommand builds one result from the results of the segments of one
// load (rlbench run --segment I/N), evaluates the profile's thresholds on
// it, and writes it with its report.
func mergeCommand() command {
	var outDir string
	var noReport bool
	return command{
		name:  "merge",
		usage: "[-o DIR] [--no-report] RESULT.json...",
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&outDir, "o", "", "write the merged result into `DIR` (default: results/<profile>-<start>-merged)")
			fs.BoolVar(&noReport, "no-report", false, "write only result.json")
		},
		run: func(ctx context.Context, args []string, stdout, _ io.Writer) error {
			if len(args) == 0 {
				return usageErrorf("merge needs the result.json of every segment")
			}
			return mergeResults(ctx, args, outDir, noReport, stdout)
		},
	}
}

func mergeResults(ctx context.Context, paths []string, outDir string, noReport bool, stdout io.Writer) error {
	var parts []*result.Result
	for _, p := range paths {
		r, err := readResult(ctx, p)
		if err != nil {
			return err
		}
		parts = append(parts, r)
	}
	merged, err := result.MergeSegments(parts)
	if err != nil {
		var bad *result.HistogramError
		if errors.As(err, &bad) {
			return usageErrorf("%v", err)
		}
		return usageErrorf("cannot merge: %v", err)
	}
	thresholds, err := thresholdsOf(parts)
	if err != nil {
		return err
	}
	verdict.Judge(merged, thresholds)
	if outDir == "" {
		if outDir, err = newResultDir("results", fmt.Sprintf("%s-%s-merged", merged.Profile.Name, merged.StartedAt.Format("20060102T150405Z"))); err != nil {
			return fmt.Errorf("writing the merged result: %w", err)
		}
	}
	path := filepath.Join(outDir, "result.json")
	if err := result.WriteFile(path, merged); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := report.WriteSummary(stdout, merged); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "merged %d segments: %s\n", len(parts), report.Printable(path))
	if !noReport {
		written, err := renderReport(ctx, outDir, merged, html.DefaultMaxScenarios)
		if ctx.Err() != nil {
			return interrupted(ctx, "rendering the report into "+outDir)
		}
		if err != nil {
			return fmt.Errorf("rendering the report: %w", err)
		}
		fmt.Fprintf(stdout, "report: %s\n", report.Printable(written[len(written)-1]))
	}
	if err := verdictError(merged.Verdict); err != nil {
		return err
	}
	return nil
}

// thresholdsOf parses again the thresholds the segments were judged by:
// they ran one profile, so their expressions are its thresholds (a segment
// cut short may lack some).
func thresholdsOf(parts []*result.Result) ([]*result.Threshold, error) {
	var exprs []string
	for _, r := range parts {
		for _, t := range r.Thresholds {
			if !slices.Contains(exprs, t.Expression) {
				exprs = append(exprs, t.Expression)
			}
		}
	}
	var out []*result.Threshold
	for _, e := range exprs {
		t, err := result.ParseThreshold(e)
		if err != nil {
			return nil, usageErrorf("a threshold of the result does not parse: %q: %v", e, err)
		}
		out = append(out, t)
	}
	return out, nil
}
