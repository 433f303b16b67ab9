package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/rlbench/rlbench/report"
)

// compareCommand compares a current result with a baseline, metric by
// metric, and fails (exit 1) on a regression.
func compareCommand() command {
	tol := report.DefaultTolerances
	var format string
	return command{
		name:  "compare",
		usage: "[flags] BASELINE.json CURRENT.json",
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&format, "format", "text", "output `format`: text, markdown (for a pull request or $GITHUB_STEP_SUMMARY) or json")
			fs.Var(percentFlag{&tol.P50}, "p50", "how much latency p50 may grow (e.g. 15%)")
			fs.Var(percentFlag{&tol.P99}, "p99", "how much latency p99 may grow (e.g. 25%)")
			fs.Var(percentFlag{&tol.UsecPerCall}, "server", "how much the server time per call may grow (e.g. 25%)")
			fs.Var(percentFlag{&tol.BytesPerIdentity}, "bytes", "how much memory per identity may grow (e.g. 5%)")
		},
		run: func(ctx context.Context, args []string, stdout, _ io.Writer) error {
			if err := wantArgs("compare", args, 2, "BASELINE.json and CURRENT.json"); err != nil {
				return err
			}
			if format != "text" && format != "markdown" && format != "json" {
				return usageErrorf("-format %q: want text, markdown or json", format)
			}
			return compareResults(ctx, args[0], args[1], tol, format, stdout)
		},
	}
}

func compareResults(ctx context.Context, basePath, curPath string, tol report.Tolerances, format string, stdout io.Writer) error {
	base, err := readResult(ctx, basePath)
	if err != nil {
		return err
	}
	cur, err := readResult(ctx, curPath)
	if err != nil {
		return err
	}
	c := report.Compare(base, cur, tol)
	if err := report.WriteCompare(stdout, c, format); err != nil {
		return err
	}
	if c.Regressed {
		return &failedError{msg: "comparison: regression against " + basePath}
	}
	return nil
}

// percentFlag reads "25%" or "25" as the fraction 0.25, refusing a
// negative, infinite or NaN one.
type percentFlag struct{ dst *float64 }

func (p percentFlag) String() string {
	if p.dst == nil {
		return ""
	}
	return strconv.FormatFloat(*p.dst*100, 'f', -1, 64) + "%"
}

func (p percentFlag) Set(s string) error {
	v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), "%"), 64)
	// NaN fails every comparison, so it would let any change through;
	// an infinite tolerance is no check either.
	if err != nil || !(v >= 0) || math.IsInf(v, 0) {
		return fmt.Errorf("%q is not a percentage like 25%% (a finite number, 0 or more)", s)
	}
	*p.dst = v / 100
	return nil
}
