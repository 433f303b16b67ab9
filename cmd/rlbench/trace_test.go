package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTraceSynthCommand(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "t.jsonl.gz")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"trace", "synth", "-o", out, "--lines", "300", "--sources", "50", "--near", "2", "--seed", "3"}, &stdout, &stderr)
	if code != exitOK || !strings.Contains(stdout.String(), "wrote 300 requests") {
		t.Fatalf("exit %d, %q %q", code, stdout.String(), stderr.String())
	}
	if fi, err := os.Stat(out); err != nil || fi.Size() == 0 {
		t.Fatalf("%s: %v", out, err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"trace"}, "trace needs what to do"},
		{[]string{"trace", "merge"}, `trace needs what to do: rlbench trace synth -o FILE (got "merge")`},
		{[]string{"trace", "synth"}, "trace synth needs -o FILE"},
		{[]string{"trace", "synth", "-o", filepath.Join(dir, "t.txt")}, "cannot tell the format of"},
		{[]string{"trace", "synth", "-o", out, "--diurnal", "1.5"}, "diurnal swing 1.5"},
		{[]string{"trace", "synth", "-o", out, "--start", "yesterday"}, `--start "yesterday" is not an RFC 3339 time`},
		{[]string{"trace", "synth", "-o", out, "extra"}, "no arguments besides its flags"},
	} {
		stdout.Reset()
		stderr.Reset()
		if code := run(context.Background(), tc.args, &stdout, &stderr); code != exitUsage || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%q: exit %d, %q; want 2 and %q", tc.args, code, stderr.String(), tc.want)
		}
	}
	// An interrupted trace is not left behind as if it were whole.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	part := filepath.Join(dir, "part.csv")
	if code := run(ctx, []string{"trace", "synth", "-o", part, "--lines", "100000"}, &stdout, &stderr); code == exitOK {
		t.Error("an interrupted trace synth exited 0")
	}
	if _, err := os.Stat(part); !os.IsNotExist(err) {
		t.Errorf("the interrupted trace is still there: %v", err)
	}
}

// The trace profiles/replay.yaml replays is what the command its comment
// gives writes, byte for byte.
func TestShippedTraceIsWhatItsCommandWrites(t *testing.T) {
	const shipped = "../../profiles/traces/synthetic.csv.gz"
	prof, err := os.ReadFile("../../profiles/replay.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var args []string
	for _, line := range strings.Split(string(prof), "\n") {
		line = strings.TrimSpace(strings.TrimPrefix(line, "#"))
		if strings.HasPrefix(line, "rlbench trace synth ") || (args != nil && strings.HasPrefix(line, "--")) {
			args = append(args, strings.Fields(strings.TrimSuffix(line, `\`))...)
		}
	}
	if len(args) < 4 || args[3] != "-o" || args[4] != "profiles/traces/synthetic.csv.gz" {
		t.Fatalf("no trace synth command in the profile's comment: %q", args)
	}
	out := filepath.Join(t.TempDir(), "synthetic.csv.gz")
	args[4] = out
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), args[1:], &stdout, &stderr); code != exitOK {
		t.Fatalf("%q: exit %d, %s", args, code, stderr.String())
	}
	want, _ := os.ReadFile(shipped)
	got, _ := os.ReadFile(out)
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from what %q writes (%d bytes, not %d)", shipped, args, len(got), len(want))
	}
	if !strings.Contains(string(prof), "10,905 requests") || !strings.Contains(stdout.String(), "wrote 10905 requests") {
		t.Errorf("the profile's comment and the command disagree on the requests: %s", stdout.String())
	}
}
