package main

import (
	"context"
	"errors"
	"fmt"
	"io"

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
		fmt.Fprintf(stdout, "%s: ok: %d scenarios x %d algorithms = %d runs, %s, %d thresholds\n",
			report.Printable(path), len(p.Scenarios), len(p.Algorithms), len(pl.Runs), profile.PlanLength(pl), len(p.Thresholds))
	}
	return errors.Join(errs...)
}
