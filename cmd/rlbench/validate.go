package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/rlbench/rlbench/internal/plural"
	"github.com/rlbench/rlbench/profile"
	"github.com/rlbench/rlbench/report"
)

// validateCommand checks profiles.
func validateCommand() command {
	return command{name: "validate", usage: "PROFILE...", run: validateProfiles}
}

// validateProfiles checks profiles without running them.
func validateProfiles(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usageErrorf("validate needs at least one profile file")
	}
	var errs []error
	for _, path := range args {
		p, err := profile.LoadContext(ctx, path)
		if ctx.Err() != nil {
			return interrupted(ctx, "reading "+path)
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, w := range p.Warnings() {
			fmt.Fprintln(stderr, "rlbench: warning: "+report.PrintableLines(w))
		}
		pl := p.Plan(1)
		fmt.Fprintf(stdout, "%s: ok: %d %s x %d %s = %d %s, %s, %d %s\n", report.Printable(path),
			len(p.Scenarios), plural.Noun(len(p.Scenarios), "scenario", "scenarios"), len(p.Algorithms), plural.Noun(len(p.Algorithms), "algorithm", "algorithms"),
			len(pl.Runs), plural.Noun(len(pl.Runs), "run", "runs"), profile.PlanLength(pl), len(p.Thresholds), plural.Noun(len(p.Thresholds), "threshold", "thresholds"))
	}
	return errors.Join(errs...)
}
