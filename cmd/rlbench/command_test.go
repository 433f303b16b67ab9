package main

import (
	"flag"
	"slices"
	"strings"
	"testing"
)

// TestParseInterspersed: flags count wherever they stand among the
// arguments, and everything after "--" is an argument.
func TestParseInterspersed(t *testing.T) {
	for _, tc := range []struct {
		why        string
		args       []string
		quiet      bool
		out        string
		positional []string
	}{
		{"flags first, as Go's flag package wants", []string{"--quiet", "--out", "x", "p.yaml"}, true, "x", []string{"p.yaml"}},
		{"flags after the argument, as people type", []string{"p.yaml", "--quiet", "--out", "x"}, true, "x", []string{"p.yaml"}},
		{"flags on both sides", []string{"--out=x", "a", "-quiet", "b"}, true, "x", []string{"a", "b"}},
		{"no flags", []string{"a"}, false, "results", []string{"a"}},
		{"after --, a dash is an argument", []string{"--quiet", "--", "-odd-name.yaml", "--out"}, true, "results", []string{"-odd-name.yaml", "--out"}},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		quiet := fs.Bool("quiet", false, "")
		out := fs.String("out", "results", "")
		got, err := parseInterspersed(fs, tc.args)
		if err != nil || *quiet != tc.quiet || *out != tc.out || !slices.Equal(got, tc.positional) {
			t.Errorf("%s: quiet %v, out %q, args %q, err %v; want %v, %q, %q", tc.why, *quiet, *out, got, err, tc.quiet, tc.out, tc.positional)
		}
	}
}

// TestCommandLine checks what each form of asking for help prints, and
// where, and the messages for a wrong number of arguments.
func TestCommandLine(t *testing.T) {
	for _, tc := range []struct {
		why        string
		args       []string
		code       int
		stdout     string // a part of stdout
		stderr     string // a part of stderr
		noFlagsHdr bool   // stdout must not hold an empty "Flags:" header
	}{
		{"help for a command", []string{"help", "run"}, exitOK, "Usage: rlbench run [flags] PROFILE", "", false},
		{"-h prints the command's help on stdout", []string{"run", "-h"}, exitOK, "-keep-keys", "", false},
		{"a command without flags shows no Flags header", []string{"help", "validate"}, exitOK, "Usage: rlbench validate", "", true},
		{"-h after an argument", []string{"report", "x.json", "-h"}, exitOK, "Usage: rlbench report", "", false},
		{"one argument too many, in grammar", []string{"report", "a.json", "b.json"}, exitUsage, "", `report needs exactly one result.json (got 2 arguments: "a.json" "b.json")`, false},
		{"one argument where none is taken", []string{"algorithms", "x"}, exitUsage, "", `algorithms needs no arguments (got 1 argument: "x")`, false},
		{"an unknown flag names the command's help", []string{"run", "p.yaml", "--quite"}, exitUsage, "", "flag provided but not defined: -quite (see 'rlbench run -h')", false},
		{"an empty --redis is not a private server", []string{"run", "--redis", "", "p.yaml"}, exitUsage, "", "--redis was given an empty value (a variable that is not set?)", false},
		{"an empty value with =", []string{"report", "x.json", "-o="}, exitUsage, "", "-o was given an empty value", false},
		{"help for an unknown command", []string{"help", "runn"}, exitUsage, "", `unknown command "runn"`, false},
	} {
		code, stdout, stderr := runCLI(t, tc.args...)
		if code != tc.code || !strings.Contains(stdout, tc.stdout) || !strings.Contains(stderr, tc.stderr) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want %d, stdout with %q, stderr with %q", tc.why, code, stdout, stderr, tc.code, tc.stdout, tc.stderr)
		}
		if tc.noFlagsHdr && strings.Contains(stdout, "Flags:") {
			t.Errorf("%s: an empty Flags header: %q", tc.why, stdout)
		}
	}
}

// TestReportFlagsAfterTheResult renders the fixture's summary with the
// flag typed after the file.
func TestReportFlagsAfterTheResult(t *testing.T) {
	code, stdout, stderr := runCLI(t, "report", fixtureResult(t), "--format", "text")
	if code != exitOK || !strings.Contains(stdout, "verdict: pass") {
		t.Errorf("exit %d, stdout %q, stderr %q; want the summary", code, stdout, stderr)
	}
}
