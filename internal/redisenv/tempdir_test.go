package redisenv_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rlbench/rlbench/internal/redisenv"
	"github.com/rlbench/rlbench/internal/redistest"
)

// TestAStartThatNoPortHelpsIsSaidOnce: what fails the same on every port
// — a TMPDIR that does not exist, is a file or takes no folder, a
// redis-server that cannot be executed — is said once, naming what is
// wrong and what to do, for one server and for a cluster's nodes alike,
// not once per port tried ("failed on 3 fresh ports: stat ..." three
// times).
func TestAStartThatNoPortHelpsIsSaidOnce(t *testing.T) {
	server := redistest.ServerPath(t)
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	notExecutable := filepath.Join(t.TempDir(), "redis-server")
	if err := os.WriteFile(notExecutable, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, tc := range []struct {
		why, tmp, path, want, once string
	}{
		{"a TMPDIR that does not exist", "/nonexistent-rlbench-tmp", server, "the temporary directory /nonexistent-rlbench-tmp does not exist", "/nonexistent-rlbench-tmp"},
		{"a TMPDIR that is a file", file, server, "the temporary directory " + file + " is not a directory", file},
		{"a TMPDIR nobody may write in (even root)", "/sys", server, "set TMPDIR to a directory rlbench may write in", "/sys"},
		{"a redis-server that cannot be executed", t.TempDir(), notExecutable, "permission denied", notExecutable},
	} {
		t.Setenv("TMPDIR", tc.tmp)
		srv, err := redisenv.StartServer(ctx, tc.path)
		if err == nil {
			_ = srv.Stop()
			t.Fatalf("%s: started", tc.why)
		}
		if msg := err.Error(); !strings.Contains(msg, tc.want) || strings.Count(msg, tc.once) != 1 || strings.Contains(msg, "fresh ports") {
			t.Errorf("%s: %q; want %q, naming %s once", tc.why, msg, tc.want, tc.once)
		}
		if tc.path != server {
			continue
		}
		c, err := redisenv.StartCluster(ctx, tc.path, redisenv.ClusterSpec{Masters: 3})
		if err == nil {
			_ = c.Stop()
			t.Fatalf("%s: a cluster started", tc.why)
		}
		if msg := err.Error(); !strings.Contains(msg, tc.want) || strings.Count(msg, tc.once) != 1 {
			t.Errorf("%s, a cluster: %q; want %q, naming %s once", tc.why, msg, tc.want, tc.once)
		}
	}
}
