package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/rlbench/rlbench/algorithms"
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
	var alone []string
	for _, a := range algorithms.List() {
		if !algorithms.CanPipeline(a.Name) {
			alone = append(alone, a.Name)
		}
	}
	except := "."
	if len(alone) > 0 {
		except = fmt.Sprintf(",\nexcept %s, whose requests go out one at a time.", strings.Join(alone, ", "))
	}
	if _, err := fmt.Fprintf(stdout, "\nA profile's pipeline: N (or auto) sends requests in batches on each connection, each request\n"+
		"timed on its own; every limiter above and every declared one decides in one command and is pipelined%s\n", except); err != nil {
		return err
	}
	_, err := fmt.Fprint(stdout, verdictRules)
	return err
}

// verdictRules says what fails a run by default and how a profile changes
// it; report.Assess is where it is decided.
const verdictRules = `
A run fails (verdict fail, exit 1) by default when any limiter:
  - admits more than its own bound in some window (overshoot > 0),
  - decides differently from its reference model (model mismatches > 0),
  - leaves a key without a TTL;
and whatever the limiter, when:
  - calls that got no decision pass the error budget (0.1% of a run's decisions),
  - Redis evicted keys or restarted during a run (limiter state was reset; that
    run's audit is not held against the limiter, the evictions are the failure),
  - a threshold fails.
A run that could not finish (Redis went away, interrupted) is incomplete: exit 3.

A profile changes this with:
  expect_broken: [naive_counter]   run a limiter as a negative control: its broken
                                   promises are expected, and the run fails unless
                                   the audit catches it ("caught, as expected")
  error_budget: 1%                 the share of decisions that may fail (0 for none)
  thresholds: [...]                rules of its own on any result field
`
