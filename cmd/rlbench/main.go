// Command rlbench load-tests and audits rate limiters that live in Redis.
//
//	rlbench run profiles/boundary.yaml
//
// See `rlbench help` for the subcommands.
package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/report"
)

func main() {
	redisenv.QuietClientLogs()
	command := ""
	if len(os.Args) > 1 {
		command = os.Args[1]
	}
	ctx, stop := interruptContext(os.Stderr, command, func() {
		if err := redisenv.StopAll(); err != nil {
			fmt.Fprintln(os.Stderr, "rlbench: warning: "+report.PrintableLines(err.Error()))
		}
		os.Exit(130)
	})
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

const usage = `rlbench load-tests and audits rate limiters that live in Redis.

Usage:
  rlbench run [flags] PROFILE      run a profile and write results/<profile>-<UTC time>/
  rlbench report [-o DIR] RESULT   render plots and report.html from a result.json
                                   (--format text|benchfmt prints the summary or benchstat lines;
                                   past --max-scenarios N, default 24, only tables and cross-scenario plots)
  rlbench compare BASE CURRENT     compare two results; exit 1 on a regression
  rlbench merge RESULT...          one result from the segments of a load (run --segment I/N)
  rlbench validate PROFILE...      check profiles without running them
  rlbench init LIMITER.lua         write a commented profile for your own limiter (a Lua
                                   script or a Redis Functions library)
  rlbench trace synth -o FILE      write a synthetic request trace (many light sources, a few
                                   heavy, bursts, a daily swing, sources near the limit) for
                                   a replay scenario
  rlbench algorithms               list the limiters and what they promise
  rlbench acl PROFILE              print the ACL user that may run a profile with every figure
  rlbench version                  print the version

Exit codes: 0 pass, 1 a check, threshold or comparison failed, 2 bad usage
or invalid profile, 3 runtime failure (Redis unreachable, run aborted or
interrupted; a partial result is still written), 4 inconclusive (nothing
failed, but a run could not judge what it set out to).

Run 'rlbench help COMMAND' (or 'rlbench COMMAND -h') for a command's flags.
`

// run is the whole program; main only maps its result to an exit code, so
// tests call run directly.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	var err error
	switch name := args[0]; name {
	case "--version", "-version":
		err = versionCommand().execute(ctx, nil, stdout, stderr)
	case "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
	case "help":
		err = help(args[1:], stdout)
	default:
		c, ok := lookup(name)
		if !ok {
			err = usageErrorf("unknown command %q\n\n%s", name, usage)
			break
		}
		err = c.execute(ctx, args[1:], stdout, stderr)
	}
	return exitCode(err, stderr)
}

// help prints the overview, or with a command's name that command's help.
func help(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stdout, usage)
		return nil
	}
	c, ok := lookup(args[0])
	if !ok {
		return usageErrorf("unknown command %q\n\n%s", args[0], usage)
	}
	c.printHelp(stdout, nil)
	return nil
}
