package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"text/tabwriter"

	"github.com/rlbench/rlbench/algorithms"
	"github.com/rlbench/rlbench/plan"
	"github.com/rlbench/rlbench/report"
	"github.com/rlbench/rlbench/result"
)

// defaultBaseline is the committed result of profiles/compare-all.yaml the
// algorithms table takes its measured figures from.
const defaultBaseline = "results/baselines/compare-all.json"

// algorithmsCommand lists the limiters.
func algorithmsCommand() command {
	var baseline string
	return command{
		name:  "algorithms",
		usage: "[--baseline RESULT]",
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&baseline, "baseline", defaultBaseline,
				"take bytes per identity and server time per decision from this `RESULT` of profiles/compare-all.yaml")
		},
		run: func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
			return listAlgorithms(ctx, args, baseline, stdout)
		},
	}
}

// listAlgorithms prints the limiters side by side: what an identity costs
// in Redis (its state, and the bytes and server time a baseline measured),
// what each promises in one window, and whether it decides exactly as its
// semantics say; then each one's parameters and semantics.
func listAlgorithms(ctx context.Context, args []string, baselinePath string, stdout io.Writer) error {
	if err := wantArgs("algorithms", args, 0, "no arguments"); err != nil {
		return err
	}
	costs, source, err := baselineCosts(ctx, baselinePath)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSTATE PER IDENTITY\tB/IDENTITY\tµs/CALL\tBOUND IN ONE WINDOW\tEXACT")
	for _, a := range algorithms.List() {
		name := a.Name
		switch {
		case a.NegativeControl:
			name += " (negative control)"
		case !a.Default:
			name += " (opt-in)"
		}
		bytes, usec := "-", "-"
		if c := costs[a.Name]; c != nil && c.HaveMemory {
			bytes = report.FormatSize(c.BytesPerIdentity)
		}
		if c := costs[a.Name]; c != nil && c.HaveServer {
			usec = fmt.Sprintf("%.1f", c.UsecPerCall)
		}
		exact := "yes"
		if a.Approximation != "" {
			exact = "no"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", name, a.State, bytes, usec, a.Bound, exact)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\n%s\n\n", report.PrintableLines(source))
	for _, a := range algorithms.List() {
		fmt.Fprintf(stdout, "%s (%s): %s\n", a.Name, a.Params, a.Describe())
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
	if _, err := fmt.Fprint(stdout, verdictRules); err != nil {
		return err
	}
	return listFaults(stdout)
}

// baselineCosts reads the measured figures from a compare-all result, and
// says where they come from. The default baseline may be missing (rlbench
// installed away from its repository): the table then says how to measure
// them. A baseline named on the command line must be there. The first
// Ctrl-C stops the reading, even of a huge file or a pipe that waits.
func baselineCosts(ctx context.Context, path string) (map[string]*report.Costs, string, error) {
	res, err := result.ReadFileContext(ctx, path)
	if ctx.Err() != nil {
		return nil, "", interrupted(ctx, "reading "+path)
	}
	measure := "measure with: rlbench run profiles/compare-all.yaml, then rlbench algorithms --baseline results/compare-all-<time>/result.json"
	if errors.Is(err, fs.ErrNotExist) && path == defaultBaseline {
		return nil, fmt.Sprintf("B/identity and µs/call: no baseline at %s; %s", path, measure), nil
	}
	if err != nil {
		return nil, "", usageErrorf("--baseline: %v", err)
	}
	source := fmt.Sprintf("B/identity: Redis memory per identity in the run of %s that held the most identities; µs/call: server time per decision over all its runs.\n"+
		"Measured by profile %s on Redis %s (%s), %s. Other hardware and Redis versions differ: %s.",
		path, res.Profile.Name, res.Redis.Version, res.Redis.Mode, res.StartedAt.UTC().Format("2006-01-02"), measure)
	return report.AlgorithmCosts(res), source, nil
}

// listFaults lists the faults a scenario may schedule and the caller's
// error policies.
func listFaults(w io.Writer) error {
	fmt.Fprint(w, "\nFaults a scenario may schedule (faults: [{at: 5s, for: 2s, kind: pause}, ...]):\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "KIND\tFOR\tWHAT\tWHERE")
	for _, f := range plan.FaultKinds() {
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
// it; verdict.Assess is where it is decided.
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
