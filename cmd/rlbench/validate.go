package main

import (
	"errors"
	"fmt"
	"io"
	"time"
)

// validateCmd checks profiles without running them.
func validateCmd(args []string, stdout, stderr io.Writer) error {
	flags := newFlagSet("validate", stderr, "rlbench validate PROFILE...")
	if err := parseFlags(flags, args); err != nil {
		return err
	}
	if flags.NArg() == 0 {
		return usageErrorf("validate needs at least one profile file")
	}
	var errs []error
	for _, path := range flags.Args() {
		p, ts, err := loadProfile(path)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		plan := p.Plan()
		var total time.Duration
		for _, s := range p.Scenarios {
			total += (s.Duration + p.Warmup) * time.Duration(len(p.Algorithms))
		}
		fmt.Fprintf(stdout, "%s: ok: %d scenarios x %d algorithms = %d runs, at most %s, %d thresholds\n",
			path, len(p.Scenarios), len(p.Algorithms), len(plan), total, len(ts))
	}
	return errors.Join(errs...)
}
