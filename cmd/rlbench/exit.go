package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/rlbench/rlbench/profile"
	"github.com/rlbench/rlbench/report"
	"github.com/rlbench/rlbench/result"
)

// Exit codes, as DESIGN.md fixes them.
const (
	exitOK      = 0
	exitFail    = 1
	exitUsage   = 2
	exitRuntime = 3
	// exitInconclusive: nothing failed, but a run could not judge what it
	// set out to (see verdict.Assess).
	exitInconclusive = 4
)

// usageError is bad usage or bad input: exit 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usageErrorf(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// failedError is a run whose thresholds or comparison failed: exit 1. Its
// message has been printed with the summary already.
type failedError struct{ msg string }

func (e *failedError) Error() string { return e.msg }

// inconclusiveError is a result that could not judge what it set out to:
// exit 4. Its reasons have been printed with the summary already.
type inconclusiveError struct{ msg string }

func (e *inconclusiveError) Error() string { return e.msg }

// verdictError is the error a finished result's verdict makes: nil on a
// pass.
func verdictError(verdict string) error {
	switch verdict {
	case result.Pass:
		return nil
	case result.Inconclusive:
		return &inconclusiveError{msg: "verdict: inconclusive"}
	}
	return &failedError{msg: "verdict: " + verdict}
}

// interrupted is the error of a command the first Ctrl-C stopped while it
// was doing what doing names: a runtime failure (exit 3).
func interrupted(ctx context.Context, doing string) error {
	return fmt.Errorf("interrupted while %s: %w", doing, context.Cause(ctx))
}

// exitCode maps an error to the exit code and prints it.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	fmt.Fprintln(stderr, "rlbench: "+printedError(err.Error()))
	var usage *usageError
	var perrs profile.Errors
	var perr *profile.Error
	var failed *failedError
	var inconclusive *inconclusiveError
	switch {
	case errors.As(err, &failed):
		return exitFail
	case errors.As(err, &inconclusive):
		return exitInconclusive
	case errors.As(err, &usage), errors.As(err, &perrs), errors.As(err, &perr):
		return exitUsage
	default:
		return exitRuntime
	}
}

// maxErrorLines bounds how many lines of an error rlbench prints: a
// profile of thousands of mistakes (each line one) would bury its first,
// which are the ones to fix first.
const maxErrorLines = 40

// printedError is msg as rlbench prints it: safe for a terminal (see
// report.PrintableLines), each line cut to result.MaxTextBytes and at
// most maxErrorLines lines, with how many more there were.
func printedError(msg string) string {
	lines := strings.Split(msg, "\n")
	more := 0
	if len(lines) > maxErrorLines {
		more = len(lines) - maxErrorLines
		lines = lines[:maxErrorLines]
	}
	for i, l := range lines {
		lines[i] = result.ClipText(l)
	}
	out := report.PrintableLines(strings.Join(lines, "\n"))
	if more > 0 {
		out += fmt.Sprintf("\n(and %s more lines)", report.FormatCount(int64(more)))
	}
	return out
}
