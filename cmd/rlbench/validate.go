package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"time"

	"github.com/rlbench/rlbench/workload"
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
		p, err := workload.LoadProfile(path)
		if err != nil {
			errs = append(errs, profileLoadError(path, err))
			continue
		}
		plan := p.Plan()
		var total time.Duration
		for _, s := range p.Scenarios {
			total += (s.Duration + p.Warmup) * time.Duration(len(p.Algorithms))
		}
		fmt.Fprintf(stdout, "%s: ok: %d scenarios x %d algorithms = %d runs, at most %s\n",
			path, len(p.Scenarios), len(p.Algorithms), len(plan), total)
	}
	return errors.Join(errs...)
}

// profileLoadError keeps profile errors as they are (they name the file) and
// turns a file that cannot be read into a usage error naming it.
func profileLoadError(path string, err error) error {
	var perrs workload.ProfileErrors
	if errors.As(err, &perrs) {
		return err
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return usageErrorf("%s: %v", path, pe.Err)
	}
	return usageErrorf("%s: %v", path, err)
}
