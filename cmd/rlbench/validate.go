package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
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
		p, ts, err := loadProfile(path)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		fmt.Fprintf(stdout, "%s: ok: %d scenarios x %d algorithms = %d runs, %s, %d thresholds\n",
			path, len(p.Scenarios), len(p.Algorithms), len(p.Plan()), planLength(p), len(ts))
	}
	return errors.Join(errs...)
}

// planLength says how long a profile runs: a time bound, plus the requests
// of closed-loop runs that end after a count (their time depends on the
// server).
func planLength(p *workload.Profile) string {
	var total time.Duration
	var closedRequests int64
	algs := int64(len(p.Algorithms))
	for _, s := range p.Scenarios {
		total += p.Warmup * time.Duration(algs)
		target := s.Rate.TargetPerSecond(p.Policy, s.Identities)
		switch {
		case s.Rate.Max && s.Requests > 0:
			closedRequests += s.Requests * algs
		case target > 0 && s.Requests > 0:
			byCount := time.Duration(float64(s.Requests) / target * float64(time.Second))
			total += min(s.Duration, byCount) * time.Duration(algs)
		default:
			total += s.Duration * time.Duration(algs)
		}
	}
	var parts []string
	if total > 0 {
		parts = append(parts, "at most "+total.Round(time.Millisecond).String())
	}
	if closedRequests > 0 {
		parts = append(parts, fmt.Sprintf("%d requests in closed loop", closedRequests))
	}
	return strings.Join(parts, " plus ")
}
