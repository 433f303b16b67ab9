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
	"os/signal"
	"syscall"

	"github.com/redis/go-redis/v9"
)

type discardLogger struct{}

func (discardLogger) Printf(context.Context, string, ...any) {}

func main() {
	// Failed calls are counted in the result; go-redis's own log lines
	// would only garble the progress display.
	redis.SetLogger(discardLogger{})
	ctx, stop := interruptContext(os.Stderr)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// interruptContext is cancelled by the first Ctrl-C (or SIGTERM): rlbench
// then stops issuing, lets calls in flight finish, and writes what it
// measured. A second Ctrl-C quits at once.
func interruptContext(stderr io.Writer) (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case <-sig:
			fmt.Fprintln(stderr, "\nrlbench: stopping: finishing calls in flight and writing what was measured (Ctrl-C again to quit now)")
			cancel()
		case <-done:
			return
		}
		select {
		case <-sig:
			fmt.Fprintln(stderr, "rlbench: quitting without writing a result")
			os.Exit(130)
		case <-done:
		}
	}()
	return ctx, func() { signal.Stop(sig); close(done); cancel() }
}

const usage = `rlbench load-tests and audits rate limiters that live in Redis.

Usage:
  rlbench run [flags] PROFILE      run a profile and write results/<profile>-<UTC time>/
  rlbench report [-o DIR] RESULT   render plots and report.html from a result.json
                                   (--format text|benchfmt prints the summary or benchstat lines)
  rlbench compare BASE CURRENT     compare two results; exit 1 on a regression
  rlbench validate PROFILE...      check profiles without running them
  rlbench algorithms               list the limiters and what they promise
  rlbench version                  print the version

Exit codes: 0 pass, 1 a threshold or comparison failed, 2 bad usage or
invalid profile, 3 runtime failure (Redis unreachable, run aborted or
interrupted; a partial result is still written).

Run 'rlbench COMMAND -h' for a command's flags.
`

// run is the whole program; main only maps its result to an exit code, so
// tests call run directly.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	var err error
	switch args[0] {
	case "run":
		err = runCmd(ctx, args[1:], stdout, stderr)
	case "report":
		err = reportCmd(args[1:], stdout, stderr)
	case "validate":
		err = validateCmd(args[1:], stdout, stderr)
	case "compare":
		err = compareCmd(args[1:], stdout, stderr)
	case "algorithms":
		err = algorithmsCmd(args[1:], stdout, stderr)
	case "version", "--version", "-version":
		fmt.Fprintln(stdout, "rlbench", version())
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
	default:
		err = usageErrorf("unknown command %q\n\n%s", args[0], usage)
	}
	return exitCode(err, stderr)
}
