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
	"github.com/rlbench/rlbench/result"
	"github.com/rlbench/rlbench/verdict"
)

// compareCommand compares a current result with a baseline, metric by
// metric, and fails (exit 1) on a regression.
func compareCommand() command {
	tol := report.DefaultTolerances
	tol.Given = map[string]bool{}
	var format, junit string
	var all, allowIncomplete, forceBaseline bool
	return command{
		name:  "compare",
		usage: "[flags] BASELINE.json CURRENT.json",
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&format, "format", "text", "output `format`: text, markdown (for a pull request or $GITHUB_STEP_SUMMARY) or json")
			fs.BoolVar(&all, "all", false, "list every figure, not only those that changed (json always lists every one)")
			fs.BoolVar(&allowIncomplete, "allow-incomplete", false,
				"compare a result that is incomplete (interrupted, aborted, or a run far short of its plan) on what both measured, and exit 0 unless that regressed")
			fs.BoolVar(&forceBaseline, "force-baseline", false,
				"compare against a baseline whose own verdict is not pass (fail or inconclusive): refused without it, since a limiter that failed or could not be judged is no reference")
			fs.StringVar(&junit, "junit", "", "also write the comparison as JUnit XML to `FILE`: a test case per run, failing with one failure per figure that regressed")
			fs.Var(percentFlag{&tol.P50, "p50", tol.Given}, "p50", "how much latency p50 may grow (default 15%; without repetitions on both sides, 900%)")
			fs.Var(percentFlag{&tol.P99, "p99", tol.Given}, "p99", "how much latency p99 may grow (default 25%; without repetitions on both sides, 900%)")
			fs.Var(percentFlag{&tol.UsecPerCall, "server", tol.Given}, "server", "how much the server time per call may grow (default 25%)")
			fs.Var(percentFlag{&tol.BytesPerIdentity, "bytes", tol.Given}, "bytes", "how much memory per identity may grow (default 5%)")
			fs.Var(percentFlag{&tol.Throughput, "throughput", tol.Given}, "throughput",
				"how much closed-loop throughput may fall (default 20%; without repetitions on both sides, to a tenth)")
		},
		run: func(ctx context.Context, args []string, stdout, _ io.Writer) error {
			if err := wantArgs("compare", args, 2, "BASELINE.json and CURRENT.json"); err != nil {
				return err
			}
			if format != "text" && format != "markdown" && format != "json" {
				return usageErrorf("-format %q: want text, markdown or json", format)
			}
			if err := checkJUnitPath(junit, args...); err != nil {
				return err
			}
			return compareResults(ctx, args[0], args[1], compareOptions{tol: tol, format: format, all: all,
				allowIncomplete: allowIncomplete, forceBaseline: forceBaseline, junit: junit}, stdout)
		},
	}
}

// compareOptions are the flags of `rlbench compare`.
type compareOptions struct {
	tol    report.Tolerances
	format string
	all    bool
	// allowIncomplete compares an incomplete result on what both
	// measured, without failing for its incompleteness.
	allowIncomplete bool
	// forceBaseline compares against a baseline whose own verdict is not
	// pass.
	forceBaseline bool
	// junit names the file the comparison is also written to as JUnit.
	junit string
}

func compareResults(ctx context.Context, basePath, curPath string, o compareOptions, stdout io.Writer) error {
	base, err := readResult(ctx, basePath)
	if err != nil {
		return err
	}
	if j := verdict.Assess(base); j.Verdict != result.Pass && !o.forceBaseline {
		why := ""
		if reasons := j.Reasons(); len(reasons) > 0 {
			why = ": " + report.Printable(reasons[0])
			if len(reasons) > 1 {
				why += fmt.Sprintf(" (and %d more)", len(reasons)-1)
			}
		}
		return usageErrorf("baseline %s: its own verdict is %s%s; a baseline must pass, or a regression hides behind what it already got wrong "+
			"(record it again, or --force-baseline to compare against it anyway)", basePath, j.Verdict, why)
	}
	cur, err := readResult(ctx, curPath)
	if err != nil {
		return err
	}
	c := report.Compare(base, cur, o.tol)
	if err := report.WriteCompare(stdout, c, o.format, o.all); err != nil {
		return err
	}
	if o.junit != "" {
		if err := writeFile(o.junit, func(w io.Writer) error { return report.WriteCompareJUnit(w, c) }); err != nil {
			return err
		}
	}
	switch {
	case c.Regressed:
		return &failedError{msg: "comparison: regression against " + basePath}
	case len(c.Incomplete) > 0 && !o.allowIncomplete:
		return &failedError{msg: fmt.Sprintf("comparison: no verdict, %s (--allow-incomplete compares what both measured)", c.Incomplete[0])}
	}
	return nil
}

// percentFlag reads "25%" or "25" as the fraction 0.25, refusing a
// negative, infinite or NaN one, and marks name as given.
type percentFlag struct {
	dst   *float64
	name  string
	given map[string]bool
}

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
	p.given[p.name] = true
	return nil
}
