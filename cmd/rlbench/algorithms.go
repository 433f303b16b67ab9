package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/profile"
)

// algorithmsCommand lists the limiters.
func algorithmsCommand() command {
	return command{name: "algorithms", run: listAlgorithms}
}

// listAlgorithms lists the limiters, their parameters and their semantics.
func listAlgorithms(_ context.Context, args []string, stdout, _ io.Writer) error {
	if err := wantArgs("algorithms", args, 0, "no arguments"); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tPARAMS\tSTATE\tSEMANTICS")
	for _, a := range algorithms.List() {
		name := a.Name
		if !a.Default {
			name += " (opt-in)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", name, a.Params, a.State, a.Semantics)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if _, err := fmt.Fprintf(stdout, "\nYour own limiter (a Lua script or a Redis Function) is declared in a profile's algorithms list,\n"+
		"with semantics %s: `rlbench init LIMITER.lua` writes one.\n", strings.Join(algorithms.SemanticsNames(), ", ")); err != nil {
		return err
	}
	if _, err := fmt.Fprint(stdout, verdictRules); err != nil {
		return err
	}
	return listFaults(stdout)
}

// listFaults lists the faults a scenario may schedule and the caller's
// error policies.
func listFaults(w io.Writer) error {
	fmt.Fprint(w, "\nFaults a scenario may schedule (faults: [{at: 5s, for: 2s, kind: pause}, ...]):\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "KIND\tFOR\tWHAT\tWHERE")
	for _, f := range profile.FaultKinds() {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", f.Kind, f.For, f.What, f.Target)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprint(w, clientRules)
	return err
}

// clientRules says what the client section does.
const clientRules = `
The caller (client: {timeout: 50ms, retries: 1, backoff: 10ms, on_error: fail_closed}) bounds
each limiter call, retries a failed one after a backoff that doubles, and when every call
failed decides itself: fail_open admits, fail_closed denies, local asks an in-process limiter
of the same algorithm. A list (on_error: [fail_open, fail_closed]) runs each scenario once
per policy, named <scenario>-<policy>.
`

// verdictRules says what fails a run by default and how a profile changes
// it; report.Assess is where it is decided.
const verdictRules = `
A run fails (verdict fail, exit 1) by default when any limiter:
  - admits more than its own bound in some window (overshoot > 0),
  - decides differently from its reference model (model mismatches > 0),
  - leaves a key without a TTL;
and whatever the limiter, when:
  - calls that got no decision pass the error budget (0.1% of a run's decisions;
    those inside the windows and recoveries of faults the profile schedules are
    the faults' figures, not the budget's),
  - Redis evicted keys or restarted during a run (limiter state was reset; that
    run's audit is not held against the limiter, the evictions are the failure);
    a restart, kill or failover the profile schedules is not a failure: what the
    lost state let through is reported as such, not as overshoot,
  - a threshold fails.
A run that could not finish (Redis went away, interrupted) is incomplete: exit 3.

A profile changes this with:
  expect_broken: [naive_counter]   run a limiter as a negative control: its broken
                                   promises are expected, and the run fails unless
                                   the audit catches it ("caught, as expected")
  error_budget: 1%                 the share of decisions that may fail (0 for none)
  thresholds: [...]                rules of its own on any result field
`
