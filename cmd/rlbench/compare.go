package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/rlbench/rlbench/report"
)

// compareCmd compares a current result with a baseline, metric by metric,
// and fails (exit 1) on a regression.
func compareCmd(args []string, stdout, stderr io.Writer) error {
	tol := report.DefaultTolerances
	var format string
	fs := newFlagSet("compare", stderr, "rlbench compare [flags] BASELINE.json CURRENT.json")
	fs.StringVar(&format, "format", "text", "output `format`: text, markdown (for a pull request or $GITHUB_STEP_SUMMARY) or json")
	fs.Var(percentFlag{&tol.P50}, "p50", "how much latency p50 may grow (e.g. 15%)")
	fs.Var(percentFlag{&tol.P99}, "p99", "how much latency p99 may grow (e.g. 25%)")
	fs.Var(percentFlag{&tol.UsecPerCall}, "server", "how much the server time per call may grow (e.g. 25%)")
	fs.Var(percentFlag{&tol.BytesPerIdentity}, "bytes", "how much memory per identity may grow (e.g. 5%)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return usageErrorf("compare needs BASELINE.json and CURRENT.json (got %d arguments)", fs.NArg())
	}
	if format != "text" && format != "markdown" && format != "json" {
		return usageErrorf("-format %q: want text, markdown or json", format)
	}
	base, err := readResult(fs.Arg(0))
	if err != nil {
		return err
	}
	cur, err := readResult(fs.Arg(1))
	if err != nil {
		return err
	}
	c := report.Compare(base, cur, tol)
	if err := report.WriteCompare(stdout, c, format); err != nil {
		return err
	}
	if c.Regressed {
		return &failedError{msg: "comparison: regression against " + fs.Arg(0)}
	}
	return nil
}

// percentFlag reads "25%" or "25" as the fraction 0.25.
type percentFlag struct{ dst *float64 }

func (p percentFlag) String() string {
	if p.dst == nil {
		return ""
	}
	return strconv.FormatFloat(*p.dst*100, 'f', -1, 64) + "%"
}

func (p percentFlag) Set(s string) error {
	v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), "%"), 64)
	if err != nil || v < 0 {
		return fmt.Errorf("%q is not a percentage like 25%%", s)
	}
	*p.dst = v / 100
	return nil
}
