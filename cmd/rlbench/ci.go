package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"

	"github.com/rlbench/rlbench/report"
	"github.com/rlbench/rlbench/result"
)

// GitHub Actions says it runs a step with GITHUB_ACTIONS=true, and names
// the file a step's summary is appended to in GITHUB_STEP_SUMMARY.
const (
	githubActionsEnv = "GITHUB_ACTIONS"
	stepSummaryEnv   = "GITHUB_STEP_SUMMARY"
)

// checkJUnitPath refuses, before anything runs, a --junit file rlbench
// could not write or must not: one in a folder that does not exist or
// cannot be written (found by writing there), one that is not a file (a
// directory, a device, a pipe nobody may ever read, which would hold
// rlbench and its private server after the run), and one of the command's
// inputs (the profile, a result), which it would overwrite.
func checkJUnitPath(path string, inputs ...string) error {
	if path == "" {
		return nil
	}
	if fi, err := os.Stat(path); err == nil {
		if kind := fileKind(fi.Mode()); kind != "" {
			return usageErrorf("--junit %s is %s; name a file", path, kind)
		}
		for _, in := range inputs {
			if ii, err := os.Stat(in); err == nil && os.SameFile(fi, ii) {
				return usageErrorf("--junit %s is %s, which it would overwrite; name another file", path, in)
			}
		}
	}
	dir := filepath.Dir(path)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return usageErrorf("--junit %s: the directory %s does not exist", path, dir)
	}
	if err := checkWritable(dir); err != nil {
		return usageErrorf("--junit %s: cannot write in %s: %v", path, dir, err)
	}
	return nil
}

// writeCIOutputs writes what CI systems read of a finished (or partial)
// result: the JUnit file --junit names, and under GitHub Actions the
// annotations (on stdout, where the runner reads workflow commands) and
// the step summary. The step summary is GitHub's page, not an output the
// user asked for: one that cannot be written is a warning on stderr, and
// the exit code stays the verdict's.
func writeCIOutputs(res *result.Result, junitPath string, stdout, stderr io.Writer) error {
	var errs []error
	if junitPath != "" {
		errs = append(errs, writeFile(junitPath, func(w io.Writer) error { return report.WriteJUnit(w, res) }))
	}
	if os.Getenv(githubActionsEnv) == "true" {
		errs = append(errs, report.WriteGitHubAnnotations(stdout, res))
		if path := os.Getenv(stepSummaryEnv); path != "" {
			if err := appendFile(path, func(w io.Writer) error { return report.WriteMarkdown(w, res) }); err != nil {
				fmt.Fprintf(stderr, "rlbench: warning: the step summary ($%s) was not written: %s\n", stepSummaryEnv, report.PrintableLines(err.Error()))
			}
		}
	}
	return errors.Join(errs...)
}

// writeFile writes path anew with what write writes, whole or not at all:
// through a temporary file in its folder, renamed over path once written,
// so a write that fails leaves neither an empty nor a partial file, and
// an earlier file at path as it was.
func writeFile(path string, write func(io.Writer) error) error {
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := result.WriteFileAtomic(path, buf.Bytes()); err != nil {
		return fmt.Errorf("writing %s: %w", path, plainError(err))
	}
	return nil
}

// appendFile adds what write writes at the end of path (the step summary
// holds every step's). path must be a regular file or not exist yet: it is
// opened without waiting (a pipe without a reader is refused at once, not
// waited on) and refused if it is not a file.
func appendFile(path string, write func(io.Writer) error) error {
	if fi, err := os.Stat(path); err == nil {
		if kind := fileKind(fi.Mode()); kind != "" {
			return fmt.Errorf("%s is %s, not a file", path, kind)
		}
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY|syscall.O_NONBLOCK, 0o644)
	if err != nil {
		return err
	}
	fi, err := f.Stat()
	if err == nil {
		if kind := fileKind(fi.Mode()); kind != "" {
			err = fmt.Errorf("%s is %s, not a file", path, kind)
		}
	}
	if err != nil {
		_ = f.Close()
		return err
	}
	if err := write(f); err != nil {
		_ = f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return f.Close()
}
