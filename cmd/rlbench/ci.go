package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/rlbench/rlbench/report"
	"github.com/rlbench/rlbench/result"
)

// GitHub Actions says it runs a step with GITHUB_ACTIONS=true, and names
// the file a step's summary is appended to in GITHUB_STEP_SUMMARY.
const (
	githubActionsEnv = "GITHUB_ACTIONS"
	stepSummaryEnv   = "GITHUB_STEP_SUMMARY"
)

// checkJUnitPath refuses, before a run, a --junit file that could not be
// written: its directory does not exist, or it names a directory.
func checkJUnitPath(path string) error {
	if path == "" {
		return nil
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return usageErrorf("--junit %s is a directory; name a file", path)
	}
	if fi, err := os.Stat(filepath.Dir(path)); err != nil || !fi.IsDir() {
		return usageErrorf("--junit %s: the directory %s does not exist", path, filepath.Dir(path))
	}
	return nil
}

// writeCIOutputs writes what CI systems read of a finished (or partial)
// result: the JUnit file --junit names, and under GitHub Actions the
// annotations (on stdout, where the runner reads workflow commands) and
// the step summary.
func writeCIOutputs(res *result.Result, junitPath string, stdout io.Writer) error {
	var errs []error
	if junitPath != "" {
		errs = append(errs, writeFile(junitPath, func(w io.Writer) error { return report.WriteJUnit(w, res) }))
	}
	if os.Getenv(githubActionsEnv) == "true" {
		errs = append(errs, report.WriteGitHubAnnotations(stdout, res))
		if path := os.Getenv(stepSummaryEnv); path != "" {
			errs = append(errs, appendFile(path, func(w io.Writer) error { return report.WriteMarkdown(w, res) }))
		}
	}
	return errors.Join(errs...)
}

// writeFile writes path anew with what write writes.
func writeFile(path string, write func(io.Writer) error) error {
	return writeTo(path, os.O_TRUNC|os.O_CREATE|os.O_WRONLY, write)
}

// appendFile adds what write writes at the end of path (the step summary
// holds every step's).
func appendFile(path string, write func(io.Writer) error) error {
	return writeTo(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, write)
}

// writeTo opens path with flag and writes to it what write writes.
func writeTo(path string, flag int, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, flag, 0o644)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		_ = f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return f.Close()
}
